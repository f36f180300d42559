"""``tf.image`` on eagertape: TF 2.21's array ops, with TF's signatures,
defaults, dtype rules, errors and gradients; compared with TensorFlow in
``tests/test_tf_image.py``.

Integer images follow ``convert_image_dtype``: uint8 ``[0, 255]`` is float
``[0, 1]``; the ``adjust_*`` ops compute in float32 and convert back (saturated
for brightness, contrast and gamma, truncated as TF for hue, saturation and
grayscale). ``resize`` samples at half-pixel centres as TF 2 does, each
method through the kernel TF 2 runs for it (ResizeBilinear, ResizeBicubic,
ResizeArea, ResizeNearestNeighbor, and ScaleAndTranslate for antialias and the
lanczos3/5, gaussian and mitchellcubic kernels), with TF's float32 positions
and weights, so results agree to float32 rounding of the sums. Ops TF
registers no gradient for (adjust_hue, adjust_saturation, adjust_contrast, the
area resize, draw_bounding_boxes, non_max_suppression's scores) raise
LookupError when differentiated, as in TF; hsv_to_rgb and the integer outputs
give None, as in TF.

The random ops (``random_*``, ``stateless_random_*``) draw from
``tf.random``'s streams: TF's shapes, ranges and seeding rules, not TF's
numbers. The non-max-suppression ops run greedily on concrete values (their
output sizes depend on the values), so they cannot be traced by
``tf.function``. File decoding and encoding (``decode_png``, ...) are
``tf.io``'s, through Pillow (see ``_image_io``).

>>> import eagertape.tf as tf
>>> img = tf.constant([[[0.0], [1.0]], [[2.0], [3.0]]])
>>> tf.image.flip_left_right(img)[..., 0].numpy()
array([[1., 0.],
       [3., 2.]], dtype=float32)
>>> tf.image.resize(img, [4, 4]).shape
TensorShape([4, 4, 1])
>>> tf.image.convert_image_dtype(tf.constant([0, 255], tf.uint8), tf.float32).numpy()
array([0., 1.], dtype=float32)
"""
import functools
import math as _math

import jax
import jax.numpy as jnp
import numpy as np

from ..extend import InvalidArgumentError
from ..extend import call as _call
from ..extend import as_dtype as _as_dtype, TensorLike as _TensorLike, wrap as _wrap
from . import random as _random
from ._util import _Unsupported, concrete as _concrete, tensor as _t
from .errors import FailedPreconditionError, OutOfRangeError

# TF's image ops draw from TF's own random ops, not through the public
# tf.random.uniform, which a program may replace (the census prelude does).
_uniform = _random.uniform

_unsupported = _Unsupported("tf.image")
# File decoding and encoding: tf.io's (tf/_image_io.py, through Pillow), imported on
# first use.
_FILES = frozenset("decode_image decode_jpeg decode_png decode_gif decode_bmp decode_webp "
                   "decode_and_crop_jpeg encode_jpeg encode_png is_jpeg "
                   "extract_jpeg_shape".split())
_LEFT_OUT = {
    "decode_jxl": "JPEG XL is not read by Pillow; decode it with a JPEG XL library and pass "
                  "the array"}
_LEFT_OUT.update({n: "JPEG re-encoding at a random or given quality is not built; encode "
                     "and decode with tf.io.encode_jpeg(image, quality=q) and decode_jpeg"
                  for n in ("adjust_jpeg_quality", "random_jpeg_quality",
                            "stateless_random_jpeg_quality")})
_LEFT_OUT.update({
    "extract_glimpse": "not built yet (its default fills off-image pixels with noise drawn "
                       "by TF's kernel); crop with crop_and_resize or crop_to_bounding_box",
    "sample_distorted_bounding_box": "not built yet (a rejection sampler whose numbers could "
                                     "not be TF's); draw offsets with tf.random and crop",
    "stateless_sample_distorted_bounding_box": "not built yet (see "
                                               "sample_distorted_bounding_box)",
    "generate_bounding_box_proposals": "not built (a Faster R-CNN region-proposal kernel); "
                                       "decode the anchors and use non_max_suppression",
})


def __getattr__(name):
    if name in _FILES:
        from . import _image_io
        return getattr(_image_io, name)
    if name in _LEFT_OUT:
        raise AttributeError(f"tf.image.{name} is left out of eagertape's TensorFlow facade: "
                             f"{_LEFT_OUT[name]}")
    return _unsupported(name)


# -- shared pieces ---------------------------------------------------------------------
def _int(v, what):
    if isinstance(v, _TensorLike):
        v = _concrete(v, what)
    return int(np.asarray(v))


def _ints(v, what):
    if isinstance(v, _TensorLike):
        v = _concrete(v, what)
    return [int(a) for a in np.reshape(np.asarray(v), -1)]


def _at_least_3d(image):
    if image.ndim < 3:
        raise ValueError(f"'image' (shape {tuple(image.shape)}) must be at least "
                         "three-dimensional.")


def _3_or_4(image, what="image"):
    if image.ndim not in (3, 4):
        raise ValueError(f"'{what}' (shape {tuple(image.shape)}) must have either 3 or 4 "
                         "dimensions.")


def _is_float(dtype):
    return jnp.issubdtype(dtype, jnp.floating)


@jax.custom_vjp
def _no_grad_id(x):
    return x


def _ngi_fwd(x):
    return x, None


def _ngi_bwd(res, g):
    raise LookupError("gradient registry has no entry for this op (TensorFlow registers no "
                      "gradient for it)")


_no_grad_id.defvjp(_ngi_fwd, _ngi_bwd)


def _ng(op):
    """The op's function with TF's missing gradient: differentiating raises LookupError."""
    def f(*args):
        return op(*(_no_grad_id(a) if hasattr(a, "dtype") and _is_float(a.dtype) else a
                    for a in args))
    f.__name__ = op.__name__
    return f


def _sat(x, dtype):
    """TF's saturate_cast: clamp to the range both dtypes hold, then cast."""
    dtype = jnp.dtype(dtype)
    if _is_float(dtype):
        return x.astype(dtype)
    lo, hi = jnp.iinfo(dtype).min, jnp.iinfo(dtype).max
    if not _is_float(x.dtype):
        lo, hi = max(lo, jnp.iinfo(x.dtype).min), min(hi, jnp.iinfo(x.dtype).max)
    return jnp.clip(x, lo, hi).astype(dtype)


