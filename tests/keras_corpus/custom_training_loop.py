# keras.io "Writing a training loop from scratch" (TF backend), shrunk: an MLP,
# SparseCategoricalCrossentropy from logits, Adam, accuracy metrics reset per
# epoch, the step under tf.function, a validation pass.
inputs = tf.keras.Input(shape=(12,), name="digits")
x1 = tf.keras.layers.Dense(16, activation="relu")(inputs)
x2 = tf.keras.layers.Dense(16, activation="relu")(x1)
outputs = tf.keras.layers.Dense(4, name="predictions")(x2)
model = tf.keras.Model(inputs=inputs, outputs=outputs)
model.set_weights(weights_like(model, 11))
optimizer = tf.keras.optimizers.Adam(learning_rate=1e-2)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
train_acc_metric = tf.keras.metrics.SparseCategoricalAccuracy()
val_acc_metric = tf.keras.metrics.SparseCategoricalAccuracy()
rs = np.random.RandomState(12)
x_train = rs.randn(32, 12).astype("float32")
y_train = rs.randint(0, 4, 32)
x_val, y_val = x_train[:8] + 0.1, y_train[:8]


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss_value = loss_fn(y, logits)
    grads = tape.gradient(loss_value, model.trainable_weights)
    optimizer.apply_gradients(zip(grads, model.trainable_weights))
    train_acc_metric.update_state(y, logits)
    return loss_value


losses, accs = [], []
for epoch in range(2):
    for step in range(4):
        xb, yb = x_train[step * 8:(step + 1) * 8], y_train[step * 8:(step + 1) * 8]
        losses.append(float(train_step(xb, yb)))
    accs.append(float(train_acc_metric.result()))
    train_acc_metric.reset_state()
    val_acc_metric.update_state(y_val, model(x_val, training=False))
    accs.append(float(val_acc_metric.result()))
    val_acc_metric.reset_state()
emit("losses", losses)
emit("accs", accs)
emit("kernel", model.trainable_weights[0])
emit("iterations", int(optimizer.iterations))
