"""``tf.lookup``: TF's static tables, on the host. Keys are strings or integers
and values strings or numbers; a lookup maps every key of a tensor (a string
tensor, or an integer one) to its value, with TF's dtypes and shapes.

``StaticVocabularyTable`` gives a key that is not in the vocabulary the id
``vocab_size + Fingerprint64(key) % num_oov_buckets``: TF's buckets, as TF hashes
(farmhash's Fingerprint64 of the key's bytes, integers as their decimal text;
needs ``pyfarmhash``).

A table is built once, from values known then; inside a ``tf.function`` a lookup
of keys known when it is traced (a string tensor, a constant) is a constant of
the trace, and a lookup of traced keys raises a TypeError saying to look up before
the function (as the host keeps the table, and JAX traces numbers only).

>>> import eagertape.tf as tf
>>> init = tf.lookup.KeyValueTensorInitializer(["cat", "dog"], tf.constant([0, 1], tf.int64))
>>> table = tf.lookup.StaticHashTable(init, default_value=-1)
>>> table.lookup(tf.constant(["dog", "emu", "cat"])).numpy()
array([ 1, -1,  0])
>>> vocab = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=3)
>>> int(vocab.size()), vocab.lookup(tf.constant(["dog", "emu"])).numpy().tolist()
(5, [1, 2])
"""
import enum

import numpy as np

from .. import extend as _extend
from ..extend import DType, InvalidArgumentError, TensorLike as _TensorLike
from . import _text
from ._ragged import RaggedTensor
from ._util import _Unsupported, left_out

__getattr__ = _Unsupported("tf.lookup", {
    **left_out("mutable tables are not in eagertape yet: build a StaticHashTable from the "
               "final keys, or keep a Python dict and look up with it on the host",
               "MutableHashTable DenseHashTable"),
    **left_out("TF 1's table API; use StaticHashTable and StaticVocabularyTable",
               "StaticHashTableV1 StaticVocabularyTableV1 IdTableWithHashBuckets"),
})


def _host_values(values, dtype, argname):
    """Keys or values as a NumPy array: strings as an object array of bytes, numbers
    in ``dtype`` (or TF's default for them)."""
    if isinstance(values, _text.StringTensor) or _text.is_text(values):
        if dtype is not None and not _text.is_string_dtype(dtype):
            raise TypeError(f"argument `{argname}` holds strings but its dtype is "
                            f"{DType(_extend.as_dtype(dtype)).name}")
        return _text.host(values, argname)
    if dtype is not None and _text.is_string_dtype(dtype):
        raise TypeError(f"argument `{argname}` holds numbers but its dtype is string; "
                        "convert them with tf.strings.as_string")
    arr = _text.numeric(values, argname, "tf.lookup")
    if not isinstance(values, (_TensorLike, np.ndarray)):
        arr = np.asarray(_extend.convert_to_tensor(values).numpy())
    return arr if dtype is None else arr.astype(_extend.as_dtype(dtype))


def _dtype_of(arr):
    return DType(arr.dtype)


class KeyValueTensorInitializer:
    """The keys and values of a static table, given as tensors (or lists) of the
    same length.

    >>> import eagertape.tf as tf
    >>> init = tf.lookup.KeyValueTensorInitializer(["a", "b"], [7, 8])
    >>> init.key_dtype, init.value_dtype
    (tf.string, tf.int32)
    """

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = _host_values(keys, key_dtype, "keys").reshape(-1)
        self._values = _host_values(values, value_dtype, "values").reshape(-1)
        if self._keys.shape != self._values.shape:
            raise InvalidArgumentError(f"Expected shape {list(self._keys.shape)} for argument "
                                       f"`values`, got {list(self._values.shape)}")
        if self._keys.dtype.kind == "f":
            raise TypeError("argument `keys`: a table's keys are strings or integers, got "
                            f"{self._keys.dtype.name}")

    @property
    def key_dtype(self):
        return _dtype_of(self._keys)

    @property
    def value_dtype(self):
        return _dtype_of(self._values)

    def _pairs(self):
        return self._keys, self._values


