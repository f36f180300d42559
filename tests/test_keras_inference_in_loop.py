"""A Keras model called in inference mode (no ``training=``) inside a tf.function's
``for i in tf.range(n)`` loop, as the DeepDream tutorial does (census deepdream: an
InceptionV3 feature model, gradient ascent on the input image): TF's Keras reads its
BatchNormalization moving statistics there and writes no Variable.

eagertape runs a Keras layer's call as one op whose non-trainable variables'
values come back from Keras's stateless call; it assigned every one of them after
each call, changed or not. Inside AutoGraph's tf.while_loop of a traced function
that assignment raised NotImplementedError ('a Variable assigned inside
tf.while_loop ...'), although nothing was written. Only what the call assigned is
assigned now; a training call still updates the statistics.

Each program runs in TF and through eagertape (tests/test_keras.py's runner), from a
file: AutoGraph reads the tf.function's source.
"""
import textwrap

import pytest

from test_keras import _same_as_tf

pytest.importorskip("keras")

pytestmark = [pytest.mark.subprocess, pytest.mark.both_modes]

_MODEL = """
rs = np.random.RandomState(0)
img0 = tf.constant(rs.uniform(-1, 1, (10, 9, 3)).astype("float32"))
inp = tf.keras.Input((None, None, 3))
h = tf.keras.layers.Conv2D(6, 3, activation="relu")(inp)
h = tf.keras.layers.BatchNormalization()(h)
h = tf.keras.layers.Dropout(0.5)(h)
a = tf.keras.layers.Conv2D(4, 3, strides=2)(h)
b = tf.keras.layers.BatchNormalization()(a)
model = tf.keras.Model(inp, [a, tf.keras.layers.Activation("relu")(b)])
# moving statistics away from their initial 0 and 1, so that reading them shows
model.set_weights([np.abs(w) + 0.5 if "variance" in v.path else w
                   for w, v in zip(weights_like(model), model.weights)])

def calc_loss(img, model):
    acts = model(tf.expand_dims(img, axis=0))
    return tf.reduce_sum([tf.math.reduce_mean(act) for act in acts])

class Dream(tf.Module):
    def __init__(self, model):
        self.model = model

    @tf.function(input_signature=(tf.TensorSpec([None, None, 3], tf.float32),
                                  tf.TensorSpec([], tf.int32),
                                  tf.TensorSpec([], tf.float32)))
    def __call__(self, img, steps, step_size):
        loss = tf.constant(0.0)
        for n in tf.range(steps):
            with tf.GradientTape() as tape:
                tape.watch(img)
                loss = calc_loss(img, self.model)
            gradients = tape.gradient(loss, img)
            gradients /= tf.math.reduce_std(gradients) + 1e-8
            img = tf.clip_by_value(img + gradients * step_size, -1, 1)
        return loss, img

def stats(layers=None):
    # BatchNormalization's statistics (Dropout's seed state is each framework's own)
    return [v for v in model.non_trainable_variables if "moving" in v.path
            and (layers is None or v.path.split("/")[0] in layers)]
"""


def _from_file(program):
    """``program`` run from a file of its own (AutoGraph converts a function from its
    source, which a program given to ``python -c`` has not)."""
    src = _MODEL + textwrap.dedent(program)
    return textwrap.dedent(f"""
    import os, tempfile
    _src = {src!r}
    _fd, _path = tempfile.mkstemp(suffix=".py")
    with os.fdopen(_fd, "w") as _f:
        _f.write(_src)
    exec(compile(_src, _path, "exec"))
    os.remove(_path)
    """)


def test_an_inference_call_in_a_traced_loop_reads_the_moving_statistics_and_writes_none():
    _same_as_tf(_from_file("""
    dream = Dream(model)
    loss, img = dream(img0, tf.constant(3), tf.constant(0.05))
    emit("loss", loss)
    emit("img", img)
    emit("stats", stats())
    # another size: a new trace or the symbolic one, the same answers as TF's
    loss, img = dream(img0[:8], tf.constant(2), tf.constant(0.05))
    emit("loss_smaller", loss)
    emit("img_smaller", img)
    emit("stats_after", stats())
    """))


def test_a_training_call_still_updates_the_moving_statistics():
    _same_as_tf(_from_file("""
    dream = Dream(model)
    dream(img0, tf.constant(2), tf.constant(0.05))
    # a training call after the loop's inference calls: BatchNormalization's update
    # (Dropout draws: only the first BatchNormalization's, before it, is compared)
    first = [model.layers[2].name]
    model(tf.expand_dims(img0, 0), training=True)
    emit("stats", stats(first))
    emit("inference", model(tf.expand_dims(img0, 0))[0])

    @tf.function
    def step(x):
        return model(x, training=True)[0]
    step(tf.expand_dims(img0, 0))
    emit("stats_traced", stats(first))
    """))
