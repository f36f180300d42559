"""Keras's ``*_dataset_from_directory`` give eagertape's tf.data datasets with TF's
elements, and Keras functional models with ``tf.string`` inputs train, evaluate
and predict as TF's Keras runs them (tf/_keras_host.py): checked against TF.

Each program runs in TF and through the facade, in a fresh process each (Keras
has one backend a process: tests/test_keras.py's ``_same_as_tf``); strings are
emitted as their bytes' values.
"""
import textwrap

import pytest

from test_keras import _run, _same_as_tf

pytest.importorskip("keras")

_FILES = """
import os, tempfile, wave
import PIL.Image
root = tempfile.mkdtemp()
rs = np.random.RandomState(0)
def write(path, data, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(data)
for c in ("b_neg", "a_pos", "c"):
    for i in range(5):
        write(os.path.join(root, "text", c, f"{i}_{rs.randint(10)}.txt"),
              " ".join(rs.choice(["x", "yy", "zzz"], rs.randint(1, 9))))
        PIL.Image.fromarray(rs.randint(0, 256, (rs.randint(5, 9), 6, 3)).astype("uint8")).save(
            os.path.join(root, "text", c, f"{i}.png"))
        os.makedirs(os.path.join(root, "audio", c), exist_ok=True)
        with wave.open(os.path.join(root, "audio", c, f"{i}.wav"), "wb") as w:
            w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
            w.writeframes(rs.randint(-3000, 3000, rs.randint(4, 12)).astype("<i2").tobytes())
write(os.path.join(root, "text", "c", "sub", "deep.txt"), "deep text")
write(os.path.join(root, "text", "c", "notes.md"), "not listed")
def emit_ds(name, ds):
    emit(name + ".class_names", [list(c.encode()) for c in getattr(ds, "class_names", None) or []])
    for i, element in enumerate(ds):
        for j, part in enumerate(element if isinstance(element, tuple) else (element,)):
            value = np.asarray(part.numpy() if hasattr(part, "numpy") else part)
            if value.dtype == object or value.dtype.kind == "S":
                emit(f"{name}.{i}.{j}", [list(s) for s in value.reshape(-1)])
            else:
                emit(f"{name}.{i}.{j}", value)
            emit(f"{name}.{i}.{j}.shape", list(value.shape))
"""


def test_dataset_from_directory_gives_tfs_elements_in_tfs_order():
    _same_as_tf(_FILES + textwrap.dedent("""
    text = os.path.join(root, "text")
    utils = tf.keras.utils
    emit_ds("text", utils.text_dataset_from_directory(text, shuffle=False, batch_size=4,
                                                      verbose=False))
    for subset in ("training", "validation"):
        # The files' order is NumPy's shuffle of the seed, as in Keras: TF's.
        emit_ds("text." + subset, utils.text_dataset_from_directory(
            text, seed=3, shuffle=False, batch_size=None, validation_split=0.25,
            subset=subset, label_mode="categorical", verbose=False))
    emit_ds("text.binary", tf.keras.preprocessing.text_dataset_from_directory(
        text, shuffle=False, batch_size=3, label_mode="binary", class_names=["c", "a_pos"],
        max_length=4, verbose=False))
    emit_ds("text.unlabelled", utils.text_dataset_from_directory(
        text, labels=None, shuffle=False, batch_size=6, verbose=False))
    raw = utils.text_dataset_from_directory(text, shuffle=False, batch_size=4, verbose=False)
    vectorize = tf.keras.layers.TextVectorization(max_tokens=6, output_sequence_length=5)
    vectorize.adapt(raw.map(lambda x, y: x))
    emit_ds("text.vectorized", raw.map(lambda x, y: (vectorize(tf.expand_dims(x, -1)), y)))
    train, val = utils.image_dataset_from_directory(
        text, shuffle=False, batch_size=4, image_size=(4, 5), validation_split=0.2,
        subset="both", seed=1, label_mode="categorical", verbose=False)
    emit_ds("image.train", train)
    emit_ds("image.val", val)
    emit("image.file_paths", [len(p) for p in train.file_paths])
    emit_ds("image.gray", utils.image_dataset_from_directory(
        text, shuffle=False, batch_size=None, image_size=(3, 3), color_mode="grayscale",
        interpolation="nearest", labels=None, verbose=False))
    emit_ds("audio", utils.audio_dataset_from_directory(
        os.path.join(root, "audio"), shuffle=False, batch_size=4, verbose=False))
    emit_ds("audio.fixed", utils.audio_dataset_from_directory(
        os.path.join(root, "audio"), shuffle=False, batch_size=5, output_sequence_length=6,
        verbose=False))
    emit_ds("timeseries", utils.timeseries_dataset_from_array(
        np.arange(20.0), np.arange(20), sequence_length=4, sequence_stride=3, batch_size=3))
    emit("type", [isinstance(train, tf.data.Dataset)])
    """), rtol=1e-5, atol=1e-5)


