"""tests/program_server.py's servers for other processes: ``run_at`` (a Unix socket)
runs a program as ``python -c`` would, with the request's environment and working
directory, and ``serve_python_runs`` makes a module's ``subprocess.run`` of
``[sys.executable, ..., "-c", ...]`` such a child, and nothing else."""
import os
import subprocess
import sys
import types

import pytest

import program_server

pytestmark = pytest.mark.skipif(not program_server.enabled(), reason="no fork here")

CODE = ("import os, sys; print(sys.argv[1:], os.getcwd(), os.environ.get('PS_X'), "
        "sys.path[0] == '' or sys.path[0] == os.getcwd()); "
        "print('err', file=sys.stderr); sys.exit(int(sys.argv[1]))")


@pytest.mark.parametrize("flags", [(), ("-P",)])
def test_a_child_at_an_address_is_what_python_c_gives(flags, tmp_path):
    env = dict(os.environ, PS_X="from the request")
    want = subprocess.run([sys.executable, *flags, "-c", CODE, "3", "b"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=60)
    module = types.SimpleNamespace(subprocess=subprocess)
    program_server.serve_python_runs(module, program_server.address("import json", flags=flags))
    got = module.subprocess.run([sys.executable, *flags, "-c", CODE, "3", "b"],
                                capture_output=True, text=True, env=env, cwd=tmp_path)
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)
    assert want.returncode == 3 and "from the request" in want.stdout
    assert got.cpu_seconds is not None and got.cpu_seconds >= 0


def test_other_calls_are_the_real_subprocess(tmp_path):
    module = types.SimpleNamespace(subprocess=subprocess)
    program_server.serve_python_runs(module, program_server.address("import json"))
    r = module.subprocess.run([sys.executable, "-c", "print(7)"], stdout=subprocess.PIPE,
                              text=True)          # not capture_output: not served
    assert r.stdout == "7\n" and not hasattr(r, "cpu_seconds")
    assert module.subprocess.PIPE == subprocess.PIPE
    assert module.subprocess.run(["true"]).returncode == 0


def test_a_timeout_at_an_address_is_subprocess_runs():
    a = program_server.address("import json")
    with pytest.raises(subprocess.TimeoutExpired):
        program_server.run_at(a, "import time; time.sleep(30)", timeout=1)
    assert program_server.run_at(a, "print(2)", timeout=60).stdout == "2\n"
