"""TF's runtime names that an eager TF-2 program still calls: graph-era helpers
that do what TF's eager mode does with them (``control_dependencies``, ``group``,
``no_op``, ``init_scope``), device placement onto JAX's devices, initializers,
the variable enums, and small queries (``get_static_value``, ``inside_function``).

>>> import eagertape.tf as tf
>>> with tf.device("/CPU:0"), tf.control_dependencies([tf.no_op()]):
...     v = tf.Variable(tf.constant_initializer(2.0)([2]))
>>> tf.get_static_value(v * 2).tolist()
[4.0, 4.0]
"""
import builtins
import contextlib
import enum
import logging
import re
import time

import jax
import numpy as np

from ..extend import custom_gradient
from .. import extend as _extend
from ..extend import init_scope as _init_scope
from ..extend import convert_to_tensor
from ..extend import as_dtype as _as_dtype, TensorLike as _TensorLike, wrap as _wrap


@contextlib.contextmanager
def control_dependencies(control_inputs):
    """A no-op context, as in TF's eager mode: eager ops run in program order."""
    if control_inputs is not None and not isinstance(control_inputs, (list, builtins.tuple)):
        raise TypeError("argument `control_inputs` must be a list of tensors or None")
    yield


def group(*inputs, name=None):
    """None, as TF's eager mode returns (the inputs ran already)."""
    return None


def no_op(name=None):
    """None, as TF's eager mode returns."""
    return None


def tuple(tensors, control_inputs=None, name=None):  # noqa: A001  (TF's name)
    """The tensors as a list, as TF's eager mode returns them."""
    return list(tensors)


def init_scope():
    """A scope whose ops run at once, outside any tf.function being traced, and no
    tape records (TF lifts them out of the function and pauses the tape)."""
    return _init_scope()


def get_static_value(tensor, partial=False):
    """The value as a NumPy array; inside a tf.function, the value it was built from
    constants (TF's constant folding: ``tf.constant``, ``tf.shape`` of a static
    shape, ``tf.concat``/``tf.stack``/``tf.cast`` of them), else None. Arithmetic
    on such values is known too, where TF's folding gives None (eagertape's static
    shapes: ``tf.shape(x)[0] * 2`` is a constant).

    >>> import eagertape.tf as tf
    >>> @tf.function
    ... def f(x):
    ...     print(tf.get_static_value(tf.concat([tf.shape(x), tf.constant([3])], 0)),
    ...           tf.get_static_value(x))
    >>> f(tf.zeros(2))
    [2 3] None
    """
    if isinstance(tensor, _TensorLike):
        from ._util import constant_value
        return constant_value(tensor)
    return np.asarray(tensor)


def inside_function():
    """True while a tf.function traces its Python function."""
    return _extend.function_trace() is not None


def is_symbolic_tensor(tensor):
    """True for a tensor of a tf.function being traced."""
    return isinstance(tensor, _TensorLike) and isinstance(tensor._value, jax.core.Tracer)


def get_logger():
    """The ``tensorflow`` logger of Python's logging module."""
    return logging.getLogger("tensorflow")


def get_current_name_scope():
    """The name scope ``tf.name_scope`` opened, without its trailing ``/``."""
    return _extend.current_name_scope().rstrip("/")


def timestamp(name=None):
    """Seconds since the epoch as a float64 scalar."""
    return _wrap(np.asarray(time.time(), np.float64))


_DEVICE = re.compile(r"^(?:/job:\w+)?(?:/replica:\d+)?(?:/task:\d+)?"
                     r"(?:/?(?:device:)?(CPU|GPU|TPU)(?::(\d+|\*))?)?$", re.I)


