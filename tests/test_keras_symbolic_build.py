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


# Keras's RandomCrop (a keras.io ShiftViT's augmentation, census kio_shiftvit) crops in
# training by slicing at a random start, a tensor when traced: in the symbolic build of
# a model whose call meets it (Keras runs it in training there), in a tf.function, in
# an export's serve. TF's graph slices at it; JAX's slicing refused a traced start
# ("Slice entries must be static integers"): the symbolic build failed, which left the
# model to its eager call (sublayers built on the uncropped shape, their initial
# values drawn in another order, no build config: model.export's "The model provided
# has never called"), and a traced crop raised.
_CROPPING_MODEL = """
draws = []
def init(shape, dtype=None):      # a generator the program owns (the census's NumPy)
    draws.append(list(shape))
    return tf.constant(np.random.RandomState(len(draws)).randn(*shape).astype("float32"))
class Seen(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.size = tuple(input_shape[1:3])
        self.w = self.add_weight(shape=(input_shape[-1], 2), initializer=init)
    def call(self, x):
        return tf.matmul(x[:, :self.size[0], :self.size[1]], self.w)
class Cropping(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.aug = tf.keras.Sequential([tf.keras.layers.RandomCrop(4, 4),
                                        tf.keras.layers.Rescaling(0.5)])
        self.seen = Seen()
        self.dense = tf.keras.layers.Dense(3, kernel_initializer=init)
    def call(self, x):
        return self.dense(tf.reduce_mean(self.seen(self.aug(x)), axis=[1, 2]))
tf.keras.utils.set_random_seed(0)
x = tf.constant(np.arange(2 * 6 * 6 * 3, dtype=np.float32).reshape(2, 6, 6, 3) / 100)
"""


def test_a_call_slicing_at_a_traced_start_is_built_symbolically_as_in_tf():
    _same_as_tf(_CROPPING_MODEL + """
model = Cropping()
y = model(x, training=False)
emit("y", y)
emit("size", model.seen.size)
emit("build_config", model.get_build_config()["input_shape"])
emit("seen_w", model.seen.w)
emit("dense_kernel", model.dense.kernel)
emit("draws", draws)
""")


def test_a_functional_call_slicing_at_a_traced_start_has_tfs_output_shape():
    # (a None batch size: the shapes are found at two sizes, a size that differs None)
    _same_as_tf(_CROPPING_MODEL + """
model = Cropping()
out = model(tf.keras.Input((6, 6, 3)))
emit("shape", [-1 if d is None else d for d in out.shape])
emit("size", model.seen.size)
""")


def test_random_crop_in_training_crops_a_window_in_a_tf_function():
    # (its start is drawn by each library's generator: the window's place is not
    # compared, only that it is one)
    _same_as_tf("""
crop = tf.keras.layers.RandomCrop(4, 3)
x = np.arange(2 * 6 * 5 * 2, dtype=np.float32).reshape(2, 6, 5, 2)
y = tf.function(lambda t: crop(t, training=True))(tf.constant(x)).numpy()
emit("shape", y.shape)
emit("windows", [float(any(np.array_equal(y, x[:, i:i + 4, j:j + 3])
                           for i in range(3) for j in range(3)))])
""")
