"""``tf.summary``: TensorBoard's event files, written without TensorFlow.

A file writer (``create_file_writer``) writes what TF's writes: a file named
``events.out.tfevents.<seconds>.<host>.<pid>.<n>.v2`` in ``logdir``, TFRecord
framing of ``Event`` messages (TF's ``event.proto`` and ``summary.proto``), the
first one the file version ``brain.Event:2``, then one event per summary: a
tensor with its step, wall time, tag and the TensorBoard plugin's metadata, as
TF 2's ``tf.summary`` (TensorBoard's ``summary_v2``) writes them:

- ``scalar``: a float32 scalar, plugin ``scalars``;
- ``histogram``: a float64 ``[buckets, 3]`` tensor of (left edge, right edge,
  count), TF's bucketing (equal widths from the minimum to the maximum), plugin
  ``histograms``;
- ``image``: ``[width, height, png, ...]`` strings, plugin ``images``;
- ``text``: the string tensor, plugin ``text``;
- ``audio``: ``[k, 2]`` strings of (WAV bytes, label), plugin ``audio``;
- ``write``: any tensor with the metadata given.

TensorBoard reads these files as it reads TF's (``tests/test_tf_summary.py``
reads them back with TF's own readers and compares them with TF's files).

Summaries follow the default writer (``writer.as_default()``, ``set_as_default``)
and step (``as_default(step=...)``, ``tf.summary.experimental.set_step``) of the
thread, and ``record_if``. Inside a ``tf.function`` a summary is written when the
function runs, at every call (a host callback in the compiled program, as
``tf.print``), with the step and the ``record_if`` condition of that call where they
are Variables or traced values; the writer is the one that was the default when the
function was traced, as in TF.

>>> import os, tempfile
>>> import eagertape.tf as tf
>>> logdir = tempfile.mkdtemp()
>>> writer = tf.summary.create_file_writer(logdir)
>>> with writer.as_default(step=1):
...     ok = tf.summary.scalar("loss", 0.25)
>>> bool(ok), os.listdir(logdir)[0].startswith("events.out.tfevents.")
(True, True)
"""
import contextlib
import itertools
import logging
import os
import re
import socket
import threading
import time
import weakref

import jax
import numpy as np

from .. import extend as _extend
from ..extend import TensorLike as _TensorLike
from . import _text
from ._tfrecord import _frame
from ._util import tensor as _tensor

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "audio", "flush",
           "graph", "histogram", "image", "record_if", "scalar", "should_record_summaries",
           "text", "trace_export", "trace_off", "trace_on", "write", "experimental"]

_log = logging.getLogger("eagertape")

# The writer TF's EventsWriter names in each file's first event.
_SOURCE = "tensorflow.core.util.events_writer"
_FILE_VERSION = "brain.Event:2"
_INVALID_SCOPE_CHARACTERS = re.compile(r"[^-_/.A-Za-z0-9]")
# The plugins' metadata as TensorBoard's summary_v2 writes it: plugin name and
# content (each plugin's PluginData proto at version 0, serialized; audio's
# carries its encoding, WAV = 11, in field 2).
_PLUGINS = {"scalars": b"", "histograms": b"", "images": b"", "text": b"",
            "audio": b"\x10\x0b"}
_DEFAULT_BUCKETS = 30


def _pb():
    # The protos load on first use: importing the facade does not need protobuf.
    from ._proto import framework, summary
    return framework, summary


# -- the thread's summary state --------------------------------------------------

class _State(threading.local):
    def __init__(self):
        self.writer = None
        self.step = None
        self.is_recording = None


_state = _State()


class _SummaryContext:
    """``writer.as_default(step)``: a class, so ``set_as_default`` can enter it
    without a generator's ``finally`` running when it is collected (TF's reason)."""

    def __init__(self, writer, step=None):
        self._writer, self._step = writer, step
        self._old_writer = self._old_step = None

    def __enter__(self):
        self._old_writer, _state.writer = _state.writer, self._writer
        if self._step is not None:
            self._old_step, _state.step = _state.step, self._step
        return self._writer

    def __exit__(self, *exc):
        _state.writer.flush()
        _state.writer = self._old_writer
        if self._step is not None:
            _state.step = self._old_step
        return False


# -- writers ------------------------------------------------------------------------

