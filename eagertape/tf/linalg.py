"""``tf.linalg`` on eagertape, over the recorded ``jax.numpy.linalg`` and
``jax.scipy.linalg``: every computation is one recorded op or built from the
facade's ops, so ``tf.GradientTape`` differentiates it; the ``LinearOperator``
family is written over those ops (structure kept where it is cheap: diagonal,
triangular, identity, Householder, permutation; the dense matrix elsewhere).

>>> import eagertape.tf as tf
>>> float(tf.linalg.det(tf.constant([[2.0, 0.0], [0.0, 3.0]])))
6.0
>>> op = tf.linalg.LinearOperatorDiag([2.0, 4.0])
>>> op.solvevec([2.0, 2.0]).numpy(), round(float(op.log_abs_determinant()), 4)
(array([1. , 0.5], dtype=float32), 2.0794)
>>> tf.linalg.lu_reconstruct(*tf.linalg.lu([[1.0, 2.0], [3.0, 4.0]])).numpy()
array([[1., 2.],
       [3., 4.]], dtype=float32)
"""
import builtins

import jax
import jax.numpy as jnp
import numpy as np

from .. import numpy as _np
from ..extend import InvalidArgumentError
from ..extend import convert_operand as _convert_operand
from ..extend import call as _call
from ..extend import TensorShape, as_dtype as _as_dtype, TensorLike as _TensorLike
from ._util import _Unsupported, concrete as _concrete, hinted as _hinted, tensor as _t
from ._util import ints as _ints
from ._array import one_hot as _one_hot

# TF names left out, with the reason (AttributeError, as for any name not covered).
__getattr__ = _Unsupported("tf.linalg", {
    "LinearOperatorBlockLowerTriangular": "its block-triangular solve and determinant "
    "are not written yet; build the dense matrix with LinearOperatorFullMatrix",
    "LinearOperatorCirculant2D": "only the 1-D LinearOperatorCirculant is written",
    "LinearOperatorCirculant3D": "only the 1-D LinearOperatorCirculant is written",
    "experimental": "tf.linalg.experimental (conjugate_gradient) is not written; "
    "jax.scipy.sparse.linalg.cg through eagertape.primitive records one",
})


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
    """Eigenvalues (ascending) and eigenvectors of a Hermitian matrix; only the lower
    triangle is read, as TF's (so its gradient falls on the lower triangle)."""
    w, v = _np.linalg.eigh(_lower_hermitian(_t(tensor), "eigh"))
    return w, v


def _lower_hermitian(x, what):
    _square(x, what)
    return _call(_from_lower, (x,))


def _from_lower(x):
    low = jnp.tril(x, -1)
    d = jnp.diagonal(x, axis1=-2, axis2=-1)
    return low + jnp.conj(jnp.swapaxes(low, -1, -2)) + d[..., None] * jnp.eye(x.shape[-1],
                                                                              dtype=x.dtype)


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
    """``tf.norm``: the Euclidean (Frobenius) norm by default, over all entries."""
    x = _t(tensor)
    keep = builtins.bool(keepdims)
    if ord in ("euclidean", "fro", 2) and (axis is None or isinstance(axis, int)):
        return _np.sqrt(_np.sum(x * _np.conj(x), axis=axis, keepdims=keep)).real \
            if np.issubdtype(x.dtype, np.complexfloating) else \
            _np.sqrt(_np.sum(x * x, axis=axis, keepdims=keep))
    # TF's "euclidean" over two axes is the Frobenius norm: NumPy's default there.
    # The order goes as a string: a float (np.inf, 1.5) would be a traced value,
    # on which NumPy's norm cannot branch, and the op could not be compiled.
    return _call(_norm, (x, None if ord == "euclidean" else str(ord),
                         builtins.tuple(axis) if isinstance(axis, list) else axis, keep))


def _norm(x, ord, axis, keepdims):
    if ord is not None and ord not in ("fro", "nuc"):
        ord = float(ord)
    return jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)


# -- shapes and products -----------------------------------------------------------
def _is_complex(x):
    return np.issubdtype(x.dtype, np.complexfloating)


def _adj(x):
    x = _np.swapaxes(x, -1, -2)
    return _np.conj(x) if _is_complex(x) else x


def adjoint(matrix, name=None):
    """The conjugate transpose of the last two axes."""
    return _adj(_t(matrix))


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """The transpose of the last two axes (conjugated with ``conjugate``)."""
    a = _t(a)
    if a.ndim < 2:
        raise ValueError(f"argument `a` must have rank >= 2, got shape {list(a.shape)}")
    return _adj(a) if conjugate else _np.swapaxes(a, -1, -2)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """``a @ b[..., None]`` without the last axis: a (batch of) matrix-vector products."""
    a, b = _hinted(a, b)
    return matmul(a, _np.expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)[..., 0]


def tensordot(a, b, axes, name=None):
    """Contract ``axes`` of ``a`` with ``axes`` of ``b`` (an int: the last/first
    ``axes``). Each is converted alone, as TF does (``[0.3]`` is float32 even beside
    a float64 Tensor, and two dtypes raise InvalidArgumentError).

    >>> import eagertape.tf as tf
    >>> tf.tensordot(tf.constant([1.0, 2.0]), [3.0, 4.0], 1).numpy()
    np.float32(11.0)
    """
    from ._util import each_alone
    a, b = each_alone(a, b)
    if isinstance(axes, _TensorLike):
        axes = _concrete(axes, "axes").tolist()
    return _np.tensordot(a, b, axes=axes)


def cross(a, b, name=None):
    """The cross product of the last axes (of size 3)."""
    a, b = _hinted(a, b)
    if a.shape[-1:] != (3,) or b.shape[-1:] != (3,):
        from .errors import FailedPreconditionError
        raise FailedPreconditionError(f"cross: the last dimension must be 3, got shapes "
                                   f"{list(a.shape)} and {list(b.shape)}")
    if a.shape != b.shape:
        raise InvalidArgumentError(f"cross: the inputs must have one shape, got "
                                   f"{list(a.shape)} and {list(b.shape)}")
    return _np.cross(a, b)


def eye(num_rows, num_columns=None, batch_shape=None, dtype="float32", name=None):
    """The identity matrix (``num_rows`` x ``num_columns``), batched by ``batch_shape``."""
    with jax.ensure_compile_time_eval():    # a constant even while a tf.function traces
        out = _np.eye(num_rows, num_columns, dtype=_as_dtype(dtype))
        if batch_shape:
            out = _np.broadcast_to(out, _ints(batch_shape) + builtins.tuple(out.shape))
        return out


