"""The import graph inside a package, and its cycles (standard library only).

    python tools/import_graph.py                     # eagertape/ next to tools/
    python tools/import_graph.py ../eagertape-base/eagertape   # another checkout's package
    python tools/import_graph.py --cycles-only       # no edge list
    python tools/import_graph.py --check             # exit 1 if a cycle exists over all edges

Reads every ``*.py`` below the package directory with ``ast`` (nothing is
imported or run) and lists the edges between its modules, each of one kind:

* ``module``: runs when the importing module is imported (top level, and also
  inside top-level ``try``/``if`` blocks and class bodies);
* ``deferred``: inside a function, method or lambda: runs at call time;
* ``typing``: under ``if TYPE_CHECKING:``; never runs; listed, left out of the
  cycle analysis.

Then the strongly connected components with more than one module (the cycles)
are reported twice: over ``module`` edges only (what can fail at import time)
and over ``module`` + ``deferred`` edges (every runtime dependency), each with
the edges inside it, so one can see which import closes the loop.

Resolution follows Python's import system: ``from . import x`` is an edge to the
submodule ``x`` when there is one, else to the package (a name defined in its
``__init__``); ``from ._a import b`` to ``_a`` (or ``_a.b`` if ``_a`` is a
package with a submodule ``b``); ``from .. import y`` inside ``tf/`` or
``numpy/`` climbs to the parent package. Importing ``p.q.r`` also runs the
``__init__`` of every package on the way (``p``, ``p.q``): edges to those are
added, marked ``^``, except for the importer's own ancestors (already being
imported by then). Absolute imports of the package itself (``import eagertape``,
``from eagertape import nn``) count the same way. Dynamic imports
(``importlib.import_module``, ``__import__``) are not seen. Modules are named
relative to the package (``_tape``, ``tf.math``); the package itself by its name.

Exit status: 0, or 1 with ``--check`` when a cycle exists over all edges (2 on
a usage error or an import that resolves to no module of the package).
"""
from __future__ import annotations

import argparse
import ast
import pathlib
import signal
import sys
from collections import defaultdict

ROOT = pathlib.Path(__file__).resolve().parent.parent
KINDS = ("module", "deferred", "typing")


def discover(pkg_dir: pathlib.Path):
    """{dotted module name: (path, is_package)} for every .py below pkg_dir."""
    name = pkg_dir.name
    mods = {}
    for path in sorted(pkg_dir.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = [name, *path.relative_to(pkg_dir).with_suffix("").parts]
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        mods[".".join(parts)] = (path, is_pkg)
    return mods


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST):
    """Yield (import node, kind), walking with the context that decides the kind."""
    def visit(node, kind):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, kind
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # (import statements cannot stand in decorators, defaults or lambdas)
            for stmt in node.body:
                yield from visit(stmt, "typing" if kind == "typing" else "deferred")
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for stmt in node.body:
                yield from visit(stmt, "typing")
            for stmt in node.orelse:
                yield from visit(stmt, kind)
        else:
            for child in ast.iter_child_nodes(node):
                yield from visit(child, kind)
    yield from visit(tree, "module")


class Graph:
    def __init__(self, pkg_dir: pathlib.Path):
        self.pkg = pkg_dir.name
        self.mods = discover(pkg_dir)
        # (src, dst) -> {kind: [(line, implicit)]}
        self.edges = defaultdict(lambda: defaultdict(list))
        self.unresolved = []
        for mod, (path, is_pkg) in self.mods.items():
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node, kind in _imports(tree):
                found = {}
                for target, implicit in self._targets(mod, is_pkg, node):
                    found[target] = found.get(target, True) and implicit
                for target, implicit in found.items():
                    self.edges[(mod, target)][kind].append((node.lineno, implicit))

    def _in_pkg(self, name):
        return name == self.pkg or name.startswith(self.pkg + ".")

    def _chain(self, mod, target, lineno):
        """Edges for importing ``target``: it, and the non-ancestor packages above it."""
        if target not in self.mods:
            self.unresolved.append((mod, lineno, target))
            return
        parts = target.split(".")
        ancestors = {".".join(mod.split(".")[:i]) for i in range(1, mod.count(".") + 2)}
        for i in range(1, len(parts)):
            parent = ".".join(parts[:i])
            if parent not in ancestors and parent != mod and parent in self.mods:
                yield parent, True
        if target != mod:
            yield target, False

    def _targets(self, mod, is_pkg, node):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if self._in_pkg(alias.name):
                    yield from self._chain(mod, alias.name, node.lineno)
            return
        if node.level:
            base = mod.split(".") if is_pkg else mod.split(".")[:-1]
            up = node.level - 1
            if up > len(base) - 1:
                self.unresolved.append((mod, node.lineno, "." * node.level + (node.module or "")))
                return
            base = base[:len(base) - up] if up else base
            base = ".".join(base + ([node.module] if node.module else []))
        else:
            base = node.module or ""
            if not self._in_pkg(base):
                return
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            if alias.name != "*" and sub in self.mods:
                # ``from base import sub``: the submodule (and base's __init__ on the
                # way, unless base is an ancestor of the importer).
                yield from self._chain(mod, sub, node.lineno)
            else:
                yield from self._chain(mod, base, node.lineno)

    def adjacency(self, kinds):
        adj = defaultdict(set)
        for (src, dst), by_kind in self.edges.items():
            if any(k in by_kind for k in kinds):
                adj[src].add(dst)
        return adj

    def cycles(self, kinds):
        """Strongly connected components of more than one module (Tarjan, iterative)."""
        adj = self.adjacency(kinds)
        index, low, on_stack, stack, out = {}, {}, set(), [], []
        counter = 0
        for root in sorted(self.mods):
            if root in index:
                continue
            work = [(root, iter(sorted(adj[root])))]
            index[root] = low[root] = counter
            counter += 1
            stack.append(root)
            on_stack.add(root)
            while work:
                v, it = work[-1]
                for w in it:
                    if w not in index:
                        index[w] = low[w] = counter
                        counter += 1
                        stack.append(w)
                        on_stack.add(w)
                        work.append((w, iter(sorted(adj[w]))))
                        break
                    if w in on_stack:
                        low[v] = min(low[v], index[w])
                else:
                    work.pop()
                    if work:
                        low[work[-1][0]] = min(low[work[-1][0]], low[v])
                    if low[v] == index[v]:
                        comp = []
                        while True:
                            w = stack.pop()
                            on_stack.discard(w)
                            comp.append(w)
                            if w == v:
                                break
                        if len(comp) > 1:
                            out.append(sorted(comp))
        return sorted(out, key=lambda c: (-len(c), c))


