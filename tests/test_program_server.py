"""tests/program_server.py runs a program as ``python -c`` would: the same output,
exit status, traceback, argv, working directory and ``__main__``; with a fresh
interpreter's randomness; a timeout as subprocess.run's."""
import doctest
import subprocess
import sys

import pytest

import program_server

PRELOAD = "import json, random"

CASES = {
    "output and argv": "import sys; print(sys.argv); print('err', file=sys.stderr)",
    "exception": "def f():\n    raise ValueError('bad 3')\nf()",
    "sys.exit": "import sys; print('before'); sys.exit(4)",
    "os._exit": "import os; os._exit(5)",
    "killed": "import os, signal; os.kill(os.getpid(), signal.SIGKILL)",
    "atexit and threads": ("import atexit, threading, time\natexit.register(print, 'atexit')\n"
                           "threading.Thread(target=lambda: (time.sleep(0.2), print('thread'))"
                           ").start()"),
    "__main__": ("class A: pass\nimport pickle, __main__\n"
                 "print(pickle.loads(pickle.dumps(A())).__class__ is A, __name__, "
                 "sorted(k for k in vars(__main__) if not k.startswith('__')))"),
    "cwd": "import os; print(os.getcwd())",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_child_is_what_python_c_gives(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = CASES[name]
    want = subprocess.run([sys.executable, "-c", code, "a", "b"], capture_output=True,
                          text=True, timeout=60)
    got = program_server.run(code, ["a", "b"], preload=PRELOAD, timeout=60)
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout,
                                                        want.stderr)


def test_two_children_draw_different_random_numbers():
    code = "import random; print(random.random())"
    outs = {program_server.run(code, preload=PRELOAD).stdout for _ in range(3)}
    assert len(outs) == 3


def test_a_timeout_is_subprocess_runs_and_the_next_program_runs():
    with pytest.raises(subprocess.TimeoutExpired):
        program_server.run("import time; time.sleep(30)", preload=PRELOAD, timeout=1)
    assert program_server.run("print(1)", preload=PRELOAD).stdout == "1\n"


def test_its_example_runs():
    assert doctest.testmod(program_server).failed == 0
