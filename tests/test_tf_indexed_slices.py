"""tf.IndexedSlices: where TF's tape hands one back, how it adds and densifies,
and Keras's optimizers applying one (a repeated row included), each against
real TensorFlow (tests/tf_oracle.py; Keras programs in a TF process of their
own, tests/test_keras.py's ``_same_as_tf``)."""
import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle

tf_oracle.require()


def _described(tf, g):
    """A gradient as compared: its kind, and an IndexedSlices' parts and dense value."""
    if g is None:
        return None
    if isinstance(g, tf.IndexedSlices):
        return ("IndexedSlices", g.values, g.indices, g.dense_shape, tf.convert_to_tensor(g),
                tuple(g.shape), g.dtype.name)
    return ("dense", g)


def _gradients(tf):
    table = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
    w = tf.constant([[1.0], [2.0], [3.0]])
    out = []
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = tf.reduce_sum(tf.gather(table, [2, 0, 2]) * w)          # a repeated row
        b = a + tf.reduce_sum(tf.gather(table, [[1], [3]]))          # two gathers: concat
        c = a + tf.reduce_sum(table * 2.0)                           # and a dense read: dense
        d = tf.reduce_sum(tf.nn.embedding_lookup(table, [[3, 3], [0, 1]]) ** 2)
        e = tf.reduce_sum(tf.gather(x, [1, 0], axis=1))               # axis 1: dense
        f = tf.reduce_sum(tf.gather(tf.gather(x, [2, 2]), [1]))       # densified in between
        g = tf.reduce_sum(tf.gather(x, [0, 0]))                       # a watched tensor
        h = tf.reduce_sum(tf.gather(table, tf.constant([1, 1], tf.int64)))
    for target in (a, b, c, d, h):
        out.append(_described(tf, tape.gradient(target, table)))
    for target in (e, f, g):
        out.append(_described(tf, tape.gradient(target, x)))
    out.append(_described(tf, tape.gradient(a, [table, x],
                                            unconnected_gradients="zero")[1]))
    neg = -tape.gradient(a, table)
    out.append(_described(tf, neg))
    out.append(tape.jacobian(tf.gather(x, [1]), x))
    return out


def test_tapes_give_indexed_slices_where_tf_does():
    tf_oracle.check(_gradients, rtol=1e-6, atol=1e-6)


def _sparse_lookups(tf):
    p = tf.Variable(np.arange(10, dtype=np.float32).reshape(5, 2))
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], tf.constant([3, 1, 3, 0], tf.int64),
                          [3, 2])
    w = tf.SparseTensor(ids.indices, tf.constant([1.0, 2.0, 0.5, 1.0]), [3, 2])
    out = []
    for combiner in ["mean", "sum", "sqrtn"]:
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.nn.embedding_lookup_sparse(p, ids, w, combiner=combiner) ** 2)
        out.append(_described(tf, tape.gradient(y, p)))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.nn.safe_embedding_lookup_sparse(p, ids) ** 2)
    out.append(_described(tf, tape.gradient(y, p)))
    return out


def test_sparse_embedding_lookups_give_indexed_slices_as_tf():
    # TF looks the unique ids up (first seen first), then gathers by position.
    tf_oracle.check(_sparse_lookups, rtol=1e-5, atol=1e-5)


def _slices(tf):
    s = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
                         tf.constant([2, 0, 2]), tf.constant([4, 2]))
    no_shape = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]))
    return (tf.convert_to_tensor(s), tf.square(s), tf.reduce_sum(s), tf.constant(1.0) + s,
            tuple(s.shape), s.dtype.name, tuple(no_shape.shape), no_shape.dense_shape is None,
            tf.clip_by_norm(tf.convert_to_tensor(s), 2.0))


def _clipped(tf):
    s = tf.IndexedSlices(tf.constant([[3.0, 4.0], [3.0, 4.0]]), tf.constant([1, 1]),
                         tf.constant([3, 2]))
    d = tf.constant([1.0, 2.0])
    by_norm = tf.clip_by_norm(s, 5.0)
    (gs, gd), norm = tf.clip_by_global_norm([s, d], 4.0)
    return (_described(tf, by_norm), _described(tf, gs), gd, norm,
            tf.linalg.global_norm([s, d]))


def test_clipping_an_indexed_slices_as_tf():
    tf_oracle.check(_clipped, rtol=1e-6, atol=1e-6)


