"""``tf.experimental.numpy`` on the recorded ``jax.numpy`` (``eagertape.numpy``):
TF's 228 NumPy names, each the recorded JAX function of that name (so the tape
differentiates it), taking and returning the facade's Tensor (``ndarray``).

Dtypes follow TF-NumPy's (NumPy's legacy rules): float64 by default, integers
made float64 by the float functions (``sqrt``, ``mean``, ``true_divide``, ...),
and arrays of two dtypes promoted as NumPy does (int32 + float32 is float64),
where JAX would stay in float32. ``experimental_enable_numpy_behavior()`` makes
the operators of all Tensors promote by TF's lattice (see its docstring).

>>> import eagertape.tf as tf
>>> tnp = tf.experimental.numpy
>>> tnp.asarray([1.0, 2.0]).dtype, tnp.mean(tnp.asarray([1, 2])).numpy()
(tf.float64, np.float64(1.5))
"""
import functools as _functools
import types as _types

import jax as _jax
import jax.numpy as _jnp
import numpy as _onp

from ... import numpy as _np
from ...extend import Tensor as ndarray  # noqa: F401
from ...extend import operator_promotion as _operator_promotion
from ...extend import TensorLike as _TensorLike, convert_to_tensor as _convert_to_tensor
from .._util import _Unsupported

# TF's names (TF 2.21) that are the recorded JAX function of the same name.
_SAME = """abs absolute add all allclose amax amin angle any append arange arccos arccosh
arcsin arcsinh arctan arctan2 arctanh argmax argmin argsort around array array_equal
asarray atleast_1d atleast_2d atleast_3d average bitwise_and bitwise_not bitwise_or
bitwise_xor bool_ broadcast_arrays broadcast_to cbrt ceil clip complex128 complex64
compress concatenate conj conjugate copy cos cosh count_nonzero cross cumprod cumsum
deg2rad diag diag_indices diagflat diagonal diff divide divmod dot dsplit dstack e einsum
empty empty_like equal exp exp2 expand_dims expm1 eye fabs finfo flip fliplr flipud
float16 float32 float64 float_power floor floor_divide full full_like gcd geomspace greater
greater_equal heaviside hsplit hstack hypot identity iinfo imag inexact inf inner int16
int32 int64 int8 isclose iscomplex iscomplexobj isfinite isinf isnan isneginf isposinf
isreal isrealobj isscalar issubdtype ix_ kron lcm less less_equal linspace log log10 log1p
log2 logaddexp logaddexp2 logical_and logical_not logical_or logical_xor logspace matmul
max maximum mean meshgrid min minimum mod moveaxis multiply nanmean nanprod nansum ndim
negative newaxis nextafter nonzero not_equal ones ones_like outer pad pi polyval positive
power prod promote_types ptp rad2deg ravel real reciprocal remainder repeat reshape
result_type roll rot90 round select shape sign signbit sin sinc sinh size sort split sqrt
square squeeze stack std subtract sum swapaxes take take_along_axis tan tanh tensordot tile
trace transpose tri tril triu true_divide uint16 uint32 uint64 uint8 vander var vdot vsplit
vstack where zeros zeros_like""".split()

globals().update({n: getattr(_np, n) for n in _SAME})

# TF-NumPy's scalar types are NumPy's own (``tnp.float64(0.3)`` is a NumPy float64);
# JAX's of the same names make 32-bit arrays while JAX's 64-bit types are off.
globals().update({n: getattr(_onp, n) for n in """bool_ complex128 complex64 float16 float32
float64 inexact int16 int32 int64 int8 uint16 uint32 uint64 uint8""".split()})
# NumPy's aliases TF keeps (NumPy 2 and JAX dropped them).
float_, int_, complex_ = _onp.float64, _onp.int64, _onp.complex128
asanyarray = ascontiguousarray = _np.asarray
flatten = _np.ravel
fix = _np.trunc     # NumPy's fix, which JAX dropped: rounding toward zero


def _dtype_of(x):
    return getattr(x, "dtype", None) if not isinstance(x, (list, tuple)) else None


