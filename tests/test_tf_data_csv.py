"""tf.data's CSV readers (``tf.data.experimental.CsvDataset``, ``make_csv_dataset``)
and ``Counter``: the same files read through TensorFlow and ``eagertape.tf`` give
the same elements (values, dtypes, structure, order), the same element specs and
cardinalities, and the same error classes (TF's side from tests/tf_oracle.py)."""
import gzip
import os
import tempfile

import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle

# CSV files, by name: their bytes
FILES = {
    "quoted": b'name,text,n\n"Smith, J","said ""hi""",1\nLee,"two\nlines",2\n"",plain,3\n',
    "missing": b"1,2.5,a\n,3.5,b\n4,,c\n5,6.5,\n,,\n",
    "crlf": b"a;b;c\r\n1;x;0.25\r\n2;NA;0.5\r\n3;z;NA\r\n",
    "wide": b"1,2,3,4,5\n6,7,8,9,10\n11,12,13,14,15\n",
    "types": b"3000000000,1e300, 7 ,+2.5\n-1,-2.5e-3,8,.5\n",
    "empty_line": b"1,2\n\n3,4\n",
    "bad_int": b"1,2\n1.5,3\n",
    "unquoted_quote": b'1,a"b\n',
    "open_quote": b'1,"ab\n',
    "too_many": b"1,2,3\n",
    "titanic": (b"survived,sex,age,fare,class,alone\n"
                + b"".join(b"%d,%s,%.1f,%.4f,%s,%s\n" % (
                    i % 2, [b"male", b"female"][i % 3 % 2], 20 + i * 1.5, 7.25 + i * 3.1,
                    [b"First", b"Second", b"Third"][i % 3], [b"y", b"n"][i % 2])
                    for i in range(11))),
    "inference": (b"i32,i64,f32,f64,s,mixed,blank\n"
                  b"1,3000000000,1.5,1e300,a,1,\n"
                  b"2,4,2,2,b,x,\n"
                  b"-3,5,,3,,2.5,\n"),
    "with_na": b"x,y,label\n1,?,a\n?,2.5,b\n3,4.5,?\n",
    "noheader": b"1,2.5,p\n2,3.5,q\n3,4.5,r\n",
    "bad_rows": b"a,b\n1,2\n3,x\n5,6\n7\n9,10\n",
}


def _write(names, gz=False):
    d = tempfile.mkdtemp()
    paths = []
    for i, name in enumerate(names):
        path = os.path.join(d, f"{i}_{name}.csv" + (".gz" if gz else ""))
        with (gzip.open if gz else open)(path, "wb") as f:
            f.write(FILES[name])
        paths.append(path)
    return d, paths


def _leaf(x):
    a = x.numpy()
    if isinstance(a, bytes):
        return (x.dtype.name, a)
    return (x.dtype.name, a.dtype.name, a.tolist())


def _walk(e):
    if isinstance(e, dict):
        return {"dict": {k: _walk(v) for k, v in e.items()}, "keys": list(e)}
    if isinstance(e, tuple):
        return tuple(_walk(v) for v in e)
    return _leaf(e)


def _facts(tf, ds, take=None):
    d = ds if take is None else ds.take(take)
    return {"elements": [_walk(e) for e in d], "second pass": [_walk(e) for e in d],
            "spec": repr(ds.element_spec), "cardinality": int(ds.cardinality())}


