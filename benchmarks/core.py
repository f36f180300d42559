"""The benchmark's gradient workloads (``python -m benchmarks``), side by side.

Every system computes the same function on the same float32 data; values and
gradients are compared before anything is timed. Systems run round by round
(interleaved), so a noisy neighbour slows all of them alike, and the report
gives medians, the spread of the rounds and the ratio of eagertape's time to each
other system's.

>>> from benchmarks import core
>>> res = core.run(workloads=["chain10"], rounds=3, systems=["eagertape", "jax.jit"],
...                extras=False, batch_s=0.001)      # a quick run: 3 short rounds
>>> sorted(res["workloads"]["chain10"])
['eagertape', 'jax.jit']
>>> res["workloads"]["chain10"]["eagertape"]["median_us"]   # doctest: +SKIP
38.2
"""
import contextlib
import gc
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

from .harness import _calibrate, _interleaved, _table, _wait, child_env, median_cell

SYSTEMS = ("eagertape", "fused", "jax.jit", "tf", "torch", "autograd")
LABELS = {"eagertape": "eagertape", "fused": "eagertape fused", "jax.jit": "jax.jit(value_and_grad)",
          "tf": "TF eager tape", "torch": "PyTorch eager", "autograd": "HIPS autograd"}
_CORE = ("chain10", "f4", "mlp_step", "d2_x3", "jacobian64", "long300")
# Sizes that make an accelerator worth it: run by default only where JAX's backend
# is not the CPU (on a small CPU machine they would take minutes), elsewhere when
# named.
DEVICE_WORKLOADS = ("mlp1024", "cnn1024", "long1000")
WORKLOADS = _CORE + DEVICE_WORKLOADS
DEVICE_BATCH = 1024     # the batch of mlp1024 and cnn1024 (a test makes it small)
DESCRIPTIONS = {
    "chain10": "10 x sin on 64 floats, sum, gradient",
    "f4": "a 4-box's hypersurface area, gradient w.r.t. a Variable",
    "mlp_step": "784-512-512-10 MLP, batch 256, softmax cross-entropy, grads of 3 weights",
    "d2_x3": "second derivative of x**3 by nested tapes",
    "jacobian64": "Jacobian of tanh(outer(x, x)).sum(0), 64 -> 64",
    "long300": "300 steps of tanh(x*1.01 + 0.01) on 64 floats, gradient",
    "mlp1024": "mlp_step's MLP at batch 1024 (device workload)",
    "cnn1024": "CNN step, 1024x32x32x3 NHWC: conv3x3 3->32 SAME, relu, conv3x3/2 32->64 SAME, "
               "relu, global mean pool, dense 64->10, softmax cross-entropy; grads of the "
               "2 kernels and the dense weight (device workload)",
    "long1000": "1000 steps of tanh(x*1.01 + 0.01) on 64 floats, gradient (device workload)",
}
# The workloads whose matmuls or convolutions run in TF32 on a GPU (see _check).
_TF32_WORKLOADS = ("mlp_step", "mlp1024", "cnn1024")


# ---------------------------------------------------------------------------
# Data (NumPy, float32), the same arrays for every system
# ---------------------------------------------------------------------------

def _data(seed=0, device=False):
    rng = np.random.RandomState(seed)
    f32 = np.float32
    d = {
        "x64": rng.uniform(-1.0, 1.0, 64).astype(f32),
        "abcd": np.array([1.0, 2.0, 3.0, 4.0], f32),
        "x_scalar": f32(1.5),
        "xb": rng.normal(0.0, 1.0, (256, 784)).astype(f32),
        "w1": (rng.normal(0.0, 1.0, (784, 512)) / np.sqrt(784)).astype(f32),
        "w2": (rng.normal(0.0, 1.0, (512, 512)) / np.sqrt(512)).astype(f32),
        "w3": (rng.normal(0.0, 1.0, (512, 10)) / np.sqrt(512)).astype(f32),
        "onehot": np.eye(10, dtype=f32)[rng.randint(0, 10, 256)],
        "xj": rng.uniform(-0.5, 0.5, 64).astype(f32),
    }
    if device:
        # A generator of their own: the small workloads' data stay what they were,
        # and the big arrays are drawn only when a device workload runs.
        rng, n = np.random.RandomState(seed + 1), DEVICE_BATCH
        d.update({
            "xb1024": rng.normal(0.0, 1.0, (n, 784)).astype(f32),
            "onehot1024": np.eye(10, dtype=f32)[rng.randint(0, 10, n)],
            "xc": rng.normal(0.0, 1.0, (n, 32, 32, 3)).astype(f32),
            "k1": (rng.normal(0.0, 1.0, (3, 3, 3, 32)) * np.sqrt(2.0 / 27)).astype(f32),
            "k2": (rng.normal(0.0, 1.0, (3, 3, 32, 64)) * np.sqrt(2.0 / 288)).astype(f32),
            "kd": (rng.normal(0.0, 1.0, (64, 10)) / np.sqrt(64)).astype(f32),
            "onehotc": np.eye(10, dtype=f32)[rng.randint(0, 10, n)],
        })
    return d


# The arguments of the models' losses, f(weights, x, onehot), by workload: names in _data.
_MODEL_ARGS = {"mlp_step": (("w1", "w2", "w3"), "xb", "onehot"),
               "mlp1024": (("w1", "w2", "w3"), "xb1024", "onehot1024"),
               "cnn1024": (("k1", "k2", "kd"), "xc", "onehotc")}
_LONG = {"long300": 300, "long1000": 1000}


_F4_TRIPLES = [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]


def _f4(abcd):
    # The hypersurface area of a 4-box with sides abcd, written once for every
    # system that indexes like NumPy.
    return 2.0 * sum(abcd[i] * abcd[j] * abcd[k] for (i, j, k) in _F4_TRIPLES)


# ---------------------------------------------------------------------------
# One builder per system: workload name -> step() returning (value, [grads])
# ---------------------------------------------------------------------------

class _NotWritten(Exception):
    """A system has no version of a workload: it is left out of that workload's
    figures (and named in the report), the run goes on."""


