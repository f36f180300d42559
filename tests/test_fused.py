"""Fused execution: pending values, one program per step, the same results as eager mode.

The whole suite also runs in fused mode (``pytest --execution-mode=fused``);
these tests check what is particular to it: that values really are pending
until needed, that a training step becomes one compiled program, that the
pending graph is bounded, and the mode switch itself.
"""
import gc
from functools import partial
import threading
import weakref

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagertape as et
from eagertape import introspect, nn
from eagertape import numpy as tnp
from eagertape.tf.errors import InvalidArgumentError

# Oracles (jax.grad, jax.vjp, jax.jvp) compute in float64: JAX's 64-bit mode, as a
# user with JAX_ENABLE_X64=1 runs it.
pytestmark = pytest.mark.jax_x64


@pytest.fixture
def fused():
    with et.execution_mode("fused"):
        yield


_pending = introspect.is_pending


def test_a_call_is_pending_with_its_shape_and_dtype_known(fused):
    x = et.constant(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    y = tnp.sum(tnp.sin(x) * 2.0, axis=0)
    assert _pending(y)
    assert y.shape == (3,) and y.dtype == np.float32 and y.ndim == 1 and len(y) == 3
    assert _pending(y)               # asking for the shape computed nothing
    np.testing.assert_allclose(y.numpy(), np.sum(np.sin(x.numpy()) * 2.0, axis=0), rtol=1e-5)
    assert not _pending(y)


@pytest.mark.parametrize("read", [
    lambda t: t.numpy(), lambda t: float(t[0]), lambda t: repr(t), lambda t: np.asarray(t),
    lambda t: t.jax(), lambda t: bool(t[0] > 0), lambda t: str(t), lambda t: f"{t[1]:.3f}",
    lambda t: t.tolist() if hasattr(t, "tolist") else t.numpy().tolist()])
def test_every_way_of_reading_a_value_computes_it(fused, read):
    x = et.constant([0.5, 1.5])
    y = tnp.exp(x) + 1.0
    assert _pending(y)
    read(y)
    assert not _pending(y)
    np.testing.assert_allclose(y.numpy(), np.exp([0.5, 1.5]) + 1.0, rtol=1e-6)


@pytest.mark.parametrize("first_read", ["dataset_map", "tf_function", "jax_jit"])
def test_a_pending_value_first_read_inside_a_trace_is_computed_outside_it(fused, first_read):
    # A value computed at the top level and captured by a traced function (a
    # Dataset.map function: keras-io's speaker recognition) is read first inside
    # the trace; its array must be concrete, not that trace's tracer kept after it.
    import eagertape.tf as tf
    noises = tf.constant(np.arange(3.0, dtype=np.float32)) * 2.0
    assert _pending(noises)
    if first_read == "dataset_map":
        ds = tf.data.Dataset.from_tensor_slices(np.ones(5, np.float32)).batch(2)
        got = [e.numpy().tolist() for e in ds.map(lambda x: x + noises[1])]
        assert got == [[3.0, 3.0], [3.0, 3.0], [3.0]]
    elif first_read == "tf_function":
        f = tf.function(lambda x: x + noises[1])
        assert float(f(tf.constant(1.0))) == 3.0 and float(f(tf.constant(2.0))) == 4.0
    else:
        assert float(jax.jit(lambda x: x + noises.jax()[1])(1.0)) == 3.0
    assert not _pending(noises)
    assert isinstance(noises.jax(), jax.Array) and not isinstance(noises.jax(), jax.core.Tracer)
    np.testing.assert_allclose((noises + 1.0).numpy(), [1.0, 3.0, 5.0])


@pytest.mark.parametrize("body", ["softplus", "mean", "logsumexp"])
def test_a_gradient_through_a_function_of_any_batch_size_is_computed(fused, body):
    # A tf.function with a None dimension in its input signature is one trace for
    # every size (JAX's symbolic sizes, jax.export); its pullback is exported at
    # those sizes when the fused graph is computed. Computing the graph once folded
    # every constant in traces started inside it, and the broadcasts of softplus's
    # derivative and of a mean's 1/n cannot be folded at a symbolic size
    # (UnexpectedDimVar: tests/test_tf_saved_model.py's program in fused mode).
    import eagertape.tf as tf
    w0 = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    w = tf.Variable(w0)
    fns = {"softplus": (tf.nn.softplus, jax.nn.softplus),
           "mean": (partial(tf.reduce_mean, axis=0), partial(jnp.mean, axis=0)),
           "logsumexp": (partial(tf.reduce_logsumexp, axis=1),
                         partial(jax.nn.logsumexp, axis=1))}
    ours, theirs = fns[body]

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float64)])
    def f(x):
        return ours(tf.matmul(x, w))

    for n in (5, 2):
        x = np.arange(n * 4.0).reshape(n, 4) / 10
        xt = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            s = tf.reduce_sum(f(xt) ** 2)
        gx, gw = tape.gradient(s, [xt, w])
        want = jax.grad(lambda a, b: jnp.sum(theirs(a @ b) ** 2), argnums=(0, 1))(x, w0)
        np.testing.assert_allclose(gx.numpy(), want[0], rtol=1e-10)
        np.testing.assert_allclose(gw.numpy(), want[1], rtol=1e-10)


