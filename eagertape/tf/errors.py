"""``tf.errors``: TF's exception classes, raised where TF raises them.

Each also derives from the Python exception eagertape raises for the same
mistake, so ``except ValueError`` code keeps working.

>>> import eagertape.tf as tf
>>> issubclass(tf.errors.InvalidArgumentError, ValueError)
True
"""
# The core raises this InvalidArgumentError itself, for ops given shapes or
# dtypes they cannot take (a ValueError and a TypeError too).
from .._errors import InvalidArgumentError, OpError  # noqa: F401
from ._util import _Unsupported

__getattr__ = _Unsupported("tf.errors")


class NotFoundError(OpError, LookupError):
    pass


class OutOfRangeError(OpError, IndexError):
    pass


class UnimplementedError(OpError, NotImplementedError):
    pass


class InternalError(OpError, RuntimeError):
    pass


class FailedPreconditionError(OpError, RuntimeError):
    pass


class ResourceExhaustedError(OpError, MemoryError):
    pass
