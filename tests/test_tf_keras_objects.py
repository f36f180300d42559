"""One world of objects, as in TF, against real TensorFlow (issues 37/38's census gaps):

- a Variable's assignment of a value of another dtype: refused by TF's rule, and cast
  to the Variable's dtype where NumPy behaviour (tf.experimental.numpy's switch)
  promotes the pair to it (census tf_numpy_type_promotion);
- what Keras computes reaches the program as the facade's Tensor where TF's Keras
  gives a tf.Tensor: a layer's attributes made in adapt or build, the public
  keras.ops / activations / losses functions called on NumPy values (census
  keras_regression);
- a Keras model first called (its weights made) inside a tf.function that also
  applies an optimizer's gradients (census quickstart_advanced).

TF's NumPy-behaviour switch is per process with no way back, and Keras has one
backend a process: TF's sides run in subprocesses (cached by tf_oracle.cached), the
Keras programs in both libraries through tests/program_server.py.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import eagertape.tf as tf
import test_keras
import tf_oracle

tnp = tf.experimental.numpy

# -- assignment of another dtype, with and without NumPy behaviour ---------------
# (Variable dtype, value dtype, value): every pair is tried with assign, assign_add
# and assign_sub, a tensor value and a NumPy value of the value dtype. (Not here: a
# NumPy float array that loses its fraction as an integer, which TF truncates and
# eagertape's conversion refuses, Variables or not.)
_PAIRS = [("int32", "int16", 5), ("int32", "int64", 5), ("float32", "float64", 1.5),
          ("float32", "int32", 2), ("int32", "float32", 2.0), ("int32", "float64", 3.0), ("float32", "float16", 1.5),
          ("int32", "bool", True), ("float32", "complex64", 1), ("int64", "int32", 7),
          ("float64", "float32", 0.25), ("int32", "uint8", 3), ("float32", "bfloat16", 0.5)]
_PY = [("int32", 5), ("int32", 2.5), ("float32", 2), ("float32", 1.5)]
_MODES = [None, "legacy", "all", "safe"]

_TABLE = """
import json, sys
import numpy as np
{imports}
PAIRS, PY, MODES = {pairs!r}, {py!r}, {modes!r}
def outcome(f):
    try:
        r = f()
        return [str(r.dtype.name), np.asarray(r.numpy()).tolist()]
    except (TypeError, ValueError) as e:
        return "raises"
out = {{}}
for mode in MODES:
    if mode is not None:
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode=mode)
    for vd, d, val in PAIRS:
        for op in ("assign", "assign_add", "assign_sub"):
            for kind in ("tensor", "numpy"):
                v = tf.Variable(tf.constant(10, vd))
                x = tf.constant(val, d) if kind == "tensor" else np.asarray(val).astype(
                    tf.as_dtype(d).as_numpy_dtype)
                out[f"{{mode}} {{op}} {{vd}}<-{{kind}} {{d}}"] = outcome(
                    lambda: getattr(v, op)(x))
    for vd, val in PY:
        v = tf.Variable(tf.constant(10, vd))
        out[f"{{mode}} assign_add {{vd}}<-python {{val!r}}"] = outcome(lambda: v.assign_add(val))