@contextlib.contextmanager
def device(device_name):
    """``with tf.device("/GPU:0"):`` new arrays go to that JAX device
    (``jax.default_device``); a device this machine lacks is ignored, as TF's
    soft placement does. None or "" keeps the current placement."""
    if device_name is None or device_name == "":
        yield
        return
    if not isinstance(device_name, str):
        raise ValueError(f"argument `device_name` must be a string such as '/GPU:0', got "
                         f"{device_name!r}")
    m = _DEVICE.match(device_name.strip())
    if m is None:
        raise ValueError(f"argument `device_name`: cannot parse device {device_name!r}; "
                         "write it as '/CPU:0', '/GPU:1' or '/job:localhost/device:GPU:0'")
    kind, index = m.group(1), m.group(2)
    target = None
    if kind:
        try:
            devs = jax.devices(kind.lower())
        except RuntimeError:
            devs = []
        i = 0 if index in (None, "*") else int(index)
        target = devs[i] if i < len(devs) else None
    if target is None:
        yield
        return
    with jax.default_device(target):
        yield


# -- initializers (TF 2's tf.*_initializer classes) ------------------------------------

class _Initializer:
    def __call__(self, shape, dtype="float32", **kwargs):
        raise NotImplementedError

    def get_config(self):
        return dict(self._config)

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _shape(shape):
    if isinstance(shape, _TensorLike):
        shape = shape.numpy()
    return builtins.tuple(int(s) for s in np.reshape(np.asarray(shape, np.int64), -1))


class constant_initializer(_Initializer):  # noqa: N801  (TF's name)
    """Fills with ``value`` (a scalar, or a value of the requested shape)."""

    def __init__(self, value=0):
        self._config = {"value": value}
        self.value = value

    def __call__(self, shape, dtype="float32", **kwargs):
        shape, dtype = _shape(shape), _as_dtype(dtype)
        v = np.asarray(self.value.numpy() if isinstance(self.value, _TensorLike) else self.value)
        n = int(np.prod(shape, dtype=np.int64))
        if v.size == 1:
            return convert_to_tensor(np.full(shape, v.reshape(()), dtype))
        if v.size != n:
            raise TypeError(f"constant_initializer: a value of {v.size} elements cannot fill "
                            f"shape {list(shape)} ({n} elements)")
        return convert_to_tensor(v.reshape(shape).astype(dtype))


class zeros_initializer(_Initializer):  # noqa: N801
    """Fills with zeros."""
    _config = {}

    def __call__(self, shape, dtype="float32", **kwargs):
        return convert_to_tensor(np.zeros(_shape(shape), _as_dtype(dtype)))


class ones_initializer(_Initializer):  # noqa: N801
    """Fills with ones."""
    _config = {}

    def __call__(self, shape, dtype="float32", **kwargs):
        return convert_to_tensor(np.ones(_shape(shape), _as_dtype(dtype)))


class random_normal_initializer(_Initializer):  # noqa: N801
    """Normal samples from tf.random's generator (not TF's numbers)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self._config = {"mean": mean, "stddev": stddev, "seed": seed}

    def __call__(self, shape, dtype="float32", **kwargs):
        from . import random
        c = self._config
        return random.normal(_shape(shape), c["mean"], c["stddev"], dtype=dtype, seed=c["seed"])


class random_uniform_initializer(_Initializer):  # noqa: N801
    """Uniform samples from tf.random's generator (not TF's numbers)."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self._config = {"minval": minval, "maxval": maxval, "seed": seed}

    def __call__(self, shape, dtype="float32", **kwargs):
        from . import random
        c = self._config
        return random.uniform(_shape(shape), c["minval"], c["maxval"], dtype=dtype,
                              seed=c["seed"])


class VariableAggregation(enum.Enum):
    """How replicas' updates of a Variable combine (accepted; one replica here)."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class VariableSynchronization(enum.Enum):
    """When replicas' Variables synchronise (accepted; one replica here)."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


def recompute_grad(f):
    """``f`` whose intermediate values are not kept for its gradient but computed
    again in the backward pass (``jax.checkpoint``): the same values and gradients,
    less memory. Traced as a ``tf.function`` is: one op per call on the tape."""
    from .. import Function
    return Function(f, name=getattr(f, "__name__", "recompute_grad"), remat=True)


def grad_pass_through(f):
    """``f`` whose gradient is the identity (a straight-through estimator): the
    output's gradient goes to the input unchanged."""
    @custom_gradient
    def through(x):
        return f(x), lambda dy: dy
    return through
