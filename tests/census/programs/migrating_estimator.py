# Migrate from Estimator to Keras APIs: tensorflow/docs site/en/guide/migrate/migrating_estimator.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/migrate/migrating_estimator.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - cells TF 2.21 cannot run are left out (commented): the TF1 Estimator cells 9, 11 and 13 (tf.compat.v1.estimator
#   was removed from TensorFlow 2.16)
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

# [cell 6]
import tensorflow as tf
import tensorflow.compat.v1 as tf1

# [cell 7]
features = [[1., 1.5], [2., 2.5], [3., 3.5]]
labels = [[0.3], [0.5], [0.7]]
eval_features = [[4., 4.5], [5., 5.5], [6., 6.5]]
eval_labels = [[0.8], [0.9], [1.]]

# [cell 9]
# def _input_fn():
#   return tf1.data.Dataset.from_tensor_slices((features, labels)).batch(1)
# 
# def _eval_input_fn():
#   return tf1.data.Dataset.from_tensor_slices(
#       (eval_features, eval_labels)).batch(1)
# 
# def _model_fn(features, labels, mode):
#   logits = tf1.layers.Dense(1)(features)
#   loss = tf1.losses.mean_squared_error(labels=labels, predictions=logits)
#   optimizer = tf1.train.AdagradOptimizer(0.05)
#   train_op = optimizer.minimize(loss, global_step=tf1.train.get_global_step())
#   return tf1.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

# [cell 11]
# estimator = tf1.estimator.Estimator(model_fn=_model_fn)
# estimator.train(_input_fn)

# [cell 13]
# estimator.evaluate(_eval_input_fn)

# [cell 15]
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(1)
eval_dataset = tf.data.Dataset.from_tensor_slices(
      (eval_features, eval_labels)).batch(1)

model = tf.keras.models.Sequential([tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adagrad(learning_rate=0.05)

show((model.compile(optimizer=optimizer, loss="mse")))

# [cell 17]
show((model.fit(dataset)))

# [cell 19]
show((model.evaluate(eval_dataset, return_dict=True)))

# [cell 22]
class CustomModel(tf.keras.Sequential):
  """A custom sequential model that overrides `Model.train_step`."""

  def train_step(self, data):
    batch_data, labels = data

    with tf.GradientTape() as tape:
      predictions = self(batch_data, training=True)
      # Compute the loss value (the loss function is configured
      # in `Model.compile`).
      loss = self.compiled_loss(labels, predictions)

    # Compute the gradients of the parameters with respect to the loss.
    gradients = tape.gradient(loss, self.trainable_variables)
    # Perform gradient descent by updating the weights/parameters.
    self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
    # Update the metrics (includes the metric that tracks the loss).
    self.compiled_metrics.update_state(labels, predictions)
    # Return a dict mapping metric names to the current values.
    return {m.name: m.result() for m in self.metrics}

# [cell 24]
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(1)
eval_dataset = tf.data.Dataset.from_tensor_slices(
      (eval_features, eval_labels)).batch(1)

model = CustomModel([tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adagrad(learning_rate=0.05)

show((model.compile(optimizer=optimizer, loss="mse")))

# [cell 26]
show((model.fit(dataset)))

# [cell 28]
show((model.evaluate(eval_dataset, return_dict=True)))