def _promoting(fn):
    # NumPy's promotion between arrays (Python scalars stay weak, as in NumPy).
    @_functools.wraps(fn)
    def wrapped(*args, **kwargs):
        dts = [d for d in map(_dtype_of, args) if d is not None]
        if len(set(dts)) > 1:
            target = _onp.result_type(*dts)
            args = [a.astype(target) if _dtype_of(a) is not None else a for a in args]
        return fn(*args, **kwargs)
    return wrapped


def _floating(fn):
    # TF-NumPy makes integer and bool inputs of float functions float64.
    @_functools.wraps(fn)
    def wrapped(*args, **kwargs):
        args = [_np.asarray(a).astype("float64") if isinstance(a, (list, tuple)) or (
            _dtype_of(a) is not None and not _onp.issubdtype(_dtype_of(a), _onp.inexact))
            else a for a in args]
        return fn(*args, **kwargs)
    return wrapped


for _n in """add subtract multiply divide true_divide power float_power maximum minimum
        arctan2 hypot logaddexp logaddexp2 mod remainder floor_divide matmul dot inner outer
        tensordot kron vdot heaviside nextafter copysign""".split():
    if _n in globals():
        globals()[_n] = _promoting(globals()[_n])
for _n in """sqrt cbrt exp exp2 expm1 log log10 log1p log2 sin cos tan sinh cosh tanh arcsin
        arccos arctan arcsinh arccosh arctanh deg2rad rad2deg reciprocal sinc mean std var
        average nanmean true_divide divide""".split():
    globals()[_n] = _floating(globals()[_n])


def tri(N, M=None, k=0, dtype=None):
    """Ones at and below the ``k``-th diagonal; float64 by default, as TF-NumPy."""
    return _np.tri(N, M, k, dtype=dtype or "float64")