def global_norm(t_list, name=None):
    """``sqrt(sum of the squares of every entry of every tensor)``; None entries skipped."""
    if isinstance(t_list, _TensorLike) or not isinstance(t_list, (list, tuple)):
        raise TypeError("argument `t_list` of global_norm must be a sequence of tensors")
    from ._indexed_slices import IndexedSlices
    # TF's: an IndexedSlices counts its values (a repeated index's rows each).
    ts = [t.values if isinstance(t, IndexedSlices) else _t(t) for t in t_list if t is not None]
    return _np.sqrt(builtins.sum(_np.sum(t * t) for t in ts))


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``x / sqrt(max(sum(x**2, axis), epsilon))`` (``tf.math.l2_normalize``)."""
    from .math import l2_normalize as f
    return f(x, axis=axis, epsilon=epsilon, dim=dim)


def normalize(tensor, ord="euclidean", axis=None, name=None):
    """``(tensor / norm, norm)``, the norm kept with the reduced axes."""
    x = _t(tensor)
    n = norm(x, ord=ord, axis=axis, keepdims=True)
    return x / n, n


# -- determinants, diagonals ---------------------------------------------------------
def logdet(matrix, name=None):
    """``log(det(matrix))`` of a Hermitian positive definite matrix, from its Cholesky
    factor (``2 * sum(log(diag(chol)))``), as TF."""
    chol = cholesky(matrix)
    return 2.0 * _np.sum(_np.log(_np.real(diag_part(chol))), axis=-1)


def slogdet(input, name=None):
    """``(sign, log|det|)``; for complex input the sign is a unit complex number."""
    s, l = _np.linalg.slogdet(_t(input))
    return s, l


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):
    """``input`` with its ``k``-th diagonal replaced by ``diagonal`` (one ``k``)."""
    x, d = _hinted(input, diagonal)
    if not isinstance(k, (int, np.integer)):
        raise NotImplementedError("tf.linalg.set_diag: only one diagonal (an int `k`) "
                                  "is supported")
    m, n = x.shape[-2], x.shape[-1]
    length = builtins.min(m, n - k) if k >= 0 else builtins.min(m + k, n)
    if d.shape[-1] != length or d.shape[:-1] != x.shape[:-2]:
        raise InvalidArgumentError(f"set_diag: `diagonal` must have shape "
                                   f"{list(x.shape[:-2]) + [length]}, got {list(d.shape)}")
    return _call(_set_diag, (x, d, int(k)))


def _set_diag(x, d, k):
    m, n = x.shape[-2:]
    i = jnp.arange(m)[:, None]
    j = jnp.arange(n)[None, :]
    on = (j - i) == k
    # The entry on row i of the k-th diagonal is d[i] (k >= 0) or d[j] (k < 0).
    pos = jnp.broadcast_to(i if k >= 0 else j, (m, n))
    vals = jnp.take(d, jnp.clip(pos, 0, d.shape[-1] - 1), axis=-1)
    return jnp.where(on, vals, x)


def tensor_diag(diagonal, name=None):
    """The tensor of shape ``diagonal.shape * 2`` with ``diagonal`` on its diagonal."""
    d = _t(diagonal)
    n = d.size
    return _np.reshape(_np.diag(_np.reshape(d, (-1,))), tuple(d.shape) * 2) if n else \
        _np.zeros(tuple(d.shape) * 2, d.dtype)


def tensor_diag_part(input, name=None):
    """The inverse of ``tensor_diag``: an input of shape ``s + s`` gives shape ``s``."""
    x = _t(input)
    r = x.ndim // 2
    if x.ndim % 2 or x.shape[:r] != x.shape[r:]:
        raise InvalidArgumentError(f"tensor_diag_part: the shape must be s + s, got "
                                   f"{list(x.shape)}")
    n = int(np.prod(x.shape[:r], dtype=np.int64))
    return _np.reshape(_np.diagonal(_np.reshape(x, (n, n))), x.shape[:r])


# -- solves ------------------------------------------------------------------------
def _square(x, what):
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise InvalidArgumentError(f"{what}: the input must be a (batch of) square "
                                   f"matrices, got shape {list(x.shape)}")


def _rows_match(a, b, what):
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise InvalidArgumentError(f"{what}: `rhs` must have shape [..., {a.shape[-1]}, K], "
                                   f"got {list(b.shape)}")


def _tri_solve(a, b, lower, adjoint, unit=False):
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    return jax.lax.linalg.triangular_solve(a, b, left_side=True, lower=lower,
                                           transpose_a=adjoint, conjugate_a=adjoint,
                                           unit_diagonal=unit)


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """Solve ``matrix @ x = rhs`` for a triangular ``matrix`` (the other triangle is
    ignored); batch axes broadcast."""
    a, b = _hinted(matrix, rhs)
    _square(a, "triangular_solve")
    _rows_match(a, b, "triangular_solve")
    return _call(_tri_solve, (a, b, bool(lower), bool(adjoint)))


def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None):
    """``triangular_solve`` with the matrix given by its ``K`` bands (``[..., K, M]``,
    TF's LEFT_RIGHT layout: for ``lower`` row ``r`` holds the ``r``-th subdiagonal,
    right-aligned; else row ``r`` the ``(K-1-r)``-th superdiagonal, left-aligned)."""
    bands, b = _hinted(bands, rhs)
    return _call(_banded_solve, (bands, b, bool(lower), bool(adjoint)))


def _banded_dense(bands, lower):
    k, m = bands.shape[-2:]
    i = jnp.arange(m)[:, None]
    j = jnp.arange(m)[None, :]
    off = (i - j) if lower else (j - i)
    # lower: A[i, i-r] = bands[r, i]; upper: A[i, i+s] = bands[K-1-s, i].
    row = off if lower else (k - 1 - off)
    keep = (off >= 0) & (off < k)
    vals = bands[..., jnp.clip(row, 0, k - 1), jnp.broadcast_to(i, (m, m))]
    return jnp.where(keep, vals, jnp.zeros((), bands.dtype))


def _banded_solve(bands, b, lower, adjoint):
    return _tri_solve(_banded_dense(bands, lower), b, lower, adjoint)


def cholesky_solve(chol, rhs, name=None):
    """Solve ``A x = rhs`` given ``chol``, the lower Cholesky factor of ``A``."""
    c, b = _hinted(chol, rhs)
    _square(c, "cholesky_solve")
    _rows_match(c, b, "cholesky_solve")
    return _call(_chol_solve, (c, b))


def _chol_solve(c, b):
    y = _tri_solve(c, b, True, False)
    return _tri_solve(c, y, True, True)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The least-squares solution of ``matrix @ x = rhs`` (``M x N`` matrices).
    ``fast``: TF's normal equations with Tikhonov ``l2_regularizer``, by Cholesky;
    otherwise the minimum-norm solution (``l2_regularizer`` must then be 0)."""
    a, b = _hinted(matrix, rhs)
    if a.ndim < 2 or b.ndim < 2 or a.shape[-2] != b.shape[-2]:
        raise InvalidArgumentError(f"lstsq: `matrix` [..., M, N] and `rhs` [..., M, K] "
                                   f"must share M, got {list(a.shape)} and {list(b.shape)}")
    # TF multiplies the identity by it: a Python number takes the matrix's dtype
    # (float64 exactly), a Tensor keeps its own.
    real = np.finfo(np.dtype(a.dtype)).dtype if np.dtype(a.dtype).kind == "c" else a.dtype
    lam = _concrete(l2_regularizer if isinstance(l2_regularizer, _TensorLike)
                    else np.asarray(_convert_operand(l2_regularizer, real)), "l2_regularizer")
    if not fast and lam is not None and float(lam) != 0:
        raise NotImplementedError("lstsq: fast=False only supports l2_regularizer=0, as TF")
    return _call(_lstsq, (a, b, float(lam) if lam is not None else 0.0, bool(fast)))


def _lstsq(a, b, lam, fast):
    if not fast:
        return jnp.linalg.pinv(a) @ b
    m, n = a.shape[-2:]
    ah = jnp.conj(jnp.swapaxes(a, -1, -2))
    if m >= n:
        g = ah @ a + lam * jnp.eye(n, dtype=a.dtype)
        return _chol_solve(jnp.linalg.cholesky(g), ah @ b)
    g = a @ ah + lam * jnp.eye(m, dtype=a.dtype)
    return ah @ _chol_solve(jnp.linalg.cholesky(g), b)


def lu(input, output_idx_type="int32", name=None):
    """``(lu, p)``: ``L`` (unit lower, below the diagonal) and ``U`` packed in ``lu``,
    and the row permutation ``p`` with ``input[p] == L @ U`` (partial pivoting)."""
    x = _t(input)
    _square(x, "lu")
    packed = _call(_lu, (x,))
    perm = _call(_lu_perm, (x, np.dtype(_as_dtype(output_idx_type)).name),
                 constant_output=True)
    return packed, perm


def _lu(x):
    return jax.lax.linalg.lu(x)[0]


def _lu_perm(x, dtype):
    return jax.lax.linalg.lu(x)[2].astype(dtype)


def _unpack_lu(lu_):
    n = lu_.shape[-1]
    lower = jnp.tril(lu_, -1) + jnp.eye(n, dtype=lu_.dtype)
    return lower, jnp.triu(lu_)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrix ``lu`` factors: ``(L @ U)`` with its rows put back in place."""
    return _call(_lu_reconstruct, (_t(lower_upper), _t(perm)))


def _lu_reconstruct(lu_, perm):
    lower, upper = _unpack_lu(lu_)
    x = lower @ upper
    inv = jnp.argsort(perm, axis=-1)
    return jnp.take_along_axis(x, inv[..., :, None], axis=-2)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """Solve ``A x = rhs`` from ``lu(A)``."""
    lu_, b = _hinted(lower_upper, rhs)
    _rows_match(lu_, b, "lu_solve")
    return _call(_lu_solve, (lu_, _t(perm), b))


def _lu_solve(lu_, perm, b):
    batch = jnp.broadcast_shapes(lu_.shape[:-2], b.shape[:-2], perm.shape[:-1])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    perm = jnp.broadcast_to(perm, batch + perm.shape[-1:])
    pb = jnp.take_along_axis(b, perm[..., :, None], axis=-2)
    y = _tri_solve(lu_, pb, True, False, unit=True)
    return _tri_solve(lu_, y, False, False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of the matrix ``lu`` factored."""
    lu_ = _t(lower_upper)
    n = lu_.shape[-1]
    return lu_solve(lu_, perm, _np.broadcast_to(_np.eye(n, dtype=lu_.dtype), lu_.shape))


