"""``tf.RaggedTensor`` and ``tf.ragged``: the same programs run through TensorFlow 2.21
and ``eagertape.tf``; a RaggedTensor result is compared as its flat values (dtype,
shape, values), nested row splits and static shape; dense results, gradients through
the flat values and the errors' classes as tf_oracle compares them. The ragged
tensor guide's cells (site/en/guide/ragged_tensor.ipynb in tensorflow/docs) are most
of the cases."""
import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle

tf_oracle.require()


def R(tf, x):
    """A result with each RaggedTensor as (flat values, nested row splits, shape)."""
    if isinstance(x, tf.RaggedTensor):
        return ("ragged", x.flat_values, list(x.nested_row_splits), x.shape.as_list(),
                x.ragged_rank)
    if isinstance(x, (list, tuple)):
        return type(x)(R(tf, v) for v in x)
    if isinstance(x, dict):
        return {k: R(tf, v) for k, v in x.items()}
    return x


def digits(tf):
    return tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])


def floats(tf):
    return tf.ragged.constant([[1.5, -2.0, 3.0], [], [0.5], [4.0, 1.0]])


def words(tf):
    return tf.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])


def deep(tf):
    return tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]], [[], [7]]])


def _signature_function(tf):
    f = tf.function(lambda rt: (tf.math.reduce_max(rt, axis=-1), rt * 2),
                    input_signature=[tf.RaggedTensorSpec([None, None], tf.int32)])
    return [f(tf.ragged.constant([[1, 2], [3], [4, 5, 6]])), f(tf.ragged.constant([[1], [3, 7]]))]


