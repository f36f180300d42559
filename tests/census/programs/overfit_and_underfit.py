# Overfit and underfit: tensorflow/docs site/en/tutorials/keras/overfit_and_underfit.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/keras/overfit_and_underfit.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: strings
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %load_ext, %tensorboard) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - print(tf.__version__) is left out (TF's version is not eagertape's)
# - tensorflow_docs is not installed: tfdocs.modeling.EpochDots and tfdocs.plots.HistoryPlotter are
#   stand-ins written here (EpochDots prints as tensorflow_docs's does: each epoch's dot and every
#   report_every-th epoch's logs; HistoryPlotter plots each history's metric and val_ metric, unsmoothed)
# - data: the HIGGS.csv.gz download (2.8 GB) is a generated HIGGS.csv.gz in its format (gzip, no header,
#   29 floats a row, the label first), 600 rows
# - sizes: N_VALIDATION 1e3 is 100, N_TRAIN 1e4 is 500, BATCH_SIZE 500 is 100
# - epochs: max_epochs 10000 is 6
# - TensorBoard is not installed with TF 2.21 here: its callback raises TBNotInstalledError in TF's own
#   run (tf.summary.scalar), so get_callbacks leaves tf.keras.callbacks.TensorBoard out, and cell 70
#   does not copy the logs it would have written
# - determinism: train_ds is not shuffled (.shuffle(BUFFER_SIZE) left out: TF's order is TF's
#   generator's); Dropout(0.5) is Dropout(0.0) (TF's dropout masks are TF's generator's)
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

# [cell 2]
#@title MIT License
#
# Copyright (c) 2017 François Chollet
#
# Permission is hereby granted, free of charge, to any person obtaining a
# copy of this software and associated documentation files (the "Software"),
# to deal in the Software without restriction, including without limitation
# the rights to use, copy, modify, merge, publish, distribute, sublicense,
# and/or sell copies of the Software, and to permit persons to whom the
# Software is furnished to do so, subject to the following conditions:
#
# The above copyright notice and this permission notice shall be included in
# all copies or substantial portions of the Software.
#
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
# IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
# FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL
# THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
# LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
# FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
# DEALINGS IN THE SOFTWARE.

# [cell 8]
import tensorflow as tf

from tensorflow.keras import layers
from tensorflow.keras import regularizers

# print(tf.__version__)

# [cell 9]
import types as _types

class _EpochDots(tf.keras.callbacks.Callback):
  # tensorflow_docs.modeling.EpochDots
  def __init__(self, report_every=100, dot_every=1):
    super().__init__()
    self.report_every = report_every
    self.dot_every = dot_every

  def on_epoch_end(self, epoch, logs):
    if epoch % self.report_every == 0:
      print()
      print('Epoch: {:d}, '.format(epoch), end='')
      for name, value in sorted(logs.items()):
        print('{}:{:0.4f}'.format(name, value), end=',  ')
      print()

    if epoch % self.dot_every == 0:
      print('.', end='')

class _HistoryPlotter(object):
  # tensorflow_docs.plots.HistoryPlotter, without its smoothing
  def __init__(self, metric=None, smoothing_std=None):
    self.metric = metric
    self.smoothing_std = smoothing_std

  def plot(self, histories, metric=None):
    metric = metric or self.metric
    from matplotlib import pyplot as plt
    for name, history in histories.items():
      plt.plot(history.epoch, history.history[metric], label=name.title() + ' Train')
      plt.plot(history.epoch, history.history['val_' + metric], '--',
               label=name.title() + ' Val')
    plt.xlabel('Epochs')
    plt.ylabel(metric.replace('_', ' ').title())
    plt.legend()

tfdocs = _types.SimpleNamespace(modeling=_types.SimpleNamespace(EpochDots=_EpochDots),
                                plots=_types.SimpleNamespace(HistoryPlotter=_HistoryPlotter))

# [cell 10]
from  IPython import display
from matplotlib import pyplot as plt

import numpy as np

import pathlib
import shutil
import tempfile


# [cell 11]
logdir = pathlib.Path(tempfile.mkdtemp())/"tensorboard_logs"
shutil.rmtree(logdir, ignore_errors=True)

