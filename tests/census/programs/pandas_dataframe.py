# Load a pandas DataFrame: tensorflow/docs site/en/tutorials/load_data/pandas_dataframe.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/load_data/pandas_dataframe.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: strings
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the heart.csv download is 40 generated patients with its columns (thal as text), written to a local file
# - sizes: BATCH_SIZE 2 is 8; epochs 15 and 5 are 2 and 1
# - determinism: the datasets are not shuffled (TF's order is TF's generator's)
# - determinism: fit on arrays does not shuffle (shuffle=False)
# - model.fit(dict(df), target) is left out: TF 2.21's Keras raises 'Invalid dtype: str' on the frame's text column (the next cell trains on the same data as a tf.data pipeline)
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
import numpy as np
import pandas as pd
import tensorflow as tf

SHUFFLE_BUFFER = 500
BATCH_SIZE = 8

# [cell 8]
def _heart_like(path):
  # 40 patients with heart.csv's columns and kinds (thal is text), target of the others
  rs = np.random.RandomState(0)
  cols = 'age,sex,cp,trestbps,chol,fbs,restecg,thalach,exang,oldpeak,slope,ca,thal,target'
  with open(path, 'w') as f:
    f.write(cols + '\n')
    for i in range(40):
      age = rs.randint(35, 75); chol = rs.randint(150, 350); thalach = rs.randint(100, 190)
      oldpeak = round(rs.uniform(0, 4), 1); trestbps = rs.randint(100, 180)
      row = [age, rs.randint(0, 2), rs.randint(0, 4), trestbps, chol, rs.randint(0, 2),
             rs.randint(0, 3), thalach, rs.randint(0, 2), oldpeak, rs.randint(1, 4), rs.randint(0, 4),
             ['fixed', 'normal', 'reversible'][rs.randint(0, 3)],
             int(oldpeak + (age - 55) / 10 - (thalach - 150) / 30 + rs.normal(0, .5) > 1)]
      f.write(','.join(str(v) for v in row) + '\n')
  return path
csv_file = _heart_like('heart.csv')

# [cell 10]
df = pd.read_csv(csv_file)

# [cell 12]
show(df.head())

# [cell 13]
show(df.dtypes)

# [cell 15]
target = df.pop('target')

# [cell 18]
numeric_feature_names = ['age', 'thalach', 'trestbps',  'chol', 'oldpeak']
numeric_features = df[numeric_feature_names]
show(numeric_features.head())

# [cell 20]
show(tf.convert_to_tensor(numeric_features))

# [cell 25]
normalizer = tf.keras.layers.Normalization(axis=-1)
show(normalizer.adapt(np.array(numeric_features)))

# [cell 27]
show(normalizer(numeric_features.iloc[:3]))

# [cell 29]
def get_basic_model():
  model = tf.keras.Sequential([
    normalizer,
    tf.keras.layers.Dense(10, activation='relu'),
    tf.keras.layers.Dense(10, activation='relu'),
    tf.keras.layers.Dense(1)
  ])

  model.compile(optimizer='adam',
                loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
                metrics=['accuracy'])
  return model

# [cell 31]
model = get_basic_model()
show(model.fit(numeric_features, target, epochs=2, batch_size=BATCH_SIZE, shuffle=False))

# [cell 34]
numeric_dataset = tf.data.Dataset.from_tensor_slices((numeric_features, target))

for row in numeric_dataset.take(3):
  print(row)

# [cell 35]
numeric_batches = numeric_dataset.batch(BATCH_SIZE)

model = get_basic_model()
show(model.fit(numeric_batches, epochs=2))

# [cell 39]
numeric_features_dict = {key: value.to_numpy()[:, tf.newaxis] for key, value in dict(numeric_features).items()}
target_array =  target.to_numpy()[:, tf.newaxis]

# [cell 40]
numeric_dict_ds = tf.data.Dataset.from_tensor_slices((numeric_features_dict , target_array))

# [cell 41]
show(len(numeric_features_dict))

# [cell 43]
for row in numeric_dict_ds.take(3):
  print(row)

# [cell 46]
#@title
class MyModel(tf.keras.Model):
  def __init__(self):
    # Create all the internal layers in init.
    super().__init__()

    self.normalizer = tf.keras.layers.Normalization(axis=-1)

    self.seq = tf.keras.Sequential([
      self.normalizer,
      tf.keras.layers.Dense(10, activation='relu'),
      tf.keras.layers.Dense(10, activation='relu'),
      tf.keras.layers.Dense(1)
    ])

    self.concat = tf.keras.layers.Concatenate(axis=1)

  def _stack(self, input_dict):
    values = []
    for key, value in sorted(input_dict.items()):
      values.append(value)

    return self.concat(values)

  def adapt(self, inputs):
    # Stack the inputs and `adapt` the normalization layer.
    inputs = self._stack(inputs)
    self.normalizer.adapt(inputs)

  def call(self, inputs):
    # Stack the inputs
    inputs = self._stack(inputs)
    # Run them through all the layers.
    result = self.seq(inputs)

    return result

model = MyModel()

model.adapt(numeric_features_dict)

show(model.compile(optimizer='adam',
              loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
              metrics=['accuracy'],
              run_eagerly=True))

# [cell 48]
show(model.fit(numeric_features_dict, target_array, epochs=1, batch_size=BATCH_SIZE, shuffle=False))

