"""tf.function's edges, against TensorFlow: string tensors as arguments (traced once
a shape, the string ops run at each call), ConcreteFunctions of composite values
(RaggedTensor), a ConcreteFunction's ``graph``, and the SavedModel of a function
traced only by ``get_concrete_function``."""
import tempfile

import numpy as np
import pytest

import tf_oracle


def _same(program, *args):
    import eagertape.tf as etf
    want = tf_oracle.tf_outcome(program, *args)
    got = tf_oracle.run(etf, program, *args)
    if got.raised or want.raised:
        assert got.raised and want.raised, (got, want)
        assert type(got.exc).__name__ == want.error.name, (got.exc, want.error)
        return got
    assert repr(got.value) == repr(want.value), (got.value, want.value)
    return got


def _double_strings(tf):
    traced = []

    @tf.function
    def double(a):
        traced.append(tuple(a.shape))      # a Python side effect: at each trace only
        return a + a
    out = [double(tf.constant("a")).numpy(), double(tf.constant("b")).numpy(),
           double(tf.constant(["x", "yz"])).numpy().tolist(), double(tf.constant(1)).numpy()]
    cf = double.get_concrete_function(tf.constant("a"))
    spec = double.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.string))
    out += [cf(tf.constant("q")).numpy(), cf(a=tf.constant("r")).numpy(),
            spec(tf.constant("c")).numpy(), double.experimental_get_tracing_count(), traced,
            double.pretty_printed_concrete_signatures()]
    return out


def test_a_string_argument_is_traced_once_a_shape_and_its_ops_run_at_each_call():
    _same(_double_strings)


def _string_ops(tf):
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["cat", "dog"], [1, 2]), default_value=-1)
    names = np.array(["zero", "one", "two"])

    @tf.function
    def f(words, k):
        n = tf.strings.length(words)
        up = tf.strings.upper(words)
        joined = tf.strings.reduce_join(words, separator="-")
        is_cat = words == "cat"
        ids = table.lookup(words)
        picked = tf.gather(names, k)             # a constant gathered by a traced index
        first = words[0]
        moved = tf.reshape(tf.stack([words, up]), [-1])
        chosen = tf.where(is_cat, words, up)
        return n, up, joined, is_cat, ids, picked, first, moved, chosen, tf.shape(words)
    out = []
    for ws, k in ((["cat", "bird", "dog"], [2, 0]), (["dog", "dog", "emu"], [1, 1])):
        out.append([np.asarray(t.numpy()).tolist() for t in f(tf.constant(ws), tf.constant(k))])
    out.append(f.experimental_get_tracing_count())
    return out


def test_string_ops_inside_a_function_give_tfs_values_at_each_call():
    _same(_string_ops)


def _numbers_from_text(tf):
    @tf.function
    def parse(s, scale):
        x = tf.strings.to_number(s) * scale
        if tf.reduce_sum(x) > 10.0:             # AutoGraph: a cond on text's numbers
            x = x - 10.0
        return x, tf.strings.as_string(x, precision=1)
    a = parse(tf.constant(["1.5", "2"]), tf.constant(2.0))
    b = parse(tf.constant(["7", "8"]), tf.constant(1.0))
    return [a[0].numpy(), a[1].numpy().tolist(), b[0].numpy(), b[1].numpy().tolist(),
            parse.experimental_get_tracing_count()]


def test_numbers_read_from_text_flow_into_the_compiled_part_and_back():
    _same(_numbers_from_text)


def _string_signature(tf):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
    def shout(s):
        return tf.strings.upper(s) + "!"
    return [shout(tf.constant(["a", "b"])).numpy().tolist(),
            shout(tf.constant(["c", "d", "e"])).numpy().tolist()]


def test_a_string_input_signature_of_none_size_takes_any_size():
    _same(_string_signature)


def _wrong_dtype(tf):
    @tf.function
    def double(a):
        return a + a
    cf = double.get_concrete_function(tf.TensorSpec([], tf.string))
    return cf(tf.constant(1))


def test_a_concrete_function_of_strings_refuses_numbers_as_tf():
    _same(_wrong_dtype)


def test_a_string_result_of_a_gradient_taped_call_and_its_number_gradient():
    import eagertape.tf as tf

    @tf.function
    def f(s, x):
        return tf.strings.to_number(s) * x, s + "?"
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y, t = f(tf.constant(["3", "4"]), x)
    assert t.numpy().tolist() == [b"3?", b"4?"]
    assert tape.gradient(y, x).numpy().tolist() == [3.0, 4.0]


def test_a_host_op_whose_result_shape_changes_raises_naming_it():
    import eagertape.tf as tf

    @tf.function
    def distinct(s):
        return tf.unique(s).y
    assert distinct(tf.constant(["a", "a"])).numpy().tolist() == [b"a"]
    with pytest.raises(Exception, match="gave a result of shape"):
        distinct(tf.constant(["a", "b"])).numpy()


def _ragged_concrete(tf):
    @tf.function
    def increment(x):
        return x + 1
    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    cf = increment.get_concrete_function(rt)
    return [cf(rt).to_list(), cf(x=rt).to_list(), increment.experimental_get_tracing_count()]


def test_a_concrete_function_of_a_ragged_tensor_takes_one():
    _same(_ragged_concrete)


def _ragged_mismatch(tf):
    @tf.function
    def increment(x):
        return x + 1
    cf = increment.get_concrete_function(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]))
    return cf(tf.ragged.constant([[1], [2, 3, 4, 5, 6]]))


def test_a_concrete_function_of_a_ragged_tensor_refuses_another_spec_as_tf():
    _same(_ragged_mismatch)


def _graph_of_strings(tf):
    @tf.function
    def double(a):
        return a + a
    g = double.get_concrete_function(tf.constant("a")).graph
    return [(n.name, list(n.input)) for n in g.as_graph_def().node]


def test_the_graph_of_a_string_function_is_tfs():
    _same(_graph_of_strings)


def test_a_graph_lists_the_traced_operations_inputs_and_outputs():
    import eagertape.tf as tf
    f = tf.function(lambda x, y: tf.matmul(x, y) + x)
    g = f.get_concrete_function(tf.TensorSpec([2, 2], tf.float32),
                                tf.TensorSpec([2, 2], tf.float32)).graph
    ops = [o.type for o in g.get_operations()]
    assert ops[:2] == ["Placeholder", "Placeholder"] and ops[-1] == "Identity"
    assert "MatMul" in ops and "AddV2" in ops
    assert len(g.inputs) == 2 and g.outputs == ["Identity"]
    assert "node {" in str(g.as_graph_def())


def test_a_concrete_function_traced_at_its_call_has_no_graph_before_it():
    import eagertape.tf as tf
    f = tf.function(lambda s: s + s)
    cf = f.get_concrete_function(tf.TensorSpec([None], tf.string))
    with pytest.raises(ValueError, match="call it"):
        cf.graph
    assert cf(tf.constant(["a"])).numpy().tolist() == [b"aa"]


def _saved_concrete(tf):
    class Scale(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(3.0)

        @tf.function
        def f(self, a, b):
            return a * self.v, tf.logical_not(b)
    m = Scale()
    m.f.get_concrete_function(tf.TensorSpec(None, tf.float32), tf.TensorSpec(None, tf.bool))
    path = tempfile.mkdtemp()
    tf.saved_model.save(m, path)
    loaded = tf.saved_model.load(path)
    a, b = loaded.f(tf.constant([1.0, 2.0]), tf.constant([True, False]))
    return [a.numpy(), b.numpy()]


def test_save_keeps_a_function_traced_only_by_get_concrete_function():
    _same(_saved_concrete)
