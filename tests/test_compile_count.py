"""Compile counts (issue 39): a recorded call is compiled once per computation, not
once per function object.

A new function object that computes what an earlier one computes (a lambda made
again at each call, a closure over equal constants, a bound method got again, a
functools.partial made again) gets the earlier one's call kind
(``_primitive.computation_key``): no new executable, and the same structure ids, so
a tape of it reuses the compiled replay. Functions that differ in anything that can
change their result (code, a captured value, a default, globals, attributes) never
share one. Counted with JAX's compile event, which JAX fires for every compile
request (whether or not XLA then compiles), so a count of 0 means nothing asked XLA.
"""
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import eagertape as et
from eagertape import extend

COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


class _Compiles:
    def __init__(self):
        self.n = 0

    def __call__(self, event, duration, **kwargs):
        if event == COMPILE_EVENT:
            self.n += 1


@pytest.fixture
def compiles():
    et.clear_replay_cache()          # the replays' churn window starts empty
    c = _Compiles()
    jax.monitoring.register_event_duration_secs_listener(c)
    try:
        with et.execution_mode("eager"):
            yield c
    finally:
        jax.monitoring.unregister_event_duration_listener(c)


def _softsign(x, s):
    # A lambda made at each call, capturing ``s``: extend's own docstring example.
    return extend.call(lambda v: v / (s + jnp.abs(v)), (x,), name="softsign")


def test_a_lambda_made_at_each_call_compiles_once(compiles):
    x = et.constant([1.0, 2.0])
    _softsign(x, 1.0)
    before = compiles.n
    for _ in range(5):
        y = _softsign(x, 1.0)
    assert compiles.n == before
    np.testing.assert_allclose(y.numpy(), [0.5, 2 / 3], rtol=1e-6)


def test_its_gradient_compiles_its_replay_once(compiles):
    v = et.Variable([1.0, 2.0])

    def grad(s):
        with et.GradientTape() as tape:
            y = _softsign(v, s)
        return tape.gradient(y, v).numpy()

    first = grad(1.0)
    before = compiles.n
    again = [grad(1.0) for _ in range(3)]
    assert compiles.n == before          # the same kind: the same structure, its replay
    for g in again:
        np.testing.assert_allclose(g, first)
    np.testing.assert_allclose(first, [1 / 4, 1 / 9], rtol=1e-6)   # s / (s + |v|)^2


def test_closures_over_different_constants_do_not_share(compiles):
    x = et.constant([1.0, 2.0])
    a = _softsign(x, 1.0).numpy()
    n = compiles.n
    b = _softsign(x, 3.0).numpy()
    assert compiles.n == n + 1           # a computation of its own
    np.testing.assert_allclose(a, [0.5, 2 / 3], rtol=1e-6)
    np.testing.assert_allclose(b, [0.25, 0.4], rtol=1e-6)
    v = et.Variable([1.0, 2.0])
    for s in (1.0, 3.0, 1.0, 3.0):
        with et.GradientTape() as tape:
            y = _softsign(v, s)
        np.testing.assert_allclose(tape.gradient(y, v).numpy(),
                                   [s / (s + 1) ** 2, s / (s + 2) ** 2], rtol=1e-6)


def test_equal_numbers_of_other_types_or_signs_are_other_constants(compiles):
    # 2 and 2.0 are equal, and so are 0.0 and -0.0: not the same constant.
    x = et.constant([1.0, 2.0])

    def scaled(c):
        return extend.call(lambda v: v * c, (x,)).numpy()

    def signed(c):
        return extend.call(lambda v: jnp.copysign(v, c), (x,)).numpy()
    assert scaled(2).tolist() == scaled(2.0).tolist() == [2.0, 4.0]
    assert signed(0.0).tolist() == [1.0, 2.0]
    assert signed(-0.0).tolist() == [-1.0, -2.0]


def test_same_named_lambdas_of_the_same_source_in_other_globals_do_not_share(compiles):
    # One source, so equal code objects; the global K differs.
    made = []
    for k in (2.0, 3.0):
        ns = {"K": k}
        exec("f = lambda v: v * K", ns)
        made.append(ns["f"])
    x = et.constant([1.0, 2.0])
    assert made[0].__code__ == made[1].__code__ and made[0].__name__ == made[1].__name__
    assert extend.call(made[0], (x,)).numpy().tolist() == [2.0, 4.0]
    assert extend.call(made[1], (x,)).numpy().tolist() == [3.0, 6.0]


