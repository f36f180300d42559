"""``tf.TensorArray``.

Eagerly it is what TF eager's is: a Python list of Tensors, grown on demand
when ``dynamic_size``, unwritten elements read as zeros, each read recorded
like any op (so gradients reach the values written through ``read``, ``stack``,
``gather``, ``concat``, as TF's). ``write`` changes the array and returns it, so
``ta = ta.write(i, v)`` and ``ta.write(i, v)`` both work.

Inside a ``tf.function`` it works the same in a Python loop. Carried through a
``tf.while_loop`` whose condition is traced, a loop needs a fixed structure, so
the array becomes one preallocated buffer of shape ``(size,) + element_shape``,
written with ``.at[i].set``: that needs a Python int ``size``, no
``dynamic_size``, and a known element shape (``element_shape=``, or an element
written before the loop); otherwise a NotImplementedError says so. In that
form unwritten elements are zeros, ``clear_after_read`` is not enforced, and an
index out of range is not checked when it is a traced value (XLA clamps it).

>>> import eagertape.tf as tf
>>> ta = tf.TensorArray(tf.float32, size=3)
>>> for i in range(3):
...     ta = ta.write(i, tf.constant(float(i * i)))
>>> ta.stack().numpy()
array([0., 1., 4.], dtype=float32)
"""
import jax
import numpy as np

from .. import numpy as _np
from ..extend import call as _call
from .. import extend as _extend
from ..extend import convert_to_tensor
from ..extend import TensorShape, as_dtype as _as_dtype, TensorLike as _TensorLike
from .errors import InvalidArgumentError, OutOfRangeError
from ._util import concrete


def _index(i, what):
    """``i`` as a Python int, or None when it is a traced value."""
    v = concrete(i) if isinstance(i, _TensorLike) else (None if isinstance(i, jax.core.Tracer)
                                                        else np.asarray(i))
    if v is None:
        return None
    if v.ndim or not np.issubdtype(v.dtype, np.integer):
        raise TypeError(f"argument `index` of TensorArray.{what} must be an integer scalar, "
                        f"got {v!r}")
    return int(v)


def _set(buf, i, v):
    return buf.at[i].set(v)


def _get(buf, i):
    return buf[i]