def _cid(x, dtype, saturate=False):
    """convert_image_dtype on a JAX array: integers are fractions of their dtype's max."""
    dtype = jnp.dtype(dtype)
    if x.dtype == dtype:
        return x
    fi, fo = _is_float(x.dtype), _is_float(dtype)
    if not fi and not fo:
        si, so = int(jnp.iinfo(x.dtype).max), int(jnp.iinfo(dtype).max)
        if si > so:
            y = x // jnp.asarray((si + 1) // (so + 1), x.dtype)
            return _sat(y, dtype) if saturate else y.astype(dtype)
        c = _sat(x, dtype) if saturate else x.astype(dtype)
        return c * jnp.asarray((so + 1) // (si + 1), dtype)
    if fi and fo:
        return x.astype(dtype)
    if not fi:
        return x.astype(dtype) * jnp.asarray(1.0 / int(jnp.iinfo(x.dtype).max), dtype)
    y = x * jnp.asarray(int(jnp.iinfo(dtype).max) + 0.5, x.dtype)
    return _sat(y, dtype) if saturate else y.astype(dtype)


def _to_work(x):
    """The adjust_* ops' working image: float16/float32 as they are, else float32."""
    return x if x.dtype in (jnp.float16, jnp.float32) else _cid(x, jnp.float32)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Convert ``image`` to ``dtype``, scaling as TF: integers are fractions of their
    dtype's max (uint8 255 is 1.0); float to integer multiplies by ``max + 0.5`` and
    truncates (``saturate=True`` clamps first); integer to integer shifts bits."""
    image = _t(image)
    dtype = _as_dtype(dtype)
    if not (np.issubdtype(dtype, np.floating) or np.issubdtype(dtype, np.integer)
            or dtype == jnp.bfloat16):
        raise AttributeError("dtype must be either floating point or integer")
    if dtype == image.dtype:
        return image
    return _call(_cid, (image, dtype.name, bool(saturate)))


# -- flips, rotations, crops, pads -------------------------------------------------------
def _flip_check(image):
    _at_least_3d(image)
    if image.ndim > 4:
        raise ValueError(f"'image' (shape {tuple(image.shape)})must have either 3 or 4 "
                         "dimensions.")


def _reverse(x, axis):
    return jnp.flip(x, axis)


def flip_left_right(image):
    """Reverse the width axis (-2) of a 3-D image or 4-D batch."""
    image = _t(image)
    _flip_check(image)
    return _call(_reverse, (image, -2))


def flip_up_down(image):
    """Reverse the height axis (-3) of a 3-D image or 4-D batch."""
    image = _t(image)
    _flip_check(image)
    return _call(_reverse, (image, -3))


def _maybe_flip(x, u, axis):
    if x.ndim == 3:
        return jnp.where(u[0] < 0.5, jnp.flip(x, axis), x)
    # TF rounds the uniform per image: a flip where it is at least 0.5.
    f = jnp.round(u).reshape((-1, 1, 1, 1)) > 0
    return jnp.where(f, jnp.flip(x, axis), x)


def _random_flip(image, axis, draw):
    image = _t(image)
    _flip_check(image)
    n = 1 if image.ndim == 3 else image.shape[0]
    return _call(_maybe_flip, (image, draw([n]), axis))


def random_flip_left_right(image, seed=None):
    """Flip left-right with probability 1/2 (each image of a batch on its own)."""
    return _random_flip(image, -2, lambda s: _uniform(s, seed=seed))


def random_flip_up_down(image, seed=None):
    """Flip up-down with probability 1/2 (each image of a batch on its own)."""
    return _random_flip(image, -3, lambda s: _uniform(s, seed=seed))


def stateless_random_flip_left_right(image, seed):
    """``random_flip_left_right`` as a function of ``seed`` (shape [2])."""
    return _random_flip(image, -2, lambda s: _random.stateless_uniform(s, seed))


def stateless_random_flip_up_down(image, seed):
    """``random_flip_up_down`` as a function of ``seed`` (shape [2])."""
    return _random_flip(image, -3, lambda s: _random.stateless_uniform(s, seed))


def _rot90(x, k):
    return jnp.rot90(x, k, axes=(x.ndim - 3, x.ndim - 2))


def rot90(image, k=1, name=None):
    """Rotate by ``k`` quarter turns counter-clockwise (3-D image or 4-D batch)."""
    image = _t(image)
    _at_least_3d(image)
    _3_or_4(image)
    return _call(_rot90, (image, _int(k, "k") % 4))


def _transpose(x):
    return jnp.swapaxes(x, -3, -2)


def transpose(image, name=None):
    """Swap height and width (3-D image or 4-D batch)."""
    image = _t(image)
    _at_least_3d(image)
    _3_or_4(image)
    return _call(_transpose, (image,))


def _slice(x, begin, size):
    return jax.lax.slice(x, begin, tuple(b + s for b, s in zip(begin, size)))


def _crop(image, oh, ow, th, tw):
    if image.ndim == 3:
        return _call(_slice, (image, (oh, ow, 0), (th, tw, image.shape[2])))
    return _call(_slice, (image, (0, oh, ow, 0), (image.shape[0], th, tw, image.shape[3])))


def central_crop(image, central_fraction):
    """The central ``central_fraction`` (in (0, 1]) of each side of the image."""
    image = _t(image)
    f = float(_concrete(central_fraction, "central_fraction")
              if isinstance(central_fraction, _TensorLike) else central_fraction)
    if f <= 0.0 or f > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if f == 1.0:
        return image
    _at_least_3d(image)
    if image.ndim not in (3, 4):
        raise ValueError("`image` should either be a Tensor with rank = 3 or rank = 4. "
                         f"Had rank = {image.ndim}.")
    h, w = image.shape[-3], image.shape[-2]
    sh, sw = int((float(h) - float(h) * f) / 2), int((float(w) - float(w) * f) / 2)
    return _crop(image, sh, sw, h - 2 * sh, w - 2 * sw)


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The ``target_height`` x ``target_width`` window at the given offsets."""
    image = _t(image)
    _3_or_4(image)
    oh, ow = _int(offset_height, "offset_height"), _int(offset_width, "offset_width")
    th, tw = _int(target_height, "target_height"), _int(target_width, "target_width")
    h, w = image.shape[-3], image.shape[-2]
    for ok, msg in ((ow >= 0, "offset_width must be >= 0."),
                    (oh >= 0, "offset_height must be >= 0."),
                    (tw > 0, "target_width must be > 0."),
                    (th > 0, "target_height must be > 0."),
                    (w >= tw + ow, "width must be >= target + offset."),
                    (h >= th + oh, "height must be >= target + offset.")):
        if not ok:
            raise ValueError(msg)
    return _crop(image, oh, ow, th, tw)


def _pad(x, pads):
    return jnp.pad(x, pads)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Zero-pad to ``target_height`` x ``target_width``, the image at the offsets."""
    image = _t(image)
    _3_or_4(image)
    oh, ow = _int(offset_height, "offset_height"), _int(offset_width, "offset_width")
    th, tw = _int(target_height, "target_height"), _int(target_width, "target_width")
    h, w = image.shape[-3], image.shape[-2]
    for ok, msg in ((oh >= 0, "offset_height must be >= 0"),
                    (ow >= 0, "offset_width must be >= 0"),
                    (tw - ow - w >= 0, "width must be <= target - offset"),
                    (th - oh - h >= 0, "height must be <= target - offset")):
        if not ok:
            raise ValueError(msg)
    pads = ((oh, th - oh - h), (ow, tw - ow - w), (0, 0))
    if image.ndim == 4:
        pads = ((0, 0),) + pads
    return _call(_pad, (image, pads))


def resize_with_crop_or_pad(image, target_height, target_width):
    """Centre-crop and/or zero-pad to ``target_height`` x ``target_width``."""
    image = _t(image)
    _3_or_4(image)
    th, tw = _int(target_height, "target_height"), _int(target_width, "target_width")
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    h, w = image.shape[-3], image.shape[-2]
    cropped = crop_to_bounding_box(image, max(-(th - h) // 2, 0), max(-(tw - w) // 2, 0),
                                   min(th, h), min(tw, w))
    return pad_to_bounding_box(cropped, max((th - h) // 2, 0), max((tw - w) // 2, 0), th, tw)


def _dyn_slice(x, offset, size):
    return jax.lax.dynamic_slice(x, offset, size)


def _random_crop(value, size, draw):
    value = _t(value)
    size = tuple(_ints(size, "size"))
    if len(size) != value.ndim:
        raise ValueError(f"argument `size` must have {value.ndim} entries (the rank of "
                         f"`value`), got {list(size)}")
    if any(not isinstance(d, (int, np.integer)) for d in value.shape):
        # Sizes known only symbolically (a dataset function traced once on its spec,
        # tf/_staged_map), as TF's None: the offsets' limits follow the value's
        # shape at each element.
        limit = _call(lambda v: jnp.asarray(v.shape, jnp.int32) - jnp.asarray(
            size, jnp.int32) + 1, (value,))
    elif any(s > d for s, d in zip(size, value.shape)):
        raise InvalidArgumentError(f"Need value.shape >= size, got {list(value.shape)} "
                                   f"and {list(size)}")
    else:
        limit = np.asarray([d - s + 1 for d, s in zip(value.shape, size)], np.int32)
    offset = draw(value.ndim) % limit
    return _call(_dyn_slice, (value, offset, size))


def random_crop(value, size, seed=None, name=None):
    """A ``size`` window of ``value`` (any rank) at a uniformly drawn offset."""
    return _random_crop(value, size, lambda n: _uniform(
        [n], maxval=np.iinfo(np.int32).max, dtype="int32", seed=seed))


def stateless_random_crop(value, size, seed, name=None):
    """``random_crop`` as a function of ``seed`` (shape [2])."""
    return _random_crop(value, size, lambda n: _random.stateless_uniform(
        [n], seed, maxval=np.iinfo(np.int32).max, dtype="int32"))


# -- resize --------------------------------------------------------------------------------
class ResizeMethod:
    """The ``method`` names of ``resize``."""
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


# TF's sampling kernels (kernels/image/sampling_kernels.h), evaluated in float32 as
# TF's C++ does: in float64 the cubic kernels' cancellation near their zeros gives
# weights several float32 ulps away from TF's.
_F = np.float32


def _lanczos(r):
    pi, rf = _F(3.14159265359), _F(r)

    def k(x):
        safe = np.where(x <= _F(1e-3), _F(1), x)
        v = rf * np.sin(pi * safe) * np.sin(pi * safe / rf) / (pi * pi * safe * safe)
        return np.where(x > rf, _F(0), np.where(x <= _F(1e-3), _F(1), v))
    return k, r


def _triangle(x):
    return np.where(x < _F(1), _F(1) - x, _F(0))


def _keys(x):
    return np.where(x >= _F(2), _F(0), np.where(
        x >= _F(1), ((_F(-0.5) * x + _F(2.5)) * x - _F(4)) * x + _F(2),
        ((_F(1.5) * x - _F(2.5)) * x) * x + _F(1)))


def _mitchell(x):
    return np.where(x >= _F(2), _F(0), np.where(
        x >= _F(1), (((_F(-7) / _F(18)) * x + _F(2)) * x - _F(10) / _F(3)) * x + _F(16) / _F(9),
        (((_F(7) / _F(6)) * x - _F(2)) * x) * x + _F(8) / _F(9)))


def _gaussian(x):
    # TF divides by a double (2.0 * sigma * sigma), so the exponent is in float64.
    sigma = np.float64(_F(1.5) / _F(3))
    v = np.exp((-x * x).astype(np.float64) / (2.0 * sigma * sigma)).astype(_F)
    return np.where(x >= _F(1.5), _F(0), v)


_KERNELS = {
    "triangle": (_triangle, 1),
    "keyscubic": (_keys, 2),
    "lanczos3": _lanczos(3),
    "lanczos5": _lanczos(5),
    "gaussian": (_gaussian, 1.5),
    "mitchellcubic": (_mitchell, 2),
}


def _frozen(fn):
    """``fn``'s weights cached per argument tuple (sizes repeat across a training loop),
    read-only so that no caller changes another's."""
    @functools.lru_cache(maxsize=256)
    def cached(*args):
        w = fn(*args)
        w.setflags(write=False)
        return w
    cached.__wrapped__ = fn
    return cached


@_frozen
def _weights(n_in, n_out, kernel, antialias):
    """TF's ScaleAndTranslate spans (ComputeSpansCore) as an [n_in, n_out] matrix:
    every step in float32 in TF's order, a sample beyond the image 0, the taps of a
    span renormalised by their sequential float32 sum."""
    fn, radius = _KERNELS[kernel]
    scale = _F(n_out) / _F(n_in)                 # tf.image.resize's float32 division
    inv = _F(1.0 / np.float64(scale))
    kscale = max(inv, _F(1)) if antialias else _F(1)
    reach = _F(radius) * kscale
    sample = (np.arange(n_out, dtype=_F) + _F(0.5)) * inv
    start = np.clip(np.ceil(sample - reach - _F(0.5)), 0, n_in - 1).astype(np.int64)
    end = np.clip(np.floor(sample + reach - _F(0.5)), 0, n_in - 1).astype(np.int64) + 1
    span = int(max(1, (end - start).max()))
    src = start[:, None] + np.arange(span)[None, :]
    pos = (src.astype(_F) + _F(0.5) - sample[:, None]) * (_F(1) / kscale)
    taps = np.where(src < end[:, None], fn(np.abs(pos)), _F(0)).astype(_F)
    total = np.cumsum(taps, axis=1, dtype=_F)[:, -1]
    ok = (np.abs(total) >= _F(1000) * np.finfo(_F).tiny) & (sample >= 0) & (sample <= n_in)
    taps = np.where(ok[:, None], taps * (_F(1) / np.where(ok, total, _F(1)))[:, None], _F(0))
    w = np.zeros((n_in, n_out), _F)
    cols = np.broadcast_to(np.arange(n_out)[:, None], src.shape)
    inside = src < n_in
    np.add.at(w, (src[inside], cols[inside]), taps[inside])
    return w


@_frozen
def _bilinear_weights(n_in, n_out):
    """TF's ResizeBilinear with half-pixel centres (compute_interpolation_weights):
    source position ``(y + 0.5) * (n_in / n_out) - 0.5`` in float32, its floor and
    ceiling clamped to the image, ``1 - lerp`` and ``lerp``. ScaleAndTranslate's
    triangle kernel is the same filter, but it maps by ``1 / (n_out / n_in)`` and
    measures ``source + 0.5 - sample``: different float32 roundings that put the
    taps up to ~1e-5 pixel away from TF's on large images."""
    scale = _F(n_in) / _F(n_out)
    pos = (np.arange(n_out, dtype=_F) + _F(0.5)) * scale - _F(0.5)
    fl = np.floor(pos)
    lerp = (pos - fl).astype(_F)
    lo = np.maximum(fl.astype(np.int64), 0)
    hi = np.minimum(np.ceil(pos).astype(np.int64), n_in - 1)
    w = np.zeros((n_in, n_out), _F)
    cols = np.arange(n_out)
    np.add.at(w, (lo, cols), _F(1) - lerp)
    np.add.at(w, (hi, cols), lerp)
    return w


@_frozen
def _area_weights(n_in, n_out):
    """TF's ResizeArea along one axis (resize_area_op.cc), unnormalised: the part of
    each source pixel inside ``[y, y + 1) * scale``, computed in float32 as TF does
    (so a window's pieces need not sum to ``scale`` exactly) and a window that
    rounds past the last pixel counting it again (TF's ``Bound``)."""
    scale = _F(n_in) / _F(n_out)
    w = np.zeros((n_in, n_out), _F)
    for y in range(n_out):
        lo, hi = _F(y) * scale, _F(y + 1) * scale
        for i in range(int(np.floor(lo)), int(np.ceil(hi))):
            if i < lo:
                part = scale if _F(i + 1) > hi else _F(i + 1) - lo
            else:
                part = hi - _F(i) if _F(i + 1) > hi else _F(1)
            w[min(max(i, 0), n_in - 1), y] += part
    return w


def _area_matrices(h, w, oh, ow):
    # TF multiplies the patch sum by 1 / (height_scale * width_scale), one float32
    # number for both axes.
    norm = _F(1.0 / np.float64(_F(_F(h) / _F(oh)) * _F(_F(w) / _F(ow))))
    return (_area_weights(h, oh) * norm).astype(_F), _area_weights(w, ow)


@_frozen
def _bicubic_weights(n_in, n_out):
    """TF's ResizeBicubic (half-pixel, Keys): four taps from a 1024-entry table of
    the cubic, taps beyond the image dropped and the rest renormalised."""
    f32 = np.float32
    x = np.arange(1025, dtype=np.float64) / 1024
    table = np.stack([((1.5 * x - 2.5) * x) * x + 1.0,
                      ((-0.5 * (x + 1) + 2.5) * (x + 1) - 4.0) * (x + 1) + 2.0], 1).astype(f32)
    scale = f32(n_in) / f32(n_out)
    w = np.zeros((n_in, n_out), np.float32)
    for y in range(n_out):
        loc = (f32(y) + f32(0.5)) * scale - f32(0.5)
        fl = int(np.floor(loc))
        off = int(np.rint((loc - f32(fl)) * f32(1024)))
        taps = [table[off, 1], table[off, 0], table[1024 - off, 0], table[1024 - off, 1]]
        taps = [t if 0 <= fl - 1 + i < n_in else f32(0) for i, t in enumerate(taps)]
        tot = taps[0] + taps[1] + taps[2] + taps[3]
        inv = f32(1) / tot if abs(tot) >= 1000 * np.finfo(f32).tiny else f32(1)
        for i, t in enumerate(taps):
            if 0 <= fl - 1 + i < n_in:
                w[fl - 1 + i, y] += t * inv
    return w


def _separable(x, wh, ww):
    x = x.astype(jnp.float32)
    hp = jax.lax.Precision.HIGHEST
    y = jnp.einsum("bhwc,hH->bHwc", x, wh, precision=hp)
    return jnp.einsum("bhwc,wW->bhWc", y, ww, precision=hp)


def _nearest(x, ih, iw):
    return jnp.take(jnp.take(x, ih, axis=1), iw, axis=2)


def _nearest_index(n_in, n_out):
    # TF's ResizeNearestNeighbor with half_pixel_centers: floor((y + 0.5) * scale), in float32.
    scale = np.float32(n_in) / np.float32(n_out)
    idx = np.floor((np.arange(n_out, dtype=np.float32) + np.float32(0.5)) * scale)
    return np.clip(idx.astype(np.int64), 0, n_in - 1).astype(np.int32)


_area = _ng(_separable)


# -- weights from sizes JAX knows only symbolically ------------------------------------
# A tf.function traced for any size of a None dimension (an input_signature's None,
# a SavedModel's signature) sees the image's height and width as JAX symbolic
# dimensions: no host NumPy can build the weights from them. They are built in the
# trace with jnp instead, the same float32 steps as the NumPy builders above, each
# weight matrix as a sum of one-hot rows (``jnp.arange(n_in) == source``).

def _size_f32(n):
    return jnp.asarray(n, jnp.int32).astype(jnp.float32)


def _onehot(n_in, src):
    return (jnp.arange(n_in)[:, None] == src[None, :]).astype(jnp.float32)


def _sym_bilinear(n_in, n_out):
    scale = _size_f32(n_in) / _size_f32(n_out)
    pos = (jnp.arange(n_out, dtype=jnp.float32) + _F(0.5)) * scale - _F(0.5)
    fl = jnp.floor(pos)
    lerp = pos - fl
    lo = jnp.maximum(fl.astype(jnp.int32), 0)
    hi = jnp.minimum(jnp.ceil(pos).astype(jnp.int32), n_in - 1)
    return _onehot(n_in, lo) * (_F(1) - lerp) + _onehot(n_in, hi) * lerp


def _sym_nearest_index(n_in, n_out):
    scale = _size_f32(n_in) / _size_f32(n_out)
    idx = jnp.floor((jnp.arange(n_out, dtype=jnp.float32) + _F(0.5)) * scale)
    return jnp.clip(idx.astype(jnp.int32), 0, n_in - 1)


def _sym_bicubic(n_in, n_out):
    x = np.arange(1025, dtype=np.float64) / 1024
    table = jnp.asarray(np.stack([((1.5 * x - 2.5) * x) * x + 1.0,
                                  ((-0.5 * (x + 1) + 2.5) * (x + 1) - 4.0) * (x + 1) + 2.0],
                                 1).astype(_F))
    scale = _size_f32(n_in) / _size_f32(n_out)
    loc = (jnp.arange(n_out, dtype=jnp.float32) + _F(0.5)) * scale - _F(0.5)
    fl = jnp.floor(loc).astype(jnp.int32)
    off = jnp.rint((loc - fl.astype(jnp.float32)) * _F(1024)).astype(jnp.int32)
    taps = [table[off, 1], table[off, 0], table[1024 - off, 0], table[1024 - off, 1]]
    ok = [(fl - 1 + i >= 0) & (fl - 1 + i < n_in) for i in range(4)]
    taps = [jnp.where(k, t, _F(0)) for k, t in zip(ok, taps)]
    tot = taps[0] + taps[1] + taps[2] + taps[3]
    inv = jnp.where(jnp.abs(tot) >= 1000 * np.finfo(_F).tiny, _F(1) / tot, _F(1))
    return sum(_onehot(n_in, fl - 1 + i) * (taps[i] * inv) for i in range(4))


def _sym_area(n_in, n_out):
    # _area_weights' loop over the source pixels [floor(lo), ceil(hi)) of each output,
    # over every candidate pixel 0..n_in at once; the one past the image adds onto
    # the last (TF's Bound), after it as in the loop.
    scale = _size_f32(n_in) / _size_f32(n_out)
    y = jnp.arange(n_out, dtype=jnp.float32)
    lo, hi = y * scale, (y + _F(1)) * scale
    i = jnp.arange(n_in + 1)[:, None]
    fi = i.astype(jnp.float32)
    inside = (fi >= jnp.floor(lo)) & (fi < jnp.ceil(hi))
    part = jnp.where(fi < lo, jnp.where(fi + _F(1) > hi, scale, fi + _F(1) - lo),
                     jnp.where(fi + _F(1) > hi, hi - fi, _F(1)))
    p = jnp.where(inside, part, _F(0))
    last = (jnp.arange(n_in) == n_in - 1)[:, None]
    return p[:-1] + jnp.where(last, p[-1:], _F(0))


def _resize_symbolic(x, method, oh, ow):
    h, w = x.shape[1], x.shape[2]
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        return _nearest(x, _sym_nearest_index(h, oh), _sym_nearest_index(w, ow))
    if method == ResizeMethod.AREA:
        norm = _F(1) / ((_size_f32(h) / _size_f32(oh)) * (_size_f32(w) / _size_f32(ow)))
        return _separable(x, _sym_area(h, oh) * norm, _sym_area(w, ow))
    make = _sym_bilinear if method == ResizeMethod.BILINEAR else _sym_bicubic
    return _separable(x, make(h, oh), make(w, ow))


_resize_symbolic_area = _ng(_resize_symbolic)


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False,
           antialias=False, name=None):
    """Resize a 3-D image or 4-D batch to ``size`` ([new_height, new_width]) as TF 2
    (half-pixel centres). The result is float32, except ``nearest`` which keeps the
    dtype; ``antialias`` widens the kernel when downsampling (bilinear, bicubic and
    the lanczos/gaussian/mitchellcubic kernels). The area method has no gradient
    (LookupError, as TF)."""
    images = _t(images)
    if images.ndim not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    try:
        sz = _ints(size, "size")
    except (TypeError, ValueError):
        raise ValueError("'size' must be a 1-D int32 Tensor") from None
    if len(sz) != 2:
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    method = getattr(method, "value", method)
    if method not in (ResizeMethod.BILINEAR, ResizeMethod.NEAREST_NEIGHBOR,
                      ResizeMethod.BICUBIC, ResizeMethod.AREA, ResizeMethod.LANCZOS3,
                      ResizeMethod.LANCZOS5, ResizeMethod.GAUSSIAN, ResizeMethod.MITCHELLCUBIC):
        raise ValueError(f"Resize method is not implemented: {method}")
    h, w = images.shape[-3], images.shape[-2]
    if any(_is_symbolic(d) for d in (h, w, *sz)):
        return _resize_symbolic_sizes(images, h, w, sz, method, preserve_aspect_ratio,
                                      antialias)
    if preserve_aspect_ratio:
        f = min(np.float32(sz[0]) / np.float32(h), np.float32(sz[1]) / np.float32(w))
        sz = [int(np.round(np.float32(f) * np.float32(h))),
              int(np.round(np.float32(f) * np.float32(w)))]
    if sz[0] <= 0 or sz[1] <= 0:
        raise InvalidArgumentError(f"output dimensions must be positive, got {sz}")
    batched = images if images.ndim == 4 else images[None]
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        out = _call(_nearest, (batched, _nearest_index(h, sz[0]), _nearest_index(w, sz[1])))
    elif method == ResizeMethod.AREA:
        out = _call(_area, (batched, *_area_matrices(h, w, sz[0], sz[1])))
    elif method == ResizeMethod.BILINEAR and not antialias:
        out = _call(_separable, (batched, _bilinear_weights(h, sz[0]),
                                 _bilinear_weights(w, sz[1])))
    elif method == ResizeMethod.BICUBIC and not antialias:
        out = _call(_separable, (batched, _bicubic_weights(h, sz[0]), _bicubic_weights(w, sz[1])))
    else:
        kernel = {"bilinear": "triangle", "bicubic": "keyscubic"}.get(method, method)
        aa = bool(antialias)
        out = _call(_separable, (batched, _weights(h, sz[0], kernel, aa),
                                 _weights(w, sz[1], kernel, aa)))
    return out if images.ndim == 4 else out[0]


