# TF tutorial "Convolutional Variational Autoencoder", shrunk: a subclassed
# tf.keras.Model with encoder and decoder Sequentials, reparameterize with
# noise given from NumPy, log_normal_pdf, the tutorial's compute_loss with
# sigmoid_cross_entropy_with_logits, Adam steps under tf.function.
class CVAE(tf.keras.Model):
    def __init__(self, latent_dim):
        super().__init__()
        self.latent_dim = latent_dim
        self.encoder = tf.keras.Sequential([
            tf.keras.layers.InputLayer(shape=(6, 6, 1)),
            tf.keras.layers.Conv2D(filters=4, kernel_size=3, strides=(2, 2), activation="relu"),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(latent_dim + latent_dim),
        ])
        self.decoder = tf.keras.Sequential([
            tf.keras.layers.InputLayer(shape=(latent_dim,)),
            tf.keras.layers.Dense(units=3 * 3 * 4, activation=tf.nn.relu),
            tf.keras.layers.Reshape(target_shape=(3, 3, 4)),
            tf.keras.layers.Conv2DTranspose(filters=1, kernel_size=3, strides=2, padding="same"),
        ])

    def encode(self, x):
        mean, logvar = tf.split(self.encoder(x), num_or_size_splits=2, axis=1)
        return mean, logvar

    def reparameterize(self, mean, logvar, eps):
        return eps * tf.exp(logvar * .5) + mean

    def decode(self, z, apply_sigmoid=False):
        logits = self.decoder(z)
        if apply_sigmoid:
            return tf.sigmoid(logits)
        return logits


def log_normal_pdf(sample, mean, logvar, raxis=1):
    log2pi = tf.math.log(2. * np.pi)
    return tf.reduce_sum(
        -.5 * ((sample - mean) ** 2. * tf.exp(-logvar) + logvar + log2pi), axis=raxis)


def compute_loss(model, x, eps):
    mean, logvar = model.encode(x)
    z = model.reparameterize(mean, logvar, eps)
    x_logit = model.decode(z)
    cross_ent = tf.nn.sigmoid_cross_entropy_with_logits(logits=x_logit, labels=x)
    logpx_z = -tf.reduce_sum(cross_ent, axis=[1, 2, 3])
    logpz = log_normal_pdf(z, 0., 0.)
    logqz_x = log_normal_pdf(z, mean, logvar)
    return -tf.reduce_mean(logpx_z + logpz - logqz_x)


model = CVAE(2)
model.encoder.set_weights(weights_like(model.encoder, 29))
model.decoder.set_weights(weights_like(model.decoder, 30))
optimizer = tf.keras.optimizers.Adam(1e-2)


@tf.function
def train_step(model, x, eps, optimizer):
    with tf.GradientTape() as tape:
        loss = compute_loss(model, x, eps)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


rs = np.random.RandomState(31)
x = tf.constant((rs.uniform(0, 1, (4, 6, 6, 1)) > 0.5).astype("float32"))
losses = [float(train_step(model, x, tf.constant(rs.randn(4, 2).astype("float32")), optimizer))
          for _ in range(3)]
emit("losses", losses)
emit("decoded", model.decode(tf.constant([[0.1, -0.2]]), apply_sigmoid=True))
