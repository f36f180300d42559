"""eagertape against TensorFlow 2.21's GradientTape semantics.

One test per numbered fact of docs/reference/tf_gradienttape_semantics.md,
sections A-P (facts 1-111) and the core items of fact 128 (section T). Where
eagertape deliberately diverges from an [X] fact, the test asserts eagertape's
behaviour and a comment cites the fact.
"""
import collections
import logging

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

NOT_ONE_SET = ("A non-persistent GradientTape can only be used to compute one set of "
               "gradients (or jacobians)")
TARGET_NONE = ("Argument `target` should be a list or nested structure of Tensors, Variables "
               "or CompositeTensors to be differentiated, but received None.")
INSIDE_WARNING = "Calling GradientTape.gradient on a persistent tape inside its context"
DTYPE_WARNING = "The dtype of the watched tensor must be floating"

has_jacobian = pytest.mark.skipif(not hasattr(et.GradientTape, "jacobian"),
                                  reason="GradientTape.jacobian is not implemented yet")
has_batch_jacobian = pytest.mark.skipif(not hasattr(et.GradientTape, "batch_jacobian"),
                                        reason="GradientTape.batch_jacobian is not implemented yet")


def close(t, expected, rtol=1e-6):
    assert t is not None
    np.testing.assert_allclose(np.asarray(t.numpy()), expected, rtol=rtol)


def c(value, dtype=None):
    return et.constant(value, dtype=dtype)


def records(caplog, text):
    return [r for r in caplog.records if r.name == "eagertape" and text in r.getMessage()]


@pytest.fixture
def warn_log(caplog):
    caplog.set_level(logging.WARNING, logger="eagertape")
    return caplog


# ---------------------------------------------------------------------------
# A. Single use, lifecycle
# ---------------------------------------------------------------------------

def test_fact_001_nonpersistent_second_gradient_raises():
    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    close(tape.gradient(y, x), 6.0)
    with pytest.raises(RuntimeError) as e:
        tape.gradient(y, x)
    assert str(e.value) == NOT_ONE_SET


