"""Keras's symbolic runs meeting TF code, as TF's Keras runs them.

1. Where a model is built. A tf.Variable made in a sublayer's ``build`` from a tensor
   computed there (``tf.random.normal``): TF's Keras refuses it when the model is
   first called eagerly (its symbolic build runs in a scratch graph whose tensors
   cannot be lifted; Keras builds again in the eager call,
   tests/test_keras_symbolic_build.py), and makes it from its value when the model
   is first built inside a trace: a ``tf.function``, or fit/evaluate/predict, whose
   train/test/predict function TF traces (Keras on JAX builds there by its
   ``_symbolic_build`` or a call in a StatelessScope, outside any trace).

2. ``tf.shape`` in Keras's symbolic call of a functional model, whose Input has a
   None batch: Keras on JAX traces it with a JAX symbolic size where TF's Keras has
   None. ``tf.shape(x)`` keeps the known sizes static and the None one symbolic
   (tf/_shape_dims.py), so that ``tf.reshape``, ``tf.range``, ``tf.tile``,
   ``tf.zeros``/``fill`` and slice bounds take it; where JAX's symbolic sizes cannot
   meet (a slice of a static axis to the batch: JAX's ``min(n, batch)``), the output
   spec is found with sizes, as TF's None meets any size (tf/_keras.py). The models'
   output shapes and their values after a call are TF's.

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


# Layers whose call takes sizes from tf.shape of its input, each in a functional
# model on an Input with a None batch (census kio_vq_vae, kio_text_generation_with_
# miniature_gpt, kio_vae): the model's output shapes (None as -1), then its values.
_SIZES = """
keras, layers = tf.keras, tf.keras.layers
def shape_of(t):
    return [-1 if d is None else d for d in t.shape]
def check(name, inputs, outputs, data):
    model = keras.Model(inputs, outputs)
    emit(name + "_shapes", [shape_of(o) for o in tf.nest.flatten(model.outputs)])
    emit(name, tf.nest.flatten(model(data)))
rs = np.random.RandomState(0)
"""


def test_tf_shape_of_a_none_batch_shapes_reshape_range_tile_and_fills():
    _same_as_tf(_SIZES + """
class Quantize(layers.Layer):                 # kio_vq_vae's VectorQuantizer
    def call(self, x):
        input_shape = tf.shape(x)
        flat = tf.reshape(x, [-1, 4])
        return tf.reshape(tf.round(flat * 4.0) / 4.0, input_shape)
i = keras.Input((3, 4))
check("reshape_to_shape", i, Quantize()(i), rs.rand(2, 3, 4).astype("float32"))

class Positions(layers.Layer):                # kio_text_generation's embedding
    def __init__(self):
        super().__init__(); self.emb = layers.Embedding(20, 3, embeddings_initializer="ones")
    def call(self, x):
        maxlen = tf.shape(x)[-1]
        return tf.cast(x, "float32")[..., None] + self.emb(tf.range(start=0, limit=maxlen, delta=1))
i = keras.Input((20,), dtype="int32")
check("range_of_a_static_size", i, Positions()(i), rs.randint(0, 5, (2, 20)).astype("int32"))

class Heads(layers.Layer):                    # kio_text_generation's attention
    def call(self, x):
        batch_size = tf.shape(x)[0]
        h = tf.transpose(tf.reshape(x, (batch_size, -1, 2, 3)), perm=[0, 2, 1, 3])
        shape = tf.shape(h)
        n_dest, n_src = shape[2], shape[3]
        mask = tf.cast(tf.range(n_dest)[:, None] >= tf.range(n_src) - n_src + n_dest, h.dtype)
        # (TF's static shape of this reshape is (None, None, 6): its shape inference
        # leaves a -1 beside an unknown size unknown, where JAX's symbolic sizes give
        # 3; the residual sum gives both (None, 3, 6), as in the census program.)
        return tf.reshape(tf.transpose(h * mask, perm=[0, 2, 1, 3]), (batch_size, -1, 6)) + x
i = keras.Input((3, 6))
check("reshape_with_the_batch", i, Heads()(i), rs.rand(2, 3, 6).astype("float32"))

class Sized(layers.Layer):                    # the batch as a size, computed on
    def call(self, x):
        b = tf.shape(x)[0]
        mult = tf.concat([tf.expand_dims(b, -1), [1, 1]], 0)
        mask = tf.tile(tf.ones((1, 2, 2)), mult)
        filled = tf.zeros([b, 3]) + tf.fill([b, 1], 1.5) + tf.ones(tf.stack([b, 1]))
        steps = tf.cast(tf.reshape(tf.range(b * 2 - 1)[: b], (-1, 1)), "float32")
        return mask, tf.concat([filled, steps, x], -1)
i = keras.Input((4,))
check("batch_arithmetic", i, Sized()(i), rs.rand(3, 4).astype("float32"))
""")


def test_a_slice_of_a_constant_to_the_batch_meets_the_batch_as_tfs_none_does():
    # kio_vae's Sampling (its noise a table sliced to the batch): JAX's size of the
    # slice is min(256, batch), which it cannot broadcast with the batch; TF's None
    # meets it, and so does the output spec found with sizes here.
    _same_as_tf(_SIZES + """
EPS = np.arange(512, dtype=np.float32).reshape(256, 2) / 100
class Sampling(layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        batch, dim = tf.shape(z_mean)[0], tf.shape(z_mean)[1]
        return z_mean + tf.exp(0.5 * z_log_var) * tf.constant(EPS)[:batch, :dim]
a, b = keras.Input((2,)), keras.Input((2,))
z = Sampling()([a, b])
check("sampling", [a, b], [z, layers.Dense(3, kernel_initializer="ones")(z)],
      [rs.rand(3, 2).astype("float32"), rs.rand(3, 2).astype("float32")])
m = keras.Model([a, b], z)
m.compile(loss="mse", optimizer=tf.keras.optimizers.SGD(0.1))
x2 = [rs.rand(8, 2).astype("float32"), rs.rand(8, 2).astype("float32")]
emit("evaluated", m.evaluate(x2, x2[0], batch_size=4, verbose=0))
""")


def test_tf_shape_of_a_none_size_in_a_relaxed_tf_function():
    # eagertape's tf.function traces a signature with a None size with JAX's
    # symbolic sizes too: tf.shape there shapes tensors, with TF's values.
    _same_as_tf("""
@tf.function(reduce_retracing=True)
def f(x):
    s = tf.shape(x)
    b = s[0]
    y = tf.reshape(tf.reshape(x, [-1]) * 2.0, s)
    r = tf.cast(tf.range(b * 2 - 1), tf.float32)
    z = tf.zeros([b, 2]) + tf.fill([b, 1], 0.5)
    t = tf.constant(np.arange(12, dtype=np.float32))[:b]
    return y, r, z, t
for n in (2, 3, 4, 5):
    emit(f"f{n}", list(f(tf.ones((n, 3)) * float(n))))
""")
