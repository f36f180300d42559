"""TF's array manipulation ops (``tf.pad``, ``tf.roll``, ``tf.boolean_mask``,
``tf.tensor_scatter_nd_update``, ...) over the recorded jax.numpy.

Sizes, paddings and masks that fix an output's shape must be known when a
``tf.function`` is traced (JAX compiles static shapes): a Python value, NumPy
array, or a tensor computed from shapes. Eagerly any tensor serves.

>>> import eagertape.tf as tf
>>> tf.pad(tf.constant([[1, 2]]), [[1, 0], [0, 1]]).numpy()
array([[0, 0, 0],
       [1, 2, 0]], dtype=int32)
"""
import builtins
import collections

import jax
import jax.numpy as jnp
import numpy as np

from .. import numpy as _np
from .._errors import InvalidArgumentError
from .._primitive import call as _call, stop_gradient
from .._tensor import _as_dtype, _convert_operand, _TensorLike
from ._util import concrete as _concrete, same_dtype as _same, tensor as _t


def _static(value, what):
    """A shape-like argument as nested Python ints (known when tracing)."""
    if isinstance(value, _TensorLike):
        value = _concrete(value, what)
    elif isinstance(value, (list, tuple)):
        value = [_static(v, what) for v in value]
        return value
    return np.asarray(value).tolist()


