"""A dataset function over strings traced once, at ``map()``, whatever sizes its
host ops give.

TF traces a ``Dataset.map`` function (and ``filter``'s predicate) once, when the
transformation is made, on the input's ``element_spec``: its Python (a
``print``, a Python counter, a NumPy draw, an inner ``tf.function``'s trace)
runs then, and each element runs only the graph. A graph's sizes may be unknown
(None): ``tf.io.decode_jpeg`` of a file name's bytes gives ``[None, None, None]``.

eagertape's trace is JAX's, whose sizes are fixed or symbolic. A string element
is traced as handles with host callbacks (``_traced_text``); a host op whose
result's size is the data's (``read_file`` then ``decode_jpeg``) gets *fresh*
symbolic sizes here (``staging``: each such op's result shape comes from
``_RULES``, TF's shape function for it), so the function's Python still runs
once, on the spec. No compiled program can take sizes that only a callback's
result determines, so each element runs the recorded jaxpr with a small
interpreter (``_interpret``): the callbacks run on the element's values, their
results' shapes bind the fresh sizes, and every other equation runs eagerly
with its sizes filled in (an equation without symbolic sizes runs as JAX's
compiled primitive). Where even that trace cannot be made, the caller runs the
function's Python at each element and says so (``_UserFn``).

>>> import eagertape.tf as tf
>>> def load(f):
...     print("traced")
...     return tf.shape(tf.io.decode_png(tf.io.read_file(f)))
>>> ds = tf.data.Dataset.from_tensor_slices(["a.png", "b.png"]).map(load)
traced
"""
import contextlib
import functools
import inspect
import itertools
import threading

import jax
import jax.extend.core as _core
import jax.numpy as jnp
import numpy as np

from .. import extend as _extend
from ..extend import InvalidArgumentError

_local = threading.local()


class NotStaged(Exception):
    """The function cannot be traced once for every element; the reason."""


@contextlib.contextmanager
def staging():
    """While a dataset function is traced on its spec: a host op whose result
    sizes are the data's gives fresh symbolic sizes (``result_specs``)."""
    saved = getattr(_local, "state", None)
    _local.state = (jax.export.SymbolicScope(), itertools.count())
    try:
        yield
    finally:
        _local.state = saved


def active():
    return getattr(_local, "state", None) is not None


def _fresh():
    scope, ids = _local.state
    return jax.export.symbolic_shape(f"_s{next(ids)}", scope=scope)[0]


class Out:
    """A host op's result as TF's shape function gives it: ``shape`` (None where
    the data sets the size), ``dtype``, and whether it is text."""

    def __init__(self, shape, dtype=None, text=False):
        self.shape, self.dtype, self.text = tuple(shape), dtype, text

    def aval(self):
        shape = tuple(_fresh() if d is None else int(d) for d in self.shape)
        return jax.ShapeDtypeStruct(shape, np.int32 if self.text else np.dtype(self.dtype))


def _bound(fn, args, kwargs):
    b = inspect.signature(fn).bind(*args, **kwargs)
    b.apply_defaults()
    return b.arguments


def _np_dtype(d):
    return np.dtype(getattr(d, "as_numpy_dtype", d))


def _image(rank=3):
    def rule(fn, a, shape_of):
        channels = a.get("channels") or None
        if channels is not None and not isinstance(channels, (int, np.integer)):
            channels = None
        dtype = _np_dtype(a.get("dtype", "uint8") or "uint8")
        return Out((None,) * (rank - 1) + (channels,), dtype)
    return rule


def _decode_image(fn, a, shape_of):
    if a.get("expand_animations", True):
        raise NotStaged("tf.io.decode_image with expand_animations=True gives a rank the "
                        "data sets (a GIF's frames); pass expand_animations=False")
    return _image()(fn, a, shape_of)


