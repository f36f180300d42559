"""custom_gradient in TensorFlow's form: ``f`` returns ``(y, grad_fn)``."""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import jax
from jax.tree_util import tree_flatten, tree_unflatten

from ._operators import convert_to_tensor
from ._record import record
from ._state import local
from ._tensor import Cotangent, Tensor, _TensorLike, _wrap, is_leaf, is_tensor_like
from ._variables import Variable


_F = TypeVar("_F", bound=Callable[..., Any])


def dense(g):
    """``g``, or the Tensor a Cotangent stands for."""
    return g.dense() if isinstance(g, Cotangent) else g


def custom_gradient(f: _F | None = None) -> Any:
    """Decorate ``f`` whose body returns ``(y, grad_fn)``; ``grad_fn(upstream)`` gives
    one gradient per input (None allowed), replacing the recorded ops' gradient.

    If ``f`` reads Variables, ``grad_fn(upstream, variables=None)`` must return
    ``(input_grads, variable_grads)``.

    >>> import eagertape as et
    >>> from eagertape import numpy as tnp
    >>> @et.custom_gradient
    ... def log1pexp(x):
    ...     e = tnp.exp(x)
    ...     def grad(upstream):
    ...         return upstream * (1 - 1 / (1 + e))
    ...     return tnp.log(1 + e), grad
    >>> x = et.constant(100.0)
    >>> with et.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = log1pexp(x)
    >>> float(tape.gradient(y, x))        # the recorded ops' gradient would be nan
    1.0
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        return _call_custom(f, args, kwargs)
    return decorated


def _accepts_variables(grad_fn):
    try:
        params = inspect.signature(grad_fn).parameters
    except (TypeError, ValueError):
        return True
    return "variables" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _call_custom(f, args, kwargs):
    if local.state.capture is not None or _under_jax_trace(args, kwargs):
        # Traced by eagertape.function, or by JAX itself (Keras's trainer
        # differentiating a layer's call under fit): a jax.custom_vjp, so JAX's
        # derivative is grad_fn.
        return _traced_custom(f, args, kwargs)
    # As TF's eager decorator: f's ops are recorded on the tapes, then its
    # results are replaced by fresh Tensors that only the custom op produces.
    # So a gradient of the results runs grad_fn, and grad_fn's ops (recorded by
    # outer tapes) see f's values as the functions of the inputs they are:
    # second derivatives differentiate through them. Variable reads are noted.
    read = []
    local.state.var_watchers.append(read)
    try:
        pair = f(*args, **kwargs)
    finally:
        local.state.var_watchers.remove(read)
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
        raise TypeError(f"custom_gradient function {f.__name__!r} must return a pair "
                        f"(result, grad_fn), got {type(pair).__name__}")
    result, grad_fn = pair
    if not callable(grad_fn):
        raise TypeError(f"custom_gradient function {f.__name__!r} must return (result, grad_fn) "
                        f"with a callable grad_fn, got {type(grad_fn).__name__}")

    arg_leaves, _ = tree_flatten(args, is_leaf=is_tensor_like)
    seen, variables = set(), []
    for v in sorted(read, key=lambda v: v._uid):
        if id(v) not in seen and all(v is not getattr(a, "_of", a) for a in arg_leaves):
            seen.add(id(v))
            variables.append(v)
    if variables and not _accepts_variables(grad_fn):
        raise TypeError("@custom_gradient grad_fn must accept keyword argument 'variables', "
                        f"since function uses variables: {variables}")

    out_leaves, out_tree = tree_flatten(result, is_leaf=is_tensor_like)
    outs = []
    for o in out_leaves:
        inner = o
        if isinstance(o, _TensorLike):
            o = o._value
        elif not isinstance(o, jax.Array):
            o = convert_to_tensor(o)._value
        outs.append(_wrap(o))   # fresh identities: their producer is this op alone
        for acc in local.state.accumulators:
            acc._carry(inner, outs[-1])

    # Inputs of the recorded op: the flat args (Variables read once here, so they
    # are auto-watched), then the variables f read.
    inputs = [a.read_value() if isinstance(a, Variable) else a for a in arg_leaves]
    inputs += [v.read_value() for v in variables]
    n_args = len(arg_leaves)

    def backward(upstreams):
        if variables:
            out = grad_fn(*upstreams, variables=variables)
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise ValueError("custom_gradient grad_fn with `variables` must return "
                                 "(input_gradients, variable_gradients)")
            in_grads, var_grads = out
            var_grads = list(var_grads) if isinstance(var_grads, (list, tuple)) else [var_grads]
            if len(var_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from @custom_gradient "
                                 "grad_fn.")
        else:
            in_grads, var_grads = grad_fn(*upstreams), []
        flat, _ = tree_flatten(in_grads, is_leaf=_is_grad_leaf)
        if len(flat) != n_args:
            raise ValueError(f"custom_gradient function expected to return {n_args} gradients, "
                             f"but returned {len(flat)} instead.")
        grads = []
        for i, (g, x) in enumerate(zip(flat + var_grads, inputs)):
            grads.append(None if g is None or not isinstance(x, Tensor) else _checked(g, x, i, f))
        return grads   # one per input position of the recorded op

    if local.state.tapes:
        vals = [x._value if isinstance(x, Tensor) else x for x in inputs]
        record(None, inputs, vals, outs, local.state.tapes, custom=backward, name=f.__name__)
    return tree_unflatten(out_tree, outs)


def _is_grad_leaf(x):
    return is_leaf(x) or isinstance(x, Cotangent)


def _under_jax_trace(args, kwargs):
    st = local.state
    if st.tapes or st.accumulators:
        return False
    for leaf in tree_flatten((args, kwargs), is_leaf=is_tensor_like)[0]:
        v = leaf._value if isinstance(leaf, Tensor) else leaf
        if isinstance(v, jax.core.Tracer):
            return True
    return False


def _checked(g, x, i, f):
    if isinstance(g, Cotangent):
        if tuple(g.shape) != tuple(x.shape):
            raise ValueError(f"custom_gradient function {f.__name__!r}: gradient {i} has "
                             f"dense shape {tuple(g.shape)} but its input has shape "
                             f"{tuple(x.shape)}")
        return g
    if not isinstance(g, _TensorLike):
        g = convert_to_tensor(g, dtype=x.dtype)
    elif not isinstance(g, Tensor):
        g = g.read_value()
    if g.shape != x.shape:
        raise ValueError(f"custom_gradient function {f.__name__!r}: gradient {i} has shape "
                         f"{g.shape} but its input has shape {x.shape}")
    return g


def _traced_custom(f, args, kwargs):
    """custom_gradient inside a trace (eagertape.function): ``jax.custom_vjp``
    over the array arguments. The backward runs ``f`` again on the saved inputs
    to get ``grad_fn`` (a closure over the forward's traced values cannot leave
    the forward), so ``f``'s Python side effects run twice while tracing."""
    leaves, tree = tree_flatten((args, kwargs), is_leaf=is_tensor_like)
    # grad_fn gives one gradient per leaf of the positional arguments (None for
    # a Python number among them, as TF's eager rule): those of arrays are used.
    n_args = len(tree_flatten(args, is_leaf=is_tensor_like)[0])
    pos = [i for i, leaf in enumerate(leaves[:n_args])
           if isinstance(leaf, (_TensorLike, jax.Array))]
    for i in pos:        # a Variable argument is its value (TF converts it too)
        if isinstance(leaves[i], Variable):
            leaves[i] = leaves[i].read_value()

    def run(vals):
        filled = list(leaves)
        for i, v in zip(pos, vals):
            filled[i] = _wrap(v)
        a, k = tree_unflatten(tree, filled)
        read = []
        local.state.var_watchers.append(read)
        try:
            result, grad_fn = f(*a, **k)
        finally:
            local.state.var_watchers.remove(read)
        if read:
            raise NotImplementedError(
                "a custom_gradient function that reads Variables cannot be called inside "
                "eagertape.function / tf.function yet")
        return result, grad_fn

    def unwrap(nest):
        return jax.tree_util.tree_map(lambda t: t._value if is_tensor_like(t) else t, nest,
                                      is_leaf=is_tensor_like)

    @jax.custom_vjp
    def g(vals):
        return unwrap(run(vals)[0])

    def fwd(vals):
        return g(vals), vals

    def bwd(vals, cts):
        result, grad_fn = run(vals)
        flat_cts, _ = tree_flatten(cts)
        grads = grad_fn(*[_wrap(c) for c in flat_cts])
        flat, _ = tree_flatten(grads, is_leaf=_is_grad_leaf)
        flat = [dense(gr) for gr in flat]
        if len(flat) == n_args:
            flat = [flat[i] for i in pos]
        elif len(flat) != len(vals):
            raise ValueError(f"custom_gradient function expected to return {n_args} "
                             f"gradients, but returned {len(flat)} instead.")
        return ([jax.numpy.zeros_like(v) if gr is None else
                 jax.numpy.asarray(gr._value if is_tensor_like(gr) else gr, dtype=v.dtype).reshape(v.shape)
                 for gr, v in zip(flat, vals)],)

    g.defvjp(fwd, bwd)
    out = g([leaves[i]._value if isinstance(leaves[i], _TensorLike) else leaves[i] for i in pos])
    return jax.tree_util.tree_map(_wrap, out)
