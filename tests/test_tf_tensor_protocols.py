"""A Tensor as a Python and NumPy object, differential against TensorFlow: its
``repr`` and ``str`` (TF's ``<tf.Tensor: ..., numpy=...>`` and ``tf.Tensor(...)``,
a scalar shown as its Python value, NumPy's summarization of large values), its
``__format__`` (f-strings, with and without a format spec), a Variable's
``repr``, and what NumPy's functions and operators give for one (NumPy's
functions an ndarray, as for TF's EagerTensor, which has no NumPy methods; the
operators a Tensor). Skipped without TensorFlow.
"""
import collections

import numpy as np
import pytest

import tf_oracle

tf_oracle.require()


def _values(tf):
    """One value of each kind that prints differently."""
    return [
        tf.constant(0, tf.int64), tf.constant([1, 2]), tf.constant(2.5),
        tf.constant([1.5, 2.0]), tf.constant(True), tf.constant([True, False]),
        tf.constant("abc"), tf.constant(["a", "bc"]), tf.constant(1.0, tf.float64),
        tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float64), tf.constant(1e10),
        tf.constant(np.float16(1.5)), tf.constant(np.uint8(7)), tf.zeros([0, 3]),
        tf.constant([1e-9, 1.0]), tf.constant(0.1) + tf.constant(0.2),
        tf.range(1000), tf.range(1001),                   # NumPy's threshold: 1000 items
        tf.reshape(tf.range(2000.0), [40, 50]),
    ]


def texts(tf):
    return [(repr(t), str(t), f"{t}", "{}".format(t)) for t in _values(tf)]


def variable_texts(tf):
    v = tf.Variable([[1.0, 2.0]], name="w")
    s = tf.Variable(3, dtype=tf.int64)
    return repr(v), str(v), repr(s), str(s), f"{s}"


def scalar_formats(tf):
    specs = ["", ".1f", ">10", "<8", "+.3e", "d", "x", "08.2f", "%", "^9"]
    out = []
    for t in [tf.constant(2.5), tf.constant(7, tf.int64), tf.constant(True),
              tf.constant(np.uint8(7)), tf.constant(1.0, tf.float64), tf.constant(3 + 4j)]:
        for spec in specs:
            try:
                out.append(format(t, spec))
            except (TypeError, ValueError) as e:
                out.append(type(e).__name__)
    return out


def array_format_with_spec(tf):
    return format(tf.constant([1.0, 2.0]), ".1f")


def string_format_with_spec(tf):
    return format(tf.constant("abc"), "s")


def _kind(tf, r):
    """What a result is, in words both libraries share."""
    if isinstance(r, np.ndarray):
        return "ndarray"
    if isinstance(r, np.generic):
        return "numpy scalar"
    if isinstance(r, tf.Tensor):
        return "tensor"
    return type(r).__name__


_Pair = collections.namedtuple("_Pair", "a b")

NUMPY_CALLS = {
    "squeeze": lambda tf, t, s: np.squeeze(t),
    "squeeze_axis": lambda tf, t, s: np.squeeze(t, axis=0),
    "reshape": lambda tf, t, s: np.reshape(t, [3]),
    "transpose": lambda tf, t, s: np.transpose(t),
    "sum": lambda tf, t, s: np.sum(t),
    "sum_axis": lambda tf, t, s: np.sum(t, axis=1),
    "mean": lambda tf, t, s: np.mean(t),
    "max": lambda tf, t, s: np.max(s),
    "argmax": lambda tf, t, s: np.argmax(t),
    "cumsum": lambda tf, t, s: np.cumsum(t),
    "clip": lambda tf, t, s: np.clip(t, 1.5, 2.5),
    "round": lambda tf, t, s: np.round(s),
    "ravel": lambda tf, t, s: np.ravel(t),
    "take": lambda tf, t, s: np.take(t, [0, 2]),
    "concatenate": lambda tf, t, s: np.concatenate([t, t]),
    "stack": lambda tf, t, s: np.stack([s, s]),
    "stack_namedtuple": lambda tf, t, s: np.stack(_Pair(s, s)),
    "where": lambda tf, t, s: np.where(t > 1.5, t, 0.0),
    "dot": lambda tf, t, s: np.dot(t, np.ones(3, np.float32)),
    "add_ufunc": lambda tf, t, s: np.add(t, 1),
    "exp_ufunc": lambda tf, t, s: np.exp(t),
    "asarray": lambda tf, t, s: np.asarray(t),
    "array_f64": lambda tf, t, s: np.array(t, dtype=np.float64),
    "float32_of_scalar": lambda tf, t, s: np.float32(s),
    "variable_squeeze": lambda tf, t, s: np.squeeze(tf.Variable([[1.0, 2.0]])),
    "variable_sum": lambda tf, t, s: np.sum(tf.Variable([1.0, 2.0])),
    # The operators: NumPy defers to the Tensor's reflected method (a Tensor).
    "tensor_plus_array": lambda tf, t, s: t + np.ones(3, np.float32),
    "array_plus_tensor": lambda tf, t, s: np.ones(3, np.float32) + t,
    "numpy_scalar_times_tensor": lambda tf, t, s: np.float32(2) * t,
    "numpy_f64_times_scalar": lambda tf, t, s: np.float64(2) * s,
}


