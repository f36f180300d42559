"""What code built on eagertape's tapes may use: the extension surface.

A facade (``eagertape.tf``) or a join of another library (Keras, in
``eagertape.tf``) defines recorded operations and Tensor types with the names
here and the public modules (``eagertape``, ``eagertape.numpy``, ``eagertape.nn``,
``eagertape.optimizers``, ...), never with the core's private modules; a test
(``tests/test_structure.py``) holds ``eagertape/tf/`` to that. The core may rename
anything else; these names keep their meaning.

An operation is a JAX function recorded as one call (``primitive``, ``call``);
``jax.vjp`` gives its gradient, as for every recorded call. Its arguments are
converted by TF's rules (``convert_to_tensor``, ``convert_operand``), its results
are ``Tensor``\\ s. Code that must compute values without being recorded (a data
pipeline, a random stream's state, a library's own bookkeeping) runs under
``outside_recording()``; code traced inside a recorded call (a ``cond``'s
branch) runs under ``unrecorded()``.

>>> import jax.numpy as jnp
>>> import eagertape as et
>>> from eagertape import extend
>>> def softsign(x):
...     x = extend.convert_to_tensor(x)
...     return extend.call(lambda v: v / (1 + jnp.abs(v)), (x,), name="softsign")
>>> v = et.Variable(1.0)
>>> with et.GradientTape() as tape:
...     y = softsign(v)
>>> float(y), float(tape.gradient(y, v))
(0.5, 0.25)
>>> with et.GradientTape() as tape:
...     with extend.outside_recording():
...         z = softsign(v)
>>> print(tape.gradient(z, v))
None

The names, by what they are for:

- recorded operations: ``primitive``, ``call``, ``stop_gradient``,
  ``custom_gradient``, ``reading_inputs``, ``tie``, ``is_inexact``; ``Cotangent``,
  the base of a gradient a ``custom_gradient`` may give that is not a dense
  Tensor (``tf.IndexedSlices``);
- Tensors and Variables: ``Tensor``, ``Variable``, ``TensorLike``,
  ``TensorShape`` (its ``dims`` are ``Dimension`` objects), ``is_tensor_like``,
  ``wrap``, ``standin``, ``VariableAlias``, ``new_variable_id``; a ``Tensor``
  subclass whose value is a host NumPy array JAX cannot hold (the facade's string
  tensors) sets ``_host_only = True``: a ``function`` refuses it as an argument (a
  TypeError naming the argument) and gives it back as it is where the traced code
  returns it;
- conversion and dtypes: ``convert_to_tensor``, ``constant``,
  ``convert_operand``, ``dtype_mismatch``, ``as_dtype``, ``python_default_dtype``,
  ``DType``, ``dtype_category``, ``foreign_variable_error``;
- what records now: ``outside_recording``, ``unrecorded``, ``init_scope``,
  ``recording``, ``recording_tapes``, ``watching_reads``, ``function_trace``,
  ``scratch_trace``, ``VARIABLE_ON_LATER_TRACE``, ``current_name_scope``,
  ``in_name_scope``, ``in_trace_context``; ``next_element(iterator, fetch)``, an
  iterator's next element as a traced function takes it (an input of each call);
- exporting: ``pure_trace`` (a ``tf.function`` as a pure JAX function of its
  Variables' values, for ``jax.export``);
- another library's compiled functions: ``variables_threaded(fun, jit)`` (Keras's
  jitted steps, taking the Variables they read and write as inputs and outputs);
- fused mode: ``run_pending`` (before a JAX function that donates its arguments);
- settings and 64-bit types: ``config``, ``x64``, ``x64_modules``,
  ``operator_promotion`` (the per-process type-promotion hook of the operators);
- errors and caches: ``OpError``, ``InvalidArgumentError``, ``CacheTable``;
  ``host_raising(fn)``, a host callback (``jax.debug.callback``) whose exception
  a compiled call raises as it was, not as JAX's runtime error, and
  ``host_error_original(error)``, that exception taken back from JAX's error;
- traces a facade runs itself (tf.data's staged maps): ``Function``, ``HostSpec`` (a
  host value's spec in a trace), ``TRACED_ARRAY`` (a trace's mark of an array
  output), ``failed_call_retry`` (the choke point's hook for a call that fails to
  trace).
- TF 1's graphs: ``SymbolicGraph`` (deferred calls, run later on fed values),
  ``building_graph(graph)`` (a context in which recorded calls add nodes to it),
  ``current_graph()``, ``evaluate_graph`` (run part of one), ``symbolic_value(t)``
  (a Tensor's value in such a graph, or None) and ``SymbolicValueError``.
"""
import contextlib as _contextlib

