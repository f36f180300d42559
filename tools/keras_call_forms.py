"""What a layer call's form costs: the same three-layer MLP training step with
Keras's Dense layers (each call one recorded op) and with the same layers written
as a program's layer (its call run op by op, as TF runs it). docs/design.md quotes
it. Run: python tools/keras_call_forms.py"""
import statistics
import time

import numpy as np

import eagertape.tf as tf

class MyDense(tf.keras.layers.Layer):
    def __init__(self, units, act=True):
        super().__init__()
        self.units, self.act = units, act
    def build(self, shape):
        self.w = self.add_weight(shape=(shape[-1], self.units))
        self.b = self.add_weight(shape=(self.units,), initializer="zeros")
    def call(self, x):
        y = tf.matmul(x, self.w) + self.b
        return tf.nn.relu(y) if self.act else y

def model(custom):
    def layer(units, act):
        if custom:
            return MyDense(units, act)
        return tf.keras.layers.Dense(units, activation="relu" if act else None)
    return tf.keras.Sequential([layer(64, True), layer(64, True), layer(10, False)])

x = tf.constant(np.random.RandomState(0).randn(32, 20).astype("float32"))
res = {}
for custom in (False, True):
    m = model(custom)
    m(x)
    opt = tf.keras.optimizers.SGD(0.01)
    def step():
        with tf.GradientTape() as t:
            loss = tf.reduce_mean(m(x) ** 2)
        g = t.gradient(loss, m.trainable_variables)
        opt.apply_gradients(zip(g, m.trainable_variables))
        return loss
    for _ in range(5):
        step().numpy()
    ts = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(20):
            loss = step()
        loss.numpy()
        ts.append((time.perf_counter() - t0) / 20 * 1e3)
    res["a program's layer (op by op)" if custom else "Keras's Dense (one op)"] = ts
for k, ts in res.items():
    print(f"{k}: median {statistics.median(ts):.2f} ms/step, min {min(ts):.2f}, max {max(ts):.2f}")
