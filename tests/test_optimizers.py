"""Optimizers: TF's (Keras 3) update rules, written out in NumPy, as the oracle.

When TensorFlow is importable the same steps also run through
``tf.keras.optimizers`` and must agree.
"""
import json
import logging
import os

import numpy as np
import pytest

import eagertape as et
from eagertape import numpy as tnp
from eagertape import optimizers
import tf_oracle

W0 = [np.array([1.0, -2.0, 0.5]), np.array([[0.3, -0.1], [0.2, 0.4]])]
# A fixed gradient sequence (step, variable): the rules are checked on it directly.
GRADS = [[np.sin(np.arange(3) + t) * (t + 1), np.cos(np.arange(4).reshape(2, 2) * t) - 0.5]
         for t in range(6)]


def keras_reference(name, cfg, steps=len(GRADS)):
    ws = [w.copy() for w in W0]
    st = [dict() for _ in ws]
    lr = cfg.get("learning_rate")
    for t in range(steps):
        for i, (w, g) in enumerate(zip(ws, GRADS[t])):
            s = st[i]
            if name == "SGD":
                mom = cfg.get("momentum", 0.0)
                if mom:
                    s["m"] = mom * s.get("m", 0.0) - lr * g
                    w += mom * s["m"] - lr * g if cfg.get("nesterov") else s["m"]
                else:
                    w -= lr * g
            elif name == "Adam":
                b1, b2, eps = cfg.get("beta_1", 0.9), cfg.get("beta_2", 0.999), cfg.get("epsilon", 1e-7)
                s["m"] = s.get("m", 0.0) + (g - s.get("m", 0.0)) * (1 - b1)
                s["v"] = s.get("v", 0.0) + (g * g - s.get("v", 0.0)) * (1 - b2)
                alpha = lr * np.sqrt(1 - b2 ** (t + 1)) / (1 - b1 ** (t + 1))
                w -= alpha * s["m"] / (np.sqrt(s["v"]) + eps)
            elif name == "RMSprop":
                rho, mom, eps = cfg.get("rho", 0.9), cfg.get("momentum", 0.0), cfg.get("epsilon", 1e-7)
                s["v"] = rho * s.get("v", 0.0) + (1 - rho) * g * g
                if cfg.get("centered"):
                    s["a"] = rho * s.get("a", 0.0) + (1 - rho) * g
                    den = s["v"] - s["a"] ** 2 + eps
                else:
                    den = s["v"] + eps
                inc = lr * g / np.sqrt(den)
                if mom:
                    s["m"] = mom * s.get("m", 0.0) + inc
                    w -= s["m"]
                else:
                    w -= inc
            elif name == "Adagrad":
                eps = cfg.get("epsilon", 1e-7)
                s["a"] = s.get("a", cfg.get("initial_accumulator_value", 0.1)) + g * g
                w -= lr * g / np.sqrt(s["a"] + eps)
    return ws


CASES = [
    ("SGD", {"learning_rate": 0.1}),
    ("SGD", {"learning_rate": 0.05, "momentum": 0.9}),
    ("SGD", {"learning_rate": 0.05, "momentum": 0.9, "nesterov": True}),
    ("Adam", {"learning_rate": 0.01}),
    ("Adam", {"learning_rate": 0.1, "beta_1": 0.5, "beta_2": 0.9, "epsilon": 1e-3}),
    ("RMSprop", {"learning_rate": 0.01}),
    ("RMSprop", {"learning_rate": 0.01, "momentum": 0.5, "centered": True}),
    ("Adagrad", {"learning_rate": 0.1}),
    ("Adagrad", {"learning_rate": 0.2, "initial_accumulator_value": 0.5, "epsilon": 1e-3}),
]


def run_eagertape(name, cfg, dtype="float64"):
    vs = [et.Variable(w.astype(dtype)) for w in W0]
    opt = getattr(optimizers, name)(**cfg)
    for gs in GRADS:
        opt.apply_gradients(zip([et.constant(g, dtype=dtype) for g in gs], vs))
    return [v.numpy() for v in vs], opt


@pytest.mark.parametrize("name,cfg", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_update_rule_matches_keras(name, cfg):
    got, opt = run_eagertape(name, cfg)
    want = keras_reference(name, cfg)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-9)
    assert int(opt.iterations) == len(GRADS)


