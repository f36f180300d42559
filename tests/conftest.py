import os

import pytest

import eagertape as et
from eagertape._state import default_mode, state


def pytest_addoption(parser):
    parser.addoption("--execution-mode", choices=("eager", "fused"),
                     default=os.environ.get("EAGERTAPE_EXECUTION_MODE", "eager"),
                     help="run every test in this eagertape execution mode")


def pytest_configure(config):
    config.addinivalue_line("markers", "eager: runs in eager mode in either suite run (it "
                            "counts the eager replay's compilations)")
    mode = config.getoption("--execution-mode")
    # Examples and notebooks run in subprocesses: they read the environment.
    os.environ["EAGERTAPE_EXECUTION_MODE"] = mode
    default_mode[0] = mode


def pytest_report_header(config):
    return f"eagertape execution mode: {config.getoption('--execution-mode')}"


@pytest.fixture(autouse=True)
def _execution_mode(request):
    """Every test starts in the mode asked for (a test may switch inside)."""
    mode = request.config.getoption("--execution-mode")
    et.set_execution_mode("eager" if request.node.get_closest_marker("eager") else mode)
    yield


@pytest.fixture(params=["compiled", "eager"])
def replay(request):
    """Run a test under both replays: the compiled whole-tape one and per-op pullbacks."""
    saved = state.replay
    state.replay = request.param
    try:
        yield request.param
    finally:
        state.replay = saved


@pytest.fixture(autouse=True)
def _no_tape_left():
    yield
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
