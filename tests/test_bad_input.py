"""Bad input and faults, one table: every public entry point given the wrong thing.

Each row is (id, a call, the exception type, a regex its message must match).
After every row, whatever it raised: no tape or accumulator is left recording,
no Variable the row touched has changed, no debug or tracing state is left on,
and a following computation (tape, Variable, optimizer, function, forward mode)
gives the right numbers. A second table holds the inputs for which TensorFlow
documents a result rather than an error (NaN, infinity, empty arrays, integer
sources, a tape used after reset): eagertape gives that result.
"""
import logging

import numpy as np
import pytest

import eagertape as et
from eagertape import introspect, nn, optimizers
from eagertape import numpy as tnp
from eagertape.tf import TensorSpec
from eagertape.tf.errors import InvalidArgumentError

# Variables a row touches, with their values before it: checked unchanged after.
_KEPT = []


def _kept(value):
    v = et.Variable(value)
    _KEPT.append((v, v.numpy().copy()))
    return v

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




def _persistent(x=None):
    x = et.constant([1.0, 2.0]) if x is None else x
    tape = et.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        y = x * x
    return tape, x, y


def _jacobian(**kwargs):
    tape, x, y = _persistent()
    return tape.jacobian(y, x, **kwargs)


def _batch_jacobian(x, **kwargs):
    tape, x, y = _persistent(et.constant(x))
    return tape.batch_jacobian(y, x, **kwargs)


def _batch_jacobian_mismatch():
    x = et.constant([[1.0, 2.0]])
    tape = et.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        y = tnp.concatenate([x, x], axis=0)
    return tape.batch_jacobian(y, x)


def _custom(body, grad=None):
    @et.custom_gradient
    def f(x):
        return body(x)
    x = et.constant([1.0, 2.0])
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def _custom_without_variables_kwarg():
    w = _kept(2.0)

    @et.custom_gradient
    def f(x):
        return x * w, lambda dy: dy * w
    with et.GradientTape():
        f(et.constant(3.0))


def _accumulator_reentered():
    x = et.constant(1.0)
    acc = et.ForwardAccumulator(x, 1.0)
    with acc:
        with acc:
            pass


def _jvp(arg, **kwargs):
    x = et.constant(1.0)
    with et.ForwardAccumulator(x, 1.0) as acc:
        x * x
    return acc.jvp(arg, **kwargs)


def _twice_a_primal():
    x = et.constant(1.0)
    et.ForwardAccumulator([x, x], [1.0, 1.0])


def _function_with_signature(arg):
    f = et.function(lambda x: x * 2, input_signature=[TensorSpec([2], "float32")])
    return f(arg)


def _function_raising_after_assign():
    v = _kept([1.0, 2.0])

    @et.function
    def step(x):
        v.assign(v * 10)
        raise KeyError("boom in the function")
    step(et.constant(1.0))


def _function_unhashable():
    et.function(lambda x, opts: x)(et.constant(1.0), {"a", "b"})


def _apply(pairs_of):
    v, w = _kept([1.0, 2.0]), _kept([3.0])
    optimizers.Adam(0.1).apply_gradients(pairs_of(v, w))


def _minimize_bad_loss():
    v = _kept([1.0, 2.0])
    optimizers.SGD(0.1).minimize("loss", [v])


def _numerics_forward():
    with et.debug.check_numerics():
        tnp.log(et.constant(-1.0))


def _numerics_backward():
    x = et.constant(0.0)
    with et.debug.check_numerics():
        with et.GradientTape() as tape:
            tape.watch(x)
            y = tnp.sqrt(x) * 0.0
        tape.gradient(y, x)


def _assign_in_tape(method, bad):
    v = _kept([1.0, 2.0])
    with et.GradientTape():
        getattr(v, method)(bad)


def _raise_inside(*contexts):
    import contextlib
    with contextlib.ExitStack() as stack:
        for c in contexts:
            stack.enter_context(c)
        raise KeyError("user error inside the with block")


def _raise_in_stop_recording():
    tape = et.GradientTape()
    x = et.constant(2.0)
    with tape:
        tape.watch(x)
        with pytest.raises(KeyError):
            with tape.stop_recording():
                raise KeyError("user error inside stop_recording")
        y = x * x          # recording resumed after the block
    assert float(tape.gradient(y, x)) == 4.0
    raise KeyError("checked")


