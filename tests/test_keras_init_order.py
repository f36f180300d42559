"""Keras's initial weights drawn in TF's order, where a program draws them from one
generator of its own (as the census prelude does: tools/census.py redirects Keras's
random initializers to one NumPy generator, a fresh draw at each call).

A layer built inside another layer's symbolic call (a functional model of
subclassed layers) has its variables made in Keras's StatelessScope, their
initializers deferred: each read of such a variable in the scope calls its
initializer for a stand-in value, and the scope's exit calls it once more for the
kept value. How many reads an op makes is its backend's: TF's Keras's ``take``
keeps the variable as it is (a TF backend variable is a TF tensor type) and reads
it twice (``tf.shape`` for its negative-index fix, then ``tf.gather``), where
JAX's reads it once. With a generator that draws at each call, every weight after
an ``Embedding`` built so came out of another draw
(census kio_text_generation_with_miniature_gpt).

Each program runs in TF and through eagertape (tests/test_keras.py's runner).
"""
import textwrap

import pytest

from test_keras import _same_as_tf

pytest.importorskip("keras")

_DRAWING = """
rs = np.random.RandomState(0)
draws = []
class Drawing(tf.keras.initializers.Initializer):
    # a fresh draw at each call, from one generator (the census prelude's redirect)
    def __call__(self, shape, dtype=None):
        draws.append(float(np.prod(shape)))
        return tf.keras.ops.convert_to_tensor(rs.uniform(-0.5, 0.5, shape).astype("float32"))
"""


def test_embeddings_built_in_a_symbolic_call_draw_as_tfs_take_reads_them():
    _same_as_tf(_DRAWING + textwrap.dedent("""
    class TokenAndPosition(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.token = tf.keras.layers.Embedding(7, 3, embeddings_initializer=Drawing())
            self.pos = tf.keras.layers.Embedding(4, 3, embeddings_initializer=Drawing())
        def call(self, x):
            positions = self.pos(tf.range(start=0, limit=tf.shape(x)[-1], delta=1))
            return self.token(x) + positions
    inputs = tf.keras.layers.Input(shape=(4,), dtype=tf.int32)
    h = TokenAndPosition()(inputs)
    outputs = tf.keras.layers.Dense(2, kernel_initializer=Drawing())(h)
    model = tf.keras.Model(inputs, outputs)
    emit("draws", draws)        # TF: pos twice, token twice (reads), pos, token, kernel
    emit("weights", model.get_weights())
    emit("y", model(tf.constant([[1, 2, 3, 6], [0, 5, 4, 1]])))
    """))


def test_a_take_of_a_deferred_weight_on_no_axis_reads_it_once():
    # TF's take flattens the variable (one read) and gathers from that tensor.
    _same_as_tf(_DRAWING + textwrap.dedent("""
    class Flat(tf.keras.layers.Layer):
        def build(self, input_shape):
            self.table = self.add_weight(shape=(3, 2), initializer=Drawing())
        def call(self, x):
            return tf.keras.ops.take(self.table, x)
    class Outer(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.flat = Flat()
        def call(self, x):
            return self.flat(x)
    inputs = tf.keras.layers.Input(shape=(2,), dtype=tf.int32)
    h = Outer()(inputs)
    outputs = tf.keras.layers.Dense(2, kernel_initializer=Drawing())(h)
    model = tf.keras.Model(inputs, outputs)
    emit("draws", draws)
    emit("weights", model.get_weights())
    """))


def test_tf_image_random_ops_do_not_draw_through_a_replaced_tf_random_uniform():
    # The census prelude replaces tf.random.uniform with a NumPy draw; TF's
    # tf.image.random_crop draws from its own random ops, so a program's later draws
    # (pix2pix's initial weights) are not moved by it.
    _same_as_tf("""
    calls = []
    real = tf.random.uniform
    def uniform(*args, **kwargs):
        calls.append(1.0)
        return real(*args, **kwargs)
    tf.random.uniform = uniform
    x = tf.reshape(tf.range(24.0), (2, 3, 4))
    emit("crop", tf.image.random_crop(x, (2, 3, 4)))     # the whole: offset 0
    emit("flip", tf.image.random_flip_left_right(tf.ones((2, 2, 1))))
    emit("calls", float(len(calls)))
    tf.random.uniform = real
    """)
