"""Write the ``.pyi`` stubs of eagertape's generated namespaces.

``eagertape.numpy`` (with ``linalg`` and ``fft``) and ``eagertape.nn`` are filled at
import time from ``jax.numpy`` and ``jax.nn`` (``eagertape/_namespace.py``), so an
editor reading the source sees no names in them. The stubs list every name with
jax's parameters, ``Tensor`` where jax returns an ``Array``, and jax's first
docstring line.

    python tools/gen_stubs.py           # rewrite the stubs
    python tools/gen_stubs.py --check   # exit 1 if a committed stub differs

The names depend on the installed jax, written in each stub's first line; the
test ``tests/test_packaging.py`` regenerates them and compares.
"""
from __future__ import annotations

import argparse
import inspect
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# module name -> (stub path relative to ROOT, jax source module, submodules re-exported)
NAMESPACES = {
    "eagertape.numpy": ("eagertape/numpy/__init__.pyi", "jax.numpy", ("fft", "linalg")),
    "eagertape.numpy.linalg": ("eagertape/numpy/linalg.pyi", "jax.numpy.linalg", ()),
    "eagertape.numpy.fft": ("eagertape/numpy/fft.pyi", "jax.numpy.fft", ()),
    "eagertape.nn": ("eagertape/nn.pyi", "jax.nn", ()),
}

_UFUNC_CLASS = '''

class _RecordedUfunc:
    """A recorded ``jax.numpy.ufunc``: called, or through its methods."""

    def __call__(self, *args: Any, **kwargs: Any) -> Tensor: ...
    def reduce(self, *args: Any, **kwargs: Any) -> Tensor: ...
    def accumulate(self, *args: Any, **kwargs: Any) -> Tensor: ...
    def outer(self, *args: Any, **kwargs: Any) -> Tensor: ...
    def reduceat(self, *args: Any, **kwargs: Any) -> Tensor: ...
    def at(self, *args: Any, **kwargs: Any) -> Any: ...
'''


def _default(value) -> str:
    if value is None or isinstance(value, (bool, int, float, str)):
        text = repr(value)
        if len(text) <= 40 and text not in ("nan", "inf", "-inf"):
            return text
    return "..."


def _returns(sig: inspect.Signature) -> str:
    ann = sig.return_annotation
    ann = getattr(ann, "__name__", ann) if not isinstance(ann, str) else ann
    return "Tensor" if ann == "Array" else "Any"


def _signature(fn) -> str:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return "(*args: Any, **kwargs: Any) -> Any"
    parts, kinds = [], inspect.Parameter
    seen_positional_only = star_written = False
    for p in sig.parameters.values():
        if p.kind is not kinds.POSITIONAL_ONLY and seen_positional_only:
            parts.append("/")
            seen_positional_only = False
        if p.kind is kinds.KEYWORD_ONLY and not star_written:
            parts.append("*")
            star_written = True
        if p.kind is kinds.POSITIONAL_ONLY:
            seen_positional_only = True
        if p.kind is kinds.VAR_POSITIONAL:
            star_written = True
            parts.append(f"*{p.name}: Any")
        elif p.kind is kinds.VAR_KEYWORD:
            parts.append(f"**{p.name}: Any")
        else:
            default = "" if p.default is p.empty else f" = {_default(p.default)}"
            parts.append(f"{p.name}: Any{default}")
    if seen_positional_only:
        parts.append("/")
    return f"({', '.join(parts)}) -> {_returns(sig)}"


def _first_line(fn) -> str:
    doc = inspect.getdoc(getattr(fn, "__wrapped__", fn)) or ""
    line = doc.strip().split("\n", 1)[0].strip()
    return line.replace("\\", "\\\\").replace('"""', "'''").rstrip('"')


def _typed_names(src) -> set[str] | None:
    """The names jax's own stub of ``src`` declares (None: jax ships no stub for it).

    A name jax has at run time but leaves out of its stub (a new dtype) cannot be
    re-exported from it for a type checker; such names are declared ``Any``.
    """
    import ast
    import importlib.util

    origin = importlib.util.find_spec(src.__name__).origin
    stub = pathlib.Path(origin).with_suffix(".pyi")
    if not stub.exists():
        return None
    names = set()
    for node in ast.walk(ast.parse(stub.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(a.asname or a.name for a in node.names)
    return names


def render(module_name: str) -> str:
    """The stub text of ``module_name`` (one of NAMESPACES), from the installed jax."""
    import importlib

    import jax

    from eagertape._namespace import PASSTHROUGH

    _, src_name, submodules = NAMESPACES[module_name]
    mod = importlib.import_module(module_name)
    src = importlib.import_module(src_name)
    jnp_ufunc = importlib.import_module("jax.numpy").ufunc
    reexports, defs, ufuncs = [], [], []
    for name in sorted(n for n in mod.__all__ if n not in submodules):
        obj, raw = getattr(mod, name), getattr(src, name)
        if isinstance(raw, type) or not callable(raw) or obj is raw or name in PASSTHROUGH:
            reexports.append(name)            # dtypes, classes, constants, pass-through queries
        elif isinstance(raw, jnp_ufunc):
            ufuncs.append(name)
        else:
            doc = _first_line(raw)
            body = f'\n    """{doc}"""' if doc else " ..."
            defs.append(f"def {name}{_signature(raw)}:{body}")
    out = [f"# Generated by tools/gen_stubs.py from jax {jax.__version__}: do not edit, "
           "rerun it.",
           f'"""Stub of ``{module_name}``: ``{src_name}``, recorded on eagertape Tensors."""',
           "from typing import Any", ""]
    out.append("from eagertape._tensor import Tensor")
    if submodules:
        out.append(f"from . import {', '.join(f'{s} as {s}' for s in submodules)}")
    typed = _typed_names(src)
    out.extend(f"from {src_name} import {n} as {n}" for n in reexports
               if typed is None or n in typed)
    untyped = [n for n in reexports if typed is not None and n not in typed]
    names = sorted(mod.__all__)
    out.append("")
    out.append("__all__ = [")
    out.extend(f"    {n!r}," for n in names)
    out.append("]")
    if untyped:
        out.append("")
        out.extend(f"{n}: Any" for n in untyped)
    if ufuncs:
        out.append(_UFUNC_CLASS.rstrip("\n"))
        out.append("")
        out.extend(f"{n}: _RecordedUfunc" for n in ufuncs)
    for d in defs:
        out.extend(["", "", d])
    return "\n".join(out).rstrip("\n") + "\n"


def render_all() -> dict[str, str]:
    """``{stub path relative to the repository: text}`` for every generated namespace."""
    return {path: render(name) for name, (path, _, _) in NAMESPACES.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/gen_stubs.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed stubs instead of writing them")
    args = parser.parse_args(argv)
    stale = []
    for rel, text in render_all().items():
        path = ROOT / rel
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(rel)
        else:
            path.write_text(text)
            print(f"wrote {rel} ({text.count(chr(10))} lines)")
    if stale:
        print("stale stubs (run python tools/gen_stubs.py): " + ", ".join(stale),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
