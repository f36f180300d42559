"""eagertape.function: ``tf.function`` on ``jax.jit``.

The Python function runs once per input signature, traced to a jaxpr with no
tape recording (tapes entered inside it record as usual). Variables it reads
become inputs of the compiled call, and the Variables it assigns become
outputs that are written back after the call, so the executable always sees
their current values. Called under a tape the whole function is one recorded
op, whose pullback is the ``jax.vjp`` of the compiled call.
"""
from __future__ import annotations

import collections
import functools
import inspect
import operator
import weakref
from collections.abc import Callable
from typing import Any, overload

import jax
import jax.extend.core
import jax.numpy as jnp
import numpy as np
from jax.tree_util import tree_flatten, tree_unflatten

from . import _cache, _host_errors, _jax_private
from ._primitive import call
from ._config import config
from ._dtypes import DType
from ._errors import InvalidArgumentError
from ._state import EAGER, local, switched, x64
from ._tensor import Tensor, _TensorLike, _wrap, is_tensor_like
from ._variables import _STORED

_ARRAYS = (jax.Array, np.ndarray, np.generic)
# tf.config.run_functions_eagerly: every function runs as plain Python (debugging).


class _Capture:
    """The Variables one trace touches, and those it makes."""

    def __init__(self, creating=None):
        self.reads = {}     # id(v) -> (v, the stand-in array of its value at the trace)
        self.stand_ins = set()   # ids of those arrays (kept alive by reads)
        self.current = {}   # id(v) -> value seen by the traced code now
        self.written = {}   # id(v) -> v, in order of first write
        # Whether Variables may be made: True on a Function's first trace, False on
        # later ones (TF's rule), None on a scratch run (Keras's symbolic build),
        # which keeps Variables made from values and refuses traced ones.
        self.creating = creating
        self.created = []   # (v, its traced initial value or None) made on this trace
        self.pulls = []     # _Pull: each next() of an iterator this trace made
        self.pull_stand_ins = {}   # id(array) -> _PullLeaf, the element's stand-ins

    def read(self, v):
        k = id(v)
        val = self.current.get(k)
        if val is None:
            # A fresh array per Variable: two Variables may hold one array, yet
            # each must become its own input of the call.
            with jax.ensure_compile_time_eval():
                val = jnp.array(v._val, copy=True)
            self.reads[k] = (v, val)
            self.stand_ins.add(id(val))
            self.current[k] = val
        return val

    def write(self, v, new):
        if isinstance(new, _TensorLike):
            new = new._value
        self.current[id(v)] = new
        self.written.setdefault(id(v), v)

    def nested(self):
        """Whether code runs in a JAX trace inside this function's own (a compiled
        loop's or branch's body, traced once for every iteration)."""
        top = getattr(self, "jax_trace", None)
        return top is not None and _jax_private.trace_ctx.trace is not top

    def snapshot(self):
        """What this trace knows of its Variables now, for ``restore``."""
        return dict(self.reads), dict(self.current), dict(self.written)

    def restore(self, snapshot):
        """Forget what was read and written since ``snapshot()`` (a probe traced
        and thrown away)."""
        self.reads, self.current, self.written = (dict(d) for d in snapshot)
        self.stand_ins = {id(val) for _, val in self.reads.values()}

    def may_create(self):
        """Raise TF's error where no Variable may be made: on a later trace."""
        if self.creating is False:
            raise ValueError(_SINGLETON)

    def admit(self, v):
        """Variable ``v``, made on this trace from a value computed at once (not a
        traced one), is kept: it belongs to the function, as TF lifts it."""
        self.may_create()
        if self.creating:
            self.created.append((v, None))

    def create(self, v, value):
        """The value a Variable made while tracing holds until the call."""
        self.may_create()
        traced = isinstance(value, jax.core.Tracer)
        if traced and self.creating is None:
            raise ValueError("argument `initial_value` is a value traced while Keras builds "
                             "the model symbolically; make the Variable in `build`, or pass "
                             "a callable initial_value")
        if not traced:
            self.admit(v)
            return value
        if self.creating:
            self.created.append((v, value))
        # Read as traced in this trace; its value is computed from the trace
        # before the function is traced again (TF lifts the initializer).
        self.current[id(v)] = value
        with jax.ensure_compile_time_eval():
            return jnp.zeros(value.shape, value.dtype)


class _Threaded(_Capture):
    """The capture of a JAX-traced function another library compiles (Keras's fit,
    evaluate and predict steps, see ``variables_threaded``): the Variables
    ``known`` read their traced ``values``; one not known yet is read at its
    value now (a constant of this trace) and noted in ``found``."""

    def __init__(self, known, values):
        super().__init__(creating=None)
        self.found = []
        for v, val in zip(known, values):
            self.reads[id(v)] = (v, val)
            self.current[id(v)] = val

    # A Variable whose storage is the library's own (a Keras weight, read inside
    # Keras's stateless scope as the scope's traced value) is the library's to
    # thread: it is read as it is, and a write outside that scope stays in the
    # trace (Keras's trainer assigns its weights only inside it).
    def read(self, v):
        k = id(v)
        if k not in self.current:
            if type(v)._val is not _STORED:
                return v._val
            self.found.append(v)
        return super().read(v)

    def write(self, v, new):
        if isinstance(new, _TensorLike):
            new = new._value
        if id(v) not in self.current and type(v)._val is _STORED:
            self.found.append(v)
        # An assignment inside the step's gradient (Keras's value_and_grad in its
        # jitted step) writes a value of that inner trace: the step returns the
        # value itself (TF assigns no gradient).
        super().write(v, _jax_private.primal_of(new))


def variables_threaded(fun, jit=jax.jit):
    """``jit(fun)`` taking the Variables ``fun`` reads and writes as inputs and
    outputs, as ``eagertape.function`` does its own: each call reads their values
    now and writes back what the trace assigned. A Variable a trace finds that the
    call did not pass is read at its value then (right for that call) and written
    back; the next call passes it, which traces ``fun`` once more.

    For a library that compiles a pure function of its own state with ``jax.jit``
    (Keras's trainer): a tf.Variable a layer reads or assigns in ``call`` would
    otherwise be a constant of the first trace, or leak the trace's value.
    ``jit(f)`` must call ``f`` with the keyword argument it is given.

    >>> import jax.numpy as jnp
    >>> import eagertape as et
    >>> from eagertape import extend
    >>> scale, calls = et.Variable(2.0), et.Variable(0.0)
    >>> def step(x):
    ...     calls.assign_add(1.0)
    ...     return (scale * x).jax()
    >>> run = extend.variables_threaded(step)
    >>> float(run(jnp.float32(3.0)))
    6.0
    >>> _ = scale.assign(10.0)
    >>> float(run(jnp.float32(3.0))), float(calls)
    (30.0, 2.0)
    """
    known = []

    def traced(*args, _eagertape_variables, **kwargs):
        n = len(_eagertape_variables)
        cap = _Threaded(known[:n], _eagertape_variables)
        with switched(capture=cap, executor=EAGER):
            cap.jax_trace = _jax_private.trace_ctx.trace
            out = fun(*args, **kwargs)
        seen = {id(v) for v in known}
        for v in cap.found:
            if id(v) not in seen:
                seen.add(id(v))
                known.append(v)
        # Written values, in the order of ``known`` as it is now: the next call's.
        written = [cap.current[id(v)] if id(v) in cap.written else None for v in known]
        return out, written

    compiled = jit(traced)

    @functools.wraps(fun)
    def run(*args, **kwargs):
        values = [v._val for v in known]
        if values:
            # An array the library passes too (a Variable made from one of its
            # weights' values) is copied: it may be donated there.
            passed = {id(a) for a in jax.tree_util.tree_leaves((args, kwargs))}
            values = [jnp.array(a, copy=True) if id(a) in passed else a for a in values]
        out, written = compiled(*args, _eagertape_variables=values, **kwargs)
        for v, new in zip(known, written):
            if new is not None:
                v._val = new
        return out
    return run


_SINGLETON = ("tf.function only supports singleton tf.Variables created on the first call. "
              "Make sure the tf.Variable is only created once or created outside tf.function "
              "(a Variable made on a later trace, or made again on every trace)")


class _Pull:
    """One ``next()`` of an iterator in a trace: at each call of the function the
    iterator's next element, taken before the call runs and given to it as inputs
    (the element's arrays stand in the trace as constants, made inputs as a
    Variable's value is)."""

    def __init__(self, source, fetch, leaves):
        self.source, self.fetch = source, fetch
        self.specs = [(tuple(np.shape(x._value)), x._value.dtype) if isinstance(x, _TensorLike)
                      else None for x in leaves]
        self.current = None
        self.arrays = []    # the stand-ins, alive while the trace is made

    def advance(self, name):
        leaves = tree_flatten(next_element(self.source, self.fetch), is_leaf=is_tensor_like)[0]
        got = [(tuple(np.shape(x._value)), x._value.dtype) if isinstance(x, _TensorLike)
               else None for x in leaves]
        if got != self.specs:
            raise ValueError(
                f"tf.function {name!r}: the iterator's element has shapes and dtypes "
                f"{_spec_text(got)}, where the function was traced with "
                f"{_spec_text(self.specs)} (a last, smaller batch?); eagertape traces an "
                "element taken by next() inside a function at the shapes it first had: "
                "batch with drop_remainder=True, or take the element outside the function "
                "and pass it as an argument")
        self.current = leaves


def _spec_text(specs):
    return "[" + ", ".join("?" if s is None else f"{np.dtype(s[1]).name}{list(s[0])}"
                           for s in specs) + "]"


class _PullLeaf:
    """Input ``k`` of a ``_Pull``'s element, read as a Variable's value is read."""
    __slots__ = ("pull", "k", "__weakref__")

    def __init__(self, pull, k):
        self.pull, self.k = pull, k

    def read_value(self):
        return self.pull.current[self.k]


# Elements a trace took ahead of the calls that use them, per iterator: the trace runs
# the function's Python once (or again: a retrace), and each call takes its element
# from here first. An eager next() takes them first too, so nothing is skipped.
_ahead = weakref.WeakKeyDictionary()


