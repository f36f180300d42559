"""Every cache eagertape keeps: one bounding rule, one policy for compiling, one registry.

``Table``: a memo table (call kinds, abstract values, structure ids, device
scalars, ...). Lookups are a dict's ``get``; a table that is full drops its
oldest quarter. Losing an entry only costs recomputing it.

``CompileCache``: programs that are compiled when their structure comes back
(the compiled replays, fused programs, per-op pullbacks). Each entry is in one
of three named states, as tinygrad's TinyJit counts its calls:

=========== ==================================================================
state       meaning
=========== ==================================================================
SEEN        met once and run without compiling; compiled if it comes back
COMPILED    ``entry.fn`` is the jitted program
UNTRACEABLE tracing it failed where running it works: always run uncompiled
=========== ==================================================================

A hit stamps its entry, so a full compile cache drops its least recently
used quarter. ``clear_all`` empties every table and compile cache
(``eagertape.clear_replay_cache``); ``info`` gives their counters.
"""
import collections
import itertools
import threading

import jax

from . import _jax_private
from ._config import config

SEEN = "seen"
COMPILED = "compiled"
UNTRACEABLE = "untraceable"

_registry: list = []      # every Table and CompileCache, for clear_all and info


class Table(dict):
    """A bounded memo table: ``get`` as a dict; ``put`` drops the oldest quarter
    of the entries when the table is full."""

    __slots__ = ("name", "maxsize")

    def __init__(self, name, maxsize, register=True):
        super().__init__()
        self.name, self.maxsize = name, maxsize
        if register:
            _registry.append(self)

    def put(self, key, value):
        if len(self) >= self.maxsize and key not in self:
            self.evict()
        self[key] = value
        return value

    def evict(self):
        # A quarter at a time: the scan past deleted slots at the front of a
        # dict is paid once per maxsize / 4 insertions, not on every one.
        for k in list(itertools.islice(iter(self), max(1, self.maxsize // 4))):
            self.pop(k, None)

    def counters(self):
        return {"size": len(self)}


class Entry:
    """One program of a CompileCache: its state and, once COMPILED, the jitted
    program (``fn``; for an UNTRACEABLE entry, the function to run instead, if
    the caller gave one)."""

    __slots__ = ("state", "fn", "used")

    def __init__(self, state, fn=None):
        self.state, self.fn = state, fn
        self.used = 0


class _ByUse(Table):
    """A CompileCache's entries: a full table drops its least recently used
    quarter, by the stamp each hit leaves on its entry (moving the entry to the
    end instead would hash its key twice more; a fused program's key holds
    every ref of the step)."""

    __slots__ = ()

    def evict(self):
        items = sorted(self.items(), key=lambda kv: kv[1].used)
        for k, _ in items[:max(1, self.maxsize // 4)]:
            self.pop(k, None)


class CompileCache:
    """Programs keyed by structure, compiled when the structure comes back.

    ``get(key, make, now)``: the key's entry. A new key is compiled at once if
    ``now`` (``jax.jit(make())``), else it is SEEN and the caller runs it
    uncompiled; the next ``get`` of the key compiles it. A SEEN entry keeps
    nothing of the caller's (no values stay alive in the cache).

    ``churn``: compile a new structure at first sight unless structures are
    churning (at least ``config.churn`` of the last 16 structures met were new: a
    loop whose structure changes every step, a test suite, a notebook); a
    training loop then compiles at step 1, and a churning loop pays no compile
    for a structure it meets once.
    """

    def __init__(self, name, maxsize, churn=False):
        self.name = name
        self.entries = _ByUse(name, maxsize, register=False)   # cleared through this cache
        self._stamps = itertools.count(1)
        self.churn = collections.deque(maxlen=16) if churn else None
        self.hits = self.misses = self.deferred = self.untraceable = 0
        self._lock = threading.Lock()
        _registry.append(self)

    @property
    def maxsize(self):
        return self.entries.maxsize

    @maxsize.setter
    def maxsize(self, n):
        self.entries.maxsize = n
        while len(self.entries) > n:
            self.entries.evict()

    def get(self, key, make, now=False):
        entries = self.entries
        e = entries.get(key)
        churn = self.churn
        if e is not None:
            if e.state is COMPILED:
                self.hits += 1
                if churn is not None:
                    churn.append(False)
                e.used = next(self._stamps)     # the least recently used leave first
                return e
            if e.state is UNTRACEABLE:
                return e
            if churn is not None:
                churn.append(False)
            return self._compile(key, e, make)     # SEEN: it came back
        e = Entry(SEEN)
        if churn is not None:
            churn.append(True)
            now = now or sum(churn) < config.churn
        if not now:
            self.deferred += 1
            entries.put(key, e)
            return e
        return self._compile(key, e, make)

    def _compile(self, key, e, make):
        with self._lock:
            if e.state is SEEN:
                self.misses += 1
                share_programs()
                e.fn = jax.jit(make())       # keeps the function's attributes (by_dependence)
                e.state = COMPILED
                e.used = next(self._stamps)
                self.entries.put(key, e)
        return e

    def forget(self, key, e, fallback=None):
        """Tracing ``key``'s program failed: from now on its entry says so, and
        holds ``fallback`` (the function to run instead), if given."""
        e.state, e.fn = UNTRACEABLE, fallback
        self.untraceable += 1
        self.entries.put(key, e)

    def compiled(self):
        return [e.fn for e in list(self.entries.values()) if e.state is COMPILED]

    def counters(self):
        """``size``: programs held (compiled or untraceable); ``seen``: structures
        met once and not compiled (yet)."""
        seen = sum(1 for e in list(self.entries.values()) if e.state is SEEN)
        return {"hits": self.hits, "misses": self.misses, "deferred": self.deferred,
                "untraceable": self.untraceable, "size": len(self.entries) - seen,
                "seen": seen, "maxsize": self.entries.maxsize}

    def clear(self):
        self.entries.clear()
        if self.churn is not None:
            self.churn.clear()
        self.hits = self.misses = self.deferred = self.untraceable = 0


class Programs:
    """XLA executables by what determines them: a program identical to one compiled
    before in the process gets that executable, not a compile of its own.

    JAX keeps its compiled programs per traced function (and per setting such as
    x64): two call kinds of one computation (two Keras layers of one config, a
    model built again), a replay of a new structure id that computes what an
    earlier one does, or one function traced under both x64 settings compile the
    same module again. JAX's compile step is wrapped once
    (``share_identical_programs``) to look the module up first, keyed as JAX's
    persistent compilation cache keys it (the module without debug information,
    the compile options, the backend, XLA's flags), and by the devices it runs
    on. A program with host callbacks is never shared (the callbacks are the
    caller's); nothing is written to disk. ``hits``: compiles saved; ``misses``:
    programs compiled.
    """

    def __init__(self, name, maxsize):
        self.name = name
        self.entries = Table(name, maxsize, register=False)
        self.hits = self.misses = 0
        _registry.append(self)

    def compile(self, original, backend, computation, devices, compile_options, host_callbacks,
                *args, **kwargs):
        key = None
        if not host_callbacks and not any(a is not None for a in args[1:]) and not kwargs.get(
                "pgle_profiler"):
            try:
                key = (_jax_private.cache_key.get(computation, devices, compile_options, backend),
                       id(backend), tuple(d.id for d in devices.flat))
            except Exception:       # a module JAX cannot key: compiled as it is
                key = None
        if key is not None:
            e = self.entries.get(key)
            if e is not None:
                self.hits += 1
                return e
        e = original(backend, computation, devices, compile_options, host_callbacks, *args,
                     **kwargs)
        if key is not None:
            self.misses += 1
            self.entries.put(key, e)
        return e

    def counters(self):
        return {"hits": self.hits, "misses": self.misses, "size": len(self.entries),
                "maxsize": self.entries.maxsize}

    def clear(self):
        self.entries.clear()
        self.hits = self.misses = 0


programs = Programs("identical programs", 1024)


def share_identical_programs():
    """Wrap JAX's compile step once (``Programs``); returns the wrapper.

    >>> import jax, jax.numpy as jnp
    >>> from eagertape import _cache
    >>> _ = _cache.share_identical_programs()
    >>> before = _cache.programs.hits
    >>> x = jnp.ones(3)
    >>> y = jax.jit(lambda v: v * 3.0 + 1.0)(x)     # compiled
    >>> y = jax.jit(lambda v: v * 3.0 + 1.0)(x)     # another function: the same program
    >>> _cache.programs.hits - before
    1
    """
    global sharing
    compiler = _jax_private.compiler
    current = compiler.compile_or_get_cached
    sharing = True
    if getattr(current, "_eagertape_programs", False):
        return current

    def compile_or_get_cached(*args, **kwargs):
        return programs.compile(current, *args, **kwargs)
    compile_or_get_cached._eagertape_programs = True
    compiler.compile_or_get_cached = compile_or_get_cached
    return compile_or_get_cached


# Not at import (no side effects there): on eagertape's first compile request (a
# recorded call's kind, a replay, a tf.function), through ``share_programs``. From then
# on the wrapper serves the process's other jax.jit programs too: the same
# executables for the same modules, no result changed (docs/performance.md).
sharing = False


def share_programs():
    """``share_identical_programs`` once (a flag test after that)."""
    if not sharing:
        share_identical_programs()


def clear_all():
    """Empty every cache and reset every counter."""
    for c in _registry:
        c.clear()


def info():
    """``{name: counters}`` of every cache."""
    return {c.name: c.counters() for c in _registry}


def enable_compilation_cache(path=None):
    """Keep the programs XLA compiles on disk, so that the next process reads them
    back instead of compiling again: JAX's persistent compilation cache, switched on
    for every JAX program of this process (eagertape's and the user's), because
    the user asked. eagertape never switches it on by itself.

    ``path``: the folder (made if missing); by default ``eagertape/xla`` under
    ``$XDG_CACHE_HOME`` (``~/.cache``). Programs of any size and compile time are
    kept: eagertape's first step compiles many small ones (a kernel per op, then the
    step's replay), which JAX's default thresholds (compiles of a second or more)
    would leave out. Returns the folder. What it saves is measured in
    docs/performance.md ("The first step").

    >>> import jax, tempfile, eagertape as et
    >>> before = jax.config.jax_compilation_cache_dir
    >>> folder = et.enable_compilation_cache(tempfile.mkdtemp())
    >>> jax.config.jax_compilation_cache_dir == folder
    True
    >>> jax.config.update("jax_compilation_cache_dir", before)    # as it was
    """
    import os
    if path is None:
        root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = os.path.join(root, "eagertape", "xla")
    path = os.path.abspath(os.fspath(path))
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise ValueError(f"enable_compilation_cache: argument `path`: cannot make the folder "
                         f"({e.strerror}); give a folder this process can write") from None
    if not os.access(path, os.W_OK):
        raise ValueError("enable_compilation_cache: argument `path`: the folder is not "
                         "writable; give a folder this process can write")
    for name, value in (("jax_compilation_cache_dir", path),
                        ("jax_persistent_cache_min_compile_time_secs", 0),
                        ("jax_persistent_cache_min_entry_size_bytes", 0)):
        jax.config.update(name, value)
    # JAX opens its cache at its first compile: one opened before this call (another
    # folder, or none) is reopened at the new one.
    from jax.experimental.compilation_cache import compilation_cache
    compilation_cache.reset_cache()
    return path
