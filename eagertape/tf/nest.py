"""``tf.nest``: TF's rules for nested structures, which differ from
``jax.tree_util``'s: None is an atom (a leaf), not an empty subtree; every
mapping flattens in sorted key order (an OrderedDict too) and packs back in its
own order; other sequences (lists, tuples, namedtuples, ``range``, ``deque``,
dict views) are nested; strings, bytes, sets, arrays, TensorShapes, Tensors,
Variables and TensorArrays are atoms. ``expand_composites`` is accepted: eagertape
has no composite tensors (a Variable stays one atom, where TF would give its
resource handle). ``attrs`` classes are atoms here (TF nests them).

>>> import eagertape.tf as tf
>>> tf.nest.flatten({"b": [1, None], "a": (2, 3)})
[2, 3, 1, None]
>>> tf.nest.map_structure(lambda x: x * 10, {"b": 1, "a": [2]})
{'b': 10, 'a': [20]}
"""
import collections.abc as _abc

from ._util import _Unsupported

__getattr__ = _Unsupported("tf.nest")


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _is_mapping(x):
    return isinstance(x, _abc.Mapping)


def is_nested(seq):
    """Whether ``seq`` is a nest of other values (a list, tuple, namedtuple,
    mapping or other non-string sequence), as ``tf.nest.is_nested``.

    >>> import eagertape.tf as tf
    >>> tf.nest.is_nested([]), tf.nest.is_nested(None), tf.nest.is_nested("ab")
    (True, False, False)
    """
    if isinstance(seq, (str, bytes, bytearray)):
        return False
    if isinstance(seq, (list, tuple, _abc.Mapping, _abc.MappingView)):
        # A TensorShape is a tuple in eagertape, an atom in TF.
        from ..extend import TensorShape
        return not isinstance(seq, TensorShape)
    return isinstance(seq, _abc.Sequence)


def _children(x):
    if _is_mapping(x):
        return [x[k] for k in _sorted_keys(x)]
    return list(x)


def _sorted_keys(mapping):
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys (the keys of "
                        f"{type(mapping).__name__} {list(mapping)!r:.80} do not sort)") from None


def flatten(structure, expand_composites=False):
    """The atoms of ``structure``, depth first, mappings in sorted key order.

    >>> import eagertape.tf as tf
    >>> tf.nest.flatten([1, (2, None), {"y": 3, "x": 4}])
    [1, 2, None, 4, 3]
    """
    out = []
    _flatten_into(structure, out)
    return out


def _flatten_into(x, out):
    if is_nested(x):
        for c in _children(x):
            _flatten_into(c, out)
    else:
        out.append(x)


def _sequence_like(instance, args):
    """A structure of ``instance``'s kind holding ``args`` (in flatten order)."""
    if _is_mapping(instance):
        by_key = dict(zip(_sorted_keys(instance), args))
        if isinstance(instance, _abc.MutableMapping) and type(instance).__name__ == "defaultdict":
            out = type(instance)(instance.default_factory)
            for k in instance:
                out[k] = by_key[k]
            return out
        return type(instance)((k, by_key[k]) for k in instance)
    if _is_namedtuple(instance):
        return type(instance)(*args)
    if isinstance(instance, (list, tuple)):
        return type(instance)(args) if type(instance) in (list, tuple) else \
            _rebuilt(instance, args)
    return list(args)      # a view, range, deque...: TF gives a list too