def next_element(source, fetch):
    """``fetch()``, the next element of the iterator ``source``, as a ``tf.function``
    being traced needs it: taken now, outside the trace, and, while a function is
    traced, an input of each of its calls (each call takes the iterator's next
    element, as TF's ``IteratorGetNext`` op does); elsewhere, the element.

    >>> import eagertape as et
    >>> from eagertape import extend
    >>> class Counter:
    ...     def __init__(self): self.n = 0
    ...     def __next__(self):
    ...         self.n += 1
    ...         return et.constant(float(self.n))
    >>> c = Counter()
    >>> f = et.function(lambda: extend.next_element(c, c.__next__) * 10.0)
    >>> [float(f()) for _ in range(3)]
    [10.0, 20.0, 30.0]
    """
    cap = local.state.capture
    if cap is None or cap.creating is None:
        # Not traced (or Keras's scratch build, never run again): the element now.
        buf = _ahead.get(source)
        return buf.popleft() if buf else fetch()
    if cap.nested():
        raise NotImplementedError(
            "next() of an iterator inside a compiled loop or branch of a tf.function: "
            "eagertape traces such a body once for every iteration, so one element would "
            "stand for all; take the element in the function's own body (a Python loop "
            "over range(n) unrolls), or outside the function")
    buf = _ahead.setdefault(source, collections.deque())
    k = sum(1 for p in cap.pulls if p.source is source)
    if k < len(buf):
        element = buf[k]
    else:
        with _jax_private.eval_context(), switched(capture=None):
            element = fetch()
        buf.append(element)
    leaves, tree = tree_flatten(element, is_leaf=is_tensor_like)
    pull = _Pull(source, fetch, leaves)
    cap.pulls.append(pull)
    stand = []
    for k, leaf in enumerate(leaves):
        if isinstance(leaf, _TensorLike) and not getattr(leaf, "_host_only", False):
            with _jax_private.eval_context():
                arr = jnp.array(leaf._value, copy=True)   # its own id: its own input
            cap.pull_stand_ins[id(arr)] = _PullLeaf(pull, k)
            cap.stand_ins.add(id(arr))
            pull.arrays.append(arr)
            stand.append(_wrap(arr))
        elif isinstance(leaf, _TensorLike):
            raise NotImplementedError(
                "next() of an iterator of string elements inside a tf.function: take the "
                "element outside the function and pass it as an argument")
        else:
            stand.append(leaf)
    return tree_unflatten(tree, stand)


class _Trace:
    """One input signature: the jaxpr, the Variables it reads and writes, the outputs."""

    def __init__(self, fn, treedef, leaves, dyn, dyn_vals, remat=False, creating=None,
                 arg_vars=(), tensor_outputs=False, relaxed=None, names=None):
        self.name = getattr(fn, "__name__", "function")
        cap = _Capture(creating)
        box = {}

        cap.names = {}
        # Host values (string tensors) among the arguments: traced as int32 handles
        # into a table of the call's values, with one more input, the call's id,
        # which the host ops of the trace read their table by (see _host_codec).
        self.hosts = hosts = {k: v for k, v in enumerate(dyn_vals)
                              if getattr(v, "_host_only", False)}
        self.codec = codec = next(iter(hosts.values()))._host_codec if hosts else None
        if hosts:
            dyn_vals = [jax.ShapeDtypeStruct(tuple(v.shape), np.int32) if k in hosts else v
                        for k, v in enumerate(dyn_vals)]
            dyn_vals.append(jax.ShapeDtypeStruct((), np.int32))
            if relaxed is not None:
                relaxed = list(relaxed) + [None]

        def pure(*vals):
            filled = list(leaves)
            if hosts:
                cap.host_call, vals = vals[-1], vals[:-1]
            for k, (p, v) in enumerate(zip(dyn, vals)):
                filled[p] = _wrap(v) if k not in hosts else codec.stand_in(
                    v, cap.host_call, hosts[k])
                if names and names.get(p):
                    cap.names[id(v)] = names[p]
            args, kwargs = tree_unflatten(treedef, filled)
            # Traced ops run at once (fused mode would hold tracers in a pending graph).
            with switched(tapes=[], accumulators=[], capture=cap, executor=EAGER):
                # The function's own JAX trace: code that differs inside a compiled
                # loop's or branch's body (a trace of its own) tells them apart by it.
                cap.jax_trace = _jax_private.trace_ctx.trace
                out = fn(*args, **kwargs)
                out_leaves, box["tree"] = tree_flatten(out, is_leaf=is_tensor_like)
                arrays, static = [], []
                box["static"] = static
                for o in out_leaves:
                    if tensor_outputs and isinstance(o, _NUMBERS):
                        o = np.asarray(o, _TF_DTYPES[type(o)])
                    h = getattr(o, "_host_codec", None)
                    handles = None if h is None else h.handles(o)
                    if handles is not None:      # a host value the trace computes
                        arrays.append(handles)
                        static.append(_Host(h))
                        continue
                    if isinstance(o, (_TensorLike,) + _ARRAYS) and not getattr(
                            o, "_host_only", False):     # (host-only: see Tensor)
                        arrays.append(o._value if isinstance(o, _TensorLike) else jnp.asarray(o))
                        o = _ARRAY
                    static.append(o)     # Python values come back as they were
                written = [cap.current[k] for k in cap.written]
                inits = [val for _, val in cap.created if val is not None]
            return arrays, written, inits

        self.relaxed = relaxed
        self.names = names or {}
        if relaxed is None:
            specs = dyn_vals
            closed = jax.make_jaxpr(pure)(*specs)
        else:
            specs = _symbolic(dyn_vals, relaxed)
            try:
                closed = jax.make_jaxpr(pure)(*specs)
            except Exception as e:     # (a size asked for as a number, say): per size
                raise _Unrelaxable(str(e)) from e
        self.created = cap.created
        if self.created and relaxed is not None:
            raise _Unrelaxable("Variables made on a trace of any size")
        if self.created:
            # Variables were made: their initial values are what this trace computes
            # from this call's inputs; the function is traced again to run.
            k = sum(1 for _, val in self.created if val is not None)
            if k:
                outs = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, *dyn_vals)
                it = iter(outs[len(outs) - k:])
                for v, val in self.created:
                    if val is not None:
                        v._val = next(it)
            return
        self.out_tree, self.static = box["tree"], box["static"]
        # A Variable passed as an argument is the call's own: the trace stands for any
        # Variable of its shape and dtype in that place (TF's VariableSpec).
        self.written = [arg_vars.get(id(v), v) for v in cap.written.values()]
        # The Variables read are constants of the jaxpr (their stand-in arrays):
        # make those constants inputs, so each call reads the current values.
        stand_ins = {id(val): v for v, val in cap.reads.values()}
        # An iterator's element taken by the trace is an input too: each call takes
        # the iterator's next element there (TF's IteratorGetNext), in the same order.
        stand_ins.update(cap.pull_stand_ins)
        self.pulls = list(cap.pulls)
        self.variables, var_pos, consts = [], [], list(closed.consts)
        for i, c in enumerate(consts):
            v = stand_ins.get(id(c))
            if v is not None:
                var_pos.append(i)
                self.variables.append(arg_vars.get(id(v), v))
                consts[i] = None     # a copy of the Variable's value: not kept
        # (what tf/_staged_map's interpreter runs the jaxpr with, its sizes filled in)
        self.consts, self.var_pos = consts, var_pos
        jaxpr = self.jaxpr = closed.jaxpr
        n = sum(1 for s in self.static if s is _ARRAY or type(s) is _Host)
        self.remat = remat
        if relaxed is not None:
            var_specs = [jax.ShapeDtypeStruct(np.shape(closed.consts[i]),
                                              closed.consts[i].dtype) for i in var_pos]

        def compiled(jaxpr, quiet_consts=None):
            def run(var_vals, vals):
                cs = list(consts)
                for i, v in zip(var_pos, var_vals):
                    cs[i] = v
                if quiet_consts is None:
                    flat = jax.core.eval_jaxpr(jaxpr, cs, *vals)
                else:
                    flat = jax.core.eval_jaxpr(jaxpr, quiet_consts, *cs, *vals)
                return flat[:n], flat[n:]

            run.__name__ = self.name
            if remat:
                # recompute_grad: the pullback computes the forward again rather than
                # keeping its intermediates.
                run = jax.checkpoint(run)
            _cache.share_programs()
            if relaxed is None:
                return jax.jit(run)
            # One trace for every size of the None dimensions: JAX's shape
            # polymorphism (jax.export), compiled for each size it meets.
            try:
                return jax.export.export(jax.jit(run))(var_specs, list(specs)).call
            except Exception as e:
                raise _Unrelaxable(str(e)) from e

        self.run = compiled(jaxpr)

        def call_run(var_vals, vals):     # what a tape records: one op, as in TF
            return self.run(var_vals, vals)
        call_run.__name__, call_run.one_op = self.name, True
        if _host_effects(jaxpr):
            # TF's gradient of a call uses what its forward computed; eagertape's
            # pullbacks (jax.vjp, jax.jvp) compute the forward again, so they get the
            # function without its host effects (tf.print, tf.summary writes, ...),
            # which run once per call, as TF's. Made at the first gradient.
            quiet = []

            def without_host_effects(var_vals, vals):
                if not quiet:
                    q = _without_host_effects(jaxpr)
                    quiet.append(compiled(q.jaxpr, q.consts))
                return quiet[0](var_vals, vals)
            call_run.without_host_effects = without_host_effects
        self.recorded = call_run

    def outputs(self, arrays, call=None):
        """The function's result from the arrays the call gave; host values (the
        handles of a string tensor) read from the table of ``call``."""
        it = iter(arrays)
        leaves = [next(it) if s is _ARRAY else s.codec.decode(next(it), call)
                  if type(s) is _Host else s for s in self.static]
        return tree_unflatten(self.out_tree, leaves)

    def specs(self):
        """The outputs' structure, a ``jax.ShapeDtypeStruct`` for each array (a
        ``HostSpec`` for each host value)."""
        avals = iter(self.jaxpr.outvars)
        it = iter(self.static)
        leaves = []
        for s in self.static:
            if s is _ARRAY:
                v = next(avals)
                leaves.append(jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype))
            elif type(s) is _Host:
                leaves.append(HostSpec(next(avals).aval.shape, s.codec.dtype))
            else:
                leaves.append(s)
        return tree_unflatten(self.out_tree, leaves)


# Host callbacks that only act (no result): tf.print, tf.summary's writes,
# tf.debugging's checks, io_callback with no result.
_HOST_EFFECTS = frozenset({"debug_callback", "io_callback"})


def _host_effects(jaxpr):
    return bool(jaxpr.effects)


def _without_host_effects(jaxpr):
    """``jaxpr`` (an open one: its constants come first among the arguments of the
    result) as a closed jaxpr with its resultless host callbacks left out, in the
    jaxprs nested in it too (a tf.function called by another, a cond's branches,
    a loop's body)."""
    nc = len(jaxpr.constvars)

    def run(*args):
        return _eval_quiet(jaxpr, args[:nc], args[nc:])
    avals = [v.aval for v in (*jaxpr.constvars, *jaxpr.invars)]
    return jax.make_jaxpr(run)(*[jax.ShapeDtypeStruct(a.shape, a.dtype,
                                                      weak_type=a.weak_type) for a in avals])


