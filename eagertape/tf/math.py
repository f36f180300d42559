"""``tf.math`` on eagertape: TF names and arguments over the recorded jax.numpy.

Where TF's gradient differs from JAX's the function is written so the tape
gives TF's: ``abs`` (0 at 0), ``maximum``/``minimum`` (a tie goes to the first
argument).

Arguments are converted by TF's rules, not NumPy's (``_util.same_dtype`` and
``_util.hinted``): a Python number, list or NumPy array takes the dtype of the
tensor it meets, and tensors of different dtypes raise InvalidArgumentError.

>>> import eagertape.tf as tf
>>> tf.math.reduce_sum(tf.constant([[1.0, 2.0], [3.0, 4.0]]), axis=1).numpy()
array([3., 7.], dtype=float32)
"""
import collections
import operator

import numpy as np

import jax.numpy as jnp

from .. import nn as _nn
from .. import numpy as _np
from ..extend import call as _call, stop_gradient
from ..extend import convert_operand as _convert_operand
from ..extend import as_dtype as _as_dtype, TensorLike as _TensorLike
from ..extend import InvalidArgumentError
from ..extend import reading_inputs as _reading_inputs
from ._util import _Unsupported, hinted as _hinted, same_dtype as _same, tensor as _t
from ._util import each_alone as _each_alone

__getattr__ = _Unsupported("tf.math")


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


# -- elementwise ----------------------------------------------------------------
# The operators, once the arguments are converted: they carry TF's dtype checks.
def add(x, y, name=None): return operator.add(*_hinted(x, y))
def subtract(x, y, name=None): return operator.sub(*_same(x, y))
def multiply(x, y, name=None): return _np.multiply(*_same(x, y))
def negative(x, name=None): return -_t(x)
def pow(x, y, name=None): return operator.pow(*_same(x, y))
def square(x, name=None): return _np.square(_t(x))
def sqrt(x, name=None): return _np.sqrt(_t(x))
def rsqrt(x, name=None): return 1.0 / _np.sqrt(_t(x))
def exp(x, name=None): return _np.exp(_t(x))
def expm1(x, name=None): return _np.expm1(_t(x))
def log(x, name=None): return _np.log(_t(x))
def log1p(x, name=None): return _np.log1p(_t(x))
def sin(x, name=None): return _np.sin(_t(x))
def cos(x, name=None): return _np.cos(_t(x))
def tan(x, name=None): return _np.tan(_t(x))
def tanh(x, name=None): return _np.tanh(_t(x))
def sinh(x, name=None): return _np.sinh(_t(x))
def cosh(x, name=None): return _np.cosh(_t(x))
def asin(x, name=None): return _np.arcsin(_t(x))
def acos(x, name=None): return _np.arccos(_t(x))
def atan(x, name=None): return _np.arctan(_t(x))
def atan2(y, x, name=None): return _np.arctan2(*_same(y, x))
def sigmoid(x, name=None): return _nn.sigmoid(_t(x))
def softplus(features, name=None): return _nn.softplus(_t(features))
def reciprocal(x, name=None): return 1.0 / _t(x)
def erf(x, name=None): return _call(_erf, (_t(x),))
def lgamma(x, name=None): return _call(_lgamma, (_t(x),))
def floor(x, name=None): return _np.floor(_t(x))
def ceil(x, name=None): return _np.ceil(_t(x))
def round(x, name=None): return _np.round(_t(x))      # half to even, as TF
def sign(x, name=None): return _np.sign(_t(x))
def is_nan(x, name=None): return _np.isnan(_t(x))
def is_inf(x, name=None): return _np.isinf(_t(x))
def is_finite(x, name=None): return _np.isfinite(_t(x))
def floordiv(x, y, name=None): return operator.floordiv(*_same(x, y))
def mod(x, y, name=None): return operator.mod(*_same(x, y))
def real(input, name=None): return _np.real(_t(input))
def imag(input, name=None): return _np.imag(_t(input))
def conj(x, name=None): return _np.conj(_t(x))
def equal(x, y, name=None): return _np.equal(*_same(x, y))
def not_equal(x, y, name=None): return _np.not_equal(*_same(x, y))
def less(x, y, name=None): return _np.less(*_same(x, y))
def less_equal(x, y, name=None): return _np.less_equal(*_same(x, y))
def greater(x, y, name=None): return _np.greater(*_same(x, y))
def greater_equal(x, y, name=None): return _np.greater_equal(*_same(x, y))
def logical_and(x, y, name=None): return _np.logical_and(*_bools(x, y))
def logical_or(x, y, name=None): return _np.logical_or(*_bools(x, y))
def logical_not(x, name=None): return _np.logical_not(*_bools(x))


