# Custom training walkthrough: tensorflow/docs site/en/tutorials/customization/custom_training_walkthrough.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/customization/custom_training_walkthrough.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: strings
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: tensorflow_datasets is not installed: tfds.load('penguins/processed') is a generated
#   penguins_processed.csv (the file tfds builds it from: species,culmen_length_mm,culmen_depth_mm,
#   flipper_length_mm,body_mass_g; 100 penguins, features scaled to 0..1) read with
#   tf.data.experimental.CsvDataset into (features, label) pairs, split 20 %/80 % by take/skip as
#   tfds's split strings do; cell 13's 'penguins/simple' preview and both tfds.as_dataframe frames
#   are the CSV's first rows, and info.features the CSV's header (printed as text)
# - the version prints are left out (TF's version is not eagertape's; tfds is not installed)
# - epochs: num_epochs 201 is 11
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

# [cell 10]
import os
import tensorflow as tf
import matplotlib.pyplot as plt

# print("TensorFlow version: {}".format(tf.__version__))

# [cell 13]
def _penguins_like(path):
  # penguins_processed.csv's format: species (0, 1, 2) then four measures scaled to 0..1,
  # each species around its own centre
  import numpy as np
  rs = np.random.RandomState(0)
  centres = np.array([[0.25, 0.65, 0.25, 0.25], [0.6, 0.65, 0.35, 0.3], [0.55, 0.25, 0.75, 0.7]])
  with open(path, 'w') as f:
    f.write('species,culmen_length_mm,culmen_depth_mm,flipper_length_mm,body_mass_g\n')
    for i in range(100):
      s = rs.randint(0, 3)
      x = np.clip(centres[s] + rs.normal(0, 0.08, 4), 0, 1)
      f.write(str(s) + ',' + ','.join('%.6f' % v for v in x) + '\n')
  return path
csv_path = _penguins_like('penguins_processed.csv')
with open(csv_path) as f:
  _lines = f.read().splitlines()
df = _lines[1:6]
print(df)
print(_lines[0])

# [cell 16]
class_names = ['Adélie', 'Chinstrap', 'Gentoo']

# [cell 19]
def _pack(species, *measures):
  return tf.stack(measures), species
_ds = tf.data.experimental.CsvDataset(csv_path, [tf.int64] + [tf.float32] * 4, header=True).map(_pack)
ds_split = [_ds.take(20), _ds.skip(20)]

ds_test = ds_split[0]
ds_train = ds_split[1]
assert isinstance(ds_test, tf.data.Dataset)

print(_lines[0])
df_test = [e for e in ds_test.take(5)]
print("Test dataset sample: ")
print(df_test)

df_train = [e for e in ds_train.take(5)]
print("Train dataset sample: ")
print(df_train)

ds_train_batch = ds_train.batch(32)

# [cell 21]
features, labels = next(iter(ds_train_batch))

print(features)
print(labels)

# [cell 23]
plt.scatter(features[:,0],
            features[:,2],
            c=labels,
            cmap='viridis')

plt.xlabel("Body Mass")
plt.ylabel("Culmen Length")
plt.show()

# [cell 26]
model = tf.keras.Sequential([
  tf.keras.layers.Dense(10, activation=tf.nn.relu, input_shape=(4,)),  # input shape required
  tf.keras.layers.Dense(10, activation=tf.nn.relu),
  tf.keras.layers.Dense(3)
])

# [cell 29]
predictions = model(features)
show(predictions[:5])

# [cell 31]
show(tf.nn.softmax(predictions[:5]))

# [cell 33]
print("Prediction: {}".format(tf.math.argmax(predictions, axis=1)))
print("    Labels: {}".format(labels))

# [cell 36]
loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

# [cell 37]
def loss(model, x, y, training):
  # training=training is needed only if there are layers with different
  # behavior during training versus inference (e.g. Dropout).
  y_ = model(x, training=training)

  return loss_object(y_true=y, y_pred=y_)

l = loss(model, features, labels, training=False)
print("Loss test: {}".format(l))

# [cell 39]
def grad(model, inputs, targets):
  with tf.GradientTape() as tape:
    loss_value = loss(model, inputs, targets, training=True)
  return loss_value, tape.gradient(loss_value, model.trainable_variables)

# [cell 42]
optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)

# [cell 44]
loss_value, grads = grad(model, features, labels)

print("Step: {}, Initial Loss: {}".format(optimizer.iterations.numpy(),
                                          loss_value.numpy()))

optimizer.apply_gradients(zip(grads, model.trainable_variables))

print("Step: {},         Loss: {}".format(optimizer.iterations.numpy(),
                                          loss(model, features, labels, training=True).numpy()))

# [cell 46]
## Note: Rerunning this cell uses the same model parameters

# Keep results for plotting
train_loss_results = []
train_accuracy_results = []

num_epochs = 11

for epoch in range(num_epochs):
  epoch_loss_avg = tf.keras.metrics.Mean()
  epoch_accuracy = tf.keras.metrics.SparseCategoricalAccuracy()

  # Training loop - using batches of 32
  for x, y in ds_train_batch:
    # Optimize the model
    loss_value, grads = grad(model, x, y)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))

    # Track progress
    epoch_loss_avg.update_state(loss_value)  # Add current batch loss
    # Compare predicted label to actual label
    # training=True is needed only if there are layers with different
    # behavior during training versus inference (e.g. Dropout).
    epoch_accuracy.update_state(y, model(x, training=True))

  # End epoch
  train_loss_results.append(epoch_loss_avg.result())
  train_accuracy_results.append(epoch_accuracy.result())

  if epoch % 50 == 0:
    print("Epoch {:03d}: Loss: {:.3f}, Accuracy: {:.3%}".format(epoch,
                                                                epoch_loss_avg.result(),
                                                                epoch_accuracy.result()))

# [cell 50]
fig, axes = plt.subplots(2, sharex=True, figsize=(12, 8))
fig.suptitle('Training Metrics')

axes[0].set_ylabel("Loss", fontsize=14)
axes[0].plot(train_loss_results)

axes[1].set_ylabel("Accuracy", fontsize=14)
axes[1].set_xlabel("Epoch", fontsize=14)
axes[1].plot(train_accuracy_results)
plt.show()

# [cell 54]
test_accuracy = tf.keras.metrics.Accuracy()
ds_test_batch = ds_test.batch(10)

for (x, y) in ds_test_batch:
  # training=False is needed only if there are layers with different
  # behavior during training versus inference (e.g. Dropout).
  logits = model(x, training=False)
  prediction = tf.math.argmax(logits, axis=1, output_type=tf.int64)
  test_accuracy(prediction, y)

print("Test set accuracy: {:.3%}".format(test_accuracy.result()))

# [cell 57]
show(tf.stack([y,prediction],axis=1))

# [cell 59]
predict_dataset = tf.convert_to_tensor([
    [0.3, 0.8, 0.4, 0.5,],
    [0.4, 0.1, 0.8, 0.5,],
    [0.7, 0.9, 0.8, 0.4]
])

# training=False is needed only if there are layers with different
# behavior during training versus inference (e.g. Dropout).
predictions = model(predict_dataset, training=False)

for i, logits in enumerate(predictions):
  class_idx = tf.math.argmax(logits).numpy()
  p = tf.nn.softmax(logits)[class_idx]
  name = class_names[class_idx]
  print("Example {} prediction: {} ({:4.1f}%)".format(i, name, 100*p))
