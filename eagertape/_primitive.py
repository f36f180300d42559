"""The one choke point: every recorded call goes through `call`.

`call` unwraps Tensors (reading Variables), runs the JAX function, wraps the
result, and appends one op record to each recording tape that tracks a floating
input. No gradient rules live here: replay asks `jax.vjp` for every pullback.

A call's static part (function, argument structure, non-array arguments) is its
`_Kind`, made once and looked up by a dictionary key; the kind runs the call as
one `jax.jit` executable (a single C++ dispatch instead of jax.numpy's Python
preamble) and names the op in the tapes' structure keys.
"""
import functools
import itertools
import types

import jax
import numpy as np
from jax.tree_util import tree_flatten, tree_unflatten

from . import _cache, _fused, _graph
from ._cache import Table
from ._connected import NO_GRADIENT
from .debug import call_site, check_outputs
from ._graph import _ArrayImpl
from ._jax_private import EvalTrace as _EvalTrace, trace_ctx as _trace_ctx
from ._errors import InvalidArgumentError
from ._logging import logger
from ._state import EAGER, FUSED, _x64_flag, local, x64
from ._record import record
from ._tensor import (Tensor, _TensorLike, _to_array, _wrap, is_tensor_like, standin,
                      tf_variable_error)

# Leaves passed as values (traced by jit and by the replay) rather than fixed in
# the kind: arrays and Python floats (a learning rate changes, the program not).
_DYNAMIC = (float, complex, np.ndarray, np.generic, jax.Array)
_D = object()        # key marker of a dynamic leaf
_EMPTY = {}
_kind_ids = itertools.count(1)
_new_kind = object.__new__


class _Kind:
    """The static part of a call; ``apply(*dynamic_values)`` runs it."""

    __slots__ = ("id", "fn", "treedef", "template", "dyn", "jitted", "traceable", "name",
                 "fusable", "deps", "by_dependence", "__weakref__")

    def __init__(self, fn, treedef, leaves, dyn, jit, name=None):
        self.id = next(_kind_ids)
        self.fn, self.treedef, self.dyn = fn, treedef, dyn
        d = set(dyn)
        # Values are dropped: a kind outlives the tapes (and the replays) it serves.
        self.template = [None if i in d else leaf for i, leaf in enumerate(leaves)]
        if jit and not _cache.sharing:
            _cache.share_programs()
        self.jitted = jax.jit(self.apply) if jit else None
        self.traceable = True     # False once tracing it failed where running it worked
        # Fused mode may defer it: jitted kinds, and functions jitted already.
        self.fusable = jit or hasattr(fn, "lower")
        self.name = name or getattr(fn, "__name__", type(fn).__name__)
        self.deps = None          # which inputs its outputs depend on (_connected), when asked
        # A gradient recorded as one op (a replay, a pullback): TF records its
        # backward ops one by one, each where an input is watched, so an output
        # that depends on no watched input is not watched (``_record``).
        self.by_dependence = getattr(fn, "by_dependence", False)

    def alias(self, fn):
        """This kind for ``fn``, a function that computes what ``self.fn`` does
        (``computation_key``): the same id and compiled call, ``fn`` kept alive
        (it is the id-keyed table's key) and called where the call runs as it is."""
        a = _new_kind(_Kind)
        for attr in _Kind.__slots__[:-1]:
            setattr(a, attr, getattr(self, attr))
        a.fn = fn
        return a

    def apply(self, *vals, fn=None):
        leaves = list(self.template)
        for p, v in zip(self.dyn, vals):
            leaves[p] = v
        a, k = tree_unflatten(self.treedef, leaves)
        return (fn or self.fn)(*a, **k)

    def at(self, vals, positions):
        """The call as a function of the values at ``positions`` (the others fixed
        to ``vals``): what ``jax.vjp`` and ``jax.jvp`` differentiate. A function
        with host effects (a tf.function that prints) is differentiated without
        them: its forward ran them already, once, as TF's."""
        quiet = getattr(self.fn, "without_host_effects", None)

        def f(*dv):
            vs = list(vals)
            for i, v in zip(positions, dv):
                vs[i] = v
            return self.apply(*vs, fn=quiet)
        return f


