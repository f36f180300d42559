"""``tf.SparseTensor`` and ``tf.sparse``: the same programs run through TensorFlow 2.21
and ``eagertape.tf``; the results (a SparseTensor as its indices, values and dense
shape: TF's order and dtypes), the gradients of a weighted sum of the float results
w.r.t. the sparse values and the dense inputs (or the class of the gradient's error),
and the errors compared. TF's side comes from tests/tf_oracle.py. Two public TF
programs are ported at the end: TF's guide "Working with sparse tensors" and a GCN
(Kipf & Welling) node classifier; the Keras cells run in fresh processes (one Keras
backend a process), as tests/test_keras.py runs its programs."""
import math
import textwrap

import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle

tf = tf_oracle.require()    # TensorFlow, imported where a test reads it


# -- inputs: (indices, values, dense_shape) of several shapes and densities ------------

def sp_input(shape, density, seed, dtype=np.float32, unsorted=False):
    rng = np.random.default_rng(seed)
    size = math.prod(shape)
    n = int(round(density * size))
    flat = np.sort(rng.choice(size, n, replace=False))
    idx = np.stack(np.unravel_index(flat, shape), axis=1).astype(np.int64).reshape(n, len(shape))
    if np.issubdtype(dtype, np.integer):
        vals = rng.integers(-5, 6, size=n).astype(dtype)
    else:
        vals = (rng.normal(size=n) + 0.1).astype(dtype)
    if unsorted:
        perm = rng.permutation(n)
        idx, vals = idx[perm], vals[perm]
    return idx, vals, list(shape)


SP = {
    "4x5": sp_input((4, 5), 0.3, 0),
    "4x5b": sp_input((4, 5), 0.35, 10),
    "3x4x2": sp_input((3, 4, 2), 0.25, 1),
    "empty3x4": sp_input((3, 4), 0.0, 2),
    "full2x2": sp_input((2, 2), 1.0, 3),
    "vec6": sp_input((6,), 0.5, 4),
    "4x5_unsorted": sp_input((4, 5), 0.3, 0, unsorted=True),
    "3x4x2_unsorted": sp_input((3, 4, 2), 0.25, 1, unsorted=True),
    "4x5_int": sp_input((4, 5), 0.3, 5, dtype=np.int32),
    "5x3_rows": sp_input((5, 3), 0.25, 6),
    "2x3x4_f64": sp_input((2, 3, 4), 0.3, 7, dtype=np.float64),
}
rng = np.random.default_rng(0)
D = {k: rng.normal(size=s).astype(np.float32) for k, s in {
    "5x3": (5, 3), "4x3": (4, 3), "3x5": (3, 5), "3x4": (3, 4), "4x2": (4, 2), "2x4": (2, 4),
    "4x5": (4, 5), "5": (5,), "4x1": (4, 1), "1x5": (1, 5), "2": (2,), "3x4x2": (3, 4, 2),
    "3x2": (3, 2), "6x2": (6, 2), "": ()}.items()}
D["pos5"] = np.abs(D["5"]) + 0.5


def _ids(tf):
    # ids of rows 0, 1 and 3 (row 2 empty) of a [4, 3] SparseTensor
    return tf.SparseTensor([[0, 0], [0, 2], [1, 1], [3, 0], [3, 1]],
                           tf.constant([1, 4, 0, 5, 1], tf.int64), [4, 3])


def _weights(negative=False):
    w = np.float32([0.5, 2.0, -1.0 if negative else 1.5, 1.0, 0.25])
    return np.int64([[0, 0], [0, 2], [1, 1], [3, 0], [3, 1]]), w, [4, 3]


def _is_sparse(x):
    return all(hasattr(x, a) for a in ("indices", "values", "dense_shape"))


def _flat(out):
    if _is_sparse(out):
        return [out.indices, out.values, out.dense_shape]
    if isinstance(out, (list, tuple)):
        return [y for o in out for y in _flat(o)]
    return [out]


def _floating(lib, t):
    d = t.dtype
    return np.issubdtype(np.dtype(getattr(d, "as_numpy_dtype", d)), np.floating)


def outcome(lib, prog, sparse, dense):
    """``prog(lib, *SparseTensors, *dense)``'s results and the gradients of a weighted
    sum of its float results w.r.t. the float sparse values and dense inputs (or the
    name of the gradient's error: TF registers none for some ops)."""
    values = [lib.constant(v) for _, v, _ in sparse]
    ds = [lib.constant(d) for d in dense]
    sources = [x for x in values + ds if _floating(lib, x)]
    with lib.GradientTape(persistent=True) as tape:
        for x in sources:
            tape.watch(x)
        sps = [lib.SparseTensor(i, v, s) for (i, _, s), v in zip(sparse, values)]
        outs = _flat(prog(lib, *sps, *ds))
        loss = None
        for k, o in enumerate(o for o in outs if _floating(lib, o)):
            # weights other than ones, so that no gradient sums to zero by symmetry
            w = np.cos(np.arange(int(np.prod(o.shape))) + k).reshape(tuple(o.shape))
            term = lib.reduce_sum(lib.cast(o, lib.float32) * w.astype(np.float32))
            loss = term if loss is None else loss + term
    grads = None
    if loss is not None and sources:
        try:
            grads = list(tape.gradient(loss, sources))
        except (LookupError, TypeError) as e:
            # TF registers no gradient (LookupError), or one that fails (TypeError)
            grads = "LookupError" if isinstance(e, LookupError) else "TypeError"
    del tape
    return outs, grads


def compare(prog, sparse, dense=(), atol=2e-5, grad_atol=1e-4, errors="class"):
    """Assert that ``prog`` gives TF's results and gradients (or TF's error class)."""
    sparse = [SP[s] if isinstance(s, str) else s for s in sparse]
    dense = [D[d] if isinstance(d, str) else d for d in dense]
    want = tf_oracle.tf_outcome(outcome, prog, sparse, dense)
    got = tf_oracle.run(etf, outcome, prog, sparse, dense)
    if want.raised or got.raised:
        tf_oracle.assert_same(got, want, errors=errors)
        return got
    (t_outs, t_grads), (e_outs, e_grads) = want.value[1], got.value[1]
    tf_oracle.assert_same(e_outs, t_outs, rtol=atol, atol=atol, where="outputs")
    tf_oracle.assert_same(e_grads, t_grads, rtol=grad_atol, atol=grad_atol, where="gradients")
    return got