# -- decompositions and spectra -------------------------------------------------------
def _eps(dtype):
    return float(np.finfo(np.dtype(dtype)).eps)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values above ``tol`` (TF's default:
    ``max(M, N) * eps * max(singular value)``); int32."""
    x = _t(a)
    s = svd(x, compute_uv=False)
    if tol is None:
        tol = _np.max(s, axis=-1, keepdims=True) * (builtins.max(x.shape[-2:]) *
                                                    _eps(s.dtype))
    else:
        tol = _t(tol, s.dtype)
    return _np.sum((s > tol).astype("int32"), axis=-1, dtype="int32")


def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse, singular values below ``rcond * max(s)``
    dropped (TF's default ``rcond``: ``10 * max(M, N) * eps``)."""
    x = _t(a)
    if rcond is None:
        rcond = 10.0 * builtins.max(x.shape[-2:]) * _eps(_np.real(x).dtype)
    return _call(_pinv, (x, float(rcond)))


def _pinv(x, rcond):
    return jnp.linalg.pinv(x, rtol=rcond)


def qr(input, full_matrices=False, name=None):
    """``(q, r)`` with ``input == q @ r`` (Householder, LAPACK's signs as TF's)."""
    q, r = _np.linalg.qr(_t(input), mode="complete" if full_matrices else "reduced")
    return q, r


def eig(tensor, name=None):
    """Eigenvalues and eigenvectors of a general matrix, complex (complex64 for
    float32 input). Eigenvector derivatives assume distinct eigenvalues, as TF's."""
    x = _t(tensor)
    _square(x, "eig")
    w, v = _call(_eig, (x,))
    return w, v


def _eig(x):
    w, v = jax.lax.linalg.eig(x, compute_left_eigenvectors=False,
                              enable_eigvec_derivs=True)
    return w, v


def eigvals(tensor, name=None):
    """The eigenvalues of a general matrix (complex)."""
    x = _t(tensor)
    _square(x, "eigvals")
    return _np.linalg.eigvals(x)


def eigvalsh(tensor, name=None):
    """The eigenvalues of a Hermitian matrix, ascending (the lower triangle read)."""
    return _np.linalg.eigvalsh(_lower_hermitian(_t(tensor), "eigvalsh"))


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None,
                     tol=None, name=None):
    """Eigenvalues (and with ``eigvals_only=False`` eigenvectors) of the Hermitian
    tridiagonal matrix with diagonal ``alpha`` and off-diagonal ``beta``; ``select``:
    ``'a'`` all, ``'i'`` the indices ``select_range`` (inclusive), ``'v'`` the values
    in the half-open interval ``(lo, hi]``."""
    a, b = _t(alpha), _t(beta)
    if a.ndim != 1 or b.shape != (a.shape[0] - 1,):
        raise ValueError(f"eigh_tridiagonal: `alpha` [n] and `beta` [n-1], got "
                         f"{list(a.shape)} and {list(b.shape)}")
    if select not in ("a", "i", "v"):
        raise ValueError(f"argument `select` must be 'a', 'i' or 'v', got {select!r}")
    if _is_complex(b) and not _is_complex(a):
        a = _np.asarray(a).astype(b.dtype)
    m = _call(_tridiag_hermitian, (a, b))
    w, v = _np.linalg.eigh(m)
    if select == "i":
        lo, hi = (int(t) for t in select_range)
        w, v = w[lo:hi + 1], v[:, lo:hi + 1]
    elif select == "v":
        lo, hi = (float(t) for t in select_range)
        keep = np.nonzero((_concrete(w, "select_range") > lo) &
                          (_concrete(w) <= hi))[0]
        w, v = w[keep[0]:keep[-1] + 1] if keep.size else w[:0], \
            v[:, keep[0]:keep[-1] + 1] if keep.size else v[:, :0]
    return w if eigvals_only else (w, v)


def _tridiag_hermitian(a, b):
    return jnp.diag(a) + jnp.diag(b, 1) + jnp.diag(jnp.conj(b), -1)


def expm(input, name=None):
    """The matrix exponential (Pade approximation with scaling and squaring)."""
    x = _t(input)
    _square(x, "expm")
    return _call(_expm, (x,))


def _expm(x):
    import jax.scipy.linalg as sl
    return sl.expm(x)


def logm(input, name=None):
    """The principal matrix logarithm; complex input only, as TF's. Computed from
    the eigendecomposition (diagonalisable matrices), its derivative by the
    Daleckii-Krein formula."""
    x = _t(input)
    if not _is_complex(x):
        raise InvalidArgumentError(f"logm takes complex64 or complex128 input, got {x.dtype}")
    _square(x, "logm")
    return _call(_logm, (x,))


def sqrtm(input, name=None):
    """The principal matrix square root; real input gives a real result. Computed
    from the eigendecomposition (diagonalisable matrices), its derivative by the
    Daleckii-Krein formula."""
    x = _t(input)
    _square(x, "sqrtm")
    return _call(_sqrtm, (x,))


def _matfunc(f, fprime):
    # f(A) = V f(L) V^-1, and its derivative at A in the direction E is
    # V (F * (V^-1 E V)) V^-1 with F the divided differences of f at the
    # eigenvalues (f' on the diagonal and for close pairs).
    def eigen(a):
        w, v = jax.lax.linalg.eig(a, compute_left_eigenvectors=False,
                                  compute_right_eigenvectors=True)
        return w, v

    def value(a):
        ac = a.astype(jnp.result_type(a.dtype, jnp.complex64))
        w, v = eigen(ac)
        out = (v * f(w)[..., None, :]) @ jnp.linalg.inv(v)
        return out if jnp.iscomplexobj(a) else out.real.astype(a.dtype)

    fn = jax.custom_jvp(value)

    @fn.defjvp
    def _jvp(primals, tangents):
        (a,), (e,) = primals, tangents
        ac = a.astype(jnp.result_type(a.dtype, jnp.complex64))
        w, v = eigen(ac)
        vi = jnp.linalg.inv(v)
        fw = f(w)
        dw = w[..., :, None] - w[..., None, :]
        close = jnp.abs(dw) <= 1e-6 * jnp.maximum(1.0, jnp.abs(w[..., :, None]))
        mid = (w[..., :, None] + w[..., None, :]) / 2
        ff = jnp.where(close, fprime(mid),
                       (fw[..., :, None] - fw[..., None, :]) / jnp.where(close, 1.0, dw))
        de = (v @ (ff * (vi @ e.astype(ac.dtype) @ v)) @ vi)
        out = (v * fw[..., None, :]) @ vi
        if not jnp.iscomplexobj(a):
            out, de = out.real.astype(a.dtype), de.real.astype(a.dtype)
        return out, de

    return fn


_sqrtm = _matfunc(jnp.sqrt, lambda w: 0.5 / jnp.sqrt(w))
_sqrtm.__name__ = "sqrtm"
_logm = _matfunc(jnp.log, lambda w: 1.0 / w)
_logm.__name__ = "logm"


# -- tridiagonal --------------------------------------------------------------------
def _tridiag_parts(diagonals, fmt, m_hint=None):
    """``(super, main, sub)`` tensors of length ``M`` (super's last and sub's first
    entries ignored, as TF's compact format)."""
    if fmt == "compact":
        d = _t(diagonals)
        if d.ndim < 2 or d.shape[-2] != 3:
            raise ValueError(f"tridiagonal: compact `diagonals` must have shape "
                             f"[..., 3, M], got {list(d.shape)}")
        return d[..., 0, :], d[..., 1, :], d[..., 2, :]
    if fmt == "sequence":
        sup, main, sub = (_t(x) for x in diagonals)
        return sup, main, sub
    if fmt == "matrix":
        m = _t(diagonals)
        main = diag_part(m)
        zero = _np.zeros_like(main[..., :1])
        sup = _np.concatenate([_np.diagonal(m, 1, -2, -1), zero], -1)
        sub = _np.concatenate([zero, _np.diagonal(m, -1, -2, -1)], -1)
        return sup, main, sub
    raise ValueError(f"argument `diagonals_format` must be 'compact', 'sequence' or "
                     f"'matrix', got {fmt!r}")


