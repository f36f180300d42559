"""The TF-differential fuzzer (``tests/tf_fuzz.py``) on a fixed set of seeds, in the
test's execution mode: each random TF-eager program must give TensorFlow's answer
through ``eagertape.tf`` (or differ in a way README lists, ``tf_fuzz.KNOWN``).

Seeds come in chunks of 50, so a failure names its chunk; a failing chunk prints
its first two failing programs minimised, with both outcomes, and lists the rest. 300 seeds by default; more:

    EAGERTAPE_TF_FUZZ=3000 python3 -m pytest -q tests/test_tf_fuzz.py

Skipped when TensorFlow is not installed.
"""
import os

import pytest

import tf_oracle

# TF runs in the fuzzer's worker process only (and only for programs the TF
# oracle's disk cache has not seen); this one need not import it.
tf_oracle.require()

import tf_fuzz  # noqa: E402

N = int(os.environ.get("EAGERTAPE_TF_FUZZ", "300"))
CHUNK = 50
SHOWN = 2     # minimised programs printed per failing chunk


@pytest.fixture(scope="module")
def fuzzer():
    # The workers live for the module; TF's outcomes are cached across modes and
    # runs (tests/tf_oracle.py).
    f = tf_fuzz.Fuzzer(timeout=120.0)
    yield f
    f.close()


@pytest.mark.parametrize("start", range(0, N, CHUNK), ids=lambda s: f"seeds{s}")
def test_programs_agree_with_tensorflow(fuzzer, _et_mode, start):
    failures = []
    for seed in range(start, min(start + CHUNK, N)):
        src = tf_fuzz.program(seed)
        cls, desc, _, _ = fuzzer.check(src, _et_mode)
        if cls is not None and not cls.startswith("known:"):
            failures.append((seed, cls, desc))
    report = []
    for seed, cls, desc in failures[:SHOWN]:
        small = tf_fuzz.minimise(tf_fuzz.program(seed), _et_mode, fuzzer, budget_s=20.0)
        c, d, t, e = fuzzer.check(small, _et_mode)
        report += [f"seed {seed}: {cls}: {desc}", "minimised:", small,
                   f"  TF:        {tf_fuzz.show(t)}", f"  eagertape: {tf_fuzz.show(e)}", ""]
    report += [f"seed {s}: {c}: {d}" for s, c, d in failures[SHOWN:]]
    assert not failures, f"{len(failures)} programs differ from TensorFlow:\n" + "\n".join(report)
