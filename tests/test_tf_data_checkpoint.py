"""``tf.data`` iterators in ``tf.train.Checkpoint``: after a restore, ``next(it)``
gives the element that came after the save, as in TensorFlow.

The first test runs one program through ``tensorflow`` and ``eagertape.tf`` (each
in a subprocess; TF's run is kept by the TF oracle) and compares, pipeline by
pipeline, the elements before the save and after the restore: into the same
iterator moved on, and into a fresh iterator of a freshly made dataset. Shuffled
pipelines are compared by what TF's semantics fix (eagertape's random order is not
TF's): the restored iterator goes on as the saved one did, epoch after epoch, and
each epoch is a permutation. The errors (a generator dataset, a stateful map) are
compared by class. The rest need no TensorFlow.
"""
import copy
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("orbax.checkpoint")

import tf_oracle  # noqa: E402
import eagertape.tf as tf  # noqa: E402

_PROGRAM = r'''
import json, os, sys
import numpy as np
if sys.argv[1] == "tf":
    import tensorflow as tf
else:
    import eagertape.tf as tf
d = sys.argv[2]
out = {}

def value(x):
    if isinstance(x, dict):
        return {k: value(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return [value(v) for v in x]
    if isinstance(x, tf.RaggedTensor):
        return ["ragged", x.to_list()]
    if isinstance(x, tf.SparseTensor):
        return ["sparse", x.indices.numpy().tolist(), x.values.numpy().tolist(),
                x.dense_shape.numpy().tolist()]
    out = np.asarray(x).tolist()
    return out.decode() if isinstance(out, bytes) else out

def take(it, n):
    got = []
    for _ in range(n):
        try:
            got.append(value(next(it)))
        except StopIteration:
            got.append("end")
            break
    return got

def error(fn):
    try:
        fn()
        return "ok"
    except Exception as e:
        return type(e).__name__

def case(name, make, k, n, write=False, numpy=False):
    """Save after k elements; the n after it: going on, restored into the same
    iterator, restored into a fresh iterator of a fresh dataset."""
    it = make().as_numpy_iterator() if numpy else iter(make())
    before = take(it, k)
    ck = tf.train.Checkpoint(iterator=it)
    prefix = os.path.join(d, name, "ckpt")
    path = ck.write(prefix) if write else ck.save(prefix)
    after = take(it, n)
    (ck.read if write else ck.restore)(path)
    again = take(it, n)
    fresh = make().as_numpy_iterator() if numpy else iter(make())
    fresh_ck = tf.train.Checkpoint(iterator=fresh)
    st = (fresh_ck.read if write else fresh_ck.restore)(path)
    out[name] = {"before": before, "after": after, "again": again == after,
                 "fresh": take(fresh, n) == after, "consumed": error(st.assert_consumed)}

R = tf.data.Dataset.range
x = np.arange(24, dtype=np.float32).reshape(12, 2)
y = np.arange(12, dtype=np.int64)
# Shuffles: a seed, a new order each epoch (TF's default), the same order each epoch,
# a buffer smaller and larger than the dataset. Each is also restored in a new
# process (the program run again with "restore"), as a resumed job restores it.
SHUFFLED = {
    "shuffle_reshuffle_repeat": (lambda: R(10).shuffle(4, seed=7).repeat(3), 7, 23),
    "shuffle_full_buffer_batch": (lambda: R(10).shuffle(10, seed=1).batch(3).repeat(2), 2, 6),
    "shuffle_fixed_order": (lambda: R(10).shuffle(6, seed=3, reshuffle_each_iteration=False)
                            .repeat(3), 12, 18),
    "repeat_then_shuffle": (lambda: R(5).repeat(2).shuffle(3, seed=2), 4, 6),
}
if sys.argv[3].startswith("restore:"):
    # One pipeline restored first thing in a process of its own, as a resumed job.
    name = sys.argv[3].split(":", 1)[1]
    make, k, n = SHUFFLED[name]
    saved = json.load(open(os.path.join(d, "shuffled.json")))[name]
    it = iter(make())
    tf.train.Checkpoint(iterator=it).restore(saved["path"])
    print("RESULT", json.dumps(take(it, n)))
    sys.exit(0)

case("map_batch", lambda: R(10).map(lambda v: v * 2).batch(3), 2, 5)
case("slices_repeat_batch", lambda: tf.data.Dataset.from_tensor_slices((x, y)).repeat(3).batch(5), 3, 6)
case("skip_take_prefetch", lambda: R(30).skip(3).take(12).prefetch(2), 4, 10)
case("repeat_forever", lambda: R(7).repeat(), 13, 10)
case("dict_filter_enumerate", lambda: tf.data.Dataset.from_tensor_slices({"a": y, "b": x}).filter(
    lambda e: e["a"] % 3 != 1).enumerate(start=5), 3, 10)
case("zip_concatenate", lambda: tf.data.Dataset.zip((R(5), R(10, 20))).concatenate(
    tf.data.Dataset.zip((R(3), R(3)))), 6, 5)
case("flat_map_unbatch", lambda: R(4).flat_map(lambda v: R(v + 1)).batch(3).unbatch(), 5, 8)
case("padded_batch_shard", lambda: R(12).shard(2, 1).map(lambda v: tf.ones([v])).padded_batch(2),
     1, 4)
case("take_while_cache", lambda: R(20).take_while(lambda v: v < 9).cache().repeat(2), 11, 9)
case("map_batch_drop_remainder", lambda: R(11).map(lambda v: (v, -v)).batch(4, drop_remainder=True)
     .repeat(2), 1, 6)
case("written_not_saved", lambda: R(6), 2, 5, write=True)
case("exhausted", lambda: R(3), 4, 2)
case("numpy_iterator", lambda: R(8).batch(3), 1, 3, numpy=True)
# Through every transformation (each case saves where a transformation is midway).
txt = os.path.join(d, "lines.txt")
with open(txt, "w") as f:
    f.write("one\ntwo\nthree\nfour\n")
case("interleave", lambda: R(1, 6).interleave(lambda v: R(v).map(lambda u: u * 10 + v),
                                              cycle_length=2, block_length=2), 5, 9)
case("window_flat_map", lambda: R(11).window(4, shift=3, stride=2).flat_map(
    lambda w: w.batch(4)), 1, 4)
case("text_lines", lambda: tf.data.TextLineDataset([txt, txt]).map(tf.strings.upper), 3, 6)
case("padded_batch_unbatch", lambda: R(1, 6).map(lambda v: tf.range(v)).padded_batch(
    2, padded_shapes=[5]).unbatch(), 3, 4)
case("take_while_enumerate", lambda: R(20).take_while(lambda v: v < 7).enumerate(3), 3, 5)
case("scan", lambda: R(10).scan(tf.constant(0, tf.int64), lambda s, v: (s + v, s * v)), 4, 7)
case("rebatch", lambda: R(10).batch(4).rebatch(3), 1, 4)
case("zip_concatenate_flat_map", lambda: tf.data.Dataset.zip((R(4), R(4).flat_map(
    lambda v: R(v, v + 2)))).concatenate(tf.data.Dataset.zip((R(2), R(2)))), 3, 4)
case("ragged_elements", lambda: tf.data.Dataset.from_tensor_slices(
    tf.ragged.constant([[1, 2], [3], [], [4, 5, 6], [7]])).batch(2).repeat(2), 2, 4)
case("sparse_elements", lambda: tf.data.Dataset.from_tensor_slices(tf.SparseTensor(
    [[0, 1], [2, 0], [2, 3], [4, 2]], [1.0, 2.0, 3.0, 4.0], [5, 4])).batch(2).unbatch(), 2, 4)
case("ragged_batch", lambda: R(7).map(lambda v: tf.range(v)).ragged_batch(3), 1, 2)

for name, (make, k, n) in SHUFFLED.items():
    case(name, make, k, n)
json.dump({name: {"path": os.path.join(d, name, "ckpt-1"), "after": out[name]["after"]}
           for name in SHUFFLED}, open(os.path.join(d, "shuffled.json"), "w"))

# (Where what is compared with TF crosses an epoch of a reshuffling repeat, TF's
# answer varies from run to run: see test_a_restored_shuffle_goes_on_as_the_saved_one_did.
# The rest stays within an epoch.)
# A seeded shuffle iterated twice: each iterator its own order, the second's
# restored into a fresh dataset's iterator.
ds = R(8).shuffle(8, seed=11)
first = take(iter(ds), 8)
second_it = iter(ds)
second = take(second_it, 3)
path = tf.train.Checkpoint(iterator=second_it).save(os.path.join(d, "second", "c"))
second += take(second_it, 5)
fresh = iter(R(8).shuffle(8, seed=11))
tf.train.Checkpoint(iterator=fresh).restore(path)
out["second_iterator"] = {"orders_differ": first != second,
                          "fresh_goes_on": take(fresh, 5) == second[3:]}

# CheckpointManager: the iterator and a Variable saved together, restored in fresh
# objects from the latest checkpoint.
step = tf.Variable(0, dtype=tf.int64)
it = iter(R(40).shuffle(16, seed=5).batch(4).repeat())
manager = tf.train.CheckpointManager(tf.train.Checkpoint(step=step, iterator=it),
                                     os.path.join(d, "manager"), max_to_keep=2)
seen = []
for i in range(6):        # (the saves and what follows stay in the first epoch: see below)
    seen.append(value(next(it)))
    step.assign_add(1)
    if i % 3 == 2:
        manager.save()
going_on = take(it, 4)
step2 = tf.Variable(0, dtype=tf.int64)
it2 = iter(R(40).shuffle(16, seed=5).batch(4).repeat())
m2 = tf.train.CheckpointManager(tf.train.Checkpoint(step=step2, iterator=it2),
                                os.path.join(d, "manager"), max_to_keep=2)
restored = m2.restore_or_initialize()
out["manager"] = {"latest": os.path.basename(restored), "step": int(step2.numpy()),
                  "kept": [os.path.basename(p) for p in m2.checkpoints],
                  "goes_on": take(it2, 4) == going_on}

# What cannot be saved: a Python generator's position; a map that draws random numbers.
def gen():
    yield from range(5)
g = iter(tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([], tf.int64)))
next(g)
out["generator"] = error(lambda: tf.train.Checkpoint(iterator=g).save(os.path.join(d, "g", "c")))
out["generator_nothing_written"] = os.path.exists(os.path.join(d, "g", "checkpoint"))
r = iter(R(5).map(lambda v: tf.cast(v, tf.float32) + tf.random.uniform([])))
next(r)
out["stateful_map"] = error(lambda: tf.train.Checkpoint(iterator=r).save(os.path.join(d, "r", "c")))
s = iter(R(5).map(lambda v: tf.random.stateless_uniform([], seed=[1, 2]) + tf.cast(v, tf.float32)))
next(s)
out["stateless_map"] = error(lambda: tf.train.Checkpoint(iterator=s).save(os.path.join(d, "s", "c")))

# An iterator of another pipeline is refused.
p_other = tf.train.Checkpoint(iterator=iter(R(4).batch(2))).save(os.path.join(d, "other", "c"))
wrong = iter(R(4).shuffle(2, seed=1))
out["other_pipeline"] = error(lambda: tf.train.Checkpoint(iterator=wrong).restore(p_other))

# A training loop resumed from a checkpoint of its weights, optimizer and iterator
# gives the losses of the loop that went on.
def train_loop(restore_from=None, steps=6, save_at=None):
    rs = np.random.RandomState(0)
    xs = rs.randn(64, 3).astype("float32")
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], "float32")).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((xs, ys)).shuffle(64, seed=4).batch(8).repeat()
    it = iter(ds)
    w = tf.Variable(np.zeros((3, 1), "float32"))
    ck = tf.train.Checkpoint(w=w, iterator=it)
    if restore_from:
        ck.restore(restore_from)
    losses, path = [], None
    for i in range(steps):
        bx, by = next(it)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(bx, w) - by))
        w.assign_sub(0.1 * tape.gradient(loss, w))
        losses.append(float(loss))
        if i == save_at:
            path = ck.save(os.path.join(d, "loop", "c"))
    return losses, path
full, path = train_loop(steps=8, save_at=2)
resumed, _ = train_loop(restore_from=path, steps=5)
out["loop"] = {"full": full, "resumed": resumed}
print("RESULT", json.dumps(out))
'''