def squared_difference(x, y, name=None):
    x, y = _same(x, y)
    return _np.square(x - y)


def _bools(*values):
    values = _same(*values)
    if values[0].dtype != np.bool_:
        raise InvalidArgumentError(f"logical ops take bool tensors, got {values[0].dtype}")
    return values


def _erf(x):
    from jax.scipy.special import erf as f
    return f(x)


def _lgamma(x):
    from jax.scipy.special import gammaln
    return gammaln(x)


def divide(x, y, name=None):
    """``x / y`` as TF's ``divide``: ``x``, if not a tensor, converted to ``y``'s dtype,
    then the ``/`` operator (integers divide in float64, or float32 for 8/16 bits)."""
    if not isinstance(x, _TensorLike):
        x = _t(_convert_operand(x, y.dtype)) if isinstance(y, _TensorLike) else _t(x)
    return x / y


def truediv(x, y, name=None):
    """``x / y`` as TF's ``truediv``: ``y`` converted with ``x``'s dtype as a hint; a
    dtype mismatch is a TypeError; integers divide in float64 (float32 for 8/16 bits)."""
    x, y = _hinted(x, y, TypeError)
    return x / y


def divide_no_nan(x, y, name=None):
    """``x / y``, and 0 where ``y`` is 0 (the gradient too)."""
    x, y = _hinted(x, y, TypeError)
    safe = _np.where(y == 0, _np.ones_like(y), y)
    return _np.where(y == 0, _np.zeros_like(x * y), x / safe)


def abs(x, name=None):
    """``|x|``; its gradient at 0 is 0, as TF's (JAX's is 1)."""
    x = _t(x)
    if np.issubdtype(x.dtype, np.complexfloating):
        return _np.abs(x)
    return x * _np.sign(x)


def maximum(x, y, name=None):
    """Elementwise max; at a tie the gradient goes to ``x``, as TF's (JAX splits it)."""
    x, y = _same(x, y)
    return _np.where(_np.greater_equal(x, y), x, y)


def minimum(x, y, name=None):
    """Elementwise min; at a tie the gradient goes to ``x``, as TF's (JAX splits it)."""
    x, y = _same(x, y)
    return _np.where(_np.less_equal(x, y), x, y)


