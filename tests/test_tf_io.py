"""``tf.io``, ``tf.audio``, TFRecord files and ``tf.train.Example``: each program runs
through real TensorFlow (tests/tf_oracle.py keeps its outcome) and through
``eagertape.tf``, with the same values, dtypes, shapes, bytes and error classes;
files and protos written by one library are read by the other; two public
programs that use tf.io are ported at the end.

Not in tests/conftest.py's MODE_AXIS: these ops run on the host and record nothing,
so the execution mode cannot change their answers (the one ``Dataset.map`` test
that compiles is marked ``both_modes``).
"""
import gzip
import io
import os
import tempfile

import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle

tf_oracle.require()
pytest.importorskip("google.protobuf")
Image = pytest.importorskip("PIL.Image")


def _check(program, **options):
    return tf_oracle.check(program, errors=("class", "name"), **options)


def _img(shape, dtype=np.uint8, seed=0):
    rng = np.random.default_rng(seed)
    hi = np.iinfo(dtype).max + 1
    return rng.integers(0, hi, shape).astype(dtype)


def _smooth(h, w, seed=0):
    """A natural-looking RGB image (smooth gradients and a few edges): JPEG's error
    on noise says nothing about decoders."""
    y, x = np.mgrid[0:h, 0:w]
    rng = np.random.default_rng(seed)
    a, b, c = rng.uniform(0.5, 2, 3)
    img = np.stack([128 + 100 * np.sin(x / (7 * a)), 128 + 100 * np.cos(y / (9 * b)),
                    (x + y) * 255 / (h + w) * c % 256], -1)
    img[h // 3:h // 2, w // 4:w // 2] = (250, 20, 40)
    return np.clip(img, 0, 255).astype(np.uint8)


def _tmp():
    return tempfile.mkdtemp(prefix="et_io_")


# -- the protos: TF's definitions ---------------------------------------------------

def _tf_side(name, compute, *parts):
    """TF's answers for a test (picklable), computed in this process once and kept by
    tests/tf_oracle.py, so a warm run imports no TensorFlow."""
    return tf_oracle.cached(f"test_tf_io.{name}", [compute, *parts], lambda: compute(*parts))


def _tf_protos():
    from google.protobuf import descriptor_pb2
    from eagertape.tf._proto import example as _ex, framework as _fw     # (before TF)
    import tensorflow as tf        # TF's protos after eagertape's: the pools must not clash
    from tensorflow.core.example import example_pb2, feature_pb2
    from tensorflow.core.framework import (resource_handle_pb2, tensor_pb2, tensor_shape_pb2,
                                           types_pb2)
    files = []
    for module in (types_pb2, tensor_shape_pb2, resource_handle_pb2, tensor_pb2, feature_pb2,
                   example_pb2):
        fd = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(fd)
        fd.ClearField("options")          # java/go package names only
        files.append(fd.SerializeToString())
    tensor = tf.make_tensor_proto(np.arange(6, dtype=np.float32).reshape(2, 3))
    example = tf.train.Example(features=tf.train.Features(feature={
        "a": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"x", b"yz"])),
        "b": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, -1e30])),
        "c": tf.train.Feature(int64_list=tf.train.Int64List(value=[-1, 2 ** 62]))}))
    se = tf.train.SequenceExample(
        context=tf.train.Features(feature={"n": tf.train.Feature(
            int64_list=tf.train.Int64List(value=[3]))}),
        feature_lists=tf.train.FeatureLists(feature_list={"t": tf.train.FeatureList(feature=[
            tf.train.Feature(float_list=tf.train.FloatList(value=[1.0]))] * 2)}))
    return {"files": files, "tensor": tensor.SerializeToString(),
            "example": example.SerializeToString(deterministic=True),
            "sequence": se.SerializeToString(deterministic=True),
            "distinct": (tensor_pb2.TensorProto is not _fw.TensorProto
                         and example_pb2.Example is not _ex.Example)}


def test_the_protos_are_tfs_definitions_and_bytes():
    from google.protobuf import descriptor_pb2
    from eagertape.tf._proto import POOL, example, framework
    tf_side = _tf_side("protos", _tf_protos)
    assert example.Example is etf.train.Example
    # (a module, as TF's generated classes have: code reads type(x).__module__)
    assert etf.train.Feature.__module__ == "eagertape.tf._proto.example"
    assert framework.TensorProto.__module__ == "eagertape.tf._proto.framework"
    assert tf_side["distinct"]          # TF's and eagertape's classes side by side
    for data in tf_side["files"]:
        want = descriptor_pb2.FileDescriptorProto.FromString(data)
        got = descriptor_pb2.FileDescriptorProto()
        POOL.FindFileByName(want.name).CopyToProto(got)
        assert got == want, want.name
    mine = framework.TensorProto.FromString(tf_side["tensor"])
    assert mine.SerializeToString() == tf_side["tensor"]
    np.testing.assert_array_equal(etf.io.parse_tensor(
        etf.io.serialize_tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), "float32"),
        np.arange(6, dtype=np.float32).reshape(2, 3))
    ours = etf.train.Example(features=etf.train.Features(feature={
        "a": etf.train.Feature(bytes_list=etf.train.BytesList(value=[b"x", b"yz"])),
        "b": etf.train.Feature(float_list=etf.train.FloatList(value=[0.5, -1e30])),
        "c": etf.train.Feature(int64_list=etf.train.Int64List(value=[-1, 2 ** 62]))}))
    assert ours.SerializeToString(deterministic=True) == tf_side["example"]
    assert etf.train.Example.FromString(tf_side["example"]) == ours
    mine = etf.train.SequenceExample.FromString(tf_side["sequence"])
    assert mine.SerializeToString(deterministic=True) == tf_side["sequence"]
    assert mine.feature_lists.feature_list["t"].feature[1].float_list.value[0] == 1.0


