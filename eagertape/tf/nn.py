"""``tf.nn`` on eagertape: TF's activations and losses over the recorded ``jax.nn``.

>>> import eagertape.tf as tf
>>> tf.nn.relu(tf.constant([-1.0, 2.0])).numpy()
array([0., 2.], dtype=float32)
"""
import jax
import jax.numpy as jnp

from .. import nn as _jnn
from .. import numpy as _np
from .._primitive import call as _call
from .._primitive import stop_gradient as _stop_gradient
from . import math as _math
from ._util import _Unsupported, tensor as _t
from ._conv import (avg_pool, avg_pool1d, avg_pool2d, avg_pool3d, batch_normalization,  # noqa: F401
                    conv1d, conv1d_transpose, conv2d, conv2d_transpose, conv3d,
                    conv3d_transpose, conv_transpose, convolution, depth_to_space,
                    depthwise_conv2d, max_pool, max_pool1d, max_pool2d, max_pool3d, pool,
                    separable_conv2d, space_to_depth)

__getattr__ = _Unsupported("tf.nn")


def _tf_slope(f, slope):
    """``f`` whose derivative is ``slope(x, y)``, written with floating ops of the
    forward values as TF's gradient op reads them (ReluGrad reads the features):
    a second derivative then reaches ``x`` and is zeros, as TF's, where a
    boolean mask would cut it (None; see eagertape/_connected.py)."""
    g = jax.custom_jvp(f)

    def jvp(primals, tangents):
        y = f(primals[0])
        return y, tangents[0] * slope(primals[0], y)
    g.defjvp(jvp)
    g.__name__ = f.__name__
    return g


_relu = _tf_slope(jax.nn.relu, lambda x, y: jnp.sign(y))
_relu6 = _tf_slope(jax.nn.relu6, lambda x, y: jnp.sign(y) * jnp.sign(6.0 - y))


def _leaky_relu(x, alpha):
    return _tf_slope(lambda x: jax.nn.leaky_relu(x, alpha),
                     lambda x, y: alpha + (1.0 - alpha) * jnp.sign(jax.nn.relu(x)))(x)


def relu(features, name=None): return _call(_relu, (_t(features),))
def relu6(features, name=None): return _call(_relu6, (_t(features),))
def elu(features, name=None): return _jnn.elu(_t(features))
def selu(features, name=None): return _jnn.selu(_t(features))
def sigmoid(x, name=None): return _jnn.sigmoid(_t(x))
def tanh(x, name=None): return _np.tanh(_t(x))
def softplus(features, name=None): return _jnn.softplus(_t(features))
def softsign(features, name=None): return _jnn.soft_sign(_t(features))
def silu(features, beta=1.0, name=None): return _t(features) * _jnn.sigmoid(beta * _t(features))


swish = silu


def gelu(features, approximate=False, name=None):
    """TF's default is the exact (erf) GELU; JAX's is the tanh approximation."""
    return _jnn.gelu(_t(features), approximate=bool(approximate))


def leaky_relu(features, alpha=0.2, name=None):
    return _call(_leaky_relu, (_t(features), float(alpha)))


def softmax(logits, axis=None, name=None):
    return _jnn.softmax(_t(logits), axis=-1 if axis is None else axis)


def log_softmax(logits, axis=None, name=None):
    return _jnn.log_softmax(_t(logits), axis=-1 if axis is None else axis)


def l2_loss(t, name=None):
    """``sum(t ** 2) / 2``."""
    t = _t(t)
    return _np.sum(t * t) / 2


def moments(x, axes, shift=None, keepdims=False, name=None):
    """Mean and (biased) variance over ``axes``."""
    x = _t(x)
    axes = tuple(axes)
    mean = _np.mean(x, axis=axes, keepdims=True)
    # TF stops the gradient through the mean here (the same gradient, as
    # the deviations sum to zero).
    var = _np.mean(_np.square(x - _stop_gradient(mean)), axis=axes, keepdims=True)
    if not keepdims:
        mean, var = _np.squeeze(mean, axis=axes), _np.squeeze(var, axis=axes)
    return mean, var


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zero each entry with probability ``rate``, scale the rest by ``1/(1-rate)``;
    the mask comes from ``tf.random``'s generator (reproducible after ``set_seed``)."""
    from . import random as _random
    x = _t(x)
    if not 0 <= float(rate) < 1:
        raise ValueError(f"argument `rate` must be in [0, 1), got {rate!r}")
    if rate == 0:
        return x
    shape = x.shape if noise_shape is None else tuple(noise_shape)
    keep = _random.uniform(shape, dtype=x.dtype, seed=seed) >= rate
    return _np.where(keep, x / (1 - rate), _np.zeros_like(x))


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """Per-example ``-sum(labels * log_softmax(logits))``; gradients reach both."""
    return -_np.sum(_t(labels) * _jnn.log_softmax(_t(logits), axis=axis), axis=axis)


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """Per-example cross-entropy with integer class ``labels``."""
    logits = _t(logits)
    logp = _jnn.log_softmax(logits, axis=-1)
    labels = _t(labels)
    return -_np.squeeze(_np.take_along_axis(logp, _np.expand_dims(labels, -1), axis=-1), -1)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """TF's stable form ``max(x, 0) - x*z + log(1 + exp(-|x|))``."""
    x, z = _t(logits), _t(labels)
    return _jnn.relu(x) - x * z + _np.log1p(_np.exp(-_np.abs(x)))


