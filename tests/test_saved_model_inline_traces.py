"""A tf.function without input_signature that was called only inside another
function's trace (eagertape ran it inline; TF traced a concrete function of it) is
saved with that call's signature, and a loaded function converts a Python number
with its signature's dtype (``loaded(5)`` of a float32 TensorSpec), as TF's (census
migrate_saved_model, cell 29). The program runs in TensorFlow (a subprocess) and
through eagertape.tf here (test_tf_v1_graph's prelude: ``rec``, ``err``)."""
import importlib.util

import pytest

import eagertape.tf as etf
import tf_oracle
from test_tf_v1_graph import _PRELUDE

pytestmark = [pytest.mark.subprocess,
              pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                 reason="tensorflow is not installed")]

_PROGRAM = '''
class AddTwo(tf.Module):
    @tf.function
    def __call__(self, x, scale=1.0):
        return x * scale + 2.0
model = AddTwo()
@tf.function
def serving_default(x):
    return {"output": model(x), "scaled": model(x, scale=3.0)}
concrete = serving_default.get_concrete_function(tf.TensorSpec(shape=[2], dtype=tf.float32))
tf.saved_model.save(model, "saved", signatures={"serving_default": concrete})
loaded = tf.saved_model.load("saved")
rec(loaded(tf.constant([1.0, 2.0])).numpy(), loaded([1, 5]).numpy())
rec(loaded(tf.constant([1.0, 2.0]), scale=3.0).numpy())
rec(err(lambda: loaded(tf.constant([1.0, 2.0, 3.0]))))
rec(loaded.signatures["serving_default"](tf.constant([0.0, 1.0]))["scaled"].numpy())
'''


def test_a_function_called_inside_a_trace_is_saved_with_that_calls_signature(tmp_path):
    want, got = tf_oracle.text_program("saved_model_inline_traces", _PRELUDE + _PROGRAM, etf,
                                       tmp_path)
    tf_oracle.assert_same_json(got, want)
