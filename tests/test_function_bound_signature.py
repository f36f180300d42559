"""A ``tf.function`` method looked up on its object shows the signature of the method
bound to it, as TF's: ``inspect.signature(obj.f)`` is ``(x)``, not ``(self, x)``.
Keras 3's ``Layer.__call__`` binds its inputs by that signature (census
effective_tf2_guide, cell 26: a Model whose ``call`` is a ``tf.function``)."""
import gc
import inspect
import weakref

import tf_oracle
from test_keras import _same_as_tf


def _signatures(tf):
    class A:
        @tf.function
        def f(self, x, y=2):
            return x * y

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def g(self, x):
            return x + 1.0

        @classmethod
        @tf.function
        def c(cls, x, *rest, k=1):
            return x

        @staticmethod
        @tf.function
        def s(x, z=3):
            return x

        def m(self, q, /, r):
            return q

    @tf.function
    def h(a, *, k=1):
        return a

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def si(a):
        return a

    a = A()
    shown = {name: str(inspect.signature(o)) for name, o in [
        ("A.f", A.f), ("a.f", a.f), ("A.g", A.g), ("a.g", a.g), ("A.c", A.c), ("a.c", a.c),
        ("a.s", a.s), ("h", h), ("si", si), ("function(a.m)", tf.function(a.m))]}
    # The signature binds as the bound method's: one argument, not self's.
    shown["bound"] = str(inspect.signature(a.f).bind(1).arguments)
    shown["unwrapped"] = str(inspect.signature(inspect.unwrap(a.f)))
    shown["names"] = [a.f.__name__, a.f.__qualname__, a.g.__name__, a.g.__qualname__]
    values = [a.f(tf.constant(1.5)), a.f(tf.constant(1.5), y=3), a.g(tf.constant([1.0, 2.0])),
              A.c(tf.constant(4.0))]
    return shown, values


def test_a_bound_tf_function_method_shows_tfs_signature():
    import eagertape.tf as tf

    tf_oracle.check(_signatures, rtol=0, atol=0, dict_order=True)
    # (the check compares the strings with TF's; this says what they are)
    shown, _ = _signatures(tf)
    assert shown["a.f"] == "(x, y=2)" and shown["A.f"] == "(self, x, y=2)"
    assert shown["a.g"] == "(x)" and shown["a.c"] == "(x, *rest, k=1)"


def test_the_bound_function_holds_its_object_weakly():
    import eagertape.tf as tf

    class A:
        @tf.function
        def f(self, x):
            return x + 1.0

    a = A()
    assert str(inspect.signature(a.f)) == "(x)"
    assert float(a.f(tf.constant(1.0))) == 2.0
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None


def test_a_keras_model_whose_call_is_a_tf_function_method():
    # Census effective_tf2_guide's DynamicRNN: Layer.__call__ binds the input by
    # inspect.signature(self.call); with (self, input_data) it raised TypeError.
    _same_as_tf("""
    class Scaled(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(3, kernel_initializer="ones")

        @tf.function(input_signature=[tf.TensorSpec([None, None, 2], tf.float32)])
        def call(self, input_data):
            return self.dense(tf.reduce_sum(input_data, axis=1)) * 2.0

    model = Scaled()
    x = np.arange(12, dtype="float32").reshape(2, 3, 2) / 10.0
    emit("out", model(x))
    emit("out_again", model(tf.constant(x[:, :2])))
    """)


def _defaults(tf):
    traces = []

    @tf.function(input_signature=[tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.int32)])
    def f(a, b=64):
        traces.append(1)
        return a + b

    class Tiles(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32),
                                      tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.int32)])
        def __call__(self, x, n, k=4):
            return tf.reduce_sum(x) * tf.cast(n + k, tf.float32)

    values = [f(tf.constant(1)), f(tf.constant(2), 3), f(tf.constant(5), b=tf.constant(7)),
              Tiles()(tf.constant([1.0, 2.0]), tf.constant(2))]
    try:
        f()
        missing = "no error"
    except TypeError as e:
        missing = "missing a required argument" in str(e)
    return values, len(traces), missing


def test_a_parameter_left_out_takes_its_default_under_an_input_signature():
    # TF binds the call to the Python signature first, then converts each argument as
    # its spec says: f(x) of f(a, b=64) with two specs is traced once, b a Tensor of
    # 64 (census deepdream, cell 34: TiledGradients' tile_size=64). eagertape raised
    # "missing a required argument".
    tf_oracle.check(_defaults, rtol=0, atol=0)
