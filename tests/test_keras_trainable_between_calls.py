"""A layer's weights split anew into trainable and non-trainable between two calls
(transfer learning's fine-tuning: ``base.trainable = True``, then the first layers
frozen again, between two fits), as TF's Keras takes it. A Keras layer's call is one
recorded op whose values are its weights', split as the call found them; fused mode
runs it later, with the graph, and its op function mapped the values to the split of
that later time: a kernel's value given to a bias ("Invalid variable value in
StatelessScope", census transfer_learning in fused mode). The op function is made per
split (eagertape/tf/_keras.py ``_weights_op``).

Each program runs in TF and through eagertape (tests/test_keras.py's runner), in both
execution modes.
"""
import textwrap

import pytest

from test_keras import _same_as_tf

pytest.importorskip("keras")


@pytest.mark.both_modes
def test_weights_frozen_and_unfrozen_between_calls_and_fits():
    _same_as_tf(textwrap.dedent("""
    rs = np.random.RandomState(0)
    x = rs.rand(16, 6).astype("float32")
    y = rs.rand(16, 1).astype("float32")
    base = tf.keras.Sequential([tf.keras.Input((6,)),
                                tf.keras.layers.Dense(5, kernel_initializer="ones"),
                                tf.keras.layers.BatchNormalization(),
                                tf.keras.layers.Dense(4, kernel_initializer="ones")])
    head = tf.keras.layers.Dense(1, kernel_initializer="ones")
    inp = tf.keras.Input((6,))
    model = tf.keras.Model(inp, head(base(inp, training=False)))
    first = model(x)                  # (fused mode: pending until read)
    base.trainable = False
    emit("frozen call", model(x))
    emit("call before freezing", first)
    model.compile(tf.keras.optimizers.SGD(0.01), "mse")
    emit("fit 1", model.fit(x, y, epochs=2, batch_size=8, shuffle=False, verbose=0).history["loss"])
    base.trainable = True
    for layer in base.layers[:1]:
        layer.trainable = False
    split = model(x)
    base.trainable = False
    emit("split call", split)
    base.trainable = True
    for layer in base.layers[:1]:
        layer.trainable = False
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    emit("grads", tape.gradient(loss, model.trainable_variables))
    model.compile(tf.keras.optimizers.SGD(0.01), "mse")
    emit("fit 2", model.fit(x, y, epochs=2, batch_size=8, shuffle=False, verbose=0).history["loss"])
    emit("weights", model.get_weights())
    """))
