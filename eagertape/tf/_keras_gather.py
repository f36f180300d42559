"""Keras's ``fit`` gives a gathered weight TF's IndexedSlices gradient.

TF's gradient of ``tf.gather(weight, ids)`` on axis 0 (Keras's ``ops.take(w,
ids, axis=0)``, which an Embedding's call is) is an IndexedSlices: the looked-up
rows' gradients at their ids, a repeated id's rows not summed; TF's Keras
optimizers apply it row by row (tf/_keras_sparse.py: Adam's and RMSprop's
second moments, Adagrad's accumulator get the sum of the rows' squares where a
dense gradient gives the square of their sum). Keras's JAX trainer
differentiates its step with ``jax.value_and_grad``, whose gradient of the
table is dense: fit's numbers drifted from TF's, silently.

``train_step`` is Keras's ``JAXTrainer.train_step`` with that one difference.
The step's loss is traced twice:

1. (``jax.make_jaxpr``: nothing is computed) each ``take`` of a trainable
   weight on axis 0 gathers from a second copy of the weights, an argument of
   its own: a weight whose own argument the jaxpr still reads is read elsewhere
   too (a regularizer, an output layer tied to the table), and has a dense
   gradient in TF as well (TF adds an IndexedSlices to a dense gradient
   densely): it is left as it is.
2. Each ``take`` of the weights that only ``take`` reads gathers from the
   weight's value under ``stop_gradient`` and adds a zero array of the rows'
   shape, an argument of the differentiated function: its gradient is the rows'
   gradient, and the ids the ``take`` was given are the rows' indices. The
   optimizer gets them as ``Rows`` (the IndexedSlices of tf/_keras_sparse.py).

Keras's ``take`` on JAX (its JAX backend's ``numpy.take``, declared in tf/_keras.py's table) is joined by a
row of the join table (tf/_keras.py) to ``take`` here; it is Keras's own unless
a step is being traced here, in this thread.
"""
import threading

import jax
import jax.numpy as jnp

from ..extend import function_trace as _function_trace
from ._keras_sparse import applying

_local = threading.local()


class _Trace:
    """One trace of the step: the first (``copies`` given) gathers from the
    copies and lists ``takes`` [(weight index, ids shape)]; the second gathers
    the weights in ``sparse`` with their zero ``offsets``, listing the ``ids``."""

    def __init__(self, index, copies=None, sparse=None, offsets=None):
        self.index = index              # id(Keras variable) -> its index in trainable_variables
        self.copies = copies
        self.sparse = sparse
        self.offsets = offsets
        self.takes, self.ids = [], []


def take(original, x, indices, axis=None):
    """Keras's ``take``; on axis 0 of a trainable weight while a step is traced
    here, from the weight's copy (first trace) or with a differentiable offset
    (second)."""
    t = getattr(_local, "trace", None)
    i = None if t is None or axis != 0 else t.index.get(id(x))
    if i is None:
        return original(x, indices, axis=axis)
    if t.copies is not None:
        t.takes.append((i, tuple(jnp.shape(indices))))
        return original(t.copies[i].astype(x.dtype), indices, axis=0)
    if i not in t.sparse:
        return original(x, indices, axis=axis)
    k = len(t.ids)
    offset = t.offsets[k] if k < len(t.offsets) else None
    value = x.value
    ids = jnp.asarray(indices)
    rows = original(jax.lax.stop_gradient(value), ids, axis=0)
    if offset is None or offset.shape != rows.shape:
        raise RuntimeError(
            "eagertape: Keras's train step gathered different rows in its two traces "
            f"(take {k} of {x.path}: rows {rows.shape}, first trace "
            f"{None if offset is None else offset.shape}); please report this")
    t.ids.append((i, jnp.where(ids < 0, ids + value.shape[0], ids)))
    return rows + offset.astype(rows.dtype)


class _tracing:
    def __init__(self, trace):
        self.trace = trace

    def __enter__(self):
        self.saved = getattr(_local, "trace", None)
        _local.trace = self.trace

    def __exit__(self, *exc):
        _local.trace = self.saved


def _eligible(optimizer):
    # Gradient accumulation adds gradients to dense accumulators (Keras's JAX
    # optimizer, with jax.lax.cond): fit keeps the dense gradient there.
    return optimizer is not None and not optimizer.gradient_accumulation_steps


def train_step(model, state, data, original, unpack, Rows):
    """Keras's JAXTrainer.train_step, a gathered weight's gradient as TF's Keras
    gets it (the module's docstring)."""
    if not _eligible(model.optimizer):
        return original(model, state, data)
    trainable, non_trainable, optimizer_vars, metrics_vars = state
    x, y, sample_weight = unpack(data)
    weights = model.trainable_variables
    index = {id(v): i for i, v in enumerate(weights)}

    def loss(values):
        return model.compute_loss_and_updates(
            values, non_trainable, metrics_vars, x, y, sample_weight, training=True,
            optimizer_variables=optimizer_vars)

    first = _Trace(index, copies=list(trainable))

    def probe(values, copies):
        first.copies = copies
        return loss(values)
    # A probe, thrown away: what the step's layers assign to tf.Variables in it
    # is forgotten (the step's own trace assigns it).
    cap = _function_trace()
    saved = None if cap is None else cap.snapshot()
    try:
        with _tracing(first):
            jaxpr = jax.make_jaxpr(probe)(trainable, list(trainable)).jaxpr
    finally:
        if cap is not None:
            cap.restore(saved)
    read = {id(v) for eqn in jaxpr.eqns for v in eqn.invars}
    read |= {id(v) for v in jaxpr.outvars}
    own = jaxpr.invars[:len(trainable)]     # each weight's own argument
    sparse = {i for i, _ in first.takes if id(own[i]) not in read}
    if not sparse:
        return original(model, state, data)
    offsets = []
    for i, shape in first.takes:
        if i in sparse:
            w = weights[i]
            offsets.append(jnp.zeros(shape + tuple(w.shape[1:]), w.dtype))

    def loss_and_ids(values, offsets):
        second = _Trace(index, sparse=sparse, offsets=offsets)
        with _tracing(second):
            loss_value, aux = loss(values)
        if len(second.ids) != len(offsets):
            raise RuntimeError(
                "eagertape: Keras's train step gathered rows of its weights "
                f"{len(second.ids)} times in its second trace, {len(offsets)} in its "
                "first; please report this")
        return loss_value, (aux, second.ids)

    grad_fn = jax.value_and_grad(loss_and_ids, argnums=(0, 1), has_aux=True)
    (_, (aux, ids)), (grads, row_grads) = grad_fn(trainable, offsets)
    unscaled_loss, y_pred, non_trainable, metrics_vars = aux
    grads = list(grads)
    for i in sorted(sparse):
        parts = [(g, d) for (j, d), g in zip(ids, row_grads) if j == i]
        shape = tuple(weights[i].shape)
        values = jnp.concatenate([g.reshape((-1,) + shape[1:]) for g, _ in parts])
        indices = jnp.concatenate([d.reshape(-1) for _, d in parts])
        grads[i] = Rows(values.astype(grads[i].dtype), indices, shape)
    # (the whole apply with TF's rules for Rows: a LossScaleOptimizer checks and
    # unscales them before its inner optimizer's apply)
    with applying(model.optimizer):
        trainable, optimizer_vars = model.optimizer.stateless_apply(
            optimizer_vars, grads, trainable)
    logs, metrics_vars = model._update_metrics_variables(
        metrics_vars, unscaled_loss, x, y, y_pred, sample_weight)
    return logs, (trainable, non_trainable, optimizer_vars, metrics_vars)