CASES = [
    ("constant-string", lambda: et.constant("abc"), TypeError, "argument `value`"),
    ("constant-None", lambda: et.constant(None), ValueError, "argument `value`"),
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
    # eagertape.numpy / nn: the message names the op and its argument shapes
    ("op-string", lambda: tnp.sin("abc"), InvalidArgumentError, "sin cannot take its arguments.*str"),
    ("op-None", lambda: tnp.add(et.constant(1.0), None), InvalidArgumentError,
     r"add cannot take its arguments \(\(\) float32\).*NoneType"),
    ("op-object", lambda: tnp.multiply(et.constant(1.0), object()), InvalidArgumentError, "object"),
    ("op-shapes", lambda: tnp.matmul(et.constant(np.ones((2, 3))), et.constant(np.ones((2, 3)))),
     InvalidArgumentError, r"matmul cannot take its arguments \(\(2, 3\) float64, \(2, 3\) float64\)"),
    ("op-broadcast", lambda: et.constant([1.0, 2.0]) + et.constant([1.0, 2.0, 3.0]), InvalidArgumentError,
     r"add cannot take its arguments \(\(2,\) float32, \(3,\) float32\)"),
    ("op-unknown-keyword", lambda: tnp.sum(et.constant([1.0]), axiss=0), InvalidArgumentError,
     "unexpected keyword argument 'axiss'"),
    ("op-axis", lambda: tnp.sum(et.constant([1.0]), axis=3), InvalidArgumentError, "axis 3 is out of bounds"),
    ("op-reshape", lambda: tnp.reshape(et.constant([1.0, 2.0]), (3,)), InvalidArgumentError, "cannot reshape"),
    ("op-dtype-name", lambda: tnp.zeros(3, dtype="float99"), TypeError, "float99"),
    ("op-under-tape", lambda: _under_tape(lambda x: tnp.matmul(x, x)), InvalidArgumentError, "matmul"),
    ("nn-string", lambda: nn.softmax("abc"), InvalidArgumentError, "softmax cannot take its arguments"),
    ("primitive-not-callable", lambda: et.primitive(3), TypeError, "argument `fn`"),
    ("stop_gradient-string", lambda: et.stop_gradient("abc"), TypeError, "argument `input`"),
    ("convert-string", lambda: et.convert_to_tensor("abc"), TypeError, "argument `value`"),
    ("convert-dtype", lambda: et.convert_to_tensor(1.0, dtype="float99"), TypeError, "argument `dtype`"),
    ("convert-lossy", lambda: et.convert_to_tensor(et.constant(1.5), dtype="int32"), TypeError,
     "cannot be converted to int32 implicitly"),
    ("cache-size-string", lambda: et.set_replay_cache_size("big"), ValueError, "argument `maxsize`"),
    # jacobian / batch_jacobian (TF's messages, sections R and S)
    ("jacobian-unconnected", lambda: _jacobian(unconnected_gradients="bad"), ValueError,
     "Unknown value for unconnected_gradients: 'bad'"),
    ("jacobian-parallel", lambda: _jacobian(parallel_iterations=-3), ValueError,
     "argument `parallel_iterations`"),
    ("jacobian-sources-string", lambda: _persistent()[0].jacobian(_persistent()[2], "x"), TypeError,
     "argument `sources`"),
    ("batch_jacobian-rank", lambda: _batch_jacobian([1.0, 2.0]), ValueError, "must have rank at least 2"),
    ("batch_jacobian-batch", _batch_jacobian_mismatch, ValueError, "Need first dimension of target shape"),
    # custom_gradient
    ("custom-not-a-pair", lambda: _custom(lambda x: x * 2), TypeError,
     "must return a pair \\(result, grad_fn\\), got Tensor"),
    ("custom-grad_fn-not-callable", lambda: _custom(lambda x: (x * 2, 3.0)), TypeError,
     "with a callable grad_fn, got float"),
    ("custom-forward-raises", lambda: _custom(lambda x: {}["missing"]), KeyError, "missing"),
    ("custom-gradient-shape", lambda: _custom(lambda x: (x * 2, lambda dy: et.constant([1.0, 2.0, 3.0]))),
     ValueError, r"gradient 0 has shape \(3,\) but its input has shape \(2,\)"),
    ("custom-gradient-string", lambda: _custom(lambda x: (x * 2, lambda dy: "abc")), TypeError,
     "argument `value`"),
    ("custom-variables-kwarg", _custom_without_variables_kwarg, TypeError,
     "grad_fn must accept keyword argument 'variables'"),
    # ForwardAccumulator
    ("accumulator-primal-string", lambda: et.ForwardAccumulator("abc", 1.0), TypeError, "argument `primals`"),
    ("accumulator-tangent-None", lambda: et.ForwardAccumulator(et.constant(1.0), None), ValueError,
     r"argument `tangents`\[0\]"),
    ("accumulator-tangent-shape", lambda: et.ForwardAccumulator(et.constant([1.0, 2.0]), [1.0, 2.0, 3.0]),
     ValueError, r"argument `tangents`\[0\] has shape \(3,\) but its primal has shape \(2,\)"),
    ("accumulator-structure", lambda: et.ForwardAccumulator([et.constant(1.0)] * 2, [1.0]), ValueError,
     "must have the same structure"),
    ("accumulator-primal-twice", _twice_a_primal, ValueError, "specified as a primal multiple times"),
    ("accumulator-reentered", _accumulator_reentered, ValueError, "Accumulator is already recording"),
    ("jvp-string", lambda: _jvp("abc"), TypeError, r"argument `primals`\[0\] of ForwardAccumulator.jvp"),
    ("jvp-unconnected", lambda: _jvp(et.constant(1.0), unconnected_gradients="bad"), ValueError,
     "Unknown value for unconnected_gradients"),
    # function
    ("function-not-callable", lambda: et.function(3), TypeError, "argument `func`"),
    ("function-signature-spec", lambda: et.function(lambda x: x, input_signature=[3]), TypeError,
     r"argument `input_signature`\[0\]"),
    ("function-signature-shape", lambda: _function_with_signature(et.constant([1.0, 2.0, 3.0])), TypeError,
     "does not match its input_signature"),
    ("function-signature-count",
     lambda: et.function(lambda x: x, input_signature=[TensorSpec([2], "float32")])(1.0, 2.0),
     TypeError, "input_signature has 1 argument"),
    ("function-unhashable", _function_unhashable, TypeError, "unhashable set"),
    ("function-raises-after-assign", _function_raising_after_assign, KeyError, "boom in the function"),
    # optimizers: a failed apply_gradients changes no Variable
    ("optimizer-learning-rate", lambda: optimizers.SGD(learning_rate=-1.0), ValueError,
     "argument `learning_rate` must be a positive number"),
    ("optimizer-learning-rate-string", lambda: optimizers.Adam(learning_rate="big"), ValueError,
     "argument `learning_rate`"),
    ("optimizer-momentum", lambda: optimizers.SGD(momentum=float("nan")), ValueError, "argument `momentum`"),
    ("apply-None", lambda: _apply(lambda v, w: None), TypeError, "argument `grads_and_vars` must be an iterable"),
    ("apply-not-pairs", lambda: _apply(lambda v, w: [v]), ValueError, r"argument `grads_and_vars`\[0\]"),
    ("apply-not-variable", lambda: _apply(lambda v, w: [(et.constant([1.0, 1.0]), et.constant([1.0, 1.0]))]),
     TypeError, "must be an eagertape.Variable"),
    ("apply-second-shape", lambda: _apply(lambda v, w: [(et.constant([1.0, 1.0]), v),
                                                      (et.constant([1.0, 1.0]), w)]),
     ValueError, r"has shape \(2,\) but the Variable has shape \(1,\)"),
    ("apply-gradient-string", lambda: _apply(lambda v, w: [("abc", v)]), TypeError, "grads_and_vars"),
    ("minimize-loss-string", _minimize_bad_loss, TypeError, "loss"),
    # Variables assigned under a tape
    ("assign-shape-under-tape", lambda: _assign_in_tape("assign", [1.0, 2.0, 3.0]), ValueError,
     "argument `value` has shape"),
    ("assign_add-string-under-tape", lambda: _assign_in_tape("assign_add", "ab"), TypeError, "argument `delta`"),
    # check_numerics
    ("numerics-forward", _numerics_forward, et.debug.NumericsError, "NaN in output 0 of op 'log'"),
    ("numerics-backward", _numerics_backward, et.debug.NumericsError, "(NaN|Inf).*sqrt"),
    # exceptions in the middle of with blocks
    ("raise-in-tapes", lambda: _raise_inside(et.GradientTape(), et.GradientTape(persistent=True)),
     KeyError, "user error"),
    ("raise-in-accumulator", lambda: _raise_inside(et.ForwardAccumulator(et.constant(1.0), 1.0)),
     KeyError, "user error"),
    ("raise-in-check_numerics", lambda: _raise_inside(et.debug.check_numerics(), et.GradientTape()),
     KeyError, "user error"),
    ("raise-in-stop_recording", _raise_in_stop_recording, KeyError, "checked"),
]