S = "string"
CSV = {   # name: (files, record_defaults as dtype names or values, CsvDataset's options)
    "quoted_strings": (["quoted"], ["", S, "int32"], {"header": True}),
    "defaults_for_missing": (["missing"], [0, 0.5, "zz"], {}),
    "tensor_defaults": (["missing"], ["c-1", "c-2.5", ""], {}),
    "select_cols": (["wide"], ["int64", 0], {"select_cols": [1, 3]}),
    "exclude_cols": (["wide"], ["int32", "int32", "float32"], {"exclude_cols": [0, 2]}),
    "crlf_delim_na": (["crlf"], ["int32", "-", 0.75], {"header": True, "field_delim": ";",
                                                       "na_value": "NA"}),
    "spaces_signs_exponents": (["types"], ["int64", "float64", "int32", "float32"], {}),
    "two_files": (["wide", "wide"], [0, 0, 0, 0, 0], {}),
    "no_quote_delim": (["quoted"], [S], {"header": True, "use_quote_delim": False,
                                        "select_cols": [0]}),
    "compressed": (["quoted"], ["", S, "int32"], {"header": True, "compression_type": "GZIP"}),
    # TF's quirk: a default equal to a DataType enum (1: float32, 3: int32, 9: int64, ...)
    # or naming a dtype is that dtype (a required column), as `x in (tf.float32, ...)` is
    "enum_valued_defaults": (["wide"], [1, 3.0, 9, "int32", np.int64(2)], {}),
}
CSV_ERRORS = {
    "required_missing": (["missing"], ["int32", "float32", S], {}),
    "empty_line_required": (["empty_line"], ["int32", "int32"], {}),
    "bad_int": (["bad_int"], ["int32", "int32"], {}),
    "unquoted_quote": (["unquoted_quote"], ["int32", S], {}),
    "open_quote": (["open_quote"], ["int32", S], {}),
    "too_many_fields": (["too_many"], [0, 0], {}),
    "empty_line_is_one_field": (["empty_line"], [0, 0], {}),
    "select_cols_lengths": (["wide"], [0, 0, 0], {"select_cols": [0]}),
    "enum_default_required": (["missing"], [0, 1.0, ""], {}),
    "bool_default_is_float32": (["missing"], [0, True, ""], {}),
    "numpy_default_is_its_dtype": (["missing"], [np.int64(-1), 0.5, ""], {}),
    "too_few_fields": (["too_many"], [0, 0, 0, 0], {}),
}


def _defaults(tf, defaults):
    return [getattr(tf, d) if isinstance(d, str) and d in ("string", "int32", "int64", "float32", "float64")
            else tf.constant(np.int64(-1)) if isinstance(d, str) and d == "c-1"
            else tf.constant(-2.5, tf.float64) if isinstance(d, str) and d == "c-2.5"
            else d for d in defaults]


def _csv_dataset(tf, name, table):
    files, defaults, options = table[name]
    gz = options.get("compression_type") == "GZIP"
    _, paths = _write(files, gz)
    return tf.data.experimental.CsvDataset(paths, _defaults(tf, defaults), **options)


def _csv_program(tf, name):
    return _facts(tf, _csv_dataset(tf, name, CSV))


def _csv_error_program(tf, name):
    return [_walk(e) for e in _csv_dataset(tf, name, CSV_ERRORS)]


@pytest.mark.parametrize("name", sorted(CSV))
def test_csv_dataset_as_tensorflow(name):
    tf_oracle.check(_csv_program, name, tf_raises=False, rtol=0, atol=0, dict_order=True)


@pytest.mark.parametrize("name", sorted(CSV_ERRORS))
def test_csv_dataset_errors_as_tensorflow(name):
    tf_oracle.check(_csv_error_program, name, tf_raises=True, errors="class")


MAKE = {   # name: (files, make_csv_dataset's options, how many batches to take)
    "titanic_label": (["titanic"], {"batch_size": 4, "label_name": "survived",
                                    "shuffle": False, "num_epochs": 1}, None),
    "titanic_forever": (["titanic"], {"batch_size": 4, "label_name": "survived",
                                      "shuffle": False}, 5),
    "select_by_name": (["titanic"], {"batch_size": 5, "label_name": "survived",
                                     "select_columns": ["class", "fare", "survived"],
                                     "shuffle": False, "num_epochs": 1}, None),
    "select_by_index": (["titanic"], {"batch_size": 3, "select_columns": [4, 0],
                                      "shuffle": False, "num_epochs": 2}, None),
    "inferred_types": (["inference"], {"batch_size": 2, "shuffle": False, "num_epochs": 1},
                       None),
    "inference_rows_limited": (["inference"], {"batch_size": 3, "shuffle": False,
                                               "num_epochs": 1, "num_rows_for_inference": 1,
                                               "select_columns": ["i32", "f32", "s"]}, None),
    "column_defaults": (["titanic"], {"batch_size": 6, "shuffle": False, "num_epochs": 1,
                                      "label_name": "survived",
                                      "column_defaults": [0, "", 0.0, "float64", "", "?"]},
                        None),
    "na_value": (["with_na"], {"batch_size": 2, "shuffle": False, "num_epochs": 1,
                               "na_value": "?", "label_name": "label"}, None),
    "no_header_names": (["noheader"], {"batch_size": 2, "shuffle": False, "num_epochs": 1,
                                       "header": False, "column_names": ["a", "b", "c"]},
                        None),
    "two_files_gzip": (["titanic", "titanic"], {"batch_size": 8, "shuffle": False,
                                                "num_epochs": 1, "compression_type": "GZIP",
                                                "select_columns": ["age", "sex"]}, None),
    "ignore_errors": (["bad_rows"], {"batch_size": 2, "shuffle": False, "num_epochs": 1,
                                     "column_defaults": ["int32", "int32"],
                                     "ignore_errors": True}, None),
}
MAKE_ERRORS = {
    "label_not_a_column": (["titanic"], {"batch_size": 2, "label_name": "nope"}),
    "select_unknown": (["titanic"], {"batch_size": 2, "select_columns": ["nope"]}),
    "select_duplicate": (["titanic"], {"batch_size": 2, "select_columns": [1, "sex"]}),
    "defaults_select_lengths": (["titanic"], {"batch_size": 2, "select_columns": [0, 1],
                                              "column_defaults": [0]}),
    "no_header_no_names": (["titanic"], {"batch_size": 2, "header": False}),
    "no_files": ([], {"batch_size": 2}),
}


