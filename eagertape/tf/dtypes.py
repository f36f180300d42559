"""``tf.dtypes``: TF's dtype names as NumPy dtypes (what eagertape's Tensors carry;
accepted wherever TF takes a ``DType``), ``as_dtype``, ``cast``, ``saturate_cast``
and ``complex``. ``eagertape.tf`` re-exports the dtype names at top level (one
object each).

>>> import eagertape.tf as tf
>>> tf.dtypes.double is tf.float64, tf.dtypes.as_dtype("half") == tf.float16
(True, True)
>>> tf.dtypes.cast(tf.constant([1.7]), tf.dtypes.int8).numpy()
array([1], dtype=int8)
"""
import numpy as np
import jax.numpy as _jnp

from ._util import STRINGS, _Unsupported

DType = np.dtype

float16, bfloat16 = np.dtype("float16"), np.dtype(_jnp.bfloat16)
float32, float64 = np.dtype("float32"), np.dtype("float64")
half, double = float16, float64
int8, int16, int32, int64 = (np.dtype(t) for t in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in ("uint8", "uint16", "uint32", "uint64"))
bool = np.dtype("bool")  # noqa: A001  (TF's name)
complex64, complex128 = np.dtype("complex64"), np.dtype("complex128")


class _Getattr(_Unsupported):
    # as_dtype, cast, saturate_cast and complex are eagertape.tf's own (the same
    # objects), looked up there when first asked: that module imports this one.
    FROM_TF = ("as_dtype", "cast", "saturate_cast", "complex")

    def __call__(self, name):
        if name in self.FROM_TF:
            from .. import tf
            return getattr(tf, name)
        return super().__call__(name)


__getattr__ = _Getattr("tf.dtypes", {
    **dict.fromkeys("qint8 qint16 qint32 quint8 quint16 QUANTIZED_DTYPES".split(),
                    "TF's quantized dtypes have no JAX dtype"),
    "string": STRINGS,
    "resource": "resource handles are TF runtime objects with no JAX dtype",
    "variant": "variant tensors are TF runtime objects with no JAX dtype",
    "experimental": "tf.dtypes.experimental (int4, float8 variants) is not mapped yet",
})


def __dir__():
    return sorted([n for n in globals() if not n.startswith("_")] + list(_Getattr.FROM_TF))