class TextFileIndex(enum.IntEnum):
    """Where a ``TextFileInitializer`` takes a key or value from: the whole line, or
    its line number (or a column, by a non-negative index).

    >>> import eagertape.tf as tf
    >>> int(tf.lookup.TextFileIndex.LINE_NUMBER)
    -1
    """
    WHOLE_LINE = -2
    LINE_NUMBER = -1


class TextFileInitializer:
    """The keys and values of a static table read from a text file, one entry a
    line: the whole line, its number (from 0), or a column split at ``delimiter``.

    >>> import os, tempfile
    >>> import eagertape.tf as tf
    >>> path = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    >>> _ = open(path, "w").write("the\\nfox\\n")
    >>> init = tf.lookup.TextFileInitializer(
    ...     path, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE,
    ...     tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER)
    >>> int(tf.lookup.StaticHashTable(init, -1).lookup(tf.constant("fox")))
    1
    """

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index,
                 vocab_size=None, delimiter="\t", name=None, value_index_offset=0):
        path = _text.host(filename, "filename")[()].decode("utf-8")
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]
        if vocab_size is not None:
            if len(lines) < int(vocab_size):
                raise InvalidArgumentError(f"Invalid vocab_size in {path}: expected "
                                           f"{vocab_size}, got {len(lines)}")
            lines = lines[:int(vocab_size)]
        delim = delimiter.encode() if isinstance(delimiter, str) else delimiter

        def column(index, dtype):
            index = int(index)
            if index == TextFileIndex.LINE_NUMBER:
                col = np.arange(len(lines), dtype=np.int64) + int(value_index_offset)
            else:
                col = np.empty(len(lines), object)
                for i, ln in enumerate(lines):
                    if index == TextFileIndex.WHOLE_LINE:
                        col[i] = ln
                    else:
                        parts = ln.split(delim)
                        if index >= len(parts):
                            raise InvalidArgumentError(f"Invalid number of columns in {path} "
                                                       f"line {i} ({ln!r}) : expected "
                                                       f"{index + 1}, got {len(parts)}")
                        col[i] = parts[index]
            if _text.is_string_dtype(dtype):
                if col.dtype != object:
                    col = _text.host(col.astype(str), "values")
                return col
            if col.dtype == object:
                col = np.asarray([int(c) if np.dtype(_extend.as_dtype(dtype)).kind in "iu"
                                  else float(c) for c in col])
            return col.astype(_extend.as_dtype(dtype))
        self._keys = column(key_index, key_dtype)
        self._values = column(value_index, value_dtype)

    key_dtype = KeyValueTensorInitializer.key_dtype
    value_dtype = KeyValueTensorInitializer.value_dtype
    _pairs = KeyValueTensorInitializer._pairs


def _hashable_keys(arr):
    return arr.tolist() if arr.dtype == object else arr.astype(np.int64).tolist()


