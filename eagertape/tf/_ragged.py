"""``tf.RaggedTensor`` and ``tf.ragged``: rows of different lengths.

A RaggedTensor is TF's pair of flat ``values`` and ``row_splits`` (row ``i`` is
``values[row_splits[i]:row_splits[i + 1]]``), nested once per ragged dimension.
The row splits are int64 NumPy arrays on the host (a ragged shape is a Python
fact here, as JAX fixes every shape when it compiles); the flat values are a
Tensor: an eagertape Tensor for numbers, which tapes record, so ``tape.gradient``
flows through ``map_flat_values``, the reductions, ``to_tensor``, ``gather`` and
the elementwise ops as in TF, and a host string tensor for text (what
``tf.strings.split`` and the other splitting ops return).

TF's generic ops dispatch to ragged inputs as TF's do (``install`` puts one
dispatcher in front of each, as ``_text`` does for strings): the elementwise math
(``tf.math.*`` unary ops, ``+ - * /`` and comparisons, with a scalar, a
per-row column or a RaggedTensor of the same rows), the reductions along any
axis TF reduces (``tf.reduce_sum(rt, axis=1)``), ``tf.concat``/``tf.stack``
(axis 0 and 1), ``tf.gather`` of rows, ``tf.cast``, ``tf.zeros_like``/
``ones_like``, ``tf.boolean_mask``, ``tf.tile``, ``tf.map_fn``, TF's elementwise
string ops (``tf.strings.substr``, ``upper``, ``length``, ``regex_replace``,
``to_hash_bucket_fast``, ...), ``tf.strings.join`` and ``tf.nn.embedding_lookup`` of
ragged ids.

It is not a Tensor but a JAX pytree: its flat values are the leaf, its row splits
static, so a ``tf.function`` takes and returns one (one trace per row structure:
a function called on batches of other row lengths traces again, where TF's
RaggedTensorSpec traces once), and ``tf.data`` carries ragged elements.

>>> import eagertape.tf as tf
>>> rt = tf.ragged.constant([[1.0, 2.0], [], [3.0]])
>>> tf.reduce_sum(rt, axis=1).numpy(), (rt * 2).to_list()
(array([3., 0., 3.], dtype=float32), [[2.0, 4.0], [], [6.0]])
>>> rt.row_lengths().numpy(), rt.to_tensor().shape
(array([2, 0, 1]), TensorShape([3, 2]))
"""
import functools
import inspect
from builtins import range as builtins_range
import sys

import numpy as np

from .. import extend as _extend
from ..extend import InvalidArgumentError, Tensor, TensorLike as _TensorLike, TensorShape
from . import _text
from ._util import rebind as _rebind

_I64 = np.int64


def _tf():
    # The facade, for the (dispatched, scoped) ops on numeric flat values.
    return sys.modules["eagertape.tf"]


def _is_str(t):
    return isinstance(t, _text.StringTensor)


def _leaf(values, dtype=None, what="values"):
    """Flat values as a Tensor: a host string tensor for text, else a numeric one."""
    if isinstance(values, _text.StringTensor):
        return values
    if _text.is_text(values):
        return _text.wrap(_text.host(values, what))
    if isinstance(values, _TensorLike):
        t = values
    else:
        arr = np.asarray(values)
        if arr.dtype.kind in "US":
            return _text.wrap(_text.host(arr, what))
        if arr.dtype == object and arr.size == 0:
            arr = arr.astype(np.float32)
        t = _extend.convert_to_tensor(values if dtype is None else arr,
                                      None if dtype is None else _extend.as_dtype(dtype))
    if dtype is not None and np.dtype(t.dtype) != np.dtype(_extend.as_dtype(dtype)):
        t = _tf().cast(t, dtype)
    return t


def _host(t):
    return t._v if _is_str(t) else np.asarray(t.numpy())


def _take(t, idx):
    """``t[idx]`` along the first axis (host positions), recorded for numbers."""
    idx = np.asarray(idx, _I64).reshape(-1)
    if _is_str(t):
        return _text.wrap(t._v[idx])
    if idx.size == t.shape[0] and np.array_equal(idx, np.arange(idx.size)):
        return t
    return _tf().gather(t, idx)


def _cat(ts, like):
    if not ts:
        return _take(like, [])
    if _is_str(ts[0]):
        return _text.wrap(np.concatenate([t._v for t in ts]))
    return ts[0] if len(ts) == 1 else _tf().concat(list(ts), 0)


def _splits_of(lengths):
    return np.concatenate([[0], np.cumsum(np.asarray(lengths, _I64))]).astype(_I64)


def _rowids(splits):
    return np.repeat(np.arange(len(splits) - 1, dtype=_I64), np.diff(splits))


