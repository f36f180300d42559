"""``Dataset.snapshot``'s files, and the fingerprint of a pipeline that names them.

TF names a snapshot's folder by a hash of the input dataset's graph, so a later run
of the same program finds the elements an earlier one wrote. eagertape's pipelines
are Python closures, not a graph: ``fingerprint`` hashes what a closure is made of
(code, the values it captures, the globals its code names, arrays by their bytes),
which the same program rebuilds alike in a new process. Where it meets an object it
cannot describe by value (an open file, a model's internals past a size), the
fingerprint is one of this process only: the snapshot is written again by the next
process rather than read from another pipeline's files.

The files are eagertape's own (TF's reader cannot read them, nor eagertape TF's):
``PATH/<fingerprint>/<run>/<shard>.shard`` streams of records (the element as
``_iterator_state.encode`` gives it: JSON and one blob of bytes, no pickle), and
``PATH/<fingerprint>/eagertape-snapshot.json``, written last, only by a complete
pass: a folder without it is an unfinished run, which no pass trusts.

>>> import os, tempfile
>>> import numpy as np
>>> from eagertape.tf._snapshot import Writer, finished, read_shard, shard_files
>>> folder = tempfile.mkdtemp()
>>> w = Writer(folder, "")
>>> w.write(0, (np.arange(3), np.array(b"a", object)))
>>> w.finish(); w.close()
>>> meta = finished(folder)
>>> [e[0].tolist() for e in read_shard(shard_files(folder, meta)[0][1], meta["compression"])]
[[0, 1, 2]]
"""
import gzip
import hashlib
import json
import os
import re
import struct
import types
import uuid

import numpy as np

from . import _iterator_state as _state
from .errors import InvalidArgumentError

_FORMAT = "eagertape-snapshot-1"
_META = "eagertape-snapshot.json"
_HEADER = struct.Struct("<QQ")
_BUDGET = 50_000          # objects a fingerprint walks before it gives up on one