def test_shape_errors_are_raised_at_the_call_site_as_in_eager_mode(fused):
    a, b = et.constant(np.ones((2, 3))), et.constant(np.ones((2, 3)))
    pending = tnp.sin(a)
    with pytest.raises(InvalidArgumentError) as fused_err:
        tnp.matmul(pending, b)
    with et.execution_mode("eager"):
        with pytest.raises(InvalidArgumentError) as eager_err:
            tnp.matmul(a, b)
    assert str(fused_err.value) == str(eager_err.value)
    np.testing.assert_allclose(pending.numpy(), np.sin(1.0))     # the graph is still good


def _train(steps, mode):
    rng = np.random.RandomState(0)
    xs = et.constant(rng.normal(size=(16, 4)).astype(np.float32))
    ys = et.constant(rng.normal(size=(16, 1)).astype(np.float32))
    w = et.Variable(np.full((4, 1), 0.1, np.float32))
    b = et.Variable(np.zeros((1,), np.float32))
    opt = et.optimizers.SGD(0.1)
    losses, grads = [], []
    with et.execution_mode(mode):
        for _ in range(steps):
            with et.GradientTape() as tape:
                loss = tnp.mean((nn.relu(xs @ w + b) - ys) ** 2)
            gw, gb = tape.gradient(loss, [w, b])
            opt.apply_gradients(zip([gw, gb], [w, b]))     # its own jitted update
            losses.append(float(loss))
            grads.append(gw.numpy())
    return losses, grads, w.numpy()


