"""TF's conversion and dtype rules, with real TensorFlow as the oracle.

Each program is plain TF code taking the module as ``tf`` and runs in TensorFlow
and in ``eagertape.tf``; both must give the same values, dtypes, shapes,
gradients, or errors of the same family (the harness of test_tf_differential).

- Python numbers, lists, tuples and NumPy arrays as operands of Tensor and
  Variable operators, on either side: converted to the tensor's dtype as TF
  converts them (or refused as TF refuses); two tensors of different dtypes
  raise ``InvalidArgumentError``.
- The facade's binary functions (``tf.add``, ``tf.math.subtract``, ``tf.maximum``,
  ``tf.where``, ``tf.matmul``, ``tf.truediv``, ...), each with its TF rule.
- ``tf.linspace``'s and ``tf.range``'s dtypes; the top-level names TF exports;
  facade functions inside ``tf.function``.
Skipped when TensorFlow is not installed.
"""
import operator

import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle

tf_real = tf_oracle.require()   # TensorFlow, imported where a test reads it


def _check(program):
    tf_oracle.check(program, rtol=1e-5, atol=1e-6)


# -- operators ---------------------------------------------------------------------

TENSORS = {
    "f32": lambda tf: tf.constant([1.0, 2.0]),
    "f64": lambda tf: tf.constant([1.0, 2.0], tf.float64),
    "f16": lambda tf: tf.constant([1.0, 2.0], tf.float16),
    "i32": lambda tf: tf.constant([1, 2]),
    "i64": lambda tf: tf.constant([1, 2], tf.int64),
    "u8": lambda tf: tf.constant([1, 2], tf.uint8),
    "bool": lambda tf: tf.constant([True, False]),
    "var_f32": lambda tf: tf.Variable([1.0, 2.0]),
}

OTHERS = {
    "float": lambda tf: 2.5,
    "whole float": lambda tf: 2.0,
    "int": lambda tf: 3,
    "negative int": lambda tf: -1,
    "big int": lambda tf: 2 ** 40,
    "bool": lambda tf: True,
    "complex": lambda tf: 1j,
    "list of floats": lambda tf: [3.0, 4.0],
    "list of ints": lambda tf: [3, 4],
    "tuple of floats": lambda tf: (3.0, 4.0),
    "list of bools": lambda tf: [True, False],
    "nested list": lambda tf: [[1.0], [2.0]],
    "mixed list": lambda tf: [1, 2.5],
    "list of 3": lambda tf: [1.0, 2.0, 3.0],
    "ragged list": lambda tf: [[1.0, 2.0], [3.0]],
    "np float64": lambda tf: np.array([1.5, 2.0]),
    "np int64": lambda tf: np.array([1, 2]),
    "np float32": lambda tf: np.array([1.5, 2.0], np.float32),
    "np bool": lambda tf: np.array([True, False]),
    "np float64 scalar": lambda tf: np.float64(2.5),
    "np int64 scalar": lambda tf: np.int64(3),
    "None": lambda tf: None,
    "str": lambda tf: "a",
    "tensor f32": lambda tf: tf.constant([3.0, 4.0]),
    "tensor f64": lambda tf: tf.constant([3.0, 4.0], tf.float64),
    "tensor i32": lambda tf: tf.constant([3, 4]),
    "tensor bool": lambda tf: tf.constant([True, True]),
    "variable f32": lambda tf: tf.Variable([3.0, 4.0]),
    "variable f64": lambda tf: tf.Variable([3.0, 4.0], dtype=tf.float64),
    "list holding a tensor": lambda tf: [tf.constant(3.0), 4.0],
}

OPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, ">=": operator.ge,
    "&": operator.and_, "|": operator.or_,
}


