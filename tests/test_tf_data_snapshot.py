"""tf.data gaps the census met, each against TensorFlow: ``Dataset.snapshot`` (load_csv's
cell 91: written by the first complete pass, read back by later ones, in this process
and in a new one), ``TextLineDataset``'s ``num_parallel_reads`` (the files' lines
interleaved) and ``element_spec`` of a map over ``from_generator`` (no call of the
generator).

A snapshot's pass counts are read off a ``tf.py_function`` in the pipeline: it runs
once an element in both libraries (a plain Python side effect runs at TF's trace)."""
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle


def _plain(e):
    """An element as plain values (bytes, lists), for both libraries."""
    if isinstance(e, dict):
        return {k: _plain(v) for k, v in e.items()}
    if isinstance(e, tuple):
        return tuple(_plain(v) for v in e)
    return e.numpy().tolist() if e.shape.rank else e.numpy()


def _counted(tf, n, calls):
    def load(x):
        calls.append(int(x))
        return x * 3
    return tf.data.Dataset.range(n).map(lambda x: tf.reshape(tf.py_function(load, [x], tf.int64),
                                                             []))


# -- 1. Dataset.snapshot ------------------------------------------------------------

def _passes(tf):
    calls = []
    folder = tempfile.mkdtemp()
    ds = _counted(tf, 6, calls).map(lambda x: {
        "n": x, "text": tf.strings.as_string(x),
        "pair": (tf.cast(x, tf.float32) / 2, tf.fill([2], tf.strings.as_string(-x)))})
    snap = ds.snapshot(folder)
    out = []
    for _ in range(3):
        out.append(([_plain(e) for e in snap], len(calls)))
    return out, snap.element_spec, int(snap.cardinality())


def test_snapshot_is_written_by_the_first_pass_and_read_by_the_next_as_tensorflow():
    (first, n1), (second, n2), (third, n3) = tf_oracle.plain(
        tf_oracle.check(_passes, errors="class").value)[0]
    assert n1 == n2 == n3 == 6 and first == second == third


def _unfinished_first_pass(tf):
    calls = []
    folder = tempfile.mkdtemp()
    snap = _counted(tf, 5, calls).snapshot(folder)
    # (TF's writer reads ahead of a pass left unfinished: the counts after it differ)
    seen = [[int(x) for x in snap.take(2)]]
    for _ in range(2):                  # the first complete pass writes, the next reads
        before = len(calls)
        seen.append(([int(x) for x in snap], len(calls) - before))
    # Another pipeline under the same folder is not the one written there.
    before = len(calls)
    other = _counted(tf, 4, calls).map(lambda x: x + 1).snapshot(folder)
    seen.append(([int(x) for x in other], len(calls) - before))
    seen.append([int(x) for x in tf.data.Dataset.range(3).snapshot(folder)])
    return seen


def test_an_unfinished_pass_writes_no_snapshot_and_each_pipeline_has_its_own():
    seen = tf_oracle.plain(tf_oracle.check(_unfinished_first_pass, errors="class").value)
    assert seen[1] == ([0, 3, 6, 9, 12], 5) and seen[2] == ([0, 3, 6, 9, 12], 0)


def _shards(tf, cores):
    calls = []
    a = _counted(tf, 10, calls).snapshot(tempfile.mkdtemp(), compression="GZIP",
                                         shard_func=lambda x: x % 3)
    b = _counted(tf, 10, calls).snapshot(tempfile.mkdtemp(), compression="NONE",
                                         shard_func=lambda x: x % 4,
                                         reader_func=lambda shards: shards.flat_map(
                                             lambda d: d))
    c = tf.data.Dataset.from_tensor_slices(["a", "bb", "ccc", "d"]).snapshot(
        tempfile.mkdtemp(), reader_func=lambda shards: shards.interleave(
            lambda d: d, cycle_length=1))
    out = []
    for ds in (a, b, c):
        out.append([[_plain(x) for x in ds] for _ in range(2)] + [len(calls)])
    return out


def test_shard_func_reader_func_and_compression_as_tensorflow():
    # (the default reader interleaves cpu_count() shards: the key has the count)
    out = tf_oracle.plain(tf_oracle.check(_shards, multiprocessing.cpu_count(),
                                         errors="class").value)
    assert out[1][1] == [0, 12, 24, 9, 21, 6, 18, 3, 15, 27]     # shard after shard


def _bad_shard_func(tf):
    ds = tf.data.Dataset.range(3).snapshot(tempfile.mkdtemp(),
                                           shard_func=lambda x: tf.cast(x, tf.float32))
    return [int(x) for x in ds]


def test_a_shard_func_not_returning_an_integer_raises_typeerror():
    tf_oracle.check(_bad_shard_func, errors="class", tf_raises=True)


def test_bad_arguments_are_named():
    ds = etf.data.Dataset.range(3)
    with pytest.raises(Exception, match="compression"):
        ds.snapshot(tempfile.mkdtemp(), compression="LZ4")
    with pytest.raises(TypeError, match="reader_func"):
        ds.snapshot(tempfile.mkdtemp(), reader_func=3)
    with pytest.raises(TypeError, match="path"):
        ds.snapshot(3.5)


def test_experimental_snapshot_applies_it():
    calls = []
    snap = _counted(etf, 3, calls).apply(etf.data.experimental.snapshot(tempfile.mkdtemp()))
    assert [int(x) for x in snap] == [int(x) for x in snap] == [0, 3, 6] and len(calls) == 3


