"""``tf.experimental.DynamicRaggedShape`` and ``tf.experimental.RowPartition``: the
shape of a RaggedTensor, as ``tf.shape(rt)`` gives it.

A row partition is host row splits (int64 NumPy, as a RaggedTensor's: ragged shapes
are Python facts here) with the dtype TF would give them; a DynamicRaggedShape is
its row partitions, outermost first, and the inner shape (the flat values' shape).
``tf.reshape``, ``tf.zeros``, ``tf.ones`` and ``tf.fill`` take one and give a
RaggedTensor of that shape (``_ragged.install`` dispatches them here).

>>> import eagertape.tf as tf
>>> shape = tf.shape(tf.ragged.constant([[1], [2, 3, 4], [], [5, 6]]))
>>> shape
<DynamicRaggedShape lengths=[4, (1, 3, 0, 2)] num_row_partitions=1>
>>> int(shape[0]), tf.zeros(shape).to_list()
(4, [[0.0], [0.0, 0.0, 0.0], [], [0.0, 0.0]])
"""
import numpy as np

from .. import extend as _extend

_I64 = np.int64


def _ints(x, what):
    if isinstance(x, _extend.TensorLike):
        x = x.numpy()
    arr = np.asarray(x)
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"argument `{what}` must hold integers, got {arr.dtype}")
    return arr.astype(_I64).reshape(-1)


def _int(x, what):
    arr = _ints(x, what)
    if arr.size != 1:
        raise ValueError(f"argument `{what}` must be one integer, got {arr.tolist()}")
    return int(arr[0])


def _np_dtype(dtype, default=_I64):
    if dtype is None:
        return np.dtype(default)
    d = np.dtype(_extend.as_dtype(dtype))
    if d not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise ValueError(f"argument `dtype` must be tf.int32 or tf.int64, got {dtype}")
    return d