def test_no_protobuf_or_pillow_at_import_and_the_extra_named_when_missing():
    import subprocess
    import sys
    code = """if True:
        import sys
        import eagertape.tf as tf
        tf.io; tf.audio; tf.image
        print(any(m.startswith(('google.protobuf', 'PIL')) for m in sys.modules))
        for m in ('google.protobuf', 'PIL'):     # as if not installed
            sys.modules[m] = None
        png = bytes.fromhex('89504e470d0a1a0a')
        # (TFRecord files need neither: a dataset of them is made)
        print(tf.data.TFRecordDataset('x').element_spec.shape)
        for use in (lambda: tf.io.parse_tensor(b'', tf.float32), lambda: tf.train.Example,
                    lambda: tf.io.parse_single_example(b'', {'x': tf.io.VarLenFeature(tf.int64)}),
                    lambda: tf.io.decode_png(png),
                    lambda: tf.image.encode_png(tf.zeros([1, 1, 1], tf.uint8))):
            try:
                use()
                print('no error')
            except ImportError as e:
                print('eagertape[io]' in str(e))
        print(tf.io.read_file.__name__, tf.audio.decode_wav.__name__)
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert out.stdout.split() == ["False", "()"] + ["True"] * 5 + ["read_file", "decode_wav"], \
        out.stdout + out.stderr[-2000:]


test_no_protobuf_or_pillow_at_import_and_the_extra_named_when_missing = pytest.mark.subprocess(
    test_no_protobuf_or_pillow_at_import_and_the_extra_named_when_missing)


# -- files and gfile ----------------------------------------------------------------

def _files(tf):
    d = tempfile.mkdtemp()
    p = os.path.join(d, "sub", "a.txt")
    tf.io.write_file(p, "one\ntwo\nthree")
    out = [tf.io.read_file(p)]
    for n in ("b.csv", "a.csv", "c.txt"):
        tf.io.write_file(os.path.join(d, n), n)
    out.append([os.path.basename(x) for x in tf.io.matching_files(
        os.path.join(d, "*.csv")).numpy()])
    out.append(tf.io.matching_files(os.path.join(d, "none*")).shape)
    g = tf.io.gfile
    with g.GFile(p) as f:
        out += [f.readline(), f.tell(), f.read(3), f.readlines(), f.size()]
    with g.GFile(p, "rb") as f:
        f.seek(4)
        out += [f.read(), [line for line in g.GFile(p)]]
    with g.GFile(p, "a") as f:
        f.write("!")
    out.append(g.GFile(p, "rb").read())
    with g.GFile(os.path.join(d, "w.bin"), "wb") as f:
        f.write(b"\x00\xff")
    out += [g.exists(p), g.exists(os.path.join(d, "nope")), g.isdir(d), g.isdir(p),
            sorted(g.listdir(d)), g.stat(p).length, g.stat(d).is_directory]
    g.makedirs(os.path.join(d, "x", "y"))
    g.makedirs(os.path.join(d, "x", "y"))
    g.mkdir(os.path.join(d, "z"))
    g.copy(p, os.path.join(d, "z", "c.txt"))
    g.rename(os.path.join(d, "z", "c.txt"), os.path.join(d, "z", "d.txt"))
    g.remove(os.path.join(d, "w.bin"))
    out.append(sorted((os.path.relpath(a, d), sorted(b), sorted(c)) for a, b, c in g.walk(d)))
    g.rmtree(os.path.join(d, "x"))
    out += [sorted(g.listdir(d)), sorted(os.path.basename(x)
                                        for x in g.glob(os.path.join(d, "*.csv")))]
    return out


FILE_ERRORS = {
    "read_missing": lambda tf: tf.io.read_file("/nonexistent-dir/x"),
    "gfile_read_missing": lambda tf: tf.io.gfile.GFile("/nonexistent-dir/x").read(),
    "gfile_read_dir": lambda tf: tf.io.gfile.GFile(tempfile.mkdtemp()).read(),
    "listdir_missing": lambda tf: tf.io.gfile.listdir("/nonexistent-dir"),
    "remove_missing": lambda tf: tf.io.gfile.remove("/nonexistent-dir/x"),
    "rmtree_missing": lambda tf: tf.io.gfile.rmtree("/nonexistent-dir"),
    "stat_missing": lambda tf: tf.io.gfile.stat("/nonexistent-dir"),
    "mkdir_no_parent": lambda tf: tf.io.gfile.mkdir("/nonexistent-dir/a/b"),
    "mkdir_exists": lambda tf: tf.io.gfile.mkdir(tempfile.mkdtemp()),
    "rename_exists": lambda tf: (lambda d: (open(d + "/a", "w").close(),
                                            open(d + "/b", "w").close(),
                                            tf.io.gfile.rename(d + "/a", d + "/b")))(
        tempfile.mkdtemp()),
    "copy_exists": lambda tf: (lambda d: (open(d + "/a", "w").close(),
                                          open(d + "/b", "w").close(),
                                          tf.io.gfile.copy(d + "/a", d + "/b")))(
        tempfile.mkdtemp()),
    "write_read_only": lambda tf: (lambda d: (open(d + "/a", "w").close(),
                                              tf.io.gfile.GFile(d + "/a").write("x")))(
        tempfile.mkdtemp()),
}


def test_files_and_gfile():
    _check(_files)


_LISTED = tempfile.mkdtemp()
for _n in np.random.RandomState(3).permutation([f"{c}{i}" for c in "qwxa" for i in range(9)]):
    os.makedirs(os.path.join(_LISTED, "d", _n)) if _n < "q" else open(
        os.path.join(_LISTED, _n + ".wav"), "w").close()


def test_listdir_and_walk_give_the_directorys_own_order_as_tf():
    # TF lists a directory in the order the file system gives (readdir's, os.listdir's),
    # not sorted: census simple_audio prints tf.io.gfile.listdir of its data folder.
    _check(lambda tf: [tf.io.gfile.listdir(_LISTED), tf.io.gfile.listdir(
        os.path.join(_LISTED, "d")), list(tf.io.gfile.walk(_LISTED))])


@pytest.mark.parametrize("name", sorted(FILE_ERRORS))
def test_file_errors(name):
    _check(FILE_ERRORS[name])


def test_remote_paths_say_what_to_do():
    with pytest.raises(etf.errors.UnimplementedError, match="local paths only"):
        etf.io.gfile.exists("gs://bucket/x")
    with pytest.raises(etf.errors.UnimplementedError, match="hdfs"):
        etf.io.read_file("hdfs://host/x")


# -- serialized tensors, raw bytes, CSV ---------------------------------------------

SERIAL_DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32",
                 "int64", "uint8", "uint16", "uint32", "uint64", "bool", "complex64",
                 "complex128"]


def _serial(tf):
    out = []
    for d in SERIAL_DTYPES:
        for shape in [(), (0, 2), (2, 3)]:
            x = tf.cast(tf.reshape(tf.range(int(np.prod(shape)), dtype=tf.float32) * 1.5 - 2,
                                   shape), d)
            s = tf.io.serialize_tensor(x)
            out += [s, tf.io.parse_tensor(s, d)]
    for v in ["abc", ["a", "", "\xe9"], [[b"\x00\xff"]]]:
        s = tf.io.serialize_tensor(tf.constant(v))
        out += [s, tf.io.parse_tensor(s, tf.string)]
    return out


CODEC = {
    "parse_mismatch": lambda tf: tf.io.parse_tensor(tf.io.serialize_tensor([1.0]), tf.int32),
    "parse_garbage": lambda tf: tf.io.parse_tensor(b"garbage\xff", tf.int32),
    "raw_int16": lambda tf: tf.io.decode_raw([b"\x01\x00\x02\x00", b"\xff\xff\x00\x80"],
                                             tf.int16),
    "raw_big_endian": lambda tf: tf.io.decode_raw(b"\x00\x01\x00\x02", tf.uint16,
                                                  little_endian=False),
    "raw_float": lambda tf: tf.io.decode_raw(np.float32([1.5, -2]).tobytes(), tf.float32),
    "raw_scalar_uint8": lambda tf: tf.io.decode_raw("abc", tf.uint8),
    "raw_fixed": lambda tf: tf.io.decode_raw(["abcd", "ab"], tf.int16, fixed_length=4),
    "raw_fixed_pad": lambda tf: tf.io.decode_raw("abcdef", tf.uint8, fixed_length=8),
    "raw_sizes_differ": lambda tf: tf.io.decode_raw(["abcd", "abcde"], tf.int32),
    "raw_not_multiple": lambda tf: tf.io.decode_raw(["abcdef"], tf.int32),
    "raw_2d": lambda tf: tf.io.decode_raw([["ab", "cd"]], tf.uint8),
    "base64": lambda tf: [tf.io.encode_base64(b"\xfb\xff\x00"),
                          tf.io.encode_base64(["ab", "abc"], pad=True),
                          tf.io.decode_base64(tf.io.encode_base64(["x\xfe", ""]))],
    "compressed": lambda tf: [tf.io.decode_compressed(gzip.compress(b"hi"), "GZIP"),
                              tf.io.decode_compressed([b"plain"]),
                              tf.io.decode_compressed(__import__("zlib").compress(b"z"),
                                                      "ZLIB")],
    "csv": lambda tf: tf.io.decode_csv(["1,x,2.5", "2,,", "-3,\"a,b\",1e3"],
                                       [[0], ["none"], [0.5]]),
    # (np.zeros(0, ...): eagertape's tf.constant([], tf.int64) refuses the empty list)
    "csv_types": lambda tf: tf.io.decode_csv(["1,2,3.25,4"], [tf.constant(np.zeros(0, np.int64)),
                                                             [0.0], tf.constant(0, tf.float64),
                                                             [""]]),
    "csv_2d": lambda tf: tf.io.decode_csv([["1"], ["2"]], [[0]]),
    "csv_quotes": lambda tf: tf.io.decode_csv(['"a""b",2', '"",3'], [[""], [0]]),
    "csv_no_quote": lambda tf: tf.io.decode_csv(['"a",b'], [[""], [""]],
                                                use_quote_delim=False),
    "csv_delim_na": lambda tf: tf.io.decode_csv(["1|NA|3"], [[0], [7], [0.5]],
                                                field_delim="|", na_value="NA"),
    "csv_select": lambda tf: tf.io.decode_csv(["1,2,3"], [[0], [0]], select_cols=[0, 2]),
    "csv_spaces": lambda tf: tf.io.decode_csv([" 1 , 2"], [[0], [0.0]]),
    "csv_too_few": lambda tf: tf.io.decode_csv(["1,2", "3"], [[0], [0]]),
    "csv_too_many": lambda tf: tf.io.decode_csv(["1,2,3"], [[0], [0]]),
    "csv_required": lambda tf: tf.io.decode_csv(["1,"], [[0], tf.constant(np.zeros(0, np.int32))]),
    "csv_bad_int": lambda tf: tf.io.decode_csv(["1.5,2"], [[0], [0]]),
    "csv_bad_float": lambda tf: tf.io.decode_csv(["x,2"], [[0.0], [0]]),
    "csv_overflow": lambda tf: tf.io.decode_csv(["99999999999"], [[0]]),
    "csv_hex": lambda tf: tf.io.decode_csv(["0x10"], [[0]]),
    "csv_unquoted_quote": lambda tf: tf.io.decode_csv(['a"b,2'], [[""], [0]]),
    "csv_open_quote": lambda tf: tf.io.decode_csv(['"ab,2'], [[""], [0]]),
    "csv_select_order": lambda tf: tf.io.decode_csv(["1,2,3"], [[0], [0]], select_cols=[2, 0]),
    "csv_select_short": lambda tf: tf.io.decode_csv(["1,2,3"], [[0], [0]], select_cols=[0, 5]),
    "csv_select_count": lambda tf: tf.io.decode_csv(["1,2,3"], [[0]], select_cols=[0, 1]),
    "csv_bool_default": lambda tf: tf.io.decode_csv(["1,2"], [[0], [True]]),
    "csv_long_delim": lambda tf: tf.io.decode_csv(["1,2"], [[0], [0]], field_delim="ab"),
    "csv_two_defaults": lambda tf: tf.io.decode_csv(["1,2"], [[0], [0, 1]]),
    "csv_empty_record": lambda tf: tf.io.decode_csv(["", "1"], [[5]]),
}


def test_serialize_tensor_is_tfs_bytes():
    _check(_serial)


@pytest.mark.parametrize("name", sorted(CODEC))
def test_codecs(name):
    _check(CODEC[name])


def _tf_value_fields():
    import tensorflow as tf
    cases = [tf.make_tensor_proto(1.5, shape=[2, 2]),              # float_val, repeated
             tf.make_tensor_proto([1, 2, 3], dtype=tf.int8),
             tf.make_tensor_proto(np.float16([1, 2])),
             tf.make_tensor_proto(7, dtype=tf.int64, shape=[3]),
             tf.make_tensor_proto([True], dtype=tf.bool, shape=[2]),
             tf.make_tensor_proto([1 + 2j], dtype=tf.complex64),
             tf.make_tensor_proto(["a", "b"])]
    return [(p.SerializeToString(), tf.as_dtype(p.dtype).name,
             tf.io.parse_tensor(p.SerializeToString(), p.dtype).numpy()) for p in cases]


def test_parse_tensor_reads_tfs_value_fields():
    for data, dtype, want in _tf_side("value_fields", _tf_value_fields):
        got = etf.io.parse_tensor(data, dtype).numpy()
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype


# -- images -------------------------------------------------------------------------

def _png_round_trips(tf):
    out = []
    for c in (1, 2, 3, 4):
        for dt in ("uint8", "uint16"):
            img = tf.constant(_img((5, 7, c), np.dtype(dt), seed=c))
            png = tf.io.encode_png(img, compression=c)
            for ch in (0, 1, 3, 4):
                out.append(tf.io.decode_png(png, channels=ch, dtype=dt))
            out.append(tf.io.decode_png(png, dtype="uint8" if dt == "uint16" else "uint16"))
            out.append(tf.io.decode_image(png, dtype=tf.float32))
            out.append(tf.image.decode_png(png).shape)
    return out


def _jpeg_shapes(tf):
    img = tf.constant(_smooth(16, 24))
    jpg = tf.io.encode_jpeg(img, quality=90)
    gray = tf.io.encode_jpeg(img[..., :1], format="grayscale")
    return [tf.io.decode_jpeg(jpg).shape, tf.io.decode_jpeg(jpg, channels=1).shape,
            tf.io.decode_jpeg(jpg, ratio=2).shape, tf.io.decode_jpeg(gray).shape,
            tf.io.decode_jpeg(gray, channels=3).shape, tf.io.is_jpeg(jpg),
            tf.io.is_jpeg(tf.io.encode_png(img)), tf.io.extract_jpeg_shape(jpg),
            tf.io.extract_jpeg_shape(gray, tf.int64),
            tf.io.decode_and_crop_jpeg(jpg, [2, 3, 5, 6]).shape,
            tf.image.decode_jpeg(jpg).dtype, tf.io.decode_image(jpg).shape,
            tf.io.decode_jpeg(tf.io.encode_png(img)).shape]


def _gif_bytes(frames=3):
    ims = [Image.fromarray(np.full((4, 5, 3), 40 * i, np.uint8)) for i in range(frames)]
    buf = io.BytesIO()
    ims[0].save(buf, "GIF", save_all=True, append_images=ims[1:])
    return buf.getvalue()


def _bmp_bytes(mode):
    buf = io.BytesIO()
    a = _img((3, 4, 3), seed=5)
    Image.fromarray(a if mode == "RGB" else a[..., 0], mode).save(buf, "BMP")
    return buf.getvalue()


IMAGES = {
    "png": _png_round_trips,
    "jpeg_shapes": _jpeg_shapes,
    "gif": lambda tf: [tf.io.decode_gif(_gif_bytes()),
                       tf.io.decode_image(_gif_bytes()),
                       tf.io.decode_image(_gif_bytes(), expand_animations=False),
                       tf.io.decode_image(_gif_bytes(1))],
    "bmp": lambda tf: [tf.io.decode_bmp(_bmp_bytes("RGB")), tf.io.decode_image(
        _bmp_bytes("RGB"), channels=1).shape, tf.io.decode_bmp(_bmp_bytes("RGB"), 4)],
    "png_palette": lambda tf: tf.io.decode_png((lambda b: (Image.fromarray(
        _img((3, 3, 3))).convert("P").save(b, "PNG"), b.getvalue())[1])(io.BytesIO())),
    "decode_unknown": lambda tf: tf.io.decode_png(b"not an image"),
    "decode_image_unknown": lambda tf: tf.io.decode_image(b"not an image"),
    "decode_channels": lambda tf: tf.io.decode_png(tf.io.encode_png(
        tf.zeros([2, 2, 3], tf.uint8)), channels=5),
    "decode_image_channels": lambda tf: tf.io.decode_image(tf.io.encode_png(
        tf.zeros([2, 2, 3], tf.uint8)), channels=2),
    "encode_channels": lambda tf: tf.io.encode_png(tf.zeros([2, 2, 5], tf.uint8)),
    "encode_rank": lambda tf: tf.io.encode_png(tf.zeros([2, 2], tf.uint8)),
    "encode_float": lambda tf: tf.io.encode_png(tf.zeros([2, 2, 3], tf.float32)),
    "encode_jpeg_channels": lambda tf: tf.io.encode_jpeg(tf.zeros([2, 2, 2], tf.uint8)),
}


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_images(name):
    _check(IMAGES[name])


_PNG_CASES = [(c, dt) for c in (1, 3, 4) for dt in ("uint8", "uint16")]
_JPEG_CASES = [(seed, q, sub) for seed in range(3) for q, sub in ((95, True), (75, False))]
_JPEG_DECODES = ((3, ""), (3, "INTEGER_ACCURATE"), (1, "INTEGER_ACCURATE"))


def _tf_images(ours_png, ours_jpeg):
    import tensorflow as tf
    png = []
    for (c, dt), ours in zip(_PNG_CASES, ours_png):
        theirs = tf.io.encode_png(_img((6, 5, c), np.dtype(dt), seed=c)).numpy()
        png.append((theirs, tf.io.decode_png(ours, dtype=dt).numpy(),
                    [tf.io.decode_png(theirs, channels=ch, dtype=dt).numpy()
                     for ch in (0, 1, 3, 4)]))
    jpeg = []
    for (seed, q, sub), ours in zip(_JPEG_CASES, ours_jpeg):
        theirs = tf.io.encode_jpeg(_smooth(48, 64, seed), quality=q,
                                   chroma_downsampling=sub).numpy()
        jpeg.append((theirs, [[tf.io.decode_jpeg(data, channels=ch, dct_method=dct).numpy()
                               for ch, dct in _JPEG_DECODES] for data in (theirs, ours)]))
    return png, jpeg


def test_images_cross_library():
    """PNG written by either library decodes to the same pixels in the other;
    JPEG written by either decodes to TF's pixels, with either IDCT."""
    ours_png = [etf.io.encode_png(_img((6, 5, c), np.dtype(dt), seed=c)).numpy()
                for c, dt in _PNG_CASES]
    ours_jpeg = [etf.io.encode_jpeg(_smooth(48, 64, seed), quality=q,
                                    chroma_downsampling=sub).numpy()
                 for seed, q, sub in _JPEG_CASES]
    png, jpeg = _tf_side("images", _tf_images, ours_png, ours_jpeg)
    for (c, dt), (theirs, tf_of_ours, tf_decodes) in zip(_PNG_CASES, png):
        img = _img((6, 5, c), np.dtype(dt), seed=c)
        np.testing.assert_array_equal(tf_of_ours, img)
        np.testing.assert_array_equal(etf.io.decode_png(theirs, dtype=dt).numpy(), img)
        for ch, want in zip((0, 1, 3, 4), tf_decodes):
            np.testing.assert_array_equal(
                etf.io.decode_png(theirs, channels=ch, dtype=dt).numpy(), want)
    worst = {}
    for (seed, q, sub), ours, (theirs, tf_decodes) in zip(_JPEG_CASES, ours_jpeg, jpeg):
        for data, wants in zip((theirs, ours), tf_decodes):
            for (ch, dct), want in zip(_JPEG_DECODES, wants):
                got = etf.io.decode_jpeg(data, channels=ch, dct_method=dct).numpy()
                assert got.shape == want.shape and got.dtype == want.dtype
                d = int(np.abs(got.astype(int) - want).max())
                worst[dct] = max(worst.get(dct, 0), d)
        # eagertape's encoder keeps the picture as well as TF's, within a level
        img = _smooth(48, 64, seed)
        err = [np.abs(w[0].astype(int) - img).mean() for w in reversed(tf_decodes)]
        assert err[0] <= err[1] + 1, err
    assert worst == {"": 0, "INTEGER_ACCURATE": 0}, worst


