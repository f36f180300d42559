"""``tf.saved_model.save``/``load`` and Keras's ``model.export`` under ``eagertape.tf``.

The round trip with real TensorFlow: a program exports SavedModels through
``eagertape.tf`` (a ``tf.Module`` whose ``tf.function``\\ s have input signatures,
concrete functions given as ``signatures=``, a Keras model's ``export``) and
records what each computes; a second program, in TensorFlow, loads them with
``tf.saved_model.load`` and calls the functions, the signatures (as TF Serving
does) and their gradients; the answers are compared. Each runs in a process of
its own (Keras has one backend a process). The tests after those need no
TensorFlow, or only to be told it is missing.
"""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import eagertape.tf as tf
import program_server

_EXPORT = r'''
import json, os, sys
import numpy as np
import eagertape.tf as tf
d = sys.argv[1]
out = {}
rs = np.random.RandomState(0)
x = rs.randn(5, 4).astype("float32")

class Dense(tf.Module):
    def __init__(self, i, o):
        super().__init__()
        self.w = tf.Variable(rs.randn(i, o).astype("float32"))
        self.b = tf.Variable(rs.randn(o).astype("float32"))
    def __call__(self, x):
        return tf.nn.softplus(tf.matmul(x, self.w) + self.b)

class MLP(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(4, 8), Dense(8, 3)]
        self.scale = tf.Variable(2.0, trainable=False)
        self.calls = tf.Variable(0, dtype=tf.int64, trainable=False)
    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x * self.scale
    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32),
                                  tf.TensorSpec([], tf.int64)])
    def both(self, x, k):
        self.calls.assign_add(k)
        y = self(x)
        if tf.reduce_sum(y) > 0:
            total = tf.reduce_sum(y)
        else:
            total = -tf.reduce_sum(y)
        return {"y": y, "total": total, "calls": self.calls}
    @tf.function
    def never_exported(self, x):
        return x

m = MLP()
m.layers[0].w.assign(m.layers[0].w * 0.5)       # the values at save time are the SavedModel's
tf.saved_model.save(m, os.path.join(d, "mlp"),
                    signatures={"serving_default": m.__call__, "both": m.both})
tf.saved_model.save(m, os.path.join(d, "mlp_default"))     # two functions: no default (TF's rule)
xt = tf.constant(x)
with tf.GradientTape() as tape:
    tape.watch(xt)
    y = m(xt)
    s = tf.reduce_sum(y * y)
out["mlp"] = {"call": y.numpy().tolist(), "grad": tape.gradient(s, xt).numpy().tolist(),
              "call_3": m(x[:3]).numpy().tolist()}
b = m.both(x, np.int64(3))
out["mlp"]["both"] = {k: np.asarray(v).tolist() for k, v in b.items()}

# What eagertape's own load gives, without TensorFlow.
loaded = tf.saved_model.load(os.path.join(d, "mlp"))
with tf.GradientTape() as tape:
    tape.watch(xt)
    y2 = loaded(xt)
    s2 = tf.reduce_sum(y2 * y2)
out["mlp_eagertape_load"] = {
    "call": y2.numpy().tolist(), "grad": tape.gradient(s2, xt).numpy().tolist(),
    "signatures": sorted(loaded.signatures),
    "serving": {k: v.numpy().tolist()
                for k, v in loaded.signatures["serving_default"](x=xt).items()},
    "both": {k: np.asarray(v).tolist() for k, v in loaded.both(x, np.int64(3)).items()},
    "scale": float(loaded.scale.numpy()), "w0": loaded.layers[0].w.numpy().tolist()}

# Concrete functions as signatures, Python arguments fixed in them.
class Pow(tf.Module):
    def __init__(self):
        super().__init__()
        self.k = tf.Variable(3.0)
        self.n = tf.Variable(3)
    @tf.function
    def power(self, x, p=2):
        return {"out": x ** p * self.k}
    # Exported with the signatures it was traced with before the save (TF's traces).
    @tf.function
    def multiply(self, x):
        return x * self.n
    # An unknown rank: exported for ranks 0 to 4.
    @tf.function(input_signature=[tf.TensorSpec(None)])
    def any_rank(self, x):
        return tf.reduce_sum(x * x * self.k)
    # Any sizes whose product 6 divides (JAX's constraint), as TF's graph takes.
    @tf.function(input_signature=[tf.TensorSpec([None, None, None], tf.uint8)])
    def rows(self, x):
        return tf.reduce_sum(tf.cast(tf.reshape(x, [-1, 6]), tf.float32), axis=1)
pm = Pow()
traced = {"int3": pm.multiply(tf.constant([1, 2, 3])).numpy().tolist(),
          "int22": pm.multiply(tf.constant([[1, 2], [3, 4]])).numpy().tolist(),
          "p3": pm.power(tf.constant([1.0, 2.0]), p=3)["out"].numpy().tolist()}
tf.saved_model.save(pm, os.path.join(d, "pow"), signatures={
    "cube": pm.power.get_concrete_function(tf.TensorSpec([None], tf.float32), p=3),
    "serving_default": pm.power.get_concrete_function(tf.TensorSpec([2], tf.float32))})
out["pow"] = {"cube": pm.power(tf.constant([1.0, 2.0, 3.0]), p=3)["out"].numpy().tolist(),
              "square": pm.power(tf.constant([1.5, 2.0]))["out"].numpy().tolist()}
CALLS = """
def traced_calls(m, tf, np):
    out = {"int3": m.multiply(tf.constant([1, 2, 3])).numpy().tolist(),
           "int22": m.multiply(tf.constant([[1, 2], [3, 4]])).numpy().tolist(),
           "p3": m.power(tf.constant([1.0, 2.0]), p=3)["out"].numpy().tolist(),
           "p3_positional": m.power(tf.constant([1.0, 2.0]), 3)["out"].numpy().tolist(),
           "rank0": float(m.any_rank(tf.constant(2.0))),
           "rank3": float(m.any_rank(tf.ones([2, 1, 3]))),
           "rows": m.rows(np.arange(12, dtype=np.uint8).reshape(2, 3, 2)).numpy().tolist(),
           "rows_4_1_3": m.rows(np.ones((4, 1, 3), np.uint8)).numpy().tolist()}
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = m.any_rank(v * v)
    out["rank0_grad"] = float(tape.gradient(y, v))
    for name, call in (("other_dtype", lambda: m.multiply(tf.constant([1.0]))),
                       ("other_shape", lambda: m.multiply(tf.constant([1, 2]))),
                       ("rank5", lambda: m.any_rank(tf.ones([1] * 5))),
                       ("not_divisible", lambda: m.rows(np.ones((4, 1, 5), np.uint8)))):
        try:
            call()
            out[name] = "ok"
        except Exception as e:
            out[name] = [type(e).__name__, str(e).splitlines()[0]]
    return out
"""
exec(CALLS)
out["traced"] = traced
out["traced_eagertape_load"] = traced_calls(tf.saved_model.load(os.path.join(d, "pow")), tf, np)
with open(os.path.join(d, "calls.py"), "w") as f:
    f.write(CALLS)

# A Keras model's export: Keras's endpoint `serve`, in inference mode.
keras = tf.keras
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(6, activation="tanh"),
                          keras.layers.BatchNormalization(), keras.layers.Dropout(0.5),
                          keras.layers.Dense(2)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, rs.randn(5, 2).astype("float32"), epochs=2, verbose=0)
model.export(os.path.join(d, "keras"))
tf.saved_model.save(model, os.path.join(d, "keras_saved"))    # TF's Keras default signature
out["keras"] = {"serve": model(x, training=False).numpy().tolist(),
                "n_variables": len(model.variables),
                "n_trainable": len(model.trainable_variables)}
np.save(os.path.join(d, "x.npy"), x)
print("RESULT", json.dumps(out))
'''

