# keras.io "WGAN-GP" (the TF-era custom train step), shrunk: a critic and a
# generator, the gradient penalty on interpolated samples (gradient w.r.t. the
# critic's input under an outer tape), critic and generator updates with Adam.
# Noise and interpolation weights come from NumPy, so both frameworks see the same.
latent_dim = 3
critic = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8),
                              tf.keras.layers.LeakyReLU(0.2), tf.keras.layers.Dense(1)])
generator = tf.keras.Sequential([tf.keras.Input((latent_dim,)),
                                 tf.keras.layers.Dense(8, activation="relu"),
                                 tf.keras.layers.Dense(4)])
critic.set_weights(weights_like(critic, 23))
generator.set_weights(weights_like(generator, 24))
d_optimizer = tf.keras.optimizers.Adam(learning_rate=0.001, beta_1=0.5, beta_2=0.9)
g_optimizer = tf.keras.optimizers.Adam(learning_rate=0.001, beta_1=0.5, beta_2=0.9)
rs = np.random.RandomState(25)
real_images = tf.constant(rs.randn(6, 4).astype("float32"))
gp_weight = 10.0


def gradient_penalty(batch_size, real_images, fake_images, alpha):
    diff = fake_images - real_images
    interpolated = real_images + alpha * diff
    with tf.GradientTape() as gp_tape:
        gp_tape.watch(interpolated)
        pred = critic(interpolated, training=True)
    grads = gp_tape.gradient(pred, [interpolated])[0]
    norm = tf.sqrt(tf.reduce_sum(tf.square(grads), axis=[1]))
    return tf.reduce_mean((norm - 1.0) ** 2)


out = []
for step in range(2):
    for i in range(2):
        z = rs.randn(6, latent_dim).astype("float32")
        alpha = rs.uniform(0, 1, (6, 1)).astype("float32")
        with tf.GradientTape() as tape:
            fake_images = generator(z, training=True)
            fake_logits = critic(fake_images, training=True)
            real_logits = critic(real_images, training=True)
            d_cost = tf.reduce_mean(fake_logits) - tf.reduce_mean(real_logits)
            gp = gradient_penalty(6, real_images, fake_images, alpha)
            d_loss = d_cost + gp * gp_weight
        d_gradient = tape.gradient(d_loss, critic.trainable_variables)
        d_optimizer.apply_gradients(zip(d_gradient, critic.trainable_variables))
    z = rs.randn(6, latent_dim).astype("float32")
    with tf.GradientTape() as tape:
        generated_images = generator(z, training=True)
        gen_img_logits = critic(generated_images, training=True)
        g_loss = -tf.reduce_mean(gen_img_logits)
    gen_gradient = tape.gradient(g_loss, generator.trainable_variables)
    g_optimizer.apply_gradients(zip(gen_gradient, generator.trainable_variables))
    out.append([float(d_loss), float(gp), float(g_loss)])
emit("losses", out)
emit("critic", critic.get_weights()[0])
emit("generator", generator.get_weights()[-2])
