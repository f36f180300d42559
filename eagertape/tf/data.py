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
import enum
import functools
import itertools
import os
import sys
import types
import warnings

import jax
import numpy as np

from .. import extend as _extend
from .. import function as _function
from ..extend import Function as _Function, HostSpec as _HostSpec, TRACED_ARRAY as _ARRAY
from ..extend import InvalidArgumentError
from ..extend import convert_to_tensor
from ..extend import Tensor, as_dtype as _as_dtype, TensorLike as _TensorLike, wrap as _wrap
from . import _iterator_state as _state
from . import _autograph
from . import _snapshot
from . import _staged_map
from . import _text
from . import _tfrecord
from ._control_flow import vectorized_map
from ._ragged import RaggedTensor as _RaggedTensor, RaggedTensorSpec as _RaggedTensorSpec
from .sparse import SparseTensor as _SparseTensor, SparseTensorSpec as _SparseTensorSpec
from ._spec import TensorSpec
from . import _extension_type as _et
from ._util import _Unsupported, left_out
from .errors import OutOfRangeError

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2

_unsupported = _Unsupported("tf.data", {
    **left_out("TF's composite-tensor type specs; element_spec gives tf.TensorSpec nests",
               "IteratorSpec"),
})


__getattr__ = _unsupported


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


def _common_spec(specs):
    """The most specific element spec of several datasets' (TF's: a size where they
    differ is None), None where one is not known statically (read from the first
    element then); TypeError where their structures or dtypes differ."""
    if any(s is None for s in specs):
        return None
    first = specs[0]
    same = all(_same_structure(first, s) for s in specs[1:])
    leaves = [_leaves(s) for s in specs]
    same = same and all(len(ls) == len(leaves[0]) for ls in leaves)
    if same:
        for parts in zip(*leaves):
            if not all(type(p) is TensorSpec for p in parts):
                same = same and all(p == parts[0] for p in parts)
            else:
                same = same and all(p.dtype == parts[0].dtype for p in parts)
    if not same:
        raise TypeError("Invalid `datasets`. `datasets` must have compatible element specs.\n"
                        + "\n".join(f"Dataset {i} element_spec={s}." for i, s in enumerate(specs)))

    def common(*parts):
        if type(parts[0]) is not TensorSpec:
            return parts[0]
        shape = parts[0].shape
        for p in parts[1:]:
            shape = None if shape is None or p.shape is None else \
                shape.most_specific_compatible_shape(p.shape)
        return TensorSpec(shape, parts[0].dtype)
    return _map(common, *specs)


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
    elif isinstance(x, (_Composite, Dataset)):
        return x
    elif isinstance(x, _RaggedTensor):
        return _Ragged.of(x)
    elif isinstance(x, _SparseTensor):
        return _Sparse.of(x)
    elif isinstance(x, _et.ExtensionType):
        return _Extension.of(x)
    elif not isinstance(x, np.ndarray):
        x = np.asarray(convert_to_tensor(x).numpy())
    return x if dtype is None or x.dtype == object else x.astype(dtype, copy=False)


def _to_tensor(x):
    if isinstance(x, (Tensor, Dataset)):
        return x
    if isinstance(x, _Composite):
        return x.value()
    if isinstance(x, bytes) or (isinstance(x, np.ndarray) and x.dtype == object):
        return _text.wrap(np.asarray(x, dtype=object))     # (a 1-D slice's bytes too)
    return _wrap(np.asarray(x))


def _as_args(element):
    """TF unpacks a tuple element into the function's arguments."""
    return element if isinstance(element, tuple) and not hasattr(element, "_fields") \
        else (element,)


def _spec_of(element, unknown_batch=False):
    def spec(leaf):
        if isinstance(leaf, _Composite):
            got = leaf.spec()
            if unknown_batch and got.shape.rank:
                got.shape = _extend.TensorShape([None] + got.shape.as_list()[1:])
            return got
        if isinstance(leaf, Dataset):
            return DatasetSpec(leaf.element_spec)
        shape = tuple(np.shape(leaf))
        if unknown_batch and shape:
            shape = (None,) + shape[1:]
        return TensorSpec(shape, object if isinstance(leaf, bytes) else np.asarray(leaf).dtype)
    return _map(spec, element)


# -- sparse and ragged elements: host values with TF's batching rules --------------

def _nrows(leaf):
    if isinstance(leaf, _Composite):
        return leaf.nrows()
    return np.shape(leaf)[0] if np.ndim(leaf) else None


class _Composite:
    """A SparseTensor or RaggedTensor element inside a pipeline, on the host (NumPy):
    sliced, batched and saved in an iterator's checkpoint as TF's are; it becomes a
    ``tf.SparseTensor``/``tf.RaggedTensor`` where it leaves the pipeline."""
    __slots__ = ()


class _Ragged(_Composite):
    """Flat values and the row splits of each ragged dimension (none: a dense row of
    a ragged dataset, which TF's batch makes ragged again)."""
    __slots__ = ("flat", "splits")

    def __init__(self, flat, splits):
        self.flat, self.splits = flat, list(splits)

    @classmethod
    def of(cls, rt):
        flat = rt.flat_values
        flat = flat._v if isinstance(flat, _text.StringTensor) else np.asarray(flat.numpy())
        return cls(flat, rt._nested())

    def nrows(self):
        return len(self.splits[0]) - 1 if self.splits else self.flat.shape[0]

    def __getitem__(self, i):
        if not self.splits:
            return self.flat[i]
        a, b = int(self.splits[0][i]), int(self.splits[0][i + 1])
        inner = []
        for s in self.splits[1:]:
            part = s[a:b + 1]
            inner.append(part - part[0])
            a, b = int(part[0]), int(part[-1])
        return _Ragged(self.flat[a:b], inner)

    @staticmethod
    def stack(parts):
        ranks = {len(p.splits) for p in parts}
        if len(ranks) != 1:
            raise InvalidArgumentError("Cannot batch ragged elements of different ragged ranks")
        levels = [np.concatenate([[0], np.cumsum([p.nrows() for p in parts])]).astype(np.int64)]
        for k in range(ranks.pop()):
            offs = np.cumsum([0] + [int(p.splits[k][-1]) for p in parts])
            levels.append(np.concatenate([parts[0].splits[k][:1]] + [
                p.splits[k][1:] + o for p, o in zip(parts, offs)]).astype(np.int64))
        kinds = {p.flat.dtype == object for p in parts}
        flat = np.concatenate([p.flat for p in parts]) if len(kinds) == 1 else None
        if flat is None or len({p.flat.shape[1:] for p in parts}) != 1:
            raise InvalidArgumentError("Cannot batch ragged elements whose values have "
                                       "different dtypes or inner shapes")
        return _Ragged(flat, levels)

    def value(self):
        flat = _text.wrap(self.flat) if self.flat.dtype == object else _wrap(self.flat)
        if not self.splits:
            return flat
        return _RaggedTensor.from_nested_row_splits(flat, self.splits, validate=False)

    def spec(self):
        r = len(self.splits)
        shape = ([self.nrows()] + [None] * r if r else [None]) + list(self.flat.shape[1:])
        return _RaggedTensorSpec(shape, "string" if self.flat.dtype == object else
                                 self.flat.dtype, r)

    def _state_encode(self):
        return "ragged", {"flat": self.flat, "splits": list(self.splits)}


class _Sparse(_Composite):
    __slots__ = ("indices", "values", "shape")

    def __init__(self, indices, values, shape):
        self.indices, self.values, self.shape = indices, values, tuple(int(d) for d in shape)

    @classmethod
    def of(cls, st):
        values = st.values
        values = values._v if isinstance(values, _text.StringTensor) else \
            np.asarray(values.numpy())
        return cls(np.asarray(st.indices.numpy(), np.int64), values,
                   np.asarray(st.dense_shape.numpy()))

    def nrows(self):
        if not self.shape:
            raise InvalidArgumentError("a SparseTensor of rank 0 cannot be sliced")
        return self.shape[0]

    def __getitem__(self, i):
        keep = self.indices[:, 0] == i
        return _Sparse(self.indices[keep, 1:], self.values[keep], self.shape[1:])

    @staticmethod
    def stack(parts):
        ranks = {len(p.shape) for p in parts}
        if len(ranks) != 1:
            raise InvalidArgumentError("Cannot batch SparseTensors of different ranks")
        shape = (len(parts),) + tuple(np.max([p.shape for p in parts], axis=0).tolist()
                                      if ranks != {0} else ())
        indices = np.concatenate([np.concatenate([np.full((len(p.indices), 1), k, np.int64),
                                                  p.indices], axis=1)
                                  for k, p in enumerate(parts)])
        return _Sparse(indices, np.concatenate([p.values for p in parts]), shape)

    def value(self):
        values = _text.wrap(self.values) if self.values.dtype == object else _wrap(self.values)
        return _SparseTensor(self.indices, values, list(self.shape))

    def spec(self):
        return _SparseTensorSpec(list(self.shape), self.values.dtype)

    def _state_encode(self):
        return "sparse", {"indices": self.indices, "values": self.values,
                          "shape": list(self.shape)}


class _Extension(_Composite):
    """An ExtensionType element: its Tensors on the host (sliced and stacked along
    their first axis, as TF's default batch encoder does) and its JAX tree."""
    __slots__ = ("tree", "parts", "batched")

    def __init__(self, tree, parts, batched=False):
        self.tree, self.parts, self.batched = tree, parts, batched

    @classmethod
    def of(cls, value):
        leaves, tree = jax.tree_util.tree_flatten(value, is_leaf=_extend.is_tensor_like)
        return cls(tree, [_to_numpy(x) for x in leaves])

    def nrows(self):
        sizes = {_nrows(a) for a in self.parts}
        if len(sizes) != 1 or None in sizes:
            raise InvalidArgumentError("an ExtensionType value is sliced and batched along "
                                       "the first axis of its Tensors, which must agree "
                                       f"(got sizes {sorted(map(str, sizes))})")
        return sizes.pop()

    def __getitem__(self, i):
        return _Extension(self.tree, [a[i] for a in self.parts])

    @staticmethod
    def stack(parts):
        if any(p.tree != parts[0].tree for p in parts):
            raise InvalidArgumentError("Cannot batch ExtensionType values of different "
                                       "TypeSpecs")
        return _Extension(parts[0].tree, [_stack([(p.parts[k],) for p in parts], 0)[0]
                                          for k in range(len(parts[0].parts))], True)

    def value(self):
        v = jax.tree_util.tree_unflatten(self.tree, [_to_tensor(a) for a in self.parts])
        return _et.unknown_batch(v) if self.batched else v

    def spec(self):
        return self.value()._type_spec


_state.DECODERS["ragged"] = lambda d: _Ragged(d["flat"], d["splits"])
_state.DECODERS["sparse"] = lambda d: _Sparse(d["indices"], d["values"], d["shape"])


