# Deep Convolutional Generative Adversarial Network: tensorflow/docs site/en/tutorials/generative/dcgan.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/generative/dcgan.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# timings: Time for epoch
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the MNIST download is 64 generated images in its format (uint8 28x28, uint8 labels);
# - sizes: BATCH_SIZE 256 is 32; the generator's 7*7*256 units and filters 128/64 are 7*7*8 and 8/8, the
#   discriminator's filters 64/128 are 8/8; EPOCHS 50 are 15 (the checkpoint saved every 15 epochs is still written);
# - determinism: the dataset is not shuffled; Dropout(0.3) is Dropout(0.0); train_step's noise is
#   tf.random.normal([BATCH_SIZE, noise_dim]), drawn from NumPy by the prelude when TF traces the
#   function (both runs trace it once: 64 images are whole batches of 32);
# - the epoch times printed are not compared (timings);
# - another library: imageio and tensorflow_docs are not installed with the tests: imageio's import (cell 11) and cells
#   49, 51 and 52 (the PNGs that matplotlib, a recorder here, did not write; the GIF; its embedding) are left out;
# - the version shown is left out
#

# [cell 2]
#@title Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
# https://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# [cell 8]
import tensorflow as tf

# [cell 9]
# show((tf.__version__))

# [cell 10]
# To generate GIFs
# !pip install imageio
# !pip install git+https://github.com/tensorflow/docs

# [cell 11]
import glob
# import imageio
import matplotlib.pyplot as plt
import numpy as np
import os
import PIL
from tensorflow.keras import layers
import time

from IPython import display

# [cell 13]
(train_images, train_labels), (_, _) = _mnist_like(64, 0)

# [cell 14]
train_images = train_images.reshape(train_images.shape[0], 28, 28, 1).astype('float32')
train_images = (train_images - 127.5) / 127.5  # Normalize the images to [-1, 1]

# [cell 15]
BUFFER_SIZE = 60000
BATCH_SIZE = 32

# [cell 16]
# Batch and shuffle the data
train_dataset = tf.data.Dataset.from_tensor_slices(train_images).batch(BATCH_SIZE)

# [cell 19]
def make_generator_model():
    model = tf.keras.Sequential()
    model.add(layers.Dense(7*7*8, use_bias=False, input_shape=(100,)))
    model.add(layers.BatchNormalization())
    model.add(layers.LeakyReLU())

    model.add(layers.Reshape((7, 7, 8)))
    assert model.output_shape == (None, 7, 7, 8)  # Note: None is the batch size

    model.add(layers.Conv2DTranspose(8, (5, 5), strides=(1, 1), padding='same', use_bias=False))
    assert model.output_shape == (None, 7, 7, 8)
    model.add(layers.BatchNormalization())
    model.add(layers.LeakyReLU())

    model.add(layers.Conv2DTranspose(8, (5, 5), strides=(2, 2), padding='same', use_bias=False))
    assert model.output_shape == (None, 14, 14, 8)
    model.add(layers.BatchNormalization())
    model.add(layers.LeakyReLU())

    model.add(layers.Conv2DTranspose(1, (5, 5), strides=(2, 2), padding='same', use_bias=False, activation='tanh'))
    assert model.output_shape == (None, 28, 28, 1)

    return model

# [cell 21]
generator = make_generator_model()

noise = tf.random.normal([1, 100])
generated_image = generator(noise, training=False)

show((plt.imshow(generated_image[0, :, :, 0], cmap='gray')))

# [cell 23]
def make_discriminator_model():
    model = tf.keras.Sequential()
    model.add(layers.Conv2D(8, (5, 5), strides=(2, 2), padding='same',
                                     input_shape=[28, 28, 1]))
    model.add(layers.LeakyReLU())
    model.add(layers.Dropout(0.0))

    model.add(layers.Conv2D(8, (5, 5), strides=(2, 2), padding='same'))
    model.add(layers.LeakyReLU())
    model.add(layers.Dropout(0.0))

    model.add(layers.Flatten())
    model.add(layers.Dense(1))

    return model

# [cell 25]
discriminator = make_discriminator_model()
decision = discriminator(generated_image)
print (decision)

# [cell 27]
# This method returns a helper function to compute cross entropy loss
cross_entropy = tf.keras.losses.BinaryCrossentropy(from_logits=True)

