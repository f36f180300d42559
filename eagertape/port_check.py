"""``python -m eagertape port-check PATH...``: what a TensorFlow program needs from
eagertape, read statically (nothing is imported or run).

Each ``tf.`` chain a program spells (``tf.keras`` included, through the aliases
``import tensorflow as tf``, ``from tensorflow.keras import layers``,
``layers = tf.keras.layers``, ``import tensorflow.compat.v1 as tf1``, ...) is
resolved by ``getattr`` on ``eagertape.tf``, as the program would resolve it:

- resolved: eagertape has it;
- left out: the facade's AttributeError says it is left out, and why (the reason is
  the facade's own, read from the error);
- missing: eagertape does not have it yet, and TensorFlow does (or TensorFlow is not
  installed to say);
- unknown: TensorFlow 2 has no such name (a typo, or TF 1 only: then its
  ``tf.compat.v1`` name is given); for ``tf.keras``, Keras 3 has none;
- not checked: a ``tf.keras`` name where Keras is not installed.

Whether TensorFlow has a name eagertape lacks is asked of an installed TensorFlow,
in a process of its own (Keras has one backend a process); without TensorFlow those
names stay "missing". The report also lists the documented differences from TF
(docs/differences.md) that the names touch, and patterns that need a look even when
every name resolves (TF 1 graph-mode code, ``set_memory_growth``,
``tf.function(jit_compile=...)``, ``.numpy()`` inside a ``tf.function``).

The exit status of ``main`` is 0 when every name resolves, 1 otherwise (a name left
out, missing, unknown or not checked, or a file that cannot be read), 2 for a bad
command line.
"""
import ast
import fnmatch
import json
import os
import subprocess
import sys
import warnings

STATUSES = ("resolved", "left_out", "missing", "unknown", "not_checked")
_LEFT_OUT = "is left out of eagertape's TensorFlow facade: "
_NOT_YET = "is not supported by eagertape's TensorFlow facade yet"

# TF 1's graph-mode spellings: a program that uses them is TF 1 code, not eager TF 2.
_GRAPH_MODE = frozenset(
    "Session InteractiveSession placeholder placeholder_with_default "
    "disable_eager_execution disable_v2_behavior global_variables_initializer "
    "local_variables_initializer get_variable variable_scope get_default_graph "
    "reset_default_graph ConfigProto".split())
_ROOTS = {"tensorflow": "tf", "eagertape.tf": "tf", "tensorflow.compat.v2": "tf"}


# -- reading a program ----------------------------------------------------------------
def _sources(path):
    """``[(source, cell)]`` of a .py file (cell None) or of a notebook's code cells."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if not path.endswith(".ipynb"):
        return [(text, None)]
    cells = json.loads(text).get("cells", [])
    out, k = [], 0
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        k += 1
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else src
        if src.lstrip().startswith("%%"):
            continue        # a cell magic (%%writefile, %%bash): its body is not Python
        # IPython's magics and shell lines are not Python: blanked, keeping line numbers.
        lines = ["" if ln.lstrip().startswith(("%", "!", "?")) else ln
                 for ln in src.split("\n")]
        out.append(("\n".join(lines), k))
    return out


def _chain(node):
    """``["tf", "keras", "layers"]`` for ``tf.keras.layers``; None if not a name chain."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id] + parts[::-1]
    return None


