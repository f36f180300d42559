"""The core's compiled twins: which modules have one, where they are, when they run.

The recording path (every recorded call, every ``tape.gradient``) is Python
object work: a kind looked up, a pending value and a Tensor made, a tape's
record appended. The build (``setup.py``) compiles the modules that do it with
Cython, from their own source unchanged, into ``eagertape/_compiled/``: the same
code without the interpreter's dispatch. Their results are the same by
construction; only the time differs.

A twin is used only while its ``.py`` is the source it was built from (its
digest is stored beside it): an edited module in an editable install runs as
Python until the next build (``pip install -e .``), never as stale code.
``EAGERTAPE_PURE_PYTHON=1`` in the environment runs every module as Python
(the tests run both ways); a build without Cython or a C compiler has no twins.
``eagertape.introspect.compiled_modules()`` says which ran and why.

This module is imported first by ``eagertape/__init__.py`` and by ``setup.py``
(so it needs nothing but the standard library).
"""
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

# In import order of the core (a twin imports its neighbours as any module does).
COMPILED = ("_keys", "_cache", "_state", "_dtypes", "_graph", "_tensor", "_record",
            "_fused", "_primitive", "_operators", "_variables", "_tape", "_replay")
TWINS = "_compiled"          # the folder, inside the package, holding the twins
_HERE = os.path.dirname(os.path.abspath(__file__))


def source_digest(path):
    """The sha256 of a module's source text, as stored beside its twin."""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _twin(name):
    """``(path of the twin, None)`` or ``(None, why the module runs as Python)``."""
    folder = os.path.join(_HERE, TWINS)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(folder, name + suffix)
        if os.path.exists(path):
            break
    else:
        return None, "not built (no Cython or no C compiler at install)"
    try:
        with open(os.path.join(folder, name + ".sha256")) as f:
            built = f.read().strip()
    except OSError:
        return None, "its source digest is missing: reinstall"
    if built != source_digest(os.path.join(_HERE, name + ".py")):
        return None, "its source changed since the build: reinstall (pip install -e .)"
    return path, None


class _Finder(importlib.abc.MetaPathFinder):
    """Finds ``eagertape.<name>`` for the modules with a current twin, as that twin."""

    def __init__(self, twins):
        self.twins = twins

    def find_spec(self, fullname, path=None, target=None):
        twin = self.twins.get(fullname)
        if twin is None:
            return None
        return importlib.util.spec_from_file_location(
            fullname, twin, loader=importlib.machinery.ExtensionFileLoader(fullname, twin))


status = {}      # module -> "compiled" or why it runs as Python


def install():
    """Decide, once per process, which modules run compiled (``eagertape/__init__``)."""
    if status:
        return
    twins = {}
    pure = os.environ.get("EAGERTAPE_PURE_PYTHON", "") not in ("", "0")
    for name in COMPILED:
        if pure:
            status[name] = "EAGERTAPE_PURE_PYTHON is set"
            continue
        path, why = _twin(name)
        status[name] = "compiled" if path else why
        if path:
            twins[f"{__package__}.{name}"] = path
    if twins:
        # Ahead of the path finders, for these names only: every other import,
        # eagertape's own included, goes the usual way.
        sys.meta_path.insert(0, _Finder(twins))
