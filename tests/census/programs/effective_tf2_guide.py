# Effective TensorFlow 2: tensorflow/docs site/en/guide/effective_tf2.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/effective_tf2.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: tensorflow_datasets' MNIST (tfds.load, cell 13; the library, not installed, left out with its
#   import) is the census prelude's _mnist_like(320, 320) in tfds's as_supervised format (uint8 images
#   (28, 28, 1), int64 labels) as tf.data datasets, numpy imported for it; info is None;
# - determinism: the training data's .shuffle(BUFFER_SIZE) (cell 17) is left out (TF's order is TF's
#   generator's); Dropout(0.1) is Dropout(0.0) (cells 21 and 23: TF's dropout masks are TF's generator's);
# - cell 32's two metrics' reset_states() calls are reset_state(): Keras 3
#   (TF 2.16 on) has no reset_states (TF 2.21 raises AttributeError);
# - cell 25's super(DynamicRNN, self).__init__(self) is __init__(): Keras 3's Model takes no positional
#   argument there (TF 2.21 raises TypeError), and its
#   self.cell.get_initial_state(batch_size=..., dtype=tf.float32) has no dtype: Keras 3's LSTMCell takes
#   none (TF 2.21 raises TypeError)
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
# import tensorflow_datasets as tfds  (left out: see the header)
import numpy as np

# [cell 13]
def _tfds_mnist_like():
  (x, y), (xt, yt) = _mnist_like(320, 320)
  as_ds = lambda x, y: tf.data.Dataset.from_tensor_slices((x[..., None], y.astype(np.int64)))
  return {'train': as_ds(x, y), 'test': as_ds(xt, yt)}, None
datasets, info = _tfds_mnist_like()  # tfds.load(name='mnist', with_info=True, as_supervised=True)
mnist_train, mnist_test = datasets['train'], datasets['test']

# [cell 15]
BUFFER_SIZE = 10 # Use a much larger value for real code
BATCH_SIZE = 64
NUM_EPOCHS = 5


def scale(image, label):
  image = tf.cast(image, tf.float32)
  image /= 255

  return image, label

# [cell 17]
train_data = mnist_train.map(scale).batch(BATCH_SIZE)  # .shuffle(BUFFER_SIZE) left out
test_data = mnist_test.map(scale).batch(BATCH_SIZE)

STEPS_PER_EPOCH = 5

train_data = train_data.take(STEPS_PER_EPOCH)
test_data = test_data.take(STEPS_PER_EPOCH)

# [cell 18]
image_batch, label_batch = next(iter(train_data))

# [cell 21]
model = tf.keras.Sequential([
    tf.keras.layers.Conv2D(32, 3, activation='relu',
                           kernel_regularizer=tf.keras.regularizers.l2(0.02),
                           input_shape=(28, 28, 1)),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dropout(0.0),
    tf.keras.layers.Dense(64, activation='relu'),
    tf.keras.layers.BatchNormalization(),
    tf.keras.layers.Dense(10)
])

# Model is the full model w/o custom layers
model.compile(optimizer='adam',
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=['accuracy'])

model.fit(train_data, epochs=NUM_EPOCHS)
loss, acc = model.evaluate(test_data)

print("Loss {}, Accuracy {}".format(loss, acc))

# [cell 23]
model = tf.keras.Sequential([
    tf.keras.layers.Conv2D(32, 3, activation='relu',
                           kernel_regularizer=tf.keras.regularizers.l2(0.02),
                           input_shape=(28, 28, 1)),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dropout(0.0),
    tf.keras.layers.Dense(64, activation='relu'),
    tf.keras.layers.BatchNormalization(),
    tf.keras.layers.Dense(10)
])

optimizer = tf.keras.optimizers.Adam(0.001)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

@tf.function
def train_step(inputs, labels):
  with tf.GradientTape() as tape:
    predictions = model(inputs, training=True)
    regularization_loss=tf.math.add_n(model.losses)
    pred_loss=loss_fn(labels, predictions)
    total_loss=pred_loss + regularization_loss

  gradients = tape.gradient(total_loss, model.trainable_variables)
  optimizer.apply_gradients(zip(gradients, model.trainable_variables))

for epoch in range(NUM_EPOCHS):
  for inputs, labels in train_data:
    train_step(inputs, labels)
  print("Finished epoch", epoch)

# [cell 25]
class DynamicRNN(tf.keras.Model):

  def __init__(self, rnn_cell):
    super(DynamicRNN, self).__init__()
    self.cell = rnn_cell

  @tf.function(input_signature=[tf.TensorSpec(dtype=tf.float32, shape=[None, None, 3])])
  def call(self, input_data):

    # [batch, time, features] -> [time, batch, features]
    input_data = tf.transpose(input_data, [1, 0, 2])
    timesteps =  tf.shape(input_data)[0]
    batch_size = tf.shape(input_data)[1]
    outputs = tf.TensorArray(tf.float32, timesteps)
    state = self.cell.get_initial_state(batch_size = batch_size)
    for i in tf.range(timesteps):
      output, state = self.cell(input_data[i], state)
      outputs = outputs.write(i, output)
    return tf.transpose(outputs.stack(), [1, 0, 2]), state

# [cell 26]
lstm_cell = tf.keras.layers.LSTMCell(units = 13)

my_rnn = DynamicRNN(lstm_cell)
outputs, state = my_rnn(tf.random.normal(shape=[10,20,3]))
print(outputs.shape)

# [cell 29]
cce = tf.keras.losses.CategoricalCrossentropy(from_logits=True)
show((cce([[1, 0]], [[-1.0,3.0]]).numpy()))

# [cell 32]
# Create the metrics
loss_metric = tf.keras.metrics.Mean(name='train_loss')
accuracy_metric = tf.keras.metrics.SparseCategoricalAccuracy(name='train_accuracy')

@tf.function
def train_step(inputs, labels):
  with tf.GradientTape() as tape:
    predictions = model(inputs, training=True)
    regularization_loss=tf.math.add_n(model.losses)
    pred_loss=loss_fn(labels, predictions)
    total_loss=pred_loss + regularization_loss

  gradients = tape.gradient(total_loss, model.trainable_variables)
  optimizer.apply_gradients(zip(gradients, model.trainable_variables))
  # Update the metrics
  loss_metric.update_state(total_loss)
  accuracy_metric.update_state(labels, predictions)


for epoch in range(NUM_EPOCHS):
  # Reset the metrics
  loss_metric.reset_state()
  accuracy_metric.reset_state()

  for inputs, labels in train_data:
    train_step(inputs, labels)
  # Get the metric results
  mean_loss=loss_metric.result()
  mean_accuracy = accuracy_metric.result()

  print('Epoch: ', epoch)
  print('  loss:     {:.3f}'.format(mean_loss))
  print('  accuracy: {:.3f}'.format(mean_accuracy))

# [cell 34]
model.compile(
    optimizer = tf.keras.optimizers.Adam(0.001),
    loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics = ['acc', 'accuracy', tf.keras.metrics.SparseCategoricalAccuracy(name="my_accuracy")])
history = model.fit(train_data)

# [cell 35]
show((history.history.keys()))