class TensorArray:
    """``tf.TensorArray``: a list of tensors of one dtype, written and read by
    index, stacked into one tensor.

    >>> import eagertape.tf as tf
    >>> x = tf.constant([1.0, 2.0])
    >>> with tf.GradientTape() as tape:
    ...     tape.watch(x)
    ...     ta = tf.TensorArray(tf.float32, size=2).unstack(x * x)
    ...     total = tf.reduce_sum(ta.stack())
    >>> tape.gradient(total, x).numpy()
    array([2., 4.], dtype=float32)
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        if handle is not None or flow is not None:
            raise ValueError("TensorArray handles and flows are not supported (eagertape is "
                             "eager, as TF's eager TensorArray)")
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is "
                             "enabled.")
        n = _index(size, "__init__")
        if n is None:
            raise TypeError("argument `size` of TensorArray must be known when a tf.function "
                            "is traced (JAX compiles static shapes): pass a Python int")
        self._dtype = _as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        self._element_shape = TensorShape(element_shape)
        self._items = [None] * n        # Tensors (None: not written); None in buffer form
        self._buf = None                # the (size,) + element_shape buffer form
        self._read = set()

    # -- properties ---------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def element_shape(self):
        """The elements' shape as far as known (TensorShape(None) until a write)."""
        return self._element_shape

    @property
    def dynamic_size(self):
        return self._dynamic_size

    def _len(self):
        return self._buf.shape[0] if self._buf is not None else len(self._items)

    def size(self, name=None):
        """The number of elements, an int32 scalar Tensor."""
        return convert_to_tensor(np.int32(self._len()))

    def identity(self):
        return self

    def close(self, name=None):
        """Drop every element (as TF's eager ``close``)."""
        self._items, self._buf = [], None

    def mark_used(self):
        """Accepted (TF warns about unused TensorArrays; eagertape does not)."""

    # -- writing -------------------------------------------------------------------
    def _value(self, value):
        if isinstance(value, _TensorLike):
            v = value if not hasattr(value, "read_value") else value.read_value()
        else:
            try:
                v = convert_to_tensor(value, dtype=self._dtype)
            except (TypeError, ValueError):
                v = convert_to_tensor(value)
        if v.dtype != self._dtype:
            raise InvalidArgumentError(f"TensorArray dtype is {self._dtype.name} but Op is "
                                       f"trying to write dtype {v.dtype.name} ")
        if not self._element_shape.is_compatible_with(v.shape):
            raise ValueError(f"Incompatible shape for value ({v.shape}), expected "
                             f"({self._element_shape})")
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(v.shape)
        return v

    def _check(self, i, verb):
        if i is None:
            return
        n = self._len()
        if i < 0:
            raise OutOfRangeError(f"{verb.capitalize()} to negative indices (index {i}) is "
                                  "not allowed." if verb == "writing" else
                                  f"{verb.capitalize()} from negative indices (index {i}) "
                                  "is not allowed.")
        if i >= n and (verb != "writing" or not self._dynamic_size or self._buf is not None):
            if verb == "writing":
                raise OutOfRangeError(f"Tried to write to index {i} but array is not "
                                      f"resizeable and size is: {n} ")
            raise OutOfRangeError(f"Tried to read from index {i} but array size is: {n} ")

    def write(self, index, value, name=None):
        """Set element ``index`` to ``value``; returns this TensorArray.

        >>> import eagertape.tf as tf
        >>> tf.TensorArray(tf.int32, size=2).write(1, 7).stack().numpy()
        array([0, 7], dtype=int32)
        """
        i = _index(index, "write")
        self._check(i, "writing")
        v = self._value(value)
        if i is None:
            self._to_buffer("a write at a traced index")
        if self._buf is not None:
            self._buf = _call(_set, (self._buf, index if i is None else i, v))
            return self
        if i >= len(self._items):
            self._items.extend([None] * (i + 1 - len(self._items)))
        self._items[i] = v
        return self

    def unstack(self, value, name=None):
        """The slices of ``value`` along its first axis as the elements."""
        value = self._value_stacked(value)
        n = value.shape[0]
        if n > self._len() and not self._dynamic_size:
            raise ValueError(f"Cannot unstack {n} tensors into a TensorArray of static size "
                             f"{self._len()} ")
        if self._buf is not None:
            if n != self._len():
                raise ValueError(f"Cannot unstack {n} tensors into a TensorArray of size "
                                 f"{self._len()} inside a traced tf.while_loop")
            self._buf = _np.asarray(value)
        else:
            self._items = list(_np.unstack(value)) if n else []
        return self

    def _value_stacked(self, value):
        v = value if isinstance(value, _TensorLike) else convert_to_tensor(value, dtype=self._dtype) \
            if not isinstance(value, (np.ndarray, np.generic)) else convert_to_tensor(value)
        if v.dtype != self._dtype:
            raise InvalidArgumentError(f"TensorArray dtype is {self._dtype.name} but Op is "
                                       f"trying to write dtype {v.dtype.name} ")
        if v.ndim == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0")
        if not self._element_shape.is_compatible_with(v.shape[1:]):
            raise ValueError(f"Incompatible shape for value ({v.shape[1:]}), expected "
                             f"({self._element_shape})")
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(v.shape[1:])
        return v

    def scatter(self, indices, value, name=None):
        """Element ``indices[k]`` set to ``value[k]``; returns this TensorArray."""
        value = self._value_stacked(value)
        idx = concrete(indices) if isinstance(indices, _TensorLike) else np.asarray(indices)
        if idx is None or self._buf is not None:
            self._to_buffer("a scatter at traced indices")
            self._buf = _call(_set, (self._buf, indices, value))
            return self
        for k, i in enumerate(idx.reshape(-1).tolist()):
            self.write(i, value[k])
        return self

    def split(self, value, lengths, name=None):
        """Consecutive pieces of ``value`` along its first axis, of the given lengths."""
        value = value if isinstance(value, _TensorLike) else convert_to_tensor(value, self._dtype)
        lens = np.asarray(concrete(lengths, "lengths") if isinstance(lengths, _TensorLike)
                          else lengths)
        if lens.ndim != 1:
            raise InvalidArgumentError(f"Expected lengths to be a vector, received shape: "
                                       f"{list(lens.shape)} ")
        if value.ndim == 0:
            raise InvalidArgumentError("Expected value to be at least a vector, but received "
                                       f"shape: {list(value.shape)} ")
        if lens.sum() != value.shape[0]:
            raise InvalidArgumentError(
                f"Expected sum of lengths to be equal to values.shape[0], but sum of lengths "
                f"is {lens.sum()} and value's shape is: {list(value.shape)} ")
        if not self._dynamic_size and len(lens) != self._len():
            raise InvalidArgumentError(
                f"TensorArray's size is not equal to the size of lengths ({self._len()} vs. "
                f"{len(lens)}), and the TensorArray is not marked as dynamically resizeable.")
        if self._buf is not None:
            raise NotImplementedError("TensorArray.split inside a traced tf.while_loop is not "
                                      "supported: split before the loop")
        self._items = list(_np.split(value, np.cumsum(lens)[:-1].tolist())) if len(lens) else []
        return self

    # -- reading -------------------------------------------------------------------
    def _zeros(self):
        if not self._element_shape.is_fully_defined():
            raise ValueError("TensorArray has an unwritten element and no fully defined "
                             f"element shape ({self._element_shape}) to make it zeros of: "
                             "pass element_shape=")
        return _np.zeros(tuple(self._element_shape), dtype=self._dtype)

    def _item(self, i):
        v = self._items[i]
        if v is None:
            v = self._items[i] = self._zeros()
        return v

    def read(self, index, name=None):
        """Element ``index`` (zeros if never written). With ``clear_after_read``
        (the default) an element read once cannot be read again, as TF's."""
        i = _index(index, "read")
        self._check(i, "reading")
        if i is None:
            self._to_buffer("a read at a traced index")
        if self._buf is not None:
            return _call(_get, (self._buf, index if i is None else i))
        v = self._items[i]
        if v is None:
            if i in self._read:
                raise InvalidArgumentError(
                    f"Could not read index {i} twice because it was cleared after a previous "
                    "read (perhaps try setting clear_after_read = false?)")
            v = self._item(i)
        if self._clear_after_read:
            self._items[i] = None
            self._read.add(i)
        return v

    def stack(self, name=None):
        """All elements stacked along a new first axis."""
        if self._buf is not None:
            return _np.asarray(self._buf)
        if not self._items:
            if self._element_shape.is_fully_defined():
                return _np.zeros((0,) + tuple(self._element_shape), dtype=self._dtype)
            return _np.zeros((0,), dtype=self._dtype)
        return _np.stack([self._item(i) for i in range(len(self._items))])

    def gather(self, indices, name=None):
        """The elements at ``indices``, stacked."""
        idx = concrete(indices) if isinstance(indices, _TensorLike) else np.asarray(indices)
        if idx is None or self._buf is not None:
            self._to_buffer("a gather at traced indices")
            return _call(_get, (self._buf, indices))
        for i in idx.reshape(-1).tolist():
            self._check(int(i), "reading")
        return _np.stack([self._item(int(i)) for i in idx.reshape(-1).tolist()])

    def concat(self, name=None):
        """All elements concatenated along their first axis."""
        if self._buf is not None:
            b = self._buf
            if b.ndim < 2:
                raise InvalidArgumentError("Concat saw a scalar shape at index 0 but requires "
                                           "at least vectors.")
            return _np.reshape(b, (-1,) + tuple(b.shape[2:]))
        items = [self._item(i) for i in range(len(self._items))]
        for k, v in enumerate(items):
            if v.ndim == 0:
                raise InvalidArgumentError(f"Concat saw a scalar shape at index {k} but "
                                           "requires at least vectors.")
        if not items:
            return _np.zeros((0,) + tuple(self._element_shape[1:]) if
                             self._element_shape.is_fully_defined() else (0,), dtype=self._dtype)
        return _np.concatenate(items, axis=0)

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError("TensorArray.grad is not supported when executing eagerly; "
                                  "gradients of TensorArray reads and stacks come from the tape")

    # -- the buffer form (traced loops) -------------------------------------------
    def _to_buffer(self, why):
        if self._buf is not None:
            return
        if self._dynamic_size:
            raise NotImplementedError(
                f"{why} of a TensorArray with dynamic_size=True inside a tf.function (or a "
                "traced tf.while_loop) is not supported: give it a fixed Python int `size`, "
                "or loop in Python (a `for` over range(n)) so indices are known")
        if not self._element_shape.is_fully_defined():
            raise NotImplementedError(
                f"{why} of a TensorArray inside a tf.function (or a traced tf.while_loop) "
                "needs the elements' shape before the loop: pass element_shape= to "
                "tf.TensorArray, or loop in Python (a `for` over range(n))")
        self._buf = self.stack()
        self._items = None

    def __repr__(self):
        return (f"<eagertape TensorArray dtype={self._dtype.name} size={self._len()} "
                f"element_shape={self._element_shape}>")


