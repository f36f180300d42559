"""Fused mode's pending graph: values that are known by shape and dtype now and
computed, all together as one program, when first needed."""


class Pending:
    """A value of a fused graph (eagertape._fused): its abstract value now, its
    array once the graph is run (``get``).

    Made only by ``_fused.pending``, field by field: graph and index (its place
    in the graph), aval ``(shape, dtype, weak_type)``, dtype (read by every
    recording tape), value (None until the graph runs).
    """

    __slots__ = ("graph", "index", "aval", "dtype", "value", "__weakref__")

    @property
    def shape(self): return self.aval[0]
    @property
    def weak_type(self): return self.aval[2]
    @property
    def ndim(self): return len(self.aval[0])

    def get(self):
        if self.value is None:
            self.graph.materialize()
        return self.value
