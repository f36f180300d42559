"""``tf.experimental.ExtensionType``: user classes of typed fields that TF's APIs take.

A subclass declares its fields as annotations (``tf.Tensor``, ``tf.TensorShape``,
``tf.DType``, Python scalars, ``Tuple``, ``Mapping``, ``Union``, ``Optional``, other
extension types, ``tf.RaggedTensor``/``tf.SparseTensor``); the class gets TF's
generated ``__init__`` (values checked and converted as TF converts them: lists to
Tensors, mappings to an immutable mapping), ``__repr__``, ``__eq__`` (a bool
Tensor), ``__validate__``, immutability outside the constructor, and a nested
``Spec`` (its ``TypeSpec``: TensorSpecs for the Tensors, the other fields as they
are). A user ``__init__`` may set the fields; ``__validate__`` runs after either.

Each subclass is a JAX pytree (its Tensors and nested extension values the
children, every other field static), so ``tf.function``, ``tf.cond``,
``tf.while_loop``, ``tf.map_fn`` and ``tf.nest``-style tree code take and return
one; a ``BatchableExtensionType`` keeps its ``tf.TensorShape`` fields in step with
the batch dimensions its Tensors gain or lose there (TF's default batch encoder).
A string Tensor field is a leaf too: a ``tf.function`` refuses it, as it refuses any
string Tensor argument (docs/differences.md, strings).

``dispatch_for_api``, ``dispatch_for_unary_elementwise_apis`` and
``dispatch_for_binary_elementwise_apis`` put a dispatcher in front of TF's
functions (under every name the facade binds them to, as the ragged dispatch is
put there), which calls the registered target when the arguments match its
annotations.

>>> import eagertape.tf as tf
>>> class MaskedTensor(tf.experimental.ExtensionType):
...     values: tf.Tensor
...     mask: tf.Tensor
>>> mt = MaskedTensor([1, 2, 3], [True, False, True])
>>> mt.values.numpy(), mt.mask.dtype
(array([1, 2, 3], dtype=int32), tf.bool)
>>> tf.type_spec_from_value(mt)
MaskedTensor.Spec(values=TensorSpec(shape=(3,), dtype=tf.int32, name=None), mask=TensorSpec(shape=(3,), dtype=tf.bool, name=None))
"""
import abc
import collections.abc as _abc
import functools
import inspect
import sys
import typing

import jax
import numpy as np

from ..extend import Tensor, TensorShape, TensorLike as _TensorLike
from ._util import rebind as _rebind

_IN_CONSTRUCTOR = "_tf_extension_type_constructing"
_NO_DEFAULT = object()
_RESERVED = ("self", "_tf_extension_type_cached_type_spec",
             "_tf_extension_type_cached_fields", "_tf_extension_type_packed_variant")


def _tf():
    return sys.modules["eagertape.tf"]


def _reserved(name):
    return name in _RESERVED or name.lower().startswith("_tf_extension_type")


# -- an immutable mapping (TF's ImmutableDict): what a Mapping field holds -----------

class ImmutableDict(_abc.Mapping):
    """A read-only dict: the value of a ``Mapping`` field (TF's ``ImmutableDict``)."""

    def __init__(self, *args, **kwargs):
        self._dict = dict(*args, **kwargs)

    def __getitem__(self, key):
        return self._dict[key]

    def __iter__(self):
        return iter(self._dict)

    def __len__(self):
        return len(self._dict)

    def __repr__(self):
        return f"ImmutableDict({self._dict})"

    def __eq__(self, other):
        return isinstance(other, _abc.Mapping) and dict(self.items()) == dict(other.items())

    def __hash__(self):
        return hash(tuple(self._dict.items()))


# -- fields: TF's type checks and conversions --------------------------------------

class _Field(typing.NamedTuple):
    name: str
    value_type: typing.Any
    default: typing.Any


def _composite_classes():
    tf = _tf()
    return (ExtensionType, tf.RaggedTensor, tf.SparseTensor)


def _is_composite_type(t):
    return isinstance(t, type) and issubclass(t, _composite_classes())


def _origin(t):
    return typing.get_origin(t)


def _is_tuple(t):
    return _origin(t) is tuple


def _is_mapping(t):
    return _origin(t) in (_abc.Mapping, dict, typing.Mapping)


def _is_union(t):
    import types
    return _origin(t) is typing.Union or isinstance(t, getattr(types, "UnionType", ()))


def _check_annotation(t, name, in_key=False):
    if isinstance(t, (str, typing.ForwardRef)):
        return
    if t in (int, float, str, bytes, bool, None, type(None), _tf().DType):
        return
    if t in (Tensor, TensorShape) or _is_composite_type(t):
        if in_key:
            raise TypeError(f"In field {name!r}: Mapping had a key {t.__name__!r} with type "
                            f"{type(t).__name__!r}")
        return
    if _is_tuple(t) or _is_union(t):
        for a in typing.get_args(t):
            if a is not Ellipsis:
                _check_annotation(a, name, in_key)
        return
    if _is_mapping(t):
        key, value = typing.get_args(t)
        _check_annotation(key, name, True)
        _check_annotation(value, name, in_key)
        return
    shown = t.__name__ if isinstance(t, type) else repr(t)
    raise TypeError(f"In field {name!r}: Unsupported type annotation {shown!r}")