def _rebuilt(instance, args):
    try:
        return type(instance)(args)
    except TypeError:
        return list(args) if isinstance(instance, list) else tuple(args)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``flat_sequence`` arranged as ``structure`` (the inverse of ``flatten``).

    >>> import eagertape.tf as tf
    >>> tf.nest.pack_sequence_as({"b": None, "a": [None]}, [1, 2])
    {'b': 2, 'a': [1]}
    """
    if not is_nested(flat_sequence):
        raise TypeError(f"Attempted to pack value:\n  {flat_sequence!r:.200}\nwhich is not a "
                        "sequence (flat_sequence must be a list)")
    flat = list(flat_sequence)
    if not is_nested(structure):
        if len(flat) != 1:
            raise ValueError(f"The target structure is of type `{type(structure)}`\n  "
                             f"{structure!r:.200}\nHowever the input is a sequence "
                             f"({type(flat_sequence)}) of length {len(flat)}.\n  "
                             f"{flat_sequence!r:.200}\nnest cannot guarantee that it is safe "
                             "to map one to the other.")
        return flat[0]
    n = len(flatten(structure))
    if n != len(flat):
        raise ValueError(f"Could not pack sequence. Structure had {n} atoms, but "
                         f"flat_sequence had {len(flat)} items.  Structure: "
                         f"{structure!r:.200}, flat_sequence: {flat_sequence!r:.200}.")
    return _pack(structure, iter(flat))


def _pack(structure, it):
    if not is_nested(structure):
        return next(it)
    return _sequence_like(structure, [_pack(c, it) for c in _children(structure)])


def _describe(x):
    return f"type={type(x).__name__} str={x!r:.200}"


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raise ValueError unless ``nest1`` and ``nest2`` nest alike (the same
    lengths, the same dict keys), and, with ``check_types``, TypeError unless
    their sequences are of the same types (namedtuples alike by name and fields,
    any two mappings alike).

    >>> import eagertape.tf as tf
    >>> tf.nest.assert_same_structure([1, (2, 3)], ["a", ("b", "c")])
    """
    _same_structure(nest1, nest2, check_types, nest1, nest2)


def _mismatch(cls, detail, whole1, whole2):
    return cls("The two structures don't have the same nested structure.\n\n"
               f"First structure: {_describe(whole1)}\n\nSecond structure: "
               f"{_describe(whole2)}\n\nMore specifically: {detail}")


def _same_structure(a, b, check_types, whole1, whole2):
    na, nb = is_nested(a), is_nested(b)
    if na != nb:
        seq, atom = (a, b) if na else (b, a)
        raise _mismatch(ValueError, f'Substructure "{_describe(seq)}" is a sequence, while '
                        f'substructure "{_describe(atom)}" is not', whole1, whole2)
    if not na:
        return
    if check_types and type(a) is not type(b):
        alike = (_is_mapping(a) and _is_mapping(b)) or (
            _is_namedtuple(a) and _is_namedtuple(b) and type(a).__name__ == type(b).__name__
            and type(a)._fields == type(b)._fields)
        if not alike:
            raise _mismatch(TypeError, f"The two namedtuples don't have the same sequence "
                            f"type. First structure {_describe(a)} has type "
                            f"{type(a).__name__}, while second structure {_describe(b)} has "
                            f"type {type(b).__name__}", whole1, whole2)
    if _is_mapping(a) and _is_mapping(b) and set(a) != set(b):
        raise _mismatch(ValueError, "The two dictionaries don't have the same set of keys. "
                        f"First structure has keys {sorted(map(repr, a))}, while second "
                        f"structure has keys {sorted(map(repr, b))}", whole1, whole2)
    ca, cb = _children(a), _children(b)
    if len(ca) != len(cb):
        raise _mismatch(ValueError, "The two structures don't have the same number of "
                        f"elements. First structure: {_describe(a)}. Second structure: "
                        f"{_describe(b)}", whole1, whole2)
    for x, y in zip(ca, cb):
        _same_structure(x, y, check_types, whole1, whole2)


def map_structure(func, *structure, **kwargs):
    """``func`` applied to the atoms of the structures (which must nest alike),
    the results in the first structure's form.

    >>> import eagertape.tf as tf
    >>> tf.nest.map_structure(lambda a, b: a + b, [1, (2,)], [10, (20,)])
    [11, (22,)]
    """
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func!r}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    kwargs.pop("expand_composites", None)
    if kwargs:
        raise ValueError("Only valid keyword arguments are `check_types` and "
                         f"`expand_composites`, not: `{'`, `'.join(kwargs)}`")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*xs) for xs in zip(*flats)])


def flatten_with_joined_string_paths(structure, separator="/", expand_composites=False):
    """``(path, atom)`` pairs in ``flatten``'s order, each path the keys and
    indices down to the atom joined by ``separator``.

    >>> import eagertape.tf as tf
    >>> tf.nest.flatten_with_joined_string_paths({"a": [5, 6]})
    [('a/0', 5), ('a/1', 6)]
    """
    out = []

    def walk(x, path):
        if not is_nested(x):
            out.append((separator.join(str(p) for p in path), x))
            return
        keys = _sorted_keys(x) if _is_mapping(x) else (
            type(x)._fields if _is_namedtuple(x) else range(len(_children(x))))
        for k, c in zip(keys, _children(x)):
            walk(c, path + (k,))
    walk(structure, ())
    return out
