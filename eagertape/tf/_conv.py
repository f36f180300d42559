"""``tf.nn``'s convolutions and pooling over ``jax.lax``: TF's layouts
(``NHWC`` by default, ``NCHW`` too), filter layout (``HWIO``), ``"SAME"`` /
``"VALID"`` / explicit padding, strides and dilations. Each call is one recorded
op whose pullback is ``jax.vjp`` of the ``lax`` function (XLA's convolution
gradients, which are TF's).

>>> import eagertape.tf as tf
>>> x = tf.ones([1, 4, 4, 1])
>>> tf.nn.conv2d(x, tf.ones([3, 3, 1, 2]), strides=1, padding="SAME")[0, :, :, 0].numpy()
array([[4., 6., 6., 4.],
       [6., 9., 9., 6.],
       [6., 9., 9., 6.],
       [4., 6., 6., 4.]], dtype=float32)
"""
import collections

import jax
import jax.numpy as jnp
import numpy as np

from ..extend import InvalidArgumentError
from ..extend import call as _call
from ._util import same_dtype as _same, tensor as _t


def _channels_first(data_format):
    return data_format is not None and data_format.startswith("NC")


def _tuple(value, n, what, channels_first=False):
    """An int or list argument (strides, dilations, ksize) as ``n`` spatial ints;
    TF's full lists (``[1, s, s, 1]``, ``[1, 1, s, s]`` for NCHW) give their
    spatial entries."""
    if value is None:
        return (1,) * n
    # Python ints: NumPy's would be values to the choke point (traced, so the
    # convolution could not be compiled or fused), not part of the op's kind.
    v = [int(a) for a in np.reshape(np.asarray(value), -1)]
    if len(v) == 1:
        return tuple(v * n)
    if len(v) == n:
        return tuple(v)
    if len(v) == n + 2:
        return tuple(v[2:]) if channels_first else tuple(v[1:-1])
    raise ValueError(f"argument `{what}` must be an int or a list of 1, {n} or {n + 2} ints, "
                     f"got {value!r}")


def _padding(padding, n, channels_first):
    if isinstance(padding, str):
        p = padding.upper()
        if p not in ("SAME", "VALID"):
            raise ValueError(f"argument `padding` must be 'SAME', 'VALID' or a list of pairs, "
                             f"got {padding!r}")
        return p
    pairs = [tuple(int(a) for a in pair) for pair in padding]
    if len(pairs) == n + 2:      # TF's explicit form includes batch and channel axes
        pairs = pairs[2:] if channels_first else pairs[1:-1]
    if len(pairs) != n:
        raise ValueError(f"argument `padding` must have {n} or {n + 2} pairs, got {padding!r}")
    return tuple(pairs)


def _spec(n):
    s = "DHW"[-n:] if n <= 3 else None
    return ("N" + s + "C", s + "IO", "N" + s + "C")


def _conv(x, w, strides, padding, dilations, n, groups):
    return jax.lax.conv_general_dilated(
        x, w, window_strides=strides, padding=padding, rhs_dilation=dilations,
        dimension_numbers=_spec(n), feature_group_count=groups)


def _to_last(x, channels_first):
    return jnp.moveaxis(x, 1, -1) if channels_first else x


def _from_last(x, channels_first):
    return jnp.moveaxis(x, -1, 1) if channels_first else x


def _conv_fn(x, w, strides, padding, dilations, n, channels_first, groups):
    y = _conv(_to_last(x, channels_first), w, strides, padding, dilations, n, groups)
    return _from_last(y, channels_first)


