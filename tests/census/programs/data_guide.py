# tf.data: Build TensorFlow input pipelines: tensorflow/docs site/en/guide/data.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/data.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: strings, sparse, io, iterator_checkpoint
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data (each download a stand-in in its format, written by the program itself; PIL imported for it):
#   Fashion-MNIST (load_data, cells 28 and 214) is the census prelude's _mnist_like(256, 64); flower_photos
#   (cells 45 and 94) is 5 classes of 7 JPEG photos, each of 8x8 blocks of one grey (so TF's fast
#   IDCT and Pillow's accurate one give the same pixels); the FSNS TFRecord file (cells 54 and 151)
#   is 12 tf.train.Example records of a PNG image and its text, written with tf.io.TFRecordWriter;
#   the Iliad translations (cell 60) are 3 files of 8 lines; Titanic's train.csv (cells 67, 73, 115)
#   is 300 rows of its columns; creditcard.csv (cell 185) is 3000 rows of its 31 columns (2 % of
#   class 1); a get_file is the stand-in's path;
# - cell 176's lines, indented by one space (IPython dedents a cell), are dedented;
# - cell 86's %%writefile missing.csv writes the same lines with open();
# - cell 210's checkpoint folder (the machine's temporary folder) is 'my_ckpt' in the run's folder;
# - determinism: the datasets' shuffles (ds_series (cell 43), the Counter lines (cells 125, 129, 132),
#   fmnist_train_ds (cell 215)) are left out, list_files (cells 99, 136) and make_csv_dataset
#   (cells 78, 81, 186) get shuffle=False: TF's order is TF's generator's; the labels that
#   sample_from_datasets and rejection_resample draw (cells 198, 207) are not printed (TF's
#   generator's draws), their datasets are made as written;
# - cell 140 defines a show(image, label) of its own: the cells after it show their last value
#   through _show, the census prelude's show kept under another name (cell 6);
# - sizes: range_ds is range(100000) as written (lazily); nothing else shrunk
#

# [cell 1]
#@title Licensed under the Apache License, Version 2.0 (the "License"); { display-mode: "form" }
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

# [cell 5]
import tensorflow as tf

# [cell 6]
import pathlib
import os
import matplotlib.pyplot as plt
import pandas as pd
import numpy as np

np.set_printoptions(precision=4)
_show = show   # the census prelude's show: cell 140 defines a show of its own
import PIL.Image

# [cell 8]
dataset = tf.data.Dataset.from_tensor_slices([8, 3, 0, 8, 2, 1])
show((dataset))

# [cell 9]
for elem in dataset:
  print(elem.numpy())

# [cell 11]
it = iter(dataset)

print(next(it).numpy())

# [cell 13]
print(dataset.reduce(0, lambda state, value: state + value).numpy())

# [cell 15]
dataset1 = tf.data.Dataset.from_tensor_slices(tf.random.uniform([4, 10]))

show((dataset1.element_spec))

# [cell 16]
dataset2 = tf.data.Dataset.from_tensor_slices(
   (tf.random.uniform([4]),
    tf.random.uniform([4, 100], maxval=100, dtype=tf.int32)))

show((dataset2.element_spec))

# [cell 17]
dataset3 = tf.data.Dataset.zip((dataset1, dataset2))

show((dataset3.element_spec))

# [cell 18]
# Dataset containing a sparse tensor.
dataset4 = tf.data.Dataset.from_tensors(tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4]))

show((dataset4.element_spec))

# [cell 19]
# Use value_type to see the type of value represented by the element spec
show((dataset4.element_spec.value_type))

# [cell 21]
dataset1 = tf.data.Dataset.from_tensor_slices(
    tf.random.uniform([4, 10], minval=1, maxval=10, dtype=tf.int32))

show((dataset1))

# [cell 22]
for z in dataset1:
  print(z.numpy())

# [cell 23]
dataset2 = tf.data.Dataset.from_tensor_slices(
   (tf.random.uniform([4]),
    tf.random.uniform([4, 100], maxval=100, dtype=tf.int32)))

show((dataset2))

# [cell 24]
dataset3 = tf.data.Dataset.zip((dataset1, dataset2))

show((dataset3))