class _TapeAPI:
    """The few names the tape-style workloads use, from eagertape or from TensorFlow.

    One body of TF-style code (tapes, Variables, watch) then serves both systems.
    """

    def __init__(self, system):
        if system == "eagertape":
            import eagertape as et
            from eagertape import nn as enn
            from eagertape import numpy as tnp
            from eagertape.tf import nn as tfnn     # TF's conv2d, one recorded op
            self.constant, self.Variable, self.GradientTape = et.constant, et.Variable, et.GradientTape
            self.sin, self.tanh, self.stack = tnp.sin, tnp.tanh, tnp.stack
            self.sum, self.mean = tnp.sum, tnp.mean
            self.relu, self.log_softmax = enn.relu, enn.log_softmax
            self.conv2d = tfnn.conv2d
            self.block = lambda t: t.jax().block_until_ready()
        else:
            import tensorflow as tf
            tf.get_logger().setLevel("ERROR")   # pfor's retracing warnings on every jacobian
            self.constant, self.Variable, self.GradientTape = tf.constant, tf.Variable, tf.GradientTape
            self.sin, self.tanh, self.stack = tf.sin, tf.tanh, tf.stack
            self.sum, self.mean = tf.reduce_sum, tf.reduce_mean
            self.relu, self.log_softmax = tf.nn.relu, tf.nn.log_softmax
            self.conv2d = tf.nn.conv2d
            self.block = lambda t: t    # TF eager on the CPU has finished already


def _mlp_loss(api, xb, oh, ws):
    h = api.relu(xb @ ws[0])
    h = api.relu(h @ ws[1])
    return -api.mean(api.sum(oh * api.log_softmax(h @ ws[2]), axis=-1))


def _cnn_loss(api, x, oh, ws):
    h = api.relu(api.conv2d(x, ws[0], 1, "SAME"))
    h = api.relu(api.conv2d(h, ws[1], 2, "SAME"))
    z = api.mean(h, axis=(1, 2)) @ ws[2]
    return -api.mean(api.sum(oh * api.log_softmax(z), axis=-1))


_LOSSES = {"mlp_step": _mlp_loss, "mlp1024": _mlp_loss, "cnn1024": _cnn_loss}


def _chain(api, x, n, f):
    def step():
        with api.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in range(n):
                y = f(y)
            s = api.sum(y)
        return s, [tape.gradient(s, x)]
    return step


def _tape_style(system, name, d):
    api = _TapeAPI(system)
    if name == "chain10":
        return _chain(api, api.constant(d["x64"]), 10, api.sin)
    if name in _LONG:
        return _chain(api, api.constant(d["x64"]), _LONG[name],
                      lambda y: api.tanh(y * 1.01 + 0.01))
    if name == "f4":
        v = api.Variable(d["abcd"])

        def step():
            with api.GradientTape() as tape:
                s = _f4(v)
            return s, [tape.gradient(s, v)]
    elif name in _MODEL_ARGS:
        wk, xk, ok = _MODEL_ARGS[name]
        xb, oh = api.constant(d[xk]), api.constant(d[ok])
        ws = [api.Variable(d[k]) for k in wk]
        loss_fn = _LOSSES[name]

        def step():
            with api.GradientTape() as tape:
                loss = loss_fn(api, xb, oh, ws)
            return loss, tape.gradient(loss, ws)
    elif name == "d2_x3":
        x = api.Variable(d["x_scalar"])

        def step():
            with api.GradientTape() as outer:
                with api.GradientTape() as inner:
                    y = x * x * x
                dy = inner.gradient(y, x)
            return dy, [outer.gradient(dy, x)]
    elif name == "jacobian64":
        x = api.constant(d["xj"])

        def step():
            with api.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = api.sum(api.tanh(x[:, None] * x[None, :]), axis=0)
            return y, [tape.jacobian(y, x)]
    else:
        raise KeyError(name)
    return step


def _eagertape(name, d):
    return _tape_style("eagertape", name, d)


def _fused(name, d):
    # The same TF-style code, every call inside et.execution_mode("fused").
    import eagertape as et
    with et.execution_mode("fused"):
        step = _tape_style("eagertape", name, d)

    def fused_step():
        with et.execution_mode("fused"):
            return step()
    return fused_step


def _tf(name, d):
    return _tape_style("tf", name, d)


def _jax_fn(name):
    import jax
    import jax.numpy as jnp

    if name == "chain10":
        def f(x):
            for _ in range(10):
                x = jnp.sin(x)
            return jnp.sum(x)
    elif name == "f4":
        f = _f4
    elif name in ("mlp_step", "mlp1024"):
        def f(ws, xb, oh):
            h = jax.nn.relu(xb @ ws[0])
            h = jax.nn.relu(h @ ws[1])
            return -jnp.mean(jnp.sum(oh * jax.nn.log_softmax(h @ ws[2]), axis=-1))
    elif name == "cnn1024":
        def conv(x, k, stride):
            return jax.lax.conv_general_dilated(x, k, (stride, stride), "SAME",
                                                dimension_numbers=("NHWC", "HWIO", "NHWC"))

        def f(ws, x, oh):
            h = jax.nn.relu(conv(x, ws[0], 1))
            h = jax.nn.relu(conv(h, ws[1], 2))
            z = jnp.mean(h, axis=(1, 2)) @ ws[2]
            return -jnp.mean(jnp.sum(oh * jax.nn.log_softmax(z), axis=-1))
    elif name == "d2_x3":
        f = jax.grad(lambda x: x * x * x)
    elif name == "jacobian64":
        def f(x):
            return jnp.sum(jnp.tanh(jnp.outer(x, x)), axis=0)
    elif name in _LONG:
        def f(x):
            for _ in range(_LONG[name]):
                x = jnp.tanh(x * 1.01 + 0.01)
            return jnp.sum(x)
    else:
        raise KeyError(name)
    return f


def _jaxjit(name, d):
    import jax
    import jax.numpy as jnp

    f = _jax_fn(name)
    if name in _MODEL_ARGS:
        wk, xk, ok = _MODEL_ARGS[name]
        vg = jax.jit(jax.value_and_grad(f))
        ws = [jnp.asarray(d[k]) for k in wk]
        xb, oh = jnp.asarray(d[xk]), jnp.asarray(d[ok])
        return lambda: vg(ws, xb, oh)
    if name == "jacobian64":
        vj = jax.jit(lambda x: (f(x), jax.jacrev(f)(x)))
        x = jnp.asarray(d["xj"])
        return lambda: (lambda y, j: (y, [j]))(*vj(x))
    vg = jax.jit(jax.value_and_grad(f))
    x = jnp.asarray(d[{"chain10": "x64", "f4": "abcd", "d2_x3": "x_scalar",
                       "long300": "x64", "long1000": "x64"}[name]])
    return lambda: (lambda v, g: (v, [g]))(*vg(x))


