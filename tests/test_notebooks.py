"""The notebooks run top to bottom in a fresh kernel, as a reader runs them.

They are committed without outputs (checked here); the benchmark notebook runs
a smaller setting under the tests (``EAGERTAPE_NOTEBOOK_QUICK``).
"""
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
WITH_PLOTS = {"01_reverse_mode_by_hand", "05_porting_tf_code", "06_accelerator_benchmarks",
              "07_porting_a_keras_loop"}


def test_the_seven_notebooks_are_there():
    assert [p.stem[:2] for p in NOTEBOOKS] == ["01", "02", "03", "04", "05", "06", "07"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, \
                f"{path.name} cell {i} has outputs: clear them before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
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
