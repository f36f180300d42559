# Load CSV data: tensorflow/docs site/en/tutorials/load_data/csv.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/load_data/csv.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: strings, io
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (%%time) are left out: the timed cells' bodies run;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the four downloads are files the program writes in their formats: abalone_train.csv (no
#   header, 7 measures and the integer Age; 200 rows), the Titanic train.csv (its 10 columns, header,
#   100 passengers; read by pd.read_csv and, for cell 74's get_file, from the same file),
#   Metro_Interstate_Traffic_Volume.csv.gz (gzip, its 9 columns, 600 rows) and fonts.zip's CSVs
#   (4 fonts' files under fonts/, font,fontVariant,m_label,strength,italic,orientation,m_top,m_left,
#   originalH,originalW,h,w and the 400 pixel columns r0c0..r19c19; 12 rows each)
# - pandas 3 reads text columns as its 'str' dtype, where the source's cell 37 tests `dtype == object`
#   (pandas 2's): cell 6 sets pd.set_option('future.infer_string', False), pandas 2's reading
# - epochs: the abalone fits' 10 are 2, the Titanic fits' 10 and 5 are 2 and 1
# - sizes: cell 143's BATCH_SIZE 2048 is 16
# - determinism: fit on arrays does not shuffle (shuffle=False); titanic_batches is not shuffled;
#   make_csv_dataset is given shuffle=False and list_files shuffle=False (TF's orders are TF's
#   generator's; cell 134's two epochs list the files alike); cells 89 and 91's shuffles are kept
#   (they print dots only)
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
import pandas as pd
import numpy as np
pd.set_option('future.infer_string', False)

# Make numpy values easier to read.
np.set_printoptions(precision=3, suppress=True)

import tensorflow as tf
from tensorflow.keras import layers

# [cell 10]
def _abalone_like(path, n=200):
  # abalone_train.csv: no header, Length .. Shell weight (3 or 4 decimals) and the integer Age
  rs = np.random.RandomState(0)
  with open(path, 'w') as f:
    for i in range(n):
      length = rs.uniform(0.2, 0.75)
      w = length ** 3 * rs.uniform(3, 4.5)
      row = ['%.3f' % length, '%.3f' % (length * 0.8), '%.3f' % (length * 0.27),
             '%.4f' % w, '%.4f' % (w * 0.43), '%.4f' % (w * 0.21), '%.4f' % (w * 0.29),
             str(int(3 + 14 * length + rs.randint(0, 5)))]
      f.write(','.join(row) + '\n')
  return path

abalone_train = pd.read_csv(
    _abalone_like("abalone_train.csv"),
    names=["Length", "Diameter", "Height", "Whole weight", "Shucked weight",
           "Viscera weight", "Shell weight", "Age"])

show(abalone_train.head())

# [cell 13]
abalone_features = abalone_train.copy()
abalone_labels = abalone_features.pop('Age')

# [cell 15]
abalone_features = np.array(abalone_features)
show(abalone_features)

# [cell 17]
abalone_model = tf.keras.Sequential([
  layers.Dense(64, activation='relu'),
  layers.Dense(1)
])

abalone_model.compile(loss = tf.keras.losses.MeanSquaredError(),
                      optimizer = tf.keras.optimizers.Adam())

# [cell 19]
show(abalone_model.fit(abalone_features, abalone_labels, epochs=2, shuffle=False))

# [cell 23]
normalize = layers.Normalization()

# [cell 25]
normalize.adapt(abalone_features)

# [cell 27]
norm_abalone_model = tf.keras.Sequential([
  normalize,
  layers.Dense(64, activation='relu'),
  layers.Dense(1)
])

norm_abalone_model.compile(loss = tf.keras.losses.MeanSquaredError(),
                           optimizer = tf.keras.optimizers.Adam())

show(norm_abalone_model.fit(abalone_features, abalone_labels, epochs=2, shuffle=False))

# [cell 29]
def _titanic_like(path, n=100):
  # the Titanic train.csv: a header and 10 columns, text in sex, class, deck, embark_town, alone
  rs = np.random.RandomState(1)
  with open(path, 'w') as f:
    f.write('survived,sex,age,n_siblings_spouses,parch,fare,class,deck,embark_town,alone\n')
    for i in range(n):
      sex = ['male', 'female'][rs.randint(0, 2)]
      cls = ['First', 'Second', 'Third'][rs.randint(0, 3)]
      sib, parch = rs.randint(0, 3), rs.randint(0, 3)
      age = float(rs.randint(1, 70)) + [0.0, 0.5][rs.randint(0, 2)]
      fare = round({'First': 80, 'Second': 25, 'Third': 9}[cls] * rs.uniform(0.5, 1.5), 4)
      deck = ['unknown', 'unknown', 'A', 'B', 'C', 'D', 'E'][rs.randint(0, 7)]
      town = ['Southampton', 'Southampton', 'Cherbourg', 'Queenstown'][rs.randint(0, 4)]
      survived = int(rs.uniform() < (0.7 if sex == 'female' else 0.2) + (0.15 if cls == 'First' else 0))
      f.write(f"{survived},{sex},{age},{sib},{parch},{fare},{cls},{deck},{town},"
              f"{'y' if sib + parch == 0 else 'n'}\n")
  return path

