"""Generic wrapping of a JAX namespace: every public callable becomes recorded.

Only the exceptions are listed; everything else (including functions taking
sequences of Tensors, such as stack or einsum, and functions with integer or
bool results, which the tape treats as constants by their dtype) goes through
the one primitive wrapper unchanged.
"""
import types

import jax
import jax.numpy as jnp

from ._primitive import primitive
from ._tensor import is_tensor_like

# Queries that return Python values, dtypes or functions: called on the raw
# values, nothing to record.
PASSTHROUGH = frozenset({
    "shape", "ndim", "size", "result_type", "iscomplexobj", "isrealobj", "isscalar",
    "issubdtype", "can_cast", "promote_types", "isdtype", "iterable", "get_printoptions",
    "printoptions", "set_printoptions", "vectorize", "frompyfunc", "broadcast_shapes",
})

# Floating results TensorFlow registers no gradient for (Floor, Ceil, Round, Rint,
# FloorDiv): constants for the tape, so their sources get None rather than 0.
CONSTANT_OUTPUT = frozenset({
    "floor", "ceil", "round", "around", "rint", "trunc", "fix", "floor_divide",
})

_UFUNC_METHODS = ("reduce", "accumulate", "outer", "reduceat", "at")


def _raw(fn):
    def unwrapped(*args, **kwargs):
        args, kwargs = jax.tree_util.tree_map(lambda x: x._value if is_tensor_like(x) else x,
                                              (args, kwargs), is_leaf=is_tensor_like)
        return fn(*args, **kwargs)
    unwrapped.__name__ = getattr(fn, "__name__", "function")
    unwrapped.__doc__ = getattr(fn, "__doc__", None)
    unwrapped.__wrapped__ = fn
    return unwrapped


def wrap_namespace(src, dst, *, skip=()):
    """Fill the dict ``dst`` with recorded versions of ``src``'s public names."""
    names = []
    for name in dir(src):
        if name.startswith("_") or name in skip:
            continue
        obj = getattr(src, name)
        if isinstance(obj, types.ModuleType):
            continue
        if isinstance(obj, type) or not callable(obj):
            dst[name] = obj                       # dtypes, classes, constants (pi, newaxis)
        elif name in PASSTHROUGH:
            dst[name] = _raw(obj)
        else:
            w = primitive(obj, constant_output=name in CONSTANT_OUTPUT, name=name, jit=True)
            if isinstance(obj, jnp.ufunc):
                for m in _UFUNC_METHODS:
                    if hasattr(obj, m):
                        setattr(w, m, primitive(getattr(obj, m), name=f"{name}.{m}", jit=True))
            dst[name] = w
        names.append(name)
    return names
