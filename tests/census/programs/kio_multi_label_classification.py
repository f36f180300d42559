# Large-scale multi-label text classification: keras-team/keras-io examples/nlp/multi_label_classification.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/nlp/multi_label_classification.py
# commit: 151f148a618866ed8bde9b752f29ad9cc594df11
# families: strings, ragged
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded
#   (scikit-learn's train_test_split and pandas' sample draw from NumPy's);
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the arXiv CSV download (pd.read_csv of a URL) is _arxiv_like: 320 generated rows in its
#   columns (titles, summaries, terms as a list's repr), written to arxiv_data.csv and read from
#   there; 20 titles repeat, 4 rows have a combination of terms of their own (both dropped by
#   the source's code), a summary's words depend on its terms;
# - determinism: make_dataset's dataset.shuffle(batch_size * 10) for the training set is left
#   out (TF's generator);
# - sizes: Dense(512) and Dense(256) are Dense(32) and Dense(16); epochs 20 are 3;
#   test_df.sample(100) for the inference demo is test_df.sample(10) (the test set has 16 rows)
#

# [cell 1]
from tensorflow.keras import layers
from tensorflow import keras
import tensorflow as tf

from sklearn.model_selection import train_test_split
from ast import literal_eval

import matplotlib.pyplot as plt
import pandas as pd
import numpy as np

# [cell 2]
def _arxiv_like(path, n=300, n_dup=20, n_rare=4):
    # the columns of arxiv_data.csv: titles, summaries, terms (a list's repr)
    rs = np.random.RandomState(0)
    combos = [["cs.LG"], ["cs.CV"], ["cs.LG", "stat.ML"], ["cs.CV", "cs.LG"],
              ["cs.CL"], ["cs.CL", "cs.LG"], ["stat.ML"], ["cs.AI", "cs.LG"]]
    rare = [["eess.IV", "cs.CV"], ["math.OC"], ["cs.RO", "cs.AI"], ["q-bio.NC"]]
    common = ["we", "propose", "a", "method", "for", "the", "model", "data", "results",
              "show", "that", "our", "approach", "in", "of", "and", "with", "on"]
    topic = {t: [f"{t.split('.')[-1].lower()}word{i}" for i in range(12)]
             for t in ["cs.LG", "cs.CV", "stat.ML", "cs.CL", "cs.AI", "eess.IV",
                       "math.OC", "cs.RO", "q-bio.NC"]}
    rows = []
    for i in range(n + n_rare):
        terms = combos[rs.randint(len(combos))] if i < n else rare[i - n]
        words = []
        for _ in range(rs.randint(20, 40)):
            if rs.rand() < 0.5:
                words.append(common[rs.randint(len(common))])
            else:
                t = terms[rs.randint(len(terms))]
                words.append(topic[t][rs.randint(12)])
        rows.append((f"Paper title {i}", " ".join(words).capitalize() + ".", repr(terms)))
    rows += [rows[j] for j in rs.randint(0, n, n_dup)]
    pd.DataFrame(rows, columns=["titles", "summaries", "terms"]).to_csv(path, index=False)
    return path


arxiv_data = pd.read_csv(
    _arxiv_like("arxiv_data.csv")
)
show(arxiv_data.head())

# [cell 3]
print(f"There are {len(arxiv_data)} rows in the dataset.")

# [cell 4]
total_duplicate_titles = sum(arxiv_data["titles"].duplicated())
print(f"There are {total_duplicate_titles} duplicate titles.")

# [cell 5]
arxiv_data = arxiv_data[~arxiv_data["titles"].duplicated()]
print(f"There are {len(arxiv_data)} rows in the deduplicated dataset.")

# There are some terms with occurrence as low as 1.
print(sum(arxiv_data["terms"].value_counts() == 1))

# How many unique terms?
print(arxiv_data["terms"].nunique())

# [cell 6]
# Filtering the rare terms.
arxiv_data_filtered = arxiv_data.groupby("terms").filter(lambda x: len(x) > 1)
show(arxiv_data_filtered.shape)

# [cell 7]
arxiv_data_filtered["terms"] = arxiv_data_filtered["terms"].apply(
    lambda x: literal_eval(x)
)
show(arxiv_data_filtered["terms"].values[:5])

# [cell 8]
test_split = 0.1

# Initial train and test split.
train_df, test_df = train_test_split(
    arxiv_data_filtered,
    test_size=test_split,
    stratify=arxiv_data_filtered["terms"].values,
)

# Splitting the test set further into validation
# and new test sets.
val_df = test_df.sample(frac=0.5)
test_df.drop(val_df.index, inplace=True)

print(f"Number of rows in training set: {len(train_df)}")
print(f"Number of rows in validation set: {len(val_df)}")
print(f"Number of rows in test set: {len(test_df)}")

# [cell 9]
terms = tf.ragged.constant(train_df["terms"].values)
lookup = tf.keras.layers.StringLookup(output_mode="multi_hot")
lookup.adapt(terms)
vocab = lookup.get_vocabulary()


