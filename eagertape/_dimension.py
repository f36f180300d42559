"""TF's ``Dimension``: one dimension of a shape (``TensorShape.dims`` holds them, as
TF 2's does; ``tf.compat.v1.Dimension``)."""


class Dimension:
    """``tf.compat.v1.Dimension``: one dimension of a TF 1 shape, its ``value`` an
    int or None (unknown); comparisons and arithmetic give None or an unknown
    Dimension where a value is unknown, as TF's.

    >>> import eagertape.tf as tf
    >>> d = tf.compat.v1.Dimension(16)
    >>> d.value, d.is_compatible_with(16), d.is_compatible_with(None), d + 1
    (16, True, True, Dimension(17))
    """

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        if value is None:
            self._value = None
            return
        if isinstance(value, (bytes, str, float)) or not hasattr(value, "__index__"):
            raise TypeError(f"Dimension value must be integer or None or have an __index__ "
                            f"method, got value '{value!r}' with type '{type(value)}'")
        self._value = int(value.__index__())
        if self._value < 0:
            raise ValueError(f"Dimension {self._value} must be >= 0")

    value = property(lambda self: self._value)

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __bool__(self):
        return bool(self._value)

    def __hash__(self):
        return hash(self._value)

    def _other(self, other):
        try:
            return as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented

    def __eq__(self, other):
        other = self._other(other)
        if other is NotImplemented:
            return other
        if self._value is None or other.value is None:
            return None
        return self._value == other.value

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is None or eq is NotImplemented else not eq

    def _cmp(self, other, op):
        other = as_dimension(other)
        if self._value is None or other.value is None:
            return None
        return op(self._value, other.value)

    def __lt__(self, other): return self._cmp(other, int.__lt__)
    def __le__(self, other): return self._cmp(other, int.__le__)
    def __gt__(self, other): return self._cmp(other, int.__gt__)
    def __ge__(self, other): return self._cmp(other, int.__ge__)

    def _arith(self, other, op, reverse=False):
        other = self._other(other)
        if other is NotImplemented:
            return other
        if self._value is None or other.value is None:
            return Dimension(None)
        a, b = (other.value, self._value) if reverse else (self._value, other.value)
        return Dimension(op(a, b))

    def __add__(self, o): return self._arith(o, int.__add__)
    def __radd__(self, o): return self._arith(o, int.__add__, True)
    def __sub__(self, o): return self._arith(o, int.__sub__)
    def __rsub__(self, o): return self._arith(o, int.__sub__, True)
    def __mul__(self, o): return self._arith(o, int.__mul__)
    def __rmul__(self, o): return self._arith(o, int.__mul__, True)
    def __floordiv__(self, o): return self._arith(o, int.__floordiv__)
    def __rfloordiv__(self, o): return self._arith(o, int.__floordiv__, True)
    def __mod__(self, o): return self._arith(o, int.__mod__)
    def __rmod__(self, o): return self._arith(o, int.__mod__, True)

    def is_compatible_with(self, other):
        other = as_dimension(other)
        return self._value is None or other.value is None or self._value == other.value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other):
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(other.value if self._value is None else self._value)


def as_dimension(value):
    """``value`` as a Dimension (a Dimension as it is)."""
    return value if isinstance(value, Dimension) else Dimension(value)
