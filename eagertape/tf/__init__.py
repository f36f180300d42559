"""A TensorFlow facade: ``import eagertape.tf as tf`` runs TF-eager code on JAX.

Aliases and thin argument adapters over eagertape's core, ``eagertape.numpy``
and ``eagertape.nn``; TF's names, argument names (``axis``, ``keepdims``,
``dtype``; ``name`` accepted and ignored) and defaults (float32, int32, argmax
over axis 0, ...). A name not covered raises AttributeError pointing to
``eagertape.numpy``.

>>> import eagertape.tf as tf
>>> w = tf.Variable([1.0, 2.0])
>>> with tf.GradientTape() as tape:
...     loss = tf.reduce_sum(w * w)
>>> tape.gradient(loss, w).numpy()
array([2., 4.], dtype=float32)
"""
import builtins
import sys
import types as _types

import jax
import jax.numpy as _jnp
import numpy as np

from .. import numpy as _np
from .. import optimizers as _optimizers
# The core's names are the facade's (re-exported as they are).
from ..extend import custom_gradient  # noqa: F401
from .. import Function as _Function
from .. import ForwardAccumulator as _ForwardAccumulator
from ..extend import call as _call
from ..extend import stop_gradient as _stop_gradient
from .. import extend as _extend
from .. import GradientTape as _CoreTape
from .. import UnconnectedGradients  # noqa: F401
from ..extend import convert_operand as _convert_operand, constant, convert_to_tensor  # noqa: F401
from ..extend import Tensor, TensorShape, as_dtype as _as_dtype, TensorLike as _TensorLike  # noqa: F401
from ..extend import Variable  # noqa: F401
from . import data, errors, image, linalg, math, nn, random, signal, train  # noqa: F401
from . import saved_model  # noqa: F401
from . import lite  # noqa: F401  (TF's converter in a TF process, LiteRT's interpreter)
from . import audio, io  # noqa: F401,A004
from . import summary  # noqa: F401  (TensorBoard's event files, written without TF)
from . import profiler  # noqa: F401  (TF's profiler API over jax.profiler)
from . import debugging, experimental, nest  # noqa: F401
from . import version  # noqa: F401
from .version import VERSION as __version__  # noqa: F401
from . import lookup, strings  # noqa: F401
from ._ragged import RaggedTensor, RaggedTensorSpec  # noqa: F401
from . import ragged  # noqa: F401
from .strings import as_string  # noqa: F401
from . import sparse  # noqa: F401
from .sparse import SparseTensor, SparseTensorSpec  # noqa: F401
from ._indexed_slices import IndexedSlices, IndexedSlicesSpec  # noqa: F401
from ._tensor_array import TensorArray  # noqa: F401
from .debugging import (Assert, assert_equal, assert_greater, assert_less,  # noqa: F401
                        assert_rank)
from ._module import Module, name_scope  # noqa: F401
from ._spec import TensorSpec  # noqa: F401
from ._extension_type import type_spec_from_value  # noqa: F401
from ._array import (boolean_mask, broadcast_dynamic_shape, broadcast_static_shape,  # noqa: F401
                     broadcast_to, ensure_shape, identity_n, meshgrid, pad, repeat, reverse,
                     roll, scatter_nd, searchsorted, sequence_mask, shape_n, slice,
                     tensor_scatter_nd_add, tensor_scatter_nd_max, tensor_scatter_nd_min,
                     tensor_scatter_nd_sub, tensor_scatter_nd_update, unique, unique_with_counts,
                     unravel_index)
from ._array import (batch_to_space, bitcast, dynamic_partition, dynamic_stitch,  # noqa: F401
                     histogram_fixed_width, histogram_fixed_width_bins,
                     reverse_sequence, space_to_batch, space_to_batch_nd, strided_slice)
from ._array import gather, gather_nd, one_hot, rank, shape, size  # noqa: F401
from ._runtime import (VariableAggregation, VariableSynchronization,  # noqa: F401
                       constant_initializer, control_dependencies, device,
                       get_current_name_scope, get_logger, get_static_value,
                       grad_pass_through, group, init_scope, inside_function,
                       is_symbolic_tensor, no_op, ones_initializer, random_normal_initializer,
                       random_uniform_initializer, recompute_grad, timestamp, tuple,
                       zeros_initializer)