class SummaryWriter:
    """``tf.summary.SummaryWriter``: the interface of the writers
    ``create_file_writer`` and ``create_noop_writer`` make.

    >>> import tempfile
    >>> import eagertape.tf as tf
    >>> isinstance(tf.summary.create_file_writer(tempfile.mkdtemp()), tf.summary.SummaryWriter)
    True
    """

    def set_as_default(self, step=None):
        """Makes this writer the thread's default (and ``step`` its step, if given)."""
        self.as_default(step).__enter__()

    def as_default(self, step=None):
        """A context in which this writer is the default (and ``step``, if not None,
        the default step); leaving it flushes the writer and puts back the previous
        writer and step."""
        return _SummaryContext(self, step)

    def init(self):
        """Initializes the writer."""
        raise NotImplementedError()

    def flush(self):
        """Writes buffered events to the file."""
        raise NotImplementedError()

    def close(self):
        """Flushes and closes the writer."""
        raise NotImplementedError()


_file_ids = itertools.count()


class _EventFile:
    """One event file and its queue of serialized events (TF's SummaryFileWriter:
    flushed when more than ``max_queue`` events wait, or ``flush_millis`` have passed
    since the last flush). Kept apart from the writer so that the writer's
    finalizer can flush it (TF flushes a writer whose resource is deleted)."""

    def __init__(self, logdir, max_queue, flush_millis, suffix):
        os.makedirs(logdir, exist_ok=True)
        sep = "" if suffix.startswith(".") else "."
        # TF's names: seconds (10 digits), host, then pid and a process-wide counter,
        # so that two writers (of one process or two) never share a file.
        now = int(time.time())
        self.path = os.path.join(
            logdir, f"events.out.tfevents.{now:010d}.{socket.gethostname()}."
                    f"{os.getpid()}.{next(_file_ids)}{sep}{suffix}")
        self._lock = threading.Lock()
        self._queue = []
        self._max_queue, self._flush_millis = max_queue, flush_millis
        self._f = open(self.path, "wb")
        _, pb = _pb()
        first = pb.Event(wall_time=now, file_version=_FILE_VERSION)
        first.source_metadata.writer = _SOURCE
        self._f.write(_frame(first.SerializeToString()))
        self._f.flush()
        self._last_flush = time.time()

    def add(self, event):
        with self._lock:
            if self._f is None:
                raise RuntimeError(f"the summary writer of {self.path} is closed")
            self._queue.append(event.SerializeToString())
            if (len(self._queue) > self._max_queue
                    or (time.time() - self._last_flush) * 1000 > self._flush_millis):
                self._flush()

    def _flush(self):
        if self._f is None:
            return
        self._f.write(b"".join(_frame(r) for r in self._queue))
        self._queue.clear()
        self._f.flush()
        self._last_flush = time.time()

    def flush(self):
        with self._lock:
            self._flush()

    def close(self):
        with self._lock:
            self._flush()
            if self._f is not None:
                self._f.close()
                self._f = None


def _at_run_time(fn):
    """Calls ``fn()`` now, or, inside a ``tf.function``'s trace, when the function runs."""
    if _extend.function_trace() is None:
        return fn()
    jax.debug.callback(fn, ordered=True)
    return None


class _FileWriter(SummaryWriter):
    """The writer ``tf.summary.create_file_writer`` makes."""

    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        self._file = _EventFile(logdir, max_queue, flush_millis, filename_suffix)
        self._closed = False
        self._finalizer = weakref.finalize(self, self._file.close)

    def _check_open(self):
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def set_as_default(self, step=None):
        """See ``SummaryWriter.set_as_default``."""
        self._check_open()
        super().set_as_default(step)

    def as_default(self, step=None):
        """See ``SummaryWriter.as_default``."""
        self._check_open()
        return super().as_default(step)

    def init(self):
        """The file is made when the writer is (TF's eager writer runs its init then)."""
        self._check_open()

    def flush(self):
        """Writes the queued events to the file (inside a ``tf.function``: when it runs)."""
        if not self._closed:
            _at_run_time(self._file.flush)

    def close(self):
        """Flushes and closes the file; the writer cannot be made the default again."""
        if not self._closed:
            _at_run_time(self._file.close)
            if _extend.function_trace() is None:
                self._closed = True

    def _event(self, step, **what):
        _, pb = _pb()
        return pb.Event(wall_time=time.time(), step=int(step), **what)

    def _write_tensor(self, tag, array, step, metadata):
        framework, pb = _pb()
        ev = self._event(step)
        value = ev.summary.value.add(tag=tag)
        _tensor_proto(array, value.tensor, framework)
        if metadata:
            value.metadata.ParseFromString(metadata)
        self._file.add(ev)


