"""The package's structure: no import cycles, counting imports made inside
functions (``tools/import_graph.py``), so the modules read in one order; Keras's
private names in one declared place."""
import os
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


def test_kerass_private_names_are_named_in_one_declared_place():
    # The join's table and KERAS_PRIVATE name every private Keras module the join
    # touches; no other line of the package does (a Keras upgrade is checked there).
    root = str(ROOT / "eagertape")
    outside = []
    for folder, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            with open(path) as f:
                lines = f.read().splitlines()
            inside = False
            for i, line in enumerate(lines, 1):
                if line.startswith("# -- the join: everything patched in Keras"):
                    inside = True
                elif line.startswith("# -- (the end of the declared Keras names)"):
                    inside = False
                elif "keras.src" in line and not inside:
                    outside.append(f"{os.path.relpath(path, root)}:{i}")
    assert outside == []
