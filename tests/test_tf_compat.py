"""tf.compat against TensorFlow 2.21: its helpers, tf.compat.v2 (the facade), and
tf.compat.v1's names: those TF exports as TF 2's own objects (the tables, checked
against TF's own identity), the TF 1 spellings mapped by hand (each run through both
libraries in eager mode), and TF 1's graph-mode API, left out with TF 2's way."""
import pathlib

import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle
from eagertape.tf import compat as _compat

LEFT_OUT = "is left out of eagertape's TensorFlow facade: "
NOT_YET = "is not supported by eagertape's TensorFlow facade yet; "


def _get(root, path):
    for part in path.split("."):
        root = getattr(root, part)
    return root


def _table():
    return [(f"{ns}.{n}" if ns else n, f"{ns}.{n}" if ns else n)
            for ns, names in sorted(_compat._SAME.items()) for n in names.split()] + \
        sorted(_compat._ALIAS.items())


def _tf_disagrees():
    # Which entries of the tables are not, in TF, the same object (or an equal
    # constant) under tf.compat.v1 and under TF 2's path.
    def compute():
        tf = tf_oracle.tensorflow()
        bad = []
        for v1, v2 in _table():
            try:
                a, b = _get(tf.compat.v1, v1), _get(tf, v2)
            except Exception as e:      # noqa: BLE001
                bad.append(f"{v1}: {type(e).__name__}")
                continue
            if not (a is b or (isinstance(a, (int, float, str, bool)) and a == b
                               and type(a) is type(b))):
                bad.append(f"{v1} is not tf.{v2}")
        return bad
    return tf_oracle.cached("tf-compat-v1-table", [repr(_table())], compute)


def test_the_tables_are_tfs_own_identities():
    tf_oracle.require()
    assert len(_table()) > 1000
    assert _tf_disagrees() == []


def test_each_table_entry_is_the_facades_tf2_object_or_its_error():
    resolved = 0
    for v1, v2 in _table():
        try:
            want = _get(etf, v2)
        except AttributeError as e:
            with pytest.raises(AttributeError) as got:
                _get(etf.compat.v1, v1)
            # the facade's own reason (left out, or not yet), under the v1 name (or
            # that of its namespace, where the facade leaves the namespace out)
            message = str(got.value)
            assert message.startswith("tf.compat.v1.") and " is TF 2's tf." in message
            assert message.split(": ", 1)[1] in str(e) or str(e) in message, (message, e)
            assert (LEFT_OUT in message) == (LEFT_OUT in str(e))
            continue
        got = _get(etf.compat.v1, v1)
        assert got is want or (got == want and type(got) is type(want)), v1
        resolved += 1
    assert resolved > 600       # most of TF 2's names are the facade's


def test_v2_is_the_facade_and_both_import_as_modules():
    import eagertape.tf.compat.v1 as tf1
    import eagertape.tf.compat.v2 as tf2
    assert tf2 is etf and etf.compat.v2 is etf and tf1 is etf.compat.v1
    assert etf.compat.v1.compat is etf.compat
    assert etf.compat.v1.log is etf.math.log and etf.compat.v1.random_normal is etf.random.normal
    assert etf.compat.v1.data.Dataset is etf.data.Dataset


