# Migrate single-worker multiple-GPU training: tensorflow/docs site/en/guide/migrate/mirrored_strategy.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/migrate/mirrored_strategy.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: distribute
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   Keras's random initializers draw from NumPy;
# - determinism: cell 14's Dense(1) is Dense(1, kernel_initializer='ones'): the model is built in
#   fit, outside strategy.scope(), where TF's Keras draws the kernel's initializer twice (once for
#   the variable deferred in fit's traced step, again for the MirroredVariable it creates; the
#   second draw is kept), eagertape once, so from the census's NumPy generator the two kernels
#   differ (TF's own draws are random either way);
# - cells TF 2.21 cannot run are left out (commented): cell 10, the TF 1 Estimator with
#   tf1.distribute.MirroredStrategy (tf.estimator was removed from TensorFlow 2.16);
# - MirroredStrategy runs on the CPU with one replica, as TF's does on a machine without GPUs
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
import tensorflow.compat.v1 as tf1

# [cell 7]
features = [[1., 1.5], [2., 2.5], [3., 3.5]]
labels = [[0.3], [0.5], [0.7]]
eval_features = [[4., 4.5], [5., 5.5], [6., 6.5]]
eval_labels = [[0.8], [0.9], [1.]]

# [cell 10]  (left out: tf.estimator, removed from TensorFlow 2.16; see the header)
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
#
# strategy = tf1.distribute.MirroredStrategy()
# config = tf1.estimator.RunConfig(
#     train_distribute=strategy, eval_distribute=strategy)
# estimator = tf1.estimator.Estimator(model_fn=_model_fn, config=config)
#
# train_spec = tf1.estimator.TrainSpec(input_fn=_input_fn)
# eval_spec = tf1.estimator.EvalSpec(input_fn=_eval_input_fn)
# tf1.estimator.train_and_evaluate(estimator, train_spec, eval_spec)

# [cell 13]
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(1)
eval_dataset = tf.data.Dataset.from_tensor_slices(
      (eval_features, eval_labels)).batch(1)

# [cell 14]
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
  model = tf.keras.models.Sequential([tf.keras.layers.Dense(1, kernel_initializer='ones')])
  optimizer = tf.keras.optimizers.Adagrad(learning_rate=0.05)

model.compile(optimizer=optimizer, loss='mse')
model.fit(dataset)
show(model.evaluate(eval_dataset, return_dict=True))
