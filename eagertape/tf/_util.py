"""Helpers shared by the facade's modules: argument conversion (TF's rules), the
unsupported-name hook, rebinding a replaced function under all its names."""
import collections
import sys
import types

import jax
import numpy as np

from ..extend import InvalidArgumentError
from ..extend import convert_operand as _convert_operand, dtype_mismatch as _mismatch, convert_to_tensor
from .. import extend as _extend
from ..extend import Tensor, TensorLike as _TensorLike


class _Unsupported:
    """Module ``__getattr__`` for names the facade does not cover: yet, or ever
    (``left_out``: name → why; ``python -m eagertape coverage`` reads these)."""

    def __init__(self, module, left_out=None):
        self.module, self.left_out = module, dict(left_out or {})

    def __call__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self.left_out:
            raise AttributeError(f"{self.module}.{name} is left out of eagertape's TensorFlow "
                                 f"facade: {self.left_out[name]}")
        raise AttributeError(
            f"{self.module}.{name} is not supported by eagertape's TensorFlow facade yet; "
            "use the recorded jax.numpy in eagertape.numpy (or eagertape.nn), or "
            "eagertape.primitive(fn) to record any JAX function")


def left_out(reason, names):
    """``{name: reason}`` for a ``_Unsupported`` table."""
    return dict.fromkeys(names.split(), reason)


STRINGS = ("TF's fingerprint of any tensor's bytes is not reproduced; for strings, "
           "tf.strings.to_hash_bucket_fast gives TF's Fingerprint64 buckets")
SPARSE = ("TF's raw ragged kernels and edit distance on SparseTensors have no "
          "counterpart here: use tf.ragged's ops (or rt.to_tensor()) and tf.sparse's")
GRAPH = "TF graph-mode API with no meaning in eager TF-2 programs"


def tensor(x, dtype=None):
    """A Tensor from a facade argument (Variables read, Python numbers as TF converts them)."""
    if isinstance(x, Tensor) and dtype is None:
        return x
    return convert_to_tensor(x, dtype=dtype)


def _as_tensor(x):
    return x if isinstance(x, _TensorLike) else convert_to_tensor(x)


# TF's functions convert their arguments by one of two rules (checked against
# TF 2.21 in tests/test_tf_conversions.py); eagertape.numpy keeps NumPy's.

def same_dtype(*values, fail=TypeError, listed=False):
    """TF's rule for an op whose inputs share one dtype (``T`` in the op's
    signature: ``multiply``, ``subtract``, ``maximum``, ``pow``, ``equal``,
    ``where``, ...), as its eager fast path applies it: the first Tensor or
    Variable among ``values`` fixes the dtype (with none, the first value as TF
    converts it alone: float32 for Python floats, a NumPy array's own dtype); the
    others are converted to it (Python values only without loss, else ``fail``;
    NumPy arrays cast), and a tensor of another dtype raises InvalidArgumentError.

    >>> import numpy as np
    >>> import eagertape.tf as tf
    >>> from eagertape.tf._util import same_dtype
    >>> [t.numpy() for t in same_dtype(np.array([1.5, 2.0]), tf.constant([1, 2]))]
    [array([1, 2], dtype=int32), array([1, 2], dtype=int32)]
    """
    if _extend.function_trace() is not None and not listed:
        # (a list input, ``listed``: its first tensor fixes the dtype in TF's graph too)
        return _in_order(values, fail)
    promote = _extend.operator_promotion()
    if promote is not None and len(values) == 2:     # tf.experimental.numpy's switch
        values = promote(_as_tensor(values[0]), values[1], op=True)
    first = next((v for v in values if isinstance(v, _TensorLike)), None)
    if first is None:
        first = tensor(values[0])
        values = (first,) + tuple(values[1:])
    d = first.dtype
    return [_as_tensor(_convert_operand(v, d, fail)) for v in values]


