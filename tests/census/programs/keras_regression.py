# Basic regression: Predict fuel efficiency: tensorflow/docs site/en/tutorials/keras/regression.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/keras/regression.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the UCI auto-mpg download is 160 generated cars in its format (as quickstart_core's port), written to a local file;
# - epochs: 100 are 5 (each of the four fits); determinism: fit's shuffling is off (shuffle=False);
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

# [cell 3]
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

# [cell 7]
# Use seaborn for pairplot.
# !pip install -q seaborn

# [cell 8]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

# Make NumPy printouts easier to read.
show((np.set_printoptions(precision=3, suppress=True)))

# [cell 9]
import tensorflow as tf

from tensorflow import keras
from tensorflow.keras import layers

# print(tf.__version__)

# [cell 12]
def _auto_mpg_like(path):
  # 160 cars in auto-mpg.data's format (space-separated, '?' for a missing horsepower,
  # the name after a tab), with MPG a function of the others plus noise
  rs = np.random.RandomState(0)
  with open(path, 'w') as f:
    for i in range(160):
      cyl = rs.choice([4, 6, 8]); disp = cyl * 40 + rs.uniform(-20, 20)
      hp = cyl * 18 + rs.uniform(-10, 10); w = 1500 + cyl * 300 + rs.uniform(-200, 200)
      acc = rs.uniform(10, 20); year = rs.randint(70, 83); origin = rs.randint(1, 4)
      mpg = 50 - 0.006 * w - 0.05 * hp + 0.3 * (year - 70) + rs.normal(0, 1.5)
      hp_s = '?' if i % 37 == 5 else f'{hp:.1f}'
      f.write(f'{mpg:.1f}   {cyl}   {disp:.1f}      {hp_s}      {w:.1f}      {acc:.1f}   {year}  {origin}\t"car {i}"\n')
  return path
url = _auto_mpg_like('auto-mpg.data')
column_names = ['MPG', 'Cylinders', 'Displacement', 'Horsepower', 'Weight',
                'Acceleration', 'Model Year', 'Origin']

raw_dataset = pd.read_csv(url, names=column_names,
                          na_values='?', comment='\t',
                          sep=' ', skipinitialspace=True)

# [cell 13]
dataset = raw_dataset.copy()
show((dataset.tail()))

# [cell 15]
show((dataset.isna().sum()))

# [cell 17]
dataset = dataset.dropna()

# [cell 19]
dataset['Origin'] = dataset['Origin'].map({1: 'USA', 2: 'Europe', 3: 'Japan'})

# [cell 20]
dataset = pd.get_dummies(dataset, columns=['Origin'], prefix='', prefix_sep='', dtype=float)
show((dataset.tail()))

# [cell 22]
train_dataset = dataset.sample(frac=0.8, random_state=0)
test_dataset = dataset.drop(train_dataset.index)

# [cell 24]
show((sns.pairplot(train_dataset[['MPG', 'Cylinders', 'Displacement', 'Weight']], diag_kind='kde')))

# [cell 26]
show((train_dataset.describe().transpose()))

# [cell 28]
train_features = train_dataset.copy()
test_features = test_dataset.copy()

train_labels = train_features.pop('MPG')
test_labels = test_features.pop('MPG')

# [cell 30]
show((train_dataset.describe().transpose()[['mean', 'std']]))

# [cell 33]
normalizer = tf.keras.layers.Normalization(axis=-1)

# [cell 35]
show((normalizer.adapt(np.array(train_features))))

# [cell 37]
print(normalizer.mean.numpy())

# [cell 39]
first = np.array(train_features[:1])

with np.printoptions(precision=2, suppress=True):
  print('First example:', first)
  print()
  print('Normalized:', normalizer(first).numpy())

# [cell 43]
horsepower = np.array(train_features['Horsepower'])

horsepower_normalizer = layers.Normalization(input_shape=[1,], axis=None)
show((horsepower_normalizer.adapt(horsepower)))

# [cell 45]
horsepower_model = tf.keras.Sequential([
    horsepower_normalizer,
    layers.Dense(units=1)
])

show((horsepower_model.summary()))

# [cell 47]
show((horsepower_model.predict(horsepower[:10])))

# [cell 49]
show((horsepower_model.compile(
    optimizer=tf.keras.optimizers.Adam(learning_rate=0.1),
    loss='mean_absolute_error')))

# [cell 51]
# %%time
history = horsepower_model.fit(
    train_features['Horsepower'],
    train_labels,
    epochs=5, shuffle=False,
    # Suppress logging.
    verbose=0,
    # Calculate validation results on 20% of the training data.
    validation_split = 0.2)

