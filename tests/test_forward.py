"""ForwardAccumulator: against jax.jvp on the op table, the TF facts of the
reference's ForwardAccumulator section, and nesting with tapes."""
import logging

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagertape as et
from eagertape import introspect
from eagertape import numpy as tnp

from op_table import CASES

# Oracles (jax.grad, jax.vjp, jax.jvp) compute in float64: JAX's 64-bit mode, as a
# user with JAX_ENABLE_X64=1 runs it.
pytestmark = pytest.mark.jax_x64

_REAL_CASES = [p for p in CASES if not any(np.iscomplexobj(a) for a in p.values[2])]


@pytest.fixture(autouse=True)
def _no_accumulator_left():
    yield
    assert introspect.thread_state().accumulators == []


@pytest.mark.parametrize("op,f,args", _REAL_CASES)
def test_op_table_jvp_matches_jax_jvp(op, f, args):
    rng = np.random.default_rng(7)
    values = [np.asarray(a, np.float64) for a in args]
    tangents = [rng.normal(size=v.shape) for v in values]
    xs = [et.constant(v) for v in values]
    with et.ForwardAccumulator(xs, [et.constant(t) for t in tangents]) as acc:
        y = f(*xs)
    got = acc.jvp(y, unconnected_gradients="zero")

    def pure(*vs):
        return f(*[et.Tensor(v) for v in vs]).jax()
    _, want = jax.jvp(pure, tuple(jnp.asarray(v) for v in values),
                      tuple(jnp.asarray(t) for t in tangents))
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10, err_msg=op)


# -- the reference's ForwardAccumulator section --------------------------------------

def test_primal_twice_raises_tf_message():
    x = et.constant(1.0)
    with pytest.raises(ValueError, match=r"Tensor \{\} was specified as a primal multiple times"):
        et.ForwardAccumulator([x, x], [1.0, 2.0])


def test_non_floating_primal_logs_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="eagertape"):
        et.ForwardAccumulator(et.constant(1), et.constant(1))
    assert "The dtype of the watched primal must be floating (e.g. tf.float32), got int32" \
        in caplog.text


