"""eagertape.function: traced once per signature, one recorded op under tapes,
Variables read as inputs and assigned after the call."""
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


def _g(x, w):
    return tnp.sum(tnp.tanh(x @ w) ** 2)


def test_values_equal_eager_and_traced_once_per_signature():
    traces = []

    @et.function
    def f(x, w):
        traces.append(1)                     # a Python side effect: runs while tracing
        return _g(x, w)

    rng = np.random.default_rng(0)
    x, w = et.constant(rng.normal(size=(3, 4))), et.constant(rng.normal(size=(4, 2)))
    for _ in range(3):
        np.testing.assert_allclose(f(x, w), _g(x, w), rtol=1e-12)
    assert len(traces) == 1 and f.experimental_get_tracing_count() == 1
    f(et.constant(rng.normal(size=(5, 4))), w)          # a new shape traces again
    f(x.numpy(), w)                                      # a NumPy array is a Tensor input
    assert f.experimental_get_tracing_count() == 2


def test_python_arguments_are_part_of_the_signature():
    @et.function
    def f(x, power, mode="sum"):
        y = x ** power
        return tnp.sum(y) if mode == "sum" else tnp.max(y)

    x = et.constant([1.0, 2.0])
    assert float(f(x, 2)) == 5.0 and float(f(x, 3)) == 9.0
    assert float(f(x, 3, mode="max")) == 8.0 and float(f(x, 2)) == 5.0
    assert f.experimental_get_tracing_count() == 3
    with pytest.raises(TypeError, match="argument 1 of eagertape.function 'f' is an unhashable"):
        f(x, {1, 2} and [np.zeros(2)] and {"a": set()})


def test_gradient_through_a_function_is_one_op_and_matches_jax(replay):
    f = et.function(_g)
    rng = np.random.default_rng(1)
    xv, wv = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    x, w = et.constant(xv), et.Variable(wv)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x, w)
    assert len(introspect.recording(tape).ops) == 1          # the whole function is one recorded op
    gx, gw = tape.gradient(y, [x, w])
    wx, ww = jax.grad(lambda a, b: jnp.sum(jnp.tanh(a @ b) ** 2), argnums=(0, 1))(xv, wv)
    np.testing.assert_allclose(gx, wx, rtol=1e-12)
    np.testing.assert_allclose(gw, ww, rtol=1e-12)


