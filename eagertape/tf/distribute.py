"""``tf.distribute``: TF's distribution strategies over JAX's local devices.

A strategy runs a step once per replica (``Strategy.run``), each replica on its
slice of the global batch (``experimental_distribute_dataset``), and sums or
averages what the replicas return (``Strategy.reduce``). eagertape runs the
replicas one after another on this thread, each placed on its device (JAX's
asynchronous dispatch lets the devices work at once); inside a ``tf.function``
the replicas are traced into one program. An optimizer's ``apply_gradients``
called by every replica is TF's cross-replica step: the replicas' gradients are
summed and applied once, after the last replica's turn, so every replica computes
with the same weights, as in TF.

One replica (the default strategy, ``OneDeviceStrategy``, ``MirroredStrategy`` on
one device: what a program meets on a CPU or one GPU) is TF's behaviour exactly.
What differs with several replicas, and the strategies that are not here (several
workers, parameter servers, TPUs), are in docs/differences.md.

>>> import eagertape.tf as tf
>>> strategy = tf.distribute.MirroredStrategy()
>>> with strategy.scope():
...     v = tf.Variable(2.0)
>>> out = strategy.run(lambda x: x * v, args=(tf.constant(3.0),))
>>> float(strategy.reduce(tf.distribute.ReduceOp.SUM, out, axis=None))
6.0
"""
import contextlib
import enum
import os
import threading

import jax
import numpy as np

from .. import extend as _ext

__all__ = ["CrossDeviceOps", "DistributedDataset", "DistributedIterator", "DistributedValues",
           "HierarchicalCopyAllReduce", "InputContext", "InputOptions",
           "MirroredStrategy", "MultiWorkerMirroredStrategy", "NcclAllReduce",
           "OneDeviceStrategy", "ReduceOp", "ReductionToOneDevice", "ReplicaContext",
           "RunOptions", "Strategy", "StrategyExtended", "cluster_resolver", "experimental",
           "experimental_set_strategy", "get_replica_context", "get_strategy", "has_strategy",
           "in_cross_replica_context"]


class ReduceOp(enum.Enum):
    """How values of the replicas are combined: ``SUM`` or ``MEAN``.

    >>> import eagertape.tf as tf
    >>> tf.distribute.ReduceOp("MEAN")
    <ReduceOp.MEAN: 'MEAN'>
    """
    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        name = getattr(aggregation, "name", str(aggregation)).upper()
        if name == "SUM":
            return ReduceOp.SUM
        if name in ("MEAN", "ONLY_FIRST_REPLICA"):
            return ReduceOp.MEAN
        raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} to "
                         "`tf.distribute.ReduceOp` type")

    def __str__(self):
        return f"ReduceOp.{self.name}"


def _reduce_op(op):
    if isinstance(op, ReduceOp):
        return op
    if isinstance(op, str) and op.upper() in ("SUM", "MEAN"):
        return ReduceOp(op.upper())
    raise ValueError(f"argument `reduce_op`: expected tf.distribute.ReduceOp.SUM or MEAN (or "
                     f"'SUM' / 'MEAN'), got {op!r}")


# -- per-thread state: the strategy scopes entered and the replica running ----------

_state = threading.local()


def _scopes():
    s = getattr(_state, "scopes", None)
    if s is None:
        s = _state.scopes = []
    return s


def _replica():
    return getattr(_state, "replica", None)


class DistributedValues:
    """Values of a step, one per replica (TF's ``PerReplica`` and ``Mirrored``):
    what ``Strategy.run`` returns and a distributed dataset yields when a strategy
    has several replicas. ``strategy.experimental_local_results(v)`` is the tuple
    of them; ``strategy.reduce`` combines them."""

    def __init__(self, values, mirrored=False):
        self._values = tuple(values)
        self._mirrored = mirrored

    @property
    def values(self):
        return self._values

    def _show(self, show):
        kind = "Mirrored" if self._mirrored else "PerReplica"
        inner = ",\n".join(f"  {i}: {show(v)}" for i, v in enumerate(self._values))
        return f"{kind}:{{\n{inner}\n}}"

    def __repr__(self):
        return self._show(repr)

    def __str__(self):          # (TF's: print shows its values' str)
        return self._show(str)

    def __iter__(self):
        raise TypeError("a tf.distribute.DistributedValues is one value per replica: iterate "
                        "strategy.experimental_local_results(value) for the replicas' values")


# TF's nests take the replicas' values as a leaf of their own; JAX's pytrees too.
jax.tree_util.register_pytree_node(
    DistributedValues, lambda d: (d._values, d._mirrored),
    lambda mirrored, values: DistributedValues(values, mirrored))


def _is_leaf(x):
    return isinstance(x, DistributedValues) or _ext.is_tensor_like(x)


def _select(structure, r):
    """Replica ``r``'s part of a structure holding DistributedValues."""
    return jax.tree_util.tree_map(
        lambda x: x._values[r] if isinstance(x, DistributedValues) else x, structure,
        is_leaf=lambda x: isinstance(x, DistributedValues))


