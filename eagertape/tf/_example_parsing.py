"""``tf.io``'s Example parsing: ``parse_single_example``, ``parse_example``,
``parse_single_sequence_example``, ``parse_sequence_example`` and the feature
configurations ``FixedLenFeature``, ``VarLenFeature`` (a ``tf.SparseTensor``),
``FixedLenSequenceFeature`` and ``RaggedFeature`` (a ``tf.RaggedTensor``; its
row-partition options are not built).

The bytes are parsed with protobuf (``tf.train.Example``, TF's definition) and
each feature is checked as TF checks it: its kind must match the dtype
(``bytes_list`` for tf.string, ``float_list`` for tf.float32, ``int64_list`` for
tf.int64), a FixedLenFeature must have exactly its shape's number of values, and
a missing feature takes its default or raises ``tf.errors.InvalidArgumentError``.
In a ``tf.data`` map the parse runs eagerly on the host (the string ops' rule).

>>> import eagertape.tf as tf
>>> ex = tf.train.Example(features=tf.train.Features(feature={
...     "x": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 2.0]))}))
>>> out = tf.io.parse_single_example(ex.SerializeToString(), {
...     "x": tf.io.FixedLenFeature([2], tf.float32),
...     "y": tf.io.FixedLenFeature([], tf.int64, default_value=-1)})
>>> out["x"].numpy(), int(out["y"])
(array([1., 2.], dtype=float32), -1)
"""
import collections

import numpy as np

from ..extend import InvalidArgumentError, as_dtype as _as_dtype
from . import _text

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "RaggedFeature",
           "parse_single_example", "parse_example", "parse_single_sequence_example",
           "parse_sequence_example", "decode_json_example"]


