"""Which of TensorFlow's names ``eagertape.tf`` resolves, in the 22 namespaces the
report counts.

    python tools/tf_coverage.py [--details] [--names stored] [--json FILE]
    python -m eagertape coverage ...          # the same, where a checkout is found

Each public, non-module name of a counted TF namespace (``NAMESPACES``: tf,
tf.math, tf.nn, ...) is one of: resolved (``getattr`` returns it); left out (its
AttributeError says ``is left out of eagertape's TensorFlow facade: <reason>``:
ragged tensors, file I/O, graph-only API, ...); or missing (not done
yet). The coverage is resolved / (all - left out): a left-out name is neither
covered nor in the denominator, and the report says so, with the counts and the
figure over all names beside it. TF's other namespaces (tf.keras, tf.summary,
tf.distribute, tf.raw_ops, ...) are not counted; the report names them. TF's names
come from an installed TensorFlow, else from the list stored for TF 2.21
(``tf_names.py`` beside this file).

From Python (a checkout's ``tools/`` is not a package)::

    import runpy
    cov = runpy.run_path("tools/tf_coverage.py")
    names, source, uncounted = cov["tf_names"]("stored")
    rows = cov["coverage"](["nest"], names=names)    # rows[0]["missing"] == []
"""
import argparse
import importlib.util
import json
import pathlib
import re
import sys
import types

NAMESPACES = ("", "math", "nn", "linalg", "random", "signal", "image", "dtypes", "debugging",
              "experimental.numpy", "data", "train", "nest", "errors", "config",
              # the families brought in by issue 37 (and those still left out)
              "strings", "sparse", "lookup", "ragged", "io", "audio", "saved_model")
_LEFT_OUT = re.compile(r"is left out of eagertape's TensorFlow facade: (.*)", re.S)
# A left-out name whose reason says it is not built yet (rather than having no JAX
# counterpart): the report counts these apart, as they could as well be missing.
_NOT_BUILT = re.compile(r"\bnot (built|written)\b|\bonly the .* is written\b")


def tf_names(source="auto"):
    """``{namespace: [name, ...]}`` of TensorFlow's public non-module names in the
    counted namespaces, where they came from, and TF's top-level namespaces that
    are not counted (``source``: "auto", "installed" or "stored")."""
    if source not in ("auto", "installed", "stored"):
        raise ValueError(f"argument `source`: {source!r}; give 'auto', 'installed' or 'stored'")
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
            counted = {ns.split(".")[0] for ns in NAMESPACES if ns and ns != "experimental.numpy"}
            uncounted = sorted(n for n in dir(tf) if not n.startswith("_") and n not in counted
                               and n != "experimental"
                               and isinstance(getattr(tf, n), types.ModuleType))
            return names, f"installed TensorFlow {tf.__version__}", uncounted
    stored = _stored()
    return (dict(stored.NAMES), f"the stored list of TensorFlow {stored.VERSION}",
            list(stored.UNCOUNTED))


def _stored():
    # Loaded by its path: tools/ is not a package, and this file also runs as a
    # script or through `python -m eagertape coverage`.
    spec = importlib.util.spec_from_file_location(
        "tf_names", pathlib.Path(__file__).with_name("tf_names.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def report(rows, out=print, source="", details=False, uncounted=None):
    """Print the table of ``coverage``'s rows, with what is counted and how: the
    namespaces, the denominator, the left-out names and ``uncounted`` (TF's
    namespaces left out of the count)."""
    total = {k: sum(len(r[k]) if k != "total" else r[k] for r in rows)
             for k in ("total", "resolved", "left_out", "missing")}
    out(f"eagertape.tf against {source}" if source else "eagertape.tf")
    out(_wrap(f"counted: TensorFlow's public names other than modules, in {len(rows)} "
              f"namespaces ({total['total']} names): "
              + ", ".join(r["namespace"] for r in rows)))
    if uncounted is not None:
        out(_wrap(f"not counted: TF's {len(uncounted)} other top-level namespaces ("
                  + ", ".join("tf." + n for n in uncounted) + "), tf.experimental but for "
                  "tf.experimental.numpy, and the namespaces nested in the counted ones "
                  "(tf.data.experimental, ...); eagertape.tf has some of them (tf.keras, "
                  "tf.autodiff, ...), but none is in the figures below"))
    out("")
    out(f"{'namespace':<22}{'TF names':>9}{'resolved':>10}{'left out':>10}{'missing':>9}"
        f"{'coverage':>10}")
    for r in rows:
        out(f"{r['namespace']:<22}{r['total']:>9}{len(r['resolved']):>10}"
            f"{len(r['left_out']):>10}{len(r['missing']):>9}"
            f"{100 * r.get('numeric_coverage', 0):>9.0f}%")
    numeric = total["total"] - total["left_out"]
    out(f"{'all':<22}{total['total']:>9}{total['resolved']:>10}{total['left_out']:>10}"
        f"{total['missing']:>9}{100 * total['resolved'] / max(numeric, 1):>9.0f}%")
    out("")
    out(f"coverage = resolved / (TF names - left out) = {total['resolved']} / "
        f"({total['total']} - {total['left_out']}) = "
        f"{100 * total['resolved'] / max(numeric, 1):.1f}%")
    not_built = sum(bool(_NOT_BUILT.search(why)) for r in rows for why in r["left_out"].values())
    out(_wrap(f"left out: {total['left_out']} names eagertape.tf declares left out, each "
              "raising an AttributeError that gives the reason (--details lists them with "
              "their reasons): they are not counted as covered, and not in the denominator; "
              f"{not_built} of them say they are not built yet"))
    out(f"over all {total['total']} names, the left-out ones as not covered: "
        f"{total['resolved']} / {total['total']} = "
        f"{100 * total['resolved'] / max(total['total'], 1):.1f}%")
    out(f"missing: {total['missing']} names not done yet (--details lists them)")
    if details:
        for r in rows:
            if r["missing"]:
                out(f"\n{r['namespace']} missing: {' '.join(r['missing'])}")
            reasons = {}
            for n, why in r["left_out"].items():
                reasons.setdefault(why, []).append(n)
            for why, ns in reasons.items():
                out(f"\n{r['namespace']} left out ({why}): {' '.join(ns)}")


def _wrap(text):
    import textwrap
    return textwrap.fill(text, 92, subsequent_indent="  ")


def main(argv=None, prog="python tools/tf_coverage.py"):
    """Print the report as the command line ``argv`` says; returns the exit status."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--names", choices=("auto", "installed", "stored"), default="auto",
                        help="where TF's names come from (default: installed TF, else stored)")
    parser.add_argument("--details", action="store_true",
                        help="list the missing names and the left-out ones with reasons")
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = parser.parse_args(argv)
    names, source, uncounted = tf_names(args.names)
    rows = coverage(names=names)
    report(rows, source=source, details=args.details, uncounted=uncounted)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