class RowPartition:
    """``tf.experimental.RowPartition``: how a RaggedTensor's values are cut into rows
    (row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``).

    >>> import eagertape.tf as tf
    >>> rp = tf.experimental.RowPartition.from_row_lengths([5, 3, 2])
    >>> rp
    tf.RowPartition(row_splits=[ 0  5  8 10])
    >>> int(rp.nrows()), rp.row_lengths().numpy().tolist()
    (3, [5, 3, 2])
    """

    def __init__(self, row_splits, uniform_row_length=None, dtype=_I64, _internal=False):
        if not _internal:
            raise TypeError("RowPartition(...): make one with a RowPartition.from_* "
                            "constructor (from_row_splits, from_row_lengths, "
                            "from_value_rowids, from_uniform_row_length, ...)")
        self._splits = np.asarray(row_splits, _I64)
        self._uniform = uniform_row_length      # an int where every row has this length
        self._dtype = np.dtype(dtype)

    # -- constructors ----------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, row_splits, validate=True, dtype=None, dtype_hint=None):
        """Rows ``[row_splits[i], row_splits[i + 1])`` of the values.

        >>> import eagertape.tf as tf
        >>> int(tf.experimental.RowPartition.from_row_splits([0, 2, 3]).nvals())
        3
        """
        splits = _ints(row_splits, "row_splits")
        if validate and (splits.size == 0 or splits[0] != 0 or np.any(np.diff(splits) < 0)):
            raise _extend.InvalidArgumentError(
                "argument `row_splits` must start at 0 and not decrease, got "
                f"{splits.tolist()}")
        return cls(splits, None, _np_dtype(dtype, _np_dtype(dtype_hint)), _internal=True)

    @classmethod
    def from_row_lengths(cls, row_lengths, validate=True, dtype=None, dtype_hint=None):
        """Rows of the given lengths, in order.

        >>> import eagertape.tf as tf
        >>> tf.experimental.RowPartition.from_row_lengths([2, 0, 1]).row_splits().numpy().tolist()
        [0, 2, 2, 3]
        """
        lengths = _ints(row_lengths, "row_lengths")
        if validate and np.any(lengths < 0):
            raise _extend.InvalidArgumentError("argument `row_lengths` must not be negative")
        splits = np.concatenate([[0], np.cumsum(lengths)]).astype(_I64)
        return cls(splits, None, _np_dtype(dtype, _np_dtype(dtype_hint)), _internal=True)

    @classmethod
    def from_row_starts(cls, row_starts, nvals, validate=True, dtype=None, dtype_hint=None):
        """Rows starting at ``row_starts``, the last ending at ``nvals``."""
        return cls.from_row_splits(np.concatenate([_ints(row_starts, "row_starts"),
                                                   [_int(nvals, "nvals")]]),
                                   validate, dtype, dtype_hint)

    @classmethod
    def from_row_limits(cls, row_limits, validate=True, dtype=None, dtype_hint=None):
        """Rows ending at ``row_limits``."""
        return cls.from_row_splits(np.concatenate([[0], _ints(row_limits, "row_limits")]),
                                   validate, dtype, dtype_hint)

    @classmethod
    def from_value_rowids(cls, value_rowids, nrows=None, validate=True, dtype=None,
                          dtype_hint=None):
        """Value ``j`` in row ``value_rowids[j]`` (sorted); ``nrows`` rows (default: the
        last id + 1)."""
        ids = _ints(value_rowids, "value_rowids")
        if validate and (np.any(np.diff(ids) < 0) or (ids.size and ids[0] < 0)):
            raise _extend.InvalidArgumentError(
                "argument `value_rowids` must be sorted and non-negative")
        n = (int(ids[-1]) + 1 if ids.size else 0) if nrows is None else _int(nrows, "nrows")
        return cls.from_row_lengths(np.bincount(ids, minlength=n), validate, dtype,
                                    dtype_hint)

    @classmethod
    def from_uniform_row_length(cls, uniform_row_length, nvals=None, nrows=None,
                                validate=True, dtype=None, dtype_hint=None):
        """``nrows`` rows (or ``nvals // uniform_row_length``) of one length.

        >>> import eagertape.tf as tf
        >>> tf.experimental.RowPartition.from_uniform_row_length(3, nvals=6)
        tf.RowPartition(nrows=2, uniform_row_length=3)
        """
        length = _int(uniform_row_length, "uniform_row_length")
        if nrows is None:
            if nvals is None:
                raise ValueError("give argument `nvals` or `nrows`")
            nvals = _int(nvals, "nvals")
            nrows = nvals // length if length else 0
            if validate and length and nvals % length:
                raise _extend.InvalidArgumentError(
                    f"argument `nvals` ({nvals}) must be a multiple of "
                    f"`uniform_row_length` ({length})")
        n = _int(nrows, "nrows")
        return cls(np.arange(n + 1, dtype=_I64) * length, length,
                   _np_dtype(dtype, _np_dtype(dtype_hint)), _internal=True)

    # -- what it holds ---------------------------------------------------------------
    def _t(self, arr):
        return _extend.constant(np.asarray(arr).astype(self._dtype))

    @property
    def dtype(self):
        return _extend.as_dtype(self._dtype)

    def row_splits(self):
        return self._t(self._splits)

    def row_lengths(self):
        return self._t(np.diff(self._splits))

    def row_starts(self):
        return self._t(self._splits[:-1])

    def row_limits(self):
        return self._t(self._splits[1:])

    def value_rowids(self):
        return self._t(np.repeat(np.arange(len(self._splits) - 1), np.diff(self._splits)))

    def nrows(self):
        return self._t(len(self._splits) - 1)

    def nvals(self):
        return self._t(self._splits[-1])

    def uniform_row_length(self):
        """The rows' one length, or None where they differ."""
        return None if self._uniform is None else self._t(self._uniform)

    def is_uniform(self):
        return self._uniform is not None

    @property
    def static_nrows(self):
        return len(self._splits) - 1

    @property
    def static_nvals(self):
        return int(self._splits[-1])

    @property
    def static_uniform_row_length(self):
        return self._uniform

    def with_dtype(self, dtype):
        return RowPartition(self._splits, self._uniform, _np_dtype(dtype), _internal=True)

    def __repr__(self):
        if self._uniform is not None:
            return (f"tf.RowPartition(nrows={self.static_nrows}, "
                    f"uniform_row_length={self._uniform})")
        return f"tf.RowPartition(row_splits={self._splits})"


