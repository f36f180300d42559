"""tf.Variables that a program's layers read or assign in ``call``, inside Keras's
compiled fit, evaluate and predict steps: TF's Keras runs those steps as a traced
``tf.function``, which reads a Variable at each step and writes its assignments
back. eagertape's Keras compiles them with ``jax.jit`` (Keras's JAX trainer): a
Variable read there was a constant of the first trace (a callback's ``assign``
between epochs was not seen: a silent wrong answer), and an assignment leaked the
trace's value (UnexpectedTracerError). ``extend.variables_threaded`` makes them
the steps' inputs and outputs.

Each program runs in TF and through eagertape (tests/test_keras.py's runner).
"""
import textwrap

import pytest

from test_keras import _same_as_tf

pytest.importorskip("keras")

_DATA = """
x = (np.arange(24, dtype="float32").reshape(8, 3) / 24)
y = np.ones((8, 1), "float32")
"""


def test_a_variable_a_callback_assigns_is_read_at_each_step():
    # KL annealing's pattern: a global weight the loss reads, set between epochs
    _same_as_tf(_DATA + textwrap.dedent("""
    scale = tf.Variable(1.0, trainable=False)
    class Scaled(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones")
        def call(self, inp):
            return self.dense(inp) * scale
    class Bump(tf.keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            scale.assign(scale * 3.0)
    inp = tf.keras.Input((3,))
    m = tf.keras.Model(inp, Scaled()(inp))
    m.compile(tf.keras.optimizers.SGD(0.01), "mse")
    h = m.fit(x, y, epochs=3, batch_size=4, verbose=0, shuffle=False,
              callbacks=[Bump()])
    emit("loss", h.history["loss"])
    emit("evaluate", m.evaluate(x, y, verbose=0))
    emit("predict", m.predict(x, verbose=0))
    scale.assign(0.5)
    emit("predict after", m.predict(x, verbose=0))
    """))


def test_variables_a_layer_assigns_in_call_count_every_step():
    _same_as_tf(_DATA + textwrap.dedent("""
    class Counting(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.calls = tf.Variable(0.0, trainable=False)
            self.total = tf.Variable(tf.zeros(3), trainable=False)
            self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones")
        def call(self, inp):
            self.calls.assign_add(1.0)
            self.total.assign(self.total + tf.reduce_sum(inp, axis=0))
            return self.dense(inp)
    layer = Counting()
    inp = tf.keras.Input((3,))
    m = tf.keras.Model(inp, layer(inp))
    m.compile(tf.keras.optimizers.SGD(0.01), "mse")
    h = m.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False)
    emit("loss", h.history["loss"])
    emit("after fit", [layer.calls, layer.total])
    m.evaluate(x, y, batch_size=4, verbose=0)
    emit("after evaluate", [layer.calls, layer.total])
    m.predict(x, batch_size=8, verbose=0)
    emit("after predict", [layer.calls, layer.total])
    emit("weights", [len(m.weights), len(layer.non_trainable_weights)])
    """))


def test_a_variable_read_in_the_loss_of_a_train_step_override_is_current():
    # a custom train_step (GAN/VAE style) reading a tf.Variable weight of its loss
    _same_as_tf(_DATA + textwrap.dedent("""
    beta = tf.Variable(0.0, trainable=False)
    class Model(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones")
        def call(self, inp):
            return self.dense(inp)
        def train_step(self, data):
            xb, yb = data
            with tf.GradientTape() as tape:
                pred = self(xb, training=True)
                loss = tf.reduce_mean(tf.square(pred - yb)) + beta * tf.reduce_sum(
                    tf.square(self.dense.kernel))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {"loss": loss, "beta": beta}
    class Anneal(tf.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            beta.assign(0.5 * epoch)
    m = Model()
    m.compile(tf.keras.optimizers.SGD(0.01))
    h = m.fit(x, y, epochs=3, batch_size=4, verbose=0, shuffle=False,
              callbacks=[Anneal()])
    emit("loss", h.history["loss"])
    emit("beta", h.history["beta"])
    emit("kernel", m.dense.kernel)
    """))