def _is_symbolic(d):
    from ._shape_dims import is_symbolic
    return is_symbolic(d)


def _resize_symbolic_sizes(images, h, w, sz, method, preserve_aspect_ratio, antialias):
    """``resize`` where JAX knows an input or output size only symbolically."""
    if preserve_aspect_ratio:
        raise ValueError(
            "argument `preserve_aspect_ratio`: the output size follows the image's height "
            f"and width ({h} x {w}), which are not known while this tf.function is traced for "
            "every size of its None dimensions (JAX compiles static output shapes); give the "
            "input_signature fixed sizes, or resize to a fixed size")
    kernel_methods = (ResizeMethod.LANCZOS3, ResizeMethod.LANCZOS5, ResizeMethod.GAUSSIAN,
                      ResizeMethod.MITCHELLCUBIC)
    if method in kernel_methods or (antialias and method in (ResizeMethod.BILINEAR,
                                                             ResizeMethod.BICUBIC)):
        raise ValueError(
            f"argument `method`: {method!r}{' with antialias' if antialias else ''} is not "
            f"built for image sizes not known while this tf.function is traced ({h} x {w} "
            f"to {sz[0]} x {sz[1]}); give the input_signature fixed sizes, or use bilinear, "
            "bicubic, area or nearest without antialias")
    for d in sz:
        if not _is_symbolic(d) and d <= 0:
            raise InvalidArgumentError(f"output dimensions must be positive, got {list(sz)}")
    batched = images if images.ndim == 4 else images[None]
    fn = _resize_symbolic_area if method == ResizeMethod.AREA else _resize_symbolic
    out = _call(fn, (batched, method, sz[0], sz[1]))
    return out if images.ndim == 4 else out[0]


