# keras.io "Customizing what happens in fit()", the end-to-end GAN: compile()
# overridden with two optimizers and a loss, train_step(self, real_images) that
# trains the discriminator on real and generated images and then the generator
# through the frozen discriminator, Mean trackers in `metrics`. Shrunk to
# 4x4 images; the latent noise and label noise are drawn with NumPy beside the
# images (Keras's random streams differ between backends), as four inputs.
latent_dim = 3
discriminator = tf.keras.Sequential([
    tf.keras.Input(shape=(4, 4, 1)),
    tf.keras.layers.Conv2D(4, (3, 3), strides=(2, 2), padding="same"),
    tf.keras.layers.LeakyReLU(negative_slope=0.2),
    tf.keras.layers.GlobalMaxPooling2D(),
    tf.keras.layers.Dense(1)], name="discriminator")
generator = tf.keras.Sequential([
    tf.keras.Input(shape=(latent_dim,)),
    tf.keras.layers.Dense(2 * 2 * 4),
    tf.keras.layers.LeakyReLU(negative_slope=0.2),
    tf.keras.layers.Reshape((2, 2, 4)),
    tf.keras.layers.Conv2DTranspose(4, (3, 3), strides=(2, 2), padding="same"),
    tf.keras.layers.LeakyReLU(negative_slope=0.2),
    tf.keras.layers.Conv2D(1, (3, 3), padding="same", activation="sigmoid")], name="generator")
discriminator.set_weights(weights_like(discriminator, 51))
generator.set_weights(weights_like(generator, 52))


class GAN(tf.keras.Model):
    def __init__(self, discriminator, generator, latent_dim):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.d_loss_tracker = tf.keras.metrics.Mean(name="d_loss")
        self.g_loss_tracker = tf.keras.metrics.Mean(name="g_loss")

    @property
    def metrics(self):
        return [self.d_loss_tracker, self.g_loss_tracker]

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn

    def train_step(self, data):
        real_images, z1, z2, label_noise = data[0]
        label_noise = tf.reshape(label_noise, (-1, 1))
        batch_size = tf.shape(real_images)[0]
        generated_images = self.generator(z1)
        combined_images = tf.concat([generated_images, real_images], axis=0)
        labels = tf.concat([tf.ones((batch_size, 1)), tf.zeros((batch_size, 1))], axis=0)
        labels += 0.05 * label_noise
        with tf.GradientTape() as tape:
            predictions = self.discriminator(combined_images)
            d_loss = self.loss_fn(labels, predictions)
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply(grads, self.discriminator.trainable_weights)
        misleading_labels = tf.zeros((batch_size, 1))
        with tf.GradientTape() as tape:
            predictions = self.discriminator(self.generator(z2))
            g_loss = self.loss_fn(misleading_labels, predictions)
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply(grads, self.generator.trainable_weights)
        self.d_loss_tracker.update_state(d_loss)
        self.g_loss_tracker.update_state(g_loss)
        return {"d_loss": self.d_loss_tracker.result(), "g_loss": self.g_loss_tracker.result()}


rs = np.random.RandomState(53)
n = 16
images = rs.random_sample((n, 4, 4, 1)).astype("float32")
z1 = rs.randn(n, latent_dim).astype("float32")
z2 = rs.randn(n, latent_dim).astype("float32")
label_noise = rs.random_sample((n, 2)).astype("float32")
gan = GAN(discriminator=discriminator, generator=generator, latent_dim=latent_dim)
gan.compile(d_optimizer=tf.keras.optimizers.Adam(learning_rate=0.003),
            g_optimizer=tf.keras.optimizers.Adam(learning_rate=0.003),
            loss_fn=tf.keras.losses.BinaryCrossentropy(from_logits=True))




hist = gan.fit((images, z1, z2, label_noise), batch_size=8, epochs=2, shuffle=False, verbose=0)
emit("history", [hist.history["d_loss"], hist.history["g_loss"]])
emit("discriminator", discriminator.get_weights())
emit("generator", generator.get_weights())
