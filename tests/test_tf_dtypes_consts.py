"""Python and NumPy numbers given to ops, dtypes' names, and float -> int casts,
each checked against TensorFlow (the oracle; tests/tf_oracle.py keeps its answers).

- Python numbers: TF converts them by the op (an operand takes the tensor's dtype;
  a ``float`` attribute such as ``leaky_relu``'s ``alpha`` is a C float; a constant
  TF's own Python code casts, as ``gelu``'s 0.044715 or ``silu``'s ``beta``, is made
  float32 first; a list beside a Tensor in ``concat`` takes its dtype; ``add_n`` and
  ``tensordot`` convert each argument alone). float64 results are compared to the
  last bits, gradients too, so each path shows.
- bfloat16 tensors with Python numbers, NumPy scalars and NumPy bfloat16 arrays.
- ``tf.cast`` of NaN, infinities and out-of-range floats to integers.
- ``str``/``repr``/``name`` of dtypes, and their equality with NumPy's.

Skipped when TensorFlow is not installed.
"""
import numpy as np
import pytest

import tf_oracle

tf_oracle.require()

X = [0.3, -1.7, 2.1, -0.45, 1.2, 0.05]
P = [0.3, 1.7, 2.1, 0.45, 1.2, 0.05]

FLOAT64_ARGUMENTS = [
    "tf.nn.leaky_relu(x, alpha=0.3)", "tf.nn.leaky_relu(x)",
    "tf.nn.leaky_relu(x, alpha=np.float64(0.3))", "tf.nn.leaky_relu(x, alpha=np.array(0.3))",
    "tf.nn.gelu(x)", "tf.nn.gelu(x, approximate=True)",
    "tf.nn.silu(x)", "tf.nn.silu(x, beta=0.7)", "tf.nn.swish(x, beta=1.3)",
    "tf.nn.elu(x)", "tf.nn.selu(x)", "tf.nn.softplus(x)", "tf.math.log_sigmoid(x)",
    "tf.clip_by_value(x, -0.3, 0.7)", "tf.clip_by_norm(x, 0.7)",
    "tf.clip_by_global_norm([x], 0.7)[0]",
    "tf.math.l2_normalize(x, epsilon=0.3)", "tf.nn.l2_normalize(x)",
    "tf.nn.batch_normalization(x, 0.1, 0.3, 0.2, 1.3, 0.001)",
    "tf.nn.batch_normalization(x, 0.1, 0.3, None, None, 0.001)",
    "tf.nn.batch_normalization(x, p * 0.1, p * 0.3, x * 0.2, p * 1.3, 0.001)",
    "tf.nn.weighted_cross_entropy_with_logits(p * 0.3, x, 0.7)",
    "tf.math.scalar_mul(0.3, x)", "tf.pow(p, 0.3)", "tf.math.squared_difference(x, 0.3)",
    "tf.math.divide_no_nan(x, 0.3)", "tf.math.multiply_no_nan(x, 0.3)",
    "tf.maximum(x, 0.3)", "tf.minimum(0.3, x)", "tf.where(x > 0, x, 0.3)",
    "tf.concat([x, [0.3, -1.1]], 0)", "tf.concat([[0.3], x], 0)",
    "tf.stack([x[0], 0.3])", "tf.stack([0.3, x[1]], axis=0)", "tf.stack([x, [0.3] * 6], axis=1)",
    "tf.linalg.lstsq(tf.reshape(x, [3, 2]), tf.reshape(p[:3], [3, 1]), l2_regularizer=0.3)",
    "tf.signal.kaiser_window(6, beta=3.3, dtype=tf.float64)",
    "tf.signal.kaiser_bessel_derived_window(6, beta=3.3, dtype=tf.float64)",
    "tf.cast(0.3, tf.float64) * x", "tf.experimental.numpy.float64(0.3) + x",
]


def _float64_program(tf, expr):
    x = tf.constant(X, dtype=tf.float64)
    p = tf.constant(P, dtype=tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, p])
        y = eval(expr, {"tf": tf, "np": np, "x": x, "p": p})
    return y, tape.gradient(y, [x, p])


@pytest.mark.parametrize("expr", FLOAT64_ARGUMENTS)
def test_python_numbers_in_float64_programs(expr):
    # 1e-12: a constant rounded to float32 on one side only is off by ~1e-8.
    tf_oracle.check(_float64_program, expr, rtol=1e-12, atol=1e-15)


def _in_function_program(tf, expr):
    # The same ops inside a tf.function, differentiated after its trace: a rule
    # that closed over a traced Python number (leaky_relu's alpha did) fails there.
    x = tf.constant(X, dtype=tf.float64)
    p = tf.constant(P, dtype=tf.float64)
    f = tf.function(lambda x, p: eval(expr, {"tf": tf, "np": np, "x": x, "p": p}))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, p])
        y = f(x, p)
    return y, tape.gradient(y, [x, p])


@pytest.mark.parametrize("expr", FLOAT64_ARGUMENTS)
def test_python_numbers_in_float64_programs_inside_tf_function(expr):
    tf_oracle.check(_in_function_program, expr, rtol=1e-12, atol=1e-15, errors="class")


# Where TF raises, as its conversions do (not a float32 quirk: the same rules).
RAISES = [
    "tf.add_n([x, [0.3] * 6])",                      # each input converted alone
    "tf.tensordot(x, [0.3] * 6, 1)",
    "tf.concat([x, tf.constant([0.3])], 0)",         # two tensor dtypes
    "tf.stack([x[0], tf.constant(0.3)])",
    "tf.nn.leaky_relu(x, alpha='0.3')",              # a float attribute
    "tf.nn.leaky_relu(x, alpha=tf.constant(0.3))",
    "tf.nn.local_response_normalization(tf.reshape(x, [1, 1, 2, 3]))",   # no float64 kernel
]