# -- audio ----------------------------------------------------------------------------

AUDIO = {
    "encode": lambda tf: tf.audio.encode_wav(tf.constant(
        [[0.0, 0.5], [-1.0, 0.75], [-0.3, 1.0], [2.0, -2.0]]), 16000),
    "round_trip": lambda tf: tf.audio.decode_wav(tf.audio.encode_wav(
        tf.constant(np.linspace(-1, 0.999, 12, dtype=np.float32).reshape(6, 2)), 8000)),
    "desired": lambda tf: [tf.audio.decode_wav(tf.audio.encode_wav(
        tf.constant([[0.25, -0.5], [0.125, 0.0]]), 44100), desired_channels=c,
        desired_samples=s) for c, s in ((1, -1), (3, -1), (-1, 1), (2, 4))],
    "mono_to_stereo": lambda tf: tf.audio.decode_wav(tf.audio.encode_wav(
        tf.constant([[0.5], [0.25]]), 100), desired_channels=2),
    "short": lambda tf: tf.audio.decode_wav(b"RIFFxxxx"),
    "not_wav": lambda tf: tf.audio.decode_wav(b"RIFF\x00\x00\x00\x00WAVX"),
    "encode_rank": lambda tf: tf.audio.encode_wav(tf.zeros([3]), 100),
}


