"""``tf.linalg``, ``tf.dtypes``, ``tf.errors`` and ``tf.experimental.numpy``: the
same programs run through TensorFlow 2.21 and ``eagertape.tf``; values, dtypes,
shapes, gradients and error classes compared."""
import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle

tf = tf_oracle.require()    # TensorFlow, imported where a test reads it

rng = np.random.default_rng(0)
A = rng.normal(size=(3, 3)).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
SPD = (A @ A.T + np.eye(3)).astype(np.float32)
B = rng.normal(size=(3, 2)).astype(np.float32)
RECT = rng.normal(size=(4, 3)).astype(np.float32)
BATCH = rng.normal(size=(2, 3, 3)).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
V3 = rng.normal(size=(2, 3)).astype(np.float32)
C = (rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3)) + 3 * np.eye(3)).astype(np.complex64)


def _flat(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def run(lib, f, xs, grad=True):
    """``f``'s outputs and the gradient of a fixed weighted sum of their real parts
    (the weights: normal samples, fixed per output and shape)."""
    xs = [lib.constant(x) for x in xs]
    with lib.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        outs = _flat(f(lib, *xs))
        loss = 0.0
        for k, o in enumerate(outs):
            if np.issubdtype(np.dtype(getattr(o.dtype, "as_numpy_dtype", o.dtype)), np.inexact):
                w = np.random.default_rng(k).normal(size=tuple(o.shape)).astype(np.float32)
                r = lib.math.real(o) if o.dtype in (lib.complex64, lib.complex128) else o
                loss = loss + lib.reduce_sum(r * lib.cast(w, r.dtype))
    grads = tape.gradient(loss, xs) if grad and not isinstance(loss, float) else None
    return outs, grads


def compare(f, *xs, rtol=2e-4, atol=2e-4, grad=True):
    """``f``'s outputs (dtypes, shapes, values within rtol/atol) and, with ``grad``,
    the gradients (None-ness, dtypes, shapes, values within 10 rtol/atol) as TF's
    (TF's side from tests/tf_oracle.py). Returns eagertape's outputs."""
    want = tf_oracle.tf_outcome(run, f, list(xs), grad)
    assert not want.raised, f"TF raised {want.error!r}: the table's program is broken"
    got = tf_oracle.run(etf, run, f, list(xs), grad)
    if got.raised:
        raise got.exc
    (o_tf, g_tf), (o_et, g_et) = want.value[1], got.value[1]
    tf_oracle.assert_same(o_et, o_tf, rtol=rtol, atol=atol, where="outputs")
    if grad:
        tf_oracle.assert_same(g_et, g_tf, rtol=10 * rtol, atol=10 * atol, where="gradients")
    return [np.asarray(o.numpy()) for o in got.raw[0]]


# -- functions ----------------------------------------------------------------------

FUNCTIONS = {
    "adjoint": (lambda tf, c: tf.linalg.adjoint(c), [C]),
    "matrix_transpose": (lambda tf, x: tf.linalg.matrix_transpose(x), [BATCH]),
    "matvec": (lambda tf, a, v: tf.linalg.matvec(a, v), [A, V3]),
    "matvec_adjoint": (lambda tf, a, v: tf.linalg.matvec(a, v, adjoint_a=True), [A, V3]),
    "tensordot": (lambda tf, a, b: tf.linalg.tensordot(a, b, 1), [A, B]),
    "cross": (lambda tf, a, b: tf.linalg.cross(a, b), [V3, V3[::-1].copy()]),
    "global_norm": (lambda tf, a, b: tf.linalg.global_norm([a, None, b]), [A, B]),
    "l2_normalize": (lambda tf, a: tf.linalg.l2_normalize(a, axis=1), [A]),
    "normalize": (lambda tf, a: tf.linalg.normalize(a, axis=0), [A]),
    "logdet": (lambda tf, a: tf.linalg.logdet(a), [SPD]),
    "slogdet": (lambda tf, a: tf.linalg.slogdet(-a), [BATCH]),
    "set_diag": (lambda tf, a, d: tf.linalg.set_diag(a, d), [A, V3[0]]),
    "set_diag_k": (lambda tf, a, d: tf.linalg.set_diag(a, d, k=1), [A, V3[0, :2]]),
    "set_diag_k_neg": (lambda tf, a, d: tf.linalg.set_diag(a, d, k=-1), [RECT, V3[0]]),
    "tensor_diag": (lambda tf, v: tf.linalg.tensor_diag(v), [V3]),
    "tensor_diag_part": (lambda tf, a: tf.linalg.tensor_diag_part(
        tf.reshape(tf.tile(a, [2, 2]), [2, 3, 2, 3])), [A]),
    "triangular_solve": (lambda tf, a, b: tf.linalg.triangular_solve(a, b), [A, B]),
    "triangular_solve_upper_adj": (lambda tf, a, b: tf.linalg.triangular_solve(
        a, b, lower=False, adjoint=True), [A, B]),
    "triangular_solve_broadcast": (lambda tf, a, b: tf.linalg.triangular_solve(a, b),
                                   [BATCH, B]),
    "banded_lower": (lambda tf, bands, b: tf.linalg.banded_triangular_solve(bands, b),
                     [np.float32([[2, 3, 4], [1, 2, 3]]), B]),
    "banded_upper_adj": (lambda tf, bands, b: tf.linalg.banded_triangular_solve(
        bands, b, lower=False, adjoint=True), [np.float32([[1, 2, 5], [3, 3, 4]]), B]),
    "cholesky_solve": (lambda tf, a, b: tf.linalg.cholesky_solve(tf.linalg.cholesky(a), b),
                       [SPD, B]),
    "lstsq": (lambda tf, a, b: tf.linalg.lstsq(a, b), [RECT, RECT[:, :2].copy() + 1]),
    "lstsq_reg": (lambda tf, a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.5),
                  [RECT, RECT[:, :2].copy() + 1]),
    "lstsq_wide": (lambda tf, a, b: tf.linalg.lstsq(a, b), [RECT.T.copy(), B]),
    "lstsq_slow": (lambda tf, a, b: tf.linalg.lstsq(a, b, fast=False),
                   [RECT, RECT[:, :2].copy() + 1]),
    "lu": (lambda tf, a: tf.linalg.lu(a), [A]),
    "lu_solve": (lambda tf, a, b: tf.linalg.lu_solve(*tf.linalg.lu(a), b), [A, B]),
    "lu_matrix_inverse": (lambda tf, a: tf.linalg.lu_matrix_inverse(*tf.linalg.lu(a)),
                          [BATCH]),
    "lu_reconstruct": (lambda tf, a: tf.linalg.lu_reconstruct(*tf.linalg.lu(a)), [BATCH]),
    "matrix_rank": (lambda tf, a: tf.linalg.matrix_rank(a),
                    [np.float32([[1, 2, 3], [2, 4, 6], [0, 1, 1]])]),
    "matrix_rank_tol": (lambda tf, a: tf.linalg.matrix_rank(a, tol=3.0), [A]),
    "pinv": (lambda tf, a: tf.linalg.pinv(a), [RECT]),
    "qr_reconstruct": (lambda tf, a: tf.matmul(*tf.linalg.qr(a)), [RECT]),
    "qr_r_abs": (lambda tf, a: tf.abs(tf.linalg.qr(a)[1]), [RECT]),
    "qr_full_shapes": (lambda tf, a: tf.abs(tf.linalg.qr(a, full_matrices=True)[1]), [RECT]),
    "eigvals": (lambda tf, a: tf.math.real(tf.reduce_sum(tf.linalg.eigvals(a))), [A]),
    "eig_values_sorted": (lambda tf, a: tf.sort(tf.math.real(tf.linalg.eig(a)[0])), [SPD]),
    "eig_reconstruct": (lambda tf, a: (lambda e, v: tf.math.real(
        tf.matmul(v * e[None, :], tf.linalg.inv(v))))(*tf.linalg.eig(a)), [SPD]),
    "eigvalsh": (lambda tf, a: tf.linalg.eigvalsh(a), [SPD]),
    "eigh_tridiagonal": (lambda tf, a, b: tf.linalg.eigh_tridiagonal(a, b),
                         [np.float32([2, 3, 4]), np.float32([1, 0.5])]),
    "eigh_tridiagonal_i": (lambda tf, a, b: tf.linalg.eigh_tridiagonal(
        a, b, select="i", select_range=[1, 2]), [np.float32([2, 3, 4]), np.float32([1, 0.5])]),
    "eigh_tridiagonal_v": (lambda tf, a, b: tf.linalg.eigh_tridiagonal(
        a, b, select="v", select_range=[2.5, 10.0]),
        [np.float32([2, 3, 4]), np.float32([1, 0.5])]),
    "eigh_tridiagonal_vectors": (lambda tf, a, b: (lambda w, v: (w, tf.abs(v)))(
        *tf.linalg.eigh_tridiagonal(a, b, eigvals_only=False)),
        [np.float64([2, 3, 4]), np.float64([1, 0.5])]),
    "expm": (lambda tf, a: tf.linalg.expm(a * 0.3), [A]),
    "sqrtm": (lambda tf, a: tf.linalg.sqrtm(a), [SPD]),
    "sqrtm_nonsymmetric": (lambda tf, a: tf.linalg.sqrtm(a),
                           [np.float64([[4, 1, 0], [0.5, 3, 0.2], [0, 0.3, 2]])]),
    "logm": (lambda tf, a: tf.math.real(tf.linalg.logm(tf.cast(a, tf.complex64))), [SPD]),
    "tridiagonal_matmul": (lambda tf, d, b: tf.linalg.tridiagonal_matmul(d, b),
                           [np.float32([[1, 2, 0], [4, 5, 6], [0, 7, 8]]), B]),
    "tridiagonal_solve": (lambda tf, d, b: tf.linalg.tridiagonal_solve(d, b),
                          [np.float32([[1, 2, 0], [4, 5, 6], [0, 7, 8]]), B]),
    "tridiagonal_solve_vec_seq": (lambda tf, s, m, b: tf.linalg.tridiagonal_solve(
        [s, m, s[::-1]], b, diagonals_format="sequence"),
        [np.float32([1, 2, 0]), np.float32([4, 5, 6]), np.float32([1, 2, 3])]),
    "tridiagonal_solve_matrix_transposed": (lambda tf, a, b: tf.linalg.tridiagonal_solve(
        tf.linalg.band_part(a, 1, 1), b, diagonals_format="matrix", transpose_rhs=True),
        [A, B.T.copy()]),
}


