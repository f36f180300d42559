"""``tf.TensorSpec``: a shape and dtype, for ``tf.function``'s ``input_signature``
and ``tf.data``'s ``element_spec``; re-exported by ``eagertape.tf``.

>>> import eagertape.tf as tf
>>> tf.TensorSpec([None, 3], tf.float32)
TensorSpec(shape=(None, 3), dtype=tf.float32, name=None)
"""
import numpy as np

from ..extend import DType, TensorShape, as_dtype as _as_dtype


class TensorSpec:
    """``tf.TensorSpec``: a shape (None for any size) and dtype, for ``input_signature``."""

    def __init__(self, shape, dtype=np.float32, name=None):
        # An unknown rank stays None (TF: TensorShape(None)): tf.function reads it so.
        self.shape = None if shape is None else TensorShape(shape)
        dtype = _as_dtype(dtype)
        # TF's DType (tf.string's name is TF's), equal to the NumPy dtype it stands for.
        self.dtype, self.name = (None if dtype is None else DType(dtype)), name

    def __repr__(self):
        shape = "<unknown>" if self.shape is None else self.shape     # (TF's unknown rank)
        return f"TensorSpec(shape={shape}, dtype=tf.{self.dtype.name}, name={self.name!r})"

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self.dtype == other.dtype
                and self.name == other.name and (self.shape is None) == (other.shape is None)
                and (self.shape is None or tuple(self.shape) == tuple(other.shape)))

    def __hash__(self):
        return hash((None if self.shape is None else tuple(self.shape), self.dtype))