@pytest.mark.parametrize("name", sorted(AUDIO))
def test_audio(name):
    _check(AUDIO[name])


# -- TFRecord -------------------------------------------------------------------------

def _records(tf, options=None, n=4):
    d = tempfile.mkdtemp()
    p = os.path.join(d, "r.tfrecord")
    with tf.io.TFRecordWriter(p, options) as w:
        for i in range(n):
            w.write(b"x" * (i * 700) + bytes([i]))
    kind = tf.io.TFRecordOptions.get_compression_type_string(options)
    raw = open(p, "rb").read()
    if kind == "GZIP":
        raw = gzip.decompress(raw)
    elif kind == "ZLIB":
        raw = __import__("zlib").decompress(raw)
    ds = tf.data.TFRecordDataset(p, compression_type=kind, buffer_size=1024)
    return [raw, [r.numpy() for r in ds]]


def _interleave(tf):
    d = tempfile.mkdtemp()
    paths = []
    for f, n in enumerate((3, 1, 4)):
        paths.append(os.path.join(d, f"{f}.tfrecord"))
        with tf.io.TFRecordWriter(paths[-1]) as w:
            for i in range(n):
                w.write(f"{f}-{i}")
    out = []
    for reads in (None, 2, 3):
        ds = tf.data.TFRecordDataset(paths, num_parallel_reads=reads)
        out.append([r.numpy() for r in ds])
    out.append([r.numpy() for r in tf.data.TFRecordDataset(
        tf.data.Dataset.from_tensor_slices(paths[:2]))])
    return out


