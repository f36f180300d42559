"""``tf.function``'s own rules, differential against TensorFlow: methods (one
Function per instance, ``input_signature`` without ``self``), retracing (what
makes a new trace, and ``experimental_get_tracing_count``), Variables made on the
first trace, ``get_concrete_function``, what comes back, and gradients through a
function at the second order. Each program returns its values together with the
trace counts and what Python ran while tracing, so TF's and eagertape's must agree
on all of them. The cases follow TF's tf.function guide (site/en/guide/function)
and its Core-API guides, which build tf.Module layers inside a tf.function.
Skipped without TensorFlow.
"""
import numpy as np
import pytest

import tf_oracle

tf_oracle.require()

P = {}


def program(f):
    P[f.__name__] = f
    return f


@program
def method_with_input_signature(tf):
    # TF's export pattern: a method's signature does not count `self`.
    class Model(tf.Module):
        def __init__(self):
            self.w = tf.Variable([[1.0], [2.0]])

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def __call__(self, x):
            return x @ self.w

    m, n = Model(), Model()
    a = m(tf.constant([[1.0, 1.0]]))
    b = m(tf.constant([[1.0, 0.0], [0.0, 1.0]]))
    c = n(np.ones((1, 2), np.float32))           # a NumPy array, converted by the signature
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(m(tf.constant([[3.0, 4.0]])))
    return a, b, c, tape.gradient(y, m.w), m.__call__ is m.__call__, \
        Model.__call__.experimental_get_tracing_count()


