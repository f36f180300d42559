"""TF's array manipulation ops (``tf.shape``, ``tf.gather``, ``tf.one_hot``,
``tf.pad``, ``tf.roll``, ``tf.boolean_mask``, ``tf.tensor_scatter_nd_update``, ...)
over the recorded jax.numpy.

Sizes, paddings and masks that fix an output's shape must be known when a
``tf.function`` is traced (JAX compiles static shapes): a Python value, NumPy
array, or a tensor computed from shapes. Eagerly any tensor serves.

>>> import eagertape.tf as tf
>>> tf.pad(tf.constant([[1, 2]]), [[1, 0], [0, 1]]).numpy()
array([[0, 0, 0],
       [1, 2, 0]], dtype=int32)
"""
import builtins

import jax
import jax.numpy as jnp
import numpy as np

from .. import extend
from .. import numpy as _np
from ..extend import InvalidArgumentError
from ..extend import call as _call, stop_gradient
from ..extend import convert_operand as _convert_operand, constant
from ..extend import as_dtype as _as_dtype, TensorLike as _TensorLike
from ._util import Unique, UniqueWithCounts  # noqa: F401  (tf.unique's results)
from ._util import concrete as _concrete, same_dtype as _same, tensor as _t
from ._util import constant_value as _constant_value
from .dtypes import float32
from .errors import UnimplementedError
from .sparse import SparseTensor as _SparseTensor


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
    """Roll ``input`` by ``shift`` along ``axis`` (TF's ``Roll``): each a scalar or a
    1-D vector, of one shape; an axis named twice rolls by the sum of its shifts.
    ``axis`` must be known when a tf.function is traced; ``shift`` may be computed
    there (a random draw): the axis doubled and a dynamic slice of it, whose gradient
    is the slice rolled back."""
    x = _t(input)
    if x.ndim == 0:
        raise InvalidArgumentError("argument `input` must be 1-D or higher, got a scalar")
    a = np.asarray(_static(axis, "axis"))
    if isinstance(shift, (list, tuple)) and any(isinstance(v, _TensorLike) for v in shift):
        shift = _t(shift)
    known = _constant_value(shift) if isinstance(shift, _TensorLike) else None
    if isinstance(shift, _TensorLike) and known is None:
        s = shift
    elif isinstance(shift, _TensorLike):
        s = known
    else:
        s = np.asarray(_static(shift, "shift"))
    for what, v in (("shift", s), ("axis", a)):
        dtype = np.dtype(getattr(v.dtype, "as_numpy_dtype", v.dtype))
        if v.ndim > 1:
            raise InvalidArgumentError(f"argument `{what}` must be a scalar or a 1-D vector, "
                                       f"got shape {list(np.shape(v))}")
        if np.prod(np.shape(v)) and not np.issubdtype(dtype, np.integer):
            raise InvalidArgumentError(f"argument `{what}` must be int32 or int64, got {dtype}")
    if tuple(s.shape) != a.shape:
        raise InvalidArgumentError(f"arguments `shift` and `axis` must have the same size, got "
                                   f"shapes {list(s.shape)} and {list(a.shape)}")
    axes = []
    for ax in a.reshape(-1).tolist():
        if not -x.ndim <= ax < x.ndim:
            raise InvalidArgumentError(f"argument `axis`: axis {ax} is out of range for a "
                                       f"tensor of rank {x.ndim}")
        axes.append(ax % x.ndim)
    if not axes:
        return _np.asarray(x)
    if isinstance(s, _TensorLike):
        return _np.roll(x, _np.reshape(s, (-1,)), axis=tuple(axes))
    return _np.roll(x, tuple(int(v) for v in s.reshape(-1)), axis=tuple(axes))


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


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """``on_value`` (1) at ``indices`` along a new last axis, else ``off_value`` (0);
    float32 unless given; an out-of-range index gives a row of ``off_value``."""
    dtype = _as_dtype(dtype) if dtype is not None else (
        _t(on_value).dtype if on_value is not None else float32)
    on = 1 if on_value is None else on_value
    off = 0 if off_value is None else off_value
    # Recorded (indices may be traced by a tf.function), a constant for the tape.
    hot = _call(jax.nn.one_hot, (_t(indices), int(depth)),
                {"axis": -1 if axis is None else axis, "dtype": jnp.bool_},
                constant_output=True)
    return _np.where(hot, _t(on, dtype), _t(off, dtype))


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


