"""tf.lite: eagertape's models converted by TF's converter (census image_classification).

eagertape writes each model as a SavedModel (jax2tf's XlaCallModule ops) and TF's own
converter makes the flatbuffer; LiteRT's interpreter runs it. TensorFlow, in a
subprocess, builds the same models with the same weights and converts them itself:
the outputs of eagertape's .tflite are TF's .tflite's and the model's own, and the
signature lists are TF's. Covered: a Keras CNN (from_keras_model), a tf.Module's
concrete function with its object (from_concrete_functions), a SavedModel written by
eagertape converted with dynamic-range and full-integer quantization (a
representative dataset drawn here and replayed to TF), and bad input.
"""
import inspect
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tf_oracle

tf_oracle.require("tensorflow")
tf_oracle.require("ai_edge_litert")

import eagertape.tf as tf  # noqa: E402

_RNG = np.random.default_rng(7)
_CONV = (_RNG.normal(size=(3, 3, 3, 4)) * 0.3).astype(np.float32)
_CONV_B = (_RNG.normal(size=(4,)) * 0.1).astype(np.float32)
_DENSE = (_RNG.normal(size=(4 * 4 * 4, 5)) * 0.3).astype(np.float32)
_DENSE_B = (_RNG.normal(size=(5,)) * 0.1).astype(np.float32)
_IMAGES = _RNG.uniform(0, 255, size=(2, 8, 8, 3)).astype(np.float32)
_W = (_RNG.normal(size=(3, 2))).astype(np.float32)
_X = _RNG.normal(size=(4, 3)).astype(np.float32)
_SAMPLES = _RNG.normal(size=(8, 1, 3)).astype(np.float32)


def _keras_model(keras):
    """The census's model in small: Rescaling, Conv2D, pooling, Dropout, Dense."""
    layers = keras.layers
    model = keras.Sequential([
        keras.Input((8, 8, 3)), layers.Rescaling(1. / 255),
        layers.Conv2D(4, 3, padding="same", activation="relu"), layers.MaxPooling2D(),
        layers.Dropout(0.5), layers.Flatten(), layers.Dense(5)])
    model.layers[1].set_weights([_CONV, _CONV_B])
    model.layers[-1].set_weights([_DENSE, _DENSE_B])
    return model


