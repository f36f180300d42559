"""String tensors inside a ``tf.function``: traced once a shape, run on the host.

TF traces a function that takes a ``tf.string`` argument once for its shape (its
``TensorSpec``), as it does for numbers, and runs the string ops of its graph at
each call. JAX has no strings, so here a string tensor inside a trace is a
``TracedText``: its values are int32 *handles*, one an element, into a table of
the call's strings (the core's host-value protocol, ``_host_codec``: each call
gets a table, the function's string arguments are put in it, and the table's id
is one more input of the compiled function). Then:

- TF's generic ops that only move elements (``reshape``, ``concat``, ``gather``,
  ``where``, indexing, ...) run in JAX on the handles, compiled with the rest;
- the ops that read or make text (``==``, ``+``, ``tf.strings.*``,
  ``tf.io.read_file``, ``tf.audio.decode_wav``, a lookup table, ...) run on the
  host at each call, as a ``jax.pure_callback`` of the op itself (its shapes and
  dtypes are those it gives for the values the function was traced with: a
  result whose shape depends on the text, the pieces of a split, say, raises
  InvalidArgumentError at a call that gives another shape); ``tf.print`` of text
  is a ``jax.debug.callback``;
- a string constant met by a traced value (``tf.gather(names, ids)`` of traced
  ``ids``) becomes handles of a table of the trace's constants.

Text the function returns is read back from the call's table. The Python
function runs only while it is traced (its ``print``\\ s, its tracing count are
TF's); the host ops' own results are TF's, computed by the same host code as in
eager mode.

>>> import eagertape.tf as tf
>>> @tf.function
... def greet(name):
...     print("Tracing")
...     return tf.strings.join(["Hello, ", name, "!"]), tf.strings.length(name)
>>> greet(tf.constant("Ann"))
Tracing
(<tf.Tensor: shape=(), dtype=string, numpy=b'Hello, Ann!'>, <tf.Tensor: shape=(), dtype=int32, numpy=3>)
>>> text, n = greet(tf.constant("Bartholomew"))           # same shape: no new trace
>>> text.numpy(), int(n), greet.experimental_get_tracing_count()
(b'Hello, Bartholomew!', 11, 1)
"""
import functools
import itertools
import threading

import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import tree_flatten, tree_unflatten

from .. import extend as _extend
from ..extend import InvalidArgumentError, TensorLike as _TensorLike
from . import _staged_map, _text
from ._text import StringTensor, wrap
from ._util import rebind as _rebind


class _Symbolic(np.ndarray):
    """The ``_v`` of a TracedText: an empty object array of its shape (what the
    Tensor properties read), whose values no host op may read (``_text.host``)."""


class _SymbolicSizes:
    """The ``_v`` of a TracedText whose shape has sizes JAX knows only symbolically
    (a function traced for every size of a None dimension, as ``tf.saved_model``
    exports it): no array has such a shape, so only its shape and dtype."""

    __slots__ = ("shape",)
    dtype = np.dtype(object)

    def __init__(self, shape):
        self.shape = tuple(shape)

    @property
    def ndim(self):
        return len(self.shape)


def _symbolic(shape):
    shape = tuple(shape)
    if not all(isinstance(d, (int, np.integer)) for d in shape):
        return _SymbolicSizes(shape)
    return np.empty(shape, object).view(_Symbolic)


