"""eagertape.function: ``tf.function`` on ``jax.jit``.

The Python function runs once per input signature, traced to a jaxpr with no
tape recording (tapes entered inside it record as usual). Variables it reads
become inputs of the compiled call, and the Variables it assigns become
outputs that are written back after the call, so the executable always sees
their current values. Called under a tape the whole function is one recorded
op, whose pullback is the ``jax.vjp`` of the compiled call.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, overload

import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import tree_flatten, tree_unflatten

from ._primitive import call
from ._config import config
from ._state import local, switched, x64
from ._tensor import Tensor, _TensorLike, _wrap, is_tensor_like

_ARRAYS = (jax.Array, np.ndarray, np.generic)
# tf.config.run_functions_eagerly: every function runs as plain Python (debugging).


class _Capture:
    """The Variables one trace touches."""

    def __init__(self):
        self.reads = {}     # id(v) -> (v, the stand-in array of its value at the trace)
        self.current = {}   # id(v) -> value seen by the traced code now
        self.written = {}   # id(v) -> v, in order of first write

    def read(self, v):
        k = id(v)
        val = self.current.get(k)
        if val is None:
            # A fresh array per Variable: two Variables may hold one array, yet
            # each must become its own input of the call.
            with jax.ensure_compile_time_eval():
                val = jnp.array(v._val, copy=True)
            self.reads[k] = (v, val)
            self.current[k] = val
        return val

    def write(self, v, new):
        if isinstance(new, _TensorLike):
            new = new._value
        self.current[id(v)] = new
        self.written.setdefault(id(v), v)


class _Trace:
    """One input signature: the jaxpr, the Variables it reads and writes, the outputs."""

    def __init__(self, fn, treedef, leaves, dyn, dyn_vals, remat=False):
        self.name = getattr(fn, "__name__", "function")
        cap = _Capture()
        box = {}

        def pure(*vals):
            filled = list(leaves)
            for p, v in zip(dyn, vals):
                filled[p] = _wrap(v)
            args, kwargs = tree_unflatten(treedef, filled)
            # Traced ops run at once (fused mode would hold tracers in a pending graph).
            with switched(tapes=[], accumulators=[], capture=cap, fused=False):
                out = fn(*args, **kwargs)
                out_leaves, box["tree"] = tree_flatten(out, is_leaf=is_tensor_like)
                arrays, static = [], []
                box["static"] = static
                for o in out_leaves:
                    if isinstance(o, (_TensorLike,) + _ARRAYS):
                        arrays.append(o._value if isinstance(o, _TensorLike) else jnp.asarray(o))
                        o = _ARRAY
                    static.append(o)     # Python values come back as they were
                written = [cap.current[k] for k in cap.written]
            return arrays, written

        closed = jax.make_jaxpr(pure)(*dyn_vals)
        self.out_tree, self.static = box["tree"], box["static"]
        self.written = list(cap.written.values())
        # The Variables read are constants of the jaxpr (their stand-in arrays):
        # make those constants inputs, so each call reads the current values.
        stand_ins = {id(val): v for v, val in cap.reads.values()}
        self.variables, var_pos, consts = [], [], list(closed.consts)
        for i, c in enumerate(consts):
            v = stand_ins.get(id(c))
            if v is not None:
                var_pos.append(i)
                self.variables.append(v)
                consts[i] = None     # a copy of the Variable's value: not kept
        jaxpr = self.jaxpr = closed.jaxpr
        n = sum(1 for s in self.static if s is _ARRAY)

        def run(var_vals, vals):
            cs = list(consts)
            for i, v in zip(var_pos, var_vals):
                cs[i] = v
            flat = jax.core.eval_jaxpr(jaxpr, cs, *vals)
            return flat[:n], flat[n:]

        run.__name__ = self.name
        if remat:
            # recompute_grad: the pullback computes the forward again rather than
            # keeping its intermediates.
            run = jax.checkpoint(run)
        self.remat = remat
        self.run = jax.jit(run)

        def call_run(var_vals, vals):     # what a tape records: one op, as in TF
            return self.run(var_vals, vals)
        call_run.__name__, call_run.one_op = self.name, True
        self.recorded = call_run

    def outputs(self, arrays):
        it = iter(arrays)
        leaves = [next(it) if s is _ARRAY else s for s in self.static]
        return tree_unflatten(self.out_tree, leaves)


_ARRAY = object()   # marks an output leaf that is an array


class Function:
    """A function traced once per input signature and run as one XLA executable
    (as ``tf.function``). See :func:`function`, which makes them.

    >>> import eagertape as et
    >>> f = et.function(lambda x: x * 2.0)
    >>> isinstance(f, et.Function), f(et.constant(1.5)).numpy()
    (True, np.float32(3.0))
    """

    def __init__(self, fn: Callable[..., Any], jit_compile: bool = True,
                 input_signature: Any = None, name: str | None = None,
                 remat: bool = False) -> None:
        self.python_function = fn
        self._remat = remat
        self._jit = jit_compile is not False
        self._signature = _check_signature(input_signature)
        self._traces = {}
        self._count = 0
        functools.update_wrapper(self, fn)
        if name:
            self.__name__ = name

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        # As a method: bind the instance (a static argument, part of the signature).
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

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
        if not self._jit or local.state.capture is not None or config.run_functions_eagerly:
            # jit_compile=False, or called from a function being traced: plain Python.
            return self.python_function(*args, **kwargs)
        if self._signature is not None:
            _check_args(self._signature, args, self.__name__)
        leaves, treedef = tree_flatten((args, kwargs), is_leaf=is_tensor_like)
        key, dyn, objs, vals, static = [treedef], [], [], [], list(leaves)
        for i, leaf in enumerate(leaves):
            if isinstance(leaf, Tensor):
                v = leaf._value
            elif isinstance(leaf, _ARRAYS):
                v = jnp.asarray(leaf)
            else:
                key.append(("static", id(leaf)) if isinstance(leaf, _TensorLike)
                           else _hashable(leaf, i, self.__name__))
                continue
            key.append((v.shape, v.dtype, getattr(v, "weak_type", False)))
            dyn.append(i)
            objs.append(leaf)
            vals.append(v)
            static[i] = None
        key = tuple(key)
        trace = self._traces.get(key)
        if trace is None:
            trace = _Trace(self.python_function, treedef, static, dyn, vals, self._remat)
            self._count += 1
            self._traces[key] = trace
        reads = [v.read_value() for v in trace.variables]
        if local.state.tapes or local.state.accumulators:
            arrays, written = call(trace.recorded, (reads, objs), jit=False, name=trace.name)
            written = [w._value for w in written]
        else:
            arrays, written = trace.run([r._value for r in reads], vals)
            arrays = [_wrap(a) for a in arrays]
        for v, new in zip(trace.written, written):
            v._val = new          # assignments are not differentiated through (TF)
        return trace.outputs(arrays)


def _hashable(leaf, i, name):
    try:
        hash(leaf)
    except TypeError:
        raise TypeError(f"argument {i} of eagertape.function {name!r} is an unhashable "
                        f"{type(leaf).__name__}: pass arrays as Tensors or NumPy arrays, other "
                        "values (part of the trace's signature) hashable") from None
    return (type(leaf), leaf)


def _check_signature(sig):
    if sig is None:
        return None
    sig = list(sig)
    for i, spec in enumerate(sig):
        if not (hasattr(spec, "shape") and hasattr(spec, "dtype")):
            raise TypeError(f"argument `input_signature`[{i}] must have .shape and .dtype "
                            f"(eagertape.tf.TensorSpec), got {spec!r}")
    return sig


def _check_args(sig, args, name):
    if len(args) != len(sig):
        raise TypeError(f"{name!r} has input_signature of {len(sig)} argument(s), called with "
                        f"{len(args)}")
    for i, (a, spec) in enumerate(zip(args, sig)):
        shape = tuple(a.shape if isinstance(a, _TensorLike) else np.shape(a))
        dtype = a.dtype if isinstance(a, _TensorLike) else np.asarray(a).dtype
        want = tuple(spec.shape) if spec.shape is not None else None
        ok = want is None or (len(want) == len(shape) and
                              all(w is None or w == s for w, s in zip(want, shape)))
        if not ok or (spec.dtype is not None and np.dtype(spec.dtype) != np.dtype(dtype)):
            raise TypeError(f"argument {i} of {name!r} has shape {shape} and dtype {dtype}, "
                            f"which does not match its input_signature {spec!r}")


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
                                 input_signature=input_signature, name=name)
    if not callable(func):
        raise TypeError(f"argument `func` of eagertape.function must be callable, got "
                        f"{type(func).__name__}")
    return Function(func, jit_compile=jit_compile, input_signature=input_signature, name=name)