# name -> (program, sparse inputs, dense inputs)
OPS = {
    # to_dense: the gradient w.r.t. the values is the dense gradient at the indices
    **{f"to_dense_{k}": (lambda tf, a: tf.sparse.to_dense(a), [k], [])
       for k in ("4x5", "3x4x2", "empty3x4", "full2x2", "vec6", "4x5_int", "2x3x4_f64")},
    "to_dense_default": (lambda tf, a, d: tf.sparse.to_dense(a, default_value=d),
                         ["4x5"], [""]),
    "to_dense_unsorted_raises": (lambda tf, a: tf.sparse.to_dense(a), ["4x5_unsorted"], []),
    "to_dense_unsorted_unvalidated": (
        lambda tf, a: tf.sparse.to_dense(a, validate_indices=False), ["4x5_unsorted"], []),
    "to_dense_out_of_bounds": (lambda tf: tf.sparse.to_dense(
        tf.SparseTensor([[0, 1], [5, 0]], [1.0, 2.0], [2, 3])), [], []),
    "to_dense_repeated": (lambda tf: tf.sparse.to_dense(
        tf.SparseTensor([[0, 1], [0, 1]], [1.0, 2.0], [2, 3])), [], []),
    # reorder: canonical order, the gradient gathered back
    **{f"reorder_{k}": (lambda tf, a: tf.sparse.reorder(a), [k], [])
       for k in ("4x5_unsorted", "3x4x2_unsorted", "4x5", "empty3x4")},
    "reorder_then_dense": (lambda tf, a: tf.sparse.to_dense(tf.sparse.reorder(a)),
                           ["3x4x2_unsorted"], []),
    # sparse_dense_matmul, with the adjoint flags and either side sparse
    "matmul": (lambda tf, a, b: tf.sparse.sparse_dense_matmul(a, b), ["4x5"], ["5x3"]),
    "matmul_unsorted": (lambda tf, a, b: tf.sparse.sparse_dense_matmul(a, b),
                        ["4x5_unsorted"], ["5x3"]),
    "matmul_adjoint_a": (lambda tf, a, b: tf.sparse.sparse_dense_matmul(a, b, adjoint_a=True),
                         ["4x5"], ["4x3"]),
    "matmul_adjoint_b": (lambda tf, a, b: tf.sparse.sparse_dense_matmul(a, b, adjoint_b=True),
                         ["4x5"], ["3x5"]),
    "matmul_adjoint_both": (lambda tf, a, b: tf.sparse.sparse_dense_matmul(
        a, b, adjoint_a=True, adjoint_b=True), ["4x5"], ["3x4"]),
    "matmul_empty": (lambda tf, a, b: tf.sparse.sparse_dense_matmul(a, b), ["empty3x4"],
                     ["4x2"]),
    "matmul_dense_sparse": (lambda tf, a, b: tf.sparse.sparse_dense_matmul(b, a),
                            ["4x5"], ["2x4"]),
    "matmul_dense_sparse_adjoint": (lambda tf, a, b: tf.sparse.sparse_dense_matmul(
        b, a, adjoint_a=True, adjoint_b=False), ["4x5"], ["4x2"]),
    "matmul_int": (lambda tf, a: tf.sparse.sparse_dense_matmul(
        a, tf.ones([5, 2], tf.int32)), ["4x5_int"], []),
    "matmul_inner_mismatch": (lambda tf, a, b: tf.sparse.sparse_dense_matmul(a, b),
                              ["4x5"], ["4x2"]),
    "matmul_rank3": (lambda tf, a, b: tf.sparse.sparse_dense_matmul(a, b), ["3x4x2"],
                     ["4x2"]),
    "matmul_out_of_bounds": (lambda tf, b: tf.sparse.sparse_dense_matmul(
        tf.SparseTensor([[0, 7]], [1.0], [4, 5]), b), [], ["5x3"]),
    "matmul_dtypes": (lambda tf, a: tf.sparse.sparse_dense_matmul(
        a, tf.ones([5, 2], tf.float64)), ["4x5"], []),
    # reduce_sum (dense result; and sparse, whose gradient TF does not register)
    "reduce_sum_all": (lambda tf, a: tf.sparse.reduce_sum(a), ["3x4x2"], []),
    "reduce_sum_axis0": (lambda tf, a: tf.sparse.reduce_sum(a, 0), ["4x5"], []),
    "reduce_sum_axis1": (lambda tf, a: tf.sparse.reduce_sum(a, axis=1), ["4x5_unsorted"], []),
    "reduce_sum_neg_keepdims": (lambda tf, a: tf.sparse.reduce_sum(a, -1, keepdims=True),
                                ["3x4x2"], []),
    "reduce_sum_two_axes": (lambda tf, a: tf.sparse.reduce_sum(a, [0, 2]), ["3x4x2"], []),
    "reduce_sum_empty": (lambda tf, a: tf.sparse.reduce_sum(a, 1), ["empty3x4"], []),
    "reduce_sum_int": (lambda tf, a: tf.sparse.reduce_sum(a, 1), ["4x5_int"], []),
    "reduce_sum_bad_axis": (lambda tf, a: tf.sparse.reduce_sum(a, 3), ["3x4x2"], []),
    "reduce_sum_sparse": (lambda tf, a: tf.sparse.reduce_sum(a, 1, output_is_sparse=True),
                          ["5x3_rows"], []),
    "reduce_sum_sparse_keepdims": (lambda tf, a: tf.sparse.reduce_sum(
        a, 1, keepdims=True, output_is_sparse=True), ["3x4x2_unsorted"], []),
    "reduce_sum_sparse_value": (lambda tf, a: tf.sparse.reduce_sum(tf.SparseTensor(
        a.indices, tf.stop_gradient(a.values), a.dense_shape), 0, output_is_sparse=True),
        ["4x5"], []),
    # reduce_max: missing entries are not zeros; no gradient in TF
    "reduce_max": (lambda tf, a: tf.sparse.reduce_max(a, 1), ["4x5"], []),
    "reduce_max_value": (lambda tf, a: tf.stop_gradient(tf.sparse.reduce_max(a, 0)),
                         ["3x4x2"], []),
    "reduce_max_int": (lambda tf, a: tf.sparse.reduce_max(a, 1), ["4x5_int"], []),
    "reduce_max_guide": (lambda tf: tf.sparse.reduce_max(tf.sparse.from_dense([-5, 0, -3])),
                         [], []),
    # softmax over each innermost row's entries
    **{f"softmax_{k}": (lambda tf, a: tf.sparse.softmax(a), [k], [])
       for k in ("4x5", "3x4x2", "empty3x4", "full2x2", "2x3x4_f64")},
    "softmax_rank1": (lambda tf, a: tf.sparse.softmax(a), ["vec6"], []),
    # add: sparse + sparse (union, canonical order, threshold), sparse + dense
    "add": (lambda tf, a, b: tf.sparse.add(a, b), ["4x5", "4x5b"], []),
    "add_empty": (lambda tf, a, b: tf.sparse.add(a, b), ["empty3x4", "empty3x4"], []),
    "add_cancels": (lambda tf, a: tf.sparse.add(a, a * tf.fill([5], -1.0)), ["4x5"], []),
    "add_threshold": (lambda tf, a, b: tf.sparse.add(a, b, threshold=0.6), ["4x5", "4x5b"],
                      []),
    "add_int": (lambda tf, a: tf.sparse.add(a, a), ["4x5_int"], []),
    "add_dense": (lambda tf, a, d: tf.sparse.add(a, d), ["4x5"], ["4x5"]),
    "add_dense_first": (lambda tf, a, d: tf.sparse.add(d, a), ["4x5_unsorted"], ["4x5"]),
    "add_shapes_differ": (lambda tf, a, b: tf.sparse.add(a, b), ["4x5", "empty3x4"], []),
    "add_dense_shape_differs": (lambda tf, a, d: tf.sparse.add(a, d), ["4x5"], ["4x1"]),
    "add_no_sparse": (lambda tf, d: tf.sparse.add(d, d), [], ["4x5"]),
    "maximum": (lambda tf, a, b: tf.sparse.maximum(a, b), ["4x5", "4x5b"], []),
    "minimum_value": (lambda tf, a, b: tf.stop_gradient(
        tf.sparse.to_dense(tf.sparse.minimum(a, b))), ["4x5", "4x5b"], []),
    # retain, slice, split, concat, transpose, reshape, expand_dims, reset_shape
    "retain": (lambda tf, a: tf.sparse.retain(a, [True, False] * 3), ["4x5"], []),
    "retain_unsorted": (lambda tf, a: tf.sparse.retain(a, [False, True] * 3),
                        ["4x5_unsorted"], []),
    "retain_wrong_length": (lambda tf, a: tf.sparse.retain(a, [True]), ["4x5"], []),
    "slice": (lambda tf, a: tf.sparse.slice(a, [1, 1], [2, 3]), ["4x5"], []),
    "slice_past_end": (lambda tf, a: tf.sparse.slice(a, [2, 3], [5, 5]), ["4x5_unsorted"], []),
    "slice_3d": (lambda tf, a: tf.sparse.slice(a, [0, 1, 1], [3, 2, 1]), ["3x4x2"], []),
    "split": (lambda tf, a: tf.sparse.split(sp_input=a, num_split=2, axis=1), ["4x5"], []),
    "split_value": (lambda tf, a: [tf.sparse.to_dense(p) for p in tf.sparse.split(
        sp_input=tf.SparseTensor(a.indices, tf.stop_gradient(a.values), a.dense_shape),
        num_split=3, axis=0)], ["3x4x2"], []),
    "concat_axis1": (lambda tf, a, b: tf.sparse.concat(1, [a, b]), ["4x5", "4x5b"], []),
    "concat_axis0": (lambda tf, a, b: tf.sparse.concat(0, [a, b]), ["4x5", "4x5b"], []),
    "concat_neg_axis": (lambda tf, a, b, c: tf.sparse.concat(-1, [a, b, c]),
                        ["3x4x2", "3x4x2", "3x4x2"], []),
    "concat_one": (lambda tf, a: tf.sparse.concat(0, [a]), ["4x5"], []),
    "concat_expand": (lambda tf, a, b: tf.sparse.concat(0, [a, b], expand_nonconcat_dims=True),
                      ["4x5", "empty3x4"], []),
    "concat_shapes_differ": (lambda tf, a, b: tf.sparse.concat(0, [a, b]),
                             ["4x5", "empty3x4"], []),
    **{f"transpose_{k}": (lambda tf, a: tf.sparse.transpose(a), [k], [])
       for k in ("4x5", "4x5_unsorted", "3x4x2")},
    "transpose_perm": (lambda tf, a: tf.sparse.transpose(a, [1, 0, 2]), ["3x4x2_unsorted"], []),
    "transpose_perm2": (lambda tf, a: tf.sparse.transpose(a, [2, 0, 1]), ["3x4x2"], []),
    "reshape": (lambda tf, a: tf.sparse.reshape(a, [10, -1]), ["4x5"], []),
    "reshape_3d": (lambda tf, a: tf.sparse.reshape(a, [6, 4]), ["3x4x2_unsorted"], []),
    "reshape_flat": (lambda tf, a: tf.sparse.reshape(a, [-1]), ["3x4x2"], []),
    "reshape_bad": (lambda tf, a: tf.sparse.reshape(a, [3, 3]), ["4x5"], []),
    "expand_dims": (lambda tf, a: tf.sparse.expand_dims(a, 1), ["4x5"], []),
    "expand_dims_last": (lambda tf, a: tf.sparse.expand_dims(a, -1), ["3x4x2"], []),
    "reset_shape": (lambda tf, a: tf.sparse.reset_shape(a), ["4x5"], []),
    "reset_shape_to": (lambda tf, a: tf.sparse.reset_shape(a, [6, 7]), ["4x5"], []),
    # fill_empty_rows, to_indicator, from_dense, eye, map_values, operators
    "fill_empty_rows": (lambda tf, a, d: tf.sparse.fill_empty_rows(a, d), ["5x3_rows"], [""]),
    "fill_empty_rows_unsorted": (lambda tf, a: tf.sparse.fill_empty_rows(a, 0.5),
                                 ["4x5_unsorted"], []),
    "fill_empty_rows_empty": (lambda tf, a: tf.sparse.fill_empty_rows(a, -1.0),
                              ["empty3x4"], []),
    "to_indicator": (lambda tf: tf.sparse.to_indicator(tf.SparseTensor(
        [[0, 0], [0, 1], [1, 0], [2, 1]], tf.constant([2, 0, 3, 3], tf.int64), [3, 2]), 4),
        [], []),
    "from_dense": (lambda tf, d: tf.sparse.from_dense(tf.nn.relu(d)), [], ["4x5"]),
    "from_dense_int": (lambda tf: tf.sparse.from_dense([[1, 0, 0, 8], [0, 0, 0, 0]]), [], []),
    "from_dense_all_zero": (lambda tf, d: tf.sparse.from_dense(d * 0.0), [], ["4x2"]),
    "eye": (lambda tf: tf.sparse.eye(3, 4), [], []),
    "map_values": (lambda tf, a: tf.sparse.map_values(tf.math.square, a), ["4x5"], []),
    "map_values_two": (lambda tf, a: tf.sparse.map_values(tf.multiply, a, a), ["3x4x2"], []),
    "with_values": (lambda tf, a, d: a.with_values(a.values * d), ["4x5"], [""]),
    "mul_row": (lambda tf, a, d: a * d, ["4x5_unsorted"], ["5"]),
    "mul_column": (lambda tf, a, d: a * d, ["4x5"], ["4x1"]),
    "mul_scalar_value": (lambda tf, a: tf.stop_gradient((a * 2.5).values), ["3x4x2"], []),
    "mul_dense_left": (lambda tf, a, d: d * a, ["4x5"], ["1x5"]),
    "div": (lambda tf, a, d: a / d, ["4x5"], ["pos5"]),
    "div_int": (lambda tf, a: a / 2, ["4x5_int"], []),
    "mul_no_broadcast_up": (lambda tf, a, d: a * d, ["4x5"], ["3x4x2"]),
    # tf.sparse.segment_*: rows of a dense tensor, gathered and reduced
    "segment_sum": (lambda tf, d: tf.sparse.segment_sum(d, [0, 2, 1, 3], [0, 0, 1, 1]),
                    [], ["4x3"]),
    "segment_mean": (lambda tf, d: tf.sparse.segment_mean(d, [0, 2, 3], [0, 0, 2]), [],
                     ["4x3"]),
    "segment_sqrt_n": (lambda tf, d: tf.sparse.segment_sqrt_n(d, [1, 1, 2], [0, 1, 1],
                                                               num_segments=3), [], ["4x3"]),
    # tf.nn's embedding lookups of SparseTensor ids (TF's gradient of the table is
    # IndexedSlices: made dense by the oracle)
    "embedding_mean": (lambda tf, d: tf.nn.embedding_lookup_sparse(d, _ids(tf), None),
                       [], ["6x2"]),
    "embedding_sum_weighted": (lambda tf, w, d: tf.nn.embedding_lookup_sparse(
        d, _ids(tf), tf.SparseTensor(_ids(tf).indices, w.values, [4, 3]), combiner="sum"),
        [_weights()], ["6x2"]),
    "embedding_sqrtn_weighted": (lambda tf, w, d: tf.nn.embedding_lookup_sparse(
        [d[:3], d[3:]], _ids(tf), tf.SparseTensor(_ids(tf).indices, w.values, [4, 3]),
        combiner="sqrtn"), [_weights()], ["6x2"]),
    "embedding_max_norm": (lambda tf, d: tf.nn.embedding_lookup_sparse(
        d * 3.0, _ids(tf), None, max_norm=1.5), [], ["6x2"]),
    "safe_embedding": (lambda tf, d: tf.nn.safe_embedding_lookup_sparse(
        d, tf.SparseTensor([[0, 0], [0, 1], [2, 0], [3, 1]],
                           tf.constant([1, -1, 4, 2], tf.int64), [5, 2])), [], ["6x2"]),
    "safe_embedding_default_weighted": (lambda tf, w, d: tf.nn.safe_embedding_lookup_sparse(
        d, _ids(tf), tf.SparseTensor(_ids(tf).indices, w.values, [4, 3]), default_id=5),
        [_weights(negative=True)], ["6x2"]),
    "safe_embedding_rank3": (lambda tf, d: tf.nn.safe_embedding_lookup_sparse(
        d, tf.SparseTensor([[0, 0, 0], [1, 1, 1], [1, 1, 0]],
                           tf.constant([3, 0, 5], tf.int64), [2, 2, 2]), combiner="sum"),
        [], ["6x2"]),
    # TF's generic ops that take a SparseTensor
    "generic_ops": (lambda tf, a: (tf.shape(a), tf.size(a), tf.rank(a), tf.is_tensor(a),
                                   tf.shape(a, out_type=tf.int64)), ["3x4x2"], []),
    "cast": (lambda tf, a: tf.cast(a, tf.float64), ["4x5"], []),
    "cast_int": (lambda tf, a: tf.cast(a, tf.float32), ["4x5_int"], []),
    "identity": (lambda tf, a: tf.identity(a), ["4x5_unsorted"], []),
    # a chain: the values' gradient through several ops
    "chain": (lambda tf, a, b: tf.reduce_sum(tf.sparse.sparse_dense_matmul(
        tf.sparse.softmax(tf.sparse.transpose(a)), b) ** 2), ["4x5"], ["4x2"]),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_gives_tfs_results_and_gradients(name):
    prog, sparse, dense = OPS[name]
    compare(prog, sparse, dense)


# -- the SparseTensor itself ---------------------------------------------------------

def _parts(tf):
    st = tf.SparseTensor(indices=[[0, 3], [2, 4]], values=[10, 20], dense_shape=[3, 10])
    return (st.indices, st.values, st.dense_shape, st.dtype, st.shape, st.get_shape(),
            st.indices.dtype, st.dense_shape.dtype, tf.sparse.SparseTensor is tf.SparseTensor)


def _times_scalar(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        sp = tf.SparseTensor([[0, 1], [1, 0], [1, 2]], x, [2, 3]) * 2.5
        loss = tf.reduce_sum(sp.values * tf.constant([1.0, 2.0, 3.0]))
    return tape.gradient(loss, x)


def test_sparse_times_a_scalar_differentiates_where_tf_raises():
    # TF's gradient of SparseDenseCwiseMul gathers from the dense side at the
    # entries' indices, which a scalar cannot give: it raises. The derivative exists.
    want = tf_oracle.tf_outcome(_times_scalar)
    assert want.raised and want.error.family == "InvalidArgumentError", want
    got = tf_oracle.run(etf, _times_scalar)
    np.testing.assert_allclose(got.raw.numpy(), [2.5, 5.0, 7.5])


def test_attributes_are_tfs():
    tf_oracle.check(_parts)


CONSTRUCTOR = {
    "lengths_differ": lambda tf: tf.SparseTensor([[0, 0]], [1.0, 2.0], [2, 2]),
    "indices_rank1": lambda tf: tf.SparseTensor([0, 0], [1.0], [2, 2]),
    "rank_differs": lambda tf: tf.SparseTensor([[0, 0]], [1.0], [2, 2, 2]),
    "float_indices": lambda tf: tf.SparseTensor([[0.0, 0.0]], [1.0], [2, 2]),
    "empty": lambda tf: _flat(tf.SparseTensor(np.zeros([0, 2], np.int64),
                                              tf.zeros([0]), [2, 2])),
    "not_sparse": lambda tf: tf.sparse.to_dense(tf.ones([2])),
}


@pytest.mark.parametrize("name", sorted(CONSTRUCTOR))
def test_constructor_checks_as_tf(name):
    tf_oracle.check(CONSTRUCTOR[name], errors="family")


def test_an_unknown_dense_shape_is_a_clear_error():
    # TF's eager SparseTensor keeps a -1 in dense_shape; eagertape's dense shape is
    # static (JAX compiles static shapes), so it says so at once.
    with pytest.raises(ValueError, match="unknown `dense_shape`.*no None or -1"):
        etf.SparseTensor([[0, 0]], [1.0], [2, -1])


def _softmax_unsorted(tf):
    st = tf.SparseTensor([[1, 0], [0, 2], [0, 1], [1, 2]], [1.0, 2.0, 3.0, 4.0], [2, 3])
    return tf.sparse.softmax(st).values, tf.sparse.softmax(tf.sparse.reorder(st)).values


def test_softmax_of_unsorted_indices_pairs_each_value_with_its_index():
    # TF's kernel needs canonical order: given another, it returns the values in
    # canonical order beside the input's indices (mismatched pairs). eagertape gives
    # each entry its own softmax; after tf.sparse.reorder both agree.
    want, got = tf_oracle.tf_outcome(_softmax_unsorted), tf_oracle.run(etf, _softmax_unsorted)
    tf_unsorted, tf_sorted = tf_oracle.plain(want.value)
    ours_unsorted, ours_sorted = (t.numpy() for t in got.raw)
    np.testing.assert_allclose(ours_sorted, tf_sorted, rtol=1e-6)
    e = np.exp([2.0, 3.0, 1.0, 4.0])
    np.testing.assert_allclose(ours_unsorted, [e[2] / (e[2] + e[3]), e[0] / (e[0] + e[1]),
                                               e[1] / (e[0] + e[1]), e[3] / (e[2] + e[3])],
                               rtol=1e-6)
    np.testing.assert_allclose(tf_unsorted, tf_sorted, rtol=1e-6)     # TF: sorted values


def _values_from_variable(tf):
    v = tf.Variable([1.0, 2.0, 3.0])
    w = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with tf.GradientTape() as tape:
        sp = tf.SparseTensor([[0, 1], [1, 0], [1, 2]], v, [2, 3])
        loss = tf.reduce_sum(tf.sparse.to_dense(sp) * w)
    return tape.gradient(loss, v)


def _watch_sparse(tf):
    # watching a SparseTensor watches its values
    st = tf.SparseTensor([[0, 1], [1, 0], [1, 2]], [1.0, 2.0, 3.0], [2, 3])
    d = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        tape.watch([st, d])
        loss = tf.reduce_sum(tf.sparse.softmax(st).values * tf.constant([1.0, 2.0, 3.0]))
        loss += tf.reduce_sum(tf.sparse.sparse_dense_matmul(st, d) ** 2)
    return tape.gradient(loss, [st.values, d])


def _source_is_sparse(tf):
    st = tf.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 3])
    with tf.GradientTape() as tape:
        tape.watch(st)
        loss = tf.reduce_sum(tf.sparse.to_dense(st))
    return tape.gradient(loss, [st])


