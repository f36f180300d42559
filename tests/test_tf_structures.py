"""``tf.TensorShape``, ``tf.TensorArray``, ``tf.debugging`` and ``tf.nest``: the
same programs run through ``tensorflow`` and ``eagertape.tf``, their values,
dtypes, shapes, gradients and error classes compared (skipped where TensorFlow
is not installed)."""
import collections

import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle

tf_ = tf_oracle.require()   # TensorFlow, imported where a test reads it


def _same(program):
    """Run ``program`` in both (TF's outcome from tests/tf_oracle.py); the same
    value exactly (containers' kinds, namedtuple names, dict types and key order,
    shapes, dtypes), or errors of the same class (TF's ``tf.errors.X`` as
    ``etf.errors.X``, a builtin as itself). Returns eagertape's value or error."""
    got = tf_oracle.check(program, rtol=0, atol=0, dict_order=True, errors="class")
    return got.exc if got.raised else got.value


# -- TensorShape -------------------------------------------------------------------
SHAPE_PROGRAMS = {
    "as_list": lambda tf: tf.zeros([2, 3]).shape.as_list(),
    "rank": lambda tf: (tf.zeros([2, 3, 1]).shape.rank, tf.constant(1.0).shape.ndims),
    "index": lambda tf: (tf.zeros([2, 3]).shape[0], tf.zeros([2, 3]).shape[-1]),
    "slice": lambda tf: tf.zeros([2, 3, 4]).shape[1:],
    "slice_step": lambda tf: tf.zeros([2, 3, 4]).shape[::-2],
    "eq_tuple": lambda tf: (tf.zeros([2, 3]).shape == (2, 3), tf.zeros([2, 3]).shape == (3, 2)),
    "eq_list": lambda tf: (tf.zeros([2, 3]).shape == [2, 3], tf.zeros([2, 3]).shape != [2, 3]),
    "eq_shape": lambda tf: tf.zeros([2, 3]).shape == tf.TensorShape([2, 3]),
    "eq_other": lambda tf: (tf.zeros([2]).shape == "ab", tf.zeros([2]).shape == 2),
    "eq_unknown": lambda tf: (tf.TensorShape(None) == tf.TensorShape(None),
                              tf.TensorShape(None) == tf.TensorShape([]),
                              tf.TensorShape([None]) == [None]),
    "hash": lambda tf: hash(tf.zeros([2, 3]).shape) == hash((2, 3)),
    "variable": lambda tf: tf.Variable(tf.zeros([4, 1])).shape[1:],
    "len_iter": lambda tf: (len(tf.zeros([2, 3]).shape), [d for d in tf.zeros([2, 5]).shape]),
    "unpack": lambda tf: (lambda a, b: a * b)(*tf.zeros([2, 3]).shape),
    "num_elements": lambda tf: (tf.zeros([2, 3]).shape.num_elements(),
                                tf.TensorShape([None, 3]).num_elements(),
                                tf.TensorShape(None).num_elements(),
                                tf.constant(1).shape.num_elements()),
    "fully_defined": lambda tf: (tf.zeros([2]).shape.is_fully_defined(),
                                 tf.TensorShape([None, 3]).is_fully_defined(),
                                 tf.TensorShape(None).is_fully_defined()),
    "partial": lambda tf: (tf.TensorShape([None, 3]), tf.TensorShape([None, 3])[0]),
    "from_int": lambda tf: tf.TensorShape(3),
    "from_numpy": lambda tf: tf.TensorShape(np.array([2, 3])),
    "unknown": lambda tf: (tf.TensorShape(None), tf.TensorShape(None).rank,
                           tf.TensorShape(None)[1:3], tf.TensorShape(None)[0]),
    "unknown_len": lambda tf: len(tf.TensorShape(None)),
    "unknown_as_list": lambda tf: tf.TensorShape(None).as_list(),
    "negative_dim": lambda tf: tf.TensorShape([-1, 2]),
    "bad_dim": lambda tf: tf.TensorShape(["a"]),
    "compatible": lambda tf: (tf.TensorShape([None, 3]).is_compatible_with([4, 3]),
                              tf.TensorShape([None, 3]).is_compatible_with([4, 2]),
                              tf.TensorShape([2]).is_compatible_with([2, 1]),
                              tf.TensorShape(None).is_compatible_with([1, 2])),
    "assert_compatible": lambda tf: tf.zeros([2, 3]).shape.assert_is_compatible_with([2, 4]),
    "assert_compatible_ok": lambda tf: tf.zeros([2, 3]).shape.assert_is_compatible_with([None, 3]),
    "merge": lambda tf: (tf.TensorShape([None, 3]).merge_with([4, None]),
                         tf.TensorShape(None).merge_with([1]),
                         tf.TensorShape([1]).merge_with(tf.TensorShape(None))),
    "merge_error": lambda tf: tf.TensorShape([2, 3]).merge_with([2, 4]),
    "merge_rank_error": lambda tf: tf.TensorShape([2, 3]).merge_with([2]),
    "concatenate": lambda tf: (tf.zeros([2]).shape.concatenate([3, None]),
                               tf.zeros([2]).shape.concatenate(tf.TensorShape(None))),
    "add": lambda tf: (tf.zeros([2]).shape + [4], (1,) + tf.zeros([2]).shape,
                       tf.zeros([2]).shape + tf.zeros([5]).shape),
    "most_specific": lambda tf: tf.TensorShape([2, 1]).most_specific_compatible_shape([5, 1]),
    "with_rank": lambda tf: (tf.TensorShape(None).with_rank(2), tf.zeros([2]).shape.with_rank(1),
                             tf.zeros([2]).shape.with_rank_at_least(1),
                             tf.zeros([2]).shape.with_rank_at_most(3)),
    "with_rank_error": lambda tf: tf.zeros([2]).shape.with_rank(2),
    "with_rank_at_least_error": lambda tf: tf.zeros([2]).shape.with_rank_at_least(2),
    "assert_same_rank": lambda tf: tf.zeros([2]).shape.assert_same_rank([1, 2]),
    "assert_has_rank": lambda tf: tf.zeros([2]).shape.assert_has_rank(3),
    "assert_fully_defined": lambda tf: tf.TensorShape([None]).assert_is_fully_defined(),
    "str_repr": lambda tf: [f(s) for s in (tf.TensorShape([2, 3]), tf.TensorShape([2]),
                                           tf.TensorShape([]), tf.TensorShape([None, 3]),
                                           tf.TensorShape(None)) for f in (str, repr)],
    "in_function": lambda tf: tf.function(lambda x: tf.zeros(x.shape[1:] + [2]))(tf.ones([3, 4])),
    "zeros_of_shape": lambda tf: tf.zeros(tf.ones([2, 1]).shape),
    "reshape_to_shape": lambda tf: tf.reshape(tf.range(6), tf.ones([3, 2]).shape),
    "spec_shape": lambda tf: (tf.TensorSpec([None, 3]).shape, tf.TensorSpec([None, 3]).shape[1:]),
}