class DynamicRaggedShape:
    """``tf.experimental.DynamicRaggedShape``: a (ragged) shape, as row partitions
    (outermost first) and the inner shape of the flat values; ``tf.shape`` of a
    RaggedTensor.

    >>> import eagertape.tf as tf
    >>> s = tf.experimental.DynamicRaggedShape.from_lengths([4, (2, 1, 0, 8), 12])
    >>> s, s.rank
    (<DynamicRaggedShape lengths=[4, (2, 1, 0, 8), 12] num_row_partitions=1>, 3)
    """

    def __init__(self, row_partitions, inner_shape, dtype=None, validate=True,
                 static_inner_shape=None):
        parts = tuple(row_partitions)
        for p in parts:
            if not isinstance(p, RowPartition):
                raise TypeError("argument `row_partitions` must hold RowPartitions, got "
                                f"{type(p).__name__}")
        inner = _ints(inner_shape, "inner_shape")
        if parts and not inner.size:
            raise ValueError("argument `inner_shape` must have rank 1 or more where there "
                             "are row partitions")
        for outer, part in zip(parts, parts[1:] + (None,)):
            nvals = part.static_nrows if part is not None else int(inner[0])
            if validate and outer.static_nvals != nvals:
                raise ValueError(f"the row partitions do not nest: {outer!r} cuts "
                                 f"{outer.static_nvals} values, the next dimension has {nvals}")
        if dtype is None:
            dtype = parts[0]._dtype if parts else (
                np.dtype(_extend.as_dtype(inner_shape.dtype))
                if isinstance(inner_shape, _extend.TensorLike) else _I64)
        self._dtype = _np_dtype(dtype)
        self._parts = tuple(p.with_dtype(self._dtype) for p in parts)
        self._inner = inner

    @classmethod
    def from_lengths(cls, lengths, num_row_partitions=None, dtype="int64"):
        """A shape from its lengths: an int for a uniform dimension, a tuple of row
        lengths for a ragged one.

        >>> import eagertape.tf as tf
        >>> tf.experimental.DynamicRaggedShape.from_lengths([2, (1, 2)]).static_lengths()
        [2, (1, 2)]
        """
        lengths = list(lengths)
        ragged = [i for i, d in enumerate(lengths) if isinstance(d, (tuple, list))]
        if ragged and ragged[0] == 0:
            raise ValueError("argument `lengths`: the first dimension cannot be ragged")
        k = (ragged[-1] if ragged else 0) if num_row_partitions is None else \
            int(num_row_partitions)
        if k < (ragged[-1] if ragged else 0) or (lengths and k >= len(lengths)) or \
                (not lengths and k):
            raise ValueError(f"argument `num_row_partitions` ({k}) must be at least the "
                             f"last ragged dimension and less than the rank ({len(lengths)})")
        parts, n = [], int(lengths[0]) if lengths else 1
        for d in lengths[1:k + 1]:
            if isinstance(d, (tuple, list)):
                if len(d) != n:
                    raise ValueError("Shape not consistent.")
                part = RowPartition.from_row_lengths(list(d), dtype=dtype)
            else:
                part = RowPartition.from_uniform_row_length(int(d), nrows=n, dtype=dtype)
            parts.append(part)
            n = part.static_nvals
        inner = ([n] + [int(d) for d in lengths[k + 1:]]) if lengths else []
        return cls(parts, np.asarray(inner, _I64), dtype=dtype)

    @classmethod
    def from_tensor(cls, t, dtype=None):
        """The shape of ``t``, a Tensor or a RaggedTensor."""
        from ._ragged import RaggedTensor
        if isinstance(t, RaggedTensor):
            parts = [RowPartition(r._splits, r._uniform, _I64, _internal=True)
                     for r in t._levels()]
            inner = [int(d) for d in t.flat_values.shape]
            return cls(parts, np.asarray(inner, _I64),
                       dtype=_np_dtype(dtype, t._sdt), validate=False)
        inner = [int(d) for d in _extend.convert_to_tensor(t).shape]
        return cls([], np.asarray(inner, _I64), dtype=dtype)

    # -- what it holds ---------------------------------------------------------------
    @property
    def dtype(self):
        return _extend.as_dtype(self._dtype)

    @property
    def row_partitions(self):
        return self._parts

    @property
    def num_row_partitions(self):
        return len(self._parts)

    @property
    def inner_shape(self):
        return _extend.constant(self._inner.astype(self._dtype))

    @property
    def inner_rank(self):
        return int(self._inner.size)

    @property
    def rank(self):
        return len(self._parts) + int(self._inner.size)

    def with_dtype(self, dtype):
        return DynamicRaggedShape(self._parts, self._inner, dtype=dtype, validate=False)

    def _length(self, axis):
        """An int for a uniform dimension, the row lengths (a tuple) for a ragged one."""
        k = len(self._parts)
        if axis == 0:
            return self._parts[0].static_nrows if k else int(self._inner[0])
        if axis <= k:
            part = self._parts[axis - 1]
            return part._uniform if part._uniform is not None else \
                tuple(int(d) for d in np.diff(part._splits))
        return int(self._inner[axis - k])

    def static_lengths(self, ragged_lengths=True):
        """Each dimension's length: an int where uniform, the row lengths (a tuple) where
        ragged (None with ``ragged_lengths=False``)."""
        out = [self._length(i) for i in range(self.rank)]
        return out if ragged_lengths else [None if isinstance(d, tuple) else d for d in out]

    def is_uniform(self, axis):
        return not isinstance(self._length(axis), tuple)

    def num_slices_in_dimension(self, axis):
        """How many slices the dimensions up to ``axis`` hold (the product of their
        lengths, counting each ragged row)."""
        k = len(self._parts)
        if axis == 0:
            return _extend.constant(np.asarray(1, self._dtype))
        if axis <= k:
            return self._parts[axis - 1].nrows()
        return _extend.constant(np.asarray(int(np.prod(self._inner[:axis - k])),
                                           self._dtype))

    def __getitem__(self, index):
        rank = self.rank
        if isinstance(index, slice):
            return self._slice(index, rank)
        if isinstance(index, _extend.TensorLike):
            index = int(index.numpy())
        if not isinstance(index, (int, np.integer)):
            raise TypeError(f"a DynamicRaggedShape index must be an int or a slice, got "
                            f"{type(index).__name__}")
        i = int(index) + rank if index < 0 else int(index)
        if not 0 <= i < rank:
            raise IndexError(f"Index {index} out of range for a shape of rank {rank}")
        d = self._length(i)
        if isinstance(d, tuple):
            raise ValueError(f"Index {index} is not uniform")
        return _extend.constant(np.asarray(d, self._dtype))

    def _slice(self, index, rank):
        start, stop, step = index.indices(rank)
        if step != 1:
            raise ValueError("a DynamicRaggedShape slice takes no step")
        stop = max(stop, start)
        if start == 0:
            k = len(self._parts)
            if stop == 0:
                return DynamicRaggedShape([], np.zeros(0, _I64), dtype=self._dtype)
            if stop <= k:
                parts = self._parts[:stop - 1]
                n = parts[-1].static_nvals if parts else self._parts[0].static_nrows
                return DynamicRaggedShape(parts, np.asarray([n], _I64), dtype=self._dtype)
            return DynamicRaggedShape(self._parts, self._inner[:stop - k], dtype=self._dtype)
        lengths = self.static_lengths()[start:stop]
        if any(isinstance(d, tuple) for d in lengths[:1]) or \
                any(isinstance(d, tuple) for d in self.static_lengths()[1:start + 1]):
            raise ValueError(f"a slice [{start}:{stop}] of a ragged shape must start at 0 "
                             "or after its ragged dimensions")
        return DynamicRaggedShape([], np.asarray(lengths, _I64), dtype=self._dtype)

    def __len__(self):
        return self.rank

    def __repr__(self):
        lengths = ", ".join(str(d) for d in self.static_lengths())
        return (f"<DynamicRaggedShape lengths=[{lengths}] "
                f"num_row_partitions={self.num_row_partitions}>")

    # -- what tf.reshape/zeros/ones/fill give for one --------------------------------
    def _wrap(self, flat):
        """``flat`` (the inner shape's values) cut into this shape's rows."""
        from ._ragged import RaggedTensor
        out = flat
        for part in reversed(self._parts):
            out = RaggedTensor(out, part._splits, _internal=True, uniform=part._uniform)
            if self._dtype != _I64:
                out._sdt = self._dtype
        return out