titanic = pd.read_csv(_titanic_like("train.csv"))
show(titanic.head())

# [cell 30]
titanic_features = titanic.copy()
titanic_labels = titanic_features.pop('survived')

# [cell 33]
# Create a symbolic input
input = tf.keras.Input(shape=(), dtype=tf.float32)

# Perform a calculation using the input
result = 2*input + 1

# the result doesn't have a value
show(result)

# [cell 34]
calc = tf.keras.Model(inputs=input, outputs=result)

# [cell 35]
print(calc(np.array([1])).numpy())
print(calc(np.array([2])).numpy())

# [cell 37]
inputs = {}

for name, column in titanic_features.items():
  dtype = column.dtype
  if dtype == object:
    dtype = tf.string
  else:
    dtype = tf.float32

  inputs[name] = tf.keras.Input(shape=(1,), name=name, dtype=dtype)

show(inputs)

# [cell 39]
numeric_inputs = {name:input for name,input in inputs.items()
                  if input.dtype==tf.float32}

x = layers.Concatenate()(list(numeric_inputs.values()))
norm = layers.Normalization()
norm.adapt(np.array(titanic[numeric_inputs.keys()]))
all_numeric_inputs = norm(x)

show(all_numeric_inputs)

# [cell 41]
preprocessed_inputs = [all_numeric_inputs]

# [cell 43]
for name, input in inputs.items():
  if input.dtype == tf.float32:
    continue
  
  lookup = layers.StringLookup(vocabulary=np.unique(titanic_features[name]))
  one_hot = layers.CategoryEncoding(num_tokens=lookup.vocabulary_size())

  x = lookup(input)
  x = one_hot(x)
  preprocessed_inputs.append(x)

# [cell 45]
preprocessed_inputs_cat = layers.Concatenate()(preprocessed_inputs)

titanic_preprocessing = tf.keras.Model(inputs, preprocessed_inputs_cat)

show(tf.keras.utils.plot_model(model = titanic_preprocessing , rankdir="LR", dpi=72, show_shapes=True))

# [cell 47]
titanic_features_dict = {name: np.array(value) 
                         for name, value in titanic_features.items()}

# [cell 49]
features_dict = {name:values[:1] for name, values in titanic_features_dict.items()}
show(titanic_preprocessing(features_dict))

# [cell 51]
def titanic_model(preprocessing_head, inputs):
  body = tf.keras.Sequential([
    layers.Dense(64, activation='relu'),
    layers.Dense(1)
  ])

  preprocessed_inputs = preprocessing_head(inputs)
  result = body(preprocessed_inputs)
  model = tf.keras.Model(inputs, result)

  model.compile(loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
                optimizer=tf.keras.optimizers.Adam())
  return model

titanic_model = titanic_model(titanic_preprocessing, inputs)

# [cell 53]
show(titanic_model.fit(x=titanic_features_dict, y=titanic_labels, epochs=2, shuffle=False))

# [cell 55]
titanic_model.save('test.keras')
reloaded = tf.keras.models.load_model('test.keras')

# [cell 56]
features_dict = {name:values[:1] for name, values in titanic_features_dict.items()}

before = titanic_model(features_dict)
after = reloaded(features_dict)
assert (before-after)<1e-3
print(before)
print(after)

# [cell 60]
import itertools

def slices(features):
  for i in itertools.count():
    # For each feature take index `i`
    example = {name:values[i] for name, values in features.items()}
    yield example

# [cell 62]
for example in slices(titanic_features_dict):
  for name, value in example.items():
    print(f"{name:19s}: {value}")
  break

# [cell 64]
features_ds = tf.data.Dataset.from_tensor_slices(titanic_features_dict)

# [cell 66]
for example in features_ds:
  for name, value in example.items():
    print(f"{name:19s}: {value}")
  break

# [cell 68]
titanic_ds = tf.data.Dataset.from_tensor_slices((titanic_features_dict, titanic_labels))

# [cell 70]
titanic_batches = titanic_ds.batch(32)

# [cell 72]
show(titanic_model.fit(titanic_batches, epochs=1))

# [cell 74]
titanic_file_path = "train.csv"

# [cell 76]
titanic_csv_ds = tf.data.experimental.make_csv_dataset(
    titanic_file_path,
    batch_size=5, # Artificially small to make examples easier to show.
    label_name='survived',
    num_epochs=1,
    ignore_errors=True, shuffle=False)