# [cell 13]
def _higgs_like(path, n=600):
  # HIGGS.csv.gz's format: gzip, no header, 29 floats a row (label, then 21 low-level and
  # 7 high-level features), written as '%.18e'; the label follows a few features, with noise
  import gzip
  rs = np.random.RandomState(0)
  x = np.abs(rs.normal(1.0, 0.6, (n, 28)))
  x[:, 1::3] = rs.uniform(-1.7, 1.7, (n, 10))[:, :x[:, 1::3].shape[1]]
  y = ((x[:, 0] - x[:, 3] + 0.5 * x[:, 25] + rs.normal(0, 0.5, n)) > 0.5).astype(float)
  with gzip.open(path, 'wt') as f:
    for i in range(n):
      f.write(','.join('%.18e' % v for v in np.concatenate([[y[i]], x[i]])) + '\n')
  return path
gz = _higgs_like('HIGGS.csv.gz')

# [cell 14]
FEATURES = 28

# [cell 16]
ds = tf.data.experimental.CsvDataset(gz,[float(),]*(FEATURES+1), compression_type="GZIP")

# [cell 18]
def pack_row(*row):
  label = row[0]
  features = tf.stack(row[1:],1)
  return features, label

# [cell 20]
packed_ds = ds.batch(10000).map(pack_row).unbatch()

# [cell 22]
for features,label in packed_ds.batch(1000).take(1):
  print(features[0])
  plt.hist(features.numpy().flatten(), bins = 101)

# [cell 24]
N_VALIDATION = int(1e2)
N_TRAIN = int(5e2)
BUFFER_SIZE = int(1e4)
BATCH_SIZE = 100
STEPS_PER_EPOCH = N_TRAIN//BATCH_SIZE

# [cell 26]
validate_ds = packed_ds.take(N_VALIDATION).cache()
train_ds = packed_ds.skip(N_VALIDATION).take(N_TRAIN).cache()

# [cell 27]
show(train_ds)

# [cell 29]
validate_ds = validate_ds.batch(BATCH_SIZE)
train_ds = train_ds.repeat().batch(BATCH_SIZE)

# [cell 33]
lr_schedule = tf.keras.optimizers.schedules.InverseTimeDecay(
  0.001,
  decay_steps=STEPS_PER_EPOCH*1000,
  decay_rate=1,
  staircase=False)

def get_optimizer():
  return tf.keras.optimizers.Adam(lr_schedule)

# [cell 35]
step = np.linspace(0,100000)
lr = lr_schedule(step)
plt.figure(figsize = (8,6))
plt.plot(step/STEPS_PER_EPOCH, lr)
plt.ylim([0,max(plt.ylim())])
plt.xlabel('Epoch')
_ = plt.ylabel('Learning Rate')


# [cell 37]
def get_callbacks(name):
  return [
    tfdocs.modeling.EpochDots(),
    tf.keras.callbacks.EarlyStopping(monitor='val_binary_crossentropy', patience=200),
    # tf.keras.callbacks.TensorBoard(logdir/name),
  ]

# [cell 39]
def compile_and_fit(model, name, optimizer=None, max_epochs=6):
  if optimizer is None:
    optimizer = get_optimizer()
  model.compile(optimizer=optimizer,
                loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
                metrics=[
                  tf.keras.metrics.BinaryCrossentropy(
                      from_logits=True, name='binary_crossentropy'),
                  'accuracy'])

  model.summary()

  history = model.fit(
    train_ds.map(lambda x, y: (x, tf.expand_dims(y, axis=-1))),
    steps_per_epoch = STEPS_PER_EPOCH,
    epochs=max_epochs,
    validation_data=validate_ds.map(lambda x, y: (x, tf.expand_dims(y, axis=-1))),
    callbacks=get_callbacks(name),
    verbose=0)
  return history

# [cell 42]
tiny_model = tf.keras.Sequential([
    layers.Dense(16, activation='elu', input_shape=(FEATURES,)),
    layers.Dense(1)
])

# [cell 43]
size_histories = {}

# [cell 44]
size_histories['Tiny'] = compile_and_fit(tiny_model, 'sizes/Tiny')

# [cell 46]
plotter = tfdocs.plots.HistoryPlotter(metric = 'binary_crossentropy', smoothing_std=10)
plotter.plot(size_histories)
show(plt.ylim([0.5, 0.7]))