class StaticHashTable:
    """A table from keys to values, fixed when made; a key not in it gives
    ``default_value``.

    >>> import eagertape.tf as tf
    >>> t = tf.lookup.StaticHashTable(
    ...     tf.lookup.KeyValueTensorInitializer([1, 2], ["one", "two"]), "?")
    >>> t.lookup(tf.constant([2, 5])).numpy()
    array([b'two', b'?'], dtype=object)
    """

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        keys, values = initializer._pairs()
        self._key_dtype, self._value_dtype = _dtype_of(keys), _dtype_of(values)
        self._index = {}
        for k, v in zip(_hashable_keys(keys), range(len(keys))):
            self._index.setdefault(k, v)
        self._keys, self._values = keys, values
        dv = _host_values(default_value, self._value_dtype, "default_value")
        if dv.size != 1:
            raise InvalidArgumentError("argument `default_value` must be a scalar")
        self._default = dv.reshape(())
        self.name = name

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    @property
    def default_value(self):
        return _text.text_result(self._default.copy())

    def size(self, name=None):
        """The number of entries (int64)."""
        return _text.text_result(np.asarray(len(self._index), np.int64))

    def _positions(self, keys):
        """For each key, its entry's position, or -1."""
        if self._key_dtype == np.dtype(object):
            arr = _text.host(keys, "keys")
        else:
            if isinstance(keys, _text.StringTensor) or _text.is_text(keys):
                raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype!r}, "
                                "received: tf.string")
            arr = _text.numeric(keys, "keys", "the table's lookup")
            if not isinstance(keys, (_TensorLike, np.ndarray)):
                arr = np.asarray(_extend.convert_to_tensor(keys).numpy())
            if isinstance(keys, _TensorLike) and DType(arr.dtype) != self._key_dtype:
                raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype!r}, "
                                f"received: {DType(arr.dtype)!r}")
        flat = _hashable_keys(arr.reshape(-1))
        get = self._index.get
        return arr, np.fromiter((get(k, -1) for k in flat), np.int64, len(flat)).reshape(
            arr.shape)

    def lookup(self, keys, name=None):
        """The value of each key (the table's value dtype, the keys' shape); a
        RaggedTensor's flat values are looked up and its rows kept."""
        if isinstance(keys, RaggedTensor):
            return keys.with_flat_values(self.lookup(keys.flat_values))
        _, pos = self._positions(keys)
        out = np.where(pos >= 0, self._values[np.maximum(pos, 0)] if len(self._values) else
                       self._default, self._default) if pos.size else \
            np.empty(pos.shape, self._values.dtype)
        return _text.text_result(np.asarray(out, self._values.dtype))

    __getitem__ = lookup

    def export(self, name=None):
        """``(keys, values)``: the table's entries as tensors."""
        return (_text.text_result(self._keys.copy()), _text.text_result(self._values.copy()))


class StaticVocabularyTable:
    """A vocabulary: keys of the initializer map to their (int64) ids, and any other
    key to one of ``num_oov_buckets`` ids after them, chosen by TF's Fingerprint64
    hash of the key (TF's bucket for every key).

    >>> import eagertape.tf as tf
    >>> vocab = ["the", "cat"]
    >>> init = tf.lookup.KeyValueTensorInitializer(vocab, tf.range(2, dtype=tf.int64))
    >>> table = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=1)
    >>> table.lookup(tf.constant(["the", "dog", "cat"])).numpy()
    array([0, 2, 1])
    """

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        n = int(num_oov_buckets)
        if n <= 0:
            raise ValueError(f"num_oov_buckets must be > 0; use StaticHashTable. got {n}")
        if initializer is not None:
            if initializer.value_dtype != np.int64:
                raise TypeError(f"Invalid `value_dtype`, expected tf.int64 but got "
                                f"{initializer.value_dtype}.")
            self._table = StaticHashTable(initializer, -1)
            self._key_dtype = initializer.key_dtype
        else:
            self._table = None
            self._key_dtype = DType(_extend.as_dtype(lookup_key_dtype or object))
        self._buckets = n
        self.name = name

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return DType(np.int64)

    def size(self, name=None):
        """The vocabulary's size plus the number of out-of-vocabulary buckets."""
        n = 0 if self._table is None else len(self._table._index)
        return _text.text_result(np.asarray(n + self._buckets, np.int64))

    def lookup(self, keys, name=None):
        """Each key's id (int64, the keys' shape)."""
        if isinstance(keys, RaggedTensor):
            return keys.with_flat_values(self.lookup(keys.flat_values))
        from .strings import fingerprint64
        if self._table is not None:
            arr, pos = self._table._positions(keys)
            found = np.where(pos >= 0, self._table._values[np.maximum(pos, 0)]
                             if len(self._table._values) else -1, -1)
            base = len(self._table._index)
        else:
            arr = _text.host(keys, "keys") if self._key_dtype == np.dtype(object) else \
                _text.numeric(keys, "keys", "the table's lookup")
            found, base = np.full(np.shape(arr), -1, np.int64), 0
        text = arr if arr.dtype == object else _text.host(
            np.char.mod("%d", arr.astype(np.int64)).astype(str), "keys")
        buckets = (fingerprint64(np.asarray(text)) % np.uint64(self._buckets)).astype(np.int64)
        return _text.text_result(np.where(found >= 0, found, buckets + base).astype(np.int64))

    __getitem__ = lookup
