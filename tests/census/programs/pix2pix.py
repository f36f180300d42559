# pix2pix: Image-to-image translation with a conditional GAN: tensorflow/docs site/en/tutorials/generative/pix2pix.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/generative/pix2pix.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: io
# timings: Time taken for
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the facades download (tar.gz) is 8 generated 512x256 JPEGs in its folders (train 1, 2, 3, 100;
#   test and val 1, 2), each a photo of flat 8x8 blocks beside a label map of 16x16 ones, saved
#   without chroma subsampling (any decoder gives the same pixels), written by the program
#   (`import numpy as np` and `import PIL.Image` added for it); cell 10's listing is sorted (a
#   folder's listing order is the file system's)
# - sizes: the images stay 256x256 (the U-Net's eight stride-2 downsamples need them); the filters
#   64/128/256/512 are 4/4/8/8 (generator and discriminator, the discriminator's Conv2D(512) too);
#   fit's steps 40000 are 10, the checkpoint saved every 5000 steps is saved every 5; cell 86 shows
#   2 test examples, not 5
# - determinism: random_jitter's resize to 286x286 is 256x256, so random_crop's crop is the whole image
#   (tf.image.random_crop draws from TF's generator); its tf.random.uniform(()) is drawn from NumPy
#   (the prelude) when the function is traced; list_files take shuffle=False and the training set's
#   shuffle(BUFFER_SIZE) is left out (TF's order is TF's generator's); Dropout(0.5) is Dropout(0.0);
#   the four tf.random_normal_initializer(0., 0.02) are tf.keras.initializers.RandomNormal(0., 0.02)
#   (TF's initializer class draws from TF's generator, unseeded; Keras's draws from NumPy, the prelude's)
# - the summaries of train_step (cell 73: tf.summary.scalar in the summary_writer's context) are left
#   out, comments: tensorboard is not installed here, and TF raises TBNotInstalledError there
#   (tf.summary.scalar needs tensorboard); cell 72's file writer is made
# - the times printed are not compared (timings)
#
# [cell 1]
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

# [cell 6]
import tensorflow as tf

import os
import pathlib
import time
import datetime

from matplotlib import pyplot as plt
from IPython import display

# [cell 8]
dataset_name = "facades" #@param ["cityscapes", "edges2handbags", "edges2shoes", "facades", "maps", "night2day"]

# [cell 9]
_URL = f'http://efrosgans.eecs.berkeley.edu/pix2pix/datasets/{dataset_name}.tar.gz'

import numpy as np
import PIL.Image
def _facades_like(root):
  # facades' layout ({train,test,val}/N.jpg): each a 512x256 JPEG, the photo on the left and its
  # label map on the right; here flat 8x8 blocks (label maps: 16x16 ones) saved without chroma
  # subsampling (every decoder gives these pixels)
  rs = np.random.RandomState(0)
  for split, names in (('train', [1, 2, 3, 100]), ('test', [1, 2]), ('val', [1, 2])):
    os.makedirs(os.path.join(root, f'{dataset_name}_extracted', dataset_name, split))
    for n in names:
      photo = np.kron(rs.randint(0, 256, (32, 32, 3)), np.ones((8, 8, 1)))
      labels = np.kron(rs.randint(0, 12, (16, 16, 1)) * 20 + np.array([[[10, 60, 200]]]),
                       np.ones((16, 16, 1)))
      PIL.Image.fromarray(np.concatenate([photo, labels], axis=1).astype('uint8')).save(
          os.path.join(root, f'{dataset_name}_extracted', dataset_name, split, f'{n}.jpg'),
          quality=95, subsampling=0)
  return os.path.join(root, f'{dataset_name}.tar.gz')
path_to_zip = _facades_like(os.path.abspath('datasets'))

path_to_zip  = pathlib.Path(path_to_zip)

extraction_dir = f'{dataset_name}_extracted/{dataset_name}'

PATH = path_to_zip.parent/extraction_dir

# [cell 10]
show(sorted(PATH.parent.iterdir()))

# [cell 12]
sample_image = tf.io.read_file(str(PATH / 'train/1.jpg'))
sample_image = tf.io.decode_jpeg(sample_image)
print(sample_image.shape)

# [cell 13]
plt.figure()
plt.imshow(sample_image)

# [cell 15]
def load(image_file):
  # Read and decode an image file to a uint8 tensor
  image = tf.io.read_file(image_file)
  image = tf.io.decode_jpeg(image)

  # Split each image tensor into two tensors:
  # - one with a real building facade image
  # - one with an architecture label image 
  w = tf.shape(image)[1]
  w = w // 2
  input_image = image[:, w:, :]
  real_image = image[:, :w, :]

  # Convert both images to float32 tensors
  input_image = tf.cast(input_image, tf.float32)
  real_image = tf.cast(real_image, tf.float32)

  return input_image, real_image

# [cell 17]
inp, re = load(str(PATH / 'train/100.jpg'))
# Casting to int for matplotlib to display the images
plt.figure()
plt.imshow(inp / 255.0)
plt.figure()
plt.imshow(re / 255.0)

# [cell 19]
# The facade training set consist of 400 images
BUFFER_SIZE = 400
# The batch size of 1 produced better results for the U-Net in the original pix2pix experiment
BATCH_SIZE = 1
# Each image is 256x256 in size
IMG_WIDTH = 256
IMG_HEIGHT = 256

# [cell 20]
def resize(input_image, real_image, height, width):
  input_image = tf.image.resize(input_image, [height, width],
                                method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
  real_image = tf.image.resize(real_image, [height, width],
                               method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)

  return input_image, real_image

# [cell 21]
def random_crop(input_image, real_image):
  stacked_image = tf.stack([input_image, real_image], axis=0)
  cropped_image = tf.image.random_crop(
      stacked_image, size=[2, IMG_HEIGHT, IMG_WIDTH, 3])

  return cropped_image[0], cropped_image[1]

# [cell 22]
# Normalizing the images to [-1, 1]
def normalize(input_image, real_image):
  input_image = (input_image / 127.5) - 1
  real_image = (real_image / 127.5) - 1

  return input_image, real_image

# [cell 23]
@tf.function()
def random_jitter(input_image, real_image):
  # Resizing to 286x286
  input_image, real_image = resize(input_image, real_image, 256, 256)

  # Random cropping back to 256x256
  input_image, real_image = random_crop(input_image, real_image)

  if tf.random.uniform(()) > 0.5:
    # Random mirroring
    input_image = tf.image.flip_left_right(input_image)
    real_image = tf.image.flip_left_right(real_image)

  return input_image, real_image

# [cell 25]
plt.figure(figsize=(6, 6))
for i in range(4):
  rj_inp, rj_re = random_jitter(inp, re)
  plt.subplot(2, 2, i + 1)
  plt.imshow(rj_inp / 255.0)
  plt.axis('off')
plt.show()

# [cell 27]
def load_image_train(image_file):
  input_image, real_image = load(image_file)
  input_image, real_image = random_jitter(input_image, real_image)
  input_image, real_image = normalize(input_image, real_image)

  return input_image, real_image

# [cell 28]
def load_image_test(image_file):
  input_image, real_image = load(image_file)
  input_image, real_image = resize(input_image, real_image,
                                   IMG_HEIGHT, IMG_WIDTH)
  input_image, real_image = normalize(input_image, real_image)

  return input_image, real_image

# [cell 30]
train_dataset = tf.data.Dataset.list_files(str(PATH / 'train/*.jpg'), shuffle=False)
train_dataset = train_dataset.map(load_image_train,
                                  num_parallel_calls=tf.data.AUTOTUNE)
# train_dataset = train_dataset.shuffle(BUFFER_SIZE)
train_dataset = train_dataset.batch(BATCH_SIZE)

# [cell 31]
try:
  test_dataset = tf.data.Dataset.list_files(str(PATH / 'test/*.jpg'), shuffle=False)
except tf.errors.InvalidArgumentError:
  test_dataset = tf.data.Dataset.list_files(str(PATH / 'val/*.jpg'), shuffle=False)
test_dataset = test_dataset.map(load_image_test)
test_dataset = test_dataset.batch(BATCH_SIZE)

# [cell 34]
OUTPUT_CHANNELS = 3

# [cell 35]
def downsample(filters, size, apply_batchnorm=True):
  initializer = tf.keras.initializers.RandomNormal(0., 0.02)

  result = tf.keras.Sequential()
  result.add(
      tf.keras.layers.Conv2D(filters, size, strides=2, padding='same',
                             kernel_initializer=initializer, use_bias=False))

  if apply_batchnorm:
    result.add(tf.keras.layers.BatchNormalization())

  result.add(tf.keras.layers.LeakyReLU())

  return result

# [cell 36]
down_model = downsample(3, 4)
down_result = down_model(tf.expand_dims(inp, 0))
print (down_result.shape)

# [cell 38]
def upsample(filters, size, apply_dropout=False):
  initializer = tf.keras.initializers.RandomNormal(0., 0.02)

  result = tf.keras.Sequential()
  result.add(
    tf.keras.layers.Conv2DTranspose(filters, size, strides=2,
                                    padding='same',
                                    kernel_initializer=initializer,
                                    use_bias=False))

  result.add(tf.keras.layers.BatchNormalization())

  if apply_dropout:
      result.add(tf.keras.layers.Dropout(0.0))

  result.add(tf.keras.layers.ReLU())

  return result

# [cell 39]
up_model = upsample(3, 4)
up_result = up_model(down_result)
print (up_result.shape)

# [cell 41]
def Generator():
  inputs = tf.keras.layers.Input(shape=[256, 256, 3])

  down_stack = [
    downsample(4, 4, apply_batchnorm=False),  # (batch_size, 128, 128, 64)
    downsample(4, 4),  # (batch_size, 64, 64, 128)
    downsample(8, 4),  # (batch_size, 32, 32, 256)
    downsample(8, 4),  # (batch_size, 16, 16, 512)
    downsample(8, 4),  # (batch_size, 8, 8, 512)
    downsample(8, 4),  # (batch_size, 4, 4, 512)
    downsample(8, 4),  # (batch_size, 2, 2, 512)
    downsample(8, 4),  # (batch_size, 1, 1, 512)
  ]

  up_stack = [
    upsample(8, 4, apply_dropout=True),  # (batch_size, 2, 2, 1024)
    upsample(8, 4, apply_dropout=True),  # (batch_size, 4, 4, 1024)
    upsample(8, 4, apply_dropout=True),  # (batch_size, 8, 8, 1024)
    upsample(8, 4),  # (batch_size, 16, 16, 1024)
    upsample(8, 4),  # (batch_size, 32, 32, 512)
    upsample(4, 4),  # (batch_size, 64, 64, 256)
    upsample(4, 4),  # (batch_size, 128, 128, 128)
  ]

  initializer = tf.keras.initializers.RandomNormal(0., 0.02)
  last = tf.keras.layers.Conv2DTranspose(OUTPUT_CHANNELS, 4,
                                         strides=2,
                                         padding='same',
                                         kernel_initializer=initializer,
                                         activation='tanh')  # (batch_size, 256, 256, 3)

  x = inputs

  # Downsampling through the model
  skips = []
  for down in down_stack:
    x = down(x)
    skips.append(x)

  skips = reversed(skips[:-1])

  # Upsampling and establishing the skip connections
  for up, skip in zip(up_stack, skips):
    x = up(x)
    x = tf.keras.layers.Concatenate()([x, skip])

  x = last(x)

  return tf.keras.Model(inputs=inputs, outputs=x)

# [cell 43]
generator = Generator()
show(tf.keras.utils.plot_model(generator, show_shapes=True, dpi=64))

# [cell 45]
gen_output = generator(inp[tf.newaxis, ...], training=False)
plt.imshow(gen_output[0, ...])

# [cell 47]
LAMBDA = 100

# [cell 48]
loss_object = tf.keras.losses.BinaryCrossentropy(from_logits=True)

# [cell 49]
def generator_loss(disc_generated_output, gen_output, target):
  gan_loss = loss_object(tf.ones_like(disc_generated_output), disc_generated_output)

  # Mean absolute error
  l1_loss = tf.reduce_mean(tf.abs(target - gen_output))

  total_gen_loss = gan_loss + (LAMBDA * l1_loss)

  return total_gen_loss, gan_loss, l1_loss

# [cell 54]
def Discriminator():
  initializer = tf.keras.initializers.RandomNormal(0., 0.02)

  inp = tf.keras.layers.Input(shape=[256, 256, 3], name='input_image')
  tar = tf.keras.layers.Input(shape=[256, 256, 3], name='target_image')

  x = tf.keras.layers.concatenate([inp, tar])  # (batch_size, 256, 256, channels*2)

  down1 = downsample(4, 4, False)(x)  # (batch_size, 128, 128, 64)
  down2 = downsample(4, 4)(down1)  # (batch_size, 64, 64, 128)
  down3 = downsample(8, 4)(down2)  # (batch_size, 32, 32, 256)

  zero_pad1 = tf.keras.layers.ZeroPadding2D()(down3)  # (batch_size, 34, 34, 256)
  conv = tf.keras.layers.Conv2D(8, 4, strides=1,
                                kernel_initializer=initializer,
                                use_bias=False)(zero_pad1)  # (batch_size, 31, 31, 512)

  batchnorm1 = tf.keras.layers.BatchNormalization()(conv)

  leaky_relu = tf.keras.layers.LeakyReLU()(batchnorm1)

  zero_pad2 = tf.keras.layers.ZeroPadding2D()(leaky_relu)  # (batch_size, 33, 33, 512)

  last = tf.keras.layers.Conv2D(1, 4, strides=1,
                                kernel_initializer=initializer)(zero_pad2)  # (batch_size, 30, 30, 1)

  return tf.keras.Model(inputs=[inp, tar], outputs=last)

# [cell 56]
discriminator = Discriminator()
show(tf.keras.utils.plot_model(discriminator, show_shapes=True, dpi=64))

# [cell 58]
disc_out = discriminator([inp[tf.newaxis, ...], gen_output], training=False)
plt.imshow(disc_out[0, ..., -1], vmin=-20, vmax=20, cmap='RdBu_r')
plt.colorbar()

# [cell 60]
def discriminator_loss(disc_real_output, disc_generated_output):
  real_loss = loss_object(tf.ones_like(disc_real_output), disc_real_output)

  generated_loss = loss_object(tf.zeros_like(disc_generated_output), disc_generated_output)

  total_disc_loss = real_loss + generated_loss

  return total_disc_loss

# [cell 64]
generator_optimizer = tf.keras.optimizers.Adam(2e-4, beta_1=0.5)
discriminator_optimizer = tf.keras.optimizers.Adam(2e-4, beta_1=0.5)

# [cell 65]
checkpoint_dir = './training_checkpoints'
checkpoint_prefix = os.path.join(checkpoint_dir, "ckpt")
checkpoint = tf.train.Checkpoint(generator_optimizer=generator_optimizer,
                                 discriminator_optimizer=discriminator_optimizer,
                                 generator=generator,
                                 discriminator=discriminator)

# [cell 68]
def generate_images(model, test_input, tar):
  prediction = model(test_input, training=True)
  plt.figure(figsize=(15, 15))

  display_list = [test_input[0], tar[0], prediction[0]]
  title = ['Input Image', 'Ground Truth', 'Predicted Image']

  for i in range(3):
    plt.subplot(1, 3, i+1)
    plt.title(title[i])
    # Getting the pixel values in the [0, 1] range to plot.
    plt.imshow(display_list[i] * 0.5 + 0.5)
    plt.axis('off')
  plt.show()

# [cell 70]
for example_input, example_target in test_dataset.take(1):
  generate_images(generator, example_input, example_target)

# [cell 72]
log_dir="logs/"

summary_writer = tf.summary.create_file_writer(
  log_dir + "fit/" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))

# [cell 73]
@tf.function
def train_step(input_image, target, step):
  with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
    gen_output = generator(input_image, training=True)

    disc_real_output = discriminator([input_image, target], training=True)
    disc_generated_output = discriminator([input_image, gen_output], training=True)

    gen_total_loss, gen_gan_loss, gen_l1_loss = generator_loss(disc_generated_output, gen_output, target)
    disc_loss = discriminator_loss(disc_real_output, disc_generated_output)

  generator_gradients = gen_tape.gradient(gen_total_loss,
                                          generator.trainable_variables)
  discriminator_gradients = disc_tape.gradient(disc_loss,
                                               discriminator.trainable_variables)

  generator_optimizer.apply_gradients(zip(generator_gradients,
                                          generator.trainable_variables))
  discriminator_optimizer.apply_gradients(zip(discriminator_gradients,
                                              discriminator.trainable_variables))

  # with summary_writer.as_default():
  #   tf.summary.scalar('gen_total_loss', gen_total_loss, step=step//1000)
  #   tf.summary.scalar('gen_gan_loss', gen_gan_loss, step=step//1000)
  #   tf.summary.scalar('gen_l1_loss', gen_l1_loss, step=step//1000)
  #   tf.summary.scalar('disc_loss', disc_loss, step=step//1000)

# [cell 75]
def fit(train_ds, test_ds, steps):
  example_input, example_target = next(iter(test_ds.take(1)))
  start = time.time()

  for step, (input_image, target) in train_ds.repeat().take(steps).enumerate():
    if (step) % 1000 == 0:
      display.clear_output(wait=True)

      if step != 0:
        print(f'Time taken for 1000 steps: {time.time()-start:.2f} sec\n')

      start = time.time()

      generate_images(generator, example_input, example_target)
      print(f"Step: {step//1000}k")

    train_step(input_image, target, step)

    # Training step
    if (step+1) % 10 == 0:
      print('.', end='', flush=True)


    # Save (checkpoint) the model every 5k steps
    if (step + 1) % 5 == 0:
      checkpoint.save(file_prefix=checkpoint_prefix)

# [cell 77]
# %load_ext tensorboard
# %tensorboard --logdir {log_dir}

# [cell 80]
fit(train_dataset, test_dataset, steps=10)

# [cell 83]
# !ls {checkpoint_dir}

# [cell 84]
# Restoring the latest checkpoint in checkpoint_dir
show(checkpoint.restore(tf.train.latest_checkpoint(checkpoint_dir)))

# [cell 86]
# Run the trained model on a few examples from the test set
for inp, tar in test_dataset.take(2):
  generate_images(generator, inp, tar)

