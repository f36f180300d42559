"""Handing Tensors and Variables to JAX (jnp, jit, vmap, grad, device_put, tree_util,
DLPack) and nests to and from jax.Arrays (eagertape.interop); every test runs in
both execution modes (conftest)."""
import collections
import doctest

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import eagertape as et
from eagertape import interop, introspect
from eagertape import numpy as tnp

X = np.array([0.5, 1.0, 2.0], np.float32)


def _is_jax_array(a):
    return isinstance(a, jax.Array) and not isinstance(a, et.Tensor)


def _computed(values=X):
    # In fused mode an op's result is pending until something needs its value:
    # JAX must get it computed.
    t = et.constant(values) * 1
    if et.get_execution_mode() == "fused":
        assert introspect.is_pending(t)
    return t


def test_the_interop_docstrings_run():
    assert doctest.testmod(interop).failed == 0


def test_jax_numpy_takes_a_tensor():
    t = _computed()
    a = jnp.asarray(t)
    assert _is_jax_array(a) and a.dtype == np.float32
    np.testing.assert_array_equal(a, X)
    assert a is t.jax()                               # the Tensor's own array: no copy
    np.testing.assert_allclose(jnp.sin(t), np.sin(X), rtol=1e-6)
    np.testing.assert_allclose(jnp.dot(t, t), X @ X, rtol=1e-6)
    np.testing.assert_allclose(jnp.stack([t, t]).sum(0), 2 * X)
    np.testing.assert_allclose(jax.nn.softmax(t), np.exp(X) / np.exp(X).sum(), rtol=1e-6)
    np.testing.assert_allclose(jnp.ones(3) + t, 1 + X)
    i = et.constant([3, 4, 5])
    assert jnp.asarray(i).dtype == np.int32
    np.testing.assert_array_equal(jnp.cumsum(i), [3, 7, 12])


def test_jit_passes_a_tensor_of_a_tracer_and_rebuilds_tensors():
    seen = []

    def f(a, b):
        seen.append(type(a))
        return {"raw": jnp.sin(a) * b, "tensor": tnp.cos(a) + b}

    t = _computed()
    out = jax.jit(f)(t, 2.0)
    assert seen == [et.Tensor]                        # traced once, given a Tensor
    assert _is_jax_array(out["raw"]) and type(out["tensor"]) is et.Tensor
    np.testing.assert_allclose(out["raw"], np.sin(X) * 2, rtol=1e-6)
    np.testing.assert_allclose(out["tensor"].numpy(), np.cos(X) + 2, rtol=1e-6)
    # A second call with another Tensor of the same shape runs the same program.
    out2 = jax.jit(f)(et.constant(2 * X), 1.0)
    np.testing.assert_allclose(out2["raw"], np.sin(2 * X), rtol=1e-6)


def test_vmap_and_grad_take_tensors():
    t = et.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
    rows = jax.vmap(lambda r: jnp.sum(r ** 2))(t)
    np.testing.assert_allclose(rows, [1, 13, 41])
    # eagertape's ops inside vmap run on the batch tracer
    out = jax.vmap(lambda r: tnp.sum(r * r) + 1.0)(t)
    assert type(out) is et.Tensor
    np.testing.assert_allclose(out.numpy(), [2, 14, 42])
    cols = jax.vmap(lambda c: c[0] - c[2], in_axes=1)(t)
    np.testing.assert_allclose(cols, [-4, -4])
    nested = jax.vmap(lambda d: d["a"] * d["b"], in_axes=({"a": 0, "b": None},))(
        {"a": t, "b": et.constant(3.0)})
    np.testing.assert_allclose(nested, 3 * np.arange(6).reshape(3, 2))
    g = jax.grad(lambda a: jnp.sum(jnp.sin(a)))(_computed())
    assert type(g) is et.Tensor                      # the argument's structure
    np.testing.assert_allclose(g.numpy(), np.cos(X), rtol=1e-6)


