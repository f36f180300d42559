"""``tf.shape`` of a tensor whose size JAX knows only symbolically, usable as a size.

Keras 3 on JAX computes a functional model's output shapes by tracing each layer's
``call`` with ``jax.export`` symbolic dimensions for its None sizes (the batch);
eagertape's ``tf.function`` traces some signatures so too (a relaxed trace). TF
traces those calls with a None size, and ``tf.shape(x)`` there is a tensor whose
known dimensions fold to constants and whose None dimension is computed when the
graph runs: ``tf.reshape(y, tf.shape(x))``, ``tf.range(tf.shape(x)[0])`` and
``t[:tf.shape(x)[0]]`` build.

Here ``tf.shape`` of such a tensor gives a ``Dims`` Tensor: its value is the shape's
(traced) and it keeps the dimensions themselves (ints and JAX symbolic dimensions).
Its items, and ``+ - * //`` with ints or other sizes, are sizes too (a known one a
constant, as ``tf.shape`` of a static shape is); ``tf.expand_dims``, ``tf.stack``,
``tf.concat`` and an integer ``tf.cast`` of sizes keep them. What takes sizes reads
the dimensions: ``tf.reshape``, ``tf.tile``, ``tf.zeros``/``ones``/``fill``
(``_util.ints``), ``tf.range``, a slice's bounds (the core's
``extend.Tensor.__getitem__`` asks ``_symbolic_size``), which JAX's reshape, slicing
and ``arange`` take where JAX allows it (a slice of a static axis to a symbolic size
has JAX's size ``min(n, size)``, which JAX cannot broadcast with ``size``; TF's
None meets any size: tf/_keras.py retries Keras's output spec with sizes there).
Any other use sees the traced value, as any tensor computed in a trace.

A constant made in a trace is folded as TF folds its Const: JAX stages
``tf.constant([1, 1])`` there (a traced value, which no shape argument takes), so
``tf.constant`` of a small integer scalar or vector gives a Dims whose sizes are that
constant's ints beside its traced value (the value itself stays traced, so a loop or
a TensorArray carrying it sees no change). The ops above keep such sizes as they
keep symbolic ones, and what takes a shape reads them (``_util.constant_value``, TF's
``tensor_util.constant_value``): ``tf.tile(m, tf.concat([[b], tf.constant([1, 1])], 0))``
and ``tf.reshape(x, tf.constant([-1, 2]))`` build.
"""
import functools

import jax
import jax.numpy as jnp
import numpy as np

from ..extend import Tensor, TensorLike as _TensorLike, as_dtype, constant, convert_to_tensor, wrap

__all__ = ["Dims", "dims_of", "folded_value", "is_symbolic", "shape_tensor", "install"]

# The most items a folded constant keeps (sizes and shape vectors are small; a
# constant beyond it is only its traced value).
_FOLD_SIZE = 64


def is_symbolic(d):
    """Whether ``d`` is a dimension JAX knows only symbolically (not an int)."""
    return not isinstance(d, (int, np.integer)) and hasattr(d, "dimension_as_value") \
        or type(d).__name__ == "_DimExpr"


class Dims(Tensor):
    """A Tensor of sizes (``tf.shape``'s answer) some of which JAX knows only
    symbolically, or all known where its traced value was built from constants
    (folded): ``_dims`` holds them (a tuple for a vector, one for a scalar).

    >>> import jax
    >>> import eagertape.tf as tf
    >>> tf.shape(tf.zeros((2, 3))).numpy()          # known sizes: a constant
    array([2, 3], dtype=int32)
    >>> def pairs(x):                                # a size JAX knows symbolically
    ...     n = tf.shape(x)[0]
    ...     return tf.reshape(tf.range(n * 2), (n, 2))._value
    >>> b, = jax.export.symbolic_shape("b")
    >>> jax.eval_shape(pairs, jax.ShapeDtypeStruct((b, 3), "float32")).shape
    (b, 2)
    """
    __slots__ = ("_dims",)

    def read_value(self):
        # The core reads an operand that is not a plain Tensor with read_value (a
        # Variable's read): the sizes' values, as a plain Tensor (no gradient).
        return wrap(self._v)

    # The core reads a slice bound's size from here (a symbolic dimension).
    @property
    def _symbolic_size(self):
        return self._dims if not isinstance(self._dims, tuple) else None

    def __getitem__(self, idx):
        out = super().__getitem__(idx)
        if isinstance(self._dims, tuple) and isinstance(idx, (int, np.integer, slice)) and (
                not isinstance(idx, slice) or all(b is None or isinstance(b, int)
                                                  for b in (idx.start, idx.stop, idx.step))):
            return _sized(self._dims[idx], out, _folded(self))
        return out

    def __iter__(self):
        if isinstance(self._dims, tuple):
            return iter([self[i] for i in range(len(self._dims))])
        return super().__iter__()


