"""``next(iterator)`` inside a ``tf.function``: each call takes the iterator's next
element, as TF's ``IteratorGetNext`` op does (a training step taking its batch from
an iterator: TF's distributed-training and ``tf.function`` guides write it so).
Before, the element taken while tracing was a constant of the trace, and every call
gave the first batch again: a silent wrong answer. Compared with TensorFlow
(tests/tf_oracle.py); the execution modes run in both.
"""
import numpy as np
import pytest

import tf_oracle

tf_oracle.require()
pytestmark = pytest.mark.both_modes


def _captured(tf):
    it = iter(tf.data.Dataset.range(10).batch(2))

    @tf.function
    def step():
        return next(it) * 10
    return [step() for _ in range(3)] + [next(it)]


def _argument_and_pairs(tf):
    xs = np.arange(12.0, dtype=np.float32).reshape(6, 2)
    ds = tf.data.Dataset.from_tensor_slices((xs, xs[:, 0] * 2.0)).batch(2)
    it = iter(ds)

    @tf.function
    def step(iterator):
        a, b = next(iterator)
        c, d = iterator.get_next()
        return tf.reduce_sum(a) + tf.reduce_sum(b), c * 1.0 + d[:, None]
    return [step(it)]


def _train_step(tf):
    rs = np.random.RandomState(0)
    xs = rs.randn(16, 3).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    it = iter(tf.data.Dataset.from_tensor_slices((xs, ys)).batch(4).repeat())
    w = tf.Variable(np.zeros((3, 1), np.float32))

    @tf.function
    def train_step(iterator):
        x, y = next(iterator)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((tf.matmul(x, w) - y) ** 2)
        w.assign_sub(0.1 * tape.gradient(loss, w))
        return loss
    return [train_step(it) for _ in range(6)] + [w]


def _end_of_sequence(tf):
    it = iter(tf.data.Dataset.range(4).batch(2))

    @tf.function
    def step():
        return next(it)
    out = [step(), step()]
    try:
        step()
    except Exception as e:        # TF: OutOfRangeError
        out.append(type(e).__name__)
    return out


def _dataset_loop_inside(tf):
    # An iterator made inside the function (a Python loop over a dataset): each call
    # goes through the dataset anew (tensorflow/docs' distributed custom training).
    ds = tf.data.Dataset.range(1, 5).batch(2)

    @tf.function
    def epoch(dataset):
        total = tf.constant(0, tf.int64)
        for x in dataset:
            total += tf.reduce_sum(x)
        it = iter(dataset)
        return total, next(it)
    return [epoch(ds), epoch(ds)]


@pytest.mark.parametrize("program", [_captured, _argument_and_pairs, _train_step,
                                     _dataset_loop_inside],
                         ids=["captured", "argument_and_pairs", "train_step",
                              "dataset_loop_inside"])
def test_each_call_takes_the_next_element_as_tf(program):
    tf_oracle.check(program, rtol=1e-5, atol=1e-6)


def test_the_end_of_the_iterator_raises_at_the_call():
    import eagertape.tf as tf
    got = _end_of_sequence(tf)
    np.testing.assert_array_equal(got[0].numpy(), [0, 1])
    np.testing.assert_array_equal(got[1].numpy(), [2, 3])
    # TF raises OutOfRangeError; eagertape's iterator ends with StopIteration's kind
    assert got[2] in ("OutOfRangeError", "StopIteration")


def test_a_smaller_last_batch_is_a_clear_error_and_an_eager_next_goes_on():
    import eagertape.tf as tf
    it = iter(tf.data.Dataset.range(5).batch(2))

    @tf.function
    def step():
        return next(it) + 0
    assert step().numpy().tolist() == [0, 1]
    assert step().numpy().tolist() == [2, 3]
    with pytest.raises(ValueError, match="drop_remainder=True"):
        step()


def test_an_eager_next_after_a_trace_takes_the_element_after_the_calls():
    import eagertape.tf as tf
    it = iter(tf.data.Dataset.range(6))

    @tf.function
    def step():
        return next(it) * 1
    assert int(step()) == 0 and int(step()) == 1
    assert int(next(it)) == 2
    assert int(step()) == 3
