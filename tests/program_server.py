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
"""
import atexit
import hashlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading

_SERVER = r'''
import json, os, sys, traceback, types
_reply = os.fdopen(os.dup(1), "w")     # the replies' own pipe: what the preload prints
os.dup2(2, 1)                          # goes to the server's stderr
exec(compile(sys.argv[1], "<preload>", "exec"), {"__name__": "__preload__"})
_xb = sys.modules.get("jax._src.xla_bridge")
if _xb is not None and getattr(_xb, "_backends", None):
    print(json.dumps({"error": "the preload started a JAX backend: it may not fork"}),
          file=_reply, flush=True)
    sys.exit(3)
print(json.dumps({"ready": os.getpid()}), file=_reply, flush=True)


def _child(req):
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


for line in sys.stdin:
    req = json.loads(line)
    pid = os.fork()
    if pid == 0:
        _child(req)
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"rc": os.waitstatus_to_exitcode(status)}), file=_reply, flush=True)
'''

_MAX_SERVERS = 4
_servers = {}           # (preload, environment) -> _Server, oldest first
_lock = threading.Lock()


def enabled():
    return hasattr(os, "fork") and os.environ.get("EAGERTAPE_TEST_FORK", "on") != "off"


class _Server:
    def __init__(self, preload, env):
        self._err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-c", _SERVER, preload],
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
            with open(out, errors="replace") as f, open(err, errors="replace") as g:
                return subprocess.CompletedProcess([sys.executable, "-c", code] + list(args),
                                                   reply["rc"], f.read(), g.read())

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


def run(code, args=(), *, preload, env=None, cwd=None, timeout=600):
    """``subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
    text=True, env=env, cwd=cwd, timeout=timeout)``'s CompletedProcess, the program
    run in a child of a server that has run ``preload`` (module docstring).

    >>> run("import sys; print(sys.argv[1:])", ["a"], preload="import json").stdout
    "['a']\\n"
    """
    env = dict(os.environ if env is None else env)
    cwd = os.path.abspath(cwd or os.getcwd())
    if not enabled():
        return subprocess.run([sys.executable, "-c", code] + list(args), capture_output=True,
                              text=True, env=env, cwd=cwd, timeout=timeout)
    key = (preload, tuple(sorted(env.items())))
    with _lock:
        server = _servers.pop(key, None)
        if server is None or not server.alive():
            while len(_servers) >= _MAX_SERVERS:
                _servers.pop(next(iter(_servers))).close()
            server = _Server(preload, env)
        _servers[key] = server                  # the newest last
        return server.run(code, args, cwd, timeout)


# For tests/tf_oracle.py's keys: a program's outcome depends on this file's text, not
# on which servers are alive.
with open(__file__, "rb") as _f:
    run.__oracle_key__ = hashlib.sha256(_f.read()).hexdigest()


@atexit.register
def close_all():
    with _lock:
        while _servers:
            _servers.popitem()[1].close()
