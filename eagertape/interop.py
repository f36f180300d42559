"""Handing Tensors to JAX code, and JAX arrays back.

A Tensor (and a Variable, for its current value) goes wherever a ``jax.Array``
goes:

- ``jnp.asarray(t)`` and every ``jax.numpy`` function (``__jax_array__``);
- ``jax.jit(f)(t)``, ``jax.vmap(f)(t)``, ``jax.grad(f)(t)``, ``jax.device_put(t)``,
  ``jax.tree_util.tree_map``: Tensor and Variable are pytree nodes with one child,
  their array. ``f`` then receives a Tensor holding a tracer (jax.numpy and
  eagertape's ops both take it), and a Tensor that comes out is rebuilt as a
  Tensor. A Variable's node rebuilds as a Tensor: JAX's functions return values,
  and the Variable itself is not changed (as TF's ``tf.convert_to_tensor(v)``);
- DLPack (``np.from_dlpack(t)``, ``jnp.from_dlpack(t)``, ``torch.from_dlpack(t)``):
  ``__dlpack__`` / ``__dlpack_device__`` of the array, no copy;
- whole nests: :func:`to_jax` and :func:`from_jax`.

>>> import jax
>>> import jax.numpy as jnp
>>> import eagertape as et
>>> t = et.constant([1.0, 2.0])
>>> jnp.asarray(t)
Array([1., 2.], dtype=float32)
>>> jax.jit(lambda x: x * 2)(t)          # a Tensor in, a Tensor out
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>

Decisions, and why:

- **No silent loss of gradient.** JAX sees only the value: if a recording
  ``GradientTape`` (or an active ``ForwardAccumulator``) tracks the Tensor, or
  may watch the Variable, every way in above raises TypeError (as handing one to
  ``jnp`` did before) saying what to do: compute with eagertape's recorded ops
  (``eagertape.numpy``, ``tf.*``, ``eagertape.function`` for compiled code), take
  the value off the tape on purpose (``eagertape.stop_gradient(nest)``,
  ``.jax()``, ``.numpy()``), or run the JAX code under ``tape.stop_recording()``.
  The tape stays usable. ``np.asarray(t)`` still works in a tape, as in TF (NumPy
  leaves the tape, as ``.numpy()``).
- **Pytree nodes, not ``__jax_array__`` alone**: recent JAX (0.10 here) no longer
  converts ``__jax_array__`` objects given to ``jax.jit`` (nor to the jitted
  ``jax.numpy`` functions, ``jnp.sin``), and says to register a pytree. So
  ``jax.tree_util`` sees the arrays inside Tensors and Variables:
  ``tree_map(f, nest)`` calls ``f`` on arrays. To keep them whole, pass
  ``is_leaf=lambda x: isinstance(x, (eagertape.Tensor, eagertape.Variable))``,
  or use ``tf.nest`` (where they are atoms, as in TF). eagertape's own code
  flattens with that ``is_leaf``. ``jax.lax`` functions bind arrays directly:
  give them ``t.jax()`` or ``jnp.asarray(t)``.
- **dtypes as for a NumPy array**: JAX gets a Tensor's array as it would take a
  NumPy array of that dtype. Under JAX's default 32-bit mode a float64, int64,
  uint64 or complex128 Tensor enters as float32, int32, uint32 or complex64
  (``jnp.asarray(np.float64(1))`` is float32 too); with ``jax_enable_x64`` on it
  keeps its dtype. DLPack hands over the buffer as it is (64-bit stays 64-bit).
- **Fused mode**: a pending value is computed first, as ``.numpy()`` computes it.
- **Inside eagertape.function** a Tensor holds a tracer; raw JAX on it is part of
  the traced program, so its gradient is the traced program's.
"""
import jax

from ._tensor import Tensor, _TensorLike, _for_jax, _wrap, standin
from ._variables import Variable, _refuse_watched
from ._tensor import _canonical

__all__ = ["to_jax", "from_jax"]


def _is_et(x):
    return isinstance(x, _TensorLike) or hasattr(type(x), "_eagertape_variable")


def _to_array(x):
    x = standin(x)
    if isinstance(x, Tensor):
        return _for_jax(x, "given to eagertape.to_jax")
    if isinstance(x, Variable):
        _refuse_watched(x, "given to eagertape.to_jax")
        return _canonical(x._value)
    return x


def to_jax(nest):
    """``nest`` with every Tensor and Variable replaced by its ``jax.Array``.

    ``nest`` is any pytree of JAX (dicts, lists, tuples, namedtuples, None, a
    registered class); other leaves are returned as they are. A Variable gives its
    current value (not a recorded read). Arrays are the Tensors' own (no copy),
    but 64-bit dtypes enter JAX's 32-bit default mode as float32/int32, as a
    NumPy array would. A Tensor that a recording GradientTape tracks is refused
    (TypeError): JAX code would cut its gradient; pass
    ``eagertape.stop_gradient(nest)`` to take the values off the tape on purpose.

    >>> import jax, jax.numpy as jnp, eagertape as et
    >>> params = {"w": et.Variable([1.0, 2.0]), "b": et.constant(0.5), "note": None}
    >>> arrays = et.to_jax(params)
    >>> type(arrays["w"]).__name__ in ("ArrayImpl", "Array"), arrays["note"]
    (True, None)
    >>> float(jnp.dot(arrays["w"], arrays["w"]) + arrays["b"])
    5.5
    """
    return jax.tree_util.tree_map(_to_array, nest, is_leaf=_is_et)


def _to_tensor(x):
    return _wrap(x) if isinstance(x, jax.Array) else x


def from_jax(nest):
    """``nest`` with every ``jax.Array`` replaced by a Tensor holding it (no copy).

    Other leaves (Python numbers, NumPy arrays, None, strings) and Tensors or
    Variables already in it are returned as they are. The Tensors are new
    constants: watch them (``tape.watch``) to differentiate with respect to them.
    Inside ``jax.jit`` it wraps tracers, which eagertape's ops take.

    >>> import jax.numpy as jnp, eagertape as et
    >>> from eagertape import numpy as tnp
    >>> ts = et.from_jax({"x": jnp.array([1.0, 2.0]), "steps": 3})
    >>> ts["x"], ts["steps"]
    (<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>, 3)
    >>> with et.GradientTape() as tape:
    ...     tape.watch(ts["x"])
    ...     y = tnp.sum(ts["x"] ** 2)
    >>> tape.gradient(y, ts["x"]).numpy()
    array([2., 4.], dtype=float32)
    """
    return jax.tree_util.tree_map(_to_tensor, nest, is_leaf=_is_et)
