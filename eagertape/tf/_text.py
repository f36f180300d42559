"""String tensors: TF's ``tf.string`` values, held on the host.

TF keeps a string tensor on the CPU whatever the device, as an array of byte
strings, and its ``numpy()`` gives NumPy's object dtype holding Python ``bytes``
(``b'abc'`` for a scalar). JAX has no string dtype and XLA no string values, so a
string tensor here is that very NumPy array, never a JAX one, wrapped in
``StringTensor``.

Why a subclass of ``eagertape.Tensor`` (``tf.Tensor``), not a type of its own:
TF programs ask ``isinstance(x, tf.Tensor)`` and ``tf.is_tensor(x)`` of text as of
numbers, put string tensors in the same nests, Datasets and tables, and read
``dtype``, ``shape``, ``numpy()``, ``len`` and ``ref()`` alike. Everything the
core's Tensor reads off its value (shape, dtype, ``numpy()``, ``__array__``,
``bool``, ``float``) works on a NumPy array as on a ``jax.Array``; what would hand
the value to JAX (``jax()``, ``__jax_array__``, DLPack, a ``tf.function``
argument, the recorded operators) is refused here with a TypeError saying what
to do, or done on the host (indexing, ``==``, ``+``, iteration). Its dtype is
``tf.string``: the core's ``DType`` of NumPy's object dtype, named "string" as
TF names it (``tf.string.as_numpy_dtype is object``, as TF's).

String tensors are never differentiated: no op on them is recorded, a tape that
watches one logs TF's warning (the dtype must be floating) and a gradient through
one is None, as in TF, where string ops have no gradient.

TF's generic ops that take strings (``reshape``, ``concat``, ``gather``,
``equal``, ``where``, ``unique``, ...) take them here too: ``HOST_OPS`` maps each
facade function to its host version, and ``install`` puts a dispatcher in front of
the facade function (under every name the facade binds it to) that sends a call
whose data argument is text to the host version, and every other call on, as
before. One table rather than a test in each function: as TF's own dispatch for
its composite tensors, and as ``_x64`` scopes the facade's functions in one place.

Inside a ``tf.function``: JAX traces numbers only. A string op whose inputs are
string tensors or Python values runs on the host while the function is traced (a
constant of the trace: a vocabulary table, a ``tf.constant`` of text); a string
tensor passed as an argument, and a string op on a traced (numeric) value, raise a
TypeError that names the argument and says to run the string work before the
function (or in a ``tf.data`` map, which runs such functions eagerly).

>>> import eagertape.tf as tf
>>> s = tf.constant(["hello", "wörld"])
>>> s.dtype, s.shape, isinstance(s, tf.Tensor)
(tf.string, TensorShape([2]), True)
>>> s[1].numpy().decode()
'wörld'
>>> (s == "hello").numpy()
array([ True, False])
"""
import builtins
import functools
import inspect

import jax
import numpy as np

from .. import extend as _extend
from ..extend import DType, InvalidArgumentError, Tensor, TensorLike as _TensorLike
from ._util import rebind as _rebind

_STRING_KINDS = "OUS"


