"""Keras's text layers called on a RaggedTensor of strings, as TF's Keras calls them.

keras-io's ``multi_label_classification`` (census ``kio_multi_label_classification``)
binarizes each paper's list of subject terms with ``StringLookup(output_mode=
"multi_hot")`` called on ``tf.ragged.constant(terms)``. TF's Keras takes the ragged
batch (its lookup kernels are TF's); eagertape handed the RaggedTensor's flat values to
the host and could not rebuild the rows ("a RaggedTensor cannot enter JAX-level code").
A text layer now gets TF's RaggedTensor with the same rows, and a ragged result comes
back as eagertape's RaggedTensor. A Python list of strings given to a text layer
(``lookup([terms])``) is text too: in fused mode it had gone to a deferred JAX call
("Dtype <U5 is not a valid JAX array type").
"""
import os
import subprocess
import sys
import textwrap

import pytest

import tf_oracle

tf_oracle.require("tensorflow")

import eagertape.tf as tf  # noqa: E402

pytestmark = pytest.mark.both_modes

_PROGRAM = textwrap.dedent("""
    import numpy as np

    def lookups(tf):
        layers = tf.keras.layers
        terms = tf.ragged.constant(np.array(
            [["cs.LG", "stat.ML"], ["cs.CV"], ["cs.CL", "cs.LG", "cs.CV"], ["cs.LG"]],
            dtype=object))
        out = []
        for mode in ("multi_hot", "count", "one_hot", "int"):
            kw = {"vocabulary": ["cs.LG", "cs.CV", "stat.ML"]}
            if mode == "one_hot":
                terms_in = terms[:, :1]
            else:
                terms_in = terms
            lookup = layers.StringLookup(output_mode=mode, **kw)
            y = lookup(terms_in)
            if isinstance(y, tf.RaggedTensor):
                out.append([mode, "ragged", str(y.dtype.name), y.to_list()])
            else:
                out.append([mode, "dense", str(y.dtype.name), np.asarray(y).tolist()])
        adapted = layers.StringLookup(output_mode="multi_hot")
        adapted.adapt(terms)
        out.append([str(v) for v in adapted.get_vocabulary()])
        out.append(np.asarray(adapted(terms)).tolist())
        # a Python list of strings, as the example binarizes one paper's terms
        out.append(np.asarray(adapted([["cs.LG", "stat.ML"]])).tolist())
        return out
""")


def _tf_lookups():
    def compute():
        env = dict(os.environ)
        env.pop("KERAS_BACKEND", None)
        env["TF_CPP_MIN_LOG_LEVEL"] = "3"
        code = _PROGRAM + "\nimport tensorflow as tf\nprint(repr(lookups(tf)))\n"
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env)
        assert p.returncode == 0, p.stderr[-3000:]
        return p.stdout.strip().splitlines()[-1]
    return eval(tf_oracle.cached("keras-text-ragged", [_PROGRAM], compute))


def test_string_lookup_on_ragged_strings_as_tf():
    space = {}
    exec(_PROGRAM, space)
    got = space["lookups"](tf)
    want = _tf_lookups()
    # (the ragged result's to_list gives bytes neither side; ints compared as ints)
    assert got == want
