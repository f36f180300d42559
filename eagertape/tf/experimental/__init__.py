"""``tf.experimental``: its ``numpy`` namespace (TF's NumPy API), extension types
(``ExtensionType``, ``BatchableExtensionType``) and the dispatch decorators that
let TF's functions take them; ``DynamicRaggedShape`` and ``RowPartition`` (a
RaggedTensor's shape, ``tf.shape(rt)``).

>>> import eagertape.tf as tf
>>> tnp = tf.experimental.numpy
>>> tnp.sum(tnp.arange(4.0) * 2).numpy()
np.float64(12.0)
"""
import types as _types

from .._util import _Unsupported
from . import numpy  # noqa: F401
from .._extension_type import (BatchableExtensionType, ExtensionType,  # noqa: F401
                               ExtensionTypeSpec, dispatch_for_api,
                               dispatch_for_binary_elementwise_apis,
                               dispatch_for_unary_elementwise_apis, unregister_dispatch_for)
from .._extension_type import as_dict as _as_dict
from .._ragged_shape import DynamicRaggedShape, RowPartition  # noqa: F401

extension_type = _types.SimpleNamespace(as_dict=_as_dict)

__getattr__ = _Unsupported("tf.experimental")
