"""``tf.debugging``: the ``assert_*`` checks, ``check_numerics``, ``Assert``.

TF's error classes: InvalidArgumentError for a value that fails (the message
holds ``message`` and the first ``summarize`` values, laid out as TF's eager
messages), ValueError for a static shape or rank, TypeError for a dtype.

Inside a ``tf.function`` being traced, shape, rank and dtype checks run at
once (shapes are static there), as do value checks on values known when
tracing. A value check on a traced value runs when the compiled function runs
(a ``jax.debug.callback``, as TF's graph runs its Assert op), and fails there
with TF's InvalidArgumentError: the core's compiled call raises a host callback's
error as it was (``extend.host_raising``), not as JAX's runtime error.

>>> import eagertape.tf as tf
>>> tf.debugging.assert_less(tf.constant([1.0, 2.0]), 3.0)
>>> try:
...     tf.debugging.assert_equal(tf.constant([1, 2]), [1, 5], message="step 3")
... except tf.errors.InvalidArgumentError as e:
...     print(str(e).splitlines()[:2])
['step 3', 'Condition x == y did not hold.']
"""
import builtins
from collections import abc

import jax
import numpy as np

from .. import debug as _debug
from .. import numpy as _np
from ..extend import InvalidArgumentError
from ..extend import host_raising as _host_raising
from ..extend import convert_to_tensor
from ..extend import Tensor, as_dtype as _as_dtype, TensorLike as _TensorLike
from . import math as _math
from ._util import _Unsupported, concrete

__getattr__ = _Unsupported("tf.debugging")


def _tensor(x):
    return x if isinstance(x, _TensorLike) else convert_to_tensor(x)


def _pretty(item, summarize):
    """One item of an assertion's data as TF's eager message shows it."""
    if isinstance(item, _TensorLike):
        arr = item.numpy()
        if arr.ndim == 0:
            return str(arr)
        flat = [str(v) for v in arr.reshape(-1)[:summarize]]
        return str(flat + ["..."] if len(flat) < arr.size else flat)
    return str(item)


def _fail(data, summarize):
    raise InvalidArgumentError("\n".join(_pretty(d, summarize) for d in data))


def _check(ok, data_fn, summarize):
    """Raise with ``data_fn()`` unless the bool Tensor ``ok`` is all true; on a
    traced value, the same check when the compiled function runs."""
    summarize = 3 if summarize is None else (10 ** 9 if summarize < 0 else summarize)
    v = concrete(ok)
    if v is not None:
        if not np.all(v):
            _fail(data_fn(), summarize)
        return

    def at_run_time(all_ok):
        if not all_ok:
            raise InvalidArgumentError("a tf.debugging assertion failed inside a tf.function")
    jax.debug.callback(_host_raising(at_run_time), jax.numpy.all(ok._value))


def _binary(sym, test, x, y, message, summarize, data=None):
    x, y = _tensor(x), _tensor(y)
    mask = test(x, y)

    def data_fn():
        if data is not None:
            out = list(data)
        else:
            n = 3 if summarize is None else (10 ** 9 if summarize < 0 else summarize)
            out = [f"Condition x {sym} y did not hold."]
            if n > 0:
                if x.shape == y.shape and x.shape.as_list():
                    bad = ~np.asarray(mask)
                    idx = np.argwhere(bad)
                    k = builtins.min(n, idx.shape[0])
                    out += [f"Indices of first {k} different values:", idx[:k],
                            "Corresponding x values:", x.numpy()[bad].reshape(-1)[:k],
                            "Corresponding y values:", y.numpy()[bad].reshape(-1)[:k]]
                out += [f"First {builtins.min(n, x.size)} elements of x:",
                        x.numpy().reshape(-1)[:n],
                        f"First {builtins.min(n, y.size)} elements of y:",
                        y.numpy().reshape(-1)[:n]]
        return ([message] if message is not None else []) + out
    _check(mask, data_fn, summarize)


def _binary_doc(sym):
    def deco(f):
        f.__doc__ = (f"Raise InvalidArgumentError unless ``x {sym} y`` everywhere (broadcast);"
                     " ``message`` and the first ``summarize`` (3) differing values are in "
                     "its message.\n\n    >>> import eagertape.tf as tf\n    >>> "
                     f"tf.debugging.{f.__name__}(tf.constant([1, 2]), tf.constant([1, 2])"
                     f"{' + 1' if sym in ('<', '!=') else ' - 1' if sym == '>' else ''})\n    ")
        return f
    return deco


