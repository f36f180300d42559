"""TF's Core-API MLP, through ``import eagertape.tf as tf``.

The program of TF's guide "Multilayer perceptrons for digit recognition with Core
APIs" on a small problem (no download): ``tf.Module`` layers built lazily inside a
``tf.function`` (their Variables made on the first trace), a ``tf.data`` pipeline,
a hand-written Adam over ``tf.Variable``s, the training step under a
``GradientTape``, and a ``tf.train.CheckpointManager`` whose checkpoint is restored
into a freshly built model. The one line that differs from the TF program is the
import; the tests run both and compare every epoch's losses.

    python examples/core_api_mlp.py
"""
import tempfile

import numpy as np

import eagertape.tf as tf

rng = np.random.RandomState(0)
x_all = rng.rand(600, 16).astype("float32")
y_all = (x_all[:, :4].sum(1) * 2).astype("int64") % 4


def xavier_init(shape, seed):
    in_dim, out_dim = shape
    r = np.random.RandomState(seed)
    return (r.uniform(-1, 1, shape) * np.sqrt(6.0 / (in_dim + out_dim))).astype("float32")


class DenseLayer(tf.Module):
    def __init__(self, out_dim, seed, activation=tf.identity):
        self.out_dim, self.seed, self.activation, self.built = out_dim, seed, activation, False

    def __call__(self, x):
        if not self.built:
            self.in_dim = x.shape[1]
            self.w = tf.Variable(xavier_init((self.in_dim, self.out_dim), self.seed))
            self.b = tf.Variable(tf.zeros(shape=(self.out_dim,)))
            self.built = True
        return self.activation(tf.add(tf.matmul(x, self.w), self.b))


class MLP(tf.Module):
    def __init__(self, layers):
        self.layers = layers

    @tf.function
    def __call__(self, x, preds=False):
        for layer in self.layers:
            x = layer(x)
        return x


def cross_entropy_loss(y_pred, y):
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=y_pred))


def accuracy(y_pred, y):
    class_preds = tf.argmax(tf.nn.softmax(y_pred), axis=1)
    return tf.reduce_mean(tf.cast(tf.equal(class_preds, y), tf.float32))


class Adam:
    def __init__(self, learning_rate=1e-2, beta_1=0.9, beta_2=0.999, ep=1e-7):
        self.beta_1, self.beta_2, self.learning_rate, self.ep = beta_1, beta_2, learning_rate, ep
        self.t, self.v_dvar, self.s_dvar, self.built = 1., [], [], False

    def apply_gradients(self, grads, vars):
        if not self.built:
            for var in vars:
                self.v_dvar.append(tf.Variable(tf.zeros(shape=var.shape)))
                self.s_dvar.append(tf.Variable(tf.zeros(shape=var.shape)))
            self.built = True
        for i, (d_var, var) in enumerate(zip(grads, vars)):
            self.v_dvar[i].assign(self.beta_1 * self.v_dvar[i] + (1 - self.beta_1) * d_var)
            self.s_dvar[i].assign(self.beta_2 * self.s_dvar[i]
                                  + (1 - self.beta_2) * tf.square(d_var))
            v_dvar_bc = self.v_dvar[i] / (1 - (self.beta_1 ** self.t))
            s_dvar_bc = self.s_dvar[i] / (1 - (self.beta_2 ** self.t))
            var.assign_sub(self.learning_rate * (v_dvar_bc / (tf.sqrt(s_dvar_bc) + self.ep)))
        self.t += 1.


def train_step(x_batch, y_batch, loss, acc, model, optimizer):
    with tf.GradientTape() as tape:
        y_pred = model(x_batch)
        batch_loss = loss(y_pred, y_batch)
    batch_acc = acc(y_pred, y_batch)
    grads = tape.gradient(batch_loss, model.variables)
    optimizer.apply_gradients(grads, model.variables)
    return batch_loss, batch_acc


train_data = tf.data.Dataset.from_tensor_slices((x_all[:500], y_all[:500]))
val_data = tf.data.Dataset.from_tensor_slices((x_all[500:], y_all[500:]))
train_data = train_data.batch(64).map(lambda x, y: (x * 2.0 - 1.0, y)).prefetch(tf.data.AUTOTUNE)
val_data = val_data.batch(50).map(lambda x, y: (x * 2.0 - 1.0, y))

mlp = MLP([DenseLayer(32, 1, activation=tf.nn.relu), DenseLayer(4, 2)])
opt = Adam()
for epoch in range(10):
    losses, accs = zip(*(train_step(x, y, cross_entropy_loss, accuracy, mlp, opt)
                         for x, y in train_data))
    val_losses = [cross_entropy_loss(mlp(x), y) for x, y in val_data]
    print(f"epoch {epoch} loss {float(tf.reduce_mean(losses)):.5f} "
          f"accuracy {float(tf.reduce_mean(accs)):.4f} "
          f"validation loss {float(tf.reduce_mean(val_losses)):.5f}")

ckpt_dir = tempfile.mkdtemp()
manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=mlp), ckpt_dir, max_to_keep=2)
path = manager.save()
fresh = MLP([DenseLayer(32, 7, activation=tf.nn.relu), DenseLayer(4, 8)])
fresh(tf.zeros([1, 16]))
tf.train.Checkpoint(model=fresh).restore(tf.train.latest_checkpoint(ckpt_dir)).assert_consumed()
x0 = next(iter(val_data))[0]
print(f"restored into a fresh model from {path.split('/')[-1]}: largest difference "
      f"{float(tf.reduce_max(tf.abs(fresh(x0) - mlp(x0)))):g}")
