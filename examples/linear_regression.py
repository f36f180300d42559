"""A TF-style training loop (Variables, a tape, apply_gradients) fitting a line.

The data are y = 3x - 2 plus noise (fixed seed); SGD recovers slope and intercept.

    python examples/linear_regression.py
"""
import numpy as np

import eagertape.tf as tf


def main(steps=200):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, size=(128, 1)).astype(np.float32)
    y = (3.0 * x - 2.0 + rng.normal(0, 0.1, size=x.shape)).astype(np.float32)
    xs, ys = tf.constant(x), tf.constant(y)

    w = tf.Variable([[0.0]], name="slope")
    b = tf.Variable([0.0], name="intercept")
    opt = tf.keras.optimizers.SGD(learning_rate=0.2)
    for step in range(steps):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(xs, w) + b - ys))
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
        if step % 40 == 0 or step == steps - 1:
            print(f"step {step:3d}  loss {float(loss):.5f}")
    slope, intercept = float(w.numpy()[0, 0]), float(b.numpy()[0])
    print(f"fitted: y = {slope:.3f} x {intercept:+.3f}   (true: y = 3 x - 2)")
    assert abs(slope - 3.0) < 0.05 and abs(intercept + 2.0) < 0.05
    return slope, intercept


if __name__ == "__main__":
    main()