class StringTensor(Tensor):
    """A ``tf.Tensor`` of dtype ``tf.string``: a NumPy object array of ``bytes`` on
    the host (what TF's ``numpy()`` gives). Make one with ``tf.constant``; every
    ``tf.strings`` function returns one.

    >>> import eagertape.tf as tf
    >>> t = tf.constant([["a", "bc"], ["", "d"]])
    >>> t
    <tf.Tensor: shape=(2, 2), dtype=string, numpy=
    array([[b'a', b'bc'],
           [b'', b'd']], dtype=object)>
    >>> [x.numpy() for x in t[0]], len(t)
    ([b'a', b'bc'], 2)
    >>> (t + "!").numpy()[0, 1]
    b'bc!'
    """

    __slots__ = ()
    _host_only = True
    _symbolic = False      # (a string tensor inside a tf.function's trace: _traced_text)

    def __init__(self, value):
        raise TypeError("StringTensor(value): make string tensors with tf.constant(value) "
                        "(str, bytes, or nested lists or NumPy arrays of them)")

    def __reduce__(self):
        return (_from_array, (self._v,))

    # -- what would hand the value to JAX -------------------------------------------
    def jax(self):
        raise TypeError(_NOT_JAX.format(what="jax() of a string tensor"))

    def __jax_array__(self):
        raise TypeError(_NOT_JAX.format(what="a string tensor passed to JAX"))

    def __dlpack__(self, *args, **kwargs):
        raise TypeError(_NOT_JAX.format(what="DLPack export of a string tensor"))

    def __dlpack_device__(self):
        raise TypeError(_NOT_JAX.format(what="DLPack export of a string tensor"))

    def read_value(self):
        # The core reads every operand that is not a plain Tensor (a Variable) with
        # read_value: a string tensor given to a numeric op ends here.
        raise TypeError("a string tensor was given to an op that takes numbers: JAX has no "
                        "string dtype, and TF has no string kernel for it either. Convert "
                        "the text to numbers first (tf.strings.to_number, "
                        "tf.strings.length, a tf.lookup table)")

    # -- indexing and iteration, on the host ----------------------------------------
    def __getitem__(self, key):
        try:
            return wrap(np.asarray(self._v[_index(key)], dtype=object))
        except IndexError as e:
            raise InvalidArgumentError(f"{e} (indexing a string tensor of shape "
                                       f"{list(self._v.shape)})") from None

    def __iter__(self):
        if self._v.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (wrap(np.asarray(row, dtype=object)) for row in self._v)

    # -- operators: TF's string kernels are == != and + ----------------------------
    def __eq__(self, other):
        return _compare(self, other, np.equal, False)

    def __ne__(self, other):
        return _compare(self, other, np.not_equal, True)

    __hash__ = Tensor.__hash__      # a class defining __eq__ would have none

    def __add__(self, other):
        return _join_pair(self, other, "y")

    def __radd__(self, other):
        return _join_pair(other, self, "x")


_NOT_JAX = ("{what}: JAX has no string dtype, so string tensors stay on the host. Use "
            "tf.strings functions on them, or .numpy() for their bytes; turn text into "
            "numbers first (tf.strings.to_number, tf.lookup tables, "
            "tf.strings.to_hash_bucket_fast) for JAX code")


def _no_kernel(name):
    def refuse(self, *args, **kwargs):
        raise TypeError(f"operator {name} does not take string tensors (TF has no string "
                        f"kernel for it: only ==, != and + take strings); convert the text "
                        "to numbers first (tf.strings.to_number, tf.strings.length, a "
                        "tf.lookup table)")
    refuse.__name__ = name
    return refuse


for _op in ("mul", "sub", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
            "lshift", "rshift"):
    for _name in (f"__{_op}__", f"__r{_op}__"):
        setattr(StringTensor, _name, _no_kernel(_name))
for _name in ("__lt__", "__le__", "__gt__", "__ge__", "__neg__", "__pos__", "__abs__",
              "__invert__"):
    setattr(StringTensor, _name, _no_kernel(_name))
for _name in ("sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin", "cumsum",
              "cumprod", "clip", "dot", "conj", "round", "any", "all", "trace", "astype",
              "reshape", "transpose", "squeeze", "ravel", "flatten", "swapaxes", "repeat",
              "take", "diagonal", "nonzero", "argsort", "sort", "conjugate"):
    setattr(StringTensor, _name, _no_kernel(f".{_name}()"))
for _name in ("T", "mT", "real", "imag"):
    setattr(StringTensor, _name, property(_no_kernel(f".{_name}")))


def _from_array(array):
    return wrap(np.asarray(array, dtype=object))


def wrap(array):
    """A StringTensor of ``array`` (a NumPy object array of ``bytes``, kept as it is)."""
    t = object.__new__(StringTensor)
    t._v = array
    return t


# -- conversion ---------------------------------------------------------------------

def is_text(x):
    """Whether ``x`` is text to TF: a string tensor, ``str``/``bytes``, a NumPy
    array of them, or a (nested) list or tuple whose first leaf is one."""
    if isinstance(x, (StringTensor, str, bytes)):
        return True
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "US" or (x.dtype.kind == "O" and x.size > 0 and isinstance(
            x.flat[0], (str, bytes)))
    if hasattr(x, "__array__") and not isinstance(x, (list, tuple)) and (
            getattr(getattr(x, "dtype", None), "kind", None) in ("O", "U", "S")):
        # A pandas Series or Index of text (object dtype), as TF converts it.
        return is_text(np.asarray(x))
    depth = 0
    while isinstance(x, (list, tuple)) and x and depth < 32:
        x, depth = x[0], depth + 1
    return depth > 0 and isinstance(x, (StringTensor, str, bytes, np.ndarray)) and (
        not isinstance(x, np.ndarray) or is_text(x))


