# Named Entity Recognition using Transformers: keras-team/keras-io examples/nlp/ner_transformers.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/nlp/ner_transformers.py
# commit: a72c25d44070de47f97dda830d0fc7668489be92
# families: strings
# expected: gap: cell 13's second epoch loss is 1.2840 (TF 1.2872); its first is TF's (2.0422 within the census's tolerance) since the crossentropy reads the logits NERModel's softmax kept (docs/differences.md, keras-softmax-logits; before that, 2.2400); what makes the second epoch differ is not found yet (a TransformerBlock over two Embeddings, trained by Adam, masked loss of padded batches: to bisect); every value before it is TF's
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: Hugging Face's datasets (not installed) load_dataset("conll2003") is _conll_like:
#   80 + 24 generated sentences in its records (tokens, ner_tags: CoNLL 2003's nine tags),
#   names and places from small lists, tagged as CoNLL tags them;
# - conlleval.py (a download, its `evaluate`) is _evaluate_like: per tag, the counts of the
#   true and predicted tags and of their agreements, printed;
# - determinism: TransformerBlock's and NERModel's dropout (0.1) are 0.0 (TF's random masks
#   are TF's generator's);
# - TF 2.21 (Keras 3) has no keras.losses.Reduction: reduction=keras.losses.Reduction.NONE is
#   reduction=None (Keras 3's "no reduction");
# - sizes: vocab_size 20000 is 200; epochs 10 are 2; fit's history is shown
#

# [cell 1]
import os
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers
from collections import Counter


class _Split(list):
    # a split of a Hugging Face DatasetDict: records, or a column by its name
    def __getitem__(self, key):
        if isinstance(key, str):
            return [r[key] for r in self]
        return list.__getitem__(self, key)


def load_dataset(name):
    # CoNLL 2003's records: tokens, ner_tags (O, B-PER, I-PER, B-ORG, I-ORG, B-LOC,
    # I-LOC, B-MISC, I-MISC)
    rs = np.random.RandomState(0)
    people = [["John", "Smith"], ["Mary"], ["Peter", "Blackburn"], ["Anna", "Lee"]]
    orgs = [["EU"], ["Reuters"], ["United", "Nations"], ["Lufthansa"]]
    places = [["Germany"], ["London"], ["New", "York"], ["Britain"]]
    misc = [["German"], ["British"], ["French"]]
    words = ["the", "said", "to", "on", "in", "a", "call", "boycott", "lamb", "rejects",
             "of", "and", "for", "was", "with", "at", "by", "talks", "market", "week"]
    kinds = [(people, 1), (orgs, 3), (places, 5), (misc, 7)]

    def sentence():
        tokens, tags = [], []
        for _ in range(rs.randint(4, 12)):
            if rs.rand() < 0.3:
                names, b = kinds[rs.randint(4)]
                name = names[rs.randint(len(names))]
                tokens += name
                tags += [b] + [b + 1] * (len(name) - 1)
            else:
                tokens.append(words[rs.randint(len(words))])
                tags.append(0)
        return {"tokens": tokens, "ner_tags": tags}

    return {"train": _Split(sentence() for _ in range(80)),
            "validation": _Split(sentence() for _ in range(24))}


def evaluate(true_seqs, pred_seqs):
    # conlleval's evaluate, reduced: per tag, true and predicted counts and agreements
    for tag in sorted(set(true_seqs) | set(pred_seqs)):
        t = sum(1 for x in true_seqs if x == tag)
        p = sum(1 for x in pred_seqs if x == tag)
        both = sum(1 for x, y in zip(true_seqs, pred_seqs) if x == y == tag)
        print(f"{tag}: true {t}, predicted {p}, correct {both}")

