"""Replay: gradients by composing the recorded ops' ``jax.vjp`` pullbacks.

Compiled (the default): one pure function of the values the active ops read,
``replay(args, seeds) -> grads``, runs under ``jax.jit`` and is cached by the
tape's structure (op signatures, static arguments, input shapes and dtypes,
wiring). It is called through the primitive wrapper, so a gradient taken while
an outer tape records is one composite op there, and JAX differentiates it for
higher orders.

Eager (fallback): a Python walk calling one cached, compiled pullback per op
through the primitive wrapper. It serves tapes holding `custom_gradient` ops
(whose Python grad_fn must run on Tensors) or ops JAX cannot trace.
"""
import collections
import threading

import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import tree_unflatten

from ._primitive import call, is_inexact
from ._state import state
from ._tensor import Tensor, _wrap
from ._variables import Variable

# Tracing a recorded op under jit can fail where running it on values works:
# value-dependent shapes (boolean masks) or a Python float the op needs static
# (norm's `ord`). Such a replay runs again on concrete values; an error that
# persists there is the user's and propagates.
_TRACE_ERRORS = Exception
_UNTRACEABLE = object()   # cache value: this structure falls back to the eager replay


class _Cache:
    """A bounded LRU of compiled functions with hit/miss counters."""

    def __init__(self, maxsize):
        self.maxsize = maxsize
        self.hits = self.misses = 0
        self._d = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, build):
        with self._lock:
            fn = self._d.get(key)
            if fn is not None:
                self.hits += 1
                self._d.move_to_end(key)
                return fn
            self.misses += 1
        fn = build()
        with self._lock:
            self._d[key] = fn
            while len(self._d) > self.maxsize:
                self._d.popitem(last=False)
        return fn

    def contains(self, key):
        return key in self._d

    def put(self, key, value):
        with self._lock:
            self._d[key] = value

    def clear(self):
        with self._lock:
            self._d.clear()
            self.hits = self.misses = 0

    def __len__(self):
        return len(self._d)


_replays = _Cache(512)     # whole-tape replays
_seen = collections.OrderedDict()   # structures of long tapes met once (not compiled yet)

# XLA's compile time grows faster than linearly with the op count (about 6 s for
# 1000 small ops on 2 cores), so a long tape is compiled only when its structure
# comes back (a training loop), and a very long one never: those replay op by op
# with per-op pullbacks that are compiled once per op signature.
COMPILE_FIRST_SIGHT_MAX_OPS = 200
COMPILE_MAX_OPS = 2500
_pullbacks = _Cache(4096)  # per-op pullbacks of the eager replay

CacheInfo = collections.namedtuple("CacheInfo", "hits misses size maxsize")


def replay_cache_info():
    """Counters of the compiled-replay cache: ``CacheInfo(hits, misses, size, maxsize)``.

    A training loop of fixed structure misses once, then hits every step.

    >>> et.replay_cache_info()
    CacheInfo(hits=99, misses=1, size=1, maxsize=512)
    """
    return CacheInfo(_replays.hits, _replays.misses, len(_replays), _replays.maxsize)


def clear_replay_cache():
    """Drop every compiled replay and pullback and reset the counters."""
    _replays.clear()
    _pullbacks.clear()
    _seen.clear()


def set_replay_cache_size(maxsize):
    """Bound the number of compiled replays kept (least recently used go first)."""
    if not isinstance(maxsize, int) or maxsize < 1:
        raise ValueError(f"argument `maxsize` must be a positive int, got {maxsize!r}")
    _replays.maxsize = maxsize


# ---------------------------------------------------------------------------
# Structure shared by both replays
# ---------------------------------------------------------------------------

def _active_ops(nodes, targets, seeded):
    """Ops reachable backwards from the targets that receive a cotangent, in order."""
    ops = {}
    stack = [id(t) for t in targets if type(t) is Tensor]
    while stack:   # iterative: a 100,000-op tape must not recurse
        p = nodes.get(stack.pop())
        if type(p) is tuple:
            op = p[0]
            if op.seq not in ops:
                ops[op.seq] = op
                leaves = op.leaves
                for i in op.inputs:
                    k = id(leaves[i])
                    if k in nodes:
                        stack.append(k)
    has = set(seeded)
    active = []
    for seq in sorted(ops, reverse=True):
        op = ops[seq]
        outs = op.outputs
        if any(id(outs[j]) in has for j in op.out_inexact):
            active.append(op)
            leaves = op.leaves
            for i in op.inputs:
                k = id(leaves[i])
                if k in nodes:
                    has.add(k)
    active.reverse()
    return active, has


def _source_keys(data, src):
    """The cotangent keys that add up to a source's gradient."""
    if isinstance(src, Variable):
        return [id(src)] + [id(r) for r in data.var_reads.get(id(src), ())]
    return [id(src)]


