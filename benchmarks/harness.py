"""Timing helpers shared by the benchmark's workloads (``benchmarks.core``) and its
Keras workloads (``benchmarks.keras_workloads``): waiting for a value, calls per
round, interleaved rounds, the cells and text tables of the report, and the
environment of a worker process."""
import os
import random
import statistics
import time

# The checkout holding this folder: a worker process imports ``benchmarks`` (and,
# in a checkout not installed, ``eagertape``) from it.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def child_env(**extra):
    """``os.environ`` with ``extra`` set and the checkout first on PYTHONPATH, for a
    worker started as ``python -c "from benchmarks... import ..."``."""
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _wait(a):
    """Wait for one value (a JAX array, an eagertape Tensor, or anything else)."""
    if hasattr(a, "block_until_ready"):
        a.block_until_ready()
    elif hasattr(a, "jax"):
        a.jax().block_until_ready()
    return a


def _calibrate(fn, target_s, most=1 << 16):
    """Calls per round so that a round lasts about ``target_s`` (median of 3 probes)."""
    probes = []
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        probes.append(time.perf_counter() - t0)
    per_call = statistics.median(probes)
    return max(1, min(most, int(round(target_s / max(per_call, 1e-9)))))


def _interleaved(systems, rounds, time_one, progress, name):
    """``time_one(system)`` (µs per call) of every system in every round."""
    times = {s: [] for s in systems}
    for r in range(rounds):
        progress(f"{name}: round {r + 1}/{rounds}")
        # A new order each round, so that no system always runs right after the
        # same other one (a rotation would keep every neighbour: what runs before
        # leaves caches and threads in its own state).
        order = list(systems)
        random.Random(r).shuffle(order)
        for s in order:
            # TF's and PyTorch's worker threads spin for a while after their last
            # kernel; on a 2-core machine that would slow whoever runs next.
            time.sleep(0.01)
            times[s].append(time_one(s))
    return times


def median_cell(r):
    """A system's figures ``r`` as a cell: the median µs and ± half the range of the
    rounds, as a percentage of the median (how far apart the rounds were)."""
    v, ts = r["median_us"], r["rounds_us"]
    spread = (max(ts) - min(ts)) / v * 100 if v else 0.0
    return (f"{v:.0f}" if v >= 100 else f"{v:.1f}") + f" ±{spread / 2:.0f}%"


def _table(head, rows, out):
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    fmt = lambda r: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)  # noqa: E731
                              for i, (c, w) in enumerate(zip(r, widths)))
    out(fmt(head))
    out(fmt(["-" * w for w in widths]))
    for r in rows:
        out(fmt(r))

