"""The TF oracle: a program run in real TensorFlow once, its outcome normalised by
one set of rules, cached, and compared with eagertape's by one function.

A *program* is a callable that takes the TensorFlow module as its first argument
(``program(tf, *args, **kwargs)``), so the same code runs through ``tensorflow``
and through ``eagertape.tf``::

    import tf_oracle
    got = tf_oracle.check(lambda tf: tf.reduce_sum(tf.ones([2, 3])))   # asserts
    tf_oracle.assert_same(tf_oracle.run(etf, program), tf_oracle.tf_outcome(program),
                          rtol=1e-4, atol=1e-5, errors="class")

What runs TF, and when
    ``tf_outcome`` runs a program in TensorFlow at most once per process (both
    execution modes and both replays of a test reuse it) and keeps its outcome
    on disk, so a second run of the suite on the same machine does not run TF
    where nothing changed; TensorFlow is imported only on a miss. The key is a
    SHA-256 of: the TensorFlow, Keras and NumPy versions (``importlib.metadata``),
    the Python version, this file, a few environment variables TF reads, and the
    program's fingerprint: its source text and bytecode, the source of the
    test-suite functions, classes and tables it references (``co_names`` followed
    through its globals, recursively, nested code objects included), its closure
    cells and defaults (a lambda made in a loop or a table gets a key per captured
    value), and its arguments (arrays by dtype, shape and bytes). Something whose
    only description is an address (a generator, an open file, an object with the
    default ``repr``) makes the program *unkeyable*: its outcome is then kept in
    memory for the identical program object only, and never on disk. Code of
    eagertape itself is keyed by a digest of the package's sources.

    ``cached(kind, parts, compute)`` is the same cache for callers whose TF side is
    not an in-process program (a TF subprocess, a fuzzer's worker).

The disk cache
    ``$EAGERTAPE_TEST_CACHE/tf-oracle``, else ``$XDG_CACHE_HOME`` or
    ``~/.cache`` + ``/eagertape-tests/tf-oracle``; never inside the checkout. One
    file per outcome, written to a temporary file and renamed (``os.replace``), so
    pytest-xdist workers can share it; an entry that cannot be read is a miss.

    ``EAGERTAPE_TF_ORACLE=off``      no disk cache (in-process only)
    ``EAGERTAPE_TF_ORACLE=refresh``  run TF again and overwrite what is on disk
    ``EAGERTAPE_TF_ORACLE_STATS=DIR``  each process writes its counters there
    ``python tests/tf_oracle.py clear``  deletes the cache; ``... info`` shows it;
    ``... stats DIR`` sums the counters (TF runs, memory and disk hits)

Normalised outcomes
    ``Outcome.value`` is a tree of tagged tuples, the same for both libraries:
    ``None``; ``("py", type, value)`` Python scalars and strings; ``("t", dtype,
    shape, array)`` tensors, variables, NumPy arrays and scalars (IndexedSlices made
    dense); ``("shape", dims)``; ``("dtype", name)``; ``("list", items)``,
    ``("tuple", items)``, ``("nt", name, fields, items)`` (namedtuples),
    ``("dict", type, [(key, value), ...])`` in order; ``("obj", type)`` anything
    else. A raised exception is ``Outcome.error``: its family (``family``), class
    name, module, message and the names of its classes.

Comparison
    ``assert_same(got, want)``: the same structure (container kinds and lengths,
    namedtuple names and fields, dict types and keys; their order too with
    ``dict_order``), None where TF has None, dtypes, shapes, values (floats and
    complex within ``rtol``/``atol``; integers, booleans and strings exactly unless
    ``int_atol``), Python scalars of the same type and value, and raised errors
    compared by family (``errors=`` ``"family"``, ``"class"`` or ``"name"``, or
    several). The message names the path where they differ (``result[1]['k'].x``).
    ``check(program, *args, **options)`` runs eagertape's side and asserts it.
"""
import atexit
import builtins
import collections.abc
import functools
import hashlib
import importlib.metadata
import importlib.util
import inspect
import json
import os
import pickle
import re
import sys
import tempfile
import types

import numpy as np

FORMAT = 1
_TAG = "eagertape-tf-oracle"

STATS = {"tf_runs": 0, "memory_hits": 0, "disk_hits": 0, "disk_writes": 0, "unkeyable": 0,
         "calls": 0}


# -- TensorFlow, imported only when needed -----------------------------------------

def have_tensorflow():
    return importlib.util.find_spec("tensorflow") is not None


def tensorflow():
    """The real ``tensorflow`` module (imported now), or the calling test skipped."""
    import pytest
    return pytest.importorskip("tensorflow", reason="needs tensorflow (optional: pip install "
                                                    "tensorflow-cpu), not installed")


class _LazyTF:
    """``tensorflow``, imported at its first attribute access: a test module holds it
    at import time without importing TF (a warm run may need no TF at all)."""

    def __getattr__(self, name):
        if name.startswith("_"):    # pytest's collection looks for markers: no import
            raise AttributeError(name)
        return getattr(tensorflow(), name)

    def __repr__(self):
        return "<TensorFlow, imported on first use>"


tf = _LazyTF()


