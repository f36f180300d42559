"""Replay: gradients by composing the recorded ops' ``jax.vjp`` pullbacks.

There is one reverse pass (``_backward``): seed the targets' slots, walk the
ops backwards, skip an op whose outputs have no cotangent, pull cotangents back
to the inputs that can pass them on to a source, add them per slot, and sum
them per source. It runs in two ways, which differ only in how an op's pullback
is obtained and how cotangents are added:

- **Compiled**: one pure function ``replay(values, seeds) -> grads`` of the
  values the tape's ops read, run under ``jax.jit`` and cached by the tape's
  structure (built while recording: op kinds and the slots that wire them),
  the targets and the sources; shapes and dtypes are jit's own cache key. It
  is called through the primitive wrapper when a tape records, so a gradient
  taken inside an outer tape is one composite op there, and JAX
  differentiates it for higher orders. In fused mode it is, the same way, one
  call appended to the pending graph: the gradients are pending values.
- **Per op**: a Python walk calling one pullback per op through the primitive
  wrapper. It serves new structures while structures churn (compiling pays
  only when a structure comes back, ``_cache.CompileCache``), very long
  tapes, ``custom_gradient`` ops (whose Python grad_fn must run on Tensors),
  ops JAX cannot trace, and ``debug.enable_check_numerics``.

``gradient`` and ``jacobian`` share one skeleton (``_differentiate``): plan
the seeds and the live sources, try the compiled replay, else the per-op one,
and give unconnected sources None or zeros.
"""
import collections
import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jax.tree_util import tree_flatten, tree_unflatten

from . import _connected, _fused, _graph
from ._cache import COMPILED, CompileCache, Table, clear_all, share_programs
from ._config import config
from ._custom import Cotangent
from ._custom import dense as _dense
from ._dtypes import is_complex, is_inexact
from ._primitive import call, flat_kind
from ._record import op_name
from ._state import EAGER, FUSED, local, switched
from ._tensor import Tensor, _wrap
from .debug import check_gradients
from ._variables import Variable

# A training loop compiles its structure at first sight; once structures churn
# (a loop whose tape changes every step, a test suite, a notebook), a new
# structure is replayed op by op and compiled only if it comes back.
_replays = CompileCache("replays", 512, churn=True)   # structure -> whole-tape replay
_pullbacks = CompileCache("pullbacks", 4096)   # (kind id, differentiated inputs) -> pullback
_recorded = Table("recorded replays", 512)     # structure -> replay taking flat arguments

CacheInfo = collections.namedtuple("CacheInfo", "hits misses size maxsize deferred executables")


class Seed(NamedTuple):
    """How the compiled replay seeds one target (a part of its cache key)."""
    slot: int            # the target's slot
    shape: tuple
    dtype: Any
    index: int | None    # its output gradient among the seeds passed; None: ones
    complex: bool        # seeded conjugated (TF's convention for complex gradients)


class Source(NamedTuple):
    """One live source of a replay (a part of its cache key)."""
    slots: tuple         # its slots on the tape (a Variable: one per read)
    complex: bool        # its gradient is conjugated back


# Made on every gradient: tuple.__new__ skips the NamedTuple's Python __new__ (~0.3 us).
_new_record = tuple.__new__


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
    execs = sum(fn._cache_size() for fn in _replays.compiled() + list(_recorded.values())
                if hasattr(fn, "_cache_size"))
    c = _replays.counters()
    return CacheInfo(c["hits"], c["misses"], c["size"], c["maxsize"], c["deferred"], execs)


def clear_replay_cache():
    """Drop every cache eagertape keeps (compiled replays, pullbacks, fused
    programs, call kinds, ...) and reset their counters.

    >>> import eagertape as et
    >>> et.clear_replay_cache()
    >>> info = et.replay_cache_info()
    >>> info.hits, info.misses, info.size
    (0, 0, 0)
    """
    clear_all()


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


# ---------------------------------------------------------------------------
# Entry points: gradient and jacobian
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
    st = local.state
    return (st.replay != "per_op" and not data.plain_ops and not st.check_numerics
            and len(data.ops) <= config.compile_max_ops)


def _at_once(query, data, *args):
    """``query(data, *args)``; in fused mode a persistent tape's queries run at
    once, on the recorded values computed first (their pending graph runs once,
    as one program), so that every query replays on the same values and
    computes the same way."""
    if not (data.persistent and local.state.executor.defers):
        return query(data, *args)
    data.vals = _fused.resolve(data.vals)
    with switched(executor=EAGER):
        return query(data, *args)