def convolution(input, filters, strides=None, padding="VALID", data_format=None,
                dilations=None, name=None):
    """N-D convolution (``tf.nn.convolution``); the rank of ``filters`` fixes N."""
    x, w = _same(input, filters)
    n = w.ndim - 2
    if x.ndim != n + 2:
        raise InvalidArgumentError(f"argument `input` must have rank {n + 2} for {n}-D filters "
                                   f"of shape {list(w.shape)}, got shape {list(x.shape)}")
    cf = _channels_first(data_format)
    c = x.shape[1] if cf else x.shape[-1]
    if c % w.shape[-2]:
        raise InvalidArgumentError(f"the input's {c} channels are not a multiple of the "
                                   f"filters' {w.shape[-2]} input channels")
    return _call(_conv_fn, (x, w, _tuple(strides, n, "strides", cf), _padding(padding, n, cf),
                            _tuple(dilations, n, "dilations", cf), n, cf, c // w.shape[-2]))


def conv1d(input, filters, stride=1, padding="VALID", data_format="NWC", dilations=None,
           name=None):
    return convolution(input, filters, stride, padding, "NCW" if data_format == "NCW" else None,
                       dilations)


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    return convolution(input, filters, strides, padding, data_format, dilations)


def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):
    return convolution(input, filters, strides, padding, data_format, dilations)


def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None,
                     name=None):
    """Each input channel convolved with its own ``channel_multiplier`` filters
    (``filter`` is ``[h, w, in_channels, channel_multiplier]``)."""
    x, w = _same(input, filter)
    kh, kw, cin, mult = w.shape
    w = w.reshape((kh, kw, 1, cin * mult))
    cf = _channels_first(data_format)
    return _call(_conv_fn, (x, w, _tuple(strides, 2, "strides", cf), _padding(padding, 2, cf),
                            _tuple(dilations, 2, "dilations", cf), 2, cf, cin))


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,
                     data_format=None, dilations=None, name=None):
    y = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return convolution(y, pointwise_filter, 1, "VALID", data_format)


def _conv_transpose_fn(y, w, out_shape, strides, padding, dilations, n, channels_first):
    # TF's conv_transpose is the gradient of the convolution w.r.t. its input.
    _, pull = jax.vjp(lambda x: _conv_fn(x, w, strides, padding, dilations, n,
                                         channels_first, 1),
                      jnp.zeros(out_shape, y.dtype))
    return pull(y)[0]


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,
                   dilations=None, name=None):
    """The transpose (gradient) of ``convolution`` w.r.t. its input, of
    ``output_shape``; ``filters`` is ``[..., out_channels, in_channels]``."""
    y, w = _same(input, filters)
    n = w.ndim - 2
    from ._array import _static
    out_shape = tuple(int(d) for d in _static(output_shape, "output_shape"))
    if len(out_shape) != n + 2:
        raise ValueError(f"argument `output_shape` must have {n + 2} entries, got {out_shape}")
    cf = _channels_first(data_format)
    return _call(_conv_transpose_fn, (y, w, out_shape, _tuple(strides, n, "strides", cf),
                                      _padding(padding, n, cf),
                                      _tuple(dilations, n, "dilations", cf), n, cf))


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",
                     dilations=None, name=None):
    return conv_transpose(input, filters, output_shape, strides, padding,
                          "NCW" if data_format == "NCW" else None, dilations)


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",
                     dilations=None, name=None):
    return conv_transpose(input, filters, output_shape, strides, padding, data_format, dilations)


def conv3d_transpose(input, filters, output_shape, strides, padding="SAME",
                     data_format="NDHWC", dilations=None, name=None):
    return conv_transpose(input, filters, output_shape, strides, padding, data_format, dilations)


# -- pooling ----------------------------------------------------------------------
def _pool_fn(x, kind, window, strides, padding, channels_first):
    x = _to_last(x, channels_first)
    dims, st = (1,) + window + (1,), (1,) + strides + (1,)
    if isinstance(padding, tuple):
        padding = ((0, 0),) + padding + ((0, 0),)
    # Initial values as NumPy constants: JAX recognises a max or sum window (one
    # it can differentiate) by a concrete identity, which a jnp array is not
    # while a compiled replay traces the pooling for its gradient.
    if kind == "MAX":
        init = -np.inf if jnp.issubdtype(x.dtype, jnp.floating) else np.iinfo(x.dtype).min
        y = jax.lax.reduce_window(x, np.asarray(init, x.dtype), jax.lax.max, dims, st, padding)
    else:
        # TF's average leaves the padding out of each window's count.
        zero = np.zeros((), x.dtype)
        s = jax.lax.reduce_window(x, zero, jax.lax.add, dims, st, padding)
        ones = jnp.ones(x.shape[1:-1], x.dtype)[None, ..., None]
        count = jax.lax.reduce_window(ones, zero, jax.lax.add, dims, st, padding)
        y = s / count
    return _from_last(y, channels_first)


