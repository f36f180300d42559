"""Tensor: an immutable, identity-carrying wrapper of one ``jax.Array``.

Tapes key their nodes on the Python object (as TF keys on the tensor id), so two
Tensors holding equal values are different sources. Every operator and array
method goes through the single primitive wrapper in ``_primitive``.
"""
import operator

import jax
import jax.numpy as jnp
import numpy as np

_INEXACT = (np.floating, np.complexfloating)


def _is_inexact(dtype):
    return jnp.issubdtype(dtype, jnp.inexact)


class _TensorLike:
    """Operators and array methods shared by Tensor and Variable (all recorded)."""

    __slots__ = ()
    # Make NumPy defer binary operators (np_array * t) to our reflected methods,
    # as tf.Tensor does, instead of converting the Tensor to an ndarray.
    __array_priority__ = 100

    # -- arithmetic -------------------------------------------------------
    def __add__(self, o): return _call(jnp.add, (self, o))
    def __radd__(self, o): return _call(jnp.add, (o, self))
    def __sub__(self, o): return _call(jnp.subtract, (self, o))
    def __rsub__(self, o): return _call(jnp.subtract, (o, self))
    def __mul__(self, o): return _call(jnp.multiply, (self, o))
    def __rmul__(self, o): return _call(jnp.multiply, (o, self))
    def __truediv__(self, o): return _call(jnp.true_divide, (self, o))
    def __rtruediv__(self, o): return _call(jnp.true_divide, (o, self))
    # TF registers no gradient for FloorDiv: a constant for the tape, as tnp.floor_divide.
    def __floordiv__(self, o): return _call(jnp.floor_divide, (self, o), constant_output=True)
    def __rfloordiv__(self, o): return _call(jnp.floor_divide, (o, self), constant_output=True)
    def __mod__(self, o): return _call(jnp.mod, (self, o))
    def __rmod__(self, o): return _call(jnp.mod, (o, self))
    def __pow__(self, o): return _call(jnp.power, (self, o))
    def __rpow__(self, o): return _call(jnp.power, (o, self))
    def __matmul__(self, o): return _call(jnp.matmul, (self, o))
    def __rmatmul__(self, o): return _call(jnp.matmul, (o, self))
    def __neg__(self): return _call(jnp.negative, (self,))
    def __pos__(self): return _call(jnp.positive, (self,))
    def __abs__(self): return _call(jnp.abs, (self,))
    def __invert__(self): return _call(jnp.invert, (self,))
    def __and__(self, o): return _call(jnp.bitwise_and, (self, o))
    def __rand__(self, o): return _call(jnp.bitwise_and, (o, self))
    def __or__(self, o): return _call(jnp.bitwise_or, (self, o))
    def __ror__(self, o): return _call(jnp.bitwise_or, (o, self))
    def __xor__(self, o): return _call(jnp.bitwise_xor, (self, o))
    def __rxor__(self, o): return _call(jnp.bitwise_xor, (o, self))
    def __lshift__(self, o): return _call(jnp.left_shift, (self, o))
    def __rshift__(self, o): return _call(jnp.right_shift, (self, o))

    # -- comparisons (elementwise, as in TF 2; hence unhashable) ---------
    def __eq__(self, o): return _call(jnp.equal, (self, o))
    def __ne__(self, o): return _call(jnp.not_equal, (self, o))
    def __lt__(self, o): return _call(jnp.less, (self, o))
    def __le__(self, o): return _call(jnp.less_equal, (self, o))
    def __gt__(self, o): return _call(jnp.greater, (self, o))
    def __ge__(self, o): return _call(jnp.greater_equal, (self, o))
    __hash__ = None

    def ref(self):
        """A hashable reference to this object (as ``tf.Tensor.ref()``), for dict keys.

        >>> d = {t.ref(): "weights"}
        """
        return _Ref(self)

    # -- indexing and iteration -------------------------------------------
    def __getitem__(self, idx):
        return _call(_getitem, (self, idx if type(idx) is int else _concrete_slices(idx)))

    def __iter__(self):
        n = len(self)
        # One recorded op for all rows (not n getitems): `a, b, c, d = t` is common.
        return iter(_call(jnp.unstack, (self,)) if n else ())

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d (scalar) tensor")
        return shape[0]

    # -- methods ------------------------------------------------------------
    @property
    def T(self): return _call(jnp.transpose, (self,))
    @property
    def mT(self): return _call(jnp.matrix_transpose, (self,))
    @property
    def real(self): return _call(jnp.real, (self,))
    @property
    def imag(self): return _call(jnp.imag, (self,))

    def reshape(self, *shape, **kw):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return _call(jnp.reshape, (self, tuple(shape) if isinstance(shape, list) else shape), kw)

    def transpose(self, *axes):
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = axes[0]
        return _call(jnp.transpose, (self, tuple(axes) if axes else None))

    def astype(self, dtype): return _call(jnp.astype, (self, _as_dtype(dtype)))

    # -- values out -------------------------------------------------------
    def __float__(self): return float(self._read())
    def __int__(self): return int(self._read())
    def __complex__(self): return complex(self._read())

    def __index__(self):
        v = self._read()
        if not jnp.issubdtype(v.dtype, jnp.integer):
            raise TypeError(f"only integer tensors can be used as an index, got {v.dtype}")
        return operator.index(np.asarray(v).item())

    def __bool__(self):
        return bool(self._read())

    def __array__(self, dtype=None, copy=None):
        a = np.asarray(self._read())
        return a if dtype is None else a.astype(dtype, copy=False)

    def __format__(self, spec):
        v = np.asarray(self._read())
        return format(v.item() if v.ndim == 0 else v, spec) if spec else str(self)

    def numpy(self):
        """The value as a NumPy array (a copy on the host).

        >>> et.constant([1.0, 2.0]).numpy()
        array([1., 2.], dtype=float32)
        """
        return np.asarray(self._read())

    def jax(self):
        """The underlying ``jax.Array``: no copy, device and sharding kept."""
        return self._read()

    # Shape and dtype come from the abstract value: a pending (fused) Tensor
    # knows them without being computed.
    @property
    def shape(self): return tuple(self._aval().shape)
    @property
    def dtype(self): return np.dtype(self._aval().dtype)
    @property
    def ndim(self): return len(self._aval().shape)
    @property
    def size(self): return int(np.prod(self._aval().shape, dtype=np.int64))


