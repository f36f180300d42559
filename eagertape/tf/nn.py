"""``tf.nn`` on eagertape: TF's activations and losses over the recorded ``jax.nn``.

>>> import eagertape.tf as tf
>>> tf.nn.relu(tf.constant([-1.0, 2.0])).numpy()
array([0., 2.], dtype=float32)
"""
import collections

import jax
import jax.numpy as jnp
import numpy as np

from .. import nn as _jnn
from .. import numpy as _np
from ..extend import call as _call
from ..extend import InvalidArgumentError
from ..extend import stop_gradient as _stop_gradient
from . import math as _math
# TF's tf.nn and tf.math share these (the same functions).
from .math import l2_normalize, log_softmax, softmax  # noqa: F401
from ._util import _Unsupported, concrete as _concrete, left_out as _left_out
from ._util import tensor as _t
from ._util import float_attr as _float_attr
from ._array import space_to_batch  # noqa: F401
from ._conv import (atrous_conv2d, atrous_conv2d_transpose, avg_pool, avg_pool1d,  # noqa: F401
                    avg_pool2d, avg_pool3d, batch_normalization, conv1d, conv1d_transpose,
                    conv2d, conv2d_transpose, conv3d, conv3d_transpose, conv_transpose,
                    convolution, depth_to_space, depthwise_conv2d,
                    depthwise_conv2d_backprop_filter, depthwise_conv2d_backprop_input,
                    dilation2d, erosion2d, max_pool, max_pool1d, max_pool2d, max_pool3d,
                    max_pool_with_argmax, pool, separable_conv2d, space_to_depth,
                    with_space_to_batch)
from .random import all_candidate_sampler, fixed_unigram_candidate_sampler  # noqa: F401
from .random import __getattr__ as _random_names

_KERAS_RNN = ("TF's RNN cell wrappers belong to its Keras-2 RNN cells, which the facade does "
              "not have: build recurrent models with tf.keras layers (keras.layers.RNN, LSTM, "
              "GRU, Dropout) on Keras's JAX backend")
_SPARSE_OUT = ("TF returns the decoded paths as SparseTensors, and the CTC decoders are not "
               "in eagertape yet; decode a frame-wise argmax (tf.argmax, then drop repeats "
               "and blanks) instead")
_FRACTIONAL = ("its pooling regions are drawn by TF's kernel random generator, whose numbers "
               "JAX cannot reproduce; use avg_pool/max_pool, or tf.image.resize")

__getattr__ = _Unsupported("tf.nn", {
    **_left_out(_KERAS_RNN, "RNNCellDeviceWrapper RNNCellDropoutWrapper RNNCellResidualWrapper"),
    **_left_out(_SPARSE_OUT, "ctc_greedy_decoder ctc_beam_search_decoder"),
    **_left_out(_FRACTIONAL, "fractional_avg_pool fractional_max_pool"),
    "learned_unigram_candidate_sampler":
        _random_names.left_out["learned_unigram_candidate_sampler"],
})


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


# ``alpha`` is an argument, not a closure: a tf.function's jaxpr keeps the rule and
# runs it when differentiated later, when a closed-over traced alpha is gone.
@jax.custom_jvp
def _leaky_relu(x, alpha):
    return jax.nn.leaky_relu(x, alpha)


@_leaky_relu.defjvp
def _leaky_relu_jvp(primals, tangents):
    x, alpha = primals     # (alpha is TF's float attribute: not differentiated)
    return jax.nn.leaky_relu(x, alpha), \
        tangents[0] * (alpha + (1.0 - alpha) * jnp.sign(jax.nn.relu(x)))


