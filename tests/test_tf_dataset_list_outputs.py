"""A tf.data function that returns a list (a py_function's outputs are one) gives a
tuple of components, as TF's dataset functions take it, not one stacked tensor;
and tf.concat takes a tuple of tensors (census data_performance_guide: a
flat_map of from_generator, mapped by a py_function that concatenates strings;
then a string tensor indexed by a NumPy bool mask, TF's boolean_mask).
Compared with TensorFlow by tests/tf_oracle.py."""
import numpy as np
import pytest

import tf_oracle

tf_oracle.require()


def _steps():
    for i in range(2):
        yield ([("Open",), ("Read",)], [(1.0, 2.0), (3.0, 4.0)], [(0, 0, -1), (0, 0, i)])


def _generated(tf, *args):
    return tf.data.Dataset.from_generator(
        _steps, output_types=(tf.string, tf.float32, tf.int32),
        output_shapes=((2, 1), (2, 2), (2, 3)))


def _py_map(tf):
    def func(steps, times, values):
        return (tf.concat((steps, [["Map"]]), axis=0),
                tf.concat((times, [[5.0, 6.0]]), axis=0),
                tf.concat((values, [values[-1]]), axis=0))

    def wrapper(steps, times, values):
        return tf.py_function(func, inp=(steps, times, values),
                              Tout=(steps.dtype, times.dtype, values.dtype))
    return wrapper


def _elements(ds):
    return [e for e in ds]


PROGRAMS = {
    # The census program's pipeline (cell 64), made small.
    "flat_map_generator_py_map": lambda tf: _elements(
        tf.data.Dataset.range(2).flat_map(lambda *a: _generated(tf)).map(_py_map(tf))
        .batch(2, drop_remainder=True).unbatch()),
    "generator_py_map": lambda tf: _elements(_generated(tf).map(_py_map(tf))),
    "list_of_one_shape": lambda tf: _elements(
        tf.data.Dataset.range(3).map(lambda x: [x, x * 2])),
    "list_of_two_dtypes": lambda tf: _elements(
        tf.data.Dataset.range(2).map(lambda x: [x, tf.cast(x, tf.float32) / 2])),
    "list_then_batch": lambda tf: _elements(
        tf.data.Dataset.range(4).map(lambda x: [x, x + 1]).batch(2)),
    "list_element_spec": lambda tf: tf.data.Dataset.range(2).map(
        lambda x: [x, tf.cast(x, tf.float32)]).element_spec,
    "nested_list_kept": lambda tf: _elements(
        tf.data.Dataset.range(2).map(lambda x: ([x, x], x))),
    "concat_tuple": lambda tf: tf.concat((tf.constant([1.0]), tf.constant([2.0, 3.0])), 0),
    "concat_tuple_strings": lambda tf: tf.concat((tf.constant([["a"]]), [["b"]]), axis=0),
    "concat_one_tensor": lambda tf: tf.concat(tf.constant([[1, 2], [3, 4]]), 0),
    # Then the census program masks its string timeline by a NumPy bool array.
    "strings_by_numpy_mask": lambda tf: tf.constant([["a"], ["b"], ["c"]])[
        np.array([True, False, True])],
    "strings_by_bool_tensor": lambda tf: tf.constant([["a", "x"], ["b", "y"]])[
        tf.constant([False, True])],
    "numbers_by_numpy_mask": lambda tf: tf.constant([[1.0], [2.0], [3.0]])[
        np.array([True, False, True])],
    "strings_by_mask_of_wrong_length": lambda tf: tf.constant(["a", "b"])[
        np.array([True, False, True])],
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_as_tensorflow(name):
    tf_oracle.check(PROGRAMS[name], rtol=0, atol=0, errors="class")
