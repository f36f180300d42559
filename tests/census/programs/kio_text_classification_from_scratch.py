# Text classification from scratch: keras-team/keras-io examples/nlp/text_classification_from_scratch.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/nlp/text_classification_from_scratch.py
# commit: 01ae2db402523e96f804c6fc3b0a59582e6a671e
# families: strings
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the IMDB download (keras.utils.get_file) is 40 + 16 generated reviews of random words in
#   its folders (aclImdb/train/{pos,neg}, aclImdb/test/{pos,neg}; no unsup folder, which the
#   source's shell block removes), written by the program;
# - determinism: the three text_dataset_from_directory calls take shuffle=False (TF's shuffle order is
#   TF's generator's); Dropout(0.5) are Dropout(0.0);
# - sizes: batch_size 32 is 8; embedding_dim 128 is 16, sequence_length 500 is 40, the Conv1D(128)
#   are Conv1D(8), Dense(128) is Dense(8); epochs: 3 are 2; fit's history and evaluate's results shown
#

# [cell 1]
import os

os.environ["KERAS_BACKEND"] = "tensorflow"

import keras
import tensorflow as tf
import numpy as np
from keras import layers

# [cell 2]
def _imdb_like(root):
    # 20 reviews a class in train, 8 in test, of words drawn at random
    words = ("the movie was great good bad terrible plot actor film <br /> story boring fun "
             "loved hated it, and. a an of!").split()
    rs = np.random.RandomState(0)
    for split, n in (("train", 20), ("test", 8)):
        for cls in ("neg", "pos"):
            os.makedirs(os.path.join(root, "aclImdb", split, cls))
            for i in range(n):
                with open(os.path.join(root, "aclImdb", split, cls, f"{i}_{rs.randint(1, 11)}.txt"), "w") as f:
                    f.write(" ".join(rs.choice(words, rs.randint(5, 30))).capitalize())
    return os.path.join(root, "aclImdb_v1.tar.gz")
dataset_url = "https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz"
dataset_zip = _imdb_like(os.path.abspath("."))
# The dataset is extracted into the same folder as the zip
dataset_dir = os.path.join(os.path.dirname(dataset_zip), "aclImdb")

# [cell 3]
batch_size = 8
train_dir = os.path.join(dataset_dir, "train")
test_dir = os.path.join(dataset_dir, "test")

raw_train_ds = keras.utils.text_dataset_from_directory(
    train_dir,
    batch_size=batch_size,
    validation_split=0.2,
    subset="training",
    seed=1337,
    class_names=["pos", "neg"],
    shuffle=False,
)
raw_val_ds = keras.utils.text_dataset_from_directory(
    train_dir,
    batch_size=batch_size,
    validation_split=0.2,
    subset="validation",
    seed=1337,
    class_names=["pos", "neg"],
    shuffle=False,
)
raw_test_ds = keras.utils.text_dataset_from_directory(test_dir, batch_size=batch_size, shuffle=False)

print(f"Number of batches in raw_train_ds: {raw_train_ds.cardinality()}")
print(f"Number of batches in raw_val_ds: {raw_val_ds.cardinality()}")
print(f"Number of batches in raw_test_ds: {raw_test_ds.cardinality()}")

# [cell 4]
# It's important to take a look at your raw data to ensure your normalization
# and tokenization will work as expected. We can do that by taking a few
# examples from the training set and looking at them.
# This is one of the places where eager execution shines:
# we can just evaluate these tensors using .numpy()
# instead of needing to evaluate them in a Session/Graph context.
for text_batch, label_batch in raw_train_ds.take(1):
    for i in range(5):
        print(text_batch.numpy()[i])
        print(label_batch.numpy()[i])

# [cell 5]
import string
import re


# Having looked at our data above, we see that the raw text contains HTML break
# tags of the form '<br />'. These tags will not be removed by the default
# standardizer (which doesn't strip HTML). Because of this, we will need to
# create a custom standardization function.
def custom_standardization(input_data):
    lowercase = tf.strings.lower(input_data)
    stripped_html = tf.strings.regex_replace(lowercase, "<br />", " ")
    return tf.strings.regex_replace(
        stripped_html, f"[{re.escape(string.punctuation)}]", ""
    )


# Model constants.
max_features = 20000
embedding_dim = 16
sequence_length = 40

# Now that we have our custom standardization, we can instantiate our text
# vectorization layer. We are using this layer to normalize, split, and map
# strings to integers, so we set our 'output_mode' to 'int'.
# Note that we're using the default split function,
# and the custom standardization defined above.
# We also set an explicit maximum sequence length, since the CNNs later in our
# model won't support ragged sequences.
vectorize_layer = keras.layers.TextVectorization(
    standardize=custom_standardization,
    max_tokens=max_features,
    output_mode="int",
    output_sequence_length=sequence_length,
)

# Now that the vectorize_layer has been created, call `adapt` on a text-only
# dataset to create the vocabulary. You don't have to batch, but for very large
# datasets this means you're not keeping spare copies of the dataset in memory.

# Let's make a text-only dataset (no labels):
text_ds = raw_train_ds.map(lambda x, y: x)
# Let's call `adapt`:
vectorize_layer.adapt(text_ds)

# [cell 6]
def vectorize_text(text, label):
    text = tf.expand_dims(text, -1)
    return vectorize_layer(text), label


# Vectorize the data.
train_ds = raw_train_ds.map(vectorize_text)
val_ds = raw_val_ds.map(vectorize_text)
test_ds = raw_test_ds.map(vectorize_text)

# Do async prefetching / buffering of the data for best performance on GPU.
train_ds = train_ds.cache().prefetch(buffer_size=10)
val_ds = val_ds.cache().prefetch(buffer_size=10)
test_ds = test_ds.cache().prefetch(buffer_size=10)

# [cell 7]
# A integer input for vocab indices.
inputs = keras.Input(shape=(None,), dtype="int64")

# Next, we add a layer to map those vocab indices into a space of dimensionality
# 'embedding_dim'.
x = layers.Embedding(max_features, embedding_dim)(inputs)
x = layers.Dropout(0.0)(x)

# Conv1D + global max pooling
x = layers.Conv1D(8, 7, padding="valid", activation="relu", strides=3)(x)
x = layers.Conv1D(8, 7, padding="valid", activation="relu", strides=3)(x)
x = layers.GlobalMaxPooling1D()(x)

# We add a vanilla hidden layer:
x = layers.Dense(8, activation="relu")(x)
x = layers.Dropout(0.0)(x)

# We project onto a single unit output layer, and squash it with a sigmoid:
predictions = layers.Dense(1, activation="sigmoid", name="predictions")(x)

model = keras.Model(inputs, predictions)

# Compile the model with binary crossentropy loss and an adam optimizer.
model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])

# [cell 8]
epochs = 2

# Fit the model using the train and test datasets.
show(model.fit(train_ds, validation_data=val_ds, epochs=epochs))

# [cell 9]
show(model.evaluate(test_ds))

# [cell 10]
# A string input
inputs = keras.Input(shape=(1,), dtype="string")
# Turn strings into vocab indices
indices = vectorize_layer(inputs)
# Turn vocab indices into predictions
outputs = model(indices)

# Our end to end model
end_to_end_model = keras.Model(inputs, outputs)
end_to_end_model.compile(
    loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"]
)

# Test it with `raw_test_ds`, which yields raw strings
show(end_to_end_model.evaluate(raw_test_ds))