# A new process with the same pipeline reads what the last one wrote.
_NEW_PROCESS = r"""
import json, sys
module, folder = sys.argv[1:]
if module == "tensorflow":
    import tensorflow as tf
else:
    import eagertape.tf as tf
calls = []
def load(x):
    calls.append(int(x))
    return x * 3
ds = tf.data.Dataset.from_tensor_slices({"k": [1, 2, 3], "s": ["x", "y", "z"]})
ds = ds.map(lambda e: (tf.reshape(tf.py_function(load, [e["k"]], tf.int32), []),
                       tf.strings.join([e["s"], "!"])))
ds = ds.shuffle(3, seed=7).snapshot(folder)
got = [[int(k), s.numpy().decode()] for k, s in ds]
print("@@" + json.dumps([got, len(calls)]))
"""


def _two_processes(module):
    folder = tempfile.mkdtemp()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="",
               PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    out = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", _NEW_PROCESS, module, folder],
                           capture_output=True, text=True, timeout=600, env=env)
        assert r.returncode == 0, r.stderr[-2000:]
        out.append(json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1][2:]))
    return out


@pytest.mark.subprocess
def test_a_new_process_reads_the_snapshot_as_tensorflow():
    tf_oracle.require()
    want = tf_oracle.cached("tf_data_snapshot_two_processes", (_NEW_PROCESS,),
                            lambda: _two_processes("tensorflow"))
    got = _two_processes("eagertape")
    assert [n for _, n in want] == [3, 0]
    assert [n for _, n in got] == [3, 0]
    # (the shuffled order is each library's generator's; the elements are the same)
    assert sorted(got[0][0]) == sorted(want[0][0]) and got[1][0] == got[0][0]


# -- 2. TextLineDataset(num_parallel_reads=N) ---------------------------------------

def _text_files():
    # (a fixed folder: the paths are in TF's outcome's key)
    folder = os.path.join(tempfile.gettempdir(), "eagertape-test-text-line-reads")
    os.makedirs(folder, exist_ok=True)
    paths = []
    for name, n in [("a", 3), ("b", 1), ("c", 4), ("d", 2)]:
        paths.append(os.path.join(folder, name + ".txt"))
        with open(paths[-1], "w") as f:
            f.write("".join(f"{name}{i}\n" for i in range(n)))
    return paths


def _parallel_reads(tf, paths, cores):
    out = {}
    for n in (None, 1, 2, 3, 8, tf.data.AUTOTUNE):
        out[str(n)] = [x.numpy() for x in tf.data.TextLineDataset(paths, num_parallel_reads=n)]
    names = tf.data.Dataset.from_tensor_slices(paths)
    out["dataset"] = [x.numpy() for x in tf.data.TextLineDataset(names, num_parallel_reads=2)]
    # A checkpointed iterator goes on where it was.
    it = iter(tf.data.TextLineDataset(paths, num_parallel_reads=2))
    ckpt = tf.train.Checkpoint(it=it)
    head = [next(it).numpy() for _ in range(3)]
    saved = ckpt.write(os.path.join(tempfile.mkdtemp(), "ckpt"))
    after = [next(it).numpy() for _ in range(3)]
    ckpt.read(saved)
    out["restored"] = (head, after, [x.numpy() for x in it])
    return out


def test_text_line_dataset_interleaves_its_files_as_tensorflow():
    out = tf_oracle.plain(tf_oracle.check(_parallel_reads, _text_files(),
                                          multiprocessing.cpu_count(), errors="class").value)
    assert out["2"][:5] == [b"a0", b"b0", b"a1", b"a2", b"c0"]     # (b ended: c next turn)


# -- 3. element_spec of a map over from_generator -----------------------------------

def _mapped_generator_spec(tf):
    calls = []

    def gen():
        calls.append(1)
        for i in range(3):
            yield i, [float(i)] * 2

    ds = tf.data.Dataset.from_generator(gen, output_signature=(
        tf.TensorSpec((), tf.int32), tf.TensorSpec((None,), tf.float32)))
    specs = [ds.map(lambda a, b: (a * 2, tf.cast(b, tf.float64))).element_spec,
             ds.map(lambda a, b: {"n": tf.shape(b), "sum": tf.reduce_sum(b)}).element_spec,
             ds.batch(2).map(lambda a, b: a + 1).element_spec,
             ds.map(lambda a, b: (a, b)).map(lambda a, b: tf.concat([b, b], 0)).element_spec]
    return specs, len(calls)


def test_element_spec_of_a_map_over_a_generator_does_not_call_it_as_tensorflow():
    specs, calls = tf_oracle.plain(
        tf_oracle.check(_mapped_generator_spec, errors="class").value)
    assert calls == 0


def test_a_csv_pipeline_is_fingerprinted_by_value(tmp_path):
    # A new process finds the snapshot only if the fingerprint is by value: a CSV reader
    # captures a compiled regular expression, which has no attributes to read.
    from eagertape.tf import _snapshot, data
    paths = [str(tmp_path / name) for name in ("a.csv", "b.csv")]
    for p in paths:
        with open(p, "w") as f:
            f.write("a,b,s\n1,2.5,x\n3,4.5,y\n")

    def key(path):
        ds = etf.data.experimental.make_csv_dataset(path, batch_size=2, label_name="a",
                                                    num_epochs=1, shuffle=False)
        return _snapshot.fingerprint(ds, data._FINGERPRINTED)
    assert key(paths[0]) is not None and key(paths[0]) == key(paths[0]) != key(paths[1])
