"""``tf.experimental.ExtensionType``: the same programs run through TensorFlow 2.21 and
``eagertape.tf`` (tf_oracle), most of them cells of TF's extension-type guide
(site/en/guide/extension_type.ipynb in tensorflow/docs): the fields' checks and
conversions, the generated constructor, ``__eq__``, ``__validate__``, immutability,
``Spec``, ``tf.function``/``tf.cond``/``tf.while_loop``/``tf.map_fn`` with extension
values, the dispatch decorators, batchable types in ``tf.data``. An extension value
is compared by its fields (the oracle sees any other object as its class only)."""
import typing
from typing import List, Mapping, Optional, Tuple, Union

import pytest

import eagertape.tf as etf
import tf_oracle

tf_oracle.require()


def _masked(tf):
    class MaskedTensor(tf.experimental.ExtensionType):
        values: tf.Tensor
        mask: tf.Tensor

        def __validate__(self):
            self.values.shape.assert_is_compatible_with(self.mask.shape)
            assert self.mask.dtype.is_bool, "mask.dtype must be bool"
    return MaskedTensor


def _batchable(tf):
    class Network(tf.experimental.BatchableExtensionType):
        shape: tf.TensorShape
        work: tf.Tensor
        bandwidth: tf.Tensor

        def __init__(self, work, bandwidth):
            self.work = tf.convert_to_tensor(work)
            self.bandwidth = tf.convert_to_tensor(bandwidth)
            self.shape = self.work.shape[:-1].merge_with(self.bandwidth.shape[:-2])
    return Network


def F(v):
    """An extension value as its fields (nested ones too), for the oracle."""
    if hasattr(type(v), "_tf_extension_type_fields") or hasattr(v, "_type_spec") and \
            hasattr(type(v), "Spec"):
        out = {}
        for name in typing.get_type_hints(type(v)):
            out[name] = F(getattr(v, name))
        return (type(v).__name__, out)
    if isinstance(v, (list, tuple)) and not hasattr(v, "as_list"):
        return type(v)(F(x) for x in v)
    if hasattr(v, "items") and not isinstance(v, dict):
        return {k: F(x) for k, x in v.items()}
    return v


def fields(tf):
    MaskedTensor = _masked(tf)
    mt = MaskedTensor([[1, 2, 3], [4, 5, 6]], [[True, True, False], [True, False, True]])

    class Pencil(tf.experimental.ExtensionType):
        color: str = "black"
        has_erasor: bool = True
        length: tf.Tensor = 1.0

    class Player(tf.experimental.ExtensionType):
        name: str
        attributes: Mapping[str, tf.Tensor]
        nickname: Optional[str] = None
        shape: tf.TensorShape = [2]
        dtype: tf.DType = tf.int64
        sizes: Tuple[int, ...] = (1, 2)
        amount: Union[int, tf.Tensor] = 3

    p = Player("Anne", {"height": 8.3, "speed": [28, 1]}, amount=[1.5])
    return [F(mt), F(Pencil()), F(Pencil(length=0.5, color="blue")), F(p),
            type(p.attributes).__name__, p.shape, p.dtype]


def nested(tf):
    class Node(tf.experimental.ExtensionType):
        value: tf.Tensor
        children: Tuple["Node", ...] = ()

    class TensorGraph(tf.experimental.ExtensionType):
        num_nodes: tf.Tensor
        edge_src: tf.Tensor
        edge_dst: tf.Tensor

    class WithFeatures(TensorGraph):
        node_features: tf.Tensor

        def propagate(self, weight=1.0):
            updates = tf.gather(self.node_features, self.edge_src) * weight
            new = tf.tensor_scatter_nd_add(self.node_features,
                                           tf.expand_dims(self.edge_dst, 1), updates)
            return WithFeatures(self.num_nodes, self.edge_src, self.edge_dst, new)

    class Toy(tf.experimental.ExtensionType):
        name: str
        price: tf.Tensor

        def __init__(self, name, price, discount=0):
            self.name = name
            self.price = price * (1 - discount)

    g = WithFeatures(num_nodes=5, edge_src=[0, 4, 2, 2], edge_dst=[1, 3, 2, 1],
                     node_features=[10.0, 0.0, 2.0, 5.0, -1.0, 0.0])
    return [F(Node(3, [Node(5), Node(2, (Node(7),))])), F(g.propagate()),
            F(Toy("ball", 5.0, discount=0.2)), list(typing.get_type_hints(WithFeatures))]


