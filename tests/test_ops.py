"""Gradient of every op in the table (``tests/op_table.py``), checked against
jax.grad and finite differences, under both replays.
"""
import numpy as np
import pytest

import eagertape as et
from eagertape import numpy as tnp
from op_table import CASES, distinct_functions, resolve

# Oracles (jax.grad, jax.vjp, jax.jvp) compute in float64: JAX's 64-bit mode, as a
# user with JAX_ENABLE_X64=1 runs it.
pytestmark = pytest.mark.jax_x64


def test_table_covers_at_least_80distinct_functions():
    ops = [p.values[0] for p in CASES]
    for op in ops:
        assert callable(resolve(op)), op
    assert len(distinct_functions()) >= 80, len(distinct_functions())


@pytest.mark.parametrize("replay", ["compiled", "per_op"])
@pytest.mark.parametrize("op,f,args", CASES)
def test_op_gradient(op, f, args, replay):
    et.testing.check_grads(f, args, replay=replay)


def test_check_grads_catches_a_wrong_gradient():
    @et.custom_gradient
    def bad_square(x):
        return x * x, lambda up: up * x        # should be 2 * up * x

    # jax.grad honours the custom rule too (a jax.custom_vjp under JAX's trace):
    # the finite differences catch it.
    with pytest.raises(AssertionError, match="argument 0.*finite differences"):
        et.testing.check_grads(bad_square, ([0.5, -1.0],))


def test_check_grads_returns_tape_gradients():
    gx, gy = et.testing.check_grads(lambda x, y: x * tnp.sum(y), ([1.0, 2.0], [[3.0]]))
    np.testing.assert_allclose(gx, [3.0, 3.0])
    np.testing.assert_allclose(gy, [[3.0]])
    assert gx.dtype == np.float64 and gy.shape == (1, 1)
