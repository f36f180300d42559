"""``tf.errors``: TF's exception classes (every one an ``OpError``, as TF's), raised
where TF raises them, and TF's error-code constants.

Each class that eagertape itself raises also derives from the Python exception
raised for the same mistake, so ``except ValueError`` code keeps working. The
classes take TF's arguments, ``(node_def, op, message)``, or just a message;
``error_code`` is TF's code.

>>> import eagertape.tf as tf
>>> issubclass(tf.errors.InvalidArgumentError, ValueError)
True
>>> e = tf.errors.NotFoundError(None, None, "no such file")
>>> e.message, e.error_code == tf.errors.NOT_FOUND, isinstance(e, tf.errors.OpError)
('no such file', True, True)
"""
# The core raises this InvalidArgumentError itself, for ops given shapes or
# dtypes they cannot take (a ValueError and a TypeError too).
from ..extend import InvalidArgumentError, OpError  # noqa: F401
from ._util import _Unsupported

__getattr__ = _Unsupported("tf.errors")

# TF's error codes (tensorflow/core/protobuf/error_codes.proto).
OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED = 0, 1, 2, 3, 4
NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED = 5, 6, 7, 8
FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL = 9, 10, 11, 12, 13
UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED = 14, 15, 16


class _Coded(OpError):
    """An OpError with TF's code; built as TF's ``(node_def, op, message)`` or, as
    eagertape raises them, from a message alone."""

    code = UNKNOWN

    def __init__(self, *args, **kwargs):
        if len(args) >= 3:
            node_def, op, message = args[:3]
        else:
            message = args[0] if args else kwargs.pop("message", "")
            node_def, op = kwargs.pop("node_def", None), kwargs.pop("op", None)
        super().__init__(message, node_def, op, self.code)

    def __reduce__(self):
        return type(self), (self.node_def, self.op, self.message)


class CancelledError(_Coded):
    """An operation or step was cancelled."""
    code = CANCELLED


class UnknownError(_Coded):
    """An error of no other class."""
    code = UNKNOWN


class DeadlineExceededError(_Coded):
    """A deadline expired before the operation could complete."""
    code = DEADLINE_EXCEEDED


class NotFoundError(_Coded, LookupError):
    """A requested entity (a file, a checkpoint) was not found."""
    code = NOT_FOUND


class AlreadyExistsError(_Coded):
    """An entity to be created already exists."""
    code = ALREADY_EXISTS


class PermissionDeniedError(_Coded):
    """The caller may not run the operation."""
    code = PERMISSION_DENIED


class UnauthenticatedError(_Coded):
    """The request has no valid credentials."""
    code = UNAUTHENTICATED


class ResourceExhaustedError(_Coded, MemoryError):
    """A resource (memory, a quota) ran out."""
    code = RESOURCE_EXHAUSTED


class FailedPreconditionError(_Coded, RuntimeError):
    """The system is not in the state the operation needs (an uninitialised value,
    a cross product of vectors not of length 3)."""
    code = FAILED_PRECONDITION


class AbortedError(_Coded):
    """The operation was aborted (a concurrency conflict)."""
    code = ABORTED


class OutOfRangeError(_Coded, IndexError):
    """Past the valid range (the end of a dataset's iterator)."""
    code = OUT_OF_RANGE


class UnimplementedError(_Coded, NotImplementedError):
    """The operation is not implemented (for these arguments)."""
    code = UNIMPLEMENTED


class InternalError(_Coded, RuntimeError):
    """An internal invariant was broken."""
    code = INTERNAL


class UnavailableError(_Coded):
    """The runtime is currently unavailable."""
    code = UNAVAILABLE


class DataLossError(_Coded):
    """Unrecoverable data loss or corruption (a truncated record file)."""
    code = DATA_LOSS


class OperatorNotAllowedInGraphError(TypeError):
    """An operator not allowed while tracing a graph (as TF, a TypeError, not an
    OpError); eagertape compiles with JAX, which raises its own tracer errors."""
