# Load text: tensorflow/docs site/en/tutorials/load_data/text.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/load_data/text.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: strings, ragged, saved_model
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - ported: example 1 (Stack Overflow, cells 6-56) and example 2's loading (cells 62-70); left out:
#   cells 72-118 (example 2's MyTokenizer uses tensorflow_text's UnicodeScriptTokenizer and
#   case_fold_utf8; everything after it reads its tokens) and cells 121-138 (TFDS's IMDB download:
#   tensorflow_datasets); neither library is installed, so cell 6's imports of them are commented
# - data (written by the program itself): the Stack Overflow download (cell 10) is 4 classes of 40
#   train and 16 test questions of words drawn at random (a few words of each language more often),
#   laid out as TF 2's get_file left the archive's contents (stack_overflow/train, /test, README.md)
#   and the path it returned (Keras 3's get_file extracts into a folder of its own, where the
#   source's dataset_dir/'train' is not); the Iliad translations (cell 62) are 3 files of 30 lines
# - sizes: VOCAB_SIZE 10000 is 100, MAX_SEQUENCE_LENGTH 250 is 40, the vocabulary indices 1289 and
#   313 (cell 41) are 12 and 3; epochs 10 are 2 (cells 44 and 48); BUFFER_SIZE, BATCH_SIZE and
#   VALIDATION_SIZE (cell 67) as written
# - cells TF 2.21 itself cannot run are left out (commented): the plot_model lines of cells 43 and 47
#   (Keras 3's plot_model raises "This model has not yet been built" on an unbuilt Sequential) and
#   cell 55 (Keras 3's predict raises "Unrecognized data type" on a Python list of strings)
# - determinism: text_dataset_from_directory gets shuffle=False (cells 17, 23, 24: its dataset's
#   shuffle is TF's generator's), so the validation split is the last 20 % of the files in their
#   folders' order; Dropout(0.5) is Dropout(0.0) (cell 46); cell 68's shuffle is left out
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
import collections
import pathlib

import matplotlib.pyplot as plt
import tensorflow as tf

from tensorflow.keras import layers
from tensorflow.keras import losses
from tensorflow.keras import utils
from tensorflow.keras.layers import TextVectorization

# import tensorflow_datasets as tfds  (not installed: its cells are left out)
# import tensorflow_text as tf_text  (not installed: its cells are left out)

# [cell 10]
data_url = 'https://storage.googleapis.com/download.tensorflow.org/data/stack_overflow_16k.tar.gz'

def _stack_overflow_like(cache_dir):
  # The archive's layout: README.md, train/ and test/, a folder of questions (one .txt each)
  # for each language; a question's words drawn at random, its language's a little more often.
  rs = np.random.RandomState(0)
  common = ("how do i get the a to in of my is this value string list function array error "
            "when not working file use an object class with for from").split()
  own = {"csharp": "linq wpf asp.net datetime int32 visual studio".split(),
         "java": "spring jvm arraylist hashmap maven android".split(),
         "javascript": "jquery dom node angular json callback".split(),
         "python": "django pandas dict numpy pip tuple".split()}
  root = pathlib.Path(cache_dir)
  root.mkdir()
  (root/'README.md').write_text("stack overflow questions, tagged by language (generated)\n")
  for split, n in (("train", 40), ("test", 16)):
    for lang in own:
      (root/split/lang).mkdir(parents=True)
      for i in range(n):
        name = "1755.txt" if (split, lang, i) == ("train", "python", 0) else f"{rs.randint(0, 20000)}_{i}.txt"
        words = [rs.choice(own[lang]) if rs.rand() < 0.3 else rs.choice(common)
                 for _ in range(rs.randint(8, 30))]
        (root/split/lang/name).write_text('"' + " ".join(words) + ' blank?"\n')
  return str(root/'stack_overflow_16k.tar.gz')

dataset_dir = _stack_overflow_like('stack_overflow')  # utils.get_file(origin=data_url, untar=True, cache_dir='stack_overflow', cache_subdir='')

dataset_dir = pathlib.Path(dataset_dir).parent

# [cell 11]
show(list(dataset_dir.iterdir()))

# [cell 12]
train_dir = dataset_dir/'train'
show(list(train_dir.iterdir()))

