"""Replay: gradients by composing the recorded ops' ``jax.vjp`` pullbacks.

Compiled: one pure function ``replay(values, seeds) -> grads`` of the values
the tape's ops read, run under ``jax.jit`` and cached by the tape's structure
(built while recording: op kinds and the slots that wire them), the targets and
the sources; shapes and dtypes are jit's own cache key. It is called through
the primitive wrapper when a tape records, so a gradient taken inside an outer
tape is one composite op there, and JAX differentiates it for higher orders.

Per op ("eager"): a Python walk calling one pullback per op through the
primitive wrapper. It serves new structures while structures churn (compiling
pays only when a structure comes back: a training loop, not a loop whose tape
changes every step), very long tapes, `custom_gradient` ops (whose Python
grad_fn must run on Tensors) and ops JAX cannot trace.
"""
import collections
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import tree_flatten

from . import _connected, _fused
from ._cache import Cache as _Cache
from ._dtypes import is_complex, is_inexact
from ._graph import Pending
from ._primitive import call
from ._record import op_name
from ._state import state
from ._tensor import Tensor, _wrap
from ._variables import Variable

_UNTRACEABLE = object()   # cache value: this structure replays op by op

# XLA's compile time grows faster than linearly with the op count (about 6 s for
# 1000 small ops on 2 cores): longer tapes always replay op by op, with per-op
# pullbacks compiled once per op kind.
COMPILE_MAX_OPS = 2500


_replays = _Cache(512)     # structure -> compiled whole-tape replay
_seen = _Cache(512)        # structures met once, not compiled (yet)
_pullbacks = _Cache(4096)  # (kind id, differentiated inputs) -> per-op pullback

# Whether structures are churning: 1 for each recent gradient whose structure was
# brand new. A training loop compiles its structure at first sight; once several
# recent structures were new (a loop whose tape changes every step, a test
# suite, a notebook), a new structure is replayed op by op and compiled only if
# it comes back.
_recent = collections.deque(maxlen=16)
CHURN_DEFER = 3

CacheInfo = collections.namedtuple("CacheInfo", "hits misses size maxsize deferred executables")


def replay_cache_info():
    """Counters of the compiled-replay cache.

    ``hits``: gradients served by a compiled replay; ``misses``: replays
    compiled; ``deferred``: new structures replayed op by op without compiling
    (while structures churn, one is compiled only when it comes back);
    ``size``/``maxsize``: structures held (LRU); ``executables``: XLA
    executables they hold (one per shape signature; a replay recorded on an
    outer tape has its own). A training loop of fixed
    structure misses once, then hits.

    >>> import eagertape as et
    >>> et.replay_cache_info()                          # doctest: +SKIP
    CacheInfo(hits=99, misses=1, size=1, maxsize=512, deferred=0, executables=1)
    >>> et.replay_cache_info()._fields
    ('hits', 'misses', 'size', 'maxsize', 'deferred', 'executables')
    """
    execs = sum(fn._cache_size() for fn in _replays.values() + _flat_replays.values()
                if fn is not _UNTRACEABLE and hasattr(fn, "_cache_size"))
    return CacheInfo(_replays.hits, _replays.misses, len(_replays), _replays.maxsize,
                     _replays.deferred, execs)


def clear_replay_cache():
    """Drop every compiled replay and pullback and reset the counters.

    >>> import eagertape as et
    >>> et.clear_replay_cache()
    >>> info = et.replay_cache_info()
    >>> info.hits, info.misses, info.size
    (0, 0, 0)
    """
    _replays.clear()
    _flat_replays.clear()
    _pullbacks.clear()
    _seen.clear()
    _recent.clear()


def set_replay_cache_size(maxsize):
    """Bound the number of compiled replays kept (least recently used go first).

    >>> import eagertape as et
    >>> before = et.replay_cache_info().maxsize
    >>> et.set_replay_cache_size(64)
    >>> et.replay_cache_info().maxsize
    64
    >>> et.set_replay_cache_size(before)
    """
    if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
        raise ValueError(f"argument `maxsize` must be a positive int, got {maxsize!r}")
    _replays.maxsize = maxsize
    _seen.maxsize = maxsize


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------

