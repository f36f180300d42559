# Load and preprocess images: tensorflow/docs site/en/tutorials/load_data/images.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/load_data/images.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: strings, io
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - the tutorial's last section (tensorflow_datasets' tf_flowers: a download through a library the tests do not install) is left out, with its import
# - data: the flower_photos download is 20 generated JPEG files (5 classes of 4, random pixels)
# - sizes: batch 32 is 10, images 180x180 are 32x32, Conv2D(32) is Conv2D(4), Dense(128) is Dense(8), epochs 3 are 1
# - determinism: no dataset is shuffled (image_dataset_from_directory's shuffle=False; the shuffles of list_ds and configure_for_performance are left out: TF's order is TF's generator's)
# - the version printed is left out
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
import numpy as np
import os
import PIL
import PIL.Image
import tensorflow as tf
# import tensorflow_datasets as tfds

# [cell 7]
# print(tf.__version__)

# [cell 10]
import pathlib
dataset_url = "https://storage.googleapis.com/download.tensorflow.org/example_images/flower_photos.tgz"
def _flowers_like(root):
  # 5 classes of 4 JPEG photos (random pixels, 20 to 28 pixels a side) and a LICENSE.txt
  rs = np.random.RandomState(0)
  for c in ['daisy', 'dandelion', 'roses', 'sunflowers', 'tulips']:
    os.makedirs(os.path.join(root, 'flower_photos', c))
    for i in range(4):
      h, w = rs.randint(20, 29, 2)
      PIL.Image.fromarray(rs.randint(0, 256, (h, w, 3)).astype('uint8')).save(
          os.path.join(root, 'flower_photos', c, f'{i:04d}.jpg'), quality=90)
  with open(os.path.join(root, 'flower_photos', 'LICENSE.txt'), 'w') as f:
    f.write('generated')
  return root
archive = _flowers_like(os.path.abspath('flower_photos_extracted'))
data_dir = pathlib.Path(archive) / 'flower_photos'

# [cell 12]
image_count = len(list(data_dir.glob('*/*.jpg')))
print(image_count)

# [cell 14]
roses = list(data_dir.glob('roses/*'))
show(PIL.Image.open(str(roses[0])))

# [cell 15]
roses = list(data_dir.glob('roses/*'))
show(PIL.Image.open(str(roses[1])))

# [cell 19]
batch_size = 10
img_height = 32
img_width = 32

# [cell 21]
train_ds = tf.keras.utils.image_dataset_from_directory(
  data_dir,
  validation_split=0.2,
  subset="training",
  seed=123, shuffle=False,
  image_size=(img_height, img_width),
  batch_size=batch_size)

# [cell 22]
val_ds = tf.keras.utils.image_dataset_from_directory(
  data_dir,
  validation_split=0.2,
  subset="validation",
  seed=123, shuffle=False,
  image_size=(img_height, img_width),
  batch_size=batch_size)

# [cell 24]
class_names = train_ds.class_names
print(class_names)

# [cell 26]
import matplotlib.pyplot as plt

plt.figure(figsize=(10, 10))
for images, labels in train_ds.take(1):
  for i in range(9):
    ax = plt.subplot(3, 3, i + 1)
    plt.imshow(images[i].numpy().astype("uint8"))
    plt.title(class_names[labels[i]])
    plt.axis("off")

# [cell 28]
for image_batch, labels_batch in train_ds:
  print(image_batch.shape)
  print(labels_batch.shape)
  break

# [cell 32]
normalization_layer = tf.keras.layers.Rescaling(1./255)

# [cell 34]
normalized_ds = train_ds.map(lambda x, y: (normalization_layer(x), y))
image_batch, labels_batch = next(iter(normalized_ds))
first_image = image_batch[0]
# Notice the pixel values are now in `[0,1]`.
print(np.min(first_image), np.max(first_image))

# [cell 39]
AUTOTUNE = tf.data.AUTOTUNE

