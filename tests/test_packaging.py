"""Packaging: one version source, the license, the tested minimum versions, and the
``.pyi`` stubs of the generated namespaces (``tools/gen_stubs.py``).

The built sdist and wheel themselves are checked by ``.ci/run`` (``tools/check_dist.py``
and the tour run from the installed wheel).
"""
import ast
import importlib.util
import pathlib
import re
import tomllib

import jax
import pytest
from packaging.requirements import Requirement
from packaging.version import Version

import eagertape as et

ROOT = pathlib.Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]


def _gen_stubs():
    spec = importlib.util.spec_from_file_location("gen_stubs", ROOT / "tools" / "gen_stubs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_version_is_written_once_and_read_without_importing():
    assert "version" not in PROJECT and "version" in PROJECT["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "eagertape.__version__"}
    # setuptools reads a literal assignment from the text (no import, so building
    # needs no jax); anything else would make it import the package.
    tree = ast.parse((ROOT / "eagertape" / "__init__.py").read_text())
    literals = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
                and [getattr(t, "id", None) for t in node.targets] == ["__version__"]
                and isinstance(node.value, ast.Constant)]
    assert literals == [et.__version__]
    assert re.fullmatch(r"\d+\.\d+\.\d+", et.__version__)


def test_license_is_apache_2_with_its_full_text():
    assert PROJECT["license"] == "Apache-2.0"
    assert PROJECT["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License\n                           Version 2.0, January 2004" in text
    # All nine sections and the end of the terms: the whole text, not a notice.
    for n, title in enumerate(["Definitions", "Grant of Copyright License",
                               "Grant of Patent License", "Redistribution",
                               "Submission of Contributions", "Trademarks",
                               "Disclaimer of Warranty", "Limitation of Liability",
                               "Accepting Warranty or Additional Liability"], 1):
        assert f"{n}. {title}." in text, title
    assert "END OF TERMS AND CONDITIONS" in text
    assert not any(c.startswith("License ::") for c in PROJECT["classifiers"])  # SPDX instead


def _lower_bounds(requirements):
    bounds = {}
    for line in requirements:
        req = Requirement(line)
        lows = [s.version for s in req.specifier if s.operator == ">="]
        assert len(lows) == 1, f"{line}: give one lower bound (>=), it is what CI tests"
        bounds[req.name] = Version(lows[0])
    return bounds


def test_minimum_versions_are_the_ones_ci_installs():
    pins = {}
    for line in (ROOT / "constraints-min.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            (spec,) = req.specifier
            assert spec.operator == "==", line
            pins[req.name] = Version(spec.version)
    assert pins == _lower_bounds(PROJECT["dependencies"])
    assert pins["optax"] >= Version("0.2.4")    # RMSprop's eps_in_sqrt arrived in 0.2.4
    assert pins["jax"] == pins["jaxlib"]


def test_jax_and_keras_have_upper_bounds_over_the_tested_range():
    # eagertape uses JAX's private names (eagertape/_jax_private.py) and patches
    # Keras's (the join's table): pip installs no version past the next minor
    # release after the tested range (TESTED_JAX); within it, _jax_private's checks
    # at import name what moved.
    from eagertape import _jax_private
    reqs = {Requirement(r).name: Requirement(r) for r in PROJECT["dependencies"]
            + PROJECT["optional-dependencies"]["keras"]}
    low, high = (Version(v) for v in _jax_private.TESTED_JAX)
    for name in ("jax", "jaxlib"):
        uppers = [Version(s.version) for s in reqs[name].specifier if s.operator == "<"]
        assert len(uppers) == 1 and uppers[0] > high, reqs[name]
        assert low in reqs[name].specifier and high in reqs[name].specifier
    assert Version(jax.__version__) in reqs["jax"].specifier
    assert any(s.operator == "<" for s in reqs["keras"].specifier), reqs["keras"]


def test_runtime_dependencies_are_what_the_package_imports():
    names = {Requirement(r).name for r in PROJECT["dependencies"]}
    assert names == {"jax", "jaxlib", "numpy", "optax", "diastatic-malt"}
    # Extras are optional: the base package imports none of them.
    extras = {Requirement(r).name for r in PROJECT["optional-dependencies"]["keras"] +
              PROJECT["optional-dependencies"]["checkpoint"]}
    assert extras == {"keras", "orbax-checkpoint"}


def test_typed_package_ships_py_typed_and_stubs():
    assert (ROOT / "eagertape" / "py.typed").is_file()
    assert PYPROJECT["tool"]["setuptools"]["package-data"]["*"] == ["py.typed", "*.pyi"]
    assert "Typing :: Typed" in PROJECT["classifiers"]
    for rel in _stub_paths():
        assert (ROOT / rel).is_file(), rel


def _stub_paths():
    return [path for path, _, _ in _gen_stubs().NAMESPACES.values()]


def _stub_jax_version(text):
    m = re.match(r"# Generated by tools/gen_stubs.py from jax (\S+):", text)
    assert m, "a stub's first line names the jax it was generated from"
    return m.group(1)


def test_committed_stubs_are_the_generators_output():
    gen = _gen_stubs()
    committed = {rel: (ROOT / rel).read_text() for rel in _stub_paths()}
    versions = {_stub_jax_version(t) for t in committed.values()}
    assert len(versions) == 1, versions
    if versions != {jax.__version__}:
        # jax.numpy's names and signatures change between releases; the stubs
        # follow the jax the suite runs on with the newest versions.
        pytest.skip(f"stubs made from jax {versions.pop()}, this is jax {jax.__version__}")
    stale = [rel for rel, text in gen.render_all().items() if committed[rel] != text]
    assert not stale, f"stale stubs {stale}: run python tools/gen_stubs.py"


def _declared(tree):
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom) and node.module != "typing" and \
                node.module != "eagertape._tensor":
            names.update(a.asname for a in node.names)
    return names


@pytest.mark.parametrize("module", ["eagertape.numpy", "eagertape.numpy.linalg",
                                    "eagertape.numpy.fft", "eagertape.nn"])
def test_each_stub_declares_its_modules_names_and_tensor_results(module):
    import importlib
    gen = _gen_stubs()
    rel, _, _ = gen.NAMESPACES[module]
    text = (ROOT / rel).read_text()
    tree = ast.parse(text)
    mod = importlib.import_module(module)
    declared = _declared(tree)
    stub_all = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                    and n.targets[0].id == "__all__")
    assert set(stub_all) == declared
    if _stub_jax_version(text) == jax.__version__:
        assert declared == set(mod.__all__)
    # What a stub says a function returns is what it returns.
    returns = {n.name: ast.unparse(n.returns) for n in tree.body
               if isinstance(n, ast.FunctionDef)}
    samples = {"eagertape.numpy": [("sin", (et.constant([0.5, 1.0]),)),
                                   ("sum", (et.constant([1.0, 2.0]),))],
               "eagertape.numpy.linalg": [("norm", (et.constant([3.0, 4.0]),))],
               "eagertape.numpy.fft": [("rfft", (et.constant([1.0, 0.0, 0.0, 0.0]),))],
               "eagertape.nn": [("relu", (et.constant([-1.0, 2.0]),))]}[module]
    for name, args in samples:
        assert returns[name] == "Tensor"
        assert isinstance(getattr(mod, name)(*args), et.Tensor)


def test_stub_signatures_follow_jax():
    text = (ROOT / "eagertape" / "numpy" / "__init__.pyi").read_text()
    tree = ast.parse(text)
    fns = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert [a.arg for a in fns["sin"].args.posonlyargs] == ["x"]
    assert [a.arg for a in fns["sum"].args.args][:3] == ["a", "axis", "dtype"]
    assert "add: _RecordedUfunc" in text          # ufuncs keep .reduce, .outer, ...
    assert "from jax.numpy import float32 as float32" in text
    assert "from . import fft as fft, linalg as linalg" in text
