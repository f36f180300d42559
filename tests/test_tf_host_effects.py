"""A tf.function's host effects (tf.print, tf.summary writes, tf.py_function) run
once per call under a GradientTape, as TF's, whatever the tape asks afterwards
(gradients of a persistent tape, nested tapes, a Jacobian, forward mode):
differential against TensorFlow, in both execution modes and both replays.

TF's gradient of a call uses the values its forward saved; eagertape's pullbacks
(``jax.vjp``, ``jax.jvp``) compute the call's forward again, from the function
with its resultless host callbacks left out (``_function._without_host_effects``).
"""
import os
import struct
import sys
import tempfile

import jax
import pytest

import tf_oracle

tf_oracle.require()

pytestmark = [pytest.mark.both_modes, pytest.mark.replay_axis]

MARK = "host-effect"


def _printed(body):
    """``body()`` and the number of lines it printed starting with MARK: TF's
    tf.print writes to file descriptor 2, eagertape's to ``sys.stderr``; both go
    to one temporary file here."""
    with tempfile.TemporaryFile(mode="w+") as tmp:
        sys.stderr.flush()
        saved_fd, saved_stream = os.dup(2), sys.stderr
        os.dup2(tmp.fileno(), 2)
        sys.stderr = tmp
        try:
            out = body()
            jax.effects_barrier()        # eagertape's callbacks have run
        finally:
            tmp.flush()
            sys.stderr = saved_stream
            os.dup2(saved_fd, 2)
            os.close(saved_fd)
        tmp.seek(0)
        return out, sum(1 for line in tmp.read().splitlines() if line.startswith(MARK))


def _printing(tf):
    @tf.function
    def f(x):
        tf.print(MARK, x, output_stream=sys.stderr)
        return x * x * x
    return f


def gradients_of_printing_function(tf):
    def run():
        f = _printing(tf)
        x = tf.Variable([1.0, 2.0])
        out = []
        with tf.GradientTape() as t:
            y = f(x)
        out.append(t.gradient(y, x))
        with tf.GradientTape(persistent=True) as t:
            y = f(x)
        out += [t.gradient(y, x), t.gradient(tf.reduce_sum(y), x)]
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                y = f(x)
            g = t1.gradient(y, x)
        out += [g, t2.gradient(g, x)]
        with tf.GradientTape() as t:
            y = f(x) + f(x)                       # two calls: two prints
        out.append(t.jacobian(y, x))
        return out
    out, n = _printed(run)
    return out, n


def summaries_and_py_function(tf):
    logdir = tempfile.mkdtemp()
    writer = tf.summary.create_file_writer(logdir)
    calls = []

    def host(v):
        calls.append(1)
        return v * 2.0

    @tf.function
    def f(x):
        with writer.as_default():
            tf.summary.write("x", tf.reduce_sum(x), step=1)
        return tf.py_function(host, [x], tf.float32) * x * x

    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as t:
        y = f(x)
    g = [t.gradient(y, x), t.gradient(tf.reduce_sum(y * y), x)]
    writer.flush()
    return g, _events(logdir), len(calls)


def _events(logdir):
    """The number of events holding a summary in ``logdir``'s event files: TFRecords
    of Event protos (field 5: summary), read here without importing TensorFlow."""
    n = 0
    for name in sorted(os.listdir(logdir)):
        with open(os.path.join(logdir, name), "rb") as f:
            data = f.read()
        at = 0
        while at < len(data):
            size = struct.unpack_from("<Q", data, at)[0]
            n += 5 in _fields(data[at + 12:at + 12 + size])
            at += 16 + size
    return n


def _fields(msg):
    """The field numbers at the top level of a serialized protocol buffer."""
    found, at = set(), 0

    def varint():
        nonlocal at
        v, shift = 0, 0
        while True:
            b = msg[at]
            at += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return v
    while at < len(msg):
        key = varint()
        found.add(key >> 3)
        wire = key & 7
        if wire == 0:
            varint()
        elif wire == 1:
            at += 8
        elif wire == 2:
            size = varint()
            at += size
        elif wire == 5:
            at += 4
        else:
            raise ValueError(f"wire type {wire} in an event file")
    return found


def forward_mode_of_printing_function(tf):
    def run():
        f = _printing(tf)
        x = tf.constant([1.0, 2.0])
        with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0])) as acc:
            y = f(x)
        return acc.jvp(y)
    return _printed(run)


def print_on_tape_outside_function(tf):
    def run():
        x = tf.Variable(3.0)
        with tf.GradientTape() as t:
            y = x * x
            tf.print(MARK, y, output_stream=sys.stderr)
        return t.gradient(y, x)
    return _printed(run)


@pytest.mark.parametrize("program", [
    gradients_of_printing_function, summaries_and_py_function,
    forward_mode_of_printing_function, print_on_tape_outside_function,
], ids=lambda p: p.__name__)
def test_host_effects_run_once_per_call(program, replay):
    got = tf_oracle.check(program)
    assert not got.raised
