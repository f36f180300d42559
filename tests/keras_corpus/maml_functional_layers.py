# MAML on sine regression, from hereismari/tensorflow-maml, maml.ipynb
# (https://github.com/hereismari/tensorflow-maml, "MAML reimplementation using
# TensorFlow 2.0"): SineModel(keras.Model) with a `forward` method, a plain
# network trained by train_model, train_maml's nested tapes (the inner gradient
# under the outer tape, second order), and eval_sine_test fine-tuning a
# copy_model copy with SGD. The optimizers are TF's names for Keras's
# (tf.optimizers.Adam / tf.optimizers.SGD) applied to model.trainable_variables.
# Adapted for Keras 3 (TF 2.21): the notebook's `model_copy.layers[j].kernel =
# tf.subtract(...)` raises there (Dense.kernel has no setter), so the adapted
# parameters go through a functional pass over the model's own layers,
# `layer.activation(tf.matmul(x, kernel) + bias)`, the first one on
# `layer.kernel` and `layer.bias` themselves; the ReLUs are therefore the
# layers' activations (Dense(40, activation="relu")) rather than applied in
# `forward`. Shrunk: 16 hidden units, 6 training tasks of K=10, one epoch,
# a 3-step evaluation; NumPy RandomState data; Keras's `mean_squared_error`
# (absent from Keras 3) as tf.keras.losses.MSE.
rs = np.random.RandomState(81)


class SinusoidGenerator:
    def __init__(self, K=10, amplitude=None, phase=None):
        self.K = K
        self.amplitude = amplitude if amplitude else rs.uniform(0.1, 5.0)
        self.phase = phase if amplitude else rs.uniform(0, np.pi)
        self.x = self._sample_x()

    def _sample_x(self):
        return rs.uniform(-5, 5, self.K)

    def f(self, x):
        return self.amplitude * np.sin(x - self.phase)

    def batch(self, x=None):
        x = self.x if x is None else x
        return x[:, None].astype("float32"), self.f(x)[:, None].astype("float32")

    def equally_spaced_samples(self, K=None):
        return self.batch(x=np.linspace(-5, 5, K or self.K))


train_ds = [SinusoidGenerator(K=10) for _ in range(6)]
test_task = SinusoidGenerator(K=10)


class SineModel(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden1 = tf.keras.layers.Dense(16, activation="relu")
        self.hidden2 = tf.keras.layers.Dense(16, activation="relu")
        self.out = tf.keras.layers.Dense(1)

    def forward(self, x):
        return self.out(self.hidden2(self.hidden1(x)))


def new_model(seed):
    model = SineModel()
    model.forward(tf.zeros((1, 1)))
    model.set_weights([w * 0.8 for w in weights_like(model, seed)])
    return model


def loss_function(pred_y, y):
    return tf.reduce_mean(tf.keras.losses.MSE(y, pred_y))


def compute_loss(model, x, y, loss_fn=loss_function):
    logits = model.forward(x)
    return loss_fn(y, logits), logits


def train_batch(x, y, model, optimizer):
    with tf.GradientTape() as tape:
        loss, _ = compute_loss(model, tf.convert_to_tensor(x), tf.convert_to_tensor(y))
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


def train_model(dataset, lr=0.01):
    model = new_model(82)
    optimizer = tf.optimizers.Adam(learning_rate=lr)
    losses = []
    for sinusoid_generator in dataset:
        x, y = sinusoid_generator.batch()
        losses.append(float(train_batch(x, y, model, optimizer)))
    return model, losses


def functional_forward(model, params, x):
    for layer, (kernel, bias) in zip(model.layers, params):
        x = layer.activation(tf.matmul(x, kernel) + bias)
    return x


def train_maml(model, dataset, lr_inner=0.01):
    optimizer = tf.optimizers.Adam(learning_rate=0.01)
    losses, total_loss = [], 0.0
    for i, t in enumerate(dataset):
        x, y = (tf.convert_to_tensor(v) for v in t.batch())
        with tf.GradientTape() as test_tape:
            with tf.GradientTape() as train_tape:
                own = [(layer.kernel, layer.bias) for layer in model.layers]
                train_loss = loss_function(functional_forward(model, own, x), y)
            gradients = train_tape.gradient(train_loss, model.trainable_variables)
            fast, k = [], 0
            for layer in model.layers:
                fast.append((tf.subtract(layer.kernel, tf.multiply(lr_inner, gradients[k])),
                             tf.subtract(layer.bias, tf.multiply(lr_inner, gradients[k + 1]))))
                k += 2
            test_loss = loss_function(functional_forward(model, fast, x), y)
        gradients = test_tape.gradient(test_loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        total_loss += float(test_loss)
        losses.append([float(train_loss), float(test_loss), total_loss / (i + 1.0)])
    return losses, gradients


def copy_model(model, x):
    copied_model = SineModel()
    copied_model.forward(tf.convert_to_tensor(x))
    copied_model.set_weights(model.get_weights())
    return copied_model


def eval_sine_test(model, optimizer, x, y, x_test, y_test, num_steps=(0, 1, 3)):
    fit_res = []
    if 0 in num_steps:
        loss, logits = compute_loss(model, x_test, y_test)
        fit_res.append([0, float(loss)])
    for step in range(1, np.max(num_steps) + 1):
        train_batch(x, y, model, optimizer)
        loss, logits = compute_loss(model, x_test, y_test)
        if step in num_steps:
            fit_res.append([step, float(loss)])
    return fit_res, logits


neural_net, nn_losses = train_model(train_ds)
emit("neural net losses", nn_losses)

maml = new_model(83)
maml_losses, meta_gradients = train_maml(maml, train_ds)
emit("maml losses", maml_losses)
emit("meta gradients", meta_gradients)
emit("maml weights", maml.get_weights())

x_test, y_test = test_task.equally_spaced_samples(20)
x, y = test_task.batch()
for name, model in (("maml", maml), ("neural net", neural_net)):
    copied = copy_model(model, x)
    fit_res, logits = eval_sine_test(copied, tf.optimizers.SGD(learning_rate=0.01), x, y,
                                     x_test, y_test)
    emit(f"{name} fit", fit_res)
    emit(f"{name} logits", logits)
