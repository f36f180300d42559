"""ForwardAccumulator: forward-mode JVPs, as ``tf.autodiff.ForwardAccumulator``.

While an accumulator is active, every call through the primitive wrapper
whose inputs have tangents also runs that call's ``jax.jvp`` (compiled per op
kind). The JVP is itself a call through the wrapper, made with this
accumulator and everything entered after it paused: accumulators and tapes
entered earlier record it, so ``outer.jvp(inner.jvp(y))`` is a second
derivative and a tape around the accumulator differentiates its JVPs
(forward-over-backward Hessian-vector products come from an accumulator
around a tape).
"""
import logging

import jax
import jax.numpy as jnp
from jax.tree_util import tree_flatten, tree_unflatten

from . import _connected, _primitive
from ._logging import log_first_n
from ._primitive import _is_tl, call, is_inexact
from ._state import remove_last, state
from ._tape import UnconnectedGradients, _unconnected
from ._tensor import Tensor, _TensorLike, _wrap, convert_to_tensor
from ._variables import Variable

_jvps: dict = {}    # (kind id, positions with tangents) -> compiled jvp


def _is_leaf(x):
    return x is None or _is_tl(x)


class ForwardAccumulator:
    """Forward-mode autodiff: ``jvp(y)`` is the directional derivative of ``y``
    along ``tangents`` at ``primals`` (as ``tf.autodiff.ForwardAccumulator``).

    >>> x = et.constant([1.0, 2.0])
    >>> with et.ForwardAccumulator(x, et.constant([1.0, 0.0])) as acc:
    ...     y = tnp.sum(x ** 3)
    >>> acc.jvp(y)                      # 3 * 1**2
    <eagertape.Tensor: shape=(), dtype=float32, numpy=array(3., dtype=float32)>

    Hessian-vector product, forward over backward:

    >>> with et.ForwardAccumulator(v, et.constant([1.0, 0.0])) as acc:
    ...     with et.GradientTape() as tape:
    ...         y = tnp.sum(v ** 3)
    ...     g = tape.gradient(y, v)
    >>> acc.jvp(g)                      # [6., 0.] for v = [1, 2]
    """

    def __init__(self, primals, tangents):
        p_leaves, p_tree = tree_flatten(primals, is_leaf=_is_leaf)
        try:   # a tangent may be any array-like where its primal is a leaf
            t_leaves = p_tree.flatten_up_to(tangents)
        except (ValueError, TypeError):
            raise ValueError(f"arguments `primals` and `tangents` must have the same structure; "
                             f"`primals` is {p_tree}, `tangents` {tangents!r}") from None
        self._tangents = {}      # id(tensor) -> (tensor, tangent Tensor)
        self._variables = {}     # id(variable) -> (variable, tangent Tensor)
        self._recording = False
        self._outer = ()
        seen = set()
        for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
            if not isinstance(p, _TensorLike):
                raise TypeError(f"argument `primals`[{i}] must be an eagertape.Tensor or "
                                f"Variable, got {type(p).__name__}; convert it with "
                                "eagertape.constant first")
            if id(p) in seen:
                raise ValueError("Tensor {} was specified as a primal multiple times. This may "
                                 "indicate an error. If it was intended, please sum the "
                                 "corresponding tangents.")
            seen.add(id(p))
            dtype = p._aval().dtype
            if not is_inexact(dtype):
                log_first_n(logging.WARNING, "The dtype of the watched primal must be floating "
                            "(e.g. tf.float32), got %s", 5, dtype.name)
                continue
            try:
                tan = t if isinstance(t, Tensor) and t.dtype == dtype else \
                    convert_to_tensor(t._peek() if isinstance(t, _TensorLike) else t, dtype=dtype)
            except (TypeError, ValueError) as e:
                raise type(e)(f"argument `tangents`[{i}]: {e}") from None
            if tan.shape != p.shape:
                raise ValueError(f"argument `tangents`[{i}] has shape {tan.shape} but its primal "
                                 f"has shape {p.shape}")
            (self._variables if isinstance(p, Variable) else self._tangents)[id(p)] = (p, tan)

    def __enter__(self):
        if self._recording:
            raise ValueError("Accumulator is already recording.")
        self._outer = (tuple(state.tapes), tuple(state.accumulators))
        state.accumulators.append(self)
        self._recording = True
        return self

    def __exit__(self, typ, value, traceback):
        if self._recording:
            remove_last(state.accumulators, self)
            self._recording = False

    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """The JVPs of ``primals`` (a Tensor or nest) computed so far: None (or
        zeros with ``unconnected_gradients="zero"``) where there is none.

        It only looks up; JVPs are computed as ops run while the accumulator is active.
        """
        zero = _unconnected(unconnected_gradients) is UnconnectedGradients.ZERO
        leaves, tree = tree_flatten(primals, is_leaf=_is_leaf)
        out = []
        for i, p in enumerate(leaves):
            if not isinstance(p, _TensorLike):
                raise TypeError(f"argument `primals`[{i}] of ForwardAccumulator.jvp must be a "
                                f"Tensor or Variable, got {type(p).__name__}")
            table = self._variables if isinstance(p, Variable) else self._tangents
            e = table.get(id(p))
            t = e[1] if e is not None and e[0] is p else None
            if t is None and zero:
                v = p._peek()
                t = _wrap(jnp.zeros(v.shape, v.dtype))
            out.append(t)
        return tree_unflatten(tree, out)

    # -- called by the primitive wrapper and by Variable reads ------------------------
    def _on_read(self, v, t):
        e = self._variables.get(id(v))
        if e is not None and e[0] is v:
            self._tangents[id(t)] = (t, e[1])

    def _carry(self, old, new):
        # custom_gradient's fresh output Tensors keep the tangents of f's results.
        e = self._tangents.get(id(old))
        if e is not None and e[0] is old:
            self._tangents[id(new)] = (new, e[1])

    def _paused(self):
        """Set the thread's stacks to what was active outside this accumulator."""
        tapes, accs = self._outer
        saved = state.tapes, state.accumulators
        state.tapes = [t for t in saved[0] if any(t is o for o in tapes)]
        state.accumulators = [a for a in saved[1] if any(a is o for o in accs)]
        return saved


