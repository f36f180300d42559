"""Property tests: the tape agrees with JAX on random shapes, programs and orders."""
import contextlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import eagertape as et
from eagertape import introspect, nn
from eagertape import numpy as tnp

# Oracles (jax.grad, jax.vjp, jax.jvp) compute in float64: JAX's 64-bit mode, as a
# user with JAX_ENABLE_X64=1 runs it.
pytestmark = pytest.mark.jax_x64

# Tape and jax.grad compose the same pullbacks: only rounding may differ.
RTOL = ATOL = 1e-9

# Both replays, drawn per example: the random programs meet each without doubling the
# test (the op table runs every op under both).
replays = st.sampled_from(["compiled", "per_op"])


@contextlib.contextmanager
def replay_mode(replay):
    # A context manager, not a fixture: hypothesis reruns the body per example.
    with introspect.replay_policy(replay):
        yield


def assert_close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=RTOL, atol=ATOL)


def tape_grads(f, values, replay, **kw):
    xs = [et.constant(v, dtype="float64") for v in values]
    with replay_mode(replay):
        with et.GradientTape() as tape:
            tape.watch(xs)
            y = f(*xs)
        return [g.numpy() for g in tape.gradient(y, xs, **kw)]


# -- (a) binary ops under broadcasting ---------------------------------------------

def _away(rng, shape, lo=0.3, hi=2.0):
    return rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)


# op: (function of a namespace, operand generator for a shape pair)
BINARY = {
    "add": (lambda ns, x, y: ns.add(x, y), lambda r, s, t: (r.uniform(-2, 2, s), r.uniform(-2, 2, t))),
    "sub": (lambda ns, x, y: x - y, lambda r, s, t: (r.uniform(-2, 2, s), r.uniform(-2, 2, t))),
    "mul": (lambda ns, x, y: x * y, lambda r, s, t: (r.uniform(-2, 2, s), r.uniform(-2, 2, t))),
    "div": (lambda ns, x, y: x / y, lambda r, s, t: (r.uniform(-2, 2, s), _away(r, t))),
    "maximum": (lambda ns, x, y: ns.maximum(x, y),
                lambda r, s, t: (r.uniform(-2, 2, s), r.uniform(-2, 2, t))),
    "arctan2": (lambda ns, x, y: ns.arctan2(x, y), lambda r, s, t: (_away(r, s), _away(r, t))),
    "hypot": (lambda ns, x, y: ns.hypot(x, y), lambda r, s, t: (_away(r, s), _away(r, t))),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@settings(deadline=None, max_examples=12)
@given(replay=replays,
       shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
       seed=st.integers(0, 2**32 - 1))
def test_binary_broadcast_gradient(replay, name, shapes, seed):
    op, gen = BINARY[name]
    (s, t), _ = shapes
    x, y = gen(np.random.default_rng(seed), s, t)
    if name == "maximum":   # no ties: the gradient is not defined there
        assume(np.min(np.abs(np.subtract(x, y)), initial=1.0) > 1e-3)
    gx, gy = tape_grads(lambda a, b: op(tnp, a, b), [x, y], replay)
    jx, jy = jax.grad(lambda a, b: jnp.sum(op(jnp, a, b)), argnums=(0, 1))(x, y)
    assert gx.shape == np.shape(x) and gy.shape == np.shape(y)
    assert_close(gx, jx)
    assert_close(gy, jy)


# -- (b) random programs ----------------------------------------------------------

# Each step: a unary op from a safe set, then optionally + or * with an earlier value.
UNARY = [
    ("sin", lambda ns, nnm, x: ns.sin(x)),
    ("cos", lambda ns, nnm, x: ns.cos(x)),
    ("tanh", lambda ns, nnm, x: ns.tanh(x)),
    ("exp_tanh", lambda ns, nnm, x: ns.exp(ns.tanh(x))),
    ("square", lambda ns, nnm, x: x * x),
    ("softplus", lambda ns, nnm, x: nnm.softplus(x)),
    ("sigmoid", lambda ns, nnm, x: nnm.sigmoid(x)),
    ("half", lambda ns, nnm, x: 0.5 * x),
    ("plus1", lambda ns, nnm, x: x + 1.0),
    ("soft_abs", lambda ns, nnm, x: ns.sqrt(x * x + 1.0)),
]

step = st.tuples(st.integers(0, len(UNARY) - 1), st.sampled_from(["", "+", "*"]), st.integers(0, 63))
programs = st.lists(step, min_size=1, max_size=8)


def run_program(program, x, ns, nnm):
    values = [x]
    for u, combine, j in program:
        v = UNARY[u][1](ns, nnm, values[-1])
        other = values[j % len(values)]
        if combine == "+":
            v = v + other
        elif combine == "*":
            v = v * other
        values.append(v)
    return values[-1]


def jax_program(program):
    return lambda x: jnp.sum(run_program(program, x, jnp, jax.nn))


def tape_program(program):
    return lambda x: run_program(program, x, tnp, nn)


def describe(program):
    return " -> ".join(UNARY[u][0] + (f" {c} v{j}" if c else "") for u, c, j in program)


def _reasonable(f, x):
    # Long products of x*x can overflow; such programs say nothing about the tape.
    y = f(x)
    return bool(np.isfinite(y)) and abs(float(y)) < 1e8


@settings(deadline=None, max_examples=30)
@given(replay=replays, program=programs, x=st.lists(st.floats(-1.5, 1.5), min_size=1, max_size=4))
def test_random_program_gradient(replay, program, x):
    x = np.array(x)
    assume(_reasonable(jax_program(program), x))
    want = jax.grad(jax_program(program))(x)
    assume(np.all(np.isfinite(want)) and np.max(np.abs(want)) < 1e8)
    (got,) = tape_grads(tape_program(program), [x], replay)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL * max(1.0, np.max(np.abs(want))),
                               err_msg=describe(program))