# TF's shape functions of the host ops whose result sizes are the data's.
_RULES = {
    "read_file": lambda fn, a, shape_of: Out(shape_of(a["filename"]), text=True),
    "decode_base64": lambda fn, a, shape_of: Out(shape_of(a["input"]), text=True),
    "decode_compressed": lambda fn, a, shape_of: Out(shape_of(a["bytes"]), text=True),
    "decode_png": _image(),
    "decode_jpeg": _image(),
    "decode_and_crop_jpeg": _image(),
    "decode_bmp": _image(),
    "decode_webp": _image(),
    "decode_gif": lambda fn, a, shape_of: Out((None, None, None, 3), np.uint8),
    "decode_image": _decode_image,
    "decode_raw": lambda fn, a, shape_of: Out(
        shape_of(a["input_bytes"]) + ((a["fixed_length"] and None),), _np_dtype(a["out_type"])),
    "to_number": lambda fn, a, shape_of: Out(shape_of(a["input"]), _np_dtype(a["out_type"])),
}


# Text a staged host op is run on besides its stand-in's (b""): a result size that
# differs between the two is the data's.
PROBE = b"Probe text, 12 3.5/a_b-c:d\te"


def varying(a, b):
    """``a``, a host op's result on the stand-ins, as an ``Out`` with the sizes that
    differ from ``b`` (its result on ``PROBE``) left to the data, where any does."""
    sa, sb = np.shape(getattr(a, "_v", a)), np.shape(getattr(b, "_v", b))
    if sa == sb:
        return a
    if len(sa) != len(sb):
        raise NotStaged("a host op gives a rank that follows the text")
    text = getattr(a, "_host_only", False)
    dtype = None if text else np.asarray(a.numpy() if hasattr(a, "numpy") else a).dtype
    return Out([x if x == y else None for x, y in zip(sa, sb)], dtype, text=text)


def result_specs(name, fn, args, kwargs):
    """The result of host op ``name`` as ``Out``\\ s (a pytree), or None where its
    result shape follows its inputs' (run on stand-in values, it tells)."""
    rule = _RULES.get(name)
    if rule is None:
        return None

    def shape_of(x):
        return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)
    return rule(fn, _bound(fn, args, kwargs), shape_of)


# -- running the trace: an interpreter that fills in the sizes -------------------------

def _is_sym(d):
    return not isinstance(d, (int, np.integer))


class NotOfSpec(TypeError):
    """An element not of the spec the function was traced on (a spec eagertape
    inferred wrongly): it runs the function's Python, as an untraceable one."""


def _bind_sizes(avals_shape, shape, env, what):
    if what is None and (len(avals_shape) != len(shape) or any(
            not _is_sym(d) and d != n for d, n in zip(avals_shape, shape))):
        raise NotOfSpec(f"an element of shape {list(shape)} for a trace of "
                        f"{list(avals_shape)}")
    for d, n in zip(avals_shape, shape):
        if not _is_sym(d):
            continue
        var = d._to_var()
        if var is not None and var not in env:
            env[var] = int(n)
        elif int(d._evaluate(env)) != int(n):
            raise InvalidArgumentError(f"{what} gave a result of size {n} where its trace "
                                       f"has {d} = {int(d._evaluate(env))}")


def _fill(x, env):
    """``x`` (an equation's parameter) with its symbolic sizes evaluated."""
    if isinstance(x, tuple):
        filled = [_fill(v, env) for v in x]
        return type(x)(*filled) if hasattr(x, "_fields") else type(x)(filled)
    if isinstance(x, list):
        return [_fill(v, env) for v in x]
    if isinstance(x, (_core.ClosedJaxpr, _core.Jaxpr)):
        if _symbolic_jaxpr(x):
            raise NotStaged(f"an inner program of unknown sizes ({type(x).__name__})")
        return x
    if type(x).__name__ == "_DimExpr":
        return int(x._evaluate(env))
    if isinstance(x, jax.core.ShapedArray) and any(_is_sym(d) for d in x.shape):
        return x.update(shape=_fill(x.shape, env))
    if isinstance(x, jax.ShapeDtypeStruct) and any(_is_sym(d) for d in x.shape):
        return jax.ShapeDtypeStruct(_fill(x.shape, env), x.dtype)
    return x