def require(what="tensorflow"):
    """Skip the calling test module (at import) or test where ``what`` is not
    installed, without importing it. Returns the lazy ``tf`` for TensorFlow."""
    if importlib.util.find_spec(what) is None:
        import pytest
        package = {"tensorflow": "tensorflow-cpu"}.get(what, what)
        pytest.skip(f"needs {what} (optional: pip install {package}), not installed",
                    allow_module_level=True)
    return tf if what == "tensorflow" else None


# -- versions and where the cache is -----------------------------------------------

@functools.lru_cache(None)
def _version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


@functools.lru_cache(None)
def tf_version():
    """The installed TensorFlow's version, from its distribution's metadata (no import):
    ``tensorflow``, ``tensorflow-cpu`` or whichever distribution provides the module."""
    if importlib.util.find_spec("tensorflow") is None:
        return None
    for dist in ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-intel",
                 "tensorflow-macos", "tf-nightly", "tf-nightly-cpu"):
        if _version(dist):
            return f"{dist} {_version(dist)}"
    dists = importlib.metadata.packages_distributions().get("tensorflow") or []
    for dist in dists:
        if _version(dist):
            return f"{dist} {_version(dist)}"
    return "tensorflow " + tensorflow().__version__     # no metadata: ask the module


def cache_dir():
    root = os.environ.get("EAGERTAPE_TEST_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "eagertape-tests")
    return os.path.join(root, "tf-oracle")


def _setting():
    return os.environ.get("EAGERTAPE_TF_ORACLE", "on").strip().lower()


def disk_enabled():
    return _setting() not in ("off", "0", "no", "false", "disabled")


@functools.lru_cache(None)
def _file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@functools.lru_cache(None)
def _package_digest(package_dir):
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(package_dir)):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(".py"):
                h.update(name.encode())
                h.update(_file_digest(os.path.join(dirpath, name)).encode())
    return h.hexdigest()


def environment_key():
    """What every key holds besides the program: what TF would compute with."""
    return (("format", FORMAT), ("tensorflow", tf_version()), ("keras", _version("keras")),
            ("numpy", np.__version__), ("python", sys.version.split()[0]),
            ("oracle", _file_digest(os.path.abspath(__file__))),
            ("env", tuple((k, os.environ.get(k)) for k in (
                "TF_ENABLE_ONEDNN_OPTS", "TF_DETERMINISTIC_OPS", "CUDA_VISIBLE_DEVICES",
                "TF_USE_LEGACY_KERAS", "KERAS_HOME"))))


# -- fingerprints: what a program's outcome may depend on ---------------------------

class Unkeyable(Exception):
    """The program refers to something with no stable description."""


_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+|object at |<.* at 0x")
_SCALARS = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis))


