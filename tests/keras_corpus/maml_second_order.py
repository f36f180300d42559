# MAML on sine regression (the pattern of TF MAML implementations), second order:
# the inner SGD step's gradient is taken under the outer tape, the fast weights
# are used in a functional forward pass, and the outer gradient flows through
# the inner gradient (a second derivative through the Keras model).
model = tf.keras.Sequential([
    tf.keras.Input((1,)),
    tf.keras.layers.Dense(10, activation="relu"),
    tf.keras.layers.Dense(10, activation="relu"),
    tf.keras.layers.Dense(1),
])
model.set_weights([w + 0.1 for w in weights_like(model, 21)])
meta_optimizer = tf.keras.optimizers.Adam(learning_rate=0.01)
inner_lr = 0.05
rs = np.random.RandomState(22)


def forward(weights, x):
    h = tf.nn.relu(tf.matmul(x, weights[0]) + weights[1])
    h = tf.nn.relu(tf.matmul(h, weights[2]) + weights[3])
    return tf.matmul(h, weights[4]) + weights[5]


def task(amplitude, phase):
    x = rs.uniform(-5, 5, (10, 1)).astype("float32")
    return x, (amplitude * np.sin(x + phase)).astype("float32")


meta_losses = []
for meta_step in range(2):
    tasks = [task(1.0 + i, 0.5 * i) for i in range(2)]
    with tf.GradientTape() as outer_tape:
        outer_losses = []
        for x, y in tasks:
            with tf.GradientTape() as inner_tape:
                inner_loss = tf.reduce_mean(tf.keras.losses.mse(y, model(x)))
            grads = inner_tape.gradient(inner_loss, model.trainable_variables)
            fast = [w - inner_lr * g for w, g in zip(model.trainable_variables, grads)]
            outer_losses.append(tf.reduce_mean(tf.square(forward(fast, x) - y)))
        meta_loss = tf.add_n(outer_losses) / len(outer_losses)
    meta_grads = outer_tape.gradient(meta_loss, model.trainable_variables)
    meta_optimizer.apply_gradients(zip(meta_grads, model.trainable_variables))
    meta_losses.append(float(meta_loss))
emit("meta_losses", meta_losses)
emit("meta_grads", meta_grads)
emit("weights", model.get_weights()[0])