# Keys hold id(fn): an entry leaves with the kind that keeps fn alive.
class _Kinds(Table):
    """The call kinds by key, with a second index: the same keys with id(fn)
    replaced by what determines fn's computation (``computation_key``), so that a
    new function object computing what an earlier one computes (a lambda made
    again at each call, a closure over equal constants, a bound method got again)
    gets that function's kind, under its own id(fn): its compiled call, its
    pullbacks, and the structure ids of the tapes it is on. One cache: emptying it
    empties both."""

    __slots__ = ("by_computation",)

    def __init__(self, name, maxsize):
        super().__init__(name, maxsize)
        self.by_computation = Table(name + " by computation", maxsize, register=False)

    def clear(self):
        super().clear()
        self.by_computation.clear()

    def counters(self):
        return {"size": len(self), "by computation": len(self.by_computation)}


_kinds = _Kinds("call kinds", 8192)
_kinds_get = _kinds.get
_by_computation = _kinds.by_computation
# Kinds JAX could not trace (name -> why), which run at once, uncompiled, and
# make any tape holding them replay op by op: listed so that such an op shows
# itself (``introspect.cache_info()["untraceable kinds"]``, and a debug log line).
untraceable = Table("untraceable kinds", 1024)


def _untraceable(kind, why, at_once_only=False):
    """Run ``kind`` at once from now on: JAX could not trace it (``at_once_only``:
    only abstractly, so fused mode cannot defer it; its executable still runs)."""
    kind.fusable = False
    if not at_once_only:
        kind.jitted = None
        kind.traceable = False
    if kind.name not in untraceable:
        logger.debug("`%s` cannot be traced by JAX (%s): it runs at once%s", kind.name, why,
                     "" if at_once_only else ", uncompiled, and tapes holding it replay op by op")
    untraceable.put(kind.name, why)


def _kind_for(key, fn, treedef, leaves, dyn, jit, name=None):
    """The cached kind of a call; ``treedef`` None: flat arguments, read off the key."""
    try:
        kind = _kinds.get(key)
        cache = True
    except TypeError:        # an unhashable static argument: a one-off kind
        kind, cache, jit = None, False, False
    if kind is not None:
        return kind
    ckey = None
    if cache:
        fkey = computation_key(fn)
        if fkey is not None:
            # The call's key with fn's computation in place of id(fn); ``jit`` and
            # ``name`` too, which the kind carries (a function called once
            # compiled, once as it is, makes two kinds).
            head = key[0]
            ckey = ((fkey, head[1]) if type(head) is tuple else fkey, jit, name) + key[1:]
            try:
                same = _by_computation.get(ckey)
            except TypeError:    # a key part that cannot be hashed after all
                same = ckey = None
            if same is not None:
                kind = same.alias(fn)
                _kinds.put(key, kind)
                return kind
    if treedef is None:      # built only for a new kind, not on every call
        treedef = _flat_treedef(key[1], key[2])
    kind = _Kind(fn, treedef, leaves, tuple(dyn), jit, name)
    if cache:
        _kinds.put(key, kind)
        if ckey is not None:
            _by_computation.put(ckey, kind)
    return kind


# -- what determines a function's computation ---------------------------------
# Two plain functions with one code object (a lambda or a nested def made again),
# the same globals, equal defaults, equal captured values and equal attributes
# compute the same thing on the same arguments: they share one kind. "Equal" is
# by value for immutable scalars (int, float, str, bytes, bool, None, a NumPy
# dtype; tuples and frozensets of them) and functions (by this rule, a few levels
# deep), and by identity for everything else (a list, an array, a Keras layer, a
# module): two closures over different layers never share, two over the same one
# do (they read the same object when they run). A captured value is read when the
# kind is made, as ``jax.jit`` reads it when it traces.

class _Same:
    """A key part equal only to itself's object (``is``), keeping it alive."""

    __slots__ = ("obj", "_hash")

    def __init__(self, obj):
        self.obj, self._hash = obj, id(obj)

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return type(other) is _Same and other.obj is self.obj


_BY_VALUE = frozenset({int, bool, str, bytes, type(None), type(Ellipsis), np.dtype})
_DEPTH = 4          # functions nested deeper than this are keyed by identity
_EMPTY_CELL = object()


