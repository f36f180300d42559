"""``tf.linalg`` on eagertape, over the recorded ``jax.numpy.linalg``.

>>> import eagertape.tf as tf
>>> tf.linalg.det(tf.constant([[2.0, 0.0], [0.0, 3.0]])).numpy()
6.0
"""
import jax.numpy as jnp

from .. import numpy as _np
from .._primitive import call as _call
from ._util import _Unsupported, hinted as _hinted, tensor as _t

__getattr__ = _Unsupported("tf.linalg")


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           name=None, **ignored):
    """``a @ b``; ``b`` converted with ``a``'s dtype as a hint (TF's rule: a list or
    NumPy array takes a tensor ``a``'s dtype; different dtypes raise
    InvalidArgumentError).

    One recorded op, transposes included, as TF's MatMul is one op: a tape paused
    around it still sees ``a`` and ``b`` read by its gradient.

    >>> import eagertape.tf as tf
    >>> tf.linalg.matmul([[1.0, 2.0]], [[3.0, 4.0]], transpose_b=True).numpy()
    array([[11.]], dtype=float32)
    """
    a, b = _hinted(a, b)
    return _call(_matmul, (a, b, bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b),
                           bool(adjoint_a), bool(adjoint_b)))


def einsum(equation, *inputs, **kwargs):
    """The sum of products ``equation`` names (``tf.einsum`` is the same).

    >>> import eagertape.tf as tf
    >>> tf.linalg.einsum("ij,j->i", [[1.0, 2.0]], [3.0, 4.0]).numpy()
    array([11.], dtype=float32)
    """
    return _np.einsum(equation, *[_t(x) for x in inputs])


def _matmul(a, b, ta, tb, ca, cb):
    if ta:
        a = jnp.swapaxes(jnp.conj(a) if ca else a, -1, -2)
    if tb:
        b = jnp.swapaxes(jnp.conj(b) if cb else b, -1, -2)
    return jnp.matmul(a, b)


_matmul.__name__ = "matmul"


def inv(input, adjoint=False, name=None):
    x = _np.linalg.inv(_t(input))
    return _np.swapaxes(_np.conj(x), -1, -2) if adjoint else x


def det(input, name=None): return _np.linalg.det(_t(input))
def cholesky(input, name=None): return _np.linalg.cholesky(_t(input))
def trace(x, name=None): return _np.trace(_t(x), axis1=-2, axis2=-1)
def diag(diagonal, name=None): return _call_diag(_t(diagonal))
def diag_part(input, name=None): return _np.diagonal(_t(input), axis1=-2, axis2=-1)


def _call_diag(d):
    # Batched: the last axis becomes a diagonal matrix.
    return _np.eye(d.shape[-1], dtype=d.dtype) * _np.expand_dims(d, -1)


def solve(matrix, rhs, adjoint=False, name=None):
    m = _t(matrix)
    if adjoint:
        m = _np.swapaxes(_np.conj(m), -1, -2)
    return _np.linalg.solve(m, _t(rhs))


def eigh(tensor, name=None):
    """Eigenvalues (ascending) and eigenvectors of a Hermitian matrix."""
    w, v = _np.linalg.eigh(_t(tensor))
    return w, v


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """TF's order: ``s, u, v`` (``v``, not its adjoint)."""
    if not compute_uv:
        return _np.linalg.svd(_t(tensor), compute_uv=False)
    u, s, vh = _np.linalg.svd(_t(tensor), full_matrices=bool(full_matrices))
    return s, u, _np.swapaxes(_np.conj(vh), -1, -2)


def band_part(input, num_lower, num_upper, name=None):
    """Keep ``num_lower`` sub- and ``num_upper`` super-diagonals (-1: all)."""
    x = _t(input)
    m, n = x.shape[-2], x.shape[-1]
    i = _np.arange(m)[:, None]
    j = _np.arange(n)[None, :]
    keep = _np.ones((m, n), dtype=bool)
    if num_lower >= 0:
        keep = keep & (i - j <= num_lower)
    if num_upper >= 0:
        keep = keep & (j - i <= num_upper)
    return _np.where(keep, x, _np.zeros_like(x))


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):
    from . import norm as _norm
    return _norm(tensor, ord=ord, axis=axis, keepdims=keepdims)