def _torch_device():
    """Where PyTorch runs: the GPU when JAX runs on one too (the two then compare
    on the same chip), else the CPU."""
    import jax
    import torch
    return "cuda" if jax.default_backend() == "gpu" and torch.cuda.is_available() else "cpu"


def _torch(name, d):
    import torch
    F = torch.nn.functional
    dev = _torch_device()

    def tensor(a):
        return torch.tensor(a, device=dev)

    def leaf(a):
        return torch.tensor(a, device=dev, requires_grad=True)

    if name == "chain10":
        x = leaf(d["x64"])

        def step():
            y = x
            for _ in range(10):
                y = torch.sin(y)
            s = y.sum()
            return s, list(torch.autograd.grad(s, x))
    elif name == "f4":
        v = leaf(d["abcd"])

        def step():
            s = _f4(v)
            return s, list(torch.autograd.grad(s, v))
    elif name in ("mlp_step", "mlp1024"):
        wk, xk, ok = _MODEL_ARGS[name]
        xb, oh = tensor(d[xk]), tensor(d[ok])
        ws = [leaf(d[k]) for k in wk]

        def step():
            h = F.relu(xb @ ws[0])
            h = F.relu(h @ ws[1])
            loss = -(oh * F.log_softmax(h @ ws[2], dim=-1)).sum(-1).mean()
            return loss, list(torch.autograd.grad(loss, ws))
    elif name == "cnn1024":
        # PyTorch's own layouts (NCHW data, OIHW kernels) hold the same numbers;
        # the gradients go back to HWIO (views) to be compared.
        wk, xk, ok = _MODEL_ARGS[name]
        x = tensor(d[xk].transpose(0, 3, 1, 2))
        oh = tensor(d[ok])
        k1, k2 = (leaf(d[k].transpose(3, 2, 0, 1)) for k in wk[:2])
        kd = leaf(d[wk[2]])

        def step():
            h = F.relu(F.conv2d(x, k1, padding=1))
            # TF's "SAME" at stride 2 on an even size pads one row and column, after:
            # PyTorch's symmetric padding=1 would shift every window by one.
            h = F.relu(F.conv2d(F.pad(h, (0, 1, 0, 1)), k2, stride=2))
            z = h.mean((2, 3)) @ kd
            loss = -(oh * F.log_softmax(z, dim=-1)).sum(-1).mean()
            g1, g2, gd = torch.autograd.grad(loss, [k1, k2, kd])
            return loss, [g1.permute(2, 3, 1, 0), g2.permute(2, 3, 1, 0), gd]
    elif name == "d2_x3":
        x = leaf(d["x_scalar"])

        def step():
            y = x * x * x
            dy, = torch.autograd.grad(y, x, create_graph=True)
            return dy, list(torch.autograd.grad(dy, x))
    elif name == "jacobian64":
        x = tensor(d["xj"])

        def f(x):
            return torch.tanh(torch.outer(x, x)).sum(0)

        def step():
            return f(x), [torch.autograd.functional.jacobian(f, x, vectorize=True)]
    elif name in _LONG:
        x, n = leaf(d["x64"]), _LONG[name]

        def step():
            y = x
            for _ in range(n):
                y = torch.tanh(y * 1.01 + 0.01)
            s = y.sum()
            return s, list(torch.autograd.grad(s, x))
    else:
        raise KeyError(name)
    return step


def _autograd(name, d):
    import autograd
    import autograd.numpy as anp

    if name == "chain10":
        def f(x):
            for _ in range(10):
                x = anp.sin(x)
            return anp.sum(x)
        args = (d["x64"],)
    elif name == "f4":
        f, args = _f4, (d["abcd"],)
    elif name in ("mlp_step", "mlp1024"):
        wk, xk, ok = _MODEL_ARGS[name]
        f, args = _autograd_mlp, ([d[k] for k in wk], d[xk], d[ok])
    elif name == "cnn1024":
        raise _NotWritten("HIPS autograd's one convolution, scipy.signal.convolve, "
                          "has no strides")
    elif name == "d2_x3":
        f, args = autograd.grad(lambda x: x * x * x), (d["x_scalar"],)
    elif name == "jacobian64":
        def f(x):
            return anp.sum(anp.tanh(anp.outer(x, x)), axis=0)
        jac = autograd.jacobian(f)
        x = d["xj"]
        return lambda: (f(x), [jac(x)])
    elif name in _LONG:
        def f(x):
            for _ in range(_LONG[name]):
                x = anp.tanh(x * 1.01 + 0.01)
            return anp.sum(x)
        args = (d["x64"],)
    else:
        raise KeyError(name)
    vg = autograd.value_and_grad(f)

    def step():
        v, g = vg(*args)
        return v, list(g) if isinstance(g, list) else [g]
    return step


_BUILDERS = {"eagertape": _eagertape, "fused": _fused, "jax.jit": _jaxjit, "tf": _tf, "torch": _torch,
             "autograd": _autograd}
_MODULES = {"tf": "tensorflow", "torch": "torch", "autograd": "autograd"}


def _torch_tensor(x):
    torch = sys.modules.get("torch")      # imported by the PyTorch builders only
    return torch is not None and isinstance(x, torch.Tensor)


def _to_numpy(x):
    if _torch_tensor(x):
        x = x.detach().cpu()
    return np.asarray(x, dtype=np.float64)


def _block(out):
    # JAX dispatches asynchronously (on a GPU the call returns at once): wait for
    # every array so that the time is the computation's. TF runs here
    # synchronously on the CPU; PyTorch too on the CPU, not on a GPU, where its
    # kernels are queued on the device's stream.
    value, grads = out
    cuda = False
    for a in (value, *grads):
        _wait(a)
        cuda = cuda or (_torch_tensor(a) and a.is_cuda)
    if cuda:
        sys.modules["torch"].cuda.synchronize()
    return out


# ---------------------------------------------------------------------------
# Harness
# ---------------------------------------------------------------------------

class _Progress:
    def __init__(self, stream, enabled=True):
        self.stream, self.enabled = stream, enabled
        self.tty = enabled and hasattr(stream, "isatty") and stream.isatty()
        self._last = 0.0

    def __call__(self, msg, final=False):
        if not self.enabled:
            return
        now = time.perf_counter()
        if self.tty:
            self.stream.write("\r\033[K" + msg + ("\n" if final else ""))
            self.stream.flush()
        elif final or now - self._last > 5.0:
            self.stream.write(msg + "\n")
            self.stream.flush()
            self._last = now


