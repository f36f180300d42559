"""Optimizers with TensorFlow's (Keras 3) interface, built on optax.

The update rules are TF's, to the last epsilon: optax supplies the arithmetic,
eagertape the bookkeeping (one optax state per Variable, in-place assignment,
``iterations``, ``apply_gradients`` and ``minimize``).

>>> import eagertape as et
>>> from eagertape import numpy as tnp
>>> w = et.Variable([1.0, 2.0])
>>> opt = et.optimizers.SGD(learning_rate=0.1)
>>> with et.GradientTape() as tape:
...     loss = tnp.sum(w * w)
>>> opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
>>> w.numpy()
array([0.8, 1.6], dtype=float32)
"""
from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.tree_util import tree_flatten, tree_leaves, tree_unflatten

from ._state import x64
from ._tape import GradientTape
from ._tensor import Cotangent, Tensor, _TensorLike, standin
from ._variables import Variable

__all__ = ["Optimizer", "SGD", "Adam", "RMSprop", "Adagrad"]

_logger = logging.getLogger("eagertape")


def _check_positive(name, value, allow_zero=False):
    if callable(value):
        return value
    if isinstance(value, _TensorLike):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value) \
            or value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"argument `{name}` must be a {'non-negative' if allow_zero else 'positive'}"
                         f" number (or, for learning_rate, a schedule), got {value!r}")
    return float(value)


