"""Tensor: an immutable, identity-carrying wrapper of one ``jax.Array``.

Tapes key their nodes on the Python object (as TF keys on the tensor id), so two
Tensors holding equal values are different sources. Every operator and array
method goes through the single primitive wrapper in ``_primitive``.
"""
import operator
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np

from ._dtypes import category, tf_dtype
from ._graph import Pending
from ._state import local, x64

def is_tensor_like(x):
    """Whether ``x`` is a Tensor or Variable (a leaf of the nests eagertape flattens)."""
    return isinstance(x, _TensorLike)


def is_leaf(x):
    """The ``is_leaf`` of the nests of gradients and sources: None (no gradient),
    a Tensor or Variable, or another library's variable that joins the tape."""
    return x is None or isinstance(x, _TensorLike) or hasattr(type(x), "_eagertape_variable")


def brief(obj):
    """An object as an error message names it: its class, and its name or path
    where it has one, never its values (a weight list would print every number).

    >>> from eagertape._tensor import brief
    >>> brief([1.0, 2.0]), brief(3)
    ('list of 2', 'int')
    """
    tp = type(obj).__name__
    if isinstance(obj, (list, tuple, dict, set)):
        return f"{tp} of {len(obj)}"
    for attr in ("path", "name"):
        name = getattr(obj, attr, None) if not isinstance(obj, (str, bytes)) else None
        if isinstance(name, str) and name:
            return f"{tp} {name!r}"
    return tp


def standin(x):
    """``x``, or the eagertape Variable that stands for it: another library's
    variable (a Keras weight) joins the tape by having its class define
    ``_eagertape_variable``, the Variable that shares its storage."""
    return x._eagertape_variable if hasattr(type(x), "_eagertape_variable") else x


class Cotangent:
    """A gradient that stands for a dense Tensor without being one (the facade's
    ``tf.IndexedSlices``): a ``custom_gradient``'s ``grad_fn`` may return one for
    an input, and ``tape.gradient`` hands it back as it is. The tape adds one to
    another gradient of the same slot with ``add`` and gives an op's pullback its
    ``dense()`` Tensor, so no pullback ever sees one (as TF densifies a gradient
    that flows into a further op's gradient function).

    Subclasses define ``shape`` (the dense shape, a tuple), ``dense()`` and
    ``add(other)`` (``other`` a Tensor or a Cotangent; the sum, either kind).

    >>> import eagertape as et
    >>> from eagertape import extend, numpy as tnp
    >>> class Scaled(extend.Cotangent):      # a gradient kept as factor * ones
    ...     def __init__(self, factor, shape):
    ...         self.factor, self.shape = factor, shape
    ...     def dense(self):
    ...         return tnp.ones(self.shape, "float32") * self.factor
    ...     def add(self, other):
    ...         return self.dense() + (other.dense() if isinstance(other, extend.Cotangent)
    ...                                else other)
    >>> @extend.custom_gradient
    ... def total(x):
    ...     return tnp.sum(x), lambda up: Scaled(up, (3,))
    >>> x = et.Variable([1.0, 2.0, 3.0])
    >>> with et.GradientTape() as tape:
    ...     y = total(x)
    >>> g = tape.gradient(y, x)
    >>> type(g).__name__, g.dense().numpy()
    ('Scaled', array([1., 1., 1.], dtype=float32))
    """
    __slots__ = ()
    shape: tuple

    def dense(self):
        raise NotImplementedError

    def add(self, other):
        raise NotImplementedError