class FixedLenFeature(collections.namedtuple(
        "FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature with exactly ``prod(shape)`` values, parsed to a ``shape`` tensor
    (``default_value`` when missing; required without one).

    >>> import eagertape.tf as tf
    >>> tf.io.FixedLenFeature([3], tf.int64).shape
    [3]
    """

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """Any number of ``shape`` entries, parsed to ``[n] + shape`` (in a batch,
    padded with ``default_value``, else zeros).

    >>> import eagertape.tf as tf
    >>> tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True).allow_missing
    True
    """

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """Any number of values, parsed to a ``tf.SparseTensor``.

    >>> import eagertape.tf as tf
    >>> tf.io.VarLenFeature(tf.string).dtype
    tf.string
    """


class RaggedFeature(collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype",
                          "validate"])):
    """Any number of values, parsed to a 1-D tensor per example (a
    ``tf.RaggedTensor`` in a batch). ``partitions`` are not built.

    >>> import eagertape.tf as tf
    >>> tf.io.RaggedFeature(tf.int64).row_splits_dtype
    tf.int32
    """

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype="int32",
                validate=False):
        if partitions:
            raise NotImplementedError(
                "RaggedFeature's partitions are not built in eagertape: parse the values "
                "and the row lengths as features and build the tf.RaggedTensor with "
                "tf.RaggedTensor.from_row_lengths")
        from .dtypes import as_dtype
        return super().__new__(cls, dtype, value_key, (), as_dtype(row_splits_dtype),
                               validate)


_KIND = {"float32": ("float_list", "float"), "int64": ("int64_list", "int64"),
         "string": ("bytes_list", "string")}


def _dtype(feature, key):
    d = _as_dtype(feature.dtype)
    name = "string" if np.dtype(d) == object else d.name
    if name not in _KIND:
        raise ValueError(f"Invalid dtype {name} for feature {key!r}: parsing takes "
                         "tf.float32, tf.int64 or tf.string")
    return name


def _values(feature, dtype, key, name):
    """The values of one ``tf.train.Feature`` as a 1-D NumPy array of ``dtype``."""
    kind = feature.WhichOneof("kind")
    want, tfname = _KIND[dtype]
    if kind is None:
        return _empty(dtype)
    if kind != want:
        raise InvalidArgumentError(
            f"Name: {name}, Key: {key}, Index: 0.  Data types don't match. Data type: "
            f"{_KIND_NAME[kind]} but expected type: {tfname}")
    vals = getattr(feature, kind).value
    if dtype == "string":
        out = np.empty(len(vals), object)
        out[:] = list(vals)
        return out
    return np.asarray(vals, np.dtype(dtype))


_KIND_NAME = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


def _empty(dtype, shape=(0,)):
    return np.empty(shape, object) if dtype == "string" else np.zeros(shape, np.dtype(dtype))


def _default(feature, dtype, shape, key):
    d = feature.default_value
    if d is None:
        return None
    if dtype == "string":
        a = _text.host(d, f"default_value of {key!r}") if d is not None else None
    else:
        a = np.asarray(d.numpy() if hasattr(d, "numpy") else d, np.dtype(dtype))
    return np.broadcast_to(a, shape).copy() if a is not None else None


def _shape(feature):
    return [int(s) for s in (feature.shape if feature.shape is not None else [])]


def _parse(serialized, name):
    from ._proto.example import Example
    from google.protobuf.message import DecodeError
    try:
        return Example.FromString(serialized)
    except DecodeError:
        raise InvalidArgumentError(f"Could not parse example input, value: "
                                   f"'{serialized[:64]!r}'") from None


def _names(example_names, n):
    if example_names is None:
        return ["<unknown>"] * n
    a = _text.host(example_names, "example_names").reshape(-1)
    return [x.decode("utf-8", "replace") for x in a.tolist()]


def _one(feature_map, key, cfg, name, batch=False):
    """The parsed value of feature ``key`` of one example (a NumPy array, or a
    ``(values, ...)`` pair for the sparse and ragged kinds)."""
    dtype = _dtype(cfg, key)
    f = feature_map.get(key)
    if isinstance(cfg, FixedLenFeature):
        shape = _shape(cfg)
        if f is None:
            d = _default(cfg, dtype, shape, key)
            if d is None:
                raise InvalidArgumentError(
                    f"Name: {name}, Feature: {key} (data type: {_KIND[dtype][1]}) is "
                    "required but could not be found.")
            return d
        v = _values(f, dtype, key, name)
        n = int(np.prod(shape, dtype=np.int64))
        if v.size != n:
            raise InvalidArgumentError(
                f"Name: {name}, Key: {key}, Index: 0.  Number of {_KIND[dtype][1]} values != "
                f"expected.  Values size: {v.size} but output shape: "
                f"[{','.join(map(str, shape))}]")
        return v.reshape(shape)
    if isinstance(cfg, FixedLenSequenceFeature):
        shape = _shape(cfg)
        if f is None:
            if not cfg.allow_missing and not batch:
                raise InvalidArgumentError(
                    f"Name: {name}, Feature: {key} (data type: {_KIND[dtype][1]}) is "
                    "required but could not be found.")
            return _empty(dtype, (0, *shape))
        v = _values(f, dtype, key, name)
        n = int(np.prod(shape, dtype=np.int64))
        if n == 0 or v.size % n:
            raise InvalidArgumentError(
                f"Name: {name}, Key: {key}, Index: 0.  Number of {_KIND[dtype][1]} values is "
                f"not a multiple of stride length. Saw {v.size} values but output shape is: "
                f"[?,{','.join(map(str, shape))}]".replace(",]", "]"))
        return v.reshape((-1, *shape))
    if isinstance(cfg, (VarLenFeature, RaggedFeature)):
        if isinstance(cfg, RaggedFeature) and cfg.value_key:
            f = feature_map.get(cfg.value_key)
        return _empty(dtype) if f is None else _values(f, dtype, key, name)
    raise TypeError(f"feature {key!r}: expected a FixedLenFeature, FixedLenSequenceFeature, "
                    f"VarLenFeature or RaggedFeature, got {type(cfg).__name__}")


def _check_features(features, what="features"):
    if not isinstance(features, dict):
        raise TypeError(f"argument `{what}` must be a dict of feature configurations, got "
                        f"{type(features).__name__}")
    if isinstance(features, dict) and not features and what == "features":
        raise ValueError("Missing: features was empty.")
    for key, cfg in features.items():
        if isinstance(cfg, FixedLenFeature) and any(
                s is None or int(s) < 0 for s in (cfg.shape or [])):
            raise ValueError(f"All dimensions of shape for feature {key} need to be known "
                             f"but received {list(cfg.shape)}.")


def _result(a):
    return _text.text_result(a)


def _sparse(values_list, dtype):
    """A SparseTensor [batch, max] of per-example 1-D values (or [max] unbatched)."""
    from .sparse import SparseTensor
    idx, vals = [], []
    for b, v in enumerate(values_list):
        for j in range(len(v)):
            idx.append((b, j))
        vals.append(v)
    values = np.concatenate(vals) if vals else _empty(dtype)
    if values.dtype != object and dtype != "string":
        values = values.astype(np.dtype(dtype))
    width = max((len(v) for v in values_list), default=0)
    indices = np.asarray(idx, np.int64).reshape(-1, 2)
    return SparseTensor(indices=indices, values=_result(values),
                        dense_shape=np.asarray([len(values_list), width], np.int64))


def _unbatched_sparse(values, dtype):
    from .sparse import SparseTensor
    return SparseTensor(indices=np.arange(len(values), dtype=np.int64)[:, None],
                        values=_result(values),
                        dense_shape=np.asarray([len(values)], np.int64))


def _pad(arrays, dtype, shape, default):
    width = max((a.shape[0] for a in arrays), default=0)
    out = _empty(dtype, (len(arrays), width, *shape))
    if dtype == "string":
        out[...] = b"" if default is None else default
    elif default is not None:
        out[...] = default
    for b, a in enumerate(arrays):
        out[b, :a.shape[0]] = a
    return out


def _tf_order(features, out):
    """``out`` in the order of TF's result: the VarLenFeature (sparse) keys, then
    the FixedLen and FixedLenSequence (dense) ones, then the RaggedFeature ones,
    each group sorted by key (TF's parser lists its configuration so)."""
    def group(key):
        cfg = features[key]
        return (0 if isinstance(cfg, VarLenFeature) else 2 if isinstance(cfg, RaggedFeature)
                else 1)
    return {k: out[k] for k in sorted(out, key=lambda k: (group(k), k))}


def parse_single_example(serialized, features, example_names=None, name=None):
    """One serialized ``tf.train.Example`` parsed into a dict of tensors (one per key
    of ``features``; a VarLenFeature gives a ``tf.SparseTensor``).

    >>> import eagertape.tf as tf
    >>> ex = tf.train.Example(features=tf.train.Features(feature={
    ...     "t": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"a", b"b"]))}))
    >>> sp = tf.io.parse_single_example(ex.SerializeToString(),
    ...                                 {"t": tf.io.VarLenFeature(tf.string)})["t"]
    >>> sp.values.numpy(), sp.dense_shape.numpy()
    (array([b'a', b'b'], dtype=object), array([2]))
    """
    _check_features(features)
    data = _text.host(serialized, "serialized")
    if data.ndim != 0:
        raise ValueError(f"Input serialized must be a scalar, got shape {list(data.shape)}")
    nm = _names(example_names, 1)[0]
    fmap = _parse(data[()], nm).features.feature
    out = {}
    for key, cfg in features.items():
        v = _one(fmap, key, cfg, nm)
        if isinstance(cfg, VarLenFeature):
            out[key] = _unbatched_sparse(v, _dtype(cfg, key))
        elif isinstance(cfg, RaggedFeature):
            out[key] = _result(v)
        else:
            out[key] = _result(v)
    return _tf_order(features, out)


def parse_example(serialized, features, example_names=None, name=None):
    """A batch (1-D string tensor) of serialized Examples parsed into a dict of
    batched tensors: ``[batch] + shape`` for a FixedLenFeature, a
    ``tf.SparseTensor`` ``[batch, max]`` for a VarLenFeature, ``[batch, max] +
    shape`` (padded) for a FixedLenSequenceFeature, a ``tf.RaggedTensor`` for a
    RaggedFeature.

    >>> import eagertape.tf as tf
    >>> def ex(v):
    ...     return tf.train.Example(features=tf.train.Features(feature={"v": tf.train.Feature(
    ...         int64_list=tf.train.Int64List(value=v))})).SerializeToString()
    >>> out = tf.io.parse_example([ex([1, 2]), ex([3])], {"v": tf.io.VarLenFeature(tf.int64)})
    >>> tf.sparse.to_dense(out["v"]).numpy()
    array([[1, 2],
           [3, 0]])
    """
    _check_features(features)
    data = _text.host(serialized, "serialized")
    if data.ndim > 1:
        raise ValueError(f"Input serialized must be a vector, got shape {list(data.shape)}")
    if data.ndim == 0:
        return parse_single_example(data, features, example_names)
    names = _names(example_names, data.shape[0])
    maps = [_parse(s, nm).features.feature for s, nm in zip(data.tolist(), names)]
    out = {}
    for key, cfg in features.items():
        dtype = _dtype(cfg, key)
        vals = [_one(m, key, cfg, nm, batch=True) for m, nm in zip(maps, names)]
        if isinstance(cfg, FixedLenFeature):
            out[key] = _result(np.stack(vals) if vals else _empty(dtype, (0, *_shape(cfg))))
        elif isinstance(cfg, FixedLenSequenceFeature):
            if not cfg.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires "
                                 "allow_missing to be True.")
            out[key] = _result(_pad(vals, dtype, _shape(cfg), cfg.default_value))
        elif isinstance(cfg, VarLenFeature):
            out[key] = _sparse(vals, dtype)
        else:
            from ._ragged import RaggedTensor
            flat = np.concatenate(vals) if vals else _empty(dtype)
            out[key] = RaggedTensor.from_row_lengths(
                _result(flat), np.asarray([len(v) for v in vals],
                                          np.dtype(cfg.row_splits_dtype)))
    return _tf_order(features, out)


def _parse_sequence(serialized, name):
    from ._proto.example import SequenceExample
    from google.protobuf.message import DecodeError
    try:
        return SequenceExample.FromString(serialized)
    except DecodeError:
        raise InvalidArgumentError(f"Could not parse example input, value: "
                                   f"'{serialized[:64]!r}'") from None


def _sequence_one(lists, key, cfg, name):
    """The ``[steps] + shape`` array (or per-step values, for VarLen) of feature list
    ``key``."""
    dtype = _dtype(cfg, key)
    fl = lists.get(key)
    if fl is None:
        if isinstance(cfg, FixedLenSequenceFeature) and not cfg.allow_missing:
            raise InvalidArgumentError(
                f"Name: {name}, Feature list '{key}' is required but could not be found.  "
                "Did you mean to include it in feature_list_dense_missing_assumed_empty or "
                "feature_list_dense_defaults?")
        return [] if isinstance(cfg, VarLenFeature) else _empty(dtype, (0, *_shape(cfg)))
    steps = [_values(f, dtype, key, name) for f in fl.feature]
    if isinstance(cfg, VarLenFeature):
        return steps
    if not isinstance(cfg, (FixedLenSequenceFeature, FixedLenFeature)):
        raise TypeError(f"sequence feature {key!r}: expected a FixedLenSequenceFeature or "
                        f"VarLenFeature, got {type(cfg).__name__}")
    shape = _shape(cfg)
    n = int(np.prod(shape, dtype=np.int64))
    for t, v in enumerate(steps):
        if v.size != n:
            raise InvalidArgumentError(
                f"Name: {name}, Key: {key}, Index: {t}.  Number of {_KIND[dtype][1]} values != "
                f"expected.  values size: {v.size} but output shape: "
                f"[{','.join(map(str, shape))}]")
    return np.stack([v.reshape(shape) for v in steps]) if steps else _empty(
        dtype, (0, *shape))


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None):
    """One serialized ``tf.train.SequenceExample`` parsed into ``(context,
    sequences)``: dicts of tensors, ``[steps] + shape`` for each
    FixedLenSequenceFeature, a ``tf.SparseTensor`` ``[steps, max]`` for a
    VarLenFeature.

    >>> import eagertape.tf as tf
    >>> f = lambda v: tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    >>> se = tf.train.SequenceExample(
    ...     context=tf.train.Features(feature={"len": f([2])}),
    ...     feature_lists=tf.train.FeatureLists(feature_list={
    ...         "tok": tf.train.FeatureList(feature=[f([5]), f([6])])}))
    >>> ctx, seq = tf.io.parse_single_sequence_example(
    ...     se.SerializeToString(), {"len": tf.io.FixedLenFeature([], tf.int64)},
    ...     {"tok": tf.io.FixedLenSequenceFeature([], tf.int64)})
    >>> int(ctx["len"]), seq["tok"].numpy()
    (2, array([5, 6]))
    """
    context_features = context_features or {}
    sequence_features = sequence_features or {}
    _check_features(context_features, "context_features")
    _check_features(sequence_features, "sequence_features")
    if not context_features and not sequence_features:
        raise ValueError("Missing features.")
    data = _text.host(serialized, "serialized")
    if data.ndim != 0:
        raise ValueError(f"Input serialized must be a scalar, got shape {list(data.shape)}")
    nm = _names(example_name, 1)[0]
    se = _parse_sequence(data[()], nm)
    ctx = {}
    for key, cfg in context_features.items():
        v = _one(se.context.feature, key, cfg, nm)
        ctx[key] = _unbatched_sparse(v, _dtype(cfg, key)) if isinstance(
            cfg, VarLenFeature) else _result(v)
    seq = {}
    for key, cfg in sequence_features.items():
        v = _sequence_one(se.feature_lists.feature_list, key, cfg, nm)
        seq[key] = _sparse(v, _dtype(cfg, key)) if isinstance(cfg, VarLenFeature) \
            else _result(v)
    return _tf_order(context_features, ctx), _tf_order(sequence_features, seq)