from .linalg import eig, eigvals, sqrtm as matrix_square_root  # noqa: F401,E402
from .signal import fftnd, ifftnd, irfftnd, rfftnd  # noqa: F401,E402
from ._array import required_space_to_batch_paddings  # noqa: F401,E402
from .math import realdiv  # noqa: F401,E402
from .math import approx_max_k as approx_top_k  # noqa: F401,E402
from ._control_flow import (case, cond, foldl, foldr, map_fn, numpy_function,  # noqa: F401
                            py_function, scan, switch_case, vectorized_map, while_loop)
from .linalg import einsum, eye, norm, tensordot  # noqa: F401
from ._clip import clip_by_global_norm, clip_by_norm, clip_by_value  # noqa: F401
from ._util import _Unsupported, concrete as _concrete, same_dtype as _same, tensor as _t
from ._util import ints as _ints
# TF exports these tf.math functions at top level too (the same objects).
from .math import (abs, acos, add, add_n, argmax, argmin, asin, atan, atan2, cos, cosh,  # noqa: F401
                   cumsum, divide, equal, exp, floor, greater, greater_equal, less, less_equal,
                   log, logical_and, logical_not, logical_or, maximum, minimum, multiply,
                   negative, not_equal, pow, reduce_all, reduce_any, reduce_logsumexp,
                   reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_std, reduce_sum,
                   reduce_variance, round, sigmoid, sign, sin, sinh, sqrt, square, subtract,
                   tan, tanh, truediv)
from .math import (acosh, asinh, atanh, scalar_mul, truncatediv, truncatemod)  # noqa: F401,E402

# TF's graph-mode gradients, where a Keras program calls it: in a functional model's Lambda.
from ._graph_gradients import gradients  # noqa: F401,E402
from ._util import GRAPH as _GRAPH, SPARSE as _SPARSE, STRINGS as _STRINGS, left_out as _excluded
from ._left_out import NAMESPACES as _LEFT_OUT_NAMESPACES
_unsupported = _Unsupported("tf", {
    **_excluded(_STRINGS, "fingerprint"),
    **_excluded(_SPARSE, "ragged_fill_empty_rows "
                "ragged_fill_empty_rows_grad edit_distance"),
    **_excluded(_GRAPH, "import_graph_def AggregationMethod guarantee_const"),
    **_excluded("TF raises in eager mode too (a graph-only op); use tf.stack",
                "parallel_stack"),
    **_excluded("tf.hessians raises in TF's eager mode too; use "
                "tf.GradientTape (tape.jacobian)", "hessians"),
    **_excluded("TF's gradient registry: eagertape takes every gradient from jax.vjp; "
                "use tf.custom_gradient (or tf.stop_gradient for none)",
                "RegisterGradient no_gradient"),
    **_excluded("TF runtime internals (custom kernels, protos, composite-tensor type specs, "
                "variable creators, pinned memory, serving batching) with no JAX counterpart",
                "load_library load_op_library make_tensor_proto make_ndarray "
                "register_tensor_conversion_function CriticalSection variable_creator_scope "
                "check_pinned nondifferentiable_batch_function TypeSpec "
                "NoneTensorSpec OptionalSpec TensorArraySpec DeviceSpec"),
    **_excluded("TF's quantized and handle dtypes have no JAX dtype",
                "qint8 qint16 qint32 quint8 quint16 resource variant"),
    # Whole namespaces (tf.summary, tf.io, ...): the op-level hint would mislead there.
    **_LEFT_OUT_NAMESPACES,
})


# TF's aliases of tf.keras modules (in TF they are the same objects).
_KERAS_ALIASES = ("optimizers", "losses", "metrics", "initializers")


def __getattr__(name):
    if name in _KERAS_ALIASES:
        try:
            mod = getattr(__getattr__("keras"), name)
        except ImportError:
            if name != "optimizers":
                raise
            # Without Keras installed: eagertape's own optimizers (same rules).
            mod = _own_optimizers
        globals()[name] = mod
        return mod
    if name == "compat":
        # tf.compat: TF's compatibility helpers and tf.compat.v1's eager names (compat.py).
        import importlib
        return importlib.import_module(__name__ + ".compat")
    if name == "distribute":
        # tf.distribute (imported on first use): TF's strategies over JAX's devices.
        import importlib
        mod = importlib.import_module(__name__ + ".distribute")
        globals()[name] = mod
        return mod
    if name in ("Graph", "Operation"):
        # TF 1's graphs (tf.Graph().as_default(), for tf.compat.v1 programs).
        from . import _v1_graph
        return getattr(_v1_graph, name)
    if name == "autograph":
        # tf.autograph (imported on first use, as tf.function's AutoGraph is).
        from ._autograph import namespace as mod
        globals()[name] = mod
        return mod
    if name == "keras":
        # Keras 3 on JAX, imported on first use (it is an optional extra, and
        # slow to import); its fit/evaluate/predict take this facade's tf.data.Dataset.
        from ._keras import join_data, namespace
        mod = namespace()
        # TF's tf.keras.__version__ is Keras's (the namespace hides dunders).
        mod.__version__ = getattr(mod._module, "__version__", None) or __import__(
            "keras").__version__
        join_data(data.Dataset)
        globals()["keras"] = mod
        return mod
    return _unsupported(name)


