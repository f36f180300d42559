# Migrate SessionRunHook to Keras callbacks: tensorflow/docs site/en/guide/migrate/sessionrunhook_callback.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/migrate/sessionrunhook_callback.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# timings: ^Time:
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - cells TF 2.21 cannot run are left out (commented): the TF1 Estimator cell 10 (tf.compat.v1.estimator
#   was removed from TensorFlow 2.16)
# - the times printed are not compared (timings)
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

import time
from datetime import datetime
from absl import flags

# [cell 7]
features = [[1., 1.5], [2., 2.5], [3., 3.5]]
labels = [[0.3], [0.5], [0.7]]
eval_features = [[4., 4.5], [5., 5.5], [6., 6.5]]
eval_labels = [[0.8], [0.9], [1.]]

# [cell 9]
def _input_fn():
  return tf1.data.Dataset.from_tensor_slices(
      (features, labels)).batch(1).repeat(100)

def _model_fn(features, labels, mode):
  logits = tf1.layers.Dense(1)(features)
  loss = tf1.losses.mean_squared_error(labels=labels, predictions=logits)
  optimizer = tf1.train.AdagradOptimizer(0.05)
  train_op = optimizer.minimize(loss, global_step=tf1.train.get_global_step())
  return tf1.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

# [cell 10]
# class LoggerHook(tf1.train.SessionRunHook):
#   """Logs loss and runtime."""
# 
#   def begin(self):
#     self._step = -1
#     self._start_time = time.time()
#     self.log_frequency = 10
# 
#   def before_run(self, run_context):
#     self._step += 1
# 
#   def after_run(self, run_context, run_values):
#     if self._step % self.log_frequency == 0:
#       current_time = time.time()
#       duration = current_time - self._start_time
#       self._start_time = current_time
#       examples_per_sec = self.log_frequency / duration
#       print('Time:', datetime.now(), ', Step #:', self._step,
#             ', Examples per second:', examples_per_sec)
# 
# estimator = tf1.estimator.Estimator(model_fn=_model_fn)
# 
# # Begin training.
# show((estimator.train(_input_fn, hooks=[LoggerHook()])))

# [cell 12]
class CustomCallback(tf.keras.callbacks.Callback):

    def on_train_begin(self, logs = None):
      self._step = -1
      self._start_time = time.time()
      self.log_frequency = 10

    def on_train_batch_begin(self, batch, logs = None):
      self._step += 1

    def on_train_batch_end(self, batch, logs = None):
      if self._step % self.log_frequency == 0:
        current_time = time.time()
        duration = current_time - self._start_time
        self._start_time = current_time
        examples_per_sec = self.log_frequency / duration
        print('Time:', datetime.now(), ', Step #:', self._step,
              ', Examples per second:', examples_per_sec)

callback = CustomCallback()

dataset = tf.data.Dataset.from_tensor_slices(
    (features, labels)).batch(1).repeat(100)

model = tf.keras.models.Sequential([tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adagrad(learning_rate=0.05)

model.compile(optimizer, "mse")

# Begin training.
result = model.fit(dataset, callbacks=[callback], verbose = 0)
# Provide the results of training metrics.
show((result.history))