# -- reductions -------------------------------------------------------------------
def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of one shape and dtype (one op).

    >>> import eagertape.tf as tf
    >>> tf.math.add_n([tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])]).numpy()
    array([4., 6.], dtype=float32)
    """
    if isinstance(inputs, _TensorLike) or not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("argument `inputs` of add_n must be a non-empty list of tensors")
    xs = _each_alone(*inputs)      # TF converts each input alone
    shapes = {tuple(x.shape) for x in xs}
    if len(shapes) > 1:
        raise InvalidArgumentError(f"add_n: the inputs must have one shape, got {sorted(shapes)}")
    return xs[0] if len(xs) == 1 else _call(_sum_of, (xs,))


def _sum_of(xs):
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    return total


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    x = _t(input_tensor)
    return _np.sum(x, axis=_axis(axis), keepdims=bool(keepdims), dtype=_same_int(x))


def _same_int(x):
    # TF keeps an integer tensor's dtype (NumPy/JAX would sum int32 in int64).
    return x.dtype if np.issubdtype(x.dtype, np.integer) else None


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    x = _t(input_tensor)
    if np.issubdtype(x.dtype, np.integer):      # TF: integer mean, truncated
        s = _np.sum(x, axis=_axis(axis), keepdims=bool(keepdims))
        return _np.trunc(s / _count(x, axis)).astype(x.dtype)
    return _np.mean(x, axis=_axis(axis), keepdims=bool(keepdims))


def _count(x, axis):
    if axis is None:
        return max(x.size, 1)
    axes = [axis] if isinstance(axis, int) else list(axis)
    return int(np.prod([x.shape[a] for a in axes]))


def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    return _np.max(_t(input_tensor), axis=_axis(axis), keepdims=bool(keepdims))


def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    return _np.min(_t(input_tensor), axis=_axis(axis), keepdims=bool(keepdims))


def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    x = _t(input_tensor)
    if not np.issubdtype(x.dtype, np.inexact):
        return _np.prod(x, axis=_axis(axis), keepdims=bool(keepdims), dtype=_same_int(x))
    return _call(_prod, (x, _axis(axis), bool(keepdims)))


def _prod(x, axis, keepdims):
    # TF's ProdGrad reads the input even where the product has one factor (an
    # axis of size 1), so a second derivative is zeros there, not None.
    return _reading_inputs(jnp.prod)(x, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    return _np.std(_t(input_tensor), axis=_axis(axis), keepdims=bool(keepdims))


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    return _np.var(_t(input_tensor), axis=_axis(axis), keepdims=bool(keepdims))


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    return _nn.logsumexp(_t(input_tensor), axis=_axis(axis), keepdims=bool(keepdims))


def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    return _np.any(_t(input_tensor), axis=_axis(axis), keepdims=bool(keepdims))


def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    return _np.all(_t(input_tensor), axis=_axis(axis), keepdims=bool(keepdims))


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    x = _t(input_tensor)
    return _np.sqrt(_np.sum(x * x, axis=_axis(axis), keepdims=bool(keepdims)))


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    x = _t(x)
    if reverse:
        x = _np.flip(x, axis)
    out = _np.cumsum(x, axis=axis, dtype=_same_int(x))
    if exclusive:
        out = out - x
    return _np.flip(out, axis) if reverse else out


def argmax(input, axis=None, output_type="int64", name=None):
    """Index of the largest value along ``axis`` (default 0, as TF), int64 by default."""
    return _np.argmax(_t(input), axis=0 if axis is None else axis).astype(_as_dtype(output_type))


def argmin(input, axis=None, output_type="int64", name=None):
    return _np.argmin(_t(input), axis=0 if axis is None else axis).astype(_as_dtype(output_type))


TopKV2 = collections.namedtuple("TopKV2", "values indices")


def top_k(input, k=1, sorted=True, name=None):
    """The ``k`` largest entries of the last axis and their int32 indices."""
    x = _t(input)
    if not isinstance(k, int) or k < 0 or k > x.shape[-1]:
        from .errors import InvalidArgumentError
        raise InvalidArgumentError(f"argument `k`: input must have at least k={k} columns, "
                                   f"has {x.shape[-1] if x.ndim else 0}")
    values, indices = _call(_top_k, (x, k))
    return TopKV2(values, indices.astype("int32"))


def _top_k(x, k):
    import jax
    return jax.lax.top_k(x, k)


# -- more elementwise: jax.numpy and jax.scipy.special under TF's names ---------
def acosh(x, name=None): return _np.arccosh(_t(x))
def asinh(x, name=None): return _np.arcsinh(_t(x))
def atanh(x, name=None): return _np.arctanh(_t(x))
def rint(x, name=None): return _np.round(_t(x))       # half to even
def angle(input, name=None): return _np.angle(_t(input))
def log_sigmoid(x, name=None): return -softplus(-_t(x))
def softsign(features, name=None): return _t(features) / (1.0 + abs(features))
def floormod(x, y, name=None): return mod(x, y)
def truncatediv(x, y, name=None): return _call(_truncatediv, tuple(_same(x, y)))
def truncatemod(x, y, name=None):   # TF registers no gradient for TruncateMod
    return _call(jnp.fmod, tuple(_same(x, y)), constant_output=True)
def logical_xor(x, y, name=None): return _np.logical_xor(*_bools(x, y))
def scalar_mul(scalar, x, name=None):
    x = _t(x)    # TF converts the scalar with x's dtype (inside a tf.function too)
    return multiply(_t(_convert_operand(scalar, x.dtype)), x)
def nextafter(x1, x2, name=None): return _np.nextafter(*_same(x1, x2))


def _truncatediv(x, y):
    if jnp.issubdtype(x.dtype, jnp.integer):
        q = jnp.abs(x) // jnp.abs(y)
        return jnp.where((x < 0) != (y < 0), -q, q)
    return x / y


def _special(name, constant=()):
    """jax.scipy.special's ``name``; the arguments at ``constant`` get no gradient
    (None), as TF registers none for them (betainc's a and b, zeta's x, ...)."""
    import jax
    import jax.scipy.special as sp
    f = getattr(sp, name)

    def fn(*a):
        return f(*(jax.lax.stop_gradient(v) if i in constant else v for i, v in enumerate(a)))
    fn.__name__ = name
    return fn


_SPECIAL = {n: _special(n, c) for n, c in (
    ("digamma", ()), ("erfc", ()), ("erfinv", ()), ("ndtri", ()), ("i0", ()), ("i0e", ()),
    ("i1", ()), ("i1e", ()), ("betainc", (0, 1)), ("gammainc", ()), ("gammaincc", ()),
    ("zeta", (0,)), ("xlog1py", ()))}


def digamma(x, name=None): return _call(_SPECIAL["digamma"], (_t(x),))
def erfc(x, name=None): return _call(_SPECIAL["erfc"], (_t(x),))
def erfinv(x, name=None): return _call(_SPECIAL["erfinv"], (_t(x),))
def ndtri(x, name=None): return _call(_SPECIAL["ndtri"], (_t(x),))
def erfcinv(x, name=None): return -ndtri(0.5 * _t(x)) * np.float32(1 / np.sqrt(2.0))
def bessel_i0(x, name=None): return _call(_SPECIAL["i0"], (_t(x),))
def bessel_i0e(x, name=None): return _call(_SPECIAL["i0e"], (_t(x),))
def bessel_i1(x, name=None): return _call(_SPECIAL["i1"], (_t(x),))
def bessel_i1e(x, name=None): return _call(_SPECIAL["i1e"], (_t(x),))
def igamma(a, x, name=None): return _call(_SPECIAL["gammainc"], tuple(_same(a, x)))
def igammac(a, x, name=None): return _call(_SPECIAL["gammaincc"], tuple(_same(a, x)))
def betainc(a, b, x, name=None): return _call(_SPECIAL["betainc"], tuple(_same(a, b, x)))
def polygamma(a, x, name=None): return _call(_polygamma, tuple(_same(a, x)))


def _polygamma(a, x):
    # TF takes the order as a float tensor (of whole numbers), JAX as an integer;
    # TF gives it no gradient.
    import jax
    from jax.scipy.special import polygamma as f
    return f(jax.lax.stop_gradient(a).astype(jnp.int32), x).astype(x.dtype)
def zeta(x, q, name=None): return _call(_SPECIAL["zeta"], tuple(_same(x, q)))
def xlog1py(x, y, name=None): return _call(_SPECIAL["xlog1py"], tuple(_same(x, y)))


def xlogy(x, y, name=None):
    """``x * log(y)``, 0 where ``x`` is 0 (its gradients too, as TF's)."""
    x, y = _same(x, y)
    safe = _np.where(x == 0, _np.ones_like(y), y)
    return _np.where(x == 0, _np.zeros_like(x), x * _np.log(safe))


def xdivy(x, y, name=None):
    """``x / y``, 0 where ``x`` is 0 (its gradients too, as TF's)."""
    x, y = _same(x, y)
    safe = _np.where(x == 0, _np.ones_like(y), y)
    return _np.where(x == 0, _np.zeros_like(x), x / safe)


def reciprocal_no_nan(x, name=None):
    """``1 / x``, 0 where ``x`` is 0."""
    x = _t(x)
    return divide_no_nan(_np.ones_like(x), x)


def multiply_no_nan(x, y, name=None):
    """``x * y``, 0 where ``y`` is 0 even if ``x`` is infinite or NaN."""
    x, y = _same(x, y)
    return _np.where(y == 0, _np.zeros_like(x * y), _np.where(y == 0, _np.zeros_like(x), x) * y)


def lbeta(x, name=None):
    """``log|B(x)|`` over the last axis: sum of lgamma minus lgamma of the sum."""
    x = _t(x)
    return reduce_sum(lgamma(x), axis=-1) - lgamma(reduce_sum(x, axis=-1))


def polyval(coeffs, x, name=None):
    """``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule, as TF."""
    x = _t(x)
    if not coeffs:
        return _np.zeros_like(x)
    coeffs = [_t(c) for c in coeffs]
    p = coeffs[0]
    for c in coeffs[1:]:
        p = c + p * x
    return p


def count_nonzero(input, axis=None, keepdims=False, dtype="int64", name=None):
    x = _t(input)
    return _np.sum((x != 0).astype(_as_dtype(dtype)), axis=_axis(axis), keepdims=bool(keepdims))


def zero_fraction(value, name=None):
    x = _t(value)
    return _np.mean((x == 0).astype("float32"))


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    x = _t(x)
    if reverse:
        x = _np.flip(x, axis)
    if exclusive:
        ones = _np.ones_like(_np.take(x, _np.arange(1), axis=axis))
        x = _np.concatenate([ones, _np.take(x, _np.arange(x.shape[axis] - 1), axis=axis)], axis)
    out = _np.cumprod(x, axis=axis, dtype=_same_int(x))
    return _np.flip(out, axis) if reverse else out


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    x = _t(x)
    if reverse:
        x = _np.flip(x, axis)
    out = _call(_cumlogsumexp, (x, axis, bool(exclusive)))
    return _np.flip(out, axis) if reverse else out


def _cumlogsumexp(x, axis, exclusive):
    import jax
    out = jax.lax.cumlogsumexp(x, axis=axis % x.ndim)
    if exclusive:
        pad = [(0, 0)] * x.ndim
        pad[axis % x.ndim] = (1, 0)
        out = jnp.pad(out, pad, constant_values=-jnp.inf)
        out = jax.lax.slice_in_dim(out, 0, x.shape[axis], axis=axis % x.ndim)
    return out


def is_non_decreasing(x, name=None):
    x = _np.reshape(_t(x), (-1,))
    return _np.all(x[1:] >= x[:-1])


def is_strictly_increasing(x, name=None):
    x = _np.reshape(_t(x), (-1,))
    return _np.all(x[1:] > x[:-1])


def invert_permutation(x, name=None):
    x = _t(x)
    return _np.argsort(x).astype(x.dtype)


def l2_normalize(x, axis=None, epsilon=1e-12, dim=None, name=None):
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))`` (also ``tf.nn.l2_normalize``)."""
    x = _t(x)
    sq = _np.sum(x * x, axis=axis if dim is None else dim, keepdims=True)
    return x * rsqrt(_np.maximum(sq, epsilon))


def softmax(logits, axis=None, name=None):
    """``exp(x) / sum(exp(x))`` along ``axis`` (default the last; also ``tf.nn``'s)."""
    return _nn.softmax(_t(logits), axis=-1 if axis is None else axis)


def log_softmax(logits, axis=None, name=None):
    """``x - logsumexp(x)`` along ``axis`` (default the last; also ``tf.nn``'s)."""
    return _nn.log_softmax(_t(logits), axis=-1 if axis is None else axis)


def in_top_k(targets, predictions, k, name=None):
    """Whether each target's prediction is among the row's ``k`` largest (ties in)."""
    p = _t(predictions)
    t = _t(targets)
    target = _np.take_along_axis(p, _np.expand_dims(t.astype("int32"), -1), axis=-1)
    return _np.sum((p > target).astype("int32"), axis=-1) < k


# -- segments: jax.ops.segment_* over TF's (data, segment_ids, num_segments) --------
def _segment(kind, data, segment_ids, num_segments, sorted_ids):
    data, ids = _t(data), _t(segment_ids)
    if num_segments is None:
        from ._util import concrete
        v = concrete(ids, "segment_ids")
        num_segments = int(v.max()) + 1 if v.size else 0
    return _call(_SEGMENT[kind], (data, ids, int(num_segments), sorted_ids))


def _segment_fn(kind):
    import jax

    def fn(data, ids, n, sorted_ids):
        if kind == "mean" or kind == "sqrt_n":
            total = jax.ops.segment_sum(data, ids, n, indices_are_sorted=sorted_ids)
            count = jax.ops.segment_sum(jnp.ones(ids.shape, data.dtype), ids, n,
                                        indices_are_sorted=sorted_ids)
            count = count.reshape(count.shape + (1,) * (data.ndim - ids.ndim))
            denom = count if kind == "mean" else jnp.sqrt(count)
            return total / jnp.maximum(denom, 1)
        if kind == "prod":
            # As a product over a mask: JAX's segment_prod has no gradient for
            # repeated ids, and TF's (UnsortedSegmentProdGrad) is this product's.
            mask = ids[None] == jnp.arange(n).reshape((n,) + (1,) * ids.ndim)
            mask = mask.reshape(mask.shape + (1,) * (data.ndim - ids.ndim))
            return jnp.prod(jnp.where(mask, data[None], jnp.ones_like(data[None])),
                            axis=tuple(range(1, ids.ndim + 1)))
        f = getattr(jax.ops, f"segment_{kind}")
        out = f(data, ids, n, indices_are_sorted=sorted_ids)
        if kind in ("max", "min") and sorted_ids:
            # TF's sorted segment_max/min: 0 for an empty segment (the unsorted: the
            # dtype's lowest/highest, as JAX).
            count = jax.ops.segment_sum(jnp.ones(ids.shape, jnp.int32), ids, n)
            count = count.reshape(count.shape + (1,) * (data.ndim - ids.ndim))
            out = jnp.where(count > 0, out, jnp.zeros_like(out))
        return out
    fn.__name__ = f"segment_{kind}"
    return fn


_SEGMENT = {k: _segment_fn(k) for k in ("sum", "prod", "max", "min", "mean", "sqrt_n")}


def segment_sum(data, segment_ids, name=None): return _segment("sum", data, segment_ids, None, True)
def segment_prod(data, segment_ids, name=None): return _segment("prod", data, segment_ids, None, True)
def segment_max(data, segment_ids, name=None): return _segment("max", data, segment_ids, None, True)
def segment_min(data, segment_ids, name=None): return _segment("min", data, segment_ids, None, True)
def segment_mean(data, segment_ids, name=None): return _segment("mean", data, segment_ids, None, True)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    return _segment("sum", data, segment_ids, _n(num_segments), False)


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    return _segment("prod", data, segment_ids, _n(num_segments), False)


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    return _segment("max", data, segment_ids, _n(num_segments), False)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    return _segment("min", data, segment_ids, _n(num_segments), False)


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    return _segment("mean", data, segment_ids, _n(num_segments), False)


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    return _segment("sqrt_n", data, segment_ids, _n(num_segments), False)


def _n(num_segments):
    from ._util import concrete
    return int(concrete(num_segments, "num_segments")) if isinstance(num_segments, _TensorLike) \
        else int(num_segments)


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype="int32", name=None,
             axis=None, binary_output=False):
    """Counts of each value of the int array ``arr`` (weighted: sums of ``weights``)."""
    from ._util import concrete
    a = _t(arr)
    v = concrete(a, "arr")
    n = int(v.max()) + 1 if v.size else 0
    if minlength is not None:
        n = max(n, int(minlength))
    if maxlength is not None:
        n = min(n, int(maxlength))
    flat = _np.reshape(a, (-1,))
    if weights is None:
        # Integer ops on the array alone (values from n on counted in a segment left
        # out), so a known array's counts are known in a trace too (a size there:
        # tf.repeat's repeats), as TF computes them when its graph runs.
        counts = unsorted_segment_sum(_np.ones_like(flat), _np.minimum(flat, n), n + 1)
        return counts[:n].astype(_as_dtype(dtype))
    keep = flat < n
    ids = _np.where(keep, flat, _np.zeros_like(flat))
    w = _np.reshape(_t(weights), (-1,))
    w = stop_gradient(_np.where(keep, w, _np.zeros_like(w)))   # TF: no gradient (DenseBincount)
    return unsorted_segment_sum(w, ids, n)


