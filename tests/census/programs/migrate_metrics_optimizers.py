# Migrate metrics and optimizers: tensorflow/docs site/en/guide/migrate/metrics_optimizers.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/migrate/metrics_optimizers.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - cells TF 2.21 cannot run are left out (commented): the TF1 Estimator cells 10, 11 and 13 (tf.compat.v1.estimator
#   was removed from TensorFlow 2.16), and the Keras cells 15 and 16, whose functional model applies
#   tf.math.argmax to a Keras Input (Keras 3 refuses a TF op on a KerasTensor: TF 2.21 raises there)
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

# [cell 8]
features = [[1., 1.5], [2., 2.5], [3., 3.5]]
labels = [0, 0, 1]
eval_features = [[4., 4.5], [5., 5.5], [6., 6.5]]
eval_labels = [0, 1, 1]

# [cell 10]
# def _input_fn():
#   return tf1.data.Dataset.from_tensor_slices((features, labels)).batch(1)
# 
# def _eval_input_fn():
#   return tf1.data.Dataset.from_tensor_slices(
#       (eval_features, eval_labels)).batch(1)
# 
# def _model_fn(features, labels, mode):
#   logits = tf1.layers.Dense(2)(features)
#   predictions = tf.math.argmax(input=logits, axis=1)
#   loss = tf1.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
#   optimizer = tf1.train.AdagradOptimizer(0.05)
#   train_op = optimizer.minimize(loss, global_step=tf1.train.get_global_step())
#   accuracy = tf1.metrics.accuracy(labels=labels, predictions=predictions)
#   return tf1.estimator.EstimatorSpec(mode, 
#                                      predictions=predictions,
#                                      loss=loss, 
#                                      train_op=train_op,
#                                      eval_metric_ops={'accuracy': accuracy})
# 
# estimator = tf1.estimator.Estimator(model_fn=_model_fn)
# estimator.train(_input_fn)

# [cell 11]
# estimator.evaluate(_eval_input_fn)

# [cell 13]
# def mean_squared_error(labels, predictions):
#   labels = tf.cast(labels, predictions.dtype)
#   return {"mean_squared_error": 
#           tf1.metrics.mean_squared_error(labels=labels, predictions=predictions)}
# 
# estimator = tf1.estimator.add_metrics(estimator, mean_squared_error)
# estimator.evaluate(_eval_input_fn)

# [cell 15]
# dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(1)
# eval_dataset = tf.data.Dataset.from_tensor_slices(
#       (eval_features, eval_labels)).batch(1)
# 
# inputs = tf.keras.Input((2,))
# logits = tf.keras.layers.Dense(2)(inputs)
# predictions = tf.math.argmax(input=logits, axis=1)
# model = tf.keras.models.Model(inputs, predictions)
# optimizer = tf.keras.optimizers.Adagrad(learning_rate=0.05)
# 
# model.compile(optimizer, loss='mse', metrics=[tf.keras.metrics.Accuracy()])

# [cell 16]
# model.evaluate(eval_dataset, return_dict=True)

# [cell 18]
accuracy = tf.keras.metrics.Accuracy()

accuracy.update_state(y_true=[0, 0, 1, 1], y_pred=[0, 0, 0, 1])
show((accuracy.result().numpy()))

# [cell 19]
accuracy.update_state(y_true=[0, 0, 1, 1], y_pred=[0, 0, 0, 0])
accuracy.update_state(y_true=[0, 0, 1, 1], y_pred=[1, 1, 0, 0])
show((accuracy.result().numpy()))