# [cell 29]
def discriminator_loss(real_output, fake_output):
    real_loss = cross_entropy(tf.ones_like(real_output), real_output)
    fake_loss = cross_entropy(tf.zeros_like(fake_output), fake_output)
    total_loss = real_loss + fake_loss
    return total_loss

# [cell 31]
def generator_loss(fake_output):
    return cross_entropy(tf.ones_like(fake_output), fake_output)

# [cell 33]
generator_optimizer = tf.keras.optimizers.Adam(1e-4)
discriminator_optimizer = tf.keras.optimizers.Adam(1e-4)

# [cell 35]
checkpoint_dir = './training_checkpoints'
checkpoint_prefix = os.path.join(checkpoint_dir, "ckpt")
checkpoint = tf.train.Checkpoint(generator_optimizer=generator_optimizer,
                                 discriminator_optimizer=discriminator_optimizer,
                                 generator=generator,
                                 discriminator=discriminator)

# [cell 37]
EPOCHS = 15
noise_dim = 100
num_examples_to_generate = 16

# You will reuse this seed overtime (so it's easier)
# to visualize progress in the animated GIF)
seed = tf.random.normal([num_examples_to_generate, noise_dim])

# [cell 39]
# Notice the use of `tf.function`
# This annotation causes the function to be "compiled".
@tf.function
def train_step(images):
    noise = tf.random.normal([BATCH_SIZE, noise_dim])

    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
      generated_images = generator(noise, training=True)

      real_output = discriminator(images, training=True)
      fake_output = discriminator(generated_images, training=True)

      gen_loss = generator_loss(fake_output)
      disc_loss = discriminator_loss(real_output, fake_output)

    gradients_of_generator = gen_tape.gradient(gen_loss, generator.trainable_variables)
    gradients_of_discriminator = disc_tape.gradient(disc_loss, discriminator.trainable_variables)

    generator_optimizer.apply_gradients(zip(gradients_of_generator, generator.trainable_variables))
    discriminator_optimizer.apply_gradients(zip(gradients_of_discriminator, discriminator.trainable_variables))

# [cell 40]
def train(dataset, epochs):
  for epoch in range(epochs):
    start = time.time()

    for image_batch in dataset:
      train_step(image_batch)

    # Produce images for the GIF as you go
    display.clear_output(wait=True)
    generate_and_save_images(generator,
                             epoch + 1,
                             seed)

    # Save the model every 15 epochs
    if (epoch + 1) % 15 == 0:
      checkpoint.save(file_prefix = checkpoint_prefix)

    print ('Time for epoch {} is {} sec'.format(epoch + 1, time.time()-start))

  # Generate after the final epoch
  display.clear_output(wait=True)
  generate_and_save_images(generator,
                           epochs,
                           seed)

# [cell 42]
def generate_and_save_images(model, epoch, test_input):
  # Notice `training` is set to False.
  # This is so all layers run in inference mode (batchnorm).
  predictions = model(test_input, training=False)

  fig = plt.figure(figsize=(4, 4))

  for i in range(predictions.shape[0]):
      plt.subplot(4, 4, i+1)
      plt.imshow(predictions[i, :, :, 0] * 127.5 + 127.5, cmap='gray')
      plt.axis('off')

  plt.savefig('image_at_epoch_{:04d}.png'.format(epoch))
  plt.show()

# [cell 44]
show((train(train_dataset, EPOCHS)))

# [cell 46]
show((checkpoint.restore(tf.train.latest_checkpoint(checkpoint_dir))))

# [cell 48]
# Display a single image using the epoch number
def display_image(epoch_no):
  return PIL.Image.open('image_at_epoch_{:04d}.png'.format(epoch_no))

# [cell 49]
# display_image(EPOCHS)

# [cell 51]
# anim_file = 'dcgan.gif'
# 
# with imageio.get_writer(anim_file, mode='I') as writer:
#   filenames = glob.glob('image*.png')
#   filenames = sorted(filenames)
#   for filename in filenames:
#     image = imageio.imread(filename)
#     writer.append_data(image)
#   image = imageio.imread(filename)
#   writer.append_data(image)

# [cell 52]
# import tensorflow_docs.vis.embed as embed
# embed.embed_file(anim_file)
