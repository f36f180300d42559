"""A ``tf.function`` whose ``input_signature`` has ``None`` sizes never hangs in its
trace (issue 38, census deepdream): each valid or strided convolution nests one more
max(floordiv(...), 0) in the symbolic size, and JAX's bounds of such a size take time
exponential in the nesting (4 strided convolutions: 37 s, 5: not within 2 minutes).
eagertape bounds the deeply nested sizes of its traces by interval arithmetic
(``_function._bounded_decision``), so the trace is once, as TF's, and quick."""
import signal

import numpy as np
import pytest

import tf_oracle


class _Hung(BaseException):
    """(not an Exception: a failed symbolic trace's handler must not take it)"""


@pytest.fixture
def deadline():
    """Fail a test that runs past ``seconds`` rather than hang the suite."""
    def arm(seconds):
        def hung(*_):
            raise _Hung(f"still tracing after {seconds} s")
        signal.signal(signal.SIGALRM, hung)
        signal.alarm(seconds)
    yield arm
    signal.alarm(0)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)


def _strided_chain(tf):
    ws = [tf.constant(np.random.RandomState(i).randn(3, 3, 2, 2).astype("float32") * 0.5)
          for i in range(8)]

    @tf.function(input_signature=[tf.TensorSpec([None, None, None, 2], tf.float32)])
    def f(x):
        for w in ws:
            x = tf.nn.conv2d(x, w, 2, "VALID")
        return tf.reduce_sum(x, axis=[1, 2]), tf.shape(x)

    out = [f(tf.constant(np.random.RandomState(s).rand(*shape).astype("float32")))
           for s, shape in enumerate([(1, 520, 530, 2), (2, 600, 515, 2), (1, 1030, 770, 2)])]
    return out, f.experimental_get_tracing_count()


def test_strided_valid_convolutions_of_none_sizes_trace_once_as_tf(deadline):
    # Before the bound this trace did not end (8 such convolutions: the 4th took 37 s).
    deadline(240)
    got = tf_oracle.check(_strided_chain, rtol=1e-4, atol=1e-4)
    assert got.value[1][1] == ("py", "int", 1)      # one trace for the three sizes, as TF


def _strided_gradient(tf):
    w1 = tf.constant(np.random.RandomState(1).randn(3, 3, 2, 2).astype("float32"))
    w2 = tf.constant(np.random.RandomState(2).randn(3, 3, 2, 1).astype("float32"))
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None, None, 2], tf.float32)])
    def f(img):
        runs.append(1)
        with tf.GradientTape() as tape:
            tape.watch(img)
            y = tf.nn.conv2d(img[None], w1, 2, "VALID")
            y = tf.nn.max_pool2d(y, 3, 2, "VALID")
            y = tf.nn.conv2d(y, w2, 2, "VALID")
            loss = tf.reduce_mean(y)
        return loss, tape.gradient(loss, img)

    out = [f(tf.constant(np.random.RandomState(s).rand(*shape).astype("float32")))
           for s, shape in enumerate([(40, 44, 2), (50, 41, 2), (40, 44, 2), (61, 45, 2)])]
    return out, len(runs)


def test_a_gradient_through_strided_convolutions_of_none_sizes_traces_once_as_tf(deadline):
    # JAX's transposes of a strided valid convolution of a symbolic size ask for a
    # symbolic padding; eagertape's rules pad the operand instead
    # (tests/test_symbolic_conv_gradient.py), so the trace is one, with TF's values.
    deadline(240)
    import eagertape.tf as etf

    want = tf_oracle.tf_outcome(_strided_gradient)
    got = tf_oracle.run(etf, _strided_gradient)
    assert not got.raised, got.error
    (values, runs), (tf_values, tf_runs) = got.value[1], want.value[1]
    tf_oracle.assert_same(values, tf_values, rtol=1e-4, atol=1e-4)
    assert tf_runs == ("py", "int", 1)
    assert runs == ("py", "int", 1)


def test_interval_bounds_hold_for_every_size():
    import jax

    from eagertape._function import _BOUNDED_SCOPES, _interval
    from eagertape._jax_private import shape_poly

    scope = jax.export.SymbolicScope()
    _BOUNDED_SCOPES.add(scope)
    a, = jax.export.symbolic_shape("a", scope=scope)

    def layer(d, k, s):
        return ((d - k) // s + 1).max(0) if not isinstance(d, int) else max((d - k) // s + 1, 0)

    def chain(d):
        for k, s in [(3, 2), (3, 1), (3, 2), (2, 3), (5, 2)]:
            d = layer(d, k, s)
        return d

    e = chain(a) * 3 - (a % 4) + (a // 5).min(7)
    lo, hi = _interval(e, {}, shape_poly._DimExpr, shape_poly._DimFactor)
    values = [chain(n) * 3 - n % 4 + min(n // 5, 7) for n in range(1, 3000)]
    assert lo <= min(values) and max(values) <= hi
    assert lo == -3      # (the narrowest an interval can be: 0 * 3 - 3 + 0)
    # And what JAX is asked: max(...) >= 0 holds, answered without its procedure.
    assert chain(a) >= 0


def test_importing_eagertape_leaves_jaxs_size_decisions_alone():
    # No side effect at import: the bound is put in front of JAX's decision procedure
    # at eagertape's first trace of None sizes, not before.
    import subprocess
    import sys
    code = ("import eagertape.tf as tf, eagertape._jax_private as p; "
            "print(getattr(p.shape_poly._bounds_decision, 'eagertape_bounded', False)); "
            "f = tf.function(lambda x: x * 2.0, input_signature=[tf.TensorSpec([None])]); "
            "f(tf.ones([3])); f(tf.ones([4])); "
            "print(getattr(p.shape_poly._bounds_decision, 'eagertape_bounded', False))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["False", "True"]