def relu(features, name=None): return _call(_relu, (_t(features),))
def relu6(features, name=None): return _call(_relu6, (_t(features),))
def elu(features, name=None): return _jnn.elu(_t(features))
def selu(features, name=None): return _jnn.selu(_t(features))
def sigmoid(x, name=None): return _jnn.sigmoid(_t(x))
def tanh(x, name=None): return _np.tanh(_t(x))
def softplus(features, name=None): return _jnn.softplus(_t(features))
def softsign(features, name=None): return _jnn.soft_sign(_t(features))
def silu(features, beta=1.0, name=None):
    """``features * sigmoid(beta * features)``; ``beta`` is converted alone and cast
    to the features' dtype, as TF does (a Python float is rounded to float32 first).

    >>> import eagertape.tf as tf
    >>> tf.nn.silu(tf.constant([1.0, -1.0])).numpy().round(6)
    array([ 0.731059, -0.268941], dtype=float32)
    """
    from .dtypes import cast
    x = _t(features)
    b = cast(_t(beta), x.dtype)
    return x * _jnn.sigmoid(b * x)


swish = silu


def gelu(features, approximate=False, name=None):
    """TF's GELU: by default the exact (erf) one (JAX's default is the tanh
    approximation), in TF's formula, whose constants ``0.044715`` (approximate)
    and ``1/sqrt(2)`` (exact) TF rounds to float32 before casting them to the
    features' dtype: float64 results match TF's to the last bits.

    >>> import eagertape.tf as tf
    >>> tf.nn.gelu(tf.constant([-1.0, 1.0], tf.float64)).numpy()
    array([-0.15865526,  0.84134474])
    """
    x = _t(features)
    if not np.issubdtype(np.dtype(x.dtype), np.inexact):
        raise ValueError("`features.dtype` must be a floating point tensor."
                         f"Received:features.dtype={x.dtype}")
    return _call(_gelu, (x, bool(approximate)))


def _gelu(x, approximate):
    def const(c):     # TF's math_ops.cast(c, dtype) of a Python float
        return jnp.asarray(np.float32(c)).astype(x.dtype)
    if approximate:
        return 0.5 * x * (1.0 + jnp.tanh(0.7978845608028654 * (
            x + const(0.044715) * jnp.power(x, jnp.asarray(3, x.dtype)))))
    return 0.5 * x * jax.scipy.special.erfc(-x * const(0.7071067811865476))


def leaky_relu(features, alpha=0.2, name=None):
    """``features`` where positive, ``alpha * features`` elsewhere. ``alpha`` is a
    ``float`` attribute of TF's op: float32, even for float64 features.

    >>> import eagertape.tf as tf
    >>> tf.nn.leaky_relu(tf.constant([-1.0, 2.0]), alpha=0.5).numpy()
    array([-0.5,  2. ], dtype=float32)
    """
    x = _t(features)
    if np.issubdtype(np.dtype(x.dtype), np.integer):
        x = x.astype(np.float32)         # as TF
    return _call(_leaky_relu, (x, _float_attr(alpha, "alpha")))


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
    from ._array import gather
    from ._clip import clip_by_norm
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


def _embedding_sparse_fn(params, ids, segments, weights, n, combiner, max_norm):
    rows = params[ids]
    if max_norm is not None:
        axes = tuple(range(1, rows.ndim))
        norm = jnp.sqrt(jnp.sum(rows * rows, axis=axes, keepdims=True))
        rows = rows * jnp.where(norm > max_norm, max_norm / jnp.where(norm > 0, norm, 1), 1)
    w = jnp.ones(ids.shape, rows.dtype) if weights is None else weights.astype(rows.dtype)
    w = w.reshape(w.shape + (1,) * (rows.ndim - 1))
    total = jax.ops.segment_sum(rows * w, segments, n)
    if combiner == "sum":
        return total
    denom = jax.ops.segment_sum(w if combiner == "mean" else w * w, segments, n)
    if combiner == "sqrtn":
        denom = jnp.sqrt(denom)
    # TF's div_no_nan: 0 where a segment's weights sum to 0
    return jnp.where(denom == 0, 0, total / jnp.where(denom == 0, 1, denom))


