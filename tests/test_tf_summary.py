"""``tf.summary``: TensorBoard's event files written without TensorFlow.

One program makes the same calls in TF and in ``eagertape.tf`` (a writer, eager
summaries, a ``tf.function``'s summaries with a Variable step and a traced
``record_if``, the queue's flushes, the errors); TF's outcome is kept by
``tf_oracle.cached``. Both files are read the same way (TFRecord framing, then each
library's own ``Event`` class) and compared: the file names' form, the first
event, then each summary's step, tag, tensor (its TensorProto byte for byte;
images decoded, as PNG encoders differ) and plugin metadata. Then eagertape's files
are read by TF's own reader (``summary_iterator``) and TensorBoard's
``EventAccumulator``.

TF 2's ``tf.summary.scalar``, ``histogram``, ``image``, ``text`` and ``audio`` are
TensorBoard's code: without the ``tensorboard`` package TF has none, so the program
makes those calls only where it is installed (the writer, ``write``, the steps and
the errors are compared either way), and ``test_the_plugins_match_tf`` checks
eagertape's against TF's output of TF 2.21 with TensorBoard 2.21, kept here.
"""
import io
import os
import re
import socket
import struct
import tempfile

import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle
from optional import available, requires

tf_oracle.require()
pytest.importorskip("google.protobuf")
Image = pytest.importorskip("PIL.Image")

PLUGINS = available("tensorboard")
NAME = re.compile(r"events\.out\.tfevents\.(\d{10})\.(.+)\.(\d+)\.(\d+)(\..*)$")


def _records(path):
    """The records of a TFRecord file (its checksums are checked by the readers below)."""
    with open(path, "rb") as f:
        data = f.read()
    out, pos = [], 0
    while pos < len(data):
        (n,) = struct.unpack_from("<Q", data, pos)
        out.append(data[pos + 12:pos + 12 + n])
        pos += 12 + n + 4
    return out


def _normal(records, event_class):
    """Each event as plain values: the file version, then (step, tag, tensor,
    metadata) per summary value; a TensorProto as its bytes, an image summary as
    its width and height strings and its decoded pixels."""
    rows = []
    for r in records:
        e = event_class.FromString(r)
        if e.WhichOneof("what") == "file_version":
            rows.append(("version", e.file_version, e.source_metadata.writer,
                         float(e.wall_time).is_integer()))
            continue
        if e.WhichOneof("what") == "graph_def":
            rows.append(("graph", e.step, e.graph_def))
            continue
        for v in e.summary.value:
            t = v.tensor
            if v.metadata.plugin_data.plugin_name == "graph_run_metadata_graph":
                # A RunMetadata of TF's graphs; eagertape's holds none (differences.md)
                tensor = (t.dtype, len(t.string_val))
            elif v.metadata.plugin_data.plugin_name == "images":
                vals = list(t.string_val)
                pixels = [np.asarray(Image.open(io.BytesIO(b))) for b in vals[2:]]
                tensor = (vals[:2], [(p.shape, p.tobytes()) for p in pixels])
            else:
                tensor = t.SerializeToString()
            rows.append((e.step, v.tag, tensor, v.metadata.SerializeToString()))
    return rows


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the outcome is the error's class and text
        return type(e).__name__, re.sub(r"<[^>]* object at 0x[0-9a-f]+>", "<writer>", str(e))
    return None