def _axes(axis, ndim):
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(_static(axis, "axis"))
    return tuple(int(a) % ndim if ndim else 0 for a in axes)


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pad each axis by ``paddings[i] = [before, after]``; ``mode`` is ``"CONSTANT"``,
    ``"REFLECT"`` or ``"SYMMETRIC"`` (any case)."""
    x = _t(tensor)
    p = _static(paddings, "paddings")
    if np.shape(p) != (x.ndim, 2):
        raise InvalidArgumentError(f"argument `paddings` must have shape [{x.ndim}, 2] for a "
                                   f"tensor of rank {x.ndim}, got shape {list(np.shape(p))}")
    p = tuple((int(a), int(b)) for a, b in p)
    m = str(mode).upper()
    if m == "CONSTANT":
        c = _convert_operand(constant_values, x.dtype)
        return _call(_pad_constant, (x, p, c))
    if m not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"argument `mode` must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', got {mode!r}")
    return _np.pad(x, p, mode=m.lower())


def _pad_constant(x, p, c):
    return jnp.pad(x, p, constant_values=c)


def reverse(tensor, axis, name=None):
    x = _t(tensor)
    return _np.flip(x, _axes(axis, x.ndim))


def roll(input, shift, axis, name=None):
    x = _t(input)
    shift = _static(shift, "shift")
    axis = _static(axis, "axis")
    if isinstance(shift, list):
        shift, axis = tuple(shift), tuple(axis)
    return _np.roll(x, shift, axis=axis)


def repeat(input, repeats, axis=None, name=None):
    x = _t(input)
    r = _static(repeats, "repeats")
    if axis is None:
        x, axis = _np.reshape(x, (-1,)), 0
    total = int(np.sum(np.broadcast_to(r, (x.shape[axis],)))) if x.ndim else int(np.sum(r))
    r = np.asarray(r, np.int32) if isinstance(r, list) else int(r)
    return _np.repeat(x, r, axis=int(axis), total_repeat_length=total)


def meshgrid(*args, **kwargs):
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"meshgrid got unexpected arguments {sorted(kwargs)}")
    return list(_np.meshgrid(*(_t(a) for a in args), indexing=indexing))


def broadcast_to(input, shape, name=None):
    return _np.broadcast_to(_t(input), tuple(int(d) for d in _static(shape, "shape")))


def broadcast_static_shape(shape_x, shape_y):
    try:
        return tuple(np.broadcast_shapes(tuple(shape_x), tuple(shape_y)))
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: {tuple(shape_x)} and "
                         f"{tuple(shape_y)}") from None


def broadcast_dynamic_shape(shape_x, shape_y):
    x, y = (tuple(int(d) for d in _static(s, "shape")) for s in (shape_x, shape_y))
    return _t(np.array(np.broadcast_shapes(x, y), dtype=np.int32))


def boolean_mask(tensor, mask, axis=None, name=None):
    """The entries (or slices along ``axis``) of ``tensor`` where ``mask`` is True;
    ``mask`` must be known (eagerly, or a Python/NumPy value in a tf.function)."""
    x = _t(tensor)
    m = np.asarray(_static(mask, "mask"), dtype=bool)
    axis = 0 if axis is None else int(axis) % x.ndim
    k = m.ndim
    if m.shape != tuple(x.shape[axis:axis + k]):
        raise ValueError(f"argument `mask` has shape {m.shape}, which does not match the "
                         f"shape {tuple(x.shape[axis:axis + k])} of `tensor` at axis {axis}")
    flat = _np.reshape(x, x.shape[:axis] + (-1,) + x.shape[axis + k:])
    return _np.take(flat, np.flatnonzero(m).astype(np.int32), axis=axis)


def sequence_mask(lengths, maxlen=None, dtype="bool", name=None):
    n = _t(lengths)
    if maxlen is None:
        maxlen = int(np.max(_static(n, "lengths"), initial=0))
    elif isinstance(maxlen, _TensorLike):
        maxlen = int(_static(maxlen, "maxlen"))
    out = _np.arange(int(maxlen), dtype=n.dtype) < _np.expand_dims(n, -1)
    return out if _as_dtype(dtype) == np.bool_ else out.astype(_as_dtype(dtype))


def searchsorted(sorted_sequence, values, side="left", out_type="int32", name=None):
    """Indices at which ``values`` go in each row of ``sorted_sequence`` (last axis)."""
    s, v = _same(sorted_sequence, values)
    if side not in ("left", "right"):
        raise ValueError(f"argument `side` must be 'left' or 'right', got {side!r}")
    return _call(_searchsorted, (s, v, side), constant_output=True).astype(_as_dtype(out_type))


def _searchsorted(s, v, side):
    f = lambda a, b: jnp.searchsorted(a, b, side=side)  # noqa: E731
    for _ in range(s.ndim - 1):
        f = jax.vmap(f)
    return f(s, v)


def slice(input_, begin, size, name=None):  # noqa: A001  (TF's name)
    x = _t(input_)
    b = [int(i) for i in _static(begin, "begin")]
    n = [int(i) for i in _static(size, "size")]
    idx = tuple(builtins.slice(i, d if s == -1 else i + s) for i, s, d in zip(b, n, x.shape))
    return x[idx]


Unique = collections.namedtuple("Unique", "y idx")
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", "y idx count")


def unique(x, out_idx="int32", name=None):
    """The distinct values of a 1-D tensor in order of first appearance, and for each
    entry the index of its value in them (eagerly: the output's size is the data's)."""
    y, idx, _ = _unique(x, out_idx)
    return Unique(y, idx)


def unique_with_counts(x, out_idx="int32", name=None):
    return UniqueWithCounts(*_unique(x, out_idx))


def _unique(x, out_idx):
    t = _t(x)
    v = np.asarray(_concrete(t, "x"))
    if v.ndim != 1:
        raise InvalidArgumentError(f"argument `x` must be 1-D, got shape {v.shape}")
    _, first, inverse, counts = np.unique(v, return_index=True, return_inverse=True,
                                          return_counts=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    dt = _as_dtype(out_idx)
    y = stop_gradient(_np.take(t, np.sort(first).astype(np.int32)))   # TF: no gradient
    return y, _t(rank[inverse.reshape(-1)].astype(dt)), _t(counts[order].astype(dt))


def _index_tuple(indices):
    return tuple(jnp.moveaxis(indices, -1, 0))


def _scatter(kind):
    def fn(tensor, indices, updates):
        at = tensor.at[_index_tuple(indices)]
        return getattr(at, kind)(updates)
    fn.__name__ = f"tensor_scatter_nd_{kind}"
    return fn


_SCATTER = {k: _scatter(k) for k in ("set", "add", "min", "max")}


def _scatter_args(tensor, indices, updates):
    t = _t(tensor)
    i = _t(indices)
    u = _t(_convert_operand(updates, t.dtype) if not isinstance(updates, _TensorLike) else updates)
    if u.dtype != t.dtype:
        raise InvalidArgumentError(f"argument `updates` has dtype {u.dtype}, `tensor` {t.dtype}")
    k = i.shape[-1]
    want = tuple(i.shape[:-1]) + tuple(t.shape[k:])
    if tuple(u.shape) != want:
        raise InvalidArgumentError(f"argument `updates` must have shape {list(want)} for indices "
                                   f"of shape {list(i.shape)} into a tensor of shape "
                                   f"{list(t.shape)}, got {list(u.shape)}")
    v = _concrete(i)
    if v is not None and v.size and (np.any(v < 0) or np.any(v >= np.asarray(t.shape[:k]))):
        raise InvalidArgumentError(f"argument `indices` has an index out of bounds for shape "
                                   f"{list(t.shape)}")
    return t, i, u


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    return _call(_SCATTER["set"], _scatter_args(tensor, indices, updates))


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    return _call(_SCATTER["add"], _scatter_args(tensor, indices, updates))


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    t, i, u = _scatter_args(tensor, indices, updates)
    return _call(_SCATTER["add"], (t, i, -u))


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    return _call(_SCATTER["min"], _scatter_args(tensor, indices, updates))


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    return _call(_SCATTER["max"], _scatter_args(tensor, indices, updates))


def scatter_nd(indices, updates, shape, name=None):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (repeats add up)."""
    u = _t(updates)
    shape = tuple(int(d) for d in _static(shape, "shape"))
    return tensor_scatter_nd_add(_np.zeros(shape, dtype=u.dtype), indices, u)


