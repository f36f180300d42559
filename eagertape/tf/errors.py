"""``tf.errors``: TF's exception classes, raised where TF raises them.

Each also derives from the Python exception eagertape raises for the same
mistake, so ``except ValueError`` code keeps working.

>>> import eagertape.tf as tf
>>> issubclass(tf.errors.InvalidArgumentError, ValueError)
True
"""
from ._util import _Unsupported

__getattr__ = _Unsupported("tf.errors")


class OpError(Exception):
    """Base of TF's runtime errors."""

    def __init__(self, message="", node_def=None, op=None, error_code=None):
        super().__init__(message)
        self.message, self.node_def, self.op, self.error_code = message, node_def, op, error_code


class InvalidArgumentError(OpError, ValueError):
    pass


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