class _TensorLike:
    """What Tensor and Variable share: values out, shape and dtype, ``ref``.

    Their operators and array methods are recorded calls, installed by
    ``eagertape._operators`` (TF's conversion rules are listed there).

    The value, in eagertape's code, by one vocabulary on both:

    =========== ====================================================================
    accessor    gives
    =========== ====================================================================
    ``_aval()`` what knows the shape and dtype without computing anything (a
                fused-mode ``Pending`` value, or the array)
    ``_value``  the concrete array, recording nothing (a Variable's: its current
                value, or inside a traced ``eagertape.function`` the traced one)
    ``_read()`` the array as TF reads it: a Variable records a read on the tapes
                (``read_value``); a Tensor gives ``_value``
    =========== ====================================================================

    Beneath them: a Tensor's slot ``_v`` (the array or the ``Pending``; the
    recording path reads it directly) and a Variable's storage ``_val``.
    """

    if TYPE_CHECKING:
        # Set by _operators() below (TF's conversion rules); declared so that type
        # checkers accept Tensor arithmetic.
        def __add__(self, other: Any) -> "Tensor": ...
        def __radd__(self, other: Any) -> "Tensor": ...
        def __sub__(self, other: Any) -> "Tensor": ...
        def __rsub__(self, other: Any) -> "Tensor": ...
        def __truediv__(self, other: Any) -> "Tensor": ...
        def __rtruediv__(self, other: Any) -> "Tensor": ...
        def __floordiv__(self, other: Any) -> "Tensor": ...
        def __rfloordiv__(self, other: Any) -> "Tensor": ...
        def __mod__(self, other: Any) -> "Tensor": ...
        def __rmod__(self, other: Any) -> "Tensor": ...
        def __pow__(self, other: Any) -> "Tensor": ...
        def __rpow__(self, other: Any) -> "Tensor": ...
        def __matmul__(self, other: Any) -> "Tensor": ...
        def __rmatmul__(self, other: Any) -> "Tensor": ...
        def __and__(self, other: Any) -> "Tensor": ...
        def __rand__(self, other: Any) -> "Tensor": ...
        def __or__(self, other: Any) -> "Tensor": ...
        def __ror__(self, other: Any) -> "Tensor": ...
        def __xor__(self, other: Any) -> "Tensor": ...
        def __rxor__(self, other: Any) -> "Tensor": ...

    __slots__ = ()
    # Make NumPy defer binary operators (np_array * t) to our reflected methods,
    # as tf.Tensor does, instead of converting the Tensor to an ndarray.
    __array_priority__ = 100

    # TF's switch of the same name (tf.compat.v1.disable_tensor_equality turns it
    # off, for the whole process): off, == and != are TF 1's object identity, and
    # Variables (and Tensors while a function is traced) hash by id.
    _USE_EQUALITY = True

    def __hash__(self):
        # TF's rule: an eager Tensor is never hashable; a Variable, and a traced
        # (graph) Tensor, only with TF 1's equality.
        is_tensor = isinstance(self, Tensor)
        if not _TensorLike._USE_EQUALITY and (not is_tensor or local.state.capture is not None):
            return id(self)
        if is_tensor and type(self._v) is Pending and getattr(self._v.graph, "describe", None):
            return id(self)       # a TF 1 graph's Tensor (a feed_dict key), as TF's
        kind = "Tensor" if is_tensor else "Variable"
        raise TypeError(f"{kind} is unhashable. Instead, use {kind.lower()}.ref() as the key.")

    def ref(self):
        """A hashable reference to this object (as ``tf.Tensor.ref()``), for dict keys.

        >>> import eagertape as et
        >>> t = et.constant([1.0, 2.0])
        >>> d = {t.ref(): "weights"}
        >>> d[t.ref()], t.ref().deref() is t
        ('weights', True)
        """
        return _Ref(self)

    def __len__(self):
        shape = self._aval().shape
        if not shape:
            raise TypeError("len() of a 0-d (scalar) tensor")
        return shape[0]

    # -- values out -------------------------------------------------------
    def __float__(self): return float(self._read())
    def __int__(self): return int(self._read())
    def __complex__(self): return complex(self._read())

    def __index__(self):
        v = self._read()
        if not jnp.issubdtype(v.dtype, jnp.integer):
            raise TypeError(f"only integer tensors can be used as an index, got {v.dtype}")
        return operator.index(np.asarray(v).item())

    def __bool__(self):
        v = self._read()
        if isinstance(v, jax.core.Tracer):
            raise TypeError(
                "a Python `if`, `while` or `and`/`or` on a Tensor whose value is traced, in "
                "code that AutoGraph did not convert (eagertape.function, a library's code, "
                "a function marked do_not_convert, or tf.function(autograph=False)); "
                "tf.function converts the code it can read the source of. Use tf.cond / "
                "tf.while_loop (or jax.lax.cond), compute the condition from Python values, "
                "or run the function eagerly (tf.config.run_functions_eagerly(True))")
        return bool(v)

    def __array__(self, dtype=None, copy=None):
        # As TF's: np.array(t) (NumPy asks for a copy) is the program's own writable
        # array; np.asarray(t) may be a read-only view of the tensor's buffer.
        a = np.asarray(self._read())
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        return a.copy() if copy else a

    def __format__(self, spec):
        # TF's: the NumPy value formats itself, so f"{t}" is its text and
        # f"{t:.2f}" works for a scalar (a spec on an array is NumPy's TypeError).
        v = self._read()
        if isinstance(v, jax.core.Tracer):      # inside a trace: no value to format
            return format(str(self), spec)
        return format(_host(v), spec)

    def __array_function__(self, func, types, args, kwargs):
        # TF's EagerTensor has no NumPy methods, so NumPy's functions convert it and
        # give ndarrays. Without this, np.squeeze / np.reshape / np.transpose would
        # call this Tensor's own array methods and give a Tensor back. Two kinds stay
        # off the host: what only asks the shape (np.shape, np.ndim, np.size: code of
        # eagertape's and of libraries asks it of traced tensors too), and any call on
        # a traced Tensor (no value to convert), which NumPy's own implementation
        # serves through the Tensor's methods, as before this method existed.
        impl = getattr(func, "_implementation", None)
        if impl is not None and (func in _SHAPE_ONLY or _holds_tracer(args)
                                 or _holds_tracer(kwargs)):
            return impl(*args, **kwargs)
        return func(*_to_host(args), **_to_host(kwargs))

    def numpy(self):
        """The value as a NumPy array (a copy on the host); a scalar as a NumPy
        scalar, as TF gives it (hashable: a label can key a dict).

        >>> import eagertape as et
        >>> et.constant([1.0, 2.0]).numpy()
        array([1., 2.], dtype=float32)
        >>> et.constant(2.5).numpy()
        np.float32(2.5)
        """
        v = self._read()
        if isinstance(v, jax.core.Tracer):
            # TF's symbolic Tensors have no numpy() either (AttributeError there).
            raise AttributeError(
                "numpy() of a Tensor traced inside a tf.function (or another JAX trace): "
                "it has no value until the function runs; return it from the function, "
                "or use tf.print to see it when the function runs")
        return _host(v)

    def jax(self):
        """The underlying ``jax.Array``: no copy, device and sharding kept.

        >>> import jax
        >>> import eagertape as et
        >>> a = et.constant([1.0, 2.0]).jax()
        >>> isinstance(a, jax.Array), a.dtype
        (True, dtype('float32'))
        """
        return self._read()

    @property
    def device(self):
        """The device holding the value, named as TF names it
        (``'/job:localhost/replica:0/task:0/device:CPU:0'``); ``''`` for a value
        traced inside a ``tf.function`` (TF's symbolic tensors are placed later).

        >>> import eagertape as et
        >>> et.constant([1.0]).device.rsplit(":", 2)[0]    # then CPU:0 (or GPU:0, ...)
        '/job:localhost/replica:0/task:0/device'
        """
        return device_name(self._read())

    # Shape and dtype come from the abstract value: a pending (fused) Tensor
    # knows them without being computed.
    @property
    def shape(self): return _shape(tuple(self._aval().shape))

    def get_shape(self):
        """The ``shape`` (TF's older spelling).

        >>> import eagertape.tf as tf
        >>> tf.zeros([2, 3]).get_shape()
        TensorShape([2, 3])
        """
        return self.shape

    def set_shape(self, shape):
        """Check that ``shape`` (a TensorShape, or a list with None for a size not
        stated, or None) fits this value's shape, as TF's ``set_shape`` does
        eagerly: nothing changes (the shape is always fully known here, traced or
        not); a shape that does not fit raises ValueError.

        >>> import eagertape.tf as tf
        >>> x = tf.zeros([2, 3])
        >>> x.set_shape([None, 3])
        >>> x.set_shape([3, 3])
        Traceback (most recent call last):
        ...
        ValueError: Tensor's shape (2, 3) is not compatible with supplied shape (3, 3).
        """
        want = TensorShape(shape)
        if not self.shape.is_compatible_with(want):
            have = tuple(self.shape)
            raise ValueError(f"Tensor's shape {have} is not compatible with supplied shape "
                             f"{tuple(want)}.")
    @property
    def dtype(self): return tf_dtype(np.dtype(self._aval().dtype))
    @property
    def ndim(self): return len(self._aval().shape)
    @property
    def size(self): return int(np.prod(self._aval().shape, dtype=np.int64))


