"""``python -m eagertape.launch -n N script.py [args]``: run a program as N JAX
processes on this machine, for trying a ``jax.distributed`` program without a
cluster.

Each process is started with

- ``JAX_COORDINATOR_ADDRESS=localhost:PORT`` (a free port; ``jax.distributed.initialize``
  reads it from the environment),
- ``JAX_NUM_PROCESSES=N`` and ``JAX_PROCESS_ID=i`` (0 to N-1; the program passes them
  as ``num_processes=`` and ``process_id=``, see ``examples/multiprocess_data_parallel.py``),
- the devices JAX finds: on CPU, one CPU device of its own per process;
  ``--cpu-devices K`` runs each process on CPU with K devices (``JAX_PLATFORMS=cpu``,
  ``XLA_FLAGS=--xla_force_host_platform_device_count=K``), also on a machine with
  GPUs, where every process would otherwise claim every GPU.

Output lines come back prefixed with the process (``[p0] ...``; standard error
stays standard error). The launcher waits for every process and exits 0 when all
succeed. When one fails, it names the process and its exit code, stops the others
at once (they would otherwise wait in a collective for the failed one) and exits
with that code; past ``--timeout`` seconds it stops all of them and exits 124. A
program that raises makes its process exit at once: it runs under a small wrapper
that prints the traceback and skips JAX's exit-time shutdown barrier, where the
process would otherwise wait minutes for the others.

Several hosts and GPU/TPU slices have their own launchers (SLURM's ``srun``, a TPU
pod's ``--worker=all``, ``mpirun``) whose environment ``jax.distributed.initialize()``
reads without arguments; this one is for one machine.

From Python, :func:`launch` does the same and returns the exit code::

    >>> import sys
    >>> from eagertape.launch import launch
    >>> launch(["-c", "import os; print('process', os.environ['JAX_PROCESS_ID'])"],
    ...        num_processes=2, python=sys.executable, out=lambda line: None)
    0
"""
import argparse
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time

__all__ = ["launch", "main"]

TIMEOUT_EXIT_CODE = 124


def free_port():
    """A TCP port on localhost that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _forward(stream, prefix, out):
    for line in iter(stream.readline, ""):
        out(prefix + line.rstrip("\n"))
    stream.close()


def _stop(procs, grace=3.0):
    """SIGTERM (Windows: terminate) every process still running, then kill the ones
    that did not end within ``grace`` seconds."""
    for p in procs:
        if p.poll() is None:
            p.terminate()
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


# Each process runs its program under this wrapper (python -c _CHILD program args).
# A process whose program raises must exit at once: after jax.distributed.initialize,
# a normal interpreter exit waits in JAX's shutdown barrier for every other process
# (minutes), and the others wait in their next collective for it, so the failure
# would look like a hang. The wrapper prints the traceback and leaves with
# os._exit, skipping that barrier; a program that finishes exits normally.
_CHILD = r"""
import os, runpy, sys, traceback
def _run():
    kind, target = sys.argv[1], sys.argv[2]
    sys.argv = [target if kind == "path" else ("-c" if kind == "code" else target),
                *sys.argv[3:]]
    if kind == "path":
        sys.path[0] = os.path.dirname(os.path.abspath(target))
        runpy.run_path(target, run_name="__main__")
    elif kind == "module":
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
try:
    _run()
except SystemExit as e:
    if e.code not in (None, 0):
        if not isinstance(e.code, int):
            print(e.code, file=sys.stderr)
        sys.stdout.flush(); sys.stderr.flush()
        os._exit(e.code if isinstance(e.code, int) else 1)
    raise
except BaseException as e:
    tb = e.__traceback__.tb_next          # the program's frames, not this wrapper's
    while tb is not None and (tb.tb_frame.f_code is _run.__code__
                              or tb.tb_frame.f_code.co_filename in (runpy.__file__, "<frozen runpy>")):
        tb = tb.tb_next
    traceback.print_exception(type(e), e, tb)
    sys.stdout.flush(); sys.stderr.flush()
    os._exit(130 if isinstance(e, KeyboardInterrupt) else 1)
