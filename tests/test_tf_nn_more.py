"""The rest of ``tf.nn`` (TF 2.21's names beyond the activations, losses,
convolutions and pooling of test_tf_facade.py), differential against TensorFlow:
each program runs in TF and in eagertape.tf; values, dtypes, shapes, gradients of
a weighted sum of the float outputs (or TF's LookupError / None) and error
classes are compared. Left-out names raise AttributeError with their reason.
"""
import builtins

import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle
from tf_compare import compare

tf = tf_oracle.require()    # TensorFlow, imported where a test reads it

rng = np.random.default_rng(1)
X = rng.normal(size=(2, 7, 8, 3)).astype(np.float32)
W = rng.normal(size=(3, 3, 3, 4)).astype(np.float32)
WT = rng.normal(size=(3, 3, 4, 3)).astype(np.float32)        # transpose: [h, w, out, in]
DW = rng.normal(size=(3, 2, 3, 2)).astype(np.float32)        # depthwise: [h, w, in, mult]
MF = rng.normal(size=(3, 2, 3)).astype(np.float32) * 0.3     # morphology: [h, w, depth]
# integer-valued images: windows with tied maxima (the gradient's first-maximum rule)
TIES = rng.integers(0, 3, size=(2, 5, 6, 2)).astype(np.float32)
LOGITS = rng.normal(size=(9, 3, 5)).astype(np.float32)       # [frames, batch, classes]
LABELS = np.array([[1, 2, 2, 0], [3, 1, 0, 0], [4, 4, 4, 2]], np.int32)
ISO = rng.normal(size=(3, 7)).astype(np.float32)
EMB_W = rng.normal(size=(10, 4)).astype(np.float32)
EMB_B = rng.normal(size=(10,)).astype(np.float32)
EMB_X = rng.normal(size=(3, 4)).astype(np.float32)


def _compare(prog, inputs, atol=2e-5, int_atol=0, grad_atol=1e-4):
    compare(prog, inputs, atol=atol, int_atol=int_atol, grad_atol=grad_atol)


def _conv_op(lib, x, rank, padding):
    # with_space_to_batch's `op`: a VALID/SAME 2-D convolution with W's shape.
    return lib.nn.convolution(x, lib.constant(W), padding=padding)


def _sampled(lib, labels, sampled):
    # Fixed sampled_values make the sampled losses deterministic.
    return (lib.constant(sampled, lib.int64), lib.constant(np.full(labels.shape, 0.3, np.float32)),
            lib.constant(np.linspace(0.1, 0.9, len(sampled)).astype(np.float32)))


SAMPLED = np.array([2, 7, 3, 9], np.int64)
TRUE1 = np.array([[2], [5], [9]], np.int64)
TRUE2 = np.array([[2, 3], [5, 1], [9, 9]], np.int64)