@pytest.mark.parametrize("name", sorted(SHAPE_PROGRAMS))
def test_tensor_shape_same_as_tensorflow(name):
    _same(SHAPE_PROGRAMS[name])


def test_tensor_shape_is_a_tuple_for_jax_and_numpy():
    import jax
    import jax.numpy as jnp
    import pickle
    s = etf.ones([2, 3]).shape
    assert not isinstance(s, tuple) and type(s) is etf.TensorShape     # as TF's
    assert jnp.zeros(s).shape == (2, 3) and np.zeros(s).shape == (2, 3)
    assert {s: 1}[(2, 3)] == 1
    leaves, treedef = jax.tree_util.tree_flatten((s, 1))
    assert leaves == [2, 3, 1] and type(jax.tree_util.tree_unflatten(treedef, leaves)[0]) is type(s)
    for v in (s, etf.TensorShape(None), etf.TensorShape([None, 1])):
        assert pickle.loads(pickle.dumps(v)) == v and repr(pickle.loads(pickle.dumps(v))) == repr(v)
    assert str(etf.ones([2]) * 1).endswith("shape=(2,), dtype=float32)")


# -- tf.nest -----------------------------------------------------------------------
Pair = collections.namedtuple("Pair", "b a")
Pair2 = collections.namedtuple("Pair", "b a")     # another class, the same name and fields