# TF registers no gradient for these (Lu, MatrixLogarithm, lstsq's fast=False,
# QR's full_matrices with M > N), or differentiates a bisection (eigh_tridiagonal):
# values compared here, eagertape's gradients checked against the analytic ones below.
NO_TF_GRADIENT = {"lu", "lu_solve", "lu_matrix_inverse", "lu_reconstruct", "logm",
                  "lstsq_slow", "qr_full_shapes", "eigh_tridiagonal", "eigh_tridiagonal_i",
                  "eigh_tridiagonal_v", "eigh_tridiagonal_vectors"}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_functions_match_tensorflow(name):
    f, xs = FUNCTIONS[name]
    compare(f, *xs, rtol=1e-3 if xs[0].dtype == np.float32 else 1e-6,
            atol=1e-3 if xs[0].dtype == np.float32 else 1e-6, grad=name not in NO_TF_GRADIENT)


def _etf_grad(f, *xs):
    xs = [etf.constant(x) for x in xs]
    with etf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    return [g.numpy() for g in tape.gradient(y, xs)]


def test_gradients_where_tf_has_none():
    w = rng.normal(size=(2, 3, 3)).astype(np.float32)
    # lu_reconstruct(lu(a)) is a: its gradient is the weights themselves.
    g, = _etf_grad(lambda a: etf.reduce_sum(etf.linalg.lu_reconstruct(*etf.linalg.lu(a)) * w),
                   BATCH)
    np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
    # lu_solve and lu_matrix_inverse: the gradients of solve and inv.
    ga, gb = _etf_grad(lambda a, b: etf.reduce_sum(etf.linalg.lu_solve(*etf.linalg.lu(a), b)
                                                   * w[0, :, :2]), A, B)
    ra, rb = _etf_grad(lambda a, b: etf.reduce_sum(etf.linalg.solve(a, b) * w[0, :, :2]), A, B)
    np.testing.assert_allclose(ga, ra, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gb, rb, rtol=1e-4, atol=1e-4)
    # d eigenvalue_k / d alpha_i = v_ik^2, d / d beta_i = 2 v_ik v_(i+1)k.
    alpha, beta = np.float64([2, 3, 4]), np.float64([1, 0.5])
    _, v = np.linalg.eigh(np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1))
    ga, gb = _etf_grad(lambda a, b: etf.linalg.eigh_tridiagonal(a, b)[1], alpha, beta)
    np.testing.assert_allclose(ga, v[:, 1] ** 2, atol=1e-10)
    np.testing.assert_allclose(gb, 2 * v[:-1, 1] * v[1:, 1], atol=1e-10)
    # logm(expm(x)) is x for small x: its gradient the weights.
    x = (0.2 * A).astype(np.complex64)
    g, = _etf_grad(lambda a: etf.math.real(etf.reduce_sum(
        etf.linalg.logm(etf.linalg.expm(a)) * w[0].astype(np.complex64))), x)
    np.testing.assert_allclose(g.real, w[0], rtol=1e-3, atol=1e-3)