def _slice_spec(a):
    """The spec of ``a``'s slices (from_tensor_slices)."""
    if isinstance(a, _Extension):
        return _et.unbatched_spec(a.spec())
    if isinstance(a, _Ragged):
        spec = a.spec()
        return _RaggedTensorSpec([None] * len(a.splits) + list(a.flat.shape[1:]), spec.dtype,
                                 len(a.splits) - 1)
    if isinstance(a, _Sparse):
        return _SparseTensorSpec(list(a.shape[1:]), a.values.dtype)
    return TensorSpec(a.shape[1:], a.dtype)


def _unbatched_spec(s):
    if isinstance(s, _et.ExtensionTypeSpec):
        return _et.unbatched_spec(s)
    if isinstance(s, TensorSpec) and s.shape is None:
        return s                            # an unknown shape stays unknown (TF's)
    dims = s.shape.as_list()[1:] if s.shape.rank else []
    if isinstance(s, _RaggedTensorSpec):
        return _RaggedTensorSpec(dims, s.dtype, s.ragged_rank - 1)
    if isinstance(s, _SparseTensorSpec):
        return _SparseTensorSpec(dims, s.dtype)
    return TensorSpec(dims, s.dtype)


def _batched_spec(s, n):
    if isinstance(s, _et.ExtensionTypeSpec):
        return _et.batched_spec(s, n)
    if isinstance(s, TensorSpec) and s.shape is None:
        return s                            # an unknown shape stays unknown (TF's)
    if isinstance(s, _RaggedTensorSpec):
        return _RaggedTensorSpec([n] + list(s.shape), s.dtype, s.ragged_rank + 1)
    if isinstance(s, _SparseTensorSpec):
        return _SparseTensorSpec([n] + list(s.shape), s.dtype)
    return TensorSpec((n,) + tuple(s.shape), s.dtype)


class DatasetSpec:
    """``tf.data.DatasetSpec``: the spec of a dataset element that is a dataset (what
    ``window`` gives): its ``element_spec``.

    >>> import eagertape.tf as tf
    >>> tf.data.DatasetSpec(tf.TensorSpec([], tf.int64))
    DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))
    """

    def __init__(self, element_spec, dataset_shape=()):
        self.element_spec = element_spec
        self.shape = _extend.TensorShape(dataset_shape)

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and other.element_spec == self.element_spec

    def __hash__(self):
        return hash(repr(self.element_spec))

    def __repr__(self):
        return f"DatasetSpec({self.element_spec!r}, {self.shape!r})"


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


def _list_as_tuple(fn):
    """``fn`` returning a list as the tuple of its items, as TF's dataset functions
    take it: components, not one tensor to stack (a py_function's outputs are a
    list, of tensors that need not stack)."""
    @functools.wraps(fn)
    def call(*args):
        out = fn(*args)
        return tuple(out) if type(out) is list else out
    return call


class _UserFn:
    def __init__(self, fn, what, spec=None):
        fn = _traced_now(fn)
        self.fn, self.what = fn, what
        name = getattr(fn, "__name__", what)
        # Traced on the spec as TF traces it: AutoGraph's (an ``if`` on a Tensor is a
        # tf.cond, so the function is traced once, not run at each element).
        self.traced_call = _list_as_tuple(_autograph.convert(fn))
        fn = self.call = _list_as_tuple(fn)
        self.compiled = _function(fn, name=name)
        self.eager = False
        self.trace = None         # the trace made from the input's spec, as TF's
        # ``map`` then ``batch``: the function vectorised over the batch (one XLA
        # call per batch, as TF's map-and-batch fusion), where that cannot change
        # its results: no random numbers, callbacks or Variable updates in it.
        self.vectorized = _function(
            lambda *args: vectorized_map(lambda e: fn(*e), args), name=name)
        self.vectorizable = None
        self.staged = None        # a trace of strings run by _staged_map's interpreter
        if spec is not None:
            self._trace_at(spec, name)

    def _trace_at(self, spec, name):
        """Trace the function now, on elements of ``spec``, as TF traces a dataset's
        function when ``map``/``filter`` is called: its Python side effects (a print,
        a NumPy draw, an inner tf.function's trace for an unknown shape) happen
        then, once, and every element runs that trace (a None size is a symbolic
        one). Where it cannot be traced so (strings, composites, an unknown rank in
        the spec; Python control flow on a value; a size JAX cannot follow) the
        function is traced, or run eagerly, at the elements, as without a spec."""
        leaves = _leaves(spec)
        if not leaves or any(type(s) is not TensorSpec
                             or s.shape is None or s.shape.rank is None for s in leaves):
            return
        if any(s.dtype == object for s in leaves):
            self._stage_at(spec, name)
            return
        args = _as_args(spec)
        sig = _function(self.traced_call, input_signature=list(args), name=name)
        stand_ins = _map(lambda s: _to_tensor(np.zeros(
            [1 if d is None else d for d in s.shape.as_list()], s.dtype.as_numpy_dtype)), args)
        try:
            with _extend.outside_recording():
                trace = sig._lookup(stand_ins, {})[0]
        except Exception:       # noqa: BLE001  (not traceable so: at the elements)
            return
        if _odd_outputs(trace):
            return
        # Elements not of the spec (a spec eagertape inferred wrongly) fail the
        # signature with a TypeError: they run eagerly, as an untraceable function.
        self.compiled, self.trace = sig, trace
        if trace.relaxed is not None or any(
                d is None for s in leaves for d in s.shape.as_list()):
            # (JAX cannot vectorize a trace of symbolic sizes; running the
            # function's Python again for it would repeat its side effects)
            self.vectorizable = False
        else:
            self.vectorized = _vmapped(trace)

    def _stage_at(self, spec, name):
        """Trace a function of strings now, on ``spec``, as ``_trace_at`` does one of
        numbers: its host ops (``tf.io.read_file``, ``decode_jpeg``) may give sizes
        only the data knows, so the trace is run by ``_staged_map``'s interpreter,
        its sizes bound at each element. Where it cannot be traced so, the function
        runs its Python at each element, and a warning says so once (TF would have
        traced it, or raised)."""
        leaves = _leaves(spec)
        why = None
        if any(None in s.shape.as_list() for s in leaves):
            why = "its input's spec has strings of unknown sizes"
        else:
            args = _as_args(spec)
            sig = _Function(self.traced_call, input_signature=list(args), name=name,
                            host_values=True)
            stand_ins = _map(lambda s: _to_tensor(
                np.full(s.shape.as_list(), b"", object) if s.dtype == object else
                np.zeros(s.shape.as_list(), s.dtype.as_numpy_dtype)), args)
            try:
                with _extend.outside_recording(), _staged_map.staging():
                    trace = sig._lookup(stand_ins, {})[0]
                if _odd_outputs(trace):
                    raise TypeError("it returns a Python object that is not a tensor")
                self.staged = _staged_map.Staged(trace)
            except Exception as e:      # noqa: BLE001  (not traceable so: at the elements)
                why = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            else:
                self.compiled, self.trace = sig, trace
                self.vectorizable = False     # (the interpreter runs one element)
                return
        self.vectorizable = False
        self.eager = True
        warnings.warn(
            f"Dataset.{self.what}'s function {name!r} could not be traced once on its input's "
            f"spec ({why}); eagertape runs its Python at each element (its prints and "
            "random draws happen per element, where TF's happen once)", stacklevel=5)

    def __call__(self, element, index):
        args = _as_args(_map(_to_tensor, element))
        # Pipeline functions record on no tape and compute values, as TF's graphs.
        with _extend.outside_recording():
            try:
                if self.staged is not None:
                    try:
                        return self.staged(*args)
                    except _staged_map.NotOfSpec:
                        self.staged, self.eager = None, True
                        return self.call(*args)
                if not self.eager:
                    try:
                        return self.compiled(*args)
                    except (TypeError, AttributeError):
                        # Python control flow on a value, int(x), .numpy(): JAX cannot
                        # trace them (TF has AutoGraph for the first; a ragged
                        # constructor reads its row lengths). Run eagerly; if that
                        # works, from now on.
                        out = self.call(*args)
                        self.eager = True
                        return out
                return self.call(*args)
            except Exception as e:
                raise _at_element(e, f"Dataset.{self.what}'s function", index) from e

    def check_saveable(self):
        """Raise TF's error where an iterator through this function cannot be saved:
        the function has external state (a stateful random draw or a Variable update
        writes a Variable; py_function/numpy_function call back into Python)."""
        if self.staged is not None:
            # (its host ops of text and sizes are TF's stateless kernels)
            if _staged_map.external_state(self.staged.trace):
                raise _state.stateful(self.what, getattr(self.fn, "__name__", self.what))
            return
        for trace in self.compiled._traces.values():
            if getattr(trace, "written", None) or "callback" in str(getattr(trace, "jaxpr", "")):
                raise _state.stateful(self.what, getattr(self.fn, "__name__", self.what))

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
        if any(isinstance(leaf, (_Composite, Dataset)) for leaf in _leaves(elements[0])):
            return None                       # (vectorized_map takes dense tensors)
        try:
            stacked = _stack(elements, index)
        except InvalidArgumentError:
            return None                       # shapes differ: batch will say so
        with _extend.outside_recording():
            try:
                return self.vectorized(*_as_args(_map(_to_tensor, stacked)))
            except Exception:
                return None                   # element by element finds the culprit


def _odd_outputs(trace):
    """Whether a trace returns a Python object TF's dataset functions could not (a
    lazy range of AutoGraph's, say): its value is the trace's, not the element's."""
    return any(s is not _ARRAY and type(s).__name__ != "_Host" and not isinstance(
        s, (bool, int, float, complex, str, bytes, np.generic, np.ndarray))
        for s in trace.static)


def _vmapped(trace):
    """``trace`` (of fixed sizes) over a batch of its arguments, without running its
    Python again (a Function of it would trace it anew)."""
    def call(*args):
        reads = [v.read_value()._value for v in trace.variables]
        vals = [np.asarray(_to_numpy(a)) for a in jax.tree_util.tree_leaves(
            args, is_leaf=lambda x: isinstance(x, _TensorLike))]
        arrays = jax.vmap(lambda *v: trace.run(reads, list(v))[0])(*vals)
        return trace.outputs([_wrap(a) for a in arrays])
    return call


def _spec_of_trace(trace):
    """The outputs' spec of a trace (a symbolic size is None), or None where an
    output is not an array."""
    outs = trace.specs()

    def spec(x):
        if isinstance(x, (jax.ShapeDtypeStruct, _HostSpec)):
            # (a host value's dtype is tf.string's; a symbolic size is None)
            return TensorSpec([d if isinstance(d, int) else None for d in x.shape], x.dtype)
        if type(x) in _PYTHON_DTYPES:       # a Python value: TF's constant of it
            return TensorSpec([], _PYTHON_DTYPES[type(x)])
        return None
    specs = _map(spec, outs)
    return None if any(s is None for s in _leaves(specs)) else specs


_PYTHON_DTYPES = {bool: "bool", int: "int32", float: "float32", str: "string", bytes: "string"}