def _regroup(outs):
    """One structure of DistributedValues from the replicas' structures (a value
    every replica returned as the same object stays itself: a Variable, say)."""
    leaves = [jax.tree_util.tree_flatten(o, is_leaf=_is_leaf) for o in outs]
    treedef = leaves[0][1]
    for _, t in leaves[1:]:
        if t != treedef:
            raise ValueError(f"the replicas of Strategy.run returned structures that differ: "
                             f"{treedef} and {t}; every replica must return the same structure")
    grouped = []
    for parts in zip(*(ls for ls, _ in leaves)):
        same = all(p is parts[0] for p in parts)
        grouped.append(parts[0] if same and not _ext.is_tensor_like(parts[0])
                       else DistributedValues(parts, mirrored=same))
    return jax.tree_util.tree_unflatten(treedef, grouped)


# -- replica contexts ---------------------------------------------------------------

class ReplicaContext:
    """The context of one replica while ``Strategy.run`` runs it:
    ``tf.distribute.get_replica_context()`` inside the step (outside any strategy's
    scope: the default strategy's only replica).

    >>> import eagertape.tf as tf
    >>> ctx = tf.distribute.get_replica_context()
    >>> ctx.num_replicas_in_sync, int(ctx.replica_id_in_sync_group)
    (1, 0)
    """

    def __init__(self, strategy, replica_id_in_sync_group):
        self._strategy = strategy
        self._id = replica_id_in_sync_group

    @property
    def strategy(self):
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        # TF's default replica context gives a Python int, a strategy's a Tensor.
        if isinstance(self._strategy, _DefaultStrategy):
            return self._id
        return _ext.constant(np.int32(self._id))

    @property
    def devices(self):
        return (self._strategy.extended.worker_devices[self._id],)

    def all_reduce(self, reduce_op, value, options=None):
        """``value`` combined over the replicas, given to each. With one replica it is
        ``value`` itself; with several, the replicas run one after another here, so
        a value is not at hand before the later replicas have run: raise, naming what
        to do."""
        op = _reduce_op(reduce_op)
        if self.num_replicas_in_sync == 1:
            return jax.tree_util.tree_map(_ext.convert_to_tensor, value, is_leaf=_is_leaf) \
                if op is ReduceOp.SUM else value
        raise NotImplementedError(
            "ReplicaContext.all_reduce with several replicas: eagertape runs the replicas one "
            "after another, so one replica cannot wait for the others' values inside the step; "
            "return the value from the step and combine it with strategy.reduce (or "
            "apply_gradients, which sums the replicas' gradients)")

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """``merge_fn(strategy, *args, **kwargs)`` in the cross-replica context (one
        replica: at once)."""
        if self.num_replicas_in_sync != 1:
            raise NotImplementedError(
                "ReplicaContext.merge_call with several replicas: eagertape runs the replicas "
                "one after another (see all_reduce); combine values after Strategy.run")
        saved = _state.replica
        _state.replica = None
        try:
            return merge_fn(self._strategy, *args, **(kwargs or {}))
        finally:
            _state.replica = saved

    def __repr__(self):
        return f"<{type(self).__name__} replica {self._id} of {self.num_replicas_in_sync}>"


class _DefaultReplicaContext(ReplicaContext):
    pass


class _MirroredReplicaContext(ReplicaContext):
    pass


class _OneDeviceReplicaContext(ReplicaContext):
    pass


# -- datasets -----------------------------------------------------------------------

class InputContext:
    """What ``distribute_datasets_from_function``'s function is told: how many input
    pipelines and replicas there are.

    >>> import eagertape.tf as tf
    >>> tf.distribute.InputContext(num_replicas_in_sync=2).get_per_replica_batch_size(64)
    32
    """

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self.num_replicas_in_sync} ")
        return global_batch_size // self.num_replicas_in_sync


class InputOptions:
    """Options of a distributed dataset (TF's prefetching and placement: eagertape
    takes them and places each replica's slice on its device)."""

    def __init__(self, experimental_fetch_to_device=None, experimental_replication_mode=None,
                 experimental_place_dataset_on_device=False, experimental_per_replica_buffer_size=1):
        self.experimental_fetch_to_device = experimental_fetch_to_device
        self.experimental_replication_mode = experimental_replication_mode
        self.experimental_place_dataset_on_device = experimental_place_dataset_on_device
        self.experimental_per_replica_buffer_size = experimental_per_replica_buffer_size


class RunOptions:
    """Options of ``Strategy.run`` (TF's TPU and XLA settings: taken, no effect)."""

    def __init__(self, experimental_enable_dynamic_batch_size=True,
                 experimental_bucketizing_dynamic_shape=False, experimental_xla_options=None):
        self.experimental_enable_dynamic_batch_size = experimental_enable_dynamic_batch_size
        self.experimental_bucketizing_dynamic_shape = experimental_bucketizing_dynamic_shape
        self.experimental_xla_options = experimental_xla_options