class _NoopWriter(SummaryWriter):
    """The writer ``tf.summary.create_noop_writer`` (and ``create_file_writer``
    refused nothing) makes: it writes nothing."""

    def set_as_default(self, step=None):
        """Does nothing (TF's no-op writer is never the default)."""

    @contextlib.contextmanager
    def as_default(self, step=None):
        """A context that changes nothing."""
        yield

    def init(self):
        """Does nothing."""

    def flush(self):
        """Does nothing."""

    def close(self):
        """Does nothing."""


def _concrete(value, argname):
    if isinstance(value, _TensorLike):
        if isinstance(value._value, jax.core.Tracer):
            raise ValueError(f"Invalid graph Tensor argument '{argname}={value}' to "
                             "create_file_writer() inside an @tf.function. The create call "
                             "will be lifted into the outer eager execution context, so it "
                             "cannot consume graph tensors defined inside the function body.")
        return value.numpy()
    return value


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None, experimental_trackable=False, experimental_mesh=None):
    """A writer of an event file in ``logdir`` (made if missing): events are queued
    and written once more than ``max_queue`` (10) wait, when ``flush_millis``
    (120,000) have passed since the last write, on ``flush()``, on leaving
    ``as_default()`` and on ``close()``; the file name ends in ``filename_suffix``
    (".v2").

    >>> import os, tempfile
    >>> import eagertape.tf as tf
    >>> logdir = tempfile.mkdtemp()
    >>> w = tf.summary.create_file_writer(logdir, filename_suffix=".run")
    >>> os.listdir(logdir)[0].endswith(".run")
    True
    """
    if logdir is None:
        raise ValueError("Argument `logdir` cannot be None")
    if experimental_mesh is not None:
        raise ValueError("argument `experimental_mesh` of create_file_writer: DTensor "
                         "meshes are not in eagertape; leave it None")
    logdir = _concrete(logdir, "logdir")
    if isinstance(logdir, (bytes, np.bytes_)):
        logdir = logdir.decode()
    if not isinstance(logdir, (str, os.PathLike)):
        raise TypeError(f"argument `logdir` of create_file_writer must be a path (str), got "
                        f"{type(logdir).__name__}")
    max_queue = 10 if max_queue is None else int(_concrete(max_queue, "max_queue"))
    flush_millis = (2 * 60 * 1000 if flush_millis is None
                    else int(_concrete(flush_millis, "flush_millis")))
    suffix = ".v2" if filename_suffix is None else _concrete(filename_suffix, "filename_suffix")
    if isinstance(suffix, (bytes, np.bytes_)):
        suffix = suffix.decode()
    if not isinstance(suffix, str):
        raise TypeError(f"argument `filename_suffix` of create_file_writer must be a str, got "
                        f"{type(suffix).__name__}")
    return _FileWriter(os.fspath(logdir), max_queue, flush_millis, suffix)


def create_noop_writer():
    """A writer that writes nothing: a placeholder where code expects a writer.

    >>> import eagertape.tf as tf
    >>> with tf.summary.create_noop_writer().as_default():
    ...     bool(tf.summary.scalar("x", 1.0, step=0))
    False
    """
    return _NoopWriter()


def flush(writer=None, name=None):
    """Writes the queued events of ``writer`` (default: the thread's default writer;
    with none, does nothing).

    >>> import tempfile
    >>> import eagertape.tf as tf
    >>> tf.summary.flush(tf.summary.create_file_writer(tempfile.mkdtemp()))
    """
    if writer is None:
        writer = _state.writer
        if writer is None:
            return None
    if isinstance(writer, SummaryWriter):
        return writer.flush()
    raise ValueError("Invalid argument to flush(): %r" % (writer,))


# -- recording conditions and steps --------------------------------------------------

@contextlib.contextmanager
def record_if(condition):
    """A context in which summaries are written only where ``condition`` holds: a
    bool, a boolean Tensor, or a callable giving one (called at each summary, so
    ``lambda: step % 100 == 0`` follows ``step``).

    >>> import tempfile
    >>> import eagertape.tf as tf
    >>> with tf.summary.create_file_writer(tempfile.mkdtemp()).as_default(step=0):
    ...     with tf.summary.record_if(False):
    ...         bool(tf.summary.scalar("x", 1.0))
    False
    """
    old = _state.is_recording
    try:
        _state.is_recording = condition
        yield
    finally:
        _state.is_recording = old