def short(pkg, name):
    return name if name == pkg else name[len(pkg) + 1:]


def _where(pkg, dst, hits):
    lines = ",".join(f"L{n}{'^' if imp else ''}" for n, imp in sorted(set(hits)))
    return f"{short(pkg, dst)} ({lines})"


def report(g: Graph, cycles_only=False, out=print):
    n_by_kind = {k: sum(1 for e in g.edges.values() if k in e) for k in KINDS}
    out(f"package {g.pkg}: {len(g.mods)} modules, {len(g.edges)} intra-package edges "
        f"(an edge of several kinds counts in each): module-level {n_by_kind['module']}, "
        f"deferred {n_by_kind['deferred']}, TYPE_CHECKING {n_by_kind['typing']}")
    for mod, line, what in g.unresolved:
        out(f"unresolved: {short(g.pkg, mod)} line {line}: {what}")
    if not cycles_only:
        out("\nedges (deferred and TYPE_CHECKING ones with their lines; ^ = a package "
            "__init__ run on the way to a submodule)")
        by_src = defaultdict(list)
        for (src, dst), by_kind in sorted(g.edges.items()):
            by_src[src].append((dst, by_kind))
        for src in sorted(g.mods):
            if src not in by_src:
                continue
            out(f"  {short(g.pkg, src)}")
            for kind in KINDS:
                ds = [(d, bk[kind]) for d, bk in by_src[src] if kind in bk]
                if not ds:
                    continue
                if kind == "module":
                    text = " ".join(short(g.pkg, d) + ("^" if all(i for _, i in h) else "")
                                    for d, h in ds)
                else:
                    text = ", ".join(_where(g.pkg, d, h) for d, h in ds)
                out(f"    {kind:<9} {text}")
    found = {}
    for label, kinds in (("module-level edges", ("module",)),
                         ("all edges (module-level + deferred)", ("module", "deferred"))):
        comps = g.cycles(kinds)
        found[kinds] = comps
        out(f"\ncycles over {label}: " + (f"{len(comps)} strongly connected component(s)"
                                          if comps else "none"))
        for comp in comps:
            members = set(comp)
            out(f"  [{len(comp)} modules] " + " ".join(short(g.pkg, m) for m in comp))
            for (src, dst), by_kind in sorted(g.edges.items()):
                if src in members and dst in members and any(k in by_kind for k in kinds):
                    hits = "; ".join(f"{k} " + ",".join(f"L{n}{'^' if i else ''}"
                                                        for n, i in sorted(set(by_kind[k])))
                                     for k in kinds if k in by_kind)
                    out(f"      {short(g.pkg, src)} -> {short(g.pkg, dst)}  ({hits})")
    return found


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("package", nargs="?", default=str(ROOT / "eagertape"),
                   help="the package directory (default: eagertape/ of this checkout)")
    p.add_argument("--cycles-only", action="store_true", help="leave out the edge list")
    p.add_argument("--check", action="store_true",
                   help="exit 1 if any cycle exists over all (module-level + deferred) edges")
    a = p.parse_args(argv)
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # quiet under `| head`
    pkg_dir = pathlib.Path(a.package).resolve()
    if not (pkg_dir / "__init__.py").is_file():
        p.error(f"{pkg_dir} is not a package (no __init__.py)")
    g = Graph(pkg_dir)
    found = report(g, cycles_only=a.cycles_only)
    if g.unresolved:
        return 2
    if a.check and found[("module", "deferred")]:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