def _in_order(values, fail):
    # Inside a tf.function TF builds a graph, whose ops infer ``T`` from their inputs
    # in order: a Python first argument is converted alone (float32 for a float) and
    # a later tensor of another dtype is a TypeError (TF's eager path picks the
    # first tensor's dtype instead).
    first = _as_tensor(values[0])
    out = [first]
    for v in values[1:]:
        try:
            out.append(_as_tensor(_convert_operand(v, first.dtype, fail)))
        except InvalidArgumentError:
            raise TypeError(_graph_mismatch(v.dtype, first.dtype)) from None
    return out


def _graph_mismatch(got, want):
    return (f"an input has type {np.dtype(got).name} that does not match type "
            f"{np.dtype(want).name} of the op's first argument (inside a tf.function, TF's "
            "graph converts a Python first argument alone: float32 for a float, int32 for "
            "an int); give it as a tensor of the dtype meant, e.g. "
            "tf.constant(..., dtype=...)")


def each_alone(*values):
    """TF's third rule, for ops whose Python wrapper converts each argument alone
    (``add_n``, ``tensordot``): no argument's dtype guides another's (a Python
    float is float32 beside a float64 Tensor), and two dtypes raise
    InvalidArgumentError.

    >>> import eagertape.tf as tf
    >>> from eagertape.tf._util import each_alone
    >>> [t.dtype for t in each_alone([1.0], tf.constant([2.0]))]
    [tf.float32, tf.float32]
    """
    ts = [tensor(v) for v in values]
    for t in ts[1:]:
        if t.dtype != ts[0].dtype:
            raise _mismatch(ts[0].dtype, t.dtype, InvalidArgumentError)
    return ts


def hinted(x, y, mismatch=InvalidArgumentError):
    """TF's ``x = convert_to_tensor(x); y = convert_to_tensor(y, dtype_hint=x.dtype)``
    (``tf.add``, ``tf.matmul``, ``tf.truediv``): ``x`` as it is, ``y`` in ``x``'s
    dtype if it converts to it, else as it is; then different dtypes raise
    ``mismatch`` (InvalidArgumentError from the op; TypeError for truediv).

    >>> import numpy as np
    >>> import eagertape.tf as tf
    >>> from eagertape.tf._util import hinted
    >>> [t.dtype for t in hinted(tf.constant([1., 2.]), [3, 4])]   # y takes x's dtype
    [tf.float32, tf.float32]
    >>> hinted(np.array([1., 2.]), tf.constant([1., 2.]))          # float64, float32
    Traceback (most recent call last):
        ...
    eagertape._errors.InvalidArgumentError: an operand of dtype float32 cannot be combined with a tensor of dtype float64: ...
    """
    x = _as_tensor(x)
    promote = _extend.operator_promotion()
    if promote is not None:                          # tf.experimental.numpy's switch
        x, y = promote(x, y, op=True)
    if isinstance(y, _TensorLike):
        yt = y
    else:
        try:
            yt = _as_tensor(_convert_operand(y, x.dtype))
        except TypeError:
            yt = tensor(y)
    if yt.dtype != x.dtype:
        if _extend.function_trace() is not None:
            raise TypeError(_graph_mismatch(yt.dtype, x.dtype))     # TF's graph: see _in_order
        raise _mismatch(x.dtype, yt.dtype, mismatch)
    return x, yt


def float_attr(value, argname):
    """TF's conversion of a ``float`` attribute of an op (``leaky_relu``'s
    ``alpha``, ``local_response_normalization``'s ``bias``): a real number (a
    one-element NumPy array too), kept as a C ``float``, so the kernel computes
    with it rounded to float32 even on float64 tensors, as here.

    >>> from eagertape.tf._util import float_attr
    >>> float_attr(0.3, "alpha"), float_attr(2, "alpha")
    (0.30000001192092896, 2.0)
    """
    import numbers
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.item()
    if not isinstance(value, (numbers.Real, np.integer, np.floating)):
        raise TypeError(f"argument `{argname}`: Expected float for argument '{argname}' "
                        f"not {value!r}.")
    return float(np.float32(value))