def _under_tape(f):
    x = et.constant(np.ones((2, 3)))
    with et.GradientTape() as tape:
        tape.watch(x)
        f(x)


def _next_computation_is_correct():
    x = et.constant(3.0)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0
    v = et.Variable([1.0, 2.0])
    opt = optimizers.SGD(0.5)
    with et.GradientTape() as tape:
        loss = tnp.sum(v * v)
    opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))
    assert v.numpy().tolist() == [0.0, 0.0]
    assert float(et.function(lambda a: a * 2)(et.constant(2.0))) == 4.0
    with et.ForwardAccumulator(x, 1.0) as acc:
        z = x * x
    assert float(acc.jvp(z)) == 6.0


def _assert_nothing_left():
    state = introspect.thread_state()
    assert state.tapes == [] and state.var_watchers == [] and state.accumulators == []
    assert state.capture is None and state.check_numerics is False
    for v, before in _KEPT:
        np.testing.assert_array_equal(v.numpy(), before, err_msg=f"{v.name} was changed")


@pytest.mark.parametrize("fn,exc,match", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises_a_clear_error_and_leaves_nothing(fn, exc, match):
    _KEPT.clear()
    with pytest.raises(exc, match=match):
        fn()
    _assert_nothing_left()
    _next_computation_is_correct()


def _after_reset(watch_again):
    x = et.constant(2.0)
    tape = et.GradientTape()
    with tape:
        tape.watch(x)
        y = x * x
        tape.reset()          # forgets y's ops and that x was watched
        if watch_again:
            tape.watch(x)
        z = x * x * x
    return tape.gradient([y, z], x)


def _gradient_of(f, x, **kwargs):
    x = et.constant(x)
    with et.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x, **kwargs)