def test_defaults_partials_and_methods(compiles):
    x = et.constant([1.0, 2.0])

    def with_default(scale):
        def f(v, s=scale):
            return v * s
        return f
    assert extend.call(with_default(2.0), (x,)).numpy().tolist() == [2.0, 4.0]
    assert extend.call(with_default(5.0), (x,)).numpy().tolist() == [5.0, 10.0]

    def times(v, s):
        return v * s
    assert extend.call(functools.partial(times, s=2.0), (x,)).numpy().tolist() == [2.0, 4.0]
    n = compiles.n
    assert extend.call(functools.partial(times, s=2.0), (x,)).numpy().tolist() == [2.0, 4.0]
    assert compiles.n == n
    assert extend.call(functools.partial(times, s=4.0), (x,)).numpy().tolist() == [4.0, 8.0]

    class Scale:
        def __init__(self, s):
            self.s = s

        def apply(self, v):
            return v * self.s
    two, three = Scale(2.0), Scale(3.0)
    assert extend.call(two.apply, (x,)).numpy().tolist() == [2.0, 4.0]
    n = compiles.n
    for _ in range(3):                    # a new bound method object each time
        assert extend.call(two.apply, (x,)).numpy().tolist() == [2.0, 4.0]
    assert compiles.n == n
    # Another object: identity, not equality, decides (its attributes may differ).
    assert extend.call(three.apply, (x,)).numpy().tolist() == [3.0, 6.0]


def test_captured_mutable_objects_are_compared_by_identity(compiles):
    x = et.constant([1.0, 2.0])

    def summing(weights):
        return extend.call(lambda v: v * sum(weights), (x,)).numpy().tolist()
    assert summing([1.0, 1.0]) == [2.0, 4.0]
    assert summing([1.0, 2.0]) == [3.0, 6.0]     # an equal-looking closure, another list
    arr = np.array([2.0, 2.0], np.float32)
    assert extend.call(lambda v: v * arr, (x,)).numpy().tolist() == [2.0, 4.0]
    arr2 = np.array([4.0, 4.0], np.float32)
    assert extend.call(lambda v: v * arr2, (x,)).numpy().tolist() == [4.0, 8.0]


def test_attributes_and_names_are_part_of_the_computation(compiles):
    x = et.constant([1.0, 2.0])

    def make(name, flag):
        def f(v):
            return v + 1.0
        f.__name__ = name
        f.by_dependence = flag
        return f
    a = extend.call(make("a", False), (x,))
    n = compiles.n
    extend.call(make("a", False), (x,))
    assert compiles.n == n
    from eagertape import _primitive
    assert _primitive.computation_key(make("a", False)) == _primitive.computation_key(
        make("a", False))
    assert _primitive.computation_key(make("a", False)) != _primitive.computation_key(
        make("b", False))
    assert _primitive.computation_key(make("a", False)) != _primitive.computation_key(
        make("a", True))
    assert a.numpy().tolist() == [2.0, 3.0]


def test_a_recursive_closure_and_unkeyable_functions():
    from eagertape import _primitive

    def outer():
        def f(n):
            return 1 if n <= 0 else f(n - 1)
        return f
    # Keyed a few levels deep, then by identity: the key ends, and two such
    # closures (each capturing itself) do not share.
    k = _primitive.computation_key(outer())
    assert hash(k) is not None and k != _primitive.computation_key(outer())
    assert _primitive.computation_key(jnp.add) is None        # by identity, as before
    assert _primitive.computation_key(len) is None


# -- identical programs of other call kinds, replays and settings -----------------
# Functions that key differently (other code, a captured object compared by
# identity: a layer) may still compute the same program: it is compiled once
# (``_cache.Programs``), whichever kind, replay or x64 setting asks for it.

def _programs():
    from eagertape import introspect
    return introspect.cache_info()["identical programs"]


class _Dense:
    """A layer-like object: its call is a closure over the object (keyed by
    identity), its config (the activation) decides the program."""

    def __init__(self, activation):
        self.activation = activation
        self.w = et.Variable(np.full((3, 2), 0.5, np.float32))

    def __call__(self, x):
        return extend.call(lambda w, v: self.activation(v @ w), (self.w, x), name="dense")




