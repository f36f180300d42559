"""A TF-Keras training loop from scratch, through ``import eagertape.tf as tf``.

The program of TF's guide "Writing a training loop from scratch" on a small
problem (two interleaved spirals, no download): a functional Keras model, a
loss object, Adam, accuracy metrics reset each epoch, the step under
``tf.function``, a validation pass. The one line that differs from the TF
program is the import; ``notebooks/07_porting_a_keras_loop.ipynb`` runs both and
plots their loss curves.

    python examples/keras_training_loop.py
"""
import numpy as np

import eagertape.tf as tf


def spirals(n, seed):
    rs = np.random.RandomState(seed)
    t = rs.uniform(0.25, 3.0, n) * np.pi
    label = rs.randint(0, 2, n)
    r = t / (3.0 * np.pi)
    angle = t + np.pi * label
    x = np.stack([r * np.cos(angle), r * np.sin(angle)], axis=1) + rs.normal(0, 0.02, (n, 2))
    return x.astype("float32"), label.astype("int32")


x_train, y_train = spirals(512, seed=0)
x_val, y_val = spirals(256, seed=1)

inputs = tf.keras.Input(shape=(2,))
h = tf.keras.layers.Dense(32, activation="relu")(inputs)
h = tf.keras.layers.Dense(32, activation="relu")(h)
outputs = tf.keras.layers.Dense(2)(h)
model = tf.keras.Model(inputs, outputs)
# Weights from NumPy: TF's and Keras-on-JAX's initializers draw different numbers.
rs = np.random.RandomState(42)
model.set_weights([(rs.randn(*w.shape) * np.sqrt(2.0 / w.shape[0])).astype("float32")
                   if w.ndim == 2 else np.zeros(w.shape, "float32") for w in model.get_weights()])

optimizer = tf.keras.optimizers.Adam(learning_rate=1e-2)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
train_acc = tf.keras.metrics.SparseCategoricalAccuracy()
val_acc = tf.keras.metrics.SparseCategoricalAccuracy()


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss_value = loss_fn(y, logits)
    grads = tape.gradient(loss_value, model.trainable_weights)
    optimizer.apply_gradients(zip(grads, model.trainable_weights))
    train_acc.update_state(y, logits)
    return loss_value


@tf.function
def test_step(x, y):
    val_acc.update_state(y, model(x, training=False))


batch = 64
for epoch in range(25):
    losses = []
    for i in range(0, len(x_train), batch):
        losses.append(float(train_step(x_train[i:i + batch], y_train[i:i + batch])))
    for i in range(0, len(x_val), batch):
        test_step(x_val[i:i + batch], y_val[i:i + batch])
    print(f"epoch {epoch:2d}  loss {np.mean(losses):.4f}  train accuracy "
          f"{float(train_acc.result()):.3f}  validation accuracy {float(val_acc.result()):.3f}")
    train_acc.reset_state()
    val_acc.reset_state()