def _convert(value, t, path, spec=False, default=False):
    """``value`` checked and converted for a field annotated ``t`` (TF's
    ``_convert_value``); ``spec``: a Spec's field (TypeSpecs for the tensors)."""
    tf = _tf()
    if t is None:
        t = type(None)
    where = "".join(path)
    if t is Tensor:
        if spec:
            if not isinstance(value, tf.TensorSpec):
                raise TypeError(f"{where}: expected a TensorSpec, got {type(value).__name__!r}")
            return value
        if isinstance(value, _TensorLike) and not isinstance(value, Tensor):
            return tf.convert_to_tensor(value)     # a Variable: read
        if isinstance(value, Tensor):
            return value
        if default:
            return value        # TF converts a default when the constructor runs
        try:
            return tf.convert_to_tensor(value)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{where}: expected a Tensor, got {type(value).__name__!r}") from e
    if _is_composite_type(t):
        if spec:
            if getattr(value, "value_type", None) is None or not (
                    isinstance(value.value_type, type) and issubclass(value.value_type, t)):
                raise TypeError(f"{where}: expected a TypeSpec for {t.__name__!r}, got "
                                f"{type(value).__name__!r}")
            return value
        if not isinstance(value, t):
            raise TypeError(f"{where}: expected {t.__name__!r}, got {type(value).__name__!r}")
        return value
    if t is TensorShape:
        try:
            return TensorShape(value)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{where}: expected 'tf.TensorShape', got "
                            f"{type(value).__name__!r}") from e
    if t is tf.DType:
        try:
            return tf.as_dtype(value)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{where}: expected 'tf.DType', got {type(value).__name__!r}") from e
    if t in (int, float, bool, str, bytes, type(None)):
        if not isinstance(value, t):
            raise TypeError(f"{where}: expected {t.__name__!r}, got {type(value).__name__!r}")
        return value
    if _is_tuple(t):
        if not isinstance(value, _abc.Sequence) or isinstance(value, (str, bytes)):
            raise TypeError(f"{where}: expected tuple, got {type(value).__name__!r}")
        args = typing.get_args(t)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(v, args[0], path + (f"[{i}]",), spec, default)
                         for i, v in enumerate(value))
        if len(value) != len(args):
            raise TypeError(f"{where}: expected tuple with length {len(args)}, got "
                            f"{type(value).__name__!r})")
        return tuple(_convert(v, a, path + (f"[{i}]",), spec, default)
                     for i, (v, a) in enumerate(zip(value, args)))
    if _is_mapping(t):
        if not isinstance(value, _abc.Mapping):
            raise TypeError(f"{where}: expected mapping, got {type(value).__name__!r}")
        kt, vt = typing.get_args(t)
        return ImmutableDict([(_convert(k, kt, path + ("[<key>]",), spec, default),
                               _convert(v, vt, path + (f"[{k!r}]",), spec, default))
                              for k, v in value.items()])
    if _is_union(t):
        for option in typing.get_args(t):
            try:
                return _convert(value, option, path, spec, default)
            except TypeError:
                pass
        raise TypeError(f"{where}: expected {t!r}, got {type(value).__name__!r}")
    raise TypeError(f"{where}: Unsupported type annotation {t!r}")


def _convert_fields(fields, values, spec=False):
    names = [f.name for f in fields]
    extra, missing = set(values) - set(names), set(names) - set(values)
    if extra:
        raise ValueError(f"Got unexpected fields: {extra}")
    if missing:
        raise ValueError(f"Missing required fields: {missing}")
    for f in fields:
        values[f.name] = _convert(values[f.name], f.value_type, (f.name,), spec)


# -- the metaclass: fields from annotations, the constructor, the Spec ---------------

class ExtensionTypeMetaclass(abc.ABCMeta):
    """The metaclass of ``tf.experimental.ExtensionType``: each subclass gets its
    constructor, its ``Spec`` and its place among JAX's pytrees."""

    def __init__(cls, name, bases, namespace):
        if not namespace.get("_tf_extension_type_do_not_transform_this_class", False):
            _check_class(cls)
            if "__init__" in cls.__dict__:
                _wrap_user_constructor(cls)
            else:
                _build_constructor(cls)
            _add_spec(cls)
            jax.tree_util.register_pytree_node(cls, _flatten, functools.partial(_unflatten, cls))
        super().__init__(name, bases, namespace)


def _check_class(cls):
    annotations = cls.__dict__.get("__annotations__", {})
    for key, value in cls.__dict__.items():
        if key == "Spec":
            if not isinstance(value, type):
                raise ValueError(f"{cls.__qualname__}.Spec must be a nested class; got {value}.")
            if value.__bases__ != (object,):
                raise ValueError(f"{cls.__qualname__}.Spec must be directly subclassed "
                                 "from tf.TypeSpec.")
        elif _reserved(key):
            raise ValueError(f"The field annotations for {cls.__name__} are invalid. "
                             f"Field '{key}' is reserved.")
    for key in annotations:
        if _reserved(key):
            raise ValueError(f"The field annotations for {cls.__name__} are invalid. "
                             f"Field '{key}' is reserved.")
    for key, value in cls.__dict__.items():
        if not (key in annotations or callable(value) or key.startswith("_abc_")
                or (key.startswith("__") and key.endswith("__"))
                or isinstance(value, (property, classmethod, staticmethod))):
            raise ValueError(f"The field annotations for {cls.__name__} are invalid. "
                             f"Field {key} is missing a type annotation.")


