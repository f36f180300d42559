"""eagertape's warnings print as TF's do (``WARNING:eagertape:...``) until the
program configures logging, then only through the program's handlers; each case
runs in a fresh interpreter, since logging's configuration is per process."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WATCH_INT = """
import eagertape as et
with et.GradientTape() as tape:
    tape.watch(et.constant(1))
"""
MESSAGE = "The dtype of the watched tensor must be floating (e.g. float32), got int32"


def run(code):
    env = dict(os.environ, PYTHONPATH=str(ROOT), JAX_PLATFORMS="cpu")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=env, timeout=300, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    return p.stdout, p.stderr


@pytest.mark.eager
def test_unconfigured_logging_prints_level_and_logger_once():
    out, err = run(WATCH_INT)
    assert out == ""
    assert err.splitlines().count(f"WARNING:eagertape:{MESSAGE}") == 1
    assert err.count(MESSAGE) == 1           # not also a bare line from the last resort


@pytest.mark.eager
def test_configured_logging_receives_each_record_once():
    out, err = run("import logging, sys\n"
                   "logging.basicConfig(stream=sys.stdout, format='%(levelname)s|%(name)s|%(message)s')\n"
                   + WATCH_INT)
    assert out.splitlines() == [f"WARNING|eagertape|{MESSAGE}"]
    assert MESSAGE not in err


@pytest.mark.eager
def test_configured_after_import_takes_over():
    out, err = run("import eagertape, logging, sys\n"
                   "logging.basicConfig(stream=sys.stdout, format='%(name)s: %(message)s')\n"
                   + WATCH_INT)
    assert out.splitlines() == [f"eagertape: {MESSAGE}"]
    assert MESSAGE not in err


@pytest.mark.eager
def test_set_level_silences():
    out, err = run("import logging\nlogging.getLogger('eagertape').setLevel(logging.ERROR)\n"
                   + WATCH_INT)
    assert MESSAGE not in out + err


@pytest.mark.eager
def test_import_leaves_root_logger_alone():
    out, _ = run("import logging\nroot = logging.getLogger()\n"
                 "before = (list(root.handlers), root.level)\n"
                 "import eagertape, eagertape.tf\n"
                 "lg = logging.getLogger('eagertape')\n"
                 "print(before == (list(root.handlers), root.level), lg.propagate, lg.level)")
    assert out.split() == ["True", "True", "0"]
