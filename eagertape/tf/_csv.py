"""``tf.data.experimental.CsvDataset`` and ``make_csv_dataset``: CSV files read on
the host, as TF reads them.

The record parser follows TF's CSV kernel (``csv_dataset_op.cc``), not Python's
``csv`` module, whose rules differ: a field is quoted only when its first
character is ``"`` (a ``""`` inside is one quote; a lone quote inside is an
error), an unquoted field may not hold a quote, records end at ``\\n``, ``\\r``
or ``\\r\\n``, an empty line is one empty field, ints and floats may carry
spaces around them, an empty or ``na_value`` field takes its column's default
(an error where the column has none). A record default is a dtype (a required
column) where TF's ``d in (tf.float32, ...)`` says so: a number equal to a
DataType enum (1, 2, 3, 7, 9, True) and any NumPy value count, as in TF. An
error consumes its record, as TF's
(``ignore_errors`` skips it). ``make_csv_dataset``'s header and type inference
are TF's Python (the ``csv`` module, NumPy's int32/int64/float32/float64 tests).
Differences from TF: ``shuffle=True`` orders files and records by eagertape's
generator, not TF's; a float32 field is rounded through float64.
"""
import collections
import csv
import gzip
import io
import re
import warnings

import numpy as np

from ..extend import InvalidArgumentError
from ..extend import TensorLike as _TensorLike
from . import _iterator_state as _state
from . import _text
from . import _tfrecord
from ._spec import TensorSpec
from .dtypes import as_dtype as _as_dtype

_CSV_TYPES = ("float32", "float64", "int32", "int64", "string")
_SPACE = b" \t\n\v\f\r"
_INT = re.compile(rb"[ \t\n\v\f\r]*[+-]?[0-9]+[ \t\n\v\f\r]*\Z")
_FLOAT = re.compile(rb"[ \t\n\v\f\r]*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                    rb"|(?i:inf(?:inity)?)|(?i:nan(?:\([0-9A-Za-z_]*\))?))[ \t\n\v\f\r]*\Z")
_LIMITS = {"int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1)}


def _scalar_bytes(value):
    out = np.empty((), object)
    out[()] = value
    return out


class _Column:
    """One output column: its dtype name and its default (None: required)."""
    __slots__ = ("dtype", "default", "np_dtype")

    def __init__(self, dtype, default):
        self.dtype, self.default = dtype, default
        self.np_dtype = None if dtype == "string" else np.dtype(dtype)

    def convert(self, field, index, na_value):
        if field == b"" or field == na_value:
            if self.default is None:
                raise _RecordError(f"Field {index} is required but missing in record!")
            return self.default
        if self.dtype == "string":
            return _scalar_bytes(field)
        if self.np_dtype.kind == "i":
            if not _INT.match(field):
                raise _RecordError(f"Field {index} in record is not a valid {self.dtype}: "
                                   f"{field.decode('utf-8', 'replace')}")
            value = int(field.strip(_SPACE))
            lo, hi = _LIMITS[self.dtype]
            if not lo <= value <= hi:
                raise _RecordError(f"Field {index} in record is not a valid {self.dtype}: "
                                   f"{field.decode('utf-8', 'replace')}")
            return np.asarray(value, self.np_dtype)
        if not _FLOAT.match(field):
            kind = "float" if self.dtype == "float32" else "double"
            raise _RecordError(f"Field {index} in record is not a valid {kind}: "
                               f"{field.decode('utf-8', 'replace')}")
        text = field.strip(_SPACE).lower()
        if b"nan" in text:
            text = b"-nan" if text.startswith(b"-") else b"nan"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)     # 1e40 as float32: inf, as TF
            return np.asarray(float(text), self.np_dtype)


class _RecordError(Exception):
    pass


_ENUMS = {1: "float32", 2: "float64", 3: "int32", 7: "string", 9: "int64"}