def pad(array, pad_width, mode="constant", **kwargs):
    """``array`` padded (``constant`` by default, as NumPy)."""
    return _np.pad(array, pad_width, mode=mode, **kwargs)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced numbers from ``start`` to ``stop``; float64 by default
    (float32 for Python numbers after ``experimental_enable_numpy_behavior(prefer_float32=True)``,
    as TF-NumPy's).

    >>> import eagertape.tf as tf
    >>> tf.experimental.numpy.linspace(0, 1, 3).numpy()
    array([0. , 0.5, 1. ])
    """
    if dtype is None and _PREFER_FLOAT32[0] and isinstance(start, (int, _onp.float32)) and (
            isinstance(stop, (int, _onp.float32))):
        dtype = "float32"
    return _np.linspace(start, stop, num, endpoint=endpoint, retstep=retstep, dtype=dtype,
                        axis=axis)


def take(a, indices, axis=None, out=None, mode="clip"):
    """Entries of ``a`` at ``indices`` (a list taken as an array)."""
    return _np.take(a, _np.asarray(indices), axis=axis, mode=mode)


# TF-NumPy's functions take what TF converts (tf.Variable, a Keras variable, nests of
# them), as tf.matmul does; JAX's take arrays only, so those are converted first.
_TAKEN = (_TensorLike, _onp.ndarray, _onp.generic, _jax.Array, int, float, complex, str)


def _converted(a):
    if type(a) in (list, tuple):
        return type(a)(map(_converted, a))
    if a is None or isinstance(a, (_TAKEN, type, _onp.dtype)) or not (
            hasattr(a, "dtype") and hasattr(a, "shape")):
        return a
    return _convert_to_tensor(a)


# experimental_enable_numpy_behavior(prefer_float32=True): TF's np_dtypes.is_prefer_float32.
_PREFER_FLOAT32 = [False]


def _float32_scalars(a):
    # TF-NumPy's result_type with prefer_float32: a Python float (np.float64 too, a
    # subclass of float) is np.float32, a complex np.complex64; in lists as well.
    if isinstance(a, float):
        return _onp.float32(a)
    if isinstance(a, complex):
        return _onp.complex64(a)
    if type(a) in (list, tuple):
        return type(a)(map(_float32_scalars, a))
    return a


def _taking(fn):
    @_functools.wraps(fn)
    def wrapped(*args, **kwargs):
        if _PREFER_FLOAT32[0]:
            args = map(_float32_scalars, args)
            kwargs = {k: _float32_scalars(v) for k, v in kwargs.items()}
        return fn(*map(_converted, args), **{k: _converted(v) for k, v in kwargs.items()})
    return wrapped


for _n, _f in list(globals().items()):
    if not _n.startswith("_") and callable(_f) and not isinstance(_f, type) and _n != "ndarray":
        globals()[_n] = _taking(_f)


# TF's type-promotion lattice (tensorflow/python/framework/flexible_dtypes.py, the
# "all" mode) is JAX's lattice with 64-bit types: jnp.promote_types for two strong
# dtypes. A Python scalar is weak: it takes the other side's dtype where that
# holds its kind of value; else a bool goes to the kind's TF default (int32,
# float32, complex128), a float to float64, a complex to the complex of the float's
# width. "safe" refuses a result the inputs do not cast to safely (an integer of 64
# bits to a float, as int8 with uint8 to int16 or int64 with float16).
_KIND = {bool: "b", int: "i", float: "f", complex: "c"}
_WEAK_DEFAULT = {"i": "int32", "f": "float32", "c": "complex128"}
_BF16 = _onp.dtype(_jnp.bfloat16)
_BOOL_TAKERS = {"uint64", "int32", "int64", "float16", "float32", "float64", "complex128"}
_MODE = [None]      # experimental_enable_numpy_behavior's mode (None: never enabled)


def _kind(d):
    # NumPy's kind letter; bfloat16 (ml_dtypes, kind "V") is a float.
    return "f" if d == _BF16 else d.kind


def _weak_result(d, kind):
    c = _kind(d)
    if kind == "b" or "bifc".index(c if c != "u" else "i") >= "bifc".index(kind):
        return _onp.dtype(d)
    if c == "b":
        return _onp.dtype(_WEAK_DEFAULT[kind])
    if kind == "c" and c == "f":
        return _onp.dtype("complex128" if _onp.dtype(d).itemsize == 8 else "complex64")
    return _onp.dtype("complex128" if kind == "c" else "float64")


def _join(a, b):
    # JAX's lattice with 64-bit types, without JAX's configuration (jnp.promote_types
    # narrows to 32 bits while jax_enable_x64 is off).
    a, b = _onp.dtype(a), _onp.dtype(b)
    if a == b or _kind(b) == "b":
        return a
    if _kind(a) == "b":
        return b
    ka, kb = _kind(a), _kind(b)
    if ka == kb:                      # the wider (float16 with bfloat16: float32)
        return b if b.itemsize > a.itemsize else a if a.itemsize > b.itemsize else _onp.dtype("float32")
    if "iufc".index(ka) > "iufc".index(kb):
        a, b, ka, kb = b, a, kb, ka   # ka before kb in i < u < f < c
    if kb == "u":                     # a signed with an unsigned integer
        if a.itemsize > b.itemsize:
            return a
        return _onp.dtype("float64") if b.itemsize == 8 else _onp.dtype(f"int{16 * b.itemsize}")
    if ka in "iu":                    # an integer with a float or complex: the latter
        return b
    return _onp.dtype("complex128" if a.itemsize == 8 or b.itemsize == 16 else "complex64")


def _safe(d, r):
    d, r = _onp.dtype(d), _onp.dtype(r)
    if _kind(d) in "iu" and d.itemsize == 8 and _kind(r) in "fc":
        return False
    return bool(_jnp.can_cast(d, r, "safe"))


def _operand_dtype(o):
    """(dtype, weak) of a binary operator's operand, or None if not a number."""
    tp = type(o)
    if tp in _KIND:
        return None, _KIND[tp]
    if isinstance(o, (list, tuple)):
        k = _onp.asarray(o).dtype.kind
        return (None, k) if k in "bifc" else None
    d = getattr(o, "dtype", None)
    try:
        return (_onp.dtype(d), None) if d is not None else None
    except TypeError:
        return None


def _promote(t, o, op=False):
    # The operators' hook (extend.operator_promotion) while numpy behaviour is on; ``op``:
    # for an op of two inputs (tf.add), which TF's legacy mode leaves to TF's rule.
    od = _operand_dtype(o)
    if od is None or op and _MODE[0] == "legacy":
        return t, o
    d = _onp.dtype(t.dtype)
    dtype, kind = od
    if kind == "b" and d.kind != "b":
        # TF takes a Python bool where its dtype hint has a bool conversion, else refuses.
        if d.name not in _BOOL_TAKERS:
            raise TypeError(f"Cannot convert {o!r} to EagerTensor of dtype {d.name}")
        return t, (_onp.asarray(o, d) if type(o) is bool else o)
    if _MODE[0] == "legacy" and _PREFER_FLOAT32[0] and isinstance(o, (float, complex)):
        # prefer_float32: TF-NumPy's result_type takes a Python float (np.float64 too, a
        # subclass) as np.float32, a complex as np.complex64: a strong dtype (float16 +
        # 1.0 is float32).
        dtype, kind = _onp.dtype("float32" if isinstance(o, float) else "complex64"), None
    if _MODE[0] == "legacy":        # TF-NumPy's legacy rule: NumPy's, float64 for a float scalar
        r = _weak_result(d, kind) if dtype is None else _onp.result_type(d, dtype)
    else:
        r = _join(d, dtype) if dtype is not None else _weak_result(d, kind)
        wd = dtype if dtype is not None else _onp.dtype(_WEAK_DEFAULT.get(kind, "bool"))
        if _MODE[0] == "safe" and not (r in (d, wd) and _safe(d, r) and (
                dtype is None or _safe(dtype, r))):
            raise TypeError(
                f"In promotion mode PromoMode.SAFE, implicit dtype promotion between "
                f"({d.name}, weak=False) and ({wd.name}, weak={dtype is None}) is "
                f"disallowed. You need to explicitly specify the dtype in your op, or relax "
                f"your dtype promotion rules (such as from SAFE mode to ALL mode).")
    if r != d:
        t = t.astype(r)
    if dtype is not None and dtype != r:
        o = o.astype(r) if hasattr(o, "astype") else _onp.asarray(o).astype(r)
    return t, o


def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """TF's switch to NumPy behaviour, per process as in TF: the operators of all
    Tensors and Variables then promote two dtypes instead of refusing them.
    ``dtype_conversion_mode`` is TF's: ``"all"`` (TF's lattice: int32 + float32 is
    float32, int8 + uint32 is int64, a Python scalar takes the tensor's dtype where it
    fits), ``"safe"`` (the same, but a lossy promotion such as int32 + float32 is a
    TypeError) or ``"legacy"`` (NumPy's rule). The NumPy-style methods (``.T``,
    ``.reshape``, ``.astype``, ``.ravel``, ``.clip``) are there without it. Kept
    difference: TF's weak tensors (``tf.constant(5)``) are strong here. The switch
    does not touch JAX's configuration. ``prefer_float32=True`` is TF's: the
    functions of ``tf.experimental.numpy`` and (in ``"legacy"`` mode) the operators
    take a Python float (``np.float64`` too, a subclass of float) as float32 and a
    complex as complex64 (``tnp.asarray(1.)`` is float32, ``tnp.add(1., 2.)`` float32,
    a float16 tensor + 1.0 float32); the defaults that are no Python value stay
    float64 (``tnp.ones(2)``, ``tnp.random.randn(2)``, NumPy's float64 arrays).

    >>> import eagertape.tf as tf
    >>> tnp = tf.experimental.numpy
    >>> tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    >>> (tf.constant(10, tf.int32) + tf.constant(5.0)).dtype
    tf.float32
    >>> tnp._disable_numpy_behavior()     # (the tests' way back; TF has none)
    >>> tnp.experimental_enable_numpy_behavior(prefer_float32=True)
    >>> tnp.asarray(1.).dtype, tnp.add(1., 2.).dtype, tnp.ones(2).dtype
    (tf.float32, tf.float32, tf.float64)
    >>> tnp._disable_numpy_behavior()
    """
    if dtype_conversion_mode not in ("legacy", "safe", "all"):
        raise ValueError(f"argument `dtype_conversion_mode`: {dtype_conversion_mode!r} is not "
                         f"one of 'legacy', 'safe', 'all'")
    _MODE[0] = dtype_conversion_mode
    _PREFER_FLOAT32[0] = bool(prefer_float32)
    _operator_promotion(_promote)


def _disable_numpy_behavior():
    # TF has no way back (its tests' ops.disable_numpy_behavior is private); tests use this.
    _MODE[0] = None
    _PREFER_FLOAT32[0] = False
    _operator_promotion(None)


def _size(size):
    if size is None:
        return ()
    if isinstance(size, (int, _onp.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)


def _random_module():
    """``tf.experimental.numpy.random``: TF-NumPy's random functions, each the
    ``tf.random`` op TF's calls (the global stream, seeded by ``seed`` as by
    ``tf.random.set_seed``), float64 by default as TF-NumPy's. The numbers are
    JAX's, not TF's; a seed gives the same sequence on every run."""
    from .. import random as tfr

    def seed(s):
        """Set the global seed (``tf.random.set_seed``).

        >>> import eagertape.tf as tf
        >>> tnp = tf.experimental.numpy
        >>> tnp.random.seed(1); a = tnp.random.randn(2)
        >>> tnp.random.seed(1); bool(tnp.all(a == tnp.random.randn(2)))
        True
        """
        try:
            s = int(s)
        except TypeError:
            raise ValueError(f"Argument `s` got an invalid value {s}. Only integers are "
                             "supported.") from None
        tfr.set_seed(s)

    def standard_normal(size=None):
        """Standard normal samples of shape ``size`` (float64)."""
        return tfr.normal(_size(size), dtype="float64")

    def randn(*args):
        """Standard normal samples of shape ``args`` (float64).

        >>> import eagertape.tf as tf
        >>> x = tf.experimental.numpy.random.randn(2, 3)
        >>> x.shape, x.dtype
        (TensorShape([2, 3]), tf.float64)
        """
        return standard_normal(size=args)

    def uniform(low=0.0, high=1.0, size=None):
        """Uniform samples in ``[low, high)`` (float64); ``size`` None: the
        broadcast shape of ``low`` and ``high``."""
        low, high = _np.asarray(low, "float64"), _np.asarray(high, "float64")
        if size is None:
            size = _onp.broadcast_shapes(tuple(low.shape), tuple(high.shape))
        return tfr.uniform(_size(size), minval=low, maxval=high, dtype="float64")

    def rand(*size):
        """Uniform samples in ``[0, 1)`` of shape ``size`` (float64)."""
        return uniform(0.0, 1.0, size)

    def random(size=None):
        """Uniform samples in ``[0, 1)`` of shape ``size`` (float64)."""
        return uniform(0.0, 1.0, size)

    def randint(low, high=None, size=None, dtype=_onp.int64):
        """Integers in ``[low, high)`` (``[0, low)`` without ``high``); int64 by
        default, int32 or int64 only, as TF-NumPy's."""
        low = int(low)
        if high is None:
            low, high = 0, low
        d = _onp.dtype(dtype)
        if d not in (_onp.dtype("int32"), _onp.dtype("int64")):
            raise ValueError(f"Argument `dtype` got an invalid value {dtype}. Only those "
                             f"convertible to (<class 'numpy.int32'>, <class 'numpy.int64'>) "
                             f"are supported.")
        return tfr.uniform(_size(size), minval=low, maxval=high, dtype=d.name)

    def poisson(lam=1.0, size=None):
        """Poisson samples of rate ``lam`` and shape ``size`` (int64)."""
        return tfr.poisson(_size(size), lam, dtype="int64")

    mod = _types.ModuleType("tf.experimental.numpy.random", _random_module.__doc__)
    for f in (seed, standard_normal, randn, uniform, rand, random, randint, poisson):
        f.__module__ = mod.__name__
        setattr(mod, f.__name__, f)
    mod.__getattr__ = _Unsupported("tf.experimental.numpy.random")
    return mod


_random = []


def __getattr__(name):
    if name == "random":        # (made on first use: tf.random imports after this module)
        if not _random:
            _random.append(_random_module())
        return _random[0]
    return _unsupported(name)


_unsupported = _Unsupported("tf.experimental.numpy", {
    "string_": "JAX has no string dtype",
    "unicode_": "JAX has no string dtype",
    "object_": "JAX arrays hold numbers only (no object dtype)",
})