def available_systems():
    """The systems importable here (eagertape and jax.jit always are)."""
    import importlib.util
    return [s for s in SYSTEMS if s not in _MODULES or importlib.util.find_spec(_MODULES[s])]


def _warm(step, calls=6):
    # eagertape compiles a structure at first sight, or at its second while
    # structures churn, and a nested tape's outer structure settles one call
    # after its inner one: a few calls reach the steady state of a training loop.
    out = None
    for _ in range(calls):
        out = _block(step())
    return out


# On a GPU, JAX computes float32 matmuls and convolutions in TF32 (a 10-bit
# mantissa) by default, and PyTorch does there too (run() turns it on, so that both
# compute alike): a TF32 gradient differs from float32's by a few thousandths of
# its largest entry, where float32 ones agree to 1e-6. Still tight enough to catch a
# convolution's windows shifted by one (cnn1024 with PyTorch's symmetric padding
# differs by over 3% of the largest entry).
_TF32_TOL = {"rtol": 2e-2, "atol": 2e-3}
_F32_TOL = {"rtol": 2e-3, "atol": 2e-4}


def _tolerance(name):
    """How closely ``name``'s values must agree with jax.jit's here."""
    import jax
    return _TF32_TOL if jax.default_backend() != "cpu" and name in _TF32_WORKLOADS else _F32_TOL


def _check(name, results, rtol=_F32_TOL["rtol"], atol=_F32_TOL["atol"]):
    ref_sys = "jax.jit"
    ref = results[ref_sys]
    for sys_name, (value, grads) in results.items():
        if sys_name == ref_sys:
            continue
        problems = []
        if len(grads) != len(ref[1]):
            problems.append(f"{len(grads)} gradients, expected {len(ref[1])}")
        for what, a, b in [("value", value, ref[0])] + [
                (f"gradient {i}", g, r) for i, (g, r) in enumerate(zip(grads, ref[1]))]:
            if a.shape != b.shape:
                problems.append(f"{what} has shape {a.shape}, expected {b.shape}")
            elif not np.allclose(a, b, rtol=rtol, atol=atol):
                err = float(np.max(np.abs(a - b)))
                problems.append(f"{what} differs from jax.jit's by up to {err:.3g}")
        if problems:
            raise AssertionError(f"{name}: {sys_name} disagrees with jax.jit: " + "; ".join(problems))


def _timed_workload(name, systems, d, rounds, batch_s, progress, check):
    """Figures by system; ``check`` gets what was compared, how closely, and the
    systems that have no version of this workload."""
    steps, checked, not_written = {}, {}, {}
    for s in systems:
        progress(f"{name}: {s} warm-up and check")
        try:
            step = _BUILDERS[s](name, d)
        except _NotWritten as e:
            not_written[s] = str(e)
            continue
        out = _warm(step)
        checked[s] = (_to_numpy(out[0]), [_to_numpy(g) for g in out[1]])
        steps[s] = step
    systems = list(steps)
    tol = _tolerance(name)
    _check(name, checked, **tol)
    check.update({"systems": systems, "against": "jax.jit", **tol, "not_written": not_written})
    numbers = {}
    for s in systems:
        fn = steps[s]
        numbers[s] = _calibrate(lambda: _block(fn()), batch_s)
    # Objects alive now (TF's and PyTorch's modules are millions) are left out of
    # garbage collection, so a full collection does not stall whichever system
    # happens to allocate when it triggers.
    gc.collect()
    gc.freeze()
    import eagertape as et
    before, fused_before = et.replay_cache_info(), _fused_programs_compiled()

    def time_one(s):
        fn, n = steps[s], numbers[s]
        t0 = time.perf_counter()
        for _ in range(n):
            _block(fn())
        return (time.perf_counter() - t0) / n * 1e6
    times = _interleaved(systems, rounds, time_one, progress, name)
    del steps
    gc.unfreeze()
    after = et.replay_cache_info()
    out = {s: {"median_us": statistics.median(ts), "rounds_us": ts, "calls_per_round": numbers[s]}
           for s, ts in times.items()}
    # Every timed call must reuse what warm-up compiled.
    out["eagertape"]["compiled_while_timed"] = {
        "replays": after.misses - before.misses,
        "executables": after.executables - before.executables}
    if "fused" in out:
        out["fused"]["compiled_while_timed"] = {
            "programs": _fused_programs_compiled() - fused_before}
    return out


def _rss_mb():
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _training(systems, d, steps, progress):
    """SGD on the mlp_step model: steps per second, first and last loss."""
    out = {}
    lr = 0.1
    for s in systems:
        progress(f"training loop: {s}")
        losses = []
        if s in ("eagertape", "fused", "tf"):
            api = _TapeAPI("eagertape" if s == "fused" else s)
            xb, oh = api.constant(d["xb"]), api.constant(d["onehot"])
            ws = [api.Variable(d[k]) for k in ("w1", "w2", "w3")]

            def tape_step():
                with api.GradientTape() as tape:
                    loss = _mlp_loss(api, xb, oh, ws)
                for w, g in zip(ws, tape.gradient(loss, ws)):
                    w.assign_sub(lr * g)
                return loss
            step = tape_step
            if s == "fused":
                import eagertape as et

                def step():
                    with et.execution_mode("fused"):
                        return tape_step()
            final = lambda: [api.block(w.value()) for w in ws]  # noqa: E731
        elif s == "jax.jit":
            import jax
            import jax.numpy as jnp
            vg = jax.value_and_grad(_jax_fn("mlp_step"))

            @jax.jit
            def update(ws, xb, oh):
                loss, gs = vg(ws, xb, oh)
                return loss, [w - lr * g for w, g in zip(ws, gs)]
            state = {"ws": [jnp.asarray(d[k]) for k in ("w1", "w2", "w3")]}
            xb, oh = jnp.asarray(d["xb"]), jnp.asarray(d["onehot"])

            def step():
                loss, state["ws"] = update(state["ws"], xb, oh)
                return loss
            final = lambda: [w.block_until_ready() for w in state["ws"]]  # noqa: E731
        elif s == "torch":
            import torch
            F = torch.nn.functional
            dev = _torch_device()
            xb, oh = torch.tensor(d["xb"], device=dev), torch.tensor(d["onehot"], device=dev)
            ws = [torch.tensor(d[k], device=dev, requires_grad=True) for k in ("w1", "w2", "w3")]

            def step():
                h = F.relu(xb @ ws[0])
                h = F.relu(h @ ws[1])
                loss = -(oh * F.log_softmax(h @ ws[2], dim=-1)).sum(-1).mean()
                gs = torch.autograd.grad(loss, ws)
                with torch.no_grad():
                    for w, g in zip(ws, gs):
                        w.sub_(lr * g)
                return loss
            # On a GPU the steps are queued: the time is theirs once they have run.
            final = torch.cuda.synchronize if dev == "cuda" else lambda: None
        elif s == "autograd":
            import autograd
            vg = autograd.value_and_grad(_autograd_mlp)
            state = {"ws": [d[k].copy() for k in ("w1", "w2", "w3")]}

            def step():
                loss, gs = vg(state["ws"], d["xb"], d["onehot"])
                state["ws"] = [w - np.float32(lr) * g for w, g in zip(state["ws"], gs)]
                return loss
            final = lambda: None  # noqa: E731
        else:
            raise KeyError(s)
        # Warm-up, not timed: eager mode compiles its replay at step 1; fused mode
        # compiles step 2's program (a structure is compiled when it comes back)
        # when step 3 first reads the weights step 2 updated. The losses are kept
        # as in the timed loop: a program computes the values still referenced.
        first = float(_to_numpy(step()))
        kept = [step() for _ in range(4)]
        final()
        del kept
        compiled = _fused_programs_compiled()
        losses = []
        t0 = time.perf_counter()
        for _ in range(steps):
            losses.append(step())
        final()
        dt = time.perf_counter() - t0
        losses = [float(_to_numpy(v)) for v in losses]
        out[s] = {"steps_per_s": steps / dt, "first_loss": first, "last_loss": losses[-1],
                  "loss_went_down": losses[-1] < first}
        if s == "fused":
            out[s]["programs_compiled_while_timed"] = _fused_programs_compiled() - compiled
    return out


