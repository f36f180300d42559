"""Helpers shared by the facade's modules: argument conversion, the unsupported-name hook."""
from .._tensor import Tensor, convert_to_tensor


class _Unsupported:
    """Module ``__getattr__`` for names the facade does not cover (yet)."""

    def __init__(self, module):
        self.module = module

    def __call__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"{self.module}.{name} is not supported by eagertape's TensorFlow facade yet; "
            "use the recorded jax.numpy in eagertape.numpy (or eagertape.nn), or "
            "eagertape.primitive(fn) to record any JAX function")


def tensor(x, dtype=None):
    """A Tensor from a facade argument (Variables read, Python numbers as TF converts them)."""
    if isinstance(x, Tensor) and dtype is None:
        return x
    return convert_to_tensor(x, dtype=dtype)

