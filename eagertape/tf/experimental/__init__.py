"""``tf.experimental``: its ``numpy`` namespace (TF's NumPy API).

>>> import eagertape.tf as tf
>>> tnp = tf.experimental.numpy
>>> tnp.sum(tnp.arange(4.0) * 2).numpy()
np.float64(12.0)
"""
from .._util import _Unsupported
from . import numpy  # noqa: F401

__getattr__ = _Unsupported("tf.experimental")