print("@@" + json.dumps(out))
"""


def _table_code(lib):
    imports = ("import tensorflow as tf\nimport tensorflow.experimental.numpy as tnp"
               if lib == "tf" else
               "import eagertape.tf as tf\ntnp = tf.experimental.numpy")
    return _TABLE.format(imports=imports, pairs=_PAIRS, py=_PY, modes=_MODES)


def _run_table(lib, mode="eager"):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="",
               EAGERTAPE_EXECUTION_MODE=mode)
    r = subprocess.run([sys.executable, "-c", _table_code(lib)], capture_output=True,
                       text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1]
    return json.loads(line[2:])


@pytest.mark.subprocess
@pytest.mark.parametrize("mode", ["eager", "fused"])
def test_assignment_of_another_dtype_is_tfs_with_and_without_numpy_behavior(mode):
    # TF casts a value to the Variable's dtype where NumPy behaviour ("all" or
    # "safe") promotes the pair to it (int16 into int32, int32 into float32 in
    # "all"), refuses the rest ("Variable dtype is immutable"; "safe"'s own
    # TypeError) and, without it (or in "legacy"), refuses every tensor of
    # another dtype while NumPy values are cast.
    tf_oracle.require()
    want = tf_oracle.cached("tf_keras_objects_assign_table", (_table_code("tf"),),
                            lambda: _run_table("tf"))
    got = _run_table("eagertape", mode)
    assert got.keys() == want.keys()
    cast = [k for k in want if want[k] != "raises" and "<-tensor" in k and k.split()[0]
            in ("all", "safe")]
    assert len(cast) >= 10          # the table holds casts, not only refusals
    diff = {k: (want[k], got[k]) for k in want if want[k] != got[k]}
    assert not diff, f"(TF, eagertape) where they differ: {diff}"


@pytest.fixture
def numpy_behavior():
    yield
    tnp._disable_numpy_behavior()


def test_numpy_behavior_casts_a_promotable_delta(numpy_behavior):
    # The guide's cell (census tf_numpy_type_promotion), in process.
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    a = tf.Variable(10, dtype=tf.int32)
    r = a.assign_add(tf.constant(5, tf.int16))
    assert (r.dtype, int(r)) == (tf.int32, 15)
    c = tf.constant(tf.constant(5, tf.int16), tf.float32)
    assert (c.dtype, float(c)) == (tf.float32, 5.0)
    with pytest.raises(TypeError, match="delta"):
        a.assign_add(tf.constant(5, tf.int64))          # int64 does not promote to int32
    with pytest.raises(TypeError, match="delta"):
        a.assign_add(2.5)                               # a float does not either
    assert int(a) == 15


def test_numpy_behavior_in_a_function(numpy_behavior):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        v.assign_add(x)
        return v.read_value()
    assert float(f(tf.constant(2, tf.int32))) == 3.0
    assert float(f(tf.constant(4, tf.int32))) == 7.0


def test_without_numpy_behavior_another_dtype_is_refused():
    v = tf.Variable(10)
    with pytest.raises(TypeError, match="argument `delta` has dtype int16"):
        v.assign_add(tf.constant(5, tf.int16))
    assert int(v.assign_add(np.int16(3))) == 13         # a NumPy value is converted


# -- Keras programs, in TF and through the facade --------------------------------
_PRELUDE = """
import json, sys
import numpy as np
if sys.argv[1] == "tf":
    import tensorflow as tf
else:
    import eagertape.tf as tf
_out = {}
def emit(name, value):
    _out[name] = value
def kind(x):
    # what a value is, in words both libraries share
    if isinstance(x, (list, tuple)):
        return [kind(v) for v in x]
    if isinstance(x, dict):
        return {k: kind(v) for k, v in x.items()}
    if isinstance(x, tf.Variable):
        return "Variable"
    if isinstance(x, tf.Tensor):
        return "Tensor"
    return type(x).__module__.split(".")[0] + "." + type(x).__name__
def value(x):
    return np.asarray(x).tolist()
def weights_like(model, seed=0):
    rs = np.random.RandomState(seed)
    return [(rs.randn(*w.shape) * 0.5).astype(w.dtype) for w in model.get_weights()]