def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR,
                    antialias=False):
    """Resize keeping the aspect ratio to fit ``target_height`` x ``target_width``,
    then zero-pad (centred) to exactly that size."""
    image = _t(image)
    _3_or_4(image)
    th, tw = _int(target_height, "target_height"), _int(target_width, "target_width")
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    f32 = np.float32
    h, w = f32(image.shape[-3]), f32(image.shape[-2])
    ratio = max(w / f32(tw), h / f32(th))
    rh, rw = f32(h / ratio), f32(w / ratio)
    ph = max(0, int(np.floor((f32(th) - rh) / f32(2))))
    pw = max(0, int(np.floor((f32(tw) - rw) / f32(2))))
    resized = resize(image, [int(np.floor(rh)), int(np.floor(rw))], method, antialias=antialias)
    return pad_to_bounding_box(resized, ph, pw, th, tw)


def _crop_coords(b, n, crop):
    """TF's CropAndResize sample positions along one axis: [boxes, crop]."""
    if crop > 1:
        step = (b[:, 1] - b[:, 0]) * (n - 1) / (crop - 1)
        return b[:, :1] * (n - 1) + jnp.arange(crop, dtype=b.dtype)[None, :] * step[:, None]
    return (0.5 * (b[:, 0] + b[:, 1]) * (n - 1))[:, None]


def _crop_and_resize(image, boxes, idx, crop, method, extrapolation):
    image = image.astype(jnp.float32)
    boxes = boxes.astype(jnp.float32)
    _, h, w, _ = image.shape
    ys = _crop_coords(boxes[:, 0::2], h, crop[0])             # [n, ch]
    xs = _crop_coords(boxes[:, 1::2], w, crop[1])             # [n, cw]
    img = image[idx]                                          # [n, h, w, c]
    valid = (((ys >= 0) & (ys <= h - 1))[:, :, None] & ((xs >= 0) & (xs <= w - 1))[:, None, :])

    def gather(yi, xi):
        yi = jnp.clip(yi, 0, h - 1)
        xi = jnp.clip(xi, 0, w - 1)
        return jax.vmap(lambda im, a, b: im[a[:, None], b[None, :]])(img, yi, xi)

    if method == "nearest":
        v = gather(jnp.round(ys).astype(jnp.int32), jnp.round(xs).astype(jnp.int32))
    else:
        y0, x0 = jnp.floor(ys), jnp.floor(xs)
        ly, lx = (ys - y0)[:, :, None, None], (xs - x0)[:, None, :, None]
        y0i, x0i = y0.astype(jnp.int32), x0.astype(jnp.int32)
        y1i, x1i = jnp.ceil(ys).astype(jnp.int32), jnp.ceil(xs).astype(jnp.int32)
        top = gather(y0i, x0i) + (gather(y0i, x1i) - gather(y0i, x0i)) * lx
        bot = gather(y1i, x0i) + (gather(y1i, x1i) - gather(y1i, x0i)) * lx
        v = top + (bot - top) * ly
    return jnp.where(valid[..., None], v, jnp.asarray(extrapolation, jnp.float32))


