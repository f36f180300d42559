"""``tf.function``'s ``pretty_printed_concrete_signatures``: each parameter bound
as TF binds it (defaults filled in, ``*args`` as ``args_0``..., ``**kwargs`` by
key) and shown as TF shows it: a list, tuple or namedtuple argument item by item
(``List[Literal[1], Literal[-1]]``), the outputs' structure likewise. Compared
with TensorFlow's text by tests/tf_oracle.py (census intro_to_graphs)."""
import collections

import pytest

import tf_oracle

tf_oracle.require()

Point = collections.namedtuple("Point", "a b")


def _signatures(tf, fn, calls):
    f = tf.function(fn)
    for args, kwargs in calls:
        f(*args, **kwargs)
    return f.pretty_printed_concrete_signatures()


def _relu(tf):
    # intro_to_graphs, cell 26-30.
    def my_relu(x):
        return tf.maximum(0.0, x)
    return _signatures(tf, my_relu, [((tf.constant(5.5),), {}), (([1, -1],), {}),
                                     ((tf.constant([3.0, -3.0]),), {})])


PROGRAMS = {
    "intro_to_graphs": _relu,
    "list": lambda tf: _signatures(tf, lambda x: x, [(([1, -1],), {})]),
    "tuple_of_tensor_and_int": lambda tf: _signatures(
        tf, lambda x: x, [(((tf.constant(1.0), 2),), {})]),
    "namedtuple_nested": lambda tf: _signatures(
        tf, lambda p: p, [((Point(tf.constant(1), [tf.constant(2.0), None]),), {})]),
    "empty_containers": lambda tf: _signatures(
        tf, lambda x, y, z: 1.0, [(((), [], {}), {})]),
    "default_filled_in": lambda tf: _signatures(
        tf, _with_default, [((tf.constant([1.0, 2.0]),), {})]),
    "by_keyword": lambda tf: _signatures(
        tf, _with_default, [((), {"scale": 3, "x": tf.constant(1.0)})]),
    "varargs_and_kwargs": lambda tf: _signatures(
        tf, _varargs, [((tf.constant(1.0), (None, 1), 3, tf.constant(2)),
                        {"z": [1], "w": tf.constant(1)})]),
    "keyword_only": lambda tf: _signatures(tf, _keyword_only, [((tf.constant(1.0),), {"k": 2})]),
    "one_key_dict": lambda tf: _signatures(tf, lambda d: d["a"], [(({"a": tf.constant(1)},), {})]),
    "string_literal": lambda tf: _signatures(tf, lambda x, s: x, [((tf.constant(1.0), "s"), {})]),
}


def _with_default(x, scale=2.0, training=False):
    return x * scale


def _varargs(x, y=None, *args, **kw):
    return x


def _keyword_only(x, *, k=1):
    return x + k


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_as_tensorflow(name):
    tf_oracle.check(PROGRAMS[name], rtol=0, atol=0, errors="class")


def test_a_dict_argument_shows_its_keys_sorted():
    # Kept difference: TF shows a dict's keys in their order in the call; the
    # trace keys on the arguments' pytree, whose dicts are sorted.
    import eagertape.tf as etf
    text = _signatures(etf, lambda d: d["a"], [(({"b": 1, "a": etf.constant(2)},), {})])
    assert "d (POSITIONAL_OR_KEYWORD): Dict[['a', TensorSpec(shape=(), dtype=tf.int32, " \
        "name=None)], ['b', Literal[1]]]" in text
