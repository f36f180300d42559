"""Keras's symbolic runs meeting TF code, as TF's Keras runs them.

1. Where a model is built. A tf.Variable made in a sublayer's ``build`` from a tensor
   computed there (``tf.random.normal``): TF's Keras refuses it when the model is
   first called eagerly (its symbolic build runs in a scratch graph whose tensors
   cannot be lifted; Keras builds again in the eager call,
   tests/test_keras_symbolic_build.py), and makes it from its value when the model
   is first built inside a trace: a ``tf.function``, or fit/evaluate/predict, whose
   train/test/predict function TF traces (Keras on JAX builds there by its
   ``_symbolic_build`` or a call in a StatelessScope, outside any trace).

Each program runs in TF and through eagertape (tests/test_keras.py's runner).
"""
import pytest

from test_keras import _same_as_tf

pytest.importorskip("keras")

# A model whose sublayers make tf.Variables in build from tensors, drawn from a
# generator the program owns (each draw counted: TF's failed scratch build draws).
_MODEL = """
import warnings
def make():
    draws = []
    def normal(shape):
        draws.append(list(shape))
        return tf.constant(np.full(shape, 0.1 * len(draws), np.float32))
    class Lin(tf.keras.layers.Layer):
        def __init__(self, units):
            super().__init__(); self.units = units
        def build(self, input_shape):
            self.w = tf.Variable(normal([input_shape[-1], self.units]))
            self.b = tf.Variable(tf.zeros([self.units]) + 0.5)
            self.k = self.add_weight(shape=(self.units,), initializer="ones")
        def call(self, x):
            return tf.matmul(x, self.w) * self.k + self.b
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__(); self.l1 = Lin(4); self.l2 = Lin(1)
        def call(self, x):
            return self.l2(tf.nn.relu(self.l1(x)))
    net = Net()
    net.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    return net, draws
xs = np.random.RandomState(1).rand(8, 3).astype("float32")
ys = xs[:, :1] * 2.0
def report(name, net, draws, result):
    emit(name, result)
    emit(name + "_draws", [float(len(d)) for d in draws])
    emit(name + "_weights", [net.l1.w, net.l1.b, net.l1.k, net.l2.w, net.l2.k])
    emit(name + "_built", [float(net.built), float(net.get_build_config() is None)])
"""


@pytest.mark.parametrize("how", [
    "fit", "train_on_batch", "evaluate", "test_on_batch", "predict", "predict_on_batch"])
def test_a_tf_variable_made_from_a_tensor_in_build_is_made_once_by_fit_evaluate_predict(how):
    # TF's Keras builds the model in the trace of its train/test/predict function:
    # the initializer lifted, each sublayer built once, the model given a build
    # config. (Keras's JAX trainer builds it before, symbolically: the same here.)
    run = {
        "fit": "net.fit(xs, ys, epochs=2, batch_size=4, shuffle=False, verbose=0).history['loss']",
        "train_on_batch": "[net.train_on_batch(xs, ys), net.train_on_batch(xs, ys)]",
        "evaluate": "net.evaluate(xs, ys, batch_size=4, verbose=0)",
        "test_on_batch": "net.test_on_batch(xs, ys)",
        "predict": "net.predict(xs, verbose=0)",
        "predict_on_batch": "net.predict_on_batch(xs)",
    }[how]
    _same_as_tf(_MODEL + f"""
net, draws = make()
report("{how}", net, draws, {run})
emit("then_called", net(tf.constant(xs)))
""")


def test_a_model_first_called_in_a_tf_function_is_built_once_and_a_model_called_eagerly_twice():
    # Both situations side by side: in a tf.function TF lifts the initializer (one
    # build of each sublayer); eagerly its scratch build fails silently and Keras
    # builds in the eager call (dense_1's build runs twice, no build config).
    _same_as_tf(_MODEL + """
net, draws = make()
report("function", net, draws, tf.function(lambda x: net(x))(tf.constant(xs)))
net, draws = make()
report("eager", net, draws, net(tf.constant(xs)))
net, draws = make()                       # eager first, then fit: built once already
report("eager_then_fit", net, draws,
       [net(tf.constant(xs)), net.fit(xs, ys, epochs=1, batch_size=8, verbose=0).history["loss"]])
""")


def test_fit_builds_a_model_whose_variable_comes_from_the_input_shape_only():
    # The initial value from build's input shape and a computed tensor (tf.ones *
    # a float of the shape): lifted in fit as in TF; the model trains its Keras
    # weights from there.
    _same_as_tf("""
class Scaled(tf.keras.layers.Layer):
    def build(self, input_shape):
        n = input_shape[-1]
        self.s = tf.Variable(tf.ones([n]) * float(n), trainable=False)
        self.w = self.add_weight(shape=(n, 2), initializer="ones")
    def call(self, x):
        return tf.matmul(x / self.s, self.w)
class M(tf.keras.Model):
    def __init__(self):
        super().__init__(); self.inner = Scaled()
    def call(self, x):
        return self.inner(x)
m = M()
m.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
x = np.arange(24, dtype=np.float32).reshape(6, 4) / 10.0
h = m.fit(x, x[:, :2], epochs=3, batch_size=3, shuffle=False, verbose=0)
emit("loss", h.history["loss"])
emit("weights", [m.inner.s, m.inner.w])
""")
