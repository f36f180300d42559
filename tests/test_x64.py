"""Importing eagertape changes no JAX setting and starts no backend; TF's 64-bit
types exist inside eagertape's calls only, so the user's other JAX code keeps its
own defaults."""
import os
import subprocess
import sys
import threading
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import eagertape as et
import eagertape.tf as tf


def _python(code, **env):
    e = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    e.update(env)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.strip().splitlines()[-1]


IMPORT_EVERYTHING = """
import jax
from jax._src import xla_bridge
import eagertape, eagertape.tf as tf, eagertape.numpy, eagertape.nn, eagertape.optimizers
import eagertape.tf.data, eagertape.tf.train, eagertape.tf.experimental.numpy
"""


@pytest.mark.subprocess
def test_import_starts_no_backend_and_changes_no_setting():
    out = _python(IMPORT_EVERYTHING + """
print(xla_bridge.backends_are_initialized(), jax.config.jax_enable_x64)
""")
    assert out == "False False"


@pytest.mark.subprocess
def test_jax_distributed_can_be_initialised_after_import():
    # The README's several-hosts recipe: import first, then initialise (one process).
    out = _python(IMPORT_EVERYTHING + """
import socket
s = socket.socket(); s.bind(("localhost", 0)); port = s.getsockname()[1]; s.close()
jax.distributed.initialize(f"localhost:{port}", num_processes=1, process_id=0)
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = tf.reduce_sum(x * x)
print(tape.gradient(y, x).numpy().tolist(), jax.process_count())
""")
    assert out == "[2.0, 4.0] 1"


@pytest.mark.subprocess
@pytest.mark.parametrize("env", ["1", "0", None])
def test_the_users_x64_choice_is_kept_and_tf_types_are_tfs(env):
    code = """
import jax, jax.numpy as jnp, numpy as np
import eagertape.tf as tf
before = jax.config.jax_enable_x64
x = tf.Variable(tf.constant([1.0, 2.0], tf.float64))
with tf.GradientTape() as tape:
    y = tf.reduce_sum(tf.sin(x) * x)
g = tape.gradient(y, x)
print(before, jax.config.jax_enable_x64, jnp.ones(2).dtype, g.dtype.name, tf.argmax(x).dtype.name)
"""
    out = _python(code, **({} if env is None else {"JAX_ENABLE_X64": env}))
    on = env == "1"
    assert out == f"{on} {on} {'float64' if on else 'float32'} float64 int64"


def _jax_defaults():
    return (jnp.ones(2).dtype, jnp.arange(3).dtype, jax.random.normal(jax.random.key(0), (2,)).dtype,
            jnp.asarray(np.ones(2)).dtype)


def test_64_bit_tensors_in_every_entry_point_leave_the_users_jax_32_bit(_et_mode):
    assert not jax.config.jax_enable_x64
    want = _jax_defaults()
    assert want == (np.float32, np.int32, np.float32, np.float32)
    x = tf.constant([0.5, 1.5], tf.float64)
    v = tf.Variable(x)
    v.assign_add(tf.constant([0.25, 0.25], tf.float64))
    assert v.dtype == np.float64 and v.numpy().tolist() == [0.75, 1.75]

    @tf.function
    def f(a):
        return tf.reduce_sum(a * a * v)

    with tf.GradientTape(persistent=True) as tape:
        y = f(x) + tf.reduce_sum(tf.exp(v))
        z = v * x
    g = tape.gradient(y, v)
    j = tape.jacobian(z, v)
    expected = np.array([0.5, 1.5]) ** 2 + np.exp([0.75, 1.75])
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-15)
    assert g.dtype == j.dtype == np.float64
    np.testing.assert_allclose(j.numpy(), np.diag([0.5, 1.5]), rtol=0)
    with tf.autodiff.ForwardAccumulator(v, tf.constant([1.0, 0.0], tf.float64)) as acc:
        w = v * v
    assert acc.jvp(w).dtype == np.float64 and acc.jvp(w).numpy().tolist() == [1.5, 0.0]
    et.optimizers.SGD(0.5).apply_gradients([(g, v)])
    np.testing.assert_allclose(v.numpy(), np.array([0.75, 1.75]) - 0.5 * expected, rtol=1e-15)
    assert tf.range(3, dtype=tf.int64).dtype == np.int64
    assert tf.reduce_sum(tf.constant([2**40, 1], tf.int64)).numpy() == 2**40 + 1
    assert _jax_defaults() == want
    assert not jax.config.jax_enable_x64