class _Reader:
    """The ``tf.`` chains of one module's source, with their lines, and the patterns
    that need attention."""

    def __init__(self, tree):
        self.tree, self.aliases, self.uses, self.notes = tree, {}, [], []
        self.assumed_tf = False

    def read(self):
        self._aliases()
        parents = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self._import_uses(node)
            elif isinstance(node, (ast.Attribute, ast.Name)):
                parent = parents.get(node)
                if isinstance(parent, ast.Attribute) and parent.value is node:
                    continue            # not the whole chain
                full = self.resolve(node)
                if full is not None and (isinstance(node, ast.Attribute) or full != "tf"):
                    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                        continue
                    self.uses.append((full, node.lineno))
            if isinstance(node, ast.Call):
                self._call_notes(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._function_notes(node)
        return self

    def _aliases(self):
        # Imports bind first; then a name assigned a TF chain (`layers = tf.keras.layers`)
        # is followed, unless it is also assigned anything else (flow is not followed).
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    root = _tf_module(a.name)
                    if root is not None and a.asname:
                        self.aliases[a.asname] = root
                    elif root is not None and a.name.split(".")[0] == "tensorflow":
                        self.aliases["tensorflow"] = "tf"
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                if node.module == "eagertape":
                    self.aliases.update((a.asname or "tf", "tf") for a in node.names
                                        if a.name == "tf")
                    continue
                root = _tf_module(node.module)
                if root is not None:
                    self.aliases.update((a.asname or a.name, f"{root}.{a.name}")
                                        for a in node.names if a.name != "*")
        if "tf" not in self.aliases and "tf" not in _bound_names(self.tree) \
                and _loads(self.tree, "tf"):
            # A snippet that uses `tf` without importing it (a tutorial's cell, a
            # program run by a harness that supplies it): taken as TensorFlow.
            self.aliases["tf"] = "tf"
            self.assumed_tf = True
        imported = set(self.aliases)
        assigns = [(t.id, n.value) for n in ast.walk(self.tree)
                   if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                   for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                   if isinstance(t, ast.Name) and t.id not in imported]
        for _ in range(10):         # chains of aliases: a few rounds
            values = {}
            for name, value in assigns:
                values.setdefault(name, set()).add(
                    None if value is None else self.resolve(value))
            new = {name: v.pop() for name, v in values.items() if len(v) == 1 and None not in v}
            if all(self.aliases.get(k) == v for k, v in new.items()):
                break
            self.aliases.update(new)

    def resolve(self, node):
        """The TF chain (``"tf.keras.layers.Dense"``) that ``node`` spells, or None."""
        parts = _chain(node)
        if not parts or parts[0] not in self.aliases:
            return None
        return ".".join([self.aliases[parts[0]]] + parts[1:])

    def _import_uses(self, node):
        if isinstance(node, ast.Import):
            for a in node.names:
                root = _tf_module(a.name)
                if root is not None and root != "tf":
                    self.uses.append((root, node.lineno))
        elif not node.level and node.module:
            root = _tf_module(node.module)
            if root is not None:
                for a in node.names:
                    if a.name != "*":
                        self.uses.append((f"{root}.{a.name}", node.lineno))

    def _call_notes(self, node):
        full = self.resolve(node.func)
        if full is None:
            return
        if full == "tf.function" and any(k.arg == "jit_compile" for k in node.keywords):
            self.notes.append((node.lineno, "jit_compile"))
        last = full.rsplit(".", 1)[-1]
        if full.endswith("config.experimental.set_memory_growth"):
            self.notes.append((node.lineno, "memory_growth"))
        elif last in _GRAPH_MODE and (full.count(".") == 1 or full.startswith("tf.compat.v1.")):
            self.notes.append((node.lineno, "graph_mode"))

    def _function_notes(self, node):
        traced = False
        for d in node.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            if self.resolve(target) == "tf.function":
                traced = True
        if not traced:
            return
        for inner in ast.walk(node):
            if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                    and inner.func.attr == "numpy" and not inner.args):
                self.notes.append((inner.lineno, "numpy_in_function"))