CASES = {
    # Making them (the guide's "Constructing a ragged tensor").
    "constant": lambda tf: R(tf, [digits(tf), floats(tf), deep(tf),
                                  tf.ragged.constant([["a", "b"], ["c"]]),
                                  tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]],
                                                     ragged_rank=1),
                                  tf.ragged.constant([[1, 2], []], dtype=tf.float64),
                                  tf.ragged.constant([[], []])]),
    "from_row_splits": lambda tf: R(tf, tf.RaggedTensor.from_row_splits(
        [3, 1, 4, 1, 5, 9, 2], [0, 4, 4, 7])),
    "from_row_lengths": lambda tf: R(tf, tf.RaggedTensor.from_row_lengths(
        [3., 1., 4., 1., 5.], [2, 0, 3])),
    "from_value_rowids": lambda tf: R(tf, tf.RaggedTensor.from_value_rowids(
        [3, 1, 4, 1, 5], [0, 0, 2, 2, 3], nrows=5)),
    "from_row_starts_limits": lambda tf: R(tf, [
        tf.RaggedTensor.from_row_starts([3, 1, 4, 1, 5], [0, 4, 4]),
        tf.RaggedTensor.from_row_limits([3, 1, 4, 1, 5], [4, 4, 5])]),
    "from_nested": lambda tf: R(tf, [
        tf.RaggedTensor.from_nested_row_lengths([3, 1, 4, 1, 5, 9], [[2, 0, 1], [1, 2, 3]]),
        tf.RaggedTensor.from_nested_row_splits([3, 1, 4, 1, 5, 9], [[0, 2, 3], [0, 1, 3, 6]]),
        tf.RaggedTensor.from_nested_value_rowids([3, 1, 4], [[0, 1], [0, 0, 1]])]),
    "from_tensor": lambda tf: R(tf, [
        tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], padding=0),
        tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], lengths=[1, 3]),
        tf.RaggedTensor.from_tensor(np.arange(12.0).reshape(2, 3, 2)),
        tf.RaggedTensor.from_tensor(np.arange(12).reshape(2, 3, 2), ragged_rank=2)]),
    "from_sparse": lambda tf: R(tf, tf.RaggedTensor.from_sparse(tf.SparseTensor(
        [[0, 0], [0, 1], [2, 0], [3, 0]], [1.0, 2.0, 3.0, 4.0], [5, 4]))),
    "from_sparse_not_right_ragged": lambda tf: tf.RaggedTensor.from_sparse(tf.SparseTensor(
        [[0, 0], [0, 1], [2, 0], [3, 2]], [1.0, 2.0, 3.0, 4.0], [5, 4])),
    "range": lambda tf: R(tf, [tf.ragged.range([3, 0, 2]), tf.ragged.range([0, 5, 8], [3, 3, 12], 2),
                               tf.ragged.range([0.5, 1.0], 3.0, 0.5)]),
    # Reading them.
    "accessors": lambda tf: R(tf, [digits(tf).row_lengths(), digits(tf).nrows(),
                                   digits(tf).row_starts(), digits(tf).row_limits(),
                                   digits(tf).value_rowids(), digits(tf).bounding_shape(),
                                   deep(tf).bounding_shape(), deep(tf).row_lengths(axis=2),
                                   list(deep(tf).nested_row_lengths()), deep(tf).values,
                                   digits(tf).to_list(), deep(tf).to_list()]),
    "to_tensor": lambda tf: R(tf, [digits(tf).to_tensor(), digits(tf).to_tensor(-1),
                                   digits(tf).to_tensor(shape=[3, 2]), floats(tf).to_tensor(
                                       shape=[None, 5]), deep(tf).to_tensor(),
                                   tf.ragged.constant([["a"], ["b", "c"]]).to_tensor("-")]),
    "to_sparse": lambda tf: R(tf, [digits(tf).to_sparse().indices, digits(tf).to_sparse().values,
                                   deep(tf).to_sparse().indices, deep(tf).to_sparse().dense_shape]),
    "merge_dims": lambda tf: R(tf, [deep(tf).merge_dims(0, 1), deep(tf).merge_dims(1, 2),
                                    deep(tf).merge_dims(0, -1)]),
    "indexing": lambda tf: R(tf, [digits(tf)[0], digits(tf)[-3], digits(tf)[1:4], deep(tf)[2],
                                  digits(tf)[:, :2], digits(tf)[::2], deep(tf)[:, 1:],
                                  digits(tf)[0, 1:], [r for r in floats(tf)]]),
    # TF's ops dispatching to ragged inputs (the guide's "Operations on ragged tensors").
    "elementwise": lambda tf: R(tf, [digits(tf) + 1, digits(tf) * digits(tf), 2 - floats(tf),
                                     -floats(tf), floats(tf) / 2, tf.add(digits(tf), 3),
                                     tf.maximum(floats(tf), 1.0), tf.math.square(floats(tf)),
                                     tf.exp(floats(tf)), tf.abs(floats(tf)),
                                     tf.cast(digits(tf), tf.float32), digits(tf) > 2,
                                     tf.equal(digits(tf), 1), tf.nn.relu(floats(tf)),
                                     tf.zeros_like(floats(tf)), tf.ones_like(digits(tf)),
                                     floats(tf) * tf.constant([[1.0], [2.0], [3.0], [4.0]]),
                                     tf.logical_not(digits(tf) > 3), deep(tf) * 2,
                                     tf.strings.length(tf.ragged.constant([["ab"], []]))]),
    "reductions": lambda tf: R(tf, [
        tf.reduce_sum(digits(tf), axis=1), tf.reduce_sum(digits(tf), axis=0),
        tf.reduce_sum(digits(tf)), tf.reduce_mean(floats(tf), axis=1),
        tf.reduce_mean(floats(tf), axis=0), tf.reduce_max(digits(tf), axis=1),
        tf.reduce_max(floats(tf), axis=1), tf.reduce_min(floats(tf), axis=-1),
        tf.reduce_prod(digits(tf), axis=1), tf.reduce_any(digits(tf) > 4, axis=1),
        tf.reduce_all(digits(tf) > 0, axis=1), tf.reduce_sum(deep(tf), axis=2),
        tf.reduce_sum(deep(tf), axis=1), tf.reduce_max(deep(tf), axis=-1),
        tf.reduce_sum(deep(tf), axis=[1, 2]), tf.reduce_mean(deep(tf)),
        tf.reduce_mean(digits(tf), axis=1)]),
    "concat_stack_gather": lambda tf: R(tf, [
        tf.concat([digits(tf), digits(tf)[:2]], axis=0), tf.concat([digits(tf), digits(tf)], axis=1),
        tf.stack([digits(tf), digits(tf) * 2], axis=0), tf.stack([digits(tf), digits(tf)], axis=1),
        tf.gather(digits(tf), [2, 0, 2]), tf.gather(digits(tf), [[0, 1], [2, 3]]),
        tf.gather(deep(tf), [2, 1]), tf.ragged.stack([digits(tf), digits(tf)], axis=1),
        tf.concat([tf.ragged.constant([[1.0]]), tf.constant([[2.0, 3.0]])], axis=0)]),
    "ragged_namespace": lambda tf: R(tf, [
        tf.ragged.map_flat_values(tf.math.multiply, digits(tf), 10),
        tf.ragged.map_flat_values(tf.add, digits(tf), digits(tf)),
        tf.ragged.boolean_mask([[1, 2, 3], [4, 5, 6]], [[True, False, True], [False, False, True]]),
        tf.ragged.boolean_mask(digits(tf), digits(tf) > 2),
        tf.ragged.boolean_mask(digits(tf), [True, False, True, False, True]),
        tf.ragged.stack_dynamic_partitions(["a", "b", "c", "d", "e"], [2, 0, 2, 0, 1], 3),
        tf.ragged.stack_dynamic_partitions(tf.constant([1.0, 2.0, 3.0]), [1, 1, 0], 3),
        tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5]),
        tf.ragged.segment_ids_to_row_splits([0, 0, 2, 2, 2])]),
    "tile_map_fn": lambda tf: R(tf, [tf.tile(digits(tf), [1, 2]), tf.tile(digits(tf), [2, 1]),
                                     tf.map_fn(tf.math.square, digits(tf)),
                                     tf.map_fn(tf.reduce_sum, digits(tf),
                                               fn_output_signature=tf.TensorSpec([], tf.int32))]),
    "map_fn_scalars_unsigned": lambda tf: tf.map_fn(tf.reduce_sum, digits(tf)),
    # TF's elementwise string ops on ragged text apply to the flat values.
    "string_ops": lambda tf: R(tf, [
        tf.strings.substr(words(tf), 0, 2), tf.strings.upper(words(tf)),
        tf.strings.lower(words(tf)), tf.strings.length(words(tf)),
        tf.strings.regex_replace(words(tf), "o", "0"),
        tf.strings.regex_full_match(words(tf), "f.*"), tf.strings.as_string(digits(tf)),
        tf.strings.to_number(tf.strings.as_string(digits(tf)), tf.int64),
        tf.strings.to_hash_bucket_fast(words(tf), 16), tf.io.encode_base64(words(tf)),
        tf.strings.strip(words(tf) + " ")]),
    # The guide's embeddings of words and bigrams: ragged ids, and a join of ragged text.
    "embedding_lookup_join": lambda tf: R(tf, [
        tf.nn.embedding_lookup(tf.reshape(tf.range(32.0), [8, 4]),
                               tf.strings.to_hash_bucket_fast(words(tf), 8)),
        tf.strings.join([words(tf), words(tf)], separator="+"),
        tf.strings.join([words(tf), "!"])]),
    "join_rows_differ": lambda tf: tf.strings.join([words(tf), words(tf)[:1]]),
    "reverse": lambda tf: R(tf, [
        tf.reverse(digits(tf), [1]), tf.reverse(digits(tf), [0, -1]), tf.reverse(deep(tf), [2]),
        tf.reverse(deep(tf), [1]), tf.concat([digits(tf), tf.reverse(digits(tf), [1])], 1),
        tf.reverse(tf.RaggedTensor.from_row_splits(tf.reshape(tf.range(12), [6, 2]),
                                                   [0, 2, 2, 6]), [2])]),
    "reverse_bad_axis": lambda tf: tf.reverse(digits(tf), [2]),
    # The guide's tf.function with a RaggedTensorSpec input_signature (two row structures).
    "function_ragged_signature": lambda tf: R(tf, _signature_function(tf)),
    "function_ragged_signature_dtype": lambda tf: tf.function(
        lambda rt: rt, input_signature=[tf.RaggedTensorSpec([None, None], tf.int32)])(
            tf.ragged.constant([[1.0]])),
    "text": lambda tf: R(tf, [tf.strings.split(tf.constant(["a b c", "d", ""])),
                              tf.strings.split(tf.constant(["a b c", "d"])).to_tensor(),
                              tf.strings.unicode_decode(tf.constant(["hé", "x"]), "UTF-8")]),
    "spec": lambda tf: [repr(tf.RaggedTensorSpec.from_value(digits(tf)).shape),
                        tf.RaggedTensorSpec.from_value(deep(tf)).ragged_rank,
                        tf.RaggedTensorSpec([None, None], tf.int32).is_compatible_with(digits(tf))],
    # Errors: TF's classes.
    "bad_row_splits": lambda tf: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 1]),
    "different_rows": lambda tf: digits(tf) + tf.ragged.constant([[1], [2]]),
    "row_out_of_range": lambda tf: digits(tf)[7],
    "index_inner_ragged": lambda tf: deep(tf)[:, 0],
}


