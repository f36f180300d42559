# Classify structured data using Keras preprocessing layers: tensorflow/docs site/en/tutorials/structured_data/preprocessing_layers.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/structured_data/preprocessing_layers.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: strings
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the petfinder-mini download is 60 generated pets with its columns and kinds, written where the zip unpacks
# - determinism: the frame's sample has random_state=0; df_to_dataset's shuffle is off (TF's order is TF's generator's); Dropout(0.5) is Dropout(0.0)
# - sizes: batch 256 is 16, Dense(32) is Dense(8), epochs 10 is 2
# - the version shown is left out
# - the split is three .iloc slices of the sampled frame: pandas 3 makes np.split of a DataFrame arrays (the tutorial then calls .pop on them)
# - the last print formats 100 * prob[0]: NumPy 2 converts only 0-d arrays to a float (TF 2.21 raises on prob, of shape (1,))
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

# [cell 8]
import numpy as np
import pandas as pd
import tensorflow as tf

from tensorflow.keras import layers

# [cell 9]
# show(tf.__version__)

# [cell 11]
dataset_url = 'http://storage.googleapis.com/download.tensorflow.org/data/petfinder-mini.zip'
csv_file = 'datasets/petfinder-mini/petfinder-mini.csv'

def _petfinder_like(path):
  # 60 pets with petfinder-mini.csv's columns and kinds, written where the zip unpacks
  rs = np.random.RandomState(0)
  os.makedirs(os.path.dirname(path), exist_ok=True)
  pick = lambda *v: v[rs.randint(len(v))]
  cols = ['Type', 'Age', 'Breed1', 'Gender', 'Color1', 'Color2', 'MaturitySize', 'FurLength',
          'Vaccinated', 'Sterilized', 'Health', 'Fee', 'Description', 'PhotoAmt', 'AdoptionSpeed']
  with open(path, 'w') as f:
    f.write(','.join(cols) + '\n')
    for i in range(60):
      row = [pick('Cat', 'Dog'), rs.randint(1, 40), pick('Tabby', 'Mixed Breed', 'Domestic Short Hair', 'Poodle'),
             pick('Male', 'Female'), pick('Black', 'Brown', 'White', 'Golden'), pick('White', 'No Color', 'Cream'),
             pick('Small', 'Medium', 'Large'), pick('Short', 'Medium', 'Long'), pick('No', 'Yes', 'Not Sure'),
             pick('No', 'Yes', 'Not Sure'), pick('Healthy', 'Minor Injury'), int(pick(0, 0, 50, 100, 150)),
             '"a pet, to adopt"', rs.randint(0, 8), rs.randint(0, 5)]
      f.write(','.join(str(v) for v in row) + '\n')
import os
_petfinder_like(csv_file)
dataframe = pd.read_csv(csv_file)

# [cell 13]
show(dataframe.head())

# [cell 15]
# In the original dataset, `'AdoptionSpeed'` of `4` indicates
# a pet was not adopted.
dataframe['target'] = np.where(dataframe['AdoptionSpeed']==4, 0, 1)

# Drop unused features.
dataframe = dataframe.drop(columns=['AdoptionSpeed', 'Description'])

# [cell 17]
_shuffled = dataframe.sample(frac=1, random_state=0)
train, val, test = (_shuffled.iloc[:int(0.8*len(dataframe))], _shuffled.iloc[int(0.8*len(dataframe)):int(0.9*len(dataframe))], _shuffled.iloc[int(0.9*len(dataframe)):])

# [cell 18]
print(len(train), 'training examples')
print(len(val), 'validation examples')
print(len(test), 'test examples')

# [cell 20]
def df_to_dataset(dataframe, shuffle=True, batch_size=32):
  df = dataframe.copy()
  labels = df.pop('target')
  df = {key: value.to_numpy()[:,tf.newaxis] for key, value in dataframe.items()}
  ds = tf.data.Dataset.from_tensor_slices((dict(df), labels))
  if False:
    ds = ds.shuffle(buffer_size=len(dataframe))
  ds = ds.batch(batch_size)
  ds = ds.prefetch(batch_size)
  return ds

# [cell 22]
batch_size = 5
train_ds = df_to_dataset(train, batch_size=batch_size)

# [cell 23]
[(train_features, label_batch)] = train_ds.take(1)
print('Every feature:', list(train_features.keys()))
print('A batch of ages:', train_features['Age'])
print('A batch of targets:', label_batch )

# [cell 27]
def get_normalization_layer(name, dataset):
  # Create a Normalization layer for the feature.
  normalizer = layers.Normalization(axis=None)

  # Prepare a Dataset that only yields the feature.
  feature_ds = dataset.map(lambda x, y: x[name])

  # Learn the statistics of the data.
  normalizer.adapt(feature_ds)

  return normalizer

# [cell 29]
photo_count_col = train_features['PhotoAmt']
layer = get_normalization_layer('PhotoAmt', train_ds)
show(layer(photo_count_col))

