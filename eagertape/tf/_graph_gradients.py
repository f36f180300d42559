"""``tf.gradients`` where TF runs it: inside a Keras functional model's graph.

TF's ``tf.gradients(ys, xs)`` differentiates a graph already built: ``ys`` was
computed from ``xs`` before the call. It raises in eager mode, but a Keras
program may call it in a ``Lambda`` layer of a functional model (keras.io's
eikonal solver: the network's gradient w.r.t. its input coordinates, its loss),
which TF runs in a graph (fit's traced step, predict's, the functional API's
symbolic call). JAX cannot differentiate a value after it was computed; Keras's
functional graph says how it was: each run of a functional model
(``Function._run_through_graph``) is noted here with the values it has computed
so far, and ``gradients`` runs again, under ``jax.vjp``, the graph's nodes that
lead from ``xs`` to ``ys`` (the other values are constants of that function,
as TF's gradient of a graph treats what does not depend on ``xs``). Outside a
functional model's run it raises TF's eager error; in Keras's shape inference
of a layer (a ``Lambda`` on symbolic inputs, no run to differentiate) it gives
zeros of ``xs``'s shapes, a spec only.
"""
import threading

import jax
import jax.numpy as jnp

_local = threading.local()
_UNCONNECTED = ("none", "zero")


class _Run:
    """One run of a Keras functional graph: its function and what it has computed."""

    __slots__ = ("function", "operation_fn", "call_fn", "values")

    def __init__(self, function, operation_fn, call_fn):
        self.function, self.operation_fn, self.call_fn = function, operation_fn, call_fn
        self.values = None      # Keras's tensor_dict: id(KerasTensor) -> value, filled as it runs


def _runs():
    runs = getattr(_local, "runs", None)
    if runs is None:
        runs = _local.runs = []
    return runs


def _keras_run_through_graph(run_through_graph):
    """Keras's ``Function._run_through_graph``, noting its run (``_Run``)."""
    def _run_through_graph(self, inputs, operation_fn=lambda op: op, call_fn=None):
        runs = _runs()
        runs.append(_Run(self, operation_fn, call_fn))
        try:
            return run_through_graph(self, inputs, operation_fn=operation_fn, call_fn=call_fn)
        finally:
            runs.pop()
    _run_through_graph.__doc__ = run_through_graph.__doc__
    return _run_through_graph


def _keras_fill_in(fill_in):
    """Keras's ``SymbolicArguments.fill_in``: its ``tensor_dict`` is the run's values
    (the same dictionary throughout the run, filled node by node)."""
    def fill_in_(self, tensor_dict):
        runs = getattr(_local, "runs", None)
        if runs and runs[-1].values is None:
            runs[-1].values = tensor_dict
        return fill_in(self, tensor_dict)
    fill_in_.__doc__ = fill_in.__doc__
    return fill_in_


def _raw(x):
    return getattr(x, "_value", x)


def _find(run, values):
    """The KerasTensors of ``run`` whose computed values are ``values``, or None."""
    if run.values is None:
        return None
    by_value = {}
    for key, v in run.values.items():
        by_value.setdefault(id(_raw(v)), key)
    keys = [by_value.get(id(_raw(v))) for v in values]
    return None if None in keys else keys


def _nodes(function):
    depths = sorted(function._nodes_by_depth, reverse=True)
    return [n for d in depths for n in function._nodes_by_depth[d]
            if n.operation is not None and not n.is_input]