_LOAD = r'''
import json, os, sys
import numpy as np
import tensorflow as tf
d = sys.argv[1]
x = np.load(os.path.join(d, "x.npy"))
out = {}
m = tf.saved_model.load(os.path.join(d, "mlp"))
xt = tf.constant(x)
with tf.GradientTape() as tape:
    tape.watch(xt)
    y = m(xt)
    s = tf.reduce_sum(y * y)
serving = m.signatures["serving_default"]
both_sig = m.signatures["both"]
out["mlp"] = {"call": y.numpy().tolist(), "grad": tape.gradient(s, xt).numpy().tolist(),
              "call_3": m(x[:3]).numpy().tolist(),
              "both": {k: np.asarray(v).tolist() for k, v in m.both(x, np.int64(3)).items()},
              "signatures": sorted(m.signatures),
              "serving_inputs": sorted(serving.structured_input_signature[1]),
              "serving": {k: v.numpy().tolist() for k, v in serving(x=xt).items()},
              "both_inputs": sorted(both_sig.structured_input_signature[1]),
              "both_outputs": sorted(both_sig.structured_outputs),
              "default_signatures": sorted(tf.saved_model.load(
                  os.path.join(d, "mlp_default")).signatures),
              "scale": float(m.scale.numpy()), "w0": m.layers[0].w.numpy().tolist(),
              "has_never_exported": hasattr(m, "never_exported")}
p = tf.saved_model.load(os.path.join(d, "pow"))
out["pow"] = {"signatures": sorted(p.signatures),
              "cube": p.signatures["cube"](x=tf.constant([1.0, 2.0, 3.0]))["out"].numpy().tolist(),
              "square": p.signatures["serving_default"](x=tf.constant([1.5, 2.0]))["out"]
              .numpy().tolist()}
exec(open(os.path.join(d, "calls.py")).read())
out["traced"] = traced_calls(p, tf, np)
k = tf.saved_model.load(os.path.join(d, "keras"))
out["keras"] = {"serve": k.serve(x).numpy().tolist(), "n_variables": len(k.variables),
                "n_trainable": len(k.trainable_variables),
                "signatures": sorted(k.signatures),
                "serving": [v.numpy().tolist() for v in
                            k.signatures["serving_default"](**{
                                list(k.signatures["serving_default"]
                                     .structured_input_signature[1])[0]: tf.constant(x)})
                            .values()]}
ks = tf.saved_model.load(os.path.join(d, "keras_saved"))
out["keras_saved"] = {"signatures": sorted(ks.signatures),
                      "serving": [v.numpy().tolist() for v in
                                  ks.signatures["serving_default"](**{
                                      list(ks.signatures["serving_default"]
                                           .structured_input_signature[1])[0]: tf.constant(x)})
                                  .values()]}
print("RESULT", json.dumps(out))
'''


