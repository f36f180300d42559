"""Customizing what ``fit()`` does, TF-style, through ``import eagertape.tf as tf``.

TF's guide "Customizing what happens in fit()": a Model subclass overrides
``train_step(self, data)`` with a GradientTape (here it also clips the gradients
by their global norm) and ``test_step(self, data)``; ``compile``/``fit`` then
give callbacks, validation and History as usual. eagertape runs the step in its
``tf.function`` (Keras-on-JAX's own ``train_step(state, data)`` is pure; this one
updates the variables in place, as TF's does).

    python examples/keras_custom_fit.py
"""
import numpy as np

import eagertape.tf as tf


class ClippedModel(tf.keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        grads, norm = tf.clip_by_global_norm(grads, 1.0)
        self.optimizer.apply(grads, self.trainable_variables)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {**{m.name: m.result() for m in self.metrics}, "grad_norm": norm}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


rs = np.random.RandomState(0)
x = rs.uniform(-2, 2, (600, 3)).astype("float32")
y = (np.sin(x[:, :1]) * x[:, 1:2] + 0.3 * x[:, 2:]).astype("float32")

inputs = tf.keras.Input(shape=(3,))
h = tf.keras.layers.Dense(32, activation="tanh")(inputs)
outputs = tf.keras.layers.Dense(1)(tf.keras.layers.Dense(32, activation="tanh")(h))
model = ClippedModel(inputs, outputs)
model.compile(optimizer=tf.keras.optimizers.Adam(3e-3), loss="mse", metrics=["mae"])
history = model.fit(x, y, batch_size=32, epochs=30, validation_split=0.2, verbose=0,
                    callbacks=[tf.keras.callbacks.EarlyStopping(patience=5,
                                                                restore_best_weights=True)])
h = history.history
for epoch in range(0, len(h["loss"]), 5):
    print(f"epoch {epoch:2d}  loss {h['loss'][epoch]:.4f}  val_loss {h['val_loss'][epoch]:.4f}  "
          f"val_mae {h['val_mae'][epoch]:.4f}")
print(f"epochs run: {len(h['loss'])}; first val_loss {h['val_loss'][0]:.4f}, "
      f"best {min(h['val_loss']):.4f}")
print("evaluate:", {k: round(float(v), 4) for k, v in
                    model.evaluate(x, y, verbose=0, return_dict=True).items()})
