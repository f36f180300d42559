"""Tensor operators and array methods, and TensorFlow's conversion rules.

Every operator and array method of Tensor and Variable is a recorded call
through the primitive wrapper; they are defined here, above ``_primitive``, and
installed on ``_tensor._TensorLike`` at import (as autograd's ``numpy_boxes``
gives ``ArrayBox`` its operators), so that ``_tensor`` need not import the
wrapper that imports it.

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
import operator

import jax
import jax.numpy as jnp
import numpy as np

from ._connected import reading_inputs
from ._dtypes import category, int_range, is_inexact
from ._errors import InvalidArgumentError
from ._primitive import call as _call
from ._state import x64
from ._tensor import Cotangent as _Cotangent
from ._tensor import (Tensor, _TensorLike, _as_dtype, _to_array, _wrap, is_tensor_like,
                      standin, tf_variable_error)


class _Recorded:
    """The recorded operators and methods of ``_TensorLike`` (installed below)."""

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

    # -- indexing and iteration -------------------------------------------
    def __getitem__(self, idx):
        return _call(_getitem, (self, idx if type(idx) is int else _concrete_slices(idx)))

    def __iter__(self):
        n = len(self)
        # One recorded op for all rows (not n getitems): `a, b, c, d = t` is common.
        return iter(_call(jnp.unstack, (self,)) if n else ())

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


def _bound(b):
    # A Tensor bound's int; a size JAX knows only symbolically where the Tensor
    # holds one (``_symbolic_size``: eagertape.tf's tf.shape of a None dimension).
    size = getattr(b, "_symbolic_size", None)
    return operator.index(b) if size is None else size


def _concrete_slices(idx):
    # slice objects are opaque to pytrees; Tensor bounds inside them become ints. A
    # tuple inside the index is a sequence index, as a list (NumPy's rule; JAX asserts
    # on a tuple of bools).
    def fix(s):
        if type(s) is tuple:
            return list(s)
        if isinstance(s, slice) and any(isinstance(b, _TensorLike) for b in (s.start, s.stop, s.step)):
            return slice(*(_bound(b) if b is not None else None for b in (s.start, s.stop, s.step)))
        return s
    if isinstance(idx, tuple):
        return tuple(fix(s) for s in idx)
    return fix(idx)


# -- TF's conversion of an operator's other operand ---------------------------------
# (the rules are listed in the module docstring; eagertape.tf's functions use
# _convert_operand for theirs)

# The kinds of Python values (NumPy kind letters) TF converts to a dtype of each
# category: bool < int < float < complex, never downwards (and bools to int32 and
# int64 only of the integers).
_HOLDS = {"b": "b", "i": "biu", "f": "biuf", "c": "biufc", "?": ""}
_I64 = 2 ** 63


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
    c = category(d)
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
            lo, hi = int_range(d)
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
    c = category(dtype)
    if isinstance(o, (np.ndarray, np.generic)):
        return o if o.dtype == dtype else _cast_array(o, dtype, c)
    if isinstance(o, jax.Array):
        if o.dtype == dtype:
            return o
        if category(o.dtype) == "c" and c != "c":
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
            py = [x for x in jax.tree_util.tree_leaves(o, is_leaf=is_tensor_like)
                  if not isinstance(x, _TensorLike)]
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
    if category(t._aval().dtype) == "b":
        raise InvalidArgumentError(f"{name}: TensorFlow has no bool kernel for it; cast the bool "
                                   "tensor to a number type first")


def _nonzero(t, o):
    # TF raises for an integer division by zero; a divisor known on the host (a
    # Python or NumPy value) is checked here, a tensor's is not (that would wait
    # for the device).
    if isinstance(o, (int, np.ndarray, np.generic)) and category(t._aval().dtype) == "i":
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
    c = category(d)
    if c == "b" or c == "?":
        raise TypeError(f"Invalid dtype {np.dtype(d).name} in __truediv__: TensorFlow divides "
                        "numbers only")
    if c == "i":
        f = np.dtype(np.float32) if np.dtype(d).itemsize <= 2 else np.dtype(np.float64)
        return _call(_int_true_divide, (x, y, f))
    return _call(_divide, (x, y))


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
    # TF casts a complex operand to int by its real part (`bool * 1j` is all False);
    # said explicitly, since a complex-to-real astype is deprecated in JAX.
    x, y = (jnp.real(v) if jnp.iscomplexobj(v) else jnp.asarray(v) for v in (x, y))
    return (x.astype(i32) * y.astype(i32)).astype(jnp.bool_)


def _int_true_divide(x, y, dtype):
    return _divide(jnp.asarray(x).astype(dtype), jnp.asarray(y).astype(dtype))


def _divide(x, y):
    """TF's RealDiv: each quotient rounded once. XLA's algebraic simplifier turns a
    division by a broadcast value into a multiplication by its reciprocal (two
    roundings: 1 ulp off TF's for about a fifth of the elements, which a
    positional encoding's sin(2**15 x) makes visible); an optimization barrier
    on the broadcast divisor keeps the division, at no measured cost (a 4M-element
    x / c + 1: 2.0 ms against 2.7 ms without, within noise)."""
    y = jnp.asarray(y)
    shape = jnp.broadcast_shapes(jnp.shape(x), y.shape)
    if y.shape != shape:
        y = jax.lax.optimization_barrier(jnp.broadcast_to(y, shape))
    return jnp.true_divide(x, y)


def _equality(t, o, fn, if_none):
    # TF 2: elementwise, with None a Python bool, with another shape a scalar.
    if not _TensorLike._USE_EQUALITY:
        return (t is o) != if_none          # TF 1's: object identity
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
               jax.tree_util.tree_leaves(value, is_leaf=is_tensor_like))


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """Convert a Python scalar, nested list, NumPy array, ``jax.Array`` or Tensor.

    A Tensor of the right dtype is returned as is (same object); a Variable is
    read (a recorded read). Python floats become float32, ints int32.

    >>> import eagertape as et
    >>> et.convert_to_tensor(1.5).dtype
    tf.float32
    """
    dtype = _as_dtype(dtype)
    value = standin(value)
    if isinstance(value, _TensorLike):
        t = value if isinstance(value, Tensor) else value.read_value()
        if dtype is not None and t.dtype != dtype:
            if is_inexact(t.dtype) and not is_inexact(dtype):
                raise TypeError(f"argument `value`: a {t.dtype.name} tensor cannot be converted "
                                f"to {dtype.name} implicitly; use .astype({dtype.name!r})")
            return t.astype(dtype)
        return t
    if isinstance(value, _Cotangent):       # tf.IndexedSlices: densified, as TF converts it
        t = value.dense()
        return t if dtype is None or t.dtype == dtype else t.astype(dtype)
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
    <tf.Tensor: shape=(), dtype=float32, numpy=3.0>
    >>> et.constant([1, 2], dtype="float64").dtype
    tf.float64
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


for _k, _v in list(vars(_Recorded).items()):
    if _k not in ("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                  "__firstlineno__", "__static_attributes__",
                  "__hash__"):      # None here (__eq__ is defined); _TensorLike's rule stays
        setattr(_TensorLike, _k, _v)
del _k, _v
_operators()    # the binary operators, once their helpers exist


# -- tf.experimental.numpy.experimental_enable_numpy_behavior's type promotion ------
# TF's switch is per process, and so is this one: ``promotion`` is None (TF's rule
# above: no promotion) or ``promote(t, o) -> (t, o)``, which casts a binary
# operator's two operands to their promoted dtype before the rule above sees them
# (tf.experimental.numpy sets it; the lattice lives there). The promoting operators
# are installed only while a hook is set: with none, an operator is the one above,
# with no extra call (every recorded ``x + y`` goes through it).
promotion = None
_PROMOTED = [f"__{r}{k}__" for k in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                                     "matmul", "and", "or", "xor") for r in ("", "r")]
_PROMOTED = [k for k in _PROMOTED if k in vars(_TensorLike)] + ["__lt__", "__le__", "__gt__",
                                                                "__ge__"]
_plain_operators = {k: vars(_TensorLike)[k] for k in _PROMOTED}


def _promoting(method):
    def m(self, o):
        if promotion is not None:
            self, o = promotion(self, o)
        return method(self, o)
    m.__name__, m.__qualname__, m.__doc__ = method.__name__, method.__qualname__, method.__doc__
    return m


def set_promotion(promote):
    """Set the hook (a callable or None) and the operators that follow it."""
    global promotion
    promotion = promote
    for k, plain in _plain_operators.items():
        setattr(_TensorLike, k, plain if promote is None else _promoting(plain))
