"""What the census's imbalanced_data port (tensorflow/docs
structured_data/imbalanced_data.ipynb) met, each against TensorFlow:
``tf.data.Dataset.choose_from_datasets`` (cell 102's resampling, made deterministic
with a choice dataset drawn by NumPy) and ``tf.data.experimental.choose_from_datasets``:
the order the choices name, an exhausted dataset (ending the result, or skipped),
the element spec the datasets share, the cardinality, and bad input."""
import numpy as np
import pytest

import tf_oracle

tf_oracle.require()


def _ints(ds):
    return [int(x) for x in ds]


def _choices(*ix):
    return np.array(ix, np.int64)


def _orders(tf):
    D = tf.data.Dataset
    a, b = D.range(3), D.range(10, 15)
    ch = D.from_tensor_slices(_choices(0, 1, 1, 0, 0, 0, 1, 1))
    forever = D.range(2).repeat()
    return [_ints(D.choose_from_datasets([a, b], ch)),
            _ints(D.choose_from_datasets([a, b], ch, stop_on_empty_dataset=False)),
            _ints(tf.data.experimental.choose_from_datasets([a, b], ch)),
            _ints(D.choose_from_datasets((a, b), forever)),
            _ints(D.choose_from_datasets([a, b], forever, stop_on_empty_dataset=False)),
            _ints(D.choose_from_datasets([a.repeat(), b], forever).take(9)),
            _ints(D.choose_from_datasets([a, b], D.from_tensor_slices(_choices(1, 1))))]


def test_choose_from_datasets_order():
    got = tf_oracle.plain(tf_oracle.check(_orders).value)
    assert got[0] == [0, 10, 11, 1, 2]
    assert got[1] == got[2] == [0, 10, 11, 1, 2, 12, 13]
    assert got[4] == [0, 10, 1, 11, 2, 12, 13, 14]


def _specs_and_cardinality(tf):
    D = tf.data.Dataset
    a, b = D.range(3), D.range(10, 15)
    x = D.from_tensor_slices(np.zeros((2, 3)))
    y = D.from_tensor_slices(np.ones((2, 4)))
    nested = D.choose_from_datasets(
        [D.from_tensor_slices(({"x": [1., 2.]}, [1, 2])), D.from_tensor_slices(({"x": [3.]}, [3]))],
        D.from_tensor_slices(_choices(1, 0, 0)))
    rows = D.choose_from_datasets([x, y], D.from_tensor_slices(_choices(1, 0)))
    cards = [D.choose_from_datasets(ds, ch).cardinality()
             for ds, ch in [([a, b], D.range(2)), ([a, b], D.range(2).repeat()),
                            ([a.repeat(), b], D.range(2).repeat()),
                            ([a.repeat(), b.repeat()], D.range(2))]]
    return (repr(nested.element_spec), list(nested.as_numpy_iterator()),
            repr(rows.element_spec), [r.tolist() for r in rows.as_numpy_iterator()], cards)


def test_choose_from_datasets_spec_and_cardinality():
    got = tf_oracle.plain(tf_oracle.check(_specs_and_cardinality).value)
    assert got[2] == "TensorSpec(shape=(None,), dtype=tf.float64, name=None)"
    assert got[4] == [-2, -2, -1, -1]


# The bad inputs TF refuses at construction, and a choice out of range at iteration.
_BAD = {
    "int32 choices": lambda tf: tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.range(2)], tf.data.Dataset.from_tensor_slices([0, 0])),
    "batched choices": lambda tf: tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.range(2)], tf.data.Dataset.range(4).batch(2)),
    "no datasets": lambda tf: tf.data.Dataset.choose_from_datasets([], tf.data.Dataset.range(2)),
    "a list of choices": lambda tf: tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.range(2)], [0, 0]),
    "other dtypes": lambda tf: tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.range(2), tf.data.Dataset.from_tensor_slices(np.arange(2, dtype=np.int32))],
        tf.data.Dataset.range(2)),
    "other structures": lambda tf: tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.range(2), tf.data.Dataset.from_tensor_slices((np.arange(2), np.arange(2)))],
        tf.data.Dataset.range(2)),
    "a choice out of range": lambda tf: _ints(tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.range(2), tf.data.Dataset.range(2)],
        tf.data.Dataset.from_tensor_slices(_choices(0, 2, 1)))),
}


@pytest.mark.parametrize("case", sorted(_BAD))
def test_choose_from_datasets_bad_input(case):
    tf_oracle.check(_BAD[case], tf_raises=True, errors="class")


def test_choose_from_datasets_messages_name_the_argument():
    import eagertape.tf as etf
    with pytest.raises(TypeError, match="choice_dataset"):
        etf.data.Dataset.choose_from_datasets([etf.data.Dataset.range(2)],
                                              etf.data.Dataset.range(4).batch(2))
    with pytest.raises(ValueError, match="datasets"):
        etf.data.Dataset.choose_from_datasets([], etf.data.Dataset.range(2))


def _resampled(tf):
    # cell 102's pipeline as the port runs it: two repeated datasets of (features,
    # label), chosen half and half, batched, prefetched; the labels' mean per batch
    D = tf.data.Dataset
    rs = np.random.RandomState(0)
    pos = D.from_tensor_slices((rs.normal(size=(5, 3)), np.ones((5, 1), np.int64))).repeat()
    neg = D.from_tensor_slices((rs.normal(size=(40, 3)), np.zeros((40, 1), np.int64))).repeat()
    choice = D.from_tensor_slices(rs.choice(2, 64, p=[0.5, 0.5])).repeat()
    ds = D.choose_from_datasets([pos, neg], choice).batch(16).prefetch(2)
    return [(f, l.numpy().mean()) for f, l in ds.take(6)]


def test_choose_from_datasets_census_pipeline():
    tf_oracle.check(_resampled)