def _fields(cls):
    if issubclass(cls, ExtensionTypeSpec):
        cls = cls.value_type
    return _own_fields(cls)


def _own_fields(cls):
    """The fields, in declaration order (a base's first); forward references are
    resolved once they can be (a class naming itself: when it is first built)."""
    cached = cls.__dict__.get("_tf_extension_type_cached_fields")
    if cached is not None:
        return cached
    try:
        hints = typing.get_type_hints(cls)
        ok = True
    except (NameError, AttributeError):
        hints = {}
        for base in reversed(cls.__mro__):
            hints.update(base.__dict__.get("__annotations__", {}))
        ok = False
    fields = []
    for name, t in hints.items():
        _check_annotation(t, name)
        default = getattr(cls, name, _NO_DEFAULT)
        if isinstance(default, property) or callable(default) and not isinstance(
                default, (type, Tensor)):
            default = _NO_DEFAULT
        if default is not _NO_DEFAULT:
            default = _convert(default, t, (f"default value for {name}",), default=True)
        fields.append(_Field(name, t, default))
    fields = tuple(fields)
    if ok:
        type.__setattr__(cls, "_tf_extension_type_cached_fields", fields)
    return fields


def _finish(self):
    d = self.__dict__
    d.pop(_IN_CONSTRUCTOR, None)
    _convert_fields(_fields(type(self)), d, spec=isinstance(self, ExtensionTypeSpec))
    self.__validate__()


def _build_constructor(cls):
    fields = _fields(cls)
    params, got_default = [], False
    keyword_only = False
    for f in fields:
        if f.default is not _NO_DEFAULT:
            got_default = True
        elif got_default:
            keyword_only = True      # TF: fields after a default are keyword-only
        kind = inspect.Parameter.KEYWORD_ONLY if keyword_only else \
            inspect.Parameter.POSITIONAL_OR_KEYWORD
        params.append(inspect.Parameter(
            f.name, kind, default=inspect.Parameter.empty if f.default is _NO_DEFAULT
            else f.default, annotation=f.value_type))
    signature = inspect.Signature(params)

    def __init__(self, *args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        self.__dict__.update(bound.arguments)
        _finish(self)
    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] + params)
    cls.__init__ = __init__


def _wrap_user_constructor(cls):
    user = cls.__init__

    @functools.wraps(user)
    def __init__(self, *args, **kwargs):
        self.__dict__[_IN_CONSTRUCTOR] = True
        try:
            user(self, *args, **kwargs)
        finally:
            self.__dict__.pop(_IN_CONSTRUCTOR, None)
        _finish(self)
    cls.__init__ = __init__


def _add_spec(cls):
    namespace = {"value_type": cls, "__module__": cls.__module__}
    user = cls.__dict__.get("Spec")
    if user is not None:
        for name, value in user.__dict__.items():
            if _reserved(name):
                raise ValueError(f"TypeSpec {cls.__qualname__}.Spec uses reserved name "
                                 f"'{name}'.")
            if any(f.name == name for f in _fields(cls)):
                raise ValueError(f"TypeSpec {cls.__qualname__}.Spec defines a variable "
                                 f"'{name}' which shadows a field in {cls.__qualname__}")
            if name not in ("__module__", "__dict__", "__weakref__"):
                namespace[name] = value
    base = BatchableExtensionTypeSpec if issubclass(cls, BatchableExtensionType) \
        else ExtensionTypeSpec
    spec = type(cls.__name__ + ".Spec", (base,), namespace)
    spec.__qualname__ = cls.__qualname__ + ".Spec"
    type.__setattr__(cls, "Spec", spec)
    if "__init__" in namespace:
        _wrap_user_constructor(spec)
    else:
        params = [inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                  for f in _fields(cls)]
        signature = inspect.Signature(params)

        def __init__(self, *args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            self.__dict__.update(bound.arguments)
            _finish(self)
        spec.__init__ = __init__


def _make(cls, fields):
    obj = object.__new__(cls)
    obj.__dict__.update(fields)
    return obj


def _field_values(obj):
    return {f.name: obj.__dict__[f.name] for f in _fields(type(obj))}


def _set_guard(self, name, value, what):
    if self.__dict__.get(_IN_CONSTRUCTOR) and any(f.name == name for f in _fields(type(self))):
        self.__dict__[name] = value
        return
    raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom constructor "
                         f"of {what}.")


