"""TF 1's graph mode, as ``tf.compat.v1`` programs (TF's migration guides) use it:
``tf.Graph().as_default()``, ``placeholder``, ``get_variable`` and
``variable_scope``, ``Session.run(fetches, feed_dict)``, the initializers, the
collections, and ``train.Saver``, ``init_from_checkpoint``.

Inside ``with graph.as_default():`` the ops build a graph instead of running
(``extend.building_graph``): their Tensors are symbolic, with TF's names
(``add:0``, ``add_1:0``, the ``name=`` given); ``Session.run`` runs what the
fetches need, on the fed values, as one compiled program (cached per fetches and
feeds), and gives NumPy values in the fetches' structure. A graph's Variables
hold a value per Session, once their initializer has run there (reading one
before is TF's FailedPreconditionError).

>>> import eagertape.tf as tf
>>> tf1 = tf.compat.v1
>>> with tf.Graph().as_default():
...     x = tf1.placeholder(tf.float32, shape=[2], name="x")
...     v = tf1.get_variable("v", shape=[], initializer=tf1.constant_initializer(3.0))
...     y = x * v
...     with tf1.Session() as sess:
...         sess.run(tf1.global_variables_initializer())
...         print(y.name, sess.run(y, feed_dict={x: [1.0, 2.0]}))
mul:0 [3. 6.]
"""
import collections
import contextlib
import os
import re
import sys
import threading

import jax
import numpy as np

from .. import extend

_local = threading.local()


def _stack(name):
    s = getattr(_local, name, None)
    if s is None:
        s = []
        setattr(_local, name, s)
    return s


def _internal_caller():
    """Whether this module's caller is eagertape's own code (a Checkpoint's save or
    restore), not the program's: the first frame up that is neither this module's
    nor a 64-bit scope's wrapper (``extend.x64``)."""
    f = sys._getframe(1)
    while f is not None:
        name = f.f_globals.get("__name__", "")
        if name != __name__ and name != extend.x64.__module__:
            return name.startswith("eagertape.")
        f = f.f_back
    return False


def _errors():
    from . import errors
    return errors


# -- graphs ----------------------------------------------------------------------------
class GraphKeys:
    """TF 1's standard collection names."""
    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    MODEL_VARIABLES = "model_variables"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    REGULARIZATION_LOSSES = "regularization_losses"
    SAVERS = "savers"
    SUMMARIES = "summaries"
    TABLE_INITIALIZERS = "table_initializer"
    INIT_OP = "init_op"
    TRAIN_OP = "train_op"
    GLOBAL_STEP = "global_step"
    VARIABLES = GLOBAL_VARIABLES