def identity_n(input, name=None):
    """The tensors of ``input`` as one op: each output's gradient reaches every
    input (zeros for the others), as TF's IdentityN."""
    return list(_call(_identity_n, ([_t(x) for x in input],)))


def _identity_n(xs):
    from .._connected import _inexact, tie
    floats = [x for x in xs if _inexact(x)]
    return [tie(x, floats) if _inexact(x) else x for x in xs]


def shape_n(input, out_type="int32", name=None):
    from . import shape
    return [shape(x, out_type=out_type) for x in input]


def ensure_shape(x, shape, name=None):
    """``x`` if its shape fits ``shape`` (None: any size), else InvalidArgumentError."""
    t = _t(x)
    want = None if shape is None else list(shape)
    if want is not None and (len(want) != t.ndim or any(
            w is not None and w != -1 and w != d for w, d in zip(want, t.shape))):
        raise InvalidArgumentError(f"Shape of tensor x {list(t.shape)} is not compatible with "
                                   f"expected shape {['?' if w is None else w for w in want]}.")
    return t


def saturate_cast(value, dtype, name=None):
    """Cast ``value`` to ``dtype``, clamping to the range ``dtype`` holds first."""
    x = _t(value)
    dtype = _as_dtype(dtype)
    if np.issubdtype(dtype, np.integer) and not np.issubdtype(x.dtype, np.complexfloating):
        info = np.iinfo(dtype)
        lo, hi = info.min, info.max
        if np.issubdtype(x.dtype, np.integer):
            xi = np.iinfo(x.dtype)
            lo, hi = max(lo, xi.min), min(hi, xi.max)
        x = _np.clip(x, np.asarray(lo).astype(x.dtype), np.asarray(hi).astype(x.dtype))
    return x.astype(dtype)


def unravel_index(indices, dims, name=None):
    i = _t(indices)
    d = tuple(int(v) for v in _static(dims, "dims"))
    return _np.stack(_np.unravel_index(i, d), axis=0).astype(i.dtype)
