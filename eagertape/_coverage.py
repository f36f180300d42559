"""``python -m eagertape coverage``: which of TensorFlow's names ``eagertape.tf``
resolves, per namespace.

Each TF name is one of: resolved (``getattr`` returns it); left out (its
AttributeError says ``is left out of eagertape's TensorFlow facade: <reason>``:
strings, ragged and sparse tensors, graph-only API, ...); or missing (not done
yet). The numeric coverage is resolved / (all - left out). TF's names come from
an installed TensorFlow, else from the list stored for TF 2.21.

>>> from eagertape import _coverage
>>> names, source = _coverage.tf_names("stored")     # TF 2.21's names, stored
>>> rows = _coverage.coverage(["nest"], names=names)
>>> rows[0]["namespace"], rows[0]["missing"]
('tf.nest', [])
"""
import argparse
import json
import re
import sys
import types

NAMESPACES = ("", "math", "nn", "linalg", "random", "signal", "image", "dtypes", "debugging",
              "experimental.numpy", "data", "train", "nest", "errors", "config")
_LEFT_OUT = re.compile(r"is left out of eagertape's TensorFlow facade: (.*)", re.S)


def tf_names(source="auto"):
    """``{namespace: [name, ...]}`` of TensorFlow's public non-module names, and
    where they came from (``source``: "auto", "installed" or "stored")."""
    if source in ("auto", "installed"):
        try:
            import tensorflow as tf
        except ImportError:
            if source == "installed":
                raise
        else:
            names = {}
            for ns in NAMESPACES:
                mod = _resolve(tf, ns)
                names[ns] = sorted(n for n in dir(mod) if not n.startswith("_")
                                   and not isinstance(getattr(mod, n), types.ModuleType))
            return names, f"installed TensorFlow {tf.__version__}"
    from .tf import _tf_names
    return dict(_tf_names.NAMES), f"the stored list of TensorFlow {_tf_names.VERSION}"


def _resolve(mod, path):
    for part in path.split(".") if path else ():
        mod = getattr(mod, part)
    return mod


def coverage(namespaces=None, names=None):
    """One row per namespace: resolved, left out (name → reason) and missing names."""
    import eagertape.tf as etf
    if names is None:
        names = tf_names()[0]
    rows = []
    for ns in namespaces or NAMESPACES:
        row = {"namespace": "tf" + ("." + ns if ns else ""), "total": len(names[ns]),
               "resolved": [], "left_out": {}, "missing": []}
        try:
            mod = _resolve(etf, ns)
        except AttributeError as e:
            m = _LEFT_OUT.search(str(e))
            if m:
                row["left_out"] = {n: m.group(1) for n in names[ns]}
            else:
                row["missing"] = list(names[ns])
            rows.append(row)
            continue
        for n in names[ns]:
            try:
                getattr(mod, n)
            except AttributeError as e:
                m = _LEFT_OUT.search(str(e))
                if m:
                    row["left_out"][n] = m.group(1)
                else:
                    row["missing"].append(n)
            else:
                row["resolved"].append(n)
        numeric = row["total"] - len(row["left_out"])
        row["numeric_coverage"] = len(row["resolved"]) / numeric if numeric else 1.0
        rows.append(row)
    return rows


def report(rows, out=print, source="", details=False):
    out(f"eagertape.tf against {source}" if source else "eagertape.tf")
    out(f"{'namespace':<22}{'TF names':>9}{'resolved':>10}{'left out':>10}{'missing':>9}"
        f"{'numeric coverage':>18}")
    for r in rows:
        out(f"{r['namespace']:<22}{r['total']:>9}{len(r['resolved']):>10}"
            f"{len(r['left_out']):>10}{len(r['missing']):>9}"
            f"{100 * r.get('numeric_coverage', 0):>17.0f}%")
    total = {k: sum(len(r[k]) if k != "total" else r[k] for r in rows)
             for k in ("total", "resolved", "left_out", "missing")}
    numeric = total["total"] - total["left_out"]
    out(f"{'all':<22}{total['total']:>9}{total['resolved']:>10}{total['left_out']:>10}"
        f"{total['missing']:>9}{100 * total['resolved'] / max(numeric, 1):>17.0f}%")
    if details:
        for r in rows:
            if r["missing"]:
                out(f"\n{r['namespace']} missing: {' '.join(r['missing'])}")
            reasons = {}
            for n, why in r["left_out"].items():
                reasons.setdefault(why, []).append(n)
            for why, ns in reasons.items():
                out(f"\n{r['namespace']} left out ({why}): {' '.join(ns)}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m eagertape coverage", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("--names", choices=("auto", "installed", "stored"), default="auto",
                        help="where TF's names come from (default: installed TF, else stored)")
    parser.add_argument("--details", action="store_true",
                        help="list the missing names and the left-out ones with reasons")
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = parser.parse_args(argv)
    names, source = tf_names(args.names)
    rows = coverage(names=names)
    report(rows, source=source, details=args.details)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