def _env(extra=None):
    # The execution mode named, not inherited: the module-scoped round trip is made
    # before the per-test fixture sets the variable, so it would run in whichever
    # mode the worker's previous test left there (tests/conftest.py).
    return dict({k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"},
                TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="",
                EAGERTAPE_EXECUTION_MODE="eager", **(extra or {}))


def _result(p):
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    assert p.returncode == 0 and lines, p.stderr[-4000:]
    return json.loads(lines[-1][len("RESULT "):]), p.stdout


def _python(code, *args, env=None):
    # A file, not -c: AutoGraph converts the functions whose source it can read.
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix="_program.py", delete=False) as f:
        f.write(code)
    p = subprocess.run([sys.executable, f.name, *map(str, args)], capture_output=True,
                       text=True, timeout=900, env=_env(env))
    os.unlink(f.name)
    return _result(p)


# The round trip's programs as children of tests/program_server.py's servers (the same
# program, environment and files; the imports paid once): the eagertape program forked
# from a server that has imported the facade and Keras, each SavedModel it writes
# written by a child of one that has imported TensorFlow (what eagertape's writer
# imports), and TensorFlow's programs children of that one too. That was six
# `import tensorflow`s (7 s of CPU each) and an `import eagertape.tf`; the writer's own
# process start is `test_the_core_api_quickstart_exports_what_tensorflow_serves`'s.
_WRITER = "EAGERTAPE_TEST_SAVED_MODEL_WRITER"


def _eagertape_program(code, *args):
    if not program_server.enabled():
        return _python(code, *args)
    import tempfile
    env = _env()
    env[_WRITER] = program_server.saved_model_writer(env)
    preload = program_server.with_saved_model_writer(
        "import json, numpy, eagertape.tf as tf; tf.keras.layers", _WRITER)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "round_trip_program.py")
        with open(path, "w") as f:
            f.write(code)
        return _result(program_server.run(
            f"exec(compile(open({path!r}).read(), {path!r}, 'exec'))",
            [str(a) for a in args], preload=preload, env=env, timeout=900))