def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None,
                            name=None, allow_fast_lookup=False):
    """The embeddings of each row of the SparseTensor ``sp_ids`` (ids of ``params``'
    rows), combined by ``combiner``: "mean" (the default), "sum" or "sqrtn", weighted
    by ``sp_weights``' values (a SparseTensor of the same indices) or by ones. Row
    ``r`` of the result is row ``r`` of ``sp_ids``; as in TF the result has one row
    per row up to the last that has an id, and an empty row in between is zeros.
    A list of ``params`` is one table cut into consecutive shards (TF 2's "div").

    >>> import eagertape.tf as tf
    >>> params = tf.constant([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    >>> ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([0, 2, 2], tf.int64),
    ...                       [3, 2])
    >>> tf.nn.embedding_lookup_sparse(params, ids, None).numpy().tolist()
    [[1.5, 1.0], [0.0, 0.0], [2.0, 2.0]]
    """
    from . import sparse as _sparse
    combiner = "mean" if combiner is None else combiner
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    if not isinstance(sp_ids, _sparse.SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids).__name__}")
    if sp_weights is not None and not isinstance(sp_weights, _sparse.SparseTensor):
        raise TypeError(f"sp_weights must be either None or SparseTensor, got "
                        f"{type(sp_weights).__name__}")
    if isinstance(params, (list, tuple)):
        params = params[0] if len(params) == 1 else _np.concatenate(list(params), axis=0)
    segments = sp_ids.indices[:, 0]
    seg = _concrete(segments)
    if seg is None:
        raise TypeError("tf.nn.embedding_lookup_sparse needs the indices of `sp_ids` when a "
                        "tf.function is traced (its number of rows depends on them); call "
                        "it outside, or use tf.sparse.sparse_dense_matmul of a weights "
                        "SparseTensor")
    n = int(seg.max()) + 1 if seg.size else 0
    weights = None if sp_weights is None else sp_weights.values
    ids = sp_ids.values
    from ._array import _rows_gradient
    params = _t(params)
    flat = _concrete(ids)
    if flat is not None and _rows_gradient(params):
        # As TF: the table's rows at the unique ids (first seen first) are looked
        # up by tf.gather, so the table's gradient is its IndexedSlices.
        from ._array import gather
        _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        params = gather(params, flat[np.sort(first)])
        ids = rank[inverse.reshape(-1)].astype(np.int32)
    return _call(_embedding_sparse_fn, (params, ids, segments, weights, n, combiner,
                                        None if max_norm is None else float(max_norm)),
                 name="embedding_lookup_sparse")


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None,
                                 combiner="mean", default_id=None, max_norm=None, name=None,
                                 allow_fast_lookup=False):
    """``embedding_lookup_sparse`` made safe as TF's: ids below 0 (and, unless
    ``combiner`` is "sum", weights not above 0) dropped, a row left empty gets the
    embedding of ``default_id`` or zeros, and ``sparse_ids`` of rank above 2 gives
    a result of its leading shape.

    >>> import eagertape.tf as tf
    >>> params = tf.constant([[1.0, 0.0], [0.0, 1.0]])
    >>> ids = tf.SparseTensor([[0, 0], [2, 0]], tf.constant([1, -1], tf.int64), [3, 1])
    >>> tf.nn.safe_embedding_lookup_sparse(params, ids).numpy().tolist()
    [[0.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
    """
    from . import sparse as _sparse
    if embedding_weights is None or (isinstance(embedding_weights, (list, tuple))
                                     and not embedding_weights):
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    shape = sparse_ids.shape.as_list()
    ids = _sparse.reshape(sparse_ids, [int(np.prod(shape[:-1])), shape[-1]])
    weights = None if sparse_weights is None else _sparse.SparseTensor(
        ids.indices, sparse_weights.values, ids.dense_shape)
    keep = _concrete(ids.values) >= 0
    if weights is not None and combiner != "sum":
        keep &= _concrete(weights.values) > 0
    if not keep.all():
        ids = _sparse.retain(ids, keep)
        weights = None if weights is None else _sparse.retain(weights, keep)
    ids, empty = _sparse.fill_empty_rows(ids, default_id or 0)
    if weights is not None:
        weights, _ = _sparse.fill_empty_rows(weights, 1.0)
    out = embedding_lookup_sparse(embedding_weights, ids, weights, combiner=combiner,
                                  max_norm=max_norm)
    if default_id is None:
        mask = _np.reshape(empty, (-1,) + (1,) * (out.ndim - 1))
        out = _np.where(mask, _np.zeros_like(out), out)
    return _np.reshape(out, tuple(shape[:-1]) + tuple(out.shape[1:]))


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
    """The sum of the (weighted) per-example losses over the global batch size: the
    replica's batch times the number of replicas of the strategy running the step
    (``tf.distribute``; outside any strategy one replica).

    >>> import eagertape.tf as tf
    >>> float(tf.nn.compute_average_loss(tf.constant([1.0, 2.0, 3.0])))
    2.0
    """
    from .distribute import get_replica_context
    ctx = get_replica_context()
    if ctx is None:
        raise RuntimeError("You are calling `compute_average_loss` in cross replica context, "
                           "while it was expected to be called in replica context.")
    loss = _t(per_example_loss)
    if sample_weight is not None:
        loss = loss * sample_weight
    if global_batch_size is None:
        global_batch_size = (loss.shape[0] if loss.ndim else 1) * ctx.num_replicas_in_sync
    return _np.sum(loss) / _np.asarray(global_batch_size, dtype=loss.dtype)