# [cell 14]
sample_file = train_dir/'python/1755.txt'

with open(sample_file) as f:
  print(f.read())

# [cell 17]
batch_size = 32
seed = 42

raw_train_ds = utils.text_dataset_from_directory(
    train_dir,
    batch_size=batch_size,
    validation_split=0.2,
    subset='training',
    seed=seed, shuffle=False)

# [cell 19]
for text_batch, label_batch in raw_train_ds.take(1):
  for i in range(10):
    print("Question: ", text_batch.numpy()[i])
    print("Label:", label_batch.numpy()[i])

# [cell 21]
for i, label in enumerate(raw_train_ds.class_names):
  print("Label", i, "corresponds to", label)

# [cell 23]
# Create a validation set.
raw_val_ds = utils.text_dataset_from_directory(
    train_dir,
    batch_size=batch_size,
    validation_split=0.2,
    subset='validation',
    seed=seed, shuffle=False)

# [cell 24]
test_dir = dataset_dir/'test'

# Create a test set.
raw_test_ds = utils.text_dataset_from_directory(
    test_dir,
    batch_size=batch_size, shuffle=False)

# [cell 26]
raw_train_ds = raw_train_ds.cache().prefetch(buffer_size=tf.data.AUTOTUNE)
raw_val_ds = raw_val_ds.cache().prefetch(buffer_size=tf.data.AUTOTUNE)
raw_test_ds = raw_test_ds.prefetch(buffer_size=tf.data.AUTOTUNE)

# [cell 30]
VOCAB_SIZE = 100

binary_vectorize_layer = TextVectorization(
    max_tokens=VOCAB_SIZE,
    output_mode='binary')

# [cell 32]
MAX_SEQUENCE_LENGTH = 40

int_vectorize_layer = TextVectorization(
    max_tokens=VOCAB_SIZE,
    output_mode='int',
    output_sequence_length=MAX_SEQUENCE_LENGTH)

# [cell 34]
# Make a text-only dataset (without labels), then call `TextVectorization.adapt`.
train_text = raw_train_ds.map(lambda text, labels: text)
binary_vectorize_layer.adapt(train_text)
int_vectorize_layer.adapt(train_text)

# [cell 36]
# Retrieve a batch (of 32 reviews and labels) from the dataset.
text_batch, label_batch = next(iter(raw_train_ds))
first_question, first_label = text_batch[0], label_batch[0]
print("Question:", first_question)
print("Label:", first_label)

# [cell 38]
print("'binary' vectorized question:",
      list(binary_vectorize_layer(first_question).numpy()))

plt.plot(binary_vectorize_layer(first_question).numpy())
show(plt.xlim(0,1000))

# [cell 39]
print("'int' vectorized question:",
      int_vectorize_layer(first_question).numpy())

# [cell 41]
print("1289 ---> ", int_vectorize_layer.get_vocabulary()[12])
print("313 ---> ", int_vectorize_layer.get_vocabulary()[3])
print("Vocabulary size: {}".format(len(int_vectorize_layer.get_vocabulary())))

# [cell 43]
binary_model = tf.keras.Sequential([
    binary_vectorize_layer,
    layers.Dense(4)])

binary_model.compile(
    loss=losses.SparseCategoricalCrossentropy(from_logits=True),
    optimizer='adam',
    metrics=['accuracy'])

# tf.keras.utils.plot_model(binary_model, show_shapes=True)  (left out: TF 2.21 cannot run it)

# [cell 44]
bin_history = binary_model.fit(
    raw_train_ds, validation_data=raw_val_ds, epochs=2)

print()

# [cell 46]
def create_model(vocab_size, num_labels, vectorizer=None):
  my_layers =[]
  if vectorizer is not None:
    my_layers = [vectorizer]

  my_layers.extend([
      layers.Embedding(vocab_size, 64, mask_zero=True),
      layers.Dropout(0.0),
      layers.Conv1D(64, 5, padding="valid", activation="relu", strides=2),
      layers.GlobalMaxPooling1D(),
      layers.Dense(num_labels)
  ])

  model = tf.keras.Sequential(my_layers)
  return model

