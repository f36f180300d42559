"""Keras optimizers applying a ``tf.IndexedSlices`` gradient as TF's Keras does.

Keras's optimizers run on its JAX backend here, which knows only dense arrays.
On TF's backend an IndexedSlices gradient goes through ``update_step`` as it
is: Keras's TF ``ops`` apply a zero-preserving unary op (``square``, ``abs``,
``sqrt``, ``sign``, ...) to each row, multiply or divide the rows by the dense
operand's rows, densify them (rows of a repeated index summed) where they meet
a dense operand of ``add``/``subtract``/``maximum``/``minimum``, and the
optimizer's ``assign_add``/``assign_sub`` scatter them. So RMSprop's velocity,
Adam's second moment, Adagrad's accumulator get the sum of the rows' squares
where a dense gradient gives the square of their sum.

``applying(optimizer)`` runs ``apply`` with those rules: the ``ops`` module the
optimizer's code reads (its own module and the base optimizer's) is swapped
for one that follows them on ``Rows`` (an IndexedSlices of JAX arrays), and
the optimizer's ``assign`` methods take Rows.

Sparse outputs. Where TF's Keras gives a ``tf.SparseTensor`` (``CategoryEncoding``
and the lookup layers with ``sparse=True``), Keras's JAX backend gives a JAX
``BCOO``: ``sparse_outputs`` makes each one the facade's ``tf.SparseTensor`` as
TF's kernels give it (``tf.sparse``'s ``_of_bcoo``), so a program's ``tf.sparse``
ops and Keras layers after it see one world of objects (a SparseTensor passed to
a Keras layer is a BCOO inside its recorded call again: its pytree).
"""
import contextlib
import sys
import threading

import jax
import jax.numpy as jnp
import numpy as np

from ..extend import is_tensor_like

_lock = threading.RLock()

# Keras's TF backend: zero-preserving unary ops keep the rows (sparse.elementwise_unary).
_ROWWISE = frozenset(
    "absolute abs fabs arcsin arcsinh arctan arctanh ceil conj conjugate copy expm1 floor "
    "imag log1p real sign signbit sin sinh tan tanh round negative square sqrt cast "
    "clip".split())     # (clip: tf.clip_by_value keeps an IndexedSlices' rows)
_UNION = frozenset("add subtract maximum minimum".split())


class Rows:
    """An IndexedSlices of JAX arrays: ``values[i]`` at row ``indices[i]``."""
    __slots__ = ("values", "indices", "shape")

    def __init__(self, values, indices, shape):
        self.values, self.indices, self.shape = values, indices, tuple(shape)

    @property
    def dtype(self):
        return self.values.dtype

    def dense(self):
        return jax.ops.segment_sum(self.values, self.indices, num_segments=self.shape[0])

    def _rowwise(self, other):
        if np.ndim(other) == len(self.shape) and np.shape(other)[0] == self.shape[0]:
            return jnp.take(jnp.asarray(other), self.indices, axis=0)
        return other

    def scaled(self, other):
        """Keras's TF ``multiply`` of an IndexedSlices by a dense operand: the rows."""
        return Rows(self.values * self._rowwise(_dense(other)), self.indices, self.shape)

    def divided(self, other):
        """Keras's TF ``divide`` of an IndexedSlices by a dense operand: the rows."""
        return Rows(self.values / self._rowwise(_dense(other)), self.indices, self.shape)

    # TF's IndexedSlices has no arithmetic operators but negation: with a tensor,
    # Python's operators densify it (the tensor's own operator converts it), as
    # Keras's clip_by_global_norm (``v * scale``) does.
    def __mul__(self, other):
        return self.dense() * _dense(other)

    def __rmul__(self, other):
        return _dense(other) * self.dense()

    def __truediv__(self, other):
        return self.dense() / _dense(other)

    def __rtruediv__(self, other):
        return _dense(other) / self.dense()

    def __add__(self, other):
        return self.dense() + _dense(other)

    __radd__ = __add__

    def __sub__(self, other):
        return self.dense() - _dense(other)

    def __rsub__(self, other):
        return _dense(other) - self.dense()

    def __neg__(self):
        return Rows(-self.values, self.indices, self.shape)


def _dense(x):
    return x.dense() if isinstance(x, Rows) else x


def _densified(args, kwargs):
    return ([_dense(a) for a in args], {k: _dense(v) for k, v in kwargs.items()})