newaxis = None      # tf.newaxis, for indexing: x[tf.newaxis, :]

# -- dtypes (NumPy dtypes; eagertape accepts them wherever TF takes a DType) --------
from . import dtypes  # noqa: E402
from .dtypes import (DType, bfloat16, bool, complex64, complex128, double, float16,  # noqa: F401,E402,A004
                     float32, float64, half, int8, int16, int32, int64, string, uint8, uint16,
                     uint32, uint64)
from .dtypes import as_dtype, cast, complex, saturate_cast  # noqa: F401,E402,A004


class GradientTape(_CoreTape):
    """``tf.GradientTape``. In a TF 1 program (one that called
    ``tf.enable_eager_execution()``) ``watch`` marks the tensor on every tape
    recording on this thread, as TF 1.x did; otherwise on this tape only (TF 2).

    >>> import eagertape.tf as tf
    >>> x = tf.constant([1.0, 2.0])
    >>> with tf.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = tf.reduce_sum(x ** 2)
    >>> tape.gradient(y, x).numpy()
    array([2., 4.], dtype=float32)
    """

    def watch(self, tensor):
        if not isinstance(tensor, _TensorLike):
            tensor = sparse._watched(tensor)      # a SparseTensor: its values, as TF
        super().watch(tensor)
        if _tf1["watch_all"]:
            for tape in _extend.recording_tapes():
                if tape is not self:
                    _CoreTape.watch(tape, tensor)

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        # TF refuses a SparseTensor source or target (alone, or in a list or tuple);
        # the core would differentiate its parts as a nest.
        for x in (target, sources):
            tp = type(x)
            if tp is SparseTensor or ((tp is list or tp is builtins.tuple)
                                      and SparseTensor in builtins.map(builtins.type, x)):
                raise ValueError("Type SparseTensor is not supported as a gradient source or "
                                 "gradient target; differentiate with respect to its values "
                                 "(sp.values), or the Variable they were read from")
        return super().gradient(target, sources, output_gradients, unconnected_gradients)


_tf1 = {"watch_all": False}


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """TF 1's switch to eager mode: eagertape is always eager, so this only marks
    the program as TF 1 code, which gets TF 1's ``watch`` rule (every tape on the
    stack)."""
    _tf1["watch_all"] = True


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_relax_shapes=None, name=None, **ignored):
    """``tf.function``: ``func`` traced once per input signature and run as one XLA
    executable (``eagertape.function``), with TF's rules: Python ``if``/``for``/
    ``while`` on Tensors converted by AutoGraph, one Function per instance for a
    method (``input_signature`` without ``self``), Variables made on the first
    trace only, ``get_concrete_function``. ``jit_compile`` is accepted and
    ignored: JAX always compiles with XLA. ``tf.config.run_functions_eagerly(True)``
    runs every function as plain Python instead.

    >>> import eagertape.tf as tf
    >>> @tf.function
    ... def step(x):
    ...     if tf.reduce_sum(x) > 0:          # AutoGraph: a tf.cond
    ...         x = x * x
    ...     return tf.reduce_sum(x)
    >>> float(step(tf.constant([1.0, 2.0]))), float(step(tf.constant([-1.0, -2.0])))
    (5.0, -3.0)
    >>> step.experimental_get_tracing_count()
    1
    """
    if func is None:
        return lambda f: function(f, input_signature=input_signature, autograph=autograph,
                                  reduce_retracing=reduce_retracing,
                                  experimental_relax_shapes=experimental_relax_shapes,
                                  name=name)
    from . import _autograph
    return _Function(func, input_signature=input_signature, name=name,
                     reduce_retracing=reduce_retracing or builtins.bool(experimental_relax_shapes),
                     autograph=_autograph.convert if autograph else None, tensor_outputs=True,
                     host_values=True)