def _arith(name, op):
    base = getattr(Tensor, name)

    def method(self, other):
        out = base(self, other)
        o = dims_of(other)
        if out is NotImplemented or o is None or not np.issubdtype(out.dtype, np.integer):
            return out
        a, b = np.asarray(self._dims, object), np.asarray(o, object)
        try:
            dims = np.asarray(op(a, b) if not name.startswith("__r") else op(b, a), object)
        except Exception:       # a symbolic operation JAX cannot do: the traced value
            return out
        return _sized(tuple(dims.tolist()) if dims.ndim else dims.item(), out,
                      _folded(self) or _folded(other))
    method.__name__ = name
    return method


for _name, _op in [("__add__", np.add), ("__radd__", np.add), ("__sub__", np.subtract),
                   ("__rsub__", np.subtract), ("__mul__", np.multiply),
                   ("__rmul__", np.multiply), ("__floordiv__", np.floor_divide),
                   ("__rfloordiv__", np.floor_divide)]:
    setattr(Dims, _name, _arith(_name, _op))


def _sized(dims, value, folded=False):
    """``value`` (a traced Tensor of sizes ``dims``) as a Dims, or a constant where
    every size is known; still a Dims with its traced value where it was built from
    a folded constant (``folded``): the trace keeps what it staged."""
    flat = dims if isinstance(dims, tuple) else (dims,)
    v = value._value if isinstance(value, _TensorLike) else value
    if folded and isinstance(v, jax.core.Tracer) and len(flat) <= _FOLD_SIZE:
        t = object.__new__(Dims)
        t._v = v
        t._dims = dims
        return t
    if not any(is_symbolic(d) for d in flat):
        with jax.ensure_compile_time_eval():
            return constant(np.array(dims if isinstance(dims, tuple) else dims,
                                     dtype=np.dtype(value.dtype)))
    t = object.__new__(Dims)
    t._v = value._value if isinstance(value, _TensorLike) else value
    t._dims = dims
    return t


def shape_tensor(dims, dtype):
    """``tf.shape``'s Tensor of ``dims`` (some symbolic) in ``dtype``."""
    return _sized(tuple(dims), jnp.asarray(tuple(dims), dtype))


def _folded(x):
    """Whether ``x`` is a Dims of known sizes beside a traced value (a folded constant)."""
    if not isinstance(x, Dims):
        return False
    flat = x._dims if isinstance(x._dims, tuple) else (x._dims,)
    return not any(is_symbolic(d) for d in flat)


def folded_value(x):
    """The constant a traced Tensor was built from (a NumPy array), else None
    (``_util.constant_value`` asks here for a traced value)."""
    if not _folded(x):
        return None
    return np.asarray(x._dims, dtype=np.dtype(x._v.dtype))


def _folding(fn):
    # tf.constant (and tf.convert_to_tensor of a Python or NumPy value) in a trace:
    # TF's Const, whose value every shape argument reads.
    @functools.wraps(fn)
    def folding(value, *args, **kwargs):
        out = fn(value, *args, **kwargs)
        v = out._v if type(out) is Tensor else None
        if not isinstance(v, jax.core.Tracer) or isinstance(value, _TensorLike) \
                or v.ndim > 1 or v.size > _FOLD_SIZE or not np.issubdtype(v.dtype, np.integer):
            return out
        if isinstance(value, (list, tuple)) and any(isinstance(e, _TensorLike) for e in value):
            # A list of sizes (TF's Pack): folded where each is, symbolic where one is.
            d = dims_of(value)
            if d is None or not isinstance(d, tuple) or len(d) != v.size or v.ndim != 1:
                return out
            return _sized(d, out, True)
        with jax.ensure_compile_time_eval():
            known = fn(value, *args, **kwargs)._value
        if isinstance(known, jax.core.Tracer):
            return out
        a = np.asarray(known)
        return _sized(tuple(a.tolist()) if a.ndim else a.item(), out, True)
    return folding


