"""TensorFlow's protocol-buffer messages, in a descriptor pool of eagertape's own.

TF registers the same ``tensorflow/core/.../*.proto`` files in protobuf's default
pool; registering them there a second time would clash in any process that imports
both (every oracle test), so eagertape's copies live in a private
``DescriptorPool``. The definitions are built at run time from a compact table
(``build_file``) instead of protoc's generated code, so nothing depends on the
protoc version that generated them, only on the ``protobuf`` runtime.

Other modules add their own files with ``build_file`` (dependencies first) and get
classes with ``message_class``.
"""

try:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError(
        "eagertape's tf.io, TFRecord files and tf.train.Example use TensorFlow's "
        "protocol buffers: pip install protobuf (or 'eagertape[io]')") from None

__all__ = ["POOL", "build_file", "message_class", "enum_values"]

POOL = descriptor_pool.DescriptorPool()

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "double": _F.TYPE_DOUBLE, "float": _F.TYPE_FLOAT, "int64": _F.TYPE_INT64,
    "uint64": _F.TYPE_UINT64, "int32": _F.TYPE_INT32, "fixed64": _F.TYPE_FIXED64,
    "fixed32": _F.TYPE_FIXED32, "bool": _F.TYPE_BOOL, "string": _F.TYPE_STRING,
    "bytes": _F.TYPE_BYTES, "uint32": _F.TYPE_UINT32, "sfixed32": _F.TYPE_SFIXED32,
    "sfixed64": _F.TYPE_SFIXED64, "sint32": _F.TYPE_SINT32, "sint64": _F.TYPE_SINT64,
}
_classes = {}


def _field(msg, package, spec):
    """One field from ``(name, number, type[, flags])``.

    ``type`` is a scalar name, ``enum:Name`` or a message name (relative names are
    looked up in the file's package); flags: ``repeated``, ``packed``, ``js_string``, ``oneof:N``
    (index into the message's oneofs), ``map:K`` (a map<K, type> field; its entry
    message is added as protoc adds it).
    """
    name, number, typ = spec[:3]
    flags = spec[3].split() if len(spec) > 3 else []
    f = msg.field.add(name=name, number=number, label=_F.LABEL_OPTIONAL)

    def full(t):
        return t if t.startswith(".") else f".{package}.{t}"

    if any(fl.startswith("map:") for fl in flags):
        key = next(fl for fl in flags if fl.startswith("map:"))[4:]
        entry_name = "".join(p.capitalize() for p in name.split("_")) + "Entry"
        entry = msg.nested_type.add(name=entry_name)
        entry.options.map_entry = True
        _field(entry, package, ("key", 1, key))
        _field(entry, package, ("value", 2, typ))
        f.label = _F.LABEL_REPEATED
        f.type = _F.TYPE_MESSAGE
        f.type_name = f".{package}.{msg.name}.{entry_name}" if "." not in msg.name else ""
        return
    if typ in _SCALARS:
        f.type = _SCALARS[typ]
    elif typ.startswith("enum:"):
        f.type = _F.TYPE_ENUM
        f.type_name = full(typ[5:])
    else:
        f.type = _F.TYPE_MESSAGE
        f.type_name = full(typ)
    for fl in flags:
        if fl == "repeated":
            f.label = _F.LABEL_REPEATED
        elif fl == "packed":
            f.options.packed = True
        elif fl == "js_string":
            f.options.jstype = descriptor_pb2.FieldOptions.JS_STRING
        elif fl.startswith("oneof:"):
            f.oneof_index = int(fl[6:])


def _message(container, package, name, spec, prefix=""):
    msg = container.add(name=name)
    for start, end in spec.get("reserved", ()):
        msg.reserved_range.add(start=start, end=end)
    for oneof in spec.get("oneofs", ()):
        msg.oneof_decl.add(name=oneof)
    for fspec in spec.get("fields", ()):
        _field(msg, package, fspec)
        if len(fspec) > 3 and "map:" in fspec[3]:
            # the entry's full name includes the enclosing messages
            msg.field[-1].type_name = f".{package}.{prefix}{name}.{msg.nested_type[-1].name}"
    for nested_name, nested in spec.get("nested", {}).items():
        _message(msg.nested_type, package, nested_name, nested, prefix=f"{prefix}{name}.")
    for enum_name, values in spec.get("enums", {}).items():
        e = msg.enum_type.add(name=enum_name)
        for vname, number in values:
            e.value.add(name=vname, number=number)
    return msg


def build_file(name, package, messages=None, enums=None, dependencies=(), syntax="proto3",
               pool=None):
    """Adds one ``.proto`` file to ``POOL`` (once) from a compact table.

    ``messages`` maps a message name to ``{"fields": [...], "nested": {...},
    "oneofs": [...], "enums": {...}, "reserved": [(start, end), ...]}``; ``enums`` maps an enum name to its
    ``(VALUE_NAME, number)`` pairs; ``pool``: another pool than ``POOL``. Returns the
    file's descriptor.
    """
    pool = POOL if pool is None else pool
    try:
        return pool.FindFileByName(name)
    except KeyError:
        pass
    fd = descriptor_pb2.FileDescriptorProto(name=name, package=package, syntax=syntax)
    fd.dependency.extend(dependencies)
    for enum_name, values in (enums or {}).items():
        e = fd.enum_type.add(name=enum_name)
        for vname, number in values:
            e.value.add(name=vname, number=number)
    for msg_name, spec in (messages or {}).items():
        _message(fd.message_type, package, msg_name, spec)
    pool.AddSerializedFile(fd.SerializeToString())
    return pool.FindFileByName(name)


def message_class(full_name, pool=None, module=None):
    """The Python class of the message ``full_name`` (e.g. ``tensorflow.TensorProto``)
    in ``POOL`` (or ``pool``), its ``__module__`` set to ``module`` (the factory leaves
    it None, which code that reads a class's module, as TF's generated classes have
    one, does not expect)."""
    pool = POOL if pool is None else pool
    cls = _classes.get((full_name, id(pool)))
    if cls is None:
        cls = message_factory.GetMessageClass(pool.FindMessageTypeByName(full_name))
        if cls.__module__ is None:
            cls.__module__ = module or __name__
        _classes[(full_name, id(pool))] = cls
    return cls


def enum_values(full_name):
    """``{VALUE_NAME: number}`` of the enum ``full_name``."""
    return {v.name: v.number for v in POOL.FindEnumTypeByName(full_name).values}

# Imported on first use, after the facade scoped its modules (tf/_x64.py).
from .. import _x64  # noqa: E402

_x64.scope([__name__])
