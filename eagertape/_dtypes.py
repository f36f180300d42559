"""Dtype predicates, each answered once per dtype (NumPy's ``issubdtype`` costs
microseconds, and the recording path asks per input)."""
import jax
import jax.numpy as jnp
import numpy as np

from ._cache import Table

_inexact = Table("dtype: inexact", 1024)
_complex = Table("dtype: complex", 1024)
_categories = Table("dtype: category", 1024)
_int_ranges = Table("dtype: int range", 1024)


def is_inexact(dtype):
    """Whether ``dtype`` is floating or complex (bfloat16 and JAX's other float types too)."""
    r = _inexact.get(dtype)
    if r is None:
        r = _inexact.put(dtype, bool(jax.dtypes.issubdtype(dtype, jnp.inexact)))
    return r


def is_complex(dtype):
    r = _complex.get(dtype)
    if r is None:
        r = _complex.put(dtype, bool(np.issubdtype(dtype, np.complexfloating)))
    return r


def category(dtype):
    """TF's kinds of values: 'b' bool, 'i' integer, 'f' floating (bfloat16 too),
    'c' complex, '?' other."""
    c = _categories.get(dtype)
    if c is None:
        d = np.dtype(dtype)
        if d == np.bool_:
            c = "b"
        elif np.issubdtype(d, np.integer):
            c = "i"
        elif np.issubdtype(d, np.complexfloating):
            c = "c"
        elif is_inexact(d):
            c = "f"
        else:
            c = "?"
        _categories.put(dtype, c)
    return c


def int_range(dtype):
    """``(min, max)`` of an integer dtype, as Python ints."""
    r = _int_ranges.get(dtype)
    if r is None:
        info = np.iinfo(dtype)
        r = _int_ranges.put(dtype, (int(info.min), int(info.max)))
    return r


# TF's DataType enum values (``DType.as_datatype_enum``), for the dtypes JAX has.
_ENUMS = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
          "string": 7, "complex64": 8, "int64": 9, "bool": 10, "bfloat16": 14, "uint16": 17,
          "complex128": 18, "float16": 19, "uint32": 22, "uint64": 23}


class DType:
    """A Tensor's dtype: a NumPy dtype with TF's ``tf.DType`` attributes.

    It equals, hashes as and converts to its NumPy dtype (``np.dtype(d)``, and
    anything that takes a dtype: NumPy, JAX, Keras), so it serves wherever a NumPy
    dtype does; TF's ``is_floating``, ``as_numpy_dtype``, ``min``, ``max``,
    ``real_dtype`` and the rest answer as TF's. One object per dtype.

    >>> import numpy as np
    >>> import eagertape.tf as tf
    >>> d = tf.constant([1.5]).dtype
    >>> d is tf.float32, d == np.float32, d.is_floating, d.as_numpy_dtype, d.min
    (True, True, True, <class 'numpy.float32'>, np.float32(-3.4028235e+38))

    It prints as TF's (``.name`` is the bare name):

    >>> d, str(d), d.name
    (tf.float32, "<dtype: 'float32'>", 'float32')
    """

    __slots__ = ("dtype",)

    def __new__(cls, dtype):
        if type(dtype) is DType:
            return dtype
        d = np.dtype(dtype)
        obj = _dtype_objects.get(d)
        if obj is None:
            obj = object.__new__(cls)
            obj.dtype = d        # what np.dtype(obj) and JAX read
            # setdefault: two threads meeting a dtype first still share one object.
            obj = _dtype_objects.setdefault(d, obj)
        return obj

    def __getattr__(self, name):
        # NumPy's attributes (kind, itemsize, type, char, str, ...).
        if name == "dtype":
            raise AttributeError(name)
        return getattr(self.dtype, name)

    def __eq__(self, other):
        if type(other) is DType:
            return self is other
        if isinstance(other, np.dtype):
            return self.dtype == other
        try:
            return self.dtype == np.dtype(getattr(other, "as_numpy_dtype", other))
        except (TypeError, ValueError):
            return False

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.dtype)

    def __reduce__(self):
        return DType, (self.dtype,)

    def __repr__(self):
        return f"tf.{self.name}"              # as TF's

    def __str__(self):
        return f"<dtype: {self.name!r}>"      # as TF's (f-strings too)

    @property
    def name(self):
        # TF's string tensors hold Python bytes objects (NumPy dtype object, as TF's
        # numpy() gives them): the facade's host-only string tensors.
        return "string" if self.dtype.kind == "O" else self.dtype.name
    @property
    def as_numpy_dtype(self): return object if self.dtype.kind == "O" else self.dtype.type
    @property
    def base_dtype(self): return self
    @property
    def real_dtype(self):
        return DType(np.float32 if self.dtype == np.complex64 else np.float64) \
            if self.is_complex else self
    @property
    def is_floating(self): return category(self.dtype) == "f"
    @property
    def is_complex(self): return category(self.dtype) == "c"
    @property
    def is_integer(self): return category(self.dtype) == "i"
    @property
    def is_unsigned(self): return self.dtype.kind == "u"
    @property
    def is_bool(self): return self.dtype == np.bool_
    @property
    def is_quantized(self): return False
    @property
    def is_numpy_compatible(self): return True
    @property
    def size(self): return self.dtype.itemsize
    @property
    def as_datatype_enum(self): return _ENUMS.get(self.name, 0)

    @property
    def min(self):
        """The smallest value of the dtype (TF: floats' lowest, not their tiniest)."""
        return self._limit("min")

    @property
    def max(self):
        """The largest value of the dtype."""
        return self._limit("max")

    @property
    def limits(self):
        """``(min, max)``."""
        return self.min, self.max

    def _limit(self, which):
        c = category(self.dtype)
        if c == "f":
            return getattr(jnp.finfo(self.dtype), which)
        if c == "i":
            return int_range(self.dtype)[0 if which == "min" else 1]
        raise TypeError(f"Cannot find {'minimum' if which == 'min' else 'maximum'} value "
                        f"of {self.dtype.name}.")

    def is_compatible_with(self, other):
        """Whether ``other`` (a dtype or name) is this dtype."""
        return self == other


_dtype_objects = {}       # np.dtype -> its DType (a handful: never evicted)


def tf_dtype(d):
    """The DType of a NumPy dtype (``Tensor.dtype``)."""
    obj = _dtype_objects.get(d)
    return obj if obj is not None else DType(d)