train_ds = train_ds.cache().prefetch(buffer_size=AUTOTUNE)
val_ds = val_ds.cache().prefetch(buffer_size=AUTOTUNE)

# [cell 41]
num_classes = 5

model = tf.keras.Sequential([
  tf.keras.layers.Rescaling(1./255),
  tf.keras.layers.Conv2D(4, 3, activation='relu'),
  tf.keras.layers.MaxPooling2D(),
  tf.keras.layers.Conv2D(4, 3, activation='relu'),
  tf.keras.layers.MaxPooling2D(),
  tf.keras.layers.Conv2D(4, 3, activation='relu'),
  tf.keras.layers.MaxPooling2D(),
  tf.keras.layers.Flatten(),
  tf.keras.layers.Dense(8, activation='relu'),
  tf.keras.layers.Dense(num_classes)
])

# [cell 43]
show(model.compile(
  optimizer='adam',
  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
  metrics=['accuracy']))

# [cell 45]
show(model.fit(
  train_ds,
  validation_data=val_ds,
  epochs=1
))

# [cell 50]
list_ds = tf.data.Dataset.list_files(str(data_dir/'*/*'), shuffle=False)
# list_ds = list_ds.shuffle(image_count, reshuffle_each_iteration=False)

# [cell 51]
for f in list_ds.take(5):
  print(f.numpy())

# [cell 53]
class_names = np.array(sorted([item.name for item in data_dir.glob('*') if item.name != "LICENSE.txt"]))
print(class_names)

# [cell 55]
val_size = int(image_count * 0.2)
train_ds = list_ds.skip(val_size)
val_ds = list_ds.take(val_size)

# [cell 57]
print(tf.data.experimental.cardinality(train_ds).numpy())
print(tf.data.experimental.cardinality(val_ds).numpy())

# [cell 59]
def get_label(file_path):
  # Convert the path to a list of path components
  parts = tf.strings.split(file_path, os.path.sep)
  # The second to last is the class-directory
  one_hot = parts[-2] == class_names
  # Integer encode the label
  return tf.argmax(one_hot)

# [cell 60]
def decode_img(img):
  # Convert the compressed string to a 3D uint8 tensor
  img = tf.io.decode_jpeg(img, channels=3)
  # Resize the image to the desired size
  return tf.image.resize(img, [img_height, img_width])

# [cell 61]
def process_path(file_path):
  label = get_label(file_path)
  # Load the raw data from the file as a string
  img = tf.io.read_file(file_path)
  img = decode_img(img)
  return img, label

# [cell 63]
# Set `num_parallel_calls` so multiple images are loaded/processed in parallel.
train_ds = train_ds.map(process_path, num_parallel_calls=AUTOTUNE)
val_ds = val_ds.map(process_path, num_parallel_calls=AUTOTUNE)

# [cell 64]
for image, label in train_ds.take(1):
  print("Image shape: ", image.numpy().shape)
  print("Label: ", label.numpy())

# [cell 67]
def configure_for_performance(ds):
  ds = ds.cache()
  # ds = ds.shuffle(buffer_size=1000)
  ds = ds.batch(batch_size)
  ds = ds.prefetch(buffer_size=AUTOTUNE)
  return ds

train_ds = configure_for_performance(train_ds)
val_ds = configure_for_performance(val_ds)

# [cell 69]
image_batch, label_batch = next(iter(train_ds))

plt.figure(figsize=(10, 10))
for i in range(9):
  ax = plt.subplot(3, 3, i + 1)
  plt.imshow(image_batch[i].numpy().astype("uint8"))
  label = label_batch[i]
  plt.title(class_names[label])
  plt.axis("off")

# [cell 71]
show(model.fit(
  train_ds,
  validation_data=val_ds,
  epochs=1
))

# (the tutorial's last section, tensorflow_datasets' tf_flowers, is left out: see the header)