def scale_regularization_loss(regularization_loss, name=None):
    """The loss divided by the number of replicas of the strategy running the step
    (outside any strategy one replica).

    >>> import eagertape.tf as tf
    >>> float(tf.nn.scale_regularization_loss(tf.constant([1.0, 2.0])))
    3.0
    """
    from .distribute import get_replica_context
    ctx = get_replica_context()
    if ctx is None:
        raise RuntimeError("You are calling `scale_regularization_loss` in cross replica "
                           "context, while it was expected to be called in replica context.")
    loss = _np.sum(_t(regularization_loss))
    n = ctx.num_replicas_in_sync
    return loss if n == 1 else loss / _np.asarray(n, dtype=loss.dtype)


def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):
    """``x / (bias + alpha * sum of squares over 2r+1 neighbouring channels) ** beta``."""
    x = _t(input)
    if np.dtype(x.dtype).name not in ("float32", "float16", "bfloat16"):
        # TF's kernel has these three (its attributes are C floats: float32 here).
        raise InvalidArgumentError(f"argument `input`: local_response_normalization takes "
                                   f"half, bfloat16 or float32 input, got {x.dtype.name}")
    return _call(_lrn, (x, int(depth_radius), _float_attr(bias, "bias"),
                        _float_attr(alpha, "alpha"), _float_attr(beta, "beta")))


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


# -- the rest of TF 2.21's tf.nn ----------------------------------------------------
def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """``tf.math.approx_max_k`` (the same function in TF)."""
    return _math.approx_max_k(operand, k, reduction_dimension, recall_target,
                              reduction_input_size_override, aggregate_to_topk)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """``tf.math.approx_min_k`` (the same function in TF)."""
    return _math.approx_min_k(operand, k, reduction_dimension, recall_target,
                              reduction_input_size_override, aggregate_to_topk)


def batch_norm_with_global_normalization(input, mean, variance, beta, gamma, variance_epsilon,
                                         scale_after_normalization, name=None):
    """``batch_normalization`` with offset ``beta`` and, when
    ``scale_after_normalization``, scale ``gamma`` (TF's definition)."""
    return batch_normalization(input, mean, variance, beta,
                               gamma if scale_after_normalization else None, variance_epsilon)


# CTC ---------------------------------------------------------------------------------
def _cast(x, dtype):
    from .dtypes import cast
    return cast(x, dtype)


