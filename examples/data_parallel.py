"""Data-parallel training: the batch sharded over every device JAX sees, the
weights replicated, the same TF-style loop (tape, Variables, Adam) as on one device.

eagertape does not shard anything itself: Tensors and Variables wrap sharded
``jax.Array``s as they are, recorded ops and the compiled replay run as JAX runs
them (XLA inserts the cross-device reductions), so gradients of replicated weights
come back replicated and gradients of batch-sharded values batch-sharded.

    python examples/data_parallel.py
    # on a CPU, simulate 8 devices:
    XLA_FLAGS=--xla_force_host_platform_device_count=8 python examples/data_parallel.py

Across hosts, call ``jax.distributed.initialize()`` first on every host; the mesh
then spans all hosts' devices and the same code runs unchanged.
"""
import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

import eagertape as et
from eagertape import nn
from eagertape import numpy as tnp

STEPS = 50


def data(n_devices):
    rng = np.random.default_rng(0)
    batch = 32 * n_devices
    x = rng.normal(size=(batch, 8)).astype(np.float32)
    y = (np.sin(x[:, :1] * 2) + x[:, 1:2] ** 2).astype(np.float32)
    w1 = (rng.normal(size=(8, 32)) / np.sqrt(8)).astype(np.float32)
    w2 = (rng.normal(size=(32, 1)) / np.sqrt(32)).astype(np.float32)
    return x, y, [w1, w2]


def train(x, y, weights, put_batch, put_weight):
    ws = [et.Variable(put_weight(w)) for w in weights]
    xs, ys = et.constant(put_batch(x)), et.constant(put_batch(y))
    opt = et.optimizers.Adam(learning_rate=0.01)
    losses = []
    for _ in range(STEPS):
        with et.GradientTape() as tape:
            loss = tnp.mean((nn.relu(xs @ ws[0]) @ ws[1] - ys) ** 2)
        grads = tape.gradient(loss, ws)
        opt.apply_gradients(zip(grads, ws))
        losses.append(float(loss))
    return losses, ws, grads, xs


def main():
    devices = jax.devices()
    mesh = Mesh(np.array(devices), ("batch",))
    x, y, weights = data(len(devices))

    losses, ws, grads, xs = train(
        x, y, weights,
        put_batch=lambda a: jax.device_put(a, NamedSharding(mesh, P("batch"))),
        put_weight=lambda a: jax.device_put(a, NamedSharding(mesh, P())))
    one = devices[0]
    losses1, ws1, _, _ = train(x, y, weights, put_batch=lambda a: jax.device_put(a, one),
                               put_weight=lambda a: jax.device_put(a, one))

    print(f"devices: {len(devices)} ({jax.default_backend()})")
    print(f"batch sharding:    {xs.jax().sharding.spec}, {len(xs.jax().addressable_shards)} shards "
          f"of {xs.jax().addressable_shards[0].data.shape}")
    print(f"gradient sharding: {grads[0].jax().sharding.spec} (replicated weights)")
    print(f"weight sharding after {STEPS} Adam steps: {ws[0].jax().sharding.spec}")
    with et.GradientTape() as tape:
        tape.watch(xs)
        h = nn.relu(xs @ ws[0])                 # a batch-sharded activation
        loss = tnp.mean((h @ ws[1]) ** 2)
    gh, gx = tape.gradient(loss, [h, xs])
    print(f"gradient of the activation: {gh.jax().sharding.spec}, of the batch: "
          f"{gx.jax().sharding.spec} (batch-sharded)")
    print(f"loss: {losses[0]:.5f} -> {losses[-1]:.5f} (sharded), "
          f"{losses1[0]:.5f} -> {losses1[-1]:.5f} (one device)")
    diff = max(float(np.max(np.abs(a.numpy() - b.numpy()))) for a, b in zip(ws, ws1))
    print(f"max |weights sharded - weights one device| = {diff:.1e}")
    loss_diff = max(abs(a - b) for a, b in zip(losses, losses1))
    print(f"max |loss sharded - loss one device| over {STEPS} steps = {loss_diff:.1e}")


if __name__ == "__main__":
    main()