class TracedText(StringTensor):
    """A string tensor inside a ``tf.function`` being traced: int32 handles into
    the call's table (``_h``), the table's traced id (``_call``), and the values it
    was traced with (``_example``, for the shapes of the host ops on it)."""

    __slots__ = ("_h", "_call", "_example")
    _symbolic = True

    def __repr__(self):
        return f'Tensor("{self._name()}", shape={tuple(self.shape)}, dtype=string)'

    __str__ = __repr__

    def _name(self):
        cap = _extend.function_trace()
        name = getattr(cap, "names", {}).get(id(self._h)) if cap is not None else None
        return f"{name or 'Placeholder'}:0"

    @property
    def numpy(self):
        raise AttributeError("'SymbolicTensor' object has no attribute 'numpy': a string "
                             "tensor inside a tf.function has no value while the function "
                             "is traced")

    def __bool__(self):
        raise TypeError("Using a symbolic `tf.Tensor` as a Python `bool` is not allowed: a "
                        "string tensor inside a tf.function has no value while the function "
                        "is traced")

    # -- no value while traced: code that reads one (NumPy, a library given the array)
    # gets TF's error, not the placeholder's empty elements --
    def _no_value(self):
        return NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self._name()}) to a numpy array. This "
            "error may indicate that you're trying to pass a Tensor to a NumPy call, which "
            "is not supported. (eagertape: a string tensor inside a tf.function has no "
            "value while the function is traced; run the code that reads it through the "
            "tf.strings ops, or before the function)")

    def __array__(self, dtype=None, copy=None):
        raise self._no_value()

    def _read(self):
        raise self._no_value()

    @property
    def device(self):
        return ""

    def __format__(self, spec):
        return format(str(self), spec)

    def __len__(self):
        if self.shape.rank == 0:
            raise TypeError("len() of a scalar string tensor")
        return self.shape[0]

    def __eq__(self, other):
        if not StringTensor._USE_EQUALITY:
            return self is other            # TF 1's: object identity
        return call_host(StringTensor.__eq__, (self, other), {}, "Equal")

    def __ne__(self, other):
        if not StringTensor._USE_EQUALITY:
            return self is not other
        return call_host(StringTensor.__ne__, (self, other), {}, "NotEqual")

    __hash__ = StringTensor.__hash__

    def __add__(self, other):
        return call_host(StringTensor.__add__, (self, other), {}, "AddV2")

    def __radd__(self, other):
        return call_host(StringTensor.__radd__, (self, other), {}, "AddV2")

    def __getitem__(self, key):
        out = _extend.wrap(self._h)[key]
        example = None
        if self._example is not None:
            try:
                example = StringTensor.__getitem__(wrap(self._example), _concrete(key))._v
            except Exception:     # (a traced index: the values are not known)
                example = None
        return traced(out._value, self._call, example)

    def __iter__(self):
        if self.shape.rank == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(self.shape[0]))

    def ref(self):
        return _Ref(self)


class _Ref:
    __slots__ = ("_t",)

    def __init__(self, t):
        self._t = t

    def deref(self):
        return self._t

    def __hash__(self):
        return id(self._t)

    def __eq__(self, other):
        return isinstance(other, _Ref) and other._t is self._t


def traced(handles, call, example=None):
    """A TracedText of ``handles`` (an int32 array, traced) in the table of ``call``."""
    t = object.__new__(TracedText)
    t._h, t._call = handles, call
    t._v = _symbolic(np.shape(handles))
    t._example = None if example is None else np.asarray(example, dtype=object)
    return t


def _concrete(key):
    if isinstance(key, tuple):
        return tuple(_concrete(k) for k in key)
    if isinstance(key, _TensorLike):
        return int(np.asarray(key.numpy()))
    return key


# -- the tables: the core's host-value protocol -------------------------------------

class _Codec:
    """String tensors as handles (``Function``'s ``_host_codec`` protocol): a table
    per call (``begin``/``end``), handles >= 0 into it, handles < 0 into the
    constants of every trace."""

    dtype = None     # tf.string (set below)

    def __init__(self):
        self._tables = {}
        self._consts = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def begin(self):
        with self._lock:
            cid = next(self._ids) % 0x7FFFFFFF
            self._tables[cid] = []
        return cid

    def end(self, cid):
        self._tables.pop(cid, None)

    def register(self, array, cid):
        """Handles of ``array``'s strings, put in the table of call ``cid``."""
        array = np.asarray(array, dtype=object)
        table = self._tables.get(cid)
        if table is None:
            raise RuntimeError("a host op of a tf.function ran outside its call")
        with self._lock:
            base = len(table)
            table.extend(array.reshape(-1).tolist())
        return np.arange(base, base + array.size, dtype=np.int32).reshape(array.shape)

    def constant(self, array):
        """Handles of the constant strings ``array`` (a trace's constant)."""
        array = np.asarray(array, dtype=object)
        with self._lock:
            base = len(self._consts)
            self._consts.extend(array.reshape(-1).tolist())
        return (-1 - np.arange(base, base + array.size, dtype=np.int32)).reshape(array.shape)

    def values(self, handles, cid):
        """The strings of ``handles`` (an object array of bytes)."""
        h = np.asarray(handles)
        table = self._tables.get(cid, ())
        out = np.empty(h.shape, object)
        consts = self._consts
        out.reshape(-1)[:] = [table[i] if i >= 0 else consts[-1 - i]
                              for i in h.reshape(-1).tolist()] if h.size else []
        return out

    # -- what the core asks (eagertape/_function.py) --
    def encode(self, leaf, cid):
        return self.register(leaf._v, cid)

    def decode(self, handles, cid):
        if hasattr(handles, "as_text"):
            # An exporter's placeholder for an output (tf.saved_model reads the
            # result's structure so): this one is text.
            return handles.as_text()
        if isinstance(handles, _TensorLike):
            handles = handles.numpy()
        return wrap(self.values(handles, cid))

    def stand_in(self, handles, call, example):
        return traced(handles, call, None if example is None else example._v)

    def handles(self, o):
        return o._h if isinstance(o, TracedText) else None


