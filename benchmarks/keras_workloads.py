"""The Keras workloads of the benchmark (``python -m benchmarks``).

One body of TF-Keras code (``_model``, ``_tape_step``, ``_forward``) runs three
ways: through ``eagertape.tf`` in this process, through real TensorFlow in a
worker process (Keras has one backend per process: TF's ``tf.keras`` is Keras on
its TensorFlow backend, eagertape's on JAX), and, for the training steps, as
Keras-on-JAX's own ``fit``. Weights and data are set explicitly, so every system
starts from the same model; the losses of the warm-up steps are compared before
anything is timed. Rounds are interleaved across the processes as in the other
workloads: the worker waits on a pipe (idle) while this process times.

    keras_mlp  784-512-512-10 Dense/ReLU, batch 256, SGD: tape + apply_gradients
    keras_cnn  Conv2D 16/32 3x3 + max-pooling + Dense 10, 28x28x1, batch 64
    keras_call1, keras_call8  model(x) forward, no tape: 1 and 8 Dense(64) layers
               on a (32, 64) batch, against jax.jit of Keras's stateless_call
"""
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

from .harness import _calibrate, _interleaved, _table, child_env, median_cell
from .harness import _wait as _block

WORKLOADS = ("keras_mlp", "keras_cnn", "keras_call1", "keras_call8")
DESCRIPTIONS = {
    "keras_mlp": "Keras Sequential 784-512-512-10, batch 256: tape + SGD apply_gradients",
    "keras_cnn": "Keras CNN (Conv2D 16, 32; pooling; Dense 10), 28x28x1, batch 64: tape + SGD",
    "keras_call1": "model(x) forward, 1 Dense(64) layer, batch 32, no tape",
    "keras_call8": "model(x) forward, 8 Dense(64) layers, batch 32, no tape",
}
LABELS = {"eagertape": "eagertape.tf.keras", "fused": "eagertape.tf.keras fused",
          "tf": "TF eager (tf.keras)",
          "keras_fit": "Keras-JAX fit, per step", "jax.jit": "jax.jit(stateless_call)"}
FIT_STEPS = 16          # batches in the epoch that one timed fit call trains on
WARM_STEPS = 6          # warm-up steps, whose losses are compared


def _data(workload):
    rng = np.random.RandomState(1)
    f32 = np.float32

    def glorot(*shape):
        fan = np.prod(shape[:-1]) + shape[-1]
        return rng.uniform(-1, 1, shape).astype(f32) * f32(np.sqrt(6.0 / fan))
    if workload == "keras_mlp":
        weights = [glorot(784, 512), np.zeros(512, f32), glorot(512, 512), np.zeros(512, f32),
                   glorot(512, 10), np.zeros(10, f32)]
        return {"x": rng.normal(0, 1, (256, 784)).astype(f32),
                "y": rng.randint(0, 10, 256).astype(np.int32), "weights": weights}
    if workload == "keras_cnn":
        weights = [glorot(3, 3, 1, 16), np.zeros(16, f32), glorot(3, 3, 16, 32), np.zeros(32, f32),
                   glorot(800, 10), np.zeros(10, f32)]
        return {"x": rng.uniform(0, 1, (64, 28, 28, 1)).astype(f32),
                "y": rng.randint(0, 10, 64).astype(np.int32), "weights": weights}
    layers = int(workload[len("keras_call"):])
    weights = []
    for _ in range(layers):
        weights += [glorot(64, 64), rng.normal(0, 0.1, 64).astype(f32)]
    return {"x": rng.normal(0, 1, (32, 64)).astype(f32), "weights": weights}