def _fused_programs_compiled():
    from eagertape import introspect
    return introspect.cache_info()["fused programs"]["misses"]


def _autograd_mlp(ws, xb, oh):
    import autograd.numpy as anp
    h = anp.maximum(xb @ ws[0], 0.0)
    h = anp.maximum(h @ ws[1], 0.0)
    z = h @ ws[2]
    m = anp.max(z, axis=-1, keepdims=True)
    logp = z - m - anp.log(anp.sum(anp.exp(z - m), axis=-1, keepdims=True))
    return -anp.mean(anp.sum(oh * logp, axis=-1))


def _first_steps(systems, progress, n=3):
    """Latency of the first steps of a model no one has seen (fresh shapes)."""
    rng = np.random.RandomState(7)
    xb = rng.normal(size=(96, 300)).astype(np.float32)
    w1 = (rng.normal(size=(300, 200)) / 17).astype(np.float32)
    w2 = (rng.normal(size=(200, 7)) / 14).astype(np.float32)
    out = {}
    for s in [s for s in systems if s in ("eagertape", "tf")]:
        progress(f"first steps: {s}")
        api = _TapeAPI(s)
        x, ws = api.constant(xb), [api.Variable(w1), api.Variable(w2)]

        def step():
            with api.GradientTape() as tape:
                loss = api.mean(api.tanh(api.tanh(x @ ws[0]) @ ws[1]) ** 2)
            return [api.block(g) for g in tape.gradient(loss, ws)]
        ts = []
        for _ in range(n):
            t0 = time.perf_counter()
            step()
            ts.append((time.perf_counter() - t0) * 1e3)
        out[s] = {"step_ms": ts}
    return out


# The first steps of a never-seen model in a process of its own, as a user's script
# meets them: argv[1] is the system, argv[2] a compilation-cache folder or "-".
_FIRST_CHILD = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
system, cache = sys.argv[1], sys.argv[2]
events = {}
if system == "eagertape":
    import jax
    def seen(event, secs, **kw):
        n, t = events.get(event, (0, 0.0))
        events[event] = (n + 1, t + secs)
    jax.monitoring.register_event_duration_secs_listener(seen)
    jax.monitoring.register_event_listener(lambda event, **kw: seen(event, 0.0))
    import eagertape as et
    if cache != "-":
        et.enable_compilation_cache(cache)
from benchmarks import core as b
api = b._TapeAPI(system)
imported = time.perf_counter() - t0
rng = np.random.RandomState(7)
x = api.constant(rng.normal(size=(96, 300)).astype(np.float32))
ws = [api.Variable((rng.normal(size=(300, 200)) / 17).astype(np.float32)),
      api.Variable((rng.normal(size=(200, 7)) / 14).astype(np.float32))]
def step():
    with api.GradientTape() as tape:
        loss = api.mean(api.tanh(api.tanh(x @ ws[0]) @ ws[1]) ** 2)
    return [api.block(g) for g in tape.gradient(loss, ws)]
ms = []
for _ in range(3):
    t = time.perf_counter()
    step()
    ms.append((time.perf_counter() - t) * 1e3)
def count(suffix):
    return sum(n for e, (n, _) in events.items() if e.endswith(suffix))
def secs(suffix):
    return sum(t for e, (_, t) in events.items() if e.endswith(suffix))
print(json.dumps({"import_s": imported, "step_ms": ms,
                  "compiles": count("backend_compile_duration"),
                  "compile_s": secs("backend_compile_duration"),
                  "lowering_s": secs("jaxpr_to_mlir_module_duration") + secs("jaxpr_trace_duration"),
                  "cache_hits": count("cache_hits")}))
