"""``keras.utils.FeatureSpace`` on the program's ``tf.data`` pipelines, and
``keras.ops.convert_to_tensor`` of text, as TF's Keras (census
kio_feature_space_advanced, keras.io's structured-data examples).

Keras's FeatureSpace module reads TensorFlow through a module global of its own
(TF, whatever Keras's backend): its ``adapt`` refused eagertape's Dataset ("can
only be called on a tf.data.Dataset") and its call, on Keras's JAX backend, gave
JAX arrays where TF's Keras gives ``tf.Tensor``s (a program's ``.numpy()`` of
them failed). ``keras.ops.convert_to_tensor(["text"])`` is a ``tf.string`` Tensor
in TF's Keras; on JAX it raised (JAX has no string arrays). Each program runs in
TF's Keras (a subprocess) and through the facade (tests/test_keras.py's
``_same_as_tf``).
"""
import pytest

from test_keras import _same_as_tf

pytestmark = pytest.mark.subprocess

_DATA = """
from keras.utils import FeatureSpace
data = {"age": np.array([30, 40, 50, 60, 35, 45], "int64"),
        "job": np.array(["a", "b", "a", "c", "b", "a"]),
        "x": np.array([1., 2., 3., 4., 5., 6.], "float32"),
        "y": np.array([0, 1, 0, 1, 1, 0], "int64")}
ds = tf.data.Dataset.from_tensor_slices(data)
"""


def test_feature_space_adapts_to_a_dataset_and_gives_tensors():
    _same_as_tf(_DATA + """
fs = FeatureSpace(features={"age": FeatureSpace.float_discretized(num_bins=3),
                            "job": FeatureSpace.string_categorical(num_oov_indices=0),
                            "x": FeatureSpace.float_normalized(),
                            "y": FeatureSpace.integer_categorical(num_oov_indices=0)},
                  crosses=[FeatureSpace.cross(feature_names=("age", "job"), crossing_dim=8)],
                  output_mode="concat")
fs.adapt(ds.batch(3))
for x in ds.batch(3).take(1):
    out = fs(x)
emit("call", out.numpy())
emit("type", [float(hasattr(out, "numpy")), float(out.dtype == tf.float32)])
emit("mapped", [b for b in ds.batch(3).map(lambda x: fs(x)).as_numpy_iterator()])
""")


def test_feature_space_dict_output_of_one_example():
    # An unbatched example (rebatched inside FeatureSpace), dict output, .numpy() of each.
    _same_as_tf(_DATA + """
fs = FeatureSpace(features={"job": FeatureSpace.string_categorical(num_oov_indices=1,
                                                                   output_mode="one_hot"),
                            "age": FeatureSpace.integer_hashed(num_bins=4,
                                                               output_mode="one_hot")},
                  output_mode="dict")
fs.adapt(ds)
for x in ds.take(2):
    out = fs({"job": x["job"], "age": x["age"]})
    # its dict in TF's order: the features' (JAX's tree_map sorted the keys)
    emit(f"order {int(x['age'])}", [["job", "age"].index(k) for k in out])
    for k, v in sorted(out.items()):
        emit(f"{k} {int(x['age'])}", v.numpy())
""")


def test_keras_ops_convert_to_tensor_of_text():
    _same_as_tf("""
import keras
t = keras.ops.convert_to_tensor(["blue-collar"])
emit("one", [float(t.dtype == tf.string), float(t.numpy()[0] == b"blue-collar")] + list(t.shape))
n = keras.ops.convert_to_tensor([[b"a", b"b"]])
emit("nested", [float(n.dtype == tf.string)] + list(n.shape)
     + [float(v == w) for v, w in zip(n.numpy().ravel(), [b"a", b"b"])])
emit("numbers", keras.ops.convert_to_tensor([1.5, 2.0]).numpy())
""")


def test_model_of_feature_space_inputs_predicts():
    # keras.io's end-to-end inference model: FeatureSpace's raw inputs (strings among
    # them), its encoded features, a trained model. Its discretized "age" feeds both a
    # string cross (run on the host) and the concatenation (past it): eagertape's split
    # of the model (tf/_keras_host.py) left that node out of the part past the host
    # (KeyError in predict).
    _same_as_tf(_DATA + """
import keras
fs = FeatureSpace(features={"age": FeatureSpace.float_discretized(num_bins=3),
                            "job": FeatureSpace.string_categorical(num_oov_indices=0),
                            "x": FeatureSpace.float_normalized()},
                  crosses=[FeatureSpace.cross(feature_names=("age", "job"), crossing_dim=4)],
                  output_mode="concat")
fs.adapt(ds.batch(3))
enc = fs.get_encoded_features()
model = keras.Model(enc, keras.layers.Dense(1, kernel_initializer="ones")(enc))
inference = keras.Model(inputs=fs.get_inputs(), outputs=model(enc))
emit("predict", inference.predict({"age": keras.ops.convert_to_tensor([30, 60]),
                                   "job": keras.ops.convert_to_tensor(["b", "a"]),
                                   "x": keras.ops.convert_to_tensor([2.0, 5.0])}, verbose=0))
""")


def test_fit_on_a_dataset_takes_class_weight():
    # fit(dataset, class_weight=...) weighs each example by its class (TF's Keras maps
    # the pipeline so); eagertape's dataset adapter dropped class_weight (census
    # kio_eeg_signal_classification: training loss 2.4821, TF 2.1406).
    _same_as_tf("""
x = np.linspace(-1, 1, 24, dtype="float32").reshape(12, 2)
onehot = np.eye(3, dtype="float32")[np.arange(12) % 3]
for name, y in (("onehot", onehot), ("sparse", (np.arange(12) % 3).astype("float32"))):
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3, activation="softmax")])
    model.set_weights(weights_like(model))
    loss = "categorical_crossentropy" if name == "onehot" else "sparse_categorical_crossentropy"
    model.compile(tf.keras.optimizers.SGD(0.1), loss)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    h = model.fit(ds, epochs=2, verbose=0, class_weight={0: 0.5, 1: 2.0, 2: 1.0})
    emit(name + " loss", h.history["loss"])
    emit(name + " weights", model.get_weights())
""")