class Graph:
    """A TF 1 graph (``tf.Graph``): ops added while it is the default graph
    (``as_default``) are built, not run; a ``Session`` runs them.

    >>> import eagertape.tf as tf
    >>> g = tf.Graph()
    >>> with g.as_default():
    ...     c = tf.constant(2.0) + 1.0
    >>> c.graph is g, c.name, g.get_tensor_by_name("add:0").name
    (True, 'add:0', 'add:0')
    """

    def __init__(self):
        self._g = extend.SymbolicGraph()
        self._g.namer = self._name_call
        self._g.facade = self
        self._g.describe = self._describe
        self._g.control = self._control_nodes
        self._used = {}
        self._ops = {}          # name -> Operation
        self._tensors = {}      # value index -> Tensor
        self._collections = collections.OrderedDict()
        self._store = {}        # get_variable's variables by name
        self._finalized = False
        self._control = []      # control_dependencies' nodes, innermost last

    # -- default graph
    @contextlib.contextmanager
    def as_default(self):
        """Make this the default graph: ops made inside add to it."""
        stack = _stack("graphs")
        stack.append(self)
        try:
            with extend.building_graph(self._g):
                yield self
        finally:
            stack.pop()

    # -- names
    def unique_name(self, name, mark_as_used=True):
        """``name`` (under the current name scope) made unique in this graph, as TF's:
        ``add``, then ``add_1``, ``add_2``."""
        scope = extend.current_name_scope()
        name = scope + name if scope and not name.startswith(scope) else name
        key = name.lower()
        i = self._used.get(key, 0)
        base = name
        if i:
            while f"{base}_{i}".lower() in self._used:
                i += 1
            name = f"{base}_{i}"
        if mark_as_used:
            self._used[key] = i + 1
            self._used.setdefault(name.lower(), 1)
        return name

    def _name_call(self, kind):
        # The `name=` the program gave the op: the argument of the outermost
        # eagertape function between the program and this call.
        name = None
        f = sys._getframe(2)
        while f is not None:
            mod = f.f_globals.get("__name__", "")
            if not mod.startswith("eagertape"):
                break
            given = f.f_locals.get("name")
            if isinstance(given, str) and given:
                name = given
            f = f.f_back
        return self.unique_name(name or _DEFAULT_NAMES.get(kind.name, kind.name))

    def _control_nodes(self):
        return tuple(n for c in self._control for n in c)

    def _add(self, op, refs, avals, name, control=()):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        control = tuple(control) + self._control_nodes()
        node, outs = self._g.add_node(op, refs, avals, name, control)
        return node, outs

    def _ref(self, value, dtype=None):
        """A graph reference of an op's input: a symbolic Tensor of this graph, or a
        constant."""
        p = extend.symbolic_value(value)
        if p is not None:
            return self._g.ref(p)
        if isinstance(value, extend.Variable):
            return self._g.ref(extend.symbolic_value(value.read_value()))
        with extend.outside_recording():
            t = extend.convert_to_tensor(value, dtype=dtype)
        return self._g.constant(t.jax())

    def _describe(self, p, attr):
        # A symbolic Tensor's TF attributes (the core asks for those it lacks).
        node = self._g.producer[p.index]
        name = f"{self._g.nodes[node][4]}:{p.index - self._g.nodes[node][2]}"
        shape = tuple(p.shape)
        dtype = np.dtype(p.dtype).name
        if attr == "__repr__":
            return f"<tf.Tensor '{name}' shape={shape} dtype={dtype}>"
        if attr == "__str__":
            return f'Tensor("{name}", shape={shape}, dtype={dtype})'
        if attr == "name":
            return name
        if attr == "op":
            return self._operation(node)
        if attr == "graph":
            return self
        if attr == "value_index":
            return p.index - self._g.nodes[node][2]
        if attr == "eval":
            t = self._tensor(p.index)
            return lambda feed_dict=None, session=None: \
                (session or get_default_session_or_raise()).run(t, feed_dict)
        raise AttributeError(f"'Tensor' object has no attribute '{attr}'")

    # -- lookups
    def _tensor(self, index):
        t = self._tensors.get(index)
        if t is None:
            t = extend.wrap(self._g.values[index])
            self._tensors[index] = t
        return t

    def _operation(self, node):
        name = self._g.nodes[node][4]
        op = self._ops.get(name)
        if op is None:
            op = self._ops[name] = Operation(self, node)
        return op

    def get_tensor_by_name(self, name):
        """The Tensor named ``name`` (``"op_name:index"``)."""
        if not isinstance(name, str):
            raise TypeError(f"argument `name` must be a string, got {type(name).__name__}")
        op_name, sep, index = name.rpartition(":")
        if not sep or not index.isdigit():
            raise ValueError(f"The name {name!r} looks like an (invalid) Operation name, not a "
                             "Tensor. Tensor names must be of the form \"<op_name>:<output_index>\".")
        op = self.get_operation_by_name(op_name)
        i = int(index)
        if i >= len(op.outputs):
            raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The "
                           f"operation, {op_name!r}, exists but only has {len(op.outputs)} "
                           "outputs.")
        return op.outputs[i]

    def get_operation_by_name(self, name):
        """The Operation named ``name``."""
        for n, node in enumerate(self._g.nodes):
            if node[4] == name:
                return self._operation(n)
        raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")

    def as_graph_element(self, obj):
        if isinstance(obj, str):
            return self.get_tensor_by_name(obj) if ":" in obj else \
                self.get_operation_by_name(obj)
        return obj

    def get_operations(self):
        """The graph's Operations, in the order they were made."""
        return [self._operation(n) for n in range(len(self._g.nodes))]

    # -- collections
    def add_to_collection(self, name, value):
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        for n in ([names] if isinstance(names, str) else names):
            self.add_to_collection(n, value)

    def get_collection(self, name, scope=None):
        items = list(self._collections.get(name, ()))
        if scope is not None:
            items = [i for i in items if re.match(scope, getattr(i, "name", "") or "")]
        return items

    def get_collection_ref(self, name):
        return self._collections.setdefault(name, [])

    def get_all_collection_keys(self):
        return list(self._collections)

    def clear_collection(self, name):
        self._collections.pop(name, None)

    # -- the rest of TF's Graph
    def finalize(self):
        self._finalized = True

    @property
    def finalized(self):
        return self._finalized

    def name_scope(self, name):
        from ._module import name_scope
        return name_scope(name)

    def device(self, device_name_or_function):
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops made inside run after ``control_inputs`` (Operations or Tensors)."""
        if control_inputs is None:
            saved, self._control = self._control, []
            try:
                yield
            finally:
                self._control = saved
            return
        nodes = [_node_of(self, c) for c in control_inputs]
        self._control.append(tuple(nodes))
        try:
            yield
        finally:
            self._control.pop()

    def as_graph_def(self, from_version=None, add_shapes=False):
        raise NotImplementedError(
            "Graph.as_graph_def: eagertape's TF 1 graphs are graphs of JAX calls, not TF's "
            "GraphDef; export TF 2 code instead (tf.saved_model.save of a tf.Module with a "
            "tf.function)")

    @property
    def version(self):
        return len(self._g.nodes)

    @property
    def seed(self):
        return None

    def __repr__(self):
        return f"<tensorflow.python.framework.ops.Graph object at {id(self):#x}>"


# TF's default op names where eagertape's function names differ (TF's Python
# wrappers name their ops so: x + y is "add", tf.multiply "Mul", x * y "mul").
_DEFAULT_NAMES = {"multiply": "mul", "subtract": "sub", "true_divide": "truediv",
                  "divide": "truediv", "negative": "Neg", "matmul": "MatMul",
                  "power": "pow"}


def _node_of(graph, x):
    if isinstance(x, Operation):
        return x._node
    p = extend.symbolic_value(x)
    if p is None or p.graph is not graph._g:
        raise TypeError(f"{x!r} is not an Operation or Tensor of this graph")
    return graph._g.producer[p.index]


_global_graph = []


def get_default_graph():
    """The graph ops are added to now (``as_default``'s), else the process's global
    default graph (which eager ops never touch, as in TF 2)."""
    stack = _stack("graphs")
    if stack:
        return stack[-1]
    if not _global_graph:
        _global_graph.append(Graph())
    return _global_graph[0]


def reset_default_graph():
    """A new global default graph (TF refuses it inside a graph's ``as_default``)."""
    if _stack("graphs"):
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If "
                             "you need a cleared graph, exit the nesting and create a new graph.")
    _global_graph[:] = [Graph()]


def _building():
    """The facade Graph being built on this thread, or None (eager)."""
    g = extend.current_graph()
    return getattr(g, "facade", None) if g is not None else None


class Operation:
    """An op of a TF 1 graph: ``name``, ``type``, ``outputs``, ``inputs``, and
    ``run()`` in the default session."""

    def __init__(self, graph, node):
        self._graph, self._node = graph, node
        op, refs, first, count, name, control = graph._g.nodes[node]
        self._name = name
        self._type = getattr(op, "type", None) or type(op).__name__ if hasattr(op, "evaluate") \
            else _TYPES.get(op.name, op.name[:1].upper() + op.name[1:])

    @property
    def name(self): return self._name
    @property
    def type(self): return self._type
    @property
    def graph(self): return self._graph

    @property
    def outputs(self):
        _, _, first, count, _, _ = self._graph._g.nodes[self._node]
        return [self._graph._tensor(i) for i in range(first, first + count)]

    @property
    def inputs(self):
        refs = self._graph._g.nodes[self._node][1]
        return [self._graph._tensor(r) for r in refs if r >= 0]

    @property
    def control_inputs(self):
        return [self._graph._operation(n) for n in self._graph._g.nodes[self._node][5]]

    def run(self, feed_dict=None, session=None):
        (session or get_default_session_or_raise()).run(self, feed_dict)

    def __repr__(self):
        return f"<tf.Operation '{self._name}' type={self._type}>"


_TYPES = {"add": "AddV2", "multiply": "Mul", "subtract": "Sub", "true_divide": "RealDiv",
          "matmul": "MatMul"}


# -- the graph's own ops (nodes evaluated with the run's variable values) -------------
class _Placeholder:
    type = "Placeholder"

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, shape, dtype

    def check(self, ready):
        shape = "unknown" if self.shape is None else \
            "[" + ",".join("?" if d is None else str(d) for d in self.shape) + "]"
        raise _errors().InvalidArgumentError(
            None, None, f"You must feed a value for placeholder tensor '{self.name}' with dtype "
            f"{np.dtype(self.dtype).name} and shape {shape}")

    def evaluate(self, state, args):
        raise AssertionError("a placeholder is fed")


class _Read:
    type = "ReadVariableOp"

    def __init__(self, var):
        self.var = var

    def check(self, ready):
        if self.var._key not in ready:
            name = self.var._name[:-2]
            raise _errors().FailedPreconditionError(
                None, None, f"Error while reading resource variable {name} from Container: "
                f"localhost. This could mean that the variable was uninitialized. Not found: "
                f"Resource localhost/{name}/N10tensorflow3VarE does not exist.")

    def evaluate(self, state, args):
        return [state[self.var._key]]


class _Assign:
    type = "AssignVariableOp"

    def __init__(self, var, fn=None):
        self.var, self.fn = var, fn

    def check(self, ready):
        if self.fn is not None:
            _Read(self.var).check(ready)
        ready.add(self.var._key)

    def evaluate(self, state, args):
        dtype = self.var._spec.dtype
        new = jax.numpy.asarray(args[0]).astype(dtype)
        if self.fn is not None:
            new = self.fn(state[self.var._key], new)
        state[self.var._key] = new
        return [new]


class _NoOp:
    type = "NoOp"

    def evaluate(self, state, args):
        return []


def _no_op(graph, name, control):
    node, _ = graph._add(_NoOp(), (), (), graph.unique_name(name), control)
    return graph._operation(node)


def group(*inputs, name=None):
    """An Operation that runs ``inputs`` (TF 1's ``tf.group`` in a graph)."""
    graph = _building()
    if graph is None:
        return None
    flat = jax.tree_util.tree_leaves(
        inputs, is_leaf=lambda x: isinstance(x, (Operation, extend.TensorLike)))
    return _no_op(graph, name or "group_deps", [_node_of(graph, x) for x in flat])


def no_op(name=None):
    """An Operation that does nothing (its control inputs run)."""
    graph = _building()
    return None if graph is None else _no_op(graph, name or "NoOp", ())


def control_dependencies(control_inputs):
    """In a graph: ops made inside run after ``control_inputs``."""
    return get_default_graph().control_dependencies(control_inputs)


# -- placeholders ------------------------------------------------------------------------
def placeholder(dtype, shape=None, name=None):
    """A graph input whose value ``Session.run``'s ``feed_dict`` gives (TF 1's
    ``placeholder``; only inside a graph, as TF 2 refuses it in eager mode).

    >>> import eagertape.tf as tf
    >>> with tf.Graph().as_default():
    ...     x = tf.compat.v1.placeholder(tf.float32, shape=[], name="x")
    >>> print(x)
    Tensor("x:0", shape=(), dtype=float32)
    """
    graph = _building()
    if graph is None:
        raise RuntimeError("tf.placeholder() is not compatible with eager execution.")
    dt = np.dtype(extend.as_dtype(dtype))
    if shape is None:
        raise NotImplementedError(
            "placeholder: eagertape's graphs need each input's shape (its ops' shapes are "
            "JAX's, known when the op is made); give shape=[...] (TF 2: a tf.function's "
            "input_signature)")
    dims = tuple(None if d is None else int(d) for d in
                 (shape.as_list() if hasattr(shape, "as_list") else shape))
    if any(d is None for d in dims):
        raise NotImplementedError(
            f"placeholder: a dimension of unknown size (shape {list(dims)}) is not supported "
            "by eagertape's graphs (their ops' shapes are JAX's, known when the op is made); "
            "give the size (TF 2: a tf.function traces per shape)")
    name = graph.unique_name(name or "Placeholder")
    node, outs = graph._add(_Placeholder(name, dims, dt), (), [(dims, dt, False)], name)
    return graph._tensor(outs[0].index)


def placeholder_with_default(input, shape, name=None):  # noqa: A002
    raise NotImplementedError("placeholder_with_default is not supported by eagertape's TF 1 "
                              "graphs; use placeholder (TF 2: a tf.function's argument with a "
                              "default)")


# -- variables ---------------------------------------------------------------------------
class GraphVariable(extend.Variable):
    """A Variable of a TF 1 graph: its value lives in each Session that ran its
    initializer; in the graph, reading it is an op (``read_value``) and so is
    assigning it (``assign``: a Tensor of the new value, run by ``Session.run``)."""

    __slots__ = ("_graph", "_key", "_spec", "_init_op", "_snapshot", "_initial")

    def __init__(self, graph, name, initial, dtype, trainable=True, collections=None):
        self._graph = graph
        self._trainable = bool(trainable)
        self._name = name + ":0"
        self._uid = self._key = extend.new_variable_id()
        self._store = None
        p = extend.symbolic_value(initial)
        if p is not None:
            shape, dt = tuple(p.shape), np.dtype(p.dtype)
        else:
            initial = np.asarray(initial)
            shape, dt = initial.shape, np.dtype(dtype or initial.dtype)
            initial = initial.astype(dt)
        self._spec = jax.ShapeDtypeStruct(shape, dt)
        self._initial = initial
        self._snapshot = None
        self._init_op = None
        self._set_initial(initial)
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
            if trainable:
                collections.append(GraphKeys.TRAINABLE_VARIABLES)
        graph.add_to_collections(collections, self)

    def _set_initial(self, value):
        g = self._graph
        with g.as_default():
            node, _ = g._add(_Assign(self), [g._ref(value, self._spec.dtype)],
                             [(self._spec.shape, self._spec.dtype, False)],
                             g.unique_name(self._name[:-2] + "/Assign"))
        self._init_op = g._operation(node)

    # values: in the default session (what eagertape's own code reads and writes,
    # as TF's save and restore ops run there)
    def _session(self):
        s = get_default_session()
        if s is None or s.graph is not self._graph:
            raise ValueError(f"Cannot evaluate the Variable {self._name!r} without a session: "
                             "use it inside `with tf.compat.v1.Session(graph=...)`, or pass "
                             "it to sess.run")
        return s

    @property
    def _val(self):
        s = self._session()
        if self._key not in s._values:
            _Read(self).check(set(s._values))
        return s._values[self._key]

    @_val.setter
    def _val(self, new):
        self._session()._values[self._key] = jax.numpy.asarray(new, self._spec.dtype)

    def _aval(self):
        return self._spec

    def read_value(self, _watch=True):
        g = _building()
        if g is not self._graph:
            if g is not None:
                raise ValueError(f"the Variable {self._name!r} is of another graph")
            return extend.wrap(self._val)
        node, outs = g._add(_Read(self), (), [(self._spec.shape, self._spec.dtype, False)],
                            g.unique_name(self._name[:-2] + "/Read/ReadVariableOp"))
        return g._tensor(outs[0].index)

    value = _read = read_value

    def _assign_op(self, fn, value, read_value, kind):
        g = _building()
        if g is not self._graph or _internal_caller():
            # eagertape's own code (a Checkpoint's restore, which TF runs as restore
            # ops in the default session): the value goes there at once.
            with extend.outside_recording():
                v = extend.convert_to_tensor(value, dtype=self.dtype).jax()
                self._val = v if fn is None else fn(self._val, v)
            return self if read_value else None
        node, outs = g._add(_Assign(self, fn), [g._ref(value, self._spec.dtype)],
                            [(self._spec.shape, self._spec.dtype, False)],
                            g.unique_name(kind))
        return g._tensor(outs[0].index) if read_value else g._operation(node)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """In the graph: an op giving the new value (an Operation with
        ``read_value=False``), run by ``Session.run``."""
        return self._assign_op(None, value, read_value, name or "AssignVariableOp")

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._assign_op(jax.numpy.add, delta, read_value, name or "AssignAddVariableOp")

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._assign_op(jax.numpy.subtract, delta, read_value,
                               name or "AssignSubVariableOp")

    @property
    def initializer(self):
        return self._init_op

    @property
    def initial_value(self):
        p = extend.symbolic_value(self._initial)
        return self._initial if p is not None else extend.wrap(jax.numpy.asarray(self._initial))

    @property
    def graph(self):
        return self._graph

    @property
    def op(self):
        return self._init_op

    def numpy(self):
        if _internal_caller():
            return np.asarray(self._val)
        raise NotImplementedError("numpy() is only available when eager execution is enabled.")

    def eval(self, session=None):
        return (session or get_default_session_or_raise()).run(self)

    def load(self, value, session=None):
        (session or get_default_session_or_raise())._values[self._key] = \
            jax.numpy.asarray(value, self._spec.dtype)

    def _fetch(self):
        if self._snapshot is None:
            with self._graph.as_default():
                self._snapshot = self.read_value()
        return self._snapshot

    def __repr__(self):
        return f"<tf.Variable '{self._name}' shape={self.shape} dtype={self.dtype.name}>"

    def __hash__(self):       # a graph's Variable is hashable, as TF's in graph mode
        return id(self)

    def __str__(self):
        return repr(self)


# -- variable scopes and get_variable ----------------------------------------------------
AUTO_REUSE = "AUTO_REUSE"


class VariableScope:
    """A variable scope: its ``name`` and ``reuse``, ``initializer`` and ``dtype``
    defaults for ``get_variable``."""

    def __init__(self, name="", reuse=None, initializer=None, dtype=None):
        self.name, self.reuse, self.initializer, self.dtype = name, reuse, initializer, dtype
        self.original_name_scope = name + "/" if name else ""

    def reuse_variables(self):
        self.reuse = True


def get_variable_scope():
    stack = _stack("scopes")
    return stack[-1] if stack else VariableScope()


@contextlib.contextmanager
def variable_scope(name_or_scope=None, default_name=None, values=None, initializer=None,
                   regularizer=None, caching_device=None, partitioner=None,
                   custom_getter=None, reuse=None, dtype=None, use_resource=None,
                   constraint=None, auxiliary_name_scope=True):
    """TF 1's ``variable_scope``: ``get_variable`` names under it are
    ``scope/name``; it opens the name scope of the same name too."""
    from ._module import name_scope
    outer = get_variable_scope()
    if isinstance(name_or_scope, VariableScope):
        full = name_or_scope.name
        reuse = name_or_scope.reuse if reuse is None else reuse
    else:
        base = name_or_scope
        if base is None:
            if default_name is None:
                raise TypeError("If default_name is None then name_or_scope is required")
            base = default_name
        full = f"{outer.name}/{base}" if outer.name else base
    scope = VariableScope(full, reuse if reuse is not None else outer.reuse,
                          initializer or outer.initializer, dtype or outer.dtype)
    stack = _stack("scopes")
    stack.append(scope)
    try:
        if auxiliary_name_scope:
            leaf = full.rsplit("/", 1)[-1]
            with name_scope(leaf):
                yield scope
        else:
            yield scope
    finally:
        stack.pop()


def _initial_value(initializer, shape, dtype, name):
    float32 = extend.as_dtype("float32")
    dtype = extend.as_dtype(dtype) if dtype is not None else None
    if initializer is None:
        if dtype is None or np.dtype(dtype).kind == "f":
            initializer = _glorot_uniform
        else:
            initializer = zeros_initializer()
    if callable(initializer):
        if shape is None:
            raise ValueError(f"The initializer passed is not valid. It should be a callable "
                             f"with no arguments and the shape should not be provided or an "
                             f"instance of `tf.keras.initializers.*' and `shape` should be "
                             f"fully defined. (variable {name!r})")
        shape = tuple(shape.as_list() if hasattr(shape, "as_list") else shape)
        with extend.outside_recording():
            v = initializer(shape, dtype=dtype if dtype is not None else float32)
        return np.asarray(v.numpy() if hasattr(v, "numpy") else v)
    with extend.outside_recording():
        t = extend.convert_to_tensor(initializer, dtype=dtype)
    return np.asarray(t.numpy())


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                 trainable=None, collections=None, caching_device=None, partitioner=None,
                 validate_shape=True, use_resource=None, custom_getter=None, constraint=None,
                 synchronization=None, aggregation=None):
    """TF 1's ``get_variable``: in a graph, the variable ``scope/name`` of the
    graph's store (made once; again only with ``reuse``); in eager mode a new
    ``tf.Variable`` of that name (TF 2's eager ``get_variable`` keeps no store)."""
    scope = get_variable_scope()
    full = f"{scope.name}/{name}" if scope.name else name
    dtype = dtype if dtype is not None else scope.dtype
    initializer = initializer if initializer is not None else scope.initializer
    graph = _building()
    if graph is None:
        Variable = extend.Variable
        value = _initial_value(initializer, shape, dtype, full)
        with extend.in_name_scope(""):      # the variable scope names it, not the name scope
            return Variable(value, name=full, trainable=True if trainable is None else trainable,
                            dtype=dtype)
    if full in graph._store:
        if scope.reuse in (True, AUTO_REUSE):
            return graph._store[full]
        raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set "
                         f"reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
    if scope.reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not created with "
                         f"tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in "
                         f"VarScope?")
    value = _initial_value(initializer, shape, dtype, full)
    v = GraphVariable(graph, full, value, dtype if dtype is None else
                      np.dtype(extend.as_dtype(dtype)),
                      True if trainable is None else trainable, collections)
    graph._used.setdefault(full.lower(), 1)
    graph._store[full] = v
    return v