def _tf_module(module):
    """The chain a module path imports (``tensorflow.keras`` -> ``tf.keras``), or None."""
    for prefix in sorted(_ROOTS, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return _ROOTS[prefix] + module[len(prefix):]
    return None


def _bound_names(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def _loads(tree, name):
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(tree))


_NOTES = {
    "graph_mode": "TF 1 graph-mode code (sessions, placeholders, variable scopes): "
                  "eagertape runs eager TF 2 programs only; rewrite it with eager ops and "
                  "tf.function (TF's migration guide, 'Migrate to TF2')",
    "memory_growth": "harmless: accepted for a GPU and a no-op (TF's ValueError for a "
                     "CPU); JAX preallocates GPU memory unless "
                     "XLA_PYTHON_CLIENT_PREALLOCATE=false is set before it starts",
    "numpy_in_function": ".numpy() inside a tf.function: a traced value has no value "
                         "while the function is traced, in TF as in eagertape; return "
                         "the value and read it outside, or use tf.print",
}


# -- resolving the names --------------------------------------------------------------
def _resolve(chain):
    """``(status, reason)`` of one chain against ``eagertape.tf``."""
    import eagertape.tf as etf
    obj, parts = etf, chain.split(".")[1:]
    for k, part in enumerate(parts):
        try:
            obj = getattr(obj, part)
        except AttributeError as e:
            msg = str(e)
            if _LEFT_OUT in msg:
                return "left_out", msg.split(_LEFT_OUT, 1)[1]
            if parts[0] == "keras" and _NOT_YET not in msg:
                where = "tf." + ".".join(parts[:k])
                return "unknown", (f"Keras 3 (tf.keras since TF 2.16) has no "
                                   f"{'.'.join(['tf'] + parts[:k + 1])} ({where} has no "
                                   f"attribute {part!r}): a typo, or Keras 2 only")
            # The facade's hint for a name not written yet (what to use meanwhile).
            return "missing", (msg.split(_NOT_YET + "; ", 1)[1] if _NOT_YET + "; " in msg
                               else None)
        except Exception as e:      # noqa: BLE001 (any failure is reported, not raised)
            if parts[0] == "keras" and k == 0:
                # tf.keras without Keras installed, or Keras on another backend.
                return "not_checked", f"tf.keras could not be loaded: {e}"
            where = "tf." + ".".join(parts[:k + 1])
            return "not_checked", f"looking up {where} raised {type(e).__name__}: {e}"
    return "resolved", None


_TF_LOOKUP = r"""
import json, os, sys
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf
def has(mod, parts):
    for p in parts:
        try:
            mod = getattr(mod, p)
        except Exception:
            return False
    return True
out = {}
for chain in json.load(sys.stdin):
    parts = chain.split(".")[1:]
    out[chain] = ("tf2" if has(tf, parts) else
                  "tf1" if has(tf.compat.v1, parts) else None)
print(json.dumps({"version": tf.__version__, "found": out}))
"""


def tf_lookup(chains, timeout=300):
    """Which of ``chains`` (``"tf.reduce_sum"``, ...) an installed TensorFlow has:
    ``({chain: "tf2" | "tf1" | None}, version)``, asked of TensorFlow in a process of
    its own; ``(None, None)`` where TensorFlow is not installed.

    >>> from eagertape.port_check import tf_lookup
    >>> tf_lookup([])
    ({}, None)
    """
    import importlib.util
    chains = sorted(set(chains))
    if not chains or importlib.util.find_spec("tensorflow") is None:
        return ({}, None) if not chains else (None, None)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("KERAS_BACKEND", None)
    r = subprocess.run([sys.executable, "-c", _TF_LOOKUP], input=json.dumps(chains),
                       capture_output=True, text=True, timeout=timeout, env=env)
    if r.returncode:
        return None, None
    answer = json.loads(r.stdout.strip().splitlines()[-1])
    return answer["found"], answer["version"]


def differences(chain):
    """The documented differences from TF (docs/differences.md) that ``chain``
    touches: ``[(line, anchor)]``.

    >>> from eagertape.port_check import differences
    >>> [(line[:30], anchor) for line, anchor in differences("tf.random.normal")]
    [('reproducible under a seed, but', 'random')]
    >>> differences("tf.reduce_sum")
    []
    """
    from eagertape.tf._differences import DIFFERENCES
    return [(line, anchor) for patterns, anchor, line in DIFFERENCES
            if any(fnmatch.fnmatchcase(chain, p) for p in patterns)]


# -- the check ------------------------------------------------------------------------
def _files(paths):
    out = []
    for path in paths:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"argument `paths`: an entry is a {type(path).__name__}; give "
                            "file or directory paths (str or os.PathLike)")
        path = os.fspath(path)
        if os.path.isdir(path):
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                                 and d != "__pycache__")
                out += [os.path.join(folder, f) for f in sorted(files)
                        if f.endswith((".py", ".ipynb"))]
        elif os.path.isfile(path):
            out.append(path)
        else:
            raise FileNotFoundError(f"argument `paths`: {path!r} is neither a file nor a "
                                    "directory; give Python files, notebooks or folders")
    return out