def _inner_list(shape):
    return [int(d) for d in shape._inner]


def reshape(tensor, shape, name=None):
    """``tf.reshape`` to a DynamicRaggedShape: the values in order, cut into its rows."""
    from ._ragged import RaggedTensor, _leaf, _reshape
    t = tensor.flat_values if isinstance(tensor, RaggedTensor) else _leaf(tensor,
                                                                          what="tensor")
    return shape._wrap(_reshape(t, _inner_list(shape)))


def zeros(shape, dtype="float32", name=None, layout=None):
    """``tf.zeros`` of a DynamicRaggedShape: a RaggedTensor of zeros."""
    import sys
    return shape._wrap(sys.modules["eagertape.tf"].zeros(_inner_list(shape), dtype))


def ones(shape, dtype="float32", name=None, layout=None):
    """``tf.ones`` of a DynamicRaggedShape: a RaggedTensor of ones."""
    import sys
    return shape._wrap(sys.modules["eagertape.tf"].ones(_inner_list(shape), dtype))


def fill(dims, value, name=None, layout=None):
    """``tf.fill`` of a DynamicRaggedShape: a RaggedTensor of ``value``."""
    import sys
    return dims._wrap(sys.modules["eagertape.tf"].fill(_inner_list(dims), value))


def shape(input, out_type="int32", name=None):  # noqa: A002  (TF's name)
    """``tf.shape`` of a RaggedTensor: its DynamicRaggedShape."""
    return DynamicRaggedShape.from_tensor(input, dtype=out_type)


def dispatch_table():
    """What ``_ragged.install`` puts in front of TF's ops for these shapes:
    ``(name, handler, (argument index, class))``."""
    from ._ragged import RaggedTensor
    return (("shape", shape, (0, RaggedTensor)),
            ("reshape", reshape, (1, DynamicRaggedShape)),
            ("zeros", zeros, (0, DynamicRaggedShape)),
            ("ones", ones, (0, DynamicRaggedShape)),
            ("fill", fill, (0, DynamicRaggedShape)))
