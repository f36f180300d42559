"""What makes the fast path fast, checked by counts and references (never by time).

Timings live in the repository's benchmark (``python -m benchmarks``, or
``python -m eagertape bench`` from a checkout); here: the replay cache compiles
a structure once and only when it comes back, stays bounded, recorded values
are released, per-call dispatch keeps JAX's semantics, and the benchmark
command runs (``benchmarks/`` is importable: pytest puts the checkout on the path).
"""
import gc
import json
import os
import sys
import weakref

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import eagertape as et
from benchmarks import core as benchmark
from benchmarks import harness, targets
from eagertape import introspect
from eagertape import numpy as tnp

# Oracles (jax.grad, jax.vjp, jax.jvp) compute in float64: JAX's 64-bit mode, as a
# user with JAX_ENABLE_X64=1 runs it.
pytestmark = pytest.mark.jax_x64


@pytest.fixture
def auto_replay():
    with introspect.replay_policy("auto"):
        et.clear_replay_cache()
        yield
    et.set_replay_cache_size(512)


def _step(x, plan):
    fns = (tnp.sin, tnp.tanh, lambda y: y * 0.5 + 0.25)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x
        for k in plan:
            y = fns[k](y)
        loss = tnp.sum(y)
    return tape.gradient(loss, x)


def _jax_step(x, plan):
    import jax
    fns = (jnp.sin, jnp.tanh, lambda y: y * 0.5 + 0.25)

    def f(y):
        for k in plan:
            y = fns[k](y)
        return jnp.sum(y)
    return jax.grad(f)(x)


@pytest.mark.eager       # counts the eager replay's compilations
def test_changing_structure_compiles_only_what_comes_back(auto_replay):
    rng = np.random.RandomState(0)
    x0 = rng.uniform(-1, 1, 8)
    x = et.constant(x0, dtype="float64")
    plans = [tuple(rng.randint(0, 3, rng.randint(2, 9))) for _ in range(30)]
    plans = list(dict.fromkeys(plans))        # all distinct
    for p in plans:
        np.testing.assert_allclose(_step(x, p).numpy(), _jax_step(x0, p), rtol=1e-12)
    info = et.replay_cache_info()
    # The first new structures compile (a training loop's would be the only
    # one); once structures churn, new ones replay op by op.
    churn = introspect.config.churn - 1
    assert (info.misses, info.hits, info.deferred) == (churn, 0, len(plans) - churn)
    # A structure that comes back is compiled once, then reused.
    for _ in range(3):
        np.testing.assert_allclose(_step(x, plans[-1]).numpy(), _jax_step(x0, plans[-1]),
                                   rtol=1e-12)
    info = et.replay_cache_info()
    assert (info.misses, info.hits, info.size) == (churn + 1, 2, churn + 1)


@pytest.mark.eager       # counts the eager replay's compilations
def test_replay_cache_is_a_bounded_lru(auto_replay):
    et.set_replay_cache_size(2)
    x = et.constant([0.1, 0.2, 0.3], dtype="float64")
    plans = [(0,), (1,), (2,), (0, 1)]
    for p in plans:
        for _ in range(2):
            _step(x, p)
    info = et.replay_cache_info()
    assert info.misses == 4 and info.size == 2 and info.maxsize == 2
    assert info.deferred == 4 - (introspect.config.churn - 1)
    hits = info.hits
    _step(x, plans[-1])                       # the most recent one is still there
    assert et.replay_cache_info().hits == hits + 1
    _step(x, plans[0])                        # the oldest was dropped: new again
    assert et.replay_cache_info().deferred == info.deferred + 1


@pytest.mark.eager       # counts the eager replay's compilations
def test_new_shapes_reuse_the_structure_and_add_an_executable(auto_replay):
    for n in (3, 3, 3, 5, 5):
        x = et.constant(np.linspace(0.1, 1.0, n))
        np.testing.assert_allclose(_step(x, (0, 2)).numpy(),
                                   _jax_step(np.linspace(0.1, 1.0, n), (0, 2)), rtol=1e-12)
    info = et.replay_cache_info()
    # jit's own cache keys shapes: one structure, two executables.
    assert (info.deferred, info.misses, info.size, info.executables) == (0, 1, 1, 2)