def _check_indices(indices, size, what):
    # Concrete indices only: inside a tf.function they are traced (and XLA clamps
    # an out-of-range index there, where TF's graph would raise when run).
    idx = _concrete(indices)
    if idx is not None and idx.size and (idx.min() < 0 or idx.max() >= size):
        bad = idx[(idx < 0) | (idx >= size)].flat[0]
        raise InvalidArgumentError(f"{what} = {bad} is not in [0, {size})")


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of ``params`` at ``indices`` along ``axis`` (default ``batch_dims``); the
    first ``batch_dims`` axes of both are batch axes, taken pairwise."""
    params, indices = _t(params), _t(indices)
    if batch_dims < 0:
        batch_dims += indices.ndim
    axis = batch_dims if axis is None else (axis + params.ndim if axis < 0 else axis)
    if not 0 <= batch_dims <= min(axis, indices.ndim):
        raise InvalidArgumentError(
            f"argument `batch_dims` ({batch_dims}) must be at most `axis` ({axis}) and the "
            f"rank of `indices` ({indices.ndim})")
    _check_indices(indices, params.shape[axis], "indices")
    if axis == 0 and _rows_gradient(params):
        # TF's gradient of a gather on axis 0 is an IndexedSlices of the rows'.
        from ._indexed_slices import gather_rows
        return gather_rows(params, indices, _take_rows)
    return _call(_batched_take, (params, indices, axis, batch_dims))


def _rows_gradient(params):
    # Only where a tape may differentiate it, eagerly (a tf.function's trace
    # gives the dense gradient: differences.md).
    return (extend.recording() and extend.function_trace() is None
            and extend.is_inexact(params.dtype))


def _take_rows(params, indices):
    return _call(_batched_take, (params, indices, 0, 0), name="GatherV2")


def _batched_take(params, indices, axis, batch_dims):
    take = lambda p, i: jnp.take(p, i, axis=axis - batch_dims)  # noqa: E731
    for _ in builtins.range(batch_dims):    # the leading batch axes pair params with indices
        take = jax.vmap(take)
    return take(params, indices)


def gather_nd(params, indices, batch_dims=0, name=None):
    params, indices = _t(params), _t(indices)
    if batch_dims:
        raise UnimplementedError("tf.gather_nd with batch_dims is not supported yet")
    k = indices.shape[-1]
    for d in builtins.range(k):
        _check_indices(indices[..., d], params.shape[d], f"indices[..., {d}]")
    return _call(_gather_nd, (params, indices, k))


def _gather_nd(params, indices, k):
    return params[builtins.tuple(indices[..., d] for d in builtins.range(k))]


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
    from ..extend import is_inexact as _inexact, tie
    floats = [x for x in xs if _inexact(x)]
    return [tie(x, floats) if _inexact(x) else x for x in xs]


def shape(input, out_type="int32", name=None):
    """The shape as an int32 Tensor (TF's default ``out_type``); a concrete value even
    inside a tf.function (shapes are static there), so it can shape other tensors;
    computed where a tf.function is traced for any size of a None dimension."""
    dims = input.shape if isinstance(input, _SparseTensor) else _t(input).shape
    if all(type(d) is int for d in dims):
        return _constant_now(np.array(dims, dtype=_as_dtype(out_type)))
    # A size JAX knows only symbolically (a None dimension, Keras's symbolic call):
    # a Tensor that keeps the sizes, so that it can shape tensors (tf/_shape_dims.py).
    from ._shape_dims import shape_tensor
    return shape_tensor(dims, _as_dtype(out_type))


def rank(input, name=None):
    if isinstance(input, _SparseTensor):
        return _constant_now(np.int32(len(input.shape)))
    return _constant_now(np.int32(_t(input).ndim))


def size(input, out_type="int32", name=None):
    if isinstance(input, _SparseTensor):       # the dense tensor's size, as TF
        return _constant_now(np.array(int(np.prod(input.shape)), dtype=_as_dtype(out_type)))
    return _constant_now(np.array(_t(input).size, dtype=_as_dtype(out_type)))


def _constant_now(value):
    with jax.ensure_compile_time_eval():    # not staged into a tf.function's trace
        return constant(value)


def shape_n(input, out_type="int32", name=None):
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


def unravel_index(indices, dims, name=None):
    i = _t(indices)
    d = tuple(int(v) for v in _static(dims, "dims"))
    return _np.stack(_np.unravel_index(i, d), axis=0).astype(i.dtype)


def bitcast(input, type, name=None):  # noqa: A002  (TF's names)
    """The same bits read as ``type`` (a wider type eats the last axis, a narrower
    one adds it, as TF's); no gradient, as TF registers none."""
    x, dtype = _t(input), _as_dtype(type)
    a, b = x.dtype.itemsize, dtype.itemsize
    if a < b and (x.ndim == 0 or x.shape[-1] != b // a):
        raise InvalidArgumentError(f"Cannot bitcast from {x.dtype.name} to {dtype.name}: the "
                                   f"last dimension must be {b // a}, got shape {list(x.shape)}")
    return _call(lambda v: jax.lax.bitcast_convert_type(v, dtype), (stop_gradient(x),))


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):
    """Reverse the first ``seq_lengths[b]`` entries along ``seq_axis`` of each batch
    entry ``b`` (along ``batch_axis``); the rest stays in place."""
    x = _t(input)
    if seq_axis is None:
        raise TypeError("argument `seq_axis` of reverse_sequence is required")
    batch_axis = 0 if batch_axis is None else int(batch_axis) % x.ndim
    seq_axis = int(seq_axis) % x.ndim
    lengths = np.asarray(_static(seq_lengths, "seq_lengths"), np.int64).reshape(-1)
    n, t = x.shape[batch_axis], x.shape[seq_axis]
    if lengths.shape != (n,):
        raise InvalidArgumentError(f"argument `seq_lengths` must have {n} entries (the size "
                                   f"of axis {batch_axis}), got {lengths.shape[0]}")
    if np.any(lengths > t) or np.any(lengths < 0):
        raise InvalidArgumentError(f"argument `seq_lengths` must be in [0, {t}], got "
                                   f"{lengths.tolist()}")
    i = np.arange(t)[None, :]
    idx = np.where(i < lengths[:, None], lengths[:, None] - 1 - i, i)    # [batch, time]
    shape = [1] * x.ndim
    shape[batch_axis], shape[seq_axis] = n, t
    if batch_axis > seq_axis:
        idx = idx.T
    idx = np.broadcast_to(idx.reshape(shape), x.shape).astype(np.int32)
    return _np.take_along_axis(x, idx, axis=seq_axis)


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype="int32", name=None):
    """The bin of each value among ``nbins`` equal bins of ``value_range`` (values
    outside go to the first or last)."""
    v = np.asarray(_t(values).numpy(), np.float64)
    lo, hi = (float(r) for r in np.asarray(_static(value_range, "value_range")).reshape(-1))
    if not hi > lo:
        raise InvalidArgumentError(f"argument `value_range` must be increasing, got {[lo, hi]}")
    nbins = int(_static(nbins, "nbins"))
    if nbins <= 0:
        raise InvalidArgumentError(f"argument `nbins` must be positive, got {nbins}")
    bins = np.clip(np.floor((v - lo) / (hi - lo) * nbins), 0, nbins - 1)
    return _t(bins.astype(_as_dtype(dtype)))


def histogram_fixed_width(values, value_range, nbins=100, dtype="int32", name=None):
    """Counts of ``values`` in ``nbins`` equal bins of ``value_range``."""
    bins = histogram_fixed_width_bins(values, value_range, nbins).numpy().reshape(-1)
    n = int(_static(nbins, "nbins"))
    return _t(np.bincount(bins, minlength=n).astype(_as_dtype(dtype)))


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """TF's strided slice: entry ``i`` of ``begin``/``end``/``strides`` with the
    masks' bit ``i`` (``x[begin:end:stride]``, ``...``, ``tf.newaxis``, an index)."""
    x = _t(input_)
    b = [int(v) for v in np.reshape(_static(begin, "begin"), -1)]
    e = [int(v) for v in np.reshape(_static(end, "end"), -1)]
    s = [1] * len(b) if strides is None else [int(v) for v in np.reshape(_static(strides, "strides"), -1)]
    if not len(b) == len(e) == len(s):
        raise ValueError("arguments `begin`, `end` and `strides` must have the same length, "
                         f"got {len(b)}, {len(e)}, {len(s)}")
    if 0 in s:
        raise ValueError("argument `strides` must not contain 0")
    index = []
    for i in builtins.range(len(b)):
        bit = 1 << i
        if ellipsis_mask & bit:
            index.append(Ellipsis)
        elif new_axis_mask & bit:
            index.append(None)
        elif shrink_axis_mask & bit:
            index.append(b[i])
        else:
            index.append(builtins.slice(None if begin_mask & bit else b[i],
                                        None if end_mask & bit else e[i], s[i]))
    return x[builtins.tuple(index)]


def space_to_batch_nd(input, block_shape, paddings, name=None):
    """Zero-pad the spatial axes (1..M) by ``paddings``, cut them into blocks of
    ``block_shape`` and move the block offsets into the batch axis (TF's order)."""
    x = _t(input)
    block = [int(v) for v in np.reshape(_static(block_shape, "block_shape"), -1)]
    m = len(block)
    pads = np.asarray(_static(paddings, "paddings"), np.int64).reshape(m, 2)
    full = [(0, 0)] + [builtins.tuple(int(v) for v in p) for p in pads] + [(0, 0)] * (x.ndim - 1 - m)
    x = pad(x, full)
    shape = x.shape
    for i, bs in enumerate(block):
        if shape[1 + i] % bs:
            raise InvalidArgumentError(f"padded spatial dimension {i} ({shape[1 + i]}) is not a "
                                       f"multiple of block_shape[{i}] = {bs}")
    n, rest = shape[0], list(shape[1 + m:])
    split = [n] + [v for i, bs in enumerate(block) for v in (shape[1 + i] // bs, bs)] + rest
    x = _np.reshape(x, split)
    perm = [2 + 2 * i for i in builtins.range(m)] + [0] + [1 + 2 * i for i in builtins.range(m)] + \
        [1 + 2 * m + j for j in builtins.range(len(rest))]
    x = _np.transpose(x, perm)
    return _np.reshape(x, [n * int(np.prod(block))] + [shape[1 + i] // bs for i, bs in
                                                       enumerate(block)] + rest)


def space_to_batch(input, block_shape, paddings, name=None):
    """TF 2's ``tf.space_to_batch``: ``space_to_batch_nd``."""
    return space_to_batch_nd(input, block_shape, paddings)


def batch_to_space(input, block_shape, crops, name=None):
    """The inverse of ``space_to_batch_nd``: block offsets back from the batch
    axis into the spatial axes, which are then cropped by ``crops``."""
    x = _t(input)
    block = [int(v) for v in np.reshape(_static(block_shape, "block_shape"), -1)]
    m, prod = len(block), int(np.prod(block))
    c = np.asarray(_static(crops, "crops"), np.int64).reshape(m, 2)
    shape = x.shape
    if shape[0] % prod:
        raise InvalidArgumentError(f"batch dimension {shape[0]} is not a multiple of the "
                                   f"product of block_shape ({prod})")
    n, spatial, rest = shape[0] // prod, list(shape[1:1 + m]), list(shape[1 + m:])
    x = _np.reshape(x, block + [n] + spatial + rest)
    perm = [m] + [v for i in builtins.range(m) for v in (m + 1 + i, i)] + \
        [1 + 2 * m + j for j in builtins.range(len(rest))]
    x = _np.reshape(_np.transpose(x, perm), [n] + [s * bs for s, bs in zip(spatial, block)] + rest)
    index = [builtins.slice(None)] + [builtins.slice(int(a), s * bs - int(b)) for (a, b), s, bs
                                      in zip(c, spatial, block)]
    return x[builtins.tuple(index)]


def dynamic_partition(data, partitions, num_partitions, name=None):
    """``data`` split into ``num_partitions`` tensors by ``partitions`` (known: the
    sizes of the parts depend on its values)."""
    x = _t(data)
    p = np.asarray(_static(partitions, "partitions"), np.int64)
    if p.shape != builtins.tuple(x.shape[:p.ndim]):
        raise InvalidArgumentError(f"argument `partitions` has shape {list(p.shape)}, which is "
                                   f"not a prefix of data's shape {list(x.shape)}")
    if p.size and (p.min() < 0 or p.max() >= num_partitions):
        raise InvalidArgumentError(f"argument `partitions` must be in [0, {num_partitions}), "
                                   f"got {p.min()}..{p.max()}")
    flat = _np.reshape(x, (-1,) + builtins.tuple(x.shape[p.ndim:]))
    return [_np.take(flat, np.flatnonzero(p.reshape(-1) == k).astype(np.int32), axis=0)
            for k in builtins.range(int(num_partitions))]


def dynamic_stitch(indices, data, name=None):
    """``merged[indices[m][i]] = data[m][i]``, later entries winning, as TF's."""
    idx = [np.asarray(_static(i, "indices"), np.int64) for i in indices]
    parts = [_t(d) for d in _same(*data, listed=True)]
    inner = builtins.tuple(parts[0].shape[idx[0].ndim:])
    flat = _np.concatenate([_np.reshape(d, (-1,) + inner) for d in parts], axis=0)
    all_idx = np.concatenate([i.reshape(-1) for i in idx])
    size = int(all_idx.max()) + 1 if all_idx.size else 0
    last = np.full(size, -1, np.int64)
    last[all_idx] = np.arange(all_idx.size)     # NumPy assigns in order: the last one wins
    if np.any(last < 0):
        raise InvalidArgumentError("dynamic_stitch: the indices leave a gap (TF leaves such "
                                   "entries uninitialised; give every index up to the largest)")
    return _call(_stitch, (flat, last.astype(np.int32), all_idx.astype(np.int32)))


@jax.custom_vjp
def _stitch(flat, last, all_idx):
    return jnp.take(flat, last, axis=0)


def _stitch_fwd(flat, last, all_idx):
    return _stitch(flat, last, all_idx), all_idx


def _stitch_bwd(all_idx, g):
    # TF's gradient: every entry gets the output's gradient at its index, the
    # overwritten ones too.
    return jnp.take(g, all_idx, axis=0), None, None


_stitch.defvjp(_stitch_fwd, _stitch_bwd)


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """``(paddings, crops)`` that make ``input_shape`` plus ``base_paddings``
    divisible by ``block_shape`` (the extra padding at the end, cropped after)."""
    shape = np.asarray(_static(input_shape, "input_shape"), np.int64).reshape(-1)
    block = np.asarray(_static(block_shape, "block_shape"), np.int64).reshape(-1)
    base = np.zeros((len(block), 2), np.int64) if base_paddings is None else \
        np.asarray(_static(base_paddings, "base_paddings"), np.int64).reshape(len(block), 2)
    extra = (block - (shape + base.sum(1)) % block) % block
    paddings = base + np.stack([np.zeros_like(extra), extra], 1)
    crops = np.stack([np.zeros_like(extra), extra], 1)
    return _t(paddings.astype(np.int32)), _t(crops.astype(np.int32))
