"""Checkpoints that real TensorFlow wrote, read by eagertape without TensorFlow.

TF writes them once for the module (one subprocess: a ``tf.Module`` of many dtypes
and shapes saved by a CheckpointManager, a Keras model trained a step with Adam so
its slots exist, a subclassed Keras model, ``.weights.h5`` and ``.keras`` files of a
compiled model, corrupted copies) and records what its readers give: every
tensor's bytes, names, shapes, dtypes, the Keras models' outputs and the weights
after one more Adam step, its errors. A second process, which imports
``eagertape.tf`` and never TensorFlow, reads and restores them; every value is
compared. Before TF's process starts, eagertape writes a checkpoint in TF's format
(``CheckpointOptions(eagertape_format="tensorflow")``), which TF restores there.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

from optional import requires

pytestmark = [requires("tensorflow", "orbax.checkpoint"), pytest.mark.subprocess]

_ROOT = str(pathlib.Path(__file__).resolve().parent.parent)

# What both sides read a checkpoint with (the same code under TF and under eagertape).
_READ_HELPERS = r'''
def enc(v):
    v = np.asarray(v)
    if v.dtype == object:
        return {"dtype": "string", "shape": list(v.shape), "hex": [x.hex() for x in v.ravel()]}
    return {"dtype": tf.as_dtype(v.dtype).name, "shape": list(v.shape), "hex": v.tobytes().hex()}

def dump(prefix):
    r = tf.train.load_checkpoint(prefix)
    return {"list": [[n, s] for n, s in tf.train.list_variables(prefix)],
            "dtypes": {k: v.name for k, v in r.get_variable_to_dtype_map().items()},
            "values": {k: enc(r.get_tensor(k)) for k in r.get_variable_to_shape_map()
                       if k != "_CHECKPOINTABLE_OBJECT_GRAPH"},
            "graph": r.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH").hex(),
            "scalar_types": sorted({type(r.get_tensor(k)).__name__
                                    for k, s in r.get_variable_to_shape_map().items() if not s})}

def error(fn):
    try:
        fn()
    except Exception as e:
        return [type(e).__name__, getattr(e, "error_code", None), getattr(e, "message", str(e))]
    return None

'''

_TF_SIDE = r'''
import json, os, shutil, sys
os.environ["KERAS_BACKEND"] = "tensorflow"
import numpy as np
import tensorflow as tf
import keras
from google.protobuf import text_format
d = sys.argv[1]
out = {}

''' + _READ_HELPERS + r'''def outcome(fn):
    try:
        fn()
        return "ok"
    except AssertionError as e:
        return "AssertionError"

# -- a tf.Module of many dtypes and shapes, saved three times by a manager
m = tf.Module()
m.f32 = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
m.f16 = tf.Variable(np.array([1.5, -2], np.float16))
m.bf = tf.Variable(tf.constant([1.25, -3.0, 1e30], tf.bfloat16))
m.f64 = tf.Variable(np.float64(3.25))
m.i8, m.u8 = tf.Variable(np.array([-3, 4], np.int8)), tf.Variable(np.array([250, 4], np.uint8))
m.i16, m.u16 = tf.Variable(np.array([-300], np.int16)), tf.Variable(np.array([65000], np.uint16))
m.i32, m.u32 = tf.Variable(np.int32(-7)), tf.Variable(np.array([4000000000], np.uint32))
m.i64, m.u64 = tf.Variable(np.array([2**40], np.int64)), tf.Variable(np.array([2**63], np.uint64))
m.b = tf.Variable([[True, False]])
m.c64 = tf.Variable(np.array([1 + 2j], np.complex64))
m.c128 = tf.Variable(np.array([[3 - 1j]], np.complex128))
m.empty = tf.Variable(np.zeros((0, 3), np.float32))
m.big = tf.Variable(np.random.RandomState(0).randn(130, 70).astype(np.float32))
m.s = tf.Variable(["hello", "", "w\u00f6rld" * 50])
m.sub = tf.Module()
m.sub.w = tf.Variable([[1.0]])
m.items = [tf.Variable(1), {"a": tf.Variable(2.0), "b.c/d": tf.Variable(5.0)}]
m.many = [tf.Variable(float(i)) for i in range(100)]     # many restart points
ckpt = tf.train.Checkpoint(mod=m)
manager = tf.train.CheckpointManager(ckpt, os.path.join(d, "mod"), max_to_keep=2)
for step in range(3):
    m.f32.assign_add(tf.ones_like(m.f32))
    manager.save()
out["mod"] = dump(os.path.join(d, "mod"))
out["mod_latest"] = os.path.relpath(tf.train.latest_checkpoint(os.path.join(d, "mod")), d)
out["mod_state"] = open(os.path.join(d, "mod", "checkpoint")).read()
out["mod_written"] = os.path.relpath(ckpt.write(os.path.join(d, "written")), d)

# -- Keras: a model trained one step with Adam (slots), saved with its optimizer
x = np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3)
y = np.stack([x.sum(1), x[:, 0]], 1)

def seq():
    keras.utils.set_random_seed(1)
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                             keras.layers.BatchNormalization(), keras.layers.Dense(2)])

def step(model, opt):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x, training=True) - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))

model, opt = seq(), keras.optimizers.Adam(0.01)
step(model, opt)
path = tf.train.Checkpoint(model=model, optimizer=opt).save(os.path.join(d, "keras", "ckpt"))
out["keras"] = dump(path)
out["keras_path"] = os.path.relpath(path, d)
out["keras_outputs"] = np.asarray(model(x)).tolist()
tf.train.Checkpoint(model).write(os.path.join(d, "rooted"))       # the model as the root
step(model, opt)
out["keras_next"] = [np.asarray(v).tolist() for v in model.weights]
out["keras_next_opt"] = [np.asarray(v).tolist() for v in opt.variables]

class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = keras.layers.Dense(3)
        self.blocks = [keras.layers.Dense(2), keras.layers.Dense(1, use_bias=False)]

    def call(self, x):
        h = self.d1(x)
        for b in self.blocks:
            h = b(h)
        return h

keras.utils.set_random_seed(2)
net = Net()
net(x)
out["net_path"] = os.path.relpath(tf.train.Checkpoint(net=net).write(os.path.join(d, "net")), d)
out["net"] = dump(os.path.join(d, "net"))
# Keras 3 on TF tracks no layer held in a list attribute: only d1 is saved. Built
# before the read: TF 2.21 restores nothing into a Keras 3 model built after it.
net2 = Net()
net2(x)
status = tf.train.Checkpoint(net=net2).read(os.path.join(d, "net"))
out["net_restored"] = [np.asarray(v).tolist() for v in net2.d1.weights]
out["net_status"] = [outcome(status.assert_consumed),
                     outcome(status.assert_existing_objects_matched)]

compiled = seq()
compiled.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
compiled.fit(x, y, epochs=1, batch_size=5, verbose=0)
compiled.save(os.path.join(d, "compiled.keras"))
compiled.save_weights(os.path.join(d, "compiled.weights.h5"))
out["compiled_weights"] = [np.asarray(v).tolist() for v in compiled.weights]
out["compiled_opt"] = [np.asarray(v).tolist() for v in compiled.optimizer.variables]
out["compiled_outputs"] = np.asarray(compiled(x)).tolist()
out["load_weights_prefix"] = error(lambda: compiled.load_weights(path))

# -- what eagertape wrote in TF's format (eagertape_format="tensorflow"), restored by TF
fe = tf.Module()
fe.f32, fe.bf = tf.Variable(tf.zeros([2, 3])), tf.Variable(tf.zeros([2], tf.bfloat16))
fe.items = [tf.Variable(np.int64(0)), {"a.b/c": tf.Variable([False, False])}]
fe.sub = tf.Module()
fe.sub.h = tf.Variable(np.zeros([0, 2], np.float16))
fe.same = fe.f32
fe_ckpt = tf.train.Checkpoint(mod=fe)
fe_path = tf.train.latest_checkpoint(os.path.join(d, "from_et"))
status = fe_ckpt.restore(fe_path)
out["from_et"] = [os.path.basename(fe_path), outcome(status.assert_consumed),
                  int(fe_ckpt.save_counter.numpy()),
                  [enc(v) for v in (fe.f32, fe.bf, fe.items[0], fe.items[1]["a.b/c"], fe.sub.h)],
                  sorted(os.listdir(os.path.join(d, "from_et")))]

# -- what TF's readers say of missing and corrupted files
latest = os.path.join(d, out["mod_latest"])
for name in ("bad_data", "bad_index"):
    shutil.copytree(os.path.join(d, "mod"), os.path.join(d, name))
raw = bytearray(open(latest + ".data-00000-of-00001", "rb").read())
raw[-3] ^= 1
open(os.path.join(d, "bad_data", "ckpt-3.data-00000-of-00001"), "wb").write(raw)
raw = bytearray(open(latest + ".index", "rb").read())
raw[60] ^= 1
open(os.path.join(d, "bad_index", "ckpt-3.index"), "wb").write(raw)
out["errors"] = {
    "bad_data": error(lambda: [tf.train.load_checkpoint(os.path.join(d, "bad_data", "ckpt-3"))
                               .get_tensor(k) for k, _ in tf.train.list_variables(
                                   os.path.join(d, "bad_data", "ckpt-3"))]),
    "bad_index": error(lambda: tf.train.load_checkpoint(os.path.join(d, "bad_index", "ckpt-3"))),
    "missing": error(lambda: tf.train.load_checkpoint(os.path.join(d, "nothing"))),
    "no_key": error(lambda: tf.train.load_checkpoint(latest).get_tensor("mod/nope")),
    "empty_dir": error(lambda: tf.train.load_checkpoint(os.path.join(d, "keras", ".."))),
}
m2 = tf.Module()
m2.f32 = tf.Variable(tf.zeros([3, 2]))
out["errors"]["shape"] = error(lambda: tf.train.Checkpoint(mod=m2).read(latest))
m3 = tf.Module()
m3.f32 = tf.Variable(tf.zeros([2, 3]))
out["bad_data_restore"] = error(lambda: tf.train.Checkpoint(mod=m3).read(
    os.path.join(d, "bad_data", "ckpt-3")))

# -- the protos: eagertape's definitions field by field
from tensorflow.core.protobuf import tensor_bundle_pb2, trackable_object_graph_pb2
from tensorflow.core.framework import tensor_slice_pb2, versions_pb2
from tensorflow.python.training import checkpoint_state_pb2

def fields(desc):
    return {f.name: [f.number, f.type, f.is_repeated, f.message_type.full_name if f.message_type
                     else f.enum_type.full_name if f.enum_type else None]
            for f in desc.fields} | {n.name: fields(n) for n in desc.nested_types}

out["protos"] = {
    m.DESCRIPTOR.full_name: fields(m.DESCRIPTOR) for m in (
        tensor_bundle_pb2.BundleHeaderProto, tensor_bundle_pb2.BundleEntryProto,
        trackable_object_graph_pb2.TrackableObjectGraph, tensor_slice_pb2.TensorSliceProto,
        versions_pb2.VersionDef, checkpoint_state_pb2.CheckpointState)}
g = trackable_object_graph_pb2.TrackableObjectGraph.FromString(
    bytes.fromhex(out["keras"]["graph"]))
out["keras_graph_text"] = text_format.MessageToString(g)
print("RESULT", json.dumps(out))
'''

_ET_SIDE = r'''
import json, os, sys
import numpy as np
import eagertape.tf as tf
from google.protobuf import text_format
d = sys.argv[1]
out = {}

''' + _READ_HELPERS + r'''def outcome(fn):
    try:
        fn()
        return "ok"
    except AssertionError as e:
        return "AssertionError: " + str(e)

out["mod"] = dump(os.path.join(d, "mod"))
out["mod_latest"] = os.path.relpath(tf.train.latest_checkpoint(os.path.join(d, "mod")), d)
state = tf.train.get_checkpoint_state(os.path.join(d, "mod"))
out["mod_state"] = [os.path.relpath(p, d) for p in state.all_model_checkpoint_paths]

# restore the module into eagertape objects made with other values (no string Variable:
# eagertape has none, so that value stays unconsumed)
ref = out["mod"]["values"]
def zeros(key):
    info = ref[f"mod/{key}/.ATTRIBUTES/VARIABLE_VALUE"]
    dtype = {"bfloat16": tf.bfloat16, "half": np.float16, "float": np.float32,
             "double": np.float64, "bool": np.bool_}.get(info["dtype"], info["dtype"])
    return tf.Variable(tf.zeros(info["shape"], dtype))
m = tf.Module()
for key in "f32 f16 bf f64 i8 u8 i16 u16 i32 u32 i64 u64 b c64 c128 empty big".split():
    setattr(m, key, zeros(key))
m.sub = tf.Module()
ckpt = tf.train.Checkpoint(mod=m)
status = ckpt.restore(tf.train.latest_checkpoint(os.path.join(d, "mod")))
m.sub.w = tf.Variable([[0.0]])          # made after the restore: deferred, as in TF
m.items = [tf.Variable(0), {"a": tf.Variable(0.0), "b.c/d": tf.Variable(0.0)}]
m.many = [tf.Variable(-1.0) for _ in range(100)]
values = {f"mod/{k}/.ATTRIBUTES/VARIABLE_VALUE": enc(v.numpy()) for k, v in vars(m).items()
          if hasattr(v, "numpy")}
values["mod/sub/w/.ATTRIBUTES/VARIABLE_VALUE"] = enc(m.sub.w.numpy())
values["mod/items/0/.ATTRIBUTES/VARIABLE_VALUE"] = enc(m.items[0].numpy())
values["mod/items/1/a/.ATTRIBUTES/VARIABLE_VALUE"] = enc(m.items[1]["a"].numpy())
values["mod/items/1/b..c.Sd/.ATTRIBUTES/VARIABLE_VALUE"] = enc(m.items[1]["b.c/d"].numpy())
values.update({f"mod/many/{i}/.ATTRIBUTES/VARIABLE_VALUE": enc(v.numpy())
               for i, v in enumerate(m.many)})
values["save_counter/.ATTRIBUTES/VARIABLE_VALUE"] = enc(ckpt.save_counter.numpy())
out["mod_restored"] = values
out["mod_status"] = [outcome(status.assert_existing_objects_matched),
                     outcome(status.assert_consumed), outcome(status.assert_nontrivial_match),
                     status.expect_partial() is status]
# a CheckpointManager taking over TF's directory: restores TF's latest, numbers on
# from TF's save_counter, and deletes TF's files past max_to_keep as TF's would
import shutil
shutil.copytree(os.path.join(d, "mod"), os.path.join(d, "managed"))
manager = tf.train.CheckpointManager(ckpt, os.path.join(d, "managed"), max_to_keep=2)
out["managed"] = [os.path.basename(manager.restore_or_initialize()),
                  os.path.basename(manager.save()), os.path.basename(manager.save()),
                  sorted(os.listdir(os.path.join(d, "managed")))]
out["mod_unrelated"] = outcome(tf.train.Checkpoint(other=tf.Variable(1.0)).restore(
    tf.train.latest_checkpoint(os.path.join(d, "mod"))).assert_nontrivial_match)

# Keras: built first, and built after the restore (deferred); then one more Adam step
x = np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3)
y = np.stack([x.sum(1), x[:, 0]], 1)
def seq(with_input):
    return tf.keras.Sequential(([tf.keras.Input((3,))] if with_input else []) + [
        tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.BatchNormalization(),
        tf.keras.layers.Dense(2)])
def step(model, opt):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x, training=True) - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
for how in ("built", "deferred"):
    model, opt = seq(how == "built"), tf.keras.optimizers.Adam(0.01)
    if how == "built":
        opt.build(model.trainable_variables)
    status = tf.train.Checkpoint(model=model, optimizer=opt).restore(
        os.path.join(d, "keras", "ckpt-1"))
    outputs = np.asarray(model(x)).tolist()
    step(model, opt)
    out[how] = {"outputs": outputs, "status": outcome(status.assert_consumed),
                "next": [np.asarray(v.numpy()).tolist() for v in model.weights],
                "next_opt": [np.asarray(v.numpy()).tolist() for v in opt.variables]}

rooted = seq(True)
status = tf.train.Checkpoint(rooted).read(os.path.join(d, "rooted"))
out["rooted"] = [np.asarray(rooted(x)).tolist(), outcome(status.assert_consumed)]

class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = tf.keras.layers.Dense(3)
        self.blocks = [tf.keras.layers.Dense(2), tf.keras.layers.Dense(1, use_bias=False)]

    def call(self, x):
        h = self.d1(x)
        for b in self.blocks:
            h = b(h)
        return h
net = Net()
status = tf.train.Checkpoint(net=net).read(os.path.join(d, "net"))
net(x)
out["net_restored"] = [np.asarray(v.numpy()).tolist() for v in net.d1.weights]
out["net_status"] = [outcome(status.assert_consumed).split(":")[0],
                     outcome(status.assert_existing_objects_matched).split(":")[0]]
out["net"] = dump(os.path.join(d, "net"))
out["keras"] = dump(os.path.join(d, "keras", "ckpt-1"))

compiled = tf.keras.models.load_model(os.path.join(d, "compiled.keras"))
out["compiled_weights"] = [np.asarray(v.numpy()).tolist() for v in compiled.weights]
out["compiled_opt"] = [np.asarray(v.numpy()).tolist() for v in compiled.optimizer.variables]
out["compiled_outputs"] = np.asarray(compiled(x)).tolist()
h5 = seq(True)
h5.load_weights(os.path.join(d, "compiled.weights.h5"))
out["h5_weights"] = [np.asarray(v.numpy()).tolist() for v in h5.weights]
out["load_weights_prefix"] = error(lambda: h5.load_weights(os.path.join(d, "keras", "ckpt-1")))

latest = os.path.join(d, out["mod_latest"])
out["errors"] = {
    "bad_data": error(lambda: [tf.train.load_checkpoint(os.path.join(d, "bad_data", "ckpt-3"))
                               .get_tensor(k) for k, _ in tf.train.list_variables(
                                   os.path.join(d, "bad_data", "ckpt-3"))]),
    "bad_index": error(lambda: tf.train.load_checkpoint(os.path.join(d, "bad_index", "ckpt-3"))),
    "missing": error(lambda: tf.train.load_checkpoint(os.path.join(d, "nothing"))),
    "no_key": error(lambda: tf.train.load_checkpoint(latest).get_tensor("mod/nope")),
    "empty_dir": error(lambda: tf.train.load_checkpoint(os.path.join(d, "keras", ".."))),
}
m2 = tf.Module()
m2.f32 = tf.Variable(tf.zeros([3, 2]))
out["errors"]["shape"] = error(lambda: tf.train.Checkpoint(mod=m2).read(latest))
m3 = tf.Module()
m3.f32 = tf.Variable(tf.zeros([2, 3]))
before = m3.f32.numpy().tolist()
out["bad_data_restore"] = [error(lambda: tf.train.Checkpoint(mod=m3).read(
    os.path.join(d, "bad_data", "ckpt-3"))), m3.f32.numpy().tolist() == before]

from eagertape.tf._proto import checkpoint as protos
def fields(desc):
    return {f.name: [f.number, f.type, f.is_repeated, f.message_type.full_name if f.message_type
                     else f.enum_type.full_name if f.enum_type else None]
            for f in desc.fields} | {n.name: fields(n) for n in desc.nested_types}
out["protos"] = {m.DESCRIPTOR.full_name: fields(m.DESCRIPTOR) for m in (
    protos.BundleHeaderProto, protos.BundleEntryProto, protos.TrackableObjectGraph,
    protos.TensorSliceProto, protos.VersionDef, protos.CheckpointState)}
g = protos.TrackableObjectGraph.FromString(bytes.fromhex(out["keras"]["graph"]))
out["keras_graph_text"] = text_format.MessageToString(g)
out["tensorflow_imported"] = "tensorflow" in sys.modules
print("RESULT", json.dumps(out))
'''


def _run(program, d):
    env = {k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"}
    env["PYTHONPATH"] = os.pathsep.join([_ROOT] + [p for p in [env.get("PYTHONPATH")] if p])
    p = subprocess.run([sys.executable, "-c", program, str(d)], capture_output=True, text=True,
                       timeout=600, env=dict(env, TF_CPP_MIN_LOG_LEVEL="3",
                                             CUDA_VISIBLE_DEVICES=""))
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    assert p.returncode == 0 and lines, p.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT "):])


def _write_for_tf(d):
    # eagertape writes TF's format here, before TF's process starts, which restores it
    import eagertape.tf as tf
    fe = tf.Module()
    fe.f32 = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    fe.bf = tf.Variable(tf.constant([1.5, -2.0], tf.bfloat16))
    fe.items = [tf.Variable(np.int64(2 ** 40)), {"a.b/c": tf.Variable([True, False])}]
    fe.sub = tf.Module()
    fe.sub.h = tf.Variable(np.zeros([0, 2], np.float16))
    fe.same = fe.f32
    opts = tf.train.CheckpointOptions(eagertape_format="tensorflow")
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(mod=fe), d / "from_et", 1)
    manager.save(options=opts)
    manager.save(options=opts)
    import eagertape as et
    with pytest.raises(ValueError, match=r"'opt' \(a Adam\).*eagertape_format='orbax'"):
        tf.train.Checkpoint(opt=et.optimizers.Adam(0.1)).write(d / "refused", options=opts)
    assert not list(d.glob("refused*"))
    with pytest.raises(ValueError, match="eagertape_format"):
        tf.train.CheckpointOptions(eagertape_format="tf")
    return [_enc(v.numpy()) for v in (fe.f32, fe.bf, fe.items[0], fe.items[1]["a.b/c"],
                                      fe.sub.h)]


def _enc(v):
    import eagertape.tf as tf
    v = np.asarray(v)
    return {"dtype": tf.as_dtype(v.dtype).name, "shape": list(v.shape), "hex": v.tobytes().hex()}


def _written(d):
    wrote = _write_for_tf(d)
    tf_out = _run(_TF_SIDE, d)
    assert tf_out["from_et"] == ["ckpt-2", "ok", 2, wrote,
                                 ["checkpoint", "ckpt-2.data-00000-of-00001", "ckpt-2.index"]]
    return d, tf_out, _run(_ET_SIDE, d)


def test_checkpoints_tensorflow_wrote(tmp_path):
    # One test: TF's side and eagertape's run once (a fixture would run per worker).
    written = _written(tmp_path)
    _check_values(written)
    _check_keras(written)
    _check_errors(written)
    _check_protos(written)
    _check_arguments(written, tmp_path / "copy")


def _check_values(written):
    _, tf_out, et = written
    assert et["tensorflow_imported"] is False
    for name in ("mod", "keras", "net"):       # names, shapes, dtypes, bytes: TF's reader's
        assert et[name] == tf_out[name], name
    assert et["mod"]["scalar_types"] == tf_out["mod"]["scalar_types"] == [
        "bytes", "float32", "float64", "int32", "int64"]
    assert et["mod_latest"] == tf_out["mod_latest"] == os.path.join("mod", "ckpt-3")
    assert et["mod_state"] == [os.path.join("mod", "ckpt-2"), os.path.join("mod", "ckpt-3")]
    assert 'model_checkpoint_path: "ckpt-3"' in tf_out["mod_state"]     # TF's text format
    # restored into eagertape Variables: every value TF saved but the string one
    saved = tf_out["mod"]["values"]
    restored = et["mod_restored"]
    assert set(saved) - set(restored) == {"mod/s/.ATTRIBUTES/VARIABLE_VALUE"}
    for key, value in restored.items():
        assert value == saved[key], key
    assert et["mod_status"][0] == "ok"
    assert et["mod_status"][1].startswith("AssertionError") and \
        "mod/s/.ATTRIBUTES/VARIABLE_VALUE" in et["mod_status"][1]
    assert et["mod_status"][2:] == ["ok", True]
    assert et["mod_unrelated"].startswith("AssertionError")
    assert et["managed"] == ["ckpt-3", "ckpt-4", "ckpt-5", ["checkpoint", "ckpt-4", "ckpt-5"]]


def _check_keras(written):
    _, tf_out, et = written
    for how in ("built", "deferred"):
        r = et[how]
        assert r["status"] == "ok", how
        np.testing.assert_allclose(r["outputs"], tf_out["keras_outputs"], rtol=1e-5, atol=1e-6)
        # one more Adam step from the restored slots: TF's weights and slots after it
        for a, b in zip(r["next"], tf_out["keras_next"], strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
        for a, b in zip(r["next_opt"], tf_out["keras_next_opt"], strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(et["rooted"][0], tf_out["keras_outputs"], rtol=1e-5, atol=1e-6)
    assert et["rooted"][1] == "ok"
    # a subclassed model built after the read (deferred; TF's is built before): matched
    # by attribute names. Its list-held layers, which Keras 3 on TF does not save, get
    # nothing, and neither side's statuses count them (TF's tracking, eagertape's too)
    assert et["net_status"] == tf_out["net_status"] == ["ok", "ok"]
    for a, b in zip(et["net_restored"], tf_out["net_restored"], strict=True):
        np.testing.assert_array_equal(a, b)
    for key in ("compiled_weights", "compiled_opt", "compiled_outputs"):
        for a, b in zip(et[key], tf_out[key], strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=key)
    for a, b in zip(et["h5_weights"], tf_out["compiled_weights"], strict=True):
        np.testing.assert_array_equal(a, b)
    # Keras 3 reads no TF-format prefix in load_weights, on TF as here
    assert et["load_weights_prefix"] == tf_out["load_weights_prefix"]
    assert et["load_weights_prefix"][0] == "ValueError"


def _check_errors(written):
    d, tf_out, et = written
    for name in ("bad_data", "bad_index", "missing", "no_key", "empty_dir"):
        assert et["errors"][name][2] == tf_out["errors"][name][2], name     # TF's messages
    for name in ("missing", "no_key", "empty_dir"):
        assert et["errors"][name][:2] == tf_out["errors"][name][:2], name
    # corruption: TF 2.21's reader and restore raise a bare OpError (code UNKNOWN) with a
    # data-loss message; eagertape the DataLossError (an OpError) with that message
    assert tf_out["bad_data_restore"][:2] == tf_out["errors"]["bad_data"][:2] == ["OpError", 2]
    assert et["bad_data_restore"][0][2] == tf_out["bad_data_restore"][2]
    assert et["bad_data_restore"][0][:2] == ["DataLossError", 15] and et["bad_data_restore"][1]
    assert et["errors"]["bad_data"][:2] == et["errors"]["bad_index"][:2] == ["DataLossError", 15]
    # a shape that differs: a ValueError in both, and nothing restored here
    assert tf_out["errors"]["shape"][0] == et["errors"]["shape"][0] == "ValueError"


def _check_protos(written):
    _, tf_out, et = written
    assert et["protos"] == tf_out["protos"]
    assert et["keras_graph_text"] == tf_out["keras_graph_text"]


def _check_arguments(written, tmp_path):
    import eagertape.tf as tf
    d, _, _ = written
    with pytest.raises(TypeError, match="save_path"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(42)
    with pytest.raises(TypeError, match="ckpt_dir_or_file"):
        tf.train.load_checkpoint(42)
    # a data shard gone: TF's NotFoundError, naming the file
    shutil.copytree(d / "mod", tmp_path / "mod")
    for f in (tmp_path / "mod").glob("*.data-*"):
        f.unlink()
    with pytest.raises(tf.errors.NotFoundError, match="data-00000-of-00001"):
        tf.train.load_checkpoint(tmp_path / "mod").get_tensor(
            "mod/f32/.ATTRIBUTES/VARIABLE_VALUE")