# The value a traced Tensor was built from constants, else None (set by
# tf/_shape_dims.py's install: tf.constant made in a trace, and sizes built from it).
FOLDED_VALUE = lambda x: None  # noqa: E731


def constant_value(x):
    """``x``'s value as a NumPy array where it is known while a tf.function traces:
    a concrete value, or the constant a traced Tensor was built from (TF's
    ``tensor_util.constant_value``: ``tf.constant([1, 2])`` made in the trace and
    ``tf.concat``/``tf.stack``/arithmetic of such sizes); else None.

    >>> import eagertape.tf as tf
    >>> @tf.function
    ... def f(x):
    ...     return tf.reshape(x, tf.constant([-1, 2]))   # the shape is read here
    >>> f(tf.zeros(4)).shape
    TensorShape([2, 2])
    """
    v = x._value if isinstance(x, _TensorLike) else x
    if isinstance(v, jax.core.Tracer):
        return FOLDED_VALUE(x)
    return np.asarray(v)


def concrete(x, what=None):
    """``x``'s value as a NumPy array (``constant_value``); None while
    ``eagertape.function`` traces it (or, with ``what``, a clear error: that
    argument must be known when tracing)."""
    v = constant_value(x)
    if v is None:
        if what is None:
            return None
        raise TypeError(
            f"argument `{what}` must be known when a tf.function is traced (JAX compiles "
            "static shapes and sizes); pass a Python value, or a tensor computed from "
            "shapes (tf.shape(x)) rather than from the function's input values")
    return np.asarray(v)


# The sizes a shape argument holds where JAX knows one only symbolically, else None
# (set by tf/_shape_dims.py's install: tf.shape of a None dimension).
SYMBOLIC_DIMS = lambda shape: None  # noqa: E731


def ints(shape, what="shape"):
    """A shape or sizes argument as a tuple of ints. JAX compiles static shapes, so
    inside a tf.function it must be known when tracing (a Python value, or
    tf.shape(...) of a tensor). Sizes JAX knows only symbolically (tf.shape of a
    None dimension, tf/_shape_dims.py) are given as they are."""
    dims = SYMBOLIC_DIMS(shape)
    if dims is not None:
        return dims
    if isinstance(shape, _TensorLike):
        shape = concrete(shape, what)
    elif isinstance(shape, (list, tuple)) and any(isinstance(d, _TensorLike) for d in shape):
        shape = [concrete(d, what) if isinstance(d, _TensorLike) else d for d in shape]
    return tuple(int(s) for s in np.reshape(np.asarray(shape), -1))


def rebind(replaced, skip=()):
    """Bind each replaced function (``replaced``: ``id(old) -> new``) under every name
    the facade's modules, and the namespace objects they hold, bind the old one to
    (``tf.equal`` is ``tf.math.equal``): how the text and ragged dispatchers go in
    front of TF's generic ops. Modules starting with a name in ``skip`` are left as
    they are (the dispatcher's own, which calls the originals)."""
    spaces = [vars(m) for n, m in list(sys.modules.items()) if m is not None and (
        n == "eagertape.tf" or n.startswith("eagertape.tf.")) and not n.startswith(
            ("eagertape.tf.keras", "eagertape.tf._keras") + tuple(skip))]
    for space in list(spaces):
        for v in list(space.values()):
            if isinstance(v, types.ModuleType) and not v.__name__.startswith("eagertape") \
                    and v.__name__.startswith("tf."):
                spaces.append(vars(v))
    for space in spaces:
        for k, v in list(space.items()):
            new = replaced.get(id(v))
            if new is not None:
                space[k] = new


# tf.unique's and tf.unique_with_counts's results (numbers in _array, strings in _text).
Unique = collections.namedtuple("Unique", "y idx")
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", "y idx count")
