"""``tf.train``'s Example protos: ``Example``, ``Features``, ``Feature``,
``BytesList``, ``FloatList``, ``Int64List``, ``SequenceExample``, ``FeatureList``
and ``FeatureLists``, the records of TFRecord files.

They are real protocol-buffer messages with TF's definitions
(``tensorflow/core/example/*.proto``), so their bytes are TF's: a record written
by either reads in the other. They live in eagertape's own descriptor pool, so
TF's classes and these coexist in one process (the two are distinct classes;
convert by bytes, ``tf.train.Example.FromString(tf_example.SerializeToString())``).
Needs ``protobuf`` (``pip install 'eagertape[io]'``), imported on first use.

>>> import eagertape.tf as tf
>>> ex = tf.train.Example(features=tf.train.Features(feature={
...     "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[7]))}))
>>> ex.SerializeToString()
b'\\n\\x10\\n\\x0e\\n\\x05label\\x12\\x05\\x1a\\x03\\n\\x01\\x07'
>>> tf.train.Example.FromString(ex.SerializeToString()).features.feature["label"]
int64_list {
  value: 7
}
<BLANKLINE>
"""
from ._proto.example import (BytesList, Example, Feature, FeatureList,  # noqa: F401
                             FeatureLists, Features, FloatList, Int64List, SequenceExample)

__all__ = ["BytesList", "Example", "Feature", "FeatureList", "FeatureLists", "Features",
           "FloatList", "Int64List", "SequenceExample"]

# Imported on first use, after the facade scoped its modules: its public functions
# run with TF's 64-bit types on as the others do (tf/_x64.py).
from . import _x64  # noqa: E402

_x64.scope([__name__])