def make_graph_variable(initial_value, name=None, dtype=None, trainable=True):
    """A ``tf.compat.v1.Variable`` made while a graph is built (its name made unique
    in the graph)."""
    graph = _building()
    name = graph.unique_name(name or "Variable")
    if extend.symbolic_value(initial_value) is None:
        with extend.outside_recording():
            if callable(initial_value):
                initial_value = initial_value()
            initial_value = np.asarray(extend.convert_to_tensor(initial_value, dtype=dtype).jax())
    return GraphVariable(graph, name, initial_value, dtype if dtype is None else
                         np.dtype(extend.as_dtype(dtype)), trainable)


def _glorot_uniform(shape, dtype=None):
    # get_variable's default initializer (TF's glorot_uniform_initializer); its
    # draws are NumPy's, not TF's Philox (docs/differences.md: random numbers)
    fan_in = shape[-2] if len(shape) > 1 else (shape[0] if shape else 1)
    fan_out = shape[-1] if shape else 1
    receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    limit = np.sqrt(6.0 / max(1.0, (fan_in + fan_out) * receptive / 2.0) / 2.0)
    return np.random.uniform(-limit, limit, shape).astype(np.dtype(dtype or "float32"))


# -- initializers (TF 1's, tf.compat.v1.*_initializer) ----------------------------------
class _Initializer:
    def __init__(self, dtype=None):
        self.dtype = dtype

    def _dtype(self, dtype):
        return extend.as_dtype(dtype or self.dtype or "float32")

    def get_config(self):
        return {"dtype": None if self.dtype is None else np.dtype(self.dtype).name}