def _flatten(ta):
    # While a tf.function traces, a TensorArray carried through control flow
    # is one buffer (a fixed structure across iterations); otherwise its
    # written elements, so an eager loop keeps TF eager's list.
    meta = (ta._dtype, ta._dynamic_size, ta._clear_after_read, ta._infer_shape)
    if ta._buf is None and _extend.function_trace() is not None and not ta._dynamic_size:
        ta._to_buffer("carrying it through traced control flow")
    if ta._buf is not None:
        return [ta._buf], (meta, ta._element_shape, None, None)
    mask = tuple(v is not None for v in ta._items)
    return ([v for v in ta._items if v is not None],
            (meta, ta._element_shape, mask, frozenset(ta._read)))


def _unflatten(aux, children):
    meta, shape, mask, read = aux
    ta = object.__new__(TensorArray)
    ta._dtype, ta._dynamic_size, ta._clear_after_read, ta._infer_shape = meta
    ta._element_shape = shape
    children = list(children)
    if mask is None:
        # As given: control flow rebuilds it from raw arrays, then wraps them.
        ta._buf, ta._items, ta._read = children[0], None, set()
    else:
        it = iter(children)
        ta._items = [next(it) if m else None for m in mask]
        ta._buf, ta._read = None, set(read)
    return ta


jax.tree_util.register_pytree_node(TensorArray, _flatten, _unflatten)
