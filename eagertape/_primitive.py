"""The one choke point: every recorded call goes through `call`.

`call` unwraps Tensors (reading Variables), runs the JAX function, wraps the
result, and appends one `_Op` to each recording tape that tracks a floating
input. No gradient rules live here: replay asks `jax.vjp` for every pullback.
"""
import functools
import itertools

import jax
import numpy as np
from jax.tree_util import tree_flatten, tree_unflatten

from ._state import state
from ._tensor import Tensor, _TensorLike, _wrap

_seq = itertools.count()
_inexact_cache: dict = {}


def is_inexact(dtype):
    r = _inexact_cache.get(dtype)
    if r is None:
        r = _inexact_cache[dtype] = bool(np.issubdtype(dtype, np.inexact)) or dtype == jax.numpy.bfloat16
    return r


def _is_tl(x):
    return isinstance(x, _TensorLike)


# Leaves that are values (traced in a replay) rather than static configuration.
_DYNAMIC_SCALARS = (float, complex, np.ndarray, np.generic, jax.Array)


class _Op:
    """One recorded call: the function, its flattened arguments and its outputs.

    The same record may sit on several tapes; each tape's node map decides which
    of its inputs are connected there. Holding inputs and outputs keeps their ids
    unique while the tape lives.
    """

    __slots__ = ("seq", "fn", "treedef", "leaves", "inputs", "outputs", "out_treedef",
                 "out_inexact", "custom", "_sig", "_dyn", "name")

    def __init__(self, fn, treedef, leaves, inputs, outputs, out_treedef, out_inexact,
                 custom=None, name=None):
        self.seq = next(_seq)
        self.fn = fn
        self.treedef = treedef
        self.leaves = leaves
        self.inputs = inputs          # positions of floating Tensor leaves
        self.outputs = outputs        # flat output leaves (Tensors)
        self.out_treedef = out_treedef
        self.out_inexact = out_inexact  # positions of floating outputs (the tracked ones)
        self.custom = custom          # backward of a custom_gradient op, else None
        self._sig = False
        self._dyn = None
        self.name = name or getattr(fn, "__name__", type(fn).__name__)

    @property
    def sig(self):
        """Hashable structure of the call (function, static args, input avals), or None."""
        if self._sig is False:
            self._sig = None
            if self.custom is None:
                keys = []
                for leaf in self.leaves:
                    if type(leaf) is Tensor:
                        v = leaf._value
                        keys.append((v.shape, v.dtype, v.weak_type))
                    elif isinstance(leaf, (float, complex)):
                        keys.append(type(leaf))
                    elif isinstance(leaf, _DYNAMIC_SCALARS):
                        keys.append(("const", np.shape(leaf), np.result_type(leaf)))
                    elif isinstance(leaf, slice):
                        keys.append(("slice", leaf.start, leaf.stop, leaf.step))
                    else:
                        keys.append(leaf)
                # id(fn), not fn: jnp ufuncs hash in Python (~4 us). Safe, since a
                # cached replay holds its ops' functions, so no id is reused under it.
                sig = (id(self.fn), self.treedef, tuple(keys))
                try:
                    hash(sig)
                    self._sig = sig
                except TypeError:
                    pass
        return self._sig

    def dynamic_positions(self):
        """Positions of the leaves a replay passes as values (computed once per op)."""
        if self._dyn is None:
            self._dyn = tuple(i for i, leaf in enumerate(self.leaves)
                              if type(leaf) is Tensor or isinstance(leaf, _DYNAMIC_SCALARS))
        return self._dyn


def call(fn, args, kwargs=None, *, constant_output=False):
    """Run ``fn(*args, **kwargs)`` on unwrapped values and record it on the tapes.

    ``constant_output=True`` marks functions whose result is a constant for the
    tape even when it is floating (TF registers no gradient for floor, round, ...).
    """
    leaves, treedef = tree_flatten((args, kwargs if kwargs is not None else {}), is_leaf=_is_tl)
    vals = list(leaves)
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, _TensorLike):
            if type(leaf) is not Tensor:
                leaf = leaves[i] = leaf.read_value()
            vals[i] = leaf._value
    a, k = tree_unflatten(treedef, vals)
    out = fn(*a, **k)
    outs, out_treedef = tree_flatten(out)
    for j, o in enumerate(outs):
        if isinstance(o, jax.Array):
            outs[j] = _wrap(o)
    tapes = state.tapes
    if tapes and not constant_output:
        _record(fn, treedef, leaves, outs, out_treedef, tapes)
    return tree_unflatten(out_treedef, outs)


def _record(fn, treedef, leaves, outs, out_treedef, tapes, custom=None, name=None):
    inputs = [i for i, leaf in enumerate(leaves)
              if type(leaf) is Tensor and is_inexact(leaf._value.dtype)]
    if not inputs:
        return None
    out_idx = [j for j, o in enumerate(outs) if type(o) is Tensor and is_inexact(o._value.dtype)]
    if not out_idx:
        return None
    op = None
    for tape in tapes:
        nodes = tape._tape.nodes
        for i in inputs:
            if id(leaves[i]) in nodes:
                break
        else:
            continue
        if op is None:
            op = _Op(fn, treedef, leaves, inputs, outs, out_treedef, out_idx, custom, name)
        for j in out_idx:
            nodes[id(outs[j])] = (op, j)
    return op


def is_tracked(t):
    """Whether any tape recording on this thread tracks Tensor ``t``."""
    key = id(t)
    return any(key in tape._tape.nodes for tape in state.tapes)


def primitive(fn, *, constant_output=False, name=None):
    """Wrap a JAX function so that calls on Tensors are recorded.

    >>> softplus = et.primitive(jax.nn.softplus)
    >>> softplus(et.constant(0.0))
    <eagertape.Tensor: shape=(), dtype=float32, numpy=array(0.6931472, dtype=float32)>
    """
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        return call(fn, args, kwargs, constant_output=constant_output)
    wrapped.__wrapped__ = fn
    if name:
        wrapped.__name__ = name
    return wrapped


def stop_gradient(input, name=None):
    """A Tensor with ``input``'s value that no tape connects to anything.

    >>> with et.GradientTape() as tape:
    ...     y = et.stop_gradient(v) * v      # v = Variable(3.0)
    >>> tape.gradient(y, v)                 # only the second factor: 3.0
    """
    leaves, treedef = tree_flatten(input, is_leaf=_is_tl)
    out = []
    for leaf in leaves:
        if isinstance(leaf, _TensorLike):
            leaf = leaf._peek()
        elif not isinstance(leaf, jax.Array):
            from ._tensor import convert_to_tensor
            leaf = convert_to_tensor(leaf)._value
        # lax.stop_gradient too, so code traced by JAX (eagertape.function) also stops.
        out.append(_wrap(jax.lax.stop_gradient(leaf)))
    return tree_unflatten(treedef, out)
