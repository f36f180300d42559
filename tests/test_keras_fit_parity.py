"""Keras's own ``fit`` through ``import eagertape.tf as tf`` gives TF's Keras's
numbers where TF's gradient of a weight is an IndexedSlices (issue 37).

TF's gradient of an Embedding's table (``tf.gather`` of a variable on axis 0,
Keras's ``ops.take``) is an IndexedSlices whose rows TF's Keras optimizers apply
one by one: Adam's second moment, RMSprop's velocity, Adagrad's accumulator get
the sum of a repeated id's rows' squares where a dense gradient gives the square
of their sum. Keras on JAX's fit differentiates densely; eagertape's fit gives
the table's gradient as TF's (tf/_keras_gather.py).

Each program runs in real TensorFlow's Keras and through the facade (one process
each: tests/test_keras.py's ``_same_as_tf``), from the same weights and data; the
ids repeat within every batch, so each optimizer whose sparse rule differs from
its dense one gives other numbers if the table's gradient is dense (each case's
hyperparameters make that difference far larger than the tolerance).
"""
import pytest

import numpy as np

import tf_oracle
from test_keras import _largest, _run, _same_as_tf, _tf_run, _tree

pytestmark = pytest.mark.subprocess

# (name, the optimizer as a program writes it, how far apart TF's one step with the
# table's IndexedSlices and with it made dense is at least: True 1e-2, False 0)
OPTIMIZERS = [
    ("sgd", "tf.keras.optimizers.SGD(0.5)", False),
    ("sgd_nesterov", "tf.keras.optimizers.SGD(0.5, momentum=0.9, nesterov=True)", False),
    ("adam", "tf.keras.optimizers.Adam(0.1)", True),
    ("adam_amsgrad", "tf.keras.optimizers.Adam(0.1, amsgrad=True)", True),
    ("adamw", "tf.keras.optimizers.AdamW(0.1, weight_decay=0.05)", True),
    ("rmsprop", "tf.keras.optimizers.RMSprop(0.05)", True),
    ("rmsprop_centered_momentum",
     "tf.keras.optimizers.RMSprop(0.05, momentum=0.5, centered=True)", True),
    ("adagrad", "tf.keras.optimizers.Adagrad(0.5, initial_accumulator_value=1e-4)", True),
    ("adadelta", "tf.keras.optimizers.Adadelta(50.0)", True),
    ("adamax", "tf.keras.optimizers.Adamax(0.1)", True),
    ("nadam", "tf.keras.optimizers.Nadam(0.1)", True),
    ("ftrl", "tf.keras.optimizers.Ftrl(0.5, initial_accumulator_value=1e-3)", True),
    ("lion", "tf.keras.optimizers.Lion(0.05)", False),
    ("lamb", "tf.keras.optimizers.Lamb(0.1)", True),
    ("adafactor", "tf.keras.optimizers.Adafactor(0.5)", True),
    # The base optimizer's options: TF's Keras clips an IndexedSlices' rows by
    # their norm (tf.clip_by_norm) and value, densifies it by a global norm's
    # scale (``v * scale``); a LossScaleOptimizer unscales the rows.
    ("adam_clipnorm", "tf.keras.optimizers.Adam(0.1, clipnorm=0.01)", True),
    ("adam_clipvalue", "tf.keras.optimizers.Adam(0.1, clipvalue=0.001)", True),
    ("adam_global_clipnorm", "tf.keras.optimizers.Adam(0.1, global_clipnorm=0.01)", 2e-4),
    ("loss_scale_adam", "tf.keras.optimizers.LossScaleOptimizer(tf.keras.optimizers.Adam(0.1))",
     True),
]

# An Embedding first in a Sequential, fit on ids that repeat within each batch:
# one step (the first batch), then three epochs of two batches; for each optimizer,
# from the same weights (one program for all: a process each side, not one each).
_EMBEDDING_FIT = """
rs = np.random.RandomState(0)
x = rs.randint(0, 6, size=(16, 7)).astype("int64")
y = rs.randint(0, 2, size=(16, 1)).astype("float32")
for name, optimizer in OPTIMIZERS:
    model = tf.keras.Sequential([tf.keras.Input((7,), dtype="int64"), tf.keras.layers.Embedding(8, 4),
                                 tf.keras.layers.GlobalAveragePooling1D(), tf.keras.layers.Dense(1)])
    model.set_weights(weights_like(model))
    model = WRAP(model)
    model.compile(optimizer=eval(optimizer),
                  loss=tf.keras.losses.BinaryCrossentropy(from_logits=True))
    model.fit(x[:8], y[:8], batch_size=8, epochs=1, shuffle=False, verbose=0)
    emit(name + ": one step", model.get_weights())
    history = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    emit(name + ": loss", history.history["loss"])
    emit(name + ": weights", model.get_weights())
"""

# TF's Keras with the gradients made dense before the optimizer (the gradient
# Keras on JAX's fit gives): a model whose train_step is TF's own but for that.
_DENSE_GRADIENTS = """
class DenseGradients(tf.keras.Model):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner
    def call(self, x):
        return self.inner(x)
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = self.optimizer.scale_loss(self.compute_loss(y=y, y_pred=self(x, training=True)))
        grads = [tf.convert_to_tensor(g) for g in tape.gradient(loss, self.trainable_variables)]
        self.optimizer.apply(grads, self.trainable_variables)
        return {"loss": loss}
"""


