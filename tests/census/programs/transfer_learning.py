# Transfer learning and fine-tuning: tensorflow/docs site/en/tutorials/images/transfer_learning.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/images/transfer_learning.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the cats_and_dogs_filtered download is 20 + 50 generated JPEG files in its folders
#   ({train,validation}/{cats,dogs}), 32x32 or 40x40 of flat 8x8 blocks saved without chroma
#   subsampling (any decoder gives the same pixels), written by the program
# - data: MobileNetV2's ImageNet weights are a download: weights='imagenet' is weights=None (the
#   initializers draw from NumPy, the prelude's), so the base model is not a pretrained one
# - sizes: IMG_SIZE (160, 160) and the Input's 160x160 are 32x32; BATCH_SIZE 32 is 10; MobileNetV2's
#   alpha 1.0 is 0.35; initial_epochs 10 and fine_tune_epochs 10 are 1
# - determinism: both image_dataset_from_directory calls take shuffle=False (TF's shuffle order is
#   TF's generator's); data_augmentation (random layers drawing from Keras's backend generator: TF's
#   numbers are not JAX's) is called with training=False in cell 25, and left out of cell 47's model
#   (x = inputs): inside fit, Keras 3 calls each layer of a functional model with fit's training=True
#   over the training=False it was built with (keras/src/models/functional.py operation_fn), so the
#   random layers would transform the training images with each backend's own numbers, and the
#   fine-tuned BatchNormalization layers carry them into the losses; Dropout(0.2) is Dropout(0.0)
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

# [cell 2]
#@title MIT License
#
# Copyright (c) 2017 François Chollet                                                                                                                    # IGNORE_COPYRIGHT: cleared by OSS licensing
#
# Permission is hereby granted, free of charge, to any person obtaining a
# copy of this software and associated documentation files (the "Software"),
# to deal in the Software without restriction, including without limitation
# the rights to use, copy, modify, merge, publish, distribute, sublicense,
# and/or sell copies of the Software, and to permit persons to whom the
# Software is furnished to do so, subject to the following conditions:
#
# The above copyright notice and this permission notice shall be included in
# all copies or substantial portions of the Software.
#
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
# IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
# FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL
# THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
# LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
# FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
# DEALINGS IN THE SOFTWARE.

# [cell 6]
import matplotlib.pyplot as plt
import numpy as np
import os
import tensorflow as tf