@_binary_doc("==")
def assert_equal(x, y, message=None, summarize=None, name=None):
    return _binary("==", _math.equal, x, y, message, summarize)


@_binary_doc("!=")
def assert_none_equal(x, y, summarize=None, message=None, name=None):
    return _binary("!=", _math.not_equal, x, y, message, summarize)


@_binary_doc("<")
def assert_less(x, y, message=None, summarize=None, name=None):
    return _binary("<", _math.less, x, y, message, summarize)


@_binary_doc("<=")
def assert_less_equal(x, y, message=None, summarize=None, name=None):
    return _binary("<=", _math.less_equal, x, y, message, summarize)


@_binary_doc(">")
def assert_greater(x, y, message=None, summarize=None, name=None):
    return _binary(">", _math.greater, x, y, message, summarize)


@_binary_doc(">=")
def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    return _binary(">=", _math.greater_equal, x, y, message, summarize)


def _sign(sym, test, x, message, summarize):
    x = _tensor(x)
    zero = _np.zeros((), dtype=x.dtype)
    data = [message or "", f"Condition x {sym} 0 did not hold element-wise:",
            f"x (shape={x.shape} dtype={x.dtype.name}) = ", x]
    _binary(sym, lambda a, b: test(a, b), x, zero, None, summarize, data=data)


def assert_positive(x, message=None, summarize=None, name=None):
    """Raise InvalidArgumentError unless every ``x > 0``.

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_positive(tf.constant([1.0, 2.0]))
    """
    _sign(">", _math.greater, x, message, summarize)


def assert_negative(x, message=None, summarize=None, name=None):
    """Raise InvalidArgumentError unless every ``x < 0``.

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_negative(tf.constant([-1, -2]))
    """
    _sign("<", _math.less, x, message, summarize)


def assert_non_negative(x, message=None, summarize=None, name=None):
    """Raise InvalidArgumentError unless every ``x >= 0``.

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_non_negative(tf.constant([0, 2]))
    """
    _sign(">=", _math.greater_equal, x, message, summarize)