def _nests():
    od = collections.OrderedDict([("z", 1), ("a", [2, None])])
    dd = collections.defaultdict(list, {"b": 1, "a": (2,)})
    return {
        "dict": {"b": [1, None], "a": (2, Pair(3, 4))},
        "ordered": od, "defaultdict": dd,
        "none": None, "atom": 5, "string": "ab", "bytes": b"ab", "set": {1, 2},
        "empties": [[], (), {}, [None]],
        "namedtuple": Pair(a=[1, 2], b={"y": 3, "x": 4}),
        "range": range(3), "deque": collections.deque([1, 2]),
        "mappingproxy": __import__("types").MappingProxyType({"b": 1, "a": 2}),
        "dict_views": [{"b": 1, "a": 2}.keys(), {"b": 1, "a": 2}.items()],
        "array": [np.array([1, 2])],
    }


NEST_PROGRAMS = {
    "flatten": lambda tf: {k: tf.nest.flatten(v) for k, v in _nests().items()
                           if k not in ("array", "set")},
    "flatten_atoms": lambda tf: [len(tf.nest.flatten(v)) for v in
                                 (_nests()["array"], _nests()["set"], tf.zeros([2]).shape,
                                  tf.constant([1, 2]), tf.Variable([1.0, 2.0]))],
    "flatten_tensors": lambda tf: tf.nest.flatten({"b": tf.constant(1.0), "a": [tf.constant(2)]},
                                                  expand_composites=True),
    "is_nested": lambda tf: {k: tf.nest.is_nested(v) for k, v in _nests().items()},
    "is_nested_tensors": lambda tf: [tf.nest.is_nested(v) for v in (
        tf.zeros([2]), tf.zeros([2]).shape, tf.Variable(1.0))],
    "pack": lambda tf: {k: tf.nest.pack_sequence_as(v, list(range(100, 100 + len(tf.nest.flatten(v)))))
                        for k, v in _nests().items()
                        if k not in ("array", "set", "range", "deque", "mappingproxy", "dict_views")},
    "pack_types": lambda tf: [type(tf.nest.pack_sequence_as(v, tf.nest.flatten(v))).__name__
                              for v in _nests().values()],
    "pack_atom": lambda tf: (tf.nest.pack_sequence_as(None, [5]), tf.nest.pack_sequence_as([], [])),
    "pack_too_many": lambda tf: tf.nest.pack_sequence_as([1, [2]], [1, 2, 3]),
    "pack_atom_too_many": lambda tf: tf.nest.pack_sequence_as(5, [6, 7]),
    "unsortable_keys": lambda tf: tf.nest.flatten({"b": 1, 3: 2}),
    "map": lambda tf: tf.nest.map_structure(lambda a, b: (a, b), _nests()["dict"],
                                            {"a": (5, Pair(6, 7)), "b": [8, 9]}),
    "map_none": lambda tf: tf.nest.map_structure(lambda x: x is None, [1, None, {"a": None}]),
    "map_tensors": lambda tf: tf.nest.map_structure(lambda x: x * 2, {"w": tf.constant([1.0, 2.0]),
                                                                      "b": (tf.constant(3),)}),
    "map_check_types_off": lambda tf: tf.nest.map_structure(lambda a, b: a + b, [1, (2,)], (3, [4]),
                                                            check_types=False),
    "map_check_types_on": lambda tf: tf.nest.map_structure(lambda a, b: a + b, [1], (3,)),
    "map_lengths": lambda tf: tf.nest.map_structure(lambda a, b: a, [1, 2], [1]),
    "map_no_structure": lambda tf: tf.nest.map_structure(lambda x: x),
    "map_bad_kwarg": lambda tf: tf.nest.map_structure(lambda x: x, [1], bad=1),
    "map_defaultdict": lambda tf: tf.nest.map_structure(lambda x: x, _nests()["defaultdict"]),
}