def _tridiag_dense(sup, main, sub):
    n = main.shape[-1]
    eye_ = jnp.eye(n, dtype=main.dtype)
    up = jnp.eye(n, k=1, dtype=main.dtype)
    down = jnp.eye(n, k=-1, dtype=main.dtype)
    # Row i: sub[i] at column i-1, main[i] at i, sup[i] at i+1.
    return (main[..., :, None] * eye_ + sup[..., :, None] * up + sub[..., :, None] * down)


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """``T @ rhs`` for the tridiagonal ``T`` given by its diagonals."""
    sup, main, sub = _tridiag_parts(diagonals, diagonals_format)
    b = _t(rhs, main.dtype)
    return _call(_tridiag_matmul, (sup, main, sub, b))


def _tridiag_matmul(sup, main, sub, b):
    return _tridiag_dense(sup, main, sub) @ b


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True,
                      perturb_singular=False):
    """Solve ``T x = rhs`` for the tridiagonal ``T`` (``rhs``: ``[..., M, K]`` or
    ``[..., M]``; ``transpose_rhs``: ``rhs`` given as ``[..., K, M]``)."""
    sup, main, sub = _tridiag_parts(diagonals, diagonals_format)
    b = _t(rhs, main.dtype)
    vector = b.ndim == main.ndim
    if transpose_rhs:
        b = _np.swapaxes(b, -1, -2)
    if conjugate_rhs and _is_complex(b):
        b = _np.conj(b)
    if vector:
        b = _np.expand_dims(b, -1)
    if b.shape[-2] != main.shape[-1]:
        raise InvalidArgumentError(f"tridiagonal_solve: `rhs` must have {main.shape[-1]} "
                                   f"rows, got shape {list(b.shape)}")
    x = _call(_tridiag_solve, (sup, main, sub, b))
    return x[..., 0] if vector else x


def _tridiag_solve(sup, main, sub, b):
    return jnp.linalg.solve(_tridiag_dense(sup, main, sub), b)


# -- LinearOperator ------------------------------------------------------------------
def _dense_or(x, dtype=None):
    return x.to_dense() if isinstance(x, LinearOperator) else _t(x, dtype)


class LinearOperator:
    """``tf.linalg.LinearOperator``: a (batch of) ``M x N`` matrices known by what
    they do. Subclasses give ``_shape()`` and ``_to_dense()``, and where the
    structure allows ``_matmul``, ``_solve``, ``_diag_part``, ``_log_abs_det``,
    ``_det``; the rest comes from the dense matrix. Every method is built from
    the facade's ops, so the tape differentiates through it.
    """

    def __init__(self, dtype=None, graph_parents=None, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name=None, parameters=None):
        if is_positive_definite and is_non_singular is False:
            raise ValueError("A positive definite matrix is always non-singular.")
        if is_positive_definite:
            is_non_singular = True
        self._dtype = None if dtype is None else _as_dtype(dtype)
        self._is_non_singular, self._is_self_adjoint = is_non_singular, is_self_adjoint
        self._is_positive_definite, self._is_square = is_positive_definite, is_square
        self._name = name or type(self).__name__
        self._parameters = dict(parameters or {})

    # properties
    @property
    def dtype(self): return self._dtype
    @property
    def name(self): return self._name
    @property
    def parameters(self): return dict(self._parameters)
    @property
    def is_non_singular(self): return self._is_non_singular
    @property
    def is_self_adjoint(self): return self._is_self_adjoint
    @property
    def is_positive_definite(self): return self._is_positive_definite

    @property
    def is_square(self):
        m, n = self._shape()[-2:]
        return self._is_square if self._is_square is not None else m == n

    @property
    def shape(self):
        """The static shape, ``batch_shape + [range_dimension, domain_dimension]``."""
        return TensorShape(self._shape())

    @property
    def batch_shape(self): return TensorShape(self._shape()[:-2])
    @property
    def range_dimension(self): return self._shape()[-2]
    @property
    def domain_dimension(self): return self._shape()[-1]
    @property
    def tensor_rank(self): return len(self._shape())
    @property
    def H(self): return self.adjoint()

    def shape_tensor(self, name=None): return _t(np.array(self._shape(), np.int32))
    def batch_shape_tensor(self, name=None): return _t(np.array(self._shape()[:-2], np.int32))
    def range_dimension_tensor(self, name=None): return _t(np.int32(self._shape()[-2]))
    def domain_dimension_tensor(self, name=None): return _t(np.int32(self._shape()[-1]))
    def tensor_rank_tensor(self, name=None): return _t(np.int32(len(self._shape())))

    def __repr__(self):
        return (f"<tf.linalg.{type(self).__name__} '{self.name}' shape={self.shape} "
                f"dtype={self.dtype.name}>")

    # the operations
    def to_dense(self, name="to_dense"):
        """The matrix as a Tensor."""
        return self._to_dense()

    def _check_arg(self, x, adjoint, what="matmul"):
        x = _t(x, self.dtype)
        if x.dtype != self.dtype:
            raise TypeError(f"{what}: the argument's dtype {x.dtype} is not the operator's "
                            f"{self.dtype}")
        need = self._shape()[-2] if adjoint else self._shape()[-1]
        if x.ndim < 2 or x.shape[-2] != need:
            raise ValueError(f"{what}: the argument must have shape [..., {need}, K], got "
                             f"{list(x.shape)}")
        return x

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``op @ x`` (``adjoint``: ``op^H @ x``; ``adjoint_arg``: ``x^H``); a
        LinearOperator ``x`` gives their composition."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            return LinearOperatorComposition([left, right])
        x = _t(x, self.dtype)
        if adjoint_arg:
            x = _adj(x)
        return self._matmul(self._check_arg(x, adjoint), bool(adjoint))

    def __matmul__(self, other):
        return self.matmul(other)

    def matvec(self, x, adjoint=False, name="matvec"):
        """``op @ x`` for a (batch of) vectors ``x``."""
        x = _t(x, self.dtype)
        return self.matmul(_np.expand_dims(x, -1), adjoint=adjoint)[..., 0]

    def _matmul(self, x, adjoint):
        return matmul(self.to_dense(), x, adjoint_a=adjoint)

    def _need_square(self, what):
        if not self.is_square:
            raise NotImplementedError(f"{what} is only defined for a square operator")

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``x`` with ``op @ x == rhs`` (``adjoint``: ``op^H @ x == rhs``)."""
        self._need_square("solve")
        if self.is_non_singular is False:
            raise NotImplementedError("solve: the operator is known to be singular")
        if isinstance(rhs, LinearOperator):
            left = self.inverse()
            return LinearOperatorComposition([left.adjoint() if adjoint else left,
                                              rhs.adjoint() if adjoint_arg else rhs])
        rhs = _t(rhs, self.dtype)
        if adjoint_arg:
            rhs = _adj(rhs)
        return self._solve(self._check_arg(rhs, not adjoint, "solve"), bool(adjoint))

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """``solve`` for a (batch of) vectors."""
        rhs = _t(rhs, self.dtype)
        return self.solve(_np.expand_dims(rhs, -1), adjoint=adjoint)[..., 0]

    def _solve(self, rhs, adjoint):
        return solve(self.to_dense(), rhs, adjoint=adjoint)

    def determinant(self, name="det"):
        """The determinant (square operators)."""
        self._need_square("determinant")
        return self._det()

    def _det(self):
        return det(self.to_dense())

    def log_abs_determinant(self, name="log_abs_det"):
        """``log|det|`` (square operators)."""
        self._need_square("log_abs_determinant")
        return self._log_abs_det()

    def _log_abs_det(self):
        if self.is_positive_definite and self.is_self_adjoint:
            return logdet(self.to_dense())
        return slogdet(self.to_dense())[1]

    def inverse(self, name=None):
        """The inverse as a LinearOperator (square, non-singular operators)."""
        self._need_square("inverse")
        if self.is_non_singular is False:
            raise ValueError("inverse: the operator is known to be singular")
        return self._inverse()

    def _inverse(self):
        return LinearOperatorInversion(self)

    def adjoint(self, name=None):
        """The conjugate transpose as a LinearOperator (``self`` when self-adjoint)."""
        if self.is_self_adjoint:
            return self
        return self._adjoint()

    def _adjoint(self):
        return LinearOperatorAdjoint(self)

    def diag_part(self, name="diag_part"):
        """The main diagonal, ``[..., min(M, N)]``."""
        return self._diag_part()

    def _diag_part(self):
        return diag_part(self.to_dense())

    def trace(self, name="trace"):
        """The sum of the diagonal."""
        return _np.sum(self.diag_part(), axis=-1)

    def add_to_tensor(self, x, name="add_to_tensor"):
        """``op.to_dense() + x``."""
        return self.to_dense() + _t(x, self.dtype)

    def cholesky(self, name="cholesky"):
        """The lower Cholesky factor as a LinearOperator; TF requires the operator
        marked self-adjoint and positive definite."""
        if not (self.is_self_adjoint and self.is_positive_definite):
            raise ValueError("Cholesky decomposition only exists for self-adjoint positive "
                             "definite matrices (mark the operator so).")
        return self._cholesky()

    def _cholesky(self):
        return LinearOperatorLowerTriangular(cholesky(self.to_dense()), is_non_singular=True,
                                             is_square=True)

    def eigvals(self, name="eigvals"):
        """The eigenvalues of a self-adjoint operator."""
        if not self.is_self_adjoint:
            raise NotImplementedError("eigvals is only implemented for self-adjoint operators")
        return eigvalsh(self.to_dense())

    def cond(self, name="cond"):
        """The condition number, the ratio of the extreme singular values."""
        s = svd(self.to_dense(), compute_uv=False)
        return _np.max(s, axis=-1) / _np.min(s, axis=-1)

    def assert_non_singular(self, name="assert_non_singular"):
        d = _concrete(self.log_abs_determinant())
        if d is not None and not np.all(np.isfinite(d)):
            raise InvalidArgumentError("Singular operator: its determinant is 0")

    def assert_positive_definite(self, name="assert_positive_definite"):
        cholesky(self.to_dense())

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        d = _concrete(self.to_dense())
        if d is not None and not np.allclose(d, np.conj(np.swapaxes(d, -1, -2))):
            raise InvalidArgumentError("Operator is not self-adjoint")


def _batch(*shapes):
    return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))


class LinearOperatorFullMatrix(LinearOperator):
    """A LinearOperator holding a dense ``[..., M, N]`` matrix."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorFullMatrix"):
        self._matrix = _t(matrix)
        if self._matrix.ndim < 2:
            raise ValueError(f"argument `matrix` must have rank >= 2, got shape "
                             f"{list(self._matrix.shape)}")
        super().__init__(self._matrix.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name, {"matrix": matrix})

    def _shape(self): return tuple(self._matrix.shape)
    def _to_dense(self): return self._matrix