def _to_bytes(x):
    if isinstance(x, bytes):
        return bytes(x)          # np.bytes_ too
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, StringTensor) and x._v.ndim == 0:
        return x._v[()]
    raise TypeError(f"Failed to convert elements of a {type(x).__name__} to a string tensor: "
                    "every element must be str or bytes")


_encode = np.frompyfunc(_to_bytes, 1, 1)


def host(value, argname="input"):
    """``value`` as a NumPy object array of ``bytes`` (TF's conversion of text:
    ``str`` encoded as UTF-8), or a TypeError naming ``argname``."""
    if isinstance(value, StringTensor):
        if value._symbolic:
            raise TypeError(f"argument `{argname}`: this op does not take a string tensor "
                            "traced inside a tf.function (eagertape runs the generic ops, "
                            "tf.strings, tf.io and tf.audio ops, lookups and tf.print on the "
                            "call's text); run it before the function, or run functions "
                            "eagerly: tf.config.run_functions_eagerly(True)")
        return value._v
    if isinstance(value, (str, bytes)):
        out = np.empty((), object)
        out[()] = _to_bytes(value)
        return out
    if isinstance(value, _TensorLike):
        raise TypeError(f"argument `{argname}` must be a string tensor, got a "
                        f"{value.dtype.name} tensor; convert numbers with "
                        "tf.strings.as_string")
    if not isinstance(value, (np.ndarray, list, tuple)) and is_text(value):
        value = np.asarray(value)       # a pandas Series or Index of text
    if isinstance(value, np.ndarray) and value.dtype.kind in _STRING_KINDS:
        arr = value
    elif isinstance(value, (list, tuple)):
        if builtins.any(not isinstance(x, (str, bytes, list, tuple, StringTensor, np.ndarray))
                        for x in value):
            raise ValueError(f"argument `{argname}`: Can't convert Python sequence with mixed "
                             "types to Tensor.")
        try:
            arr = np.array(value, dtype=object)
        except ValueError:
            raise ValueError(f"argument `{argname}`: Can't convert non-rectangular Python "
                             "sequence to Tensor.") from None
        if any(isinstance(x, (list, tuple)) for x in arr.flat):
            raise ValueError(f"argument `{argname}`: Can't convert non-rectangular Python "
                             "sequence to Tensor.")
    else:
        raise TypeError(f"argument `{argname}`: expected a string tensor, str, bytes or a "
                        f"nested list of them, got {type(value).__name__}")
    try:
        out = _encode(arr) if arr.size else np.empty(arr.shape, object)
    except TypeError as e:
        raise TypeError(f"argument `{argname}`: {e}") from None
    return np.asarray(out, dtype=object).reshape(arr.shape)


def constant_text(value, shape=None, argname="value"):
    arr = host(value, argname)
    if shape is not None:
        shape = tuple(int(d) for d in np.reshape(np.asarray(shape), -1))
        if arr.size == 1 and int(np.prod(shape)) != 1:
            arr = np.full(shape, arr.reshape(-1)[0], dtype=object)
        elif arr.size != int(np.prod(shape)):
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor "
                            f"{arr.tolist()!r} (converted from {value!r}) has {arr.size} "
                            f"elements, but got `shape` {shape} with {int(np.prod(shape))} "
                            "elements).")
        else:
            arr = arr.reshape(shape)
    return wrap(arr)


def numeric(x, argname, op):
    """A numeric argument of a host op as a NumPy array; a value traced inside a
    ``tf.function`` is refused, naming the argument."""
    if isinstance(x, StringTensor):
        raise TypeError(f"argument `{argname}` of {op} must be numeric, got a string tensor")
    v = x._value if isinstance(x, _TensorLike) else x
    if isinstance(v, jax.core.Tracer):
        raise TypeError(
            f"argument `{argname}` of {op} is a value traced inside a tf.function: string "
            "ops run on the host (JAX has no strings), on values known when the function "
            "is traced. Call it outside the function (before it, or in a tf.data map), or "
            "pass a Python or NumPy value")
    if isinstance(x, _TensorLike):
        return np.asarray(x.numpy())
    return np.asarray(_extend.convert_to_tensor(x).numpy()) if not isinstance(
        x, np.ndarray) else x


_STRING_TYPES = (str, bytes, np.str_, np.bytes_, object, np.object_)


def is_string_dtype(dtype):
    """Whether ``dtype`` is TF's string dtype (``tf.string``, "string", ``str``, ...);
    cheap, as every dispatched call with a ``dtype`` asks."""
    if dtype is None:
        return False
    if isinstance(dtype, str):
        return dtype == "string"
    kind = getattr(dtype, "kind", None)
    if isinstance(kind, str):
        return kind == "O"
    return isinstance(dtype, type) and dtype in _STRING_TYPES


