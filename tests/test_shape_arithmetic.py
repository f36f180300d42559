"""Arithmetic on static shapes stays static wherever TF code is traced: in a
tf.function, in Keras's compiled train_step, and for any JAX trace (TF folds
``tf.shape(x)[1] - 1`` in its graphs; JAX needs slice bounds and sizes static).
A Variable's value is never folded (tests/test_tf_function.py)."""
import numpy as np
import pytest

import tf_oracle


def _slices(tf):
    @tf.function
    def f(x):
        h = tf.shape(x)[1]
        return x[:, : h - 1] - x[:, 1:], tf.range(tf.shape(x)[-1] * 2 - 3)

    return [f(tf.reshape(tf.range(10.0), [2, 5])), f(tf.ones([3, 4]))]


def test_a_slice_bound_from_tf_shape_in_a_tf_function():
    tf_oracle.check(_slices)


_FIT = """
import numpy as np

class Smooth(tf.keras.layers.Layer):
    def call(self, x):
        h = tf.shape(x)[1]
        return tf.reduce_sum(tf.square(x[:, : h - 1] - x[:, 1:]), axis=1, keepdims=True)

inp = tf.keras.Input((5,), batch_size=4)
out = tf.keras.layers.Dense(1, kernel_initializer="ones")(Smooth()(
    tf.keras.layers.Dense(5, kernel_initializer="identity")(inp)))
model = tf.keras.Model(inp, out)
model.compile(tf.keras.optimizers.SGD(0.01), "mse")
x = np.linspace(-1, 1, 40, dtype="float32").reshape(8, 5)
y = np.arange(8, dtype="float32").reshape(8, 1)
emit("loss", model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0).history["loss"])
emit("weights", model.get_weights())
"""


@pytest.mark.subprocess
def test_a_slice_bound_from_tf_shape_in_keras_fit():
    # Keras's train_step is traced by jax.jit, not by a tf.function.
    pytest.importorskip("keras")
    from test_keras import _same_as_tf
    _same_as_tf(_FIT)


def _sizes_from_captured_indices(tf):
    # keras-io's graph attention layer (examples/graph/gat_node_classification.py): a
    # graph's edges, an integer tensor of more than a few items captured by the traced
    # function, give a segment count (reduce_max + 1) and repeat counts (bincount)
    # that TF computes when the graph runs; they are known when tracing.
    edges = tf.constant([[0, 1], [0, 2], [1, 0], [2, 3], [2, 1], [3, 3], [3, 0], [3, 2],
                         [4, 1], [4, 4], [4, 0]], tf.int64)

    @tf.function
    def f(x):
        ids = edges[:, 0]
        s = tf.math.unsorted_segment_sum(tf.gather(x, edges[:, 1]), ids,
                                         num_segments=tf.reduce_max(ids) + 1)
        return s, tf.repeat(s, tf.math.bincount(tf.cast(ids, "int32")))

    return f(tf.constant([1.0, 2.0, 3.0, 4.0, 5.0]))


def test_sizes_computed_from_a_captured_integer_tensor_in_a_tf_function():
    tf_oracle.check(_sizes_from_captured_indices)
