"""Timing helpers shared by ``eagertape.benchmark`` and its Keras workloads
(``eagertape._benchmark_keras``): waiting for a value, calls per round,
interleaved rounds, and the text tables of the report."""
import random
import statistics
import time


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


def _table(head, rows, out):
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    fmt = lambda r: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)  # noqa: E731
                              for i, (c, w) in enumerate(zip(r, widths)))
    out(fmt(head))
    out(fmt(["-" * w for w in widths]))
    for r in rows:
        out(fmt(r))


def peer_bound(r, peers, compiled, labels):
    """Fused mode's target time on one workload's figures ``r``, and how it is
    made: max(0.5 x the fastest of ``peers`` that ran, 1.1 x ``compiled``)."""
    bounds = [(1.1 * r[compiled]["median_us"], f"1.1x {labels[compiled]}")]
    ran = [(r[s]["median_us"], s) for s in peers if s in r]
    if ran:
        t, s = min(ran)
        bounds.append((0.5 * t, f"0.5x {labels[s]}"))
    return max(bounds)
