"""Keras's automatic KerasTensor names (keras_tensor_N) after fit and predict, as TF's.

Keras numbers each KerasTensor it makes; a model's input is named after that count,
and a program reads the name back: a TFLite signature runner takes the input by it
(census image_classification: ``classify_lite(keras_tensor_15=img_array)``). Keras's
JAX trainer builds the model with KerasTensors at fit's (and predict's) start; TF's
trainer makes none. The count of names a program sees must be TF's.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np

import tf_oracle

tf_oracle.require("tensorflow")

import eagertape.tf as tf  # noqa: E402

_PROGRAM = textwrap.dedent("""
    import numpy as np

    def names(keras):
        def model():
            return keras.Sequential([keras.layers.Dense(2, input_shape=(3,)),
                                     keras.layers.Dense(1)])
        x = np.ones((4, 3), np.float32)
        y = np.zeros((4, 1), np.float32)
        out = []
        a = model()
        out.append(a.inputs[0].name)
        a.compile("sgd", "mse", metrics=["mae"])
        a.fit(x, y, epochs=1, verbose=0)
        out.append(model().inputs[0].name)
        b = model()
        b.compile("sgd", "mse")
        b.predict(x, verbose=0)
        b.evaluate(x, y, verbose=0)
        out.append(model().inputs[0].name)
        return out
""")


def _numbers(names):
    """The names' counts, from the first's (the process's earlier count differs)."""
    counts = [0 if n == "keras_tensor" else int(n.rsplit("_", 1)[1]) for n in names]
    return [c - counts[0] for c in counts]


def _tf_names():
    def compute():
        env = dict(os.environ)
        env.pop("KERAS_BACKEND", None)
        env["TF_CPP_MIN_LOG_LEVEL"] = "3"
        code = _PROGRAM + "\nimport tensorflow as tf\nprint(names(tf.keras))\n"
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env)
        assert p.returncode == 0, p.stderr[-3000:]
        return p.stdout.strip().splitlines()[-1]
    return eval(tf_oracle.cached("keras-tensor-names", [_PROGRAM], compute))


def test_fit_and_predict_leave_keras_tensor_names_as_tfs():
    scope = {}
    exec(_PROGRAM, scope)
    got = scope["names"](tf.keras)
    want = _tf_names()
    assert want[0] == "keras_tensor"        # (a fresh process: TF's count from 0)
    assert _numbers(got) == _numbers(want) == [0, 3, 9]
    assert np.all([n.startswith("keras_tensor") for n in got])