# [cell 53]
hist = pd.DataFrame(history.history)
hist['epoch'] = history.epoch
show((hist.tail()))

# [cell 54]
def plot_loss(history):
  plt.plot(history.history['loss'], label='loss')
  plt.plot(history.history['val_loss'], label='val_loss')
  plt.ylim([0, 10])
  plt.xlabel('Epoch')
  plt.ylabel('Error [MPG]')
  plt.legend()
  plt.grid(True)

# [cell 55]
show((plot_loss(history)))

# [cell 57]
test_results = {}

test_results['horsepower_model'] = horsepower_model.evaluate(
    test_features['Horsepower'],
    test_labels, verbose=0)

# [cell 59]
x = tf.linspace(0.0, 250, 251)
y = horsepower_model.predict(x)

# [cell 60]
def plot_horsepower(x, y):
  plt.scatter(train_features['Horsepower'], train_labels, label='Data')
  plt.plot(x, y, color='k', label='Predictions')
  plt.xlabel('Horsepower')
  plt.ylabel('MPG')
  plt.legend()

# [cell 61]
show((plot_horsepower(x, y)))

# [cell 64]
linear_model = tf.keras.Sequential([
    normalizer,
    layers.Dense(units=1)
])

# [cell 66]
show((linear_model.predict(train_features[:10])))

# [cell 68]
show((linear_model.layers[1].kernel))

# [cell 70]
show((linear_model.compile(
    optimizer=tf.keras.optimizers.Adam(learning_rate=0.1),
    loss='mean_absolute_error')))

# [cell 71]
# %%time
history = linear_model.fit(
    train_features,
    train_labels,
    epochs=5, shuffle=False,
    # Suppress logging.
    verbose=0,
    # Calculate validation results on 20% of the training data.
    validation_split = 0.2)

# [cell 73]
show((plot_loss(history)))

# [cell 75]
test_results['linear_model'] = linear_model.evaluate(
    test_features, test_labels, verbose=0)

# [cell 79]
def build_and_compile_model(norm):
  model = keras.Sequential([
      norm,
      layers.Dense(64, activation='relu'),
      layers.Dense(64, activation='relu'),
      layers.Dense(1)
  ])

  model.compile(loss='mean_absolute_error',
                optimizer=tf.keras.optimizers.Adam(0.001))
  return model

# [cell 82]
dnn_horsepower_model = build_and_compile_model(horsepower_normalizer)

# [cell 84]
show((dnn_horsepower_model.summary()))

# [cell 86]
# %%time
history = dnn_horsepower_model.fit(
    train_features['Horsepower'],
    train_labels,
    validation_split=0.2,
    verbose=0, epochs=5, shuffle=False)

# [cell 88]
show((plot_loss(history)))

# [cell 90]
x = tf.linspace(0.0, 250, 251)
y = dnn_horsepower_model.predict(x)

# [cell 91]
show((plot_horsepower(x, y)))

# [cell 93]
test_results['dnn_horsepower_model'] = dnn_horsepower_model.evaluate(
    test_features['Horsepower'], test_labels,
    verbose=0)

# [cell 96]
dnn_model = build_and_compile_model(normalizer)
show((dnn_model.summary()))

# [cell 97]
# %%time
history = dnn_model.fit(
    train_features,
    train_labels,
    validation_split=0.2,
    verbose=0, epochs=5, shuffle=False)

# [cell 98]
show((plot_loss(history)))

# [cell 100]
test_results['dnn_model'] = dnn_model.evaluate(test_features, test_labels, verbose=0)

# [cell 103]
show((pd.DataFrame(test_results, index=['Mean absolute error [MPG]']).T))

# [cell 106]
test_predictions = dnn_model.predict(test_features).flatten()

a = plt.axes(aspect='equal')
plt.scatter(test_labels, test_predictions)
plt.xlabel('True Values [MPG]')
plt.ylabel('Predictions [MPG]')
lims = [0, 50]
plt.xlim(lims)
plt.ylim(lims)
_ = plt.plot(lims, lims)

# [cell 108]
error = test_predictions - test_labels
plt.hist(error, bins=25)
plt.xlabel('Prediction Error [MPG]')
_ = plt.ylabel('Count')

# [cell 110]
show((dnn_model.save('dnn_model.keras')))

# [cell 112]
reloaded = tf.keras.models.load_model('dnn_model.keras')

test_results['reloaded'] = reloaded.evaluate(
    test_features, test_labels, verbose=0)

# [cell 113]
show((pd.DataFrame(test_results, index=['Mean absolute error [MPG]']).T))