SAME_STRUCTURE = [
    ([1, 2], (1, 2), True), ([1, 2], (1, 2), False), ([1, [2]], [1, 2], True),
    ({"a": 1}, {"b": 1}, True), (Pair(1, 2), (1, 2), True), (Pair(1, 2), Pair2(3, 4), True),
    ([1], [1, 2], True), (None, 1, True), (None, [], True), ({"a": 1}, {"a": [1]}, True),
    ({"a": 1}, collections.OrderedDict(a=2), True), ([[1], {"x": (2,)}], [["a"], {"x": ("b",)}], True),
]


@pytest.mark.parametrize("name", sorted(NEST_PROGRAMS))
def test_nest_same_as_tensorflow(name):
    _same(NEST_PROGRAMS[name])


@pytest.mark.parametrize("case", range(len(SAME_STRUCTURE)))
def test_nest_assert_same_structure_same_as_tensorflow(case):
    a, b, check = SAME_STRUCTURE[case]
    err = _same(lambda tf: tf.nest.assert_same_structure(a, b, check_types=check))
    if isinstance(err, Exception):
        assert "don't have the same nested structure" in str(err)


def test_nest_joined_string_paths_as_tensorflows():
    from tensorflow.python.util import nest as tf_nest
    for v in _nests().values():
        assert etf.nest.flatten_with_joined_string_paths(v) == \
            tf_nest.flatten_with_joined_string_paths(v)
    s = {"b": [1, Pair(2, 3)], "a": {"c": 4}}
    assert etf.nest.flatten_with_joined_string_paths(s, separator=".") == \
        tf_nest.flatten_with_joined_string_paths(s, separator=".")


