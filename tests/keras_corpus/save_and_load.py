# TF's "Save and load models" guide, shrunk: save_weights/load_weights
# (.weights.h5), model.save/tf.keras.models.load_model (.keras) with a custom
# layer registered for serialization, clone_model, and training continued
# after loading (the optimizer state comes back with the .keras file).
import os
import tempfile


@tf.keras.utils.register_keras_serializable(package="corpus")
class Scale(tf.keras.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

    def call(self, x):
        return x * self.w * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def make():
    m = tf.keras.Sequential([tf.keras.Input((3,)), Scale(1.5),
                             tf.keras.layers.Dense(2, activation="tanh"), tf.keras.layers.Dense(1)])
    m.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="mse")
    return m


rs = np.random.RandomState(71)
x, y = rs.randn(24, 3).astype("float32"), rs.randn(24, 1).astype("float32")
model = make()
model.set_weights(weights_like(model, 72))
model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
d = tempfile.mkdtemp()
model.save_weights(os.path.join(d, "m.weights.h5"))
model.save(os.path.join(d, "m.keras"))
other = make()
other.load_weights(os.path.join(d, "m.weights.h5"))
emit("weights loaded", other.get_weights())
loaded = tf.keras.models.load_model(os.path.join(d, "m.keras"))
emit("predict loaded", loaded.predict(x[:4], verbose=0))
emit("continued", loaded.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0).history["loss"])
emit("continued original", model.fit(x, y, batch_size=8, epochs=1, shuffle=False,
                                     verbose=0).history["loss"])
clone = tf.keras.models.clone_model(model)
clone.set_weights(model.get_weights())
with tf.GradientTape() as tape:
    out = tf.reduce_sum(clone(x[:4]) ** 2)
emit("clone gradients", tape.gradient(out, clone.trainable_variables))