def _method(fn, constant_output=False):
    def m(self, *args, **kwargs):
        if "out" in kwargs:
            # NumPy's own np.mean(t), np.sum(t), ... call the method with out=:
            # as in TF, NumPy computes on the host and the value leaves the tape (fact 86).
            return getattr(np, fn.__name__)(np.asarray(self), *args, **kwargs)
        return _call(fn, (self,) + args, kwargs, constant_output=constant_output)
    m.__name__ = fn.__name__ if hasattr(fn, "__name__") else "method"
    m.__doc__ = f"Recorded ``jax.numpy.{m.__name__}`` of this tensor."
    return m


for _name in ("sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin",
              "cumsum", "cumprod", "squeeze", "ravel", "clip", "dot", "conj", "round",
              "any", "all", "swapaxes", "repeat", "take", "trace", "diagonal", "nonzero",
              "argsort", "sort", "conjugate"):
    setattr(_TensorLike, _name, _method(getattr(jnp, _name), constant_output=_name == "round"))
_TensorLike.flatten = _TensorLike.ravel


def _getitem(a, idx):
    return a[idx]


def _concrete_slices(idx):
    # slice objects are opaque to pytrees; Tensor bounds inside them become ints.
    def fix(s):
        if isinstance(s, slice) and any(isinstance(b, _TensorLike) for b in (s.start, s.stop, s.step)):
            return slice(*(operator.index(b) if b is not None else None for b in (s.start, s.stop, s.step)))
        return s
    if isinstance(idx, tuple):
        return tuple(fix(s) for s in idx)
    return fix(idx)


class _Ref:
    __slots__ = ("_obj",)

    def __init__(self, obj): self._obj = obj
    def deref(self): return self._obj
    def __hash__(self): return id(self._obj)
    def __eq__(self, other): return isinstance(other, _Ref) and other._obj is self._obj


class Tensor(_TensorLike):
    """An immutable wrapper of one ``jax.Array``; what every recorded op returns.

    Identity matters: a tape tracks this object, not its value.

    >>> t = et.constant([1.0, 2.0])
    >>> t * 2
    <eagertape.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>
    """

    # _v: a jax.Array, or in fused mode a _Pending (shape and dtype known, value
    # computed with its graph when first asked for).
    __slots__ = ("_v", "__weakref__")

    def __init__(self, value):
        if isinstance(value, _TensorLike):
            value = value._read()
        elif not isinstance(value, jax.Array):
            raise TypeError(f"Tensor(value) takes a jax.Array or Tensor, got {type(value).__name__}; "
                            "use eagertape.constant(value) to convert other values")
        self._v = value

    @property
    def _value(self):
        v = self._v
        if type(v) is _Pending:
            v = self._v = v.get()
        return v

    def _read(self): return self._value
    _peek = _read

    def _aval(self): return self._v

    def __jax_array__(self):
        # jax.numpy would see only the raw value: while a tape tracks this Tensor
        # that silently cuts the gradient, so refuse instead.
        if _is_tracked(self):
            raise TypeError(
                "a Tensor recorded on an active GradientTape was passed to raw jax.numpy; "
                "use eagertape.numpy (the recorded namespace) so the gradient is kept, "
                "or .jax() to take the value off the tape on purpose")
        return self._value

    def __repr__(self):
        return (f"<eagertape.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
                f"numpy={np.asarray(self._value)!r}>")

    def __str__(self):
        return f"Tensor({np.asarray(self._value)}, shape={self.shape}, dtype={self.dtype.name})"

    def __reduce__(self):
        return (constant, (np.asarray(self._value),))


def _wrap(value):
    t = object.__new__(Tensor)
    t._v = value
    return t


