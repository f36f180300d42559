"""The core's compiled twins (eagertape/_speedups.py): used where built, never stale,
and giving the same results as the pure-Python modules they are compiled from.

`.ci/run` installs with Cython and sets ``EAGERTAPE_EXPECT_COMPILED=1``, so there a
missing twin fails; on a machine that built without Cython or a C compiler the
tests that need twins skip with that reason. The suite runs the twins (an
editable install builds them in place); `.ci/run` runs a fast part of it again
with ``EAGERTAPE_PURE_PYTHON=1``.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

import eagertape
from eagertape import _speedups, introspect

PACKAGE = pathlib.Path(eagertape.__file__).parent
BUILT = all(s == "compiled" for s in _speedups.status.values())
needs_twins = pytest.mark.skipif(
    not BUILT and not os.environ.get("EAGERTAPE_EXPECT_COMPILED"),
    reason="this install has no compiled twins (built without Cython or a C compiler)")


def test_the_twins_are_used_where_built():
    status = introspect.compiled_modules()
    assert set(status) == set(_speedups.COMPILED)
    if os.environ.get("EAGERTAPE_EXPECT_COMPILED") and not os.environ.get("EAGERTAPE_PURE_PYTHON"):
        assert all(s == "compiled" for s in status.values()), status
    for name, why in status.items():
        module = sys.modules[f"eagertape.{name}"]
        compiled = pathlib.Path(module.__file__).parent.name == _speedups.TWINS
        assert compiled == (why == "compiled"), (name, why, module.__file__)
        # The twin is the module: its classes and functions say they are its.
        assert module.__name__ == f"eagertape.{name}"
    assert eagertape.Tensor.__module__ == "eagertape._tensor"


def _run(code, env=None, cwd=None):
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                       text=True, env={**os.environ, **(env or {})}, cwd=cwd, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


@needs_twins
def test_an_edited_source_runs_as_python_until_rebuilt(tmp_path):
    # A copy of the installed package, one module edited after the build.
    copy = tmp_path / "eagertape"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with open(copy / "_record.py", "a") as f:
        f.write("\n# edited after the build\n")
    out = _run("""
        import sys, eagertape
        from eagertape import introspect
        import eagertape.tf as tf
        s = introspect.compiled_modules()
        print(s["_record"]); print(s["_primitive"])
        print(sys.modules["eagertape._record"].__file__.endswith("_record.py"))
        x = tf.Variable(3.0)
        with tf.GradientTape() as t:
            y = x * x
        print(float(t.gradient(y, x)))
        """, env={"PYTHONPATH": str(tmp_path), "EAGERTAPE_PURE_PYTHON": ""}, cwd=tmp_path)
    assert out.split("\n")[:4] == [
        "its source changed since the build: reinstall (pip install -e .)", "compiled",
        "True", "6.0"]


# What the comparison runs: values, gradients, both execution modes, a training
# loop, nested tapes, a Jacobian, errors (their messages), Variables after updates.
_PROGRAM = """
import numpy as np
import eagertape as et
import eagertape.tf as tf
from eagertape import introspect

def show(*values):
    for v in values:
        a = np.asarray(v)
        print(a.dtype, a.shape, a.tobytes().hex())

rng = np.random.default_rng(0)
for mode in ("eager", "fused"):
    with et.execution_mode(mode):
        w = tf.Variable(rng.normal(size=(4, 3)).astype("float32"))
        b = tf.Variable(np.zeros(3, "float32"))
        x = tf.constant(rng.normal(size=(8, 4)).astype("float32"))
        for step in range(4):
            with tf.GradientTape() as tape:
                h = tf.tanh(x @ w + b)
                loss = tf.reduce_mean(h ** 2) + 0.01 * tf.reduce_sum(w * w)
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(0.1 * gw)
            b.assign_sub(0.1 * gb)
            show(loss, gw, gb)
        show(w, b)
        v = tf.Variable(1.5)
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = v * v * v + tf.sin(v)
            dy = inner.gradient(y, v)
        show(dy, outer.gradient(dy, v))
        z = tf.constant(np.linspace(-1, 1, 6, dtype="float32"))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(z)
            out = tf.nn.softmax(z * z)
        show(tape.jacobian(out, z), tape.gradient(out, z))
        try:
            tf.matmul(tf.ones((2, 3)), tf.ones((2, 3)))
        except Exception as e:
            print(type(e).__name__, str(e).splitlines()[0])
        try:
            w.assign(tf.ones((2, 2)))
        except Exception as e:
            print(type(e).__name__, str(e).splitlines()[0])
        show(w)
print(sorted(set(introspect.compiled_modules().values())))
"""


@needs_twins
def test_pure_python_and_the_twins_give_identical_results():
    compiled = _run(_PROGRAM, env={"EAGERTAPE_PURE_PYTHON": ""}).splitlines()
    pure = _run(_PROGRAM, env={"EAGERTAPE_PURE_PYTHON": "1"}).splitlines()
    assert compiled[-1] == "['compiled']"
    assert pure[-1] == "['EAGERTAPE_PURE_PYTHON is set']"
    assert len(compiled) > 40
    assert compiled[:-1] == pure[:-1]