def _program(wrap):
    table = "OPTIMIZERS = " + repr([(name, opt) for name, opt, _ in OPTIMIZERS]) + "\n"
    return table + _EMBEDDING_FIT.replace("WRAP", wrap)


@pytest.fixture(scope="module")
def embedding_fits():
    program = _program("(lambda m: m)")
    return _tf_run(program), _run(program, "eagertape")


@pytest.mark.parametrize("name,optimizer,differs", OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_fit_of_an_embedding_gives_tfs_keras_numbers(name, optimizer, differs, embedding_fits):
    want, got = embedding_fits
    for key in ("one step", "loss", "weights"):
        key = f"{name}: {key}"
        scale = max(1.0, _largest(want[key]))
        tf_oracle.assert_same(_tree(got[key]), _tree(want[key]), rtol=2e-4, atol=2e-5 * scale,
                              where=key)


def test_each_optimizer_whose_rule_differs_would_fail_with_a_dense_gradient(embedding_fits):
    # The test above can fail: for each optimizer marked so, TF's Keras with the
    # table's gradient made dense ends elsewhere after one step than TF's own fit
    # (more than the test's tolerance); for the others, it does not.
    want, _ = embedding_fits
    dense = _tf_run(_DENSE_GRADIENTS + _program("DenseGradients"))
    for name, _, differs in OPTIMIZERS:
        key = f"{name}: one step"
        apart = np.abs(np.asarray(want[key][0]) - np.asarray(dense[key][0])).max()
        least = 1e-2 if differs is True else differs
        assert (apart > least) if least else (apart < 1e-5), (name, apart)


def test_a_table_read_elsewhere_too_gets_tfs_dense_gradient():
    # An embeddings_regularizer reads the table outside the lookup: TF adds the
    # IndexedSlices to the regularizer's dense gradient (a dense sum), and so does
    # eagertape (tf/_keras_gather.py leaves such a weight's gradient dense).
    _same_as_tf("""
    rs = np.random.RandomState(0)
    x = rs.randint(0, 6, size=(16, 7)).astype("int64")
    y = rs.randint(0, 2, size=(16, 1)).astype("float32")
    model = tf.keras.Sequential([
        tf.keras.Input((7,), dtype="int64"),
        tf.keras.layers.Embedding(8, 4, embeddings_regularizer=tf.keras.regularizers.L2(0.1)),
        tf.keras.layers.GlobalAveragePooling1D(), tf.keras.layers.Dense(1)])
    model.set_weights(weights_like(model))
    model.compile(optimizer=tf.keras.optimizers.Adam(0.1),
                  loss=tf.keras.losses.BinaryCrossentropy(from_logits=True))
    history = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    emit("loss", history.history["loss"])
    emit("weights", model.get_weights())
    """)


def test_a_shared_embedding_a_custom_take_and_a_mask_as_tfs_keras():
    # One Embedding called on two inputs (TF: the two lookups' IndexedSlices
    # concatenated), a custom layer's ops.take of its weight on axis 0 (an
    # IndexedSlices in TF too), an Embedding with mask_zero feeding an LSTM, and
    # train_on_batch; RMSprop, whose sparse rule differs.
    _same_as_tf("""
    rs = np.random.RandomState(0)
    a = rs.randint(0, 6, size=(16, 5)).astype("int32")
    b = rs.randint(0, 6, size=(16, 3)).astype("int32")
    y = rs.randint(0, 2, size=(16, 1)).astype("float32")

    class Lookup(tf.keras.layers.Layer):
        def build(self, shape):
            self.table = self.add_weight(shape=(6, 3), initializer="ones", name="table")
        def call(self, ids):
            return tf.keras.ops.take(self.table, ids, axis=0)

    ia = tf.keras.Input((5,), dtype="int32")
    ib = tf.keras.Input((3,), dtype="int32")
    shared = tf.keras.layers.Embedding(6, 4)
    masked = tf.keras.layers.Embedding(6, 2, mask_zero=True)
    h = tf.keras.layers.Concatenate()([
        tf.keras.layers.GlobalAveragePooling1D()(shared(ia)),
        tf.keras.layers.GlobalAveragePooling1D()(shared(ib)),
        tf.keras.layers.GlobalAveragePooling1D()(Lookup()(ib)),
        tf.keras.layers.LSTM(2)(masked(ia))])
    model = tf.keras.Model([ia, ib], tf.keras.layers.Dense(1)(h))
    model.set_weights(weights_like(model))
    model.compile(optimizer=tf.keras.optimizers.RMSprop(0.05),
                  loss=tf.keras.losses.BinaryCrossentropy(from_logits=True))
    emit("batch", model.train_on_batch([a[:8], b[:8]], y[:8]))
    emit("after batch", model.get_weights())
    history = model.fit([a, b], y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    emit("loss", history.history["loss"])
    emit("weights", model.get_weights())
    """)
