"""``tf.RaggedTensor``, as far as the string ops need it: what ``tf.strings.split``,
``unicode_split``, ``unicode_decode``, ``bytes_split`` and ``ngrams`` return for
inputs of rank 1 and more, rows of different lengths.

A RaggedTensor is TF's pair of flat ``values`` and ``row_splits`` (row ``i`` is
``values[row_splits[i]:row_splits[i + 1]]``), nested once per ragged dimension.
Here both live on the host (NumPy), as the string ops that make them do; the
values come out as Tensors (string tensors, or int32 code points). It has what
text programs read: ``to_tensor`` (padded, what a model takes), ``to_list``,
``numpy``, ``row_lengths``, ``row_splits``, ``values``, ``flat_values``,
``nested_row_splits``, ``nrows``, ``bounding_shape``, ``shape`` (None for a
ragged dimension), ``dtype``, ``ragged_rank``, indexing and iteration by rows, and
``from_row_splits`` / ``from_row_lengths``; ``tf.strings`` functions that work
element by element (``lower``, ``length``, ``to_number``, ...) take it too.

It is not a Tensor: JAX fixes every shape when it compiles, so no recorded op,
tape or ``tf.function`` takes it; call ``to_tensor()`` first (TF's ragged
kernels and ``tf.ragged`` are left out).

>>> import eagertape.tf as tf
>>> words = tf.strings.split(tf.constant(["a b c", "d"]))
>>> words.to_list()
[[b'a', b'b', b'c'], [b'd']]
>>> words.row_lengths().numpy(), words.to_tensor().shape
(array([3, 1]), TensorShape([2, 3]))
"""
import numpy as np

from .. import extend as _extend
from ..extend import InvalidArgumentError, TensorLike as _TensorLike, TensorShape
from . import _text


def _array(values):
    if isinstance(values, _text.StringTensor):
        return values._v
    if isinstance(values, _TensorLike):
        return np.asarray(values.numpy())
    if _text.is_text(values):
        return _text.host(values, "values")
    return np.asarray(values)


def _tensor(array):
    return _text.text_result(array)