def _crop_and_resize_nearest(image, boxes, idx, crop, extrapolation):
    # TF's box gradient (CropAndResizeGradBoxes) is the bilinear one whatever the method.
    sg = jax.lax.stop_gradient
    near = _crop_and_resize(image, sg(boxes), idx, crop, "nearest", extrapolation)
    bil = _crop_and_resize(sg(image), boxes, idx, crop, "bilinear", extrapolation)
    return near + (bil - sg(bil))


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0, name=None):
    """Crops of ``image`` [batch, h, w, c] at normalised ``boxes`` [n, 4]
    (y1, x1, y2, x2) from the images ``box_indices``, each resampled to
    ``crop_size``: float32 [n, crop_h, crop_w, c]; samples outside the image are
    ``extrapolation_value``. Differentiable in ``image`` and ``boxes`` as TF."""
    image, boxes = _t(image), _t(boxes)
    if image.ndim != 4:
        raise InvalidArgumentError(f"input image must be 4-D, got shape {list(image.shape)}")
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise InvalidArgumentError(f"boxes must be 2-D [num_boxes, 4], got shape "
                                   f"{list(boxes.shape)}")
    idx = _t(box_indices)
    if idx.ndim != 1 or idx.shape[0] != boxes.shape[0]:
        raise InvalidArgumentError("box_index has incompatible shape")
    iv = _concrete(idx)
    if iv is not None and np.any((iv < 0) | (iv >= image.shape[0])):
        raise OutOfRangeError(f"box_index has values outside [0, batch_size): {iv.tolist()}")
    crop = tuple(_ints(crop_size, "crop_size"))
    if len(crop) != 2 or min(crop) <= 0:
        raise InvalidArgumentError(f"crop_size must be two positive ints, got {list(crop)}")
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"method must be 'bilinear' or 'nearest', got {method!r}")
    ext = float(extrapolation_value)
    if method == "nearest":
        return _call(_crop_and_resize_nearest, (image, boxes, idx, crop, ext))
    return _call(_crop_and_resize, (image, boxes, idx, crop, "bilinear", ext))


