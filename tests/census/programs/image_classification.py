# Image classification: tensorflow/docs site/en/tutorials/images/classification.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/images/classification.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: io
# expected: kept: a converted .tflite file's tensor indices are not TF's (docs/differences.md, tflite): cell 83's get_output_details() gives output_0's index 84 (TF 25; jax2tf's lowering has more tensors, the shape arithmetic of the None batch size); its signature list, input details (keras_tensor_15, index 0), cell 85's lite prediction and cell 88's difference from the Keras model are TF's, as is every value before, in both modes
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the flower_photos download is 40 generated JPEG files (5 classes of 8, 32x32 or 40x40 of
#   flat 8x8 blocks saved without chroma subsampling: any decoder gives the same pixels), written by
#   the program; the Red_sunflower download is one more such JPEG (48x40)
# - sizes: img_height/img_width 180 are 32; batch_size 32 is 10; Conv2D 16/32/64 are 4/4/8, Dense(128)
#   is Dense(8); epochs 10 and 15 are 2
# - determinism: image_dataset_from_directory takes shuffle=False and train_ds's .shuffle(1000) is left
#   out (TF's shuffle order is TF's generator's); the augmentation layers draw from Keras's backend
#   generator (TF's numbers are not JAX's): cell 60 calls data_augmentation with training=False and the
#   model of cell 63 starts at its Rescaling (data_augmentation left out of it; its input_shape given
#   there); Dropout(0.2) is Dropout(0.0); the roses and tulips listed are sorted (a folder's listing
#   order is the file system's)
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
import PIL
import tensorflow as tf

from tensorflow import keras
from tensorflow.keras import layers
from tensorflow.keras.models import Sequential

# [cell 9]
import pathlib
import os
import PIL.Image

def _blocks_jpeg(rs, path, h, w):
  # flat 8x8 blocks, no chroma subsampling: every JPEG decoder gives these pixels
  blocks = rs.randint(0, 256, (h // 8, w // 8, 3)).astype("uint8")
  PIL.Image.fromarray(np.kron(blocks, np.ones((8, 8, 1), "uint8"))).save(
      path, format="JPEG", quality=95, subsampling=0)

def _flowers_like(root):
  # flower_photos' layout: a folder of JPEGs a class, and a LICENSE.txt
  rs = np.random.RandomState(0)
  for c in ['daisy', 'dandelion', 'roses', 'sunflowers', 'tulips']:
    os.makedirs(os.path.join(root, 'flower_photos', c))
    for i in range(8):
      side = (32, 40)[rs.randint(2)]
      _blocks_jpeg(rs, os.path.join(root, 'flower_photos', c, f'{i:04d}.jpg'), side, side)
  with open(os.path.join(root, 'flower_photos', 'LICENSE.txt'), 'w') as f:
    f.write('generated')
  return root

dataset_url = "https://storage.googleapis.com/download.tensorflow.org/example_images/flower_photos.tgz"
data_dir = _flowers_like(os.path.abspath("flower_photos_extracted"))
data_dir = pathlib.Path(data_dir) / "flower_photos"

# [cell 11]
image_count = len(list(data_dir.glob('*/*.jpg')))
print(image_count)

# [cell 13]
roses = sorted(data_dir.glob('roses/*'))
show(PIL.Image.open(str(roses[0])))

# [cell 14]
show(PIL.Image.open(str(roses[1])))

# [cell 16]
tulips = sorted(data_dir.glob('tulips/*'))
show(PIL.Image.open(str(tulips[0])))

# [cell 17]
show(PIL.Image.open(str(tulips[1])))

# [cell 21]
batch_size = 10
img_height = 32
img_width = 32

# [cell 23]
train_ds = tf.keras.utils.image_dataset_from_directory(
  data_dir,
  validation_split=0.2,
  subset="training",
  seed=123, shuffle=False,
  image_size=(img_height, img_width),
  batch_size=batch_size)

# [cell 24]
val_ds = tf.keras.utils.image_dataset_from_directory(
  data_dir,
  validation_split=0.2,
  subset="validation",
  seed=123, shuffle=False,
  image_size=(img_height, img_width),
  batch_size=batch_size)

# [cell 26]
class_names = train_ds.class_names
print(class_names)

# [cell 28]
import matplotlib.pyplot as plt

plt.figure(figsize=(10, 10))
for images, labels in train_ds.take(1):
  for i in range(9):
    ax = plt.subplot(3, 3, i + 1)
    plt.imshow(images[i].numpy().astype("uint8"))
    plt.title(class_names[labels[i]])
    plt.axis("off")

# [cell 30]
for image_batch, labels_batch in train_ds:
  print(image_batch.shape)
  print(labels_batch.shape)
  break

# [cell 33]
AUTOTUNE = tf.data.AUTOTUNE

train_ds = train_ds.cache().prefetch(buffer_size=AUTOTUNE)
val_ds = val_ds.cache().prefetch(buffer_size=AUTOTUNE)

# [cell 36]
normalization_layer = layers.Rescaling(1./255)

# [cell 38]
normalized_ds = train_ds.map(lambda x, y: (normalization_layer(x), y))
image_batch, labels_batch = next(iter(normalized_ds))
first_image = image_batch[0]
# Notice the pixel values are now in `[0,1]`.
print(np.min(first_image), np.max(first_image))

# [cell 42]
num_classes = len(class_names)

model = Sequential([
  layers.Rescaling(1./255, input_shape=(img_height, img_width, 3)),
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

# [cell 44]
model.compile(optimizer='adam',
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=['accuracy'])

# [cell 46]
show(model.summary())

# [cell 49]
epochs=2
history = model.fit(
  train_ds,
  validation_data=val_ds,
  epochs=epochs
)

# [cell 52]
acc = history.history['accuracy']
val_acc = history.history['val_accuracy']

loss = history.history['loss']
val_loss = history.history['val_loss']

epochs_range = range(epochs)

plt.figure(figsize=(8, 8))
plt.subplot(1, 2, 1)
plt.plot(epochs_range, acc, label='Training Accuracy')
plt.plot(epochs_range, val_acc, label='Validation Accuracy')
plt.legend(loc='lower right')
plt.title('Training and Validation Accuracy')

plt.subplot(1, 2, 2)
plt.plot(epochs_range, loss, label='Training Loss')
plt.plot(epochs_range, val_loss, label='Validation Loss')
plt.legend(loc='upper right')
plt.title('Training and Validation Loss')
plt.show()

# [cell 58]
data_augmentation = keras.Sequential(
  [
    layers.RandomFlip("horizontal",
                      input_shape=(img_height,
                                  img_width,
                                  3)),
    layers.RandomRotation(0.1),
    layers.RandomZoom(0.1),
  ]
)

# [cell 60]
plt.figure(figsize=(10, 10))
for images, _ in train_ds.take(1):
  for i in range(9):
    augmented_images = data_augmentation(images, training=False)
    ax = plt.subplot(3, 3, i + 1)
    plt.imshow(augmented_images[0].numpy().astype("uint8"))
    plt.axis("off")

# [cell 63]
model = Sequential([
  layers.Rescaling(1./255, input_shape=(img_height, img_width, 3)),
  layers.Conv2D(4, 3, padding='same', activation='relu'),
  layers.MaxPooling2D(),
  layers.Conv2D(4, 3, padding='same', activation='relu'),
  layers.MaxPooling2D(),
  layers.Conv2D(8, 3, padding='same', activation='relu'),
  layers.MaxPooling2D(),
  layers.Dropout(0.0),
  layers.Flatten(),
  layers.Dense(8, activation='relu'),
  layers.Dense(num_classes, name="outputs")
])

# [cell 65]
model.compile(optimizer='adam',
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=['accuracy'])

# [cell 66]
show(model.summary())

# [cell 67]
epochs = 2
history = model.fit(
  train_ds,
  validation_data=val_ds,
  epochs=epochs
)

# [cell 69]
acc = history.history['accuracy']
val_acc = history.history['val_accuracy']

loss = history.history['loss']
val_loss = history.history['val_loss']

epochs_range = range(epochs)

plt.figure(figsize=(8, 8))
plt.subplot(1, 2, 1)
plt.plot(epochs_range, acc, label='Training Accuracy')
plt.plot(epochs_range, val_acc, label='Validation Accuracy')
plt.legend(loc='lower right')
plt.title('Training and Validation Accuracy')

plt.subplot(1, 2, 2)
plt.plot(epochs_range, loss, label='Training Loss')
plt.plot(epochs_range, val_loss, label='Validation Loss')
plt.legend(loc='upper right')
plt.title('Training and Validation Loss')
plt.show()

# [cell 73]
sunflower_url = "https://storage.googleapis.com/download.tensorflow.org/example_images/592px-Red_sunflower.jpg"
sunflower_path = os.path.abspath('Red_sunflower')
_blocks_jpeg(np.random.RandomState(1), sunflower_path, 48, 40)

img = tf.keras.utils.load_img(
    sunflower_path, target_size=(img_height, img_width)
)
img_array = tf.keras.utils.img_to_array(img)
img_array = tf.expand_dims(img_array, 0) # Create a batch

predictions = model.predict(img_array)
score = tf.nn.softmax(predictions[0])

print(
    "This image most likely belongs to {} with a {:.2f} percent confidence."
    .format(class_names[np.argmax(score)], 100 * np.max(score))
)

# [cell 76]
# Convert the model.
converter = tf.lite.TFLiteConverter.from_keras_model(model)
tflite_model = converter.convert()

# Save the model.
with open('model.tflite', 'wb') as f:
  f.write(tflite_model)

# [cell 79]
TF_MODEL_FILE_PATH = 'model.tflite' # The default path to the saved TensorFlow Lite model

interpreter = tf.lite.Interpreter(model_path=TF_MODEL_FILE_PATH)

# [cell 81]
show(interpreter.get_signature_list())

# [cell 83]
classify_lite = interpreter.get_signature_runner('serving_default')
print(classify_lite.get_input_details())
print(classify_lite.get_output_details())

# [cell 85]
predictions_lite = classify_lite(keras_tensor_15=img_array)['output_0']
score_lite = tf.nn.softmax(predictions_lite)

# [cell 86]
print(
    "This image most likely belongs to {} with a {:.2f} percent confidence."
    .format(class_names[np.argmax(score_lite)], 100 * np.max(score_lite))
)

# [cell 88]
print(np.max(np.abs(predictions - predictions_lite)))