def test_device_put_and_tree_util():
    t = _computed()
    dev = jax.devices()[0]
    moved = jax.device_put(t, dev)
    assert type(moved) is et.Tensor and moved.jax().devices() == {dev}
    np.testing.assert_array_equal(moved.numpy(), X)
    assert jax.block_until_ready(t) is not None
    nest = {"a": t, "b": [None, et.constant(2)], "c": (1.5, "name")}
    leaves = jax.tree_util.tree_leaves(nest)
    assert [type(x).__name__ for x in leaves] == ["ArrayImpl", "ArrayImpl", "float", "str"]
    doubled = jax.tree_util.tree_map(lambda x: x * 2, nest)
    assert type(doubled["a"]) is et.Tensor and doubled["b"][0] is None
    np.testing.assert_array_equal(doubled["a"].numpy(), 2 * X)
    assert int(doubled["b"][1]) == 4 and doubled["c"] == (3.0, "namename")
    # Whole Tensors with is_leaf (as eagertape's own code flattens)
    whole = jax.tree_util.tree_leaves(nest, is_leaf=lambda x: isinstance(x, et.Tensor))
    assert whole[0] is t and whole[1] is nest["b"][1]
    assert jax.tree_util.tree_structure(t).num_leaves == 1


def test_a_tensor_in_a_jitted_function_through_a_gradient():
    # A Tensor handed to a raw JAX function whose result is a Tensor again, then
    # differentiated by a tape as a new source.
    h = jax.jit(lambda a: a * 3.0)(_computed())
    with et.GradientTape() as tape:
        tape.watch(h)
        y = tnp.sum(h * h)
    np.testing.assert_allclose(tape.gradient(y, h).numpy(), 6 * X, rtol=1e-6)


def test_a_variable_gives_jax_its_current_value():
    v = et.Variable([1.0, 2.0])
    v.assign([3.0, 4.0])
    np.testing.assert_array_equal(jnp.asarray(v), [3.0, 4.0])
    out = jax.jit(lambda a: a * 2.0)(v)
    assert type(out) is et.Tensor
    np.testing.assert_array_equal(out.numpy(), [6.0, 8.0])
    moved = jax.device_put(v)
    assert type(moved) is et.Tensor and isinstance(v, et.Variable)
    v.assign_add([1.0, 1.0])                         # the copy JAX got does not move
    np.testing.assert_array_equal(moved.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(jnp.asarray(v), [4.0, 5.0])
    alias = v.assign([0.0, 1.0])                     # an alias reads the same storage
    np.testing.assert_array_equal(jax.jit(lambda a: a + 0.0)(alias).numpy(), [0.0, 1.0])
    np.testing.assert_array_equal(jnp.from_dlpack(v), [0.0, 1.0])


# NumPy takes DLPack buffers in host memory only: on an accelerator its consumer
# refuses the device's buffer (BufferError), as it would JAX's own array.
_HOST = jax.default_backend() == "cpu"


def test_dlpack_round_trips():
    t = _computed()
    assert t.__dlpack_device__() == t.jax().__dlpack_device__()
    b = jnp.from_dlpack(t)
    assert _is_jax_array(b)
    np.testing.assert_array_equal(b, X)
    if not _HOST:
        with pytest.raises(BufferError):
            np.from_dlpack(t.jax())          # JAX's own array: the same refusal
        return
    a = np.from_dlpack(t)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, X)
    # The buffer as it is: 64-bit stays 64-bit (the consumer has no 32-bit mode)
    d = et.constant(np.array([1.0, 2.5]))
    assert d.dtype == np.float64 and np.from_dlpack(d).dtype == np.float64
    np.testing.assert_array_equal(np.from_dlpack(d), [1.0, 2.5])
    i = et.constant(np.array([7, 8], np.int32))
    np.testing.assert_array_equal(np.from_dlpack(i), [7, 8])


