"""GradientTape.jacobian and batch_jacobian: against jax.jacrev / jax.jacfwd /
jax.hessian, the TF facts of sections R and S, and the replay cache."""
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

NOT_ONE_SET = "A non-persistent GradientTape can only be used to compute one set of gradients"


def _tape_jacobians(f, values, **kw):
    xs = [et.Tensor(v) for v in values]
    with et.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    return [np.asarray(j) for j in tape.jacobian(y, xs, unconnected_gradients="zero", **kw)]


def _pure(f):
    return lambda *vs: f(*[et.Tensor(v) for v in vs]).jax()


_REAL_CASES = [p for p in CASES if not any(np.iscomplexobj(a) for a in p.values[2])]


# The whole table through the vmapped compiled replay; every 6th case also
# through the row-by-row per-op replay (custom_gradient and untraceable tapes).
@pytest.mark.parametrize("op,f,args,mode", [
    pytest.param(*p.values, "compiled", id=p.id) for p in _REAL_CASES] + [
    pytest.param(*p.values, "per_op", id=p.id + "-rows") for p in _REAL_CASES[::6]])
def test_op_table_jacobian_matches_jacrev(op, f, args, mode):
    values = [jnp.asarray(np.asarray(a, np.float64)) for a in args]
    with introspect.replay_policy(mode):
        got = _tape_jacobians(f, values)
    want = jax.jacrev(_pure(f), argnums=tuple(range(len(values))))(*values)
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-10, err_msg=f"{op}: argument {k}")


def test_the_table_is_used():
    assert len(_REAL_CASES) >= 80


# -- sections R and S, with the values of the reference ---------------------------

@pytest.mark.parametrize("yshape,xshape,want", [
    ((3,), (2, 3), (3, 2, 3)), ((3,), (), (3,)), ((), (2, 3), (2, 3)), ((), (), ())])
def test_fact_114_jacobian_shape(yshape, xshape, want):
    x = et.constant(np.ones(xshape, np.float32))
    with et.GradientTape() as tape:
        tape.watch(x)
        y = tnp.broadcast_to(tnp.sum(x * x), yshape)
    assert tape.jacobian(y, x).shape == want


def test_fact_114_scalar_value_and_nested_sources():
    x = et.constant(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.jacobian(y, x)) == 6.0
    a, b = et.constant([1.0, 2.0]), et.constant(2.0)
    with et.GradientTape() as tape:
        tape.watch([a, b])
        y = a * a * b
    out = tape.jacobian(y, {"a": a, "pair": (b,)})
    assert set(out) == {"a", "pair"} and isinstance(out["pair"], tuple)
    np.testing.assert_allclose(out["a"], [[4.0, 0.0], [0.0, 8.0]])
    np.testing.assert_allclose(out["pair"][0], [1.0, 4.0])


def test_fact_115_values():
    x = et.constant([1.0, 2.0])
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(tape.jacobian(y, x), [[2.0, 0.0], [0.0, 4.0]])
    np.testing.assert_array_equal(tape.jacobian(x, x), np.eye(2))