def _target_is_sparse(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        st = tf.SparseTensor([[0, 1], [1, 0]], x * 2.0, [2, 3])
    return tape.gradient(st, x)


def _concat_not_differentiable(tf):
    st = tf.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 3])
    with tf.GradientTape() as tape:
        tape.watch(st.values)
        out = tf.sparse.concat(0, [st, st])
        loss = tf.reduce_sum(out.values)
    return tape.gradient(loss, st.values)


def _stopped_before_no_gradient(tf):
    # an op TF registers no gradient for, whose output is stopped: no LookupError
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        sp = tf.SparseTensor([[0, 1], [1, 0], [1, 2]], x, [2, 3])
        loss = (tf.reduce_sum(tf.stop_gradient(tf.sparse.reduce_max(sp, 1)))
                + tf.reduce_sum(tf.sparse.to_dense(sp)))
    return tape.gradient(loss, x)


@pytest.mark.parametrize("program", [_values_from_variable, _watch_sparse, _source_is_sparse,
                                     _target_is_sparse, _concat_not_differentiable,
                                     _stopped_before_no_gradient], ids=lambda f: f.__name__)
def test_tape_gradients_as_tf(program):
    tf_oracle.check(program, rtol=1e-5, atol=1e-6, errors="class")


def _in_function(tf):
    @tf.function
    def f(sp, d):
        sp = tf.sparse.reorder(sp)
        return tf.sparse.sparse_dense_matmul(tf.sparse.softmax(sp), d), sp

    a = tf.SparseTensor([[1, 3], [0, 1], [1, 0]], [1.0, 2.0, 3.0], [2, 4])
    d = tf.reshape(tf.range(8, dtype=tf.float32), [4, 2])
    out, sp = f(a, d)
    out2, _ = f(a.with_values([4.0, 5.0, 6.0]), d)
    return out, out2, sp.indices, sp.values, sp.dense_shape