def _ctc_fn(logits, labels, label_length, logit_length, blank):
    import optax
    t = logits.shape[1]
    logit_pad = (jnp.arange(t)[None, :] >= logit_length[:, None]).astype(logits.dtype)
    label_pad = (jnp.arange(labels.shape[1])[None, :] >= label_length[:, None]).astype(
        logits.dtype)
    return optax.ctc_loss(logits, logit_pad, labels, label_pad, blank_id=blank)


def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True, unique=None,
             blank_index=None, name=None):
    """Per-example CTC negative log-likelihood (TF 2's dense ``ctc_loss``: blank
    class 0 unless ``blank_index``, negative ones counting from the end).

    ``labels`` is a dense ``[batch, max_label_length]`` tensor (SparseTensor labels
    are not supported); ``logits`` is ``[frames, batch, classes]`` (``[batch,
    frames, classes]`` when not ``logits_time_major``). The loss is
    ``optax.ctc_loss``'s; its gradient w.r.t. ``logits`` is TF's (softmax minus
    the alignment posteriors, zero past ``logit_length``). ``unique`` only speeds
    TF up and is ignored. An impossible alignment (labels longer than the frames
    allow) gives a loss near ``1e5`` where TF gives ``inf``."""
    if label_length is None:
        raise ValueError("eagertape's ctc_loss takes dense labels: `label_length` is required")
    x = _t(logits)
    if not jnp.issubdtype(x.dtype, jnp.floating):
        raise TypeError(f"`logits` must be a floating tensor, got {x.dtype}")
    y = _t(labels)
    if not jnp.issubdtype(y.dtype, jnp.integer):
        raise TypeError(f"`labels` must be an integer tensor, got {y.dtype}")
    orig = x.dtype
    if orig in (jnp.float16, jnp.bfloat16):
        x = _cast(x, "float32")
    if logits_time_major:
        x = _np.transpose(x, (1, 0, 2))
    if x.ndim != 3 or y.ndim != 2 or y.shape[0] != x.shape[0]:
        from .errors import InvalidArgumentError
        raise InvalidArgumentError(f"ctc_loss: logits {list(_t(logits).shape)} and labels "
                                   f"{list(y.shape)} do not fit (batch of labels, frames)")
    blank = 0 if blank_index is None else int(blank_index)
    if blank < 0:
        blank += x.shape[2]
    loss = _call(_ctc_fn, (x, y, _t(label_length), _t(logit_length), blank))
    return _cast(loss, orig) if orig != loss.dtype else loss


def collapse_repeated(labels, seq_length, name=None):
    """Repeated labels merged into one: ``(collapsed_labels, new_seq_length)``,
    the labels padded with 0 to the longest new length (computed on the values)."""
    lab = _concrete(_t(labels), "labels")
    sl = _t(seq_length)
    lengths = _concrete(sl, "seq_length")
    keep = np.concatenate([np.ones_like(lab[:, :1], bool), lab[:, 1:] != lab[:, :-1]], 1)
    keep &= np.arange(lab.shape[1])[None, :] < lengths[:, None]
    new_len = keep.sum(1)
    out = np.zeros((lab.shape[0], int(new_len.max(initial=0))), lab.dtype)
    for i in range(lab.shape[0]):
        out[i, :new_len[i]] = lab[i][keep[i]]
    from ..extend import constant
    return constant(out), constant(new_len.astype(lengths.dtype))


def ctc_unique_labels(labels, name=None):
    """Each row's distinct labels in order of first appearance (int64, padded with
    0) and each label's index among them (int32), for ``ctc_loss``'s ``unique``."""
    lab = _concrete(_t(labels), "labels")
    ys = np.zeros(lab.shape, np.int64)
    idx = np.zeros(lab.shape, np.int32)
    for i, row in enumerate(lab):
        seen = {}
        for j, v in enumerate(row.tolist()):
            idx[i, j] = seen.setdefault(v, len(seen))
        ys[i, :len(seen)] = list(seen)
    from ..extend import constant
    return [constant(ys), constant(idx)]