def _corrupt(tf, where):
    d = tempfile.mkdtemp()
    p = os.path.join(d, "c.tfrecord")
    with tf.io.TFRecordWriter(p) as w:
        w.write(b"hello")
        w.write(b"world")
    data = bytearray(open(p, "rb").read())
    if where == "truncate":
        data = data[:-3]
    else:
        data[{"length": 2, "data": 14, "crc": 19}[where]] ^= 1
    open(p, "wb").write(bytes(data))
    return [r.numpy() for r in tf.data.TFRecordDataset(p)]


def _write(tf):
    p = os.path.join(tempfile.mkdtemp(), "w.tfrecord")
    with tf.io.TFRecordWriter(p) as w:
        w.write(b"abc")
    return p


def _fixed_file():
    p = os.path.join(tempfile.mkdtemp(), "f.bin")
    open(p, "wb").write(b"HH" + bytes(range(11)) + b"FF")
    return p


def _fixed(tf):
    d = tempfile.mkdtemp()
    out = []
    for f in range(2):
        open(os.path.join(d, f"{f}.bin"), "wb").write(b"HH" + bytes(range(f, f + 11)) + b"FF")
    paths = [os.path.join(d, f"{f}.bin") for f in range(2)]
    out.append([r.numpy() for r in tf.data.FixedLengthRecordDataset(
        paths, 11, header_bytes=2, footer_bytes=2)])
    out.append([tf.io.decode_raw(r, tf.uint8) for r in tf.data.FixedLengthRecordDataset(
        paths[0], 5)])
    return out


