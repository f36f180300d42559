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


# A softmax or sigmoid output's crossentropy: TF's Keras computes it from the logits
# the activation kept on its output (``_keras_logits``), where the clipped
# probabilities would stop at -log(eps) = 16.1 a sample and give no gradient.
_SATURATED = """
Z = np.array([[30.0, 0.0, -30.0], [0.0, 40.0, 1.0], [2.0, -1.0, 0.5]], "float32")
SPARSE = np.array([2, 0, 1])
ONE_HOT = np.eye(3, dtype="float32")[SPARSE]
BINARY = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1]], "float32")
K = tf.keras


def model(act):
    m = K.Sequential([K.Input((3,)), K.layers.Dense(4, activation="relu"),
                      K.layers.Dense(3, activation=act)])
    m.set_weights([w * 8 for w in weights_like(m)])
    return m


def losses_of(p, q, tag):
    # p: a softmax output, q: a sigmoid output (of the same logits)
    emit(tag + "/cce", K.losses.categorical_crossentropy(ONE_HOT, p))
    emit(tag + "/scce", K.losses.sparse_categorical_crossentropy(SPARSE, p))
    emit(tag + "/scce_from_logits", K.losses.sparse_categorical_crossentropy(
        SPARSE, p, from_logits=True))
    emit(tag + "/CCE", K.losses.CategoricalCrossentropy()(ONE_HOT, p))
    emit(tag + "/SCCE", K.losses.SparseCategoricalCrossentropy()(SPARSE, p))
    emit(tag + "/ops_cce", K.ops.categorical_crossentropy(ONE_HOT, p))
    emit(tag + "/bce", K.losses.binary_crossentropy(BINARY, q))
    emit(tag + "/BCE", K.losses.BinaryCrossentropy()(BINARY, q))
"""


def _with_saturated(body, **tolerances):
    got = _same_as_tf(_SATURATED + textwrap.dedent(body), **tolerances)
    assert got, "the program emitted nothing"


def test_a_softmax_or_sigmoid_outputs_crossentropy_is_from_its_logits_as_in_tfs_keras():
    _with_saturated("""
    z = tf.constant(Z)
    for tag, soft, sig in [
            ("activations", K.activations.softmax, K.activations.sigmoid),
            ("ops", K.ops.softmax, K.ops.sigmoid),
            ("layers", K.layers.Activation("softmax"), K.layers.Activation("sigmoid")),
            ("softmax_layer", K.layers.Softmax(), K.activations.sigmoid)]:
        losses_of(soft(z), sig(z), tag)
        losses_of(soft(Z), sig(Z), tag + "_numpy")
    for act in ("softmax", "sigmoid"):
        m = model(act)
        p = m(Z)
        losses_of(p, p, "model_" + act)
        for cls, y in [(K.metrics.CategoricalCrossentropy, ONE_HOT),
                       (K.metrics.SparseCategoricalCrossentropy, SPARSE),
                       (K.metrics.BinaryCrossentropy, BINARY)]:
            metric = cls()
            metric.update_state(y, p)
            emit(f"model_{act}/metric_{cls.__name__}", metric.result())
    # gradients: w.r.t. the logits and w.r.t. a model's weights
    v = tf.Variable(Z)
    with tf.GradientTape(persistent=True) as tape:
        a = tf.reduce_sum(K.losses.categorical_crossentropy(ONE_HOT, K.activations.softmax(v)))
        b = tf.reduce_sum(K.losses.binary_crossentropy(BINARY, K.activations.sigmoid(v)))
    emit("grad_cce", tape.gradient(a, v))
    emit("grad_bce", tape.gradient(b, v))
    for act, loss in [("softmax", K.losses.SparseCategoricalCrossentropy()),
                      ("sigmoid", K.losses.BinaryCrossentropy())]:
        m = model(act)
        with tf.GradientTape() as tape:
            value = loss(SPARSE if act == "softmax" else BINARY, m(Z))
        emit(f"model_grad_{act}", [value] + tape.gradient(value, m.trainable_variables))
    """, rtol=1e-5, atol=1e-5)


def test_in_a_tf_function_too():
    _with_saturated("""
    ms, mb = model("softmax"), model("sigmoid")

    @tf.function
    def step(z):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(z)
            a = K.losses.categorical_crossentropy(ONE_HOT, K.activations.softmax(z))
            b = K.losses.binary_crossentropy(BINARY, K.activations.sigmoid(z))
            c = K.losses.SparseCategoricalCrossentropy()(SPARSE, ms(z))
            d = mb.compute_loss(y=BINARY, y_pred=mb(z))
        return ([a, b, c, d, tape.gradient(a, z), tape.gradient(b, z)]
                + tape.gradient(c, ms.trainable_variables)
                + tape.gradient(d, mb.trainable_variables))
    mb.compile(loss="binary_crossentropy")
    emit("step", step(tf.constant(Z)))
    """, rtol=1e-5, atol=1e-5)


def test_fit_of_a_saturated_softmax_or_sigmoid_model_gives_tfs_history():
    _with_saturated("""
    rs = np.random.RandomState(1)
    x = (rs.randn(24, 3) * 6).astype("float32")
    ys = rs.randint(0, 3, 24)
    for act, loss, y in [("sigmoid", "binary_crossentropy", (rs.rand(24, 3) > 0.5) * 1.0),
                         ("softmax", "sparse_categorical_crossentropy", ys),
                         ("softmax", "CategoricalCrossentropy", np.eye(3, dtype="float32")[ys])]:
        m = model(act)
        loss = getattr(K.losses, loss)() if loss[0].isupper() else loss
        metric = "binary_crossentropy" if act == "sigmoid" else "categorical_crossentropy"
        m.compile(optimizer=K.optimizers.SGD(0.01), loss=loss,
                  metrics=[metric] if y.ndim == 2 else [])
        h = m.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
        for key in sorted(h.history):
            emit(f"{act}/{y.ndim}/{key}", h.history[key])
        emit(f"{act}/{y.ndim}/evaluate", m.evaluate(x, y, verbose=0))
        emit(f"{act}/{y.ndim}/weights", m.get_weights())
    """, rtol=1e-4, atol=1e-5)


def test_the_kept_logits_go_with_their_outputs():
    # Keyed by the output's identity, weakly: an entry goes with its output (a
    # Tensor, an array, a tracer of fit's compiled step), so none outlives a trace
    # and an id reused by a later array finds nothing.
    import gc

    import numpy as np

    import eagertape.tf as tf
    from eagertape.tf import _keras_numerics
    K = tf.keras
    gc.collect()
    before = len(_keras_numerics._logits)
    p = K.activations.softmax(tf.constant([[30.0, 0.0, -30.0]]))
    assert _keras_numerics.logits_of(p) is not None or _keras_numerics.logits_of(p._v) is not None
    del p
    m = K.Sequential([K.Input((3,)), K.layers.Dense(3, activation="softmax")])
    m.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    m.fit(np.ones((8, 3), "float32"), np.zeros(8, "int64"), epochs=1, verbose=0)
    with tf.GradientTape() as tape:
        loss = K.losses.sparse_categorical_crossentropy([0], m(np.ones((1, 3), "float32")))
    assert all(g is not None for g in tape.gradient(loss, m.trainable_variables))
    del loss, tape
    gc.collect()
    assert len(_keras_numerics._logits) == before
