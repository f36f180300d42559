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
import jax
import jax.numpy as jnp
import numpy as np

from .._errors import InvalidArgumentError
from .._primitive import call as _call
from ._util import same_dtype as _same, tensor as _t


def _channels_first(data_format):
    return data_format is not None and data_format.startswith("NC")


def _tuple(value, n, what, channels_first=False):
    """An int or list argument (strides, dilations, ksize) as ``n`` spatial ints;
    TF's full lists (``[1, s, s, 1]``, ``[1, 1, s, s]`` for NCHW) give their
    spatial entries."""
    if value is None:
        return (1,) * n
    v = list(np.reshape(np.asarray(value), -1).astype(int))
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
    if kind == "MAX":
        init = -jnp.inf if jnp.issubdtype(x.dtype, jnp.floating) else jnp.iinfo(x.dtype).min
        y = jax.lax.reduce_window(x, jnp.asarray(init, x.dtype), jax.lax.max, dims, st, padding)
    else:
        # TF's average leaves the padding out of each window's count.
        s = jax.lax.reduce_window(x, jnp.zeros((), x.dtype), jax.lax.add, dims, st, padding)
        ones = jnp.ones(x.shape[1:-1], x.dtype)[None, ..., None]
        count = jax.lax.reduce_window(ones, jnp.zeros((), x.dtype), jax.lax.add, dims, st,
                                      padding)
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
    """``(x - mean) * scale / sqrt(variance + eps) + offset``, in TF's order of ops."""
    from .math import rsqrt
    x = _t(x)
    inv = rsqrt(_t(variance) + variance_epsilon)
    if scale is not None:
        inv = inv * scale
    return x * inv + (offset - _t(mean) * inv if offset is not None else -_t(mean) * inv)


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
