"""The package's structure: no import cycles, counting imports made inside
functions (``tools/import_graph.py``), so the modules read in one order; the TF
facade (with its Keras join) built on the public core API only (``eagertape.extend``
and the public modules); Keras's and JAX's private names in one declared place each."""
import ast
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


def _private_imports(package, facade):
    """``file:line: what`` for each import in the subpackage ``facade`` of the
    package directory ``package`` that reaches a private module or a private name
    of the package outside ``facade`` (a name or module starting with ``_``)."""
    package, found = Path(package), []
    top = package.name
    for path in sorted((package / facade).rglob("*.py")):
        parts = [top] + list(path.relative_to(package).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
            here = parts
        else:
            here = parts[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [(a.name, None) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = here[:len(here) - node.level + 1] if node.level else []
                mod = ".".join(base + ([node.module] if node.module else []))
                targets = [(mod, a.name) for a in node.names]
            else:
                continue
            for mod, name in targets:
                comps = mod.split(".")
                if comps[0] != top or comps[:2] == [top, facade]:
                    continue
                full = comps + ([name] if name and name != "*" else [])
                # A dunder (eagertape.__version__) is public; one underscore is private.
                if any(c.startswith("_") and not (c.startswith("__") and c.endswith("__"))
                       for c in full[1:]):
                    found.append(f"{path.relative_to(package)}:{node.lineno}: {'.'.join(full)}")
    return found


def test_the_facade_uses_only_the_public_core_api():
    # eagertape/tf/ (the TF facade and its Keras join) imports eagertape.extend and
    # the public modules, never the core's private modules or names: the core may
    # rename anything else (issue 36).
    assert _private_imports(ROOT / "eagertape", "tf") == []


def test_the_public_api_check_finds_a_private_import(tmp_path):
    # The check above can fail: each way of reaching a private name is reported.
    pkg = tmp_path / "pkg"
    (pkg / "face").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "_core.py").write_text("x = 1\n_y = 2\n")
    (pkg / "extend.py").write_text("from ._core import x\n")
    (pkg / "face" / "__init__.py").write_text("from .. import extend\nfrom ..extend import x\n")
    (pkg / "face" / "a.py").write_text(
        "from .._core import x\nfrom .. import _core\nimport pkg._core\n"
        "def f():\n    from ..extend import _hidden\n")
    (pkg / "face" / "b.py").write_text("from . import a\nfrom .a import f\n")
    assert _private_imports(pkg, "face") == [
        "face/a.py:1: pkg._core.x", "face/a.py:2: pkg._core", "face/a.py:3: pkg._core",
        "face/a.py:5: pkg.extend._hidden"]


def test_jaxs_private_names_are_imported_in_one_declared_place():
    # eagertape/_jax_private.py imports JAX's private modules and says why for each;
    # no other module of the package names jax._src (a JAX upgrade is checked there).
    outside = []
    for path in sorted((ROOT / "eagertape").rglob("*.py")):
        if path.name == "_jax_private.py":
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if "jax._src" in line:
                outside.append(f"{path.relative_to(ROOT)}:{i}")
    assert outside == []


def test_the_package_ships_no_tooling():
    # The benchmark and the TF-coverage report live in the repository (benchmarks/,
    # tools/), not in the installed package; only __main__.py refers to them.
    pkg = ROOT / "eagertape"
    moved = ["benchmark.py", "_benchmark_keras.py", "_harness.py", "_coverage.py",
             "tf/_tf_names.py"]
    assert [m for m in moved if (pkg / m).exists()] == []
    outside = []
    for path in sorted(pkg.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom)
                     and not node.level else [])
            if any(n.split(".")[0] in ("benchmarks", "tools") for n in names) \
                    and path.name != "__main__.py":
                outside.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert outside == []
    assert (ROOT / "benchmarks" / "targets.toml").is_file()
    assert (ROOT / "tools" / "tf_coverage.py").is_file()


def test_the_package_names_no_undefined_variable():
    # A name left from an old spelling (a local renamed in one place, a variable
    # deleted before a late use) fails only on the path that reaches it, often an
    # error path no test takes: pyflakes reads every module for them.
    pyflakes = pytest.importorskip("pyflakes.api")
    from pyflakes import reporter as _reporter
    import io
    out = io.StringIO()
    pyflakes.checkRecursive([str(ROOT / "eagertape")], _reporter.Reporter(out, out))
    undefined = [line for line in out.getvalue().splitlines()
                 if "undefined name" in line or "referenced before assignment" in line]
    assert undefined == []


def test_the_undefined_name_check_finds_one(tmp_path):
    # The check above can fail: a function using a name nothing defines is reported.
    pyflakes = pytest.importorskip("pyflakes.api")
    from pyflakes import reporter as _reporter
    import io
    (tmp_path / "m.py").write_text("def f():\n    return h.tapes\n")
    out = io.StringIO()
    pyflakes.checkRecursive([str(tmp_path)], _reporter.Reporter(out, out))
    assert "undefined name 'h'" in out.getvalue()