# Differences kept on purpose, by the rows' names (each a TF quirk, not a rule):
KNOWN = {
    # TF's `|` falls back to `y.__ror__` when conversion fails, and on Python >= 3.10
    # hasattr(type(y), "__ror__") is true for every class (type.__ror__), so TF
    # raises AttributeError; eagertape raises the conversion's TypeError/ValueError.
    **{(t, o, "|", False): "TF's AttributeError from `__or__`"
       for t in TENSORS for o in ("float", "whole float", "complex", "None", "str",
                                  "ragged list", "list of floats", "list of ints", "list of 3",
                                  "mixed list", "nested list", "tuple of floats",
                                  "list holding a tensor", "list of bools")},
    # TF's truediv refuses bool, then NumPy's reflected operator computes on the
    # host and returns a NumPy array; eagertape raises TF's TypeError.
    **{("bool", o, "/", False): "NumPy's fallback computes bool / array"
       for o in OTHERS if o.startswith("np")},
    # Casting a string to int32 is TF's UnimplementedError; eagertape: TypeError.
    ("bool", "str", "*", False): "TF's UnimplementedError",
    # inf // x is inf in TF, nan in XLA's floor division.
    ("f16", "big int", "//", True): "inf // x",
}


def _binary(tensor, other, op, reflected):
    make_t, make_o, f = TENSORS[tensor], OTHERS[other], OPS[op]   # its key: these three

    def program(tf):
        t, o = make_t(tf), make_o(tf)
        return f(o, t) if reflected else f(t, o)
    return program


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("tensor", list(TENSORS))
def test_operator_operands(tensor, op):
    """Every operand kind on both sides of every operator, one tensor dtype a test."""
    failures = []
    for other in OTHERS:
        for reflected in (False, True):
            if reflected and other.startswith(("tensor", "variable")):
                continue     # the tensor's own forward operator: covered with the roles swapped
            if (tensor, other, op, reflected) in KNOWN:
                continue
            program = _binary(tensor, other, op, reflected)
            want, got = tf_oracle.tf_outcome(program), tf_oracle.run(etf, program)
            try:
                tf_oracle.assert_same(got, want, rtol=1e-5, atol=1e-6)
            except AssertionError as e:
                side = f"{other} {op} {tensor}" if reflected else f"{tensor} {op} {other}"
                failures.append(f"{side}: {str(e)[:300]}")
    assert not failures, "\n".join(failures)


def test_operator_cases_the_table_checks():
    """A few of the table's rows by hand: the table cannot pass vacuously."""
    x = etf.constant([1.0, 2.0])
    assert (x * [3.0, 4.0]).dtype == np.float32
    np.testing.assert_array_equal((x * [3.0, 4.0]).numpy(), [3.0, 8.0])
    assert (x * np.array([1.0, 2.0])).dtype == np.float32
    assert (np.array([1.0, 2.0]) * x).dtype == np.float32
    assert (etf.constant([1, 2]) / 2).dtype == np.float64
    assert (etf.constant([1, 2], etf.int8) / 2).dtype == np.float32
    with pytest.raises(TypeError):
        etf.constant([1, 2]) * 2.5
    with pytest.raises(etf.errors.InvalidArgumentError):
        etf.constant(1) + 1.5
    with pytest.raises(etf.errors.InvalidArgumentError):
        x + etf.constant([1.0, 2.0], etf.float64)
    assert (x == None) is False  # noqa: E711
    assert (x != None) is True  # noqa: E711
    assert (x == [1.0, 2.0, 3.0]).shape == () and not bool(x == [1.0, 2.0, 3.0])


MATRICES = {
    "f32": lambda tf: tf.ones((2, 2)),
    "var_f32": lambda tf: tf.Variable(tf.ones((3, 2))),
    "i32": lambda tf: tf.ones((2, 2), tf.int32),
}


