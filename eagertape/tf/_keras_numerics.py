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

Not here: TF's backend computes a crossentropy from the logits of a ``softmax`` or
``sigmoid`` output (``_keras_logits``, set on TF's tensors) where it can; a JAX array
holds no attribute, so a saturated softmax output's loss here is the clipped one
(at most ``-log(eps)``), as Keras on JAX gives it (docs/differences.md).
"""
import jax.numpy as jnp


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