def _module(tf):
    class Affine(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(_W)

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
        def __call__(self, x):
            return {"y": tf.nn.tanh(tf.matmul(x, self.w)), "norm": tf.norm(x, axis=1)}
    return Affine()


def _samples():
    for s in _SAMPLES:
        yield [s]


def _run_tflite(content, runs):
    """LiteRT's answers for a flatbuffer: the signature list, and each signature
    runner's outputs for ``runs`` (a list of (key, {input: array}))."""
    from ai_edge_litert.interpreter import Interpreter
    interpreter = Interpreter(model_content=content)
    out = []
    for key, feed in runs:
        got = interpreter.get_signature_runner(key)(**feed)
        out.append({k: np.asarray(v) for k, v in got.items()})
    return interpreter.get_signature_list(), out


# What the TF process builds too: these functions' sources and the arrays they read.
_SHARED = (_keras_model, _module, _samples)
_ARRAYS = {"_CONV": _CONV, "_CONV_B": _CONV_B, "_DENSE": _DENSE, "_DENSE_B": _DENSE_B,
           "_IMAGES": _IMAGES, "_W": _W, "_SAMPLES": _SAMPLES}

_TF_SIDE = textwrap.dedent("""
    import json, os, sys, tempfile
    import numpy as np
    os.environ.pop("KERAS_BACKEND", None)
    import tensorflow as tf, keras
    folder = sys.argv[1]
    t = type(sys)("t")
    t.__dict__.update(np=np, **dict(np.load(os.path.join(folder, "arrays.npz"))))
    exec(open(os.path.join(folder, "models.py")).read(), t.__dict__)
    model = t._keras_model(keras)
    with open(os.path.join(folder, "keras.tflite"), "wb") as f:
        f.write(tf.lite.TFLiteConverter.from_keras_model(model).convert())
    np.save(os.path.join(folder, "keras_model.npy"), np.asarray(model(t._IMAGES)))
    json.dump(model.inputs[0].name, open(os.path.join(folder, "keras_input.json"), "w"))
    m = t._module(tf)
    c = tf.lite.TFLiteConverter.from_concrete_functions(
        [m.__call__.get_concrete_function()], m)
    with open(os.path.join(folder, "concrete.tflite"), "wb") as f:
        f.write(c.convert())
    tf.saved_model.save(m, os.path.join(folder, "sm"))
    for name, full in (("dynamic", False), ("int8", True)):
        c = tf.lite.TFLiteConverter.from_saved_model(os.path.join(folder, "sm"))
        c.optimizations = [tf.lite.Optimize.DEFAULT]
        if full:
            c.representative_dataset = t._samples
        with open(os.path.join(folder, name + ".tflite"), "wb") as f:
            f.write(c.convert())
""")


@pytest.fixture(scope="module")
def tf_models(tmp_path_factory):
    """TF's own flatbuffers of the same models (converted by TF from TF's models)."""
    def compute():
        folder = str(tmp_path_factory.mktemp("tf-lite"))
        np.savez(os.path.join(folder, "arrays.npz"), **_ARRAYS)
        with open(os.path.join(folder, "models.py"), "w") as f:
            f.write("\n\n".join(inspect.getsource(fn) for fn in _SHARED))
        env = dict(os.environ)
        env.pop("KERAS_BACKEND", None)
        env["TF_CPP_MIN_LOG_LEVEL"] = "2"
        p = subprocess.run([sys.executable, "-c", _TF_SIDE, folder], capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr[-3000:]
        out = {}
        for name in ("keras", "concrete", "dynamic", "int8"):
            with open(os.path.join(folder, name + ".tflite"), "rb") as f:
                out[name] = f.read()
        out["keras_model"] = np.load(os.path.join(folder, "keras_model.npy"))
        out["keras_input"] = json.load(open(os.path.join(folder, "keras_input.json")))
        return out
    return tf_oracle.cached("tf-lite-models", [_TF_SIDE, *_SHARED, _ARRAYS], compute)


@pytest.mark.subprocess
def test_keras_model_converts_and_runs_as_tfs(tf_models):
    model = _keras_model(tf.keras)
    content = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    assert content[4:8] == b"TFL3"
    name = model.inputs[0].name
    signatures, (got,) = _run_tflite(content, [("serving_default", {name: _IMAGES})])
    tf_signatures, (want,) = _run_tflite(
        tf_models["keras"], [("serving_default", {tf_models["keras_input"]: _IMAGES})])
    # Keras names the input after a per-process counter; the structure is TF's.
    assert signatures == {"serving_default": {"inputs": [name], "outputs": ["output_0"]}}
    assert tf_signatures == {"serving_default": {"inputs": [tf_models["keras_input"]],
                                                 "outputs": ["output_0"]}}
    np.testing.assert_allclose(got["output_0"], want["output_0"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got["output_0"], tf_models["keras_model"], rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(got["output_0"], np.asarray(model(_IMAGES)), rtol=1e-5,
                               atol=1e-5)
    interpreter = tf.lite.Interpreter(model_content=content)
    runner = interpreter.get_signature_runner("serving_default")
    assert list(runner.get_input_details()[name]["shape_signature"]) == [-1, 8, 8, 3]
    assert list(runner.get_output_details()["output_0"]["shape"]) == [1, 5]


@pytest.mark.subprocess
def test_concrete_function_with_its_object(tf_models):
    m = _module(tf)
    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [m.__call__.get_concrete_function()], m)
    runs = [("serving_default", {"x": _X})]
    signatures, (got,) = _run_tflite(converter.convert(), runs)
    tf_signatures, (want,) = _run_tflite(tf_models["concrete"], runs)
    assert signatures == tf_signatures == {
        "serving_default": {"inputs": ["x"], "outputs": ["norm", "y"]}}
    for k in ("y", "norm"):
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[k], m(_X)[k].numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.subprocess
def test_saved_model_quantized_as_tfs(tf_models, tmp_path):
    m = _module(tf)
    tf.saved_model.save(m, str(tmp_path / "sm"))
    runs = [("serving_default", {"x": _X[:1]})]
    for name, full in (("dynamic", False), ("int8", True)):
        converter = tf.lite.TFLiteConverter.from_saved_model(str(tmp_path / "sm"))
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        if full:
            converter.representative_dataset = tf.lite.RepresentativeDataset(_samples)
        content = converter.convert()
        signatures, (got,) = _run_tflite(content, runs)
        tf_signatures, (want,) = _run_tflite(tf_models[name], runs)
        assert signatures == tf_signatures, name
        for k in ("y", "norm"):
            np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=name)
        # Quantized weights: near the float model's values, not equal to them.
        np.testing.assert_allclose(got["y"], m(_X[:1])["y"].numpy(), atol=0.05)


def test_bad_input(tmp_path, monkeypatch):
    m = _module(tf)
    with pytest.raises(ValueError, match="argument `funcs`.*get_concrete_function"):
        tf.lite.TFLiteConverter.from_concrete_functions([m.__call__], m)
    with pytest.raises(ValueError, match="argument `funcs`: No ConcreteFunction"):
        tf.lite.TFLiteConverter.from_concrete_functions([])
    with pytest.raises(OSError, match="SavedModel file does not exist"):
        tf.lite.TFLiteConverter.from_saved_model(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="argument `model` must be a Keras model"):
        tf.lite.TFLiteConverter.from_keras_model(m)
    converter = tf.lite.TFLiteConverter.from_concrete_functions(
        [m.__call__.get_concrete_function()], m)
    converter.optimizations = ["FASTEST"]
    with pytest.raises(ValueError, match="argument `optimizations`: 'FASTEST'"):
        converter.convert()
    monkeypatch.setitem(sys.modules, "ai_edge_litert.interpreter", None)
    with pytest.raises(ImportError, match=r"eagertape\[lite\]"):
        tf.lite.Interpreter
