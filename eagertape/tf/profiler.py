"""``tf.profiler``: TF's profiler API over JAX's profiler.

TF's profiler records TF's runtime; eagertape's work runs as XLA programs, which
``jax.profiler`` records. Both write the same thing where TF's does:
``LOGDIR/plugins/profile/<run>/<host>.xplane.pb``, which TensorBoard's Profile tab
(``tensorboard-plugin-profile``) and Perfetto read. The trace holds XLA's programs and
the host's activity, not TF's ops (docs/differences.md#profiler).

>>> import tempfile, eagertape.tf as tf
>>> logdir = tempfile.mkdtemp()
>>> tf.profiler.experimental.start(logdir)
>>> with tf.profiler.experimental.Trace("step", step_num=1):
...     y = tf.reduce_sum(tf.ones([8, 8]))
>>> tf.profiler.experimental.stop()
>>> import glob; len(glob.glob(logdir + "/plugins/profile/*/*.xplane.pb"))
1
"""
import collections
import os
import threading
import types

from .errors import AlreadyExistsError, UnavailableError

__all__ = ["experimental"]

_lock = threading.Lock()
_running = None          # the logdir of the trace being recorded (one per process, as TF's)

ProfilerOptions = collections.namedtuple(
    "ProfilerOptions", ["host_tracer_level", "python_tracer_level", "device_tracer_level",
                        "delay_ms"])
ProfilerOptions.__new__.__defaults__ = (2, 0, 1, None)
ProfilerOptions.__doc__ = """TF's profiler options. ``python_tracer_level=1`` records
Python calls too (JAX's ``create_perfetto_trace`` is not implied); the host and device
levels and ``delay_ms`` are accepted for TF's programs and have no effect on JAX's
profiler, which records the host and every device."""


def start(logdir, options=None):
    """Start recording a profile into ``logdir`` (one at a time in a process, as TF:
    a second start is TF's ``AlreadyExistsError``).

    >>> import tempfile, eagertape.tf as tf
    >>> tf.profiler.experimental.start(tempfile.mkdtemp())
    >>> tf.profiler.experimental.stop()
    """
    global _running
    import jax
    if options is not None and not isinstance(options, ProfilerOptions):
        raise TypeError("tf.profiler.experimental.start: argument `options`: give a "
                        f"tf.profiler.experimental.ProfilerOptions, not a "
                        f"{type(options).__name__}")
    with _lock:
        if _running is not None:
            raise AlreadyExistsError("Another profiler is running.")
        logdir = os.fspath(logdir)
        os.makedirs(logdir, exist_ok=True)
        try:
            jax.profiler.start_trace(logdir)
        except RuntimeError as e:        # JAX's trace started by jax.profiler directly
            raise AlreadyExistsError(f"Another profiler is running ({e}).") from None
        _running = logdir


def stop(save=True):
    """Stop recording; ``save=False`` drops the profile (JAX writes it, then it is
    removed). Without a profile running: TF's ``UnavailableError``.

    >>> import eagertape.tf as tf
    >>> try:
    ...     tf.profiler.experimental.stop()
    ... except tf.errors.UnavailableError as e:
    ...     print(e)
    Cannot export profiling results. No profiler is running.
    """
    global _running
    import jax
    with _lock:
        if _running is None:
            raise UnavailableError("Cannot export profiling results. No profiler is running.")
        logdir, _running = _running, None
        before = _runs(logdir)
        jax.profiler.stop_trace()
        if not save:
            import shutil
            for run in _runs(logdir) - before:
                shutil.rmtree(os.path.join(logdir, "plugins", "profile", run),
                              ignore_errors=True)


def _runs(logdir):
    try:
        return set(os.listdir(os.path.join(logdir, "plugins", "profile")))
    except OSError:
        return set()


class Profile:
    """``with tf.profiler.experimental.Profile(logdir):`` records the block.

    >>> import tempfile, eagertape.tf as tf
    >>> with tf.profiler.experimental.Profile(tempfile.mkdtemp()):
    ...     _ = tf.ones([2]) * 2
    """

    def __init__(self, logdir, options=None):
        self._logdir, self._options = logdir, options

    def __enter__(self):
        start(self._logdir, self._options)
        return self

    def __exit__(self, *exc):
        stop()
        return False


class Trace:
    """A named span in the profile (TF's ``Trace``; JAX's ``TraceAnnotation``): keyword
    arguments such as ``step_num`` are recorded with it, and ``_r=1`` is accepted.

    >>> import eagertape.tf as tf
    >>> with tf.profiler.experimental.Trace("train", step_num=3, _r=1):
    ...     pass
    """

    def __init__(self, name, **kwargs):
        import jax
        kwargs.pop("_r", None)
        self._annotation = jax.profiler.TraceAnnotation(str(name), **kwargs)

    def __enter__(self):
        self._annotation.__enter__()
        return self

    def __exit__(self, *exc):
        return self._annotation.__exit__(*exc)

    def set_metadata(self, **kwargs):
        """Accepted for TF's programs; JAX's annotation takes its metadata when made."""


def _server_start(port):
    """Start a profiler server on ``port`` (``jax.profiler.start_server``), for
    TensorBoard's capture button or ``jax.profiler`` clients."""
    import jax
    jax.profiler.start_server(int(port))


def _client(*args, **kwargs):
    raise NotImplementedError(
        "tf.profiler.experimental.client asks a TF profiler server for a trace; start the "
        "server with tf.profiler.experimental.server.start(port) and capture from "
        "TensorBoard's Profile tab, or record in-process with "
        "tf.profiler.experimental.start/stop")


def _namespace():
    exp = types.ModuleType("tf.profiler.experimental")
    exp.__doc__ = "``tf.profiler.experimental``: start/stop, Profile, Trace, the server."
    exp.start, exp.stop, exp.Profile, exp.Trace = start, stop, Profile, Trace
    exp.ProfilerOptions = ProfilerOptions
    exp.server = types.ModuleType("tf.profiler.experimental.server")
    exp.server.start = _server_start
    _server_start.__name__ = _server_start.__qualname__ = "start"
    exp.client = types.ModuleType("tf.profiler.experimental.client")
    exp.client.trace = exp.client.monitor = _client
    return exp


experimental = _namespace()
