"""``eagertape.tf``: TF's names and conventions.

The first part needs no TensorFlow (values from the semantics reference and
TF's documentation); the second runs the same programs through ``tensorflow``
and ``eagertape.tf`` and compares values, dtypes, shapes, gradients and error
classes (skipped where TensorFlow is not installed; `.ci/run` installs it).
"""
import os

import numpy as np
import pytest

import eagertape
import eagertape.tf as etf
import tf_oracle


def grad(tf, f, *xs):
    xs = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(tf, *xs)
    return [None if g is None else g.numpy() for g in tape.gradient(y, xs)]


# -- TF conventions, from the reference (fact 128) and TF's docs -------------------

def test_fact_128_tf_gradient_conventions():
    assert grad(etf, lambda tf, a, b: tf.maximum(a, b), 2.0, 2.0) == [1.0, 0.0]
    assert grad(etf, lambda tf, a, b: tf.minimum(a, b), 2.0, 2.0) == [1.0, 0.0]
    assert grad(etf, lambda tf, x: tf.sqrt(x), 0.0) == [np.inf]
    assert grad(etf, lambda tf, x: tf.nn.relu(x), 0.0) == [0.0]
    assert grad(etf, lambda tf, x: tf.abs(x), 0.0) == [0.0]
    assert grad(etf, lambda tf, x: tf.abs(x), -3.0) == [-1.0]
    np.testing.assert_allclose(
        grad(etf, lambda tf, x: tf.where(x < 10, x, x * x), np.float32([5, 50]))[0], [1, 100])
    np.testing.assert_allclose(
        grad(etf, lambda tf, x: tf.reduce_max(x), np.float32([2, 2, 1]))[0], [0.5, 0.5, 0])


def test_integer_results_are_constants_and_defaults_are_tfs():
    x = etf.constant([[1.0, 5.0], [3.0, 2.0]])
    with etf.GradientTape() as tape:
        tape.watch(x)
        i = etf.argmax(x)
    assert i.dtype == np.int64 and i.numpy().tolist() == [1, 0]     # axis 0, int64
    assert tape.gradient(i, x) is None
    assert etf.range(5).dtype == np.int32 and etf.range(0.0, 1.0, 0.25).dtype == np.float32
    assert etf.zeros([2]).dtype == np.float32 and etf.one_hot([1], 3).dtype == np.float32
    assert etf.divide(etf.constant(1), etf.constant(2)).dtype == np.float64
    assert etf.shape(x).numpy().tolist() == [2, 2] and etf.shape(x).dtype == np.int32
    assert etf.cast(etf.constant([-1.7, 2.7]), etf.int32).numpy().tolist() == [-1, 2]
    assert etf.executing_eagerly() and etf.is_tensor(x) and not etf.is_tensor(1.0)


def test_unsupported_names_point_to_eagertape_numpy():
    for mod, name in [(etf, "fancy_op"), (etf.math, "bessel_j9"), (etf.nn, "no_such_loss"),
                      (etf.linalg, "no_such_op")]:
        with pytest.raises(AttributeError, match="not supported by eagertape's TensorFlow "
                                                 "facade yet; use .*eagertape.numpy"):
            getattr(mod, name)


def test_errors_are_tfs_and_pythons():
    with pytest.raises(etf.errors.InvalidArgumentError, match="indices = 5 is not in"):
        etf.gather(etf.constant([1.0, 2.0]), 5)
    with pytest.raises(ValueError):       # also a ValueError
        etf.split(etf.range(5), 2)


def test_random_is_reproducible_after_set_seed():
    etf.random.set_seed(3)
    a = [etf.random.normal([4]), etf.random.uniform([2], 1, 5), etf.random.shuffle(etf.range(6))]
    etf.random.set_seed(3)
    b = [etf.random.normal([4]), etf.random.uniform([2], 1, 5), etf.random.shuffle(etf.range(6))]
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u.numpy(), v.numpy())
    assert not np.array_equal(a[0].numpy(), etf.random.normal([4]).numpy())
    t = etf.random.truncated_normal([2000], stddev=2.0)
    assert float(etf.reduce_max(etf.abs(t))) <= 4.0
    u = a[1].numpy()
    assert ((u >= 1) & (u < 5)).all() and sorted(b[2].numpy().tolist()) == list(range(6))


@pytest.mark.subprocess
@pytest.mark.eager      # a process's imports: no execution mode changes them
def test_tf_optimizers_are_keras_s_and_say_why_not_when_keras_is_tfs():
    # tf.optimizers is tf.keras.optimizers, as in TF (tests/test_keras.py runs them
    # in a process of their own). Where TensorFlow was imported first, Keras has
    # TF's backend: a clear error, not eagertape's own optimizers in their place.
    # In a process of its own: a test process's Keras is on JAX (tests/conftest.py).
    import subprocess
    import sys
    tf_oracle.require()
    program = """
import tensorflow
tensorflow.keras.layers
import eagertape.tf as etf
try:
    etf.optimizers
except RuntimeError as e:
    print("RAISED", str(e)[:56], "optimizers" in vars(etf))
"""
    env = {k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"}
    r = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                       timeout=300, env=dict(env, TF_CPP_MIN_LOG_LEVEL="3"))
    assert r.returncode == 0, r.stderr[-3000:]
    # (nothing half-made is kept: "optimizers" not in the facade's namespace)
    assert r.stdout.split("\n")[-2] == ("RAISED Keras was imported already with the "
                                        "'tensorflow' backend False")