def text_result(array):
    """A host op's result: a StringTensor of an object array, else a numeric Tensor."""
    array = np.asarray(array)
    if array.dtype == object:
        return wrap(array)
    return _constant(array)


def _constant(array):
    # Numbers a host op computed become a constant Tensor, even inside a tf.function
    # being traced (a constant of that trace).
    with jax.ensure_compile_time_eval():
        return _extend.constant(array)


# -- printing: TF's summarize (tf.print, tf.strings.format, str()) -------------------

_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"',
            ord("'"): "\\'", ord("\\"): "\\\\"}


def _cescape(b):
    """``b`` as TF prints a string element (absl's Utf8SafeCEscape): C escapes for
    quotes, backslashes and control bytes, UTF-8 kept."""
    out = []
    for c in b.decode("utf-8", "surrogateescape"):
        k = ord(c)
        if k in _ESCAPES:
            out.append(_ESCAPES[k])
        elif k < 0x20 or k == 0x7F:
            out.append("\\%03o" % k)
        elif 0xDC80 <= k <= 0xDCFF:        # a byte that is not UTF-8: its octal escape
            out.append("\\%03o" % (k - 0xDC00))
        else:
            out.append(c)
    return "".join(out)


def _element(x):
    if isinstance(x, bytes):
        return _cescape(x)
    if isinstance(x, (np.bool_, builtins.bool)):
        return "1" if x else "0"
    if isinstance(x, (np.floating, float)):
        return _float(x)
    if isinstance(x, (np.complexfloating, complex)):
        return f"({_float(x.real)},{_float(x.imag)})"
    return str(x)


def _float(x):
    # TF's (FloatToBuffer / DoubleToBuffer): the shortest of 6 (15) significant
    # digits that reads back as the same number, else 9 (17).
    short, full = (6, 9) if np.asarray(x).dtype.itemsize <= 4 else (15, 17)
    text = "%.*g" % (short, x)
    if np.isfinite(x) and np.asarray(x).dtype.type(float(text)) != x:
        text = "%.*g" % (full, x)
    return text


def summarize(array, summarize_n=3, quote_scalar=True):
    """``array`` as TF prints a tensor's values (``tf.strings.format``, ``tf.print``):
    arrays in brackets with spaces, at most ``summarize_n`` entries at each end of
    an axis ("..." between; -1: all); string elements C-escaped in quotes, without
    Python's b'' (a scalar string without quotes where ``quote_scalar`` is False,
    as ``tf.print`` prints it); bools 1 and 0.

    >>> import numpy as np
    >>> from eagertape.tf._text import summarize
    >>> summarize(np.array([b"a", b"b"], dtype=object)), summarize(np.arange(8))
    ('["a" "b"]', '[0 1 2 ... 5 6 7]')
    """
    array = np.asarray(array)

    def one(x):
        text = _element(x)
        return f'"{text}"' if isinstance(x, bytes) else text

    if array.ndim == 0:
        x = array[()]
        return one(x) if quote_scalar or not isinstance(x, bytes) else _element(x)

    def rows(a, depth):
        n = a.shape[0]
        cut = summarize_n >= 0 and n > 2 * summarize_n
        idx = list(range(summarize_n)) + [None] + list(range(n - summarize_n, n)) if cut \
            else list(range(n))
        if a.ndim == 1:
            return "[" + " ".join("..." if i is None else one(a[i]) for i in idx) + "]"
        sep = "\n" + " " * (depth + 1)
        return "[" + sep.join("..." if i is None else rows(a[i], depth + 1) for i in idx) + "]"
    return rows(array, 0)


# -- the generic ops on strings (HOST_OPS) ------------------------------------------

def _index(key):
    if isinstance(key, _TensorLike) and key.dtype == np.bool_:
        key = np.asarray(key.numpy())
    if isinstance(key, np.ndarray) and key.dtype == np.bool_ and key.ndim:
        return key      # TF's boolean_mask: a bool array (or tensor) as the whole index

    def one(k):
        if isinstance(k, _TensorLike):
            v = np.asarray(k.numpy())
            if v.ndim or v.dtype.kind not in "iu":
                raise TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis "
                                "(`None`) and scalar tf.int32/tf.int64 tensors are valid "
                                f"indices, got a {k.dtype.name} tensor of shape {v.shape}")
            return int(v)
        if isinstance(k, builtins.slice):
            return builtins.slice(*(None if p is None else int(one(p)) for p in
                                    (k.start, k.stop, k.step)))
        if k is None or k is Ellipsis or isinstance(k, (int, np.integer)) and not isinstance(
                k, (builtins.bool, np.bool_)):
            return k
        raise TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) "
                        f"and scalar tf.int32/tf.int64 tensors are valid indices, got {k!r}")
    return tuple(one(k) for k in key) if isinstance(key, tuple) else one(key)


