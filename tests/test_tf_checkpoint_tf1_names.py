"""Checkpoints as TF 1 and TF 2 programs meet them (census migrate_checkpoints, issue 38),
against TensorFlow: each program runs as written in a TensorFlow subprocess
(``import tensorflow as tf``, cached by tf_oracle.cached) and through eagertape.tf in
this process, in a folder of its own; what each records must be the same.

- a TF 1 ``Saver`` checkpoint (keys are variable names, no object graph) restored by a
  TF 2 ``tf.train.Checkpoint``: TF falls back to restoring each Variable by its name;
- ``tf.train.load_checkpoint``'s maps list the keys in TF's order (its reader's C++
  hash map, not key order), for TF's bundles and eagertape's own checkpoints;
- an eagertape checkpoint's ``_CHECKPOINTABLE_OBJECT_GRAPH`` is TF's: dtype string,
  the bytes of the object graph TF writes for the same objects.
"""

import pytest

import eagertape.tf as etf
import tf_oracle
from optional import requires

pytestmark = [requires("orbax.checkpoint")]

_PRELUDE = '''
import json, numpy as np
tf1 = tf.compat.v1
out = []
def rec(*values):
    def plain(v):
        if isinstance(v, dict):
            return [[k, plain(x)] for k, x in v.items()]     # in the dict's order
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, bytes):
            return v.hex()
        if isinstance(v, (np.ndarray, np.generic)):
            return np.asarray(v).tolist()
        return v
    out.append(plain(list(values)))
def err(fn):
    try:
        fn()
        return "no error"
    except Exception as e:
        return type(e).__name__
def listing(path):
    r = tf.train.load_checkpoint(path)
    shapes, dtypes = r.get_variable_to_shape_map(), r.get_variable_to_dtype_map()
    rec(list(shapes), list(dtypes), {k: [shapes[k], dtypes[k].name] for k in shapes})
    rec(tf.train.list_variables(path))
'''

PROGRAMS = {
    "saver_checkpoint_restored_by_name": '''
a, b = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b")
with tf.name_scope("scoped"):
    c = tf.Variable([3.0, 4.0], name="c")
path = tf1.train.Saver(var_list=[a, b, c]).save(sess=None, save_path="tf1-ckpt")
a, b = tf.Variable(0.0, name="a"), tf.Variable(0.0, name="b")
with tf.name_scope("scoped"):
    c = tf.Variable([0.0, 0.0], name="c")
c_2 = tf.Variable([0.0, 0.0], name="scoped/c")        # the same name: the same value
other = tf.Variable(5.0, name="other")                # not in the checkpoint: kept
status = tf.train.Checkpoint(variables=[a, b, c, c_2], more={"x": other}).restore(path)
rec(a.numpy(), b.numpy(), c.numpy(), c_2.numpy(), other.numpy())
rec(err(status.assert_consumed), status.expect_partial() is status)
# nested in a Module, restored with read (no save_counter made)
m = tf.Module()
m.inner = tf.Module()
m.inner.w = tf.Variable(0.0, name="a")
tf.train.Checkpoint(m=m).read(path).expect_partial()
rec(m.inner.w.numpy())
''',
    "map_order_of_many_keys": '''
# a TF 1 Saver checkpoint (TF's bundle) and a TF 2 Checkpoint (eagertape's own format
# in eagertape): the maps' order is TF's reader's, not the keys' order
vs = {f"v{i}": tf.Variable(float(i), name=f"v{i}") for i in range(20)}
listing(tf1.train.Saver(var_list=list(vs.values())).save(sess=None, save_path="tf1"))
listing(tf.train.Checkpoint(**vs).save("tf2"))
with tf.name_scope("scoped"):
    c = tf.Variable(7.0, name="c")
ckpt = tf.train.Checkpoint(variables=[tf.Variable(5.0, name="a"), c],
                           more={"x": tf.Variable([1, 2], name="x")})
path = ckpt.save("graph")
listing(path)
r = tf.train.load_checkpoint(path)
rec(r.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"), r.has_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
''',
}


@pytest.mark.subprocess
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_checkpoint_programs_give_tfs_answers(name, tmp_path):
    want, got = tf_oracle.text_program("tf_checkpoint_tf1_names", _PRELUDE + PROGRAMS[name], etf, tmp_path)
    tf_oracle.assert_same_json(got, want)


def test_unordered_map_order_is_libstdcxx():
    # TF's values for these keys (c3 and c13 of its reader, as TF 2.21 listed them)
    from eagertape.tf._tf_bundle import unordered_map_order
    keys = [f"v{i}/.ATTRIBUTES/VARIABLE_VALUE" for i in range(3)]
    assert unordered_map_order(sorted(keys + ["_CHECKPOINTABLE_OBJECT_GRAPH"])) == [
        "v1/.ATTRIBUTES/VARIABLE_VALUE", "v0/.ATTRIBUTES/VARIABLE_VALUE",
        "v2/.ATTRIBUTES/VARIABLE_VALUE", "_CHECKPOINTABLE_OBJECT_GRAPH"]
    assert unordered_map_order([]) == []


def test_name_based_restore_refuses_a_wrong_shape_before_changing_anything(tmp_path):
    a, c = etf.Variable(1.0, name="a"), etf.Variable([3.0, 4.0], name="c")
    path = etf.compat.v1.train.Saver(var_list=[a, c]).save(None, str(tmp_path / "ckpt"))
    a2, c2 = etf.Variable(0.0, name="a"), etf.Variable([0.0, 0.0, 0.0], name="c")
    with pytest.raises(ValueError, match=r"c \(at v/1\)"):
        etf.train.Checkpoint(v=[a2, c2]).restore(path)
    assert float(a2.numpy()) == 0.0
