"""``tf.sparse`` and ``tf.SparseTensor``, on ``jax.experimental.sparse`` (BCOO).

How a SparseTensor holds its values, and why. A SparseTensor is TF's three
components: ``indices`` (an int64 Tensor ``[N, rank]``), ``values`` (a Tensor
``[N]``: the only part a gradient reaches) and ``dense_shape``. The values are an
eagertape Tensor as any other, made by ``convert_to_tensor`` (a Variable given as
``values`` is a recorded read), so a tape that watches them, or the Variable they
were read from, tracks them. The dense shape is a tuple of Python ints: TF's eager
SparseTensor must know it too, and JAX compiles static shapes.

Every op is ONE recorded call (``extend.call``) of a JAX function of the indices and
values (and the dense operand, where there is one) that builds a ``BCOO`` from them
where JAX has the op (``todense``, ``@``, ``bcoo_reduce_sum``) and uses ``jnp`` where
the op moves or regroups entries (reorder, softmax's rows): ``jax.vjp`` of that
function gives the pullback, as for every recorded call, and its gradient with
respect to the values is TF's (``to_dense``'s is the dense gradient gathered at the
indices, ``sparse_dense_matmul``'s the per-entry product of the output gradient
and ``b``'s row, ``reduce_sum``'s the output gradient broadcast back, ``softmax``'s
TF's SparseSoftmaxGrad). Where TF registers no gradient, the function says so: a
gradient through ``reduce_max`` or a ``reduce_sum(..., output_is_sparse=True)``
raises LookupError, through ``maximum``/``minimum`` TypeError (TF's registered
gradient fails so), and
``concat``'s output passes none back (``SparseConcat`` is not differentiable in TF).

Which ops need the indices' values. The number of entries of an op's result is a
static shape for JAX. Where it follows from the input's shapes (``to_dense``,
``sparse_dense_matmul``, ``reduce_sum``, ``softmax``, ``reorder``, ``transpose``,
``reshape``, ``concat``, ``expand_dims``, the ``*``/``/`` operators, ``map_values``)
the op is a function of the indices whatever they are, so it runs inside a
``tf.function`` too. Where it depends on the indices' or values' contents
(``from_dense``, ``add`` of two SparseTensors, ``retain``, ``slice``, ``split``,
``fill_empty_rows``, ``reset_shape``, the sparse outputs of the reductions), the
result's structure is computed with NumPy from the concrete indices and the values
are still one recorded call (a gather or segment sum through that structure); inside
a ``tf.function`` such an op raises a TypeError saying to call it outside.

TF's checks of indices (bounds, canonical order, repeats) are made where TF makes
them, on the concrete indices; inside a ``tf.function`` they are not made (TF's
kernels check when the graph runs). Results come in TF's order: canonical
(row-major) where TF's kernel sorts, the input's order where it keeps it.

A SparseTensor is a JAX pytree whose children are its indices and values (its dense
shape is static), so ``tf.function`` takes and returns SparseTensors; rebuilt from
JAX arrays (inside a recorded call: a Keras layer's call, ``eagertape.primitive``,
``eagertape.to_jax``) it is a ``BCOO``, the sparse array JAX code and Keras's JAX
backend know.

>>> import eagertape.tf as tf
>>> st = tf.sparse.SparseTensor(indices=[[0, 3], [2, 4]], values=[10.0, 20.0],
...                             dense_shape=[3, 10])
>>> v = tf.Variable([1.0, 2.0])
>>> with tf.GradientTape() as tape:
...     sp = st.with_values(v * 1.0)
...     y = tf.reduce_sum(tf.sparse.sparse_dense_matmul(sp, tf.ones([10, 2])))
>>> float(y), tape.gradient(y, v).numpy().tolist()
(6.0, [2.0, 2.0])
"""
import builtins
import functools
import math as _pymath

import jax
import jax.numpy as jnp
import numpy as np

from .. import extend
from ..extend import InvalidArgumentError, Tensor, TensorLike as _TensorLike, TensorShape
from ..extend import as_dtype as _as_dtype, call as _call, convert_to_tensor
from . import _text
from ._util import _Unsupported, left_out as _left_out

__all__ = [
    "SparseTensor", "SparseTensorSpec", "add", "concat", "expand_dims", "eye",
    "fill_empty_rows", "from_dense", "map_values", "maximum", "minimum", "reduce_max",
    "reduce_sum", "reorder", "reset_shape", "reshape", "retain", "segment_mean",
    "segment_sqrt_n", "segment_sum", "slice", "softmax", "sparse_dense_matmul", "split",
    "to_dense", "to_indicator", "transpose",
]

__getattr__ = _Unsupported("tf.sparse", {
    **_left_out("they cross string features, and JAX has no string dtype; hash or map "
                "the features to integer ids in Python first", "cross cross_hashed"),
    **_left_out("it takes and returns IndexedSlices, which are planned for a later "
                "release; use tf.gather on the dense tensor", "mask"),
    **_left_out("not in eagertape yet; count the values with tf.math.bincount, or "
                "write it with tf.gather and tf.einsum", "bincount sampled_addmm"),
})

_I64 = np.int64


# -- the SparseTensor ------------------------------------------------------------------

class SparseTensor:
    """``tf.sparse.SparseTensor``: ``values`` at ``indices`` of a dense tensor of shape
    ``dense_shape``, zeros elsewhere. ``indices`` is int64 ``[N, rank]``, ``values``
    ``[N]``, ``dense_shape`` int64 ``[rank]``; a gradient reaches ``values`` (the module
    docstring says how). TF's operators: ``sp * dense``, ``dense * sp`` and ``sp / dense``
    (the dense side broadcast to the sparse one) are SparseTensors.

    >>> import eagertape.tf as tf
    >>> st = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
    >>> st.shape, st.dtype, st.indices.dtype
    (TensorShape([3, 4]), tf.float32, tf.int64)
    >>> tf.sparse.to_dense(st * 10.0).numpy().tolist()
    [[10.0, 0.0, 0.0, 0.0], [0.0, 0.0, 20.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
    """

    def __init__(self, indices, values, dense_shape):
        indices = _index_tensor(indices, "indices")
        values = values if isinstance(values, Tensor) else convert_to_tensor(values)
        shape = _static_shape(dense_shape)
        _check_parts(indices.shape, values.shape, len(shape))
        self._indices, self._values, self._shape = indices, values, shape

    @classmethod
    def _make(cls, indices, values, shape):
        # The ops' results: parts already converted and consistent.
        sp = object.__new__(cls)
        sp._indices, sp._values, sp._shape = indices, values, tuple(int(d) for d in shape)
        return sp

    @classmethod
    def from_value(cls, sparse_tensor_value):
        """A SparseTensor from one (or from any object with TF's three parts).

        >>> import eagertape.tf as tf
        >>> st = tf.SparseTensor([[1]], [5], [3])
        >>> tf.SparseTensor.from_value(st).dense_shape.numpy().tolist()
        [3]
        """
        v = sparse_tensor_value
        if not all(hasattr(v, a) for a in ("indices", "values", "dense_shape")):
            raise TypeError(f"Argument sparse_tensor_value={type(v).__name__} is neither a "
                            "SparseTensor nor SparseTensorValue.")
        return cls(v.indices, v.values, v.dense_shape)

    @property
    def indices(self):
        """The int64 ``[N, rank]`` indices of the values.

        >>> import eagertape.tf as tf
        >>> tf.SparseTensor([[0, 1]], [2.0], [2, 2]).indices.numpy().tolist()
        [[0, 1]]
        """
        return self._indices

    @property
    def values(self):
        """The ``[N]`` values (the Tensor a tape tracks).

        >>> import eagertape.tf as tf
        >>> tf.SparseTensor([[0, 1]], [2.0], [2, 2]).values.numpy().tolist()
        [2.0]
        """
        return self._values

    @property
    def dense_shape(self):
        """The dense shape as an int64 Tensor ``[rank]``.

        >>> import eagertape.tf as tf
        >>> tf.SparseTensor([[0, 1]], [2.0], [2, 2]).dense_shape.numpy().tolist()
        [2, 2]
        """
        return extend.constant(np.asarray(self._shape, _I64).reshape(len(self._shape)))

    @property
    def dtype(self):
        """The values' dtype.

        >>> import eagertape.tf as tf
        >>> tf.SparseTensor([[0, 1]], [2], [2, 2]).dtype
        tf.int32
        """
        return self._values.dtype

    @property
    def shape(self):
        """The dense shape as a TensorShape.

        >>> import eagertape.tf as tf
        >>> tf.SparseTensor([[0, 1]], [2.0], [2, 2]).shape
        TensorShape([2, 2])
        """
        return TensorShape(self._shape)

    def get_shape(self):
        """The dense shape as a TensorShape (as ``shape``).

        >>> import eagertape.tf as tf
        >>> tf.SparseTensor([[0, 1]], [2.0], [2, 2]).get_shape().as_list()
        [2, 2]
        """
        return TensorShape(self._shape)

    def set_shape(self, shape):
        """Asserts that the dense shape is compatible with ``shape`` (eager TF's rule).

        >>> import eagertape.tf as tf
        >>> tf.SparseTensor([[0, 1]], [2.0], [2, 2]).set_shape([2, None])
        """
        dims = None if shape is None else list(shape)
        if dims is not None and (len(dims) != len(self._shape) or any(
                d is not None and int(d) != s for d, s in zip(dims, self._shape))):
            raise ValueError(f"Tensor's shape {self._shape} is not compatible with supplied "
                             f"shape {dims}.")

    def with_values(self, new_values):
        """A SparseTensor of the same indices and shape with ``new_values`` (of the
        same length; any dtype).

        >>> import eagertape.tf as tf
        >>> st = tf.sparse.from_dense([[1, 0, 2, 0], [3, 0, 0, 4]])
        >>> tf.sparse.to_dense(st.with_values([10, 20, 30, 40])).numpy().tolist()
        [[10, 0, 20, 0], [30, 0, 0, 40]]
        """
        return SparseTensor(self._indices, new_values, self._shape)

    @property
    def _type_spec(self):
        return SparseTensorSpec(self._shape, self.dtype)

    def __repr__(self):
        return (f"SparseTensor(indices={self._indices}, values={self._values}, "
                f"dense_shape={self.dense_shape})")

    def __mul__(self, y):
        return _cwise(self, y, "mul")

    def __truediv__(self, y):
        return _cwise(self, y, "truediv")

    def __div__(self, y):
        return _cwise(self, y, "div")

    def __rmul__(self, x):
        # TF's ``dense * sp`` (Tensor.__mul__ dispatches to the sparse op); a Python
        # number on the left is TF's TypeError, as SparseTensor has no __rmul__.
        if isinstance(x, _TensorLike):
            return _cwise(self, x, "mul")
        return NotImplemented

    def __bool__(self):
        raise TypeError("a SparseTensor has no truth value; reduce it first "
                        "(tf.sparse.reduce_sum) or compare its values")

    __array_priority__ = 100     # NumPy arrays defer to __rmul__


