"""The notebooks run top to bottom in a fresh kernel, as a reader runs them.

They are committed with their outputs, so a reader on the web sees the numbers
and plots; the outputs are checked for being complete, small and free of the
paths of the machine that ran them, never compared with a new run's (figures are
measured). The benchmark notebook runs a smaller setting under the tests
(``EAGERTAPE_NOTEBOOK_QUICK``).
"""
import json
import re
from pathlib import Path

import pytest
from optional import requires

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
WITH_PLOTS = {"01_reverse_mode_by_hand", "05_porting_tf_code", "06_accelerator_benchmarks",
              "07_porting_a_keras_loop"}


def test_the_seven_notebooks_are_there():
    assert [p.stem[:2] for p in NOTEBOOKS] == ["01", "02", "03", "04", "05", "06", "07"]


# A path of the machine that executed the notebook: a home, a temporary or a
# work directory, or an installed package's file (in a warning's location).
MACHINE_PATH = re.compile(r"(/(work|tmp|root|home|Users|private)/|site-packages|[A-Z]:\\\\Users)")
MAX_OUTPUT_BYTES = 200_000          # one output (a PNG figure is ~30 KB)
MAX_NOTEBOOK_BYTES = 400_000


@pytest.mark.eager
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_with_clean_outputs(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    counts = [c.execution_count for c in code]
    assert counts == list(range(1, len(code) + 1)), \
        f"{path.name}: execute it top to bottom before committing (execution counts {counts})"
    assert path.stat().st_size <= MAX_NOTEBOOK_BYTES, f"{path.name} is {path.stat().st_size} bytes"
    kinds = set()
    for i, cell in enumerate(code):
        for out in cell.outputs:
            assert out.get("output_type") != "error", f"{path.name} cell {i} stored an error"
            text = json.dumps(out)
            assert len(text) <= MAX_OUTPUT_BYTES, f"{path.name} cell {i}: an output of {len(text)} bytes"
            m = MACHINE_PATH.search(text)
            assert m is None, f"{path.name} cell {i} shows a path of this machine: ...{text[max(0, m.start() - 60):m.end() + 60]}..."
            kinds.update(out.get("data", {}))
    if path.stem in WITH_PLOTS:
        assert "image/png" in kinds, f"{path.name} was committed without its figure"


def _needs(path):
    """The optional tools a notebook imports, and the kernel that runs it."""
    text = path.read_text()       # TensorFlow, where a notebook uses it, is optional there
    return ["ipykernel"] + [m for m, use in (("keras", r"\bkeras\b"),
                                             ("matplotlib", r"import matplotlib\b"))
                            if re.search(use, text)]


@pytest.mark.parametrize("path", [pytest.param(p, marks=requires(*_needs(p))) for p in NOTEBOOKS],
                         ids=lambda p: p.stem)
def test_notebook_runs(path, monkeypatch):
    monkeypatch.setenv("EAGERTAPE_NOTEBOOK_QUICK", "1")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()        # a cell that raises fails the test (CellExecutionError)
    kinds = {k for c in nb.cells if c.cell_type == "code" for o in c.outputs
             for k in o.get("data", {})}
    if path.stem in WITH_PLOTS:
        assert "image/png" in kinds, f"{path.name} drew no PNG figure"
    assert "text/plain" in kinds or any(o.get("name") == "stdout" for c in nb.cells
                                        if c.cell_type == "code" for o in c.outputs)