@has_jacobian
def test_fact_002_gradient_and_jacobian_share_budget():
    x = c([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only"):
        tape.jacobian(y, x)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.jacobian(y, x)
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only"):
        tape.jacobian(y, x)


@has_batch_jacobian
def test_fact_003_second_batch_jacobian_raises():
    x = c([[1.0, 2.0], [3.0, 4.0]])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.batch_jacobian(y, x)
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only"):
        tape.batch_jacobian(y, x)


def test_fact_004_persistent_repeated_gradients():
    x = c(3.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    for _ in range(3):
        close(tape.gradient(z, x), 108.0)
        close(tape.gradient(y, x), 6.0)


@pytest.mark.parametrize("persistent", [False, True])
def test_fact_005_never_entered_gradient_raises(persistent):
    x = c(1.0)
    tape = et.GradientTape(persistent=persistent)
    with pytest.raises(RuntimeError) as e:
        tape.gradient(x, x)
    assert str(e.value) == NOT_ONE_SET


def test_fact_006_argument_errors_do_not_consume_tape():
    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(TypeError):
        tape.gradient(None, x)
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients"):
        tape.gradient(y, x, unconnected_gradients="nonsense")
    close(tape.gradient(y, x), 6.0)


def test_fact_007_backprop_error_leaves_tape_usable():
    # Deliberate divergence from fact 7 [X]: the tape is consumed only by a successful gradient.
    calls = []

    @et.custom_gradient
    def f(x):
        def grad(dy):
            calls.append(1)
            if len(calls) == 1:
                raise RuntimeError("boom once")
            return dy * 5.0
        return x * 1.0, grad

    x = c(2.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    with pytest.raises(RuntimeError, match="boom once"):
        tape.gradient(y, x)
    close(tape.gradient(y, x), 5.0)
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only"):
        tape.gradient(y, x)


# ---------------------------------------------------------------------------
# B. gradient inside the tape's own context
# ---------------------------------------------------------------------------

def test_fact_008_nonpersistent_gradient_inside_context():
    x = c(1.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        g = tape.gradient(y, x)
        close(g, 2.0)
        assert tape not in introspect.thread_state().tapes          # popped immediately
        later = y * x                            # not recorded: the tape is used up
        with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only"):
            tape.gradient(later, x)
        with pytest.raises(RuntimeError, match="Trying to stop recording"):
            with tape.stop_recording():
                pass
    # __exit__ was a no-op (no error), and the tape stays used up
    assert tape not in introspect.thread_state().tapes
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only"):
        tape.gradient(y, x)


def test_fact_009_persistent_gradient_inside_context_warns_and_records(warn_log):
    x = c(3.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        dy = tape.gradient(y, x)
        d2y = tape.gradient(dy, x)
    d3y = tape.gradient(d2y, x)
    close(dy, 27.0)
    close(d2y, 18.0)
    close(d3y, 6.0)
    recs = records(warn_log, INSIDE_WARNING)
    assert len(recs) == 2                        # one per call site (n=1), two call sites
    assert all(r.levelno == logging.WARNING for r in recs)
    assert "significantly less efficient" in recs[0].getMessage()


def test_fact_009_inside_warning_once_per_call_site(warn_log):
    x = c(3.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        for _ in range(3):
            tape.gradient(y, x)
    assert len(records(warn_log, INSIDE_WARNING)) == 1


def test_fact_010_persistent_gradient_inside_stop_recording(warn_log):
    x = c(3.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        with tape.stop_recording():
            dy = tape.gradient(y, x)
    close(dy, 27.0)
    assert records(warn_log, INSIDE_WARNING) == []
    assert tape.gradient(dy, x) is None


@has_jacobian
def test_fact_011_jacobian_inside_context():
    x = c([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        j = tape.jacobian(y, x)
        assert tape not in introspect.thread_state().tapes
    close(j, [[2.0, 0.0], [0.0, 4.0]])
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        j = tape.jacobian(y, x)
    close(tape.gradient(j, x), [2.0, 2.0])


# ---------------------------------------------------------------------------
# C. Targets
# ---------------------------------------------------------------------------

def test_fact_012_nonscalar_target_sums():
    x = c([1.0, 2.0, 3.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    close(tape.gradient(y, x), [2.0, 4.0, 6.0])


def test_fact_013_broadcasting_sums():
    v = et.Variable(2.0)
    with et.GradientTape() as tape:
        y = v * c([3.0, 4.0])
    g = tape.gradient(y, v)
    close(g, 7.0)
    assert g.shape == ()


def test_fact_014_nested_targets_sum():
    x = c(2.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        ys = {"y0": x ** 2, "y1": 1 / x}
    close(tape.gradient(ys, x), 3.75)
    a = c(1.0)
    with et.GradientTape() as tape:
        tape.watch(a)
        ys = {"p": 2 * a, "q": [3 * a, a * a]}
    close(tape.gradient(ys, a), 7.0)


def test_fact_015_repeated_target_counts_twice():
    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    close(tape.gradient([y, y], x), 12.0)


def test_fact_016_empty_target_list():
    x = c([1.0, 2.0])
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        _ = x * x
    assert tape.gradient([], x) is None
    z = tape.gradient([], x, unconnected_gradients="zero")
    close(z, [0.0, 0.0])
    assert z.dtype == np.float32


def test_fact_017_target_none_typeerror():
    x = c(1.0)
    with et.GradientTape() as tape:
        tape.watch(x)
    with pytest.raises(TypeError) as e:
        tape.gradient(None, x)
    assert str(e.value) == TARGET_NONE


def test_fact_018_none_inside_target_list():
    # Deliberate divergence from fact 18 [X]: a TypeError naming the argument `target`.
    x = c(1.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(TypeError, match="target"):
        tape.gradient([y, None], x)


@pytest.mark.parametrize("bad", [1.0, 1, np.float32(1.0)], ids=["float", "int", "np_float32"])
def test_fact_019_non_tensor_target(bad):
    # Deliberate divergence from fact 19 [X]: a TypeError naming the argument `target`.
    x = c(1.0)
    with et.GradientTape() as tape:
        tape.watch(x)
    with pytest.raises(TypeError, match="target"):
        tape.gradient(bad, x)


def test_fact_020_target_computed_outside_tape():
    x = c([1.0, 2.0])
    tape = et.GradientTape(persistent=True)
    before = x * x
    with tape:
        tape.watch(x)
    after = x * x
    assert tape.gradient(before, x) is None
    assert tape.gradient(after, x) is None
    close(tape.gradient(after, x, unconnected_gradients="zero"), [0.0, 0.0])
    close(tape.gradient(before, x, unconnected_gradients="zero"), [0.0, 0.0])


# ---------------------------------------------------------------------------
# D. Watching and recording
# ---------------------------------------------------------------------------

def test_fact_021_constants_not_watched():
    x = c(3.0)
    with et.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None


def test_fact_022_watch_is_not_retroactive():
    x = c(3.0)
    with et.GradientTape() as tape:
        y = x * x
        tape.watch(x)
    assert tape.gradient(y, x) is None


def test_fact_023_intermediate_as_source():
    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    close(tape.gradient(z, y), 18.0)


def test_fact_024_leaf_and_intermediate_sources():
    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    gx, gy = tape.gradient(z, [x, y])
    close(gx, 108.0)
    close(gy, 18.0)


def test_fact_025_unwatched_intermediate_not_recorded():
    a = c(3.0)
    with et.GradientTape() as tape:
        y = a * 2.0
        z = y * y
    assert tape.gradient(z, y) is None


def test_fact_025_unwatched_input_of_a_recorded_op_is_no_source(replay):
    x, k = c(3.0), c(7.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        q = k * 2.0
        w = q * x
    assert tape.gradient(w, q) is None and float(tape.gradient(w, x)) == 14.0
    assert tape.gradient(w, [q, q]) == [None, None]
    assert float(tape.gradient(q, q)) == 1.0          # fact 37: a target that is a source
    del tape


def test_fact_026_source_downstream_of_target():
    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
        z = y * 3.0
    assert tape.gradient(y, z) is None


@pytest.mark.parametrize("value,dtype", [(1, "int32"), (True, "bool"), (1, "int64")])
def test_fact_027_watch_non_float_logs_warning(warn_log, value, dtype):
    t = c(value, dtype=dtype)
    n0 = len(records(warn_log, DTYPE_WARNING))
    with et.GradientTape() as tape:
        tape.watch(t)                             # raises nothing
    recs = records(warn_log, DTYPE_WARNING)[n0:]
    assert len(recs) == 1
    assert recs[0].levelno == logging.WARNING
    assert dtype in recs[0].getMessage()


def test_fact_027_watch_warning_at_most_5_per_call_site(warn_log):
    t = c(1)
    with et.GradientTape() as tape:
        for _ in range(8):
            tape.watch(t)
    assert len(records(warn_log, DTYPE_WARNING)) == 5


def test_fact_028_integer_source_gives_none():
    x = c(10)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x) is None
    z = tape.gradient(y, x, unconnected_gradients="zero")
    assert z.dtype == np.int32
    assert z.shape == ()
    assert z.numpy() == 0
    xs = c([1, 2, 3])
    with et.GradientTape() as tape:
        tape.watch(xs)
        y = xs * xs
    z = tape.gradient(y, xs, unconnected_gradients="zero")
    assert z.dtype == np.int32
    np.testing.assert_array_equal(z.numpy(), [0, 0, 0])


def test_fact_029_casts_through_int_cut_the_path():
    xi = c(3)
    with et.GradientTape() as tape:
        tape.watch(xi)
        y = xi.astype("float32") * 2.0
    assert tape.gradient(y, xi) is None
    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x.astype("int32").astype("float32") * 2.0
    assert tape.gradient(y, x) is None


@pytest.mark.parametrize("bad,shown,tname", [
    (np.array(1.0), "1.0", "ndarray"), (3.0, "3.0", "float"), (None, "None", "NoneType"),
], ids=["ndarray", "float", "None"])
@pytest.mark.parametrize("entered", [True, False], ids=["entered", "never_entered"])
def test_fact_030_watch_non_tensor_valueerror(entered, bad, shown, tname):
    tape = et.GradientTape()
    if entered:
        tape.__enter__()
    try:
        with pytest.raises(ValueError) as e:
            tape.watch(bad)
        assert str(e.value).startswith(
            f"Passed in object {shown} of type {tname!r}, not eagertape.Tensor or "
            "eagertape.Variable")
    finally:
        tape.__exit__(None, None, None)


def test_fact_031_watch_nest():
    a, b, cc = c(1.0), c(2.0), c(3.0)
    with et.GradientTape() as tape:
        tape.watch([a, {"k": (b, cc)}])
        y = a * b * cc
    ga, gb, gc = tape.gradient(y, [a, b, cc])
    close(ga, 6.0)
    close(gb, 3.0)
    close(gc, 2.0)


def test_fact_032_watch_on_never_entered_tape():
    # Deliberate divergence from fact 32 [X]: RuntimeError saying the tape is not active.
    tape = et.GradientTape()
    with pytest.raises(RuntimeError, match="not active"):
        tape.watch(c(1.0))


def test_fact_033_watch_ignored_when_nothing_records():
    x = c(2.0)
    # inside the tape's own stop_recording, with no other tape active
    with et.GradientTape() as tape:
        with tape.stop_recording():
            tape.watch(x)
        y = x * x
    assert tape.gradient(y, x) is None
    # between two with blocks of the same tape
    tape = et.GradientTape()
    with tape:
        pass
    tape.watch(x)
    with tape:
        y = x * x
    assert tape.gradient(y, x) is None
    # another tape active: the watch is registered
    with et.GradientTape() as outer:
        with et.GradientTape() as tape:
            with tape.stop_recording():
                tape.watch(x)
            y = x * x
    close(tape.gradient(y, x), 4.0)
    del outer


def test_fact_034_watch_twice_harmless():
    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        tape.watch(x)
        y = x * x
        tape.watch(x)
    close(tape.gradient(y, x), 6.0)


def test_fact_035_identity_not_value():
    x1 = c(3.0)
    x2 = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x1)
        tape.watch(x2)
        y = x1 + x2
    g = tape.gradient(y, [x1])
    assert isinstance(g, list) and len(g) == 1
    close(g[0], 1.0)


@pytest.mark.parametrize("copy", [tnp.array, lambda t: t + 0.0, lambda t: t - 0.0,
                                  lambda t: t * 1.0],
                         ids=["identity", "plus0", "minus0", "times1"])
def test_fact_036_copies_are_independent_sources(copy):
    x = c(3.0)
    x1 = copy(x)
    x2 = copy(x)
    assert x1 is not x and x2 is not x and x1 is not x2
    with et.GradientTape() as tape:
        tape.watch([x, x1, x2])
        loss = 2 * x + 3 * x1 + 4 * x2
    g = tape.gradient(loss, [x, x1, x2])
    for gi, e in zip(g, [2.0, 3.0, 4.0]):
        close(gi, e)


# ---------------------------------------------------------------------------
# E. Target equal to a source; duplicates; odd sources
# ---------------------------------------------------------------------------

def test_fact_037_target_is_source_float_unwatched():
    x = c([[1.0, 2.0], [3.0, 4.0]])
    with et.GradientTape() as tape:
        pass
    g = tape.gradient(x, x)
    close(g, np.ones((2, 2)))
    assert g.dtype == np.float32


def test_fact_037_target_is_source_int():
    x = c(7)
    with et.GradientTape() as tape:
        tape.watch(x)
    g = tape.gradient(x, x)
    assert g is not None
    assert g.dtype == np.int32
    assert g.numpy() == 1


def test_fact_037_target_is_source_bool():
    x = c(False)
    with et.GradientTape() as tape:
        tape.watch(x)
    g = tape.gradient(x, x)
    assert g is not None
    assert g.dtype == np.bool_
    assert bool(g.numpy()) is True


def test_fact_038_target_list_contains_source():
    x = c(2.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    close(tape.gradient([x, y], x), 5.0)
    x = c(2.0)
    y = c(5.0)
    with et.GradientTape() as tape:
        tape.watch([x, y])
        yy = y * y
    gx, gy = tape.gradient([x, y, yy], [x, y])
    close(gx, 1.0)
    close(gy, 11.0)


def test_fact_039_duplicate_sources_get_full_gradient():
    x, y = c(3.0), c(5.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        z = x * x + x * y
    g = tape.gradient(z, [x, x, y])
    close(g[0], 11.0)
    close(g[1], 11.0)
    close(g[2], 3.0)
    assert g[0] is g[1]
    g = tape.gradient(z, [y, x])
    close(g[0], 3.0)
    close(g[1], 11.0)


def test_fact_040_none_source():
    # Deliberate divergence from fact 40 [X]: a TypeError naming the argument `sources`.
    x = c(1.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(TypeError, match="sources"):
        tape.gradient(y, [x, None])
    with pytest.raises(TypeError, match="sources"):
        tape.gradient(y, None)


@pytest.mark.parametrize("bad", [1.0, np.array([1.0]), "abc"], ids=["float", "ndarray", "str"])
def test_fact_041_non_tensor_source(bad):
    # Deliberate divergence from fact 41 [X]: a TypeError naming the argument `sources`.
    x = c(1.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(TypeError, match="sources"):
        tape.gradient(y, bad)


def test_fact_042_empty_source_containers():
    x = c(1.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, []) == []
    assert tape.gradient(y, {}) == {}


# ---------------------------------------------------------------------------
# F. Nested structures
# ---------------------------------------------------------------------------

def test_fact_043_result_mirrors_sources():
    Pair = collections.namedtuple("Pair", "a b")
    x1, x2, x3 = c(1.0), c(2.0), c(3.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch([x1, x2, x3])
        y = x1 + 2 * x2 + 3 * x3
    g = tape.gradient(y, x1)
    assert isinstance(g, et.Tensor)
    close(g, 1.0)
    g = tape.gradient(y, [x1, x2])
    assert type(g) is list and len(g) == 2
    g = tape.gradient(y, (x1,))
    assert type(g) is tuple and len(g) == 1
    close(g[0], 1.0)
    g = tape.gradient(y, {"a": x1, "b": x3})
    assert type(g) is dict and set(g) == {"a", "b"}
    close(g["b"], 3.0)
    g = tape.gradient(y, [(x1, x2), (x2, x3)])
    assert type(g) is list and all(type(p) is tuple for p in g)
    close(g[0][0], 1.0)
    close(g[0][1], 2.0)
    close(g[1][0], 2.0)
    close(g[1][1], 3.0)
    g = tape.gradient(y, [x1, {"x2": x2, "x3": x3}])
    assert type(g) is list and type(g[1]) is dict
    close(g[1]["x2"], 2.0)
    close(g[1]["x3"], 3.0)
    g = tape.gradient(y, Pair(x1, x3))
    assert type(g) is Pair
    close(g.a, 1.0)
    close(g.b, 3.0)


def test_fact_044_targets_any_nest():
    x = c(2.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        targets = ((x * 1.0, [x * x]), {"k": x * 3.0})
    close(tape.gradient(targets, x), 1.0 + 4.0 + 3.0)


# ---------------------------------------------------------------------------
# G. Variables
# ---------------------------------------------------------------------------

def test_fact_045_trainable_variables_auto_watched():
    v = et.Variable(3.0)
    with et.GradientTape() as tape:
        w = et.Variable(2.0)               # created inside the context
        y = v * w
    gv, gw = tape.gradient(y, [v, w])
    close(gv, 2.0)
    close(gw, 3.0)


def test_fact_046_non_trainable_not_watched():
    v = et.Variable(3.0, trainable=False)
    with et.GradientTape() as tape:
        y = v * v
    assert tape.watched_variables() == ()
    assert tape.gradient(y, v) is None


def test_fact_047_explicit_watch_non_trainable():
    v = et.Variable(3.0, trainable=False)
    with et.GradientTape() as tape:
        tape.watch(v)
        y = v * v
    assert tape.watched_variables() == (v,)
    close(tape.gradient(y, v), 6.0)


def test_fact_048_watch_accessed_variables_false():
    a = et.Variable(2.0)
    b = et.Variable(3.0)
    with et.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(a)
        y = a * b
    wv = tape.watched_variables()
    assert len(wv) == 1 and wv[0] is a
    ga, gb = tape.gradient(y, [a, b])
    close(ga, 3.0)
    assert gb is None


def test_fact_049_watched_variables():
    a = et.Variable(1.0)
    b = et.Variable(2.0)
    cc = et.Variable(3.0, trainable=False)
    tape = et.GradientTape()
    assert tape.watched_variables() == ()
    with tape:
        y = cc * b * a
    wv = tape.watched_variables()
    assert isinstance(wv, tuple)
    assert len(wv) == 2 and wv[0] is a and wv[1] is b      # construction order
    tape.gradient(y, [a, b])
    wv = tape.watched_variables()                            # snapshot after release
    assert len(wv) == 2 and wv[0] is a and wv[1] is b
    with et.GradientTape() as tape:
        _ = a * a
        assert len(tape.watched_variables()) == 1
        tape.reset()
        assert tape.watched_variables() == ()


def test_fact_050_int_variable_auto_watched_silently(warn_log):
    v = et.Variable(3)
    with et.GradientTape() as tape:
        y = v * v
    wv = tape.watched_variables()
    assert len(wv) == 1 and wv[0] is v
    assert records(warn_log, DTYPE_WARNING) == []
    assert tape.gradient(y, v) is None
    with et.GradientTape() as tape:
        tape.watch(v)
    recs = records(warn_log, DTYPE_WARNING)
    assert len(recs) == 1 and "int32" in recs[0].getMessage()


def test_fact_051_variable_as_target():
    v = et.Variable([1.0, 2.0, 3.0])
    w = et.Variable(4.0)
    with et.GradientTape(persistent=True) as tape:
        pass
    g = tape.gradient(v, v)
    close(g, [1.0, 1.0, 1.0])
    assert tape.gradient(v, w) is None


def test_fact_052_variable_and_its_read_as_sources():
    v = et.Variable(2.0)
    with et.GradientTape() as tape:
        r = v.read_value()
        y = r * r
    gv, gr = tape.gradient(y, [v, r])
    close(gv, 4.0)
    close(gr, 4.0)
    with et.GradientTape() as tape:
        r = v.read_value()
    close(tape.gradient(r, v), 1.0)


def test_fact_053_rebinding_to_tensor_loses_watch():
    x = et.Variable(2.0)
    results = []
    for _ in range(2):
        with et.GradientTape() as tape:
            y = x + 1
        results.append(tape.gradient(y, x))
        x = x + 1
    close(results[0], 1.0)
    assert results[1] is None


def test_fact_054_assign_blocks_gradients():
    x0 = et.Variable(3.0)
    x1 = et.Variable(0.0)
    with et.GradientTape() as tape:
        x1.assign_add(x0)
        y = x1 ** 2
    g0, g1 = tape.gradient(y, [x0, x1])
    assert g0 is None
    close(g1, 6.0)
    x = c(2.0)
    v = et.Variable(0.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        v.assign(3 * x)
        y = v * v
    assert tape.gradient(y, x) is None


def test_fact_055_reads_see_old_and_new_values():
    v = et.Variable(1.0)
    with et.GradientTape() as tape:
        a = 2 * v
        v.assign(5.0)
        b = v * v
    close(tape.gradient([a, b], v), 12.0)


def test_fact_056_assign_result_is_a_read():
    x = c(2.0)
    v = et.Variable(0.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        r = v.assign(x * 2)
        y = r * 1
    gx, gv = tape.gradient(y, [x, v])
    assert gx is None
    close(gv, 1.0)


def test_fact_057_value_computed_before_tape_is_constant():
    v = et.Variable(2.0)
    y0 = v * v
    with et.GradientTape() as tape:
        y = y0 * v
    close(tape.gradient(y, v), 4.0)


def test_fact_058_python_max_of_variables():
    vs = [et.Variable(1.0), et.Variable(2.0), et.Variable(3.0)]
    with et.GradientTape() as tape:
        f = max(vs)
    assert f is vs[2]
    g = tape.gradient(f, vs)
    assert g[0] is None and g[1] is None
    close(g[2], 1.0)


def test_fact_059_variable_watched_by_every_active_tape():
    v = et.Variable(2.0)
    with et.GradientTape() as t1:
        with et.GradientTape() as t2:
            y = v * v
    close(t2.gradient(y, v), 4.0)
    close(t1.gradient(y, v), 4.0)


# ---------------------------------------------------------------------------
# H. unconnected_gradients
# ---------------------------------------------------------------------------

def test_fact_060_unconnected_default_none():
    x, y = c(1.0), c(2.0)
    with et.GradientTape() as tape:
        tape.watch([x, y])
        z = x * 2.0
    gx, gy = tape.gradient(z, [x, y])
    close(gx, 2.0)
    assert gy is None


@pytest.mark.parametrize("mode", ["zero", et.UnconnectedGradients.ZERO])
def test_fact_061_unconnected_zero_source_shape_dtype(mode):
    x = c(1.0)
    f64 = c([[1.0, 2.0]], dtype="float64")
    i32 = c([1, 2, 3])
    v = et.Variable([[1.0, 2.0], [3.0, 4.0]])
    with et.GradientTape() as tape:
        tape.watch([x, f64, i32])
        z = x * 2.0
    g = tape.gradient(z, [f64, i32, v], unconnected_gradients=mode)
    assert g[0].dtype == np.float64 and g[0].shape == (1, 2)
    np.testing.assert_array_equal(g[0].numpy(), np.zeros((1, 2)))
    assert g[1].dtype == np.int32 and g[1].shape == (3,)
    np.testing.assert_array_equal(g[1].numpy(), np.zeros(3))
    assert g[2].dtype == np.float32 and g[2].shape == (2, 2)
    np.testing.assert_array_equal(g[2].numpy(), np.zeros((2, 2)))


def test_fact_062_unconnected_value_validation():
    x = c(1.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2.0
    with pytest.raises(ValueError) as e:
        tape.gradient(y, x, unconnected_gradients="nonsense")
    assert str(e.value) == "Unknown value for unconnected_gradients: 'nonsense'"
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'ZERO'"):
        tape.gradient(y, x, unconnected_gradients="ZERO")
    for ok in ("none", "zero", et.UnconnectedGradients.NONE, et.UnconnectedGradients.ZERO):
        close(tape.gradient(y, x, unconnected_gradients=ok), 2.0)


def test_fact_063_blocked_path_counts_as_unconnected():
    x = c([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = et.stop_gradient(x * x)
    close(tape.gradient(y, x, unconnected_gradients="zero"), [0.0, 0.0])


# ---------------------------------------------------------------------------
# I. Nested tapes and higher order
# ---------------------------------------------------------------------------

def test_fact_064_nested_tapes_second_derivative():
    x = c(5.0)
    with et.GradientTape() as outer:
        outer.watch(x)
        with et.GradientTape() as inner:
            inner.watch(x)
            y = x * x
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    close(dy, 10.0)
    close(d2y, 2.0)


def test_fact_065_inner_gradient_after_outer_exit():
    x = c(5.0)
    with et.GradientTape() as outer:
        outer.watch(x)
        with et.GradientTape() as inner:
            inner.watch(x)
            y = x * x
    dy = inner.gradient(y, x)
    close(dy, 10.0)
    assert outer.gradient(dy, x) is None


def test_fact_066_watches_are_tape_local():
    x1 = et.Variable(2.0, trainable=False)
    x2 = et.Variable(2.0, trainable=False)
    with et.GradientTape() as tape1:
        with et.GradientTape() as tape2:
            tape1.watch(x1)
            tape2.watch([x1, x2])
            y = x1 ** 3
            z = x2 ** 2
            dy, dz = tape2.gradient([y, z], [x1, x2])
        d2y, d2z = tape1.gradient([dy, dz], [x1, x2])
    close(dy, 12.0)
    close(dz, 4.0)
    close(d2y, 12.0)
    assert d2z is None


def test_fact_067_tape_records_only_while_active():
    x = c(2.0)
    with et.GradientTape() as outer:
        outer.watch(x)
        a = x * x
        with et.GradientTape() as inner:
            inner.watch(x)
            b = a * x
    close(inner.gradient(b, x), 4.0)
    close(outer.gradient(b, x), 12.0)


def test_fact_068_three_nested_tapes():
    x = c(1.0)
    with et.GradientTape() as t3:
        t3.watch(x)
        with et.GradientTape() as t2:
            t2.watch(x)
            with et.GradientTape() as t1:
                t1.watch(x)
                y = x ** 4
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    close(d1, 4.0)
    close(d2, 12.0)
    close(d3, 24.0)


def test_fact_068_inner_tape_watches_outer_intermediate():
    with et.GradientTape() as g:
        x = c(3.0)
        g.watch(x)
        y = x * x
        with et.GradientTape() as gg:
            gg.watch(y)
            z = 2 * y
        inner_grad = gg.gradient(z, [y])[0]
        close(inner_grad, 2.0)
        y = y + inner_grad
    close(g.gradient(y, [x])[0], 6.0)


def test_fact_069_two_tapes_in_one_with():
    x0 = c(0.0)
    x1 = c(0.0)
    with et.GradientTape() as tape0, et.GradientTape() as tape1:
        tape0.watch(x0)
        tape1.watch(x1)
        y0 = tnp.sin(x0)
        y1 = nn.sigmoid(x1)
        ys = tnp.sum(y0 + y1)
    g0 = tape0.gradient(ys, [x0, x1])
    g1 = tape1.gradient(ys, [x0, x1])
    close(g0[0], 1.0)
    assert g0[1] is None
    assert g1[0] is None
    close(g1[1], 0.25)


# ---------------------------------------------------------------------------
# J. stop_recording
# ---------------------------------------------------------------------------

def test_fact_070_stop_recording():
    x = et.Variable(2.0)
    y = et.Variable(3.0)
    with et.GradientTape() as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq
    g = t.gradient(z, {"x": x, "y": y})
    close(g["x"], 4.0)
    assert g["y"] is None
    # recording resumes after the block
    x = c(1.0)
    with et.GradientTape() as t:
        t.watch(x)
        with t.stop_recording():
            s = x * 100.0
        x2 = x * 2
        out = x2 * 2 + s
    close(t.gradient(out, x), 4.0)


def test_fact_071_stop_recording_only_own_tape():
    x = c(3.0)
    with et.GradientTape() as outer:
        outer.watch(x)
        with et.GradientTape() as inner:
            inner.watch(x)
            with inner.stop_recording():
                y = x * x
                with et.GradientTape() as fresh:
                    fresh.watch(x)
                    w = x * x * x
    assert inner.gradient(y, x) is None
    close(outer.gradient(y, x), 6.0)
    close(fresh.gradient(w, x), 27.0)


def test_fact_072_stop_recording_without_tape_runtimeerror():
    tape = et.GradientTape()
    with pytest.raises(RuntimeError) as e:
        with tape.stop_recording():
            pass
    assert str(e.value) == "Trying to stop recording a tape which is not recording."
    x = c(1.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="Trying to stop recording a tape which is not recording."):
        with tape.stop_recording():
            pass


def test_fact_073_stop_recording_not_recording_valueerror():
    tape = et.GradientTape(persistent=True)
    with tape:
        pass
    with pytest.raises(ValueError) as e:
        with tape.stop_recording():
            pass
    assert str(e.value) == "Tape is not recording."
    with tape:
        with tape.stop_recording():
            with pytest.raises(ValueError, match="Tape is not recording."):
                with tape.stop_recording():
                    pass


def test_fact_074_nonpersistent_gradient_inside_stop_recording():
    x = c(2.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            g = tape.gradient(y, x)
    close(g, 4.0)


# ---------------------------------------------------------------------------
# K. reset
# ---------------------------------------------------------------------------

def test_fact_075_reset_discards_recording():
    v = et.Variable(1.0)
    with et.GradientTape() as tape:
        loss = v * v
        tape.reset()
        loss = loss + v * v
    close(tape.gradient(loss, v), 2.0)
    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        tape.reset()
        y = x * x
    assert tape.gradient(y, x) is None


def test_fact_076_reset_outside_context_valueerror():
    tape = et.GradientTape()
    with pytest.raises(ValueError) as e:
        tape.reset()
    assert str(e.value) == "Tape is not recording."
    with tape:
        pass
    with pytest.raises(ValueError, match="Tape is not recording."):
        tape.reset()


# ---------------------------------------------------------------------------
# L. Entering the same tape more than once
# ---------------------------------------------------------------------------

def test_fact_077_nested_reentry_valueerror():
    tape = et.GradientTape()
    with tape:
        with pytest.raises(ValueError) as e:
            with tape:
                pass
    assert str(e.value) == ("Tape is still recording, This can happen if you try to re-enter "
                            "an already-active tape.")


def test_fact_078_sequential_reentry_accumulates():
    x = c(3.0)
    g = et.GradientTape(persistent=True)
    with g:
        g.watch(x)
        y = 2 * x
    w = y * 3.0                                  # between the blocks: not recorded
    with g:
        z = 2 * y
    res = g.gradient(z, [x])
    close(res[0], 4.0)
    assert g.gradient(w, x) is None


def test_fact_079_reentry_after_gradient():
    x = c(3.0)
    g = et.GradientTape()
    with g:
        g.watch(x)
        y = x * x
    close(g.gradient(y, x), 6.0)
    with g:                                      # fresh tape: the watch is lost
        z = x * x
    assert g.gradient(z, x) is None
    p = et.GradientTape(persistent=True)
    with p:
        p.watch(x)
        y = x * x
    close(p.gradient(y, x), 6.0)
    with p:                                      # persistent: appends
        z = y * x
    close(p.gradient(z, x), 27.0)


def test_fact_080_enter_exit_and_exceptions():
    x = c(2.0)
    tape = et.GradientTape()
    with pytest.raises(KeyError):
        with tape as t:
            assert t is tape
            tape.watch(x)
            y = x * x
            raise KeyError("inside")
    assert tape not in introspect.thread_state().tapes
    close(tape.gradient(y, x), 4.0)
    other = et.GradientTape()
    assert other.__exit__(None, None, None) is None


# ---------------------------------------------------------------------------
# M. stop_gradient, non-differentiable ops, errors
# ---------------------------------------------------------------------------

def test_fact_081_stop_gradient_blocks_its_path():
    v = et.Variable(3.0)
    with et.GradientTape() as tape:
        y = et.stop_gradient(v) * v
    close(tape.gradient(y, v), 3.0)
    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = et.stop_gradient(x * x)
    assert tape.gradient(y, x) is None


def test_fact_082_no_backward_downstream_of_stop_gradient():
    @et.custom_gradient
    def backward_pass_error(x):
        def grad(_):
            raise AssertionError("Unexpectedly ran the backward function")
        return x * 1.0, grad

    x = c(1.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = et.stop_gradient(backward_pass_error(x))
    assert tape.gradient(y, x) is None


@pytest.mark.parametrize("op", [
    tnp.floor, tnp.round, tnp.ceil, tnp.rint,
    lambda t: tnp.floor_divide(t, 2.0),
    lambda t: t // 2.0,
    lambda t: t.round(),
    tnp.argmax,
    lambda t: t > 1.0,
    lambda t: t.astype("int32"),
], ids=["floor", "round", "ceil", "rint", "floor_divide", "floordiv_op", "round_method", "argmax",
        "comparison", "int_cast"])
def test_fact_083_non_differentiable_ops_give_none(op):
    x = c([1.3, 2.7, 0.4])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = op(x)
    assert tape.gradient(y, x) is None


def test_fact_083_non_differentiable_op_mixed_with_path():
    x = c([1.3, 2.7])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = tnp.floor(x) * x            # floor is a constant factor
    close(tape.gradient(y, x), [1.0, 2.0])


def test_fact_084_op_without_gradient_raises_at_gradient_time():
    def cb(v):
        return jax.pure_callback(lambda a: np.asarray(a) * 2,
                                 jax.ShapeDtypeStruct(v.shape, v.dtype), v)
    double = et.primitive(cb)
    x = c(1.5)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = double(x)                 # the forward pass works
    close(y, 3.0)
    with pytest.raises(ValueError, match="JVP"):
        tape.gradient(y, x)


def test_fact_085_backward_returning_too_few_gradients():
    # eagertape's analogue of a recorded backward function returning too few gradients.
    @et.custom_gradient
    def f(a, b):
        def grad(dy):
            return (dy,)
        return a * b, grad

    a, b = c(2.0), c(3.0)
    with et.GradientTape() as tape:
        tape.watch([a, b])
        y = f(a, b)
    with pytest.raises(ValueError, match="expected to return 2 gradients, but returned 1"):
        tape.gradient(y, [a, b])


@pytest.mark.parametrize("leave", [np.asarray, lambda t: t.numpy(), lambda t: np.mean(t, axis=0),
                                   lambda t: np.sum(t, keepdims=True)],
                         ids=["np_asarray", "numpy", "np_mean", "np_sum"])
def test_fact_086_leaving_the_library_breaks_path(leave):
    x = c([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        host = leave(x ** 2)
        assert isinstance(host, (np.ndarray, np.generic))
        y = tnp.mean(c(host))
    assert tape.gradient(y, x) is None


def test_fact_087_python_control_flow():
    x = c(1.0)
    v0 = et.Variable(2.0)
    v1 = et.Variable(2.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        if x > 0.0:
            result = v0
        else:
            result = v1 ** 2
    dv0, dv1 = tape.gradient(result, [v0, v1])
    close(dv0, 1.0)
    assert dv1 is None
    assert tape.gradient(result, x) is None


def test_fact_088_compiled_function_is_differentiable():
    square = et.primitive(jax.jit(lambda t: t * t))
    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = square(x)
    close(tape.gradient(y, x), 6.0)


# ---------------------------------------------------------------------------
# N. custom_gradient
# ---------------------------------------------------------------------------

def test_fact_089_custom_gradient_replaces_gradient():
    @et.custom_gradient
    def f(x):
        def grad(dy):
            return 4 * dy
        return x * x, grad

    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    close(y, 9.0)
    close(tape.gradient(y, x), 4.0)


def test_fact_090_upstream_has_output_shape_and_chain():
    seen = []

    @et.custom_gradient
    def f(x):
        def grad(dy):
            seen.append(dy)
            return dy * 2.0
        return x * 2.0, grad

    x = c([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x) * 3
    close(tape.gradient(y, x), [6.0, 6.0])
    assert len(seen) == 1
    assert seen[0].shape == (2,)
    close(seen[0], [3.0, 3.0])


@pytest.mark.parametrize("container", [tuple, list])
def test_fact_091_custom_gradient_multiple_inputs(container):
    @et.custom_gradient
    def f(a, b):
        def grad(dy):
            return container([dy * 10.0, None])
        return a * b, grad

    a, b = c(2.0), c(3.0)
    with et.GradientTape() as tape:
        tape.watch([a, b])
        y = f(a, b)
    ga, gb = tape.gradient(y, [a, b])
    close(ga, 10.0)
    assert gb is None


def test_fact_092_custom_gradient_wrong_count():
    @et.custom_gradient
    def f(x):
        def grad(dy):
            return []
        return x * 1.0, grad

    x = c(1.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    with pytest.raises(ValueError) as e:
        tape.gradient(y, x)
    assert str(e.value) == ("custom_gradient function expected to return 1 gradients, "
                            "but returned 0 instead.")


def test_fact_093_custom_gradient_variables_kwarg_required_at_call_time():
    w = et.Variable(2.0)

    @et.custom_gradient
    def f(x):
        def grad(dy):
            return dy
        return x * w, grad

    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(TypeError, match="@custom_gradient grad_fn must accept keyword "
                                            "argument 'variables', since function uses "
                                            "variables: "):
            f(x)


def test_fact_094_custom_gradient_with_variables():
    w = et.Variable(2.0)

    @et.custom_gradient
    def f(x):
        def grad(dy, variables=None):
            assert variables is not None and len(variables) == 1 and variables[0] is w
            return dy * w * 10, [dy * x * 100]
        return x * w, grad

    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    close(y, 6.0)
    gx, gw = tape.gradient(y, [x, w])
    close(gx, 20.0)
    close(gw, 300.0)


def test_fact_094_custom_gradient_variable_count_mismatch():
    w = et.Variable(2.0)

    @et.custom_gradient
    def f(x):
        def grad(dy, variables=None):
            return dy * w, []
        return x * w, grad

    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    with pytest.raises(ValueError) as e:
        tape.gradient(y, [x, w])
    assert str(e.value) == "Must return gradient for each variable from @custom_gradient grad_fn."


def test_fact_095_grad_fn_exception_propagates():
    @et.custom_gradient
    def f(x):
        def grad(dy):
            raise RuntimeError("boom from grad")
        return x * 1.0, grad

    x = c(1.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    with pytest.raises(RuntimeError, match="^boom from grad$"):
        tape.gradient(y, x)


def test_fact_096_grad_fn_ops_recorded_for_second_order():
    @et.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3 * x * x
        return x * x * x, grad

    x = c(2.0)
    with et.GradientTape() as outer:
        outer.watch(x)
        with et.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        dy = inner.gradient(y, x)
    close(dy, 12.0)
    close(outer.gradient(dy, x), 12.0)


def test_fact_097_custom_gradient_clip_by_norm():
    def clip_by_norm(t, clip):
        return t * clip / tnp.maximum(tnp.sqrt(tnp.sum(t * t)), clip)

    @et.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return clip_by_norm(dy, 0.5)
        return y, backward

    v = et.Variable(2.0)
    with et.GradientTape() as tape:
        out = clip_gradients(v * v)
    close(tape.gradient(out, v), 2.0)


# ---------------------------------------------------------------------------
# O. Dtypes
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", jnp.bfloat16, "float64", "float32"],
                         ids=["float16", "bfloat16", "float64", "float32"])
def test_fact_098_gradient_dtype_is_source_dtype(dtype):
    x = c([1.0, 2.0], dtype=dtype)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x)
    assert g.dtype == np.dtype(dtype)
    np.testing.assert_allclose(np.asarray(g.numpy(), dtype=np.float64), [2.0, 4.0])


def test_fact_098_cast_to_float64_keeps_float32_gradient():
    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x.astype("float64") ** 2
    g = tape.gradient(y, x)
    assert g.dtype == np.float32
    close(g, 6.0)


def _complex_grad(f, z, **kw):
    with et.GradientTape() as tape:
        tape.watch(z)
        y = f(z)
    return tape.gradient(y, z, **kw)


@pytest.mark.parametrize("name,f,z,expected", [
    ("square", lambda z: z * z, 1 + 2j, 2 - 4j),
    ("abs_squared", lambda z: tnp.real(z * tnp.conj(z)), 1 + 2j, 2 + 4j),
    ("abs", tnp.abs, 3 + 4j, 0.6 + 0.8j),
    ("real", tnp.real, 1 + 2j, 1 + 0j),
    ("imag", tnp.imag, 1 + 2j, 0 + 1j),
], ids=lambda v: v if isinstance(v, str) else "")
def test_fact_099_complex_convention(name, f, z, expected):
    zt = c(z)
    assert zt.dtype == np.complex128
    g = _complex_grad(f, zt)
    assert g.dtype == np.complex128
    close(g, expected)


def test_fact_099_complex_square_with_output_gradient():
    z = c(1 + 2j)
    g = _complex_grad(lambda t: t * t, z, output_gradients=c(1j))
    close(g, 4 + 2j)


@pytest.mark.parametrize("fname", ["square", "sin", "abs_squared", "exp_conj"])
@pytest.mark.parametrize("seed", [1.0 + 0j, 0.5 - 2j])
def test_fact_100_complex_matches_conj_of_jax_vjp(fname, seed):
    fns = {
        "square": (lambda z: z * z, lambda z: z * z),
        "sin": (tnp.sin, jnp.sin),
        "abs_squared": (lambda z: z * tnp.conj(z), lambda z: z * jnp.conj(z)),
        "exp_conj": (lambda z: tnp.exp(tnp.conj(z)) * z, lambda z: jnp.exp(jnp.conj(z)) * z),
    }
    ef, jf = fns[fname]
    z0 = np.array([1 + 2j, -0.5 + 0.3j])
    seed_arr = np.full(z0.shape, seed)
    _, pullback = jax.vjp(jf, jnp.asarray(z0))
    expected = np.conj(np.asarray(pullback(jnp.conj(jnp.asarray(seed_arr)))[0]))
    z = c(z0)
    g = _complex_grad(ef, z, output_gradients=c(seed_arr))
    close(g, expected, rtol=1e-12)


def test_fact_101_real_source_through_complex_intermediate():
    x = c(2.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        z = x.astype("complex64") * (1 + 3j)    # TF refuses 3j * a float32 tensor
        y = z * z
    g = tape.gradient(y, x)
    assert not np.iscomplexobj(g.numpy())
    assert g.dtype == np.float32
    close(g, -32.0)


def test_fact_102_int_and_bool_targets_add_nothing():
    x = c(1.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        yi = x.astype("int32")
        yb = x > 0.0
        yf = 3 * x
    assert tape.gradient(yi, x) is None
    assert tape.gradient(yb, x) is None
    close(tape.gradient(yi, x, unconnected_gradients="zero"), 0.0)
    close(tape.gradient([yf, yi], x), 3.0)
    close(tape.gradient([yf, yi, yb], x), 3.0)


# ---------------------------------------------------------------------------
# P. output_gradients
# ---------------------------------------------------------------------------

def test_fact_103_output_gradients_is_cotangent():
    x = c([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    close(tape.gradient(y, x, output_gradients=c([10.0, 100.0])), [20.0, 400.0])


def test_fact_104_output_gradients_matched_by_position():
    x = c(1.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        ys = {"a": 2 * x, "b": 3 * x}
    close(tape.gradient(ys, x, output_gradients={"a": 10.0, "b": 100.0}), 320.0)


@pytest.mark.parametrize("og", [[10.0, 100.0], [[10.0, 100.0]]], ids=["flat", "nested"])
def test_fact_105_python_list_is_structure(og):
    # Deliberate divergence from fact 105 [O/X]: a length mismatch raises instead of
    # silently using 10. for the whole target.
    x = c([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError, match="output_gradients"):
        tape.gradient(y, x, output_gradients=og)


@pytest.mark.parametrize("og", [np.array([10.0, 100.0], np.float32), c([10.0, 100.0])],
                         ids=["ndarray", "tensor"])
def test_fact_105_per_element_weights_as_array(og):
    x = c([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    close(tape.gradient(y, x, output_gradients=og), [20.0, 400.0])


@pytest.mark.parametrize("og", [c(10.0), 10.0, np.float32(10.0)], ids=["tensor", "float", "np"])
def test_fact_106_scalar_output_gradient_broadcasts(og):
    x = c([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    close(tape.gradient(y, x, output_gradients=og), [20.0, 40.0])


def test_fact_106_incompatible_shape_raises():
    # Deliberate divergence from fact 106 [O]: a ValueError naming output_gradients.
    x = c([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError, match="output_gradients"):
        tape.gradient(y, x, output_gradients=c([1.0, 2.0, 3.0]))


def test_fact_107_python_numbers_are_converted_as_tf_converts_them():
    # Fact 107 [O]: no conversion to the target's dtype; a Python float is
    # float32 and an int int32, so only a matching target takes them.
    from eagertape.tf.errors import InvalidArgumentError
    x = c(2.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=3.0)
    assert g.dtype == np.float32
    close(g, 12.0)
    with pytest.raises(InvalidArgumentError, match=r"output_gradients`\[0\] has dtype int32"):
        tape.gradient(y, x, output_gradients=3)
    x64 = c(2.0, dtype="float64")
    with et.GradientTape() as tape:
        tape.watch(x64)
        y = x64 * x64
    with pytest.raises(InvalidArgumentError, match="float32 but its target has dtype float64"):
        tape.gradient(y, x64, output_gradients=3.0)
    xs = c([1.0, 2.0])
    with et.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        y = xs * xs
    close(tape.gradient(y, xs, output_gradients=[np.array([1, 2], np.float32)]), [2.0, 8.0])
    with pytest.raises(InvalidArgumentError, match="int64"):
        tape.gradient(y, xs, output_gradients=[np.array([1, 2])])


def test_fact_107_tensor_of_other_dtype_raises():
    # Fact 107 [O]: TF's InvalidArgumentError (also a TypeError), naming output_gradients.
    x = c(2.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(TypeError, match="output_gradients"):
        tape.gradient(y, x, output_gradients=c(3.0, dtype="float64"))
    h = c(2.0, dtype="float16")
    with et.GradientTape() as tape:
        tape.watch(h)
        yh = h * h
    g = tape.gradient(yh, h, output_gradients=c(3.0, dtype="float16"))
    assert g.dtype == np.float16
    close(g, 12.0)


@pytest.mark.parametrize("og", [[c(1.0), c(2.0), c(3.0)], [c(1.0)]], ids=["extra", "missing"])
def test_fact_108_length_mismatch_raises(og):
    # Deliberate divergence from fact 108 [X]: a ValueError naming output_gradients.
    x = c(1.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y1 = 2 * x
        y2 = 3 * x
    with pytest.raises(ValueError, match="output_gradients"):
        tape.gradient([y1, y2], x, output_gradients=og)


def test_fact_109_none_entry_means_ones():
    # Deliberate divergence from fact 109 [X]: a None entry seeds that target with ones.
    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y1 = x * x
        y2 = 2 * x
    close(tape.gradient([y1, y2], x, output_gradients=[None, c(3.0)]), 6.0 + 6.0)


def test_fact_110_cotangent_for_inner_or_source_target():
    x = c(3.0)
    y = c(2.0)
    with et.GradientTape() as tape:
        tape.watch([x, y])
        loss = x * y
    g = tape.gradient([loss, x], [x], output_gradients=[c(1.0), c(2.0)])
    close(g[0], 4.0)
    x = c(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = 2 * y
    close(tape.gradient([y, z], x, output_gradients=[c(1.0), c(1.0)]), 18.0)


def test_fact_111_output_gradients_unconnected_and_source_target():
    x = c([1.0, 2.0])
    other = c(4.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        unrelated = other * 2.0
    assert tape.gradient(unrelated, x, output_gradients=c(3.0)) is None
    close(tape.gradient(x, x, output_gradients=c([2.0, 5.0])), [2.0, 5.0])


# ---------------------------------------------------------------------------
# T. Op-level values (fact 128, core items)
# ---------------------------------------------------------------------------

def _grad_of(f, value):
    x = c(value)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def test_fact_128_relu_at_zero():
    close(_grad_of(nn.relu, 0.0), 0.0)


def test_fact_128_abs_at_zero():
    # Deliberate divergence (README): no per-op gradient table, so JAX's rule for abs
    # holds, select(x >= 0, g, -g), which is 1 at 0 where TF gives 0 [O].
    close(_grad_of(tnp.abs, 0.0), 1.0)
    close(_grad_of(tnp.abs, [-2.0, 3.0]), [-1.0, 1.0])


def test_fact_128_sqrt_at_zero_is_inf():
    g = _grad_of(tnp.sqrt, 0.0)
    assert np.isposinf(g.numpy())


def test_fact_128_where():
    close(_grad_of(lambda x: tnp.where(x < 10, x, x * x), [5.0, 50.0]), [1.0, 100.0])


def test_fact_128_reduce_max_ties_split_evenly():
    close(_grad_of(tnp.max, [3.0, 3.0, 1.0]), [0.5, 0.5, 0.0])


@pytest.mark.parametrize("fn", [tnp.maximum, tnp.minimum], ids=["maximum", "minimum"])
def test_fact_128_maximum_minimum_ties(fn):
    # JAX splits ties 0.5/0.5; TF [O] gives all to the first argument ([1, 0]).
    # This differs from TF on purpose: eagertape uses JAX's gradient rules.
    a, b = c(2.0), c(2.0)
    with et.GradientTape() as tape:
        tape.watch([a, b])
        y = fn(a, b)
    ga, gb = tape.gradient(y, [a, b])
    close(ga, 0.5)
    close(gb, 0.5)