def test_function_config_and_tensorspec():
    calls = []

    @etf.function(input_signature=[etf.TensorSpec([None], etf.float32)])
    def f(x):
        calls.append(1)
        return etf.reduce_sum(x * x)

    assert float(f(etf.constant([1.0, 2.0]))) == 5.0
    assert float(f(etf.constant([3.0]))) == 9.0          # any size: one trace (TF's)
    with pytest.raises(TypeError, match="input_signature"):
        f(etf.constant([1, 2]))
    assert f.experimental_get_tracing_count() == len(calls) == 1
    etf.config.run_functions_eagerly(True)
    try:
        assert etf.config.functions_run_eagerly()
        f(etf.constant([1.0, 2.0]))
        assert len(calls) == 2                             # plain Python now
    finally:
        etf.config.run_functions_eagerly(False)
    assert [d.device_type for d in etf.config.list_physical_devices("CPU")] == ["CPU"]
    assert etf.autodiff.ForwardAccumulator is etf.autodiff.ForwardAccumulator
    assert repr(etf.TensorSpec([None, 3])) == "TensorSpec(shape=(None, 3), dtype=tf.float32, name=None)"


def test_op_shape_errors_are_invalid_argument_and_type_errors():
    with pytest.raises(etf.errors.InvalidArgumentError, match="add cannot take"):
        etf.constant([1.0, 2.0]) + etf.constant([1.0, 2.0, 3.0])
    with pytest.raises(TypeError):      # still what JAX code expects
        etf.matmul(etf.ones((2, 3)), etf.ones((2, 3)))


def test_control_flow_on_traced_values_that_cannot_run_is_a_clear_error():
    from eagertape import introspect
    v = etf.Variable(1.0)

    @etf.function
    def python_if(x):
        if x > 0:
            return x
        return -x

    @etf.function
    def tape_inside(x):
        with etf.GradientTape() as tape:
            tape.watch(x)
            y = etf.cond(x > 0, lambda: x * 2.0, lambda: x)
        return tape.gradient(y, x)

    @etf.function
    def assign_inside(x):
        return etf.cond(x > 0, lambda: v.assign_add(x), lambda: v.read_value())

    with pytest.raises(NotImplementedError, match="enter the tape outside the tf.function"):
        tape_inside(etf.constant(1.0))
    assert introspect.thread_state().tapes == [] and v.numpy() == 1.0
    # AutoGraph converts a Python `if` on a Tensor; a tf.cond's branches may assign.
    assert float(python_if(etf.constant(-2.0))) == 2.0
    assert float(assign_inside(etf.constant(2.0))) == 3.0 and v.numpy() == 3.0
    assert float(assign_inside(etf.constant(-1.0))) == 3.0 and v.numpy() == 3.0
    # The same with the predicate known when tracing, or eagerly: as TF.
    assert etf.function(lambda x: etf.cond(True, lambda: v.assign_add(x), lambda: v))(
        etf.constant(2.0)).numpy() == 5.0
    assert v.numpy() == 5.0


def test_channels_first_layouts_are_the_channels_last_ops_transposed():
    # TF's CPU kernels take only NHWC, so NCHW is checked against it here.
    rs = np.random.RandomState(0)
    x = etf.constant(rs.randn(2, 5, 6, 3).astype("float32"))
    w = etf.constant(rs.randn(3, 2, 3, 4).astype("float32"))
    to_first = lambda t: etf.transpose(t, [0, 3, 1, 2])  # noqa: E731
    for last, first in [
        (etf.nn.conv2d(x, w, [1, 2, 1, 1], "SAME"),
         etf.nn.conv2d(to_first(x), w, [1, 1, 2, 1], "SAME", data_format="NCHW")),
        (etf.nn.max_pool2d(x, 2, [1, 2, 2, 1], "VALID"),
         etf.nn.max_pool2d(to_first(x), 2, [1, 1, 2, 2], "VALID", data_format="NCHW")),
        (etf.nn.avg_pool2d(x, 3, 1, "SAME"),
         etf.nn.avg_pool2d(to_first(x), 3, 1, "SAME", data_format="NCHW")),
        (etf.nn.depthwise_conv2d(x, w[..., :1], [1, 1, 1, 1], "SAME"),
         etf.nn.depthwise_conv2d(to_first(x), w[..., :1], [1, 1, 1, 1], "SAME", data_format="NCHW")),
    ]:
        np.testing.assert_allclose(to_first(last).numpy(), first.numpy(), rtol=1e-5, atol=1e-5)


