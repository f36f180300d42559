"""``tf.keras`` is Keras 3 on JAX joined to the tape: TF-eager Keras programs run
through ``import eagertape.tf as tf`` and give TensorFlow's answers.

Each program runs twice, in a fresh process each (Keras has one backend per
process): once with real TensorFlow's ``tf.keras`` and once through the facade.
Weights are set from NumPy, so both start from the same values; every
``emit``-ted value is compared.
"""
import copy
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import program_server
import tf_oracle

pytest.importorskip("keras")

_PRELUDE = """
import json, sys
import numpy as np
if sys.argv[1] == "tf":
    import tensorflow as tf
else:
    import eagertape.tf as tf
_out = {}
def emit(name, value):
    if value is None:
        _out[name] = None
    elif isinstance(value, (list, tuple)):
        _out[name] = [None if v is None else np.asarray(v).tolist() for v in value]
    else:
        _out[name] = np.asarray(value).tolist()
def weights_like(model, seed=0):
    rs = np.random.RandomState(seed)
    return [(rs.randn(*w.shape) * 0.5).astype(w.dtype) for w in model.get_weights()]
"""


# What every program imports first (the prelude, then Keras): done once by the
# program server (tests/program_server.py), whose children run the programs.
_PRELOAD = {"tf": "import numpy, tensorflow as tf; tf.keras.layers",
            "eagertape": "import numpy, eagertape.tf as tf; tf.keras.layers"}


