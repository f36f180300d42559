"""Ops that take sizes or build from them, inside a tf.function, against TensorFlow
(issue 38's census: keras-io's transformer_asr and tf_serving).

1. Sizes made in a trace stay sizes: ``tf.constant([1, 1])`` and ``tf.concat`` of
   sizes (``tf.shape(x)[0]`` of a static shape, constants) are TF's folded
   constants, so ``tf.tile``, ``tf.reshape``, ``tf.fill`` take them (JAX had staged
   the constant, and a shape argument cannot be a traced value). Both for a
   static shape and for a None dimension (an input_signature). The constant keeps
   its value beside its traced array (tf/_shape_dims.py), through Cast, ExpandDims,
   StridedSlice, Pack, Concat, Identity, Range, Fill and arithmetic, and every
   shape argument (and ``tf.get_static_value``) reads it; a loop carrying it sees
   the traced value.
2. ``tf.image.resize`` in a tf.function traced for every size of its None
   dimensions (a SavedModel's signature): the weights are built in the trace from
   the symbolic height and width, for bilinear, nearest, bicubic and area, to a
   fixed size or to ``tf.shape(other)[1:3]``.
"""
import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle

_X = np.random.RandomState(0).rand(2, 7, 5, 3).astype(np.float32) * 255


def _causal_tile(tf, signature):
    # TransformerDecoder.causal_attention_mask (keras-io's transformer_asr).
    def body(target):
        shape = tf.shape(target)
        n = shape[1]
        m = tf.cast(tf.range(n)[:, None] >= tf.range(n), tf.int32)
        mask = tf.reshape(m, [1, n, n])
        mult = tf.concat([tf.expand_dims(shape[0], -1), tf.constant([1, 1], dtype=tf.int32)], 0)
        return tf.tile(mask, mult)
    f = tf.function(body, input_signature=signature(tf))
    return f(tf.zeros((3, 4, 2)))