class LinearOperatorDiag(LinearOperator):
    """The diagonal matrix ``diag(diag)``; products, solves and determinants work on
    the diagonal alone."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name="LinearOperatorDiag"):
        self._diag = _t(diag)
        if self._diag.ndim < 1:
            raise ValueError("argument `diag` must have rank >= 1")
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        if not _is_complex(self._diag) and is_self_adjoint is None:
            is_self_adjoint = True
        super().__init__(self._diag.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, {"diag": diag})

    def _shape(self):
        n = self._diag.shape[-1]
        return tuple(self._diag.shape[:-1]) + (n, n)

    def _to_dense(self): return diag(self._diag)

    def _d(self, adjoint):
        return _np.conj(self._diag) if adjoint and _is_complex(self._diag) else self._diag

    def _matmul(self, x, adjoint): return _np.expand_dims(self._d(adjoint), -1) * x
    def _solve(self, rhs, adjoint): return rhs / _np.expand_dims(self._d(adjoint), -1)
    def _det(self): return _np.prod(self._diag, axis=-1)
    def _log_abs_det(self): return _np.sum(_np.log(_np.abs(self._diag)), axis=-1)
    def _diag_part(self): return self._diag
    def _inverse(self): return LinearOperatorDiag(1.0 / self._diag)
    def _adjoint(self): return LinearOperatorDiag(self._d(True))

    def _cholesky(self):
        return LinearOperatorDiag(_np.sqrt(self._diag), is_non_singular=True,
                                  is_self_adjoint=True, is_positive_definite=True)

    def add_to_tensor(self, x, name="add_to_tensor"):
        x = _t(x, self.dtype)
        return set_diag(x, diag_part(x) + self._diag)

    def eigvals(self, name="eigvals"):
        return self._diag


class LinearOperatorScaledIdentity(LinearOperator):
    """``multiplier * I`` (``multiplier``: a scalar or a batch of scalars)."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorScaledIdentity"):
        self._n = int(_concrete(num_rows, "num_rows")) if isinstance(num_rows, _TensorLike) \
            else int(num_rows)
        self._m = _t(multiplier)
        if not _is_complex(self._m) and is_self_adjoint is None:
            is_self_adjoint = True
        super().__init__(self._m.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name,
                         {"num_rows": num_rows, "multiplier": multiplier})

    @property
    def multiplier(self): return self._m

    def _shape(self): return tuple(self._m.shape) + (self._n, self._n)

    def _mm(self, adjoint):
        m = _np.conj(self._m) if adjoint and _is_complex(self._m) else self._m
        return _np.expand_dims(_np.expand_dims(m, -1), -1)

    def _to_dense(self): return self._mm(False) * _np.eye(self._n, dtype=self.dtype)
    def _matmul(self, x, adjoint): return self._mm(adjoint) * x
    def _solve(self, rhs, adjoint): return rhs / self._mm(adjoint)
    def _det(self): return self._m ** self._n
    def _log_abs_det(self): return self._n * _np.log(_np.abs(self._m))
    def _diag_part(self): return _np.expand_dims(self._m, -1) * _np.ones(self._n, self.dtype)
    def _inverse(self): return LinearOperatorScaledIdentity(self._n, 1.0 / self._m)
    def _adjoint(self): return LinearOperatorScaledIdentity(self._n, _np.conj(self._m))

    def _cholesky(self):
        return LinearOperatorScaledIdentity(self._n, _np.sqrt(self._m), is_non_singular=True,
                                            is_self_adjoint=True, is_positive_definite=True)

    def add_to_tensor(self, x, name="add_to_tensor"):
        x = _t(x, self.dtype)
        return set_diag(x, diag_part(x) + _np.expand_dims(self._m, -1))


class LinearOperatorIdentity(LinearOperator):
    """The identity matrix, ``num_rows`` square, optionally batched."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True,
                 is_self_adjoint=True, is_positive_definite=True, is_square=True,
                 assert_proper_shapes=False, name="LinearOperatorIdentity"):
        if not (is_non_singular and is_self_adjoint and is_positive_definite and is_square):
            raise ValueError("An identity operator is always non-singular, self-adjoint, "
                             "positive definite and square.")
        self._n = int(num_rows)
        if self._n < 0:
            raise ValueError(f"argument `num_rows` must be non-negative, got {num_rows}")
        self._bs = () if batch_shape is None else tuple(int(b) for b in batch_shape)
        super().__init__(_as_dtype(dtype or "float32"), None, True, True, True, True, name,
                         {"num_rows": num_rows, "batch_shape": batch_shape, "dtype": dtype})

    def _shape(self): return self._bs + (self._n, self._n)

    def _to_dense(self):
        return _np.broadcast_to(_np.eye(self._n, dtype=self.dtype), self._shape())

    def _b(self, x):
        return _np.broadcast_to(x, _batch(self._bs, x.shape[:-2]) + tuple(x.shape[-2:]))

    def _matmul(self, x, adjoint): return self._b(x)
    def _solve(self, rhs, adjoint): return self._b(rhs)
    def _det(self): return _np.ones(self._bs, self.dtype)
    def _log_abs_det(self): return _np.zeros(self._bs, self.dtype)
    def _diag_part(self): return _np.ones(self._bs + (self._n,), self.dtype)
    def _inverse(self): return self
    def _cholesky(self): return self

    def add_to_tensor(self, x, name="add_to_tensor"):
        x = _t(x, self.dtype)
        return set_diag(x, diag_part(x) + 1)


class LinearOperatorZeros(LinearOperator):
    """The zero matrix, ``num_rows x num_columns``, optionally batched."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None,
                 is_non_singular=False, is_self_adjoint=True, is_positive_definite=False,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorZeros"):
        if is_non_singular or is_positive_definite:
            raise ValueError("A zero operator is always singular and never positive "
                             "definite.")
        self._rows = int(num_rows)
        self._cols = self._rows if num_columns is None else int(num_columns)
        self._bs = () if batch_shape is None else tuple(int(b) for b in batch_shape)
        super().__init__(_as_dtype(dtype or "float32"), None, False, True, False,
                         self._rows == self._cols, name,
                         {"num_rows": num_rows, "num_columns": num_columns,
                          "batch_shape": batch_shape, "dtype": dtype})

    def _shape(self): return self._bs + (self._rows, self._cols)
    def _to_dense(self): return _np.zeros(self._shape(), self.dtype)

    def _matmul(self, x, adjoint):
        rows = self._cols if adjoint else self._rows
        return _np.zeros(_batch(self._bs, x.shape[:-2]) + (rows, x.shape[-1]), self.dtype)

    def _solve(self, rhs, adjoint):
        raise ValueError("Zero operators are always non-invertible.")

    def _det(self): return _np.zeros(self._bs, self.dtype)
    def _log_abs_det(self): return _np.full(self._bs, -np.inf, self.dtype)

    def _inverse(self):
        raise ValueError("Zero operators are always non-invertible.")

    def _diag_part(self):
        return _np.zeros(self._bs + (builtins.min(self._rows, self._cols),), self.dtype)

    def add_to_tensor(self, x, name="add_to_tensor"):
        return _t(x, self.dtype) + _np.zeros((), self.dtype)