def _symbolic_jaxpr(j):
    jaxpr = j.jaxpr if isinstance(j, _core.ClosedJaxpr) else j
    return any(_symbolic_eqn(e) for e in jaxpr.eqns) or any(
        _is_sym(d) for v in jaxpr.invars for d in getattr(v.aval, "shape", ()))


_EQNS = {}      # id(eqn) -> (eqn, whether it has symbolic sizes): asked at each element


def _symbolic_eqn(eqn):
    got = _EQNS.get(id(eqn))
    if got is None or got[0] is not eqn:
        if len(_EQNS) > 65536:
            _EQNS.clear()
        got = _EQNS[id(eqn)] = (eqn, _symbolic_eqn_now(eqn))
    return got[1]


def _symbolic_eqn_now(eqn):
    for v in itertools.chain(eqn.invars, eqn.outvars):
        if any(_is_sym(d) for d in getattr(v.aval, "shape", ())):
            return True
    for p in eqn.params.values():
        if _has_sym(p):
            return True
    return False


def _has_sym(x):
    if isinstance(x, (tuple, list)):
        return any(_has_sym(v) for v in x)
    if isinstance(x, (_core.ClosedJaxpr, _core.Jaxpr)):
        return _symbolic_jaxpr(x)
    if type(x).__name__ == "_DimExpr":
        return True
    shape = getattr(x, "shape", None)
    return isinstance(shape, tuple) and any(_is_sym(d) for d in shape)


# Calls whose body is a jaxpr run as that body (one by one, its sizes filled in).
_CALLS = {"pjit": "jaxpr", "jit": "jaxpr", "closed_call": "call_jaxpr",
          "core_call": "call_jaxpr", "custom_jvp_call": "call_jaxpr",
          "custom_vjp_call": "call_jaxpr", "custom_vjp_call_jaxpr": "fun_jaxpr",
          "checkpoint": "jaxpr", "remat": "jaxpr"}


def _body(j):
    if isinstance(j, _core.ClosedJaxpr):
        return j.jaxpr, j.consts
    return j, ()


def _eqn(eqn, vals, env):
    name = eqn.primitive.name
    if not _symbolic_eqn(eqn):
        with eqn.ctx.manager:
            out = eqn.primitive.bind(*vals, **eqn.primitive.get_bind_params(eqn.params))
        return out if eqn.primitive.multiple_results else [out]
    if name in _CALLS and _CALLS[name] in eqn.params:
        jaxpr, consts = _body(eqn.params[_CALLS[name]])
        return interpret(jaxpr, consts, vals, env)
    if name == "cond":
        branch = eqn.params["branches"][int(np.asarray(vals[0]))]
        return interpret(branch.jaxpr, branch.consts, vals[1:], env)
    if name == "while":
        p = eqn.params
        cc, bc = p["cond_nconsts"], p["body_nconsts"]
        cconsts, bconsts, carry = vals[:cc], vals[cc:cc + bc], list(vals[cc + bc:])
        while bool(np.asarray(interpret(p["cond_jaxpr"].jaxpr, p["cond_jaxpr"].consts,
                                        cconsts + carry, env)[0])):
            carry = interpret(p["body_jaxpr"].jaxpr, p["body_jaxpr"].consts,
                              bconsts + carry, env)
        return carry
    if name == "pure_callback":
        if getattr(eqn.params["callback"], "callback_func", None) is _same_sizes:
            return vals         # (its sizes are checked as its result's are bound)
        outs = eqn.params["callback"](*[np.asarray(v) for v in vals])
        return [jnp.asarray(o, dtype=v.aval.dtype) for o, v in zip(outs, eqn.outvars)]
    if name == "dim_as_value":
        return [jnp.asarray(int(eqn.params["dim"]._evaluate(env)), eqn.outvars[0].aval.dtype)]
    params = {k: _fill(v, env) for k, v in eqn.params.items()}
    with eqn.ctx.manager:
        out = eqn.primitive.bind(*vals, **eqn.primitive.get_bind_params(params))
    return out if eqn.primitive.multiple_results else [out]


