"""An RNN built in Keras's StatelessScope draws its deferred weights as TF's does
(census time_series's residual LSTM, issue 38).

A subclassed model wrapping a Sequential of an LSTM (the tutorial's
``ResidualWrapper``) builds its sublayers in a symbolic run of its call, inside
Keras's StatelessScope: their initializers are deferred, and every read of such a
weight there calls its initializer for a stand-in value, the scope's exit once more
for the kept one. TF's backend's ``rnn`` (not unrolled) calls the step once on time
0 for its output's shape, then again in its ``while_loop``; JAX's ``lax.scan`` calls
it once. With one generator that draws at each call (the census prelude redirects
Keras's random initializers to one NumPy generator), TF's LSTM kernel was the
generator's third draw and eagertape's its second: census time_series's residual
LSTM started from other weights, and its test MAE was 0.4136089 where TF's is
0.4150324 (every value before it TF's; with the same initial weights, fit's losses
and weights agree with TF's to 3e-7).

Each program runs in TF (a subprocess, Keras on TF's backend) and through
eagertape (tests/test_keras.py's runner).
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
    def __init__(self, which):
        self.which = which      # 1.0: a kernel, 2.0: a recurrent kernel
    def __call__(self, shape, dtype=None):
        draws.append(self.which)
        return tf.keras.ops.convert_to_tensor(rs.uniform(-0.5, 0.5, shape).astype("float32"))
class Wrapper(tf.keras.Model):
    # census time_series's ResidualWrapper: no build of its own, so its first call
    # builds the wrapped model in a StatelessScope
    def __init__(self, model):
        super().__init__()
        self.model = model
    def call(self, inputs, *args, **kwargs):
        return inputs + self.model(inputs, *args, **kwargs)
x = tf.constant(np.random.RandomState(1).randn(2, 5, 3).astype("float32"))
"""


@pytest.mark.parametrize("layer", ["LSTM", "GRU", "SimpleRNN"])
def test_an_rnn_built_in_a_subclassed_models_first_call_draws_as_tfs(layer):
    # TF: the kernel and the recurrent kernel drawn three times each (two reads,
    # the step on time 0 and in the loop, and the kept value), eagertape twice before
    _same_as_tf(_DRAWING + textwrap.dedent(f"""
    model = Wrapper(tf.keras.Sequential([
        tf.keras.layers.{layer}(4, return_sequences=True, kernel_initializer=Drawing(1.0),
                                recurrent_initializer=Drawing(2.0)),
        tf.keras.layers.Dense(3, kernel_initializer=tf.initializers.zeros())]))
    y = model(x)
    emit("draws", draws)
    emit("weights", model.get_weights())
    emit("y", y)
    """))


def test_an_unrolled_or_eagerly_built_rnn_draws_once_per_step_or_once():
    # Unrolled, both backends call the step once a time step; an LSTM built by
    # its own first call (not in a StatelessScope) draws each weight once.
    _same_as_tf(_DRAWING + textwrap.dedent("""
    unrolled = Wrapper(tf.keras.Sequential([
        tf.keras.layers.LSTM(4, return_sequences=True, unroll=True,
                             kernel_initializer=Drawing(1.0),
                             recurrent_initializer=Drawing(2.0)),
        tf.keras.layers.Dense(3)]))
    unrolled(x)
    emit("unrolled", draws[:])
    del draws[:]
    plain = tf.keras.Sequential([
        tf.keras.layers.LSTM(4, return_sequences=True, kernel_initializer=Drawing(1.0),
                             recurrent_initializer=Drawing(2.0))])
    emit("y", plain(x))
    emit("plain", draws)
    """))