class zeros_initializer(_Initializer):
    """TF 1's zeros initializer: ``init(shape, dtype)`` gives zeros."""

    def __call__(self, shape, dtype=None, partition_info=None):
        return extend.wrap(jax.numpy.zeros(tuple(shape), np.dtype(self._dtype(dtype))))


class ones_initializer(_Initializer):
    """TF 1's ones initializer."""

    def __call__(self, shape, dtype=None, partition_info=None):
        return extend.wrap(jax.numpy.ones(tuple(shape), np.dtype(self._dtype(dtype))))


class constant_initializer(_Initializer):
    """TF 1's constant initializer: ``value`` (a scalar fills the shape)."""

    def __init__(self, value=0, dtype=None, verify_shape=False):
        super().__init__(dtype)
        self.value = value

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        dt = np.dtype(self._dtype(dtype))
        v = np.asarray(self.value, dt)
        if v.size != 1 and v.size != int(np.prod(shape)):
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor "
                            f"{self.value} (converted from {self.value}) has {v.size} elements, "
                            f"but got `shape` {tuple(shape)} with {int(np.prod(shape))} elements).")
        v = np.broadcast_to(v, shape) if v.size == 1 else v.reshape(shape)
        return extend.constant(np.array(v))

    def get_config(self):
        return {"value": self.value, **super().get_config()}