def test_lu_permutation_and_eye():
    packed, p = etf.linalg.lu(A)
    assert p.dtype == np.int32 and etf.linalg.lu(A, output_idx_type=etf.int64)[1].dtype == np.int64
    np.testing.assert_array_equal(p.numpy(), tf_oracle.tf_outcome(
        lambda tf: tf.linalg.lu(A)[1]).plain())
    e = etf.linalg.eye(2, 3, batch_shape=[4], dtype=etf.float64)
    assert e.shape == (4, 2, 3) and e.dtype == np.float64


@pytest.mark.parametrize("f", [
    lambda tf: tf.linalg.triangular_solve(tf.ones([3, 3]), tf.ones([2, 1])),
    lambda tf: tf.linalg.cross(tf.ones([2]), tf.ones([2])),
    lambda tf: tf.linalg.cholesky_solve(tf.eye(3), tf.ones([2, 1])),
    lambda tf: tf.linalg.lu(tf.ones([2, 3])),
    lambda tf: tf.linalg.expm(tf.ones([2, 3])),
    lambda tf: tf.linalg.logm(tf.eye(2)),
    lambda tf: tf.linalg.set_diag(tf.zeros([3, 3]), tf.ones([2])),
    lambda tf: tf.linalg.lstsq(tf.ones([3, 2]), tf.ones([2, 1])),
    lambda tf: tf.linalg.triangular_solve(tf.eye(2), tf.ones([2, 1], tf.float64)),
])
def test_bad_arguments_raise_tfs_error_classes(f):
    # the same class name, and eagertape's error is eagertape.tf.errors' class of it
    got = tf_oracle.check(f, tf_raises=True, errors=("name", "class"))
    assert got.raised and isinstance(got.exc, getattr(etf.errors, got.error.name))


