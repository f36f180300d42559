"""Tensor: an immutable, identity-carrying wrapper of one ``jax.Array``.

Tapes key their nodes on the Python object (as TF keys on the tensor id), so two
Tensors holding equal values are different sources. Every operator and array
method goes through the single primitive wrapper in ``_primitive``.
"""
import operator
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np

from ._errors import InvalidArgumentError
from ._state import x64

_INEXACT = (np.floating, np.complexfloating)


def _is_inexact(dtype):
    return jnp.issubdtype(dtype, jnp.inexact)


def standin(x):
    """``x``, or the eagertape Variable that stands for it: another library's
    variable (a Keras weight) joins the tape by having its class define
    ``_eagertape_variable``, the Variable that shares its storage."""
    return x._eagertape_variable if hasattr(type(x), "_eagertape_variable") else x


class _TensorLike:
    """Operators and array methods shared by Tensor and Variable (all recorded).

    The operators follow TensorFlow's conversion rules, in ``eagertape.tf`` and in
    the core alike (the ``eagertape.numpy`` functions keep NumPy's/JAX's
    promotion instead):

    - The other operand takes this tensor's dtype. A Python number or (nested)
      list/tuple converts only if its values are of a kind the dtype holds
      (bool < int < float < complex; bools to int32/int64 only of the integers:
      ``int32_tensor * 2.5`` and ``* 2.0`` raise TypeError; ``float32_tensor + 1``
      is float32); an integer that overflows the dtype wraps, as in TF. A NumPy
      array or scalar is cast (``float32_tensor * np.array([1., 2.])`` is float32,
      as its gradient).
    - Two tensors (Tensor or Variable) of different dtypes raise
      ``InvalidArgumentError``; no silent promotion.
    - Where TF itself differs the operator does as TF: a failed conversion for
      ``+`` is an ``InvalidArgumentError`` (TF converts with a dtype hint and
      the op then refuses); ``/`` raises TypeError for any dtype mismatch and
      divides integers in float32 (8/16-bit) or float64; ``==``/``!=`` with
      None are False/True for a Tensor (a ValueError for a Variable) and with an
      operand of another shape a scalar False/True; bool tensors take only
      ``*``, ``&``, ``|``, ``^``, ``~``, ``==``, ``!=`` (the rest raise
      ``InvalidArgumentError``); ``x * y`` with a bool tensor on either side is
      TF's ``cast(cast(x, int32) * cast(y, int32), bool)`` (no gradient);
      integer ``//`` and ``%`` by a zero known on the host (a Python or NumPy
      value) raise InvalidArgumentError; ``**`` refuses unsigned integers.

    Kept differences from TF (quirks, not rules): TF's ``|`` raises
    AttributeError where the conversion fails (its fallback to ``y.__ror__``),
    and ``bool_tensor / numpy_array`` falls back to NumPy there; eagertape raises
    the conversion's error.
    """

    if TYPE_CHECKING:
        # Set by _operators() below (TF's conversion rules); declared so that type
        # checkers accept Tensor arithmetic.
        def __add__(self, other: Any) -> "Tensor": ...
        def __radd__(self, other: Any) -> "Tensor": ...
        def __sub__(self, other: Any) -> "Tensor": ...
        def __rsub__(self, other: Any) -> "Tensor": ...
        def __truediv__(self, other: Any) -> "Tensor": ...
        def __rtruediv__(self, other: Any) -> "Tensor": ...
        def __floordiv__(self, other: Any) -> "Tensor": ...
        def __rfloordiv__(self, other: Any) -> "Tensor": ...
        def __mod__(self, other: Any) -> "Tensor": ...
        def __rmod__(self, other: Any) -> "Tensor": ...
        def __pow__(self, other: Any) -> "Tensor": ...
        def __rpow__(self, other: Any) -> "Tensor": ...
        def __matmul__(self, other: Any) -> "Tensor": ...
        def __rmatmul__(self, other: Any) -> "Tensor": ...
        def __and__(self, other: Any) -> "Tensor": ...
        def __rand__(self, other: Any) -> "Tensor": ...
        def __or__(self, other: Any) -> "Tensor": ...
        def __ror__(self, other: Any) -> "Tensor": ...
        def __xor__(self, other: Any) -> "Tensor": ...
        def __rxor__(self, other: Any) -> "Tensor": ...

    __slots__ = ()
    # Make NumPy defer binary operators (np_array * t) to our reflected methods,
    # as tf.Tensor does, instead of converting the Tensor to an ndarray.
    __array_priority__ = 100

    # -- arithmetic (TF's conversion of the other operand: _operand; the
    # forward/reflected pairs are made by _operators below) -------------------
    def __mul__(self, o):
        p = _operand(self, o, "__rmul__", bool_mul=True)
        if p is NotImplemented:
            return p
        if p is _BOOL_MUL:
            return _bool_multiply(self, o)
        return _call(jnp.multiply, (self, p))

    def __rmul__(self, o):
        o = _operand(self, o, None)
        return o if o is NotImplemented else _call(jnp.multiply, (o, self))

    def __neg__(self):
        _no_bool(self, "negative")
        return _call(jnp.negative, (self,))

    def __pos__(self): return _call(jnp.positive, (self,))

    def __abs__(self):
        _no_bool(self, "abs")
        return _call(jnp.abs, (self,))

    def __invert__(self): return _call(jnp.invert, (self,))

    def __lshift__(self, o): return _call(jnp.left_shift, (self, o))
    def __rshift__(self, o): return _call(jnp.right_shift, (self, o))

    # -- comparisons (elementwise, as in TF 2; hence unhashable) ---------
    def __eq__(self, o): return _equality(self, o, jnp.equal, False)
    def __ne__(self, o): return _equality(self, o, jnp.not_equal, True)

    def __lt__(self, o):
        o = _operand(self, o, "__gt__", no_bool=True)
        return o if o is NotImplemented else _call(jnp.less, (self, o))

    def __le__(self, o):
        o = _operand(self, o, "__ge__", no_bool=True)
        return o if o is NotImplemented else _call(jnp.less_equal, (self, o))

    def __gt__(self, o):
        o = _operand(self, o, "__lt__", no_bool=True)
        return o if o is NotImplemented else _call(jnp.greater, (self, o))

    def __ge__(self, o):
        o = _operand(self, o, "__le__", no_bool=True)
        return o if o is NotImplemented else _call(jnp.greater_equal, (self, o))

    __hash__ = None

    def ref(self):
        """A hashable reference to this object (as ``tf.Tensor.ref()``), for dict keys.

        >>> import eagertape as et
        >>> t = et.constant([1.0, 2.0])
        >>> d = {t.ref(): "weights"}
        >>> d[t.ref()], t.ref().deref() is t
        ('weights', True)
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
        v = self._read()
        if isinstance(v, jax.core.Tracer):
            raise TypeError(
                "a Python `if`, `while` or `and`/`or` on a Tensor whose value is traced by "
                "tf.function (eagertape.function): eagertape does not rewrite Python control "
                "flow into graph ops as TF's AutoGraph does. Use tf.cond / tf.while_loop (or "
                "jax.lax.cond), compute the condition from Python values, or run the function "
                "eagerly (tf.config.run_functions_eagerly(True))")
        return bool(v)

    def __array__(self, dtype=None, copy=None):
        a = np.asarray(self._read())
        return a if dtype is None else a.astype(dtype, copy=False)

    def __format__(self, spec):
        v = self._read()
        if isinstance(v, jax.core.Tracer):      # inside a trace: no value to format
            return format(str(self), spec)
        v = np.asarray(v)
        return format(v.item() if v.ndim == 0 else v, spec) if spec else str(self)

    def numpy(self):
        """The value as a NumPy array (a copy on the host).

        >>> import eagertape as et
        >>> et.constant([1.0, 2.0]).numpy()
        array([1., 2.], dtype=float32)
        """
        return np.asarray(self._read())

    def jax(self):
        """The underlying ``jax.Array``: no copy, device and sharding kept.

        >>> import jax
        >>> import eagertape as et
        >>> a = et.constant([1.0, 2.0]).jax()
        >>> isinstance(a, jax.Array), a.dtype
        (True, dtype('float32'))
        """
        return self._read()

    # Shape and dtype come from the abstract value: a pending (fused) Tensor
    # knows them without being computed.
    @property
    def shape(self): return _new_shape(TensorShape, self._aval().shape)
    @property
    def dtype(self): return np.dtype(self._aval().dtype)
    @property
    def ndim(self): return len(self._aval().shape)
    @property
    def size(self): return int(np.prod(self._aval().shape, dtype=np.int64))


def _binary(name, fn, fail=TypeError, rfail=TypeError, mismatch=InvalidArgumentError,
            no_bool=False, check=None, rcheck=None, constant_output=False, apply=None):
    """The forward and reflected methods of operator ``name`` (``"add"`` gives
    ``__add__`` and ``__radd__``): the other operand converted by ``_operand``,
    then ``check``/``rcheck`` (forward/reflected) applied to it, then ``fn``
    recorded (or ``apply(a, b, self)``)."""
    if apply is None:
        def apply(a, b, t):
            return _call(fn, (a, b), constant_output=constant_output)

    def forward(self, o):
        o = _operand(self, o, f"__r{name}__", fail, mismatch, no_bool)
        if o is NotImplemented:
            return o
        return apply(self, check(self, o) if check else o, self)

    def reflected(self, o):
        o = _operand(self, o, None, rfail, mismatch, no_bool)
        if o is NotImplemented:
            return o
        return apply(rcheck(self, o) if rcheck else o, self, self)
    forward.__name__, reflected.__name__ = f"__{name}__", f"__r{name}__"
    setattr(_TensorLike, forward.__name__, forward)
    setattr(_TensorLike, reflected.__name__, reflected)


def _operators():
    # TF: a failed conversion for + is InvalidArgumentError (converted with a
    # dtype hint, then refused by the op); / is TypeError on any mismatch.
    _binary("add", jnp.add, fail=InvalidArgumentError, no_bool=True)
    _binary("sub", jnp.subtract, no_bool=True)
    _binary("truediv", None, mismatch=TypeError, apply=_true_divide)
    # TF registers no gradient for FloorDiv: recorded with none, as tnp.floor_divide.
    _binary("floordiv", jnp.floor_divide, no_bool=True, check=_nonzero, constant_output=True)
    _binary("mod", jnp.mod, no_bool=True, check=_nonzero)
    # TF's Pow gradient reads x at every order (y * x ** (y - 1)); JAX's x ** 2 is
    # integer_pow, whose second derivative no longer does (a third would be None).
    from ._connected import reading_inputs
    _binary("pow", reading_inputs(jnp.power), no_bool=True, check=_no_unsigned,
            rcheck=_no_unsigned)
    _binary("matmul", jnp.matmul, no_bool=True)
    _binary("and", jnp.bitwise_and)
    _binary("or", jnp.bitwise_or)
    _binary("xor", jnp.bitwise_xor)


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


def _dim(d, dims):
    if d is None:
        return None
    try:
        v = operator.index(d)
    except TypeError:
        v = getattr(d, "value", d)      # a TF Dimension
        if v is not None and not isinstance(v, int):
            raise TypeError(f"Failed to convert {dims!r} to a shape: {d!r} could not be "
                            "converted to a dimension (an int, None, or a value with "
                            "__index__)") from None
    if v is not None and v < 0:
        raise ValueError(f"Dimension {v} must be >= 0")
    return v


class TensorShape(tuple):
    """``tf.TensorShape``: a tuple of ints (None for a size not known) with TF's
    methods; what ``Tensor.shape`` and ``Variable.shape`` return. Being a tuple,
    it goes wherever a shape tuple goes (``jnp.zeros(x.shape)``, unpacking,
    hashing); ``==`` also takes a list, as TF's. ``TensorShape(None)`` is a
    shape of unknown rank (``rank`` None; ``len`` and iteration raise).

    Kept difference from TF: ``bool(shape)`` is the tuple's (False for a
    scalar's ``()``), where TF's is True for any known rank; core code tests
    shapes so. Use ``shape.rank is not None`` for TF's meaning.

    >>> import eagertape.tf as tf
    >>> x = tf.zeros([2, 3])
    >>> x.shape, x.shape.as_list(), x.shape.rank, x.shape[1:], x.shape == [2, 3]
    (TensorShape([2, 3]), [2, 3], 2, TensorShape([3]), True)
    >>> tf.TensorShape([None, 3]).merge_with([4, None])
    TensorShape([4, 3])
    """

    __slots__ = ()

    def __new__(cls, dims=()):
        if dims is None:
            return tuple.__new__(_UnknownShape)
        if isinstance(dims, TensorShape):
            return dims
        if isinstance(dims, (list, tuple)):
            pass
        else:
            try:
                dims = list(dims)
            except TypeError:
                dims = [dims]       # one dimension
        return tuple.__new__(TensorShape, [_dim(d, dims) for d in dims])

    def __getnewargs__(self):
        return (None if self.rank is None else tuple(self),)

    # -- TF's accessors ---------------------------------------------------------
    @property
    def rank(self):
        """The number of dimensions (None for an unknown rank)."""
        return tuple.__len__(self)

    ndims = rank

    @property
    def dims(self):
        """The dimensions as a list (ints, None where unknown); None for an unknown rank."""
        return None if self.rank is None else list(self)

    def as_list(self):
        """The dimensions as a list of ints (None where unknown)."""
        if self.rank is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(tuple.__iter__(self))

    def num_elements(self):
        """The number of elements, or None if a dimension is not known."""
        if not self.is_fully_defined():
            return None
        n = 1
        for d in tuple.__iter__(self):
            n *= d
        return n

    def is_fully_defined(self):
        return self.rank is not None and None not in tuple.__iter__(self)

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def __getitem__(self, key):
        if isinstance(key, slice):
            return tuple.__new__(TensorShape, tuple.__getitem__(self, key))
        return tuple.__getitem__(self, key)

    # -- comparing and combining ---------------------------------------------------
    def __eq__(self, other):
        # As TF's: anything that converts to a shape (a list, an int, an array).
        if not isinstance(other, tuple) or type(other) is not TensorShape:
            if isinstance(other, str):
                return NotImplemented
            try:
                other = TensorShape(other)
            except (TypeError, ValueError):
                return NotImplemented
        return self.rank == other.rank and tuple.__eq__(self, other)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = tuple.__hash__

    def is_compatible_with(self, other):
        """True if some fully defined shape is both ``self`` and ``other`` (None
        dimensions and an unknown rank match anything)."""
        other = TensorShape(other)
        if self.rank is None or other.rank is None:
            return True
        return self.rank == other.rank and all(
            a is None or b is None or a == b for a, b in zip(self, other))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {TensorShape(other)} are incompatible")

    def most_specific_compatible_shape(self, other):
        other = TensorShape(other)
        if self.rank is None or other.rank is None or self.rank != other.rank:
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self, other)])

    def merge_with(self, other):
        """The shape with the dimensions known in either (ValueError where both
        know different ones)."""
        other = TensorShape(other)
        if self.rank is None:
            return other
        if other.rank is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([b if a is None else a for a, b in zip(self, other)])

    def concatenate(self, other):
        other = TensorShape(other)
        if self.rank is None or other.rank is None:
            return TensorShape(None)
        return tuple.__new__(TensorShape, tuple(self) + tuple(other))

    # A tuple's + where the other is no shape: code builds reshape targets as
    # ``x.shape[:k] + (-1,)``.
    def __add__(self, other):
        try:
            return self.concatenate(other)
        except (TypeError, ValueError):
            return tuple(self) + other

    def __radd__(self, other):
        try:
            return TensorShape(other).concatenate(self)
        except (TypeError, ValueError):
            return other + tuple(self)

    def assert_same_rank(self, other):
        other = TensorShape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank):
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank):
        if self.rank is None:
            return TensorShape([None] * rank)
        if self.rank != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank):
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        if self.rank is not None and self.rank > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def __repr__(self):
        return f"TensorShape({list(tuple.__iter__(self))})"

    __str__ = tuple.__repr__


class _UnknownShape(TensorShape):
    """``TensorShape(None)``: the rank is not known (an empty tuple underneath)."""

    __slots__ = ()

    rank = ndims = None

    def __len__(self):
        raise ValueError("Cannot take the length of shape with unknown rank.")

    def __iter__(self):
        raise ValueError("Cannot iterate over a shape with unknown rank.")

    def __getitem__(self, key):
        if not isinstance(key, slice):
            return None
        if key.step is not None:
            raise ValueError("Steps are not yet handled")
        start = 0 if key.start is None else key.start
        if key.stop is None or start < 0 or key.stop < 0:
            return TensorShape(None)
        return TensorShape([None] * (key.stop - start))

    def __eq__(self, other):
        return other is None or isinstance(other, _UnknownShape) or (
            False if isinstance(other, (list, tuple)) else NotImplemented)

    def __hash__(self):
        return hash(None)

    def __repr__(self):
        return "TensorShape(None)"

    def __str__(self):
        return "<unknown>"


_new_shape = tuple.__new__
# A shape flattens as the tuple it was (its ints are leaves), so the pytrees
# of the core and of JAX see no change; rebuilt unchecked (leaves may be traced).
jax.tree_util.register_pytree_node(
    TensorShape, lambda s: (tuple(s), None), lambda _, c: _new_shape(TensorShape, c))
jax.tree_util.register_pytree_node(
    _UnknownShape, lambda s: ((), None), lambda _, c: _new_shape(_UnknownShape))


class Tensor(_TensorLike):
    """An immutable wrapper of one ``jax.Array``; what every recorded op returns.

    Identity matters: a tape tracks this object, not its value.

    >>> import eagertape as et
    >>> t = et.constant([1.0, 2.0])
    >>> t * 2
    <eagertape.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>

    NumPy's array methods (``sum``, ``mean``, ``reshape``, ``T``, ``astype``, ...)
    are recorded ops too; ``shape``, ``dtype``, ``ndim`` and ``size`` are read off:

    >>> t.reshape(2, 1).T.shape, t.mean().numpy(), t.astype("int32").dtype
    (TensorShape([1, 2]), array(1.5, dtype=float32), dtype('int32'))
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

    # -- handing the value to JAX and to DLPack consumers (eagertape.interop) --
    def __jax_array__(self):
        # jax.numpy sees only the raw value: while a tape tracks this Tensor that
        # would silently cut the gradient, so _for_jax refuses instead.
        return _for_jax(self, "passed to raw JAX (jnp.asarray, a jax.numpy function)")

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """The value's buffer for ``np.from_dlpack(t)``, ``jnp.from_dlpack(t)``,
        ``torch.from_dlpack(t)``: no copy, its dtype as is (float64 too)."""
        _refuse_tracked(self, "exported by DLPack")
        return _dlpack(self._value, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return self._value.__dlpack_device__()

    def __repr__(self):
        return (f"<eagertape.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
                f"numpy={_shown(self._value, repr)}>")

    def __str__(self):
        return f"Tensor({_shown(self._value, str)}, shape={self.shape}, dtype={self.dtype.name})"

    def __reduce__(self):
        return (constant, (np.asarray(self._value),))


def _shown(value, how):
    """The value as printed; a value spread over other processes' devices (a
    multi-process global array) cannot be fetched here, and printing must not fail."""
    if isinstance(value, jax.Array) and not value.is_fully_addressable:
        n = len({d.process_index for d in value.sharding.device_set})
        return f"<sharded over {n} processes: {value.sharding}>"
    return how(np.asarray(value))


def _wrap(value):
    t = object.__new__(Tensor)
    t._v = value
    return t


# -- JAX interop (eagertape.interop's module docstring says why) ----------------------
from ._state import state as _state  # noqa: E402

def _canonical(v):
    """``v`` as JAX holds a NumPy array of its dtype in the current mode: with
    ``jax_enable_x64`` off (on this thread), float64/int64/uint64/complex128 become
    their 32-bit types, as ``jnp.asarray(np.float64(1))`` does; otherwise ``v``."""
    dt = getattr(v, "dtype", None)
    if dt is None or dt.itemsize < 8:      # 32-bit and smaller: canonical in any mode
        return v
    c = jax.dtypes.canonicalize_dtype(dt)
    return v if c == dt else v.astype(c)


def _tracked(t):
    """Whether a recording GradientTape or an active ForwardAccumulator tracks ``t``."""
    if _is_tracked(t):
        return True
    for acc in _state.hot.accumulators:
        e = acc._tangents.get(id(t))
        if e is not None and e[0] is t:
            return True
    return False


def _refusal(what, how):
    return TypeError(
        f"{what} that a recording GradientTape (or ForwardAccumulator) tracks was {how}: "
        "that code would see only its value, and the gradient would silently stop there. "
        "Compute with eagertape's recorded ops instead (use eagertape.numpy or tf.* "
        "functions, eagertape.function for compiled code), or take the value off the tape "
        "on purpose: eagertape.stop_gradient(x) (a nest too), x.jax(), x.numpy(), or run "
        "the JAX code outside the tape (`with tape.stop_recording():`)")


def _refuse_tracked(t, how):
    if _tracked(t):
        raise _refusal("a Tensor", how)


def _for_jax(t, how):
    """The array JAX gets for Tensor ``t`` (pending values computed, 64-bit dtypes
    canonicalized as for a NumPy array), or the refusal for a tracked ``t``."""
    _refuse_tracked(t, how)
    return _canonical(t._value)


def _dlpack(v, stream, max_version, dl_device, copy):
    # Only what the consumer asked for: older jax.Array.__dlpack__ take fewer keywords.
    kw = {k: a for k, a in (("max_version", max_version), ("dl_device", dl_device),
                            ("copy", copy)) if a is not None}
    return v.__dlpack__(stream=stream, **kw)


def _flatten_tensor(t):
    # A pytree node with one child, its array, so jax.jit, jax.vmap, jax.grad,
    # jax.device_put and jax.numpy's jitted functions take Tensors. JAX also
    # rebuilds nodes around placeholders (vmap's axes), hence no dtype assumed.
    _refuse_tracked(t, "flattened by jax.tree_util (an argument of jax.jit, jax.vmap, "
                    "jax.device_put or a jax.numpy function, a leaf of tree_map)")
    v = t._v
    if type(v) is _Pending:
        v = t._value
    return (_canonical(v),), None


def _unflatten_tensor(_, children):
    c = children[0]
    # A function mapped over the leaves may give a Tensor back (tree_map(f, t)
    # with f an eagertape op): that Tensor, not a Tensor of a Tensor.
    return c if isinstance(c, _TensorLike) else _wrap(c)


jax.tree_util.register_pytree_node(Tensor, _flatten_tensor, _unflatten_tensor)


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


def tf_variable_error(value, where):
    """The error for a variable of real TensorFlow (``import tensorflow``) given
    to eagertape, or None for anything else. Read as a constant, its gradient
    would silently never come and its updates would never be seen."""
    tp = type(value)
    if "Variable" in tp.__name__ and tp.__module__.startswith("tensorflow"):
        return TypeError(
            f"{where}: tf.Variable {getattr(value, 'name', '')!r} is a variable of TensorFlow itself (made "
            "under `import tensorflow`), which eagertape's tapes cannot watch or update; "
            "make it with eagertape.tf.Variable (write `import eagertape.tf as tf` in every "
            "module of the program), or pass its value with .numpy()")
    return None


@x64
def _to_array(value, dtype, argname):
    e = tf_variable_error(value, f"argument `{argname}`")
    if e is not None:
        raise e
    if value is None:     # TF's class: a ValueError
        raise ValueError(f"argument `{argname}`: Attempt to convert a value (None) with an "
                         "unsupported type (<class 'NoneType'>) to a Tensor; pass numbers, "
                         "nested lists of numbers, or arrays")
    if isinstance(value, (str, bytes)):
        raise TypeError(f"argument `{argname}`: cannot convert {value!r} of type "
                        f"{type(value).__name__} to a tensor (eagertape has no string "
                        "tensors); pass numbers, nested lists of numbers, or arrays")
    if isinstance(value, jax.Array):
        return value if dtype is None or value.dtype == dtype else value.astype(dtype)
    try:
        arr = np.asarray(value)
    except ValueError as e:    # a ragged list: TF's class too
        raise ValueError(f"argument `{argname}`: cannot convert {type(value).__name__} to a "
                         f"tensor ({e}); a nested list must be rectangular") from None
    except TypeError as e:
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
            # TF takes no Python float as an integer, even 2.0; NumPy arrays cast
            # when nothing is lost.
            python = not isinstance(value, (np.ndarray, np.generic))
            if python or not np.array_equal(arr.astype(dtype), arr):
                raise TypeError(f"argument `{argname}`: cannot convert {value!r} to {dtype} "
                                "without losing information; cast explicitly")
        arr = arr.astype(dtype)
    return jnp.asarray(arr)


# -- TF's conversion of an operator's other operand ---------------------------------
# (the rules are listed in _TensorLike's docstring; eagertape.tf's functions use
# _convert_operand for theirs)

_CATEGORIES: dict = {}
# The kinds of Python values (NumPy kind letters) TF converts to a dtype of each
# category: bool < int < float < complex, never downwards (and bools to int32 and
# int64 only of the integers).
_HOLDS = {"b": "b", "i": "biu", "f": "biuf", "c": "biufc", "?": ""}
_INT_RANGES: dict = {}
_I64 = 2 ** 63


def _category(dtype):
    """'b' bool, 'i' integer, 'f' floating (bfloat16 too), 'c' complex, '?' other."""
    c = _CATEGORIES.get(dtype)
    if c is None:
        d = np.dtype(dtype)
        if d == np.bool_:
            c = "b"
        elif np.issubdtype(d, np.integer):
            c = "i"
        elif np.issubdtype(d, np.complexfloating):
            c = "c"
        elif _is_inexact(d):
            c = "f"
        else:
            c = "?"
        _CATEGORIES[dtype] = c
    return c


def _int_range(dtype):
    r = _INT_RANGES.get(dtype)
    if r is None:
        info = np.iinfo(dtype)
        r = _INT_RANGES[dtype] = (int(info.min), int(info.max))
    return r


def _mismatch(want, got, fail):
    return fail(f"an operand of dtype {np.dtype(got).name} cannot be combined with a tensor of "
                f"dtype {np.dtype(want).name}: as in TensorFlow, tensors of different dtypes are "
                f"not promoted; cast one first (tf.cast(x, {np.dtype(want).name!r}) or "
                f".astype({np.dtype(want).name!r}))")


_BOOL_MUL = object()     # _operand's answer for TF's bool multiplication


def _operand(t, o, reflected, fail=TypeError, mismatch=InvalidArgumentError, no_bool=False,
             bool_mul=False):
    """``o``, the other operand of an operator of ``t``, converted as TF converts it
    to ``t``'s dtype. Python scalars that fit stay Python scalars (JAX keeps the
    tensor's dtype for them, and the recorded call stays one cached kind).

    ``reflected``: the name of ``o``'s reflected method, for a forward operator
    (an unknown object that has it gets the call: NotImplemented); ``fail``:
    the error of a failed conversion; ``mismatch``: that of two tensor dtypes;
    ``no_bool``: the operator has no bool kernel in TF; ``bool_mul``: for ``*``,
    answer _BOOL_MUL when either side is a bool tensor.
    """
    d = t._aval().dtype
    c = _CATEGORIES.get(d) or _category(d)
    if no_bool and c == "b":
        o = _operand(t, o, reflected, fail, mismatch)     # a failed conversion comes first
        if o is not NotImplemented:
            raise InvalidArgumentError("TensorFlow has no bool kernel for this operator; cast "
                                       "the bool tensor to a number type first")
        return o
    if bool_mul and c == "b":
        return _BOOL_MUL
    tp = type(o)
    if tp is Tensor:
        od = o._v.dtype
        if od == d:
            return o
        if bool_mul and od == np.bool_:
            return _BOOL_MUL
        raise _mismatch(d, od, mismatch)
    if tp is float:
        if c == "f" or c == "c":
            return o
    elif tp is int:
        if c == "f" or c == "c":
            return o if -_I64 <= o < _I64 else float(o)
        if c == "i":
            lo, hi = _int_range(d)
            if lo <= o <= hi:
                return o
    elif tp is bool:
        if c != "i" or d == np.int32 or d == np.int64:
            if c != "?":
                return o
    elif tp is complex:
        if c == "c":
            return o
    elif bool_mul and isinstance(o, _TensorLike) and o._aval().dtype == np.bool_:
        return _BOOL_MUL
    return _convert_operand(o, d, fail, mismatch, reflected)


def _convert_operand(o, dtype, fail=TypeError, mismatch=InvalidArgumentError, reflected=None):
    """A non-Tensor ``o`` as TF converts it to ``dtype`` (a Tensor or Variable is
    returned as is if its dtype is ``dtype``, else ``mismatch`` is raised):

    - a NumPy array or scalar, or a raw ``jax.Array``, is cast (lossy, as TF);
    - a Python number or (nested) list/tuple of them converts only if ``dtype``
      holds its kind of values (bool < int < float < complex), else ``fail``
      (TF: "Cannot convert 2.5 to EagerTensor of dtype int32"); an integer that
      overflows the dtype wraps, as in TF;
    - a list holding Tensors is stacked (recorded) and cast;
    - None, ragged lists and other objects raise ValueError (TF's class).

    Returns a NumPy array of ``dtype`` (or the Tensor).
    """
    dtype = np.dtype(dtype)
    o = standin(o)
    if isinstance(o, _TensorLike):
        od = o._aval().dtype
        if od == dtype:
            return o
        raise _mismatch(dtype, od, mismatch)
    c = _category(dtype)
    if isinstance(o, (np.ndarray, np.generic)):
        return o if o.dtype == dtype else _cast_array(o, dtype, c)
    if isinstance(o, jax.Array):
        if o.dtype == dtype:
            return o
        if _category(o.dtype) == "c" and c != "c":
            o = jnp.real(o)
        return o.astype(dtype)
    if o is None:
        raise ValueError("Attempt to convert a value (None) with an unsupported type "
                         "(NoneType) to a Tensor")
    e = tf_variable_error(o, "an operand")
    if e is not None:
        raise e
    if isinstance(o, (list, tuple)):
        if _contains_tensor(o):
            # Its Python numbers convert as any (strictly), its tensors are cast.
            py = [x for x in jax.tree_util.tree_leaves(o, is_leaf=lambda x: isinstance(
                x, _TensorLike)) if not isinstance(x, _TensorLike)]
            if py:
                _convert_operand(py, dtype, fail, mismatch)
            packed = convert_to_tensor(o)
            return packed if packed.dtype == dtype else packed.astype(dtype)
        try:
            arr = np.asarray(o)
        except (ValueError, TypeError, OverflowError):
            raise ValueError(f"cannot convert {type(o).__name__} {o!r} to a tensor: a "
                             "non-rectangular sequence, or one of values that are not numbers "
                             "(TF: \"Can't convert non-rectangular Python sequence to Tensor\")"
                             ) from None
    elif isinstance(o, (bool, int, float, complex)):
        try:
            arr = np.asarray(o)
        except OverflowError:
            raise ValueError(f"cannot convert {o!r} to a tensor: an integer out of range") from None
    elif isinstance(o, (str, bytes)):
        raise fail(f"Cannot convert {o!r} to a tensor of dtype {dtype.name}")
    else:
        if reflected is not None and hasattr(type(o), reflected):
            return NotImplemented
        raise ValueError(f"Attempt to convert a value ({o!r}) with an unsupported type "
                         f"({type(o).__name__}) to a Tensor")
    kind = arr.dtype.kind
    if kind not in "biufc":
        if kind in "USa":
            raise fail(f"Cannot convert {o!r} to a tensor of dtype {dtype.name}")
        raise ValueError(f"cannot convert {o!r} to a tensor: its values are not all numbers")
    holds = _HOLDS[c] if c != "i" or dtype in (np.int32, np.int64) else "iu"
    if arr.size and kind not in holds:
        raise fail(f"Cannot convert {o!r} to a tensor of dtype {dtype.name}: TensorFlow converts "
                   f"a Python value to a tensor's dtype only without loss (bool < int < float < "
                   f"complex); write it as a {dtype.name} value, or cast the tensor")
    return arr.astype(dtype)


def _cast_array(a, dtype, c):
    if a.dtype.kind == "c" and c != "c":
        a = a.real      # TF casts a complex NumPy array to a real dtype by its real part
    with np.errstate(invalid="ignore", over="ignore"):
        return np.asarray(a).astype(dtype)


def _no_bool(t, name):
    if _category(t._aval().dtype) == "b":
        raise InvalidArgumentError(f"{name}: TensorFlow has no bool kernel for it; cast the bool "
                                   "tensor to a number type first")


def _nonzero(t, o):
    # TF raises for an integer division by zero; a divisor known on the host (a
    # Python or NumPy value) is checked here, a tensor's is not (that would wait
    # for the device).
    if isinstance(o, (int, np.ndarray, np.generic)) and _category(t._aval().dtype) == "i":
        if not np.all(o):
            raise InvalidArgumentError("Integer division by zero")
    return o


def _no_unsigned(t, o):
    if np.dtype(t._aval().dtype).kind == "u":
        raise InvalidArgumentError(f"pow: TensorFlow has no kernel for {t.dtype.name} (Pow "
                                   "takes floats, complex and signed integers); cast first")
    return o


def _true_divide(x, y, t):
    """``x / y`` for an operator of ``t`` (operands converted already): TF's truediv,
    which divides integers in float32 (8- and 16-bit) or float64 (wider)."""
    d = t._aval().dtype
    c = _category(d)
    if c == "b" or c == "?":
        raise TypeError(f"Invalid dtype {np.dtype(d).name} in __truediv__: TensorFlow divides "
                        "numbers only")
    if c == "i":
        f = np.dtype(np.float32) if np.dtype(d).itemsize <= 2 else np.dtype(np.float64)
        return _call(_int_true_divide, (x, y, f))
    return _call(jnp.true_divide, (x, y))


def _bool_multiply(x, y):
    # TF's Tensor.__mul__ with a bool tensor: both sides cast to int32 (a Python
    # value converted by default first: 0.5 -> 0), multiplied, cast to bool.
    if not isinstance(y, (_TensorLike, np.ndarray, np.generic, jax.Array)):
        if y is None:
            raise ValueError("Attempt to convert a value (None) with an unsupported type "
                             "(NoneType) to a Tensor")
        try:
            y = convert_to_tensor(y)
        except TypeError:
            if isinstance(y, (list, tuple)):    # ragged: TF's class for it
                raise ValueError(f"cannot convert {y!r} to a tensor: a non-rectangular "
                                 "sequence") from None
            raise
    return _call(_bool_product, (x, y), constant_output=True)


def _bool_product(x, y):
    i32 = jnp.int32
    return (jnp.asarray(x).astype(i32) * jnp.asarray(y).astype(i32)).astype(jnp.bool_)


def _int_true_divide(x, y, dtype):
    return jnp.true_divide(jnp.asarray(x).astype(dtype), jnp.asarray(y).astype(dtype))


def _equality(t, o, fn, if_none):
    # TF 2: elementwise, with None a Python bool, with another shape a scalar.
    if o is None:
        if isinstance(t, Tensor):
            return if_none
        raise ValueError("Attempt to convert a value (None) with an unsupported type "
                         "(NoneType) to a Tensor")     # TF's Variable.__eq__
    o = _operand(t, o, None)
    s1, s2 = t.shape, getattr(o, "shape", ())
    if s1 != s2 and s1 and s2:
        try:
            np.broadcast_shapes(s1, tuple(s2))
        except ValueError:
            return _wrap(jnp.asarray(if_none))
    return _call(fn, (t, o))


def _contains_tensor(value):
    return any(isinstance(leaf, _TensorLike) for leaf in
               jax.tree_util.tree_leaves(value, is_leaf=lambda x: isinstance(x, _TensorLike)))


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """Convert a Python scalar, nested list, NumPy array, ``jax.Array`` or Tensor.

    A Tensor of the right dtype is returned as is (same object); a Variable is
    read (a recorded read). Python floats become float32, ints int32.

    >>> import eagertape as et
    >>> et.convert_to_tensor(1.5).dtype
    dtype('float32')
    """
    dtype = _as_dtype(dtype)
    value = standin(value)
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


@x64
def constant(value, dtype=None, shape=None, name=None):
    """A Tensor from a value, like ``tf.constant``.

    >>> import eagertape as et
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
_operators()    # the binary operators, once their helpers exist