# -- tf.debugging ------------------------------------------------------------------
X = [1.0, 2.0, 3.0]
DEBUG_PROGRAMS = {
    "equal_ok": lambda tf: tf.debugging.assert_equal(tf.constant(X), tf.constant(X)),
    "equal_fails": lambda tf: tf.debugging.assert_equal(tf.constant(X), tf.constant([1.0, 5.0, 3.0])),
    "equal_broadcast": lambda tf: tf.debugging.assert_equal(tf.zeros([2, 3]), tf.zeros([3])),
    "equal_shapes": lambda tf: tf.debugging.assert_equal(tf.constant(X), tf.constant([1.0, 2.0])),
    "equal_dtypes": lambda tf: tf.debugging.assert_equal(tf.constant(X), tf.constant([1, 2, 3])),
    "equal_python": lambda tf: tf.debugging.assert_equal(1, 2),
    "none_equal": lambda tf: tf.debugging.assert_none_equal(tf.constant(X), tf.constant([1.0, 5.0, 3.0])),
    "none_equal_ok": lambda tf: tf.debugging.assert_none_equal(tf.constant(X), tf.constant(X) + 1),
    "less": lambda tf: tf.debugging.assert_less(tf.constant(X), tf.constant([1.0, 5.0, 3.0])),
    "less_ok": lambda tf: tf.debugging.assert_less(tf.constant(X), 4.0),
    "less_equal": lambda tf: tf.debugging.assert_less_equal(tf.constant(X), tf.constant([1.0, 5.0, 3.0])),
    "greater": lambda tf: tf.debugging.assert_greater(tf.constant(X), 1.0),
    "greater_equal": lambda tf: tf.debugging.assert_greater_equal(tf.constant([1, 2]), 1),
    "greater_int_float": lambda tf: tf.debugging.assert_greater(tf.constant(X), 0),
    "empty": lambda tf: tf.debugging.assert_less(tf.zeros([0]), tf.zeros([0])),
    "positive": lambda tf: tf.debugging.assert_positive(tf.constant(X) - 1),
    "positive_ok": lambda tf: tf.debugging.assert_positive(tf.constant(X)),
    "negative": lambda tf: tf.debugging.assert_negative(tf.constant([-1, 0])),
    "non_negative": lambda tf: tf.debugging.assert_non_negative(tf.constant([-1, 2])),
    "non_positive": lambda tf: (tf.debugging.assert_non_positive(tf.constant([0, -2])),
                                tf.debugging.assert_non_positive(tf.constant([0, 2]))),
    "near_ok": lambda tf: tf.debugging.assert_near(tf.constant(X), tf.constant(X) + 1e-7),
    "near_fails": lambda tf: tf.debugging.assert_near(tf.constant(X), tf.constant(X) + 1e-4),
    "near_tolerance": lambda tf: tf.debugging.assert_near(tf.constant(X), tf.constant(X) + 1e-4, atol=1e-3),
    "near_rtol": lambda tf: tf.debugging.assert_near(tf.constant([100.0]), tf.constant([101.0]), rtol=0.02),
    "rank": lambda tf: tf.debugging.assert_rank(tf.zeros([2, 3]), 2),
    "rank_fails": lambda tf: tf.debugging.assert_rank(tf.constant(X), 2, message="rk"),
    "rank_at_least": lambda tf: tf.debugging.assert_rank_at_least(tf.constant(X), 2),
    "rank_in": lambda tf: (tf.debugging.assert_rank_in(tf.constant(X), [1, 2]),
                           tf.debugging.assert_rank_in(tf.constant(X), [0, 2])),
    "type": lambda tf: tf.debugging.assert_type(tf.constant(X), tf.int32),
    "type_ok": lambda tf: tf.debugging.assert_type(tf.constant(X), tf.float32),
    "scalar": lambda tf: tf.debugging.assert_scalar(tf.constant(X)),
    "scalar_ok": lambda tf: tf.debugging.assert_scalar(tf.constant(2.0)),
    "integer": lambda tf: tf.debugging.assert_integer(tf.constant(X)),
    "integer_ok": lambda tf: tf.debugging.assert_integer(tf.constant([1], dtype=tf.int64)),
    "proper_iterable": lambda tf: [tf.debugging.assert_proper_iterable(v) for v in ([1], (2,), {3})],
    "proper_iterable_str": lambda tf: tf.debugging.assert_proper_iterable("ab"),
    "proper_iterable_tensor": lambda tf: tf.debugging.assert_proper_iterable(tf.constant(X)),
    "proper_iterable_int": lambda tf: tf.debugging.assert_proper_iterable(3),
    "check_numerics": lambda tf: tf.debugging.check_numerics(tf.constant(X), "fine"),
    "check_numerics_inf": lambda tf: tf.debugging.check_numerics(tf.constant(X) / 0, "inf here"),
    "check_numerics_nan": lambda tf: tf.debugging.check_numerics(tf.constant([0.0]) / 0, "nan"),
    "all_finite": lambda tf: tf.debugging.assert_all_finite(tf.constant([np.inf]), "m"),
    "all_finite_ok": lambda tf: tf.debugging.assert_all_finite(tf.constant(X), "m"),
    "Assert": lambda tf: tf.debugging.Assert(False, [tf.constant(X), "text"]),
    "Assert_tensor": lambda tf: tf.debugging.Assert(tf.reduce_all(tf.constant(X) > 2), [tf.constant(X)]),
    "Assert_ok": lambda tf: tf.debugging.Assert(tf.constant(True), [tf.constant(X)]),
    "shapes_ok": lambda tf: tf.debugging.assert_shapes([(tf.constant(X), ("N",)),
                                                        (tf.zeros([3, 2]), ("N", 2))]),
    "shapes_symbol": lambda tf: tf.debugging.assert_shapes([(tf.constant(X), ("N",)),
                                                            (tf.zeros([2, 3]), ("N", 3))]),
    "shapes_int": lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 3]), (2, 4))]),
    "shapes_rank": lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N",))]),
    "shapes_any": lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 3]), (".", 3)),
                                                         (tf.zeros([4, 5, 3]), ("*", 3))]),
    "is_numeric": lambda tf: [tf.debugging.is_numeric_tensor(v) for v in (
        tf.constant(X), tf.constant([True]), tf.Variable(1), 1.0, np.ones(2))],
    "same_float_dtype": lambda tf: tf.debugging.assert_same_float_dtype(
        [tf.constant(X), tf.zeros([2])]).name,
    "same_float_dtype_mixed": lambda tf: tf.debugging.assert_same_float_dtype(
        [tf.constant(X), tf.zeros([2], tf.float64)]),
    "top_level": lambda tf: (tf.assert_equal(1, 1), tf.assert_less(1, 2), tf.assert_greater(2, 1),
                            tf.assert_rank(tf.zeros([1]), 1), tf.Assert(True, ["x"])),
    "top_level_fails": lambda tf: tf.assert_greater(1, 2),
}


