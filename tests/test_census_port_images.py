"""Gaps the census's image tutorials found (issue 38: classification, data_augmentation,
transfer_learning, pix2pix, adversarial_fgsm), each against TensorFlow's Keras in a
subprocess of its own (a test process's Keras is on JAX)."""
import os

import numpy as np
import pytest

import eagertape.tf as tf
import program_server

# pix2pix's downsample: a Conv2D whose kernel_initializer is TF's own initializer class
# (tf.random_normal_initializer there), built by its first call on an eager tensor.
_KERNEL = np.linspace(-0.5, 0.5, 4 * 4 * 3 * 2).reshape(4, 4, 3, 2).round(3).tolist()
_IMAGE = (np.arange(8 * 8 * 3).reshape(1, 8, 8, 3) % 7 / 7.0).round(3).tolist()
_PROGRAM = f"""
import numpy as np
layer = tf.keras.layers.Conv2D(2, 4, strides=2, padding='same', use_bias=False,
                               kernel_initializer=tf.constant_initializer({_KERNEL}))
y = layer(tf.constant({_IMAGE}, tf.float32))
print('@@' + repr(np.asarray(y).round(5).tolist()))
"""


def _tf_conv_output():
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("KERAS_BACKEND", None)
    r = program_server.run("import tensorflow as tf\n" + _PROGRAM, [],
                           preload="import tensorflow", env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return np.array(eval([ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1][2:]))


@pytest.mark.subprocess
def test_tf_initializer_in_a_layers_first_call_is_tfs():
    # The facade's initializers give facade Tensors; a layer built by its first call
    # drew its kernel as one, which lax.conv_general_dilated refused (ValueError:
    # "Triggering __jax_array__() during abstractification")
    layer = tf.keras.layers.Conv2D(2, 4, strides=2, padding="same", use_bias=False,
                                   kernel_initializer=tf.constant_initializer(_KERNEL))
    got = np.asarray(layer(tf.constant(_IMAGE, tf.float32)))
    assert got.shape == (1, 4, 4, 2)
    np.testing.assert_allclose(got, _tf_conv_output(), rtol=1e-5, atol=1e-5)
