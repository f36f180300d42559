"""Several JAX processes on one machine, joined by jax.distributed through
``python -m eagertape.launch``: the multi-process data-parallel example gives the
single-process run's losses and weights, and a failing process ends the launch
at once, named."""
import doctest
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from eagertape import launch

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "examples/multiprocess_data_parallel.py"
STEPS = 6          # few: 4 processes on a 2-core machine are slow to start


def run(args, timeout=300):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    env.pop("XLA_FLAGS", None)           # one CPU device per process unless asked
    # CPU devices on any machine: processes beside each other on one GPU would
    # each take it whole.
    env["JAX_PLATFORMS"] = "cpu"
    start = time.monotonic()
    p = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=timeout)
    return p, time.monotonic() - start


def losses(stdout, prefix=""):
    return [float(line.split(" loss ")[1]) for line in stdout.splitlines()
            if line.startswith(prefix + "step ")]


@pytest.mark.both_modes      # fused mode records the loop another way
def test_multiprocess_example_gives_the_single_process_losses_and_weights(tmp_path, _et_mode):
    p, _ = run([EXAMPLE, "--steps", str(STEPS), "--save", str(tmp_path / "plain.npz")])
    assert p.returncode == 0, p.stdout + p.stderr
    assert "processes: 1, devices: 1 (cpu)" in p.stdout
    ref = np.load(tmp_path / "plain.npz")
    assert len(ref["losses"]) == STEPS and np.all(np.isfinite(ref["losses"]))
    assert ref["losses"].tolist() == losses(p.stdout)

    # (processes, CPU devices per process); 2 x 2 splits each process's rows again.
    # Fused mode records the same loop another way, which the processes' count does
    # not change: two processes are enough (four on two cores cost 20 s of CI).
    for n, k in [(1, 1), (2, 1), (4, 1), (2, 2)] if _et_mode == "eager" else [(2, 1)]:
        save = tmp_path / f"{n}x{k}.npz"
        p, _ = run(["-m", "eagertape.launch", "-n", str(n), "--cpu-devices", str(k),
                    "--timeout", "240", EXAMPLE, "--steps", str(STEPS), "--save", str(save)])
        assert p.returncode == 0, p.stdout + p.stderr
        assert (f"[p0] processes: {n}, devices: {n * k} (cpu), global batch 64 = "
                f"{n} x {64 // n} rows") in p.stdout
        assert "weights and their gradients replicated: True" in p.stdout
        assert "[p1] step" not in p.stdout          # only process 0 reports
        got = np.load(save)
        assert got["losses"].tolist() == losses(p.stdout, "[p0] ")
        if n * k == 1:                              # the same program on one device: bit for bit
            for key in ("losses", "w0", "w1"):
                np.testing.assert_array_equal(got[key], ref[key])
        else:                                       # the same sums in another order
            for key in ("losses", "w0", "w1"):
                np.testing.assert_allclose(got[key], ref[key], rtol=1e-5, atol=1e-6,
                                           err_msg=f"{n} processes x {k} devices: {key}")
    # The weights moved: the comparisons are not of untrained copies.
    for key in ("w0", "w1"):
        assert np.max(np.abs(ref[key] - ref["initial_" + key])) > 1e-3


def test_example_bad_batch_is_named():
    p, _ = run([EXAMPLE, "--batch", "0"])
    assert p.returncode == 2
    assert "--batch must be a positive multiple of the 1 devices, got 0" in p.stderr


FAILING = """
import os
import jax
import eagertape   # imported first, as a user would: it must not start JAX's backend
from jax.experimental import multihost_utils

jax.distributed.initialize(num_processes=int(os.environ["JAX_NUM_PROCESSES"]),
                           process_id=int(os.environ["JAX_PROCESS_ID"]))
if jax.process_index() == 1:
    raise RuntimeError("process 1 breaks")
multihost_utils.sync_global_devices("the others wait here for process 1")
print("not reached")
"""


def test_a_failing_process_stops_the_launch_at_once_and_is_named(tmp_path):
    script = tmp_path / "failing.py"
    script.write_text(FAILING)
    p, seconds = run(["-m", "eagertape.launch", "-n", "2", "--timeout", "120", str(script)])
    assert p.returncode == 1, p.stdout + p.stderr
    assert "eagertape.launch: process 1 of 2 failed with exit code 1" in p.stderr
    assert "[p1] RuntimeError: process 1 breaks" in p.stderr
    assert "[p1]   File " in p.stderr and "failing.py" in p.stderr    # the traceback
    assert "runpy" not in p.stderr                                    # the program's frames only
    assert "not reached" not in p.stdout
    # Left to itself, process 0 waits 30 s in the collective and process 1 in JAX's
    # exit-time shutdown barrier; the launcher ends both as soon as process 1 fails.
    assert seconds < 25, seconds


