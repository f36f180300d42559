"""The build's one addition to pyproject.toml: the core's compiled twins.

The modules on the recording path (``eagertape._speedups.COMPILED``) are compiled
with Cython from their own source, unchanged, into ``eagertape/_compiled/``; the
package loads a twin only while its source is the one it was built from
(``eagertape/_speedups.py``), and runs the ``.py`` otherwise. A build without
Cython or a C compiler gives the same package without the twins (pure Python:
the same results, slower).
"""
import os
import pathlib
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "eagertape"))
from _speedups import COMPILED, TWINS, source_digest  # noqa: E402  (no jax needed)
sys.path.pop(0)


class BuildTwins(build_ext):
    """Puts each twin in ``eagertape/_compiled/`` with the digest of its source."""

    def initialize_options(self):
        super().initialize_options()
        self.parallel = os.cpu_count() or 1

    def get_ext_filename(self, fullname):
        path = pathlib.PurePosixPath(super().get_ext_filename(fullname))
        return str(path.parent / TWINS / path.name)

    def build_extension(self, ext):
        super().build_extension(ext)
        self._digest(pathlib.Path(self.get_ext_fullpath(ext.name)), ext)

    def copy_extensions_to_source(self):
        # An in-place build (``pip install -e .``): each twin, and its digest, into
        # the source tree's eagertape/_compiled/.
        for ext in self.extensions:
            built = pathlib.Path(self.build_lib) / self.get_ext_filename(ext.name)
            target = ROOT / self.get_ext_filename(ext.name)
            if built.exists():
                target.parent.mkdir(exist_ok=True)
                self.copy_file(str(built), str(target), level=self.verbose)
                self._digest(target, ext)

    @staticmethod
    def _digest(out, ext):
        name = ext.name.rsplit(".", 1)[1]
        out.with_name(name + ".sha256").write_text(source_digest(ROOT / "eagertape" / f"{name}.py"))


def extensions():
    if os.environ.get("EAGERTAPE_PURE_PYTHON"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("eagertape: Cython is not installed: building without the compiled twins")
        return []
    from setuptools import Extension
    # optional: a twin that fails to compile leaves its module pure Python. -O1: half
    # the build time of -O3, and Cython's code here is calls into Python's C API;
    # without debug symbols a twin is a fifth of the size.
    exts = [Extension(f"eagertape.{m}", [f"eagertape/{m}.py"], optional=True,
                      extra_compile_args=["-O1", "-g0"], extra_link_args=["-s"])
            for m in COMPILED]
    return cythonize(exts, language_level=3, quiet=True, build_dir="build/cython",
                     compiler_directives={"binding": True, "autotestdict": False})


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildTwins})