@pytest.mark.parametrize("name", sorted(DEBUG_PROGRAMS))
def test_debugging_same_as_tensorflow(name):
    _same(DEBUG_PROGRAMS[name])


def test_debugging_messages_hold_the_message_and_values():
    cases = [
        (lambda tf: tf.debugging.assert_equal(tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 5.0, 3.0]),
                                              message="step 7"), None),
        (lambda tf: tf.debugging.assert_less(tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 5.0, 3.0]),
                                             summarize=1), None),
        (lambda tf: tf.debugging.assert_positive(tf.constant([0, 1, 2, 3, 4])), None),
        (lambda tf: tf.debugging.assert_rank(tf.zeros([3]), 2, message="rk"), None),
        (lambda tf: tf.debugging.check_numerics(tf.constant([1.0, np.nan, np.inf]), "both"), None),
        (lambda tf: tf.debugging.assert_scalar(tf.zeros([3])), None),
    ]
    for program, _ in cases:  # TF's eager message is in eagertape's
        want, got = tf_oracle.tf_outcome(program), tf_oracle.run(etf, program)
        assert want.raised and got.raised
        w = want.error.message
        w = w[w.index("}}") + 2:].split(" [Op:")[0].strip() if "{{function_node" in w else w
        assert w in str(got.exc) or str(got.exc) == w, (str(got.exc), w)
    with pytest.raises(etf.errors.InvalidArgumentError, match=r"msg!\.  \nx and y not equal"):
        etf.debugging.assert_near(etf.constant([1.0]), etf.constant([2.0]), message="msg!")
    with pytest.raises(etf.errors.InvalidArgumentError, match="Summarized data: 1.0, 2.0\nb'text'"):
        etf.debugging.Assert(False, [etf.constant([1.0, 2.0]), "text"])


def test_debugging_inside_tf_function():
    f_shape = etf.function(lambda x: (etf.debugging.assert_rank(x, 2), x * 2)[1])
    with pytest.raises(ValueError, match="must have rank 2"):
        f_shape(etf.zeros([3]))

    @etf.function
    def positive_sqrt(x):
        etf.debugging.assert_positive(x, message="x must be positive")
        return etf.sqrt(etf.debugging.check_numerics(x, "x"))
    np.testing.assert_allclose(positive_sqrt(etf.constant([4.0, 9.0])).numpy(), [2.0, 3.0])
    # When it runs, TF's error class (the callback's own error, not JAX's runtime error).
    with pytest.raises(etf.errors.InvalidArgumentError, match="tf.debugging assertion failed"):
        np.asarray(positive_sqrt(etf.constant([4.0, -9.0])))
    with pytest.raises(etf.errors.InvalidArgumentError, match="x : Tensor had NaN values"):
        np.asarray(positive_sqrt(etf.constant([np.nan, 1.0])))