def _tensorflow_program(code, *args):
    if not program_server.enabled():
        return _python(code, *args)
    env = _env()
    return _result(program_server.run_at(program_server.saved_model_writer(env), code,
                                         [str(a) for a in args], env=env, timeout=900))


@pytest.fixture(scope="module")
def round_trip(tmp_path_factory):
    for name in ("tensorflow", "keras"):
        if importlib.util.find_spec(name) is None:
            pytest.skip(f"{name} is not installed")
    # Made once for all the workers of pytest-xdist (their temporary folders share a
    # parent, the run's own): a worker that comes second waits for the first's results
    # and reads them, rather than running the two programs again beside it. Without
    # xdist the parent is every run's (pytest-of-USER): the run's own folder then.
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) \
        / "saved_model_round_trip"
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w") as lock:
        try:
            import fcntl
            fcntl.flock(lock, fcntl.LOCK_EX)
        except ImportError:       # (no fcntl: each worker runs its own)
            shared = tmp_path_factory.mktemp("saved_models")
        done = shared / "results.json"
        if not done.exists():
            mine, printed = _eagertape_program(_EXPORT, shared)
            theirs, _ = _tensorflow_program(_LOAD, shared)
            done.write_text(json.dumps([mine, theirs, printed]))
        mine, theirs, printed = json.loads(done.read_text())
    return mine, theirs, printed, shared


def _close(a, b, **kw):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64),
                               rtol=kw.get("rtol", 1e-5), atol=kw.get("atol", 1e-6))


@pytest.mark.subprocess
def test_tensorflow_loads_and_serves_a_module_eagertape_saved(round_trip):
    mine, theirs, _, _ = round_trip
    got, want = theirs["mlp"], mine["mlp"]
    for key in ("call", "grad", "call_3"):
        _close(got[key], want[key])
    assert got["both"].keys() == want["both"].keys() == {"y", "total", "calls"}
    for key in want["both"]:
        _close(got["both"][key], want["both"][key])
    assert got["both"]["calls"] == 3          # the counter's saved value (0), assigned by TF
    assert got["signatures"] == ["both", "serving_default"] and got["serving_inputs"] == ["x"]
    assert got["both_inputs"] == ["k", "x"] and got["both_outputs"] == ["calls", "total", "y"]
    # TF's rule without signatures=: the root's one function with an input_signature
    # (here two: none; the quickstart's test has one).
    assert got["default_signatures"] == []
    assert list(got["serving"]) == ["output_0"]
    _close(got["serving"]["output_0"], want["call"])
    assert got["w0"] == mine["mlp_eagertape_load"]["w0"] and got["scale"] == 2.0
    assert got["has_never_exported"] is False      # no input_signature, never traced


@pytest.mark.subprocess
def test_eagertapes_own_load_computes_and_differentiates_what_it_saved(round_trip):
    mine, theirs, _, _ = round_trip
    got = mine["mlp_eagertape_load"]
    for key in ("call", "grad"):
        _close(got[key], mine["mlp"][key])
    assert got["signatures"] == theirs["mlp"]["signatures"]
    assert got["serving"].keys() == theirs["mlp"]["serving"].keys()
    _close(got["serving"]["output_0"], theirs["mlp"]["serving"]["output_0"])
    for key in got["both"]:
        _close(got["both"][key], theirs["mlp"]["both"][key])


@pytest.mark.subprocess
def test_concrete_functions_given_as_signatures(round_trip):
    mine, theirs, _, _ = round_trip
    assert theirs["pow"]["signatures"] == ["cube", "serving_default"]
    _close(theirs["pow"]["cube"], mine["pow"]["cube"])
    _close(theirs["pow"]["square"], mine["pow"]["square"])
    assert mine["pow"]["cube"] == [3.0, 24.0, 81.0]


@pytest.mark.subprocess
def test_traced_functions_and_unknown_ranks_are_exported_as_tensorflow_saves_them(round_trip):
    mine, theirs, _, _ = round_trip
    want = mine["traced"]
    assert want == {"int3": [3, 6, 9], "int22": [[3, 6], [9, 12]], "p3": [3.0, 24.0]}
    for got in (theirs["traced"], mine["traced_eagertape_load"]):
        for key in want:
            assert got[key] == want[key], key
        assert got["p3_positional"] == want["p3"]
        assert got["rank0"] == 12.0 and got["rank3"] == 18.0
        assert got["rank0_grad"] == 96.0          # d(3 * v**4)/dv at v = 2
        assert got["rows"] == [15.0, 51.0] and got["rows_4_1_3"] == [6.0, 6.0]
        assert got["not_divisible"] != "ok"
    message = ["ValueError", "Could not find matching concrete function to call loaded from "
               "the SavedModel. Got:"]
    for key in ("other_dtype", "other_shape", "rank5"):
        assert theirs["traced"][key] == mine["traced_eagertape_load"][key] == message, key