def _is_complex(dtype):
    return np.issubdtype(dtype, np.complexfloating)


def gradient(data, targets, sources, output_gradients, zero):
    nodes = data.nodes
    source_ids = {id(s) for s in sources}
    seeds = []   # (key, target, output gradient or None)
    for i, t in enumerate(targets):
        k = id(t)
        if k in source_ids or (type(t) is Tensor and k in nodes and is_inexact(t._value.dtype)):
            seeds.append((k, t, output_gradients[i] if output_gradients else None))
    active, has = _active_ops(nodes, targets, [s[0] for s in seeds])

    unique = {}   # source id -> (source, keys with a cotangent)
    for s in sources:
        if id(s) not in unique:
            unique[id(s)] = (s, [k for k in _source_keys(data, s) if k in has])
    wanted = [(s, keys) for s, keys in unique.values() if keys]

    grads = {}
    if wanted:
        eager = (state.replay == "eager" or len(active) > COMPILE_MAX_OPS
                 or any(op.sig is None for op in active))
        if not eager:
            out = _compiled(nodes, active, seeds, wanted)
            eager = out is None
        if eager:
            out = _eager(nodes, active, seeds, wanted)
        for (s, _), g in zip(wanted, out):
            grads[id(s)] = g
    results = []
    for s in sources:
        g = grads.get(id(s))
        if g is None and zero and id(s) not in grads:
            v = s._peek()
            g = grads[id(s)] = _wrap(jnp.zeros(v.shape, v.dtype))
        results.append(g)
    return results


# ---------------------------------------------------------------------------
# Compiled replay
# ---------------------------------------------------------------------------

def _compiled(nodes, active, seeds, wanted):
    slots = {}

    def slot(k):
        s = slots.get(k)
        if s is None:
            s = slots[k] = len(slots)
        return s

    args, arg_of, specs, key = [], {}, [], []
    for op in active:
        leaves = op.leaves
        dyn = op.dynamic_positions()
        arg_idx = []
        for p in dyn:
            leaf = leaves[p]
            if type(leaf) is Tensor:
                j = arg_of.get(id(leaf))
                if j is None:
                    j = arg_of[id(leaf)] = len(args)
                    args.append(leaf)
            else:
                j = len(args)
                args.append(leaf)
            arg_idx.append(j)
        diff = tuple(p for p in op.inputs if id(leaves[p]) in nodes)
        diff_slots = tuple(slot(id(leaves[p])) for p in diff)
        out_slots = tuple(slot(id(op.outputs[j])) if j in op.out_inexact else None
                          for j in range(len(op.outputs)))
        specs.append((op, dyn, tuple(arg_idx), diff, diff_slots, out_slots))
        key.append((op.sig, tuple(arg_idx), diff, diff_slots, out_slots))
    seed_spec, seed_args = [], []
    for k, t, og in seeds:
        v = t._peek()
        si = None
        if og is not None:
            si = len(seed_args)
            seed_args.append(og)
        seed_spec.append((slot(k), tuple(v.shape), v.dtype, si, _is_complex(v.dtype)))
    src_spec = tuple((tuple(slot(k) for k in keys), _is_complex(s._peek().dtype))
                     for s, keys in wanted)
    key = (tuple(key), tuple(seed_spec), src_spec)

    if len(active) > COMPILE_FIRST_SIGHT_MAX_OPS and not _replays.contains(key):
        if key not in _seen:
            _seen[key] = None
            while len(_seen) > _replays.maxsize:
                _seen.popitem(last=False)
            return None
        del _seen[key]
    fn = _replays.get(key, lambda: jax.jit(_build(specs, seed_spec, src_spec)))
    if fn is _UNTRACEABLE:
        return None
    try:
        return call(fn, (args, seed_args))
    except _TRACE_ERRORS:
        _replays.put(key, _UNTRACEABLE)
        return None


def _zeros_ct(shape, dtype, inexact):
    return jnp.zeros(shape, dtype) if inexact else np.zeros(shape, jax.dtypes.float0)


def _op_vjp(op, dyn, diff, dyn_vals, out_cts):
    """Cotangents of an op's `diff` inputs: ``jax.vjp`` of the op at its recorded values."""
    leaves = list(op.leaves)
    for p, v in zip(dyn, dyn_vals):
        leaves[p] = v
    fn, treedef = op.fn, op.treedef

    def f(*dvals):
        ls = list(leaves)
        for p, v in zip(diff, dvals):
            ls[p] = v
        a, k = tree_unflatten(treedef, ls)
        return fn(*a, **k)

    _, pullback = jax.vjp(f, *[leaves[p] for p in diff])
    full = []
    for j, o in enumerate(op.outputs):
        c = out_cts[j]
        if c is None:
            v = o._value
            c = _zeros_ct(v.shape, v.dtype, j in op.out_inexact)
        full.append(c)
    return pullback(tree_unflatten(op.out_treedef, full))


