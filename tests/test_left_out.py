"""TF's top-level namespaces that ``eagertape.tf`` leaves out (tf.tpu, tf.xla, ...):
each raises an AttributeError giving its own reason and what to use instead, not the
hint meant for an op not written yet."""
import pytest

import eagertape.tf as etf
from eagertape.tf._left_out import NAMESPACES, PLANNED

LEFT_OUT = "is left out of eagertape's TensorFlow facade: "
GENERIC = ("is not supported by eagertape's TensorFlow facade yet; use the recorded "
           "jax.numpy in eagertape.numpy (or eagertape.nn), or eagertape.primitive(fn) to "
           "record any JAX function")

# What each reason must name, written here apart from the table: the way out a user
# can take (and, for those to come, that they are planned), so a reason edited into
# something vague, or swapped with another's, fails.
WANT = {
    "estimator": ["removed", "tf.keras", "GradientTape"],
    "tpu": ["jax[tpu]"],
    "feature_column": ["deprecated", "tf.keras.layers.Normalization"],
    "queue": ["tf.data.Dataset"],
    "xla": ["jax.lax", "eagertape.primitive"],
    "mlir": ["jax.jit(f).lower"],
    "raw_ops": ["tf.math", "eagertape.primitive"],
    "sets": ["SparseTensor", "intersect1d"],
    "quantization": ["qint8", "custom_gradient"],
    "graph_util": ["graph"],
}


def test_the_table_names_each_left_out_namespace_once():
    assert sorted(NAMESPACES) == sorted(WANT)
    assert len(set(NAMESPACES.values())) == len(NAMESPACES)    # no shared generic text


@pytest.mark.parametrize("name", sorted(WANT))
def test_a_left_out_namespace_says_its_own_reason(name):
    with pytest.raises(AttributeError) as e:
        getattr(etf, name)
    message = str(e.value)
    assert message == f"tf.{name} {LEFT_OUT}{NAMESPACES[name]}"
    assert "eagertape.numpy (or eagertape.nn)" not in message
    missing = [w for w in WANT[name] if w not in message]
    assert missing == [], message
    assert not hasattr(etf, name)


def test_none_is_planned_now():
    # tf.io (the last one planned), tf.audio and tf.distribute are in: tf/io.py,
    # tf/audio.py, tf/distribute.py.
    assert {n for n, why in NAMESPACES.items() if PLANNED in why} == set()
    import eagertape.tf as tf
    assert tf.io.read_file is not None and tf.audio.decode_wav is not None
    assert tf.distribute.get_strategy().num_replicas_in_sync == 1


def test_a_name_not_done_yet_keeps_the_generic_hint():
    with pytest.raises(AttributeError) as e:
        etf.no_such_namespace_in_tf
    assert str(e.value) == f"tf.no_such_namespace_in_tf {GENERIC}"
    # The table is the top level's: tf.math.summary is an op name like any other.
    with pytest.raises(AttributeError) as e:
        etf.math.summary
    assert str(e.value) == f"tf.math.summary {GENERIC}"


def test_the_single_names_left_out_keep_their_reasons():
    with pytest.raises(AttributeError, match=f"tf.fingerprint {LEFT_OUT}TF's fingerprint of "
                                             "any tensor's bytes is not reproduced"):
        etf.fingerprint
    # (tf.IndexedSlices, the name checked here before, is in now)
    with pytest.raises(AttributeError, match=f"tf.edit_distance {LEFT_OUT}TF's raw ragged "
                                             "kernels and edit distance on SparseTensors"):
        etf.edit_distance
