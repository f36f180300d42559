"""Process-wide settings, each checked where it is set.

Everything else eagertape keeps is per thread (``_state``) or a cache
(``_cache``). ``execution_mode`` is the mode a thread starts in: the
environment variable ``EAGERTAPE_EXECUTION_MODE``, or ``set_execution_mode``.
"""
import os

MODES = ("eager", "fused")


def check_mode(mode, argname="mode"):
    if mode not in MODES:
        raise ValueError(f"argument `{argname}` must be 'eager' or 'fused', got {mode!r}")
    return mode


class Config:
    """The process-wide settings (one instance, ``config``).

    ``execution_mode``: the execution mode new threads start in.
    ``max_pending``: past this many calls a fused graph is run and a new one
    started, so that a loop that never reads a value does not grow without end
    (and XLA's compile time, which grows faster than linearly with a program's
    size, stays bounded).
    ``compile_max_ops``: longer tapes always replay op by op (XLA's compile time:
    about 6 s for 1000 small ops on 2 cores), with per-op pullbacks compiled once
    per op kind.
    ``churn``: structures churn (a loop whose tape changes every step, a test
    suite, a notebook) once this many of the last 16 gradients had new
    structures; a new structure is then replayed op by op, and compiled only
    if it comes back (``_cache.CompileCache``).
    ``run_functions_eagerly``: ``tf.config.run_functions_eagerly``: every
    ``eagertape.function`` runs its Python body op by op.
    """

    __slots__ = ("_execution_mode", "max_pending", "compile_max_ops", "churn",
                 "run_functions_eagerly")

    def __init__(self):
        mode = os.environ.get("EAGERTAPE_EXECUTION_MODE", "eager")
        if mode not in MODES:
            raise ValueError(f"environment variable EAGERTAPE_EXECUTION_MODE must be 'eager' or "
                             f"'fused', got {mode!r}; unset it or set one of those")
        self._execution_mode = mode
        self.max_pending = 1000
        self.compile_max_ops = 2500
        self.churn = 3
        self.run_functions_eagerly = False

    @property
    def execution_mode(self):
        return self._execution_mode

    @execution_mode.setter
    def execution_mode(self, mode):
        self._execution_mode = check_mode(mode)


config = Config()