# isotonic regression ------------------------------------------------------------------
def _pav_segments(x):
    """Pool-adjacent-violators on each row of ``x`` (non-increasing fit): segment
    ids per entry. Blocks merge on a strict violation only, as TF's kernel."""
    x = np.asarray(x, np.float64)
    seg = np.zeros(x.shape, np.int32)
    for r, row in enumerate(x):
        blocks = []     # [sum, count]
        for v in row:
            blocks.append([v, 1])
            while len(blocks) > 1 and \
                    blocks[-2][0] / blocks[-2][1] < blocks[-1][0] / blocks[-1][1]:
                s, c = blocks.pop()
                blocks[-1][0] += s
                blocks[-1][1] += c
        seg[r] = np.repeat(np.arange(len(blocks)), [c for _, c in blocks])
    return seg


def _isotonic_fn(x, decreasing):
    flat = x.reshape(-1, x.shape[-1])
    # The segments are constants of the fit (TF's gradient treats them so); the
    # callback sees no tangent, which it could not take.
    held = jax.lax.stop_gradient(flat)
    seg = jax.pure_callback(_pav_segments, jax.ShapeDtypeStruct(flat.shape, jnp.int32),
                            held if decreasing else -held)
    n = flat.shape[-1]
    onehot = (seg[:, :, None] == jnp.arange(n)[None, None, :]).astype(x.dtype)
    # Each entry becomes its segment's mean: the gradient is the mean of the
    # incoming gradients over the segment, TF's registered gradient.
    means = jnp.einsum("rij,ri->rj", onehot, flat) / jnp.maximum(onehot.sum(1), 1)
    out = jnp.take_along_axis(means, seg, 1)
    return out.reshape(x.shape), seg.reshape(x.shape)


def isotonic_regression(inputs, decreasing=True, axis=-1):
    """The least-squares monotone fit along ``axis`` (non-increasing by default)
    and each entry's segment id (int32): the pool-adjacent-violators algorithm.
    Integer inputs give float64 (float16 and bfloat16 stay themselves)."""
    x = _t(inputs)
    if not jnp.issubdtype(x.dtype, jnp.floating):
        x = _cast(x, "float64")
    axis = int(axis) % x.ndim if x.ndim else 0
    moved = _np.moveaxis(x, axis, -1)
    out, seg = _call(_isotonic_fn, (moved, bool(decreasing)))
    return _IsotonicRegression(_np.moveaxis(out, -1, axis), _np.moveaxis(seg, -1, axis))


_IsotonicRegression = collections.namedtuple("IsotonicRegression",
                                                           ["output", "segments"])