# [cell 78]
for batch, label in titanic_csv_ds.take(1):
  for key, value in batch.items():
    print(f"{key:20s}: {value}")
  print()
  print(f"{'label':20s}: {label}")

# [cell 81]
def _traffic_like(path, n=600):
  # Metro_Interstate_Traffic_Volume.csv.gz: gzip, a header and 9 columns, hourly rows
  import gzip, datetime
  rs = np.random.RandomState(2)
  os.makedirs(os.path.dirname(path), exist_ok=True)
  weather = [('Clouds', 'scattered clouds'), ('Clouds', 'broken clouds'), ('Clear', 'sky is clear'),
             ('Rain', 'light rain'), ('Mist', 'mist')]
  t0 = datetime.datetime(2012, 10, 2, 9)
  with gzip.open(path, 'wt') as f:
    f.write('holiday,temp,rain_1h,snow_1h,clouds_all,weather_main,weather_description,date_time,traffic_volume\n')
    for i in range(n):
      t = t0 + datetime.timedelta(hours=i)
      main, desc = weather[rs.randint(0, len(weather))]
      rain = round(rs.uniform(0, 3), 2) if main == 'Rain' else 0.0
      volume = int(max(0, 3300 + 2500 * np.sin((t.hour - 9) / 24 * 2 * np.pi) + rs.normal(0, 300)))
      f.write(f"{'Columbus Day' if i == 300 else 'None'},{round(rs.uniform(260, 300), 2)},{rain},0.0,"
              f"{rs.randint(0, 100)},{main},{desc},{t:%Y-%m-%d %H:%M:%S},{volume}\n")
  return path

import os
traffic_volume_csv_gz = _traffic_like(os.path.join('.', 'traffic', 'Metro_Interstate_Traffic_Volume.csv.gz'))

# [cell 83]
traffic_volume_csv_gz_ds = tf.data.experimental.make_csv_dataset(
    traffic_volume_csv_gz,
    batch_size=256,
    label_name='traffic_volume',
    num_epochs=1,
    compression_type="GZIP", shuffle=False)

for batch, label in traffic_volume_csv_gz_ds.take(1):
  for key, value in batch.items():
    print(f"{key:20s}: {value[:5]}")
  print()
  print(f"{'label':20s}: {label[:5]}")

# [cell 87]
for i, (batch, label) in enumerate(traffic_volume_csv_gz_ds.repeat(20)):
  if i % 40 == 0:
    print('.', end='')
print()

# [cell 89]
caching = traffic_volume_csv_gz_ds.cache().shuffle(1000)

for i, (batch, label) in enumerate(caching.shuffle(1000).repeat(20)):
  if i % 40 == 0:
    print('.', end='')
print()

# [cell 91]
snapshotting = traffic_volume_csv_gz_ds.snapshot('titanic.tfsnap').shuffle(1000)

for i, (batch, label) in enumerate(snapshotting.shuffle(1000).repeat(20)):
  if i % 40 == 0:
    print('.', end='')
print()

# [cell 95]
def _fonts_like(folder, rows=12):
  # fonts.zip's CSVs, one a font: its header and columns (the glyph's 20x20 pixels r0c0..r19c19)
  rs = np.random.RandomState(3)
  os.makedirs(folder, exist_ok=True)
  pixels = ','.join(f'r{r}c{c}' for r in range(20) for c in range(20))
  for font in ['AGENCY', 'ARIAL', 'BAITI', 'COURIER']:
    with open(os.path.join(folder, font + '.csv'), 'w') as f:
      f.write('font,fontVariant,m_label,strength,italic,orientation,m_top,m_left,originalH,'
              'originalW,h,w,' + pixels + '\n')
      for i in range(rows):
        label = [65, 66, 97, 98, 48, 8364][rs.randint(0, 6)]
        img = rs.randint(1, 256, 400) * (rs.uniform(size=400) < 0.4) + 1
        f.write(f"{font},{font} FB,{label},{[0.4, 0.7][i % 2]},{i // 2 % 2},0.0,"
                f"{rs.randint(20, 60)},{rs.randint(20, 40)},{rs.randint(10, 60)},{rs.randint(10, 60)},20,20,"
                + ','.join(str(v) for v in img.clip(1, 255)) + '\n')
  return folder

fonts_zip = _fonts_like('fonts')

# [cell 96]
import pathlib
font_csvs =  sorted(str(p) for p in pathlib.Path('fonts').glob("*.csv"))

show(font_csvs[:10])

# [cell 97]
show(len(font_csvs))

# [cell 99]
fonts_ds = tf.data.experimental.make_csv_dataset(
    file_pattern = "fonts/*.csv",
    batch_size=10, num_epochs=1,
    num_parallel_reads=20,
    shuffle_buffer_size=10000, shuffle=False)