def bias_add(value, bias, data_format=None, name=None):
    value = _t(value)
    if data_format in ("NCHW", "NCW", "NCDHW"):
        bias = _np.reshape(_t(bias), (-1,) + (1,) * (value.ndim - 2))
    return value + bias


def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows of ``params`` at ``ids`` (``tf.gather`` on axis 0; ``params`` one tensor or
    a list of one); with ``max_norm``, each looked-up embedding whose L2 norm exceeds
    it is scaled down to it (``tf.clip_by_norm`` over the embedding's axes)."""
    from . import clip_by_norm, gather
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            from .errors import UnimplementedError
            raise UnimplementedError("tf.nn.embedding_lookup over several shards is not "
                                     "supported yet; concatenate them first")
        params = params[0]
    out = gather(params, ids)
    if max_norm is not None:
        ids_rank = _t(ids).ndim
        out = clip_by_norm(out, max_norm, axes=tuple(range(ids_rank, out.ndim)))
    return out


def l2_normalize(x, axis=None, epsilon=1e-12, name=None):
    x = _t(x)
    sq = _np.sum(x * x, axis=axis, keepdims=True)
    return x * _math.rsqrt(_np.maximum(sq, epsilon))


def crelu(features, axis=-1, name=None):
    """``concat([relu(x), relu(-x)], axis)``."""
    x = _t(features)
    return _np.concatenate([relu(x), relu(-x)], axis=axis)


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """TF's stable form ``(1 - z) * x + (1 + (q - 1) * z) * (log1p(exp(-|x|)) + max(-x, 0))``."""
    x, z = _t(logits), _t(labels)
    log_weight = 1.0 + (pos_weight - 1.0) * z
    return (1.0 - z) * x + log_weight * (_np.log1p(_np.exp(-_np.abs(x))) + _jnn.relu(-x))


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    c, z = _t(log_input), _t(targets)
    loss = _np.exp(c) - c * z
    if compute_full_loss:
        point_five = 0.5
        stirling = z * _np.log(z) - z + point_five * _np.log(2.0 * 3.141592653589793 * z)
        loss = loss + _np.where((z >= 0) & (z <= 1), _np.zeros_like(z), stirling)
    return loss


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """``(count, sum, sum of squares, shift)`` of ``x`` over ``axes``."""
    x = _t(x)
    keep = bool(keepdims or keep_dims)
    axes = tuple(axes)
    count = 1
    for a in axes:
        count *= x.shape[a]
    count = _np.asarray(float(count), dtype=x.dtype)
    if shift is not None:
        shift = _t(shift)
        m_ss, v_ss = _np.sum(x - shift, axis=axes, keepdims=keep), \
            _np.sum(_np.square(x - shift), axis=axes, keepdims=keep)
    else:
        m_ss, v_ss = _np.sum(x, axis=axes, keepdims=keep), _np.sum(_np.square(x), axis=axes, keepdims=keep)
    return count, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    divisor = 1.0 / _t(counts)
    shifted_mean = _t(mean_ss) * divisor
    mean = shifted_mean + shift if shift is not None else shifted_mean
    variance = _t(variance_ss) * divisor - _np.square(shifted_mean)
    return mean, variance


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    x, w = _t(x), _t(frequency_weights)
    axes = tuple(axes)
    wx = _np.sum(w * x, axis=axes, keepdims=True)
    sw = _np.sum(w * _np.ones_like(x), axis=axes, keepdims=True)
    mean = _math.divide_no_nan(wx, sw)
    var = _math.divide_no_nan(_np.sum(w * _np.square(x - mean), axis=axes, keepdims=True), sw)
    if not keepdims:
        mean, var = _np.squeeze(mean, axis=axes), _np.squeeze(var, axis=axes)
    return mean, var


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None,
                         name=None):
    """The sum of the (weighted) per-example losses over the global batch size (one
    replica: the batch's size)."""
    loss = _t(per_example_loss)
    if sample_weight is not None:
        loss = loss * sample_weight
    if global_batch_size is None:
        global_batch_size = loss.shape[0] if loss.ndim else 1
    return _np.sum(loss) / _np.asarray(global_batch_size, dtype=loss.dtype)


def scale_regularization_loss(regularization_loss, name=None):
    """The loss divided by the number of replicas (one)."""
    return _np.sum(_t(regularization_loss))


def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):
    """``x / (bias + alpha * sum of squares over 2r+1 neighbouring channels) ** beta``."""
    x = _t(input)
    return _call(_lrn, (x, int(depth_radius), float(bias), float(alpha), float(beta)))


def _lrn(x, r, bias, alpha, beta):
    sq = jnp.square(x)
    c = x.shape[-1]
    padded = jnp.pad(sq, [(0, 0)] * (x.ndim - 1) + [(r, r)])
    s = sum(padded[..., i:i + c] for i in range(2 * r + 1))
    return x / jnp.power(bias + alpha * s, beta)


lrn = local_response_normalization


def top_k(input, k=1, sorted=True, index_type="int32", name=None):
    return _math.top_k(input, k, sorted)


def in_top_k(targets, predictions, k, name=None):
    return _math.in_top_k(targets, predictions, k)


def zero_fraction(value, name=None):
    return _math.zero_fraction(value)
