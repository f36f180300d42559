"""Fused execution: recorded calls build a pending graph, run as one XLA program.

In fused mode a call whose kind can be traced does not run: its outputs'
shapes and dtypes come from ``jax.eval_shape`` (cached by kind and input
signature, so a repeated call costs a dictionary lookup), its outputs are
Tensors holding ``Pending`` values, and the call is appended to this thread's
``_Graph``. Shape and dtype errors therefore still appear at the call site.

A pending value is computed when something needs it (``Tensor._value``: numpy,
float, bool, repr, ``.jax()``, a Variable assignment, an op that cannot be
fused): the whole graph runs, and every pending value still referenced gets its
array. ``tape.gradient`` runs the graph and the compiled replay together as one
program (``_replay``). A graph seen for the first time is run op by op with the
kinds' own executables; one that comes back (a training loop) is compiled
whole and cached by its structure, whose id is built as calls are appended
(``_keys``).
"""
import threading
import weakref

import jax
from jax.tree_util import tree_flatten

from . import _keys
from ._cache import Cache
from ._state import state, update_fused, x64
from ._graph import Pending
from ._tensor import Tensor

_new = object.__new__
_weakref = weakref.ref

# Past this many calls a graph is run and a new one started, so that a loop that
# never reads a value does not grow without end (and XLA's compile time, which
# grows faster than linearly with a program's size, stays bounded).
MAX_PENDING = 1000

_abstract: dict = {}          # (kind id, input signature) -> (out treedef, out avals)
_MAX_ABSTRACT = 16384
# (graph structure id, kind id, refs) -> (structure id after the call, out treedef,
# out avals, node). A structure id covers its inputs' signatures, so it fixes the
# call's input avals: one lookup gives a repeated call both its outputs' avals
# and the graph's next id. The node, (kind, refs), is shared by every graph that
# makes this step: a call keeps no tuples of its own (fewer objects for Python's
# cyclic collector to track and count while a long step records).
_steps: dict = {}

_lock = threading.Lock()
MAX_PROGRAMS = 512
_programs = Cache(MAX_PROGRAMS)     # structure -> jitted program (False: untraceable)
_seen = Cache(MAX_PROGRAMS)         # structures run once, op by op
counters = {"hits": 0, "misses": 0, "interpreted": 0, "graphs": 0}
made = False     # whether any graph was made: only then may a value be pending

# The concrete array class, named without making an array: an array at import
# would start XLA's backend, after which jax.distributed.initialize() fails.
from jax._src.array import ArrayImpl as _ArrayImpl  # noqa: E402


_typeof = getattr(jax, "typeof", None) or jax.core.get_aval


def _signature(v):
    if type(v) is _ArrayImpl:
        return (v.shape, v.dtype, v.weak_type)
    a = _typeof(v)
    return (a.shape, a.dtype, a.weak_type)


class _Graph:
    """Pending calls of one thread: inputs (arrays), nodes, and their structure id."""

    def __init__(self):
        self.inputs = []        # arrays the graph reads
        self.input_pos = {}     # id(array) -> position in inputs (arrays are held, ids stable)
        self.nodes = []         # per node (kind, refs); ref >= 0: a value of the graph,
                                # < 0: input -ref-1
        self.sid = _keys.EMPTY  # the structure (inputs' signatures, nodes' kind ids and
                                # refs), built as we go
        self.outs = []          # value index -> weakref to its Pending
        self.sealed = False     # no more nodes (a later call starts a new graph)
        self.done = False       # run: every value still referenced has its array
        self.lock = threading.Lock()
        counters["graphs"] += 1
        global made
        made = True

    def input(self, a):
        """The reference and signature of array ``a`` as an input of the graph."""
        e = self.input_pos.get(id(a))
        if e is None:
            e = self.input_pos[id(a)] = (-len(self.inputs) - 1, _signature(a))
            self.inputs.append(a)
            self.sid = _keys.step((self.sid, (None, e[1])))[0]
        return e

    def ref(self, v):
        """The graph reference of a call's value ``v``: a pending value of this
        graph, or an array taken as input."""
        if type(v) is Pending:
            if v.graph is self and v.value is None:
                return v.index
            v = v.get()
        return self.input(v)[0]

    def live(self):
        return [i for i, r in enumerate(self.outs) if (p := r()) is not None and p.value is None]

    def seal(self):
        self.sealed = True
        h = state.hot
        if h.graph is self:
            h.graph = None

    @x64
    def materialize(self):
        """Run the graph; every pending value still referenced gets its array."""
        with self.lock:
            if self.done:
                return
            self.seal()
            live = self.live()
            if live:
                results = run(self, live)
                for i, a in zip(live, results):
                    p = self.outs[i]()
                    if p is not None:
                        p.value = a
            self.done = True
            # The values are out: drop what the graph held.
            self.inputs = self.nodes = self.outs = None
            self.input_pos = None