def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype="int32",
                     name=None):
    from ._util import concrete
    lab, pred = _t(labels), _t(predictions)
    if num_classes is None:
        num_classes = int(max(concrete(lab, "labels").max(), concrete(pred, "predictions").max())) + 1
    idx = lab.astype("int32") * int(num_classes) + pred.astype("int32")
    w = _np.ones(idx.shape, dtype=_as_dtype(dtype)) if weights is None else \
        _t(weights).astype(_as_dtype(dtype))
    flat = unsorted_segment_sum(w, idx, int(num_classes) ** 2)
    return _np.reshape(flat, (int(num_classes), int(num_classes)))


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    return add_n(inputs)


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """The ``k`` largest entries along ``reduction_dimension`` and their int32
    indices (``jax.lax.approx_max_k``: approximate on TPUs, exact elsewhere)."""
    return _approx_k(operand, k, reduction_dimension, recall_target, True)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """The ``k`` smallest entries along ``reduction_dimension`` and their indices."""
    return _approx_k(operand, k, reduction_dimension, recall_target, False)


def _approx_k(operand, k, dim, recall, largest):
    import jax
    x = _t(operand)
    dim = int(dim) % x.ndim
    if not isinstance(k, int) or not 0 < k <= x.shape[dim]:
        from .errors import InvalidArgumentError
        raise InvalidArgumentError(f"argument `k` must be in [1, {x.shape[dim]}], got {k!r}")
    op = jax.lax.approx_max_k if largest else jax.lax.approx_min_k
    values, indices = _call(lambda v: op(v, k, reduction_dimension=dim,
                                         recall_target=float(recall)), (x,))
    return [values, indices.astype("int32")]


