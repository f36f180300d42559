"""Tensor/Variable API, threads, the replay cache, raw jax.numpy refusal, deep tapes."""
import os
import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import eagertape as et
from eagertape import introspect, nn
from eagertape import numpy as tnp

# Oracles (jax.grad, jax.vjp, jax.jvp) compute in float64: JAX's 64-bit mode, as a
# user with JAX_ENABLE_X64=1 runs it.
pytestmark = pytest.mark.jax_x64


def test_issue_example(replay):
    x = et.Variable([1.0, 2.0, 3.0, 4.0])
    c = et.constant(3.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(c)
        y = tnp.sum(x * x) * c
        z = y * y
    dz_dx, dz_dc = tape.gradient(z, [x, c])
    dy_dx = tape.gradient(y, x)
    xv = np.array([1.0, 2.0, 3.0, 4.0])
    yv = 3.0 * np.sum(xv * xv)
    np.testing.assert_allclose(dz_dx.numpy(), 2 * yv * 3.0 * 2 * xv)
    np.testing.assert_allclose(dz_dc.numpy(), 2 * yv * np.sum(xv * xv))
    np.testing.assert_allclose(dy_dx.numpy(), 6.0 * xv)


def test_tensor_api():
    t = et.constant([1.0, 2.0])
    assert repr(t) == "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert t.shape == (2,) and t.dtype == np.float32 and t.ndim == 1 and t.size == 2 and len(t) == 2
    assert isinstance(t.numpy(), np.ndarray) and isinstance(t.jax(), jax.Array)
    assert type(t[0].numpy()) is np.float32     # a scalar: a NumPy scalar, as TF's
    a, b = t
    assert float(a) == 1.0 and float(b) == 2.0 and int(b) == 2 and bool(b)
    np.testing.assert_array_equal(np.asarray(t), [1.0, 2.0])
    assert float(sum([t[0], t[1], t[1]])) == 5.0
    assert (t @ t).numpy() == 5.0 and (2 ** t).numpy().tolist() == [2.0, 4.0]
    assert (-t).numpy().tolist() == [-1.0, -2.0] and abs(-t).numpy().tolist() == [1.0, 2.0]
    assert (t > 1).numpy().tolist() == [False, True] and (t == 1).dtype == np.bool_
    m = et.constant([[1.0, 2.0], [3.0, 4.0]])
    assert m.T.numpy().tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert m.reshape(4).shape == (4,) and m.reshape(1, 4).shape == (1, 4)
    assert m.sum().numpy() == 10.0 and m.mean(axis=0).numpy().tolist() == [2.0, 3.0]
    assert m.max().numpy() == 4.0 and m.astype("int32").dtype == np.int32
    assert m[et.constant([1, 0])].numpy().tolist() == [[3.0, 4.0], [1.0, 2.0]]
    assert m[:, 1].numpy().tolist() == [2.0, 4.0] and m[m > 2].numpy().tolist() == [3.0, 4.0]
    assert (np.float32(2) * t).numpy().tolist() == [2.0, 4.0]   # NumPy defers to us
    assert isinstance(np.float32(2) * t, et.Tensor)
    assert f"{t[0]:.2f}" == "1.00"
    with pytest.raises(TypeError, match="unhashable"):
        {t: 1}
    assert {t.ref(): 1}[t.ref()] == 1


def test_constant_dtypes_follow_tensorflow():
    assert et.constant(1.0).dtype == np.float32
    assert et.constant(1).dtype == np.int32
    assert et.constant([1.0, 2.0]).dtype == np.float32
    assert et.constant(True).dtype == np.bool_
    assert et.constant(1 + 2j).dtype == np.complex128
    assert et.constant(np.arange(3.0)).dtype == np.float64          # NumPy dtypes are kept
    assert et.constant(1.0, dtype="float64").dtype == np.float64
    assert et.constant(1.0, dtype=jnp.bfloat16).dtype == jnp.bfloat16
    arr = jnp.ones(3)
    t = et.constant(arr)
    assert t.jax() is arr                                          # no copy
    assert et.convert_to_tensor(t) is t


def test_signed_zero_operands_keep_their_sign():
    # Python floats become cached device scalars; 0.0 and -0.0 are equal dict keys,
    # so one must never be handed out for the other.
    x = et.constant(np.float32(2.0))
    assert float(1 / (x * 0.0)) == np.inf
    assert float(1 / (x * -0.0)) == -np.inf
    assert float(1 / (x + -0.0 * x)) == 0.5
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * -0.0
    assert float(1 / tape.gradient(y, x)) == -np.inf


def test_variable_api_and_failed_assign_leaves_it_unchanged():
    v = et.Variable([1.0, 2.0], name="w")
    assert v.name == "w:0" and v.trainable and v.dtype == np.float32 and v.shape == (2,)
    assert v.assign([3.0, 4.0]).numpy().tolist() == [3.0, 4.0]
    assert v.assign_add([1.0, 1.0]).numpy().tolist() == [4.0, 5.0]
    assert v.assign_sub(et.constant([4.0, 5.0])).numpy().tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match=r"argument `value` has shape \(3,\)"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="argument `delta` has dtype float64"):
        v.assign_add(et.constant([1.0, 1.0], dtype="float64"))
    with pytest.raises(TypeError, match="argument `value`"):
        v.assign("abc")
    assert v.numpy().tolist() == [0.0, 0.0]
    assert et.Variable(3).dtype == np.int32
    assert not et.Variable(1.0, trainable=False).trainable
    assert repr(et.Variable(1.0)) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"