def test_dlpack_to_torch():
    torch = pytest.importorskip("torch")
    t = _computed()
    np.testing.assert_array_equal(torch.from_dlpack(t).cpu().numpy(), X)


def test_64_bit_tensors_enter_jax_as_numpy_arrays_would():
    d = et.constant(np.array([1.0, 2.0]))
    i = et.constant(np.array([1, 2], np.int64))
    assert d.dtype == np.float64 and i.dtype == np.int64
    if jax.config.jax_enable_x64:
        pytest.skip("this process runs JAX in 64-bit mode (JAX_ENABLE_X64)")
    # JAX's 32-bit default: as jnp.asarray(np.float64 array)
    assert jnp.asarray(np.array([1.0])).dtype == np.float32
    assert jnp.asarray(d).dtype == np.float32 and jnp.asarray(i).dtype == np.int32
    assert jax.jit(lambda a: a)(d).dtype == np.float32
    assert et.to_jax({"d": d})["d"].dtype == np.float32
    np.testing.assert_array_equal(jnp.asarray(d), [1.0, 2.0])
    assert d.dtype == np.float64                       # the Tensor itself is unchanged
    enable_x64 = getattr(jax, "enable_x64", None)
    if enable_x64 is None:                             # older JAX
        from jax.experimental import enable_x64
    with enable_x64(True):
        assert jnp.asarray(d).dtype == np.float64 and jnp.asarray(i).dtype == np.int64
        assert jax.jit(lambda a: a + 1)(d).dtype == np.float64
        assert et.to_jax(i).dtype == np.int64


Point = collections.namedtuple("Point", "x y")


def test_to_jax_and_from_jax_on_nests():
    t = _computed()
    v = et.Variable([[1.0, 2.0]])
    nest = {"layer": [t, (v, None)], "p": Point(et.constant(3), 2.5), "name": "mlp", "none": None}
    arrays = et.to_jax(nest)
    assert set(arrays) == {"layer", "p", "name", "none"}
    assert _is_jax_array(arrays["layer"][0]) and arrays["layer"][0] is t.jax()
    assert _is_jax_array(arrays["layer"][1][0]) and arrays["layer"][1][1] is None
    np.testing.assert_array_equal(arrays["layer"][1][0], [[1.0, 2.0]])
    assert type(arrays["p"]) is Point and arrays["p"].y == 2.5 and int(arrays["p"].x) == 3
    assert arrays["name"] == "mlp" and arrays["none"] is None

    back = et.from_jax(arrays)
    assert type(back["layer"][0]) is et.Tensor and back["layer"][0].jax() is t.jax()
    assert type(back["layer"][1][0]) is et.Tensor and back["layer"][1][1] is None
    assert type(back["p"]) is Point and type(back["p"].x) is et.Tensor and back["p"].y == 2.5
    np.testing.assert_array_equal(back["layer"][1][0].numpy(), [[1.0, 2.0]])
    assert back["name"] == "mlp"
    # Tensors and Variables already there stay as they are; NumPy stays NumPy
    same = et.from_jax([t, v, np.ones(2)])
    assert same[0] is t and same[1] is v and type(same[2]) is np.ndarray
    assert et.to_jax([np.ones(2), 3])[1] == 3 and et.to_jax(None) is None
    assert _is_jax_array(et.to_jax(t)) and type(et.from_jax(jnp.ones(2))) is et.Tensor


def test_from_jax_inside_jit_wraps_tracers_for_eagertape_ops():
    def f(params, x):
        p = et.from_jax(params)
        return et.to_jax(tnp.tanh(x * p["w"] + p["b"]))

    params = {"w": jnp.array([2.0, 3.0]), "b": jnp.array(0.5)}
    out = jax.jit(f)(params, jnp.array([1.0, -1.0]))
    assert _is_jax_array(out)
    np.testing.assert_allclose(out, np.tanh(np.array([2.0, -3.0]) + 0.5), rtol=1e-6)


