"""TF's checkpoint protos: ``versions`` (VersionDef), ``tensor_slice``,
``tensor_bundle`` (a bundle's header and entries), ``trackable_object_graph``
(the object graph a TF-2 checkpoint stores under ``_CHECKPOINTABLE_OBJECT_GRAPH``)
and ``checkpoint_state`` (a directory's ``checkpoint`` file, in text format), as
in TF's ``.proto`` files, in eagertape's private pool (see the package's
docstring). ``tests/test_tf_checkpoint_bundle.py`` parses TF's own bytes with them.
"""
from google.protobuf import descriptor_pb2, wrappers_pb2

from . import POOL, build_file, message_class
from . import framework   # types.proto and tensor_shape.proto, which these files import

__all__ = ["BundleEntryProto", "BundleHeaderProto", "CheckpointState", "TensorSliceProto",
           "TrackableObjectGraph", "VersionDef"]

del framework     # only its files in the pool were wanted
_PKG = "tensorflow"
_FW = "tensorflow/core/framework/"
_WRAPPERS = "google/protobuf/wrappers.proto"

try:      # BoolValue (has_checkpoint_values): protobuf's own file, added to our pool once
    POOL.FindFileByName(_WRAPPERS)
except KeyError:
    _fd = descriptor_pb2.FileDescriptorProto()
    wrappers_pb2.DESCRIPTOR.CopyToProto(_fd)
    POOL.AddSerializedFile(_fd.SerializeToString())

build_file(_FW + "versions.proto", _PKG, messages={
    "VersionDef": {"fields": [("producer", 1, "int32"), ("min_consumer", 2, "int32"),
                              ("bad_consumers", 3, "int32", "repeated packed")]},
})
build_file(_FW + "tensor_slice.proto", _PKG, messages={
    "TensorSliceProto": {
        "fields": [("extent", 1, "TensorSliceProto.Extent", "repeated")],
        "nested": {"Extent": {"oneofs": ["has_length"],
                              "fields": [("start", 1, "int64"),
                                         ("length", 2, "int64", "oneof:0")]}},
    },
})
build_file("tensorflow/core/protobuf/tensor_bundle.proto", _PKG,
           dependencies=[_FW + "tensor_shape.proto", _FW + "tensor_slice.proto",
                         _FW + "types.proto", _FW + "versions.proto"], messages={
    "BundleHeaderProto": {
        "fields": [("num_shards", 1, "int32"),
                   ("endianness", 2, "enum:BundleHeaderProto.Endianness"),
                   ("version", 3, "VersionDef")],
        "enums": {"Endianness": [("LITTLE", 0), ("BIG", 1)]},
    },
    "BundleEntryProto": {"fields": [
        ("dtype", 1, "enum:DataType"), ("shape", 2, "TensorShapeProto"),
        ("shard_id", 3, "int32"), ("offset", 4, "int64"), ("size", 5, "int64"),
        ("crc32c", 6, "fixed32"), ("slices", 7, "TensorSliceProto", "repeated"),
    ]},
})
_OBJ = "TrackableObjectGraph.TrackableObject"
build_file("tensorflow/core/protobuf/trackable_object_graph.proto", _PKG,
           dependencies=[_WRAPPERS], messages={
    "TrackableObjectGraph": {
        "fields": [("nodes", 1, _OBJ, "repeated")],
        "nested": {"TrackableObject": {
            "fields": [("children", 1, f"{_OBJ}.ObjectReference", "repeated"),
                       ("attributes", 2, f"{_OBJ}.SerializedTensor", "repeated"),
                       ("slot_variables", 3, f"{_OBJ}.SlotVariableReference", "repeated"),
                       ("registered_saver", 4, "RegisteredSaver"),
                       ("has_checkpoint_values", 5, ".google.protobuf.BoolValue")],
            "nested": {
                "ObjectReference": {"fields": [("node_id", 1, "int32"),
                                               ("local_name", 2, "string")]},
                "SerializedTensor": {"fields": [("name", 1, "string"),
                                                ("full_name", 2, "string"),
                                                ("checkpoint_key", 3, "string")]},
                "SlotVariableReference": {"fields": [
                    ("original_variable_node_id", 1, "int32"), ("slot_name", 2, "string"),
                    ("slot_variable_node_id", 3, "int32")]},
            },
        }},
    },
    "RegisteredSaver": {"fields": [("name", 1, "string"), ("object_name", 2, "string")]},
})
build_file("tensorflow/python/training/checkpoint_state.proto", _PKG, messages={
    "CheckpointState": {"fields": [
        ("model_checkpoint_path", 1, "string"),
        ("all_model_checkpoint_paths", 2, "string", "repeated"),
        ("all_model_checkpoint_timestamps", 3, "double", "repeated packed"),
        ("last_preserved_timestamp", 4, "double"),
    ]},
})

VersionDef = message_class("tensorflow.VersionDef")
TensorSliceProto = message_class("tensorflow.TensorSliceProto")
BundleHeaderProto = message_class("tensorflow.BundleHeaderProto")
BundleEntryProto = message_class("tensorflow.BundleEntryProto")
TrackableObjectGraph = message_class("tensorflow.TrackableObjectGraph")
CheckpointState = message_class("tensorflow.CheckpointState")

# Imported on first use, after the facade scoped its modules (tf/_x64.py).
from .. import _x64  # noqa: E402

_x64.scope([__name__])