@pytest.mark.parametrize("replay", ["auto", "compiled", "per_op"])
def test_non_persistent_tape_releases_every_recorded_value(replay):
    with introspect.replay_policy(replay):
        x = et.Variable(np.linspace(0.0, 1.0, 16))
        refs = []
        with et.GradientTape() as tape:
            y = x * 1.0
            for _ in range(5):
                y = tnp.sin(y) * 2.0
                refs.append(weakref.ref(y))
            loss = tnp.sum(y)
        refs.append(weakref.ref(loss))
        grad = tape.gradient(loss, x)
        del y
        gc.collect()
        alive = [i for i, r in enumerate(refs) if r() is not None]
        assert alive == [len(refs) - 1]       # only `loss`, which the caller holds
        assert introspect.recording(tape) is None
        del loss
        gc.collect()
        assert all(r() is None for r in refs)
        assert grad.shape == (16,)


def test_persistent_tape_releases_its_values_when_deleted():
    x = et.constant([0.5, 1.5])
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tnp.exp(x)
        z = tnp.sum(y * y)
    ry, rz = weakref.ref(y), weakref.ref(z)
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), 2 * np.exp(2 * x.numpy()), rtol=1e-6)
    del y, z
    gc.collect()
    assert ry() is not None       # the persistent tape still holds them
    del tape
    gc.collect()
    assert ry() is None and rz() is None


def _kinds():
    return introspect.cache_info()["call kinds"]["size"]


def test_python_floats_are_values_not_program_constants():
    # A learning rate that changes every step must not make a new kind (and a
    # new compile) per value; the result keeps JAX's weak-type promotion.
    x = et.constant([1.0, 2.0])
    before = _kinds()
    outs = [x * lr for lr in np.linspace(0.1, 1.0, 20).tolist()]
    assert _kinds() - before <= 1
    assert outs[0].dtype == np.float32
    np.testing.assert_allclose(outs[-1].numpy(), [1.0, 2.0], rtol=1e-6)
    i = et.constant([1, 2])
    with pytest.raises(TypeError):      # TF: 1.5 cannot be converted to int32
        i * 1.5
    before = _kinds()
    prods = [x * k for k in range(1, 21)]      # Python ints as operands: values too
    assert _kinds() - before <= 1
    np.testing.assert_allclose(prods[-1].numpy(), [20.0, 40.0])
    assert prods[0].dtype == np.float32 and (i * 3).dtype == np.int32
    assert (i * 3).numpy().tolist() == [3, 6] and (7 // i).numpy().tolist() == [7, 3]
    assert (tnp.asarray([1.0, 2.0], dtype="float64") * 1.5).dtype == np.float64


def test_keyword_arguments_reach_their_parameters_in_any_order():
    x = et.constant([[3.0, -4.0], [1.0, 2.0]])
    want = np.linalg.norm(x.numpy(), ord=1, axis=0)
    np.testing.assert_allclose(tnp.linalg.norm(x, ord=1, axis=0).numpy(), want)
    np.testing.assert_allclose(tnp.linalg.norm(x, axis=0, ord=1).numpy(), want)
    np.testing.assert_allclose(tnp.sum(x, keepdims=True, axis=0).numpy(), [[4.0, -2.0]])
    np.testing.assert_allclose(tnp.clip(x, max=1.5, min=-1.0).numpy(), [[1.5, -1.0], [1.0, 1.5]])


def test_a_variable_before_a_nested_argument_is_read_once():
    v = et.Variable([1.0, 2.0])
    with et.GradientTape() as tape:
        y = tnp.sum(tnp.pad(v, ((1, 0),)) * 3.0)     # a Variable, then a nest of tuples
        assert len(introspect.recording(tape).var_reads[id(v)]) == 1
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [3.0, 3.0])