def computation_key(fn):
    """A hashable key equal for functions that compute the same thing on the same
    arguments (see above), or None where ``fn`` is keyed by identity alone (not a
    Python function, functools.partial or bound method of one).

    >>> from eagertape._primitive import computation_key
    >>> def scaled(s):
    ...     return lambda v: v * s
    >>> computation_key(scaled(2.0)) == computation_key(scaled(2.0))
    True
    >>> computation_key(scaled(2.0)) == computation_key(scaled(3.0))
    False
    >>> computation_key(scaled(2.0)) == computation_key(scaled(2))    # 2 is another constant
    False
    """
    try:
        return _function_key(fn, _DEPTH)
    except Exception:        # an attribute or captured value that will not be keyed
        return None


def _function_key(fn, depth):
    tp = type(fn)
    if tp is types.FunctionType:
        if depth <= 0:
            return None
        cells = fn.__closure__
        attrs = fn.__dict__
        return (fn.__code__, fn.__name__, _Same(fn.__globals__),
                _value_key(fn.__defaults__, depth),
                _value_key(tuple(sorted(fn.__kwdefaults__.items())), depth)
                if fn.__kwdefaults__ else None,
                tuple([_value_key(_cell(c), depth) for c in cells]) if cells else None,
                tuple([(k, _value_key(v, depth)) for k, v in sorted(attrs.items())])
                if attrs else None)
    if tp is functools.partial:
        inner = _function_key(fn.func, depth - 1)
        if inner is None:
            inner = _Same(fn.func)
        return (functools.partial, inner, _value_key(fn.args, depth),
                _value_key(tuple(sorted(fn.keywords.items())), depth))
    if tp is types.MethodType:
        inner = _function_key(fn.__func__, depth - 1)
        if inner is None:
            return None
        return (types.MethodType, _Same(fn.__self__), inner)
    return None


def _cell(c):
    try:
        return c.cell_contents
    except ValueError:       # a cell not filled yet
        return _EMPTY_CELL


def _value_key(v, depth):
    tp = type(v)
    if tp in _BY_VALUE:
        return (tp, v)
    if tp is float or tp is complex:
        return (tp, repr(v))        # 0.0 and -0.0 are equal values, not equal constants
    if tp is tuple or tp is frozenset:
        return (tp, tuple([_value_key(e, depth) for e in v]))
    if tp is types.FunctionType or tp is functools.partial or tp is types.MethodType:
        k = _function_key(v, depth - 1)
        if k is not None:
            return k
    elif isinstance(v, np.generic) and not isinstance(v, np.object_):
        return (tp, v.tobytes())
    return _Same(v)


def flat_kind(fn, n, name=None):
    """A kind calling ``fn`` (jitted already) with ``n`` positional values; the
    caller keeps it (its key in the kinds' table would be as long as ``n``)."""
    return _Kind(fn, _flat_treedef(n, ()), [None] * n, tuple(range(n)), False, name)


# Static leaves the fast path keys on directly (no tree_flatten, no treedef hash).
_SIMPLE_STATIC = frozenset({int, bool, str, type(None), np.dtype, type})
_treedefs = Table("flat treedefs", 1024)


def _flat_treedef(n, kwnames):
    td = _treedefs.get((n, kwnames))
    if td is None:
        td = _treedefs.put((n, kwnames), tree_flatten(((0,) * n, dict.fromkeys(kwnames, 0)))[1])
    return td


_scalars = Table("device scalars", 4096)   # (type, value) -> device scalar
_floats = Table("device floats", 4096)     # float -> device scalar (the fast path's lookup)
_floats_get = _floats.get

# Elementwise arithmetic, where a Python int is an operand (``y * t`` in a loop
# over t), not a parameter such as an axis: a value, so each int compiles nothing.
_ARITHMETIC = frozenset(id(f) for f in (
    jax.numpy.add, jax.numpy.subtract, jax.numpy.multiply, jax.numpy.true_divide,
    jax.numpy.divide, jax.numpy.floor_divide, jax.numpy.mod, jax.numpy.remainder,
    jax.numpy.maximum, jax.numpy.minimum))


