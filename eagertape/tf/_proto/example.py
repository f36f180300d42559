"""TF's ``tensorflow/core/example/feature.proto`` and ``example.proto``: the
messages of ``tf.train.Example`` and ``tf.train.SequenceExample``, in eagertape's
private pool (see the package's docstring)."""

from google.protobuf import descriptor_pool

from . import build_file, message_class

__all__ = ["BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList",
           "FeatureLists", "Example", "SequenceExample"]

_PKG = "tensorflow"
_EX = "tensorflow/core/example/"



def _feature_messages(packed):
    return {
    "BytesList": {"fields": [("value", 1, "bytes", "repeated")]},
    "FloatList": {"fields": [("value", 1, "float", "repeated" + packed)]},
    "Int64List": {"fields": [("value", 1, "int64", "repeated js_string" + packed)]},
    "Feature": {"oneofs": ["kind"], "fields": [
        ("bytes_list", 1, "BytesList", "oneof:0"),
        ("float_list", 2, "FloatList", "oneof:0"),
        ("int64_list", 3, "Int64List", "oneof:0")]},
    "Features": {"fields": [("feature", 1, "Feature", "map:string")]},
    "FeatureList": {"fields": [("feature", 1, "Feature", "repeated")]},
    "FeatureLists": {"fields": [("feature_list", 1, "FeatureList", "map:string")]},
    }


_EXAMPLE = {
    "Example": {"fields": [("features", 1, "Features")]},
    "SequenceExample": {"fields": [("context", 1, "Features"),
                                   ("feature_lists", 2, "FeatureLists")]},
}
build_file(_EX + "feature.proto", _PKG, messages=_feature_messages(" packed"))
build_file(_EX + "example.proto", _PKG, dependencies=[_EX + "feature.proto"],
           messages=_EXAMPLE)

# TF's decode_json_example writes the numbers' lists unpacked (protobuf's JSON-to-binary
# converter does); a copy of the definitions without ``packed``, in a pool of its own,
# re-encodes them so (the parsers read both encodings).
_UNPACKED_POOL = descriptor_pool.DescriptorPool()


def unpacked_example_class():
    """``Example`` with unpacked repeated numbers (TF's JSON path's encoding)."""
    build_file(_EX + "feature.proto", _PKG, messages=_feature_messages(""),
               syntax="proto2", pool=_UNPACKED_POOL)
    build_file(_EX + "example.proto", _PKG, dependencies=[_EX + "feature.proto"],
               messages=_EXAMPLE, syntax="proto2", pool=_UNPACKED_POOL)
    return message_class("tensorflow.Example", _UNPACKED_POOL, __name__)


BytesList = message_class("tensorflow.BytesList", module=__name__)
FloatList = message_class("tensorflow.FloatList", module=__name__)
Int64List = message_class("tensorflow.Int64List", module=__name__)
Feature = message_class("tensorflow.Feature", module=__name__)
Features = message_class("tensorflow.Features", module=__name__)
FeatureList = message_class("tensorflow.FeatureList", module=__name__)
FeatureLists = message_class("tensorflow.FeatureLists", module=__name__)
Example = message_class("tensorflow.Example", module=__name__)
SequenceExample = message_class("tensorflow.SequenceExample", module=__name__)

# Imported on first use, after the facade scoped its modules (tf/_x64.py).
from .. import _x64  # noqa: E402

_x64.scope([__name__])
