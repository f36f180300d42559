"""The suite's axes, its quick tier and its caches (docs/testing.md says the same).

Axes, paid only where they can change the answer:
- execution mode (eager, fused): the modules in ``MODE_AXIS``, whose tests record,
  replay or assign; every other module runs once, in the default mode (eager). A test
  opts out with ``@pytest.mark.eager`` (it counts the eager replay's compilations) or
  in with ``@pytest.mark.both_modes``.
- replay (compiled, per-op): tests marked ``replay_axis`` that take the ``replay``
  fixture, and the op table (``tests/test_ops.py``, parametrized there); any other
  test taking ``replay`` runs under the compiled replay.

``--quick`` is the edit loop's tier: eager mode, the compiled replay, no test that
starts an interpreter (``SUBPROCESS_MODULES``, ``@pytest.mark.subprocess``) but two
Keras programs (``@pytest.mark.quick``), nothing marked ``slow``, an evenly spaced
sample of each large parametrized table and a few examples of each property test.

The run compiles with XLA's CPU compiler set to compile fast and keeps JAX's
compiled programs across runs (``FAST_COMPILE_FLAGS``, ``_compilation_cache``; both
for the tests only, the library sets neither).
"""
import os
import pathlib
import sys
import tempfile

import jax
import pytest

import eagertape as et
from eagertape import introspect

MODE_AXIS = frozenset({
    "test_bad_input", "test_core", "test_forward", "test_function", "test_fused",
    "test_fuzz", "test_interop", "test_jacobians", "test_keras", "test_ops",
    "test_optimizers", "test_properties", "test_reliability", "test_seeds",
    "test_tf_checkpoint", "test_tf_conversions", "test_tf_data", "test_tf_differential",
    "test_tf_facade", "test_tf_fuzz", "test_tf_image", "test_tf_linalg",
    "test_tf_nn_more", "test_tf_random_signal", "test_tf_runtime", "test_tf_semantics",
    "test_tf_sparse", "test_tf_structures", "test_x64",
})
# Not test_tf_strings: string tensors live on the host and no string op records or is
# queued, so no execution mode can change its answers (its numeric ops are checked in
# both modes by the modules above).
# Every test of these starts an interpreter (examples, README blocks, notebooks,
# launchers, packaging checks, the TF fuzzer's workers, the Keras programs: Keras has
# one backend a process): left out of the quick tier, but for those marked `quick`.
SUBPROCESS_MODULES = frozenset({
    "test_examples", "test_keras", "test_logging", "test_multiprocess", "test_notebooks",
    "test_packaging", "test_program_server", "test_readme", "test_structure", "test_tf_fuzz",
})
QUICK_SAMPLE = 4     # items kept per parametrized test function in the quick tier
QUICK_EXAMPLES = 3   # hypothesis examples per property test in the quick tier


def pytest_addoption(parser):
    parser.addoption("--execution-mode", choices=("both", "eager", "fused"),
                     default=os.environ.get("EAGERTAPE_TEST_MODES", "both"),
                     help="run the tests that carry the mode axis in eager mode, in fused "
                     "mode, or in both (default)")
    parser.addoption("--quick", action="store_true",
                     help="the quick tier: one mode, the compiled replay, no subprocesses, "
                     "nothing slow, a sample of each table (docs/testing.md)")


def pytest_configure(config):
    for line in (
        "eager: runs in eager mode only (it counts the eager replay's compilations)",
        "both_modes: runs in both execution modes though its module does not carry the axis",
        "replay_axis: runs under both replays (compiled and per-op): it is about the replay",
        "subprocess: starts an interpreter (left out of the quick tier)",
        "quick: kept in the quick tier though it starts an interpreter (the Keras join can "
        "be checked only in a process of its own)",
        "slow: takes long (left out of the quick tier)",
        "jax_x64: runs with jax_enable_x64 on, as for a user who sets JAX_ENABLE_X64=1 "
        "(its jax.grad/jvp oracles compute in float64); the other tests run with JAX's "
        "default, 32-bit",
    ):
        config.addinivalue_line("markers", line)


def pytest_report_header(config):
    tier = "quick tier" if config.getoption("--quick") else "full suite"
    xla = os.environ.get("XLA_FLAGS", "").split()
    compile_ = "fast" if all(f in xla for f in FAST_COMPILE_FLAGS) else "XLA's defaults"
    return f"eagertape: {tier}, execution modes: {_mode_option(config)}, compiling: {compile_}"


def _mode_option(config):
    return "eager" if config.getoption("--quick") else config.getoption("--execution-mode")


def _module(node):
    return pathlib.Path(str(node.fspath)).stem