# -- LinearOperators ------------------------------------------------------------------

def _ops(tf, a, d, u, v, col):
    la = tf.linalg
    full = la.LinearOperatorFullMatrix(a)
    return {
        "full": full,
        "diag": la.LinearOperatorDiag(d),
        "identity": la.LinearOperatorIdentity(3),
        "identity_batch": la.LinearOperatorIdentity(3, batch_shape=[2]),
        "scaled": la.LinearOperatorScaledIdentity(3, d[0]),
        "lower": la.LinearOperatorLowerTriangular(a),
        "composition": la.LinearOperatorComposition([full, la.LinearOperatorDiag(d)]),
        "inversion": la.LinearOperatorInversion(full),
        "adjoint": la.LinearOperatorAdjoint(full),
        "block_diag": la.LinearOperatorBlockDiag([
            la.LinearOperatorFullMatrix(a[:2, :2]), la.LinearOperatorDiag(d[:1])]),
        "kronecker": la.LinearOperatorKronecker([
            la.LinearOperatorFullMatrix(tf.reshape(d[1], [1, 1])), la.LinearOperatorFullMatrix(a)]),
        "low_rank": la.LinearOperatorLowRankUpdate(la.LinearOperatorDiag(d), u,
                                                   diag_update=d[:2], v=v),
        "low_rank_sym": la.LinearOperatorLowRankUpdate(
            la.LinearOperatorDiag(d, is_positive_definite=True), u),
        "toeplitz": la.LinearOperatorToeplitz(col, d),
        "tridiag": la.LinearOperatorTridiag(tf.stack([col, d, col[::-1]])),
        "householder": la.LinearOperatorHouseholder(col),
        "circulant": la.LinearOperatorCirculant(tf.cast(d, tf.complex64)),
        "circulant_real": la.LinearOperatorCirculant(
            tf.cast(tf.stack([d[0], d[1], d[1]]), tf.complex64), input_output_dtype=tf.float32),
    }