def _recording():
    """Whether to write now: False, True, or a boolean Tensor (concrete, or traced
    inside a tf.function), TF's rule: a default writer, and the ``record_if``
    condition (True where none is set)."""
    if _state.writer is None:
        return False
    cond = _state.is_recording
    if callable(cond):
        cond = cond()
    if cond is None:
        return True
    if isinstance(cond, _TensorLike):
        t = _tensor(cond)
        if not isinstance(t._value, jax.core.Tracer):
            return bool(t.numpy())
        return t
    return bool(cond)


def should_record_summaries():
    """A boolean Tensor: whether summaries are written now (a default writer, and
    the ``record_if`` condition).

    >>> import eagertape.tf as tf
    >>> bool(tf.summary.should_record_summaries())
    False
    """
    cond = _recording()
    return cond if isinstance(cond, _TensorLike) else _extend.constant(cond)


def _get_step():
    """The thread's default step (``None`` where none is set).

    >>> import eagertape.tf as tf
    >>> tf.summary.experimental.set_step(5)
    >>> tf.summary.experimental.get_step()
    5
    >>> tf.summary.experimental.set_step(None)
    """
    return _state.step


def _set_step(step):
    """Sets the thread's default step: an int64-castable value or Variable (read at
    each summary), or None to unset it.

    >>> import eagertape.tf as tf
    >>> step = tf.Variable(0, dtype=tf.int64)
    >>> tf.summary.experimental.set_step(step)
    >>> tf.summary.experimental.get_step() is step
    True
    >>> tf.summary.experimental.set_step(None)
    """
    _state.step = step


def _check_step(step):
    if isinstance(step, _TensorLike):
        if not (np.issubdtype(step.dtype, np.integer)):
            raise TypeError(f"argument `step` must be an integer scalar (int64-castable), got "
                            f"a {step.dtype.name} tensor")
        shape = tuple(step.shape)
    else:
        try:
            arr = np.asarray(step)
        except Exception:  # noqa: BLE001 - any unconvertible object
            arr = None
        if arr is None or not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == bool):
            raise TypeError(f"argument `step` must be an integer scalar (int64-castable), got "
                            f"{step!r}")
        shape = arr.shape
    if int(np.prod(shape)) != 1:
        raise ValueError(f"Argument `step` must be a scalar. Received step with shape "
                         f"{_extend.TensorShape(shape)}.")


@contextlib.contextmanager
def summary_scope(name, default_name="summary", values=None):
    """``(tag, scope)``: the summary's tag (``name`` under the enclosing name
    scopes, characters kept) and the name scope entered for it.

    >>> import eagertape.tf as tf
    >>> with tf.name_scope("train"):
    ...     with tf.summary.experimental.summary_scope("loss (mean)") as (tag, scope):
    ...         tag, scope
    ('train/loss (mean)', 'train/lossmean/')
    """
    from ._module import name_scope
    name = name or default_name
    current = _extend.current_name_scope().rstrip("/")
    tag = f"{current}/{name}" if current else name
    clean = _INVALID_SCOPE_CHARACTERS.sub("", name) or default_name
    with name_scope(clean) as scope:
        yield tag, scope


# -- writing ----------------------------------------------------------------------------

_DT_NAMES = {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "int32": "DT_INT32",
             "uint8": "DT_UINT8", "int16": "DT_INT16", "int8": "DT_INT8", "int64": "DT_INT64",
             "bool": "DT_BOOL", "complex64": "DT_COMPLEX64", "complex128": "DT_COMPLEX128",
             "uint16": "DT_UINT16", "uint32": "DT_UINT32", "uint64": "DT_UINT64",
             "float16": "DT_HALF", "bfloat16": "DT_BFLOAT16"}


