"""``model.export`` of a Keras model whose first layers take strings, as TF exports it.

Census ``load_text`` (TF's "Load text" tutorial, cell 53) exports
``Sequential([TextVectorization, Dense])``: its signature is
``TensorSpec((None,), tf.string)``, and TF's SavedModel holds the text layer's string
ops, so the reloaded ``serve`` takes a batch of any size. Here the text layers run
on the host (tf/_keras_host.py), which JAX's export cannot hold: they are the
SavedModel function's *prelude*, rebuilt from their configs (vocabulary included) by
TF's Keras in the TF process that writes the SavedModel and by eagertape's Keras at
``tf.saved_model.load``; the rest of the model is the exported JAX function.

Each model is exported with a None batch size and called, reloaded, on batches of
sizes it never saw: the values are TF's (TF's own export and load, run in a TF
subprocess), through eagertape's ``tf.saved_model.load`` and through TensorFlow's
loading eagertape's SavedModel.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tf_oracle

tf_oracle.require("tensorflow")

import eagertape.tf as tf  # noqa: E402

_PROGRAM = textwrap.dedent("""
    import numpy as np

    TEXTS = ["the cat sat", "a dog ran far", "the dog", "cat cat sat on mat"]
    CALLS = [["the cat ran", "on mat", "dog", "far far away", "a"], ["sat"]]

    def model(tf, mode):
        layers = tf.keras.layers
        if mode == "binary":
            v = layers.TextVectorization(max_tokens=12, output_mode="binary")
            rest = [layers.Dense(3)]
        else:        # no sequence length: the ids' width is each batch's
            v = layers.TextVectorization(max_tokens=12, output_mode="int")
            rest = [layers.Embedding(12, 4), layers.GlobalAveragePooling1D(),
                    layers.Dense(3)]
        v.adapt(tf.constant(TEXTS))
        m = tf.keras.Sequential([v] + rest)
        m(tf.constant(TEXTS[:2]))
        for w in m.weights:
            n = int(np.prod(w.shape))
            w.assign(np.sin(np.arange(n, dtype="float32") + 1.0).reshape(tuple(w.shape)))
        return m

    def export(tf, folder):
        for mode in ("binary", "int"):
            model(tf, mode).export(folder + "/" + mode, verbose=False)

    def served(tf, folder):
        out = {}
        for mode in ("binary", "int"):
            loaded = tf.saved_model.load(folder + "/" + mode)
            got = [np.asarray(loaded.serve(tf.constant(c))).tolist() for c in CALLS]
            sig = loaded.signatures["serving_default"](tf.constant(CALLS[0][:2]))
            got.append({k: np.asarray(v).tolist() for k, v in sig.items()})
            out[mode] = got
        return out
""")


def _in_tf(code, key=None):
    def compute():
        env = dict(os.environ)
        env.pop("KERAS_BACKEND", None)
        env["TF_CPP_MIN_LOG_LEVEL"] = "3"
        p = subprocess.run([sys.executable, "-c", _PROGRAM + "\nimport tensorflow as tf\n"
                            + code], capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr[-3000:]
        return p.stdout.strip().splitlines()[-1]
    return eval(compute() if key is None else tf_oracle.cached(key, [_PROGRAM, code], compute))


def _tf_served():
    # TF's own export and load of the same models
    return _in_tf("import tempfile\nd = tempfile.mkdtemp()\nexport(tf, d)\n"
                  "print(repr(served(tf, d)))\n", "keras-text-export")


def _close(got, want):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want)
        for k in want:
            _close(got[k], want[k])
    elif isinstance(want, list) and want and isinstance(want[0], (list, dict)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
    else:
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("text-export"))
    scope = {}
    exec(_PROGRAM, scope)
    scope["export"](tf, folder)
    return folder, scope


def test_a_text_model_exported_with_a_none_batch_serves_any_batch_as_in_tf(exported):
    folder, scope = exported
    want = _tf_served()
    assert [len(x) for x in want["binary"][:2]] == [5, 1]
    assert [len(x[0]) for x in want["int"][:2]] == [3, 3]
    _close(scope["served"](tf, folder), want)


def test_tensorflow_loads_the_exported_text_model_with_tfs_values(exported):
    # The SavedModel's graph holds TF's Keras text layers (their lookup tables)
    # before the JAX function: TF's loader serves it alone.
    folder, _ = exported
    got = _in_tf(f"print(repr(served(tf, {folder!r})))\n")   # (this run's folder: not cached)
    _close(got, _tf_served())


def test_a_text_layer_the_savedmodel_cannot_rebuild_is_a_clear_error(tmp_path):
    # TF-IDF's weights are adapted values that the layer's config does not carry
    layers = tf.keras.layers
    v = layers.TextVectorization(max_tokens=8, output_mode="tf_idf")
    v.adapt(tf.constant(["a b", "b c"]))
    m = tf.keras.Sequential([v, layers.Dense(2)])
    m(tf.constant(["a b"]))
    with pytest.raises(ValueError, match="tf_idf"):
        m.export(str(tmp_path / "m"), verbose=False)
    assert not os.path.exists(tmp_path / "m")