def _run(which, tmp_path):
    # Not named like a package: the program's folder is first on sys.path.
    prog, d = tmp_path / f"data_ckpt_{which}.py", tmp_path / f"out_{which}"
    prog.write_text(_PROGRAM)
    d.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"}
    results = []
    for mode in ["save"] + [f"restore:{name}" for name in _SHUFFLED]:
        p = subprocess.run([sys.executable, str(prog), which, str(d), mode], capture_output=True,
                           text=True, timeout=600,
                           env=dict(env, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES=""))
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
        assert p.returncode == 0 and lines, p.stderr[-3000:]
        results.append(json.loads(lines[-1][len("RESULT "):]))
    saved = results[0]
    saved["in_a_new_process"] = dict(zip(_SHUFFLED, results[1:]))
    return saved


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("tensorflow is not installed")
    tmp = tmp_path_factory.mktemp("data_checkpoint")
    want = copy.deepcopy(tf_oracle.cached("data-checkpoint-program", (_PROGRAM, _run),
                                          lambda: _run("tf", tmp)))
    return want, _run("eagertape", tmp)


_UNSHUFFLED = ("map_batch", "slices_repeat_batch", "skip_take_prefetch", "repeat_forever",
               "dict_filter_enumerate", "zip_concatenate", "flat_map_unbatch",
               "padded_batch_shard", "take_while_cache", "map_batch_drop_remainder",
               "written_not_saved", "exhausted", "numpy_iterator", "interleave",
               "window_flat_map", "text_lines", "padded_batch_unbatch", "take_while_enumerate",
               "scan", "rebatch", "zip_concatenate_flat_map", "ragged_elements",
               "sparse_elements", "ragged_batch")