def _as_csv_dtype(d):
    """The dtype ``d`` names, as TF's ``d in (tf.float32, ..., tf.string)`` finds it (so
    a number equal to a DataType enum, 1: float32, 3: int32, 9: int64, ..., or True,
    is one: TF's quirk), else None (a default value)."""
    if isinstance(d, (np.ndarray, np.generic)) and not isinstance(d, np.bool_):
        # TF's as_dtype: the enums first (np.int64(2) is float64), then the value's
        # .dtype (np.float32(0.5) is tf.float32)
        if isinstance(d, np.number) and d in _ENUMS:
            return _ENUMS[d]
        name = "string" if d.dtype.kind in "OSU" else d.dtype.name
        return name if name in _CSV_TYPES else None
    if isinstance(d, (_Column, _TensorLike, _text.StringTensor, list, tuple, bytes)):
        return None
    if isinstance(d, (bool, int, float, np.bool_)):
        try:
            return _ENUMS.get(d)
        except TypeError:
            return None
    try:
        name = _as_dtype(d).name
    except (TypeError, ValueError, KeyError):
        return None
    if name in _CSV_TYPES or not isinstance(d, str):
        return name
    return None


def _columns(record_defaults, argname="record_defaults"):
    """``record_defaults`` (dtypes: required; scalars: optional with that default;
    empty tensors: required) as ``_Column``s."""
    if isinstance(record_defaults, (str, bytes)) or not hasattr(record_defaults, "__len__"):
        raise TypeError(f"argument `{argname}` must be a list with one item per column: a "
                        "dtype (tf.float32, tf.float64, tf.int32, tf.int64, tf.string) for a "
                        "required column, or a default value for an optional one")
    out = []
    for i, d in enumerate(record_defaults):
        if isinstance(d, _Column):          # make_csv_dataset's inferred columns
            out.append(d)
            continue
        dtype = _as_csv_dtype(d)
        if dtype is not None:
            if dtype not in _CSV_TYPES:
                raise TypeError(f"argument `{argname}`: item {i} has dtype {dtype}; CSV "
                                f"columns are one of {', '.join(_CSV_TYPES)}")
            out.append(_Column(dtype, None))
            continue
        if isinstance(d, _text.StringTensor) or _text.is_text(d):
            arr = _text.host(d, argname)
            dtype = "string"
        else:
            arr = np.asarray(d.numpy() if hasattr(d, "numpy") else d)
            if arr.dtype == np.float64 and not isinstance(d, _TensorLike):
                arr = arr.astype(np.float32)       # Python floats are float32, as in TF
            elif arr.dtype == np.int64 and not isinstance(d, _TensorLike):
                arr = arr.astype(np.int32)         # Python ints are int32
            dtype = arr.dtype.name
            if dtype not in _CSV_TYPES:
                raise TypeError(f"argument `{argname}`: item {i} ({d!r}) has dtype {dtype}; "
                                f"CSV columns are one of {', '.join(_CSV_TYPES)}")
        if arr.ndim > 1 or arr.size > 1:
            raise InvalidArgumentError(f"argument `{argname}`: item {i} must be a scalar "
                                       "default or an empty tensor (a required column), got "
                                       f"shape {list(arr.shape)}")
        if arr.size == 0:
            out.append(_Column(dtype, None))
        else:
            value = arr.reshape(())
            out.append(_Column(dtype, _scalar_bytes(value[()]) if dtype == "string"
                               else np.asarray(value, np.dtype(dtype))))
    if not out:
        raise InvalidArgumentError(f"argument `{argname}` must name at least one column")
    return out