def _device_scalar(x):
    # A Python float as a weakly typed device scalar, cached by value: jit then
    # takes it like any array (converting a Python float costs ~4 us a call),
    # and promotes it as it would the float.
    tp = type(x)
    if tp is float and x != 0:
        cache, key = _floats, x
    else:
        # 0.0 and -0.0 are equal keys, different values: zeros go by their repr.
        cache, key = _scalars, (tp, repr(x)) if x == 0 else (tp, x)
    a = cache.get(key)
    if a is None:
        # A concrete array even while a function is traced (a constant of the
        # trace), so that a number is the same value whether or not the cache had
        # it: what the trace folds (shape arithmetic) must not depend on that.
        with jax.ensure_compile_time_eval():
            a = _asarray(x)
        cache.put(key, a)
    return a


_asarray = x64(jax.numpy.asarray)


def call(fn, args, kwargs=None, constant_output=False, jit=True, name=None):
    """Run ``fn(*args, **kwargs)`` on unwrapped values and record it on the tapes.

    ``constant_output=True`` marks functions TF registers no gradient for (floor,
    round, ...): recorded, so their outputs can be sources, but passing no
    gradient to their inputs.
    ``jit=False`` runs ``fn`` as is (user functions with Python side effects,
    functions that are jitted already).
    """
    # The user's JAX keeps its 32-bit defaults; eagertape's calls see TF's 64-bit
    # types (_state.x64), switched only where JAX computes (``_run_now``,
    # ``_device_scalar``, the graph's shape inference): a call that finds its
    # kind and appends to a fused graph runs no JAX, and one switch per run
    # costs less than a second frame per call.
    if not kwargs:
        # The common call: positional Tensors, Variables, floats and ints, in
        # one pass that builds its kind's key (``_take``'s rule, inlined) and its
        # values. A Variable read is recorded, so it waits until the kind is
        # found (a new kind goes the long way, which reads it there).
        # The loop below alone would do, at 3-5% more per fused training step.
        # A function called without gradient (constant_output) is another kind:
        # the kind carries that (TF's truncatemod is jnp.fmod without gradient).
        key = [id(fn) if not constant_output else (id(fn), NO_GRADIENT), len(args), ()]
        objs, vals = [], []
        arith = reads = None
        for a in args:
            tp = type(a)
            if tp is Tensor:
                key.append(_D)
                objs.append(a)
                vals.append(a._v)
            elif tp is float:
                key.append(_D)
                objs.append(a)
                if jit:
                    v = _floats_get(a)
                    vals.append(v if v is not None else _device_scalar(a))
                else:
                    vals.append(a)
            elif tp is int:
                if arith is None:
                    arith = jit and id(fn) in _ARITHMETIC
                if arith:
                    key.append(_D)
                    objs.append(a)
                    vals.append(_device_scalar(a))
                else:
                    key.append(int)     # static: fixed in the kind
                    key.append(a)
            elif isinstance(a, _TensorLike):
                key.append(_D)
                objs.append(a)
                vals.append(None)       # read below
                reads = True
            else:
                break
        else:
            kind = _kinds_get(tuple(key))
            if kind is not None:
                if reads:
                    for i, o in enumerate(objs):
                        if vals[i] is None:          # a Variable: one recorded read
                            objs[i] = o = o.read_value()
                            vals[i] = o._v
                if constant_output:
                    kind.deps = NO_GRADIENT     # _run's, inlined on the common call
                return local.state.executor.run(kind, objs, vals, constant_output)
    # Sorted: a dict's leaves come in key order in the treedef that rebuilds the call.
    kwnames = tuple(sorted(kwargs)) if kwargs else ()
    leaves = list(args) + [kwargs[k] for k in kwnames] if kwnames else list(args)
    key = [id(fn) if not constant_output else (id(fn), NO_GRADIENT), len(args), kwnames]
    taken = _take(fn, leaves, key, jit, name, nested=False)
    if taken is None:   # a nest (lists of Tensors, tuples of slices, ...)
        # Variables read so far are passed as those reads, not read again.
        n = len(args)
        return _call_nested(fn, tuple(leaves[:n]), dict(zip(kwnames, leaves[n:])),
                            constant_output, jit, name)
    objs, vals, dyn = taken
    kind = _kind_for(tuple(key), fn, None, leaves, dyn, jit, name)
    return _run(kind, objs, vals, constant_output)


