"""TF 1's SavedModels of a graph (eagertape/tf/_v1_saved_model.py) against
TensorFlow: each program runs as written in a TensorFlow subprocess (cached by
tf_oracle.cached) and through eagertape.tf in this process, in a folder of its own
(test_tf_v1_graph's prelude: ``rec`` records values, ``err`` an error's class);
what each records must be the same."""

import importlib.util

import pytest

import eagertape.tf as etf
import tf_oracle
from test_tf_v1_graph import _PRELUDE

# (a SavedModel is written by TensorFlow, in a process of its own: eagertape/tf/saved_model.py)
pytestmark = [pytest.mark.subprocess,
              pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                 reason="tensorflow is not installed")]

PROGRAMS = {
    # Builder and simple_save of a graph with a variable, loaded back into a TF 1
    # session by the signature's tensor names, and in TF 2 (its signatures).
    "builder_simple_save_and_load": '''
with tf.Graph().as_default() as g:
    with tf1.Session() as sess:
        x = tf1.placeholder(tf.float32, shape=[3])
        v = tf1.Variable(2.0, name="v")
        y = x * v + 1.0
        sess.run(v.initializer)
        sig = tf1.saved_model.predict_signature_def(inputs={"x": x}, outputs={"y": y})
        rec(str(sig), sig.method_name, sig.inputs["x"].name, sig.outputs["y"].dtype)
        info = tf1.saved_model.build_tensor_info(y)
        rec(info.name, str(info))
        other = tf1.saved_model.signature_def_utils.build_signature_def(
            inputs={"x": tf1.saved_model.utils.build_tensor_info(x)}, outputs={"y": info},
            method_name="tensorflow/serving/predict")
        rec(str(other) == str(sig))
        rec(err(lambda: tf1.saved_model.predict_signature_def({}, {"y": y})))
        builder = tf1.saved_model.Builder("builder")
        builder.add_meta_graph_and_variables(
            sess, tags=["serve"], signature_def_map={
                tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY: sig})
        rec(builder.save().decode())
        sess.run(v.assign(5.0))          # after the save: not in the SavedModel
        tf1.saved_model.simple_save(sess, "simple", inputs={"x": x}, outputs={"y": y})
        rec(err(lambda: tf1.saved_model.Builder("simple")))
for path in ("builder", "simple"):
    with tf.Graph().as_default() as g:
        with tf1.Session() as sess:
            meta = tf1.saved_model.load(sess, ["serve"], path)
            s = meta.signature_def["serving_default"]
            rec(sorted(meta.signature_def), s.inputs["x"].name, s.outputs["y"].name)
            rec(sess.run(s.outputs["y"].name, feed_dict={s.inputs["x"].name: [1.0, 2.0, 3.0]}))
            rec([v.name for v in tf1.global_variables()], sess.run(tf1.global_variables()))
            rec(err(lambda: tf1.saved_model.load(sess, ["train"], path)))
    loaded = tf.saved_model.load(path)
    f = loaded.signatures["serving_default"]
    rec(f(tf.constant([1.0, 2.0, 3.0]))["y"].numpy(), f(x=tf.constant([0.0, 0.0, 1.0]))["y"].numpy())
    rec(repr(f.structured_input_signature))
''',
    # A SavedModel of TF 2 code, loaded into a TF 1 session: its signature's names are
    # TF's (serving_default_<input>, StatefulPartitionedCall).
    "tf2_saved_model_in_a_session": '''
class Add(tf.Module):
    def __init__(self):
        self.v = tf.Variable(2.0)
    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32, name="a")])
    def __call__(self, a):
        return {"sum": a + self.v, "twice": a * 2.0}
tf.saved_model.save(Add(), "tf2")
with tf.Graph().as_default() as g:
    with tf1.Session() as sess:
        meta = tf1.saved_model.load(sess, [tf1.saved_model.tag_constants.SERVING], "tf2")
        s = meta.signature_def["serving_default"]
        rec(s.inputs["a"].name, sorted(s.outputs))
        names = [s.outputs[k].name for k in sorted(s.outputs)]
        rec(sess.run(names, {s.inputs["a"].name: [1.0, 3.0]}))
        rec([v.name for v in tf1.global_variables()], sess.run(tf1.global_variables()))
''',
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_tf1_saved_model_programs_give_tfs_answers(name, tmp_path):
    want, got = tf_oracle.text_program("tf_v1_saved_model", _PRELUDE + PROGRAMS[name], etf,
                                       tmp_path)
    tf_oracle.assert_same_json(got, want)
