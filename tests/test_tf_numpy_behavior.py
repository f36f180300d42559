"""tf.experimental.numpy.experimental_enable_numpy_behavior against TensorFlow: the
promotion lattice of the operators (TF's guide tf_numpy_type_promotion, its
tables) over every pair of dtypes and over a tensor with a Python scalar, in the
"all" and "safe" modes; and tf.experimental.numpy's functions on variables.

TF's switch is per process and has no public way back, so TF's tables are made in
one TensorFlow subprocess (cached by tf_oracle.cached); eagertape's switch is
turned off after each test.
"""
import json
import subprocess
import sys

import numpy as np
import pytest

import eagertape.tf as tf
import tf_oracle

tnp = tf.experimental.numpy

DTYPES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
          "bfloat16", "float16", "float32", "float64", "complex64", "complex128"]
SCALARS = {"py_int": "3", "py_float": "2.5", "py_complex": "(1+2j)", "py_bool": "True"}

# The TF side: each mode's result dtype (or error class) of a + b and b + a for
# two strong tensors, and of tensor + scalar and scalar + tensor.
_TF_TABLE = f"""
import json, tensorflow as tf
import tensorflow.experimental.numpy as tnp
DTYPES, SCALARS = {DTYPES!r}, {SCALARS!r}
def outcome(f):
    try:
        return f().dtype.name
    except Exception as e:
        return type(e).__name__
out = {{}}
for mode in ("all", "safe"):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode=mode)
    t = {{d: tf.constant(d == "bool" or 1, d) for d in DTYPES}}
    for a in DTYPES:
        for b in DTYPES:
            out[f"{{mode}} {{a}} {{b}}"] = outcome(lambda: t[a] + t[b])
        for s, v in SCALARS.items():
            out[f"{{mode}} {{a}} {{s}}"] = outcome(lambda: t[a] + eval(v))
            out[f"{{mode}} {{s}} {{a}}"] = outcome(lambda: eval(v) + t[a])
print(json.dumps(out))
"""


def _run_tf():
    r = subprocess.run([sys.executable, "-c", _TF_TABLE], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def tf_table():
    tf_oracle.require()
    return tf_oracle.cached("tf_numpy_behavior_table", (_TF_TABLE,), _run_tf)


@pytest.fixture
def numpy_behavior():
    yield
    tnp._disable_numpy_behavior()


def _outcome(f):
    try:
        return f().dtype.name
    except Exception as e:      # noqa: BLE001 - the class is what is compared
        return type(e).__name__


@pytest.mark.subprocess
@pytest.mark.parametrize("mode", ["all", "safe"])
def test_promotion_lattice_as_tf(tf_table, numpy_behavior, mode):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode=mode)
    t = {d: tf.constant(d == "bool" or 1, d) for d in DTYPES}
    got, want = {}, {}
    for a in DTYPES:
        for b in DTYPES:
            got[f"{mode} {a} {b}"] = _outcome(lambda: t[a] + t[b])
        for s, v in SCALARS.items():
            got[f"{mode} {a} {s}"] = _outcome(lambda: t[a] + eval(v))
            got[f"{mode} {s} {a}"] = _outcome(lambda: eval(v) + t[a])
    want = {k: v for k, v in tf_table.items() if k.startswith(mode + " ")}
    assert len(want) == len(DTYPES) ** 2 + 2 * len(DTYPES) * len(SCALARS)
    diff = {k: (want[k], got[k]) for k in want if want[k] != got[k]}
    assert not diff, f"(TF, eagertape) where they differ: {diff}"


def test_guide_examples(numpy_behavior):
    # The guide's cells: values as well as dtypes.
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    r = tf.constant(10, dtype=tf.int32) + tf.constant(5.0)
    assert (r.dtype, float(r)) == (tf.float32, 15.0)
    r = tf.constant(10, tf.int8) + tf.constant(5, tf.uint32)
    assert (r.dtype, int(r)) == (tf.int64, 15)
    r = np.array(3.2, np.float16) + tf.constant(1, tf.int8) + tf.constant(50)
    assert r.dtype == tf.float16 and abs(float(r) - 54.2) < 0.1
    r = tf.constant(5, tf.int16) - tf.constant(1, tf.float32)
    assert (r.dtype, float(r)) == (tf.float32, 4.0)
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="safe")
    with pytest.raises(TypeError, match="SAFE"):
        tf.constant(10, tf.int8) + tf.constant(5, tf.uint32)
    assert (tf.constant(1, tf.int8) + tf.constant(2, tf.int16)).dtype == tf.int16


def test_switch_off_keeps_tf_rule():
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant(10) + tf.constant(5.0)


def test_bad_mode_names_argument():
    with pytest.raises(ValueError, match="dtype_conversion_mode"):
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="loose")


def test_functions_take_variables_as_tf_matmul():
    # keras-io's tensorflow_numpy_models: tnp.matmul(inputs, self.w) with self.w from
    # add_weight; TF's tnp converts tf.Variable, Keras variables and nests of them.
    import keras
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    x = np.ones((2, 3), np.float32)
    for v in (keras.Variable(w), tf.Variable(w)):
        r = tnp.matmul(tnp.asarray(x), v)
        assert r.dtype == tf.float32
        np.testing.assert_allclose(r.numpy(), x @ w)
        np.testing.assert_allclose(tnp.concatenate([v, v]).numpy(), np.concatenate([w, w]))
        assert float(tnp.sum(v)) == 15.0
        np.testing.assert_allclose(tnp.sqrt(v).numpy(), np.sqrt(w))