@pytest.mark.parametrize("bad", [[et.constant(1.0)], None, 3.0])
def test_fact_116_target_must_be_one_tensor(bad):
    x = et.constant(1.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(AttributeError, match="object has no attribute 'shape'.*`target`"):
        tape.jacobian(bad, x)
    np.testing.assert_allclose(tape.jacobian(y, x), 2.0)    # the error did not use the tape


def test_fact_117_unconnected_and_int_target():
    x, u = et.constant([1.0, 2.0]), et.constant([1.0, 2.0, 3.0])
    n = et.constant([1, 2], dtype="int32")
    with et.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * 2.0
        k = tnp.round(x).astype("int32")
    assert tape.jacobian(y, u) is None
    z = tape.jacobian(y, [u, n], unconnected_gradients="zero")
    assert z[0].shape == (2, 3) and z[0].dtype == np.float32 and not np.any(z[0].numpy())
    assert z[1].shape == (2, 2) and z[1].dtype == np.int32
    assert tape.jacobian(k, x) is None


def test_fact_118_variable_source():
    v = et.Variable([1.0, 2.0, 3.0])
    with et.GradientTape() as tape:
        y = v[:2] * 2
    np.testing.assert_array_equal(tape.jacobian(y, v), [[2, 0, 0], [0, 2, 0]])


def test_fact_119_no_pfor_needs_persistent():
    x = et.constant([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    msg = ("GradientTape must be created with persistent=True to compute the jacobian with "
           "eager execution enabled and with  experimental_use_pfor set to False.")
    with pytest.raises(RuntimeError) as e:
        tape.jacobian(y, x, experimental_use_pfor=False)
    assert str(e.value) == msg
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(tape.jacobian(y, x, experimental_use_pfor=False),
                                  [[2, 0], [0, 4]])


def test_fact_120_parallel_iterations_does_not_change_the_result():
    # TF fails for a non-persistent tape and parallel_iterations < target size;
    # eagertape computes it (README: differences from TF).
    x = et.constant([1.0, 2.0, 3.0])
    for persistent in (False, True):
        with et.GradientTape(persistent=persistent) as tape:
            tape.watch(x)
            y = x * x
        np.testing.assert_array_equal(tape.jacobian(y, x, parallel_iterations=2),
                                      np.diag([2.0, 4.0, 6.0]))
    with pytest.raises(ValueError, match="`parallel_iterations`"):
        tape.jacobian(y, x, parallel_iterations=0)


def test_fact_122_batch_jacobian_shapes_and_values():
    x = et.constant(np.ones((4, 3), np.float32))
    with et.GradientTape() as tape:
        tape.watch(x)
        y = tnp.reshape(tnp.sum(x, axis=1), (4, 1, 1)) * tnp.ones((4, 5, 1), dtype="float32")
    assert tape.batch_jacobian(y, x).shape == (4, 5, 1, 3)
    x = et.constant([[1.0, 2.0], [3.0, 4.0]])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(tape.batch_jacobian(y, x),
                                  [[[2, 0], [0, 4]], [[6, 0], [0, 8]]])
    x = et.constant(np.zeros((1, 0), np.float32))
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.batch_jacobian(y, x).shape == (1, 0, 0)


@pytest.mark.parametrize("yshape,xshape,msg", [
    ((2,), (2, 3), r"Shape \(2,\) must have rank at least 2"),
    ((2, 3), (2,), r"Shape \(2,\) must have rank at least 2"),
    ((4, 3), (2, 3), r"Need first dimension of target shape \(\(4, 3\)\) and source shape "
                     r"\(\(2, 3\)\) to match\.")])
def test_fact_123_batch_jacobian_bad_shapes(yshape, xshape, msg):
    x = et.constant(np.ones(xshape, np.float32))
    with et.GradientTape() as tape:
        tape.watch(x)
        y = tnp.ones(yshape, dtype="float32") * tnp.sum(x)
    with pytest.raises(ValueError, match=msg):
        tape.batch_jacobian(y, x)


def test_fact_124_batch_jacobian_unconnected_is_zeros_of_target_dtype():
    x = et.constant(np.ones((2, 3), np.float64))
    u = et.constant(np.ones((2, 4), np.float32))
    with et.GradientTape() as tape:
        tape.watch([x, u])
        y = x * 2.0
    z = tape.batch_jacobian(y, u)
    assert z.shape == (2, 3, 4) and z.dtype == np.float64 and not np.any(z.numpy())


def test_fact_125_batch_jacobian_source_must_be_one_tensor():
    x = et.constant(np.ones((2, 3), np.float32))
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(AttributeError, match="'list' object has no attribute 'shape'"):
        tape.batch_jacobian(y, [x])


def test_fact_126_row_independence_is_not_checked():
    x = et.constant([[1.0, 2.0], [3.0, 4.0]])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * tnp.sum(x)
    assert tape.batch_jacobian(y, x).shape == (2, 2, 2)


def test_fact_127_batch_jacobian_persistent_only_options():
    x = et.constant(np.ones((2, 3), np.float32))
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(RuntimeError) as e:
        tape.batch_jacobian(y, x, experimental_use_pfor=False)
    assert str(e.value) == (
        "GradientTape must be created with persistent=True to compute the batch_jacobian with "
        "eager execution enabled and  with experimental_use_pfor set to False.")
    with pytest.raises(RuntimeError, match="persistent=True.*parallel_iterations"):
        tape.batch_jacobian(y, x, parallel_iterations=2)
    want = np.broadcast_to(np.eye(3) * 2, (2, 3, 3))
    np.testing.assert_array_equal(tape.batch_jacobian(y, x), want)   # not used up
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    for kw in ({"experimental_use_pfor": False}, {"parallel_iterations": 1}):
        np.testing.assert_array_equal(tape.batch_jacobian(y, x, **kw), want)


def test_jacobian_then_gradient_share_the_budget_and_stop_recording():
    x = et.constant([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        j = tape.jacobian(y, x)
        assert tape not in introspect.thread_state().tapes   # used up: it stops recording (fact 11)
        _ = j * 2
    with pytest.raises(RuntimeError, match=NOT_ONE_SET):
        tape.gradient(y, x)
    with pytest.raises(RuntimeError, match=NOT_ONE_SET):
        tape.batch_jacobian(y, x)


# -- higher order -------------------------------------------------------------------

def _f3(x):
    return tnp.sin(x) * tnp.sum(x ** 3) + tnp.tanh(x[::-1])


def test_hessian_by_jacobian_of_gradient_matches_jax_hessian(replay):
    xv = np.array([0.3, -0.7, 1.1])
    x = et.constant(xv)
    with et.GradientTape() as outer:
        outer.watch(x)
        with et.GradientTape() as inner:
            inner.watch(x)
            y = tnp.sum(_f3(x))
        g = inner.gradient(y, x)
    h = outer.jacobian(g, x)
    want = jax.hessian(lambda v: jnp.sum(_pure(_f3)(v)))(jnp.asarray(xv))
    np.testing.assert_allclose(h, want, rtol=1e-12)


def test_jacobian_inside_persistent_context_is_differentiable(replay):
    # fact 11: d/dx of jacobian(x*x) is [2, 2]; and a third order through jacobian
    x = et.constant([1.0, 2.0])
    with et.GradientTape() as outer:
        outer.watch(x)
        with et.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x * x
            j = tape.jacobian(y, x)          # diag(3x^2)
    np.testing.assert_allclose(j, np.diag([3.0, 12.0]))
    np.testing.assert_allclose(outer.gradient(j, x), [6.0, 12.0])


def test_jacobian_of_jacobian_matches_jacfwd_of_jacrev(replay):
    xv = np.array([0.5, -1.2])
    x = et.constant(xv)
    with et.GradientTape() as outer:
        outer.watch(x)
        with et.GradientTape() as inner:
            inner.watch(x)
            y = _f3(x)
        j = inner.jacobian(y, x)
    jj = outer.jacobian(j, x)
    want = jax.jacfwd(jax.jacrev(_pure(_f3)))(jnp.asarray(xv))
    assert jj.shape == (2, 2, 2)
    np.testing.assert_allclose(jj, want, rtol=1e-12)


def test_jacobian_through_custom_gradient_replays_rows():
    @et.custom_gradient
    def scaled(x):
        return x * 2.0, lambda up: up * 3.0      # a deliberately different gradient

    x = et.constant([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = scaled(x) * x
    # d/dx [s(x) * x] = diag(3 * x + 2 * x) with the custom rule for s
    np.testing.assert_allclose(tape.jacobian(y, x), np.diag([5.0, 10.0]))


def test_row_replay_with_zero_rows_and_two_sources():
    @et.custom_gradient
    def scaled(x):
        return x * 2.0, lambda up: up * 2.0

    x = et.constant([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = tnp.stack([tnp.sum(scaled(x)), tnp.sum(x) * 0.0 + 1.0])
    # row 0: the custom rule (2 per element); row 1 reaches x only through a product with 0
    np.testing.assert_allclose(tape.jacobian(y, x), [[2.0, 2.0], [0.0, 0.0]])
    x = et.constant([1.0, 2.0])
    c = et.constant(3.0)
    with et.GradientTape() as tape:
        tape.watch([x, c])
        y = tnp.stack([tnp.sum(scaled(x)), c])          # row 1: only c
    jx, jc = tape.jacobian(y, [x, c])
    np.testing.assert_allclose(jx, [[2.0, 2.0], [0.0, 0.0]])
    np.testing.assert_allclose(jc, [0.0, 1.0])


@settings(max_examples=10, deadline=None)
@given(b=st.integers(1, 3), n=st.integers(1, 4), m=st.integers(1, 3), seed=st.integers(0, 99))
def test_batch_jacobian_matches_vmapped_jacrev(b, n, m, seed):
    rng = np.random.default_rng(seed)
    xv, w = rng.normal(size=(b, n)), rng.normal(size=(n, m))

    def f(x):
        return tnp.tanh(x @ w) * tnp.sum(x ** 2, axis=1, keepdims=True)

    x = et.constant(xv)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    want = jax.vmap(jax.jacrev(lambda r: _pure(f)(r[None])[0]))(jnp.asarray(xv))
    np.testing.assert_allclose(tape.batch_jacobian(y, x), want, rtol=1e-10, atol=1e-12)


@settings(max_examples=10, deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=0, max_size=3), seed=st.integers(0, 99))
def test_jacobian_matches_jacrev_for_random_shapes(shape, seed):
    xv = np.random.default_rng(seed).normal(size=shape)

    def f(x, c):
        return tnp.exp(tnp.sin(x) * c) + tnp.sum(x * x) * c

    x, c = et.constant(xv), et.constant(np.array(0.7))
    with et.GradientTape() as tape:
        tape.watch([x, c])
        y = f(x, c)
    jx, jc = tape.jacobian(y, [x, c])
    wx, wc = jax.jacrev(_pure(f), argnums=(0, 1))(jnp.asarray(xv), jnp.asarray(0.7))
    np.testing.assert_allclose(jx, wx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(jc, wc, rtol=1e-10, atol=1e-12)


# -- compiled and cached ---------------------------------------------------------------

def _jac64_step(x):
    with et.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(tnp.tanh(tnp.outer(x, x)), axis=0)
    return tape.jacobian(y, x)


@pytest.mark.eager       # counts the eager replay's compilations
def test_second_jacobian_of_the_same_structure_compiles_nothing():
    et.clear_replay_cache()
    x = et.constant(np.linspace(-1, 1, 64).astype(np.float32))
    first = _jac64_step(x)
    info = et.replay_cache_info()
    assert (info.misses, info.executables) == (1, 1)
    for _ in range(3):
        again = _jac64_step(et.constant(np.linspace(-1, 1, 64).astype(np.float32)))
    info = et.replay_cache_info()
    assert (info.misses, info.hits, info.executables) == (1, 3, 1)
    np.testing.assert_array_equal(first, again)
    want = jax.jacrev(lambda v: jnp.sum(jnp.tanh(jnp.outer(v, v)), axis=0))(x.jax())
    np.testing.assert_allclose(first, want, rtol=1e-5, atol=1e-5)


def test_batch_jacobian_unconnected_zeros_take_tfs_dtype():
    # TF 2.21: with "zero" the gradient's zeros (the source's dtype); with "none",
    # finding no gradient, zeros of the target's dtype.
    x = et.constant([[1.0, 2.0]])
    s = et.constant([[1.0, 2.0]], dtype="float64")
    for unconnected, dtype in (("none", np.float32), ("zero", np.float64)):
        with et.GradientTape() as tape:
            tape.watch(s)
            y = x * 2.0
        j = tape.batch_jacobian(y, s, unconnected_gradients=unconnected)
        assert j.dtype == dtype and j.shape == (1, 2, 2) and not np.any(j.numpy())