def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None):
    """A batch of serialized SequenceExamples parsed into ``(context, sequences,
    lengths)``: sequences padded to the longest (``[batch, steps] + shape``), and
    each FixedLenSequenceFeature's per-example step counts in ``lengths``.

    >>> import eagertape.tf as tf
    >>> f = lambda v: tf.train.Feature(float_list=tf.train.FloatList(value=v))
    >>> def se(*steps):
    ...     return tf.train.SequenceExample(feature_lists=tf.train.FeatureLists(feature_list={
    ...         "x": tf.train.FeatureList(feature=[f([s]) for s in steps])})).SerializeToString()
    >>> _, seq, lengths = tf.io.parse_sequence_example(
    ...     [se(1.0, 2.0), se(3.0)], sequence_features={"x": tf.io.FixedLenSequenceFeature(
    ...         [], tf.float32)})
    >>> seq["x"].numpy(), lengths["x"].numpy()
    (array([[1., 2.],
           [3., 0.]], dtype=float32), array([2, 1]))
    """
    context_features = context_features or {}
    sequence_features = sequence_features or {}
    data = _text.host(serialized, "serialized")
    if data.ndim != 1:
        raise ValueError(f"Input serialized must be a vector, got shape {list(data.shape)}")
    names = _names(example_names, data.shape[0])
    parsed = [_parse_sequence(s, nm) for s, nm in zip(data.tolist(), names)]
    ctx = {}
    for key, cfg in context_features.items():
        vals = [_one(p.context.feature, key, cfg, nm, batch=True)
                for p, nm in zip(parsed, names)]
        dtype = _dtype(cfg, key)
        ctx[key] = _sparse(vals, dtype) if isinstance(cfg, VarLenFeature) else _result(
            np.stack(vals) if vals else _empty(dtype, (0, *_shape(cfg))))
    seq, lengths = {}, {}
    for key, cfg in sequence_features.items():
        dtype = _dtype(cfg, key)
        vals = [_sequence_one(p.feature_lists.feature_list, key, cfg, nm)
                for p, nm in zip(parsed, names)]
        if isinstance(cfg, VarLenFeature):
            from .sparse import SparseTensor
            idx, flat = [], []
            steps = max((len(v) for v in vals), default=0)
            width = max((len(s) for v in vals for s in v), default=0)
            for b, v in enumerate(vals):
                for t, s in enumerate(v):
                    idx.extend((b, t, j) for j in range(len(s)))
                    flat.append(s)
            values = np.concatenate(flat) if flat else _empty(dtype)
            seq[key] = SparseTensor(indices=np.asarray(idx, np.int64).reshape(-1, 3),
                                    values=_result(values),
                                    dense_shape=np.asarray([len(vals), steps, width], np.int64))
        else:
            seq[key] = _result(_pad(vals, dtype, _shape(cfg), cfg.default_value))
            lengths[key] = _result(np.asarray([v.shape[0] for v in vals], np.int64))
    return (_tf_order(context_features, ctx), _tf_order(sequence_features, seq),
            _tf_order(sequence_features, lengths))


def decode_json_example(json_examples, name=None):
    """Each ``tf.train.Example`` written as JSON (protobuf's JSON mapping) turned into
    its serialized bytes.

    >>> import eagertape.tf as tf
    >>> s = tf.io.decode_json_example(
    ...     '{"features": {"feature": {"a": {"int64List": {"value": ["3"]}}}}}')
    >>> tf.train.Example.FromString(s.numpy()).features.feature["a"].int64_list.value[0]
    3
    """
    from google.protobuf import json_format
    from ._proto.example import Example, unpacked_example_class
    unpacked = unpacked_example_class()
    data = _text.host(json_examples, "json_examples")
    out = np.empty(data.shape, object)
    for i, s in np.ndenumerate(data):
        ex = Example()
        try:
            json_format.Parse(s.decode("utf-8"), ex, descriptor_pool=None)
        except json_format.ParseError as e:
            raise InvalidArgumentError(f"Error while parsing JSON: {e}") from None
        out[i] = unpacked.FromString(ex.SerializeToString()).SerializeToString()
    return _text.wrap(out)

# Imported on first use, after the facade scoped its modules: its public functions
# run with TF's 64-bit types on as the others do (tf/_x64.py).
from . import _x64  # noqa: E402

_x64.scope([__name__])
