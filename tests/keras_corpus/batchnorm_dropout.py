# A classifier with BatchNormalization and Dropout trained TF-style: moving
# statistics after training steps, inference output (dropout off), and in
# training mode the dropout masks' rate and scaling (the masks themselves come
# from each framework's own random stream).
model = tf.keras.Sequential([
    tf.keras.Input((6,)),
    tf.keras.layers.Dense(32, activation="relu"),
    tf.keras.layers.BatchNormalization(momentum=0.9),
    tf.keras.layers.Dropout(0.5),
    tf.keras.layers.Dense(3),
])
model.set_weights([np.abs(w) + 0.5 if "variance" in v.path else w
                   for v, w in zip(model.weights, weights_like(model, 38))])
rs = np.random.RandomState(39)
x = tf.constant(rs.randn(64, 6).astype("float32"))
y = rs.randint(0, 3, 64)
tf.keras.utils.set_random_seed(0)
dropout = model.layers[2]
h = tf.ones((200, 50))
dropped = dropout(h, training=True)
emit("dropout zero fraction ~0.5", float(np.round(np.mean(dropped.numpy() == 0), 1)))
emit("dropout kept values", sorted(set(np.round(dropped.numpy().ravel(), 4).tolist())))
emit("inference unchanged", dropout(h, training=False))
opt = tf.keras.optimizers.SGD(0.0)        # the weights stay: only statistics move
for step in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(
            y, model(x, training=True), from_logits=True))
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                            model.trainable_variables))
emit("moving_mean", model.layers[1].moving_mean)
emit("moving_variance", model.layers[1].moving_variance)
emit("inference", model(x[:4], training=False))
