"""custom_gradient in TensorFlow's form: ``f`` returns ``(y, grad_fn)``."""
import functools
import inspect

import jax
from jax.tree_util import tree_flatten, tree_unflatten

from ._primitive import _is_tl, _record
from ._state import state
from ._tensor import Tensor, _TensorLike, _wrap, convert_to_tensor
from ._variables import Variable


def custom_gradient(f=None):
    """Decorate ``f`` whose body returns ``(y, grad_fn)``; ``grad_fn(upstream)`` gives
    one gradient per input (None allowed), replacing the recorded ops' gradient.

    If ``f`` reads Variables, ``grad_fn(upstream, variables=None)`` must return
    ``(input_grads, variable_grads)``.

    >>> @et.custom_gradient
    ... def log1pexp(x):
    ...     e = tnp.exp(x)
    ...     def grad(upstream):
    ...         return upstream * (1 - 1 / (1 + e))
    ...     return tnp.log(1 + e), grad
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
    # The forward runs with no tape recording (its ops are replaced by grad_fn),
    # but a tape entered inside f records normally, and Variable reads are noted.
    read = []
    # ForwardAccumulators do see f's ops: forward mode differentiates the
    # forward computation, not grad_fn (as TF does).
    saved, state.tapes = state.tapes, []
    state.var_watchers.append(read)
    try:
        pair = f(*args, **kwargs)
    finally:
        state.var_watchers.remove(read)
        state.tapes = saved
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
        raise TypeError(f"custom_gradient function {f.__name__!r} must return a pair "
                        f"(result, grad_fn), got {type(pair).__name__}")
    result, grad_fn = pair
    if not callable(grad_fn):
        raise TypeError(f"custom_gradient function {f.__name__!r} must return (result, grad_fn) "
                        f"with a callable grad_fn, got {type(grad_fn).__name__}")

    arg_leaves, _ = tree_flatten(args, is_leaf=_is_tl)
    seen, variables = set(), []
    for v in sorted(read, key=lambda v: v._uid):
        if id(v) not in seen and all(v is not a for a in arg_leaves):
            seen.add(id(v))
            variables.append(v)
    if variables and not _accepts_variables(grad_fn):
        raise TypeError("@custom_gradient grad_fn must accept keyword argument 'variables', "
                        f"since function uses variables: {variables}")

    out_leaves, out_tree = tree_flatten(result, is_leaf=_is_tl)
    outs = []
    for o in out_leaves:
        inner = o
        if isinstance(o, _TensorLike):
            o = o._peek()
        elif not isinstance(o, jax.Array):
            o = convert_to_tensor(o)._value
        outs.append(_wrap(o))   # fresh identities: their producer is this op alone
        for acc in state.accumulators:
            acc._carry(inner, outs[-1])

    # Inputs of the recorded op: the flat args (Variables read once here, with the
    # tapes back on, so they are auto-watched), then the variables f read.
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
        flat, _ = tree_flatten(in_grads, is_leaf=lambda x: x is None or _is_tl(x))
        if len(flat) != n_args:
            raise ValueError(f"custom_gradient function expected to return {n_args} gradients, "
                             f"but returned {len(flat)} instead.")
        grads = []
        for i, (g, x) in enumerate(zip(flat + var_grads, inputs)):
            grads.append(None if g is None or not isinstance(x, Tensor) else _checked(g, x, i, f))
        return grads   # one per input position of the recorded op

    if state.tapes:
        vals = [x._value if isinstance(x, Tensor) else x for x in inputs]
        _record(None, inputs, vals, outs, state.tapes, custom=backward, name=f.__name__)
    return tree_unflatten(out_tree, outs)


def _checked(g, x, i, f):
    if not isinstance(g, _TensorLike):
        g = convert_to_tensor(g, dtype=x.dtype)
    elif not isinstance(g, Tensor):
        g = g.read_value()
    if g.shape != x.shape:
        raise ValueError(f"custom_gradient function {f.__name__!r}: gradient {i} has shape "
                         f"{g.shape} but its input has shape {x.shape}")
    return g