def sobol_sample(dim, num_results, skip=0, dtype="float32", name=None):
    """Points of the Sobol sequence in ``[0, 1)^dim`` after its first ``skip + 1``
    (TF leaves out the origin), with Joe and Kuo's direction numbers as TF's
    (``scipy.stats.qmc.Sobol``, unscrambled)."""
    import warnings

    from scipy.stats import qmc
    from ..extend import convert_to_tensor
    from ..extend import as_dtype as _as_dtype
    dim, n, skip = (int(_t(v).numpy()) if hasattr(v, "numpy") else int(v)
                    for v in (dim, num_results, skip))
    if dim < 1 or n < 0 or skip < 0:
        from .errors import InvalidArgumentError
        raise InvalidArgumentError(f"sobol_sample needs dim >= 1, num_results >= 0 and "
                                   f"skip >= 0, got {dim}, {n}, {skip}")
    engine = qmc.Sobol(dim, scramble=False)
    engine.fast_forward(skip + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # scipy's note on powers of 2
        points = engine.random(n)
    return convert_to_tensor(points.astype(_as_dtype(dtype)))


def realdiv(x, y, name=None):
    """``x / y`` for float and complex tensors (TF's RealDiv has no integer kernel)."""
    x, y = _hinted(x, y)
    if not (np.issubdtype(x.dtype, np.floating) or np.issubdtype(x.dtype, np.complexfloating)):
        raise TypeError(f"tf.realdiv takes float or complex tensors, got {x.dtype.name}; "
                        "use tf.math.truediv or tf.math.floordiv")
    return x / y