def _traced_spec(fn, spec):
    """The spec of ``fn``'s outputs on elements of ``spec``, from traces of it (none
    runs), or None where it cannot be traced so (strings, composites, Python control
    flow on values). A None size is traced as 1 and as 2: a size that follows it is
    None, as in TF's shapes."""
    leaves = _leaves(spec)
    if not leaves or any(type(s) is not TensorSpec or s.dtype == object or s.shape.rank is None
                         for s in leaves):
        return None
    sizes = (1, 2) if any(d is None for s in leaves for d in s.shape.as_list()) else (1,)
    outs = []
    for size in sizes:
        args = _map(lambda s: TensorSpec([size if d is None else d for d in s.shape.as_list()],
                                         s.dtype), spec)
        try:
            with _extend.outside_recording():
                outs.append(fn.compiled.get_concrete_function(*_as_args(args)).structured_outputs)
        except Exception:       # noqa: BLE001  (not traceable so: read from an element)
            return None
    if not all(isinstance(x, jax.ShapeDtypeStruct) for x in _leaves(outs[0])):
        return None

    def merge(*xs):
        shapes = {tuple(x.shape) for x in xs}
        dims = [d if len({s[i] for s in shapes}) == 1 else None
                for i, d in enumerate(xs[0].shape)]
        return TensorSpec(dims, xs[0].dtype)
    try:
        return _map(merge, *outs)
    except Exception:           # noqa: BLE001  (ranks or structures differ: read it)
        return None


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


def _cpu_count():
    # TF's snapshot shards and reads by multiprocessing.cpu_count(): every core, not
    # the schedulable ones (the written order depends on it only through the shards).
    import multiprocessing
    return multiprocessing.cpu_count()


_process_keys = itertools.count()


