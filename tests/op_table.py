"""The op table: every op the gradient tests cover, as cases of (the eagertape
function it exercises, a function of Tensors built around it so that the target
is real and well defined, inputs drawn from the op's domain, away from kinks,
ties and singularities). A module, not a test: ``test_ops`` (gradients against
``jax.grad`` and finite differences), ``test_forward`` (against ``jax.jvp``) and
``test_jacobians`` (against ``jax.jacrev``) read it.
"""
import numpy as np
import pytest

from eagertape import nn
from eagertape import numpy as tnp

_rng = np.random.default_rng(20240607)


# -- input domains -------------------------------------------------------------

def U(lo, hi, shape=(4,)):
    return _rng.uniform(lo, hi, shape)


def away(shape=(4,), lo=0.2, hi=1.5):
    """Values of either sign with |x| in [lo, hi]: clear of the kink at 0."""
    return U(lo, hi, shape) * _rng.choice([-1.0, 1.0], shape)


def distinct(shape=(4,)):
    """Well separated values (no ties for max, sort, median, ...)."""
    n = int(np.prod(shape))
    return (_rng.permutation(n) * 0.7 + U(-0.2, 0.2, (n,))).reshape(shape) - n * 0.3


def wellcond(n=3):
    return 3.0 * np.eye(n) + U(-0.5, 0.5, (n, n))


def sym(n=3):
    """A symmetric matrix with well separated eigenvalues."""
    q, _ = np.linalg.qr(_rng.normal(size=(n, n)))
    return (q * np.arange(1.0, n + 1) * 1.5) @ q.T


def cplx(shape=(4,)):
    return U(0.3, 1.5, shape) * np.exp(1j * U(-3.0, 3.0, shape))


def _sym(m):
    # cholesky and eigh read one triangle; symmetrize so that finite differences
    # and the (symmetrized) JAX rules see the same function.
    return (m + tnp.swapaxes(m, -1, -2)) / 2


def _weights(n, start=1.0):
    return np.linspace(start, start + 1.0, n)


# -- the table -----------------------------------------------------------------

CASES = []


def case(op, f, *args, id=None):
    CASES.append(pytest.param(op, f, args, id=id or op))


A, B = wellcond(), wellcond()
W3 = _weights(3)
W4 = _weights(4)
W34 = U(1, 2, (3, 4))   # fixed weights: a target must not change between calls
W33 = U(1, 2, (3, 3))

# elementwise unary
case("sin", tnp.sin, U(-2, 2))
case("cos", tnp.cos, U(-2, 2))
case("tan", tnp.tan, U(-1.2, 1.2))
case("arcsin", tnp.arcsin, U(-0.9, 0.9))
case("arccos", tnp.arccos, U(-0.9, 0.9))
case("arctan", tnp.arctan, U(-3, 3))
case("sinh", tnp.sinh, U(-2, 2))
case("cosh", tnp.cosh, U(-2, 2))
case("tanh", tnp.tanh, U(-2, 2))
case("arcsinh", tnp.arcsinh, U(-3, 3))
case("arccosh", tnp.arccosh, U(1.2, 3))
case("arctanh", tnp.arctanh, U(-0.9, 0.9))
case("exp", tnp.exp, U(-2, 2))
case("exp2", tnp.exp2, U(-2, 2))
case("expm1", tnp.expm1, U(-2, 2))
case("log", tnp.log, U(0.3, 3))
case("log2", tnp.log2, U(0.3, 3))
case("log10", tnp.log10, U(0.3, 3))
case("log1p", tnp.log1p, U(-0.5, 2))
case("sqrt", tnp.sqrt, U(0.3, 3))
case("cbrt", tnp.cbrt, U(0.3, 3))
case("square", tnp.square, U(-2, 2))
case("reciprocal", tnp.reciprocal, U(0.5, 2))
case("abs", tnp.abs, away())
case("negative", tnp.negative, U(-2, 2))
case("sinc", tnp.sinc, away(lo=0.2, hi=0.8))
case("deg2rad", tnp.deg2rad, U(-90, 90))
case("rad2deg", tnp.rad2deg, U(-2, 2))
case("i0", tnp.i0, U(-2, 2))
case("floor", lambda x: x * x + tnp.floor(x), U(0.1, 0.9))   # floor: a constant for the tape
case("conj", lambda z: tnp.real(tnp.conj(z) * z * z), cplx())
case("abs", tnp.abs, cplx(), id="abs-complex")
case("angle", tnp.angle, cplx())
case("real", lambda z: tnp.real(z * z), cplx())
case("imag", lambda z: tnp.imag(z * z), cplx())