@pytest.mark.parametrize("name", CASES)
def test_ragged_as_tensorflow(name):
    tf_oracle.check(CASES[name], errors="class")


def _grads(tf):
    x = tf.Variable([1.0, -2.0, 3.0, 0.5, 4.0])
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    out = []
    for fn in (
            lambda r: tf.reduce_sum(tf.reduce_max(r * r, axis=1)),
            lambda r: tf.reduce_sum(tf.reduce_mean(r, axis=1) * [1.0, 2.0, 3.0]),
            lambda r: tf.reduce_sum(r.to_tensor() * tf.constant([[1.0, 2.0, 3.0]])),
            lambda r: tf.reduce_sum(tf.ragged.map_flat_values(tf.math.sin, r).flat_values),
            lambda r: tf.reduce_sum(tf.reduce_sum(r, axis=0) * [1.0, -1.0, 2.0]),
            lambda r: tf.reduce_sum(tf.gather(r, [2, 2]).flat_values),
            lambda r: tf.reduce_sum(tf.concat([r, r * 2.0], axis=1).to_tensor()),
            lambda r: tf.reduce_sum(r[:, :1].flat_values * 3.0)):
        with tf.GradientTape() as tape:
            r = tf.RaggedTensor.from_row_lengths(x, [3, 0, 2])
            loss = fn(r)
        out.append(tape.gradient(loss, x))
    # An embedding bag: ragged ids, gathered rows of a variable, averaged per row.
    ids = tf.ragged.constant([[0, 2], [1], [2, 2, 0]])
    with tf.GradientTape() as tape:
        emb = tf.ragged.map_flat_values(tf.gather, w, ids)
        loss = tf.reduce_sum(tf.reduce_mean(emb, axis=1) ** 2)
    out.append(tape.gradient(loss, w))
    return out