"""
def _run(program, which, mode="eager"):
    return test_keras._run(program, which, prelude=_PRELUDE, EAGERTAPE_EXECUTION_MODE=mode)


def _same_as_tf(program, mode="eager", rtol=2e-4, atol=2e-5):
    tf_oracle.require()
    want = tf_oracle.cached("keras-objects-program", (_PRELUDE, program, _run),
                            lambda: _run(program, "tf"))
    got = _run(program, "eagertape", mode)
    assert got.keys() == want.keys()
    for k in want:
        tf_oracle.assert_same(tf_oracle.normalise(_plain(got[k])),
                              tf_oracle.normalise(_plain(want[k])), rtol=rtol, atol=atol,
                              where=k)
    return got


def _plain(x):
    # numbers as float arrays, words as they are
    if isinstance(x, list) and x and all(isinstance(v, (int, float)) for v in x) or \
            isinstance(x, (int, float)) and not isinstance(x, bool):
        return np.asarray(x, dtype=float)
    if isinstance(x, list) and x and all(isinstance(v, list) for v in x):
        try:
            return np.asarray(x, dtype=float)
        except (ValueError, TypeError):
            pass
    if isinstance(x, list):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


@pytest.mark.subprocess
@pytest.mark.parametrize("mode", ["eager", "fused"])
def test_a_model_first_built_inside_a_function_that_applies_gradients(mode):
    # The quickstart for experts (census quickstart_advanced): the model's weights are
    # made on the function's first trace (Keras builds them in a StatelessScope, whose
    # exit gives them their values: TF's init_scope), and so are the optimizer's
    # slots; that trace is made again, and the steps train the model as TF's do.
    _same_as_tf("""
    class MyModel(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.conv1 = tf.keras.layers.Conv2D(2, 3, activation="relu",
                                                kernel_initializer="ones")
            self.flatten = tf.keras.layers.Flatten()
            self.d1 = tf.keras.layers.Dense(4, activation="relu",
                                            kernel_initializer=tf.keras.initializers.Constant(0.05))
            self.d2 = tf.keras.layers.Dense(3, kernel_initializer=tf.keras.initializers.Constant(-0.1),
                                            bias_initializer="ones")

        def call(self, x):
            return self.d2(self.d1(self.flatten(self.conv1(x))))

    model = MyModel()
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = tf.keras.optimizers.Adam(0.01)
    train_loss = tf.keras.metrics.Mean()

    @tf.function
    def train_step(images, labels):
        with tf.GradientTape() as tape:
            predictions = model(images, training=True)
            loss = loss_object(labels, predictions)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        train_loss(loss)
        return loss

    rs = np.random.RandomState(0)
    x = rs.rand(4, 6, 6, 1).astype("float32")
    y = np.array([0, 1, 2, 1])
    emit("losses", [float(train_step(x, y)) for _ in range(3)])
    emit("mean", float(train_loss.result()))
    emit("iterations", int(optimizer.iterations))
    emit("weights", [value(w) for w in model.get_weights()])
    """, mode)


_KERAS_VALUES = """
import keras
rs = np.random.RandomState(0)
x = rs.rand(8, 3).astype("float32")
norm = tf.keras.layers.Normalization(axis=-1)
norm.adapt(x)
emit("adapted", [kind(norm.mean), kind(norm.variance)])
emit("mean", value(norm.mean.numpy()))
emit("variance", value(norm.variance.numpy()))
given = tf.keras.layers.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 4.0, 4.0])
given.build((None, 3))
emit("given", [kind(given.mean), value(given.mean.numpy())])
emit("normalized", [kind(norm(x)), value(norm(x[:2]).numpy())])
dense = tf.keras.layers.Dense(2)
model = tf.keras.Sequential([tf.keras.Input((3,)), norm, dense])
dense.set_weights(weights_like(dense, 1))
emit("calls", [kind(model(x)), kind(model.predict(x, verbose=0)),
               kind(model.predict_on_batch(x))])
emit("ops", [kind(tf.keras.ops.add(x, x)), kind(tf.keras.ops.mean(x)),
             kind(tf.keras.ops.split(x, 2)), kind(tf.keras.activations.relu(x - 0.5)),
             kind(tf.keras.losses.MSE(x, x * 2)), kind(keras.ops.sum(x)),
             kind(tf.keras.ops.convert_to_tensor(x)), kind(tf.keras.ops.shape(x))])
emit("op_values", [value(tf.keras.ops.mean(x, axis=0).numpy()),
                   value(tf.keras.activations.relu(x - 0.5).numpy()),
                   value(keras.ops.sum(x).numpy())])
metric = tf.keras.metrics.Mean()
metric.update_state([1.0, 2.0, 4.0])
emit("metric", [kind(metric.result()), float(metric.result().numpy())])

@tf.function
def f(t):
    return tf.keras.ops.add(t, tf.keras.ops.mean(x))
emit("in_function", [kind(f(tf.constant(1.0))), float(f(tf.constant(1.0)))])

class Centered(tf.keras.layers.Layer):
    def build(self, shape):
        self.center = tf.keras.ops.mean(x, axis=0)      # a constant made in build
    def call(self, t):
        return t - self.center
