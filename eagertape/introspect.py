"""A look inside eagertape: its caches, a tape's record, pending values, and this
thread's state.

For white-box tests, benchmarks and notebooks that show how the tape works.
The objects returned are eagertape's own, to be read, not changed; their fields
are documented where they are defined (``TapeData`` in ``eagertape/_record.py``,
``ThreadState`` in ``eagertape/_state.py``, ``Graph`` in ``eagertape/_graph.py``)
and may change between versions.

>>> import eagertape as et
>>> from eagertape import introspect
>>> x = et.Variable([1.0, 2.0])
>>> with et.GradientTape(persistent=True) as tape:
...     y = x * x
...     z = y + 1.0
>>> len(introspect.recording(tape).ops)          # two recorded calls
2
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from . import _cache, _graph
from ._config import config
from ._graph import Pending
from ._state import ThreadState, local, switched

__all__ = ["cache_info", "clear_caches", "compiled_programs", "config", "is_pending",
           "pending_graph", "recording", "replay_policy", "thread_state"]

_POLICIES = ("auto", "compiled", "per_op")


def cache_info() -> dict[str, dict[str, int]]:
    """The counters of every cache, by name: ``size`` for each, and ``hits``,
    ``misses`` (compiles), ``deferred`` (first sights run uncompiled),
    ``untraceable`` and ``maxsize`` for the compiled ones ("replays", "fused
    programs", "pullbacks"); ``"fused graphs"``: how many pending graphs were made;
    ``"untraceable kinds"``: how many functions JAX could not trace, which run at
    once, uncompiled (each is also named once in a debug record on the
    ``eagertape`` logger).

    >>> import eagertape as et
    >>> from eagertape import introspect
    >>> introspect.clear_caches()
    >>> x = et.Variable(2.0)
    >>> for _ in range(3):
    ...     with et.GradientTape() as tape:
    ...         y = x * x
    ...     g = tape.gradient(y, x)
    >>> c = introspect.cache_info()["replays"]
    >>> c["misses"], c["hits"]                    # compiled once, then reused
    (1, 2)
    """
    out = _cache.info()
    out["fused graphs"] = {"made": _graph.graphs_made}
    return out


def clear_caches(*names: str) -> None:
    """Empty the caches named (every cache if none is named) and reset their
    counters; ``eagertape.clear_replay_cache()`` empties them all.

    >>> from eagertape import introspect
    >>> introspect.clear_caches("structure ids", "fused steps")
    >>> introspect.cache_info()["structure ids"]["size"]
    0
    """
    if not names:
        _cache.clear_all()
        return
    by_name = {c.name: c for c in _cache._registry}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ValueError(f"argument `names`: no cache is named {unknown[0]!r}; the caches are "
                         f"{sorted(by_name)}")
    for n in names:
        by_name[n].clear()


def compiled_programs(name: str) -> list:
    """The jitted programs a compile cache holds ("replays", "fused programs" or
    "pullbacks"), least recently used first.

    >>> import eagertape as et
    >>> from eagertape import introspect
    >>> introspect.clear_caches()
    >>> x = et.Variable(2.0)
    >>> with et.GradientTape() as tape:
    ...     y = x * x
    >>> g = tape.gradient(y, x)
    >>> len(introspect.compiled_programs("replays"))
    1
    """
    for c in _cache._registry:
        if c.name == name and isinstance(c, _cache.CompileCache):
            return c.compiled()
    names = sorted(c.name for c in _cache._registry if isinstance(c, _cache.CompileCache))
    raise ValueError(f"argument `name`: no compile cache is named {name!r}; they are {names}")


def recording(tape: Any) -> Any:
    """What ``tape`` has recorded (``_record.TapeData``: its ops, their wiring in
    slots, its structure id, ...), or None once a non-persistent tape was used.

    >>> import eagertape as et
    >>> from eagertape import introspect
    >>> x = et.constant(3.0)
    >>> with et.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = x * x
    >>> kind, objs, vals, outs, custom, name, where = introspect.recording(tape).ops[0]
    >>> kind.name, outs[0] is y
    ('multiply', True)
    >>> _ = tape.gradient(y, x)
    >>> print(introspect.recording(tape))
    None
    """
    return tape._tape


def is_pending(t: Any) -> bool:
    """Whether Tensor ``t`` holds a fused-mode value not computed yet; for a
    Variable, whether a fused-mode assignment to it is not computed yet (it is
    when the Variable is next read).

    >>> import eagertape as et
    >>> from eagertape import introspect
    >>> with et.execution_mode("fused"):
    ...     y = et.constant([1.0, 2.0]) * 2.0
    ...     print(introspect.is_pending(y))
    ...     _ = y.numpy()                        # needs the value: the graph runs
    ...     print(introspect.is_pending(y))
    True
    False
    """
    if hasattr(type(t), "_val"):               # a Variable (or an alias of one)
        v = t._of._store
        return type(v) is Pending and v.value is None
    v = t._v
    return type(v) is Pending and v.value is None


def pending_graph() -> Any:
    """This thread's open pending graph (fused mode: ``_graph.Graph``), or None.

    >>> import eagertape as et
    >>> from eagertape import introspect
    >>> with et.execution_mode("fused"):
    ...     y = et.constant([1.0, 2.0]) * 2.0
    ...     print(len(introspect.pending_graph().nodes))
    1
    """
    return local.state.graph


def thread_state() -> ThreadState:
    """This thread's state (``_state.ThreadState``): the tapes and accumulators
    recording, the function being traced, the execution mode, ...

    >>> import eagertape as et
    >>> from eagertape import introspect
    >>> with et.GradientTape() as tape:
    ...     print(introspect.thread_state().tapes == [tape])
    True
    >>> introspect.thread_state().tapes
    []
    """
    return local.state


@contextlib.contextmanager
def replay_policy(policy: str) -> Iterator[None]:
    """Replay gradients on this thread by ``policy``: ``"auto"`` (the default:
    compile a structure when it comes back), ``"compiled"`` (compile at once) or
    ``"per_op"`` (one pullback call per op, never compiled).

    >>> import eagertape as et
    >>> from eagertape import introspect
    >>> x = et.Variable(2.0)
    >>> with introspect.replay_policy("per_op"):
    ...     with et.GradientTape() as tape:
    ...         y = x * x
    ...     print(float(tape.gradient(y, x)))
    4.0
    """
    if policy not in _POLICIES:
        raise ValueError(f"argument `policy` must be one of {_POLICIES}, got {policy!r}")
    with switched(replay=policy):
        yield
