"""Gaps three tensorflow/docs census programs met (issue 38), each against TensorFlow:
TF 1's tensor equality (tf.compat.v1.disable_tensor_equality, tf1_vs_tf2_guide), and
Dataset.from_generator's element_spec, which TF reads from the signature without
calling the generator (data_guide: a Keras ImageDataGenerator called once more drew
one more shuffle from NumPy's generator, and the later py_function rotations' angles
were other numbers).

TF's equality switch is per process: each program turns it back on before it returns,
so neither TF's process nor this one keeps TF 1's behaviour."""
import numpy as np

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
    off, on = tf_oracle.check(_equality_program, tf_raises=False).raw
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


# -- 2. Dataset.from_generator's element_spec (data_guide, cells 50-51) -----------------------
def _generator_calls_program(tf):
    calls = []

    def gen():
        calls.append(1)
        for i in range(3):
            yield np.full([i + 1], i, np.float32), np.int64(i)

    out = []
    shaped = tf.data.Dataset.from_generator(gen, output_types=(tf.float32, tf.int64),
                                            output_shapes=([None], []))
    for ds in (shaped, shaped.batch(2), shaped.take(1), shaped.padded_batch(2)):
        out.append([s.shape.as_list() for s in ds.element_spec])
    out.append(len(calls))                      # TF: 0, the signature is the spec
    typed = tf.data.Dataset.from_generator(gen, output_types=(tf.float32, tf.int64))
    out.append([s.dtype.name for s in typed.batch(2).element_spec])
    out.append(len(calls))
    out.append([x.numpy().tolist() for x in typed.map(lambda a, b: b).batch(2)])
    out.append([[type(v).__name__ == "RaggedTensor" for v in x] for x in shaped.ragged_batch(2)])
    out.append(len(calls))                      # one call a pass
    sig = tf.data.Dataset.from_generator(gen, output_signature=(
        tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int64)))
    out.append([s.shape.as_list() for s in sig.element_spec])
    out.append(len(calls))
    return out


def test_from_generator_element_spec_does_not_call_the_generator():
    tf_oracle.check(_generator_calls_program, tf_raises=False)
    got = _generator_calls_program(tf)
    assert got[4] == 0 and got[6] == 0 and got[9] == 2
    assert got[1] == [[None, None], [None]] and got[3] == [[None, None], [None]]