class ExtensionType(metaclass=ExtensionTypeMetaclass):
    """``tf.experimental.ExtensionType``: the base class of user types with typed
    fields that TF's APIs take (see the module's description).

    >>> import eagertape.tf as tf
    >>> class Pencil(tf.experimental.ExtensionType):
    ...     color: str = "black"
    ...     length: tf.Tensor = 1.0
    >>> p = Pencil(color="blue")
    >>> p.color, float(p.length), bool(p == Pencil("blue", 1.0)), p == Pencil()
    ('blue', 1.0, True, False)
    """
    _tf_extension_type_do_not_transform_this_class = True

    def __init__(self, *args, **kwargs):
        if type(self) is ExtensionType:
            raise AssertionError("Cannot create an instance of ExtensionType because "
                                 "ExtensionType is an abstract base class.")

    def __repr__(self):
        fields = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in _fields(type(self)))
        return f"{type(self).__qualname__}({fields})"

    def __setattr__(self, name, value):
        _set_guard(self, name, value, "ExtensionType")

    def __delattr__(self, name):
        if self.__dict__.get(_IN_CONSTRUCTOR) and any(
                f.name == name for f in _fields(type(self))):
            del self.__dict__[name]
            return
        raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom "
                             "constructor of ExtensionType.")

    def __eq__(self, other):
        # TF's rule: False (a Python bool) for another type or TypeSpec, else a
        # bool Tensor: every Tensor of the one equal to the other's.
        if type(self) is not type(other) or self._type_spec != other._type_spec:
            return False
        tf = _tf()
        a, b = _tensors(self), _tensors(other)
        if len(a) != len(b):
            return False
        if not a:
            return tf.constant(True)
        return tf.reduce_all(tf.stack([tf.reduce_all(tf.equal(x, y)) for x, y in zip(a, b)]))

    def __ne__(self, other):
        eq = self.__eq__(other)
        return _tf().logical_not(eq) if isinstance(eq, Tensor) else not eq

    __hash__ = object.__hash__

    def __validate__(self):
        """Checks made after construction (override it; raise to refuse a value)."""

    @property
    def _type_spec(self):
        return type(self).Spec.from_value(self)


class BatchableExtensionType(ExtensionType):
    """``tf.experimental.BatchableExtensionType``: an ExtensionType whose values
    batch and unbatch (in ``tf.map_fn``, ``tf.data``) by stacking or slicing every
    Tensor along a new first axis, its ``tf.TensorShape`` fields gaining or losing
    that axis.

    >>> import eagertape.tf as tf
    >>> class Vehicle(tf.experimental.BatchableExtensionType):
    ...     top_speed: tf.Tensor
    ...     mpg: tf.Tensor
    >>> batch = Vehicle([120, 150, 80], [30, 40, 12])
    >>> tf.map_fn(lambda v: v.top_speed * v.mpg, batch, fn_output_signature=tf.int32).numpy()
    array([3600, 6000,  960], dtype=int32)
    """
    _tf_extension_type_do_not_transform_this_class = True


# -- Spec (TypeSpec) -------------------------------------------------------------------

def _spec_of_value(v):
    if isinstance(v, (Tensor, _TensorLike)):
        return _tf().TensorSpec(v.shape, v.dtype)
    if isinstance(v, ExtensionType):
        return v._type_spec
    if isinstance(v, tuple) and not isinstance(v, TensorShape):
        return tuple(_spec_of_value(x) for x in v)
    if isinstance(v, ImmutableDict):
        return ImmutableDict((k, _spec_of_value(x)) for k, x in v.items())
    if hasattr(type(v), "from_value") or hasattr(v, "_type_spec"):
        return type_spec_from_value(v)
    return v


def _spec_key(v):
    tf = _tf()
    if isinstance(v, tf.TensorSpec):
        return ("T", None if v.shape is None else tuple(v.shape), str(v.dtype))
    if isinstance(v, ExtensionTypeSpec):
        return ("E", type(v), tuple((k, _spec_key(x)) for k, x in v._serialize()))
    if isinstance(v, TensorShape):
        return ("S", None if v.rank is None else tuple(v.as_list()))
    if isinstance(v, tuple):
        return tuple(_spec_key(x) for x in v)
    if isinstance(v, _abc.Mapping):
        return ("M", tuple((k, _spec_key(x)) for k, x in v.items()))
    return v


def _as_dicts(v):
    if isinstance(v, ImmutableDict):
        return {k: _as_dicts(x) for k, x in v.items()}
    if isinstance(v, tuple) and not isinstance(v, TensorShape):
        return tuple(_as_dicts(x) for x in v)
    return v


