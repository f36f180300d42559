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
from __future__ import annotations

import logging
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import tree_flatten, tree_unflatten

from . import _connected, _primitive
from ._logging import log_first_n
from ._cache import Table
from ._dtypes import is_inexact
from ._operators import convert_to_tensor
from ._primitive import call
from ._state import local, nesting, remove_last, switched, x64
from ._tape import UnconnectedGradients, _unconnected
from ._tensor import Tensor, _TensorLike, _wrap, is_leaf, standin
from ._variables import Variable

_jvps = Table("jvps", 4096)   # (kind id, positions with tangents, extra) -> jvp
_ARRAYS = (Tensor, np.ndarray, np.generic, jax.Array)   # operands TF makes tensor inputs


class ForwardAccumulator:
    """Forward-mode autodiff: ``jvp(y)`` is the directional derivative of ``y``
    along ``tangents`` at ``primals`` (as ``tf.autodiff.ForwardAccumulator``).

    >>> import eagertape as et
    >>> from eagertape import numpy as tnp
    >>> x = et.constant([1.0, 2.0])
    >>> with et.ForwardAccumulator(x, et.constant([1.0, 0.0])) as acc:
    ...     y = tnp.sum(x ** 3)
    >>> acc.jvp(y)                      # 3 * 1**2
    <tf.Tensor: shape=(), dtype=float32, numpy=3.0>

    Hessian-vector product, forward over backward:

    >>> v = et.Variable([1.0, 2.0])
    >>> with et.ForwardAccumulator(v, et.constant([1.0, 0.0])) as acc:
    ...     with et.GradientTape() as tape:
    ...         y = tnp.sum(v ** 3)
    ...     g = tape.gradient(y, v)
    >>> acc.jvp(g).numpy()              # the Hessian diag(6 v) times [1, 0]
    array([6., 0.], dtype=float32)
    """

    @x64
    def __init__(self, primals: Any, tangents: Any) -> None:
        p_leaves, p_tree = tree_flatten(primals, is_leaf=is_leaf)
        try:   # a tangent may be any array-like where its primal is a leaf
            t_leaves = p_tree.flatten_up_to(tangents)
        except (ValueError, TypeError):
            raise ValueError(f"arguments `primals` and `tangents` must have the same structure; "
                             f"`primals` is {p_tree}, `tangents` {tangents!r}") from None
        self._tangents = {}      # id(tensor) -> (tensor, tangent Tensor)
        self._variables = {}     # id(variable) -> (variable, tangent Tensor)
        self._recording = False
        self._nesting = None
        seen = set()
        for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
            p = standin(p)
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
                    convert_to_tensor(t._value if isinstance(t, _TensorLike) else t, dtype=dtype)
            except (TypeError, ValueError) as e:
                raise type(e)(f"argument `tangents`[{i}]: {e}") from None
            if tan.shape != p.shape:
                raise ValueError(f"argument `tangents`[{i}] has shape {tan.shape} but its primal "
                                 f"has shape {p.shape}")
            if isinstance(p, Variable):
                p = p._of        # an alias (what assign returns) is its Variable
                self._variables[id(p)] = (p, tan)
            else:
                self._tangents[id(p)] = (p, tan)

    def __enter__(self) -> ForwardAccumulator:
        if self._recording:
            raise ValueError("Accumulator is already recording.")
        self._nesting = next(nesting)
        local.state.accumulators.append(self)
        self._recording = True
        return self

    def __exit__(self, typ: Any, value: Any, traceback: Any) -> None:
        if self._recording:
            remove_last(local.state.accumulators, self)
            self._recording = False

    @x64
    def jvp(self, primals: Any,
            unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
            ) -> Any:
        """The JVPs of ``primals`` (a Tensor or nest) computed so far: None (or
        zeros with ``unconnected_gradients="zero"``) where there is none.

        It only looks up; JVPs are computed as ops run while the accumulator is active.

        >>> import eagertape as et
        >>> x, c = et.constant(2.0), et.constant(5.0)
        >>> with et.ForwardAccumulator(x, et.constant(1.0)) as acc:
        ...     y = x * x
        >>> float(acc.jvp(y))               # d(x*x) along 1: 2 x
        4.0
        >>> print(acc.jvp(c))               # c does not depend on x
        None
        >>> float(acc.jvp(c, unconnected_gradients="zero"))
        0.0
        """
        zero = _unconnected(unconnected_gradients) is UnconnectedGradients.ZERO
        leaves, tree = tree_flatten(primals, is_leaf=is_leaf)
        out = []
        for i, p in enumerate(leaves):
            p = standin(p)
            if not isinstance(p, _TensorLike):
                raise TypeError(f"argument `primals`[{i}] of ForwardAccumulator.jvp must be a "
                                f"Tensor or Variable, got {type(p).__name__}")
            table = self._variables if isinstance(p, Variable) else self._tangents
            q = p._of if isinstance(p, Variable) else p
            t = _tangent_of(table, q)
            if t is None and zero:
                v = p._value
                t = _wrap(jnp.zeros(v.shape, v.dtype))
            out.append(t)
        return tree_unflatten(tree, out)

    # -- called by the primitive wrapper and by Variable reads ------------------------
    def _on_read(self, v, t):
        tangent = _tangent_of(self._variables, v)
        if tangent is not None:
            self._tangents[id(t)] = (t, tangent)

    def _carry(self, old, new):
        # custom_gradient's fresh output Tensors keep the tangents of f's results.
        tangent = _tangent_of(self._tangents, old)
        if tangent is not None:
            self._tangents[id(new)] = (new, tangent)

    def _tracks(self, t):
        """Whether Tensor ``t`` has a tangent here."""
        return _tangent_of(self._tangents, t) is not None

    def _paused(self):
        """The thread's stacks as they were outside this accumulator (``with``)."""
        n, st = self._nesting, local.state
        return switched(tapes=[t for t in st.tapes if t._nesting < n],
                        accumulators=[a for a in st.accumulators if a._nesting < n])


