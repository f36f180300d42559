# TFRecord and tf.train.Example: tensorflow/docs site/en/tutorials/load_data/tfrecord.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/load_data/tfrecord.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: strings, io
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the two downloaded photographs are JPEG files of random pixels (21x32 and 32x19), written by Pillow
# - sizes: 10,000 observations are 100
# - serialize_example serializes with deterministic=True: the bytes it returns are shown, and
#   protobuf orders a map's entries (the Features' feature map) per process otherwise;
# - _int64_feature passes int(value): protobuf 7 (installed with TF 2.21 here) takes no bool for an Int64List, which the tutorial's True and feature0 are
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

import numpy as np
import IPython.display as display

# [cell 11]
# The following functions can be used to convert a value to a type compatible
# with tf.train.Example.

def _bytes_feature(value):
  """Returns a bytes_list from a string / byte."""
  if isinstance(value, type(tf.constant(0))):
    value = value.numpy() # BytesList won't unpack a string from an EagerTensor.
  return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))

def _float_feature(value):
  """Returns a float_list from a float / double."""
  return tf.train.Feature(float_list=tf.train.FloatList(value=[value]))

def _int64_feature(value):
  """Returns an int64_list from a bool / enum / int / uint."""
  return tf.train.Feature(int64_list=tf.train.Int64List(value=[int(value)]))

# [cell 14]
print(_bytes_feature(b'test_string'))
print(_bytes_feature(u'test_bytes'.encode('utf-8')))

print(_float_feature(np.exp(1)))

print(_int64_feature(True))
print(_int64_feature(1))

# [cell 16]
feature = _float_feature(np.exp(1))

show(feature.SerializeToString())

# [cell 20]
# The number of observations in the dataset.
n_observations = int(1e2)

# Boolean feature, encoded as False or True.
feature0 = np.random.choice([False, True], n_observations)

# Integer feature, random from 0 to 4.
feature1 = np.random.randint(0, 5, n_observations)

# String feature.
strings = np.array([b'cat', b'dog', b'chicken', b'horse', b'goat'])
feature2 = strings[feature1]

# Float feature, from a standard normal distribution.
feature3 = np.random.randn(n_observations)

# [cell 22]
@tf.py_function(Tout=tf.string)
def serialize_example(feature0, feature1, feature2, feature3):
  """
  Creates a tf.train.Example message ready to be written to a file.
  """
  # Create a dictionary mapping the feature name to the tf.train.Example-compatible
  # data type.
  feature = {
      'feature0': _int64_feature(feature0),
      'feature1': _int64_feature(feature1),
      'feature2': _bytes_feature(feature2),
      'feature3': _float_feature(feature3),
  }

  # Create a Features message using tf.train.Example.

  example_proto = tf.train.Example(features=tf.train.Features(feature=feature))
  return example_proto.SerializeToString(deterministic=True)

# [cell 24]
# This is an example observation from the dataset.

example_observation = [False, 4, b'goat', 0.9876]
serialized_example = serialize_example(*example_observation)
show(serialized_example)

# [cell 26]
example_proto = tf.train.Example.FromString(serialized_example.numpy())
show(example_proto)

# [cell 33]
filename = 'test.tfrecord'

# [cell 34]
# Write the `tf.train.Example` observations to the file.
with tf.io.TFRecordWriter(filename) as writer:
  for i in range(n_observations):
    example = serialize_example(feature0[i], feature1[i], feature2[i], feature3[i])
    writer.write(example.numpy())

# [cell 35]
# !du -sh {filename}

# [cell 37]
filenames = [filename]
raw_dataset = tf.data.TFRecordDataset(filenames)
show(raw_dataset)

# [cell 38]
for raw_record in raw_dataset.take(1):
  example = tf.train.Example()
  example.ParseFromString(raw_record.numpy())
  print(example)

# [cell 40]
result = {}
# example.features.feature is the dictionary
for key, feature in example.features.feature.items():
  # The values are the Feature objects which contain a `kind` which contains:
  # one of three fields: bytes_list, float_list, int64_list

  kind = feature.WhichOneof('kind')
  result[key] = np.array(getattr(feature, kind).value)

show(result)

# [cell 43]
filenames = [filename]
raw_dataset = tf.data.TFRecordDataset(filenames)
show(raw_dataset)