def numpy_call(tf, name):
    t = tf.constant([[1.0, 2.0, 3.0]])
    s = tf.constant(3.0)
    r = NUMPY_CALLS[name](tf, t, s)
    return _kind(tf, r), r


def random_choice_of_squeezed_probabilities(tf):
    # The census's actor-critic: float32 probabilities squeezed by NumPy, then
    # checked by np.random.choice (float32's tolerance only for an ndarray).
    probs = tf.nn.softmax(tf.constant([[0.1, 0.7, 0.2, 0.3]]))
    p = np.squeeze(probs)
    return _kind(tf, p), int(np.random.default_rng(0).choice(4, p=p))


def writable_arrays(tf):
    # np.array(x) is the program's own array (keras-io's DQN writes into it);
    # np.asarray of a tensor may be a read-only view, of a Variable a copy.
    t, v = tf.constant([1.0, 2.0]), tf.Variable([1.0, 2.0])
    out = {}
    for xn, x in (("tensor", t), ("variable", v)):
        for name, make in (("array", np.array), ("asarray", np.asarray),
                           ("numpy", lambda x: x.numpy()),
                           ("array_f64", lambda x: np.array(x, dtype=np.float64))):
            out[f"{name} of a {xn}"] = make(x).flags.writeable
    a = np.array(t)
    a[0] = 5.0
    out["the tensor after its array is written"] = t
    return out


@pytest.mark.parametrize("program", [texts, variable_texts, scalar_formats, writable_arrays,
                                     random_choice_of_squeezed_probabilities])
def test_same_as_tensorflow(program):
    tf_oracle.check(program)


@pytest.mark.parametrize("program", [array_format_with_spec, string_format_with_spec])
def test_format_spec_errors_as_tensorflow(program):
    tf_oracle.check(program, errors="class")


@pytest.mark.parametrize("name", sorted(NUMPY_CALLS))
def test_numpy_functions_as_tensorflow(name):
    tf_oracle.check(numpy_call, name)


def test_a_traced_tensor_prints_as_tensorflows_symbolic_tensor():
    import eagertape.tf as tf
    shown = []

    @tf.function
    def f(x):
        shown.extend([repr(x), str(x), f"{x}"])
        return x + 1

    f(tf.constant([1.0, 2.0]))
    assert shown == ["<tf.Tensor 'x:0' shape=(2,) dtype=float32>",
                     'Tensor("x:0", shape=(2,), dtype=float32)',
                     'Tensor("x:0", shape=(2,), dtype=float32)']


def variable_format_with_spec(tf):
    return format(tf.Variable(1.0), ".1f")


def test_variable_format_spec_error_as_tensorflow():
    tf_oracle.check(variable_format_with_spec, errors="class")


def test_numpy_shape_functions_and_traced_tensors_stay_off_the_host():
    # np.shape/ndim/size ask only the shape (eagertape's own code asks it of traced
    # tensors: a tf.function called inside another's trace); a NumPy function on a
    # traced Tensor has no value to convert and is served by the Tensor's methods.
    import eagertape.tf as etf
    t = etf.constant([[1.0], [2.0]])
    assert (np.shape(t), np.ndim(t), np.size(t), np.size(t, 0)) == ((2, 1), 2, 2, 2)

    @etf.function
    def inner(x):
        return x * 2.0

    @etf.function(input_signature=[etf.TensorSpec([None, None], etf.float32)])
    def outer(x):
        return inner(x) + np.squeeze(x, axis=1)[:, None]

    np.testing.assert_array_equal(outer(t).numpy(), [[3.0], [6.0]])