# -- differential: the same program through TensorFlow and eagertape.tf ---------------

A = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], np.float32)
B = np.array([[0.5, 1.5, -2.0], [1.0, 2.0, 3.0]], np.float32)
M = np.array([[4.0, 1.0], [1.0, 3.0]], np.float32)
V = np.array([0.3, -1.2, 2.0, 0.7], np.float32)

# name -> program(tf, a, b) returning a Tensor (or a list/tuple of them)
PROGRAMS = {
    "add": lambda tf, a, b: tf.add(a, b), "subtract": lambda tf, a, b: tf.subtract(a, b),
    "multiply": lambda tf, a, b: tf.multiply(a, b), "divide": lambda tf, a, b: tf.divide(a, b + 5),
    "pow": lambda tf, a, b: tf.pow(tf.abs(a) + 1, b), "square": lambda tf, a, b: tf.square(a),
    "sqrt": lambda tf, a, b: tf.sqrt(tf.abs(a) + 1), "exp": lambda tf, a, b: tf.exp(a),
    "log": lambda tf, a, b: tf.math.log(tf.abs(a) + 1), "sin": lambda tf, a, b: tf.sin(a),
    "cos": lambda tf, a, b: tf.cos(a), "tanh": lambda tf, a, b: tf.tanh(a),
    "sigmoid": lambda tf, a, b: tf.sigmoid(a), "abs": lambda tf, a, b: tf.abs(a),
    "maximum": lambda tf, a, b: tf.maximum(a, b), "minimum": lambda tf, a, b: tf.minimum(a, b),
    "log1p": lambda tf, a, b: tf.math.log1p(tf.abs(a)), "expm1": lambda tf, a, b: tf.math.expm1(a),
    "softplus": lambda tf, a, b: tf.math.softplus(a),
    "reciprocal": lambda tf, a, b: tf.math.reciprocal(b + 5), "erf": lambda tf, a, b: tf.math.erf(a),
    "lgamma": lambda tf, a, b: tf.math.lgamma(tf.abs(a) + 0.5),
    "sign": lambda tf, a, b: tf.math.sign(a), "floor": lambda tf, a, b: tf.math.floor(a * 3),
    "round": lambda tf, a, b: tf.math.round(a * 3),
    "squared_difference": lambda tf, a, b: tf.math.squared_difference(a, b),
    "divide_no_nan": lambda tf, a, b: tf.math.divide_no_nan(a, b * tf.cast(b > 1, tf.float32)),
    "cumsum": lambda tf, a, b: tf.math.cumsum(a, axis=1, exclusive=True, reverse=True),
    "is_nan": lambda tf, a, b: tf.math.is_nan(a / (b - b)),
    "is_finite": lambda tf, a, b: tf.math.is_finite(a / b),
    "reduce_sum": lambda tf, a, b: tf.reduce_sum(a, axis=1, keepdims=True),
    "reduce_mean": lambda tf, a, b: tf.reduce_mean(a, axis=[0, 1]),
    "reduce_max": lambda tf, a, b: tf.reduce_max(a, axis=0),
    "reduce_min": lambda tf, a, b: tf.reduce_min(a),
    "reduce_prod": lambda tf, a, b: tf.reduce_prod(a, axis=1),
    "reduce_std": lambda tf, a, b: tf.math.reduce_std(a, axis=0),
    "reduce_variance": lambda tf, a, b: tf.math.reduce_variance(a),
    "reduce_logsumexp": lambda tf, a, b: tf.reduce_logsumexp(a, axis=1),
    "reduce_euclidean_norm": lambda tf, a, b: tf.math.reduce_euclidean_norm(a, axis=1),
    "reduce_any": lambda tf, a, b: tf.reduce_any(a > 2.0, axis=1),
    "reduce_all": lambda tf, a, b: tf.reduce_all(a > -5.0),
    "reduce_mean_int": lambda tf, a, b: tf.reduce_mean(tf.constant([[-3, 2], [4, 7]]), axis=1),
    "argmax": lambda tf, a, b: tf.argmax(a), "argmin": lambda tf, a, b: tf.argmin(a, axis=1),
    "sort": lambda tf, a, b: tf.sort(a, direction="DESCENDING"),
    "argsort": lambda tf, a, b: tf.argsort(a, axis=1),
    "top_k": lambda tf, a, b: tuple(tf.math.top_k(a, k=2)),
    "cast": lambda tf, a, b: tf.cast(a * 2, tf.int32),
    "reshape": lambda tf, a, b: tf.reshape(a, [3, 2]),
    "transpose": lambda tf, a, b: tf.transpose(a),
    "concat": lambda tf, a, b: tf.concat([a, b], axis=0),
    "stack": lambda tf, a, b: tf.stack([a, b], axis=1),
    "unstack": lambda tf, a, b: tf.unstack(a, axis=1),
    "split": lambda tf, a, b: tf.split(a, [1, -1], axis=1),
    "squeeze": lambda tf, a, b: tf.squeeze(tf.expand_dims(a, 0), axis=0),
    "tile": lambda tf, a, b: tf.tile(a, [2, 1]),
    "gather": lambda tf, a, b: tf.gather(a, [2, 0], axis=1),
    "gather_nd": lambda tf, a, b: tf.gather_nd(a, [[1, 2], [0, 0]]),
    "gather_batch": lambda tf, a, b: tf.gather(a, [[0, 2], [1, 1]], axis=1, batch_dims=1),
    "gather_batch_3d": lambda tf, a, b: tf.gather(tf.reshape(tf.concat([a, b], 0), (2, 2, 3)),
                                                  [[2, 0], [1, 1]], axis=2, batch_dims=-1),
    "where": lambda tf, a, b: tf.where(a > b, a, b),
    "where_coords": lambda tf, a, b: tf.where(a > 0.4),
    "zeros_like": lambda tf, a, b: tf.zeros_like(a) + a,
    "ones": lambda tf, a, b: tf.ones([2, 3]) * a, "fill": lambda tf, a, b: tf.fill([2, 3], 1.5),
    "eye": lambda tf, a, b: tf.eye(2, 3), "range": lambda tf, a, b: tf.range(1, 10, 3),
    "linspace": lambda tf, a, b: tf.linspace(0.0, 1.0, 5),
    "one_hot": lambda tf, a, b: tf.one_hot([0, 3, 1], 3, on_value=5.0, off_value=-1.0),
    "matmul": lambda tf, a, b: tf.matmul(a, b, transpose_b=True),
    "tensordot": lambda tf, a, b: tf.tensordot(a, b, axes=[[1], [1]]),
    "einsum": lambda tf, a, b: tf.einsum("ij,kj->ik", a, b),
    "clip_by_value": lambda tf, a, b: tf.clip_by_value(a, -1.0, 1.0),
    "clip_by_norm": lambda tf, a, b: tf.clip_by_norm(a, 1.5),
    "clip_by_global_norm": lambda tf, a, b: tf.clip_by_global_norm([a, b], 2.0)[0],
    "norm": lambda tf, a, b: tf.norm(a), "norm_axis": lambda tf, a, b: tf.norm(a, axis=1),
    "norm_matrix": lambda tf, a, b: tf.norm(a, axis=[0, 1]),
    "norm_l1": lambda tf, a, b: tf.norm(a, ord=1, axis=1),
    "identity": lambda tf, a, b: tf.identity(a),
    "relu": lambda tf, a, b: tf.nn.relu(a), "relu6": lambda tf, a, b: tf.nn.relu6(a * 4),
    "elu": lambda tf, a, b: tf.nn.elu(a), "selu": lambda tf, a, b: tf.nn.selu(a),
    "gelu": lambda tf, a, b: tf.nn.gelu(a), "leaky_relu": lambda tf, a, b: tf.nn.leaky_relu(a),
    "softmax": lambda tf, a, b: tf.nn.softmax(a), "log_softmax": lambda tf, a, b: tf.nn.log_softmax(a),
    "l2_loss": lambda tf, a, b: tf.nn.l2_loss(a),
    "moments": lambda tf, a, b: tf.nn.moments(a, axes=[0]),
    "softmax_xent": lambda tf, a, b: tf.nn.softmax_cross_entropy_with_logits(
        tf.nn.softmax(b), a),
    "sparse_xent": lambda tf, a, b: tf.nn.sparse_softmax_cross_entropy_with_logits(
        tf.constant([2, 0]), a),
    "sigmoid_xent": lambda tf, a, b: tf.nn.sigmoid_cross_entropy_with_logits(
        labels=tf.sigmoid(b), logits=a),
    "bias_add": lambda tf, a, b: tf.nn.bias_add(a, b[0]),
    "linalg.matmul": lambda tf, a, b: tf.linalg.matmul(a, b, transpose_a=True),
    "linalg.inv": lambda tf, a, b: tf.linalg.inv(tf.constant(M) + a[0, 0]),
    "linalg.det": lambda tf, a, b: tf.linalg.det(tf.constant(M) * a[1, 0]),
    "linalg.solve": lambda tf, a, b: tf.linalg.solve(tf.constant(M), tf.transpose(a[:, :2])),
    "linalg.cholesky": lambda tf, a, b: tf.linalg.cholesky(tf.constant(M) + a[0, 0]),
    "linalg.trace": lambda tf, a, b: tf.linalg.trace(tf.matmul(a, b, transpose_b=True)),
    "linalg.diag": lambda tf, a, b: tf.linalg.diag(a[0]),
    "linalg.band_part": lambda tf, a, b: tf.linalg.band_part(tf.matmul(a, a, transpose_a=True), 0, 1),
    "linalg.eigh_values": lambda tf, a, b: tf.linalg.eigh(tf.constant(M) * a[1, 0])[0],
    "linalg.svd_values": lambda tf, a, b: tf.linalg.svd(a)[0],
    "linalg.norm": lambda tf, a, b: tf.linalg.norm(a),
    # tf.math, the rest of the numeric names
    "acosh": lambda tf, a, b: tf.math.acosh(tf.abs(a) + 1.5),
    "asinh": lambda tf, a, b: tf.math.asinh(a), "atanh": lambda tf, a, b: tf.math.atanh(a * 0.3),
    "rint": lambda tf, a, b: tf.math.rint(a * 3) + a,
    "log_sigmoid": lambda tf, a, b: tf.math.log_sigmoid(a),
    "softsign": lambda tf, a, b: tf.math.softsign(a),
    "floormod": lambda tf, a, b: tf.math.floormod(a * 3, b + 5),
    "truncatediv_int": lambda tf, a, b: tf.truncatediv(tf.constant([-7, 7, -8]), tf.constant([2, -2, 3])),
    "truncatemod_int": lambda tf, a, b: tf.truncatemod(tf.constant([-7, 7, -8]), tf.constant([2, -2, 3])),
    "logical_xor": lambda tf, a, b: tf.math.logical_xor(a > 0, b > 0),
    "scalar_mul": lambda tf, a, b: tf.math.scalar_mul(2.5, a),
    "digamma": lambda tf, a, b: tf.math.digamma(tf.abs(a) + 0.5),
    "erfc": lambda tf, a, b: tf.math.erfc(a), "erfinv": lambda tf, a, b: tf.math.erfinv(a * 0.3),
    "ndtri": lambda tf, a, b: tf.math.ndtri(tf.sigmoid(a)),
    "erfcinv": lambda tf, a, b: tf.math.erfcinv(tf.sigmoid(a)),
    "bessel_i0": lambda tf, a, b: tf.math.bessel_i0(a), "bessel_i0e": lambda tf, a, b: tf.math.bessel_i0e(a),
    "bessel_i1": lambda tf, a, b: tf.math.bessel_i1(a), "bessel_i1e": lambda tf, a, b: tf.math.bessel_i1e(a),
    "igamma": lambda tf, a, b: tf.math.igamma(tf.abs(b) + 0.5, tf.abs(a) + 0.1),
    "igammac": lambda tf, a, b: tf.math.igammac(tf.abs(b) + 0.5, tf.abs(a) + 0.1),
    "betainc": lambda tf, a, b: tf.math.betainc(tf.abs(a) + 0.5, tf.abs(b) + 0.5, tf.sigmoid(a)),
    "polygamma": lambda tf, a, b: tf.math.polygamma(tf.constant([[1.0, 2.0, 1.0], [0.0, 1.0, 3.0]]), tf.abs(a) + 0.5),
    "zeta": lambda tf, a, b: tf.math.zeta(tf.abs(a) + 1.5, tf.abs(b) + 0.5),
    "xlogy": lambda tf, a, b: tf.math.xlogy(a * tf.cast(a > 0.4, tf.float32), tf.abs(b) + 0.5),
    "xlog1py": lambda tf, a, b: tf.math.xlog1py(a * tf.cast(a > 0.4, tf.float32), tf.abs(b)),
    "xdivy": lambda tf, a, b: tf.math.xdivy(a * tf.cast(a > 0.4, tf.float32), b + 5),
    "reciprocal_no_nan": lambda tf, a, b: tf.math.reciprocal_no_nan(b * tf.cast(b > 1, tf.float32)),
    "multiply_no_nan": lambda tf, a, b: tf.math.multiply_no_nan(a, b * tf.cast(b > 1, tf.float32)),
    "lbeta": lambda tf, a, b: tf.math.lbeta(tf.abs(a) + 0.5),
    "polyval": lambda tf, a, b: tf.math.polyval([1.5, a, -2.0], b),
    "count_nonzero": lambda tf, a, b: tf.math.count_nonzero(tf.nn.relu(a), axis=1),
    "zero_fraction": lambda tf, a, b: tf.math.zero_fraction(tf.nn.relu(a)),
    "cumprod": lambda tf, a, b: tf.math.cumprod(a, axis=1, exclusive=True, reverse=True),
    "cumprod_plain": lambda tf, a, b: tf.math.cumprod(b, axis=0),
    "cumulative_logsumexp": lambda tf, a, b: tf.math.cumulative_logsumexp(a, axis=1, exclusive=True),
    "cumulative_logsumexp_rev": lambda tf, a, b: tf.math.cumulative_logsumexp(a, axis=0, reverse=True),
    "is_non_decreasing": lambda tf, a, b: tf.math.is_non_decreasing(tf.sort(a[0])),
    "is_strictly_increasing": lambda tf, a, b: tf.math.is_strictly_increasing(a[1]),
    "invert_permutation": lambda tf, a, b: tf.math.invert_permutation(tf.constant([2, 0, 3, 1])),
    "math.l2_normalize": lambda tf, a, b: tf.math.l2_normalize(a, axis=1),
    "in_top_k": lambda tf, a, b: tf.math.in_top_k(tf.constant([2, 0]), a, 2),
    "segment_sum": lambda tf, a, b: tf.math.segment_sum(tf.concat([a, b], 0), tf.constant([0, 0, 2, 2])),
    "segment_mean": lambda tf, a, b: tf.math.segment_mean(tf.concat([a, b], 0), tf.constant([0, 1, 1, 3])),
    "segment_max": lambda tf, a, b: tf.math.segment_max(tf.concat([a, b], 0), tf.constant([0, 0, 2, 2])),
    "segment_min": lambda tf, a, b: tf.math.segment_min(tf.concat([a, b], 0), tf.constant([1, 1, 1, 2])),
    "segment_prod": lambda tf, a, b: tf.math.segment_prod(tf.concat([a, b], 0), tf.constant([0, 0, 1, 1])),
    "unsorted_segment_sum": lambda tf, a, b: tf.math.unsorted_segment_sum(tf.concat([a, b], 0), tf.constant([2, 0, 2, 0]), 4),
    "unsorted_segment_mean": lambda tf, a, b: tf.math.unsorted_segment_mean(tf.concat([a, b], 0), tf.constant([2, 0, 2, 2]), 3),
    "unsorted_segment_max": lambda tf, a, b: tf.math.unsorted_segment_max(tf.concat([a, b], 0), tf.constant([1, 0, 1, 0]), 2),
    "unsorted_segment_min": lambda tf, a, b: tf.math.unsorted_segment_min(tf.concat([a, b], 0), tf.constant([1, 0, 1, 0]), 2),
    "unsorted_segment_prod": lambda tf, a, b: tf.math.unsorted_segment_prod(tf.concat([a, b], 0), tf.constant([1, 0, 1, 0]), 2),
    "unsorted_segment_sqrt_n": lambda tf, a, b: tf.math.unsorted_segment_sqrt_n(tf.concat([a, b], 0), tf.constant([1, 0, 1, 1]), 3),
    "bincount": lambda tf, a, b: tf.math.bincount(tf.constant([1, 3, 3, 0, 5])),
    "bincount_weights": lambda tf, a, b: tf.math.bincount(tf.constant([[1, 2, 1], [0, 2, 2]]), weights=A, minlength=5) * a[0, 0],
    "confusion_matrix": lambda tf, a, b: tf.math.confusion_matrix([1, 2, 0, 2], [1, 1, 0, 2], num_classes=3),
    "accumulate_n": lambda tf, a, b: tf.math.accumulate_n([a, b, a]),
    # array manipulation
    "pad": lambda tf, a, b: tf.pad(a, [[1, 0], [2, 1]], constant_values=0.5),
    "pad_reflect": lambda tf, a, b: tf.pad(a, tf.constant([[1, 1], [2, 2]]), mode="REFLECT"),
    "pad_symmetric": lambda tf, a, b: tf.pad(a, [[0, 1], [3, 1]], mode="symmetric"),
    "reverse": lambda tf, a, b: tf.reverse(a, [1]) * b,
    "reverse_both": lambda tf, a, b: tf.reverse(a, axis=[0, -1]),
    "roll": lambda tf, a, b: tf.roll(a, shift=1, axis=1),
    "roll_multi": lambda tf, a, b: tf.roll(a, shift=[1, -1], axis=[0, 1]),
    "repeat": lambda tf, a, b: tf.repeat(a, 2, axis=1),
    "repeat_list": lambda tf, a, b: tf.repeat(a, [1, 3], axis=0),
    "repeat_flat": lambda tf, a, b: tf.repeat(a, 2),
    "meshgrid": lambda tf, a, b: tf.meshgrid(a[0], b[1, :2]),
    "meshgrid_ij": lambda tf, a, b: tf.meshgrid(a[0], b[1, :2], indexing="ij"),
    "broadcast_to": lambda tf, a, b: tf.broadcast_to(a[0], [4, 3]),
    "broadcast_dynamic_shape": lambda tf, a, b: tf.broadcast_dynamic_shape([2, 1], [1, 3]),
    "boolean_mask": lambda tf, a, b: tf.boolean_mask(a, [[True, False, True], [False, True, True]]),
    "boolean_mask_axis": lambda tf, a, b: tf.boolean_mask(a, [True, False, True], axis=1),
    "sequence_mask": lambda tf, a, b: tf.sequence_mask([1, 3, 2], 4),
    "sequence_mask_float": lambda tf, a, b: tf.sequence_mask(tf.constant([2, 0]), dtype=tf.float32),
    "searchsorted": lambda tf, a, b: tf.searchsorted(tf.sort(a), b, side="right"),
    "slice": lambda tf, a, b: tf.slice(a, [0, 1], [2, -1]),
    "unique": lambda tf, a, b: tuple(tf.unique(tf.constant([4, 1, 4, 2, 1]))),
    "unique_with_counts": lambda tf, a, b: tuple(tf.unique_with_counts(tf.constant([4, 1, 4, 2, 1]))),
    "unique_float": lambda tf, a, b: tf.unique(tf.stop_gradient(tf.concat([a[0], a[0]], 0)))[0],
    "tensor_scatter_nd_update": lambda tf, a, b: tf.tensor_scatter_nd_update(a, [[0, 1], [1, 2]], b[0, :2]),
    "tensor_scatter_nd_add": lambda tf, a, b: tf.tensor_scatter_nd_add(a, [[1]], b[:1]),
    "tensor_scatter_nd_sub": lambda tf, a, b: tf.tensor_scatter_nd_sub(a, [[0, 0], [1, 1]], b[1, :2]),
    "tensor_scatter_nd_max": lambda tf, a, b: tf.tensor_scatter_nd_max(a, [[0, 1], [1, 2]], b[0, :2]),
    "tensor_scatter_nd_min": lambda tf, a, b: tf.tensor_scatter_nd_min(a, [[0, 1], [1, 2]], b[0, :2]),
    "scatter_nd": lambda tf, a, b: tf.scatter_nd([[1], [3]], a, [4, 3]),
    "scatter_nd_repeated": lambda tf, a, b: tf.scatter_nd([[1, 0], [1, 0]], a[0, :2], [2, 2]),
    "identity_n": lambda tf, a, b: tf.identity_n([a, b]),
    "shape_n": lambda tf, a, b: tf.shape_n([a, b[0]]),
    "ensure_shape": lambda tf, a, b: tf.ensure_shape(a, [None, 3]),
    "saturate_cast": lambda tf, a, b: tf.saturate_cast(a * 100, tf.int8),
    "saturate_cast_uint8": lambda tf, a, b: tf.saturate_cast(a * 100, tf.uint8),
    "unravel_index": lambda tf, a, b: tf.unravel_index([1, 5, 4], [2, 3]),
    # tf.nn convolutions, pooling, normalisation
    "conv2d_same": lambda tf, a, b: tf.nn.conv2d(_x4(tf, a, b), _w4(tf, b), strides=1, padding="SAME"),
    "conv2d_valid_strided": lambda tf, a, b: tf.nn.conv2d(_x4(tf, a, b), _w4(tf, b), [1, 2, 1, 1], "VALID"),
    # (TF's CPU kernels have no gradient for dilations > 1: values only)
    "conv2d_dilated": lambda tf, a, b: tf.nn.conv2d(tf.stop_gradient(_x4(tf, a, b)), tf.stop_gradient(_w4(tf, b)[:2]), 1, "SAME", dilations=2),
    "conv2d_explicit": lambda tf, a, b: tf.nn.conv2d(_x4(tf, a, b), _w4(tf, b), 1, [[0, 0], [1, 0], [0, 2], [0, 0]]),
    "conv1d": lambda tf, a, b: tf.nn.conv1d(tf.reshape(_x4(tf, a, b), [2, 12, 2]), tf.reshape(b, [3, 2, 1]), 2, "SAME"),
    "convolution": lambda tf, a, b: tf.nn.convolution(_x4(tf, a, b), _w4(tf, b), padding="VALID"),
    "conv3d": lambda tf, a, b: tf.nn.conv3d(tf.reshape(_x4(tf, a, b), [1, 2, 4, 3, 2]), tf.reshape(_w4(tf, b), [1, 3, 2, 2, 1]), [1, 1, 1, 1, 1], "SAME"),
    "depthwise_conv2d": lambda tf, a, b: tf.nn.depthwise_conv2d(_x4(tf, a, b), tf.reshape(tf.tile(b, [1, 2]), [2, 3, 2, 1]), [1, 1, 1, 1], "SAME"),
    "separable_conv2d": lambda tf, a, b: tf.nn.separable_conv2d(_x4(tf, a, b), tf.reshape(tf.tile(b, [1, 2]), [2, 3, 2, 1]), tf.reshape(a, [1, 1, 2, 3]), [1, 1, 1, 1], "VALID"),
    "conv2d_transpose": lambda tf, a, b: tf.nn.conv2d_transpose(_x4(tf, a, b), tf.reshape(b, [3, 1, 1, 2]), [2, 8, 3, 1], [1, 2, 1, 1], "SAME"),
    "conv2d_transpose_valid": lambda tf, a, b: tf.nn.conv2d_transpose(_x4(tf, a, b), tf.reshape(b, [3, 1, 1, 2]), [2, 6, 3, 1], 1, "VALID"),
    "max_pool2d": lambda tf, a, b: tf.nn.max_pool2d(_x4(tf, a, b), 2, 1, "SAME"),
    "max_pool2d_valid": lambda tf, a, b: tf.nn.max_pool2d(_x4(tf, a, b), [2, 3], [2, 1], "VALID"),
    "avg_pool2d_same": lambda tf, a, b: tf.nn.avg_pool2d(_x4(tf, a, b), 3, 2, "SAME"),
    "avg_pool1d": lambda tf, a, b: tf.nn.avg_pool1d(tf.reshape(_x4(tf, a, b), [2, 12, 2]), 3, 2, "VALID"),
    "pool_max": lambda tf, a, b: tf.nn.pool(_x4(tf, a, b), [2, 2], "MAX", strides=[2, 1], padding="SAME"),
    "batch_normalization": lambda tf, a, b: tf.nn.batch_normalization(a, tf.reduce_mean(a, 0), tf.math.reduce_variance(a, 0), b[0], b[1] + 3.0, 1e-3),
    "batch_normalization_plain": lambda tf, a, b: tf.nn.batch_normalization(a, b[0], tf.abs(b[1]), None, None, 1e-3),
    "space_to_depth": lambda tf, a, b: tf.nn.space_to_depth(tf.reshape(_x4(tf, a, b), [2, 4, 6, 1]), 2),
    "depth_to_space": lambda tf, a, b: tf.nn.depth_to_space(tf.reshape(_x4(tf, a, b), [2, 2, 3, 4]), 2),
    "crelu": lambda tf, a, b: tf.nn.crelu(a),
    "weighted_xent": lambda tf, a, b: tf.nn.weighted_cross_entropy_with_logits(tf.sigmoid(b), a, 2.5),
    "log_poisson_loss": lambda tf, a, b: tf.nn.log_poisson_loss(tf.abs(b), a, compute_full_loss=True),
    "sufficient_statistics": lambda tf, a, b: tf.nn.sufficient_statistics(a, [0], shift=b[0])[1:3],
    "normalize_moments": lambda tf, a, b: tf.nn.normalize_moments(tf.constant(2.0), tf.reduce_sum(a, 0), tf.reduce_sum(a * a, 0), b[0]),
    "weighted_moments": lambda tf, a, b: tf.nn.weighted_moments(a, [1], tf.abs(b)),
    "compute_average_loss": lambda tf, a, b: tf.nn.compute_average_loss(a[:, 0], sample_weight=b[:, 0]),
    "lrn": lambda tf, a, b: tf.nn.local_response_normalization(tf.reshape(_x4(tf, a, b), [1, 2, 4, 6]), 2, 1.0, 0.5, 0.75),
    "nn.top_k": lambda tf, a, b: tuple(tf.nn.top_k(a, 2)),
}