class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of ``tril`` (its strictly upper part is ignored); solves by
    substitution, determinants from the diagonal."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowerTriangular"):
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        t = _t(tril)
        _square(t, "LinearOperatorLowerTriangular")
        self._tril = band_part(t, -1, 0)
        super().__init__(t.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, {"tril": tril})

    def _shape(self): return tuple(self._tril.shape)
    def _to_dense(self): return self._tril

    def _solve(self, rhs, adjoint):
        return triangular_solve(self._tril, rhs, lower=True, adjoint=adjoint)

    def _diag_part(self): return diag_part(self._tril)
    def _det(self): return _np.prod(self._diag_part(), axis=-1)
    def _log_abs_det(self): return _np.sum(_np.log(_np.abs(self._diag_part())), axis=-1)


def _operator_list(operators, hints, inherited):
    """The operators of a composite (a non-empty list of one dtype), and the hints
    (``is_non_singular``, ...) it inherits where every operator has them."""
    ops = list(operators)
    if not ops:
        raise ValueError("Expected a non-empty list of operators.")
    if len({o.dtype for o in ops}) > 1:
        raise TypeError(f"Expected all operators to have one dtype, got "
                        f"{[o.dtype.name for o in ops]}")
    hints = dict(hints)
    for h in inherited:
        if hints[h] is None and all(getattr(o, h) for o in ops):
            hints[h] = True
    return ops, hints


class LinearOperatorComposition(LinearOperator):
    """The product ``operators[0] @ operators[1] @ ...``, applied right to left."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        ops, h = _operator_list(operators, dict(is_non_singular=is_non_singular),
                                ("is_non_singular",))
        for a, b in zip(ops, ops[1:]):
            if a.domain_dimension != b.range_dimension:
                raise ValueError(f"The operators' shapes do not compose: {a.shape} @ {b.shape}")
        self._ops = ops
        super().__init__(ops[0].dtype, None, h["is_non_singular"], is_self_adjoint,
                         is_positive_definite, is_square,
                         name or "_o_".join(o.name for o in ops), {"operators": ops})

    @property
    def operators(self): return list(self._ops)

    def _shape(self):
        b = _batch(*[o.batch_shape for o in self._ops])
        return b + (self._ops[0].range_dimension, self._ops[-1].domain_dimension)

    def _to_dense(self):
        out = self._ops[-1].to_dense()
        for o in reversed(self._ops[:-1]):
            out = o.matmul(out)
        return _np.broadcast_to(out, self._shape())

    def _matmul(self, x, adjoint):
        for o in (self._ops if adjoint else reversed(self._ops)):
            x = o.matmul(x, adjoint=adjoint)
        return x

    def _solve(self, rhs, adjoint):
        for o in (reversed(self._ops) if adjoint else self._ops):
            rhs = o.solve(rhs, adjoint=adjoint)
        return rhs

    def _square_parts(self):
        return all(o.is_square for o in self._ops)

    def _det(self):
        if not self._square_parts():
            return super()._det()
        out = self._ops[0].determinant()
        for o in self._ops[1:]:
            out = out * o.determinant()
        return out

    def _log_abs_det(self):
        if not self._square_parts():
            return super()._log_abs_det()
        return builtins.sum(o.log_abs_determinant() for o in self._ops)


class LinearOperatorInversion(LinearOperator):
    """The inverse of a square, non-singular ``operator``: its ``matmul`` is the
    operator's ``solve`` and its ``solve`` the operator's ``matmul``."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        if not operator.is_square:
            raise ValueError("Cannot invert a non-square operator.")
        if operator.is_non_singular is False:
            raise ValueError("Cannot invert a singular operator.")
        self._op = operator
        super().__init__(operator.dtype, None,
                         operator.is_non_singular if is_non_singular is None else is_non_singular,
                         operator.is_self_adjoint if is_self_adjoint is None else is_self_adjoint,
                         operator.is_positive_definite if is_positive_definite is None
                         else is_positive_definite, True, name or operator.name + "_inv",
                         {"operator": operator})

    @property
    def operator(self): return self._op

    def _shape(self): return self._op._shape()

    def _to_dense(self):
        n = self._op.domain_dimension
        return self._op.solve(_np.broadcast_to(_np.eye(n, dtype=self.dtype), self._shape()))

    def _matmul(self, x, adjoint): return self._op.solve(x, adjoint=adjoint)
    def _solve(self, rhs, adjoint): return self._op.matmul(rhs, adjoint=adjoint)
    def _det(self): return 1.0 / self._op.determinant()
    def _log_abs_det(self): return -self._op.log_abs_determinant()
    def _inverse(self): return self._op


class LinearOperatorAdjoint(LinearOperator):
    """The conjugate transpose of ``operator``, applied through its ``adjoint=True``."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._op = operator
        super().__init__(operator.dtype, None,
                         operator.is_non_singular if is_non_singular is None else is_non_singular,
                         operator.is_self_adjoint if is_self_adjoint is None else is_self_adjoint,
                         operator.is_positive_definite if is_positive_definite is None
                         else is_positive_definite, operator.is_square,
                         name or operator.name + "_adjoint", {"operator": operator})

    @property
    def operator(self): return self._op

    def _shape(self):
        s = self._op._shape()
        return s[:-2] + (s[-1], s[-2])

    def _to_dense(self): return _adj(self._op.to_dense())
    def _matmul(self, x, adjoint): return self._op.matmul(x, adjoint=not adjoint)
    def _solve(self, rhs, adjoint): return self._op.solve(rhs, adjoint=not adjoint)

    def _det(self):
        d = self._op.determinant()
        return _np.conj(d) if _is_complex(d) else d

    def _log_abs_det(self): return self._op.log_abs_determinant()

    def _diag_part(self):
        d = self._op.diag_part()
        return _np.conj(d) if _is_complex(d) else d

    def _adjoint(self): return self._op


class LinearOperatorBlockDiag(LinearOperator):
    """The block-diagonal matrix of square ``operators``: each block applied to its
    own rows of the argument."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        names = ("is_non_singular", "is_self_adjoint", "is_positive_definite")
        ops, h = _operator_list(operators, dict(zip(names, (
            is_non_singular, is_self_adjoint, is_positive_definite))), names)
        if not all(o.is_square for o in ops):
            raise ValueError("Block diagonal operators must be built from square operators.")
        self._ops = ops
        super().__init__(ops[0].dtype, None, *(h[n] for n in names), True, name or "_ds_".join(o.name for o in ops),
                         {"operators": ops})

    @property
    def operators(self): return list(self._ops)

    def _shape(self):
        n = builtins.sum(o.domain_dimension for o in self._ops)
        return _batch(*[o.batch_shape for o in self._ops]) + (n, n)

    def _to_dense(self):
        b = self._shape()[:-2]
        n = self._shape()[-1]
        rows, start = [], 0
        for o in self._ops:
            k = o.domain_dimension
            d = _np.broadcast_to(o.to_dense(), b + (k, k))
            pad = [(0, 0)] * len(b) + [(0, 0), (start, n - start - k)]
            rows.append(_np.pad(d, pad))
            start += k
        return _np.concatenate(rows, axis=-2)

    def _split(self, x):
        sizes = np.cumsum([o.domain_dimension for o in self._ops])[:-1].tolist()
        return _np.split(x, sizes, axis=-2)

    def _matmul(self, x, adjoint):
        parts = [o.matmul(p, adjoint=adjoint) for o, p in zip(self._ops, self._split(x))]
        return _concat_batched(parts)

    def _solve(self, rhs, adjoint):
        parts = [o.solve(p, adjoint=adjoint) for o, p in zip(self._ops, self._split(rhs))]
        return _concat_batched(parts)

    def _det(self):
        out = self._ops[0].determinant()
        for o in self._ops[1:]:
            out = out * o.determinant()
        return out

    def _log_abs_det(self): return builtins.sum(o.log_abs_determinant() for o in self._ops)

    def _diag_part(self):
        b = self._shape()[:-2]
        return _np.concatenate([_np.broadcast_to(o.diag_part(), b + (o.domain_dimension,))
                                for o in self._ops], axis=-1)

    def _inverse(self): return LinearOperatorBlockDiag([o.inverse() for o in self._ops])
    def _adjoint(self): return LinearOperatorBlockDiag([o.adjoint() for o in self._ops])


