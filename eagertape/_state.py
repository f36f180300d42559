"""Per-thread recording state. Nothing here is global across threads, except the
execution mode new threads start in (``set_execution_mode``)."""
import functools
import itertools
import os
import threading

# The mode a thread starts in: EAGERTAPE_EXECUTION_MODE, or set_execution_mode.
default_mode = [os.environ.get("EAGERTAPE_EXECUTION_MODE", "eager")]


class Hot:
    """The part of a thread's state read on every recorded call, as plain slots:
    a call reads ``state.hot`` once (a ``threading.local`` attribute costs
    ~100 ns a read, a slot ~15 ns)."""

    __slots__ = ("tapes", "var_watchers", "accumulators", "capture", "fused", "graph",
                 "check_numerics")


def _forward(name):
    # state.<name> reads and writes state.hot.<name>: one place for each field.
    return property(lambda self: getattr(self.hot, name),
                    lambda self, value: setattr(self.hot, name, value))


class _State(threading.local):
    def __init__(self):
        self.hot = Hot()
        self.tapes = []          # GradientTapes recording on this thread, in entry order
        self.var_watchers = []   # lists collecting the Variables read (custom_gradient)
        self.accumulators = []   # ForwardAccumulators recording on this thread, in entry order
        self.capture = None      # the eagertape.function being traced on this thread, if any
        self.check_numerics = False   # eagertape.debug: check every op's results
        # "auto": compile a structure when it comes back; "compiled": at once;
        # "eager": always op by op (the tests run both of the latter).
        self.replay = "auto"
        self.mode = default_mode[0]    # execution mode: "eager" or "fused"
        # Whether calls are deferred now: fused mode, outside eagertape.function
        # traces and persistent tapes' queries (_replay._at_once).
        self.fused = self.mode == "fused"
        self.graph = None        # fused mode: the pending graph calls are appended to
        self.name_scope = ""     # tf.name_scope's prefix of new Variables' names ("a/b/")

    tapes = _forward("tapes")
    var_watchers = _forward("var_watchers")
    accumulators = _forward("accumulators")
    capture = _forward("capture")
    fused = _forward("fused")
    graph = _forward("graph")
    check_numerics = _forward("check_numerics")


state = _State()


# TF numbers every push of a tape or accumulator (its "nesting id"): an
# accumulator's JVPs are recorded by the tapes and accumulators pushed before it.
# A tape's stop_recording() and reset() push it again, after the accumulator.
# Shared by threads: next() on a count is atomic, and only the order matters.
nesting = itertools.count()


def remove_last(stack, obj):
    """Remove the last entry of ``stack`` that is ``obj`` (tapes and accumulators
    may leave out of order, so not simply the top)."""
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is obj:
            del stack[i]
            return


def update_fused():
    """Recompute ``state.fused`` after the mode changed."""
    state.hot.fused = state.mode == "fused"


_HOT = frozenset(Hot.__slots__)


class switched:
    """``with switched(tapes=[], ...):`` sets fields of this thread's state and
    puts the old values back on the way out, however it leaves."""

    __slots__ = ("new", "saved")

    def __init__(self, **fields):
        self.new = fields

    def __enter__(self):
        h = state.hot
        self.saved = {k: getattr(h if k in _HOT else state, k) for k in self.new}
        for k, v in self.new.items():
            setattr(h if k in _HOT else state, k, v)

    def __exit__(self, *exc):
        h = state.hot
        for k, v in self.saved.items():
            setattr(h if k in _HOT else state, k, v)


# -- 64-bit types, for eagertape's own work only --------------------------------------
# TF has float64 and int64 tensors; JAX keeps them only while `jax_enable_x64` is on.
# Switching it on for the process would make the user's other JAX code (jnp.ones,
# jax.random.normal, flax weights) float64 behind their back, so eagertape switches
# it on for this thread while its own calls run, and puts the user's value back.
# Programs that set JAX_ENABLE_X64=1 themselves pay one read a call.
# (jax's public `jax.enable_x64(True)` context does the same at 3x the cost.)
from jax._src.config import enable_x64 as _x64_flag  # noqa: E402


def x64(fn):
    """Decorate ``fn`` to run with JAX's 64-bit types on, on this thread only."""
    flag = _x64_flag

    @functools.wraps(fn)
    def scoped(*args, **kwargs):
        if flag.value:
            return fn(*args, **kwargs)
        saved = flag.swap_local(True)
        try:
            return fn(*args, **kwargs)
        finally:
            flag.set_local(saved)
    return scoped


def x64_modules(names):
    """Run every public function of the modules ``names`` with 64-bit types on (``x64``).

    The TF facade's functions compute some values at the Python level
    (``jnp.asarray`` of an int64 state, float64 constants) before or instead of a
    recorded call; scoping each public function keeps those TF's dtypes without a
    decorator on each. Methods of the modules' public classes are scoped in place
    (properties' getters and setters included); a function bound under several
    names (``tf.add`` and ``tf.math.add``) becomes one scoped function, so
    identities are kept. Generator functions are left as they are (their bodies
    run after the call returns).
    """
    import inspect
    import sys
    import types

    modules = [sys.modules[n] for n in names]
    scoped = {}     # id(original) -> scoped

    def scope(fn):
        if not isinstance(fn, types.FunctionType) or inspect.isgeneratorfunction(fn) \
                or getattr(fn, "_x64_scoped", False):
            return fn
        s = scoped.get(id(fn))
        if s is None:
            s = scoped[id(fn)] = x64(fn)
            s._x64_scoped = True
        return s

    def scope_class(cls):
        for k, v in list(vars(cls).items()):
            if isinstance(v, types.FunctionType):
                new = scope(v)
            elif isinstance(v, (staticmethod, classmethod)):
                new = type(v)(scope(v.__func__))
            elif isinstance(v, property):
                new = property(scope(v.fget) if v.fget else None,
                               scope(v.fset) if v.fset else None, v.fdel, v.__doc__)
            else:
                continue
            if new is not v:
                setattr(cls, k, new)

    for mod in modules:
        for k, v in list(vars(mod).items()):
            if k.startswith("_") or getattr(v, "__module__", None) != mod.__name__:
                continue
            if isinstance(v, type) and not issubclass(v, BaseException):
                scope_class(v)
            elif isinstance(v, types.FunctionType):
                scope(v)
    # Rebind every name to the scoped function: in the modules, and in the namespace
    # objects they build (tf.optimizers, tf.random.experimental, ...).
    spaces = []
    for mod in modules:
        spaces.append(vars(mod))
        for v in vars(mod).values():
            if isinstance(v, types.SimpleNamespace) or (
                    isinstance(v, types.ModuleType) and v.__name__ not in sys.modules):
                spaces.append(vars(v))
    for d in spaces:
        for k, v in list(d.items()):
            s = scoped.get(id(v))
            if s is not None:
                d[k] = s