CASES = {
    # convolutions
    **{f"atrous_conv2d_{r}_{p}": ((lambda r, p: lambda lib, x, w: lib.nn.atrous_conv2d(
        x, w, r, p))(r, p), [X, W]) for r in (1, 2, 3) for p in ("SAME", "VALID")},
    **{f"atrous_conv2d_transpose_{r}_{p}": ((lambda r, p, s: lambda lib, x, w:
                                             lib.nn.atrous_conv2d_transpose(x, w, s, r, p))(
        r, p, [2, 7 + (0 if p == "SAME" else 2 * r), 8 + (0 if p == "SAME" else 2 * r), 4]),
        [X, WT]) for r in (1, 2) for p in ("SAME", "VALID")},
    **{f"depthwise_backprop_input_{s}_{p}": ((lambda s, p: lambda lib, w, dy:
                                              lib.nn.depthwise_conv2d_backprop_input(
        [2, 7, 8, 3], w, dy, [1, s, s, 1], p))(s, p),
        [DW, rng.normal(size=(2,) + ((4, 4) if s == 2 else (7, 8) if p == "SAME" else (5, 7))
                        + (6,)).astype(np.float32)])
       for s, p in ((1, "SAME"), (1, "VALID"), (2, "SAME"))},
    **{f"depthwise_backprop_filter_{s}_{p}": ((lambda s, p: lambda lib, x, dy:
                                               lib.nn.depthwise_conv2d_backprop_filter(
        x, [3, 2, 3, 2], dy, [1, s, s, 1], p))(s, p),
        [X, rng.normal(size=(2,) + ((4, 4) if s == 2 else (7, 8) if p == "SAME" else (5, 7))
                       + (6,)).astype(np.float32)])
       for s, p in ((1, "SAME"), (1, "VALID"), (2, "SAME"))},
    **{f"with_space_to_batch_{r}_{p}": ((lambda r, p: lambda lib, x: lib.nn.with_space_to_batch(
        x, r, p, lambda i, n, pad: _conv_op(lib, i, n, pad), filter_shape=[3, 3]))(r, p), [X])
       for r in ([1, 1], [2, 2], [2, 3]) for p in ("SAME", "VALID")},
    # morphology: ties in TIES send the gradient to the first maximum
    **{f"dilation2d_{s}_{r}_{p}": ((lambda s, r, p: lambda lib, x, f: lib.nn.dilation2d(
        x, f, [1, s, s, 1], p, "NHWC", [1, r, r, 1]))(s, r, p), [TIES, MF[:, :, :2] * 0])
       for s in (1, 2) for r in (1, 2) for p in ("SAME", "VALID")},
    "dilation2d_empty": (lambda lib, x, f: lib.nn.dilation2d(
        x[:, :2], f, [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1]), [X, MF]),
    "max_pool_with_argmax_empty": (lambda lib, x: lib.nn.max_pool_with_argmax(
        x[:, :2], 3, 1, "VALID"), [X]),
    "dilation2d_random": (lambda lib, x, f: lib.nn.dilation2d(
        x, f, [1, 1, 2, 1], "SAME", "NHWC", [1, 1, 1, 1]), [X, MF]),
    **{f"erosion2d_{s}_{p}": ((lambda s, p: lambda lib, x, f: lib.nn.erosion2d(
        x, f, [1, s, s, 1], p, "NHWC", [1, 1, 2, 1]))(s, p), [X, MF])
       for s in (1, 2) for p in ("SAME", "VALID")},
    "erosion2d_ties": (lambda lib, x, f: lib.nn.erosion2d(
        x, f, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]), [TIES, MF[:, :, :2] * 0]),
    # max pooling with TF's flattened argmax
    **{f"max_pool_with_argmax_{k}_{s}_{p}_{b}": ((lambda k, s, p, b: lambda lib, x:
                                                  lib.nn.max_pool_with_argmax(
        x, k, s, p, include_batch_in_index=b))(k, s, p, b), [TIES])
       for k, s in ((2, 2), (3, 1), ([2, 3], [1, 2])) for p in ("SAME", "VALID")
       for b in (False, True)},
    # TF has no CPU gradient kernel for int32 indices: the indices alone
    "max_pool_with_argmax_int32": (lambda lib, x: lib.nn.max_pool_with_argmax(
        x, 2, 1, "VALID", output_dtype=lib.int32)[1], [X]),
    "batch_norm_global_scaled": (lambda lib, x, m, v, b, g:
                                 lib.nn.batch_norm_with_global_normalization(
        x, m, v, b, g, 1e-3, True), [X, X[0, 0, 0], np.abs(X[0, 1, 0]), X[1, 0, 0], X[1, 1, 1]]),
    "batch_norm_global_unscaled": (lambda lib, x, m, v, b, g:
                                   lib.nn.batch_norm_with_global_normalization(
        x, m, v, b, g, 1e-3, False), [X, X[0, 0, 0], np.abs(X[0, 1, 0]), X[1, 0, 0], X[1, 1, 1]]),
    # CTC
    "ctc_loss": (lambda lib, x, y: lib.nn.ctc_loss(y, x, [3, 2, 4], [9, 7, 8]), [LOGITS, LABELS]),
    "ctc_loss_batch_major": (lambda lib, x, y: lib.nn.ctc_loss(
        y, x, [3, 2, 4], [9, 9, 6], logits_time_major=False),
        [np.transpose(LOGITS, (1, 0, 2)), LABELS]),
    "ctc_loss_blank_last": (lambda lib, x, y: lib.nn.ctc_loss(
        y, x, [3, 2, 4], [9, 7, 8], blank_index=-1), [LOGITS, np.where(LABELS == 4, 0, LABELS)]),
    "ctc_loss_blank_2": (lambda lib, x, y: lib.nn.ctc_loss(
        y, x, [3, 2, 4], [9, 7, 8], blank_index=2), [LOGITS, np.where(LABELS == 2, 0, LABELS)]),
    "ctc_loss_int64": (lambda lib, x, y: lib.nn.ctc_loss(y, x, [3, 2, 4], [9, 7, 8]),
                       [LOGITS, LABELS.astype(np.int64)]),
    "ctc_loss_f16": (lambda lib, x, y: lib.nn.ctc_loss(y, x, [3, 2, 4], [9, 7, 8]),
                     [LOGITS.astype(np.float16), LABELS]),
    "ctc_unique_labels": (lambda lib, y: lib.nn.ctc_unique_labels(y), [LABELS]),
    "ctc_unique_labels_int64": (lambda lib, y: lib.nn.ctc_unique_labels(y),
                                [np.array([[3, 4, 4, 3, 7], [0, 0, 5, 5, 5]], np.int64)]),
    "collapse_repeated": (lambda lib, y: lib.nn.collapse_repeated(y, [4, 3, 2]), [LABELS]),
    "collapse_repeated_int64_len": (lambda lib, y: lib.nn.collapse_repeated(
        y, lib.constant([5, 3], lib.int64)), [np.array([[1, 1, 2, 2, 1], [1, 2, 3, 4, 5]])]),
    # isotonic regression: ties between blocks do not merge
    **{f"isotonic_{d}_{a}": ((lambda d, a: lambda lib, x: lib.nn.isotonic_regression(
        x, decreasing=d, axis=a))(d, a), [ISO]) for d in (True, False) for a in (-1, 0)},
    "isotonic_ties": (lambda lib, x: lib.nn.isotonic_regression(x),
                      [np.array([[3., 2, 2, 1, 5, 5], [1, 2, 2, 1, 5, 5]], np.float32)]),
    "isotonic_increasing_ties": (lambda lib, x: lib.nn.isotonic_regression(x, decreasing=False),
                                 [np.array([[3., 2, 2, 1, 5, 5], [1, 2, 2, 1, 5, 5]],
                                           np.float32)]),
    "isotonic_f64": (lambda lib, x: lib.nn.isotonic_regression(x, decreasing=False),
                     [rng.normal(size=(4, 6))]),
    "isotonic_int": (lambda lib, x: lib.nn.isotonic_regression(x),
                     [np.array([[1, 3, 2, 4]], np.int32)]),
    # sampled losses with fixed sampled_values, and accidental hits
    "compute_accidental_hits": (lambda lib, t, s: lib.nn.compute_accidental_hits(t, s, 2),
                                [TRUE2, np.array([2, 1, 5, 2, 9], np.int64)]),
    **{f"{fn}_{nt}_{rm}": ((lambda fn, t, rm: lambda lib, w, b, x: getattr(lib.nn, fn)(
        w, b, t, x, len(SAMPLED), 10, num_true=t.shape[1],
        sampled_values=_sampled(lib, t, SAMPLED), remove_accidental_hits=rm))(
        fn, TRUE1 if nt == 1 else TRUE2, rm), [EMB_W, EMB_B, EMB_X])
       for fn in ("nce_loss", "sampled_softmax_loss") for nt in (1, 2) for rm in (False, True)},
    "nce_loss_sharded": (lambda lib, w, b, x: lib.nn.nce_loss(
        [w[:5], w[5:]], b, TRUE1, x, 4, 10, sampled_values=_sampled(lib, TRUE1, SAMPLED)),
        [EMB_W, EMB_B, EMB_X]),
    # aliases
    "approx_max_k": (lambda lib, x: lib.nn.approx_max_k(x, 2), [ISO]),
    "space_to_batch": (lambda lib, x: lib.nn.space_to_batch(x, [2, 2], [[1, 0], [0, 0]]), [X]),
    "all_candidate_sampler": (lambda lib, t: lib.nn.all_candidate_sampler(t, 2, 10, True),
                              [TRUE2]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_tf(name):
    prog, inputs = CASES[name]
    tol = 2e-3 if name.endswith("f16") else 2e-5
    _compare(prog, inputs, atol=tol, grad_atol=max(tol, 1e-4))


def test_isotonic_regression_keeps_other_axes():
    # TF 2.21's own gradient for rank > 2 comes back flattened: checked against
    # the rank-2 program row by row instead.
    x = rng.normal(size=(2, 5, 3)).astype(np.float32)
    out, seg = etf.nn.isotonic_regression(x, axis=1)
    want = tf.nn.isotonic_regression(np.moveaxis(x, 1, -1).reshape(-1, 5))
    np.testing.assert_allclose(np.moveaxis(out.numpy(), 1, -1).reshape(-1, 5),
                               want.output.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(np.moveaxis(seg.numpy(), 1, -1).reshape(-1, 5),
                                  want.segments.numpy())


def test_approx_min_k_is_tf_math_s():
    # TF 2.21 has no CPU kernel for approx_min_k: compared with top_k of -x.
    v, i = etf.nn.approx_min_k(ISO, 3)
    tv, ti = tf.math.top_k(-ISO, 3)
    np.testing.assert_allclose(v.numpy(), -tv.numpy())
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    assert i.dtype == np.int32


ERRORS = {
    "atrous_rate_0": (lambda lib: lib.nn.atrous_conv2d(X, W, 0, "SAME")),
    "atrous_transpose_channels": (lambda lib: lib.nn.atrous_conv2d_transpose(
        X, W, [2, 7, 8, 4], 2, "SAME")),
    "atrous_transpose_out_channels": (lambda lib: lib.nn.atrous_conv2d_transpose(
        X[..., :1].repeat(4, -1), WT, [2, 7, 8, 5], 2, "SAME")),
    "depthwise_backprop_input_shape": (lambda lib: lib.nn.depthwise_conv2d_backprop_input(
        [2, 7, 8, 3], DW, np.ones((2, 6, 6, 6), np.float32), [1, 1, 1, 1], "SAME")),
    "depthwise_backprop_filter_shape": (lambda lib: lib.nn.depthwise_conv2d_backprop_filter(
        X, [3, 2, 3, 2], np.ones((2, 6, 6, 6), np.float32), [1, 1, 1, 1], "SAME")),
    "dilation2d_depth": (lambda lib: lib.nn.dilation2d(
        X, MF[:, :, :2], [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1])),
    "dilation2d_nchw": (lambda lib: lib.nn.dilation2d(
        X, MF, [1, 1, 1, 1], "SAME", "NCHW", [1, 1, 1, 1])),
    "dilation2d_too_big": (lambda lib: lib.nn.dilation2d(
        X[:, :1], MF, [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1])),
    "max_pool_with_argmax_too_big": (lambda lib: lib.nn.max_pool_with_argmax(
        X[:, :1], 3, 1, "VALID")),
    "with_space_to_batch_same_needs_filter": (lambda lib: lib.nn.with_space_to_batch(
        X, [2, 2], "SAME", lambda i, n, p: i)),
    "with_space_to_batch_rate_0": (lambda lib: lib.nn.with_space_to_batch(
        X, [0, 2], "VALID", lambda i, n, p: i)),
    "max_pool_with_argmax_rank": (lambda lib: lib.nn.max_pool_with_argmax(
        X[0], 2, 2, "VALID")),
    "accidental_hits_num_true": (lambda lib: lib.nn.compute_accidental_hits(
        TRUE2, SAMPLED, 1)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_classes_match_tf(name):
    theirs = tf_oracle.tf_outcome(ERRORS[name])
    assert theirs.raised, f"TF returned: {theirs}"
    ours = tf_oracle.run(etf, ERRORS[name])
    assert ours.raised, f"TF raised {theirs.error!r}; eagertape returned {ours}"
    t_name = theirs.error.name
    if t_name == "AbortedError" and "primitive descriptor" in theirs.error.message:
        # TF's oneDNN CPU kernels abort before the op's own shape check, which
        # is an InvalidArgumentError.
        t_name = "InvalidArgumentError"
    # TF's OpError classes have eagertape.tf.errors counterparts of the same name.
    want = getattr(etf.errors, t_name, None) or getattr(builtins, t_name, None)
    assert want is not None and isinstance(ours.exc, want), (t_name, type(ours.exc), ours.exc)


LEFT_OUT = {
    "RNNCellDeviceWrapper": "tf.keras layers", "RNNCellDropoutWrapper": "tf.keras layers",
    "RNNCellResidualWrapper": "tf.keras layers",
    "ctc_greedy_decoder": "SparseTensors", "ctc_beam_search_decoder": "SparseTensors",
    "fractional_max_pool": "random generator", "fractional_avg_pool": "random generator",
    "learned_unigram_candidate_sampler": "stateful kernel",
}


@pytest.mark.parametrize("name", sorted(LEFT_OUT))
def test_left_out_names_say_why(name):
    assert hasattr(tf.nn, name)
    with pytest.raises(AttributeError, match=f"tf.nn.{name} is left out of eagertape's "
                                             f"TensorFlow facade: .*{LEFT_OUT[name]}"):
        getattr(etf.nn, name)


def test_every_tf_nn_name_resolves_or_is_left_out():
    import types
    for name in dir(tf.nn):
        if name.startswith("_") or isinstance(getattr(tf.nn, name), types.ModuleType):
            continue
        try:
            getattr(etf.nn, name)
        except AttributeError as e:
            assert "is left out" in str(e), name


def test_the_aliases_are_the_other_namespaces_functions():
    assert etf.nn.space_to_batch is etf.space_to_batch
    assert etf.nn.all_candidate_sampler is etf.random.all_candidate_sampler
    assert etf.nn.fixed_unigram_candidate_sampler is etf.random.fixed_unigram_candidate_sampler
    etf.random.set_seed(4)
    s, t, e = etf.nn.fixed_unigram_candidate_sampler(TRUE1, 1, 3, True, 10,
                                                        unigrams=range(1, 11))
    assert s.dtype == np.int64 and tuple(s.shape) == (3,) and len(set(s.numpy())) == 3


def test_ctc_loss_under_tf_function_and_sampled_losses_sampling():
    f = etf.function(lambda x: etf.nn.ctc_loss(LABELS, x, [3, 2, 4], [9, 7, 8]))
    np.testing.assert_allclose(f(etf.constant(LOGITS)).numpy(),
                               tf.nn.ctc_loss(LABELS, LOGITS, [3, 2, 4], [9, 7, 8]).numpy(),
                               rtol=1e-5)
    # Without sampled_values the classes come from log_uniform_candidate_sampler:
    # a finite positive loss per example.
    loss = etf.nn.sampled_softmax_loss(EMB_W, EMB_B, TRUE1, EMB_X, 4, 10)
    assert tuple(loss.shape) == (3,) and np.all(np.isfinite(loss.numpy()))