def dims_of(x):
    """The sizes ``x`` holds: a tuple (a vector), one size (a scalar), or None where
    it holds none symbolically and is not a known integer (a Dims, a list of sizes,
    an int, a concrete integer Tensor)."""
    if isinstance(x, Dims):
        return x._dims
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return int(x)
    if isinstance(x, _TensorLike):
        v = x._value if isinstance(x, Tensor) else None
        if v is None or isinstance(v, jax.core.Tracer) or not np.issubdtype(v.dtype, np.integer):
            return None
        a = np.asarray(v)
        return tuple(int(i) for i in a) if a.ndim == 1 else int(a) if a.ndim == 0 else None
    if isinstance(x, (list, tuple)) and x:
        parts = [dims_of(e) for e in x]
        if any(p is None or isinstance(p, tuple) for p in parts):
            return None
        return tuple(parts)
    return None


def symbolic_dims(x):
    """The sizes ``x`` holds where one is symbolic (for ``_util.ints``), else None."""
    # Only a Dims holds a symbolic size: a shape argument without one (every shape in
    # eager code) is answered without reading its values.
    if not (isinstance(x, Dims) or (isinstance(x, (list, tuple)) and _holds_dims(x))):
        return None
    d = dims_of(x)
    if d is None:
        return None
    flat = d if isinstance(d, tuple) else (d,)
    return flat if any(is_symbolic(e) for e in flat) else None


# -- facade functions that pass sizes on, or take them -----------------------------

def _holds_dims(values):
    return any(isinstance(v, Dims) for v in values)


def _expand_dims(fn):
    @functools.wraps(fn)
    def expand_dims(input, axis, name=None):
        out = fn(input, axis, name=name)
        if isinstance(input, Dims) and not isinstance(input._dims, tuple):
            return _sized((input._dims,), out, _folded(input))
        return out
    return expand_dims


def _known_sizes(values):
    # Sizes known while a function is traced (tf.shape(x)[0] of a static shape, a
    # constant, an int): the core keeps shape arithmetic on one such value concrete
    # (_primitive._shape_arithmetic), but a list of them is one operand it does not
    # read, so tf.concat/tf.stack of sizes came out as a traced value that no shape
    # argument could take (tf.tile(mask, tf.concat([[b], [1, 1]], 0))); TF folds it.
    for v in values:
        if isinstance(v, _TensorLike):
            a = v._value if isinstance(v, Tensor) else None
            if a is None or isinstance(a, jax.core.Tracer) or a.ndim > 1 or a.size > 8 \
                    or not np.issubdtype(a.dtype, np.integer):
                return False
        elif isinstance(v, (list, tuple)):
            if len(v) > 8 or not all(isinstance(e, (int, np.integer)) and not isinstance(e, bool)
                                     for e in v):
                return False
        elif not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            return False
    return True


def _joined(fn, stacking):
    @functools.wraps(fn)
    def joined(values, axis=0, name=None):
        out = fn(values, axis, name=name)
        if not isinstance(values, (list, tuple)) or axis not in (0, -1):
            return out
        if not _holds_dims(values):
            if not (isinstance(out, Tensor) and isinstance(out._value, jax.core.Tracer)
                    and values and _known_sizes(values)):
                return out
        parts = [dims_of(v) for v in values]
        if any(p is None or isinstance(p, tuple) == stacking for p in parts):
            return out
        dims = tuple(parts) if stacking else tuple(d for p in parts for d in p)
        return _sized(dims, out, any(_folded(v) for v in values))
    return joined


