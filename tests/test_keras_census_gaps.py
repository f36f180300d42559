"""Keras-side gaps the census found (issues 37/38), each against TF's Keras:

1. sparse outputs: where TF's Keras gives a ``tf.SparseTensor``
   (``CategoryEncoding(sparse=True)``), the facade's Keras gives the facade's
   ``tf.SparseTensor`` (Keras's JAX backend makes a JAX ``BCOO``), as TF's kernels
   give it (each index once, in canonical order, int64 indices), so ``tf.sparse``
   ops and Keras layers after it take it; ``tf.sparse`` takes a BCOO where TF
   would have had a SparseTensor (census: migrate_feature_columns);
2. a functional model made with a dict of Inputs, called on a dict with its
   string layers run on the host, matches the dict's keys, not the Inputs' names
   (census: migrate_feature_columns's preprocessing model in Dataset.map);
3. ``keras.ops.cond`` outside Keras's own traces is ``tf.cond``, as in TF's Keras:
   a LossScaleOptimizer's ``apply_gradients``, eagerly and in a tf.function, checks
   the gradients, unscales them, grows or halves its scale (census:
   mixed_precision_guide's custom training loop).

Each program runs in real TF's Keras and through the facade, each in a process of
its own (Keras has one backend a process): tests/test_keras.py's ``_same_as_tf``.
"""
import jax.numpy as jnp
import numpy as np
import pytest

import eagertape.tf as tf
from test_keras import _run, _same_as_tf

pytest.importorskip("keras")


# -- 1. sparse outputs ----------------------------------------------------------------
def test_category_encoding_sparse_outputs_are_tfs_sparse_tensors():
    got = _same_as_tf("""
    ids = tf.constant([[5, 11, 5, 17, 17], [3, 3, 0, 19, 3]])
    weights = tf.constant([[0.5, 1.5, 0.7, 1.8, 0.2], [1.0, -1.0, 0.0, 2.0, 4.0]])
    for mode in ["count", "multi_hot", "one_hot"]:
        layer = tf.keras.layers.CategoryEncoding(num_tokens=20, output_mode=mode, sparse=True)
        if mode == "count":
            out = layer(ids, count_weights=weights)
        elif mode == "one_hot":
            out = layer(tf.constant([3, 1, 3, 19]))
        else:
            out = layer(ids)
        emit(mode + "_type", float(type(out).__name__ == "SparseTensor"))
        emit(mode + "_indices", out.indices)
        emit(mode + "_values", out.values)
        emit(mode + "_shape", out.dense_shape)
        emit(mode + "_index_dtype", float(out.indices.dtype == tf.int64))
        emit(mode + "_dense", tf.sparse.to_dense(out))
        emit(mode + "_sum", tf.sparse.reduce_sum(out, axis=1))
    """)
    # Repeated ids are one entry each, their weights summed; a zero sum is kept.
    assert got["count_indices"] == [[0, 5], [0, 11], [0, 17], [1, 0], [1, 3], [1, 19]]
    assert got["count_values"] == pytest.approx([1.2, 1.5, 2.0, 0.0, 4.0, 2.0])
    assert got["count_type"] == got["one_hot_index_dtype"] == 1.0


def test_a_sparse_output_feeds_a_dense_layer_and_a_tape_as_in_tf():
    # The census's cell 44: Dense on CategoryEncoding's sparse output, and the
    # kernel's gradient through it.
    got = _same_as_tf("""
    ids = tf.constant([[5, 11, 5, 17, 17]])
    weights = tf.constant([[0.5, 1.5, 0.7, 1.8, 0.2]])
    weights = weights / tf.reduce_sum(weights, axis=-1, keepdims=True)
    count = tf.keras.layers.CategoryEncoding(num_tokens=20, output_mode="count", sparse=True)
    dense = tf.keras.layers.Dense(4, use_bias=False)
    dense.build((None, 20))
    dense.set_weights(weights_like(dense))
    with tf.GradientTape() as tape:
        y = dense(count(ids, count_weights=weights))
        loss = tf.reduce_sum(y * y)
    emit("y", y)
    # (TF's is an IndexedSlices, its Dense on a SparseTensor being an embedding
    # lookup: compared dense)
    emit("grad", tf.convert_to_tensor(tape.gradient(loss, dense.kernel)))

    """)
    assert np.asarray(got["grad"]).shape == (20, 4)
    assert np.count_nonzero(np.abs(np.asarray(got["grad"])).sum(1)) == 3


def test_a_sparse_output_inside_a_tf_function_keeps_its_entries():
    # Traced, the indices are not known: the BCOO's entries are kept as they are
    # (repeats too), which to_dense and a Dense layer sum as TF's unique entries.
    # (TF's Keras cannot run this: its CategoryEncoding casts a traced input to
    # float32 and tf.math.bincount refuses it.)
    got = _run("""
    ids = tf.constant([[5, 11, 5, 17, 17]])
    count = tf.keras.layers.CategoryEncoding(num_tokens=20, output_mode="count", sparse=True)
    dense = tf.keras.layers.Dense(4, use_bias=False)

    @tf.function
    def f(w):
        sp = count(ids, count_weights=w)
        return tf.sparse.to_dense(sp), dense(sp), sp.values.shape[0]
    w = tf.constant([[0.5, 1.5, 0.7, 1.8, 0.2]])
    d, y, n = f(w)
    eager = count(ids, count_weights=w)
    emit("traced_dense", d)
    emit("eager_dense", tf.sparse.to_dense(eager))
    emit("traced_y", y)
    emit("eager_y", dense(eager))
    emit("traced_entries", n)
    """, "eagertape")
    np.testing.assert_allclose(got["traced_dense"], got["eager_dense"], rtol=1e-6)
    np.testing.assert_allclose(got["traced_y"], got["eager_y"], rtol=1e-5, atol=1e-6)
    assert got["traced_dense"][0][5] == pytest.approx(1.2)
    assert got["traced_entries"] == 5


