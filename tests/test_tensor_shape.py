"""``tf.TensorShape`` against TensorFlow's, over a table of shapes (known, partially
known, unknown rank): its text (str, repr, ``%``), truth, equality, hashing,
iteration, indexing and slicing, the combining methods over every pair of shapes,
pickling, and its use as a shape argument (NumPy, JAX, the facade, Keras).

TensorShape is TF's own class here, not a tuple (``"%s" % shape`` formats it,
``bool(TensorShape([]))`` is True); the programs run through both libraries by
tests/tf_oracle.py and each result is compared exactly, errors by class and
message."""
import copy
import json
import os
import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import eagertape.tf as etf
import program_server
import tf_oracle

tf_oracle.require()

SHAPES = [[2, 3], [], [5], [0, 7], [None, 3], [None], [2, None, 4], [None, None], None]


def _try(f):
    """``f()``, or the error it raised as (class name, message)."""
    try:
        return f()
    except Exception as e:  # noqa: BLE001  (the outcome is compared, whatever it is)
        return ("raised", type(e).__name__, str(e))


def _each(tf, f):
    return [_try(lambda: f(tf.TensorShape(s))) for s in SHAPES]


def _pairs(tf, f):
    return [[_try(lambda: f(tf.TensorShape(a), tf.TensorShape(b))) for b in SHAPES]
            for a in SHAPES]


def _in_function(tf):
    seen = []

    def f(x):
        # While traced: the shape as the program sees it.
        seen.append(("%s" % x.shape, repr(x.shape), bool(x.shape[:0]), x.shape == [3, 4]))
        return tf.zeros(x.shape[1:])
    return tf.function(f)(tf.ones([3, 4])), seen


ONE = {
    "str": lambda s: str(s),
    "repr": lambda s: repr(s),
    "percent": lambda s: "shape %s" % s,
    "percent_r": lambda s: "shape %r" % (s,),
    "format": lambda s: "{} {!r}".format(s, s),
    "fstring": lambda s: f"{s}",
    "bool": lambda s: bool(s),
    "not": lambda s: not s,
    "len": lambda s: len(s),
    "list": lambda s: list(s),
    "unpack": lambda s: [*s],
    "contains": lambda s: (3 in s, None in s),
    "as_list": lambda s: s.as_list(),
    "rank": lambda s: (s.rank, s.ndims),
    "dims": lambda s: None if s.dims is None else [(d.value, repr(d)) for d in s.dims],
    "index": lambda s: (s[0], s[-1]),
    "index_out": lambda s: s[7],
    "slice": lambda s: (s[1:], s[:1], s[1:3], s[:-1]),
    "slice_step": lambda s: s[::2],
    "slice_neg": lambda s: s[-2:],
    "num_elements": lambda s: s.num_elements(),
    "fully_defined": lambda s: s.is_fully_defined(),
    "assert_fully_defined": lambda s: s.assert_is_fully_defined(),
    "is_tuple": lambda s: (isinstance(s, tuple), isinstance(s, list)),
    "hash": lambda s: hash(s) == hash(None if s.rank is None else tuple(s.as_list())),
    "eq_self": lambda s: (s == s, s != s),
    "eq_list": lambda s: (s == [2, 3], s == [None, 3], s == [], s != [2, 3]),
    "eq_tuple": lambda s: (s == (2, 3), (2, 3) == s, s == (), () == s, s == (None, 3)),
    "eq_none": lambda s: (s == None, s != None),  # noqa: E711  (TF's shape equals None)
    "eq_int": lambda s: (s == 5, s == 0),
    "eq_str": lambda s: (s == "ab", s != "ab"),
    "dict_key": lambda s: {(2, 3): "a", (): "b", (5,): "c"}.get(s),
    "pickle": lambda s: (pickle.loads(pickle.dumps(s)) == s,
                         repr(pickle.loads(pickle.dumps(s)))),
    "copy": lambda s: (repr(copy.copy(s)), repr(copy.deepcopy(s)), copy.deepcopy(s) == s),
    "concatenate": lambda s: (s.concatenate([4]), s.concatenate(None), s.concatenate([])),
    "add": lambda s: (s + [4], [1] + s, s + (None,), (1,) + s),
    "with_rank": lambda s: s.with_rank(2),
    "with_rank_at_least": lambda s: s.with_rank_at_least(1),
    "with_rank_at_most": lambda s: s.with_rank_at_most(1),
    "assert_has_rank": lambda s: s.assert_has_rank(1),
    "numpy_zeros": lambda s: np.zeros(s).shape,
    "numpy_array": lambda s: np.asarray(s).tolist(),
}