def test_indexed_slices_densify_as_tf():
    tf_oracle.check(_slices, rtol=1e-6, atol=1e-6)


def test_densifying_without_a_dense_shape_is_an_error():
    s = etf.IndexedSlices(etf.constant([[1.0]]), etf.constant([0]))
    with pytest.raises(ValueError, match="dense_shape"):
        etf.convert_to_tensor(s)
    with pytest.raises(TypeError, match="indices"):
        etf.IndexedSlices(etf.constant([[1.0]]), etf.constant([0.0]))


_OPTIMIZERS = """
ids = np.array([[1, 1, 2], [0, 1, 1]], "int32")      # row 1 three times
for name, make in [
        ("sgd", lambda: tf.keras.optimizers.SGD(0.1)),
        ("sgd_nesterov", lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True)),
        ("adam", lambda: tf.keras.optimizers.Adam(0.01)),
        ("adam_amsgrad", lambda: tf.keras.optimizers.Adam(0.01, amsgrad=True)),
        ("adamw", lambda: tf.keras.optimizers.AdamW(0.01)),
        ("adamax", lambda: tf.keras.optimizers.Adamax(0.01)),
        ("nadam", lambda: tf.keras.optimizers.Nadam(0.01)),
        ("rmsprop", lambda: tf.keras.optimizers.RMSprop(0.01)),
        ("rmsprop_centered", lambda: tf.keras.optimizers.RMSprop(0.01, centered=True)),
        ("rmsprop_momentum", lambda: tf.keras.optimizers.RMSprop(0.01, momentum=0.5)),
        ("adagrad", lambda: tf.keras.optimizers.Adagrad(0.1)),
        ("adadelta", lambda: tf.keras.optimizers.Adadelta(1.0)),
        ("ftrl", lambda: tf.keras.optimizers.Ftrl(0.1)),
        ("lion", lambda: tf.keras.optimizers.Lion(0.01)),
        ("clipnorm", lambda: tf.keras.optimizers.RMSprop(0.01, clipnorm=0.5))]:
    layer = tf.keras.layers.Embedding(4, 2)
    layer.build((None, 3))
    layer.set_weights(weights_like(layer, 7))
    optimizer = make()
    for step in range(3):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(layer(ids) ** 2) * 0.1
        grads = tape.gradient(loss, layer.trainable_variables)
        optimizer.apply_gradients(zip(grads, layer.trainable_variables))
    emit(name + "_kind", float(type(grads[0]).__name__ == "IndexedSlices"))
    emit(name, layer.get_weights()[0])
"""


@pytest.mark.subprocess
def test_keras_optimizers_apply_indexed_slices_as_tf():
    pytest.importorskip("keras")
    from test_keras import _same_as_tf
    _same_as_tf(_OPTIMIZERS, rtol=1e-4, atol=1e-5)


_OWN_OPTIMIZERS = """
import importlib
# TF's Keras optimizers, and eagertape's own family (eagertape.optimizers, no Keras).
K = tf.keras.optimizers if tf.__name__ == "tensorflow" else \\
    importlib.import_module("eagertape").optimizers
ids = np.array([[1, 1, 2], [0, 1, 1]], "int32")
for name, make in [("sgd", lambda: K.SGD(0.1)),
                   ("sgd_nesterov", lambda: K.SGD(0.1, momentum=0.9, nesterov=True)),
                   ("adam", lambda: K.Adam(0.01)), ("rmsprop", lambda: K.RMSprop(0.01)),
                   ("rmsprop_momentum", lambda: K.RMSprop(0.01, momentum=0.5)),
                   ("adagrad", lambda: K.Adagrad(0.1))]:
    table = tf.Variable(np.linspace(-1, 1, 8).reshape(4, 2).astype("float32"))
    optimizer = make()
    for step in range(3):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids) ** 2)
        grad = tape.gradient(loss, table)
        optimizer.apply_gradients([(grad, table)])
    emit(name + "_kind", float(type(grad).__name__ == "IndexedSlices"))
    emit(name, table.numpy())
"""


@pytest.mark.subprocess
def test_eagertapes_own_optimizers_apply_indexed_slices_as_tf():
    pytest.importorskip("keras")
    from test_keras import _same_as_tf
    _same_as_tf(_OWN_OPTIMIZERS, rtol=1e-4, atol=1e-5)
