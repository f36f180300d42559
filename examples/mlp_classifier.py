"""A small MLP trained with Adam on two interleaved spirals, tested on a held-out split.

The data set is generated (no download): class k in {0, 1} has points at angle
t + k*pi and radius t/(4*pi) for t uniform in [0.25*pi, 4*pi), with Gaussian
noise of 0.02, 1000 points per class from NumPy's default_rng(42); 20 % of the
points (chosen by the same generator) are held out.

    python examples/mlp_classifier.py
"""
import numpy as np

import eagertape.tf as tf


def spirals(n_per_class=1000, noise=0.02, seed=42):
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for k in (0, 1):
        t = rng.uniform(0.25 * np.pi, 4 * np.pi, n_per_class)
        r = t / (4 * np.pi)
        pts = np.stack([r * np.cos(t + k * np.pi), r * np.sin(t + k * np.pi)], axis=1)
        xs.append(pts + rng.normal(0, noise, pts.shape))
        ys.append(np.full(n_per_class, k))
    x, y = np.concatenate(xs).astype(np.float32), np.concatenate(ys).astype(np.int32)
    order = rng.permutation(len(x))
    x, y = x[order], y[order]
    cut = int(0.8 * len(x))
    return (x[:cut], y[:cut]), (x[cut:], y[cut:])


def main(epochs=400, threshold=0.95):
    (xtr, ytr), (xte, yte) = spirals()
    tf.random.set_seed(0)
    sizes = [2, 64, 64, 2]
    ws = [tf.Variable(tf.random.normal([m, n], stddev=np.sqrt(2.0 / m))) for m, n in
          zip(sizes[:-1], sizes[1:])]
    bs = [tf.Variable(tf.zeros([n])) for n in sizes[1:]]
    params = ws + bs

    def logits(x):
        h = x
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = tf.matmul(h, w) + b
            if i < len(ws) - 1:
                h = tf.nn.relu(h)
        return h

    opt = tf.keras.optimizers.Adam(learning_rate=0.01)
    x, y = tf.constant(xtr), tf.constant(ytr)
    for epoch in range(epochs):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits(x)))
        opt.apply_gradients(zip(tape.gradient(loss, params), params))
        if epoch % 100 == 0 or epoch == epochs - 1:
            print(f"epoch {epoch:3d}  training loss {float(loss):.4f}")
    pred = tf.argmax(logits(tf.constant(xte)), axis=1).numpy()
    accuracy = float(np.mean(pred == yte))
    print(f"held-out accuracy: {accuracy:.3f} on {len(yte)} points (threshold {threshold})")
    assert accuracy > threshold
    return accuracy


if __name__ == "__main__":
    main()