def _ints(x, what):
    if isinstance(x, _TensorLike):
        x = x.numpy()
    arr = np.asarray(x)
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"argument `{what}` must hold integers, got {arr.dtype}")
    return arr.astype(_I64).reshape(-1)


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
            raise TypeError("RaggedTensor(...): make one with tf.ragged.constant or a "
                            "RaggedTensor.from_* constructor (from_row_splits, from_row_lengths, "
                            "from_value_rowids, from_tensor, ...)")
        self._values = values if isinstance(values, RaggedTensor) else _leaf(values)
        self._splits = np.asarray(row_splits, _I64)
        # Rows all of this length (a dense input's dimension, as TF's
        # uniform_row_length): the shape shows it rather than None.
        self._uniform = uniform

    _sdt = _I64     # the row splits' dtype as TF would give it (kept int64 here)

    def _out(self, arr):
        return _extend.constant(np.asarray(arr).astype(self._sdt))

    # -- constructors ----------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Rows ``values[row_splits[i]:row_splits[i + 1]]``.

        >>> import eagertape.tf as tf
        >>> tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 1, 3]).to_list()
        [[1], [2, 3]]
        """
        splits = _ints(row_splits, "row_splits")
        vals = values if isinstance(values, RaggedTensor) else _leaf(values)
        n = vals.nrows_int() if isinstance(vals, RaggedTensor) else int(vals.shape[0]) \
            if len(vals.shape) else None
        if n is None:
            raise ValueError("argument `values` must have rank 1 or more (the rows' elements)")
        if validate and (splits.size == 0 or splits[0] != 0 or np.any(np.diff(splits) < 0)
                         or splits[-1] != n):
            raise InvalidArgumentError(
                "Arguments to from_row_splits do not form a valid RaggedTensor: argument "
                f"`row_splits` must start at 0, not decrease, and end at the number of "
                f"values ({n}); got {splits.tolist()}")
        return cls(vals, splits, _internal=True)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Rows of the given lengths, in order.

        >>> import eagertape.tf as tf
        >>> tf.RaggedTensor.from_row_lengths([1, 2, 3], [1, 2]).to_list()
        [[1], [2, 3]]
        """
        lengths = _ints(row_lengths, "row_lengths")
        if validate and np.any(lengths < 0):
            raise InvalidArgumentError("argument `row_lengths` must not be negative")
        return cls.from_row_splits(values, _splits_of(lengths), validate=validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """Rows starting at ``row_starts`` (the last ending at the end of ``values``).

        >>> import eagertape.tf as tf
        >>> tf.RaggedTensor.from_row_starts([1, 2, 3], [0, 2]).to_list()
        [[1, 2], [3]]
        """
        starts = _ints(row_starts, "row_starts")
        n = values.nrows_int() if isinstance(values, RaggedTensor) else \
            int(_leaf(values).shape[0])
        return cls.from_row_splits(values, np.concatenate([starts, [n]]), validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """Rows ending at ``row_limits``.

        >>> import eagertape.tf as tf
        >>> tf.RaggedTensor.from_row_limits([1, 2, 3], [1, 1, 3]).to_list()
        [[1], [], [2, 3]]
        """
        return cls.from_row_splits(values, np.concatenate([[0], _ints(row_limits,
                                                                        "row_limits")]),
                                   validate=validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Value ``j`` in row ``value_rowids[j]`` (sorted), ``nrows`` rows (default: the
        last id + 1).

        >>> import eagertape.tf as tf
        >>> tf.RaggedTensor.from_value_rowids([3, 1, 4, 1], [0, 0, 2, 2], nrows=4).to_list()
        [[3, 1], [], [4, 1], []]
        """
        ids = _ints(value_rowids, "value_rowids")
        if validate and (np.any(np.diff(ids) < 0) or (ids.size and ids[0] < 0)):
            raise InvalidArgumentError("argument `value_rowids` must be sorted and "
                                       "non-negative")
        n = (int(ids[-1]) + 1 if ids.size else 0) if nrows is None else int(
            _ints(nrows, "nrows")[0])
        if ids.size and ids[-1] >= n:
            raise InvalidArgumentError(f"argument `nrows` ({n}) must be greater than the "
                                       f"largest value_rowid ({int(ids[-1])})")
        return cls.from_row_lengths(values, np.bincount(ids, minlength=n), validate=validate)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True,
                                name=None):
        """Rows all ``uniform_row_length`` long (a uniform dimension: the shape shows its
        length), ``nrows`` of them (default: as many as ``values`` fills).

        >>> import eagertape.tf as tf
        >>> rt = tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4], 2)
        >>> rt.to_list(), rt.shape
        ([[1, 2], [3, 4]], TensorShape([2, 2]))
        """
        vals = values if isinstance(values, RaggedTensor) else _leaf(values)
        nvals = vals.nrows_int() if isinstance(vals, RaggedTensor) else int(vals.shape[0]) \
            if len(vals.shape) else None
        if nvals is None:
            raise ValueError("argument `values` must have rank 1 or more (the rows' elements)")
        length = int(_ints(uniform_row_length, "uniform_row_length")[0])
        if length < 0:
            raise InvalidArgumentError("argument `uniform_row_length` must not be negative")
        n = (nvals // length if length else 0) if nrows is None else \
            int(_ints(nrows, "nrows")[0])
        if validate and n * length != nvals:
            raise InvalidArgumentError(
                f"argument `uniform_row_length` ({length}) times the number of rows ({n}) "
                f"must be the number of values ({nvals})")
        return cls(vals, np.arange(n + 1, dtype=_I64) * length, _internal=True,
                   uniform=length)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        """One ragged dimension per row-splits vector, outermost first.

        >>> import eagertape.tf as tf
        >>> tf.RaggedTensor.from_nested_row_splits([1, 2, 3], [[0, 2, 3], [0, 1, 1, 3]]).to_list()
        [[[1], []], [[2, 3]]]
        """
        rt = flat_values
        for s in reversed(list(nested_row_splits)):
            rt = cls.from_row_splits(rt, s, validate=validate)
        return rt

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None,
                                validate=True):
        """One ragged dimension per row-lengths vector, outermost first.

        >>> import eagertape.tf as tf
        >>> tf.RaggedTensor.from_nested_row_lengths([1, 2, 3], [[2, 1], [1, 0, 2]]).to_list()
        [[[1], []], [[2, 3]]]
        """
        rt = flat_values
        for s in reversed(list(nested_row_lengths)):
            rt = cls.from_row_lengths(rt, s, validate=validate)
        return rt

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None,
                                 name=None, validate=True):
        """One ragged dimension per value-rowids vector, outermost first.

        >>> import eagertape.tf as tf
        >>> tf.RaggedTensor.from_nested_value_rowids([1, 2, 3], [[0, 1], [0, 1, 1]]).to_list()
        [[[1]], [[2, 3]]]
        """
        ids = list(nested_value_rowids)
        nrows = [None] * len(ids) if nested_nrows is None else list(nested_nrows)
        rt = flat_values
        for s, n in reversed(list(zip(ids, nrows))):
            rt = cls.from_value_rowids(rt, s, n, validate=validate)
        return rt

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                    row_splits_dtype="int64"):
        """The rows of a dense ``tensor`` (axis 1 ragged, or the first ``ragged_rank``
        axes after the first), cut at ``lengths`` or before their trailing
        ``padding`` values.

        >>> import eagertape.tf as tf
        >>> tf.RaggedTensor.from_tensor([[1, 2, -1], [3, -1, -1]], padding=-1).to_list()
        [[1, 2], [3]]
        """
        if lengths is not None and padding is not None:
            raise ValueError("Specify argument `lengths` or `padding`, not both")
        t = _leaf(tensor, what="tensor")
        shape = tuple(int(d) for d in t.shape)
        if not 1 <= ragged_rank < len(shape):
            raise ValueError(f"argument `ragged_rank` must be at least 1 and less than the "
                             f"tensor's rank {len(shape)}, got {ragged_rank}")
        if ragged_rank > 1:
            # The outer axes uniform: one ragged dimension per axis, cut on the last.
            inner = cls.from_tensor(_reshape(t, (-1,) + shape[ragged_rank:]), lengths,
                                    padding)
            for d in reversed(shape[1:ragged_rank]):
                n = inner.nrows_int() // d if d else 0
                inner = cls(inner, np.arange(n + 1, dtype=_I64) * d, _internal=True,
                            uniform=d)
            return inner
        rows, width = shape[0], shape[1]
        if lengths is not None:
            n = _ints(lengths, "lengths")
            if n.size != rows:
                raise ValueError(f"argument `lengths` must have one length per row ({rows})")
            n = np.minimum(np.maximum(n, 0), width)
        elif padding is not None:
            arr = _host(t)
            pad = _host(_leaf(padding, None if _is_str(t) else t.dtype, "padding"))
            if pad.ndim > arr.ndim - 2:
                raise ValueError("argument `padding` must have the shape of the tensor's "
                                 "values after its first two axes")
            keep = (arr != pad).reshape(rows, width, -1).any(axis=2)
            n = np.where(keep.any(axis=1), width - np.argmax(keep[:, ::-1], axis=1), 0)
        else:
            n = np.full(rows, width, _I64)
        flat = _reshape(t, (rows * width,) + shape[2:])
        pos = (np.arange(rows)[:, None] * width + np.arange(width)[None, :])[
            np.arange(width)[None, :] < np.asarray(n)[:, None]]
        out = cls(_take(flat, pos), _splits_of(n), _internal=True)
        if lengths is None and padding is None:
            out._uniform = width
        return out

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype="int64"):
        """The rows of a 2-D SparseTensor whose indices are in order, each row's
        values packed to the left (TF's ``from_sparse``).

        >>> import eagertape.tf as tf
        >>> st = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [1, 2, 3], [3, 4])
        >>> tf.RaggedTensor.from_sparse(st).to_list()
        [[1, 2], [], [3]]
        """
        idx = np.asarray(st_input.indices.numpy())
        shape = np.asarray(st_input.dense_shape.numpy())
        if len(shape) != 2:
            raise ValueError(f"argument `st_input` must be a 2-D SparseTensor, got rank "
                             f"{len(shape)}")
        idx = idx.reshape(-1, 2)
        rows, cols = idx[:, 0], idx[:, 1]
        if np.any(np.diff(rows) < 0) or not np.array_equal(
                cols, np.arange(len(rows)) - np.searchsorted(rows, rows)):
            raise InvalidArgumentError(
                "SparseTensor is not right-ragged: argument `st_input` must have each row's "
                "values at columns 0, 1, 2, ... in order (tf.sparse.reorder it; for values "
                "anywhere in a row, use tf.sparse.to_dense and from_tensor)")
        return cls.from_value_rowids(st_input.values, rows, nrows=int(shape[0]))

    # -- structure -------------------------------------------------------------------
    @property
    def values(self):
        """The rows' elements, one after another (a Tensor, or a RaggedTensor).

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[1, 2], [3]]).values.numpy()
        array([1, 2, 3], dtype=int32)
        """
        return self._values

    @property
    def flat_values(self):
        """The innermost values, as one Tensor.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[[1], [2, 3]]]).flat_values.numpy()
        array([1, 2, 3], dtype=int32)
        """
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return v

    @property
    def row_splits(self):
        """The int64 row splits of the outer ragged dimension.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[1, 2], [], [3]]).row_splits.numpy()
        array([0, 2, 2, 3])
        """
        return self._out(self._splits)

    @property
    def nested_row_splits(self):
        """The row splits of each ragged dimension, outermost first.

        >>> import eagertape.tf as tf
        >>> [s.numpy().tolist() for s in tf.ragged.constant([[[1], [2, 3]]]).nested_row_splits]
        [[0, 2], [0, 1, 3]]
        """
        return tuple(rt._out(rt._splits) for rt in self._levels())

    def _levels(self):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt)
            rt = rt._values
        return out

    def _nested(self):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt._splits)
            rt = rt._values
        return out

    @property
    def ragged_rank(self):
        """The number of ragged dimensions.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[[1], [2, 3]]]).ragged_rank
        2
        """
        return len(self._nested())

    @property
    def dtype(self):
        """The flat values' dtype.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[1.0], []]).dtype
        tf.float32
        """
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self):
        """int64 (eagertape's row splits are int64 whatever ``row_splits_dtype`` asks)."""
        return _extend.as_dtype(self._sdt)

    @property
    def shape(self):
        """The static shape: None for a ragged dimension.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[1, 2], [3]]).shape
        TensorShape([2, None])
        """
        inner = self._values.shape[1:] if isinstance(self._values, RaggedTensor) else \
            TensorShape(self._values.shape)[1:]
        return TensorShape([self.nrows_int(), self._uniform] + list(inner))

    def get_shape(self):
        """``shape``."""
        return self.shape

    @property
    def rank(self):
        return len(self.shape)

    def nrows_int(self):
        return len(self._splits) - 1

    def nrows(self, out_type="int64", name=None):
        """The number of rows (a scalar Tensor).

        >>> import eagertape.tf as tf
        >>> int(tf.ragged.constant([[1, 2], [3]]).nrows())
        2
        """
        return _extend.constant(np.asarray(self.nrows_int(), _extend.as_dtype(out_type)))

    def row_lengths(self, axis=1, name=None):
        """Each row's length (int64); ``axis=2`` and on: the lengths of the inner rows,
        as a RaggedTensor.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[[1], []], [[2, 3]]]).row_lengths(axis=2).to_list()
        [[1, 0], [2]]
        """
        axis = axis + self.rank if axis < 0 else axis
        if axis == 1:
            return self._out(np.diff(self._splits))
        if axis < 1 or not isinstance(self._values, RaggedTensor):
            raise ValueError(f"argument `axis` ({axis}) must be a ragged dimension of the "
                             f"RaggedTensor (1 to {self.ragged_rank})")
        return RaggedTensor(self._values.row_lengths(axis - 1), self._splits, _internal=True,
                            uniform=self._uniform)

    def row_starts(self, name=None):
        """Where each row starts in ``values``.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[1, 2], [3]]).row_starts().numpy()
        array([0, 2])
        """
        return self._out(self._splits[:-1])

    def row_limits(self, name=None):
        """Where each row ends in ``values``.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[1, 2], [3]]).row_limits().numpy()
        array([2, 3])
        """
        return self._out(self._splits[1:])

    def value_rowids(self, name=None):
        """The row of each of ``values``.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[1, 2], [3]]).value_rowids().numpy()
        array([0, 0, 1])
        """
        return self._out(_rowids(self._splits))

    def nested_row_lengths(self, name=None):
        """The row lengths of each ragged dimension, outermost first."""
        return tuple(rt._out(np.diff(rt._splits)) for rt in self._levels())

    def nested_value_rowids(self, name=None):
        """The value rowids of each ragged dimension, outermost first."""
        return tuple(rt._out(_rowids(rt._splits)) for rt in self._levels())

    def bounding_shape(self, axis=None, name=None, out_type="int64"):
        """The smallest dense shape that holds every row.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[1, 2, 3], [4]]).bounding_shape().numpy()
        array([2, 3])
        """
        out = np.asarray(self._dense_shape(), _extend.as_dtype(out_type))
        return _extend.constant(out if axis is None else out[axis])

    def merge_dims(self, outer_axis, inner_axis):
        """Axes ``outer_axis`` to ``inner_axis`` merged into one.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[[1, 2], [3]], [[4]]]).merge_dims(0, 1).to_list()
        [[1, 2], [3], [4]]
        >>> tf.ragged.constant([[[1, 2], [3]], [[4]]]).merge_dims(1, 2).to_list()
        [[1, 2, 3], [4]]
        """
        rank = self.rank
        outer = outer_axis + rank if outer_axis < 0 else outer_axis
        inner = inner_axis + rank if inner_axis < 0 else inner_axis
        if not 0 <= outer <= inner < rank:
            raise ValueError(f"arguments `outer_axis` ({outer_axis}) and `inner_axis` "
                             f"({inner_axis}) must be axes with outer_axis <= inner_axis")
        if outer == inner:
            return self
        if inner > self.ragged_rank:
            raise NotImplementedError("merge_dims of the flat values' dense axes: merge the "
                                      "ragged axes, or reshape flat_values with "
                                      "map_flat_values")
        if outer == 0:
            rt = self
            for _ in range(inner):
                rt = rt._values
            return rt
        if outer == 1:
            # Rows of rows flattened: this level's splits carried through the levels merged.
            s, v = self._splits, self._values
            for _ in builtins_range(inner - outer):
                s, v = v._splits[s], v._values
            return RaggedTensor(v, s, _internal=True)
        return RaggedTensor(self._values.merge_dims(outer - 1, inner - 1), self._splits,
                            _internal=True, uniform=self._uniform)

    # -- values out ------------------------------------------------------------------
    def _row(self, i):
        a, b = int(self._splits[i]), int(self._splits[i + 1])
        v = self._values
        if isinstance(v, RaggedTensor):
            return v._slice(a, b)
        return _take(v, np.arange(a, b)) if not _is_str(v) else _text.wrap(v._v[a:b].copy())

    def _slice(self, a, b):
        """Rows ``a:b`` as a RaggedTensor."""
        s = self._splits[a:b + 1]
        lo, hi = int(s[0]), int(s[-1])
        v = self._values
        v = v._slice(lo, hi) if isinstance(v, RaggedTensor) else _take(v, np.arange(lo, hi))
        return RaggedTensor(v, s - lo, _internal=True, uniform=self._uniform)

    def _rows_of(self, idx):
        """Rows ``idx`` (host positions, any order) as a RaggedTensor."""
        idx = np.asarray(idx, _I64).reshape(-1)
        lengths = np.diff(self._splits)[idx]
        starts = self._splits[:-1][idx]
        pos = np.concatenate([np.arange(s, s + n) for s, n in zip(starts, lengths)] +
                             [np.zeros(0, _I64)]).astype(_I64)
        v = self._values
        v = v._rows_of(pos) if isinstance(v, RaggedTensor) else _take(v, pos)
        return RaggedTensor(v, _splits_of(lengths), _internal=True, uniform=self._uniform)

    @property
    def _type_spec(self):
        """Its ``RaggedTensorSpec`` (TF's CompositeTensor protocol: what
        ``get_concrete_function(rt)`` traces for)."""
        return RaggedTensorSpec.from_value(self)

    def to_list(self):
        """The rows as nested Python lists (bytes for strings), as TF's.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([['a'], []]).to_list()
        [[b'a'], []]
        """
        flat = _host(self.flat_values).tolist()
        for s in reversed(self._nested()):
            flat = [flat[a:b] for a, b in zip(s[:-1], s[1:])]
        return flat

    def numpy(self):
        """An object array of the rows (each a NumPy array, or a nested one), as TF's."""
        flat = _host(self.flat_values)

        def rows(rt, lo, hi):
            s = rt._splits[lo:hi + 1]
            if isinstance(rt._values, RaggedTensor):
                got = [rows(rt._values, int(a), int(b)) for a, b in zip(s[:-1], s[1:])]
            else:
                got = [flat[a:b] for a, b in zip(s[:-1], s[1:])]
            out = np.empty(len(got), object)
            out[:] = got
            return out
        return rows(self, 0, self.nrows_int())

    def _coords(self):
        """The dense position of each flat value's first axis: ``[N, ragged_rank+1]``."""
        nested = self._nested()
        n = int(nested[-1][-1])
        pos, cols = np.arange(n, dtype=_I64), []
        for s in reversed(nested):
            rows = _rowids(s)[pos]
            cols.insert(0, pos - s[rows])
            pos = rows
        return np.stack([pos] + cols, axis=1) if n else np.zeros((0, len(nested) + 1), _I64)

    def _dense_shape(self):
        nested = self._nested()
        dims = [self.nrows_int()] + [int(np.diff(s).max()) if len(s) > 1 else 0
                                     for s in nested]
        return dims + [int(d) for d in self.flat_values.shape[1:]]

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense Tensor: rows padded at the end with ``default_value`` (b"" for
        strings, 0 for numbers) to the longest, or cut/padded to ``shape``.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[1, 2], [3]]).to_tensor(-1).numpy().tolist()
        [[1, 2], [3, -1]]
        """
        full = self._dense_shape()
        if shape is not None:
            want = [None if d is None or d == -1 else int(d) for d in (
                shape.as_list() if hasattr(shape, "as_list") else list(
                    _host(shape) if isinstance(shape, _TensorLike) else shape))]
            if len(want) != len(full):
                raise ValueError(f"argument `shape` must have rank {len(full)}, got {want}")
            full = [f if w is None else w for f, w in zip(full, want)]
        flat = self.flat_values
        k = self.ragged_rank + 1
        coords = self._coords()
        keep = np.all(coords < np.asarray(full[:k]), axis=1)
        inner = tuple(full[k:])
        if _is_str(flat):
            fill = b"" if default_value is None else _text.host(default_value,
                                                                 "default_value")[()]
            out = np.full(full, fill, dtype=object)
            vals = flat._v[keep]
            out[tuple(coords[keep].T)] = vals[(slice(None),) + tuple(
                slice(0, d) for d in inner)] if inner else vals
            return _text.wrap(out)
        tf = _tf()
        fill = 0 if default_value is None else default_value
        base = tf.fill(full, tf.cast(fill, flat.dtype)) if full else tf.cast(fill, flat.dtype)
        if not keep.any():
            return base
        vals = _take(flat, np.nonzero(keep)[0])
        if inner and tuple(int(d) for d in vals.shape[1:]) != inner:
            vals = vals[(slice(None),) + tuple(slice(0, d) for d in inner)]
        return tf.tensor_scatter_nd_update(base, coords[keep], vals)

    def to_sparse(self, name=None):
        """A SparseTensor of the values at their dense positions.

        >>> import eagertape.tf as tf
        >>> st = tf.ragged.constant([[1, 2], [], [3]]).to_sparse()
        >>> st.indices.numpy().tolist(), st.dense_shape.numpy().tolist()
        ([[0, 0], [0, 1], [2, 0]], [3, 2])
        """
        from .sparse import SparseTensor
        flat = self.flat_values
        coords = self._coords()
        dense = self._dense_shape()
        if len(flat.shape) > 1:
            raise NotImplementedError("to_sparse of a RaggedTensor whose flat values have "
                                      "more than one axis: use to_tensor, then "
                                      "tf.sparse.from_dense")
        return SparseTensor(coords, flat, dense)

    # -- indexing and iteration -----------------------------------------------------
    def __getitem__(self, key):
        if isinstance(key, tuple):
            if not key:
                return self
            rest = key[1:]
            first = self[key[0]]
            if not rest:
                return first
            if isinstance(key[0], slice):
                return self._each_row(first, rest)
            return first[rest if len(rest) > 1 else rest[0]]
        if isinstance(key, _TensorLike):
            key = int(key.numpy())
        if isinstance(key, (int, np.integer)):
            n = self.nrows_int()
            if not -n <= key < n:
                raise IndexError(f"Row key {key} out of bounds: the RaggedTensor has {n} rows")
            return self._row(int(key) % n)
        if isinstance(key, slice):
            return self._rows_of(np.arange(self.nrows_int())[key])
        if key is Ellipsis:
            return self
        raise TypeError("a RaggedTensor is indexed by row numbers and slices (rt[i], "
                        "rt[a:b], rt[:, j], rt[:, a:b]); for more, call .to_tensor() first")

    def _each_row(self, rows, rest):
        # rt[a:b, key...]: ``key`` applied within each row (TF's ragged indexing).
        col = rest[0]
        more = rest[1:]
        if isinstance(col, _TensorLike):
            col = int(col.numpy())
        if isinstance(col, (int, np.integer)):
            if rows._uniform is None:
                raise ValueError("Cannot index into an inner ragged dimension: take the "
                                 "rows with rt[i] (or slice them, rt[:, a:b])")
            lengths = np.diff(rows._splits)
            if np.any((col >= lengths) | (col < -lengths)):
                raise InvalidArgumentError(f"slice index {col} of dimension 1 out of bounds: "
                                           "some rows are shorter")
            pos = rows._splits[:-1] + (col if col >= 0 else lengths + col)
            v = rows._values
            out = v._rows_of(pos) if isinstance(v, RaggedTensor) else _take(v, pos)
            return out[(slice(None),) + more] if more else out
        if isinstance(col, slice):
            picked, lengths = [], []
            for a, b in zip(rows._splits[:-1], rows._splits[1:]):
                r = np.arange(a, b)[col]
                picked.append(r)
                lengths.append(len(r))
            pos = np.concatenate(picked + [np.zeros(0, _I64)]).astype(_I64)
            v = rows._values
            v = v._rows_of(pos) if isinstance(v, RaggedTensor) else _take(v, pos)
            if more:
                v = v._each_row(v, more) if isinstance(v, RaggedTensor) else \
                    v[(slice(None),) + more]
            return RaggedTensor(v, _splits_of(lengths), _internal=True)
        raise TypeError("a RaggedTensor's inner axes are indexed by an int or a slice")

    def __iter__(self):
        return (self[i] for i in range(self.nrows_int()))

    # -- elementwise ops apply to the flat values ------------------------------------
    def with_values(self, new_values):
        """The same outer rows with ``new_values`` in place of ``values``.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[1, 2], [3]]).with_values([7, 8, 9]).to_list()
        [[7, 8], [9]]
        """
        return RaggedTensor(new_values, self._splits, _internal=True, uniform=self._uniform)

    def with_flat_values(self, new_values):
        """The same rows with ``new_values`` (as many) in place of the flat values.

        >>> import eagertape.tf as tf
        >>> tf.ragged.constant([[1, 2], [3]]).with_flat_values([7, 8, 9]).to_list()
        [[7, 8], [9]]
        """
        if isinstance(self._values, RaggedTensor):
            return RaggedTensor(self._values.with_flat_values(new_values), self._splits,
                                _internal=True, uniform=self._uniform)
        return RaggedTensor(new_values, self._splits, _internal=True, uniform=self._uniform)

    def with_row_splits_dtype(self, dtype):
        """This RaggedTensor (eagertape's row splits are int64)."""
        return self

    def __repr__(self):
        return f"<tf.RaggedTensor {self.to_list()}>"

    def __str__(self):
        return repr(self)

    def __bool__(self):
        raise TypeError("the truth value of a RaggedTensor is ambiguous; reduce it first "
                        "(tf.reduce_any, tf.reduce_all)")

    # Python operators: TF's elementwise ops on the flat values.
    def __add__(self, o): return _binary("add", self, o)
    def __radd__(self, o): return _binary("add", o, self)
    def __sub__(self, o): return _binary("subtract", self, o)
    def __rsub__(self, o): return _binary("subtract", o, self)
    def __mul__(self, o): return _binary("multiply", self, o)
    def __rmul__(self, o): return _binary("multiply", o, self)
    def __truediv__(self, o): return _binary("truediv", self, o)
    def __rtruediv__(self, o): return _binary("truediv", o, self)
    def __floordiv__(self, o): return _binary("floordiv", self, o)
    def __mod__(self, o): return _binary("floormod", self, o)
    def __pow__(self, o): return _binary("pow", self, o)
    def __lt__(self, o): return _binary("less", self, o)
    def __le__(self, o): return _binary("less_equal", self, o)
    def __gt__(self, o): return _binary("greater", self, o)
    def __ge__(self, o): return _binary("greater_equal", self, o)
    def __and__(self, o): return _binary("logical_and", self, o)
    def __or__(self, o): return _binary("logical_or", self, o)
    def __neg__(self): return self.with_flat_values(-self.flat_values)
    def __abs__(self): return self.with_flat_values(_tf().abs(self.flat_values))
    def __invert__(self): return self.with_flat_values(_tf().logical_not(self.flat_values))
    __hash__ = object.__hash__


def _reshape(t, shape):
    if _is_str(t):
        return _text.wrap(t._v.reshape(shape))
    return _tf().reshape(t, list(shape))


# -- the elementwise ops ------------------------------------------------------------

def _same_rows(a, b):
    na, nb = a._nested(), b._nested()
    return len(na) == len(nb) and all(np.array_equal(x, y) for x, y in zip(na, nb))


def _binary(op, x, y):
    fn = getattr(_tf().math, op)
    return _elementwise(fn, x, y)


def _elementwise(fn, x, y, *args, **kwargs):
    rt = x if isinstance(x, RaggedTensor) else y
    fx, fy = _broadcast_to_flat(x, rt), _broadcast_to_flat(y, rt)
    return rt.with_flat_values(fn(fx, fy, *args, **kwargs))


def _broadcast_to_flat(v, rt):
    """``v`` against ``rt``'s flat values: its own flat values (the same rows), a
    scalar or the flat values' inner shape as it is, or a dense tensor of ``rt``'s
    rank whose ragged axes are 1 repeated over each row."""
    if isinstance(v, RaggedTensor):
        if v is rt:
            return v.flat_values
        if not _same_rows(v, rt):
            raise InvalidArgumentError(
                "Inputs must have identical ragged splits: the two RaggedTensors' rows "
                "differ; make them from the same row_splits, or pad both with to_tensor()")
        return v.flat_values
    t = v if isinstance(v, _TensorLike) else _leaf(v) if _text.is_text(v) else \
        _extend.convert_to_tensor(v, dtype=rt.dtype if not isinstance(v, np.ndarray)
                                  else None)
    inner = len(rt.flat_values.shape) - 1
    if len(t.shape) <= inner:
        return t
    if len(t.shape) <= rt.rank:
        # TF's broadcasting: the dense shape aligned on the right (leading 1s), a 1
        # against each ragged dimension, 1 or nrows against the rows; its inner
        # dimensions broadcast against the flat values' as a dense op's do.
        dims = [1] * (rt.rank - len(t.shape)) + [int(d) for d in t.shape]
        k = rt.ragged_rank
        if all(d == 1 for d in dims[1:k + 1]) and dims[0] in (1, rt.nrows_int()):
            coords = rt._coords()
            rows = coords[:, 0] if dims[0] != 1 else np.zeros(len(coords), _I64)
            sq = _reshape(t, [dims[0]] + dims[k + 1:])
            return _take(sq, rows)
    raise InvalidArgumentError(
        f"a dense operand of shape {list(t.shape)} does not broadcast against a "
        f"RaggedTensor of shape {rt.shape}: its ragged dimensions need 1s, its rows 1 or "
        "nrows (TF's broadcasting); or convert the RaggedTensor with to_tensor()")


def _unary(fn):
    @functools.wraps(fn)
    def op(x, *args, **kwargs):
        return x.with_flat_values(fn(x.flat_values, *args, **kwargs))
    return op


# -- reductions ---------------------------------------------------------------------

_SEGMENT = {"reduce_sum": "unsorted_segment_sum", "reduce_max": "unsorted_segment_max",
            "reduce_min": "unsorted_segment_min", "reduce_prod": "unsorted_segment_prod",
            "reduce_mean": "mean", "reduce_any": "any", "reduce_all": "all"}


def _segment(kind, values, ids, n):
    tf = _tf()
    if kind == "mean":
        total = tf.math.unsorted_segment_sum(values, ids, n)
        count = np.bincount(ids, minlength=n).astype(np.dtype(values.dtype))
        count = count.reshape((n,) + (1,) * (len(values.shape) - 1))
        # TF's ragged mean is sum / count, a true division (ints give float64).
        return tf.math.truediv(total, _extend.constant(count))
    if kind in ("any", "all"):
        # any: some true value; all: no false one (an empty row: False, True).
        x = values if kind == "any" else tf.logical_not(values)
        count = tf.math.unsorted_segment_sum(tf.cast(x, "int32"), ids, n)
        return count > 0 if kind == "any" else tf.equal(count, 0)
    got = getattr(tf.math, kind)(values, ids, n)
    if got.dtype != values.dtype:
        got = tf.cast(got, values.dtype)      # (the facade's segment_prod widens ints)
    if kind in ("unsorted_segment_max", "unsorted_segment_min"):
        # An empty row is the dtype's lowest (highest) finite value, as TF's.
        dt = np.dtype(values.dtype)
        info = np.finfo(dt) if dt.kind == "f" else np.iinfo(dt)
        empty = np.bincount(ids, minlength=n) == 0
        if empty.any():
            fill = info.min if kind.endswith("max") else info.max
            got = tf.where(_extend.constant(empty.reshape((n,) + (1,) * (len(
                values.shape) - 1))), tf.cast(fill, values.dtype), got)
    return got


def _reduce(name, fn, input_tensor, axis=None, keepdims=False, **kwargs):
    rt = input_tensor
    tf = _tf()
    if axis is None:
        if name == "reduce_mean":
            flat = rt.flat_values
            n = int(np.prod(flat.shape))
            return tf.math.truediv(tf.reduce_sum(flat), tf.cast(n, flat.dtype))
        return fn(rt.flat_values, axis=None, keepdims=False)
    if isinstance(axis, _TensorLike):
        axis = _host(axis).tolist()
    if isinstance(axis, (list, tuple)):
        axes = sorted({a + rt.rank if a < 0 else a for a in axis}, reverse=True)
        out = rt
        for a in axes:
            out = _reduce(name, fn, out, a, keepdims) if isinstance(out, RaggedTensor) \
                else fn(out, axis=a, keepdims=keepdims)
        return out
    axis = int(axis)
    axis = axis + rt.rank if axis < 0 else axis
    if not 0 <= axis < rt.rank:
        raise InvalidArgumentError(f"axis {axis} is out of range for a RaggedTensor of rank "
                                   f"{rt.rank}")
    k = rt.ragged_rank
    kind = _SEGMENT[name]
    flat = rt.flat_values
    if keepdims:
        raise NotImplementedError("keepdims=True on a RaggedTensor: reduce, then "
                                  "tf.expand_dims (or keep the rows with map_flat_values)")
    if axis > k:
        return rt.with_flat_values(fn(flat, axis=axis - k))
    if axis == k:
        # The innermost ragged axis: one segment per innermost row.
        s = rt._nested()[-1]
        out = _segment(kind, flat, _rowids(s), len(s) - 1)
        if k == 1:
            return out
        return RaggedTensor.from_nested_row_splits(out, rt._nested()[:-1], validate=False)
    if k >= 2 and axis == k - 1:
        # Each group of rows (a row at axis - 1) reduced position by position: one row
        # per group, as long as the group's longest.
        nested = rt._nested()
        groups, inner = nested[k - 2], nested[k - 1]
        lengths = np.diff(inner)
        gid = _rowids(groups)
        width = np.zeros(len(groups) - 1, _I64)
        np.maximum.at(width, gid, lengths)
        out_splits = _splits_of(width)
        vrow = _rowids(inner)
        col = np.arange(len(vrow)) - inner[vrow]
        tgt = out_splits[gid[vrow]] + col
        vals = _segment(kind, flat, tgt, int(out_splits[-1]))
        out = RaggedTensor(vals, out_splits, _internal=True)
        return RaggedTensor.from_nested_row_splits(out, nested[:k - 2], validate=False)
    if axis == 0 and k == 1:
        coords = rt._coords()
        width = rt._dense_shape()[1]
        return _segment(kind, flat, coords[:, 1], width)
    if axis == 0:
        # Rows of rows reduced position by position: the result's rows are as long as
        # the longest row at that position.
        inner = rt._values
        lengths = np.diff(inner._splits)
        pos = np.concatenate([np.arange(b - a) for a, b in zip(rt._splits[:-1],
                                                              rt._splits[1:])] +
                             [np.zeros(0, _I64)]).astype(_I64)
        width = int(pos.max()) + 1 if pos.size else 0
        out_len = np.zeros(width, _I64)
        np.maximum.at(out_len, pos, lengths)
        out_splits = _splits_of(out_len)
        # the flat value's target: row pos of its parent, same column.
        coords = inner._coords()
        tgt = out_splits[pos[coords[:, 0]]] + coords[:, 1]
        if k > 2:
            raise NotImplementedError("reducing axis 0 of a RaggedTensor with ragged_rank "
                                      "> 2")
        vals = _segment(kind, flat, tgt, int(out_splits[-1]))
        return RaggedTensor(vals, out_splits, _internal=True)
    raise NotImplementedError(f"reducing axis {axis} of a RaggedTensor with ragged_rank {k}: "
                              "reduce the innermost ragged axis first")


# -- concat, stack, gather, boolean_mask ---------------------------------------------

def _as_ragged(v, ragged_rank, what):
    if isinstance(v, RaggedTensor):
        if v.ragged_rank != ragged_rank:
            raise ValueError(f"{what}: the RaggedTensors must have the same ragged_rank "
                             f"({v.ragged_rank} and {ragged_rank})")
        return v
    t = _leaf(v)
    if len(t.shape) <= ragged_rank:
        raise ValueError(f"{what}: a dense input of rank {len(t.shape)} cannot join "
                         f"RaggedTensors of ragged_rank {ragged_rank}")
    return RaggedTensor.from_tensor(t, ragged_rank=ragged_rank)


def _concat_rows(parts):
    """RaggedTensors of the same ragged_rank, rows after rows."""
    vals = [p._values for p in parts]
    if isinstance(vals[0], RaggedTensor):
        inner = _concat_rows(vals)
    else:
        inner = _cat(vals, vals[0])
    lengths = np.concatenate([np.diff(p._splits) for p in parts])
    return RaggedTensor(inner, _splits_of(lengths), _internal=True)


def concat(values, axis, name=None):
    values = list(values)
    k = max((v.ragged_rank for v in values if isinstance(v, RaggedTensor)), default=1)
    parts = [_as_ragged(v, k, "tf.concat") for v in values]
    rank = parts[0].rank
    axis = axis + rank if axis < 0 else axis
    if axis == 0:
        return _concat_rows(parts)
    if axis == 1:
        n = {p.nrows_int() for p in parts}
        if len(n) != 1:
            raise InvalidArgumentError("tf.concat(axis=1): the inputs must have the same "
                                       "number of rows")
        n = n.pop()
        # Row i is the inputs' rows i one after another: their values gathered so.
        offs = np.cumsum([0] + [int(p._splits[-1]) for p in parts])
        order, lengths = [], np.zeros(n, _I64)
        for i in range(n):
            for p, o in zip(parts, offs):
                a, b = p._splits[i], p._splits[i + 1]
                order.append(np.arange(a, b) + o)
                lengths[i] += b - a
        order = np.concatenate(order + [np.zeros(0, _I64)]).astype(_I64)
        joined = _concat_rows([p.with_values(p._values) for p in parts])._values
        v = joined._rows_of(order) if isinstance(joined, RaggedTensor) else \
            _take(joined, order)
        return RaggedTensor(v, _splits_of(lengths), _internal=True)
    raise NotImplementedError("tf.concat of RaggedTensors along an axis > 1: use "
                              "tf.ragged.map_flat_values, or concatenate axis 0 or 1")


def stack(values, axis=0, name=None):
    values = list(values)
    k = max((v.ragged_rank for v in values if isinstance(v, RaggedTensor)), default=1)
    parts = [_as_ragged(v, k, "tf.stack") for v in values]
    rank = parts[0].rank
    axis = axis + rank + 1 if axis < 0 else axis
    if axis == 0:
        joined = _concat_rows(parts)
        return RaggedTensor(joined, _splits_of([p.nrows_int() for p in parts]),
                            _internal=True)
    if axis == 1:
        n = {p.nrows_int() for p in parts}
        if len(n) != 1:
            raise InvalidArgumentError("tf.stack(axis=1): the inputs must have the same "
                                       "number of rows")
        n = n.pop()
        joined = _concat_rows(parts)
        m = len(parts)
        order = np.arange(n * m).reshape(m, n).T.reshape(-1)
        inner = joined._rows_of(order)
        return RaggedTensor(inner, np.arange(n + 1, dtype=_I64) * m, _internal=True)
    raise NotImplementedError("tf.stack of RaggedTensors along an axis > 1")


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    if isinstance(indices, RaggedTensor):
        return indices.with_flat_values(gather(params, indices.flat_values))
    if axis not in (None, 0) or batch_dims:
        raise NotImplementedError("tf.gather of a RaggedTensor along axis 0 only")
    idx = _host(_leaf(indices)) if not isinstance(indices, np.ndarray) else indices
    idx = np.asarray(idx)
    n = params.nrows_int()
    if np.any((idx < 0) | (idx >= n)):
        raise InvalidArgumentError(f"indices {idx.tolist()} out of range [0, {n})")
    out = params._rows_of(idx.reshape(-1))
    for d in reversed(idx.shape[1:]):
        out = RaggedTensor(out, np.arange(out.nrows_int() // d + 1, dtype=_I64) * d,
                           _internal=True)
    return out


def tile(input, multiples, name=None):  # noqa: A002  (TF's name)
    """``tf.tile`` of a RaggedTensor of ragged rank 1: rows repeated ``multiples[0]``
    times, each row's values ``multiples[1]`` times (TF's)."""
    m = _ints(multiples, "multiples")
    if input.ragged_rank != 1 or len(m) != input.rank or np.any(m[2:] != 1):
        raise NotImplementedError("tf.tile of a RaggedTensor: ragged rank 1, multiples of "
                                  "1 past axis 1")
    rows = np.tile(np.arange(input.nrows_int()), int(m[0]))
    starts, ends = input._splits[:-1][rows], input._splits[1:][rows]
    pos = [np.tile(np.arange(a, b), int(m[1])) for a, b in zip(starts, ends)]
    flat = np.concatenate(pos + [np.zeros(0, _I64)]).astype(_I64)
    return RaggedTensor(_take(input._values, flat), _splits_of([len(p) for p in pos]),
                        _internal=True)


def reverse(tensor, axis, name=None):
    """``tf.reverse`` of a RaggedTensor along ``axis`` (a list of axes): the rows'
    order (axis 0), each row's values (a ragged axis), or an inner dense axis (TF's)."""
    rank = tensor.shape.rank
    axes = _ints(axis, "axis").reshape(-1)
    for a in axes:
        if not -rank <= int(a) < rank:
            raise ValueError(f"argument `axis`: {int(a)} is out of range for a "
                             f"RaggedTensor of rank {rank}")
    out = tensor
    for a in sorted({int(a) % rank for a in axes}):
        out = _reverse_axis(out, a)
    return out


def _reverse_axis(x, axis):
    if not isinstance(x, RaggedTensor):
        return _tf().reverse(x, [axis])
    if axis == 0:
        return gather(x, np.arange(x.nrows_int() - 1, -1, -1))
    if axis > 1:
        return x.with_values(_reverse_axis(x._values, axis - 1))
    pos = np.concatenate([np.arange(b - 1, a - 1, -1) for a, b in zip(x._splits[:-1], x._splits[1:])]
                         + [np.zeros(0, _I64)]).astype(_I64)
    values = gather(x._values, pos) if isinstance(x._values, RaggedTensor) else _take(x._values, pos)
    return x.with_values(values)


def embedding_lookup(params, ids, max_norm=None, name=None):
    """``tf.nn.embedding_lookup`` of ragged ids: each id's row of ``params``, in the
    ids' rows (TF's)."""
    if isinstance(params, RaggedTensor):
        raise TypeError("argument `params`: tf.nn.embedding_lookup takes a Tensor or "
                        "Variable of embeddings, not a RaggedTensor (the ids may be ragged)")
    return ids.with_flat_values(_tf().nn.embedding_lookup(params, ids.flat_values,
                                                          max_norm=max_norm))


def strings_join(inputs, separator="", name=None):
    """``tf.strings.join`` of RaggedTensors of the same rows (and scalars): the
    values joined position by position (TF's)."""
    inputs = list(inputs)
    rt = next(x for x in inputs if isinstance(x, RaggedTensor))
    flat = [_broadcast_to_flat(x, rt) for x in inputs]
    return rt.with_flat_values(_tf().strings.join(flat, separator=separator))


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """``tf.map_fn`` over a RaggedTensor's rows: ``fn`` on each row; rows of any
    length come back as a RaggedTensor, scalars as a Tensor."""
    outs = [fn(row) for row in elems]
    tf = _tf()
    if not outs:
        return elems
    if isinstance(outs[0], RaggedTensor):
        return _concat_rows([RaggedTensor(o, [0, o.nrows_int()], _internal=True)
                             for o in outs])
    if len(outs[0].shape) == 0:
        if fn_output_signature is None and dtype is None:
            raise InvalidArgumentError(
                "Ragged values must have rank >= 1: tf.map_fn over a RaggedTensor whose "
                "`fn` returns scalars needs fn_output_signature=tf.TensorSpec([], dtype) "
                "(as in TF)")
        return tf.stack(outs)
    return RaggedTensor(_cat(outs, outs[0]), _splits_of([int(o.shape[0]) for o in outs]),
                        _internal=True)


def boolean_mask(data, mask, name=None):
    """``tf.ragged.boolean_mask``: the values of ``data`` where ``mask`` is True,
    each row keeping its own (a ragged result, as TF's).

    >>> import eagertape.tf as tf
    >>> tf.ragged.boolean_mask([[1, 2, 3], [4, 5, 6]], [[True, False, True],
    ...                                                 [False, False, True]]).to_list()
    [[1, 3], [6]]
    """
    if isinstance(mask, RaggedTensor):
        if not isinstance(data, RaggedTensor):
            data = RaggedTensor.from_tensor(_leaf(data), ragged_rank=mask.ragged_rank)
        m = _host(mask.flat_values).astype(bool)
        if not _same_rows(mask, data):
            raise InvalidArgumentError("argument `mask` must have the rows of `data`")
        keep = np.nonzero(m)[0]
        rows = _rowids(data._nested()[-1])[keep]
        inner_n = data._nested()[-1].size - 1
        new_inner = RaggedTensor(_take(data.flat_values, keep),
                                 _splits_of(np.bincount(rows, minlength=inner_n)),
                                 _internal=True)
        if data.ragged_rank == 1:
            return new_inner
        return RaggedTensor.from_nested_row_splits(new_inner, data._nested()[:-1])
    m = np.asarray(_host(_leaf(mask))).astype(bool)
    if m.ndim == 1:
        if isinstance(data, RaggedTensor):
            return data._rows_of(np.nonzero(m)[0])
        return _tf().boolean_mask(data, m)
    t = _leaf(data) if not isinstance(data, RaggedTensor) else None
    if t is None:
        raise ValueError("argument `mask`: a dense mask of rank > 1 on a RaggedTensor; give "
                         "a RaggedTensor mask of the same rows")
    shape = [int(d) for d in t.shape]
    if list(m.shape) != shape[:m.ndim]:
        raise ValueError(f"argument `mask` of shape {list(m.shape)} must match the shape of "
                         f"`data` {shape} in its first {m.ndim} axes")
    flat = _reshape(t, [-1] + shape[m.ndim:])
    keep = np.nonzero(m.reshape(-1))[0]
    out = _take(flat, keep)
    counts = m.reshape(-1, m.shape[-1]).sum(axis=1)
    rt = RaggedTensor(out, _splits_of(counts), _internal=True)
    for d in reversed(m.shape[1:-1]):
        rt = RaggedTensor(rt, np.arange(rt.nrows_int() // d + 1, dtype=_I64) * d,
                          _internal=True, uniform=d)
    return rt


# -- tf.ragged ------------------------------------------------------------------------

def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype="int64"):
    """``tf.ragged.constant``: a RaggedTensor of nested Python lists (ints int32,
    floats float32, text tf.string, as TF converts them).

    >>> import eagertape.tf as tf
    >>> rt = tf.ragged.constant([[1, 2], [3]])
    >>> rt.dtype, rt.shape, rt.ragged_rank
    (tf.int32, TensorShape([2, None]), 1)
    >>> tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1).shape
    TensorShape([2, None, 2])
    """
    if isinstance(pylist, RaggedTensor):
        return pylist

    def depth(x):
        if isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim):
            ds = {depth(v) for v in x}
            ds.discard(None)
            if len(ds) > 1:
                raise ValueError("all scalar values must have the same nesting depth")
            return 1 + (ds.pop() if ds else 0) if ds else None
        return 0
    d = depth(pylist)
    if d is None:            # only empty lists: their depth is the nesting seen
        d, x = 0, pylist
        while isinstance(x, (list, tuple)):
            d += 1
            x = x[0] if x else None
        d = max(d, 1)
        empty = True
    else:
        empty = False
    if d == 0:
        raise ValueError("tf.ragged.constant: argument `pylist` must be a nested list")
    if inner_shape is not None:
        inner_len = len(inner_shape)
    else:
        inner_len = 0 if ragged_rank is None else d - 1 - ragged_rank
    rr = d - 1 - inner_len if ragged_rank is None else ragged_rank
    if rr < 0 or rr + inner_len + 1 > d and not empty:
        raise ValueError(f"argument `ragged_rank` ({ragged_rank}) must be less than the "
                         f"nesting depth of `pylist` ({d})")
    if rr == 0:
        return _leaf(pylist, dtype)
    lengths = []
    level = list(pylist)
    for _ in range(rr):
        lengths.append([len(x) for x in level])
        level = [y for x in level for y in x]
    if level:
        flat = _leaf(level, dtype)
    else:
        want = tuple(inner_shape or ()) if inner_shape is not None else (0,) * inner_len
        flat = _leaf(np.zeros((0,) + want, np.float32 if dtype is None else
                              np.dtype(_extend.as_dtype(dtype))))
    rt = flat
    for ls in reversed(lengths[1:]):
        rt = RaggedTensor(rt, _splits_of(ls), _internal=True)
    return RaggedTensor(rt, _splits_of(lengths[0]), _internal=True)


def map_flat_values(op, *args, **kwargs):
    """``op`` on the flat values of the RaggedTensor arguments (which must share their
    rows), the result with those rows.

    >>> import eagertape.tf as tf
    >>> rt = tf.ragged.constant([[1.0, 2.0], [3.0]])
    >>> tf.ragged.map_flat_values(tf.math.square, rt).to_list()
    [[1.0, 4.0], [9.0]]
    """
    found = []

    def sub(x):
        if isinstance(x, RaggedTensor):
            found.append(x)
            return x.flat_values
        if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
            return type(x)(sub(v) for v in x)
        if isinstance(x, dict):
            return {k: sub(v) for k, v in x.items()}
        return x
    new_args = [sub(a) for a in args]
    new_kwargs = {k: sub(v) for k, v in kwargs.items()}
    if not found:
        return op(*args, **kwargs)
    for other in found[1:]:
        if not _same_rows(found[0], other):
            raise ValueError("map_flat_values: the RaggedTensor arguments must have the "
                             "same nested row splits")
    out = op(*new_args, **new_kwargs)
    n = int(found[0].flat_values.shape[0])
    if not hasattr(out, "shape") or len(out.shape) == 0 or int(out.shape[0]) != n:
        raise ValueError(f"map_flat_values: `op` must return as many values as it was "
                         f"given ({n}) along the first axis")
    return found[0].with_flat_values(out)


def ragged_range(starts, limits=None, deltas=1, dtype=None, name=None,
          row_splits_dtype="int64"):
    """``tf.ragged.range``: row ``i`` is ``range(starts[i], limits[i], deltas[i])``
    (scalars broadcast).

    >>> import eagertape.tf as tf
    >>> tf.ragged.range([3, 5, 2]).to_list()
    [[0, 1, 2], [0, 1, 2, 3, 4], [0, 1]]
    >>> tf.ragged.range([0, 5, 8], [3, 3, 12], 2).to_list()
    [[0, 2], [], [8, 10]]
    """
    if limits is None:
        starts, limits = 0, starts
    parts = [_extend.convert_to_tensor(v) if not isinstance(v, _TensorLike) else v
             for v in (starts, limits, deltas)]
    dt = np.result_type(*[np.dtype(p.dtype) for p in parts]) if dtype is None else \
        np.dtype(_extend.as_dtype(dtype))
    s, l, d = np.broadcast_arrays(*[np.asarray(p.numpy()).astype(dt) for p in parts])
    if np.any(d == 0):
        raise InvalidArgumentError("Requires delta != 0")
    rows = [np.arange(a, b, c, dtype=dt) for a, b, c in zip(s.reshape(-1), l.reshape(-1),
                                                            d.reshape(-1))]
    return from_rows(rows, dt)


def stack_dynamic_partitions(data, partitions, num_partitions, name=None):
    """``tf.ragged.stack_dynamic_partitions``: row ``p`` holds the rows of ``data``
    whose partition is ``p``, in order.

    >>> import eagertape.tf as tf
    >>> tf.ragged.stack_dynamic_partitions(['a', 'b', 'c', 'd'], [2, 0, 2, 0], 3).to_list()
    [[b'b', b'd'], [], [b'a', b'c']]
    """
    p = _ints(partitions, "partitions")
    n = int(num_partitions)
    if np.any((p < 0) | (p >= n)):
        raise InvalidArgumentError(f"argument `partitions` must be in [0, {n})")
    order = np.argsort(p, kind="stable")
    if isinstance(data, RaggedTensor):
        vals = data._rows_of(order)
    else:
        vals = _take(_leaf(data), order)
    out = RaggedTensor(vals, _splits_of(np.bincount(p, minlength=n)), _internal=True)
    # TF's row splits take the partitions' dtype (int32 for Python ints).
    out._sdt = np.dtype(_extend.convert_to_tensor(partitions).dtype) \
        if not isinstance(partitions, _TensorLike) else np.dtype(partitions.dtype)
    return out


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row of each value, from row splits.

    >>> import eagertape.tf as tf
    >>> tf.ragged.row_splits_to_segment_ids([0, 2, 2, 3]).numpy()
    array([0, 0, 2])
    """
    return _extend.constant(_rowids(_ints(splits, "splits")).astype(
        _extend.as_dtype(out_type or "int64")))


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """Row splits from the (sorted) row of each value.

    >>> import eagertape.tf as tf
    >>> tf.ragged.segment_ids_to_row_splits([0, 0, 2]).numpy()
    array([0, 2, 2, 3])
    """
    ids = _ints(segment_ids, "segment_ids")
    n = (int(ids.max()) + 1 if ids.size else 0) if num_segments is None else int(num_segments)
    return _extend.constant(_splits_of(np.bincount(ids, minlength=n)).astype(
        _extend.as_dtype(out_type or "int64")))


class RaggedTensorSpec:
    """``tf.RaggedTensorSpec``: a RaggedTensor's shape, dtype and ragged_rank (what
    ``tf.data``'s ``element_spec`` gives for ragged elements).

    >>> import eagertape.tf as tf
    >>> tf.RaggedTensorSpec.from_value(tf.ragged.constant([[1, 2], [3]]))
    RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int64)
    """

    def __init__(self, shape=None, dtype="float32", ragged_rank=None,
                 row_splits_dtype="int64", flat_values_spec=None):
        self.shape = TensorShape(shape)
        self.dtype = _extend.as_dtype(dtype) if not _text.is_string_dtype(dtype) else \
            _text.wrap(np.empty(0, object)).dtype
        rank = len(self.shape) if self.shape.rank is not None else None
        self.ragged_rank = (rank - 1 if rank else 1) if ragged_rank is None else \
            int(ragged_rank)
        self.row_splits_dtype = _extend.as_dtype(row_splits_dtype)

    @classmethod
    def from_value(cls, value):
        return cls(value.shape, value.dtype, value.ragged_rank)

    @property
    def value_type(self):
        return RaggedTensor

    def is_compatible_with(self, spec_or_value):
        o = spec_or_value
        if isinstance(o, RaggedTensor):
            o = RaggedTensorSpec.from_value(o)
        return (isinstance(o, RaggedTensorSpec) and o.dtype == self.dtype
                and o.ragged_rank == self.ragged_rank
                and self.shape.is_compatible_with(o.shape))

    # TF's protocol of a composite value's spec (what tf.function's input_signature
    # reads): the TensorSpecs of the value's pytree leaves, its flat values alone
    # (the row splits are static: each row structure is a trace of its own).
    @property
    def _flat_tensor_specs(self):
        inner = None if self.shape.rank is None else self.shape.as_list()[self.ragged_rank + 1:]
        return [_tf().TensorSpec(None if inner is None else [None] + inner, self.dtype)]

    def _from_compatible_tensor_list(self, tensors):
        # One row per ragged dimension holding all the values (the spec has no rows).
        v = tensors[0]
        for _ in builtins_range(self.ragged_rank):
            n = v.shape[0] if not isinstance(v, RaggedTensor) else v.nrows_int()
            v = RaggedTensor(v, np.array([0, n], _I64), _internal=True)
        return v

    def _key(self):
        dims = None if self.shape.rank is None else tuple(self.shape.as_list())
        return dims, str(self.dtype), self.ragged_rank

    def __eq__(self, other):
        return isinstance(other, RaggedTensorSpec) and other._key() == self._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        dt = "string" if self.dtype == object else np.dtype(self.dtype).name
        return (f"RaggedTensorSpec({self.shape!r}, tf.{dt}, {self.ragged_rank}, "
                f"tf.{np.dtype(self.row_splits_dtype).name})")


def from_rows(rows, dtype=object):
    """A ragged-rank-1 RaggedTensor of a list of 1-D NumPy arrays."""
    lengths = [len(r) for r in rows]
    if rows:
        values = np.concatenate([np.asarray(r, dtype) for r in rows])
    else:
        values = np.empty((0,), dtype)
    if dtype is object:
        values = _text.wrap(values.astype(object))
    return RaggedTensor(values, _splits_of(lengths), _internal=True)


def nest_rows(inner, shape):
    """``inner`` (ragged rank 1 over every element of an input of ``shape``) with the
    input's outer dimensions on top: the result of a splitting op on rank > 1."""
    rt = inner
    for d in reversed(shape[1:]):
        n = rt.nrows_int() // d if d else 0
        rt = RaggedTensor(rt, np.arange(n + 1, dtype=_I64) * d, _internal=True, uniform=d)
    return rt


