"""``jax.numpy``, recorded: every public callable of ``jax.numpy`` (and its
``linalg`` and ``fft``), taking and returning eagertape Tensors.

>>> import eagertape as et
>>> from eagertape import numpy as tnp
>>> tnp.sum(tnp.square(et.constant([1.0, 2.0])))
<tf.Tensor: shape=(), dtype=float32, numpy=5.0>
"""
import jax.numpy as _jnp

from .._namespace import wrap_namespace as _wrap_namespace

__all__ = _wrap_namespace(_jnp, globals())

from . import fft, linalg  # noqa: E402

__all__ += ["fft", "linalg"]