class ExtensionTypeSpec:
    """``tf.experimental.ExtensionTypeSpec``: the base of every ExtensionType's
    ``Spec``: its fields, with a TensorSpec (or nested Spec) for each Tensor.

    >>> import eagertape.tf as tf
    >>> class Pastry(tf.experimental.ExtensionType):
    ...     sweetness: tf.Tensor
    >>> Pastry.Spec(tf.TensorSpec([2]))
    Pastry.Spec(sweetness=TensorSpec(shape=(2,), dtype=tf.float32, name=None))
    """
    value_type = None

    @classmethod
    def from_value(cls, value):
        return _make(cls, {k: _spec_of_value(v) for k, v in _field_values(value).items()})

    def _serialize(self):
        return tuple((f.name, self.__dict__[f.name]) for f in _fields(self.value_type)
                     if f.name in self.__dict__)

    def __repr__(self):
        # TF shows a Mapping field as a dict here (its _serialize's form).
        fields = ", ".join(f"{k}={_as_dicts(v)!r}" for k, v in self._serialize())
        return f"{type(self).__qualname__}({fields})"

    def __eq__(self, other):
        return type(self) is type(other) and _spec_key(self) == _spec_key(other)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(_spec_key(self))

    def __setattr__(self, name, value):
        _set_guard(self, name, value, "ExtensionTypeSpec")

    def __validate__(self):
        """Checks made after construction."""

    def is_compatible_with(self, spec_or_value):
        """Whether a value or Spec fits this Spec (None dimensions take any size)."""
        other = spec_or_value
        if isinstance(other, ExtensionType):
            other = other._type_spec
        if type(other) is not type(self):
            return False

        def fits(a, b):
            tf = _tf()
            if isinstance(a, tf.TensorSpec):
                return (isinstance(b, tf.TensorSpec) and a.dtype == b.dtype
                        and (a.shape is None or b.shape is None
                             or TensorShape(a.shape).is_compatible_with(b.shape)))
            if isinstance(a, ExtensionTypeSpec):
                return a.is_compatible_with(b)
            if isinstance(a, TensorShape):
                return isinstance(b, TensorShape) and a.is_compatible_with(b)
            if isinstance(a, tuple):
                return isinstance(b, tuple) and len(a) == len(b) and all(
                    fits(x, y) for x, y in zip(a, b))
            if isinstance(a, _abc.Mapping):
                return isinstance(b, _abc.Mapping) and a.keys() == b.keys() and all(
                    fits(a[k], b[k]) for k in a)
            return a == b
        return all(fits(self.__dict__[f.name], other.__dict__[f.name])
                   for f in _fields(self.value_type))

    def _to_components(self, value):
        return _tensors(value)

    def _from_components(self, components):
        it = iter(components)

        def fill(v):
            if isinstance(v, (_tf().TensorSpec, ExtensionTypeSpec)):
                return next(it)
            if isinstance(v, tuple) and not isinstance(v, TensorShape):
                return tuple(fill(x) for x in v)
            if isinstance(v, ImmutableDict):
                return ImmutableDict((k, fill(x)) for k, x in v.items())
            return v
        return _make(self.value_type, {f.name: fill(self.__dict__[f.name])
                                       for f in _fields(self.value_type)})


    # tf.function's protocol for a composite spec (eagertape/_function.py): the
    # TensorSpecs of the value's pytree leaves, in order, and a value of such leaves.
    @property
    def _flat_tensor_specs(self):
        out = []

        def walk(v):
            if isinstance(v, _tf().TensorSpec):
                out.append(v)
            elif isinstance(v, ExtensionTypeSpec):
                out.extend(v._flat_tensor_specs)
            elif isinstance(v, tuple) and not isinstance(v, TensorShape):
                for x in v:
                    walk(x)
            elif isinstance(v, ImmutableDict):
                for x in v.values():
                    walk(x)
        for _, v in self._serialize():
            walk(v)
        return out

    def _from_compatible_tensor_list(self, tensors):
        it = iter(tensors)

        def fill(v):
            if isinstance(v, _tf().TensorSpec):
                return next(it)
            if isinstance(v, ExtensionTypeSpec):
                return v._from_compatible_tensor_list(
                    [next(it) for _ in v._flat_tensor_specs])
            if isinstance(v, tuple) and not isinstance(v, TensorShape):
                return tuple(fill(x) for x in v)
            if isinstance(v, ImmutableDict):
                return ImmutableDict((k, fill(x)) for k, x in v.items())
            return v
        return _make(self.value_type, {k: fill(v) for k, v in self._serialize()})


class BatchableExtensionTypeSpec(ExtensionTypeSpec):
    """The base of a BatchableExtensionType's ``Spec``."""


def type_spec_from_value(value):
    """``tf.type_spec_from_value``: the TypeSpec of a Tensor (a TensorSpec), an
    ExtensionType (its ``Spec``), a RaggedTensor or a SparseTensor.

    >>> import eagertape.tf as tf
    >>> tf.type_spec_from_value(tf.constant([1.0, 2.0]))
    TensorSpec(shape=(2,), dtype=tf.float32, name=None)
    """
    tf = _tf()
    if isinstance(value, ExtensionType):
        return value._type_spec
    if isinstance(value, tf.RaggedTensor):
        return tf.RaggedTensorSpec.from_value(value)
    if isinstance(value, tf.SparseTensor):
        return tf.SparseTensorSpec.from_value(value)
    if isinstance(value, _TensorLike):
        return tf.TensorSpec(value.shape, value.dtype)
    try:
        t = tf.convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"Could not build a TypeSpec for {value!r} of unsupported type "
                        f"{type(value)}.") from None
    return tf.TensorSpec(t.shape, t.dtype)


# -- a pytree: the Tensors and nested extension values its children ----------------

class _Hole:
    """A child's place in a field's template (with the rank the child had, for
    the batch dimensions a batchable type's TensorShapes follow)."""
    __slots__ = ("ndim",)

    def __init__(self, ndim):
        self.ndim = ndim

    def __eq__(self, other):
        return isinstance(other, _Hole) and other.ndim == self.ndim

    def __hash__(self):
        return hash(("hole", self.ndim))


class _Aux:
    __slots__ = ("names", "template", "key")

    def __init__(self, names, template):
        self.names, self.template = names, template
        self.key = (names, tuple(_hashable(t) for t in template))

    def __eq__(self, other):
        return isinstance(other, _Aux) and other.key == self.key

    def __hash__(self):
        return hash(self.key)


def _hashable(t):
    if isinstance(t, _Hole):
        return t
    if isinstance(t, TensorShape):
        return ("shape", None if t.rank is None else tuple(t.as_list()))
    if isinstance(t, tuple):
        return ("tuple", tuple(_hashable(x) for x in t))
    if isinstance(t, ImmutableDict):
        return ("map", tuple((k, _hashable(x)) for k, x in t.items()))
    try:
        hash(t)
        return (type(t), t)
    except TypeError:
        return ("id", id(t))


