"""Numerics checking: stop at the first op, forward or backward, that makes a NaN
or an infinity (as TF's ``tf.debugging.enable_check_numerics`` and PyTorch's
``detect_anomaly``).

>>> import eagertape as et
>>> from eagertape import numpy as tnp
>>> x = et.constant(0.0)
>>> with et.debug.check_numerics():
...     with et.GradientTape() as tape:
...         tape.watch(x)
...         y = tnp.log(x)          # raises here, naming `log` and this line
Traceback (most recent call last):
    ...
eagertape.debug.NumericsError: !!! Detected infinity in output 0 of op 'log' ... !!!

While checking is on (per thread), every op's floating outputs are checked as
they are made, every op records where it was called, and ``tape.gradient``
replays op by op, checking each pullback's results. Everything is slower;
values inside an ``eagertape.function`` being traced are not checked.
"""
import contextlib

import jax
import jax.numpy as jnp

from ._dtypes import is_inexact
from ._errors import InvalidArgumentError
from ._logging import user_frame
from ._state import local, switched

__all__ = ["check_numerics", "enable_check_numerics", "disable_check_numerics",
           "NumericsError"]

class NumericsError(InvalidArgumentError):
    """An op made a NaN or an infinity while numerics checking was on (a subclass
    of ``InvalidArgumentError``, as TF's)."""


def enable_check_numerics():
    """Check every op on this thread from now on (``tf.debugging.enable_check_numerics``).

    >>> import eagertape as et
    >>> from eagertape import numpy as tnp
    >>> et.debug.enable_check_numerics()
    >>> tnp.sqrt(et.constant(-1.0))
    Traceback (most recent call last):
        ...
    eagertape.debug.NumericsError: !!! Detected NaN in output 0 of op 'sqrt' ... !!!
    >>> et.debug.disable_check_numerics()
    >>> tnp.sqrt(et.constant(-1.0)).numpy()
    np.float32(nan)
    """
    local.state.check_numerics = True


def disable_check_numerics():
    """Stop checking ops on this thread (see :func:`enable_check_numerics`)."""
    local.state.check_numerics = False


@contextlib.contextmanager
def check_numerics():
    """Check every op (forward and backward) inside the ``with`` block.

    A gradient that is not finite is caught in the backward pass, at the op whose
    pullback made it:

    >>> import eagertape as et
    >>> from eagertape import numpy as tnp
    >>> x = et.constant(0.0)
    >>> with et.debug.check_numerics():
    ...     with et.GradientTape() as tape:
    ...         tape.watch(x)
    ...         y = tnp.sqrt(x)            # finite: sqrt(0) = 0
    ...     g = tape.gradient(y, x)        # 1 / (2 sqrt(0)) is not
    Traceback (most recent call last):
        ...
    eagertape.debug.NumericsError: !!! Detected infinity in the gradient of input 0 of op 'sqrt' ...
    """
    with switched(check_numerics=True):
        yield


def call_site():
    """``file:line`` of the innermost frame outside eagertape (where the user made the op)."""
    file, line = user_frame()
    return "<unknown>" if file == "?" else f"{file}:{line}"


def _bad(value):
    if value is None or isinstance(value, jax.core.Tracer):
        return None
    dtype = getattr(value, "dtype", None)
    if dtype is None or not is_inexact(dtype):
        return None
    if bool(jnp.all(jnp.isfinite(value))):
        return None
    return "NaN" if bool(jnp.any(jnp.isnan(value))) else "infinity"


def _first_bad(values):
    for k, v in enumerate(values):
        what = _bad(getattr(v, "_value", v))
        if what is not None:
            return k, what
    return None


def check_outputs(name, values, where):
    """Raise NumericsError if one of ``values`` (an op's outputs) is not finite."""
    bad = _first_bad(values)
    if bad is not None:
        raise NumericsError(f"!!! Detected {bad[1]} in output {bad[0]} of op {name!r} (# of "
                            f"outputs: {len(values)}), called at {where} !!!")


def check_gradients(op_name, grads, where):
    """Raise NumericsError if a pullback's results (input gradients) are not finite."""
    bad = _first_bad(grads)
    if bad is not None:
        raise NumericsError(f"!!! Detected {bad[1]} in the gradient of input {bad[0]} of op "
                            f"{op_name!r} (recorded at {where}) during backprop !!!")