def _quiet_param(p):
    if isinstance(p, jax.extend.core.ClosedJaxpr) and p.jaxpr.effects:
        q = _without_host_effects(p.jaxpr)
        # The consts of p come first among q's arguments: closed over again.
        return jax.extend.core.ClosedJaxpr(*_close(q, p.consts))
    if isinstance(p, tuple) and any(isinstance(x, jax.extend.core.ClosedJaxpr) for x in p):
        return tuple(_quiet_param(x) for x in p)
    return p


def _close(q, consts):
    """``q`` (a closed jaxpr whose first arguments stand for ``consts``) with those
    arguments bound: a (jaxpr, consts) pair of the original's arity."""
    k = len(consts)
    j = q.jaxpr
    jaxpr = j.replace(constvars=[*j.constvars, *j.invars[:k]], invars=j.invars[k:])
    return jaxpr, [*q.consts, *consts]


def _eval_quiet(jaxpr, consts, args):
    env = {}

    def read(v):
        return v.val if isinstance(v, jax.extend.core.Literal) else env[v]

    used = {v for e in jaxpr.eqns for v in e.invars if not isinstance(v, jax.extend.core.Literal)}
    used.update(v for v in jaxpr.outvars if not isinstance(v, jax.extend.core.Literal))
    env.update(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    for eqn in jaxpr.eqns:
        if eqn.primitive.name in _HOST_EFFECTS and not any(v in used for v in eqn.outvars):
            continue
        params = {k: _quiet_param(p) for k, p in eqn.params.items()}
        with eqn.ctx.manager:
            outs = eqn.primitive.bind(*map(read, eqn.invars),
                                      **eqn.primitive.get_bind_params(params))
        if not eqn.primitive.multiple_results:
            outs = [outs]
        env.update(zip(eqn.outvars, outs))
    return [read(v) for v in jaxpr.outvars]


_ARRAY = object()   # marks an output leaf that is an array


class _Host:
    """Marks an output leaf that is a host value (its handles are the array)."""
    __slots__ = ("codec",)

    def __init__(self, codec):
        self.codec = codec


class HostSpec:
    """The shape and dtype of a host value (a string tensor) of a trace."""
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), dtype

    def __repr__(self):
        return _show_spec(self)
# tf.function gives back Python numbers as Tensors of TF's dtypes for them.
_NUMBERS = (bool, int, float, complex)
_TF_DTYPES = {bool: np.bool_, int: np.int32, float: np.float32, complex: np.complex128}


class _Unrelaxable(Exception):
    """A trace with None dimensions failed: the function is traced per size instead."""


def _symbolic(vals, relaxed):
    """Stand-ins of ``vals`` with JAX symbolic sizes where ``relaxed`` has None."""
    _bound_jax_decisions()
    _symbolic_conv_transposes()
    scope = jax.export.SymbolicScope()
    _BOUNDED_SCOPES.add(scope)
    out, k = [], 0
    for v, shape in zip(vals, relaxed):
        if shape is None or None not in shape:
            out.append(v)
            continue
        dims = []
        for d in shape:
            dims.append(str(d) if d is not None else f"_d{k}")
            k += d is None
        sym = jax.export.symbolic_shape(",".join(dims), scope=scope) if dims else ()
        out.append(jax.ShapeDtypeStruct(sym, v.dtype, weak_type=getattr(v, "weak_type", False)))
    return out


# JAX decides a symbolic size's bounds (is it >= 0? which operand of a max is
# larger?) by a procedure whose time is exponential in how deeply max/min nest in
# the expression, and each valid or strided convolution or pooling wraps the size
# in one more max(floordiv(...), 0): measured on JAX 0.10.2, a decision on a size
# nesting one max takes 0.4 s, on one nesting two 25 s, three not within 2 minutes
# (InceptionV3 nests dozens). On the sizes of eagertape's own traces (their
# scopes), an expression nesting max/min _DEEP times or more is bounded instead by
# interval arithmetic, linear in its size: the bounds are sound (they hold for
# every size), only wider than JAX's could be, so a question they cannot answer
# ('is it >= 0?') raises JAX's InconclusiveDimensionOperation, which makes the
# trace fall back as any failed symbolic trace does (per size), and a max they
# cannot resolve stays a max, evaluated when called. Shallower expressions get
# JAX's own answers, as before.
_DEEP = 2
_BOUNDED_SCOPES = weakref.WeakSet()
_INF = float("inf")


def _bounded_decision(jax_decision):
    shape_poly = _jax_private.shape_poly
    expr, factor = shape_poly._DimExpr, shape_poly._DimFactor
    minmax = (factor.MAX, factor.MIN)

    def nesting(e, memo):
        """How deeply max/min nest in ``e`` (subexpressions shared: ``memo``)."""
        deepest = 0
        for term, _ in e._sorted_terms:
            for f, _ in term._factors:
                if f.var is None:
                    n = memo.get(id(f))
                    if n is None:
                        n = memo[id(f)] = (f.operation in minmax) + max(
                            nesting(o, memo) if isinstance(o, expr) else 0
                            for o in f.operands)
                    deepest = max(deepest, n)
        return deepest

    def decide(e, prec):
        if isinstance(e, expr) and e.scope in _BOUNDED_SCOPES:
            try:
                deep = nesting(e, {}) >= _DEEP
            except AttributeError:      # (another JAX's representation: JAX decides)
                deep = False
            if deep:
                return _interval(e, {}, expr, factor)
        return jax_decision(e, prec)
    decide.eagertape_bounded = True
    return decide


def _interval(e, memo, expr, factor):
    """Sound bounds (lower, upper) of symbolic size ``e``: interval arithmetic over
    its terms, each dimension variable at least 1 (JAX's rule)."""
    if not isinstance(e, expr):
        return int(e), int(e)
    lo = hi = 0
    for term, k in e._sorted_terms:
        b = (k, k)
        for f, power in term._factors:
            fb = memo.get(id(f))
            if fb is None:
                fb = memo[id(f)] = _factor_interval(f, memo, expr, factor)
            for _ in range(power):
                b = _times(b, fb)
        lo, hi = lo + b[0], hi + b[1]
    return (int(lo) if lo != -_INF else lo), (int(hi) if hi != _INF else hi)


