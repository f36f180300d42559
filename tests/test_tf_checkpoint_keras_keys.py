"""Checkpoints of Keras objects under TF's keys, both ways (issues 37/38).

TF 2.21's Keras 3 names a Keras object's dependencies by the attributes TF
tracks (``net/l1/_kernel``, ``m/_functional/_operations/1/_kernel``,
``opt/_variables/2``); eagertape's ``tf.train.Checkpoint`` writes the same keys,
in its own (orbax) format and in TF's bundle
(``CheckpointOptions(eagertape_format="tensorflow")``).

The same program builds the same objects in three processes, its weights set from
NumPy: eagertape writes both formats; TF writes its own checkpoint, lists it, and
restores eagertape's TF-format one into fresh objects; eagertape restores TF's
checkpoint (and its own) into fresh objects. After each restore the restored
objects are written again and read by key: every value must be the one saved.
Compared: the keys ``tf.train.list_variables`` gives (TF's checkpoint, eagertape's
two), every saved value by key, the restored values, and the restore statuses'
assertions against TF's on its own checkpoint.
"""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from optional import requires

pytestmark = [requires("tensorflow", "keras", "orbax.checkpoint"), pytest.mark.subprocess]

_ROOT = str(pathlib.Path(__file__).resolve().parent.parent)