def _same_pads(n, k, s):
    out = -(-n // s)
    total = max((out - 1) * s + k - n, 0)
    return out, (total // 2, total - total // 2)


def _patches(x, k, s, r, padding):
    b, h, w, c = x.shape
    ek = [(k[i] - 1) * r[i] + 1 for i in range(2)]
    if padding == "SAME":
        oh, ph = _same_pads(h, ek[0], s[0])
        ow, pw = _same_pads(w, ek[1], s[1])
        x = jnp.pad(x, ((0, 0), ph, pw, (0, 0)))
    else:
        oh, ow = (h - ek[0]) // s[0] + 1, (w - ek[1]) // s[1] + 1
    cols = []
    for i in range(k[0]):
        for j in range(k[1]):
            y0, x0 = i * r[0], j * r[1]
            cols.append(x[:, y0:y0 + (oh - 1) * s[0] + 1:s[0], x0:x0 + (ow - 1) * s[1] + 1:s[1], :])
    return jnp.concatenate(cols, axis=-1)


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """Patches of ``images`` [batch, h, w, c] as TF's ExtractImagePatches:
    [batch, out_h, out_w, kh * kw * c], each patch row-major over (kh, kw, c).
    ``sizes``/``strides``/``rates`` are ``[1, a, b, 1]``; ``padding`` "VALID" or "SAME"."""
    images = _t(images)
    if images.ndim != 4:
        raise InvalidArgumentError(f"input must be 4-dimensional, got shape "
                                   f"{list(images.shape)}")
    k, s, r = _ints(sizes, "sizes"), _ints(strides, "strides"), _ints(rates, "rates")
    for v, n in ((k, "ksizes"), (s, "strides"), (r, "rates")):
        if len(v) != 4 or v[0] != 1 or v[3] != 1:
            raise InvalidArgumentError(f"{n} must be [1, a, b, 1], got {v}")
    padding = padding.upper()
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    ek = [(k[i] - 1) * r[i] + 1 for i in (1, 2)]
    if padding == "VALID" and (images.shape[1] < ek[0] or images.shape[2] < ek[1]):
        raise InvalidArgumentError("the patches are larger than the input (VALID padding)")
    return _call(_patches, (images, tuple(k[1:3]), tuple(s[1:3]), tuple(r[1:3]), padding))


# -- colour ------------------------------------------------------------------------------------
def _brightness(x, delta):
    y = _to_work(x)
    return _cid(y + delta.astype(y.dtype), x.dtype, True)


def adjust_brightness(image, delta):
    """``image + delta`` in the float domain (integer images converted, then back
    saturated)."""
    image = _t(image)
    return _call(_brightness, (image, _t(delta)))


def _contrast(x, factor):
    y = _to_work(x)
    mean = jnp.mean(y, axis=(-3, -2), keepdims=True)
    out = (y - mean) * factor.astype(y.dtype) + mean
    return _cid(out, x.dtype, True)


def adjust_contrast(images, contrast_factor):
    """``(x - mean) * contrast_factor + mean`` per channel, the mean over each
    image's height and width. TF registers no gradient for it (LookupError)."""
    images = _t(images)
    if images.ndim < 3:
        raise InvalidArgumentError(f"input must be at least 3-D, got shape "
                                   f"{list(images.shape)}")
    return _call(_ng(_contrast), (images, _t(contrast_factor, "float32")))


def _gamma(x, gamma, gain):
    y = _to_work(x)
    return _cid(gain.astype(y.dtype) * y ** gamma.astype(y.dtype), x.dtype, True)


def adjust_gamma(image, gamma=1, gain=1):
    """``gain * image ** gamma`` in the float domain (``gamma`` >= 0)."""
    image = _t(image)
    g = gamma if not isinstance(gamma, _TensorLike) else _concrete(gamma)
    if g is not None and np.any(np.asarray(g) < 0):
        raise ValueError("Gamma should be a non-negative real number.")
    return _call(_gamma, (image, _t(gamma), _t(gain)))


def _rgb_to_hsv(x):
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    v = jnp.max(x, -1)
    rng = v - jnp.min(x, -1)
    s = jnp.where(v > 0, rng / jnp.where(v > 0, v, 1), 0)
    norm = 1 / (6 * jnp.where(rng > 0, rng, 1))
    h = jnp.where(r == v, norm * (g - b),
                  jnp.where(g == v, norm * (b - r) + 2 / 6, norm * (r - g) + 4 / 6))
    h = jnp.where(rng > 0, h, 0)
    h = jnp.where(h < 0, h + 1, h)
    return jnp.stack([h, s, v], -1).astype(x.dtype)


def _hsv_to_rgb(x):
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    dh = h * 6
    dr = jnp.clip(jnp.abs(dh - 3) - 1, 0, 1)
    dg = jnp.clip(-jnp.abs(dh - 2) + 2, 0, 1)
    db = jnp.clip(-jnp.abs(dh - 4) + 2, 0, 1)
    one_s = 1 - s
    return jnp.stack([(one_s + s * dr) * v, (one_s + s * dg) * v, (one_s + s * db) * v], -1)


def _rgb3(image, error=InvalidArgumentError):
    if image.ndim < 1 or image.shape[-1] != 3:
        raise error(f"input must have 3 channels but input only has "
                    f"{image.shape[-1] if image.ndim else 0} channels")


def rgb_to_hsv(images, name=None):
    """RGB in [0, 1] to HSV (hue in [0, 1)), the last axis holding the channels."""
    images = _t(images)
    _rgb3(images, FailedPreconditionError)
    return _call(_rgb_to_hsv, (images,))


def hsv_to_rgb(images, name=None):
    """HSV to RGB; no gradient (None), as TF's registered HSVToRGB gradient gives."""
    images = _t(images)
    _rgb3(images, FailedPreconditionError)
    return _call(_hsv_to_rgb, (images,), constant_output=True)


def _hue(x, delta):
    y = _to_work(x)
    hsv = _rgb_to_hsv(y.astype(jnp.float32))
    h = hsv[..., 0] + delta
    h = h - jnp.floor(h)
    out = _hsv_to_rgb(jnp.stack([h, hsv[..., 1], hsv[..., 2]], -1)).astype(y.dtype)
    return _cid(out, x.dtype)


def adjust_hue(image, delta, name=None):
    """Rotate the hue by ``delta`` (in [-1, 1], a fraction of the colour circle).
    TF registers no gradient for it (LookupError)."""
    image = _t(image)
    d = delta if not isinstance(delta, _TensorLike) else _concrete(delta)
    if d is not None and (float(d) < -1 or float(d) > 1):
        raise ValueError("delta must be in the interval [-1, 1]")
    _rgb3(image)
    return _call(_ng(_hue), (image, _t(delta, "float32")))


def _saturation(x, factor):
    y = _to_work(x)
    hsv = _rgb_to_hsv(y.astype(jnp.float32))
    s = jnp.clip(hsv[..., 1] * factor, 0, 1)
    out = _hsv_to_rgb(jnp.stack([hsv[..., 0], s, hsv[..., 2]], -1)).astype(y.dtype)
    return _cid(out, x.dtype)


def adjust_saturation(image, saturation_factor, name=None):
    """Scale the HSV saturation by ``saturation_factor`` (clipped to [0, 1]).
    TF registers no gradient for it (LookupError)."""
    image = _t(image)
    _rgb3(image)
    return _call(_ng(_saturation), (image, _t(saturation_factor, "float32")))


def _check_range(lower, upper):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_brightness(image, max_delta, seed=None):
    """``adjust_brightness`` by a delta uniform in [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _uniform([], -max_delta, max_delta, seed=seed))


def stateless_random_brightness(image, max_delta, seed):
    """``random_brightness`` as a function of ``seed`` (shape [2])."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _random.stateless_uniform([], seed, -max_delta, max_delta))


def random_contrast(image, lower, upper, seed=None):
    """``adjust_contrast`` by a factor uniform in [lower, upper)."""
    _check_range(lower, upper)
    return adjust_contrast(image, _uniform([], lower, upper, seed=seed))


def stateless_random_contrast(image, lower, upper, seed):
    """``random_contrast`` as a function of ``seed`` (shape [2])."""
    _check_range(lower, upper)
    return adjust_contrast(image, _random.stateless_uniform([], seed, lower, upper))


def _hue_range(max_delta):
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")


def random_hue(image, max_delta, seed=None):
    """``adjust_hue`` by a delta uniform in [-max_delta, max_delta) (max_delta <= 0.5)."""
    _hue_range(max_delta)
    return adjust_hue(image, _uniform([], -max_delta, max_delta, seed=seed))


def stateless_random_hue(image, max_delta, seed):
    """``random_hue`` as a function of ``seed`` (shape [2])."""
    _hue_range(max_delta)
    return adjust_hue(image, _random.stateless_uniform([], seed, -max_delta, max_delta))


def random_saturation(image, lower, upper, seed=None):
    """``adjust_saturation`` by a factor uniform in [lower, upper)."""
    _check_range(lower, upper)
    return adjust_saturation(image, _uniform([], lower, upper, seed=seed))


def stateless_random_saturation(image, lower, upper, seed=None):
    """``random_saturation`` as a function of ``seed`` (shape [2])."""
    _check_range(lower, upper)
    return adjust_saturation(image, _random.stateless_uniform([], seed, lower, upper))


_GRAY = np.asarray([0.2989, 0.5870, 0.1140], np.float32)


def _grayscale(x):
    y = _cid(x, jnp.float32)
    g = jnp.tensordot(y, jnp.asarray(_GRAY), [[-1], [0]], precision=jax.lax.Precision.HIGHEST)
    return _cid(g[..., None], x.dtype)


def rgb_to_grayscale(images, name=None):
    """Luma (0.2989 R + 0.5870 G + 0.1140 B) with a last axis of size 1."""
    images = _t(images)
    _rgb3(images)
    return _call(_grayscale, (images,))


def _tile3(x):
    return jnp.concatenate([x, x, x], -1)


def grayscale_to_rgb(images, name=None):
    """Repeat the single channel three times."""
    images = _t(images)
    if images.ndim < 2:
        raise ValueError("A grayscale image (shape %s) must be at least two-dimensional."
                         % (tuple(images.shape),))
    if images.shape[-1] != 1:
        raise ValueError("Last dimension of a grayscale image should be size 1.")
    return _call(_tile3, (images,))


_KERNELS_RGB = {
    "rgb_to_yiq": [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
                   [0.114, -0.32134392, 0.31119955]],
    "yiq_to_rgb": [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
                   [0.6208248, -0.64720424, 1.70423049]],
    "rgb_to_yuv": [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
                   [0.114, 0.43601035, -0.10001026]],
    "yuv_to_rgb": [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]],
}


def _colour_matrix(x, name):
    # By name (static): the kernel's floats passed as arguments would be traced
    # values, which NumPy cannot read, so the op could not be compiled or fused.
    k = jnp.asarray(np.asarray(_KERNELS_RGB[name]), x.dtype)
    return jnp.tensordot(x, k, [[x.ndim - 1], [0]], precision=jax.lax.Precision.HIGHEST)


def _matrix_op(name):
    def op(images):
        images = _t(images)
        _rgb3(images)
        return _call(_colour_matrix, (images, name))
    op.__name__ = name
    a, b = name.split("_to_")
    op.__doc__ = f"Convert {a.upper()} to {b.upper()}: a 3x3 matrix on the last axis (size 3)."
    return op


rgb_to_yiq = _matrix_op("rgb_to_yiq")
yiq_to_rgb = _matrix_op("yiq_to_rgb")
rgb_to_yuv = _matrix_op("rgb_to_yuv")
yuv_to_rgb = _matrix_op("yuv_to_rgb")


def _standardize(x):
    x = x.astype(jnp.float32)
    n = x.shape[-1] * x.shape[-2] * x.shape[-3]
    mean = jnp.mean(x, axis=(-1, -2, -3), keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=(-1, -2, -3), keepdims=True)
    # a constant image: TF's gradient is 0 there (the floor 1/sqrt(n) is taken), not nan
    std = jnp.where(var > 0, jnp.sqrt(jnp.where(var > 0, var, 1.0)), 0.0)
    return (x - mean) / jnp.maximum(std, 1.0 / _math.sqrt(n))


def per_image_standardization(image):
    """Each image scaled to mean 0 and variance 1: ``(x - mean) / max(std,
    1/sqrt(pixels))``, in float32."""
    image = _t(image)
    _at_least_3d(image)
    return _call(_standardize, (image,))


# -- metrics and filters -------------------------------------------------------------------------
def _total_variation(x):
    axes = tuple(range(x.ndim - 3, x.ndim))
    d1 = x[..., 1:, :, :] - x[..., :-1, :, :]
    d2 = x[..., :, 1:, :] - x[..., :, :-1, :]
    return jnp.sum(jnp.abs(d1), axis=axes) + jnp.sum(jnp.abs(d2), axis=axes)


def total_variation(images, name=None):
    """The sum of absolute differences of neighbouring pixels, per image."""
    images = _t(images)
    if images.ndim not in (3, 4):
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    return _call(_total_variation, (images,))


def _image_gradients(x):
    dy = jnp.pad(x[:, 1:] - x[:, :-1], ((0, 0), (0, 1), (0, 0), (0, 0)))
    dx = jnp.pad(x[:, :, 1:] - x[:, :, :-1], ((0, 0), (0, 0), (0, 1), (0, 0)))
    return dy, dx


def image_gradients(image):
    """(dy, dx): forward differences along height and width, 0 in the last row/column."""
    image = _t(image)
    if image.ndim != 4:
        raise ValueError("image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{tuple(image.shape)}.")
    return _call(_image_gradients, (image,))


_SOBEL = (((-1, -2, -1), (0, 0, 0), (1, 2, 1)), ((-1, 0, 1), (-2, 0, 2), (-1, 0, 1)))


def _sobel(x):
    p = jnp.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="reflect")
    h, w = x.shape[1], x.shape[2]
    outs = []
    for k in _SOBEL:
        acc = 0
        for i in range(3):
            for j in range(3):
                if k[i][j]:
                    acc = acc + k[i][j] * p[:, i:i + h, j:j + w, :]
        outs.append(acc)
    return jnp.stack(outs, -1).astype(x.dtype)


def sobel_edges(image):
    """Sobel responses [batch, h, w, d, 2] (dy, dx), with reflected borders."""
    image = _t(image)
    if image.ndim != 4:
        raise ValueError(f"sobel_edges expects a 4-D image, got shape {tuple(image.shape)}")
    if image.shape[1] < 2 or image.shape[2] < 2:
        raise InvalidArgumentError("sobel_edges needs images of at least 2x2 (reflected "
                                   "padding)")
    return _call(_sobel, (image,))


