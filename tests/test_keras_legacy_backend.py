"""``tf.keras.backend``'s functions (``from tensorflow.keras import backend as K``:
``K.sum``, ``K.mean``, ``K.softmax``, ``K.relu``, ...) as TF's Keras computes them,
eagerly and inside a model's own ``train_step`` (census kio_mnist_moe: its MoE layer's
load-balancing losses; before, ``K.softmax`` raised AttributeError ("'tuple' object
has no attribute 'rank'") and ``K.mean`` "... no attribute 'base_dtype'": they are
Keras's legacy backend, written in TensorFlow, and were called on JAX arrays).

TF's Keras runs in a subprocess (a test process's Keras is on JAX).
"""
import textwrap

import numpy as np
import pytest

import tf_oracle

tf_oracle.require("tensorflow")

import eagertape.tf as tf  # noqa: E402

_PROGRAM = textwrap.dedent("""
    import numpy as np

    def _x():
        return (np.arange(12, dtype="float32").reshape(3, 4) - 5.0) / 7.0

    def eager(tf):
        K = tf.keras.backend
        x = tf.constant(_x())
        p = K.softmax(x)
        out = {
            "sum": K.sum(x, axis=1), "mean": K.mean(x), "log": K.log(K.exp(x) + 1.0),
            "square": K.square(x), "relu": K.relu(x - 0.1), "softmax": p,
            "softmax_tuple_axis": K.softmax(x, axis=(0, 1)), "ndim": K.ndim(x),
            "entropy": -K.sum(p * K.log(p + 1e-10), axis=1),
            "max": K.max(x, axis=0), "sqrt": K.sqrt(K.abs(x)),
        }
        try:
            K.softmax(tf.constant([1.0, 2.0]))
            out["softmax_1d"] = "no error"
        except ValueError as e:
            out["softmax_1d"] = type(e).__name__
        return {k: np.round(np.asarray(v, dtype="float64"), 5).tolist()
                if not isinstance(v, str) else v for k, v in out.items()}

    def in_train_step(tf):
        keras = tf.keras
        K = keras.backend

        class Balanced(keras.Model):
            def __init__(self):
                super().__init__()
                self.gate = keras.layers.Dense(3, kernel_initializer="ones")
                self.out = keras.layers.Dense(2, kernel_initializer="ones")

            def call(self, x):
                g = K.softmax(self.gate(x))
                return self.out(g * K.relu(x[:, :3]))

            def train_step(self, data):
                x, y = data
                with tf.GradientTape() as tape:
                    y_pred = self(x, training=True)
                    s = K.sum(K.softmax(y_pred), axis=0)
                    balance = K.mean(K.square(s - K.mean(s)))
                    loss = K.mean(K.square(y - y_pred)) + 0.5 * balance
                grads = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
                return {"loss": loss, "balance": balance}

        rs = np.random.RandomState(0)
        x = rs.normal(size=(16, 4)).astype("float32")
        y = rs.normal(size=(16, 2)).astype("float32")
        m = Balanced()
        m.compile(optimizer=keras.optimizers.SGD(0.1))
        h = m.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0).history
        return {k: [round(float(v), 5) for v in vs] for k, vs in sorted(h.items())}
""")


def _tf(name):
    return tf_oracle.tf_keras_text("keras-legacy-backend", _PROGRAM, name)


def _eagertape(name):
    scope = {}
    exec(_PROGRAM, scope)
    return scope[name](tf)


def _close(got, want):
    assert got.keys() == want.keys()
    for k in want:
        if isinstance(want[k], str):
            assert got[k] == want[k], k
        else:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-4, atol=1e-5, err_msg=k)


def test_backend_functions_eagerly():
    want = _tf("eager")
    assert want["softmax_1d"] == "ValueError" and want["ndim"] == 2.0
    _close(_eagertape("eager"), want)


def test_backend_functions_in_a_train_step():
    want = _tf("in_train_step")
    assert len(want["loss"]) == 2
    _close(_eagertape("in_train_step"), want)


def test_backend_names_are_tfs_kerases():
    K = tf.keras.backend
    assert K.softmax.__module__ == "keras.src.legacy.backend"
    with pytest.raises(ValueError, match="1D"):
        K.softmax(tf.constant([1.0, 2.0]))