def device_name(v):
    """TF's name of the device holding array ``v`` (``''`` while traced, or when
    sharded over several)."""
    if isinstance(v, jax.core.Tracer):
        return ""
    devices = v.devices() if hasattr(v, "devices") else ()
    if not devices:                          # host data (text): TF holds it on the CPU
        return "/job:localhost/replica:0/task:0/device:CPU:0"
    if len(devices) != 1:
        return ""
    d = next(iter(devices))
    kind = {"cuda": "GPU", "rocm": "GPU", "gpu": "GPU"}.get(d.platform, d.platform.upper())
    return f"/job:localhost/replica:0/task:0/device:{kind}:{jax.devices(d.platform).index(d)}"


class _Ref:
    __slots__ = ("_obj",)

    def __init__(self, obj): self._obj = obj
    def deref(self): return self._obj
    def __hash__(self): return id(self._obj)
    def __eq__(self, other): return isinstance(other, _Ref) and other._obj is self._obj


def _dim(d):
    """One dimension as TF's ``as_dimension(d).value``: an int >= 0, or None."""
    if d is None:
        return None
    if type(d) is int:
        if d < 0:
            raise ValueError(f"Dimension {d} must be >= 0")
        return d
    from ._dimension import Dimension
    return Dimension(d).value


def _shape(dims):
    """A TensorShape of ``dims`` (a tuple of ints and None, or None), unchecked."""
    s = object.__new__(TensorShape)
    s._dims = dims
    return s