def _tangent_of(table, x):
    """The tangent ``table`` holds for ``x``, or None. Tables map ``id(x)`` to
    ``(x, tangent)``: the entry keeps ``x`` alive, so its id names it alone."""
    e = table.get(id(x))
    if e is None:
        return None
    owner, tangent = e
    return tangent if owner is x else None


def _on_op(kind, objs, outs):
    """Forward the tangents of one call to its outputs, for each active accumulator."""
    for acc in list(local.state.accumulators):
        tans = acc._tangents
        pos, tan_in = [], []
        for i, o in enumerate(objs):
            if type(o) is Tensor:
                tangent = _tangent_of(tans, o)
                if tangent is not None:
                    pos.append(i)
                    tan_in.append(tangent)
        if not pos:
            continue
        with acc._paused():
            extra = ()
            if local.state.tapes:
                # A tape records this JVP: TF builds it by transposing the op's
                # backward function with zero tangents for the other floating
                # inputs, so it reads the inputs that function reads (x * 0).
                extra = tuple(i for i, o in enumerate(objs) if i not in pos and (
                    type(o) in (float, int) or (isinstance(o, _ARRAYS) and is_inexact(
                        o._aval().dtype if type(o) is Tensor else o.dtype))))
            out_tans = call(_jvp_fn(kind, tuple(pos), extra, objs, tan_in), (list(objs), tan_in),
                            jit=False, name=f"{kind.name}_jvp")
        for o, t in zip(outs, out_tans):
            if t is not None and type(o) is Tensor:
                tans[id(o)] = (o, t)


def _abstract_like(v):
    a = _connected._abstract(v) if not isinstance(v, jax.ShapeDtypeStruct) else v
    if isinstance(a, (float, complex)):
        a = _primitive._device_scalar(a)
    return jax.ShapeDtypeStruct(jnp.shape(a), jnp.result_type(a),
                                weak_type=getattr(a, "weak_type", False))


def _jvp_fn(kind, pos, extra, objs, tan_in):
    """The JVP of ``kind`` along the tangents at ``pos``. Its outputs are None where
    they do not depend on those tangents (TF's forward mode transposes the
    backward function: sign, ones_like), and read the inputs TF's JVP would read
    with zero tangents at ``extra`` (see _on_op)."""
    key = (kind.id, pos, extra)
    fn = _jvps.get(key)
    if fn is None:
        def tangents(at):
            def f(vals, tans):
                _, out = jax.jvp(kind.at(vals, at), tuple(vals[i] for i in at), tuple(tans))
                return tree_flatten(out)[0]
            return f

        # Read off the jaxpr of the JVP with every floating input moving (not run:
        # a zero tangent can meet an infinite derivative).
        vals = [o._aval() if isinstance(o, Tensor) else
                jax.ShapeDtypeStruct(np.shape(o), o.dtype) if isinstance(o, (np.ndarray, np.generic)) else
                jax.ShapeDtypeStruct((), np.float32, weak_type=True) if type(o) is int and extra
                else o for o in objs]
        zeros = [_abstract_like(vals[i]) for i in extra]
        full = tangents(pos + extra)
        n, m = len(vals), len(pos)
        deps = _connected.function_deps(lambda *a: full(a[:n], a[n:]),
                                        vals + [t._aval() for t in tan_in] + zeros)
        if deps is None:
            keep, reads = None, None
        else:
            keep = [any(n <= i < n + m for i in d) for d in deps]
            reads = [tuple(sorted(i for i in d if i < n)) for d in deps]
            if not extra:
                reads = None
            if getattr(kind.fn, "one_op", False):
                # One op in TF (a tf.function call) with a tangent among its inputs:
                # the outputs that do not depend on those inputs at all get zeros;
                # those computed from them only through ops without a gradient
                # (sign, stop_gradient) get none.
                raw = _connected.function_deps(kind.apply, vals, cut=())
                if raw is not None:
                    keep = [k or not (raw[j] & set(pos)) for j, k in enumerate(keep)]
        real = tangents(pos)

        def jvp(vals, tans):
            out = []
            for j, t in enumerate(real(vals, tans)):
                if t.dtype == jax.dtypes.float0 or not is_inexact(t.dtype) or \
                        (keep is not None and not keep[j]):
                    out.append(None)
                elif reads is not None and reads[j]:
                    out.append(_connected.tie(t, [vals[i] for i in reads[j]]))
                else:
                    out.append(t)
            return out
        jvp.__name__ = f"{kind.name}_jvp"
        fn = jax.jit(jvp) if kind.traceable else jvp
        _jvps.put(key, fn)
    return fn


# The primitive wrapper reaches this through the accumulator on the thread's stack
# (it cannot import this module, which imports it).
ForwardAccumulator._on_call = staticmethod(x64(_on_op))
