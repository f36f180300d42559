"""eagertape: TensorFlow-style eager GradientTape on JAX.

>>> import eagertape as et
>>> from eagertape import numpy as tnp
>>> x = et.Variable([1.0, 2.0, 3.0])
>>> with et.GradientTape() as tape:
...     y = tnp.sum(x * x)
>>> tape.gradient(y, x).numpy()
array([2., 4., 6.], dtype=float32)
"""
from ._tensor import Tensor  # noqa: E402
from ._operators import constant, convert_to_tensor  # noqa: E402
from ._variables import Variable  # noqa: E402
from ._primitive import primitive, stop_gradient  # noqa: E402
from ._tape import GradientTape, UnconnectedGradients  # noqa: E402
from ._custom import custom_gradient  # noqa: E402
from ._function import Function, function  # noqa: E402
from ._forward import ForwardAccumulator  # noqa: E402
from ._fused import execution_mode, get_execution_mode, set_execution_mode  # noqa: E402
from ._replay import clear_replay_cache, replay_cache_info, set_replay_cache_size  # noqa: E402
from ._cache import enable_compilation_cache  # noqa: E402
from . import debug, introspect, numpy, nn, optimizers, testing  # noqa: E402
from .interop import from_jax, to_jax  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "Tensor", "Variable", "constant", "convert_to_tensor", "GradientTape",
    "UnconnectedGradients", "stop_gradient", "custom_gradient", "function", "Function",
    "ForwardAccumulator", "execution_mode", "set_execution_mode", "get_execution_mode",
    "primitive",
    "replay_cache_info", "clear_replay_cache", "set_replay_cache_size", "enable_compilation_cache",
    "debug", "introspect", "numpy", "nn", "optimizers", "testing", "interop", "to_jax",
    "from_jax",
]
