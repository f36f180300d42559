import os

import jax
import pytest

import eagertape as et
from eagertape import introspect


def pytest_addoption(parser):
    parser.addoption("--execution-mode", choices=("both", "eager", "fused"),
                     default=os.environ.get("EAGERTAPE_TEST_MODES", "both"),
                     help="run every test in eager mode, in fused mode, or in both (default)")


def pytest_configure(config):
    config.addinivalue_line("markers", "eager: runs in eager mode only (it counts the eager "
                            "replay's compilations)")
    config.addinivalue_line("markers", "jax_x64: runs with jax_enable_x64 on, as for a user "
                            "who sets JAX_ENABLE_X64=1 (its jax.grad/jvp oracles compute in "
                            "float64); the other tests run with JAX's default, 32-bit")


def pytest_report_header(config):
    return f"eagertape execution modes: {config.getoption('--execution-mode')}"


def pytest_generate_tests(metafunc):
    # Every test runs once per execution mode: values, gradients and errors
    # must not depend on it.
    if "_et_mode" in metafunc.fixturenames:
        opt = metafunc.config.getoption("--execution-mode")
        modes = ["eager", "fused"] if opt == "both" else [opt]
        if metafunc.definition.get_closest_marker("eager"):
            modes = ["eager"]
        metafunc.parametrize("_et_mode", modes, ids=[f"{m}-mode" for m in modes])


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


@pytest.fixture(params=["compiled", "per_op"])
def replay(request):
    """Run a test under both replays: the compiled whole-tape one and per-op pullbacks."""
    with introspect.replay_policy(request.param):
        yield request.param


@pytest.fixture(autouse=True)
def _no_tape_left():
    yield
    state = introspect.thread_state()
    assert state.tapes == [], "a test left a GradientTape on the stack"
    assert state.var_watchers == []
    _ = et


def _hypothesis_profiles():
    import os

    from hypothesis import settings
    # CI runs the same examples every time (a red CI is then reproducible); a
    # developer's run explores new ones.
    settings.register_profile("ci", derandomize=True, deadline=None)
    if os.environ.get("CI"):
        settings.load_profile("ci")


_hypothesis_profiles()