class Optimizer:
    """Base class: subclasses give ``_transform()``, an optax GradientTransformation.

    >>> import optax
    >>> import eagertape as et
    >>> class PlainSGD(et.optimizers.Optimizer):        # w -= lr * g
    ...     def __init__(self, learning_rate=0.1, name="PlainSGD"):
    ...         super().__init__(learning_rate, name)
    ...     def _transform(self):
    ...         return optax.sgd(self.learning_rate)
    >>> w = et.Variable([1.0, -2.0])
    >>> _ = PlainSGD().minimize(lambda: (w * w)[0] + (w * w)[1], [w])
    >>> w.numpy()
    array([ 0.8, -1.6], dtype=float32)
    """

    def __init__(self, learning_rate: float, name: str) -> None:
        self.learning_rate = _check_positive("learning_rate", learning_rate)
        self.name = name
        self.iterations = Variable(np.int64(0), trainable=False, name="iteration")
        self._tx = self._transform()
        self._states = {}      # id(variable) -> (variable, optax treedef, slot Variables)
        self._step = jax.jit(functools.partial(_step, self._tx), static_argnums=0)

    @x64
    def apply_gradients(self, grads_and_vars: Iterable[tuple[Any, Variable]],
                        name: str | None = None) -> None:
        """Apply ``(gradient, Variable)`` pairs; None gradients are skipped with TF's warning.

        All new values are computed before any Variable changes, so an error
        leaves every Variable as it was.

        >>> import eagertape as et
        >>> w = et.Variable([1.0, 2.0])
        >>> opt = et.optimizers.SGD(learning_rate=0.5)
        >>> opt.apply_gradients([(et.constant([1.0, 1.0]), w)])
        >>> w.numpy(), int(opt.iterations)
        (array([0.5, 1.5], dtype=float32), 1)
        """
        try:
            pairs = list(grads_and_vars)
        except TypeError:
            raise TypeError("argument `grads_and_vars` must be an iterable of (gradient, Variable) "
                            f"pairs, got {type(grads_and_vars).__name__}; pass "
                            "zip(grads, variables)") from None
        for i, pair in enumerate(pairs):
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise ValueError(f"argument `grads_and_vars`[{i}] must be a (gradient, Variable) "
                                 f"pair, got {pair!r}; pass zip(grads, variables)")
            if not isinstance(standin(pair[1]), Variable):
                raise TypeError(f"argument `grads_and_vars`[{i}]: the second element must be an "
                                f"eagertape.Variable, got {type(pair[1]).__name__}")
        # A Keras weight is updated as the eagertape Variable it is.
        pairs = [(g, standin(v)) for g, v in pairs]
        missing = [v.name for g, v in pairs if g is None]
        if missing:
            _logger.warning("Gradients do not exist for variables %s when minimizing the loss. "
                            "If using `model.compile()`, did you forget to provide a `loss` "
                            "argument?", missing)
        pairs = [(g, v) for g, v in pairs if g is not None]
        if not pairs:
            return
        ws, gs, states, entries, trees = [], [], [], [], []
        for i, (g, v) in enumerate(pairs):
            w = v.jax()
            squares = None
            if isinstance(g, Cotangent) and hasattr(g, "indices"):
                g, squares = _rows(g, w)
            try:
                g = g._value if isinstance(g, _TensorLike) else jnp.asarray(g, w.dtype)
            except (TypeError, ValueError):
                raise TypeError(f"argument `grads_and_vars`: gradient for {v.name!r} must be a "
                                f"Tensor or array, got {type(g).__name__}") from None
            if g.shape != w.shape:
                raise ValueError(f"argument `grads_and_vars`: gradient for {v.name!r} has shape "
                                 f"{tuple(g.shape)} but the Variable has shape {tuple(w.shape)}")
            entry = self._states.get(id(v))
            if entry is None or entry[0] is not v:
                entry = self._slots(v, w)
            ws.append(w)
            gs.append(g.astype(w.dtype))
            leaves = [s._value for s in entry[2]]
            if squares is not None:
                leaves = self._squared_rows(entry[1], leaves, g.astype(w.dtype), squares)
            states.append(leaves)
            trees.append(entry[1])
            entries.append(entry)
        new_ws, new_states = self._step(tuple(trees), ws, gs, states)
        for (_, v), w, s, entry in zip(pairs, new_ws, new_states, entries):
            v._value = w          # shapes and dtypes were checked above
            for slot, leaf in zip(entry[2], s):
                slot._value = leaf
            self._states[id(v)] = entry
        self.iterations.assign_add(np.int64(1))

    def _squared_rows(self, tree, leaves, g, squares):
        # TF's Keras squares an IndexedSlices' rows one by one: a second moment
        # gets the sum of the rows' squares (``squares``) where optax adds the
        # square of their sum. The moment going in is moved by the difference,
        # so that optax's own step gives TF's: decay * nu' + (1 - decay) g^2 =
        # decay * nu + (1 - decay) squares.
        extra = squares - g * g
        decay = self._second_moment_decay()

        def fix(state):
            name = type(state).__name__
            if name == "ScaleByRssState":
                return state._replace(sum_of_squares=state.sum_of_squares + extra)
            if name in ("ScaleByAdamState", "ScaleByRmsState", "ScaleByRStdDevState") and decay:
                return state._replace(nu=state.nu + (1 - decay) / decay * extra)
            if isinstance(state, tuple) and not hasattr(state, "_fields"):
                return tuple(fix(x) for x in state)
            if hasattr(state, "inner_state"):
                return state._replace(inner_state=fix(state.inner_state))
            return state
        return tree_leaves(fix(tree_unflatten(tree, leaves)))

    def _second_moment_decay(self):
        return getattr(self, "rho", getattr(self, "beta_2", None))

    def _slots(self, v, w):
        # The optax state of one Variable, held in non-trainable Variables (TF's
        # slot variables), so that an eagertape.function reads and writes it as
        # it does the Variable. Its initial value depends on shapes alone.
        with jax.ensure_compile_time_eval():
            leaves, tree = tree_flatten(self._tx.init(jnp.zeros(w.shape, w.dtype)))
            slots = [Variable(np.asarray(x), trainable=False, name=f"{self.name}/slot")
                     for x in leaves]
        return (v, tree, slots)

    def variables(self) -> list[Variable]:
        """The optimizer's own Variables: ``iterations`` and the slots."""
        return [self.iterations] + [s for _, _, slots in self._states.values() for s in slots]

    @x64
    def minimize(self, loss: Tensor | Callable[[], Any], var_list: Any,
                 tape: GradientTape | None = None) -> Variable:
        """Compute gradients of ``loss`` (a callable, or a Tensor recorded on ``tape``)
        with respect to ``var_list`` and apply them. Returns ``iterations``.

        >>> import eagertape as et
        >>> w = et.Variable(3.0)
        >>> opt = et.optimizers.SGD(learning_rate=0.25)
        >>> _ = opt.minimize(lambda: w * w, [w])       # w -= 0.25 * 2 w
        >>> float(w)
        1.5
        """
        if callable(var_list):
            var_list = var_list()
        var_list = list(var_list)
        if tape is None:
            if not callable(loss):
                raise TypeError("argument `loss` must be a callable when no `tape` is given "
                                "(or pass the tape that recorded the loss Tensor)")
            with GradientTape() as tape:
                for v in var_list:
                    tape.watch(v)
                loss = loss()
        elif callable(loss):
            with tape:
                loss = loss()
        if not isinstance(loss, (Tensor, Variable)):
            raise TypeError(f"argument `loss` must give a Tensor, got {type(loss).__name__}")
        grads = tape.gradient(loss, var_list)
        self.apply_gradients(zip(grads, var_list))
        return self.iterations

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "learning_rate": self.learning_rate}


def _rows(g, w):
    """An IndexedSlices gradient: its dense value and the sum of its rows' squares."""
    values = jnp.asarray(g.values._value, w.dtype)
    squares = jax.ops.segment_sum(values * values, g.indices._value, num_segments=w.shape[0])
    return g.dense(), squares.reshape(w.shape)


def _step(tx, trees, ws, gs, states):
    # States come and go as flat lists of the slots' values (no pytree work in
    # Python per step); their structures are static.
    new_ws, new_states = [], []
    for tree, w, g, s in zip(trees, ws, gs, states):
        upd, s = tx.update(g, tree_unflatten(tree, s), w)
        new_ws.append((w + upd).astype(w.dtype))
        new_states.append(tree_leaves(s))
    return new_ws, new_states