def _shape_from_constants(tf, signature):
    def body(x):
        b = tf.shape(x)[0]
        return (tf.reshape(x, tf.constant([-1, 2])),
                tf.tile(x, tf.constant([1, 2])),
                tf.fill(tf.concat([[b], tf.constant([2])], 0), 7),
                tf.zeros(tf.stack([b, tf.constant(3)])),
                tf.reshape(x, tf.concat([tf.constant([2]), tf.expand_dims(b * 3 // 2, 0)], 0)))
    f = tf.function(body, input_signature=signature(tf))
    return f(tf.reshape(tf.range(12.0), (4, 3)))


_STATIC = lambda tf: None                                        # noqa: E731
_NONE_3D = lambda tf: [tf.TensorSpec([None, None, 2], tf.float32)]  # noqa: E731
_NONE_2D = lambda tf: [tf.TensorSpec([None, 3], tf.float32)]        # noqa: E731


@pytest.mark.parametrize("signature", [_STATIC, _NONE_3D], ids=["static", "none"])
def test_tile_by_concat_of_sizes(signature):
    tf_oracle.require()
    got = tf_oracle.check(_causal_tile, signature, tf_raises=False)
    assert got.raw.shape == (3, 4, 4)


@pytest.mark.parametrize("signature", [_STATIC, _NONE_2D], ids=["static", "none"])
def test_shape_arguments_from_constants(signature):
    tf_oracle.require()
    tf_oracle.check(_shape_from_constants, signature, tf_raises=False)


def _folded_shape_arguments(tf, signature):
    # TF folds each op building these sizes (tensor_util.constant_value): Cast,
    # ExpandDims, StridedSlice, Pack, Identity, Range, Size, Rank and arithmetic on
    # constants; each shape argument below reads one.
    def body(x):
        b = tf.shape(x)[0]
        c = tf.constant([1, 2, 6])
        img = tf.reshape(x, [1, -1, 3, 1])
        return (tf.reshape(x, tf.cast(tf.constant([6, 2]), tf.int64)),
                tf.reshape(x, tf.concat([tf.expand_dims(tf.constant(2), 0), [-1]], 0)),
                tf.reshape(x, c[1:]),
                tf.zeros(tf.stack([c[2] - 1, b])),
                tf.ones(tf.identity(tf.constant([2, 3])), tf.int32),
                tf.reshape(x, tf.range(tf.constant(3), 5)),
                tf.reshape(x, tf.constant([1, 3]) * 2),
                tf.fill([tf.constant(12) // 4, tf.constant(1) + 1], 1.5),
                tf.broadcast_to(x[:1], tf.constant([2, 3])),
                tf.slice(x, tf.constant([1, 0]), tf.constant([2, -1])),
                tf.image.resize(img, tf.constant([2, 2]), method="nearest"),
                tf.shape(tf.random.uniform(tf.constant([2, 5]))),
                tf.transpose(x, tf.constant([1, 0])),
                x[:tf.constant(2), tf.constant(1):])
    f = tf.function(body, input_signature=signature(tf))
    return f(tf.reshape(tf.range(12.0), (4, 3)))


def _sizes_of_a_static_shape(tf):
    # Size and Rank of a static shape fold too.
    @tf.function
    def f(x):
        return tf.reshape(x, tf.stack([tf.size(x) // tf.constant(4), tf.rank(x) + 2]))
    return f(tf.reshape(tf.range(12.0), (4, 3)))


def _static_values(tf):
    # What tf.get_static_value sees in the trace where TF folds (its constant_value:
    # Const, Shape, Concat, Pack, Cast, Range, Identity, Fill), and None for the
    # function's input. (TF folds no arithmetic there; eagertape's static shapes
    # know more: tf.shape(x)[0] is a constant.)
    seen = []

    def body(x):
        for t in (tf.constant([1, 2]), tf.concat([tf.shape(x), tf.constant([2])], 0),
                  tf.stack([tf.constant(4), 5]), tf.cast(tf.constant([7]), tf.int64),
                  tf.range(tf.constant(3)), tf.identity(tf.constant(2)), tf.fill([2], 3), x):
            v = tf.get_static_value(t)
            seen.append(None if v is None else np.asarray(v))
        return x
    tf.function(body)(tf.zeros((4, 3)))
    return seen


@pytest.mark.parametrize("signature", [_STATIC, _NONE_2D], ids=["static", "none"])
def test_folded_shape_arguments(signature):
    tf_oracle.require()
    tf_oracle.check(_folded_shape_arguments, signature, tf_raises=False)


def test_sizes_of_a_static_shape():
    tf_oracle.require()
    tf_oracle.check(_sizes_of_a_static_shape, tf_raises=False)


def test_static_values_in_a_trace():
    tf_oracle.require()
    tf_oracle.check(_static_values, tf_raises=False)


def test_a_folded_constant_stays_traced_in_a_loop():
    # The folded value is beside the traced one, not instead of it: a loop carries a
    # counter made by tf.constant, and a converted loop over tf.range of a constant
    # writes a dynamic TensorArray at its known indices (making small constants
    # concrete in a trace had broken such a loop).
    def prog(tf):
        @tf.function
        def f(x):
            i = tf.constant(0)
            ta = tf.TensorArray(tf.float32, size=3, element_shape=())
            while i < tf.constant(3):
                ta = ta.write(i, x * tf.cast(i, tf.float32))
                i += 1
            grow = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
            for k in tf.range(tf.constant(3)):
                grow = grow.write(k, x + tf.cast(k, tf.float32))
            return ta.stack(), i, grow.stack()
        return f(tf.constant(2.0))
    tf_oracle.require()
    tf_oracle.check(prog, tf_raises=False)


def _resize_any_size(tf, method, size):
    @tf.function(input_signature=[tf.TensorSpec([None, None, None, 3], tf.float32)])
    def f(img):
        return tf.image.resize(img, size, method=method)
    return f(tf.constant(_X)), f(tf.constant(_X[:1, :4, :6]))


def _resize_to_other(tf):
    spec = tf.TensorSpec([None, None, None, 3], tf.float32)

    @tf.function(input_signature=[spec, spec])
    def f(img, like):
        return tf.image.resize(img, tf.shape(like)[1:3])
    return f(tf.constant(_X), tf.zeros((1, 4, 9, 3)))


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "area"])
@pytest.mark.parametrize("size", [(32, 32), (3, 4)])
def test_resize_of_none_sizes(method, size):
    tf_oracle.require()
    tf_oracle.check(_resize_any_size, method, size, tf_raises=False, rtol=1e-5, atol=1e-3)


def test_resize_to_a_symbolic_size():
    tf_oracle.require()
    tf_oracle.check(_resize_to_other, tf_raises=False, rtol=1e-5, atol=1e-3)


def test_resize_saved_for_none_sizes(tmp_path):
    # What kio_tf_serving does: the signature is traced once for every size.
    tf_oracle.require()
    want = tf_oracle.tf_outcome(_resize_any_size, "bilinear", (32, 32)).value

    @etf.function(input_signature=[etf.TensorSpec([None, None, None, 3], etf.float32)])
    def f(img):
        return etf.image.resize(img, (32, 32))
    m = etf.Module()
    m.f = f
    etf.saved_model.save(m, str(tmp_path / "m"), signatures={"serving_default": f})
    got = tf_oracle.normalise((f(etf.constant(_X)), f(etf.constant(_X[:1, :4, :6]))))
    tf_oracle.assert_same(tf_oracle.Outcome(value=got), tf_oracle.Outcome(value=want),
                          rtol=1e-5, atol=1e-3)


def test_resize_keeping_aspect_of_none_sizes_is_a_clear_error(tmp_path):
    # The output's size would follow the symbolic input's: JAX compiles static shapes.
    @etf.function(input_signature=[etf.TensorSpec([None, None, None, 3], etf.float32)])
    def f(img):
        return etf.image.resize(img, (8, 8), preserve_aspect_ratio=True)
    with pytest.raises(ValueError, match="preserve_aspect_ratio"):
        etf.saved_model.save(etf.Module(), str(tmp_path / "m"), signatures={"serving_default": f})