"""


def _first_step_processes(systems, progress):
    """The first gradient of a never-seen model in a fresh process: eagertape without
    a compilation cache, with ``enable_compilation_cache`` on an empty folder (it
    writes) and then again on the same folder (it reads: a warm second process), and
    TF eager where TF is here."""
    import shutil
    import subprocess
    import tempfile
    folder = tempfile.mkdtemp(prefix="eagertape-first-step-")
    runs = [("eagertape", "-", "eagertape, no cache"),
            ("eagertape", folder, "eagertape, cache cold"),
            ("eagertape", folder, "eagertape, cache warm")]
    if "tf" in systems:
        runs.append(("tf", "-", "TF eager"))
    out = {}
    try:
        for system, cache, label in runs:
            progress(f"first step in a fresh process: {label}")
            env = child_env(EAGERTAPE_EXECUTION_MODE="eager", TF_CPP_MIN_LOG_LEVEL="3")
            r = subprocess.run([sys.executable, "-c", _FIRST_CHILD, system, cache], env=env,
                               capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                raise RuntimeError(f"first step ({label}) failed:\n{r.stderr[-2000:]}")
            out[label] = json.loads(r.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return out


def _changing(systems, progress, steps=100, warmup=30):
    """A loop whose tape changes shape every step (data-dependent control flow)."""
    out = {}
    x0 = np.random.RandomState(3).uniform(-1, 1, 32).astype(np.float32)
    for s in [s for s in systems if s in ("eagertape", "tf")]:
        progress(f"changing structure: {s}")
        rng = np.random.RandomState(11)
        plan = [rng.randint(0, 3, rng.randint(5, 25)) for _ in range(steps)]
        rng = np.random.RandomState(12)
        warm = [rng.randint(0, 3, rng.randint(5, 25)) for _ in range(warmup)]
        api = _TapeAPI(s)
        fns = (api.sin, api.tanh, lambda y: y * 0.9 + 0.1)
        x = api.Variable(x0)

        def step(p):
            with api.GradientTape() as tape:
                y = x
                for k in p:
                    y = fns[k](y)
                loss = api.sum(y)
            return api.block(tape.gradient(loss, x))
        for p in warm:   # other structures: warms the kernels of the three op kinds
            step(p)
        if s == "eagertape":
            import eagertape as et
            info0 = et.replay_cache_info()
        t0 = time.perf_counter()
        for p in plan:
            step(p)
        dt = time.perf_counter() - t0
        out[s] = {"steps_per_s": steps / dt, "distinct_structures": len({tuple(p) for p in plan}),
                  "warmup_steps": warmup}
        if s == "eagertape":
            info = et.replay_cache_info()
            out[s]["compiles"] = info.misses - info0.misses
    return out


def _memory(progress, steps=1000):
    """Resident memory of an eagertape training loop: growth after warm-up."""
    import eagertape as et
    from eagertape import numpy as tnp
    rng = np.random.RandomState(5)
    x = et.constant(rng.normal(size=(64, 128)).astype(np.float32))
    y = et.constant(rng.normal(size=(64, 1)).astype(np.float32))
    w = et.Variable((rng.normal(size=(128, 1)) / 11).astype(np.float32))
    rss = []
    for i in range(steps):
        with et.GradientTape() as tape:
            loss = tnp.mean((tnp.tanh(x @ w) - y) ** 2)
        w.assign_sub(0.05 * tape.gradient(loss, w))
        if i in (99, steps - 1):
            gc.collect()
            rss.append(_rss_mb())
        if i % 100 == 0:
            progress(f"memory: step {i}/{steps}")
    return {"steps": steps, "rss_after_100_mb": rss[0], "rss_after_all_mb": rss[1],
            "growth_mb": rss[1] - rss[0]}


# One system's training step in a process of its own: a backend's peak counter
# only ever grows, so each system needs a fresh one.
_PEAK_CHILD = """
import json, sys
import jax
from benchmarks import core as b
system, workload = sys.argv[1], sys.argv[2]
step = b._BUILDERS[system](workload, b._data(device=workload in b.DEVICE_WORKLOADS))
b._warm(step)
stats = jax.devices()[0].memory_stats() or {}
mb = lambda k: stats[k] / 2**20 if k in stats else None
print(json.dumps({"peak_mb": mb("peak_bytes_in_use"), "in_use_mb": mb("bytes_in_use")}))
"""


def _device_memory(systems, progress, workload="mlp1024"):
    """Peak device memory of a training step, per system, each in a fresh process
    (``available`` False where the backend keeps no memory statistics: the CPU)."""
    import subprocess
    import jax
    stats = jax.devices()[0].memory_stats()
    if not stats or "peak_bytes_in_use" not in stats:
        return {"workload": workload, "available": False}
    out = {"workload": workload, "available": True, "systems": {}}
    for s in [s for s in ("eagertape", "fused", "jax.jit") if s in systems]:
        progress(f"device memory: {s}")
        env = child_env(EAGERTAPE_EXECUTION_MODE="eager")
        r = subprocess.run([sys.executable, "-c", _PEAK_CHILD, s, workload], env=env,
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise RuntimeError(f"device memory of {s} failed:\n{r.stderr[-2000:]}")
        out["systems"][s] = json.loads(r.stdout.strip().splitlines()[-1])
    return out


def _pipeline(systems, progress, rounds=5, n=60000):
    """One epoch of a tf.data input pipeline over an MNIST-sized dataset: seconds
    for eagertape.tf.data and TF's tf.data, interleaved round by round."""
    import eagertape.tf as etf
    libs = {"eagertape": etf}
    if "tf" in systems:
        import tensorflow as tf
        libs["tf"] = tf
    rng = np.random.RandomState(0)
    x = rng.randint(0, 256, (n, 28, 28)).astype(np.uint8)
    y = rng.randint(0, 10, n).astype(np.int64)
    pipelines = {
        "shuffle, batch": lambda tf: tf.data.Dataset.from_tensor_slices((x, y)).shuffle(
            n, seed=1).batch(128),
        "shuffle, map, batch": lambda tf: tf.data.Dataset.from_tensor_slices((x, y)).shuffle(
            n, seed=1).map(lambda a, b: (tf.cast(a, tf.float32) / 255.0, tf.one_hot(b, 10)),
                           num_parallel_calls=tf.data.AUTOTUNE).batch(128).prefetch(1),
    }
    out = {}
    for name, make in pipelines.items():
        datasets = {s: make(lib) for s, lib in libs.items()}
        counts = {}

        def epoch(s):
            t = time.perf_counter()
            counts[s] = sum(1 for _ in datasets[s])
            return time.perf_counter() - t
        times = _interleaved(list(libs), rounds + 1, epoch, progress, f"tf.data {name}")
        assert len(set(counts.values())) == 1, counts
        out[name] = {s: {"median_s": float(np.median(t[1:])), "min_s": float(np.min(t[1:])),
                         "max_s": float(np.max(t[1:])), "batches": counts[s]}
                     for s, t in times.items()}    # round 1: tracing and warm-up
    return {"examples": n, "rounds": rounds, "pipelines": out}


