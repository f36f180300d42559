"""GradientTape with TensorFlow 2's semantics (see the reference, sections A-P)."""
from __future__ import annotations

import contextlib
import enum
import logging
from collections.abc import Iterator
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax.tree_util import tree_flatten, tree_flatten_with_path, tree_unflatten

from . import _replay
from ._errors import InvalidArgumentError
from ._logging import log_first_n
from ._cache import Table
from ._dtypes import is_inexact
from ._operators import convert_to_tensor
from ._primitive import call
from ._record import TapeData
from ._state import local, nesting, remove_last, x64
from ._tensor import Tensor, _TensorLike, brief, is_leaf, standin
from ._variables import Variable

_NOT_ONE_SET = ("A non-persistent GradientTape can only be used to compute one set of "
                "gradients (or jacobians)")
_INSIDE_WARNING = (
    "Calling GradientTape.gradient on a persistent tape inside its context is significantly "
    "less efficient than calling it outside the context (it causes the gradient ops to be "
    "recorded on the tape, leading to increased CPU and memory usage). Only call "
    "GradientTape.gradient inside the context if you actually want to trace the gradient in "
    "order to compute higher order derivatives.")


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on.

    >>> import eagertape as et
    >>> x, y = et.constant(1.0), et.constant(2.0)
    >>> with et.GradientTape(persistent=True) as tape:
    ...     tape.watch([x, y])
    ...     z = x * 3.0
    >>> print(tape.gradient(z, y))
    None
    >>> tape.gradient(z, y, unconnected_gradients=et.UnconnectedGradients.ZERO).numpy()
    np.float32(0.0)
    """
    NONE = "none"
    ZERO = "zero"


def _unconnected(value):
    if type(value) is UnconnectedGradients:
        return value
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None


def _in_order(variables):
    return tuple(sorted(variables.values(), key=lambda v: v._uid))


class GradientTape:
    """Record operations for automatic differentiation, as ``tf.GradientTape``.

    >>> import eagertape as et
    >>> x = et.constant(3.0)
    >>> with et.GradientTape(persistent=True) as tape:
    ...     tape.watch(x)
    ...     y = x * x
    ...     z = y * y
    >>> float(tape.gradient(z, x)), float(tape.gradient(y, x))   # 4 x**3, 2 x
    (108.0, 6.0)
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._tape = None
        self._recording = False
        self._persistent = bool(persistent)
        self._watch_accessed_variables = bool(watch_accessed_variables)
        self._watched_variables = ()

    # -- the stack ------------------------------------------------------------
    def _push_tape(self):
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter "
                             "an already-active tape.")
        if self._tape is None:
            self._tape = TapeData(self._persistent)
        self._nesting = next(nesting)
        local.state.tapes.append(self)
        self._recording = True

    def _pop_tape(self):
        if not self._recording:
            raise ValueError("Tape is not recording.")
        remove_last(local.state.tapes, self)
        self._recording = False

    def __enter__(self) -> GradientTape:
        self._push_tape()
        return self

    def __exit__(self, typ: Any, value: Any, traceback: Any) -> None:
        if self._recording:
            self._pop_tape()

    # -- called by Variable reads --------------------------------------------
    def _may_watch(self, v):
        d = self._tape
        return id(v._of) in d.variables or (self._watch_accessed_variables and v._trainable)

    def _on_read(self, v, t, watch=True):
        d = self._tape
        key = id(v)
        if key not in d.variables:
            if not (watch and self._watch_accessed_variables and v._trainable):
                return
            d.variables[key] = v
        if t is not None and is_inexact(t._v.dtype):   # None: accessed, not read (assign)
            d.keep.append(t)
            reads = d.var_reads.get(key)
            if reads is None:
                reads = d.var_reads[key] = []
            reads.append(d.new_slot(t))

    # -- public API ---------------------------------------------------------
    def watch(self, tensor: Any) -> None:
        """Track ``tensor`` (a Tensor, Variable, or nest of them) on this tape.

        >>> import eagertape as et
        >>> x = et.constant(2.0)                # a constant is not tracked unless watched
        >>> with et.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x ** 3
        >>> float(tape.gradient(y, x))
        12.0
        """
        if isinstance(tensor, _TensorLike):
            leaves = [tensor]
        else:
            leaves, _ = tree_flatten(tensor, is_leaf=is_leaf)
            leaves = [standin(x) for x in leaves]
        if not leaves and tensor is None:
            leaves = [None]
        for leaf in leaves:
            if not isinstance(leaf, _TensorLike):
                raise ValueError(
                    f"Passed in object {_shown(leaf)} of type {type(leaf).__name__!r}, not "
                    "eagertape.Tensor or eagertape.Variable (argument `tensor` of "
                    "GradientTape.watch); convert it with eagertape.constant(...) first.")
        if self._tape is None:
            raise RuntimeError(
                "GradientTape.watch was called on a tape that is not active (never entered, "
                "or a non-persistent tape already used); call it inside `with tape:`.")
        if not local.state.tapes:   # TF: a silent no-op when nothing records on this thread
            return
        d = self._tape
        for leaf in leaves:
            if not is_inexact(leaf._aval().dtype):
                log_first_n(logging.WARNING, "The dtype of the watched tensor must be floating "
                            "(e.g. float32), got %s", 5, leaf.dtype.name)
            if isinstance(leaf, Variable):
                d.variables[id(leaf._of)] = leaf._of
                continue
            d.keep.append(leaf)
            s = d.nodes.get(id(leaf))
            if s is not None:
                d.tracked[s] = True      # an input of earlier ops: tracked from now on
            elif is_inexact(leaf._aval().dtype):
                d.new_slot(leaf)

    def watched_variables(self) -> tuple[Variable, ...]:
        """The Variables this tape watches, in order of construction.

        >>> import eagertape as et
        >>> a, b = et.Variable(1.0, name="a"), et.Variable(2.0, name="b")
        >>> with et.GradientTape() as tape:
        ...     y = b * a
        >>> [v.name for v in tape.watched_variables()]
        ['a:0', 'b:0']
        """
        if self._tape is not None:
            return _in_order(self._tape.variables)
        if type(self._watched_variables) is dict:     # kept by _used, sorted when asked
            self._watched_variables = _in_order(self._watched_variables)
        return self._watched_variables

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Temporarily stop recording on this tape (other tapes keep recording).

        >>> import eagertape as et
        >>> x = et.Variable(3.0)
        >>> with et.GradientTape() as tape:
        ...     y = x * x
        ...     with tape.stop_recording():
        ...         untracked = x * 2           # not recorded: no gradient through it
        ...     z = y + untracked
        >>> float(tape.gradient(z, x))
        6.0
        """
        if self._tape is None:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._pop_tape()
        try:
            yield
        finally:
            self._push_tape()

    def reset(self) -> None:
        """Discard everything recorded and watched so far, and keep recording.

        >>> import eagertape as et
        >>> x = et.Variable(3.0)
        >>> with et.GradientTape() as tape:
        ...     y = x * x
        ...     tape.reset()
        ...     y = x * 2.0
        >>> float(tape.gradient(y, x))
        2.0
        """
        self._pop_tape()
        self._tape = None
        self._push_tape()

    @x64
    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
                 ) -> Any:
        """Gradients of ``target`` (summed over its elements and nest) w.r.t. ``sources``.

        The result has the structure of ``sources``; unconnected sources give None
        (or zeros with ``unconnected_gradients="zero"``).

        >>> import eagertape as et
        >>> x, c = et.Variable([1.0, 2.0]), et.constant(3.0)
        >>> with et.GradientTape() as tape:
        ...     tape.watch(c)
        ...     z = (x[0] + x[1]) * c * c
        >>> dz_dx, dz_dc = tape.gradient(z, [x, c])
        >>> dz_dx.numpy(), float(dz_dc)                   # [c**2, c**2], 2 c (x0 + x1)
        (array([9., 9.], dtype=float32), 18.0)
        """
        self._check_usable()
        self._stop_if_used_up()
        if target is None:
            raise TypeError("Argument `target` should be a list or nested structure of Tensors, "
                            "Variables or CompositeTensors to be differentiated, but received None.")
        flat_targets = _flatten_checked(target, "target")
        flat_sources, source_tree = _flatten_sources(sources)
        flat_og = _flatten_output_gradients(output_gradients, flat_targets)
        unconnected = _unconnected(unconnected_gradients)
        results = _replay.gradient(self._tape, flat_targets, flat_sources, flat_og,
                                   unconnected is UnconnectedGradients.ZERO)
        self._used()
        if source_tree.num_leaves == 1 and source_tree.num_nodes == 1:
            return results[0]
        return tree_unflatten(source_tree, results)

    @x64
    def jacobian(self, target: Any, sources: Any,
                 unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
                 parallel_iterations: int | None = None, experimental_use_pfor: bool = True,
                 ) -> Any:
        """The Jacobian of ``target`` (one Tensor) w.r.t. each of ``sources``: shape
        ``target.shape + source.shape``, in the structure of ``sources``.

        All rows at once: the compiled replay ``jax.vmap``-ed over one-hot seeds,
        cached like ``gradient``'s. It uses the tape's one call (non-persistent);
        inside a persistent tape's context it is recorded, so it can be
        differentiated again.

        >>> import eagertape as et
        >>> x = et.constant([1.0, 2.0])
        >>> with et.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> tape.jacobian(y, x).numpy()
        array([[2., 0.],
               [0., 4.]], dtype=float32)
        """
        self._check_usable()
        if not self._persistent and not experimental_use_pfor:
            raise RuntimeError(
                "GradientTape must be created with persistent=True to compute the jacobian "
                "with eager execution enabled and with  experimental_use_pfor set to False.")
        _check_single(target, "target", "jacobian")
        target = self._as_read(target)
        flat_sources, source_tree = _flatten_sources(sources)
        zero = _unconnected(unconnected_gradients) is UnconnectedGradients.ZERO
        _check_parallel_iterations(parallel_iterations)
        self._stop_if_used_up()
        results = _replay.jacobian(self._tape, target, flat_sources, zero, batch=False)
        self._used()
        return tree_unflatten(source_tree, results)

    @x64
    def batch_jacobian(self, target: Any, source: Any,
                       unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
                       parallel_iterations: int | None = None, experimental_use_pfor: bool = True,
                       ) -> Tensor:
        """Per-example Jacobians: ``target`` ``[b, y1..yn]`` and ``source`` ``[b, x1..xm]``
        give ``[b, y1..yn, x1..xm]``, where row ``i`` of ``target`` is assumed to
        depend only on row ``i`` of ``source`` (not checked, as in TF).

        Unconnected: zeros whatever ``unconnected_gradients`` says, as TF: of the
        source's dtype with ``"zero"``, of the target's with ``"none"``.

        >>> import eagertape as et
        >>> x = et.constant([[1.0, 2.0], [3.0, 4.0]])
        >>> with et.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> tape.batch_jacobian(y, x).shape
        TensorShape([2, 2, 2])
        """
        self._check_usable()
        if not self._persistent:
            if not experimental_use_pfor:
                raise RuntimeError(
                    "GradientTape must be created with persistent=True to compute the "
                    "batch_jacobian with eager execution enabled and  with "
                    "experimental_use_pfor set to False.")
            if parallel_iterations is not None:
                raise RuntimeError(
                    "GradientTape must be created with persistent=True to compute the "
                    "batch_jacobian with parallel_iterations.")
        _check_single(target, "target", "batch_jacobian")
        _check_single(source, "source", "batch_jacobian")
        target = self._as_read(target)
        tshape, sshape = tuple(target.shape), tuple(source.shape)
        if not tshape:     # TF fails on a scalar target indexing its shape: an IndexError
            raise _ScalarTargetError("argument `target` of GradientTape.batch_jacobian is a "
                                     "scalar; it must have rank at least 2 (a batch axis "
                                     "first), or use GradientTape.gradient")
        for shape in (tshape, sshape):
            if len(shape) < 2:
                raise ValueError(f"Shape {shape} must have rank at least 2")
        if tshape[0] != sshape[0]:
            raise ValueError(f"Need first dimension of target shape ({tshape}) and source shape "
                             f"({sshape}) to match.")
        zero = _unconnected(unconnected_gradients) is UnconnectedGradients.ZERO
        _check_parallel_iterations(parallel_iterations)
        self._stop_if_used_up()
        result, = _replay.jacobian(self._tape, target, [source], zero, batch=True)
        self._used()
        return result

    def _as_read(self, target):
        """A Variable target as a read recorded on this tape: TF's jacobians reshape
        the target with the tape recording, which reads a Variable (watched as any
        read is)."""
        if not isinstance(target, Variable) or self._tape is None:
            return target
        if self._recording:
            return target.read_value()
        self._push_tape()
        try:
            return target.read_value()
        finally:
            self._pop_tape()

    # -- the one-call budget of a non-persistent tape -----------------------
    def _check_usable(self):
        if self._tape is None:
            raise RuntimeError(_NOT_ONE_SET)

    def _stop_if_used_up(self):
        # Inside its own context a non-persistent tape stops recording (it is used
        # up by this call); a persistent one records the gradient computation.
        if self._recording:
            if not self._persistent:
                self._pop_tape()
            else:
                log_first_n(logging.WARNING, _INSIDE_WARNING, 1)

    def _used(self):
        if not self._persistent:
            self._watched_variables = self._tape.variables
            self._tape = None


class _ScalarTargetError(ValueError, IndexError):
    """A scalar target of batch_jacobian: TF's IndexError, and a ValueError as the
    rank error of other shapes."""


def _check_single(value, argname, method):
    if not isinstance(value, _TensorLike):
        raise AttributeError(
            f"'{type(value).__name__}' object has no attribute 'shape': argument `{argname}` of "
            f"GradientTape.{method} must be a single Tensor (call {method} once per target, or "
            "stack the targets into one Tensor)")


def _check_parallel_iterations(n):
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"argument `parallel_iterations` must be None or a positive int, got {n!r}")


def _shown(obj):
    # TF's message shows the object; a number, or a one-element array, is shown
    # as TF shows it, anything larger by its class and name (never its values).
    if obj is None or isinstance(obj, (int, float, complex)) or (
            isinstance(obj, np.ndarray) and obj.size <= 1):
        return str(obj)
    return brief(obj)


def _describe(path):
    return "".join(f"[{getattr(k, 'key', getattr(k, 'idx', getattr(k, 'name', k)))!r}]" for k in path)


def _flatten_checked(value, argname):
    if isinstance(value, _TensorLike):      # the common cases, without a pytree walk
        return [value]
    if type(value) in (list, tuple) and all(isinstance(v, _TensorLike) for v in value):
        return list(value)
    pairs, _ = tree_flatten_with_path(value, is_leaf=is_leaf)
    out = []
    for path, leaf in pairs:
        leaf = standin(leaf)
        if not isinstance(leaf, _TensorLike):
            raise TypeError(
                f"argument `{argname}`{_describe(path)} must be an eagertape.Tensor or Variable, "
                f"got {brief(leaf)}; Python and NumPy values are never "
                "differentiated (convert with eagertape.constant and watch it)")
        out.append(leaf)
    return out


def _flatten_sources(sources):
    if sources is None:
        raise TypeError("argument `sources` must be a Tensor, Variable, or nest of them, got None")
    flat = _flatten_checked(sources, "sources")
    tp = type(sources)
    if isinstance(sources, _TensorLike) or ((tp is list or tp is tuple) and len(flat) == len(sources)
                                            and all(isinstance(s, _TensorLike) for s in sources)):
        # The common structures (one source, a flat list or tuple): no pytree walk.
        key = (tp, len(sources)) if tp is list or tp is tuple else None
        tree = _flat_trees.get(key)
        if tree is None:
            tree = _flat_trees.put(key, tree_flatten(
                0 if key is None else tp(range(len(sources))))[1])
        return flat, tree
    _, tree = tree_flatten(sources, is_leaf=is_leaf)
    return flat, tree


_flat_trees = Table("source treedefs", 256)   # (list or tuple, length) or None -> treedef


def _flatten_output_gradients(output_gradients, flat_targets):
    if output_gradients is None:
        return None
    leaves, _ = tree_flatten(output_gradients, is_leaf=is_leaf)
    if len(leaves) != len(flat_targets):
        raise ValueError(
            f"argument `output_gradients` has {len(leaves)} entries for {len(flat_targets)} "
            "target(s); give one per flattened target (a Python list is a structure, so pass "
            "per-element weights of one target as a Tensor or NumPy array)")
    out = []
    for i, (g, t) in enumerate(zip(leaves, flat_targets)):
        if g is None:
            out.append(None)
            continue
        tdtype = t._aval().dtype
        tshape = tuple(t._aval().shape)
        if isinstance(g, _TensorLike):
            gv = g if isinstance(g, Tensor) else g.read_value()
        else:
            try:     # TF's conversion: Python floats float32, ints int32, arrays as they are
                gv = convert_to_tensor(g)
            except TypeError as e:
                raise TypeError(f"argument `output_gradients`[{i}]: {e}") from None
        if gv.shape != tshape:
            if gv.shape == ():
                gv = call(jnp.broadcast_to, (gv, tshape))
            else:
                raise ValueError(f"argument `output_gradients`[{i}] has shape {gv.shape} but its "
                                 f"target has shape {tshape}")
        if gv.dtype != tdtype:
            raise InvalidArgumentError(
                f"argument `output_gradients`[{i}] has dtype {np.dtype(gv.dtype).name} but its "
                f"target has dtype {np.dtype(tdtype).name}; as in TF it is not converted "
                f"(Python floats are float32, ints int32): pass a Tensor or array of dtype "
                f"{np.dtype(tdtype).name}")
        out.append(gv)
    return out