def _x4(tf, a, b):
    # (2, 4, 3, 2) from a and b, without ties (max pooling's gradient picks one)
    return tf.reshape(tf.tile(tf.concat([a, b], 0), [2, 2]), [2, 4, 3, 2]) + \
        0.001 * tf.reshape(tf.range(48, dtype=tf.float32), [2, 4, 3, 2])


def _w4(tf, b):
    return tf.reshape(tf.tile(b, [1, 2]), [3, 2, 2, 1])


def _run(tf, program):
    a, b = tf.constant(A), tf.constant(B)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(a)
        tape.watch(b)
        out = program(tf, a, b)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        total = [tf.reduce_sum(o * o) for o in outs if o.dtype in (tf.float32, tf.float64)]
    grads = []
    for t in total:
        grads.append([None if g is None else g.numpy() for g in tape.gradient(t, [a, b])])
    return outs, grads


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_as_tensorflow(name):
    # TF's side from the TF oracle (tests/tf_oracle.py): once for both modes
    want = tf_oracle.tf_outcome(_run, PROGRAMS[name])
    assert not want.raised, f"TF raised {want.error!r}"
    got = tf_oracle.run(etf, _run, PROGRAMS[name])
    if got.raised:
        raise got.exc
    (want_outs, want_grads), (got_outs, got_grads) = want.value[1], got.value[1]
    tf_oracle.assert_same(got_outs, want_outs, rtol=2e-5, atol=2e-5, where="outputs")
    # where TF gives no gradient, eagertape may give zeros
    tf_oracle.assert_same(got_grads, want_grads, rtol=2e-4, atol=2e-5, none_as_zeros=True,
                          where="gradients")


@pytest.mark.parametrize("program", [
    lambda tf: tf.gather(tf.constant([1.0, 2.0]), 5),
    lambda tf: tf.ensure_shape(tf.ones([2, 3]), [3, 3]),
    lambda tf: tf.tensor_scatter_nd_update(tf.ones([2]), [[3]], [1.0]),
    lambda tf: tf.split(tf.range(5), 2),
    lambda tf: tf.math.top_k(tf.constant([1.0, 2.0]), k=3),
])
def test_same_error_class_as_tensorflow(program):
    theirs = tf_oracle.tf_outcome(program)
    assert theirs.raised and theirs.error.is_a("InvalidArgumentError"), theirs
    with pytest.raises(etf.errors.InvalidArgumentError):
        program(etf)