def _check_pair(a, b, error=ValueError):
    if a.ndim < 3 or b.ndim < 3:
        raise ValueError(f"images must be at least 3-D, got {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    if tuple(a.shape[-3:]) != tuple(b.shape[-3:]):
        raise error(f"Shapes {tuple(a.shape)} and {tuple(b.shape)} are incompatible")


def _psnr(a, b, max_val):
    m = _cid(max_val.astype(a.dtype), jnp.float32)
    a, b = _cid(a, jnp.float32), _cid(b, jnp.float32)
    mse = jnp.mean(jnp.square(a - b), axis=(-3, -2, -1))
    return 20 * jnp.log(m) / jnp.log(10.0) - np.float32(10 / np.log(10)) * jnp.log(mse)


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio per image, in float32."""
    a, b = _t(a), _t(b)
    _check_pair(a, b, InvalidArgumentError)      # TF's squared difference fails first
    return _call(_psnr, (a, b, _t(max_val)))


def _gauss(size, sigma):
    # jnp, not NumPy: sigma is a value of the call (traced when it is compiled).
    c = np.arange(size, dtype=np.float32) - np.float32(size - 1) / 2
    g = np.square(c) * (-0.5 / jnp.square(sigma)).astype(jnp.float32)
    g = (g[None, :] + g[:, None]).reshape(-1)
    g = jnp.exp(g - g.max())
    return (g / g.sum()).reshape(size, size).astype(jnp.float32)


def _ssim_channels(x, y, max_val, size, sigma, k1, k2, index_map=False):
    kern = jnp.asarray(_gauss(size, sigma))
    c = x.shape[-1]
    w = jnp.tile(kern[:, :, None, None], (1, 1, 1, c))

    def reducer(v):
        lead = v.shape[:-3]
        v = v.reshape((-1,) + v.shape[-3:])
        r = jax.lax.conv_general_dilated(v, w, (1, 1), "VALID", dimension_numbers=(
            "NHWC", "HWIO", "NHWC"), feature_group_count=c, precision=jax.lax.Precision.HIGHEST)
        return r.reshape(lead + r.shape[1:])
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    m0, m1 = reducer(x), reducer(y)
    num0 = m0 * m1 * 2.0
    den0 = jnp.square(m0) + jnp.square(m1)
    lum = (num0 + c1) / (den0 + c1)
    num1 = reducer(x * y) * 2.0
    den1 = reducer(jnp.square(x) + jnp.square(y))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    if index_map:
        return lum * cs, cs
    return jnp.mean(lum * cs, axis=(-3, -2)), jnp.mean(cs, axis=(-3, -2))


def _ssim(a, b, max_val, size, sigma, k1, k2, index_map):
    m = _cid(max_val.astype(a.dtype), jnp.float32)
    a, b = _cid(a, jnp.float32), _cid(b, jnp.float32)
    s, _ = _ssim_channels(a, b, m, size, sigma, k1, k2, index_map)
    return jnp.mean(s, -1)


def _ssim_size_check(a, b, size):
    for x in (a, b):
        if x.shape[-3] < size or x.shape[-2] < size:
            raise InvalidArgumentError(f"the images ({tuple(x.shape)}) must be at least "
                                       f"filter_size ({size}) high and wide")


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False):
    """Structural similarity per image (Gaussian window ``filter_size``,
    ``filter_sigma``), the mean over channels; with ``return_index_map`` the map."""
    a, b = _t(img1), _t(img2)
    _check_pair(a, b)
    _ssim_size_check(a, b, int(filter_size))
    return _call(_ssim, (a, b, _t(max_val), int(filter_size), float(filter_sigma), float(k1),
                         float(k2), bool(return_index_map)))


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _ms_ssim(a, b, max_val, powers, size, sigma, k1, k2):
    m = _cid(max_val.astype(a.dtype), jnp.float32)
    imgs = [_cid(a, jnp.float32), _cid(b, jnp.float32)]
    mcs = []
    for k in range(len(powers)):
        if k > 0:
            h, w = imgs[0].shape[-3], imgs[0].shape[-2]
            pads = [(0, 0)] * (imgs[0].ndim - 3) + [(0, h % 2), (0, w % 2), (0, 0)]
            imgs = [jnp.pad(x, pads, mode="symmetric") for x in imgs]
            imgs = [x.reshape(x.shape[:-3] + (x.shape[-3] // 2, 2, x.shape[-2] // 2, 2,
                                              x.shape[-1])).mean(axis=(-4, -2)) for x in imgs]
        s, cs = _ssim_channels(imgs[0], imgs[1], m, size, sigma, k1, k2)
        mcs.append(jax.nn.relu(cs))
    mcs.pop()
    stack = jnp.stack(mcs + [jax.nn.relu(s)], -1)
    return jnp.mean(jnp.prod(stack ** jnp.asarray(powers, jnp.float32), -1), -1)


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03):
    """Multi-scale SSIM (one scale per power factor, each half the size of the last)."""
    a, b = _t(img1), _t(img2)
    _check_pair(a, b)
    return _call(_ms_ssim, (a, b, _t(max_val), tuple(float(p) for p in power_factors),
                            int(filter_size), float(filter_sigma), float(k1), float(k2)))


# -- boxes ----------------------------------------------------------------------------------------
def _iou(b, i, j):
    ymin_i, ymax_i = min(b[i, 0], b[i, 2]), max(b[i, 0], b[i, 2])
    xmin_i, xmax_i = min(b[i, 1], b[i, 3]), max(b[i, 1], b[i, 3])
    ymin_j, ymax_j = min(b[j, 0], b[j, 2]), max(b[j, 0], b[j, 2])
    xmin_j, xmax_j = min(b[j, 1], b[j, 3]), max(b[j, 1], b[j, 3])
    ai = (ymax_i - ymin_i) * (xmax_i - xmin_i)
    aj = (ymax_j - ymin_j) * (xmax_j - xmin_j)
    if ai <= 0 or aj <= 0:
        return 0.0
    ih = max(min(ymax_i, ymax_j) - max(ymin_i, ymin_j), 0.0)
    iw = max(min(xmax_i, xmax_j) - max(xmin_i, xmin_j), 0.0)
    inter = ih * iw
    return inter / (ai + aj - inter)


def _iou_tiled(b, i, j):
    """The padded NMS's IoU (_bbox_overlap): corners as given, so a box whose
    corners are reversed has negative area and overlaps nothing."""
    ih = max(min(b[i, 2], b[j, 2]) - max(b[i, 0], b[j, 0]), 0.0)
    iw = max(min(b[i, 3], b[j, 3]) - max(b[i, 1], b[j, 1]), 0.0)
    inter = ih * iw
    union = ((b[i, 2] - b[i, 0]) * (b[i, 3] - b[i, 1]) + (b[j, 2] - b[j, 0]) * (b[j, 3] - b[j, 1])
             - inter)
    return inter / (union + 1e-8) if union + 1e-8 > 0 else 0.0


def _greedy(sim, scores, max_out, thr, score_thr, sigma=0.0):
    """TF's NonMaxSuppressionV5 loop (kernels/image/non_max_suppression_op.cc): a
    priority queue by score (ties: the lower index), soft-NMS when sigma > 0."""
    import heapq
    scale = -0.5 / sigma if sigma > 0 else 0.0
    heap = [(-float(s), i, 0) for i, s in enumerate(scores) if s > score_thr]
    heapq.heapify(heap)
    sel, sel_scores = [], []
    while len(sel) < max_out and heap:
        neg, i, begin = heapq.heappop(heap)
        score = orig = -neg
        hard = False
        for j in range(len(sel) - 1, begin - 1, -1):
            s = sim(i, sel[j])
            score *= np.exp(scale * s * s) if s <= thr else 0.0
            if sigma <= 0 and s > thr:
                hard = True
                break
            if score <= score_thr:
                break
        if hard:
            continue
        if score == orig:
            sel.append(i)
            sel_scores.append(score)
        elif score > score_thr:
            heapq.heappush(heap, (-score, i, len(sel)))
    return sel, sel_scores


def _nms_args(boxes, scores, max_output_size):
    b, s = _t(boxes), _t(scores)
    if b.ndim != 2 or b.shape[-1] != 4:
        raise InvalidArgumentError(f"boxes must be 2-D [num_boxes, 4], got {list(b.shape)}")
    if s.ndim != 1 or s.shape[0] != b.shape[0]:
        raise InvalidArgumentError("scores has incompatible shape")
    bv = np.asarray(_concrete(b, "boxes"), np.float64)
    sv = np.asarray(_concrete(s, "scores"))
    return b, s, bv, sv, _int(max_output_size, "max_output_size")


def _scalar(v, what):
    return float(np.asarray(_concrete(v, what) if isinstance(v, _TensorLike) else v))


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None):
    """Indices (int32) of at most ``max_output_size`` boxes, greedily by score, each
    overlapping no earlier pick by IoU > ``iou_threshold``. Runs on concrete values
    (not under tf.function); no gradient, as TF."""
    b, s, bv, sv, n = _nms_args(boxes, scores, max_output_size)
    sel, _ = _greedy(lambda i, j: _iou(bv, i, j), sv, n, _scalar(iou_threshold, "iou_threshold"),
                     _scalar(score_threshold, "score_threshold"))
    return _wrap(jnp.asarray(np.asarray(sel, np.int32)))


def _take_scores(s, idx, values):
    return jnp.asarray(values, s.dtype) + 0 * s[idx]


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None):
    """(indices, scores) of the selected boxes; with ``soft_nms_sigma`` > 0 (Soft-NMS)
    overlapping boxes' scores decay by exp(-iou**2 / (2 sigma)) instead of being
    dropped. TF registers no gradient (a gradient through the scores: LookupError)."""
    b, s, bv, sv, n = _nms_args(boxes, scores, max_output_size)
    sel, sc = _greedy(lambda i, j: _iou(bv, i, j), sv, n, _scalar(iou_threshold, "iou_threshold"),
                      _scalar(score_threshold, "score_threshold"),
                      _scalar(soft_nms_sigma, "soft_nms_sigma"))
    idx = np.asarray(sel, np.int32)
    return (_wrap(jnp.asarray(idx)),
            _call(_ng(_take_scores), (s, idx, np.asarray(sc, np.dtype(s.dtype)))))


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """``non_max_suppression`` with a given [n, n] overlap matrix in place of IoU."""
    o = _t(overlaps)
    if o.ndim != 2 or o.shape[0] != o.shape[1]:
        raise InvalidArgumentError(f"overlaps must be square, got {list(o.shape)}")
    ov = np.asarray(_concrete(o, "overlaps"), np.float64)
    sv = np.asarray(_concrete(_t(scores), "scores"))
    sel, _ = _greedy(lambda i, j: ov[i, j], sv, _int(max_output_size, "max_output_size"),
                     _scalar(overlap_threshold, "overlap_threshold"),
                     _scalar(score_threshold, "score_threshold"))
    return _wrap(jnp.asarray(np.asarray(sel, np.int32)))


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None, sorted_input=False, canonicalized_coordinates=False,
                               tile_size=512):
    """(indices, num_valid) as TF's padded NMS; batched boxes ([..., n, 4]) need
    ``pad_to_max_output_size=True``; padding entries are 0."""
    b, s = _t(boxes), _t(scores)
    if not pad_to_max_output_size and b.ndim > 2:
        raise ValueError(f"'pad_to_max_output_size' (value {pad_to_max_output_size}) must be "
                         "True for batched input")
    n_out = _int(max_output_size, "max_output_size")
    bv = np.asarray(_concrete(b, "boxes"), np.float64)
    sv = np.asarray(_concrete(s, "scores"), np.float64)
    lead = bv.shape[:-2]
    bv, sv = bv.reshape(-1, bv.shape[-2], 4), sv.reshape(-1, sv.shape[-1])
    thr, sthr = _scalar(iou_threshold, "iou_threshold"), _scalar(score_threshold, "score_threshold")
    idx = np.zeros((bv.shape[0], n_out), np.int32)
    valid = np.zeros(bv.shape[0], np.int32)
    if not canonicalized_coordinates and bv.size:
        # TF orders the corners as the first box has them, for every box
        if bv[0, 0, 0] > bv[0, 0, 2]:
            bv = bv[..., [2, 1, 0, 3]]
        if bv[0, 0, 1] > bv[0, 0, 3]:
            bv = bv[..., [0, 3, 2, 1]]
    for k in range(bv.shape[0]):
        # TF zeroes the boxes at or below the score threshold, and a box with no
        # positive coordinate is never output.
        keep = (sv[k] > sthr) & np.any(bv[k] > 0, -1)
        sc = np.where(keep, sv[k], -np.inf)
        sel, _ = _greedy(lambda i, j: _iou_tiled(bv[k], i, j), sc, n_out, thr, -np.inf)
        idx[k, :len(sel)] = sel
        valid[k] = len(sel)
    if not pad_to_max_output_size:
        return _wrap(jnp.asarray(idx[0, :valid[0]])), _wrap(jnp.asarray(valid.reshape(lead)))
    return (_wrap(jnp.asarray(idx.reshape(lead + (n_out,)))),
            _wrap(jnp.asarray(valid.reshape(lead))))


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size,
                                 iou_threshold=0.5, score_threshold=float("-inf"),
                                 pad_per_class=False, clip_boxes=True, name=None):
    """Per-class NMS over a batch: ``boxes`` [batch, n, q, 4] (q 1 or classes),
    ``scores`` [batch, n, classes] -> (nmsed_boxes, nmsed_scores, nmsed_classes,
    valid_detections), the detections sorted by score and zero-padded."""
    b, s = _t(boxes), _t(scores)
    if b.ndim != 4 or s.ndim != 3:
        raise InvalidArgumentError("boxes must be 4-D and scores 3-D")
    bv = np.asarray(_concrete(b, "boxes"), np.float32)
    sv = np.asarray(_concrete(s, "scores"), np.float32)
    per = _int(max_output_size_per_class, "max_output_size_per_class")
    total = _int(max_total_size, "max_total_size")
    thr, sthr = _scalar(iou_threshold, "iou_threshold"), _scalar(score_threshold, "score_threshold")
    batch, n, q, _ = bv.shape
    classes = sv.shape[2]
    size = min(total, per * classes) if pad_per_class else total
    ob = np.zeros((batch, size, 4), np.float32)
    os_ = np.zeros((batch, size), np.float32)
    oc = np.zeros((batch, size), np.float32)
    ov = np.zeros(batch, np.int32)
    for k in range(batch):
        dets = []
        for c in range(classes):
            bc = bv[k, :, 0 if q == 1 else c].astype(np.float64)
            sel, sc = _greedy(lambda i, j: _iou(bc, i, j), sv[k, :, c], per, thr, sthr)
            dets += [(float(sv[k, i, c]), c, i) for i in sel]
        dets.sort(key=lambda d: -d[0])
        dets = dets[:size]
        for m, (score, c, i) in enumerate(dets):
            box = bv[k, i, 0 if q == 1 else c]
            ob[k, m] = np.clip(box, 0, 1) if clip_boxes else box
            os_[k, m], oc[k, m] = score, c
        ov[k] = len(dets)
    nb, ns = _call(_ng(_combined_floats), (b, s, ob, os_))
    return nb, ns, _wrap(jnp.asarray(oc)), _wrap(jnp.asarray(ov))


def _combined_floats(b, s, ob, os_):
    # tied to the inputs so that a gradient reaches the op and raises as in TF
    return ob + 0 * jnp.sum(b), os_ + 0 * jnp.sum(s)


_COLOURS = np.asarray([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1],
                       [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1],
                       [0, 1, 1, 1], [1, 0, 1, 1]], np.float32)


def _draw(images, boxes, colours):
    _, h, w, _ = images.shape
    bf = boxes.astype(jnp.float32)
    # TF truncates the scaled corners toward zero (a static_cast to int64)
    r0 = jnp.trunc(bf[..., 0] * (h - 1)).astype(jnp.int32)[..., None, None]
    c0 = jnp.trunc(bf[..., 1] * (w - 1)).astype(jnp.int32)[..., None, None]
    r1 = jnp.trunc(bf[..., 2] * (h - 1)).astype(jnp.int32)[..., None, None]
    c1 = jnp.trunc(bf[..., 3] * (w - 1)).astype(jnp.int32)[..., None, None]
    ii = jnp.arange(h)[:, None]
    jj = jnp.arange(w)[None, :]
    ok = (r0 <= r1) & (c0 <= c1) & (r0 < h) & (r1 >= 0) & (c0 < w) & (c1 >= 0)
    in_c = (jj >= jnp.maximum(c0, 0)) & (jj <= jnp.minimum(c1, w - 1))
    in_r = (ii >= jnp.maximum(r0, 0)) & (ii <= jnp.minimum(r1, h - 1))
    on = ((ii == r0) & in_c) | ((ii == r1) & in_c) | ((jj == c0) & in_r) | ((jj == c1) & in_r)
    on = on & ok                                                      # [b, nb, h, w]
    nb = boxes.shape[1]
    last = jnp.max(jnp.where(on, jnp.arange(nb)[None, :, None, None], -1), axis=1)
    col = colours[jnp.maximum(last, 0) % colours.shape[0]].astype(images.dtype)
    return jnp.where((last >= 0)[..., None], col, images)


def draw_bounding_boxes(images, boxes, colors, name=None):
    """Draw the outlines of ``boxes`` [batch, n, 4] (normalised y1, x1, y2, x2) on
    ``images`` [batch, h, w, depth 1, 3 or 4] in ``colors`` ([k, 4] RGBA rows, box i
    in row i mod k; empty: TF's default table). No gradient (LookupError, as TF)."""
    images, boxes = _t(images), _t(boxes)
    if images.ndim != 4:
        raise InvalidArgumentError(f"The rank of the images should be 4, got "
                                   f"{list(images.shape)}")
    depth = images.shape[3]
    if depth not in (1, 3, 4):
        raise InvalidArgumentError("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)")
    if boxes.ndim != 3 or boxes.shape[2] != 4 or boxes.shape[0] != images.shape[0]:
        raise InvalidArgumentError(f"boxes must be [batch, num_boxes, 4], got "
                                   f"{list(boxes.shape)}")
    cv = None if colors is None else np.asarray(_concrete(_t(colors), "colors"), np.float32)
    if cv is None or cv.size == 0:
        cv = _COLOURS.copy()
        if depth == 1:
            cv[:, 0] = 1
    elif cv.ndim != 2 or cv.shape[1] < depth:
        raise InvalidArgumentError("colors must be [num_colors, >= depth]")
    return _call(_ng(_draw), (images, boxes, cv[:, :depth]))