# [cell 25]
for a, (b,c) in dataset3:
  print('shapes: {a.shape}, {b.shape}, {c.shape}'.format(a=a, b=b, c=c))

# [cell 28]
train, test = _mnist_like(256, 64)  # tf.keras.datasets.fashion_mnist.load_data()

# [cell 29]
images, labels = train
images = images/255

dataset = tf.data.Dataset.from_tensor_slices((images, labels))
show((dataset))

# [cell 32]
def count(stop):
  i = 0
  while i<stop:
    yield i
    i += 1

# [cell 33]
for n in count(5):
  print(n)

# [cell 35]
ds_counter = tf.data.Dataset.from_generator(count, args=[25], output_types=tf.int32, output_shapes = (), )

# [cell 36]
for count_batch in ds_counter.repeat().batch(10).take(10):
  print(count_batch.numpy())

# [cell 38]
def gen_series():
  i = 0
  while True:
    size = np.random.randint(0, 10)
    yield i, np.random.normal(size=(size,))
    i += 1

# [cell 39]
for i, series in gen_series():
  print(i, ":", str(series))
  if i > 5:
    break

# [cell 41]
ds_series = tf.data.Dataset.from_generator(
    gen_series,
    output_types=(tf.int32, tf.float32),
    output_shapes=((), (None,)))

show((ds_series))

# [cell 43]
ds_series_batch = ds_series.padded_batch(10)  # .shuffle(20) left out

ids, sequence_batch = next(iter(ds_series_batch))
print(ids.numpy())
print()
print(sequence_batch.numpy())