# elementwise binary (broadcasting included)
case("add", tnp.add, U(-2, 2, (3, 4)), U(-2, 2, (4,)))
case("subtract", tnp.subtract, U(-2, 2, (3, 1)), U(-2, 2, (4,)))
case("multiply", tnp.multiply, U(-2, 2, (3, 4)), U(-2, 2, (3, 1)))
case("divide", tnp.divide, U(-2, 2), U(0.5, 2))
case("power", tnp.power, U(0.5, 2), U(-1.5, 1.5))
case("float_power", tnp.float_power, U(0.5, 2), U(-1.5, 1.5))
case("maximum", tnp.maximum, np.array([1.0, -1.0, 0.5, 2.0]), np.array([0.0, 0.2, 1.5, -1.0]))
case("minimum", tnp.minimum, np.array([1.0, -1.0, 0.5, 2.0]), np.array([0.0, 0.2, 1.5, -1.0]))
case("fmax", tnp.fmax, np.array([1.0, -1.0, 0.5, 2.0]), np.array([0.0, 0.2, 1.5, -1.0]))
case("fmin", tnp.fmin, np.array([1.0, -1.0, 0.5, 2.0]), np.array([0.0, 0.2, 1.5, -1.0]))
case("arctan2", tnp.arctan2, away(), away())
case("hypot", tnp.hypot, away(), away())
case("logaddexp", tnp.logaddexp, U(-2, 2), U(-2, 2))
case("logaddexp2", tnp.logaddexp2, U(-2, 2), U(-2, 2))
case("copysign", tnp.copysign, U(0.2, 2), away())
case("fmod", tnp.fmod, U(0.1, 0.9), U(1.1, 2.0))
case("clip", lambda x: tnp.clip(x, -1.0, 1.0), np.array([-1.5, -0.5, 0.3, 1.7]))
case("where", lambda x, y: tnp.where(np.array([True, False, True, False]), x * x, y),
     U(-2, 2), U(-2, 2))

# reductions
case("sum", lambda x: tnp.sum(x, axis=0) * W4, U(-2, 2, (3, 4)))
case("mean", lambda x: tnp.mean(x, axis=1) * W3, U(-2, 2, (3, 4)))
case("prod", lambda x: tnp.prod(x, axis=-1), U(0.5, 2, (3, 4)))
case("max", lambda x: tnp.max(x, axis=1) * W3, distinct((3, 4)))
case("min", lambda x: tnp.min(x, axis=0) * W4, distinct((3, 4)))
case("amax", lambda x: tnp.amax(x, axis=(0, 1)), distinct((3, 4)))
case("ptp", lambda x: tnp.ptp(x, axis=1), distinct((3, 4)))
case("std", lambda x: tnp.std(x, axis=1), U(-2, 2, (3, 4)))
case("var", lambda x: tnp.var(x, axis=0, ddof=1), U(-2, 2, (3, 4)))
case("average", lambda x, w: tnp.average(x, axis=1, weights=w), U(-2, 2, (3, 4)), U(0.5, 2))
case("median", lambda x: tnp.median(x, axis=1) * W3, distinct((3, 4)))
case("quantile", lambda x: tnp.quantile(x, 0.3), distinct((5,)))
case("nansum", lambda x: tnp.nansum(x * x, axis=1), U(-2, 2, (3, 4)))
case("nanmean", lambda x: tnp.nanmean(x * x), U(-2, 2, (3, 4)))
case("cumsum", lambda x: tnp.cumsum(x, axis=1) * W4, U(-2, 2, (3, 4)))
case("cumprod", lambda x: tnp.cumprod(x) * W4, U(0.5, 2))
case("cumulative_sum", lambda x: tnp.cumulative_sum(x, axis=0) * W4, U(-2, 2, (3, 4)))
case("diff", lambda x: tnp.diff(x, n=2) * W4[:2], U(-2, 2))
case("trapezoid", lambda y, x: tnp.trapezoid(y * y, x), U(-2, 2), np.array([0.0, 0.4, 1.1, 2.0]))
case("nn.logsumexp", lambda x: nn.logsumexp(x, axis=1), U(-2, 2, (3, 4)))