class _Pending:
    """A value of a fused graph (eagertape._fused): its abstract value now, its
    array once the graph is run (``get``).

    Made only by ``_fused.pending``, field by field: graph and index (its place
    in the graph), aval ``(shape, dtype, weak_type)``, dtype (read by every
    recording tape), value (None until the graph runs).
    """

    __slots__ = ("graph", "index", "aval", "dtype", "value", "__weakref__")

    @property
    def shape(self): return self.aval[0]
    @property
    def weak_type(self): return self.aval[2]
    @property
    def ndim(self): return len(self.aval[0])

    def get(self):
        if self.value is None:
            self.graph.materialize()
        return self.value


_PY_DTYPES = {float: np.dtype(np.float32), int: np.dtype(np.int32),
              bool: np.dtype(np.bool_), complex: np.dtype(np.complex128)}


def _as_dtype(dtype):
    """A NumPy dtype from anything TF or NumPy users pass (Python types as in TF)."""
    if dtype is None:
        return None
    if dtype in _PY_DTYPES:
        return _PY_DTYPES[dtype]
    try:
        return np.dtype(getattr(dtype, "as_numpy_dtype", dtype))
    except TypeError:
        raise TypeError(f"argument `dtype`: {dtype!r} is not a dtype; pass e.g. 'float32' "
                        "or numpy.float32") from None


def _python_default_dtype(arr, value):
    # TF: Python floats become float32 and ints int32 (NumPy would say 64 bits).
    if isinstance(value, (np.ndarray, np.generic)):
        return arr
    if arr.dtype == np.float64:
        return arr.astype(np.float32)
    if arr.dtype == np.int64:
        if arr.size and (arr.max() > np.iinfo(np.int32).max or arr.min() < np.iinfo(np.int32).min):
            return arr
        return arr.astype(np.int32)
    return arr


def _to_array(value, dtype, argname):
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"argument `{argname}`: cannot convert {value!r} of type "
                        f"{type(value).__name__} to a tensor; pass numbers, nested lists "
                        "of numbers, or arrays")
    if isinstance(value, jax.Array):
        return value if dtype is None or value.dtype == dtype else value.astype(dtype)
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"argument `{argname}`: cannot convert {type(value).__name__} to a "
                        f"tensor ({e})") from None
    if arr.dtype == object or arr.dtype.kind in "USV":
        raise TypeError(f"argument `{argname}`: cannot convert a value of type "
                        f"{type(value).__name__} (NumPy dtype {arr.dtype}) to a tensor; pass "
                        "numbers, nested lists of numbers, or arrays")
    if dtype is None:
        arr = _python_default_dtype(arr, value)
    else:
        if (arr.dtype.kind == "f" and dtype.kind in "iub") or (arr.dtype.kind == "c" and dtype.kind != "c"):
            if not np.array_equal(arr.astype(dtype), arr):
                raise TypeError(f"argument `{argname}`: cannot convert {value!r} to {dtype} "
                                "without losing information; cast explicitly")
        arr = arr.astype(dtype)
    return jnp.asarray(arr)


def _contains_tensor(value):
    return any(isinstance(leaf, _TensorLike) for leaf in
               jax.tree_util.tree_leaves(value, is_leaf=lambda x: isinstance(x, _TensorLike)))


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """Convert a Python scalar, nested list, NumPy array, ``jax.Array`` or Tensor.

    A Tensor of the right dtype is returned as is (same object); a Variable is
    read (a recorded read). Python floats become float32, ints int32.

    >>> et.convert_to_tensor(1.5).dtype
    dtype('float32')
    """
    dtype = _as_dtype(dtype)
    if isinstance(value, _TensorLike):
        t = value if isinstance(value, Tensor) else value.read_value()
        if dtype is not None and t.dtype != dtype:
            if _is_inexact(t.dtype) and not _is_inexact(dtype):
                raise TypeError(f"argument `value`: a {t.dtype} tensor cannot be converted to "
                                f"{dtype} implicitly; use .astype({dtype.name!r})")
            return t.astype(dtype)
        return t
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        t = _call(jnp.asarray, (value,))
        return t if dtype is None else t.astype(dtype)
    if dtype is None and dtype_hint is not None and not isinstance(value, (np.ndarray, jax.Array)):
        try:
            return _wrap(_to_array(value, _as_dtype(dtype_hint), "value"))
        except TypeError:
            pass
    return _wrap(_to_array(value, dtype, "value"))


def constant(value, dtype=None, shape=None, name=None):
    """A Tensor from a value, like ``tf.constant``.

    >>> et.constant(3.0)
    <eagertape.Tensor: shape=(), dtype=float32, numpy=array(3., dtype=float32)>
    >>> et.constant([1, 2], dtype="float64").dtype
    dtype('float64')
    """
    t = convert_to_tensor(value, dtype)
    if shape is not None:
        shape = tuple(shape)
        if t.shape != shape:
            if t.size == 1:
                t = _wrap(jnp.broadcast_to(t._value.reshape(()), shape))
            elif t.size == int(np.prod(shape)):
                t = _wrap(t._value.reshape(shape))
            else:
                raise ValueError(f"argument `shape`: {shape} does not fit a value of shape {t.shape}")
    return t


from ._primitive import call as _call, is_tracked as _is_tracked  # noqa: E402  (cycle)
