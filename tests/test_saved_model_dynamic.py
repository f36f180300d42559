"""SavedModel signatures that take any size and any rank, and that return text
(census kio_tf_serving, saved_model_guide, simple_audio).

eagertape writes the SavedModels; TensorFlow (in a subprocess) builds the same
modules in TF, and loads eagertape's files: the values TF's loaded signatures give
for eagertape's SavedModel are those of TF's own modules, and so are eagertape's
``load``'s. Covered:

- text outputs (``tf.gather`` of a string constant by computed ids, as a serving
  function's labels) of a signature with ``None`` sizes, through ``tf.image.resize``
  of an image batch of unknown height and width (each of those sizes a JAX symbolic
  size: a string tensor there has a symbolic shape);
- a signature of ``tf.TensorSpec(None)`` (unknown rank): TF's loaded signature is
  called with inputs of ranks 0 to 3, and describes its outputs as TF's does.
"""
import importlib.util
import inspect
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import eagertape.tf as tf

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                reason="tensorflow is not installed")

_LABELS = ["cat", "dog", "bird", "fish"]


def _modules(tf):
    """The modules, in ``tf`` (TensorFlow's, or eagertape's facade)."""
    labels = tf.constant(_LABELS)

    class Classifier(tf.Module):
        def __init__(self):
            self.w = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4) % 5 - 2.0)

        @tf.function(input_signature=[tf.TensorSpec([None, None, None, 3], tf.float32)])
        def serve(self, image):
            small = tf.image.resize(image / 255.0, (4, 4))
            scores = tf.matmul(tf.reduce_mean(small, axis=[1, 2]), self.w)
            ids = tf.argmax(scores, axis=-1)
            return {"label": tf.gather(labels, ids), "ids": ids, "scores": scores}

    class Scaled(tf.Module):
        def __init__(self):
            self.v = tf.Variable(2.0)

        @tf.function
        def __call__(self, x):
            return x * self.v

    class Named(tf.Module):
        def __init__(self):
            self.v = tf.Variable(3.0)

        @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
        def __call__(self, x):
            return {"custom_output_name": x * self.v + 1.0}

    return Classifier, Scaled, Named


def _save_all(tf, folder):
    Classifier, Scaled, Named = _modules(tf)
    c = Classifier()
    tf.saved_model.save(c, os.path.join(folder, "classifier"),
                        signatures={"serving_default": c.serve})
    s = Scaled()
    s(tf.constant(0.0))
    call = s.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32))
    # (TF's get_concrete_function(TensorSpec([None])) after this one gives this very
    # trace, which takes it: eagertape traces [None] anew, so it is not among these.)
    tf.saved_model.save(s, os.path.join(folder, "scaled"), signatures={
        "serving_default": call, "scalar": s.__call__.get_concrete_function(
            tf.TensorSpec([], tf.float32))})
    n = Named()
    tf.saved_model.save(n, os.path.join(folder, "named"), signatures={
        "serving_default": n.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32))})


# What the signatures are called with: images of two sizes, and x of ranks 0 to 3.
_INPUTS = {"classifier": [
    np.arange(2 * 5 * 7 * 3, dtype=np.float32).reshape(2, 5, 7, 3) % 255,
    (np.arange(3 * 9 * 4 * 3, dtype=np.float32).reshape(3, 9, 4, 3) * 7) % 255],
    "x": [np.float32(1.5), np.float32([1.0, -2.0]), np.float32([[1.0, 2.0], [3.0, 4.0]]),
          np.ones((2, 1, 3), np.float32)]}