_SHUFFLED = ("shuffle_reshuffle_repeat", "shuffle_full_buffer_batch", "shuffle_fixed_order",
             "repeat_then_shuffle")
# The elements after the save that TF restores the same in every run: the rest of
# the saved epoch (all, where no later epoch reshuffles).
_FIXED_BY_TF = {"shuffle_reshuffle_repeat": 3, "shuffle_full_buffer_batch": 2,
                "shuffle_fixed_order": 18, "repeat_then_shuffle": 6}


@pytest.mark.subprocess
@pytest.mark.parametrize("name", _UNSHUFFLED)
def test_a_restored_iterator_gives_tensorflows_next_elements(both, name):
    want, got = both
    assert got[name] == want[name]
    assert want[name]["again"] and want[name]["fresh"]      # (what the comparison rests on)


@pytest.mark.subprocess
@pytest.mark.parametrize("name", _SHUFFLED)
def test_a_restored_shuffle_goes_on_as_the_saved_one_did(both, name):
    want, got = both
    # Restored in a new process (a job resumed), the iterator goes on as the saved one
    # did: epoch after epoch in eagertape; in TF to the end of the epoch it was saved
    # in. (TF's next epochs draw their seeds from a generator its background prefetch
    # may have advanced before the save: in TF 2.21 a restored reshuffling repeat
    # gives the saved run's later epochs in some runs and not in others.)
    assert got["in_a_new_process"][name] == got[name]["after"]
    fixed = _FIXED_BY_TF[name]
    assert want["in_a_new_process"][name][:fixed] == want[name]["after"][:fixed]
    # In the same process too, into the iterator that moved on or into a fresh one,
    # in eagertape. (TF's is not always: a seeded shuffle's seed generator is shared
    # by the datasets of the process, and a restore does not rewind it.)
    assert got[name]["again"] and got[name]["fresh"], got[name]
    # Each library's epochs are permutations of the data, element for element.
    for result in (want[name], got[name]):
        seq = [v for v in result["before"] + result["after"] if v != "end"]
        flat = sorted(np.ravel(seq).tolist()) if name != "shuffle_full_buffer_batch" else None
        if name == "shuffle_reshuffle_repeat":
            assert flat == sorted(list(range(10)) * 3)