# [cell 2]
class TransformerBlock(layers.Layer):
    def __init__(self, embed_dim, num_heads, ff_dim, rate=0.0):
        super(TransformerBlock, self).__init__()
        self.att = keras.layers.MultiHeadAttention(
            num_heads=num_heads, key_dim=embed_dim
        )
        self.ffn = keras.Sequential(
            [
                keras.layers.Dense(ff_dim, activation="relu"),
                keras.layers.Dense(embed_dim),
            ]
        )
        self.layernorm1 = keras.layers.LayerNormalization(epsilon=1e-6)
        self.layernorm2 = keras.layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = keras.layers.Dropout(rate)
        self.dropout2 = keras.layers.Dropout(rate)

    def call(self, inputs, training=False):
        attn_output = self.att(inputs, inputs)
        attn_output = self.dropout1(attn_output, training=training)
        out1 = self.layernorm1(inputs + attn_output)
        ffn_output = self.ffn(out1)
        ffn_output = self.dropout2(ffn_output, training=training)
        return self.layernorm2(out1 + ffn_output)

# [cell 3]
class TokenAndPositionEmbedding(layers.Layer):
    def __init__(self, maxlen, vocab_size, embed_dim):
        super(TokenAndPositionEmbedding, self).__init__()
        self.token_emb = keras.layers.Embedding(
            input_dim=vocab_size, output_dim=embed_dim
        )
        self.pos_emb = keras.layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

    def call(self, inputs):
        maxlen = tf.shape(inputs)[-1]
        positions = tf.range(start=0, limit=maxlen, delta=1)
        position_embeddings = self.pos_emb(positions)
        token_embeddings = self.token_emb(inputs)
        return token_embeddings + position_embeddings

# [cell 4]
class NERModel(keras.Model):
    def __init__(
        self, num_tags, vocab_size, maxlen=128, embed_dim=32, num_heads=2, ff_dim=32
    ):
        super(NERModel, self).__init__()
        self.embedding_layer = TokenAndPositionEmbedding(maxlen, vocab_size, embed_dim)
        self.transformer_block = TransformerBlock(embed_dim, num_heads, ff_dim)
        self.dropout1 = layers.Dropout(0.0)
        self.ff = layers.Dense(ff_dim, activation="relu")
        self.dropout2 = layers.Dropout(0.0)
        self.ff_final = layers.Dense(num_tags, activation="softmax")

    def call(self, inputs, training=False):
        x = self.embedding_layer(inputs)
        x = self.transformer_block(x)
        x = self.dropout1(x, training=training)
        x = self.ff(x)
        x = self.dropout2(x, training=training)
        x = self.ff_final(x)
        return x

# [cell 5]
conll_data = load_dataset("conll2003")

# [cell 6]
def export_to_file(export_file_path, data):
    with open(export_file_path, "w") as f:
        for record in data:
            ner_tags = record["ner_tags"]
            tokens = record["tokens"]
            if len(tokens) > 0:
                f.write(
                    str(len(tokens))
                    + "\t"
                    + "\t".join(tokens)
                    + "\t"
                    + "\t".join(map(str, ner_tags))
                    + "\n"
                )


os.mkdir("data")
export_to_file("./data/conll_train.txt", conll_data["train"])
export_to_file("./data/conll_val.txt", conll_data["validation"])

# [cell 7]
def make_tag_lookup_table():
    iob_labels = ["B", "I"]
    ner_labels = ["PER", "ORG", "LOC", "MISC"]
    all_labels = [(label1, label2) for label2 in ner_labels for label1 in iob_labels]
    all_labels = ["-".join([a, b]) for a, b in all_labels]
    all_labels = ["[PAD]", "O"] + all_labels
    return dict(zip(range(0, len(all_labels) + 1), all_labels))


mapping = make_tag_lookup_table()
print(mapping)

# [cell 8]
all_tokens = sum(conll_data["train"]["tokens"], [])
all_tokens_array = np.array(list(map(str.lower, all_tokens)))

counter = Counter(all_tokens_array)
print(len(counter))

num_tags = len(mapping)
vocab_size = 200