"""


def _child_command(python, argv):
    if argv[0] == "-m":
        return [python, "-c", _CHILD, "module", *argv[1:]]
    if argv[0] == "-c":
        return [python, "-c", _CHILD, "code", *argv[1:]]
    return [python, "-c", _CHILD, "path", *argv]


def launch(argv, num_processes, *, port=None, timeout=None, cpu_devices=None,
           python=None, out=None, err=None):
    """Run ``python argv...`` as ``num_processes`` JAX processes on this machine and
    return the exit code: 0 when every process succeeded, else the first failing
    process's code (1 if it was killed by a signal), or 124 past ``timeout`` seconds.

    Args:
      argv: the program and its arguments as given to ``python`` (``["train.py",
        "--steps", "5"]``, ``["-m", "pkg.train"]`` or ``["-c", "code"]``).
      num_processes: how many processes, at least 1.
      port: the coordinator's port on localhost (default: a free one).
      timeout: seconds before every process is stopped (default: no limit).
      cpu_devices: if given, each process runs on CPU with this many devices.
      python: the interpreter (default: this one).
      out, err: called with each prefixed line of the processes' standard output
        and standard error (default: print to this process's stdout and stderr).

    Example::

        >>> import sys
        >>> from eagertape.launch import launch
        >>> lines = []
        >>> launch(["-c", "import os; print(os.environ['JAX_NUM_PROCESSES'])"],
        ...        num_processes=2, python=sys.executable, out=lines.append)
        0
        >>> sorted(lines)
        ['[p0] 2', '[p1] 2']
    """
    if isinstance(argv, str) or not argv or not all(isinstance(a, str) for a in argv):
        raise TypeError(f"launch: argv must be a non-empty list of strings (the program "
                        f"and its arguments, e.g. ['train.py', '--steps', '5']), got {argv!r}")
    if isinstance(num_processes, bool) or not isinstance(num_processes, int) or num_processes < 1:
        raise ValueError(f"launch: num_processes must be an int >= 1, got {num_processes!r}")
    if timeout is not None and not timeout > 0:
        raise ValueError(f"launch: timeout must be a positive number of seconds, got {timeout!r}")
    if cpu_devices is not None and (isinstance(cpu_devices, bool) or not isinstance(cpu_devices, int)
                                    or cpu_devices < 1):
        raise ValueError(f"launch: cpu_devices must be an int >= 1, got {cpu_devices!r}")
    out = out or (lambda line: print(line, flush=True))
    err = err or (lambda line: print(line, file=sys.stderr, flush=True))
    python = python or sys.executable
    port = port or free_port()

    lock = threading.Lock()

    def locked(write):
        def call(line):
            with lock:                  # whole lines, never two interleaved
                write(line)
        return call

    procs, threads = [], []
    try:
        for i in range(num_processes):
            env = dict(os.environ, JAX_COORDINATOR_ADDRESS=f"localhost:{port}",
                       JAX_NUM_PROCESSES=str(num_processes), JAX_PROCESS_ID=str(i),
                       PYTHONUNBUFFERED="1")
            if cpu_devices is not None:
                env["JAX_PLATFORMS"] = "cpu"
                flags = [f for f in env.get("XLA_FLAGS", "").split()
                         if not f.startswith("--xla_force_host_platform_device_count")]
                env["XLA_FLAGS"] = " ".join(
                    flags + [f"--xla_force_host_platform_device_count={cpu_devices}"])
            p = subprocess.Popen(_child_command(python, argv), env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, errors="replace")
            procs.append(p)
            for stream, write in ((p.stdout, out), (p.stderr, err)):
                t = threading.Thread(target=_forward, args=(stream, f"[p{i}] ", locked(write)),
                                     daemon=True)
                t.start()
                threads.append(t)

        # One waiter per process reports its exit, so the first process to fail is
        # the one named even when the others die of its failure moments later.
        exits = queue.Queue()
        for i, p in enumerate(procs):
            threading.Thread(target=lambda i=i, p=p: exits.put((i, p.wait())),
                             daemon=True).start()
        deadline = None if timeout is None else time.monotonic() + timeout
        code, done = 0, set()
        while len(done) < num_processes:
            try:
                # A short wait keeps Ctrl-C and SIGTERM (handled between waits) prompt.
                i, status = exits.get(timeout=0.2)
            except queue.Empty:
                if deadline is None or time.monotonic() < deadline:
                    continue
                running = [str(j) for j in range(num_processes) if j not in done]
                locked(err)(f"eagertape.launch: timed out after {timeout:g} s; stopping "
                            f"process(es) {', '.join(running)}")
                code = TIMEOUT_EXIT_CODE
                break
            done.add(i)
            if status != 0:
                running = num_processes - len(done)
                locked(err)(f"eagertape.launch: process {i} of {num_processes} failed with "
                            f"exit code {status}" +
                            (f"; stopping the other {running} still running" if running else ""))
                code = status if status > 0 else 1
                break
    finally:
        _stop(procs)                    # also on KeyboardInterrupt or an error here
        for t in threads:
            t.join(5)
    return code


def main(argv=None):
    """The command line: ``python -m eagertape.launch -n N script.py [args]``."""
    parser = argparse.ArgumentParser(
        prog="python -m eagertape.launch",
        description="Run a JAX program as N processes on this machine, joined by "
                    "jax.distributed through a localhost coordinator.",
        epilog="Each process gets JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES and "
               "JAX_PROCESS_ID. Example: python -m eagertape.launch -n 4 "
               "examples/multiprocess_data_parallel.py")
    parser.add_argument("-n", "--num-processes", type=int, default=2,
                        help="how many processes (default 2)")
    parser.add_argument("--port", type=int, help="the coordinator's port (default: a free one)")
    parser.add_argument("--timeout", type=float,
                        help="stop every process after this many seconds and exit 124")
    parser.add_argument("--cpu-devices", type=int, metavar="K",
                        help="run each process on CPU with K devices")
    parser.add_argument("-m", dest="module", metavar="MODULE",
                        help="run a module (as python -m MODULE) instead of a script")
    parser.add_argument("program", nargs=argparse.REMAINDER,
                        help="the script and its arguments")
    args = parser.parse_args(argv)
    rest = args.program[1:] if args.program[:1] == ["--"] else args.program
    if args.module:
        program = ["-m", args.module, *rest]
    elif rest:
        program = list(rest)
    else:
        parser.error("give the script to run (python -m eagertape.launch -n 2 train.py) "
                     "or -m MODULE")
    if args.num_processes < 1:
        parser.error(f"-n/--num-processes must be at least 1, got {args.num_processes}")
    if args.cpu_devices is not None and args.cpu_devices < 1:
        parser.error(f"--cpu-devices must be at least 1, got {args.cpu_devices}")
    if args.timeout is not None and args.timeout <= 0:
        parser.error(f"--timeout must be a positive number of seconds, got {args.timeout:g}")
    if program[0] not in ("-c", "-m") and not os.path.exists(program[0]):
        parser.error(f"no such script: {program[0]!r}")
    return launch(program, args.num_processes, port=args.port, timeout=args.timeout,
                  cpu_devices=args.cpu_devices)


if __name__ == "__main__":
    # SIGTERM to the launcher stops its processes too (the finally in launch).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    sys.exit(main())
