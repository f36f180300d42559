"""``tf.io``: files, serialized tensors, CSV and raw bytes, images, TFRecord files
and ``tf.train.Example`` parsing, on the host (TF runs these ops on the CPU too).

What each returns is what TF's eager op returns: string results are string
tensors (``tf.string``), numbers are Tensors of TF's dtype and shape, and bad
input raises TF's error class (``tf.errors.InvalidArgumentError``,
``NotFoundError``, ...). ``serialize_tensor`` writes TF's ``TensorProto`` bytes
and ``parse_tensor`` reads TF's; TFRecord files and Example protos are TF's
formats, byte for byte. Images go through Pillow (see ``_image_io``), audio
through Python's own WAV code (``tf.audio``). Needs the extra ``io``
(``pip install 'eagertape[io]'``: protobuf and Pillow), imported when a function
that needs it is first called, never at ``import eagertape.tf``.

In a ``tf.data`` map these run eagerly, element by element, as the string ops
do (JAX traces numbers only).

>>> import os, tempfile
>>> import eagertape.tf as tf
>>> path = os.path.join(tempfile.mkdtemp(), "t.bin")
>>> tf.io.write_file(path, tf.io.serialize_tensor(tf.constant([1.5, 2.0])))
>>> tf.io.parse_tensor(tf.io.read_file(path), tf.float32).numpy()
array([1.5, 2. ], dtype=float32)
"""
import base64 as _base64
import glob as _glob
import os
import zlib as _zlib

import numpy as np

from ..extend import InvalidArgumentError, TensorLike as _TensorLike, as_dtype as _as_dtype
from . import _gfile as gfile
from . import _text
from ._util import _Unsupported, left_out

__all__ = ["gfile", "read_file", "write_file", "matching_files", "match_filenames_once",
           "serialize_tensor", "parse_tensor", "decode_raw", "decode_csv", "decode_compressed",
           "decode_base64", "encode_base64"]
# (and, looked up on first use: the image names from _image_io, the TFRecord writer and
# options from _tfrecord, the Example parsing from _example_parsing)

_unsupported = _Unsupported("tf.io", {
    **left_out("TF graph files (GraphDef) have no meaning in eagertape, which makes no TF "
               "graphs", "write_graph"),
    **left_out("generic protocol-buffer ops take a message type by name from TF's "
               "registry; parse the bytes with the protobuf library and the message class",
               "decode_proto encode_proto"),
    **left_out("JPEG XL is not read by Pillow; decode it with a JPEG XL library (e.g. "
               "pillow-jxl-plugin) and pass the array", "decode_jxl"),
    **left_out("SparseTensor serialization (TF's variant encoding) is not built; "
               "serialize indices, values and dense_shape with serialize_tensor",
               "serialize_sparse serialize_many_sparse deserialize_many_sparse"),
    **left_out("SparseFeature (parsing index and value features into one SparseTensor) is "
               "not built; parse them as VarLenFeatures and build tf.SparseTensor",
               "SparseFeature"),
})

# The image, record and Example names live in modules of their own, imported on
# first use (they need Pillow or protobuf).
_IMAGE = frozenset("decode_png decode_jpeg decode_bmp decode_gif decode_webp decode_image "
                   "decode_and_crop_jpeg encode_png encode_jpeg is_jpeg "
                   "extract_jpeg_shape".split())
_RECORDS = frozenset("TFRecordWriter TFRecordOptions".split())
_PARSING = frozenset("FixedLenFeature FixedLenSequenceFeature VarLenFeature RaggedFeature "
                     "parse_single_example parse_example parse_single_sequence_example "
                     "parse_sequence_example decode_json_example".split())


def __getattr__(name):
    if name in _IMAGE:
        from . import _image_io as mod
    elif name in _RECORDS:
        from . import _tfrecord as mod
    elif name in _PARSING:
        from . import _example_parsing as mod
    else:
        return _unsupported(name)
    value = getattr(mod, name)
    globals()[name] = value
    return value