# We only take (vocab_size - 2) most commons words from the training data since
# the `StringLookup` class uses 2 additional tokens - one denoting an unknown
# token and another one denoting a masking token
vocabulary = [token for token, count in counter.most_common(vocab_size - 2)]

# The StringLook class will convert tokens to token IDs
lookup_layer = keras.layers.StringLookup(vocabulary=vocabulary)

# [cell 9]
train_data = tf.data.TextLineDataset("./data/conll_train.txt")
val_data = tf.data.TextLineDataset("./data/conll_val.txt")

# [cell 10]
print(list(train_data.take(1).as_numpy_iterator()))

# [cell 11]
def map_record_to_training_data(record):
    record = tf.strings.split(record, sep="\t")
    length = tf.strings.to_number(record[0], out_type=tf.int32)
    tokens = record[1 : length + 1]
    tags = record[length + 1 :]
    tags = tf.strings.to_number(tags, out_type=tf.int64)
    tags += 1
    return tokens, tags


def lowercase_and_convert_to_ids(tokens):
    tokens = tf.strings.lower(tokens)
    return lookup_layer(tokens)


# We use `padded_batch` here because each record in the dataset has a
# different length.
batch_size = 32
train_dataset = (
    train_data.map(map_record_to_training_data)
    .map(lambda x, y: (lowercase_and_convert_to_ids(x), y))
    .padded_batch(batch_size)
)
val_dataset = (
    val_data.map(map_record_to_training_data)
    .map(lambda x, y: (lowercase_and_convert_to_ids(x), y))
    .padded_batch(batch_size)
)

ner_model = NERModel(num_tags, vocab_size, embed_dim=32, num_heads=4, ff_dim=64)

# [cell 12]
class CustomNonPaddingTokenLoss(keras.losses.Loss):
    def __init__(self, name="custom_ner_loss"):
        super().__init__(name=name)

    def call(self, y_true, y_pred):
        loss_fn = keras.losses.SparseCategoricalCrossentropy(
            from_logits=True, reduction=None
        )
        loss = loss_fn(y_true, y_pred)
        mask = tf.cast((y_true > 0), dtype=tf.float32)
        loss = loss * mask
        return tf.reduce_sum(loss) / tf.reduce_sum(mask)


loss = CustomNonPaddingTokenLoss()

# [cell 13]
ner_model.compile(optimizer="adam", loss=loss)
show(ner_model.fit(train_dataset, epochs=2))


def tokenize_and_convert_to_ids(text):
    tokens = text.split()
    return lowercase_and_convert_to_ids(tokens)


# Sample inference using the trained model
sample_input = tokenize_and_convert_to_ids(
    "eu rejects german call to boycott british lamb"
)
sample_input = tf.reshape(sample_input, shape=[1, -1])
print(sample_input)

output = ner_model.predict(sample_input)
prediction = np.argmax(output, axis=-1)[0]
prediction = [mapping[i] for i in prediction]

# eu -> B-ORG, german -> B-MISC, british -> B-MISC
print(prediction)

# [cell 14]
def calculate_metrics(dataset):
    all_true_tag_ids, all_predicted_tag_ids = [], []

    for x, y in dataset:
        output = ner_model.predict(x)
        predictions = np.argmax(output, axis=-1)
        predictions = np.reshape(predictions, [-1])

        true_tag_ids = np.reshape(y, [-1])

        mask = (true_tag_ids > 0) & (predictions > 0)
        true_tag_ids = true_tag_ids[mask]
        predicted_tag_ids = predictions[mask]

        all_true_tag_ids.append(true_tag_ids)
        all_predicted_tag_ids.append(predicted_tag_ids)

    all_true_tag_ids = np.concatenate(all_true_tag_ids)
    all_predicted_tag_ids = np.concatenate(all_predicted_tag_ids)

    predicted_tags = [mapping[tag] for tag in all_predicted_tag_ids]
    real_tags = [mapping[tag] for tag in all_true_tag_ids]

    evaluate(real_tags, predicted_tags)


calculate_metrics(val_dataset)