def _differentiate(run, y_keys, x_keys, x_values, grad_ys):
    from keras import tree
    fixed = dict(run.values)
    nodes = _nodes(run.function)
    # The nodes ``ys`` depends on through ``xs``: run again as a function of ``xs``
    # (not the node calling tf.gradients, nor those after it).
    upstream = _upstream(nodes, y_keys)
    downstream = set(x_keys)
    path = []
    for node in nodes:
        if id(node) in upstream and any(id(t) in downstream for t in node.input_tensors):
            path.append(node)
            downstream.update(id(t) for t in node.outputs)

    def f(*xs):
        values = dict(fixed)
        values.update(zip(x_keys, xs))
        for node in path:
            args, kwargs = node.arguments.fill_in(values)
            op = run.operation_fn(node.operation)
            out = run.call_fn(op, *args, **kwargs) if run.call_fn is not None \
                else op(*args, **kwargs)
            for t, v in zip(node.outputs, tree.flatten(out)):
                values[id(t)] = _raw(v)
        return [jnp.sum(values[k] * g) for k, g in zip(y_keys, grad_ys) if k in downstream]

    def total(*xs):
        return sum(f(*xs), jnp.zeros((), jnp.result_type(*xs)))
    return jax.grad(total, argnums=tuple(range(len(x_values))))(*x_values)


def in_symbolic_scope():
    """Whether Keras is inferring output specs now (no values): tf/_keras.py sets
    this at its join (it knows Keras's scopes; this module does not import it)."""
    return False


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False,
              aggregation_method=None, stop_gradients=None, unconnected_gradients="none"):
    """The gradients of the sum of ``ys`` w.r.t. each of ``xs``, as TF's graph-mode
    ``tf.gradients``: inside a Keras functional model (a ``Lambda`` layer's
    function), where ``ys`` was computed from ``xs`` by the model's layers.
    Elsewhere (eager code) it raises TF's error: use ``tf.GradientTape``.

    Example (a model whose output is its gradient w.r.t. its input)::

        x = tf.keras.Input((1,))
        y = tf.keras.layers.Dense(1, activation="tanh")(x)
        g = tf.keras.layers.Lambda(lambda t: tf.gradients(t[0], t[1]))([y, x])
        model = tf.keras.Model(x, g)     # model.predict(...) gives dy/dx
    """
    from keras import tree
    if stop_gradients is not None:
        raise NotImplementedError("tf.gradients: stop_gradients is not supported by "
                                  "eagertape; wrap those tensors in tf.stop_gradient")
    unconnected = getattr(unconnected_gradients, "value", unconnected_gradients)
    if unconnected not in _UNCONNECTED:
        raise ValueError(f"tf.gradients: unconnected_gradients must be 'none' or 'zero', "
                         f"got {unconnected_gradients!r}")
    ys_list, xs_list = tree.flatten(ys), tree.flatten(xs)
    runs = getattr(_local, "runs", None) or ()
    with jax.enable_x64(False):     # Keras's values: its JAX backend's 32-bit mode
        for run in reversed(runs):
            y_keys, x_keys = _find(run, ys_list), _find(run, xs_list)
            if y_keys is None or x_keys is None:
                continue
            if grad_ys is None:
                gys = [jnp.ones_like(_raw(y)) for y in ys_list]
            else:
                gys = [_raw(g) for g in tree.flatten(grad_ys)]
            x_values = [_raw(x) for x in xs_list]
            grads = _differentiate(run, y_keys, x_keys, x_values, gys)
            reached = _reaching(run, x_keys, y_keys)
            return [g if r else (jnp.zeros_like(x) if unconnected == "zero" else None)
                    for g, x, r in zip(grads, x_values, reached)]
        if in_symbolic_scope():
            # Keras infers a Lambda's output spec without a run: shapes only.
            return [jnp.zeros_like(_raw(x)) for x in xs_list]
    raise RuntimeError("tf.gradients is not supported when eager execution is enabled. "
                       "Use tf.GradientTape instead.")


def _upstream(nodes, y_keys):
    """The ids of the nodes that the values ``y_keys`` are computed by."""
    producer = {id(t): node for node in nodes for t in node.outputs}
    seen, stack = set(), list(y_keys)
    while stack:
        node = producer.get(stack.pop())
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(id(t) for t in node.input_tensors)
    return seen


def _reaching(run, x_keys, y_keys):
    """For each of ``x_keys``, whether some of ``y_keys`` is computed from it."""
    nodes = _nodes(run.function)
    out = []
    for k in x_keys:
        down = {k}
        for node in nodes:
            if any(id(t) in down for t in node.input_tensors):
                down.update(id(t) for t in node.outputs)
        out.append(any(y in down for y in y_keys))
    return out