def pytest_generate_tests(metafunc):
    if "_et_mode" in metafunc.fixturenames:
        opt = _mode_option(metafunc.config)
        definition = metafunc.definition
        if opt != "both":
            modes = [opt]
        elif definition.get_closest_marker("eager"):
            modes = ["eager"]
        elif (_module(definition) in MODE_AXIS
              or definition.get_closest_marker("both_modes")):
            modes = ["eager", "fused"]
        else:
            modes = ["eager"]
        metafunc.parametrize("_et_mode", modes, ids=[f"{m}-mode" for m in modes])
    if "replay" in metafunc.fixturenames and not _parametrized(metafunc, "replay"):
        both = (metafunc.definition.get_closest_marker("replay_axis")
                and not metafunc.config.getoption("--quick"))
        metafunc.parametrize("replay", ["compiled", "per_op"] if both else ["compiled"],
                             indirect=True)


def _parametrized(metafunc, name):
    return any(name in (m.args[0] if isinstance(m.args[0], (list, tuple))
                        else [a.strip() for a in m.args[0].split(",")])
               for m in metafunc.definition.iter_markers("parametrize"))


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--quick"):
        return
    keep, drop, tables = [], [], {}
    for item in items:
        starts = _module(item) in SUBPROCESS_MODULES or item.get_closest_marker("subprocess")
        if (starts and not item.get_closest_marker("quick") or item.get_closest_marker("slow")
                or getattr(item, "callspec", None) and item.callspec.params.get("replay")
                == "per_op"):
            drop.append(item)
        elif getattr(item, "callspec", None):
            tables.setdefault((item.nodeid.split("::")[0], item.originalname), []).append(item)
        else:
            keep.append(item)
    for group in tables.values():
        # evenly spaced, first and last included: the same sample every run
        n = len(group)
        picks = {round(i * (n - 1) / (QUICK_SAMPLE - 1)) for i in range(QUICK_SAMPLE)} \
            if n > QUICK_SAMPLE else set(range(n))
        for i, item in enumerate(group):
            (keep if i in picks else drop).append(item)
    keep.sort(key=items.index)
    config.hook.pytest_deselected(items=drop)
    items[:] = keep
    from hypothesis import settings
    for item in keep:
        # A property test's own @settings outranks a profile: cap it where it is set.
        fn = getattr(item, "obj", None)
        own = getattr(fn, "_hypothesis_internal_use_settings", None)
        if own is not None and own.max_examples > QUICK_EXAMPLES:
            fn._hypothesis_internal_use_settings = settings(
                own, max_examples=QUICK_EXAMPLES, derandomize=True, deadline=None)


@pytest.fixture(autouse=True)
def _execution_mode(_et_mode):
    """Every test starts in its mode (a test may switch inside); examples and
    notebooks run in subprocesses, which read the environment."""
    et.set_execution_mode(_et_mode)
    os.environ["EAGERTAPE_EXECUTION_MODE"] = _et_mode
    introspect.clear_caches("log_first_n call sites")   # TF's warnings count per call site
    yield
    et.set_execution_mode("eager")


@pytest.fixture(autouse=True)
def _jax_x64(request):
    """Both of a user's JAX configurations are tested: eagertape must not depend on
    the global jax_enable_x64 (it switches 64-bit types on for its own calls)."""
    if request.node.get_closest_marker("jax_x64"):
        with jax.enable_x64(True):
            yield
    else:
        assert not jax.config.jax_enable_x64, "a test left jax_enable_x64 on"
        yield
        assert not jax.config.jax_enable_x64, "eagertape left jax_enable_x64 on"


@pytest.fixture
def replay(request):
    """The test's replay (see pytest_generate_tests): the compiled whole-tape one, and
    per-op pullbacks too where the test is about the replay."""
    with introspect.replay_policy(request.param):
        yield request.param


@pytest.fixture(autouse=True)
def _no_tape_left():
    yield
    state = introspect.thread_state()
    assert state.tapes == [], "a test left a GradientTape on the stack"
    assert state.var_watchers == []