def _differentiate(data, seeds, live, sources, compiled, per_op, missing):
    """One gradient query: the compiled replay (``compiled()``, None where it
    cannot serve), else the per-op one (``per_op()``); per source its gradient,
    or ``missing(source)`` for one that gets none."""
    grads = {}
    if seeds and live:
        out = compiled() if _can_compile(data) else None
        if out is None:
            out = per_op()
        for (src, _), g in zip(live, out):
            grads[_key(src)] = g
    results = []
    for src in sources:
        g = grads.get(_key(src))
        results.append(missing(src) if g is None else g)
    return results


def gradient(data, targets, sources, output_gradients, zero):
    return _at_once(_gradient, data, targets, sources, output_gradients, zero)


def _gradient(data, targets, sources, output_gradients, zero):
    seeds, live = _plan(data, targets, sources, output_gradients)

    def missing(src):
        if not zero:
            return None
        v = src._aval()
        return _wrap(jnp.zeros(v.shape, v.dtype))
    return _differentiate(
        data, seeds, live, sources,
        lambda: _compiled(data, seeds, live, local.state.replay == "compiled"),
        lambda: _per_op(data, seeds, live), missing)


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

    def missing(src):
        if not (zero or batch):
            return None
        sv = src._aval()
        if batch:
            # TF's batch_jacobian: the gradient's zeros (the source's dtype) with
            # "zero"; else, finding none, zeros of the target's dtype.
            shape, dtype = tshape + tuple(sv.shape[1:]), sv.dtype if zero else tv.dtype
        else:
            shape, dtype = tshape + tuple(sv.shape), sv.dtype
        return _wrap(jnp.zeros(shape, dtype))
    return _differentiate(
        data, seeds, live, sources,
        lambda: _compiled(data, seeds, live, True, ("batch" if batch else "full", tshape)),
        lambda: _jacobian_rows(data, seeds, live, tshape, batch), missing)


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
    # per-op replay per row (their Python pullbacks cannot be vmapped).
    (s, t, _), = seeds
    eye = _one_hots(tshape, t._aval().dtype, batch)
    rows = [_per_op(data, [(s, t, _wrap(e))], live) for e in eye]
    out = []
    for j in range(len(live)):
        col = [_dense(r[j]) for r in rows]   # TF's jacobian of an IndexedSlices is dense
        if any(g is None for g in col):
            out.append(None)
            continue
        out.append(call(_stack_rows, (col, tshape, batch), jit=False))
    return out


def _stack_rows(rows, tshape, batch):
    return _arrange(jnp.stack(rows), tshape, batch)


# ---------------------------------------------------------------------------
# The reverse pass
# ---------------------------------------------------------------------------

def _receivers(struct, wanted):
    """Per op, the input positions a cotangent may go to: inputs some earlier op
    produced (it passes the cotangent on) and the sources' own slots. Other
    inputs (constants, watched tensors that are no source) would only hold it."""
    produced = set()
    out = []
    for _, ins, outs in struct:
        out.append(tuple(i for i, s in enumerate(ins) if s >= 0 and (s in produced or s in wanted)))
        produced.update(s for s in outs if s >= 0)
    return out


def _backward(steps, seeds, sources, deps_of, pull, add, conj):
    """The reverse pass over ``steps`` ``(in_slots, out_slots, receivers, op)``.

    ``seeds``: ``(slot, cotangent)``; ``sources``: ``(slots, complex)`` per live
    source; ``deps_of(op)``: which inputs its outputs depend on
    (``_connected``); ``pull(op, diff, cts)``: the cotangents of the inputs at
    positions ``diff`` (None where it gives none); ``add``, ``conj``: on
    cotangents. Returns per source its gradient, or None.
    """
    ct = {}
    for s, g in seeds:
        ct[s] = add(ct[s], g) if s in ct else g
    for in_slots, out_slots, receivers, op in reversed(steps):
        cts = [ct.get(s) if s >= 0 else None for s in out_slots]
        if all(c is None for c in cts):
            continue
        diff = _connected.receiving(deps_of(op), cts, receivers)
        if not diff:
            continue
        for i, c in zip(diff, pull(op, diff, cts)):
            if c is not None:
                s = in_slots[i]
                ct[s] = add(ct[s], c) if s in ct else c
    out = []
    for slots, cplx in sources:
        g = None
        for s in slots:
            if s in ct:
                if isinstance(ct[s], Cotangent):
                    g = _in_tf_order(ct, slots, add)
                    break
                g = ct[s] if g is None else add(g, ct[s])
        out.append(conj(g) if g is not None and cplx else g)
    return out


def _in_tf_order(ct, slots, add):
    # A Variable's reads add up as TF's tape adds them, the last read's first:
    # IndexedSlices concatenate in that order.
    g = None
    for s in reversed(slots):
        if s in ct:
            g = ct[s] if g is None else add(g, ct[s])
    return g


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


