"""A/B ``python -m eagertape bench`` between two checkouts, interleaved.

    git worktree add --detach ../eagertape-base REV      # once: the base, side by side
    python tools/ab_bench.py --a ../eagertape-base        # B: this checkout
    python tools/ab_bench.py --a ../eagertape-base --rounds 2 --workloads chain10,f4
    python tools/ab_bench.py --a ../eagertape-base --b . --rounds 8 --bench-rounds 5 --json ab.json

For each of ``--rounds`` rounds it runs the benchmark once in tree A and once in
tree B, each as a fresh process (A first in even rounds, B first in odd ones),
so both see the same machine load and neither always runs first. Each process
is ``python -m eagertape bench --systems eagertape,fused --no-extras --json F``
with the tree as its working directory and on ``PYTHONPATH`` (ahead of the
editable install's finder; checked before timing: each tree must import its
own ``eagertape``). Only eagertape's timings are asked for (eager mode and fused
mode); the bench always adds jax.jit, its reference for checking values, and
that row is printed as a control: its B/A should stay near 1.00 when A and B
saw the same machine.

The report gives, per workload and mode: the median over rounds of A's
per-process medians (µs per call), the same for B, B/A (ratio of those
medians) and the min-max of the per-round B/A ratios (A and B of the same
round paired); then "B/A norm", the same figures for the time divided by
jax.jit's time in the same inner round of the same process, which takes out
the machine's own drift (on a shared VM whole processes, every system alike,
run tens of percent slower or faster); last the geometric means over
workloads. B/A < 1: B is faster. When the control's B/A is far from 1.00, trust
"B/A norm" (or run more rounds) rather than the raw B/A.
Exit status 1 when a benchmark process fails.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORKLOADS = "chain10,f4,mlp_step,d2_x3,jacobian64,long300"
MODES = (("eagertape", "eager"), ("fused", "fused"), ("jax.jit", "jax.jit (control)"))


def _env(tree):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def describe(tree):
    """'<commit>' or '<commit> + uncommitted changes' (of the package only)."""
    def git(*args):
        r = subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else ""
    head = git("rev-parse", "--short", "HEAD") or "?"
    dirty = git("status", "--porcelain", "--", "eagertape")
    return head + (" + uncommitted changes to eagertape/" if dirty else "")


def check_tree(python, tree):
    """The eagertape a process started as the bench is started imports, or exit."""
    r = subprocess.run([python, "-c", "import eagertape; print(eagertape.__file__)"],
                       cwd=tree, env=_env(tree), capture_output=True, text=True)
    got = pathlib.Path(r.stdout.strip() or "?").resolve()
    want = (tree / "eagertape" / "__init__.py").resolve()
    if r.returncode or got != want:
        sys.exit(f"ab_bench: in {tree} `import eagertape` gives {got}, not {want}\n{r.stderr}")


def run_once(python, tree, workloads, bench_rounds, quick, tmp):
    out = pathlib.Path(tmp) / f"bench-{os.getpid()}-{time.monotonic_ns()}.json"
    cmd = [python, "-m", "eagertape", "bench", "--workloads", workloads,
           "--systems", "eagertape,fused", "--no-extras", "--no-progress", "--json", str(out)]
    cmd += ["--quick"] if quick else ["--rounds", str(bench_rounds)]
    r = subprocess.run(cmd, cwd=tree, env=_env(tree), capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"ab_bench: failed in {tree} (exit {r.returncode}): {' '.join(cmd)}\n"
                 + (r.stdout + r.stderr)[-3000:])
    res = json.loads(out.read_text())
    out.unlink()
    return res


def _norm(res, mode):
    """Median over the bench's rounds of mode's time / jax.jit's time in the same round."""
    m, j = res[mode]["rounds_us"], res["jax.jit"]["rounds_us"]
    return statistics.median(x / y for x, y in zip(m, j))


def _ratios(a, b):
    per_round = [y / x for x, y in zip(a, b)]
    return statistics.median(b) / statistics.median(a), min(per_round), max(per_round)