# [cell 32]
def get_category_encoding_layer(name, dataset, dtype, max_tokens=None):
  # Create a layer that turns strings into integer indices.
  if dtype == 'string':
    index = layers.StringLookup(max_tokens=max_tokens)
  # Otherwise, create a layer that turns integer values into integer indices.
  else:
    index = layers.IntegerLookup(max_tokens=max_tokens)

  # Prepare a `tf.data.Dataset` that only yields the feature.
  feature_ds = dataset.map(lambda x, y: x[name])

  # Learn the set of possible values and assign them a fixed integer index.
  index.adapt(feature_ds)

  # Encode the integer indices.
  encoder = layers.CategoryEncoding(num_tokens=index.vocabulary_size())

  # Apply multi-hot encoding to the indices. The lambda function captures the
  # layer, so you can use them, or include them in the Keras Functional model later.
  return lambda feature: encoder(index(feature))

# [cell 34]
test_type_col = train_features['Type']
test_type_layer = get_category_encoding_layer(name='Type',
                                              dataset=train_ds,
                                              dtype='string')
show(test_type_layer(test_type_col))

# [cell 36]
test_age_col = train_features['Age']
test_age_layer = get_category_encoding_layer(name='Age',
                                             dataset=train_ds,
                                             dtype='int64',
                                             max_tokens=5)
show(test_age_layer(test_age_col))

# [cell 39]
batch_size = 16
train_ds = df_to_dataset(train, batch_size=batch_size)
val_ds = df_to_dataset(val, shuffle=False, batch_size=batch_size)
test_ds = df_to_dataset(test, shuffle=False, batch_size=batch_size)

# [cell 41]
all_inputs = {}
encoded_features = []

# Numerical features.
for header in ['PhotoAmt', 'Fee']:
  numeric_col = tf.keras.Input(shape=(1,), name=header)
  normalization_layer = get_normalization_layer(header, train_ds)
  encoded_numeric_col = normalization_layer(numeric_col)
  all_inputs[header] = numeric_col
  encoded_features.append(encoded_numeric_col)

# [cell 43]
age_col = tf.keras.Input(shape=(1,), name='Age', dtype='int64')

encoding_layer = get_category_encoding_layer(name='Age',
                                             dataset=train_ds,
                                             dtype='int64',
                                             max_tokens=5)
encoded_age_col = encoding_layer(age_col)
all_inputs['Age'] = age_col
show(encoded_features.append(encoded_age_col))

# [cell 45]
categorical_cols = ['Type', 'Color1', 'Color2', 'Gender', 'MaturitySize',
                    'FurLength', 'Vaccinated', 'Sterilized', 'Health', 'Breed1']

for header in categorical_cols:
  categorical_col = tf.keras.Input(shape=(1,), name=header, dtype='string')
  encoding_layer = get_category_encoding_layer(name=header,
                                               dataset=train_ds,
                                               dtype='string',
                                               max_tokens=5)
  encoded_categorical_col = encoding_layer(categorical_col)
  all_inputs[header] = categorical_col
  encoded_features.append(encoded_categorical_col)

# [cell 48]
show(encoded_features)

# [cell 49]
all_features = tf.keras.layers.concatenate(encoded_features)
x = tf.keras.layers.Dense(8, activation="relu")(all_features)
x = tf.keras.layers.Dropout(0.0)(x)
output = tf.keras.layers.Dense(1)(x)

model = tf.keras.Model(all_inputs, output)

# [cell 51]
show(model.compile(optimizer='adam',
              loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
              metrics=["accuracy"],
              run_eagerly=True))

# [cell 53]
# Use `rankdir='LR'` to make the graph horizontal.
show(tf.keras.utils.plot_model(model, show_shapes=True, show_layer_names=True, rankdir="LR"))

# [cell 55]
show(model.fit(train_ds, epochs=2, validation_data=val_ds))

# [cell 56]
result = model.evaluate(test_ds, return_dict=True)
print(result)

# [cell 58]
model.save('my_pet_classifier.keras')
reloaded_model = tf.keras.models.load_model('my_pet_classifier.keras')

# [cell 60]
sample = {
    'Type': 'Cat',
    'Age': 3,
    'Breed1': 'Tabby',
    'Gender': 'Male',
    'Color1': 'Black',
    'Color2': 'White',
    'MaturitySize': 'Small',
    'FurLength': 'Short',
    'Vaccinated': 'No',
    'Sterilized': 'No',
    'Health': 'Healthy',
    'Fee': 100,
    'PhotoAmt': 2,
}

input_dict = {name: tf.convert_to_tensor([value]) for name, value in sample.items()}
predictions = reloaded_model.predict(input_dict)
prob = tf.nn.sigmoid(predictions[0])

print(
    "This particular pet had a %.1f percent probability "
    "of getting adopted." % (100 * prob[0])
)
