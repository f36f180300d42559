# TF guide "Basic training loops" (tensorflow/docs, site/en/guide/basic_training_loops.ipynb,
# https://www.tensorflow.org/guide/basic_training_loops) and "Introduction to modules"
# (site/en/guide/intro_to_modules.ipynb, https://www.tensorflow.org/guide/intro_to_modules),
# shrunk: MyModelKeras(tf.keras.Model) holding `self.w = tf.Variable(5.0)` and
# `self.b = tf.Variable(0.0)`, trained by the guide's manual tape loop (assign_sub),
# then compiled and fit as in the guide; FlexibleDense(tf.keras.layers.Layer) making
# tf.Variables in `build` with tf.random.normal, inside MySequentialModel and a
# functional model, trained by a tape loop. Adapted: 41 examples with NumPy noise
# instead of 201 with tf.random.normal; the build-time random values are overwritten
# from NumPy (assign) so both runs start equal; loss=tf.keras.losses.MSE for the
# guide's tf.keras.losses.mean_squared_error (absent from Keras 3); no checkpoint or
# .keras file is saved. In TF 2.21 (Keras 3) a tf.Variable set on a Keras
# Model/Layer is not tracked: `variables` and `trainable_variables` are empty,
# fit warns "no trainable weights" and leaves w and b as they were, while the
# tape still differentiates them; the program records that as TF does it.
TRUE_W, TRUE_B = 3.0, 2.0
rs = np.random.RandomState(51)
x = np.linspace(-2, 2, 41).astype("float32")
y = (x * TRUE_W + TRUE_B + rs.randn(41)).astype("float32")


def loss(target_y, predicted_y):
    return tf.reduce_mean(tf.square(target_y - predicted_y))


def train(model, x, y, learning_rate):
    with tf.GradientTape() as t:
        current_loss = loss(y, model(x))
    dw, db = t.gradient(current_loss, [model.w, model.b])
    model.w.assign_sub(learning_rate * dw)
    model.b.assign_sub(learning_rate * db)


def training_loop(model, x, y, epochs=6):
    weights, biases, losses = [], [], []
    for epoch in range(epochs):
        train(model, x, y, learning_rate=0.1)
        weights.append(model.w.numpy())
        biases.append(model.b.numpy())
        losses.append(float(loss(y, model(x))))
    return weights, biases, losses


class MyModelKeras(tf.keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(5.0)
        self.b = tf.Variable(0.0)

    def call(self, x):
        return self.w * x + self.b


keras_model = MyModelKeras()
emit("starting loss", loss(y, keras_model(x)))
w_hist, b_hist, l_hist = training_loop(keras_model, x, y)
emit("manual w", w_hist)
emit("manual b", b_hist)
emit("manual loss", l_hist)
emit("tracked", [len(keras_model.variables), len(keras_model.trainable_variables)])

keras_model = MyModelKeras()
keras_model.compile(run_eagerly=False, optimizer=tf.keras.optimizers.SGD(learning_rate=0.1),
                    loss=tf.keras.losses.MSE)
hist = keras_model.fit(x, y, epochs=3, batch_size=1000, verbose=0)
emit("fit loss", hist.history["loss"])
emit("after fit", [keras_model.w.numpy(), keras_model.b.numpy()])
emit("evaluate", keras_model.evaluate(x, y, verbose=0))


class FlexibleDense(tf.keras.layers.Layer):
    def __init__(self, out_features, **kwargs):
        super().__init__(**kwargs)
        self.out_features = out_features

    def build(self, input_shape):
        self.w = tf.Variable(tf.random.normal([input_shape[-1], self.out_features]), name="w")
        self.b = tf.Variable(tf.zeros([self.out_features]), name="b")

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b


class MySequentialModel(tf.keras.Model):
    def __init__(self, name=None, **kwargs):
        super().__init__(**kwargs)
        self.dense_1 = FlexibleDense(out_features=3)
        self.dense_2 = FlexibleDense(out_features=2)

    def call(self, x):
        x = self.dense_1(x)
        return self.dense_2(x)


def own_variables(model):
    return [v for layer in (model.dense_1, model.dense_2) for v in (layer.w, layer.b)]


xs = rs.randn(16, 3).astype("float32")
ys = rs.randn(16, 2).astype("float32")
my_sequential_model = MySequentialModel(name="the_model")
my_sequential_model(tf.constant([[2.0, 2.0, 2.0]]))
params = own_variables(my_sequential_model)
for i, v in enumerate(params):
    v.assign((np.random.RandomState(60 + i).randn(*v.shape) * 0.5).astype("float32"))
emit("model results", my_sequential_model(tf.constant([[2.0, 2.0, 2.0]])))
emit("sequential tracked", [len(my_sequential_model.variables),
                            len(my_sequential_model.trainable_variables),
                            len(my_sequential_model.dense_1.variables)])
seq_losses = []
for step in range(5):
    with tf.GradientTape() as tape:
        l = loss(ys, my_sequential_model(xs))
    grads = tape.gradient(l, params)
    for v, g in zip(params, grads):
        v.assign_sub(0.05 * g)
    seq_losses.append(float(l))
emit("sequential losses", seq_losses)
emit("sequential grads", grads)
emit("sequential params", params)

inputs = tf.keras.Input(shape=[3])
first, second = FlexibleDense(3), FlexibleDense(2)
my_functional_model = tf.keras.Model(inputs=inputs, outputs=second(first(inputs)))
fparams = [first.w, first.b, second.w, second.b]
for v, p in zip(fparams, params):
    v.assign(p)
emit("functional results", my_functional_model(tf.constant([[2.0, 2.0, 2.0]])))
emit("functional tracked", [len(my_functional_model.variables),
                            len(my_functional_model.trainable_variables)])
with tf.GradientTape() as tape:
    l = loss(ys, my_functional_model(xs))
emit("functional grads", tape.gradient(l, fparams))