@pytest.mark.parametrize("case", [
    "[[1., 2.]] @ f32", "f32 @ [[1.], [2.]]", "[[1, 2]] @ f32", "[[1., 2., 3.]] @ var_f32",
    "np.ones((1, 3)) @ var_f32", "f32 @ np.ones((2, 1))", "[[1.5, 2.]] @ i32",
    "[[1, 2]] @ i32", "f32 @ tf.ones((2, 2), tf.float64)",
])
def test_matmul_operands(case):
    def program(tf):
        names = {k: f(tf) for k, f in MATRICES.items()}
        return eval(case, {"np": np, "tf": tf}, names)
    _check(program)


# -- gradients keep the tensor's dtype --------------------------------------------

GRADIENT_PROGRAMS = {}


def gradient_program(f):
    GRADIENT_PROGRAMS[f.__name__] = f
    return f


@gradient_program
def variable_times_numpy(tf):
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as t:
        y = tf.reduce_sum(v * np.array([3.0, 4.0]))
    return y, t.gradient(y, v)


@gradient_program
def numpy_times_variable_reflected(tf):
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as t:
        y = np.array([3.0, 4.0]) * v + np.float64(0.5) - v / np.array([2.0, 4.0])
    return y, t.gradient(y, v)


@gradient_program
def guide_non_scalar_target(tf):
    # The autodiff guide's cell: x * [3.0, 4.0].
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * [3.0, 4.0]
    return y, tape.gradient(y, x)


@gradient_program
def guide_first_variable_example(tf):
    w = tf.Variable(tf.reshape(tf.range(6.0), (3, 2)) / 10.0, name="w")
    b = tf.Variable(tf.zeros(2, dtype=tf.float32), name="b")
    x = [[1.0, 2.0, 3.0]]
    with tf.GradientTape(persistent=True) as tape:
        y = x @ w + b
        loss = tf.reduce_mean(y ** 2)
    return loss, tape.gradient(loss, [w, b])


@gradient_program
def math_subtract_with_list(tf):
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.math.square(tf.math.subtract(v, [0.94, 1.26, -1.79])))
    return y, t.gradient(y, v)


@gradient_program
def add_list_first(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.add([1.0, 2.0], x) * tf.multiply(np.array([2.0, 3.0]), x)
    return y, t.gradient(y, x)


@gradient_program
def comparison_with_list_selects(tf):
    x = tf.constant([1.0, 3.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.where(x > [2.0, 2.0], x * x, -x)
    return y, t.gradient(y, x)


@gradient_program
def power_and_int_operands(tf):
    x = tf.Variable([1.5, 2.0], dtype=tf.float64)
    with tf.GradientTape() as t:
        y = x ** 2 + 2 ** x + 1 - x * np.float32(0.5) + [[1], [2]]
    return y, t.gradient(y, x)


@gradient_program
def float16_with_numpy_float64(tf):
    x = tf.Variable([1.0, 2.0], dtype=tf.float16)
    with tf.GradientTape() as t:
        y = tf.reduce_sum(x * np.array([0.5, 0.25]) + 0.1)
    return y, t.gradient(y, x)


@gradient_program
def maximum_with_numpy_first(tf):
    v = tf.Variable([1.0, 3.0])
    with tf.GradientTape() as t:
        y = tf.maximum(np.array([2.0, 2.0]), v) + tf.minimum(v, 2)
    return y, t.gradient(y, v)


@gradient_program
def clip_by_value_python_bounds(tf):
    v = tf.Variable([0.5, 3.0])
    with tf.GradientTape() as t:
        y = tf.clip_by_value(v, 1, np.float64(2.5))
    return y, t.gradient(y, v)


def test_float32_model_stays_float32():
    """The issue's example: no float64 behind the user's back, value nor gradient."""
    v = etf.Variable([1.0, 2.0])
    with etf.GradientTape() as t:
        y = v * np.array([1.0, 2.0])
    assert y.dtype == np.float32
    g = t.gradient(y, v)
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g.numpy(), [1.0, 2.0])


# -- facade functions ----------------------------------------------------------------

def _f(expr):
    def program(tf):
        f32, f64 = tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0], tf.float64)
        i32, b = tf.constant([1, 2]), tf.constant([True, False])
        v = tf.Variable([1.0, 2.0])
        return eval(expr, {"np": np, "tf": tf, "f32": f32, "f64": f64, "i32": i32, "b": b,
                           "v": v})
    program.__name__ = expr
    return program


