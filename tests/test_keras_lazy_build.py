"""A subclassed model whose variables its first train_step makes, trained with fit,
as TF's Keras trains it.

Keras's JAX trainer builds a model symbolically before fit's first step, and its
optimizer with the variables that build made; TF's trainer builds neither: the
model's variables are made where the traced step first calls its layers, and the
optimizer is built at its first ``apply_gradients``, with the variables given there.
A model the symbolic build cannot call (census kio_transformer_asr: ``call`` reads
``inputs[0]`` of a dict batch), or whose train_step calls a layer ``call`` does not,
or applies its optimizer to some variables only, must train as in TF: the same
losses, weights and optimizer slots, in eager and fused mode.

Each program runs in TF's Keras and through eagertape, each in a process of its own
(tests/test_keras.py's runner); the variables' initial values are a function of
their shapes, so both start alike.
"""
import textwrap

import pytest

from test_keras import _same_as_tf

pytest.importorskip("keras")

_MODEL = """
keras = tf.keras
class Init(keras.initializers.Initializer):
    # The same values in both runs: a function of the shape.
    def __call__(self, shape, dtype=None):
        n = int(np.prod(shape))
        return tf.constant((np.sin(np.arange(n) * 0.7 + n) * 0.3)
                           .reshape(shape).astype("float32"))
rng = np.random.RandomState(0)
x = rng.randn(16, 5).astype("float32")
y = rng.randn(16, 3).astype("float32")
def report(model, history):
    for k in sorted(history.history):
        emit(k, history.history[k])
    emit("weights", [w.numpy() for w in model.trainable_variables])
    emit("optimizer_variables", [v.numpy() for v in model.optimizer.variables])
    emit("iterations", model.optimizer.iterations.numpy())
"""

pytestmark = pytest.mark.both_modes


def _check(program):
    return _same_as_tf(_MODEL + textwrap.dedent(program))


def test_a_model_its_symbolic_build_cannot_call_is_built_by_its_step():
    # The census program's shape: call takes [source, target]; fit's batches are dicts.
    # Its initializer draws from one generator, as the census's do: the values each
    # variable gets follow the builds' order, TF's whole-model build at the step's
    # first call included (fit's failed build leaves no layer marked built).
    _check("""
    draws = []
    class Drawn(keras.initializers.Initializer):
        def __call__(self, shape, dtype=None):
            draws.append(tuple(shape))
            n = int(np.prod(shape))
            return tf.constant((np.sin(np.arange(n) * 0.7 + len(draws)) * 0.3)
                               .reshape(shape).astype("float32"))
    class Embed(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(4, kernel_initializer=Drawn(),
                                            bias_initializer=Init())
        def call(self, x):
            return tf.nn.relu(self.dense(x))
    class Model(keras.Model):
        def __init__(self):
            super().__init__()
            self.embed = Embed()
            self.classifier = keras.layers.Dense(3, kernel_initializer=Drawn())
            self.loss_metric = keras.metrics.Mean(name="loss")
        def call(self, inputs):
            return self.classifier(self.embed(inputs[0]) + inputs[1])
        @property
        def metrics(self):
            return [self.loss_metric]
        def train_step(self, batch):
            source, target = batch["source"], batch["target"]
            with tf.GradientTape() as tape:
                pred = self([source, source[:, :4]])
                loss = self.compute_loss(None, target, pred)
            variables = self.trainable_variables
            self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
            self.loss_metric.update_state(loss)
            return {"loss": self.loss_metric.result()}
        def test_step(self, batch):
            pred = self([batch["source"], batch["source"][:, :4]])
            self.loss_metric.update_state(self.compute_loss(None, batch["target"], pred))
            return {"loss": self.loss_metric.result()}
    ds = tf.data.Dataset.from_tensor_slices({"source": x, "target": y}).batch(4)
    model = Model()
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
    history = model.fit(ds, validation_data=ds.take(2), epochs=3, verbose=0)
    report(model, history)
    emit("draws", draws)
    """)


def test_a_layer_only_the_step_calls_is_in_the_optimizers_first_build():
    # The symbolic build builds `body`; the step makes `head` too, and TF's optimizer
    # is built with both.
    _check("""
    class Model(keras.Model):
        def __init__(self):
            super().__init__()
            self.body = keras.layers.Dense(4, kernel_initializer=Init())
            self.head = keras.layers.Dense(3, kernel_initializer=Init())
            self.loss_tracker = keras.metrics.Mean(name="step_loss")
        def call(self, x):
            return self.body(x)
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self.head(tf.nn.relu(self(x))) - y))
            variables = self.trainable_variables
            self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
            self.loss_tracker.update_state(loss)
            return {"step_loss": self.loss_tracker.result()}
    model = Model()
    model.compile(optimizer=keras.optimizers.Adam(0.05))
    history = model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
    report(model, history)
    """)


def test_an_optimizer_applied_to_some_variables_is_built_with_those():
    # TF's optimizer has slots for what it is first applied to, not for every weight.
    _check("""
    class Model(keras.Model):
        def __init__(self):
            super().__init__()
            self.frozen = keras.layers.Dense(4, kernel_initializer=Init())
            self.tuned = keras.layers.Dense(3, kernel_initializer=Init())
            self.loss_tracker = keras.metrics.Mean(name="step_loss")
        def call(self, x):
            return self.tuned(tf.nn.relu(self.frozen(x)))
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self(x) - y))
            variables = self.tuned.trainable_variables
            self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
            self.loss_tracker.update_state(loss)
            return {"step_loss": self.loss_tracker.result()}
    model = Model()
    model.compile(optimizer=keras.optimizers.SGD(0.1, momentum=0.9))
    history = model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
    report(model, history)
    """)
