"""Check the built sdist and wheel: what they contain and what their metadata says.

    python tools/check_dist.py DIST_DIR

The sdist is minimal, as optax's and equinox's are: the package, README, LICENSE
and pyproject.toml, no tests (they need the examples, notebooks and conftest
of a clone; run them from one), no benchmark and no tools. The wheel carries
py.typed, the namespace stubs and the license text, and none of the repository's
tooling (the benchmark, the TF-coverage report), which lives in benchmarks/ and
tools/. Exit status 1, with the reasons, when something is off.
"""
from __future__ import annotations

import email.parser
import pathlib
import re
import sys
import tarfile
import tomllib
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
STUBS = ["eagertape/numpy/__init__.pyi", "eagertape/numpy/linalg.pyi",
         "eagertape/numpy/fft.pyi", "eagertape/nn.pyi"]
# Folders of the repository that neither the sdist nor the wheel may hold.
REPOSITORY_ONLY = ("tests", "examples", "notebooks", "tools", "benchmarks", ".ci", "docs")
# The tooling that lived in the package before it moved to benchmarks/ and tools/
# (issue 36): a build from a stale tree, or a file put back, would ship it again.
TOOLING = ["eagertape/benchmark.py", "eagertape/_benchmark_keras.py", "eagertape/_harness.py",
           "eagertape/_coverage.py", "eagertape/tf/_tf_names.py"]


def check(dist: pathlib.Path) -> list[str]:
    problems = []
    sdists, wheels = sorted(dist.glob("eagertape-*.tar.gz")), sorted(dist.glob("eagertape-*.whl"))
    if len(sdists) != 1 or len(wheels) != 1:
        return [f"expected one sdist and one wheel in {dist}, found {sdists + wheels}"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    with tarfile.open(sdists[0]) as tar:
        top = sdists[0].name[:-len(".tar.gz")]
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for need in ["pyproject.toml", "README.md", "LICENSE", "eagertape/__init__.py",
                 "eagertape/py.typed", *STUBS]:
        if need not in names:
            problems.append(f"sdist {top} lacks {need}")
    for n in sorted(names):
        if n.split("/", 1)[0] in REPOSITORY_ONLY:
            problems.append(f"sdist {top} ships {n} (it is meant to hold the package only)")
        if n in TOOLING:
            problems.append(f"sdist {top} ships {n}, tooling that belongs in benchmarks/ or tools/")

    with zipfile.ZipFile(wheels[0]) as whl:
        names = set(whl.namelist())
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        meta = email.parser.Parser().parsestr(whl.read(f"{info}/METADATA").decode())
    for need in ["eagertape/py.typed", *STUBS, f"{info}/licenses/LICENSE"]:
        if need not in names:
            problems.append(f"wheel {wheels[0].name} lacks {need}")
    stray = sorted(n for n in names if not n.startswith(("eagertape/", info)))
    if stray:
        problems.append(f"wheel {wheels[0].name} ships files outside the package: {stray}")
    tooling = sorted(set(TOOLING) & names)
    if tooling:
        problems.append(f"wheel {wheels[0].name} ships the repository's tooling {tooling}: "
                        "it belongs in benchmarks/ or tools/")
    if meta["License-Expression"] != project["license"]:
        problems.append(f"wheel License-Expression {meta['License-Expression']!r}, "
                        f"pyproject says {project['license']!r}")
    requires = sorted(r for r in meta.get_all("Requires-Dist") or [] if "extra ==" not in r)
    if sorted(map(_requirement, requires)) != sorted(map(_requirement, project["dependencies"])):
        problems.append(f"wheel Requires-Dist {requires} != pyproject {project['dependencies']}")
    return problems


def _requirement(text: str) -> tuple:
    """A requirement as (name, sorted specifiers): the metadata writes a pyproject's
    ``jax>=0.8.1,<0.11`` as ``jax<0.11,>=0.8.1``."""
    name, spec = re.fullmatch(r"\s*([A-Za-z0-9._-]+)\s*(.*?)\s*", text).groups()
    return name.lower(), sorted(s.replace(" ", "") for s in spec.split(",") if s.strip())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(pathlib.Path(argv[0]))
    for p in problems:
        print("check_dist:", p, file=sys.stderr)
    if not problems:
        print("check_dist: sdist and wheel contents and metadata are as intended")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