FUNCTION_CASES = [
    # tf.add: x as it is, y converted with x's dtype as a hint
    "tf.add([1., 2.], f32)", "tf.add(f32, np.array([1., 2.]))", "tf.add(np.array([1., 2.]), f32)",
    "tf.add([1, 2], f32)", "tf.add(1, 2.5)", "tf.add(2.5, 1)", "tf.add(f32, f64)",
    "tf.add(v, f32)", "tf.add(v, [1, 2])", "tf.add(i32, 1.5)", "tf.add(i32, np.array([1.5, 1.]))",
    "tf.add(np.array([1.]), 1.5)", "tf.add(1.5, np.array([1.]))", "tf.math.add(f32, 1)",
    # same-dtype ops: the first tensor's dtype, the others converted to it
    "tf.math.subtract(v, [0.94, 1.26])", "tf.subtract(np.array([1., 3.]), v)",
    "tf.subtract(1.5, i32)", "tf.subtract(f64, v)",
    "tf.multiply(i32, 2.5)", "tf.multiply(np.array([1.5, 1.]), i32)", "tf.multiply(2.5, 1)",
    "tf.multiply(1, 2.5)", "tf.multiply(np.array([1., 2.]), [1., 2.])",
    "tf.multiply([1., 2.], np.array([1., 2.]))", "tf.multiply([1, 2], [1.5, 2.5])",
    "tf.maximum(i32, 2.5)", "tf.maximum(np.array([1., 3.]), f32)", "tf.maximum([1., 3.], f32)",
    "tf.minimum(f32, 1)", "tf.maximum(v, np.array([1., 3.]))",
    "tf.pow(f32, 2)", "tf.pow(2, f32)", "tf.pow(f32, np.array([2., 3.]))",
    "tf.math.squared_difference(np.array([1., 3.]), f32)", "tf.math.atan2(np.array([1., 2.]), f32)",
    "tf.math.floordiv(np.array([3., 4.]), i32)", "tf.math.mod(f32, 1)",
    "tf.equal(f32, [1., 3.])", "tf.equal(f32, f64)", "tf.equal(i32, 1.5)", "tf.not_equal(f32, 1)",
    "tf.less(f32, 1)", "tf.less([1, 2], [1.5, 2.5])", "tf.greater(np.array([0., 3.]), f32)",
    "tf.less_equal(f32, [1, 3])", "tf.greater_equal(v, 2)",
    "tf.logical_and(b, [True, True])", "tf.logical_and(b, 1)", "tf.logical_or([False, True], b)",
    # matmul: a as it is, b with a's dtype as a hint
    "tf.matmul([[1., 2.]], tf.ones((2, 2)))", "tf.matmul(np.ones((1, 2)), tf.ones((2, 2)))",
    "tf.matmul(tf.ones((2, 2)), np.ones((2, 1)))", "tf.matmul([[1, 2]], tf.ones((2, 2)))",
    "tf.matmul(tf.ones((2, 2)), [[1], [2]])",
    # truediv: integers in float64, any dtype mismatch a TypeError; divide converts x first
    "tf.truediv(i32, 2)", "tf.math.truediv(i32, 2)", "tf.truediv(f32, np.array([1., 2.]))",
    "tf.truediv(np.array([1., 2.]), f32)", "tf.truediv(i32, 1.5)", "tf.truediv(1, 2)",
    "tf.truediv(i32, f32)", "tf.divide(i32, 2)", "tf.divide(2, i32)", "tf.divide([1, 2], [2, 4])",
    "tf.divide(1, 2)", "tf.divide(f32, 2)", "tf.divide(np.array([1., 2.]), f32)",
    "tf.divide(1.5, i32)", "tf.divide(np.array([1.5, 1]), i32)", "tf.divide(f32, f64)",
    "tf.math.divide_no_nan(f32, [0., 2.])",
    # where, clip_by_value
    "tf.where(b, f32, 0)", "tf.where(b, f32, np.zeros(2))", "tf.where(b, f32, f64)",
    "tf.where(b, 1., 0.)", "tf.where([True, False], [1., 2.], [3., 4.])",
    "tf.where(b, np.zeros(2), f32)", "tf.where(b, 1, f32)", "tf.where(b, 1.5, i32)",
    "tf.where(b, np.zeros(2), 1.)", "tf.where(b, 1., np.zeros(2))", "tf.where(b, 1, 2.5)",
    "tf.clip_by_value(f32, 0, 1)", "tf.clip_by_value(f32, np.float64(0.), 1.5)",
    "tf.clip_by_value(i32, 0, 1.5)",
    # linspace and range dtypes
    "tf.linspace(-2, 2, 5)", "tf.linspace(-2., 2., 5)", "tf.linspace(-2, 2., 5)",
    "tf.linspace(np.float64(-2.), 2., 5)", "tf.linspace(tf.constant(-2), tf.constant(2), 5)",
    "tf.linspace(tf.constant(-2.), 2, 5)", "tf.linspace(tf.constant(-2., tf.float64), 2, 5)",
    "tf.linspace([0., 1.], [1., 2.], 3)", "tf.linspace(tf.constant(-2, tf.int64), 2, 5)",
    "tf.range(5)", "tf.range(5.)", "tf.range(1, 5.)", "tf.range(np.float64(5))",
    "tf.range(np.int64(5))", "tf.range(tf.constant(5))", "tf.range(1, 6, 2)",
    # unary functions on lists and arrays
    "tf.negative([1, 2])", "tf.sign([1., -2.])", "tf.round([0.5, 1.5, 2.5])",
    "tf.floor(np.array([1.5]))", "tf.tan(1.0)", "tf.math.softmax([1., 2.])",
    "tf.math.softmax([[1., 2.], [3., 5.]], axis=0)", "tf.abs([-1, 2])",
    "tf.square(np.array([1.5]))", "tf.reduce_sum([1., 2.])", "tf.reduce_sum([1, 2])",
    "tf.reduce_prod([[1, 2], [3, 4]], axis=0)", "tf.math.cumsum([1, 2, 3])",
    # empty lists hold no float: any dtype takes them (NumPy calls them float64)
    "tf.constant([], tf.int32)", "tf.constant([[]], tf.int64)", "tf.constant([], tf.bool)",
    "tf.convert_to_tensor([], tf.int32)", "tf.constant([[], []], tf.uint8)",
    "tf.constant([1.5, 2.], tf.int32)", "tf.constant(np.array([]), tf.int32)",
    # where a value is, as TF names it
    "tf.constant([1.]).device", "tf.Variable(1.).device", "tf.constant('a').device",
]


