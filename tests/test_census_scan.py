"""The census's selection rule (tools/census.py ``scan``, issue 38): which programs of a
source's git directory are candidates, by what, and what may leave them out. A small
source is built here as a git repository (a notebook, keras-io scripts and their
generated copies), so each clause of the rule is checked on code that has it, and on
prose and comments that only mention it."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))
import census  # noqa: E402

pytestmark = pytest.mark.eager     # reads files: no execution mode involved

TAPE_SCRIPT = '''"""
Title: a keras-io example (its GradientTape is in the code, not only here)
"""
import tensorflow as tf
from tensorflow import keras


class M(keras.Model):
    def train_step(self, data):
        with tf.GradientTape() as tape:
            loss = self(data)
        grads = tape.gradient(loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        return {}


(x, y), _ = keras.datasets.mnist.load_data()
'''

# Keras only, pinned to TensorFlow's backend: what keras-io's TF-only examples say.
PINNED_SCRIPT = '''import os

os.environ["KERAS_BACKEND"] = "tensorflow"
import keras
'''

# Mentions every clause in prose, comments and a docstring, and runs none of them.
MENTIONS_ONLY = '''"""A GradientTape, tf.reduce_sum and train_step are only named here."""
import keras
# with tf.GradientTape() as tape: optimizer.apply_gradients(...)
x = "tf.reduce_sum(x)"
'''


def notebook(*cells):
    return json.dumps({"cells": [{"cell_type": kind, "source": src} for kind, src in cells]})


def make_source(folder, files, commits=None):
    def git(*args):
        subprocess.run(["git", "-C", folder, *args], check=True, capture_output=True)
    git("init", "-q")
    for path, text in files.items():
        os.makedirs(os.path.join(folder, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(folder, path), "w") as f:
            f.write(text)
    if commits:
        with open(os.path.join(folder, census.COMMITS_FILE), "w") as f:
            f.write("".join(f"{p}\t{c}\n" for p, c in commits.items()))
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "source")
    return os.path.join(folder, ".git")


@pytest.fixture(scope="module")
def scanned(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("source"))
    files = {
        "examples/generative/gan.py": TAPE_SCRIPT,
        "examples/generative/ipynb/gan.py": TAPE_SCRIPT,          # generated copies
        "examples/generative/md/gan.py": TAPE_SCRIPT,
        "examples/generative/.ipynb_checkpoints/gan-checkpoint.py": TAPE_SCRIPT,
        "examples/keras_recipes/pinned.py": PINNED_SCRIPT,
        "examples/keras_recipes/mentions.py": MENTIONS_ONLY,
        "site/en/guide/ops.ipynb": notebook(
            ("markdown", "We use tf.GradientTape below (prose)."),
            ("code", "!pip install tensorflow_probability\nimport tensorflow as tf\n"),
            ("code", "x = tf.constant([1.0])\ntf.reduce_sum(x)\n")),
        "site/en/guide/prose.ipynb": notebook(
            ("markdown", "`tf.GradientTape`, `train_step`, `tf.strings`"),
            ("code", "print('no TensorFlow here')\n")),
        "outside/tape.py": TAPE_SCRIPT,                             # not under a root
    }
    gitdir = make_source(folder, files, commits={"examples/generative/gan.py": "a" * 40})
    commit, found = census.scan(gitdir)
    return commit, {path: rest for path, *rest in found}


def test_scan_selects_by_issue_38s_rule_in_code_only(scanned):
    commit, found = scanned
    assert sorted(found) == ["examples/generative/gan.py", "examples/keras_recipes/pinned.py",
                             "site/en/guide/ops.ipynb"]
    kinds, families, needs, _ = found["examples/generative/gan.py"]
    assert kinds == ["tape", "train_step", "apply_gradients", "tf_ops"]
    assert (families, needs) == ([], ["download"])
    assert found["examples/keras_recipes/pinned.py"][0] == ["tf_backend"]
    # A shell line counts for what it needs, not for what it runs.
    assert found["site/en/guide/ops.ipynb"][:3] == [["tf_ops"], [], ["other-library"]]


def test_scan_names_each_files_commit_from_the_scratch_repository(scanned):
    commit, found = scanned
    assert found["examples/generative/gan.py"][3] == "a" * 40
    # A file the commits file does not name is the repository's own commit.
    assert found["site/en/guide/ops.ipynb"][3] == commit and len(commit) == 40
