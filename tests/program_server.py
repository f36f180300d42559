"""Programs run as ``python -c CODE ARGS...`` would run them, without paying the
imports again for each: a server process imports what every program of a kind
imports first (TensorFlow, or ``eagertape.tf`` and Keras), then forks a child for
each program.

Why: on the 2-core machine ``import tensorflow`` takes 6-10 s and ``eagertape.tf``
with Keras 3-5 s, and ``tests/test_keras.py`` runs about a hundred programs, each in
a process of its own (Keras has one backend a process). The imports were a third of
that module's time.

What a child is: a process of its own, forked from a server that has run nothing
but ``preload`` (imports), with the same environment, working directory, ``argv``
and a fresh ``__main__``; its stdout and stderr are files; it exits as an
interpreter exits (``atexit``, non-daemon threads joined), and its exit status is
``python -c``'s (1 and a traceback on an uncaught exception). Its ``random`` and
NumPy global generators are reseeded from the OS, as a fresh interpreter's are.
What it is not: an interpreter whose startup ran something other than ``preload``.
A server is kept per ``(preload, environment)``; a program that sets a variable read
at import must get it through ``env`` (a new server), not set it itself.

The server refuses to fork once a JAX backend has started (JAX runs threads from
then on): ``preload`` imports, it does not compute. ``EAGERTAPE_TEST_FORK=off``
starts a fresh interpreter for every program instead (the same results, slower).

A program's own subprocesses can be served too: each server also listens on a Unix
socket (``address(preload, env)`` starts or finds it and gives the socket's path), and
``run_at(address, ...)`` runs a program there from any process; a request carries its
environment, which the child takes (what is read at import is the server's).
``serve_python_runs(module, address)`` makes a module's
``subprocess.run([sys.executable, ..., "-c", code, *args])`` calls children of that
server: eagertape's ``tf.saved_model.save`` starts a TensorFlow process for each
SavedModel it writes (``import tensorflow``: 7 s of CPU), and the census programs and
``tests/test_tf_saved_model.py`` write several each.
"""
import atexit
import hashlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading

_SERVER = r'''
import json, os, select, socket, sys, traceback, types
_reply = os.fdopen(os.dup(1), "w")     # the replies' own pipe: what the preload prints
os.dup2(2, 1)                          # goes to the server's stderr
_listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
_listener.bind(sys.argv[2])            # other processes' requests (run_at)
_listener.listen(8)
exec(compile(sys.argv[1], "<preload>", "exec"), {"__name__": "__preload__"})
_xb = sys.modules.get("jax._src.xla_bridge")
if _xb is not None and getattr(_xb, "_backends", None):
    print(json.dumps({"error": "the preload started a JAX backend: it may not fork"}),
          file=_reply, flush=True)
    sys.exit(3)
print(json.dumps({"ready": os.getpid()}), file=_reply, flush=True)


def _child(req, conn):
    _listener.close()
    if conn is not None:
        conn.close()
    if "env" in req:                   # a request from another process: its environment
        os.environ.clear()
        os.environ.update(req["env"])
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
        f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(f, fd)
        os.close(f)
    _reply.close()
    sys.stdin = open(0, "r", closefd=False)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)
    os.chdir(req["cwd"])
    sys.argv = ["-c"] + req["argv"]
    if "random" in sys.modules:
        sys.modules["random"].seed()
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    main = types.ModuleType("__main__")
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    try:
        exec(compile(req["code"], "<string>", "exec"), main.__dict__)
    except SystemExit:
        raise
    except BaseException:
        kind, exc, tb = sys.exc_info()
        traceback.print_exception(kind, exc, tb.tb_next)
        sys.exit(1)
    sys.exit(0)


def _serve(req, conn):
    pid = os.fork()
    if pid == 0:
        _child(req, conn)
    while conn is not None:            # a client that goes (its timeout) ends its child
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if select.select([conn], [], [], 0.05)[0] and not conn.recv(1):
            os.kill(pid, 9)
            conn = None
    else:
        _, status, usage = os.wait4(pid, 0)
    return json.dumps({"rc": os.waitstatus_to_exitcode(status),
                       "cpu": usage.ru_utime + usage.ru_stime}) + "\n"


while True:
    ready, _, _ = select.select([sys.stdin, _listener], [], [])
    if sys.stdin in ready:
        line = sys.stdin.readline()
        if not line:
            break
        print(_serve(json.loads(line), None), end="", file=_reply, flush=True)
    if _listener in ready:
        conn, _ = _listener.accept()
        with conn:
            line = conn.makefile("r").readline()
            if line:
                try:
                    conn.sendall(_serve(json.loads(line), conn).encode())
                except OSError:          # the client gave up (its timeout)
                    pass
'''