def test_check_numerics_passes_the_gradient_as_tensorflow():
    def run(tf):
        x = tf.constant([1.0, 2.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.debugging.check_numerics(x * x, "y") * 3.0)
        return tape.gradient(y, x).numpy()
    tf_oracle.check(run, rtol=1e-7, atol=0)


# -- TensorArray ---------------------------------------------------------------------
def _ta(tf, **kw):
    return tf.TensorArray(tf.float32, **({"size": 3} | kw))


TA_PROGRAMS = {
    "write_stack": lambda tf: _ta(tf).write(0, 1.0).write(2, tf.constant(3.0)).stack(),
    "write_unassigned": lambda tf: (lambda ta: (ta.write(1, 5.0), ta.stack())[1])(_ta(tf)),
    "read": lambda tf: _ta(tf).write(1, [1.0, 2.0]).read(1),
    "read_unwritten": lambda tf: _ta(tf).write(1, [1.0, 2.0]).read(0),
    "read_twice": lambda tf: (lambda ta: (ta.read(1), ta.read(1)))(_ta(tf).write(1, 2.0)),
    "read_twice_kept": lambda tf: (lambda ta: (ta.read(1), ta.read(1)))(
        _ta(tf, clear_after_read=False).write(1, 2.0)),
    "read_out_of_range": lambda tf: _ta(tf).read(5),
    "read_negative": lambda tf: _ta(tf).read(-1),
    "write_out_of_range": lambda tf: _ta(tf).write(3, 1.0),
    "write_negative": lambda tf: _ta(tf).write(-1, 1.0),
    "write_dtype": lambda tf: _ta(tf).write(0, tf.constant(1)),
    "write_python_int": lambda tf: _ta(tf).write(0, 1).stack(),
    "write_shape": lambda tf: _ta(tf).write(0, [1.0, 2.0]).write(1, [1.0, 2.0, 3.0]),
    "element_shape_given": lambda tf: _ta(tf, element_shape=[3]).write(0, [1.0, 2.0]),
    "element_shape": lambda tf: (_ta(tf).element_shape, _ta(tf).write(0, [1.0, 2.0]).element_shape,
                                 _ta(tf, element_shape=[None, 2]).element_shape),
    "dynamic_size": lambda tf: (lambda ta: (ta.stack(), ta.size()))(
        _ta(tf, size=0, dynamic_size=True).write(3, 1.0)),
    "size": lambda tf: _ta(tf).size(),
    "empty_stack": lambda tf: (_ta(tf, size=0).stack(), _ta(tf, size=0, element_shape=[2]).stack()),
    "unstack": lambda tf: _ta(tf).unstack([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).stack(),
    "unstack_too_many": lambda tf: _ta(tf, size=2).unstack([1.0, 2.0, 3.0]),
    "unstack_read": lambda tf: _ta(tf).unstack([1.0, 2.0, 3.0]).read(2),
    "gather": lambda tf: _ta(tf).unstack([1.0, 2.0, 3.0]).gather([2, 0]),
    "gather_tensor": lambda tf: _ta(tf).unstack([1.0, 2.0, 3.0]).gather(tf.constant([1, 1])),
    "scatter": lambda tf: _ta(tf, size=2).scatter([1, 0], [[1.0, 2.0], [3.0, 4.0]]).stack(),
    "concat": lambda tf: _ta(tf, size=2, infer_shape=False).write(0, [1.0]).write(1, [2.0, 3.0]).concat(),
    "concat_shapes": lambda tf: _ta(tf, size=2).write(0, [1.0]).write(1, [2.0, 3.0]).concat(),
    "concat_scalars": lambda tf: _ta(tf).unstack([1.0, 2.0, 3.0]).concat(),
    "split": lambda tf: (lambda ta: (ta.read(1), ta.concat()))(
        _ta(tf, size=2, clear_after_read=False).split([1.0, 2.0, 3.0], [1, 2])),
    "split_sizes": lambda tf: _ta(tf, size=2).split([1.0, 2.0, 3.0], [1, 1]),
    "split_count": lambda tf: _ta(tf, size=2).split([1.0, 2.0, 3.0], [1, 1, 1]),
    "identity": lambda tf: _ta(tf).write(0, 2.0).identity().stack(),
    "dtype": lambda tf: ((lambda d: np.dtype(getattr(d, "as_numpy_dtype", d)).name)(
                            tf.TensorArray(tf.int32, size=1).dtype),
                         tf.TensorArray(tf.int32, size=1).write(0, 3).stack()),
    "no_size": lambda tf: tf.TensorArray(tf.float32),
    "python_loop": lambda tf: (lambda ta: [ta := ta.write(i, float(i) ** 2) for i in range(3)][-1].stack())(_ta(tf)),
    "in_function": lambda tf: tf.function(lambda x: (lambda ta: [ta := ta.write(i, x * i) for i in range(3)][-1].stack())(
        tf.TensorArray(tf.float32, size=3)))(tf.constant([1.0, 2.0])),
    "eager_while_loop": lambda tf: tf.while_loop(
        lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, tf.cast(i, tf.float32) * 2.0)),
        (0, _ta(tf)))[1].stack(),
    "traced_while_loop": lambda tf: tf.function(lambda x: tf.while_loop(
        lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, x * tf.cast(i, tf.float32))),
        (tf.size(x) * 0 + tf.cast(tf.reduce_sum(x) * 0, tf.int32),
         tf.TensorArray(tf.float32, size=3, element_shape=[2])))[1].stack())(tf.constant([1.0, 2.0])),
}