# [cell 47]
# `vocab_size` is `VOCAB_SIZE + 1` since `0` is used additionally for padding.
int_model = create_model(vocab_size=VOCAB_SIZE + 1, num_labels=4, vectorizer=int_vectorize_layer)

# tf.keras.utils.plot_model(int_model, show_shapes=True)  (left out: TF 2.21 cannot run it)

# [cell 48]

int_model.compile(
    loss=losses.SparseCategoricalCrossentropy(from_logits=True),
    optimizer='adam',
    metrics=['accuracy'])
int_history = int_model.fit(raw_train_ds, validation_data=raw_val_ds, epochs=2)

# [cell 49]
loss = plt.plot(bin_history.epoch, bin_history.history['loss'], label='bin-loss')
plt.plot(bin_history.epoch, bin_history.history['val_loss'], '--', color=loss[0].get_color(), label='bin-val_loss')

loss = plt.plot(int_history.epoch, int_history.history['loss'], label='int-loss')
plt.plot(int_history.epoch, int_history.history['val_loss'], '--', color=loss[0].get_color(), label='int-val_loss')

plt.legend()
plt.xlabel('Epoch')
show(plt.ylabel('CE/token'))

# [cell 51]
binary_train_ds = raw_train_ds.map(lambda x,y: (binary_vectorize_layer(x), y))
binary_val_ds = raw_val_ds.map(lambda x,y: (binary_vectorize_layer(x), y))
binary_test_ds = raw_test_ds.map(lambda x,y: (binary_vectorize_layer(x), y))

int_train_ds = raw_train_ds.map(lambda x,y: (int_vectorize_layer(x), y))
int_val_ds = raw_val_ds.map(lambda x,y: (int_vectorize_layer(x), y))
int_test_ds = raw_test_ds.map(lambda x,y: (int_vectorize_layer(x), y))

# [cell 53]
show(binary_model.export('bin.tf'))

# [cell 54]
loaded = tf.saved_model.load('bin.tf')

# [cell 55]
# binary_model.predict(['How do you sort a list?'])  (left out: TF 2.21 cannot run it)

# [cell 56]
show(loaded.serve(tf.constant(['How do you sort a list?'])).numpy())

# [cell 62]
DIRECTORY_URL = 'https://storage.googleapis.com/download.tensorflow.org/data/illiad/'
FILE_NAMES = ['cowper.txt', 'derby.txt', 'butler.txt']

def _iliad_like(name):
  # a translation's text file: lines of words, one verse a line
  rs = np.random.RandomState(len(name) + ord(name[0]))
  words = ("Achilles wrath sing goddess the of Greeks Troy ships gods Hector spear and his "
           "with to shield fell").split()
  os.makedirs('datasets', exist_ok=True)
  with open(os.path.join('datasets', name), 'w') as f:
    for i in range(30):
      f.write(' '.join(rs.choice(words, rs.randint(4, 12))) + '\n')
  return os.path.abspath(os.path.join('datasets', name))

for name in FILE_NAMES:
  text_dir = _iliad_like(name)  # utils.get_file(name, origin=DIRECTORY_URL + name)

parent_dir = pathlib.Path(text_dir).parent
show(list(parent_dir.iterdir()))

# [cell 64]
def labeler(example, index):
  return example, tf.cast(index, tf.int64)

# [cell 65]
labeled_data_sets = []

for i, file_name in enumerate(FILE_NAMES):
  lines_dataset = tf.data.TextLineDataset(str(parent_dir/file_name))
  labeled_dataset = lines_dataset.map(lambda ex: labeler(ex, i))
  labeled_data_sets.append(labeled_dataset)

# [cell 67]
BUFFER_SIZE = 50000
BATCH_SIZE = 64
VALIDATION_SIZE = 5000

# [cell 68]
all_labeled_data = labeled_data_sets[0]
for labeled_dataset in labeled_data_sets[1:]:
  all_labeled_data = all_labeled_data.concatenate(labeled_dataset)

# all_labeled_data = all_labeled_data.shuffle(
#     BUFFER_SIZE, reshuffle_each_iteration=False)  (left out: determinism)

# [cell 70]
for text, label in all_labeled_data.take(10):
  print("Sentence: ", text.numpy())
  print("Label:", label.numpy())