def _split(v, children):
    if isinstance(v, (TensorShape, _tf().DType) + _STATIC):
        return v
    if isinstance(v, tuple):
        return tuple(_split(x, children) for x in v)
    if isinstance(v, ImmutableDict):
        return ImmutableDict((k, _split(x, children)) for k, x in v.items())
    # Anything else is a child: a Tensor, a nested value, and whatever JAX puts in
    # a Tensor's place (its arrays and tracers, when it maps over the tree).
    children.append(v)
    shape = getattr(v, "shape", None) if not isinstance(v, ExtensionType) else None
    try:
        return _Hole(None if shape is None else len(tuple(shape)))
    except TypeError:
        return _Hole(None)


_STATIC = (str, bytes, bool, int, float, complex, type(None), np.dtype, type)


def _flatten(obj):
    children, names, template = [], [], []
    for k, v in _field_values(obj).items():
        names.append(k)
        template.append(_split(v, children))
    return tuple(children), _Aux(tuple(names), tuple(template))


def _fill(t, it, batch):
    if isinstance(t, _Hole):
        return next(it)
    if isinstance(t, TensorShape) and batch is not None:
        return _rebatched(t, batch)
    if isinstance(t, tuple) and not isinstance(t, TensorShape):
        return tuple(_fill(x, it, batch) for x in t)
    if isinstance(t, ImmutableDict):
        return ImmutableDict((k, _fill(x, it, batch)) for k, x in t.items())
    return t


def _holes(t):
    if isinstance(t, _Hole):
        return [t]
    if isinstance(t, tuple) and not isinstance(t, TensorShape):
        return [h for x in t for h in _holes(x)]
    if isinstance(t, ImmutableDict):
        return [h for x in t.values() for h in _holes(x)]
    return []


def _batch_change(aux, children):
    """The leading dimensions the Tensors gained (a tuple) or the count they lost (a
    negative int) since they were flattened, where all agree; else None."""
    holes = [h for t in aux.template for h in _holes(t)]
    deltas, lead = set(), None
    for h, c in zip(holes, children):
        shape = getattr(c, "shape", None)
        if h.ndim is None or shape is None:
            continue
        try:
            shape = tuple(shape)
        except TypeError:
            return None
        d = len(shape) - h.ndim
        deltas.add(d)
        if d > 0 and lead is None:
            lead = shape[:d]
    if len(deltas) != 1:
        return None
    d = deltas.pop()
    if d == 0:
        return None
    return lead if d > 0 else d


def _rebatched(shape, batch):
    dims = [None if d is None else int(d) for d in batch] if isinstance(batch, tuple) else None
    if dims is not None:
        return TensorShape(dims + (shape.as_list() if shape.rank is not None else []))
    return TensorShape(shape.as_list()[-batch:]) if shape.rank is not None else shape


def _unflatten(cls, aux, children):
    children = list(children)
    batch = _batch_change(aux, children) if issubclass(cls, BatchableExtensionType) else None
    it = iter(children)
    return _make(cls, {k: _fill(t, it, batch) for k, t in zip(aux.names, aux.template)})


def _tensors(obj):
    """The Tensors of ``obj``'s fields (nested extension values' too), in order."""
    out = []
    for c in jax.tree_util.tree_leaves(obj, is_leaf=lambda x: isinstance(x, _TensorLike)):
        out.append(c)
    return out


# -- dispatch: TF's functions calling a registered target for matching arguments ----

_API = {}           # id(original) -> [(target, checks)]
_UNARY = []         # [(handler, type)]
_BINARY = []        # [(handler, x type, y type)]
_DISPATCHERS = {}   # id(original) -> dispatcher
_TARGETS = {}       # id(target) -> where it is registered


def _matches(value, t):
    """Whether ``value`` fits the annotation ``t`` (TF's dispatch type checks)."""
    if t is inspect.Parameter.empty or t is typing.Any:
        return True
    if _is_union(t):
        return any(_matches(value, a) for a in typing.get_args(t))
    origin = _origin(t)
    if origin in (list, typing.List, _abc.Sequence, tuple):
        args = typing.get_args(t)
        if not isinstance(value, (list, tuple)):
            return False
        if not args:
            return True
        return all(_matches(v, args[0]) for v in value)
    if t is Tensor:
        return isinstance(value, _TensorLike)
    if isinstance(t, type):
        return isinstance(value, t)
    return False


def _has_extension(value):
    if isinstance(value, ExtensionType):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_extension(v) for v in value)
    return False


def _dispatcher(fn, bind=True):
    """The function in front of ``fn`` that tries the targets registered for it
    (``bind``: put under every name the facade gives ``fn`` now)."""
    key = id(fn)
    if key in _DISPATCHERS:
        return _DISPATCHERS[key]
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        signature = None
    params = [] if signature is None else [
        p.name for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]

    @functools.wraps(fn)
    def dispatch(*args, **kwargs):
        if any(_has_extension(a) for a in args) or any(
                _has_extension(v) for v in kwargs.values()):
            out = _try_targets(fn, dispatch, signature, params, args, kwargs)
            if out is not _NO_MATCH:
                return out
        return fn(*args, **kwargs)
    dispatch._extension_dispatch_of = fn
    _DISPATCHERS[key] = dispatch
    if bind:
        _rebind({key: dispatch}, skip=("eagertape.tf._extension_type",))
    return dispatch


_NO_MATCH = object()


def _bind(signature, args, kwargs):
    try:
        return signature.bind(*args, **kwargs).arguments
    except TypeError:
        return None