X = np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4) / 5.0
V1 = {
    "reduce_sum_old_names": lambda tf: tf.compat.v1.reduce_sum(
        X, reduction_indices=1, keep_dims=True),
    "reduce_mean_positional": lambda tf: tf.compat.v1.reduce_mean(X, 0, True),
    "reduce_max_axis": lambda tf: tf.compat.v1.reduce_max(X, axis=[0, 1]),
    "reduce_min": lambda tf: tf.compat.v1.reduce_min(X, keep_dims=True),
    "reduce_prod": lambda tf: tf.compat.v1.reduce_prod(X, reduction_indices=[0]),
    "reduce_all": lambda tf: tf.compat.v1.reduce_all(X > 0.5, reduction_indices=1),
    "reduce_any": lambda tf: tf.compat.v1.reduce_any(X > 2.0, 0),
    "reduce_logsumexp": lambda tf: tf.compat.v1.reduce_logsumexp(X, 1, keep_dims=True),
    "reduce_both_names": lambda tf: tf.compat.v1.reduce_sum(X, axis=0, reduction_indices=0),
    "nn_conv2d_filter": lambda tf: tf.compat.v1.nn.conv2d(
        X.reshape(1, 3, 4, 1), filter=np.ones((2, 2, 1, 2), np.float32), strides=[1, 1, 1, 1],
        padding="SAME"),
    "nn_conv2d_positional": lambda tf: tf.compat.v1.nn.conv2d(
        X.reshape(1, 3, 4, 1), np.ones((2, 2, 1, 1), np.float32), [1, 2, 2, 1], "VALID"),
    "nn_relu6": lambda tf: tf.compat.v1.nn.relu6(X * 5.0 - 4.0),
    "nn_softmax_dim": lambda tf: tf.compat.v1.nn.softmax(X, dim=0),
    "nn_softmax": lambda tf: tf.compat.v1.nn.softmax(X),
    "argmax_dimension": lambda tf: tf.compat.v1.argmax(X, dimension=1),
    "argmax_default_axis": lambda tf: tf.compat.v1.argmax(X),
    "argmin_output_type": lambda tf: tf.compat.v1.argmin(X, 1, output_type=tf.int32),
    "arg_max": lambda tf: tf.compat.v1.arg_max(X, 1),
    "constant": lambda tf: tf.compat.v1.constant([1, 2], dtype=tf.float32),
    "constant_shape": lambda tf: tf.compat.v1.constant(7.0, shape=[2, 2]),
    "constant_verify_shape": lambda tf: tf.compat.v1.constant([1.0, 2.0], shape=[3],
                                                              verify_shape=True),
    "convert_preferred": lambda tf: tf.compat.v1.convert_to_tensor(3, preferred_dtype=tf.int64),
    "expand_dims_dim": lambda tf: tf.compat.v1.expand_dims(X, dim=1),
    "squeeze_dims": lambda tf: tf.compat.v1.squeeze(np.ones([1, 3, 1]), squeeze_dims=[0]),
    "transpose": lambda tf: tf.compat.v1.transpose(X, [1, 0], "t"),
    "zeros_like": lambda tf: tf.compat.v1.zeros_like(X, tf.int32, "z", False),
    "ones_like": lambda tf: tf.compat.v1.ones_like(X),
    "gather_name_then_axis": lambda tf: tf.compat.v1.gather(X, [2, 0], None, "g", 1),
    "shape": lambda tf: tf.compat.v1.shape(X, "s", tf.int64),
    "size": lambda tf: tf.compat.v1.size(X),
    "to_float": lambda tf: tf.compat.v1.to_float(tf.constant([1, 2])),
    "to_int64": lambda tf: tf.compat.v1.to_int64(X),
    "to_double": lambda tf: tf.compat.v1.to_double(X),
    "to_int32": lambda tf: tf.compat.v1.to_int32(X * 3),
    "assign_family": lambda tf: (lambda v: [tf.compat.v1.assign(v, [5.0, 6.0]),
                                            tf.compat.v1.assign_add(v, [1.0, 1.0]),
                                            tf.compat.v1.assign_sub(v, [0.5, 0.5]),
                                            v.read_value()])(tf.Variable([0.0, 0.0])),
    "variable_v1": lambda tf: tf.compat.v1.Variable([1.0, 2.0], name="w", use_resource=True),
    "variable_isinstance": lambda tf: [isinstance(tf.Variable(1.0), tf.compat.v1.Variable),
                                       isinstance(tf.compat.v1.Variable(1.0), tf.Variable)],
    "name_scope_default": lambda tf: (lambda s: (s.__enter__(), tf.constant(1.0)))(
        tf.compat.v1.name_scope(None, "dflt"))[1],
    "v1_log_alias": lambda tf: tf.compat.v1.log(X),
    "v1_matrix_inverse": lambda tf: tf.compat.v1.matrix_inverse([[2.0, 0.0], [0.0, 4.0]]),
    "v1_random_ops_exist": lambda tf: callable(tf.compat.v1.random_uniform),
    "v1_nn_relu": lambda tf: tf.compat.v1.nn.relu(X - 1.0),
    "v1_math": lambda tf: tf.compat.v1.math.cumsum(X, axis=1),
    "v1_dataset": lambda tf: [b.numpy() for b in
                              tf.compat.v1.data.Dataset.from_tensor_slices(X).batch(2)],
    "switches_on": lambda tf: [tf.compat.v1.resource_variables_enabled(),
                               tf.compat.v1.control_flow_v2_enabled(),
                               tf.compat.v1.executing_eagerly_outside_functions(),
                               tf.compat.v1.executing_eagerly(),
                               tf.compat.v1.enable_v2_behavior(),
                               tf.compat.v1.enable_resource_variables(),
                               tf.compat.v1.enable_tensor_equality(),
                               tf.compat.v1.enable_control_flow_v2(),
                               tf.compat.v1.enable_v2_tensorshape()],
    "logging_levels": lambda tf: [tf.compat.v1.logging.DEBUG, tf.compat.v1.logging.INFO,
                                  tf.compat.v1.logging.WARN, tf.compat.v1.logging.ERROR,
                                  tf.compat.v1.logging.FATAL],
    "logging_set_verbosity": lambda tf: (
        tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR),
        tf.compat.v1.logging.get_verbosity(),
        tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.WARN))[1],
}


