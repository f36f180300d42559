"""``tf.data``: TensorFlow's input pipelines, as lazy Python iterators over NumPy.

A ``Dataset`` is a recipe: each ``iter(dataset)`` runs it afresh (so a
``shuffle`` reshuffles every epoch, as in TF), element by element, on the host.
Elements are nests (tuples, namedtuples, dicts) of NumPy arrays inside the
pipeline and eagertape Tensors when they come out of it, as TF's come out as
EagerTensors. ``map``, ``filter`` and the other functions see Tensors; like TF,
which traces them into a graph, eagertape compiles them (``tf.function``) and
falls back to running them eagerly, element by element, when they use Python
control flow on values (which JAX cannot trace).

>>> import eagertape.tf as tf
>>> ds = tf.data.Dataset.from_tensor_slices(([1., 2., 3., 4.], [0, 1, 0, 1]))
>>> ds = ds.map(lambda x, y: (x * 2, y)).batch(3)
>>> [x.numpy().tolist() for x, y in ds]
[[2.0, 4.0, 6.0], [8.0]]

Why not grain: TF's Dataset is an iterator pipeline (buffer shuffles,
``filter``/``unbatch``/``padded_batch`` of unknown cardinality, reshuffling on
every iteration) whose order semantics a random-access loader does not express,
and its functions run in-process on eagertape's per-thread state, which grain's
worker processes would not share. Differences from TF: the random order of
``shuffle`` is not TF's (another generator); ``num_parallel_calls``,
``prefetch`` and ``deterministic`` are accepted and run sequentially; strings,
ragged and sparse elements are not supported.
"""
import itertools
import os
import types

import numpy as np

from .. import extend as _extend
from .. import function as _function
from ..extend import InvalidArgumentError
from ..extend import convert_to_tensor
from ..extend import Tensor, as_dtype as _as_dtype, TensorLike as _TensorLike, wrap as _wrap
from . import _text
from ._control_flow import vectorized_map
from ._ragged import RaggedTensor as _RaggedTensor
from ._spec import TensorSpec
from ._util import _Unsupported, left_out
from .errors import OutOfRangeError

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2

__getattr__ = _Unsupported("tf.data", {
    **left_out("TFRecord and fixed-length record files are not read by eagertape yet (tf.io "
               "is left out): read the files with NumPy (or grain/array_record) and use "
               "from_tensor_slices or from_generator",
               "TFRecordDataset FixedLengthRecordDataset"),
    **left_out("TF's composite-tensor type specs; element_spec gives tf.TensorSpec nests",
               "DatasetSpec IteratorSpec"),
})


# -- nests: tuples, namedtuples and dicts are structure; everything else a leaf --------
# (a list is a value to convert, as in TF: from_tensor_slices([1, 2]) is one tensor)

def _is_nest(x):
    return isinstance(x, (tuple, dict))


def _map(fn, *nests):
    first = nests[0]
    if isinstance(first, dict):
        return type(first)((k, _map(fn, *(n[k] for n in nests))) for k in first)
    if isinstance(first, tuple):
        items = [_map(fn, *parts) for parts in zip(*nests)]
        return type(first)(*items) if hasattr(first, "_fields") else tuple(items)
    return fn(*nests)


def _leaves(nest):
    if isinstance(nest, dict):
        return [leaf for k in nest for leaf in _leaves(nest[k])]
    if isinstance(nest, tuple):
        return [leaf for part in nest for leaf in _leaves(part)]
    return [nest]


def _same_structure(a, b):
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and all(
            _same_structure(a[k], b[k]) for k in a)
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(_same_structure(x, y) for x, y in zip(a, b)))
    return True


def _to_numpy(x, dtype=None):
    """A leaf as TF converts it (Python floats float32, ints int32; text as an object
    array of bytes, as TF's numpy() gives it), on the host."""
    if isinstance(x, np.ndarray) and dtype is None and x.dtype.kind not in "OUS":
        return x
    if isinstance(x, _text.StringTensor):
        x = x._v
    elif isinstance(x, _TensorLike):
        x = np.asarray(x.numpy())       # a scalar too: elements are arrays
    elif _text.is_text(x):
        x = _text.host(x, "element")
    elif isinstance(x, _RaggedTensor):
        raise TypeError("ragged elements are not supported by eagertape's tf.data: make them "
                        "dense in the map (.to_tensor()), or batch first and split after")
    elif not isinstance(x, np.ndarray):
        x = np.asarray(convert_to_tensor(x).numpy())
    return x if dtype is None or x.dtype == object else x.astype(dtype, copy=False)