def invert_multi_hot(encoded_labels):
    """Reverse a single multi-hot encoded label to a tuple of vocab terms."""
    hot_indices = np.argwhere(encoded_labels == 1.0)[..., 0]
    return np.take(vocab, hot_indices)


print("Vocabulary:\n")
print(vocab)

# [cell 10]
sample_label = train_df["terms"].iloc[0]
print(f"Original label: {sample_label}")

label_binarized = lookup([sample_label])
print(f"Label-binarized representation: {label_binarized}")

# [cell 11]
show(train_df["summaries"].apply(lambda x: len(x.split(" "))).describe())

# [cell 12]
max_seqlen = 150
batch_size = 128
padding_token = "<pad>"
auto = tf.data.AUTOTUNE


def make_dataset(dataframe, is_train=True):
    labels = tf.ragged.constant(dataframe["terms"].values)
    label_binarized = lookup(labels).numpy()
    dataset = tf.data.Dataset.from_tensor_slices(
        (dataframe["summaries"].values, label_binarized)
    )
    dataset = dataset if is_train else dataset
    return dataset.batch(batch_size)

# [cell 13]
train_dataset = make_dataset(train_df, is_train=True)
validation_dataset = make_dataset(val_df, is_train=False)
test_dataset = make_dataset(test_df, is_train=False)

# [cell 14]
text_batch, label_batch = next(iter(train_dataset))

for i, text in enumerate(text_batch[:5]):
    label = label_batch[i].numpy()[None, ...]
    print(f"Abstract: {text}")
    print(f"Label(s): {invert_multi_hot(label[0])}")
    print(" ")

# [cell 15]
# Source: https://stackoverflow.com/a/18937309/7636462
vocabulary = set()
train_df["summaries"].str.lower().str.split().apply(vocabulary.update)
vocabulary_size = len(vocabulary)
print(vocabulary_size)

# [cell 16]
text_vectorizer = layers.TextVectorization(
    max_tokens=vocabulary_size, ngrams=2, output_mode="tf_idf"
)

# `TextVectorization` layer needs to be adapted as per the vocabulary from our
# training set.
with tf.device("/CPU:0"):
    text_vectorizer.adapt(train_dataset.map(lambda text, label: text))

train_dataset = train_dataset.map(
    lambda text, label: (text_vectorizer(text), label), num_parallel_calls=auto
).prefetch(auto)
validation_dataset = validation_dataset.map(
    lambda text, label: (text_vectorizer(text), label), num_parallel_calls=auto
).prefetch(auto)
test_dataset = test_dataset.map(
    lambda text, label: (text_vectorizer(text), label), num_parallel_calls=auto
).prefetch(auto)

# [cell 17]
def make_model():
    shallow_mlp_model = keras.Sequential(
        [
            layers.Dense(32, activation="relu"),
            layers.Dense(16, activation="relu"),
            layers.Dense(lookup.vocabulary_size(), activation="sigmoid"),
        ]  # More on why "sigmoid" has been used here in a moment.
    )
    return shallow_mlp_model

# [cell 18]
epochs = 3

shallow_mlp_model = make_model()
shallow_mlp_model.compile(
    loss="binary_crossentropy", optimizer="adam", metrics=["binary_accuracy"]
)

history = shallow_mlp_model.fit(
    train_dataset, validation_data=validation_dataset, epochs=epochs
)


def plot_result(item):
    plt.plot(history.history[item], label=item)
    plt.plot(history.history["val_" + item], label="val_" + item)
    plt.xlabel("Epochs")
    plt.ylabel(item)
    plt.title("Train and Validation {} Over Epochs".format(item), fontsize=14)
    plt.legend()
    plt.grid()
    plt.show()


plot_result("loss")
plot_result("binary_accuracy")

# [cell 19]
_, binary_acc = shallow_mlp_model.evaluate(test_dataset)
print(f"Categorical accuracy on the test set: {round(binary_acc * 100, 2)}%.")

# [cell 20]
# Create a model for inference.
model_for_inference = keras.Sequential([text_vectorizer, shallow_mlp_model])

# Create a small dataset just for demoing inference.
inference_dataset = make_dataset(test_df.sample(10), is_train=False)
text_batch, label_batch = next(iter(inference_dataset))
predicted_probabilities = model_for_inference.predict(text_batch)

# Perform inference.
for i, text in enumerate(text_batch[:5]):
    label = label_batch[i].numpy()[None, ...]
    print(f"Abstract: {text}")
    print(f"Label(s): {invert_multi_hot(label[0])}")
    predicted_proba = [proba for proba in predicted_probabilities[i]]
    top_3_labels = [
        x
        for _, x in sorted(
            zip(predicted_probabilities[i], lookup.get_vocabulary()),
            key=lambda pair: pair[0],
            reverse=True,
        )
    ][:3]
    print(f"Predicted Label(s): ({', '.join([label for label in top_3_labels])})")
    print(" ")
