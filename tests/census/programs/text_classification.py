# Basic text classification: tensorflow/docs site/en/tutorials/keras/text_classification.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/keras/text_classification.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: strings
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the IMDB download is 64 generated reviews (32 train, 32 test, 4 unsup) of random words
# - the version printed is left out
# - sizes: batch 32 is 8, max_features 10000 is 200, sequence_length 250 is 20, index 1287 and 313 are 12 and 3; epochs 10 is 2
# - determinism: the datasets are not shuffled (TF's shuffle order is TF's generator's); Dropout(0.2) is Dropout(0.0); the model's weights are set from NumPy
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

# [cell 6]
import matplotlib.pyplot as plt
import os
import re
import shutil
import string
import tensorflow as tf

from tensorflow.keras import layers
from tensorflow.keras import losses

# [cell 7]
# print(tf.__version__)

# [cell 10]
url = "https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz"

def _imdb_like(root):
  # 16 reviews a class in train and test, and 4 unsup ones, of words drawn at random
  words = ("the movie was great good bad terrible plot actor film <br /> story boring fun "
           "loved hated it, and. a an of!").split()
  rs = np.random.RandomState(0)
  for split in ("train", "test"):
    for cls in ("neg", "pos") + (("unsup",) if split == "train" else ()):
      os.makedirs(os.path.join(root, "aclImdb", split, cls))
      for i in range(16 if cls != "unsup" else 4):
        name = "1181_9.txt" if (split, cls, i) == ("train", "pos", 0) else f"{i}_{rs.randint(1, 11)}.txt"
        with open(os.path.join(root, "aclImdb", split, cls, name), "w") as f:
          f.write(" ".join(rs.choice(words, rs.randint(5, 30))).capitalize())
  return root
dataset = _imdb_like(os.path.abspath("aclImdb_v1"))

dataset_dir = os.path.join(os.path.dirname(dataset), 'aclImdb_v1')

# [cell 11]
show(os.listdir(dataset_dir))

# [cell 12]
train_dir = os.path.join(dataset_dir, 'aclImdb', 'train')
test_dir = os.path.join(dataset_dir, 'aclImdb', 'test')
show(os.listdir(train_dir))

# [cell 14]
sample_file = os.path.join(train_dir, 'pos', '1181_9.txt')
with open(sample_file) as f:
  print(f.read())

# [cell 17]
remove_dir = os.path.join(train_dir, 'unsup')
show(shutil.rmtree(remove_dir))

# [cell 19]
batch_size = 8
seed = 42

raw_train_ds = tf.keras.utils.text_dataset_from_directory(
    train_dir,
    batch_size=batch_size,
    validation_split=0.2,
    subset='training',
    seed=seed, shuffle=False)

# [cell 21]
for text_batch, label_batch in raw_train_ds.take(1):
  for i in range(3):
    print("Review", text_batch.numpy()[i])
    print("Label", label_batch.numpy()[i])

# [cell 23]
print("Label 0 corresponds to", raw_train_ds.class_names[0])
print("Label 1 corresponds to", raw_train_ds.class_names[1])

# [cell 26]
raw_val_ds = tf.keras.utils.text_dataset_from_directory(
    train_dir,
    batch_size=batch_size,
    validation_split=0.2,
    subset='validation',
    seed=seed, shuffle=False)

# [cell 27]
raw_test_ds = tf.keras.utils.text_dataset_from_directory(
    test_dir,
    batch_size=batch_size, shuffle=False)

# [cell 30]
def custom_standardization(input_data):
  lowercase = tf.strings.lower(input_data)
  stripped_html = tf.strings.regex_replace(lowercase, '<br />', ' ')
  return tf.strings.regex_replace(stripped_html,
                                  '[%s]' % re.escape(string.punctuation),
                                  '')

# [cell 32]
max_features = 200
sequence_length = 20

vectorize_layer = layers.TextVectorization(
    standardize=custom_standardization,
    max_tokens=max_features,
    output_mode='int',
    output_sequence_length=sequence_length)

