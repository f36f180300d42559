"""Execute notebooks in place, so that their committed outputs are current.

    python3 notebooks/refresh_outputs.py                     # all of them
    python3 notebooks/refresh_outputs.py 06_accelerator_benchmarks.ipynb

Each runs top to bottom in a fresh kernel in this folder, with the benchmark at
its full setting (``EAGERTAPE_NOTEBOOK_QUICK`` unset). TensorFlow's C++ start-up
lines, which the benchmark's TensorFlow worker processes write to stderr, are
dropped from the outputs (TF_CPP_MIN_LOG_LEVEL does not silence them); anything
else a notebook prints stays. ``tests/test_notebooks.py`` then checks the result.
"""
import os
import re
import sys
import time
from pathlib import Path

import nbclient
import nbformat

HERE = Path(__file__).resolve().parent
TF_STARTUP = re.compile(r"^(WARNING: All log messages before absl::InitializeLog\(\) is called"
                        r"|I\d{4} [\d:.]+ +\d+ (port|cpu_feature_guard)\.cc:\d+\])")


def drop_tf_startup_lines(nb):
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for out in cell.outputs:
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                lines = [ln for ln in out["text"].splitlines(keepends=True)
                         if not TF_STARTUP.match(ln)]
                if not "".join(lines).strip():
                    continue
                out["text"] = "".join(lines)
            kept.append(out)
        cell.outputs = kept


def main(names):
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    os.environ.pop("EAGERTAPE_NOTEBOOK_QUICK", None)
    paths = [HERE / n for n in names] if names else sorted(HERE.glob("*.ipynb"))
    for path in paths:
        if not path.is_file():
            sys.exit(f"no notebook {path.name} in {HERE.name}/")
        nb = nbformat.read(path, as_version=4)
        t0 = time.time()
        nbclient.NotebookClient(nb, timeout=1800, kernel_name="python3", record_timing=False,
                                resources={"metadata": {"path": str(HERE)}}).execute()
        drop_tf_startup_lines(nb)
        nbformat.write(nb, path)
        print(f"{path.name}: {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