def _compare(a, b, fn, if_not):
    if not Tensor._USE_EQUALITY:
        return (a is b) != if_not           # TF 1's: object identity
    if not is_text(b):
        if b is None:
            return if_not
        if isinstance(b, _TensorLike) or isinstance(b, (int, float, complex, np.number)):
            # TF's == converts the other operand to a string tensor first, which a
            # number is not.
            raise TypeError(f"Cannot convert {_brief(b)} to EagerTensor of dtype string")
        return NotImplemented
    x, y = host(a, "x"), host(b, "y")
    try:
        return text_result(fn(x, y))
    except ValueError:
        # TF's == (incompatible_shape_error=False): tensors whose shapes do not
        # broadcast are unequal, one bool.
        return text_result(np.asarray(if_not))


def _join_pair(a, b, which):
    x, y = host(a, "x"), host(b, "y")
    try:
        return wrap(np.asarray(np.add(x, y), dtype=object))
    except ValueError:
        raise InvalidArgumentError(f"Incompatible shapes: {list(x.shape)} vs. "
                                   f"{list(y.shape)} [Op:AddV2]") from None


def _ints(x, argname):
    if isinstance(x, _TensorLike):
        x = np.asarray(x.numpy())
    return [int(d) for d in np.reshape(np.asarray(x), -1)]


def _axis(axis, ndim, argname="axis"):
    axis = int(np.asarray(axis.numpy() if isinstance(axis, _TensorLike) else axis))
    if not -ndim <= axis < max(ndim, 1):
        raise InvalidArgumentError(f"argument `{argname}`: {axis} is out of range for a "
                                   f"tensor of rank {ndim}")
    return axis % max(ndim, 1)


def h_constant(value, dtype=None, shape=None, name=None):
    if dtype is not None and not is_string_dtype(dtype):
        raise TypeError(f"Cannot convert {_brief(value)} to EagerTensor of dtype "
                        f"{DType(_extend.as_dtype(dtype)).name}")
    empty = isinstance(value, (list, tuple, np.ndarray)) and np.size(value) == 0
    if not (is_text(value) or empty):      # (tf.constant([], tf.string): no element to see)
        raise TypeError(f"Cannot convert {_brief(value)} to EagerTensor of dtype string")
    return constant_text(value, shape)


def _brief(value):
    text = repr(value)
    return text if len(text) <= 60 else f"a {type(value).__name__}"


def h_convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    if isinstance(value, StringTensor):
        if dtype is not None and not is_string_dtype(dtype):
            raise ValueError(f"Tensor conversion requested dtype "
                             f"{DType(_extend.as_dtype(dtype)).name} for Tensor with dtype "
                             "string")
        return value
    return h_constant(value, dtype)


def h_identity(input, name=None):
    return wrap(host(input).copy())


def h_reshape(tensor, shape, name=None):
    x = host(tensor, "tensor")
    dims = _ints(shape, "shape")
    try:
        return wrap(x.reshape(dims))
    except ValueError:
        raise InvalidArgumentError(f"Input to reshape is a tensor with {x.size} values, but "
                                   f"the requested shape has {int(np.prod(dims))}") from None


def _parts(values, argname):
    if not isinstance(values, (list, tuple)):
        values = [values]
    return [host(v, f"{argname}[{i}]") for i, v in enumerate(values)]


def h_concat(values, axis, name=None):
    parts = _parts(values, "values")
    nd = parts[0].ndim
    if nd == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    try:
        return wrap(np.concatenate(parts, axis=_axis(axis, nd)))
    except ValueError as e:
        raise InvalidArgumentError(f"ConcatOp : Dimension mismatch: {e}") from None


def h_stack(values, axis=0, name=None):
    parts = _parts(values, "values")
    try:
        return wrap(np.stack(parts, axis=_axis(axis, parts[0].ndim + 1)))
    except ValueError as e:
        raise ValueError(f"Shapes of all inputs must match: {e}") from None


def h_unstack(value, num=None, axis=0, name=None):
    x = host(value, "value")
    axis = _axis(axis, x.ndim)
    if num is not None and x.shape[axis] != num:
        raise ValueError(f"argument `num` is {num} but the dimension {axis} has size "
                         f"{x.shape[axis]}")
    return [wrap(np.asarray(np.take(x, i, axis=axis), dtype=object))
            for i in range(x.shape[axis])]