# ---------------------------------------------------------------------------
# Compiled replay
# ---------------------------------------------------------------------------

def _compiled(data, seeds, live, first_sight, jac=None):
    """The compiled replay's gradients, or None where it cannot serve.

    ``jac``: ``(mode, target shape)`` for a Jacobian, the replay vmapped over
    one-hot seeds (mode "full" or "batch").
    """
    if data.sid is None:
        return None
    seed_spec, seed_objs = [], []
    for s, t, og in seeds:
        v = t._aval()
        si = 0 if jac is not None else None    # a Jacobian's seeds are its one-hot rows
        if og is not None:
            si = len(seed_objs)
            seed_objs.append(og)
        seed_spec.append(_new_record(Seed, (s, v.shape, v.dtype, si, is_complex(v.dtype))))
    seed_spec = tuple(seed_spec)
    src_spec = tuple([_new_record(Source, (slots, is_complex(src._aval().dtype)))
                      for src, slots in live])
    key = (data.sid, seed_spec, src_spec, jac)

    def make():
        replay = _replay_fn(data, seed_spec, src_spec)
        return replay if jac is None else _vmapped(replay, seed_spec, jac)

    h = local.state
    e = _replays.get(key, make, now=first_sight)
    if e.state is not COMPILED:
        return None
    try:
        if h.tapes or h.accumulators:
            # An outer (or this persistent) tape records the replay itself; an
            # accumulator forwards tangents through it.
            objs = [o for _, objs, _, _, _, _, _ in data.ops for o in objs]   # Tensors, not values
            return call(_recorded_replay(key, e.fn, len(objs)), (*objs, *seed_objs), jit=False)
        return h.executor.replay(key, e.fn, data, seed_objs)
    except Exception:
        # Tracing failed (an op needs concrete values): replay op by op, where a
        # real error shows itself again.
        _replays.forget(key, e)
        return None


def _recorded_replay(key, fn, n):
    """``fn(vals, seeds)`` as a jitted function of ``*vals, *seeds``: recorded as
    one op whose arguments are flat (no nest to walk at every call)."""
    flat = _recorded.get(key)
    if flat is None:
        def replay(*args):
            return fn(list(args[:n]), list(args[n:]))
        share_programs()
        flat = jax.jit(replay)
        flat.by_dependence = True
        _recorded.put(key, flat)
    return flat


@EAGER.define("replay")
def _replay_now(key, fn, data, seed_objs):
    """The compiled replay ``fn`` run at once on the tape's values."""
    seed_vals = [g._value for g in seed_objs]
    vals = _fused.resolve(data.vals) if _graph.made else data.vals
    return [None if g is None else _wrap(g) for g in fn(vals, seed_vals)]


@FUSED.define("replay")
def _replay_deferred(key, fn, data, seed_objs):
    """Fused mode: the replay appended to the pending graph (``_fused_replay``),
    or run at once where it cannot be."""
    g = local.state.graph
    if g is not None and not g.sealed:
        out = _fused_replay(g, key, fn, data, seed_objs)
        if out is not None:
            return out
    return _replay_now(key, fn, data, seed_objs)


def _fused_replay(g, key, fn, data, seed_objs):
    """Fused mode: the replay appended to the pending graph as one call on the
    graph refs of the tape's values (kept as the ops were recorded) and seeds;
    its gradients are pending values, computed with the forward pass (and
    whatever uses them: an optimizer's updates) as one program when first
    needed. None where the call cannot be appended."""
    if data.graph is g and data.refs is not None:
        refs = data.refs
    else:                                  # the ops' values span graphs, or ran at once
        refs = [g.ref(v) for v in data.vals]
    refs = tuple(refs) + tuple([g.ref(o._aval()) for o in seed_objs])
    flat = _recorded_replay(key, fn, len(data.vals))
    kind = getattr(flat, "fused_kind", None)
    if kind is None:
        kind = flat.fused_kind = flat_kind(flat, len(refs), "gradient")
    r = _fused.append(kind, refs, g) if kind.fusable else None
    if r is None:
        kind.fusable = False      # it cannot be traced abstractly: computed at once
        return None
    outs, treedef = r[0], r[1]
    return outs if treedef is None else tree_unflatten(treedef, outs)


def _vmapped(replay, seed_spec, jac):
    mode, tshape = jac
    seed, = seed_spec
    dtype, batch = seed.dtype, mode == "batch"

    def jacobian(vals, seeds):
        rows = jax.vmap(lambda e: replay(vals, [e]))(_one_hots(tshape, dtype, batch))
        return [None if r is None else _arrange(r, tshape, batch) for r in rows]
    return jacobian