def _flatten(sp):
    return (sp._indices, sp._values), sp._shape


def _unflatten(shape, children):
    indices, values = children
    if _is_array(indices) and _is_array(values):
        # Rebuilt from JAX values, inside a recorded call or JAX code: JAX's own
        # sparse array, which jnp-level libraries (Keras's JAX backend) know.
        # Its indices in JAX's int type now: Keras runs with 64-bit types off, where an
        # int64 index array would make JAX warn at every op.
        index_type = jax.dtypes.canonicalize_dtype(np.int64)
        if indices.dtype != index_type:
            indices = indices.astype(index_type)
        return _jax_sparse().BCOO((values, indices), shape=shape)
    sp = object.__new__(SparseTensor)
    sp._indices, sp._values, sp._shape = indices, values, shape
    return sp


def _is_array(x):
    return isinstance(x, (jax.Array, np.ndarray)) and not isinstance(x, _TensorLike)


jax.tree_util.register_pytree_node(SparseTensor, _flatten, _unflatten)


class SparseTensorSpec:
    """``tf.SparseTensorSpec``: the dense shape and dtype of a SparseTensor.

    >>> import eagertape.tf as tf
    >>> spec = tf.SparseTensorSpec([None, 4], tf.float32)
    >>> spec, spec.is_compatible_with(tf.SparseTensor([[0, 1]], [1.0], [3, 4]))
    (SparseTensorSpec(TensorShape([None, 4]), tf.float32), True)
    """

    def __init__(self, shape=None, dtype="float32"):
        self.shape = TensorShape(shape) if shape is not None else TensorShape(None)
        self.dtype = _as_dtype(dtype)

    @classmethod
    def from_value(cls, value):
        """The spec of a SparseTensor.

        >>> import eagertape.tf as tf
        >>> tf.SparseTensorSpec.from_value(tf.SparseTensor([[0]], [1], [2]))
        SparseTensorSpec(TensorShape([2]), tf.int32)
        """
        return cls(value.shape, value.dtype)

    @property
    def value_type(self):
        """SparseTensor, the type of the values this spec describes.

        >>> import eagertape.tf as tf
        >>> tf.SparseTensorSpec([2]).value_type is tf.SparseTensor
        True
        """
        return SparseTensor

    def is_compatible_with(self, spec_or_value):
        """Whether a SparseTensor or spec has a compatible shape and the same dtype.

        >>> import eagertape.tf as tf
        >>> tf.SparseTensorSpec([2], tf.int32).is_compatible_with(tf.SparseTensorSpec([3]))
        False
        """
        other = spec_or_value
        if isinstance(other, SparseTensor):
            other = SparseTensorSpec.from_value(other)
        if not isinstance(other, SparseTensorSpec) or other.dtype != self.dtype:
            return False
        return self.shape.is_compatible_with(other.shape)

    def __eq__(self, other):
        return (isinstance(other, SparseTensorSpec) and other.dtype == self.dtype
                and _dims(other.shape) == _dims(self.shape))

    def __hash__(self):
        return hash((_dims(self.shape), self.dtype))

    def __repr__(self):
        return f"SparseTensorSpec({self.shape!r}, tf.{np.dtype(self.dtype).name})"


def _dims(shape):
    return None if shape.rank is None else tuple(shape.as_list())


# -- conversion and checks ----------------------------------------------------------

def _index_tensor(x, what):
    t = x if isinstance(x, Tensor) else None
    if t is None:
        if isinstance(x, _TensorLike):
            t = convert_to_tensor(x)
        else:
            arr = np.asarray(x)
            if arr.size == 0 and arr.dtype.kind == "f":
                arr = arr.astype(_I64)       # an empty list converts to any dtype, as in TF
            t = convert_to_tensor(arr, dtype="int64") if arr.dtype.kind in "iub" else None
            if t is None:
                raise TypeError(f"argument `{what}` must hold integers (TF converts it to "
                                f"int64), got dtype {arr.dtype.name}")
    if t.dtype != np.int64:
        if np.dtype(t.dtype).kind not in "iu":
            raise TypeError(f"argument `{what}` must hold integers (TF converts it to int64), "
                            f"got dtype {t.dtype.name}")
        t = t.astype("int64")
    return t


def _static_shape(dense_shape):
    if isinstance(dense_shape, _TensorLike):
        v = dense_shape._value
        if isinstance(v, jax.core.Tracer):
            raise TypeError("argument `dense_shape` must be known when a tf.function is "
                            "traced (JAX compiles static shapes); pass a Python list, or the "
                            "dense_shape of another SparseTensor")
        dims = np.asarray(v).reshape(-1).tolist()
    elif isinstance(dense_shape, TensorShape):
        dims = dense_shape.as_list() if dense_shape.rank is not None else None
    else:
        dims = list(np.asarray(dense_shape, dtype=object).reshape(-1))
    if dims is None or any(d is None or int(d) < 0 for d in dims):
        raise ValueError("Cannot build an eager SparseTensor with an unknown `dense_shape` "
                         f"(got {dims}): every dimension must be a size (no None or -1)")
    return tuple(int(d) for d in dims)


def _check_parts(ishape, vshape, rank):
    if len(ishape) != 2:
        raise ValueError(f"argument `indices` must have rank 2 ([N, rank]), got shape "
                         f"{tuple(ishape)}")
    if len(vshape) != 1:
        raise ValueError(f"argument `values` must have rank 1 ([N]), got shape {tuple(vshape)}")
    if ishape[0] != vshape[0]:
        raise ValueError(f"Dimensions {ishape[0]} and {vshape[0]} are not compatible: "
                         f"`indices` has {ishape[0]} rows and `values` {vshape[0]} entries")
    if ishape[1] != rank:
        raise ValueError(f"Dimensions {ishape[1]} and {rank} are not compatible: `indices` "
                         f"has {ishape[1]} columns and `dense_shape` {rank} dimensions")


def _sparse(x, what="sp_input"):
    if _is_bcoo(x):
        # JAX's sparse array (what Keras's JAX backend gives where TF's Keras gives a
        # SparseTensor): the SparseTensor TF would have had.
        return _of_bcoo(x)
    if not isinstance(x, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor (argument `{what}`, got "
                        f"{type(x).__name__}); make one with tf.sparse.from_dense or "
                        "tf.SparseTensor(indices, values, dense_shape)")
    return x


def _is_text(values):
    return isinstance(values, _text.StringTensor)


def _host(t, op, what="sp_input"):
    """The value of an index Tensor as NumPy, or None while a tf.function traces it."""
    v = t._value
    if isinstance(v, jax.core.Tracer):
        return None
    return np.asarray(t.numpy())


def _needs_host(t, op, what="sp_input"):
    v = _host(t, op, what)
    if v is None:
        raise TypeError(
            f"tf.sparse.{op} needs the indices of `{what}` when a tf.function is traced: "
            "how many entries it returns depends on them, and JAX compiles static sizes. "
            "Call it outside the tf.function and pass its result in (a SparseTensor is a "
            "tf.function argument like a Tensor)")
    return v


def _needs_values(t, op, what):
    v = t._value
    if isinstance(v, jax.core.Tracer):
        raise TypeError(f"tf.sparse.{op} with `{what}` needs the values when a tf.function "
                        "is traced (the entries it keeps depend on them); call it outside")
    return np.asarray(t.numpy())


def _fmt(row):
    return "[" + ",".join(str(int(i)) for i in row) + "]"


def _check_bounds(idx, shape, op):
    if idx.size == 0:
        return
    bad = np.nonzero(np.any((idx < 0) | (idx >= np.asarray(shape, _I64)), axis=1))[0]
    if bad.size:
        i = int(bad[0])
        raise InvalidArgumentError(
            f"indices[{i}] = {_fmt(idx[i])} is out of bounds: need 0 <= index < "
            f"{_fmt(shape)} (tf.sparse.{op})")


def _check_order(idx, shape, op):
    _check_bounds(idx, shape, op)
    if idx.shape[0] < 2:
        return
    if idx.shape[1] == 0:
        raise InvalidArgumentError("indices[1] = [] is repeated")
    a, b = idx[:-1], idx[1:]
    differ = a != b
    first = np.argmax(differ, axis=1)          # the first column where rows differ
    rows = np.arange(a.shape[0])
    same = ~differ.any(axis=1)
    down = ~same & (b[rows, first] < a[rows, first])
    bad = np.nonzero(same | down)[0]
    if bad.size:
        i = int(bad[0]) + 1
        if down[i - 1]:
            raise InvalidArgumentError(
                f"indices[{i}] = {_fmt(idx[i])} is out of order. Many sparse ops require "
                "sorted indices. Use `tf.sparse.reorder` to create a correctly ordered copy.")
        raise InvalidArgumentError(f"indices[{i}] = {_fmt(idx[i])} is repeated")


def _axes(axis, rank, op):
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, _TensorLike):
        axis = _needs_values(axis, op, "axis")
    out = []
    for a in np.asarray(axis).reshape(-1).tolist():
        if not -rank <= a < rank:
            raise InvalidArgumentError(f"Invalid reduction dimension {a}, for input with "
                                       f"{rank} dimensions (argument `axis` of "
                                       f"tf.sparse.{op})")
        out.append(a % rank)
    return tuple(sorted(set(out)))


