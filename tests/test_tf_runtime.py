"""TF's remaining top-level names (array ops, eager-mode runtime helpers,
initializers) against TensorFlow 2.21, the left-out names' errors, and
``python -m eagertape coverage``."""
import subprocess
import sys

import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle

X = np.arange(1.0, 25.0, dtype=np.float32).reshape(2, 3, 4) / 7.0


def _run(tf, program):
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = program(tf, x)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        floats = [o for o in outs if o.dtype in (tf.float32, tf.float64)]
        total = tf.add_n([tf.reduce_sum(o * o) for o in floats]) if floats else None
    grad = None if total is None else tape.gradient(total, x)
    return outs, None if grad is None else grad.numpy()


PROGRAMS = {
    "strided_slice": lambda tf, x: tf.strided_slice(x, [0, 1, 0], [2, 3, 4], [1, 1, 2]),
    "strided_slice_masks": lambda tf, x: tf.strided_slice(
        x, [1, 0, 3], [2, 2, 0], [1, 1, -1], begin_mask=2, end_mask=4, shrink_axis_mask=1),
    "strided_slice_newaxis_ellipsis": lambda tf, x: tf.strided_slice(
        x, [0, 0, 1], [0, 0, 3], [1, 1, 1], ellipsis_mask=1, new_axis_mask=2),
    "reverse_sequence": lambda tf, x: tf.reverse_sequence(x, [3, 1], seq_axis=2, batch_axis=0),
    "reverse_sequence_batch_last": lambda tf, x: tf.reverse_sequence(
        tf.transpose(x, [2, 1, 0]), [2, 3], seq_axis=1, batch_axis=2),
    "space_to_batch_nd": lambda tf, x: tf.space_to_batch_nd(
        tf.reshape(x, [1, 4, 3, 2]), [2, 2], [[0, 0], [0, 1]]),
    "batch_to_space": lambda tf, x: tf.batch_to_space(
        tf.reshape(x, [4, 2, 3, 1]), [2, 2], [[0, 1], [1, 0]]),
    "space_to_batch": lambda tf, x: tf.space_to_batch(tf.reshape(x, [2, 6, 2]), [3], [[0, 0]]),
    "dynamic_partition": lambda tf, x: tf.dynamic_partition(x, [[0, 2, 1], [2, 2, 0]], 3),
    "dynamic_stitch": lambda tf, x: tf.dynamic_stitch(
        [[0, 3], [1, 2, 3]], [x[0, :2], x[1]]),
    "bitcast": lambda tf, x: tf.bitcast(x, tf.int32),
    "bitcast_narrow": lambda tf, x: tf.bitcast(tf.cast(x, tf.float64), tf.int32),
    "histogram_fixed_width": lambda tf, x: tf.histogram_fixed_width(x, [0.5, 3.0], nbins=5),
    "histogram_bins": lambda tf, x: tf.histogram_fixed_width_bins(x, [0.5, 3.0], nbins=5),
    "approx_top_k": lambda tf, x: tuple(tf.math.approx_max_k(tf.reshape(x, [4, 6]), 2)),
    "grad_pass_through": lambda tf, x: tf.grad_pass_through(tf.round)(x * 3.0),
    "initializers": lambda tf, x: (tf.constant_initializer([1., 2., 3., 4.])([2, 2]),
                                   tf.zeros_initializer()([2], tf.int64),
                                   tf.ones_initializer()([3]), x),
    "tuple_group": lambda tf, x: tf.tuple([x, x * 2]) + [tf.identity(x)],
    "realdiv": lambda tf, x: tf.realdiv(x, x[0] + 1.0),
    "required_space_to_batch_paddings": lambda tf, x: tf.required_space_to_batch_paddings(
        [5, 7], [2, 3], base_paddings=[[1, 0], [0, 2]]) + (x,),
    "recompute_grad": lambda tf, x: tf.recompute_grad(lambda a: tf.sin(a) * tf.exp(a / 3.0))(x),
    "matrix_square_root": lambda tf, x: tf.linalg.sqrtm(tf.eye(3) * 4.0) @ tf.reshape(x, [3, 8]),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_as_tensorflow(name):
    # TF's side from the TF oracle (tests/tf_oracle.py): once for both modes
    want = tf_oracle.tf_outcome(_run, PROGRAMS[name])
    assert not want.raised, f"TF raised {want.error!r}"
    got = tf_oracle.run(etf, _run, PROGRAMS[name])
    if got.raised:
        raise got.exc
    (want_outs, want_grad), (got_outs, got_grad) = want.value[1], got.value[1]
    tf_oracle.assert_same(got_outs, want_outs, rtol=1e-6, atol=0, where="outputs")
    # where TF gives no gradient, eagertape may give zeros
    tf_oracle.assert_same(got_grad, want_grad, rtol=1e-5, atol=1e-6, none_as_zeros=True,
                          where="gradient")


@pytest.mark.parametrize("program", [
    lambda tf: tf.reverse_sequence(tf.ones([2, 3]), [4, 1], seq_axis=1),
    lambda tf: tf.space_to_batch_nd(tf.ones([1, 3, 1]), [2], [[0, 0]]),
    lambda tf: tf.dynamic_partition(tf.ones([3]), [0, 1, 5], 2),
    lambda tf: tf.bitcast(tf.ones([3], tf.int8), tf.int32),
])
def test_same_error_class_as_tensorflow(program):
    theirs = tf_oracle.tf_outcome(program)
    assert theirs.raised and theirs.error.is_a(("InvalidArgumentError", "ValueError")), theirs
    with pytest.raises(etf.errors.InvalidArgumentError):
        program(etf)


def test_eager_runtime_helpers_behave_as_in_tfs_eager_mode():
    tf = pytest.importorskip("tensorflow")
    for lib in (tf, etf):
        x = lib.constant([1.0, 2.0])
        assert lib.no_op() is None and lib.group(x) is None
        with lib.control_dependencies([x]), lib.device("/CPU:0"), lib.device(None):
            y = x * 2
        assert lib.get_static_value(y).tolist() == [2.0, 4.0]
        assert not lib.inside_function()
        assert lib.get_static_value(np.ones(2)).tolist() == [1.0, 1.0]
        with lib.name_scope("outer"), lib.name_scope("inner"):
            assert lib.get_current_name_scope() == "outer/inner"
        assert lib.get_logger().name == "tensorflow"
        assert lib.timestamp().dtype == np.float64
        v = lib.Variable(1.0, synchronization=lib.VariableSynchronization.ON_WRITE,
                         aggregation=lib.VariableAggregation.MEAN)
        with lib.GradientTape(persistent=True) as tape:
            with lib.init_scope():
                paused = v * 3.0
            kept = v * 5.0
        assert tape.gradient(paused, v) is None and float(tape.gradient(kept, v)) == 5.0
        with pytest.raises(ValueError):
            with lib.device("/bogus_device:xyz"):
                pass
        with pytest.raises((TypeError, ValueError)):
            lib.constant_initializer([1.0, 2.0, 3.0])([2, 2])

    @etf.function
    def traced(x):
        assert etf.inside_function() and etf.is_symbolic_tensor(x)
        assert etf.get_static_value(x) is None
        return x + 1
    assert float(traced(etf.constant(1.0))) == 2.0


def test_recompute_grad_recomputes_in_the_backward_pass():
    f = etf.recompute_grad(lambda a: etf.reduce_sum(etf.tanh(a) ** 2))
    x = etf.constant(X)
    with etf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                               2 * np.tanh(X) * (1 - np.tanh(X) ** 2), rtol=1e-5, atol=1e-6)
    assert all(t.remat for t in f._traces.values())
    assert etf.matrix_square_root is etf.linalg.sqrtm and etf.fftnd is etf.signal.fftnd