def test_tf_sparse_takes_a_bcoo_as_the_sparse_tensor_tf_would_have_had():
    from jax.experimental import sparse as jsparse
    # Repeated and unsorted entries, and a padding entry (out of bounds: BCOO's).
    mat = jsparse.BCOO((jnp.array([1.0, 2.0, 4.0, 9.0]),
                        jnp.array([[0, 3], [0, 1], [0, 3], [1, 5]])), shape=(1, 5))
    assert tf.sparse.to_dense(mat).numpy().tolist() == [[0.0, 2.0, 0.0, 5.0, 0.0]]
    st = tf.sparse.reorder(mat)
    assert type(st) is tf.SparseTensor
    assert st.indices.numpy().tolist() == [[0, 1], [0, 3]]
    assert st.values.numpy().tolist() == [2.0, 5.0]
    assert st.indices.dtype == tf.int64
    # A BCOO with a batch dimension: its entries over every dimension.
    batched = jsparse.BCOO.fromdense(jnp.array([[0.0, 3.0], [7.0, 0.0]]), n_batch=1)
    assert tf.sparse.to_dense(batched).numpy().tolist() == [[0.0, 3.0], [7.0, 0.0]]
    assert tf.sparse.reduce_sum(batched, axis=1).numpy().tolist() == [3.0, 7.0]
    # Something else is still refused, naming the argument.
    with pytest.raises(TypeError, match="sp_input"):
        tf.sparse.to_dense(np.ones((2, 2)))


# -- 2. a dict of Inputs ------------------------------------------------------------------
def test_a_model_of_a_dict_of_inputs_with_a_string_layer_matches_the_dicts_keys():
    _same_as_tf("""
    features = {"type": [0, 1, 1], "size": ["small", "small", "medium"],
                "weight": [2.7, 1.8, 1.6]}
    inputs = {"type": tf.keras.Input(shape=(), dtype="int64"),
              "size": tf.keras.Input(shape=(), dtype="string"),
              "weight": tf.keras.Input(shape=(), dtype="float32")}
    outputs = {
        "type": tf.keras.layers.CategoryEncoding(3, output_mode="one_hot")(inputs["type"]),
        "size": tf.keras.layers.StringLookup(vocabulary=["small", "medium", "large"])(
            inputs["size"]),
        "weight": tf.keras.layers.Normalization(axis=None, mean=2.0, variance=1.0)(
            inputs["weight"])}
    model = tf.keras.Model(inputs, outputs)
    ds = tf.data.Dataset.from_tensor_slices((features, [1, 1, 0])).batch(2)
    ds = ds.map(lambda x, y: (model(x), y))
    x, y = next(ds.as_numpy_iterator())
    for k in sorted(x):
        emit(k, x[k])
    emit("y", y)
    """)


# -- 3. keras.ops.cond: a LossScaleOptimizer's apply_gradients --------------------------------
_LOSS_SCALE_LOOP = """
model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
model.set_weights(weights_like(model))
optimizer = tf.keras.mixed_precision.LossScaleOptimizer(
    tf.keras.optimizers.Adam(0.01), initial_scale=2.0 ** 10, dynamic_growth_steps=2)
rs = np.random.RandomState(1)
x, y = rs.randn(8, 4).astype("float32"), rs.randn(8, 3).astype("float32")

def train_step(x, y, poison):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2) * poison
        scaled = optimizer.scale_loss(loss)
    grads = tape.gradient(scaled, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss
step = tf.function(train_step) if TRACED else train_step
# Finite steps (the scale doubles every second one), then a step whose
# gradients are inf (nothing applied, the scale halved, the counter reset).
for i, poison in enumerate([1.0, 1.0, 1.0, float("inf"), 1.0]):
    step(x, y, tf.constant(poison))
    emit(f"scale{i}", optimizer.dynamic_scale)
    emit(f"counter{i}", optimizer.step_counter)
    emit(f"kernel{i}", model.trainable_variables[0])
    emit(f"iterations{i}", optimizer.iterations)
"""


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "tf_function"])
def test_loss_scale_optimizer_apply_gradients_as_tfs_keras(traced):
    got = _same_as_tf(f"TRACED = {traced}\n" + _LOSS_SCALE_LOOP)
    assert [got[f"scale{i}"] for i in range(5)] == [1024.0, 2048.0, 2048.0, 1024.0, 1024.0]
    assert got["kernel3"] == got["kernel2"] != got["kernel1"]


def test_keras_ops_cond_on_the_programs_values_is_tf_cond():
    _same_as_tf("""
    v = tf.Variable(0.0)
    def f(x):
        return tf.keras.ops.cond(x > 0, lambda: v.assign_add(x) * 2.0,
                                 lambda: v.assign_sub(1.0) * 3.0)
    g = tf.function(f)
    emit("eager", [f(tf.constant(2.0)), f(tf.constant(-1.0)), v])
    emit("traced", [g(tf.constant(2.0)), g(tf.constant(-1.0)), v])
    """)