@pytest.mark.parametrize("expr", FUNCTION_CASES)
def test_facade_function_conversions(expr):
    _check(_f(expr))


# -- names ---------------------------------------------------------------------------

NEW_NAMES = ["floor", "round", "sign", "equal", "not_equal", "less", "greater", "less_equal",
             "greater_equal", "truediv", "negative", "tan", "newaxis", "acos", "asin", "atan",
             "atan2", "cosh", "sinh", "cumsum", "logical_and", "logical_or", "logical_not"]


def test_top_level_names():
    for name in NEW_NAMES:
        assert hasattr(etf, name), name
        assert hasattr(tf_real, name), name
    assert etf.newaxis is None
    assert etf.math.softmax is etf.nn.softmax


def test_every_math_function_the_facade_has_is_top_level_where_tf_has_it():
    missing = [n for n in dir(tf_real.math) if not n.startswith("_") and hasattr(tf_real, n)
               and getattr(tf_real, n) is getattr(tf_real.math, n)
               and n in vars(etf.math) and n not in vars(etf)]
    assert missing == []


@pytest.mark.parametrize("expr", [
    "tf.floor([1.5, -1.5])", "tf.round([0.5, 1.5, -2.5])", "tf.sign([-2., 0., 3.])",
    "tf.equal([1, 2], [1, 3])", "tf.not_equal([1., 2.], 2.)", "tf.less([1., 2.], 2.)",
    "tf.greater([1., 2.], 1.)", "tf.less_equal([1, 2], 1)", "tf.greater_equal([1, 2], 2)",
    "tf.truediv([1, 2], [2, 2])", "tf.negative([1., -2.])", "tf.tan([0.5])",
    "tf.acos([0.5])", "tf.asin([0.5])", "tf.atan([0.5])", "tf.atan2([1.], [2.])",
    "tf.cosh([0.5])", "tf.sinh([0.5])", "tf.cumsum([1., 2., 3.])",
    "tf.logical_and([True, False], [True, True])", "tf.logical_or([True, False], False)",
    "tf.logical_not([True, False])", "tf.constant([1., 2.])[tf.newaxis, :]",
])
def test_new_names_values(expr):
    _check(_f(expr))


