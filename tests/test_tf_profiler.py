"""tf.profiler over jax.profiler: TF's calls, TF's errors and TF's file layout
(LOGDIR/plugins/profile/<run>/<host>.xplane.pb, as TF 2.21 wrote it for the same
calls: the errors' classes and messages below are TF's)."""
import glob
import os

import pytest

import eagertape.tf as tf


def _profiles(logdir):
    return glob.glob(os.path.join(logdir, "plugins", "profile", "*", "*.xplane.pb"))


def test_start_stop_profile_and_trace_write_tfs_layout_and_errors(tmp_path):
    logdir = str(tmp_path / "logs")
    with pytest.raises(tf.errors.UnavailableError,
                       match="^Cannot export profiling results. No profiler is running.$"):
        tf.profiler.experimental.stop()
    tf.profiler.experimental.start(logdir, tf.profiler.experimental.ProfilerOptions(
        host_tracer_level=3))
    with pytest.raises(tf.errors.AlreadyExistsError, match="^Another profiler is running.$"):
        tf.profiler.experimental.start(str(tmp_path / "other"))
    with tf.profiler.experimental.Trace("train", step_num=1, _r=1):
        tf.reduce_sum(tf.ones([4, 4])).numpy()
    tf.profiler.experimental.stop()
    assert len(_profiles(logdir)) == 1 and os.path.getsize(_profiles(logdir)[0]) > 0
    assert not os.path.exists(tmp_path / "other")      # the refused start made nothing

    dropped = str(tmp_path / "dropped")
    tf.profiler.experimental.start(dropped)
    tf.profiler.experimental.stop(save=False)
    assert _profiles(dropped) == []

    with tf.profiler.experimental.Profile(str(tmp_path / "block")):
        tf.ones([2]).numpy()
    assert len(_profiles(str(tmp_path / "block"))) == 1
    with pytest.raises(TypeError, match="argument `options`"):
        tf.profiler.experimental.start(logdir, options={"host_tracer_level": 2})
    tf.profiler.experimental.start(logdir)        # nothing left running by the refusal
    tf.profiler.experimental.stop()
    assert len(_profiles(logdir)) >= 1