def assert_non_positive(x, message=None, summarize=None, name=None):
    """Raise InvalidArgumentError unless every ``x <= 0``.

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_non_positive(tf.constant([0, -2]))
    """
    _sign("<=", _math.less_equal, x, message, summarize)


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Raise InvalidArgumentError unless ``|x - y| <= atol + rtol * |y|`` everywhere
    (both tolerances 10 eps of the dtype by default, as TF).

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_near(tf.constant([1.0]), tf.constant([1.0000001]))
    """
    x = _tensor(x)
    y = _tensor(y) if isinstance(y, _TensorLike) else convert_to_tensor(y, dtype=x.dtype)
    eps = float(np.finfo(x.dtype).eps) if np.issubdtype(x.dtype, np.inexact) else 0
    rtol = np.asarray(10 * eps if rtol is None else rtol, dtype=x.dtype)
    atol = np.asarray(10 * eps if atol is None else atol, dtype=x.dtype)
    ok = _math.less_equal(_math.abs(x - y), atol + rtol * _math.abs(y))
    n = 3 if summarize is None else summarize
    data = [f"{message}.  " if message is not None else "",
            f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}",
            f"x (shape={x.shape} dtype={x.dtype.name}) = ",
            ", ".join(str(v) for v in x.numpy().reshape(-1)[:n]),
            f"y (shape={y.shape} dtype={y.dtype.name}) = ",
            ", ".join(str(v) for v in y.numpy().reshape(-1)[:n])]
    _check(ok, lambda: data, summarize)


# -- static checks: shapes, ranks, dtypes (ValueError / TypeError) ----------------
def _prefix(message):
    return f"{message}.  " if message else ""


def assert_rank(x, rank, message=None, name=None):
    """Raise ValueError unless ``x`` has rank ``rank``.

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_rank(tf.zeros([2, 3]), 2)
    """
    x = _tensor(x)
    if x.ndim != int(rank):
        raise ValueError(f"{_prefix(message)}Tensor  must have rank {int(rank)}.  Received "
                         f"rank {x.ndim}, shape {x.shape}")


def assert_rank_at_least(x, rank, message=None, name=None):
    """Raise ValueError unless ``x`` has rank ``rank`` or more.

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_rank_at_least(tf.zeros([2, 3]), 1)
    """
    x = _tensor(x)
    if x.ndim < int(rank):
        raise ValueError(f"{_prefix(message)}Tensor  must have rank at least {int(rank)}.  "
                         f"Received rank {x.ndim}, shape {x.shape}")


def assert_rank_in(x, ranks, message=None, name=None):
    """Raise ValueError unless the rank of ``x`` is one of ``ranks``.

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_rank_in(tf.zeros([2, 3]), [0, 2])
    """
    x = _tensor(x)
    ranks = tuple(int(r) for r in ranks)
    if x.ndim not in ranks:
        raise ValueError(f"{_prefix(message)}Tensor  must have rank in {ranks}.  Received "
                         f"rank {x.ndim}, shape {x.shape}")


def assert_scalar(tensor, message=None, name=None):
    """Raise ValueError unless ``tensor`` is a scalar.

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_scalar(tf.constant(1.0))
    """
    t = _tensor(tensor)
    if t.ndim != 0:
        raise ValueError(f"{message or ''}Expected scalar shape, saw shape: {t.shape}.")


def assert_type(tensor, tf_type, message=None, name=None):
    """Raise TypeError unless ``tensor`` has dtype ``tf_type``.

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_type(tf.constant(1), tf.int32)
    """
    want, got = _as_dtype(tf_type), _tensor(tensor).dtype
    if got != want:
        raise TypeError(f"{message or ''}tensor must be of type tf.{want.name}; "
                        f"got tf.{got.name}")


def assert_integer(x, message=None, name=None):
    """Raise TypeError unless ``x`` has an integer dtype.

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_integer(tf.constant([1, 2]))
    """
    d = _tensor(x).dtype
    if not np.issubdtype(d, np.integer):
        raise TypeError(f'{_prefix(message)}Expected "x" to be integer type.  Found: tensor '
                        f"of dtype <dtype: '{d.name}'>")


def assert_same_float_dtype(tensors=None, dtype=None):
    """The one floating dtype of ``tensors`` (and ``dtype``); ValueError if they
    differ or it is not floating. float32 when there is none.

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_same_float_dtype([tf.zeros([2])]).name
    'float32'
    """
    dtypes = [_tensor(t).dtype for t in tensors or []] + ([_as_dtype(dtype)] if dtype else [])
    if not dtypes:
        return np.dtype("float32")
    if any(d != dtypes[0] for d in dtypes):
        raise ValueError(f"Expected dtypes to be the same, got {[d.name for d in dtypes]}")
    if not np.issubdtype(dtypes[0], np.floating):
        raise ValueError(f"Expected floating point type, got {dtypes[0].name}.")
    return dtypes[0]


def assert_proper_iterable(values):
    """Raise TypeError unless ``values`` is an iterable of values (not a Tensor,
    array or string).

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_proper_iterable([1, 2])
    """
    if isinstance(values, (_TensorLike, np.ndarray, jax.Array, str, bytes)) or \
            not isinstance(values, abc.Iterable):
        raise TypeError('Expected argument "values" to be a "proper" iterable.  Found: '
                        f"{type(values)}")


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Raise ValueError unless every tensor has its shape: a list of
    ``(tensor, dims)`` pairs (or a dict), each dim an int, a symbol (a str:
    the same symbol is the same size across tensors) or ``'.'``/None (any);
    a leading ``'*'`` takes any number of leading dimensions.

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N", 3)), (tf.zeros([2]), ("N",))])
    """
    pairs = list(shapes.items()) if isinstance(shapes, abc.Mapping) else list(shapes)
    sizes = {}
    pre = _prefix(message)
    for x, spec in pairs:
        x = _tensor(x.deref() if hasattr(x, "deref") else x)
        spec = list(spec) if isinstance(spec, (list, tuple)) else list(str(spec))
        shape = x.shape.as_list()
        about = f"shape={x.shape} dtype={x.dtype.name}"
        if spec[:1] == ["*"]:
            spec = spec[1:]
            if len(shape) < len(spec):
                raise ValueError(f"{pre}Tensor {about} must have rank at least {len(spec)}.  "
                                 f"Received rank {len(shape)}, shape {x.shape}")
            shape = shape[len(shape) - len(spec):]
        elif len(shape) != len(spec):
            raise ValueError(f"{pre}Tensor {about} must have rank {len(spec)}.  Received rank "
                             f"{len(shape)}, shape {x.shape}")
        offset = x.ndim - len(spec)
        for i, (d, s) in enumerate(zip(shape, spec)):
            if s is None or s == ".":
                continue
            if isinstance(s, str):
                if s not in sizes:
                    sizes[s] = (d, about, i + offset)
                    continue
                want, by, at = sizes[s]
                where = f"Specified by tensor {by} dimension {at}.  "
            else:
                want, where = int(s), ""
            if d != want:
                raise ValueError(f"{pre}{where}Tensor {about} dimension {i + offset} must "
                                 f"have size {want}.  Received size {d}, shape {x.shape}")