from ._cache import Table as CacheTable
from ._config import config
from ._connected import _inexact as is_inexact
from ._connected import reading_inputs, tie
from ._custom import Cotangent, custom_gradient
from ._dimension import Dimension
from ._dtypes import DType
from ._dtypes import category as dtype_category
from ._errors import InvalidArgumentError, OpError
from ._host_errors import original as host_error_original
from ._host_errors import raising as host_raising
from ._function import _SINGLETON as VARIABLE_ON_LATER_TRACE
from ._function import _ARRAY as TRACED_ARRAY
from ._function import _Capture, next_element, pure_trace, variables_threaded
from ._function import Function, HostSpec
from ._fused import run_pending as _run_pending
from ._operators import _convert_operand as convert_operand
from ._operators import _mismatch as dtype_mismatch
from ._operators import constant, convert_to_tensor
from ._primitive import call, primitive, stop_gradient
from ._state import EAGER as _EAGER
from ._state import local as _local
from ._state import switched as _switched
from ._state import x64, x64_modules
from ._tensor import _as_dtype as as_dtype
from ._tensor import _python_default_dtype as python_default_dtype
from ._tensor import _TensorLike as TensorLike
from ._tensor import _wrap as wrap
from ._tensor import Tensor, TensorShape, is_tensor_like, standin
from ._tensor import tf_variable_error as foreign_variable_error
from ._variables import _Alias as VariableAlias
from ._variables import _uid
from ._variables import Variable, init_scope
from ._symbolic import SymbolicGraph, SymbolicValueError
from ._symbolic import building as building_graph
from ._symbolic import current as current_graph
from ._symbolic import evaluate as evaluate_graph

__all__ = [
    "primitive", "call", "stop_gradient", "custom_gradient", "Cotangent", "reading_inputs", "tie",
    "is_inexact",
    "Tensor", "Variable", "TensorLike", "TensorShape", "Dimension", "is_tensor_like", "wrap",
    "standin",
    "VariableAlias", "new_variable_id",
    "convert_to_tensor", "constant", "convert_operand", "dtype_mismatch", "as_dtype",
    "python_default_dtype", "DType", "dtype_category", "foreign_variable_error",
    "outside_recording", "unrecorded", "init_scope", "recording", "recording_tapes",
    "watching_reads", "function_trace", "scratch_trace", "VARIABLE_ON_LATER_TRACE",
    "next_element",
    "current_name_scope", "in_name_scope", "in_trace_context", "pure_trace",
    "variables_threaded",
    "run_pending", "config", "x64", "x64_modules", "operator_promotion",
    "OpError", "InvalidArgumentError", "CacheTable", "host_raising", "host_error_original",
    "Function", "HostSpec", "TRACED_ARRAY", "failed_call_retry",
    "SymbolicGraph", "SymbolicValueError", "building_graph", "current_graph",
    "evaluate_graph", "symbolic_value",
]


def symbolic_value(t):
    """The value of Tensor ``t`` in a ``SymbolicGraph`` (its graph, index, shape and
    dtype: ``.graph``, ``.index``, ``.shape``, ``.dtype``), or None where ``t`` is
    not a symbolic Tensor.

    >>> import eagertape as et
    >>> from eagertape import extend
    >>> g = extend.SymbolicGraph()
    >>> with extend.building_graph(g):
    ...     y = et.constant([1.0, 2.0]) * 2.0
    >>> extend.symbolic_value(y).graph is g, extend.symbolic_value(et.constant(1.0))
    (True, None)
    """
    v = getattr(t, "_v", None) if type(t) is Tensor else None
    return v if v is not None and isinstance(getattr(v, "graph", None), SymbolicGraph) else None



