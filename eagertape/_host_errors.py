"""Errors raised by host callbacks inside a compiled call, given back as they were.

XLA runs a host callback (``jax.debug.callback``, ``jax.pure_callback``) inside the
compiled computation; an exception the callback raises reaches the caller as
``jax.errors.JaxRuntimeError`` (INTERNAL: CpuCallback error ...) whose text holds the
original's traceback. A callback wrapped by ``raising(fn)`` keeps the exception it
raises; ``mapped()``, around the place that runs compiled calls, raises the kept
exception (TF's error class, its message) in place of JAX's runtime error, as TF's
graph raises its op's error. A JAX runtime error with no kept exception in it
passes as it is.

>>> import jax, jax.numpy as jnp
>>> from eagertape import _host_errors
>>> def check(x):
...     if x < 0:
...         raise ValueError("negative")
>>> f = jax.jit(lambda x: jax.debug.callback(_host_errors.raising(check), x) or x)
>>> try:
...     with _host_errors.mapped():
...         _ = f(jnp.float32(-1.0)).block_until_ready()
... except ValueError as e:
...     print(type(e).__name__, e)
ValueError negative
"""
import collections
import contextlib
import functools
import threading

import jax

_KEPT = 32                      # the most recent kept exceptions (older ones are dropped)
_lock = threading.Lock()
_kept = collections.deque(maxlen=_KEPT)


def raising(fn):
    """``fn`` as a host callback whose exceptions ``mapped`` gives back."""
    @functools.wraps(fn)
    def callback(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            with _lock:
                _kept.append(e)
            raise
    return callback


def original(error):
    """The kept exception whose text ``error`` (a JAX runtime error) holds, taken
    out of the kept ones; None if there is none."""
    text = str(error)
    with _lock:
        for e in reversed(_kept):
            if f"{type(e).__name__}: {e}" in text:
                _kept.remove(e)
                return e
    return None


@contextlib.contextmanager
def mapped():
    """Around a compiled call: a host callback's kept exception is raised in place
    of the JAX runtime error that carries it."""
    try:
        yield
    except jax.errors.JaxRuntimeError as e:
        orig = original(e)
        if orig is None:
            raise
        raise orig from None