def h_expand_dims(input, axis, name=None):
    x = host(input)
    return wrap(np.expand_dims(x, _axis(axis, x.ndim + 1)))


def h_squeeze(input, axis=None, name=None):
    x = host(input)
    if axis is not None:
        axis = tuple(_axis(a, x.ndim) for a in (axis if isinstance(axis, (list, tuple))
                                                else [axis]))
        for a in axis:
            if x.shape[a] != 1:
                raise InvalidArgumentError(f"Can not squeeze dim[{a}], expected a dimension "
                                           f"of 1, got {x.shape[a]}")
    return wrap(np.squeeze(x, axis))


def h_transpose(a, perm=None, conjugate=False, name=None):
    return wrap(np.transpose(host(a, "a"), None if perm is None else _ints(perm, "perm")))


def h_tile(input, multiples, name=None):
    return wrap(np.tile(host(input), _ints(multiples, "multiples")))


def h_reverse(tensor, axis, name=None):
    x = host(tensor, "tensor")
    return wrap(np.flip(x, tuple(_axis(a, x.ndim) for a in _ints(axis, "axis"))))


def h_broadcast_to(input, shape, name=None):
    try:
        return wrap(np.broadcast_to(host(input), _ints(shape, "shape")).copy())
    except ValueError as e:
        raise InvalidArgumentError(str(e)) from None


def h_fill(dims, value, name=None):
    return wrap(np.full(_ints(dims, "dims"), host(value, "value")[()], dtype=object))


def h_zeros(shape, dtype="float32", name=None):
    return wrap(np.full(_ints(shape, "shape"), b"", dtype=object))


def h_zeros_like(input, dtype=None, name=None):
    if dtype is not None and not is_string_dtype(dtype):
        raise TypeError("zeros_like of a string tensor with a numeric dtype: TF's ZerosLike "
                        "keeps the input's dtype")
    return wrap(np.full(host(input).shape, b"", dtype=object))


def h_ones(shape, dtype="float32", name=None):
    raise TypeError("Expected string, but got 1 of type 'int'. (tf.ones of dtype string: "
                    "TF has no one for strings; use tf.fill(shape, 'text'))")


def h_gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    x = host(params, "params")
    idx = numeric(indices, "indices", "tf.gather")
    if batch_dims:
        raise NotImplementedError("tf.gather of a string tensor with batch_dims is not "
                                  "supported; gather each row")
    axis = _axis(0 if axis is None else axis, x.ndim)
    n = x.shape[axis]
    bad = (idx < 0) | (idx >= n)
    if np.any(bad):
        k = int(np.reshape(idx, -1)[np.flatnonzero(np.reshape(bad, -1))[0]])
        raise InvalidArgumentError(f"indices = {k} is not in [0, {n})")
    return wrap(np.take(x, idx, axis=axis))


def h_gather_nd(params, indices, batch_dims=0, name=None):
    x = host(params, "params")
    idx = numeric(indices, "indices", "tf.gather_nd")
    if batch_dims:
        raise NotImplementedError("tf.gather_nd of a string tensor with batch_dims is not "
                                  "supported")
    k = idx.shape[-1]
    for d in range(k):
        if np.any((idx[..., d] < 0) | (idx[..., d] >= x.shape[d])):
            raise InvalidArgumentError(f"indices[..., {d}] is out of bounds for dimension "
                                       f"{d} of size {x.shape[d]}")
    return wrap(np.asarray(x[tuple(idx[..., d] for d in range(k))], dtype=object))


def h_boolean_mask(tensor, mask, axis=None, name=None):
    x = host(tensor, "tensor")
    m = numeric(mask, "mask", "tf.boolean_mask").astype(bool)
    axis = 0 if axis is None else _axis(axis, x.ndim)
    k = m.ndim
    if m.shape != x.shape[axis:axis + k]:
        raise ValueError(f"argument `mask` has shape {m.shape}, which does not match the "
                         f"shape {x.shape[axis:axis + k]} of `tensor` at axis {axis}")
    flat = x.reshape(x.shape[:axis] + (-1,) + x.shape[axis + k:])
    return wrap(np.take(flat, np.flatnonzero(m), axis=axis))


def h_slice(input_, begin, size, name=None):
    x = host(input_, "input_")
    b, n = _ints(begin, "begin"), _ints(size, "size")
    idx = tuple(builtins.slice(i, d if s == -1 else i + s) for i, s, d in zip(b, n, x.shape))
    return wrap(x[idx].copy())