# -- numerics and Assert -----------------------------------------------------------
def check_numerics(tensor, message, name=None):
    """``tensor`` (a new Tensor, its gradient passed through), or
    InvalidArgumentError if it holds a NaN or an infinity.

    >>> import eagertape.tf as tf
    >>> tf.debugging.check_numerics(tf.constant([1.0, 2.0]), "weights").numpy()
    array([1., 2.], dtype=float32)
    """
    t = _tensor(tensor)
    if not np.issubdtype(t.dtype, np.inexact):
        raise TypeError(f"tf.debugging.check_numerics takes a floating tensor, got "
                        f"{t.dtype.name}")
    v = concrete(t)

    def bad_report(arr):
        nan, inf = np.isnan(arr).any(), np.isinf(arr).any()
        kinds = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf" if inf else None
        return None if kinds is None else f"{message} : Tensor had {kinds} values"
    if v is not None:
        report = bad_report(v)
        if report:
            raise InvalidArgumentError(report)
    else:
        def at_run_time(arr):
            report = bad_report(np.asarray(arr))
            if report:
                raise InvalidArgumentError(report)
        jax.debug.callback(_host_raising(at_run_time), t._value)
    return _np.asarray(t)


def assert_all_finite(x, message, name=None):
    """``check_numerics`` (TF 2's ``assert_all_finite`` returns ``x`` checked).

    >>> import eagertape.tf as tf
    >>> tf.debugging.assert_all_finite(tf.constant(1.0), "loss").numpy()
    np.float32(1.0)
    """
    return check_numerics(x, message)


def Assert(condition, data, summarize=None, name=None):
    """Raise InvalidArgumentError with ``data`` (its first ``summarize`` values)
    unless ``condition`` is true.

    >>> import eagertape.tf as tf
    >>> tf.debugging.Assert(tf.constant(True), ["never shown"])
    """
    n = 3 if summarize is None else summarize

    def data_fn():
        items = [", ".join(str(v) for v in d.numpy().reshape(-1)[:n]) if isinstance(
            d, _TensorLike) else repr(d.encode() if isinstance(d, str) else d) for d in data]
        return [f"Expected '{condition}' to be true. Summarized data: " + "\n".join(items)]
    _check(_tensor(condition), data_fn, n)


def is_numeric_tensor(tensor):
    """Whether ``tensor`` is a Tensor of a numeric dtype (a Variable is not, as TF's).

    >>> import eagertape.tf as tf
    >>> tf.debugging.is_numeric_tensor(tf.constant(1.0)), tf.debugging.is_numeric_tensor(1.0)
    (True, False)
    """
    return isinstance(tensor, Tensor) and tensor.dtype != np.bool_ and \
        np.issubdtype(tensor.dtype, np.number)


# -- switches ------------------------------------------------------------------------
_log_device_placement = [False]


def set_log_device_placement(enabled):
    """Accepted and recorded; eagertape logs no placements (JAX places arrays)."""
    _log_device_placement[0] = builtins.bool(enabled)


def get_log_device_placement():
    return _log_device_placement[0]


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """Check every op's floating outputs, and every gradient, for NaN and infinity
    from now on (this thread): ``eagertape.debug.enable_check_numerics``. The
    first op that makes one raises ``eagertape.debug.NumericsError`` (an
    InvalidArgumentError) naming the op and the line that called it. Not inside
    a tf.function being traced.

    >>> import eagertape.tf as tf
    >>> tf.debugging.enable_check_numerics(); tf.debugging.disable_check_numerics()
    """
    _debug.enable_check_numerics()


def disable_check_numerics():
    """Stop what ``enable_check_numerics`` started."""
    _debug.disable_check_numerics()


def enable_traceback_filtering():
    """Accepted; eagertape does not filter tracebacks."""


def disable_traceback_filtering():
    """Accepted; eagertape does not filter tracebacks."""


def is_traceback_filtering_enabled():
    return False