def test_a_training_step_is_one_program_compiled_once_and_equal_to_eager():
    introspect.clear_caches()
    losses, grads, w = _train(12, "fused")
    c = introspect.cache_info()["fused programs"]
    # Step 1 replays op by op (a tape structure seen once is not compiled);
    # step 2 appends the compiled replay to the graph, a graph structure seen
    # once, run node by node; step 3 compiles forward and backward together as
    # one program, and steps 4..12 reuse it.
    assert c["misses"] == 1 and c["hits"] == 9, c
    e_losses, e_grads, e_w = _train(12, "eager")
    np.testing.assert_allclose(losses, e_losses, rtol=1e-5)
    np.testing.assert_allclose(np.stack(grads), np.stack(e_grads), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(w, e_w, rtol=1e-5)


def test_the_fused_program_holds_forward_and_backward():
    # A replay of this structure compiled by an earlier test would take the first
    # step's gradient without running its forward graph.
    et.clear_replay_cache()
    x = et.constant(np.linspace(-1, 1, 8).astype(np.float32))
    with et.execution_mode("fused"):
        for _ in range(3):
            with et.GradientTape() as tape:
                tape.watch(x)
                s = tnp.sum(tnp.sin(tnp.sin(x)))
            g = tape.gradient(s, x)
            assert _pending(g) or _ == 0    # the compiled replay is a node of the graph
            g.numpy()
            assert not _pending(s)          # the loss came out of the same program
    fn, = introspect.compiled_programs("fused programs")
    text = fn.lower([x.jax()]).as_text()
    assert text.count("stablehlo.sine ") == 2 and text.count("stablehlo.cosine ") == 2
    ref = jax.grad(lambda v: jnp.sum(jnp.sin(jnp.sin(v))))(x.numpy())
    np.testing.assert_allclose(g.numpy(), ref, rtol=1e-6)


def test_the_pending_graph_is_bounded(fused):
    x = et.constant(np.ones(4, np.float32))
    y = x
    n = introspect.config.max_pending
    for _ in range(2 * n + 10):
        y = y * 1.0001
        graph = introspect.pending_graph()
        assert graph is None or len(graph.nodes) <= n
        if graph is None:
            assert not _pending(y)          # the full graph was run
    np.testing.assert_allclose(y.numpy(), np.full(4, 1.0001 ** (2 * n + 10)),
                               rtol=1e-4)


def test_python_control_flow_on_a_value(fused):
    x = et.constant(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * 2.0 if float(y) > 5 else y * 0.0      # computes the graph so far
        w = tnp.sin(z)
    assert _pending(w)
    np.testing.assert_allclose(float(tape.gradient(w, x)), np.cos(18.0) * 4 * 3.0, rtol=1e-5)


def test_a_value_not_returned_by_the_gradient_is_still_computed_later(fused):
    x = et.constant([0.3, 0.7])
    for _ in range(3):      # from the second step on, the fused program serves
        with et.GradientTape() as tape:
            tape.watch(x)
            h = tnp.tanh(x)
            loss = tnp.sum(h * h)
        g = tape.gradient(loss, x)
    assert _pending(loss) and _pending(h) and _pending(g)
    np.testing.assert_allclose(g.numpy(), 2 * np.tanh([0.3, 0.7]) * (1 - np.tanh([0.3, 0.7]) ** 2),
                               rtol=1e-6)
    assert not _pending(loss) and not _pending(h)     # every value still referenced
    np.testing.assert_allclose(h.numpy(), np.tanh([0.3, 0.7]), rtol=1e-6)
    t = np.tanh([0.3, 0.7])
    np.testing.assert_allclose(g.numpy(), 2 * t * (1 - t * t), rtol=1e-5)


def test_a_pending_value_used_in_eager_mode_and_in_another_thread():
    with et.execution_mode("fused"):
        a = tnp.exp(et.constant([1.0, 2.0]))
        b = tnp.log(et.constant([3.0]))
    assert _pending(a) and _pending(b)
    np.testing.assert_allclose((a * 2.0).numpy(), 2 * np.exp([1.0, 2.0]), rtol=1e-6)
    out = []
    th = threading.Thread(target=lambda: out.append(b.numpy()))
    th.start()
    th.join()
    np.testing.assert_allclose(out[0], np.log([3.0]), rtol=1e-6)


def test_a_variable_assignment_is_pending_until_the_variable_is_read(fused):
    v = et.Variable([1.0, 2.0])
    v.assign(tnp.sin(v) + 1.0)
    assert introspect.is_pending(v)
    v.assign_sub([0.5, 0.25])
    v.assign_add(et.constant([1.0, 1.0]) * 2.0)
    assert introspect.is_pending(v)
    np.testing.assert_allclose(v.numpy(), np.sin([1.0, 2.0]) + 1.0 - [0.5, 0.25] + 2.0, rtol=1e-6)
    assert not introspect.is_pending(v)
    with pytest.raises(TypeError, match="dtype"):          # checked at the call, as in eager mode
        v.assign_add(et.constant([1, 2]))
    with pytest.raises(ValueError, match="shape"):
        v.assign(et.constant([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(v.numpy(), np.sin([1.0, 2.0]) + 1.0 - [0.5, 0.25] + 2.0, rtol=1e-6)


def test_a_fused_training_step_runs_as_one_program():
    introspect.clear_caches()
    w = et.Variable(np.linspace(-1.0, 1.0, 8).astype(np.float32))
    x = et.constant(np.linspace(0.0, 2.0, 8).astype(np.float32))
    ref = w.numpy()
    for step in range(5):
        with et.execution_mode("fused"):
            with et.GradientTape() as tape:
                loss = tnp.sum(tnp.tanh(w * x) ** 2)
            g = tape.gradient(loss, w)
            # The compiled replay is a node of the graph (step 1 may replay op by op).
            assert introspect.is_pending(g) or step == 0
            w.assign_sub(0.1 * g)
        before = introspect.cache_info()["fused programs"]
        got = w.numpy()                              # the step's one program runs
        after = introspect.cache_info()["fused programs"]
        ref = ref - 0.1 * jax.grad(lambda v: jnp.sum(jnp.tanh(v * x.numpy()) ** 2))(ref)
        np.testing.assert_allclose(got, ref, rtol=1e-5)
    # The step is one compiled program (from step 3 on), reused.
    assert after["hits"] == before["hits"] + 1 and after["misses"] == before["misses"]


def test_nested_tapes_and_jacobians_in_fused_mode(fused):
    x = et.Variable(1.5)
    for _ in range(3):
        with et.GradientTape() as outer:
            with et.GradientTape() as inner:
                y = x * x * x
            dy = inner.gradient(y, x)
        d2 = outer.gradient(dy, x)
        assert float(dy) == pytest.approx(3 * 1.5 ** 2) and float(d2) == pytest.approx(6 * 1.5)
    z = et.constant(np.linspace(-0.5, 0.5, 5).astype(np.float32))
    with et.GradientTape() as tape:
        tape.watch(z)
        y = tnp.tanh(z[:, None] * z[None, :]).sum(0)
    ref = jax.jacrev(lambda v: jnp.tanh(v[:, None] * v[None, :]).sum(0))(z.numpy())
    np.testing.assert_allclose(tape.jacobian(y, z).numpy(), ref, rtol=1e-5, atol=1e-7)


def test_a_non_persistent_tape_releases_its_values_after_gradient(fused):
    x = et.constant(np.linspace(0.0, 1.0, 16))
    refs = []
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(5):
            y = tnp.sin(y) * 2.0
            refs.append(weakref.ref(y))
        loss = tnp.sum(y)
    tape.gradient(loss, x)
    del y
    gc.collect()
    assert [i for i, r in enumerate(refs) if r() is not None] == []


def test_check_numerics_runs_each_op_at_once_in_fused_mode(fused):
    with pytest.raises(et.debug.NumericsError, match="op 'log'"):
        with et.debug.check_numerics():
            tnp.log(et.constant(-1.0))


def test_the_mode_switch():
    assert et.get_execution_mode() in ("eager", "fused")
    before = et.get_execution_mode()
    with et.execution_mode("fused"):
        assert et.get_execution_mode() == "fused"
        with et.execution_mode("eager"):
            assert et.get_execution_mode() == "eager"
        assert et.get_execution_mode() == "fused"
    assert et.get_execution_mode() == before
    with pytest.raises(ValueError, match="argument `mode` must be 'eager' or 'fused', got 'lazy'"):
        et.execution_mode("lazy")
    with pytest.raises(ValueError, match="argument `mode`"):
        et.set_execution_mode(None)
    try:
        et.set_execution_mode("fused")
        seen = []
        th = threading.Thread(target=lambda: seen.append(et.get_execution_mode()))
        th.start()
        th.join()
        assert seen == ["fused"]       # threads started later begin in the mode set
    finally:
        et.set_execution_mode(before)


_OPS = [tnp.sin, tnp.tanh, lambda a: a * 1.5, lambda a: a + 0.25, tnp.exp,
        lambda a: a * a, lambda a: tnp.maximum(a, 0.1), lambda a: tnp.cumsum(a)]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, len(_OPS) - 1), min_size=1, max_size=12),
       st.lists(st.floats(-1.0, 1.0, width=32), min_size=1, max_size=5))
def test_random_programs_give_the_same_values_and_gradients_in_both_modes(ops, xs):
    def run(mode):
        x = et.constant(np.asarray(xs, np.float64))
        with et.execution_mode(mode):
            with et.GradientTape() as tape:
                tape.watch(x)
                y = x
                for k in ops:
                    y = _OPS[k](y) * 0.5
                s = tnp.sum(y)
            g = tape.gradient(s, x)
        return s.numpy(), g.numpy()
    (fs, fg), (es, eg) = run("fused"), run("eager")
    np.testing.assert_allclose(fs, es, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fg, eg, rtol=1e-12, atol=1e-12)


def test_a_persistent_tape_is_queried_on_values_computed_once(fused):
    # It is queried several times: its values are computed before the first query
    # (the pending graph runs once) and every query replays on those same values.
    x = et.constant([0.2, 0.4])
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tnp.sin(x)
        with et.GradientTape() as inner:     # a non-persistent tape inside
            inner.watch(x)
            z = y * x
        assert _pending(y) and _pending(z)
        assert inner.gradient(z, x) is not None
    first = tape.gradient(z, x).numpy()
    assert not _pending(y) and not _pending(z)
    second = tape.gradient(z, x).numpy()
    jac = tape.jacobian(z, x).numpy()
    np.testing.assert_array_equal(first, second)
    expected = np.sin([0.2, 0.4]) + np.array([0.2, 0.4]) * np.cos([0.2, 0.4])
    np.testing.assert_allclose(first, expected, rtol=1e-6)
    np.testing.assert_allclose(jac, np.diag(expected), rtol=1e-6)


def _sin_chain(x, n):
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(n):
            y = tnp.sin(y)
        s = tnp.sum(y)
    return tape, s


def test_a_repeated_step_shares_its_records_and_keeps_its_gradient(fused):
    # A structure built again keeps the first build's graph nodes and tape entries
    # (a call keeps no tuples of its own), and its gradient is still jax.grad's.
    x = et.constant(np.linspace(-1, 1, 5).astype(np.float32))
    ref = jax.grad(lambda v: jnp.sum(jnp.sin(jnp.sin(jnp.sin(v)))))(x.numpy())
    builds = []
    for _ in range(3):
        tape, s = _sin_chain(x, 3)
        graph = introspect.pending_graph()
        builds.append((list(introspect.recording(tape).struct), list(graph.nodes)))
        np.testing.assert_allclose(tape.gradient(s, x).numpy(), ref, rtol=1e-6)
    (struct0, nodes0), (struct1, nodes1), (struct2, nodes2) = builds
    assert len(struct0) == len(nodes0) == 4
    assert all(a is b is c for a, b, c in zip(struct0, struct1, struct2))
    assert all(a is b is c for a, b, c in zip(nodes0, nodes1, nodes2))


def test_structure_ids_name_structures(fused):
    # Built as calls are recorded: equal for equal structures, different when an
    # op, its wiring or an input's signature differs.
    x4, x5 = et.constant(np.ones(4, np.float32)), et.constant(np.ones(5, np.float32))
    ids = {}
    for name, (x, n) in {"a": (x4, 3), "a again": (x4, 3), "longer": (x4, 4),
                         "other shape": (x5, 3)}.items():
        tape, y = _sin_chain(x, n)
        ids[name] = (introspect.recording(tape).sid, introspect.pending_graph().sid)
        y.numpy()                  # runs the graph: the next build starts a new one
    assert ids["a"] == ids["a again"]
    assert len({ids["a"], ids["longer"]}) == 2
    assert ids["a"][1] != ids["other shape"][1]      # the graph's id covers input signatures
    with et.GradientTape() as tape:
        tape.watch(x4)
        y = tnp.sin(x4) * tnp.cos(x4)
    with et.GradientTape() as tape2:
        tape2.watch(x4)
        c = tnp.cos(x4)                              # same kinds, in another order
        y2 = tnp.sin(x4) * c
    assert introspect.recording(tape).sid != introspect.recording(tape2).sid
    np.testing.assert_allclose(y.numpy(), y2.numpy())


def test_a_cleared_id_table_costs_a_compile_never_a_wrong_program():
    introspect.clear_caches()
    x = et.constant(np.linspace(-1, 1, 6).astype(np.float32))
    ref = jax.grad(lambda v: jnp.sum(jnp.sin(jnp.sin(v))))(x.numpy())
    sids = []
    with et.execution_mode("fused"):
        for step in range(6):
            if step == 3:
                introspect.clear_caches("structure ids", "fused steps")
            tape, s = _sin_chain(x, 2)
            sids.append((introspect.recording(tape).sid, introspect.pending_graph().sid))
            g = tape.gradient(s, x)
            np.testing.assert_allclose(g.numpy(), ref, rtol=1e-6)
    c = introspect.cache_info()["fused programs"]
    assert c["misses"] == 2, c     # once before, once after
    assert sids[0] == sids[1] == sids[2] and sids[3] == sids[4] == sids[5]
    # New ids after the clear, never one given before (so never another's program).
    assert min(sids[3]) > max(sids[0])


def test_a_tape_over_two_graphs_gives_the_same_gradient(fused):
    # A value read mid-tape runs the graph: the tape's values then span two
    # graphs, and the gradient finds them one by one instead of by recorded refs.
    x = et.constant(np.array([0.3, -0.7, 1.1], np.float32))

    def f(v):
        return jnp.sum(jnp.exp(jnp.sin(v) * v) * v)

    for _ in range(3):                       # also once compiled
        with et.GradientTape() as tape:
            tape.watch(x)
            y = tnp.sin(x) * x
            assert float(tnp.sum(y)) == pytest.approx(float(np.sum(np.sin(x.numpy()) * x.numpy())),
                                                      rel=1e-6)
            assert introspect.recording(tape).graph is not None
            z = tnp.sum(tnp.exp(y) * x)
        assert introspect.recording(tape).refs is None       # spans two graphs
        g = tape.gradient(z, x)
        np.testing.assert_allclose(g.numpy(), jax.grad(f)(x.numpy()), rtol=1e-5)


def test_recorded_refs_serve_a_tape_on_one_graph(fused):
    v = et.Variable(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    for _ in range(3):
        with et.GradientTape() as tape:
            s = 2.0 * (v[0] * v[1] * v[2] + v[1] * v[2] * v[3])
        rec = introspect.recording(tape)
        assert rec.refs is not None and rec.graph is introspect.pending_graph()
        g = tape.gradient(s, v)
        ref = jax.grad(lambda a: 2.0 * (a[0] * a[1] * a[2] + a[1] * a[2] * a[3]))(v.numpy())
        np.testing.assert_allclose(g.numpy(), ref, rtol=1e-6)


def test_a_fused_assignment_through_an_alias_lands(fused):
    v = et.Variable([1.0, 2.0])
    alias = v.assign([3.0, 4.0])
    alias.assign_add(et.constant([1.0, 1.0]) * 2.0)
    np.testing.assert_allclose(v.numpy(), [5.0, 6.0])
    np.testing.assert_allclose(alias.numpy(), [5.0, 6.0])


def test_a_variable_with_a_pending_assignment_copies_and_pickles(fused):
    import copy
    import pickle
    v = et.Variable([1.0, 2.0])
    v.assign_add(tnp.ones(2, dtype="float32") * 3.0)
    assert introspect.is_pending(v)
    for w in (copy.deepcopy(v), copy.copy(v), pickle.loads(pickle.dumps(v))):
        np.testing.assert_allclose(w.numpy(), [4.0, 5.0])
    np.testing.assert_allclose(v.numpy(), [4.0, 5.0])


def test_tf_convolutions_and_pools_are_deferred_and_compiled(fused):
    # Their strides and sizes are the op's static part: were they values, the call
    # could not be traced, and each would run at once, op by op, uncompiled.
    import eagertape.tf as tf
    rng = np.random.RandomState(0)
    xv = rng.normal(size=(2, 8, 8, 3)).astype(np.float32)
    kv = rng.normal(size=(3, 3, 3, 4)).astype(np.float32)
    x, k = tf.constant(xv), tf.Variable(kv)
    for _ in range(2):   # a new structure compiles at its first or (structures churning) second sight
        with tf.GradientTape() as tape:
            y = tf.nn.conv2d(x, k, strides=[1, 2, 2, 1], padding="SAME")
            z = tf.nn.max_pool2d(tf.nn.relu(y), ksize=2, strides=np.int64(2), padding="VALID")
            loss = tf.reduce_sum(z ** 2)
        assert _pending(y) and _pending(z)
        g = tape.gradient(loss, k)
    assert _pending(g)                 # the compiled replay, a node of the same graph

    def f(kk):
        yy = jax.lax.conv_general_dilated(xv, kk, (2, 2), "SAME",
                                          dimension_numbers=("NHWC", "HWIO", "NHWC"))
        zz = jax.lax.reduce_window(jax.nn.relu(yy), -jnp.inf, jax.lax.max, (1, 2, 2, 1),
                                   (1, 2, 2, 1), "VALID")
        return jnp.sum(zz ** 2)
    np.testing.assert_allclose(g.numpy(), jax.grad(f)(kv), rtol=1e-4, atol=1e-4)


_TF_CALLS = {
    "rgb_to_yiq": lambda tf, x, m: tf.image.rgb_to_yiq(x),
    "ssim": lambda tf, x, m: tf.image.ssim(x, x * 0.9, 1.0, filter_size=5, filter_sigma=1.2),
    "ssim_multiscale": lambda tf, x, m: tf.image.ssim_multiscale(
        tf.image.resize(x, [48, 48]), tf.image.resize(x, [48, 48]) * 0.9, 1.0,
        power_factors=(0.5, 0.5), filter_size=3),
    "norm inf": lambda tf, x, m: tf.norm(m, ord=np.inf, axis=[0, 1]),
    "norm 1.5": lambda tf, x, m: tf.norm(m[0], ord=1.5),
    "avg_pool": lambda tf, x, m: tf.nn.avg_pool2d(x, 3, 2, "SAME"),
}


@pytest.mark.parametrize("name", sorted(_TF_CALLS))
def test_tf_ops_with_float_or_shape_parameters_are_deferred(name):
    # Their parameters are static, or values JAX can trace: each is deferred (one
    # node of the graph, compiled with it), and computes what it computes at once.
    import eagertape.tf as tf
    rng = np.random.RandomState(0)
    x = tf.constant(rng.uniform(size=(2, 16, 16, 3)).astype(np.float32))
    m = tf.constant(rng.normal(size=(4, 4)).astype(np.float32))
    now = _TF_CALLS[name](tf, x, m).numpy()
    with et.execution_mode("fused"):
        y = _TF_CALLS[name](tf, x, m)
        assert _pending(y)
    np.testing.assert_allclose(y.numpy(), now, rtol=1e-5, atol=1e-6)


def test_numpy_integer_shapes_and_axes_are_static_and_the_call_deferred(fused, caplog):
    # Shapes and axes computed with NumPy are parameters, as Python ints are: were
    # they values, JAX could not trace the call, which would run at once, uncompiled.
    import logging
    introspect.clear_caches("untraceable kinds")
    xv = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = et.Variable(xv)
    n = np.int64(2)
    with caplog.at_level(logging.DEBUG, logger="eagertape"):
        with et.GradientTape() as tape:
            y = tnp.reshape(x, (n, np.int32(12)))
            z = tnp.sum(y, axis=np.int64(0))
            w = tnp.reshape(z * 2.0, [np.int64(3), -1])
            loss = tnp.sum(w * w)
        assert _pending(y) and _pending(z) and _pending(w)
        g = tape.gradient(loss, x)
    assert introspect.cache_info()["untraceable kinds"]["size"] == 0
    assert "cannot be traced" not in caplog.text

    def f(a):
        return jnp.sum((jnp.sum(a.reshape(2, 12), axis=0) * 2.0) ** 2)
    np.testing.assert_allclose(g.numpy(), jax.grad(f)(xv), rtol=1e-6)
    # A tuple of NumPy integers taken as data keeps NumPy's dtype.
    assert tnp.asarray((np.int8(1), np.int8(2))).dtype == np.int8


def test_an_op_jax_cannot_trace_is_reported(caplog):
    # A boolean mask has a shape that depends on values: the call runs at once,
    # and says so once, at debug level, and in the caches' counters.
    import logging
    introspect.clear_caches("untraceable kinds", "call kinds")
    x = et.constant([1.0, -2.0, 3.0])
    with caplog.at_level(logging.DEBUG, logger="eagertape"):
        for _ in range(2):
            y = x[x > 0.0]
    np.testing.assert_array_equal(y.numpy(), [1.0, 3.0])
    assert introspect.cache_info()["untraceable kinds"]["size"] == 1
    assert caplog.text.count("cannot be traced by JAX") == 1
    assert "getitem" in caplog.text


def test_a_call_with_bad_shapes_does_not_stop_its_function_being_deferred():
    # A shape error in fused mode is raised at the call as in eager mode; the
    # function (matmul here) is still deferred for the next, good call.
    a, b = et.constant(np.ones((2, 3), np.float32)), et.constant(np.ones((4, 5), np.float32))
    c = et.constant(np.ones((3, 5), np.float32))
    with et.execution_mode("fused"):
        with pytest.raises((TypeError, ValueError)):
            tnp.matmul(a, b)
        y = tnp.matmul(a, c)
        assert _pending(y)
    np.testing.assert_array_equal(y.numpy(), np.full((2, 5), 3.0, np.float32))