def _autotuned_cycle(num_parallel_calls):
    """TF's cycle length of an interleave whose ``cycle_length`` is unset or AUTOTUNE
    (the order of its elements follows it): the schedulable cores (TF's
    ``port::MaxParallelism``), or with ``num_parallel_calls`` TF's parallel
    interleave's ``ComputeCycleLength``: ``min(num_parallel_calls, cores)``, and for
    AUTOTUNE a third of them, rounded up (a thread for the current element and two
    for the prefetched ones each), so a TFRecordDataset of AUTOTUNE reads reads its
    files one after the other on 2 cores, two at a time on 4."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:          # no sched_getaffinity (macOS, Windows)
        cores = os.cpu_count() or 1
    if num_parallel_calls is None:
        return cores
    n = _count(num_parallel_calls, "num_parallel_calls")
    return -(-cores // 3) if n == AUTOTUNE else max(1, min(n, cores))


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
        sizes = {_nrows(a) for a in leaves}
        if None in sizes:
            raise ValueError("from_tensor_slices: every component must have at least one "
                             "dimension to slice along (got a scalar)")
        if len(sizes) != 1:
            raise ValueError("from_tensor_slices: all components must have the same size "
                             f"in their first dimension, got sizes {sorted(sizes)}")
        n = sizes.pop()
        rebuild = _rebuilder(arrays)
        return Dataset(lambda: _Slices(lambda i: rebuild([a[i] for a in leaves]), n), n,
                       _map(_slice_spec, arrays))

    @staticmethod
    def from_tensors(tensors, name=None):
        """One element: ``tensors`` itself."""
        element = _map(_to_numpy, tensors)
        return Dataset(lambda: _Slices(lambda i: element, 1), 1, _spec_of(element))

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """The files matching ``file_pattern`` (a glob, or a list/1-D tensor of them),
        one string element each: sorted, then shuffled unless ``shuffle=False`` (TF's
        default shuffles, reshuffling every epoch; the order under a seed is not TF's,
        as for ``shuffle``). No match raises TF's InvalidArgumentError.

        >>> import os, tempfile
        >>> import eagertape.tf as tf
        >>> d = tempfile.mkdtemp()
        >>> for n in ("b.txt", "a.txt", "c.csv"):
        ...     _ = open(os.path.join(d, n), "w").write(n)
        >>> ds = tf.data.Dataset.list_files(os.path.join(d, "*.txt"), shuffle=False)
        >>> [os.path.basename(p.numpy().decode()) for p in ds]
        ['a.txt', 'b.txt']
        """
        from . import io as _io
        patterns = _text.host(file_pattern, "file_pattern")
        files = _io.matching_files(patterns)
        if not len(files.numpy()):
            shown = ", ".join(p.decode("utf-8", "replace") if isinstance(p, bytes) else str(p)
                              for p in patterns.reshape(-1).tolist())
            raise InvalidArgumentError(f"No files matched pattern: {shown}")
        dataset = Dataset.from_tensor_slices(files)
        if shuffle is None or shuffle:
            dataset = dataset.shuffle(max(len(files.numpy()), 1), seed=seed)
        return dataset

    @staticmethod
    def range(*args, output_type="int64", name=None):  # noqa: A003  (TF's name)
        """``range(stop)``, ``range(start, stop[, step])`` as int64 scalars."""
        r = range(*(_count(a, "range argument") for a in args))
        dtype = _as_dtype(output_type)
        return Dataset(lambda: _Slices(lambda i: np.asarray(r[i], dtype), len(r)), len(r),
                       TensorSpec((), dtype))

    @staticmethod
    def counter(start=0, step=1, dtype="int64", name=None):
        """``start``, ``start + step``, ... forever, as ``dtype`` scalars (int64 by
        default); also ``tf.data.experimental.Counter``.

        >>> import eagertape.tf as tf
        >>> [int(x) for x in tf.data.Dataset.counter(10, -3).take(4)]
        [10, 7, 4, 1]
        """
        start, step = _count(start, "start"), _count(step, "step")
        dtype = _as_dtype(dtype)
        np_dtype = np.dtype(dtype)
        if np_dtype.kind not in "iuf":
            raise TypeError(f"Dataset.counter: argument `dtype` must be a number type, "
                            f"got {np_dtype.name}")
        return Dataset(lambda: _Slices(lambda i: np.asarray(start + i * step).astype(np_dtype),
                                       float("inf")),
                       INFINITE_CARDINALITY, TensorSpec((), dtype))

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Elements drawn from ``datasets`` at random, each from dataset ``i`` with
        probability ``weights[i]`` (uniform by default; a list, or a Dataset of weight
        vectors, one per draw). An exhausted dataset drops out of the draws (or ends
        the result when ``stop_on_empty_dataset``). The draws are eagertape's
        generator's, not TF's (as for ``shuffle``); a seed repeats them.

        >>> import eagertape.tf as tf
        >>> a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)
        >>> got = [int(x) for x in tf.data.Dataset.sample_from_datasets([a, b], seed=1)]
        >>> sorted(got)
        [0, 1, 2, 10, 11, 12]
        """
        datasets = list(datasets)
        if not datasets or not all(isinstance(d, Dataset) for d in datasets):
            raise TypeError("sample_from_datasets: argument `datasets` must be a non-empty "
                            "list of datasets")
        n = len(datasets)
        if weights is None:
            fixed = np.full(n, 1.0 / n)
        elif isinstance(weights, Dataset):
            fixed = None
        else:
            fixed = np.asarray(_to_numpy(weights), np.float64).reshape(-1)
            if fixed.shape != (n,) or (fixed < 0).any() or not fixed.sum() > 0:
                raise ValueError(f"sample_from_datasets: argument `weights` must hold {n} "
                                 "non-negative numbers (one per dataset) not all 0, got "
                                 f"{fixed.tolist()}")
            keep = [i for i in range(n) if fixed[i] > 0]
            if len(keep) == 1:          # TF drops the datasets of weight 0: one left is it
                return datasets[keep[0]]
            datasets, fixed, n = [datasets[i] for i in keep], fixed[keep], len(keep)
        seeds = _Seeds(_seed(seed))

        def make():
            rng = np.random.default_rng(seeds.next())
            passes = [d._make() for d in datasets]
            live = [True] * n
            weight_pass = None if fixed is not None else weights._make()
            while any(live):
                w = fixed if fixed is not None else np.asarray(
                    next(weight_pass), np.float64).reshape(-1)
                w = np.where(live, w, 0.0)
                if not w.sum() > 0:
                    return
                i = int(rng.choice(n, p=w / w.sum()))
                try:
                    yield next(passes[i])
                except StopIteration:
                    if stop_on_empty_dataset:
                        return
                    live[i] = False
        cards = [d._cardinality for d in datasets]
        card = INFINITE_CARDINALITY if INFINITE_CARDINALITY in cards else UNKNOWN_CARDINALITY
        return Dataset(make, card, datasets[0]._spec)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """Elements of ``datasets`` in the order ``choice_dataset`` (scalar int64
        indices) names them: each choice takes the next element of that dataset. An
        exhausted dataset ends the result (``stop_on_empty_dataset``, the default), or
        its choices are skipped and the result ends when all are exhausted; it also
        ends with ``choice_dataset``.

        >>> import numpy as np
        >>> import eagertape.tf as tf
        >>> a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)
        >>> choice = tf.data.Dataset.from_tensor_slices(np.array([0, 1, 1, 0], np.int64))
        >>> [int(x) for x in tf.data.Dataset.choose_from_datasets([a, b], choice)]
        [0, 10, 11, 1]
        """
        if isinstance(datasets, Dataset) or not isinstance(datasets, (list, tuple)):
            raise TypeError("Invalid `datasets`. `datasets` should be a list of datasets, got "
                            f"{type(datasets).__name__}")
        datasets = list(datasets)
        if not datasets:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        if not all(isinstance(d, Dataset) for d in datasets):
            raise TypeError("Invalid `datasets`. `datasets` should be a list of datasets")
        if not isinstance(choice_dataset, Dataset):
            raise TypeError("Invalid `choice_dataset`. `choice_dataset` should be a "
                            f"`tf.data.Dataset` but is {type(choice_dataset)}.")
        choice_spec = choice_dataset.element_spec
        if not (type(choice_spec) is TensorSpec and choice_spec.dtype == np.int64
                and choice_spec.shape is not None and choice_spec.shape.rank == 0):
            raise TypeError("Invalid `choice_dataset`. Elements of `choice_dataset` must be "
                            f"scalar `tf.int64` tensors but are {choice_spec}.")
        spec = _common_spec([d._static_spec() for d in datasets])
        n = len(datasets)

        def make():
            passes = [d._make() for d in datasets]
            live = [True] * n
            for choice in choice_dataset._make():
                i = int(np.asarray(choice))
                if not 0 <= i < n:
                    raise InvalidArgumentError(f"Selector index out of range: {i} >= {n}")
                if not live[i]:
                    continue
                try:
                    yield next(passes[i])
                except StopIteration:
                    if stop_on_empty_dataset:
                        return
                    live[i] = False
                    if not any(live):
                        return
        # TF's: infinite if one of ``datasets`` is, whatever the choices
        cards = [d._cardinality for d in datasets]
        card = INFINITE_CARDINALITY if INFINITE_CARDINALITY in cards else UNKNOWN_CARDINALITY
        return Dataset(make, card, spec)

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
            return _Zip([d._make() for d in parts], datasets)
        cards = [d._cardinality for d in parts]
        card = (UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in cards else
                min((c for c in cards if c >= 0), default=INFINITE_CARDINALITY))
        spec = None
        if all(d._spec is not None for d in parts):
            specs = iter([d._spec for d in parts])
            spec = _map(lambda _: next(specs), datasets)
        return Dataset(make, card, spec)

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
            dtypes = _map(lambda s: s if isinstance(s, _et.ExtensionTypeSpec)
                          else _as_dtype(s.dtype), sig)
            shapes = _map(lambda s: None if isinstance(s, _et.ExtensionTypeSpec)
                          else s.shape, sig)
        else:
            dtypes = _map(_as_dtype, output_types)
            shapes = output_shapes
        args = tuple(args or ())

        def make():
            for i, value in enumerate(generator(*args)):
                if _is_nest(dtypes) and not _same_structure(dtypes, value):
                    raise TypeError(f"from_generator: element {i} does not match the "
                                    f"structure of the signature ({dtypes})")
                # The signature's structure: a single spec takes the whole value (a
                # yielded 1-tuple is then a value of shape (1,), as TF's).
                element = _map(lambda d, v: _generated(v, d, i), dtypes, value)
                if shapes is not None:
                    _map(lambda a, s: _check_shape(a, s, i), element, shapes)
                yield element
        # TF's element_spec is the signature's (a shape not given is unknown): reading
        # it must not call the generator, whose calls a program sees (a Keras
        # ImageDataGenerator draws a shuffle from NumPy's generator at each call).
        spec = sig if output_signature is not None else _map(
            lambda d, s: TensorSpec(s, d), dtypes,
            shapes if shapes is not None else _map(lambda d: None, dtypes))
        return Dataset(make, UNKNOWN_CARDINALITY, spec)

    # -- transformations ------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """``map_func`` on every element (a tuple element is unpacked into its
        arguments)."""
        fn = _UserFn(map_func, "map", self._static_spec())
        upstream = self._make

        def make():
            return _Map(upstream(), fn)
        mapped = Dataset(make, self._cardinality)
        mapped._mapped = (upstream, fn)
        mapped._over = self
        return mapped

    def filter(self, predicate, name=None):
        """The elements for which ``predicate`` is True (a scalar bool)."""
        fn = _UserFn(predicate, "filter", self._static_spec())
        upstream = self._make

        def make():
            return _Filter(upstream(), fn)
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
        n = _count(batch_size, "batch_size")
        out = self._batched(n, drop_remainder, pad)
        if padded_shapes is None and self._spec is not None and all(
                type(s) is TensorSpec for s in _leaves(self._spec)):
            # TF's: padded to the longest, each a batch of the upstream's shape.
            out._spec = _map(lambda s: _batched_spec(s, n if drop_remainder else None),
                             self._spec)
        return out

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype="int64",
                     name=None):
        """Batches in which components of unknown shape become RaggedTensors (their
        rows of any length), as ``tf.data.experimental.dense_to_ragged_batch``.

        >>> import eagertape.tf as tf
        >>> ds = tf.data.Dataset.range(4).map(lambda n: tf.range(n)).ragged_batch(2)
        >>> [rt.to_list() for rt in ds]
        [[[], [0]], [[0, 1], [0, 1, 2]]]
        """
        n = _count(batch_size, "batch_size")
        # TF makes a component ragged where its static shape has an unknown axis;
        # eagertape knows the static shapes of its sources, and takes every
        # component of rank >= 1 of a mapped dataset's (unknown) shapes as ragged.
        known = self._spec

        def ragged_leaf(spec):
            # (an unknown shape, TensorSpec(None), is stacked dense, as TF's)
            return spec is None or (isinstance(spec, TensorSpec) and spec.shape is not None
                                    and spec.shape.rank and None in spec.shape.as_list())

        def combine(elements, first_index):
            flags = _map(ragged_leaf, known) if known is not None else None

            def one(*parts):
                *parts, flag = parts
                if flag and isinstance(parts[0], np.ndarray) and parts[0].ndim:
                    parts = [_Ragged(np.asarray(p), []) for p in parts]
                return _stack_leaf(list(parts), first_index)
            flag_nest = flags if flags is not None else _map(lambda _: True, elements[0])
            return _map(one, *elements, flag_nest)
        out = self._batched(n, drop_remainder, combine)
        if known is not None:
            out._spec = _map(lambda s: _batched_spec(
                _RaggedTensorSpec(s.shape, s.dtype, 0) if ragged_leaf(s) and not isinstance(
                    s, (_RaggedTensorSpec, _SparseTensorSpec)) else s,
                n if drop_remainder else None), known)
        return out

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """The elements of the batches again in batches of ``batch_size``.

        >>> import eagertape.tf as tf
        >>> [b.numpy().tolist() for b in tf.data.Dataset.range(5).batch(2).rebatch(3)]
        [[0, 1, 2], [3, 4]]
        """
        return self.unbatch().batch(batch_size, drop_remainder)

    def scan(self, initial_state, scan_func, name=None):
        """``scan_func(state, element) -> (new_state, output)`` over the elements,
        from ``initial_state``: the outputs.

        >>> import eagertape.tf as tf
        >>> ds = tf.data.Dataset.range(5).scan(tf.constant(0, tf.int64),
        ...                                   lambda s, x: (s + x, s + x))
        >>> [int(v) for v in ds]
        [0, 1, 3, 6, 10]
        """
        fn = _UserFn(lambda state, element: scan_func(state, *_as_args(element)), "scan")
        init = _map(_to_numpy, initial_state)
        upstream = self._make

        def make():
            return _Scan(upstream(), fn, init)
        return Dataset(make, self._cardinality)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of ``size`` elements (every ``stride``-th), one starting every
        ``shift`` elements; each window is a nest of datasets shaped as an element.

        >>> import eagertape.tf as tf
        >>> ds = tf.data.Dataset.range(6).window(3, shift=2, drop_remainder=True)
        >>> [[int(v) for v in w] for w in ds]
        [[0, 1, 2], [2, 3, 4]]
        """
        size = _count(size, "size")
        shift = size if shift is None else _count(shift, "shift")
        stride = _count(stride, "stride")
        for what, v in (("size", size), ("shift", shift), ("stride", stride)):
            if v <= 0:
                raise InvalidArgumentError(f"argument `{what}` must be positive, got {v}")
        upstream = self._make

        def make():
            return _Window(upstream(), size, shift, stride, drop_remainder)
        return Dataset(make, UNKNOWN_CARDINALITY)

    def _batched(self, n, drop_remainder, combine):
        if n <= 0:
            raise InvalidArgumentError(f"argument `batch_size` must be positive, got {n}")
        upstream = self._make

        def make():
            return _Batch(upstream(), n, drop_remainder, combine)
        c = self._cardinality
        card = c if c < 0 else (c // n if drop_remainder else -(-c // n))
        spec = None if self._spec is None or combine is not _stack else _map(
            lambda s: _batched_spec(s, n if drop_remainder else None), self._spec)
        out = Dataset(make, card, spec)
        out._unknown_batch = not drop_remainder
        return out

    def unbatch(self, name=None):
        """The inverse of ``batch``: every element split along its first dimension."""
        upstream = self._make

        def make():
            return _Unbatch(upstream())
        c, card = self._cardinality, UNKNOWN_CARDINALITY
        if c == INFINITE_CARDINALITY:
            card = c
        elif c >= 0 and self._spec is not None:
            # TF knows the count where the batch dimension is known statically.
            sizes = {s.shape[0] if s.shape else None for s in _leaves(self._spec)}
            if len(sizes) == 1 and None not in sizes:
                card = c * sizes.pop()
        spec = None if self._spec is None else _map(_unbatched_spec, self._spec)
        return Dataset(make, card, spec)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Elements drawn at random from a buffer of ``buffer_size`` (TF's algorithm:
        a buffer as large as the dataset shuffles it uniformly); a new order on
        every pass unless ``reshuffle_each_iteration=False``."""
        size = _count(buffer_size, "buffer_size")
        if size <= 0 and size != AUTOTUNE:
            raise InvalidArgumentError(f"argument `buffer_size` must be positive, got {size}")
        seeds = _Seeds(_seed(seed))
        upstream = self._make

        def make():
            # Each pass takes the next child seed: a new order every pass, the same
            # sequence of orders for the same seed.
            return _Shuffle(upstream(), size, seeds, reshuffle_each_iteration)
        return Dataset(make, self._cardinality, self._spec)

    def repeat(self, count=None, name=None):
        """The dataset ``count`` times over (None or -1: forever), each pass afresh."""
        count = -1 if count is None else _count(count, "count")
        upstream = self._make

        def make():
            return _Repeat(upstream, count)
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
        return Dataset(lambda: _Take(upstream(), count), card, self._spec)

    def skip(self, count, name=None):
        """All but the first ``count`` elements (-1: none)."""
        count = _count(count, "count")
        upstream = self._make
        c = self._cardinality
        if count < 0:
            return Dataset(lambda: _Slices(None, 0), 0, self._spec)
        card = c if c < 0 else max(c - count, 0)
        return Dataset(lambda: _Stride(upstream(), count, 1), card, self._spec)

    def take_while(self, predicate, name=None):
        """Elements up to the first for which ``predicate`` is False."""
        fn = _UserFn(predicate, "take_while")
        upstream = self._make

        def make():
            return _TakeWhile(upstream(), fn)
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
        return Dataset(lambda: _Stride(upstream(), index, num_shards), card, self._spec)

    def enumerate(self, start=0, name=None):  # noqa: A003  (TF's name)
        """``(index, element)`` pairs, the index an int64 counting from ``start``."""
        start = _count(start, "start")
        upstream = self._make
        return Dataset(lambda: _Enumerate(upstream(), start), self._cardinality)

    def concatenate(self, dataset, name=None):
        """This dataset's elements, then ``dataset``'s (the same structure)."""
        if not isinstance(dataset, Dataset):
            raise TypeError(f"concatenate takes a Dataset, got {type(dataset).__name__}")
        a, b = self._make, dataset._make
        ca, cb = self._cardinality, dataset._cardinality
        card = (INFINITE_CARDINALITY if INFINITE_CARDINALITY in (ca, cb) else
                UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in (ca, cb) else ca + cb)
        return Dataset(lambda: _Concatenate(a, b), card, self._spec)

    def flat_map(self, map_func, name=None):
        """``map_func`` maps each element to a Dataset; their elements, in order."""
        upstream = self._make

        def make():
            return _FlatMap(upstream(), map_func)
        return Dataset(make, UNKNOWN_CARDINALITY)

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        """``map_func`` maps each element to a Dataset; ``cycle_length`` of them are
        read at once, ``block_length`` elements from each in turn (TF's order)."""
        cycle = _autotuned_cycle(num_parallel_calls) if cycle_length in (None, AUTOTUNE) \
            else _count(cycle_length, "cycle_length")
        block = 1 if block_length is None else _count(block_length, "block_length")
        upstream = self._make

        def make():
            return _Interleave(upstream(), map_func, cycle, block)
        return Dataset(make, UNKNOWN_CARDINALITY)

    def cache(self, filename="", name=None):
        """Elements kept in memory by the first complete pass and replayed by the
        next (``filename`` is accepted; the cache stays in memory)."""
        upstream, store = self._make, {}

        def make():
            return _Cache(upstream, store)
        return Dataset(make, self._cardinality, self._spec)

    def snapshot(self, path, compression="AUTO", reader_func=None, shard_func=None,
                 name=None):
        """The elements, kept under folder ``path`` by the first complete pass and read
        back from there by later passes, in this process or a later one, instead of
        running the pipeline before it (TF's ``snapshot``): the folder holds one
        snapshot per pipeline (a fingerprint of the pipeline names it), and a pass
        left unfinished writes nothing a later pass reads.

        ``shard_func(element)`` (an integer scalar) puts elements into shards (by
        default the element's index modulo the CPUs, as TF); a later pass gives
        ``reader_func`` the Dataset of the shards' Datasets, by shard, and iterates
        the Dataset it returns (by default TF's: their interleave, one element from
        each in turn, which is the written order). Differences from TF: the files
        are eagertape's own (TF's snapshot reader cannot read them, nor eagertape
        TF's); ``compression`` "GZIP" is gzip, "AUTO" and "SNAPPY" are written
        uncompressed (Python has no Snappy codec); a pipeline whose functions
        capture what eagertape cannot fingerprint by value (an open file, a large
        model) is written again by each new process.

        >>> import tempfile
        >>> import eagertape.tf as tf
        >>> calls = []
        >>> def load(x):
        ...     calls.append(int(x))
        ...     return x * 10
        >>> ds = tf.data.Dataset.range(3).map(
        ...     lambda x: tf.py_function(load, [x], tf.int64)).snapshot(tempfile.mkdtemp())
        >>> [int(x) for x in ds], [int(x) for x in ds], calls
        ([0, 10, 20], [0, 10, 20], [0, 1, 2])
        """
        from ._gfile import _path
        if not isinstance(path, (str, bytes, os.PathLike, _TensorLike)):
            raise TypeError("snapshot: argument `path` must be a folder's path (str, bytes, "
                            f"os.PathLike or a string tensor), got {type(path).__name__}")
        folder = _path(path, "path")
        kind = _snapshot.compression(compression)
        for arg, fn in (("reader_func", reader_func), ("shard_func", shard_func)):
            if fn is not None and not callable(fn):
                raise TypeError(f"snapshot: argument `{arg}` must be a function, got "
                                f"{type(fn).__name__}")
        shard = None if shard_func is None else _UserFn(shard_func, "snapshot")
        upstream, spec, cores = self._make, self._spec, _cpu_count()
        key = _snapshot.fingerprint(self, _FINGERPRINTED) or \
            f"process-{os.getpid()}-{id(self):x}-{next(_process_keys)}"
        folder = os.path.join(folder, key)

        def shard_of(element, i):
            if shard is None:
                return i % cores
            out = np.asarray(_to_numpy(shard(element, i)))
            if out.ndim or out.dtype.kind not in "iu":
                raise TypeError("Invalid `shard_func`. `shard_func` must return an int64 "
                                f"scalar tensor but it returned {out.dtype} of shape "
                                f"{list(out.shape)} (element {i})")
            return int(out)

        def read(meta):
            files = _snapshot.shard_files(folder, meta)
            shards = [Dataset(functools.partial(_snapshot.read_shard, f, meta["compression"]),
                              UNKNOWN_CARDINALITY, spec) for _, f in files]
            datasets = Dataset(lambda: _Slices(shards.__getitem__, len(shards)), len(shards),
                               None if spec is None else DatasetSpec(spec))
            if reader_func is None:
                out = datasets.interleave(lambda d: d, cycle_length=cores,
                                          num_parallel_calls=AUTOTUNE)
            else:
                out = reader_func(datasets)
                if not isinstance(out, Dataset):
                    raise TypeError("snapshot: argument `reader_func` must return a Dataset, "
                                    f"got {type(out).__name__}")
            return out._make()

        def make():
            meta = _snapshot.finished(folder)
            if meta is not None:
                yield from read(meta)
                return
            writer = _snapshot.Writer(folder, kind)
            try:
                for i, element in enumerate(upstream()):
                    writer.write(shard_of(element, i), _map(
                        lambda a: np.array(a, object) if isinstance(a, bytes) else a, element))
                    yield element
                writer.finish()
            finally:
                writer.close()
        return Dataset(make, self._cardinality, spec)

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

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None,
                           name=None):
        """``(class, element)`` pairs resampled so that the classes
        (``class_func(element)``, an int scalar) follow ``target_dist``, given the
        classes' ``initial_dist``: TF's recipe (a mix of the dataset as it is and a
        rejection-filtered pass of it, by TF's acceptance probabilities); the draws are
        eagertape's generator's, not TF's. ``initial_dist`` is needed here (TF can
        estimate it; eagertape does not yet).

        >>> import eagertape.tf as tf
        >>> ds = tf.data.Dataset.from_tensor_slices([0, 0, 0, 1])
        >>> out = ds.rejection_resample(lambda x: x, [0.5, 0.5], [0.75, 0.25], seed=1)
        >>> all(int(c) == int(x) for c, x in out)
        True
        """
        if initial_dist is None:
            raise NotImplementedError(
                "rejection_resample: give argument `initial_dist` (the classes' fractions "
                "in the dataset); eagertape does not estimate it as TF does")
        target = np.asarray(_to_numpy(target_dist), np.float32).reshape(-1)
        initial = np.asarray(_to_numpy(initial_dist), np.float32).reshape(-1)
        if target.shape != initial.shape:
            raise ValueError("rejection_resample: arguments `target_dist` and `initial_dist` "
                             f"must have one entry per class, got {target.size} and "
                             f"{initial.size}")
        ratio = target / (initial + np.finfo(np.float32).tiny)
        m = ratio.min()
        with np.errstate(divide="ignore", invalid="ignore"):
            accept = (ratio - m) / (ratio.max() - m)
            prob_original = np.min(target / initial)

        def add_class_value(*x):
            return (class_func(*x), x[0]) if len(x) == 1 else (class_func(*x), x)
        mapped = self.map(add_class_value)
        if prob_original == 1:
            return mapped
        seeds = _Seeds(_seed(seed))

        def make():
            rng = np.random.default_rng(seeds.next())
            for c, element in mapped._make():
                if rng.random() < float(accept[int(np.asarray(c))]):
                    yield (c, element)
        filtered = Dataset(make, UNKNOWN_CARDINALITY, mapped._spec)
        if prob_original == 0:
            return filtered
        return Dataset.sample_from_datasets([mapped, filtered], [float(m), 1.0 - float(m)],
                                            seed=seed, stop_on_empty_dataset=True)

    def reduce(self, initial_state, reduce_func, name=None):
        """``reduce_func(state, element)`` over all elements, from ``initial_state``
        (a tuple element is one argument, not unpacked: TF's two arguments)."""
        state = initial_state
        for element in self._make():
            state = reduce_func(state, _map(_to_tensor, element))
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
        spec = self._static_spec()
        if spec is not None:
            return spec
        first = next(iter(self._make()), None)
        if first is None:
            raise ValueError("element_spec of an empty dataset whose functions were not "
                             "traced is not known to eagertape")
        return _spec_of(first, self._unknown_batch)

    _unknown_batch = False      # a batch's first dimension, not known statically (TF's None)
    _over = None                # the dataset a map maps
    _traced = None              # (its element spec, the map's traced from it)

    def _static_spec(self):
        """The element spec known without running the pipeline (a source's, or a map's
        traced from its input's as TF traces it: a generator is not called), or None."""
        if self._spec is not None or self._over is None:
            return self._spec
        up = self._over._static_spec()
        if up is None:
            return None
        if self._traced is None or self._traced[0] is not up:
            fn = self._mapped[1]
            self._traced = (up, _spec_of_trace(fn.trace) if fn.trace is not None
                            else _traced_spec(fn, up))
        return self._traced[1]

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
    as TF's iterator has. A ``tf.train.Checkpoint`` saves its position, as TF's
    (restored, ``next`` gives the element that came after the save)."""

    def __init__(self, dataset):
        self._dataset = dataset
        self._it = dataset._make()
        self._made_in = _extend.function_trace()     # made while a function is traced

    def __iter__(self):
        return self

    def __next__(self):
        if self._made_in is not None and self._made_in is _extend.function_trace():
            # Made in the trace being made (a loop over a dataset inside the
            # function): the dataset is gone through at the trace, its elements the
            # trace's, as each call of TF's function goes through it anew.
            return self._take()
        # An iterator from outside the function: an input of each call (TF's
        # IteratorGetNext op), not the element of the trace kept as a constant.
        return _extend.next_element(self, self._take)

    def _take(self):
        return _map(_to_tensor, next(self._it))

    next = __next__     # TF's iterator has next() too (the extension-type guide calls it)

    def _save(self):
        """The position, as ``tf.train.Checkpoint`` saves it (see _iterator_state)."""
        return _state.save(self._it)

    def _restored(self, state):
        """A fresh pass put where ``state`` says; ``_commit`` it to go on from there
        (nothing changes here until then)."""
        it = self._dataset._make()
        _state.restore(it, state)
        return it

    def _commit(self, it):
        self._it = it

    def get_next(self):
        try:
            return next(self)
        except StopIteration:
            raise OutOfRangeError("End of sequence") from None


def _map_and_batch(upstream, fn, n, drop_remainder):
    def combine(elements, start):
        out = fn.batched(elements, start)
        if out is None:
            out = _stack([_map(_to_numpy, fn(e, start + k))
                          for k, e in enumerate(elements)], start)
        return _map(_to_numpy, out)
    return lambda: _Batch(upstream(), n, drop_remainder, combine, fn)


# -- passes: one per transformation, each able to say where it is -------------------
# A pass's state is its own position and its upstream pass's (``up``); see
# _iterator_state. Every pass stays ended once it has ended, as a generator does.

class _Slices(_state.Pass):
    """Elements by position: from_tensor_slices, from_tensors, range."""
    __slots__ = ("get", "n", "i")

    def __init__(self, get, n):
        self.get, self.n, self.i = get, n, 0

    def __next__(self):
        i = self.i
        if i >= self.n:
            raise StopIteration
        self.i = i + 1
        return self.get(i)

    def save(self):
        return {"i": self.i}

    def restore(self, state):
        self.i = int(state["i"])


class _Map(_state.Pass):
    __slots__ = ("up", "fn", "i")

    def __init__(self, up, fn):
        self.up, self.fn, self.i = up, fn, 0

    def __next__(self):
        element = next(self.up)
        i = self.i
        self.i = i + 1
        return _map(_to_numpy, self.fn(element, i))

    def save(self):
        self.fn.check_saveable()
        return {"i": self.i, "up": _state.save(self.up)}

    def restore(self, state):
        self.i = int(state["i"])
        _state.restore(self.up, state["up"])


class _Filter(_Map):
    __slots__ = ()

    def __next__(self):
        while True:
            element = next(self.up)
            i = self.i
            self.i = i + 1
            keep = np.asarray(_to_numpy(self.fn(element, i)))
            if keep.shape != () or keep.dtype != np.bool_:
                raise ValueError("Dataset.filter's predicate must return a scalar bool "
                                 f"tensor, got dtype {keep.dtype} and shape {keep.shape}")
            if keep:
                return element


class _TakeWhile(_Map):
    __slots__ = ()

    def __next__(self):
        if self.up is None:
            raise StopIteration
        element = next(self.up)
        i = self.i
        self.i = i + 1
        if not bool(np.asarray(_to_numpy(self.fn(element, i)))):
            self.up = None
            raise StopIteration
        return element

    def save(self):
        self.fn.check_saveable()
        return {"i": self.i, "up": _state.save(self.up), "ended": self.up is None}

    def restore(self, state):
        if state["ended"]:
            self.up, self.i = None, int(state["i"])
        else:
            super().restore(state)


class _Enumerate(_state.Pass):
    __slots__ = ("up", "i")

    def __init__(self, up, start):
        self.up, self.i = up, start

    def __next__(self):
        element = next(self.up)
        i = self.i
        self.i = i + 1
        return np.asarray(i, np.int64), element

    def save(self):
        return {"i": self.i, "up": _state.save(self.up)}

    def restore(self, state):
        self.i = int(state["i"])
        _state.restore(self.up, state["up"])


class _Batch(_state.Pass):
    """Consecutive elements combined (batch, padded_batch, map and batch fused)."""
    __slots__ = ("up", "n", "drop", "combine", "fn", "start")

    def __init__(self, up, n, drop, combine, fn=None):
        self.up, self.n, self.drop, self.combine, self.fn = up, n, drop, combine, fn
        self.start = 0

    def __next__(self):
        elements = list(itertools.islice(self.up, self.n))
        if not elements or (self.drop and len(elements) < self.n):
            raise StopIteration
        start = self.start
        self.start = start + self.n
        return self.combine(elements, start)

    def save(self):
        if self.fn is not None:
            self.fn.check_saveable()
        return {"start": self.start, "up": _state.save(self.up)}

    def restore(self, state):
        self.start = int(state["start"])
        _state.restore(self.up, state["up"])


class _Unbatch(_state.Pass):
    __slots__ = ("up", "element", "k", "n")

    def __init__(self, up):
        self.up, self.element, self.k, self.n = up, None, 0, 0

    def __next__(self):
        while self.k >= self.n:
            element = next(self.up)
            leaves = _leaves(element)
            sizes = {_nrows(a) for a in leaves}
            if None in sizes or len(sizes) != 1:
                raise InvalidArgumentError(
                    "unbatch: every component must have the same first dimension, "
                    f"got sizes {[_nrows(a) for a in leaves]}")
            self.element, self.k, self.n = element, 0, sizes.pop()
        k = self.k
        self.k = k + 1
        return _map(lambda a: a[k], self.element)

    def save(self):
        rest = self.element if self.k < self.n else None
        return {"up": _state.save(self.up), "element": rest, "k": self.k, "n": self.n}

    def restore(self, state):
        _state.restore(self.up, state["up"])
        self.element, self.k, self.n = state["element"], int(state["k"]), int(state["n"])


class _Seeds:
    """The seeds of a shuffle's passes, one after another (TF's seed generator of a
    dataset): a pass takes the next; a restored pass sets where the next comes from."""
    __slots__ = ("entropy", "count", "given")

    def __init__(self, seed):
        self.entropy, self.count = np.random.SeedSequence(seed).entropy, 0
        self.given = seed       # (None: drawn afresh; a snapshot's fingerprint reads it)

    def fixed(self):
        return np.random.SeedSequence(self.entropy)

    def next(self):
        # (SeedSequence.spawn's n-th child, with the count kept here)
        child = np.random.SeedSequence(self.entropy, spawn_key=(self.count,))
        self.count += 1
        return child

    def save(self):
        return {"entropy": int(self.entropy), "count": self.count}

    def restore(self, state):
        self.entropy, self.count = int(state["entropy"]), int(state["count"])


class _Uniforms:
    """Uniform draws in [0, 1), made in blocks (one NumPy call per 4096)."""
    __slots__ = ("rng", "block", "k", "state")

    def __init__(self, rng):
        self.rng, self.block, self.k, self.state = rng, [], 0, None

    def next(self):
        if self.k == len(self.block):
            self.state = self.rng.bit_generator.state
            self.block, self.k = self.rng.random(4096).tolist(), 0
        k = self.k
        self.k = k + 1
        return self.block[k]

    def save(self):
        # The generator's state before the current block, and the place in it.
        if self.state is None:
            return {"state": self.rng.bit_generator.state, "k": None}
        return {"state": self.state, "k": self.k}

    def restore(self, state):
        self.rng.bit_generator.state = state["state"]
        if state["k"] is not None:
            self.next()
            self.k = int(state["k"])


class _Shuffle(_state.Pass):
    """TF's buffer shuffle: fill a buffer, then give a random one of it and put the
    next element in its place; at the end, empty the buffer at random."""
    __slots__ = ("up", "size", "seeds", "draws", "buffer", "filled")

    def __init__(self, up, size, seeds, reshuffle):
        self.seeds = seeds
        rng = np.random.default_rng(seeds.next() if reshuffle else seeds.fixed())
        self.up, self.size, self.draws = up, size, _Uniforms(rng)
        self.buffer, self.filled = [], False

    def __next__(self):
        buffer = self.buffer
        if not self.filled:
            self.filled = True
            for element in self.up:
                buffer.append(element)
                if len(buffer) >= self.size:
                    break
        if self.up is not None:
            try:
                element = next(self.up)
            except StopIteration:
                self.up = None
            else:
                j = int(self.draws.next() * len(buffer))
                out = buffer[j]
                buffer[j] = element
                return out
        if not buffer:
            raise StopIteration
        j = int(self.draws.next() * len(buffer))
        buffer[j], buffer[-1] = buffer[-1], buffer[j]
        return buffer.pop()

    def save(self):
        return {"up": _state.save(self.up), "ended": self.up is None, "filled": self.filled,
                "buffer": list(self.buffer), "draws": self.draws.save(),
                "seeds": self.seeds.save()}

    def restore(self, state):
        if state["ended"]:
            self.up = None
        else:
            _state.restore(self.up, state["up"])
        self.filled, self.buffer = bool(state["filled"]), list(state["buffer"])
        self.draws.restore(state["draws"])
        # The dataset's later passes (a repeat's next epochs) shuffle as they would have.
        self.seeds.restore(state["seeds"])


class _Repeat(_state.Pass):
    __slots__ = ("make", "count", "epoch", "up", "empty")

    def __init__(self, make, count):
        self.make, self.count, self.epoch, self.up, self.empty = make, count, 0, None, False

    def __next__(self):
        while True:
            if self.up is None:
                if self.empty or 0 <= self.count <= self.epoch:
                    raise StopIteration
                self.up, self.empty = self.make(), True
            try:
                element = next(self.up)
            except StopIteration:
                # TF ends an infinite repeat of an empty dataset too
                self.up, self.epoch = None, self.epoch + 1
                continue
            self.empty = False
            return element

    def save(self):
        return {"epoch": self.epoch, "empty": self.empty, "up": _state.save(self.up)}

    def restore(self, state):
        self.epoch, self.empty = int(state["epoch"]), bool(state["empty"])
        if state["up"] is not None:
            self.up = self.make()
            _state.restore(self.up, state["up"])


class _Take(_state.Pass):
    __slots__ = ("up", "left")

    def __init__(self, up, count):
        self.up, self.left = up, count

    def __next__(self):
        if self.left <= 0:
            raise StopIteration
        element = next(self.up)
        self.left -= 1
        return element

    def save(self):
        return {"left": self.left, "up": _state.save(self.up)}

    def restore(self, state):
        self.left = int(state["left"])
        _state.restore(self.up, state["up"])


class _Stride(_state.Pass):
    """``islice(up, start, None, step)``: skip and shard."""
    __slots__ = ("up", "todo", "step")

    def __init__(self, up, start, step):
        self.up, self.todo, self.step = up, start, step

    def __next__(self):
        while self.todo:
            next(self.up)
            self.todo -= 1
        element = next(self.up)
        self.todo = self.step - 1
        return element

    def save(self):
        return {"todo": self.todo, "up": _state.save(self.up)}

    def restore(self, state):
        self.todo = int(state["todo"])
        _state.restore(self.up, state["up"])


class _Zip(_state.Pass):
    __slots__ = ("ups", "structure", "ended")

    def __init__(self, ups, structure):
        self.ups, self.structure, self.ended = ups, structure, False

    def __next__(self):
        if self.ended:
            raise StopIteration
        try:
            items = iter([next(up) for up in self.ups])
        except StopIteration:
            self.ended = True
            raise
        return _map(lambda _: next(items), self.structure)

    def save(self):
        return {"ended": self.ended, "ups": [_state.save(up) for up in self.ups]}

    def restore(self, state):
        self.ended = bool(state["ended"])
        if len(state["ups"]) != len(self.ups):
            raise ValueError("a zip of another number of datasets")
        for up, s in zip(self.ups, state["ups"]):
            _state.restore(up, s)


class _Concatenate(_state.Pass):
    __slots__ = ("makes", "which", "up")

    def __init__(self, first, second):
        self.makes, self.which, self.up = (first, second), 0, first()

    def __next__(self):
        while True:
            try:
                return next(self.up)
            except StopIteration:
                if self.which == 1:
                    raise
                self.which, self.up = 1, self.makes[1]()

    def save(self):
        return {"which": self.which, "up": _state.save(self.up)}

    def restore(self, state):
        self.which = int(state["which"])
        self.up = self.makes[self.which]()
        _state.restore(self.up, state["up"])


class _Scan(_state.Pass):
    __slots__ = ("up", "fn", "i", "state")

    def __init__(self, up, fn, state):
        self.up, self.fn, self.i, self.state = up, fn, 0, state

    def __next__(self):
        element = next(self.up)
        i = self.i
        out = self.fn((self.state, element), i)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError("Dataset.scan's function must return a pair (new_state, output)")
        new_state = _map(_to_numpy, out[0])
        if not _same_structure(new_state, self.state):
            raise TypeError("Dataset.scan's function must return a new state of the "
                            "structure of `initial_state`")
        self.i, self.state = i + 1, new_state
        return _map(_to_numpy, out[1])

    def save(self):
        self.fn.check_saveable()
        return {"i": self.i, "up": _state.save(self.up), "state": self.state}

    def restore(self, state):
        self.i, self.state = int(state["i"]), state["state"]
        _state.restore(self.up, state["up"])


class _WindowDataset:
    """One component of a window: a dataset of a few elements, kept as their list
    (an iterator's checkpoint saves them so)."""

    @staticmethod
    def make(items):
        ds = Dataset(lambda: _Slices(lambda i: items[i], len(items)), len(items))
        ds._window_items = items
        ds._state_encode = lambda: ("window", list(items))
        return ds


_state.DECODERS["window"] = _WindowDataset.make


class _Window(_state.Pass):
    __slots__ = ("up", "size", "shift", "stride", "drop", "buffer", "skip")

    def __init__(self, up, size, shift, stride, drop):
        self.up, self.size, self.shift, self.stride, self.drop = up, size, shift, stride, drop
        self.buffer, self.skip = [], 0

    def __next__(self):
        need = (self.size - 1) * self.stride + 1
        while self.up is not None and (self.skip or len(self.buffer) < need):
            try:
                element = next(self.up)
            except StopIteration:
                self.up = None
                break
            if self.skip:
                self.skip -= 1
            else:
                self.buffer.append(element)
        picked = self.buffer[::self.stride][:self.size]
        if not picked or (self.drop and len(picked) < self.size):
            self.buffer = []
            raise StopIteration
        # The next window starts ``shift`` elements on (some maybe not read yet).
        self.skip = max(self.shift - len(self.buffer), 0)
        self.buffer = self.buffer[self.shift:]
        structure = picked[0]
        leaves = [_leaves(e) for e in picked]
        columns = iter([_WindowDataset.make([row[k] for row in leaves])
                        for k in range(len(leaves[0]))])
        return _map(lambda _: next(columns), structure)

    def save(self):
        return {"up": _state.save(self.up), "ended": self.up is None,
                "buffer": list(self.buffer), "skip": self.skip}

    def restore(self, state):
        if state["ended"]:
            self.up = None
        else:
            _state.restore(self.up, state["up"])
        self.buffer, self.skip = list(state["buffer"]), int(state["skip"])


class _Interleave(_state.Pass):
    """TF's order: ``cycle`` fixed slots visited in turn, ``block`` elements from each;
    an empty slot takes the next input when its turn comes, an exhausted one is
    emptied and the turn passes on."""
    __slots__ = ("up", "fn", "cycle", "block", "slots", "k", "taken", "more", "i")

    def __init__(self, up, fn, cycle, block):
        self.up, self.fn, self.cycle, self.block = up, fn, cycle, block
        # A slot: [input element, its index, the pass of its dataset].
        self.slots, self.k, self.taken, self.more, self.i = [None] * cycle, 0, 0, True, 0

    def __next__(self):
        slots = self.slots
        while self.more or any(s is not None for s in slots):
            k = self.k
            if slots[k] is None:
                nxt = None
                if self.more:
                    try:
                        nxt = next(self.up)
                    except StopIteration:
                        nxt = None
                if nxt is None:
                    self.more = False
                    self.k, self.taken = (k + 1) % self.cycle, 0
                else:
                    i = self.i
                    self.i = i + 1
                    slots[k] = [nxt, i, _inner(self.fn, nxt, i, "interleave")._make()]
                continue
            try:
                element = next(slots[k][2])
            except StopIteration:
                slots[k] = None
                self.k, self.taken = (k + 1) % self.cycle, 0
                continue
            self.taken += 1
            if self.taken == self.block:
                self.k, self.taken = (k + 1) % self.cycle, 0
            return element
        raise StopIteration

    def save(self):
        return {"up": _state.save(self.up) if self.more else None, "more": self.more,
                "k": self.k, "taken": self.taken, "i": self.i,
                "slots": [None if s is None else {"element": s[0], "index": s[1],
                                                  "pass": _state.save(s[2])}
                          for s in self.slots]}

    def restore(self, state):
        if len(state["slots"]) != self.cycle:
            raise ValueError("an interleave of another cycle_length")
        self.more = bool(state["more"])
        if self.more:
            _state.restore(self.up, state["up"])
        self.k, self.taken, self.i = int(state["k"]), int(state["taken"]), int(state["i"])
        slots = []
        for s in state["slots"]:
            if s is None:
                slots.append(None)
                continue
            it = _inner(self.fn, s["element"], int(s["index"]), "interleave")._make()
            _state.restore(it, s["pass"])
            slots.append([s["element"], int(s["index"]), it])
        self.slots = slots


class _FlatMap(_state.Pass):
    __slots__ = ("up", "fn", "i", "element", "inner")

    def __init__(self, up, fn):
        self.up, self.fn, self.i, self.element, self.inner = up, fn, 0, None, None

    def __next__(self):
        while True:
            if self.inner is None:
                element = next(self.up)
                self.i += 1
                self.inner = _inner(self.fn, element, self.i - 1, "flat_map")._make()
                self.element = element
            try:
                return next(self.inner)
            except StopIteration:
                self.inner = self.element = None

    def save(self):
        # The element whose dataset is being read: its dataset is made again from it.
        return {"i": self.i, "up": _state.save(self.up), "element": self.element,
                "inner": _state.save(self.inner)}

    def restore(self, state):
        self.i = int(state["i"])
        _state.restore(self.up, state["up"])
        if state["inner"] is not None:
            self.element = state["element"]
            self.inner = _inner(self.fn, self.element, self.i - 1, "flat_map")._make()
            _state.restore(self.inner, state["inner"])


class _Cache(_state.Pass):
    """A pass that fills the cache, or one that reads it (where a pass filled it)."""
    __slots__ = ("make", "store", "up", "seen", "i")

    def __init__(self, make, store):
        self.make, self.store, self.i = make, store, 0
        filled = "elements" in store
        self.up, self.seen = (None, None) if filled else (make(), [])

    def __next__(self):
        if self.up is None:
            elements = self.store["elements"]
            if self.i >= len(elements):
                raise StopIteration
            self.i += 1
            return elements[self.i - 1]
        try:
            element = next(self.up)
        except StopIteration:
            self.store["elements"] = self.seen     # only a complete pass fills it, as in TF
            self.up = None
            self.i = len(self.seen)
            raise
        self.seen.append(element)
        return element

    def save(self):
        # As TF's, the elements cached so far are saved with the position.
        if self.up is None:
            return {"filling": False, "i": self.i, "elements": list(self.store["elements"])}
        return {"filling": True, "up": _state.save(self.up), "elements": list(self.seen)}

    def restore(self, state):
        if state["filling"]:
            if self.up is None:
                self.up = self.make()
            _state.restore(self.up, state["up"])
            self.seen = list(state["elements"])
        else:
            self.up, self.seen = None, None
            self.store.setdefault("elements", list(state["elements"]))
            self.i = int(state["i"])


# What a snapshot's fingerprint reads of eagertape's own objects: a dataset's recipe
# (not a cache it fills), a function's Python (not its compiled traces), a shuffle's
# seed as given (not the one drawn when none is).
_FINGERPRINTED = {
    Dataset: lambda d: (d._make, d._cardinality),
    _UserFn: lambda f: f.fn,
    _Seeds: lambda s: s.given,
}


class NumpyIterator:
    """``dataset.as_numpy_iterator()``: elements as NumPy values (arrays; scalars as
    NumPy scalars, as TF's)."""

    def __init__(self, dataset):
        self._dataset = dataset
        self._it = dataset._make()

    _save, _restored, _commit = Iterator._save, Iterator._restored, Iterator._commit

    def __iter__(self):
        return self

    def __next__(self):
        return _map(lambda a: a if isinstance(a, bytes) else a.value() if isinstance(
            a, _Composite) else a[()] if np.ndim(a) == 0 else np.asarray(a), next(self._it))

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


def _generated(value, dtype, index):
    """A generator's value for its signature's entry (a dtype, or an ExtensionType's
    Spec, which the value must fit)."""
    if isinstance(dtype, _et.ExtensionTypeSpec):
        if not dtype.is_compatible_with(value):
            raise TypeError(f"from_generator: element {index} ({type(value).__name__}) does "
                            f"not match its output_signature {dtype!r}")
        return _Extension.of(value)
    return _to_numpy(np.asarray(value), dtype)


def _check_shape(array, shape, index):
    shape = None if shape is None else tuple(shape)
    if shape is not None and (len(shape) != array.ndim or any(
            s is not None and s != d for s, d in zip(shape, array.shape))):
        raise TypeError(f"from_generator: element {index} has shape {array.shape}, the "
                        f"signature says {shape}")


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


def _stack_leaf(parts, first_index):
    return _stack([(p,) for p in parts], first_index)[0]


def _stack(elements, first_index):
    def stack(*parts):
        if isinstance(parts[0], _Composite) or isinstance(parts[-1], _Composite):
            kind = type(parts[0])
            if not all(type(p) is kind for p in parts):
                raise InvalidArgumentError("Cannot batch a SparseTensor or RaggedTensor "
                                           "component with other kinds of values")
            return kind.stack(list(parts))
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
    if isinstance(parts[0], _Composite):
        kind = "RaggedTensor" if isinstance(parts[0], _Ragged) else "SparseTensor"
        raise TypeError(f"padded_batch: batching of {kind} components is not supported "
                        "(as in TF): use batch (it keeps the rows ragged, or the SparseTensor "
                        "sparse), or ragged_batch")
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


class AutoShardPolicy(enum.IntEnum):
    """``tf.data.experimental.AutoShardPolicy``: how TF shards a dataset among the
    workers of a ``tf.distribute`` strategy (``Options().experimental_distribute``);
    taken, no effect: eagertape's strategies have one worker, which reads it all.

    >>> import eagertape.tf as tf
    >>> int(tf.data.experimental.AutoShardPolicy.DATA)
    2
    """
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class _Experimental:
    """``tf.data.experimental``: the names TF programs still use."""
    AUTOTUNE = AUTOTUNE
    AutoShardPolicy = AutoShardPolicy
    INFINITE_CARDINALITY = INFINITE_CARDINALITY
    UNKNOWN_CARDINALITY = UNKNOWN_CARDINALITY

    @staticmethod
    def cardinality(dataset):
        return dataset.cardinality()

    @staticmethod
    def get_single_element(dataset):
        return dataset.get_single_element()

    @staticmethod
    def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype="int64"):
        """``dataset.apply(...)``: ``Dataset.ragged_batch``.

        >>> import eagertape.tf as tf
        >>> ds = tf.data.Dataset.range(3).map(lambda n: tf.range(n))
        >>> ds.apply(tf.data.experimental.dense_to_ragged_batch(3)).get_single_element().to_list()
        [[], [0], [0, 1]]
        """
        return lambda ds: ds.ragged_batch(batch_size, drop_remainder, row_splits_dtype)

    @staticmethod
    def dense_to_sparse_batch(batch_size, row_shape):
        """``dataset.apply(...)``: batches as SparseTensors of dense shape
        ``[batch] + row_shape``, each element's values at their positions.

        >>> import eagertape.tf as tf
        >>> ds = tf.data.Dataset.range(3).map(lambda n: tf.range(n) + 1)
        >>> st = ds.apply(tf.data.experimental.dense_to_sparse_batch(3, [4])).get_single_element()
        >>> tf.sparse.to_dense(st).numpy().tolist()
        [[0, 0, 0, 0], [1, 0, 0, 0], [1, 2, 0, 0]]
        """
        n = _count(batch_size, "batch_size")
        row = [int(d) for d in (row_shape.as_list() if hasattr(row_shape, "as_list") else
                                np.asarray(row_shape).reshape(-1).tolist())]

        def combine(elements, first_index):
            parts = [np.asarray(e) if not isinstance(e, bytes) else np.asarray(e, object)
                     for e in elements]
            for k, p in enumerate(parts):
                if p.ndim != len(row) or any(d >= 0 and s > d for s, d in zip(p.shape, row)):
                    raise InvalidArgumentError(
                        f"dense_to_sparse_batch: element {first_index + k} of shape "
                        f"{list(p.shape)} does not fit argument `row_shape` {row}")
            shape = [max([p.shape[i] for p in parts]) if d < 0 else d
                     for i, d in enumerate(row)]
            return _Sparse.stack([_Sparse(np.argwhere(np.ones(p.shape, bool)).astype(np.int64),
                                          p.reshape(-1), shape) for p in parts])

        def apply(ds):
            out = ds._batched(n, False, combine)
            return out
        return apply

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
        """``tf.data.experimental.sample_from_datasets``: ``Dataset.sample_from_datasets``.

        >>> import eagertape.tf as tf
        >>> ds = tf.data.experimental.sample_from_datasets([tf.data.Dataset.range(2)])
        >>> [int(x) for x in ds]
        [0, 1]
        """
        return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=False):
        """``tf.data.experimental.choose_from_datasets``: ``Dataset.choose_from_datasets``,
        whose ``stop_on_empty_dataset`` is False here, as TF's.

        >>> import numpy as np
        >>> import eagertape.tf as tf
        >>> a, b = tf.data.Dataset.range(1), tf.data.Dataset.range(10, 12)
        >>> choice = tf.data.Dataset.from_tensor_slices(np.array([0, 0, 1, 1], np.int64))
        >>> [int(x) for x in tf.data.experimental.choose_from_datasets([a, b], choice)]
        [0, 10, 11]
        """
        return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def snapshot(path, compression="AUTO", reader_func=None, shard_func=None):
        """``dataset.apply(...)``: ``Dataset.snapshot`` (TF's deprecated spelling).

        >>> import tempfile
        >>> import eagertape.tf as tf
        >>> snap = tf.data.experimental.snapshot(tempfile.mkdtemp())
        >>> [int(x) for x in tf.data.Dataset.range(3).apply(snap)]
        [0, 1, 2]
        """
        return lambda ds: ds.snapshot(path, compression, reader_func, shard_func)

    @staticmethod
    def Counter(start=0, step=1, dtype="int64"):  # noqa: N802  (TF's name)
        """``tf.data.experimental.Counter``: ``Dataset.counter``, counting forever.

        >>> import eagertape.tf as tf
        >>> [int(x) for x in tf.data.experimental.Counter(start=2, step=5).take(3)]
        [2, 7, 12]
        """
        return Dataset.counter(start, step, dtype)

    def __getattr__(self, name):
        return _Unsupported("tf.data.experimental")(name)


