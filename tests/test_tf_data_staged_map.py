"""A dataset function over file names, traced once at ``map()`` as TensorFlow
traces it, against TensorFlow: TF traces it on the input's element_spec, once,
so its Python (a ``print``, a Python counter, a NumPy draw, an inner
tf.function's trace) runs then, and each element runs the graph, whose sizes
(``tf.io.decode_jpeg``'s image) are the data's. eagertape traces it with fresh
symbolic sizes for those ops and runs the trace per element
(eagertape/tf/_staged_map.py)."""
import contextlib
import io
import os
import tempfile
import warnings

import numpy as np
import pytest

import tf_oracle


def _images(kind, sizes):
    """Files of flat 8x8 blocks (any JPEG decoder gives the same pixels)."""
    import PIL.Image
    folder = tempfile.mkdtemp()
    names = []
    for i, (h, w) in enumerate(sizes):
        a = np.zeros((h, w, 3), np.uint8)
        for y in range(0, h, 8):
            for x in range(0, w, 8):
                a[y:y + 8, x:x + 8] = [(y * 7 + x * 3 + i * 50) % 256, (x * 5) % 256,
                                       (y * 11) % 256]
        name = os.path.join(folder, f"im{i}.{kind}")
        if kind == "jpg":
            PIL.Image.fromarray(a).save(name, quality=95, subsampling=0)
        else:
            PIL.Image.fromarray(a).save(name)
        names.append(name)
    return names


def _spec(spec):
    return [(s.shape.as_list(), s.dtype.name) for s in spec]


def _png_sizes(tf):
    names = _images("png", [(4, 6), (5, 3), (2, 2)])
    count = [0]
    out = io.StringIO()

    def load(f):
        count[0] += 1
        print("tracing", count[0])
        img = tf.io.decode_png(tf.io.read_file(f))
        w = tf.shape(img)[1] // 2
        return tf.cast(img[:, :w, :], tf.float32) / 2.0, tf.shape(img)
    with contextlib.redirect_stdout(out):
        ds = tf.data.Dataset.from_tensor_slices(names).map(load)
        print("after map")
        spec = _spec(ds.element_spec)
        values = [(a.shape.as_list(), s.numpy().tolist(), float(tf.reduce_sum(a)))
                  for a, s in ds]
        again = [float(tf.reduce_sum(a)) for a, _ in ds]
    return out.getvalue(), count[0], spec, values, again


def test_read_file_decode_png_of_different_sizes_traced_once():
    tf_oracle.check(_png_sizes)


def _pix2pix_like(tf):
    names = _images("jpg", [(16, 32), (24, 16), (8, 8)])
    log = []
    rng = np.random.RandomState(0)

    @tf.function
    def jitter(a, b):
        log.append("jitter traced")
        stacked = tf.stack([a, b])
        stacked = tf.image.resize(stacked, [8, 8], method="nearest")
        # the whole image: the offset drawn is 0 (the channels are unknown: None)
        stacked = tf.image.random_crop(stacked, size=[2, 8, 8, 3])
        if tf.constant(rng.uniform()) > 0.5:        # a NumPy draw at the trace
            stacked = tf.image.flip_left_right(stacked)
        return stacked[0], stacked[1]

    def load(f):
        log.append("load traced")
        img = tf.io.decode_jpeg(tf.io.read_file(f))
        w = tf.shape(img)[1] // 2
        a, b = tf.cast(img[:, :w, :], tf.float32), tf.cast(img[:, w:, :], tf.float32)
        a, b = jitter(a, b)
        return (a / 127.5) - 1, b
    ds = tf.data.Dataset.from_tensor_slices(names).map(load)
    log.append(f"later draw {rng.uniform():.6f}")
    values = [(a.shape.as_list(), round(float(tf.reduce_sum(a)), 3), float(tf.reduce_sum(b)))
              for a, b in ds]
    batched = [(a.shape.as_list(), round(float(tf.reduce_sum(a)), 3)) for a, _ in ds.batch(2)]
    return (log, jitter.experimental_get_tracing_count(), _spec(ds.element_spec), values,
            batched)