# [cell 49]
numeric_dict_batches = numeric_dict_ds.batch(BATCH_SIZE)
show(model.fit(numeric_dict_batches, epochs=1))

# [cell 51]
show(model.predict(dict(numeric_features.iloc[:3])))

# [cell 53]
inputs = {}
for name, column in numeric_features.items():
  inputs[name] = tf.keras.Input(
      shape=(1,), name=name, dtype=tf.float32)

show(inputs)

# [cell 54]
xs = [value for key, value in sorted(inputs.items())]

concat = tf.keras.layers.Concatenate(axis=1)
x = concat(xs)

normalizer = tf.keras.layers.Normalization(axis=-1)
normalizer.adapt(np.concatenate([value for key, value in sorted(numeric_features_dict.items())], axis=1))

x = normalizer(x)
x = tf.keras.layers.Dense(10, activation='relu')(x)
x = tf.keras.layers.Dense(10, activation='relu')(x)
x = tf.keras.layers.Dense(1)(x)

model = tf.keras.Model(inputs, x)

show(model.compile(optimizer='adam',
              loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
              metrics=['accuracy'],
              run_eagerly=True))

# [cell 55]
show(tf.keras.utils.plot_model(model, rankdir="LR", show_shapes=True,  show_layer_names=True))

# [cell 57]
show(model.fit(numeric_features_dict, target, epochs=1, batch_size=BATCH_SIZE, shuffle=False))

# [cell 58]
numeric_dict_batches = numeric_dict_ds.batch(BATCH_SIZE)
show(model.fit(numeric_dict_batches, epochs=1))

# [cell 63]
binary_feature_names = ['sex', 'fbs', 'exang']

# [cell 64]
categorical_feature_names = ['cp', 'restecg', 'slope', 'thal', 'ca']

# [cell 66]
inputs = {}
for name, column in df.items():
  if type(column[0]) == str:
    dtype = tf.string
  elif (name in categorical_feature_names or
        name in binary_feature_names):
    dtype = tf.int64
  else:
    dtype = tf.float32

  inputs[name] = tf.keras.Input(shape=(1,), name=name, dtype=dtype)

# [cell 67]
show(inputs)

# [cell 70]
preprocessed = []

for name in binary_feature_names:
  inp = inputs[name]
  preprocessed.append(inp)

show(preprocessed)

# [cell 72]
normalizer = tf.keras.layers.Normalization(axis=-1)
show(normalizer.adapt(np.concatenate([value for key, value in sorted(numeric_features_dict.items())], axis=1)))

# [cell 74]
numeric_inputs = []
for name in numeric_feature_names:
  numeric_inputs.append(inputs[name])

numeric_inputs = tf.keras.layers.Concatenate(axis=-1)(numeric_inputs)
numeric_normalized = normalizer(numeric_inputs)

preprocessed.append(numeric_normalized)

show(preprocessed)

# [cell 77]
vocab = ['a','b','c']
lookup = tf.keras.layers.StringLookup(vocabulary=vocab, output_mode='one_hot')
show(lookup(['c','a','a','b','zzz']))

# [cell 78]
vocab = [1,4,7,99]
lookup = tf.keras.layers.IntegerLookup(vocabulary=vocab, output_mode='one_hot')

show(lookup([-1,4,1]))

# [cell 80]
for name in categorical_feature_names:
  vocab = sorted(set(df[name]))
  print(f'name: {name}')
  print(f'vocab: {vocab}\n')

  if type(vocab[0]) is str:
    lookup = tf.keras.layers.StringLookup(vocabulary=vocab, output_mode='one_hot')
  else:
    lookup = tf.keras.layers.IntegerLookup(vocabulary=vocab, output_mode='one_hot')

  x = inputs[name]
  x = lookup(x)
  preprocessed.append(x)

# [cell 83]
show(preprocessed)

# [cell 85]
preprocessed_result = tf.keras.layers.Concatenate(axis=1)(preprocessed)
show(preprocessed_result)

# [cell 87]
preprocessor = tf.keras.Model(inputs, preprocessed_result)

# [cell 88]
show(tf.keras.utils.plot_model(preprocessor, rankdir="LR", show_shapes=True,  show_layer_names=True))

# [cell 90]
show(preprocessor(dict(df.iloc[:1])))

# [cell 93]
body = tf.keras.Sequential([
  tf.keras.layers.Dense(10, activation='relu'),
  tf.keras.layers.Dense(10, activation='relu'),
  tf.keras.layers.Dense(1)
])

# [cell 95]
show(inputs)

# [cell 96]
x = preprocessor(inputs)
show(x)

# [cell 97]
result = body(x)
show(result)

# [cell 98]
model = tf.keras.Model(inputs, result)

show(model.compile(optimizer='adam',
                loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
                metrics=['accuracy']))

# [cell 99]
show(tf.keras.utils.plot_model(model, show_shapes=True,  show_layer_names=True))

# [cell 101]
# history = model.fit(dict(df), target, epochs=1, batch_size=BATCH_SIZE, shuffle=False)

# [cell 103]
ds = tf.data.Dataset.from_tensor_slices((
    dict(df),
    target
))

ds = ds.batch(BATCH_SIZE)

# [cell 104]
import pprint

for x, y in ds.take(1):
  pprint.pprint(x)
  print()
  print(y)

# [cell 105]
history = model.fit(ds, epochs=1)