def _call_nested(fn, args, kwargs, constant_output, jit, name):
    # Nested arguments (lists of Tensors, tuples of slices, ...): flatten them,
    # Tensors and Variables as leaves (JAX would see through them: pytree nodes).
    leaves, treedef = tree_flatten((args, kwargs if kwargs is not None else _EMPTY),
                                   is_leaf=is_tensor_like)
    key = [id(fn) if not constant_output else (id(fn), NO_GRADIENT), treedef]
    objs, vals, dyn = _take(fn, leaves, key, jit, name, nested=True)
    kind = _kind_for(tuple(key), fn, treedef, leaves, dyn, jit, name)
    return _run(kind, objs, vals, constant_output)


def _take(fn, leaves, key, jit, name, nested):
    """The argument rule, leaf by leaf (``call``'s first loop inlines it for
    positional Tensors, floats, ints and Variables, and must build the same key).

    A value (Tensor, Variable read, array, Python float or complex, and an int
    operand of elementwise arithmetic) goes to ``objs``/``vals`` and is marked
    ``_D`` in ``key``; anything else is static: its type and itself go into
    ``key``, and it is fixed in the kind. Returns ``(objs, vals, dyn)`` (the
    positions of the values), or None for a leaf that is a nest (not ``nested``:
    the caller flattens the arguments and comes back with ``nested=True``).
    """
    objs, vals, dyn = [], [], []
    arith = jit and id(fn) in _ARITHMETIC
    for i, leaf in enumerate(leaves):
        tp = type(leaf)
        if tp is int and arith:
            objs.append(leaf)
            vals.append(_device_scalar(leaf))
        elif tp in _SIMPLE_STATIC or (tp is tuple and all(type(e) is int for e in leaf)):
            key.append(tp)
            key.append(leaf)
            continue
        elif tp is tuple and all(type(e) is int or isinstance(e, np.integer) for e in leaf):
            # Shapes, strides and axes computed with NumPy (``x.shape[0] // 2``
            # of an array, ``np.prod``) are parameters as Python ints are: a
            # traced shape would fail JAX's tracing and leave the call running
            # uncompiled. Keyed by the element types, so that NumPy's dtypes
            # still reach a function taking the tuple as data.
            key.append((tp,) + tuple(map(type, leaf)))
            key.append(leaf)
            continue
        elif isinstance(leaf, np.integer) and not arith:
            key.append(tp)        # as a Python int: a parameter (axis=np.int64(0))
            key.append(leaf)
            continue
        else:
            value = _dynamic(leaf, tp, objs, vals, jit)
            if value is None:
                if not nested:
                    return None
                if tp is slice:                       # unhashable before Python 3.12
                    key.append(slice)
                    key.append((leaf.start, leaf.stop, leaf.step))
                    continue
                fn_name = name or getattr(fn, "__name__", fn)
                e = tf_variable_error(leaf, f"an argument of `{fn_name}`")
                if e is not None:
                    raise e
                key.append(tp)
                key.append(leaf)
                continue
            leaves[i] = value
        dyn.append(i)
        key.append(_D)
    return objs, vals, dyn


def _dynamic(leaf, tp, objs, vals, jit):
    """Take a value leaf into ``objs``/``vals`` and return it (a Variable as its
    read); None if ``leaf`` is not a value."""
    if tp is Tensor:
        objs.append(leaf)
        vals.append(leaf._v)
    elif tp is float or tp is complex:
        objs.append(leaf)
        vals.append(_device_scalar(leaf) if jit else leaf)
    elif isinstance(leaf, _DYNAMIC):
        objs.append(leaf)
        vals.append(leaf)
    elif isinstance(leaf, _TensorLike):     # a Variable: one recorded read
        leaf = leaf.read_value()
        objs.append(leaf)
        # The read's own value, not computed: a TF 1 graph's read is symbolic.
        vals.append(leaf._v if type(leaf) is Tensor else leaf._value)
    elif hasattr(tp, "_eagertape_variable"):
        leaf = standin(leaf)
        return _dynamic(leaf, type(leaf), objs, vals, jit)
    else:
        return None
    return leaf