def interpret(jaxpr, consts, args, env, top=False):
    """``jaxpr`` on ``args``, equation by equation, its symbolic sizes ``env``'s
    (bound from the arguments' and the callbacks' shapes as they come)."""
    values = {}

    def read(v):
        return v.val if isinstance(v, _core.Literal) else values[v]

    for v, c in zip(jaxpr.constvars, consts):
        values[v] = c
    for v, a in zip(jaxpr.invars, args):
        _bind_sizes(getattr(v.aval, "shape", ()), np.shape(a), env,
                    None if top else "an argument")
        values[v] = a
    for eqn in jaxpr.eqns:
        outs = _eqn(eqn, [read(v) for v in eqn.invars], env)
        for v, o in zip(eqn.outvars, outs):
            if isinstance(v, _core.DropVar):
                continue
            _bind_sizes(getattr(v.aval, "shape", ()), np.shape(o), env,
                        f"{eqn.primitive.name}")
            values[v] = o
    return [read(v) for v in jaxpr.outvars]


class Staged:
    """A trace of a dataset function made once (``_function``'s ``_Trace``, its
    host ops' sizes fresh symbolic ones) and run on each element's values."""

    def __init__(self, trace):
        if trace.pulls:
            raise NotStaged("it takes elements of an iterator")
        if getattr(trace, "consts", None) is None or any(
                not hasattr(v, "read_value") for v in trace.variables + trace.written):
            raise NotStaged("it takes a Variable as an argument")
        self.trace = trace

    def __call__(self, *args):
        from ._text import StringTensor
        CODEC = StringTensor._host_codec      # (tf/_traced_text's, set at its import)
        trace = self.trace
        leaves = jax.tree_util.tree_leaves(args, is_leaf=lambda x: isinstance(
            x, _extend.TensorLike))
        vals = [leaf._value if not getattr(leaf, "_host_only", False) else leaf
                for leaf in leaves]
        call_id = CODEC.begin() if trace.hosts else None
        try:
            if trace.hosts:
                vals = [CODEC.encode(v, call_id) if k in trace.hosts else v
                        for k, v in enumerate(vals)] + [np.int32(call_id)]
            consts = list(trace.consts)
            for i, v in zip(trace.var_pos, trace.variables):
                consts[i] = v.read_value()._value
            flat = interpret(trace.jaxpr, consts, [jnp.asarray(v) for v in vals], {}, top=True)
            n = len(flat) - len(trace.written)
            for v, new in zip(trace.written, flat[n:]):
                v._val = new
            if trace.jaxpr.effects:
                jax.effects_barrier()
            arrays = flat[:n]
            return trace.outputs([_extend.wrap(a) for a in arrays], call_id)
        except jax.errors.JaxRuntimeError as e:
            orig = _extend.host_error_original(e)
            if orig is None:
                raise
            raise orig from None
        finally:
            if call_id is not None:
                CODEC.end(call_id)


# -- sizes TF leaves unknown but JAX cannot prove equal --------------------------------

def _same_sizes(x):
    """The identity, as a host callback whose result's sizes are declared equal to
    another value's (``_unify``): the interpreter checks them at each element."""
    return x


def _same(a, b):
    try:
        return bool(a == b)
    except Exception:           # noqa: BLE001  (inconclusive: not known equal)
        return False


