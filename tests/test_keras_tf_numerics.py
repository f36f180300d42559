"""tf.keras's crossentropy losses and metrics give TF's Keras numbers (Keras's TF
backend's formulas, tf/_keras_numerics.py), where Keras's JAX backend computes
another: a loss or metric that expects probabilities fed logits, zeros, values
over 1 (census migrate_early_stopping's SparseCategoricalCrossentropy metrics).

Each program runs in real TF and through eagertape.tf, in a process each (Keras
has one backend a process: tests/test_keras.py's ``_same_as_tf``)."""
import textwrap

import pytest

from test_keras import _same_as_tf

pytest.importorskip("keras")

# The inputs: (name, values of shape (4, 3)); each row a sample.
_TABLE = """
rs = np.random.RandomState(3)
raw = rs.randn(4, 3).astype("float32") * 2.0
INPUTS = {
    "probabilities": (np.exp(raw) / np.exp(raw).sum(1, keepdims=True)).astype("float32"),
    "logits": raw,
    "zeros": np.zeros((4, 3), "float32"),
    "over_one": (np.abs(raw) + 1.0).astype("float32"),
    "saturated": np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1e-9, 0.5, 0.5],
                           [0.2, 0.3, 0.5]], "float32"),
}
SPARSE = np.array([0, 2, 1, 2])
ONE_HOT = np.eye(3, dtype="float32")[SPARSE]
BINARY = (rs.rand(4, 3) > 0.5).astype("float32")
SOFT = rs.rand(4, 3).astype("float32")
BINARY_INPUTS = {k: v for k, v in INPUTS.items() if k != "over_one"}
BINARY_INPUTS["probabilities"] = (1 / (1 + np.exp(-raw))).astype("float32")
"""


def _with_table(body, **tolerances):
    _same_as_tf(_TABLE + textwrap.dedent(body), **tolerances)


def test_the_loss_classes_give_tfs_keras_numbers():
    _with_table("""
    for name, x in INPUTS.items():
        for logits in (False, True):
            k = f"{name}/{logits}"
            emit("scce/" + k, tf.keras.losses.SparseCategoricalCrossentropy(from_logits=logits)(
                SPARSE, x))
            emit("scce_none/" + k, tf.keras.losses.SparseCategoricalCrossentropy(
                from_logits=logits, reduction=None)(SPARSE[:, None], x))
            emit("cce/" + k, tf.keras.losses.CategoricalCrossentropy(from_logits=logits)(
                ONE_HOT, x))
            emit("cce_smooth/" + k, tf.keras.losses.CategoricalCrossentropy(
                from_logits=logits, label_smoothing=0.1)(ONE_HOT, x))
    for name, x in BINARY_INPUTS.items():
        for logits in (False, True):
            k = f"{name}/{logits}"
            emit("bce/" + k, tf.keras.losses.BinaryCrossentropy(from_logits=logits)(BINARY, x))
            emit("bce_soft/" + k, tf.keras.losses.BinaryCrossentropy(from_logits=logits)(SOFT, x))
    """, rtol=1e-5, atol=1e-6)


def test_the_metric_classes_give_tfs_keras_numbers():
    _with_table("""
    for name, x in INPUTS.items():
        for logits in (False, True):
            k = f"{name}/{logits}"
            m = tf.keras.metrics.SparseCategoricalCrossentropy(from_logits=logits)
            m.update_state(SPARSE, x)
            m.update_state(SPARSE[::-1], x[::-1] * 0.5)
            emit("scce/" + k, m.result())
            m = tf.keras.metrics.CategoricalCrossentropy(from_logits=logits)
            m.update_state(ONE_HOT, x)
            emit("cce/" + k, m.result())
    for name, x in BINARY_INPUTS.items():
        for logits in (False, True):
            m = tf.keras.metrics.BinaryCrossentropy(from_logits=logits)
            m.update_state(BINARY, x)
            emit(f"bce/{name}/{logits}", m.result())
    """, rtol=1e-5, atol=1e-6)


def test_the_loss_functions_and_their_gradients_give_tfs_keras_numbers():
    _with_table("""
    for name, x in INPUTS.items():
        for logits in (False, True):
            k = f"{name}/{logits}"
            emit("scce/" + k, tf.keras.losses.sparse_categorical_crossentropy(
                SPARSE, x, from_logits=logits))
            emit("cce/" + k, tf.keras.losses.categorical_crossentropy(
                ONE_HOT, x, from_logits=logits))
            # the classes' axis first: (3, 4) values, axis 0
            emit("cce_axis0/" + k, tf.keras.losses.categorical_crossentropy(
                ONE_HOT.T, x.T, from_logits=logits, axis=0))
            emit("ops_scce/" + k, tf.keras.ops.sparse_categorical_crossentropy(
                SPARSE, x, from_logits=logits))
            v = tf.Variable(x)
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.keras.losses.sparse_categorical_crossentropy(
                    SPARSE, v, from_logits=logits) * np.array([1.0, 2.0, 3.0, 4.0], "float32"))
            emit("scce_grad/" + k, tape.gradient(loss, v))
    for name, x in BINARY_INPUTS.items():
        for logits in (False, True):
            emit(f"bce/{name}/{logits}", tf.keras.losses.binary_crossentropy(
                BINARY, x, from_logits=logits))
    """, rtol=1e-5, atol=1e-6)


def test_fit_with_a_probability_loss_fed_logits_gives_tfs_losses():
    # The census program's case: a model without a softmax, compiled with
    # SparseCategoricalCrossentropy() (probabilities expected) and its metric.
    _same_as_tf("""
    x = np.random.RandomState(0).randn(32, 4).astype("float32")
    y = (np.abs(x).argmax(1) % 3).astype("int64")
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
    model.set_weights(weights_like(model))
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(),
                  metrics=[tf.keras.metrics.SparseCategoricalCrossentropy()])
    h = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0,
                  validation_data=(x[:16], y[:16]))
    for key in sorted(h.history):
        emit(key, h.history[key])
    emit("weights", model.get_weights())
    """, rtol=1e-4, atol=1e-5)