def _make(tf, files, options):
    gz = options.get("compression_type") == "GZIP"
    d, _ = _write(files, gz)
    options = dict(options)
    if "column_defaults" in options:
        options["column_defaults"] = _defaults(tf, options["column_defaults"])
    return tf.data.experimental.make_csv_dataset(os.path.join(d, "*"), **options)


def _make_program(tf, name):
    files, options, take = MAKE[name]
    return _facts(tf, _make(tf, files, options), take)


def _make_error_program(tf, name):
    files, options = MAKE_ERRORS[name]
    return _facts(tf, _make(tf, files, options), 1)


@pytest.mark.parametrize("name", sorted(MAKE))
def test_make_csv_dataset_as_tensorflow(name):
    tf_oracle.check(_make_program, name, tf_raises=False, rtol=0, atol=0, dict_order=True)


@pytest.mark.parametrize("name", sorted(MAKE_ERRORS))
def test_make_csv_dataset_errors_as_tensorflow(name):
    tf_oracle.check(_make_error_program, name, tf_raises=True, errors="class")


def test_make_csv_dataset_shuffle_permutes_the_records_and_reshuffles():
    _, (path,) = _write(["titanic"])

    def ages(**kw):
        ds = etf.data.experimental.make_csv_dataset(path, batch_size=11, num_epochs=1,
                                                    select_columns=["age"], **kw)
        return [e["age"].numpy().tolist() for e in ds]
    plain = ages(shuffle=False)
    shuffled = ages(shuffle_seed=3)
    assert len(plain) == len(shuffled) == 1
    assert sorted(shuffled[0]) == sorted(plain[0]) and shuffled[0] != plain[0]
    assert ages(shuffle_seed=3) == shuffled          # a seed repeats the order


def test_csv_dataset_errors_name_the_argument_and_the_file():
    _, (path,) = _write(["missing"])
    with pytest.raises(TypeError, match="record_defaults"):
        etf.data.experimental.CsvDataset(path, [etf.bool])
    with pytest.raises(etf.errors.InvalidArgumentError, match="select_cols"):
        etf.data.experimental.CsvDataset(path, [0], select_cols=[2, 1])
    with pytest.raises(etf.errors.InvalidArgumentError, match="field_delim"):
        etf.data.experimental.CsvDataset(path, [0], field_delim=";;")
    with pytest.raises(etf.errors.InvalidArgumentError,
                       match=r"Field 0 is required but missing in record! \(file .*0_missing"):
        list(etf.data.experimental.CsvDataset(path, [etf.int32, 0.0, ""]))


def _counter_program(tf, start, step, dtype):
    ds = tf.data.experimental.Counter(start, step, getattr(tf, dtype))
    d2 = tf.data.Dataset.counter(start, step, getattr(tf, dtype))
    return {"counter": _facts(tf, ds, 6), "Dataset.counter": _facts(tf, d2, 6),
            "zipped": _facts(tf, tf.data.Dataset.zip((ds, tf.data.Dataset.range(3))).batch(2)),
            "reduce": int(ds.take(4).reduce(tf.constant(0, ds.element_spec.dtype),
                                            lambda s, x: s + x))}


@pytest.mark.parametrize("args", [(0, 1, "int64"), (10, -3, "int32"), (2, 5, "float32")])
def test_counter_as_tensorflow(args):
    tf_oracle.check(_counter_program, *args, tf_raises=False, rtol=0, atol=0)


