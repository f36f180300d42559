"""Where the suite's time goes, per test module: wall time, JAX's traces and
compiles (counts and seconds, from ``jax.monitoring``) and the seconds TensorFlow
ran for the TF oracle (``tests/tf_oracle.py``: in-process programs and cached
callers such as the fuzzer's worker). Counts do not depend on how busy the
machine is, so two trees compare even on a shared machine.

As a pytest plugin (one JSON-lines file per xdist worker in ``$SUITE_PROFILE``)::

    SUITE_PROFILE=profile-head PYTHONPATH=tools python -m pytest -q -p suite_profile tests
    python tools/suite_profile.py profile-base profile-head     # a table per module

``EAGERTAPE_TF_ORACLE=off`` makes TF run as from empty caches (its seconds show);
JAX's compile cache stays warm unless ``EAGERTAPE_TEST_JAX_CACHE=off``, but the
compile counts are the same either way.
"""
import collections
import glob
import json
import os
import sys
import time

_current = collections.Counter()
_rows = []
_KEYS = [("items", "items"), ("wall", "wall s"),
         ("n:jaxpr_trace_duration", "traces"), ("s:jaxpr_trace_duration", "trace s"),
         ("s:jaxpr_to_mlir_module_duration", "lower s"),
         ("n:backend_compile_duration", "compiles"), ("s:backend_compile_duration", "compile s"),
         ("n:tf", "TF runs"), ("s:tf", "TF s")]


def _event(event, **_):
    _current["n:" + event.rsplit("/", 1)[-1]] += 1


def _duration(event, secs, **_):
    k = event.rsplit("/", 1)[-1]
    _current["n:" + k] += 1
    _current["s:" + k] += secs


def pytest_configure(config):
    import jax.monitoring
    jax.monitoring.register_event_listener(_event)
    jax.monitoring.register_event_duration_secs_listener(_duration)


def _timed(fn, is_tf=lambda *a: True):
    def wrapper(*args, **kwargs):
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            if is_tf(*args):
                _current["s:tf"] += time.perf_counter() - t
                _current["n:tf"] += 1
    return wrapper


def _patch_oracle():
    oracle = sys.modules.get("tf_oracle")
    if oracle is None or getattr(oracle, "_profiled", False):
        return
    oracle._profiled = True
    oracle.run = _timed(oracle.run, lambda lib, *a: getattr(lib, "__name__", "") == "tensorflow")
    cached = oracle.cached

    def profiled_cached(kind, parts, compute, *args, **kwargs):
        return cached(kind, parts, _timed(compute), *args, **kwargs)
    oracle.cached = profiled_cached


def pytest_runtest_protocol(item, nextitem):
    _patch_oracle()
    _current.clear()
    item._profile_start = time.perf_counter()


def pytest_runtest_makereport(item, call):
    if call.when == "teardown":
        row = dict(_current)
        row["id"] = item.nodeid
        row["wall"] = time.perf_counter() - getattr(item, "_profile_start", time.perf_counter())
        _rows.append(row)


def pytest_sessionfinish(session):
    folder = os.environ.get("SUITE_PROFILE")
    if folder and _rows:
        os.makedirs(folder, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(os.path.join(folder, f"rows-{worker}.jsonl"), "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in _rows)


def _by_module(folder):
    agg = collections.defaultdict(collections.Counter)
    for path in glob.glob(os.path.join(folder, "rows-*.jsonl")):
        for line in open(path):
            row = json.loads(line)
            module = row.pop("id").split("::")[0]
            agg[module].update(row)
            agg[module]["items"] += 1
    return agg


def main(folders):
    tables = [_by_module(f) for f in folders]
    modules = sorted(set().union(*tables), key=lambda m: -max(t[m]["wall"] for t in tables))
    head = "  ".join(h.rjust(9) for _, h in _KEYS)
    print("module".ljust(40), " | ".join([head] * len(tables)))
    totals = [collections.Counter() for _ in tables]
    for m in modules + ["TOTAL"]:
        cells = []
        for t, total in zip(tables, totals):
            row = total if m == "TOTAL" else t[m]
            if m != "TOTAL":
                total.update(row)
            cells.append("  ".join(f"{row[k]:9.0f}" for k, _ in _KEYS))
        print(m[-40:].ljust(40), " | ".join(cells))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
