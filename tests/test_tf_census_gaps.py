"""The facade's small gaps the census found (issues 37/38), each against TensorFlow:
tf.keras.__version__, tf.config.experimental.enable_op_determinism,
tf.experimental.numpy.random and indexing by a tuple of bools, Dataset.from_generator
with one TensorSpec, tf.debugging.check_numerics in a tf.function, the key order of
tf.io.parse_*example's result, and TensorShape.dims' Dimension objects.

TF's op determinism and numpy behaviour are per process with no way back, so their
TF side runs in one TensorFlow subprocess (cached by tf_oracle.cached)."""
import json
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import eagertape.tf as tf
import program_server
import tf_oracle
from eagertape import _host_errors

tnp = tf.experimental.numpy


# -- 1. tf.keras.__version__ -------------------------------------------------------------
def _keras_version(which):
    # Keras has one backend a process: each side in a process of its own.
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("KERAS_BACKEND", None)
    mod = {"tf": "tensorflow", "eagertape": "eagertape.tf"}[which]
    r = program_server.run(f"import {mod} as tf; print('@@' + tf.keras.__version__)", [],
                           preload=f"import {mod}", env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return [ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1][2:]


@pytest.mark.subprocess
def test_keras_version_is_tfs():
    tf_oracle.require()
    want = tf_oracle.cached("tf_keras_version", (_keras_version,),
                            lambda: _keras_version("tf"))
    assert _keras_version("eagertape") == want


# -- 2. and 3.: TF's per-process switches, in a subprocess ----------------------------------
_TF_SWITCHES = r"""
import json, tensorflow as tf
import tensorflow.experimental.numpy as tnp
out = {}
tf.config.experimental.enable_op_determinism()
try:
    tf.random.normal([2])
    out["unseeded"] = "returned"
except Exception as e:
    out["unseeded"] = [type(e).__name__, str(e)]
out["op_seed"] = list(tf.random.uniform([3], seed=3).shape)
tf.random.set_seed(1)
out["global_seed"] = list(tf.random.normal([2]).shape)
tnp.experimental_enable_numpy_behavior()
x = tnp.arange(24).reshape(2, 3, 4)
for name, f in [("cols", lambda: x[:, (True, False, True)]),
                ("rows", lambda: x[(True, False),]),
                ("mixed", lambda: x[1, (True, False, True), 0]),
                ("list", lambda: x[:, [False, True, True]]),
                ("ints", lambda: x[:, (0, 2)])]:
    r = f()
    out[name] = [list(r.shape), r.numpy().ravel().tolist()]
print(json.dumps(out))
"""


def _run_tf_switches():
    r = subprocess.run([sys.executable, "-c", _TF_SWITCHES], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def tf_switches():
    tf_oracle.require()
    return tf_oracle.cached("tf_census_gaps_switches", (_TF_SWITCHES,), _run_tf_switches)


@pytest.fixture
def determinism():
    before = os.environ.get("XLA_FLAGS")
    yield
    tf.config.experimental._disable_op_determinism()
    tf.random.set_seed(None)
    assert os.environ.get("XLA_FLAGS") == before


@pytest.mark.subprocess
def test_op_determinism_as_tf(tf_switches, determinism):
    tf.random.set_seed(None)    # (a test before, in this process, may have set one)
    tf.config.experimental.enable_op_determinism()
    # XLA's GPU flag is in XLA_FLAGS (for a backend not started yet, and subprocesses).
    assert "--xla_gpu_deterministic_ops=true" in os.environ["XLA_FLAGS"].split()
    with pytest.raises(RuntimeError) as e:
        tf.random.normal([2])
    assert [type(e.value).__name__, str(e.value)] == tf_switches["unseeded"]
    assert list(tf.random.uniform([3], seed=3).shape) == tf_switches["op_seed"]
    tf.random.set_seed(1)
    a = tf.random.normal([2])
    assert list(a.shape) == tf_switches["global_seed"]
    tf.random.set_seed(1)
    np.testing.assert_array_equal(tf.random.normal([2]).numpy(), a.numpy())


def test_op_determinism_off_again(determinism):
    tf.config.experimental.enable_op_determinism()
    tf.config.experimental._disable_op_determinism()
    tf.random.set_seed(None)
    assert tf.random.normal([2]).shape == (2,)


@pytest.mark.subprocess
@pytest.mark.parametrize("name", ["cols", "rows", "mixed", "list", "ints"])
def test_numpy_behavior_tuple_of_bools_index(tf_switches, name):
    tnp.experimental_enable_numpy_behavior()
    try:
        x = tnp.arange(24).reshape(2, 3, 4)
        r = {"cols": lambda: x[:, (True, False, True)],
             "rows": lambda: x[(True, False),],
             "mixed": lambda: x[1, (True, False, True), 0],
             "list": lambda: x[:, [False, True, True]],
             "ints": lambda: x[:, (0, 2)]}[name]()
        assert [list(r.shape), r.numpy().ravel().tolist()] == tf_switches[name]
    finally:
        tnp._disable_numpy_behavior()


def test_tuple_of_bools_index_gradient():
    x = tf.Variable(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x[:, (True, False, True)] ** 2)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[0, 0, 4], [6, 0, 10]])