class _Parser:
    """TF's CSV record reader over one file's bytes."""

    def __init__(self, delim, use_quote):
        self.delim, self.use_quote = delim, use_quote
        self.delim_byte = delim[0]
        self.stop = re.compile(b"[" + re.escape(delim) + b"\r\n]")

    def record(self, data, pos):
        """The fields of the record at ``pos`` (a list of bytes), the first parse
        error in it (or None) and the position after it; None at the end."""
        if pos >= len(data):
            return None
        fields, error, n = [], None, len(data)
        while True:
            if pos >= n:                          # after a delimiter at the end: empty
                fields.append(b"")
                return fields, error, pos
            if self.use_quote and data[pos] == 34:
                field, err, pos, end = self._quoted(data, pos)
            else:
                field, err, pos, end = self._unquoted(data, pos)
            error = error or err
            fields.append(field)
            if end:
                return fields, error, pos

    def _unquoted(self, data, pos):
        m = self.stop.search(data, pos)
        stop = m.start() if m else len(data)
        field = data[pos:stop]
        err = None
        if self.use_quote and b'"' in field:
            err = "Unquoted fields cannot have quotes inside"
        if stop >= len(data):
            return field, err, stop, True
        ch = data[stop]
        if ch == self.delim_byte:
            return field, err, stop + 1, False
        return field, err, self._newline(data, stop), True

    def _quoted(self, data, start):
        p, err, n = start + 1, None, len(data)
        while True:
            q = data.find(b'"', p)
            if q < 0:
                return None, "Reached end of file without closing quoted field in record", n, True
            field = None if err else data[start + 1:q].replace(b'""', b'"')
            if q + 1 >= n:
                return field, err, n, True
            nxt = data[q + 1]
            if nxt == self.delim_byte:
                return field, err, q + 2, False
            if nxt in (10, 13):
                return field, err, self._newline(data, q + 1), True
            if nxt != 34:
                err = err or "Quote inside a string has to be escaped by another quote"
            p = q + 2

    @staticmethod
    def _newline(data, at):
        # past the \n or \r at ``at`` (and the \n of a \r\n)
        if data[at] == 13 and at + 1 < len(data) and data[at + 1] == 10:
            return at + 2
        return at + 1


class _CsvRecords(_state.Pass):
    """CsvDataset's pass: file after file, record after record."""
    __slots__ = ("reader", "f", "pos", "data")

    def __init__(self, reader):
        self.reader, self.f, self.pos, self.data = reader, 0, None, None

    def __next__(self):
        r = self.reader
        while self.f < len(r.paths):
            if self.data is None:
                with _tfrecord._open(r.paths[self.f], r.kind) as fh:
                    self.data = fh.read()
                if self.pos is None:
                    self.pos = 0
                    if r.header:
                        got = r.parser.record(self.data, 0)
                        if got is None or got[1] is not None:
                            self.pos = len(self.data) if got is None else got[2]
                            if not r.ignore_errors:
                                raise InvalidArgumentError(
                                    f"Can't read header of file {r.paths[self.f]}")
                        else:
                            self.pos = got[2]
            got = r.parser.record(self.data, self.pos)
            if got is None:
                self.f, self.pos, self.data = self.f + 1, None, None
                continue
            fields, error, self.pos = got
            try:
                return r.convert(fields, error)
            except _RecordError as e:
                if r.ignore_errors:
                    continue
                raise InvalidArgumentError(f"{e} (file {r.paths[self.f]})") from None
        raise StopIteration

    def save(self):
        return {"file": self.f, "pos": -1 if self.pos is None else self.pos}

    def restore(self, state):
        self.f, self.data = int(state["file"]), None
        pos = int(state["pos"])
        self.pos = None if pos < 0 else pos


class _Reader:
    def __init__(self, paths, kind, columns, header, delim, use_quote, na_value, select,
                 exclude, ignore_errors):
        self.paths, self.kind, self.columns, self.header = paths, kind, columns, header
        self.parser = _Parser(delim, use_quote)
        self.na_value, self.select, self.exclude = na_value, select, exclude
        self.ignore_errors = ignore_errors

    def convert(self, fields, error):
        cols, out = self.columns, []
        if self.select:
            chosen = [fields[i] for i in self.select if i < len(fields)]
        elif self.exclude:
            excl = set(self.exclude)
            chosen = [f for i, f in enumerate(fields) if i not in excl]
        else:
            chosen = fields
        for i, field in enumerate(chosen):
            if i >= len(cols):
                error = error or f"Expect {len(cols)} fields but have more in record"
                break
            if field is None:
                continue
            try:
                out.append(cols[i].convert(field, i, self.na_value))
            except _RecordError as e:
                error = error or str(e)
                out.append(None)
        if error is None and len(out) != len(cols):
            error = f"Expect {len(cols)} fields but have {len(out)} in record"
        if error is not None:
            raise _RecordError(error)
        return tuple(out)


def _flag(value, argname):
    if hasattr(value, "numpy"):
        value = value.numpy()
    value = np.asarray(value)
    if value.shape != () or value.dtype != bool:
        raise TypeError(f"argument `{argname}` must be a bool, got {value!r}")
    return bool(value)


