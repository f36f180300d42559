"""``jax.nn``, recorded: ``relu``, ``sigmoid``, ``softmax``, ``log_softmax``, ``gelu``,
``one_hot``, ... on eagertape Tensors.

>>> import eagertape as et
>>> from eagertape import nn
>>> nn.relu(et.constant([-1.0, 2.0]))
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([0., 2.], dtype=float32)>
"""
import jax.nn as _src

from ._namespace import wrap_namespace as _wrap_namespace

__all__ = _wrap_namespace(_src, globals())
