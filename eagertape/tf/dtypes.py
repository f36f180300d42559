"""``tf.dtypes``: TF's dtype names as ``DType`` objects (what a Tensor's ``dtype``
is: a NumPy dtype with TF's attributes, accepted wherever TF or NumPy takes a
dtype), ``as_dtype``, ``cast``, ``saturate_cast`` and ``complex``.
``eagertape.tf`` re-exports the dtype names at top level (one object each).

>>> import eagertape.tf as tf
>>> tf.dtypes.double is tf.float64, tf.dtypes.as_dtype("half") == tf.float16
(True, True)
>>> tf.dtypes.cast(tf.constant([1.7]), tf.dtypes.int8).numpy()
array([1], dtype=int8)
"""
import builtins as _builtins

import jax as _jax
import numpy as np
import jax.numpy as _jnp

from .. import numpy as _np
from ..extend import call as _call
from ..extend import DType, dtype_category as category
from ..extend import as_dtype as _as_dtype, python_default_dtype as _python_default_dtype, TensorLike as _TensorLike
from ..extend import VariableAlias as _Alias
from ._util import _Unsupported, tensor as _t
from .sparse import SparseTensor as _SparseTensor

float16, bfloat16 = DType("float16"), DType(_jnp.bfloat16)
float32, float64 = DType("float32"), DType("float64")
half, double = float16, float64
int8, int16, int32, int64 = (DType(t) for t in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (DType(t) for t in ("uint8", "uint16", "uint32", "uint64"))
bool = DType("bool")  # noqa: A001  (TF's name)
complex64, complex128 = DType("complex64"), DType("complex128")
# TF's strings: NumPy's object dtype of bytes, held on the host (see _text.py).
string = DType(object)


# as_dtype, cast, saturate_cast and complex: eagertape.tf re-exports them (the
# same objects).
def as_dtype(type_value):
    """The ``DType`` of a name, Python or NumPy type, or dtype (``tf.as_dtype``).

    >>> import eagertape.tf as tf
    >>> tf.as_dtype("float32") is tf.float32, tf.as_dtype(float) is tf.float32
    (True, True)
    """
    return DType(_as_dtype(type_value))


def cast(x, dtype, name=None):
    """Convert to ``dtype``; float to int truncates toward zero, as TF. A Tensor or
    Variable already of ``dtype`` comes back as it is (the same object, as TF's);
    what ``assign`` returns is read then (TF's ``_UnreadVariable`` too).

    A float out of the integer type's range (NaN and infinities too) gives TF's
    CPU answer, not XLA's clamp: the smallest int32 (int64) for int32 (int64),
    and for narrower types that int32 wrapped to their bits (as TF does for
    tensors of a few elements: see ``_float_to_int``).

    >>> import eagertape.tf as tf
    >>> tf.cast(tf.constant([1.7, -1.7]), tf.int32).numpy()
    array([ 1, -1], dtype=int32)
    >>> tf.cast(tf.constant([3e9, float("nan")]), tf.int32).numpy()
    array([-2147483648, -2147483648], dtype=int32)
    """
    dtype = _as_dtype(dtype)
    if isinstance(x, _SparseTensor):            # its values cast, as TF's
        return x.with_values(cast(x.values, dtype))
    if isinstance(x, _TensorLike) and x.dtype == dtype:
        return x.read_value() if isinstance(x, _Alias) else x
    x = _t(x)
    if np.issubdtype(x.dtype, np.complexfloating) and not np.issubdtype(dtype, np.complexfloating):
        x = _np.real(x)
    if dtype.kind in "iu" and category(x.dtype) == "f":
        return _call(_float_to_int, (x, dtype.name))
    return x.astype(dtype)


def _trunc_or_min(x, bits):
    # x86's conversion (cvttss2si/cvttsd2si, what TF's C++ static_cast compiles
    # to): truncation, and the "integer indefinite" (the type's minimum) for NaN,
    # infinities and anything out of range.
    it = _jnp.int32 if bits == 32 else _jnp.int64
    lim = 2.0 ** (bits - 1)
    bad = _jnp.isnan(x) | (x >= lim) | (x < -lim)
    return _jnp.where(bad, _jnp.iinfo(it).min, _jnp.where(bad, 0, x).astype(it))


def _float_to_int(x, name):
    """TF's (CPU) float -> integer cast. int32, int64 and uint64 match TF for any
    value; for int8, int16, uint8, uint16 and uint32, TF's answer out of range
    depends on the tensor's length (its SIMD loop saturates, its scalar tail
    wraps): this is the scalar rule, TF's for tensors of up to 8 elements or so.
    In range, every rule is truncation toward zero."""
    if x.dtype.itemsize < 4:          # float16, bfloat16: TF converts via float32
        x = x.astype(_jnp.float32)
    if name == "int64":
        return _trunc_or_min(x, 64)
    if name == "uint64":
        # The compiler's unsigned conversion: values from 2**63 up are shifted
        # into int64's range and get the top bit back.
        lo = _jax.lax.bitcast_convert_type(_trunc_or_min(x, 64), _jnp.uint64)
        hi = _jax.lax.bitcast_convert_type(_trunc_or_min(x - 2.0 ** 63, 64), _jnp.uint64)
        return _jnp.where(x < 2.0 ** 63, lo, hi | _jnp.uint64(1 << 63))
    # Narrower types: the int32 (uint32: int64) conversion, wrapped to their bits.
    wide = _trunc_or_min(x, 64 if name == "uint32" else 32)
    return wide.astype(name)


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


def complex(real, imag, name=None):  # noqa: A001  (TF's name)
    """``real + i*imag``: complex64 from float32 parts, complex128 from float64."""
    return _call(_jax.lax.complex, (_t(real), _t(imag)))


__getattr__ = _Unsupported("tf.dtypes", {
    **dict.fromkeys("qint8 qint16 qint32 quint8 quint16 QUANTIZED_DTYPES".split(),
                    "TF's quantized dtypes have no JAX dtype"),
    "resource": "resource handles are TF runtime objects with no JAX dtype",
    "variant": "variant tensors are TF runtime objects with no JAX dtype",
    "experimental": "tf.dtypes.experimental (int4, float8 variants) is not mapped yet",
})


def __dir__():
    return sorted(n for n in globals() if not n.startswith("_"))


def _python_constant(value, dtype):
    """TF's ``math_ops.cast(value, dtype)`` of a constant its Python code writes
    (``gelu``'s 0.044715, ``silu``'s ``beta``): the value converted alone first
    (a Python float to float32), then cast, as a NumPy scalar of ``dtype``.

    >>> import numpy as np
    >>> from eagertape.tf.dtypes import _python_constant
    >>> _python_constant(0.3, np.float64) == np.float64(np.float32(0.3))
    np.True_
    """
    if type(value) in (_builtins.bool, int, float):     # (bool: here tf.bool)
        # In NumPy: inside a tf.function a recorded cast would be a traced value.
        alone = _python_default_dtype(np.asarray(value), value)
        return alone.astype(_as_dtype(dtype))[()]
    return np.asarray(cast(value, dtype))[()]