# sampled losses -------------------------------------------------------------------------
_ComputeAccidentalHits = collections.namedtuple(
    "ComputeAccidentalHits", ["indices", "ids", "weights"])


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Where a sampled candidate equals one of a row's true classes: ``(indices``
    int32 rows, ``ids`` int64 positions in ``sampled_candidates``, ``weights``
    float32 ``-FLOAT_MAX)``, row by row and true class by true class; a candidate
    sampled twice is found at its last position, as in TF."""
    from ..extend import constant
    from .errors import InvalidArgumentError
    tc = _concrete(_t(true_classes), "true_classes")
    sc = _concrete(_t(sampled_candidates), "sampled_candidates")
    if tc.ndim != 2 or tc.shape[1] != num_true:
        raise InvalidArgumentError(f"true_classes must be a matrix with {num_true} columns, "
                                   f"got shape {list(tc.shape)}")
    if sc.ndim != 1:
        raise InvalidArgumentError("sampled_candidates must be a vector")
    pos = {v: j for j, v in enumerate(sc.tolist())}
    hits = [(i, pos[v]) for i, row in enumerate(tc.tolist()) for v in row if v in pos]
    rows = np.asarray([i for i, _ in hits], np.int32)
    ids = np.asarray([j for _, j in hits], np.int64)
    weights = np.full(len(hits), -np.finfo(np.float32).max, np.float32)
    return _ComputeAccidentalHits(constant(rows), constant(ids), constant(weights))


def _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                    sampled_values, subtract_log_q, remove_accidental_hits, seed):
    """TF's ``_compute_sampled_logits``: logits of the true classes and of the
    sampled ones (``[batch, num_true + num_sampled]``) and their target labels."""
    from . import random as _random
    if isinstance(weights, (list, tuple)):
        # TF 2 shards by "div": the shards in order are the table's rows in order.
        weights = weights[0] if len(weights) == 1 else _np.concatenate(
            [_t(w) for w in weights], axis=0)
    x = _t(inputs)
    labels = _cast(_t(labels), "int64")
    labels_flat = _np.reshape(labels, [-1])
    if sampled_values is None:
        sampled_values = _random.log_uniform_candidate_sampler(
            labels, num_true, num_sampled, True, num_classes, seed=seed)
    sampled, true_expected, sampled_expected = (_stop_gradient(_t(s)) for s in sampled_values)
    sampled = _cast(sampled, "int64")
    all_ids = _np.concatenate([labels_flat, sampled], 0)
    all_w = embedding_lookup(weights, all_ids)
    if all_w.dtype != x.dtype:
        all_w = _cast(all_w, x.dtype)
    n_true = labels_flat.shape[0]
    true_w, sampled_w = all_w[:n_true], all_w[n_true:]
    sampled_logits = _np.matmul(x, _np.transpose(sampled_w))
    all_b = embedding_lookup(biases, all_ids)
    if all_b.dtype != x.dtype:
        all_b = _cast(all_b, x.dtype)
    true_b, sampled_b = all_b[:n_true], all_b[n_true:]
    dim = true_w.shape[1]
    dots = _np.expand_dims(x, 1) * _np.reshape(true_w, [-1, num_true, dim])
    true_logits = _np.sum(dots, axis=-1) + _np.reshape(true_b, [-1, num_true])
    sampled_logits = sampled_logits + sampled_b
    if remove_accidental_hits:
        rows, ids, w = compute_accidental_hits(labels, sampled, num_true)
        mask = np.zeros((labels.shape[0], sampled.shape[0]), np.float32)
        mask[rows.numpy(), ids.numpy()] = w.numpy()
        sampled_logits = sampled_logits + _cast(mask, sampled_logits.dtype)
    if subtract_log_q:
        true_logits = true_logits - _np.log(true_expected)
        sampled_logits = sampled_logits - _np.log(sampled_expected)
    out_logits = _np.concatenate([true_logits, sampled_logits], 1)
    out_labels = _np.concatenate([_np.ones_like(true_logits) / num_true,
                                  _np.zeros_like(sampled_logits)], 1)
    return out_logits, out_labels


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, name="nce_loss"):
    """Per-example noise-contrastive estimation loss (``[batch]``): logistic
    losses of the true classes (labels ``1/num_true``) and of ``num_sampled``
    classes from ``sampled_values`` (or ``tf.random.log_uniform_candidate_sampler``),
    each logit less the log of its expected count; TF's ``_compute_sampled_logits``."""
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                                      num_true, sampled_values, True, remove_accidental_hits,
                                      None)
    return _np.sum(sigmoid_cross_entropy_with_logits(labels=targets, logits=logits), axis=1)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True, seed=None,
                         name="sampled_softmax_loss"):
    """Per-example softmax cross-entropy over the true classes and ``num_sampled``
    sampled ones (``[batch]``), logits less the log of their expected counts;
    sampled classes equal to a true class are removed (``remove_accidental_hits``)."""
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                                      num_true, sampled_values, True, remove_accidental_hits,
                                      seed)
    return softmax_cross_entropy_with_logits(_stop_gradient(targets), logits)