def _try_targets(fn, api, signature, params, args, kwargs):
    bound = None if signature is None else _bind(signature, args, kwargs)
    if bound is None:
        return _NO_MATCH
    for target, checks in reversed(_API.get(id(fn), [])):
        if all(_matches(bound.get(p, None), t) for p, t in checks) and any(
                _has_extension(bound.get(p)) for p, _ in checks):
            return target(*args, **kwargs)
    values = [bound.get(p) for p in params[:2]]
    if len(values) >= 1 and id(fn) in _UNARY_APIS:
        for handler, t in reversed(_UNARY):
            if _matches(values[0], t) and _has_extension(values[0]):
                rest = {k: v for k, v in bound.items() if k != params[0]}
                return handler(functools.partial(api, **rest) if rest else api, values[0])
    if len(values) == 2 and id(fn) in _BINARY_APIS:
        for handler, tx, ty in reversed(_BINARY):
            if _matches(values[0], tx) and _matches(values[1], ty) and (
                    _has_extension(values[0]) or _has_extension(values[1])):
                rest = {k: v for k, v in bound.items() if k not in params[:2]}
                return handler(functools.partial(api, **rest) if rest else api, *values)
    return _NO_MATCH


def _original(api):
    return getattr(api, "_extension_dispatch_of", api)


_UNARY_APIS, _BINARY_APIS = {}, {}


def _elementwise_apis():
    from . import _ragged
    tf = _tf()
    unary, binary = [], []
    for name in _ragged._UNARY:
        fn = getattr(tf.math, name, None) or getattr(tf, name, None)
        if fn is not None:
            unary.append(fn)
    for name in _ragged._NN_UNARY:
        fn = getattr(tf.nn, name, None)
        if fn is not None:
            unary.append(fn)
    for name in _ragged._BINARY:
        fn = getattr(tf.math, name, None)
        if fn is not None:
            binary.append(fn)
    return unary, binary


def dispatch_for_api(api, *signatures):
    """``tf.experimental.dispatch_for_api``: a decorator registering its function as
    the target ``api`` calls when the arguments match the target's annotations (or
    ``signatures``: dicts of parameter name to type), at least one of them an
    ExtensionType.

    >>> import eagertape.tf as tf
    >>> class Pair(tf.experimental.ExtensionType):
    ...     a: tf.Tensor
    ...     b: tf.Tensor
    >>> @tf.experimental.dispatch_for_api(tf.reduce_sum)
    ... def pair_sum(input_tensor: Pair, axis=None, keepdims=False, name=None):
    ...     return tf.reduce_sum(input_tensor.a) + tf.reduce_sum(input_tensor.b)
    >>> tf.reduce_sum(Pair([1, 2], [3])).numpy()
    np.int32(6)
    >>> tf.experimental.unregister_dispatch_for(pair_sum)
    """
    fn = _original(api)
    try:
        api_sig = inspect.signature(fn)
        api_params = list(api_sig.parameters)
    except (TypeError, ValueError):
        raise TypeError(f"dispatch_for_api: argument `api` must be a TF function, got "
                        f"{api!r}") from None

    def decorator(target):
        if signatures:
            checks = [list(s.items()) for s in signatures]
        else:
            sig = inspect.signature(target)
            hints = typing.get_type_hints(target)
            names = list(sig.parameters)
            extra = [n for n in names if n not in api_params]
            if extra and not any(p.kind is p.VAR_KEYWORD for p in api_sig.parameters.values()):
                raise ValueError(f"Dispatch function's signature {sig} does not match API's "
                                 f"signature {inspect.signature(fn)}: it has parameters "
                                 f"{extra} the API has not.")
            checks = [[(n, hints[n]) for n in names if n in hints and n != "return"]]
        for c in checks:
            if not c:
                raise ValueError("dispatch_for_api: the target must annotate at least one "
                                 "parameter with the type it dispatches on")
            _API.setdefault(id(fn), []).append((target, c))
        _TARGETS[id(target)] = ("api", id(fn))
        _dispatcher(fn)
        return target
    return decorator


def _check_types(types, what):
    for t in types:
        if not (isinstance(t, type) or _is_union(t)):
            raise TypeError(f"{what}: expected a type or a typing.Union of types, got {t!r}")


def dispatch_for_unary_elementwise_apis(x_type):
    """``tf.experimental.dispatch_for_unary_elementwise_apis``: a decorator registering
    ``handler(api_func, x)`` for every unary elementwise API (``tf.abs``,
    ``tf.math.exp``, ``tf.ones_like``, ...) called on an ``x`` of ``x_type``;
    ``api_func`` takes ``x``'s replacement, the call's other arguments bound.

    >>> import eagertape.tf as tf
    >>> class Box(tf.experimental.ExtensionType):
    ...     v: tf.Tensor
    >>> @tf.experimental.dispatch_for_unary_elementwise_apis(Box)
    ... def box_unary(api_func, x):
    ...     return Box(api_func(x.v))
    >>> tf.abs(Box([-1, 2])).v.numpy()
    array([1, 2], dtype=int32)
    >>> tf.experimental.unregister_dispatch_for(box_unary)
    """
    _check_types([x_type], "dispatch_for_unary_elementwise_apis")

    def decorator(handler):
        _install_elementwise()
        _UNARY.append((handler, x_type))
        _TARGETS[id(handler)] = ("unary", None)
        return handler
    return decorator