@gradient_program
def embedding_lookup(tf):
    p = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as t:
        y = tf.nn.embedding_lookup(p, [2, 0, 2])
        z = tf.nn.embedding_lookup(p, [[0, 1], [2, 2]])
        s = tf.reduce_sum(y * [[1.0], [2.0], [3.0]]) + tf.reduce_sum(z)
    return y, z, tf.convert_to_tensor(t.gradient(s, p))


@gradient_program
def embedding_lookup_out_of_range(tf):
    return tf.nn.embedding_lookup(tf.constant([[1.0, 2.0]]), [1])


@gradient_program
def embedding_lookup_max_norm(tf):
    p = tf.constant([[1.0, 2.0], [3.0, 4.0], [0.5, 0.5]])
    with tf.GradientTape() as t:
        t.watch(p)
        y = tf.nn.embedding_lookup(p, [0, 1, 2], max_norm=2.0)
    return y, tf.convert_to_tensor(t.gradient(y, p))


@gradient_program
def math_softmax_gradient(tf):
    x = tf.Variable([[1.0, 2.0, 0.5]])
    with tf.GradientTape() as t:
        y = tf.math.softmax(x)[0, 1]
    return y, t.gradient(y, x)


@gradient_program
def adjust_contrast_values(tf):
    x = tf.reshape(tf.range(24.0), (2, 2, 2, 3))
    return (tf.image.adjust_contrast(x, 2.0), tf.image.adjust_contrast(x[0], 0.5),
            tf.image.adjust_contrast(tf.cast(x, tf.float64), 1.5),
            tf.image.adjust_contrast([[[1.0, 2.0], [3.0, 4.0]]], 0.5))


@gradient_program
def adjust_contrast_integer_images(tf):
    x = tf.reshape(tf.range(12), (2, 2, 3))
    return (tf.image.adjust_contrast(x, 2.0),
            tf.image.adjust_contrast(tf.cast(x * 20, tf.uint8), 2.0))


@gradient_program
def adjust_contrast_gradient(tf):
    # TF registers no gradient for AdjustContrastv2: a LookupError, in both.
    x = tf.Variable(tf.reshape(tf.range(12.0), (2, 2, 3)))
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.image.adjust_contrast(x, 2.0) * x)
    return t.gradient(y, x)