@pytest.mark.parametrize("name", sorted(TA_PROGRAMS))
def test_tensor_array_same_as_tensorflow(name):
    _same(TA_PROGRAMS[name])


@pytest.mark.parametrize("how", ["stack", "read", "gather", "concat", "unstack", "scatter",
                                 "traced_while_loop"])
def test_tensor_array_gradients_same_as_tensorflow(how):
    def run(tf):
        x = tf.constant([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False)
            if how == "unstack":
                ta = ta.unstack(x * x)
            elif how == "scatter":
                ta = ta.scatter([2, 0, 1], tf.reshape(x * x, [3, 1]))
            elif how == "traced_while_loop":
                f = tf.function(lambda x: tf.while_loop(
                    lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, x[i] * x[i])),
                    (tf.constant(0), tf.TensorArray(tf.float32, size=3, element_shape=[])),
                    maximum_iterations=3)[1].stack())
                return tape, tape.gradient(tf.reduce_sum(f(x) * [1.0, 2.0, 3.0]), x).numpy()
            else:
                for i in range(3):
                    ta = ta.write(i, tf.reshape(x[i] * x[i], [1]) if how == "concat" else x[i] * x[i])
            if how == "read":
                out = ta.read(0) + 2.0 * ta.read(2)
            elif how == "gather":
                out = ta.gather([2, 2, 1])
            elif how == "concat":
                out = ta.concat()
            else:
                out = ta.stack()
            y = tf.reduce_sum(out * tf.cast(tf.range(1, tf.size(out) + 1), tf.float32))
        return tape, tape.gradient(y, x).numpy()
    tf_oracle.check(lambda tf: run(tf)[1], rtol=1e-6, atol=0)


def test_tensor_array_traced_loop_limits_are_clear_errors():
    def loop(ta):
        return etf.function(lambda x: etf.while_loop(
            lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, x)),
            (etf.cast(etf.reduce_sum(x), etf.int32) * 0, ta))[1].stack())(etf.constant(1.0))
    with pytest.raises(NotImplementedError, match="element_shape="):
        loop(etf.TensorArray(etf.float32, size=3))
    with pytest.raises(NotImplementedError, match="dynamic_size=True"):
        loop(etf.TensorArray(etf.float32, size=3, dynamic_size=True, element_shape=[]))
    np.testing.assert_allclose(loop(etf.TensorArray(etf.float32, size=3, element_shape=[])).numpy(),
                               [1.0, 1.0, 1.0])


def test_tensor_shape_plus_a_non_shape_is_tuple_concatenation():
    # Reshape targets are built so (``x.shape[:k] + (-1,)``); TF's shape would raise.
    s = etf.zeros([2, 3, 4]).shape
    assert s[:1] + (-1,) == (2, -1) and type(s[:1] + (-1,)) is tuple
    assert (-1,) + s[1:] == (-1, 3, 4)
    assert etf.reshape(etf.zeros([2, 3, 4]), s[:1] + (-1,)).shape == [2, 12]