# -- collections --------------------------------------------------------------------------
def get_collection(key, scope=None):
    graph = _building()
    return [] if graph is None else graph.get_collection(key, scope)


def get_collection_ref(key):
    graph = _building()
    return [] if graph is None else graph.get_collection_ref(key)


def add_to_collection(name, value):
    graph = _building()
    if graph is not None:
        graph.add_to_collection(name, value)


def add_to_collections(names, value):
    graph = _building()
    if graph is not None:
        graph.add_to_collections(names, value)


def global_variables(scope=None):
    """The graph's global variables (in eager mode none: TF 2 keeps no collections)."""
    return get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def trainable_variables(scope=None):
    return get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None):
    return get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def variables_initializer(var_list, name="init"):
    """An Operation running the initializers of ``var_list`` (no-op in eager mode)."""
    graph = _building()
    if graph is None:
        return None
    return _no_op(graph, name, [v._init_op._node for v in var_list
                                if isinstance(v, GraphVariable)])


def global_variables_initializer():
    """An Operation running every global variable's initializer."""
    return variables_initializer(global_variables())


def local_variables_initializer():
    return variables_initializer(local_variables(), name="init_1")


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    raise NotImplementedError("report_uninitialized_variables is not supported by eagertape's "
                              "TF 1 graphs; run global_variables_initializer")