def _replay_fn(data, seed_spec, src_spec):
    """The replay of ``data``'s structure as a pure function ``replay(vals, seeds)``.

    Only static structure is closed over (kinds, slots, where each op's values
    start in ``vals``; no values), so one executable serves every later tape of
    the same structure."""
    steps, start = [], 0
    wanted = {s for slots, _ in src_spec for s in slots}
    for op, (_, ins, outs), receivers in zip(data.ops, data.struct,
                                             _receivers(data.struct, wanted)):
        kind, _, vals, _, _, _, _ = op
        steps.append((ins, outs, receivers, (kind, start, len(vals), _connected.of(op))))
        start += len(vals)

    def replay(vals, seeds):
        seeded = []
        for s, shape, dtype, si, cplx in seed_spec:
            g = seeds[si] if si is not None else jnp.ones(shape, dtype)
            seeded.append((s, jnp.conj(g) if cplx else g))

        def pull(op, diff, cts):
            kind, start, n, _ = op
            return _kind_vjp(kind, vals[start:start + n], diff, cts)
        return _backward(steps, seeded, src_spec, _static_deps, pull, _add, jnp.conj)
    return replay


def _static_deps(op):
    _, _, _, deps = op
    return deps


def _add(a, b):
    return a + b


# ---------------------------------------------------------------------------
# Per-op replay (pullbacks called through the primitive wrapper)
# ---------------------------------------------------------------------------

def _per_op(data, seeds, live):
    wanted = {s for _, slots in live for s in slots}
    # A snapshot: pullbacks recorded on this (persistent) tape append to it.
    struct = list(data.struct)
    steps = [(ins, outs, receivers, (op, outs)) for op, (_, ins, outs), receivers
             in zip(list(data.ops), struct, _receivers(struct, wanted))]
    seeded = []
    for s, t, og in seeds:
        v = t._aval()
        g = og if og is not None else _wrap(jnp.ones(v.shape, v.dtype))
        seeded.append((s, call(jnp.conj, (g,)) if is_complex(v.dtype) else g))
    sources = [_new_record(Source, (slots, is_complex(src._aval().dtype))) for src, slots in live]
    return _backward(steps, seeded, sources, _op_deps, _pull_op, _add_recorded,
                     _conj_recorded)


def _op_deps(step):
    op, _ = step
    return _connected.of(op)


def _pull_op(step, diff, cts):
    op, out_slots = step
    kind, objs, _, outs, custom, _, where = op
    for c in cts:
        if isinstance(c, Cotangent):
            # As TF: a gradient flowing into a further op's gradient is dense.
            cts = [_dense(c) for c in cts]
            break
    if custom is not None:
        cts = list(cts)
        for j, s in enumerate(out_slots):
            if s >= 0 and cts[j] is None:    # TF: the other outputs get zeros
                v = outs[j]._value
                cts[j] = _wrap(jnp.zeros(v.shape, v.dtype))
        all_in = custom(cts)
        in_cts = [all_in[i] for i in diff]
    else:
        # A pullback's results are checked below, named by the op they belong to.
        with switched(check_numerics=False):
            in_cts = _run_pullback(kind, objs, diff, cts)
    if local.state.check_numerics:
        check_gradients(op_name(op), [_dense(in_cts[k]) for k in range(len(diff))], where)
    return in_cts


def _add_recorded(a, b):
    if isinstance(a, Cotangent):
        return a.add(b)
    if isinstance(b, Cotangent):
        return b.add(a)
    return call(jnp.add, (a, b))


def _conj_recorded(g):
    return call(jnp.conj, (_dense(g),))


def _run_pullback(kind, objs, diff, cts):
    """One op's pullback, through the primitive wrapper: compiled when the
    (kind, differentiated inputs) comes back."""
    key = (kind.id, diff)
    e = _pullbacks.get(key, lambda: _pullback(kind, diff))
    if e.state is COMPILED and not kind.traceable:
        _pullbacks.forget(key, e, _pullback(kind, diff))
    if e.state is COMPILED:
        try:
            return call(e.fn, (objs, cts), jit=False)
        except Exception:
            # It cannot be traced: run it as is from now on (where a real error
            # shows itself again).
            _pullbacks.forget(key, e, _pullback(kind, diff))
    fn = e.fn if e.fn is not None else _pullback(kind, diff)
    return call(fn, (objs, cts), jit=False)


def _pullback(kind, diff):
    def pullback(vals, cts):
        return _kind_vjp(kind, vals, diff, cts)
    pullback.__name__ = f"{kind.name}_pullback"
    pullback.by_dependence = True
    return pullback