def equality(tf):
    MaskedTensor = _masked(tf)
    a = MaskedTensor([1, 2], [True, False])
    b = MaskedTensor([[3, 4], [5, 6]], [[False, True], [True, True]])
    c = MaskedTensor([1, 3], [True, False])
    return [a == a, a == b, a == a.values, a == c, a != c, a != b,
            f"{a == b}", a == MaskedTensor([1, 2], [True, False])]


def _raises(fn, message=True):
    """The error ``fn`` raises: its class and (``message``) its first line, which
    TF's and eagertape's extension-type checks word alike."""
    try:
        fn()
    except Exception as e:      # noqa: BLE001  (the class and message are compared)
        return (type(e).__name__, (str(e).splitlines() or [""])[0] if message else "")
    return None


def errors(tf):
    MaskedTensor = _masked(tf)
    mt = MaskedTensor([1, 2, 3], [True, False, True])

    def mutate():
        mt.mask = [True, True, True]

    def delete():
        del mt.mask

    def assign():
        mt.mask[0] = False

    class Point(tf.experimental.ExtensionType):
        x: int
        y: float = 1.0
        z: Tuple[int, int] = (0, 0)

    def annotation():
        class Bad(tf.experimental.ExtensionType):
            x: list
        return Bad

    def unannotated():
        class Bad(tf.experimental.ExtensionType):
            x: int
            y = 3
        return Bad

    def reserved():
        class Bad(tf.experimental.ExtensionType):
            _tf_extension_type_x: int
        return Bad

    return [_raises(lambda: MaskedTensor([1, 2, 3], None)),
            _raises(lambda: MaskedTensor([1, 2, 3], [0, 1, 0])),
            _raises(lambda: MaskedTensor([1, 2, 3], [True, False])),
            _raises(lambda: MaskedTensor([1, 2, 3])),
            _raises(lambda: MaskedTensor([1], [True], [False])),
            _raises(mutate), _raises(delete), _raises(assign, message=False),
            _raises(lambda: Point(1.5)), _raises(lambda: Point(1, 2)),
            _raises(lambda: Point(1, z=(1, 2, 3))), _raises(lambda: Point(1, z=5)),
            _raises(annotation), _raises(unannotated), _raises(reserved),
            _raises(lambda: tf.experimental.ExtensionType())]


def specs(tf):
    class Player(tf.experimental.ExtensionType):
        name: tf.Tensor
        attributes: Mapping[str, tf.Tensor]

    anne = Player("Anne", {"height": 8.3, "speed": 28.1})
    spec = tf.type_spec_from_value(anne)
    made = Player.Spec(name=tf.TensorSpec([], tf.string),
                       attributes={"height": tf.TensorSpec([], tf.float32),
                                   "speed": tf.TensorSpec([], tf.float32)})
    other = Player.Spec(name=tf.TensorSpec([], tf.float32), attributes={})

    class Masked(tf.experimental.ExtensionType):
        values: tf.Tensor
        mask: tf.Tensor

        class Spec:
            def __init__(self, shape, dtype=tf.float32):
                self.values = tf.TensorSpec(shape, dtype)
                self.mask = tf.TensorSpec(shape, tf.bool)

            shape = property(lambda self: self.values.shape)

    return [repr(spec), repr(spec.name), spec == made, spec == other,
            spec.value_type is Player, repr(Masked.Spec([None, 2])), Masked.Spec([3]).shape,
            repr(tf.type_spec_from_value(tf.constant([[1.0]]))),
            tf.experimental.extension_type.as_dict(anne)["name"],
            _raises(lambda: Player.Spec(name=1.0, attributes={}))]


def functions(tf):
    class Pastry(tf.experimental.ExtensionType):
        sweetness: tf.Tensor
        chewiness: tf.Tensor
        kind: str = "cookie"

    traces = []

    @tf.function
    def combine(x: Pastry):
        traces.append(x.kind)
        return (x.sweetness + x.chewiness) / 2, Pastry(x.sweetness * 2, x.chewiness, x.kind)

    out = [combine(Pastry([1.2, 0.4], [0.8, 0.2])), combine(Pastry([1.0, 2.0], [3.0, 4.0])),
           combine(Pastry([1.0, 2.0], [3.0, 4.0], "cake")), combine(Pastry([1.0], [3.0]))]
    return [F(o) for o in out], traces, combine.experimental_get_tracing_count()


