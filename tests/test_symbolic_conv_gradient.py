"""A gradient through a strided, valid or dilated convolution of a ``None`` size, in a
tf.function with an input_signature, is traced once, as TF traces it (issue 38's census:
deepdream's TiledGradients, an InceptionV3 gradient for every tile size).

JAX's transposes of ``conv_general_dilated`` compute the padding of the transposed
convolution from the sizes, which for a symbolic size is a symbolic size (``(in - k) %
stride`` rows after, for a valid one), and a convolution's padding must be a number:
JAX raised "padding argument to conv_general_dilated should be a string or a sequence of
(low, high) pairs". eagertape pads the operand with ``lax.pad`` instead, which takes a
symbolic padding, and calls JAX's rule with a padding of numbers
(``_function._symbolic_conv_transposes``, installed at its first trace of None sizes).

1. Against TF: convolutions, depthwise, dilated, pooling after them: values, gradients
   of the image and of the kernel, and one trace for three sizes.
2. Against jax.grad: the exported gradient of a symbolic size gives jax.grad's values at
   each size, for strides, SAME and explicit padding, dilations of the kernel and of the
   input (a transposed convolution) and feature groups.
"""
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tf_oracle

_SIZES = [(9, 11, 2), (12, 8, 2), (10, 13, 2)]


def _gradients_of_none_sizes(tf, case):
    rs = np.random.RandomState(0)
    w = tf.Variable(rs.randn(3, 3, 2, 3).astype("float32"))
    wd = tf.Variable(rs.randn(3, 3, 2, 1).astype("float32"))
    runs = []

    @tf.function(input_signature=[tf.TensorSpec([None, None, 2], tf.float32)])
    def f(img):
        runs.append(1)
        with tf.GradientTape() as tape:
            tape.watch(img)
            x = img[None]
            if case == "valid_stride_2":
                y = tf.nn.conv2d(x, w, 2, "VALID")
            elif case == "same_stride_3":
                y = tf.nn.conv2d(x, w, [3, 2], "SAME")
            elif case == "dilated":
                y = tf.nn.conv2d(x, w, 1, "VALID", dilations=2)
            elif case == "depthwise":
                y = tf.nn.depthwise_conv2d(x, wd, [1, 2, 2, 1], "VALID")
            elif case == "max_pool":
                y = tf.nn.max_pool2d(tf.nn.conv2d(x, w, 2, "VALID"), 3, 2, "VALID")
            else:
                y = tf.nn.avg_pool2d(tf.nn.conv2d(x, w, 1, "SAME"), 3, 2, "VALID")
            y = y * tf.reduce_mean(y)
            loss = tf.reduce_sum(y * y)
        return loss, tape.gradient(loss, [img, wd if case == "depthwise" else w])

    out = [f(tf.constant(np.random.RandomState(s).rand(*shape).astype("float32")))
           for s, shape in enumerate(_SIZES)]
    return out, len(runs)


@pytest.mark.parametrize("case", ["valid_stride_2", "same_stride_3", "dilated", "depthwise",
                                  "max_pool", "avg_pool"])
def test_gradient_through_convolutions_of_none_sizes_traces_once_as_tf(case):
    tf_oracle.require()
    got = tf_oracle.check(_gradients_of_none_sizes, case, tf_raises=False,
                          rtol=2e-4, atol=1e-3)
    assert got.value[1][1] == ("py", "int", 1)      # one trace for the three sizes


_JAX_CASES = {
    "valid": dict(window_strides=(2, 3), padding="VALID"),
    "same": dict(window_strides=(3, 2), padding="SAME"),
    "explicit_dilated_kernel": dict(window_strides=(2, 2), padding=[(1, 2), (0, 1)],
                                    rhs_dilation=(2, 1)),
    "dilated_input_strided": dict(window_strides=(2, 1), padding=[(1, 0), (2, 1)],
                                  lhs_dilation=(2, 2)),
    "feature_groups": dict(window_strides=(2, 2), padding="VALID", feature_group_count=2),
}


@pytest.mark.parametrize("case", list(_JAX_CASES))
def test_exported_convolution_gradient_of_a_symbolic_size_is_jax_grads(case):
    from eagertape._function import _symbolic_conv_transposes
    _symbolic_conv_transposes()
    c = _JAX_CASES[case]
    rs = np.random.RandomState(0)
    w = rs.randn(3, 2, 4 // c.get("feature_group_count", 1), 4).astype("float32")

    def loss(x, w):
        y = jax.lax.conv_general_dilated(x, w, dimension_numbers=("NHWC", "HWIO", "NHWC"), **c)
        return jnp.sum(y * jnp.cos(y))

    grad = jax.grad(loss, (0, 1))
    h, wd = jax.export.symbolic_shape("h, w")
    exported = jax.export.export(jax.jit(grad))(
        jax.ShapeDtypeStruct((1, h, wd, 4), jnp.float32), jax.ShapeDtypeStruct(w.shape, jnp.float32))
    for shape in [(1, 9, 11, 4), (1, 12, 10, 4), (1, 13, 14, 4)]:
        x = rs.rand(*shape).astype("float32")
        for got, want in zip(exported.call(x, w), grad(x, w)):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.subprocess
def test_importing_eagertape_leaves_jaxs_convolution_transposes_alone():
    # As the bound on JAX's size decisions: put in front of JAX's rules at eagertape's
    # first trace of None sizes, not at import.
    code = ("import eagertape.tf as tf, eagertape._jax_private as p; "
            "on = lambda: getattr(p.convolution, 'eagertape_symbolic_transposes', False); "
            "print(on()); "
            "f = tf.function(lambda x: x * 2.0, input_signature=[tf.TensorSpec([None])]); "
            "f(tf.ones([3])); print(on())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["False", "True"]