_PROGRAM = r'''
import json, os, sys
import numpy as np
side, step, d = sys.argv[1], sys.argv[2], sys.argv[3]
if side == "tf":
    import tensorflow as tf
else:
    import eagertape.tf as tf
keras = tf.keras
TF_FORMAT = {} if side == "tf" else {
    "options": tf.train.CheckpointOptions(eagertape_format="tensorflow")}


def fill(variables, rs):
    for v in variables:
        value = np.asarray(v.numpy())
        if value.dtype.kind == "f":
            v.assign(np.asarray(rs.randn(*value.shape) * 0.5).astype(value.dtype))


def adam_step(model, opt, x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(x) ** 2)
    variables = model.trainable_variables
    opt.apply_gradients(zip(tape.gradient(loss, variables), variables))


class Blocks(keras.Model):
    def __init__(self):
        super().__init__()
        self.blocks = [keras.layers.Dense(3), keras.layers.Dense(3)]
        self.named = {"head": keras.layers.Dense(1)}
        self.pair = (keras.layers.Dense(1),)
        self.scale = tf.Variable(1.5)
        self.extra = tf.Module()
        self.extra.w = tf.Variable([1.0, 2.0])
    def call(self, x):
        x = self.blocks[1](self.blocks[0](x))
        return (self.named["head"](x) + self.pair[0](x)) * self.scale


class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.l1 = keras.layers.Dense(5)
    def call(self, x):
        return self.l1(x)


def sequential():
    return keras.Sequential([keras.Input((2,)), keras.layers.Dense(3),
                             keras.layers.BatchNormalization(), keras.layers.Dense(1)])


def functional():
    inp = keras.Input((2,))
    return keras.Model(inp, keras.layers.Dense(1)(keras.layers.Dense(3, name="h")(inp)))


def make(seed, built=True):
    """{case: Checkpoint keyword arguments}, every weight drawn from ``seed``."""
    rs = np.random.RandomState(seed)
    x = tf.constant(np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(3, 2))
    cases = {}
    dense = keras.layers.Dense(3)
    dense.build((None, 2))
    cases["dense"] = {"l": dense}
    cases["sequential"] = {"m": sequential()}
    cases["functional"] = {"m": functional()}
    blocks = Blocks()
    blocks(x)
    cases["subclassed"] = {"model": blocks}
    net, opt = Net(), keras.optimizers.Adam(0.1)
    net(x)
    fill(net.variables, rs)
    adam_step(net, opt, x)
    # (the checkpoint guide's: kwargs in another order than TF's, which sorts them)
    cases["optimizer"] = {"step": tf.Variable(3), "optimizer": opt, "net": net}
    module = tf.Module()
    module.model, module.v = functional(), tf.Variable(2.0)
    fill(list(module.model.variables) + [module.v], rs)
    cases["in_module"] = {"root": module}
    compiled = sequential()
    compiled.compile(optimizer=keras.optimizers.SGD(0.1, momentum=0.9), loss="mse")
    fill(compiled.variables, rs)
    compiled.train_on_batch(x, tf.ones((3, 1)))
    cases["compiled"] = {"m": compiled}
    for name, kwargs in cases.items():
        if name not in ("optimizer", "compiled", "in_module"):
            fill(_variables(kwargs), rs)
    return cases


def _variables(kwargs):
    out = []
    for obj in kwargs.values():
        out += list(obj.variables) if hasattr(obj, "variables") else [obj]
    return out


def listing(path):
    return [[k, s] for k, s in tf.train.list_variables(path)]


def values(path):
    r = tf.train.load_checkpoint(path)
    return {k: np.asarray(r.get_tensor(k)).tolist() for k in r.get_variable_to_shape_map()
            if k.endswith("/.ATTRIBUTES/VARIABLE_VALUE")}


def statuses(st):
    got = []
    for m in ("assert_consumed", "assert_existing_objects_matched", "assert_nontrivial_match"):
        try:
            getattr(st, m)()
            got.append("ok")
        except AssertionError:
            got.append("AssertionError")
    return got


def restored(source, target, **write):
    """Fresh objects (other values) restore ``source``; written again to ``target``:
    (the statuses, the values by key)."""
    out = {}
    for name, kwargs in make(seed=1).items():
        st = tf.train.Checkpoint(**kwargs).read(os.path.join(d, f"{source}_{name}"))
        path = tf.train.Checkpoint(**kwargs).write(os.path.join(d, f"{target}_{name}"), **write)
        out[name] = [statuses(st), values(path)]
    return out


def deferred(source):
    """Restores into objects not built yet: a Dense built after, an optimizer built
    after (its slots made then): the values by key once built."""
    x = tf.constant(np.ones((1, 2), np.float32))
    dense = keras.layers.Dense(3)
    st = tf.train.Checkpoint(l=dense).read(os.path.join(d, f"{source}_dense"))
    before = statuses(st)
    dense.build((None, 2))
    out = {"dense": [before, statuses(st), values(tf.train.Checkpoint(l=dense).write(
        os.path.join(d, f"{source}_deferred_dense")))]}
    net, opt = Net(), keras.optimizers.Adam(0.1)
    net(x)
    kwargs = {"step": tf.Variable(0), "optimizer": opt, "net": net}
    st = tf.train.Checkpoint(**kwargs).read(os.path.join(d, f"{source}_optimizer"))
    before = statuses(st)
    opt.build(net.trainable_variables)
    out["optimizer"] = [before, statuses(st), values(tf.train.Checkpoint(**kwargs).write(
        os.path.join(d, f"{source}_deferred_optimizer")))]
    return out


out = {}
if step == "write":
    it = iter(tf.data.Dataset.range(10).batch(2))
    next(it)
    out["iterator"] = [k for k, _ in listing(tf.train.Checkpoint(it=it).write(
        os.path.join(d, f"{side}_iterator")))]
    own = "tf" if side == "tf" else "et"
    for name, kwargs in make(seed=0).items():
        path = tf.train.Checkpoint(**kwargs).write(os.path.join(d, f"{own}_{name}"))
        out[name] = {"list": listing(path), "values": values(path)}
        if side == "eagertape":
            path = tf.train.Checkpoint(**kwargs).write(os.path.join(d, f"etf_{name}"),
                                                       **TF_FORMAT)
            out[name]["tf_format"] = {"list": listing(path), "values": values(path)}
    if side == "tf":
        out["restored_own"] = restored("tf", "tf_own")
        out["restored_et"] = restored("etf", "tf_from_et")
        out["deferred_own"] = deferred("tf")
        out["deferred_et"] = deferred("etf")
else:
    out["restored_tf"] = restored("tf", "et_from_tf")
    out["restored_own"] = restored("et", "et_own")
    out["deferred_tf"] = deferred("tf")
    out["deferred_own"] = deferred("et")
print("RESULT", json.dumps(out))
'''


