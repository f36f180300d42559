"""eagertape's benchmark: the same gradient workloads timed in eagertape (eager and
fused mode), ``jax.jit``, TF eager, PyTorch eager and HIPS autograd, side by side.

It lives in the repository, not in the installed package. From a checkout::

    python -m benchmarks --quick --workloads chain10     # a smoke run
    python -m benchmarks --json bench.json               # every workload, 15 rounds
    python -m benchmarks --targets                       # and the project's own targets

``python -m eagertape bench`` runs the same command where it finds the checkout.

Modules: ``core`` (the workloads, ``run``, ``report``, ``plot``), ``keras_workloads``
(the TF-Keras workloads), ``harness`` (timing and tables), ``targets`` (the
project's targets, read from ``targets.toml``), ``cli`` (the command line).
"""
from .cli import main

__all__ = ["main"]