# -- TF's ops dispatching to ragged inputs ------------------------------------------

_UNARY = ("abs negative exp expm1 log log1p sqrt rsqrt square sin cos tan asin acos atan "
          "sinh cosh tanh asinh acosh atanh sigmoid sign round floor ceil reciprocal "
          "logical_not erf softplus is_nan is_inf is_finite cast saturate_cast zeros_like "
          "ones_like identity").split()
_NN_UNARY = "relu relu6 elu selu gelu softsign leaky_relu silu".split()
_BINARY = ("add subtract multiply divide truediv floordiv floormod maximum minimum pow "
           "equal not_equal less less_equal greater greater_equal logical_and logical_or "
           "squared_difference divide_no_nan").split()
_REDUCE = tuple(_SEGMENT)
# TF's elementwise string ops (its registered unary elementwise APIs of string_ops):
# on a RaggedTensor, applied to the flat values.
_STRINGS_UNARY = ("strings.as_string strings.lower strings.upper strings.strip strings.length "
                  "strings.substr strings.regex_full_match strings.regex_replace "
                  "strings.to_number strings.to_hash_bucket strings.to_hash_bucket_fast "
                  "strings.to_hash_bucket_strong strings.unicode_script "
                  "strings.unicode_transcode io.decode_base64 io.encode_base64 "
                  "as_string").split()