# TF's side runs in a process of its own: TF's optimizers are its Keras's, and a
# test process's Keras is on JAX (tests/conftest.py). All cases in one process.
_TF_UPDATES = r"""
import json, sys
import numpy as np
import tensorflow as tf
W0, GRADS, CASES = json.loads(sys.stdin.read())
assert tf.keras.backend.backend() == "tensorflow"
out = []
for name, cfg in CASES:
    vs = [tf.Variable(np.asarray(w, np.float32)) for w in W0]
    opt = getattr(tf.keras.optimizers, name)(**cfg)
    for gs in GRADS:
        opt.apply_gradients(zip([tf.constant(np.asarray(g, np.float32)) for g in gs], vs))
    out.append([v.numpy().tolist() for v in vs])
print("RESULT " + json.dumps(out))
"""


def _tf_keras_updates():
    import subprocess
    import sys
    data = json.dumps([[w.tolist() for w in W0], [[g.tolist() for g in gs] for gs in GRADS],
                       CASES])
    r = subprocess.run([sys.executable, "-c", _TF_UPDATES], input=data, capture_output=True,
                       text=True, timeout=300,
                       env=dict({k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"},
                                TF_CPP_MIN_LOG_LEVEL="3"))
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")]
    assert r.returncode == 0 and lines, r.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT "):])


@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{n}-{i}" for i, (n, _) in
                                                          enumerate(CASES)])
def test_same_updates_as_tensorflow(case):
    tf_oracle.require()
    want = tf_oracle.cached("tf_keras_optimizer_updates", (_TF_UPDATES, W0, GRADS, CASES),
                            _tf_keras_updates)[case]
    name, cfg = CASES[case]
    got, _ = run_eagertape(name, cfg, dtype="float32")
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w, np.float32), rtol=1e-5, atol=1e-6)


def test_none_gradients_are_skipped_with_tf_warning(caplog):
    a, b = et.Variable([1.0, 2.0], name="a"), et.Variable([3.0], name="b")
    opt = optimizers.SGD(learning_rate=0.5)
    with caplog.at_level(logging.WARNING, logger="eagertape"):
        opt.apply_gradients([(et.constant([1.0, 1.0]), a), (None, b)])
    assert "Gradients do not exist for variables ['b:0']" in caplog.text
    np.testing.assert_allclose(a.numpy(), [0.5, 1.5])
    np.testing.assert_allclose(b.numpy(), [3.0])
    assert int(opt.iterations) == 1


def test_minimize_with_a_loss_callable_and_with_a_tape():
    w = et.Variable([4.0, -3.0])
    opt = optimizers.Adam(learning_rate=0.1)
    for _ in range(300):
        opt.minimize(lambda: tnp.sum((w - et.constant([1.0, 2.0])) ** 2), [w])
    np.testing.assert_allclose(w.numpy(), [1.0, 2.0], atol=1e-2)
    v = et.Variable(2.0)
    with et.GradientTape() as tape:
        loss = v * v
    optimizers.SGD(learning_rate=0.25).minimize(loss, [v], tape=tape)
    assert float(v) == 1.0          # 2 - 0.25 * 4


def test_bad_input_names_the_argument_and_changes_nothing():
    with pytest.raises(ValueError, match="argument `learning_rate`"):
        optimizers.SGD(learning_rate=-1.0)
    with pytest.raises(ValueError, match="argument `momentum`"):
        optimizers.SGD(momentum="fast")
    a, b = et.Variable([1.0, 2.0]), et.Variable([3.0])
    opt = optimizers.SGD(learning_rate=0.5)
    with pytest.raises(ValueError, match="gradient for 'Variable:0' has shape"):
        opt.apply_gradients([(et.constant([1.0, 1.0]), a), (et.constant([1.0, 1.0]), b)])
    np.testing.assert_allclose(a.numpy(), [1.0, 2.0])     # neither was updated
    assert int(opt.iterations) == 0
    with pytest.raises(ValueError, match="argument `grads_and_vars`\\[0\\]"):
        opt.apply_gradients([et.constant(1.0)])
    with pytest.raises(TypeError, match="must be an eagertape.Variable"):
        opt.apply_gradients([(et.constant(1.0), et.constant(2.0))])
