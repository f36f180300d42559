"""Keras's text layers given string tensors traced inside a ``tf.function`` (issue 37):
TF runs the layer's ops in the function's graph at each call; eagertape runs the
layer on the host at each call, on that call's text (tf/_traced_text.py's
``on_host``). Before, the layer read the trace's placeholder (an array of no values)
and a TextVectorization gave every text one OOV token, ``[1, 0, 0, ...]``: a silent
wrong answer (census text_classification). A value read off a traced string tensor
(``np.asarray``) is now TF's NotImplementedError.

The Keras programs run in TF and through the facade, a fresh process each
(tests/test_keras.py's ``_same_as_tf``).
"""
import numpy as np
import pytest

import tf_oracle
from test_keras import _same_as_tf

pytest.importorskip("keras")

# The census program's standardize (tensorflow/docs' text_classification tutorial)
# and a TextVectorization adapted on a few texts.
_VECTORIZER = """
import re, string
def custom_standardization(input_data):
    lowercase = tf.strings.lower(input_data)
    stripped_html = tf.strings.regex_replace(lowercase, '<br />', ' ')
    return tf.strings.regex_replace(stripped_html, '[%s]' % re.escape(string.punctuation), '')
texts = ["The movie was GREAT!", "bad <br />plot, boring", "Fun fun film", "the plot!"]
labels = [1, 0, 1, 0]
v = tf.keras.layers.TextVectorization(standardize=custom_standardization, max_tokens=20,
                                      output_mode="int", output_sequence_length=6)
v.adapt(tf.data.Dataset.from_tensor_slices(texts).batch(2))
emit("vocabulary", [list(w.encode()) for w in v.get_vocabulary()])
"""


def test_text_vectorization_with_a_custom_standardize_in_a_tf_function_gives_tfs_ids():
    got = _same_as_tf(_VECTORIZER + """
@tf.function
def vectorize(text):
    return v(tf.expand_dims(text, -1))
emit("first", vectorize(tf.constant(texts[:2])))
# the same trace (one shape), another call's text
emit("second", vectorize(tf.constant(texts[2:])))
emit("other_shape", vectorize(tf.constant(texts[:3])))
emit("unknown", vectorize(tf.constant(["zebra <br />THE", "fun."])))
emit("traces", vectorize.experimental_get_tracing_count())
emit("eager", v(tf.constant(texts)))
""")
    assert got["first"][0][:4] != [1, 0, 0, 0]       # (the wrong answer was all [1, 0, ...])
    assert got["traces"] == 2


def test_text_vectorization_in_a_dataset_map_gives_tfs_ids():
    # As the tutorial maps it, and through a tf.function the map calls (which traced
    # the layer on the placeholder's values before).
    _same_as_tf(_VECTORIZER + """
def vectorize_text(text, label):
    return v(tf.expand_dims(text, -1)), label
ds = tf.data.Dataset.from_tensor_slices((texts, labels)).batch(2)
for name, fn in (("map", vectorize_text), ("map_tf_function", tf.function(vectorize_text))):
    for i, (x, y) in enumerate(ds.map(fn).cache().prefetch(tf.data.AUTOTUNE)):
        emit(f"{name}{i}", x)
        emit(f"{name}{i}_label", y)
""")


def test_string_lookup_and_a_model_taking_strings_in_a_tf_function_give_tfs_answers():
    # A StringLookup (forward and inverted), and the tutorial's export model (its
    # TextVectorization first, then the trained layers: the host part at each call,
    # the rest traced) called inside a tf.function.
    _same_as_tf(_VECTORIZER + """
lookup = tf.keras.layers.StringLookup(vocabulary=["a", "b", "c"])
inverse = tf.keras.layers.StringLookup(vocabulary=["a", "b", "c"], invert=True)
@tf.function
def ids(words):
    i = lookup(words)
    return i, tf.strings.join([inverse(i), words], "-")
i, joined = ids(tf.constant(["b", "z", "c"]))
emit("ids", i)
emit("joined", [list(s) for s in joined.numpy()])
i, joined = ids(tf.constant(["a", "a", "q"]))
emit("ids2", i)
emit("joined2", [list(s) for s in joined.numpy()])
model = tf.keras.Sequential([tf.keras.layers.Embedding(20, 3),
                             tf.keras.layers.GlobalAveragePooling1D(),
                             tf.keras.layers.Dense(1)])
model.build((None, 6))
model.set_weights(weights_like(model))
export = tf.keras.Sequential([v, model, tf.keras.layers.Activation("sigmoid")])
@tf.function
def predict(text):
    return export(text)
emit("export", predict(tf.constant(texts[:2])))
emit("export2", predict(tf.constant(texts[2:])))
emit("export_eager", export(tf.constant(texts)))
""")


def test_a_traced_string_tensors_value_is_tfs_error_not_its_placeholder():
    # np.asarray of a string tensor inside a tf.function: TF's NotImplementedError
    # (eagertape gave the placeholder's elements, None each).
    def program(tf):
        @tf.function
        def f(x):
            return np.asarray(x)
        return f(tf.constant(["a", "b"]))
    tf_oracle.check(program)


def test_a_subclassed_models_initializers_are_drawn_in_fit_as_tfs_keras_draws_them():
    # The initializers draw from one seeded NumPy generator (as the census prelude's
    # do): the weights after fit show which draws were kept.
    _same_as_tf("""
import keras
from keras.src.initializers import random_initializers as ri
rs = np.random.RandomState(0)
ri.VarianceScaling.__call__ = lambda self, shape, dtype=None: keras.ops.convert_to_tensor(
    rs.uniform(-1.0, 1.0, shape).astype("float32"))
class MyModel(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.seq = tf.keras.Sequential([tf.keras.layers.Dense(3), tf.keras.layers.Dense(1)])
        self.concat = tf.keras.layers.Concatenate(axis=1)
    def call(self, inputs):
        return self.seq(self.concat([v for k, v in sorted(inputs.items())]))
x = {"a": np.linspace(0, 1, 16, dtype="float32")[:, None], "b": np.ones((16, 1), "float32")}
model = MyModel()
model.compile(optimizer=tf.keras.optimizers.SGD(0.0), loss="mse", run_eagerly=True)
model.fit(x, np.zeros((16, 1), "float32"), epochs=1, batch_size=8, verbose=0)
emit("weights", model.get_weights())
emit("next_draw", rs.uniform(size=2))
""")
