"""TensorFlow-style `log_first_n`: warnings are log records on the ``eagertape``
logger, counted per user call site (TF keys them on the caller's file and line)."""
import logging
import os
import sys

logger = logging.getLogger("eagertape")
_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_counts: dict = {}


def _caller():
    f = sys._getframe(1)
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)).startswith(_PKG_DIR):
        f = f.f_back
    return (f.f_code.co_filename, f.f_lineno) if f is not None else ("?", 0)


def log_first_n(level, msg, n, *args):
    """Log ``msg % args`` at most ``n`` times per calling line of user code."""
    key = (_caller(), msg)
    count = _counts.get(key, 0)
    if count < n:
        _counts[key] = count + 1
        logger.log(level, msg, *args)
