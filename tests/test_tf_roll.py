"""``tf.roll`` against TensorFlow (issue 38's census: tensorflow/docs' deepdream, whose
TiledGradients rolls its image by a shift drawn inside the traced tf.function).

1. The tensor forms TF's ``Roll`` accepts: a scalar or a 1-D shift and axis, negative
   shifts and axes, shifts larger than the size, int64, several axes and one axis named
   twice (TF sums its shifts); the value and its gradient, eagerly and in a tf.function.
2. A shift computed in the traced function (a function argument, a value of the input,
   a random draw): TF rolls by it; eagertape rolls by a dynamic slice of the axis
   doubled. The gradient is TF's and jax.grad's of jnp.roll; an input_signature with
   None sizes is traced once, as TF traces it.
   (The axis must be known when the function is traced: a Python value or a tensor
   made from constants there; an axis the function computes is eagertape's gap.)
3. Bad input: a 2-D shift, a shift and axis of different shapes, an axis out of range,
   a float shift, a scalar input: TF's InvalidArgumentError.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle

pytestmark = pytest.mark.both_modes

_X = np.arange(60, dtype=np.float32).reshape(3, 4, 5) / 7
_W = np.random.RandomState(0).rand(3, 4, 5).astype(np.float32)

# (shift, axis) as TF takes them; each also given as tensors (_as_tensors).
_FORMS = {
    "scalar": (1, 0),
    "negative": (-2, 1),
    "negative_axis": (3, -1),
    "larger_than_size": (13, 2),
    "much_negative": (-17, 1),
    "vector": ([1, -2], [0, 2]),
    "three_axes": ([2, 7, -1], [1, 2, 0]),
    "repeated_axis": ([1, 2, -4], [2, 2, 1]),
    "empty": ([], []),
}


def _tensor(tf, v, dtype):
    return tf.constant(np.asarray(v, dtype=dtype))


def _roll_and_grad(tf, shift, axis, how):
    x = tf.constant(_X)
    w = tf.constant(_W)

    def body(x, s, a):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.roll(x, s, a)
            loss = tf.reduce_sum(y * w)
        return y, tape.gradient(loss, x)

    if how == "python":
        return body(x, shift, axis)
    s = _tensor(tf, shift, np.int64 if how == "int64" else np.int32)
    a = _tensor(tf, axis, np.int32)
    if how in ("tensor", "int64"):
        return body(x, s, a)
    if how == "function_argument":          # the shift is traced: the function's input
        return tf.function(lambda x, s: body(x, s, axis))(x, s)
    # "function_constant": a tensor made in the trace from constants (known there)
    return tf.function(lambda x: body(x, tf.constant(np.asarray(shift, np.int32)), axis))(x)


@pytest.mark.parametrize("how", ["python", "tensor", "int64", "function_argument",
                                 "function_constant"])
@pytest.mark.parametrize("form", list(_FORMS))
def test_roll_forms_and_gradient(form, how):
    tf_oracle.require()
    shift, axis = _FORMS[form]
    if form == "empty" and how in ("python", "function_argument", "function_constant"):
        pytest.skip("TF converts an empty Python list to float32, which Roll refuses")
    tf_oracle.check(_roll_and_grad, shift, axis, how, tf_raises=False)


def _shift_from_values(tf):
    # The shift is a value the function computes from its input (not a size).
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            s = tf.cast(tf.stack([tf.reduce_max(x[0]) * 3, -tf.reduce_max(x[1])]), tf.int32)
            y = tf.roll(x, s, [1, 2])
            loss = tf.reduce_sum(y * tf.constant(_W))
        return y, tape.gradient(loss, x), s
    return f(tf.constant(_X))


def test_roll_by_a_shift_computed_from_values():
    tf_oracle.require()
    got = tf_oracle.check(_shift_from_values, tf_raises=False)
    assert got.raw[2].numpy().tolist() == [8, -5]


def _tiled_gradients(tf, sizes):
    # deepdream's random_roll inside TiledGradients (cell 34), its model a product:
    # a shift drawn in the function, an input_signature of None sizes.
    traces = []

    @tf.function(input_signature=(tf.TensorSpec([None, None, 3], tf.float32),
                                  tf.TensorSpec([], tf.int32)))
    def f(img, maxroll):
        traces.append(1)
        shift = tf.random.uniform([2], -maxroll, maxroll, tf.int32, seed=3)
        shift = shift * 0 + tf.constant([1, -2])       # TF's draw is not eagertape's
        with tf.GradientTape() as tape:
            tape.watch(img)
            rolled = tf.roll(img, shift=shift, axis=[0, 1])
            shape = tf.shape(img)
            weight = (tf.range(shape[0], dtype=tf.float32)[:, None, None] * 100
                      + tf.range(shape[1], dtype=tf.float32)[None, :, None] * 10
                      + tf.range(3, dtype=tf.float32))
            loss = tf.reduce_sum(rolled * weight * img)
        grad = tape.gradient(loss, img)
        return tf.roll(grad, shift=-shift, axis=[0, 1])

    out = [f(tf.constant(np.arange(h * w * 3, dtype=np.float32).reshape(h, w, 3)),
             tf.constant(4)) for h, w in sizes]
    return out, len(traces)


def test_roll_by_a_drawn_shift_with_none_sizes_traces_once():
    tf_oracle.require()
    got = tf_oracle.check(_tiled_gradients, [(5, 6), (7, 4)], tf_raises=False)
    assert got.raw[1] == 1


@pytest.mark.parametrize("form", ["vector", "repeated_axis", "much_negative"])
def test_roll_gradient_is_jax_grads(form):
    # The gradient of a roll by a traced shift against jax.grad of jnp.roll by the
    # same shift, static.
    shift, axis = _FORMS[form]

    @etf.function
    def f(x, s):
        with etf.GradientTape() as tape:
            tape.watch(x)
            loss = etf.reduce_sum(etf.roll(x, s, axis) * _W)
        return tape.gradient(loss, x)

    got = f(etf.constant(_X), etf.constant(np.asarray(shift, np.int32))).numpy()
    want = jax.grad(lambda x: jnp.sum(jnp.roll(x, tuple(np.atleast_1d(shift).tolist()),
                                               tuple(np.atleast_1d(axis).tolist())) * _W))(_X)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-6)


_BAD = {
    "shift_2d": ([[1]], [[0]]),
    "shapes_differ": ([1, 2], 0),
    "scalar_and_one": ([1], 0),
    "axis_out_of_range": (1, 3),
    "negative_axis_out_of_range": (1, -4),
}


def _bad(tf, shift, axis, traced):
    x = tf.constant(_X)
    s = tf.constant(np.asarray(shift, np.int32))
    if traced:
        return tf.function(lambda x, s: tf.roll(x, s, axis))(x, s)
    return tf.roll(x, s, axis)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("case", list(_BAD))
def test_roll_bad_input(case, traced):
    tf_oracle.require()
    tf_oracle.check(_bad, *_BAD[case], traced, tf_raises=True, errors="class")


def _bad_dtype(tf, what):
    x = tf.constant(_X)
    if what == "float_shift":
        return tf.roll(x, tf.constant(1.5), 0)
    return tf.roll(tf.constant(2.0), 1, 0)


@pytest.mark.parametrize("what", ["float_shift", "scalar_input"])
def test_roll_bad_dtype_or_rank(what):
    tf_oracle.require()
    tf_oracle.check(_bad_dtype, what, tf_raises=True, errors="family")
