# Migrate LoggingTensorHook and StopAtStepHook to Keras callbacks: tensorflow/docs site/en/guide/migrate/logging_stop_hook.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/migrate/logging_stop_hook.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - cells TF 2.21 cannot run are left out (commented): the TF1 Estimator cell 10 (tf.compat.v1.estimator
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

# Define an input function.
def _input_fn():
  return tf1.data.Dataset.from_tensor_slices((features, labels)).batch(1)

# [cell 10]
# def _model_fn(features, labels, mode):
#   dense = tf1.layers.Dense(1)
#   logits = dense(features)
#   loss = tf1.losses.mean_squared_error(labels=labels, predictions=logits)
#   optimizer = tf1.train.AdagradOptimizer(0.05)
#   train_op = optimizer.minimize(loss, global_step=tf1.train.get_global_step())
# 
#   # Define the stop hook.
#   stop_hook = tf1.train.StopAtStepHook(num_steps=2)
# 
#   # Access tensors to be logged by names.
#   kernel_name = tf.identity(dense.weights[0])
#   bias_name = tf.identity(dense.weights[1])
#   logging_weight_hook = tf1.train.LoggingTensorHook(
#       tensors=[kernel_name, bias_name],
#       every_n_iter=1)
#   # Log the training loss by the tensor object.
#   logging_loss_hook = tf1.train.LoggingTensorHook(
#       {'loss from LoggingTensorHook': loss},
#       every_n_secs=3)
# 
#   # Pass all hooks to `EstimatorSpec`.
#   return tf1.estimator.EstimatorSpec(mode,
#                                      loss=loss,
#                                      train_op=train_op,
#                                      training_hooks=[stop_hook,
#                                                      logging_weight_hook,
#                                                      logging_loss_hook])
# 
# estimator = tf1.estimator.Estimator(model_fn=_model_fn)
# 
# # Begin training.
# # The training will stop after 2 steps, and the weights/loss will also be logged.
# show((estimator.train(_input_fn)))

# [cell 13]
class StopAtStepCallback(tf.keras.callbacks.Callback):
  def __init__(self, stop_step=None):
    super().__init__()
    self._stop_step = stop_step

  def on_batch_end(self, batch, logs=None):
    if self.model.optimizer.iterations >= self._stop_step:
      self.model.stop_training = True
      print('\nstop training now')

class LoggingTensorCallback(tf.keras.callbacks.Callback):
  def __init__(self, every_n_iter):
      super().__init__()
      self._every_n_iter = every_n_iter
      self._log_count = every_n_iter

  def on_batch_end(self, batch, logs=None):
    if self._log_count > 0:
      self._log_count -= 1
      print("Logging Tensor Callback: dense/kernel:",
            model.layers[0].weights[0])
      print("Logging Tensor Callback: dense/bias:",
            model.layers[0].weights[1])
      print("Logging Tensor Callback loss:", logs["loss"])
    else:
      self._log_count -= self._every_n_iter

# [cell 15]
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(1)
model = tf.keras.models.Sequential([tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adagrad(learning_rate=0.05)
model.compile(optimizer, "mse")

# Begin training.
# The training will stop after 2 steps, and the weights/loss will also be logged.
show((model.fit(dataset, callbacks=[StopAtStepCallback(stop_step=2),
                              LoggingTensorCallback(every_n_iter=2)])))
