# keras.io "Variational AutoEncoder" (the TF-era train_step), shrunk: an
# encoder with a Sampling layer, a decoder, a VAE Model whose train_step
# computes reconstruction and KL losses under a tape, three Mean trackers.
# epsilon comes with the data (Keras's random streams differ between backends).
latent_dim = 2


class Sampling(tf.keras.layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var, epsilon = inputs
        return z_mean + tf.exp(0.5 * z_log_var) * epsilon


enc_in = tf.keras.Input(shape=(6,))
eps_in = tf.keras.Input(shape=(latent_dim,))
h = tf.keras.layers.Dense(8, activation="relu")(enc_in)
z_mean = tf.keras.layers.Dense(latent_dim, name="z_mean")(h)
z_log_var = tf.keras.layers.Dense(latent_dim, name="z_log_var")(h)
z = Sampling()([z_mean, z_log_var, eps_in])
encoder = tf.keras.Model([enc_in, eps_in], [z_mean, z_log_var, z], name="encoder")
dec_in = tf.keras.Input(shape=(latent_dim,))
decoder = tf.keras.Model(dec_in, tf.keras.layers.Dense(6, activation="sigmoid")(
    tf.keras.layers.Dense(8, activation="relu")(dec_in)), name="decoder")
encoder.set_weights(weights_like(encoder, 121))
decoder.set_weights(weights_like(decoder, 122))


class VAE(tf.keras.Model):
    def __init__(self, encoder, decoder, **kwargs):
        super().__init__(**kwargs)
        self.encoder = encoder
        self.decoder = decoder
        self.total_loss_tracker = tf.keras.metrics.Mean(name="total_loss")
        self.reconstruction_loss_tracker = tf.keras.metrics.Mean(name="reconstruction_loss")
        self.kl_loss_tracker = tf.keras.metrics.Mean(name="kl_loss")

    @property
    def metrics(self):
        return [self.total_loss_tracker, self.reconstruction_loss_tracker, self.kl_loss_tracker]

    def train_step(self, data):
        x, eps = data[0]
        with tf.GradientTape() as tape:
            z_mean, z_log_var, z = self.encoder([x, eps])
            reconstruction = self.decoder(z)
            reconstruction_loss = tf.reduce_mean(
                tf.reduce_sum(tf.keras.losses.binary_crossentropy(x[..., None],
                                                                  reconstruction[..., None]),
                              axis=1))
            kl_loss = -0.5 * (1 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var))
            kl_loss = tf.reduce_mean(tf.reduce_sum(kl_loss, axis=1))
            total_loss = reconstruction_loss + kl_loss
        grads = tape.gradient(total_loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.total_loss_tracker.update_state(total_loss)
        self.reconstruction_loss_tracker.update_state(reconstruction_loss)
        self.kl_loss_tracker.update_state(kl_loss)
        return {"loss": self.total_loss_tracker.result(),
                "reconstruction_loss": self.reconstruction_loss_tracker.result(),
                "kl_loss": self.kl_loss_tracker.result()}


rs = np.random.RandomState(123)
data = rs.random_sample((24, 6)).astype("float32")
eps = rs.randn(24, latent_dim).astype("float32")
vae = VAE(encoder, decoder)
vae.compile(optimizer=tf.keras.optimizers.Adam(0.01))
hist = vae.fit((data, eps), epochs=3, batch_size=8, shuffle=False, verbose=0)
emit("history", [hist.history[k] for k in sorted(hist.history)])
emit("encoder", encoder.get_weights())
emit("decoder", decoder.get_weights())