def _run(program, which, prelude=None, **env_vars):
    """A program (after ``prelude``, by default this module's) in TF or eagertape, in
    a child of a program server; what it emitted."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="", **env_vars)
    env.pop("KERAS_BACKEND", None)
    code = (prelude or _PRELUDE) + textwrap.dedent(program) + "\nprint('@@' + json.dumps(_out))\n"
    r = program_server.run(code, [which], preload=_PRELOAD[which], env=env, timeout=600)
    if r.returncode != 0:
        raise AssertionError(f"{which} failed:\n{r.stderr[-3000:]}")
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1]
    return json.loads(line[2:])


def _tf_run(program):
    """TF's run of a program: once for both execution modes, and kept across runs
    (tests/tf_oracle.py; the key: the program, the prelude, ``_run`` and TF's and
    Keras's versions)."""
    tf_oracle.require()
    return copy.deepcopy(tf_oracle.cached("keras-program", (_PRELUDE, program, _run),
                                          lambda: _run(program, "tf")))


def test_tfs_runs_are_kept_across_modes_and_runs():
    # A TF run is kept only where its key can be made: a lock or a live server
    # reachable from _run would make every program run in TF again, silently.
    digest = tf_oracle.cache_key("keras-program", (_PRELUDE, "emit('x', 1.0)", _run))
    assert digest != tf_oracle.cache_key("keras-program", (_PRELUDE, "emit('x', 2.0)", _run))


def _largest(x):
    if x is None:
        return 0.0
    if isinstance(x, list):
        return max((_largest(v) for v in x), default=0.0)
    return abs(float(x))


def _tree(x):
    """An emitted value as the oracle compares it: a list of lists (or of Nones, or of
    values of several shapes) is a structure, anything else an array of floats."""
    if x is None:
        return None
    if isinstance(x, list) and x and (isinstance(x[0], list) or x[0] is None):
        return ("list", [_tree(v) for v in x])
    try:
        arr = np.asarray(x, dtype=float)
    except ValueError:      # a list of values of several shapes (a scalar's gradient first)
        return ("list", [_tree(v) for v in x])
    return tf_oracle.normalise(arr)


def _same_as_tf(program, rtol=2e-4, atol=2e-5):
    want, got = _tf_run(program), _run(program, "eagertape")
    assert want.keys() == got.keys()
    for k in want:
        # Absolute errors of float32 sums scale with the largest entry of what is
        # compared (one emitted value).
        scale = max(1.0, _largest(want[k]))
        tf_oracle.assert_same(_tree(got[k]), _tree(want[k]), rtol=rtol, atol=atol * scale,
                              where=k)
    return got


CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_corpus")


# Programs that do not run yet, and why (each must fail: strict).
CORPUS_GAPS = {}


def _corpus_mode(name, key):
    # The suite's budget (docs/testing.md): each corpus program runs in one execution
    # mode a commit, as the census's sample does, chosen by a hash of its name and the
    # commit, so both modes come round within a few commits; EAGERTAPE_CENSUS=all runs
    # both.
    import zlib
    return ("eager", "fused")[zlib.crc32(f"{key}:keras:{name}".encode()) % 2]


@pytest.mark.parametrize("name", sorted(f[:-3] for f in os.listdir(CORPUS) if f.endswith(".py")))
def test_corpus_program_gives_tensorflows_answers(name, request):
    # TF-eager Keras programs from TF's tutorials, keras.io and the patterns of
    # public repositories, shrunk to seconds (each file says where it is from).
    from test_census import _KEY
    mode = os.environ["EAGERTAPE_EXECUTION_MODE"]
    if (request.config.getoption("--execution-mode") == "both"
            and not request.config.getoption("--quick")
            and os.environ.get("EAGERTAPE_CENSUS") != "all"
            and _corpus_mode(name, _KEY) != mode):
        pytest.skip("run in the other execution mode at this commit (EAGERTAPE_CENSUS=all "
                    "runs both)")
    if name in CORPUS_GAPS:
        request.applymarker(pytest.mark.xfail(strict=True, reason=CORPUS_GAPS[name]))
    with open(os.path.join(CORPUS, name + ".py")) as f:
        _same_as_tf(f.read(), rtol=1e-3, atol=1e-4)


def test_fit_evaluate_predict_take_a_tf_data_pipeline_as_tfs_keras_does():
    _same_as_tf("""
    x = np.random.RandomState(0).rand(70, 4).astype("float32")
    y = (x.sum(1) > 2).astype("int32")
    ds = (tf.data.Dataset.from_tensor_slices((x, y))
          .map(lambda a, b: (a * 2.0 - 1.0, b)).batch(16).prefetch(tf.data.AUTOTUNE))
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(5, activation="tanh"),
                                 tf.keras.layers.Dense(2)])
    model.set_weights(weights_like(model))
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), metrics=["accuracy"],
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(ds, epochs=3, verbose=0, validation_data=ds.take(2))
    emit("loss", history.history["loss"])
    emit("val_loss", history.history["val_loss"])
    emit("accuracy", history.history["accuracy"])
    emit("evaluate", model.evaluate(ds, verbose=0))
    emit("predict", model.predict(ds.map(lambda a, b: a), verbose=0))
    emit("weights", model.get_weights()[0])
    """)


@pytest.mark.quick      # the quick tier's check of the Keras join
def test_sequential_training_loop_dense_batchnorm_adam():
    _same_as_tf("""
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4, activation="relu"),
                                 tf.keras.layers.BatchNormalization(),
                                 tf.keras.layers.Dense(1)])
    model.set_weights(weights_like(model))
    x = np.random.RandomState(1).randn(16, 3).astype("float32")
    y = np.random.RandomState(2).randn(16, 1).astype("float32")
    opt = tf.keras.optimizers.Adam(learning_rate=0.05)
    loss_fn = tf.keras.losses.MeanSquaredError()
    losses = []
    for step in range(4):
        with tf.GradientTape() as tape:
            pred = model(x, training=True)
            loss = loss_fn(y, pred)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        losses.append(float(loss))
    emit("losses", losses)
    emit("weights", [w for w in model.get_weights()][0])
    emit("moving_mean", model.layers[1].moving_mean.numpy())
    emit("moving_var", model.layers[1].moving_variance.numpy())
    emit("inference", model(x[:3], training=False))
    emit("iterations", int(opt.iterations))
    """)


def test_functional_model_input_gradients_penalty_and_batch_jacobian():
    _same_as_tf("""
    a = tf.keras.Input((3,)); b = tf.keras.Input((2,))
    h = tf.keras.layers.Dense(5, activation="tanh")(tf.keras.layers.Concatenate()([a, b]))
    out1 = tf.keras.layers.Dense(2)(h)
    out2 = tf.keras.layers.Dense(1, activation="sigmoid")(h)
    model = tf.keras.Model([a, b], [out1, out2])
    model.set_weights(weights_like(model, 3))
    xa = tf.constant(np.random.RandomState(4).randn(6, 3).astype("float32"))
    xb = tf.constant(np.random.RandomState(5).randn(6, 2).astype("float32"))
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(xa)
        with tf.GradientTape() as inner:
            inner.watch(xa)
            o1, o2 = model([xa, xb])
            y = tf.reduce_sum(o1 * o1) + tf.reduce_sum(o2)
        g = inner.gradient(y, xa)
        penalty = tf.reduce_mean(tf.square(tf.norm(g, axis=1) - 1.0))
        o1b, _ = model([xa, xb])
    emit("input_grad", g)
    emit("penalty", penalty)
    emit("penalty_grads", outer.gradient(penalty, model.trainable_variables))
    emit("batch_jacobian", outer.batch_jacobian(o1b, xa))
    emit("jacobian", outer.jacobian(o1b, model.trainable_variables[-2]))
    """)


@pytest.mark.quick      # the quick tier's check of the Keras join
def test_subclassed_model_custom_layer_regularizer_dropout_and_watch_flag():
    _same_as_tf("""
    class Scale(tf.keras.layers.Layer):
        def build(self, input_shape):
            self.s = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="s")
        def call(self, x):
            return x * self.s + tf.reduce_mean(x)

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d1 = tf.keras.layers.Dense(
                4, kernel_regularizer=tf.keras.regularizers.L2(0.1))
            self.scale = Scale()
            self.drop = tf.keras.layers.Dropout(0.5)
            self.d2 = tf.keras.layers.Dense(2)
        def call(self, x, training=False):
            h = tf.nn.relu(self.d1(x))
            h = self.drop(self.scale(h), training=training)
            return self.d2(tf.concat([h, tf.sin(h)], axis=-1))

    net = Net()
    x = np.random.RandomState(6).randn(5, 3).astype("float32")
    net(x)
    net.set_weights(weights_like(net, 7))
    with tf.GradientTape() as tape:
        logits = net(x)
        ce = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(
            np.array([0, 1, 1, 0, 1]), logits, from_logits=True))
        loss = ce + tf.add_n(net.losses)
    emit("logits", logits)
    emit("reg", tf.add_n(net.losses))
    emit("grads", tape.gradient(loss, net.trainable_variables))
    emit("names", [len(net.trainable_variables), len(net.non_trainable_variables)])
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = tf.reduce_sum(net(x))
    emit("unwatched", tape.gradient(y, [net.d1.kernel, net.d2.kernel]))
    acc = tf.keras.metrics.SparseCategoricalAccuracy()
    acc.update_state(np.array([0, 1, 1, 0, 1]), logits)
    mean = tf.keras.metrics.Mean()
    mean.update_state(loss)
    emit("metrics", [acc.result().numpy(), mean.result().numpy()])
    """)


def test_optimizer_steps_inside_a_cond_of_a_traced_step():
    # A traced training step applying its gradients in one branch of a tf.cond
    # (raised NotImplementedError before): in a tf.function, and in a Model's
    # train_step under fit.
    _same_as_tf("""
keras = tf.keras
w = tf.Variable([1.0, 2.0])
opt = keras.optimizers.SGD(0.1)

@tf.function
def step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * w) * x
    grads = tape.gradient(loss, [w])
    tf.cond(x > 0, lambda: opt.apply_gradients(zip(grads, [w])),
            lambda: tf.identity(opt.iterations))
    return loss
for i, x in enumerate([1.0, -1.0, 2.0]):
    emit(f"loss{i}", step(tf.constant(x)))
    emit(f"w{i}", w)
emit("iterations", opt.iterations)

class M(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((self(x, training=True) - y) ** 2)
        grads = tape.gradient(loss, self.trainable_variables)
        tf.cond(loss > 0.5,
                lambda: self.optimizer.apply_gradients(zip(grads, self.trainable_variables)),
                lambda: tf.identity(self.optimizer.iterations))
        return {"loss": loss}

inp = keras.Input((2,))
m = M(inp, keras.layers.Dense(1, kernel_initializer="ones")(inp))
m.compile(optimizer=keras.optimizers.SGD(0.05))
x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
y = np.array([[1.0], [2.0]], np.float32)
m.fit(x, y, epochs=3, verbose=0, batch_size=2)
emit("weights", [v.numpy() for v in m.trainable_variables])
""")


def test_keras_variables_made_on_a_later_trace_are_refused_as_tfs():
    # TF's tf.function guide: a Keras optimizer builds its slots on the first trace
    # (traced again: count 2); a second optimizer's, on a later trace, is refused.
    _same_as_tf("""
opt1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
opt2 = tf.keras.optimizers.Adam(learning_rate=1e-3)

@tf.function
def train_step(w, x, y, optimizer):
    with tf.GradientTape() as tape:
        L = tf.reduce_sum(tf.square(w * x - y))
    gradients = tape.gradient(L, [w])
    optimizer.apply_gradients(zip(gradients, [w]))

w = tf.Variable(2.)
x, y = tf.constant([-1.]), tf.constant([2.])
train_step(w, x, y, opt1)
emit("count", train_step.experimental_get_tracing_count())
emit("w", w)
try:
    train_step(w, x, y, opt2)
    emit("refused", 0)
except ValueError:
    emit("refused", 1)

class TrainStep(tf.Module):
    def __init__(self, optimizer):
        self.optimizer = optimizer

    @tf.function
    def __call__(self, w, x, y):
        with tf.GradientTape() as tape:
            L = tf.reduce_sum(tf.square(w * x - y))
        gradients = tape.gradient(L, [w])
        self.optimizer.apply_gradients(zip(gradients, [w]))

a = TrainStep(tf.keras.optimizers.Adam(learning_rate=1e-2))
b = TrainStep(tf.keras.optimizers.Adam(learning_rate=1e-3))
a(w, x, y)
b(w, x, y)
emit("w2", w)
emit("counts", [a.__call__.experimental_get_tracing_count(),
                b.__call__.experimental_get_tracing_count()])
""")


def test_keras_optimizers_update_tf_variables():
    _same_as_tf("""
    w = tf.Variable([[1.0, -2.0], [0.5, 3.0]])
    b = tf.Variable([0.1, 0.2])
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    out = {}
    for name in ("SGD", "Adam", "RMSprop", "Adagrad"):
        w.assign([[1.0, -2.0], [0.5, 3.0]]); b.assign([0.1, 0.2])
        opt = getattr(tf.keras.optimizers, name)(learning_rate=0.1)
        for _ in range(3):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b))
            opt.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
        emit(name, [w.numpy(), b.numpy()])
    """)


def test_gradient_of_one_model_output_with_respect_to_another():
    # TF records every layer of a call, so a model output that feeds another is a
    # source like any intermediate (Grad-CAM); here, called as two sub-models.
    _same_as_tf("""
    inputs = tf.keras.Input((3,))
    a = tf.keras.layers.Dense(4, activation="tanh", name="a")(inputs)
    b = tf.keras.layers.Dense(2, name="b")(a)
    c = tf.keras.layers.Dense(1, name="c")(tf.keras.layers.concatenate([a, inputs]))
    model = tf.keras.Model(inputs, {"a": a, "b": b, "c": c})
    model.set_weights(weights_like(model, 5))
    x = tf.constant(np.random.RandomState(6).randn(2, 3).astype("float32"))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = model(x)
        y = tf.reduce_sum(out["b"]) + tf.reduce_sum(out["c"] ** 2)
    emit("d/da", tape.gradient(y, out["a"]))
    emit("d/dx", tape.gradient(y, x))
    emit("d/dw", tape.gradient(y, model.trainable_variables))
    emit("outputs", [out["a"], out["b"], out["c"]])
    emit("outside a tape", [model(x)["b"]])
    """)


def test_compile_and_fit():
    _same_as_tf("""
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3, activation="tanh"),
                                 tf.keras.layers.Dense(1)])
    model.set_weights(weights_like(model, 8))
    x = np.random.RandomState(9).randn(32, 2).astype("float32")
    y = (x[:, :1] * 2.0 - x[:, 1:]).astype("float32")
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
    hist = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    emit("loss", hist.history["loss"])
    emit("weights", model.get_weights()[0])
    emit("predict", model.predict(x[:4], verbose=0))
    """, rtol=1e-3, atol=1e-4)


def test_keras_on_another_backend_is_a_clear_error():
    code = ("import os; os.environ['KERAS_BACKEND'] = 'numpy'\nimport keras\n"
            "import eagertape.tf as tf\n"
            "try:\n    tf.keras.layers\nexcept RuntimeError as e:\n    print('ERR', e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert "ERR Keras was imported already with the 'numpy' backend" in r.stdout, r.stderr[-2000:]


def test_layer_call_is_one_recorded_op_and_outside_a_tape_gives_tensors():
    out = _run("""
    import eagertape
    from eagertape import introspect
    layer = tf.keras.layers.Dense(3)
    y = layer(np.ones((2, 4), "float32"))
    emit("type", float(isinstance(y, eagertape.Tensor)))
    with tf.GradientTape() as tape:
        layer(np.ones((2, 4), "float32"))
    emit("ops", len(introspect.recording(tape).ops))
    emit("watched", len(tape.watched_variables()))
    """, "eagertape")
    assert out == {"type": 1.0, "ops": 1, "watched": 2}


def test_training_step_in_tf_function_with_keras_optimizer():
    # The optimizer's slots are made while the function is traced (its first
    # step); they and the weights are inputs and outputs of the compiled call.
    _same_as_tf("""
    w = tf.Variable([[0.5], [-0.25]])
    opt = tf.keras.optimizers.Adam(learning_rate=0.1)
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    model.set_weights(weights_like(model, 10))
    opt2 = tf.keras.optimizers.RMSprop(learning_rate=0.01)
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = tf.constant([[1.0], [0.0], [1.0]])

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((tf.matmul(x, w) - y) ** 2)
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
        return loss

    @tf.function
    def train(x, y):
        with tf.GradientTape() as tape:
            loss = tf.keras.losses.MeanSquaredError()(y, model(x, training=True))
        opt2.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                 model.trainable_variables))
        return loss

    emit("losses", [float(step()) for _ in range(5)])
    emit("w", w)
    emit("iterations", int(opt.iterations))
    emit("model_losses", [float(train(x, y)) for _ in range(4)])
    emit("model_weights", model.get_weights()[0])
    """)


def test_application_with_weights_from_a_path():
    # A keras.applications model with random weights saved to a file, loaded
    # through ``weights=path``, one training-mode step: loss, outputs, gradients of
    # weights and input, and the inference-mode output, as in TF.
    _same_as_tf("""
        import os, tempfile
        def mobilenet(weights):
            return tf.keras.applications.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35,
                                                     weights=weights, classes=5)
        m = mobilenet(None)
        m.set_weights([np.abs(w) + 0.5 if "variance" in v.path else w * 0.3
                       for v, w in zip(m.weights, weights_like(m, 1))])
        path = os.path.join(tempfile.mkdtemp(), "mobilenet.weights.h5")
        m.save_weights(path)
        m2 = mobilenet(path)
        rs = np.random.RandomState(2)
        x = tf.constant(tf.keras.applications.mobilenet_v2.preprocess_input(
            rs.uniform(0, 255, (2, 32, 32, 3)).astype("float32")))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = m2(x, training=True)
            loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(tf.constant([1, 3]), y))
        g = tape.gradient(loss, m2.trainable_variables + [x])
        emit("loss", loss)
        emit("y", y)
        emit("grads", [g[0], g[1], g[-3], g[-2]])
        emit("gx", g[-1])
        emit("nones", sum(v is None for v in g))
        emit("predict", m2(x, training=False))
    """, rtol=2e-3, atol=2e-4)


def test_pretrained_weights_without_a_network_is_a_clear_error(tmp_path):
    # No network, whatever the machine has: an empty Keras cache and a proxy
    # that refuses every connection.
    got = _run("""
        try:
            tf.keras.applications.MobileNetV2(input_shape=(96, 96, 3), alpha=0.35, include_top=False)
        except ConnectionError as e:
            emit("error", str(e))
    """, "eagertape", KERAS_HOME=str(tmp_path), https_proxy="http://127.0.0.1:9",
               HTTPS_PROXY="http://127.0.0.1:9")
    assert got["error"].startswith("argument `weights`: MobileNetV2's pretrained weights are "
                                   "downloaded from https://"), got
    assert "weights=None" in got["error"]


def test_bad_input_is_a_clear_error_at_the_call_site_and_updates_nothing():
    program = """
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    x = np.ones((4, 3), "float32")
    def error(f):
        try:
            f()
        except Exception as e:
            return type(e).__name__ + ": " + str(e)
        return "no error"
    def wrong_shape():
        with tf.GradientTape() as tape:
            model(np.ones((4, 5), "float32"))
    emit("wrong_shape", error(wrong_shape).split(":")[0] == "ValueError")
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(x))
    grads = tape.gradient(loss, model.trainable_variables)
    before = model.get_weights()
    opt = tf.keras.optimizers.Adam(0.1)
    emit("swapped", error(lambda: opt.apply_gradients(zip(grads[::-1], model.trainable_variables))).split(":")[0] in ("ValueError", "InvalidArgumentError"))
    emit("unchanged", all(np.array_equal(a, b) for a, b in zip(before, model.get_weights())))
    """
    # TF's classes of error; TF's Keras updates the kernel before it fails on
    # the bias (half-updated), eagertape checks every pair first.
    want = _tf_run(program)
    assert (want["wrong_shape"], want["swapped"]) == (True, True)
    want["unchanged"] = True
    got = _run(program + """
    emit("swapped_message", error(lambda: opt.apply_gradients(zip(grads[::-1], model.trainable_variables))))
    emit("second_bad", error(lambda: opt.apply_gradients([(grads[0], model.trainable_variables[0]), (tf.ones((5,)), model.trainable_variables[1])])))
    emit("still_unchanged", all(np.array_equal(a, b) for a, b in zip(before, model.get_weights())))
    emit("unbuilt", error(lambda: tf.keras.layers.Dense(2).kernel))
    import tensorflow as real_tf        # a variable of TensorFlow itself, mixed in
    rv = real_tf.Variable(np.ones((4, 3), "float32"))
    emit("tf_variable_call", error(lambda: model(rv)))
    emit("tf_variable_op", error(lambda: tf.add(rv, 1.0)))
    emit("tf_variable_apply", error(lambda: opt.apply_gradients([(grads[0], real_tf.Variable(np.ones((3, 2), "float32")))])))
    kernel = model.layers[0].kernel
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(x))
    emit("array_source", error(lambda: tape.gradient(loss, [kernel, np.full((3, 2), 7.25)])))
    import eagertape
    own = eagertape.optimizers.SGD(0.1)
    emit("own_optimizer", error(lambda: own.apply_gradients([(tf.ones((3, 2)), kernel), (tf.ones((5,)), model.layers[0].bias)])))
    emit("own_unchanged", all(np.array_equal(a, b) for a, b in zip(before, model.get_weights())))
    own.apply_gradients([(tf.ones((3, 2)), kernel)])
    emit("own_applies", np.allclose(kernel.numpy(), before[0] - 0.1))
    import importlib.util
    emit("tensorboard_missing", [m for m in ("tensorflow", "tensorboard")
                                 if importlib.util.find_spec(m) is None])
    emit("tensorboard", error(lambda: tf.keras.callbacks.TensorBoard("logs")))
    class Cell(tf.keras.layers.Layer):      # a tf.Variable inside a Keras RNN's one op
        def __init__(self):
            super().__init__()
            self.state_size = 2
            self.v = tf.Variable(np.ones((2, 2), "float32"), name="cell_v")
        def call(self, inputs, states):
            h = tf.tanh(tf.matmul(inputs, self.v) + states[0])
            return h, [h]
    rnn = tf.keras.layers.RNN(Cell())
    seq = tf.ones((1, 3, 2))
    rnn(seq)
    def differentiate_rnn():
        with tf.GradientTape():
            rnn(seq)
    emit("constant_read", error(differentiate_rnn))
    """, "eagertape")
    assert {k: got[k] for k in want} == want
    assert got["swapped_message"].startswith(
        "ValueError: argument `grads_and_vars`, pair 0: the gradient has shape (2,) but its "
        "variable 'sequential/dense/kernel' has shape (3, 2)")
    assert "pair 1: the gradient has shape (5,)" in got["second_bad"]
    assert got["still_unchanged"]
    assert "You must build the layer" in got["unbuilt"]
    for k in ("tf_variable_call", "tf_variable_op", "tf_variable_apply"):
        assert got[k].startswith("TypeError: ") and "variable of TensorFlow itself" in got[k], k
    assert "`Sequential_call`" in got["tf_variable_call"]
    assert "argument `grads_and_vars`, pair 0" in got["tf_variable_apply"]
    # Objects named by class and path, never by their values.
    assert got["array_source"].startswith("TypeError: argument `sources`[1] must be an "
                                          "eagertape.Tensor or Variable, got ndarray;")
    assert "7.25" not in got["array_source"]
    assert got["own_optimizer"].startswith("ValueError: ") and "(5,)" in got["own_optimizer"]
    assert got["own_unchanged"] and got["own_applies"]
    assert got["constant_read"].startswith(
        "NotImplementedError: layer 'rnn' (RNN) is one recorded op, and a layer of the program "
        "inside it reads tf.Variable 'cell_v:0': its gradient would be None"), got["constant_read"]
    # Keras's TensorBoard callback writes with TF's tf.summary: said when it is made.
    if got["tensorboard_missing"]:
        assert got["tensorboard"].startswith(
            "ImportError: tf.keras.callbacks.TensorBoard writes its logs with TensorFlow's "
            "tf.summary"), got["tensorboard"]
        assert all(m in got["tensorboard"] for m in got["tensorboard_missing"])
        assert "CSVLogger" in got["tensorboard"]
    else:
        assert got["tensorboard"] == "no error", got["tensorboard"]


def test_lstm_classifier_agrees_when_tf_densifies_the_embedding_gradient():
    # The corpus's lstm_classifier with the Embedding's IndexedSlices densified
    # by tf.convert_to_tensor before RMSprop: the dense path (the square of the
    # rows' sum) agrees with TF's too, as the sparse one does in the corpus test.
    with open(os.path.join(CORPUS, "lstm_classifier.py")) as f:
        program = f.read()
    step = "    grads = tape.gradient(loss, model.trainable_variables)\n"
    assert step in program
    program = program.replace(step, step + "    grads = [tf.convert_to_tensor(g) for g in grads]\n")
    _same_as_tf(program, rtol=1e-3, atol=1e-4)


# -- TF objects and Keras objects in one program -------------------------------
# In TF a Keras weight is a TF variable, tf.optimizers are tf.keras.optimizers and a
# layer's call runs op by op under the tape. Each test below is one class of that
# meeting, written from TF's behaviour; TF's run is the oracle.

def test_tf_variables_on_keras_objects_are_differentiated_as_tf_does():
    _same_as_tf("""
    # (TF's guide "Basic training loops", tf.Variables set in a Model's __init__:
    # the corpus's tf_variables_in_keras_model.)
    class Params(tf.keras.layers.Layer):   # a list of tf.Variables kept on a layer
        def __init__(self):
            super().__init__()
            self.params = [tf.Variable([1.0, 2.0]), tf.Variable(3.0)]
        def call(self, x):
            return x * self.params[0] + self.params[1]
    p = Params()
    with tf.GradientTape() as t:
        l = tf.reduce_sum(p(tf.constant([1.0, -1.0])) ** 2)
    emit("list_of_variables", t.gradient(l, p.params))

    class Lin(tf.keras.layers.Layer):      # tf.Variable made in build, with tf.random
        def __init__(self, units):
            super().__init__(); self.units = units
        def build(self, input_shape):
            self.w = tf.Variable(tf.random.normal([input_shape[-1], self.units]))
            self.b = self.add_weight(shape=(self.units,), initializer="zeros")
        def call(self, x):
            return tf.matmul(x, self.w) + self.b
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__(); self.l1 = Lin(4); self.l2 = tf.keras.layers.Dense(1)
        def call(self, x):
            return self.l2(tf.nn.relu(self.l1(x)))
    net = Net()
    net.compile(optimizer="sgd", loss="mse")
    xs = np.random.RandomState(1).rand(8, 3).astype("float32")
    net.fit(xs, xs[:, :1], epochs=1, verbose=0)
    emit("built_in_fit", [len(net.trainable_variables), len(net.l1.trainable_variables)])

    class Scale(tf.keras.layers.Layer):    # a tf.Variable and an activity regularizer
        def __init__(self):
            super().__init__(activity_regularizer=tf.keras.regularizers.L2(0.1))
            self.s = tf.Variable(1.5)
        def call(self, x):
            return x * self.s
    class Scaled(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d, self.sc = tf.keras.layers.Dense(2, kernel_initializer="ones"), Scale()
        def call(self, x):
            return self.sc(self.d(x))
    m = Scaled()
    x = tf.constant([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
    for i in range(2):
        with tf.GradientTape() as t:
            l = tf.reduce_sum(m(x)) + tf.add_n(m.losses)
        emit(f"activity{i}", [len(m.losses), float(l)])
        emit(f"activity_grads{i}", t.gradient(l, [m.sc.s] + m.trainable_variables))
    """)


def test_layer_calls_run_tfs_semantics_inside():
    # custom_gradient (to second order), stop_gradient, a tape opened inside call,
    # Python control flow on values, a training= branch, a tf.Variable assigned in
    # call, Keras activations and keras.ops on the values.
    _same_as_tf("""
    @tf.custom_gradient
    def reverse(x):
        def grad(dy):
            return -0.5 * dy
        return tf.identity(x), grad

    class GradReverse(tf.keras.layers.Layer):
        def call(self, x):
            return reverse(x)

    class Inner(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.calls = tf.Variable(0.0, trainable=False)
            self.scale = tf.Variable(2.0)
        def call(self, x, training=None):
            self.calls.assign_add(1.0)
            with tf.GradientTape() as inner:
                inner.watch(x)
                e = tf.reduce_sum(tf.sin(x) * self.scale)
            slope = inner.gradient(e, x)
            if tf.reduce_sum(x) > 0:
                x = x * 2.0
            else:
                x = x - 1.0
            if training:
                x = x + tf.stop_gradient(x) * 0.1
            return tf.keras.activations.tanh(x) + tf.keras.ops.square(slope)

    class Net(tf.keras.Model):      # (a Sequential would be built symbolically: TF fails)
        def __init__(self):
            super().__init__()
            self.d1, self.rev = tf.keras.layers.Dense(3), GradReverse()
            self.inner, self.d2 = Inner(), tf.keras.layers.Dense(1)
        def call(self, x, training=None):
            return self.d2(self.inner(self.rev(self.d1(x)), training=training))

    model = Net()
    x = tf.constant(np.random.RandomState(0).randn(4, 2).astype("float32"))
    model(x)
    model.set_weights(weights_like(model))
    for training in (False, True):
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                t1.watch(x)
                out = tf.reduce_sum(model(x, training=training) ** 2)
            gx = t1.gradient(out, x)
            pen = tf.reduce_sum(gx ** 2)
        emit(f"out{training}", out)
        emit(f"grad_x{training}", gx)
        emit(f"second{training}", t2.gradient(pen, model.trainable_variables))
    emit("calls", model.inner.calls)

    # A functional model with a custom layer and operations of its graph.
    inp = tf.keras.Input((2,))
    h = GradReverse()(tf.keras.layers.Dense(3)(inp)) + 1.0
    h = tf.keras.ops.concatenate([h, h * 2.0], axis=-1)
    f = tf.keras.Model(inp, tf.keras.layers.Dense(1)(h))
    f.set_weights(weights_like(f, 3))
    with tf.GradientTape() as t:
        t.watch(x)
        l = tf.reduce_sum(f(x) ** 2)
    emit("functional", t.gradient(l, [x] + f.trainable_variables))
    emit("functional_predict", f.predict(x.numpy(), verbose=0))

    # A program's RNN cell (tf ops on its add_weight weights) inside Keras's RNN.
    class Cell(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.state_size = 3
        def build(self, shape):
            self.k = self.add_weight(shape=(shape[-1], 3))
            self.r = self.add_weight(shape=(3, 3))
        def call(self, inputs, states):
            h = tf.tanh(tf.matmul(inputs, self.k) + tf.matmul(states[0], self.r))
            return h, [h]
    rnn = tf.keras.layers.RNN(Cell())
    seq = tf.constant(np.random.RandomState(4).randn(2, 4, 2).astype("float32"))
    rnn(seq)
    rnn.set_weights(weights_like(rnn, 4))
    with tf.GradientTape() as t:
        l = tf.reduce_sum(rnn(seq) ** 2)
    emit("rnn_cell", l)
    emit("rnn_cell_grads", t.gradient(l, rnn.trainable_variables))

    # A program's layer built inside a tf.function (its first trace makes the
    # weights: a Keras weight and a tf.Variable), differentiated there.
    class Lin(tf.keras.layers.Layer):
        def build(self, shape):
            self.w = self.add_weight(shape=(shape[-1], 2),
                                     initializer=tf.keras.initializers.Constant(0.5))
            self.v = tf.Variable(np.full((2,), 0.25, "float32"))
        def call(self, x):
            return tf.nn.relu(tf.matmul(x, self.w) + self.v)
    lin, head = Lin(), tf.keras.layers.Dense(1, kernel_initializer="ones")
    @tf.function
    def step(x):
        with tf.GradientTape() as t:
            y = tf.reduce_sum(head(lin(x)) ** 2)
        return y, t.gradient(y, [lin.w, lin.v] + head.trainable_variables)
    for i in range(2):
        y, g = step(x[:, :2])
        emit(f"built_in_function{i}", y)
        emit(f"built_in_function_grads{i}", g)

    # A float64 input to a float32 layer: the layer's dtype policy casts it (Keras's
    # autocast), and the input's gradient comes back float64.
    d64 = tf.keras.layers.Dense(2)
    x64 = tf.constant(np.random.RandomState(5).randn(3, 2))
    d64(x64)
    d64.set_weights(weights_like(d64, 5))
    with tf.GradientTape() as t:
        t.watch(x64)
        y64 = d64(x64)
        l = tf.reduce_sum(y64 ** 2)
    g64 = t.gradient(l, x64)
    emit("autocast", [l, g64])
    emit("autocast_dtypes", [y64.dtype == tf.float32, g64.dtype == tf.float64])
    """)


def test_keras_functions_and_variable_values_record_on_the_tape():
    # MAML-style functional use of a model's layers and weights.
    _same_as_tf("""
    layer = tf.keras.layers.Dense(2, activation="relu")
    x = tf.constant([[1.0, -2.0], [0.5, 0.25]])
    layer(x)
    layer.set_weights([np.array([[1., 2.], [3., -4.]], np.float32), np.array([0.5, 0.5], np.float32)])
    with tf.GradientTape(persistent=True) as t:
        out = layer.activation(x @ layer.kernel + layer.bias)
        l1 = tf.reduce_sum(out)
        l2 = tf.reduce_sum(tf.matmul(x, layer.kernel.value) ** 2)
        l3 = tf.reduce_mean(tf.keras.losses.MSE(tf.ones((2, 2)), out))
        l4 = tf.reduce_sum(tf.keras.ops.softmax(x @ layer.kernel))
    emit("activation", out)
    # TF's Keras backend gives a weight's shape as a TensorShape.
    shape = layer.kernel.shape
    emit("kernel_shape", shape.as_list() + [shape.rank, isinstance(shape, tf.TensorShape),
                                            shape == (2, 2)])
    for name, l in (("l1", l1), ("l2", l2), ("l3", l3), ("l4", l4)):
        emit(name, l)
        emit(name + "_grads", t.gradient(l, [layer.kernel, layer.bias]))
    """)


def test_a_layer_first_called_eagerly_draws_each_initializer_once_as_tf():
    # TF's Keras draws an initializer when the variable is made; eagertape builds a
    # layer inside a StatelessScope, where Keras defers it (a draw per read, and one
    # more at the scope's exit) unless the facade draws it once at creation.
    _same_as_tf("""
    draws = []
    class Counting(tf.keras.initializers.Initializer):
        def __call__(self, shape, dtype=None):
            draws.append(1)
            return tf.ones(shape) * len(draws)
    l1 = tf.keras.layers.Dense(2, kernel_initializer=Counting())
    l2 = tf.keras.layers.Dense(3, kernel_initializer=Counting(), bias_initializer=Counting())
    y = l2(l1(tf.ones((1, 4))))
    emit("draws", float(len(draws)))
    emit("y", y)
    emit("kernels", [l1.kernel, l2.kernel, l2.bias])
    """)


def test_one_optimizer_family_for_every_variable():
    _same_as_tf("""
    emit("aliases", [tf.optimizers.Adam is tf.keras.optimizers.Adam,
                     tf.losses.MeanSquaredError is tf.keras.losses.MeanSquaredError,
                     tf.metrics.Mean is tf.keras.metrics.Mean,
                     tf.initializers.GlorotUniform is tf.keras.initializers.GlorotUniform])
    model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    x = tf.constant([[1.0, 2.0]])
    model(x)
    model.set_weights(weights_like(model))
    v = tf.Variable([1.0, -2.0])
    for opt in (tf.optimizers.SGD(0.1, momentum=0.9), tf.keras.optimizers.Adam(0.05)):
        for step in range(2):
            with tf.GradientTape() as t:
                loss = tf.reduce_sum(model(x) ** 2) + tf.reduce_sum(v ** 2)
            grads = t.gradient(loss, model.trainable_variables + [v])
            opt.apply_gradients(zip(grads, model.trainable_variables + [v]))
            emit(f"{type(opt).__name__}_loss{step}", loss)
            emit(f"{type(opt).__name__}{step}", model.get_weights() + [v])
        emit(f"{type(opt).__name__}_iterations", opt.iterations)
    # The TF trainer's attributes (compiled_loss and compiled_metrics: the corpus's
    # customizing_fit_compiled_loss).
    s = model.distribute_strategy
    emit("strategy", [s.num_replicas_in_sync, float(s.run(lambda a: a * 2.0, args=(1.5,)))])
    """)


@pytest.mark.eager     # Keras's numerics inside one op: the execution mode cannot change them
def test_built_in_layers_first_and_second_derivatives_are_tfs():
    # Where Keras on JAX and TF's Keras compute a layer differently (moments,
    # recurrences, attention, padding), a program can see it in a derivative:
    # each built-in layer's output, its input- and weight-gradients, and the
    # gradient of a gradient penalty (WGAN-GP's) w.r.t. the input and weights.
    _same_as_tf("""
    rs = np.random.RandomState(0)
    flat, seq, img = (rs.randn(*s).astype("float32") for s in ((4, 6), (2, 5, 4), (2, 5, 5, 3)))
    L = tf.keras.layers
    cases = [
        ("Dense", lambda: L.Dense(3, activation="tanh"), flat, None),
        ("LayerNormalization", lambda: L.LayerNormalization(), flat, None),
        ("BatchNormalization", lambda: L.BatchNormalization(), flat, True),
        ("GroupNormalization", lambda: L.GroupNormalization(groups=3), flat, None),
        ("UnitNormalization", lambda: L.UnitNormalization(), flat, None),
        ("PReLU", lambda: L.PReLU(), flat, None),
        ("ELU", lambda: L.ELU(), flat, None),
        ("LeakyReLU", lambda: L.LeakyReLU(), flat, None),
        ("Softmax", lambda: L.Softmax(), flat, None),
        ("gelu", lambda: L.Activation("gelu"), flat, None),
        ("selu", lambda: L.Activation("selu"), flat, None),
        ("swish", lambda: L.Activation("swish"), flat, None),
        ("softplus", lambda: L.Activation("softplus"), flat, None),
        ("Conv1D", lambda: L.Conv1D(3, 2, padding="same"), seq, None),
        ("LSTM", lambda: L.LSTM(3, return_sequences=True), seq, None),
        ("GRU", lambda: L.GRU(3), seq, None),
        ("SimpleRNN", lambda: L.SimpleRNN(3), seq, None),
        ("Bidirectional", lambda: L.Bidirectional(L.LSTM(2)), seq, None),
        ("MultiHeadAttention", lambda: L.MultiHeadAttention(2, 3), seq, "self"),
        ("GlobalAveragePooling1D", lambda: L.GlobalAveragePooling1D(), seq, None),
        ("MaxPooling1D", lambda: L.MaxPooling1D(2), seq, None),
        ("Conv2D", lambda: L.Conv2D(2, 3, strides=2, padding="same"), img, None),
        ("DepthwiseConv2D", lambda: L.DepthwiseConv2D(2), img, None),
        ("SeparableConv2D", lambda: L.SeparableConv2D(2, 2), img, None),
        ("Conv2DTranspose", lambda: L.Conv2DTranspose(2, 2, strides=2), img, None),
        ("BatchNormalization2D", lambda: L.BatchNormalization(), img, True),
        ("MaxPooling2D", lambda: L.MaxPooling2D(2), img, None),
        ("AveragePooling2D", lambda: L.AveragePooling2D(2, padding="same"), img, None),
        ("UpSampling2D", lambda: L.UpSampling2D(interpolation="bilinear"), img, None),
    ]
    for seed, (name, make, value, how) in enumerate(cases):
        layer = make()
        x = tf.constant(value)
        def run():
            if how == "self":
                return layer(x, x)
            return layer(x, training=True) if how else layer(x)
        y = run()
        layer.set_weights(weights_like(layer, seed))
        r = tf.constant(np.random.RandomState(seed).randn(*y.shape).astype("float32"))
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape(persistent=True) as inner:
                inner.watch(x)
                y = run()
                s = tf.reduce_sum(y * r)
            g = inner.gradient(s, x)
            pen = tf.reduce_sum(g ** 2)
        emit(name + "_out", y)
        emit(name + "_grads", [g] + inner.gradient(s, layer.trainable_variables))
        emit(name + "_second", outer.gradient(pen, [x] + layer.trainable_variables))
    """, rtol=1e-3, atol=1e-4)


@pytest.mark.eager     # the join itself: the execution mode cannot change it
def test_the_join_is_one_table_checked_first_and_undone_by_unjoin():
    got = _run("""
    import keras
    from eagertape.tf import _keras
    plain_call = keras.Layer.__call__
    tf.keras.layers.Dense        # (already joined by the preload; unjoin, then join again)
    _keras.unjoin()
    plain_call = keras.Layer.__call__
    y = keras.layers.Dense(2)(np.ones((1, 3), "float32"))
    emit("unjoined", [plain_call.__module__.startswith("keras."), type(y).__module__.startswith("jax")])
    layer = tf.keras.layers.Dense(2)          # tf.keras joins again on its next use
    emit("joined", [keras.Layer.__call__.__module__ == "eagertape.tf._keras",
                    type(layer(tf.ones((1, 3)))).__name__])
    rows = _keras._rows()
    emit("rows", [len(rows) > 100, all(o.startswith("keras") for o, a, m in rows)])
    # A Keras whose private names moved: an ImportError naming the row, nothing patched.
    _keras.unjoin()
    saved = _keras.KERAS_PRIVATE["Lambda"]
    _keras.KERAS_PRIVATE["Lambda"] = "keras.src.layers.core.lambda_layer:NoSuchLambda"
    _keras._private.cache_clear()
    try:
        _keras.load()
        emit("moved", "no error")
    except ImportError as e:
        emit("moved", [("NoSuchLambda" in str(e)) and ("pip install" in str(e)),
                       keras.Layer.__call__ is plain_call])
    """, "eagertape")
    assert got == {"unjoined": [True, True], "joined": [True, "Tensor"], "rows": [True, True],
                   "moved": [True, True]}


def test_a_tf_style_predict_step_and_fits_list_of_inputs_as_tfs():
    # keras-io's graph examples: a TF-style predict_step(self, data)
    # (examples/graph/gat_node_classification.py) ran as Keras's JAX step, which
    # passes (state, data) (TypeError before); fit's list of inputs reaches TF's
    # train_step as a tuple (TF's Keras makes a tf.data pipeline of it, lists made
    # tuples), which examples/graph/wgan-graphs.py's step tests (a list before).
    _same_as_tf("""
keras = tf.keras
seen = []

class M(keras.Model):
    def __init__(self):
        super().__init__()
        self.d = keras.layers.Dense(2, kernel_initializer="ones")

    def call(self, inputs):
        a, b = inputs
        return self.d(a) + b

    def train_step(self, data):
        seen.append(10 + isinstance(data, tuple) + 2 * isinstance(data[0], tuple))
        if isinstance(data[0], tuple):
            data = data[0]
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(self(data) ** 2)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}

    def predict_step(self, data):
        seen.append(20 + isinstance(data, tuple) + 2 * isinstance(data, list))
        return tf.nn.softmax(self.d(data))

m = M()
m.compile(optimizer=keras.optimizers.SGD(0.1))
a = np.array([[1.0, 2.0], [3.0, -4.0], [0.5, 1.0], [2.0, 0.0]], np.float32)
b = np.array([[0.5, -1.0], [1.0, 2.0], [0.0, 0.0], [-1.0, 1.0]], np.float32)
emit("loss", m.fit([a, b], epochs=2, batch_size=2, shuffle=False, verbose=0).history["loss"])
emit("weights", [v.numpy() for v in m.trainable_variables])
emit("predicted", m.predict(a, batch_size=2, verbose=0))
emit("seen", sorted(set(seen)))
""")