def summarize(runs_a, runs_b, workloads, out=print):
    """Print the table; return {workload: {mode: figures}}."""
    table = {}
    logs = {(m, k): [] for m, _ in MODES for k in ("raw", "norm")}
    head = (f"{'workload':<11}{'mode':<18}{'A µs':>8}{'B µs':>8}{'B/A':>8}{'min-max':>11}"
            f"{'B/A norm':>10}{'min-max':>11}")
    out(head)
    out("-" * len(head))
    for w in workloads:
        table[w] = {}
        for mode, label in MODES:
            if not all(mode in r["workloads"].get(w, {}) for r in runs_a + runs_b):
                continue
            res_a = [r["workloads"][w] for r in runs_a]
            res_b = [r["workloads"][w] for r in runs_b]
            a = [r[mode]["median_us"] for r in res_a]
            b = [r[mode]["median_us"] for r in res_b]
            ratio, lo, hi = _ratios(a, b)
            logs[(mode, "raw")].append(math.log(ratio))
            fig = {"a_us": a, "b_us": b, "a_median_us": statistics.median(a),
                   "b_median_us": statistics.median(b), "ratio": ratio, "ratio_min": lo,
                   "ratio_max": hi}
            norm = ""
            if mode != "jax.jit":
                na, nb = [_norm(r, mode) for r in res_a], [_norm(r, mode) for r in res_b]
                nratio, nlo, nhi = _ratios(na, nb)
                logs[(mode, "norm")].append(math.log(nratio))
                fig.update(a_per_jit=na, b_per_jit=nb, norm_ratio=nratio, norm_ratio_min=nlo,
                           norm_ratio_max=nhi)
                norm = f"{nratio:>9.2f}x{f'{nlo:.2f}-{nhi:.2f}':>11}"
            table[w][mode] = fig
            ma, mb = fig["a_median_us"], fig["b_median_us"]
            fmt = (lambda v: f"{v:.0f}") if max(ma, mb) >= 100 else (lambda v: f"{v:.1f}")
            out(f"{w:<11}{label:<18}{fmt(ma):>8}{fmt(mb):>8}{ratio:>7.2f}x"
                f"{f'{lo:.2f}-{hi:.2f}':>11}{norm}")
    gm = lambda xs: f"{math.exp(statistics.fmean(xs)):.2f}x"
    out("geometric mean of B/A: " + ", ".join(
        f"{label} {gm(logs[(m, 'raw')])}" + (f" (norm {gm(logs[(m, 'norm')])})"
                                             if logs[(m, "norm")] else "")
        for m, label in MODES if logs[(m, "raw")]))
    compiled = []
    for side, runs in (("A", runs_a), ("B", runs_b)):
        for i, r in enumerate(runs):
            for w, res in r["workloads"].items():
                c = res.get("eagertape", {}).get("compiled_while_timed", {})
                f = res.get("fused", {}).get("compiled_while_timed", {})
                n = c.get("replays", 0) + c.get("executables", 0) + f.get("programs", 0)
                if n:
                    compiled.append(f"{side} round {i + 1} {w}: {c} fused {f}")
    if compiled:
        out("compiled while timed (should be nothing): " + "; ".join(compiled))
    return table


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--a", required=True,
                   help="checkout A, the base (e.g. a `git worktree add --detach` of the base commit)")
    p.add_argument("--b", default=str(ROOT), help="checkout B (default: this checkout)")
    p.add_argument("--rounds", type=int, default=5,
                   help="A/B rounds, one fresh process per tree each (default: %(default)s)")
    p.add_argument("--workloads", default=WORKLOADS,
                   help="comma-separated bench workloads (default: %(default)s)")
    p.add_argument("--bench-rounds", type=int, default=5,
                   help="the bench's own interleaved rounds in each process (default: %(default)s)")
    p.add_argument("--quick", action="store_true",
                   help="pass --quick to the bench (3 rounds of short batches) instead of --rounds")
    p.add_argument("--python", default=sys.executable, help="interpreter (default: this one)")
    p.add_argument("--json", metavar="FILE", help="write every figure (and the raw runs) to FILE")
    a = p.parse_args(argv)
    if a.rounds < 1 or a.bench_rounds < 1:
        p.error("--rounds and --bench-rounds must be at least 1")
    tree_a, tree_b = pathlib.Path(a.a).resolve(), pathlib.Path(a.b).resolve()
    for t in (tree_a, tree_b):
        check_tree(a.python, t)
    workloads = [w.strip() for w in a.workloads.split(",") if w.strip()]
    print(f"A = {tree_a} ({describe(tree_a)})\nB = {tree_b} ({describe(tree_b)})")
    print(f"{a.rounds} rounds, A and B alternating first; each a fresh `python -m eagertape bench` "
          + ("--quick" if a.quick else f"--rounds {a.bench_rounds}"), flush=True)
    runs = {"A": [], "B": []}
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ab_bench-") as tmp:
        for r in range(a.rounds):
            order = ("A", "B") if r % 2 == 0 else ("B", "A")
            for side in order:
                tree = tree_a if side == "A" else tree_b
                runs[side].append(run_once(a.python, tree, ",".join(workloads),
                                           a.bench_rounds, a.quick, tmp))
            print(f"  round {r + 1}/{a.rounds} done ({' then '.join(order)}), "
                  f"{time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    m = runs["A"][0]["meta"]
    print(f"JAX backend {m.get('backend')!r}; {m.get('machine')}\n")
    table = summarize(runs["A"], runs["B"], workloads)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"a": str(tree_a), "b": str(tree_b), "a_rev": describe(tree_a),
                       "b_rev": describe(tree_b), "rounds": a.rounds,
                       "bench_rounds": None if a.quick else a.bench_rounds, "table": table,
                       "runs": runs}, f, indent=1, default=float)
        print(f"wrote {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
