"""TF 1's graph mode (eagertape/tf/_v1_graph.py) against TensorFlow: each program
runs as written in a TensorFlow subprocess (``import tensorflow as tf``, cached by
tf_oracle.cached) and through eagertape.tf in this process, in a folder of its own;
what each records (values, names, error classes) must be the same."""

import pytest

import eagertape.tf as etf
import tf_oracle

pytestmark = pytest.mark.both_modes

_PRELUDE = '''
import json, numpy as np
tf1 = tf.compat.v1
out = []
def rec(*values):
    def plain(v):
        if isinstance(v, dict):
            return {k: plain(x) for k, x in sorted(v.items())}
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
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
'''

PROGRAMS = {
    "feeds_and_names": '''
with tf.Graph().as_default() as g:
    x = tf1.placeholder(tf.float32, shape=[3], name="x")
    y = x + 2
    z = tf.multiply(y, x, name="z")
    w = y + 1.0
    rec(str(x), str(y), z.name, w.name, repr(z))
    rec(g.get_tensor_by_name("z:0").name, y.op.name)
    with tf1.Session() as sess:
        rec(sess.run(z, {x: [1.0, 2.0, 3.0]}))
        rec(sess.run({"y": y, "pair": (z, w)}, feed_dict={x: np.ones(3)}))
        rec(sess.run("z:0", feed_dict={"x:0": [0.0, 1.0, 2.0]}))
        rec(sess.run(w, {y: [10.0, 20.0, 30.0]}))        # a fed Tensor replaces its op
        rec(err(lambda: sess.run(z)))                    # x not fed
        rec(err(lambda: sess.run(z, {x: [1.0, 2.0]})))   # the wrong shape
''',
    "variables_and_initializers": '''
with tf.Graph().as_default():
    a = tf1.get_variable("a", shape=[2], initializer=tf1.constant_initializer(3.0))
    with tf1.variable_scope("s"):
        b = tf1.get_variable("b", shape=[], dtype=tf.float32,
                             initializer=tf1.zeros_initializer())
        rec(err(lambda: tf1.get_variable("b", shape=[])))
    with tf1.variable_scope("s", reuse=True):
        rec(tf1.get_variable("b") is b)
    with tf1.variable_scope("s", reuse=tf1.AUTO_REUSE):
        rec(tf1.get_variable("b") is b)
    rec(a.name, b.name, [v.name for v in tf1.global_variables()],
        [v.name for v in tf1.trainable_variables()])
    total = tf.reduce_sum(a) + b
    step = b.assign_add(1.5)
    with tf1.Session() as sess:
        rec(err(lambda: sess.run(total)))
        sess.run(tf1.global_variables_initializer())
        rec(sess.run([a, b, total]))
        rec(sess.run(step), sess.run(step), sess.run(total))
        rec(sess.run(a.assign([1.0, 2.0])), sess.run(a))
        rec(sess.run(tf1.global_variables_initializer()), sess.run(a))
    with tf1.Session() as sess:      # a new session: nothing initialized
        rec(err(lambda: sess.run(a)))
        sess.run(a.initializer)
        rec(sess.run(a))
rec(err(lambda: tf1.placeholder(tf.float32, shape=[2])))       # eager: refused
''',
    "saver_round_trip": '''
with tf.Graph().as_default():
    a = tf1.get_variable("a", shape=[], initializer=tf1.zeros_initializer())
    with tf1.variable_scope("scoped"):
        c = tf1.get_variable("c", shape=[2], initializer=tf1.zeros_initializer())
    with tf1.Session() as sess:
        saver = tf1.train.Saver()
        sess.run(a.assign(1.0))
        sess.run(c.assign([2.0, 3.0]))
        path = saver.save(sess, "tf1-ckpt")
rec(path)
reader = tf.train.load_checkpoint(path)
rec({k: str(v) for k, v in reader.get_variable_to_shape_map().items()},
    {k: v.name for k, v in reader.get_variable_to_dtype_map().items()},
    reader.get_tensor("scoped/c"), tf.train.latest_checkpoint(".") is not None)
# eagerly, by name (a list, then a dict)
va, vc = tf.Variable(0.0, name="a"), tf.Variable([0.0, 0.0], name="scoped/c")
tf1.train.Saver([va, vc]).restore(None, path)
rec(va.numpy(), vc.numpy())
other = tf.Variable(0.0)
tf1.train.Saver({"a": other}).restore(None, path)
rec(other.numpy())
rec(err(lambda: tf1.train.Saver({"nope": other}).restore(None, path)))
# in a new graph, remapped by init_from_checkpoint
with tf.Graph().as_default():
    with tf1.variable_scope("new"):
        a2 = tf1.get_variable("a", shape=[], initializer=tf1.zeros_initializer())
        c2 = tf1.get_variable("scoped/c", shape=[2], initializer=tf1.zeros_initializer())
    tf1.train.init_from_checkpoint(path, {"/": "new/"})
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        rec(sess.run([a2, c2]))
        sess.run([a2.assign(0.0), c2.assign([0.0, 0.0])])
        tf1.train.Saver({"a": a2, "scoped/c": c2}).restore(sess, path)
        rec(sess.run([a2, c2]))
''',
    "checkpoint_in_a_session": '''
with tf.Graph().as_default():
    a = tf1.get_variable("a", shape=[], initializer=tf1.constant_initializer(1))
    with tf1.variable_scope("scoped"):
        c = tf1.get_variable("c", shape=[], initializer=tf1.constant_initializer(3))
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        ckpt = tf.train.Checkpoint(var_list={v.name.split(":")[0]: v
                                             for v in tf1.global_variables()})
        path = ckpt.save("in-session")
rec(path)
with tf.Graph().as_default():
    a = tf1.get_variable("a", shape=[], initializer=tf1.constant_initializer(0))
    with tf1.variable_scope("scoped"):
        c = tf1.get_variable("c", shape=[], initializer=tf1.constant_initializer(0))
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        rec(sess.run([a, c]))
        ckpt = tf.train.Checkpoint(var_list={v.name.split(":")[0]: v
                                             for v in tf1.global_variables()})
        ckpt.restore(path).run_restore_ops()
        rec(sess.run([a, c]))
a3, c3 = tf.Variable(0.0), tf.Variable(0.0)
tf.train.Checkpoint(var_list={"a": a3, "scoped/c": c3}).restore(path)
rec(a3.numpy(), c3.numpy())
''',
    "ops_and_control": '''
with tf.Graph().as_default():
    v = tf1.Variable(1.0, name="v")
    w = tf1.Variable([1.0, 2.0])
    x = tf1.placeholder(tf.float32, shape=[2], name="x")
    loss = tf.reduce_sum(w * x) * v
    update = tf1.group(v.assign_add(1.0), w.assign(w * 2.0))
    with tf1.control_dependencies([update]):      # reads made inside run after it
        after = tf.reduce_sum(w.read_value() * x) * v.read_value()
    rec(v.name, w.name, [u.name for u in tf1.global_variables()], update.type)
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        rec(sess.run(loss, {x: [1.0, 1.0]}))
        rec(sess.run(update), sess.run([v, w]))
        rec(sess.run(after, {x: [1.0, 0.0]}), sess.run([v, w]))
''',
}


@pytest.mark.subprocess
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_tf1_graph_programs_give_tfs_answers(name, tmp_path):
    want, got = tf_oracle.text_program("tf_v1_graph", _PRELUDE + PROGRAMS[name], etf, tmp_path)
    tf_oracle.assert_same_json(got, want)


def test_a_symbolic_tensor_has_no_value_outside_a_session():
    with etf.Graph().as_default():
        x = etf.compat.v1.placeholder(etf.float32, shape=[2], name="x")
        y = x * 2.0
    with pytest.raises(NotImplementedError, match="Session.run"):
        y.numpy()
    with pytest.raises(AttributeError):
        etf.constant(1.0).name          # an eager Tensor has no name, as in TF 2
