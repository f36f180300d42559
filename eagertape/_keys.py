"""Structure ids: a structure built one step at a time, named by one int.

Compiled programs are cached by structure (a tape's ops and their wiring, a
pending graph's calls). Hashing and comparing such a key costs time in its
length at every lookup; instead a structure gets an id as it is built:
``step((sid, item))`` looks the pair up in one table (one small tuple's hash), so
at gradient time the key is one int.

Ids are never reused, so an id names one structure for the life of the
process. The table is bounded: clearing it only means that a structure met
again gets a new id (a cache miss, never a wrong hit).
"""
import itertools

from ._cache import Table

EMPTY = 0                 # the id of the empty structure
LONGEST = 4096            # longer structures are never compiled: they get no id (None)
MAX_ENTRIES = 100_000     # about 25 MB of small tuples at most

# (structure id, item) -> (id of the structure extended by item, the shared item)
_table = Table("structure ids", MAX_ENTRIES)
_ids = itertools.count(1)


def step(key):
    """``(id, item)``: the id of structure ``key[0]`` extended by ``key[1]``, and
    one shared copy of ``key[1]``, so that a structure built again keeps no
    tuples of its own (a tape's entries, ``_record.record``)."""
    e = _table.get(key)
    if e is None:
        # Two threads may both miss on one key: the structure then has two ids,
        # which costs a cache miss and nothing else.
        e = _table.put(key, (next(_ids), key[1]))
    return e


def clear():
    """Forget every structure (the tests' way to check that a miss is only a miss)."""
    _table.clear()


def new_id():
    """A fresh id, for tables that map their own keys to ids (``_fused._steps``)."""
    return next(_ids)
