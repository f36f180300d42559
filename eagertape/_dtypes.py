"""Dtype predicates, each answered once per dtype (NumPy's ``issubdtype`` costs
microseconds, and the recording path asks per input)."""
import jax
import jax.numpy as jnp
import numpy as np

from ._cache import Table

_inexact = Table("dtype: inexact", 1024)
_complex = Table("dtype: complex", 1024)
_categories = Table("dtype: category", 1024)
_int_ranges = Table("dtype: int range", 1024)


def is_inexact(dtype):
    """Whether ``dtype`` is floating or complex (bfloat16 and JAX's other float types too)."""
    r = _inexact.get(dtype)
    if r is None:
        r = _inexact.put(dtype, bool(jax.dtypes.issubdtype(dtype, jnp.inexact)))
    return r


def is_complex(dtype):
    r = _complex.get(dtype)
    if r is None:
        r = _complex.put(dtype, bool(np.issubdtype(dtype, np.complexfloating)))
    return r


def category(dtype):
    """TF's kinds of values: 'b' bool, 'i' integer, 'f' floating (bfloat16 too),
    'c' complex, '?' other."""
    c = _categories.get(dtype)
    if c is None:
        d = np.dtype(dtype)
        if d == np.bool_:
            c = "b"
        elif np.issubdtype(d, np.integer):
            c = "i"
        elif np.issubdtype(d, np.complexfloating):
            c = "c"
        elif is_inexact(d):
            c = "f"
        else:
            c = "?"
        _categories.put(dtype, c)
    return c


def int_range(dtype):
    """``(min, max)`` of an integer dtype, as Python ints."""
    r = _int_ranges.get(dtype)
    if r is None:
        info = np.iinfo(dtype)
        r = _int_ranges.put(dtype, (int(info.min), int(info.max)))
    return r
