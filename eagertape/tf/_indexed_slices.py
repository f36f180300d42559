"""``tf.IndexedSlices``: the gradient TF hands back for a gather from a table.

The gradient of ``tf.gather(params, ids)`` (axis 0), ``tf.nn.embedding_lookup``
and a Keras ``Embedding`` w.r.t. the table is, in TF, the looked-up rows'
gradients and their ids, not the dense table's. The two give the same numbers
once densified (rows of a repeated id summed), but a Keras optimizer applies
the rows one by one (RMSprop's velocity gets the sum of their squares). So
eagertape gives the same object: an ``extend.Cotangent`` the tape adds as TF
adds gradients (two IndexedSlices concatenated, one and a dense gradient:
dense) and densifies before a further pullback.

>>> import eagertape.tf as tf
>>> table = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
>>> with tf.GradientTape() as tape:
...     y = tf.reduce_sum(tf.gather(table, [2, 0, 2]))
>>> g = tape.gradient(y, table)
>>> type(g).__name__, g.indices.numpy(), g.dense_shape.numpy()
('IndexedSlices', array([2, 0, 2], dtype=int32), array([3, 2], dtype=int32))
>>> tf.convert_to_tensor(g).numpy()
array([[1., 1.],
       [0., 0.],
       [2., 2.]], dtype=float32)
"""
import collections
import logging

import jax
import jax.numpy as jnp
import numpy as np

from .. import extend
from ..extend import Tensor, TensorShape, call
from .dtypes import as_dtype as _tf_dtype

_LARGE = 100000000    # TF warns above this many elements when it densifies


class IndexedSlices(extend.Cotangent):
    """A sparse representation of a set of tensor slices at given indices, as
    ``tf.IndexedSlices``: the dense tensor of shape ``dense_shape`` whose row
    ``indices[i]`` is the sum of every ``values[i]`` at that index (zeros
    elsewhere). What ``tape.gradient`` gives for a table read by ``tf.gather``;
    ``tf.convert_to_tensor`` (and any op taking it) makes it dense.

    >>> import eagertape.tf as tf
    >>> s = tf.IndexedSlices(tf.constant([[1.0, 1.0], [2.0, 2.0]]), tf.constant([1, 1]),
    ...                      tf.constant([3, 2]))
    >>> s.shape, s.dtype
    (TensorShape([3, 2]), tf.float32)
    >>> tf.convert_to_tensor(s).numpy()
    array([[0., 0.],
           [3., 3.],
           [0., 0.]], dtype=float32)
    """
    __slots__ = ("_values", "_indices", "_dense_shape")
    __array_priority__ = 100     # NumPy leaves `array + slices` to the slices' refusal

    def __init__(self, values, indices, dense_shape=None):
        self._values = extend.convert_to_tensor(values)
        self._indices = extend.convert_to_tensor(indices)
        self._dense_shape = None if dense_shape is None else extend.convert_to_tensor(dense_shape)
        if self._indices.dtype.name not in ("int32", "int64"):
            raise TypeError(f"argument `indices` of tf.IndexedSlices must be int32 or int64, "
                            f"got {self._indices.dtype.name}")
        if self._indices.ndim != 1:
            raise ValueError(f"argument `indices` of tf.IndexedSlices must be 1-D, got shape "
                             f"{tuple(self._indices.shape)}")

    @property
    def values(self):
        """The slices: ``values[i]`` is a slice of the dense tensor at ``indices[i]``.

        >>> import eagertape.tf as tf
        >>> tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0])).values.numpy()
        array([[1.]], dtype=float32)
        """
        return self._values

    @property
    def indices(self):
        """The 1-D indices of the slices in the dense tensor's first axis.

        >>> import eagertape.tf as tf
        >>> tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([4])).indices.numpy()
        array([4], dtype=int32)
        """
        return self._indices

    @property
    def dense_shape(self):
        """The dense tensor's shape, a 1-D int Tensor (or None when not given).

        >>> import eagertape.tf as tf
        >>> print(tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0])).dense_shape)
        None
        """
        return self._dense_shape

    @property
    def dtype(self):
        """The values' dtype.

        >>> import eagertape.tf as tf
        >>> tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0])).dtype
        tf.float32
        """
        return self._values.dtype

    @property
    def device(self):
        """The device the values are on (TF's name for it).

        >>> import eagertape.tf as tf
        >>> isinstance(tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0])).device, str)
        True
        """
        return getattr(self._values, "device", "/job:localhost/replica:0/task:0/device:CPU:0")

    @property
    def shape(self):
        """The dense tensor's static shape: ``dense_shape``'s values, or the
        values' shape with an unknown first axis when there is no dense_shape.

        >>> import eagertape.tf as tf
        >>> tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0])).shape
        TensorShape([None, 1])
        """
        if self._dense_shape is None:
            return TensorShape([None] + list(self._values.shape[1:]))
        return TensorShape([int(d) for d in np.asarray(self._dense_shape._value)])

    def _static_shape(self):
        if self._dense_shape is None:
            raise ValueError(
                "Tensor conversion requested for IndexedSlices without dense_shape: "
                f"{_brief(self)}; give tf.IndexedSlices its `dense_shape` argument")
        return tuple(int(d) for d in np.asarray(self._dense_shape._value))

    def dense(self):
        """The dense Tensor (rows at a repeated index summed), as
        ``tf.convert_to_tensor`` gives it.

        >>> import eagertape.tf as tf
        >>> s = tf.IndexedSlices(tf.constant([1.0, 2.0]), tf.constant([0, 0]), [2])
        >>> s.dense().numpy()
        array([3., 0.], dtype=float32)
        """
        shape = self._static_shape()
        n = int(np.prod(shape, dtype=np.int64))
        if n > _LARGE:
            logging.getLogger("eagertape").warning(
                "Converting sparse IndexedSlices%s to a dense Tensor with %d elements. "
                "This may consume a large amount of memory.", shape, n)
        return call(_densify, (self._values, self._indices, shape), name="indexed_slices_dense")

    def add(self, other):
        """The sum with another gradient as TF's tape adds them: two
        IndexedSlices concatenated (their values and indices), one and a dense
        Tensor a dense Tensor.

        >>> import eagertape.tf as tf
        >>> a = tf.IndexedSlices(tf.constant([1.0]), tf.constant([0]), [2])
        >>> b = tf.IndexedSlices(tf.constant([2.0]), tf.constant([0]), [2])
        >>> a.add(b).indices.numpy(), a.add(tf.ones([2])).numpy()
        (array([0, 0], dtype=int32), array([2., 1.], dtype=float32))
        """
        if isinstance(other, IndexedSlices):
            a, b = self._indices, other._indices
            if a.dtype != b.dtype:     # TF's concat of mixed index dtypes: int64
                a, b = a.astype("int64"), b.astype("int64")
            return IndexedSlices(call(_concat, (self._values, other._values)),
                                 call(_concat, (a, b)), self._dense_shape)
        other = other.dense() if isinstance(other, extend.Cotangent) else other
        return call(jnp.add, (self.dense(), other), name="add_n")

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self):
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!r}"
        return f"IndexedSlices(indices={self._indices!r}, values={self._values!r}{shape})"

    __str__ = __repr__

    def __array__(self, dtype=None, copy=None):
        out = np.asarray(self.dense()._value)
        return out if dtype is None else out.astype(dtype)

    def numpy(self):
        raise AttributeError("'IndexedSlices' object has no attribute 'numpy' (as in TF); "
                             "use tf.convert_to_tensor(slices).numpy()")

    def __bool__(self):
        raise TypeError("the truth value of an IndexedSlices is ambiguous (as a Tensor's)")