def _build(specs, seed_spec, src_spec):
    # Only static structure is closed over (templates, not the tape's values);
    # values arrive as arguments, so one executable serves every later tape of
    # the same structure.
    specs = [(_Template(op), *rest) for op, *rest in specs]

    def replay(args, seeds):
        ct = {}

        def acc(s, g):
            ct[s] = ct[s] + g if s in ct else g

        for s, shape, dtype, si, cplx in seed_spec:
            g = seeds[si] if si is not None else jnp.ones(shape, dtype)
            acc(s, jnp.conj(g) if cplx else g)
        for op, dyn, arg_idx, diff, diff_slots, out_slots in reversed(specs):
            cts = [ct.get(s) if s is not None else None for s in out_slots]
            if all(c is None for c in cts):
                continue
            in_cts = _op_vjp(op, dyn, diff, [args[j] for j in arg_idx], cts)
            for s, c in zip(diff_slots, in_cts):
                acc(s, c)
        out = []
        for keys, cplx in src_spec:
            g = ct[keys[0]]
            for s in keys[1:]:
                g = g + ct[s]
            out.append(jnp.conj(g) if cplx else g)
        return out
    return replay


class _Template:
    """An op's static structure with its values dropped (the compiled replay outlives the tape)."""

    __slots__ = ("fn", "treedef", "leaves", "outputs", "out_treedef", "out_inexact")

    def __init__(self, op):
        self.fn, self.treedef, self.out_treedef = op.fn, op.treedef, op.out_treedef
        self.out_inexact = op.out_inexact
        dyn = set(op.dynamic_positions())
        self.leaves = [None if i in dyn else leaf for i, leaf in enumerate(op.leaves)]
        self.outputs = [_Aval(o) for o in op.outputs]


class _Aval:
    __slots__ = ("_value",)

    def __init__(self, t):
        v = t._value if type(t) is Tensor else t
        dtype = v.dtype if hasattr(v, "dtype") else np.result_type(v)
        self._value = jax.ShapeDtypeStruct(np.shape(v), dtype)


# ---------------------------------------------------------------------------
# Eager replay (per-op pullbacks through the primitive wrapper)
# ---------------------------------------------------------------------------

def _pullback_fn(op, dyn, diff, compiled=True):
    def make():
        template = _Template(op)

        def pb(dyn_vals, out_cts):
            return _op_vjp(template, dyn, diff, dyn_vals, out_cts)
        return pb
    if op.sig is None or not compiled:
        return make()
    return _pullbacks.get((op.sig, diff), lambda: jax.jit(make()))


def _eager(nodes, active, seeds, wanted):
    ct = {}

    def acc(k, g):
        ct[k] = call(jnp.add, (ct[k], g)) if k in ct else g

    for k, t, og in seeds:
        v = t._peek()
        g = og if og is not None else _wrap(jnp.ones(v.shape, v.dtype))
        acc(k, call(jnp.conj, (g,)) if _is_complex(v.dtype) else g)
    for op in reversed(active):
        leaves = op.leaves
        cts = [ct.get(id(o)) if j in op.out_inexact else None for j, o in enumerate(op.outputs)]
        if all(c is None for c in cts):
            continue
        for j in op.out_inexact:
            if cts[j] is None:
                v = op.outputs[j]._value
                cts[j] = _wrap(jnp.zeros(v.shape, v.dtype))
        diff = tuple(p for p in op.inputs if id(leaves[p]) in nodes)
        if op.custom is not None:
            all_in = op.custom(cts)
            in_cts = [all_in[op.inputs.index(p)] for p in diff]
        else:
            dyn = op.dynamic_positions()
            dyn_vals = [leaves[p] for p in dyn]
            fn = _pullback_fn(op, dyn, diff)
            try:
                in_cts = call(fn, (dyn_vals, cts))
            except _TRACE_ERRORS:
                fn = _pullback_fn(op, dyn, diff, compiled=False)
                _pullbacks.put((op.sig, diff), fn)
                in_cts = call(fn, (dyn_vals, cts))
        for p, c in zip(diff, in_cts):
            if c is not None:
                acc(id(leaves[p]), c)
    out = []
    for s, keys in wanted:
        g = None
        for k in keys:
            if k in ct:
                g = ct[k] if g is None else call(jnp.add, (g, ct[k]))
        out.append(call(jnp.conj, (g,)) if _is_complex(s._peek().dtype) else g)
    return out