def _run(kind, objs, vals, constant_output):
    if constant_output:
        # TF records such an op (its outputs can be sources) but its backward
        # function gives its inputs no gradient.
        kind.deps = NO_GRADIENT
    return local.state.executor.run(kind, objs, vals, constant_output)


@FUSED.define("run")
def _run_deferred(kind, objs, vals, constant_output):
    """Append the call to the pending graph (fused mode), or run it at once where
    it cannot be appended."""
    h = local.state
    # Checking numerics needs every op's values: ops run at once.
    if kind.fusable and not h.check_numerics:
        r = _fused.pending(kind, vals, h)
        if r:
            outs, out_treedef, g, refs = r   # Tensors of pending values
            tapes = h.tapes        # _finish, less the numerics check
            if tapes:
                record(kind, objs, vals, outs, tapes, None, None, g, refs)
            if h.accumulators and not constant_output:
                h.accumulators[0]._on_call(kind, objs, outs)
            return outs[0] if out_treedef is None else tree_unflatten(out_treedef, outs)
        if r is None:
            # Not traceable abstractly: if it runs at once, it does so from now
            # on; if it raises, the error is the call's (bad shapes), not the
            # kind's, which stays deferrable.
            out = _run_now(kind, objs, vals, constant_output)
            _untraceable(kind, "its outputs' shapes need values", at_once_only=True)
            return out
    return _run_now(kind, objs, vals, constant_output)


@EAGER.define("run")
def _run_now(kind, objs, vals, constant_output):
    """Run the call at once (eager mode, or a call fused mode cannot defer)."""
    # ``_state.x64``'s switch, inlined: a decorator's frame on every eager call
    # costs more than the switch.
    switched = not _x64_flag.value
    if switched:
        saved = _x64_flag.swap_local(True)
    try:
        if _graph.made:             # a value made in fused mode, used at once
            vals = _fused.resolve(vals)
        c = local.state.capture
        # (``_jax_private.tracing()``, inlined: every eager call asks)
        if (c is not None or type(_trace_ctx.trace) is not _EvalTrace) \
                and _shape_arithmetic(vals, () if c is None else c.stand_ins):
            # Tracing (a tf.function, Keras's compiled step or symbolic build, any
            # JAX trace): arithmetic on shapes (tf.shape(x)[0] * 2) stays a
            # concrete value, as TF's static shapes, so it can shape tensors
            # (tf.ones((batch_size, 1))) and bound slices (x[:, :h - 1]).
            with jax.ensure_compile_time_eval():
                out = _execute(kind, objs, vals)
        else:
            out = _execute(kind, objs, vals)
        if type(out) is _ArrayImpl or isinstance(out, jax.Array):
            outs, out_treedef = [_wrap(out)], None
        else:
            outs, out_treedef = tree_flatten(out)
            for j, o in enumerate(outs):
                if isinstance(o, jax.Array):
                    outs[j] = _wrap(o)
        return _finish(kind, objs, vals, outs, out_treedef, constant_output)
    finally:
        if switched:
            _x64_flag.set_local(saved)


# The most items of a concrete integer array whose arithmetic a trace computes at
# once: sizes and shapes, and index tensors captured by the traced function (a
# graph's edges, whose reduce_max + 1 and bincount are a segment count and repeat
# counts: TF computes them when its graph runs; JAX needs them when tracing).
_CONCRETE_INTS = 1 << 16


def _shape_arithmetic(vals, stand_ins):
    """Whether every value is a concrete integer array (up to ``_CONCRETE_INTS``
    items) or int (shape-like, or indices the traced function captured).
    A Variable's stand-in is concrete too, but it is an input of the traced call
    (``step % 2`` must follow the Variable at each call, not its value at the
    trace): ``stand_ins`` holds their ids."""
    seen = False
    for v in vals:
        if type(v) is int:
            continue
        if isinstance(v, jax.core.Tracer) or not hasattr(v, "dtype") or v.size > _CONCRETE_INTS \
                or not jax.numpy.issubdtype(v.dtype, jax.numpy.integer) or id(v) in stand_ins:
            return False
        seen = True
    return seen