# -- 3. tf.experimental.numpy.random ------------------------------------------------------
def _tnp_random(tf):
    tnp = tf.experimental.numpy
    draws = {
        "randn": lambda: tnp.random.randn(2, 3),
        "standard_normal": lambda: tnp.random.standard_normal(4),
        "rand": lambda: tnp.random.rand(3),
        "random": lambda: tnp.random.random((2, 2)),
        "uniform": lambda: tnp.random.uniform(size=(5,)),
        "uniform_bcast": lambda: tnp.random.uniform([0.0, 1.0], [1.0, 3.0]),
        "randint": lambda: tnp.random.randint(2, 5, size=(6,)),
        "randint_high": lambda: tnp.random.randint(4, size=3, dtype=np.int32),
        "poisson": lambda: tnp.random.poisson(3.0, 4),
    }
    out = {}
    for name, draw in draws.items():
        tnp.random.seed(7)
        a = draw()
        tnp.random.seed(7)
        b = draw()
        v = a.numpy()
        out[name] = (a.dtype.name, tuple(a.shape), bool(np.all(v == b.numpy())),
                     bool(np.all(v >= 0)) if name != "randn" and "normal" not in name
                     else None,
                     bool(np.all(v < 5)) if "randint" in name else None)
    try:
        tnp.random.randint(0, 3, dtype=np.int16)
    except ValueError as e:
        out["bad_dtype"] = "ValueError"
    tf.random.set_seed(None)
    return out


def test_numpy_random_as_tf():
    # The numbers are JAX's (TF's generator is not reproduced): dtypes, shapes, ranges,
    # and the seed's sequence again after tnp.random.seed.
    tf_oracle.check(_tnp_random, tf_raises=False)


# -- 4. Dataset.from_generator with one TensorSpec ------------------------------------------
def _gen():
    for i in range(3):
        yield (i,)


@pytest.mark.parametrize("make", [
    lambda tf: tf.data.Dataset.from_generator(
        _gen, output_signature=tf.TensorSpec(shape=(1,), dtype=tf.int64)),
    lambda tf: tf.data.Dataset.from_generator(_gen, output_types=tf.int64,
                                              output_shapes=(1,)),
    lambda tf: tf.data.Dataset.from_generator(_gen, output_types=tf.int64),
    lambda tf: tf.data.Dataset.from_generator(
        _gen, output_signature=(tf.TensorSpec(shape=(), dtype=tf.int64),)),
    lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([[1, 2], [3, 4]]), output_signature=tf.TensorSpec((2,), tf.int32)),
], ids=["one_spec", "types_shapes", "types", "tuple_spec", "list_values"])
def test_from_generator_single_spec(make):
    tf_oracle.check(lambda tf: list(make(tf)), tf_raises=False)