RESULTS = [
    # (id, call, expected value; None means the gradient is None)
    ("nan-propagates", lambda: _gradient_of(lambda x: x * x, float("nan")), np.float32(np.nan)),
    ("inf-gradient", lambda: _gradient_of(tnp.log, 0.0), np.float32(np.inf)),
    ("inf-input", lambda: _gradient_of(tnp.exp, -np.inf), np.float32(0.0)),
    ("empty-array", lambda: _gradient_of(lambda x: tnp.sum(x * x), np.zeros((0, 3), np.float32)),
     np.zeros((0, 3), np.float32)),
    ("empty-unconnected-zero", lambda: _gradient_of(lambda x: et.constant(1.0), np.zeros((0,), np.float32),
                                                    unconnected_gradients="zero"), np.zeros((0,), np.float32)),
    ("integer-source", lambda: _gradient_of(lambda x: x * x, 10), None),                 # fact 28
    ("integer-source-zero", lambda: _gradient_of(lambda x: x * x, 10, unconnected_gradients="zero"),
     np.int32(0)),
    ("after-reset", lambda: _after_reset(False), None),
    ("after-reset-watched-again", lambda: _after_reset(True), np.float32(12.0)),     # z only
    ("unconnected", lambda: _gradient_of(lambda x: et.constant(1.0), 1.0), None),
]


@pytest.mark.parametrize("fn,expected", [c[1:] for c in RESULTS], ids=[c[0] for c in RESULTS])
def test_documented_results(fn, expected, caplog):
    with caplog.at_level(logging.WARNING, logger="eagertape"):
        got = fn()
    if expected is None:
        assert got is None
    else:
        assert got.dtype == np.asarray(expected).dtype
        np.testing.assert_array_equal(got.numpy(), expected)
    _assert_nothing_left()
    _next_computation_is_correct()




@pytest.mark.parametrize("bad,exc", [([1.0, 2.0, 3.0], ValueError), (et.constant([1, 2]), TypeError),
                                     ("ab", TypeError), ([[1.0, 2.0]], ValueError), (None, ValueError)])
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
    assert introspect.thread_state().tapes == []
    assert float(outer.gradient(y, x)) == 4.0
    assert tnp.sum(y).numpy() == 4.0