def _brief(s):
    return f"IndexedSlices of dtype {s._values.dtype.name}"


def _densify(values, indices, shape):
    return jax.ops.segment_sum(values, indices, num_segments=shape[0]).reshape(shape)


def _concat(a, b):
    return jnp.concatenate([a, b], axis=0)


def _flatten(s):
    shape = None if s._dense_shape is None else (
        tuple(int(d) for d in np.asarray(s._dense_shape._value)), s._dense_shape.dtype.name)
    return (s._values, s._indices), shape


def _unflatten(shape, children):
    out = object.__new__(IndexedSlices)
    out._values, out._indices = children
    out._dense_shape = None if shape is None else extend.constant(np.asarray(shape[0], shape[1]))
    return out


# A pytree whose dense shape is static (its aux data): a tf.function returning
# one, or JAX mapping over one, keeps the structure and its cache key.
jax.tree_util.register_pytree_node(IndexedSlices, _flatten, _unflatten)


class IndexedSlicesSpec(collections.namedtuple("IndexedSlicesSpec",
                                               "shape dtype indices_dtype dense_shape_dtype "
                                               "indices_shape")):
    """The type of an IndexedSlices, as ``tf.IndexedSlicesSpec`` (for a
    ``tf.function``'s ``input_signature`` it is not taken yet; it describes one).

    >>> import eagertape.tf as tf
    >>> spec = tf.IndexedSlicesSpec([3, 2], tf.float32)
    >>> spec.shape, spec.dtype, spec.indices_dtype
    (TensorShape([3, 2]), tf.float32, tf.int64)
    """
    __slots__ = ()

    def __new__(cls, shape=None, dtype="float32", indices_dtype="int64",
                dense_shape_dtype=None, indices_shape=None):
        return super().__new__(cls, TensorShape(shape), _tf_dtype(dtype),
                               _tf_dtype(indices_dtype),
                               None if dense_shape_dtype is None
                               else _tf_dtype(dense_shape_dtype),
                               TensorShape(indices_shape if indices_shape is not None
                                           else [None]))

    @property
    def value_type(self):
        """``IndexedSlices``.

        >>> import eagertape.tf as tf
        >>> tf.IndexedSlicesSpec().value_type.__name__
        'IndexedSlices'
        """
        return IndexedSlices


def gather_rows(params, indices, take):
    """``take(params, indices)`` (a gather of rows: axis 0) recorded with TF's
    gradient: an IndexedSlices of the rows' gradients at the flattened indices.
    ``params`` is a Tensor (a Variable read already), ``take`` a recorded op."""
    n = int(np.prod(indices.shape, dtype=np.int64))
    tail = tuple(params.shape[1:])
    shape = tuple(params.shape)

    @extend.custom_gradient
    def gather(p):
        def grad(upstream):
            values = call(jnp.reshape, (upstream, (n,) + tail), name="Reshape")
            flat = call(jnp.reshape, (indices, (n,)), name="Reshape")
            return IndexedSlices(values, flat, extend.constant(np.asarray(shape, np.int32)))
        return take(p, indices), grad
    return gather(params)