def h_pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    x = host(tensor, "tensor")
    p = np.asarray(_ints(paddings, "paddings")).reshape(-1, 2)
    if p.shape[0] != x.ndim:
        raise InvalidArgumentError(f"argument `paddings` must have shape [{x.ndim}, 2] for a "
                                   f"tensor of rank {x.ndim}, got shape {list(p.shape)}")
    m = str(mode).upper()
    if m == "CONSTANT":
        fill = b"" if isinstance(constant_values, (int, np.integer)) and constant_values == 0 \
            else host(constant_values, "constant_values")[()]
        out = np.full(tuple(d + a + b for d, (a, b) in zip(x.shape, p)), fill, dtype=object)
        out[tuple(builtins.slice(a, a + d) for d, (a, _) in zip(x.shape, p))] = x
        return wrap(out)
    return wrap(np.pad(x, p, mode={"REFLECT": "reflect", "SYMMETRIC": "symmetric"}[m]))


def h_split(value, num_or_size_splits, axis=0, num=None, name=None):
    x = host(value, "value")
    axis = _axis(axis, x.ndim)
    n = x.shape[axis]
    if isinstance(num_or_size_splits, (int, np.integer)):
        if n % num_or_size_splits:
            raise InvalidArgumentError(
                f"argument `num_or_size_splits`: dimension {axis} of size {n} does not split "
                f"evenly into {num_or_size_splits} parts")
        return [wrap(p) for p in np.split(x, int(num_or_size_splits), axis=axis)]
    sizes = _ints(num_or_size_splits, "num_or_size_splits")
    if sizes.count(-1) == 1:
        sizes[sizes.index(-1)] = n - (builtins.sum(sizes) + 1)
    if builtins.sum(sizes) != n:
        raise InvalidArgumentError(f"argument `num_or_size_splits`: sizes {sizes} do not add "
                                   f"up to {n}")
    return [wrap(p) for p in np.split(x, np.cumsum(sizes)[:-1].tolist(), axis=axis)]


def h_equal(x, y, name=None):
    a, b = host(x, "x"), host(y, "y")
    try:
        return text_result(np.equal(a, b))
    except ValueError:
        raise InvalidArgumentError(f"Incompatible shapes: {list(a.shape)} vs. "
                                   f"{list(b.shape)} [Op:Equal]") from None


def h_not_equal(x, y, name=None):
    return text_result(~h_equal(x, y).numpy())


def h_where(condition, x=None, y=None, name=None):
    if x is None or y is None:
        raise ValueError("arguments `x` and `y` must both be given, or neither")
    c = numeric(condition, "condition", "tf.where").astype(bool)
    a, b = host(x, "x"), host(y, "y")
    try:
        return wrap(np.asarray(np.where(c, a, b), dtype=object))
    except ValueError:
        raise InvalidArgumentError(f"Incompatible shapes: condition {list(c.shape)}, x "
                                   f"{list(a.shape)}, y {list(b.shape)}") from None


def _unique(x, out_idx):
    v = host(x, "x")
    if v.ndim != 1:
        raise InvalidArgumentError(f"unique expects a 1D vector, got shape {list(v.shape)}")
    first = {}
    idx = np.empty(v.shape, _extend.as_dtype(out_idx))
    counts = []
    for i, s in enumerate(v):
        k = first.setdefault(s, len(first))
        if k == len(counts):
            counts.append(0)
        counts[k] += 1
        idx[i] = k
    y = np.empty(len(first), object)
    y[:] = list(first)
    return wrap(y), _constant(idx), _constant(np.asarray(counts, idx.dtype))


def h_unique(x, out_idx="int32", name=None):
    from ._util import Unique
    y, idx, _ = _unique(x, out_idx)
    return Unique(y, idx)


def h_unique_with_counts(x, out_idx="int32", name=None):
    from ._util import UniqueWithCounts
    return UniqueWithCounts(*_unique(x, out_idx))


def h_cast(x, dtype, name=None):
    to_string = is_string_dtype(dtype)
    if isinstance(x, StringTensor) and to_string:
        return x
    src = "string" if is_text(x) else DType(_extend.convert_to_tensor(x).dtype).name
    dst = "string" if to_string else DType(_extend.as_dtype(dtype)).name
    from .errors import UnimplementedError
    way = "tf.strings.to_number" if src == "string" else "tf.strings.as_string"
    raise UnimplementedError(f"Cast {src} to {dst} is not supported (use {way})")