@gradient_program
def adjust_contrast_unrelated_gradient(tf):
    # ... but an adjusted image that the target does not depend on does not matter.
    x = tf.Variable(tf.reshape(tf.range(12.0), (2, 2, 3)))
    with tf.GradientTape() as t:
        tf.image.adjust_contrast(x, 2.0)
        y = tf.reduce_sum(x * x)
    return t.gradient(y, x)


def test_adjust_contrast_gradient_is_refused_as_in_tf():
    assert tf_oracle.tf_outcome(adjust_contrast_gradient).family == "LookupError"


# -- facade functions inside tf.function ---------------------------------------------

FUNCTION_PROGRAMS = {}


def in_function(f):
    FUNCTION_PROGRAMS[f.__name__] = f
    return f


@in_function
def gather_constant_indices(tf):
    p = tf.Variable([1.0, 2.0, 3.0])

    @tf.function
    def f(x):
        return tf.reduce_sum(tf.gather(x, [0, 0, 2]) * tf.gather(p, tf.constant([1, 1, 0])))

    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    return y, [tf.convert_to_tensor(g) for g in t.gradient(y, [x, p])]


@in_function
def gather_traced_indices(tf):
    @tf.function
    def f(x, i):
        return tf.gather(x, i), tf.gather_nd(tf.reshape(x, (3, 1)), tf.reshape(i, (2, 1)))

    return f(tf.constant([1.0, 2.0, 3.0]), tf.constant([2, 0]))


@in_function
def one_hot_traced(tf):
    @tf.function
    def f(i):
        return tf.one_hot(i, 3), tf.one_hot(i, 3, on_value=5, off_value=-1)

    return f(tf.constant([0, 2, 5]))


@in_function
def reshape_with_a_shape_tensor(tf):
    @tf.function
    def f(x, y):
        return tf.reshape(x, tf.shape(y)), tf.zeros(tf.shape(y)), tf.fill(tf.shape(y), 2.0)

    return f(tf.constant([1.0, 2.0, 3.0, 4.0]), tf.ones((2, 2)))


@in_function
def embedding_lookup_traced(tf):
    @tf.function
    def f(p, i):
        return tf.nn.embedding_lookup(p, i)

    return f(tf.constant([[1.0], [2.0]]), tf.constant([1, 0, 1]))


@in_function
def operators_with_lists_traced(tf):
    @tf.function
    def f(x):
        return x * [3.0, 4.0] + np.array([1.0, 2.0]), x > [1.5, 1.5]

    return f(tf.constant([1.0, 2.0]))


@pytest.mark.parametrize("name", sorted(FUNCTION_PROGRAMS))
def test_facade_functions_inside_tf_function(name):
    _check(FUNCTION_PROGRAMS[name])


def test_gather_out_of_range_still_checked_eagerly():
    with pytest.raises(etf.errors.InvalidArgumentError):
        etf.gather(etf.constant([1.0, 2.0]), [2])


# Last: the programs above all registered.
@pytest.mark.parametrize("name", sorted(GRADIENT_PROGRAMS))
def test_gradients_as_tensorflow(name):
    _check(GRADIENT_PROGRAMS[name])


# -- DType attributes ----------------------------------------------------------------

_DTYPE_NAMES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32",
                "int64", "uint8", "uint16", "uint32", "uint64", "bool", "complex64",
                "complex128"]
_DTYPE_ATTRS = ["name", "is_floating", "is_integer", "is_complex", "is_bool", "is_unsigned",
                "is_quantized", "is_numpy_compatible", "size", "as_datatype_enum",
                "as_numpy_dtype"]


