"""Differential fuzzing: random programs through the tape against ``jax.grad`` of
the same program in ``jax.numpy``.

A program is a list of steps over a growing pool of values: random unary, binary
(with broadcasting) and reducing ops on randomly chosen earlier values (so
intermediates are reused), Python branches decided by the values as executed,
steps computed under ``stop_recording`` (``lax.stop_gradient`` in the JAX twin),
and an optional outer tape that differentiates the inner gradient again.

The suite runs a few hundred examples; for ten thousand:

    EAGERTAPE_FUZZ_EXAMPLES=10000 python3 -m pytest -q tests/test_fuzz.py
"""
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagertape as et
from eagertape import introspect
from eagertape import numpy as tnp

# Oracles (jax.grad, jax.vjp, jax.jvp) compute in float64: JAX's 64-bit mode, as a
# user with JAX_ENABLE_X64=1 runs it.
pytestmark = pytest.mark.jax_x64

EXAMPLES = int(os.environ.get("EAGERTAPE_FUZZ_EXAMPLES", "100"))

# Smooth, finite everywhere: a failure is a wrong gradient, not a domain error.
UNARY = {
    "sin": lambda ns, a: ns.sin(a),
    "tanh": lambda ns, a: ns.tanh(a),
    "square": lambda ns, a: a * a,
    "exp_tanh": lambda ns, a: ns.exp(ns.tanh(a)),
    "log1p_sq": lambda ns, a: ns.log1p(a * a),
    "sqrt_1p": lambda ns, a: ns.sqrt(a * a + 1.0),
    "neg": lambda ns, a: -a,
}
BINARY = {
    "add": lambda ns, a, b: a + b,
    "sub": lambda ns, a, b: a - b,
    "mul": lambda ns, a, b: a * b,
    "gate": lambda ns, a, b: a * ns.tanh(b),
    "ratio": lambda ns, a, b: a / (1.0 + b * b),
}
REDUCE = {
    "sum": lambda ns, a: ns.sum(a),
    "mean_last": lambda ns, a: ns.mean(ns.atleast_1d(a), axis=-1, keepdims=True),
    "max_sq": lambda ns, a: ns.max(a * a + 0.0 * a),
}
SHAPES = [(), (3,), (1, 3), (2, 1), (2, 3)]


@st.composite
def programs(draw):
    n_in = draw(st.integers(1, 3))
    shapes = [draw(st.sampled_from(SHAPES)) for _ in range(n_in)]
    steps = []
    pool = n_in
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["unary", "binary", "reduce", "branch"]))
        i = draw(st.integers(0, pool - 1))
        j = draw(st.integers(0, pool - 1))
        stopped = draw(st.integers(0, 9)) == 0
        if kind == "unary":
            steps.append(("unary", draw(st.sampled_from(sorted(UNARY))), i, j, stopped))
        elif kind == "binary":
            steps.append(("binary", draw(st.sampled_from(sorted(BINARY))), i, j, stopped))
        elif kind == "reduce":
            steps.append(("reduce", draw(st.sampled_from(sorted(REDUCE))), i, j, stopped))
        else:
            steps.append(("branch", draw(st.sampled_from(sorted(UNARY))), i, j, stopped))
        pool += 1
    seed = draw(st.integers(0, 2**31 - 1))
    second_order = draw(st.booleans())
    replay = draw(st.sampled_from(["auto", "per_op", "compiled"]))
    return shapes, steps, seed, second_order, replay


def _run(ns, steps, inputs, decide, stop):
    """The program over namespace ``ns``; returns a scalar (all values summed)."""
    vals = list(inputs)
    for kind, name, i, j, stopped in steps:
        def step():
            a, b = vals[i], vals[j]
            if kind == "unary":
                return UNARY[name](ns, a)
            if kind == "binary":
                return BINARY[name](ns, a, b)
            if kind == "reduce":
                return REDUCE[name](ns, a)
            # A Python branch on a value: taken as executed (the tape records the
            # path that ran; the JAX twin replays the same decisions).
            return UNARY[name](ns, a) if decide(a) else b * 0.5
        vals.append(stop(step) if stopped else step())
    total = 0.0
    for v in vals[len(inputs):] or vals:
        total = total + ns.sum(v)
    return total


def _tape_gradient(steps, xs, second_order, decisions):
    def decide(a):
        d = float(tnp.sum(a)) > 0
        decisions.append(d)
        return d

    def run_with(tape):
        def stop(step):
            with tape.stop_recording():
                return step()
        return _run(tnp, steps, xs, decide, stop)

    if not second_order:
        with et.GradientTape() as tape:
            tape.watch(xs)
            y = run_with(tape)
        return tape.gradient(y, xs, unconnected_gradients="zero")
    with et.GradientTape() as outer:
        outer.watch(xs)
        with et.GradientTape() as inner:
            inner.watch(xs)
            y = _run(tnp, steps, xs, decide, _stop_both(inner, outer))
        gs = inner.gradient(y, xs, unconnected_gradients="zero")
        z = sum(tnp.sum(tnp.sin(g)) for g in gs)
    return outer.gradient(z, xs, unconnected_gradients="zero")


def _stop_both(*tapes):
    def stop(step):
        # stop_recording on every tape: the value is a constant for all of them
        t0, *rest = tapes
        with t0.stop_recording():
            if rest:
                return _stop_both(*rest)(step)
            return step()
    return stop


def _jax_gradient(steps, xs, second_order, decisions):
    def f(*vs):
        it = iter(decisions)
        return _run(jnp, steps, vs, lambda a: next(it),
                    lambda step: jax.lax.stop_gradient(step()))

    argnums = tuple(range(len(xs)))
    if not second_order:
        return jax.grad(f, argnums)(*xs)

    def g(*vs):
        return sum(jnp.sum(jnp.sin(h)) for h in jax.grad(f, argnums)(*vs))
    return jax.grad(g, argnums)(*xs)


@settings(max_examples=EXAMPLES, deadline=None)
@given(programs())
def test_random_programs_match_jax_grad(program):
    shapes, steps, seed, second_order, replay = program
    rng = np.random.default_rng(seed)
    values = [rng.uniform(-1.5, 1.5, s) for s in shapes]
    with introspect.replay_policy(replay):
        decisions = []
        got = _tape_gradient(steps, [et.constant(v) for v in values], second_order, decisions)
    want = _jax_gradient(steps, [jnp.asarray(v) for v in values], second_order, decisions)
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g.numpy(), np.asarray(w), rtol=1e-9, atol=1e-10,
                                   err_msg=f"input {k}: {program}")