TWO = {
    "merge_with": lambda a, b: a.merge_with(b),
    "is_compatible_with": lambda a, b: a.is_compatible_with(b),
    "assert_is_compatible_with": lambda a, b: a.assert_is_compatible_with(b),
    "most_specific_compatible_shape": lambda a, b: a.most_specific_compatible_shape(b),
    "is_subtype_of": lambda a, b: a.is_subtype_of(b),
    "most_specific_common_supertype": lambda a, b: a.most_specific_common_supertype([b]),
    "concatenate": lambda a, b: a.concatenate(b),
    "eq": lambda a, b: (a == b, a != b),
    "assert_same_rank": lambda a, b: a.assert_same_rank(b),
}

BUILD = {
    "from_tuple": lambda tf: tf.TensorShape((2, 3)),
    "from_int": lambda tf: tf.TensorShape(4),
    "from_numpy": lambda tf: tf.TensorShape(np.array([2, 3])),
    "from_numpy_ints": lambda tf: tf.TensorShape([np.int64(2), np.int32(3)]),
    "from_range": lambda tf: tf.TensorShape(range(3)),
    "from_generator": lambda tf: tf.TensorShape(d for d in [1, None]),
    "from_shape": lambda tf: tf.TensorShape(tf.zeros([2, 1]).shape),
    "from_dimensions": lambda tf: tf.TensorShape([tf.compat.v1.Dimension(2),
                                                  tf.compat.v1.Dimension(None)]),
    "negative": lambda tf: tf.TensorShape([2, -1]),
    "float": lambda tf: tf.TensorShape([2.0]),
    "string": lambda tf: tf.TensorShape(["a"]),
    "string_iterable": lambda tf: tf.TensorShape(x for x in ["a"]),
    "no_argument": lambda tf: tf.TensorShape(),
    "tensor_shape": lambda tf: tf.zeros([2, 3, 1]).shape,
    "scalar_shape": lambda tf: (tf.constant(1.0).shape, bool(tf.constant(1.0).shape)),
    "variable_shape": lambda tf: tf.Variable([[1.0, 2.0]]).shape,
    "unknown_rank": lambda tf: tf.TensorShape(None),
    "nest_leaf": lambda tf: tf.nest.flatten([tf.TensorShape([2, 3]), tf.TensorShape(None)]),
    "nest_map": lambda tf: tf.nest.map_structure(repr, {"a": tf.TensorShape([1])}),
    "as_tensor": lambda tf: tf.constant(tf.TensorShape([2, 3])),
    "as_tensor_partial": lambda tf: tf.convert_to_tensor(tf.TensorShape([None, 3])),
    "as_tensor_unknown": lambda tf: tf.convert_to_tensor(tf.TensorShape(None)),
    "zeros": lambda tf: tf.zeros(tf.TensorShape([2, 1])),
    "ones_of_shape": lambda tf: tf.ones(tf.zeros([3, 2]).shape),
    "reshape": lambda tf: tf.reshape(tf.range(6), tf.TensorShape([3, 2])),
    "fill": lambda tf: tf.fill(tf.zeros([2]).shape, 7),
    "random_shape": lambda tf: tf.random.uniform(tf.zeros([4, 1]).shape).shape,
    "spec": lambda tf: (tf.TensorSpec(tf.TensorShape([None, 2])).shape,
                        repr(tf.TensorSpec(tf.TensorShape([None, 2])))),
    "set_shape": lambda tf: tf.zeros([2, 3]).set_shape(tf.TensorShape([None, 3])),
    "in_function": lambda tf: _in_function(tf),
}


@pytest.mark.parametrize("name", sorted(ONE))
def test_one_shape_as_tensorflow(name):
    tf_oracle.check(_each, ONE[name], rtol=0, atol=0, dict_order=True, errors="class")


@pytest.mark.parametrize("name", sorted(TWO))
def test_two_shapes_as_tensorflow(name):
    tf_oracle.check(_pairs, TWO[name], rtol=0, atol=0, dict_order=True, errors="class")


@pytest.mark.parametrize("name", sorted(BUILD))
def test_made_and_used_as_tensorflow(name):
    tf_oracle.check(BUILD[name], rtol=0, atol=0, dict_order=True, errors="class")


