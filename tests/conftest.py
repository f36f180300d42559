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
