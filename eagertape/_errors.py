"""The error an op raises for arguments it cannot take (shapes, dtypes).

It is TF's ``InvalidArgumentError`` (``eagertape.tf.errors`` re-exports it) and
also a ValueError and a TypeError, the classes JAX raises for the same
mistakes, so ``except TypeError`` code written for JAX keeps working.
"""


class OpError(Exception):
    """Base of TF's runtime errors."""

    def __init__(self, message="", node_def=None, op=None, error_code=None):
        super().__init__(message)
        self.message, self.node_def, self.op, self.error_code = message, node_def, op, error_code


class InvalidArgumentError(OpError, ValueError, TypeError):
    """An op was given arguments it cannot take (incompatible shapes, dtypes, ...)."""