@functools.lru_cache(None)
def _installed_roots():
    import site
    import sysconfig
    roots = {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots |= set(getattr(site, "getsitepackages", lambda: [])())
    roots.add(getattr(site, "getusersitepackages", lambda: None)())
    return tuple(os.path.abspath(r) + os.sep for r in roots if r)


def _is_local(module_name):
    """A module of the test suite or another not installed one (a helper module of
    a test): its functions and classes are keyed by their source. Installed ones
    (the standard library, site-packages) are keyed by name and version."""
    mod = sys.modules.get(module_name)
    path = getattr(mod, "__file__", None)
    if module_name == "__main__" and path is None:
        return True
    if not path:
        return False
    path = os.path.abspath(path)
    return not path.startswith(_installed_roots()) and not any(
        part in ("site-packages", "dist-packages") for part in path.split(os.sep))


def _eagertape_digest():
    """eagertape's sources, as imported (the checkout, or an installed wheel)."""
    import eagertape
    return _package_digest(os.path.dirname(os.path.abspath(eagertape.__file__)))


def _is_eagertape(module_name):
    return module_name == "eagertape" or (module_name or "").startswith("eagertape.")


def _external(module_name):
    top = (module_name or "").split(".")[0]
    mod = sys.modules.get(top)
    return (module_name, _version(top) or getattr(mod, "__version__", None))


@functools.lru_cache(4096)
def _source(code):
    try:
        return inspect.getsource(code)
    except (OSError, TypeError, IndexError):
        return None


def _code_names(code, acc=None):
    acc = set() if acc is None else acc
    acc.update(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _code_names(c, acc)
    return acc


def _const(c):
    if isinstance(c, types.CodeType):
        return _fp_code(c)
    if isinstance(c, frozenset):
        return ("frozenset", tuple(sorted(repr(_const(x)) for x in c)))
    if isinstance(c, tuple):
        return ("tuple",) + tuple(_const(x) for x in c)
    return (type(c).__name__, repr(c))


@functools.lru_cache(4096)
def _fp_code(code):
    return ("code", code.co_code, tuple(_const(c) for c in code.co_consts), code.co_names,
            code.co_varnames, code.co_freevars, code.co_cellvars, code.co_argcount,
            code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags)


def _fp_function(f, seen):
    if "__oracle_key__" in f.__dict__:
        # A function that names its own key (tests/program_server.py's run: its state,
        # a lock and live servers, is not what a program computes)
        return ("keyed", f.__module__, f.__qualname__, f.__dict__["__oracle_key__"])
    code = f.__code__
    if id(f) in seen:
        return ("fn-again", f.__qualname__, _fp_code(code))
    seen.add(id(f))
    module = getattr(f, "__module__", None)
    if _is_eagertape(module):
        return ("eagertape", module, f.__qualname__, _eagertape_digest())
    if not _is_local(module) and module is not None and not module.startswith(
            ("namedtuple_", "<")):
        return ("extfn", _external(module), f.__qualname__)
    closure = []
    for cell in f.__closure__ or ():
        try:
            closure.append(_fp(cell.cell_contents, seen))
        except ValueError:
            closure.append(("empty-cell",))
    g = f.__globals__
    names = _code_names(code)
    refs = []
    for name in sorted(names):
        if name in g:
            value = g[name]
            refs.append((name, _fp(value, seen)))
            if isinstance(value, types.ModuleType) and _is_local(value.__name__):
                # tf_compare.weighted: the attributes the code names, of a suite module
                for attr in sorted(names):
                    if attr in value.__dict__ and attr != name:
                        refs.append((f"{name}.{attr}", _fp(value.__dict__[attr], seen)))
    return ("fn", _source(code), _fp_code(code), tuple(closure), tuple(refs),
            _fp(f.__defaults__, seen), _fp(f.__kwdefaults__, seen))


def _fp_class(cls, seen):
    if id(cls) in seen:
        return ("class-again", cls.__qualname__)
    seen.add(id(cls))
    module = cls.__module__
    if _is_eagertape(module):
        return ("eagertape", module, cls.__qualname__, _eagertape_digest())
    if not _is_local(module):
        return ("extclass", _external(module), cls.__qualname__)
    body = []
    for k, v in cls.__dict__.items():
        if k in ("__dict__", "__weakref__", "__module__"):
            continue
        body.append((k, _fp(v, seen)))
    return ("class", cls.__qualname__, tuple(_fp(b, seen) for b in cls.__bases__), tuple(body))


def _fp(x, seen=None):
    """A description of ``x`` that changes whenever what a program computes with it
    could change; ``Unkeyable`` where there is none."""
    seen = set() if seen is None else seen
    if isinstance(x, _SCALARS):
        return (type(x).__name__, repr(x))
    if isinstance(type(x), type) and issubclass(type(x), _LazyTF):
        return ("module", "tensorflow", tf_version())
    if isinstance(x, np.ndarray):
        if x.dtype.hasobject:
            return ("ndarray-obj", x.shape, _fp(x.tolist(), seen))
        return ("ndarray", x.dtype.str, x.shape,
                hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest())
    if isinstance(x, np.generic):
        return ("npscalar", x.dtype.str, repr(x.item()))
    if isinstance(x, np.dtype):
        return ("npdtype", x.str, x.name)
    if len(seen) > 100000:
        raise Unkeyable("too large to fingerprint")
    if isinstance(x, (list, tuple, set, frozenset, dict, collections.abc.Mapping)):
        if id(x) in seen:
            raise Unkeyable("a container that holds itself")
        seen.add(id(x))
        try:
            kind = _fp_class(type(x), seen) if type(x) not in (list, tuple, dict, set, frozenset) \
                else type(x).__name__
            if isinstance(x, (set, frozenset)):
                return (kind, tuple(sorted(repr(_fp(v, seen)) for v in x)))
            if isinstance(x, collections.abc.Mapping):
                extra = _fp(x.default_factory, seen) if hasattr(x, "default_factory") else None
                return (kind, extra, tuple((_fp(k, seen), _fp(v, seen)) for k, v in x.items()))
            return (kind, tuple(_fp(v, seen) for v in x))
        finally:
            seen.discard(id(x))
    if isinstance(x, types.FunctionType):
        return _fp_function(x, seen)
    if isinstance(x, types.MethodType):
        return ("method", _fp(x.__self__, seen), _fp(x.__func__, seen))
    if isinstance(x, functools.partial):
        return ("partial", _fp(x.func, seen), _fp(x.args, seen), _fp(x.keywords, seen))
    if isinstance(x, (staticmethod, classmethod)):
        return (type(x).__name__, _fp(x.__func__, seen))
    if isinstance(x, property):
        return ("property", _fp(x.fget, seen), _fp(x.fset, seen), _fp(x.fdel, seen))
    if isinstance(x, types.ModuleType):
        if _is_eagertape(x.__name__):
            return ("eagertape-module", x.__name__, _eagertape_digest())
        if _is_local(x.__name__):
            return ("suite-module", x.__name__)     # its attributes: by name, from the code
        return ("module", _external(x.__name__))
    if isinstance(x, type):
        return _fp_class(x, seen)
    if isinstance(x, types.CodeType):
        return _fp_code(x)
    if isinstance(x, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        owner = getattr(x, "__self__", None)
        if owner is None or isinstance(owner, (types.ModuleType, type)):
            return ("builtin", getattr(owner, "__name__", None) or getattr(x, "__module__", None),
                    x.__qualname__)
        return ("bound-builtin", _fp(owner, seen), x.__name__)
    if hasattr(x, "numpy") and hasattr(x, "dtype") and hasattr(x, "shape"):
        try:
            return ("tensor", type(x).__name__, _fp(np.asarray(x.numpy()), seen))
        except Exception:   # noqa: BLE001  (a symbolic tensor: no value)
            raise Unkeyable(f"a {type(x).__name__} without a value") from None
    if type(x).__name__ == "TensorShape":
        return ("shape", repr(x))
    if _is_local(type(x).__module__) and hasattr(x, "__dict__") and \
            type(x).__repr__ is object.__repr__:
        if id(x) in seen:
            raise Unkeyable("an object that holds itself")
        seen.add(id(x))
        return ("instance", _fp(type(x), seen), _fp(vars(x), seen))
    r = repr(x)
    if _ADDRESS.search(r):
        raise Unkeyable(f"{type(x).__qualname__}: {r[:80]}")
    return ("repr", type(x).__module__, type(x).__qualname__, r)


def _digest(material):
    return hashlib.sha256(repr((_TAG, environment_key(), material)).encode()).hexdigest()


def key(program, *args, **kwargs):
    """The disk key of ``program(tf, *args, **kwargs)``'s outcome (hex), or None
    where the program cannot be keyed reliably."""
    try:
        return _digest(("program", _fp(program), _fp(args), _fp(kwargs)))
    except (Unkeyable, RecursionError):
        return None


# -- outcomes --------------------------------------------------------------------

_FAMILIES = (LookupError, RuntimeError, ValueError, TypeError, AttributeError)


def family(e):
    """The family an error is compared by. A builtin family where the class has one;
    TF's op errors (InvalidArgumentError, OutOfRangeError, ...) derive from no builtin
    class while eagertape's derive from one, so every op error (an ``OpError``
    subclass) is named by its own class, and any ``*InvalidArgument*Error`` is
    InvalidArgumentError."""
    cls = type(e)
    name = cls.__name__
    mro = [c.__name__ for c in cls.__mro__]
    if "InvalidArgumentError" in mro or (name.endswith("Error") and "InvalidArgument" in name):
        return "InvalidArgumentError"
    if "OpError" in mro:
        return name
    for base in _FAMILIES:
        if isinstance(e, base):
            return base.__name__
    return name


class ErrorInfo(tuple):
    """A raised exception, as much of it as is kept: (family, name, module, message,
    the ``module.qualname`` of each class of its MRO)."""
    __slots__ = ()

    def __new__(cls, family, name, module, message, mro):
        return tuple.__new__(cls, (family, name, module, message, tuple(mro)))

    family = property(lambda self: self[0])
    name = property(lambda self: self[1])
    module = property(lambda self: self[2])
    message = property(lambda self: self[3])
    mro = property(lambda self: self[4])

    @classmethod
    def of(cls, e):
        return cls(family(e), type(e).__name__, type(e).__module__, str(e)[:20000],
                   [f"{c.__module__}.{c.__qualname__}" for c in type(e).__mro__])

    def is_a(self, cls_or_name):
        """Whether the exception was an instance of the class: a class, "module.Name",
        or a bare class name ("ValueError", "InvalidArgumentError": any module's)."""
        if isinstance(cls_or_name, tuple):
            return any(self.is_a(c) for c in cls_or_name)
        if isinstance(cls_or_name, type):
            cls_or_name = f"{cls_or_name.__module__}.{cls_or_name.__qualname__}"
        if "." not in cls_or_name:
            return any(m.rsplit(".", 1)[-1] == cls_or_name for m in self.mro)
        return cls_or_name in self.mro

    def __repr__(self):
        return f"{self.name}: {self.message[:300]}"


class Outcome:
    """What a program did: returned ``value`` (a normalised tree) or raised
    ``error`` (an ``ErrorInfo``). Where the program ran in this process (eagertape's
    runs; not TF's, which may come from the disk cache) ``raw`` is what it returned
    and ``exc`` the exception itself."""
    __slots__ = ("value", "error", "exc", "raw")

    def __init__(self, value=None, error=None, exc=None, raw=None):
        self.value, self.error, self.exc, self.raw = value, error, exc, raw

    @property
    def raised(self):
        return self.error is not None

    @property
    def family(self):
        return None if self.error is None else self.error.family

    def plain(self):
        """The value as Python and NumPy objects (tensors as arrays)."""
        if self.raised:
            raise AssertionError(f"the program raised {self.error!r}")
        return plain(self.value)

    def _state(self):
        return ("raises", tuple(self.error)) if self.raised else ("ok", self.value)

    @classmethod
    def _from_state(cls, state):
        kind, body = state
        if kind == "raises":
            return cls(error=ErrorInfo(*body))
        if kind == "ok":
            return cls(value=_freeze(body))
        raise ValueError(kind)

    def __repr__(self):
        return f"Outcome(raises {self.error!r})" if self.raised else \
            f"Outcome(returns {summary(self.value)})"


def _freeze(tree):
    if isinstance(tree, tuple) and tree and tree[0] == "t":
        tree[3].setflags(write=False)
    elif isinstance(tree, tuple) and tree and tree[0] in ("list", "tuple", "nt"):
        for v in tree[-1]:
            _freeze(v)
    elif isinstance(tree, tuple) and tree and tree[0] == "dict":
        for _, v in tree[2]:
            _freeze(v)
    return tree


def _dict_key(k):
    if isinstance(k, _SCALARS) and not isinstance(k, type(Ellipsis)):
        return k
    if isinstance(k, tuple) and all(isinstance(x, _SCALARS) for x in k):
        return k
    return repr(k)


def _array(a):
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return ("t", a.dtype.name, tuple(a.shape), a)


def _dense(x):
    """IndexedSlices as the dense tensor they stand for (as TF's convert_to_tensor)."""
    values = np.asarray(x.values.numpy() if hasattr(x.values, "numpy") else x.values)
    indices = np.asarray(x.indices.numpy() if hasattr(x.indices, "numpy") else x.indices)
    shape = x.dense_shape
    shape = np.asarray(shape.numpy() if hasattr(shape, "numpy") else shape).tolist()
    out = np.zeros(shape, values.dtype)
    np.add.at(out, indices, values)
    return out


def normalise(x, _depth=0):
    """One library's result as a tree both libraries' results can be compared on."""
    if _depth > 60:
        return ("obj", "too deep")
    rec = functools.partial(normalise, _depth=_depth + 1)
    if x is None:
        return None
    if isinstance(x, (np.ndarray, np.generic)):
        return _array(x)
    if isinstance(x, (bool, int, float, complex, str, bytes)):
        return ("py", type(x).__name__, x)
    if isinstance(type(x), type) and issubclass(type(x), _LazyTF):
        return ("obj", "module")
    name = type(x).__name__
    kinds = {c.__name__ for c in type(x).__mro__}     # TF's and eagertape's alike
    if "TensorShape" in kinds:
        return ("shape", None if x.rank is None else tuple(x.as_list()))
    if "DType" in kinds or isinstance(x, np.dtype):
        return ("dtype", x.name)
    if "IndexedSlices" in kinds and getattr(x, "dense_shape", None) is not None:
        return _array(_dense(x))
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ("nt", name, tuple(x._fields), [rec(v) for v in x])
    if isinstance(x, tuple):
        return ("tuple", [rec(v) for v in x])
    if isinstance(x, list):
        return ("list", [rec(v) for v in x])
    if isinstance(x, collections.abc.Mapping):
        return ("dict", name, [(_dict_key(k), rec(v)) for k, v in x.items()])
    if hasattr(x, "numpy") and hasattr(x, "dtype") and hasattr(x, "shape"):
        return _array(np.asarray(x.numpy()))
    return ("obj", name)


def plain(tree):
    if tree is None:
        return None
    tag = tree[0]
    if tag == "py":
        return tree[2]
    if tag == "t":
        return tree[3]
    if tag in ("shape", "dtype"):
        return tree[1]
    if tag == "list":
        return [plain(v) for v in tree[1]]
    if tag == "tuple":
        return tuple(plain(v) for v in tree[1])
    if tag == "nt":
        return collections.namedtuple(tree[1], tree[2])(*[plain(v) for v in tree[3]])
    if tag == "dict":
        return {k: plain(v) for k, v in tree[2]}
    return tree


def run(lib, program, *args, **kwargs):
    """Run ``program(lib, *args, **kwargs)`` here, now: its Outcome."""
    try:
        value = program(lib, *args, **kwargs)
    except Exception as e:  # noqa: BLE001  (the outcome of the program, whatever it is)
        return Outcome(error=ErrorInfo.of(e), exc=e)
    return Outcome(value=normalise(value), raw=value)


# -- the cache -----------------------------------------------------------------------

_memory = {}          # digest -> Outcome state (or a cached() value)
_by_identity = {}     # (id(program), ids of args) -> (refs, Outcome), unkeyable programs
_NOT_KEPT = ("MemoryError", "RecursionError", "KeyboardInterrupt", "ResourceExhaustedError")


def _path(digest):
    return os.path.join(cache_dir(), digest[:2], digest + ".pkl")


def _load(digest):
    if not disk_enabled() or _setting() == "refresh":
        return None
    try:
        with open(_path(digest), "rb") as f:
            tag, fmt, d, payload = pickle.load(f)
        if (tag, fmt, d) != (_TAG, FORMAT, digest):
            return None
        return payload
    except Exception:   # noqa: BLE001  (missing, partial, corrupt or foreign: a miss)
        return None


def _store(digest, payload):
    if not disk_enabled():
        return
    path = _path(digest)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-", suffix=".pkl")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump((_TAG, FORMAT, digest, payload), f, protocol=4)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        _count("disk_writes")
    except OSError:
        pass        # a read-only or full disk: the in-process cache still serves


def cache_key(kind, parts):
    """The digest ``cached`` keeps ``(kind, parts)``'s value under; ``Unkeyable``
    where there is none (``cached`` then computes on every call)."""
    return _digest((kind, _fp(parts)))


def cached(kind, parts, compute, keep=lambda value: True):
    """``compute()``'s value (picklable), computed once for ``(kind, parts)`` and kept
    in memory and on disk. ``parts`` is fingerprinted as programs are (strings,
    functions, arrays, ...); ``keep(value)`` False: not kept (a crash, a timeout)."""
    _count("calls")
    try:
        digest = cache_key(kind, parts)
    except (Unkeyable, RecursionError):
        _count("unkeyable")
        return compute()
    if digest in _memory:
        _count("memory_hits")
        return _memory[digest]
    payload = _load(digest)
    if payload is not None and payload[0] == "value":
        _count("disk_hits")
        _memory[digest] = payload[1]
        return payload[1]
    _count("tf_runs")
    value = compute()
    if keep(value):
        _memory[digest] = value
        _store(digest, ("value", value))
    return value


def text_program(kind, code, tf_module, folder):
    """A program given as text, TF 2 code on the name ``tf`` that appends JSON-able
    values to a list ``out`` (TF 1 sessions, checkpoint files: what a function of
    ``tf`` run by ``check`` cannot hold): ``(tf's out, tf_module's out)``. TF runs it
    once, in a process of its own in an empty folder, kept under ``kind``
    (``("failed", its stderr's tail)`` where it failed); ``tf_module`` (the facade) runs
    it here, in ``folder``."""
    source = "import tensorflow as tf\n" + code + "\nprint('@@' + json.dumps(out))\n"

    def run():
        import subprocess
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                               cwd=d, env=dict(os.environ, CUDA_VISIBLE_DEVICES="",
                                               TF_CPP_MIN_LOG_LEVEL="3"), timeout=600)
        lines = [ln for ln in r.stdout.splitlines() if ln.startswith("@@")]
        return json.loads(lines[-1][2:]) if lines else ("failed", r.stderr[-3000:])
    want = cached(kind, (source,), run,
                  keep=lambda v: not (isinstance(v, tuple) and v[0] == "failed"))
    assert not (isinstance(want, tuple) and want[0] == "failed"), want
    cwd = os.getcwd()
    try:
        os.chdir(folder)
        scope = {"tf": tf_module}
        exec(compile(code, f"<{kind}>", "exec"), scope)
    finally:
        os.chdir(cwd)
    return want, json.loads(json.dumps(scope["out"]))


def tf_keras_text(kind, program, name):
    """``name(tf)``'s value (a literal: its repr is read back) for ``program``, the text
    of a module defining the function ``name``, run with TF's own Keras: once, in a
    process of its own (Keras has one backend a process), kept under ``kind``."""
    def compute():
        import subprocess
        env = dict(os.environ)
        env.pop("KERAS_BACKEND", None)
        env["TF_CPP_MIN_LOG_LEVEL"] = "3"
        code = program + f"\nimport tensorflow as tf\nprint(repr({name}(tf)))\n"
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env)
        assert p.returncode == 0, p.stderr[-3000:]
        return p.stdout.strip().splitlines()[-1]
    return eval(cached(kind, [program, name], compute))


def assert_same_json(got, want, where=""):
    """``got`` is ``want``: lists and dicts alike in length, keys and their order, floats
    within 1e-6 relative, everything else equal."""
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (where, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same_json(g, w, f"{where}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), (where, got, want)
        for k in want:
            assert_same_json(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, float):
        assert isinstance(got, (int, float)) and np.isclose(got, want, rtol=1e-6), \
            (where, got, want)
    else:
        assert got == want, (where, got, want)


def tf_outcome(program, *args, **kwargs):
    """``program(tf, *args, **kwargs)``'s Outcome in real TensorFlow: run at most once
    per process, and read from disk where an earlier run kept it (module docstring).
    Skips the calling test where TensorFlow is not installed."""
    _count("calls")
    if tf_version() is None:
        tensorflow()    # skips
    digest = key(program, *args, **kwargs)
    if digest is None:
        _count("unkeyable")
        ident = (id(program),) + tuple(id(a) for a in args) + \
            tuple((k, id(v)) for k, v in sorted(kwargs.items()))
        hit = _by_identity.get(ident)
        if hit is not None:
            _count("memory_hits")
            return hit[1]
    elif digest in _memory:
        _count("memory_hits")
        return Outcome._from_state(_memory[digest])
    else:
        payload = _load(digest)
        if payload is not None and payload[0] == "outcome":
            try:
                out = Outcome._from_state(payload[1])
            except Exception:   # noqa: BLE001  (an entry of another shape: a miss)
                out = None
            if out is not None:
                _count("disk_hits")
                _memory[digest] = payload[1]
                return out
    _count("tf_runs")
    out = run(tensorflow(), program, *args, **kwargs)
    out = Outcome(out.value, out.error)     # TF's exception object is not kept
    if out.raised and out.error.name in _NOT_KEPT:
        return out
    if digest is None:
        _by_identity[ident] = ((program, args, kwargs), out)
    else:
        _memory[digest] = out._state()
        _store(digest, ("outcome", out._state()))
    return out


def clear(memory=True, disk=True):
    """Forget every outcome (in this process, and on disk)."""
    if memory:
        _memory.clear()
        _by_identity.clear()
    if disk:
        import shutil
        shutil.rmtree(cache_dir(), ignore_errors=True)


def _count(what):
    STATS[what] += 1
    if what != "calls" and os.environ.get("EAGERTAPE_TF_ORACLE_STATS"):
        _write_stats()


def _write_stats():
    """``$EAGERTAPE_TF_ORACLE_STATS/<pid>.json``: this process's counters, written at
    each outcome (an xdist worker may end without running ``atexit``)."""
    folder = os.environ.get("EAGERTAPE_TF_ORACLE_STATS")
    if folder and STATS["calls"]:
        try:
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, f"{os.getpid()}.json")
            with open(path + ".tmp", "w") as f:
                json.dump(dict(STATS, pid=os.getpid()), f)
            os.replace(path + ".tmp", path)
        except OSError:
            pass


def stats_summary(folder):
    """The counters of every process that wrote to ``folder``, summed."""
    total = dict.fromkeys(STATS, 0)
    for name in os.listdir(folder):
        if name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                for k, v in json.load(f).items():
                    if k in total:
                        total[k] += v
    return total


atexit.register(_write_stats)


# -- comparison ----------------------------------------------------------------------

def summary(tree, limit=6):
    """A short text of a normalised tree, for messages."""
    if tree is None:
        return "None"
    tag = tree[0]
    if tag == "py":
        return f"{tree[1]} {tree[2]!r}"[:120]
    if tag == "t":
        flat = tree[3].ravel()
        vals = ", ".join(str(v) for v in flat[:limit].tolist())
        return f"{tree[1]}{list(tree[2])} [{vals}{', ...' if flat.size > limit else ''}]"
    if tag in ("shape", "dtype", "obj"):
        return f"{tag} {tree[1]}"
    if tag in ("list", "tuple"):
        return f"{tag} of {len(tree[1])}"
    if tag == "nt":
        return f"{tree[1]}{tree[2]}"
    if tag == "dict":
        return f"{tree[1]} with keys {[k for k, _ in tree[2]]}"
    return repr(tree)[:120]


def _kind(tree):
    return "None" if tree is None else tree[0]


def _errors_agree(got, want, modes, where):
    g, w = got.error, want.error
    if "family" in modes:
        assert g.family == w.family, \
            f"{where}: TF raised {w.name} (family {w.family}): {w.message[:300]}\n" \
            f"eagertape raised {g.name} (family {g.family}): {g.message[:300]}"
    if "name" in modes:
        assert g.name == w.name, f"{where}: TF raised {w.name}: {w.message[:300]}\n" \
                                 f"eagertape raised {g.name}: {g.message[:300]}"
    if "class" in modes:
        # TF's tf.errors.X is eagertape.tf.errors.X; a builtin is itself
        if w.module.startswith(("tensorflow", "eagertape")):
            import eagertape.tf as etf
            cls = getattr(etf.errors, w.name, None)
            ok = cls is not None and (isinstance(got.exc, cls) if got.exc is not None
                                      else g.is_a(cls))
        else:
            cls = getattr(builtins, w.name, None)
            ok = cls is not None and (isinstance(got.exc, cls) if got.exc is not None
                                      else g.is_a(w.name))
        assert ok, f"{where}: TF raised {w.name}: {w.message[:300]}\n" \
                   f"eagertape raised {g.name}, not a {w.name}: {g.message[:300]}"


def assert_same(got, want, *, rtol=1e-5, atol=1e-6, int_atol=0, errors="family",
                values=True, scale_atol=False, none_as_zeros=False, dict_order=False,
                where="result"):
    """Assert that eagertape's outcome ``got`` is TF's ``want`` (Outcomes, or trees
    from ``normalise``). ``rtol``/``atol``: floats and complex; ``int_atol``:
    integers; ``scale_atol``: atol times max(1, |largest of TF's entries|) of each
    tensor (float32 sums' absolute errors scale so); ``values=False``: dtypes, shapes
    and structure only; ``none_as_zeros``: where TF gives None eagertape may give
    zeros; ``dict_order``: a dict's keys in TF's order too (else the same keys);
    ``errors``: "family", "class" (eagertape's error is an instance of TF's
    class, ``tf.errors.X`` as ``eagertape.tf.errors.X``), "name" (the same class
    name), or a tuple of them."""
    modes = (errors,) if isinstance(errors, str) else tuple(errors)
    if isinstance(want, Outcome) or isinstance(got, Outcome):
        assert isinstance(want, Outcome) and isinstance(got, Outcome), \
            "compare an Outcome with an Outcome"
        if want.raised and got.raised:
            _errors_agree(got, want, modes, where)
            return
        if want.raised:
            raise AssertionError(f"{where}: TF raised {want.error!r}\n"
                                 f"eagertape returned {summary(got.value)}")
        if got.raised:
            raise AssertionError(f"{where}: TF returned {summary(want.value)}\n"
                                 f"eagertape raised {got.error!r}") from got.exc
        got, want = got.value, want.value
    _compare(got, want, where, dict(rtol=rtol, atol=atol, int_atol=int_atol, values=values,
                                    scale_atol=scale_atol, none_as_zeros=none_as_zeros,
                                    dict_order=dict_order))


def _compare(g, w, where, o):
    kg, kw = _kind(g), _kind(w)
    if kw == "None" or kg == "None":
        if kg == kw:
            return
        if o["none_as_zeros"] and kw == "None" and kg == "t" and not np.any(g[3]):
            return
        raise AssertionError(f"{where}: TF {summary(w)}, eagertape {summary(g)}")
    if kg != kw:
        raise AssertionError(f"{where}: TF {summary(w)}, eagertape {summary(g)}")
    if kw == "py":
        assert g[1] == w[1], f"{where}: TF Python {w[1]} {w[2]!r}, eagertape {g[1]} {g[2]!r}"
        same = g[2] == w[2] or (isinstance(w[2], float) and w[2] != w[2] and g[2] != g[2])
        assert not o["values"] or same, f"{where}: TF {w[2]!r}, eagertape {g[2]!r}"
    elif kw == "t":
        assert g[1] == w[1], f"{where}: dtype: TF {w[1]}, eagertape {g[1]}"
        assert g[2] == w[2], f"{where}: shape: TF {list(w[2])}, eagertape {list(g[2])}"
        if o["values"]:
            _values(g[3], w[3], where, o)
    elif kw in ("shape", "dtype", "obj"):
        assert g[1] == w[1], f"{where}: TF {summary(w)}, eagertape {summary(g)}"
    elif kw in ("list", "tuple"):
        assert len(g[1]) == len(w[1]), \
            f"{where}: TF {kw} of {len(w[1])}, eagertape {kw} of {len(g[1])}"
        for i, (u, v) in enumerate(zip(g[1], w[1])):
            _compare(u, v, f"{where}[{i}]", o)
    elif kw == "nt":
        assert g[1:3] == w[1:3] and len(g[3]) == len(w[3]), \
            f"{where}: TF {w[1]}{w[2]}, eagertape {g[1]}{g[2]}"
        for field, u, v in zip(w[2], g[3], w[3]):
            _compare(u, v, f"{where}.{field}", o)
    elif kw == "dict":
        assert g[1] == w[1], f"{where}: TF a {w[1]}, eagertape a {g[1]}"
        gk, wk = [k for k, _ in g[2]], [k for k, _ in w[2]]
        if o["dict_order"]:
            assert gk == wk, f"{where}: keys in order: TF {wk}, eagertape {gk}"
        else:
            assert len(gk) == len(wk) and set(gk) == set(wk), \
                f"{where}: keys: TF {sorted(map(repr, wk))}, eagertape {sorted(map(repr, gk))}"
        gd = dict(g[2])
        for k, v in w[2]:
            _compare(gd[k], v, f"{where}[{k!r}]", o)
    else:
        raise AssertionError(f"{where}: cannot compare {summary(w)}")


def _values(g, w, where, o):
    kind = w.dtype.kind
    if kind in "fc" or w.dtype.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        big = np.complex128 if kind == "c" else np.float64
        gv, wv = g.astype(big), w.astype(big)
        atol = o["atol"]
        if o["scale_atol"] and wv.size:
            finite = np.abs(wv[np.isfinite(wv)])
            atol *= max(1.0, float(finite.max(initial=0.0)))
        np.testing.assert_allclose(gv, wv, rtol=o["rtol"], atol=atol, equal_nan=True,
                                   err_msg=f"{where} (TF is 'desired', eagertape 'actual')")
    elif kind in "iub" and o["int_atol"]:
        np.testing.assert_allclose(g.astype(np.int64), w.astype(np.int64), rtol=0,
                                   atol=o["int_atol"], err_msg=where)
    elif kind in "iub":
        np.testing.assert_array_equal(g, w, err_msg=where)
    else:
        assert g.tolist() == w.tolist(), f"{where}: TF {w.tolist()!r}, eagertape {g.tolist()!r}"


def check(program, *args, lib=None, tf_raises=None, **compare):
    """Run ``program`` through eagertape.tf (or ``lib``) here and through TF (cached),
    and ``assert_same`` them with ``compare``'s options. ``tf_raises``: True or
    False asserts that TF's run raised, or returned. Returns eagertape's Outcome."""
    want = tf_outcome(program, *args)
    if tf_raises is not None:
        did = f"raised {want.error!r}" if want.raised else f"returned {summary(want.value)}"
        assert want.raised == tf_raises, \
            f"TF {did}; this check expects it to {'raise' if tf_raises else 'return'}"
    if lib is None:
        import eagertape.tf as lib
    got = run(lib, program, *args)
    assert_same(got, want, **compare)
    return got


def _main(argv):
    cmd = argv[0] if argv else "info"
    if cmd == "clear":
        clear()
        print(f"cleared {cache_dir()}")
    elif cmd == "info":
        n = size = 0
        for dirpath, _, files in os.walk(cache_dir()):
            for name in files:
                n += 1
                size += os.path.getsize(os.path.join(dirpath, name))
        print(f"{cache_dir()}: {n} outcomes, {size / 1e6:.1f} MB; disk cache "
              f"{'on' if disk_enabled() else 'off'}; TensorFlow {tf_version()}")
    elif cmd == "stats" and len(argv) == 2:
        print(json.dumps(stats_summary(argv[1])))
    else:
        print("usage: python tests/tf_oracle.py [info|clear|stats DIR]")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