class TensorShape:
    """``tf.TensorShape``: the dimensions of a Tensor, each an int or None (a size
    not known), or ``TensorShape(None)`` for a rank not known; what
    ``Tensor.shape`` and ``Variable.shape`` return. As TF's, it is not a tuple
    (``"%s" % shape`` formats it; ``bool`` is True for any known rank, a
    scalar's ``()`` too) but a sequence of ints: it goes wherever JAX and NumPy
    take a shape (``jnp.zeros(x.shape)``), unpacks, and hashes and compares
    equal as the tuple of its dimensions (``==`` takes anything that converts to
    a shape: a list, a tuple, an int). An unknown rank's ``len`` and iteration
    raise ValueError, as TF's.

    >>> import eagertape.tf as tf
    >>> x = tf.zeros([2, 3])
    >>> x.shape, x.shape.as_list(), x.shape.rank, x.shape[1:], x.shape == (2, 3)
    (TensorShape([2, 3]), [2, 3], 2, TensorShape([3]), True)
    >>> "shape %s" % x.shape, bool(tf.TensorShape([])), str(tf.TensorShape(None))
    ('shape (2, 3)', True, '<unknown>')
    >>> tf.TensorShape([None, 3]).merge_with([4, None])
    TensorShape([4, 3])
    """

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, (tuple, list)):
            self._dims = tuple(_dim(d) for d in dims)
        elif dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        else:
            try:
                it = iter(dims)
            except TypeError:
                self._dims = (_dim(dims),)       # one dimension
                return
            out = []
            for d in it:
                try:
                    out.append(_dim(d))
                except TypeError as e:
                    raise TypeError(
                        f"Failed to convert '{dims!r}' to a shape: '{d!r}'could not be "
                        "converted to a dimension. A shape should either be single "
                        "dimension (e.g. 10), or an iterable of dimensions (e.g. [1, 10, "
                        "None]).") from e
            self._dims = tuple(out)

    def __reduce__(self):
        return _shape, (self._dims,)

    # -- TF's accessors ---------------------------------------------------------
    @property
    def rank(self):
        """The number of dimensions (None for an unknown rank)."""
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self):
        """``rank`` (TF's older name)."""
        return self.rank

    @property
    def dims(self):
        """The dimensions as a list of ``Dimension`` objects (``value`` None where
        unknown), as TF's; None for an unknown rank. ``as_list()`` gives ints."""
        from ._dimension import Dimension
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    def as_list(self):
        """The dimensions as a list of ints (None where unknown)."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def num_elements(self):
        """The number of elements, or None if a dimension is not known."""
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_fully_defined(self):
        """True if the rank and every dimension are known."""
        return self._dims is not None and None not in self._dims

    def assert_is_fully_defined(self):
        """Raise ValueError unless ``is_fully_defined()``."""
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    # -- a sequence of dimensions ---------------------------------------------------
    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None      # TF's: True when the shape holds information

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is not None:
            if isinstance(key, slice):
                return _shape(self._dims[key])
            return self._dims[key]
        if not isinstance(key, slice):
            return None
        start = 0 if key.start is None else key.start
        if key.step is not None:
            raise ValueError("Steps are not yet handled")
        if key.stop is None or start < 0 or key.stop < 0:
            return _shape(None)
        return _shape((None,) * (key.stop - start))

    # -- comparing and combining ---------------------------------------------------
    def __eq__(self, other):
        # As TF's: anything that converts to a shape (a list, a tuple, an int, None).
        if not isinstance(other, TensorShape):
            if isinstance(other, (str, bytes)):
                return NotImplemented
            try:
                other = TensorShape(other)
            except (TypeError, ValueError):
                return NotImplemented
        return self._dims == other._dims

    def __hash__(self):
        return hash(self._dims)       # a tuple's: a shape finds a tuple's dict entry

    def is_compatible_with(self, other):
        """True if some fully defined shape is both ``self`` and ``other`` (None
        dimensions and an unknown rank match anything)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        return len(self._dims) == len(other._dims) and all(
            a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        """Raise ValueError unless ``is_compatible_with(other)``."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def most_specific_compatible_shape(self, other):
        """The most specific shape compatible with both (None where they differ;
        ``TensorShape(None)`` where the ranks differ or one is unknown)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or self.rank != other.rank:
            return _shape(None)
        return _shape(tuple(a if a == b else None for a, b in zip(self._dims, other._dims)))

    def is_subtype_of(self, other):
        """True if ``other`` (a TensorShape) can stand for this shape: its rank is
        unknown, or each of its dimensions is None or this one's."""
        if not isinstance(other, TensorShape):
            return False
        if other._dims is None:
            return True
        return self.rank == other.rank and all(
            o is None or s == o for s, o in zip(self._dims, other._dims))

    def most_specific_common_supertype(self, others):
        """The most specific shape that all of ``self`` and ``others`` are subtypes
        of (None if one of ``others`` is no TensorShape)."""
        if any(not isinstance(o, TensorShape) for o in others):
            return None
        if self._dims is None or any(o._dims is None or self.rank != o.rank for o in others):
            return _shape(None)
        return _shape(tuple(d if all(d == o._dims[i] for o in others) else None
                            for i, d in enumerate(self._dims)))

    def merge_with(self, other):
        """The shape with the dimensions known in either (ValueError where both
        know different ones)."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return _shape(tuple(b if a is None else a for a, b in zip(self._dims, other._dims)))

    def concatenate(self, other):
        """The dimensions of ``self`` then of ``other`` (``TensorShape(None)`` if
        either rank is unknown)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return _shape(None)
        return _shape(self._dims + other._dims)

    # TF's + is concatenate. Kept leniency: where the other is a tuple that is no
    # shape, a tuple's + (code builds reshape targets as ``x.shape[:k] + (-1,)``;
    # TF's raises).
    def __add__(self, other):
        try:
            return self.concatenate(other)
        except (TypeError, ValueError):
            if isinstance(other, tuple) and self._dims is not None:
                return self._dims + other
            raise

    def __radd__(self, other):
        try:
            return as_shape(other).concatenate(self)
        except (TypeError, ValueError):
            if isinstance(other, tuple) and self._dims is not None:
                return other + self._dims
            raise

    def assert_same_rank(self, other):
        """Raise ValueError if both ranks are known and differ."""
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank):
        """Raise ValueError if the rank is known and is not ``rank``."""
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank):
        """This shape, its rank made ``rank`` if unknown (ValueError if another)."""
        if self._dims is None:
            return _shape((None,) * rank)
        if self.rank != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank):
        """This shape (ValueError if its rank is known and below ``rank``)."""
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        """This shape (ValueError if its rank is known and above ``rank``)."""
        if self.rank is not None and self.rank > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def __repr__(self):
        return "TensorShape(None)" if self._dims is None else f"TensorShape({list(self._dims)})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"