def _meta(systems, torch_meta=None):
    import jax

    import eagertape as et
    versions = {"eagertape": et.__version__, "jax": jax.__version__, "numpy": np.__version__,
                "python": platform.python_version()}
    from importlib import metadata
    for s, mod in _MODULES.items():
        if s in systems:
            try:
                versions[mod] = metadata.version({"tensorflow": "tensorflow-cpu"}.get(mod, mod))
            except metadata.PackageNotFoundError:
                versions[mod] = getattr(__import__(mod), "__version__", "?")
    meta = {"backend": jax.default_backend(), "devices": [str(dv) for dv in jax.devices()],
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs", "versions": versions,
            "date": time.strftime("%Y-%m-%d %H:%M")}
    if torch_meta:
        meta["torch"] = dict(torch_meta)
    return meta


def default_workloads():
    """What ``run`` times unless told: the device workloads only where JAX's
    backend is not the CPU, the Keras ones where Keras is installed."""
    import jax

    from . import keras_workloads as kb
    on_cpu = jax.default_backend() == "cpu"
    return [w for w in WORKLOADS if not (on_cpu and w in DEVICE_WORKLOADS)] + list(
        kb.WORKLOADS if kb.available(False)[0] else ())


def run(workloads=None, rounds=15, systems=None, batch_s=0.05, extras=True,
        train_steps=200, progress=None):
    """Run the benchmark; returns a dict of the measurements (what ``--json`` writes;
    ``targets.check`` compares it with the project's targets).

    ``workloads`` defaults to every one but the device workloads (``DEVICE_WORKLOADS``),
    which join where JAX's backend is not the CPU; ``systems`` defaults to every
    importable one (PyTorch runs on the GPU where JAX does); ``extras`` adds the
    training loop, first-step latency, changing-structure throughput and memory figures.
    """
    from . import keras_workloads as kb
    progress = progress or _Progress(sys.stderr, enabled=False)
    has_keras = kb.available(False)[0]
    workloads = list(workloads or default_workloads())
    for w in workloads:
        if w not in WORKLOADS + kb.WORKLOADS:
            raise ValueError(f"argument `workloads`: unknown workload {w!r}; choose from "
                             f"{', '.join(WORKLOADS + kb.WORKLOADS)}")
    keras_workloads = [w for w in workloads if w in kb.WORKLOADS]
    workloads = [w for w in workloads if w in WORKLOADS]
    if keras_workloads:
        if not has_keras:
            raise ValueError("argument `workloads`: the Keras workloads need Keras: "
                             "pip install 'eagertape[keras]'")
        # Keras on JAX before anything imports TensorFlow (which imports Keras on
        # its own backend); TF's tf.keras runs in a worker process.
        import eagertape.tf as etf
        etf.keras
    have = available_systems()
    if systems is None:
        systems = have
    for s in systems:
        if s not in SYSTEMS:
            raise ValueError(f"argument `systems`: unknown system {s!r}; choose from "
                             f"{', '.join(SYSTEMS)}")
    missing = [s for s in systems if s not in have]
    systems = [s for s in systems if s in have]
    # eagertape is the subject; jax.jit the reference every value is checked against.
    systems = ["eagertape"] + (["fused"] if "fused" in systems else []) + ["jax.jit"] + [
        s for s in systems if s not in ("eagertape", "fused", "jax.jit")]
    _quiet_tf(systems)
    with _torch_as_jax(systems) as torch_meta:
        res = {"meta": _meta(systems, torch_meta), "systems": systems,
               "skipped": {s: f"{_MODULES[s]} is not importable" for s in missing},
               "rounds": rounds, "workloads": {}, "checks": {}}
        d = _data(device=any(w in DEVICE_WORKLOADS for w in workloads))
        for i, w in enumerate(workloads):
            progress(f"[{i + 1}/{len(workloads)}] {w}")
            res["checks"][w] = {}
            res["workloads"][w] = _timed_workload(w, systems, d, rounds, batch_s, progress,
                                                  res["checks"][w])
        if keras_workloads:
            res["keras"] = kb.run(keras_workloads, rounds, batch_s, "tf" in systems, progress)
        if extras:
            res["training"] = _training(systems, d, train_steps, progress)
            res["first_steps"] = _first_steps(systems, progress)
            res["first_step_processes"] = _first_step_processes(systems, progress)
            res["changing_structure"] = _changing(systems, progress)
            res["memory"] = _memory(progress)
            res["device_memory"] = _device_memory(systems, progress)
            res["input_pipeline"] = _pipeline(systems, progress)
        import eagertape as et
        res["replay_cache"] = et.replay_cache_info()._asdict()
        progress("done", final=True)
        return res


@contextlib.contextmanager
def _torch_as_jax(systems):
    """PyTorch's device, and its float32 precision set to JAX's for the run: on a
    GPU, JAX's default precision computes float32 matmuls and convolutions in TF32,
    PyTorch's default its matmuls in full float32, which would time two different
    computations."""
    if "torch" not in systems:
        yield None
        return
    import torch
    dev = _torch_device()
    meta = {"device": dev, "tf32": False}
    if dev != "cuda":
        yield meta
        return
    meta.update(device=f"cuda:{torch.cuda.current_device()} "
                       f"({torch.cuda.get_device_name()})", tf32=True)
    b = torch.backends
    if hasattr(b.cuda.matmul, "fp32_precision"):
        # PyTorch >= 2.9: its allow_tf32 flags are deprecated, and reading one
        # after the new setting was used raises.
        flags = [(b.cuda.matmul, "fp32_precision", "tf32"), (b.cudnn.conv, "fp32_precision", "tf32")]
    else:
        flags = [(b.cuda.matmul, "allow_tf32", True), (b.cudnn, "allow_tf32", True)]
    before = [getattr(o, a) for o, a, _ in flags]
    for o, a, v in flags:
        setattr(o, a, v)
    try:
        yield meta
    finally:
        for (o, a, _), v in zip(flags, before):
            setattr(o, a, v)