def test_variables_read_inside_are_inputs_with_gradients(replay):
    w = et.Variable([1.0, 2.0])

    @et.function
    def f(x):
        return tnp.sum(w * x ** 2)

    x = et.constant([3.0, 4.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    gx, gw = tape.gradient(y, [x, w])
    np.testing.assert_array_equal(gx, [6.0, 16.0])
    np.testing.assert_array_equal(gw, [9.0, 16.0])
    w.assign([10.0, 10.0])                 # the next call sees the new value
    assert float(f(x)) == 250.0
    assert f.experimental_get_tracing_count() == 1


def test_second_order_through_a_function_under_nested_tapes(replay):
    @et.function
    def f(x):
        return tnp.sin(x) * x ** 3

    xv = 0.7
    x = et.constant(xv, dtype="float64")
    with et.GradientTape() as t2:
        t2.watch(x)
        with et.GradientTape() as t1:
            t1.watch(x)
            y = f(x)
        g = t1.gradient(y, x)
    h = t2.gradient(g, x)
    fj = lambda v: jnp.sin(v) * v ** 3
    np.testing.assert_allclose(g, jax.grad(fj)(xv), rtol=1e-12)
    np.testing.assert_allclose(h, jax.grad(jax.grad(fj))(xv), rtol=1e-12)


def test_a_tape_inside_the_function_and_jacobian():
    @et.function
    def grad_and_jac(x):
        with et.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x ** 3
        return tape.gradient(y, x), tape.jacobian(y, x)

    g, j = grad_and_jac(et.constant([1.0, 2.0]))
    np.testing.assert_array_equal(g, [3.0, 12.0])
    np.testing.assert_array_equal(j, np.diag([3.0, 12.0]))


def test_training_step_with_optimizer_matches_eager():
    rng = np.random.default_rng(2)
    xv, yv, w0 = rng.normal(size=(8, 3)), rng.normal(size=(8, 1)), rng.normal(size=(3, 1))

    def make():
        w, b = et.Variable(w0), et.Variable(np.zeros(1))
        return w, b, et.optimizers.Adam(learning_rate=0.1)

    def step(w, b, opt, x, y):
        with et.GradientTape() as tape:
            loss = tnp.mean((x @ w + b - y) ** 2)
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
        return loss

    we, be, oe = make()
    wf, bf, of = make()
    fstep = et.function(lambda x, y: step(wf, bf, of, x, y))
    x, y = et.constant(xv), et.constant(yv)
    for _ in range(10):
        le, lf = step(we, be, oe, x, y), fstep(x, y)
        np.testing.assert_allclose(lf, le, rtol=1e-10)
    np.testing.assert_allclose(wf.numpy(), we.numpy(), rtol=1e-10)
    np.testing.assert_allclose(bf.numpy(), be.numpy(), rtol=1e-10)
    assert int(of.iterations.numpy()) == 10
    # The first trace made the optimizer's slots: traced again, as TF traces (2).
    assert fstep.experimental_get_tracing_count() == 2


def test_assignments_inside_are_applied_after_the_call():
    counter = et.Variable(0, trainable=False, dtype="int64")
    acc = et.Variable([0.0, 0.0])

    @et.function
    def f(x):
        counter.assign_add(1)
        acc.assign(acc + x)
        return acc * 2.0

    x = et.constant([1.0, 2.0])
    f(x)
    out = f(x)
    assert int(counter.numpy()) == 2
    np.testing.assert_array_equal(acc.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(out, [4.0, 8.0])


def test_two_variables_holding_one_array_stay_separate_inputs():
    a = et.Variable([1.0, 2.0])
    b = et.Variable(a)          # starts from the very same array

    @et.function
    def f():
        return tnp.sum(a) + 10.0 * tnp.sum(b)

    assert float(f()) == 33.0
    b.assign([0.0, 0.0])
    assert float(f()) == 3.0


def test_python_outputs_come_back_as_is():
    @et.function
    def f(x):
        return {"y": x * 2.0, "n": 3, "tag": "ok", "none": None}

    out = f(et.constant(1.0))
    assert out["n"] == 3 and out["tag"] == "ok" and out["none"] is None
    assert float(out["y"]) == 2.0


def test_jit_compile_false_runs_python_each_call():
    calls = []

    @et.function(jit_compile=False)
    def f(x):
        calls.append(1)
        return x * 2.0 if float(tnp.sum(x)) > 0 else x      # control flow on a value

    x = et.constant([1.0])
    f(x)
    f(x)
    assert len(calls) == 2


def test_control_flow_on_values_when_traced_says_what_to_do():
    @et.function
    def f(x):
        return x if float(tnp.sum(x)) > 0 else -x

    with pytest.raises(Exception, match="(?i)concret|tracer"):
        f(et.constant([1.0]))
    state = introspect.thread_state()
    assert state.capture is None and state.tapes == []
    assert float(et.function(lambda x: tnp.sum(x))(et.constant([2.0]))) == 2.0


def test_a_variable_made_on_every_trace_is_refused_as_tf_refuses():
    @et.function
    def f(x):
        return et.Variable(x * 2.0)

    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        f(et.constant(1.0))
    state = introspect.thread_state()
    assert state.capture is None and state.tapes == []


def test_method_and_nested_functions():
    class Model:
        def __init__(self):
            self.w = et.Variable([[2.0]])

        @et.function
        def __call__(self, x):
            return inner(x @ self.w)

    @et.function
    def inner(h):                       # called while tracing: runs inline
        return tnp.tanh(h)

    m = Model()
    x = et.constant([[0.5]])
    with et.GradientTape() as tape:
        y = m(x)
    np.testing.assert_allclose(tape.gradient(y, m.w), [[0.5 * (1 - np.tanh(1.0) ** 2)]],
                               rtol=1e-6)
    # Traced as part of the caller's trace, counted as TF counts its own trace of it.
    assert inner.experimental_get_tracing_count() == 1


def test_input_signature_is_checked():
    class Spec:
        def __init__(self, shape, dtype):
            self.shape, self.dtype = shape, dtype

        def __repr__(self):
            return f"Spec({self.shape}, {self.dtype})"

    f = et.function(lambda x: x * 2.0, input_signature=[Spec((None, 2), "float32")])
    assert f(et.constant(np.ones((3, 2), np.float32))).shape == (3, 2)
    with pytest.raises(TypeError, match="does not match its input_signature"):
        f(et.constant(np.ones((3, 3), np.float32)))
    with pytest.raises(TypeError, match=r"`input_signature`\[0\]"):
        et.function(lambda x: x, input_signature=[3])


def test_forward_mode_through_a_function():
    w = et.Variable([1.0, 2.0])
    f = et.function(lambda x: tnp.sum(tnp.sin(x) * w))
    x = et.constant(1.0)
    with et.ForwardAccumulator(x, et.constant(1.0)) as acc:
        y = f(x)
    np.testing.assert_allclose(acc.jvp(y), np.cos(1.0) * 3.0, rtol=1e-6)


def test_variables_made_on_the_first_trace_as_tfs_lifted_initializers():
    # TF's Core-API guides build tf.Module layers lazily inside a tf.function: the
    # Variables are made on the first trace, from values that are constants there.
    import eagertape.tf as tf
    made = []

    @tf.function
    def f(x):
        if not made:
            made.append(tf.Variable(np.ones(2, np.float32)))
            made.append(tf.Variable(tf.ones([2])))
            made.append(tf.Variable(lambda: tf.random.normal([2])))
            with tf.init_scope():
                made.append(tf.Variable(tf.random.uniform([2])))
        return x * made[0] + made[1] + made[2] * 0.0 + made[3] * 0.0
    assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]
    made[0].assign([3.0, 3.0])
    assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [4.0, 7.0]   # read, not baked
    # TF traces a first trace that made Variables again, making none: 2 traces.
    assert f.experimental_get_tracing_count() == 2 and len(made) == 4

    # An initial value computed in the trace, from the first call's input (TF runs
    # the lifted initializer with them).
    class Dense(tf.Module):
        def __init__(self):
            self.w = None

        @tf.function
        def __call__(self, x):
            if self.w is None:
                self.w = tf.Variable(tf.zeros([x.shape[-1], 2]) + tf.reduce_sum(x))
            return x @ self.w
    d = Dense()
    assert d(tf.ones([1, 3])).numpy().tolist() == [[9.0, 9.0]]
    assert d(tf.ones([2, 3])).numpy().tolist() == [[9.0, 9.0]] * 2
    assert d.__call__.experimental_get_tracing_count() == 3

    @tf.function
    def g(x):
        return tf.Variable(tf.random.normal([2])) * x
    with pytest.raises(ValueError, match="singleton"):
        g(tf.constant(1.0))