def _plan(data, targets, sources, output_gradients, copied=False):
    """Seeds ``(slot, target, output gradient)`` and the live sources ``(source, slots)``.

    ``copied``: TF's jacobians differentiate a reshaped copy of the target, so a
    target no tape records is never its own source there."""
    nodes, tracked = data.nodes, data.tracked
    source_ids = {_key(s) for s in sources}
    target_ids = {_key(t) for t in targets}
    extra = {}   # id -> slot for a target that is a source but no slot of the tape's

    seeds = []
    for i, t in enumerate(targets):
        k = _key(t)
        s = nodes.get(k) if type(t) is Tensor else None
        if s is None or not tracked[s]:
            if k not in source_ids or copied:
                continue      # neither recorded nor a source: adds nothing (TF)
            if s is None:
                s = extra.setdefault(k, len(tracked) + len(extra))
        seeds.append((s, t, output_gradients[i] if output_gradients else None))

    wanted = {}   # id(source) -> (source, slots)
    for src in sources:
        k = _key(src)
        if k in wanted:
            continue
        if isinstance(src, Variable):
            slots = list(data.var_reads.get(k, ()))
        else:
            # An input no tape tracked (never watched, not recorded) is no source
            # in TF (fact 25), unless it is also a target (fact 37); and then TF
            # drops its gradient once an op that reads it has run backwards, so
            # it keeps its seed only where no such op is on the way.
            s = nodes.get(k)
            if s is not None and not tracked[s] and k in target_ids and \
                    _read_on_the_way(data, seeds, s):
                s = None
                slots = []
            else:
                slots = [s] if s is not None and (tracked[s] or k in target_ids) else []
        if k in extra:
            slots.append(extra[k])
        wanted[k] = (src, tuple(slots))
    return seeds, [(src, slots) for src, slots in wanted.values() if slots]


def _key(x):
    # A Variable's alias (what assign returns) is the Variable for a tape.
    return id(x._of) if isinstance(x, Variable) else id(x)


def _read_on_the_way(data, seeds, slot):
    """Whether an op on the way back from the seeds' slots reads ``slot``."""
    tracked = data.tracked
    needed = {s for s, _, _ in seeds if s < len(tracked) and tracked[s]}
    for _, ins, outs in reversed(data.struct):
        if any(o in needed for o in outs):
            if slot in ins:
                return True
            needed.update(i for i in ins if i >= 0 and tracked[i])
    return False


def _can_compile(data):
    # Checking numerics replays op by op, so a bad gradient is named by its op.
    return (state.replay != "eager" and not data.plain_ops and not state.hot.check_numerics
            and len(data.ops) <= COMPILE_MAX_OPS)


def _at_once(query, data, *args):
    """``query(data, *args)``; in fused mode a persistent tape's queries run at
    once, on the recorded values computed first (their pending graph runs once,
    as one program), so that every query replays on the same values and
    computes the same way."""
    h = state.hot
    if not (data.persistent and h.fused):
        return query(data, *args)
    data.vals = _fused.resolve(data.vals)
    h.fused = False
    try:
        return query(data, *args)
    finally:
        h.fused = True


def gradient(data, targets, sources, output_gradients, zero):
    return _at_once(_gradient, data, targets, sources, output_gradients, zero)


def _gradient(data, targets, sources, output_gradients, zero):
    seeds, live = _plan(data, targets, sources, output_gradients)
    grads = {}
    if seeds and live:
        out = None
        if _can_compile(data):
            out = _compiled(data, seeds, live, state.replay == "compiled")
        if out is None:
            out = _eager(data, seeds, live)
        for (src, _), g in zip(live, out):
            grads[_key(src)] = g
    results = []
    for src in sources:
        g = grads.get(_key(src))
        if g is None and zero:
            v = src._aval()
            g = _wrap(jnp.zeros(v.shape, v.dtype))
        results.append(g)
    return results


def jacobian(data, target, sources, zero, batch):
    """Rows of d target / d sources, all at once: the compiled replay vmapped over
    one-hot seeds (per element of ``target``; per element of a batch row with
    ``batch``). Unconnected sources: None, or zeros (``batch``: always zeros)."""
    return _at_once(_jacobian, data, target, sources, zero, batch)


def _jacobian(data, target, sources, zero, batch):
    tv = target._aval()
    tshape = tuple(tv.shape)
    seeds, live = _plan(data, [target], sources, None, copied=True)
    if not is_inexact(tv.dtype):
        seeds = []              # integer targets carry no gradient (TF)
    grads = {}
    if seeds and live:
        out = None
        if _can_compile(data):
            out = _compiled(data, seeds, live, True, ("batch" if batch else "full", tshape))
        if out is None:
            out = _jacobian_rows(data, seeds, live, tshape, batch)
        for (src, _), g in zip(live, out):
            grads[_key(src)] = g
    results = []
    for src in sources:
        g = grads.get(_key(src))
        if g is None and (zero or batch):
            sv = src._aval()
            if batch:
                # TF's batch_jacobian: the gradient's zeros (the source's dtype) with
                # "zero"; else, finding none, zeros of the target's dtype.
                shape, dtype = tshape + tuple(sv.shape[1:]), sv.dtype if zero else tv.dtype
            else:
                shape, dtype = tshape + tuple(sv.shape), sv.dtype
            g = _wrap(jnp.zeros(shape, dtype))
        results.append(g)
    return results