def compression(value):
    """The codec of argument ``compression``: "GZIP", or "" (uncompressed)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"argument `compression` must be a string ('AUTO', 'GZIP', 'SNAPPY' "
                        f"or 'NONE') or None, got {type(value).__name__}")
    kind = value.upper()
    if kind not in ("", "AUTO", "GZIP", "SNAPPY", "NONE"):
        raise InvalidArgumentError(f"argument `compression`: {value!r} is not one of 'AUTO', "
                                   "'GZIP', 'SNAPPY', 'NONE'")
    # Python's standard library has no Snappy codec: AUTO and SNAPPY are written plain.
    return "GZIP" if kind == "GZIP" else ""


# -- the fingerprint ----------------------------------------------------------------

class _Unkeyable(Exception):
    pass


def _code_names(code, acc):
    acc.extend(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _code_names(c, acc)
    return acc


def fingerprint(obj, special):
    """A hex digest of ``obj`` by value, the same in every process that builds it
    alike; ``special`` maps a type to the parts of it that say what it computes (a
    dataset's recipe, not its caches). None where ``obj`` holds something that has no
    description by value."""
    h = hashlib.sha256()
    seen, keep, count = {}, [], [0]

    def feed(*tokens):
        for t in tokens:
            h.update(repr(t).encode("utf-8", "backslashreplace"))
            h.update(b"\x00")

    def code(c):
        feed("code", c.co_code, c.co_names, c.co_varnames, c.co_freevars, c.co_argcount)
        for k in c.co_consts:
            code(k) if isinstance(k, types.CodeType) else walk(k)

    def walk(x):
        count[0] += 1
        if count[0] > _BUDGET:
            raise _Unkeyable
        if x is None or isinstance(x, (bool, int, float, complex, str, bytes)):
            feed(type(x).__name__, x)
            return
        if id(x) in seen:
            feed("ref", seen[id(x)])
            return
        seen[id(x)] = len(seen)
        keep.append(x)          # (its id stays its own while the walk lasts)
        for t in type(x).__mro__:
            if t in special:
                feed("special", t.__qualname__)
                walk(special[t](x))
                return
        if isinstance(x, (np.ndarray, np.generic)):
            a = np.asarray(x)
            feed("array", a.dtype.str, a.shape)
            if a.dtype.kind == "O":
                for v in a.reshape(-1).tolist():
                    walk(v)
            else:
                h.update(np.ascontiguousarray(a).tobytes())
        elif isinstance(x, (tuple, list)):
            feed(type(x).__qualname__, len(x))
            for v in x:
                walk(v)
        elif isinstance(x, dict):
            feed("dict", len(x))
            for k, v in x.items():
                walk(k)
                walk(v)
        elif isinstance(x, (set, frozenset)):
            parts = sorted(fingerprint(v, special) or "" for v in x)
            if "" in parts:
                raise _Unkeyable
            feed("set", parts)
        elif isinstance(x, types.FunctionType):
            feed("function", x.__qualname__)
            code(x.__code__)
            walk(x.__defaults__)
            walk(x.__kwdefaults__)
            for cell in x.__closure__ or ():
                try:
                    walk(cell.cell_contents)
                except ValueError:          # a cell not filled yet
                    feed("empty cell")
            names = x.__globals__
            for n in _code_names(x.__code__, []):
                if n in names:
                    feed("global", n)
                    walk(names[n])
        elif isinstance(x, types.CodeType):
            code(x)
        elif isinstance(x, types.MethodType):
            walk(x.__func__)
            walk(x.__self__)
        elif isinstance(x, (types.ModuleType, type)):
            feed(type(x).__name__, getattr(x, "__module__", ""), getattr(x, "__qualname__",
                                                                        x.__name__))
        elif isinstance(x, (types.BuiltinFunctionType, np.ufunc)):
            feed("builtin", getattr(x, "__module__", ""), getattr(x, "__qualname__", x.__name__))
            owner = getattr(x, "__self__", None)
            if owner is not None and not isinstance(owner, types.ModuleType):
                walk(owner)
        elif hasattr(x, "func") and hasattr(x, "args") and hasattr(x, "keywords"):
            feed("partial")                     # functools.partial
            walk(x.func)
            walk(x.args)
            walk(x.keywords)
        elif callable(getattr(x, "python_function", None)):
            walk(x.python_function)             # a tf.function: the Python it traces
        elif isinstance(x, (np.dtype, slice, range, type(Ellipsis))):
            feed(type(x).__name__, repr(x))
        elif isinstance(x, re.Pattern):          # (a CSV reader's delimiters)
            feed("pattern", x.pattern, x.flags)
        elif hasattr(x, "__array__"):           # Tensors and Variables: their values
            try:
                a = np.asarray(x)
            except Exception:
                raise _Unkeyable from None
            walk(a)
        elif hasattr(x, "__dict__") or hasattr(type(x), "__slots__"):
            t = type(x)
            feed("object", t.__module__, t.__qualname__)
            attrs = dict(getattr(x, "__dict__", {}))
            for cls in t.__mro__:
                for s in getattr(cls, "__slots__", ()):
                    if hasattr(x, s):
                        attrs.setdefault(s, getattr(x, s))
            if not attrs and t.__repr__ is object.__repr__:
                raise _Unkeyable                # only an address would say which one
            walk(attrs)
        else:
            raise _Unkeyable

    try:
        walk(obj)
    except (_Unkeyable, RecursionError):
        return None
    return h.hexdigest()[:32]


# -- the files --------------------------------------------------------------------

def finished(folder):
    """The metadata of a complete snapshot in ``folder``, or None."""
    try:
        with open(os.path.join(folder, _META), encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return None
    if meta.get("format") != _FORMAT or not os.path.isdir(os.path.join(folder, meta["run"])):
        return None
    return meta


def shard_files(folder, meta):
    """``[(shard id, file)]`` of a complete snapshot, by shard id."""
    run = os.path.join(folder, meta["run"])
    return [(int(s), os.path.join(run, f"{int(s):08d}.shard")) for s in sorted(meta["shards"])]


def _open(path, kind, mode):
    return gzip.open(path, mode, compresslevel=6) if kind == "GZIP" else open(path, mode)


class Writer:
    """A pass writing a snapshot: a run folder of its own, made at the first element;
    ``finish`` (the pass complete) writes the metadata that makes it the snapshot."""

    def __init__(self, folder, kind):
        self.folder, self.kind, self.files, self.count = folder, kind, {}, 0
        self.run = uuid.uuid4().hex

    def write(self, shard, element):
        f = self.files.get(shard)
        if f is None:
            run = os.path.join(self.folder, self.run)
            os.makedirs(run, exist_ok=True)
            f = self.files[shard] = _open(os.path.join(run, f"{shard:08d}.shard"),
                                          self.kind, "wb")
        try:
            tree, blob = _state.encode(element)
        except TypeError as e:
            raise TypeError(f"Dataset.snapshot: element {self.count} cannot be written: "
                            f"{e}".replace("in an iterator's state", "in a snapshot")) from None
        text = json.dumps(tree).encode("utf-8")
        blob = np.asarray(blob, np.uint8).tobytes()
        f.write(_HEADER.pack(len(text), len(blob)))
        f.write(text)
        f.write(blob)
        self.count += 1

    def finish(self):
        self.close()
        os.makedirs(os.path.join(self.folder, self.run), exist_ok=True)
        meta = {"format": _FORMAT, "run": self.run, "compression": self.kind,
                "elements": self.count, "shards": sorted(self.files)}
        tmp = os.path.join(self.folder, f".{self.run}.json")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(meta, f)
        os.replace(tmp, os.path.join(self.folder, _META))

    def close(self):
        for f in self.files.values():
            f.close()


def read_shard(path, kind):
    """The elements of one shard file, in the order they were written."""
    with _open(path, kind, "rb") as f:
        while True:
            head = f.read(_HEADER.size)
            if not head:
                return
            if len(head) != _HEADER.size:
                raise InvalidArgumentError(f"Dataset.snapshot: {path} is truncated")
            n_text, n_blob = _HEADER.unpack(head)
            text, blob = f.read(n_text), f.read(n_blob)
            if len(text) != n_text or len(blob) != n_blob:
                raise InvalidArgumentError(f"Dataset.snapshot: {path} is truncated")
            yield _state.decode(json.loads(text), np.frombuffer(blob, np.uint8))