_UNSET = object()


def failed_call_retry(retry=_UNSET):
    """The hook the one choke point calls when a call's compiled program fails to
    trace (before it runs the call as is): ``retry(kind, vals)`` gives the call's
    result another way, or None. A facade sets it while it traces with sizes only
    its data knows (tf.data's staged maps). Given ``retry`` (a callable or None),
    sets it; returns the hook in force.

    >>> from eagertape import extend
    >>> before = extend.failed_call_retry()
    >>> extend.failed_call_retry(lambda kind, vals: None) is not before
    True
    >>> _ = extend.failed_call_retry(before)      # put back
    """
    from . import _primitive
    if retry is not _UNSET:
        _primitive.staged_retry = retry
    return _primitive.staged_retry


def operator_promotion(promote=_UNSET):
    """The type-promotion hook of the Tensor operators, per process (as TF's
    ``enable_numpy_behavior``): None (TF's rule, no promotion) or ``promote(t, o)
    -> (t, o)``, which casts an operator's operands before TF's rule sees them.
    Given ``promote`` (a callable or None), sets it; returns the hook in force.

    >>> from eagertape import extend
    >>> extend.operator_promotion() is None
    True
    """
    from . import _operators
    if promote is not _UNSET:
        _operators.set_promotion(promote)
    return _operators.promotion


def new_variable_id():
    """A number no other Variable of this process has (``Variable._uid``'s kind),
    for a library's variable that stands for an eagertape Variable.

    >>> from eagertape import extend
    >>> extend.new_variable_id() != extend.new_variable_id()
    True
    """
    return next(_uid)


def run_pending():
    """Compute this thread's pending values (fused mode's graph) now.

    A pending value reads the arrays it was given when its graph runs, later:
    code about to call a JAX function that donates its arguments (deletes the
    arrays it is given, as Keras's ``fit``/``evaluate``/``predict`` steps do with
    the variables' values) calls this first. Nothing to do in eager mode.

    >>> import eagertape as et
    >>> from eagertape import extend
    >>> with et.execution_mode("fused"):
    ...     y = et.constant([1.0, 2.0]) * 3.0
    ...     extend.run_pending()
    >>> y.numpy()
    array([3., 6.], dtype=float32)
    """
    _run_pending()


def outside_recording():
    """A context in which nothing records: no GradientTape, ForwardAccumulator,
    ``custom_gradient``'s watch of Variable reads or ``tf.function`` trace sees the
    calls made inside, and every call computes its value at once (in fused mode
    too). What a data pipeline's functions and a library's own bookkeeping run in;
    as TF's graphs of ``tf.data``, they give values. ``init_scope`` also lifts
    the code out of any JAX trace (a Variable's initial value).

    >>> import eagertape as et
    >>> from eagertape import extend
    >>> x = et.Variable(2.0)
    >>> with et.GradientTape() as tape:
    ...     with extend.outside_recording():
    ...         y = x * x
    >>> print(tape.gradient(y, x))
    None
    """
    return _switched(tapes=[], accumulators=[], var_watchers=[], capture=None,
                     executor=_EAGER)


def unrecorded(watch_reads=True):
    """A context in which no GradientTape or ForwardAccumulator records (all of
    them paused, as each tape's ``stop_recording()``), while a ``tf.function``
    being traced goes on tracing: for code traced inside one recorded call (a
    ``cond``'s branches, a loop's body), whose gradient is that call's.
    ``watch_reads=False`` also hides Variable reads from ``custom_gradient``
    (a library's own state, as a random stream's key).

    >>> import eagertape as et
    >>> from eagertape import extend
    >>> x = et.Variable(2.0)
    >>> with et.GradientTape() as tape:
    ...     with extend.unrecorded():
    ...         y = x * x
    >>> print(tape.gradient(y, x))
    None
    """
    if watch_reads:
        return _switched(tapes=[], accumulators=[])
    return _switched(tapes=[], accumulators=[], var_watchers=[])