def test_tangent_is_converted_to_the_primal_dtype_and_shape_checked():
    x = et.constant([1.0, 2.0], dtype="float64")
    acc = et.ForwardAccumulator(x, [1, 0])
    assert acc.jvp(x).dtype == np.float64
    with pytest.raises(ValueError, match=r"`tangents`\[0\] has shape \(3,\)"):
        et.ForwardAccumulator(x, [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="same structure"):
        et.ForwardAccumulator([x, x * 2], [1.0])


def test_reenter_raises_and_exit_never_raises():
    acc = et.ForwardAccumulator(et.constant(1.0), et.constant(1.0))
    with acc:
        with pytest.raises(ValueError, match="^Accumulator is already recording.$"):
            acc.__enter__()
    acc.__exit__(None, None, None)      # not recording: a no-op


def test_jvp_only_looks_up():
    x = et.constant(2.0)
    acc = et.ForwardAccumulator(x, et.constant(1.0))
    y = x * x                          # not active: no JVP
    assert acc.jvp(y) is None
    assert float(acc.jvp(x)) == 1.0     # a primal's own tangent, active or not
    with acc:
        z = x * x
    assert float(acc.jvp(z)) == 4.0
    assert float(acc.jvp(y, unconnected_gradients="zero")) == 0.0
    assert acc.jvp([z, {"a": x}])[1]["a"] is acc.jvp(x)


def test_nested_accumulators_give_second_order_from_the_outer():
    x = et.constant(2.0)
    with et.ForwardAccumulator(x, et.constant(1.0)) as outer:
        with et.ForwardAccumulator(x, et.constant(1.0)) as inner:
            y = x ** 3
        first = inner.jvp(y)
    assert float(first) == 12.0                       # 3 x^2
    assert float(outer.jvp(first)) == 12.0            # 6 x
    assert outer.jvp(inner.jvp(x)) is None            # a constant tangent


def test_tape_inside_accumulator_ignores_its_jvps():
    # "More deeply nested GradientTapes ignore JVPs from outer accumulators"
    # (TF 2.21 does record them when two accumulators are active: an accident).
    x = et.constant(2.0)
    with et.ForwardAccumulator(x, et.constant(1.0)) as acc:
        with et.GradientTape() as tape:
            tape.watch(x)
            y = x ** 3
        assert tape.gradient(acc.jvp(y), x) is None


def test_tape_around_accumulator_differentiates_the_jvp(replay):
    xv = np.array([1.0, 2.0])
    x = et.constant(xv)
    with et.GradientTape() as tape:
        tape.watch(x)
        with et.ForwardAccumulator(x, et.constant([1.0, 1.0])) as acc:
            y = tnp.sin(x) * x
        j = acc.jvp(y)
    want = jax.grad(lambda v: jnp.sum(jax.jvp(lambda u: jnp.sin(u) * u, (v,),
                                              (jnp.ones(2),))[1]))(jnp.asarray(xv))
    np.testing.assert_allclose(tape.gradient(j, x), want, rtol=1e-12)


def test_forward_over_backward_hvp_of_the_reference(replay):
    v = et.Variable([1.0, 2.0])
    with et.ForwardAccumulator(v, et.constant([1.0, 0.0])) as acc:
        with et.GradientTape() as tape:
            y = tnp.sum(v ** 3)
        g = tape.gradient(y, v)
    np.testing.assert_array_equal(acc.jvp(g), [6.0, 0.0])


def test_excluding_a_primal_is_a_zero_tangent():
    x, c = et.constant(2.0), et.constant(3.0)
    with et.ForwardAccumulator(x, et.constant(1.0)) as acc:
        y = x * c
    assert float(acc.jvp(y)) == 3.0


def test_custom_gradient_forward_mode_differentiates_the_forward_ops(replay):
    # As TF: the JVP comes from f's ops (2x), not from grad_fn (3.1); grad_fn's
    # ops are what an accumulator sees during a backward pass (TF's
    # testCustomGradientForwardprop: the "transpose" gradient is 3.1).
    @et.custom_gradient
    def f(x):
        return x * x, lambda up: up * 3.1

    x = et.constant(2.0)
    with et.ForwardAccumulator(x, et.constant(1.0)) as acc:
        y = f(x)
    assert float(acc.jvp(y)) == 4.0
    dy = et.constant(1.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    with et.ForwardAccumulator(dy, et.constant(1.0)) as acc:
        g = tape.gradient(y, x, output_gradients=dy)
    np.testing.assert_allclose(acc.jvp(g), 3.1, rtol=1e-6)


def test_int_outputs_have_no_tangent():
    x = et.constant([1.5, 2.5])
    with et.ForwardAccumulator(x, et.constant([1.0, 1.0])) as acc:
        k = tnp.argmax(x)
        r = tnp.floor(x)
    assert acc.jvp(k) is None
    assert acc.jvp(r) is None       # floor is a constant for TF's autodiff


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 5), seed=st.integers(0, 999))
def test_hvp_forward_over_backward_matches_jax_hessian(n, seed):
    rng = np.random.default_rng(seed)
    xv, tv = rng.normal(size=n), rng.normal(size=n)

    def f(x):
        return tnp.sum(tnp.tanh(x) * x ** 2) + tnp.sum(x) ** 2

    x = et.constant(xv)
    with et.ForwardAccumulator(x, et.constant(tv)) as acc:
        with et.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x)
    want = jax.hessian(lambda v: f(et.Tensor(v)).jax())(jnp.asarray(xv)) @ tv
    np.testing.assert_allclose(acc.jvp(g), want, rtol=1e-10, atol=1e-12)


def test_accumulator_is_per_thread():
    import threading
    x = et.constant(2.0)
    seen = []
    with et.ForwardAccumulator(x, et.constant(1.0)) as acc:
        def other():
            seen.append(list(introspect.thread_state().accumulators))
            seen.append(acc.jvp(x * x))
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen == [[], None]
