"""eagertape's diagnostics: log records on the ``eagertape`` logger.

TF's tape warnings ("The dtype of the watched tensor must be floating ...") are
logged as TF logs them, ``log_first_n`` times per user call site (TF keys them on
the caller's file and line). They print as TF's do::

    WARNING:eagertape:The dtype of the watched tensor must be floating (e.g. float32), got int32

while the program has not configured logging. Once it has (``logging.basicConfig``,
absl, or any handler on the root or the ``eagertape`` logger), records go only to
the program's handlers. To silence them::

    import logging
    logging.getLogger("eagertape").setLevel(logging.ERROR)
"""
import logging
import os
import sys

from ._cache import Table

logger = logging.getLogger("eagertape")
_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_counts = Table("log_first_n call sites", 4096)   # (call site, message) -> times logged


class _DefaultHandler(logging.Handler):
    """Writes ``LEVEL:eagertape:message`` to the current ``sys.stderr``, but only
    while no other handler would receive the record.

    Without it, Python's last-resort handler prints bare messages. Checking at
    emit time, not at import, means a program that configures logging after
    importing eagertape (the usual order) gets each record once, from its own
    handlers; and the stream is looked up per record, so redirected or captured
    stderr (pytest, notebooks) receives it."""

    def __init__(self):
        super().__init__()
        self.setFormatter(logging.Formatter(logging.BASIC_FORMAT))

    def _others(self, name):
        lg = logging.getLogger(name)
        while lg is not None:
            if any(h is not self for h in lg.handlers):
                return True
            if not lg.propagate:
                return False
            lg = lg.parent
        return False

    def emit(self, record):
        if self._others(record.name):
            return
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:       # noqa: BLE001 - logging must never raise into the caller
            self.handleError(record)


# A handler on the library's own logger touches no global state (no root handler,
# no level, no JAX setting) and does nothing until a record is logged; it keeps
# the logger propagating, so the program's handlers (and pytest's caplog) see
# every record.
if not any(isinstance(h, _DefaultHandler) for h in logger.handlers):
    logger.addHandler(_DefaultHandler())


def user_frame():
    """``(file, line)`` of the innermost frame outside eagertape (the user's
    code that made the call), or ``("?", 0)``."""
    f = sys._getframe(1)
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)).startswith(_PKG_DIR):
        f = f.f_back
    return (f.f_code.co_filename, f.f_lineno) if f is not None else ("?", 0)


def log_first_n(level, msg, n, *args):
    """Log ``msg % args`` at most ``n`` times per calling line of user code."""
    key = (user_frame(), msg)
    count = _counts.get(key, 0)
    if count < n:
        _counts.put(key, count + 1)
        logger.log(level, msg, *args)