_RAW_USES = {
    "jnp.asarray": jnp.asarray,
    "jnp.sin": jnp.sin,
    "jax+tensor": lambda t: jnp.ones(3) + t,
    "jax.jit": lambda t: jax.jit(lambda a: a * 2)(t),
    "jax.vmap": lambda t: jax.vmap(jnp.sin)(t),
    "jax.grad": lambda t: jax.grad(lambda a: jnp.sum(a))(t),
    "jax.device_put": jax.device_put,
    "tree_map": lambda t: jax.tree_util.tree_map(lambda a: a, [t]),
    "to_jax": lambda t: et.to_jax({"t": t}),
    "dlpack": lambda t: jnp.from_dlpack(t),
    "np.from_dlpack": np.from_dlpack,
}


@pytest.mark.parametrize("use", sorted(_RAW_USES))
def test_a_tracked_tensor_given_to_raw_jax_is_refused_and_the_tape_still_works(use):
    x = _computed()
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with pytest.raises(TypeError, match="recording GradientTape.*use eagertape.numpy"):
            _RAW_USES[use](x)
        with pytest.raises(TypeError, match="stop_gradient"):
            _RAW_USES[use](y)                      # computed from a watched Tensor
        z = tnp.sum(y)
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), 2 * X, rtol=1e-6)
    assert introspect.thread_state().tapes == []
    if use != "np.from_dlpack" or _HOST:
        _RAW_USES[use](x)                          # the tape is gone: JAX takes it


@pytest.mark.parametrize("use", ["jnp.asarray", "jax.jit", "to_jax", "tree_map", "dlpack"])
def test_a_watched_variable_given_to_raw_jax_is_refused(use):
    v = et.Variable(X)
    with et.GradientTape() as tape:
        with pytest.raises(TypeError, match="a Variable that a recording GradientTape"):
            _RAW_USES[use](v)
        y = tnp.sum(v * v)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), 2 * X, rtol=1e-6)
    # Not trainable, and not watched: nothing to lose, JAX takes it
    c = et.Variable(X, trainable=False)
    with et.GradientTape():
        np.testing.assert_array_equal(np.asarray(et.to_jax(c)), X)


def test_the_ways_to_take_values_off_the_tape_on_purpose():
    x = _computed()
    v = et.Variable(2.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        loss = tnp.sum(x * v)
        logged = et.to_jax(et.stop_gradient({"x": x, "v": v, "loss": loss}))
        with tape.stop_recording():
            mean = jnp.mean(jax.jit(lambda a: a * 2)(x))
        raw = jnp.sum(x.jax())
    np.testing.assert_allclose(logged["x"], X)
    assert float(logged["v"]) == 2.0 and float(logged["loss"]) == pytest.approx(2 * X.sum())
    assert float(mean) == pytest.approx(2 * X.mean()) and float(raw) == pytest.approx(X.sum())
    grads = tape.gradient(loss, [x, v])
    np.testing.assert_allclose(grads[0].numpy(), [2.0] * 3)
    assert float(grads[1]) == pytest.approx(X.sum())


def test_a_forward_accumulator_tracks_too():
    x = et.constant(X)
    with et.ForwardAccumulator(x, et.constant(np.ones(3, np.float32))) as acc:
        y = x * 3.0
        with pytest.raises(TypeError, match="ForwardAccumulator"):
            jnp.asarray(y)
    np.testing.assert_allclose(acc.jvp(y).numpy(), [3.0] * 3)


def test_raw_jax_inside_eagertape_function_is_part_of_the_traced_gradient():
    f = et.function(lambda a: jnp.sum(jnp.sin(a)) + tnp.sum(a * a))
    x = _computed()
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert float(y) == pytest.approx(float(np.sum(np.sin(X)) + np.sum(X * X)), rel=1e-6)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.cos(X) + 2 * X, rtol=1e-6)