# [cell 35]
# Make a text-only dataset (without labels), then call adapt
train_text = raw_train_ds.map(lambda x, y: x)
show(vectorize_layer.adapt(train_text))

# [cell 37]
def vectorize_text(text, label):
  text = tf.expand_dims(text, -1)
  return vectorize_layer(text), label

# [cell 38]
# retrieve a batch (of 32 reviews and labels) from the dataset
text_batch, label_batch = next(iter(raw_train_ds))
first_review, first_label = text_batch[0], label_batch[0]
print("Review", first_review)
print("Label", raw_train_ds.class_names[first_label])
print("Vectorized review", vectorize_text(first_review, first_label))

# [cell 40]
print("1287 ---> ",vectorize_layer.get_vocabulary()[12])
print(" 313 ---> ",vectorize_layer.get_vocabulary()[3])
print('Vocabulary size: {}'.format(len(vectorize_layer.get_vocabulary())))

# [cell 42]
train_ds = raw_train_ds.map(vectorize_text)
val_ds = raw_val_ds.map(vectorize_text)
test_ds = raw_test_ds.map(vectorize_text)

# [cell 44]
AUTOTUNE = tf.data.AUTOTUNE

train_ds = train_ds.cache().prefetch(buffer_size=AUTOTUNE)
val_ds = val_ds.cache().prefetch(buffer_size=AUTOTUNE)
test_ds = test_ds.cache().prefetch(buffer_size=AUTOTUNE)

# [cell 46]
embedding_dim = 16

# [cell 47]
model = tf.keras.Sequential([
  layers.Embedding(max_features, embedding_dim),
  layers.Dropout(0.0),
  layers.GlobalAveragePooling1D(),
  layers.Dropout(0.0),
  layers.Dense(1, activation='sigmoid')])

model.build((None, sequence_length))
model.set_weights(weights_like(model))
show(model.summary())

# [cell 50]
show(model.compile(loss=losses.BinaryCrossentropy(),
              optimizer='adam',
              metrics=[tf.metrics.BinaryAccuracy(threshold=0.5)]))

# [cell 52]
epochs = 2
history = model.fit(
    train_ds,
    validation_data=val_ds,
    epochs=epochs)

# [cell 54]
loss, accuracy = model.evaluate(test_ds)

print("Loss: ", loss)
print("Accuracy: ", accuracy)

# [cell 57]
history_dict = history.history
show(history_dict.keys())

# [cell 59]
acc = history_dict['binary_accuracy']
val_acc = history_dict['val_binary_accuracy']
loss = history_dict['loss']
val_loss = history_dict['val_loss']

epochs = range(1, len(acc) + 1)

# "bo" is for "blue dot"
plt.plot(epochs, loss, 'bo', label='Training loss')
# b is for "solid blue line"
plt.plot(epochs, val_loss, 'b', label='Validation loss')
plt.title('Training and validation loss')
plt.xlabel('Epochs')
plt.ylabel('Loss')
plt.legend()

plt.show()

# [cell 60]
plt.plot(epochs, acc, 'bo', label='Training acc')
plt.plot(epochs, val_acc, 'b', label='Validation acc')
plt.title('Training and validation accuracy')
plt.xlabel('Epochs')
plt.ylabel('Accuracy')
plt.legend(loc='lower right')

plt.show()

# [cell 63]
export_model = tf.keras.Sequential([
  vectorize_layer,
  model,
  layers.Activation('sigmoid')
])

export_model.compile(
    loss=losses.BinaryCrossentropy(from_logits=False), optimizer="adam", metrics=['accuracy']
)

# Test it with `raw_test_ds`, which yields raw strings
metrics = export_model.evaluate(raw_test_ds, return_dict=True)
print(metrics)

# [cell 65]
examples = tf.constant([
  "The movie was great!",
  "The movie was okay.",
  "The movie was terrible..."
])

show(export_model.predict(examples))