# -- (c) higher orders by nested tapes ---------------------------------------------

def nested_grad(f, x0, order):
    """d^order f / dx^order at scalar x0 by `order` nested tapes."""
    x = et.constant(x0, dtype="float64")
    tapes = [et.GradientTape() for _ in range(order)]
    for t in tapes:
        t.__enter__()
        t.watch(x)
    try:
        g = f(x)
        for t in reversed(tapes):
            # Still inside the outer tapes' contexts, so they record this gradient
            # (gradient stops a non-persistent tape's own recording).
            g = t.gradient(g, x, unconnected_gradients="zero")
    finally:
        for t in tapes:
            t.__exit__(None, None, None)
    return g.numpy()


@pytest.mark.parametrize("order", [2, 3])
@settings(deadline=None, max_examples=15)
@given(replay=replays, program=st.lists(step, min_size=1, max_size=5), x=st.floats(-1.5, 1.5))
def test_nested_tapes_higher_order(replay, order, program, x):
    f = jax_program(program)
    assume(_reasonable(f, x))
    want = f
    for _ in range(order):
        want = jax.grad(want)
    want = want(x)
    assume(np.isfinite(want) and abs(float(want)) < 1e8)
    with replay_mode(replay):
        got = nested_grad(tape_program(program), x, order)
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-8 * max(1.0, abs(float(want))),
                               err_msg=describe(program))


# -- (d) persistent tapes -----------------------------------------------------------

@settings(deadline=None, max_examples=20)
@given(replay=replays, program=programs, x=st.lists(st.floats(-1.5, 1.5), min_size=1, max_size=4))
def test_persistent_tape_queried_twice(replay, program, x):
    x = np.array(x)
    assume(_reasonable(jax_program(program), x))
    xt = et.constant(x, dtype="float64")
    with replay_mode(replay):
        with et.GradientTape(persistent=True) as tape:
            tape.watch(xt)
            y = tape_program(program)(xt)
        first = tape.gradient(y, xt).numpy()
        second = tape.gradient(y, xt).numpy()
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(first, jax.grad(jax_program(program))(x), rtol=RTOL,
                               atol=ATOL * max(1.0, np.max(np.abs(first))))
