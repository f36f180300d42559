"""Reliability at scale: very long and deeply nested tapes, long training loops,
concurrent loops in threads, and numerics checking."""
import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import eagertape as et
from eagertape import introspect
from eagertape import numpy as tnp

# Oracles (jax.grad, jax.vjp, jax.jvp) compute in float64: JAX's 64-bit mode, as a
# user with JAX_ENABLE_X64=1 runs it.
pytestmark = pytest.mark.jax_x64


@pytest.mark.slow
def test_a_100000_op_tape():
    n = 100_000
    x = et.constant(0.3, dtype="float64")
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x
        for i in range(n):
            y = y * 1.00001 if i % 2 else y + 1e-6
    # y = affine in x with slope 1.00001 ** (n / 2)
    np.testing.assert_allclose(float(tape.gradient(y, x)), 1.00001 ** (n // 2), rtol=1e-9)


@pytest.mark.replay_axis
def test_six_nested_tapes_sixth_derivative_of_x6_is_720(replay):
    x = et.constant(1.3, dtype="float64")
    tapes = [et.GradientTape() for _ in range(6)]
    for t in tapes:
        t.__enter__()
        t.watch(x)
    y = x ** 6
    try:
        for t in reversed(tapes):
            t.__exit__(None, None, None)
            y = t.gradient(y, x)
    finally:
        for t in tapes:
            t.__exit__(None, None, None)
    assert float(y) == pytest.approx(720.0, rel=1e-12)


def _loop(w0, x, y, steps, lr=0.05):
    w = et.Variable(w0)
    for _ in range(steps):
        with et.GradientTape() as tape:
            loss = tnp.mean((tnp.tanh(x @ w) - y) ** 2)
        w.assign_sub(lr * tape.gradient(loss, w))
    return w.numpy(), float(loss)


def _jax_loop(w0, x, y, steps, lr=0.05):
    @jax.jit
    def step(w):
        loss, g = jax.value_and_grad(lambda w: jnp.mean((jnp.tanh(x @ w) - y) ** 2))(w)
        return w - lr * g, loss
    w = jnp.asarray(w0)
    for _ in range(steps):
        w, loss = step(w)
    return np.asarray(w), float(loss)


@pytest.mark.slow
@pytest.mark.eager       # counts the eager replay's compilations
def test_a_10000_step_training_loop_matches_jax_and_compiles_once():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(32, 4)), rng.normal(size=(32, 1)) * 0.5
    w0 = rng.normal(size=(4, 1)) * 0.1
    et.clear_replay_cache()
    w, loss = _loop(w0, et.constant(x), et.constant(y), 10_000)
    wj, lossj = _jax_loop(w0, x, y, 10_000)
    np.testing.assert_allclose(w, wj, rtol=1e-9, atol=1e-12)
    assert loss == pytest.approx(lossj, rel=1e-9)
    info = et.replay_cache_info()
    assert (info.misses, info.hits) == (1, 9_999)


def test_four_threads_train_as_they_would_one_after_another():
    rng = np.random.default_rng(4)
    problems = [(rng.normal(size=(16, 3)), rng.normal(size=(16, 1)), rng.normal(size=(3, 1)))
                for _ in range(4)]
    sequential = [_loop(w0, et.constant(x), et.constant(y), 200) for x, y, w0 in problems]
    results, errors = [None] * 4, []
    barrier = threading.Barrier(4)

    def work(k):
        try:
            x, y, w0 = problems[k]
            barrier.wait()
            results[k] = _loop(w0, et.constant(x), et.constant(y), 200)
            assert introspect.thread_state().tapes == []
        except Exception as e:      # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for (w, loss), (ws, losss) in zip(results, sequential):
        np.testing.assert_array_equal(w, ws)
        assert loss == losss


# -- numerics checking ------------------------------------------------------------

def test_check_numerics_stops_at_the_forward_op_and_names_it():
    x = et.constant([1.0, 0.0])
    with et.debug.check_numerics():
        with pytest.raises(et.debug.NumericsError,
                           match=r"infinity in output 0 of op 'log'.*test_reliability\.py:\d+"):
            with et.GradientTape() as tape:
                tape.watch(x)
                tnp.log(x)
        with pytest.raises(et.debug.NumericsError, match="NaN in output 0 of op 'sqrt'"):
            tnp.sqrt(et.constant(-1.0))
    state = introspect.thread_state()
    assert state.tapes == [] and not state.check_numerics
    assert np.isinf(tnp.log(x).numpy()[1])          # off again: no check


@pytest.mark.replay_axis
def test_check_numerics_stops_at_the_backward_op_and_names_where_it_was_recorded(replay):
    x = et.constant([1.0, 0.0])
    with et.debug.check_numerics():
        with et.GradientTape() as tape:
            tape.watch(x)
            y = tnp.sqrt(x)                          # finite forward, infinite derivative at 0
            line = __import__("inspect").currentframe().f_lineno - 1
        with pytest.raises(et.debug.NumericsError,
                           match=rf"gradient of input 0 of op 'sqrt' \(recorded at "
                                 rf".*test_reliability\.py:{line}\) during backprop"):
            tape.gradient(y, x)
    with et.GradientTape() as tape:                  # unchecked: TF's inf, no error
        tape.watch(x)
        y = tnp.sqrt(x)
    assert np.isinf(tape.gradient(y, x).numpy()[1])


def test_check_numerics_passes_finite_programs_with_the_same_gradients():
    x = et.constant([0.5, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(tnp.log(x) * tnp.exp(x))
    want = tape.gradient(y, x).numpy()
    et.debug.enable_check_numerics()
    try:
        with et.GradientTape() as tape:
            tape.watch(x)
            y = tnp.sum(tnp.log(x) * tnp.exp(x))
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-6)
    finally:
        et.debug.disable_check_numerics()


def test_check_numerics_is_per_thread():
    seen = []
    with et.debug.check_numerics():
        t = threading.Thread(target=lambda: seen.append(float(tnp.log(et.constant(0.0)))))
        t.start()
        t.join()
    assert seen == [-np.inf]
