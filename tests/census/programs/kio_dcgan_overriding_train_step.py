# GAN overriding Model.train_step: keras-team/keras-io examples/generative/dcgan_overriding_train_step.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/generative/dcgan_overriding_train_step.py
# commit: 0d5f327814b51b9f3efe59bc6845756f630eb9b6
# families: 
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib and IPython.display are recorders;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the MNIST download is 192 + 64 generated images in its format (uint8 28x28, uint8 labels);
#   the dataset is not shuffled (dataset.shuffle(buffer_size=1024) left out);
# - sizes: the discriminator's Conv2D 64/128 are 8/16; latent_dim 128 is 16, the generator's
#   Dense(7*7*128)/Reshape((7, 7, 128)) are 7*7*8, its Conv2DTranspose 128 are 8;
# - epochs: 30 are 2 (the images displayed are epoch 1's, not 29's); fit's history is shown;
# - determinism: train_step's tf.random.normal/uniform draws (traced by fit: a NumPy draw per call
#   cannot be had in TF's graph) are slices of tables drawn from NumPy once:
#   tf.constant(_Z)[k, :batch_size] and tf.constant(_U)[:tf.shape(labels)[0]] (for tf.random.uniform(tf.shape(labels)))
#

# [cell 1]
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers
import numpy as np

# [cell 2]
_Z = np.random.RandomState(2).normal(size=(2, 64, 16)).astype("float32")
_U = np.random.RandomState(3).uniform(size=(128, 1)).astype("float32")
# We use both the training & test MNIST digits.
batch_size = 64
(x_train, _), (x_test, _) = _mnist_like(192, 64)
all_digits = np.concatenate([x_train, x_test])
all_digits = all_digits.astype("float32") / 255
all_digits = np.reshape(all_digits, (-1, 28, 28, 1))
dataset = tf.data.Dataset.from_tensor_slices(all_digits)
dataset = dataset.batch(batch_size).prefetch(32)

# [cell 3]
discriminator = keras.Sequential(
    [
        keras.Input(shape=(28, 28, 1)),
        layers.Conv2D(8, (3, 3), strides=(2, 2), padding="same"),
        layers.LeakyReLU(alpha=0.2),
        layers.Conv2D(16, (3, 3), strides=(2, 2), padding="same"),
        layers.LeakyReLU(alpha=0.2),
        layers.GlobalMaxPooling2D(),
        layers.Dense(1),
    ],
    name="discriminator",
)

discriminator.summary()

# [cell 4]
latent_dim = 16

generator = keras.Sequential(
    [
        keras.Input(shape=(latent_dim,)),
        # We want to generate 128 coefficients to reshape into a 7x7x128 map
        layers.Dense(7 * 7 * 8),
        layers.LeakyReLU(alpha=0.2),
        layers.Reshape((7, 7, 8)),
        layers.Conv2DTranspose(8, (4, 4), strides=(2, 2), padding="same"),
        layers.LeakyReLU(alpha=0.2),
        layers.Conv2DTranspose(8, (4, 4), strides=(2, 2), padding="same"),
        layers.LeakyReLU(alpha=0.2),
        layers.Conv2D(1, (7, 7), padding="same", activation="sigmoid"),
    ],
    name="generator",
)

generator.summary()

# [cell 5]
class GAN(keras.Model):
    def __init__(self, discriminator, generator, latent_dim):
        super(GAN, self).__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super(GAN, self).compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn

    def train_step(self, real_images):
        # Sample random points in the latent space
        batch_size = tf.shape(real_images)[0]
        random_latent_vectors = tf.constant(_Z)[0, :batch_size]

        # Decode them to fake images
        generated_images = self.generator(random_latent_vectors)

        # Combine them with real images
        combined_images = tf.concat([generated_images, real_images], axis=0)

        # Assemble labels discriminating real from fake images
        labels = tf.concat(
            [tf.ones((batch_size, 1)), tf.zeros((batch_size, 1))], axis=0
        )
        # Add random noise to the labels - important trick!
        labels += 0.05 * tf.constant(_U)[:tf.shape(labels)[0]]

        # Train the discriminator
        with tf.GradientTape() as tape:
            predictions = self.discriminator(combined_images)
            d_loss = self.loss_fn(labels, predictions)
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply_gradients(
            zip(grads, self.discriminator.trainable_weights)
        )

        # Sample random points in the latent space
        random_latent_vectors = tf.constant(_Z)[1, :batch_size]

        # Assemble labels that say "all real images"
        misleading_labels = tf.zeros((batch_size, 1))

        # Train the generator (note that we should *not* update the weights
        # of the discriminator)!
        with tf.GradientTape() as tape:
            predictions = self.discriminator(self.generator(random_latent_vectors))
            g_loss = self.loss_fn(misleading_labels, predictions)
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply_gradients(zip(grads, self.generator.trainable_weights))
        return {"d_loss": d_loss, "g_loss": g_loss}

# [cell 6]
class GANMonitor(keras.callbacks.Callback):
    def __init__(self, num_img=3, latent_dim=128):
        self.num_img = num_img
        self.latent_dim = latent_dim

    def on_epoch_end(self, epoch, logs=None):
        random_latent_vectors = tf.random.normal(shape=(self.num_img, self.latent_dim))
        generated_images = self.model.generator(random_latent_vectors)
        generated_images *= 255
        generated_images.numpy()
        for i in range(self.num_img):
            img = keras.preprocessing.image.array_to_img(generated_images[i])
            img.save("generated_img_{i}_{epoch}.png".format(i=i, epoch=epoch))

# [cell 7]
epochs = 2

gan = GAN(discriminator=discriminator, generator=generator, latent_dim=latent_dim)
gan.compile(
    d_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
    g_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
    loss_fn=keras.losses.BinaryCrossentropy(from_logits=True),
)

show(gan.fit(
    dataset, epochs=epochs, callbacks=[GANMonitor(num_img=3, latent_dim=latent_dim)]
))

# [cell 8]
from IPython.display import Image, display

display(Image("generated_img_0_1.png"))
display(Image("generated_img_1_1.png"))
display(Image("generated_img_2_1.png"))