_MAX_SERVERS = 4
_servers = {}           # (preload, environment) -> _Server, oldest first
_lock = threading.Lock()


def enabled():
    return hasattr(os, "fork") and os.environ.get("EAGERTAPE_TEST_FORK", "on") != "off"


class _Server:
    def __init__(self, preload, env, flags=()):
        self._err = tempfile.TemporaryFile()
        self._dir = tempfile.mkdtemp(prefix="program-server-")
        self.address = os.path.join(self._dir, "socket")
        self.proc = subprocess.Popen([sys.executable, *flags, "-c", _SERVER, preload, self.address],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._err, env=env, text=True,
                                     start_new_session=True)
        reply = self._reply(timeout=600)
        if not reply or "ready" not in reply:
            self.close()
            self._err.seek(0)
            raise RuntimeError(f"the program server did not start: {reply!r}\n"
                               + self._err.read().decode(errors="replace")[-3000:])

    def _reply(self, timeout):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        return json.loads(line) if line else None

    def run(self, code, args, cwd, timeout):
        with tempfile.TemporaryDirectory() as tmp:
            out, err = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
            req = {"code": code, "argv": list(args), "cwd": cwd, "stdout": out, "stderr": err}
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
            reply = self._reply(timeout)
            if reply is None:
                self.close()
                raise subprocess.TimeoutExpired([sys.executable, "-c", "..."] + list(args),
                                                timeout)
            return _completed(code, args, reply, out, err)

    def alive(self):
        return self.proc.poll() is None

    def close(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
        self.proc.wait()
        self._err.close()
        shutil.rmtree(self._dir, ignore_errors=True)


def run(code, args=(), *, preload, env=None, cwd=None, timeout=600):
    """``subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
    text=True, env=env, cwd=cwd, timeout=timeout)``'s CompletedProcess, the program
    run in a child of a server that has run ``preload`` (module docstring); its
    ``cpu_seconds`` is the child's CPU time (None from a fresh interpreter).

    >>> run("import sys; print(sys.argv[1:])", ["a"], preload="import json").stdout
    "['a']\\n"
    """
    env = dict(os.environ if env is None else env)
    cwd = os.path.abspath(cwd or os.getcwd())
    if not enabled():
        r = subprocess.run([sys.executable, "-c", code] + list(args), capture_output=True,
                           text=True, env=env, cwd=cwd, timeout=timeout)
        r.cpu_seconds = None
        return r
    with _lock:
        return _server(preload, env, ()).run(code, args, cwd, timeout)


def _server(preload, env, flags):
    key = (preload, tuple(sorted(env.items())), tuple(flags))
    server = _servers.pop(key, None)
    if server is None or not server.alive():
        while len(_servers) >= _MAX_SERVERS:
            _servers.pop(next(iter(_servers))).close()
        server = _Server(preload, env, flags)
    _servers[key] = server                  # the newest last
    return server


def address(preload, env=None, flags=()):
    """The Unix socket of the server that has run ``preload`` with ``env`` (started
    with the interpreter's ``flags``, e.g. ``("-P",)``), started if there is none: for
    ``run_at`` from other processes, while this one lives (the server is closed at
    its exit or when ``_MAX_SERVERS`` newer ones are made). None where servers are off
    (``enabled()``).

    >>> a = address("import json")
    >>> run_at(a, "import sys, os; print(sys.argv[1:], os.environ['X'])", ["b"],
    ...        env=dict(os.environ, X="1")).stdout
    "['b'] 1\\n"
    """
    if not enabled():
        return None
    env = dict(os.environ if env is None else env)
    with _lock:
        return _server(preload, env, flags).address


def run_at(address, code, args=(), *, env=None, cwd=None, timeout=None):
    """``run``'s CompletedProcess, from any process (a program's own subprocess): the
    program run in a child of the server listening at ``address``, with ``env`` (this
    process's environment if None) and ``cwd`` (this one's if None)."""
    env = dict(os.environ if env is None else env)
    cwd = os.path.abspath(cwd or os.getcwd())
    with tempfile.TemporaryDirectory() as tmp:
        out, err = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
        req = {"code": code, "argv": list(args), "cwd": cwd, "stdout": out, "stderr": err,
               "env": env}
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            try:
                conn.connect(address)
                conn.sendall((json.dumps(req) + "\n").encode())
                line = conn.makefile("r").readline()
            except socket.timeout:
                raise subprocess.TimeoutExpired([sys.executable, "-c", "..."] + list(args),
                                                timeout) from None
        if not line:
            raise RuntimeError(f"the program server at {address} closed the connection")
        return _completed(code, args, json.loads(line), out, err)


def _completed(code, args, reply, out, err):
    # ``cpu_seconds``: the child's CPU time (user and system, its own children waited
    # for included), which a busy machine changes less than the wall time.
    with open(out, errors="replace") as f, open(err, errors="replace") as g:
        r = subprocess.CompletedProcess([sys.executable, "-c", code] + list(args),
                                        reply["rc"], f.read(), g.read())
    r.cpu_seconds = reply.get("cpu")
    return r


class _PythonRuns:
    """A stand-in for a module's ``subprocess``: ``run([sys.executable, FLAGS..., "-c",
    code, *args], capture_output=True, text=True, ...)`` is ``run_at``; anything
    else is the real module's."""

    def __init__(self, address):
        self._address = address

    def __getattr__(self, name):
        return getattr(subprocess, name)

    def run(self, cmd, *a, capture_output=False, text=False, env=None, cwd=None,
            timeout=None, **kw):
        cmd = list(cmd)
        if (not a and not kw and capture_output and text and cmd[:1] == [sys.executable]
                and "-c" in cmd[1:] and all(f.startswith("-") for f in cmd[1:cmd.index("-c")])):
            i = cmd.index("-c")
            return run_at(self._address, cmd[i + 1], cmd[i + 2:], env=env, cwd=cwd,
                          timeout=timeout)
        return subprocess.run(cmd, *a, capture_output=capture_output, text=text, env=env,
                              cwd=cwd, timeout=timeout, **kw)


def serve_python_runs(module, address):
    """Make ``module``'s ``subprocess.run([sys.executable, FLAGS..., "-c", code,
    *args], capture_output=True, text=True, env=..., cwd=..., timeout=...)`` calls
    ``run_at(address, code, args, ...)``: children of the server at ``address``
    (whose interpreter flags are the server's, ``address(..., flags=)``); its other
    ``subprocess`` calls are left as they are. The module must use ``subprocess.run``
    through its module attribute ``subprocess``."""
    if address is not None:
        module.subprocess = _PythonRuns(address)


# eagertape's tf.saved_model.save (and Keras's export through tf.keras) writes each
# SavedModel in a TensorFlow process of its own (eagertape/tf/_saved_model_tf.py, run
# as `python -P -c SOURCE WORK OUT`): as a child of a server that has imported what
# it imports, `import tensorflow` is paid once a test process, not once a SavedModel.
# The child runs the same source on the same files, in the program's environment.
SAVED_MODEL_WRITER = ("import inspect, json, os, sys, numpy, jax, tensorflow; "
                      "from jax.experimental import jax2tf")
_WRITER_HOOK = (
    "\nimport importlib.util as _u, os as _os\n"
    "_s = _u.spec_from_file_location('_program_server', {path!r})\n"
    "_ps = _u.module_from_spec(_s)\n"
    "_s.loader.exec_module(_ps)\n"
    "import eagertape.tf.saved_model as _sm\n"
    "_ps.serve_python_runs(_sm, _os.environ.get({variable!r}))\n")


def saved_model_writer(env=None):
    """The address of the server for eagertape's SavedModel writer
    (``SAVED_MODEL_WRITER``, with ``env``; None where servers are off). Its children
    have TensorFlow and JAX imported: a TF program (``run_at``) can run there too."""
    env = {k: v for k, v in (os.environ if env is None else env).items()
           if k not in ("KERAS_BACKEND", "EAGERTAPE_EXECUTION_MODE")}
    return address(SAVED_MODEL_WRITER, env, ("-P",))


def with_saved_model_writer(preload, variable):
    """``preload`` and then what makes eagertape's SavedModel writes (in the children
    of its server) children of the server whose address is in the environment
    variable ``variable`` (``saved_model_writer()``); without it, fresh processes."""
    return preload + _WRITER_HOOK.format(path=os.path.abspath(__file__), variable=variable)


# For tests/tf_oracle.py's keys: a program's outcome depends on this file's text, not
# on which servers are alive.
with open(__file__, "rb") as _f:
    run.__oracle_key__ = hashlib.sha256(_f.read()).hexdigest()


@atexit.register
def close_all():
    with _lock:
        while _servers:
            _servers.popitem()[1].close()