def executing_eagerly():
    """Always True: eagertape is eager (``eagertape.function`` compiles, still eager)."""
    return True


def is_tensor(x):
    return isinstance(x, (_TensorLike, SparseTensor))


# -- shapes -----------------------------------------------------------------------
def reshape(tensor, shape, name=None):
    return _np.reshape(_t(tensor), _ints(shape))


def transpose(a, perm=None, conjugate=False, name=None):
    a = _t(a)
    out = _np.transpose(a, None if perm is None else _ints(perm))
    return _np.conj(out) if conjugate else out


def concat(values, axis, name=None):
    """Join ``values`` along ``axis``. Their dtypes are TF's one ``T``: Python
    values take the first Tensor's (``[x64, [0.3]]``: 0.3 in float64, not float32
    widened), and Tensors of two dtypes raise InvalidArgumentError.

    >>> import eagertape.tf as tf
    >>> tf.concat([tf.constant([1.0], tf.float64), [0.3]], 0).numpy()
    array([1. , 0.3])
    """
    if not isinstance(values, (list, builtins.tuple)):     # (tuple: here tf.tuple)
        values = [values]
    if len(values) == 1:
        return _np.concatenate([_t(values[0])], axis=axis)
    return _np.concatenate(_same(*values, listed=True), axis=axis)


def stack(values, axis=0, name=None):
    """Stack ``values`` along a new ``axis``; with a Tensor among them, their
    dtypes are TF's one ``T`` (as ``concat``).

    >>> import eagertape.tf as tf
    >>> tf.stack([tf.constant(1.0, tf.float64), 0.3]).numpy()
    array([1. , 0.3])
    """
    if any(isinstance(v, _TensorLike) for v in values):
        return _np.stack(_same(*values, listed=True), axis=axis)
    return _np.stack([_t(v) for v in values], axis=axis)


def unstack(value, num=None, axis=0, name=None):
    value = _t(value)
    if num is not None and value.shape[axis] != num:
        raise ValueError(f"argument `num` is {num} but the dimension {axis} has size "
                         f"{value.shape[axis]}")
    return list(_np.unstack(value, axis=axis))


def split(value, num_or_size_splits, axis=0, num=None, name=None):
    """Equal parts (an int) or parts of the given sizes (a list; one may be -1)."""
    value = _t(value)
    n = value.shape[axis]
    if isinstance(num_or_size_splits, (int, np.integer)):
        if n % num_or_size_splits:
            raise errors.InvalidArgumentError(
                f"argument `num_or_size_splits`: dimension {axis} of size {n} does not split "
                f"evenly into {num_or_size_splits} parts")
        return list(_np.split(value, int(num_or_size_splits), axis=axis))
    sizes = list(_ints(num_or_size_splits))
    if sizes.count(-1) == 1:
        sizes[sizes.index(-1)] = n - (builtins.sum(sizes) + 1)
    if builtins.sum(sizes) != n:
        raise errors.InvalidArgumentError(
            f"argument `num_or_size_splits`: sizes {sizes} do not add up to {n}")
    return list(_np.split(value, np.cumsum(sizes)[:-1].tolist(), axis=axis))


def squeeze(input, axis=None, name=None):
    return _np.squeeze(_t(input), axis=None if axis is None else
                       (builtins.tuple(axis) if isinstance(axis, list) else axis))


def expand_dims(input, axis, name=None):
    return _np.expand_dims(_t(input), axis)


def tile(input, multiples, name=None):
    return _np.tile(_t(input), _ints(multiples))


def where(condition, x=None, y=None, name=None):
    """``x`` where ``condition`` else ``y``; with one argument, the int64 coordinates of
    the true entries."""
    if x is None and y is None:
        return _np.argwhere(_t(condition)).astype("int64")
    if x is None or y is None:
        raise ValueError("arguments `x` and `y` must both be given, or neither")
    return _np.where(_t(condition), *_same(x, y))     # x and y: one dtype, as TF's SelectV2


