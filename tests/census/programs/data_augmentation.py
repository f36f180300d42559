# Data augmentation: tensorflow/docs site/en/tutorials/images/data_augmentation.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/images/data_augmentation.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data and another library: tensorflow_datasets is not installed with the tests and tf_flowers is a
#   download: `import tensorflow_datasets as tfds` is a stand-in whose load('tf_flowers', ...) gives
#   16 + 4 + 4 generated images in its format (uint8 RGB images of 30-40 x 36-48 pixels, int64 labels
#   of its 5 classes, the info's num_classes and int2str), the same at each of its three loads
# - sizes: IMG_SIZE 180 is 16; batch_size 32 is 8; Conv2D 16/32/64 are 4/4/8, Dense(128) is Dense(8);
#   epochs 5 are 2; stateless_random_crop's size [210, 300, 3] is [21, 30, 3] (cell 85: the images
#   are smaller)
# - determinism: the Keras augmentation layers draw from Keras's backend generator (TF's numbers are
#   not JAX's): data_augmentation is called with training=False (cells 27 and 41); the datasets'
#   .shuffle(1000) are left out (prepare's and cells 95 and 102: TF's shuffle order is TF's
#   generator's)
# - TF 2.21 cannot run cell 31 (Keras 3): its Sequential of resize_and_rescale and data_augmentation,
#   each already built by a call on one image (cells 19 and 27), raises ValueError (data_augmentation
#   expects that image's (None, h, w, 3), resize_and_rescale gives (16, 16, 3); with the download's
#   images alike): it is left out, a comment
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
import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
class tfds:
  # tensorflow_datasets (not installed with the tests; tf_flowers a download): tf_flowers'
  # format, generated: uint8 RGB images of varying sizes, int64 labels of its 5 classes
  class _Label:
    names = ['dandelion', 'daisy', 'tulips', 'sunflowers', 'roses']
    num_classes = 5
    def int2str(self, i):
      return self.names[int(i)]
  class _Info:
    features = {'label': None}
  @staticmethod
  def load(name, split, with_info=False, as_supervised=True):
    rs = np.random.RandomState(7)
    def part(n):
      images, labels = [], []
      for i in range(n):
        c = rs.randint(0, 5)
        h, w = rs.randint(30, 41), rs.randint(36, 49)
        img = rs.randint(0, 80, (h, w, 3))
        img[:, :, c % 3] += 120
        img[h // 4: h // 4 + 4 + 2 * c, :] += 50
        images.append(img.clip(0, 255).astype('uint8'))
        labels.append(c)
      return tf.data.Dataset.from_generator(
          lambda: iter(zip(images, np.array(labels, 'int64'))),
          output_signature=(tf.TensorSpec((None, None, 3), tf.uint8),
                            tf.TensorSpec((), tf.int64)))
    info = tfds._Info()
    info.features = {'label': tfds._Label()}
    return (part(16), part(4), part(4)), info

from tensorflow.keras import layers

# [cell 8]
(train_ds, val_ds, test_ds), metadata = tfds.load(
    'tf_flowers',
    split=['train[:80%]', 'train[80%:90%]', 'train[90%:]'],
    with_info=True,
    as_supervised=True,
)

# [cell 10]
num_classes = metadata.features['label'].num_classes
print(num_classes)

# [cell 12]
get_label_name = metadata.features['label'].int2str

image, label = next(iter(train_ds))
_ = plt.imshow(image)
_ = plt.title(get_label_name(label))

# [cell 16]
IMG_SIZE = 16

resize_and_rescale = tf.keras.Sequential([
  layers.Resizing(IMG_SIZE, IMG_SIZE),
  layers.Rescaling(1./255)
])

# [cell 19]
result = resize_and_rescale(image)
_ = plt.imshow(result)

# [cell 21]
print("Min and max pixel values:", result.numpy().min(), result.numpy().max())

# [cell 25]
data_augmentation = tf.keras.Sequential([
  layers.RandomFlip("horizontal_and_vertical"),
  layers.RandomRotation(0.2),
])

# [cell 26]
# Add the image to a batch.
image = tf.cast(tf.expand_dims(image, 0), tf.float32)

# [cell 27]
plt.figure(figsize=(10, 10))
for i in range(9):
  augmented_image = data_augmentation(image, training=False)
  ax = plt.subplot(3, 3, i + 1)
  plt.imshow(augmented_image[0])
  plt.axis("off")

# [cell 31]
# model = tf.keras.Sequential([
#   # Add the preprocessing layers you created earlier.
#   resize_and_rescale,
#   data_augmentation,
#   layers.Conv2D(4, 3, padding='same', activation='relu'),
#   layers.MaxPooling2D(),
#   # Rest of your model.
# ])

# [cell 35]
aug_ds = train_ds.map(
  lambda x, y: (resize_and_rescale(x, training=True), y))

# [cell 41]
batch_size = 8
AUTOTUNE = tf.data.AUTOTUNE

def prepare(ds, shuffle=False, augment=False):
  # Resize and rescale all datasets.
  ds = ds.map(lambda x, y: (resize_and_rescale(x), y), 
              num_parallel_calls=AUTOTUNE)

  if shuffle:
    pass  # ds = ds.shuffle(1000)

  # Batch all datasets.
  ds = ds.batch(batch_size)

  # Use data augmentation only on the training set.
  if augment:
    ds = ds.map(lambda x, y: (data_augmentation(x, training=False), y), 
                num_parallel_calls=AUTOTUNE)

  # Use buffered prefetching on all datasets.
  return ds.prefetch(buffer_size=AUTOTUNE)

# [cell 42]
train_ds = prepare(train_ds, shuffle=True, augment=True)
val_ds = prepare(val_ds)
test_ds = prepare(test_ds)

# [cell 44]
model = tf.keras.Sequential([
  layers.Conv2D(4, 3, padding='same', activation='relu'),
  layers.MaxPooling2D(),
  layers.Conv2D(4, 3, padding='same', activation='relu'),
  layers.MaxPooling2D(),
  layers.Conv2D(8, 3, padding='same', activation='relu'),
  layers.MaxPooling2D(),
  layers.Flatten(),
  layers.Dense(8, activation='relu'),
  layers.Dense(num_classes)
])

# [cell 46]
model.compile(optimizer='adam',
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=['accuracy'])

# [cell 48]
epochs=2
history = model.fit(
  train_ds,
  validation_data=val_ds,
  epochs=epochs
)

# [cell 49]
loss, acc = model.evaluate(test_ds)
print("Accuracy", acc)

# [cell 51]
def random_invert_img(x, p=0.5):
  if  tf.random.uniform([]) < p:
    x = (255-x)
  else:
    x
  return x

# [cell 52]
def random_invert(factor=0.5):
  return layers.Lambda(lambda x: random_invert_img(x, factor))

random_invert = random_invert()

# [cell 53]
plt.figure(figsize=(10, 10))
for i in range(9):
  augmented_image = random_invert(image)
  ax = plt.subplot(3, 3, i + 1)
  plt.imshow(augmented_image[0].numpy().astype("uint8"))
  plt.axis("off")

# [cell 55]
class RandomInvert(layers.Layer):
  def __init__(self, factor=0.5, **kwargs):
    super().__init__(**kwargs)
    self.factor = factor

  def call(self, x):
    return random_invert_img(x)

# [cell 56]
_ = plt.imshow(RandomInvert()(image)[0])

# [cell 61]
(train_ds, val_ds, test_ds), metadata = tfds.load(
    'tf_flowers',
    split=['train[:80%]', 'train[80%:90%]', 'train[90%:]'],
    with_info=True,
    as_supervised=True,
)

# [cell 63]
image, label = next(iter(train_ds))
_ = plt.imshow(image)
_ = plt.title(get_label_name(label))

# [cell 65]
def visualize(original, augmented):
  fig = plt.figure()
  plt.subplot(1,2,1)
  plt.title('Original image')
  plt.imshow(original)

  plt.subplot(1,2,2)
  plt.title('Augmented image')
  plt.imshow(augmented)

# [cell 68]
flipped = tf.image.flip_left_right(image)
visualize(image, flipped)

# [cell 70]
grayscaled = tf.image.rgb_to_grayscale(image)
visualize(image, tf.squeeze(grayscaled))
_ = plt.colorbar()

# [cell 72]
saturated = tf.image.adjust_saturation(image, 3)
visualize(image, saturated)

# [cell 74]
bright = tf.image.adjust_brightness(image, 0.4)
visualize(image, bright)

# [cell 76]
cropped = tf.image.central_crop(image, central_fraction=0.5)
visualize(image, cropped)

# [cell 78]
rotated = tf.image.rot90(image)
visualize(image, rotated)

# [cell 81]
for i in range(3):
  seed = (i, 0)  # tuple of size (2,)
  stateless_random_brightness = tf.image.stateless_random_brightness(
      image, max_delta=0.95, seed=seed)
  visualize(image, stateless_random_brightness)

# [cell 83]
for i in range(3):
  seed = (i, 0)  # tuple of size (2,)
  stateless_random_contrast = tf.image.stateless_random_contrast(
      image, lower=0.1, upper=0.9, seed=seed)
  visualize(image, stateless_random_contrast)

# [cell 85]
for i in range(3):
  seed = (i, 0)  # tuple of size (2,)
  stateless_random_crop = tf.image.stateless_random_crop(
      image, size=[21, 30, 3], seed=seed)
  visualize(image, stateless_random_crop)

# [cell 87]
(train_datasets, val_ds, test_ds), metadata = tfds.load(
    'tf_flowers',
    split=['train[:80%]', 'train[80%:90%]', 'train[90%:]'],
    with_info=True,
    as_supervised=True,
)

# [cell 89]
def resize_and_rescale(image, label):
  image = tf.cast(image, tf.float32)
  image = tf.image.resize(image, [IMG_SIZE, IMG_SIZE])
  image = (image / 255.0)
  return image, label

# [cell 91]
def augment(image_label, seed):
  image, label = image_label
  image, label = resize_and_rescale(image, label)
  image = tf.image.resize_with_crop_or_pad(image, IMG_SIZE + 6, IMG_SIZE + 6)
  # Make a new seed.
  new_seed = tf.random.split(seed, num=1)[0, :]
  # Random crop back to the original size.
  image = tf.image.stateless_random_crop(
      image, size=[IMG_SIZE, IMG_SIZE, 3], seed=seed)
  # Random brightness.
  image = tf.image.stateless_random_brightness(
      image, max_delta=0.5, seed=new_seed)
  image = tf.clip_by_value(image, 0, 1)
  return image, label

# [cell 93]
# Create a `Counter` object and `Dataset.zip` it together with the training set.
counter = tf.data.experimental.Counter()
train_ds = tf.data.Dataset.zip((train_datasets, (counter, counter)))

# [cell 95]
train_ds = (
    train_ds
    # .shuffle(1000)
    .map(augment, num_parallel_calls=AUTOTUNE)
    .batch(batch_size)
    .prefetch(AUTOTUNE)
)

# [cell 96]
val_ds = (
    val_ds
    .map(resize_and_rescale, num_parallel_calls=AUTOTUNE)
    .batch(batch_size)
    .prefetch(AUTOTUNE)
)

# [cell 97]
test_ds = (
    test_ds
    .map(resize_and_rescale, num_parallel_calls=AUTOTUNE)
    .batch(batch_size)
    .prefetch(AUTOTUNE)
)

# [cell 99]
# Create a generator.
rng = tf.random.Generator.from_seed(123, alg='philox')

# [cell 100]
# Create a wrapper function for updating seeds.
def f(x, y):
  seed = rng.make_seeds(1)[:, 0]
  image, label = augment((x, y), seed)
  return image, label

# [cell 102]
train_ds = (
    train_datasets
    # .shuffle(1000)
    .map(f, num_parallel_calls=AUTOTUNE)
    .batch(batch_size)
    .prefetch(AUTOTUNE)
)

# [cell 103]
val_ds = (
    val_ds
    .map(resize_and_rescale, num_parallel_calls=AUTOTUNE)
    .batch(batch_size)
    .prefetch(AUTOTUNE)
)

# [cell 104]
test_ds = (
    test_ds
    .map(resize_and_rescale, num_parallel_calls=AUTOTUNE)
    .batch(batch_size)
    .prefetch(AUTOTUNE)
)