def test_a_layer_built_again_compiles_nothing(compiles):
    x = et.constant(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
    from eagertape import numpy as tnp

    def step(layer):
        with et.GradientTape() as tape:
            y = tnp.sum(layer(x))
        return float(y), tape.gradient(y, layer.w).numpy()
    from eagertape import introspect
    with introspect.replay_policy("compiled"):      # a new structure compiles its replay
        first = step(_Dense(jnp.tanh))
        before, shared = compiles.n, _programs()["hits"]
        again = step(_Dense(jnp.tanh))    # new object, new kind, new structure id
    # Its call and its replay asked for programs; XLA compiled neither.
    assert compiles.n - before == _programs()["hits"] - shared == 2
    assert again[0] == pytest.approx(first[0])
    np.testing.assert_allclose(again[1], first[1])
    # Another config is another program, with its own values.
    misses = _programs()["misses"]
    other = step(_Dense(jax.nn.relu))
    assert _programs()["misses"] > misses
    pre = np.arange(12, dtype=np.float32).reshape(4, 3) / 10 @ np.full((3, 2), 0.5, np.float32)
    assert other[0] == pytest.approx(float(np.maximum(pre, 0).sum()), rel=1e-6)
    assert first[0] == pytest.approx(float(np.tanh(pre).sum()), rel=1e-6)


def test_identical_programs_of_other_functions_share_one_executable(compiles):
    # Two defs (two code objects): two kinds, one program.
    x = et.constant([1.0, 2.0])

    def f(v):
        return jnp.sin(v) * 2.0

    def g(v):
        return jnp.sin(v) * 2.0
    a = extend.call(f, (x,)).numpy()
    hits = _programs()["hits"]
    b = extend.call(g, (x,)).numpy()
    assert _programs()["hits"] == hits + 1
    np.testing.assert_allclose(a, b)
    np.testing.assert_allclose(a, 2 * np.sin([1.0, 2.0]), rtol=1e-6)


def test_programs_with_other_constants_or_shapes_are_not_shared(compiles):
    x, x3 = et.constant([1.0, 2.0]), et.constant([1.0, 2.0, 3.0])
    assert extend.call(lambda v: v * 2.0, (x,)).numpy().tolist() == [2.0, 4.0]
    misses = _programs()["misses"]
    assert extend.call(lambda v: v * 2.5, (x,)).numpy().tolist() == [2.5, 5.0]
    assert extend.call(lambda v: v * 2.0, (x3,)).numpy().tolist() == [2.0, 4.0, 6.0]
    assert _programs()["misses"] == misses + 2


# -- Keras: a model built again, a layer of the same config -----------------------
_KERAS_PROGRAM = r"""
import json
import jax
import numpy as np
import eagertape.tf as tf
from eagertape import introspect

requests = [0]
def count(event, duration, **kwargs):
    if event == "/jax/core/compile/backend_compile_duration":
        requests[0] += 1
jax.monitoring.register_event_duration_secs_listener(count)

def hits():
    return introspect.cache_info()["identical programs"]["hits"]

rs = np.random.RandomState(0)
x = tf.constant(rs.rand(8, 5).astype("float32"))
weights = None
out = {"model": [], "layer": []}
with introspect.replay_policy("compiled"):
    for i in range(2):          # a model built twice: its call and its replay
        m = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"),
                                 tf.keras.layers.Dense(4)])
        m.build((None, 5))
        if weights is None:
            weights = [rs.randn(*w.shape).astype("float32") for w in m.get_weights()]
        m.set_weights(weights)
        r0, h0 = requests[0], hits()
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(m(x) ** 2)
        grads = tape.gradient(loss, m.trainable_variables)
        out["model"].append([float(loss), requests[0] - r0, hits() - h0,
                             [g.numpy().tolist() for g in grads]])
    for i in range(2):          # a layer object of the same config, applied
        layer = tf.keras.layers.Dense(3, activation="tanh")
        layer.build((None, 5))
        layer.set_weights([np.full((5, 3), 0.1, "float32"), np.zeros(3, "float32")])
        r0, h0 = requests[0], hits()
        y = layer(x)
        out["layer"].append([y.numpy().tolist(), requests[0] - r0, hits() - h0])
print("@@" + json.dumps(out))
"""


@pytest.mark.subprocess
def test_a_keras_model_built_again_and_a_layer_of_the_same_config_compile_nothing():
    pytest.importorskip("keras")
    import json
    import os

    import program_server
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="",
               EAGERTAPE_EXECUTION_MODE="eager")
    env.pop("KERAS_BACKEND", None)
    r = program_server.run(_KERAS_PROGRAM, ["eagertape"], env=env, timeout=600,
                           preload="import numpy, eagertape.tf as tf; tf.keras.layers")
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1][2:])
    (loss0, asked0, shared0, g0), (loss1, asked1, shared1, g1) = out["model"]
    assert asked0 > shared0            # the first build compiles its call and replay
    assert asked1 >= 2 and shared1 == asked1     # the second compiles nothing
    assert loss1 == pytest.approx(loss0, rel=1e-6)
    for a, b in zip(g0, g1):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    (y0, _, _), (y1, asked, shared) = out["layer"]
    assert asked >= 1 and shared == asked
    np.testing.assert_allclose(y0, y1, rtol=1e-6)
    x = np.random.RandomState(0).rand(8, 5).astype("float32")
    np.testing.assert_allclose(y1, np.tanh(x @ np.full((5, 3), 0.1, "float32")), rtol=1e-5)


def test_importing_eagertape_leaves_jaxs_compile_step_alone():
    # No side effect at import: the sharing wrapper is installed at eagertape's first
    # compile request, not before (a process that imports eagertape and only uses
    # jax.jit keeps JAX's own compile step).
    import subprocess
    import sys
    code = ("import eagertape, eagertape.tf, eagertape._jax_private as p; "
            "print(getattr(p.compiler.compile_or_get_cached, '_eagertape_programs', False)); "
            "eagertape.numpy.sin(eagertape.constant([1.0])).numpy(); "
            "print(getattr(p.compiler.compile_or_get_cached, '_eagertape_programs', False))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["False", "True"]
