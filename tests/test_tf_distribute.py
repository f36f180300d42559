"""tf.distribute (eagertape/tf/distribute.py) against real TensorFlow: a custom
training loop as TF's distributed-training tutorial writes it, under the default
strategy, MirroredStrategy (one device, and two CPU devices), and OneDeviceStrategy.
Each side runs tests/distribute_program.py in a process of its own (Keras has one
backend a process; two devices need the flag before JAX starts); TF's output is
cached (tests/tf_oracle.py)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import eagertape.tf as etf

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "distribute_program.py")
sys.path.insert(0, HERE)
import distribute_program  # noqa: E402

pytest.importorskip("keras")


def _run(which, run):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("KERAS_BACKEND", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.dirname(HERE),
                                                      env.get("PYTHONPATH")]))
    r = subprocess.run([sys.executable, PROGRAM, which, run], capture_output=True, text=True,
                       env=env, timeout=600)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("@@")]
    assert r.returncode == 0 and lines, f"{which} {run}:\n{r.stderr[-3000:]}"
    return json.loads(lines[-1][2:])


def _close(got, want, where=""):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), where
        for k in want:
            _close(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got} vs {want}"
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{where}[{i}]")
    elif isinstance(want, float):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6, err_msg=where)
    else:
        assert got == want, f"{where}: eagertape {got!r}, TF {want!r}"


@pytest.mark.subprocess
@pytest.mark.parametrize("run", sorted(distribute_program.RUNS))
def test_a_distributed_training_loop_gives_tensorflows_numbers(run):
    tf_oracle = pytest.importorskip("tf_oracle")
    tf_oracle.require()
    with open(PROGRAM) as f:
        source = f.read()
    want = tf_oracle.cached("distribute-program", [source, run], lambda: _run("tf", run))
    got = _run("eagertape", run)
    for kind in distribute_program.RUNS[run]:
        assert want[kind]["replicas"] == (2 if kind == "mirrored_two" else 1)
    _close(got, want)


def test_several_replicas_cannot_all_reduce_inside_the_step_and_say_what_to_do():
    # Replicas run one after another: a value of the later replicas is not at hand.
    s = etf.distribute.get_strategy()
    assert etf.distribute.get_replica_context().all_reduce("SUM", 1.0).numpy() == 1.0
    ctx = etf.distribute.ReplicaContext(s, 0)
    ctx.__class__ = type("Two", (etf.distribute.ReplicaContext,),
                         {"num_replicas_in_sync": property(lambda self: 2)})
    with pytest.raises(NotImplementedError, match="strategy.reduce"):
        ctx.all_reduce("SUM", 1.0)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="argument `reduce_op`"):
        etf.distribute.get_strategy().reduce("PRODUCT", etf.constant(1.0), axis=None)
    with pytest.raises(ValueError, match="argument `devices`"):
        etf.distribute.MirroredStrategy(["/abacus:0"])
    with pytest.raises(ValueError, match="argument `implementation`"):
        etf.distribute.experimental.CommunicationOptions(implementation=3)


def test_get_next_as_optional_in_a_tf_function_takes_each_call_the_next_element():
    # Taken while the function is traced: each call (a new trace) the next element;
    # a compiled loop's body (traced once for every step) raises, naming what to do.
    s = etf.distribute.get_strategy()
    it = iter(s.experimental_distribute_dataset(etf.data.Dataset.range(3).batch(2)))

    @etf.function
    def step(it):
        return it.get_next_as_optional().get_value()
    assert step(it).numpy().tolist() == [0, 1]
    assert step(it).numpy().tolist() == [2]

    @etf.function
    def compiled(it, n):
        return etf.while_loop(lambda i: i < n, lambda i: i + etf.cast(
            it.get_next_as_optional().has_value(), etf.int32), [0])
    it = iter(s.experimental_distribute_dataset(etf.data.Dataset.range(3).batch(2)))
    with pytest.raises(NotImplementedError, match="compiled loop"):
        compiled(it, etf.constant(2))
    it = iter(s.experimental_distribute_dataset(etf.data.Dataset.range(3).batch(2)))
    opt = it.get_next_as_optional()      # eagerly: TF's values, then an empty optional
    assert bool(opt.has_value()) and opt.get_value().numpy().tolist() == [0, 1]
    assert it.get_next_as_optional().get_value().numpy().tolist() == [2]
    assert not bool(it.get_next_as_optional().has_value())
    with pytest.raises(NotImplementedError, match="jax.distributed"):
        etf.distribute.experimental.ParameterServerStrategy(None)


def _iterator_argument_program(tf, kind):
    # A tf.function taking a distributed iterator (TF's guides' `train_step(iterator)`
    # pattern): TF traces it once, each call taking the next element (IteratorGetNext).
    strategy = tf.distribute.get_strategy() if kind == "default" \
        else tf.distribute.OneDeviceStrategy("/cpu:0")
    ds = tf.data.Dataset.from_tensor_slices(
        {"x": tf.reshape(tf.range(24.0), [12, 2]), "y": tf.range(12)}).batch(3)
    it = iter(strategy.experimental_distribute_dataset(ds))
    traces = []

    @tf.function
    def step(iterator):
        traces.append(1)
        batch = next(iterator)
        return strategy.run(lambda b: tf.reduce_sum(b["x"]) * tf.cast(
            tf.reduce_max(b["y"]), tf.float32), args=(batch,))

    out = [float(step(it)) for _ in range(3)]
    nxt = next(it)          # eagerly after the calls: the element after theirs
    return out, len(traces), nxt["y"].numpy().tolist()


@pytest.mark.parametrize("kind", ["default", "one_device"])
def test_a_tf_function_taking_a_distributed_iterator_is_traced_once(kind):
    tf_oracle = pytest.importorskip("tf_oracle")
    tf_oracle.require()
    got = tf_oracle.check(_iterator_argument_program, kind)
    assert got.value[1][1] == ("py", "int", 1)      # (TF's too: check compared them)


_REPLICA_TRACES = '''
import sys
if sys.argv[1] == "tf":
    import tensorflow as tf
else:
    import eagertape.tf as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
traces = []

@tf.function
def f(x):
    traces.append(1)
    ctx = tf.distribute.get_replica_context()
    return x + tf.cast(ctx.replica_id_in_sync_group, tf.float32)

s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with s.scope():
    print(s.run(f, args=(tf.constant(1.0),)))
    print(s.run(f, args=(tf.constant(2.0),)))
print("traces", len(traces))
f(tf.constant(1.0))
print("traces outside", len(traces))
'''


def _replica_traces(which):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("KERAS_BACKEND", None)
    r = subprocess.run([sys.executable, "-c", _REPLICA_TRACES, which], capture_output=True,
                       text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


@pytest.mark.subprocess
def test_a_tf_function_in_strategy_run_is_traced_per_replica():
    # TF keys a tf.function's traces by the replica context: each replica's trace
    # reads its own replica id (random_numbers_guide's Generator per replica).
    tf_oracle = pytest.importorskip("tf_oracle")
    tf_oracle.require()
    want = tf_oracle.cached("replica-traces", [_REPLICA_TRACES], lambda: _replica_traces("tf"))
    got = _replica_traces("eagertape")
    assert "traces 2" in want and "1: tf.Tensor(3.0" in want
    assert got == want