def recording():
    """Whether a GradientTape or ForwardAccumulator records on this thread now.

    >>> import eagertape as et
    >>> from eagertape import extend
    >>> with et.GradientTape():
    ...     extend.recording()
    True
    >>> extend.recording()
    False
    """
    st = _local.state
    return bool(st.tapes or st.accumulators)


def recording_tapes():
    """The GradientTapes recording on this thread, in the order they were entered
    (a new list).

    >>> import eagertape as et
    >>> from eagertape import extend
    >>> with et.GradientTape() as tape:
    ...     extend.recording_tapes() == [tape]
    True
    """
    return list(_local.state.tapes)


def watching_reads(into):
    """A context in which every Variable read is also appended to the list
    ``into`` (how ``custom_gradient`` finds the Variables its function reads).

    >>> import eagertape as et
    >>> from eagertape import extend
    >>> v, read = et.Variable(1.0), []
    >>> with extend.watching_reads(read):
    ...     _ = v * 2.0
    >>> read == [v]
    True
    """
    return _switched(var_watchers=[into])


def function_trace():
    """The trace of the ``tf.function`` (``eagertape.function``) this thread is
    tracing now, or None. What a library's variable reads and writes go through
    while a function is traced, so that the compiled function takes them as its
    inputs and outputs:

    - ``read(v)``: the value traced code sees for Variable ``v``;
    - ``write(v, value)``: ``v`` holds ``value`` from here on in the trace, and is
      written when the function runs; ``written``: ``{id(v): v}`` of those written;
    - ``may_create()``: raises TF's error (``VARIABLE_ON_LATER_TRACE``) where no
      Variable may be made (a function's later trace); ``admit(v)``: ``v`` was made
      on this trace from a value computed at once (under ``init_scope``).

    >>> import eagertape as et
    >>> from eagertape import extend
    >>> print(extend.function_trace())
    None
    >>> et.function(lambda x: extend.function_trace() is not None)(et.constant(1.0))
    True
    """
    return _local.state.capture


def scratch_trace():
    """A context that traces as a ``tf.function``'s first trace would, but keeps
    nothing: what the code writes to Variables is dropped (TF runs such code in a
    scratch graph; Keras's symbolic build of a model).

    >>> import eagertape as et
    >>> from eagertape import extend
    >>> v = et.Variable(1.0)
    >>> with extend.scratch_trace():
    ...     _ = v.assign(5.0)
    >>> float(v)
    1.0
    """
    return _switched(capture=_Capture())


def current_name_scope():
    """The prefix ``tf.name_scope`` gives new Variables' names now ("a/b/", or "").

    >>> from eagertape import extend
    >>> with extend.in_name_scope("layer/"):
    ...     extend.current_name_scope()
    'layer/'
    """
    return _local.state.name_scope


@_contextlib.contextmanager
def in_trace_context(context):
    """A context in which each ``eagertape.function`` called is traced apart from its
    calls outside it (and in other contexts): ``context``, hashable, is part of the
    trace's key, as TF keys a ``tf.function``'s traces by its replica context (a
    function called in ``Strategy.run`` is traced once per replica, each trace
    reading its replica's id).

    >>> import eagertape as et
    >>> from eagertape import extend
    >>> f = et.function(lambda x: x + 1.0)
    >>> _ = f(et.constant(1.0))
    >>> with extend.in_trace_context(("replica", 1)):
    ...     _ = f(et.constant(1.0))
    >>> f.experimental_get_tracing_count()
    2
    """
    hash(context)
    with _switched(trace_context=context):
        yield context


@_contextlib.contextmanager
def in_name_scope(prefix):
    """A context in which new Variables' names start with ``prefix`` (ending in
    "/", or "" for none), put back however the block leaves.

    >>> import eagertape as et
    >>> from eagertape import extend
    >>> with extend.in_name_scope("dense/"):
    ...     et.Variable(1.0, name="kernel").name
    'dense/kernel:0'
    """
    with _switched(name_scope=prefix):
        yield prefix
