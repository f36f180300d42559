"""The project's own speed and memory targets (``targets.toml``), checked against a
benchmark run: ``python -m benchmarks --targets``.

They are what eagertape holds itself to on its reference machines; a plain run
prints only its measurements. ``load`` reads and checks the file, ``check`` gives
one row per target the run has figures for, ``report`` prints them.

>>> from benchmarks import targets
>>> rows = targets.load()
>>> sorted({r["system"] for r in rows})
['eagertape', 'fused']
>>> res = {"workloads": {"chain10": {"eagertape": {"median_us": 90.0},
...                                  "tf": {"median_us": 200.0}}}}
>>> [(t["workload"], t["versus"], t["met"]) for t in targets.check(res, rows)]
[('chain10', 'tf', True)]
"""
import pathlib
import tomllib

from . import core, keras_workloads
from .harness import _table

PATH = pathlib.Path(__file__).with_name("targets.toml")
# A target's figure from the run's extras, by `measure`: (system, res) -> a time (or
# a size) where smaller is better, or None where the run has no such figure.
_MEASURES = {
    "first_step": lambda s, res: res.get("first_steps", {}).get(s, {}).get("step_ms", [None])[0],
    "peak_device_memory": lambda s, res: res.get("device_memory", {}).get("systems", {}).get(
        s, {}).get("peak_mb"),
    # Time per step: the inverse of steps per second.
    "training_loop": lambda s, res: (1.0 / res["training"][s]["steps_per_s"]
                                     if s in res.get("training", {}) else None),
}
_MEASURE_NAMES = {"first_step": "first step", "peak_device_memory": "peak device memory",
                  "training_loop": "training loop"}
_REQUIRED = {"system": str, "versus": str, "max_ratio": (int, float), "reason": str,
             "source": str}
_PEER = {"peers": list, "peer_factor": (int, float), "compiled": list,
         "compiled_factor": (int, float)}


def load(path=PATH):
    """The targets in ``path`` (a TOML file of ``[[target]]`` tables), each a dict,
    checked: a malformed row is a ValueError naming the file, the row and the key."""
    path = pathlib.Path(path)
    with open(path, "rb") as f:
        rows = tomllib.load(f).get("target")
    if not isinstance(rows, list) or not rows:
        raise ValueError(f"{path}: no [[target]] tables; see the comment at the top of "
                         f"{PATH.name} for their keys")
    for i, row in enumerate(rows, 1):
        def bad(msg):
            return ValueError(f"{path}: target {i}: {msg}")
        need = dict(_REQUIRED, **(_PEER if row.get("versus") == "peer" else {}))
        for key, kind in need.items():
            if not isinstance(row.get(key), kind) or row[key] in ("", []):
                raise bad(f"`{key}` is missing or not a {getattr(kind, '__name__', 'number')}")
        if row["max_ratio"] <= 0:
            raise bad(f"`max_ratio` is {row['max_ratio']}; give a positive ratio")
        if ("workloads" in row) == ("measure" in row):
            raise bad("give either `workloads` (a list of workload names) or `measure` "
                      f"(one of {', '.join(_MEASURES)}), not both or neither")
        if "measure" in row and row["measure"] not in _MEASURES:
            raise bad(f"unknown `measure` {row['measure']!r}; choose from {', '.join(_MEASURES)}")
        unknown = set(row.get("workloads", ())) - set(core.WORKLOADS + keras_workloads.WORKLOADS)
        if unknown:
            raise bad(f"unknown workloads {sorted(unknown)}; choose from "
                      f"{', '.join(core.WORKLOADS + keras_workloads.WORKLOADS)}")
    return rows


def _labels(workload):
    return keras_workloads.LABELS if workload.startswith("keras_") else core.LABELS


def _bound(r, row, labels):
    """Fused mode's "peer" time on one workload's figures ``r``, and how it is made:
    the larger of ``peer_factor`` x the fastest of ``peers`` that ran and
    ``compiled_factor`` x the first of ``compiled`` that ran."""
    bounds = []
    compiled = next((s for s in row["compiled"] if s in r), None)
    if compiled is not None:
        bounds.append((row["compiled_factor"] * r[compiled]["median_us"],
                       f"{row['compiled_factor']:g}x {labels.get(compiled, compiled)}"))
    ran = [(r[s]["median_us"], s) for s in row["peers"] if s in r]
    if ran:
        t, s = min(ran)
        bounds.append((row["peer_factor"] * t, f"{row['peer_factor']:g}x {labels.get(s, s)}"))
    return max(bounds) if bounds else (None, None)


def check(res, rows=None):
    """One dict per target that ``res`` (a ``core.run`` result) has both figures
    for: system, workload, versus, max_ratio, ratio (the system's time over the
    other's), met, reason. Targets of workloads or systems that did not run are
    left out."""
    rows = load() if rows is None else rows
    figures = dict(res.get("workloads", {}), **res.get("keras", {}))
    out = []
    for row in rows:
        s, versus, m = row["system"], row["versus"], row["max_ratio"]
        if "measure" in row:
            mine, other = (_MEASURES[row["measure"]](x, res) for x in (s, versus))
            if mine is None or other is None:
                continue
            out.append({"system": s, "workload": _MEASURE_NAMES[row["measure"]],
                        "versus": versus, "max_ratio": m, "ratio": mine / other,
                        "met": mine / other <= m, "reason": row["reason"]})
            continue
        for w in row["workloads"]:
            r = figures.get(w)
            if r is None or s not in r:
                continue
            if versus == "peer":
                t, label = _bound(r, row, _labels(w))
            else:
                t, label = (r[versus]["median_us"], versus) if versus in r else (None, None)
            if t is None:
                continue
            ratio = r[s]["median_us"] / t
            out.append({"system": s, "workload": w, "versus": label, "max_ratio": m,
                        "ratio": ratio, "met": ratio <= m, "reason": row["reason"]})
    return out


def report(checked, out=print):
    """Print ``check``'s rows, saying what they are: the project's own targets."""
    out(f"\ntargets: the eagertape project's own ({PATH.parent.name}/{PATH.name}), set for its "
        "reference machines (docs/performance.md)")
    out("on another machine, or with other versions of JAX, TF or PyTorch, a missed target "
        "says nothing about that setup; a target: time <= max ratio x the other's, same run")
    if not checked:
        out("(no target has figures in this run)")
        return

    def label(s, w):
        return _labels(w).get(s, s)
    rows = [[label(t["system"], t["workload"]), t["workload"], label(t["versus"], t["workload"]),
             f"{t['max_ratio']:.3g}x", f"{t['ratio']:.2f}x", "met" if t["met"] else "missed"]
            for t in checked]
    _table(["system", "workload", "versus", "target", "measured", ""], rows, out)
    missed = sum(not t["met"] for t in checked)
    out(f"{len(checked) - missed} of {len(checked)} met; each target's reason is in "
        f"{PATH.parent.name}/{PATH.name} (and in --json's rows)")