def pending(kind, vals, h):
    """Append the call to the pending graph: its outputs (Tensors of pending
    values), their treedef, the graph and the refs of ``vals``; None if the kind cannot
    be traced, False if this call is inside a JAX transformation (it then runs
    at once).

    This runs for every call in fused mode: making the ``Pending`` and its
    Tensor is inlined (a call costs more than its body).
    """
    g = h.graph                # h: this thread's state.hot
    if g is None or g.sealed:
        g = h.graph = _Graph()
    refs = []
    for v in vals:
        if type(v) is Pending and v.graph is g and v.value is None:
            refs.append(v.index)
        else:
            if type(v) is Pending:
                v = v.get()
            elif type(v) is not _ArrayImpl and isinstance(v, jax.core.Tracer):
                return False      # called inside a JAX transformation: run it there
            e = g.input_pos.get(id(v))       # g.input, inlined
            refs.append(e[0] if e is not None else g.input(v)[0])
    refs = tuple(refs)
    k = (g.sid, kind.id, refs)
    e = _steps.get(k)
    if e is None:
        e = _new_step(g, kind, refs, k)
        if e is None:
            return None
    g.sid, treedef, avals, node = e
    gouts = g.outs
    outs = []
    for aval in avals:
        p = _new(Pending)
        p.graph, p.index, p.aval, p.dtype, p.value = g, len(gouts), aval, aval[1], None
        gouts.append(_weakref(p))
        t = _new(Tensor)
        t._v = p
        outs.append(t)
    g.nodes.append(node)       # the step's own (kind, refs): this call's refs are dropped
    if len(g.nodes) >= MAX_PENDING:
        g.materialize()
    return outs, treedef, g, node[1]


def _new_step(g, kind, refs, k):
    # The call's input avals from the graph, its outputs' from the abstract cache.
    sig = [kind.id]
    for r in refs:
        if r >= 0:
            sig.append(g.outs[r]().aval)     # alive: the call's own vals hold it
        else:
            sig.append(g.input_pos[id(g.inputs[-r - 1])][1])
    sig = tuple(sig)
    ab = _abstract.get(sig)
    if ab is None:
        ab = _eval_shape(kind, sig)
        if ab is None:
            return None
    if len(_steps) >= _keys.MAX_ENTRIES:
        _steps.clear()
    e = _steps[k] = (_keys.new_id(),) + ab + ((kind, refs),)
    return e


def _eval_shape(kind, sig):
    structs = [jax.ShapeDtypeStruct(shape, dtype, weak_type=weak) for shape, dtype, weak in sig[1:]]
    try:
        out = jax.eval_shape(kind.apply, *structs)
    except Exception:
        # An error, or a call that needs concrete values: it runs at once, where
        # an error is raised as in eager mode.
        return None
    leaves, treedef = tree_flatten(out)
    if not all(isinstance(leaf, jax.ShapeDtypeStruct) for leaf in leaves):
        return None          # runs at once; _run then stops deferring this kind
    avals = tuple((tuple(a.shape), a.dtype, bool(getattr(a, "weak_type", False))) for a in leaves)
    if len(_abstract) >= _MAX_ABSTRACT:
        _abstract.clear()
    _abstract[sig] = (treedef if len(leaves) != 1 or treedef.num_nodes != 1 else None, avals)
    return _abstract[sig]


def resolve(vals):
    """``vals`` with every pending value computed."""
    if any(type(v) is Pending for v in vals):
        return [v.get() if type(v) is Pending else v for v in vals]
    return vals


