"""A float tensor divided by a scalar or a smaller tensor, against TensorFlow, bit for
bit: TF's RealDiv rounds each quotient once. XLA's algebraic simplifier turns
``x / broadcast(c)`` into ``x * broadcast(1 / c)``, two roundings, 1 ulp off TF's
for about a fifth of the elements (the census's ``kio_nerf``: its ray directions
``(i - W / 2) / focal`` then its sin(2**15 x) positional encoding amplify that ulp
32768 times); eagertape keeps the division (eagertape/_operators.py ``_divide``).
In both execution modes: fused mode compiles the division into a larger program,
where the simplifier would find it again."""
import numpy as np
import pytest

import tf_oracle

tf_oracle.require()

_X = np.random.RandomState(0).randn(2000).astype(np.float32)
_FOCAL = np.array(13.889)          # tiny_nerf's focal length: a 0-d float64 array


def _by_scalar(tf):
    x = tf.constant(_X)
    return [x / _FOCAL, x / np.float32(13.889), x / 3.0, tf.math.divide(x, tf.constant(7.1)),
            tf.math.truediv(x, 0.3)]


def _by_tensor(tf):
    x = tf.constant(_X)
    return [x / tf.constant(np.full(_X.shape, 13.889, np.float32)),
            tf.math.divide(x, tf.constant(np.linspace(0.5, 9.5, 2000).astype(np.float32)))]


def test_divide_by_same_shape_tensor_is_tfs_bit_for_bit():
    got = tf_oracle.plain(tf_oracle.check(_by_tensor, rtol=0, atol=0).value)
    assert np.asarray(got[0], np.float32)[:3].tolist() == (_X[:3] / np.float32(13.889)).tolist()


@pytest.mark.both_modes
def test_divide_by_scalar_is_tfs_bit_for_bit():
    got = tf_oracle.plain(tf_oracle.check(_by_scalar, rtol=0, atol=0).value)
    assert np.asarray(got[0], np.float32).tolist() == (_X / np.float32(13.889)).tolist()


def _broadcast_quotients(tf):
    # By a row that broadcasts, and of an integer tensor (TF divides it in float64).
    x = tf.constant(_X.reshape(40, 50))
    row = tf.constant(np.linspace(0.3, 7.3, 50).astype(np.float32))
    ints = tf.constant(np.arange(-500, 500, dtype=np.int64)) / 7
    return [x / row, tf.math.divide(x, row[None, :]), ints]


def _in_a_program(tf):
    # A quotient inside a larger computation (fused mode's one program), and the
    # gradients of a quotient by a scalar Variable.
    x = tf.constant(_X)
    c = tf.Variable(13.889)
    with tf.GradientTape() as tape:
        tape.watch(x)
        q = tf.sin(x / c * 1024.0)
        loss = tf.reduce_sum(q * q)
    gx, gc = tape.gradient(loss, [x, c])
    return [x / c * 1024.0, q, gx, gc]


@pytest.mark.both_modes
def test_divide_by_broadcast_values_is_tfs_bit_for_bit():
    got = tf_oracle.plain(tf_oracle.check(_broadcast_quotients, rtol=0, atol=0).value)
    assert np.asarray(got[2]).dtype == np.float64


@pytest.mark.both_modes
def test_a_quotient_in_a_program_and_its_gradients_are_tfs():
    # The scaled quotient bit for bit; its sin and the gradients to float32's rounding.
    got = tf_oracle.plain(tf_oracle.check(_in_a_program, rtol=2e-6, atol=1e-5).value)
    want = tf_oracle.plain(tf_oracle.tf_outcome(_in_a_program).value)
    assert np.asarray(got[0]).tolist() == np.asarray(want[0]).tolist()
