"""Variable: mutable state whose every read is what a tape records."""
import contextlib
import itertools

import jax
import jax.numpy as jnp
import numpy as np

from . import _operators
from ._graph import Pending
from ._primitive import call as _call
from ._state import EAGER, FUSED, local, switched, x64
from ._tensor import _TensorLike, _as_dtype, _shown, _to_array, _wrap
from ._tensor import _canonical, _dlpack, _host, _refusal, _unflatten_tensor
from ._tensor import device_name

_uid = itertools.count()


@contextlib.contextmanager
def init_scope():
    """TF's ``init_scope``: what runs inside is computed at once, outside any function
    being traced (values, not tracers: a Variable's initial value) and recorded on
    no tape."""
    with switched(tapes=[], accumulators=[], var_watchers=[], capture=None), \
            jax.ensure_compile_time_eval():
        yield


class Variable(_TensorLike):
    """A mutable tensor, as ``tf.Variable``.

    Trainable Variables read inside a GradientTape are watched automatically. Each
    read is recorded with the value of its time; assignments are not
    differentiated through.

    >>> import eagertape as et
    >>> from eagertape import numpy as tnp
    >>> v = et.Variable([1.0, 2.0])
    >>> with et.GradientTape() as tape:
    ...     y = tnp.sum(v * v)
    >>> tape.gradient(y, v).numpy()
    array([2., 4.], dtype=float32)
    >>> v.assign_sub([0.5, 0.5]).numpy()
    array([0.5, 1.5], dtype=float32)
    >>> v.name, v.trainable, et.Variable(0, trainable=False).trainable
    ('Variable:0', True, False)
    """

    __slots__ = ("_store", "_trainable", "_name", "_uid", "__weakref__")

    @x64
    def __init__(self, initial_value, trainable=True, name=None, dtype=None, **ignored):
        if callable(initial_value):
            with init_scope():      # as TF: the initializer runs outside any function
                initial_value = initial_value()
        if initial_value is None:
            raise ValueError("argument `initial_value` must be given (a value or a callable "
                             "returning one)")
        dtype = _as_dtype(dtype)
        # (a NumPy or Python value is a constant even while a function traces)
        with jax.ensure_compile_time_eval():
            if isinstance(initial_value, _TensorLike):
                value = initial_value._value
                if dtype is not None and value.dtype != dtype:
                    value = value.astype(dtype)
            else:
                value = _to_array(initial_value, dtype, "initial_value")
        self._trainable = True if trainable is None else bool(trainable)
        self._name = f"{local.state.name_scope}{name or 'Variable'}:0"
        self._uid = next(_uid)
        c = local.state.capture
        if c is not None:
            # Made while a function traces: the trace decides (TF lifts a first
            # trace's initial values out of the function and refuses later ones).
            value = c.create(self, value)
        elif isinstance(value, jax.core.Tracer):
            raise ValueError(
                "argument `initial_value` is a value traced by JAX (inside jax.jit or "
                "jax.grad); create the Variable outside the traced function, or pass a "
                "callable initial_value")
        self._val = value

    # In fused mode an assignment joins the pending graph (``_assign``): the
    # store then holds a ``Pending`` until the value is first needed, so that a
    # training step's updates run as one program.
    @property
    def _val(self):
        v = self._store
        if type(v) is Pending:
            v = self._store = v.get()
        return v

    @_val.setter
    def _val(self, new):
        self._store = new

    def __getstate__(self):
        self._val       # a pending value is computed first: copies and pickles hold arrays
        return super().__getstate__()

    # While an eagertape.function is traced, reads give the traced input that
    # stands for the Variable and writes are collected as outputs of the call.
    @property
    def _value(self):
        c = local.state.capture
        return self._val if c is None else c.read(self)

    @_value.setter
    def _value(self, new):
        c = local.state.capture
        if c is None:
            self._val = new
        else:
            c.write(self, new)

    # -- reads ----------------------------------------------------------------
    @property
    def _of(self):
        """The Variable itself (an alias's is the Variable it stands for)."""
        return self

    def _aval(self):
        return self._value

    def read_value(self, _watch=True):
        """A Tensor holding the current value: one recorded read of this Variable.

        >>> import eagertape as et
        >>> v = et.Variable([1.0, 2.0])
        >>> t = v.read_value()
        >>> _ = v.assign([5.0, 6.0])
        >>> t.numpy()                       # the value at the time of the read
        array([1., 2.], dtype=float32)
        """
        st = local.state
        c = st.capture
        t = _wrap(self._val if c is None else c.read(self))
        for w in st.var_watchers:
            w.append(self)
        for tape in st.tapes:
            tape._on_read(self, t, watch=_watch)
        for acc in st.accumulators:
            acc._on_read(self, t)
        return t

    _read = read_value
    value = read_value

    # -- handing the value to JAX and to DLPack consumers (eagertape.interop) --
    # JAX gets the current value, as TF's tf.convert_to_tensor(v) (not a recorded
    # read: while a tape may watch the Variable that would cut the gradient, so
    # it is refused). As a pytree node a Variable rebuilds as a Tensor: jax.jit,
    # jax.device_put or tree_map give values, the Variable itself is unchanged.
    def __jax_array__(self):
        _refuse_watched(self, "passed to raw JAX (jnp.asarray, a jax.numpy function)")
        return _canonical(self._value)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """The current value's buffer (``np.from_dlpack(v)``, ...): no copy."""
        _refuse_watched(self, "exported by DLPack")
        return _dlpack(self._value, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return self._value.__dlpack_device__()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # JAX's registry matches exact types: each subclass is a node too.
        jax.tree_util.register_pytree_node(cls, _flatten_variable, _unflatten_tensor)

    # -- writes ------------------------------------------------------------
    def _check(self, value, argname, pending=False):
        """The new value (an array; ``pending``: a fused ``Pending`` is kept as is),
        its dtype and shape checked against the Variable's."""
        old = self._aval()
        if isinstance(value, _TensorLike):
            new = value._aval() if pending else value._value
            if type(new) is Pending and new.value is not None:
                new = new.value
            if new.dtype != old.dtype:
                if _operators.promotion is None or not _promotes_to(value, old.dtype):
                    raise TypeError(f"argument `{argname}` has dtype {np.dtype(new.dtype).name} "
                                    f"but the Variable {self._name!r} has dtype "
                                    f"{np.dtype(old.dtype).name}; cast it first "
                                    f"with .astype({old.dtype.name!r})")
                # NumPy behaviour (TF's too): the value promotes to the Variable's dtype
                new = new.astype(old.dtype)
        else:
            if _operators.promotion is not None and not _promotes_to(value, old.dtype):
                raise TypeError(f"argument `{argname}`: {_short(value)} does not promote to the "
                                f"Variable {self._name!r}'s dtype {np.dtype(old.dtype).name} "
                                "under NumPy behaviour (TF: 'Variable dtype is immutable'); "
                                "convert it to that dtype first")
            new = _to_array(value, np.dtype(old.dtype), argname)
        if tuple(new.shape) != tuple(old.shape):
            raise ValueError(f"argument `{argname}` has shape {tuple(new.shape)} but the Variable "
                             f"{self._name!r} has shape {tuple(old.shape)}")
        return new

    def _assign(self, fn, value, argname):
        """``value`` (``fn`` None), or ``fn(current value, value)``, into the Variable.

        How is the executor's (``_assign_now``, ``_assign_deferred``)."""
        local.state.executor.assign(self, fn, value, argname)

    @x64
    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Replace the value (shape and dtype must match). Returns an alias of this
        Variable (as TF's: a later read sees later assignments), or None with
        ``read_value=False``.

        >>> import eagertape as et
        >>> v = et.Variable(3.0)
        >>> r = v.assign(6.0)
        >>> _ = v.assign_add(1.0)
        >>> float(r)
        7.0
        """
        self._assign(None, value, "value")
        return self._alias() if read_value else None

    @x64
    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Add ``delta`` in place; not differentiated through. Returns an alias.

        >>> import eagertape as et
        >>> v = et.Variable([1.0, 2.0])
        >>> v.assign_add([10.0, 10.0]).numpy()
        array([11., 12.], dtype=float32)
        """
        self._assign(jnp.add, delta, "delta")
        return self._alias() if read_value else None

    @x64
    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtract ``delta`` in place; not differentiated through. Returns an alias.

        >>> import eagertape as et
        >>> v = et.Variable(3.0)
        >>> _ = v.assign_sub(0.5, read_value=False)
        >>> float(v)
        2.5
        """
        self._assign(jnp.subtract, delta, "delta")
        return self._alias() if read_value else None

    def _alias(self):
        # TF's lazy read: the tapes recording now watch the Variable (a trainable
        # one, as a read would), though nothing is read until the alias is used.
        v = self._of
        if v._trainable:
            st = local.state
            for w in st.var_watchers:
                w.append(v)
            for tape in st.tapes:
                tape._on_read(v, None)
        return _Alias(v)

    # -- attributes --------------------------------------------------------
    @property
    def trainable(self): return self._trainable
    @property
    def name(self): return self._name
    @property
    def device(self):
        """The device holding the value, named as TF names it.

        >>> import eagertape as et
        >>> et.Variable(1.0).device.rsplit(":", 2)[0]      # then CPU:0 (or GPU:0, ...)
        '/job:localhost/replica:0/task:0/device'
        """
        return device_name(self._value)   # not _read(): asking where is not a read

    def numpy(self):
        return _host(self._value)

    def __array__(self, dtype=None, copy=None):
        # TF's: a Variable's array is always the program's own copy (np.asarray too).
        if copy is False:
            raise ValueError("Unable to avoid copy while creating an array as requested: a "
                             "Variable's value is copied out (TF's behaviour)")
        a = np.array(self._read())
        return a if dtype is None else a.astype(dtype, copy=False)

    def jax(self):
        """The current ``jax.Array`` (not a recorded read).

        >>> import eagertape as et
        >>> et.Variable([1.0, 2.0]).jax()
        Array([1., 2.], dtype=float32)
        """
        return self._value

    def __repr__(self):
        # TF's form (eagertape's Variable is tf.Variable); the value as a Tensor shows it.
        return (f"<tf.Variable {self._name!r} shape={self.shape} dtype={self.dtype.name}, "
                f"numpy={_shown(self._value, True)}>")

    def __str__(self):
        return repr(self)

    # TF's Variable formats as an object: f"{v}" is its repr, a format spec a
    # TypeError (format v.numpy(), or a Tensor of it, for the value).
    __format__ = object.__format__


_STORED = Variable._val     # the storage that may hold a pending value


@EAGER.define("assign")
def _assign_now(var, fn, value, argname):
    """The update computed at once."""
    new = var._check(value, argname)
    var._value = new if fn is None else fn(var._value, new)


@FUSED.define("assign")
def _assign_deferred(var, fn, value, argname):
    """Fused mode, outside a traced function: the update is a call appended to the
    pending graph, recorded on no tape (assignments are not differentiated
    through): the optimizer's updates of a training step then run as one program
    with what computed them, when the Variable is next read."""
    st = local.state
    v = var._of
    if st.capture is not None or type(v)._val is not _STORED:
        # (A Variable whose storage is another library's, a Keras weight's,
        # takes arrays only.)
        return _assign_now(var, fn, value, argname)
    new = var._check(value, argname, pending=True)
    if fn is not None:
        if st.tapes or st.accumulators or st.var_watchers:
            with switched(tapes=[], accumulators=[], var_watchers=[]):
                new = _call(fn, (_wrap(v._store), _wrap(new)))._v
        else:     # the usual update, after the tape: nothing to switch off
            new = _call(fn, (_wrap(v._store), _wrap(new)))._v
    v._store = new


class _DtypeOf:
    """Stands for a tensor of ``dtype`` where a promotion hook only asks a dtype."""
    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype

    def astype(self, dtype):
        return _DtypeOf(dtype)


def _promotes_to(value, dtype):
    """Whether ``value`` (a Tensor, a NumPy or Python value) promotes to ``dtype`` by the
    operators' promotion hook (tf.experimental.numpy's numpy behaviour), as TF's
    assignment asks it under numpy behaviour: int16 into an int32 Variable does,
    int64 does not. A hook that refuses the pair (TF's "safe" mode) raises."""
    tensor = isinstance(value, _TensorLike)
    if tensor:
        value = _DtypeOf(value.dtype)
    t, o = _operators.promotion(_DtypeOf(dtype), value, op=True)
    # (a hook that leaves a tensor's dtype as it was promotes nothing: TF's legacy mode)
    return np.dtype(t.dtype) == np.dtype(dtype) and (not tensor or np.dtype(o.dtype) == t.dtype)


def _short(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _refuse_watched(v, how):
    st = local.state
    if any(tape._may_watch(v) for tape in st.tapes) or any(
            id(v._of) in acc._variables for acc in st.accumulators):
        raise _refusal("a Variable", how)


def _flatten_variable(v):
    _refuse_watched(v, "flattened by jax.tree_util (an argument of jax.jit, jax.vmap, "
                    "jax.device_put or a jax.numpy function, a leaf of tree_map)")
    return (_canonical(v._value),), None


jax.tree_util.register_pytree_node(Variable, _flatten_variable, _unflatten_tensor)


class _Alias(Variable):
    """What ``assign*`` returns, as TF's ``_UnreadVariable``: the Variable under
    another name. It reads the Variable's current value and its gradient is the
    Variable's, but a tape does not start watching the Variable when the alias is
    read (TF records such a read only where the Variable is watched already).

    >>> import eagertape as et
    >>> v = et.Variable(3.0)
    >>> r = v.assign(6.0)
    >>> with et.GradientTape() as tape:
    ...     y = r * r
    >>> print(tape.gradient(y, v))
    None
    """

    __slots__ = ("_parent",)

    def __init__(self, parent):
        self._parent = parent

    _of = property(lambda self: self._parent)
    _val = property(lambda self: self._parent._val)
    _trainable = property(lambda self: self._parent._trainable)
    _name = property(lambda self: self._parent._name)
    _uid = property(lambda self: self._parent._uid)

    @property
    def _value(self):
        return self._parent._value

    @_value.setter
    def _value(self, new):
        self._parent._value = new

    def read_value(self):
        # A read of the Variable that does not make tapes start watching it.
        return Variable.read_value(self._parent, False)

    _read = read_value
    value = read_value