def program(tf, logdir, plugins, event_class):
    """The calls, made the same way in either library; returns what can be compared."""
    rng = np.random.RandomState(0)
    w = tf.summary.create_file_writer(logdir)
    made = sorted(os.listdir(logdir))            # the file is made with the writer
    errors = {"no_writer": _error(lambda: tf.summary.write("x", 1.0))}
    with w.as_default():
        errors["no_step"] = _error(lambda: tf.summary.write("x", 1.0))
    with w.as_default(step=3):
        tf.summary.write("raw", tf.constant([1, 2], tf.int64))
        tf.summary.write("floats", tf.constant([[0.5, -1.0]], tf.float64), step=7)
        tf.summary.write("lazy", lambda: tf.constant(["s", "t"]), step=1, metadata=b"")
        tf.summary.write("flag", tf.constant(True))
        with tf.summary.record_if(False):
            tf.summary.write("never", 1.0)
        with tf.summary.record_if(lambda: tf.summary.experimental.get_step() == 3):
            tf.summary.write("step3", tf.constant(3))
        with tf.name_scope("outer"):
            tf.summary.write("scoped", tf.constant(1.5))
        recorded = bool(tf.summary.should_record_summaries())
        errors["step_shape"] = _error(lambda: tf.summary.write("x", 1.0, step=[1, 2]))
        if plugins:
            tf.summary.scalar("loss", 0.5)
            tf.summary.scalar("ints", 7, step=4, description="desc")
            with tf.name_scope("train"):
                tf.summary.scalar("acc (top 1)", tf.constant(0.25, tf.float64))
            tf.summary.histogram("h", [1., 2., 2., 5.], buckets=3)
            tf.summary.histogram("h_normal", rng.randn(1000).astype("float32"))
            tf.summary.histogram("h_one", [2.], buckets=3)
            tf.summary.histogram("h_empty", tf.zeros([0]))
            tf.summary.histogram("h_int", tf.range(10), buckets=4)
            tf.summary.histogram("h_none", [1.0, 2.0], buckets=0)
            tf.summary.image("img", rng.rand(2, 4, 5, 3).astype("float32"), max_outputs=1)
            tf.summary.image("img_u8", rng.randint(0, 255, (3, 2, 3, 1)).astype("uint8"))
            tf.summary.image("img_over", 2 * rng.rand(1, 2, 2, 4).astype("float32") - 0.5)
            tf.summary.text("t", "hello")
            tf.summary.text("t2", ["a", "b"], description="two")
            tf.summary.audio("a", (rng.rand(2, 10, 1) - 0.5).astype("float32"), 8000,
                             max_outputs=1)
            tf.summary.audio("a2", (rng.rand(1, 6, 2) - 0.5).astype("float32"), 16000)
            errors["scalar_shape"] = _error(lambda: tf.summary.scalar("v", [1.0, 2.0]))
            errors["image_rank"] = _error(lambda: tf.summary.image("i", tf.zeros([2, 2, 3])))
            errors["audio_encoding"] = _error(
                lambda: tf.summary.audio("a", tf.zeros([1, 2, 1]), 8000, encoding="mp3"))
    none_written = bool(tf.summary.scalar("x", 1.0, step=0)) if plugins else False

    step = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def f(x):
        tf.summary.write("fx", tf.reduce_sum(x), step=step)
        with tf.summary.record_if(step % 2 == 0):
            tf.summary.write("even", x[:1], step=step)
        if plugins:
            tf.summary.scalar("fs", x[0] * 2.0, step=step)
            tf.summary.histogram("fh", x, step=step, buckets=4)
            tf.summary.image("fi", tf.reshape(x, [1, 2, 2, 1]) / 4.0, step=step)
            tf.summary.text("ft", "constant", step=step)
        step.assign_add(1)
        return x * 2.0

    with w.as_default():
        for i in range(3):
            f(tf.constant([1., 2., 3., float(i)]))
    tf.summary.trace_on(graph=True)
    tf.function(lambda x: x + 1.0)(tf.constant(1.0))
    with w.as_default():
        tf.summary.trace_export("my_trace", step=5)
    errors["trace_off"] = _error(lambda: tf.summary.trace_export("again", step=0))
    w.close()
    errors["closed"] = _error(lambda: w.as_default())
    errors["logdir"] = _error(lambda: tf.summary.create_file_writer(None))

    # The queue: written once more than max_queue events wait, then on close.
    qdir = os.path.join(logdir, "queue")
    q = tf.summary.create_file_writer(qdir, max_queue=2, filename_suffix="q")
    qpath = os.path.join(qdir, os.listdir(qdir)[0])
    counts = []
    with q.as_default(step=0):
        for k in range(4):
            tf.summary.write("k", k)
            counts.append(len(_records(qpath)))
        tf.summary.flush()
        counts.append(len(_records(qpath)))
    q.close()

    files = sorted(os.listdir(logdir))
    events = _normal(_records(os.path.join(logdir, files[0])), event_class)
    return {"made": len(made), "files": [NAME.match(n).groups()[4] if NAME.match(n) else n
                                         for n in files],
            "qfile": NAME.match(os.path.basename(qpath)).groups()[4],
            "events": events, "recorded": recorded, "none_written": none_written,
            "errors": errors, "counts": counts}


def _tf_outcome():
    def compute():
        tf = tf_oracle.tensorflow()
        from tensorflow.core.util import event_pb2
        with tempfile.TemporaryDirectory() as d:
            return program(tf, d, PLUGINS, event_pb2.Event)
    return tf_oracle.cached("tf_summary", (program, _normal, PLUGINS), compute)


@pytest.fixture(scope="module")
def tf_outcome():
    return _tf_outcome()


def _ours(logdir):
    from eagertape.tf._proto.summary import Event
    return program(etf, logdir, PLUGINS, Event)


