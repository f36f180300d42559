"""A bounded LRU shared by the compiled caches (replays, pullbacks, fused programs)."""
import collections
import threading


class Cache:
    """A bounded LRU with hit/miss counters."""

    def __init__(self, maxsize):
        self.maxsize = maxsize
        self.hits = self.misses = self.deferred = 0
        self._d = collections.OrderedDict()
        self._lock = threading.Lock()

    def lookup(self, key):
        # No lock: the GIL makes each OrderedDict call atomic, and a hit is the
        # common case (every step of a training loop).
        fn = self._d.get(key)
        if fn is not None:
            try:
                self._d.move_to_end(key)
            except KeyError:          # evicted meanwhile by another thread
                pass
        return fn

    def put(self, key, value):
        with self._lock:
            self._d[key] = value
            self._d.move_to_end(key)
            while len(self._d) > self.maxsize:
                self._d.popitem(last=False)

    def pop(self, key):
        with self._lock:
            return self._d.pop(key, None)

    def clear(self):
        with self._lock:
            self._d.clear()
            self.hits = self.misses = self.deferred = 0

    def values(self):
        with self._lock:
            return list(self._d.values())

    def __contains__(self, key):
        return key in self._d

    def __len__(self):
        return len(self._d)