def check(paths, tensorflow="auto"):
    """Read the programs at ``paths`` (files: ``.py`` or ``.ipynb``; directories:
    every such file below) and resolve their TF names; returns a dict (the JSON of
    ``--json``):

    - ``summary``: ``files``, ``names`` (distinct chains), and one count per status
      (``resolved``, ``left_out``, ``missing``, ``unknown``, ``not_checked``);
    - ``names``: ``{chain: {"status", "reason", "where": [{"file", "line"[, "cell"]}],
      "differences": [{"line", "anchor"}]}}``;
    - ``files``: ``{file: {"names": n, <status>: count, ...}}`` (or ``"error"``; a
      notebook's cells that are not Python are listed in ``"cells_skipped"``);
    - ``attention``: ``[{"file", "line"[, "cell"], "kind", "note"}]``;
    - ``tensorflow``: the TensorFlow asked about names eagertape lacks, or None.

    ``tensorflow``: "auto" asks an installed TensorFlow (in a process of its own)
    whether it has the names eagertape lacks; "none" does not ask.

    >>> import os, tempfile
    >>> from eagertape.port_check import check
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "prog.py")
    >>> with open(path, "w") as f:
    ...     _ = f.write("import tensorflow as tf\\nx = tf.reduce_sum([1.0])\\n"
    ...                 "converter = tf.tpu.XLAOptions\\n")
    >>> result = check([path], tensorflow="none")
    >>> result["summary"]["names"], result["summary"]["resolved"], result["summary"]["left_out"]
    (2, 1, 1)
    >>> result["names"]["tf.tpu.XLAOptions"]["reason"][:40]
    "TF's TPU runtime API; JAX runs on TPUs i"
    """
    if tensorflow not in ("auto", "none"):
        raise ValueError(f"argument `tensorflow`: {tensorflow!r}; give 'auto' (ask an "
                         "installed TensorFlow about the names eagertape lacks) or 'none'")
    names, files, attention = {}, {}, []
    for path in _files(paths):
        try:
            sources = _sources(path)
            # A notebook's cells share one namespace: read as one module, each cell's
            # lines shifted past the previous cells', and mapped back after.
            body, starts, offset, skipped = [], [], 0, []
            with warnings.catch_warnings():     # the program's own (invalid escapes, ...)
                warnings.simplefilter("ignore")
                for src, cell in sources:
                    try:
                        tree = ast.parse(src)
                    except SyntaxError as e:
                        if cell is None:
                            raise
                        # One notebook cell that is not Python (a shell cell, a fragment
                        # meant to be indented) does not stop the others being read.
                        skipped.append({"cell": cell, "error": f"SyntaxError: {e}"})
                        continue
                    ast.increment_lineno(tree, offset)
                    body += tree.body
                    starts.append((offset, cell))
                    offset += src.count("\n") + 1
            reader = _Reader(ast.Module(body=body, type_ignores=[])).read()
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError) as e:
            files[path] = {"error": f"{type(e).__name__}: {e}"}
            continue
        def at(line):
            first, cell = [(o, c) for o, c in starts if o < line][-1]
            return {"file": path, "line": line - first} if cell is None else \
                {"file": path, "line": line - first, "cell": cell}
        used = set()
        for chain, line in sorted(reader.uses, key=lambda u: u[1]):
            where = at(line)
            entry = names.setdefault(chain, {"where": []})
            if where not in entry["where"]:
                entry["where"].append(where)
            used.add(chain)
        for line, kind in reader.notes:
            item = {**at(line), "kind": kind}
            if kind in _NOTES:
                item["note"] = _NOTES[kind]
            else:       # a documented difference: its line and anchor
                item["note"], item["anchor"] = _anchored()[kind]
            attention.append(item)
        files[path] = {"used": used}
        if skipped:
            files[path]["cells_skipped"] = skipped
        if reader.assumed_tf:
            files[path]["assumed_tf"] = True
    for chain, entry in names.items():
        entry["status"], entry["reason"] = _resolve(chain)
        # Only a name the program can use here meets a difference in how it runs.
        entry["differences"] = [{"line": line, "anchor": anchor}
                                for line, anchor in differences(chain)
                                if entry["status"] == "resolved"]
    lacking = [c for c, e in names.items() if e["status"] == "missing"]
    found, version = tf_lookup(lacking) if tensorflow == "auto" else (None, None)
    for chain in lacking:
        entry = names[chain]
        has = found.get(chain, "tf2") if found is not None else None
        hint = f"; meanwhile {entry['reason']}" if entry["reason"] else ""
        if found is None:
            entry["reason"] = ("TensorFlow was not asked whether it has it" if tensorflow ==
                               "none" else "TensorFlow is not installed here to say whether "
                               "it has it") + hint
        elif has == "tf2":
            entry["reason"] = f"TensorFlow {version} has it{hint}"
        else:
            entry["status"] = "unknown"
            v1 = "tf.compat.v1." + chain.split(".", 1)[1]
            entry["reason"] = (f"TF 1 only: TensorFlow {version} has it as {v1} (graph-mode "
                               "TF 1 API); port it to TF 2" if has == "tf1" else
                               f"TensorFlow {version} has no such name: a typo?")
    for path, row in files.items():
        if "error" in row:
            continue
        used = row.pop("used")
        row["names"] = len(used)
        for status in STATUSES:
            row[status] = sum(names[c]["status"] == status for c in used)
    summary = {"files": len(files), "names": len(names)}
    for status in STATUSES:
        summary[status] = sum(e["status"] == status for e in names.values())
    summary["unreadable"] = sum("error" in row for row in files.values())
    return {"summary": summary, "names": dict(sorted(names.items())), "files": files,
            "attention": attention,
            "tensorflow": version if found is not None and lacking else None}