@pytest.mark.both_modes
def test_the_same_calls_write_the_same_events(tf_outcome, tmp_path):
    got = _ours(str(tmp_path))
    want = tf_outcome
    assert got["made"] == want["made"] == 1
    assert got["files"] == want["files"] == [".v2", "queue"]
    assert got["qfile"] == want["qfile"] == ".q"
    assert got["counts"] == want["counts"] == [1, 1, 4, 4, 5]
    assert (got["recorded"], got["none_written"]) == (want["recorded"], want["none_written"])
    assert got["errors"] == want["errors"]
    assert [r[:2] for r in got["events"]] == [r[:2] for r in want["events"]]
    for mine, theirs in zip(got["events"], want["events"]):
        assert mine == theirs, mine[:2]
    steps = [(r[0], r[1]) for r in got["events"][1:] if r[1] in ("fx", "even")]
    assert steps == [(0, "fx"), (0, "even"), (1, "fx"), (2, "fx"), (2, "even")]


def test_tf_reads_the_files(tmp_path):
    """TF's own reader (its checksums and its Event class) and, where installed,
    TensorBoard's EventAccumulator read eagertape's file."""
    tf = tf_oracle.tensorflow()
    w = etf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=2):
        etf.summary.write("v", etf.constant([1.0, 2.0]))
        etf.summary.scalar("loss", 0.75)
    w.close()
    (name,) = os.listdir(tmp_path)
    when, host, pid, n, suffix = NAME.match(name).groups()
    assert (host, int(pid), suffix) == (socket.gethostname(), os.getpid(), ".v2")
    events = list(tf.compat.v1.train.summary_iterator(str(tmp_path / name)))
    assert events[0].file_version == "brain.Event:2" and events[0].wall_time == int(when)
    (v,) = events[1].summary.value
    assert (events[1].step, v.tag) == (2, "v")
    np.testing.assert_array_equal(tf.make_ndarray(v.tensor), np.float32([1.0, 2.0]))
    assert events[2].summary.value[0].metadata.plugin_data.plugin_name == "scalars"
    if available("tensorboard"):
        from tensorboard.backend.event_processing import event_accumulator as ea
        acc = ea.EventAccumulator(str(tmp_path), size_guidance={ea.TENSORS: 0})
        acc.Reload()
        assert sorted(acc.Tags()["tensors"]) == ["loss", "v"]
        (loss,) = acc.Tensors("loss")
        assert loss.step == 2 and tf.make_ndarray(loss.tensor_proto) == np.float32(0.75)


def test_the_plugins_match_tf(tmp_path):
    """TF 2.21 with TensorBoard 2.21 wrote these (kept here, as CI has no TensorBoard):
    the plugins' metadata and a histogram's and an audio clip's tensors."""
    w = etf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=3):
        etf.summary.scalar("s", 0.5, description="desc")
        etf.summary.histogram("h", [1., 2., 2., 5.], buckets=3)
        etf.summary.image("i", np.zeros([1, 1, 1, 1], "float32"))
        etf.summary.text("t", "x")
        etf.summary.audio("a", np.zeros([1, 10, 1], "float32"), 8000)
    w.close()
    from eagertape.tf._proto.summary import Event
    (name,) = os.listdir(tmp_path)
    values = [Event.FromString(r).summary.value[0] for r in _records(tmp_path / name)[1:]]
    meta = [v.metadata.SerializeToString() for v in values]
    assert meta == [b"\n\t\n\x07scalars\x1a\x04desc", b"\n\x0c\n\nhistograms",
                    b"\n\x08\n\x06images", b"\n\x06\n\x04text", b"\n\x0b\n\x05audio\x12\x02\x10\x0b"]
    # rows (left edge, right edge, count): 1 to 7/3 (three), 7/3 to 11/3, 11/3 to 5 (one)
    assert values[1].tensor.tensor_content == bytes.fromhex(
        "000000000000f03f" "aaaaaaaaaaaa0240" "0000000000000840"
        "aaaaaaaaaaaa0240" "5555555555550d40" "0000000000000000"
        "5555555555550d40" "0000000000001440" "000000000000f03f")
    assert list(values[4].tensor.string_val) == [
        b"RIFF8\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00\x80>\x00\x00"
        b"\x02\x00\x10\x00data\x14\x00\x00\x00" + bytes(20), b""]


@requires("tensorflow")
def test_bad_arguments_say_what_to_do():
    with pytest.raises(ValueError, match="logdir"):
        etf.summary.create_file_writer(None)
    with pytest.raises(TypeError, match="argument `step` must be an integer"):
        etf.summary.write("x", 1.0, step="one")
    with pytest.raises(ValueError, match="Invalid argument to flush"):
        etf.summary.flush("w")
    with pytest.raises(ValueError, match="Must enable trace"):
        etf.summary.trace_export("t", step=0)