def _one_string(value, argname, default=""):
    if value is None:
        value = default
    arr = _text.host(value, argname)
    if arr.shape != ():
        raise InvalidArgumentError(f"argument `{argname}` must be a scalar string")
    return arr[()]


def _indices(value, argname):
    if value is None:
        return []
    arr = np.asarray(value.numpy() if hasattr(value, "numpy") else value).reshape(-1)
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"argument `{argname}` must be a list of column indices (ints)")
    out = [int(i) for i in arr.tolist()]
    if any(i < 0 for i in out) or any(b <= a for a, b in zip(out, out[1:])):
        raise InvalidArgumentError(f"argument `{argname}` must be a sorted list of distinct, "
                                   f"non-negative column indices, got {out}")
    return out


# tf.data's module, given by tf/data.py when it installs the CSV readers (it imports
# this module, so this one takes it as an argument rather than importing it back).
_data = None


def _make_csv_dataset_class(data):
    global _data
    _data = data
    Dataset, UNKNOWN_CARDINALITY, _record_filenames = (
        data.Dataset, data.UNKNOWN_CARDINALITY, data._record_filenames)

    class CsvDataset(Dataset):
        """``tf.data.experimental.CsvDataset``: the records of CSV files, one tuple
        of scalars per record, typed by ``record_defaults`` (a dtype: a required
        column; a value: an optional one with that default). ``select_cols`` or
        ``exclude_cols`` (sorted indices) pick columns; ``header`` skips each
        file's first record; ``na_value`` reads as missing; ``buffer_size`` is
        accepted.

        >>> import os, tempfile
        >>> import eagertape.tf as tf
        >>> path = os.path.join(tempfile.mkdtemp(), "m.csv")
        >>> _ = open(path, "w").write('1,"a,b",2.5\\n,c,\\n')
        >>> ds = tf.data.experimental.CsvDataset(path, [0, tf.string, 0.5])
        >>> [(int(a), b.numpy(), float(c)) for a, b, c in ds]
        [(1, b'a,b', 2.5), (0, b'c', 0.5)]
        """

        def __init__(self, filenames, record_defaults, compression_type=None,
                     buffer_size=None, header=False, field_delim=",", use_quote_delim=True,
                     na_value="", select_cols=None, exclude_cols=None, name=None,
                     _ignore_errors=False):
            paths = _record_filenames(filenames)
            kind = _tfrecord._dataset_kind(compression_type)
            _tfrecord._positive(buffer_size, "buffer_size")
            columns = _columns(record_defaults)
            delim = _one_string(field_delim, "field_delim", ",")
            if len(delim) != 1:
                raise InvalidArgumentError("argument `field_delim` must be one character, got "
                                           f"{delim!r}")
            select = _indices(select_cols, "select_cols")
            exclude = _indices(exclude_cols, "exclude_cols")
            if select and exclude:
                raise InvalidArgumentError("give at most one of arguments `select_cols` and "
                                           "`exclude_cols`")
            if select and len(select) != len(columns):
                raise InvalidArgumentError(
                    f"argument `select_cols` has {len(select)} indices but "
                    f"`record_defaults` {len(columns)} columns: give one default per "
                    "selected column")
            reader = _Reader(paths, kind, columns, _flag(header, "header"), delim,
                             _flag(use_quote_delim, "use_quote_delim"),
                             _one_string(na_value, "na_value"), select, exclude,
                             _ignore_errors)
            spec = tuple(TensorSpec((), _as_dtype(c.dtype)) for c in columns)
            super().__init__(lambda: _CsvRecords(reader), UNKNOWN_CARDINALITY, spec)

    return CsvDataset


# -- make_csv_dataset: TF's Python (tensorflow/python/data/experimental/ops/readers.py)

def _is_valid_int32(s):
    try:
        return np.int32(s) == np.int64(s)
    except (ValueError, OverflowError):
        return False


def _is_valid_int64(s):
    try:
        np.int64(s)
        return True
    except (ValueError, OverflowError):
        return False


def _is_valid_float(s, t):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return t(s) < np.inf
    except ValueError:
        return False


_INFER = ("int32", "int64", "float32", "float64", "string")