D = np.float32([2.0, 3.0, 1.5])
U = rng.normal(size=(3, 2)).astype(np.float32)
W = rng.normal(size=(3, 2)).astype(np.float32)
COL = np.float32([4.0, 1.0, 0.5])
OP_ARGS = [A, D, U, W, COL]


def _method(method):
    def f(tf, a, d, u, v, col, x):
        out = []
        for k, op in sorted(_ops(tf, a, d, u, v, col).items()):
            if k.startswith("circulant"):
                xx = tf.cast(x, op.dtype)
            else:
                xx = x
            if k == "identity_batch" and method in ("solvevec", "matvec"):
                continue
            if k == "circulant_real" and method is METHODS["H_matmul"]:
                continue    # TF's adjoint of a real-output circulant is complex64 (its bug)
            r = method(tf, op, xx)
            out.append(tf.math.real(r) if r.dtype in (tf.complex64, tf.complex128) else r)
        return out
    return f


METHODS = {
    "to_dense": lambda tf, op, x: op.to_dense(),
    "matmul": lambda tf, op, x: op.matmul(x),
    "matmul_adjoint": lambda tf, op, x: op.matmul(x, adjoint=True),
    "matmul_adjoint_arg": lambda tf, op, x: op.matmul(tf.linalg.adjoint(x), adjoint_arg=True),
    "matmul_operator": lambda tf, op, x: op @ x,
    "matvec": lambda tf, op, x: op.matvec(x[:, 0]),
    "solve": lambda tf, op, x: op.solve(x),
    "solve_adjoint": lambda tf, op, x: op.solve(x, adjoint=True),
    "solvevec": lambda tf, op, x: op.solvevec(x[:, 1]),
    "determinant": lambda tf, op, x: op.determinant(),
    "log_abs_determinant": lambda tf, op, x: op.log_abs_determinant(),
    "inverse": lambda tf, op, x: op.inverse().to_dense(),
    "adjoint": lambda tf, op, x: op.adjoint().to_dense(),
    "H_matmul": lambda tf, op, x: op.H.matmul(x),
    "diag_part": lambda tf, op, x: op.diag_part(),
    "trace": lambda tf, op, x: op.trace(),
    "add_to_tensor": lambda tf, op, x: op.add_to_tensor(tf.ones(op.shape, op.dtype)),
    "shape": lambda tf, op, x: tf.constant(op.shape.as_list()),
}


@pytest.mark.parametrize("method", sorted(METHODS))
def test_linear_operators_match_tensorflow(method):
    compare(_method(METHODS[method]), *OP_ARGS, B[:, :2].copy(), rtol=2e-3, atol=2e-3)