CODEC = _Codec()
CODEC.dtype = _text.constant_text("").dtype
StringTensor._host_codec = CODEC


# -- the host ops of a trace ---------------------------------------------------------

def _is_leaf(x):
    return isinstance(x, _TensorLike) or isinstance(x, jax.core.Tracer)


def _number_tracer(x):
    v = x._value if isinstance(x, _TensorLike) and not isinstance(x, StringTensor) else x
    return v if isinstance(v, jax.core.Tracer) else None


def _traced_leaves(leaves):
    """(position, kind, array) of each traced leaf: a TracedText's handles, or a
    traced number."""
    out = []
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, TracedText):
            out.append((i, "text", leaf._h))
        else:
            v = _number_tracer(leaf)
            if v is not None:
                out.append((i, "num", v))
    return out


def _call_of(leaves):
    for leaf in leaves:
        if isinstance(leaf, TracedText) and leaf._call is not None:
            return leaf._call
    cap = _extend.function_trace()
    return getattr(cap, "host_call", None)


def _example_leaves(leaves, traced_ones, probe=False):
    filled = list(leaves)
    for i, kind, v in traced_ones:
        if kind == "text":
            ex = leaves[i]._example
            if probe:       # (other text: sizes that follow the data differ)
                ex = np.full(v.shape, _staged_map.PROBE, object)
            filled[i] = wrap(ex if ex is not None else np.full(v.shape, b"", object))
        else:
            filled[i] = _text._constant(np.zeros(v.shape, v.dtype))
    return filled


def _run_outside(fn, leaves, tree):
    args, kwargs = tree_unflatten(tree, leaves)
    with _extend.outside_recording(), jax.ensure_compile_time_eval():
        return fn(*args, **kwargs)


def call_host(fn, args, kwargs, name):
    """``fn(*args, **kwargs)``, a host op, inside a trace: at each call of the
    function, on its values (a ``jax.pure_callback``)."""
    leaves, tree = tree_flatten((args, kwargs), is_leaf=_is_leaf)
    traced_ones = _traced_leaves(leaves)
    if not traced_ones:
        return fn(*args, **kwargs)
    call = _call_of(leaves)
    specs = None
    if _staged_map.active():
        # A dataset function traced once on its spec: sizes the data sets are
        # fresh symbolic ones (TF's None), bound at each element (_staged_map).
        specs = _staged_map.result_specs(name, fn, args, kwargs)
    if specs is not None:
        out_leaves, out_tree = tree_flatten(
            specs, is_leaf=lambda x: isinstance(x, _staged_map.Out))
    else:
        example = _run_outside(fn, _example_leaves(leaves, traced_ones), tree)
        out_leaves, out_tree = tree_flatten(example, is_leaf=_is_leaf)
        if _staged_map.active():
            # The examples are stand-ins (no element is read at map()): a size that
            # changes with other text (split's pieces) is the data's, a fresh one.
            other = _run_outside(fn, _example_leaves(leaves, traced_ones, probe=True), tree)
            other_leaves, other_tree = tree_flatten(other, is_leaf=_is_leaf)
            if other_tree != out_tree:
                raise _staged_map.NotStaged(f"{name} gives results of another structure "
                                            "for other text")
            out_leaves = [_staged_map.varying(o, p) for o, p in zip(out_leaves, other_leaves)]
    shapes, marks = [], []
    for o in out_leaves:
        if isinstance(o, _staged_map.Out):
            shapes.append(o.aval())
            marks.append(("text" if o.text else "num", None))
            continue
        if isinstance(o, StringTensor):
            shapes.append(jax.ShapeDtypeStruct(o._v.shape, np.int32))
            marks.append(("text", o._v))
        elif isinstance(o, (_TensorLike, np.ndarray, np.generic, jax.Array)):
            a = np.asarray(o.numpy() if isinstance(o, _TensorLike) else o)
            shapes.append(jax.ShapeDtypeStruct(a.shape, a.dtype))
            marks.append(("num", None))
        else:
            marks.append(("static", o))
    if call is None and any(m[0] == "text" for m in marks):
        raise TypeError(
            f"{name} of a value traced inside a tf.function makes text, which eagertape "
            "keeps on the host, in a function that takes no string argument (its strings "
            "have no table): compute it before the function, or pass a string tensor in")

    def host(call_id, *arrays):
        cid = int(call_id)
        filled = list(leaves)
        for (i, kind, _), a in zip(traced_ones, arrays):
            filled[i] = CODEC.decode(a, cid) if kind == "text" else _text._constant(
                np.asarray(a))
        got = _run_outside(fn, filled, tree)
        got_leaves, got_tree = tree_flatten(got, is_leaf=_is_leaf)
        if got_tree != out_tree and str(got_tree) != str(out_tree):   # (a namedtuple made per call)
            raise InvalidArgumentError(f"{name} in a tf.function gave results of another "
                                       "structure than when the function was traced")
        results = []
        k = 0
        for o, (kind, _) in zip(got_leaves, marks):
            if kind == "static":
                continue
            want = shapes[k]
            k += 1
            a = o._v if kind == "text" else np.asarray(
                o.numpy() if isinstance(o, _TensorLike) else o)
            if len(a.shape) != len(want.shape) or any(
                    not _staged_map._is_sym(d) and d != n for d, n in zip(want.shape, a.shape)):
                raise InvalidArgumentError(
                    f"{name} in a tf.function gave a result of shape {list(a.shape)}, where "
                    f"it gave {list(want.shape)} for the values the function was traced "
                    "with: eagertape's host ops keep their result shapes of the trace "
                    "(JAX compiles fixed shapes); run this op before the function")
            results.append(CODEC.register(a, cid) if kind == "text"
                           else np.asarray(a, want.dtype))
        return results

    host.__name__ = name       # (the op's name in a ConcreteFunction's .graph)
    call_arg = call if call is not None else np.int32(-1)
    flat = jax.pure_callback(host, shapes, call_arg, *[v for _, _, v in traced_ones],
                             vmap_method="sequential") if shapes else []
    it = iter(flat)
    out = []
    for kind, ex in marks:
        if kind == "text":
            out.append(traced(next(it), call, ex))
        elif kind == "num":
            out.append(_extend.wrap(next(it)))
        else:
            out.append(ex)
    return tree_unflatten(out_tree, out)