def _factor_interval(f, memo, expr, factor):
    if f.var is not None:
        return 1, _INF
    ops = [_interval(o, memo, expr, factor) for o in f.operands]
    if f.operation == factor.MAX:
        return max(ops[0][0], ops[1][0]), max(ops[0][1], ops[1][1])
    if f.operation == factor.MIN:
        return min(ops[0][0], ops[1][0]), min(ops[0][1], ops[1][1])
    (a_lo, a_hi), (d, d_hi) = ops
    if d != d_hi or d == 0:          # (a divisor that is not a known number)
        return -_INF, _INF
    if f.operation == factor.FLOORDIV:
        # floor(a / d) is monotonic in a: its ends are those of a's ends
        q = sorted(x // d if abs(x) != _INF else x / d for x in (a_lo, a_hi))
        return q[0], q[1]
    if f.operation == factor.MOD:
        return (0, d - 1) if d > 0 else (d + 1, 0)
    return -_INF, _INF


def _times(a, b):
    # (0 times an infinite end is 0: the end is a limit, the 0 exact)
    c = [0 if x == 0 or y == 0 else x * y for x in a for y in b]
    return min(c), max(c)


def _bound_jax_decisions():
    """Put ``_bounded_decision`` in front of JAX's procedure, once per process, at
    eagertape's first trace of symbolic sizes (never at import: a process that
    imports eagertape and uses jax.export itself keeps JAX's own procedure until then)."""
    shape_poly = _jax_private.shape_poly
    if not getattr(shape_poly._bounds_decision, "eagertape_bounded", False):
        shape_poly._bounds_decision = _bounded_decision(shape_poly._bounds_decision)


# A gradient through a strided or valid convolution of a symbolic size: JAX's
# transposes of conv_general_dilated compute the padding of the transposed
# convolution from the sizes, (in - k) % stride more rows after, say, which is a
# symbolic size there, and a convolution's padding must be a number (JAX raises
# "padding argument to conv_general_dilated should be a string or a sequence of
# (low, high) pairs"). The same transposes are JAX's rules applied to the operand
# padded first, by lax.pad, which takes a symbolic padding (negative: cropped) and
# dilates by its interior padding: the cotangent dilated by the strides and padded
# for the input's gradient, the input padded for the kernel's. JAX's rules then
# see a stride of 1 and a padding of numbers. Where JAX's padding is numbers its
# rules run as they are.

def _pads_are_sizes(pads):
    try:
        for lo, hi in pads:
            operator.index(lo), operator.index(hi)
        return True
    except Exception:      # (a symbolic size: JAX's InconclusiveDimensionOperation)
        return False


def _dilated(d, r):
    """JAX's size of ``d`` dilated by ``r`` (``core.dilate_dim``), the same expression."""
    if r == 1:
        return d
    e = 1 + r * (d - 1)
    try:
        return max(operator.index(e), 0)
    except Exception:
        return e.max(0)


def _conv_transpose_lhs(jax_rule, g, lhs, rhs, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, **params):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    in_shape = [_dilated(lhs.aval.shape[d], r) for d, r in zip(lhs_spec[2:], lhs_dilation)]
    k = [_dilated(rhs.shape[d], r) for d, r in zip(rhs_spec[2:], rhs_dilation)]
    out = [_dilated(g.shape[d], s) for d, s in zip(out_spec[2:], window_strides)]
    before = [kd - 1 - lo for kd, (lo, _) in zip(k, padding)]
    after = [i + kd - 1 - o - b for i, kd, o, b in zip(in_shape, k, out, before)]
    if _pads_are_sizes(zip(before, after)):
        return jax_rule(g, lhs, rhs, window_strides=window_strides, padding=padding,
                        lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                        dimension_numbers=dimension_numbers, **params)
    config = [(0, 0, 0)] * g.ndim
    for d, b, a, s in zip(out_spec[2:], before, after, window_strides):
        config[d] = (b, a, s - 1)
    g = jax.lax.pad(g, jnp.zeros((), g.dtype), config)
    return jax_rule(g, lhs, rhs, window_strides=(1,) * len(k),
                    padding=[(kd - 1, 0) for kd in k], lhs_dilation=lhs_dilation,
                    rhs_dilation=rhs_dilation,
                    dimension_numbers=dimension_numbers, **params)


def _conv_transpose_rhs(jax_rule, g, lhs, rhs, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, **params):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    in_shape = [_dilated(lhs.shape[d], r) for d, r in zip(lhs_spec[2:], lhs_dilation)]
    k = [_dilated(rhs.aval.shape[d], r) for d, r in zip(rhs_spec[2:], rhs_dilation)]
    out = [_dilated(g.shape[d], s) for d, s in zip(out_spec[2:], window_strides)]
    lows = [lo for lo, _ in padding]
    highs = [o - i + kd - 1 - lo for o, i, kd, lo in zip(out, in_shape, k, lows)]
    if _pads_are_sizes(zip(lows, highs)):
        return jax_rule(g, lhs, rhs, window_strides=window_strides, padding=padding,
                        lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                        dimension_numbers=dimension_numbers, **params)
    config = [(0, 0, 0)] * lhs.ndim
    for d, lo, hi, r in zip(lhs_spec[2:], lows, highs, lhs_dilation):
        config[d] = (lo, hi, r - 1)
    lhs = jax.lax.pad(lhs, jnp.zeros((), lhs.dtype), config)
    return jax_rule(g, lhs, rhs, window_strides=window_strides, padding=[(0, 0)] * len(k),
                    lhs_dilation=(1,) * len(k), rhs_dilation=rhs_dilation,
                    dimension_numbers=dimension_numbers, **params)


def _symbolic_conv_transposes():
    """Put ``_conv_transpose_lhs``/``_rhs`` in front of JAX's transposes of a
    convolution, once per process, at eagertape's first trace of symbolic sizes (as
    ``_bound_jax_decisions``): they change nothing where JAX's padding is numbers."""
    conv, ad = _jax_private.convolution, _jax_private.ad
    if getattr(conv, "eagertape_symbolic_transposes", False):
        return
    ad.defbilinear(conv.conv_general_dilated_p,
                   functools.partial(_conv_transpose_lhs, conv._conv_general_dilated_transpose_lhs),
                   functools.partial(_conv_transpose_rhs, conv._conv_general_dilated_transpose_rhs))
    conv.eagertape_symbolic_transposes = True


class _Slot:
    """In a trace's Variable lists: the Variable passed as argument leaf ``i``."""
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


_UNRELAXABLE = object()     # a relaxed key whose trace failed: traced per size
_NARROWED = object()        # a relaxed key whose trace failed: see _narrowed
_FORWARD = object()         # marks the key of a trace of fixed sizes for forward mode
_INLINE = object()          # a signature this function was traced with inside another


def _generalized(key, other, dyn):
    """The shapes (None where sizes differ) generalizing ``key`` and an earlier key
    ``other`` of the same structure and ranks, or None."""
    # (`==`, not `!=`: a PyTreeDef's `!=` with another type says False)
    if len(other) != len(key) or not other[0] == key[0]:
        return None
    dyn = set(dyn)
    shapes = {}
    for i, (a, b) in enumerate(zip(key[1:], other[1:])):
        if i not in dyn:
            if a != b:
                return None
            continue
        if a[1:] != b[1:] or len(a[0]) != len(b[0]):
            return None
        if a[0] != b[0]:
            shapes[i] = tuple(x if x == y else None for x, y in zip(a[0], b[0]))
    return shapes


def _narrowed(rkey, key, dyn):
    """``rkey`` with only the first None dimension of each argument left None, the
    others at ``key``'s sizes; None where that changes nothing."""
    out, changed = list(rkey), False
    for i in dyn:
        shape = rkey[1 + i][0]
        if shape is None or None not in shape:
            continue
        first = shape.index(None)
        new = tuple(d if d is not None or k == first else key[1 + i][0][k]
                    for k, d in enumerate(shape))
        changed |= new != shape
        out[1 + i] = (new,) + rkey[1 + i][1:]
    return tuple(out) if changed else None


def _is_variable(leaf):
    # (a Variable, or an assignment's alias of one: both have `assign`)
    return isinstance(leaf, _TensorLike) and hasattr(leaf, "assign")


def _resolve(vs, leaves):
    return [leaves[v.i] if type(v) is _Slot else v for v in vs]


class Function:
    """A function traced once per input signature and run as one XLA executable
    (as ``tf.function``). See :func:`function`, which makes them. A facade makes
    them directly for what ``function`` does not take: ``autograph``, a converter
    of Python control flow applied at the first trace (``eagertape.tf`` passes
    AutoGraph's); ``tensor_outputs=True``, Python numbers returned as Tensors (as
    ``tf.function`` returns them).

    >>> import eagertape as et
    >>> f = et.function(lambda x: x * 2.0)
    >>> isinstance(f, et.Function), f(et.constant(1.5)).numpy()
    (True, np.float32(3.0))
    """

    def __init__(self, fn: Callable[..., Any], jit_compile: bool = True,
                 input_signature: Any = None, name: str | None = None,
                 remat: bool = False, autograph: Callable[[Any], Any] | None = None,
                 reduce_retracing: bool = False, tensor_outputs: bool = False,
                 host_values: bool = False) -> None:
        self.python_function = fn
        self._fn = fn                 # what runs: a bound Function's is the method on its instance
        self._convert = autograph     # tf.function's AutoGraph, applied at the first trace
        self._converted = None
        self._remat = remat
        self._jit = jit_compile is not False
        self._reduce_retracing = bool(reduce_retracing)
        self._signature = _check_signature(input_signature)
        self._params = None
        self._traces = {}
        self._count = 0
        self._bound = weakref.WeakKeyDictionary()
        self._tensor_outputs = bool(tensor_outputs)
        # Whether host values (a facade's string tensors, with a _host_codec) are
        # taken as arguments: tf.function's (eagertape.tf); others refuse them.
        self._host_values = bool(host_values)
        functools.update_wrapper(self, fn)
        if name:
            self.__name__ = name

    @property
    def input_signature(self) -> Any:
        """The ``input_signature`` given, as a tuple, or None.

        >>> import eagertape.tf as tf
        >>> f = tf.function(lambda x: x, input_signature=[tf.TensorSpec([None], tf.float32)])
        >>> f.input_signature
        (TensorSpec(shape=(None,), dtype=tf.float32, name=None),)
        """
        return None if self._signature is None else tuple(self._signature)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        # As a method: a Function of its own per instance (TF's), with its own traces
        # and Variables, holding the instance weakly.
        if obj is None:
            return self
        try:
            bound = self._bound.get(obj)
        except TypeError:           # unhashable: bound afresh at each lookup
            bound = None
        if bound is None:
            bound = self._bind(obj)
            try:
                self._bound[obj] = bound
            except TypeError:
                pass
        return bound

    def _bind(self, obj):
        try:
            ref = weakref.ref(obj)
        except TypeError:
            ref = lambda: obj      # noqa: E731 (no weak reference to it can be made)
        unbound = self

        def method(*args, **kwargs):
            return unbound._python()(ref(), *args, **kwargs)
        method.__name__ = self.__name__
        bound = Function(self.python_function, jit_compile=self._jit, name=self.__name__,
                         input_signature=self._signature, remat=self._remat,
                         reduce_retracing=self._reduce_retracing)
        bound._fn, bound._method_of = method, unbound
        # What it shows is the method bound to obj, as TF's (whose __wrapped__ is the
        # bound method): inspect.signature without self (Keras's Layer.__call__ binds
        # its inputs by it). __wrapped__ is `method` (it holds obj weakly), not the
        # unbound function update_wrapper set, whose signature has self.
        for attr in ("__module__", "__qualname__", "__doc__"):
            if hasattr(self.python_function, attr):
                setattr(method, attr, getattr(self.python_function, attr))
        from types import MethodType
        try:
            signature = inspect.signature(MethodType(self.python_function, obj))
        except (TypeError, ValueError):     # no signature to read (a builtin)
            signature = None
        if signature is not None:
            method.__signature__ = bound.__signature__ = signature
        bound.__wrapped__ = method
        bound._tensor_outputs = self._tensor_outputs
        bound._host_values = self._host_values
        return bound

    def _python(self):
        """The Python function to trace: AutoGraph's conversion of it, made once."""
        if self._convert is None:
            return self._fn
        if self._converted is None:
            self._converted = self._convert(self._fn)
        return self._converted

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function was traced.

        >>> import eagertape as et
        >>> f = et.function(lambda x: x + 1.0)
        >>> _ = f(et.constant(1.0)); _ = f(et.constant(2.0))          # one signature
        >>> _ = f(et.constant([1.0, 2.0]))                           # a new shape
        >>> f.experimental_get_tracing_count()
        2
        """
        return self._count

    @x64
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self._jit or config.run_functions_eagerly:
            # jit_compile=False, or tf.config.run_functions_eagerly: plain Python.
            return self._fn(*args, **kwargs)
        if local.state.capture is not None:
            # Called from a function being traced: part of that trace, counted as
            # TF counts the trace it makes of the inner function (once a signature).
            self._count_inline(args, kwargs)
            return self._python()(*args, **kwargs)
        trace, leaves, objs, vals = self._lookup(args, kwargs)
        return self._run(trace, leaves, objs, vals)

    def _lookup(self, args, kwargs):
        """The trace for these arguments (made if new), and the arguments' values."""
        if self._signature is not None:
            args, kwargs = self._bind_signature(args, kwargs)
        leaves, treedef = tree_flatten((args, kwargs), is_leaf=is_tensor_like)
        key, dyn, objs, vals, static = [treedef], [], [], [], list(leaves)
        arg_vars = {}
        for i, leaf in enumerate(leaves):
            if isinstance(leaf, Tensor):
                if leaf._host_only:
                    codec = getattr(leaf, "_host_codec", None)
                    if codec is None or not self._host_values:
                        raise _host_only_argument(
                            leaf, self._leaf_names(treedef).get(i, f"arg{i}"), self.__name__)
                    # A host value (a string tensor): traced once a shape, as TF's
                    # TensorSpec, its values read by the trace's host ops at each call.
                    key.append((tuple(leaf.shape), "host", codec))
                    dyn.append(i)
                    objs.append(leaf)
                    vals.append(leaf)
                    static[i] = None
                    continue
                v = leaf._value
            elif isinstance(leaf, _ARRAYS):
                v = jnp.asarray(leaf)
            elif _is_variable(leaf):
                # A Variable: its shape, dtype and place among the Variables passed
                # (one passed twice is not two), as TF's VariableSpec.
                first = arg_vars.setdefault(id(leaf), _Slot(i))
                key.append(("variable", leaf.shape, leaf.dtype, leaf.trainable, first.i))
                continue
            else:
                key.append(("static", id(leaf)) if isinstance(leaf, _TensorLike)
                           else _hashable(leaf, i, self.__name__))
                continue
            key.append((v.shape, v.dtype, getattr(v, "weak_type", False)))
            dyn.append(i)
            objs.append(leaf)
            vals.append(v)
            static[i] = None
        context = local.state.trace_context
        if context is not None:
            # (last: the leaves' entries keep their places, key[1 + i])
            key.append(("trace context", context))
        key = tuple(key)
        forward = bool(local.state.accumulators)
        if forward and getattr(self._traces.get(key), "relaxed", None):
            # JAX differentiates a trace of any size in reverse mode only: forward
            # mode gets a trace of these sizes.
            key = (_FORWARD,) + key
        trace = self._traces.get(key)
        if trace is None:
            rkey = None if forward else self._relaxed_key(key, dyn)
            if rkey is not None:
                top, wider_failed = rkey, False
                trace = self._traces.get(rkey)
                if trace is _NARROWED:
                    rkey = _narrowed(rkey, key, dyn)
                    trace = self._traces.get(rkey)
                while trace is None:
                    relaxed = [rkey[1 + i][0] for i in dyn]
                    try:
                        trace = self._trace(treedef, static, dyn, vals, arg_vars, relaxed)
                    except _Unrelaxable:
                        # JAX could not follow every None dimension (a symbolic size
                        # broadcast against a known one, say): each argument's first
                        # None dimension alone, the others at this call's sizes.
                        narrower = _narrowed(rkey, key, dyn)
                        if narrower is None:
                            trace = _UNRELAXABLE
                            if wider_failed:
                                # The narrowed trace failed as the wide one did: what
                                # fails is the function, not these sizes (a gradient
                                # of a strided convolution, say), so later sizes are
                                # traced per size at once, not each tried narrowed
                                # first (the Python function ran once more per size).
                                self._traces[top] = _UNRELAXABLE
                        else:
                            wider_failed = True
                            self._traces[rkey] = _NARROWED
                            rkey = narrower
                            continue
                    self._traces[rkey] = trace
            if trace is None or trace is _UNRELAXABLE:
                trace = self._trace(treedef, static, dyn, vals, arg_vars)
            self._traces[key] = trace
        return trace, leaves, objs, vals

    def _count_inline(self, args, kwargs):
        leaves, treedef = tree_flatten((args, kwargs), is_leaf=is_tensor_like)
        key = [treedef]
        for i, leaf in enumerate(leaves):
            if isinstance(leaf, _TensorLike) or isinstance(leaf, _ARRAYS):
                key.append((tuple(np.shape(leaf)), np.dtype(leaf.dtype)))
            else:
                try:
                    key.append(_hashable(leaf, i, self.__name__))
                except TypeError:
                    key.append(("unhashable", id(leaf)))
        key = ("inline",) + tuple(key)
        if key not in self._traces:
            self._traces[key] = _INLINE
            self._count += 1

    def _relaxed_key(self, key, dyn):
        """The key of the trace with None dimensions that serves ``key``: by the
        input_signature's None dimensions, or (``reduce_retracing``) those where an
        earlier trace of the same structure had other sizes, as TF generalizes."""
        if self._signature is not None:
            shapes = {}
            leaf_specs = [s for spec in self._signature for s in _flat_specs(spec)]
            for i in dyn:
                spec = leaf_specs[i] if i < len(leaf_specs) else None
                want = None if spec is None or spec.shape is None else tuple(spec.shape)
                if want is not None and None in want:
                    shapes[i] = want
        elif self._reduce_retracing:
            shapes = None
            for other in reversed(list(self._traces)):
                shapes = _generalized(key, other, dyn)
                if shapes:
                    break
        else:
            return None
        for i in [i for i in shapes or () if len(key[1 + i]) > 1 and key[1 + i][1] == "host"]:
            del shapes[i]      # (host values are traced at their sizes)
        if not shapes or any(0 in key[1 + i][0] for i in shapes):
            return None        # (a size 0 cannot stand for a symbolic size)
        out = list(key)
        for i, shape in shapes.items():
            out[1 + i] = (shape,) + key[1 + i][1:]
        return tuple(out)

    def _trace(self, treedef, static, dyn, vals, arg_vars, relaxed=None):
        fn = self._python()
        names = self._leaf_names(treedef)
        trace = _Trace(fn, treedef, static, dyn, vals, self._remat, creating=not self._count,
                       arg_vars=arg_vars, tensor_outputs=self._tensor_outputs, relaxed=relaxed,
                       names=names)
        self._count += 1
        if trace.created:
            # TF: a first trace that made Variables is traced again, making none.
            trace = _Trace(fn, treedef, static, dyn, vals, self._remat, creating=False,
                           arg_vars=arg_vars, tensor_outputs=self._tensor_outputs, names=names)
            self._count += 1
        trace.inputs = [(names.get(i, f"arg{i}"), v) for i, v in enumerate(static)]
        trace.shapes = dict(zip(dyn, relaxed or [None] * len(dyn)))
        trace.values = dict(zip(dyn, vals))
        return trace

    def _leaf_names(self, treedef):
        """Leaf position -> the name TF gives a traced argument: its parameter's, for
        an argument that is one Tensor."""
        params = self._parameters()
        if params is None:
            return {}
        args_tree, kwargs_tree = treedef.children()
        out, pos = {}, 0
        for k, sub in enumerate(args_tree.children() if args_tree.num_leaves else []):
            if k < len(params) and sub.num_leaves == 1 and params[k].kind in (
                    inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
                out[pos] = params[k].name
            pos += sub.num_leaves
        pos = args_tree.num_leaves
        try:
            keys = list(kwargs_tree.node_data()[1]) if kwargs_tree.num_leaves else []
        except (TypeError, IndexError):
            keys = []
        for key, sub in zip(keys, kwargs_tree.children()):
            if sub.num_leaves == 1:
                out[pos] = key
            pos += sub.num_leaves
        return out

    def _run(self, trace, leaves, objs, vals):
        try:
            return self._run_checked(trace, leaves, objs, vals)
        except jax.errors.JaxRuntimeError as e:
            # A host callback's error (tf.debugging.check_numerics, ...) as TF's
            # graph raises its op's: the callback's own exception.
            orig = _host_errors.original(e)
            if orig is None:
                raise
            raise orig from None

    def _run_checked(self, trace, leaves, objs, vals):
        if trace.hosts:
            codec = trace.codec
            call_id = codec.begin()
            try:
                handles = {k: codec.encode(vals[k], call_id) for k in trace.hosts}
                vals = [handles.get(k, v) for k, v in enumerate(vals)] + [np.int32(call_id)]
                objs = [_wrap(jnp.asarray(handles[k])) if k in handles else o
                        for k, o in enumerate(objs)] + [_wrap(jnp.asarray(np.int32(call_id)))]
                out = self._run_arrays(trace, leaves, objs, vals)
                if trace.jaxpr.effects:
                    jax.effects_barrier()     # (a host print of the call's text)
                return trace.outputs(out, call_id)
            finally:
                if local.state.tapes or local.state.accumulators:
                    # A pullback runs the call again (its host ops read the table):
                    # the table lives as long as the recorded call's inputs.
                    weakref.finalize(objs[-1], codec.end, call_id)
                else:
                    codec.end(call_id)
        return trace.outputs(self._run_arrays(trace, leaves, objs, vals))

    def _run_arrays(self, trace, leaves, objs, vals):
        for p in trace.pulls:
            p.advance(self.__name__)
        variables = _resolve(trace.variables, leaves)
        reads = [v.read_value() for v in variables]
        if local.state.tapes:
            # A Variable passed to the function is read by the call even where the
            # function does not use it: tapes watch it, as TF's do.
            read = {id(v) for v in variables}
            for leaf in leaves:
                if _is_variable(leaf) and id(leaf) not in read:
                    leaf.read_value()
        if local.state.tapes or local.state.accumulators:
            arrays, written = call(trace.recorded, (reads, objs), jit=False, name=trace.name)
            written = [w._value for w in written]
        else:
            arrays, written = trace.run([r._value for r in reads], vals)
            arrays = [_wrap(a) for a in arrays]
        for v, new in zip(_resolve(trace.written, leaves), written):
            v._val = new          # assignments are not differentiated through (TF)
        return arrays

    def _parameters(self):
        if self._params is None:
            try:
                params = list(inspect.signature(self.python_function).parameters.values())
            except (TypeError, ValueError):
                params = None
            if params is not None and getattr(self, "_method_of", None) is not None:
                params = params[1:]
            self._params = params
        return self._params

    def _bind_signature(self, args, kwargs):
        """The arguments as the input_signature's Tensors, in its order (TF's binding)."""
        sig, params = self._signature, self._parameters()
        if kwargs:
            if params is None:
                raise TypeError(f"{self.__name__!r} has an input_signature and cannot be "
                                "given keyword arguments (its parameters cannot be read)")
            names = [p.name for p in params]
            given = list(args) + [_MISSING] * (len(names) - len(args))
            for k, v in kwargs.items():
                if k not in names:
                    raise TypeError(f"Binding inputs to tf.function {self.__name__!r} failed due "
                                    f"to `got an unexpected keyword argument '{k}'`")
                given[names.index(k)] = v
            while given and given[-1] is _MISSING:
                given.pop()
            args = tuple(given)
        if params is not None and len(args) <= len(sig) and (
                len(args) < len(sig) or any(a is _MISSING for a in args)):
            # A parameter left out takes its default, converted as its spec says (TF
            # binds the call to the Python signature first: f(a, b=64) with two
            # specs called as f(x) is traced once, b a Tensor of 64).
            filled = list(args) + [_MISSING] * (len(sig) - len(args))
            for i, a in enumerate(filled):
                if a is _MISSING and i < len(params) and \
                        params[i].default is not inspect.Parameter.empty:
                    filled[i] = params[i].default
            args = tuple(filled)
        if len(args) > len(sig):
            raise TypeError(f"Binding inputs to tf.function {self.__name__!r} failed due to "
                            f"`too many positional arguments`: its input_signature has "
                            f"{len(sig)} argument(s), called with {len(args)}")
        if len(args) < len(sig) or any(a is _MISSING for a in args):
            raise TypeError(f"Binding inputs to tf.function {self.__name__!r} failed due to "
                            f"`missing a required argument`: its input_signature has "
                            f"{len(sig)} argument(s), called with {len(args)}")
        return tuple(_check_arg(spec, a, i, self.__name__) for i, (a, spec)
                     in enumerate(zip(args, sig))), {}

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> "ConcreteFunction":
        """The function traced for these arguments (Tensors or ``TensorSpec``s, and
        Python values), callable with the Tensor arguments alone, as TF's.

        >>> import eagertape.tf as tf
        >>> @tf.function
        ... def power(a, b):
        ...     return a ** b
        >>> square = power.get_concrete_function(tf.TensorSpec([], tf.float32), b=2)
        >>> float(square(tf.constant(3.0)))
        9.0
        """
        if not args and not kwargs and self._signature is not None:
            args = tuple(self._signature)
        cf = ConcreteFunction(self, args, kwargs)
        # Kept, as TF keeps them: tf.saved_model.save exports each (one of None
        # sizes has no trace until it is called).
        self.__dict__.setdefault("_made", []).append(cf)
        return cf

    def pretty_printed_concrete_signatures(self) -> str:
        """The signatures traced so far, one paragraph each, as TF prints them.

        >>> import eagertape.tf as tf
        >>> f = tf.function(lambda x: x * 2.0)
        >>> _ = f(tf.constant([1.0]))
        >>> print(f.pretty_printed_concrete_signatures())
        Input Parameters:
          x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(1,), dtype=tf.float32, name=None)
        Output Type:
          TensorSpec(shape=(1,), dtype=tf.float32, name=None)
        Captures:
          None
        """
        return "\n\n".join(c.pretty_printed_signature() for c in self._concretes())

    def _concretes(self):
        out, seen = [], set()
        for key, trace in self._traces.items():
            if isinstance(trace, _Trace) and id(trace) not in seen:
                seen.add(id(trace))
                out.append(ConcreteFunction._of_trace(self, key, trace))
        return out


_MISSING = object()


def _is_spec(x):
    return _is_composite_spec(x) or (
        not isinstance(x, (_TensorLike,) + _ARRAYS) and hasattr(x, "shape")
        and hasattr(x, "dtype") and type(x).__name__.endswith("Spec"))


def _is_composite_spec(x):
    # The spec of a composite value (tf.experimental.ExtensionType's Spec), by TF's
    # protocol: its Tensors' TensorSpecs in the order of the value's pytree leaves
    # (_flat_tensor_specs), and the value made of such Tensors.
    return (not isinstance(x, type) and hasattr(x, "_flat_tensor_specs")
            and hasattr(x, "_from_compatible_tensor_list"))


def _is_spec_nest(x):
    # A nested structure of specs (TF's input_signature takes one per argument, as
    # a distributed dataset's element_spec is): tuples, lists and dicts of them.
    return isinstance(x, (tuple, list, dict)) and not hasattr(x, "dtype")


def _nest_items(x):
    # In the pytree order of the matching argument (JAX flattens a dict by its keys,
    # sorted).
    return [x[k] for k in sorted(x)] if isinstance(x, dict) else list(x)


def _flat_specs(spec):
    if _is_spec_nest(spec):
        return [s for sub in _nest_items(spec) for s in _flat_specs(sub)]
    return list(spec._flat_tensor_specs) if _is_composite_spec(spec) else [spec]


def _zeros_of(spec):
    """A value of ``spec`` (its Tensors zeros), for tracing a concrete function."""
    if _is_composite_spec(spec):
        return spec._from_compatible_tensor_list(
            [jnp.zeros(tuple(s.shape), s.dtype) for s in spec._flat_tensor_specs])
    return jnp.zeros(tuple(spec.shape), spec.dtype)


class ConcreteFunction:
    """A :class:`Function` traced for one input signature (``get_concrete_function``):
    called with the Tensor arguments alone; the Python arguments it was made with
    are part of it, as in TF. A TensorSpec's ``None`` dimension takes any size
    (JAX compiles one executable per size seen)."""

    def __init__(self, function, args, kwargs):
        self._function = function
        params = function._parameters()
        if params is None:
            raise TypeError(f"get_concrete_function of {function.__name__!r}: the function's "
                            "parameters cannot be read (give a Python function)")
        names = [p.name for p in params]
        bound = {}
        for i, a in enumerate(args):
            if i >= len(names):
                if params and params[-1].kind is inspect.Parameter.VAR_POSITIONAL:
                    bound[f"{names[-1]}_{i}"] = a
                    continue
                raise TypeError(f"get_concrete_function of {function.__name__!r} given "
                                f"{len(args)} positional arguments; it takes {len(names)}")
            bound[names[i]] = a
        bound.update(kwargs)
        self._template = bound
        self._tensor_names = [k for k, v in bound.items()
                              if _is_spec(v) or isinstance(v, (_TensorLike,) + _ARRAYS)
                              or _is_composite_value(v)]
        self._specs = {k: _spec_of(bound[k]) for k in self._tensor_names}
        self._trace = None
        specs = [s for spec in self._specs.values() for s in _flat_specs(spec)]
        if all(s.shape is not None and None not in tuple(s.shape) for s in specs):
            # Traced now, as TF traces: the Tensors given, zeros of each spec. A
            # TensorSpec of host values (tf.string) has no values to trace the host
            # ops with: traced at the first call.
            given = {k: bound[k] for k in self._tensor_names if not _is_spec(bound[k])}
            if len(given) == len(self._specs) or not any(_is_host_dtype(s.dtype)
                                                         for s in specs):
                self._trace = self._traced(
                    {k: given[k] if k in given else _zeros_of(s)
                     for k, s in self._specs.items()})

    @classmethod
    def _of_trace(cls, function, key, trace):
        self = cls.__new__(cls)
        self._function, self._trace, self._template = function, trace, None
        self._tensor_names, self._specs = [], {}
        self._in_tree = key[0]      # the arguments' structure (a pytree treedef)
        return self

    def _args(self, tensors):
        filled = dict(self._template)
        filled.update(tensors)
        params = self._function._parameters()
        args, kwargs = [], {}
        for p in params:
            if p.name in filled:
                if p.kind is inspect.Parameter.KEYWORD_ONLY:
                    kwargs[p.name] = filled.pop(p.name)
                else:
                    args.append(filled.pop(p.name))
            elif p.kind is inspect.Parameter.VAR_POSITIONAL:
                args.extend(filled.pop(k) for k in sorted(
                    [k for k in filled if k.startswith(p.name + "_")],
                    key=lambda k: int(k.rsplit("_", 1)[1])))
            else:
                break
        kwargs.update(filled)
        return tuple(args), kwargs

    def _traced(self, tensors):
        args, kwargs = self._args(tensors)
        trace, _, _, _ = self._function._lookup(args, kwargs)
        return trace

    @x64
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        names = self._tensor_names
        if len(args) > len(names):
            raise TypeError(f"{self._function.__name__!r}'s concrete function takes "
                            f"{len(names)} Tensor argument(s) ({', '.join(names)}), given "
                            f"{len(args)} positionally; its other arguments were fixed when "
                            "it was made")
        given = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names or k in given:
                raise TypeError(f"{self._function.__name__!r}'s concrete function got an "
                                f"unexpected keyword argument {k!r}: its Tensor arguments are "
                                f"{names}; the others were fixed when it was made")
            given[k] = v
        missing = [k for k in names if k not in given]
        if missing:
            raise TypeError(f"{self._function.__name__!r}'s concrete function is missing "
                            f"the Tensor argument(s) {missing}")
        for k in names:
            spec, v = self._specs[k], given[k]
            if _is_composite_spec(spec):
                if not spec.is_compatible_with(v):
                    raise TypeError(f"argument {k!r} of {self._function.__name__!r}'s concrete "
                                    f"function does not match its spec {spec!r}")
                continue
            dtype = v.dtype if hasattr(v, "dtype") else np.asarray(v).dtype
            if spec.dtype is not None and np.dtype(dtype) != np.dtype(spec.dtype):
                raise InvalidArgumentError(
                    f"argument {k!r} of {self._function.__name__!r}'s concrete function was "
                    f"expected to be a {_dtype_name(spec.dtype)} tensor but is a "
                    f"{_dtype_name(dtype)} tensor")
        args, kwargs = self._args(given)
        f = self._function
        if not f._jit or config.run_functions_eagerly or local.state.capture is not None:
            return f(*args, **kwargs)
        trace, leaves, objs, vals = f._lookup(args, kwargs)
        return f._run(trace, leaves, objs, vals)

    @property
    def structured_input_signature(self) -> Any:
        """``(args, kwargs)``: a TensorSpec for each Tensor argument, the Python values as given."""
        if self._template is None:
            return None
        args, kwargs = self._args({k: _SpecOut(s) for k, s in self._specs.items()})
        return tuple(a.spec if isinstance(a, _SpecOut) else a for a in args), {
            k: (v.spec if isinstance(v, _SpecOut) else v) for k, v in kwargs.items()}

    @property
    def structured_outputs(self) -> Any:
        """The outputs' structure, a ``jax.ShapeDtypeStruct`` for each Tensor."""
        if self._trace is None:
            raise ValueError("this concrete function's TensorSpecs have None dimensions: "
                             "its outputs are known once it is called")
        return self._trace.specs()

    def pretty_printed_signature(self, verbose: bool = True) -> str:
        """Its parameters and outputs, as TF prints them."""
        lines = ["Input Parameters:"]
        params = self._function._parameters()
        if self._template is not None:
            shown = {k: _Shown(_show_spec(self._specs[k]) if k in self._specs
                               else _show_value(v)) for k, v in self._template.items()}
            args, kwargs = self._args(shown)
            lines += _parameter_lines(params, args, kwargs)
        elif self._trace is not None:
            t = self._trace
            leaves = []
            for i, (k, v) in enumerate(getattr(t, "inputs", ())):
                if i in t.values:
                    val = t.values[i]
                    shape = t.shapes.get(i) or val.shape
                    leaves.append(_show_spec(HostSpec(shape, val.dtype)))
                elif isinstance(v, _TensorLike):
                    leaves.append(f"VariableSpec(shape={tuple(v.shape)}, "
                                  f"dtype=tf.{np.dtype(v.dtype).name}, trainable={v.trainable})")
                else:
                    leaves.append(f"Literal[{v!r}]")
            tree = getattr(self, "_in_tree", None)
            if tree is not None and tree.num_leaves == len(leaves):
                args, kwargs = _show_tree(tree, iter(leaves))
                lines += _parameter_lines(params, args, kwargs)
            else:
                lines += [f"  {k} (POSITIONAL_OR_KEYWORD): {s}"
                          for (k, _), s in zip(getattr(t, "inputs", ()), leaves)]
        lines.append("Output Type:")
        if self._trace is not None:
            outs = self._trace.specs()
            lines.append("  " + (_show_value(outs) if outs is not None else "None"))
        lines += ["Captures:", "  None"]
        return "\n".join(lines)

    def __str__(self):
        return "ConcreteFunction " + self.pretty_printed_signature()

    @property
    def graph(self) -> "FuncGraph":
        """The traced function as a graph (TF's ``FuncGraph``): ``as_graph_def()``
        with its ``node`` list, ``get_operations()``, ``inputs``, ``outputs``. Its
        nodes are the traced jaxpr's: JAX's operations (``add``, ``dot_general``,
        ...; a host op, on strings, by its TF name), not TF's kernels, so a
        graph's size is not TF's.

        >>> import eagertape.tf as tf
        >>> f = tf.function(lambda x: x * 2.0 + 1.0)
        >>> g = f.get_concrete_function(tf.TensorSpec([2], tf.float32)).graph
        >>> [(n.op, n.input) for n in g.as_graph_def().node if n.op in ("Mul", "AddV2")]
        [('Mul', ['x', 'Cast']), ('AddV2', ['mul', 'Cast_1'])]
        >>> g.inputs, g.outputs
        (['x'], ['Identity'])
        """
        if self._trace is None:
            raise ValueError("this concrete function is traced at its first call (its "
                             "TensorSpecs have None dimensions, or are of strings): call it "
                             "first, then read its graph")
        return FuncGraph(self._trace, self._function.__name__)

    @property
    def inference_fn(self) -> "ConcreteFunction":
        """The function that runs the trace (TF's AtomicFunction): called with the
        Tensor arguments, as the concrete function itself."""
        return self

    @property
    def function_type(self) -> inspect.Signature:
        """The concrete function's parameters (TF's FunctionType), as an
        ``inspect.Signature`` of its Tensor arguments."""
        return inspect.Signature([inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                  for k in self._tensor_names])

    def __repr__(self):
        return f"<ConcreteFunction {self._function.__name__}>"


# JAX's primitive -> (TF's op type, TF's node name) for a ConcreteFunction's graph.
_TF_OPS = {"add": ("AddV2", "add"), "sub": ("Sub", "sub"), "mul": ("Mul", "mul"),
           "div": ("RealDiv", "truediv"), "neg": ("Neg", "Neg"), "max": ("Maximum", "Maximum"),
           "min": ("Minimum", "Minimum"), "dot_general": ("MatMul", "MatMul"),
           "exp": ("Exp", "Exp"), "log": ("Log", "Log"), "tanh": ("Tanh", "Tanh"),
           "abs": ("Abs", "Abs"), "sign": ("Sign", "Sign"), "gt": ("Greater", "Greater"),
           "lt": ("Less", "Less"), "eq": ("Equal", "Equal"), "select_n": ("SelectV2", "SelectV2"),
           "reduce_sum": ("Sum", "Sum"), "reshape": ("Reshape", "Reshape"),
           "convert_element_type": ("Cast", "Cast"), "cond": ("If", "cond"),
           "while": ("While", "while")}
_TF_NAMES = {"AddV2": "add", "Sub": "sub", "Mul": "mul", "RealDiv": "truediv"}


class NodeDef:
    """One node of a ConcreteFunction's graph: ``name``, ``op``, ``input``."""
    __slots__ = ("name", "op", "input")

    def __init__(self, name, op, inputs):
        self.name, self.op, self.input = name, op, list(inputs)

    def __str__(self):
        lines = ["node {", f'  name: "{self.name}"', f'  op: "{self.op}"']
        lines += [f'  input: "{i}"' for i in self.input]
        return "\n".join(lines + ["}"])

    __repr__ = __str__


class GraphDef:
    """``as_graph_def()``'s result: ``node``, the list of NodeDefs."""

    def __init__(self, nodes):
        self.node = list(nodes)

    def __str__(self):
        return "\n".join(str(n) for n in self.node)


class Operation:
    """An operation of a FuncGraph: ``name``, ``type``, ``inputs`` (the names of
    what it reads), ``node_def``."""

    def __init__(self, node):
        self.node_def, self.name, self.type = node, node.name, node.op
        self.inputs = list(node.input)

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"


class FuncGraph:
    """A ConcreteFunction's ``graph``: the nodes of its traced jaxpr (see
    ``ConcreteFunction.graph``)."""

    def __init__(self, trace, name):
        self.name = name
        jaxpr = trace.jaxpr
        nodes, names, used = [], {}, {}

        def unique(base):
            k = used.get(base, 0)
            used[base] = k + 1
            return base if k == 0 else f"{base}_{k}"

        def ref(v):
            if isinstance(v, jax.extend.core.Literal):
                n = unique("Const")
                nodes.append(NodeDef(n, "Const", []))
                return n
            return names.get(v)

        arg_names = [n for n, _ in getattr(trace, "inputs", [])]
        dyn = sorted(getattr(trace, "values", {}))
        invars = list(jaxpr.invars)
        hidden = {invars[-1]} if trace.hosts else set()
        for v in jaxpr.constvars:
            n = unique("Const")
            nodes.append(NodeDef(n, "Const", []))
            names[v] = n
        for k, v in enumerate(invars):
            if v in hidden:
                continue
            base = arg_names[dyn[k]] if k < len(dyn) and dyn[k] < len(arg_names) else "args"
            n = unique(base or "Placeholder")
            nodes.append(NodeDef(n, "Placeholder", []))
            names[v] = n

        def walk(j, env_in):
            for eqn in j.eqns:
                inner = eqn.params.get("jaxpr")
                if eqn.primitive.name in ("pjit", "jit", "closed_call", "checkpoint",
                                          "remat") and inner is not None:
                    inner = getattr(inner, "jaxpr", inner)
                    for a, b in zip(inner.invars, eqn.invars):
                        names[a] = ref(b)
                    walk(inner, None)
                    for a, b in zip(eqn.outvars, inner.outvars):
                        names[a] = ref(b)
                    continue
                if eqn.primitive.name == "pure_callback":
                    op = getattr(getattr(eqn.params["callback"], "callback_func", None),
                                 "__name__", "PyFunc")
                    base = _TF_NAMES.get(op, op)
                    ins = eqn.invars[1:]      # (the first is the call's table)
                else:
                    op, base = _TF_OPS.get(eqn.primitive.name, (
                        "".join(p.title() for p in eqn.primitive.name.split("_")),) * 2)
                    ins = eqn.invars
                n = unique(base)
                nodes.append(NodeDef(n, op, [ref(v) for v in ins]))
                for k, v in enumerate(eqn.outvars):
                    names[v] = n if k == 0 else f"{n}:{k}"
        walk(jaxpr, None)
        self.inputs = [names[v] for v in invars if v not in hidden]
        self.outputs = []
        for v in jaxpr.outvars:
            n = unique("Identity")
            nodes.append(NodeDef(n, "Identity", [ref(v)]))
            self.outputs.append(n)
        self._nodes = nodes

    def as_graph_def(self) -> GraphDef:
        return GraphDef(self._nodes)

    def get_operations(self) -> list:
        return [Operation(n) for n in self._nodes]


class _SpecOut:
    __slots__ = ("spec",)

    def __init__(self, spec):
        self.spec = spec


def _spec_of(x):
    if _is_spec(x):
        return x
    if _is_composite_value(x):
        return x._type_spec      # (TF's type_spec_from_value)
    if getattr(x, "_host_only", False):
        return HostSpec(x.shape, x.dtype)
    v = x._value if isinstance(x, _TensorLike) else np.asarray(x)
    return jax.ShapeDtypeStruct(v.shape, v.dtype)


def _is_composite_value(x):
    # A RaggedTensor, SparseTensor, ExtensionType: a value with TF's _type_spec.
    return (not isinstance(x, (type, _TensorLike)) and not _is_spec(x)
            and _is_composite_spec(getattr(x, "_type_spec", None)))


def _is_host_dtype(dtype):
    try:
        return np.dtype(dtype).kind == "O"
    except TypeError:
        return False


def _dtype_name(dtype):
    try:
        return DType(np.dtype(dtype)).name
    except TypeError:
        return str(dtype)


def _show_spec(s):
    if isinstance(s, str):
        return s
    if _is_composite_spec(s):
        return repr(s)
    if not hasattr(s, "shape"):
        return f"Literal[{s!r}]"
    if s.shape is None:
        return f"TensorSpec(shape=<unknown>, dtype=tf.{_dtype_name(s.dtype)}, name=None)"
    shape = tuple(d if type(d) is int else None for d in s.shape)
    return f"TensorSpec(shape={shape}, dtype=tf.{_dtype_name(s.dtype)}, name=None)"


class _Shown(str):
    """A value's text in a printed signature (told apart from a parameter's default)."""


def _show_nest(kind, items, keys=None):
    """TF's text of a list, tuple, dict or namedtuple of shown values."""
    if keys is None:
        return f"{kind}[{', '.join(items)}]"
    return f"{kind}[{', '.join(f'[{k!r}, {v}]' for k, v in zip(keys, items))}]"


def _nest_kind(typ):
    if issubclass(typ, tuple) and hasattr(typ, "_fields"):
        return typ.__name__
    if issubclass(typ, dict):
        return "Dict"
    return "List" if issubclass(typ, list) else "Tuple" if issubclass(typ, tuple) else None


def _show_tree(tree, leaves):
    """The value of ``tree`` (a treedef) with its lists, tuples, dicts and namedtuples
    rebuilt (their items shown as TF shows them) and each leaf the next of ``leaves``."""
    data = tree.node_data()
    if data is None:
        return _Shown(next(leaves))
    typ, aux = data
    children = [_show_tree(c, leaves) for c in tree.children()]
    if typ is type(None):
        return None
    if typ in (tuple, list):
        return typ(children)
    if issubclass(typ, dict):     # (a defaultdict's aux data is its factory and keys)
        return dict(zip(aux[1] if issubclass(typ, collections.defaultdict) else aux,
                        children))
    shown = [_show_value(c) for c in children]
    kind = _nest_kind(typ)
    if kind is not None:          # a namedtuple
        return _Shown(_show_nest(kind, shown, typ._fields))
    return _Shown(_show_nest(typ.__name__, shown))     # another pytree node


def _show_value(v):
    """``v`` in a printed signature as TF shows it: a Tensor or spec as its
    TensorSpec, a list, tuple, dict or namedtuple item by item, anything else as
    a Literal."""
    if isinstance(v, _Shown):
        return str(v)
    if isinstance(v, (_TensorLike,) + _ARRAYS):
        return _show_spec(jax.ShapeDtypeStruct(tuple(v.shape), v.dtype))
    if _is_spec(v) or isinstance(v, (jax.ShapeDtypeStruct, HostSpec)):
        return _show_spec(v)
    kind = _nest_kind(type(v)) if isinstance(v, (list, tuple, dict)) else None
    if kind is None:
        return f"Literal[{v!r}]"
    if isinstance(v, dict):
        return _show_nest(kind, [_show_value(x) for x in v.values()], list(v))
    return _show_nest(kind, [_show_value(x) for x in v],
                      getattr(type(v), "_fields", None) if kind not in ("List", "Tuple") else None)


def _parameter_lines(params, args, kwargs):
    """The ``Input Parameters`` lines of a signature: each parameter of the Python
    function bound to the arguments (its default where none was given), as TF
    binds them (``*args`` as ``args_0``, ``args_1``, ...; ``**kwargs`` by key)."""
    if params is None:
        return [f"  arg{i} (POSITIONAL_OR_KEYWORD): {_show_value(a)}"
                for i, a in enumerate(args)] + [
            f"  {k} (KEYWORD_ONLY): {_show_value(v)}" for k, v in sorted(kwargs.items())]
    try:
        bound = inspect.Signature(params).bind(*args, **kwargs)
    except TypeError:
        return [f"  arg{i} (POSITIONAL_OR_KEYWORD): {_show_value(a)}"
                for i, a in enumerate(args)] + [
            f"  {k} (KEYWORD_ONLY): {_show_value(v)}" for k, v in sorted(kwargs.items())]
    bound.apply_defaults()
    P = inspect.Parameter
    varargs = any(p.kind is P.VAR_POSITIONAL for p in params)
    lines = []
    for p in params:
        v = bound.arguments.get(p.name, ())
        if p.kind is P.VAR_POSITIONAL:
            lines += [f"  {p.name}_{i} (POSITIONAL_ONLY): {_show_value(a)}"
                      for i, a in enumerate(v)]
        elif p.kind is P.VAR_KEYWORD:
            lines += [f"  {k} (KEYWORD_ONLY): {_show_value(a)}" for k, a in sorted(v.items())]
        else:
            kind = ("KEYWORD_ONLY" if p.kind is P.KEYWORD_ONLY else "POSITIONAL_ONLY"
                    if varargs or p.kind is P.POSITIONAL_ONLY else "POSITIONAL_OR_KEYWORD")
            lines.append(f"  {p.name} ({kind}): {_show_value(v)}")
    return lines


def _host_only_argument(leaf, arg, name):
    return TypeError(
        f"argument `{arg}` of tf.function {name!r} is a {leaf.dtype.name} tensor, whose values "
        "live on the host: JAX cannot trace them. Run the string ops before calling the "
        "function (or in a tf.data map) and pass their numeric results (ids from a "
        "tf.lookup table, lengths, hashes); string ops on constants made inside the "
        "function run while it is traced. Or run functions eagerly: "
        "tf.config.run_functions_eagerly(True)")


def _hashable(leaf, i, name):
    tracing_type = getattr(type(leaf), "__tf_tracing_type__", None)
    if tracing_type is not None:
        # TF's protocol: the argument says which calls share a trace.
        return ("trace type", tracing_type(leaf, None))
    try:
        hash(leaf)
    except TypeError:
        raise TypeError(f"argument {i} of eagertape.function {name!r} is an unhashable "
                        f"{type(leaf).__name__}: pass arrays as Tensors or NumPy arrays, other "
                        "values (part of the trace's signature) hashable") from None
    # Python numbers by value, as TF's Literal (1, 1.0 and True are one signature).
    return leaf if isinstance(leaf, (bool, int, float, complex)) else (type(leaf), leaf)


def _check_signature(sig):
    if sig is None:
        return None
    sig = list(sig)

    def check(spec, where):
        if _is_spec_nest(spec):
            keys = sorted(spec) if isinstance(spec, dict) else range(len(spec))
            for k, sub in zip(keys, _nest_items(spec)):
                check(sub, f"{where}[{k!r}]")
        elif not (_is_composite_spec(spec) or hasattr(spec, "shape") and hasattr(spec, "dtype")):
            raise TypeError(f"argument `input_signature`{where} must have .shape and .dtype "
                            f"(eagertape.tf.TensorSpec), or be a tuple, list or dict of "
                            f"such specs, got {spec!r}")
    for i, spec in enumerate(sig):
        check(spec, f"[{i}]")
    return sig


def _check_arg(spec, a, i, name):
    """Argument ``i`` as its ``spec`` asks: a Tensor of its dtype and a shape it allows;
    for a nested structure of specs, a value of that structure, each part checked."""
    if _is_spec_nest(spec):
        same = (isinstance(a, dict) and sorted(a) == sorted(spec)) if isinstance(spec, dict) \
            else (isinstance(a, (tuple, list)) and not isinstance(a, dict)
                  and len(a) == len(spec))
        if not same:
            raise TypeError(f"Binding inputs to tf.function {name!r} failed: argument {i} "
                            f"({type(a).__name__}) does not match the structure of its "
                            f"input_signature {spec!r}")
        if isinstance(spec, dict):
            return {k: _check_arg(spec[k], a[k], i, name) for k in spec}
        parts = [_check_arg(s, x, i, name) for s, x in zip(spec, a)]
        return type(a)(*parts) if hasattr(a, "_fields") else type(a)(parts)
    if _is_composite_spec(spec):
        if not spec.is_compatible_with(a):
            raise TypeError(f"Binding inputs to tf.function {name!r} failed: argument {i} "
                            f"({type(a).__name__}) does not match its input_signature {spec!r}")
        return a
    if not isinstance(a, _TensorLike):
        try:
            a = _wrap(jnp.asarray(a, dtype=spec.dtype))
        except (TypeError, ValueError) as e:
            raise TypeError(f"Binding inputs to tf.function {name!r} failed: argument {i} "
                            f"(a {type(a).__name__}) cannot be made a Tensor for its "
                            f"input_signature {spec!r}: {e}") from None
    shape = tuple(a.shape)
    want = tuple(spec.shape) if spec.shape is not None else None
    ok = want is None or (len(want) == len(shape) and
                          all(w is None or w == s for w, s in zip(want, shape)))
    if not ok or (spec.dtype is not None and np.dtype(spec.dtype) != np.dtype(a.dtype)):
        raise TypeError(f"Binding inputs to tf.function {name!r} failed: argument {i} has "
                        f"shape {shape} and dtype {np.dtype(a.dtype).name}, which does not "
                        f"match its input_signature {spec!r}")
    return a


@overload
def function(func: Callable[..., Any], *, jit_compile: bool = ..., input_signature: Any = ...,
             reduce_retracing: bool = ..., autograph: bool = ..., name: str | None = ...,
             experimental_relax_shapes: Any = ..., **ignored: Any) -> Function: ...
@overload
def function(func: None = None, *, jit_compile: bool = ..., input_signature: Any = ...,
             reduce_retracing: bool = ..., autograph: bool = ..., name: str | None = ...,
             experimental_relax_shapes: Any = ...,
             **ignored: Any) -> Callable[[Callable[..., Any]], Function]: ...


def function(func: Callable[..., Any] | None = None, *, jit_compile: bool = True,
             input_signature: Any = None, reduce_retracing: bool = False,
             autograph: bool = True, name: str | None = None,
             experimental_relax_shapes: Any = None,
             **ignored: Any) -> Function | Callable[[Callable[..., Any]], Function]:
    """Decorator like ``tf.function``: trace ``func`` once per input signature and
    run it as one ``jax.jit`` executable.

    - Tensors and arrays are the traced inputs (a new shape or dtype traces
      again); other arguments are part of the signature (a new value traces
      again), as in TF.
    - Variables read inside are inputs of the call (their gradients flow);
      assignments inside are applied after each call.
    - Under a tape the call is one recorded op, whose pullback is the compiled
      function's ``jax.vjp``; nested tapes differentiate it again.
    - Python side effects (print, appending to lists) run only while tracing.
      Python control flow on Tensor values needs ``jnp.where``/``jax.lax.cond``,
      or ``jit_compile=False`` (which runs ``func`` as plain eager Python).

    >>> import eagertape as et
    >>> from eagertape import numpy as tnp
    >>> @et.function
    ... def step(x):
    ...     return tnp.sum(x ** 2)
    >>> x = et.constant([1.0, 2.0])
    >>> with et.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = step(x)
    >>> tape.gradient(y, x).numpy()
    array([2., 4.], dtype=float32)
    >>> _ = step(et.constant([3.0, 4.0]))      # same shape and dtype: no new trace
    >>> step.experimental_get_tracing_count()
    1
    """
    if func is None:
        return functools.partial(function, jit_compile=jit_compile,
                                 input_signature=input_signature, name=name,
                                 reduce_retracing=reduce_retracing, autograph=autograph)
    if not callable(func):
        raise TypeError(f"argument `func` of eagertape.function must be callable, got "
                        f"{type(func).__name__}")
    # ``autograph``: a converter of Python control flow (tf.function gives AutoGraph's).
    return Function(func, jit_compile=jit_compile, input_signature=input_signature, name=name,
                    reduce_retracing=reduce_retracing or bool(experimental_relax_shapes),
                    autograph=autograph if callable(autograph) else None)


def pure_trace(function, args, kwargs=None):
    """``function`` (an ``eagertape.function``, or one bound to its instance as a
    method) traced as a pure JAX function of its Variables' values, for the
    arguments ``args``/``kwargs`` in which each Tensor is given as a
    ``jax.ShapeDtypeStruct`` (JAX symbolic sizes allowed: one trace for every size)
    and other values as they are: what an exporter (``tf.saved_model.save``) hands
    to ``jax.export``. A function never called yet may make Variables (from
    values, not from its inputs), as on its first call.

    Returns ``(run, variables, written, outputs)``: ``run(var_values, arg_values)``
    gives ``(output arrays, new values of written)`` and is traceable by JAX;
    ``variables`` are the Variables it reads, in ``var_values``' order; ``written``
    those it assigns; ``outputs(arrays)`` builds the function's result from them.

    >>> import jax, numpy as np
    >>> import eagertape as et
    >>> from eagertape import extend
    >>> w = et.Variable(2.0)
    >>> f = et.function(lambda x: x * w)
    >>> spec = jax.ShapeDtypeStruct((3,), np.float32)
    >>> run, variables, written, outputs = extend.pure_trace(f, (spec,))
    >>> arrays, new = run([np.float32(5.0)], [np.ones(3, np.float32)])
    >>> outputs(arrays).tolist(), variables[0] is w, written
    ([5.0, 5.0, 5.0], True, [])
    """
    return _pure_trace(function, args, {} if kwargs is None else kwargs)


@x64
def _pure_trace(function, args, kwargs):
    def spec(x):
        return isinstance(x, jax.ShapeDtypeStruct)

    leaves, treedef = tree_flatten((tuple(args), dict(kwargs)),
                                   is_leaf=lambda x: spec(x) or isinstance(x, _TensorLike))
    dyn = [i for i, leaf in enumerate(leaves) if spec(leaf)]
    static = [None if spec(leaf) else leaf for leaf in leaves]
    vals = [leaves[i] for i in dyn]
    fn, outputs_as_tensors = function._python(), function._tensor_outputs
    # TF's rule: Variables may be made on a function's first trace only; one that
    # made some is traced again, making none.
    creating = not function._count
    for _ in range(2):
        trace = _Trace(fn, treedef, static, dyn, vals, creating=creating, arg_vars={},
                       tensor_outputs=outputs_as_tensors)
        function._count += 1
        if not trace.created:
            break
        creating = False
    return trace.run, list(trace.variables), list(trace.written), trace.outputs
