"""The benchmark's command line: ``python -m benchmarks`` from a checkout (or
``python -m eagertape bench``, which runs the checkout's ``benchmarks``).

It prints the measurements: medians, the spread of the rounds, ratios. The
project's own targets (``targets.toml``) are checked only with ``--targets``.
"""
import argparse
import json
import sys

from . import core, keras_workloads, targets


def main(argv=None, prog="python -m benchmarks"):
    """Run the benchmark as the command line ``argv`` says (``--help`` lists the
    options); returns the exit status."""
    p = argparse.ArgumentParser(
        prog=prog, description="Time eagertape against jax.jit, TF eager, PyTorch eager and "
                               "HIPS autograd on the same gradient workloads, and print the "
                               "medians, spreads and ratios.")
    every = core.WORKLOADS + keras_workloads.WORKLOADS
    p.add_argument("--workloads", default=None,
                   help=f"comma-separated subset of {','.join(every)} (default: all; the Keras "
                        "ones where Keras is installed, the device ones, "
                        f"{','.join(core.DEVICE_WORKLOADS)}, where JAX runs on an accelerator)")
    p.add_argument("--systems", default=None,
                   help=f"comma-separated subset of {','.join(core.SYSTEMS)} (default: all "
                        "importable)")
    p.add_argument("--rounds", type=int, default=15, help="interleaved timing rounds (median)")
    p.add_argument("--quick", action="store_true",
                   help="3 rounds, short batches, 20 training steps, no extras: a smoke run")
    p.add_argument("--no-extras", action="store_true",
                   help="only the timed workloads (no training loop, first steps, changing "
                        "structure or memory figures)")
    p.add_argument("--targets", action="store_true",
                   help="also check the run against the eagertape project's own targets "
                        "(benchmarks/targets.toml), set for its reference machines")
    p.add_argument("--json", metavar="FILE", help="write every figure to FILE as JSON")
    p.add_argument("--plot", metavar="FILE.png", help="bar chart of the ratios (matplotlib)")
    p.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    a = p.parse_args(argv)
    if a.rounds < 1:
        p.error(f"argument --rounds: {a.rounds} rounds; give at least 1")
    workloads = [w.strip() for w in a.workloads.split(",") if w.strip()] if a.workloads else None
    systems = [s.strip() for s in a.systems.split(",")] if a.systems else None
    try:
        # Read before the run: a malformed targets file should not cost a run.
        rows = targets.load() if a.targets else None
        res = core.run(workloads=workloads, systems=systems,
                       rounds=3 if a.quick else a.rounds, batch_s=0.005 if a.quick else 0.05,
                       extras=not (a.quick or a.no_extras), train_steps=20 if a.quick else 200,
                       progress=core._Progress(sys.stderr, enabled=not a.no_progress))
    except ValueError as e:
        p.error(str(e))
    core.report(res)
    if a.targets:
        res["targets"] = targets.check(res, rows)
        targets.report(res["targets"])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1, default=float)
        print(f"\nwrote {a.json}")
    if a.plot:
        core.plot(res, a.plot)
        print(f"wrote {a.plot}")
    return 0