@pytest.mark.subprocess
def test_keras_model_export_is_kerass_artifact(round_trip):
    mine, theirs, printed, _ = round_trip
    _close(theirs["keras"]["serve"], mine["keras"]["serve"])
    assert theirs["keras"]["signatures"] == ["serve", "serving_default"]
    _close(theirs["keras"]["serving"][0], mine["keras"]["serve"])
    # Keras's lists: the model's weights and its Dropout's seed state.
    assert theirs["keras"]["n_variables"] == mine["keras"]["n_variables"] == 9
    assert theirs["keras"]["n_trainable"] == mine["keras"]["n_trainable"] == 6
    assert "Saved artifact at '" in printed and "* Endpoint 'serve'" in printed
    # tf.saved_model.save of the model: TF's Keras gives it a default signature.
    assert theirs["keras_saved"]["signatures"] == ["serving_default"]
    _close(theirs["keras_saved"]["serving"][0], mine["keras"]["serve"])


@pytest.mark.subprocess
def test_the_program_process_never_imports_tensorflow(round_trip):
    _, _, printed, d = round_trip
    code = ("import sys, os, eagertape.tf as tf\n"
            "m = tf.saved_model.load(os.path.join(sys.argv[1], 'mlp'))\n"
            "import json\n"
            "print('RESULT', json.dumps([m(tf.ones([2, 4])).shape.as_list(), "
            "'tensorflow' in sys.modules]))")
    result, _ = _python(code, d)
    assert result == [[2, 3], False]


# -- without TensorFlow (or told it is missing) -------------------------------------

def test_a_missing_tensorflow_is_named_with_the_extra_to_install(tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "tensorflow" else real(name, *a))
    m = tf.Module()
    m.v = tf.Variable(1.0)
    with pytest.raises(ImportError, match=r"pip install 'eagertape\[saved_model\]'"):
        tf.saved_model.save(m, tmp_path / "m")
    assert not os.listdir(tmp_path)


def test_a_failed_export_leaves_nothing(tmp_path, monkeypatch):
    from eagertape.tf import saved_model

    def fails(work, out):
        os.makedirs(out)
        open(os.path.join(out, "saved_model.pb"), "w").close()
        raise RuntimeError("TensorFlow could not write the SavedModel")
    monkeypatch.setattr(saved_model, "_run_tensorflow", fails)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object())

    class M(tf.Module):
        def __init__(self):
            self.v = tf.Variable([1.0, 2.0])

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def __call__(self, x):
            return x * self.v
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "keep").write_text("the last good export")
    with pytest.raises(RuntimeError, match="could not write"):
        tf.saved_model.save(M(), tmp_path / "old")
    assert sorted(os.listdir(tmp_path)) == ["old"]
    assert (tmp_path / "old" / "keep").read_text() == "the last good export"


def test_loading_a_saved_model_tensorflow_wrote_says_what_to_do(tmp_path):
    (tmp_path / "saved_model.pb").write_bytes(b"\x08\x01")
    with pytest.raises(ValueError, match="eagertape did not write.*Load it with TensorFlow"):
        tf.saved_model.load(tmp_path)
    with pytest.raises(tf.errors.NotFoundError, match="Could not find SavedModel"):
        tf.saved_model.load(tmp_path / "nothing")
    assert tf.saved_model.contains_saved_model(tmp_path)
    assert not tf.saved_model.contains_saved_model(tmp_path / "nothing")


def test_signatures_must_have_an_input_signature(tmp_path, monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object())
    m = tf.Module()
    m.f = tf.function(lambda x: x)
    with pytest.raises(ValueError, match=r"argument `signatures`\['serving_default'\] must be"):
        tf.saved_model.save(m, tmp_path / "m", signatures=m.f)


