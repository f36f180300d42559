"""The examples run as a user runs them: a fresh interpreter each, with a timeout."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tf_oracle
from optional import requires

ROOT = Path(__file__).resolve().parent.parent


def run(args, timeout=600):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    p = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=timeout)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_hypersurface():
    out = run(["examples/hypersurface.py"])
    assert "f4([1, 2, 3, 4]) = 100.0" in out and "f4([3, 4, 5, 6]) = 684.0" in out
    assert out.count("[52.0, 38.0, 28.0, 22.0]") == 3       # by hand, tape, differences


def test_seed_programs_verbatim():
    out = run(["examples/seed_programs.py"])
    assert "seed 002: all assertions hold" in out
    assert "Hypersurface: 100.0 Gradient: [52. 38. 28. 22.]" in out
    assert "Total Hypersurface: 900.0 Gradient: [468. 342. 252. 198.]" in out
    assert "dz/dy: 8.0" in out and "dy/dx: 3.0" in out
    assert "d2y/dx2: 6.0" in out          # TF 1's watch rule (the seed calls enable_eager_execution)


def test_seed_003_under_tf2_rules_gives_none():
    # Without tf.enable_eager_execution() the program is TF 2 code: the outer tape
    # watches nothing, so d2y/dx2 is None (TF 2.21 does the same).
    code = """
import eagertape.tf as tf
x = tf.constant(1.0)
with tf.GradientTape() as t:
    with tf.GradientTape() as t2:
        t2.watch(x)
        y = x * x * x
    dy_dx = t2.gradient(y, x)
print(float(dy_dx), t.gradient(dy_dx, x))
"""
    assert run(["-c", code]).split() == ["3.0", "None"]


@requires("keras")
def test_linear_regression():
    out = run(["examples/linear_regression.py"])
    assert "fitted: y = 3.0" in out
    losses = [float(line.split("loss")[1]) for line in out.splitlines() if "loss" in line]
    assert losses[-1] < 0.1 * losses[0]


@requires("keras")
def test_mlp_classifier():
    out = run(["examples/mlp_classifier.py"])
    accuracy = float(out.split("held-out accuracy:")[1].split()[0])
    assert accuracy > 0.95


def test_second_order():
    out = run(["examples/second_order.py"])
    assert "max |H - jax.hessian| = 0.0e+00" in out
    err = float(out.split("max |Hv - H @ v| = ")[1].split()[0])
    assert err < 1e-9
    assert "x = [1.0, 1.0, 1.0, 1.0]" in out and "traced 1x" in out


def test_data_parallel_on_8_simulated_devices():
    env_flags = "--xla_force_host_platform_device_count=8"
    # The 8 devices are the CPU's, simulated, on any machine (a GPU's would be 1).
    code = (f"import os; os.environ['XLA_FLAGS'] = {env_flags!r}; "
            "os.environ['JAX_PLATFORMS'] = 'cpu'; "
            "import runpy; runpy.run_path('examples/data_parallel.py', run_name='__main__')")
    out = run(["-c", code])
    assert "devices: 8 (cpu)" in out
    assert "batch sharding:    P('batch',), 8 shards of (32, 8)" in out
    assert "gradient sharding: P() (replicated weights)" in out
    assert "weight sharding after 50 Adam steps: P()" in out
    assert "of the batch: P('batch',)" in out and "activation: P('batch',)" in out
    diffs = [float(line.rsplit("=", 1)[1]) for line in out.splitlines() if "max |" in line]
    assert len(diffs) == 2 and max(diffs) < 1e-5      # the single-device run, to rounding


def _tf_stdout(tmp_path, name, tf_source, env):
    """The example with ``import tensorflow as tf`` run in TF: its output, kept by the
    TF oracle across runs (keyed by the program's text, TF's and Keras's versions)."""
    def run_tf():
        tf_program = tmp_path / name
        tf_program.write_text(tf_source)
        p = subprocess.run([sys.executable, str(tf_program)], capture_output=True, text=True,
                           timeout=600, env=env)
        assert p.returncode == 0, p.stderr[-3000:]
        return p.stdout
    return tf_oracle.cached("example-in-tf", (name, tf_source), run_tf)


def _epoch_losses(out):
    return [float(line.split("loss")[1].split()[0]) for line in out.splitlines()
            if line.startswith("epoch")]


@requires("keras")
def test_keras_training_loop_is_tensorflows_with_one_import_changed(tmp_path):
    out = run(["examples/keras_training_loop.py"])
    last = out.strip().splitlines()[-1]
    assert float(last.split("validation accuracy")[1]) > 0.95, out
    pytest.importorskip("tensorflow")
    src = (ROOT / "examples" / "keras_training_loop.py").read_text()
    lines = src.splitlines()
    assert lines.count("import eagertape.tf as tf") == 1       # the one line to change
    env = {k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"}
    stdout = _tf_stdout(tmp_path, "tf_loop.py", "\n".join(
        "import tensorflow as tf" if ln == "import eagertape.tf as tf" else ln for ln in lines),
        dict(env, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES=""))
    ours, theirs = _epoch_losses(out), _epoch_losses(stdout)
    assert len(ours) == len(theirs) == 25
    np.testing.assert_allclose(ours, theirs, rtol=2e-3, atol=2e-4)


@requires("orbax.checkpoint")
def test_core_api_mlp_is_tensorflows_with_one_import_changed(tmp_path):
    out = run(["examples/core_api_mlp.py"])
    assert "largest difference 0" in out, out
    pytest.importorskip("tensorflow")
    lines = (ROOT / "examples" / "core_api_mlp.py").read_text().splitlines()
    assert lines.count("import eagertape.tf as tf") == 1       # the one line to change
    stdout = _tf_stdout(tmp_path, "tf_core_mlp.py", "\n".join(
        "import tensorflow as tf" if ln == "import eagertape.tf as tf" else ln for ln in lines),
        dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES=""))
    ours, theirs = _epoch_losses(out), _epoch_losses(stdout)
    assert len(ours) == len(theirs) == 10
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)
    assert "largest difference 0" in stdout


@requires("keras")
def test_keras_custom_fit():
    out = run(["examples/keras_custom_fit.py"])
    summary = [line for line in out.splitlines() if line.startswith("epochs run")][0]
    first, best = (float(v) for v in summary.replace(",", "").split()[-3::2])
    assert best < 0.05 * first, out
    assert "'mae'" in out and "'loss'" in out