def _function_gradient(tf):
    v = tf.Variable([1.0, -2.0, 0.5])

    @tf.function
    def loss_fn(d):
        sp = tf.SparseTensor([[0, 1], [1, 0], [1, 3]], v, [2, 4])
        return tf.reduce_sum(tf.sparse.sparse_dense_matmul(sp, d) ** 2)

    d = tf.reshape(tf.range(8, dtype=tf.float32), [4, 2])
    with tf.GradientTape() as tape:
        loss = loss_fn(d)
    return loss, tape.gradient(loss, v)


@pytest.mark.parametrize("program", [_in_function, _function_gradient],
                         ids=lambda f: f.__name__)
def test_sparse_tensors_in_tf_function(program):
    tf_oracle.check(program, rtol=1e-5, atol=1e-5)


def test_a_function_is_traced_per_number_of_entries():
    # JAX compiles static sizes: a new number of entries is a new trace (TF: one)
    f = etf.function(lambda sp, d: etf.sparse.sparse_dense_matmul(sp, d))
    d = etf.ones([3, 2])
    f(etf.SparseTensor([[0, 1], [1, 2]], [1.0, 2.0], [2, 3]), d)
    f(etf.SparseTensor([[0, 0], [1, 1]], [3.0, 4.0], [2, 3]), d)
    assert f.experimental_get_tracing_count() == 1
    f(etf.SparseTensor([[0, 1]], [1.0], [2, 3]), d)
    assert f.experimental_get_tracing_count() == 2