def _cast(fn):
    @functools.wraps(fn)
    def cast(x, dtype, name=None):
        out = fn(x, dtype, name=name)
        if isinstance(x, Dims) and out is not x and np.issubdtype(out.dtype, np.integer):
            return _sized(x._dims, out, _folded(x))
        return out
    return cast


def _identity(fn):
    @functools.wraps(fn)
    def identity(input, name=None):
        out = fn(input, name=name)
        return _sized(input._dims, out, True) if _folded(input) else out
    return identity


def _range(fn):
    @functools.wraps(fn)
    def range_(start, limit=None, delta=1, dtype=None, name="range"):
        if not _holds_dims((start, limit, delta)):
            return fn(start, limit, delta, dtype=dtype, name=name)
        if limit is None:
            start, limit = 0, start
        bounds = [dims_of(v) for v in (start, limit, delta)]
        if any(b is None or isinstance(b, tuple) for b in bounds):
            return fn(start, limit, delta, dtype=dtype, name=name)   # its error
        if not any(is_symbolic(b) for b in bounds):     # folded constants: read as such
            out = fn(start, limit, delta, dtype=dtype, name=name)
            known = np.arange(*bounds)
            return _sized(tuple(known.tolist()), out, True) if known.size <= _FOLD_SIZE else out
        if dtype is None:       # the sizes' integer dtype (TF's: the widest given)
            dtype = max((np.dtype(v.dtype) for v in (start, limit, delta) if isinstance(v, Dims)),
                        key=lambda d: d.itemsize)
        return wrap(jnp.arange(*bounds).astype(as_dtype(dtype)))
    return range_


def _filled(fn, fill):
    # tf.zeros/ones/fill make a constant at once (outside the trace); a symbolic
    # size exists only in the trace: made there.
    @functools.wraps(fn)
    def filled(shape, *args, **kwargs):
        dims = symbolic_dims(shape)
        if dims is None:
            out = fn(shape, *args, **kwargs)
            if fill is None and type(out) is Tensor and isinstance(out._v, jax.core.Tracer):
                # tf.fill of known sizes and a constant: TF's Fill folds (a size vector).
                from ._util import constant_value
                value = args[0] if args else kwargs["value"]
                v = constant_value(value)
                if v is not None and out.ndim <= 1 and out.size <= _FOLD_SIZE \
                        and np.issubdtype(out.dtype, np.integer):
                    known = np.full(out.shape, v, out.dtype)
                    return _sized(tuple(known.tolist()) if known.ndim else known.item(), out, True)
            return out
        if fill is None:                       # tf.fill(dims, value)
            value = args[0] if args else kwargs["value"]
            v = convert_to_tensor(value)._value        # TF's dtype of a Python value
            return wrap(jnp.full(dims, v, dtype=v.dtype))
        dtype = args[0] if args else kwargs.get("dtype", "float32")
        return wrap(jnp.full(dims, fill, dtype=as_dtype(dtype)))
    return filled


def install(tf_module):
    """Put the size-keeping wrappers in front of the facade's functions (under every
    name they are bound to, as ``_ragged.install`` does)."""
    from . import _util
    _util.SYMBOLIC_DIMS = symbolic_dims
    _util.FOLDED_VALUE = folded_value
    done = {}
    for name, make in [("expand_dims", _expand_dims), ("range", _range), ("cast", _cast),
                       ("identity", _identity), ("concat", lambda f: _joined(f, False)),
                       ("stack", lambda f: _joined(f, True)),
                       ("zeros", lambda f: _filled(f, 0)), ("ones", lambda f: _filled(f, 1)),
                       ("fill", lambda f: _filled(f, None))]:
        fn = getattr(tf_module, name)
        done[id(fn)] = make(fn)
    _util.rebind(done, skip=("eagertape.tf._shape_dims",))
    # The facade's names only (tf.range of known bounds, in tf/__init__.py, makes its
    # constant through them: TF folds Range too); the facade's other modules make
    # their constants with the core's, which stay plain.
    for name in ("constant", "convert_to_tensor"):
        setattr(tf_module, name, _folding(getattr(tf_module, name)))