experimental = _Experimental()


class TextLineDataset(Dataset):
    """``tf.data.TextLineDataset``: the lines of text files, one string element per
    line (without its ``\\n``, or ``\\r\\n``), file after file (``num_parallel_reads``
    files at a time, a line from each in turn, as TF's); read afresh on every pass.
    ``compression_type`` "GZIP" or "ZLIB" reads compressed files; ``filenames`` is a
    string, a list or 1-D tensor of them, or a Dataset of them.

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
        paths = _record_filenames(filenames)
        kind = (compression_type or "").upper()
        if kind not in ("", "GZIP", "ZLIB"):
            raise InvalidArgumentError(f"argument `compression_type`: {compression_type!r} is "
                                       "not one of '', 'GZIP', 'ZLIB'")
        cycle = 1 if num_parallel_reads is None else _count(num_parallel_reads,
                                                            "num_parallel_reads")
        if cycle == AUTOTUNE:                   # TF's interleave of the files
            cycle = _autotuned_cycle(AUTOTUNE)
        if cycle < 1:
            raise InvalidArgumentError(f"argument `num_parallel_reads` must be positive or "
                                       f"tf.data.AUTOTUNE, got {num_parallel_reads}")
        # The files' lines as the record datasets' records: N files at once, a line
        # from each in turn (TF's parallel interleave of per-file datasets, block 1).
        super().__init__(lambda: _tfrecord._Records(paths, kind, cycle, _lines),
                         UNKNOWN_CARDINALITY, TensorSpec((), object))


# -- record files (tf.io's formats: tf/_tfrecord.py reads them) -----------------------

def _record_filenames(filenames):
    if isinstance(filenames, Dataset):
        names = [np.asarray(x.numpy() if hasattr(x, "numpy") else x).reshape(-1).tolist()
                 for x in filenames]
        flat = [n for group in names for n in group]
    else:
        arr = _text.host(filenames, "filenames")
        if arr.ndim > 1:
            raise InvalidArgumentError("argument `filenames` must be a scalar or a vector of "
                                       f"strings, got shape {list(arr.shape)}")
        flat = arr.reshape(-1).tolist()
    from ._gfile import _path
    return [_path(n.decode("utf-8") if isinstance(n, bytes) else n, "filenames")
            for n in flat]


class TFRecordDataset(Dataset):
    """``tf.data.TFRecordDataset``: the records of TFRecord files (one scalar string
    element each), file after file (``num_parallel_reads`` files at a time,
    interleaved, as TF's); ``compression_type`` "", "ZLIB" or "GZIP";
    ``buffer_size`` is accepted. ``filenames`` is a string, a list or 1-D tensor of
    them, or a Dataset of them.

    >>> import os, tempfile
    >>> import eagertape.tf as tf
    >>> path = os.path.join(tempfile.mkdtemp(), "n.tfrecord")
    >>> with tf.io.TFRecordWriter(path) as w:
    ...     for i in range(5):
    ...         w.write(tf.io.serialize_tensor(tf.constant(i)))
    >>> ds = tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_tensor(r, tf.int32))
    >>> [int(x) for x in ds.batch(2).unbatch()]
    [0, 1, 2, 3, 4]
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        paths = _record_filenames(filenames)
        kind = _tfrecord._dataset_kind(compression_type)
        _tfrecord._positive(buffer_size, "buffer_size")
        cycle = num_parallel_reads
        cycle = 1 if cycle is None else int(cycle)
        if cycle == -1:                          # tf.data.AUTOTUNE: TF's interleave of the files
            cycle = _autotuned_cycle(AUTOTUNE)
        if cycle < 1:
            raise InvalidArgumentError(f"argument `num_parallel_reads` must be positive or "
                                       f"tf.data.AUTOTUNE, got {num_parallel_reads}")
        self._filenames, self._compression_type = paths, kind
        super().__init__(lambda: _tfrecord._Records(paths, kind, cycle, _tfrecord._tfrecords),
                         UNKNOWN_CARDINALITY,
                         TensorSpec((), object))