# -- 5. a host callback's error in a compiled call -------------------------------------------
def test_host_errors_mapped():
    def check(x):
        if x < 0:
            raise tf.errors.InvalidArgumentError("negative input")
    f = jax.jit(lambda x: jax.debug.callback(_host_errors.raising(check), x) or x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative input"):
        with _host_errors.mapped():
            f(jnp.float32(-1.0)).block_until_ready()
    # Not kept: JAX's runtime error as it is.
    g = jax.jit(lambda x: jax.debug.callback(check, x) or x)
    with pytest.raises(jax.errors.JaxRuntimeError):
        with _host_errors.mapped():
            g(jnp.float32(-1.0)).block_until_ready()


def _check_numerics_in_function(tf, watched):
    @tf.function
    def f(x):
        return tf.debugging.check_numerics(x * 2.0, "Bad!")
    out = [f(tf.constant([1.0]))]
    for x in (tf.constant([np.inf]), tf.Variable([np.nan])):
        try:
            if watched:
                with tf.GradientTape():
                    f(x)
            else:
                f(x)
            out.append("returned")
        except tf.errors.InvalidArgumentError as e:
            # TF's graph wraps the op's message ("Graph execution error: ... Detected
            # at node ..."): the op's own line is compared.
            line = [ln for ln in str(e).splitlines() if " : " in ln][0]
            out.append(("InvalidArgumentError", line.split(" : ")[-1]))
    return out


@pytest.mark.parametrize("watched", [False, True])
def test_check_numerics_in_function_as_tf(watched):
    tf_oracle.check(_check_numerics_in_function, watched, tf_raises=False)


# -- 6. parse_example's key order ---------------------------------------------------------
def _parse_order(tf, batched):
    f = lambda v: tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    ex = tf.train.Example(features=tf.train.Features(feature={
        "z_fixed": f([1]), "b_var": f([2, 3]), "c_ragged": f([4]), "m_seq": f([5, 6])}))
    desc = {"z_fixed": tf.io.FixedLenFeature([], tf.int64),
            "b_var": tf.io.VarLenFeature(tf.int64),
            "a_fixed": tf.io.FixedLenFeature([], tf.int64, default_value=0),
            "c_ragged": tf.io.RaggedFeature(tf.int64),
            "a_var": tf.io.VarLenFeature(tf.string),
            "m_seq": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
            "b_ragged": tf.io.RaggedFeature(tf.int64)}
    s = ex.SerializeToString()
    out = tf.io.parse_example([s], desc) if batched else tf.io.parse_single_example(s, desc)
    return list(out)


@pytest.mark.parametrize("batched", [False, True])
def test_parse_example_key_order(batched):
    tf_oracle.check(_parse_order, batched, tf_raises=False)


def _sequence_order(tf, batched):
    f = lambda v: tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    se = tf.train.SequenceExample(
        context=tf.train.Features(feature={"z": f([2]), "a": f([1]), "v": f([3])}),
        feature_lists=tf.train.FeatureLists(feature_list={
            "t": tf.train.FeatureList(feature=[f([5]), f([6])]),
            "b": tf.train.FeatureList(feature=[f([5])]),
            "s": tf.train.FeatureList(feature=[f([5])])}))
    cf = {"z": tf.io.FixedLenFeature([], tf.int64), "v": tf.io.VarLenFeature(tf.int64),
          "a": tf.io.FixedLenFeature([], tf.int64)}
    sf = {"t": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
          "s": tf.io.VarLenFeature(tf.int64),
          "b": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)}
    s = se.SerializeToString()
    if batched:
        return [list(d) for d in tf.io.parse_sequence_example([s], cf, sf)]
    return [list(d) for d in tf.io.parse_single_sequence_example(s, cf, sf)]


@pytest.mark.parametrize("batched", [False, True])
def test_parse_sequence_example_key_order(batched):
    tf_oracle.check(_sequence_order, batched, tf_raises=False)


# -- 7. TensorShape.dims -------------------------------------------------------------------
def _dims(tf):
    shape = tf.TensorShape([16, None, 256])
    dims = shape.dims
    return ([type(d).__name__ for d in dims], [d.value for d in dims], [repr(d) for d in dims],
            dims[0].is_compatible_with(tf.compat.v1.Dimension(16)),
            dims[1].is_compatible_with(3), dims[0] == 16, str(dims[1]),
            isinstance(dims[0], tf.compat.v1.Dimension), tf.TensorShape(None).dims,
            tf.constant([[1.0, 2.0]]).shape.dims[1].value, shape.as_list(),
            tf.compat.dimension_value(dims[2]), bool(tf.TensorShape(None)))


def test_tensorshape_dims_are_dimensions():
    tf_oracle.check(_dims, tf_raises=False)


# -- tf.config.optimizer's experimental options, as TF reads them back ----------------------
def _optimizer_options(tf):
    out = [tf.config.optimizer.get_experimental_options()]
    tf.config.optimizer.set_experimental_options({"debug_stripper": False, "min_graph_nodes": 3})
    out.append(tf.config.optimizer.get_experimental_options())
    tf.config.optimizer.set_experimental_options({"min_graph_nodes": 0})
    out.append(tf.config.optimizer.get_experimental_options())
    return [list(d.items()) for d in out]      # in TF's order


def test_optimizer_experimental_options_as_tf():
    tf_oracle.check(_optimizer_options)


# -- py_function with no results ------------------------------------------------------------
def _py_function_without_results(tf):
    seen = []
    out = [tf.py_function(lambda: seen.append(1), [], Tout=()),
           tf.py_function(lambda: seen.append(2), [], Tout=[]),
           tf.py_function(lambda: (1.0,), [], Tout=(tf.float32,))]
    return out, seen


def test_py_function_without_results_as_tf():
    tf_oracle.check(_py_function_without_results)
