"""TF's event-file messages: ``histogram.proto`` (HistogramProto),
``tensorflow/core/framework/summary.proto`` (Summary, SummaryMetadata) and
``tensorflow/core/util/event.proto`` (Event), field for field TF's, in eagertape's
private pool (see the package's docstring). ``tf.summary`` writes ``Event``s;
``tests/test_tf_summary.py`` reads them back with TF's own classes.
"""

from . import build_file, message_class
from . import framework as _framework  # noqa: F401  (tensor.proto, a dependency)

__all__ = ["HistogramProto", "SummaryMetadata", "Summary", "Event", "DataClass"]

_PKG = "tensorflow"
_HISTOGRAM = "xla/tsl/protobuf/histogram.proto"
_SUMMARY = "tensorflow/core/framework/summary.proto"
_EVENT = "tensorflow/core/util/event.proto"

build_file(_HISTOGRAM, _PKG, messages={
    "HistogramProto": {"fields": [
        ("min", 1, "double"), ("max", 2, "double"), ("num", 3, "double"),
        ("sum", 4, "double"), ("sum_squares", 5, "double"),
        ("bucket_limit", 6, "double", "repeated packed"),
        ("bucket", 7, "double", "repeated packed"),
    ]},
})

_DATA_CLASS = [("DATA_CLASS_UNKNOWN", 0), ("DATA_CLASS_SCALAR", 1),
               ("DATA_CLASS_TENSOR", 2), ("DATA_CLASS_BLOB_SEQUENCE", 3)]

build_file(_SUMMARY, _PKG, dependencies=[_HISTOGRAM, "tensorflow/core/framework/tensor.proto"],
           enums={"DataClass": _DATA_CLASS}, messages={
    "SummaryDescription": {"fields": [("type_hint", 1, "string")]},
    "SummaryMetadata": {
        "fields": [("plugin_data", 1, "SummaryMetadata.PluginData"),
                   ("display_name", 2, "string"), ("summary_description", 3, "string"),
                   ("data_class", 4, "enum:DataClass")],
        "nested": {"PluginData": {"fields": [("plugin_name", 1, "string"),
                                             ("content", 2, "bytes")]}},
    },
    "Summary": {
        "fields": [("value", 1, "Summary.Value", "repeated")],
        "nested": {
            "Image": {"fields": [("height", 1, "int32"), ("width", 2, "int32"),
                                 ("colorspace", 3, "int32"),
                                 ("encoded_image_string", 4, "bytes")]},
            "Audio": {"fields": [("sample_rate", 1, "float"), ("num_channels", 2, "int64"),
                                 ("length_frames", 3, "int64"),
                                 ("encoded_audio_string", 4, "bytes"),
                                 ("content_type", 5, "string")]},
            "Value": {"oneofs": ["value"], "fields": [
                ("node_name", 7, "string"), ("tag", 1, "string"),
                ("metadata", 9, "SummaryMetadata"),
                ("simple_value", 2, "float", "oneof:0"),
                ("obsolete_old_style_histogram", 3, "bytes", "oneof:0"),
                ("image", 4, "Summary.Image", "oneof:0"),
                ("histo", 5, "HistogramProto", "oneof:0"),
                ("audio", 6, "Summary.Audio", "oneof:0"),
                ("tensor", 8, "TensorProto", "oneof:0"),
            ]},
        },
    },
})

build_file(_EVENT, _PKG, dependencies=[_SUMMARY], messages={
    "Event": {"oneofs": ["what"], "fields": [
        ("wall_time", 1, "double"), ("step", 2, "int64"),
        ("file_version", 3, "string", "oneof:0"), ("graph_def", 4, "bytes", "oneof:0"),
        ("summary", 5, "Summary", "oneof:0"), ("log_message", 6, "LogMessage", "oneof:0"),
        ("session_log", 7, "SessionLog", "oneof:0"),
        ("tagged_run_metadata", 8, "TaggedRunMetadata", "oneof:0"),
        ("meta_graph_def", 9, "bytes", "oneof:0"),
        ("source_metadata", 10, "SourceMetadata"),
    ]},
    "SourceMetadata": {"fields": [("writer", 1, "string")]},
    "LogMessage": {
        "fields": [("level", 1, "enum:LogMessage.Level"), ("message", 2, "string")],
        "enums": {"Level": [("UNKNOWN", 0), ("DEBUGGING", 10), ("INFO", 20), ("WARN", 30),
                            ("ERROR", 40), ("FATAL", 50)]},
    },
    "SessionLog": {
        "fields": [("status", 1, "enum:SessionLog.SessionStatus"),
                   ("checkpoint_path", 2, "string"), ("msg", 3, "string")],
        "enums": {"SessionStatus": [("STATUS_UNSPECIFIED", 0), ("START", 1), ("STOP", 2),
                                    ("CHECKPOINT", 3)]},
    },
    "TaggedRunMetadata": {"fields": [("tag", 1, "string"), ("run_metadata", 2, "bytes")]},
})

HistogramProto = message_class("tensorflow.HistogramProto", module=__name__)
SummaryMetadata = message_class("tensorflow.SummaryMetadata", module=__name__)
Summary = message_class("tensorflow.Summary", module=__name__)
Event = message_class("tensorflow.Event", module=__name__)
#: ``{"DATA_CLASS_SCALAR": 1, ...}``: TF's DataClass numbers by name.
DataClass = dict(_DATA_CLASS)

# Imported on first use, after the facade scoped its modules (tf/_x64.py).
from .. import _x64  # noqa: E402

_x64.scope([__name__])
