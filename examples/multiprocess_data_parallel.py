"""Data-parallel training over several processes with ``jax.distributed``: each
process feeds its own shard of every batch, the weights are replicated, and the
TF-style loop (tape, Variables, Adam) is the one a single process runs.

eagertape shards nothing itself. Once ``jax.distributed.initialize`` has joined
the processes, ``jax.devices()`` lists every process's devices, a ``Mesh`` over
them carries a batch axis, and each process hands its rows of the batch to
``jax.make_array_from_process_local_data``, which makes one global array. Tensors
and Variables wrap such arrays as they are; the recorded ops and the compiled
replay run as JAX runs them, and XLA adds the cross-process sums, so the gradient
of a replicated weight is the global batch's gradient, replicated in every
process. Losses and weights are the single-process run's up to float32
summation order.

On one machine, start 1, 2 or 4 processes with the launcher eagertape ships
(localhost coordinator on a free port; output prefixed ``[p0]``, ``[p1]``, ...):

    python -m eagertape.launch -n 4 examples/multiprocess_data_parallel.py
    python examples/multiprocess_data_parallel.py      # one process, no launcher

On a GPU/TPU slice or several hosts, start the processes the way the cluster
starts jobs and run the same file with ``--cluster``: ``jax.distributed.initialize()``
then reads the coordinator, the process count and this process's id from the
environment (Cloud TPU pods, SLURM, Open MPI, Kubernetes). One process per TPU
host; on GPUs, one per host or one per GPU (under SLURM or Open MPI, JAX gives
each process the GPU of its local rank):

    srun --nodes=2 --ntasks-per-node=8 python examples/multiprocess_data_parallel.py --cluster
    gcloud compute tpus tpu-vm ssh NAME --zone=ZONE --worker=all \\
        --command="python3 multiprocess_data_parallel.py --cluster"

Elsewhere, set ``JAX_COORDINATOR_ADDRESS=host0:1234``, ``JAX_NUM_PROCESSES`` and
``JAX_PROCESS_ID`` in each process's environment (as the launcher does) and run it
without ``--cluster``. eagertape may be imported before ``jax.distributed.initialize``
(as here): importing it starts no JAX backend.
"""
import argparse
import os
import time

import jax
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

import eagertape as et
from eagertape import nn
from eagertape import numpy as tnp


def initialize(cluster):
    """Join the other processes; must run before any JAX computation."""
    if "JAX_NUM_PROCESSES" in os.environ:       # python -m eagertape.launch, or set by hand
        # The coordinator's address comes from JAX_COORDINATOR_ADDRESS.
        jax.distributed.initialize(num_processes=int(os.environ["JAX_NUM_PROCESSES"]),
                                   process_id=int(os.environ["JAX_PROCESS_ID"]))
    elif cluster:
        jax.distributed.initialize()            # TPU pods, SLURM, Open MPI, Kubernetes


def dataset(steps, batch, rng):
    """Every process makes the same data from one seed and keeps only its rows;
    a real input pipeline would read only this process's files."""
    x = rng.normal(size=(steps, batch, 8)).astype(np.float32)
    y = (np.sin(x[..., :1] * 2) + x[..., 1:2] ** 2).astype(np.float32)
    return x, y


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Data-parallel training over jax.distributed processes, each feeding "
                    "its rows of every batch; python -m eagertape.launch -n 4 starts 4.")
    parser.add_argument("--steps", type=int, default=20,
                        help="training steps, at least 2 (default 20)")
    parser.add_argument("--batch", type=int, default=64,
                        help="global batch size, a multiple of the device count (default 64)")
    parser.add_argument("--cluster", action="store_true",
                        help="jax.distributed.initialize() from the cluster's environment")
    parser.add_argument("--save", metavar="FILE.npz",
                        help="process 0 writes the losses and the initial and final weights here")
    args = parser.parse_args(argv)
    if args.steps < 2:
        parser.error(f"--steps must be at least 2 (the second half is timed), got {args.steps}")
    initialize(args.cluster)

    devices = jax.devices()                     # every process's devices
    if args.batch < 1 or args.batch % len(devices):
        parser.error(f"--batch must be a positive multiple of the {len(devices)} devices, "
                     f"got {args.batch}")
    mesh = Mesh(np.array(devices), ("batch",))
    batch_sharding = NamedSharding(mesh, P("batch"))
    replicated = NamedSharding(mesh, P())
    rank, count = jax.process_index(), jax.process_count()
    rows = slice(rank * args.batch // count, (rank + 1) * args.batch // count)

    rng = np.random.default_rng(0)
    x, y = dataset(args.steps, args.batch, rng)
    weights = [(rng.normal(size=(8, 32)) / np.sqrt(8)).astype(np.float32),
               (rng.normal(size=(32, 1)) / np.sqrt(32)).astype(np.float32)]

    def global_batch(a):
        """This process's rows -> one array over every process's devices."""
        return et.constant(jax.make_array_from_process_local_data(batch_sharding, a[rows]))

    # The loop below is the single-device loop, word for word.
    ws = [et.Variable(jax.device_put(w, replicated)) for w in weights]
    opt = et.optimizers.Adam(learning_rate=0.01)
    losses = []
    timed = args.steps // 2                     # the first steps compile: time the second half
    for step in range(args.steps):
        if step == timed:
            start = time.perf_counter()
        xs, ys = global_batch(x[step]), global_batch(y[step])
        with et.GradientTape() as tape:
            loss = tnp.mean((nn.relu(xs @ ws[0]) @ ws[1] - ys) ** 2)
        grads = tape.gradient(loss, ws)
        opt.apply_gradients(zip(grads, ws))
        losses.append(float(loss))              # the loss is replicated: every process has it
    elapsed = time.perf_counter() - start

    final = [np.asarray(w.jax()) for w in ws]   # replicated: this process's copy
    # Every process holds the same weights (a collective comparison, not a print).
    multihost_utils.assert_equal(final, "the replicated weights differ between processes")

    if rank == 0:
        print(f"processes: {count}, devices: {len(devices)} ({jax.default_backend()}), "
              f"global batch {args.batch} = {count} x {args.batch // count} rows")
        print(f"batch sharding: {xs.jax().sharding.spec}; weights and their gradients "
              f"replicated: {all(t.jax().is_fully_replicated for t in [*ws, *grads])}")
        for step, value in enumerate(losses):
            print(f"step {step:3d} loss {value!r}")
        print(f"steps/s: {(args.steps - timed) / elapsed:.1f} "
              f"(steps {timed}-{args.steps - 1}, after compiling)")
        if args.save:
            np.savez(args.save, losses=np.array(losses), w0=final[0], w1=final[1],
                     initial_w0=weights[0], initial_w1=weights[1])


if __name__ == "__main__":
    main()