def _quiet_tf(systems):
    if "tf" in systems:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def report(res, out=print):
    """Print the tables of a `run` result."""
    m = res["meta"]
    out(f"eagertape benchmark, {m['date']}: JAX backend {m['backend']!r}, devices "
        f"{', '.join(m['devices'])}; {m['machine']}")
    out("versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()))
    if "torch" in m:
        out(f"PyTorch on {m['torch']['device']}" + (
            "; TF32 matmuls and convolutions on, as JAX's default precision computes there"
            if m["torch"]["tf32"] else ""))
    for s, why in res["skipped"].items():
        out(f"skipped {LABELS[s]}: {why}")
    for w, c in res.get("checks", {}).items():
        for s, why in c.get("not_written", {}).items():
            out(f"{w}: no {LABELS[s]} version ({why})")
    systems = res["systems"]
    if res["workloads"]:
        _report_core(res, systems, out)
    if res.get("keras"):
        from . import keras_workloads
        keras_workloads.report(res["keras"], out)
    _report_extras(res, out)


def _report_core(res, systems, out):
    others = [s for s in systems if s not in ("eagertape", "fused")]
    out(f"\nmedian µs per call (forward + gradient), {res['rounds']} interleaved rounds, "
        "± half their range; ratio = eagertape (eager mode) / other")
    head = ["workload"] + [LABELS[s] for s in systems] + [f"vs {s}" for s in others]
    rows = []
    for w, r in res["workloads"].items():
        rows.append([w] + [median_cell(r[s]) if s in r else "-" for s in systems]
                    + [f"{r['eagertape']['median_us'] / r[s]['median_us']:.2f}x" if s in r else "-"
                       for s in others])
    _table(head, rows, out)
    new = {w: r["eagertape"].get("compiled_while_timed") for w, r in res["workloads"].items()}
    out("compiled during the timed calls (replays, executables): " + ", ".join(
        f"{w} {c['replays']}/{c['executables']}" for w, c in new.items() if c))
    if "fused" in systems:
        vs = [s for s in ("eagertape", "torch", "jax.jit", "tf") if s in systems]
        out("\nfused mode: median µs per call, ratio = fused / other")
        rows = [[w, median_cell(r["fused"])]
                + [f"{r['fused']['median_us'] / r[s]['median_us']:.2f}x" if s in r else "-"
                   for s in vs]
                + [str(r["fused"].get("compiled_while_timed", {}).get("programs", "-"))]
                for w, r in res["workloads"].items()]
        _table(["workload", "fused"] + [f"vs {LABELS[s]}" for s in vs]
               + ["programs compiled while timed"], rows, out)


def _report_extras(res, out):
    if "training" in res:
        out("\ntraining loop (mlp_step model, SGD, lr 0.1): steps per second")
        rows = [[LABELS[s], f"{t['steps_per_s']:.1f}", f"{t['first_loss']:.4f}",
                 f"{t['last_loss']:.4f}", "yes" if t["loss_went_down"] else "NO",
                 str(t.get("programs_compiled_while_timed", "-"))]
                for s, t in res["training"].items()]
        _table(["system", "steps/s", "loss before", "loss after", "went down",
                "programs compiled while timed"], rows, out)
    if "first_steps" in res:
        out("\nfirst steps of a never-seen model (ms; step 1 includes compiling each new op)")
        rows = [[LABELS[s], *[f"{v:.1f}" for v in t["step_ms"]]]
                for s, t in res["first_steps"].items()]
        _table(["system", "step 1", "step 2", "step 3"], rows, out)
    if "first_step_processes" in res:
        out("\nthe first steps in a fresh process (ms; import is the seconds before the model; "
            "XLA compiles and their seconds in step 1-3)")
        rows = [[k, f"{t['import_s']:.2f}", *[f"{v:.1f}" for v in t["step_ms"]],
                 str(t.get("compiles", "-")) if k != "TF eager" else "-",
                 f"{t['compile_s'] + t['lowering_s']:.2f}" if k != "TF eager" else "-",
                 str(t.get("cache_hits", "-")) if k != "TF eager" else "-"]
                for k, t in res["first_step_processes"].items()]
        _table(["process", "import s", "step 1", "step 2", "step 3", "compiles",
                "compile + lowering s", "cache hits"], rows, out)
    if "changing_structure" in res:
        out("\ntape structure changing every step (random depth and ops, after "
            f"{next(iter(res['changing_structure'].values()))['warmup_steps']} warm-up steps)")
        rows = [[LABELS[s], f"{t['steps_per_s']:.1f}", str(t["distinct_structures"]),
                 str(t.get("compiles", "-"))] for s, t in res["changing_structure"].items()]
        _table(["system", "steps/s", "structures", "replays compiled"], rows, out)
    if "memory" in res:
        mm = res["memory"]
        out(f"\nmemory: {mm['steps']}-step eagertape training loop, resident "
            f"{mm['rss_after_100_mb']:.1f} MB after 100 steps, {mm['rss_after_all_mb']:.1f} MB "
            f"after {mm['steps']}: growth {mm['growth_mb']:+.1f} MB")
    if "device_memory" in res:
        dm = res["device_memory"]
        if not dm["available"]:
            out("\npeak device memory: not measured (this backend keeps no memory statistics)")
        else:
            out(f"\npeak device memory of a {dm['workload']} training step (MB, a fresh "
                "process each)")
            _table(["system", "peak", "in use after"],
                   [[LABELS[s], f"{m['peak_mb']:.1f}", f"{m['in_use_mb']:.1f}"]
                    for s, m in dm["systems"].items()], out)
    if "input_pipeline" in res:
        ip = res["input_pipeline"]
        out(f"\ntf.data: one epoch of {ip['examples']} 28x28 examples in batches of 128 "
            f"(seconds, median of {ip['rounds']} [min-max])")
        rows = []
        for name, by in ip["pipelines"].items():
            et_s = by["eagertape"]["median_s"]
            for s, t in by.items():
                rows.append([name, "eagertape.tf.data" if s == "eagertape" else "tf.data",
                             f"{t['median_s']:.3f} [{t['min_s']:.3f}-{t['max_s']:.3f}]",
                             f"{t['median_s'] / et_s:.2f}x"])
        _table(["pipeline", "system", "epoch s", "vs eagertape"], rows, out)
    rc = res["replay_cache"]
    out(f"replay cache: {rc['hits']} hits, {rc['misses']} misses (compiles), "
        f"{rc['size']} entries (max {rc['maxsize']})")


def plot(res, path):
    """A bar chart of eagertape's time ratio to each system, per workload (log scale)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    others = [s for s in res["systems"] if s != "eagertape"]
    ws = list(res["workloads"])
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(ws) + 2), 4.2))
    width = 0.8 / max(len(others), 1)
    for k, s in enumerate(others):
        ratios = [res["workloads"][w]["eagertape"]["median_us"] / res["workloads"][w][s]["median_us"]
                  if s in res["workloads"][w] else np.nan for w in ws]
        ax.bar(np.arange(len(ws)) + (k - (len(others) - 1) / 2) * width, ratios, width,
               label=LABELS[s])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(ws)), ws)
    ax.set_ylabel("eagertape time / other's time (log)")
    ax.set_title(f"eagertape vs others, backend {res['meta']['backend']} (below 1: eagertape faster)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