def _on_op(kind, objs, outs):
    """Forward the tangents of one call to its outputs, for each active accumulator."""
    for acc in list(state.accumulators):
        tans = acc._tangents
        pos, tan_in = [], []
        for i, o in enumerate(objs):
            if type(o) is Tensor:
                e = tans.get(id(o))
                if e is not None and e[0] is o:
                    pos.append(i)
                    tan_in.append(e[1])
        if not pos:
            continue
        saved = acc._paused()
        try:
            out_tans = call(_jvp_fn(kind, tuple(pos), objs, tan_in), (list(objs), tan_in),
                            jit=False, name=f"{kind.name}_jvp")
        finally:
            state.tapes, state.accumulators = saved
        for o, t in zip(outs, out_tans):
            if t is not None and type(o) is Tensor:
                tans[id(o)] = (o, t)


def _jvp_fn(kind, pos, objs, tan_in):
    key = (kind.id, pos)
    fn = _jvps.get(key)
    if fn is None:
        def tangents(vals, tans):
            _, out = jax.jvp(kind.at(vals, pos), tuple(vals[i] for i in pos), tuple(tans))
            return tree_flatten(out)[0]

        # TF's forward mode transposes the op's backward function: a tangent
        # that does not depend on the input tangents (sign, ones_like) is None.
        vals = [o._aval() if isinstance(o, Tensor) else o for o in objs]
        deps = _connected.function_deps(lambda *a: tangents(a[:len(vals)], a[len(vals):]),
                                        vals + [t._aval() for t in tan_in])
        moving = range(len(vals), len(vals) + len(tan_in))
        keep = None if deps is None else [any(i in d for i in moving) for d in deps]
        if keep is not None and getattr(kind.fn, "one_op", False):
            keep = [any(keep)] * len(keep)     # one op in TF: zeros for the others

        def jvp(vals, tans):
            flat = tangents(vals, tans)
            return [None if t.dtype == jax.dtypes.float0 or not is_inexact(t.dtype)
                    or (keep is not None and not keep[j]) else t for j, t in enumerate(flat)]
        jvp.__name__ = f"{kind.name}_jvp"
        fn = jax.jit(jvp) if kind.traceable else jvp
        if len(_jvps) >= 4096:
            _jvps.clear()
        _jvps[key] = fn
    return fn


_primitive._forward_hook = _on_op