def as_shape(shape):
    """``shape`` as a TensorShape (a TensorShape as it is), as TF's ``as_shape``."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


# A shape flattens to its dimensions (ints are leaves), as when it was a tuple, so
# the pytrees of the core and of JAX see no change; rebuilt unchecked (leaves may
# be traced). Unknown rank: no leaves.
jax.tree_util.register_pytree_node(
    TensorShape, lambda s: (() if s._dims is None else s._dims, s._dims is None),
    lambda unknown, c: _shape(None if unknown else tuple(c)))


class Tensor(_TensorLike):
    """An immutable wrapper of one ``jax.Array``; what every recorded op returns.

    Identity matters: a tape tracks this object, not its value.

    >>> import eagertape as et
    >>> t = et.constant([1.0, 2.0])
    >>> t * 2
    <tf.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>

    NumPy's array methods (``sum``, ``mean``, ``reshape``, ``T``, ``astype``, ...)
    are recorded ops too; ``shape``, ``dtype``, ``ndim`` and ``size`` are read off:

    >>> t.reshape(2, 1).T.shape, t.mean().numpy(), t.astype("int32").dtype
    (TensorShape([1, 2]), np.float32(1.5), tf.int32)
    """

    # _v: a jax.Array, or in fused mode a Pending (shape and dtype known, value
    # computed with its graph when first asked for).
    __slots__ = ("_v", "__weakref__")

    # A subclass whose value is a host NumPy array JAX cannot hold (the facade's
    # string tensors) sets this: ``function`` refuses it as an argument, naming the
    # argument, and gives it back as it is when the traced code returns it (it can
    # only have been made from constants, on the host, while tracing).
    _host_only = False

    def __init__(self, value):
        if isinstance(value, _TensorLike):
            value = value._read()
        elif not isinstance(value, jax.Array):
            raise TypeError(f"Tensor(value) takes a jax.Array or Tensor, got {type(value).__name__}; "
                            "use eagertape.constant(value) to convert other values")
        self._v = value

    @property
    def _value(self):
        v = self._v
        if type(v) is Pending:
            v = self._v = v.get()
        return v

    def _read(self): return self._value

    def _aval(self): return self._v

    # -- handing the value to JAX and to DLPack consumers (eagertape.interop) --
    def __jax_array__(self):
        # jax.numpy sees only the raw value: while a tape tracks this Tensor that
        # would silently cut the gradient, so _for_jax refuses instead.
        return _for_jax(self, "passed to raw JAX (jnp.asarray, a jax.numpy function)")

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """The value's buffer for ``np.from_dlpack(t)``, ``jnp.from_dlpack(t)``,
        ``torch.from_dlpack(t)``: no copy, its dtype as is (float64 too)."""
        _refuse_tracked(self, "exported by DLPack")
        return _dlpack(self._value, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return self._value.__dlpack_device__()

    # A value of a TF 1 graph (``_symbolic``) has no array: its graph describes
    # it (TF's text of a symbolic Tensor; its name, op and graph). Only attributes
    # a Tensor lacks come here, so other Tensors pay nothing.
    def __getattr__(self, attr):
        describe = None if attr.startswith("__") or attr == "_v" else \
            getattr(getattr(self._v, "graph", None), "describe", None)
        if describe is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")
        return describe(self._v, attr)

    # Printed as TF prints its Tensors (eagertape's Tensor is tf.Tensor).
    def __repr__(self):
        if type(self._v) is Pending and getattr(self._v.graph, "describe", None) is not None:
            return self._v.graph.describe(self._v, "__repr__")
        if isinstance(self._value, jax.core.Tracer):      # as TF shows a symbolic Tensor
            name, shape = _traced(self._value)
            return f"<tf.Tensor '{name}' shape={shape} dtype={self.dtype.name}>"
        return (f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
                f"numpy={_shown(self._value, True)}>")

    def __str__(self):
        if type(self._v) is Pending and getattr(self._v.graph, "describe", None) is not None:
            return self._v.graph.describe(self._v, "__str__")
        if isinstance(self._value, jax.core.Tracer):
            name, shape = _traced(self._value)
            return f'Tensor("{name}", shape={shape}, dtype={self.dtype.name})'
        return f"tf.Tensor({_shown(self._value, False)}, shape={self.shape}, dtype={self.dtype.name})"

    def __reduce__(self):
        return (_unpickle, (np.asarray(self._value),))


def _traced(value):
    """A traced value's name and shape as TF prints a symbolic Tensor: its argument's
    name where it is one of the function's arguments, None for a size any size fills."""
    from ._state import local
    cap = local.state.capture
    name = getattr(cap, "names", {}).get(id(value)) if cap is not None else None
    shape = tuple(d if type(d) is int else None for d in value.shape)
    return f"{name or 'traced'}:0", shape