def _run(side, step, d):
    env = {k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"}
    env["PYTHONPATH"] = os.pathsep.join([_ROOT] + [p for p in [env.get("PYTHONPATH")] if p])
    p = subprocess.run([sys.executable, "-c", _PROGRAM, side, step, str(d)], capture_output=True,
                       text=True, timeout=900,
                       env=dict(env, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES=""))
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    assert p.returncode == 0 and lines, p.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT "):])


_CASES = ("dense", "sequential", "functional", "subclassed", "optimizer", "in_module",
          "compiled")

# What the keys look like (a few of TF's, so that a comparison of empty lists fails)
_TF_KEYS = {
    "dense": ["l/_kernel", "l/bias"],
    "sequential": ["m/_functional/_operations/1/_kernel", "m/_functional/_operations/2/gamma",
                   "m/_functional/_operations/3/bias"],
    "functional": ["m/_operations/1/_kernel", "m/_operations/2/bias"],
    "subclassed": ["model/scale", "model/extra/w", "model/pair/0/_kernel"],
    "optimizer": ["net/l1/_kernel", "optimizer/_iterations", "optimizer/_learning_rate",
                  "optimizer/_variables/2", "optimizer/_variables/5", "step"],
    "in_module": ["model/_operations/1/_kernel", "v"],      # root=: the module's own
    "compiled": ["m/optimizer/_trainable_variables/0", "m/optimizer/_variables/2",
                 "m/_functional/_operations/2/moving_mean"],
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("keras_keys")
    et_written = _run("eagertape", "write", d)
    tf_out = _run("tf", "write", d)       # restores eagertape's TF-format checkpoints
    et_read = _run("eagertape", "read", d)
    return tf_out, et_written, et_read


def _keys(listing):
    return [k for k, _ in listing]


def test_keys_are_tfs(runs):
    tf_out, et, _ = runs
    for case in _CASES:
        want = tf_out[case]["list"]
        for key in _TF_KEYS[case]:
            assert [key + "/.ATTRIBUTES/VARIABLE_VALUE", ] == [
                k for k in _keys(want) if k == key + "/.ATTRIBUTES/VARIABLE_VALUE"], (case, key)
        assert et[case]["list"] == want, case                   # eagertape's own format
        assert et[case]["tf_format"]["list"] == want, case      # and TF's bundle
    # a tf.data iterator: TF's key (its value is eagertape's own state)
    assert et["iterator"] == tf_out["iterator"] == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "it/.ATTRIBUTES/ITERATOR_STATE"]


def test_saved_values_are_tfs(runs):
    tf_out, et, _ = runs
    for case in _CASES:
        want = tf_out[case]["values"]
        for got in (et[case]["values"], et[case]["tf_format"]["values"]):
            assert got.keys() == want.keys(), case
            for key in want:
                np.testing.assert_allclose(got[key], want[key], rtol=2e-5, atol=2e-6,
                                           err_msg=f"{case}: {key}")
    # the Keras optimizer's step count: TF's int64 in TF's format
    assert et["optimizer"]["tf_format"]["list"] == tf_out["optimizer"]["list"]


def _same_values(got, want, where):
    assert got.keys() == want.keys(), where
    for key in want:
        assert np.array_equal(np.asarray(got[key]), np.asarray(want[key])), f"{where}: {key}"


def test_tf_restores_eagertapes_checkpoints(runs):
    tf_out, et, _ = runs
    for case in _CASES:
        status, restored = tf_out["restored_et"][case]
        assert status == tf_out["restored_own"][case][0], case     # as on TF's own
        _same_values(restored, et[case]["tf_format"]["values"], f"TF from eagertape {case}")
    for case in ("dense", "optimizer"):
        status, after, restored = tf_out["deferred_et"][case]
        assert [status, after] == tf_out["deferred_own"][case][:2], case
        _same_values(restored, et[case]["tf_format"]["values"], f"TF from eagertape, {case}")


def test_eagertape_restores_tfs_checkpoints(runs):
    tf_out, et, et_read = runs
    for case in _CASES:
        status, restored = et_read["restored_tf"][case]
        assert status == tf_out["restored_own"][case][0], case
        _same_values(restored, tf_out[case]["values"], f"eagertape from TF {case}")
        status, restored = et_read["restored_own"][case]
        assert status == tf_out["restored_own"][case][0], case
        _same_values(restored, et[case]["values"], f"eagertape from eagertape {case}")


def test_restores_into_objects_built_later(runs):
    # A Dense built after the restore; an optimizer built after it (its slots' values
    # wait for them, as in TF). eagertape's own format builds a Keras optimizer at
    # the restore where the variables it was built for exist (assert_consumed passes
    # at once; TF's waits for the build): its statuses are compared after the build.
    tf_out, et, et_read = runs
    for case in ("dense", "optimizer"):
        want_status = tf_out["deferred_own"][case][:2]
        assert want_status[0] == ["AssertionError", "ok", "ok"], case
        _same_values(tf_out["deferred_own"][case][2], tf_out[case]["values"], f"TF, {case}")
        got = et_read["deferred_tf"][case]
        assert got[:2] == want_status, case
        _same_values(got[2], tf_out[case]["values"], f"eagertape from TF's, {case}")
        got = et_read["deferred_own"][case]
        assert got[1] == want_status[1], case
        _same_values(got[2], et[case]["values"], f"eagertape from its own, {case}")
    assert et_read["deferred_own"]["dense"][0] == ["AssertionError", "ok", "ok"]
