"""What real TF-2 programs met (issue 35), each against TensorFlow: a Tensor's
``get_shape``/``set_shape`` and the writable copy ``numpy()`` gives, and
``tf.train.list_variables``'s entries. (``tf.image.resize``'s sampling is in
test_tf_image.py, deferred checkpoint restoration in test_tf_checkpoint.py.)
"""
import numpy as np
import pytest

import tf_oracle

tf_oracle.require()


def _set_shape(lib, shape):
    x = lib.constant([[1.0, 2.0], [3.0, 4.0]])
    x.set_shape(shape)          # returns None; raises where the shape does not fit
    v = lib.Variable([1.0, 2.0])
    return x.get_shape(), v.get_shape(), x.shape


@pytest.mark.parametrize("shape", [[2, 2], [None, 2], (2, 2), None, [3, 2], [2], 3, "a",
                                   [2.5]], ids=str)
def test_set_shape_checks_as_tensorflow_does(shape):
    tf_oracle.check(_set_shape, shape, errors="class")


def test_set_shape_takes_a_tensor_shape():
    tf_oracle.check(lambda lib: _set_shape(lib, lib.TensorShape([2, None])))
    tf_oracle.check(lambda lib: _set_shape(lib, lib.TensorShape(None)))


def _numpy_is_the_programs_copy(lib):
    x = lib.constant([[1.0, 2.0], [3.0, 4.0]])
    a = x.numpy()
    writable = a.flags.writeable
    a /= 2.0                    # Keras's preprocess_input divides in place
    v = lib.Variable([1.0, 2.0])
    b = v.numpy()
    b[0] = 9.0
    return (writable, a, x, np.shares_memory(x.numpy(), x.numpy()), v, b.flags.writeable,
            type(lib.constant(3.0).numpy()).__name__)


def test_numpy_is_a_writable_copy_as_in_tensorflow():
    got = tf_oracle.check(_numpy_is_the_programs_copy)
    assert got.value[1][0] == ("py", "bool", True)        # the comparison compared something


def _listed(lib):
    import os
    import tempfile

    class Net(lib.Module):
        def __init__(self):
            super().__init__()
            self.w = [lib.Variable(np.ones((2, 3), "float32")), lib.Variable(2.5)]
            self.sub = lib.Module()
            self.sub.b = {"bias": lib.Variable(np.arange(3, dtype="float32"))}

    path = lib.train.Checkpoint(net=Net(), step=lib.Variable(3)).save(
        os.path.join(tempfile.mkdtemp(), "ckpt"))
    reader = lib.train.load_checkpoint(path)
    return (lib.train.list_variables(path), reader.has_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"),
            sorted(reader.get_variable_to_shape_map().items()))


def test_list_variables_has_tensorflows_entries():
    pytest.importorskip("orbax.checkpoint")
    got = tf_oracle.check(_listed)
    assert got.value[1][0][1][0][1][0][2] == "_CHECKPOINTABLE_OBJECT_GRAPH"
