"""A model without ``build`` first called eagerly: Keras tries to build it by
running its ``call`` symbolically (``compute_output_spec``; on TF, in a scratch
``FuncGraph``). A sublayer whose ``build`` makes a ``tf.Variable`` from a tensor
computed there fails on TF (``initial_value ... could not be lifted out of a
tf.function``); Keras takes that silently as "build it in the eager call": the
sublayer's ``build`` runs twice (its first tensors thrown away), the model is
marked built with no build config, and nothing is warned. The census program
intro_to_modules_guide draws its random values from one NumPy generator, so the
extra draw of TF's failed build is what its later values show.

Each program runs in TF and through eagertape (tests/test_keras.py's runner).
"""
import pytest

from test_keras import _same_as_tf

pytest.importorskip("keras")


def test_a_sublayer_variable_made_from_a_tensor_in_the_symbolic_build_is_made_again_eagerly():
    _same_as_tf("""
    import warnings
    draws = []
    def normal(shape):           # a generator the program owns, drawn in build
        draws.append(shape)
        return tf.constant(np.full(shape, float(len(draws)), np.float32))
    class FlexibleDense(tf.keras.layers.Layer):
        def __init__(self, out_features, **kwargs):
            super().__init__(**kwargs)
            self.out_features = out_features
        def build(self, input_shape):
            self.w = tf.Variable(normal([input_shape[-1], self.out_features]), name="w")
            self.b = tf.Variable(tf.zeros([self.out_features]), name="b")
        def call(self, inputs):
            return tf.matmul(inputs, self.w) + self.b
    class MySequentialModel(tf.keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense_1 = FlexibleDense(out_features=3)
            self.dense_2 = FlexibleDense(out_features=2)
        def call(self, x):
            return self.dense_2(self.dense_1(x))
    model = MySequentialModel()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = model(tf.constant([[2.0, 2.0, 2.0]]))
    emit("y", y)
    emit("draws", [float(len(d)) for d in draws])     # TF: dense_1 twice, then dense_2
    emit("w", [model.dense_1.w, model.dense_2.w])
    emit("built", float(model.built))
    emit("build_config", float(model.get_build_config() is None))
    emit("warnings", float(len(caught)))
    """)


def test_a_sublayer_variable_made_from_values_is_kept_by_the_symbolic_build():
    # From a NumPy value (TF converts it in init_scope): the symbolic build succeeds,
    # each sublayer is built once, and the model has a build config.
    _same_as_tf("""
    builds = []
    class FromNumpy(tf.keras.layers.Layer):
        def build(self, input_shape):
            builds.append(1)
            self.w = tf.Variable(np.ones([input_shape[-1], 2], np.float32))
        def call(self, inputs):
            return tf.matmul(inputs, self.w)
    class Model(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.inner = FromNumpy()
        def call(self, x):
            return self.inner(x) * 2.0
    model = Model()
    emit("y", model(tf.constant([[1.0, 2.0, 3.0]])))
    emit("builds", float(len(builds)))
    emit("build_config", float(model.get_build_config() is None))
    """)