def dispatch_for_binary_elementwise_apis(x_type, y_type):
    """``tf.experimental.dispatch_for_binary_elementwise_apis``: a decorator
    registering ``handler(api_func, x, y)`` for every binary elementwise API
    (``tf.add``, ``tf.math.maximum``, ``tf.equal``, ...) called with an ``x`` of
    ``x_type`` and a ``y`` of ``y_type``, one of them an ExtensionType.

    >>> import eagertape.tf as tf
    >>> class Box(tf.experimental.ExtensionType):
    ...     v: tf.Tensor
    >>> @tf.experimental.dispatch_for_binary_elementwise_apis(Box, Box)
    ... def box_binary(api_func, x, y):
    ...     return Box(api_func(x.v, y.v))
    >>> tf.add(Box([1, 2]), Box([10, 20])).v.numpy()
    array([11, 22], dtype=int32)
    >>> tf.experimental.unregister_dispatch_for(box_binary)
    """
    _check_types([x_type, y_type], "dispatch_for_binary_elementwise_apis")

    def decorator(handler):
        _install_elementwise()
        _BINARY.append((handler, x_type, y_type))
        _TARGETS[id(handler)] = ("binary", None)
        return handler
    return decorator


def _install_elementwise():
    if _UNARY_APIS or _BINARY_APIS:
        return
    unary, binary = _elementwise_apis()
    for fn in unary:
        fn = _original(fn)
        _UNARY_APIS[id(fn)] = fn
    for fn in binary:
        fn = _original(fn)
        _BINARY_APIS[id(fn)] = fn
    # One walk of the facade's modules for all of them.
    _rebind({id(fn): _dispatcher(fn, bind=False)
             for fn in list(_UNARY_APIS.values()) + list(_BINARY_APIS.values())},
            skip=("eagertape.tf._extension_type",))


def unregister_dispatch_for(dispatch_target):
    """``tf.experimental.unregister_dispatch_for``: takes a target (or handler)
    registered by the ``dispatch_for_*`` decorators out again; ValueError for one
    that is not registered."""
    where = _TARGETS.pop(id(dispatch_target), None)
    if where is None:
        raise ValueError(f"Function {dispatch_target} was not registered using a "
                         "`@dispatch_for_*` decorator.")
    kind, key = where
    if kind == "api":
        _API[key] = [(t, c) for t, c in _API[key] if t is not dispatch_target]
    elif kind == "unary":
        _UNARY[:] = [h for h in _UNARY if h[0] is not dispatch_target]
    else:
        _BINARY[:] = [h for h in _BINARY if h[0] is not dispatch_target]


def as_dict(value):
    """``tf.experimental.extension_type.as_dict``: an ExtensionType's fields as a dict
    (not recursive: nested extension values stay as they are).

    >>> import eagertape.tf as tf
    >>> class Point(tf.experimental.ExtensionType):
    ...     x: int
    ...     y: int
    >>> tf.experimental.extension_type.as_dict(Point(1, 2))
    {'x': 1, 'y': 2}
    """
    if not isinstance(value, ExtensionType):
        raise TypeError(f"as_dict: argument `value` must be an ExtensionType, got "
                        f"{type(value).__name__}")
    return dict(_field_values(value))


# -- batching a Spec (tf.data's element_spec through batch and unbatch) -------------

def _map_spec(spec, tensor, shape):
    """``spec`` with ``tensor`` applied to each TensorSpec and ``shape`` to each
    TensorShape field (TF's default batch encoder), nested Specs alike."""
    tf = _tf()

    def walk(v):
        if isinstance(v, tf.TensorSpec):
            return tensor(v)
        if isinstance(v, ExtensionTypeSpec):
            return _map_spec(v, tensor, shape)
        if isinstance(v, TensorShape):
            return shape(v)
        if isinstance(v, tuple):
            return tuple(walk(x) for x in v)
        if isinstance(v, ImmutableDict):
            return ImmutableDict((k, walk(x)) for k, x in v.items())
        return v
    return _make(type(spec), {k: walk(v) for k, v in spec._serialize()})


def batched_spec(spec, n):
    """The Spec of a batch of ``n`` (None: unknown) values of ``spec``."""
    tf = _tf()
    return _map_spec(spec, lambda s: tf.TensorSpec(
        None if s.shape is None else [n] + list(s.shape), s.dtype),
        lambda s: TensorShape([n] + (s.as_list() if s.rank is not None else [])))


def unknown_batch(value):
    """``value`` with the first dimension of its (and its nested values')
    TensorShape fields unknown: what TF's batch gives (its values are rebuilt from
    the batched Spec, whose batch size is None unless drop_remainder)."""
    def walk(v):
        if isinstance(v, TensorShape):
            return TensorShape([None] + v.as_list()[1:]) if v.rank else v
        if isinstance(v, ExtensionType):
            return _make(type(v), {k: walk(x) for k, x in _field_values(v).items()})
        if isinstance(v, tuple):
            return tuple(walk(x) for x in v)
        if isinstance(v, ImmutableDict):
            return ImmutableDict((k, walk(x)) for k, x in v.items())
        return v
    return walk(value) if isinstance(value, BatchableExtensionType) else value


def unbatched_spec(spec):
    """The Spec of one value of a batch of ``spec``."""
    tf = _tf()
    return _map_spec(spec, lambda s: tf.TensorSpec(
        None if s.shape is None else list(s.shape)[1:], s.dtype),
        lambda s: TensorShape(s.as_list()[1:]) if s.rank is not None else s)
