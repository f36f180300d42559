"""Every ``python`` code block of the README and of ``docs/*.md`` runs, each in a
fresh interpreter, as a reader pastes it; so none can go stale.

``sh`` blocks are commands, not run here. A block right after a line
``<!-- not run: reason -->`` is skipped (code that needs a cluster); a block that
imports TensorFlow is skipped where TensorFlow is not installed.
"""
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
        ROOT / "notebooks" / "README.md"]
FENCE = re.compile(r"^```(\w*)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
NOT_RUN = re.compile(r"<!--\s*not run:.*?-->\s*$")


def blocks(path):
    """``(line, language, code, skipped)`` for each fenced block of ``path``."""
    text = path.read_text()
    out = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        out.append((line, m.group(1), m.group(2), bool(NOT_RUN.search(before))))
    return out


PY_BLOCKS = [pytest.param(p, line, code, skip,
                          id=f"{p.relative_to(ROOT)}:{line}")
             for p in DOCS if p.exists()
             for line, lang, code, skip in blocks(p) if lang == "python"]


def test_the_readme_has_runnable_blocks():
    # The extraction itself: a change of fence style must not make this test vacuous.
    readme = [b for b in PY_BLOCKS if b.values[0].name == "README.md"]
    assert len(readme) >= 4
    assert all(lang for _, lang, _, _ in blocks(ROOT / "README.md")), \
        "README: give every code block a language (python, sh, ...)"


def test_the_readme_stays_short():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 240, \
        "README: move details into docs/ and link them"


@pytest.mark.eager
@pytest.mark.parametrize("path, line, code, skip", PY_BLOCKS)
def test_block_runs(path, line, code, skip):
    if skip:
        pytest.skip("marked <!-- not run -->")
    if re.search(r"^\s*import tensorflow\b", code, re.M) and \
            importlib.util.find_spec("tensorflow") is None:
        pytest.skip("needs TensorFlow")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("EAGERTAPE_EXECUTION_MODE", None)     # as a reader runs it: the default mode
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=env, timeout=600, cwd=ROOT)
    assert p.returncode == 0, f"{path.name}:{line} failed:\n{code}\n{p.stderr[-3000:]}"
