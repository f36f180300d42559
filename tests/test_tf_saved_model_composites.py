"""``tf.saved_model`` of concrete functions of composite arguments (a
``RaggedTensorSpec``, an ExtensionType's ``Spec``) and of ``None`` sizes.

One program runs twice: in TensorFlow (TF saves and loads: the oracle) and through
``eagertape.tf`` (eagertape saves, through TF's own writer, and loads); their
answers must agree. Then TensorFlow loads what eagertape wrote, in a process of
its own, and calls it: a RaggedTensor argument and result as TF's, an
ExtensionType as the dict of its fields (TF flattens it to them; the program's
class is not in TF's process), a ``None`` batch at any size.
"""
import importlib.util
import os

import numpy as np
import pytest

from test_tf_saved_model import _eagertape_program, _tensorflow_program

_PROGRAM = r'''
import json, os, sys, warnings
import numpy as np
if sys.argv[2] == "tf":
    import tensorflow as tf
else:
    import eagertape.tf as tf
d = os.path.join(sys.argv[1], sys.argv[2])
out = {}

class MaskedTensor(tf.experimental.BatchableExtensionType):
    __name__ = "eagertape_test.MaskedTensor"
    values: tf.Tensor
    mask: tf.Tensor

    class Spec:
        def __init__(self, shape, dtype=tf.float32):
            self.values = tf.TensorSpec(shape, dtype)
            self.mask = tf.TensorSpec(shape, tf.bool)

class Composites(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(100.0)
        self.w = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)

    @tf.function
    def grow(self, x):
        return x * self.v

    @tf.function
    def masked(self, x):
        return MaskedTensor(x.values * self.v, x.mask)

    @tf.function
    def mixed(self, x, y):
        return {"rt": tf.nn.relu(x - 1.0), "total": tf.reduce_sum(y) * self.v}

    @tf.function
    def batch(self, x):
        return tf.nn.softmax(tf.matmul(x, self.w))

m = Composites()
m.grow.get_concrete_function(tf.RaggedTensorSpec([None, None], tf.float32))
m.grow.get_concrete_function(tf.RaggedTensorSpec([None, None, None], tf.float32, 2))
m.masked.get_concrete_function(MaskedTensor.Spec(shape=None))
m.mixed.get_concrete_function(tf.RaggedTensorSpec([None, None, 2], tf.float32, 1),
                              tf.TensorSpec([None], tf.float32))
m.batch.get_concrete_function(tf.TensorSpec([None, 4], tf.float32))
tf.saved_model.save(m, os.path.join(d, "composites"))
loaded = tf.saved_model.load(os.path.join(d, "composites"))

rt = tf.ragged.constant([[1.0, 4.0, 3.0], [2.0]])
got = loaded.grow(rt)
out["grow"] = [type(got).__name__, got.to_list()]
out["grow_rank2"] = loaded.grow(tf.ragged.constant([[[1.0], [2.0, 3.0]], [], [[4.0]]])).to_list()
with tf.GradientTape() as tape:
    total = tf.reduce_sum(loaded.grow(rt).flat_values)
out["grow_grad"] = float(tape.gradient(total, loaded.v))
for name, x in (("masked", MaskedTensor([1.0, 2, 3], [False, True, False])),
                ("masked_2d", MaskedTensor([[1.0, 2], [3, 4]], [[True, False], [False, True]]))):
    r = loaded.masked(x)
    out[name] = [type(r).__name__, r.values.numpy().tolist(), r.mask.numpy().tolist()]
r = loaded.mixed(tf.ragged.constant([[[1.0, 2.0]], [[3.0, -4.0], [0.5, 5.0]]], ragged_rank=1),
                 tf.constant([1.0, 2.0, 3.0]))
out["mixed"] = {"rt": r["rt"].to_list(), "total": float(r["total"])}
xs = np.random.RandomState(0).randn(5, 4).astype("float32")
out["batch"] = [loaded.batch(xs[:n]).numpy().tolist() for n in (1, 5)]
try:
    loaded.grow(tf.constant([1.0, 2.0]))
    out["dense_to_ragged"] = "ok"
except Exception as e:
    out["dense_to_ragged"] = type(e).__name__

# A function whose result depends on the rows: TF's graph reads the row splits;
# eagertape's are fixed when traced, so it is left out, saying why.
class Rows(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(2.0)

    @tf.function
    def sums(self, x):
        return tf.reduce_sum(x, axis=1) * self.v

    @tf.function
    def firsts(self, x):
        return x[:, :1] * self.v

    @tf.function
    def lengths(self, x):
        return tf.cast(x.row_lengths(), tf.float32) * self.v

rows = Rows()
rows.sums.get_concrete_function(tf.RaggedTensorSpec([None, None], tf.float32))
rows.firsts.get_concrete_function(tf.RaggedTensorSpec([None, None], tf.float32))
rows.lengths.get_concrete_function(tf.RaggedTensorSpec([None, None], tf.float32))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    tf.saved_model.save(rows, os.path.join(d, "rows"))
out["rows_warnings"] = sorted(str(w.message) for w in caught
                              if "left out of the SavedModel" in str(w.message))
print("RESULT", json.dumps(out))
'''