# shapes, indexing, combining
case("reshape", lambda x: tnp.reshape(x, (4, 3)) @ W3, U(-2, 2, (3, 4)))
case("transpose", lambda x: tnp.transpose(x) @ W3, U(-2, 2, (3, 4)))
case("swapaxes", lambda x: tnp.swapaxes(x, 0, 1) @ W3, U(-2, 2, (3, 4)))
case("moveaxis", lambda x: tnp.moveaxis(x, 0, -1) @ W3, U(-2, 2, (3, 2, 4)))
case("ravel", lambda x: tnp.ravel(x) * tnp.ravel(x), U(-2, 2, (3, 4)))
case("squeeze", lambda x: tnp.squeeze(x, axis=1) * W4, U(-2, 2, (3, 1, 4)))
case("expand_dims", lambda x: tnp.expand_dims(x, 0) * W34, U(-2, 2))
case("broadcast_to", lambda x: tnp.broadcast_to(x, (3, 4)) * W34, U(-2, 2))
case("concatenate", lambda x, y: tnp.concatenate([x, y * y, x]) * _weights(10),
     U(-2, 2), U(-2, 2, (2,)))
case("stack", lambda x, y: tnp.stack([x, y], axis=1) @ np.array([1.0, -2.0]), U(-2, 2), U(-2, 2))
case("hstack", lambda x, y: tnp.hstack([x, y]) * _weights(8), U(-2, 2), U(-2, 2))
case("vstack", lambda x, y: tnp.vstack([x, y]) @ W4, U(-2, 2), U(-2, 2))
case("split", lambda x: sum((i + 1.0) * tnp.sum(p * p) for i, p in enumerate(tnp.split(x, [1, 3]))),
     U(-2, 2, (5,)))
case("unstack", lambda x: sum((i + 1.0) * p for i, p in enumerate(tnp.unstack(x))), U(-2, 2, (3, 4)))
case("take", lambda x: tnp.take(x, np.array([0, 2, 2, 3])) * W4, U(-2, 2))
case("take_along_axis", lambda x: tnp.take_along_axis(x, np.array([[0, 2], [1, 1], [3, 0]]), axis=1),
     U(-2, 2, (3, 4)))
case("pad", lambda x: tnp.pad(x, (1, 2), mode="reflect") * _weights(7), U(-2, 2))
case("roll", lambda x: tnp.roll(x, 1) * W4, U(-2, 2))
case("tile", lambda x: tnp.tile(x, 2) * _weights(8), U(-2, 2))
case("repeat", lambda x: tnp.repeat(x, 2) * _weights(8), U(-2, 2))
case("flip", lambda x: tnp.flip(x) * W4, U(-2, 2))
case("sort", lambda x: tnp.sort(x) * W4, distinct())
case("tril", lambda x: tnp.tril(x) * x, U(-2, 2, (3, 3)))
case("triu", lambda x: tnp.triu(x, 1) * W33, U(-2, 2, (3, 3)))
case("diag", lambda x: tnp.diag(x) @ W3, U(-2, 2, (3,)))
case("diagonal", lambda x: tnp.diagonal(x) * W3, U(-2, 2, (3, 3)))
case("trace", lambda x: tnp.trace(x @ x), U(-2, 2, (3, 3)))