def stop_gradient(input, name=None):
    """``input`` (converted as TF converts it: a list is one Tensor, None is a
    ValueError) with no gradient to anything.

    >>> import eagertape.tf as tf
    >>> x = tf.constant(3.0)
    >>> with tf.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = tf.stop_gradient(x) * x
    >>> float(tape.gradient(y, x))
    3.0
    """
    if not isinstance(input, _TensorLike):
        input = _t(input)
    return _stop_gradient(input)


# -- constructors -----------------------------------------------------------------
def zeros(shape, dtype="float32", name=None):
    with jax.ensure_compile_time_eval():    # a constant even while a tf.function traces
        return _np.zeros(_ints(shape), dtype=_as_dtype(dtype))


def ones(shape, dtype="float32", name=None):
    with jax.ensure_compile_time_eval():    # a constant even while a tf.function traces
        return _np.ones(_ints(shape), dtype=_as_dtype(dtype))


def _filled_like(x, value, dtype):
    out = _jnp.full_like(x, value, dtype)
    if _jnp.issubdtype(out.dtype, _jnp.inexact) and _jnp.issubdtype(x.dtype, _jnp.inexact):
        # TF's ZerosLike and OnesLike read their input and have no gradient, so
        # inside a tf.function the output is connected to the input through an op
        # without a gradient: its JVP is None, not the zeros of an independent
        # output. The select keeps that edge in the jaxpr, through stop_gradient
        # (which cuts it for gradients); XLA folds it away.
        edge = jax.lax.stop_gradient(_jnp.real(x) if _jnp.iscomplexobj(x)
                                     and not _jnp.iscomplexobj(out) else x)
        out = jax.lax.select_n(_jnp.bool_(False), out, edge.astype(out.dtype))
    return out


def zeros_like(input, dtype=None, name=None):
    return _call(_filled_like, (_t(input), 0, _as_dtype(dtype)))


def ones_like(input, dtype=None, name=None):
    return _call(_filled_like, (_t(input), 1, _as_dtype(dtype)))


def fill(dims, value, name=None):
    v = _t(value)
    with jax.ensure_compile_time_eval():    # a constant where `value` is one
        return _np.full(_ints(dims), v, dtype=v.dtype)


def range(start, limit=None, delta=1, dtype=None, name=None):  # noqa: A001
    """``tf.range``: int32 for integers, float32 for Python floats (TF's inference)."""
    if limit is None:
        start, limit = 0, start
    vals = [_concrete(v, "start, limit and delta") if isinstance(v, _TensorLike) else v
            for v in (start, limit, delta)]
    if dtype is None:
        # TF: the widest of the arguments' dtypes in int32 < int64 < float32 < float64
        order = [int32, int64, float32, float64]
        dts = [convert_to_tensor(v).dtype for v in vals]
        dtype = builtins.max(dts, key=lambda d: order.index(d) if d in order else len(order))
    return constant(np.arange(*vals).astype(_as_dtype(dtype)))


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values; ``stop`` is converted to ``start``'s dtype, and
    integer endpoints give float64 (TF divides them with truediv)."""
    start = _t(start)
    stop = _t(_convert_operand(stop, start.dtype, TypeError, ValueError))
    if np.issubdtype(start.dtype, np.integer):
        start, stop = start.astype("float64"), stop.astype("float64")
    return _np.linspace(start, stop, int(num), axis=axis).astype(start.dtype)


def identity(input, name=None):
    """A new Tensor with ``input``'s value, recorded (its gradient passes through);
    a SparseTensor's values, for a SparseTensor."""
    if isinstance(input, SparseTensor):
        return input.with_values(identity(input.values))
    return _np.asarray(_t(input))


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           name=None, **ignored):
    return linalg.matmul(a, b, transpose_a, transpose_b, adjoint_a, adjoint_b)


def sort(values, axis=-1, direction="ASCENDING", name=None):
    x = _np.sort(_t(values), axis=axis)
    return _np.flip(x, axis) if _check_direction(direction) else x


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    x = _t(values)
    if _check_direction(direction):
        return _np.argsort(-x if np.issubdtype(x.dtype, np.floating) else -x.astype("int64"),
                           axis=axis, stable=True).astype("int32")
    return _np.argsort(x, axis=axis, stable=True).astype("int32")


def _check_direction(direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"argument `direction` must be 'ASCENDING' or 'DESCENDING', "
                         f"got {direction!r}")
    return direction == "DESCENDING"