def on_host(fn, args, kwargs, name):
    """``fn(*args, **kwargs)``, code that reads the values of its text (a Keras text
    layer's call: Keras runs TF's kernels on the strings' NumPy values): given a string
    tensor (or a number: an inverted StringLookup's ids) traced inside a
    ``tf.function``, at each call of the function on that call's values
    (``call_host``), as TF's graph runs the layer's ops; else now.

    >>> import eagertape.tf as tf
    >>> lookup = tf.keras.layers.StringLookup(vocabulary=["a", "b"])
    >>> @tf.function
    ... def ids(words):
    ...     return lookup(words)
    >>> ids(tf.constant(["b", "z"])).numpy()
    array([2, 0])
    >>> ids(tf.constant(["a", "b"])).numpy()        # the same trace, this call's text
    array([1, 2])
    """
    leaves, _ = tree_flatten((args, kwargs), is_leaf=_is_leaf)
    if not _traced_leaves(leaves):
        return fn(*args, **kwargs)
    return call_host(fn, args, kwargs, name)


def call_effect(fn, args, kwargs):
    """``fn(*args, **kwargs)`` (``tf.print``, ``tf.io.write_file``) at each call of
    the function, on its values, for its effect alone."""
    leaves, tree = tree_flatten((args, kwargs), is_leaf=_is_leaf)
    traced_ones = _traced_leaves(leaves)
    if not traced_ones:
        return fn(*args, **kwargs)
    call = _call_of(leaves)

    def host(call_id, *arrays):
        cid = int(call_id)
        filled = list(leaves)
        for (i, kind, _), a in zip(traced_ones, arrays):
            filled[i] = CODEC.decode(a, cid) if kind == "text" else _text._constant(
                np.asarray(a))
        _run_outside(fn, filled, tree)

    jax.debug.callback(host, call if call is not None else np.int32(-1),
                       *[v for _, _, v in traced_ones], ordered=True)
    return None


# The generic ops that only move elements: run in JAX on the handles.
_MOVES = frozenset({"identity", "reshape", "concat", "stack", "unstack", "split",
                    "expand_dims", "squeeze", "transpose", "tile", "reverse", "broadcast_to",
                    "gather", "gather_nd", "slice", "where", "size", "rank", "shape"})
