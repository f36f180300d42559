"""TF's Keras numerics where Keras's JAX backend computes a loss by another formula.

``tf.keras`` is Keras 3 on its JAX backend (tf/_keras.py); TF programs run through
``eagertape.tf`` get TF's Keras numbers, so where the two backends' ``nn``
functions (Keras's private modules, named in tf/_keras.py's table) give different
values on inputs that programs meet, the JAX function is replaced (a row of tf/_keras.py's table) by TF's
formula, written in ``jax.numpy`` (differentiable, one choke point as before: Keras's
ops call it inside the recorded loss or metric).

Read against Keras 3.15's two backends (``binary_crossentropy``,
``categorical_crossentropy``, ``sparse_categorical_crossentropy``, and ``log_softmax``,
``softmax``, ``in_top_k`` that losses and metrics use):

- ``sparse_categorical_crossentropy(from_logits=False)``: TF clips the values to
  ``[eps, 1 - eps]``, takes the log and feeds it to
  ``sparse_softmax_cross_entropy_with_logits``, which renormalises:
  ``-log(clip(p)[t]) + log(sum(clip(p)))``. JAX divides by the sum first, then clips
  and takes the log. On probabilities the two agree; on anything else (logits given
  to a loss or metric that expects probabilities, census migrate_early_stopping)
  they do not: 1.144 in TF where JAX's gives 9.255.
- ``categorical_crossentropy`` (both divide by the sum, clip, log; from logits
  ``log_softmax`` is ``softmax_cross_entropy_with_logits``) and
  ``binary_crossentropy`` (the same clip and logs; from logits the same function as
  ``sigmoid_cross_entropy_with_logits``, written another way) agree within rounding;
  ``in_top_k`` counts the strictly larger values in both (TF's ties).

- A crossentropy of a ``softmax`` or ``sigmoid`` output: TF's backend functions
  ``softmax`` and ``sigmoid`` (so ``keras.ops``, ``keras.activations``, the
  ``Activation``/``Softmax`` layers and a layer's ``activation=``) keep their input on
  their output (``output._keras_logits``), and its three crossentropies compute from
  those logits (``from_logits=True``, with a warning where the call said so already)
  instead of the probabilities clipped to ``[eps, 1 - eps]``: a saturated prediction's
  loss is then unbounded where the clipped one stops at ``-log(eps)``, and its gradient
  is not 0. A JAX array or tracer holds no attribute: the logits are kept in a table
  (``keep_logits``/``logits_of``) keyed by the output's identity, each entry dropped with
  the output (a weak reference), so nothing outlives a trace and an id is never read
  for another array. tf/_keras.py carries the logits across its recorded ops (a Tensor's
  logits are the op's input, the op's output's its output).
"""
import contextlib
import threading
import warnings
import weakref

import jax
import jax.numpy as jnp


# -- the logits a softmax or sigmoid output came from (TF's ``_keras_logits``) ----
_logits = {}       # id(output) -> (weak reference to output, logits)


def keep_logits(output, logits):
    """Remember that ``output`` (a JAX array or tracer, or a Tensor) is a softmax or
    sigmoid of ``logits``, for as long as ``output`` lives."""
    key = id(output)
    ref = weakref.ref(output, lambda _, key=key: _drop(key, _))
    _logits[key] = (ref, logits)
    return output


def _drop(key, ref):
    hit = _logits.get(key)
    if hit is not None and hit[0] is ref:
        del _logits[key]


def logits_of(output):
    """The logits ``output`` is the softmax or sigmoid of, or None."""
    hit = _logits.get(id(output))
    if hit is None or hit[0]() is not output:
        return None
    return hit[1]


def make_activation(original):
    """Keras's JAX-backend ``softmax`` or ``sigmoid`` (its row in tf/_keras.py's join
    table) keeping its input as the output's logits, as Keras's TF backend does."""
    def activation(x, *args, **kwargs):
        out = original(x, *args, **kwargs)
        if out is not x and isinstance(out, jax.Array):
            keep_logits(out, x)
        return out

    activation.__name__ = original.__name__
    activation.__doc__ = original.__doc__
    activation.__wrapped__ = original
    return activation