def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,
         dilations=None, name=None):
    """``"MAX"`` or ``"AVG"`` pooling over the spatial axes (``tf.nn.pool``)."""
    x = _t(input)
    n = x.ndim - 2
    kind = str(pooling_type).upper()
    if kind not in ("MAX", "AVG"):
        raise ValueError(f"argument `pooling_type` must be 'MAX' or 'AVG', got {pooling_type!r}")
    if dilations is not None and any(d != 1 for d in _tuple(dilations, n, "dilations")):
        raise NotImplementedError("tf.nn.pool with dilations is not supported yet")
    cf = _channels_first(data_format)
    return _call(_pool_fn, (x, kind, _tuple(window_shape, n, "window_shape", cf),
                            _tuple(strides, n, "strides", cf), _padding(padding, n, cf), cf))


def _pool_op(kind):
    def op(input, ksize, strides, padding, data_format=None, name=None):
        x = _t(input)
        n = x.ndim - 2
        cf = _channels_first(data_format)
        return _call(_pool_fn, (x, kind, _tuple(ksize, n, "ksize", cf),
                                _tuple(strides, n, "strides", cf), _padding(padding, n, cf), cf))
    return op


max_pool = max_pool1d = max_pool2d = max_pool3d = _pool_op("MAX")
avg_pool = avg_pool1d = avg_pool2d = avg_pool3d = _pool_op("AVG")
for _f, _n in ((max_pool, "max_pool"), (avg_pool, "avg_pool")):
    _f.__name__ = _n
    _f.__doc__ = (f"``tf.nn.{_n}`` (also its 1d/2d/3d names): windows of ``ksize`` every "
                  "``strides``, TF's padding and layouts.")


# -- normalisation and the rest -----------------------------------------------------
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``(x - mean) * scale / sqrt(variance + eps) + offset``, written as TF writes it:
    the statistics' part is computed in their own dtype (Python numbers: float32)
    and cast to ``x``'s.

    >>> import eagertape.tf as tf
    >>> x = tf.constant([1.0, 3.0], tf.float64)
    >>> tf.nn.batch_normalization(x, 2.0, 1.0, None, None, 0.0).numpy()
    array([-1.,  1.])
    """
    from .dtypes import cast
    from .math import rsqrt
    x = _t(x)
    inv = rsqrt(variance + variance_epsilon)
    if scale is not None:
        inv *= scale
    return x * cast(inv, x.dtype) + cast(
        offset - mean * inv if offset is not None else -mean * inv, x.dtype)


def space_to_depth(input, block_size, data_format="NHWC", name=None):
    x = _t(input)
    return _call(_space_to_depth, (x, int(block_size), _channels_first(data_format)))


def _space_to_depth(x, b, cf):
    x = _to_last(x, cf)
    n, h, w, c = x.shape
    y = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
    return _from_last(y.reshape(n, h // b, w // b, b * b * c), cf)


def depth_to_space(input, block_size, data_format="NHWC", name=None):
    x = _t(input)
    return _call(_depth_to_space, (x, int(block_size), _channels_first(data_format)))


def _depth_to_space(x, b, cf):
    x = _to_last(x, cf)
    n, h, w, c = x.shape
    y = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
    return _from_last(y.reshape(n, h * b, w * b, c // (b * b)), cf)


# -- atrous, depthwise gradients, space-to-batch, morphology, argmax pooling -----------
def atrous_conv2d(value, filters, rate, padding, name=None):
    """A 2-D convolution with holes: ``conv2d`` with ``dilations=rate`` (stride 1)."""
    if int(rate) < 1:
        raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
    return convolution(value, filters, 1, padding, None, int(rate))


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose (gradient w.r.t. the input) of ``atrous_conv2d``; ``filters``
    is ``[h, w, out_channels, in_channels]``."""
    y, w = _same(value, filters)
    if y.shape[3] != w.shape[3]:
        raise ValueError(f"`value.shape[3]` must match `filters.shape[3]`, got {y.shape[3]} "
                         f"and {w.shape[3]}")
    if int(rate) < 1:
        raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
    if isinstance(padding, str) and padding.upper() not in ("SAME", "VALID"):
        raise ValueError(f"`padding` must be either 'VALID' or 'SAME', got {padding!r}")
    from ._array import _static
    shape = [int(d) for d in np.reshape(_static(output_shape, "output_shape"), -1)]
    if len(shape) != 4:
        raise ValueError(f"`output_shape` must have shape (4,), got {output_shape!r}")
    if shape[3] != w.shape[2]:
        raise ValueError(f"`output_shape[3]` must match `filters.shape[2]`, got {shape[3]} "
                         f"and {w.shape[2]}")
    return conv_transpose(y, w, shape, 1, padding, None, int(rate))


