"""``tf.Module`` and ``tf.name_scope``: TF's container of variables, found by
walking attributes, and the name prefix of the variables made inside a scope.

A Module keeps no registry: ``variables`` walks the attributes each time, as TF
does (attributes in name order, each flattened through lists, tuples and dicts,
then submodules breadth first, every object once), so what a program assigns
is what it gets, and nothing can drift.
"""
import functools
import re

from .. import extend as _extend
from ..extend import Variable

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_IDENTIFIER = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")


class name_scope:  # noqa: N801  (TF's name)
    """``tf.name_scope(name)``: Variables made inside are named ``name/...``.

    Entering it returns the full scope name; a name ending in ``/`` is taken as
    a full scope name itself, and an empty name leaves every scope, as in TF.
    Eager TF does not make names unique, and neither does eagertape.

    >>> import eagertape.tf as tf
    >>> with tf.name_scope("encoder") as scope:
    ...     w = tf.Variable(1.0, name="w")
    >>> scope, w.name
    ('encoder/', 'encoder/w:0')
    """

    def __init__(self, name):
        if not isinstance(name, str):
            raise TypeError(f"argument `name` of tf.name_scope must be a string, got "
                            f"{type(name).__name__}")
        self._name = name
        self._switch = []

    @property
    def name(self):
        return self._name

    def __enter__(self):
        name, old = self._name, _extend.current_name_scope()
        if not name:
            scope = ""
        elif name.endswith("/"):
            scope = name
        else:
            scope = f"{old}{name}/"
        s = _extend.in_name_scope(scope)
        s.__enter__()
        self._switch.append(s)      # a scope object may be entered again, nested
        return scope

    def __exit__(self, *exc):
        self._switch.pop().__exit__(*exc)
        return False


class Module:
    """``tf.Module``: a named container whose Variables, and those of the Modules
    it holds, are found by walking its attributes.

    >>> import eagertape.tf as tf
    >>> class Dense(tf.Module):
    ...     def __init__(self, n_in, n_out, name=None):
    ...         super().__init__(name=name)
    ...         self.w = tf.Variable(tf.ones([n_in, n_out]), name="w")
    ...         self.b = tf.Variable(tf.zeros([n_out]), name="b")
    ...     def __call__(self, x):
    ...         return tf.nn.relu(x @ self.w + self.b)
    >>> class MLP(tf.Module):
    ...     def __init__(self, name=None):
    ...         super().__init__(name=name)
    ...         with self.name_scope:
    ...             self.layers = [Dense(2, 3), Dense(3, 1)]
    ...     @tf.Module.with_name_scope
    ...     def __call__(self, x):
    ...         for layer in self.layers:
    ...             x = layer(x)
    ...         return x
    >>> mlp = MLP()
    >>> [v.name for v in mlp.trainable_variables]
    ['mlp/b:0', 'mlp/w:0', 'mlp/b:0', 'mlp/w:0']
    >>> with tf.GradientTape() as tape:
    ...     y = tf.reduce_sum(mlp([[1.0, 2.0]]))
    >>> [g.shape.as_list() for g in tape.gradient(y, mlp.trainable_variables)]
    [[3], [2, 3], [1], [3, 1]]
    """

    # Attributes TF's walk skips (its checkpoint bookkeeping).
    _TF_MODULE_IGNORED_PROPERTIES = frozenset((
        "_self_unconditional_checkpoint_dependencies", "_self_unconditional_dependency_names"))

    def __init__(self, name=None):
        if name is None:
            name = _CAMEL_TO_SNAKE.sub(r"_\1", type(self).__name__).lower()
        elif not isinstance(name, str) or not _IDENTIFIER.match(name):
            raise ValueError(f"{name!r} is not a valid module name (argument `name`). Module "
                             "names must be valid Python identifiers (e.g. a valid class name).")
        self._name = name
        with name_scope(name) as scope:
            self._name_scope = name_scope(scope)

    @property
    def name(self):
        """The name given (or made from the class name), without parent scopes."""
        return self._name

    @property
    def name_scope(self):
        """The ``tf.name_scope`` of this module (parent modules' scopes included)."""
        try:
            return self._name_scope
        except AttributeError:
            raise AttributeError(
                f"{type(self).__name__} has no name scope: its __init__ must call "
                "super().__init__() first") from None

    @property
    def variables(self):
        """Every Variable of this module (by attribute name), then of its submodules
        (breadth first), each once."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self):
        """The trainable ones of ``variables``, in the same order."""
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and v.trainable))

    @property
    def non_trainable_variables(self):
        """The non-trainable ones of ``variables``, in the same order."""
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self):
        """Every Module held by this one, or by those (breadth first), each once."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None,
                 with_path=False, expand_composites=False):
        """Attribute values in attribute-name order, flattened through nests, then
        submodules' (TF's ``Module._flatten``, which programs use for their own
        collections); with ``with_path``, ``(path, value)`` pairs, not made unique."""
        predicate = predicate or (lambda _: True)
        return _walk(self, recursive, predicate, attribute_traversal_key,
                     self._TF_MODULE_IGNORED_PROPERTIES, with_path, (), {id(self)}, [])

    @classmethod
    def with_name_scope(cls, method):
        """Decorate a method so that it runs inside the module's name scope."""
        @functools.wraps(method)
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return method_with_name_scope

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__qualname__} object named {self._name!r}>"


def _is_variable(obj):
    return isinstance(obj, Variable)


def _is_module(obj):
    return isinstance(obj, Module)


def _walk(module, recursive, predicate, key, ignore, with_path, path, seen, stack):
    submodules = []
    if id(module) in stack:      # a cycle: its own attributes once more, no deeper
        recursive = False
    attrs = vars(module)
    for name in sorted(attrs, key=key):
        if name in ignore:
            continue
        for i, leaf in _paths(attrs[name], (name,)):
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (path + i, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module):
                submodules.append((path + i, leaf))
    stack.append(id(module))
    for sub_path, sub in submodules:
        yield from _walk(sub, recursive, predicate, key, ignore, with_path, sub_path, seen, stack)
    stack.pop()


def _paths(value, path):
    # (path, leaf) pairs as tf.nest flattens: lists and tuples in order (a
    # namedtuple's path by field name), dicts by sorted key.
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        for f, v in zip(value._fields, value):
            yield from _paths(v, path + (f,))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _paths(v, path + (i,))
    elif isinstance(value, dict):
        for k in sorted(value):
            yield from _paths(value[k], path + (k,))
    else:
        yield path, value
