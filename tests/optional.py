"""The optional tools some tests need, skipped alike where one is absent: the test is
skipped with a reason that names the tool and the package that brings it.

>>> requires("json").name, requires("json").kwargs["reason"]
('skipif', '')
"""
import importlib.util

import pytest

# The module a test imports -> the package that installs it.
PACKAGES = {"tensorflow": "tensorflow-cpu", "keras": "keras", "orbax.checkpoint":
            "orbax-checkpoint", "matplotlib": "matplotlib", "nbclient": "nbclient",
            "nbformat": "nbformat", "ipykernel": "ipykernel", "torch": "torch"}


def available(module):
    """Whether ``module`` can be imported here (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:                  # a parent package is missing
        return False


def requires(*modules):
    """A mark that skips the test where any of ``modules`` is not installed."""
    missing = [m for m in modules if not available(m)]
    reason = "; ".join(f"needs {m} (optional: pip install {PACKAGES.get(m, m)}), not installed"
                       for m in missing)
    return pytest.mark.skipif(bool(missing), reason=reason)