def test_approx_min_k_is_max_k_of_the_negation():
    # (TF's CPU kernel has only max_k along the last axis)
    x = etf.constant(X)
    v, i = etf.math.approx_min_k(x, 2, reduction_dimension=1)
    w, j = etf.math.approx_max_k(-etf.transpose(x, [0, 2, 1]), 2)
    np.testing.assert_array_equal(v.numpy(), -etf.transpose(w, [0, 2, 1]).numpy())
    np.testing.assert_array_equal(i.numpy(), etf.transpose(j, [0, 2, 1]).numpy())


def test_left_out_names_say_why():
    for name, why in [("ragged_fill_empty_rows", "ragged"), ("fingerprint", "Fingerprint64"),
                      ("hessians", "GradientTape"), ("RegisterGradient", "custom_gradient"),
                      ("qint8", "quantized"), ("import_graph_def", "graph-mode")]:
        with pytest.raises(AttributeError, match=f"left out of eagertape's TensorFlow facade: "
                                                 f".*{why}"):
            getattr(etf, name)
    with pytest.raises(AttributeError, match="not supported by eagertape's TensorFlow facade yet"):
        etf.no_such_name_in_tf


@pytest.mark.subprocess
def test_coverage_report_counts_what_the_facade_resolves():
    # The report is a tool of the checkout (tools/tf_coverage.py), not of the package.
    import runpy
    from pathlib import Path
    script = Path(__file__).resolve().parent.parent / "tools" / "tf_coverage.py"
    cov = runpy.run_path(str(script))
    names = {"": ["constant", "ragged_fill_empty_rows", "no_such_name"], "nest": ["flatten"]}
    rows = cov["coverage"](["", "nest"], names=names)
    assert rows[0]["resolved"] == ["constant"] and rows[0]["missing"] == ["no_such_name"]
    assert list(rows[0]["left_out"]) == ["ragged_fill_empty_rows"]
    assert rows[0]["numeric_coverage"] == 0.5 and rows[1]["numeric_coverage"] == 1.0
    lines = []
    cov["report"](rows, out=lines.append, uncounted=["strings"])
    text = " ".join(" ".join(lines).split())      # wrapped lines joined
    # The figure says what it counts: the namespaces, the denominator, the left-out
    # names (not covered), and the namespaces not counted.
    assert "in 2 namespaces (4 names): tf, tf.nest" in text
    assert "= 2 / (4 - 1) = 66.7%" in text
    assert "1 names eagertape.tf declares left out" in text and "not counted as covered" in text
    assert "2 / 4 = 50.0%" in text and "tf.strings" in text
    names, source, uncounted = cov["tf_names"]("stored")
    assert "keras" in uncounted and "math" not in uncounted and "2.21" in source
    # Both commands: the script, and the package's entry point that finds it.
    for cmd in ([str(script)], ["-m", "eagertape", "coverage"]):
        r = subprocess.run([sys.executable, *cmd, "--names", "stored"],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        assert "tf.math" in r.stdout and "coverage = resolved / (TF names - left out)" in r.stdout


def test_sobol_sample_is_tfs_sequence():
    for dim, n, skip in [(3, 5, 0), (10, 17, 4), (1, 3, 100)]:
        # TF's exact numbers (tests/tf_oracle.py)
        got = tf_oracle.check(lambda tf: tf.math.sobol_sample(dim, n, skip=skip), tf_raises=False,
                              rtol=0, atol=0)
        assert got.raw.dtype == np.float32
    assert etf.math.sobol_sample(2, 2, dtype=etf.float64).dtype == np.float64