def _dispatching(fn, handler, test):
    @functools.wraps(fn)
    def dispatch(*args, **kwargs):
        if test(args, kwargs):
            return handler(*args, **kwargs)
        return fn(*args, **kwargs)
    dispatch._ragged_dispatch = True
    return dispatch


def _first_is_ragged(names):
    first = names[0]

    def test(args, kwargs):
        v = args[0] if args else kwargs.get(first)
        return isinstance(v, RaggedTensor)
    return test


def _arg_is(name, i, cls):
    def test(args, kwargs):
        return isinstance(args[i] if i < len(args) else kwargs.get(name), cls)
    return test


def _any_ragged(names, params):
    where = [(p, names.index(p)) for p in params]

    def test(args, kwargs):
        for p, i in where:
            v = args[i] if i < len(args) else kwargs.get(p)
            if isinstance(v, RaggedTensor):
                return True
            if isinstance(v, (list, tuple)) and any(isinstance(x, RaggedTensor) for x in v):
                return True
        return False
    return test


def _handlers(tf_module, extra=()):
    out = {}

    def get(path):
        obj = tf_module
        for part in path.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                return None
        return obj
    for name in _UNARY:
        fn = get("math." + name) or get(name)
        if fn is not None:
            out[id(fn)] = (fn, _unary(fn), None)
    for name in _STRINGS_UNARY:
        fn = get(name)
        if fn is not None:
            out[id(fn)] = (fn, _unary(fn), None)
    for name in _NN_UNARY:
        fn = get("nn." + name)
        if fn is not None:
            out[id(fn)] = (fn, _unary(fn), None)
    for name in _BINARY:
        fn = get("math." + name)
        if fn is not None:
            names = list(inspect.signature(fn).parameters)
            out[id(fn)] = (fn, functools.partial(_elementwise, fn), names[:2])
    for name in _REDUCE:
        fn = get("math." + name)
        if fn is not None:
            out[id(fn)] = (fn, functools.partial(_reduce, name, fn), None)
    for name, handler, params in (("concat", concat, ["values"]),
                                  ("stack", stack, ["values"]),
                                  ("gather", gather, ["params", "indices"]),
                                  ("boolean_mask", boolean_mask, ["tensor", "mask"]),
                                  ("tile", tile, ["input"]),
                                  ("reverse", reverse, ["tensor"]),
                                  ("nn.embedding_lookup", embedding_lookup, ["ids"]),
                                  ("strings.join", strings_join, ["inputs"]),
                                  ("map_fn", map_fn, ["elems"])):
        fn = get(name)
        if fn is not None:
            out[id(fn)] = (fn, handler, params)
    # More handlers from the caller (tf/_ragged_shape.py's: tf.shape of a RaggedTensor
    # is a DynamicRaggedShape, which reshape/zeros/ones/fill take in turn); each
    # (name, handler, (argument index, class)).
    for name, handler, params in extra:
        fn = get(name)
        if fn is not None:
            out[id(fn)] = (fn, handler, params)
    return out