def test_a_failing_call_puts_the_setting_back():
    with pytest.raises(Exception):
        tf.matmul(tf.ones((2, 3), tf.float64), tf.ones((2, 3), tf.float64))
    assert not jax.config.jax_enable_x64 and jnp.ones(1).dtype == np.float32


def test_64_bit_inside_eagertape_calls_only_and_per_thread():
    seen = {}

    def op(a):
        seen["inside"] = jax.config.jax_enable_x64
        return a * 2

    seen_other = []
    ready, go = threading.Event(), threading.Event()

    def other():
        ready.wait(10)
        seen_other.append(jnp.ones(1).dtype)     # while the main thread is in a call
        go.set()

    def slow(a):
        ready.set()
        go.wait(10)
        return a + 1

    et.primitive(op)(tf.constant(1.0, tf.float64))
    t = threading.Thread(target=other)
    t.start()
    out = et.primitive(slow)(tf.constant(1.0, tf.float64))
    t.join()
    assert seen["inside"] is True and out.dtype == np.float64
    assert seen_other == [np.float32]
    assert not jax.config.jax_enable_x64


def test_facade_values_made_in_python_keep_tfs_64_bit_types(_et_mode, tmp_path):
    # Values the facade computes before (or instead of) a recorded call.
    assert tf.random.create_rng_state(1234, "philox").dtype == np.int64
    g = tf.random.Generator.from_seed(1)
    assert g.state.dtype == np.int64 and g.state.numpy()[0] != 0
    assert tf.timestamp().dtype == np.float64
    assert tf.math.count_nonzero(tf.constant([1.0, 0.0, 2.0])).dtype == np.int64
    assert tf.where(tf.constant([True, False, True])).dtype == np.int64
    v = tf.Variable(tf.constant([2**40], tf.int64))
    ckpt = tf.train.Checkpoint(v=v)
    path = ckpt.write(str(tmp_path / "c"))
    v.assign(tf.constant([1], tf.int64))
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no "int64 ... truncated to int32"
        ckpt.restore(path)
    assert v.numpy().tolist() == [2**40] and v.dtype == np.int64
    assert _jax_defaults()[0] == np.float32


def test_check_grads_compares_in_float64_whatever_the_users_jax():
    from eagertape import numpy as tnp
    from eagertape.testing import check_grads
    gx, = check_grads(lambda x: tnp.log(x) * x, ([1.0, 2.0],))
    np.testing.assert_allclose(gx, np.log([1.0, 2.0]) + 1, rtol=1e-12)
    assert not jax.config.jax_enable_x64


def test_the_facade_lists_what_runs_with_64_bit_types():
    # eagertape/tf/_x64.py is the one place that says which facade callables switch
    # JAX's 64-bit types on: every public function and method of the facade's
    # modules, none of Keras's.
    from eagertape.tf import _x64
    scoped = set(_x64.SCOPED)
    for name in ("eagertape.tf.math.add", "eagertape.tf.random.normal",
                 "eagertape.tf.GradientTape.watch", "eagertape.tf.data.Dataset.map",
                 "eagertape.tf.linalg.LinearOperatorLowerTriangular.__init__",
                 "eagertape.tf.train.Checkpoint.save"):
        assert name in scoped, name
    # Keras's own callables (tf.keras is Keras's), not a facade method named after
    # Keras (tf.lite.TFLiteConverter.from_keras_model)
    assert not any(s.startswith("eagertape.tf.keras") or ".keras." in s or "_x64" in s
                   for s in scoped)
    assert len(scoped) == len(_x64.SCOPED) > 800
    # What a fresh interpreter lists (tf.autograph is scoped when first used: a subset)
    r = subprocess.run([sys.executable, "-m", "eagertape.tf._x64"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    listed = r.stdout.split()
    assert len(listed) > 800 and set(listed) <= scoped, r.stderr


def test_every_public_facade_function_is_scoped():
    import inspect
    import types
    missing = []
    for name, mod in sorted(sys.modules.items()):
        if not (name == "eagertape.tf" or name.startswith("eagertape.tf.")) \
                or name.startswith(__import__("eagertape.tf._x64", fromlist=["x"]).UNSCOPED_MODULES):
            continue
        for k, v in vars(mod).items():
            if (isinstance(v, types.FunctionType) and not k.startswith("_")
                    and v.__module__.startswith("eagertape.tf")
                    and not inspect.isgeneratorfunction(v) and not getattr(v, "_x64_scoped", False)):
                missing.append(f"{name}.{k}")
    assert missing == []