_SHAPES = frozenset({"size", "rank", "shape"})     # (their results are numbers)
_DIRECT = frozenset({"constant", "convert_to_tensor", "cast"})
_EFFECTS = frozenset({"print", "write_file"})


def _handles_of(x):
    if isinstance(x, TracedText):
        return _extend.wrap(x._h)
    if isinstance(x, (list, tuple)) and any(isinstance(v, TracedText) for v in x):
        return type(x)(_handles_of(v) for v in x)
    if isinstance(x, StringTensor) or (not isinstance(x, _TensorLike) and _text.is_text(x)):
        with jax.ensure_compile_time_eval():
            return _extend.wrap(jnp.asarray(CODEC.constant(_text.host(x))))
    if isinstance(x, (list, tuple)) and any(isinstance(v, StringTensor) or _text.is_text(v)
                                            for v in x):
        return type(x)(_handles_of(v) for v in x)
    return x


def _moved(name, fn, host_fn, args, kwargs):
    leaves, tree = tree_flatten((args, kwargs), is_leaf=_is_leaf)
    call = _call_of(leaves)
    new_args = tuple(_handles_of(a) for a in args)
    new_kwargs = {k: _handles_of(v) for k, v in kwargs.items()}
    out = fn(*new_args, **new_kwargs)
    if name in _SHAPES:
        return out
    example = None
    try:
        traced_ones = _traced_leaves(leaves)
        example = _run_outside(host_fn, _example_leaves(leaves, traced_ones), tree)
    except Exception:
        pass

    def back(o, ex):
        if isinstance(o, _TensorLike):
            return traced(o._value, call, ex._v if isinstance(ex, StringTensor) else None)
        if isinstance(o, (list, tuple)):
            exs = ex if isinstance(ex, (list, tuple)) and len(ex) == len(o) else [None] * len(o)
            return type(o)(back(a, e) for a, e in zip(o, exs))
        return o
    return back(out, example)


def dispatch(name, fn, host_fn, args, kwargs):
    """A generic op of ``_text.HOST_OPS`` given text inside a trace."""
    if name in _DIRECT:
        return host_fn(*args, **kwargs)
    leaves, _ = tree_flatten((args, kwargs), is_leaf=_is_leaf)
    if not _traced_leaves(leaves):
        return host_fn(*args, **kwargs)      # constants: run now, as before
    if name in _MOVES:
        return _moved(name, fn, host_fn, args, kwargs)
    if name in _EFFECTS:
        return call_effect(host_fn, args, kwargs)
    return call_host(host_fn, args, kwargs, name)


def _wrapped(fn, name):
    effect = name in _EFFECTS

    @functools.wraps(fn)
    def op(*args, **kwargs):
        if _extend.function_trace() is None:
            return fn(*args, **kwargs)
        if effect:
            return call_effect(fn, args, kwargs)
        return call_host(fn, args, kwargs, name)
    op._traced_text = True
    return op


# The host ops outside HOST_OPS: every public function of tf.strings, and these.
_MODULE_OPS = {
    "io": ("read_file", "write_file", "decode_raw", "decode_compressed", "encode_base64",
           "decode_base64", "decode_csv", "decode_json_example"),
    "audio": ("decode_wav", "encode_wav"),
    "image": ("decode_png", "decode_jpeg", "decode_bmp", "decode_gif", "decode_webp",
              "decode_image", "decode_and_crop_jpeg", "encode_png", "encode_jpeg"),
}


def install(tf_module):
    """Route the host ops of the facade through ``call_host`` while a function is
    traced (``_text``'s generic ops through ``dispatch``)."""
    _text.TRACED_DISPATCH = dispatch
    done = {}
    strings = tf_module.strings
    for name in dir(strings):
        fn = getattr(strings, name)
        if name.startswith("_") or not callable(fn) or isinstance(fn, type) or getattr(
                fn, "_traced_text", False) or getattr(fn, "__module__", "") != strings.__name__:
            continue
        done[id(fn)] = _wrapped(fn, name)
    for mod, names in _MODULE_OPS.items():
        m = getattr(tf_module, mod)
        for name in names:
            fn = getattr(m, name, None)
            if fn is not None and not getattr(fn, "_traced_text", False):
                done[id(fn)] = _wrapped(fn, name)
    _rebind(done, skip=("eagertape.tf._traced_text",))
    from . import lookup
    for cls in vars(lookup).values():
        if isinstance(cls, type) and "lookup" in vars(cls) and not getattr(
                cls.lookup, "_traced_text", False):
            cls.lookup = _wrapped(cls.lookup, f"{cls.__name__}.lookup")
