"""TF's clipping ops (``tf.clip_by_value``, ``tf.clip_by_norm``,
``tf.clip_by_global_norm``), re-exported by ``eagertape.tf``.

>>> import eagertape.tf as tf
>>> tf.clip_by_value(tf.constant([-2.0, 0.5, 3.0]), -1.0, 1.0).numpy()
array([-1. ,  0.5,  1. ], dtype=float32)
"""
from .. import numpy as _np
from ._util import tensor as _t
from .math import maximum as _maximum, minimum as _minimum


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """As TF: ``maximum(minimum(t, clip_value_max), clip_value_min)``, the bounds
    converted to ``t``'s dtype."""
    t = _t(t)
    return _maximum(_minimum(t, clip_value_max), clip_value_min)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(norm(t), clip_norm)`` over ``axes``; an IndexedSlices'
    values are clipped (their norm taken), and an IndexedSlices is returned, as TF's."""
    from ._indexed_slices import IndexedSlices
    if isinstance(t, IndexedSlices):
        return IndexedSlices(clip_by_norm(t.values, clip_norm, axes), t.indices, t.dense_shape)
    t = _t(t)
    l2 = _np.sqrt(_np.sum(t * t, axis=axes, keepdims=True))
    return t * clip_norm / _np.maximum(l2, clip_norm)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor by ``clip_norm / max(global_norm, clip_norm)``; returns
    ``(clipped list, global_norm)``; None entries stay None, an IndexedSlices' values
    are scaled (and counted in the norm), as TF's."""
    from ._indexed_slices import IndexedSlices

    def part(t):
        return t.values if isinstance(t, IndexedSlices) else _t(t)
    present = [part(t) for t in t_list if t is not None]
    gnorm = _np.sqrt(sum(_np.sum(t * t) for t in present)) if use_norm is None \
        else _t(use_norm)
    scale = clip_norm / _np.maximum(gnorm, clip_norm)

    def scaled(t):
        if isinstance(t, IndexedSlices):
            return IndexedSlices(t.values * scale, t.indices, t.dense_shape)
        return _t(t) * scale
    return [None if t is None else scaled(t) for t in t_list], gnorm
