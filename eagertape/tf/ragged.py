"""``tf.ragged``: making and transforming ``tf.RaggedTensor`` (rows of different
lengths; what is in and how it runs: eagertape/tf/_ragged.py).

>>> import eagertape.tf as tf
>>> rt = tf.ragged.constant([[3, 1, 4], [1], [5, 9]])
>>> tf.ragged.map_flat_values(tf.math.multiply, rt, 10).to_list()
[[30, 10, 40], [10], [50, 90]]
>>> tf.reduce_max(rt, axis=1).numpy()
array([4, 1, 9], dtype=int32)
"""
from ._ragged import (RaggedTensor, RaggedTensorSpec, boolean_mask, constant,  # noqa: F401
                      map_flat_values, row_splits_to_segment_ids,
                      segment_ids_to_row_splits, stack_dynamic_partitions)
from ._ragged import stack as _stack
from ._ragged import ragged_range as range  # noqa: A004  (TF's name)
from ._util import _Unsupported, left_out

_unsupported = _Unsupported("tf.ragged", left_out(
    "feature crosses of string columns are not built (nor tf.sparse.cross); join each "
    "row's values with tf.strings.join and hash them with tf.strings.to_hash_bucket_fast",
    "cross cross_hashed"))


def stack(values, axis=0, name=None):
    """``tf.ragged.stack``: ``values`` (RaggedTensors, or dense tensors made ragged)
    stacked along a new ``axis`` (0 or 1), a RaggedTensor.

    >>> import eagertape.tf as tf
    >>> tf.ragged.stack([tf.ragged.constant([[1, 2], [3]]),
    ...                  tf.ragged.constant([[4], [5, 6]])], axis=1).to_list()
    [[[1, 2], [4]], [[3], [5, 6]]]
    """
    return _stack(values, axis)


def __getattr__(name):
    return _unsupported(name)
