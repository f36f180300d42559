"""Two census programs' gaps (issue 38), each against TensorFlow (tf_oracle):

- ragged_tensor_guide: ``tf.shape`` of a RaggedTensor is a DynamicRaggedShape (its
  lengths, indexing, slicing), which ``tf.reshape``, ``tf.zeros``, ``tf.ones`` and
  ``tf.fill`` take; ``tf.experimental.DynamicRaggedShape``/``RowPartition``; a dense
  operand broadcast against a RaggedTensor by TF's rules (rank aligned on the right,
  inner dimensions broadcast); ``RaggedTensor.from_uniform_row_length``;
- distributed_input: a distributed iterator's ``get_next_as_optional`` in a
  ``tf.function``'s ``tf.range`` loop that breaks on ``has_value()`` (each call taking
  the next elements); ``input_signature`` holding a nested structure of specs (a
  distributed dataset's ``element_spec``)."""
import pytest

import tf_oracle


def _shape_of_ragged(tf):
    rt = tf.ragged.constant([[1], [2, 3, 4], [], [5, 6]])
    s = tf.shape(rt)
    x = tf.constant([["a", "b"], ["c", "d"], ["e", "f"]])
    try:
        s[1]
        uniform = "no error"
    except ValueError:
        uniform = "ValueError"
    return {
        "repr": repr(s), "lengths": s.static_lengths(), "rank": s.rank,
        "num_row_partitions": s.num_row_partitions, "inner_shape": s.inner_shape,
        "first": s[0], "last_of_3d": tf.shape(tf.ragged.constant(
            [[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1))[-1],
        "not_uniform": uniform, "prefix": repr(s[:1]),
        "reshape": tf.reshape(x, s).to_list(), "zeros": tf.zeros(s).to_list(),
        "ones_int": tf.ones(s, dtype=tf.int32).to_list(),
        "fill": tf.fill(s, "x").to_list(),
        "int64": tf.shape(rt, out_type=tf.int64)[0],
    }


def _ragged_shape_constructors(tf):
    D, RP = tf.experimental.DynamicRaggedShape, tf.experimental.RowPartition
    rp = RP.from_row_lengths([5, 3, 2])
    a = D(row_partitions=[rp], inner_shape=[10, 8])
    b = D.from_lengths([2, 3, (1, 2, 0, 1, 1, 1), 4])
    return {
        "rp": repr(rp), "rp_splits": rp.row_splits(), "rp_nrows": rp.nrows(),
        "uniform": repr(RP.from_uniform_row_length(3, nvals=6)),
        "a": repr(a), "a2": a[2], "b": repr(b), "b1": b[1], "b_inner": b.inner_shape,
        "b_prefix2": repr(b[:2]), "b_prefix3": repr(b[:3]),
        "b_zeros": tf.zeros(b, dtype=tf.int32).to_list(),
        "from_lengths": repr(D.from_lengths([4, (2, 1, 0, 8), 12])),
        "one_partition": repr(D.from_lengths([2, 3, 4], num_row_partitions=1)),
    }


def _ragged_broadcast(tf):
    x3 = tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1)
    x4 = tf.ragged.constant([[[[1], [2]], [], [[3]], [[4]]], [[[5], [6]], [[7]]]],
                            ragged_rank=2)
    x2 = tf.ragged.constant([[1, 2], [3, 4, 5, 6], [7]])
    try:
        x2 + tf.constant([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
        bad = "no error"
    except tf.errors.InvalidArgumentError:
        bad = "InvalidArgumentError"
    return {
        "rank3_plus_1x1": (x3 + tf.constant([[10]])).to_list(),
        "rank4_plus_vector": (x4 + tf.constant([10, 20, 30])).to_list(),
        "vector_times_rank4": (tf.constant([1, 2, 3]) * x4).to_list(),
        "column": (x2 + [[100], [200], [300]]).to_list(),
        "mismatch": bad,
    }


def _uniform_row_length(tf):
    rt = tf.RaggedTensor.from_uniform_row_length(
        values=tf.RaggedTensor.from_row_splits(
            values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19], row_splits=[0, 3, 5, 9, 10]),
        uniform_row_length=2)
    flat = tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4, 5, 6], 3)
    return {"rt": rt.to_list(), "shape": str(rt.shape), "ragged_rank": rt.ragged_rank,
            "flat": flat.to_list(), "flat_shape": str(flat.shape)}


@pytest.mark.parametrize("program", [_shape_of_ragged, _ragged_shape_constructors,
                                     _ragged_broadcast, _uniform_row_length],
                         ids=lambda p: p.__name__.strip("_"))
def test_ragged(program):
    tf_oracle.check(program, tf_raises=False)


def _optional_in_traced_loop(tf):
    strategy = tf.distribute.MirroredStrategy()
    dataset = tf.data.Dataset.range(9).batch(4)

    @tf.function
    def total(iterator, s):
        for _ in tf.range(10):
            optional = iterator.get_next_as_optional()
            if not optional.has_value():
                break
            s += tf.reduce_sum(strategy.run(lambda x: x * 2, args=(optional.get_value(),)))
        return s

    @tf.function
    def first(iterator):
        return tf.reduce_sum(iterator.get_next_as_optional().get_value())

    it = iter(strategy.experimental_distribute_dataset(dataset))
    whole = total(it, tf.constant(0, tf.int64))
    it = iter(strategy.experimental_distribute_dataset(dataset))
    # Each call takes the next element (TF's iterator op), not the first trace's.
    return {"total": whole, "each": [first(it) for _ in range(3)]}


def _nested_input_signature(tf):
    strategy = tf.distribute.MirroredStrategy()
    dataset = tf.data.Dataset.from_tensors(([1.0], [2.0])).repeat(10).batch(4)
    dist = strategy.experimental_distribute_dataset(dataset)

    @tf.function(input_signature=[dist.element_spec])
    def step(inputs):
        return strategy.run(lambda x: (2 * x[0], x[1] + 1), args=(inputs,))

    @tf.function(input_signature=[{"a": tf.TensorSpec([None], tf.float32),
                                   "b": (tf.TensorSpec([], tf.int32),)}])
    def scaled(d):
        return d["a"] * tf.cast(d["b"][0], tf.float32)

    try:
        scaled({"a": [1.0, 2.0]})
        missing = "no error"
    except (TypeError, ValueError):
        missing = "error"
    return {"steps": [step(x) for x in dist],
            "dict": [scaled({"a": [1.0, 2.0], "b": (3,)}),
                     scaled({"a": tf.constant([1.0, 2.0, 4.0]), "b": (tf.constant(2),)})],
            "missing_part": missing}


@pytest.mark.parametrize("program", [_optional_in_traced_loop, _nested_input_signature],
                         ids=lambda p: p.__name__.strip("_"))
def test_distribute(program):
    tf_oracle.check(program, tf_raises=False)