# products and contractions
case("matmul", tnp.matmul, U(-2, 2, (2, 3, 4)), U(-2, 2, (4, 2)))
case("dot", tnp.dot, U(-2, 2, (3, 4)), U(-2, 2, (4,)))
case("vdot", tnp.vdot, U(-2, 2, (2, 2)), U(-2, 2, (2, 2)))
case("inner", tnp.inner, U(-2, 2, (3, 4)), U(-2, 2, (2, 4)))
case("outer", lambda x, y: tnp.outer(x, y) ** 2, U(-2, 2, (3,)), U(-2, 2))
case("kron", lambda x, y: tnp.kron(x, y) * _weights(6), U(-2, 2, (2, 2)), U(-2, 2, (2, 3)))
case("einsum", lambda x, y: tnp.einsum("ij,jk,ik->i", x, y, x), U(-2, 2, (3, 3)), U(-2, 2, (3, 3)))
case("tensordot", lambda x, y: tnp.tensordot(x, y, axes=([1, 2], [0, 1])),
     U(-2, 2, (2, 3, 2)), U(-2, 2, (3, 2, 2)))
case("cross", tnp.cross, U(-2, 2, (2, 3)), U(-2, 2, (3,)))
case("convolve", tnp.convolve, U(-2, 2), U(-2, 2, (3,)))
case("correlate", lambda x, y: tnp.correlate(x, y, mode="full"), U(-2, 2), U(-2, 2, (3,)))
case("polyval", tnp.polyval, U(-2, 2, (3,)), U(-2, 2))
case("interp", lambda x, fp: tnp.interp(x, np.array([0.0, 1.0, 2.0, 3.0]), fp),
     np.array([0.3, 1.6, 2.2]), U(-2, 2))

# linalg
case("linalg.inv", lambda a: tnp.linalg.inv(a) @ W3, A)
case("linalg.solve", tnp.linalg.solve, A, U(-2, 2, (3, 2)))
case("linalg.det", tnp.linalg.det, A)
case("linalg.slogdet", lambda a: tnp.linalg.slogdet(a)[1], A)
case("linalg.cholesky", lambda m: tnp.linalg.cholesky(_sym(m)) * W33, sym() + 6 * np.eye(3))
case("linalg.eigh", lambda m: tnp.linalg.eigh(_sym(m))[0] * W3
     + tnp.linalg.eigh(_sym(m))[1] ** 2 @ W3, sym())
case("linalg.eigvalsh", lambda m: tnp.linalg.eigvalsh(_sym(m)) * W3, sym())
case("linalg.svd", lambda a: tnp.linalg.svd(a, compute_uv=False) * W3
     + tnp.linalg.svd(a)[0] ** 2 @ W3, A @ np.diag([1.0, 2.0, 3.0]))
case("linalg.svdvals", lambda a: tnp.linalg.svdvals(a) * _weights(2), U(-2, 2, (3, 2)))
case("linalg.qr", lambda a: tnp.linalg.qr(a)[1] ** 2 + tnp.linalg.qr(a)[0] ** 2 * 0.5, A)
case("linalg.norm", lambda a: tnp.linalg.norm(a, ord="fro") + tnp.linalg.norm(a, axis=0), A)
# A Python-float `ord` (np.inf is one): static for jnp.linalg.norm, not a traced value.
case("linalg.norm", lambda x: tnp.linalg.norm(x, ord=np.inf), away(), id="linalg.norm-ord-inf")
case("linalg.vector_norm", lambda x: tnp.linalg.vector_norm(x, ord=3), away())
case("linalg.matrix_norm", lambda a: tnp.linalg.matrix_norm(a, ord="nuc"), A)
case("linalg.pinv", lambda a: tnp.linalg.pinv(a) * W33[:2], U(-2, 2, (3, 2)) + [[2, 0], [0, 2], [0, 0]])
case("linalg.lstsq", lambda a, b: tnp.linalg.lstsq(a, b)[0], A, U(-2, 2, (3,)))
case("linalg.matrix_power", lambda a: tnp.linalg.matrix_power(a, 3), A / 3)
case("linalg.trace", lambda a: tnp.linalg.trace(a * a), U(-2, 2, (3, 3)))
case("linalg.multi_dot", lambda a, b, c: tnp.linalg.multi_dot([a, b, c]), A, B, U(-2, 2, (3, 2)))
case("linalg.vecdot", tnp.linalg.vecdot, U(-2, 2, (3, 4)), U(-2, 2, (4,)))
case("linalg.cond", tnp.linalg.cond, A)

