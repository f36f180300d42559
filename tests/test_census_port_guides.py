"""Gaps found porting TensorFlow's guides for the census (issue 38), each against
TensorFlow: a loaded signature of one input called with it positionally
(site/en/guide/saved_model.ipynb, cell 21: ``infer(tf.constant(x))``).

eagertape writes a SavedModel; TensorFlow (in a subprocess) and eagertape each load
the same files and make the same calls: the values, or the errors' classes, agree."""
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


class _Model(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="zeta")])
    def one(self, zeta):
        return {"y": zeta * 10.0}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="zeta"),
                                  tf.TensorSpec([None], tf.float32, name="alpha")])
    def two(self, zeta, alpha):
        return {"y": zeta * 10.0 + alpha}


# Each call: (signature, positional values, keyword values); a value is a list (made a
# tensor) or, under "list:", passed as a Python list.
_CALLS = [
    ("one", [[1.0, 2.0]], {}),
    ("one", [], {"zeta": [3.0]}),
    ("one", ["list:", [1.0]], {}),
    ("one", [[1.0], [2.0]], {}),
    ("one", [[1.0]], {"zeta": [2.0]}),
    ("two", [[1.0], [2.0]], {}),
    ("two", [[1.0]], {"alpha": [2.0]}),
    ("two", [], {"zeta": [1.0], "alpha": [2.0]}),
]

_CALL = r"""
def call_all(tf, loaded, calls):
    out = []
    for key, args, kwargs in calls:
        if args[:1] == ["list:"]:
            args = args[1:]
        else:
            args = [tf.constant(a) for a in args]
        kwargs = {k: tf.constant(v) for k, v in kwargs.items()}
        try:
            r = loaded.signatures[key](*args, **kwargs)
            out.append({k: v.numpy().tolist() for k, v in r.items()})
        except Exception as e:
            out.append(type(e).__name__)
    return out
"""

_TF_CALLS = _CALL + r"""
import json, sys
import tensorflow as tf
print("@@" + json.dumps(call_all(tf, tf.saved_model.load(sys.argv[1]), json.loads(sys.argv[2]))))
"""


@pytest.mark.subprocess
def test_loaded_signature_positional_calls_are_tfs(tmp_path):
    path = str(tmp_path / "model")
    m = _Model()
    tf.saved_model.save(m, path, signatures={"one": m.one, "two": m.two})
    env = {k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"}
    r = subprocess.run([sys.executable, "-c", _TF_CALLS, path, json.dumps(_CALLS)],
                       capture_output=True, text=True, timeout=600,
                       env=dict(env, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES=""))
    assert r.returncode == 0, r.stderr[-3000:]
    want = json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1][2:])
    scope = {}
    exec(_CALL, scope)
    got = scope["call_all"](tf, tf.saved_model.load(path), _CALLS)
    # TF: one input positionally (a Tensor only), several keyword-only
    assert want[0] == {"y": [10.0, 20.0]} and want[5] == "TypeError", want
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, dict):
            assert isinstance(g, dict) and sorted(g) == sorted(w), (g, w)
            for k in w:
                np.testing.assert_allclose(g[k], w[k], rtol=1e-6)
        else:
            assert g == w


# -- MultiWorkerMirroredStrategy's cluster_resolver (multi_worker_with_keras, cell 76) -------
_RESOLVER = r"""
import json, os, sys
import {mod} as tf
out = []
os.environ.pop("TF_CONFIG", None)
r = tf.distribute.MultiWorkerMirroredStrategy().cluster_resolver
out.append([type(r).__name__, r.task_type, r.task_id, r.rpc_layer])
r = tf.distribute.cluster_resolver.TFConfigClusterResolver()
os.environ["TF_CONFIG"] = json.dumps({{"cluster": {{"worker": ["localhost:1", "localhost:2"]}},
                                      "task": {{"type": "worker", "index": 1}},
                                      "rpc_layer": "grpc"}})
out.append([r.task_type, r.task_id, r.rpc_layer])
r.task_type, r.task_id = "chief", 0
out.append([r.task_type, r.task_id])
print("@@" + json.dumps(out))
"""


@pytest.mark.subprocess
def test_multi_worker_cluster_resolver_is_tfs():
    env = {k: v for k, v in os.environ.items() if k not in ("KERAS_BACKEND", "TF_CONFIG")}
    env.update(TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    outs = []
    for mod in ("tensorflow", "eagertape.tf"):
        r = subprocess.run([sys.executable, "-c", _RESOLVER.format(mod=mod)], capture_output=True,
                           text=True, timeout=600, env=env)
        assert r.returncode == 0, r.stderr[-3000:]
        outs.append(json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1][2:]))
    want, got = outs
    assert want[0] == ["TFConfigClusterResolver", None, None, None], want
    assert got == want


# -- a checkpoint of a compiled, untrained Keras model (multi_worker_with_keras, cell 89) ----
_UNBUILT_OPTIMIZER = r"""
import json, os, sys, tempfile
import numpy as np
import {mod} as tf
m = tf.keras.Sequential([tf.keras.layers.Input((3,)), tf.keras.layers.Dense(2)])
m.set_weights([np.arange(6.0).reshape(3, 2) / 10, np.array([0.5, -0.5])])
m.compile(loss="mse", optimizer=tf.keras.optimizers.SGD(0.1))
d = tempfile.mkdtemp()
ck = tf.train.Checkpoint(model=m)
tf.train.CheckpointManager(ck, directory=d, max_to_keep=1).save()
ck.restore(tf.train.latest_checkpoint(d))
x = np.arange(24.0).reshape(8, 3).astype("float32") / 24
ds = tf.data.Dataset.from_tensor_slices((x, x[:, :2] * 2)).repeat().batch(4)
h = m.fit(ds, epochs=2, steps_per_epoch=2, verbose=0)
print("@@" + json.dumps([h.history["loss"], int(m.optimizer.iterations.numpy())]))
"""


@pytest.mark.subprocess
def test_restore_of_an_unbuilt_keras_optimizer_is_tfs():
    env = {k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"}
    env.update(TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    outs = []
    for mod in ("tensorflow", "eagertape.tf"):
        r = subprocess.run([sys.executable, "-c", _UNBUILT_OPTIMIZER.format(mod=mod)],
                           capture_output=True, text=True, timeout=600, env=env)
        assert r.returncode == 0, r.stderr[-3000:]
        outs.append(json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1][2:]))
    (want_loss, want_it), (got_loss, got_it) = outs
    assert want_it == got_it == 4
    np.testing.assert_allclose(got_loss, want_loss, rtol=1e-5)