def print(*inputs, output_stream=None, sep=" ", end="\n", summarize=None, name=None):  # noqa: A001
    """Print Tensors by value (``tf.print``); to stderr by default, as TF. Inside a
    ``tf.function`` it prints when the function runs, at every call (a host
    callback in the compiled program), not when it is traced.

    >>> import sys
    >>> import eagertape.tf as tf
    >>> @tf.function
    ... def f(x):
    ...     tf.print("x is", x, output_stream=sys.stdout)
    >>> f(tf.constant([1, 2])); f(tf.constant([3, 4]))
    x is [1 2]
    x is [3 4]
    """
    def now(*xs):
        stream = sys.stderr if output_stream is None else output_stream
        text = sep.join(np.array2string(np.asarray(x.numpy())) if isinstance(x, _TensorLike)
                        else str(x) for x in xs)
        builtins.print(text, end=end, file=stream)

    if _extend.function_trace() is None:
        return now(*inputs)
    pos = [k for k, a in enumerate(inputs) if isinstance(a, _TensorLike)]

    def host(*vals):
        full = list(inputs)
        for k, v in zip(pos, vals):
            full[k] = Tensor(_jnp.asarray(v))
        now(*full)
    jax.debug.callback(host, *(inputs[k]._value for k in pos), ordered=True)


# -- optimizers, autodiff, TF 1 spellings -------------------------------------------
def _namespace(name, **attrs):
    mod = _types.ModuleType(name)
    mod.__dict__.update(attrs)
    mod.__getattr__ = _Unsupported(name)
    return mod


_own_optimizers = _namespace("tf.optimizers", SGD=_optimizers.SGD, Adam=_optimizers.Adam,
                             RMSprop=_optimizers.RMSprop, Adagrad=_optimizers.Adagrad,
                             Optimizer=_optimizers.Optimizer)
# TF 1.x eager spellings that TF's early eager tutorials use (tfe = tf.contrib.eager).
contrib = _namespace("tf.contrib", eager=_namespace(
    "tf.contrib.eager", Variable=Variable, GradientTape=GradientTape,
    executing_eagerly=executing_eagerly, enable_eager_execution=enable_eager_execution))
autodiff = _namespace("tf.autodiff", GradientTape=GradientTape,
                      ForwardAccumulator=_ForwardAccumulator)


class _TraceType:
    """``tf.types.experimental.TraceType``: what a ``tf.function`` argument's
    ``__tf_tracing_type__(context)`` returns to say which calls share a trace;
    subclasses define ``__eq__`` and ``__hash__`` (and may define TF's other
    methods, which eagertape does not call). Calls whose arguments give equal trace
    types share a trace.

    >>> import eagertape.tf as tf
    >>> class Kind(tf.types.experimental.TraceType):
    ...     def __init__(self, k): self.k = k
    ...     def __eq__(self, other): return isinstance(other, Kind) and other.k == self.k
    ...     def __hash__(self): return hash(self.k)
    >>> class Fruit:
    ...     def __init__(self, k): self.k = k
    ...     def __tf_tracing_type__(self, context): return Kind(self.k)
    >>> f = tf.function(lambda fruit, x: x * fruit.k)
    >>> _ = f(Fruit(2), tf.constant(1.0)); _ = f(Fruit(2), tf.constant(2.0))
    >>> f.experimental_get_tracing_count()
    1
    """


_TraceType.__name__ = _TraceType.__qualname__ = "TraceType"
types = _namespace("tf.types", experimental=_namespace(
    "tf.types.experimental", TraceType=_TraceType, TensorLike=_TensorLike))

from . import config  # noqa: E402,F401  (tf.config: JAX's devices in TF's form)


# After every facade module is loaded: their public functions run with TF's 64-bit
# types on, the user's JAX keeps its setting (what is scoped, and why: _x64.py).
from . import _x64  # noqa: E402
from . import _text  # noqa: E402
from . import _ragged  # noqa: E402

# Before the scoping: TF's generic ops take string tensors on the host (_text.py).
_text.install(sys.modules[__name__])
from . import _traced_text  # noqa: E402
_traced_text.install(sys.modules[__name__])   # and inside a tf.function (_traced_text.py)
from . import _ragged_shape  # noqa: E402
_ragged.install(sys.modules[__name__],    # and RaggedTensors (tf/_ragged.py)
                extra=_ragged_shape.dispatch_table())
from . import _shape_dims  # noqa: E402
_shape_dims.install(sys.modules[__name__])   # sizes JAX knows symbolically (_shape_dims.py)
_x64.scope()
