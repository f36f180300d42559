"""Symbolic execution: the graphs of TF 1's graph mode, built now and run later.

While a ``SymbolicGraph`` is being built on a thread (``building``), a recorded
call does not run: its outputs' shapes and dtypes come from ``jax.eval_shape``
(fused mode's cache of abstract values), its outputs are Tensors holding
``Pending`` values of the graph that are never computed in place (asking for
one's value raises, naming it, as TF refuses to make a symbolic Tensor a NumPy
array), and the call is appended to the graph as a node. A facade adds nodes of
its own (``add_node``): an op with an ``evaluate(state, args)`` method (a
placeholder, a Variable's read or assignment), which reads and writes ``state``,
the values of the run's variables.

``evaluate(graph, fetches, feeds, state)`` runs what the fetched values (and the
nodes given as targets) depend on, and nothing else, as TF's Session prunes its
graph: fed values replace what computes them. The run is one ``jax.jit`` program,
compiled once per (fetches, feeds, targets, state keys) and cached on the graph.
"""
import itertools
import threading

import jax
from jax.tree_util import tree_flatten, tree_unflatten

from . import _fused
from . import _graph
from ._graph import Pending, signature
from ._state import Executor, EAGER, local, switched, x64
from ._tensor import Tensor

_new = object.__new__
_graph_ids = itertools.count(1)


class SymbolicValueError(NotImplementedError):
    """A symbolic value (of a TF 1 graph) was asked for its array."""


class SymbolicGraph:
    """A graph of deferred calls: ``nodes`` in the order they were added, each
    ``(op, refs, first, count, name, control)``: ``op`` a call's kind or a
    facade's op, ``refs`` its inputs (an index >= 0 a value of the graph, < 0 the
    constant ``-ref - 1``), its outputs the values ``first .. first + count - 1``,
    ``control`` nodes that run before it. ``values`` holds every value's
    ``Pending`` (the graph keeps them, as TF's graph keeps its tensors),
    ``producer`` the node of each. ``namer(kind)``, set by a facade, names a
    call's node (None: the kind's name); ``describe(value, attr)``, set by a
    facade, gives a symbolic Tensor's attributes it lacks (``name``, ``op``, its
    ``__repr__`` and ``__str__``), else raises AttributeError; ``control()``, set by
    a facade, the nodes a call's node must run after (TF's control dependencies)."""

    def __init__(self):
        self.id = next(_graph_ids)
        self.nodes = []
        self.values = []
        self.producer = []
        self.constants = []
        self.namer = None
        self.describe = None     # describe(value, attr): a Tensor's attribute (a facade's)
        self.control = None      # control(): the nodes a new call's node runs after
        self.programs = {}
        self.lock = threading.Lock()
        _graph.made = True     # Pending values exist: the eager path resolves them

    # Pending.get asks its graph to run; a symbolic graph's values are only ever
    # computed by ``evaluate``.
    def materialize(self):
        raise SymbolicValueError(
            "a symbolic Tensor of a TF 1 graph has no value outside Session.run: fetch it "
            "with sess.run(tensor) (or write TF 2 code: call the ops eagerly, or make a "
            "tf.function)")

    def constant(self, array):
        self.constants.append(array)
        return -len(self.constants)

    def add_node(self, op, refs, avals, name=None, control=()):
        """Append a node; returns its index and its outputs' ``Pending`` values."""
        node = len(self.nodes)
        first = len(self.values)
        outs = []
        for aval in avals:
            p = _new(Pending)
            p.graph, p.index, p.aval, p.dtype, p.value = self, len(self.values), aval, aval[1], None
            self.values.append(p)
            self.producer.append(node)
            outs.append(p)
        self.nodes.append((op, tuple(refs), first, len(avals), name, tuple(control)))
        return node, outs

    def holds(self, v):
        return type(v) is Pending and v.graph is self

    def ref(self, v):
        """The reference of a call's input ``v`` (a value of this graph, or an array
        taken as a constant)."""
        if type(v) is Pending:
            if v.graph is self:
                return v.index
            if isinstance(v.graph, SymbolicGraph):
                raise ValueError("a Tensor of another TF 1 graph was passed to an op of this "
                                 "one: every input of an op must be from the same graph")
            v = v.get()
        elif type(v) is not _graph._ArrayImpl and isinstance(v, jax.core.Tracer):
            raise ValueError("a value traced by JAX cannot be an input of a TF 1 graph's op")
        return self.constant(v)

    def aval_of(self, ref):
        return self.values[ref].aval if ref >= 0 else signature(self.constants[-ref - 1])


SYMBOLIC = Executor("symbolic", defers=True)
_building = threading.local()


