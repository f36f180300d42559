"""Bad input: a clear error at the call site naming the argument, nothing left behind."""
import numpy as np
import pytest

import eagertape as et
from eagertape import numpy as tnp
from eagertape._state import state


def _entered_tape():
    x = et.constant([1.0, 2.0])
    tape = et.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        y = x * x
    return tape, x, y


def _custom_wrong_count():
    @et.custom_gradient
    def f(a, b):
        return a * b, lambda dy: dy * b          # one gradient for two inputs
    a, b = et.constant(2.0), et.constant(3.0)
    with et.GradientTape() as tape:
        tape.watch([a, b])
        y = f(a, b)
    tape.gradient(y, [a, b])


def _grad(*args, **kwargs):
    tape, x, y = _entered_tape()
    def sub(a):
        if isinstance(a, list):
            return [sub(b) for b in a]
        return x if isinstance(a, str) and a == "x" else y if isinstance(a, str) and a == "y" else a
    return tape.gradient(*[sub(a) for a in args], **kwargs)


def _reenter():
    tape = et.GradientTape()
    with tape:
        with tape:
            pass


CASES = [
    ("constant-string", lambda: et.constant("abc"), TypeError, "argument `value`"),
    ("constant-None", lambda: et.constant(None), TypeError, "argument `value`"),
    ("constant-object", lambda: et.constant(object()), TypeError, "argument `value`"),
    ("constant-bad-dtype", lambda: et.constant(1.0, dtype="nope"), TypeError, "argument `dtype`"),
    ("constant-lossy-dtype", lambda: et.constant(2.5, dtype="int32"), TypeError, "without losing"),
    ("constant-bad-shape", lambda: et.constant([1.0, 2.0], shape=(3,)), ValueError, "argument `shape`"),
    ("Tensor-of-list", lambda: et.Tensor([1.0]), TypeError, "eagertape.constant"),
    ("Variable-None", lambda: et.Variable(None), ValueError, "argument `initial_value`"),
    ("Variable-string", lambda: et.Variable("w"), TypeError, "argument `initial_value`"),
    ("watch-float", lambda: et.GradientTape().watch(3.0), ValueError, "of type 'float'"),
    ("watch-None", lambda: et.GradientTape().watch(None), ValueError, "NoneType"),
    ("watch-in-list", lambda: et.GradientTape().watch([et.constant(1.0), "x"]), ValueError, "of type 'str'"),
    ("watch-not-entered", lambda: et.GradientTape().watch(et.constant(1.0)), RuntimeError, "not active"),
    ("gradient-target-None", lambda: _grad(None, "x"), TypeError, "Argument `target`"),
    ("gradient-target-float", lambda: _grad(3.0, "x"), TypeError, "argument `target`"),
    ("gradient-target-None-leaf", lambda: _grad(["y", None], "x"), TypeError, r"argument `target`\[1\]"),
    ("gradient-sources-None", lambda: _grad("y", None), TypeError, "argument `sources`"),
    ("gradient-sources-ndarray", lambda: _grad("y", np.ones(2)), TypeError, "argument `sources`"),
    ("gradient-sources-string", lambda: _grad("y", ["x", "abc"]), TypeError, r"argument `sources`\[1\]"),
    ("gradient-unconnected", lambda: _grad("y", "x", unconnected_gradients="ZERO"), ValueError,
     "Unknown value for unconnected_gradients: 'ZERO'"),
    ("output_gradients-count", lambda: _grad("y", "x", output_gradients=[1.0, 2.0]), ValueError,
     "argument `output_gradients` has 2 entries for 1"),
    ("output_gradients-shape", lambda: _grad("y", "x", output_gradients=np.ones(3)), ValueError,
     r"output_gradients`\[0\] has shape \(3,\)"),
    ("output_gradients-dtype", lambda: _grad("y", "x", output_gradients=et.constant([1.0, 1.0], dtype="float64")),
     TypeError, r"output_gradients`\[0\] has dtype float64"),
    ("output_gradients-string", lambda: _grad("y", "x", output_gradients=["a"]), TypeError, "output_gradients"),
    ("never-entered-gradient", lambda: et.GradientTape(persistent=True).gradient(et.constant(1.0), et.constant(1.0)),
     RuntimeError, "can only be used to compute one set"),
    ("re-enter", _reenter, ValueError, "Tape is still recording"),
    ("reset-outside", lambda: et.GradientTape().reset(), ValueError, "Tape is not recording"),
    ("stop_recording-never-entered", lambda: et.GradientTape().stop_recording().__enter__(), RuntimeError,
     "not recording"),
    ("custom-gradient-count", _custom_wrong_count, ValueError, "expected to return 2 gradients, but returned 1"),
    ("cache-size", lambda: et.set_replay_cache_size(0), ValueError, "argument `maxsize`"),
    ("len-of-scalar", lambda: len(et.constant(1.0)), TypeError, "len"),
    ("index-with-float", lambda: [1, 2][et.constant(1.0)], TypeError, "integer"),
    ("bool-of-vector", lambda: bool(et.constant([1.0, 2.0])), ValueError, "ambiguous"),
]


@pytest.mark.parametrize("fn,exc,match", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises_a_clear_error_and_leaves_nothing(fn, exc, match):
    with pytest.raises(exc, match=match):
        fn()
    assert state.tapes == [] and state.var_watchers == []
    # the next computation is correct
    x = et.constant(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0


@pytest.mark.parametrize("bad,exc", [([1.0, 2.0, 3.0], ValueError), (et.constant([1, 2]), TypeError),
                                     ("ab", TypeError), ([[1.0, 2.0]], ValueError), (None, TypeError)])
@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_failed_assign_leaves_the_variable_unchanged(method, bad, exc):
    v = et.Variable([1.0, 2.0])
    with pytest.raises(exc, match="argument `(value|delta)`"):
        getattr(v, method)(bad)
    assert v.numpy().tolist() == [1.0, 2.0]


def test_error_inside_custom_grad_fn_propagates_and_leaves_the_tape_usable():
    @et.custom_gradient
    def f(x):
        def grad(dy):
            raise RuntimeError("boom from grad")
        return x * 2, grad
    x = et.constant(1.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
        z = x * 3
    with pytest.raises(RuntimeError, match="boom from grad"):
        tape.gradient(y, x)
    assert float(tape.gradient(z, x)) == 3.0       # fact 7: we do not half-consume it


def test_exception_in_with_block_pops_every_tape():
    x = et.constant(2.0)
    outer, inner = et.GradientTape(), et.GradientTape()
    with pytest.raises(ZeroDivisionError):
        with outer, inner:
            outer.watch(x)
            y = x * x
            1 / 0
    assert state.tapes == []
    assert float(outer.gradient(y, x)) == 4.0
    assert tnp.sum(y).numpy() == 4.0
