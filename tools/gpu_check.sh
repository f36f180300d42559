#!/usr/bin/env bash
# The one script of a GPU check, run from the repository root on the machine
# with the accelerator: the benchmark at GPU sizes, then the test suite, within
# 570 s in all (the machine is lent for short, timed runs). Results go to $OUT:
#   bench_gpu.json, bench_gpu.txt   python -m benchmarks --targets (report and progress)
#   bench_gpu_extras.{json,txt}     its extras: training loop, first steps, memory
#   tests_gpu.txt                   pytest's output
# and a summary is printed last: the project's targets (benchmarks/targets.toml)
# against this run, and pytest's final line.
#
#   OUT=results bash tools/gpu_check.sh
#   GPU_CHECK_QUICK=1 OUT=results bash tools/gpu_check.sh   # a smoke run, on a CPU too
#
# Wheels in .whl/ (Keras, say, where the machine has none) are installed first,
# into a folder of their own, without dependencies or an index.
set -u
: "${OUT:?set OUT to the folder for the results}"
mkdir -p "$OUT"
BUDGET=570                 # seconds, from this script's start
quick=${GPU_CHECK_QUICK:-}

echo "== machine"
if command -v nvidia-smi >/dev/null 2>&1; then nvidia-smi -L; else echo "nvidia-smi: not found"; fi