def cache_root():
    """Where the tests keep what they may reuse across runs (XLA's programs, TF's
    outcomes): ``$EAGERTAPE_TEST_CACHE``, else the user's cache folder; never the
    checkout, so a fresh clone on the same machine finds it."""
    root = os.environ.get("EAGERTAPE_TEST_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "eagertape-tests")
    return root


def _compilation_cache():
    """JAX's persistent compilation cache, for the test run only (the library never
    sets it): a program compiled by one worker, one run or one example's interpreter
    is read back by the next. ``EAGERTAPE_TEST_JAX_CACHE=off`` runs without it. The
    environment carries it into the subprocesses (examples, notebooks, README)."""
    if os.environ.get("EAGERTAPE_TEST_JAX_CACHE") == "off":
        return
    path = os.environ.get("JAX_COMPILATION_CACHE_DIR") or os.path.join(cache_root(), "jax")
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return                                  # read-only home: run without it
    # Small programs too: the suite's are, and their compiles are its main cost.
    settings = {"jax_compilation_cache_dir": path,
                "jax_persistent_cache_min_compile_time_secs": 0,
                "jax_persistent_cache_min_entry_size_bytes": 0}
    for name, value in settings.items():
        os.environ[name.upper()] = str(value)
        jax.config.update(name, value)


# XLA's CPU compiler set to compile fast, for the test run only (as the compile cache
# is; the library sets neither): the suite's cost is compiling thousands of small
# programs, not running them. Measured on the 2-core machine: XLA's compile time of
# a Keras corpus program 10.5 -> 2.7 s; test_ops and test_tf_nn_more, cold, 241 ->
# 149 s. The loop-fusion emitters and LLVM's optimizations change how fast the code
# runs, not what it computes (fast math stays off). ``EAGERTAPE_TEST_FAST_COMPILE=off``
# runs with XLA's defaults, as users do (.ci/run's minimum-versions step does).
FAST_COMPILE_FLAGS = ("--xla_cpu_use_fusion_emitters=false",
                      "--xla_backend_optimization_level=0",
                      "--xla_llvm_disable_expensive_passes=true")


def _fast_compile():
    if os.environ.get("EAGERTAPE_TEST_FAST_COMPILE") == "off":
        return
    flags = os.environ.get("XLA_FLAGS", "").split()
    new = [f for f in FAST_COMPILE_FLAGS if f.split("=")[0] not in
           {g.split("=")[0] for g in flags}]
    if not new or not _xla_accepts(new):
        return
    # Read when the backend starts (no test has computed yet), and by subprocesses.
    os.environ["XLA_FLAGS"] = " ".join(flags + new)


def _xla_accepts(flags):
    """Whether this jaxlib's XLA knows ``flags`` (an unknown one aborts the process
    that starts a backend): asked once per jaxlib version, the answer kept."""
    import importlib.metadata
    import json
    import subprocess
    import sys
    try:
        version = importlib.metadata.version("jaxlib")
    except importlib.metadata.PackageNotFoundError:
        return False
    record = os.path.join(cache_root(), "xla-flags.json")
    key = f"{version} {' '.join(flags)}"
    try:
        with open(record) as f:
            known = json.load(f)
    except (OSError, ValueError):
        known = {}
    if key not in known:
        env = dict(os.environ, XLA_FLAGS=" ".join(os.environ.get("XLA_FLAGS", "").split()
                                                  + list(flags)), JAX_PLATFORMS="cpu")
        probe = "import jax.numpy as jnp; jnp.ones(2).block_until_ready()"
        r = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                           timeout=300)
        known[key] = r.returncode == 0
        try:
            os.makedirs(os.path.dirname(record), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(record))
            with os.fdopen(fd, "w") as f:
                json.dump(known, f)
            os.replace(tmp, record)
        except OSError:
            pass
    return known[key]


def _hypothesis_profiles():
    from hypothesis import settings
    # CI runs the same examples every time (a red CI is then reproducible); a
    # developer's run explores new ones.
    settings.register_profile("ci", derandomize=True, deadline=None)
    if os.environ.get("CI"):
        settings.load_profile("ci")


class _KerasOnJax:
    """The test processes' Keras is Keras on JAX, whoever imports it first.

    Keras has one backend a process, fixed at its import, and ``import tensorflow``
    imports Keras with TF's backend: in a worker where a test imported TensorFlow
    in-process (an oracle), every later in-process use of ``eagertape.tf.keras`` (a
    docstring's example) failed, and which tests that hit depended on the order
    pytest-xdist gave them. An import hook rather than an import here: workers that
    never touch Keras do not pay its 3 s. ``KERAS_BACKEND`` is set only while Keras
    runs its import, so subprocesses (TF's side of a comparison) do not inherit it.
    What needs TF's Keras runs in a process of its own."""

    def find_spec(self, name, path=None, target=None):
        if name != "keras":
            return None
        import importlib.machinery
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            # (Gone once Keras runs its import; not at find_spec: TensorFlow asks
            # importlib.util.find_spec("keras") before it imports it.)
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            old = os.environ.get("KERAS_BACKEND")
            os.environ["KERAS_BACKEND"] = "jax"
            try:
                run(module)
            finally:
                if old is None:
                    os.environ.pop("KERAS_BACKEND", None)
                else:
                    os.environ["KERAS_BACKEND"] = old
        spec.loader.exec_module = exec_module
        return spec


def _keras_on_jax():
    if "keras" not in sys.modules and os.environ.get("KERAS_BACKEND") in (None, "", "jax"):
        sys.meta_path.insert(0, _KerasOnJax())


_fast_compile()
_compilation_cache()
_hypothesis_profiles()
_keras_on_jax()
