"""Gaps keras.io census programs met in Keras's own steps (issue 38), each against
TensorFlow's Keras (in a TF subprocess; this process's Keras is on JAX):

1. kio_vq_vae: a layer's tf.argmin (TF's int64) inside fit/evaluate/predict, which
   Keras jits with JAX's 64-bit types off: the step could not be lowered.
2. kio_eikonal: tf.gradients in a functional model's Lambda layer (TF runs it in the
   graph of the model's call), its gradient a model output and fit's loss.

Each program runs as written with ``tf`` TensorFlow or the facade, and gives JSON."""
import json
import os

import numpy as np
import pytest

import program_server
import tf_oracle

tf_oracle.require()


def _run(source, which):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("KERAS_BACKEND", None)
    mod = {"tf": "tensorflow", "eagertape": "eagertape.tf"}[which]
    r = program_server.run(f"import {mod} as tf\n" + source, [], preload=f"import {mod}",
                           env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1][2:])


def _both(name, source, *parts):
    want = tf_oracle.cached(f"keras_misc_{name}", (source, *parts), lambda: _run(source, "tf"))
    return _run(source, "eagertape"), want


def _close(got, want, path="result"):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), path
        for k in want:
            _close(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list) and want and not isinstance(want[0], (int, float)):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{path}[{i}]")
    elif isinstance(want, str):
        assert got == want, path
    else:
        np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float),
                                   rtol=1e-4, atol=1e-5, err_msg=path)


# -- 1. a 64-bit value inside Keras's jitted steps (kio_vq_vae) ----------------------------
_ARGMIN = r"""
import json
import numpy as np
keras = tf.keras
seen = []


class Nearest(keras.layers.Layer):
    # VectorQuantizer's pattern: the nearest code by tf.argmin, one-hot, a 64-bit constant
    def build(self, shape):
        self.codes = self.add_weight(shape=(3, shape[-1]),
                                     initializer=keras.initializers.Constant(0.2))

    def call(self, x):
        i = tf.argmin(x, axis=1)
        seen.append(i.dtype.name)
        scale = tf.cast(tf.constant(0.5, tf.float64), tf.float32)
        return tf.matmul(tf.one_hot(i, 3), self.codes) * scale + x


inp = keras.Input((3,))
h = keras.layers.Dense(3, kernel_initializer=keras.initializers.Constant(0.3),
                       bias_initializer=keras.initializers.Constant([0.1, -0.2, 0.05]))(inp)
out = keras.layers.Dense(4, kernel_initializer=keras.initializers.Constant(0.1))(Nearest()(h))
model = keras.Model(inp, out)
model.compile(keras.optimizers.SGD(0.1),
              keras.losses.SparseCategoricalCrossentropy(from_logits=True))
x = np.random.RandomState(0).rand(12, 3).astype("float32")
y = np.array([0, 1, 2, 3] * 3, dtype=np.int64)     # int64 labels, as NumPy makes them
hist = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0).history
res = {"loss": hist["loss"], "evaluate": model.evaluate(x, y, verbose=0),
       "predict": np.asarray(model.predict(x, batch_size=4, verbose=0)).tolist(),
       "dtypes": sorted(set(seen))}
print("@@" + json.dumps(res))
"""


@pytest.mark.subprocess
def test_argmin_int64_in_keras_jitted_steps():
    got, want = _both("argmin", _ARGMIN)
    assert want["dtypes"] == ["int64"]
    _close(got, want)


# -- 2. tf.gradients in a functional model's Lambda (kio_eikonal) --------------------------
_GRADIENTS = r"""
import json
import numpy as np
keras = tf.keras
layers = keras.layers
a, b, c = (layers.Input((1,), name=n) for n in "abc")
ab = layers.Concatenate()([a, b])
h = layers.Dense(3, activation="tanh", kernel_initializer=keras.initializers.Constant(0.3))(ab)
y = layers.Dense(1, kernel_initializer=keras.initializers.Constant(0.7))(h)
y = layers.Lambda(lambda t: t[0] * t[1] ** 2)([y, b])
g = layers.Lambda(lambda t: tf.gradients(t[0], t[1], unconnected_gradients="zero"))([y, [a, b, c]])
out = layers.Concatenate()(g)
model = keras.Model([a, b, c], out)
xs = [np.array([[0.5], [1.0], [-1.0]], "float32"), np.array([[2.0], [0.1], [0.3]], "float32"),
      np.array([[1.0], [2.0], [3.0]], "float32")]
res = {"shape": str(model.output_shape),
       "predict": model.predict(xs, verbose=0).tolist()}
model.compile(keras.optimizers.SGD(0.05), "mse")
res["loss"] = model.fit(xs, np.ones((3, 3), "float32"), epochs=2, shuffle=False,
                        verbose=0).history["loss"]
res["after"] = model.predict(xs, verbose=0).tolist()
try:
    tf.gradients(tf.constant(1.0), tf.constant(2.0))
    res["eager"] = "returned"
except RuntimeError as e:
    res["eager"] = str(e)
print("@@" + json.dumps(res))
"""


@pytest.mark.subprocess
def test_tf_gradients_in_a_functional_lambda():
    got, want = _both("gradients", _GRADIENTS)
    assert want["eager"].startswith("tf.gradients is not supported when eager execution")
    # c reaches no output: its gradient is zeros ("zero")
    assert [r[2] for r in want["predict"]] == [0.0, 0.0, 0.0]
    _close(got, want)


# -- 3. the order of an autotuned interleave (kio_creating_tfrecords) ----------------------
_ORDER = r"""
import json, os, tempfile
D = tf.data.Dataset
AUTO = tf.data.AUTOTUNE
res = {}
mk = lambda i: D.from_tensors(i).repeat(4)
for name, kw in [("default", {}), ("calls_auto", {"num_parallel_calls": AUTO}),
                 ("calls_1", {"num_parallel_calls": 1}),
                 ("cycle_auto_calls_auto", {"cycle_length": AUTO, "num_parallel_calls": AUTO})]:
    res[name] = [int(x) for x in D.range(6).interleave(mk, **kw)]
folder = tempfile.mkdtemp()
paths = []
for f in range(5):
    paths.append(os.path.join(folder, f"{f}.tfrec"))
    with tf.io.TFRecordWriter(paths[-1]) as w:
        for j in range(4):
            w.write(f"{f}{j}".encode())
for n in (None, AUTO, 1, 3):
    res[f"records_{n}"] = [r.numpy().decode() for r in
                           tf.data.TFRecordDataset(paths, num_parallel_reads=n)]
res["fixed_auto"] = [r.numpy().hex() for r in tf.data.FixedLengthRecordDataset(
    paths, 6, header_bytes=12, num_parallel_reads=AUTO)]
print("@@" + json.dumps(res))
"""


@pytest.mark.subprocess
def test_autotuned_interleave_order_is_tfs():
    # TF's order follows the machine's cores: its answer is kept per core count
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    got, want = _both("order", _ORDER, cores)
    if cores <= 3:      # TF reads one file at a time there: the files in turn
        assert want["records_-1"] == [f"{f}{j}" for f in range(5) for j in range(4)]
    assert got == want
