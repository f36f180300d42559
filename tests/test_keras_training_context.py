"""A Keras layer called inside another layer's call, without ``training=``, takes it
from Keras's call context, as Keras's ``__call__`` resolves it: the outer call's
``training`` (census kio_depth_estimation: a U-Net of subclassed blocks, each a
Conv2D and a BatchNormalization, trained with a GradientTape in train_step).

eagertape records such a sublayer as one op, traced and replayed for the tape's
gradient outside the outer call. Without the context's value, a BatchNormalization
sublayer ran in inference mode there: its trace cached from an earlier call without
``training`` gave the inference output, and the gradient of a training-mode forward
was the inference-mode one (the bias before a training-mode BatchNormalization, whose
true gradient is 0, got one).

Each program runs in TF and through eagertape (tests/test_keras.py's runner).
"""
import textwrap

import pytest

from test_keras import _same_as_tf

pytest.importorskip("keras")

_BLOCK = """
rs = np.random.RandomState(0)
x = tf.constant(rs.randn(8, 6, 6, 3).astype("float32"))
w = tf.constant(rs.randn(8, 6, 6, 4).astype("float32"))
class Drawn(tf.keras.initializers.Initializer):
    # the same weights in both runs (Keras's own initializers draw from the backend)
    def __call__(self, shape, dtype=None):
        return tf.keras.ops.convert_to_tensor(rs.uniform(-0.6, 0.6, shape).astype("float32"))
class Block(tf.keras.layers.Layer):
    # sublayers called without training=: Keras passes the outer call's down
    def __init__(self):
        super().__init__()
        self.conv = tf.keras.layers.Conv2D(4, 3, padding="same", kernel_initializer=Drawn(),
                                           bias_initializer=Drawn())
        self.bn = tf.keras.layers.BatchNormalization()
    def call(self, inp):
        return self.bn(self.conv(inp))
"""


def test_a_sublayer_takes_training_from_the_outer_call_after_a_call_without_it():
    _same_as_tf(_BLOCK + textwrap.dedent("""
    blk = Block()
    emit("inference", blk(x))          # traced once without training
    with tf.GradientTape() as tape:
        y = blk(x, training=True)
        loss = tf.reduce_sum(y * w)
    emit("loss", loss)
    emit("grads", tape.gradient(loss, blk.trainable_variables))
    emit("moving", blk.bn.moving_mean)
    """))


def test_the_gradient_of_a_training_call_is_the_training_mode_one():
    _same_as_tf(_BLOCK + textwrap.dedent("""
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.head = tf.keras.layers.Conv2D(1, 1, kernel_initializer=Drawn())
        def call(self, inp):
            return self.head(self.block(inp))
    net = Net()
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(net(x, training=True)))
    grads = tape.gradient(loss, net.trainable_variables)
    emit("loss", loss)
    emit("grads", grads)
    emit("conv_bias_grad_is_zero", bool(np.abs(np.asarray(grads[1])).max() < 1e-5))
    """))
