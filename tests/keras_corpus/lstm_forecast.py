# TF tutorials' "Time series forecasting", shrunk: windows of a noisy two-feature
# series, an LSTM returning sequences and a GRU stacked on it, a Dense head; a
# custom loop with Adam and gradient clipping by global norm, then compile/fit
# for two epochs and evaluate. Every weight's gradient and the losses compared.
rs = np.random.RandomState(71)
t = np.arange(80, dtype="float32")
series = np.stack([np.sin(t / 5), np.cos(t / 7)], axis=1) + 0.1 * rs.randn(80, 2).astype("float32")
x = np.stack([series[i:i + 6] for i in range(0, 64, 4)])       # (16, 6, 2)
y = np.stack([series[i + 6, :1] for i in range(0, 64, 4)])     # (16, 1)
model = tf.keras.Sequential([
    tf.keras.Input((6, 2)),
    tf.keras.layers.LSTM(8, return_sequences=True),
    tf.keras.layers.GRU(4),
    tf.keras.layers.Dense(1),
])
model.set_weights(weights_like(model, 72))
optimizer = tf.keras.optimizers.Adam(0.01)
loss_fn = tf.keras.losses.MeanSquaredError()
losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    grads, norm = tf.clip_by_global_norm(grads, 1.0)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    losses.append(float(loss))
emit("losses", losses)
emit("norm", norm)
emit("grads", grads)
model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
hist = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
emit("history", [hist.history[k] for k in sorted(hist.history)])
emit("evaluate", model.evaluate(x, y, verbose=0))
emit("weights", model.get_weights())