def h_size(input, out_type="int32", name=None):
    return _constant(np.asarray(host(input).size, _extend.as_dtype(out_type)))


def h_rank(input, name=None):
    return _constant(np.int32(host(input).ndim))


def h_shape(input, out_type="int32", name=None):
    return _constant(np.asarray(host(input).shape, _extend.as_dtype(out_type)))


# facade function name -> (host version, the parameters whose text sends a call there)
HOST_OPS = {
    "constant": (h_constant, ("value", "dtype")),
    "convert_to_tensor": (h_convert_to_tensor, ("value", "dtype")),
    "identity": (h_identity, ("input",)),
    "reshape": (h_reshape, ("tensor",)),
    "concat": (h_concat, ("values",)),
    "stack": (h_stack, ("values",)),
    "unstack": (h_unstack, ("value",)),
    "split": (h_split, ("value",)),
    "expand_dims": (h_expand_dims, ("input",)),
    "squeeze": (h_squeeze, ("input",)),
    "transpose": (h_transpose, ("a",)),
    "tile": (h_tile, ("input",)),
    "reverse": (h_reverse, ("tensor",)),
    "broadcast_to": (h_broadcast_to, ("input",)),
    "fill": (h_fill, ("value",)),
    "zeros": (h_zeros, ("dtype",)),
    "ones": (h_ones, ("dtype",)),
    "zeros_like": (h_zeros_like, ("input",)),
    "gather": (h_gather, ("params",)),
    "gather_nd": (h_gather_nd, ("params",)),
    "boolean_mask": (h_boolean_mask, ("tensor",)),
    "slice": (h_slice, ("input_",)),
    "pad": (h_pad, ("tensor",)),
    "equal": (h_equal, ("x", "y")),
    "not_equal": (h_not_equal, ("x", "y")),
    "where": (h_where, ("x", "y")),
    "unique": (h_unique, ("x",)),
    "unique_with_counts": (h_unique_with_counts, ("x",)),
    "cast": (h_cast, ("x", "dtype")),
    "size": (h_size, ("input",)),
    "rank": (h_rank, ("input",)),
    "shape": (h_shape, ("input",)),
    "print": (None, ("*inputs",)),      # string tensors printed as TF's text (below)
}


# Inside a tf.function's trace, the generic ops given text go here (_traced_text).
TRACED_DISPATCH = None


def _dispatcher(fn, host_fn, params, name):
    # The tests, bound now: every call of the dispatched ops runs them, and the
    # module's public names are wrapped by _x64's scoping later.
    text_value, text_dtype = is_text, is_string_dtype
    names = list(inspect.signature(fn).parameters)
    if params == ("*inputs",):
        def test(args, kwargs):
            return builtins.any(isinstance(a, StringTensor) for a in args)
    else:
        where = [(p, names.index(p)) for p in params]
        dtype_params = {"dtype"}

        def test(args, kwargs):
            for p, i in where:
                v = args[i] if i < len(args) else kwargs.get(p)
                if v is None:
                    continue
                if p in dtype_params:
                    if text_dtype(v):
                        return True
                elif text_value(v):
                    return True
            return False

    if host_fn is None:
        # tf.print: each string tensor becomes its text (as TF prints it: no b'', quotes
        # in arrays), then the facade's print, which prints the others when it runs.
        def host_fn(*args, **kwargs):
            n = kwargs.get("summarize")
            n = 3 if n is None else int(n)
            return fn(*(summarize(a._v, n, quote_scalar=False) if isinstance(a, StringTensor)
                        else a
                        for a in args), **kwargs)

    tracing = _extend.function_trace

    @functools.wraps(fn)
    def dispatch(*args, **kwargs):
        if test(args, kwargs):
            if TRACED_DISPATCH is not None and tracing() is not None:
                return TRACED_DISPATCH(name, fn, host_fn, args, kwargs)
            return host_fn(*args, **kwargs)
        return fn(*args, **kwargs)
    dispatch._host_dispatch = True
    return dispatch


def install(tf_module):
    """Put a dispatcher in front of each facade function of ``HOST_OPS``, under every
    name the facade's modules bind it to (``tf.equal`` is ``tf.math.equal``)."""
    done = {}
    for name, (host_fn, params) in HOST_OPS.items():
        fn = getattr(tf_module, name)
        if getattr(fn, "_host_dispatch", False):
            continue
        done[id(fn)] = _dispatcher(fn, host_fn, params, name)
    _rebind(done, skip=("eagertape.tf._text",))