class RaggedTensor:
    """``tf.RaggedTensor``: rows of different lengths, as ``values`` and
    ``row_splits`` (int64), nested once per ragged dimension.

    >>> import eagertape.tf as tf
    >>> rt = tf.RaggedTensor.from_row_lengths(tf.constant(["a", "b", "c"]), [2, 0, 1])
    >>> rt
    <tf.RaggedTensor [[b'a', b'b'], [], [b'c']]>
    >>> rt[0].numpy(), rt.shape, rt.to_tensor(default_value="-").numpy()[1]
    (array([b'a', b'b'], dtype=object), TensorShape([3, None]), array([b'-', b'-'], dtype=object))
    """

    def __init__(self, values, row_splits, _internal=False, uniform=None):
        if not _internal:
            raise TypeError("RaggedTensor(...): make one with RaggedTensor.from_row_splits or "
                            "from_row_lengths (or tf.strings.split)")
        self._values = values if isinstance(values, RaggedTensor) else _array(values)
        self._splits = np.asarray(row_splits, np.int64)
        # Rows all of this length (a dense input's dimension, as TF's
        # uniform_row_length): the shape shows it rather than None.
        self._uniform = uniform

    # -- constructors ----------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Rows ``values[row_splits[i]:row_splits[i + 1]]``.

        >>> import eagertape.tf as tf
        >>> tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 1, 3]).to_list()
        [[1], [2, 3]]
        """
        splits = np.asarray(_array(row_splits), np.int64).reshape(-1)
        vals = values if isinstance(values, RaggedTensor) else _array(values)
        n = vals.nrows_int() if isinstance(vals, RaggedTensor) else len(vals)
        if validate and (splits.size == 0 or splits[0] != 0 or np.any(np.diff(splits) < 0)
                         or splits[-1] != n):
            raise InvalidArgumentError(
                "argument `row_splits` must start at 0, not decrease, and end at the number "
                f"of values ({n}); got {splits.tolist()}")
        if not isinstance(vals, RaggedTensor) and vals.dtype.kind in "US":
            vals = _text.host(vals, "values")
        return cls(vals, splits, _internal=True)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Rows of the given lengths, in order.

        >>> import eagertape.tf as tf
        >>> tf.RaggedTensor.from_row_lengths([1, 2, 3], [1, 2]).to_list()
        [[1], [2, 3]]
        """
        lengths = np.asarray(_array(row_lengths), np.int64).reshape(-1)
        return cls.from_row_splits(values, np.concatenate([[0], np.cumsum(lengths)]),
                                   validate=validate)

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                    row_splits_dtype="int64"):
        """The rows of a dense ``tensor`` (its last axis ragged), cut at ``lengths``
        or before their trailing ``padding`` values.

        >>> import eagertape.tf as tf
        >>> tf.RaggedTensor.from_tensor([[1, 2, -1], [3, -1, -1]], padding=-1).to_list()
        [[1, 2], [3]]
        """
        if ragged_rank != 1:
            raise NotImplementedError("RaggedTensor.from_tensor with ragged_rank != 1 is not "
                                      "supported")
        arr = _array(tensor)
        if arr.ndim != 2:
            raise ValueError("RaggedTensor.from_tensor takes a 2-D tensor here")
        if lengths is not None:
            n = np.asarray(_array(lengths), np.int64).reshape(-1)
        elif padding is not None:
            pad = _array(padding).reshape(()) if not isinstance(padding, (str, bytes)) \
                else _text.host(padding)[()]
            keep = arr != pad
            n = np.where(keep.any(axis=1), arr.shape[1] - np.argmax(keep[:, ::-1], axis=1), 0)
        else:
            n = np.full(arr.shape[0], arr.shape[1], np.int64)
        rows = [arr[i, :k] for i, k in enumerate(n)]
        return from_rows(rows, arr.dtype)

    # -- structure -------------------------------------------------------------------
    @property
    def values(self):
        """The rows' elements, one after another (a Tensor, or a RaggedTensor)."""
        return self._values if isinstance(self._values, RaggedTensor) else _tensor(self._values)

    @property
    def flat_values(self):
        """The innermost values, as one Tensor."""
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return _tensor(v)

    @property
    def row_splits(self):
        return _extend.constant(self._splits)

    @property
    def nested_row_splits(self):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(_extend.constant(rt._splits))
            rt = rt._values
        return tuple(out)

    @property
    def ragged_rank(self):
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    @property
    def dtype(self):
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return _extend.DType(v.dtype)

    @property
    def shape(self):
        inner = self._values.shape[1:] if isinstance(self._values, RaggedTensor) \
            else self._values.shape[1:]
        return TensorShape([self.nrows_int(), self._uniform] + list(inner))

    def nrows_int(self):
        return len(self._splits) - 1

    def nrows(self, out_type="int64", name=None):
        return _extend.constant(np.asarray(self.nrows_int(), _extend.as_dtype(out_type)))

    def row_lengths(self, axis=1, name=None):
        """Each row's length (int64)."""
        if axis != 1:
            raise NotImplementedError("row_lengths(axis != 1) is not supported")
        return _extend.constant(np.diff(self._splits))

    def bounding_shape(self, axis=None, name=None, out_type="int64"):
        dense = self._dense_shape()
        out = np.asarray(dense, _extend.as_dtype(out_type))
        return _extend.constant(out if axis is None else out[axis])

    # -- values out ------------------------------------------------------------------
    def _rows(self):
        v = self._values
        for a, b in zip(self._splits[:-1], self._splits[1:]):
            yield v._slice(int(a), int(b)) if isinstance(v, RaggedTensor) else v[a:b]

    def _slice(self, a, b):
        return RaggedTensor(self._values, self._splits[a:b + 1], _internal=True)._rebased()

    def _rebased(self):
        a, b = int(self._splits[0]), int(self._splits[-1])
        v = self._values._slice(a, b) if isinstance(self._values, RaggedTensor) \
            else self._values[a:b]
        return RaggedTensor(v, self._splits - a, _internal=True)

    def to_list(self):
        """The rows as nested Python lists (bytes for strings), as TF's."""
        return [r.to_list() if isinstance(r, RaggedTensor) else r.tolist()
                for r in self._rows()]

    def numpy(self):
        """An object array of the rows (each a NumPy array, or a nested one), as TF's."""
        rows = [r.numpy() if isinstance(r, RaggedTensor) else r for r in self._rows()]
        out = np.empty(len(rows), object)
        out[:] = rows
        return out

    def _dense_shape(self):
        rows = list(self._rows())
        inner = [r._dense_shape() if isinstance(r, RaggedTensor) else list(r.shape)
                 for r in rows]
        if not inner:
            return [0] + [0] * (len(self.shape) - 1)
        return [len(rows)] + list(np.max(np.asarray(inner), axis=0))

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense Tensor: rows padded at the end with ``default_value`` (b"" for
        strings, 0 for numbers) to the longest, or cut/padded to ``shape``."""
        full = self._dense_shape()
        if shape is not None:
            want = [None if d is None or d == -1 else int(d) for d in (
                shape.as_list() if hasattr(shape, "as_list") else list(shape))]
            full = [f if w is None else w for f, w in zip(full, want)]
        flat = self.flat_values
        dt = flat.dtype
        if default_value is None:
            fill = b"" if dt == np.dtype(object) else np.zeros((), dt)[()]
        elif dt == np.dtype(object):
            fill = _text.host(default_value, "default_value")[()]
        else:
            fill = np.asarray(_array(default_value)).astype(dt)[()]
        out = np.full(full, fill, dtype=dt)
        self._fill(out, ())
        return _tensor(out)

    def _fill(self, out, prefix):
        for i, r in enumerate(self._rows()):
            if i >= out.shape[0]:
                break
            if isinstance(r, RaggedTensor):
                r._fill(out[i], ())
            else:
                n = min(len(r), out.shape[1]) if out.ndim > 1 else 0
                out[i, :n] = r[:n]

    # -- indexing and iteration -----------------------------------------------------
    def __getitem__(self, key):
        if isinstance(key, _TensorLike):
            key = int(key.numpy())
        if isinstance(key, (int, np.integer)):
            n = self.nrows_int()
            if not -n <= key < n:
                raise InvalidArgumentError(f"row {key} is out of range for {n} rows")
            a, b = self._splits[key % n], self._splits[key % n + 1]
            v = self._values
            return v._slice(int(a), int(b)) if isinstance(v, RaggedTensor) \
                else _tensor(v[a:b].copy())
        if isinstance(key, slice):
            idx = range(*key.indices(self.nrows_int()))
            rows = [self[i] for i in idx]
            lengths = [int(np.diff(self._splits)[i]) for i in idx]
            parts = [r._values_for_concat() if isinstance(r, RaggedTensor) else _array(r)
                     for r in rows]
            return _concat_rows(parts, lengths, self)
        raise TypeError("a RaggedTensor is indexed here by a row number or a slice of rows; "
                        "for more, call .to_tensor() first")

    def _values_for_concat(self):
        return self

    def __iter__(self):
        return (self[i] for i in range(self.nrows_int()))

    # -- elementwise ops apply to the flat values ------------------------------------
    def with_flat_values(self, new_values):
        """The same rows with ``new_values`` (as many) in place of the flat values."""
        if isinstance(self._values, RaggedTensor):
            return RaggedTensor(self._values.with_flat_values(new_values), self._splits,
                                _internal=True, uniform=self._uniform)
        if isinstance(new_values, RaggedTensor):
            return RaggedTensor(new_values, self._splits, _internal=True, uniform=self._uniform)
        return RaggedTensor(_array(new_values), self._splits, _internal=True,
                            uniform=self._uniform)

    def __repr__(self):
        return f"<tf.RaggedTensor {self.to_list()}>"

    def __str__(self):
        return repr(self)


def _concat_rows(parts, lengths, like):
    if isinstance(like._values, RaggedTensor):
        vals = parts[0]
        for p in parts[1:]:
            vals = _join(vals, p)
        if not parts:
            vals = like._values._slice(0, 0)
    else:
        vals = np.concatenate(parts) if parts else like._values[:0]
    return RaggedTensor(vals, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
                        _internal=True)


def _join(a, b):
    # Two ragged values lists one after the other.
    splits = np.concatenate([a._splits, b._splits[1:] + a._splits[-1]])
    inner = _join(a._values, b._values) if isinstance(a._values, RaggedTensor) else \
        np.concatenate([a._values, b._values])
    return RaggedTensor(inner, splits, _internal=True)


def from_rows(rows, dtype=object):
    """A ragged-rank-1 RaggedTensor of a list of 1-D NumPy arrays."""
    lengths = [len(r) for r in rows]
    if rows:
        values = np.concatenate([np.asarray(r, dtype) for r in rows])
    else:
        values = np.empty((0,), dtype)
    if dtype is object:
        values = values.astype(object)
    return RaggedTensor(values, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
                        _internal=True)


def nest_rows(inner, shape):
    """``inner`` (ragged rank 1 over every element of an input of ``shape``) with the
    input's outer dimensions on top: the result of a splitting op on rank > 1."""
    rt = inner
    for d in reversed(shape[1:]):
        n = rt.nrows_int() // d if d else 0
        rt = RaggedTensor(rt, np.arange(n + 1, dtype=np.int64) * d, _internal=True, uniform=d)
    return rt