def _one_hots(tshape, dtype, batch):
    # Seeds of the rows: one per target element (batch: per element of a row,
    # the same position in every row of the batch).
    inner = tshape[1:] if batch else tshape
    n = math.prod(inner)
    eye = jnp.eye(n, dtype=dtype).reshape((n,) + inner)
    if batch:
        eye = jnp.broadcast_to(eye[:, None], (n,) + tshape)
    return eye


def _arrange(rows, tshape, batch):
    # rows: (n, *source.shape) -> target.shape + source.shape (batch: [b, y.., x..])
    if batch:
        rows = jnp.moveaxis(rows, 0, 1)
        return rows.reshape(tshape + rows.shape[2:])
    return rows.reshape(tshape + rows.shape[1:])


def _jacobian_rows(data, seeds, live, tshape, batch):
    # Tapes with custom_gradient or untraceable ops, and very long tapes: one
    # op-by-op replay per row (their Python pullbacks cannot be vmapped).
    (s, t, _), = seeds
    eye = _one_hots(tshape, t._aval().dtype, batch)
    rows = [_eager(data, [(s, t, _wrap(e))], live) for e in eye]
    out = []
    for j in range(len(live)):
        col = [r[j] for r in rows]
        if any(g is None for g in col):
            out.append(None)
            continue
        out.append(call(_stack_rows, (col, tshape, batch), jit=False))
    return out


def _stack_rows(rows, tshape, batch):
    return _arrange(jnp.stack(rows), tshape, batch)


# ---------------------------------------------------------------------------
# Compiled replay
# ---------------------------------------------------------------------------

def _compiled(data, seeds, live, first_sight, jac=None):
    """The compiled replay's gradients, or None where it cannot serve.

    ``jac``: ``(mode, target shape)`` for a Jacobian, the replay vmapped over
    one-hot seeds (mode "full" or "batch").
    """
    seed_spec, seed_objs = [], []
    for s, t, og in seeds:
        v = t._aval()
        si = 0 if jac is not None else None    # a Jacobian's seeds are its one-hot rows
        if og is not None:
            si = len(seed_objs)
            seed_objs.append(og)
        seed_spec.append((s, v.shape, v.dtype, si, is_complex(v.dtype)))
    src_spec = []
    for src, slots in live:
        src_spec.append((slots, is_complex(src._aval().dtype)))
    src_spec = tuple(src_spec)
    if data.sid is None:
        return None
    key = (data.sid, tuple(seed_spec), src_spec, jac)
    h = state.hot
    if h.fused and not (h.tapes or h.accumulators):
        g = h.graph
        if g is not None and not g.sealed:
            out = _fused_replay(g, key, data, seeds, seed_objs, seed_spec, src_spec, jac)
            if out is not None:
                return out

    fn = _replays.lookup(key)
    if fn is None:
        new = key not in _seen
        _recent.append(new)
        if new and not first_sight and sum(_recent) >= CHURN_DEFER:
            _seen.put(key, True)
            _replays.deferred += 1
            return None
        _seen.pop(key)
        _replays.misses += 1
        ops = _static_ops(data)
        replay = _build(ops, seed_spec, src_spec)
        fn = jax.jit(replay if jac is None else _vmapped(replay, seed_spec, jac))
        _replays.put(key, fn)
    elif fn is _UNTRACEABLE:
        return None
    else:
        _replays.hits += 1
        _recent.append(False)
    try:
        if h.tapes or h.accumulators:
            # An outer (or this persistent) tape records the replay itself; an
            # accumulator forwards tangents through it.
            objs = [o for op in data.ops for o in op[1]]   # Tensors, not values
            return call(_flat(key, fn, len(objs)), (*objs, *seed_objs), jit=False)
        seed_vals = [g._value for g in seed_objs]
        vals = _fused.resolve(data.vals) if _fused.made else data.vals
        return [None if g is None else _wrap(g) for g in fn(vals, seed_vals)]
    except Exception:
        # Tracing failed (an op needs concrete values): replay op by op, where a
        # real error shows itself again.
        _replays.put(key, _UNTRACEABLE)
        return None