_LOAD_IN_TF = r'''
import json, os, sys
import numpy as np
import tensorflow as tf
m = tf.saved_model.load(os.path.join(sys.argv[1], "eagertape", "composites"))
out = {}
got = m.grow(tf.ragged.constant([[1.0, 4.0, 3.0], [2.0]]))
out["grow"] = [type(got).__name__, got.to_list()]
out["grow_rank2"] = m.grow(tf.ragged.constant([[[1.0], [2.0, 3.0]], [], [[4.0]]])).to_list()
r = m.masked({"values": tf.constant([1.0, 2, 3]), "mask": tf.constant([False, True, False])})
out["masked"] = ["dict", r["values"].numpy().tolist(), r["mask"].numpy().tolist()]
r = m.mixed(tf.ragged.constant([[[1.0, 2.0]], [[3.0, -4.0], [0.5, 5.0]]], ragged_rank=1),
            tf.constant([1.0, 2.0, 3.0]))
out["mixed"] = {"rt": r["rt"].to_list(), "total": float(r["total"])}
xs = np.random.RandomState(0).randn(5, 4).astype("float32")
out["batch"] = [m.batch(xs[:n]).numpy().tolist() for n in (1, 5)]
out["grow_inputs"] = [repr(c.structured_input_signature[0][0])
                      for c in m.grow.concrete_functions]
print("RESULT", json.dumps(out))
'''


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    for name in ("tensorflow", "keras"):
        if importlib.util.find_spec(name) is None:
            pytest.skip(f"{name} is not installed")
    d = tmp_path_factory.mktemp("composites")
    theirs, _ = _tensorflow_program(_PROGRAM, d, "tf")
    mine, _ = _eagertape_program(_PROGRAM, d, "eagertape")
    read, _ = _tensorflow_program(_LOAD_IN_TF, d)
    return mine, theirs, read


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.subprocess
def test_a_ragged_concrete_function_round_trips_as_tensorflows(runs):
    mine, theirs, _ = runs
    assert mine["grow"] == theirs["grow"] == ["RaggedTensor", [[100.0, 400.0, 300.0], [200.0]]]
    assert mine["grow_rank2"] == theirs["grow_rank2"] == [[[100.0], [200.0, 300.0]], [],
                                                          [[400.0]]]
    assert mine["grow_grad"] == theirs["grow_grad"] == 10.0
    assert mine["mixed"] == theirs["mixed"]
    assert mine["mixed"]["rt"] == [[[0.0, 1.0]], [[2.0, 0.0], [0.0, 4.0]]]
    # A dense Tensor matches none of the RaggedTensorSpec functions, in both.
    assert mine["dense_to_ragged"] == theirs["dense_to_ragged"] == "ValueError"


@pytest.mark.subprocess
def test_an_extension_type_concrete_function_round_trips_as_tensorflows(runs):
    mine, theirs, _ = runs
    assert mine["masked"] == theirs["masked"] == [
        "MaskedTensor", [100.0, 200.0, 300.0], [False, True, False]]
    assert mine["masked_2d"] == theirs["masked_2d"]
    assert mine["masked_2d"][1] == [[100.0, 200.0], [300.0, 400.0]]


@pytest.mark.subprocess
def test_a_none_batch_concrete_function_serves_every_batch(runs):
    mine, theirs, read = runs
    for got in (mine["batch"], read["batch"]):
        for a, b in zip(got, theirs["batch"]):
            _close(a, b)
    assert [len(b) for b in read["batch"]] == [1, 5]


@pytest.mark.subprocess
def test_tensorflow_reads_the_composite_functions_eagertape_saved(runs):
    mine, theirs, read = runs
    # RaggedTensors in and out, as TF's own SavedModel of the function.
    assert read["grow"] == theirs["grow"]
    assert read["grow_rank2"] == theirs["grow_rank2"]
    assert read["mixed"] == theirs["mixed"]
    assert sorted(read["grow_inputs"]) == [
        "RaggedTensorSpec(TensorShape([None, None, None]), tf.float32, 2, tf.int64)",
        "RaggedTensorSpec(TensorShape([None, None]), tf.float32, 1, tf.int64)"]
    # The ExtensionType as its fields (TF's process has not the program's class).
    assert read["masked"] == ["dict"] + theirs["masked"][1:]


@pytest.mark.subprocess
def test_a_function_of_the_rows_is_left_out_saying_why(runs):
    mine, theirs, _ = runs
    assert theirs["rows_warnings"] == []
    assert len(mine["rows_warnings"]) == 3, mine["rows_warnings"]
    firsts, lengths, sums = mine["rows_warnings"]
    assert "'firsts'" in firsts and "returns a RaggedTensor whose rows it computes" in firsts
    assert "'lengths'" in lengths and "depends on the rows of its RaggedTensor" in lengths
    assert "'sums'" in sums and "a function that uses the rows" in sums, sums