def _anchored():
    from eagertape.tf._differences import ANCHORS
    return ANCHORS


# -- the report -----------------------------------------------------------------------
_TITLES = {"left_out": "left out of eagertape", "missing": "not in eagertape yet",
           "unknown": "unknown to TensorFlow", "not_checked": "not checked"}


def _where(items):
    by_file = {}
    for w in items:
        at = f"cell {w['cell']} line {w['line']}" if "cell" in w else str(w["line"])
        by_file.setdefault(w["file"], []).append(at)
    return "; ".join(f"{f}: {', '.join(ats)}" for f, ats in by_file.items())


def summary_line(result):
    """The report's first line: the counts over all files.

    >>> from eagertape.port_check import summary_line
    >>> summary_line({"summary": {"files": 1, "names": 3, "resolved": 2, "left_out": 1,
    ...               "missing": 0, "unknown": 0, "not_checked": 0, "unreadable": 0}})
    '1 file, 3 names: 2 resolved, 1 left out, 0 missing, 0 unknown'
    """
    s = result["summary"]
    text = (f"{s['files']} file{'s' * (s['files'] != 1)}, {s['names']} names: "
            f"{s['resolved']} resolved, {s['left_out']} left out, {s['missing']} missing, "
            f"{s['unknown']} unknown")
    if s["not_checked"]:
        text += f", {s['not_checked']} not checked"
    if s["unreadable"]:
        text += f"; {s['unreadable']} file{'s' * (s['unreadable'] != 1)} unreadable"
    return text