class SGD(Optimizer):
    """``tf.keras.optimizers.SGD``: ``w -= lr*g``; with momentum ``m = momentum*m - lr*g;
    w += m`` (Nesterov: ``w += momentum*m - lr*g``).

    >>> import eagertape as et
    >>> from eagertape import numpy as tnp
    >>> w = et.Variable([1.0, -2.0])
    >>> opt = et.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     _ = opt.minimize(lambda: tnp.sum(w * w), [w])
    >>> w.numpy().round(4)
    array([ 0.46, -0.92], dtype=float32)
    """

    def __init__(self, learning_rate: float = 0.01, momentum: float = 0.0,
                 nesterov: bool = False, name: str = "SGD", **kwargs: Any) -> None:
        self.momentum = _check_positive("momentum", momentum, allow_zero=True)
        self.nesterov = bool(nesterov)
        super().__init__(learning_rate, name)

    def _transform(self):
        return optax.sgd(self.learning_rate, momentum=self.momentum or None,
                         nesterov=self.nesterov)


class Adam(Optimizer):
    """``tf.keras.optimizers.Adam``, with Keras's epsilon: ``w -= lr*sqrt(1-b2^t)/(1-b1^t)
    * m/(sqrt(v) + epsilon)``.

    >>> import eagertape as et
    >>> from eagertape import numpy as tnp
    >>> w = et.Variable([1.0, -2.0])
    >>> opt = et.optimizers.Adam(learning_rate=0.1)
    >>> _ = opt.minimize(lambda: tnp.sum(w * w), [w])   # first step: about lr * sign(g)
    >>> w.numpy().round(4)
    array([ 0.9, -1.9], dtype=float32)
    """

    def __init__(self, learning_rate: float = 0.001, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7, name: str = "Adam",
                 **kwargs: Any) -> None:
        self.beta_1 = _check_positive("beta_1", beta_1, allow_zero=True)
        self.beta_2 = _check_positive("beta_2", beta_2, allow_zero=True)
        self.epsilon = _check_positive("epsilon", epsilon, allow_zero=True)
        super().__init__(learning_rate, name)

    def _transform(self):
        b2, eps = self.beta_2, self.epsilon
        # Keras adds epsilon to sqrt(v), optax to sqrt(v_hat): the same rule with
        # optax's epsilon scaled by 1/sqrt(1 - b2^t) at step t.
        return optax.inject_hyperparams(optax.adam)(
            learning_rate=self.learning_rate, b1=self.beta_1, b2=b2,
            eps=lambda count: eps / jnp.sqrt(1.0 - b2 ** (count + 1)))


class RMSprop(Optimizer):
    """``tf.keras.optimizers.RMSprop``: ``v = rho*v + (1-rho)*g^2; w -= lr*g/sqrt(v + epsilon)``.

    >>> import eagertape as et
    >>> from eagertape import numpy as tnp
    >>> w = et.Variable([1.0, -2.0])
    >>> opt = et.optimizers.RMSprop(learning_rate=0.1, rho=0.9)
    >>> _ = opt.minimize(lambda: tnp.sum(w * w), [w])   # lr * sign(g) / sqrt(1 - rho)
    >>> w.numpy().round(4)
    array([ 0.6838, -1.6838], dtype=float32)
    """

    def __init__(self, learning_rate: float = 0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-7, centered: bool = False, name: str = "RMSprop",
                 **kwargs: Any) -> None:
        self.rho = _check_positive("rho", rho, allow_zero=True)
        self.momentum = _check_positive("momentum", momentum, allow_zero=True)
        self.epsilon = _check_positive("epsilon", epsilon, allow_zero=True)
        self.centered = bool(centered)
        super().__init__(learning_rate, name)

    def _transform(self):
        return optax.rmsprop(self.learning_rate, decay=self.rho, eps=self.epsilon,
                             eps_in_sqrt=True, centered=self.centered,
                             momentum=self.momentum or None)


class Adagrad(Optimizer):
    """``tf.keras.optimizers.Adagrad``: ``a += g^2; w -= lr*g/sqrt(a + epsilon)``.

    >>> import eagertape as et
    >>> from eagertape import numpy as tnp
    >>> w = et.Variable([1.0, -2.0])
    >>> opt = et.optimizers.Adagrad(learning_rate=0.1)
    >>> _ = opt.minimize(lambda: tnp.sum(w * w), [w])
    >>> w.numpy().round(4)
    array([ 0.9012, -1.9003], dtype=float32)
    """

    def __init__(self, learning_rate: float = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, name: str = "Adagrad", **kwargs: Any) -> None:
        self.initial_accumulator_value = _check_positive(
            "initial_accumulator_value", initial_accumulator_value, allow_zero=True)
        self.epsilon = _check_positive("epsilon", epsilon, allow_zero=True)
        super().__init__(learning_rate, name)

    def _transform(self):
        return optax.adagrad(self.learning_rate,
                             initial_accumulator_value=self.initial_accumulator_value,
                             eps=self.epsilon)