def test_an_op_whose_size_depends_on_the_indices_says_so_inside_a_tf_function():
    @etf.function
    def f(x):
        return tf_sparse_dense(etf.sparse.from_dense(x))

    def tf_sparse_dense(sp):
        return etf.sparse.to_dense(sp)

    with pytest.raises(TypeError, match="from_dense needs the value of `tensor` when a "
                                        "tf.function is traced"):
        f(etf.constant([[0.0, 1.0]]))

    @etf.function
    def g(a, b):
        return etf.sparse.add(a, b)

    a = etf.SparseTensor([[0, 1]], [1.0], [2, 2])
    with pytest.raises(TypeError, match="tf.sparse.add needs the indices of `a`"):
        g(a, a)


def test_a_sparse_tensor_reaches_jax_code_as_a_bcoo():
    import eagertape as et
    from jax.experimental import sparse as jsparse
    st = etf.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 3])
    b = et.to_jax(st)
    assert isinstance(b, jsparse.BCOO) and b.shape == (2, 3)
    np.testing.assert_array_equal(b.todense(), [[0, 1, 0], [2, 0, 0]])
    double = et.primitive(lambda m: (m * 2.0).todense())
    np.testing.assert_array_equal(double(st).numpy(), [[0, 2, 0], [4, 0, 0]])