def _tensor_proto(a, proto, framework):
    """TF's writer's encoding: strings one by one (``string_val``), everything
    else as raw little-endian bytes (``tensor_content``)."""
    a = np.asarray(a)
    proto.tensor_shape.SetInParent()      # present even for a scalar, as TF's
    for d in a.shape:
        proto.tensor_shape.dim.add(size=d)
    if a.dtype == object:
        proto.dtype = framework.DT["DT_STRING"]
        proto.string_val.extend(bytes(x) for x in a.reshape(-1))
        return
    name = _DT_NAMES.get(a.dtype.name)
    if name is None:
        raise TypeError(f"tf.summary cannot write a tensor of dtype {a.dtype.name}")
    proto.dtype = framework.DT[name]
    if a.size:
        proto.tensor_content = np.ascontiguousarray(a, a.dtype.newbyteorder("<")).tobytes()


def _operand(x):
    """A value of a summary as ``(constant, None)``, or ``(None, jax value)`` to hand
    to the host callback inside a tf.function: every number there (a Variable's
    value at the trace is a stand-in that each call replaces with its current one)."""
    if isinstance(x, _text.StringTensor) or _text.is_text(x):
        return _text.host(x, "tensor"), None
    t = _tensor(x)
    if _extend.function_trace() is not None:
        return None, t._value
    return np.asarray(t.numpy()), None


