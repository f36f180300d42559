"""``tf.random``: a stateful generator over ``jax.random``, reproducible after ``set_seed``.

Each call splits a fresh key from the generator, so a sequence of calls after
``set_seed(s)`` gives the same numbers every run (not TF's numbers: TF's
generator is Philox in its own layout).

>>> import eagertape.tf as tf
>>> tf.random.set_seed(0); a = tf.random.normal([2])
>>> tf.random.set_seed(0); b = tf.random.normal([2])
>>> bool(tf.reduce_all(a == b))
True
"""
import threading

import jax
import numpy as np

from .._tensor import _as_dtype, _wrap
from ._util import _Unsupported, tensor as _t

__getattr__ = _Unsupported("tf.random")


class _Generator(threading.local):
    def __init__(self):
        self.key = None


_gen = _Generator()


def set_seed(seed):
    """Seed the generator of this thread."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"argument `seed` must be an int, got {seed!r}")
    _gen.key = jax.random.PRNGKey(int(seed))


def _next_key(seed=None):
    if _gen.key is None:
        _gen.key = jax.random.PRNGKey(np.random.SeedSequence().entropy % (2 ** 31))
    _gen.key, sub = jax.random.split(_gen.key)
    if seed is not None:           # an op-level seed varies the stream, as in TF
        sub = jax.random.fold_in(sub, int(seed))
    return sub


def _shape(shape):
    if hasattr(shape, "numpy"):
        shape = shape.numpy()
    return tuple(int(s) for s in np.reshape(np.asarray(shape, dtype=np.int64), -1))


def normal(shape, mean=0.0, stddev=1.0, dtype="float32", seed=None, name=None):
    dtype = _as_dtype(dtype)
    z = jax.random.normal(_next_key(seed), _shape(shape), dtype)
    return _wrap(z * _param(stddev, dtype) + _param(mean, dtype))


def _param(value, dtype):
    # mean and stddev in the samples' dtype, as TF converts them (an np.float64
    # stddev must not make float32 samples float64).
    v = value.jax() if hasattr(value, "jax") else value
    return jax.numpy.asarray(v).astype(dtype)


def uniform(shape, minval=0, maxval=None, dtype="float32", seed=None, name=None):
    dtype = _as_dtype(dtype)
    key = _next_key(seed)
    if np.issubdtype(dtype, np.integer):
        if maxval is None:
            raise ValueError("argument `maxval` must be given for an integer dtype")
        return _wrap(jax.random.randint(key, _shape(shape), minval, maxval, dtype))
    return _wrap(jax.random.uniform(key, _shape(shape), dtype, minval,
                                    1.0 if maxval is None else maxval))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype="float32", seed=None, name=None):
    """Normal samples redrawn beyond two standard deviations (TF's rule)."""
    dtype = _as_dtype(dtype)
    z = jax.random.truncated_normal(_next_key(seed), -2.0, 2.0, _shape(shape), dtype)
    return _wrap(z * _param(stddev, dtype) + _param(mean, dtype))


def shuffle(value, seed=None, name=None):
    """A permutation of ``value`` along its first axis."""
    v = _t(value)
    return _wrap(jax.random.permutation(_next_key(seed), v.jax(), axis=0))