# [cell 49]
small_model = tf.keras.Sequential([
    # `input_shape` is only required here so that `.summary` works.
    layers.Dense(16, activation='elu', input_shape=(FEATURES,)),
    layers.Dense(16, activation='elu'),
    layers.Dense(1)
])

# [cell 50]
size_histories['Small'] = compile_and_fit(small_model, 'sizes/Small')

# [cell 53]
medium_model = tf.keras.Sequential([
    layers.Dense(64, activation='elu', input_shape=(FEATURES,)),
    layers.Dense(64, activation='elu'),
    layers.Dense(64, activation='elu'),
    layers.Dense(1)
])

# [cell 55]
size_histories['Medium']  = compile_and_fit(medium_model, "sizes/Medium")

# [cell 57]
large_model = tf.keras.Sequential([
    layers.Dense(512, activation='elu', input_shape=(FEATURES,)),
    layers.Dense(512, activation='elu'),
    layers.Dense(512, activation='elu'),
    layers.Dense(512, activation='elu'),
    layers.Dense(1)
])

# [cell 59]
size_histories['large'] = compile_and_fit(large_model, "sizes/large")

# [cell 63]
plotter.plot(size_histories)
a = plt.xscale('log')
plt.xlim([5, max(plt.xlim())])
plt.ylim([0.5, 0.7])
show(plt.xlabel("Epochs [Log Scale]"))

# [cell 70]
shutil.rmtree(logdir/'regularizers/Tiny', ignore_errors=True)
# shutil.copytree(logdir/'sizes/Tiny', logdir/'regularizers/Tiny')

# [cell 71]
regularizer_histories = {}
regularizer_histories['Tiny'] = size_histories['Tiny']

# [cell 74]
l2_model = tf.keras.Sequential([
    layers.Dense(512, activation='elu',
                 kernel_regularizer=regularizers.l2(0.001),
                 input_shape=(FEATURES,)),
    layers.Dense(512, activation='elu',
                 kernel_regularizer=regularizers.l2(0.001)),
    layers.Dense(512, activation='elu',
                 kernel_regularizer=regularizers.l2(0.001)),
    layers.Dense(512, activation='elu',
                 kernel_regularizer=regularizers.l2(0.001)),
    layers.Dense(1)
])

regularizer_histories['l2'] = compile_and_fit(l2_model, "regularizers/l2")

# [cell 76]
plotter.plot(regularizer_histories)
show(plt.ylim([0.5, 0.7]))

# [cell 79]
result = l2_model(features)
regularization_loss=tf.add_n(l2_model.losses)

# [cell 82]
dropout_model = tf.keras.Sequential([
    layers.Dense(512, activation='elu', input_shape=(FEATURES,)),
    layers.Dropout(0.0),
    layers.Dense(512, activation='elu'),
    layers.Dropout(0.0),
    layers.Dense(512, activation='elu'),
    layers.Dropout(0.0),
    layers.Dense(512, activation='elu'),
    layers.Dropout(0.0),
    layers.Dense(1)
])

regularizer_histories['dropout'] = compile_and_fit(dropout_model, "regularizers/dropout")

# [cell 83]
plotter.plot(regularizer_histories)
show(plt.ylim([0.5, 0.7]))

# [cell 86]
combined_model = tf.keras.Sequential([
    layers.Dense(512, kernel_regularizer=regularizers.l2(0.0001),
                 activation='elu', input_shape=(FEATURES,)),
    layers.Dropout(0.0),
    layers.Dense(512, kernel_regularizer=regularizers.l2(0.0001),
                 activation='elu'),
    layers.Dropout(0.0),
    layers.Dense(512, kernel_regularizer=regularizers.l2(0.0001),
                 activation='elu'),
    layers.Dropout(0.0),
    layers.Dense(512, kernel_regularizer=regularizers.l2(0.0001),
                 activation='elu'),
    layers.Dropout(0.0),
    layers.Dense(1)
])

regularizer_histories['combined'] = compile_and_fit(combined_model, "regularizers/combined")

# [cell 87]
plotter.plot(regularizer_histories)
show(plt.ylim([0.5, 0.7]))