# -- the JAX functions: each op's one recorded call ---------------------------------

@functools.lru_cache(None)
def _jax_sparse():
    # Imported on first use: it is a large import, and most programs have no sparse op.
    from jax.experimental import sparse
    return sparse


def _bcoo(indices, values, shape):
    return _jax_sparse().BCOO((values, indices), shape=shape)


def _rows(indices):
    return tuple(indices[:, k] for k in range(indices.shape[1]))


def _sort_perm(indices):
    # jnp.lexsort is stable: repeated indices keep their order, as TF's reorder.
    if indices.shape[0] == 0 or indices.shape[1] == 0:
        return jnp.arange(indices.shape[0])
    return jnp.lexsort(tuple(indices[:, k] for k in reversed(range(indices.shape[1]))))


def _reorder_fn(indices, values):
    perm = _sort_perm(indices)
    return indices[perm], values[perm]


def _to_dense_fn(indices, values, shape):
    return _bcoo(indices, values, shape).todense()


def _to_dense_default_fn(indices, values, default, shape):
    dense = _bcoo(indices, values, shape).todense()
    hit = jnp.zeros(shape, bool).at[_rows(indices)].set(True)
    return jnp.where(hit, dense, default)


def _gather_nd_fn(x, indices):
    return x[_rows(indices)]


def _take_fn(values, positions, no_grad=None):
    if no_grad is not None:
        values = _no_gradient(values, no_grad)
    return values[positions]


def _spmm_fn(indices, values, b, shape, adjoint_a, adjoint_b, transposed):
    a = _bcoo(indices, jnp.conj(values) if adjoint_a else values, shape)
    if adjoint_a:
        a = a.T
    if adjoint_b:
        b = jnp.conj(b.T)
    out = a @ b
    return out.T if transposed else out


def _reduce_sum_fn(indices, values, shape, axes, keepdims):
    out = _jax_sparse().bcoo_reduce_sum(_bcoo(indices, values, shape), axes=axes).todense()
    out = out.astype(values.dtype)         # TF's sum keeps the values' dtype
    if keepdims:
        out = out.reshape(tuple(1 if k in axes else d for k, d in enumerate(shape)))
    return out


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def _no_gradient(x, op):
    return x


def _no_gradient_fwd(x, op):
    return x, None


def _no_gradient_bwd(op, res, g):
    name, kind = op
    if kind == "lookup":
        raise LookupError(f"gradient registry has no entry for: {name} (TensorFlow registers "
                          "no gradient for it)")
    raise TypeError(f"no gradient for {name}: TensorFlow's registered gradient of it fails "
                    "with a TypeError when called, so eagertape raises one too")


_no_gradient.defvjp(_no_gradient_fwd, _no_gradient_bwd)


def _segment_fn(values, segments, n, kind, op):
    values = _no_gradient(values, op) if op is not None else values
    if kind == "sum":
        return jax.ops.segment_sum(values, segments, n)
    return jax.ops.segment_max(values, segments, n)


def _reduce_max_fn(indices, values, shape, axes, keepdims):
    values = _no_gradient(values, ("SparseReduceMax", "lookup"))
    kept = [k for k in range(len(shape)) if k not in axes]
    out_shape = tuple(shape[k] for k in kept)
    flat = jnp.zeros(indices.shape[0], indices.dtype)
    for k in kept:
        flat = flat * shape[k] + indices[:, k]
    size = _pymath.prod(out_shape)
    out = jax.ops.segment_max(values, flat, size)
    # TF's kernel: 0 where no entry falls (not the dtype's lowest value)
    count = jax.ops.segment_sum(jnp.ones(flat.shape, jnp.int32), flat, size)
    out = jnp.where(count > 0, out, jnp.zeros_like(out)).reshape(out_shape)
    if keepdims:
        out = out.reshape(tuple(1 if k in axes else d for k, d in enumerate(shape)))
    return out


def _group_ids(lead):
    # Rows of ``lead`` that are equal get one id (in [0, N)): the groups of a
    # softmax, found by sorting, so that their number is static (N).
    n = lead.shape[0]
    if lead.shape[1] == 0 or n == 0:
        return jnp.zeros(n, jnp.int32)
    perm = _sort_perm(lead)
    s = lead[perm]
    new = jnp.concatenate([jnp.ones(1, bool), jnp.any(s[1:] != s[:-1], axis=1)])
    ids = jnp.cumsum(new.astype(jnp.int32)) - 1
    return jnp.zeros(n, jnp.int32).at[perm].set(ids)


def _softmax_fn(indices, values):
    n = values.shape[0]
    ids = _group_ids(indices[:, :-1])
    top = jax.lax.stop_gradient(jax.ops.segment_max(values, ids, n))
    e = jnp.exp(values - top[ids])
    return e / jax.ops.segment_sum(e, ids, n)[ids]


def _transpose_fn(indices, values, perm):
    moved = indices[:, jnp.asarray(perm)] if perm else indices
    order = _sort_perm(moved)
    return moved[order], values[order]


def _reshape_fn(indices, values, shape, new_shape):
    flat = jnp.zeros(indices.shape[0], indices.dtype)
    for k, d in enumerate(shape):
        flat = flat * d + indices[:, k]
    cols = []
    for d in reversed(new_shape):
        cols.append(flat % d if d else flat)
        flat = flat // d if d else flat
    out = jnp.stack(cols[::-1], axis=1) if cols else jnp.zeros((indices.shape[0], 0),
                                                                indices.dtype)
    return out.astype(indices.dtype), values


def _concat_fn(indices, values, offsets, axis):
    moved = [i.at[:, axis].add(o) if o else i for i, o in zip(indices, offsets)]
    idx = jnp.concatenate(moved, axis=0)
    vals = jnp.concatenate(values, axis=0)
    order = _sort_perm(idx)
    return idx[order], vals[order]


def _expand_fn(indices, values, axis):
    col = jnp.zeros((indices.shape[0], 1), indices.dtype)
    return jnp.concatenate([indices[:, :axis], col, indices[:, axis:]], axis=1), values


def _cwise_fn(indices, values, y, shape, kind):
    # The dense side, broadcast to the sparse shape, read at each entry (without
    # making the broadcast: the sparse shape may be huge).
    lead = len(shape) - y.ndim
    at = tuple(indices[:, lead + k] if d != 1 else jnp.zeros(indices.shape[0], indices.dtype)
               for k, d in enumerate(y.shape))
    dense = y[at]
    if kind == "mul":
        return values * dense
    if kind == "truediv":
        return values / dense
    if jnp.issubdtype(values.dtype, jnp.integer):
        return jnp.floor_divide(values, dense)
    return values / dense


def _dense_add_fn(indices, values, dense, shape):
    return dense + _bcoo(indices, values, shape).todense()


def _union_fn(a, b, pa, pb, kind):
    if kind != "add":
        # TF's registered gradient of SparseSparseMaximum/Minimum fails when called.
        name = "SparseSparseMaximum" if kind == "max" else "SparseSparseMinimum"
        a, b = _no_gradient(a, (name, "broken")), _no_gradient(b, (name, "broken"))
    # An entry missing from one side is a zero there.
    x = jnp.where(pa >= 0, a[jnp.maximum(pa, 0)], 0) if a.shape[0] else jnp.zeros(pa.shape,
                                                                                    a.dtype)
    y = jnp.where(pb >= 0, b[jnp.maximum(pb, 0)], 0) if b.shape[0] else jnp.zeros(pb.shape,
                                                                                    b.dtype)
    if kind == "add":
        return x + y
    return jnp.maximum(x, y) if kind == "max" else jnp.minimum(x, y)


def _fill_fn(values, default, source):
    took = values[jnp.clip(source, 0, None)] if values.shape[0] else \
        jnp.zeros(source.shape, values.dtype)
    return jnp.where(source >= 0, took, default)


def _indicator_fn(indices, values, shape, vocab_size):
    out_shape = tuple(shape[:-1]) + (vocab_size,)
    ids = values.astype(indices.dtype)     # TF's kernel takes float ids too, as integers
    at = tuple(indices[:, k] for k in range(len(shape) - 1)) + (ids,)
    return jnp.zeros(out_shape, bool).at[at].set(True)


def _sparse_segment_fn(data, indices, segment_ids, n, kind):
    rows = data[indices]
    total = jax.ops.segment_sum(rows, segment_ids, n)
    if kind == "sum":
        return total
    count = jax.ops.segment_sum(jnp.ones(segment_ids.shape, data.dtype), segment_ids, n)
    count = count.reshape(count.shape + (1,) * (data.ndim - 1))
    denom = count if kind == "mean" else jnp.sqrt(count)
    return total / jnp.maximum(denom, 1)


