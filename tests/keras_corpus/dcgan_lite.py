# TF tutorial "Deep Convolutional GAN", shrunk: Dense -> Reshape ->
# Conv2DTranspose generator with BatchNormalization and LeakyReLU, a Conv2D
# discriminator, BinaryCrossentropy from logits, the two tapes of the tutorial's
# train_step under tf.function, two Adam optimizers.
def make_generator_model():
    return tf.keras.Sequential([
        tf.keras.Input((4,)),
        tf.keras.layers.Dense(2 * 2 * 4, use_bias=False),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.LeakyReLU(),
        tf.keras.layers.Reshape((2, 2, 4)),
        tf.keras.layers.Conv2DTranspose(3, (3, 3), strides=(2, 2), padding="same", use_bias=False),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.LeakyReLU(),
        tf.keras.layers.Conv2DTranspose(1, (3, 3), strides=(2, 2), padding="same",
                                        use_bias=False, activation="tanh"),
    ])


def make_discriminator_model():
    return tf.keras.Sequential([
        tf.keras.Input((8, 8, 1)),
        tf.keras.layers.Conv2D(4, (3, 3), strides=(2, 2), padding="same"),
        tf.keras.layers.LeakyReLU(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(1),
    ])


generator = make_generator_model()
discriminator = make_discriminator_model()
generator.set_weights([np.abs(w) + 0.5 if "variance" in v.path else w
                       for v, w in zip(generator.weights, weights_like(generator, 26))])
discriminator.set_weights(weights_like(discriminator, 27))
cross_entropy = tf.keras.losses.BinaryCrossentropy(from_logits=True)


def discriminator_loss(real_output, fake_output):
    real_loss = cross_entropy(tf.ones_like(real_output), real_output)
    fake_loss = cross_entropy(tf.zeros_like(fake_output), fake_output)
    return real_loss + fake_loss


def generator_loss(fake_output):
    return cross_entropy(tf.ones_like(fake_output), fake_output)


generator_optimizer = tf.keras.optimizers.Adam(1e-2)
discriminator_optimizer = tf.keras.optimizers.Adam(1e-2)
rs = np.random.RandomState(28)
images = tf.constant(rs.uniform(-1, 1, (4, 8, 8, 1)).astype("float32"))


@tf.function
def train_step(images, noise):
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        generated_images = generator(noise, training=True)
        real_output = discriminator(images, training=True)
        fake_output = discriminator(generated_images, training=True)
        gen_loss = generator_loss(fake_output)
        disc_loss = discriminator_loss(real_output, fake_output)
    gradients_of_generator = gen_tape.gradient(gen_loss, generator.trainable_variables)
    gradients_of_discriminator = disc_tape.gradient(disc_loss, discriminator.trainable_variables)
    generator_optimizer.apply_gradients(zip(gradients_of_generator, generator.trainable_variables))
    discriminator_optimizer.apply_gradients(
        zip(gradients_of_discriminator, discriminator.trainable_variables))
    return gen_loss, disc_loss


losses = []
for step in range(3):
    g, d = train_step(images, tf.constant(rs.randn(4, 4).astype("float32")))
    losses.append([float(g), float(d)])
emit("losses", losses)
emit("moving_mean", generator.layers[1].moving_mean)
emit("generated", generator(tf.constant(rs.randn(2, 4).astype("float32")), training=False))