_STRING_MODEL = """
layers = tf.keras.layers
rs = np.random.RandomState(0)
n = 24
colors = np.array(["red", "green", "blue", "teal"], dtype=object)[rs.randint(0, 4, n)]
ages = rs.randint(0, 6, n).astype("int64")
fee = (rs.rand(n) * 10).astype("float32")
y = rs.randint(0, 2, n)
feats = {"color": colors[:, None], "age": ages[:, None], "fee": fee[:, None]}
ds = tf.data.Dataset.from_tensor_slices((feats, y)).batch(8)
inputs = {"color": tf.keras.Input(shape=(1,), name="color", dtype="string"),
          "age": tf.keras.Input(shape=(1,), name="age", dtype="int64"),
          "fee": tf.keras.Input(shape=(1,), name="fee")}
lookup = layers.StringLookup(max_tokens=4)
lookup.adapt(colors)
ints = layers.IntegerLookup(max_tokens=5)
ints.adapt(ages)
norm = layers.Normalization(axis=None)
norm.adapt(fee)
encoded = [layers.CategoryEncoding(num_tokens=lookup.vocabulary_size())(lookup(inputs["color"])),
           layers.CategoryEncoding(num_tokens=ints.vocabulary_size())(ints(inputs["age"])),
           norm(inputs["fee"])]
preprocessor = tf.keras.Model(inputs, layers.concatenate(encoded))
"""


def test_a_model_with_string_inputs_fits_evaluates_and_predicts_as_in_tf():
    # A functional model with StringLookup/IntegerLookup at its inputs (TF's
    # structured-data tutorial), and one that nests such a model (the pandas one).
    _same_as_tf(_STRING_MODEL + textwrap.dedent("""
    x = layers.Dense(4, activation="relu")(preprocessor.output)
    model = tf.keras.Model(inputs, layers.Dense(1)(x))
    body = tf.keras.Sequential([layers.Dense(3, activation="relu"), layers.Dense(1)])
    nested = tf.keras.Model(inputs, body(preprocessor(inputs)))
    emit("preprocessed", preprocessor({k: tf.constant(v[:3]) for k, v in feats.items()}))
    emit("preprocessed.from_arrays", preprocessor({k: v[:2] for k, v in feats.items()}))
    for name, m in (("model", model), ("nested", nested)):
        init = np.random.RandomState(1)
        for v in m.trainable_variables:
            v.assign((init.randn(*v.shape) * 0.5).astype("float32"))
        m.compile(optimizer="adam", metrics=["accuracy"],
                  loss=tf.keras.losses.BinaryCrossentropy(from_logits=True))
        history = m.fit(ds, epochs=2, validation_data=ds, verbose=0)
        emit(name + ".fit", [history.history[k] for k in sorted(history.history)])
        emit(name + ".evaluate", m.evaluate(ds, verbose=0))
        emit(name + ".predict", m.predict(ds, verbose=0))
        tensors = {k: tf.constant(v) for k, v in feats.items()}
        history = m.fit(tensors, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
        emit(name + ".fit.tensors", [history.history[k] for k in sorted(history.history)])
        batch = {k: v[:4] for k, v in tensors.items()}
        emit(name + ".train_on_batch", m.train_on_batch(batch, y[:4]))
        emit(name + ".call", m(batch))
        with tf.GradientTape() as tape:
            out = tf.reduce_sum(m(batch, training=True))
        emit(name + ".gradient", tape.gradient(out, m.trainable_variables))
        emit(name + ".predict.tensors", m.predict(
            {k: tf.convert_to_tensor(v[:2, 0]) for k, v in feats.items()}, verbose=0))
    # A Sequential starting with a TextVectorization (TF's text tutorial's export).
    texts = np.array([b"a b c", b"b c d e", b"a a", b"e d"], dtype=object)
    vectorize = layers.TextVectorization(max_tokens=6, output_sequence_length=3)
    vectorize.adapt(texts)
    inner = tf.keras.Sequential([layers.Embedding(6, 2), layers.GlobalAveragePooling1D(),
                                 layers.Dense(1)])
    inner.build((None, 3))
    inner.set_weights(weights_like(inner))
    export = tf.keras.Sequential([vectorize, inner, layers.Activation("sigmoid")])
    export.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
    emit("export.evaluate", export.evaluate(
        tf.data.Dataset.from_tensor_slices((texts, y[:4])).batch(2), verbose=0))
    emit("export.predict", export.predict(tf.constant(texts), verbose=0))
    emit("export.call", export(tf.constant(texts)))
    """), rtol=1e-4, atol=1e-5)


def test_a_string_layer_with_weights_is_a_clear_error():
    # On Keras's JAX backend the layers of a model's strings run on the host:
    # one with trainable weights there would get no gradient, so it says so.
    got = _run(_STRING_MODEL + """
class Scaled(layers.Layer):
    def build(self, shape):
        self.w = self.add_weight(shape=(), initializer="ones")
    def call(self, x):
        return self.w * tf.cast(tf.strings.length(x), "float32")
    def compute_output_spec(self, x):
        return tf.keras.KerasTensor(x.shape, "float32")
model = tf.keras.Model(inputs["color"], layers.Dense(1)(Scaled()(inputs["color"])))
model.compile(optimizer="adam", loss="mse")
try:
    model.fit(tf.data.Dataset.from_tensor_slices((colors[:, None], y)).batch(8), verbose=0)
    emit("error", 0)
except NotImplementedError as e:
    emit("error", [int("trainable weights" in str(e)), int("tf.data pipeline" in str(e))])
""", "eagertape")
    assert got["error"] == [1, 1]