def _calls(tf, folder, inputs):
    """What the loaded signatures give, and how they describe their outputs."""
    out = {}
    for name in ("classifier", "scaled", "named"):
        loaded = tf.saved_model.load(os.path.join(folder, name))
        out[name] = {"keys": sorted(loaded.signatures)}
        for key, sig in sorted(loaded.signatures.items()):
            specs = sorted(map(repr, sig.structured_outputs.values()))
            takes = sorted(map(repr, sig.structured_input_signature[1].values()))
            args = inputs["classifier" if name == "classifier" else "x"]
            values = []
            for a in args:
                if key == "scalar" and np.ndim(a) != 0:
                    continue
                got = sig(tf.constant(a))
                values.append({k: np.asarray(v.numpy()).tolist() if v.dtype != tf.string
                               else [b.decode() for b in np.asarray(v.numpy()).reshape(-1)]
                               for k, v in got.items()})
            out[name][key] = {"outputs": specs, "inputs": takes, "values": values}
    return out


# TF's side: this file's modules and calls (their source: the test process's
# eagertape is not imported into TF's).
_TF_SIDE = "\n".join([
    "import json, os, sys, tempfile", "import numpy as np", "import tensorflow as tf",
    f"_LABELS = {_LABELS!r}", inspect.getsource(_modules), inspect.getsource(_save_all),
    inspect.getsource(_calls),
    "inputs = np.load(os.path.join(sys.argv[1], 'inputs.npz'))",
    "inputs = {k: [inputs[f'{k}{i}'] for i in range(len(inputs.files)) if f'{k}{i}' in inputs]",
    "          for k in ('classifier', 'x')}",
    "mine = tempfile.mkdtemp()", "_save_all(tf, mine)",
    'print("@@" + json.dumps({"tf": _calls(tf, mine, inputs),',
    '                         "eagertape": _calls(tf, sys.argv[1], inputs)}))'])


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("dynamic"))
    _save_all(tf, folder)
    np.savez(os.path.join(folder, "inputs.npz"), **{
        f"{k}{i}": a for k, arrays in _INPUTS.items() for i, a in enumerate(arrays)})
    env = {k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"}
    r = subprocess.run([sys.executable, "-c", _TF_SIDE, folder],
                       capture_output=True, text=True, timeout=900,
                       env=dict(env, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES=""))
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1][2:])
    return got["tf"], got["eagertape"], _calls(tf, folder, _INPUTS), folder


def _close(got, want):
    assert got.keys() == want.keys()
    for key in want:
        if isinstance(want[key], dict):
            assert got[key]["outputs"] == want[key]["outputs"], key
            assert got[key]["inputs"] == want[key]["inputs"], key
            assert len(got[key]["values"]) == len(want[key]["values"]), key
            for g, w in zip(got[key]["values"], want[key]["values"]):
                assert g.keys() == w.keys()
                for k in w:
                    if w[k] and isinstance(np.ravel(w[k])[0], str):
                        assert g[k] == w[k], (key, k)
                    else:
                        np.testing.assert_allclose(g[k], w[k], rtol=1e-5, atol=1e-5)
        else:
            assert got[key] == want[key]


@pytest.mark.subprocess
@pytest.mark.parametrize("name", ["classifier", "scaled", "named"])
def test_tf_loads_eagertapes_saved_model_as_its_own(results, name):
    want, tf_of_ours, _, _ = results
    _close(tf_of_ours[name], want[name])


@pytest.mark.subprocess
@pytest.mark.parametrize("name", ["classifier", "scaled", "named"])
def test_eagertapes_load_gives_tfs_values(results, name):
    want, _, ours, _ = results
    _close(ours[name], want[name])


@pytest.mark.subprocess
def test_unknown_rank_signature_refuses_a_rank_it_was_not_saved_with(results):
    # (ranks 0 to 4 are saved: TF's graph takes any, so a rank past them is an error
    # here, said as such: docs/differences.md)
    sig = tf.saved_model.load(os.path.join(results[3], "scaled")).signatures["serving_default"]
    assert sig(tf.ones([1, 1, 1, 1]))["output_0"].shape == (1, 1, 1, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="ranks"):
        sig(tf.ones([1] * 6))
