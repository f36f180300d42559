import pytest

import eagertape as et
from eagertape._state import state


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