def test_a_reshape_of_any_sizes_is_exported_for_the_sizes_that_divide():
    # JAX cannot divide d0*d1*d2 by 6 for every size: the export asks that 6 divide
    # it (JAX's constraint, checked at each call), as TF's graph takes any such sizes,
    # rather than fixing one size.
    import jax
    from eagertape.tf import saved_model

    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, None, None], tf.uint8)])
        def rows(self, x):
            return tf.reduce_sum(tf.cast(tf.reshape(x, [-1, 6]), tf.float32), axis=1)
    m = M()
    entry = saved_model._Export(m, gradients=False).functions[0]
    assert entry["polymorphic"] == ["(d0, d1, d2)"]
    assert entry["constraints"] == ["mod(d0*d1*d2, - 6) == 0"]
    exported = jax.export.deserialize(bytearray(entry["blob"]))
    for shape in [(2, 3, 2), (4, 1, 3), (1, 6, 5)]:
        x = np.arange(np.prod(shape), dtype=np.uint8).reshape(shape)
        arrays, _ = exported.call([], [x])
        np.testing.assert_array_equal(arrays[0], x.reshape(-1, 6).astype(np.float32).sum(1))
    with pytest.raises(Exception, match="mod"):
        exported.call([], [np.ones((4, 1, 5), np.uint8)])
    # (A signature of unknown rank is exported once per rank since the twelfth
    # session: tests/test_saved_model_dynamic.py.)


def test_tensorflows_constants():
    assert tf.saved_model.SERVING == "serve"
    assert tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY == "serving_default"
    assert tf.saved_model.PREDICT_METHOD_NAME == "tensorflow/serving/predict"


_SERVE = r'''
import json, os, sys
import numpy as np
import tensorflow as tf
path = sys.argv[1]
x = np.load(os.path.join(os.path.dirname(path), "x_test.npy"))
m = tf.saved_model.load(path)
serving = m.signatures["serving_default"]
out = {"call": m(x).numpy().tolist(), "signatures": sorted(m.signatures),
       "serving": {k: v.numpy().tolist() for k, v in serving(x=tf.constant(x)).items()},
       "inputs": {k: [s.shape.as_list(), s.dtype.name]
                  for k, s in serving.structured_input_signature[1].items()}}
try:
    m(x[:, :5])
    out["other_width"] = "ok"
except Exception as e:
    out["other_width"] = type(e).__name__
print("RESULT", json.dumps(out))
'''


@pytest.mark.subprocess
def test_the_core_api_quickstart_exports_what_tensorflow_serves(tmp_path):
    # TF's guide "Quickstart for the Core APIs" (examples/core_api_quickstart.py):
    # trained and exported by eagertape, loaded and served by TensorFlow.
    for name in ("tensorflow", "orbax.checkpoint"):
        if importlib.util.find_spec(name) is None:
            pytest.skip(f"{name} is not installed")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict({k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"},
               PYTHONPATH=os.pathsep.join([root] + [p for p in [os.environ.get("PYTHONPATH")]
                                                   if p]),
               TMPDIR=str(tmp_path), TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    p = subprocess.run([sys.executable, os.path.join(root, "examples", "core_api_quickstart.py")],
                       capture_output=True, text=True, timeout=900, env=env, cwd=root)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-4000:]
    assert "largest difference from the trained model: 0.0" in p.stdout, p.stdout
    final = [float(ln.split(":")[1]) for ln in p.stdout.splitlines()
             if ln.startswith("Final train loss")]
    assert final and final[0] < 0.5        # normalised MSE: the regression was learnt
    path = [ln.split(": ", 1)[1] for ln in p.stdout.splitlines()
            if ln.startswith("saved model: ")][0]
    theirs, _ = _tensorflow_program(_SERVE, path)
    mine = np.load(os.path.join(os.path.dirname(path), "test_preds.npy"))
    _close(theirs["call"], mine, rtol=1e-5, atol=1e-4)
    assert theirs["signatures"] == ["serving_default"]
    assert theirs["inputs"] == {"x": [[None, None], "float32"]}
    assert list(theirs["serving"]) == ["output_0"]
    _close(theirs["serving"]["output_0"], mine, rtol=1e-5, atol=1e-4)
    # 5 features where the model was trained on 7: refused when called (TF's own
    # graph would fail at its broadcast too).
    assert theirs["other_width"] != "ok"