class FixedLengthRecordDataset(Dataset):
    """``tf.data.FixedLengthRecordDataset``: each file's bytes after ``header_bytes``
    and before ``footer_bytes``, cut into records of ``record_bytes`` (a body that
    is not a multiple of it raises TF's InvalidArgumentError).

    >>> import os, tempfile
    >>> import eagertape.tf as tf
    >>> path = os.path.join(tempfile.mkdtemp(), "r.bin")
    >>> _ = open(path, "wb").write(b"HHabcdefF")
    >>> [r.numpy() for r in tf.data.FixedLengthRecordDataset(path, 3, header_bytes=2,
    ...                                                      footer_bytes=1)]
    [b'abc', b'def']
    """

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None, num_parallel_reads=None,
                 name=None):
        paths = _record_filenames(filenames)
        kind = _tfrecord._dataset_kind(compression_type)
        size = _tfrecord._positive(record_bytes, "record_bytes", allow_zero=False)
        head = _tfrecord._positive(header_bytes, "header_bytes") or 0
        foot = _tfrecord._positive(footer_bytes, "footer_bytes") or 0
        _tfrecord._positive(buffer_size, "buffer_size")
        cycle = 1 if num_parallel_reads is None else int(num_parallel_reads)
        if cycle == -1:
            cycle = _autotuned_cycle(AUTOTUNE)

        def read(f, path):
            data_start = f.tell()
            f.seek(0, 2)
            end = f.tell() - foot
            pos = max(data_start, head)
            if (end - pos) % size:
                raise InvalidArgumentError(
                    f"Excluding the header ({head} bytes) and footer ({foot} bytes), input "
                    f"file \"{path}\" has body length {end - pos} bytes, which is not an "
                    f"exact multiple of the record length ({size} bytes).")
            f.seek(pos)
            while pos + size <= end:
                record = f.read(size)
                pos += size
                yield record, pos

        super().__init__(lambda: _tfrecord._Records(paths, kind, cycle, read), UNKNOWN_CARDINALITY,
                         TensorSpec((), object))


