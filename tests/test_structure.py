"""The package's structure: no import cycles, counting imports made inside
functions (``tools/import_graph.py``), so the modules read in one order."""
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.eager     # about the source, not about an execution mode

ROOT = Path(__file__).resolve().parent.parent


def test_the_package_has_no_import_cycles():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "import_graph.py"), "--check",
                        "--cycles-only", str(ROOT / "eagertape")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "cycles over all edges (module-level + deferred): none" in r.stdout, r.stdout


def test_the_checker_finds_a_cycle(tmp_path):
    # The check above can fail: a package whose two modules import each other
    # (one inside a function) is reported.
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from . import a\n    return a\n")
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "import_graph.py"), "--check",
                        "--cycles-only", str(pkg)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "a b" in r.stdout, r.stdout