def test_repr_and_spec():
    st = etf.SparseTensor([[0, 1]], [1.0], [2, 3])
    assert repr(st).startswith("SparseTensor(indices=") and "dense_shape=" in repr(st)
    spec = etf.SparseTensorSpec.from_value(st)
    assert spec == etf.SparseTensorSpec([2, 3], etf.float32)
    assert spec.is_compatible_with(etf.SparseTensorSpec([None, 3], etf.float32))
    assert not spec.is_compatible_with(etf.SparseTensorSpec([2, 3], etf.int32))
    assert st._type_spec == spec


def test_left_out_names_of_tf_sparse_say_why():
    for name, why in [("cross", "string"), ("mask", "IndexedSlices"),
                      ("bincount", "tf.math.bincount")]:
        with pytest.raises(AttributeError, match=f"tf.sparse.{name} is left out.*{why}"):
            getattr(etf.sparse, name)


# -- public programs ---------------------------------------------------------------

def _guide(tf):
    """TF's guide "Working with sparse tensors" (tensorflow/docs,
    site/en/guide/sparse_tensor.ipynb), its cells that run eagerly on sparse tensors
    (the tf.data, tf.train.Example and Keras cells are elsewhere or left out), each
    cell's printed value returned instead of printed."""
    out = {}
    st1 = tf.sparse.SparseTensor(indices=[[0, 3], [2, 4]], values=[10, 20],
                                 dense_shape=[3, 10])
    out["st1"] = (st1.indices, st1.values, st1.dense_shape)

    def pprint_sparse_tensor(st):
        s = "<SparseTensor shape=%s \n values={" % (st.dense_shape.numpy().tolist(),)
        for (index, value) in zip(st.indices, st.values):
            s += "\n  %s: %s" % (index.numpy().tolist(), value.numpy().tolist())
        return s + "}>"

    out["pprint_st1"] = pprint_sparse_tensor(st1)
    st2 = tf.sparse.from_dense([[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]])
    out["pprint_st2"] = pprint_sparse_tensor(st2)
    out["st3"] = tf.sparse.to_dense(st2)
    st_a = tf.sparse.SparseTensor(indices=[[0, 2], [3, 4]], values=[31, 2], dense_shape=[4, 10])
    st_b = tf.sparse.SparseTensor(indices=[[0, 2], [3, 0]], values=[56, 38],
                                  dense_shape=[4, 10])
    out["st_sum"] = pprint_sparse_tensor(tf.sparse.add(st_a, st_b))
    st_c = tf.sparse.SparseTensor(indices=([0, 1], [1, 0], [1, 1]), values=[13, 15, 17],
                                  dense_shape=(2, 2))
    mb = tf.constant([[4], [6]])
    out["product"] = tf.sparse.sparse_dense_matmul(st_c, mb)
    sparse_pattern_A = tf.sparse.SparseTensor(
        indices=[[2, 4], [3, 3], [3, 4], [4, 3], [4, 4], [5, 4]], values=[1, 1, 1, 1, 1, 1],
        dense_shape=[8, 5])
    sparse_pattern_B = tf.sparse.SparseTensor(
        indices=[[0, 2], [1, 1], [1, 3], [2, 0], [2, 4], [2, 5], [3, 5], [4, 5], [5, 0],
                 [5, 4], [5, 5], [6, 1], [6, 3], [7, 2]],
        values=[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], dense_shape=[8, 6])
    sparse_pattern_C = tf.sparse.SparseTensor(indices=[[3, 0], [4, 0]], values=[1, 1],
                                              dense_shape=[8, 6])
    sparse_patterns_list = [sparse_pattern_A, sparse_pattern_B, sparse_pattern_C]
    sparse_pattern = tf.sparse.concat(axis=1, sp_inputs=sparse_patterns_list)
    out["pattern"] = tf.sparse.to_dense(sparse_pattern)
    sparse_slice_A = tf.sparse.slice(sparse_pattern_A, start=[0, 0], size=[8, 5])
    sparse_slice_B = tf.sparse.slice(sparse_pattern_B, start=[0, 5], size=[8, 6])
    sparse_slice_C = tf.sparse.slice(sparse_pattern_C, start=[0, 10], size=[8, 6])
    out["slices"] = [tf.sparse.to_dense(s) for s in (sparse_slice_A, sparse_slice_B,
                                                      sparse_slice_C)]
    st2_plus_5 = tf.sparse.map_values(tf.add, st2, 5)
    out["map_values"] = tf.sparse.to_dense(st2_plus_5)
    st2_plus_5 = tf.sparse.SparseTensor(st2.indices, st2.values + 5, st2.dense_shape)
    out["plus_5"] = tf.sparse.to_dense(st2_plus_5)

    @tf.function
    def f(x, y):
        return tf.sparse.sparse_dense_matmul(x, y)

    a = tf.sparse.SparseTensor(indices=[[0, 3], [2, 4]], values=[15, 25], dense_shape=[3, 10])
    b = tf.sparse.to_dense(tf.sparse.transpose(a))
    out["function"] = f(a, b)
    out["reduce_max"] = tf.sparse.reduce_max(tf.sparse.from_dense([-5, 0, -3]))
    out["dense_reduce_max"] = tf.math.reduce_max([-5, 0, -3])
    return out


