"""A Sequential model that starts with a text layer, built as TF's Keras builds it.

Census ``load_text`` (TF's "Load text" tutorial) fits ``Sequential([TextVectorization,
Dense(4)])`` on a dataset of strings, then exports it: ``model.export`` reads
``model.inputs``. TF's Keras builds the Sequential from its input's shape, a
functional graph from a string Input: ``(None,)`` for ``fit``/``evaluate`` (the
data's spec), the first batch's shape for ``predict``, the call's for a call.
Keras on JAX never did (its trainer sees the host part's ids, not the strings:
tf/_keras_host.py): the model had no ``inputs`` ("Sequential model 'sequential' has
no defined inputs yet"). The KerasTensors the builds make count in the names of
later ones (keras_tensor_N), as in TF.
"""
import os
import subprocess
import sys
import textwrap


import tf_oracle

tf_oracle.require("tensorflow")

import eagertape.tf as tf  # noqa: E402

_PROGRAM = textwrap.dedent("""
    import numpy as np

    def inputs(tf):
        layers = tf.keras.layers
        out = []
        def seen(what, m):
            out.append([what] + [(list(t.shape), str(t.dtype), t.name) for t in m.inputs]
                       + [list(m.outputs[0].shape)])
        ds = tf.data.Dataset.from_tensor_slices(
            (["a b c", "b c d", "a a", "d"], [0, 1, 2, 3])).batch(2)
        v = layers.TextVectorization(max_tokens=10, output_mode="binary")
        v.adapt(ds.map(lambda t, l: t))
        for how in ("fit", "evaluate", "predict", "call", "call2d"):
            m = tf.keras.Sequential([v, layers.Dense(4, kernel_initializer="ones")])
            m.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      optimizer="sgd")
            x = tf.constant(["a b", "c", "d"] * 5)
            if how == "fit":
                m.fit(ds, epochs=1, verbose=0)
            elif how == "evaluate":
                m.evaluate(x, tf.constant(np.arange(15) % 4), batch_size=4, verbose=0)
            elif how == "predict":
                m.predict(x, batch_size=4, verbose=0)
            elif how == "call":
                m(tf.constant(["a b", "c"]))
            else:
                m(tf.constant([["a b"], ["c"]]))
            seen(how, m)
        out.append(tf.keras.Input(shape=(3,)).name)
        return out
""")


def _tf_inputs():
    def compute():
        env = dict(os.environ)
        env.pop("KERAS_BACKEND", None)
        env["TF_CPP_MIN_LOG_LEVEL"] = "3"
        code = _PROGRAM + "\nimport tensorflow as tf\nprint(repr(inputs(tf)))\n"
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env)
        assert p.returncode == 0, p.stderr[-3000:]
        return p.stdout.strip().splitlines()[-1]
    return eval(tf_oracle.cached("sequential-text-inputs", [_PROGRAM], compute))


def _relative(rows):
    # keras_tensor_N by its count from the first model's input (the process's
    # earlier KerasTensors differ)
    def count(name):
        return 0 if name == "keras_tensor" else int(name.rsplit("_", 1)[1])
    base = count(rows[0][1][2])
    return [[r[0]] + [(s, d, count(n) - base) for s, d, n in r[1:-1]] + [r[-1]]
            for r in rows[:-1]] + [count(rows[-1]) - base]


def test_a_text_sequential_is_built_from_its_strings_as_in_tf():
    scope = {}
    exec(_PROGRAM, scope)
    got = scope["inputs"](tf)
    want = _tf_inputs()
    assert want[0] == ["fit", ([None], "string", "keras_tensor"), [None, 4]]
    assert _relative(got) == _relative(want)
    assert [r[1][0] for r in want[:-1]] == [[None], [None], [4], [2], [2, 1]]


def test_a_text_sequential_fit_on_strings_gives_an_export_signature():
    # Keras's own export reads the model's input signature from `inputs`
    layers = tf.keras.layers
    ds = tf.data.Dataset.from_tensor_slices((["x y", "y z"], [0, 1])).batch(2)
    v = layers.TextVectorization(max_tokens=5, output_mode="binary")
    v.adapt(ds.map(lambda t, l: t))
    m = tf.keras.Sequential([v, layers.Dense(2)])
    m.compile(loss="sparse_categorical_crossentropy", optimizer="sgd")
    m.fit(ds, epochs=1, verbose=0)
    from keras.src.export.export_utils import get_input_signature
    (spec,) = get_input_signature(m)
    assert list(spec.shape) == [None] and spec.dtype == "string"
    assert m.predict(ds, verbose=0).shape == (2, 2)


_EXPORT = textwrap.dedent("""
    import os, tempfile

    def served(tf):
        layers = tf.keras.layers
        v = layers.TextVectorization(max_tokens=10, output_mode="binary")
        v.adapt(tf.constant(["a b c", "b c d", "a a", "d"]))
        m = tf.keras.Sequential([v, layers.Dense(2, kernel_initializer="ones",
                                                 bias_initializer="ones")])
        m(tf.constant(["a b", "c"]))
        path = os.path.join(tempfile.mkdtemp(), "m")
        m.export(path, verbose=False)
        loaded = tf.saved_model.load(path)     # (held: TF frees an unheld one's variables)
        return loaded.serve(tf.constant(["a b", "d"])).numpy().tolist()
""")


def test_a_text_sequential_exports_with_a_none_batch_as_in_tf():
    def compute():
        env = dict(os.environ)
        env.pop("KERAS_BACKEND", None)
        env["TF_CPP_MIN_LOG_LEVEL"] = "3"
        code = _EXPORT + "\nimport tensorflow as tf\nprint(repr(served(tf)))\n"
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env)
        assert p.returncode == 0, p.stderr[-3000:]
        return p.stdout.strip().splitlines()[-1]
    want = eval(tf_oracle.cached("sequential-text-export", [_EXPORT], compute))
    assert want == [[3.0, 3.0], [2.0, 2.0]]
    scope = {}
    exec(_EXPORT, scope)
    assert scope["served"](tf) == want
