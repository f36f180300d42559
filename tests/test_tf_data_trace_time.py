"""When a dataset's function is traced, against TensorFlow: TF traces a ``map`` or
``filter`` function once, when ``map()``/``filter()`` is called, on the input's
element_spec, so its Python side effects (a list append, a NumPy draw, an inner
tf.function's trace) happen then, once, and never at the iterations."""
import numpy as np

import tf_oracle


def _side_effects(tf):
    log = []

    def f(x):
        log.append("f")
        return x * 2
    ds = tf.data.Dataset.range(3).map(f)
    log.append("after map")
    it = iter(ds)
    first = int(next(it))
    log.append("after first")
    for _ in range(2):
        values = [int(v) for v in ds]
    log.append("after two epochs")
    return log, first, values


def test_map_function_is_traced_once_at_map_as_tensorflow():
    tf_oracle.check(_side_effects)


def _inner_function_unknown_shape(tf):
    log = []

    @tf.function
    def jitter(x):
        log.append("jitter")
        return x + 1.0

    def gen():
        log.append("generator")
        yield np.ones(2, np.float32)
        yield np.ones(3, np.float32)
    jitter(tf.ones([2]))               # traced for a known shape first
    log.append("before map")
    ds = tf.data.Dataset.from_generator(
        gen, output_signature=tf.TensorSpec([None], tf.float32)).map(lambda x: jitter(x) * 2)
    log.append("after map")
    values = [v.numpy().tolist() for v in ds]
    log.append("after iteration")
    return log, values, ds.element_spec.shape.as_list(), jitter.experimental_get_tracing_count()


def test_inner_function_traced_for_the_unknown_shape_at_map_not_the_generator():
    tf_oracle.check(_inner_function_unknown_shape)


def _filter_and_batches(tf):
    log = []

    def keep(x):
        log.append("keep")
        return x % 2 == 0

    def double(x):
        log.append("double")
        return x * 2
    filtered = tf.data.Dataset.range(7).filter(keep)
    log.append("after filter")
    mapped_then_batched = tf.data.Dataset.range(5).map(double).batch(2)
    log.append("after map-then-batch")
    batched_then_mapped = tf.data.Dataset.range(5).batch(2).map(double)
    log.append("after batch-then-map")
    out = ([int(v) for v in filtered],
           [b.numpy().tolist() for b in mapped_then_batched],
           [b.numpy().tolist() for b in batched_then_mapped])
    log.append("after iteration")
    return log, out


def test_filter_and_batch_functions_traced_when_made():
    tf_oracle.check(_filter_and_batches)


def _numpy_draw_order(tf):
    rng = np.random.RandomState(7)

    def jitter(x):
        # a NumPy draw in the function: made at its trace, a constant of the graph
        return x + rng.uniform()
    ds = tf.data.Dataset.from_tensor_slices(np.zeros((3, 2), np.float32)).map(jitter)
    later = rng.uniform()              # the program's next draw: after the trace's
    return later, [v.numpy().tolist() for v in ds]


def test_numpy_draw_in_map_function_happens_at_map_before_later_draws():
    tf_oracle.check(_numpy_draw_order)


def _chained_maps(tf):
    log = []
    ds = tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.float32).reshape(3, 2))
    first = ds.map(lambda x: (log.append("first"), x * 2)[1])
    second = first.map(lambda x: (log.append("second"), tf.reduce_sum(x))[1])
    log.append("after maps")
    spec = second.element_spec
    log.append("after element_spec")
    return log, str(spec.dtype), spec.shape.as_list(), [float(v) for v in second]


def test_chained_maps_each_traced_once_reading_element_spec_traces_nothing():
    tf_oracle.check(_chained_maps)
