"""Per-thread recording state. Nothing here is global across threads."""
import threading


class _State(threading.local):
    def __init__(self):
        self.tapes = []          # GradientTapes recording on this thread, in entry order
        self.var_watchers = []   # lists collecting the Variables read (custom_gradient)
        self.replay = "compiled"  # or "eager": per-op pullbacks (testing.eager_replay)


state = _State()
