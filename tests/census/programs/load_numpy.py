# Load NumPy data: tensorflow/docs site/en/tutorials/load_data/numpy.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/load_data/numpy.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the mnist.npz download (tf.keras.utils.get_file) is an mnist.npz the program writes, in its format
#   (x_train/y_train/x_test/y_test: uint8 28x28 images and uint8 labels), 256 training and 64 test images;
# - epochs: 10 are 2; determinism: the training dataset is not shuffled (.shuffle(SHUFFLE_BUFFER_SIZE) left out)
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

# [cell 7]
 
import numpy as np
import tensorflow as tf

# [cell 9]
DATA_URL = 'https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz'

(_x, _y), (_xt, _yt) = _mnist_like(256, 64)
np.savez('mnist.npz', x_train=_x, y_train=_y, x_test=_xt, y_test=_yt)
path = 'mnist.npz'  # tf.keras.utils.get_file('mnist.npz', DATA_URL)
with np.load(path) as data:
  train_examples = data['x_train']
  train_labels = data['y_train']
  test_examples = data['x_test']
  test_labels = data['y_test']

# [cell 12]
train_dataset = tf.data.Dataset.from_tensor_slices((train_examples, train_labels))
test_dataset = tf.data.Dataset.from_tensor_slices((test_examples, test_labels))

# [cell 15]
BATCH_SIZE = 64
SHUFFLE_BUFFER_SIZE = 100

train_dataset = train_dataset.batch(BATCH_SIZE)  # .shuffle(SHUFFLE_BUFFER_SIZE)
test_dataset = test_dataset.batch(BATCH_SIZE)

# [cell 17]
model = tf.keras.Sequential([
    tf.keras.layers.Flatten(input_shape=(28, 28)),
    tf.keras.layers.Dense(128, activation='relu'),
    tf.keras.layers.Dense(10)
])

show((model.compile(optimizer=tf.keras.optimizers.RMSprop(),
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=['sparse_categorical_accuracy'])))

# [cell 18]
show((model.fit(train_dataset, epochs=2)))

# [cell 19]
show((model.evaluate(test_dataset)))