@pytest.mark.parametrize("expr", RAISES)
def test_conversions_that_raise_as_in_tensorflow(expr):
    tf_oracle.check(lambda tf, e: eval(e, {"tf": tf, "np": np,
                                           "x": tf.constant(X, dtype=tf.float64)}),
                    expr, tf_raises=True)


# A Python first argument beside a float64 tensor: TF's eager path takes the
# tensor's dtype, its graph (inside tf.function) converts the first argument alone
# (float32) and raises TypeError; a tensor first converts the Python number to its
# dtype in both.
IN_FUNCTION = [
    "tf.minimum(1.9, q)", "tf.maximum(1.9, q)", "tf.subtract(1.9, q)", "tf.multiply(1.9, q)",
    "tf.add(1.9, q)", "tf.pow(1.9, q)", "tf.math.squared_difference(1.9, q)",
    "tf.math.atan2(1.9, q)", "tf.equal(1.9, q)", "tf.minimum(q, 1.9)", "tf.add(q, 1.9)",
    "tf.where(q > 1.0, q, 1.9)", "tf.maximum(2, tf.constant([1, 3]))",
]


@pytest.mark.parametrize("expr", IN_FUNCTION)
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "tf.function"])
def test_python_first_argument_inside_and_outside_tf_function(expr, traced):
    def prog(tf, e, traced):
        q = tf.constant([1.0, 2.5], dtype=tf.float64)
        f = lambda q: eval(e, {"tf": tf, "q": q})    # noqa: E731
        return (tf.function(f) if traced else f)(q)
    tf_oracle.check(prog, expr, traced, rtol=1e-12, atol=1e-15, errors="class")


BFLOAT16 = [
    "x * 2.5", "2.5 * x", "x * np.float32(2.5)", "x * np.float64(2.5)", "x * bf(2.5)",
    "x + np.array(2.5, dtype=bf)", "x + np.array([2.5, 1, 3], dtype=bf)",
    "tf.add(x, bf(2.5))", "tf.multiply(x, np.float32(2.5))", "tf.maximum(x, bf(0.5))",
    "tf.where(x > 0, x, bf(0.5))", "tf.clip_by_value(x, bf(0), bf(1))",
    "tf.clip_by_value(x, 0.0, 1.0)", "tf.pow(x, bf(2))", "tf.math.maximum(np.array([1, 2, 3], dtype=bf), x)",
    "tf.constant(bf(2.5))", "tf.constant(bf(2.5), dtype=tf.bfloat16)",
    "tf.convert_to_tensor(np.array([1.5], dtype=bf))", "tf.cast(bf(2.5), tf.float32)",
    "tf.fill([2], bf(2.5))", "tf.stack([x, np.array([1, 2, 3], dtype=bf)])",
    "tf.concat([x, np.array([1.0], dtype=bf)], 0)", "tf.nn.leaky_relu(x, alpha=0.3)",
    "tf.constant([bf(2.5), bf(1)])",         # TF refuses a list of them
]


def _bfloat16_program(tf, expr):
    bf = tf.bfloat16.as_numpy_dtype
    x = tf.constant([1.5, -2.25, 3.0], dtype=tf.bfloat16)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = eval(expr, {"tf": tf, "np": np, "x": x, "bf": bf})
    g = tape.gradient(y, x) if y.dtype == tf.bfloat16 else None
    return y, g


@pytest.mark.parametrize("expr", BFLOAT16)
def test_bfloat16_with_python_and_numpy_numbers(expr):
    tf_oracle.check(_bfloat16_program, expr)


OUT_OF_RANGE = [1e10, -1e10, float("nan"), float("inf"), -float("inf"), 3e9, -3e9,
                2147483648.0, -2147483649.0, 300.7, -1.7, 255.9, 256.0, -0.5, 511.0,
                70000.0, -40000.0, 1e19, 5e19, 9.3e18, -9.3e18, 4294967296.0, -129.0]


@pytest.mark.parametrize("src", ["float16", "bfloat16", "float32", "float64"])
def test_float_to_int_cast_out_of_range(src):
    # TF's answer for narrow types (and uint32) depends on the tensor's length
    # (SIMD loop vs scalar tail; README): small tensors, where it is the scalar
    # rule, and every length for int32, int64, uint64.
    def program(tf, src, vals):
        out = {}
        for dst in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
            x = tf.cast(tf.constant(vals, tf.float64), getattr(tf, src))
            out[dst] = [tf.cast(x[i:i + 3], getattr(tf, dst)) for i in range(0, len(vals), 3)]
            if dst in ("int32", "int64", "uint64"):
                out[dst + " whole"] = tf.cast(x, getattr(tf, dst))
        return out
    tf_oracle.check(program, src, OUT_OF_RANGE)


def test_dtype_names_as_tensorflow_prints_them():
    def program(tf):
        ds = [tf.float32, tf.float64, tf.bfloat16, tf.int32, tf.bool, tf.complex64,
              tf.constant([1.0]).dtype]
        return [(str(d), repr(d), d.name, f"{d}") for d in ds]
    tf_oracle.check(program)


def test_dtypes_still_equal_numpy_dtypes_and_names():
    import eagertape.tf as tf
    d = tf.constant([1.0]).dtype
    assert d == np.float32 and d == np.dtype("float32") and d == "float32" and d is tf.float32
    assert hash(d) == hash(np.dtype("float32")) and np.dtype(d) == np.float32
    assert np.zeros(2, dtype=tf.float64).dtype == np.float64
    assert tf.bfloat16 == tf.bfloat16.as_numpy_dtype and tf.int8 != "int16"