def test_all_jax_numpy_callables_are_wrapped():
    import types
    for mod, ours in [(jnp, tnp), (jnp.linalg, tnp.linalg), (jnp.fft, tnp.fft), (jax.nn, nn)]:
        for name in dir(mod):
            obj = getattr(mod, name)
            if name.startswith("_") or isinstance(obj, types.ModuleType):
                continue
            assert hasattr(ours, name), f"{mod.__name__}.{name} is missing"
    x = et.constant([[1.0, 2.0], [3.0, 4.0]])
    assert isinstance(tnp.stack([x, x]), et.Tensor) and tnp.shape(x) == (2, 2)
    assert isinstance(tnp.einsum("ij,jk->ik", x, x), et.Tensor)
    assert tnp.argmax(x).dtype.kind == "i" and nn.one_hot(et.constant([0, 1]), 2).shape == (2, 2)
    assert tnp.float32 is jnp.float32 and tnp.pi == np.pi


def test_stack_concatenate_einsum_are_differentiated(replay):
    x = et.constant([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(tnp.stack([x, 2 * x]) ** 2) + tnp.einsum("i,i->", x, x) + tnp.sum(tnp.concatenate([x, x]))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2 * 1 + 8 * 1 + 2 + 2, 4 + 16 + 4 + 2])


def test_raw_jax_numpy_on_a_tracked_tensor_is_refused():
    x = et.constant([1.0, 2.0])
    assert isinstance(jnp.asarray(x), jax.Array)          # fine while nothing records
    with et.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(TypeError, match="use eagertape.numpy"):
            jnp.asarray(x)
        v = et.Variable(1.0)
        with pytest.raises(TypeError, match="use eagertape.numpy"):
            jnp.asarray(v)
    # Outside a tape JAX takes it (a pytree node; tests/test_interop.py has the rest).
    np.testing.assert_allclose(jnp.sin(x), np.sin([1.0, 2.0]), rtol=1e-6)