def report(result, out=print, docs=None):
    """Print ``check``'s result for a person: the summary line, then the names that
    do not resolve (grouped by name, with where they occur), the documented
    differences touched, the patterns that need attention and a line per file.
    ``docs``: where docs/differences.md is linked from (default: the repository's).

    >>> import os, tempfile
    >>> from eagertape.port_check import check, report
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "prog.py"), "w") as f:
    ...     _ = f.write("import tensorflow as tf\\nconverter = tf.tpu.XLAOptions\\n")
    >>> report(check([folder], tensorflow="none"))      # doctest: +ELLIPSIS
    1 file, 1 names: 0 resolved, 1 left out, 0 missing, 0 unknown
    <BLANKLINE>
    left out of eagertape (1):
      tf.tpu.XLAOptions: .../prog.py: 2
        why: TF's TPU runtime API; JAX runs on TPUs itself: ...
    <BLANKLINE>
    per file:
      .../prog.py: 1 names, 0 resolved, 1 left out
    """
    import textwrap
    docs = docs or "https://github.com/eagertape/eagertape/blob/main/docs/differences.md"
    wrap = lambda text, indent: textwrap.fill(  # noqa: E731
        text, 100, initial_indent=indent, subsequent_indent=indent + "  ",
        break_long_words=False, break_on_hyphens=False)     # paths stay whole
    out(summary_line(result))
    for status in ("left_out", "missing", "unknown", "not_checked"):
        rows = {c: e for c, e in result["names"].items() if e["status"] == status}
        if not rows:
            continue
        out("")
        title = _TITLES[status]
        if status == "missing" and result.get("tensorflow"):
            title += f" (TensorFlow {result['tensorflow']} has them)"
        out(f"{title} ({len(rows)}):")
        if status == "left_out":
            # The facade gives one reason for a family (tf.tpu.*): said once.
            by_reason = {}
            for chain, e in rows.items():
                by_reason.setdefault(e["reason"], []).append(chain)
            for reason, chains in by_reason.items():
                for chain in chains:
                    out(wrap(f"{chain}: {_where(rows[chain]['where'])}", "  "))
                out(wrap(f"why: {reason}", "    "))
            continue
        for chain, e in rows.items():
            out(wrap(f"{chain}: {e['reason']}" if e["reason"] else chain, "  "))
            out(wrap(_where(e["where"]), "    "))
    touched = {}
    for chain, e in result["names"].items():
        for d in e["differences"]:
            touched.setdefault((d["anchor"], d["line"]), []).append(chain)
    if touched:
        out("")
        out(f"documented differences from TensorFlow touched ({len(touched)}; {docs}):")
        for (anchor, line), chains in touched.items():
            out(wrap(f"#{anchor}: {line}", "  "))
            out(wrap("by " + ", ".join(chains), "    "))
    if result["attention"]:
        out("")
        out("to look at:")
        for a in sorted(result["attention"],
                        key=lambda a: (a["file"], a.get("cell", 0), a["line"])):
            at = f"cell {a['cell']} line {a['line']}" if "cell" in a else str(a["line"])
            more = f" ({docs}#{a['anchor']})" if "anchor" in a else ""
            out(wrap(f"{a['file']}:{at}: {a['note']}{more}", "  "))
    assumed = [p for p, row in result["files"].items() if row.get("assumed_tf")]
    out("")
    if assumed:
        out(wrap(f"{len(assumed)} of the files use `tf` without importing it: it is taken "
                 "as TensorFlow", ""))
    out("per file:")
    for path, row in result["files"].items():
        if "error" in row:
            out(wrap(f"{path}: not read ({row['error']})", "  "))
            continue
        counts = ", ".join(f"{row[s]} {s.replace('_', ' ')}" for s in STATUSES
                           if row[s] or s == "resolved")
        skipped = "".join(f"; cell {c['cell']} not read ({c['error']})"
                          for c in row.get("cells_skipped", ()))
        out(wrap(f"{path}: {row['names']} names, {counts}{skipped}", "  "))


def main(argv=None, prog="python -m eagertape port-check"):
    """The command line: ``port-check [--json] [--tensorflow {auto,none}] PATH...``;
    prints the report and returns the exit status (0: every name resolves; 1: some
    do not, or a file could not be read; 2: a bad command line).

    >>> import os, tempfile
    >>> from eagertape.port_check import main
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "prog.py"), "w") as f:
    ...     _ = f.write("import tensorflow as tf\\nprint(tf.reduce_sum([1.0, 2.0]))\\n")
    >>> main([folder, "--tensorflow", "none"])      # doctest: +ELLIPSIS
    1 file, 1 names: 1 resolved, 0 left out, 0 missing, 0 unknown
    ...
    0
    """
    import argparse
    parser = argparse.ArgumentParser(
        prog=prog, description="Which of a TensorFlow program's names eagertape has, "
        "which are left out and why, and the documented differences it touches; read "
        "statically (the program is neither imported nor run). Exit status: 0 when "
        "every name resolves, 1 otherwise, 2 for a bad command line.")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="Python files, notebooks (.ipynb) or directories (searched "
                             "recursively)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--tensorflow", choices=("auto", "none"), default="auto",
                        help="auto (default): ask an installed TensorFlow, in a process of "
                             "its own, whether it has the names eagertape lacks; none: "
                             "do not ask")
    args = parser.parse_args(argv)
    try:
        result = check(args.paths, tensorflow=args.tensorflow)
    except FileNotFoundError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        report(result)
    s = result["summary"]
    return 0 if s["resolved"] == s["names"] and not s["unreadable"] else 1