@program
def method_signature_wrong_dtype(tf):
    class Model(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def f(self, x):
            return x * 2.0
    return Model().f(tf.constant([1, 2]))


@program
def method_signature_too_many_arguments(tf):
    class Model(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def f(self, x):
            return x * 2.0
    return Model().f(tf.ones([2]), tf.ones([2]))


@program
def method_concrete_function(tf):
    class Model(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
        def f(self, x):
            return x * 2.0
    m = Model()
    cf = m.f.get_concrete_function()
    return cf(tf.ones([3])), m.f.experimental_get_tracing_count()


@program
def variables_made_on_the_first_trace(tf):
    # TF's Core-API MLP and regression guides: a layer makes its Variables on its
    # first call, inside a tf.function, from values computed there.
    class Dense(tf.Module):
        def __init__(self, out):
            self.out, self.built = out, False

        def __call__(self, x):
            if not self.built:
                n = x.shape[-1] * self.out
                w = tf.reshape(tf.range(n, dtype=tf.float32), [x.shape[-1], self.out]) / n
                self.w = tf.Variable(w + tf.reduce_mean(x))
                self.b = tf.Variable(tf.zeros([self.out]))
                self.built = True
            return tf.nn.relu(x @ self.w + self.b)

    class MLP(tf.Module):
        def __init__(self):
            self.layers = [Dense(4), Dense(1)]
            self.traced = []

        @tf.function
        def __call__(self, x):
            self.traced.append(1)
            for layer in self.layers:
                x = layer(x)
            return x

    m = MLP()
    x = tf.constant([[1.0, 2.0, 3.0]])
    y1 = m(x)
    with tf.GradientTape() as tape:
        y2 = tf.reduce_sum(m(x * 2.0))
    g = tape.gradient(y2, m.trainable_variables)
    return y1, y2, g, len(m.traced), m.__call__.experimental_get_tracing_count(), \
        len(m.trainable_variables)


@program
def count_made_on_the_first_trace(tf):
    # The guide's Count: the Variable made on the first call, assigned on each.
    class Count(tf.Module):
        def __init__(self):
            self.count = None

        @tf.function
        def __call__(self):
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)
    c = Count()
    return c(), c(), c(), c.__call__.experimental_get_tracing_count()


@program
def variable_made_on_every_call(tf):
    @tf.function
    def f(x):
        v = tf.Variable(1.0)
        return v + x
    return f(1.0)


@program
def variable_made_on_a_later_trace(tf):
    made = []

    @tf.function
    def f(x):
        if len(made) < x.shape[0]:
            made.append(tf.Variable(0.0))
        return x + made[-1]
    f(tf.ones([1]))
    return f(tf.ones([2]))


@program
def retracing_rules(tf):
    traced = []

    @tf.function
    def f(x):
        traced.append(str(type(x).__name__) in ("int", "float", "bool"))
        return x * 2

    a, b = tf.Variable(1.0), tf.Variable(2.0)
    outs = [f(a), f(b),                      # Variables of one shape and dtype: one trace
            f(1), f(1.0), f(True),           # Python numbers by value: 1 == 1.0 == True
            f(2),
            f(tf.constant(1.0)), f(tf.constant(2.0)), f(tf.constant([1.0]))]
    return outs, traced, f.experimental_get_tracing_count()


@program
def python_arguments_retrace(tf):
    # The guide: a new Python argument traces again, a new Tensor value does not.
    traced = []

    @tf.function
    def train(num_steps):
        traced.append(1)
        total = tf.constant(0)
        for i in tf.range(num_steps):       # AutoGraph: a tf.while_loop
            total += i
        return total
    outs = [train(num_steps=10), train(num_steps=20), train(num_steps=tf.constant(10)),
            train(num_steps=tf.constant(20))]
    return outs, len(traced)


@program
def signature_with_none_accepts_sizes(tf):
    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def next_collatz(x):
        return tf.where(x % 2 == 0, x // 2, 3 * x + 1)
    return next_collatz(tf.constant([1, 2])), next_collatz(tf.constant([3, 4, 5])), \
        next_collatz([6, 7]), next_collatz.experimental_get_tracing_count()


@program
def reduce_retracing_generalizes(tf):
    # The guide: the second shape traces once more, with the size unknown; no more.
    traced = []

    @tf.function(reduce_retracing=True)
    def g(x):
        traced.append(x.shape.rank)
        return x * 2
    outs = [g(tf.constant([1, 2, 3])), g(tf.constant([1, 2, 3, 4, 5])),
            g(tf.constant([1, 2, 3, 4, 5, 6, 7])), g(tf.constant(list(range(9))))]
    return outs, traced, g.experimental_get_tracing_count()


@program
def signature_with_none_under_tapes(tf):
    # One trace serves every batch size, differentiated at first and second order.
    class Model(tf.Module):
        def __init__(self):
            self.w = tf.Variable([[1.0], [-2.0]])

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def __call__(self, x):
            n = tf.cast(tf.shape(x)[0], tf.float32)
            return tf.reduce_sum(tf.tanh(x @ self.w)) / n

    m = Model()
    out = []
    for n in (1, 3, 4):
        x = tf.reshape(tf.range(2 * n, dtype=tf.float32), [n, 2]) / 4.0
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = m(x)
            gx, gw = inner.gradient(y, [x, m.w])
        out += [y, gx, gw, outer.gradient(gx, x)]
    return out, m.__call__.experimental_get_tracing_count()


@program
def signature_none_dimension_meets_a_known_size(tf):
    # TF's Core-API quickstart exports with TensorSpec([None, None]) and subtracts a
    # mean of 9 features from the one-hot-extended input: one trace in TF for every
    # batch size, also where the feature size is only known by broadcasting.
    mean = tf.constant([0.5, -1.0, 2.0, 0.25, 1.5])
    w = tf.Variable([[1.0], [0.5], [-1.0], [2.0], [0.25]])

    class Export(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec(shape=[None, None], dtype=tf.float32)])
        def __call__(self, x):
            x = tf.concat([x[:, :-1], tf.one_hot(tf.cast(x[:, -1], tf.int32), 3)], axis=1)
            return tf.squeeze((x - mean) @ w, axis=1)

    m = Export()
    out = []
    for n in (4, 2, 6):
        x = tf.reshape(tf.range(3 * n, dtype=tf.float32), [n, 3]) % 3.0
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(m(x) ** 2)
        out += [m(x), tape.gradient(y, w)]
    return out, m.__call__.experimental_get_tracing_count()


@program
def signature_rank_mismatch(tf):
    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def f(x):
        return x
    return f(tf.constant([[1, 2], [3, 4]]))


@program
def concrete_function_with_python_argument(tf):
    @tf.function
    def pw(a, b):
        return a ** b
    square = pw.get_concrete_function(a=tf.TensorSpec([], tf.float32), b=2)
    return square(tf.constant(10.0)), square(a=tf.constant(3.0)), \
        pw.experimental_get_tracing_count()


@program
def concrete_function_rejects_python_argument(tf):
    @tf.function
    def pw(a, b):
        return a ** b
    square = pw.get_concrete_function(a=tf.TensorSpec([], tf.float32), b=2)
    return square(tf.constant(10.0), b=3)


@program
def concrete_function_rejects_dtype(tf):
    @tf.function
    def double(a):
        return a + a
    cf = double.get_concrete_function(tf.TensorSpec([2], tf.float32))
    return cf(tf.constant([1, 2]))


@program
def python_values_come_back_as_tensors(tf):
    @tf.function
    def f(x):
        return x, 2.0, None, [3, True], {"k": 1}
    return f(tf.constant(1.0))


@program
def state_captured_at_trace(tf):
    # The guide: Python state is read at the trace, Variables at each call.
    class SimpleModel(tf.Module):
        def __init__(self):
            self.bias, self.weight = 0.0, 2.0

    class BetterModel:
        def __init__(self):
            self.bias, self.weight = tf.Variable(0.0), tf.Variable(2.0)

    @tf.function
    def evaluate(model, x):
        return model.weight * x + model.bias
    x = tf.constant(10.0)
    s, b = SimpleModel(), BetterModel()
    out = [evaluate(s, x), evaluate(b, x)]
    s.bias += 5.0
    b.bias.assign_add(5.0)
    out += [evaluate(s, x), evaluate(b, x)]
    return out


@program
def init_scope_in_a_method(tf):
    class Model(tf.Module):
        def __init__(self):
            self.v = tf.Variable(0)
            self.counter = 0

        @tf.function
        def __call__(self):
            if self.counter == 0:
                with tf.init_scope():
                    self.counter += 1
                    self.v.assign_add(1)
            return self.v.read_value()
    m = Model()
    return [m() for _ in range(3)]


@program
def watched_variables_read_inside(tf):
    v = tf.Variable(2.0, name="v")
    w = tf.Variable(3.0, name="w", trainable=False)

    @tf.function
    def f(x):
        return x * v + w

    @tf.function
    def g(x, unused):
        return x * 2.0
    with tf.GradientTape() as tape:
        y = f(tf.constant(1.0))
    u = tf.Variable(1.0, name="u")      # passed, not used: watched all the same (TF)
    with tf.GradientTape() as tape2:
        z = g(tf.constant(1.0), u)
    return [u.name for u in tape.watched_variables()], tape.gradient(y, [v, w]), \
        [v.name for v in tape2.watched_variables()], tape2.gradient(z, u)


@program
def numpy_function_as_decorator(tf):
    # TF's actor-critic tutorial: `@tf.numpy_function(Tout=[...])`.
    @tf.numpy_function(Tout=[tf.float32, tf.int32])
    def env_step(action):
        return (action * 2.0).astype(np.float32), np.array(1, np.int32)

    @tf.function
    def run(a):
        s, done = env_step(a)
        return s + 1.0, done
    return run(tf.constant([1.0, 2.0])), env_step(tf.constant([3.0]))


@program
def cond_branches_assign_variables(tf):
    v = tf.Variable(1.0)
    w = tf.Variable([1.0, 2.0])

    @tf.function
    def f(x):
        tf.cond(x > 0, lambda: v.assign_add(x), lambda: v.assign_sub(x))
        if x > 1:                      # AutoGraph: a tf.cond, assigning in one branch
            w.assign(w * x)
        return v.read_value() + tf.reduce_sum(w)
    return [f(tf.constant(2.0)), f(tf.constant(-3.0)), f(tf.constant(0.5)), v, w]


@program
def a_traced_tensor_prints_and_has_no_value(tf):
    # The guide's "Tracing with" prints a traced Tensor; numpy() of it raises
    # AttributeError (TF's symbolic Tensor has none).
    seen = []

    @tf.function
    def f(a):
        seen.append(str(a).startswith("Tensor(") and "shape=(2,), dtype=int32" in str(a))
        try:
            a.numpy()
            seen.append("value")
        except AttributeError:
            seen.append("AttributeError")
        return a + 1
    return f(tf.constant([1, 2])), seen


@program
def a_function_called_from_a_function(tf):
    # TF traces the inner function too, once per signature: its count says so.
    @tf.function
    def inner(x):
        return x * 2.0

    @tf.function
    def outer(x):
        return inner(x) + inner(x + 1.0) + inner(tf.reduce_sum(x))
    outs = [outer(tf.constant([1.0, 2.0])), outer(tf.constant([3.0, 4.0])),
            outer(tf.constant([1.0]))]
    return outs, inner.experimental_get_tracing_count(), outer.experimental_get_tracing_count()


@pytest.mark.parametrize("name", sorted(P))
def test_same_as_tensorflow(name):
    tf_oracle.check(P[name], rtol=1e-5, atol=1e-6)


def _variable_arithmetic(tf):
    # Integer arithmetic on an integer Variable follows the Variable at each call
    # (not its value at the trace), whether or not the numbers met were used
    # eagerly before (eagertape caches Python numbers as device scalars); and
    # arithmetic on a static shape still gives a static shape.
    step = tf.Variable(0, dtype=tf.int64)
    warm = tf.constant(5, tf.int64) % 2 + 3 * tf.constant(1, tf.int64)   # noqa: F841

    @tf.function
    def f(x):
        even = step % 2 == 0
        later = step * 3 + 7919 > 7921
        ones = tf.ones((tf.shape(x)[0] * 2, 1))
        step.assign_add(1)
        return even, later, tf.cast(step, tf.float32) / 2.0, ones

    return [f(tf.constant([1.0, 2.0])) for _ in range(4)]


def test_integer_arithmetic_on_a_variable_is_not_frozen_at_the_trace():
    tf_oracle.check(_variable_arithmetic)