def test_numpy_leaves_the_tape_like_tensorflow(replay):
    x = et.constant([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = tnp.mean(et.constant(np.asarray(x) ** 2))
    assert tape.gradient(y, x) is None


def test_threads_have_their_own_tapes():
    results, errors = {}, []
    barrier = threading.Barrier(2)

    def work(k):
        try:
            x = et.constant(float(k + 2))
            with et.GradientTape() as tape:
                tape.watch(x)
                barrier.wait()          # both tapes record at the same time
                y = x ** (k + 2)
                barrier.wait()
            rec = introspect.recording(tape)
            results[k] = (float(tape.gradient(y, x)), len(rec.nodes) if rec else None)
            assert introspect.thread_state().tapes == []
        except Exception as e:          # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results[0][0] == 2 * 2.0            # d/dx x^2 at 2
    assert results[1][0] == 3 * 3.0 ** 2       # d/dx x^3 at 3


def test_threads_never_record_each_others_ops():
    x = et.constant(2.0)
    seen = {}
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)

        def other():
            seen["tapes"] = list(introspect.thread_state().tapes)
            seen["y"] = x * x            # same tensor, other thread: not recorded here
        t = threading.Thread(target=other)
        t.start()
        t.join()
        z = x * 3
    assert seen["tapes"] == []
    assert tape.gradient(seen["y"], x) is None
    assert float(tape.gradient(z, x)) == 3.0
    del tape


@pytest.mark.eager       # counts the eager replay's compilations
def test_training_loop_compiles_its_replay_once():
    et.clear_replay_cache()
    w = et.Variable(np.full((3, 1), 0.1, np.float32))
    b = et.Variable(np.full((1,), 0.5, np.float32))
    xs = et.constant(np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32))
    ys = xs @ et.constant([[1.0], [-2.0], [0.5]]) + 0.3
    losses = []
    for _ in range(100):
        with et.GradientTape() as tape:
            loss = tnp.mean((nn.relu(xs @ w + b) - ys) ** 2 + 0.01 * tnp.sum(w * w))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * gw)
        b.assign_sub(0.1 * gb)
        losses.append(float(loss))
    info = et.replay_cache_info()
    assert (info.deferred, info.misses, info.hits, info.size) == (0, 1, 99, 1)
    assert info.executables == 1
    assert losses[-1] < 0.5 * losses[0]


@pytest.mark.replay_axis
def test_deep_tape_does_not_recurse(replay):
    n = 20000
    x = et.constant(0.5, dtype="float64")
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(n):
            y = y * 1.0001
    np.testing.assert_allclose(float(tape.gradient(y, x)), 1.0001 ** n, rtol=1e-9)


def test_failed_op_inside_with_block_leaves_stack_clean():
    x = et.constant([1.0, 2.0])
    tape = et.GradientTape()
    with pytest.raises(TypeError):
        with tape:
            tape.watch(x)
            y = x * 2
            tnp.reshape(x, "bad")
    assert introspect.thread_state().tapes == []
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 2.0])


def test_a_function_recorded_without_gradient_is_another_kind_of_op():
    # TF's truncatemod is jnp.fmod with no registered gradient; calling it must not
    # take the gradient away from eagertape.numpy's fmod (the same JAX function).
    import eagertape.tf as etf
    x = et.constant([5.5, -3.25])
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = etf.truncatemod(x, 2.0)
        b = tnp.fmod(x, 2.0)
    assert tape.gradient(a, x) is None
    assert tape.gradient(b, x).numpy().tolist() == [1.0, 1.0]


@pytest.mark.eager      # the cache keeps XLA's programs: the mode does not change them
def test_enable_compilation_cache_keeps_programs_on_disk_and_reads_them_back(tmp_path):
    # The opt-in for issue 39's first step: what one process compiles, the next reads
    # back. In one process: jax.clear_caches() drops the compiled programs in memory,
    # as a new process starts without them; the same gradient then comes from disk.
    from jax.experimental.compilation_cache import compilation_cache
    keys = ("jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs",
            "jax_persistent_cache_min_entry_size_bytes")
    before = {k: getattr(jax.config, k) for k in keys}
    hits, listening = [], [True]       # JAX keeps a listener for the process's life
    jax.monitoring.register_event_listener(
        lambda event, **kw: hits.append(event)
        if listening[0] and event.endswith("cache_hits") else None)
    try:
        folder = et.enable_compilation_cache(tmp_path / "xla")
        assert folder == str(tmp_path / "xla") and jax.config.jax_compilation_cache_dir == folder

        def grad():      # shapes no other test uses: compiled here, not found in memory
            w = et.Variable(np.linspace(-1, 1, 13 * 7, dtype=np.float32).reshape(13, 7))
            x = et.constant(np.ones((5, 13), np.float32))
            with et.GradientTape() as tape:
                loss = tnp.sum(tnp.tanh(x @ w) ** 2)
            return tape.gradient(loss, w).numpy()
        first = grad()
        assert os.listdir(folder)                   # written
        jax.clear_caches()
        et.clear_replay_cache()
        n = len(hits)
        np.testing.assert_array_equal(grad(), first)
        assert len(hits) > n                        # read back
    finally:
        listening[0] = False
        for k, v in before.items():
            jax.config.update(k, v)
        compilation_cache.reset_cache()
    (tmp_path / "a_file").write_text("")
    with pytest.raises(ValueError, match="argument `path`"):
        et.enable_compilation_cache(tmp_path / "a_file")
