# keras.io "Customizing what happens in fit() with TensorFlow", first and
# sample-weight examples: train_step(self, data) with a GradientTape,
# compute_loss, optimizer.apply and the compiled metrics; fit with sample
# weights, validation data, a callback and history; the step in tf.function (as
# fit runs it) and then eagerly (run_eagerly=True).


class CustomModel(tf.keras.Model):
    def train_step(self, data):
        if len(data) == 3:
            x, y, sample_weight = data
        else:
            sample_weight = None
            x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred, sample_weight=sample_weight)
        return {m.name: m.result() for m in self.metrics}


class Recorder(tf.keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.batch_losses = []

    def on_train_batch_end(self, batch, logs=None):
        self.batch_losses.append(float(logs["loss"]))


rs = np.random.RandomState(31)
x = rs.random_sample((40, 6)).astype("float32")
y = (x @ rs.randn(6, 1) * 0.5).astype("float32")
sw = rs.random_sample((40, 1)).astype("float32")
for run_eagerly in (False, True):
    inputs = tf.keras.Input(shape=(6,))
    hidden = tf.keras.layers.Dense(8, activation="tanh",
                                   kernel_regularizer=tf.keras.regularizers.L2(0.01))(inputs)
    outputs = tf.keras.layers.Dense(1)(hidden)
    model = CustomModel(inputs, outputs)
    model.set_weights(weights_like(model, 32))
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"],
                  run_eagerly=run_eagerly)
    rec = Recorder()
    hist = model.fit(x, y, sample_weight=sw, batch_size=16, epochs=3, shuffle=False, verbose=0,
                     validation_data=(x[:10], y[:10]), callbacks=[rec])
    tag = "eager" if run_eagerly else "function"
    emit(f"history {tag}", [hist.history[k] for k in sorted(hist.history)])
    emit(f"history keys {tag}", [len(k) for k in sorted(hist.history)])
    emit(f"batch losses {tag}", rec.batch_losses)
    emit(f"weights {tag}", model.get_weights())
