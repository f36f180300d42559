"""Which inputs of a recorded call its outputs pass gradients to: TF's "connected".

TensorFlow answers None, not zeros, for a source that no recorded op connects to
the target: an op's backward function gives None for an input it has no
gradient for (ops registered as not differentiable: Floor, Round, OnesLike,
...), and a gradient computed on a tape is made of the ops its backward
functions ran, so an outer tape sees only the dependences those ops have
(``h = v - x``: the inner dh/dv is the seed itself, connected to nothing, and
d(dh/dv)/dx is None).

eagertape records a gradient (or a JVP, or a compiled function) as one op, so
its connectivity is read off the op's jaxpr: an output depends on an input when
a chain of floating values joins them. Integer and boolean values cut the chain,
as TF never differentiates through them (fact 29). Replays pass cotangents only
along these dependences, so an unconnected source gets no gradient at all.

Where TF's gradient (or JVP) reads a value that JAX's derivative does not, ``tie``
makes the derivative read it too, without changing a value (``reading_inputs``
for a facade function; ``_forward`` for JVPs, which TF builds by transposing
backward functions).
"""
import jax
import jax.numpy as jnp
from jax.extend import core as _core

from ._dtypes import is_inexact
from ._graph import Pending

NO_GRADIENT = "no gradient"   # deps of a kind TF registers no gradient for
_EMPTY = frozenset()
# Primitives whose TF ops have no gradient (Floor, Ceil, Round, StopGradient):
# inside a function's jaxpr they cut the chain as they do on a tape.
_CUT = frozenset({"stop_gradient", "floor", "ceil", "round"})
_NESTED = ("jaxpr", "call_jaxpr", "fun_jaxpr")


def _inexact(aval):
    dtype = getattr(aval, "dtype", None)
    return dtype is not None and is_inexact(dtype)


def _open(j):
    return j.jaxpr if hasattr(j, "jaxpr") and not hasattr(j, "eqns") else j


def jaxpr_deps(jaxpr, cut=_CUT):
    """Per output of ``jaxpr``, the frozenset of input positions it depends on
    through floating values (intermediate integers and booleans cut, and the
    primitives in ``cut``)."""
    # Every input starts a chain, whatever its dtype: a kind serves calls of
    # several dtypes (``1 - t`` and ``v - t``), and an input that is not
    # floating gets no gradient anyway (it has no slot on the tape).
    env = {v: frozenset((i,)) for i, v in enumerate(jaxpr.invars)}
    for eqn in jaxpr.eqns:
        ins = [env.get(v, _EMPTY) if isinstance(v, _core.Var) else _EMPTY for v in eqn.invars]
        if eqn.primitive.name in cut:
            outs = [_EMPTY] * len(eqn.outvars)
        else:
            sub = next((eqn.params[k] for k in _NESTED if k in eqn.params), None)
            sub = _open(sub) if sub is not None else None
            if sub is not None and len(sub.invars) == len(ins) and \
                    len(sub.outvars) == len(eqn.outvars):
                outs = [_EMPTY.union(*(ins[k] for k in d)) for d in jaxpr_deps(sub, cut)]
            else:   # loops, conditionals, ...: every output on every input
                every = _EMPTY.union(*ins)
                outs = [every] * len(eqn.outvars)
        for v, d in zip(eqn.outvars, outs):
            env[v] = d if _inexact(v.aval) else _EMPTY
    return [env.get(v, _EMPTY) if isinstance(v, _core.Var) else _EMPTY for v in jaxpr.outvars]


def _abstract(v):
    # Shapes and dtypes only: values may be pending (fused mode) or traced.
    if type(v) is Pending:
        shape, dtype, weak = v.aval
        return jax.ShapeDtypeStruct(shape, dtype, weak_type=weak)
    if isinstance(v, (jax.Array, jax.core.Tracer)):
        a = jax.typeof(v)
        return jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
    return v


def function_deps(fn, vals, cut=_CUT):
    """``jaxpr_deps`` of ``fn(*vals)`` (vals: arrays, pending values or Python
    scalars); None where ``fn`` cannot be traced (then every input counts)."""
    try:
        closed = jax.make_jaxpr(fn)(*[_abstract(v) for v in vals])
    except Exception:
        return None
    return tuple(jaxpr_deps(closed.jaxpr, cut))


def of(op):
    """The deps of a recorded op (``_primitive``'s op tuple): None for "every
    output on every input", NO_GRADIENT, or one frozenset of input positions per
    flat output. Computed once per kind, from the values of its first replay.
    A function with the attribute ``one_op`` is one op in TF as well."""
    kind, _, vals, _, _, _, _ = op
    if kind is None:                # custom_gradient: grad_fn decides
        return None
    d = kind.deps
    if d is None:
        d = (function_deps(kind.apply, vals) if kind.traceable else None) or _ALL
        if d is not _ALL and getattr(kind.fn, "one_op", False):
            # One op in TF too (a tf.function call): its backward function gets
            # zeros for outputs without a gradient, so every output reaches the
            # inputs that any output depends on.
            every = _EMPTY.union(*d)
            d = tuple(every for _ in d)
        if d is not _ALL and all(len(x) == len(vals) for x in d):
            d = _ALL         # the common case: replays then skip the per-op check
        kind.deps = d
    return None if d is _ALL else d


_ALL = ("all",)


def receiving(deps, cts, diff):
    """The positions of ``diff`` that some output with a cotangent (``cts[j]`` not
    None) depends on."""
    if deps is None:
        return diff
    if deps is NO_GRADIENT:
        return ()
    live = _EMPTY.union(*(deps[j] for j, c in enumerate(cts) if c is not None and j < len(deps)))
    return tuple(i for i in diff if i in live)


def tie(t, values):
    """``t``, made to read ``values`` in its jaxpr, with no effect on its value or
    derivative: how a TF gradient op that reads forward values (a tf.function's
    backward, a JVP built from a backward function) is connected to them."""
    if not values:
        return t
    # Times a one that reads the values: linear in t, so it survives
    # transposition (a reverse-mode gradient of t reads them too).
    s = sum(jnp.sum(v).astype(t.dtype) for v in values)
    return t * _one(s)


@jax.custom_jvp
def _one(s):
    """1, reading ``s``; its derivative is 0, reading ``s`` again (at every order)."""
    return jnp.where(True, jnp.ones((), s.dtype), s)


@_one.defjvp
def _one_jvp(primals, tangents):
    (s,), (ts,) = primals, tangents
    return _one(s), jnp.where(True, jnp.zeros((), s.dtype), ts * _one(s))


def reading_inputs(f):
    """``f`` whose derivative reads its (floating array) inputs, as TF's gradient
    op of it does, where JAX's need not (``tie``)."""
    def g(*args, **kwargs):
        if not any(_inexact(a) for a in args):
            return f(*args, **kwargs)        # nothing to differentiate (and f's checks stay)
        h = jax.custom_jvp(lambda *a: f(*a, **kwargs))

        @h.defjvp
        def jvp(primals, tangents):
            y, ty = jax.jvp(lambda *a: f(*a, **kwargs), primals, tangents)
            return y, tie(ty, [p for p in primals if _inexact(p)])
        return h(*args)
    g.__name__ = getattr(f, "__name__", "reading_inputs")
    return g
