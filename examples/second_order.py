"""Second-order derivatives with tapes: Hessians, Hessian-vector products and a
compiled Newton step, each checked against JAX.

The function is the Rosenbrock valley f(x) = sum(100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2),
minimised at x = 1 in every coordinate.

    python examples/second_order.py
"""
import jax
import jax.numpy as jnp
import numpy as np

import eagertape as et
from eagertape import numpy as tnp


def rosenbrock(x):
    return tnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_jax(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def hessian(f, x):
    """The Hessian by nested tapes: the Jacobian of the gradient."""
    with et.GradientTape() as outer:
        outer.watch(x)
        with et.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)       # recorded on the outer tape
    return g, outer.jacobian(g, x)


def hvp(f, x, v):
    """A Hessian-vector product, forward over backward: no n-by-n matrix."""
    with et.ForwardAccumulator(x, v) as acc:
        with et.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x)
    return acc.jvp(g)


@et.function
def newton_step(x):
    """One Newton step x - H^-1 g, traced once and run as one XLA executable."""
    g, h = hessian(rosenbrock, x)
    return x - tnp.linalg.solve(h, g)


def main():
    x0 = np.array([1.2, 1.0, 0.8, 1.5])
    x = et.constant(x0)

    g, h = hessian(rosenbrock, x)
    with jax.enable_x64(True):   # JAX's reference in float64 too (eagertape keeps x0's dtype)
        h_jax = jax.hessian(rosenbrock_jax)(jnp.asarray(x0))
    print("Hessian at x0 (nested tapes):")
    print(np.array2string(h.numpy(), precision=1, suppress_small=True))
    print(f"max |H - jax.hessian| = {np.max(np.abs(h.numpy() - h_jax)):.1e}")

    v = et.constant(np.array([1.0, -1.0, 0.5, 0.0]))
    hv = hvp(rosenbrock, x, v)
    print(f"Hessian-vector product: {np.round(hv.numpy(), 3).tolist()}, "
          f"max |Hv - H @ v| = {np.max(np.abs(hv.numpy() - h_jax @ v.numpy())):.1e}")

    for i in range(12):
        x = newton_step(x)
    print(f"after 12 Newton steps: x = {np.round(x.numpy(), 6).tolist()}, "
          f"f(x) = {float(rosenbrock(x)):.2e}, traced {newton_step.experimental_get_tracing_count()}x")


if __name__ == "__main__":
    main()
