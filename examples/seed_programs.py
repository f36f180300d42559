# ruff: noqa: F401, F841, E261, E231  (the tutorials' lines are kept as written)
"""The code of the TF tutorials this project was first checked against, verbatim but
for the import line.

``seed_002`` is the TF 2.0 alpha notebook "Gradient Tape and Automatic
Differentiation" (TF 2 code). ``seed_000`` is the "TensorFlow Eager Mode" tutorial and
``seed_003`` notes after TF's eager automatic-differentiation tutorial, both TF 1.x
eager code (they call ``tf.enable_eager_execution()``), which gives them TF 1's
``watch`` rule: ``seed_003``'s inner-tape-only ``watch`` of a constant still yields
d2y/dx2 = 6.0, as it did in TF 1.x. The TF 2 program runs first, before any program
switches the rule.

    python examples/seed_programs.py
"""
from __future__ import absolute_import, division, print_function, unicode_literals


def seed_002():
    import eagertape.tf as tf   # was: import tensorflow as tf

    x = tf.ones((2, 2,))

    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(x)
        z = tf.multiply(y, y)

    # Derivative of z, with respect to x (original input tensor)

    dz_dx = t.gradient(z, x)
    for i in [0, 1]:
        for j in [0, 1]:
            assert dz_dx[i][j].numpy() == 8.0

    x = tf.ones((2, 2))

    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(x)
        z = tf.multiply(y, y)

    # Derivative of z, with respect to y (intermediate value) using Tape

    dz_dy = t.gradient(z, y)
    assert dz_dy.numpy() == 8.0

    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
        z = y * y
    dz_dx = t.gradient(z, x)
    dy_dx = t.gradient(y, x)

    del t           # drop Tape reference

    def f(x, y):
        output = 1.0
        for i in range(y):
            if i > 1 and i < 5:
                output = tf.multiply(output, x)
        return output

    def grad(x, y):
        with tf.GradientTape() as t:
            t.watch(x)
            out = f(x, y)
        return t.gradient(out, x)

    x = tf.convert_to_tensor(2.0)

    assert grad(x, 6).numpy() == 12.0
    assert grad(x, 5).numpy() == 12.0
    assert grad(x, 4).numpy() == 4.0

    # create TF variable initialized to 1.0

    x = tf.Variable(1.0)

    with tf.GradientTape() as t:
        with tf.GradientTape() as t2:
            y = x * x * x

    # compute gradient inside t Context Manager - making gradient computation differentiable too

        dy_dx = t2.gradient(y, x)
    d2y_dx2 = t.gradient(dy_dx, x)

    assert dy_dx.numpy() == 3.0
    assert d2y_dx2.numpy() == 6.0
    print("seed 002: all assertions hold (8, 8, 12, 12, 4, 3, 6)")


def seed_000():
    import numpy
    import eagertape.tf as tf   # was: import tensorflow as tf
    tfe = tf.contrib.eager # Abbreviation.
    tf.enable_eager_execution()
    print('TF Eager Execution is:',
          'Enabled' if tf.executing_eagerly() else 'Disabled')

    def f4(abcd):
        """Hyperbox-hypersurface-area."""
        return 2.0 * sum(abcd[i] * abcd[j] * abcd[k]
                         for (i, j, k) in [(0, 1, 2), (0, 1, 3),
                                           (0, 2, 3), (1, 2, 3)])
    # Thanks to Python-overloading, our implementation of `f4`
    # does not even actually care what sort of sequence we feed it.
    print(f4([1.0, 2.0, 3.0, 4.0]), f4(numpy.array([2.0, 3.0, 4.0, 5.0])))
    xs = tfe.Variable([3.0, 4.0, 5.0, 6.0])
    print(f4(xs))
    print(f4(xs).numpy())
    print(2*xs)
    p0 = tfe.Variable([1.0, 2.0, 3.0, 4.0])
    with tf.GradientTape() as tape:
        hypersurface = f4(p0)
    gradients_at_p0 = tape.gradient(hypersurface, [p0])
    print('Hypersurface:', hypersurface.numpy(),
          'Gradient:', gradients_at_p0[0].numpy())
    tape2 = tf.GradientTape()
    with tape2:
        hypersurface1 = f4(p0)
        hypersurface2 = f4(2 * p0)
        total_hypersurface = hypersurface1 + hypersurface2
    # Showing the single-tensor-as-2nd-arg form of tape.gradient here.
    print('Total Hypersurface:', total_hypersurface.numpy(),
          'Gradient:', tape2.gradient(total_hypersurface, p0).numpy())


def seed_003():
    import numpy as np
    import eagertape.tf as tf   # was: import tensorflow as tf

    tf.enable_eager_execution()
    tfe = tf.contrib.eager

    x = tf.ones((2, 2))

    # gradient tape context
    with tf.GradientTape(persistent=True) as t:
        t.watch(x) # watch all operations done on x
        y = tf.reduce_sum(x)
        z = tf.multiply(y, y)

    # Use the gradient tape to compute the derivative of z with respect to y
    dz_dy = t.gradient(z, y)
    # Use the gradient tape to compute the derivative of z with respect to x
    dz_dx = t.gradient(z, x)

    print('dz/dy:',dz_dy.numpy(),'\n')
    print('dz/dx:\n',dz_dx.numpy())

    x = tf.constant(1.0)  # Convert the Python 1.0 to a Tensor object

    with tf.GradientTape() as t:
        with tf.GradientTape() as t2:
            t2.watch(x)
            y = x * x * x
        # Compute the gradient inside the 't' context manager, which means
        # this gradient computation is differentiable under t
        dy_dx = t2.gradient(y, x)

    d2y_dx2 = t.gradient(dy_dx, x)

    print('dy/dx:', dy_dx.numpy())
    print('d2y/dx2:', d2y_dx2.numpy())


if __name__ == "__main__":
    seed_002()
    seed_000()
    seed_003()
