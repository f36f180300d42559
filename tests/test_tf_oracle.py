"""The TF oracle itself (tests/tf_oracle.py): its keys change exactly when what TF
would compute can, outcomes survive the disk cache (values, structures, error
families), a corrupt entry is a miss, and a difference is named where it is.

TensorFlow is not needed: "TensorFlow" here is eagertape.tf standing in for it,
under a version of its own, with the cache in a temporary folder."""
import collections
import importlib.util
import os
import pickle
import sys

import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle


@pytest.fixture
def fake_tf(tmp_path, monkeypatch):
    """The oracle with eagertape.tf as its TensorFlow and an empty disk cache."""
    monkeypatch.setenv("EAGERTAPE_TEST_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("EAGERTAPE_TF_ORACLE", raising=False)
    monkeypatch.setattr(tf_oracle, "tensorflow", lambda: etf)
    monkeypatch.setattr(tf_oracle, "tf_version", lambda: "stand-in 0.0")
    tf_oracle.clear(disk=False)
    before = dict(tf_oracle.STATS)
    yield lambda: {k: tf_oracle.STATS[k] - before[k] for k in before}
    tf_oracle.clear(disk=False)


def _entries(root):
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs)


def _module(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


HELPER = '''
import numpy as np


def helper(tf, x):
    return tf.reduce_sum(x * {factor})


def program(tf):
    return helper(tf, tf.constant(np.arange(3.0)))
'''


def test_a_key_changes_when_a_helper_the_program_calls_changes(tmp_path):
    try:
        v1 = _module(tmp_path, "oracle_helper_v1", HELPER.format(factor="2.0"))
        v2 = _module(tmp_path, "oracle_helper_v2", HELPER.format(factor="3.0"))
        again = _module(tmp_path, "oracle_helper_again", HELPER.format(factor="2.0"))
        k1, k2, k3 = (tf_oracle.key(m.program) for m in (v1, v2, again))
    finally:
        for name in ("oracle_helper_v1", "oracle_helper_v2", "oracle_helper_again"):
            sys.modules.pop(name, None)
    assert k1 is not None and len(k1) == 64
    assert k1 != k2, "the program's own text is the same: only its helper differs"
    assert k1 == k3, "the same source in another module file: the same key (a warm hit)"
    # and the two programs do compute different things
    assert float(v1.program(etf)) == 6.0 and float(v2.program(etf)) == 9.0


def test_captured_values_arguments_and_defaults_give_different_keys():
    # A table's lambdas: the same text, different captured values.
    made = [(lambda k: lambda tf: tf.constant(k))(k) for k in (1.0, 2.0, 1.0)]
    keys = [tf_oracle.key(p) for p in made]
    assert keys[0] != keys[1] and keys[0] == keys[2]
    defaults = [lambda tf, k=k: tf.constant(k) for k in (1, 2)]
    assert tf_oracle.key(defaults[0]) != tf_oracle.key(defaults[1])
    # lambdas on one line, the same source text: told apart by their code
    a, b = (lambda tf: tf.ones([2])), (lambda tf: tf.zeros([2]))
    assert tf_oracle.key(a) != tf_oracle.key(b)
    # arguments: by dtype, shape and bytes
    x = np.arange(6.0, dtype=np.float32)
    f = lambda tf, v: tf.reduce_sum(v)      # noqa: E731
    k = tf_oracle.key(f, x)
    assert k == tf_oracle.key(f, x.copy())
    assert k != tf_oracle.key(f, x.astype(np.float64))
    assert k != tf_oracle.key(f, x.reshape(2, 3))
    y = x.copy()
    y[5] = np.nextafter(y[5], np.float32(10))
    assert k != tf_oracle.key(f, y)
    assert tf_oracle.key(f, [1, 2]) != tf_oracle.key(f, (1, 2))


def test_a_program_with_no_stable_description_is_kept_in_memory_only(fake_tf, tmp_path):
    token = object()      # its repr is an address
    program = lambda tf: (token is not None) and tf.constant(3.0)   # noqa: E731
    assert tf_oracle.key(program) is None
    first = tf_oracle.tf_outcome(program)
    assert tf_oracle.tf_outcome(program) is first       # the same program object: reused
    assert fake_tf()["tf_runs"] == 1 and fake_tf()["unkeyable"] == 2
    assert _entries(tmp_path / "cache") == []
    other = lambda tf: (token is not None) and tf.constant(3.0)     # noqa: E731
    tf_oracle.tf_outcome(other)
    assert fake_tf()["tf_runs"] == 2, "another object with an address: not taken for it"


def _raises_out_of_range(tf):
    raise tf.errors.OutOfRangeError(None, None, "index 7 is past the end")


def test_an_error_family_round_trips_through_the_disk_cache(fake_tf, tmp_path):
    first = tf_oracle.tf_outcome(_raises_out_of_range)
    assert first.raised and first.family == "OutOfRangeError"
    assert fake_tf()["tf_runs"] == 1 and fake_tf()["disk_writes"] == 1
    tf_oracle.clear(disk=False)         # a new process: only the disk remains
    again = tf_oracle.tf_outcome(_raises_out_of_range)
    assert fake_tf()["tf_runs"] == 1 and fake_tf()["disk_hits"] == 1
    assert (again.family, again.error.name, again.error.message) == \
        ("OutOfRangeError", "OutOfRangeError", "index 7 is past the end")
    assert again.error.is_a("IndexError") and not again.error.is_a("ValueError")
    assert again.exc is None            # TF's exception object is not kept
    ours = tf_oracle.run(etf, _raises_out_of_range)
    tf_oracle.assert_same(ours, again, errors=("family", "name", "class"))
    with pytest.raises(AssertionError, match="TF raised OutOfRangeError.*family OutOfRange"):
        tf_oracle.assert_same(tf_oracle.run(etf, lambda tf: [][1]), again)


Pair = collections.namedtuple("Pair", "a b")


def _nest(tf):
    return {"z": [tf.constant([1.0, 2.0]), None, (3, "s")],
            "a": Pair(tf.constant(True), tf.constant([[1, 2]], tf.int64)),
            "shape": tf.zeros([2, 3]).shape, "dtype": tf.float16, "f": 0.5}


def test_values_and_structures_round_trip_through_the_disk_cache(fake_tf, tmp_path):
    ours = tf_oracle.run(etf, _nest)
    first = tf_oracle.tf_outcome(_nest)
    tf_oracle.clear(disk=False)
    again = tf_oracle.tf_outcome(_nest)
    assert fake_tf()["disk_hits"] == 1 and fake_tf()["tf_runs"] == 1
    for want in (first, again):
        tf_oracle.assert_same(ours, want, rtol=0, atol=0, dict_order=True)
    plain = again.plain()
    assert list(plain) == ["z", "a", "shape", "dtype", "f"]
    np.testing.assert_array_equal(plain["z"][0], [1.0, 2.0])
    assert plain["z"][1:] == [None, (3, "s")] and plain["a"].b.dtype == np.int64
    assert plain["shape"] == (2, 3) and plain["dtype"] == "float16" and plain["f"] == 0.5
    assert again.value[1] == "dict" and again.value[2][1][1][:3] == ("nt", "Pair", ("a", "b"))


def test_a_corrupt_or_foreign_entry_is_a_miss(fake_tf, tmp_path):
    program = lambda tf: tf.constant([4.0, 5.0]) * 2.0     # noqa: E731
    tf_oracle.tf_outcome(program)
    entry, = _entries(tmp_path / "cache")
    for bad in (b"not a pickle", pickle.dumps(("eagertape-tf-oracle", 1, "another key", None)),
                b""):
        with open(entry, "wb") as f:
            f.write(bad)
        tf_oracle.clear(disk=False)
        runs = fake_tf()["tf_runs"]
        out = tf_oracle.tf_outcome(program)
        assert fake_tf()["tf_runs"] == runs + 1, "read as a miss: TF ran again"
        np.testing.assert_array_equal(out.plain(), [8.0, 10.0])
    tf_oracle.clear(disk=False)
    tf_oracle.tf_outcome(program)       # the entry was written again, whole
    assert fake_tf()["disk_hits"] == 1 and _entries(tmp_path / "cache") == [entry]


def test_the_disk_cache_can_be_switched_off_and_cleared(fake_tf, tmp_path, monkeypatch):
    monkeypatch.setenv("EAGERTAPE_TF_ORACLE", "off")
    tf_oracle.tf_outcome(lambda tf: tf.constant(1))
    assert _entries(tmp_path / "cache") == [] and fake_tf()["disk_writes"] == 0
    monkeypatch.setenv("EAGERTAPE_TF_ORACLE", "on")
    tf_oracle.tf_outcome(lambda tf: tf.constant(2))
    assert len(_entries(tmp_path / "cache")) == 1
    tf_oracle.clear()
    assert _entries(tmp_path / "cache") == []
    assert tf_oracle.cache_dir() == str(tmp_path / "cache" / "tf-oracle")


def test_cached_computes_once_and_keeps_what_it_is_told_to(fake_tf, tmp_path):
    calls = []

    def compute():
        calls.append(1)
        return {"loss": [1.0, 0.5]}
    assert tf_oracle.cached("subprocess", ("program text", 1), compute) == {"loss": [1.0, 0.5]}
    tf_oracle.clear(disk=False)
    assert tf_oracle.cached("subprocess", ("program text", 1), compute) == {"loss": [1.0, 0.5]}
    assert len(calls) == 1
    tf_oracle.cached("subprocess", ("program text", 2), compute)
    assert len(calls) == 2
    crash = lambda: {"crash": "worker exited"}     # noqa: E731
    tf_oracle.cached("fuzz", "src", crash, keep=lambda v: "crash" not in v)
    tf_oracle.cached("fuzz", "src", crash, keep=lambda v: "crash" not in v)
    assert fake_tf()["tf_runs"] == 4, "a crash is not kept"


def test_differences_are_named_where_they_are():
    def outcome(x):
        return tf_oracle.Outcome(value=tf_oracle.normalise(x))
    base = {"k": [np.float32([1.0, 2.0]), (np.int32(3), None)], "s": "a"}
    tf_oracle.assert_same(outcome(base), outcome(base))
    k = base["k"]
    cases = [
        ({"k": [np.float32([1.0, 2.5]), k[1]], "s": "a"}, r"result\['k'\]\[0\]"),
        ({"k": [np.float64([1.0, 2.0]), k[1]], "s": "a"},
         r"result\['k'\]\[0\]: dtype: TF float32, eagertape float64"),
        ({"k": [k[0], (np.int32(4), None)], "s": "a"}, r"result\['k'\]\[1\]\[0\]"),
        ({"k": [k[0], (np.int32(3), np.float32(0))], "s": "a"},
         r"result\['k'\]\[1\]\[1\]: TF None, eagertape float32"),
        ({"k": [k[0], [np.int32(3), None]], "s": "a"},
         r"result\['k'\]\[1\]: TF tuple of 2, eagertape list of 2"),
        ({"k": [k[0]], "s": "a"}, r"result\['k'\]: TF list of 2, eagertape list of 1"),
        ({"k": k, "t": "a"}, r"result: keys"),
        ({"k": [np.float32([[1.0, 2.0]]), k[1]], "s": "a"}, r"shape: TF \[2\], eagertape \[1, 2\]"),
        ({"k": k, "s": 1}, r"result\['s'\]: TF Python str"),
    ]
    for got, message in cases:
        with pytest.raises(AssertionError, match=message):
            tf_oracle.assert_same(outcome(got), outcome(base))
    # tolerances: relative and absolute, TF's entries as the reference
    near = {"k": [np.float32([1.0, 2.00001]), (np.int32(3), None)], "s": "a"}
    tf_oracle.assert_same(outcome(near), outcome(base), rtol=1e-4)
    with pytest.raises(AssertionError):
        tf_oracle.assert_same(outcome(near), outcome(base), rtol=1e-7, atol=0)
    # a dict's order: only where asked for
    swapped = {"s": "a", "k": base["k"]}
    tf_oracle.assert_same(outcome(swapped), outcome(base))
    with pytest.raises(AssertionError, match="keys in order"):
        tf_oracle.assert_same(outcome(swapped), outcome(base), dict_order=True)


def test_families_are_tfs_and_eagertapes_alike():
    assert tf_oracle.family(etf.errors.InvalidArgumentError(None, None, "m")) == \
        "InvalidArgumentError"
    assert tf_oracle.family(etf.errors.NotFoundError(None, None, "m")) == "NotFoundError"
    assert tf_oracle.family(KeyError("k")) == "LookupError"
    assert tf_oracle.family(NotImplementedError()) == "RuntimeError"
    assert tf_oracle.family(ZeroDivisionError()) == "ZeroDivisionError"