# [cell 45]
for raw_record in raw_dataset.take(10):
  print(repr(raw_record))

# [cell 47]
# Create a description of the features.
feature_description = {
    'feature0': tf.io.FixedLenFeature([], tf.int64, default_value=0),
    'feature1': tf.io.FixedLenFeature([], tf.int64, default_value=0),
    'feature2': tf.io.FixedLenFeature([], tf.string, default_value=''),
    'feature3': tf.io.FixedLenFeature([], tf.float32, default_value=0.0),
}

def _parse_function(example_proto):
  # Parse the input `tf.train.Example` proto using the dictionary above.
  return tf.io.parse_single_example(example_proto, feature_description)

# [cell 49]
parsed_dataset = raw_dataset.map(_parse_function)
show(parsed_dataset)

# [cell 51]
for parsed_record in parsed_dataset.take(10):
  print(repr(parsed_record))

# [cell 56]
def _jpeg(name, h, w, seed):
  from PIL import Image
  rs = np.random.RandomState(seed)
  Image.fromarray(rs.randint(0, 256, (h, w, 3)).astype("uint8")).save(name, quality=90)
  return os.path.abspath(name)
cat_in_snow = _jpeg('320px-Felis_catus-cat_on_snow.jpg', 21, 32, 0)
williamsburg_bridge = _jpeg('194px-New_East_River_Bridge_from_Brooklyn_det.4a09796u.jpg', 32, 19, 1)

# [cell 57]
display.show(display.Image(filename=cat_in_snow))
show(display.show(display.HTML('Image cc-by: <a "href=https://commons.wikimedia.org/wiki/File:Felis_catus-cat_on_snow.jpg">Von.grzanka</a>')))

# [cell 58]
display.show(display.Image(filename=williamsburg_bridge))
show(display.show(display.HTML('<a "href=https://commons.wikimedia.org/wiki/File:New_East_River_Bridge_from_Brooklyn_det.4a09796u.jpg">From Wikimedia</a>')))

# [cell 61]
image_labels = {
    cat_in_snow : 0,
    williamsburg_bridge : 1,
}

# [cell 62]
# This is an example, just using the cat image.
image_string = open(cat_in_snow, 'rb').read()

label = image_labels[cat_in_snow]

# Create a dictionary with features that may be relevant.
def image_example(image_string, label):
  image_shape = tf.io.decode_jpeg(image_string).shape

  feature = {
      'height': _int64_feature(image_shape[0]),
      'width': _int64_feature(image_shape[1]),
      'depth': _int64_feature(image_shape[2]),
      'label': _int64_feature(label),
      'image_raw': _bytes_feature(image_string),
  }

  return tf.train.Example(features=tf.train.Features(feature=feature))

for line in str(image_example(image_string, label)).split('\n')[:15]:
  print(line)
print('...')

# [cell 64]
# Write the raw image files to `images.tfrecords`.
# First, process the two images into `tf.train.Example` messages.
# Then, write to a `.tfrecords` file.
record_file = 'images.tfrecords'
with tf.io.TFRecordWriter(record_file) as writer:
  for filename, label in image_labels.items():
    image_string = open(filename, 'rb').read()
    tf_example = image_example(image_string, label)
    writer.write(tf_example.SerializeToString())

# [cell 65]
# !du -sh {record_file}

# [cell 67]
raw_image_dataset = tf.data.TFRecordDataset('images.tfrecords')

# Create a dictionary describing the features.
image_feature_description = {
    'height': tf.io.FixedLenFeature([], tf.int64),
    'width': tf.io.FixedLenFeature([], tf.int64),
    'depth': tf.io.FixedLenFeature([], tf.int64),
    'label': tf.io.FixedLenFeature([], tf.int64),
    'image_raw': tf.io.FixedLenFeature([], tf.string),
}

def _parse_image_function(example_proto):
  # Parse the input tf.train.Example proto using the dictionary above.
  return tf.io.parse_single_example(example_proto, image_feature_description)

parsed_image_dataset = raw_image_dataset.map(_parse_image_function)
show(parsed_image_dataset)

# [cell 69]
for image_features in parsed_image_dataset:
  image_raw = image_features['image_raw'].numpy()
  display.show(display.Image(data=image_raw))