def _to_tensor(x):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, bytes) or (isinstance(x, np.ndarray) and x.dtype == object):
        return _text.wrap(np.asarray(x, dtype=object))     # (a 1-D slice's bytes too)
    return _wrap(np.asarray(x))


def _as_args(element):
    """TF unpacks a tuple element into the function's arguments."""
    return element if isinstance(element, tuple) and not hasattr(element, "_fields") \
        else (element,)


def _spec_of(element, unknown_batch=False):
    def spec(leaf):
        shape = tuple(np.shape(leaf))
        if unknown_batch and shape:
            shape = (None,) + shape[1:]
        return TensorSpec(shape, object if isinstance(leaf, bytes) else np.asarray(leaf).dtype)
    return _map(spec, element)


# -- user functions: compiled as TF traces them, eager when they cannot be ----------

def _traced_now(fn):
    """``fn`` reading the Python values it reads now. TF traces a dataset's function
    when ``map``/``filter`` is called, so a loop variable it reads (in a closure or
    the module, as ``ds.map(lambda x: (x, i))`` in a ``for i`` loop) is the value of
    that moment; eagertape calls the function later, on each element, so it is
    given a snapshot of its closure and globals (the objects they name are shared)."""
    if not isinstance(fn, types.FunctionType):
        return fn
    try:
        cells = None if fn.__closure__ is None else tuple(
            types.CellType(c.cell_contents) for c in fn.__closure__)
    except ValueError:          # a cell not yet filled: nothing to snapshot
        return fn
    snap = types.FunctionType(fn.__code__, dict(fn.__globals__), fn.__name__,
                              fn.__defaults__, cells)
    snap.__kwdefaults__, snap.__qualname__ = fn.__kwdefaults__, fn.__qualname__
    snap.__dict__.update(fn.__dict__)
    snap.__wrapped__ = fn
    return snap


class _UserFn:
    def __init__(self, fn, what):
        fn = _traced_now(fn)
        self.fn, self.what = fn, what
        name = getattr(fn, "__name__", what)
        self.compiled = _function(fn, name=name)
        self.eager = False
        # ``map`` then ``batch``: the function vectorised over the batch (one XLA
        # call per batch, as TF's map-and-batch fusion), where that cannot change
        # its results: no random numbers, callbacks or Variable updates in it.
        self.vectorized = _function(
            lambda *args: vectorized_map(lambda e: fn(*e), args), name=name)
        self.vectorizable = None

    def __call__(self, element, index):
        args = _as_args(_map(_to_tensor, element))
        # Pipeline functions record on no tape and compute values, as TF's graphs.
        with _extend.outside_recording():
            try:
                if not self.eager:
                    try:
                        return self.compiled(*args)
                    except TypeError:
                        # Python control flow on a value, int(x), .numpy(): JAX cannot
                        # trace them (TF has AutoGraph for the first). Run eagerly; if
                        # that works, from now on.
                        out = self.fn(*args)
                        self.eager = True
                        return out
                return self.fn(*args)
            except Exception as e:
                raise _at_element(e, f"Dataset.{self.what}'s function", index) from e

    def batched(self, elements, index):
        """The function on a batch of elements at once, or None where it must run
        element by element."""
        if self.eager or self.vectorizable is False:
            return None
        if self.vectorizable is None:
            self(elements[0], index)          # traces it (or finds it cannot be)
            self.vectorizable = not self.eager and all(
                _pure(t) for t in self.compiled._traces.values())
            if not self.vectorizable:
                return None
        try:
            stacked = _stack(elements, index)
        except InvalidArgumentError:
            return None                       # shapes differ: batch will say so
        with _extend.outside_recording():
            try:
                return self.vectorized(*_as_args(_map(_to_tensor, stacked)))
            except Exception:
                return None                   # element by element finds the culprit


def _pure(trace):
    text = str(trace.jaxpr)
    return not trace.written and "random" not in text and "callback" not in text


def _at_element(error, where, index):
    message = f"{error} [in {where}, on element {index} of its input]"
    try:
        return type(error)(message)
    except Exception:
        return InvalidArgumentError(message)