@pytest.mark.parametrize("name", sorted(V1))
def test_a_v1_spelling_gives_tfs_eager_result(name):
    tf_oracle.check(V1[name], errors="class")


def test_enable_eager_execution_keeps_tf2s_watch():
    # tf.compat.v1.enable_eager_execution does nothing in TF 2: a watch marks one tape
    # (the facade's tf.enable_eager_execution is TF 1.x's, every tape).
    def program(tf):
        tf.compat.v1.enable_eager_execution()
        x = tf.constant(3.0)
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = x * x
        return [inner.gradient(y, x), outer.gradient(y, x)]
    tf_oracle.check(program)


def test_set_random_seed_is_the_global_seed():
    def program(tf):
        tf.compat.v1.set_random_seed(7)
        a = tf.random.uniform([3])
        tf.random.set_seed(7)
        b = tf.random.uniform([3])
        tf.compat.v1.random.set_random_seed(7)
        c = tf.random.uniform([3])
        return [bool(np.array_equal(a.numpy(), b.numpy())),
                bool(np.array_equal(a.numpy(), c.numpy()))]
    tf_oracle.check(program)


DIMENSION = {
    "value_repr_str": lambda tf: (lambda d: [d.value, repr(d), str(d), int(d)])(
        tf.compat.v1.Dimension(16)),
    "unknown": lambda tf: (lambda d: [d.value, repr(d), str(d)])(tf.compat.v1.Dimension(None)),
    "compatible": lambda tf: [tf.compat.v1.Dimension(16).is_compatible_with(16),
                              tf.compat.v1.Dimension(16).is_compatible_with(3),
                              tf.compat.v1.Dimension(None).is_compatible_with(3)],
    "equality": lambda tf: [tf.compat.v1.Dimension(3) == 3, tf.compat.v1.Dimension(3) != 4,
                            tf.compat.v1.Dimension(None) == 3,
                            tf.compat.v1.Dimension(3) < tf.compat.v1.Dimension(None)],
    "arithmetic": lambda tf: [repr(tf.compat.v1.Dimension(6) + 2),
                              repr(2 * tf.compat.v1.Dimension(6)),
                              repr(tf.compat.v1.Dimension(6) // 4),
                              repr(tf.compat.v1.Dimension(None) - 1)],
    "merge": lambda tf: repr(tf.compat.v1.Dimension(None).merge_with(5)),
    "merge_incompatible": lambda tf: tf.compat.v1.Dimension(4).merge_with(5),
    "assert_incompatible": lambda tf: tf.compat.v1.Dimension(4).assert_is_compatible_with(5),
    "negative": lambda tf: tf.compat.v1.Dimension(-1),
    "float": lambda tf: tf.compat.v1.Dimension(2.0),
    "dimension_value": lambda tf: [tf.compat.dimension_value(tf.compat.v1.Dimension(4)),
                                   tf.compat.dimension_value(5),
                                   tf.compat.dimension_value(None),
                                   tf.compat.v1.dimension_value(tf.TensorShape([2, 9])[1])],
    "dimension_at_index": lambda tf: [
        repr(tf.compat.dimension_at_index(tf.TensorShape([16, None]), 0)),
        repr(tf.compat.dimension_at_index(tf.TensorShape([16, None]), 1)),
        repr(tf.compat.dimension_at_index(tf.TensorShape(None), 3))],
}


@pytest.mark.parametrize("name", sorted(DIMENSION))
def test_dimension_is_tfs(name):
    tf_oracle.check(DIMENSION[name], errors="class")


UTILITIES = {
    "as_bytes": lambda tf: [tf.compat.as_bytes("café"), tf.compat.as_bytes(b"x"),
                            tf.compat.as_bytes(bytearray(b"yz")),
                            tf.compat.as_bytes("é", "latin-1")],
    "as_bytes_bad": lambda tf: tf.compat.as_bytes(3),
    "as_bytes_bad_encoding": lambda tf: tf.compat.as_bytes("x", "no-such-codec"),
    "as_text": lambda tf: [tf.compat.as_text(b"caf\xc3\xa9"), tf.compat.as_str("s"),
                           tf.compat.as_text(b"\xe9", encoding="latin-1")],
    "as_text_bad": lambda tf: tf.compat.as_text(None),
    "as_str_any": lambda tf: [tf.compat.as_str_any(b"a"), tf.compat.as_str_any(3.5),
                              tf.compat.as_str_any([1])],
    "path_to_str": lambda tf: [tf.compat.path_to_str(pathlib.Path("./corpus")),
                               tf.compat.path_to_str("./.././Corpus"),
                               tf.compat.path_to_str(b"raw")],
    "types": lambda tf: [isinstance(v, t) for v in (1, np.int8(1), 1.5, np.float32(1), 1j,
                                                    "s", b"b")
                         for t in (tf.compat.integral_types, tf.compat.real_types,
                                   tf.compat.complex_types, tf.compat.bytes_or_text_types)],
    "forward_compatible": lambda tf: [tf.compat.forward_compatible(2026, 1, 15),
                                      tf.compat.forward_compatible(2026, 1, 16),
                                      tf.compat.forward_compatible(2026, 1, 17),
                                      tf.compat.forward_compatible(2019, 6, 1)],
    "forward_compatibility_horizon": lambda tf: [
        (lambda cm: (cm.__enter__(), tf.compat.forward_compatible(2030, 1, 1),
                     cm.__exit__(None, None, None))[1])(
            tf.compat.forward_compatibility_horizon(2030, 1, 2)),
        tf.compat.forward_compatible(2030, 1, 1)],
}


@pytest.mark.parametrize("name", sorted(UTILITIES))
def test_compat_utilities_are_tfs(name):
    tf_oracle.check(UTILITIES[name], errors="class")


# Each graph-only name and what its error must name (TF 2's way, from TF's migration guide);
# TF 1's graphs, sessions, placeholders, get_variable, collections and Saver are
# eagertape/tf/_v1_graph.py's (tests/test_tf_v1_graph.py).
GRAPH_ONLY = {
    "sparse_placeholder": ["tf.function"],
    "disable_eager_execution": ["TF 2", "tf.function"],
    "disable_v2_behavior": ["TF 2"],
    "disable_v2_tensorshape": ["TF 2's behaviour"],
    "ConfigProto": ["tf.config.experimental.set_memory_growth"],
    "wrap_function": ["tf.saved_model.save", "tf.function"],
    "train.import_meta_graph": ["tf.saved_model.load"],
    "train.MonitoredSession": ["tf.GradientTape", "tf.keras.callbacks.Callback"],
    "train.SessionRunHook": ["tf.keras.callbacks.Callback"],
    "train.StopAtStepHook": ["fit"],
    "estimator": ["removed", "tf.keras"],
    "layers": ["tf.keras.layers"],
    "metrics": ["tf.keras.metrics"],
}


@pytest.mark.parametrize("path", sorted(GRAPH_ONLY))
def test_graph_only_names_raise_at_use_naming_tf2s_way(path):
    import eagertape.tf.compat.v1 as tf1     # the import itself works
    with pytest.raises(AttributeError) as e:
        _get(tf1, path)
    message = str(e.value)
    assert message.startswith(f"tf.compat.v1.{path} {LEFT_OUT}")
    assert [w for w in GRAPH_ONLY[path] if w not in message] == [], message


def test_graph_only_names_are_graph_only_in_tf():
    # What the left-out names are: in TF 2.21 eager mode, these raise (or build a graph).
    def program(tf):
        out = []
        for f in (lambda: tf.compat.v1.placeholder(tf.float32, [2]),
                  lambda: tf.compat.v1.Session().run(tf.constant(1.0)),
                  lambda: tf.compat.v1.get_collection("variables"),
                  lambda: tf.compat.v1.global_variables()):
            try:
                r = f()
                out.append(("returned", r if isinstance(r, list) else type(r).__name__))
            except Exception as e:      # noqa: BLE001
                out.append(("raised", type(e).__name__))
        return out
    want = tf_oracle.tf_outcome(program).value
    # placeholder raises; the session runs nothing eager; collections are empty in eager
    assert tf_oracle.plain(want)[0][0] == "raised" and tf_oracle.plain(want)[2][1] == []


def test_names_not_built_say_what_to_write():
    with pytest.raises(AttributeError) as e:
        etf.compat.v1.train.AdamOptimizer
    assert NOT_YET in str(e.value) and "tf.keras.optimizers.Adam" in str(e.value)
    with pytest.raises(AttributeError) as e:
        etf.compat.v1.no_such_name
    assert str(e.value).startswith(f"tf.compat.v1.no_such_name {NOT_YET}")
    assert "TF 2 name" in str(e.value)
    with pytest.raises(AttributeError) as e:
        etf.compat.no_such_name
    assert "v1, v2, as_bytes" in str(e.value)
    assert not hasattr(etf.compat, "os") and not hasattr(etf.compat, "constant")


def test_dir_lists_the_tables_names():
    names = dir(etf.compat.v1)
    for n in ("reduce_sum", "log", "placeholder", "Session", "data", "train", "logging",
              "Dimension", "enable_eager_execution"):
        assert n in names
    assert "set_verbosity" in dir(etf.compat.v1.logging)


def test_port_check_and_coverage_see_compat():
    from eagertape.port_check import _resolve
    assert _resolve("tf.compat.v1.reduce_sum") == ("resolved", None)
    assert _resolve("tf.compat.v2.reduce_sum") == ("resolved", None)
    status, reason = _resolve("tf.compat.v1.sparse_placeholder")
    assert status == "left_out" and "tf.TensorSpec" in reason
    status, reason = _resolve("tf.compat.v1.train.AdamOptimizer")
    assert status == "missing" and "tf.keras.optimizers.Adam" in reason
