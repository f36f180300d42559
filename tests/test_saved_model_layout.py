"""The files of a SavedModel eagertape writes are TF's files (census kio_tf_serving,
saved_model_guide: a program lists the folder).

The same module is saved by TensorFlow (in a subprocess) and by eagertape: the
folders hold the same files and subfolders (``assets`` even when empty,
``fingerprint.pb``, ``saved_model.pb``, ``variables/variables.{index,data-...}``),
TensorFlow loads eagertape's folder (TF 2's and TF 1's loaders, with Python's
warnings as errors) and gives its own module's outputs, ``fingerprint.pb`` is the
fingerprint TF computes of the files, and eagertape loads the folder in a fresh
process where neither TensorFlow nor protobuf can be imported. A folder of an
earlier eagertape (its payload in ``assets.extra/eagertape/``) still loads.
"""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import eagertape.tf as tf

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                reason="tensorflow is not installed")

_MODULE = '''
class Inner(tf.Module):
    def __init__(self):
        super().__init__()
        self.b = tf.Variable([0.5, -1.0])

class Affine(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
        self.inner = Inner()

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        return tf.matmul(x, self.w) + self.inner.b
'''

_X = [[1.0, 0.0], [0.5, 2.0], [-1.0, 3.0]]

# TF's side: its own SavedModel of the module, its listing and outputs; eagertape's
# folder loaded by TF 2 and TF 1; the fingerprint TF computes of eagertape's files;
# and a copy of eagertape's folder as an earlier eagertape wrote it (the payload as
# files in assets.extra/eagertape/, saved_model.pb without it).
_TENSORFLOW = '''
import io, json, os, shutil, sys, warnings, zipfile
import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import fingerprint_pb2, saved_model_pb2
from tensorflow.python.saved_model.pywrap_saved_model import fingerprinting
''' + _MODULE + '''
def listing(d):
    return sorted(os.path.relpath(os.path.join(r, n), d) + ("/" if n in ds else "")
                  for r, ds, fs in os.walk(d) for n in ds + fs)

folder, mine = sys.argv[1], sys.argv[2]
x = tf.constant(%r)
theirs = os.path.join(folder, "tensorflow")
module = Affine()
tf.saved_model.save(module, theirs)
out = {"listing": listing(theirs), "module": module(x).numpy().tolist()}
with warnings.catch_warnings():
    warnings.simplefilter("error")
    loaded = tf.saved_model.load(mine)
    out["call"] = loaded(x).numpy().tolist()
    out["signature"] = loaded.signatures["serving_default"](x=x)["output_0"].numpy().tolist()
    out["variables"] = [loaded.inner.b.numpy().tolist()]
    with tf.compat.v1.Graph().as_default() as g, tf.compat.v1.Session(graph=g) as s:
        meta = tf.compat.v1.saved_model.load(s, ["serve"], mine)
        sig = meta.signature_def["serving_default"]
        out["v1"] = s.run(sig.outputs["output_0"].name,
                          {sig.inputs["x"].name: np.array(%r, np.float32)}).tolist()

def fields(f):
    return {k: getattr(f, k) for k in ("saved_model_checksum", "graph_def_program_hash",
            "signature_def_hash", "saved_object_graph_hash", "checkpoint_hash")}
computed = fingerprint_pb2.FingerprintDef.FromString(fingerprinting.CreateFingerprintDef(mine))
with open(os.path.join(mine, "fingerprint.pb"), "rb") as f:
    written = fingerprint_pb2.FingerprintDef.FromString(f.read())
out["fingerprint"] = [fields(written), fields(computed)]

old = os.path.join(folder, "old")
shutil.copytree(mine, old)
saved = saved_model_pb2.SavedModel()
with open(os.path.join(old, "saved_model.pb"), "rb") as f:
    saved.ParseFromString(f.read())
payload = saved.meta_graphs[0].collection_def.pop("eagertape_saved_model")
zipfile.ZipFile(io.BytesIO(payload.bytes_list.value[0])).extractall(
    os.path.join(old, "assets.extra", "eagertape"))
with open(os.path.join(old, "saved_model.pb"), "wb") as f:
    f.write(saved.SerializeToString())
print("RESULT", json.dumps(out))
''' % (_X, _X)