SHARDED_REPR = """
import jax, numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
import eagertape as et
import os
e = os.environ
jax.distributed.initialize(e["JAX_COORDINATOR_ADDRESS"], int(e["JAX_NUM_PROCESSES"]),
                           int(e["JAX_PROCESS_ID"]))
mesh = Mesh(np.array(jax.devices()), ("batch",))
rows = np.full((2, 3), jax.process_index(), np.float32)
t = et.constant(jax.make_array_from_process_local_data(NamedSharding(mesh, P("batch")), rows))
v = et.Variable(t)
print(repr(t)); print(str(t)); print(repr(v))
"""


def test_a_tensor_spread_over_processes_prints_without_fetching(tmp_path):
    # Another process's rows cannot be fetched: printing says where they are.
    script = tmp_path / "sharded_repr.py"
    script.write_text(SHARDED_REPR)
    p, _ = run(["-m", "eagertape.launch", "-n", "2", "--timeout", "120", str(script)])
    assert p.returncode == 0, p.stdout + p.stderr
    lines = [line for line in p.stdout.splitlines() if line.startswith("[p0]")]
    assert lines[0].startswith("[p0] <tf.Tensor: shape=(4, 3), dtype=float32, "
                               "numpy=<sharded over 2 processes: NamedSharding(")
    assert lines[1].startswith("[p0] tf.Tensor(<sharded over 2 processes: ")
    assert lines[2].startswith("[p0] <tf.Variable 'Variable:0' shape=(4, 3) dtype=float32, "
                               "numpy=<sharded over 2 processes: ")


def test_timeout_stops_every_process():
    p, seconds = run(["-m", "eagertape.launch", "-n", "3", "--timeout", "1", "--",
                      "-c", "import time; print('started', flush=True); time.sleep(60)"])
    assert p.returncode == launch.TIMEOUT_EXIT_CODE == 124
    assert "eagertape.launch: timed out after 1 s; stopping process(es) 0, 1, 2" in p.stderr
    assert seconds < 15, seconds


def test_launch_environment_and_output_prefixes(monkeypatch):
    # The user's other XLA flags are kept; a device count of theirs is replaced.
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_use_fusion_emitters=false "
                       "--xla_force_host_platform_device_count=7")
    lines = []
    code = ("import os, sys; e = os.environ; print(e['JAX_PROCESS_ID'], e['JAX_NUM_PROCESSES'], "
            "e['JAX_COORDINATOR_ADDRESS'], e['JAX_PLATFORMS'], e['XLA_FLAGS'], sys.argv[1:])")
    port = launch.free_port()
    assert launch.launch(["-c", code, "a", "b"], 3, port=port, cpu_devices=2,
                         out=lines.append) == 0
    flags = "--xla_cpu_use_fusion_emitters=false --xla_force_host_platform_device_count=2"
    assert sorted(lines) == [f"[p{i}] {i} 3 localhost:{port} cpu {flags} ['a', 'b']"
                             for i in range(3)]
    errors = []
    assert launch.launch(["-m", "json.tool", "--no-such-option"], 1, out=lines.append,
                         err=errors.append) == 2
    assert errors[-1] == "eagertape.launch: process 0 of 1 failed with exit code 2"


def test_launch_docstring_examples_run():
    assert doctest.testmod(launch).attempted >= 3
    assert doctest.testmod(launch).failed == 0


@pytest.mark.parametrize("argv, message", [
    (["-n", "0", EXAMPLE], "-n/--num-processes must be at least 1, got 0"),
    (["-n", "2"], "give the script to run"),
    (["-n", "2", "no_such_script.py"], "no such script: 'no_such_script.py'"),
    (["--cpu-devices", "0", EXAMPLE], "--cpu-devices must be at least 1, got 0"),
    (["--timeout", "-1", EXAMPLE], "--timeout must be a positive number of seconds, got -1"),
])
def test_command_line_bad_input(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        launch.main(argv)
    assert e.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(argv="train.py", num_processes=2), TypeError, "argv must be a non-empty list"),
    (dict(argv=[], num_processes=2), TypeError, "argv must be a non-empty list"),
    (dict(argv=["train.py"], num_processes=0), ValueError, "num_processes must be an int >= 1"),
    (dict(argv=["train.py"], num_processes=2.0), ValueError, "num_processes must be an int"),
    (dict(argv=["train.py"], num_processes=2, timeout=0), ValueError, "timeout must be a positive"),
    (dict(argv=["train.py"], num_processes=2, cpu_devices=0), ValueError, "cpu_devices must be"),
])
def test_launch_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        launch.launch(**kwargs)