def _write(tag, make, step, metadata):
    """Writes one summary: ``make()`` gives ``(host_fn, args)``, and the tensor
    written is ``host_fn(*numpy args)`` (computed where the summary is written: now,
    or when a tf.function runs). Returns TF's result: whether it was written."""
    writer = _state.writer
    if writer is None:
        return _extend.constant(False)
    if step is None:
        step = _state.step
    cond = _recording()
    if cond is False:
        return _extend.constant(False)
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` argument "
                         "or through tf.summary.experimental.set_step()")
    if isinstance(writer, _NoopWriter):
        return _extend.constant(False)
    host_fn, args = make()
    parts = [_operand(a) for a in [step, *args]]
    traced = [v for c, v in parts if v is not None]
    if isinstance(cond, _TensorLike):
        traced.append(cond._value)

    def record(*vals):
        vals = list(vals)
        if isinstance(cond, _TensorLike) and not bool(vals.pop()):
            return
        it = iter(vals)
        got = [c if v is None else np.asarray(next(it)) for c, v in parts]
        writer._write_tensor(tag, host_fn(*got[1:]), int(got[0]), metadata)

    if _extend.function_trace() is None:
        record(*traced)
        return _extend.constant(True)
    jax.debug.callback(record, *traced, ordered=True)
    return cond if isinstance(cond, _TensorLike) else _extend.constant(True)


def _identity(a):
    return a


def _serialized(metadata):
    if metadata is None:
        return b""
    if hasattr(metadata, "SerializeToString"):
        return metadata.SerializeToString()
    if isinstance(metadata, (bytes, bytearray)):
        return bytes(metadata)
    raise TypeError(f"argument `metadata` of tf.summary.write must be a SummaryMetadata proto "
                    f"or its serialized bytes, got {type(metadata).__name__}")


def write(tag, tensor, step=None, metadata=None, name=None):
    """Writes ``tensor`` (or what the callable ``tensor`` returns, called only when
    the summary is written) under ``tag`` at ``step`` (default:
    ``tf.summary.experimental.get_step()``) to the default writer, with
    ``metadata`` (a ``SummaryMetadata`` proto or its bytes). Returns a boolean
    Tensor: whether it was written.

    >>> import tempfile
    >>> import eagertape.tf as tf
    >>> with tf.summary.create_file_writer(tempfile.mkdtemp()).as_default():
    ...     bool(tf.summary.write("raw", tf.constant([1, 2]), step=3))
    True
    """
    if step is not None:
        _check_step(step)
    metadata = _serialized(metadata)
    return _write(tag, lambda: (_identity, [tensor() if callable(tensor) else tensor]), step,
                  metadata)


def _metadata(plugin, description):
    _, pb = _pb()
    m = pb.SummaryMetadata()
    m.plugin_data.plugin_name = plugin
    m.plugin_data.content = _PLUGINS[plugin]
    if description:
        m.summary_description = description
    return m.SerializeToString()


def scalar(name, data, step=None, description=None):
    """Writes the real scalar ``data`` (as float32) under ``name`` (TensorBoard's
    Scalars dashboard).

    >>> import tempfile
    >>> import eagertape.tf as tf
    >>> with tf.summary.create_file_writer(tempfile.mkdtemp()).as_default():
    ...     for step in range(3):
    ...         _ = tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
    """
    from . import debugging
    from .dtypes import cast
    if step is not None:
        _check_step(step)
    meta = _metadata("scalars", description)
    with summary_scope(name, "scalar_summary") as (tag, _):
        debugging.assert_scalar(data)
        value = cast(data, "float32")
        return _write(tag, lambda: (_identity, [value]), step, meta)


def _buckets(data, bucket_count):
    """TensorBoard's histogram of ``data``: ``[bucket_count, 3]`` float64 rows
    (left edge, right edge, count), equal widths from the minimum to the maximum
    (the last bucket closed), each step computed as TF computes it in float64."""
    bucket_count = max(0, int(bucket_count))
    data = np.asarray(data).reshape(-1).astype(np.float64)
    if data.size == 0 or bucket_count == 0:
        return np.zeros((bucket_count, 3), np.float64)
    lo, hi = data.min(), data.max()
    span = hi - lo
    if span == 0:
        edges = np.full(bucket_count, hi)
        counts = np.zeros(bucket_count)
        counts[-1] = data.size
        return np.ascontiguousarray(np.stack([edges, edges, counts]).T)
    width = span / np.float64(bucket_count)
    with np.errstate(invalid="ignore"):
        index = np.floor((data - lo) / width).astype(np.int32)
    index = np.minimum(index, bucket_count - 1)
    index = index[(index >= 0)]       # tf.one_hot's rule: an index out of range counts nowhere
    counts = np.bincount(index, minlength=bucket_count).astype(np.float64)
    # tf.linspace(lo, hi, n + 1): lo + delta * i inside, hi at the end.
    edges = np.concatenate([[lo], lo + width * np.arange(1, bucket_count, dtype=np.float64),
                            [hi]])
    return np.ascontiguousarray(np.stack([edges[:-1], edges[1:], counts]).T)


def histogram(name, data, step=None, buckets=None, description=None):
    """Writes the histogram of ``data`` (all its elements) under ``name``: ``buckets``
    (30) equal-width buckets from its minimum to its maximum, as TF's (TensorBoard's
    Histograms and Distributions dashboards).

    >>> import tempfile
    >>> import eagertape.tf as tf
    >>> with tf.summary.create_file_writer(tempfile.mkdtemp()).as_default():
    ...     bool(tf.summary.histogram("w", tf.random.normal([100]), step=0, buckets=10))
    True
    """
    from . import debugging
    if step is not None:
        _check_step(step)
    meta = _metadata("histograms", description)
    with summary_scope(name, "histogram_summary") as (tag, _):
        def make():
            count = _DEFAULT_BUCKETS if buckets is None else buckets
            debugging.assert_scalar(count)
            debugging.assert_type(count, "int32")
            return _buckets, [_extend.stop_gradient(_tensor(data)), count]
        return _write(tag, make, step, meta)


def _png_images(images, width, height):
    from ._image_io import encode_png
    out = [str(width).encode(), str(height).encode()]
    out += [encode_png(np.asarray(im)).numpy() for im in images]
    return np.asarray(out, dtype=object)


def image(name, data, step=None, max_outputs=3, description=None):
    """Writes up to ``max_outputs`` images of ``data`` (``[k, h, w, c]``, c 1 to 4;
    floats in [0, 1] or integers) as PNG under ``name`` (TensorBoard's Images
    dashboard).

    >>> import tempfile
    >>> import eagertape.tf as tf
    >>> with tf.summary.create_file_writer(tempfile.mkdtemp()).as_default():
    ...     bool(tf.summary.image("x", tf.zeros([2, 8, 8, 3]), step=0, max_outputs=1))
    True
    """
    from . import debugging, image as _image
    if step is not None:
        _check_step(step)
    meta = _metadata("images", description)
    with summary_scope(name, "image_summary") as (tag, _):
        def make():
            debugging.assert_rank(data, 4)
            debugging.assert_non_negative(max_outputs)
            images = _image.convert_image_dtype(data, "uint8", saturate=True)
            shape = images.shape
            return (lambda ims: _png_images(ims, shape[2], shape[1]),
                    [images[:int(max_outputs)]])
        return _write(tag, make, step, meta)


def text(name, data, step=None, description=None):
    """Writes the string tensor ``data`` (any shape; Markdown) under ``name``
    (TensorBoard's Text dashboard).

    >>> import tempfile
    >>> import eagertape.tf as tf
    >>> with tf.summary.create_file_writer(tempfile.mkdtemp()).as_default():
    ...     bool(tf.summary.text("note", "**hello**", step=0))
    True
    """
    from . import debugging
    if step is not None:
        _check_step(step)
    meta = _metadata("text", description)
    with summary_scope(name, "text_summary") as (tag, _):
        value = _text.wrap(_text.host(data, "data")) if _text.is_text(data) else data
        debugging.assert_type(value, "string")
        return _write(tag, lambda: (_identity, [value]), step, meta)


def _wavs(clips, sample_rate):
    from .audio import encode_wav
    out = np.empty((len(clips), 2), object)
    for k, clip in enumerate(clips):
        out[k, 0] = encode_wav(np.asarray(clip), sample_rate).numpy()
        out[k, 1] = b""
    return out


def audio(name, data, sample_rate, step=None, max_outputs=3, encoding=None,
          description=None):
    """Writes up to ``max_outputs`` clips of ``data`` (float32 ``[k, frames,
    channels]`` in [-1, 1]) as 16-bit WAV at ``sample_rate`` Hz under ``name``
    (TensorBoard's Audio dashboard).

    >>> import tempfile
    >>> import eagertape.tf as tf
    >>> with tf.summary.create_file_writer(tempfile.mkdtemp()).as_default():
    ...     bool(tf.summary.audio("a", tf.zeros([1, 100, 1]), 8000, step=0))
    True
    """
    from . import debugging
    from .errors import InvalidArgumentError
    if encoding is None:
        encoding = "wav"
    if encoding != "wav":
        raise ValueError("Unknown encoding: %r" % encoding)
    if step is not None:
        _check_step(step)
    meta = _metadata("audio", description)
    with summary_scope(name, "audio_summary") as (tag, _):
        def make():
            debugging.assert_rank(data, 3)
            debugging.assert_non_negative(max_outputs)
            clips = _tensor(data)
            if clips.dtype != np.float32:
                raise InvalidArgumentError(f"argument `data` of tf.summary.audio must be "
                                           f"float32, got {clips.dtype.name}")
            return _wavs, [clips[:int(max_outputs)], sample_rate]
        return _write(tag, make, step, meta)


def _write_raw_pb(tensor, step=None, name=None):
    """Writes serialized ``Summary`` protos (a string tensor of one or more) as they
    are, at ``step``.

    >>> import tempfile
    >>> import eagertape.tf as tf
    >>> with tf.summary.create_file_writer(tempfile.mkdtemp()).as_default():
    ...     bool(tf.summary.experimental.write_raw_pb(b"", step=0))
    True
    """
    if step is not None:
        _check_step(step)
    writer = _state.writer
    if writer is None:
        return _extend.constant(False)
    if step is None:
        step = _state.step
        if step is None:
            raise ValueError("No step set. Please specify one either through the `step` "
                             "argument or through tf.summary.experimental.set_step()")
    if _recording() is False or isinstance(writer, _NoopWriter):
        return _extend.constant(False)
    raw = _text.host(tensor, "tensor")
    step_now, step_traced = _operand(step)

    def record(*vals):
        _, pb = _pb()
        s = int(np.asarray(vals[0]) if vals else step_now)
        for r in raw.reshape(-1):
            ev = writer._event(s)
            ev.summary.ParseFromString(bytes(r))
            writer._file.add(ev)

    if step_traced is None:
        record()
    else:
        jax.debug.callback(record, step_traced, ordered=True)
    return _extend.constant(True)


def graph(graph_data):
    """Writes a ``GraphDef`` (any protobuf message with ``SerializeToString``: TF's
    ``tf.compat.v1.GraphDef``) as the run's graph, at step 0. eagertape makes no TF
    graphs: a tf.function is one XLA program (``jax.jit(f).lower(...).as_text()``
    shows it).

    >>> import tempfile
    >>> import eagertape.tf as tf
    >>> with tf.summary.create_file_writer(tempfile.mkdtemp()).as_default():
    ...     bool(tf.summary.graph(tf.train.Example()))   # any message, here
    True
    """
    if _extend.function_trace() is not None:
        raise ValueError("graph() cannot be invoked inside a graph context.")
    writer = _state.writer
    if writer is None or _recording() is False or isinstance(writer, _NoopWriter):
        return _extend.constant(False)
    if not hasattr(graph_data, "SerializeToString"):
        raise ValueError("Argument 'graph_data' is not tf.Graph or tf.compat.v1.GraphDef. "
                         f"Received graph_data={graph_data} of type "
                         f"{type(graph_data).__name__}.")
    writer._file.add(writer._event(0, graph_def=graph_data.SerializeToString()))
    return _extend.constant(True)


# -- traces ---------------------------------------------------------------------------

_trace_lock = threading.Lock()
_trace = None        # (graph, profiler) while a trace is on, as TF's _TraceContext


def trace_on(graph=True, profiler=False, profiler_outdir=None):  # noqa: A002
    """Starts a trace. What it holds here: with ``profiler=True`` and a
    ``profiler_outdir``, JAX's profiler trace of everything run until
    ``trace_export`` (``jax.profiler``: TensorBoard's Profile tab and Perfetto read
    it); graphs, none: eagertape makes no TF graphs (each tf.function is one XLA
    program), so the exported graph summary is empty.

    >>> import eagertape.tf as tf
    >>> tf.summary.trace_on(graph=True)
    >>> tf.summary.trace_off()
    """
    global _trace
    if _extend.function_trace() is not None:
        _log.warning("Cannot enable trace inside a tf.function.")
        return
    with _trace_lock:
        if _trace is not None:
            _log.warning("Trace already enabled")
            return
        if profiler:
            if profiler_outdir is None:
                _log.warning("No `profiler_outdir` passed to trace_on(). Profiler won't be "
                             "enabled.")
                profiler = False
            else:
                jax.profiler.start_trace(os.fspath(profiler_outdir))
        _trace = (graph, profiler)


def trace_export(name, step=None, profiler_outdir=None):
    """Stops the trace and writes it to the default writer under ``name``: TF's
    run-metadata summary (plugin ``graph_run_metadata_graph``, or
    ``graph_run_metadata`` with the profiler), here holding no graphs (see
    ``trace_on``); the profiler's trace is already in its ``profiler_outdir``.

    >>> import tempfile
    >>> import eagertape.tf as tf
    >>> tf.summary.trace_on()
    >>> with tf.summary.create_file_writer(tempfile.mkdtemp()).as_default():
    ...     tf.summary.trace_export("f", step=0)
    """
    global _trace
    if step is not None:
        _check_step(step)
    if _extend.function_trace() is not None:
        _log.warning("Cannot export trace inside a tf.function.")
        return
    with _trace_lock:
        if _trace is None:
            raise ValueError("Must enable trace before export through tf.summary.trace_on.")
        graph_on, profiler = _trace
    _, pb = _pb()
    meta = pb.SummaryMetadata()
    meta.plugin_data.plugin_name = ("graph_run_metadata_graph" if graph_on and not profiler
                                    else "graph_run_metadata")
    meta.plugin_data.content = b"1"
    default = ("graph_run_metadata_graph_summary" if graph_on and not profiler
               else "graph_run_metadata_summary")
    with summary_scope(name, default) as (tag, _):
        # An empty RunMetadata: eagertape has no TF graphs to put in it.
        empty = np.empty((), object)
        empty[()] = b""
        _write(tag, lambda: (_identity, [_text.wrap(empty)]), step, meta.SerializeToString())
    if profiler and profiler_outdir:
        _log.warning("Ignoring `profiler_outdir` passed to trace_export(). Please pass it to "
                     "trace_on() instead.")
    trace_off()


def trace_off():
    """Stops the trace (and JAX's profiler, if the trace started it) without
    writing it.

    >>> import eagertape.tf as tf
    >>> tf.summary.trace_off()      # no trace on: nothing to do
    """
    global _trace
    with _trace_lock:
        if _trace is None:
            return
        _, profiler = _trace
        _trace = None
    if profiler:
        try:
            jax.profiler.stop_trace()
        except Exception as e:  # noqa: BLE001 - TF logs and goes on
            _log.warning("Error while stopping profiler: %s", e)


def _namespace():
    import types
    mod = types.ModuleType("tf.summary.experimental")
    mod.__doc__ = "``tf.summary.experimental``: the default step, summary scopes, raw protos."
    mod.get_step, mod.set_step = _get_step, _set_step
    mod.summary_scope, mod.write_raw_pb = summary_scope, _write_raw_pb
    for f, n in ((_get_step, "get_step"), (_set_step, "set_step"),
                 (_write_raw_pb, "write_raw_pb")):
        f.__name__ = f.__qualname__ = n
    return mod


experimental = _namespace()