def _concat_batched(parts):
    b = _batch(*[p.shape[:-2] for p in parts])
    return _np.concatenate([_np.broadcast_to(p, b + tuple(p.shape[-2:])) for p in parts],
                           axis=-2)


class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product ``operators[0] (x) operators[1] (x) ...``; determinants
    from the factors' (``det(A (x) B) = det(A)^m det(B)^n``)."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        names = ("is_non_singular", "is_self_adjoint")
        ops, h = _operator_list(operators, dict(zip(names, (is_non_singular, is_self_adjoint))),
                                names)
        self._ops = ops
        super().__init__(ops[0].dtype, None, h["is_non_singular"], h["is_self_adjoint"],
                         is_positive_definite, is_square,
                         name or "_x_".join(o.name for o in ops), {"operators": ops})

    @property
    def operators(self): return list(self._ops)

    def _shape(self):
        m = int(np.prod([o.range_dimension for o in self._ops]))
        n = int(np.prod([o.domain_dimension for o in self._ops]))
        return _batch(*[o.batch_shape for o in self._ops]) + (m, n)

    def _to_dense(self):
        out = self._ops[0].to_dense()
        for o in self._ops[1:]:
            b = o.to_dense()
            k = _np.einsum("...ij,...kl->...ikjl", out, b)
            s = k.shape
            out = _np.reshape(k, tuple(s[:-4]) + (s[-4] * s[-3], s[-2] * s[-1]))
        return out

    def _det(self):
        if not all(o.is_square for o in self._ops):
            return super()._det()
        n = self._shape()[-1]
        out = None
        for o in self._ops:
            d = o.determinant() ** (n // o.domain_dimension)
            out = d if out is None else out * d
        return out

    def _log_abs_det(self):
        if not all(o.is_square for o in self._ops):
            return super()._log_abs_det()
        n = self._shape()[-1]
        return builtins.sum((n // o.domain_dimension) * o.log_abs_determinant()
                            for o in self._ops)

    def _inverse(self): return LinearOperatorKronecker([o.inverse() for o in self._ops])
    def _adjoint(self): return LinearOperatorKronecker([o.adjoint() for o in self._ops])


class LinearOperatorLowRankUpdate(LinearOperator):
    """``base_operator + u @ diag(diag_update) @ v^H`` (``v`` defaults to ``u``,
    ``diag_update`` to ones); products keep the low rank, solves and determinants
    use the Woodbury identity and the matrix determinant lemma."""

    def __init__(self, base_operator, u, diag_update=None, v=None,
                 is_diag_update_positive=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorLowRankUpdate"):
        self._base = base_operator
        self._u = _t(u, base_operator.dtype)
        self._v = self._u if v is None else _t(v, base_operator.dtype)
        self._d = None if diag_update is None else _t(diag_update, base_operator.dtype)
        for x in (self._u, self._v) + (() if self._d is None else (self._d,)):
            if x.dtype != base_operator.dtype:
                raise TypeError(f"Expected the arguments to have dtype {base_operator.dtype}, "
                                f"got {x.dtype}")
        if v is None and is_self_adjoint is None and base_operator.is_self_adjoint:
            is_self_adjoint = True
        if (v is None and is_positive_definite is None and base_operator.is_positive_definite
                and is_diag_update_positive):
            is_positive_definite = True
        super().__init__(base_operator.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name,
                         {"base_operator": base_operator, "u": u, "diag_update": diag_update,
                          "v": v})

    @property
    def base_operator(self): return self._base
    @property
    def u(self): return self._u
    @property
    def v(self): return self._v
    @property
    def diag_update(self): return self._d

    def _shape(self):
        b = _batch(self._base.batch_shape, self._u.shape[:-2], self._v.shape[:-2])
        return b + tuple(self._base._shape()[-2:])

    def _dcol(self, adjoint=False):
        if self._d is None:
            return 1.0
        d = _np.conj(self._d) if adjoint and _is_complex(self._d) else self._d
        return _np.expand_dims(d, -1)

    def _to_dense(self):
        upd = matmul(self._u * _np.swapaxes(self._dcol(), -1, -2) if self._d is not None
                     else self._u, self._v, adjoint_b=True)
        return self._base.to_dense() + upd

    def _matmul(self, x, adjoint):
        # A^H x = L^H x + v D^H u^H x.
        left, right = (self._v, self._u) if adjoint else (self._u, self._v)
        low = matmul(left, self._dcol(adjoint) * matmul(right, x, adjoint_a=True))
        return self._base.matmul(x, adjoint=adjoint) + low

    def _capacitance(self, adjoint):
        # C = D^-1 + V^H L^-1 U (for A^H: u and v swapped, D conjugated).
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        k = u.shape[-1]
        dinv = (diag(1.0 / self._dcol(adjoint)[..., 0]) if self._d is not None
                else _np.eye(k, dtype=self.dtype))
        return u, v, dinv + matmul(v, self._base.solve(u, adjoint=adjoint), adjoint_a=True)

    def _solve(self, rhs, adjoint):
        u, v, cap = self._capacitance(adjoint)
        linv_rhs = self._base.solve(rhs, adjoint=adjoint)
        linv_u = self._base.solve(u, adjoint=adjoint)
        return linv_rhs - matmul(linv_u, solve(cap, matmul(v, linv_rhs, adjoint_a=True)))

    def _log_abs_det(self):
        _, _, cap = self._capacitance(False)
        out = self._base.log_abs_determinant() + slogdet(cap)[1]
        if self._d is not None:
            out = out + _np.sum(_np.log(_np.abs(self._d)), axis=-1)
        return out

    def _det(self):
        _, _, cap = self._capacitance(False)
        out = self._base.determinant() * det(cap)
        if self._d is not None:
            out = out * _np.prod(self._d, axis=-1)
        return out


class LinearOperatorCirculant(LinearOperator):
    """The circulant matrix with the given ``spectrum`` (its DFT eigenvalues):
    ``matmul`` is ``ifft(spectrum * fft(x))``; results cast to
    ``input_output_dtype`` (complex64 by default, as TF; a real dtype keeps the
    real part)."""

    def __init__(self, spectrum, input_output_dtype="complex64", is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorCirculant"):
        s = _t(spectrum)
        self._spectrum = s if _is_complex(s) else _np.asarray(s).astype(
            np.result_type(s.dtype, np.complex64))
        super().__init__(_as_dtype(input_output_dtype), None, is_non_singular,
                         is_self_adjoint, is_positive_definite, True, name,
                         {"spectrum": spectrum, "input_output_dtype": input_output_dtype})

    @property
    def spectrum(self): return self._spectrum

    def _shape(self):
        n = self._spectrum.shape[-1]
        return tuple(self._spectrum.shape[:-1]) + (n, n)

    def _out(self, y):
        if np.issubdtype(self.dtype, np.complexfloating):
            return y.astype(self.dtype)
        return _np.real(y).astype(self.dtype)

    def _matmul(self, x, adjoint):
        s = _np.conj(self._spectrum) if adjoint else self._spectrum
        xc = _np.swapaxes(x, -1, -2).astype(self._spectrum.dtype)
        y = _np.fft.ifft(_np.expand_dims(s, -2) * _np.fft.fft(xc))
        return self._out(_np.swapaxes(y, -1, -2))

    def _solve(self, rhs, adjoint):
        s = _np.conj(self._spectrum) if adjoint else self._spectrum
        xc = _np.swapaxes(rhs, -1, -2).astype(self._spectrum.dtype)
        y = _np.fft.ifft(_np.fft.fft(xc) / _np.expand_dims(s, -2))
        return self._out(_np.swapaxes(y, -1, -2))

    def convolution_kernel(self, name="convolution_kernel"):
        """The first column of the matrix, ``ifft(spectrum)``."""
        return self._out(_np.fft.ifft(self._spectrum))

    def _to_dense(self):
        c = _np.fft.ifft(self._spectrum)
        n = c.shape[-1]
        idx = (np.arange(n)[:, None] - np.arange(n)[None, :]) % n
        return self._out(_np.take(c, _t(idx), axis=-1))

    def _det(self): return self._out(_np.prod(self._spectrum, axis=-1))

    def _log_abs_det(self):
        return _np.sum(_np.log(_np.abs(self._spectrum)), axis=-1).astype(
            _np.real(_np.zeros((), self.dtype)).dtype)

    def _diag_part(self):
        c0 = _np.mean(self._spectrum, axis=-1, keepdims=True)
        return self._out(c0 * _np.ones(self._spectrum.shape[-1], self._spectrum.dtype))

    def eigvals(self, name="eigvals"):
        return self._spectrum.astype(np.result_type(self.dtype, np.complex64)) \
            if np.issubdtype(self.dtype, np.complexfloating) else self._spectrum


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column ``col`` and first row ``row``
    (``row[0]`` ignored: the corner is ``col[0]``, as TF)."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorToeplitz"):
        self._col, self._row = _hinted(col, row)
        if self._col.shape[-1] != self._row.shape[-1]:
            raise ValueError("`col` and `row` must have one length")
        super().__init__(self._col.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, {"col": col, "row": row})

    @property
    def col(self): return self._col
    @property
    def row(self): return self._row

    def _shape(self):
        n = self._col.shape[-1]
        return _batch(self._col.shape[:-1], self._row.shape[:-1]) + (n, n)

    def _to_dense(self):
        return _call(_toeplitz, (self._col, self._row))


def _toeplitz(col, row):
    n = col.shape[-1]
    b = jnp.broadcast_shapes(col.shape[:-1], row.shape[:-1])
    col = jnp.broadcast_to(col, b + (n,))
    row = jnp.broadcast_to(row, b + (n,))
    vals = jnp.concatenate([jnp.flip(row[..., 1:], -1), col], -1)   # row[n-1] .. row[1], col
    idx = (n - 1) + jnp.arange(n)[:, None] - jnp.arange(n)[None, :]
    return jnp.take(vals, idx, axis=-1)


class LinearOperatorTridiag(LinearOperator):
    """The tridiagonal matrix given by its diagonals (``compact`` ``[..., 3, N]``,
    ``sequence`` or ``matrix`` format, as ``tridiagonal_matmul``)."""

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorTridiag"):
        self._parts = _tridiag_parts(diagonals, diagonals_format)
        self._diagonals, self._format = diagonals, diagonals_format
        super().__init__(self._parts[1].dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name,
                         {"diagonals": diagonals, "diagonals_format": diagonals_format})

    @property
    def diagonals(self): return self._diagonals
    @property
    def diagonals_format(self): return self._format

    def _shape(self):
        n = self._parts[1].shape[-1]
        return _batch(*[p.shape[:-1] for p in self._parts]) + (n, n)

    def _to_dense(self): return _call(_tridiag_dense, tuple(self._parts))
    def _diag_part(self): return self._parts[1]

    def _solve(self, rhs, adjoint):
        if adjoint:
            return solve(self.to_dense(), rhs, adjoint=True)
        return tridiagonal_solve(list(self._parts), rhs, diagonals_format="sequence")


class LinearOperatorHouseholder(LinearOperator):
    """The reflection ``I - 2 v v^H / (v^H v)`` about the hyperplane orthogonal to
    ``reflection_axis``: self-adjoint, its own inverse, determinant -1."""

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorHouseholder"):
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_non_singular is False:
            raise ValueError("A Householder operator is always non-singular.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is always non-positive definite.")
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        self._v = _t(reflection_axis)
        super().__init__(self._v.dtype, None, True, True, is_positive_definite, True, name,
                         {"reflection_axis": reflection_axis})

    @property
    def reflection_axis(self): return self._v

    def _shape(self):
        n = self._v.shape[-1]
        return tuple(self._v.shape[:-1]) + (n, n)

    def _unit(self):
        from .math import l2_normalize as f
        return _np.expand_dims(f(self._v, axis=-1), -1)

    def _matmul(self, x, adjoint):
        u = self._unit()
        return x - 2 * matmul(u, matmul(u, x, adjoint_a=True))

    def _solve(self, rhs, adjoint): return self._matmul(rhs, adjoint)

    def _to_dense(self):
        n = self._v.shape[-1]
        return self._matmul(_np.broadcast_to(_np.eye(n, dtype=self.dtype), self._shape()),
                            False)

    def _det(self): return -_np.ones(self._shape()[:-2], self.dtype)
    def _log_abs_det(self): return _np.zeros(self._shape()[:-2], self.dtype)
    def _inverse(self): return self

    def _diag_part(self):
        u = self._unit()[..., 0]
        return 1 - 2 * (u * _np.conj(u) if _is_complex(u) else u * u)


class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix ``P[i, perm[i]] = 1``: ``matmul`` gathers rows,
    ``solve`` scatters them back; determinant the permutation's sign."""

    def __init__(self, perm, dtype="float32", is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        if is_non_singular is False:
            raise ValueError("A Permutation operator is always non-singular.")
        if is_square is False:
            raise ValueError("A Permutation operator is always square.")
        self._perm = _t(perm)
        if not np.issubdtype(self._perm.dtype, np.integer):
            raise TypeError(f"argument `perm` must be integers, got {self._perm.dtype}")
        super().__init__(_as_dtype(dtype), None, True, is_self_adjoint,
                         is_positive_definite, True, name, {"perm": perm, "dtype": dtype})

    @property
    def perm(self): return self._perm

    def _shape(self):
        n = self._perm.shape[-1]
        return tuple(self._perm.shape[:-1]) + (n, n)

    def _gather(self, x, idx):
        b = _batch(x.shape[:-2], idx.shape[:-1])
        x = _np.broadcast_to(x, b + tuple(x.shape[-2:]))
        idx = _np.broadcast_to(idx, b + tuple(idx.shape[-1:]))
        return _np.take_along_axis(x, _np.expand_dims(idx, -1), axis=-2)

    def _inv_perm(self): return _np.argsort(self._perm, axis=-1)

    def _matmul(self, x, adjoint):
        return self._gather(x, self._inv_perm() if adjoint else self._perm)

    def _solve(self, rhs, adjoint):
        return self._gather(rhs, self._perm if adjoint else self._inv_perm())

    def _to_dense(self):
        return _one_hot(self._perm, self._perm.shape[-1], dtype=self.dtype)

    def _det(self):
        p = _concrete(self._perm, "perm")
        return _t(np.asarray(_perm_sign(p), self.dtype))

    def _log_abs_det(self): return _np.zeros(self._shape()[:-2], self.dtype)


def _perm_sign(p):
    p = np.asarray(p)
    flat = p.reshape(-1, p.shape[-1])
    out = []
    for row in flat:
        seen, sign = np.zeros(len(row), bool), 1
        for i in range(len(row)):
            if not seen[i]:
                j, length = i, 0
                while not seen[j]:
                    seen[j], j, length = True, row[j], length + 1
                sign *= -1 if length % 2 == 0 else 1
        out.append(sign)
    return np.array(out).reshape(p.shape[:-1])