def install(tf_module, extra=()):
    """Put a dispatcher in front of each of TF's ops that take RaggedTensors, under
    every name the facade's modules bind it to (as ``_text.install`` does); ``extra``:
    more ``(name, handler, (argument index, class))``."""
    done = {}
    for key, (fn, handler, params) in _handlers(tf_module, extra).items():
        if getattr(fn, "_ragged_dispatch", False):
            continue
        names = list(inspect.signature(fn).parameters)
        test = _first_is_ragged(names) if params is None else \
            _arg_is(names[params[0]], params[0], params[1]) if isinstance(params, tuple) \
            else _any_ragged(names, params)
        if fn.__name__ == "boolean_mask":
            # tf.boolean_mask(rt, mask) and tf.ragged.boolean_mask agree on TF's rows.
            handler = boolean_mask
        done[key] = _dispatching(fn, handler, test)
    _rebind(done, skip=("eagertape.tf._text", "eagertape.tf._ragged"))


# -- a pytree: the flat values its leaf, the rows (host arrays) its static part -----
# so that tf.function traces a RaggedTensor argument (one trace per row structure,
# as TF's per-RaggedTensorSpec trace is one per shape) and Keras/JAX code maps over it.

class _Rows:
    __slots__ = ("levels", "key")

    def __init__(self, levels):
        self.levels = levels          # [(splits, uniform, sdt)], outermost first
        self.key = tuple((s.tobytes(), u, str(d)) for s, u, d in levels)

    def __eq__(self, other):
        return isinstance(other, _Rows) and other.key == self.key

    def __hash__(self):
        return hash(self.key)


def _flatten(rt):
    levels = [(r._splits, r._uniform, r._sdt) for r in rt._levels()]
    return (rt.flat_values,), _Rows(levels)


def _unflatten(rows, children):
    v = children[0]
    if not isinstance(v, _TensorLike):
        # Rebuilt from JAX arrays: JAX-level code (a Keras layer's call) was handed a
        # RaggedTensor, which has no JAX (or Keras 3) counterpart.
        raise ValueError(
            "a RaggedTensor cannot enter JAX-level code (Keras 3 takes ragged inputs only "
            "on its TensorFlow backend, not on JAX): pad the rows with "
            "rt.to_tensor() and mask the padding (mask_zero=True in Embedding, or a Masking "
            "layer), or batch a dataset with padded_batch rather than ragged_batch")
    for splits, uniform, sdt in reversed(rows.levels):
        out = object.__new__(RaggedTensor)
        out._values, out._splits, out._uniform = v, splits, uniform
        if sdt != _I64:
            out._sdt = sdt
        v = out
    return v


def _register():
    import jax
    jax.tree_util.register_pytree_node(RaggedTensor, _flatten, _unflatten)


_register()