# -- sessions -----------------------------------------------------------------------------
def get_default_session():
    """The session of the innermost ``with Session()`` (or ``as_default()``), or None."""
    stack = _stack("sessions")
    return stack[-1] if stack else None


def get_default_session_or_raise():
    s = get_default_session()
    if s is None:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default session is "
                         "registered. Use `with sess.as_default()` or pass an explicit session "
                         "to `eval(session=sess)`")
    return s


class Session:
    """TF 1's ``Session``: ``run(fetches, feed_dict)`` runs the part of its graph the
    fetches need, on the fed values, and gives NumPy values in the fetches'
    structure (None for an Operation). Its graph's Variables hold their values
    here once their initializers have run."""

    def __init__(self, target="", graph=None, config=None):
        self.graph = graph if graph is not None else get_default_graph()
        self._values = {}
        self._closed = False
        self._contexts = []

    def __enter__(self):
        ctx = contextlib.ExitStack()
        if _building() is not self.graph:
            ctx.enter_context(self.graph.as_default())
        ctx.enter_context(self.as_default())
        self._contexts.append(ctx)
        return self

    def __exit__(self, *exc):
        self._contexts.pop().close()
        self.close()
        return False

    @contextlib.contextmanager
    def as_default(self):
        stack = _stack("sessions")
        stack.append(self)
        try:
            yield self
        finally:
            stack.pop()

    def close(self):
        self._closed = True
        self._values = {}

    @property
    def sess_str(self):
        return ""

    def list_devices(self):
        return []

    def _fetch_ref(self, x):
        g = self.graph
        if isinstance(x, str):
            x = g.as_graph_element(x)
        if isinstance(x, Operation):
            if x.graph is not g:
                raise ValueError(f"Fetch argument {x!r} cannot be interpreted as a Tensor. "
                                 f"(Operation {x.name} is not an element of this graph.)")
            return ("op", x._node)
        if isinstance(x, GraphVariable):
            if x._graph is not g:
                raise ValueError(f"Fetch argument {x!r} is not an element of this graph.")
            x = x._fetch()
        p = extend.symbolic_value(x)
        if p is None or p.graph is not g._g:
            raise TypeError(f"Fetch argument {x!r} has invalid type {type(x)}, must be a string "
                            "or Tensor. (Can not convert a "
                            f"{type(x).__name__} into a Tensor or Operation.)" if p is None else
                            f"Fetch argument {x!r} is not an element of this graph.")
        return ("t", p.index)

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """The values of ``fetches`` (a Tensor, Operation, Variable, name, or a list,
        tuple, dict or namedtuple of them) with ``feed_dict``'s values in place of
        its keys (placeholders or other Tensors, or their names)."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        leaves, treedef = jax.tree_util.tree_flatten(
            fetches, is_leaf=lambda x: x is None or isinstance(x, (str, Operation,
                                                                   extend.TensorLike)))
        refs = [self._fetch_ref(x) for x in leaves]
        feeds = {}
        for key, value in (feed_dict or {}).items():
            if isinstance(key, str):
                key = self.graph.get_tensor_by_name(key)
            p = extend.symbolic_value(key)
            if p is None or p.graph is not self.graph._g:
                raise TypeError(f"Cannot interpret feed_dict key as Tensor: {key!r} is not an "
                                "element of this graph.")
            a = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
            if a.shape != tuple(p.shape):
                name = self.graph._g.nodes[self.graph._g.producer[p.index]][4]
                raise ValueError(f"Cannot feed value of shape {a.shape} for Tensor "
                                 f"{name}:{p.index - self.graph._g.nodes[self.graph._g.producer[p.index]][2]}, "
                                 f"which has shape {tuple(p.shape)}")
            feeds[p.index] = jax.numpy.asarray(a.astype(np.dtype(p.dtype)))
        fetch_values = [r[1] for r in refs if r[0] == "t"]
        targets = [r[1] for r in refs if r[0] == "op"]
        outs, state = extend.evaluate_graph(self.graph._g, fetch_values, feeds,
                                            self._values, targets)
        self._values = state
        it = iter(outs)
        results = [None if r[0] == "op" else _numpy(next(it)) for r in refs]
        return jax.tree_util.tree_unflatten(treedef, results)

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        feed_list = list(feed_list or [])

        def call(*args, **kwargs):
            return self.run(fetches, dict(zip(feed_list, args)))
        return call


def _numpy(a):
    a = np.asarray(a)
    return a[()] if a.ndim == 0 else a


class InteractiveSession(Session):
    """A Session that is the default session from its making until ``close``."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        self._ctx = self.as_default()
        self._ctx.__enter__()

    def close(self):
        if getattr(self, "_ctx", None) is not None:
            ctx, self._ctx = self._ctx, None
            ctx.__exit__(None, None, None)
        super().close()