# eagertape's load where TensorFlow and protobuf cannot be imported.
_LOAD = '''
import json, sys
sys.modules["tensorflow"] = None
sys.modules["google.protobuf"] = None
import eagertape.tf as tf
out = {}
for name in sys.argv[1:]:
    loaded = tf.saved_model.load(name)
    x = tf.constant(%r)
    out[name] = {"call": loaded(x).numpy().tolist(),
                 "signature": loaded.signatures["serving_default"](x=x)["output_0"]
                 .numpy().tolist(),
                 "w": loaded.w.numpy().tolist(), "b": loaded.inner.b.numpy().tolist()}
assert "tensorflow" not in sys.modules or sys.modules["tensorflow"] is None
print("RESULT", json.dumps(out))
''' % (_X,)


def _run(code, *args):
    env = dict({k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"},
               TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    p = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                       text=True, timeout=900, env=env)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    assert p.returncode == 0 and lines, p.stderr[-4000:]
    return json.loads(lines[-1][len("RESULT "):])


def _listing(d):
    return sorted(os.path.relpath(os.path.join(r, n), d) + ("/" if n in ds else "")
                  for r, ds, fs in os.walk(d) for n in ds + fs)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("layout")
    namespace = {"tf": tf}
    exec(_MODULE, namespace)
    module = namespace["Affine"]()
    mine = folder / "eagertape"
    tf.saved_model.save(module, str(mine))
    expected = module(tf.constant(_X)).numpy().tolist()
    theirs = _run(_TENSORFLOW, folder, mine)
    return folder, mine, expected, theirs


@pytest.mark.subprocess
def test_the_folder_holds_tensorflows_files(saved):
    folder, mine, _, theirs = saved
    assert theirs["listing"] == ["assets/", "fingerprint.pb", "saved_model.pb", "variables/",
                                 "variables/variables.data-00000-of-00001",
                                 "variables/variables.index"]
    assert _listing(mine) == theirs["listing"]
    assert sorted(os.listdir(mine)) == ["assets", "fingerprint.pb", "saved_model.pb",
                                        "variables"]


@pytest.mark.subprocess
def test_tensorflow_loads_the_folder_and_gives_its_modules_outputs(saved):
    _, _, expected, theirs = saved
    np.testing.assert_allclose(expected, theirs["module"], rtol=1e-6)
    for key in ("call", "signature", "v1"):
        np.testing.assert_allclose(theirs[key], theirs["module"], rtol=1e-6)
    assert theirs["variables"] == [[0.5, -1.0]]


@pytest.mark.subprocess
def test_the_fingerprint_is_tensorflows_of_the_files(saved):
    written, computed = saved[3]["fingerprint"]
    assert written == computed


@pytest.mark.subprocess
def test_eagertape_loads_it_and_an_earlier_layout_without_tensorflow(saved):
    folder, mine, expected, theirs = saved
    old = folder / "old"
    assert sorted(os.listdir(old / "assets.extra" / "eagertape"))[-1] == "values.npz"
    out = _run(_LOAD, mine, old)
    for name in (str(mine), str(old)):
        got = out[name]
        np.testing.assert_allclose(got["call"], theirs["module"], rtol=1e-6)
        np.testing.assert_allclose(got["signature"], theirs["module"], rtol=1e-6)
        assert got["w"] == [[1.0, 2.0], [3.0, 4.0]] and got["b"] == [0.5, -1.0]


@pytest.mark.subprocess
def test_keras_model_export_holds_tensorflows_files(tmp_path):
    keras = tf.keras
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    path = tmp_path / "exported"
    model.export(str(path), verbose=False)
    assert _listing(path) == ["assets/", "fingerprint.pb", "saved_model.pb", "variables/",
                              "variables/variables.data-00000-of-00001",
                              "variables/variables.index"]
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(tf.saved_model.load(str(path)).serve(tf.constant(x)).numpy(),
                               model(x).numpy(), rtol=1e-6)
