"""Fused mode's pending graph: values known by shape and dtype now, computed
together as one program when first needed.

A ``Graph`` holds one thread's pending calls: the arrays it reads (inputs), its
nodes ``(kind, refs)`` (a ref >= 0 names a value of the graph, < 0 the input
``-ref - 1``), weak references to its ``Pending`` values, and its structure id
(``_keys``), built as nodes are appended (``_fused.pending``). Running it
(``materialize``) compiles the
graph when its structure comes back (``_cache.CompileCache``); a graph met for
the first time runs node by node with the kinds' own executables.
"""
import threading

import jax
from jax.tree_util import tree_flatten

from . import _jax_private, _keys
from ._cache import COMPILED, CompileCache
from ._jax_private import ArrayImpl as _ArrayImpl
from ._state import local, x64

MAX_PROGRAMS = 512
programs = CompileCache("fused programs", MAX_PROGRAMS)   # structure -> program
graphs_made = 0      # graphs made so far (a counter of _cache.info's fused entry)
made = False         # whether any graph was made: only then may a value be pending

_typeof = getattr(jax, "typeof", None) or jax.core.get_aval


def signature(v):
    """``(shape, dtype, weak_type)`` of an array or abstract value."""
    if type(v) is _ArrayImpl:
        return (v.shape, v.dtype, v.weak_type)
    a = _typeof(v)
    return (a.shape, a.dtype, a.weak_type)


class Pending:
    """A value of a fused graph: its abstract value now, its array once the graph
    is run (``get``).

    Made only by ``_fused.pending``, field by field: graph and index (its place
    in the graph), aval ``(shape, dtype, weak_type)``, dtype (read by every
    recording tape), value (None until the graph runs).
    """

    __slots__ = ("graph", "index", "aval", "dtype", "value", "__weakref__")

    @property
    def shape(self): return self.aval[0]
    @property
    def weak_type(self): return self.aval[2]
    @property
    def ndim(self): return len(self.aval[0])

    def get(self):
        if self.value is None:
            self.graph.materialize()
        return self.value


class Graph:
    """Pending calls of one thread: inputs (arrays), nodes, and their structure id."""

    def __init__(self):
        self.inputs = []        # arrays the graph reads
        self.signatures = []    # per input, its signature (shape, dtype, weak_type)
        self.input_pos = {}     # id(array) -> its ref (arrays are held: ids stable)
        self.nodes = []         # per node (kind, refs)
        self.sid = _keys.EMPTY  # the structure (inputs' signatures, nodes' kind ids and
                                # refs), built as we go
        self.outs = []          # value index -> weakref to its Pending
        self.sealed = False     # no more nodes (a later call starts a new graph)
        self.done = False       # run: every value still referenced has its array
        self.lock = threading.Lock()
        global made, graphs_made
        made = True
        graphs_made += 1

    def input(self, a):
        """The reference of array ``a`` as an input of the graph."""
        r = self.input_pos.get(id(a))
        if r is None:
            r = self.input_pos[id(a)] = -len(self.inputs) - 1
            sig = signature(a)
            self.inputs.append(a)
            self.signatures.append(sig)
            self.sid, _ = _keys.step((self.sid, (None, sig)))
        return r

    def ref(self, v):
        """The graph reference of a call's value ``v``: a pending value of this
        graph, or an array taken as input."""
        if type(v) is Pending:
            if v.graph is self and v.value is None:
                return v.index
            v = v.get()
        return self.input(v)

    def holds(self, v):
        """Whether ``v`` is a value of this graph not computed yet."""
        return type(v) is Pending and v.graph is self and v.value is None

    def live(self):
        return [i for i, r in enumerate(self.outs) if (p := r()) is not None and p.value is None]

    def seal(self):
        self.sealed = True
        h = local.state
        if h.graph is self:
            h.graph = None

    def _fill(self, indices, arrays):
        for i, a in zip(indices, arrays):
            p = self.outs[i]()
            if p is not None:
                p.value = a

    @x64
    def materialize(self):
        """Run the graph; every pending value still referenced gets its array."""
        # Its values are concrete arrays even when the first read comes from inside
        # a JAX trace (a Dataset.map function, a tf.function capturing a pending
        # value): computed there they would be that trace's tracers, kept afterwards.
        # (JAX's eval context, not ensure_compile_time_eval: that one also folds
        # constants inside the traces the graph starts, and a trace of symbolic
        # sizes, an exported function's VJP, cannot fold them.) Entered only under
        # a trace: the context costs as much as the rest of a small graph's run.
        if not _jax_private.tracing():
            with self.lock:
                self._run()
        else:
            with self.lock, _jax_private.eval_context():
                self._run()

    def _run(self):
        if self.done:
            return
        self.seal()
        live = self.live()
        if live:
            nodes = self.nodes

            def forward():
                ns = list(nodes)
                return lambda inputs: _pick(evaluate(ns, inputs), live)
            e = programs.get((self.sid, len(self.inputs), tuple(live)), forward,
                             now=local.state.replay == "compiled")
            if e.state is COMPILED:
                results = e.fn(self.inputs)
            else:
                results = _pick(evaluate(nodes, self.inputs, eager=True), live)
            self._fill(live, results)
        self.done = True
        # The values are out: drop what the graph held.
        self.inputs = self.nodes = self.outs = self.signatures = None
        self.input_pos = None


def _pick(env, indices):
    return [env[i] for i in indices]


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