def _shown(value, is_repr):
    """The value as TF prints it in a Tensor's repr (``is_repr``) or str: NumPy's
    text, a scalar's repr as its Python value's (``numpy=0``, not ``array(0)``),
    text of several lines starting on a line of its own. A value spread over other
    processes' devices (a multi-process global array) cannot be fetched here, and
    printing must not fail."""
    if isinstance(value, jax.Array) and not value.is_fully_addressable:
        n = len({d.process_index for d in value.sharding.device_set})
        return f"<sharded over {n} processes: {value.sharding}>"
    v = np.asarray(value)
    v = v[()] if v.ndim == 0 else v
    if not is_repr:
        text = str(v)
    elif np.isscalar(v) and not isinstance(v, bytes):
        text = repr(v.item() if isinstance(v, np.generic) else v)
    else:
        text = repr(v)
    return "\n" + text if "\n" in text else text


_SHAPE_ONLY = (np.shape, np.ndim, np.size)


def _holds_tracer(x):
    """Whether a Tensor in ``x`` (in lists, tuples and dicts) holds a JAX tracer."""
    if isinstance(x, _TensorLike):
        return isinstance(x._aval(), jax.core.Tracer)
    if type(x) in (list, tuple):
        return any(_holds_tracer(e) for e in x)
    if type(x) is dict:
        return any(_holds_tracer(e) for e in x.values())
    return False


def _to_host(x):
    """``x`` with each Tensor in it (in lists, tuples and dicts) as its NumPy value."""
    if isinstance(x, _TensorLike):
        return np.asarray(x)
    # Subclasses (a namedtuple) too, as plain containers: NumPy reads them as such,
    # and a Tensor left in one would bring NumPy back here without end.
    if isinstance(x, (list, tuple)):
        return (list if isinstance(x, list) else tuple)(_to_host(e) for e in x)
    if isinstance(x, dict):
        return {k: _to_host(e) for k, e in x.items()}
    return x


