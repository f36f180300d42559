"""``jax.numpy.fft``, recorded."""
import jax.numpy.fft as _src

from .._namespace import wrap_namespace as _wrap_namespace

__all__ = _wrap_namespace(_src, globals())
