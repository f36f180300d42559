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

from .. import _connected
from .. import nn as _nn
from .. import numpy as _np
from .._primitive import call as _call
from .._tensor import _as_dtype, _convert_operand, _TensorLike
from .._errors import InvalidArgumentError
from ._util import _Unsupported, hinted as _hinted, same_dtype as _same, tensor as _t

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

    >>> tf.math.add_n([tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])]).numpy()
    array([4., 6.], dtype=float32)
    """
    if isinstance(inputs, _TensorLike) or not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("argument `inputs` of add_n must be a non-empty list of tensors")
    xs = _same(*inputs, fail=InvalidArgumentError)
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
    return _connected.reading_inputs(jnp.prod)(x, axis=axis, keepdims=keepdims)


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


# tf.math.softmax and tf.math.log_softmax are tf.nn's (the same functions in TF).
from .nn import log_softmax, softmax  # noqa: E402,F401  (nn imports this module)
