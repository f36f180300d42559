"""``tf.image`` on eagertape (``adjust_contrast`` and ``total_variation`` for now).

>>> import eagertape.tf as tf
>>> tf.image.adjust_contrast(tf.constant([[[1.0], [3.0]]]), 2.0).numpy().ravel()
array([0., 4.], dtype=float32)
"""

import jax
import jax.numpy as jnp

from .._errors import InvalidArgumentError
from .._primitive import call as _call
from ._util import _Unsupported, tensor as _t

__getattr__ = _Unsupported("tf.image")


def adjust_contrast(images, contrast_factor, name=None):
    """``(x - mean) * contrast_factor + mean`` per channel, the mean over each
    image's height and width (the axes -3 and -2), as ``tf.image.adjust_contrast``.

    Integer images are converted as ``tf.image.convert_image_dtype`` does (to
    float32 in [0, 1], and back saturated); float64 images are computed in
    float32. As in TF, which registers no gradient for AdjustContrastv2, a
    gradient through it raises LookupError.
    """
    images = _t(images)
    if images.ndim < 3:
        raise InvalidArgumentError(f"argument `images` must be at least 3-D (height, width, "
                                   f"channels), got shape {images.shape}")
    factor = _t(contrast_factor, "float32")
    return _call(_adjust_contrast, (images, factor))


def _adjust_contrast(images, factor):
    dtype = images.dtype
    if dtype in (jnp.float16, jnp.float32):
        return _adjust(images, factor.astype(dtype))
    if jnp.issubdtype(dtype, jnp.floating):
        return _adjust(images.astype(jnp.float32), factor).astype(dtype)
    top = jnp.iinfo(dtype).max
    flt = images.astype(jnp.float32) * (1.0 / top)             # convert_image_dtype
    out = _adjust(flt, factor) * (top + 0.5)                    # ... and back, saturated
    info = jnp.iinfo(dtype)
    return jnp.clip(out, info.min, info.max).astype(dtype)


@jax.custom_vjp
def _adjust(x, factor):
    mean = jnp.mean(x, axis=(-3, -2), keepdims=True)
    return (x - mean) * factor + mean


def _adjust_fwd(x, factor):
    return _adjust(x, factor), None


def _adjust_bwd(res, g):
    raise LookupError("gradient registry has no entry for: AdjustContrastv2 "
                      "(TensorFlow registers no gradient for tf.image.adjust_contrast)")


_adjust.defvjp(_adjust_fwd, _adjust_bwd)


def total_variation(images, name=None):
    """The sum of absolute differences of neighbouring pixels, per image (a
    scalar for one 3-D image, one value per image for a 4-D batch), as
    ``tf.image.total_variation``.

    >>> import eagertape.tf as tf
    >>> tf.image.total_variation(tf.constant([[[1.0], [3.0]], [[0.0], [0.0]]])).numpy()
    6.0
    """
    images = _t(images)
    if images.ndim not in (3, 4):
        raise ValueError(f"argument `images` must be 3-D or 4-D, got shape {images.shape}")
    return _call(_total_variation, (images,))


def _total_variation(x):
    axes = tuple(range(x.ndim - 3, x.ndim))
    d1 = x[..., 1:, :, :] - x[..., :-1, :, :]
    d2 = x[..., :, 1:, :] - x[..., :, :-1, :]
    return jnp.sum(jnp.abs(d1), axis=axes) + jnp.sum(jnp.abs(d2), axis=axes)