c = Centered()
emit("custom", [kind(c(x)), value(c(x[:1]).numpy()), kind(c.center)])
"""


@pytest.mark.subprocess
@pytest.mark.parametrize("mode", ["eager", "fused"])
def test_what_keras_computes_reaches_the_program_as_tfs_tensors(mode):
    # Census keras_regression: `normalizer.mean.numpy()` after adapt. What Keras keeps
    # on a layer, and what the public functions give on NumPy values, are TF's
    # tensors in TF's Keras: the facade's Tensors here, with TF's values.
    got = _same_as_tf(_KERAS_VALUES, mode)
    assert got["adapted"] == ["Tensor", "Tensor"]
    assert got["ops"][:7] == ["Tensor", "Tensor", ["Tensor", "Tensor"]] + ["Tensor"] * 4
    assert got["custom"][0] == got["custom"][2] == "Tensor"


@pytest.mark.subprocess
@pytest.mark.parametrize("mode", ["eager", "fused"])
def test_a_keras_weight_in_the_programs_expressions_is_a_tf_tensor(mode):
    # Census time_series, cell 100: `linear.layers[0].kernel[:, 0].numpy()`. An
    # operator on TF's Keras weight gives a tf.Tensor; Keras on JAX's gives a JAX
    # array (no .numpy()). In the program's own code the result is TF's tensor, with
    # TF's value, and a tape sees the read; Keras's code keeps its arrays.
    got = _same_as_tf("""
    layer = tf.keras.layers.Dense(2)
    layer.build((None, 3))
    layer.set_weights([np.arange(6, dtype="float32").reshape(3, 2) - 2.5,
                       np.array([0.5, -1.5], "float32")])
    k, b = layer.kernel, layer.bias
    x = tf.constant([[1.0, 2.0, 3.0]])
    exprs = {"slice": k[:, 0], "add": k + 1, "radd": 1 + k, "rmul": 2 * k, "neg": -k,
             "abs": abs(k), "gt": k > 0, "pow": b ** 2, "matmul": x @ k,
             "sub_tensor": k - tf.ones((3, 2)), "div": k / 2.0}
    emit("kinds", {n: kind(e) for n, e in exprs.items()})
    emit("values", {n: value(e.numpy()) for n, e in exprs.items()})
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(k[:, 0] * 3.0)
    emit("grad", value(tape.gradient(loss, k)))
    emit("call", value(layer(x)))
    """, mode)
    assert set(got["kinds"].values()) == {"Tensor"}


@pytest.mark.subprocess
def test_a_model_built_by_fit_or_predict_draws_each_initializer_once_as_tf():
    # A Sequential without an input shape is built by fit's symbolic run or predict's
    # call in a StatelessScope (Keras on JAX: its weights made there, their
    # initializers deferred, drawn at each read and at the scope's exit): each
    # initializer draws once, as TF's Keras draws when the weight is made in the
    # first step, so a program whose initializers share one generator gets TF's
    # weights. (A model first built inside a tf.function draws as TF's does: the
    # census's quickstart_advanced.)
    _same_as_tf("""
    from keras.src.initializers import random_initializers as ri
    draws = np.random.RandomState(5)
    def uniform(self, shape, dtype=None):
        return tf.keras.ops.convert_to_tensor(draws.uniform(-0.5, 0.5, shape).astype("float32"))
    ri.VarianceScaling.__call__ = uniform
    x = draws.rand(16, 3).astype("float32")
    y = x.sum(axis=1)
    norm = tf.keras.layers.Normalization(axis=-1)
    norm.adapt(x)
    model = tf.keras.Sequential([norm, tf.keras.layers.Dense(4, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    model.compile(loss="mean_absolute_error", optimizer=tf.keras.optimizers.SGD(0.01))
    history = model.fit(x, y, epochs=2, verbose=0, shuffle=False)
    emit("loss", history.history["loss"])
    emit("weights", [value(w) for w in model.get_weights()[3:]])
    emit("next_draw", float(draws.uniform()))
    # built by predict (a call in a StatelessScope on Keras on JAX)
    model = tf.keras.Sequential([norm, tf.keras.layers.Dense(2)])
    emit("predicted", value(model.predict(x[:3], verbose=0)))
    emit("after_predict", float(draws.uniform()))
    """)
