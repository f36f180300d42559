# A physics-informed network for Burgers' equation (the pattern of TF PINN
# repositories): u(t, x) an MLP, u_t, u_x and u_xx by nested tapes, the residual
# u_t + u u_x - nu u_xx, a boundary loss, Adam steps on the weights.
model = tf.keras.Sequential([
    tf.keras.Input((2,)),
    tf.keras.layers.Dense(8, activation="tanh"),
    tf.keras.layers.Dense(8, activation="tanh"),
    tf.keras.layers.Dense(1),
])
model.set_weights(weights_like(model, 19))
nu = 0.01 / np.pi
rs = np.random.RandomState(20)
t_r = tf.constant(rs.uniform(0, 1, (16, 1)).astype("float32"))
x_r = tf.constant(rs.uniform(-1, 1, (16, 1)).astype("float32"))
x_b = tf.constant(np.linspace(-1, 1, 6).reshape(-1, 1).astype("float32"))
u_b = -tf.sin(np.pi * x_b)
optimizer = tf.keras.optimizers.Adam(learning_rate=5e-3)


def get_r(model, t, x):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(t)
        tape.watch(x)
        u = model(tf.stack([t[:, 0], x[:, 0]], axis=1))
        u_x = tape.gradient(u, x)
    u_t = tape.gradient(u, t)
    u_xx = tape.gradient(u_x, x)
    del tape
    return u_t + u * u_x - nu * u_xx


def compute_loss(model):
    r = get_r(model, t_r, x_r)
    phi_r = tf.reduce_mean(tf.square(r))
    u_pred = model(tf.concat([tf.zeros_like(x_b), x_b], axis=1))
    return phi_r + tf.reduce_mean(tf.square(u_b - u_pred))


losses = []
for step in range(3):
    with tf.GradientTape(persistent=True) as tape:
        loss = compute_loss(model)
    g = tape.gradient(loss, model.trainable_variables)
    del tape
    optimizer.apply_gradients(zip(g, model.trainable_variables))
    losses.append(float(loss))
emit("losses", losses)
emit("residual", get_r(model, t_r, x_r))
emit("grads", g)