# -- Saver and init_from_checkpoint (TF 1's checkpoints: the tensor bundle) --------------
def _names(var_list, what):
    if isinstance(var_list, dict):
        return dict(var_list)
    out = {}
    for v in var_list:
        if not isinstance(v, extend.Variable):
            raise TypeError(f"{what}: var_list must hold Variables, got {type(v).__name__}")
        name = v.name[:-2] if v.name.endswith(":0") else v.name
        if name in out:
            raise ValueError(f"At least two variables have the same name: {name}")
        out[name] = v
    return out


class Saver:
    """TF 1's ``train.Saver``: saves and restores Variables by name in TF's
    checkpoint format (the tensor bundle and the ``checkpoint`` state file), in a
    graph's session or, with ``sess=None``, eagerly.

    >>> import eagertape.tf as tf, tempfile, os
    >>> v = tf.Variable(2.0, name="v")
    >>> saver = tf.compat.v1.train.Saver([v])
    >>> path = saver.save(None, os.path.join(tempfile.mkdtemp(), "ckpt"))
    >>> _ = v.assign(0.0); saver.restore(None, path); float(v.numpy())
    2.0
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
                 saver_def=None, builder=None, defer_build=False, allow_empty=False,
                 write_version=2, pad_step_number=False, save_relative_paths=False,
                 filename=None):
        if var_list is None:
            if _building() is None:
                raise RuntimeError("When eager execution is enabled, `var_list` must specify a "
                                   "list or dict of variables to save")
            var_list = global_variables()
        self._vars = _names(var_list, "Saver")
        if not self._vars and not allow_empty:
            raise ValueError("No variables to save")
        self._max_to_keep = max_to_keep
        self._last = []

    def _value(self, v, sess):
        if isinstance(v, GraphVariable):
            if sess is None:
                raise ValueError("a Saver of a graph's variables saves in a session: pass sess")
            return np.asarray(sess.run(v))
        return np.asarray(v.numpy())

    def save(self, sess, save_path, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True, write_state=True,
             strip_default_attrs=False, save_debug_info=False):
        """Write the variables' values at ``save_path`` (``-global_step`` appended);
        returns the path."""
        from . import _tf_bundle, train
        path = os.fspath(save_path)
        if global_step is not None:
            step = global_step if isinstance(global_step, int) else \
                int(np.asarray(sess.run(global_step) if sess is not None and not isinstance(
                    global_step, (int, np.integer)) else global_step))
            path = f"{path}-{step}"
        tensors = {name: self._value(v, sess) for name, v in self._vars.items()}
        _tf_bundle.write_bundle(path, tensors)
        if write_state:
            self._last = [p for p in self._last if p != path] + [path]
            if self._max_to_keep and len(self._last) > self._max_to_keep:
                for old in self._last[:-self._max_to_keep]:
                    for f in (f"{old}.index", f"{old}.data-00000-of-00001"):
                        if os.path.exists(f):
                            os.remove(f)
                self._last = self._last[-self._max_to_keep:]
            train._write_state(os.path.dirname(path), path, self._last, tf_format=True)
        return path

    def restore(self, sess, save_path):
        """Assign the values saved at ``save_path`` to the variables, by name."""
        from . import train
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        reader = train.load_checkpoint(save_path)
        for name, v in self._vars.items():
            if not reader.has_tensor(name):
                raise _errors().NotFoundError(
                    None, None, f"Key {name} not found in checkpoint")
            value = np.asarray(reader.get_tensor(name))
            _set_value(v, value, sess)

    def export_meta_graph(self, filename=None, **kwargs):
        raise NotImplementedError(
            "Saver.export_meta_graph: eagertape's TF 1 graphs are graphs of JAX calls, not "
            "TF's MetaGraphDef; save TF 2 code instead (tf.saved_model.save)")

    @property
    def last_checkpoints(self):
        return list(self._last)


def _set_value(v, value, sess):
    if isinstance(v, GraphVariable):
        s = sess if sess is not None else get_default_session_or_raise()
        if tuple(value.shape) != tuple(v._spec.shape):
            raise _errors().InvalidArgumentError(
                None, None, f"Shape mismatch of {v.name}: the checkpoint has {value.shape}, "
                f"the variable {tuple(v._spec.shape)}")
        s._values[v._key] = jax.numpy.asarray(value.astype(v._spec.dtype))
    else:
        v.assign(value.astype(np.dtype(v.dtype)), read_value=False)


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """TF 1's ``init_from_checkpoint``: the variables ``assignment_map`` names start
    from the checkpoint's values (in a graph their initializers become those
    values; eagerly they are assigned). Keys are checkpoint names or scopes
    (``"scope/"``, ``"/"`` the root); values variables, names or scopes."""
    from . import train
    reader = train.load_checkpoint(ckpt_dir_or_file)
    saved = reader.get_variable_to_shape_map()
    graph = _building()
    store = {} if graph is None else {v.name[:-2]: v for v in global_variables()}
    pairs = []
    items = assignment_map.items() if isinstance(assignment_map, dict) else assignment_map
    for ckpt_name, current in items:
        if isinstance(current, extend.Variable):
            pairs.append((ckpt_name, current))
        elif isinstance(current, str) and (ckpt_name.endswith("/") or ckpt_name == "/"):
            ckpt_scope = "" if ckpt_name == "/" else ckpt_name
            scope = "" if current == "/" else current
            found = False
            for name, v in store.items():
                if name.startswith(scope):
                    key = ckpt_scope + name[len(scope):]
                    if key in saved:
                        pairs.append((key, v))
                        found = True
            if not found and scope not in ("",) and not any(n.startswith(scope) for n in store):
                raise ValueError(f"Assignment map with scope only name {scope} should map to "
                                 "scope only {ckpt_scope}. Should be 'scope/': 'other_scope/'.")
        else:
            if current not in store:
                raise ValueError(f"Tensor {current} is not found in the graph's variables")
            pairs.append((ckpt_name, store[current]))
    for key, v in pairs:
        if key not in saved:
            raise ValueError(f"Tensor {key} is not found in {ckpt_dir_or_file} checkpoint")
        value = np.asarray(reader.get_tensor(key))
        if isinstance(v, GraphVariable):
            v._set_initial(value.astype(v._spec.dtype))
        else:
            v.assign(value.astype(np.dtype(v.dtype)), read_value=False)


# Imported on first use, after the facade scoped its modules: scoped now (tf/_x64.py).
from . import _x64  # noqa: E402

_x64.scope([__name__])
