"""``tf.experimental.numpy`` on the recorded ``jax.numpy`` (``eagertape.numpy``):
TF's 228 NumPy names, each the recorded JAX function of that name (so the tape
differentiates it), taking and returning the facade's Tensor (``ndarray``).

Dtypes follow TF-NumPy's (NumPy's legacy rules): float64 by default, integers
made float64 by the float functions (``sqrt``, ``mean``, ``true_divide``, ...),
and arrays of two dtypes promoted as NumPy does (int32 + float32 is float64),
where JAX would stay in float32. ``experimental_enable_numpy_behavior()`` is
accepted and changes nothing.

>>> import eagertape.tf as tf
>>> tnp = tf.experimental.numpy
>>> tnp.asarray([1.0, 2.0]).dtype, tnp.mean(tnp.asarray([1, 2])).numpy()
(tf.float64, np.float64(1.5))
"""
import functools as _functools

import jax.numpy as _jnp
import numpy as _onp

from ... import numpy as _np
from ...extend import Tensor as ndarray  # noqa: F401
from .._util import _Unsupported

# TF's names (TF 2.21) that are the recorded JAX function of the same name.
_SAME = """abs absolute add all allclose amax amin angle any append arange arccos arccosh
arcsin arcsinh arctan arctan2 arctanh argmax argmin argsort around array array_equal
asarray atleast_1d atleast_2d atleast_3d average bitwise_and bitwise_not bitwise_or
bitwise_xor bool_ broadcast_arrays broadcast_to cbrt ceil clip complex128 complex64
compress concatenate conj conjugate copy cos cosh count_nonzero cross cumprod cumsum
deg2rad diag diag_indices diagflat diagonal diff divide divmod dot dsplit dstack e einsum
empty empty_like equal exp exp2 expand_dims expm1 eye fabs finfo flip fliplr flipud
float16 float32 float64 float_power floor floor_divide full full_like gcd geomspace greater
greater_equal heaviside hsplit hstack hypot identity iinfo imag inexact inf inner int16
int32 int64 int8 isclose iscomplex iscomplexobj isfinite isinf isnan isneginf isposinf
isreal isrealobj isscalar issubdtype ix_ kron lcm less less_equal linspace log log10 log1p
log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor logspace matmul
max maximum mean meshgrid min minimum mod moveaxis multiply nanmean nanprod nansum ndim
negative newaxis nextafter nonzero not_equal ones ones_like outer pad pi polyval positive
power prod promote_types ptp rad2deg ravel real reciprocal remainder repeat reshape
result_type roll rot90 round select shape sign signbit sin sinc sinh size sort split sqrt
square squeeze stack std subtract sum swapaxes take take_along_axis tan tanh tensordot tile
trace transpose tri tril triu true_divide uint16 uint32 uint64 uint8 vander var vdot vsplit
vstack where zeros zeros_like""".split()

globals().update({n: getattr(_np, n) for n in _SAME})

# TF-NumPy's scalar types are NumPy's own (``tnp.float64(0.3)`` is a NumPy float64);
# JAX's of the same names make 32-bit arrays while JAX's 64-bit types are off.
globals().update({n: getattr(_onp, n) for n in """bool_ complex128 complex64 float16 float32
float64 inexact int16 int32 int64 int8 uint16 uint32 uint64 uint8""".split()})
# NumPy's aliases TF keeps (NumPy 2 and JAX dropped them).
float_, int_, complex_ = _onp.float64, _onp.int64, _onp.complex128
asanyarray = ascontiguousarray = _np.asarray
flatten = _np.ravel
fix = _np.trunc     # NumPy's fix, which JAX dropped: rounding toward zero


def _dtype_of(x):
    return getattr(x, "dtype", None) if not isinstance(x, (list, tuple)) else None


def _promoting(fn):
    # NumPy's promotion between arrays (Python scalars stay weak, as in NumPy).
    @_functools.wraps(fn)
    def wrapped(*args, **kwargs):
        dts = [d for d in map(_dtype_of, args) if d is not None]
        if len(set(dts)) > 1:
            target = _onp.result_type(*dts)
            args = [a.astype(target) if _dtype_of(a) is not None else a for a in args]
        return fn(*args, **kwargs)
    return wrapped


def _floating(fn):
    # TF-NumPy makes integer and bool inputs of float functions float64.
    @_functools.wraps(fn)
    def wrapped(*args, **kwargs):
        args = [_np.asarray(a).astype("float64") if isinstance(a, (list, tuple)) or (
            _dtype_of(a) is not None and not _onp.issubdtype(_dtype_of(a), _onp.inexact))
            else a for a in args]
        return fn(*args, **kwargs)
    return wrapped


for _n in """add subtract multiply divide true_divide power float_power maximum minimum
        arctan2 hypot logaddexp logaddexp2 mod remainder floor_divide matmul dot inner outer
        tensordot kron vdot heaviside nextafter copysign""".split():
    if _n in globals():
        globals()[_n] = _promoting(globals()[_n])
for _n in """sqrt cbrt exp exp2 expm1 log log10 log1p log2 sin cos tan sinh cosh tanh arcsin
        arccos arctan arcsinh arccosh arctanh deg2rad rad2deg reciprocal sinc mean std var
        average nanmean true_divide divide""".split():
    globals()[_n] = _floating(globals()[_n])


def tri(N, M=None, k=0, dtype=None):
    """Ones at and below the ``k``-th diagonal; float64 by default, as TF-NumPy."""
    return _np.tri(N, M, k, dtype=dtype or "float64")


def pad(array, pad_width, mode="constant", **kwargs):
    """``array`` padded (``constant`` by default, as NumPy)."""
    return _np.pad(array, pad_width, mode=mode, **kwargs)


def take(a, indices, axis=None, out=None, mode="clip"):
    """Entries of ``a`` at ``indices`` (a list taken as an array)."""
    return _np.take(a, _np.asarray(indices), axis=axis, mode=mode)


def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """TF's switch to NumPy's behaviour (operators, promotion) on its Tensors:
    eagertape's Tensors behave so already; accepted, nothing changes."""


__getattr__ = _Unsupported("tf.experimental.numpy", {
    "string_": "JAX has no string dtype",
    "unicode_": "JAX has no string dtype",
    "object_": "JAX arrays hold numbers only (no object dtype)",
    "random": "tf.experimental.numpy.random is not mapped; use tf.random (stateful, TF's "
              "seeding) or eagertape.numpy with jax.random keys",
})