def _unify(vals):
    """``vals`` of a call that failed while a dataset function is staged, each array's
    symbolic sizes made those of the first array of its rank where both are
    symbolic and differ (TF's shape inference merges two unknown sizes; the
    element's values must agree, as TF's kernel checks); None if none changes."""
    if not active():
        return None
    first, out, changed = {}, list(vals), False
    for i, v in enumerate(vals):
        shape = getattr(v, "shape", None)
        if not isinstance(shape, tuple) or not any(_is_sym(d) for d in shape):
            continue
        target = first.setdefault(len(shape), shape)
        new = tuple(t if _is_sym(d) and _is_sym(t) and not _same(d, t) else d
                    for d, t in zip(shape, target))
        if new != shape:
            out[i] = jax.pure_callback(_same_sizes, jax.ShapeDtypeStruct(new, v.dtype), v,
                                       vmap_method="sequential")
            changed = True
    return out if changed else None


def _probe(env_base, names):
    return {n: env_base + 7 * k for k, n in enumerate(sorted(names))}


def _on_host(kind, vals):
    """The call, JAX cannot trace it with these symbolic sizes (a comparison of
    sizes inside it, say): run at each element as a host callback of the
    element's values (the interpreter calls it directly). Its result's sizes are
    found by tracing it at two sets of sizes: a size that stays is a number, one
    that follows an input's size is that size, and any other a fresh one."""
    names = set()
    for v in vals:
        for d in getattr(v, "shape", ()):
            if _is_sym(d):
                names |= d._get_vars()
    if not names:
        return None
    envs = [_probe(61, names), _probe(97, names)]

    def concrete(env):
        return [jax.ShapeDtypeStruct(tuple(int(d._evaluate(env)) if _is_sym(d) else d
                                           for d in v.shape), v.dtype)
                if hasattr(v, "shape") and any(_is_sym(d) for d in v.shape) else v
                for v in vals]
    fn = kind.jitted
    try:
        outs = [jax.eval_shape(fn, *concrete(env)) for env in envs]
    except Exception:           # noqa: BLE001  (not at any size: the call's own error)
        return None
    known = {}
    for v in vals:
        for d in getattr(v, "shape", ()):
            if _is_sym(d):
                known.setdefault(tuple(int(d._evaluate(env)) for env in envs), d)

    def aval(a, b):
        dims = tuple(x if x == y else known.get((x, y)) or _fresh()
                     for x, y in zip(a.shape, b.shape))
        return jax.ShapeDtypeStruct(dims, a.dtype)
    avals = jax.tree_util.tree_map(aval, outs[0], outs[1])

    def host(*arrays):
        return fn(*arrays)
    return jax.pure_callback(host, avals, *vals, vmap_method="sequential")


def _retry(kind, vals):
    if not active() or kind.jitted is None:
        return None
    unified = _unify(vals)
    if unified is not None:
        try:
            return kind.jitted(*unified)
        except Exception:       # noqa: BLE001  (not that: on the host)
            pass
    return _on_host(kind, vals)


def _install():
    _extend.failed_call_retry(_retry)


_install()


def external_state(trace):
    """Whether a staged trace has state outside it, as TF's checkpointing of an
    iterator asks: Variables it writes, or a callback other than a host op's of
    text or this module's (``py_function``, ``tf.print``)."""
    if trace.written:
        return True

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            if "callback" in eqn.primitive.name:
                fn = getattr(eqn.params.get("callback"), "callback_func", None)
                if eqn.primitive.name != "pure_callback" or getattr(
                        fn, "__module__", None) not in (__name__, _TEXT):
                    return True
            for p in eqn.params.values():
                for j in p if isinstance(p, (tuple, list)) else (p,):
                    if isinstance(j, (_core.ClosedJaxpr, _core.Jaxpr)) and walk(_body(j)[0]):
                        return True
        return False
    return walk(trace.jaxpr)


_TEXT = __name__.rsplit(".", 1)[0] + "._traced_text"