def current():
    """The SymbolicGraph being built on this thread, or None."""
    return getattr(_building, "graph", None)


class building:
    """``with building(graph):`` recorded calls on this thread add nodes to
    ``graph`` (an EAGER block inside, ``outside_recording``, computes values)."""

    def __init__(self, graph):
        self.graph = graph
        self._saved = []

    def __enter__(self):
        self._saved.append(current())
        _building.graph = self.graph
        self._switch = switched(executor=SYMBOLIC)
        self._switch.__enter__()
        return self.graph

    def __exit__(self, *exc):
        self._switch.__exit__(*exc)
        _building.graph = self._saved.pop()
        return False


@SYMBOLIC.define("run")
@x64
def _run_symbolic(kind, objs, vals, constant_output):
    g = current()
    if g is None:       # the executor without its graph: run at once
        return EAGER.run(kind, objs, vals, constant_output)
    refs = [g.ref(v) for v in vals]
    sig = (kind.id,) + tuple(g.aval_of(r) for r in refs)
    ab = _fused._abstract.get(sig)
    if ab is None:
        ab = _fused._eval_shape(kind, sig)
    if ab is None:
        raise SymbolicValueError(
            f"`{kind.name}` cannot be added to a TF 1 graph by eagertape: its outputs' "
            "shapes (or the call itself) need its inputs' values; compute it in TF 2 code "
            "(eagerly, or in a tf.function)")
    treedef, avals = ab
    name = g.namer(kind) if g.namer is not None else kind.name
    _, outs = g.add_node(kind, refs, avals, name, g.control() if g.control is not None else ())
    tensors = []
    for p in outs:
        t = _new(Tensor)
        t._v = p
        tensors.append(t)
    return tensors[0] if treedef is None else tree_unflatten(treedef, tensors)


@SYMBOLIC.define("replay")
def _replay_symbolic(*args, **kwargs):
    raise NotImplementedError("a GradientTape's gradient inside a TF 1 graph is not supported "
                              "by eagertape; use tf.gradients in the graph, or TF 2 code")


@SYMBOLIC.define("assign")
def _assign_symbolic(var, fn, value, argname):
    # A Variable of TF 2 (not the graph's) assigned while a graph is built: an
    # eager update, as TF's init_scope would make it (a Checkpoint's save_counter).
    with switched(executor=EAGER):
        EAGER.assign(var, fn, value, argname)


def needed(graph, values, targets=(), fed=frozenset()):
    """The nodes the ``values`` and ``targets`` (node indices) depend on, in order;
    fed values stop the walk."""
    seen = set()
    stack = [graph.producer[v] for v in values if v not in fed] + list(targets)
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        _, refs, _, _, _, control = graph.nodes[n]
        for r in refs:
            if r >= 0 and r not in fed:
                stack.append(graph.producer[r])
        stack.extend(control)
    return sorted(seen)


def _program(graph, order, fetches, feed_keys):
    nodes = [graph.nodes[n] for n in order]

    def run(feed_vals, constants, state):
        state = dict(state)
        env = dict(zip(feed_keys, feed_vals))
        for op, refs, first, count, _, _ in nodes:
            if first in env and count:       # a fed output: the node does not run
                continue
            args = [env[r] if r >= 0 else constants[-r - 1] for r in refs]
            if hasattr(op, "evaluate"):
                outs = op.evaluate(state, args)
            else:
                out = op.apply(*args)
                outs = [out] if isinstance(out, jax.Array) else tree_flatten(out)[0]
            for i, o in enumerate(outs):
                env.setdefault(first + i, o)
        return [env[f] for f in fetches], state
    return run


@x64
def evaluate(graph, fetches, feeds, state, targets=()):
    """Run ``graph``: the values of the indices ``fetches`` and the new ``state``
    (a dict of arrays, the variables' values by key), with ``feeds`` ({value index:
    array}) in place of what computes them; the nodes ``targets`` run too."""
    feed_keys = tuple(sorted(feeds))
    fed = frozenset(feed_keys)
    order = needed(graph, fetches, targets, fed)
    ready = set(state)       # the variables holding a value at this point of the run
    for n in order:
        op, _, first, count, _, _ = graph.nodes[n]
        check = getattr(op, "check", None)
        if check is not None and not (count and first in fed):
            check(ready)
    key = (tuple(fetches), feed_keys, tuple(order), tuple(sorted(state)))
    with graph.lock:
        fn = graph.programs.get(key)
        if fn is None:
            fn = graph.programs[key] = jax.jit(_program(graph, order, list(fetches), feed_keys))
    with switched(executor=EAGER):
        outs, new_state = fn([feeds[k] for k in feed_keys], list(graph.constants), state)
    return outs, new_state
