# keras.io "Customizing what happens in fit() with TensorFlow", "Going
# lower-level" and "Providing your own evaluation step": metrics made in
# __init__ and listed by the `metrics` property (reset each epoch by fit), a
# loss object called in train_step, and a test_step(self, data) that evaluate
# and fit's validation run.


class CustomModel(tf.keras.Model):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = tf.keras.metrics.Mean(name="loss")
        self.mae_metric = tf.keras.metrics.MeanAbsoluteError(name="mae")
        self.loss_fn = tf.keras.losses.MeanSquaredError()

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.loss_fn(y, y_pred)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred)
        return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        self.loss_tracker.update_state(self.loss_fn(y, y_pred))
        self.mae_metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]


rs = np.random.RandomState(41)
x = rs.random_sample((48, 5)).astype("float32")
y = np.sin(x.sum(axis=1, keepdims=True)).astype("float32")
inputs = tf.keras.Input(shape=(5,))
outputs = tf.keras.layers.Dense(1)(tf.keras.layers.Dense(6, activation="relu")(inputs))
model = CustomModel(inputs, outputs)
model.set_weights(weights_like(model, 42))
model.compile(optimizer=tf.keras.optimizers.SGD(0.05, momentum=0.9))
hist = model.fit(x, y, batch_size=12, epochs=4, shuffle=False, verbose=0,
                 validation_data=(x[:12], y[:12]))
emit("history", [hist.history[k] for k in sorted(hist.history)])
emit("evaluate", model.evaluate(x, y, batch_size=16, verbose=0))
emit("evaluate dict", sorted(model.evaluate(x, y, verbose=0, return_dict=True).values()))
emit("weights", model.get_weights())