RECORDS = {
    "fixed_not_multiple": lambda tf: [r.numpy() for r in tf.data.FixedLengthRecordDataset(
        _fixed_file(), 3, header_bytes=2, footer_bytes=2)],
    "plain": _records,
    "gzip": lambda tf: _records(tf, "GZIP"),
    "zlib": lambda tf: _records(tf, tf.io.TFRecordOptions(compression_type="ZLIB",
                                                          compression_level=9)),
    "empty": lambda tf: _records(tf, n=0),
    "interleave": _interleave,
    "corrupt_length": lambda tf: _corrupt(tf, "length"),
    "corrupt_data": lambda tf: _corrupt(tf, "data"),
    "corrupt_crc": lambda tf: _corrupt(tf, "crc"),
    "truncated": lambda tf: _corrupt(tf, "truncate"),
    "missing": lambda tf: list(tf.data.TFRecordDataset("/nonexistent-dir/x.tfrecord")),
    "bad_compression": lambda tf: [r.numpy() for r in tf.data.TFRecordDataset(
        _write(tf), compression_type="LZ4")],
    "fixed": _fixed,
    "spec": lambda tf: tf.data.TFRecordDataset("x").element_spec,
}


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_tfrecord(name):
    _check(RECORDS[name])


_RECORDS_CROSS = [b"", b"a", bytes(range(256)) * 20, b"\n\x00" * 3]


def _tf_record_files(ours):
    import tensorflow as tf
    d = tempfile.mkdtemp()
    out = {}
    for kind, data in zip(("", "GZIP", "ZLIB"), ours):
        p = os.path.join(d, f"t{kind}")
        with tf.io.TFRecordWriter(p, kind) as w:
            for r in _RECORDS_CROSS:
                w.write(r)
        q = os.path.join(d, f"o{kind}")
        open(q, "wb").write(data)
        out[kind] = (open(p, "rb").read(),
                     [r.numpy() for r in tf.data.TFRecordDataset(q, kind)])
    return out


def test_tfrecord_files_cross_library():
    d = _tmp()
    ours = []
    for kind in ("", "GZIP", "ZLIB"):
        p = os.path.join(d, f"o{kind}")
        with etf.io.TFRecordWriter(p, kind) as w:
            for r in _RECORDS_CROSS:
                w.write(r)
        ours.append(open(p, "rb").read())
    tf_side = _tf_side("records", _tf_record_files, ours)
    for kind, data in zip(("", "GZIP", "ZLIB"), ours):
        theirs, tf_read_ours = tf_side[kind]
        assert tf_read_ours == _RECORDS_CROSS
        p = os.path.join(d, f"t{kind}")
        open(p, "wb").write(theirs)
        assert [r.numpy() for r in etf.data.TFRecordDataset(p, kind)] == _RECORDS_CROSS
        if not kind:
            assert theirs == data


def test_tfrecord_pipeline_and_its_saved_position():
    from eagertape.tf import _iterator_state as state
    d = _tmp()
    paths = []
    for f in range(3):
        paths.append(os.path.join(d, f"{f}.tfrecord"))
        with etf.io.TFRecordWriter(paths[-1], "GZIP") as w:
            for i in range(4):
                w.write(etf.io.serialize_tensor(etf.constant([f, i])))
    ds = etf.data.TFRecordDataset(paths, "GZIP", num_parallel_reads=2).map(
        lambda r: etf.io.parse_tensor(r, etf.int32))
    it = iter(ds)
    first = [next(it).numpy().tolist() for _ in range(5)]
    saved = it._save()
    rest = [x.numpy().tolist() for x in it]
    assert sorted(first + rest) == [[f, i] for f in range(3) for i in range(4)]
    it2 = iter(ds)
    it2._commit(it2._restored(state.decode(*state.encode(saved))))
    assert [x.numpy().tolist() for x in it2] == rest


# -- Example parsing ----------------------------------------------------------------

def _example(tf, **features):
    def feature(v):
        if isinstance(v[0], bytes):
            return tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        if isinstance(v[0], float):
            return tf.train.Feature(float_list=tf.train.FloatList(value=v))
        return tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    return tf.train.Example(features=tf.train.Features(feature={
        k: feature(v) if v else tf.train.Feature() for k, v in features.items()}))


def _examples(tf):
    return [_example(tf, f=[1.5, 2.5], i=[3], s=[b"a", b"bc"], seq=[1.0, 2.0, 3.0, 4.0]),
            _example(tf, f=[0.5, 0.25], s=[b"d"], seq=[5.0, 6.0]),
            _example(tf, f=[9.0, 8.0], i=[7], s=[])]


SPEC = {"f": ("fixed", [2], "float32", None), "i": ("fixed", [], "int64", -1),
        "s": ("var", "string"), "seq": ("seq", [2], "float32", None),
        "r": ("ragged", "string", "s")}


def _spec(tf, names):
    out = {}
    for k in names:
        kind, *a = SPEC[k]
        out[k] = (tf.io.FixedLenFeature(a[0], a[1], default_value=a[2]) if kind == "fixed"
                  else tf.io.VarLenFeature(a[0]) if kind == "var"
                  else tf.io.FixedLenSequenceFeature(a[0], a[1], allow_missing=True,
                                                     default_value=a[2]) if kind == "seq"
                  else tf.io.RaggedFeature(a[0], value_key=a[1]))
    return out


def _sparse(x):
    if type(x).__name__ == "SparseTensor":
        return ("sparse", x.indices, x.values, x.dense_shape)
    if type(x).__name__ == "RaggedTensor":
        return ("ragged", x.to_list(), x.dtype)
    return x


def _parsed(d):
    return {k: _sparse(v) for k, v in d.items()}