if compgen -G ".whl/*.whl" >/dev/null; then
    # One wheel at a time: .whl/ may hold a compiled wheel for each of several Pythons
    # (the GPU machine's is not this one's), and pip refuses a whole list for one that
    # does not fit. A wheel that does not fit this Python is passed over.
    site=$(mktemp -d)
    fitted=() skipped=()
    for w in .whl/*.whl; do
        if python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
                --upgrade --target "$site" "$w" 2>/dev/null; then
            fitted+=("${w#.whl/}")
        else
            skipped+=("${w#.whl/}")
        fi
    done
    echo "installed into $site: ${fitted[*]}"
    [ ${#skipped[@]} -gt 0 ] && echo "not for this Python: ${skipped[*]}"
    export PYTHONPATH="$site:$PWD"
else
    export PYTHONPATH="$PWD"
fi
# JAX takes 75% of the GPU's memory at its first use unless told: PyTorch in the
# same process, and the test workers beside each other, need theirs.
export XLA_PYTHON_CLIENT_PREALLOCATE=false
export PYTHONUNBUFFERED=1

python3 - <<'EOF'
import sys
print("python", sys.version.split()[0])
import os
import eagertape
import jax
here = os.path.dirname(eagertape.__file__) == os.path.join(os.getcwd(), "eagertape")
print("eagertape", eagertape.__version__, "(this checkout)" if here else "(NOT this checkout)")
print("jax", jax.__version__, "backend", jax.default_backend(), "devices", jax.devices())
try:
    import torch
    print("torch", torch.__version__, "cuda available:", torch.cuda.is_available(),
          torch.cuda.get_device_name() if torch.cuda.is_available() else "")
except ImportError as e:
    print("torch: not importable:", e)
EOF

# Every workload that is the default on this backend, the Keras ones only where
# Keras imports on JAX (an importable but broken Keras would stop the run).
if python3 -c "import eagertape.tf as tf; tf.keras" >/dev/null 2>&1; then
    keras=1
else
    keras=
    echo "Keras does not import on JAX here: its workloads are left out"
fi
if [ -n "$quick" ]; then
    bench_args=(--quick --workloads long1000,chain10)
    extras_args=(--rounds 1 --workloads chain10 --systems eagertape,fused,jax.jit)
    tests=(tests/test_structure.py)
    workers=2
else
    # The device-sized core workloads first; Keras's beside the extras, in a run of
    # their own: on 2026-11-28 all of them at 7 rounds in one run passed step 1a's
    # limit during keras_mlp, and a run stopped by its limit reports nothing.
    workloads=$(python3 -c "
from benchmarks import core, keras_workloads as kb
print(','.join(w for w in core.default_workloads() if w not in kb.WORKLOADS))")
    keras_workloads=$(KERAS=$keras python3 -c "
import os
from benchmarks import core, keras_workloads as kb
print(''.join(',' + w for w in core.default_workloads()
              if os.environ['KERAS'] and w in kb.WORKLOADS))")
    bench_args=(--rounds 5 --no-extras --workloads "$workloads")
    # The extras (training loop, first steps, memory) after one cheap workload.
    extras_args=(--rounds 3 --workloads "mlp_step$keras_workloads")
    tests=(tests)
    workers=16
fi

# Two runs, so that a timeout in one still leaves the other's report.
# Progress lines (stderr) go to the files too: they tell how far a run got.
echo
echo "== step 1a: python -m benchmarks --targets ${bench_args[*]}"
timeout 200 python3 -m benchmarks --targets "${bench_args[@]}" --json "$OUT/bench_gpu.json" 2>&1 \
    | tee "$OUT/bench_gpu.txt"
bench_rc=${PIPESTATUS[0]}
# Seen once on an H100 machine (cause not established): the report and the JSON
# were written, then the limit came before the process had exited. That run is
# complete, so it counts as one.
finished() { [ "$1" = 124 ] && grep -q '^wrote ' "$2" && echo 0 || echo "$1"; }
bench_rc=$(finished "$bench_rc" "$OUT/bench_gpu.txt")
echo "bench exit status: $bench_rc$([ "$bench_rc" = 124 ] && echo ' (timed out)')"
echo
echo "== step 1b: python -m benchmarks --targets ${extras_args[*]}"
timeout 150 python3 -m benchmarks --targets "${extras_args[@]}" --json "$OUT/bench_gpu_extras.json" \
    2>&1 | tee "$OUT/bench_gpu_extras.txt"
extras_rc=${PIPESTATUS[0]}
extras_rc=$(finished "$extras_rc" "$OUT/bench_gpu_extras.txt")
echo "bench (extras) exit status: $extras_rc$([ "$extras_rc" = 124 ] && echo ' (timed out)')"

echo
# --maxfail, not -x: one run should show every failure it can. Verbose: a line per
# test as it ends, so a run stopped by the time limit still says what passed and
# what failed (pytest's own summary comes only at the end).
pytest_args=(-v --maxfail=25 --no-header -p no:cacheprovider)
# The plugins the GPU machine has; a machine without them runs the tests in one
# process, with no time limit per test.
if python3 -c "import xdist" 2>/dev/null; then pytest_args+=(-n "$workers"); fi
if python3 -c "import pytest_timeout" 2>/dev/null; then pytest_args+=(--timeout 300); fi
left=$((BUDGET - SECONDS - 15))    # 15 s for the summary and the way out
echo "== step 2: pytest ${pytest_args[*]} ${tests[*]} (${left} s left)"
if [ "$left" -gt 30 ]; then
    timeout "$left" python3 -m pytest "${pytest_args[@]}" "${tests[@]}" 2>&1 | tee "$OUT/tests_gpu.txt"
    tests_rc=${PIPESTATUS[0]}
else
    echo "no time left for the tests" | tee "$OUT/tests_gpu.txt"
    tests_rc=124
fi

echo
echo "== summary (${SECONDS} s)"
echo "bench: exit status $bench_rc, extras $extras_rc"
sed -n '/^targets: /,/^$/p' "$OUT/bench_gpu.txt" "$OUT/bench_gpu_extras.txt"
echo "tests: exit status $tests_rc$([ "$tests_rc" = 124 ] && echo ' (timed out)')"
grep -E '^=+ .*(passed|failed|error|no tests ran)' "$OUT/tests_gpu.txt" | tail -n 1
echo "test lines: $(grep -c ' PASSED' "$OUT/tests_gpu.txt") passed, $(grep -c ' SKIPPED' \
    "$OUT/tests_gpu.txt") skipped, $(grep -c ' XFAIL' "$OUT/tests_gpu.txt") xfailed, \
$(grep -Ec ' (FAILED|ERROR)' "$OUT/tests_gpu.txt") failed or errors"
grep -E ' (FAILED|ERROR) ' "$OUT/tests_gpu.txt" | head -n 30
[ "$bench_rc" = 0 ] && [ "$extras_rc" = 0 ] && [ "$tests_rc" = 0 ]