def _depthwise_fn(x, w, strides, padding, dilations, cf):
    kh, kw, cin, mult = w.shape
    return _conv_fn(x, w.reshape((kh, kw, 1, cin * mult)), strides, padding, dilations, 2, cf,
                    cin)


def _depthwise_back(known, sizes, dy, which, strides, padding, dilations, cf):
    # TF's backprop ops are this convolution's vjp; as a vjp is linear, their
    # own gradients (TF registers them) come out of JAX's derivatives.
    blank = jax.ShapeDtypeStruct(sizes, dy.dtype)
    known_s = jax.ShapeDtypeStruct(tuple(known.shape), known.dtype)
    x, w = (blank, known_s) if which == "input" else (known_s, blank)
    want = jax.eval_shape(lambda a, b: _depthwise_fn(a, b, strides, padding, dilations, cf),
                          x, w).shape
    if tuple(want) != tuple(dy.shape):
        raise InvalidArgumentError(f"out_backprop has shape {list(dy.shape)}, the convolution's "
                                   f"output is {list(want)}")
    return _call(_depthwise_pull, (known, sizes, dy, which, strides, padding, dilations, cf))


def _depthwise_pull(known, sizes, dy, which, strides, padding, dilations, cf):
    blank = jnp.zeros(sizes, dy.dtype)
    if which == "input":
        _, pull = jax.vjp(lambda a: _depthwise_fn(a, known, strides, padding, dilations, cf),
                          blank)
    else:
        _, pull = jax.vjp(lambda b: _depthwise_fn(known, b, strides, padding, dilations, cf),
                          blank)
    return pull(dy)[0]


def _sizes(value, what):
    from ._array import _static
    return tuple(int(d) for d in np.reshape(_static(value, what), -1))


