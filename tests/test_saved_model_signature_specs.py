"""A loaded SavedModel's signatures describe what they take and give as TF's do
(census kio_tf_serving): ``structured_input_signature`` is ``((), {name: TensorSpec})``
and ``structured_outputs`` ``{name: TensorSpec}``. eagertape writes a SavedModel,
loads it, and TensorFlow (in a subprocess) loads the same files: the specs agree."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

import eagertape.tf as tf

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                reason="tensorflow is not installed")


class _Model(tf.Module):
    def __init__(self):
        self.v = tf.Variable(tf.ones([3]))

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def scores(self, x):
        return {"y": tf.reduce_sum(x * self.v, axis=1), "x2": x * 2.0}

    @tf.function(input_signature=[tf.TensorSpec([None, None, 3], tf.float32),
                                  tf.TensorSpec([], tf.int32, name="k")])
    def scaled(self, images, k):
        return tf.cast(k, tf.float32) * images, tf.shape(images)

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float64, name="a")])
    def single(self, a):
        return a + 1.0


_TF_LOAD = r"""
import json, sys
import tensorflow as tf
def spec(s):
    return [None if s.shape.rank is None else s.shape.as_list(), s.dtype.name, s.name]
loaded = tf.saved_model.load(sys.argv[1])
out = {}
for key, sig in loaded.signatures.items():
    args, kwargs = sig.structured_input_signature
    out[key] = {"args": list(args), "kwargs": {k: spec(v) for k, v in kwargs.items()},
                "outputs": {k: spec(v) for k, v in sig.structured_outputs.items()},
                "repr": [repr(tuple(args)), sorted(map(repr, kwargs.values()))],
                "outputs_repr": sorted(map(repr, sig.structured_outputs.values()))}
print("@@" + json.dumps(out))
"""


def _spec(s):
    return [None if s.shape.rank is None else s.shape.as_list(), s.dtype.name, s.name]


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("signature_specs") / "model")
    m = _Model()
    tf.saved_model.save(m, path, signatures={"serving_default": m.scores, "scaled": m.scaled,
                                             "single": m.single})
    loaded = tf.saved_model.load(path)
    env = {k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"}
    r = subprocess.run([sys.executable, "-c", _TF_LOAD, path], capture_output=True, text=True,
                       timeout=600, env=dict(env, TF_CPP_MIN_LOG_LEVEL="3",
                                             CUDA_VISIBLE_DEVICES=""))
    assert r.returncode == 0, r.stderr[-3000:]
    want = json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1][2:])
    return loaded, want


@pytest.mark.subprocess
@pytest.mark.parametrize("key", ["serving_default", "scaled", "single"])
def test_signature_specs_are_tfs(both, key):
    loaded, want = both
    assert sorted(loaded.signatures) == sorted(want)
    sig = loaded.signatures[key]
    args, kwargs = sig.structured_input_signature
    got = {"args": list(args), "kwargs": {k: _spec(v) for k, v in kwargs.items()},
           "outputs": {k: _spec(v) for k, v in sig.structured_outputs.items()},
           "repr": [repr(tuple(args)), sorted(map(repr, kwargs.values()))],
           "outputs_repr": sorted(map(repr, sig.structured_outputs.values()))}
    # (The inputs' reprs are compared as a set: TF's order is its SignatureDef's input
    # map's, which protobuf does not fix; two CI runs of TF gave two orders.)
    # (A dict of outputs is in its keys' order here, JAX's pytree order; TF keeps the
    # function's order: the dicts are compared, not their order.)
    assert got == want[key]


@pytest.mark.subprocess
def test_the_specs_name_what_a_call_takes_and_gives(both):
    loaded, _ = both
    sig = loaded.signatures["scaled"]
    _, kwargs = sig.structured_input_signature
    out = sig(**{k: tf.ones([2, 4, 3], s.dtype) if s.shape.rank else tf.constant(3, s.dtype)
                 for k, s in kwargs.items()})
    assert sorted(out) == sorted(sig.structured_outputs)
    assert out["output_0"].numpy().sum() == 3 * 2 * 4 * 3
    assert out["output_1"].numpy().tolist() == [2, 4, 3]