@pytest.mark.parametrize("name", _DTYPE_NAMES)
def test_dtype_attributes_are_tfs(name):
    # TF code reads them: `x.dtype.is_floating`, `x.dtype.min` in attention masks,
    # `dtype.as_numpy_dtype` to make NumPy arrays.
    ours, theirs = getattr(etf, name), getattr(tf_real, name)
    for attr in _DTYPE_ATTRS:
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert ours.real_dtype.name == theirs.real_dtype.name
    assert ours.base_dtype is ours
    for attr in ("min", "max"):
        try:
            expected = getattr(theirs, attr)
        except TypeError:
            with pytest.raises(TypeError, match=f"{'minimum' if attr == 'min' else 'maximum'} value"):
                getattr(ours, attr)
            continue
        got = getattr(ours, attr)
        assert type(got) is type(expected) and got == expected, attr
    assert ours.limits == (ours.min, ours.max) if ours.is_floating or ours.is_integer else True


def test_a_tensors_dtype_is_the_tf_dtype_object_and_a_numpy_dtype_too():
    x = etf.constant([1.0, 2.0])
    v = etf.Variable([1, 2])
    assert x.dtype is etf.float32 and v.dtype is etf.int32
    assert isinstance(x.dtype, etf.DType) and isinstance(x.dtype, etf.dtypes.DType)
    assert x.dtype.is_floating and not v.dtype.is_floating and v.dtype.is_integer
    # As NumPy's dtype: equal, same hash, converted by NumPy and JAX.
    assert x.dtype == np.float32 and x.dtype == "float32" and x.dtype == np.dtype("float32")
    assert {np.dtype("float32"): 1}[x.dtype] == 1 and {x.dtype: 2}[np.dtype("float32")] == 2
    assert np.zeros(2, x.dtype).dtype == np.float32 and np.dtype(x.dtype) == np.float32
    assert x.dtype != etf.float64 and x.dtype.is_compatible_with(tf_real.float32)
    assert etf.as_dtype(tf_real.float16) is etf.float16 and etf.as_dtype(float) is etf.float32
    assert etf.as_dtype(tf_real.float64.as_numpy_dtype) is etf.float64
    import pickle
    assert pickle.loads(pickle.dumps(etf.bfloat16)) is etf.bfloat16
    # The attention-mask idiom: the most negative float of the scores' dtype.
    scores = etf.constant([[0.5, 2.0]])
    mask = etf.constant([[1.0, 0.0]])
    masked = scores + (1.0 - mask) * scores.dtype.min
    real = tf_real.constant([[0.5, 2.0]]) + (1.0 - tf_real.constant([[1.0, 0.0]])) \
        * tf_real.float32.min
    np.testing.assert_array_equal(etf.nn.softmax(masked).numpy(), tf_real.nn.softmax(real).numpy())


@pytest.mark.parametrize("value", [3.0, 2, True, [1.0, 2.0], [[1]]])
def test_numpy_gives_tfs_types_a_scalar_as_a_numpy_scalar(value):
    # TF's numpy() of a scalar is a NumPy scalar (hashable: `counts[label.numpy()] += 1`).
    for make in (lambda tf: tf.constant(value), lambda tf: tf.Variable(value)):
        ours, theirs = make(etf).numpy(), make(tf_real).numpy()
        assert type(ours) is type(theirs) and ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)
    counts = {}
    for label in etf.constant([1, 0, 1]):
        counts[label.numpy()] = counts.get(label.numpy(), 0) + 1
    assert counts == {0: 1, 1: 2}


def pandas_columns_convert_as_tf(tf):
    import pandas as pd
    df = pd.DataFrame({"i": [1, 2], "f": [0.5, 1.5], "s": ["x", "yy"], "b": [True, False]})
    second = list(tf.data.Dataset.from_tensor_slices(dict(df)))[1]
    return ([tf.constant(df[c]) for c in df] + [tf.constant([1, 2]), tf.constant([0.5])]
            + [second[c] for c in ("i", "f", "s", "b")])


def test_pandas_columns_convert_as_tf():
    # An array-like keeps its dtype (a Series of ints is int64, TF's too); only
    # Python lists take TF's 32-bit defaults; a Series of text is a string tensor.
    pytest.importorskip("pandas")
    tf_oracle.check(pandas_columns_convert_as_tf)
