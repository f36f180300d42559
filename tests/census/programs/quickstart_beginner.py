# TensorFlow 2 quickstart for beginners: tensorflow/docs site/en/tutorials/quickstart/beginner.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/quickstart/beginner.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the MNIST download (mnist.load_data()) is 256 training and 64 test images generated in its format
#   (uint8 28x28, uint8 labels; numpy imported for it);
# - epochs: 5 are 2; determinism: fit's shuffling is off (shuffle=False), Dropout(0.2) is Dropout(0.0);
# - the version printed is left out
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
# print("TensorFlow version:", tf.__version__)

# [cell 10]
import numpy as np
mnist = tf.keras.datasets.mnist

(x_train, y_train), (x_test, y_test) = _mnist_like(256, 64)  # mnist.load_data()
x_train, x_test = x_train / 255.0, x_test / 255.0

# [cell 12]
model = tf.keras.models.Sequential([
  tf.keras.layers.Flatten(input_shape=(28, 28)),
  tf.keras.layers.Dense(128, activation='relu'),
  tf.keras.layers.Dropout(0.0),
  tf.keras.layers.Dense(10)
])

# [cell 14]
predictions = model(x_train[:1]).numpy()
show((predictions))

# [cell 16]
show((tf.nn.softmax(predictions).numpy()))

# [cell 19]
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

# [cell 21]
show((loss_fn(y_train[:1], predictions).numpy()))

# [cell 23]
show((model.compile(optimizer='adam',
              loss=loss_fn,
              metrics=['accuracy'])))

# [cell 25]
show((model.fit(x_train, y_train, epochs=2, shuffle=False)))

# [cell 27]
show((model.evaluate(x_test,  y_test, verbose=2)))

# [cell 30]
probability_model = tf.keras.Sequential([
  model,
  tf.keras.layers.Softmax()
])

# [cell 31]
show((probability_model(x_test[:5])))