def test_decode_jpeg_inner_function_and_numpy_draw_at_map_time():
    tf_oracle.check(_pix2pix_like)


def _tensor_if(tf):
    names = _images("png", [(8, 16), (16, 8), (8, 8)])
    out = io.StringIO()

    def load(f):
        print("load traced")
        img = tf.cast(tf.io.decode_png(tf.io.read_file(f), channels=3), tf.float32)
        if tf.reduce_mean(img) > 40.0:          # AutoGraph: a tf.cond
            img = img / 2.0
        else:
            img = img + 1.0
        return tf.reduce_sum(img), tf.shape(img)[0]
    with contextlib.redirect_stdout(out):
        ds = tf.data.Dataset.from_tensor_slices(names).map(load)
        values = [(float(s), int(h)) for s, h in ds]
    return out.getvalue(), values, _spec(ds.element_spec)


def test_tensor_dependent_if_on_decoded_images_traced_once():
    tf_oracle.check(_tensor_if)


def _numeric_if(tf):
    out = io.StringIO()

    def f(x):
        print("f traced")
        if tf.reduce_sum(x) > 2:
            return x * 10
        return x - 1
    with contextlib.redirect_stdout(out):
        ds = tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.int64).reshape(3, 2))
        ds = ds.map(f)
        values = [v.numpy().tolist() for v in ds]
    return out.getvalue(), values


def test_tensor_dependent_if_on_numbers_traced_once():
    tf_oracle.check(_numeric_if)


def _filter_on_sizes(tf):
    names = _images("png", [(4, 6), (5, 3), (2, 2), (8, 8)])
    count = [0]

    def wide(f):
        count[0] += 1
        return tf.shape(tf.io.decode_png(tf.io.read_file(f)))[1] >= 6

    def height(f):
        count[0] += 1
        # text and a Python number among the outputs: their spec is known at map()
        return (tf.shape(tf.io.decode_png(tf.io.read_file(f)))[0],
                tf.strings.regex_replace(f, ".*/", ""), 7)
    ds = tf.data.Dataset.from_tensor_slices(names).filter(wide).map(height)
    at_map = count[0]
    spec = _spec(ds.element_spec)
    values = [(int(h), n.numpy(), int(k)) for h, n, k in ds]
    return at_map, count[0], spec, values


def test_filter_then_map_over_file_names_traced_once():
    tf_oracle.check(_filter_on_sizes)


def test_a_function_that_cannot_be_staged_says_so_and_runs_per_element():
    import eagertape.tf as tf
    names = _images("png", [(4, 6), (5, 3)])

    def load(f):
        # decode_image expands a GIF's frames: a rank the data sets
        return tf.shape(tf.io.decode_image(tf.io.read_file(f)))
    with pytest.warns(UserWarning, match="'load' could not be traced once.*expand_animations"):
        ds = tf.data.Dataset.from_tensor_slices(names).map(load)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # once, at map()
        assert [v.numpy().tolist() for v in ds] == [[4, 6, 3], [5, 3, 3]]


def test_element_of_another_size_than_a_size_the_trace_equates_raises():
    import eagertape.tf as tf
    names = _images("png", [(4, 6), (4, 5)])

    def halves(f):
        img = tf.io.decode_png(tf.io.read_file(f))
        w = tf.shape(img)[1] // 2
        return tf.stack([img[:, :w], img[:, w:]])     # TF: equal halves at run time
    ds = tf.data.Dataset.from_tensor_slices(names).map(halves)
    it = iter(ds)
    assert next(it).shape == (2, 4, 3, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="on element 1"):
        next(it)


def _split_lines(tf):
    path = os.path.join(tempfile.mkdtemp(), "poem.txt")
    with open(path, "w") as f:
        f.write("roses are red\nviolets are blue\nhi\n")
    count = [0]

    def words(line):
        count[0] += 1
        return tf.strings.split(line), tf.strings.length(line)   # pieces: the data's
    ds = tf.data.TextLineDataset(path).map(words)
    return (count[0], _spec(ds.element_spec),
            [(w.numpy().tolist(), int(n)) for w, n in ds])


def test_text_op_whose_result_size_is_the_texts_traced_once():
    tf_oracle.check(_split_lines)