def _lines(f, path):
    """A text file's lines from stream ``f`` (without their ``\\n`` or ``\\r\\n``; a last
    line without one too), each with the offset after it (where a restored pass reads on)."""
    while True:
        line = f.readline()
        if not line:
            return
        offset = f.tell()
        if line.endswith(b"\n"):
            line = line[:-1]
        yield (line[:-1] if line.endswith(b"\r") else line), offset


def _keras_inputs(x):
    """``x`` (a nest) as Keras on JAX takes model inputs: each SparseTensor a JAX
    ``BCOO`` (Keras's sparse array on JAX); a RaggedTensor refused with what to do
    (Keras 3 has no ragged inputs on JAX)."""
    if isinstance(x, _Composite):
        x = x.value()
    if isinstance(x, _SparseTensor):
        from .sparse import _unflatten
        return _unflatten(x._shape, (np.asarray(x.indices.numpy()), _to_numpy(x.values)))
    if isinstance(x, _RaggedTensor):
        raise ValueError(
            "Keras 3 takes RaggedTensor inputs only on its TensorFlow backend, not on JAX: "
            "pad the rows with rt.to_tensor() (and mask the padding: mask_zero=True in "
            "Embedding, or a Masking layer), or batch with padded_batch instead of "
            "ragged_batch")
    if isinstance(x, dict):
        return type(x)((k, _keras_inputs(v)) for k, v in x.items())
    if isinstance(x, (tuple, list)):
        items = [_keras_inputs(v) for v in x]
        return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)
    return x


# -- CSV files (tf/_csv.py reads them) ---------------------------------------------------
from . import _csv  # noqa: E402  (its CsvDataset is a Dataset: defined after it)

_CsvDataset = _csv._make_csv_dataset_class(sys.modules[__name__])
_CsvDataset.__module__ = __name__
_Experimental.CsvDataset = _CsvDataset
_Experimental.make_csv_dataset = staticmethod(_csv.make_csv_dataset)