def _wrap(value):
    t = object.__new__(Tensor)
    t._v = value
    return t


def _unpickle(array):
    return _wrap(_to_array(array, None, "value"))


# -- JAX interop (eagertape.interop's module docstring says why) ----------------------

def _canonical(v):
    """``v`` as JAX holds a NumPy array of its dtype in the current mode: with
    ``jax_enable_x64`` off (on this thread), float64/int64/uint64/complex128 become
    their 32-bit types, as ``jnp.asarray(np.float64(1))`` does; otherwise ``v``."""
    dt = getattr(v, "dtype", None)
    if dt is None or dt.itemsize < 8:      # 32-bit and smaller: canonical in any mode
        return v
    c = jax.dtypes.canonicalize_dtype(dt)
    return v if c == dt else v.astype(c)


def _tracked(t):
    """Whether a recording GradientTape or an active ForwardAccumulator tracks ``t``."""
    key = id(t)
    for tape in local.state.tapes:
        if tape._tape.tracks(key):
            return True
    for acc in local.state.accumulators:
        if acc._tracks(t):
            return True
    return False


def _refusal(what, how):
    return TypeError(
        f"{what} that a recording GradientTape (or ForwardAccumulator) tracks was {how}: "
        "that code would see only its value, and the gradient would silently stop there. "
        "Compute with eagertape's recorded ops instead (use eagertape.numpy or tf.* "
        "functions, eagertape.function for compiled code), or take the value off the tape "
        "on purpose: eagertape.stop_gradient(x) (a nest too), x.jax(), x.numpy(), or run "
        "the JAX code outside the tape (`with tape.stop_recording():`)")


def _refuse_tracked(t, how):
    if _tracked(t):
        raise _refusal("a Tensor", how)


def _for_jax(t, how):
    """The array JAX gets for Tensor ``t`` (pending values computed, 64-bit dtypes
    canonicalized as for a NumPy array), or the refusal for a tracked ``t``."""
    _refuse_tracked(t, how)
    return _canonical(t._value)


def _dlpack(v, stream, max_version, dl_device, copy):
    # Only what the consumer asked for: older jax.Array.__dlpack__ take fewer keywords.
    kw = {k: a for k, a in (("max_version", max_version), ("dl_device", dl_device),
                            ("copy", copy)) if a is not None}
    return v.__dlpack__(stream=stream, **kw)


def _flatten_tensor(t):
    # A pytree node with one child, its array, so jax.jit, jax.vmap, jax.grad,
    # jax.device_put and jax.numpy's jitted functions take Tensors. JAX also
    # rebuilds nodes around placeholders (vmap's axes), hence no dtype assumed.
    _refuse_tracked(t, "flattened by jax.tree_util (an argument of jax.jit, jax.vmap, "
                    "jax.device_put or a jax.numpy function, a leaf of tree_map)")
    v = t._v
    if type(v) is Pending:
        v = t._value
    return (_canonical(v),), None


def _unflatten_tensor(_, children):
    c = children[0]
    # A function mapped over the leaves may give a Tensor back (tree_map(f, t)
    # with f an eagertape op): that Tensor, not a Tensor of a Tensor.
    return c if isinstance(c, _TensorLike) else _wrap(c)


jax.tree_util.register_pytree_node(Tensor, _flatten_tensor, _unflatten_tensor)


_PY_DTYPES = {float: np.dtype(np.float32), int: np.dtype(np.int32),
              bool: np.dtype(np.bool_), complex: np.dtype(np.complex128),
              # TF's string dtype: NumPy's object dtype of bytes (as TF's numpy()).
              str: np.dtype(object), bytes: np.dtype(object), np.str_: np.dtype(object),
              np.bytes_: np.dtype(object), "string": np.dtype(object)}


def _as_dtype(dtype):
    """A NumPy dtype from anything TF or NumPy users pass (Python types as in TF)."""
    if dtype is None:
        return None
    if dtype in _PY_DTYPES:
        return _PY_DTYPES[dtype]
    try:
        return np.dtype(getattr(dtype, "as_numpy_dtype", dtype))
    except TypeError:
        raise TypeError(f"argument `dtype`: {dtype!r} is not a dtype; pass e.g. 'float32' "
                        "or numpy.float32") from None