def _split(x, n):
    """A global batch's rows shared among ``n`` replicas as TF's rebatching shares
    them (the first replicas take one more where they do not divide)."""
    if not _ext.is_tensor_like(x) and not isinstance(x, (np.ndarray, jax.Array)):
        return DistributedValues([x] * n, mirrored=True)
    t = _ext.convert_to_tensor(x)
    if not t.shape:
        return DistributedValues([t] * n, mirrored=True)
    b = t.shape[0]
    sizes = [b // n + (1 if r < b % n else 0) for r in range(n)]
    starts = np.cumsum([0] + sizes)
    return DistributedValues([t[int(starts[r]):int(starts[r + 1])] for r in range(n)])


class DistributedDataset:
    """A dataset whose elements are global batches shared among the replicas: each
    step gives a structure of DistributedValues (one replica: the element itself).
    Iterate it (in Python or in a ``tf.function``) and pass each element to
    ``Strategy.run``."""

    def __init__(self, strategy, dataset=None, per_replica=None, options=None):
        self._strategy = strategy
        self._dataset = dataset
        self._per_replica = per_replica     # one dataset per input pipeline
        self._options = options

    @property
    def element_spec(self):
        """The spec of a step's element: the dataset's, each TensorSpec a
        per-replica spec where there are several replicas (the element's
        DistributedValues), as TF's PerReplicaSpec; a tf.function's input_signature
        takes it."""
        ds = self._dataset if self._dataset is not None else self._per_replica
        n = self._strategy.num_replicas_in_sync
        if n == 1:
            return ds.element_spec
        return jax.tree_util.tree_map(lambda spec: _PerReplicaSpec(spec, n), ds.element_spec,
                                      is_leaf=lambda x: hasattr(x, "shape")
                                      and hasattr(x, "dtype"))

    def __iter__(self):
        return DistributedIterator(self._strategy, self)

    def reduce(self, initial_state, reduce_func):
        state = initial_state
        for x in self:
            state = reduce_func(state, x)
        return state

    def _elements(self):
        n = self._strategy.num_replicas_in_sync
        if self._dataset is not None:
            for x in self._dataset:
                yield x if n == 1 else jax.tree_util.tree_map(
                    lambda v: _split(v, n), x, is_leaf=_ext.is_tensor_like)
            return
        it = iter(self._per_replica)
        while True:
            parts = []
            for _ in range(n):
                try:
                    parts.append(next(it))
                except StopIteration:
                    break
            if not parts:
                return
            if n == 1:
                yield parts[0]
                continue
            while len(parts) < n:   # TF's last step: the replicas past the data get none
                parts.append(jax.tree_util.tree_map(
                    lambda v: v[:0] if getattr(v, "shape", ()) else v, parts[0],
                    is_leaf=_ext.is_tensor_like))
            yield _regroup(parts)


class _PerReplicaSpec:
    """TF's ``PerReplicaSpec``: one TensorSpec per replica (a step's DistributedValues);
    a composite spec by TF's protocol (``_flat_tensor_specs``)."""

    def __init__(self, spec, n):
        self._spec, self._n = spec, n
        self._flat_tensor_specs = [spec] * n

    def _from_compatible_tensor_list(self, tensors):
        return DistributedValues(tensors)

    def is_compatible_with(self, value):
        if not isinstance(value, DistributedValues) or len(value.values) != self._n:
            return False
        want = None if self._spec.shape is None else tuple(self._spec.shape)

        def fits(v):
            shape = tuple(getattr(v, "shape", ()))
            return (np.dtype(getattr(v, "dtype", None)) == np.dtype(self._spec.dtype)
                    and (want is None or len(want) == len(shape)
                         and all(w is None or w == d for w, d in zip(want, shape))))
        return all(fits(v) for v in value.values)

    def __eq__(self, other):
        return isinstance(other, _PerReplicaSpec) and (other._spec, other._n) == (
            self._spec, self._n)

    def __hash__(self):
        return hash((self._spec, self._n))

    def __repr__(self):
        return "PerReplicaSpec(" + ", ".join([repr(self._spec)] * self._n) + ")"


class DistributedIterator:
    """An iterator over a DistributedDataset (``iter(dist_dataset)``); ``next`` and
    ``get_next`` give a step's element."""

    def __init__(self, strategy, dataset):
        self._strategy = strategy
        self._dataset = dataset
        self._gen = dataset._elements()
        self._taken = 0     # elements given so far
        self._made_in = _ext.function_trace()     # made while a function is traced
        self._optional_traced = False

    def __tf_tracing_type__(self, context):
        # next()/get_next() in a trace take the element as an input of each call
        # (TF's IteratorGetNext): one trace serves every call. get_next_as_optional
        # decides has_value() while the function is traced, so once a trace has
        # called it, a call with the iterator further on is traced again.
        return ("DistributedIterator", id(self),
                self._taken if self._optional_traced else None)

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def __iter__(self):
        return self

    def __next__(self):
        self._check_not_in_compiled_loop("next(iterator)")
        cap = _ext.function_trace()
        if cap is not None and self._made_in is cap:
            # Made in the trace being made (a loop over the dataset inside the
            # function): the trace goes through it, as each call of TF's does.
            return self._take()
        return _ext.next_element(self, self._take)

    def _take(self):
        out = next(self._gen)
        self._taken += 1
        return out

    @staticmethod
    def _check_not_in_compiled_loop(what):
        cap = _ext.function_trace()
        nested = getattr(cap, "nested", None)
        if nested is not None and nested():
            # A compiled loop traces its body once: one element would stand for every
            # step. AutoGraph's `for` over a Tensor of known length then runs unrolled.
            raise NotImplementedError(
                f"DistributedIterator {what} inside a compiled loop (a loop on values traced "
                "by tf.function): the body is traced once, so it cannot take a new element "
                "each step; loop over a Python range or a tf.range of known length, or "
                "iterate the distributed dataset (`for x in dist_dataset`)")

    def get_next(self):
        try:
            return next(self)
        except StopIteration:
            from .errors import OutOfRangeError
            raise OutOfRangeError("End of sequence") from None

    def get_next_as_optional(self):
        """The next step's element as an optional value (``has_value()``,
        ``get_value()``): empty at the end, where ``get_next`` raises. In a
        ``tf.function`` the element is taken while the function is traced, so
        ``has_value()`` is known there and a loop over ``tf.range(n)`` that breaks on
        it runs unrolled (the steps' elements may differ in shape, which one compiled
        loop body could not take).

        >>> import eagertape.tf as tf
        >>> strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
        >>> it = iter(strategy.experimental_distribute_dataset(
        ...     tf.data.Dataset.range(5).batch(2)))
        >>> @tf.function
        ... def total(it):
        ...     s = tf.constant(0, tf.int64)
        ...     for _ in tf.range(10):
        ...         opt = it.get_next_as_optional()
        ...         if not opt.has_value():
        ...             break
        ...         s += tf.reduce_sum(opt.get_value())
        ...     return s
        >>> int(total(it))
        10
        """
        self._check_not_in_compiled_loop("get_next_as_optional()")
        traced = _ext.function_trace() is not None
        if traced:
            self._optional_traced = True
        try:
            return _OptionalElement(self._take() if traced else next(self), self.element_spec,
                                    traced)
        except StopIteration:
            return _OptionalElement(None, self.element_spec, traced)


class _OptionalElement:
    """A step's element or none (TF's ``tf.experimental.Optional`` of an iterator)."""

    def __init__(self, value, element_spec, traced=False):
        self._value = value
        self.element_spec = element_spec
        self._traced = traced

    def has_value(self, name=None):
        """Whether there is an element: a bool Tensor; while a tf.function is traced,
        a Python bool (known then: an ``if`` or ``break`` on it is decided while
        tracing, where a Tensor made in the trace would be a traced value)."""
        if self._traced:
            return self._value is not None
        return _ext.constant(np.bool_(self._value is not None))

    def get_value(self, name=None):
        if self._value is None:
            from .errors import InvalidArgumentError
            raise InvalidArgumentError("The optional does not have a value")
        return self._value


# -- strategies ---------------------------------------------------------------------

def _device_name(d):
    kind = {"cpu": "CPU", "gpu": "GPU", "cuda": "GPU", "rocm": "GPU", "tpu": "TPU"}.get(
        d.platform, d.platform.upper())
    return f"/job:localhost/replica:0/task:0/device:{kind}:{d.id}"


def _jax_device(name):
    """(TF's full name, a JAX device) from TF's device name ('/gpu:0', 'GPU:1',
    '/device:CPU:0', ...). A device this process does not have is placed on the CPU,
    as TF's soft placement places it (the strategy keeps its replica and its name)."""
    if isinstance(name, jax.Device):
        return _device_name(name), name
    if hasattr(name, "name") and not isinstance(name, str):     # a LogicalDevice
        name = name.name
    s = str(name).lower().rsplit("device:", 1)[-1].lstrip("/")
    kind, _, idx = s.partition(":")
    kind = {"gpu": "gpu", "cpu": "cpu", "tpu": "tpu"}.get(kind.split("/")[-1])
    if kind is None or (idx and not idx.isdigit()):
        raise ValueError(f"argument `devices`: cannot read a device from {name!r}; give TF's "
                         f"names ('/gpu:0', '/cpu:0') or jax.Device objects")
    i = int(idx) if idx else 0
    full = f"/job:localhost/replica:0/task:0/device:{kind.upper()}:{i}"
    try:
        devs = jax.local_devices(backend=kind)
    except RuntimeError:
        devs = []
    return full, (devs[i] if i < len(devs) else jax.local_devices(backend="cpu")[0])


class StrategyExtended:
    """A strategy's devices and its lower-level operations (TF's
    ``StrategyExtended``)."""

    def __init__(self, strategy, devices, names=None):
        self._strategy = strategy
        self._devices = tuple(devices)
        self._names = tuple(names) if names is not None else None

    @property
    def worker_devices(self):
        if self._names is not None:
            return self._names
        return tuple(_device_name(d) for d in self._devices)

    @property
    def parameter_devices(self):
        return self.worker_devices

    @property
    def should_checkpoint(self):
        return True

    @property
    def should_save_summary(self):
        return True

    @property
    def experimental_require_static_shapes(self):
        return False

    def value_container(self, value):
        return value

    def variable_created_in_scope(self, v):
        return True

    def reduce_to(self, reduce_op, value, destinations, options=None):
        return self._strategy.reduce(reduce_op, value, axis=None)

    def colocate_vars_with(self, colocate_with_variable):
        return contextlib.nullcontext()

    def update(self, var, fn, args=(), kwargs=None, group=True):
        return fn(var, *_select(args, 0), **(kwargs or {}))

    def call_for_each_replica(self, fn, args=(), kwargs=None):
        return self._strategy.run(fn, args, kwargs)


class Strategy:
    """A distribution strategy: ``scope()`` for the objects a step uses, ``run`` for
    the step, ``reduce`` for its results (see the module's docstring). The base of
    ``MirroredStrategy`` and ``OneDeviceStrategy``; ``tf.distribute.get_strategy()``
    outside any scope is the default strategy (one replica, no placement)."""

    _context_class = ReplicaContext

    def __init__(self, extended):
        self._extended = extended
        self._merges = None

    @property
    def extended(self):
        return self._extended

    @property
    def num_replicas_in_sync(self):
        return len(self._extended._devices)

    @property
    def cluster_resolver(self):
        return None

    @contextlib.contextmanager
    def _scope(self):
        stack = _scopes()
        if stack and stack[-1] is not self and not isinstance(stack[-1], _DefaultStrategy) \
                and not isinstance(self, _DefaultStrategy):
            raise ValueError(f"Mixing different tf.distribute.Strategy objects: {self!r} is not "
                             f"{stack[-1]!r}; leave the other strategy's scope first")
        stack.append(self)
        try:
            yield self
        finally:
            stack.pop()

    def scope(self):
        """A context in which variables, models and optimizers are made for this
        strategy; inside it ``tf.distribute.get_strategy()`` is this strategy."""
        return self._scope()

    def run(self, fn, args=(), kwargs=None, options=None):
        """``fn(*args, **kwargs)`` once per replica, each given its part of the
        DistributedValues in ``args``; the replicas' results, as DistributedValues
        (one replica: the result itself). Optimizer steps the replicas take are
        applied once, with the replicas' gradients summed (TF's cross-replica
        step)."""
        if _replica() is not None:
            raise RuntimeError("Strategy.run called inside a replica's step (nested run); call "
                               "it in the cross-replica context")
        kwargs = kwargs or {}
        fn = _autograph_convert(fn)
        n = self.num_replicas_in_sync
        outs, merges = [], []
        self._merges = merges if n > 1 else None
        _scopes().append(self)
        try:
            for r in range(n):
                _state.replica = (self, self._context_class(self, r))
                dev = self._extended._devices[r] if self._extended._devices else None
                # A function called in a replica is traced for that replica, as TF
                # keys a tf.function's traces by the replica context.
                context = None if isinstance(self, _DefaultStrategy) else (
                    "replica", id(self), r)
                with (jax.default_device(dev) if dev is not None else contextlib.nullcontext()), \
                        _ext.in_trace_context(context):
                    outs.append(fn(*_select(args, r), **_select(kwargs, r)))
                _state.replica = None
            for apply in _merged(merges, n):
                apply()
        finally:
            _state.replica = None
            self._merges = None
            _scopes().pop()
        return outs[0] if n == 1 else _regroup(outs)

    def reduce(self, reduce_op, value, axis):
        """The replicas' values combined: summed or averaged over the replicas (and
        over ``axis`` of each, when it is given), in the cross-replica context.

        >>> import eagertape.tf as tf
        >>> s = tf.distribute.get_strategy()
        >>> float(s.reduce("SUM", tf.constant([1.0, 2.0]), axis=0))
        3.0
        """
        op = _reduce_op(reduce_op)
        locals_ = self.experimental_local_results(value)
        n = self.num_replicas_in_sync
        if not isinstance(value, DistributedValues) and n > 1 and op is ReduceOp.SUM:
            raise ValueError("A non-DistributedValues value cannot be reduced with the given "
                             "reduce_op ReduceOp.SUM (every replica would add the same value): "
                             "return the value from Strategy.run, or reduce with MEAN")
        if axis is None:
            if len(locals_) == 1:
                return locals_[0] if isinstance(value, DistributedValues) or n == 1 \
                    else _ext.convert_to_tensor(locals_[0])
            total = locals_[0]
            for v in locals_[1:]:
                total = total + v
            return total if op is ReduceOp.SUM else total / len(locals_)
        from . import math as _m
        sums = [_m.reduce_sum(v, axis=axis) for v in locals_]
        total = sums[0]
        for s in sums[1:]:
            total = total + s
        if op is ReduceOp.SUM:
            return total
        count = sum(int(_ext.convert_to_tensor(v).shape[axis]) for v in locals_)
        return total / _ext.convert_to_tensor(np.asarray(count, dtype=total.dtype))

    def gather(self, value, axis):
        """The replicas' values concatenated along ``axis``."""
        from .. import numpy as _enp      # (not tf.concat: tf imports tf.nn, which imports this)
        locals_ = self.experimental_local_results(value)
        return locals_[0] if len(locals_) == 1 else _enp.concatenate(
            [_ext.convert_to_tensor(v) for v in locals_], axis=axis)

    def experimental_local_results(self, value):
        """The replicas' values of ``value``, as a tuple (one per replica)."""
        if isinstance(value, DistributedValues):
            return value.values
        leaves, treedef = jax.tree_util.tree_flatten(value, is_leaf=_is_leaf)
        if any(isinstance(x, DistributedValues) for x in leaves):
            return tuple(_select(value, r) for r in range(self.num_replicas_in_sync))
        return (value,)

    def experimental_distribute_dataset(self, dataset, options=None):
        """``dataset``'s elements (global batches) shared among the replicas."""
        return DistributedDataset(self, dataset=dataset, options=options)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """The dataset ``dataset_fn(input_context)`` makes, each of its elements one
        replica's batch (the function batches per replica:
        ``input_context.get_per_replica_batch_size``)."""
        ctx = InputContext(1, 0, self.num_replicas_in_sync)
        return DistributedDataset(self, per_replica=dataset_fn(ctx), options=options)

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def experimental_distribute_values_from_function(self, value_fn):
        """DistributedValues of ``value_fn(ValueContext)`` for each replica."""
        vals = [value_fn(_ValueContext(r, self.num_replicas_in_sync))
                for r in range(self.num_replicas_in_sync)]
        return vals[0] if len(vals) == 1 else DistributedValues(vals)

    def make_experimental_numpy_dataset(self, numpy_input):
        from .data import Dataset
        return Dataset.from_tensor_slices(numpy_input)

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object>"


class _ValueContext:
    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self.replica_id_in_sync_group = replica_id_in_sync_group
        self.num_replicas_in_sync = num_replicas_in_sync


def _merged(merges, n):
    """The optimizer steps the replicas took, one per step: the k-th call of each
    replica joined, their gradients summed."""
    by_key = {}
    order = []
    for r, key, grads, vars_, apply in merges:
        if key not in by_key:
            by_key[key] = []
            order.append(key)
        by_key[key].append((r, grads, vars_, apply))
    for key in order:
        calls = by_key[key]
        if len(calls) != n:
            raise RuntimeError(f"apply_gradients was called by {len(calls)} of the {n} replicas "
                               "for one step; every replica must take the same optimizer steps")
        _, grads0, vars0, apply = calls[0]
        summed = []
        for i in range(len(grads0)):
            gs = [c[1][i] for c in calls]
            if any(g is None for g in gs):
                summed.append(None)
                continue
            total = gs[0]
            for g in gs[1:]:
                total = total + g
            summed.append(total)
        yield (lambda apply=apply, summed=summed, vars0=vars0: apply(summed, vars0))


def in_replica_step():
    """(strategy, replica id) while ``Strategy.run`` runs a replica of a strategy with
    several replicas, else None: the optimizer's hook (``defer_apply``) reads it."""
    rep = _replica()
    if rep is None or rep[0].num_replicas_in_sync == 1:
        return None
    return rep[0], rep[1]._id


def defer_apply(optimizer, grads, variables, apply):
    """Keep a replica's optimizer step for after the replicas' turns (TF's
    cross-replica step: gradients summed over the replicas, applied once). True when
    kept; False when no multi-replica step is running (apply it now)."""
    rep = in_replica_step()
    if rep is None:
        return False
    strategy, r = rep
    variables = None if variables is None else list(variables)
    count = getattr(_state, "calls", None)
    if count is None or count[0] is not strategy or count[1] != r:
        count = _state.calls = [strategy, r, {}]
    k = count[2].get(id(optimizer), 0)
    count[2][id(optimizer)] = k + 1
    strategy._merges.append((r, (id(optimizer), k), list(grads), variables,
                             lambda g, v: apply(g, v)))
    return True


def _autograph_convert(fn):
    # As TF's Strategy.run: the step is converted when its caller is (a tf.function).
    from . import _autograph
    return _autograph.convert_if_enabled(fn)


class _DefaultDistributionStrategy(Strategy):
    _context_class = _DefaultReplicaContext


_DefaultStrategy = _DefaultDistributionStrategy


class MirroredStrategy(Strategy):
    """Data parallelism on this process's devices: one replica per device (by default
    every GPU, else every CPU device), variables the same on each.

    >>> import eagertape.tf as tf
    >>> tf.distribute.MirroredStrategy().num_replicas_in_sync
    1
    """

    def __init__(self, devices=None, cross_device_ops=None):
        if devices is None:
            # TF's: every (logical) GPU, else every CPU device (one, unless the CPU is
            # split: tf.config.set_logical_device_configuration)
            devs = [d for d in jax.local_devices() if d.platform != "cpu"] or \
                jax.local_devices(backend="cpu")
            names = None
        else:
            if isinstance(devices, str):
                devices = [devices]
            named = [_jax_device(d) for d in devices]
            names, devs = [n for n, _ in named], [d for _, d in named]
            if not devs:
                raise ValueError("argument `devices`: empty; give at least one device, or None "
                                 "for every GPU (else the CPU)")
        super().__init__(StrategyExtended(self, devs, names))
        self._cross_device_ops = cross_device_ops

    _context_class = _MirroredReplicaContext


class OneDeviceStrategy(Strategy):
    """One replica on one device (``device``: TF's name, '/gpu:0' or '/cpu:0').

    >>> import eagertape.tf as tf
    >>> tf.distribute.OneDeviceStrategy("/cpu:0").num_replicas_in_sync
    1
    """

    _context_class = _OneDeviceReplicaContext

    def __init__(self, device):
        name, dev = _jax_device(device)
        super().__init__(StrategyExtended(self, [dev], [name]))


class MultiWorkerMirroredStrategy(MirroredStrategy):
    """One worker: ``MirroredStrategy`` on this process's devices (TF's strategy with
    no cluster in ``TF_CONFIG``). A cluster of several workers raises: join the
    processes with ``jax.distributed.initialize()`` and shard with JAX."""

    def __init__(self, cluster_resolver=None, communication_options=None):
        import json
        cluster = json.loads(os.environ.get("TF_CONFIG") or "{}").get("cluster", {})
        if cluster_resolver is not None or sum(len(v) for v in cluster.values()) > 1:
            raise NotImplementedError(
                "MultiWorkerMirroredStrategy with several workers is not in eagertape: join the "
                "processes with jax.distributed.initialize() and shard arrays with jax.sharding "
                "(docs/differences.md, tf.distribute)")
        super().__init__()
        self._cluster_resolver = _TFConfigClusterResolver()

    @property
    def cluster_resolver(self):
        """TF's: the ``TFConfigClusterResolver`` of this worker (``task_type`` and
        ``task_id`` from ``TF_CONFIG``'s task, None where it names none)."""
        return self._cluster_resolver


def _not_here(name, why):
    class NotHere:
        def __init__(self, *args, **kwargs):
            raise NotImplementedError(f"tf.distribute.{name} is not in eagertape: {why} "
                                      "(docs/differences.md, tf.distribute)")
    NotHere.__name__ = NotHere.__qualname__ = name.rsplit(".", 1)[-1]
    return NotHere


_TPU = ("TF's TPU runtime; JAX runs on TPUs itself (install jax[tpu]): use MirroredStrategy, "
        "whose replicas are JAX's local devices")
TPUStrategy = _not_here("TPUStrategy", _TPU)
ParameterServerStrategy = _not_here(
    "ParameterServerStrategy", "parameter servers drive TF's runtime across processes; "
    "shard with JAX (jax.sharding) and join processes with jax.distributed.initialize()")


class CrossDeviceOps:
    """How replicas' values are combined (TF's all-reduce algorithms). XLA chooses
    the collective on JAX, so these are taken and have no effect."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


class NcclAllReduce(CrossDeviceOps):
    pass


class HierarchicalCopyAllReduce(CrossDeviceOps):
    pass


class ReductionToOneDevice(CrossDeviceOps):
    pass


_DEFAULT = None


def _default():
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = _DefaultStrategy(StrategyExtended(None, []))
        _DEFAULT._extended._strategy = _DEFAULT
        _DEFAULT._extended._devices = ()
    return _DEFAULT


# The default strategy: one replica, no placement (TF's _DefaultDistributionStrategy).
_DefaultStrategy.num_replicas_in_sync = property(lambda self: 1)


def get_strategy():
    """The strategy whose scope (or step) this code runs in; outside any, the default
    strategy (one replica).

    >>> import eagertape.tf as tf
    >>> tf.distribute.get_strategy().num_replicas_in_sync
    1
    """
    stack = _scopes()
    return stack[-1] if stack else _default()


def has_strategy():
    """Whether this code runs in a strategy's scope (not the default strategy)."""
    stack = _scopes()
    return bool(stack) and not isinstance(stack[-1], _DefaultStrategy)


def in_cross_replica_context():
    """Whether this code runs in a strategy's scope outside its replicas' steps."""
    return has_strategy() and _replica() is None


def get_replica_context():
    """The running replica's context; None in the cross-replica context (a
    strategy's scope outside ``run``); outside any scope, the default strategy's."""
    rep = _replica()
    if rep is not None:
        return rep[1]
    if has_strategy():
        return None
    return _DefaultReplicaContext(_default(), 0)


def experimental_set_strategy(strategy):
    """Enter ``strategy``'s scope for the rest of this thread (None: leave it)."""
    stack = _scopes()
    stack.clear()
    if strategy is not None:
        stack.append(strategy)


class _Namespace:
    def __init__(self, **names):
        self.__dict__.update(names)


class _TPUClusterResolver:
    """TF's TPU cluster resolver: on a machine without a TPU (no ``tpu`` given, no
    TPU_NAME) it raises ValueError, as TF does, so a program's TPU-detection
    boilerplate falls back to ``tf.distribute.get_strategy()``."""

    def __init__(self, tpu=None, zone=None, project=None, job_name="worker", **kwargs):
        if not tpu and not os.environ.get("TPU_NAME"):
            raise ValueError("Please provide a TPU Name to connect to.")
        raise NotImplementedError("TPUClusterResolver: " + _TPU)

    @staticmethod
    def connect(tpu=None, zone=None, project=None):
        return _TPUClusterResolver(tpu, zone, project)


class _TFConfigClusterResolver:
    """TF's ``tf.distribute.cluster_resolver.TFConfigClusterResolver``: this worker's
    task as ``TF_CONFIG`` names it, read when asked (as TF reads it), None where it
    names none.

    >>> import os, eagertape.tf as tf
    >>> os.environ.pop("TF_CONFIG", None)
    >>> r = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    >>> r.task_type, r.task_id
    (None, None)
    """

    def __init__(self, task_type=None, task_id=None, rpc_layer=None):
        self._task_type, self._task_id, self._rpc_layer = task_type, task_id, rpc_layer

    @staticmethod
    def _tf_config(key, default=None):
        import json
        return json.loads(os.environ.get("TF_CONFIG") or "{}").get(key, default)

    @property
    def task_type(self):
        if self._task_type is not None:
            return self._task_type
        task = self._tf_config("task", {})
        return str(task["type"]) if "type" in task else None

    @task_type.setter
    def task_type(self, value):
        self._task_type = value

    @property
    def task_id(self):
        if self._task_id is not None:
            return self._task_id
        task = self._tf_config("task", {})
        return int(task["index"]) if "index" in task else None

    @task_id.setter
    def task_id(self, value):
        self._task_id = value

    @property
    def rpc_layer(self):
        return self._rpc_layer if self._rpc_layer is not None else self._tf_config("rpc_layer")


_TFConfigClusterResolver.__name__ = _TFConfigClusterResolver.__qualname__ = \
    "TFConfigClusterResolver"
cluster_resolver = _Namespace(TPUClusterResolver=_TPUClusterResolver,
                              TFConfigClusterResolver=_TFConfigClusterResolver)
_TPUClusterResolver.__name__ = _TPUClusterResolver.__qualname__ = "TPUClusterResolver"

class _CentralStorageStrategy(MirroredStrategy):
    """TF's ``tf.distribute.experimental.CentralStorageStrategy``: a replica per
    compute device (every GPU, else the first CPU device), variables kept on one parameter device.
    eagertape's variable is one value already, so this is ``MirroredStrategy``'s
    replicas with TF's parameter device named.

    >>> import eagertape.tf as tf
    >>> tf.distribute.experimental.CentralStorageStrategy().num_replicas_in_sync
    1
    """

    def __init__(self, compute_devices=None, parameter_device=None):
        if compute_devices is None:     # TF's: every GPU, else the first CPU only
            compute_devices = [d for d in jax.local_devices() if d.platform != "cpu"] or \
                jax.local_devices(backend="cpu")[:1]
        super().__init__(compute_devices)
        if parameter_device is None:
            parameter_device = "/cpu:0" if len(self._extended._devices) > 1 or \
                self._extended._devices[0].platform == "cpu" else "/gpu:0"
        self._parameter_device = _jax_device(parameter_device)[0]
        ext = self._extended
        ext.__class__ = _CentralStorageExtended
        ext._parameter_device = self._parameter_device


class _CentralStorageExtended(StrategyExtended):
    @property
    def parameter_devices(self):
        return (self._parameter_device,)


_CentralStorageStrategy.__name__ = _CentralStorageStrategy.__qualname__ = \
    "CentralStorageStrategy"


class CommunicationImplementation(enum.Enum):
    """How a multi-worker strategy's collectives communicate (TF's: AUTO, RING,
    NCCL); taken, no effect (XLA chooses the collective).

    >>> import eagertape.tf as tf
    >>> tf.distribute.experimental.CommunicationImplementation.NCCL.value
    'NCCL'
    """
    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


class CommunicationOptions:
    """Options of a multi-worker strategy's collectives (TF's
    ``tf.distribute.experimental.CommunicationOptions``); taken, no effect.

    >>> import eagertape.tf as tf
    >>> tf.distribute.experimental.CommunicationOptions(timeout_seconds=5).timeout_seconds
    5
    """

    def __init__(self, bytes_per_pack=0, timeout_seconds=None,
                 implementation=CommunicationImplementation.AUTO):
        if bytes_per_pack < 0:
            raise ValueError(f"argument `bytes_per_pack`: must be non-negative, got "
                             f"{bytes_per_pack}")
        if isinstance(implementation, str):
            implementation = CommunicationImplementation(implementation.upper())
        if not isinstance(implementation, CommunicationImplementation):
            raise ValueError("argument `implementation`: expected a "
                             "tf.distribute.experimental.CommunicationImplementation, got "
                             f"{implementation!r}")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation


experimental = _Namespace(
    TPUStrategy=TPUStrategy, MultiWorkerMirroredStrategy=MultiWorkerMirroredStrategy,
    ParameterServerStrategy=ParameterServerStrategy,
    CentralStorageStrategy=_CentralStorageStrategy,
    ValueContext=_ValueContext,
    CommunicationImplementation=CommunicationImplementation,
    CollectiveCommunication=CommunicationImplementation,
    CommunicationOptions=CommunicationOptions)

# Imported on first use (tf.distribute), after the facade scoped its modules: its public
# functions run with TF's 64-bit types on as the others do (tf/_x64.py).
from . import _x64  # noqa: E402

_x64.scope([__name__])