# [cell 10]
import PIL.Image
def _cats_and_dogs_like(root):
  # cats_and_dogs_filtered's layout ({train,validation}/{cats,dogs}/*.jpg): JPEGs of flat 8x8
  # blocks saved without chroma subsampling (every decoder gives these pixels), 32x32 or 40x40
  rs = np.random.RandomState(0)
  for split, n in (('train', 10), ('validation', 25)):
    for c in ('cats', 'dogs'):
      os.makedirs(os.path.join(root, 'cats_and_dogs_filtered', split, c))
      for i in range(n):
        side = (32, 40)[rs.randint(2)]
        blocks = rs.randint(0, 256, (side // 8, side // 8, 3)).astype('uint8')
        PIL.Image.fromarray(np.kron(blocks, np.ones((8, 8, 1), 'uint8'))).save(
            os.path.join(root, 'cats_and_dogs_filtered', split, c, f'{c[:-1]}.{i}.jpg'),
            quality=95, subsampling=0)
  return os.path.join(root, 'cats_and_dogs.zip')
_URL = 'https://download.mlcc.google.com/mledu-datasets/cats_and_dogs_filtered.zip'
path_to_zip = _cats_and_dogs_like(os.path.abspath('datasets'))
PATH = os.path.join(os.path.dirname(path_to_zip), 'cats_and_dogs_filtered')

train_dir = os.path.join(PATH, 'train')
validation_dir = os.path.join(PATH, 'validation')

BATCH_SIZE = 10
IMG_SIZE = (32, 32)

train_dataset = tf.keras.utils.image_dataset_from_directory(train_dir,
                                                            shuffle=False,
                                                            batch_size=BATCH_SIZE,
                                                            image_size=IMG_SIZE)

# [cell 11]
validation_dataset = tf.keras.utils.image_dataset_from_directory(validation_dir,
                                                                 shuffle=False,
                                                                 batch_size=BATCH_SIZE,
                                                                 image_size=IMG_SIZE)

# [cell 13]
class_names = train_dataset.class_names

plt.figure(figsize=(10, 10))
for images, labels in train_dataset.take(1):
  for i in range(9):
    ax = plt.subplot(3, 3, i + 1)
    plt.imshow(images[i].numpy().astype("uint8"))
    plt.title(class_names[labels[i]])
    plt.axis("off")

# [cell 15]
val_batches = tf.data.experimental.cardinality(validation_dataset)
test_dataset = validation_dataset.take(val_batches // 5)
validation_dataset = validation_dataset.skip(val_batches // 5)

# [cell 16]
print('Number of validation batches: %d' % tf.data.experimental.cardinality(validation_dataset))
print('Number of test batches: %d' % tf.data.experimental.cardinality(test_dataset))

# [cell 19]
AUTOTUNE = tf.data.AUTOTUNE

train_dataset = train_dataset.prefetch(buffer_size=AUTOTUNE)
validation_dataset = validation_dataset.prefetch(buffer_size=AUTOTUNE)
test_dataset = test_dataset.prefetch(buffer_size=AUTOTUNE)

# [cell 22]
data_augmentation = tf.keras.Sequential([
  tf.keras.layers.RandomFlip('horizontal'),
  tf.keras.layers.RandomRotation(0.2),
])

# [cell 25]
for image, _ in train_dataset.take(1):
  plt.figure(figsize=(10, 10))
  first_image = image[0]
  for i in range(9):
    ax = plt.subplot(3, 3, i + 1)
    augmented_image = data_augmentation(tf.expand_dims(first_image, 0), training=False)
    plt.imshow(augmented_image[0] / 255)
    plt.axis('off')

# [cell 27]
preprocess_input = tf.keras.applications.mobilenet_v2.preprocess_input

# [cell 29]
rescale = tf.keras.layers.Rescaling(1./127.5, offset=-1)

# [cell 32]
# Create the base model from the pre-trained model MobileNet V2
IMG_SHAPE = IMG_SIZE + (3,)
base_model = tf.keras.applications.MobileNetV2(input_shape=IMG_SHAPE,
                                               include_top=False,
                                               weights=None, alpha=0.35)

# [cell 34]
image_batch, label_batch = next(iter(train_dataset))
feature_batch = base_model(image_batch)
print(feature_batch.shape)

# [cell 38]
base_model.trainable = False

# [cell 40]
# Let's take a look at the base model architecture
show(base_model.summary())

# [cell 43]
global_average_layer = tf.keras.layers.GlobalAveragePooling2D()
feature_batch_average = global_average_layer(feature_batch)
print(feature_batch_average.shape)

# [cell 45]
prediction_layer = tf.keras.layers.Dense(1, activation='sigmoid')
prediction_batch = prediction_layer(feature_batch_average)
print(prediction_batch.shape)

# [cell 47]
inputs = tf.keras.Input(shape=(32, 32, 3))
x = inputs
x = preprocess_input(x)
x = base_model(x, training=False)
x = global_average_layer(x)
x = tf.keras.layers.Dropout(0.0)(x)
outputs = prediction_layer(x)
model = tf.keras.Model(inputs, outputs)

# [cell 48]
show(model.summary())

# [cell 50]
show(len(model.trainable_variables))

# [cell 51]
show(tf.keras.utils.plot_model(model, show_shapes=True))

# [cell 53]
base_learning_rate = 0.0001
model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=base_learning_rate),
              loss=tf.keras.losses.BinaryCrossentropy(),
              metrics=[tf.keras.metrics.BinaryAccuracy(threshold=0.5, name='accuracy')])

# [cell 55]
initial_epochs = 1

loss0, accuracy0 = model.evaluate(validation_dataset)

# [cell 56]
print("initial loss: {:.2f}".format(loss0))
print("initial accuracy: {:.2f}".format(accuracy0))

# [cell 57]
history = model.fit(train_dataset,
                    epochs=initial_epochs,
                    validation_data=validation_dataset)

# [cell 59]
acc = history.history['accuracy']
val_acc = history.history['val_accuracy']

loss = history.history['loss']
val_loss = history.history['val_loss']

plt.figure(figsize=(8, 8))
plt.subplot(2, 1, 1)
plt.plot(acc, label='Training Accuracy')
plt.plot(val_acc, label='Validation Accuracy')
plt.legend(loc='lower right')
plt.ylabel('Accuracy')
plt.ylim([min(plt.ylim()),1])
plt.title('Training and Validation Accuracy')

plt.subplot(2, 1, 2)
plt.plot(loss, label='Training Loss')
plt.plot(val_loss, label='Validation Loss')
plt.legend(loc='upper right')
plt.ylabel('Cross Entropy')
plt.ylim([0,1.0])
plt.title('Training and Validation Loss')
plt.xlabel('epoch')
plt.show()

# [cell 64]
base_model.trainable = True

# [cell 65]
# Let's take a look to see how many layers are in the base model
print("Number of layers in the base model: ", len(base_model.layers))

# Fine-tune from this layer onwards
fine_tune_at = 100

# Freeze all the layers before the `fine_tune_at` layer
for layer in base_model.layers[:fine_tune_at]:
  layer.trainable = False

# [cell 67]
model.compile(loss=tf.keras.losses.BinaryCrossentropy(),
              optimizer = tf.keras.optimizers.RMSprop(learning_rate=base_learning_rate/10),
              metrics=[tf.keras.metrics.BinaryAccuracy(threshold=0.5, name='accuracy')])

# [cell 68]
show(model.summary())

# [cell 69]
show(len(model.trainable_variables))

# [cell 72]
fine_tune_epochs = 1
total_epochs =  initial_epochs + fine_tune_epochs

history_fine = model.fit(train_dataset,
                         epochs=total_epochs,
                         initial_epoch=len(history.epoch),
                         validation_data=validation_dataset)

# [cell 75]
acc += history_fine.history['accuracy']
val_acc += history_fine.history['val_accuracy']

loss += history_fine.history['loss']
val_loss += history_fine.history['val_loss']

# [cell 76]
plt.figure(figsize=(8, 8))
plt.subplot(2, 1, 1)
plt.plot(acc, label='Training Accuracy')
plt.plot(val_acc, label='Validation Accuracy')
plt.ylim([0.8, 1])
plt.plot([initial_epochs-1,initial_epochs-1],
          plt.ylim(), label='Start Fine Tuning')
plt.legend(loc='lower right')
plt.title('Training and Validation Accuracy')

plt.subplot(2, 1, 2)
plt.plot(loss, label='Training Loss')
plt.plot(val_loss, label='Validation Loss')
plt.ylim([0, 1.0])
plt.plot([initial_epochs-1,initial_epochs-1],
         plt.ylim(), label='Start Fine Tuning')
plt.legend(loc='upper right')
plt.title('Training and Validation Loss')
plt.xlabel('epoch')
plt.show()

# [cell 79]
loss, accuracy = model.evaluate(test_dataset)
print('Test accuracy :', accuracy)

# [cell 81]
# Retrieve a batch of images from the test set
image_batch, label_batch = test_dataset.as_numpy_iterator().next()
predictions = model.predict_on_batch(image_batch).flatten()
predictions = tf.where(predictions < 0.5, 0, 1)

print('Predictions:\n', predictions.numpy())
print('Labels:\n', label_batch)

plt.figure(figsize=(10, 10))
for i in range(9):
  ax = plt.subplot(3, 3, i + 1)
  plt.imshow(image_batch[i].astype("uint8"))
  plt.title(class_names[predictions[i]])
  plt.axis("off")