# fft (real targets through abs or real)
case("fft.fft", lambda x: tnp.abs(tnp.fft.fft(x)), U(-2, 2))
case("fft.ifft", lambda z: tnp.real(tnp.fft.ifft(z)) * W4, cplx())
case("fft.rfft", lambda x: tnp.abs(tnp.fft.rfft(x)), U(-2, 2, (5,)))
case("fft.irfft", lambda x: tnp.fft.irfft(tnp.fft.rfft(x * x)) * _weights(6), U(-2, 2, (6,)))
case("fft.fft2", lambda x: tnp.abs(tnp.fft.fft2(x)), U(-2, 2, (3, 3)))
case("fft.fftshift", lambda x: tnp.fft.fftshift(x) * W4, U(-2, 2))

# jax.nn
case("nn.relu", nn.relu, away())
case("nn.relu6", nn.relu6, np.array([-1.0, 0.5, 3.0, 7.0]))
case("nn.sigmoid", nn.sigmoid, U(-3, 3))
case("nn.log_sigmoid", nn.log_sigmoid, U(-3, 3))
case("nn.softmax", lambda x: nn.softmax(x, axis=1) @ W4, U(-2, 2, (3, 4)))
case("nn.log_softmax", lambda x: nn.log_softmax(x, axis=0) * W4, U(-2, 2, (3, 4)))
case("nn.gelu", nn.gelu, U(-3, 3))
case("nn.gelu", lambda x: nn.gelu(x, approximate=False), U(-3, 3), id="nn.gelu-exact")
case("nn.silu", nn.silu, U(-3, 3))
case("nn.softplus", nn.softplus, U(-3, 3))
case("nn.elu", nn.elu, away())
case("nn.celu", lambda x: nn.celu(x, alpha=0.7), away())
case("nn.selu", nn.selu, away())
case("nn.leaky_relu", lambda x: nn.leaky_relu(x, 0.1), away())
case("nn.tanh", nn.tanh, U(-2, 2))
case("nn.standardize", lambda x: nn.standardize(x, axis=1) * W4, U(-2, 2, (3, 4)))
case("nn.glu", lambda x: nn.glu(x, axis=-1), U(-2, 2, (3, 4)))
case("nn.hard_tanh", nn.hard_tanh, np.array([-1.5, -0.5, 0.3, 1.4]))
case("nn.soft_sign", nn.soft_sign, away())
case("nn.mish", nn.mish, U(-3, 3))
case("nn.squareplus", nn.squareplus, U(-3, 3))
case("nn.hard_sigmoid", nn.hard_sigmoid, np.array([-4.0, -1.0, 0.5, 4.0]))
case("nn.sparse_plus", nn.sparse_plus, np.array([-2.0, -0.5, 0.5, 2.0]))


# -- lookups ---------------------------------------------------------------------

def resolve(op):
    """The function a case's name stands for (``"nn.relu"``, ``"linalg.det"``)."""
    obj = nn if op.startswith("nn.") else tnp
    for part in op.removeprefix("nn.").split("."):
        obj = getattr(obj, part)
    return obj


def distinct_functions():
    """The ids of the distinct functions the table covers."""
    # Aliases (swish/silu, nn.tanh/numpy.tanh, ...) count once.
    return {id(getattr(resolve(p.values[0]), "__wrapped__", resolve(p.values[0]))) for p in CASES}