@pytest.mark.subprocess
def test_second_iterators_managers_errors_and_a_resumed_loop_are_tensorflows(both):
    want, got = both
    for key in ("second_iterator", "manager", "generator", "generator_nothing_written",
                "stateful_map", "stateless_map", "other_pipeline"):
        assert got[key] == want[key], key
    assert want["manager"] == {"latest": "ckpt-2", "step": 6, "kept": ["ckpt-1", "ckpt-2"],
                               "goes_on": True}
    assert want["generator"] == "FailedPreconditionError"
    assert want["stateful_map"] == "FailedPreconditionError" and want["stateless_map"] == "ok"
    assert want["second_iterator"] == {"orders_differ": True, "fresh_goes_on": True}
    for result in (want["loop"], got["loop"]):
        np.testing.assert_allclose(result["resumed"], result["full"][3:], rtol=1e-6)


# -- without TensorFlow -------------------------------------------------------------

def _elements(it, n):
    return [np.asarray(next(it)).tolist() for _ in range(n)]


def test_round_trip_of_a_shuffle_buffer_of_nests_and_dtypes(tmp_path):
    import jax.numpy as jnp
    data = {"f": np.arange(20, dtype=np.float64).reshape(10, 2),
            "b": np.asarray(jnp.arange(10, dtype=jnp.bfloat16)),
            "t": (np.arange(10, dtype=np.int8), np.zeros((10, 0), np.float32))}

    def make():
        return tf.data.Dataset.from_tensor_slices(data).shuffle(6, seed=9).repeat(2)

    def flat(e):
        return [np.asarray(e["f"]).tolist(), float(np.asarray(e["b"], np.float32)),
                int(e["t"][0]), list(np.shape(e["t"][1])), str(np.asarray(e["b"]).dtype)]

    it = iter(make())
    [next(it) for _ in range(4)]
    path = tf.train.Checkpoint(it=it).write(tmp_path / "x")
    want = [flat(next(it)) for _ in range(16)]
    fresh = iter(make())
    tf.train.Checkpoint(it=fresh).read(path).assert_consumed()
    assert [flat(next(fresh)) for _ in range(16)] == want
    assert want[0][4] == "bfloat16"


