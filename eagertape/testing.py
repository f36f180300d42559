"""Testing helpers: gradient checks against JAX and finite differences.

>>> import eagertape as et
>>> from eagertape import numpy as tnp
>>> et.testing.check_grads(lambda x, y: tnp.sin(x) * y, ([0.1, 0.2], [1.0, 2.0]))
[array([0.99500417, 1.96013316]), array([0.09983342, 0.19866933])]
"""
import jax
import jax.numpy as jnp
import numpy as np

from ._state import local, switched, x64
from ._tape import GradientTape
from ._tensor import Tensor

__all__ = ["check_grads"]

# Tape and jax.grad run the same pullbacks, so they may differ only by rounding
# (fusion and summation order under jit).
_TIGHT_RTOL = 1e-10
_TIGHT_ATOL = 1e-10


def _as_tensor_value(x):
    a = np.asarray(x)
    return jnp.asarray(a, np.complex128 if np.iscomplexobj(a) else np.float64)


def _out_value(out):
    v = out.jax() if isinstance(out, Tensor) else jnp.asarray(out)
    if jnp.iscomplexobj(v):
        raise TypeError("check_grads: f must return a real Tensor (take abs or real of a "
                        f"complex result), got dtype {v.dtype}")
    return v


def _tape_grads(f, values, replay):
    with switched(replay=replay if replay is not None else local.state.replay):
        xs = [Tensor(v) for v in values]
        with GradientTape() as tape:
            tape.watch(xs)
            out = f(*xs)
        _out_value(out)
        grads = tape.gradient(out, xs, unconnected_gradients="zero")
    return [np.asarray(g.numpy()) for g in grads]


def _jax_grads(f, values):
    # No tape is active, so f on Tensors wrapping tracers is plain jax.numpy.
    def pure(*vs):
        return jnp.sum(_out_value(f(*[Tensor(v) for v in vs])))
    grads = jax.grad(pure, argnums=tuple(range(len(values))))(*values)
    # JAX returns conj(df/dx + i df/dy) for complex inputs; TF (and the tape) do not conjugate.
    return [np.conj(np.asarray(g)) if jnp.iscomplexobj(g) else np.asarray(g) for g in grads]


def _fd_grads(f, values, eps):
    def total(vs):
        return float(np.sum(np.asarray(_out_value(f(*[Tensor(jnp.asarray(v)) for v in vs])))))

    base = [np.array(v) for v in values]
    grads = []
    for k, x in enumerate(base):
        # Perturb the real and (for complex inputs) the imaginary part separately:
        # the tape's convention is df/dx + i df/dy.
        directions = [1.0, 1j] if np.iscomplexobj(x) else [1.0]
        g = np.zeros(x.shape, x.dtype)
        for i in np.ndindex(x.shape):
            for d in directions:
                plus, minus = list(base), list(base)
                plus[k], minus[k] = x.copy(), x.copy()
                plus[k][i] += d * eps
                minus[k][i] -= d * eps
                g[i] += d * (total(plus) - total(minus)) / (2 * eps)
        grads.append(g)
    return grads


def _compare(k, got, want, rtol, atol, what):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        raise AssertionError(f"check_grads: argument {k}: tape gradient has shape {got.shape}, "
                             f"{what} has shape {want.shape}")
    err = np.abs(got - want)
    bad = err > atol + rtol * np.abs(want)
    if np.any(bad) or not np.all(np.isfinite(got)):
        raise AssertionError(
            f"check_grads: argument {k}: tape gradient != {what} "
            f"(max abs error {np.max(err, initial=0.0):.3g}, rtol={rtol:g}, atol={atol:g}, "
            f"{int(np.sum(bad))} of {got.size} elements off)\n"
            f"tape: {got}\n{what}: {want}")


@x64     # float64 arguments and float64 jax.grad / finite differences, whatever the user's JAX
def check_grads(f, args, *, eps=1e-6, rtol=1e-5, atol=1e-6, replay=None):
    """Check the tape gradient of ``sum(f(*args))`` against ``jax.grad`` and finite differences.

    ``f`` takes and returns eagertape Tensors (written with ``eagertape.numpy`` /
    ``eagertape.nn``) and must return a real Tensor. ``args`` are array-likes,
    converted to float64 (complex ones to complex128). The tape gradient must
    match ``jax.grad`` of the same function to rounding, and central finite
    differences (step ``eps``) within ``rtol``/``atol``. ``replay`` is
    ``"compiled"``, ``"per_op"`` (one pullback call per op) or None (the
    thread's current setting).

    Complex gradients follow TensorFlow's convention, ``df/dx + i df/dy``.

    Returns the tape gradients, one NumPy array per argument; raises
    AssertionError naming the argument and the comparison that failed.

    >>> from eagertape import numpy as tnp
    >>> from eagertape.testing import check_grads
    >>> gx, = check_grads(lambda x: tnp.log(x) * x, ([1.0, 2.0],), replay="per_op")
    >>> gx                                       # log(x) + 1
    array([1.        , 1.69314718])
    """
    if replay not in (None, "compiled", "per_op"):
        raise ValueError(f"argument `replay` must be 'compiled', 'per_op' or None, got {replay!r}")
    values = [_as_tensor_value(a) for a in args]
    tape = _tape_grads(f, values, replay)
    exact = _jax_grads(f, values)
    fd = _fd_grads(f, values, eps)
    for k, (t, j, n) in enumerate(zip(tape, exact, fd)):
        _compare(k, t, j, _TIGHT_RTOL, _TIGHT_ATOL, "jax.grad")
        _compare(k, t, n, rtol, atol, "finite differences")
    return tape