def evaluate(nodes, inputs, env=None, eager=False):
    """The graph's values: ``env`` extended node by node (traced, or eagerly with
    each kind's own executable)."""
    env = [] if env is None else env
    for kind, refs in nodes:
        args = [env[r] if r >= 0 else inputs[-r - 1] for r in refs]
        fn = kind.jitted if eager and kind.jitted is not None else kind.apply
        out = fn(*args)
        if isinstance(out, jax.Array):
            env.append(out)
        else:
            env.extend(tree_flatten(out)[0])
    return env


def program(key, make):
    """The jitted program of a structure; None the first time it is seen (the
    caller then runs op by op: compiling pays when a structure comes back), False
    for one that cannot be traced."""
    fn = _programs.lookup(key)
    if fn is not None:
        counters["hits"] += 1
        return fn
    with _lock:
        fn = _programs.lookup(key)      # compiled meanwhile by another thread
        if fn is not None:
            return fn
        if key not in _seen and state.replay != "compiled":
            _seen.put(key, True)
            counters["interpreted"] += 1
            return None
        _seen.pop(key)
        counters["misses"] += 1
        fn = jax.jit(make())
        _programs.put(key, fn)
        return fn


def forget(key):
    """Mark a structure whose program cannot be traced: it runs op by op from now on."""
    _programs.put(key, False)


def run(g, live):
    ns = g.nodes
    fn = program((g.sid, len(g.inputs), tuple(live)), lambda: _forward(ns, live))
    if not fn:
        env = evaluate(ns, g.inputs, eager=True)
        return [env[i] for i in live]
    return fn(g.inputs)


def _forward(nodes, live):
    nodes = list(nodes)

    def forward(inputs):
        env = evaluate(nodes, inputs)
        return [env[i] for i in live]
    return forward


def clear():
    with _lock:
        _programs.clear()
        _seen.clear()
        for k in counters:
            counters[k] = 0


# ---------------------------------------------------------------------------
# The public switch
# ---------------------------------------------------------------------------

_MODES = ("eager", "fused")


def _check_mode(mode):
    if mode not in _MODES:
        raise ValueError(f"argument `mode` must be 'eager' or 'fused', got {mode!r}")


def get_execution_mode():
    """This thread's execution mode: ``"eager"`` or ``"fused"``.

    >>> import eagertape as et
    >>> with et.execution_mode("fused"):
    ...     print(et.get_execution_mode())
    fused
    """
    return state.mode


def set_execution_mode(mode):
    """Set this thread's execution mode, and the mode threads started later begin in.

    ``"eager"``: every recorded call runs at once. ``"fused"``: calls are
    gathered into a pending graph that runs as one XLA program when a value is
    needed; ``tape.gradient`` runs the graph and the backward pass together.
    Values, gradients and errors are the same in both modes.

    >>> import eagertape as et
    >>> before = et.get_execution_mode()
    >>> et.set_execution_mode("fused")
    >>> et.get_execution_mode()
    'fused'
    >>> et.set_execution_mode(before)
    """
    _check_mode(mode)
    from ._state import default_mode
    default_mode[0] = mode
    _switch(mode)


def _switch(mode):
    g = state.hot.graph
    if mode == "eager" and g is not None:
        g.seal()          # its values are still computed when asked for
    state.mode = mode
    update_fused()


class execution_mode:
    """Run a block in ``"fused"`` (or ``"eager"``) mode on this thread.

    >>> import eagertape as et
    >>> from eagertape import numpy as tnp
    >>> w = et.Variable([1.0, 2.0])
    >>> with et.execution_mode("fused"):
    ...     with et.GradientTape() as tape:
    ...         loss = tnp.sum(tnp.tanh(w) ** 2)
    ...     grad = tape.gradient(loss, w)     # forward and backward: one XLA program
    >>> grad.shape
    TensorShape([2])
    """

    def __init__(self, mode):
        _check_mode(mode)
        self.mode = mode
        self._saved = []

    def __enter__(self):
        self._saved.append(get_execution_mode())
        _switch(self.mode)
        return self

    def __exit__(self, *exc):
        _switch(self._saved.pop())
        return False