def test_a_failed_save_writes_nothing_and_a_failed_restore_changes_nothing(tmp_path):
    def gen():
        yield 1
    good = iter(tf.data.Dataset.range(5))
    next(good)
    bad = iter(tf.data.Dataset.from_generator(gen, output_types=tf.int64))
    ckpt = tf.train.Checkpoint(good=good, bad=bad)
    with pytest.raises(tf.errors.FailedPreconditionError, match="from_generator"):
        ckpt.save(tmp_path / "c")
    assert not os.listdir(tmp_path) and int(ckpt.save_counter.numpy()) == 0
    v = tf.Variable(1.0)
    path = tf.train.Checkpoint(v=v, it=good).save(tmp_path / "ok")
    v.assign(5.0)
    other = iter(tf.data.Dataset.range(5).shuffle(3, seed=1))
    with pytest.raises(tf.errors.NotFoundError,
                       match="it: the checkpoint's iterator position does not fit"):
        tf.train.Checkpoint(v=v, it=other).restore(path)
    assert float(v.numpy()) == 5.0 and _elements(other, 5) == _elements(
        iter(tf.data.Dataset.range(5).shuffle(3, seed=1)), 5)


def test_shuffle_buffers_of_ragged_and_sparse_elements_round_trip(tmp_path):
    rt = tf.ragged.constant([[1, 2], [3], [], [4, 5, 6], [7], [8, 9]])
    st = tf.SparseTensor([[0, 1], [2, 0], [5, 3]], [1.0, 2.0, 3.0], [6, 4])

    def make():
        return tf.data.Dataset.from_tensor_slices({"r": rt, "s": st}).shuffle(
            4, seed=3).batch(2).repeat(2)

    def flat(e):
        return [e["r"].to_list(), e["s"].indices.numpy().tolist(),
                e["s"].values.numpy().tolist(), e["s"].dense_shape.numpy().tolist()]
    it = iter(make())
    next(it)
    path = tf.train.Checkpoint(it=it).save(tmp_path / "c")
    want = [flat(e) for e in it]
    fresh = iter(make())
    tf.train.Checkpoint(it=fresh).restore(path).assert_consumed()
    assert [flat(e) for e in fresh] == want and len(want) == 5


def test_an_iterator_attached_after_restore_waits_for_it(tmp_path):
    it = iter(tf.data.Dataset.range(10))
    _elements(it, 4)
    path = tf.train.Checkpoint(it=it).save(tmp_path / "c")
    later = tf.train.Checkpoint()
    status = later.restore(path)
    with pytest.raises(AssertionError):
        status.assert_consumed()
    later.it = iter(tf.data.Dataset.range(10))
    status.assert_consumed()
    assert _elements(later.it, 3) == [4, 5, 6]


def test_the_shuffle_orders_did_not_change():
    # The passes that replaced generators keep every order the seed gave before.
    ds = tf.data.Dataset.range(12).shuffle(5, seed=42).repeat(2)
    rng = np.random.SeedSequence(42)
    orders = []
    for _ in range(2):
        r = np.random.default_rng(rng.spawn(1)[0])
        draws = iter(r.random(4096).tolist())
        buffer, out, src = list(range(5)), [], iter(range(5, 12))
        for e in src:
            j = int(next(draws) * len(buffer))
            out.append(buffer[j])
            buffer[j] = e
        while buffer:
            j = int(next(draws) * len(buffer))
            buffer[j], buffer[-1] = buffer[-1], buffer[j]
            out.append(buffer.pop())
        orders += out
    assert [int(v) for v in ds] == orders