def _infer_type(s, na_value, prev):
    if s in ("", na_value):
        return prev
    checks = (_is_valid_int32, _is_valid_int64, lambda v: _is_valid_float(v, np.float32),
              lambda v: _is_valid_float(v, np.float64), lambda v: True)
    for i, (t, ok) in enumerate(zip(_INFER, checks)):
        if ok(s) and (prev is None or prev in _INFER[:i + 1]):
            return t


def _opener(compression_type, encoding):
    kind = compression_type
    if hasattr(kind, "numpy"):
        kind = kind.numpy()
    if isinstance(kind, bytes):
        kind = kind.decode()
    if kind is None or kind == "":
        return lambda name: io.open(name, "r", encoding=encoding, newline="")
    if kind == "GZIP":
        return lambda name: gzip.open(name, "rt", encoding=encoding, newline="")
    if kind == "ZLIB":
        raise ValueError(f"`compression_type` {compression_type} is not supported for "
                         "probing columns.")
    raise ValueError(f"Received unknown `compression_type` {compression_type}. Expected: "
                     "GZIP, ZLIB or \"\" (empty string).")


def _file_names(file_pattern):
    from . import io as _io
    patterns = file_pattern if isinstance(file_pattern, list) else [file_pattern]
    if isinstance(file_pattern, list) and not file_pattern:
        raise ValueError("Argument `file_pattern` should not be empty.")
    names = []
    for p in patterns:
        names.extend(n.decode() if isinstance(n, bytes) else n
                     for n in _io.matching_files(p).numpy().tolist())
    if not names:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    return sorted(names)


def _csv_kwargs(delim, use_quote):
    return {"delimiter": delim,
            "quoting": csv.QUOTE_MINIMAL if use_quote else csv.QUOTE_NONE}


def _infer_column_names(names, delim, use_quote, open_fn):
    def first(name):
        with open_fn(name) as f:
            try:
                return next(csv.reader(f, **_csv_kwargs(delim, use_quote)))
            except StopIteration:
                raise ValueError(f"Failed when reading the header line of {name}. Is it an "
                                 "empty file?") from None
    columns = first(names[0])
    for name in names[1:]:
        if first(name) != columns:
            raise ValueError("All input CSV files should have the same column names in the "
                             f"header row. File {name} has different column names.")
    return columns


def _infer_column_defaults(names, num_cols, delim, use_quote, na_value, header, rows,
                           select, open_fn):
    select = range(num_cols) if select is None else select
    types = [None] * len(select)
    i = 0
    for name in names:
        with open_fn(name) as f:
            reader = csv.reader(f, **_csv_kwargs(delim, use_quote))
            row_num = 1
            if header:
                next(reader)
                row_num += 1
            for row in reader:
                if rows is not None and i >= rows:
                    break
                if len(row) != num_cols:
                    raise ValueError(f"Problem inferring types: CSV row {row_num} has "
                                     f"{len(row)} number of fields. Expected: {num_cols}.")
                row_num += 1
                for j, c in enumerate(select):
                    types[j] = _infer_type(row[c], na_value, types[j])
                i += 1
        if rows is not None and i >= rows:
            break
    return [_Column("string", _scalar_bytes(b"")) if (t or "string") == "string"
            else _Column(t, np.asarray(0, t)) for t in types]


def _sorted_col_indices(select_columns, column_names):
    index = {n: i for i, n in enumerate(column_names)}
    out = []
    for v in select_columns:
        if isinstance(v, (int, np.integer)):
            if v < 0 or v >= len(column_names):
                raise ValueError(f"Column index {v} specified in `select_columns` should be > 0 "
                                 f" and <= {len(column_names)}, which is the number of columns.")
            out.append(int(v))
        elif v not in index:
            raise ValueError(f"Column {v} specified in `select_columns` must be of one of the "
                             f"columns: {index.keys()}.")
        else:
            out.append(index[v])
    result = sorted(set(out))
    if len(result) != len(select_columns):
        dup = {a for a, b in zip(sorted(out)[:-1], sorted(out)[1:]) if a == b}
        raise ValueError(f"The `select_columns` argument contains duplicate columns: {dup}.")
    return result