def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,
                                    data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The gradient of ``depthwise_conv2d`` w.r.t. its input (of shape ``input_sizes``)."""
    w, dy = _same(filter, out_backprop)
    sizes = _sizes(input_sizes, "input_sizes")
    if len(sizes) != 4 or w.ndim != 4:
        raise InvalidArgumentError(f"input_sizes must have 4 entries and filter rank 4, got "
                                   f"{list(sizes)} and shape {list(w.shape)}")
    cf = _channels_first(data_format)
    return _depthwise_back(w, sizes, dy, "input", _tuple(strides, 2, "strides", cf),
                           _padding(padding, 2, cf), _tuple(dilations, 2, "dilations", cf), cf)


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                                     data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The gradient of ``depthwise_conv2d`` w.r.t. its filter (of shape ``filter_sizes``)."""
    x, dy = _same(input, out_backprop)
    sizes = _sizes(filter_sizes, "filter_sizes")
    if len(sizes) != 4 or x.ndim != 4:
        raise InvalidArgumentError(f"filter_sizes must have 4 entries and input rank 4, got "
                                   f"{list(sizes)} and shape {list(x.shape)}")
    cf = _channels_first(data_format)
    return _depthwise_back(x, sizes, dy, "filter", _tuple(strides, 2, "strides", cf),
                           _padding(padding, 2, cf), _tuple(dilations, 2, "dilations", cf), cf)


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None,
                        data_format=None):
    """``op(input, num_spatial_dims, padding)`` run on ``input``'s space-to-batch
    form, so a sliding-window ``op`` becomes its dilated ("atrous") version: TF's
    paddings and crops (``required_space_to_batch_paddings``), ``op`` called with
    ``"VALID"``, then ``batch_to_space``. A ``dilation_rate`` of all ones calls
    ``op`` on ``input`` itself."""
    from ._array import _static, batch_to_space, space_to_batch_nd
    x = _t(input)
    rate = np.asarray(_static(dilation_rate, "dilation_rate"), np.int64)
    if rate.ndim != 1:
        raise ValueError(f"`dilation_rate.shape.rank` must be 1. Received: "
                         f"dilation_rate={dilation_rate}")
    m = rate.shape[0]
    start = 2 if _channels_first(data_format) else 1
    dims = list(range(start, m + start)) if spatial_dims is None else [int(d) for d in spatial_dims]
    if dims != sorted(set(dims)) or any(d < 1 for d in dims):
        raise ValueError("`spatial_dims` must be a monotonically increasing sequence of "
                         f"positive integers. Received: spatial_dims={spatial_dims}")
    rank = dims[-1] if _channels_first(data_format) else dims[-1] + 1
    if x.ndim < rank:
        raise ValueError(f"`input.shape.rank` must be at least {rank}. Received: "
                         f"input.shape={list(x.shape)}")
    if np.any(rate < 1):
        raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={rate}")
    if np.all(rate == 1):
        return op(x, m, padding)
    if isinstance(padding, str) and padding.upper() == "SAME":
        if filter_shape is None:
            raise ValueError("`filter_shape` must be specified for `padding='SAME'`.")
        extra = (np.asarray(_static(filter_shape, "filter_shape"), np.int64)[:m] - 1) * rate
        base = np.stack([extra // 2, extra - extra // 2], 1)
    elif isinstance(padding, str) and padding.upper() == "VALID":
        base = np.zeros((m, 2), np.int64)
    elif isinstance(padding, str):
        raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: {padding!r}")
    else:
        base = np.asarray(padding, np.int64).reshape(m + 2, 2)
        base = base[2:] if _channels_first(data_format) else base[1:-1]
    size = np.asarray([x.shape[d] for d in dims], np.int64)
    extra_end = (rate - (size + base.sum(1)) % rate) % rate
    pads = np.stack([base[:, 0], base[:, 1] + extra_end], 1)
    crops = np.stack([np.zeros(m, np.int64), extra_end], 1)
    # Axes between the spatial ones get block 1 and no padding (TF's adjustment).
    block, full_pads, full_crops = [1] * dims[-1], [[0, 0]] * dims[-1], [[0, 0]] * dims[-1]
    for i, d in enumerate(dims):
        block[d - 1], full_pads[d - 1], full_crops[d - 1] = int(rate[i]), pads[i], crops[i]
    y = op(space_to_batch_nd(x, block, full_pads), m, "VALID")
    return batch_to_space(y, block, full_crops)


def _morph_taps(x, ksize, strides, rates, padding, fill):
    """The ``kh * kw`` window taps of NHWC ``x``, stacked on a last axis in TF's
    scan order (row by row), with the SAME/VALID geometry of a dilated window."""
    n, h, w, c = x.shape
    (kh, kw), (sh, sw), (rh, rw) = ksize, strides, rates
    eh, ew = (kh - 1) * rh + 1, (kw - 1) * rw + 1
    if padding == "VALID":
        oh, ow, pt, pl = (h - eh) // sh + 1, (w - ew) // sw + 1, 0, 0
    else:
        oh, ow = -(-h // sh), -(-w // sw)
        pt = max(0, (oh - 1) * sh + eh - h) // 2
        pl = max(0, (ow - 1) * sw + ew - w) // 2
    pb = max(0, (oh - 1) * sh + eh - h - pt)
    pr = max(0, (ow - 1) * sw + ew - w - pl)
    xp = jnp.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=fill)
    taps = [xp[:, dy * rh:dy * rh + (oh - 1) * sh + 1:sh, dx * rw:dx * rw + (ow - 1) * sw + 1:sw]
            for dy in range(kh) for dx in range(kw)]
    return jnp.stack(taps, -1), pt, pl


def _lowest(dtype):
    return -jnp.inf if jnp.issubdtype(dtype, jnp.floating) else jnp.iinfo(dtype).min


def _pick(vals):
    # The first maximum in scan order takes the whole gradient (TF's kernels
    # compare with `>`); jnp.max would share it among ties.
    k = jnp.argmax(vals, -1)
    return jnp.take_along_axis(vals, k[..., None], -1)[..., 0], k


def _dilation_fn(x, f, strides, rates, padding):
    kh, kw, c = f.shape
    taps, _, _ = _morph_taps(x, (kh, kw), strides, rates, padding, _lowest(x.dtype))
    return _pick(taps + f.reshape(kh * kw, c).T)[0]


def _out_size(size, k, stride, rate, padding):
    eff = (k - 1) * rate + 1
    return -(-size // stride) if padding == "SAME" else (size - eff) // stride + 1


def _morph_check(x, f, strides, rates, padding, what):
    if x.ndim != 4 or f.ndim != 3:
        raise InvalidArgumentError(f"{what}: input must be 4-D and filter 3-D, got shapes "
                                   f"{list(x.shape)} and {list(f.shape)}")
    if x.shape[3] != f.shape[2]:
        raise InvalidArgumentError(f"{what}: input and filter must have the same depth: "
                                   f"{x.shape[3]} vs {f.shape[2]}")
    for i in range(2):
        if _out_size(x.shape[1 + i], f.shape[i], strides[i], rates[i], padding) < 0:
            raise InvalidArgumentError(f"{what}: the dilated filter is larger than the input")


def _morph_args(strides, padding, dilations, data_format):
    if data_format != "NHWC":
        raise ValueError("`data_format` values other  than 'NHWC' are not supported. "
                         f"Received: data_format={data_format}")
    p = _padding(padding, 2, False)
    if not isinstance(p, str):
        raise ValueError("argument `padding` must be 'SAME' or 'VALID'")
    return _tuple(strides, 2, "strides"), _tuple(dilations, 2, "dilations"), p


def dilation2d(input, filters, strides, padding, data_format, dilations, name=None):
    """Grayscale morphological dilation: ``out[b, y, x, c] = max over the window of
    input[b, y*s + r*dy, x*s + r*dx, c] + filters[dy, dx, c]`` (``filters`` is
    ``[h, w, depth]``); the gradient goes to the first maximum, as TF's."""
    x, f = _same(input, filters)
    st, rt, p = _morph_args(strides, padding, dilations, data_format)
    _morph_check(x, f, st, rt, p, "dilation2d")
    return _call(_dilation_fn, (x, f, st, rt, p))


def erosion2d(value, filters, strides, padding, data_format, dilations, name=None):
    """Grayscale morphological erosion, TF's ``-dilation2d(-value, reversed filters)``."""
    x, f = _same(value, filters)
    st, rt, p = _morph_args(strides, padding, dilations, data_format)
    _morph_check(x, f, st, rt, p, "erosion2d")
    return -_call(_dilation_fn, (-x, f[::-1, ::-1], st, rt, p))


def _argmax_pool_fn(x, ksize, strides, padding, include_batch, out_dtype):
    taps, pt, pl = _morph_taps(x, ksize, strides, (1, 1), padding, _lowest(x.dtype))
    out, k = _pick(taps)
    n, h, w, c = x.shape
    _, oh, ow, _ = out.shape
    dy, dx = k // ksize[1], k % ksize[1]
    yy = jnp.arange(oh)[None, :, None, None] * strides[0] + dy - pt
    xx = jnp.arange(ow)[None, None, :, None] * strides[1] + dx - pl
    idx = (yy * w + xx) * c + jnp.arange(c)
    if include_batch:
        idx = idx + jnp.arange(n)[:, None, None, None] * (h * w * c)
    return out, idx.astype(out_dtype)


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",
                         output_dtype="int64", include_batch_in_index=False, name=None):
    """Max pooling and the flattened index of each maximum: ``(y * width + x) *
    channels + c``, plus ``b * height * width * channels`` with
    ``include_batch_in_index``; the first maximum of a window wins, as in TF."""
    from ..extend import as_dtype as _as_dtype
    x = _t(input)
    if data_format != "NHWC":
        raise ValueError(f"Data formats other than 'NHWC' are not yet supported, got "
                         f"{data_format!r}")
    if x.ndim != 4:
        raise InvalidArgumentError(f"input must be 4-dimensional, got shape {list(x.shape)}")
    p = _padding(padding, 2, False)
    if not isinstance(p, str):
        raise ValueError("argument `padding` must be 'SAME' or 'VALID'")
    ks, st = _tuple(ksize, 2, "ksize"), _tuple(strides, 2, "strides")
    for i in range(2):
        if _out_size(x.shape[1 + i], ks[i], st[i], 1, p) < 0:
            raise InvalidArgumentError("max_pool_with_argmax: the window is larger than the input")
    out, idx = _call(_argmax_pool_fn, (x, ks, st, p, bool(include_batch_in_index),
                                       np.dtype(_as_dtype(output_dtype).name).name))
    return _MaxPoolWithArgmax(out, idx)


_MaxPoolWithArgmax = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])