def test_csv_iterator_checkpoint_resumes_mid_file():
    _, (path,) = _write(["wide"])
    ds = etf.data.experimental.CsvDataset(path, [0] * 5)
    it = iter(ds)
    next(it)
    ckpt = etf.train.Checkpoint(it=it)
    prefix = ckpt.save(os.path.join(tempfile.mkdtemp(), "ckpt"))
    assert int(next(it)[0]) == 6
    ckpt.restore(prefix)
    assert [int(e[0]) for e in it] == [6, 11]


def _sample_program(tf, weights, stop):
    a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)
    return _facts(tf, tf.data.Dataset.sample_from_datasets([a, b], weights, seed=1,
                                                           stop_on_empty_dataset=stop))


def _sample_cardinality_program(tf, weights, stop, repeat):
    a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(10)
    b = b.repeat() if repeat else b
    return int(tf.data.Dataset.sample_from_datasets([a, b], weights,
                                                    stop_on_empty_dataset=stop).cardinality())


@pytest.mark.parametrize("weights", [[1.0, 0.0], [0.0, 2.0]])
def test_sample_from_datasets_deterministic_weights_as_tensorflow(weights):
    tf_oracle.check(_sample_program, weights, True, tf_raises=False, rtol=0, atol=0)


@pytest.mark.parametrize("args", [(None, True, False), ([0.5, 0.5], False, False),
                                  (None, True, True), (None, False, True)])
def test_sample_from_datasets_cardinality_as_tensorflow(args):
    tf_oracle.check(_sample_cardinality_program, *args, tf_raises=False)


def test_sample_from_datasets_draws_by_weight_and_a_seed_repeats_them():
    a, b = etf.data.Dataset.range(0, 4000), etf.data.Dataset.range(10000, 14000)
    ds = etf.data.Dataset.sample_from_datasets([a.repeat(), b.repeat()], [0.8, 0.2], seed=5)
    got = np.array([int(x) for x in ds.take(2000)])
    share = (got < 10000).mean()
    assert 0.76 < share < 0.84, share                       # 0.8 within 4.5 sigma
    first = etf.data.Dataset.sample_from_datasets([a, b], seed=5)
    assert [int(x) for x in first.take(50)] == [int(x) for x in etf.data.Dataset.sample_from_datasets(
        [a, b], seed=5).take(50)]                          # a seed repeats the draws
    again = etf.data.Dataset.sample_from_datasets([a, b], seed=5)
    assert sorted(int(x) for x in again) == list(range(4000)) + list(range(10000, 14000))
    assert int(ds.cardinality()) == etf.data.INFINITE_CARDINALITY
    with pytest.raises(ValueError, match="weights"):
        etf.data.Dataset.sample_from_datasets([a, b], [1.0])


def _resample_program(tf, target, initial):
    ds = tf.data.Dataset.from_tensor_slices(([0, 1, 1, 0, 2, 1], [10., 11., 12., 13., 14., 15.]))
    out = ds.rejection_resample(lambda x, y: x, target, initial, seed=3)
    return [_walk(e) for e in out]


@pytest.mark.parametrize("target,initial", [
    ([0.5, 0.3, 0.2], [0.5, 0.3, 0.2]),      # the dataset as it is, classes added
    ([0.0, 1.0, 0.0], [0.3, 0.5, 0.2]),      # only class 1 accepted
])
def test_rejection_resample_deterministic_cases_as_tensorflow(target, initial):
    tf_oracle.check(_resample_program, target, initial, tf_raises=False, rtol=0, atol=0)


def test_rejection_resample_balances_the_classes():
    order = np.random.RandomState(0).permutation(3000)
    labels = (order < 300).astype(np.int64)
    ds = etf.data.Dataset.from_tensor_slices(({"x": order}, labels))
    out = ds.rejection_resample(lambda f, y: y, [0.5, 0.5], [0.9, 0.1], seed=2)
    got = [(int(c), int(e[1]), int(e[0]["x"])) for c, e in out]
    classes = np.array([c for c, _, _ in got])
    assert all(c == y and (x < 300) == (y == 1) for c, y, x in got)
    assert 0.44 < classes.mean() < 0.56, classes.mean()
    with pytest.raises(NotImplementedError, match="initial_dist"):
        ds.rejection_resample(lambda f, y: y, [0.5, 0.5])
