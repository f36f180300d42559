"""Run the code cells of TF guide notebooks under TensorFlow and under eagertape.tf,
cell by cell, and compare what each prints and whether it raises.

A guide is a notebook of tensorflow/docs (site/en/guide/*.ipynb, fetched by you;
this tool reads local files). Each backend runs the cells in order in one
namespace, in its own process, with ``import tensorflow as tf`` replaced by
``import eagertape.tf as tf`` for eagertape; shell (``!``) and magic (``%``) lines
are dropped. A cell agrees when both runs print the same lines (numbers compared
to 4 significant digits, memory addresses and timings ignored) and raise the same
exception class or none. The lines TF prints while tracing (``Tracing ...``) are
how the guides show retracing, so agreeing output is agreeing trace counts.

    python tools/run_guides.py guides/function.ipynb guides/intro_to_graphs.ipynb
    python tools/run_guides.py --show 12 guides/function.ipynb   # both outputs of cell 12
"""
import argparse
import io
import json
import linecache
import os
import re
import subprocess
import sys
import select
import shutil
import signal
import tempfile
import hashlib
import traceback
import contextlib

_TIMEOUT = 1800
_CELL_SECONDS = 120


def cells(path):
    nb = json.load(open(path))
    out = []
    for c in nb["cells"]:
        if c["cell_type"] != "code":
            continue
        src = "".join(c["source"])
        lines = [ln for ln in src.splitlines() if not ln.lstrip().startswith(("!", "%"))]
        out.append("\n".join(lines))
    return out


def _run(backend, path, skip=()):
    """In the worker: run every cell, one JSON line per cell on the real stdout."""
    real = sys.stdout

    def timeout(*_):
        raise TimeoutError(f"cell ran past {_CELL_SECONDS} s")
    signal.signal(signal.SIGALRM, timeout)
    ns = {"__name__": "__main__"}
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    for k, src in enumerate(cells(path)):
        if k in skip:
            real.write(json.dumps({"out": "", "err": "skipped"}) + "\n")
            real.flush()
            continue
        if backend == "et":
            src = re.sub(r"^(\s*)import tensorflow as tf\b", r"\1import eagertape.tf as tf",
                         src, flags=re.M)
        buf = io.StringIO()
        err = None
        signal.alarm(_CELL_SECONDS)
        # The cell's source where inspect finds it (as IPython keeps it): AutoGraph,
        # TF's and eagertape's, reads the source of the functions it converts.
        fname = f"<guide-cell-{k}>"
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        try:
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
                exec(compile(src, fname, "exec"), ns)
        except BaseException as e:   # a cell's failure is a result, not the end of the run
            err = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
            if os.environ.get("RUN_GUIDES_TRACEBACK"):
                err += "\n" + "".join(traceback.format_exception(e)[-6:])
        finally:
            signal.alarm(0)
        real.write(json.dumps({"out": buf.getvalue(), "err": err}) + "\n")
        real.flush()


_NUM = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def _norm(text):
    # How Tensors and Variables print differs on purpose (eagertape's classes): the
    # values in them are compared.
    text = re.sub(r"\btf\.Tensor\(", "Tensor(", text)
    text = re.sub(r"<(?:tf|eagertape)\.(Tensor|Variable)\b", r"<\1", text)
    text = re.sub(r"numpy=array\((.*?)(?:, dtype=[a-z0-9]+)?\)>", r"numpy=\1>", text,
                  flags=re.S)
    text = re.sub(r"0x[0-9a-f]+", "0x?", text)
    text = re.sub(r"\d+\.\d+ ?(?:s|ms|seconds)\b", "<time>", text)
    text = _NUM.sub(lambda m: f"{float(m.group()):.4g}", text)
    return [ln.rstrip() for ln in text.splitlines() if ln.strip()]


def run(backend, path):
    """One backend's rows; TensorFlow's are cached by the notebook's text and TF's version."""
    cache = None
    if backend == "tf":
        import importlib.metadata as md
        key = hashlib.sha256(open(path, "rb").read() + md.version("tensorflow-cpu").encode())
        d = os.path.join(os.path.expanduser("~"), ".cache", "eagertape-guides")
        os.makedirs(d, exist_ok=True)
        cache = os.path.join(d, key.hexdigest()[:20] + ".json")
        if os.path.exists(cache):
            return json.load(open(cache))
    rows, skip = [], []
    n = len(cells(path))
    while len(rows) < n:
        # A cell that hangs in native code (no Python signal reaches it) is given
        # up: the worker is killed and run again from the start without it.
        got = _worker_rows(backend, path, skip, len(rows))
        rows += got
        if len(rows) < n:
            rows.append({"out": "", "err": f"TimeoutError: no result in {_CELL_SECONDS * 2} s, "
                                       "or the worker died"})
            skip.append(len(rows) - 1)
    if cache:
        json.dump(rows, open(cache, "w"))
    return rows


def _worker_rows(backend, path, skip, start):
    """The rows of cells ``start``... from one worker, until it ends or a cell hangs."""
    # In a scratch folder: the guides write checkpoints and logs where they run.
    scratch = tempfile.mkdtemp(prefix="run_guides_")
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", backend,
                          os.path.abspath(path), "--skip", ",".join(map(str, skip))],
                         cwd=scratch,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    rows, i = [], 0
    try:
        while True:
            ready, _, _ = select.select([p.stdout], [], [], _CELL_SECONDS * 2)
            if not ready:
                return rows
            line = p.stdout.readline()
            if not line:
                return rows
            if line.startswith("{"):
                if i >= start:
                    rows.append(json.loads(line))
                i += 1
    finally:
        p.kill()
        p.wait()
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("notebooks", nargs="+")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--show", type=int, default=None, help="print both runs of this cell")
    if "--worker" in sys.argv:
        i = sys.argv.index("--worker")
        skip = sys.argv[sys.argv.index("--skip") + 1] if "--skip" in sys.argv else ""
        _run(sys.argv[i + 1], sys.argv[i + 2], {int(k) for k in skip.split(",") if k})
        return 0
    a = ap.parse_args()
    total = agree = 0
    for path in a.notebooks:
        tf_rows, et_rows = run("tf", path), run("et", path)
        n = len(cells(path))
        good = 0
        for i in range(n):
            t = tf_rows[i] if i < len(tf_rows) else {"out": "", "err": "not run"}
            e = et_rows[i] if i < len(et_rows) else {"out": "", "err": "not run"}
            te = t["err"] and t["err"].split(":")[0]
            ee = e["err"] and e["err"].split(":")[0]
            same = te == ee and _norm(t["out"]) == _norm(e["out"])
            good += same
            if a.show == i or (a.show is None and not same):
                print(f"-- {os.path.basename(path)} cell {i}: {'agree' if same else 'DIFFER'}")
                if a.show == i or te != ee:
                    print(f"   tf: {t['err']}\n   et: {e['err']}")
                if a.show == i or te == ee:
                    print("   tf out:", _norm(t["out"])[:12])
                    print("   et out:", _norm(e["out"])[:12])
        print(f"{os.path.basename(path)}: {good}/{n} cells agree")
        total += n
        agree += good
    print(f"all: {agree}/{total} cells agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
