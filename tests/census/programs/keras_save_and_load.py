# Save and load models: tensorflow/docs site/en/tutorials/keras/save_and_load.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/keras/save_and_load.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: saved_model
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: MNIST's download is 64 training and 32 test images of random pixels and labels
# - sizes and determinism: Dense(512) is Dense(16); Dropout(0.2) is Dropout(0.0) (TF's random masks cannot be had
#   but from TF's generator); each new model's weights are set from NumPy (weights_like); fit does not shuffle
# - epochs: 10, 50 and 5 are 2, 10 and 1
# - the version printed is left out (eagertape's differs by design)
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
# Copyright (c) 2017 François Chollet
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

# [cell 8]
# !pip install pyyaml h5py  # Required to save models in HDF5 format.

# [cell 9]
import os

import tensorflow as tf
from tensorflow import keras

# print(tf.version.VERSION)

# [cell 11]
_rs = np.random.RandomState(0)
(train_images, train_labels), (test_images, test_labels) = ((_rs.randint(0, 256, (64, 28, 28)).astype('uint8'), _rs.randint(0, 10, 64)), (_rs.randint(0, 256, (32, 28, 28)).astype('uint8'), _rs.randint(0, 10, 32)))

train_labels = train_labels[:1000]
test_labels = test_labels[:1000]

train_images = train_images[:1000].reshape(-1, 28 * 28) / 255.0
test_images = test_images[:1000].reshape(-1, 28 * 28) / 255.0

# [cell 14]
# Define a simple sequential model
def create_model():
  model = tf.keras.Sequential([
    keras.layers.Dense(16, activation='relu', input_shape=(784,)),
    keras.layers.Dropout(0.0),
    keras.layers.Dense(10)
  ])

  model.compile(optimizer='adam',
                loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                metrics=[tf.keras.metrics.SparseCategoricalAccuracy()])

  model.set_weights([w * 0.1 for w in weights_like(model)])
  return model

# Create a basic model instance
model = create_model()

# Display the model's architecture
show(model.summary())

# [cell 17]
checkpoint_path = "training_1/cp.weights.h5" # Since you're only saving weights, you should use the .weights.h5 extension. If you're saving the whole model, you would use the .keras extension instead
checkpoint_dir = os.path.dirname(checkpoint_path)

# Create a callback that saves the model's weights
cp_callback = tf.keras.callbacks.ModelCheckpoint(filepath=checkpoint_path,
                                                 save_weights_only=True,
                                                 verbose=1)

# Train the model with the new callback
show(model.fit(train_images,
          train_labels,
          epochs=2, shuffle=False,
          validation_data=(test_images, test_labels),
          callbacks=[cp_callback]))  # Pass callback to training

# This may generate warnings related to saving the state of the optimizer.
# These warnings (and similar warnings throughout this notebook)
# are in place to discourage outdated usage, and can be ignored.

# [cell 19]
show(os.listdir(checkpoint_dir))

# [cell 21]
# Create a basic model instance
model = create_model()

# Evaluate the model
loss, acc = model.evaluate(test_images, test_labels, verbose=2)
print("Untrained model, accuracy: {:5.2f}%".format(100 * acc))

# [cell 23]
# Loads the weights
model.load_weights(checkpoint_path)

# Re-evaluate the model
loss, acc = model.evaluate(test_images, test_labels, verbose=2)
print("Restored model, accuracy: {:5.2f}%".format(100 * acc))

# [cell 25]
# Include the epoch in the file name (uses `str.format`)
checkpoint_path = "training_2/cp-{epoch:04d}.weights.h5"
checkpoint_dir = os.path.dirname(checkpoint_path)
os.mkdir(checkpoint_dir)

batch_size = 32

# Calculate the number of batches per epoch
import math
n_batches = len(train_images) / batch_size
n_batches = math.ceil(n_batches)    # round up the number of batches to the nearest whole integer

# Create a callback that saves the model's weights every 5 epochs
cp_callback = tf.keras.callbacks.ModelCheckpoint(
    filepath=checkpoint_path,
    verbose=1,
    save_weights_only=True,
    save_freq=5*n_batches)

# Create a new model instance
model = create_model()

# Save the weights using the `checkpoint_path` format
model.save_weights(checkpoint_path.format(epoch=0))

# Train the model with the new callback
show(model.fit(train_images,
          train_labels,
          epochs=10, shuffle=False,
          batch_size=batch_size,
          callbacks=[cp_callback],
          validation_data=(test_images, test_labels),
          verbose=0))

# [cell 27]
show(os.listdir(checkpoint_dir))

# [cell 28]
def load_latest_checkpoint(checkpoint_dir):
    latest = max(os.listdir(checkpoint_dir), key=lambda f: int(f.split('-')[1].split('.')[0]))
    return os.path.join(checkpoint_dir, latest)

latest = load_latest_checkpoint(checkpoint_dir)
show(latest)

# [cell 30]
# Create a new model instance
model = create_model()

# Load the previously saved weights
model.load_weights(latest)

# Re-evaluate the model
loss, acc = model.evaluate(test_images, test_labels, verbose=2)
print("Restored model, accuracy: {:5.2f}%".format(100 * acc))

# [cell 34]
# Save the weights
os.mkdir('./checkpoints')
model.save_weights('./checkpoints/my_checkpoint.weights.h5')

# Create a new model instance
model = create_model()

# Restore the weights
model.load_weights('./checkpoints/my_checkpoint.weights.h5')

# Evaluate the model
loss, acc = model.evaluate(test_images, test_labels, verbose=2)
print("Restored model, accuracy: {:5.2f}%".format(100 * acc))

# [cell 38]
# Create and train a new model instance.
model = create_model()
model.fit(train_images, train_labels, epochs=1, shuffle=False)

# Save the entire model as a `.keras` zip archive.
show(model.save('my_model.keras'))

# [cell 40]
new_model = tf.keras.models.load_model('my_model.keras')

# Show the model architecture
show(new_model.summary())

# [cell 42]
# Evaluate the restored model
loss, acc = new_model.evaluate(test_images, test_labels, verbose=2)
print('Restored model, accuracy: {:5.2f}%'.format(100 * acc))

print(new_model.predict(test_images).shape)

# [cell 45]
# Create and train a new model instance.
model = create_model()
model.fit(train_images, train_labels, epochs=1, shuffle=False)

# Save the entire model as a SavedModel.
# !mkdir -p saved_model
show(tf.saved_model.save(model, 'saved_model/my_model'))

# [cell 47]
# my_model directory
# !ls saved_model

# Contains an assets folder, saved_model.pb, and variables folder.
# !ls saved_model/my_model

# [cell 49]
saved_model = tf.saved_model.load('saved_model/my_model')
show(saved_model)

# [cell 51]
# Create and train a new model instance.
model = create_model()
model.fit(train_images, train_labels, epochs=1, shuffle=False)

# Save the entire model to a HDF5 file.
# The '.h5' extension indicates that the model should be saved to HDF5.
show(model.save('my_model.h5'))

# [cell 53]
# Recreate the exact same model, including its weights and the optimizer
new_model = tf.keras.models.load_model('my_model.h5')

# Show the model architecture
show(new_model.summary())

# [cell 55]
loss, acc = new_model.evaluate(test_images, test_labels, verbose=2)
print('Restored model, accuracy: {:5.2f}%'.format(100 * acc))
