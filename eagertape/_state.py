"""Per-thread state: one ``ThreadState`` per thread, reached as ``local.state``.

Nothing here is shared by threads; the process-wide settings (the mode new
threads start in, ...) are ``_config``'s. Code that changes fields for a while
uses ``switched``, which puts them back however the block leaves.
"""
import functools
import itertools
import threading

from ._jax_private import x64_flag as _x64_flag

from ._config import config


class Executor:
    """How recorded work runs in one execution mode: the three places where the
    modes differ, each a function defined by the module that does that work.

    ========== ================================================= =====================
    operation  what it does                                      defined in
    ========== ================================================= =====================
    run        a recorded call: ``run(kind, objs, vals,           ``_primitive``
               constant_output)`` gives its output Tensors
    replay     a tape's compiled gradient: ``replay(key, fn,      ``_replay``
               data, seed_objs)`` gives the gradients
    assign     a Variable's update: ``assign(variable, fn,        ``_variables``
               value, argname)``
    ========== ================================================= =====================

    ``EAGER`` runs each at once. ``FUSED`` appends each to this thread's pending
    graph (``_fused``), which runs as one program when a value is needed, and runs
    at once what it cannot append. ``defers``: whether this executor may hold
    values back (only then does a recorded call leave JAX's 64-bit switch to
    where JAX computes). A thread's executor is ``ThreadState.executor``: its
    mode's, but ``EAGER`` while a function is traced or a persistent tape answers
    a query in fused mode. Nothing outside the core chooses one: the mode does.
    """

    __slots__ = ("name", "defers", "run", "replay", "assign")

    def __init__(self, name, defers):
        self.name, self.defers = name, defers

    def define(self, operation):
        """Decorator: the function is this executor's ``operation``."""
        def define(fn):
            setattr(self, operation, fn)
            return fn
        return define

    def __repr__(self):
        return f"<eagertape executor {self.name!r}>"


EAGER = Executor("eager", defers=False)
FUSED = Executor("fused", defers=True)
EXECUTORS = {"eager": EAGER, "fused": FUSED}


class ThreadState:
    """One thread's recording state, as plain slots: a recorded call reads
    ``local.state`` once (a ``threading.local`` attribute costs ~100 ns a read,
    a slot ~15 ns).

    ============== ==============================================================
    field          meaning
    ============== ==============================================================
    tapes          GradientTapes recording on this thread, in entry order
    var_watchers   lists collecting the Variables read (custom_gradient)
    accumulators   ForwardAccumulators recording on this thread, in entry order
    capture        the eagertape.function being traced on this thread, or None
    check_numerics eagertape.debug: check every op's results
    replay         "auto": compile a structure when it comes back; "compiled":
                   at once; "per_op": always op by op (the tests run both)
    mode           execution mode: "eager" or "fused"
    executor       how calls, gradients and assignments run now (``Executor``):
                   the mode's, but EAGER inside eagertape.function traces and
                   persistent tapes' queries
    graph          fused mode: the pending graph calls are appended to
    name_scope     tf.name_scope's prefix of new Variables' names ("a/b/")
    trace_context  a hashable a facade set (a replica's): functions called while it
                   is set are traced apart from calls outside it, or None
    ============== ==============================================================
    """

    __slots__ = ("tapes", "var_watchers", "accumulators", "capture", "check_numerics",
                 "replay", "mode", "executor", "graph", "name_scope", "trace_context")

    def __init__(self):
        self.tapes = []
        self.var_watchers = []
        self.accumulators = []
        self.capture = None
        self.check_numerics = False
        self.replay = "auto"
        self.mode = config.execution_mode
        self.executor = EXECUTORS[self.mode]
        self.graph = None
        self.name_scope = ""
        self.trace_context = None


class _Local(threading.local):
    def __init__(self):
        self.state = ThreadState()


local = _Local()


class switched:
    """``with switched(tapes=[], ...):`` sets fields of this thread's state and
    puts the old values back on the way out, however it leaves."""

    __slots__ = ("new", "saved")

    def __init__(self, **fields):
        self.new = fields

    def __enter__(self):
        st = local.state
        self.saved = {k: getattr(st, k) for k in self.new}
        for k, v in self.new.items():
            setattr(st, k, v)

    def __exit__(self, *exc):
        st = local.state
        for k, v in self.saved.items():
            setattr(st, k, v)


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


# -- 64-bit types, for eagertape's own work only --------------------------------------
# TF has float64 and int64 tensors; JAX keeps them only while `jax_enable_x64` is on.
# Switching it on for the process would make the user's other JAX code (jnp.ones,
# jax.random.normal, flax weights) float64 behind their back, so eagertape switches
# it on for this thread while its own calls run, and puts the user's value back.
# Programs that set JAX_ENABLE_X64=1 themselves pay one read a call.
# (jax's public `jax.enable_x64(True)` context does the same at 3x the cost.)


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
    run after the call returns). Returns the names of what it scoped, where it
    found them, sorted ("module.function", "module.Class.method").
    """
    import inspect
    import sys
    import types

    modules = [sys.modules[n] for n in names]
    scoped = {}     # id(original) -> scoped
    listing = []

    def scope(fn, label):
        if not isinstance(fn, types.FunctionType) or inspect.isgeneratorfunction(fn) \
                or getattr(fn, "_x64_scoped", False):
            return fn
        s = scoped.get(id(fn))
        if s is None:
            s = scoped[id(fn)] = x64(fn)
            s._x64_scoped = True
            listing.append(label)
        return s

    def scope_class(cls, label):
        for k, v in list(vars(cls).items()):
            at = f"{label}.{k}"
            if isinstance(v, types.FunctionType):
                new = scope(v, at)
            elif isinstance(v, (staticmethod, classmethod)):
                new = type(v)(scope(v.__func__, at))
            elif isinstance(v, property):
                new = property(scope(v.fget, at) if v.fget else None,
                               scope(v.fset, at + ".setter") if v.fset else None, v.fdel,
                               v.__doc__)
            else:
                continue
            if new is not v:
                setattr(cls, k, new)

    for mod in modules:
        for k, v in list(vars(mod).items()):
            if k.startswith("_") or getattr(v, "__module__", None) != mod.__name__:
                continue
            if isinstance(v, type) and not issubclass(v, BaseException):
                scope_class(v, f"{mod.__name__}.{k}")
            elif isinstance(v, types.FunctionType):
                scope(v, f"{mod.__name__}.{k}")
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
    return sorted(listing)