class _Ops:
    """``keras.ops`` with Keras's TF-backend rules for Rows."""

    def __init__(self, ops):
        self._ops = ops

    def __getattr__(self, name):
        real = getattr(self._ops, name)
        if not callable(real):
            return real
        if name in _ROWWISE:
            def op(x, *args, **kwargs):
                if isinstance(x, Rows):
                    return Rows(real(x.values, *args, **kwargs), x.indices, x.shape)
                return real(x, *args, **kwargs)
        elif name == "multiply":
            def op(x1, x2):
                if isinstance(x1, Rows) and not isinstance(x2, Rows):
                    return x1.scaled(x2)
                if isinstance(x2, Rows) and not isinstance(x1, Rows):
                    return x2.scaled(x1)
                return real(_dense(x1), _dense(x2))
        elif name in ("divide", "true_divide"):
            def op(x1, x2):
                if isinstance(x1, Rows) and not isinstance(x2, Rows):
                    return x1.divided(x2)
                return real(_dense(x1), _dense(x2))
        elif name == "convert_to_tensor":
            def op(x, *args, **kwargs):
                return x if isinstance(x, Rows) else real(x, *args, **kwargs)
        else:       # add, subtract, maximum, minimum with a dense operand, and the rest
            def op(*args, **kwargs):
                args, kwargs = _densified(args, kwargs)
                return real(*args, **kwargs)
        return op


def _assigns(optimizer):
    cls = type(optimizer)

    def assign(variable, value):
        if isinstance(value, Rows):     # TF's scatter_update: the rows written
            value = jnp.asarray(variable.value).at[value.indices].set(
                value.values.astype(variable.dtype))
        return cls.assign(optimizer, variable, value)

    def assign_add(variable, value):
        return cls.assign_add(optimizer, variable, _dense(value))

    def assign_sub(variable, value):
        return cls.assign_sub(optimizer, variable, _dense(value))

    def _clip_by_norm(values, axes=None):
        # TF's Keras clips by tf.clip_by_norm: an IndexedSlices' rows, by their norm.
        if not isinstance(values, Rows):
            return cls._clip_by_norm(optimizer, values, axes)
        v, clip = values.values, optimizer.clipnorm
        l2sum = jnp.sum(v * v, axes, keepdims=True)
        pred = l2sum > 0
        l2norm = jnp.where(pred, jnp.sqrt(jnp.where(pred, l2sum, jnp.ones_like(l2sum))), l2sum)
        return Rows(v * clip / jnp.maximum(l2norm, clip), values.indices, values.shape)
    return {"assign": assign, "assign_add": assign_add, "assign_sub": assign_sub,
            "_clip_by_norm": _clip_by_norm}


@contextlib.contextmanager
def applying(optimizer):
    """A context in which ``optimizer.apply`` takes Rows gradients as TF's Keras
    takes IndexedSlices (one thread at a time: module globals are swapped)."""
    modules = {sys.modules[c.__module__] for c in type(optimizer).__mro__
               if c.__module__.startswith("keras") and c.__module__ in sys.modules}
    # (the `ops` global is a declared Keras private: _keras.KERAS_PRIVATE["optimizer_ops"])
    modules = [m for m in modules if "ops" in vars(m)]
    with _lock:
        saved = [(m, m.ops) for m in modules]
        own = dict(vars(optimizer))
        for m, ops in saved:
            m.ops = ops if isinstance(ops, _Ops) else _Ops(ops)
        for k, fn in _assigns(optimizer).items():
            optimizer.__dict__[k] = fn
        try:
            yield
        finally:
            for m, ops in saved:
                m.ops = ops
            for k in ("assign", "assign_add", "assign_sub", "_clip_by_norm"):
                if k in own:
                    optimizer.__dict__[k] = own[k]
                else:
                    optimizer.__dict__.pop(k, None)


def _is_bcoo(x):
    return type(x).__name__ == "BCOO" and type(x).__module__.startswith("jax.experimental")


def _leaf(x):
    return _is_bcoo(x) or is_tensor_like(x)


def sparse_outputs(out):
    """A Keras call's outputs with each JAX ``BCOO`` the ``tf.SparseTensor`` TF's
    Keras gives (a Tensor or a nest without one: as it is)."""
    if _is_bcoo(out):
        from .sparse import _of_bcoo
        return _of_bcoo(out)
    if not isinstance(out, (list, tuple, dict)):
        return out
    leaves = jax.tree_util.tree_leaves(out, is_leaf=_leaf)
    if not any(_is_bcoo(x) for x in leaves):
        return out
    from .sparse import _of_bcoo
    return jax.tree_util.tree_map(lambda x: _of_bcoo(x) if _is_bcoo(x) else x, out,
                                  is_leaf=_leaf)