class _Features(_state.Pass):
    """A batch of records (a tuple of columns) as TF's features dict (+ label)."""
    __slots__ = ("up", "names", "label")

    def __init__(self, up, names, label):
        self.up, self.names, self.label = up, names, label

    def __next__(self):
        features = collections.OrderedDict(zip(self.names, next(self.up)))
        if self.label is not None:
            label = features.pop(self.label)
            return features, label
        return features

    def save(self):
        return {"up": _state.save(self.up)}

    def restore(self, state):
        _state.restore(self.up, state["up"])


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False,
                     encoding="utf-8"):
    """``tf.data.experimental.make_csv_dataset``: batches of CSV records as an
    OrderedDict of columns (named by the header, or ``column_names``), with the
    ``label_name`` column apart: ``(features, label)``. Column types are inferred
    from the first ``num_rows_for_inference`` rows (int32, int64, float32, float64
    or string, as TF) unless ``column_defaults`` gives them. Repeats forever
    (``num_epochs=None``: full batches only) and shuffles (eagertape's order, not
    TF's) unless told otherwise.

    >>> import os, tempfile
    >>> import eagertape.tf as tf
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write("a,b,y\\n1,x,0.5\\n2,,1.5\\n3,z,2.5\\n")
    >>> ds = tf.data.experimental.make_csv_dataset(path, batch_size=2, label_name="y",
    ...                                            num_epochs=1, shuffle=False)
    >>> [({k: v.numpy().tolist() for k, v in f.items()}, y.numpy().tolist()) for f, y in ds]
    [({'a': [1, 2], 'b': [b'x', b'']}, [0.5, 1.5]), ({'a': [3], 'b': [b'z']}, [2.5])]
    """
    Dataset, AUTOTUNE = _data.Dataset, _data.AUTOTUNE
    reads = 1 if num_parallel_reads is None else int(num_parallel_reads)
    names = _file_names(file_pattern)
    na = na_value.decode() if isinstance(na_value, bytes) else na_value
    open_fn = None
    if column_names is None or column_defaults is None:
        open_fn = _opener(compression_type, encoding)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is "
                             "provided.")
        column_names = _infer_column_names(names, field_delim, use_quote_delim, open_fn)
    column_names = list(column_names)
    if len(column_names) != len(set(column_names)):
        s = sorted(column_names)
        dup = {a for a, b in zip(s[:-1], s[1:]) if a == b}
        raise ValueError("Either `column_names` argument or CSV header row contains "
                         f"duplicate column names: {dup}.")
    if select_columns is not None:
        select_columns = _sorted_col_indices(select_columns, column_names)
    if column_defaults is None:
        column_defaults = _infer_column_defaults(names, len(column_names), field_delim,
                                                 use_quote_delim, na, header,
                                                 num_rows_for_inference, select_columns,
                                                 open_fn)
    if select_columns is not None and len(column_defaults) != len(select_columns):
        raise ValueError("If specified, `column_defaults` and `select_columns` must have the "
                         f"same length: `column_defaults` has length {len(column_defaults)}, "
                         f"`select_columns` has length {len(select_columns)}.")
    if select_columns is not None and len(column_names) > len(select_columns):
        column_names = [column_names[i] for i in select_columns]
    if label_name is not None and label_name not in column_names:
        raise ValueError("`label_name` provided must be one of the columns: "
                         f"{column_names}. Received: {label_name}.")

    def read(filenames):
        return _data.experimental.CsvDataset(
            filenames, column_defaults, compression_type=compression_type, header=header,
            field_delim=field_delim, use_quote_delim=use_quote_delim, na_value=na_value,
            select_cols=select_columns, _ignore_errors=ignore_errors)

    if shuffle or reads != 1:
        files = Dataset.from_tensor_slices(names)
        if shuffle:
            files = files.shuffle(len(names), shuffle_seed)
        dataset = files.interleave(read, cycle_length=None if reads == AUTOTUNE else reads,
                                   block_length=1)
    else:
        dataset = read(names)            # one file after another: the interleave of 1
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    batches = dataset.batch(batch_size, drop_remainder=num_epochs is None)
    spec = batches._spec
    if spec is not None:
        spec = _Features(iter([spec]), column_names, label_name).__next__()
    up = batches._make
    return Dataset(lambda: _Features(up(), column_names, label_name), batches._cardinality,
                   spec)
