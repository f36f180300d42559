# A text-classification-style recurrent model (TF tutorials' "Text
# classification with an RNN", shrunk): Embedding, LSTM, Dense; a custom loop
# with RMSprop; gradients w.r.t. every weight, the embedding included.
model = tf.keras.Sequential([
    tf.keras.Input((5,), dtype="int32"),
    tf.keras.layers.Embedding(10, 4),
    tf.keras.layers.LSTM(6),
    tf.keras.layers.Dense(1),
])
model.set_weights(weights_like(model, 34))
rs = np.random.RandomState(35)
x = rs.randint(0, 10, (8, 5)).astype("int32")
y = rs.randint(0, 2, (8, 1)).astype("float32")
loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)
optimizer = tf.keras.optimizers.RMSprop(0.01)
losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    losses.append(float(loss))
emit("losses", losses)
emit("grads", [tf.convert_to_tensor(g) for g in grads])   # TF: the embedding's is IndexedSlices
emit("pred", model(x[:2]))
