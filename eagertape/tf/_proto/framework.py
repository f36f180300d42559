"""TF's framework protos: ``types`` (DataType), ``tensor_shape``, ``resource_handle``
and ``tensor`` (TensorProto), as in ``tensorflow/core/framework/*.proto``.

Importing this module adds the four files to eagertape's private pool (see the
package's docstring); ``tests/test_tf_io.py`` checks them against TF's own
messages, byte for byte.
"""

from . import build_file, message_class

__all__ = ["DataType", "TensorShapeProto", "ResourceHandleProto", "TensorProto",
           "VariantTensorDataProto", "SerializedDType", "DT"]

_PKG = "tensorflow"
_FW = "tensorflow/core/framework/"

_BASE_TYPES = [
    "INVALID", "FLOAT", "DOUBLE", "INT32", "UINT8", "INT16", "INT8", "STRING",
    "COMPLEX64", "INT64", "BOOL", "QINT8", "QUINT8", "QINT32", "BFLOAT16", "QINT16",
    "QUINT16", "UINT16", "COMPLEX128", "HALF", "RESOURCE", "VARIANT", "UINT32",
    "UINT64", "FLOAT8_E5M2", "FLOAT8_E4M3FN", "FLOAT8_E4M3FNUZ", "FLOAT8_E4M3B11FNUZ",
    "FLOAT8_E5M2FNUZ", "INT4", "UINT4", "INT2", "UINT2", "FLOAT4_E2M1FN",
]
# DT_X = n and DT_X_REF = n + 100 (no _REF for DT_INVALID), TF's numbering.
_DATATYPE = ([(f"DT_{n}", i) for i, n in enumerate(_BASE_TYPES)]
             + [(f"DT_{n}_REF", i + 100) for i, n in enumerate(_BASE_TYPES) if i])

build_file(_FW + "types.proto", _PKG, enums={"DataType": _DATATYPE}, messages={
    "SerializedDType": {"fields": [("datatype", 1, "enum:DataType")]},
})
build_file(_FW + "tensor_shape.proto", _PKG, messages={
    "TensorShapeProto": {
        "fields": [("dim", 2, "TensorShapeProto.Dim", "repeated"),
                   ("unknown_rank", 3, "bool")],
        "nested": {"Dim": {"fields": [("size", 1, "int64"), ("name", 2, "string")]}},
    },
})
build_file(_FW + "resource_handle.proto", _PKG,
           dependencies=[_FW + "tensor_shape.proto", _FW + "types.proto"], messages={
    "ResourceHandleProto": {
        "fields": [("device", 1, "string"), ("container", 2, "string"),
                   ("name", 3, "string"), ("hash_code", 4, "uint64"),
                   ("maybe_type_name", 5, "string"),
                   ("dtypes_and_shapes", 6, "ResourceHandleProto.DtypeAndShape",
                    "repeated")],
        "reserved": [(7, 8)],
        "nested": {"DtypeAndShape": {"fields": [("dtype", 1, "enum:DataType"),
                                                ("shape", 2, "TensorShapeProto")]}},
    },
})
build_file(_FW + "tensor.proto", _PKG,
           dependencies=[_FW + "resource_handle.proto", _FW + "tensor_shape.proto",
                         _FW + "types.proto"], messages={
    "TensorProto": {"fields": [
        ("dtype", 1, "enum:DataType"),
        ("tensor_shape", 2, "TensorShapeProto"),
        ("version_number", 3, "int32"),
        ("tensor_content", 4, "bytes"),
        ("half_val", 13, "int32", "repeated packed"),
        ("float_val", 5, "float", "repeated packed"),
        ("double_val", 6, "double", "repeated packed"),
        ("int_val", 7, "int32", "repeated packed"),
        ("string_val", 8, "bytes", "repeated"),
        ("scomplex_val", 9, "float", "repeated packed"),
        ("int64_val", 10, "int64", "repeated packed"),
        ("bool_val", 11, "bool", "repeated packed"),
        ("dcomplex_val", 12, "double", "repeated packed"),
        ("resource_handle_val", 14, "ResourceHandleProto", "repeated"),
        ("variant_val", 15, "VariantTensorDataProto", "repeated"),
        ("uint32_val", 16, "uint32", "repeated packed"),
        ("uint64_val", 17, "uint64", "repeated packed"),
        ("float8_val", 18, "bytes"),
    ]},
    "VariantTensorDataProto": {"fields": [
        ("type_name", 1, "string"), ("metadata", 2, "bytes"),
        ("tensors", 3, "TensorProto", "repeated"),
    ]},
})

TensorShapeProto = message_class("tensorflow.TensorShapeProto", module=__name__)
ResourceHandleProto = message_class("tensorflow.ResourceHandleProto", module=__name__)
TensorProto = message_class("tensorflow.TensorProto", module=__name__)
VariantTensorDataProto = message_class("tensorflow.VariantTensorDataProto", module=__name__)
SerializedDType = message_class("tensorflow.SerializedDType", module=__name__)
#: ``{"DT_FLOAT": 1, ...}``: TF's DataType numbers by name.
DT = dict(_DATATYPE)
DataType = DT

# Imported on first use, after the facade scoped its modules (tf/_x64.py).
from .. import _x64  # noqa: E402

_x64.scope([__name__])