# -- the TF-Keras program, for any `tf` ---------------------------------------
def _model(tf, workload, d):
    L = tf.keras.layers
    if workload == "keras_mlp":
        layers = [tf.keras.Input((784,)), L.Dense(512, activation="relu"),
                  L.Dense(512, activation="relu"), L.Dense(10)]
    elif workload == "keras_cnn":
        layers = [tf.keras.Input((28, 28, 1)), L.Conv2D(16, 3, activation="relu"),
                  L.MaxPooling2D(), L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(),
                  L.Flatten(), L.Dense(10)]
    else:
        layers = [tf.keras.Input((64,))] + [L.Dense(64, activation="tanh")
                                            for _ in range(len(d["weights"]) // 2)]
    model = tf.keras.Sequential(layers)
    model.set_weights(d["weights"])
    return model


def _loss_and_optimizer(tf):
    return (tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            tf.keras.optimizers.SGD(learning_rate=0.01))


def _tape_step(tf, workload, d):
    """The training step of TF's guide "Writing a training loop from scratch"."""
    model = _model(tf, workload, d)
    loss_fn, optimizer = _loss_and_optimizer(tf)
    x, y = tf.constant(d["x"]), tf.constant(d["y"])

    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return step


def _forward(tf, workload, d):
    model = _model(tf, workload, d)
    x = tf.constant(d["x"])
    return lambda: model(x)


def _tf_step(tf, workload):
    d = _data(workload)
    if workload in ("keras_mlp", "keras_cnn"):
        return _tape_step(tf, workload, d)
    return _forward(tf, workload, d)


# -- systems in this process ----------------------------------------------------
def _fit_step(workload):
    """Keras-on-JAX's own trainer: one timed call is a ``fit`` epoch of FIT_STEPS
    batches; its time is divided by FIT_STEPS."""
    import eagertape.tf as tf
    d = _data(workload)
    model = _model(tf, workload, d)
    loss_fn, optimizer = _loss_and_optimizer(tf)
    model.compile(optimizer=optimizer, loss=loss_fn)
    xs, ys = np.concatenate([d["x"]] * FIT_STEPS), np.concatenate([d["y"]] * FIT_STEPS)
    batch = len(d["x"])

    def epoch():
        h = model.fit(xs, ys, batch_size=batch, epochs=1, shuffle=False, verbose=0)
        return h.history["loss"][-1]

    def losses():
        # A fresh model: one batch per epoch, so each epoch's loss is one step's.
        m = _model(tf, workload, d)
        m.compile(optimizer=_loss_and_optimizer(tf)[1], loss=loss_fn)
        h = m.fit(d["x"], d["y"], batch_size=batch, epochs=WARM_STEPS, shuffle=False, verbose=0)
        return [float(v) for v in h.history["loss"]]
    return epoch, losses


def _stateless_call(workload):
    import jax

    import eagertape.tf as tf
    d = _data(workload)
    model = _model(tf, workload, d)
    tv = [v.value for v in model.trainable_variables]
    ntv = [v.value for v in model.non_trainable_variables]
    fn = jax.jit(lambda tv, ntv, x: model.stateless_call(tv, ntv, x)[0])
    x = jax.numpy.asarray(d["x"])
    return lambda: fn(tv, ntv, x)


class _Local:
    """A system timed in this process."""

    def __init__(self, fn, per_call=1, checked=None):
        self.fn, self.per_call, self.checked = fn, per_call, checked

    def warm(self):
        out = [_block(self.fn()) for _ in range(WARM_STEPS)]
        if self.checked is not None:
            return self.checked()
        return [np.asarray(v, np.float64).tolist() for v in out]

    def calibrate(self, target_s):
        return _calibrate(lambda: _block(self.fn()), target_s, most=1 << 14)

    def time(self, n):
        t0 = time.perf_counter()
        for _ in range(n):
            _block(self.fn())
        return (time.perf_counter() - t0) / n / self.per_call * 1e6

    def close(self):
        pass


# -- TensorFlow, in a worker process ---------------------------------------------
class _Worker:
    """Real TensorFlow's tf.keras in a child process, driven line by line."""

    def __init__(self, workload):
        # The child imports the benchmark's code from the checkout this process did.
        env = child_env(KERAS_BACKEND="tensorflow", TF_CPP_MIN_LOG_LEVEL="2",
                        CUDA_VISIBLE_DEVICES=os.environ.get("CUDA_VISIBLE_DEVICES", ""))
        self.p = subprocess.Popen(
            [sys.executable, "-c", "from benchmarks.keras_workloads import _serve; _serve()",
             workload], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)

    def _ask(self, **msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"the TensorFlow worker of the Keras benchmark exited "
                               f"({self.p.wait()}); its error is above")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"TensorFlow worker: {reply['error']}")
        return reply["out"]

    def warm(self):
        return self._ask(cmd="warm")

    def calibrate(self, target_s):
        return self._ask(cmd="calibrate", target_s=target_s)

    def time(self, n):
        return self._ask(cmd="time", n=n)

    def close(self):
        try:
            self._ask(cmd="quit")
        except (RuntimeError, BrokenPipeError, ValueError):
            pass
        self.p.wait(timeout=60)


def _serve():
    """The worker's loop: build the workload's step on TF, then answer commands."""
    workload = sys.argv[1]
    out = sys.stdout
    sys.stdout = sys.stderr          # TF's and Keras's prints must not reach the pipe
    import tensorflow as tf
    tf.get_logger().setLevel("ERROR")
    local = _Local(_tf_step(tf, workload))
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            if msg["cmd"] == "quit":
                reply = None
            elif msg["cmd"] == "warm":
                reply = local.warm()
            elif msg["cmd"] == "calibrate":
                reply = local.calibrate(msg["target_s"])
            else:
                reply = local.time(msg["n"])
            out.write(json.dumps({"out": reply}) + "\n")
        except Exception as e:      # reported to the parent, which raises it
            out.write(json.dumps({"error": f"{type(e).__name__}: {e}"}) + "\n")
        out.flush()
        if msg["cmd"] == "quit":
            return


# -- the harness ----------------------------------------------------------------
def available(with_tf):
    """Whether Keras is importable, and whether TF's tf.keras can run too (``with_tf``
    and TensorFlow importable)."""
    import importlib.util
    have = importlib.util.find_spec("keras") is not None
    return have, with_tf and importlib.util.find_spec("tensorflow") is not None


def _in_fused_mode(step):
    import eagertape as et

    def fused_step():
        with et.execution_mode("fused"):
            return step()
    return fused_step


def _systems(workload, with_tf):
    import eagertape.tf as tf
    out = {"eagertape": _Local(_tf_step(tf, workload)),
           "fused": _Local(_in_fused_mode(_tf_step(tf, workload)))}
    if workload in ("keras_mlp", "keras_cnn"):
        epoch, losses = _fit_step(workload)
        out["keras_fit"] = _Local(epoch, per_call=FIT_STEPS, checked=losses)
    else:
        out["jax.jit"] = _Local(_stateless_call(workload))
    if with_tf:
        out["tf"] = _Worker(workload)
    return out


def _check(workload, warm):
    ref = warm["eagertape"]
    for s, v in warm.items():
        if s == "eagertape":
            continue
        a, b = np.asarray(v, np.float64), np.asarray(ref, np.float64)
        if a.shape != b.shape or not np.allclose(a, b, rtol=2e-3, atol=2e-4):
            err = float(np.max(np.abs(a - b))) if a.shape == b.shape else "shapes differ"
            raise AssertionError(f"{workload}: {LABELS[s]} disagrees with eagertape.tf.keras "
                                 f"(warm-up {'losses' if 'call' not in workload else 'outputs'}"
                                 f", largest difference {err})")


def run(workloads, rounds, batch_s, with_tf, progress):
    """Time the Keras workloads; returns {workload: {system: figures}}."""
    res = {}
    for w in workloads:
        progress(f"{w}: building the systems")
        systems = _systems(w, with_tf)
        try:
            warm = {}
            for s, sysm in systems.items():
                progress(f"{w}: {s} warm-up and check")
                warm[s] = sysm.warm()
            _check(w, warm)
            numbers = {s: sysm.calibrate(batch_s) for s, sysm in systems.items()}
            times = _interleaved(list(systems), rounds,
                                 lambda s: systems[s].time(numbers[s]), progress, w)
        finally:
            for sysm in systems.values():
                sysm.close()
        res[w] = {s: {"median_us": statistics.median(ts), "rounds_us": ts,
                      "calls_per_round": numbers[s]} for s, ts in times.items()}
    return res


def report(res, out):
    """Print the table of ``run``'s result."""
    out("\nKeras workloads (the same TF-Keras code; median µs per step or call, "
        "interleaved rounds; ratio = eagertape / other)")
    systems = [s for s in LABELS if any(s in r for r in res.values())]
    head = ["workload"] + [LABELS[s] for s in systems] + [
        f"vs {LABELS[s]}" for s in systems if s != "eagertape"]
    rows = []
    for w, r in res.items():
        rows.append([w] + [median_cell(r[s]) if s in r else "-" for s in systems] + [
            f"{r['eagertape']['median_us'] / r[s]['median_us']:.2f}x" if s in r else "-"
            for s in systems if s != "eagertape"])
    _table(head, rows, out)
    if "keras_call1" in res and "keras_call8" in res:
        per = {s: (res["keras_call8"][s]["median_us"] - res["keras_call1"][s]["median_us"]) / 7
               for s in res["keras_call1"] if s in res["keras_call8"]}
        out("model(x) cost per added Dense(64) layer (keras_call8 - keras_call1) / 7: " + ", ".join(
            f"{LABELS[s]} {v:.1f} µs" for s, v in per.items()))