def test_linear_operator_structure():
    la = etf.linalg
    op = la.LinearOperatorDiag([1.0, 4.0], is_positive_definite=True)
    chol = op.cholesky()
    np.testing.assert_allclose(chol.to_dense().numpy(), [[1, 0], [0, 2]])
    assert isinstance(op.inverse(), la.LinearOperatorDiag)
    assert op.shape == [2, 2] and op.batch_shape == [] and op.domain_dimension == 2
    assert isinstance(op @ op, la.LinearOperatorComposition)
    full = la.LinearOperatorFullMatrix(SPD, is_self_adjoint=True, is_positive_definite=True)
    theirs = tf.linalg.LinearOperatorFullMatrix(SPD, is_self_adjoint=True,
                                                is_positive_definite=True)
    np.testing.assert_allclose(full.cholesky().to_dense().numpy(),
                               theirs.cholesky().to_dense().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(full.eigvals().numpy(), theirs.eigvals().numpy(), rtol=1e-4)
    with pytest.raises(ValueError):
        la.LinearOperatorFullMatrix(A).cholesky()
    with pytest.raises(NotImplementedError):
        la.LinearOperatorFullMatrix(RECT).solve(B)
    with pytest.raises(ValueError):
        la.LinearOperatorZeros(3).inverse()
    with pytest.raises(ValueError):
        la.LinearOperatorFullMatrix(A).matmul(RECT)
    z = la.LinearOperatorZeros(2, 3, batch_shape=[4])
    assert z.matmul(np.ones((3, 5), np.float32)).shape == (4, 2, 5)
    perm = la.LinearOperatorPermutation([1, 2, 0])
    theirs = tf.linalg.LinearOperatorPermutation([1, 2, 0])
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    for ours_v, theirs_v in [(perm.to_dense(), theirs.to_dense()),
                             (perm.matmul(x), theirs.matmul(x)),
                             (perm.solve(x), theirs.solve(x)),
                             (perm.determinant(), theirs.determinant())]:
        np.testing.assert_allclose(ours_v.numpy(), theirs_v.numpy())
    with pytest.raises(AttributeError, match="left out"):
        la.LinearOperatorBlockLowerTriangular


def test_linear_operator_gradient_through_a_variable():
    def grad(lib):
        d = lib.Variable([2.0, 3.0, 1.5])
        with lib.GradientTape() as tape:
            op = lib.linalg.LinearOperatorLowRankUpdate(lib.linalg.LinearOperatorDiag(d), U)
            loss = op.log_abs_determinant() + lib.reduce_sum(op.solvevec([1.0, 2.0, 3.0]))
        return tape.gradient(loss, d)
    tf_oracle.check(grad, rtol=1e-4, atol=0)


# -- tf.dtypes ---------------------------------------------------------------------

DTYPE_NAMES = ["bfloat16", "bool", "complex128", "complex64", "double", "float16", "float32",
               "float64", "half", "int16", "int32", "int64", "int8", "uint16", "uint32",
               "uint64", "uint8"]


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtypes_are_tfs(name):
    ours, theirs = getattr(etf.dtypes, name), getattr(tf.dtypes, name)
    assert ours == np.dtype(theirs.as_numpy_dtype) and getattr(etf, name) is ours
    assert etf.dtypes.as_dtype(theirs.name) == ours and isinstance(ours, etf.dtypes.DType)
    x = np.array([1.7, -2.2, 300.0])
    if name != "bool":      # TF's saturate_cast raises for bool
        assert etf.dtypes.saturate_cast(x, ours).numpy().tolist() == \
            tf.dtypes.saturate_cast(x, theirs).numpy().tolist()
    # Out-of-range float-to-int casts are undefined (TF wraps, XLA clamps): in range only.
    x = np.array([1.7, 2.2, 100.0])
    ours_x, theirs_x = etf.dtypes.cast(x, ours), tf.dtypes.cast(x, theirs)
    assert ours_x.dtype == ours and ours_x.numpy().tolist() == theirs_x.numpy().tolist()


def test_dtypes_functions_and_left_out_names():
    assert etf.dtypes.cast is etf.cast and etf.dtypes.complex is etf.complex
    z = etf.dtypes.complex(etf.constant([1.0]), etf.constant([2.0]))
    assert z.dtype == np.complex64 and z.numpy().tolist() == [1 + 2j]
    assert etf.dtypes.string is etf.string and etf.string.name == tf.string.name
    for name, why in [("qint8", "quantized"), ("quint16", "quantized"),
                      ("resource", "resource"), ("variant", "variant")]:
        assert hasattr(tf.dtypes, name)
        with pytest.raises(AttributeError, match=f"left out.*{why}"):
            getattr(etf.dtypes, name)


# -- tf.errors ---------------------------------------------------------------------

def test_errors_are_tfs():
    names = [n for n in dir(tf.errors) if not n.startswith("_")]
    for n in names:
        ours, theirs = getattr(etf.errors, n), getattr(tf.errors, n)
        if isinstance(theirs, int):
            assert ours == theirs, n
            continue
        assert [b.__name__ for b in theirs.__mro__ if b.__module__ != "builtins"][1:2] == \
            [b.__name__ for b in ours.__mro__ if b.__name__ in ("OpError",)][:1] or \
            n in ("OpError", "OperatorNotAllowedInGraphError"), n
        if issubclass(theirs, tf.errors.OpError) and n not in ("OpError", "InvalidArgumentError"):
            e, t = ours(None, None, "boom"), theirs(None, None, "boom")
            assert (e.message, e.error_code, str(e)) == (t.message, t.error_code, str(t))
            assert isinstance(e, etf.errors.OpError)
            assert getattr(etf.errors, n)("plain").message == "plain"
    assert issubclass(etf.errors.OperatorNotAllowedInGraphError, TypeError)
    assert etf.errors.InvalidArgumentError is __import__(
        "eagertape._errors", fromlist=["x"]).InvalidArgumentError


# -- tf.experimental.numpy ---------------------------------------------------------

X = np.float32([[0.5, -1.5, 2.0], [3.0, 0.25, -0.75]])
XI = np.int32([[1, 2, 3], [4, 5, 6]])
TNP = {
    "asarray_float": lambda n: n.asarray(1.0), "asarray_list": lambda n: n.asarray([1, 2]),
    "arange": lambda n: n.arange(3), "arange_float": lambda n: n.arange(0.0, 1.0, 0.25),
    "ones": lambda n: n.ones(2), "zeros_int": lambda n: n.zeros([2], dtype=n.int32),
    "eye": lambda n: n.eye(2, 3, k=1), "linspace": lambda n: n.linspace(0, 1, 5),
    "full": lambda n: n.full([2], 3), "tri": lambda n: n.tri(3),
    "mean_int": lambda n: n.mean(n.asarray(XI)), "sum_axis": lambda n: n.sum(n.asarray(X), 1),
    "std": lambda n: n.std(n.asarray(X)), "var_axis": lambda n: n.var(n.asarray(X), axis=0),
    "prod": lambda n: n.prod(n.asarray(XI), axis=1), "cumsum": lambda n: n.cumsum(n.asarray(X)),
    "amax": lambda n: n.amax(n.asarray(X), axis=0), "argsort": lambda n: n.argsort(n.asarray(X)),
    "sqrt": lambda n: n.sqrt(n.abs(n.asarray(X))), "exp": lambda n: n.exp(n.asarray(X)),
    "log1p": lambda n: n.log1p(n.abs(n.asarray(X))), "arctan2": lambda n: n.arctan2(
        n.asarray(X), n.asarray(X[::-1].copy())),
    "true_divide_int": lambda n: n.true_divide(n.asarray(XI), 2),
    "floor_divide": lambda n: n.floor_divide(n.asarray(XI), 4),
    "add_mixed": lambda n: n.add(n.asarray(XI), n.asarray(X)),
    "multiply_scalar": lambda n: n.multiply(n.asarray(X), 2.0),
    "matmul": lambda n: n.matmul(n.asarray(X), n.asarray(X.T.copy())),
    "dot": lambda n: n.dot(n.asarray(X[0]), n.asarray(X[1])),
    "tensordot": lambda n: n.tensordot(n.asarray(X), n.asarray(X), axes=[[0, 1], [0, 1]]),
    "einsum": lambda n: n.einsum("ij,kj->ik", n.asarray(X), n.asarray(X)),
    "where": lambda n: n.where(n.asarray(X) > 0, n.asarray(X), 0.0),
    "clip": lambda n: n.clip(n.asarray(X), -1.0, 1.0),
    "concatenate": lambda n: n.concatenate([n.asarray(X), n.asarray(X)], axis=1),
    "stack": lambda n: n.stack([n.asarray(X[0]), n.asarray(X[1])], axis=1),
    "reshape_transpose": lambda n: n.transpose(n.reshape(n.asarray(X), [3, 2])),
    "take": lambda n: n.take(n.asarray(X), [2, 0], axis=1),
    "pad": lambda n: n.pad(n.asarray(X), [[1, 0], [0, 2]], mode="constant"),
    "tile": lambda n: n.tile(n.asarray(XI), [2, 1]),
    "roll": lambda n: n.roll(n.asarray(X), 1, axis=1),
    "diff": lambda n: n.diff(n.asarray(X)), "outer": lambda n: n.outer(n.asarray(X[0]),
                                                                      n.asarray(X[1])),
    "kron": lambda n: n.kron(n.asarray(XI), n.asarray(XI)),
    "isclose": lambda n: n.isclose(n.asarray(X), n.asarray(X) + 1e-9),
    "count_nonzero": lambda n: n.count_nonzero(n.asarray(XI) > 2),
    "logaddexp": lambda n: n.logaddexp(n.asarray(X), n.asarray(X)),
    "sort": lambda n: n.sort(n.asarray(X), axis=0), "triu": lambda n: n.triu(n.asarray(X)),
    "vander": lambda n: n.vander(n.asarray(X[0]), 3), "fix": lambda n: n.fix(n.asarray(X)),
    "flatten": lambda n: n.flatten(n.asarray(XI)), "float_": lambda n: n.asarray(1, n.float_),
}


def _tnp(lib, f):
    return f(lib.experimental.numpy)


@pytest.mark.parametrize("name", sorted(TNP))
def test_experimental_numpy_matches_tensorflow(name):
    # dtype, shape and values as TF's
    ours = tf_oracle.check(_tnp, TNP[name], tf_raises=False, rtol=1e-5, atol=1e-6)
    assert isinstance(ours.raw, etf.experimental.numpy.ndarray)


def _tnp_grad(lib, f):
    x = lib.constant(X)
    with lib.GradientTape() as tape:
        tape.watch(x)
        y = f(lib.experimental.numpy, x)
    return tape.gradient(y, x)


@pytest.mark.parametrize("f", [
    lambda n, x: n.sum(n.tanh(x) * n.exp(x)),
    lambda n, x: n.sum(n.matmul(x, n.transpose(x)) ** 2),
    lambda n, x: n.mean(n.where(x > 0, n.sqrt(n.abs(x)), x * x)),
    lambda n, x: n.prod(n.clip(x, -1.0, 1.0)) + n.max(x),
])
def test_experimental_numpy_gradients(f):
    tf_oracle.check(_tnp_grad, f, tf_raises=False, rtol=1e-5, atol=1e-6)


def test_experimental_numpy_names():
    names = [n for n in dir(tf.experimental.numpy) if not n.startswith("_")]
    missing = [n for n in names if not hasattr(etf.experimental.numpy, n)]
    assert sorted(missing) == ["object_", "string_", "unicode_"]
    with pytest.raises(AttributeError, match="left out.*string"):
        etf.experimental.numpy.string_
    etf.experimental.numpy.experimental_enable_numpy_behavior()
