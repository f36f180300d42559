"""Fused execution: recorded calls build a pending graph, run as one XLA program.

In fused mode a call whose kind can be traced does not run: its outputs'
shapes and dtypes come from ``jax.eval_shape`` (cached by kind and input
signature, so a repeated call costs a dictionary lookup), its outputs are
Tensors holding ``_graph.Pending`` values, and the call is appended to this
thread's ``_graph.Graph``. Shape and dtype errors therefore still appear at the call site.

A pending value is computed when something needs it (``Tensor._value``: numpy,
float, bool, repr, ``.jax()``, an op that cannot be fused): the whole graph
runs, and every pending value still referenced gets its array. ``tape.gradient``
appends its compiled replay to the graph as one more call (``_replay``), and a
Variable's assignment appends its update (``Variable._assign``), so that a
training step (forward, gradients, the optimizer's updates) runs as one
program, when the next step first reads a Variable. The graph's module says
how graphs are compiled.
"""
import weakref

import jax
from jax.tree_util import tree_flatten

from . import _keys
from ._cache import Table
from ._graph import Graph, Pending, _ArrayImpl
from ._config import check_mode, config
from ._state import EXECUTORS, local, x64
from ._tensor import Tensor

_new = object.__new__
_weakref = weakref.ref

# (kind id, input signature) -> (out treedef, out avals)
_abstract = Table("abstract values", 16384)
# (graph structure id, kind id, refs) -> (structure id after the call, out treedef,
# out avals, node). A structure id covers its inputs' signatures, so it fixes the
# call's input avals: one lookup gives a repeated call both its outputs' avals
# and the graph's next id. The node, (kind, refs), is shared by every graph that
# makes this step: a call keeps no tuples of its own (fewer objects for Python's
# cyclic collector to track and count while a long step records).
_steps = Table("fused steps", _keys.MAX_ENTRIES)
_steps_get = _steps.get


def pending(kind, vals, h):
    """Append the call to the pending graph: its outputs (Tensors of pending
    values), their treedef, the graph and the refs of ``vals``; None if the kind cannot
    be traced, False if this call is inside a JAX transformation (it then runs
    at once).

    This runs for every call in fused mode: making the ``Pending`` and its
    Tensor is inlined (a call costs more than its body).
    """
    g = h.graph                # h: this thread's local.state
    if g is None or g.sealed:
        g = h.graph = Graph()
    refs = []
    for v in vals:
        if type(v) is Pending and v.graph is g and v.value is None:
            refs.append(v.index)
        else:
            if type(v) is Pending:
                v = v.get()
            elif type(v) is not _ArrayImpl and isinstance(v, jax.core.Tracer):
                return False      # called inside a JAX transformation: run it there
            r = g.input_pos.get(id(v))       # g.input, inlined
            refs.append(r if r is not None else g.input(v))
    return append(kind, tuple(refs), g)


def append(kind, refs, g):
    """Append a call of ``kind`` on the graph values and inputs ``refs`` to ``g``:
    what ``pending`` gives, or None if the kind cannot be traced."""
    k = (g.sid, kind.id, refs)
    e = _steps_get(k)
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
    if len(g.nodes) >= config.max_pending:
        g.materialize()
    _, shared_refs = node
    return outs, treedef, g, shared_refs


def _new_step(g, kind, refs, k):
    # The call's input avals from the graph, its outputs' from the abstract cache.
    sig = [kind.id]
    for r in refs:
        if r >= 0:
            sig.append(g.outs[r]().aval)     # alive: the call's own vals hold it
        else:
            sig.append(g.signatures[-r - 1])
    sig = tuple(sig)
    ab = _abstract.get(sig)
    if ab is None:
        ab = _eval_shape(kind, sig)
        if ab is None:
            return None
    return _steps.put(k, (_keys.new_id(),) + ab + ((kind, refs),))


@x64
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
    return _abstract.put(sig, (treedef if len(leaves) != 1 or treedef.num_nodes != 1 else None,
                               avals))


def run_pending():
    """Run this thread's pending graph now (``extend.run_pending``)."""
    g = local.state.graph
    if g is not None:
        g.materialize()


def resolve(vals):
    """``vals`` with every pending value computed."""
    if any(type(v) is Pending for v in vals):
        return [v.get() if type(v) is Pending else v for v in vals]
    return vals


# ---------------------------------------------------------------------------
# The public switch
# ---------------------------------------------------------------------------

def get_execution_mode():
    """This thread's execution mode: ``"eager"`` or ``"fused"``.

    >>> import eagertape as et
    >>> with et.execution_mode("fused"):
    ...     print(et.get_execution_mode())
    fused
    """
    return local.state.mode


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
    config.execution_mode = mode      # checked there
    _switch(mode)


def _switch(mode):
    st = local.state
    g = st.graph
    if mode == "eager" and g is not None:
        g.seal()          # its values are still computed when asked for
    st.mode, st.executor = mode, EXECUTORS[mode]


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
        self.mode = check_mode(mode)
        self._saved = []

    def __enter__(self):
        self._saved.append(get_execution_mode())
        _switch(self.mode)
        return self

    def __exit__(self, *exc):
        _switch(self._saved.pop())
        return False