def _sequence_example(tf, n=2, missing=False):
    f = lambda v: tf.train.Feature(int64_list=tf.train.Int64List(value=v))  # noqa: E731
    g = lambda v: tf.train.Feature(bytes_list=tf.train.BytesList(value=v))  # noqa: E731
    lists = {"tok": tf.train.FeatureList(feature=[f([i, 10 * i]) for i in range(n)]),
             "words": tf.train.FeatureList(feature=[g([b"w"] * i) for i in range(n)])}
    if missing:
        del lists["tok"]
    return tf.train.SequenceExample(
        context=tf.train.Features(feature={"len": f([n]), "name": g([b"s%d" % n])}),
        feature_lists=tf.train.FeatureLists(feature_list=lists)).SerializeToString()


PARSING = {
    # (deterministic: the order of a map's entries is otherwise the protobuf runtime's,
    # which may differ between processes, for TF's classes too)
    "bytes": lambda tf: [e.SerializeToString(deterministic=True) for e in _examples(tf)],
    "single": lambda tf: [_parsed(tf.io.parse_single_example(
        e.SerializeToString(), _spec(tf, ["f", "i", "s", "seq"]))) for e in _examples(tf)],
    "batch": lambda tf: _parsed(tf.io.parse_example(
        [e.SerializeToString() for e in _examples(tf)], _spec(tf, ["f", "i", "s", "seq"]))),
    "batch_ragged": lambda tf: _parsed(tf.io.parse_example(
        [e.SerializeToString() for e in _examples(tf)], _spec(tf, ["r"]))),
    "batch_tensor": lambda tf: _parsed(tf.io.parse_example(
        tf.constant([e.SerializeToString() for e in _examples(tf)]), _spec(tf, ["s"]))),
    "missing_required": lambda tf: tf.io.parse_single_example(
        _example(tf, i=[1]).SerializeToString(), _spec(tf, ["f"])),
    "wrong_type": lambda tf: tf.io.parse_single_example(
        _example(tf, f=[1, 2]).SerializeToString(), _spec(tf, ["f"])),
    "wrong_count": lambda tf: tf.io.parse_single_example(
        _example(tf, f=[1.0, 2.0, 3.0]).SerializeToString(), _spec(tf, ["f"])),
    "seq_stride": lambda tf: tf.io.parse_single_example(
        _example(tf, seq=[1.0, 2.0, 3.0]).SerializeToString(), _spec(tf, ["seq"])),
    # (a truncated message: TF's own error text fails on bytes that are not UTF-8)
    "garbage": lambda tf: tf.io.parse_single_example(b"\n\x05ab", _spec(tf, ["f"])),
    "sequence": lambda tf: [(lambda c, s: (_parsed(c), _parsed(s)))(
        *tf.io.parse_single_sequence_example(
            _sequence_example(tf, n), {"len": tf.io.FixedLenFeature([], tf.int64),
                                       "name": tf.io.VarLenFeature(tf.string)},
            {"tok": tf.io.FixedLenSequenceFeature([2], tf.int64),
             "words": tf.io.VarLenFeature(tf.string)})) for n in (0, 1, 3)],
    "sequence_missing": lambda tf: tf.io.parse_single_sequence_example(
        _sequence_example(tf, 2, missing=True), None,
        {"tok": tf.io.FixedLenSequenceFeature([2], tf.int64)}),
    "sequence_missing_allowed": lambda tf: tf.io.parse_single_sequence_example(
        _sequence_example(tf, 2, missing=True), None,
        {"tok": tf.io.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)})[1],
    "sequence_batch": lambda tf: (lambda c, s, n: (_parsed(c), _parsed(s), n))(
        *tf.io.parse_sequence_example(
            [_sequence_example(tf, n) for n in (1, 3)],
            {"len": tf.io.FixedLenFeature([], tf.int64)},
            {"tok": tf.io.FixedLenSequenceFeature([2], tf.int64),
             "words": tf.io.VarLenFeature(tf.string)})),
    "json": lambda tf: tf.io.decode_json_example(
        ['{"features": {"feature": {"a": {"floatList": {"value": [1.5]}}}}}']),
}


@pytest.mark.parametrize("name", sorted(PARSING))
def test_example_parsing(name):
    _check(PARSING[name])


@pytest.mark.both_modes
def test_parsing_in_a_dataset_map():
    def program(tf):
        d = tempfile.mkdtemp()
        p = os.path.join(d, "e.tfrecord")
        with tf.io.TFRecordWriter(p) as w:
            for e in _examples(tf):
                w.write(e.SerializeToString())
        spec = _spec(tf, ["f", "i"])
        ds = tf.data.TFRecordDataset(p).map(lambda r: tf.io.parse_single_example(r, spec))
        ds = ds.map(lambda e: (e["f"] * 2.0, e["i"] + 1)).batch(2)
        batched = tf.data.TFRecordDataset(p).batch(3).map(
            lambda rs: tf.io.parse_example(rs, spec))
        return [list(ds), list(batched)]
    _check(program)


# -- ported programs ------------------------------------------------------------------
# 1. TF's tutorial "TFRecord and tf.train.Example",
#    tensorflow/docs: site/en/tutorials/load_data/tfrecord.ipynb as of commit
#    7c3650212740204359d4ceae481abc79345541be (last changed in 60c51e7a), shrunk: its
#    helpers, the observation dataset serialized through tf.py_function, written with
#    TFRecordWriter, read back and parsed, and the image section with two synthetic
#    JPEGs for the downloaded photographs (decoded with dct_method="INTEGER_ACCURATE",
#    where TF's pixels are eagertape's exactly: differences.md#io).

