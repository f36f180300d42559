# Mixed precision: tensorflow/docs site/en/guide/mixed_precision.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/mixed_precision.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# expected: kept: float16 arithmetic is XLA's CPU rounding, not TF's kernels (docs/differences.md, float16): under mixed_float16, model.evaluate after fit differs from cell 37 on (test loss TF 1.268249, eagertape 1.270177; accuracy 0.8047 vs 0.8438), then the custom loop's (cell 61: epoch 0 loss 2.039858 vs 2.039847); the same program with the policy 'float32' gives TF's 17 values exactly in eagertape (eager mode) (test loss 1.2670055627822876 on both, accuracy 0.84375, both epochs' losses and accuracies), LossScaleOptimizer included
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the MNIST download is 512 training and 128 test images generated in its format (uint8 28x28, uint8
#   labels; numpy imported for it); reshape(60000, 784)/(10000, 784) are (512, 784)/(128, 784);
# - sizes: batch_size 8192 is 128 (fit and both datasets); epochs 5 are 2 (fit and the custom loop);
# - determinism: fit's shuffling is off (shuffle=False), the training dataset is not shuffled (.shuffle(10000) left out);
# - Keras 3 (TF 2.21's) LossScaleOptimizer has no get_scaled_loss/get_unscaled_gradients: cell 54's
#   get_scaled_loss(loss) is scale_loss(loss), and its gradients are the scaled ones, which Keras 3's
#   apply_gradients unscales; a Keras 3 symbolic tensor's and variable's dtype is a string: cells 25, 27 and 29's
#   `.dtype.name` are `.dtype`
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

from tensorflow import keras
from tensorflow.keras import layers
from tensorflow.keras import mixed_precision

# [cell 11]
# !nvidia-smi -L

# [cell 15]
policy = mixed_precision.Policy('mixed_float16')
show((mixed_precision.set_global_policy(policy)))

# [cell 17]
# Equivalent to the two lines above
show((mixed_precision.set_global_policy('mixed_float16')))

# [cell 19]
print('Compute dtype: %s' % policy.compute_dtype)
print('Variable dtype: %s' % policy.variable_dtype)

# [cell 23]
inputs = keras.Input(shape=(784,), name='digits')
if tf.config.list_physical_devices('GPU'):
  print('The model will run with 4096 units on a GPU')
  num_units = 4096
else:
  # Use fewer units on CPUs so the model finishes in a reasonable amount of time
  print('The model will run with 64 units on a CPU')
  num_units = 64
dense1 = layers.Dense(num_units, activation='relu', name='dense_1')
x = dense1(inputs)
dense2 = layers.Dense(num_units, activation='relu', name='dense_2')
x = dense2(x)

# [cell 25]
print(dense1.dtype_policy)
print('x.dtype: %s' % x.dtype)
# 'kernel' is dense1's variable
print('dense1.kernel.dtype: %s' % dense1.kernel.dtype)

# [cell 27]
# INCORRECT: softmax and model output will be float16, when it should be float32
outputs = layers.Dense(10, activation='softmax', name='predictions')(x)
print('Outputs dtype: %s' % outputs.dtype)

# [cell 29]
# CORRECT: softmax and model output are float32
x = layers.Dense(10, name='dense_logits')(x)
outputs = layers.Activation('softmax', dtype='float32', name='predictions')(x)
print('Outputs dtype: %s' % outputs.dtype)

# [cell 31]
# The linear activation is an identity function. So this simply casts 'outputs'
# to float32. In this particular case, 'outputs' is already float32 so this is a
# no-op.
outputs = layers.Activation('linear', dtype='float32')(outputs)

# [cell 33]
model = keras.Model(inputs=inputs, outputs=outputs)
model.compile(loss='sparse_categorical_crossentropy',
              optimizer=keras.optimizers.RMSprop(),
              metrics=['accuracy'])

import numpy as np
(x_train, y_train), (x_test, y_test) = _mnist_like(512, 128)  # keras.datasets.mnist.load_data()
x_train = x_train.reshape(512, 784).astype('float32') / 255
x_test = x_test.reshape(128, 784).astype('float32') / 255

# [cell 35]
initial_weights = model.get_weights()

# [cell 37]
history = model.fit(x_train, y_train,
                    batch_size=128,
                    epochs=2,
                    validation_split=0.2, shuffle=False)
test_scores = model.evaluate(x_test, y_test, verbose=2)
print('Test loss:', test_scores[0])
print('Test accuracy:', test_scores[1])

# [cell 41]
x = tf.constant(256, dtype='float16')
show(((x ** 2).numpy() )) # Overflow

# [cell 42]
x = tf.constant(1e-5, dtype='float16')
show(((x ** 2).numpy() )) # Underflow

# [cell 49]
optimizer = keras.optimizers.RMSprop()
optimizer = mixed_precision.LossScaleOptimizer(optimizer)

# [cell 52]
loss_object = tf.keras.losses.SparseCategoricalCrossentropy()
train_dataset = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
                 .batch(128))
test_dataset = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(128)

# [cell 54]
@tf.function
def train_step(x, y):
  with tf.GradientTape() as tape:
    predictions = model(x)
    loss = loss_object(y, predictions)
    scaled_loss = optimizer.scale_loss(loss)
  scaled_gradients = tape.gradient(scaled_loss, model.trainable_variables)
  gradients = scaled_gradients  # optimizer.get_unscaled_gradients(scaled_gradients)
  optimizer.apply_gradients(zip(gradients, model.trainable_variables))
  return loss

# [cell 57]
@tf.function
def test_step(x):
  return model(x, training=False)

# [cell 59]
show((model.set_weights(initial_weights)))

# [cell 61]
for epoch in range(2):
  epoch_loss_avg = tf.keras.metrics.Mean()
  test_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(
      name='test_accuracy')
  for x, y in train_dataset:
    loss = train_step(x, y)
    epoch_loss_avg(loss)
  for x, y in test_dataset:
    predictions = test_step(x)
    test_accuracy.update_state(y, predictions)
  print('Epoch {}: loss={}, test accuracy={}'.format(epoch, epoch_loss_avg.result(), test_accuracy.result()))