def _const_indices(idx):
    return extend.constant(np.ascontiguousarray(idx, dtype=_I64).reshape(idx.shape))


# -- tf.sparse ----------------------------------------------------------------------

def from_dense(tensor, name=None):
    """The SparseTensor of ``tensor``'s non-zero entries, in row-major order.
    Its values are a recorded gather of ``tensor``, so a gradient reaches it.

    >>> import eagertape.tf as tf
    >>> st = tf.sparse.from_dense([[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]])
    >>> st.indices.numpy().tolist(), st.values.numpy().tolist()
    ([[0, 0], [0, 3], [2, 2]], [1, 8, 3])
    """
    x = tensor if isinstance(tensor, _TensorLike) else convert_to_tensor(tensor)
    if isinstance(x._value, jax.core.Tracer):
        raise TypeError("tf.sparse.from_dense needs the value of `tensor` when a tf.function "
                        "is traced: how many entries it returns depends on it, and JAX "
                        "compiles static sizes. Call it outside the tf.function and pass the "
                        "SparseTensor in")
    if len(x.shape) == 0:
        raise InvalidArgumentError("WhereOp : Unhandled input dimensions: 0 (tf.sparse."
                                   "from_dense takes a tensor of rank 1 or more)")
    idx = np.argwhere(np.asarray(x.numpy()) != 0).astype(_I64)
    indices = _const_indices(idx)
    values = _call(_gather_nd_fn, (x, indices), name="from_dense")
    return SparseTensor._make(indices, values, x.shape)


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor of ``sp_input`` (``default_value``, 0 by default, where it
    has no entry). As TF, with ``validate_indices`` the indices must be in bounds,
    sorted and not repeated (InvalidArgumentError otherwise; ``tf.sparse.reorder``
    sorts them). The gradient w.r.t. the values is the dense gradient at the
    indices.

    >>> import eagertape.tf as tf
    >>> st = tf.SparseTensor([[0, 1], [1, 0]], [5.0, 6.0], [2, 2])
    >>> tf.sparse.to_dense(st).numpy().tolist()
    [[0.0, 5.0], [6.0, 0.0]]
    """
    sp = _sparse(sp_input)
    idx = _host(sp._indices, "to_dense")
    if idx is not None:
        if validate_indices:
            _check_order(idx, sp._shape, "to_dense")
        else:
            if idx.size and np.any((idx < 0) | (idx >= np.asarray(sp._shape, _I64))):
                raise InvalidArgumentError(f"Indices are not valid (out of bounds).  Shape: "
                                           f"{_fmt(sp._shape)} (tf.sparse.to_dense)")
            last = _last_of_repeats(idx)
            if last is not None:        # TF's kernel writes each entry: the last one stays
                sp = _take(sp, last, sp._shape, "to_dense", idx[last])
    if _is_text(sp._values):
        # Strings stay on the host (JAX has no string dtype): the scatter in NumPy.
        idx = _needs_host(sp._indices, "to_dense")
        default = b"" if default_value is None else _text.host(default_value, "default_value")
        if np.ndim(default) != 0:
            raise InvalidArgumentError(f"default_value should be a scalar, got shape "
                                       f"{np.shape(default)} (argument `default_value`)")
        dense = np.full(sp._shape, np.asarray(default).item(), dtype=object)
        dense[tuple(idx.T)] = sp._values._v
        return _text.wrap(dense)
    if default_value is None:
        return _call(_to_dense_fn, (sp._indices, sp._values, sp._shape), name="to_dense")
    default = convert_to_tensor(default_value, dtype=sp.dtype)
    if default.shape != ():
        raise InvalidArgumentError(f"default_value should be a scalar, got shape "
                                   f"{tuple(default.shape)} (argument `default_value`)")
    return _call(_to_dense_default_fn, (sp._indices, sp._values, default, sp._shape),
                 name="to_dense")


def _last_of_repeats(idx):
    """The positions of the last entry of each index, in order, where some index
    repeats (None where none does)."""
    n = idx.shape[0]
    if n < 2:
        return None
    if idx.shape[1] == 0:
        return np.asarray([n - 1], _I64)
    _, first = np.unique(idx[::-1], axis=0, return_index=True)
    if first.shape[0] == n:
        return None
    return np.sort(n - 1 - first.reshape(-1)).astype(_I64)


def reorder(sp_input, name=None):
    """``sp_input`` with its entries in canonical (row-major) order; repeated
    indices keep their order. Its gradient gathers back through the permutation.

    >>> import eagertape.tf as tf
    >>> st = tf.sparse.reorder(tf.SparseTensor([[1, 0], [0, 1]], [1.0, 2.0], [2, 2]))
    >>> st.indices.numpy().tolist(), st.values.numpy().tolist()
    ([[0, 1], [1, 0]], [2.0, 1.0])
    """
    sp = _sparse(sp_input)
    indices, values = _call(_reorder_fn, (sp._indices, sp._values), name="reorder")
    return SparseTensor._make(indices, values, sp._shape)


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """``sp_a @ b`` for a rank-2 SparseTensor ``sp_a`` and a dense matrix ``b`` (either
    may be the sparse one, as in TF), ``adjoint_a``/``adjoint_b`` taking the conjugate
    transpose first. One recorded call of BCOO's matmul: the gradient w.r.t. the
    values is, per entry ``(r, c)``, the output gradient's row ``r`` dotted with
    ``b``'s row ``c``, as TF's.

    >>> import eagertape.tf as tf
    >>> st_c = tf.SparseTensor(indices=[[0, 1], [1, 0], [1, 1]], values=[13, 15, 17],
    ...                        dense_shape=[2, 2])
    >>> tf.sparse.sparse_dense_matmul(st_c, tf.constant([[4], [6]])).numpy().tolist()
    [[78], [162]]
    """
    if isinstance(b, SparseTensor):
        # TF's rule: the transpose of the product with the sparse side first
        if adjoint_a != adjoint_b:
            return _spmm(b, sp_a, adjoint_a, adjoint_b, True)
        return _spmm(b, sp_a, not adjoint_a, not adjoint_b, True)
    return _spmm(sp_a, b, adjoint_a, adjoint_b, False)


def _spmm(sp_a, b, adjoint_a, adjoint_b, transposed):
    sp = _sparse(sp_a, "sp_a")
    b = b if isinstance(b, _TensorLike) else convert_to_tensor(b)
    if len(sp._shape) != 2:
        raise InvalidArgumentError(f"Tensor 'a_shape' is not a vector of 2 elements: "
                                   f"sp_a has rank {len(sp._shape)} (tf.sparse."
                                   "sparse_dense_matmul takes a sparse matrix)")
    if len(b.shape) != 2:
        raise InvalidArgumentError(f"Tensor 'b' is not a matrix: shape {tuple(b.shape)} "
                                   "(argument `b` of tf.sparse.sparse_dense_matmul)")
    if b.dtype != sp.dtype:
        raise InvalidArgumentError(
            f"cannot compute SparseTensorDenseMatMul as input #3 (argument `b`) was expected "
            f"to be a {np.dtype(sp.dtype).name} tensor but is a {np.dtype(b.dtype).name} "
            "tensor")
    rows, inner = sp._shape[::-1] if adjoint_a else sp._shape
    b_inner = b.shape[1] if adjoint_b else b.shape[0]
    if inner != b_inner:
        raise InvalidArgumentError(
            f"Cannot multiply A and B because inner dimension does not match: {inner} vs. "
            f"{b_inner}. Did you forget a transpose? Dimensions of A: [{sp._shape[0]}, "
            f"{sp._shape[1]}). Dimensions of B: {list(b.shape)}")
    idx = _host(sp._indices, "sparse_dense_matmul")
    if idx is not None and idx.size:
        for col, size, letter in ((0, sp._shape[0], "m"), (1, sp._shape[1], "k")):
            bad = np.nonzero((idx[:, col] < 0) | (idx[:, col] >= size))[0]
            if bad.size:
                i = int(bad[0])
                raise InvalidArgumentError(
                    f"{letter} ({int(idx[i, col])}) from index[{i},{col}] out of bounds "
                    f"(>={size})")
    return _call(_spmm_fn, (sp._indices, sp._values, b, sp._shape, bool(adjoint_a),
                            bool(adjoint_b), transposed), name="sparse_dense_matmul")


def reduce_sum(sp_input, axis=None, keepdims=False, output_is_sparse=False, name=None):
    """The sum of ``sp_input``'s entries over ``axis`` (all by default), dense; with
    ``output_is_sparse`` a SparseTensor of the sums that have an entry (no gradient in
    TF: LookupError). The dense sum's gradient w.r.t. the values is the output
    gradient at each entry's place.

    >>> import eagertape.tf as tf
    >>> st = tf.SparseTensor([[0, 0], [0, 2], [1, 1]], [1.0, 2.0, 3.0], [2, 3])
    >>> tf.sparse.reduce_sum(st, axis=1).numpy().tolist()
    [3.0, 3.0]
    >>> tf.sparse.reduce_sum(st, axis=0, keepdims=True).numpy().tolist()
    [[1.0, 3.0, 2.0]]
    """
    sp = _sparse(sp_input)
    axes = _axes(axis, len(sp._shape), "reduce_sum")
    if output_is_sparse:
        return _grouped(sp, axes, keepdims, "sum", ("SparseReduceSumSparse", "lookup"),
                        "reduce_sum")
    return _call(_reduce_sum_fn, (sp._indices, sp._values, sp._shape, axes, bool(keepdims)),
                 name="reduce_sum")


def reduce_max(sp_input, axis=None, keepdims=False, output_is_sparse=False, name=None):
    """The maximum of ``sp_input``'s entries over ``axis``; missing entries are not
    zeros (TF's rule), and a place with no entry at all is 0. TF registers no
    gradient (LookupError).

    >>> import eagertape.tf as tf
    >>> float(tf.sparse.reduce_max(tf.sparse.from_dense([-5.0, 0.0, -3.0])))
    -3.0
    """
    sp = _sparse(sp_input)
    axes = _axes(axis, len(sp._shape), "reduce_max")
    if output_is_sparse:
        return _grouped(sp, axes, keepdims, "max", ("SparseReduceMaxSparse", "lookup"),
                        "reduce_max")
    return _call(_reduce_max_fn, (sp._indices, sp._values, sp._shape, axes, bool(keepdims)),
                 name="reduce_max")


def _grouped(sp, axes, keepdims, kind, no_grad, op):
    idx = _needs_host(sp._indices, op)
    kept = [k for k in range(len(sp._shape)) if k not in axes]
    if idx.shape[0] and kept:
        groups, segments = np.unique(idx[:, kept], axis=0, return_inverse=True)
    else:       # no entry, or every axis reduced: at most one group
        groups = np.zeros((1 if idx.shape[0] else 0, len(kept)), _I64)
        segments = np.zeros(idx.shape[0], _I64)
    segments = segments.reshape(-1)
    if keepdims:
        full = np.zeros((groups.shape[0], len(sp._shape)), _I64)
        full[:, kept] = groups
        groups, shape = full, tuple(1 if k in axes else d for k, d in enumerate(sp._shape))
    else:
        shape = tuple(sp._shape[k] for k in kept)
    values = _call(_segment_fn, (sp._values, _const_indices(segments), int(groups.shape[0]),
                                 kind, no_grad), name=op)
    return SparseTensor._make(_const_indices(groups), values, shape)


def softmax(sp_input, name=None):
    """The softmax of each innermost row's entries (those sharing every index but
    the last); missing entries take no part (they are not zeros). The result has
    ``sp_input``'s indices, each value its own entry's softmax (TF's kernel, given
    indices out of canonical order, returns the values in canonical order instead:
    ``tf.sparse.reorder`` first, as TF requires, and both agree).

    >>> import eagertape.tf as tf
    >>> st = tf.SparseTensor([[0, 0], [0, 2], [1, 1]], [1.0, 1.0, 5.0], [2, 3])
    >>> tf.sparse.softmax(st).values.numpy().tolist()
    [0.5, 0.5, 1.0]
    """
    sp = _sparse(sp_input)
    if len(sp._shape) < 2:
        raise InvalidArgumentError(f"Input should have rank >= 2, but received shape: "
                                   f"{list(sp._shape)} (tf.sparse.softmax)")
    if np.dtype(sp.dtype).kind != "f":
        raise InvalidArgumentError(f"tf.sparse.softmax takes half, float or double values, "
                                   f"got dtype {np.dtype(sp.dtype).name}")
    values = _call(_softmax_fn, (sp._indices, sp._values), name="softmax")
    return SparseTensor._make(sp._indices, values, sp._shape)


def add(a, b, threshold=0):
    """``a + b``. Two SparseTensors of one shape give a SparseTensor of the union of
    their entries, in canonical order (sums whose magnitude is below ``threshold``
    dropped); a SparseTensor and a dense tensor of its shape give a dense tensor.

    >>> import eagertape.tf as tf
    >>> st_a = tf.SparseTensor(indices=[[0, 2], [3, 4]], values=[31, 2], dense_shape=[4, 10])
    >>> st_b = tf.SparseTensor(indices=[[0, 2], [3, 0]], values=[56, 38], dense_shape=[4, 10])
    >>> st = tf.sparse.add(st_a, st_b)
    >>> st.indices.numpy().tolist(), st.values.numpy().tolist()
    ([[0, 2], [3, 0], [3, 4]], [87, 38, 2])
    """
    if not isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        raise TypeError("At least one input should be SparseTensor; do you mean to use "
                        "tf.add()?")
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
        return _union(a, b, "add", threshold)
    if isinstance(b, SparseTensor):
        a, b = b, a
    dense = b if isinstance(b, _TensorLike) else convert_to_tensor(b, dtype=a.dtype)
    if dense.dtype != a.dtype:
        raise InvalidArgumentError(
            f"cannot compute SparseTensorDenseAdd as input #3 was expected to be a "
            f"{np.dtype(a.dtype).name} tensor but is a {np.dtype(dense.dtype).name} tensor")
    if tuple(dense.shape) != a._shape:
        raise InvalidArgumentError(
            f"Dimensions must match: the dense tensor has shape {list(dense.shape)} and the "
            f"SparseTensor {list(a._shape)} (tf.sparse.add does not broadcast)")
    idx = _host(a._indices, "add")
    if idx is not None:
        _check_bounds(idx, a._shape, "add")
    return _call(_dense_add_fn, (a._indices, a._values, dense, a._shape), name="sparse_add")


def _union(a, b, kind, threshold):
    op = {"add": "add", "max": "maximum", "min": "minimum"}[kind]
    if len(a._shape) != len(b._shape):
        raise InvalidArgumentError(f"Input indices must have the same dimension, got "
                                   f"{len(a._shape)} and {len(b._shape)} (tf.sparse.{op})")
    if a._shape != b._shape:
        k = next(k for k, (x, y) in enumerate(zip(a._shape, b._shape)) if x != y)
        raise InvalidArgumentError(f"Operands' shapes do not match: got {a._shape[k]} and "
                                   f"{b._shape[k]} for dimension {k}")
    if a.dtype != b.dtype:
        raise InvalidArgumentError(
            f"cannot compute tf.sparse.{op} as its second operand was expected to be a "
            f"{np.dtype(a.dtype).name} tensor but is a {np.dtype(b.dtype).name} tensor")
    ia, ib = _needs_host(a._indices, op, "a"), _needs_host(b._indices, op, "b")
    pa, pb = _merge(ia, ib)
    if kind == "add" and threshold is not None:
        thr = threshold
        if isinstance(thr, _TensorLike):
            thr = _needs_values(thr, op, "threshold")
        thr = float(np.asarray(thr))
        both = np.nonzero((pa >= 0) & (pb >= 0))[0]
        if thr > 0 and both.size:
            # TF drops a sum of two entries whose magnitude is below the threshold
            # (an entry of one operand alone is kept).
            va = _needs_values(a._values, op, "threshold")
            vb = _needs_values(b._values, op, "threshold")
            small = np.abs(va[pa[both]] + vb[pb[both]]) < thr
            keep = np.ones(pa.shape[0], bool)
            keep[both[small]] = False
            pa, pb = pa[keep], pb[keep]
    rows = np.where((pa >= 0)[:, None], ia[np.maximum(pa, 0)] if ia.shape[0] else 0,
                    ib[np.maximum(pb, 0)] if ib.shape[0] else 0).reshape(pa.shape[0],
                                                                         len(a._shape))
    values = _call(_union_fn, (a._values, b._values, _const_indices(pa), _const_indices(pb),
                               kind), name=f"sparse_{op}")
    return SparseTensor._make(_const_indices(rows), values, a._shape)


def _merge(ia, ib):
    """TF's merge of two index lists (its SparseAdd kernel's): walk both in step,
    taking the smaller index first and both where they are equal, which is the
    canonical union where each list is canonical. The positions in ``a`` and ``b``
    of each output entry (-1: absent)."""
    na, nb = ia.shape[0], ib.shape[0]
    if _canonical(ia) and _canonical(ib):
        # Both sorted without repeats: the sorted union, as one NumPy pass.
        both = np.concatenate([ia, ib])
        order = np.lexsort(tuple(both[:, k] for k in reversed(range(both.shape[1])))) \
            if both.shape[1] else np.arange(na + nb)
        srt = both[order]
        first = np.ones(na + nb, bool)
        if na + nb > 1:
            first[1:] = np.any(srt[1:] != srt[:-1], axis=1)
        group = np.cumsum(first) - 1
        n = int(group[-1]) + 1 if na + nb else 0
        pa, pb = np.full(n, -1, _I64), np.full(n, -1, _I64)
        from_a = order < na
        pa[group[from_a]] = order[from_a]
        pb[group[~from_a]] = order[~from_a] - na
        return pa, pb
    pa, pb, i, j = [], [], 0, 0
    while i < na and j < nb:
        x, y = tuple(ia[i]), tuple(ib[j])
        if x < y:
            pa.append(i), pb.append(-1)
            i += 1
        elif y < x:
            pa.append(-1), pb.append(j)
            j += 1
        else:
            pa.append(i), pb.append(j)
            i, j = i + 1, j + 1
    pa += list(range(i, na)) + [-1] * (nb - j)
    pb += [-1] * (na - i) + list(range(j, nb))
    return np.asarray(pa, _I64), np.asarray(pb, _I64)


def _canonical(idx):
    if idx.shape[0] < 2:
        return True
    if idx.shape[1] == 0:
        return False
    a, b = idx[:-1], idx[1:]
    differ = a != b
    first = np.argmax(differ, axis=1)
    rows = np.arange(a.shape[0])
    return bool(np.all(differ.any(axis=1) & (b[rows, first] > a[rows, first])))


def maximum(sp_a, sp_b, name=None):
    """The elementwise maximum of two SparseTensors of one shape (a missing entry is
    a zero), over the union of their entries (merged as ``add`` merges them). TF has
    no working gradient for it (a TypeError).

    >>> import eagertape.tf as tf
    >>> a = tf.SparseTensor([[0], [1]], [1.0, -2.0], [3])
    >>> b = tf.SparseTensor([[1], [2]], [-3.0, 4.0], [3])
    >>> tf.sparse.maximum(a, b).values.numpy().tolist()
    [1.0, -2.0, 4.0]
    """
    return _union(_sparse(sp_a, "sp_a"), _sparse(sp_b, "sp_b"), "max", None)


def minimum(sp_a, sp_b, name=None):
    """The elementwise minimum of two SparseTensors of one shape (a missing entry is
    a zero), over the union of their entries (merged as ``add`` merges them). TF has
    no working gradient for it (a TypeError).

    >>> import eagertape.tf as tf
    >>> a = tf.SparseTensor([[0], [1]], [1.0, -2.0], [3])
    >>> b = tf.SparseTensor([[1], [2]], [-3.0, 4.0], [3])
    >>> tf.sparse.minimum(a, b).values.numpy().tolist()
    [0.0, -3.0, 0.0]
    """
    return _union(_sparse(sp_a, "sp_a"), _sparse(sp_b, "sp_b"), "min", None)


def retain(sp_input, to_retain):
    """The entries of ``sp_input`` where the boolean vector ``to_retain`` is True, in
    their order.

    >>> import eagertape.tf as tf
    >>> st = tf.SparseTensor([[0, 0], [0, 3], [1, 1]], [1.0, 2.0, 3.0], [2, 4])
    >>> tf.sparse.retain(st, [True, False, True]).values.numpy().tolist()
    [1.0, 3.0]
    """
    sp = _sparse(sp_input)
    keep = to_retain
    if isinstance(keep, _TensorLike):
        keep = _needs_values(keep, "retain", "to_retain")
    keep = np.asarray(keep)
    if keep.ndim != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {keep.ndim} (argument "
                         "`to_retain` of tf.sparse.retain)")
    n = sp._indices.shape[0]
    if keep.shape[0] != n:
        raise ValueError(f"Dimensions {n} and {keep.shape[0]} are not compatible: "
                         f"`to_retain` must have one entry per value ({n})")
    return _take(sp, np.nonzero(keep)[0], sp._shape, "retain")


def _take(sp, positions, shape, op, indices=None, no_grad=None):
    """The entries of ``sp`` at ``positions`` (host ints): the indices from the host
    (``indices``, or ``sp``'s at those positions), the values one recorded gather."""
    if indices is None:
        indices = _needs_host(sp._indices, op)[positions]
    pos = _const_indices(np.asarray(positions, _I64))
    values = _call(_take_fn, (sp._values, pos, no_grad), name=op)
    return SparseTensor._make(_const_indices(indices.reshape(-1, len(shape))), values, shape)


def slice(sp_input, start, size, name=None):  # noqa: A001
    """The entries of ``sp_input`` inside the box ``[start, start + size)``, moved to
    start at 0, in their order; the result's shape is the box clipped to the tensor.

    >>> import eagertape.tf as tf
    >>> st = tf.SparseTensor([[0, 1], [1, 2], [2, 0]], [1.0, 2.0, 3.0], [3, 3])
    >>> sl = tf.sparse.slice(st, [1, 0], [5, 3])
    >>> sl.indices.numpy().tolist(), sl.dense_shape.numpy().tolist()
    ([[0, 2], [1, 0]], [2, 3])
    """
    sp = _sparse(sp_input)
    rank = len(sp._shape)
    start, size = (np.asarray(_needs_values(x, "slice", w) if isinstance(x, _TensorLike) else x,
                              _I64).reshape(-1) for x, w in ((start, "start"), (size, "size")))
    if start.shape[0] != rank or size.shape[0] != rank:
        raise InvalidArgumentError(f"Expected start and size to have {rank} entries each (the "
                                   f"SparseTensor's rank), got {start.shape[0]} and "
                                   f"{size.shape[0]}")
    if np.any(size < 0):
        raise InvalidArgumentError(f"Expected a non-negative size, got {int(size.min())}")
    idx = _needs_host(sp._indices, "slice")
    shape = np.asarray(sp._shape, _I64)
    stop = np.minimum(start + size, shape)
    out_shape = tuple(int(d) for d in np.maximum(stop - start, 0))
    inside = np.all((idx >= start) & (idx < stop), axis=1) if idx.size else \
        np.ones(idx.shape[0], bool)
    positions = np.nonzero(inside)[0]
    return _take(sp, positions, out_shape, "slice", idx[positions] - start)


def split(sp_input=None, num_split=None, axis=None, name=None):
    """``sp_input`` cut into ``num_split`` pieces along ``axis`` (the first
    ``size % num_split`` one larger), each with the entries in its range, in their
    order. TF registers no gradient (LookupError).

    >>> import eagertape.tf as tf
    >>> st = tf.SparseTensor([[0, 1], [1, 4], [2, 2]], [1.0, 2.0, 3.0], [3, 5])
    >>> [p.dense_shape.numpy().tolist() for p in tf.sparse.split(st, 2, axis=1)]
    [[3, 3], [3, 2]]
    """
    sp = _sparse(sp_input)
    rank = len(sp._shape)
    if axis is None or num_split is None:
        raise ValueError("arguments `num_split` and `axis` of tf.sparse.split are required")
    axis = int(_needs_values(axis, "split", "axis") if isinstance(axis, _TensorLike) else axis)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"Input axis should be in range [{-rank}, {rank}), got "
                                   f"{axis}")
    axis %= rank
    n, dim = int(num_split), sp._shape[axis]
    if n < 1:
        raise InvalidArgumentError(f"argument `num_split` must be at least 1, got {n}")
    idx = _needs_host(sp._indices, "split")
    sizes = [dim // n + (1 if k < dim % n else 0) for k in range(n)]
    out, lo = [], 0
    for k, width in enumerate(sizes):
        inside = (idx[:, axis] >= lo) & (idx[:, axis] < lo + width)
        positions = np.nonzero(inside)[0]
        moved = idx[positions].copy()
        moved[:, axis] -= lo
        shape = tuple(width if j == axis else d for j, d in enumerate(sp._shape))
        out.append(_take(sp, positions, shape, "split", moved, ("SparseSplit", "lookup")))
        lo += width
    return out


def transpose(sp_input, perm=None, name=None):
    """``sp_input`` with its dimensions permuted by ``perm`` (reversed by default),
    entries in canonical order.

    >>> import eagertape.tf as tf
    >>> st = tf.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 3])
    >>> t = tf.sparse.transpose(st)
    >>> t.indices.numpy().tolist(), t.values.numpy().tolist(), t.shape
    ([[0, 1], [1, 0]], [2.0, 1.0], TensorShape([3, 2]))
    """
    sp = _sparse(sp_input)
    rank = len(sp._shape)
    if perm is None:
        perm = tuple(range(rank - 1, -1, -1))
    else:
        if isinstance(perm, _TensorLike):
            perm = _needs_values(perm, "transpose", "perm")
        perm = tuple(int(p) for p in np.asarray(perm).reshape(-1))
        if sorted(perm) != list(range(rank)):
            raise InvalidArgumentError(f"argument `perm` must be a permutation of "
                                       f"0..{rank - 1}, got {list(perm)}")
    indices, values = _call(_transpose_fn, (sp._indices, sp._values, perm), name="transpose")
    return SparseTensor._make(indices, values, tuple(sp._shape[p] for p in perm))


def reshape(sp_input, shape, name=None):
    """``sp_input`` as a SparseTensor of ``shape`` (one dimension may be -1), the
    entries keeping their row-major positions and their order.

    >>> import eagertape.tf as tf
    >>> st = tf.SparseTensor([[0, 1], [1, 2]], [1.0, 2.0], [2, 3])
    >>> tf.sparse.reshape(st, [3, -1]).indices.numpy().tolist()
    [[0, 1], [2, 1]]
    """
    sp = _sparse(sp_input)
    if isinstance(shape, _TensorLike):
        shape = _needs_values(shape, "reshape", "shape")
    dims = [int(d) for d in np.asarray(shape).reshape(-1)]
    inferred = [k for k, d in enumerate(dims) if d == -1]
    if len(inferred) > 1:
        raise InvalidArgumentError(f"only one output dimension may be -1, not both "
                                   f"{inferred[0]} and {inferred[1]}")
    size = _pymath.prod(sp._shape)
    known = _pymath.prod(d for d in dims if d != -1)
    shown = (f"input_shape=[{','.join(map(str, sp._shape))}] output_shape="
             f"[{','.join(map(str, dims))}]")
    if inferred:
        if known == 0 or size % known:
            raise InvalidArgumentError(
                f"Input to reshape is a SparseTensor with {size} dense values, but the "
                f"requested shape requires a multiple of {known}. {shown}")
        dims[inferred[0]] = size // known
    if _pymath.prod(dims) != size:
        raise InvalidArgumentError(
            f"Input to reshape is a tensor with {size} dense values, but the requested "
            f"shape has {_pymath.prod(dims)}. {shown}")
    indices, values = _call(_reshape_fn, (sp._indices, sp._values, sp._shape, tuple(dims)),
                            name="reshape")
    return SparseTensor._make(indices, values, dims)


def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """The SparseTensors of ``sp_inputs`` joined along ``axis``, entries in canonical
    order. With ``expand_nonconcat_dims`` the other dimensions are each the largest
    of the inputs'; else they must agree. As in TF, no gradient passes back through
    it (TF's SparseConcat is not differentiable).

    >>> import eagertape.tf as tf
    >>> a = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    >>> b = tf.SparseTensor([[1, 1]], [2.0], [2, 3])
    >>> tf.sparse.to_dense(tf.sparse.concat(1, [a, b])).numpy().tolist()
    [[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0, 0.0]]
    """
    if not isinstance(sp_inputs, (list, tuple)):
        raise TypeError("Inputs must be a list or tuple.")
    sps = [_sparse(s, "sp_inputs") for s in sp_inputs]
    if len(sps) == 1:
        return sps[0]
    rank = len(sps[0]._shape)
    if not -rank <= int(axis) < rank:
        raise InvalidArgumentError(f"Concat dimension must be in range [{-rank}, {rank}), "
                                   f"got {axis}")
    axis = int(axis) % rank
    for k, s in enumerate(sps[1:], 1):
        if len(s._shape) != rank:
            raise InvalidArgumentError(f"Ranks of all input tensors must match: expected "
                                       f"{rank} but got {len(s._shape)} at position {k}")
        if s.dtype != sps[0].dtype:
            raise InvalidArgumentError(
                f"cannot compute SparseConcat as input #{k} was expected to be a "
                f"{np.dtype(sps[0].dtype).name} tensor but is a {np.dtype(s.dtype).name} "
                "tensor")
    if expand_nonconcat_dims:
        top = [builtins.max(s._shape[d] for s in sps) for d in range(rank)]
    else:
        top = list(sps[0]._shape)
        for k, s in enumerate(sps[1:], 1):
            for d in range(rank):
                if d != axis and s._shape[d] != top[d]:
                    raise InvalidArgumentError(
                        f"All dimensions except {axis} must match. Input {k} has shape "
                        f"[{' '.join(map(str, s._shape))}] and doesn't match input 0 with "
                        f"shape [{' '.join(map(str, sps[0]._shape))}].")
    offsets = np.cumsum([0] + [s._shape[axis] for s in sps[:-1]]).tolist()
    top[axis] = builtins.sum(s._shape[axis] for s in sps)
    if _is_text(sps[0]._values):
        # Strings stay on the host (JAX has no string dtype): the same join, in NumPy.
        idx = [_needs_host(s._indices, "concat", "sp_inputs").copy() for s in sps]
        for i, o in zip(idx, offsets):
            i[:, axis] += o
        idx = np.concatenate(idx).reshape(-1, rank)
        order = np.lexsort(idx.T[::-1]) if idx.size else np.zeros(0, np.int64)
        vals = np.concatenate([s._values._v for s in sps])
        return SparseTensor._make(extend.constant(idx[order]), _text.wrap(vals[order]), top)
    indices, values = _call(_concat_fn, ([s._indices for s in sps], [s._values for s in sps],
                                         tuple(int(o) for o in offsets), axis),
                            constant_output=True, name="sparse_concat")
    return SparseTensor._make(indices, values, top)


def expand_dims(sp_input, axis=None, name=None):
    """``sp_input`` with a dimension of size 1 inserted at ``axis`` (-1 by default).

    >>> import eagertape.tf as tf
    >>> st = tf.SparseTensor([[0, 1]], [1.0], [2, 3])
    >>> tf.sparse.expand_dims(st, 1).shape
    TensorShape([2, 1, 3])
    """
    sp = _sparse(sp_input)
    rank = len(sp._shape)
    axis = -1 if axis is None else axis
    if isinstance(axis, _TensorLike):
        axis = _needs_values(axis, "expand_dims", "axis")
    axis = int(axis)
    if not -rank - 1 <= axis <= rank:
        raise InvalidArgumentError(f"axis must be an integer value in range [-rank(sp_input) "
                                   f"- 1, rank(sp_input)] = [{-rank - 1}, {rank}], got {axis}")
    axis = axis if axis >= 0 else axis + rank + 1
    indices, values = _call(_expand_fn, (sp._indices, sp._values, axis), name="expand_dims")
    return SparseTensor._make(indices, values, sp._shape[:axis] + (1,) + sp._shape[axis:])


def eye(num_rows, num_columns=None, dtype="float32", name=None):
    """A sparse identity matrix of ``num_rows`` x ``num_columns`` (square by default).

    >>> import eagertape.tf as tf
    >>> tf.sparse.to_dense(tf.sparse.eye(2, 3)).numpy().tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    rows = int(num_rows)
    cols = rows if num_columns is None else int(num_columns)
    n = builtins.min(rows, cols)
    idx = np.stack([np.arange(n, dtype=_I64)] * 2, axis=1)
    values = extend.constant(np.ones(n, _as_dtype(dtype)))
    return SparseTensor._make(_const_indices(idx), values, (rows, cols))


def fill_empty_rows(sp_input, default_value, name=None):
    """``sp_input`` with one entry ``[row, 0, ...]`` of ``default_value`` in every row
    (first dimension) that has none, and the boolean vector of those rows. The
    entries come row by row (a row's own in their order); the gradient w.r.t.
    ``default_value`` is the sum of the filled entries' gradients, as TF's.

    >>> import eagertape.tf as tf
    >>> st = tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [3, 2])
    >>> out, empty = tf.sparse.fill_empty_rows(st, -1.0)
    >>> out.indices.numpy().tolist(), out.values.numpy().tolist(), empty.numpy().tolist()
    ([[0, 1], [1, 0], [2, 0]], [1.0, -1.0, 2.0], [False, True, False])
    """
    sp = _sparse(sp_input)
    default = convert_to_tensor(default_value, dtype=sp.dtype) \
        if not isinstance(default_value, _TensorLike) else default_value
    if tuple(default.shape) != ():
        raise InvalidArgumentError("default_value must be a scalar (argument `default_value` "
                                   "of tf.sparse.fill_empty_rows)")
    if len(sp._shape) < 1:
        raise InvalidArgumentError("tf.sparse.fill_empty_rows needs a SparseTensor of rank "
                                   ">= 1")
    idx = _needs_host(sp._indices, "fill_empty_rows")
    _check_bounds(idx, sp._shape, "fill_empty_rows")
    nrows = sp._shape[0]
    row = idx[:, 0] if idx.size else np.zeros(0, _I64)
    counts = np.bincount(row, minlength=nrows) if row.size else np.zeros(nrows, _I64)
    empty = counts == 0
    order = np.argsort(row, kind="stable")
    source, out_idx, filled = [], [], set(np.nonzero(empty)[0].tolist())
    pos = 0
    for r in range(nrows):
        if r in filled:
            source.append(-1)
            out_idx.append([r] + [0] * (len(sp._shape) - 1))
            continue
        for _ in range(int(counts[r])):
            i = int(order[pos])
            pos += 1
            source.append(i)
            out_idx.append(idx[i].tolist())
    out_idx = np.asarray(out_idx, _I64).reshape(-1, len(sp._shape))
    values = _call(_fill_fn, (sp._values, default, _const_indices(np.asarray(source, _I64))),
                   name="fill_empty_rows")
    return (SparseTensor._make(_const_indices(out_idx), values, sp._shape),
            extend.constant(empty))


def to_indicator(sp_input, vocab_size, name=None):
    """A dense boolean tensor of shape ``dense_shape[:-1] + [vocab_size]``: True at
    ``[..., v]`` where a row of ``sp_input`` (its integer ids) holds the value ``v``.

    >>> import eagertape.tf as tf
    >>> st = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [2, 0, 3], [2, 2])
    >>> tf.sparse.to_indicator(st, 4).numpy().tolist()
    [[True, False, True, False], [False, False, False, True]]
    """
    sp = _sparse(sp_input)
    vocab = int(_needs_values(vocab_size, "to_indicator", "vocab_size")
                if isinstance(vocab_size, _TensorLike) else vocab_size)
    vals = _host(sp._values, "to_indicator")
    if vals is not None and vals.size:
        vals = vals.astype(_I64)
        if vals.min() < 0 or vals.max() >= vocab:
            bad = int(np.nonzero((vals < 0) | (vals >= vocab))[0][0])
            raise InvalidArgumentError(f"Indices are not valid (out of bounds): values[{bad}] "
                                       f"= {int(vals[bad])}, need 0 <= value < vocab_size = "
                                       f"{vocab}")
    return _call(_indicator_fn, (sp._indices, sp._values, sp._shape, vocab),
                 name="to_indicator")


def reset_shape(sp_input, new_shape=None):
    """``sp_input`` with dense shape ``new_shape`` (no smaller in any dimension), or
    by default the tightest shape holding its indices.

    >>> import eagertape.tf as tf
    >>> st = tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [5, 5])
    >>> tf.sparse.reset_shape(st).shape
    TensorShape([3, 2])
    """
    sp = _sparse(sp_input)
    if new_shape is None:
        idx = _needs_host(sp._indices, "reset_shape")
        shape = tuple(int(d) for d in (idx.max(axis=0) + 1 if idx.shape[0] else
                                       np.zeros(len(sp._shape), _I64)))
    else:
        shape = _static_shape(new_shape)
        if len(shape) != len(sp._shape):
            raise ValueError(f"Dimensions {len(shape)} and {len(sp._shape)} are not compatible "
                             "(argument `new_shape` must have the SparseTensor's rank)")
        if any(n < o for n, o in zip(shape, sp._shape)):
            raise ValueError(f"Requested new_shape should have dimension sizes >= "
                             f"sp_input.shape.  Found new_shape ({list(shape)}), "
                             f"sp_input.shape ({list(sp._shape)}).")
    indices, values = _call(_identity2_fn, (sp._indices, sp._values), name="reset_shape")
    return SparseTensor._make(indices, values, shape)


# -- JAX's BCOO: the SparseTensor TF would have had ----------------------------------

def _is_bcoo(x):
    return type(x).__name__ == "BCOO" and type(x).__module__.startswith("jax.experimental")


def _bcoo_parts_fn(indices, values, shape, n_batch, n_dense):
    # A BCOO with batch or dense dimensions, as COO entries over every dimension
    # (each batch's padding entries included: out of bounds, dropped after).
    mat = _jax_sparse().BCOO((values, indices), shape=shape)
    flat = _jax_sparse().bcoo_update_layout(mat, n_batch=0, n_dense=0,
                                            on_inefficient="warn" if n_dense else None)
    return flat.indices, flat.data


def _of_bcoo(mat):
    """The ``tf.SparseTensor`` of a JAX ``BCOO`` (what Keras's JAX backend makes where
    TF's Keras makes a SparseTensor: ``CategoryEncoding(sparse=True)``, the lookup
    layers' sparse outputs), as TF's kernels give it: each index once, in canonical
    (row-major) order, the values of a repeated index summed, the BCOO's padding
    entries (out of bounds) dropped, int64 indices. The values are one recorded call
    of the BCOO's, so a gradient reaches them. Inside a ``tf.function`` (indices not
    known) the entries are kept as they are: sorting and summing would change how
    many there are, which JAX compiles statically.

    >>> import jax.numpy as jnp
    >>> from jax.experimental import sparse as jsparse
    >>> import eagertape.tf as tf
    >>> mat = jsparse.BCOO((jnp.array([1.0, 2.0, 4.0]), jnp.array([[0, 3], [0, 1], [0, 3]])),
    ...                    shape=(1, 5))
    >>> st = tf.sparse._of_bcoo(mat)
    >>> st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()
    ([[0, 1], [0, 3]], [2.0, 5.0], [1, 5])
    """
    if not _is_bcoo(mat):
        raise TypeError(f"argument `mat` must be a jax.experimental.sparse.BCOO, got "
                        f"{type(mat).__name__}; a SparseTensor is made with "
                        "tf.SparseTensor(indices, values, dense_shape)")
    shape = tuple(int(d) for d in mat.shape)
    indices, values = mat.indices, mat.data
    if not isinstance(values, _TensorLike):
        values = convert_to_tensor(values)
    if not isinstance(indices, _TensorLike):
        indices = convert_to_tensor(indices)
    if mat.n_batch or mat.n_dense:
        indices, values = _call(_bcoo_parts_fn, (indices, values, shape, mat.n_batch,
                                                 mat.n_dense), name="sparse_of_bcoo")
    indices = _index_tensor(indices, "indices")
    idx = _host(indices, "_of_bcoo")
    if idx is None:         # traced: the entries as they are
        return SparseTensor._make(indices, values, shape)
    inside = np.all((idx >= 0) & (idx < np.asarray(shape, _I64)), axis=1) if idx.size \
        else np.ones(idx.shape[0], bool)
    if inside.all() and _canonical(idx):
        return SparseTensor._make(indices, values, shape)
    kept = idx[inside]
    if kept.shape[0] and kept.shape[1]:
        groups, segments = np.unique(kept, axis=0, return_inverse=True)
    else:       # no entry, or a scalar: at most one
        groups = kept[:1]
        segments = np.zeros(kept.shape[0], _I64)
    seg = np.full(idx.shape[0], groups.shape[0], _I64)     # padding: a segment dropped
    seg[inside] = segments.reshape(-1)
    values = _call(_segment_fn, (values, _const_indices(seg), int(groups.shape[0]), "sum",
                                 None), name="sparse_of_bcoo")
    return SparseTensor._make(_const_indices(groups.reshape(-1, len(shape))), values, shape)


def _identity2_fn(indices, values):
    return indices, values


def map_values(op, *args, **kwargs):
    """``op`` applied to the values of the SparseTensors among the arguments (all of
    the same indices and shape), the result a SparseTensor of those indices.

    >>> import eagertape.tf as tf
    >>> st = tf.sparse.from_dense([[1, 0, 0, 8], [0, 0, 3, 0]])
    >>> tf.sparse.to_dense(tf.sparse.map_values(tf.add, st, 5)).numpy().tolist()
    [[6, 0, 0, 13], [0, 0, 8, 0]]
    """
    found = []

    def swap(x):
        if isinstance(x, SparseTensor):
            found.append(x)
            return x._values
        return x

    inner = jax.tree_util.tree_map(swap, (args, kwargs),
                                   is_leaf=lambda x: isinstance(x, (SparseTensor, _TensorLike)))
    if not found:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = found[0]
    for other in found[1:]:
        if other._shape != first._shape:
            raise InvalidArgumentError(f"Condition x == y did not hold: the SparseTensors' "
                                       f"dense shapes differ ({list(first._shape)} and "
                                       f"{list(other._shape)})")
        a, b = _host(first._indices, "map_values"), _host(other._indices, "map_values")
        if a is not None and b is not None and (a.shape != b.shape or not np.array_equal(a, b)):
            raise InvalidArgumentError("Condition x == y did not hold: the SparseTensors' "
                                       "indices differ (map_values needs one set of indices)")
    a, k = inner
    return SparseTensor(first._indices, op(*a, **k), first._shape)


def _cwise(sp, y, kind):
    y = y if isinstance(y, _TensorLike) else convert_to_tensor(y, dtype=sp.dtype)
    if y.dtype != sp.dtype:
        if kind == "truediv":
            raise TypeError(f"`x` and `y` must have the same dtype, got "
                            f"tf.{np.dtype(sp.dtype).name} != tf.{np.dtype(y.dtype).name}.")
        raise InvalidArgumentError(
            f"cannot compute SparseDenseCwise{'Mul' if kind == 'mul' else 'Div'} as input #3 "
            f"was expected to be a {np.dtype(sp.dtype).name} tensor but is a "
            f"{np.dtype(y.dtype).name} tensor")
    ys, rank = tuple(y.shape), len(sp._shape)
    if len(ys) > rank or any(d not in (1, s) for d, s in zip(ys[::-1], sp._shape[::-1])):
        raise InvalidArgumentError(
            f"SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible "
            f"shapes: [{','.join(map(str, sp._shape))}] vs. [{','.join(map(str, ys))}]")
    values = sp._values
    if kind == "truediv" and np.dtype(sp.dtype).kind in "iu":
        wide = "float64" if np.dtype(sp.dtype).itemsize >= 4 else "float32"
        values, y = values.astype(wide), y.astype(wide)
    out = _call(_cwise_fn, (sp._indices, values, y, sp._shape, kind), name=f"sparse_{kind}")
    return SparseTensor._make(sp._indices, out, sp._shape)


def _segment(kind, data, indices, segment_ids, num_segments):
    data = data if isinstance(data, _TensorLike) else convert_to_tensor(data)
    indices = indices if isinstance(indices, _TensorLike) else convert_to_tensor(indices)
    ids = segment_ids if isinstance(segment_ids, _TensorLike) else convert_to_tensor(segment_ids)
    if num_segments is None:
        v = _needs_values(ids, f"segment_{kind}", "segment_ids")
        if v.size and np.any(np.diff(v) < 0):
            raise InvalidArgumentError("segment ids are not increasing (tf.sparse.segment_"
                                       f"{kind} without num_segments needs sorted ids)")
        n = int(v.max()) + 1 if v.size else 0
    else:
        n = int(_needs_values(num_segments, f"segment_{kind}", "num_segments")
                if isinstance(num_segments, _TensorLike) else num_segments)
    return _call(_sparse_segment_fn, (data, indices, ids, n, kind), name=f"segment_{kind}")


def segment_sum(data, indices, segment_ids, num_segments=None, name=None,
                sparse_gradient=False):
    """``tf.math.segment_sum`` of the rows ``data[indices]``: row ``i`` of the result
    is the sum of the selected rows whose ``segment_ids`` is ``i``.

    >>> import eagertape.tf as tf
    >>> c = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> tf.sparse.segment_sum(c, [0, 2, 1], [0, 0, 1]).numpy().tolist()
    [[6.0, 8.0], [3.0, 4.0]]
    """
    return _segment("sum", data, indices, segment_ids, num_segments)


def segment_mean(data, indices, segment_ids, num_segments=None, name=None,
                 sparse_gradient=False):
    """The mean of the rows ``data[indices]`` per segment (0 for an empty one).

    >>> import eagertape.tf as tf
    >>> c = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> tf.sparse.segment_mean(c, [0, 2], [0, 0]).numpy().tolist()
    [[3.0, 4.0]]
    """
    return _segment("mean", data, indices, segment_ids, num_segments)


def segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None,
                   sparse_gradient=False):
    """The sum of the rows ``data[indices]`` per segment, divided by the square root
    of the segment's size.

    >>> import eagertape.tf as tf
    >>> c = tf.constant([[1.0], [3.0]])
    >>> round(float(tf.sparse.segment_sqrt_n(c, [0, 1], [0, 0])[0, 0]), 4)
    2.8284
    """
    return _segment("sqrt_n", data, indices, segment_ids, num_segments)


# -- what the facade's tape uses ---------------------------------------

def _watched(nest):
    """``nest`` with each SparseTensor replaced by its values: what a tape watches
    for it (TF watches a SparseTensor's values).

    >>> import eagertape.tf as tf
    >>> st = tf.SparseTensor([[0]], [1.0], [2])
    >>> tf.sparse._watched([st])[0] is st.values
    True
    """
    return jax.tree_util.tree_map(lambda x: x._values if isinstance(x, SparseTensor) else x,
                                  nest, is_leaf=lambda x: isinstance(x, SparseTensor)
                                  or isinstance(x, _TensorLike) or x is None)