def _tfrecord_tutorial(tf):
    def _bytes_feature(value):
        if isinstance(value, type(tf.constant(0))):
            value = value.numpy()
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))

    def _float_feature(value):
        return tf.train.Feature(float_list=tf.train.FloatList(value=[value]))

    def _int64_feature(value):
        return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))

    out = [_bytes_feature(b"test_string").SerializeToString(),
           _bytes_feature("test_bytes".encode("utf-8")).SerializeToString(),
           _float_feature(np.exp(1)).SerializeToString(),
           _int64_feature(True).SerializeToString(), _int64_feature(1).SerializeToString()]
    n_observations = 10
    rng = np.random.default_rng(0)
    feature0 = rng.choice([False, True], n_observations)
    feature1 = rng.integers(0, 5, n_observations)
    strings = np.array([b"cat", b"dog", b"chicken", b"horse", b"goat"])
    feature2 = strings[feature1]
    feature3 = rng.standard_normal(n_observations)

    def serialize_example(feature0, feature1, feature2, feature3):
        feature = {"feature0": _int64_feature(feature0), "feature1": _int64_feature(feature1),
                   "feature2": _bytes_feature(feature2), "feature3": _float_feature(feature3)}
        example_proto = tf.train.Example(features=tf.train.Features(feature=feature))
        return example_proto.SerializeToString()

    serialized_example = serialize_example(False, 4, b"goat", 0.9876)
    out.append(serialized_example)
    out.append(str(tf.train.Example.FromString(serialized_example)))

    def tf_serialize_example(f0, f1, f2, f3):
        tf_string = tf.py_function(serialize_example, (f0, f1, f2, f3), tf.string)
        return tf.reshape(tf_string, ())

    features_dataset = tf.data.Dataset.from_tensor_slices((feature0, feature1, feature2,
                                                           feature3))
    serialized_features_dataset = features_dataset.map(tf_serialize_example)
    filename = os.path.join(tempfile.mkdtemp(), "test.tfrecord")
    with tf.io.TFRecordWriter(filename) as writer:
        for s in serialized_features_dataset:
            writer.write(s.numpy())
    raw_dataset = tf.data.TFRecordDataset([filename])
    out.append([r.numpy() for r in raw_dataset.take(3)])
    feature_description = {
        "feature0": tf.io.FixedLenFeature([], tf.int64, default_value=0),
        "feature1": tf.io.FixedLenFeature([], tf.int64, default_value=0),
        "feature2": tf.io.FixedLenFeature([], tf.string, default_value=""),
        "feature3": tf.io.FixedLenFeature([], tf.float32, default_value=0.0)}

    def _parse_function(example_proto):
        return tf.io.parse_single_example(example_proto, feature_description)

    parsed_dataset = raw_dataset.map(_parse_function)
    out.append([dict(e) for e in parsed_dataset.take(10)])
    # images: synthetic JPEGs for the tutorial's two photographs
    image_labels = {}
    for i, label in enumerate((0, 1)):
        path = os.path.join(tempfile.mkdtemp(), f"img{i}.jpg")
        Image.fromarray(_smooth(30 + 10 * i, 40, seed=i)).save(path, quality=90)
        image_labels[path] = label

    def image_example(image_string, label):
        image_shape = tf.io.decode_jpeg(image_string).shape
        feature = {"height": _int64_feature(image_shape[0]),
                   "width": _int64_feature(image_shape[1]),
                   "depth": _int64_feature(image_shape[2]),
                   "label": _int64_feature(label),
                   "image_raw": _bytes_feature(image_string)}
        return tf.train.Example(features=tf.train.Features(feature=feature))

    record_file = os.path.join(tempfile.mkdtemp(), "images.tfrecords")
    with tf.io.TFRecordWriter(record_file) as writer:
        for filename, label in image_labels.items():
            image_string = open(filename, "rb").read()
            writer.write(image_example(image_string, label).SerializeToString())
    image_feature_description = {
        "height": tf.io.FixedLenFeature([], tf.int64),
        "width": tf.io.FixedLenFeature([], tf.int64),
        "depth": tf.io.FixedLenFeature([], tf.int64),
        "label": tf.io.FixedLenFeature([], tf.int64),
        "image_raw": tf.io.FixedLenFeature([], tf.string)}
    parsed = tf.data.TFRecordDataset(record_file).map(
        lambda p: tf.io.parse_single_example(p, image_feature_description))
    for features in parsed:
        img = tf.io.decode_jpeg(features["image_raw"], dct_method="INTEGER_ACCURATE")
        out.append((features["height"], features["width"], features["label"], img.shape,
                    tf.reduce_mean(tf.cast(img, tf.float32))))
    return out


def test_port_tfrecord_tutorial():
    _check(_tfrecord_tutorial, atol=0.05)


# 2. TF's tutorial "Load and preprocess images", tensorflow/docs:
#    site/en/tutorials/load_data/images.ipynb as of commit 7c3650212740 (last changed
#    in ae2a2ec6), its "Using tf.data for finer control" pipeline on synthetic JPEGs in
#    class folders (decoded with dct_method="INTEGER_ACCURATE", as above). Dataset.list_files is spelled
#    from_tensor_slices(tf.io.matching_files(...)) (list_files with shuffle=False
#    lists the same sorted files; eagertape's tf.data has no list_files yet).

def _images_tutorial(tf):
    data_dir = tempfile.mkdtemp()
    for k, cls in enumerate(("daisy", "roses", "tulips")):
        os.makedirs(os.path.join(data_dir, cls))
        for i in range(3):
            Image.fromarray(_smooth(20 + i, 30, seed=3 * k + i)).save(
                os.path.join(data_dir, cls, f"{i}.jpg"), quality=92)
    image_count = len(tf.io.gfile.glob(os.path.join(data_dir, "*", "*.jpg")))
    list_ds = tf.data.Dataset.from_tensor_slices(
        tf.io.matching_files(os.path.join(data_dir, "*", "*")))
    class_names = np.array(sorted(tf.io.gfile.listdir(data_dir)))
    val_size = int(image_count * 0.2)
    train_ds = list_ds.skip(val_size)
    img_height = img_width = 16

    def get_label(file_path):
        parts = tf.strings.split(file_path, os.path.sep)
        one_hot = parts[-2] == class_names
        return tf.argmax(one_hot)

    def decode_img(img):
        img = tf.io.decode_jpeg(img, channels=3, dct_method="INTEGER_ACCURATE")
        return tf.image.resize(img, [img_height, img_width])

    def process_path(file_path):
        label = get_label(file_path)
        img = tf.io.read_file(file_path)
        img = decode_img(img)
        return img, label

    train_ds = train_ds.map(process_path, num_parallel_calls=tf.data.AUTOTUNE).batch(4)
    return [image_count, [(tf.reduce_mean(x, axis=[1, 2]), y) for x, y in train_ds]]


def test_port_images_tutorial():
    _check(_images_tutorial, atol=0.05)