def test_tf_guide_working_with_sparse_tensors():
    tf_oracle.check(_guide)


def _gcn(tf, steps=15):
    """A two-layer GCN (Kipf & Welling, "Semi-Supervised Classification with Graph
    Convolutional Networks", ICLR 2017; the model of github.com/tkipf/gcn, written in
    TF 2 eager form) on a small random graph standing in for Cora: sparse bag-of-words
    features times the first weight matrix by tf.sparse.sparse_dense_matmul, the
    renormalised adjacency D^-1/2 (A + I) D^-1/2 built with tf.sparse (add, eye,
    reduce_sum and the broadcasting products), the masked softmax cross-entropy of the
    labelled nodes, weight decay on the first layer, and gradient steps by hand; a
    tf.function step and an eager one must agree with TF's."""
    rs = np.random.RandomState(0)
    n, f, h, c = 24, 30, 8, 3
    labels = rs.randint(0, c, n)
    edges = set()
    for i in range(n):
        for j in rs.choice(n, 3, replace=False):
            if i != j and (labels[i] == labels[j] or rs.rand() < 0.3):
                edges.add((min(i, j), max(i, j)))
    edges = sorted(edges)
    rows = [i for i, j in edges] + [j for i, j in edges]
    cols = [j for i, j in edges] + [i for i, j in edges]
    adj = tf.sparse.reorder(tf.SparseTensor(np.stack([rows, cols], 1).astype(np.int64),
                                            tf.ones([len(rows)]), [n, n]))
    adj = tf.sparse.add(adj, tf.sparse.eye(n))                              # A + I
    deg = tf.sparse.reduce_sum(adj, axis=1)
    d_inv_sqrt = 1.0 / tf.sqrt(deg)
    a_hat = adj * tf.reshape(d_inv_sqrt, [n, 1]) * tf.reshape(d_inv_sqrt, [1, n])
    x_dense = (rs.rand(n, f) < 0.15).astype(np.float32) * (1 + labels[:, None] % 2)
    x = tf.sparse.from_dense(x_dense / np.maximum(x_dense.sum(1, keepdims=True), 1))
    w1 = tf.Variable(rs.randn(f, h).astype(np.float32) * 0.3)
    w2 = tf.Variable(rs.randn(h, c).astype(np.float32) * 0.3)
    mask = tf.constant((np.arange(n) % 3 != 0).astype(np.float32))
    y = tf.one_hot(labels, c)

    def loss_fn():
        hidden = tf.nn.relu(tf.sparse.sparse_dense_matmul(
            a_hat, tf.sparse.sparse_dense_matmul(x, w1)))
        logits = tf.sparse.sparse_dense_matmul(a_hat, tf.matmul(hidden, w2))
        xent = tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits)
        return (tf.reduce_sum(xent * mask) / tf.reduce_sum(mask)
                + 5e-4 * tf.nn.l2_loss(w1)), logits

    def step(lr):
        with tf.GradientTape() as tape:
            loss, logits = loss_fn()
        g1, g2 = tape.gradient(loss, [w1, w2])
        w1.assign_sub(lr * g1)
        w2.assign_sub(lr * g2)
        return loss, logits

    compiled = tf.function(step)
    losses = []
    for k in range(steps):
        loss, logits = (compiled if k % 2 else step)(tf.constant(0.5))
        losses.append(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))
    return losses, w1, w2, accuracy, a_hat.indices, a_hat.values


