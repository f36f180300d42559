"""Gaps three tensorflow/docs census programs met (issue 38), each against TensorFlow:
TF 1's tensor equality (tf.compat.v1.disable_tensor_equality, tf1_vs_tf2_guide).

TF's equality switch is per process: each program turns it back on before it returns,
so neither TF's process nor this one keeps TF 1's behaviour."""
import eagertape.tf as tf
import tf_oracle


# -- 1. tf.compat.v1.disable_tensor_equality (tf1_vs_tf2_guide, cell 38) ---------------------
def _hashes(x):
    # TF's rule: an eager Tensor never hashes; a Variable does (by id) with TF 1's equality.
    try:
        return hash(x) == id(x)
    except TypeError as e:
        return type(e).__name__


def _equality_program(tf):
    x, y = tf.Variable(0.0), tf.Variable(0.0)
    c, d = tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0])
    s = tf.constant("a")
    tf.compat.v1.disable_tensor_equality()
    try:
        seen = []

        @tf.function
        def traced(a, b, t):
            seen.append([a == b, a == a, a != b, t == t, t == "a", _hashes(a), x == x])
            return a

        off = [x == y, x != y, x == x, x != x, x == 0.0, x == None,      # noqa: E711
               c == d, c != d, c == c, c == 1.0, c != 1.0, c == None, c != None,  # noqa: E711
               s == s, s == "a", s != "a", 1.0 == c,
               _hashes(c), _hashes(x), _hashes(s), len({x, y, x}),
               tf.equal(c, d), tf.math.not_equal(x, y)]
        traced(c, d, s)
        off.append(seen[0])
    finally:
        tf.compat.v1.enable_tensor_equality()
    on = [x == y, c == d, x != 1.0, s == "a", _hashes(c), _hashes(x), _hashes(s)]
    return off, on


def test_disable_tensor_equality_is_tf1_identity_until_enabled():
    off, on = tf_oracle.check(_equality_program).raw
    assert off[:6] == [False, True, True, False, False, False]
    assert off[17:21] == ["TypeError", True, "TypeError", 2]
    assert [bool(on[0]), on[1].numpy().tolist(), bool(on[2]), bool(on[3])] == \
        [True, [True, True], True, True]
    assert on[4:] == ["TypeError"] * 3


def test_equality_switch_errors_name_ref():
    # TF 2's messages: the way out is ref(), for a Tensor and for a Variable.
    for value, kind in ((tf.constant(1.0), "tensor"), (tf.Variable(1.0), "variable")):
        try:
            hash(value)
        except TypeError as e:
            assert f"use {kind}.ref() as the key" in str(e)
        else:
            raise AssertionError("hashed")