_flat_replays = _Cache(512)   # structure -> its replay taking flat arguments


def _flat(key, fn, n):
    """``fn(vals, seeds)`` as a jitted function of ``*vals, *seeds``: recorded as
    one op whose arguments are flat (no nest to walk at every call)."""
    flat = _flat_replays.lookup(key)
    if flat is None:
        def replay(*args):
            return fn(list(args[:n]), list(args[n:]))
        flat = jax.jit(replay)
        flat.by_dependence = True
        _flat_replays.put(key, flat)
    return flat


def _fused_replay(g, key, data, seeds, seed_objs, seed_spec, src_spec, jac):
    """Fused mode: the pending graph and the replay as one program, which also
    gives the targets' values; None the first time a structure is seen."""
    if data.graph is g and data.refs is not None:
        refs = tuple(data.refs)            # kept as the ops were recorded
    else:                                  # the ops' values span graphs, or ran at once
        refs = tuple([g.ref(v) for v in data.vals])
    pending = bool(refs) and max(refs) >= 0
    seed_refs = tuple(g.ref(o._aval()) for o in seed_objs) if seed_objs else ()
    targets = []
    for _, t, _ in seeds:
        p = t._aval()
        if type(p) is Pending and p.graph is g and p.value is None:
            targets.append(p.index)
    targets = tuple(targets) if len(targets) < 2 else tuple(sorted(set(targets)))
    if not (pending or targets or any(r >= 0 for r in seed_refs)):
        return None          # nothing pending: the replay alone
    def make():      # called at once, on a miss
        nodes = list(g.nodes)
        ops = _static_ops(data)
        replay = _build(ops, seed_spec, src_spec)
        if jac is not None:
            replay = _vmapped(replay, seed_spec, jac)

        def step(inputs):
            env = _fused.evaluate(nodes, inputs)
            vals = [env[r] if r >= 0 else inputs[-r - 1] for r in refs]
            seed_vals = [env[r] if r >= 0 else inputs[-r - 1] for r in seed_refs]
            return replay(vals, seed_vals), [env[i] for i in targets]
        return step

    pkey = (key, g.sid, len(g.inputs), refs, seed_refs, targets)
    fn = _fused.program(pkey, make)
    if not fn:
        return None
    try:
        grads, values = fn(g.inputs)
    except Exception:
        # It cannot be traced as one program: forward, then replay, as in eager
        # mode (where a real error shows itself again).
        _fused.forget(pkey)
        return None
    g.seal()     # the rest of the graph stays pending, computed if it is asked for
    for i, a in zip(targets, values):
        p = g.outs[i]()
        if p is not None:
            p.value = a
    return [None if x is None else _wrap(x) for x in grads]


def _vmapped(replay, seed_spec, jac):
    mode, tshape = jac
    (_, _, dtype, _, _), = seed_spec
    batch = mode == "batch"

    def jacobian(vals, seeds):
        rows = jax.vmap(lambda e: replay(vals, [e]))(_one_hots(tshape, dtype, batch))
        return [None if r is None else _arrange(r, tshape, batch) for r in rows]
    return jacobian


def _kind_vjp(kind, vals, diff, cts):
    """Cotangents of a call's inputs at positions ``diff``: ``jax.vjp`` at its values."""
    # Only the outputs that have a cotangent are differentiated: zeros standing
    # for the others would be read by the pullback's jaxpr, and a tape recording
    # it would connect its results to inputs only those outputs depend on (the
    # second output of ``a @ b``'s pullback reads ``a``).
    f = kind.at(vals, diff)
    live = [j for j, c in enumerate(cts) if c is not None]

    def live_outputs(*xs):
        flat = tree_flatten(f(*xs))[0]
        return [flat[j] for j in live]
    _, pullback = jax.vjp(live_outputs, *[vals[i] for i in diff])
    return pullback([cts[j] for j in live])


def _static_ops(data):
    # What a compiled replay closes over, per op: kind, slots, value count, deps.
    return [(op[0], ins, outs, len(op[2]), _connected.of(op))   # op: (kind, objs, vals, ...)
            for op, (_, ins, outs) in zip(data.ops, data.struct)]