def _string_values(tf):
    # The ragged guide's cell: SparseTensors of words (RaggedTensor.to_sparse), joined.
    x = tf.ragged.constant([["John"], ["a", "big", "dog"], ["my", "cat"]]).to_sparse()
    y = tf.ragged.constant([["fell", "asleep"], ["barked"], ["is", "fuzzy"]]).to_sparse()
    joined = tf.sparse.concat(sp_inputs=[x, y], axis=1)
    rows = tf.sparse.concat(0, [x, x])
    return [joined.indices, joined.values, joined.dense_shape, tf.sparse.to_dense(joined, ""),
            tf.sparse.to_dense(joined), rows.indices, rows.values, rows.dense_shape,
            tf.sparse.to_dense(x, "?")]


def test_concat_and_to_dense_of_string_values_as_tf():
    tf_oracle.check(_string_values)


def test_gcn_node_classification_trains_as_in_tf():
    tf_oracle.check(_gcn, rtol=2e-4, atol=2e-5)


# -- Keras (Keras 3 on JAX here, TF's Keras there): in fresh processes ----------------

KERAS_PROGRAM = """
# TF's guide "Working with sparse tensors", its tf.keras cell: a sparse Input and
# Dense; then a Dense layer called on a SparseTensor without a sparse Input, with the
# gradients of a loss w.r.t. its kernel and the sparse values, as a port meets them.
x = tf.keras.Input(shape=(4,), sparse=True)
y = tf.keras.layers.Dense(4)(x)
model = tf.keras.Model(x, y)
model.set_weights(weights_like(model))
sparse_data = tf.sparse.SparseTensor(
    indices = [(0,0),(0,1),(0,2),
               (4,3),(5,0),(5,1)],
    values = [1,1,1,1,1,1],
    dense_shape = (6,4)
)
emit("call", model(sparse_data))
# Keras's fit/evaluate/predict on JAX batch JAX's sparse arrays, not eagertape's
# SparseTensor: the port passes eagertape.to_jax(sparse_data), a BCOO.
x_in = sparse_data if sys.argv[1] == "tf" else __import__("eagertape").to_jax(sparse_data)
emit("predict", model.predict(x_in, verbose=0))
dense = tf.keras.layers.Dense(3)
dense.build((None, 4))
dense.set_weights(weights_like(dense, 1))
values = tf.constant([0.5, -1.0, 2.0, 1.5, 0.25, -0.75])
with tf.GradientTape() as tape:
    tape.watch(values)
    sp = tf.SparseTensor(sparse_data.indices, values, sparse_data.dense_shape)
    out = dense(sp)
    loss = tf.reduce_sum(out ** 2)
g_kernel, g_values = tape.gradient(loss, [dense.kernel, values])
emit("dense_out", out)
emit("g_kernel", tf.convert_to_tensor(g_kernel))     # TF's: IndexedSlices
emit("g_values", g_values)
"""


@pytest.mark.subprocess
def test_keras_dense_takes_a_sparse_tensor_as_tfs_keras_does():
    import test_keras
    test_keras._same_as_tf(textwrap.dedent(KERAS_PROGRAM))



FUSED_KERAS_PROGRAM = """
# The guide's Keras cell in fused mode: the model's output on the SparseTensor is not
# read before `predict` (a pending value reading the kernel's array), and Keras's
# jitted predict/fit steps donate the variables' arrays they are given.
x = tf.keras.Input(shape=(4,), sparse=True)
model = tf.keras.Model(x, tf.keras.layers.Dense(4)(x))
model.set_weights(weights_like(model))
model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
sparse_data = tf.sparse.SparseTensor(indices=[(0,0),(0,1),(0,2),(4,3),(5,0),(5,1)],
                                     values=[1.0, 1.0, 1.0, 1.0, 1.0, 1.0], dense_shape=(6,4))
x_in = sparse_data if sys.argv[1] == "tf" else __import__("eagertape").to_jax(sparse_data)
before = model(sparse_data)
emit("predict", model.predict(x_in, verbose=0))
after_predict = model(sparse_data)
emit("loss", model.fit(x_in, np.ones((6, 4), "float32"), batch_size=6, verbose=0).history["loss"])
emit("before", before)
emit("after_predict", after_predict)
emit("after_fit", model(sparse_data))
"""


@pytest.mark.subprocess
def test_a_pending_value_survives_keras_steps_that_donate_the_weights(_et_mode):
    if _et_mode != "fused":
        pytest.skip("a pending value is fused mode's")
    import test_keras
    program = textwrap.dedent(FUSED_KERAS_PROGRAM)
    want = test_keras._tf_run(program)
    got = test_keras._run(program, "eagertape", EAGERTAPE_EXECUTION_MODE="fused")
    assert want.keys() == got.keys()
    for k in want:
        tf_oracle.assert_same(test_keras._tree(got[k]), test_keras._tree(want[k]),
                              rtol=2e-4, atol=2e-5, where=k)