# [cell 45]
def _flowers_like(root):
  # flower_photos' layout: a folder of each class's JPEG photos and a LICENSE.txt; each photo
  # 8x8 blocks of one grey (a block of one value decodes alike with any IDCT), 32 to 64 pixels a side
  rs = np.random.RandomState(1)
  for c in ['daisy', 'dandelion', 'roses', 'sunflowers', 'tulips']:
    os.makedirs(os.path.join(root, c), exist_ok=True)
    for i in range(7):
      h, w = 8 * rs.randint(4, 9, 2)
      blocks = rs.randint(0, 256, (h // 8, w // 8)).astype('uint8')
      PIL.Image.fromarray(np.kron(blocks, np.ones((8, 8), 'uint8'))).convert('RGB').save(
          os.path.join(root, c, f'{1000 + i}.jpg'), quality=95, subsampling=0)
  with open(os.path.join(root, 'LICENSE.txt'), 'w') as f:
    f.write('generated')
  return root
flowers = _flowers_like(os.path.abspath('flower_photos'))  # tf.keras.utils.get_file('flower_photos', 'https://storage.googleapis.com/download.tensorflow.org/example_images/flower_photos.tgz', untar=True)

# [cell 47]
img_gen = tf.keras.preprocessing.image.ImageDataGenerator(rescale=1./255, rotation_range=20)

# [cell 48]
images, labels = next(img_gen.flow_from_directory(flowers))

# [cell 49]
print(images.dtype, images.shape)
print(labels.dtype, labels.shape)

# [cell 50]
ds = tf.data.Dataset.from_generator(
    lambda: img_gen.flow_from_directory(flowers),
    output_types=(tf.float32, tf.float32),
    output_shapes=([32,256,256,3], [32,5])
)

show((ds.element_spec))

# [cell 51]
for images, labels in ds.take(1):
  print('images.shape: ', images.shape)
  print('labels.shape: ', labels.shape)

# [cell 54]
# Creates a dataset that reads all of the examples from two files.
def _fsns_like(path):
  # FSNS's records: tf.train.Example with the street sign's PNG image and its text
  import io
  rs = np.random.RandomState(2)
  words = ['Rue de la Paix', 'Avenue Foch', 'Boulevard Voltaire', 'Place Monge']
  with tf.io.TFRecordWriter(path) as w:
    for i in range(12):
      buf = io.BytesIO()
      PIL.Image.fromarray(rs.randint(0, 256, (15, 60, 3)).astype('uint8')).save(buf, format='PNG')
      ex = tf.train.Example(features=tf.train.Features(feature={
          'image/encoded': tf.train.Feature(bytes_list=tf.train.BytesList(value=[buf.getvalue()])),
          'image/format': tf.train.Feature(bytes_list=tf.train.BytesList(value=[b'PNG'])),
          'image/text': tf.train.Feature(bytes_list=tf.train.BytesList(value=[words[i % 4].encode()])),
          'image/width': tf.train.Feature(int64_list=tf.train.Int64List(value=[60])),
      }))
      w.write(ex.SerializeToString())
  return path
fsns_test_file = _fsns_like(os.path.abspath("fsns.tfrec"))  # tf.keras.utils.get_file("fsns.tfrec", "https://storage.googleapis.com/download.tensorflow.org/data/fsns-20160927/testdata/fsns-00000-of-00001")

# [cell 56]
dataset = tf.data.TFRecordDataset(filenames = [fsns_test_file])
show((dataset))

# [cell 58]
raw_example = next(iter(dataset))
parsed = tf.train.Example.FromString(raw_example.numpy())

show((parsed.features.feature['image/text']))

# [cell 60]
directory_url = 'https://storage.googleapis.com/download.tensorflow.org/data/illiad/'
file_names = ['cowper.txt', 'derby.txt', 'butler.txt']

def _iliad_like(file_name):
  # a translation's text file: lines of words
  rs = np.random.RandomState(len(file_name) + ord(file_name[0]))
  words = ['Achilles', 'wrath', 'sing', 'goddess', 'the', 'of', 'Greeks', 'Troy', 'ships', 'gods']
  with open(file_name, 'w') as f:
    for i in range(8):
      f.write(' '.join(rs.choice(words, rs.randint(3, 9))) + '\n')
  return os.path.abspath(file_name)
file_paths = [
    _iliad_like(file_name)  # tf.keras.utils.get_file(file_name, directory_url + file_name)
    for file_name in file_names
]

# [cell 61]
dataset = tf.data.TextLineDataset(file_paths)

# [cell 63]
for line in dataset.take(5):
  print(line.numpy())

# [cell 65]
files_ds = tf.data.Dataset.from_tensor_slices(file_paths)
lines_ds = files_ds.interleave(tf.data.TextLineDataset, cycle_length=3)

for i, line in enumerate(lines_ds.take(9)):
  if i % 3 == 0:
    print()
  print(line.numpy())

# [cell 67]
def _titanic_like(path):
  # Titanic's train.csv: its header and columns, 300 rows
  rs = np.random.RandomState(3)
  with open(path, 'w') as f:
    f.write('survived,sex,age,n_siblings_spouses,parch,fare,class,deck,embark_town,alone\n')
    for i in range(300):
      f.write('%d,%s,%.1f,%d,%d,%.4f,%s,%s,%s,%s\n' % (
          rs.randint(0, 2), rs.choice(['male', 'female']), rs.randint(1, 80), rs.randint(0, 4),
          rs.randint(0, 3), rs.uniform(5, 100), rs.choice(['First', 'Second', 'Third']),
          rs.choice(['unknown', 'A', 'B', 'C']), rs.choice(['Southampton', 'Cherbourg', 'Queenstown']),
          rs.choice(['y', 'n'])))
  return path
titanic_file = _titanic_like(os.path.abspath("train.csv"))  # tf.keras.utils.get_file("train.csv", "https://storage.googleapis.com/tf-datasets/titanic/train.csv")
titanic_lines = tf.data.TextLineDataset(titanic_file)

# [cell 68]
for line in titanic_lines.take(10):
  print(line.numpy())

# [cell 69]
def survived(line):
  return tf.not_equal(tf.strings.substr(line, 0, 1), "0")

survivors = titanic_lines.skip(1).filter(survived)

# [cell 70]
for line in survivors.take(10):
  print(line.numpy())

# [cell 73]
titanic_file = os.path.abspath("train.csv")  # tf.keras.utils.get_file("train.csv", "https://storage.googleapis.com/tf-datasets/titanic/train.csv")

# [cell 74]
df = pd.read_csv(titanic_file)
show((df.head()))

# [cell 76]
titanic_slices = tf.data.Dataset.from_tensor_slices(dict(df))

for feature_batch in titanic_slices.take(1):
  for key, value in feature_batch.items():
    print("  {!r:20s}: {}".format(key, value))

# [cell 78]
titanic_batches = tf.data.experimental.make_csv_dataset(
    titanic_file, batch_size=4,
    label_name="survived", shuffle=False)

# [cell 79]
for feature_batch, label_batch in titanic_batches.take(1):
  print("'survived': {}".format(label_batch))
  print("features:")
  for key, value in feature_batch.items():
    print("  {!r:20s}: {}".format(key, value))

# [cell 81]
titanic_batches = tf.data.experimental.make_csv_dataset(
    titanic_file, batch_size=4,
    label_name="survived", select_columns=['class', 'fare', 'survived'], shuffle=False)

# [cell 82]
for feature_batch, label_batch in titanic_batches.take(1):
  print("'survived': {}".format(label_batch))
  for key, value in feature_batch.items():
    print("  {!r:20s}: {}".format(key, value))

# [cell 84]
titanic_types  = [tf.int32, tf.string, tf.float32, tf.int32, tf.int32, tf.float32, tf.string, tf.string, tf.string, tf.string]
dataset = tf.data.experimental.CsvDataset(titanic_file, titanic_types , header=True)

for line in dataset.take(10):
  print([item.numpy() for item in line])

# [cell 86]
# %%writefile missing.csv
with open('missing.csv', 'w') as f:
  f.write('1,2,3,4\n,2,3,4\n1,,3,4\n1,2,,4\n1,2,3,\n,,,\n')

# [cell 87]
# Creates a dataset that reads all of the records from two CSV files, each with
# four float columns which may have missing values.

record_defaults = [999,999,999,999]
dataset = tf.data.experimental.CsvDataset("missing.csv", record_defaults)
dataset = dataset.map(lambda *items: tf.stack(items))
show((dataset))

# [cell 88]
for line in dataset:
  print(line.numpy())

# [cell 90]
# Creates a dataset that reads all of the records from two CSV files with
# headers, extracting float data from columns 2 and 4.
record_defaults = [999, 999] # Only provide defaults for the selected columns
dataset = tf.data.experimental.CsvDataset("missing.csv", record_defaults, select_cols=[1, 3])
dataset = dataset.map(lambda *items: tf.stack(items))
show((dataset))

# [cell 91]
for line in dataset:
  print(line.numpy())

# [cell 94]
flowers_root = flowers  # tf.keras.utils.get_file('flower_photos', 'https://storage.googleapis.com/download.tensorflow.org/example_images/flower_photos.tgz', untar=True)
flowers_root = pathlib.Path(flowers_root)

# [cell 97]
for item in flowers_root.glob("*"):
  print(item.name)

# [cell 99]
list_ds = tf.data.Dataset.list_files(str(flowers_root/'*/*'), shuffle=False)

for f in list_ds.take(5):
  print(f.numpy())

# [cell 101]
def process_path(file_path):
  label = tf.strings.split(file_path, os.sep)[-2]
  return tf.io.read_file(file_path), label

labeled_ds = list_ds.map(process_path)

# [cell 102]
for image_raw, label_text in labeled_ds.take(1):
  print(repr(image_raw.numpy()[:100]))
  print()
  print(label_text.numpy())

# [cell 105]
inc_dataset = tf.data.Dataset.range(100)
dec_dataset = tf.data.Dataset.range(0, -100, -1)
dataset = tf.data.Dataset.zip((inc_dataset, dec_dataset))
batched_dataset = dataset.batch(4)

for batch in batched_dataset.take(4):
  print([arr.numpy() for arr in batch])

# [cell 107]
show((batched_dataset))

# [cell 109]
batched_dataset = dataset.batch(7, drop_remainder=True)
show((batched_dataset))

# [cell 111]
dataset = tf.data.Dataset.range(100)
dataset = dataset.map(lambda x: tf.fill([tf.cast(x, tf.int32)], x))
dataset = dataset.padded_batch(4, padded_shapes=(None,))

for batch in dataset.take(2):
  print(batch.numpy())
  print()

# [cell 115]
titanic_file = os.path.abspath("train.csv")  # tf.keras.utils.get_file("train.csv", "https://storage.googleapis.com/tf-datasets/titanic/train.csv")
titanic_lines = tf.data.TextLineDataset(titanic_file)

# [cell 116]
def plot_batch_sizes(ds):
  batch_sizes = [batch.shape[0] for batch in ds]
  plt.bar(range(len(batch_sizes)), batch_sizes)
  plt.xlabel('Batch number')
  plt.ylabel('Batch size')

# [cell 118]
titanic_batches = titanic_lines.repeat(3).batch(128)
show((plot_batch_sizes(titanic_batches)))

# [cell 120]
titanic_batches = titanic_lines.batch(128).repeat(3)

show((plot_batch_sizes(titanic_batches)))

# [cell 122]
epochs = 3
dataset = titanic_lines.batch(128)

for epoch in range(epochs):
  for batch in dataset:
    print(batch.shape)
  print("End of epoch: ", epoch)

# [cell 125]
lines = tf.data.TextLineDataset(titanic_file)
counter = tf.data.experimental.Counter()

dataset = tf.data.Dataset.zip((counter, lines))
# dataset = dataset.shuffle(buffer_size=100)  (left out: determinism)
dataset = dataset.batch(20)
show((dataset))

# [cell 127]
n,line_batch = next(iter(dataset))
print(n.numpy())

# [cell 129]
dataset = tf.data.Dataset.zip((counter, lines))
shuffled = dataset.batch(10).repeat(2)  # .shuffle(buffer_size=100) left out

print("Here are the item ID's near the epoch boundary:\n")
for n, line_batch in shuffled.skip(60).take(5):
  print(n.numpy())

# [cell 130]
shuffle_repeat = [n.numpy().mean() for n, line_batch in shuffled]
plt.plot(shuffle_repeat, label="shuffle().repeat()")
plt.ylabel("Mean item ID")
show((plt.legend()))

# [cell 132]
dataset = tf.data.Dataset.zip((counter, lines))
shuffled = dataset.repeat(2).batch(10)  # .shuffle(buffer_size=100) left out

print("Here are the item ID's near the epoch boundary:\n")
for n, line_batch in shuffled.skip(55).take(15):
  print(n.numpy())

# [cell 133]
repeat_shuffle = [n.numpy().mean() for n, line_batch in shuffled]

plt.plot(shuffle_repeat, label="shuffle().repeat()")
plt.plot(repeat_shuffle, label="repeat().shuffle()")
plt.ylabel("Mean item ID")
show((plt.legend()))

# [cell 136]
list_ds = tf.data.Dataset.list_files(str(flowers_root/'*/*'), shuffle=False)

# [cell 138]
# Reads an image from a file, decodes it into a dense tensor, and resizes it
# to a fixed shape.
def parse_image(filename):
  parts = tf.strings.split(filename, os.sep)
  label = parts[-2]

  image = tf.io.read_file(filename)
  image = tf.io.decode_jpeg(image)
  image = tf.image.convert_image_dtype(image, tf.float32)
  image = tf.image.resize(image, [128, 128])
  return image, label

# [cell 140]
file_path = next(iter(list_ds))
image, label = parse_image(file_path)

def show(image, label):
  plt.figure()
  plt.imshow(image)
  plt.title(label.numpy().decode('utf-8'))
  plt.axis('off')

show(image, label)

# [cell 142]
images_ds = list_ds.map(parse_image)

for image, label in images_ds.take(2):
  show(image, label)

# [cell 145]
import scipy.ndimage as ndimage

@tf.py_function(Tout=tf.float32)
def random_rotate_image(image):
  image = ndimage.rotate(image, np.random.uniform(-30, 30), reshape=False)
  return image

# [cell 146]
image, label = next(iter(images_ds))
image = random_rotate_image(image)
show(image, label)

# [cell 148]
def tf_random_rotate_image(image, label):
  im_shape = image.shape
  image = random_rotate_image(image)
  image.set_shape(im_shape)
  return image, label

# [cell 149]
rot_ds = images_ds.map(tf_random_rotate_image)

for image, label in rot_ds.take(2):
  show(image, label)

# [cell 151]
fsns_test_file = os.path.abspath("fsns.tfrec")  # tf.keras.utils.get_file("fsns.tfrec", "https://storage.googleapis.com/download.tensorflow.org/data/fsns-20160927/testdata/fsns-00000-of-00001")
dataset = tf.data.TFRecordDataset(filenames = [fsns_test_file])
_show((dataset))

# [cell 153]
raw_example = next(iter(dataset))
parsed = tf.train.Example.FromString(raw_example.numpy())

feature = parsed.features.feature
raw_img = feature['image/encoded'].bytes_list.value[0]
img = tf.image.decode_png(raw_img)
plt.imshow(img)
plt.axis('off')
_ = plt.title(feature["image/text"].bytes_list.value[0])

# [cell 154]
raw_example = next(iter(dataset))

# [cell 155]
def tf_parse(eg):
  example = tf.io.parse_example(
      eg[tf.newaxis], {
          'image/encoded': tf.io.FixedLenFeature(shape=(), dtype=tf.string),
          'image/text': tf.io.FixedLenFeature(shape=(), dtype=tf.string)
      })
  return example['image/encoded'][0], example['image/text'][0]

# [cell 156]
img, txt = tf_parse(raw_example)
print(txt.numpy())
print(repr(img.numpy()[:20]), "...")

# [cell 157]
decoded = dataset.map(tf_parse)
_show((decoded))

# [cell 158]
image_batch, text_batch = next(iter(decoded.batch(10)))
_show((image_batch.shape))

# [cell 162]
range_ds = tf.data.Dataset.range(100000)

# [cell 165]
batches = range_ds.batch(10, drop_remainder=True)

for batch in batches.take(5):
  print(batch.numpy())

# [cell 167]
def dense_1_step(batch):
  # Shift features and labels one step relative to each other.
  return batch[:-1], batch[1:]

predict_dense_1_step = batches.map(dense_1_step)

for features, label in predict_dense_1_step.take(3):
  print(features.numpy(), " => ", label.numpy())

# [cell 169]
batches = range_ds.batch(15, drop_remainder=True)

def label_next_5_steps(batch):
  return (batch[:-5],   # Inputs: All except the last 5 steps
          batch[-5:])   # Labels: The last 5 steps

predict_5_steps = batches.map(label_next_5_steps)

for features, label in predict_5_steps.take(3):
  print(features.numpy(), " => ", label.numpy())

# [cell 171]
feature_length = 10
label_length = 3

features = range_ds.batch(feature_length, drop_remainder=True)
labels = range_ds.batch(feature_length).skip(1).map(lambda labels: labels[:label_length])

predicted_steps = tf.data.Dataset.zip((features, labels))

for features, label in predicted_steps.take(5):
  print(features.numpy(), " => ", label.numpy())

# [cell 174]
window_size = 5

windows = range_ds.window(window_size, shift=1)
for sub_ds in windows.take(5):
  print(sub_ds)

# [cell 176]
for x in windows.flat_map(lambda x: x).take(30):
  print(x.numpy(), end=' ')

# [cell 178]
def sub_to_batch(sub):
  return sub.batch(window_size, drop_remainder=True)

for example in windows.flat_map(sub_to_batch).take(5):
  print(example.numpy())

# [cell 180]
def make_window_dataset(ds, window_size=5, shift=1, stride=1):
  windows = ds.window(window_size, shift=shift, stride=stride)

  def sub_to_batch(sub):
    return sub.batch(window_size, drop_remainder=True)

  windows = windows.flat_map(sub_to_batch)
  return windows

# [cell 181]
ds = make_window_dataset(range_ds, window_size=10, shift = 5, stride=3)

for example in ds.take(10):
  print(example.numpy())

# [cell 183]
dense_labels_ds = ds.map(dense_1_step)

for inputs,labels in dense_labels_ds.take(3):
  print(inputs.numpy(), "=>", labels.numpy())

# [cell 185]
def _creditcard_like(path):
  # creditcard.csv: Time, V1..V28, Amount (floats) and Class (0 or 1, 2 % ones), 3000 rows
  rs = np.random.RandomState(4)
  with open(path.replace('.zip', '.csv'), 'w') as f:
    f.write(','.join(['"Time"'] + ['"V%d"' % i for i in range(1, 29)] + ['"Amount"', '"Class"']) + '\n')
    for i in range(3000):
      f.write(','.join(['%.1f' % i] + ['%.6f' % v for v in rs.normal(size=28)]
                       + ['%.2f' % rs.uniform(0, 300), '"%d"' % (rs.uniform() < 0.02)]) + '\n')
  return path
zip_path = _creditcard_like(os.path.abspath('creditcard.zip'))  # tf.keras.utils.get_file(origin='https://storage.googleapis.com/download.tensorflow.org/data/creditcard.zip', fname='creditcard.zip', extract=True)

csv_path = zip_path.replace('.zip', '.csv')

# [cell 186]
creditcard_ds = tf.data.experimental.make_csv_dataset(
    csv_path, batch_size=1024, label_name="Class",
    # Set the column types: 30 floats and an int.
    column_defaults=[float()]*30+[int()], shuffle=False)

# [cell 188]
def count(counts, batch):
  features, labels = batch
  class_1 = labels == 1
  class_1 = tf.cast(class_1, tf.int32)

  class_0 = labels == 0
  class_0 = tf.cast(class_0, tf.int32)

  counts['class_0'] += tf.reduce_sum(class_0)
  counts['class_1'] += tf.reduce_sum(class_1)

  return counts

# [cell 189]
counts = creditcard_ds.take(10).reduce(
    initial_state={'class_0': 0, 'class_1': 0},
    reduce_func = count)

counts = np.array([counts['class_0'].numpy(),
                   counts['class_1'].numpy()]).astype(np.float32)

fractions = counts/counts.sum()
print(fractions)

# [cell 193]
negative_ds = (
  creditcard_ds
    .unbatch()
    .filter(lambda features, label: label==0)
    .repeat())
positive_ds = (
  creditcard_ds
    .unbatch()
    .filter(lambda features, label: label==1)
    .repeat())

# [cell 194]
for features, label in positive_ds.batch(10).take(1):
  print(label.numpy())

# [cell 196]
balanced_ds = tf.data.Dataset.sample_from_datasets(
    [negative_ds, positive_ds], [0.5, 0.5]).batch(10)

# [cell 198]
for features, labels in balanced_ds.take(10):
  pass  # print(labels.numpy()): TF's generator's draws

# [cell 201]
def class_func(features, label):
  return label

# [cell 203]
resample_ds = (
    creditcard_ds
    .unbatch()
    .rejection_resample(class_func, target_dist=[0.5,0.5],
                        initial_dist=fractions)
    .batch(10))

# [cell 205]
balanced_ds = resample_ds.map(lambda extra_label, features_and_label: features_and_label)

# [cell 207]
for features, labels in balanced_ds.take(10):
  pass  # print(labels.numpy()): TF's generator's draws

# [cell 210]
range_ds = tf.data.Dataset.range(20)

iterator = iter(range_ds)
ckpt = tf.train.Checkpoint(step=tf.Variable(0), iterator=iterator)
manager = tf.train.CheckpointManager(ckpt, 'my_ckpt', max_to_keep=3)

print([next(iterator).numpy() for _ in range(5)])

save_path = manager.save()

print([next(iterator).numpy() for _ in range(5)])

ckpt.restore(manager.latest_checkpoint)

print([next(iterator).numpy() for _ in range(5)])

# [cell 214]
train, test = _mnist_like(256, 64)  # tf.keras.datasets.fashion_mnist.load_data()

images, labels = train
images = images/255.0
labels = labels.astype(np.int32)

# [cell 215]
fmnist_train_ds = tf.data.Dataset.from_tensor_slices((images, labels))
fmnist_train_ds = fmnist_train_ds.batch(32)  # .shuffle(5000) left out

model = tf.keras.Sequential([
  tf.keras.layers.Flatten(),
  tf.keras.layers.Dense(10)
])

_show((model.compile(optimizer='adam',
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=['accuracy'])))

# [cell 217]
_show((model.fit(fmnist_train_ds, epochs=2)))

# [cell 219]
_show((model.fit(fmnist_train_ds.repeat(), epochs=2, steps_per_epoch=20)))

# [cell 221]
loss, accuracy = model.evaluate(fmnist_train_ds)
print("Loss :", loss)
print("Accuracy :", accuracy)

# [cell 223]
loss, accuracy = model.evaluate(fmnist_train_ds.repeat(), steps=10)
print("Loss :", loss)
print("Accuracy :", accuracy)

# [cell 225]
predict_ds = tf.data.Dataset.from_tensor_slices(images).batch(32)
result = model.predict(predict_ds, steps = 10)
print(result.shape)

# [cell 227]
result = model.predict(fmnist_train_ds, steps = 10)
print(result.shape)