def _python_default_dtype(arr, value):
    # TF: Python floats become float32 and ints int32 (NumPy would say 64 bits);
    # arrays and array-likes (a pandas Series: it has __array__) keep their dtype.
    if isinstance(value, (np.ndarray, np.generic)) or (
            hasattr(value, "__array__") and not isinstance(value, (list, tuple))):
        return arr
    if arr.dtype == np.float64:
        return arr.astype(np.float32)
    if arr.dtype == np.int64:
        if arr.size and (arr.max() > np.iinfo(np.int32).max or arr.min() < np.iinfo(np.int32).min):
            return arr
        return arr.astype(np.int32)
    return arr


def tf_variable_error(value, where):
    """The error for a variable of real TensorFlow (``import tensorflow``) given
    to eagertape, or None for anything else. Read as a constant, its gradient
    would silently never come and its updates would never be seen."""
    tp = type(value)
    if "Variable" in tp.__name__ and tp.__module__.startswith("tensorflow"):
        return TypeError(
            f"{where}: tf.Variable {getattr(value, 'name', '')!r} is a variable of TensorFlow itself (made "
            "under `import tensorflow`), which eagertape's tapes cannot watch or update; "
            "make it with eagertape.tf.Variable (write `import eagertape.tf as tf` in every "
            "module of the program), or pass its value with .numpy()")
    return None


@x64
def _to_array(value, dtype, argname):
    e = tf_variable_error(value, f"argument `{argname}`")
    if e is not None:
        raise e
    if value is None:     # TF's class: a ValueError
        raise ValueError(f"argument `{argname}`: Attempt to convert a value (None) with an "
                         "unsupported type (<class 'NoneType'>) to a Tensor; pass numbers, "
                         "nested lists of numbers, or arrays")
    if isinstance(value, (str, bytes)):
        raise TypeError(f"argument `{argname}`: cannot convert {value!r} of type "
                        f"{type(value).__name__} to a tensor (eagertape has no string "
                        "tensors); pass numbers, nested lists of numbers, or arrays")
    if isinstance(value, jax.Array):
        return value if dtype is None or value.dtype == dtype else value.astype(dtype)
    if isinstance(value, TensorShape):         # TF's conversion: its sizes, if all known
        if not value.is_fully_defined():
            raise ValueError(f"argument `{argname}`: Cannot convert a partially known "
                             f"TensorShape {value} to a Tensor.")
        value = value.as_list()
    try:
        arr = np.asarray(value)
    except ValueError as e:    # a ragged list: TF's class too
        raise ValueError(f"argument `{argname}`: cannot convert {type(value).__name__} to a "
                         f"tensor ({e}); a nested list must be rectangular") from None
    except TypeError as e:
        raise TypeError(f"argument `{argname}`: cannot convert {type(value).__name__} to a "
                        f"tensor ({e})") from None
    kind = arr.dtype.kind
    # JAX's own number types (bfloat16, float8: ml_dtypes) are NumPy kind "V",
    # as records and raw bytes are: told apart by their category.
    if kind in "OUS" or (kind == "V" and category(arr.dtype) == "?"):
        raise TypeError(f"argument `{argname}`: cannot convert a value of type "
                        f"{type(value).__name__} (NumPy dtype {arr.dtype}) to a tensor; pass "
                        "numbers, nested lists of numbers, or arrays")
    if kind == "V" and isinstance(value, (list, tuple)):
        # TF converts such scalars alone or in arrays, not in Python lists.
        raise ValueError(f"argument `{argname}`: Attempt to convert a value ({value!r}) with "
                         f"an unsupported type (a list of NumPy {arr.dtype} scalars) to a "
                         "Tensor; pass them as a NumPy array")
    if dtype is None:
        arr = _python_default_dtype(arr, value)
    else:
        if (category(arr.dtype) == "f" and dtype.kind in "iub") or (kind == "c" and dtype.kind != "c"):
            # TF takes no Python float as an integer, even 2.0; NumPy arrays cast
            # when nothing is lost.
            # An empty list is NumPy's float64 but holds no float: TF takes
            # tf.constant([], tf.int32).
            python = not isinstance(value, (np.ndarray, np.generic))
            if arr.size and (python or not np.array_equal(arr.astype(dtype), arr)):
                raise TypeError(f"argument `{argname}`: cannot convert {value!r} to {dtype} "
                                "without losing information; cast explicitly")
        arr = arr.astype(dtype)
    return jnp.asarray(arr)


def _host(v):
    """``v`` on the host: a NumPy array, or a NumPy scalar for a 0-d value (TF's ``numpy()``)."""
    a = np.asarray(v)
    if a.ndim == 0:
        return a[()]
    # TF's numpy() is a copy the program owns: writable (Keras's preprocess_input
    # divides it in place) and changing it leaves the tensor as it was. np.asarray
    # of a Tensor stays the zero-copy, read-only view, as TF's does.
    return a.copy()