def _seed(seed):
    """A NumPy seed: ``seed``; else, after ``tf.random.set_seed``, one drawn from TF's
    global stream (so a seeded program shuffles the same way every run); else fresh."""
    if seed is not None:
        return int(seed)
    from . import random
    if random._gen.seed is None:
        return None
    return int(np.asarray(random._next_key())[-1])


def _count(value, what):
    if isinstance(value, _TensorLike):
        value = value.numpy()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) and not (
            isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu"):
        raise TypeError(f"argument `{what}` must be an integer, got {value!r}")
    return int(value)


class Dataset:
    """``tf.data.Dataset``: build one with a ``from_*`` or ``range`` constructor and
    chain transformations; iterate it (any number of times) in a training loop.

    >>> import eagertape.tf as tf
    >>> ds = tf.data.Dataset.range(10).filter(lambda x: x % 3 == 0).repeat(2)
    >>> [int(x) for x in ds.as_numpy_iterator()]
    [0, 3, 6, 9, 0, 3, 6, 9]
    """

    _mapped = None      # (upstream, function) of a map, for a batch after it

    def __init__(self, make, cardinality, spec=None):
        # ``make()`` starts one pass: an iterator of elements (nests of arrays).
        self._make, self._cardinality, self._spec = make, cardinality, spec

    # -- sources ---------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """Slices of ``tensors`` (a nest of tensors sharing their first dimension)."""
        arrays = _map(_to_numpy, tensors)
        leaves = _leaves(arrays)
        sizes = {a.shape[0] if a.ndim else None for a in leaves}
        if None in sizes:
            raise ValueError("from_tensor_slices: every component must have at least one "
                             "dimension to slice along (got a scalar)")
        if len(sizes) != 1:
            raise ValueError("from_tensor_slices: all components must have the same size "
                             f"in their first dimension, got sizes {sorted(sizes)}")
        n = sizes.pop()
        rebuild = _rebuilder(arrays)
        return Dataset(lambda: (rebuild([a[i] for a in leaves]) for i in range(n)), n,
                       _map(lambda a: TensorSpec(a.shape[1:], a.dtype), arrays))

    @staticmethod
    def from_tensors(tensors, name=None):
        """One element: ``tensors`` itself."""
        element = _map(_to_numpy, tensors)
        return Dataset(lambda: iter([element]), 1, _spec_of(element))

    @staticmethod
    def range(*args, output_type="int64", name=None):  # noqa: A003  (TF's name)
        """``range(stop)``, ``range(start, stop[, step])`` as int64 scalars."""
        r = range(*(_count(a, "range argument") for a in args))
        dtype = _as_dtype(output_type)
        return Dataset(lambda: (np.asarray(i, dtype) for i in r), len(r),
                       TensorSpec((), dtype))

    @staticmethod
    def zip(*datasets, name=None):
        """Elements of several datasets side by side (a nest of datasets), as long as
        the shortest."""
        if len(datasets) == 1 and _is_nest(datasets[0]):
            datasets = datasets[0]
        parts = _leaves(datasets)
        for d in parts:
            if not isinstance(d, Dataset):
                raise TypeError(f"Dataset.zip takes datasets, got {type(d).__name__}")

        def make():
            for items in zip(*(d._make() for d in parts)):
                it = iter(items)
                yield _map(lambda _: next(it), datasets)
        cards = [d._cardinality for d in parts]
        card = (UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in cards else
                min((c for c in cards if c >= 0), default=INFINITE_CARDINALITY))
        return Dataset(make, card)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        """Elements yielded by ``generator(*args)``, called afresh for every pass."""
        if not callable(generator):
            raise TypeError("from_generator: argument `generator` must be a callable that "
                            "returns an iterator (a generator function), not an iterator")
        if output_signature is None and output_types is None:
            raise TypeError("from_generator: give `output_signature` (a nest of "
                            "tf.TensorSpec) or `output_types`")
        if output_signature is not None:
            sig = output_signature
            dtypes = _map(lambda s: _as_dtype(s.dtype), sig)
            shapes = _map(lambda s: s.shape, sig)
        else:
            dtypes = _map(_as_dtype, output_types)
            shapes = output_shapes
        args = tuple(args or ())

        def make():
            for i, value in enumerate(generator(*args)):
                if _is_nest(dtypes) and not _same_structure(dtypes, value):
                    raise TypeError(f"from_generator: element {i} does not match the "
                                    f"structure of the signature ({dtypes})")
                element = _map(lambda v, d: _to_numpy(np.asarray(v), d), value, dtypes)
                if shapes is not None:
                    _map(lambda a, s: _check_shape(a, s, i), element, shapes)
                yield element
        return Dataset(make, UNKNOWN_CARDINALITY)

    # -- transformations ------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """``map_func`` on every element (a tuple element is unpacked into its
        arguments)."""
        fn = _UserFn(map_func, "map")
        upstream = self._make

        def make():
            for i, element in enumerate(upstream()):
                yield _map(_to_numpy, fn(element, i))
        mapped = Dataset(make, self._cardinality)
        mapped._mapped = (upstream, fn)
        return mapped

    def filter(self, predicate, name=None):
        """The elements for which ``predicate`` is True (a scalar bool)."""
        fn = _UserFn(predicate, "filter")
        upstream = self._make

        def make():
            for i, element in enumerate(upstream()):
                keep = np.asarray(_to_numpy(fn(element, i)))
                if keep.shape != () or keep.dtype != np.bool_:
                    raise ValueError("Dataset.filter's predicate must return a scalar bool "
                                     f"tensor, got dtype {keep.dtype} and shape {keep.shape}")
                if keep:
                    yield element
        return Dataset(make, UNKNOWN_CARDINALITY if self._cardinality != INFINITE_CARDINALITY
                       else INFINITE_CARDINALITY, self._spec)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """Consecutive elements stacked into batches of ``batch_size`` (the last one
        smaller unless ``drop_remainder``)."""
        n = _count(batch_size, "batch_size")
        batched = self._batched(n, drop_remainder, _stack)
        if getattr(self, "_mapped", None) is not None:
            batched._make = _map_and_batch(*self._mapped, n, drop_remainder)
        return batched

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        """Batches whose components are padded (with ``padding_values``, default 0)
        to the longest in the batch, or to ``padded_shapes`` (None: the longest)."""
        def pad(elements, first_index):
            first = elements[0]
            shapes = padded_shapes if padded_shapes is not None else _map(lambda a: None, first)
            values = padding_values if padding_values is not None else _map(lambda a: 0, first)
            return _map(lambda *parts: _pad_stack(parts[:-2], parts[-2], parts[-1]),
                        *elements, shapes, values)
        return self._batched(_count(batch_size, "batch_size"), drop_remainder, pad)

    def _batched(self, n, drop_remainder, combine):
        if n <= 0:
            raise InvalidArgumentError(f"argument `batch_size` must be positive, got {n}")
        upstream = self._make

        def make():
            for start, elements in _chunks(upstream(), n, drop_remainder):
                yield combine(elements, start)
        c = self._cardinality
        card = c if c < 0 else (c // n if drop_remainder else -(-c // n))
        spec = None if self._spec is None or combine is not _stack else _map(
            lambda s: TensorSpec((n if drop_remainder else None,) + tuple(s.shape), s.dtype),
            self._spec)
        return Dataset(make, card, spec)

    def unbatch(self, name=None):
        """The inverse of ``batch``: every element split along its first dimension."""
        upstream = self._make

        def make():
            for element in upstream():
                leaves = _leaves(element)
                sizes = {np.shape(a)[0] if np.ndim(a) else None for a in leaves}
                if None in sizes or len(sizes) != 1:
                    raise InvalidArgumentError(
                        "unbatch: every component must have the same first dimension, "
                        f"got shapes {[np.shape(a) for a in leaves]}")
                for i in range(sizes.pop()):
                    yield _map(lambda a: a[i], element)
        c, card = self._cardinality, UNKNOWN_CARDINALITY
        if c == INFINITE_CARDINALITY:
            card = c
        elif c >= 0 and self._spec is not None:
            # TF knows the count where the batch dimension is known statically.
            sizes = {s.shape[0] if s.shape else None for s in _leaves(self._spec)}
            if len(sizes) == 1 and None not in sizes:
                card = c * sizes.pop()
        return Dataset(make, card)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Elements drawn at random from a buffer of ``buffer_size`` (TF's algorithm:
        a buffer as large as the dataset shuffles it uniformly); a new order on
        every pass unless ``reshuffle_each_iteration=False``."""
        size = _count(buffer_size, "buffer_size")
        if size <= 0 and size != AUTOTUNE:
            raise InvalidArgumentError(f"argument `buffer_size` must be positive, got {size}")
        base = np.random.SeedSequence(_seed(seed))
        upstream = self._make

        def make():
            # Each pass spawns the next child seed: a new order every pass, the same
            # sequence of orders for the same seed.
            rng = np.random.default_rng(base.spawn(1)[0] if reshuffle_each_iteration else base)
            draws = _uniforms(rng)
            buffer, it = [], upstream()
            for element in it:
                buffer.append(element)
                if len(buffer) >= size:
                    break
            for element in it:
                j = int(next(draws) * len(buffer))
                yield buffer[j]
                buffer[j] = element
            while buffer:
                j = int(next(draws) * len(buffer))
                buffer[j], buffer[-1] = buffer[-1], buffer[j]
                yield buffer.pop()
        return Dataset(make, self._cardinality, self._spec)

    def repeat(self, count=None, name=None):
        """The dataset ``count`` times over (None or -1: forever), each pass afresh."""
        count = -1 if count is None else _count(count, "count")
        upstream = self._make

        def make():
            passes = itertools.count() if count < 0 else range(count)
            for _ in passes:
                empty = True
                for element in upstream():
                    empty = False
                    yield element
                if empty:     # TF ends an infinite repeat of an empty dataset too
                    return
        c = self._cardinality
        card = (INFINITE_CARDINALITY if count < 0 and c != 0 else
                c if c < 0 else c * max(count, 0) if count >= 0 else 0)
        return Dataset(make, card, self._spec)

    def take(self, count, name=None):
        """The first ``count`` elements (-1: all)."""
        count = _count(count, "count")
        upstream = self._make
        c = self._cardinality
        if count < 0:
            return self
        card = count if c == INFINITE_CARDINALITY else min(c, count) if c >= 0 \
            else UNKNOWN_CARDINALITY
        return Dataset(lambda: itertools.islice(upstream(), count), card, self._spec)

    def skip(self, count, name=None):
        """All but the first ``count`` elements (-1: none)."""
        count = _count(count, "count")
        upstream = self._make
        c = self._cardinality
        if count < 0:
            return Dataset(lambda: iter(()), 0, self._spec)
        card = c if c < 0 else max(c - count, 0)
        return Dataset(lambda: itertools.islice(upstream(), count, None), card, self._spec)

    def take_while(self, predicate, name=None):
        """Elements up to the first for which ``predicate`` is False."""
        fn = _UserFn(predicate, "take_while")
        upstream = self._make

        def make():
            for i, element in enumerate(upstream()):
                if not bool(np.asarray(_to_numpy(fn(element, i)))):
                    return
                yield element
        return Dataset(make, UNKNOWN_CARDINALITY, self._spec)

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, from ``index``."""
        num_shards, index = _count(num_shards, "num_shards"), _count(index, "index")
        if num_shards <= 0 or not 0 <= index < num_shards:
            raise InvalidArgumentError(
                f"shard: need num_shards > 0 and 0 <= index < num_shards, got "
                f"num_shards={num_shards}, index={index}")
        upstream = self._make
        c = self._cardinality
        card = c if c < 0 else (c - index + num_shards - 1) // num_shards
        return Dataset(lambda: itertools.islice(upstream(), index, None, num_shards), card,
                       self._spec)

    def enumerate(self, start=0, name=None):  # noqa: A003  (TF's name)
        """``(index, element)`` pairs, the index an int64 counting from ``start``."""
        start = _count(start, "start")
        upstream = self._make
        return Dataset(lambda: ((np.asarray(i, np.int64), e)
                                for i, e in enumerate(upstream(), start)), self._cardinality)

    def concatenate(self, dataset, name=None):
        """This dataset's elements, then ``dataset``'s (the same structure)."""
        if not isinstance(dataset, Dataset):
            raise TypeError(f"concatenate takes a Dataset, got {type(dataset).__name__}")
        a, b = self._make, dataset._make
        ca, cb = self._cardinality, dataset._cardinality
        card = (INFINITE_CARDINALITY if INFINITE_CARDINALITY in (ca, cb) else
                UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in (ca, cb) else ca + cb)
        return Dataset(lambda: itertools.chain(a(), b()), card, self._spec)

    def flat_map(self, map_func, name=None):
        """``map_func`` maps each element to a Dataset; their elements, in order."""
        upstream = self._make

        def make():
            for i, element in enumerate(upstream()):
                yield from _inner(map_func, element, i, "flat_map")._make()
        return Dataset(make, UNKNOWN_CARDINALITY)

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        """``map_func`` maps each element to a Dataset; ``cycle_length`` of them are
        read at once, ``block_length`` elements from each in turn (TF's order)."""
        cycle = os.cpu_count() or 1 if cycle_length in (None, AUTOTUNE) \
            else _count(cycle_length, "cycle_length")
        block = 1 if block_length is None else _count(block_length, "block_length")
        upstream = self._make

        def make():
            # TF's order: ``cycle`` fixed slots visited in turn, ``block`` elements
            # from each; an empty slot takes the next input when its turn comes, an
            # exhausted one is emptied and the turn passes on.
            inputs = enumerate(upstream())
            slots, k, taken, more = [None] * cycle, 0, 0, True
            while more or any(s is not None for s in slots):
                if slots[k] is None:
                    nxt = next(inputs, None) if more else None
                    if nxt is None:
                        more = False
                        k, taken = (k + 1) % cycle, 0
                    else:
                        slots[k] = _inner(map_func, nxt[1], nxt[0], "interleave")._make()
                    continue
                try:
                    yield next(slots[k])
                except StopIteration:
                    slots[k] = None
                    k, taken = (k + 1) % cycle, 0
                    continue
                taken += 1
                if taken == block:
                    k, taken = (k + 1) % cycle, 0
        return Dataset(make, UNKNOWN_CARDINALITY)

    def cache(self, filename="", name=None):
        """Elements kept in memory by the first complete pass and replayed by the
        next (``filename`` is accepted; the cache stays in memory)."""
        upstream, store = self._make, {}

        def make():
            if "elements" in store:
                yield from store["elements"]
                return
            seen = []
            for element in upstream():
                seen.append(element)
                yield element
            store["elements"] = seen     # only a complete pass fills the cache, as in TF
        return Dataset(make, self._cardinality, self._spec)

    def prefetch(self, buffer_size, name=None):
        """Accepted for TF's pipelines; elements are produced when asked for."""
        return self

    def with_options(self, options, name=None):
        """Accepted for TF's pipelines (the options tune TF's runtime)."""
        return self

    def options(self):
        return Options()

    def apply(self, transformation_func):
        """``transformation_func(self)``: a reusable chain of transformations."""
        return transformation_func(self)

    def reduce(self, initial_state, reduce_func, name=None):
        """``reduce_func(state, element)`` over all elements, from ``initial_state``."""
        state = initial_state
        for element in self._make():
            state = reduce_func(state, *_as_args(_map(_to_tensor, element)))
        return _map(lambda x: x if isinstance(x, _TensorLike) else convert_to_tensor(x), state)

    def get_single_element(self, name=None):
        """The only element (InvalidArgumentError if there is not exactly one)."""
        elements = list(itertools.islice(self._make(), 2))
        if len(elements) != 1:
            raise InvalidArgumentError(
                f"Dataset had {'no' if not elements else 'more than one'} element; "
                "get_single_element needs exactly one")
        return _map(_to_tensor, elements[0])

    # -- inspection and iteration ---------------------------------------------------
    def cardinality(self):
        """The number of elements as an int64 Tensor; ``tf.data.INFINITE_CARDINALITY``
        (-1) or ``tf.data.UNKNOWN_CARDINALITY`` (-2) when not known without running."""
        return convert_to_tensor(np.asarray(self._cardinality, np.int64))

    def __len__(self):
        if self._cardinality == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if self._cardinality == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return self._cardinality

    def __bool__(self):
        return True

    @property
    def element_spec(self):
        """The nest of ``TensorSpec``: known for sources, else read from the first
        element (eagertape does not trace the pipeline's functions ahead of time)."""
        if self._spec is not None:
            return self._spec
        first = next(iter(self._make()), None)
        if first is None:
            raise ValueError("element_spec of an empty dataset whose functions were not "
                             "traced is not known to eagertape")
        return _spec_of(first)

    def __iter__(self):
        return Iterator(self)

    def as_numpy_iterator(self):
        """Iterate as NumPy values (NumPy arrays; scalars as NumPy scalars, as TF)."""
        return NumpyIterator(self)

    def __repr__(self):
        return f"<Dataset element_spec={self._spec!r}>" if self._spec is not None \
            else "<Dataset>"


class Iterator:
    """``iter(dataset)``: elements as Tensors; ``get_next`` and ``get_next_as_optional``
    as TF's iterator has."""

    def __init__(self, dataset):
        self._it = dataset._make()

    def __iter__(self):
        return self

    def __next__(self):
        return _map(_to_tensor, next(self._it))

    def get_next(self):
        try:
            return next(self)
        except StopIteration:
            raise OutOfRangeError("End of sequence") from None


def _chunks(it, n, drop_remainder):
    """``(index of the first, elements)`` of consecutive groups of ``n`` elements."""
    start = 0
    while True:
        elements = list(itertools.islice(it, n))
        if not elements or (drop_remainder and len(elements) < n):
            return
        yield start, elements
        start += n


def _map_and_batch(upstream, fn, n, drop_remainder):
    def make():
        for start, elements in _chunks(upstream(), n, drop_remainder):
            out = fn.batched(elements, start)
            if out is None:
                out = _stack([_map(_to_numpy, fn(e, start + k))
                              for k, e in enumerate(elements)], start)
            yield _map(_to_numpy, out)
    return make


class NumpyIterator:
    """``dataset.as_numpy_iterator()``: elements as NumPy values (arrays; scalars as
    NumPy scalars, as TF's)."""

    def __init__(self, dataset):
        self._it = dataset._make()

    def __iter__(self):
        return self

    def __next__(self):
        return _map(lambda a: a if isinstance(a, bytes) else a[()] if np.ndim(a) == 0
                    else np.asarray(a), next(self._it))

    next = __next__


def _inner(map_func, element, index, what):
    try:
        out = map_func(*_as_args(_map(_to_tensor, element)))
    except Exception as e:
        raise _at_element(e, f"Dataset.{what}'s function", index) from e
    if not isinstance(out, Dataset):
        raise TypeError(f"Dataset.{what}'s function must return a Dataset, "
                        f"got {type(out).__name__}")
    return out


def _check_shape(array, shape, index):
    shape = None if shape is None else tuple(shape)
    if shape is not None and (len(shape) != array.ndim or any(
            s is not None and s != d for s, d in zip(shape, array.shape))):
        raise TypeError(f"from_generator: element {index} has shape {array.shape}, the "
                        f"signature says {shape}")


def _uniforms(rng, block=4096):
    while True:
        yield from rng.random(block).tolist()


def _rebuilder(nest):
    """A function from a list of leaves to a nest shaped as ``nest``."""
    if not _is_nest(nest):
        return lambda leaves: leaves[0]
    if type(nest) is tuple and not any(_is_nest(x) for x in nest):
        return tuple
    def rebuild(leaves):
        it = iter(leaves)
        return _map(lambda _: next(it), nest)
    return rebuild


def _stack(elements, first_index):
    def stack(*parts):
        if isinstance(parts[0], bytes) or getattr(parts[0], "dtype", None) == object:
            parts = [np.asarray(p, dtype=object) for p in parts]     # text: not NumPy's S
        try:
            return np.stack(parts)
        except ValueError:
            k = next(i for i, p in enumerate(parts) if np.shape(p) != np.shape(parts[0]))
            raise InvalidArgumentError(
                f"Cannot batch tensors with different shapes: element {first_index} has "
                f"shape {list(np.shape(parts[0]))} and element {first_index + k} has "
                f"shape {list(np.shape(parts[k]))}; use padded_batch, or make the shapes "
                "equal in a map before batching")
    for e in elements[1:]:
        if not _same_structure(elements[0], e):
            raise InvalidArgumentError("Cannot batch elements of different structures")
    return _map(stack, *elements)


def _pad_stack(parts, shape, value):
    ndim = {np.ndim(p) for p in parts}
    if len(ndim) != 1:
        raise InvalidArgumentError("padded_batch: components of different ranks "
                                   f"{sorted(ndim)} cannot be padded together")
    longest = np.max([np.shape(p) for p in parts], axis=0) if ndim != {0} else ()
    if shape is None or (hasattr(shape, "__len__") and len(shape) == 0 and ndim != {0}):
        target = tuple(int(d) for d in longest)
    else:
        shape = np.asarray(shape.numpy() if isinstance(shape, _TensorLike) else shape,
                           dtype=object).reshape(-1)
        if len(shape) != ndim.pop():
            raise ValueError(f"padded_batch: padded shape {list(shape)} does not have the "
                             f"components' rank {np.ndim(parts[0])}")
        target = tuple(int(m) if s is None or s == -1 else int(s)
                       for s, m in zip(shape, longest))
        if any(t < m for t, m in zip(target, longest)):
            raise InvalidArgumentError(
                f"padded_batch: an element of shape {list(longest)} does not fit the "
                f"padded shape {list(target)}")
    dtype = object if isinstance(parts[0], bytes) else np.asarray(parts[0]).dtype
    if dtype == object:       # text: padded with b"" (TF's default), or the value given
        fill = b"" if isinstance(value, int) and value == 0 else _text.host(value)[()]
    else:
        fill = np.asarray(value.numpy() if isinstance(value, _TensorLike) else value).astype(dtype)
    out = np.full((len(parts),) + target, fill, dtype)
    for i, p in enumerate(parts):
        out[(i,) + tuple(slice(0, d) for d in np.shape(p))] = p
    return out


class Options:
    """``tf.data.Options``: accepted (they tune TF's runtime); attributes can be set."""

    def __init__(self):
        self.__dict__.update(deterministic=None, experimental_optimization=_Anything(),
                             threading=ThreadingOptions(),
                             experimental_distribute=_Anything())


class ThreadingOptions:
    """``tf.data.ThreadingOptions``: accepted (eagertape's pipelines run in the
    caller's thread)."""

    def __init__(self):
        self.max_intra_op_parallelism = None
        self.private_threadpool_size = None


class _Anything:
    def __getattr__(self, name):
        return None


class _Experimental:
    """``tf.data.experimental``: the names TF programs still use."""
    AUTOTUNE = AUTOTUNE
    INFINITE_CARDINALITY = INFINITE_CARDINALITY
    UNKNOWN_CARDINALITY = UNKNOWN_CARDINALITY

    @staticmethod
    def cardinality(dataset):
        return dataset.cardinality()

    @staticmethod
    def get_single_element(dataset):
        return dataset.get_single_element()

    def __getattr__(self, name):
        return _Unsupported("tf.data.experimental")(name)


experimental = _Experimental()


class TextLineDataset(Dataset):
    """``tf.data.TextLineDataset``: the lines of text files, one string element per
    line (without its ``\\n``, or ``\\r\\n``), file after file; read afresh on every
    pass. ``compression_type`` "GZIP" or "ZLIB" reads compressed files.

    >>> import os, tempfile
    >>> import eagertape.tf as tf
    >>> path = os.path.join(tempfile.mkdtemp(), "poem.txt")
    >>> _ = open(path, "w").write("roses are red\\nviolets are blue\\n")
    >>> ds = tf.data.TextLineDataset(path).map(tf.strings.split)
    >>> [words.numpy().tolist() for words in ds]
    [[b'roses', b'are', b'red'], [b'violets', b'are', b'blue']]
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        paths = [p.decode("utf-8") for p in
                 _text.host(filenames, "filenames").reshape(-1).tolist()]
        kind = (compression_type or "").upper()
        if kind not in ("", "GZIP", "ZLIB"):
            raise InvalidArgumentError(f"argument `compression_type`: {compression_type!r} is "
                                       "not one of '', 'GZIP', 'ZLIB'")

        def make():
            for path in paths:
                yield from _lines(path, kind)
        super().__init__(make, UNKNOWN_CARDINALITY, TensorSpec((), object))


def _lines(path, kind):
    import gzip
    import zlib
    from .errors import NotFoundError
    try:
        if kind == "GZIP":
            f = gzip.open(path, "rb")
        else:
            f = open(path, "rb")
    except FileNotFoundError:
        raise NotFoundError(f"{path}; No such file or directory") from None
    with f:
        data = f.read()
    if kind == "ZLIB":
        data = zlib.decompress(data)
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    for line in lines:
        out = np.empty((), object)
        out[()] = line[:-1] if line.endswith(b"\r") else line
        yield out