def _scalar_bytes(x, argname):
    a = _text.host(x, argname)
    if a.ndim != 0:
        raise InvalidArgumentError(f"argument `{argname}` must be a scalar string, got "
                                   f"shape {list(a.shape)}")
    return a[()]


def _path(x, argname):
    return gfile._path(_scalar_bytes(x, argname).decode("utf-8"), argname)


def _string(b):
    out = np.empty((), object)
    out[()] = b
    return _text.wrap(out)


def read_file(filename, name=None):
    """The bytes of the file ``filename``, as a scalar string tensor.

    >>> import os, tempfile
    >>> import eagertape.tf as tf
    >>> path = os.path.join(tempfile.mkdtemp(), "x.txt")
    >>> _ = open(path, "wb").write(b"hi")
    >>> tf.io.read_file(path).numpy()
    b'hi'
    """
    path = _path(filename, "filename")
    try:
        with open(path, "rb") as f:
            return _string(f.read())
    except OSError as e:
        raise gfile._os_error(e, path) from None


def write_file(filename, contents, name=None):
    """Writes the scalar string ``contents`` to ``filename`` (creating its directory,
    as TF's op does); returns None, as TF's eager op.

    >>> import os, tempfile
    >>> import eagertape.tf as tf
    >>> path = os.path.join(tempfile.mkdtemp(), "sub", "y.txt")
    >>> tf.io.write_file(path, "hello")
    >>> open(path, "rb").read()
    b'hello'
    """
    path = _path(filename, "filename")
    data = _scalar_bytes(contents, "contents")
    try:
        d = os.path.dirname(path)
        if d:
            os.makedirs(d, exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        raise gfile._os_error(e, path) from None


def matching_files(pattern, name=None):
    """The files matching ``pattern`` (a string, or a 1-D tensor of patterns), as a
    sorted 1-D string tensor (empty when none matches, as TF's).

    >>> import os, tempfile
    >>> import eagertape.tf as tf
    >>> d = tempfile.mkdtemp()
    >>> for n in ("b.csv", "a.csv", "c.txt"):
    ...     _ = open(os.path.join(d, n), "w").write("")
    >>> [os.path.basename(p) for p in tf.io.matching_files(os.path.join(d, "*.csv")).numpy()]
    [b'a.csv', b'b.csv']
    """
    patterns = _text.host(pattern, "pattern")
    if patterns.ndim > 1:
        raise InvalidArgumentError("argument `pattern` must be a scalar or a 1-D string "
                                   f"tensor, got shape {list(patterns.shape)}")
    found = set()
    for p in patterns.reshape(-1).tolist():
        found.update(_glob.glob(gfile._path(p.decode("utf-8"), "pattern")))
    out = np.empty(len(found), object)
    out[:] = [p.encode("utf-8") for p in sorted(found)]
    return _text.wrap(out)


def match_filenames_once(pattern, name=None):
    """TF 1's once-evaluated ``matching_files``: in eager mode, ``matching_files``."""
    return matching_files(pattern)


# -- serialized tensors: TF's TensorProto ------------------------------------------

def _dtype_tables():
    from ._proto.framework import DT
    numpy_of = {DT["DT_FLOAT"]: np.float32, DT["DT_DOUBLE"]: np.float64,
                DT["DT_INT32"]: np.int32, DT["DT_UINT8"]: np.uint8,
                DT["DT_INT16"]: np.int16, DT["DT_INT8"]: np.int8,
                DT["DT_COMPLEX64"]: np.complex64, DT["DT_INT64"]: np.int64,
                DT["DT_BOOL"]: np.bool_, DT["DT_UINT16"]: np.uint16,
                DT["DT_COMPLEX128"]: np.complex128, DT["DT_HALF"]: np.float16,
                DT["DT_UINT32"]: np.uint32, DT["DT_UINT64"]: np.uint64}
    import jax.numpy as jnp
    numpy_of[DT["DT_BFLOAT16"]] = jnp.bfloat16
    return numpy_of, DT


def _enum_of(dtype):
    numpy_of, DT = _dtype_tables()
    if dtype == object:
        return DT["DT_STRING"]
    for k, v in numpy_of.items():
        if np.dtype(v) == dtype:
            return k
    raise InvalidArgumentError(f"dtype {dtype} has no TensorProto type")


def _tf_name(enum):
    from ._proto.framework import DT
    name = {v: k for k, v in DT.items()}.get(enum, f"unknown dtype {enum}")
    name = name[3:].lower()
    return {"half": "half", "string": "string"}.get(name, name)


def _host_value(tensor, argname):
    """A tensor argument as a NumPy array (object array of bytes for text)."""
    if _text.is_text(tensor):
        return _text.host(tensor, argname)
    return _text.numeric(tensor, argname, "tf.io")


def to_proto(array):
    """TF's ``TensorProto`` of a NumPy array, as ``Tensor::AsProtoTensorContent``
    writes it (the numbers' bytes in ``tensor_content``, strings in ``string_val``)."""
    from ._proto.framework import TensorProto
    array = np.asarray(array)
    p = TensorProto(dtype=_enum_of(array.dtype))
    p.tensor_shape.SetInParent()
    for d in array.shape:
        p.tensor_shape.dim.add(size=d)
    if array.dtype == object:
        p.string_val.extend(array.reshape(-1).tolist())
    elif array.size:
        p.tensor_content = np.ascontiguousarray(array).astype(
            array.dtype.newbyteorder("<"), copy=False).tobytes()
    return p


def from_proto(p):
    """The NumPy array of a ``TensorProto`` (``tensor_content`` or the typed
    ``*_val`` fields, a short list repeated up to the shape, as TF's
    ``Tensor::FromProto``)."""
    numpy_of, DT = _dtype_tables()
    shape = tuple(d.size for d in p.tensor_shape.dim)
    n = int(np.prod(shape, dtype=np.int64))
    if p.dtype == DT["DT_STRING"]:
        vals = list(p.string_val)
        out = np.empty(n, object)
        if vals:
            out[:len(vals)] = vals[:n]
            out[len(vals):] = vals[-1]
        elif n:
            out[:] = b""
        return out.reshape(shape)
    if p.dtype not in numpy_of:
        raise InvalidArgumentError(f"parse_tensor: dtype {_tf_name(p.dtype)} is not "
                                   "supported by eagertape")
    dtype = np.dtype(numpy_of[p.dtype])
    if p.tensor_content:
        a = np.frombuffer(p.tensor_content, dtype.newbyteorder("<"))
        if a.size != n:
            raise InvalidArgumentError(f"Could not parse a tensor of {n} elements from "
                                       f"{len(p.tensor_content)} bytes of tensor_content")
        return a.astype(dtype).reshape(shape)
    if p.dtype in (DT["DT_HALF"], DT["DT_BFLOAT16"]):
        vals = np.asarray(p.half_val, np.uint16).view(dtype)
    elif p.dtype == DT["DT_FLOAT"]:
        vals = np.asarray(p.float_val, dtype)
    elif p.dtype == DT["DT_DOUBLE"]:
        vals = np.asarray(p.double_val, dtype)
    elif p.dtype == DT["DT_INT64"]:
        vals = np.asarray(p.int64_val, dtype)
    elif p.dtype == DT["DT_BOOL"]:
        vals = np.asarray(p.bool_val, dtype)
    elif p.dtype == DT["DT_COMPLEX64"]:
        v = np.asarray(p.scomplex_val, np.float32)
        vals = (v[0::2] + 1j * v[1::2]).astype(dtype)
    elif p.dtype == DT["DT_COMPLEX128"]:
        v = np.asarray(p.dcomplex_val, np.float64)
        vals = (v[0::2] + 1j * v[1::2]).astype(dtype)
    elif p.dtype == DT["DT_UINT32"]:
        vals = np.asarray(p.uint32_val, dtype)
    elif p.dtype == DT["DT_UINT64"]:
        vals = np.asarray(p.uint64_val, dtype)
    else:                                  # int32, int16, int8, uint8, uint16
        vals = np.asarray(p.int_val, np.int64).astype(dtype)
    out = np.zeros(n, dtype)
    if vals.size:
        out[:min(n, vals.size)] = vals[:n]
        out[vals.size:] = vals[-1]
    return out.reshape(shape)


def serialize_tensor(tensor, name=None):
    """TF's ``TensorProto`` bytes of ``tensor``, as a scalar string: the bytes TF's
    ``tf.io.serialize_tensor`` writes, readable by TF's ``parse_tensor``.

    >>> import eagertape.tf as tf
    >>> tf.io.serialize_tensor(tf.constant(1.0)).numpy()
    b'\\x08\\x01\\x12\\x00"\\x04\\x00\\x00\\x80?'
    """
    return _string(to_proto(_host_value(tensor, "tensor")).SerializeToString())


def parse_tensor(serialized, out_type, name=None):
    """The tensor of TF's ``TensorProto`` bytes ``serialized``; ``out_type`` must be
    its dtype (``tf.errors.InvalidArgumentError`` otherwise, as TF).

    >>> import eagertape.tf as tf
    >>> tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant([[1, 2]])), tf.int32)
    <tf.Tensor: shape=(1, 2), dtype=int32, numpy=array([[1, 2]], dtype=int32)>
    """
    from ._proto.framework import TensorProto
    from google.protobuf.message import DecodeError
    data = _scalar_bytes(serialized, "serialized")
    want = _as_dtype(out_type)
    p = TensorProto()
    try:
        p.ParseFromString(data)
    except DecodeError:
        raise InvalidArgumentError(
            "Could not parse `serialized` as TensorProto, base64: "
            + _base64.b64encode(data).decode("ascii")) from None
    if p.dtype != _enum_of(np.dtype(want)):
        raise InvalidArgumentError(f"Type mismatch between parsed tensor ({_tf_name(p.dtype)}) "
                                   f"and dtype ({want.name})")
    return _text.text_result(from_proto(p))


# -- raw bytes, base64, compression -------------------------------------------------

_RAW_TYPES = ("float16 bfloat16 float32 float64 int32 uint16 uint8 int16 int8 int64 "
              "complex64 complex128 bool uint32 uint64").split()


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """Each string of ``input_bytes`` read as a 1-D array of ``out_type`` (shape
    ``input_bytes.shape + [n]``); every string must have the same length, a multiple
    of the type's size, unless ``fixed_length`` pads (with zeros) or cuts them.

    >>> import eagertape.tf as tf
    >>> tf.io.decode_raw(tf.constant([b"\\x01\\x00\\x02\\x00"]), tf.int16).numpy()
    array([[1, 2]], dtype=int16)
    """
    strings = _text.host(input_bytes, "input_bytes")
    dtype = np.dtype(_as_dtype(out_type))
    if dtype.name not in _RAW_TYPES:
        raise TypeError(f"argument `out_type` of decode_raw: {dtype.name} is not one of "
                        f"{', '.join(_RAW_TYPES)}")
    dt = dtype.newbyteorder("<" if little_endian else ">") if dtype.itemsize > 1 else dtype
    flat = strings.reshape(-1).tolist()
    if fixed_length is not None:
        n = int(fixed_length)
        if n % dtype.itemsize:
            raise InvalidArgumentError(f"fixed_length ({n}) must be a multiple of the size of "
                                       f"out_type ({dtype.itemsize})")
        flat = [s[:n].ljust(n, b"\0") for s in flat]
    elif flat:
        size = len(flat[0])
        for i, s in enumerate(flat):
            if len(s) != size:
                raise InvalidArgumentError(
                    "DecodeRaw requires input strings to all be the same size, but element "
                    f"{i} has size {size} != {len(s)}")
        if size % dtype.itemsize:
            raise InvalidArgumentError(
                f"Input to DecodeRaw has length {size} that is not a multiple of "
                f"{dtype.itemsize}, the size of {dtype.name}")
    width = (int(fixed_length) if fixed_length is not None else
             len(flat[0]) if flat else 0) // dtype.itemsize
    out = np.frombuffer(b"".join(flat), dt).astype(dtype).reshape(strings.shape + (width,))
    return _text.text_result(out)


def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002 (TF's name)
    """Each string of ``bytes`` decompressed (``compression_type`` "", "ZLIB" or
    "GZIP").

    >>> import gzip
    >>> import eagertape.tf as tf
    >>> tf.io.decode_compressed(gzip.compress(b"abc"), "GZIP").numpy()
    b'abc'
    """
    strings = _text.host(bytes, "bytes")
    kind = (compression_type or "").upper()
    if kind not in ("", "ZLIB", "GZIP"):
        raise InvalidArgumentError(f"argument `compression_type`: {compression_type!r} is "
                                   "not one of '', 'ZLIB', 'GZIP'")
    wbits = {"ZLIB": 15, "GZIP": 31}.get(kind)
    out = np.empty(strings.shape, object)
    for i, s in np.ndenumerate(strings):
        try:
            out[i] = s if wbits is None else _zlib.decompress(s, wbits)
        except _zlib.error as e:
            raise InvalidArgumentError(f"decode_compressed: {e}") from None
    return _text.wrap(out)


def encode_base64(input, pad=False, name=None):  # noqa: A002 (TF's name)
    """Web-safe base64 (``-`` and ``_``) of each string, unpadded unless ``pad``.

    >>> import eagertape.tf as tf
    >>> tf.io.encode_base64(b"\\xfb\\xff").numpy()
    b'-_8'
    """
    strings = _text.host(input, "input")
    out = np.empty(strings.shape, object)
    for i, s in np.ndenumerate(strings):
        e = _base64.urlsafe_b64encode(s)
        out[i] = e if pad else e.rstrip(b"=")
    return _text.wrap(out)


def decode_base64(input, name=None):  # noqa: A002 (TF's name)
    """Each web-safe base64 string decoded (padding optional).

    >>> import eagertape.tf as tf
    >>> tf.io.decode_base64(b"-_8").numpy()
    b'\\xfb\\xff'
    """
    strings = _text.host(input, "input")
    out = np.empty(strings.shape, object)
    for i, s in np.ndenumerate(strings):
        s = s.rstrip(b"=")
        if len(s) % 4 == 1 or s.strip(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                      b"0123456789-_"):
            raise InvalidArgumentError(f"Invalid character found in base64: {s!r}"[:200])
        out[i] = _base64.urlsafe_b64decode(s + b"=" * (-len(s) % 4))
    return _text.wrap(out)


# -- CSV ------------------------------------------------------------------------

_CSV_TYPES = {"float32": "float", "float64": "double", "int32": "int32",
              "int64": "int64", "string": "string"}


def _csv_fields(record, delim, quote, r):
    """TF's DecodeCSV splitting of one record (quotes with ``""`` inside)."""
    fields, i, n = [], 0, len(record)
    if n == 0:
        return [b""] if False else []
    while True:
        if quote and i < n and record[i:i + 1] == b'"':
            j, buf = i + 1, bytearray()
            while True:
                if j >= n:
                    raise InvalidArgumentError(
                        "Quoted field has to end with quote followed by delim or end")
                c = record[j:j + 1]
                if c == b'"':
                    if record[j + 1:j + 2] == b'"':
                        buf += b'"'
                        j += 2
                        continue
                    j += 1
                    break
                buf += c
                j += 1
            if j < n and record[j:j + 1] != delim:
                raise InvalidArgumentError(
                    "Quoted field has to end with quote followed by delim or end")
            fields.append(bytes(buf))
            i = j
        else:
            j = record.find(delim, i)
            j = n if j < 0 else j
            f = record[i:j]
            if quote and (b'"' in f or b"\n" in f or b"\r" in f):
                raise InvalidArgumentError("Unquoted fields cannot have quotes/CRLFs inside")
            fields.append(f)
            i = j
        if i >= n:
            return fields
        i += 1                           # the delimiter
        if i == n:
            fields.append(b"")
            return fields


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True,
               na_value="", select_cols=None, name=None):
    """The columns of CSV ``records`` (a string tensor, one record per string): a
    list with one tensor per column, each of ``records``' shape and the dtype of
    its ``record_defaults`` entry (float32, float64, int32, int64 or string: a
    one-value default, or an empty tensor for a required column).

    >>> import eagertape.tf as tf
    >>> a, b = tf.io.decode_csv(["1,x", "2,"], record_defaults=[[0], ["none"]])
    >>> a.numpy(), b.numpy()
    (array([1, 2], dtype=int32), array([b'x', b'none'], dtype=object))
    """
    recs = _text.host(records, "records")
    if not isinstance(record_defaults, (list, tuple)):
        raise TypeError("argument `record_defaults` of decode_csv must be a list (one "
                        f"default per column), got {type(record_defaults).__name__}")
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if any(b <= a for a, b in zip(select_cols, select_cols[1:])):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    delim = _scalar_bytes(field_delim, "field_delim")
    if len(delim) != 1:
        raise InvalidArgumentError("field_delim should be only 1 char")
    na = _scalar_bytes(na_value, "na_value")
    defaults = []
    for k, d in enumerate(record_defaults):
        if _text.is_text(d):
            a = _text.host(d, f"record_defaults[{k}]")
        elif isinstance(d, _TensorLike):
            a = _text.numeric(d, f"record_defaults[{k}]", "decode_csv")
        else:
            # TF converts Python values as tf.constant does: floats to float32, ints
            # to int32, an empty list to float32
            a = np.asarray(d if not (isinstance(d, (list, tuple)) and not d) else [],
                           np.float32 if (isinstance(d, (list, tuple)) and not d) else None)
            if a.dtype == np.float64:
                a = a.astype(np.float32)
            elif a.dtype == np.int64 and np.all(np.abs(a) < 2 ** 31):
                a = a.astype(np.int32)
        kind = "string" if a.dtype == object else a.dtype.name
        if kind not in _CSV_TYPES:
            raise InvalidArgumentError(
                f"Value for attr 'OUT_TYPE' of {kind} is not in the list of allowed values: "
                "float, double, int32, int64, string")
        if a.size > 1:
            raise InvalidArgumentError(f"There should only be 1 default per field but field "
                                       f"{k} has {a.size}")
        defaults.append((kind, a.reshape(-1)))
    ncols = len(defaults)
    cols = [np.empty(recs.size, object if k == "string" else np.dtype(k))
            for k, _ in defaults]
    for r, rec in enumerate(recs.reshape(-1).tolist()):
        fields = _csv_fields(rec, delim, use_quote_delim, r)
        if select_cols is not None:
            if fields and len(fields) <= select_cols[-1]:
                raise InvalidArgumentError(f"Expect {ncols} fields but have {len(fields)} in "
                                           f"record {r}")
            fields = [fields[c] for c in select_cols] if fields else fields
        if len(fields) != ncols:
            raise InvalidArgumentError(f"Expect {ncols} fields but have {len(fields)} in "
                                       f"record {r}")
        for c, ((kind, default), f) in enumerate(zip(defaults, fields)):
            if f == b"" or f == na:
                if default.size == 0:
                    raise InvalidArgumentError(f"Field {c} is required but missing in "
                                               f"record {r}!")
                cols[c][r] = default[0]
                continue
            cols[c][r] = _csv_value(f, kind, c, r)
    return [_text.text_result(col.reshape(recs.shape)) for col in cols]


def _csv_value(f, kind, c, r):
    if kind == "string":
        return f
    bad = InvalidArgumentError(f"Field {c} in record {r} is not a valid {_CSV_TYPES[kind]}: "
                               f"{f.decode('utf-8', 'replace')}")
    s = f.decode("ascii", "replace").strip()
    if kind.startswith("int"):
        try:
            v = int(s, 10)
        except ValueError:
            raise bad from None
        info = np.iinfo(np.dtype(kind))
        if not info.min <= v <= info.max:
            raise bad
        return v
    try:
        return float(s)
    except ValueError:
        raise bad from None