def test_calls_jit_cannot_trace_run_as_they_are():
    x = et.constant([1.0, -2.0, 3.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        pos = x[x > 0]                        # a boolean mask: value-dependent shape
        y = tnp.sum(pos * pos)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 0.0, 6.0])
    np.testing.assert_allclose(tnp.arange(0.0, 1.0, 0.25).numpy(), [0.0, 0.25, 0.5, 0.75])


def test_errors_from_dispatch_are_the_functions_own():
    a, b = et.constant(np.ones((2, 3))), et.constant(np.ones((4, 5)))
    with pytest.raises(TypeError, match="add got incompatible shapes"):
        a + b
    with et.GradientTape() as tape:
        tape.watch(a)
        with pytest.raises(TypeError, match="contracting dimensions to have the same shape"):
            tnp.matmul(a, b)
        y = tnp.sum(a * 3.0)
    np.testing.assert_allclose(tape.gradient(y, a).numpy(), np.full((2, 3), 3.0))


def test_benchmark_runs_and_checks_values(tmp_path, capsys):
    res = benchmark.run(workloads=["chain10", "d2_x3", "f4"], rounds=1, batch_s=0.001,
                        systems=["eagertape", "jax.jit"], extras=False)
    assert set(res["workloads"]) == {"chain10", "d2_x3", "f4"}
    for w in res["workloads"].values():
        assert w["eagertape"]["median_us"] > 0 and w["jax.jit"]["median_us"] > 0
    lines = []
    benchmark.report(res, out=lines.append)
    assert any(line.startswith("chain10") for line in lines)
    from benchmarks import main
    path = tmp_path / "b.json"
    args = ["--quick", "--workloads", "d2_x3", "--systems", "eagertape,fused", "--no-progress"]
    assert main(args + ["--json", str(path)]) == 0
    data = json.loads(path.read_text())
    assert data["meta"]["backend"] and data["workloads"]["d2_x3"]["eagertape"]["median_us"] > 0
    # A plain run reports measurements (median ± spread, ratios), not the project's
    # targets; --targets adds them, saying whose they are.
    printed = capsys.readouterr().out
    assert "±" in printed and "target" not in printed and "missed" not in printed
    assert "targets" not in data
    assert main(args + ["--targets", "--json", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "the eagertape project's own" in printed and "reference machines" in printed
    rows = json.loads(path.read_text())["targets"]
    assert {(t["system"], t["workload"], t["versus"]) for t in rows} == {
        ("fused", "d2_x3", "eagertape"), ("fused", "d2_x3", "1.1x jax.jit(value_and_grad)")}
    assert all(t["reason"] for t in rows)


def test_benchmark_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    res = benchmark.run(workloads=["chain10"], rounds=1, batch_s=0.001,
                        systems=["eagertape", "jax.jit"], extras=False)
    path = tmp_path / "ratios.png"
    benchmark.plot(res, str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_benchmark_check_catches_a_wrong_gradient():
    good = (np.array(1.0), [np.array([1.0, 2.0])])
    with pytest.raises(AssertionError, match="gradient 0 differs"):
        benchmark._check("w", {"jax.jit": good, "eagertape": (np.array(1.0), [np.array([1.0, 2.5])])})


def test_benchmark_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown workload 'nope'"):
        benchmark.run(workloads=["nope"])
    with pytest.raises(ValueError, match="unknown system 'mxnet'"):
        benchmark.run(workloads=["chain10"], systems=["mxnet"])


@pytest.mark.subprocess
def test_keras_benchmark_runs_and_checks_losses(tmp_path):
    # The Keras workloads: eagertape.tf.keras against Keras-JAX's own fit and
    # stateless_call, and against TF's tf.keras in a worker process when TF is
    # here. In a process of its own, as a user runs it: this one may have Keras
    # on TF's backend already.
    pytest.importorskip("keras")
    import importlib.util
    import subprocess
    import sys
    has_tf = importlib.util.find_spec("tensorflow") is not None
    path = tmp_path / "k.json"
    r = subprocess.run([sys.executable, "-m", "eagertape", "bench", "--quick", "--no-progress",
                        "--workloads", "keras_mlp,keras_call1", "--json", str(path), "--targets",
                        "--systems", "eagertape,jax.jit" + (",tf" if has_tf else "")],
                       capture_output=True, text=True, timeout=600,
                       env={k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"})
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads(path.read_text())
    assert res["workloads"] == {}
    k = res["keras"]
    assert set(k["keras_mlp"]) == {"eagertape", "fused", "keras_fit"} | ({"tf"} if has_tf else set())
    assert set(k["keras_call1"]) >= {"eagertape", "jax.jit"}
    assert all(s["median_us"] > 0 for w in k.values() for s in w.values())
    assert {(t["workload"], t["versus"]) for t in res["targets"]} >= {("keras_mlp", "keras_fit")}
    # Fused mode's bound: the larger of 0.5 x TF eager and 1.1 x the compiled reference.
    fused = {t["workload"]: t for t in res["targets"] if t["system"] == "fused"}
    bound = max([1.1 * k["keras_mlp"]["keras_fit"]["median_us"]]
                + ([0.5 * k["keras_mlp"]["tf"]["median_us"]] if has_tf else []))
    assert fused["keras_mlp"]["ratio"] == pytest.approx(k["keras_mlp"]["fused"]["median_us"] / bound)
    assert any(line.startswith("keras_mlp") for line in r.stdout.splitlines())


def test_keras_benchmark_check_catches_a_wrong_loss():
    from benchmarks import keras_workloads
    keras_workloads._check("keras_mlp", {"eagertape": [2.3, 2.2], "tf": [2.3, 2.2001]})
    with pytest.raises(AssertionError, match="TF eager .* disagrees"):
        keras_workloads._check("keras_mlp", {"eagertape": [2.3, 2.2], "tf": [2.3, 2.1]})


def test_the_targets_are_data_with_reasons(tmp_path):
    # One [[target]] per target in benchmarks/targets.toml, each with its reason and
    # source; a malformed file is an error naming the row and the key.
    rows = targets.load()
    assert all(r["reason"] and r["source"] for r in rows)
    assert {r.get("measure") for r in rows} >= {"first_step", "peak_device_memory",
                                                 "training_loop"}
    bad = tmp_path / "t.toml"
    bad.write_text('[[target]]\nsystem = "fused"\nworkloads = ["chain10"]\n'
                   'versus = "tf"\nmax_ratio = 1.0\nsource = "x"\n')
    with pytest.raises(ValueError, match="target 1: `reason` is missing"):
        targets.load(bad)
    bad.write_text(bad.read_text().replace('["chain10"]', '["chain11"]') + 'reason = "y"\n')
    with pytest.raises(ValueError, match=r"target 1: unknown workloads \['chain11'\]"):
        targets.load(bad)


def test_the_benchmarks_docstring_examples_run():
    # tests/test_docstrings.py runs the package's examples; the benchmark's are here.
    import doctest
    for module in (benchmark, targets):
        r = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert r.attempted > 0 and r.failed == 0, module.__name__


def test_python_m_eagertape_bench_finds_the_checkout(monkeypatch, capsys):
    # The package ships no benchmark: its entry point runs the checkout's.
    from pathlib import Path

    import eagertape.__main__ as entry
    root = Path(__file__).resolve().parent.parent
    assert entry._checkout("benchmarks") == root
    with pytest.raises(SystemExit) as e:
        entry.main(["bench", "--help"])
    assert e.value.code == 0 and "python -m eagertape bench" in capsys.readouterr().out
    monkeypatch.setattr(entry, "_checkout", lambda folder: None)
    assert entry.main(["bench"]) == 2
    assert "run `python -m benchmarks` in it" in capsys.readouterr().err


def test_a_full_compile_cache_drops_the_least_recently_used_not_the_oldest():
    from eagertape._cache import COMPILED, CompileCache
    cache = CompileCache("test programs", 4)
    try:
        for k in "abcd":
            assert cache.get(k, lambda: (lambda v: v), now=True).state is COMPILED
        for k in "ab":                       # a and b used again: c and d are the oldest used
            cache.get(k, None)
        cache.get("e", lambda: (lambda v: v), now=True)      # full: a quarter (one) leaves
        assert sorted(cache.entries) == ["a", "b", "d", "e"]
        assert cache.hits == 2 and cache.misses == 5
    finally:
        from eagertape import _cache
        _cache._registry.remove(cache)


def test_fused_targets_are_bounded_by_the_fastest_eager_peer_or_jit():
    def w(**us):
        return {s: {"median_us": t} for s, t in us.items()}
    res = {"workloads": {
        # 0.5 x the fastest peer (torch, 80) = 40 > 1.1 x jit (11): bound 40.
        "chain10": w(eagertape=100.0, fused=60.0, **{"jax.jit": 10.0}, torch=80.0, tf=900.0),
        # 1.1 x jit (110) > 0.5 x torch (100): bound 110.
        "long300": w(eagertape=300.0, fused=100.0, **{"jax.jit": 100.0}, torch=200.0)},
        "first_steps": {"eagertape": {"step_ms": [30.0, 1, 1]}, "tf": {"step_ms": [10.0, 1, 1]}},
        "training": {"fused": {"steps_per_s": 92.0}, "jax.jit": {"steps_per_s": 100.0}}}
    rows = {(t["system"], t["workload"], t["versus"]): t for t in targets.check(res)}
    chain = rows[("fused", "chain10", "0.5x PyTorch eager")]
    assert chain["ratio"] == pytest.approx(60 / 40) and not chain["met"]
    long = rows[("fused", "long300", "1.1x jax.jit(value_and_grad)")]
    assert long["ratio"] == pytest.approx(100 / 110) and long["met"]
    assert rows[("eagertape", "long300", "torch")]["max_ratio"] == 0.7
    assert rows[("eagertape", "first step", "tf")]["ratio"] == pytest.approx(3.0)
    train = rows[("fused", "training loop", "jax.jit")]
    assert train["ratio"] == pytest.approx(100 / 92) and train["met"]


def _cnn_reference(d, pad2=((0, 1), (0, 1))):
    # cnn1024 written again, in float64 with explicit padding: TF's "SAME" at
    # stride 2 on 32 x 32 pads one row and one column, after the data.
    import jax
    dn = ("NHWC", "HWIO", "NHWC")
    x, oh = (jnp.asarray(d[k], jnp.float64) for k in ("xc", "onehotc"))

    def loss(k1, k2, kd):
        h = jax.nn.relu(jax.lax.conv_general_dilated(x, k1, (1, 1), ((1, 1), (1, 1)),
                                                     dimension_numbers=dn))
        h = jax.nn.relu(jax.lax.conv_general_dilated(h, k2, (2, 2), pad2, dimension_numbers=dn))
        return -jnp.mean(jnp.sum(oh * jax.nn.log_softmax(h.mean((1, 2)) @ kd), -1))
    v, gs = jax.value_and_grad(loss, argnums=(0, 1, 2))(
        *(jnp.asarray(d[k], jnp.float64) for k in ("k1", "k2", "kd")))
    return np.asarray(v), [np.asarray(g) for g in gs]


def test_device_workloads_run_and_agree_at_a_small_batch(monkeypatch):
    # The device workloads are the default on a GPU only; here at batch 8 (the
    # same code as at 1024), every system's values checked against jax.jit's.
    import jax
    assert benchmark.DEVICE_BATCH == 1024
    with monkeypatch.context() as m:
        m.setattr(jax, "default_backend", lambda: "cpu")
        assert not set(benchmark.DEVICE_WORKLOADS) & set(benchmark.default_workloads())
        m.setattr(jax, "default_backend", lambda: "gpu")
        assert set(benchmark.DEVICE_WORKLOADS) <= set(benchmark.default_workloads())
    monkeypatch.setattr(benchmark, "DEVICE_BATCH", 8)
    # long1000 is long300's code at 1000 steps: 40 run the same code, and its
    # thousand-op replay compiled in three systems was most of this test's 44 s.
    monkeypatch.setitem(benchmark._LONG, "long1000", 40)
    systems = [s for s in ("eagertape", "fused", "jax.jit", "torch")
               if s in benchmark.available_systems()]
    res = benchmark.run(workloads=["long1000", "mlp1024", "cnn1024"], rounds=1, batch_s=0.001,
                        extras=False, systems=systems)
    for w in ("long1000", "mlp1024", "cnn1024"):
        assert res["checks"][w]["systems"] == systems
        assert all(res["workloads"][w][s]["median_us"] > 0 for s in systems)
    rows = {(t["system"], t["workload"]) for t in targets.check(res)}
    assert {("fused", "long1000"), ("fused", "mlp1024"), ("fused", "cnn1024")} <= rows
    lines = []
    benchmark.report(res, out=lines.append)
    assert any(line.startswith("cnn1024") for line in lines)


def test_cnn_workload_is_the_stated_function_in_every_system(monkeypatch):
    import jax
    monkeypatch.setattr(benchmark, "DEVICE_BATCH", 8)
    d = benchmark._data(device=True)
    assert d["xc"].shape == (8, 32, 32, 3) and d["k2"].shape == (3, 3, 32, 64)
    ref = _cnn_reference(d)
    # On a GPU every system computes its convolutions in TF32 (benchmark._check).
    tol = ({"rtol": 1e-3, "atol": 1e-6} if jax.default_backend() == "cpu"
           else benchmark._tolerance("cnn1024"))
    got = {}
    for s in [s for s in ("eagertape", "fused", "jax.jit", "torch")
              if s in benchmark.available_systems()]:
        with benchmark._torch_as_jax([s]):
            v, gs = benchmark._block(benchmark._BUILDERS[s]("cnn1024", d)())
        got[s] = (benchmark._to_numpy(v), [benchmark._to_numpy(g) for g in gs])
        for a, b in zip([got[s][0]] + got[s][1], [ref[0]] + ref[1]):
            np.testing.assert_allclose(a, b, err_msg=s, **tol)
    benchmark._check("cnn1024", got, **benchmark._tolerance("cnn1024"))
    # Windows shifted by one (PyTorch's symmetric padding at stride 2) are caught,
    # even within the GPU's tolerance.
    shifted = _cnn_reference(d, pad2=((1, 1), (1, 1)))
    with pytest.raises(AssertionError, match="gradient 1 differs"):
        benchmark._check("cnn1024", {"jax.jit": got["jax.jit"], "torch": shifted},
                         **benchmark._TF32_TOL)


@pytest.mark.subprocess
def test_peak_device_memory_is_measured_per_process_and_checked_against_jit():
    import subprocess
    # The child builds and warms one system's step in a fresh process; the CPU keeps
    # no memory statistics, so its figures are None there (a GPU gives megabytes).
    r = subprocess.run([sys.executable, "-c", benchmark._PEAK_CHILD, "fused", "f4"],
                       env=harness.child_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    fig = json.loads(r.stdout.strip().splitlines()[-1])
    cpu = jax.devices()[0].memory_stats() is None
    assert set(fig) == {"peak_mb", "in_use_mb"}
    assert (fig["peak_mb"] is None) == cpu
    if cpu:
        assert benchmark._device_memory(["eagertape", "fused", "jax.jit"], lambda m: None) == {
            "workload": "mlp1024", "available": False}
    # The target: fused peak <= 1.2 x jax.jit's.
    res = {"workloads": {}, "device_memory": {"workload": "mlp1024", "available": True, "systems": {
        "fused": {"peak_mb": 130.0, "in_use_mb": 90.0},
        "jax.jit": {"peak_mb": 100.0, "in_use_mb": 80.0}}}}
    row, = targets.check(res)
    assert (row["workload"], row["ratio"], row["met"]) == ("peak device memory", 1.3, False)
    res["device_memory"]["systems"]["fused"]["peak_mb"] = 115.0
    assert targets.check(res)[0]["met"]
    lines = []
    benchmark._report_extras(dict(res, replay_cache={"hits": 0, "misses": 0, "size": 0,
                                                     "maxsize": 1}), lines.append)
    assert any("peak device memory of a mlp1024 training step" in ln for ln in lines)
    assert any(ln.split()[:4] == ["eagertape", "fused", "115.0", "90.0"] for ln in lines)