def _build(ops, seed_spec, src_spec):
    # Only static structure is closed over (kinds, slots; no values), so one
    # executable serves every later tape of the same structure.
    total = sum(op[3] for op in ops)

    def replay(vals, seeds):
        ct = {}

        def acc(s, g):
            ct[s] = ct[s] + g if s in ct else g

        for s, shape, dtype, si, cplx in seed_spec:
            g = seeds[si] if si is not None else jnp.ones(shape, dtype)
            acc(s, jnp.conj(g) if cplx else g)
        pos = total
        for kind, in_slots, out_slots, n, deps in reversed(ops):
            pos -= n
            cts = [ct.get(s) if s >= 0 else None for s in out_slots]
            if all(c is None for c in cts):
                continue
            diff = _connected.receiving(deps, cts, tuple(i for i, s in enumerate(in_slots) if s >= 0))
            if not diff:
                continue
            in_cts = _kind_vjp(kind, vals[pos:pos + n], diff, cts)
            for i, c in zip(diff, in_cts):
                acc(in_slots[i], c)
        out = []
        for slots, cplx in src_spec:
            gs = [ct[s] for s in slots if s in ct]
            if not gs:
                out.append(None)
                continue
            g = gs[0]
            for h in gs[1:]:
                g = g + h
            out.append(jnp.conj(g) if cplx else g)
        return out
    return replay


# ---------------------------------------------------------------------------
# Per-op replay (pullbacks called through the primitive wrapper)
# ---------------------------------------------------------------------------

class _Pullback:
    """One kind's pullback for a set of differentiated inputs; compiled on second use."""

    __slots__ = ("fn", "uses", "__weakref__")

    def __init__(self, kind, diff):
        def pullback(vals, cts):
            return _kind_vjp(kind, vals, diff, cts)
        pullback.__name__ = f"{kind.name}_pullback"
        pullback.by_dependence = True
        self.fn, self.uses = pullback, 0


def _pullback_fn(kind, diff):
    key = (kind.id, diff)
    e = _pullbacks.lookup(key)
    if e is None:
        e = _Pullback(kind, diff)
        _pullbacks.put(key, e)
    e.uses += 1
    if e.uses == 2 and kind.traceable:
        e.fn = jax.jit(e.fn)
        e.fn.by_dependence = True
    return e


def _run_pullback(kind, objs, diff, cts):
    e = _pullback_fn(kind, diff)
    try:
        return call(e.fn, (objs, cts), jit=False)
    except Exception:
        if not hasattr(e.fn, "lower"):
            raise
        e.fn = e.fn.__wrapped__        # cannot be traced: run it as is from now on
        return call(e.fn, (objs, cts), jit=False)


def _eager(data, seeds, live):
    tracked = data.tracked
    wanted_slots = {s for _, slots in live for s in slots}
    ct = {}

    def acc(s, g):
        ct[s] = call(jnp.add, (ct[s], g)) if s in ct else g

    for s, t, og in seeds:
        v = t._aval()
        g = og if og is not None else _wrap(jnp.ones(v.shape, v.dtype))
        acc(s, call(jnp.conj, (g,)) if is_complex(v.dtype) else g)
    # A snapshot: pullbacks recorded on this (persistent) tape append to it.
    for op, (_, in_slots, out_slots) in reversed(list(zip(data.ops, data.struct))):
        cts = [ct.get(s) if s >= 0 else None for s in out_slots]
        if all(c is None for c in cts):
            continue
        # Gradients go only where they can reach a source: tracked slots (the
        # others are constants no op produced) and the sources themselves.
        diff = _connected.receiving(
            _connected.of(op), cts,
            tuple(i for i, s in enumerate(in_slots) if s >= 0 and (tracked[s] or s in wanted_slots)))
        if not diff:
            continue
        kind, objs, _, outputs, custom, _, where = op
        if custom is not None:
            for j, s in enumerate(out_slots):
                if s >= 0 and cts[j] is None:    # TF: the other outputs get zeros
                    v = outputs[j]._value
                    cts[j] = _wrap(jnp.zeros(v.shape, v.dtype))
            all_in = custom(cts)
            in_cts = [all_in[i] for i in diff]
        else:
            # A pullback's results are checked below, named by the op they belong to.
            checking, state.check_numerics = state.check_numerics, False
            try:
                in_cts = _run_pullback(kind, objs, diff, cts)
            finally:
                state.check_numerics = checking
        if state.check_numerics:
            from .debug import check_gradients
            check_gradients(op_name(op), [in_cts[k] for k in range(len(diff))], where)
        for i, c in zip(diff, in_cts):
            if c is not None:
                acc(in_slots[i], c)
    out = []
    for src, slots in live:
        g = None
        for s in slots:
            if s in ct:
                g = ct[s] if g is None else call(jnp.add, (g, ct[s]))
        out.append(call(jnp.conj, (g,)) if g is not None and is_complex(src._aval().dtype) else g)
    return out