# fit's step differentiates Keras's ``compute_loss_and_updates`` (``jax.value_and_grad``
# with ``has_aux``) and gives the predictions of its aux output to the metrics: the
# logits, tracers of the differentiated function, are carried out beside them, and
# kept again on the predictions that come out (a pytree node that unflattens to the
# predictions alone, so Keras's code reads them as before).
_state = threading.local()


@contextlib.contextmanager
def carrying_logits_out():
    """While fit's ``train_step`` runs: ``compute_loss_and_updates`` is differentiated
    there, and its predictions carry their logits out."""
    saved = getattr(_state, "carry", False)
    _state.carry = True
    try:
        yield
    finally:
        _state.carry = saved


class _Carried:
    """Predictions and the logits kept on their leaves ({leaf index: logits})."""

    def __init__(self, predictions, made):
        self.predictions, self.made = predictions, made


def _unflatten(_, children):
    predictions, made = children
    leaves = jax.tree_util.tree_leaves(predictions)
    for j, logits in made.items():
        # Only arrays and tracers: JAX unflattens the output's avals too (shared
        # ShapedArrays, which an entry would keep alive).
        if j < len(leaves) and isinstance(leaves[j], jax.Array):
            keep_logits(leaves[j], logits)
    return predictions


jax.tree_util.register_pytree_node(
    _Carried, lambda c: ((c.predictions, c.made), None), _unflatten)


def make_compute_loss_and_updates(original):
    """Keras's JAX trainer's ``compute_loss_and_updates`` whose predictions carry
    their logits out of fit's ``jax.value_and_grad`` (``carrying_logits_out``)."""
    def compute_loss_and_updates(self, *args, **kwargs):
        loss, aux = original(self, *args, **kwargs)
        if not getattr(_state, "carry", False):
            return loss, aux
        unscaled, predictions, *rest = aux
        made = {j: logits for j, y in enumerate(jax.tree_util.tree_leaves(predictions))
                if (logits := logits_of(y)) is not None}
        if made:
            aux = (unscaled, _Carried(predictions, made), *rest)
        return loss, aux

    compute_loss_and_updates.__doc__ = original.__doc__
    compute_loss_and_updates.__wrapped__ = original
    return compute_loss_and_updates


def make_from_logits(original, op_type):
    """A JAX-backend crossentropy (its row in tf/_keras.py's join table) that, given a
    softmax or sigmoid output whose logits are kept, computes from the logits, as
    Keras's TF backend (``_get_logits``) does whatever ``from_logits`` says."""
    name = original.__name__

    def crossentropy(target, output, from_logits=False, *args, **kwargs):
        logits = logits_of(output)
        if logits is None:
            return original(target, output, from_logits, *args, **kwargs)
        if from_logits:
            warnings.warn(
                f'"`{name}` received `from_logits=True`, but the `output` argument was '
                f"produced by a {op_type} activation and thus does not represent logits. "
                "Was this intended?", stacklevel=2)
        return original(target, logits, True, *args, **kwargs)

    crossentropy.__name__ = name
    crossentropy.__doc__ = original.__doc__
    crossentropy.__wrapped__ = original
    return crossentropy


def make_sparse_categorical_crossentropy(original):
    """Keras's JAX-backend ``sparse_categorical_crossentropy`` (its row in
    tf/_keras.py's join table) with TF's formula for probabilities (``from_logits=False``): clip, log, then the softmax
    cross-entropy of those logs (which renormalises them), as Keras's TF backend.
    ``original`` (Keras's JAX function) checks the shapes and computes the rest."""
    import keras

    def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
        if from_logits:
            return original(target, output, from_logits=True, axis=axis)
        output = jnp.asarray(output)
        eps = keras.config.epsilon()
        logs = jnp.log(jnp.clip(output, eps, 1.0 - eps))
        return original(target, logs, from_logits=True, axis=axis)

    sparse_categorical_crossentropy.__doc__ = original.__doc__
    sparse_categorical_crossentropy.__wrapped__ = original
    return sparse_categorical_crossentropy