@pytest.mark.both_modes
def test_gradients_through_flat_values_are_tensorflows():
    tf_oracle.check(_grads, rtol=1e-5)


def test_errors_name_the_argument_and_what_to_do():
    rt = etf.ragged.constant([[1, 2], [3]])
    with pytest.raises(etf.errors.InvalidArgumentError, match="row_splits"):
        etf.RaggedTensor.from_row_splits([1, 2], [0, 3])
    with pytest.raises(TypeError, match="tf.ragged.constant"):
        etf.RaggedTensor([1], [0, 1])
    with pytest.raises(etf.errors.InvalidArgumentError, match="does not broadcast"):
        rt + etf.ones([3, 3], etf.int32)
    with pytest.raises(ValueError, match="ragged_rank"):
        etf.RaggedTensor.from_tensor([[1, 2]], ragged_rank=2)
    with pytest.raises(TypeError, match="ambiguous"):
        bool(rt)


@pytest.mark.both_modes
def test_a_tf_function_takes_and_returns_ragged_tensors_and_keras_refuses_them():
    f = etf.function(lambda r: (r * 2, etf.reduce_sum(r, axis=1)))
    x = etf.Variable([1.0, 2.0, 3.0])
    with etf.GradientTape() as tape:
        doubled, sums = f(etf.RaggedTensor.from_row_lengths(x, [2, 1]))
        loss = etf.reduce_sum(doubled.to_tensor()) + etf.reduce_sum(sums * [1.0, 3.0])
    assert doubled.to_list() == [[2.0, 4.0], [6.0]] and sums.numpy().tolist() == [3.0, 3.0]
    assert tape.gradient(loss, x).numpy().tolist() == [3.0, 3.0, 5.0]
    f(etf.ragged.constant([[5.0], [6.0, 7.0]]))       # other rows: traced again
    assert f.experimental_get_tracing_count() == 2
    import jax
    # Rebuilt from JAX arrays, as a Keras layer's call rebuilds its inputs: refused.
    _, treedef = jax.tree_util.tree_flatten(etf.ragged.constant([[1.0]]),
                                            is_leaf=lambda v: isinstance(v, etf.Tensor))
    with pytest.raises(ValueError, match="to_tensor"):
        jax.tree_util.tree_unflatten(treedef, [np.ones(1, np.float32)])