def test_the_errors_messages_are_tensorflows():
    # The tables' errors are compared by class and message in their lists above;
    # here the ones raised at the top (eagertape's message names the argument).
    for name in ("negative", "as_tensor_partial", "string"):
        want = tf_oracle.tf_outcome(BUILD[name])
        got = tf_oracle.run(etf, BUILD[name])
        assert want.raised and got.raised and want.error.name == got.error.name
        assert want.error.message.split(": ", 1)[-1] in got.error.message, (want, got)


def test_a_shape_is_a_shape_argument_for_jax_and_numpy():
    s = etf.zeros([2, 3]).shape
    assert jnp.zeros(s).shape == (2, 3) and jnp.ones(s[1:]).shape == (3,)
    assert jnp.reshape(jnp.arange(6), s).shape == (2, 3)
    assert jnp.arange(6).reshape(s).shape == (2, 3)
    assert jnp.broadcast_to(1.0, s).shape == (2, 3)
    assert jax.ShapeDtypeStruct(s, jnp.float32).shape == (2, 3)
    assert jax.random.normal(jax.random.PRNGKey(0), s).shape == (2, 3)
    assert jax.lax.broadcast_in_dim(1.0, s, ()).shape == (2, 3)
    assert np.empty(s).shape == (2, 3) and np.prod(s) == 6
    assert jax.jit(lambda x: x.reshape(s[::-1]))(jnp.arange(6)).shape == (3, 2)
    # The facade's own: a Tensor's reshape method and shape arithmetic.
    assert etf.zeros([6]).reshape(s).shape == [2, 3]
    assert etf.reshape(etf.zeros([2, 3, 4]), s[:1] + (-1,)).shape == [2, 12]


def test_a_shape_flattens_as_its_dimensions_in_jax_pytrees():
    leaves, tree = jax.tree_util.tree_flatten((etf.TensorShape([None, 3]), 1,
                                               etf.TensorShape(None)))
    assert leaves == [3, 1]
    back = jax.tree_util.tree_unflatten(tree, leaves)
    assert repr(back[0]) == "TensorShape([None, 3])" and repr(back[2]) == "TensorShape(None)"


def test_plus_a_tuple_that_is_no_shape_is_the_tuples_concatenation():
    # Kept leniency (TF raises): reshape targets are built as x.shape[:k] + (-1,).
    s = etf.zeros([2, 3, 4]).shape
    assert s[:1] + (-1,) == (2, -1) and type(s[:1] + (-1,)) is tuple
    assert (-1,) + s[1:] == (-1, 3, 4) and type((-1,) + s[1:]) is tuple
    with pytest.raises(ValueError, match="must be >= 0"):
        s + [-1]
    with pytest.raises(ValueError, match="must be >= 0"):
        etf.TensorShape(None) + (-1,)


KERAS_PROGRAM = """
import json, sys
import numpy as np
if sys.argv[1] == "tf":
    import tensorflow as tf
else:
    import eagertape.tf as tf
keras = tf.keras
x = tf.zeros([4, 3])
inp = keras.Input(shape=x.shape[1:])
layer = keras.layers.Dense(2)
layer.build(tf.TensorShape([None, 3]))
out = {
    "input": list(inp.shape),
    "kernel": [list(layer.kernel.shape), "%s" % layer.kernel.shape, bool(layer.bias.shape[1:]),
               layer.kernel.shape == (3, 2), layer.kernel.shape.as_list()],
    "zeros": list(keras.ops.zeros(x.shape).shape),
    "reshape": list(keras.layers.Reshape(x.shape[::-1])(tf.zeros([1, 4, 3])).shape),
    "dense": list(keras.layers.Dense(5)(tf.zeros(tf.TensorShape([2, 3]))).shape),
}
print("@@" + json.dumps(out))
"""


def _keras_run(which):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("KERAS_BACKEND", None)
    r = program_server.run(KERAS_PROGRAM, [which], preload="import numpy", env=env,
                           timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1][2:])


def test_a_shape_is_a_keras_shape_argument_as_in_tensorflow():
    want = tf_oracle.cached("tensor-shape-keras", (KERAS_PROGRAM, _keras_run),
                            lambda: _keras_run("tf"))
    got = _keras_run("eagertape")
    assert got == want
    assert got["kernel"][1] == "(3, 2)" and got["kernel"][2] is True