# Set through extend.failed_call_retry (by tf/_staged_map): while a dataset function
# is traced with sizes only its data knows, a call JAX cannot trace with those
# symbolic sizes (sizes TF leaves unknown but JAX cannot prove equal, a comparison of
# sizes) gets a second way there (its result, or None); else it does nothing.
staged_retry = None


def _execute(kind, objs, vals):
    jitted = kind.jitted
    if jitted is not None:
        try:
            out = jitted(*vals)
        except Exception as e:
            retried = staged_retry(kind, vals) if staged_retry is not None else None
            if retried is not None:
                return retried
            # Tracing can fail where running on values works (a boolean mask, a
            # Python float the function needs concrete): run it as is; an error
            # that persists is the caller's and propagates from here.
            out = _apply(kind, objs, vals)
            _untraceable(kind, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    else:
        out = _apply(kind, objs, vals)
    return out


def _finish(kind, objs, vals, outs, out_treedef, constant_output):
    h = local.state
    if h.check_numerics:
        check_outputs(kind.name, outs, call_site())
    tapes = h.tapes
    if tapes:
        record(kind, objs, vals, outs, tapes)
    if h.accumulators and not constant_output:   # no gradient: no JVP (None, as TF)
        h.accumulators[0]._on_call(kind, objs, outs)
    return outs[0] if out_treedef is None else tree_unflatten(out_treedef, outs)




def _apply(kind, objs, vals):
    try:
        return kind.apply(*_as_passed(objs, vals))
    except (TypeError, ValueError) as e:
        if type(e) not in (TypeError, ValueError) or getattr(kind.fn, "own_errors", False):
            # JAX's own subclasses (a tracer made concrete, ...), and the errors of
            # a library that says what is wrong itself (Keras), as they are.
            raise
        shapes = ", ".join(f"{tuple(v.shape)} {v.dtype}" for v in vals if hasattr(v, "shape"))
        shapes = f" ({shapes})" if shapes else ""
        raise InvalidArgumentError(f"{kind.name} cannot take its arguments{shapes}: {e}") \
            from e


def _as_passed(objs, vals):
    # Python scalars back in place of their device copies (which only jit wants).
    return [o if type(o) in (float, complex, int) else v for o, v in zip(objs, vals)]


def primitive(fn, *, constant_output=False, name=None, jit=False):
    """Wrap a JAX function so that calls on Tensors are recorded.

    ``jit=True`` runs each call as one compiled executable (faster for a
    function of several jax.numpy calls; Python side effects then run only
    when it is traced).

    >>> import jax
    >>> import eagertape as et
    >>> softplus = et.primitive(jax.nn.softplus)
    >>> softplus(et.constant(0.0))
    <tf.Tensor: shape=(), dtype=float32, numpy=0.6931471824645996>
    """
    if not callable(fn):
        raise TypeError(f"argument `fn` of eagertape.primitive must be a callable JAX function, "
                        f"got {type(fn).__name__}")
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        return call(fn, args, kwargs, constant_output, jit, name)   # positional: cheaper
    wrapped.__wrapped__ = fn
    if name:
        wrapped.__name__ = name
    return wrapped


def stop_gradient(input, name=None):
    """A Tensor with ``input``'s value that no tape connects to anything.

    >>> import eagertape as et
    >>> v = et.Variable(3.0)
    >>> with et.GradientTape() as tape:
    ...     y = et.stop_gradient(v) * v
    >>> float(tape.gradient(y, v))          # only the second factor: 3.0, not 6.0
    3.0
    """
    leaves, treedef = tree_flatten(input, is_leaf=is_tensor_like)
    out = []
    for leaf in leaves:
        if isinstance(leaf, _TensorLike):
            leaf = leaf._value
        elif not isinstance(leaf, jax.Array):
            leaf = _to_array(leaf, None, "input")
        # lax.stop_gradient too, so code traced by JAX (eagertape.function) also stops.
        out.append(_wrap(jax.lax.stop_gradient(leaf)))
    return tree_unflatten(treedef, out)
