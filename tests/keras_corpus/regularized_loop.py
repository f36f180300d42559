# keras.io "Making new layers and models via subclassing", the add_loss and
# activity-regularization parts, in a TF-eager training loop: an
# ActivityRegularization layer that calls self.add_loss, kernel and activity
# regularizers, model.losses read after each forward pass and added to the
# loss, Adagrad.


class ActivityRegularizationLayer(tf.keras.layers.Layer):
    def __init__(self, rate=1e-2):
        super().__init__()
        self.rate = rate

    def call(self, inputs):
        self.add_loss(self.rate * tf.reduce_sum(inputs))
        return inputs


inputs = tf.keras.Input((5,))
h = tf.keras.layers.Dense(6, activation="relu", kernel_regularizer=tf.keras.regularizers.L2(1e-2),
                          activity_regularizer=tf.keras.regularizers.L1(1e-3))(inputs)
h = ActivityRegularizationLayer()(h)
outputs = tf.keras.layers.Dense(1, kernel_regularizer=tf.keras.regularizers.L1L2(1e-3, 1e-2))(h)
model = tf.keras.Model(inputs, outputs)
model.set_weights(weights_like(model, 81))
optimizer = tf.keras.optimizers.Adagrad(learning_rate=0.1)
loss_fn = tf.keras.losses.MeanSquaredError()
rs = np.random.RandomState(82)
x, y = rs.randn(16, 5).astype("float32"), rs.randn(16, 1).astype("float32")
record = []
for step in range(4):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        loss = loss_fn(y, pred)
        extra = [float(v) for v in model.losses]
        loss += tf.add_n(model.losses)
    grads = tape.gradient(loss, model.trainable_weights)
    optimizer.apply_gradients(zip(grads, model.trainable_weights))
    record.append([float(loss)] + sorted(extra))
emit("losses", record)
emit("number of model losses", len(model.losses))
emit("weights", model.get_weights())
