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