def signatures(tf):
    class Pastry(tf.experimental.ExtensionType):
        sweetness: tf.Tensor
        chewiness: tf.Tensor

    spec = Pastry.Spec(tf.TensorSpec([None]), tf.TensorSpec(2))

    @tf.function(input_signature=[spec])
    def sweeter(x: Pastry, delta=1.0):
        return Pastry(x.sweetness + delta, x.chewiness)

    @tf.function
    def combine(x):
        return (x.sweetness + x.chewiness) / 2

    cookie = Pastry([1.2, 0.4], [0.8, 0.2])
    cf = combine.get_concrete_function(Pastry.Spec(tf.TensorSpec([2]), tf.TensorSpec([2])))
    return [F(sweeter(cookie)), F(sweeter(Pastry([1.0, 2.0, 3.0], [0.8, 0.2]))), cf(cookie),
            _raises(lambda: sweeter(Pastry([1, 2], [3, 4])), message=False),
            _raises(lambda: cf(Pastry([1.0], [2.0])), message=False)]


def control_flow(tf):
    class MaskedTensor(tf.experimental.ExtensionType):
        values: tf.Tensor
        mask: tf.Tensor

        def with_values(self, new_values):
            return MaskedTensor(new_values, self.mask)

    a = MaskedTensor([1., 2, 3], [True, False, True])
    b = MaskedTensor([22., 33, 108, 55], [True, True, True, False])
    picked = tf.cond(tf.constant(False), lambda: a, lambda: b)
    looped = tf.while_loop(lambda i, _: i < 10,
                           lambda i, mt: (i + 1, mt.with_values(mt.values + 3 / 7)), [0, b])[1]

    @tf.function
    def fn(x, flag):
        if flag:
            x = MaskedTensor(x, tf.less(x, 0))
        else:
            x = MaskedTensor(x, tf.greater(x, 0))
        for _ in tf.range(5 if flag else 7):
            x = x.with_values(x.values + 1 / 2)
        return x

    return [F(picked), F(looped), F(fn(tf.constant([1., -2, 3]), tf.constant(True))),
            F(fn(tf.constant([1., -2, 3]), tf.constant(False)))]


def dispatch(tf):
    class MaskedTensor(tf.experimental.ExtensionType):
        values: tf.Tensor
        mask: tf.Tensor

        def with_default(self, default):
            return tf.where(self.mask, self.values, default)

    def convert(x):
        return x if isinstance(x, MaskedTensor) else MaskedTensor(x, tf.ones_like(x, tf.bool))

    out = []

    @tf.experimental.dispatch_for_api(tf.stack)
    def masked_stack(values: List[MaskedTensor], axis=0):
        return MaskedTensor(tf.stack([v.values for v in values], axis),
                            tf.stack([v.mask for v in values], axis))

    x = MaskedTensor([1, 2, 3], [True, True, False])
    y = MaskedTensor([4, 5, 6], [False, True, True])
    out.append(F(tf.stack([x, y])))
    out.append(F(tf.stack([x, y], axis=1)))
    out.append(_raises(lambda: tf.stack([x, tf.constant([4, 5, 6])]), message=False))
    tf.experimental.unregister_dispatch_for(masked_stack)
    out.append(_raises(lambda: tf.experimental.unregister_dispatch_for(masked_stack))[0])

    @tf.experimental.dispatch_for_api(tf.stack)
    def masked_stack_v2(values: List[Union[MaskedTensor, tf.Tensor]], axis=0):
        values = [convert(v) for v in values]
        return MaskedTensor(tf.stack([v.values for v in values], axis),
                            tf.stack([v.mask for v in values], axis))
    out.append(F(tf.stack([x, tf.constant([4, 5, 6]), x])))
    out.append(tf.stack([tf.constant([1]), tf.constant([2])]))

    @tf.experimental.dispatch_for_unary_elementwise_apis(MaskedTensor)
    def unary(api_func, x):
        return MaskedTensor(api_func(x.values), x.mask)

    @tf.experimental.dispatch_for_binary_elementwise_apis(
        Union[MaskedTensor, tf.Tensor], Union[MaskedTensor, tf.Tensor])
    def binary(api_func, x, y):
        x, y = convert(x), convert(y)
        return MaskedTensor(api_func(x.values, y.values), x.mask & y.mask)

    @tf.experimental.dispatch_for_api(tf.matmul)
    def masked_matmul(a: MaskedTensor, b, transpose_a=False, transpose_b=False,
                      adjoint_a=False, adjoint_b=False, a_is_sparse=False, b_is_sparse=False,
                      output_type=None, grad_a=False, grad_b=False, name=None):
        if isinstance(a, MaskedTensor):
            a = a.with_default(0)
        if isinstance(b, MaskedTensor):
            b = b.with_default(0)
        return tf.matmul(a, b, transpose_a, transpose_b)

    z = MaskedTensor([1, -2, -3], [True, False, True])
    w = MaskedTensor([[4], [5]], [[True], [False]])
    out += [F(tf.abs(z)), F(tf.ones_like(z, dtype=tf.float32)), F(tf.math.negative(z)),
            F(tf.math.add(z, w)), F(tf.maximum(z, tf.constant([0, 0, 0]))),
            F(tf.multiply(tf.constant([2, 2, 2]), z)), tf.abs(tf.constant([-1.5])),
            tf.matmul(MaskedTensor([[1., 2.], [3., 4.]], [[True, False], [True, True]]),
                      tf.constant([[1.], [1.]]))]
    for target in (masked_stack_v2, unary, binary, masked_matmul):
        tf.experimental.unregister_dispatch_for(target)
    out.append(_raises(lambda: tf.abs(z)) is not None)     # (TF: ValueError, here TypeError)
    return out


