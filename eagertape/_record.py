"""What a tape records: its data, the op record, and ``record``, which appends a call.

One recorded call (an "op") is a plain tuple, made on every recorded call (a
NamedTuple costs ~135 ns more to make); readers unpack it into named locals:

====== ===========================================================================
field  meaning
====== ===========================================================================
kind   the call's ``_primitive._Kind``; None for a custom_gradient op
objs   the dynamic leaves as passed (Tensors, floats, arrays)
vals   their values (arrays, or fused mode's ``_graph.Pending``)
outs   the flat outputs (Tensors and any other leaves)
custom the backward of a custom_gradient op, else None
name   a custom_gradient op's name, else None
where  file:line of the call, kept while checking numerics (``debug``)
====== ===========================================================================

The same record may sit on several tapes; each tape keeps its own wiring of the
op's inputs and outputs (``TapeData``: slots, ``struct``).
"""
from . import _connected, _keys
from ._dtypes import is_inexact
from .debug import call_site
from ._state import local
from ._tensor import Tensor


class TapeData:
    """What one tape has recorded; dropped whole when a non-persistent tape is used.

    Every floating Tensor the tape knows gets a slot (an index): watched tensors,
    Variable reads, op outputs (all tracked) and the untracked floating inputs
    of recorded ops. ``struct`` is the tape's structure, built as ops are
    recorded: per op its kind id and the slots of its inputs and outputs; ``sid``
    names it (``_keys``). With the gradient's targets and sources that id keys
    the compiled replay, and ``vals``
    (the values the ops read, in order) are that replay's arguments.
    """

    __slots__ = ("nodes", "tracked", "keep", "variables", "var_reads", "ops", "struct",
                 "sid", "vals", "graph", "refs", "plain_ops", "persistent")

    def __init__(self, persistent=False):
        self.nodes = {}      # id(tensor) -> slot
        self.tracked = []    # slot -> whether gradients are wanted through it
        self.keep = []       # watched tensors and reads: keeps their ids theirs
        self.variables = {}  # id(v) -> v for watched Variables
        self.var_reads = {}  # id(v) -> [slots of its reads recorded here]
        self.ops = []        # recorded ops, in order
        self.struct = []     # per op: (kind id, input slots, output slots)
        self.sid = _keys.EMPTY   # id of struct; None past _keys.LONGEST ops
        self.vals = []       # values the ops read, flattened in op order
        # Fused mode: the pending graph the ops were appended to, and the graph
        # refs of vals (None once the ops span graphs or ran at once).
        self.graph = None
        self.refs = []
        self.plain_ops = 0   # custom_gradient ops and ops JAX could not trace
        # Fused mode answers a persistent tape's queries on computed values
        # (_replay._at_once), so every query computes as the last one did.
        self.persistent = persistent

    def new_slot(self, t, tracked=True):
        s = self.nodes[id(t)] = len(self.tracked)
        self.tracked.append(tracked)
        return s

    def tracks(self, key):
        """Whether the Tensor with ``id`` ``key`` has a tracked slot here."""
        s = self.nodes.get(key)
        return s is not None and self.tracked[s]


def op_name(op):
    kind, _, _, _, _, name, _ = op
    return name or (kind.name if kind is not None else "op")


_key_table_get = _keys._table.get
_LONGEST = _keys.LONGEST


def record(kind, objs, vals, outs, tapes, custom=None, name=None, graph=None, refs=None):
    """Append the op to every tape on which one of its floating inputs is tracked.

    ``graph``, ``refs``: in fused mode, the pending graph and the graph refs of
    ``vals`` (kept by the tape, so a fused gradient need not look its values up)."""
    op = out_ok = None
    for tape in tapes:
        d = tape._tape
        nodes, tracked = d.nodes, d.tracked
        in_slots, hit = [], False
        for o in objs:
            if type(o) is Tensor:
                s = nodes.get(id(o))
                if s is not None and tracked[s]:
                    hit = True
                in_slots.append(s)
            else:
                in_slots.append(-1)
        if not hit:
            continue
        if op is None:
            if len(outs) == 1:
                o = outs[0]
                if not (type(o) is Tensor and is_inexact(o._v.dtype)):
                    return None     # integer and bool results are constants for the tape
            else:
                out_ok = [type(o) is Tensor and is_inexact(o._v.dtype) for o in outs]
                if True not in out_ok:
                    return None
            # A fused call (graph) is deferred only while numerics go unchecked.
            if graph is None and local.state.check_numerics:
                op = (kind, objs, vals, outs, custom, name, call_site())
            else:
                op = (kind, objs, vals, outs, custom, name, None)
        ok = out_ok
        if kind is not None and kind.by_dependence:
            w = _watched_outputs(op, in_slots, tracked, out_ok, len(outs))
            if w is not None:
                if True not in w:
                    continue
                ok = w
        # Every floating Tensor input gets a slot, tracked or not: as in TF, a
        # recorded op passes gradients to all its inputs, so a tensor watched
        # after the op still receives its share (an unwatched one does not).
        if None in in_slots:
            for i, s in enumerate(in_slots):
                if s is None:
                    o = objs[i]
                    in_slots[i] = d.new_slot(o, False) if is_inexact(o._v.dtype) else -1
        if len(outs) == 1 and ok is None:      # the common case, without the loop
            nodes[id(outs[0])] = s = len(tracked)
            tracked.append(True)
            out_slots = (s,)
        else:
            out_slots = []
            for o, o_ok in zip(outs, ok if ok is not None else [True] * len(outs)):
                if o_ok:
                    nodes[id(o)] = s = len(tracked)
                    tracked.append(True)
                    out_slots.append(s)
                else:
                    out_slots.append(-1)
            out_slots = tuple(out_slots)
        d.ops.append(op)
        entry = (kind.id if kind is not None else None, tuple(in_slots), out_slots)
        sid = d.sid
        if sid is not None:
            k = (sid, entry)
            e = _key_table_get(k)         # _keys.step, inlined
            sid, entry = e if e is not None else _keys.step(k)
            d.sid = sid if len(d.ops) <= _LONGEST else None
        d.struct.append(entry)            # shared: this call's copy is dropped
        d.vals += vals
        trefs = d.refs
        if trefs is not None:
            g = d.graph
            if graph is not None and (g is graph or g is None):   # None: the first op
                d.graph = graph
                trefs += refs
            else:
                d.refs = None     # values of several graphs, or run at once
        if custom is not None or not kind.traceable:
            d.plain_ops += 1
    return op


def _watched_outputs(op, in_slots, tracked, out_ok, n):
    """Which outputs of a gradient op depend on an input this tape tracks (None:
    all of them)."""
    deps = _connected.of(op)
    if deps is None:
        return None
    if deps == _connected.NO_GRADIENT:
        return [False] * n
    live = {i for i, s in enumerate(in_slots) if s is not None and s >= 0 and tracked[s]}
    return [(out_ok is None or out_ok[j]) and bool(live & deps[j]) for j in range(n)]
