# TF's older Keras guide "Customizing what happens in fit()" (tensorflow/docs,
# site/en/guide/keras/customizing_what_happens_in_fit.ipynb at c78f25f69, the
# 2021 snapshot of https://www.tensorflow.org/guide/keras/customizing_what_happens_in_fit),
# shrunk: its first train_step (`self.compiled_loss(y, y_pred,
# regularization_losses=self.losses)`, `self.optimizer.apply_gradients`,
# `self.compiled_metrics.update_state(y, y_pred)`, returning
# `{m.name: m.result() for m in self.metrics}`), the sample-weight train_step,
# and the test_step run by evaluate; compile(optimizer="adam", loss="mse",
# metrics=["mae"]). Shrunk: 64 x 8 NumPy data instead of 1000 x 32, batches of
# 16, 2-3 epochs, each step in fit's tf.function and (the sample-weight model)
# again eagerly; a hidden Dense with an L2 kernel regularizer added so that
# self.losses is not empty. In TF 2.21 (Keras 3) compiled_loss and
# compiled_metrics are deprecated shims of the TF backend: compiled_loss is
# compute_loss (regularization included, the argument ignored), and
# compiled_metrics.update_state updates every metric of self.metrics, the
# "loss" Mean tracker with y_pred; the program records what TF reports.
rs = np.random.RandomState(91)
x = rs.random_sample((64, 8)).astype("float32")
y = rs.random_sample((64, 1)).astype("float32")
sw = rs.random_sample((64, 1)).astype("float32")


def build(model_class, seed):
    inputs = tf.keras.Input(shape=(8,))
    hidden = tf.keras.layers.Dense(6, activation="relu",
                                   kernel_regularizer=tf.keras.regularizers.L2(0.01))(inputs)
    outputs = tf.keras.layers.Dense(1)(hidden)
    model = model_class(inputs, outputs)
    model.set_weights([w * 0.5 for w in weights_like(model, seed)])
    return model


def emit_history(tag, hist):
    emit(f"{tag} history", [hist.history[k] for k in sorted(hist.history)])
    emit(f"{tag} history keys", [len(k) for k in sorted(hist.history)])


class CustomModel(tf.keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply_gradients(zip(gradients, trainable_vars))
        self.compiled_metrics.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


model = build(CustomModel, 92)
model.compile(optimizer="adam", loss="mse", metrics=["mae"])
emit_history("first", model.fit(x, y, epochs=3, batch_size=16, shuffle=False, verbose=0))
emit("first weights", model.get_weights())
emit("first iterations", int(model.optimizer.iterations))


class SampleWeightModel(tf.keras.Model):
    def train_step(self, data):
        if len(data) == 3:
            x, y, sample_weight = data
        else:
            sample_weight = None
            x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compiled_loss(y, y_pred, sample_weight=sample_weight,
                                      regularization_losses=self.losses)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply_gradients(zip(gradients, trainable_vars))
        self.compiled_metrics.update_state(y, y_pred, sample_weight=sample_weight)
        return {m.name: m.result() for m in self.metrics}


for run_eagerly in (False, True):
    tag = "eager" if run_eagerly else "function"
    model = build(SampleWeightModel, 93)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"], run_eagerly=run_eagerly)
    emit_history(f"sample weight {tag}",
                 model.fit(x, y, sample_weight=sw, epochs=2, batch_size=16, shuffle=False,
                           verbose=0))
    emit(f"sample weight {tag} weights", model.get_weights())


class TestStepModel(tf.keras.Model):
    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        self.compiled_loss(y, y_pred, regularization_losses=self.losses)
        self.compiled_metrics.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


model = build(TestStepModel, 94)
model.compile(loss="mse", metrics=["mae"])
emit("evaluate", model.evaluate(x, y, batch_size=16, verbose=0))
emit("evaluate dict", [v for k, v in sorted(model.evaluate(x, y, batch_size=16, verbose=0,
                                                            return_dict=True).items())])
