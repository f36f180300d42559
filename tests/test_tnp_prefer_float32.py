"""tf.experimental.numpy after experimental_enable_numpy_behavior(prefer_float32=...),
against TensorFlow (census tf_numpy_guide): with prefer_float32 TF-NumPy's result_type
takes a Python float (np.float64 too, a subclass of float) as float32 and a complex
as complex64, in its functions and in the operators; the defaults that are no Python
value (tnp.ones, tnp.random, NumPy's float64 arrays) stay float64.

TF's numpy behaviour is per process with no way back, so its side runs in a
TensorFlow subprocess (one for each prefer_float32, cached by tf_oracle.cached)."""
import json
import subprocess
import sys

import numpy as np
import pytest

import eagertape.tf as tf
import tf_oracle

tnp = tf.experimental.numpy

# Expressions in tf, tnp and np; each gives a tensor whose dtype and value are compared.
CASES = [
    "tnp.asarray(1.)", "tnp.asarray([1., 2.])", "tnp.asarray(np.array([1., 2.]))",
    "tnp.asarray(1)", "tnp.array(1.5)", "tnp.array([1j])", "tnp.asarray(1. + 2j)",
    "tnp.asarray(np.float64(0.5))", "tnp.asarray(1., float)",
    "tnp.add(1., 2.)", "tnp.add(1, 2.)", "tnp.multiply(tnp.asarray([1, 2]), 2.5)",
    "tnp.maximum(1., tnp.asarray([1, 2]))", "tnp.sqrt(4.)", "tnp.exp(1)",
    "tnp.where(True, 1., 2.)", "tnp.full(2, 1.5)", "tnp.arange(3.)", "tnp.arange(3)",
    "tnp.linspace(0, 1, 3)", "tnp.ones(2)", "tnp.zeros((2,))", "tnp.eye(2)",
    "tnp.zeros(2, float)", "tnp.full_like(tnp.asarray([1, 2]), 1.5)",
    "tnp.sqrt(tnp.asarray([1, 4]))", "tnp.mean(tnp.asarray([1, 2]))",
    "tnp.true_divide(tnp.asarray([1, 2]), 2)", "tnp.sum(tnp.asarray([1., 2.]))",
    "tnp.log(tnp.asarray([1., 2.], 'float32'))",
    # the operators (TF's legacy mode)
    "tnp.asarray([1, 2], tnp.int32) + 2.5", "tnp.asarray([1., 2.], 'float32') * 2.0",
    "tnp.asarray([1.5, 2.5], 'float16') + 1.0", "tnp.asarray([1, 2], 'int32') / 2",
    "tnp.float64(1.0) + tnp.asarray(1.)", "tf.constant(1.) + 2.0",
    "tf.constant([1, 2]) + 2.5", "tnp.ones(2) * 1.5", "tf.constant([1., 2.], tf.float64) + 1.0",
    "tf.constant(1., tf.float16) * 1j",
]
# Random draws: their dtype and shape only (the numbers are JAX's, not TF's).
RANDOM = ["tnp.random.randn(2)", "tnp.random.rand(2)", "tnp.random.standard_normal(2)"]

_EVAL = r"""
def _evaluate(tf, tnp, np, cases, random):
    out = {}
    for c in cases + random:
        v = eval(c)
        out[c] = [np.dtype(v.dtype.as_numpy_dtype).name, list(v.shape),
                  None if c in random else repr(np.asarray(v).tolist())]
    return out
"""
exec(_EVAL)

_TF = _EVAL + r"""
import json, sys
import numpy as np
import tensorflow as tf
import tensorflow.experimental.numpy as tnp
tnp.experimental_enable_numpy_behavior(prefer_float32=sys.argv[1] == "1")
cases, random = json.loads(sys.argv[2])
print("@@" + json.dumps(_evaluate(tf, tnp, np, cases, random)))
"""


def _tf_side(prefer):
    r = subprocess.run([sys.executable, "-c", _TF, "1" if prefer else "0",
                        json.dumps([CASES, RANDOM])],
                       capture_output=True, text=True, timeout=300,
                       env=dict(__import__("os").environ, TF_CPP_MIN_LOG_LEVEL="3",
                                CUDA_VISIBLE_DEVICES=""))
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1][2:])


@pytest.fixture(scope="module", params=[False, True], ids=["default", "prefer_float32"])
def sides(request):
    tf_oracle.require()
    prefer = request.param
    want = tf_oracle.cached("tnp_prefer_float32", (_TF, CASES, RANDOM, prefer),
                            lambda: _tf_side(prefer))
    tnp.experimental_enable_numpy_behavior(prefer_float32=prefer)
    try:
        got = _evaluate(tf, tnp, np, CASES, RANDOM)
    finally:
        tnp._disable_numpy_behavior()
    return prefer, want, got


@pytest.mark.subprocess
@pytest.mark.parametrize("case", CASES + RANDOM)
def test_dtype_and_value_as_tf(sides, case):
    prefer, want, got = sides
    assert got[case] == want[case], (case, prefer)


@pytest.mark.subprocess
def test_prefer_float32_changes_what_tf_says(sides):
    # The cases are not blind to the switch: TF's answers differ where it matters.
    prefer, want, _ = sides
    assert want["tnp.asarray(1.)"][0] == ("float32" if prefer else "float64")
    assert want["tnp.asarray([1.5, 2.5], 'float16') + 1.0"][0] == (
        "float32" if prefer else "float16")
    assert want["tnp.ones(2)"][0] == "float64"


def test_switched_off_again():
    tnp.experimental_enable_numpy_behavior(prefer_float32=True)
    try:
        assert tnp.asarray(1.).dtype == tf.float32
    finally:
        tnp._disable_numpy_behavior()
    assert tnp.asarray(1.).dtype == tf.float64
    assert tnp.add(1., 2.).dtype == tf.float64