# [cell 101]
for features in fonts_ds.take(1):
  for i, (name, value) in enumerate(features.items()):
    if i>15:
      break
    print(f"{name:20s}: {value}")
print('...')
print(f"[total: {len(features)} features]")

# [cell 103]
import re

def make_images(features):
  image = [None]*400
  new_feats = {}

  for name, value in features.items():
    match = re.match('r(\d+)c(\d+)', name)
    if match:
      image[int(match.group(1))*20+int(match.group(2))] = value
    else:
      new_feats[name] = value

  image = tf.stack(image, axis=0)
  image = tf.reshape(image, [20, 20, -1])
  new_feats['image'] = image

  return new_feats

# [cell 105]
fonts_image_ds = fonts_ds.map(make_images)

for features in fonts_image_ds.take(1):
  break

# [cell 107]
from matplotlib import pyplot as plt

plt.figure(figsize=(6,6), dpi=120)

for n in range(9):
  plt.subplot(3,3,n+1)
  plt.imshow(features['image'][..., n])
  plt.title(chr(features['m_label'][n]))
  plt.axis('off')

# [cell 111]
text = pathlib.Path(titanic_file_path).read_text()
lines = text.split('\n')[1:-1]

all_strings = [str()]*10
show(all_strings)

# [cell 112]
features = tf.io.decode_csv(lines, record_defaults=all_strings) 

for f in features:
  print(f"type: {f.dtype.name}, shape: {f.shape}")

# [cell 114]
print(lines[0])

# [cell 115]
titanic_types = [int(), str(), float(), int(), int(), float(), str(), str(), str(), str()]
show(titanic_types)

# [cell 116]
features = tf.io.decode_csv(lines, record_defaults=titanic_types) 

for f in features:
  print(f"type: {f.dtype.name}, shape: {f.shape}")

# [cell 119]
simple_titanic = tf.data.experimental.CsvDataset(titanic_file_path, record_defaults=titanic_types, header=True)

for example in simple_titanic.take(1):
  print([e.numpy() for e in example])

# [cell 121]
def decode_titanic_line(line):
  return tf.io.decode_csv(line, titanic_types)

manual_titanic = (
    # Load the lines of text
    tf.data.TextLineDataset(titanic_file_path)
    # Skip the header row.
    .skip(1)
    # Decode the line.
    .map(decode_titanic_line)
)

for example in manual_titanic.take(1):
  print([e.numpy() for e in example])

# [cell 123]
font_line = pathlib.Path(font_csvs[0]).read_text().splitlines()[1]
print(font_line)

# [cell 125]
num_font_features = font_line.count(',')+1
font_column_types = [str(), str()] + [float()]*(num_font_features-2)

# [cell 127]
show(font_csvs[0])

# [cell 129]
simple_font_ds = tf.data.experimental.CsvDataset(
    font_csvs, 
    record_defaults=font_column_types, 
    header=True)

# [cell 130]
for row in simple_font_ds.take(10):
  print(row[0].numpy())

# [cell 132]
font_files = tf.data.Dataset.list_files("fonts/*.csv", shuffle=False)

# [cell 134]
print('Epoch 1:')
for f in list(font_files)[:5]:
  print("    ", f.numpy())
print('    ...')
print()

print('Epoch 2:')
for f in list(font_files)[:5]:
  print("    ", f.numpy())
print('    ...')

# [cell 136]
def make_font_csv_ds(path):
  return tf.data.experimental.CsvDataset(
    path, 
    record_defaults=font_column_types, 
    header=True)

# [cell 138]
font_rows = font_files.interleave(make_font_csv_ds,
                                  cycle_length=3)

# [cell 139]
fonts_dict = {'font_name':[], 'character':[]}

for row in font_rows.take(10):
  fonts_dict['font_name'].append(row[0].numpy().decode())
  fonts_dict['character'].append(chr(int(row[2].numpy())))

show(pd.DataFrame(fonts_dict))

# [cell 143]
BATCH_SIZE=16
fonts_ds = tf.data.experimental.make_csv_dataset(
    file_pattern = "fonts/*.csv",
    batch_size=BATCH_SIZE, num_epochs=1,
    num_parallel_reads=100, shuffle=False)

# [cell 144]
for i,batch in enumerate(fonts_ds.take(20)):
  print('.',end='')

print()

# [cell 146]
fonts_files = tf.data.Dataset.list_files("fonts/*.csv", shuffle=False)
fonts_lines = fonts_files.interleave(
    lambda fname:tf.data.TextLineDataset(fname).skip(1), 
    cycle_length=100).batch(BATCH_SIZE)

fonts_fast = fonts_lines.map(lambda x: tf.io.decode_csv(x, record_defaults=font_column_types))

# [cell 147]
for i,batch in enumerate(fonts_fast.take(20)):
  print('.',end='')

print()