def batching(tf):
    Network = _batchable(tf)
    net1 = Network([5., 3, 8], [[0., 2, 0], [2, 0, 3], [0, 3, 0]])
    net2 = Network([3., 4, 2], [[0., 2, 2], [2, 0, 2], [2, 2, 0]])
    batch = Network(work=tf.stack([net1.work, net2.work]),
                    bandwidth=tf.stack([net1.bandwidth, net2.bandwidth]))

    def balance(network):
        delta = tf.expand_dims(network.work, -1) - tf.expand_dims(network.work, -2)
        delta /= 4
        delta = tf.maximum(tf.minimum(delta, network.bandwidth), -network.bandwidth)
        return Network(network.work + tf.reduce_sum(delta, -1), network.bandwidth)

    ds = tf.data.Dataset.from_tensor_slices(batch)
    rebatched = ds.batch(2)
    return [F(batch), [F(n) for n in ds], F(tf.map_fn(balance, batch)),
            [F(n) for n in rebatched], [F(n) for n in rebatched.unbatch()],
            repr(ds.element_spec), repr(rebatched.element_spec)]


def datasets(tf):
    class MaskedTensor(tf.experimental.BatchableExtensionType):
        values: tf.Tensor
        mask: tf.Tensor

        class Spec:
            def __init__(self, shape, dtype=tf.float32):
                self.values = tf.TensorSpec(shape, dtype)
                self.mask = tf.TensorSpec(shape, tf.bool)

    def gen():
        for i in range(2, 5):
            yield MaskedTensor(range(6), [j % i != 0 for j in range(6)])

    ds = tf.data.Dataset.from_generator(
        gen, output_signature=MaskedTensor.Spec(shape=[6], dtype=tf.int32))
    one = tf.data.Dataset.from_tensors(MaskedTensor([5], [True]))
    return [[F(v) for v in ds], [F(v) for v in ds.batch(2)],
            [F(v) for v in ds.batch(2).unbatch()], F(iter(one).next())]


CASES = {"fields": fields, "nested": nested, "equality": equality, "errors": errors,
         "specs": specs, "functions": functions, "signatures": signatures, "control_flow": control_flow,
         "dispatch": dispatch, "batching": batching, "datasets": datasets}

@pytest.mark.parametrize("name", CASES)
def test_extension_types_as_tensorflow(name):
    tf_oracle.check(CASES[name], errors="class")


def test_a_string_tensor_field_passes_through_a_function_as_any_string_argument():
    # A tf.function takes string tensors (tf/_traced_text.py), in an ExtensionType's
    # fields too; outside a function, and in tf.data, string fields are TF's.
    class Player(etf.experimental.ExtensionType):
        name: etf.Tensor
        height: etf.Tensor

    @etf.function
    def taller(p):
        return Player(p.name, p.height + 1.0)

    @etf.function
    def anonymous(p):
        return Player("<anonymous>", p.height)

    out = taller(Player("Anne", 8.0))
    assert (out.name.numpy(), float(out.height)) == (b"Anne", 9.0)
    out = anonymous(Player(7, 8.0))
    assert (out.name.numpy(), float(out.height)) == (b"<anonymous>", 8.0)
    ds = etf.data.Dataset.from_tensor_slices(Player(["a", "b"], [1.0, 2.0]))
    assert [(p.name.numpy(), float(p.height)) for p in ds] == [(b"a", 1.0), (b"b", 2.0)]
