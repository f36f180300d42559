"""String tensors, ``tf.strings``, ``tf.lookup`` and text through ``tf.data``: each
program runs through real TensorFlow (its outcome kept by tests/tf_oracle.py) and
through ``eagertape.tf``, and gives the same values, dtypes, shapes and error
classes. Four public TF programs that use strings are ported at the end, and
Keras's ``StringLookup`` / ``TextVectorization`` run in a process of their own
(Keras has one backend a process) against TF's.

Not in tests/conftest.py's MODE_AXIS: string tensors live on the host and no
string op is recorded or queued, so the execution mode (eager or fused) cannot
change an answer here; the numeric ops these programs also call are checked in
both modes by the modules that own them.
"""
import gzip
import os
import re
import string
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import eagertape.tf as etf
import tf_oracle

tf_oracle.require()


def _rag(x):
    """A result that may be a RaggedTensor, as both libraries can be compared on."""
    if type(x).__name__ == "RaggedTensor":
        return ("ragged", x.to_list(), x.shape, x.dtype, x.ragged_rank)
    return x


def _check(program, *args, **options):
    return tf_oracle.check(program, *args, **options)


# -- string tensors: what TF programs read off them ------------------------------------

TENSORS = {
    "scalar": lambda tf: tf.constant("abc"),
    "vector": lambda tf: tf.constant(["a", "bc", ""]),
    "matrix_unicode": lambda tf: tf.constant([["héllo", "😊"], ["语言", "x"]]),
    "bytes": lambda tf: tf.constant([b"\xff\x00", b"ok"]),
    "dtype_given": lambda tf: tf.constant("x", dtype=tf.string),
    "shape_given": lambda tf: tf.constant("x", shape=[2, 2]),
    "numpy_unicode": lambda tf: tf.constant(np.array(["a", "bé"])),
    "numpy_bytes": lambda tf: tf.constant(np.array([b"a", b"b"])),
    "numpy_object": lambda tf: tf.constant(np.array([b"a", "b"], dtype=object)),
    "convert": lambda tf: tf.convert_to_tensor(["a", "b"]),
    "convert_tensor": lambda tf: tf.convert_to_tensor(tf.constant("a"), dtype=tf.string),
    "facts": lambda tf: (lambda s: (s.dtype, s.shape, s.numpy(), s.dtype == tf.string,
                                    isinstance(s, tf.Tensor), tf.is_tensor(s), len(s),
                                    s.dtype.name, s.dtype.as_numpy_dtype is object,
                                    str(tf.string), repr(tf.string)))(tf.constant(["a", "b"])),
    "repr_fields": lambda tf: repr(tf.constant("abc")).split(": ", 1)[1],
    "repr_vector": lambda tf: repr(tf.constant(["a", "b"])).split(": ", 1)[1],
    "str": lambda tf: str(tf.constant("abc")).split("(", 1)[1],
    "index": lambda tf: tf.constant(["a", "b", "c"])[1],
    "negative_index": lambda tf: tf.constant(["a", "b", "c"])[-1],
    "slice": lambda tf: tf.constant(["a", "b", "c"])[::2],
    "index_2d": lambda tf: tf.constant([["a", "b"], ["c", "d"]])[:, 1],
    "index_tensor": lambda tf: tf.constant(["a", "b"])[tf.constant(1)],
    "newaxis": lambda tf: tf.constant(["a", "b"])[None, :].shape,
    "index_out_of_range": lambda tf: tf.constant(["a"])[3],
    "iterate": lambda tf: [x.numpy() for x in tf.constant(["a", "b"])],
    "iterate_scalar": lambda tf: list(tf.constant("a")),
    "len_scalar": lambda tf: len(tf.constant("a")),
    "bool": lambda tf: (bool(tf.constant("")), bool(tf.constant("a"))),
    "eq_str": lambda tf: tf.constant(["a", "b"]) == "a",
    "eq_tensor": lambda tf: tf.constant(["a", "b"]) == tf.constant(["a", "c"]),
    "ne_list": lambda tf: tf.constant(["a", "b"]) != ["a", "c"],
    "eq_number": lambda tf: tf.constant("1") == 1,
    "eq_incompatible": lambda tf: tf.constant(["a", "b"]) == tf.constant(["a", "b", "c"]),
    "add": lambda tf: tf.constant(["a", "b"]) + tf.constant(["x", "y"]),
    "add_str": lambda tf: tf.constant(["a", "b"]) + "!",
    "radd_str": lambda tf: "<" + tf.constant("a"),
    "add_broadcast": lambda tf: tf.constant([["a"], ["b"]]) + tf.constant(["x", "y"]),
    "mul_refused": lambda tf: tf.constant("a") * 2,
    "constant_number_as_string": lambda tf: tf.constant(1, dtype=tf.string),
    "constant_string_as_float": lambda tf: tf.constant("1.5", dtype=tf.float32),
    "constant_mixed": lambda tf: tf.constant(["a", 1]),
    "constant_ragged": lambda tf: tf.constant([["a"], ["b", "c"]]),
    "convert_wrong_dtype": lambda tf: tf.convert_to_tensor(tf.constant("a"), dtype=tf.int32),
    "spec": lambda tf: (lambda s: (s.dtype, s.shape, s.dtype == tf.string))(
        tf.TensorSpec([None], tf.string)),
    "as_dtype": lambda tf: (tf.as_dtype("string"), tf.as_dtype(tf.string),
                            tf.dtypes.as_dtype(tf.string).as_datatype_enum),
}


@pytest.mark.parametrize("name", sorted(TENSORS))
def test_string_tensors_as_tensorflow(name):
    _check(TENSORS[name], errors="class")


# -- TF's generic ops on strings ---------------------------------------------------------

S = [["a", "bc", "d"], ["éé", "", "f"]]

GENERIC = {
    "shape": lambda tf: tf.shape(tf.constant(S)),
    "shape_python": lambda tf: tf.shape("abc"),
    "size_rank": lambda tf: (tf.size(tf.constant(S)), tf.rank(tf.constant(S))),
    "reshape": lambda tf: tf.reshape(tf.constant(S), [3, 2]),
    "reshape_minus_one": lambda tf: tf.reshape(tf.constant(S), [-1]),
    "reshape_bad": lambda tf: tf.reshape(tf.constant(S), [4]),
    "concat": lambda tf: tf.concat([tf.constant(S), tf.constant([["x", "y", "z"]])], 0),
    "concat_axis1": lambda tf: tf.concat([tf.constant(S), tf.constant(S)], axis=-1),
    "concat_python": lambda tf: tf.concat([["a"], tf.constant(["b"])], 0),
    "concat_mismatch": lambda tf: tf.concat([tf.constant(S), tf.constant([["x"]])], 0),
    "stack": lambda tf: tf.stack([tf.constant("a"), tf.constant("b")]),
    "stack_axis1": lambda tf: tf.stack([tf.constant(["a", "b"]), tf.constant(["c", "d"])], 1),
    "unstack": lambda tf: tf.unstack(tf.constant(S), axis=1),
    "split": lambda tf: tf.split(tf.constant(["a", "b", "c", "d"]), [1, 3]),
    "gather": lambda tf: tf.gather(tf.constant(["a", "b", "c"]), [2, 0, 2]),
    "gather_axis": lambda tf: tf.gather(tf.constant(S), [1], axis=1),
    "gather_2d_indices": lambda tf: tf.gather(tf.constant(["a", "b", "c"]), [[0, 1], [2, 2]]),
    "gather_out_of_range": lambda tf: tf.gather(tf.constant(["a", "b"]), [5]),
    "gather_nd": lambda tf: tf.gather_nd(tf.constant(S), [[0, 1], [1, 0]]),
    "equal": lambda tf: tf.equal(tf.constant(S), "d"),
    "math_equal": lambda tf: tf.math.equal(tf.constant(["a"]), tf.constant(["a"])),
    "not_equal": lambda tf: tf.not_equal(tf.constant(S), tf.constant(["a", "bc", "x"])),
    "equal_python": lambda tf: tf.equal("a", "a"),
    "equal_shapes": lambda tf: tf.equal(tf.constant(["a", "b"]), tf.constant(["a", "b", "c"])),
    "where": lambda tf: tf.where([True, False], tf.constant(["a", "b"]), tf.constant(["x", "y"])),
    "where_broadcast": lambda tf: tf.where(tf.constant([[True], [False]]), "yes", "no"),
    "unique": lambda tf: tf.unique(tf.constant(["b", "a", "b", "c", "a"])),
    "unique_int64": lambda tf: tf.unique(tf.constant(["b", "a", "b"]), out_idx=tf.int64),
    "unique_with_counts": lambda tf: tf.unique_with_counts(tf.constant(["x", "y", "x"])),
    "identity": lambda tf: tf.identity(tf.constant(["a"])),
    "expand_squeeze": lambda tf: tf.squeeze(tf.expand_dims(tf.constant(["a", "b"]), 0)),
    "transpose": lambda tf: tf.transpose(tf.constant(S)),
    "tile": lambda tf: tf.tile(tf.constant([["a", "b"]]), [2, 2]),
    "reverse": lambda tf: tf.reverse(tf.constant(S), [1]),
    "boolean_mask": lambda tf: tf.boolean_mask(tf.constant(["a", "b", "c"]), [True, False, True]),
    "fill": lambda tf: tf.fill([2, 2], "z"),
    "zeros_like": lambda tf: tf.zeros_like(tf.constant(["a", "b"])),
    "zeros": lambda tf: tf.zeros([2], tf.string),
    "broadcast_to": lambda tf: tf.broadcast_to(tf.constant(["a", "b"]), [2, 2]),
    "slice": lambda tf: tf.slice(tf.constant(S), [0, 1], [2, 2]),
    "pad": lambda tf: tf.pad(tf.constant([["a"]]), [[1, 0], [0, 1]]),
    "pad_value": lambda tf: tf.pad(tf.constant(["a"]), [[1, 1]], constant_values="-"),
    "cast_same": lambda tf: tf.cast(tf.constant("a"), tf.string),
    "cast_to_float": lambda tf: tf.cast(tf.constant("1"), tf.float32),
    "cast_from_int": lambda tf: tf.cast(tf.constant(1), tf.string),
}


@pytest.mark.parametrize("name", sorted(GENERIC))
def test_generic_ops_take_strings_as_tensorflow(name):
    _check(GENERIC[name], errors="class")


# -- tf.strings ------------------------------------------------------------------------------

LINES = ["The quick  brown fox", "", "jumps over\tthe lazy dog.", " héllo wörld "]

STRINGS = {
    "split_scalar": lambda tf: tf.strings.split(tf.constant("a b  c")),
    "split_vector": lambda tf: _rag(tf.strings.split(tf.constant(LINES))),
    "split_sep": lambda tf: _rag(tf.strings.split(tf.constant(["a,b,,c", "", ","]), sep=",")),
    "split_sep_multi": lambda tf: tf.strings.split(tf.constant("1<>2<><>3"), sep="<>"),
    "split_maxsplit": lambda tf: _rag(tf.strings.split(tf.constant(["a b c d"]), maxsplit=2)),
    "split_matrix": lambda tf: _rag(tf.strings.split(tf.constant([["a b", "c"], ["", "d e f"]]))),
    "split_then_dense": lambda tf: tf.strings.split(tf.constant(LINES)).to_tensor(),
    "split_to_tensor_default": lambda tf: tf.strings.split(
        tf.constant(["a b", "c"])).to_tensor(default_value="<pad>", shape=[3, 3]),
    "split_row_lengths": lambda tf: (lambda r: (r.row_lengths(), r.row_splits, r.values,
                                                r.flat_values, r.nrows(), r.bounding_shape()))(
        tf.strings.split(tf.constant(LINES))),
    "split_row": lambda tf: tf.strings.split(tf.constant(LINES))[2],
    "split_rows_slice": lambda tf: _rag(tf.strings.split(tf.constant(LINES))[1:3]),
    "bytes_split": lambda tf: tf.strings.bytes_split(tf.constant("Duck")),
    "bytes_split_vector": lambda tf: _rag(tf.strings.bytes_split(tf.constant(["ab", "", "é"]))),
    "join": lambda tf: tf.strings.join([tf.constant(["a", "b"]), tf.constant(["c", "d"])], "-"),
    "join_scalar_broadcast": lambda tf: tf.strings.join(["<", tf.constant(["a", "b"]), ">"]),
    "join_mismatch": lambda tf: tf.strings.join([tf.constant(["a", "b"]), tf.constant(["c"])]),
    "lower_upper": lambda tf: (tf.strings.lower(tf.constant(["ÀbC", "x"])),
                               tf.strings.upper(tf.constant(["ÀbC", "x"]))),
    "lower_utf8": lambda tf: tf.strings.lower(tf.constant(["ÀbÇ"]), encoding="utf-8"),
    "upper_utf8": lambda tf: tf.strings.upper(tf.constant("straße ñ"), encoding="utf-8"),
    "strip": lambda tf: tf.strings.strip(tf.constant([" a ", "\t\nb c\r", ""])),
    "regex_replace": lambda tf: tf.strings.regex_replace(tf.constant(LINES), r"\s+", " "),
    "regex_replace_first": lambda tf: tf.strings.regex_replace(
        tf.constant("aaa"), "a", "b", replace_global=False),
    "regex_replace_groups": lambda tf: tf.strings.regex_replace(
        tf.constant(["john smith", "ada lovelace"]), r"(\w+) (\w+)", r"\2, \1"),
    "regex_replace_whole": lambda tf: tf.strings.regex_replace(tf.constant("ab"), "b", r"[\0]"),
    "regex_replace_punct": lambda tf: tf.strings.regex_replace(
        tf.constant(["Hello, world! It's (great)."]), "[%s]" % re.escape(string.punctuation), ""),
    "regex_replace_posix": lambda tf: tf.strings.regex_replace(
        tf.constant("a1, b2!"), "[[:punct:][:digit:]]", ""),
    "regex_replace_unicode_dot": lambda tf: tf.strings.regex_replace(tf.constant("é!"), ".", "x"),
    "regex_replace_ascii_word": lambda tf: tf.strings.regex_replace(tf.constant("éa b"), r"\w", "_"),
    "regex_replace_html": lambda tf: tf.strings.regex_replace(
        tf.constant("good<br />movie<br />"), "<br />", " "),
    "regex_bad_pattern": lambda tf: tf.strings.regex_replace(tf.constant("a"), "(", "x"),
    "regex_full_match": lambda tf: tf.strings.regex_full_match(
        tf.constant(["abc", "ab1", "", "ABC"]), "[a-z]*"),
    "regex_full_match_case": lambda tf: tf.strings.regex_full_match(
        tf.constant(["ABC", "abc"]), "(?i)abc"),
    "to_number": lambda tf: tf.strings.to_number(tf.constant(["1.5", "-2", "1e3", "  7 ",
                                                              "inf", "-0.25", ".5"])),
    "to_number_int": lambda tf: tf.strings.to_number(tf.constant(["12", "-3", "+4"]), tf.int32),
    "to_number_int64": lambda tf: tf.strings.to_number(tf.constant("9000000000"), tf.int64),
    "to_number_float64": lambda tf: tf.strings.to_number(tf.constant("0.1"), tf.float64),
    "to_number_bad": lambda tf: tf.strings.to_number(tf.constant(["1", "x"])),
    "to_number_junk": lambda tf: tf.strings.to_number(tf.constant("1.5abc")),
    "to_number_empty": lambda tf: tf.strings.to_number(tf.constant("")),
    "to_number_hex": lambda tf: tf.strings.to_number(tf.constant("0x10")),
    "to_number_spellings": lambda tf: tf.strings.to_number(tf.constant(["nan", "-Inf", "1.",
                                                                        "+.5e-1", "1E2"])),
    "to_number_int_spaces": lambda tf: tf.strings.to_number(tf.constant(" 12 "), tf.int32),
    "to_number_int_float_text": lambda tf: tf.strings.to_number(tf.constant("1.5"), tf.int32),
    "to_number_int_overflow": lambda tf: tf.strings.to_number(tf.constant("3000000000"), tf.int32),
    "to_number_split": lambda tf: tf.strings.to_number(tf.strings.split(tf.constant("1 10 100"), " ")),
    "length": lambda tf: tf.strings.length(tf.constant([["abc", "héllo"], ["", "😊"]])),
    "length_utf8": lambda tf: tf.strings.length(tf.constant(["abc", "héllo", "", "😊"]),
                                                unit="UTF8_CHAR"),
    "length_bad_unit": lambda tf: tf.strings.length(tf.constant("a"), unit="CHAR"),
    "substr": lambda tf: tf.strings.substr(tf.constant(["hello", "world"]), 1, 3),
    "substr_negative": lambda tf: tf.strings.substr(tf.constant("hello"), -3, 2),
    "substr_long_len": lambda tf: tf.strings.substr(tf.constant("hello"), 3, 10),
    "substr_vector_pos": lambda tf: tf.strings.substr(tf.constant(["abc", "def"]), [0, 1], [1, 2]),
    "substr_utf8": lambda tf: tf.strings.substr(tf.constant("Thanks 😊!"), 7, 1, unit="UTF8_CHAR"),
    "substr_bytes": lambda tf: tf.strings.substr(tf.constant("Thanks 😊!"), 7, 1),
    "substr_out_of_range": lambda tf: tf.strings.substr(tf.constant(["ab", "abcdef"]), 4, 1),
    "as_string_float": lambda tf: tf.strings.as_string(tf.constant([1.5, -0.1, 1e10, 3.0])),
    "as_string_precision": lambda tf: tf.strings.as_string(tf.constant([3.14159]), precision=2),
    "as_string_scientific": lambda tf: tf.strings.as_string(tf.constant([1234.5]), scientific=True),
    "as_string_shortest": lambda tf: tf.strings.as_string(tf.constant([0.1, 1e-7, 100.0]),
                                                          shortest=True),
    "as_string_int_width": lambda tf: tf.strings.as_string(tf.constant([7, -42]), width=5),
    "as_string_int_fill": lambda tf: tf.strings.as_string(tf.constant([7, 42]), width=4, fill="0"),
    "as_string_bool": lambda tf: tf.strings.as_string(tf.constant([True, False])),
    "as_string_int64": lambda tf: tf.strings.as_string(tf.constant([2 ** 40], tf.int64)),
    "as_string_float64": lambda tf: tf.strings.as_string(tf.constant([0.1], tf.float64)),
    "as_string_top_level": lambda tf: tf.as_string(tf.constant(5)),
    "as_string_nan": lambda tf: tf.strings.as_string(tf.constant([np.nan, np.inf, -np.inf])),
    "as_string_string": lambda tf: tf.strings.as_string(tf.constant("a")),
    "as_string_int_precision": lambda tf: tf.strings.as_string(tf.constant(1), precision=2),
    "format": lambda tf: tf.strings.format("x = {}, y = {}", (tf.constant([1.5, 2.0]), 3)),
    "format_strings": lambda tf: tf.strings.format("{}", tf.constant(["a", "b"])),
    "format_scalar_string": lambda tf: tf.strings.format("[{}]", tf.constant("a")),
    "format_summarize": lambda tf: tf.strings.format("{}", tf.range(10)),
    "format_summarize_all": lambda tf: tf.strings.format("{}", tf.range(10), summarize=-1),
    "format_matrix": lambda tf: tf.strings.format("{}", tf.reshape(tf.range(4), [2, 2])),
    "format_placeholder": lambda tf: tf.strings.format("a %s b", tf.constant(1), placeholder="%s"),
    "format_bool_float": lambda tf: tf.strings.format("{} {}", (tf.constant([True, False]),
                                                              tf.constant([0.1, 1e-7, 123456789.0]))),
    "format_count_mismatch": lambda tf: tf.strings.format("{} {}", tf.constant(1)),
    "reduce_join": lambda tf: tf.strings.reduce_join(tf.constant(S)),
    "reduce_join_axis": lambda tf: tf.strings.reduce_join(tf.constant(S), axis=1, separator=" "),
    "reduce_join_axis0_keepdims": lambda tf: tf.strings.reduce_join(tf.constant(S), axis=0,
                                                                    keepdims=True),
    "reduce_join_negative": lambda tf: tf.strings.reduce_join(tf.constant(S), axis=-2),
    "unsorted_segment_join": lambda tf: tf.strings.unsorted_segment_join(
        tf.constant(["a", "b", "c", "d"]), tf.constant([1, 0, 1, 3]), 4, separator=":"),
    "ngrams": lambda tf: tf.strings.ngrams(tf.constant(["a", "b", "c", "d"]), 2),
    "ngrams_widths": lambda tf: tf.strings.ngrams(tf.constant(["a", "b", "c"]), [1, 3]),
    "ngrams_pad": lambda tf: tf.strings.ngrams(tf.constant(["a", "b"]), 3, pad_values="#"),
    "ngrams_pad_pair": lambda tf: tf.strings.ngrams(tf.constant(["a", "b", "c"]), 2,
                                                    pad_values=("<s>", "</s>"), padding_width=1),
    "ngrams_2d": lambda tf: tf.strings.ngrams(tf.constant([["a", "b", "c"], ["d", "e", "f"]]), 2,
                                              separator="_"),
    "ngrams_ragged": lambda tf: _rag(tf.strings.ngrams(
        tf.strings.split(tf.constant(["a b c", "d", "e f"])), 2)),
    "ngrams_short": lambda tf: _rag(tf.strings.ngrams(
        tf.strings.split(tf.constant(["a b c", "d"])), 3, preserve_short_sequences=True)),
    "unicode_decode": lambda tf: tf.strings.unicode_decode(tf.constant("语言处理"), "UTF-8"),
    "unicode_decode_batch": lambda tf: _rag(tf.strings.unicode_decode(
        tf.constant(["hÃllo", "What", "Göödnight", "😊"]), "UTF-8")),
    "unicode_decode_invalid": lambda tf: tf.strings.unicode_decode(
        tf.constant(b"a\xffb"), "UTF-8"),
    "unicode_decode_invalid_strict": lambda tf: tf.strings.unicode_decode(
        tf.constant(b"a\xffb"), "UTF-8", errors="strict"),
    "unicode_decode_ignore": lambda tf: tf.strings.unicode_decode(
        tf.constant(b"a\xffb"), "UTF-8", errors="ignore"),
    "unicode_decode_replacement": lambda tf: tf.strings.unicode_decode(
        tf.constant(b"a\xffb"), "UTF-8", replacement_char=63),
    "unicode_decode_truncated": lambda tf: tf.strings.unicode_decode(
        tf.constant([b"a\xe2\x82b", b"\xf0\x9f\x98", b"\xc3\xa9\x80"]), "UTF-8").to_list(),
    "unicode_split_invalid": lambda tf: tf.strings.unicode_split(
        tf.constant(b"a\xe2\x82b\xff"), "UTF-8"),
    "unicode_offsets_invalid": lambda tf: tf.strings.unicode_decode_with_offsets(
        tf.constant(b"\xffa\xe2\x82b"), "UTF-8"),
    "unicode_split_ignore": lambda tf: tf.strings.unicode_split(
        tf.constant(b"a\xffb"), "UTF-8", errors="ignore"),
    "unicode_length_invalid": lambda tf: tf.strings.length(
        tf.constant(b"a\xe2\x82b\xff"), unit="UTF8_CHAR"),
    "unicode_decode_utf16": lambda tf: tf.strings.unicode_decode(
        tf.constant("語言".encode("UTF-16-BE")), "UTF-16-BE"),
    "unicode_decode_control": lambda tf: tf.strings.unicode_decode(
        tf.constant("a\x01b"), "UTF-8", replace_control_characters=True),
    "unicode_decode_offsets": lambda tf: tf.strings.unicode_decode_with_offsets("🎈🎉🎊", "UTF-8"),
    "unicode_encode": lambda tf: tf.strings.unicode_encode(
        tf.constant([[99, 97, 116], [100, 111, 103]]), "UTF-8"),
    "unicode_encode_ragged": lambda tf: tf.strings.unicode_encode(
        tf.strings.unicode_decode(tf.constant(["héllo", "", "😊"]), "UTF-8"), "UTF-8"),
    "unicode_encode_utf16": lambda tf: tf.strings.unicode_encode(tf.constant([104, 233]),
                                                                 "UTF-16-BE"),
    "unicode_encode_invalid": lambda tf: tf.strings.unicode_encode(
        tf.constant([104, 0xD800, 0x110000]), "UTF-8"),
    "unicode_encode_invalid_strict": lambda tf: tf.strings.unicode_encode(
        tf.constant([0x110000]), "UTF-8", errors="strict"),
    "unicode_split": lambda tf: tf.strings.unicode_split(tf.constant("アヒル 🦆"), "UTF-8"),
    "unicode_split_batch": lambda tf: _rag(tf.strings.unicode_split(tf.constant(["añb", ""]),
                                                                    "UTF-8")),
    "unicode_split_offsets": lambda tf: tf.strings.unicode_split_with_offsets("añb", "UTF-8"),
    "unicode_transcode": lambda tf: tf.strings.unicode_transcode(tf.constant("语言"), "UTF-8",
                                                                 "UTF-16-BE"),
    "hash_bucket_fast": lambda tf: tf.strings.to_hash_bucket_fast(
        tf.constant(["Hello", "TensorFlow", "2.x", "", "é", "a" * 100]), 1000),
    "hash_bucket_fast_2d": lambda tf: tf.strings.to_hash_bucket_fast(
        tf.constant([["a", "b"], ["c", "d"]]), 7),
    "elementwise_ragged": lambda tf: _rag(tf.strings.length(tf.strings.split(tf.constant(LINES)))),
    "upper_ragged": lambda tf: _rag(tf.strings.upper(tf.strings.split(tf.constant(LINES)))),
}


@pytest.mark.parametrize("name", sorted(STRINGS))
def test_strings_as_tensorflow(name):
    _check(STRINGS[name], errors="class")


def test_regular_expressions_differ_from_re2_only_as_documented():
    # docs/differences.md: Python's re with RE2's ASCII classes; (?i) folds ASCII only,
    # and RE2's Unicode classes are refused.
    assert etf.strings.regex_replace("ÀB à", "(?i)à", "x").numpy() == "ÀB x".encode()
    with pytest.raises(etf.errors.InvalidArgumentError, match=r"\\p\{\.\.\.\}"):
        etf.strings.regex_full_match("a", r"\pL")


# Long inputs (> 64 bytes: farmhash's long-string path) and all lengths up to 70 bytes
def test_hash_buckets_are_tensorflows_for_every_length():
    words = ["x" * n for n in range(0, 70)] + [bytes(range(n % 256, n % 256 + 40)) for n in range(30)]
    prog = lambda tf, w: tf.strings.to_hash_bucket_fast(tf.constant(w), 2 ** 40)  # noqa: E731
    _check(prog, words)


# -- varying inputs: unicode, empty strings, several dimensions --------------------------

_TEXT = st.text(alphabet=st.sampled_from(list("ab Z,.\t\n") + ["é", "😊", "语", "ß"]),
                max_size=12)


def _text_program(tf, rows, sep):
    t = tf.constant(rows)
    parts = tf.strings.split(t) if t.shape.rank else tf.strings.split(tf.reshape(t, [1]))
    return (tf.strings.length(t), tf.strings.length(t, unit="UTF8_CHAR"),
            tf.strings.lower(t), tf.strings.upper(t), tf.strings.strip(t),
            tf.strings.regex_replace(t, r"[aé]+", "<\\0>"),
            tf.strings.regex_full_match(t, r"\S*"),
            tf.strings.reduce_join(t, separator=sep),
            tf.strings.substr(t, 0, 2, unit="UTF8_CHAR"),
            _rag(tf.strings.unicode_encode(tf.strings.unicode_decode(t, "UTF-8"), "UTF-8")),
            tf.strings.to_hash_bucket_fast(t, 97),
            _rag(parts), tf.unique(tf.reshape(t, [-1])).y,
            tf.strings.join([t, t], separator=sep))


@settings(max_examples=25, deadline=None)
@given(st.one_of(st.lists(_TEXT, min_size=1, max_size=4),
                 st.lists(st.lists(_TEXT, min_size=2, max_size=2), min_size=1, max_size=3)),
       st.sampled_from(["", " ", "||"]))
def test_string_ops_on_varied_text_as_tensorflow(rows, sep):
    _check(_text_program, rows, sep)


def _print_strings(tf):
    import sys
    tf.print(tf.constant("abc"), output_stream=sys.stdout)
    tf.print("words:", tf.constant(["a", "b'c", 'd"\n']), tf.constant([1, 2]),
             output_stream=sys.stdout)
    tf.print(tf.constant([["x", "y"], ["z", "é"]]), output_stream=sys.stdout)
    tf.print(tf.constant([str(i) for i in range(8)]), summarize=2, output_stream=sys.stdout)


def test_tf_print_of_strings_as_tensorflow(capfd):
    _print_strings(tf_oracle.tensorflow())
    want = capfd.readouterr().out
    _print_strings(etf)
    got = capfd.readouterr().out
    assert got == want


# -- gradients, tapes and tf.function -------------------------------------------------------

def _tape_on_strings(tf):
    x = tf.constant([1.0, 2.0])
    s = tf.constant(["a", "bb"])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        tape.watch(s)
        n = tf.cast(tf.strings.length(s), tf.float32)
        y = tf.reduce_sum(x * n)
        words = tf.strings.as_string(x)
    return (tape.gradient(y, x), tape.gradient(y, s), tape.gradient(y, [x, s]),
            tape.gradient(tf.strings.length(words), x))


def test_tapes_give_no_gradient_through_strings_as_tensorflow():
    # TF warns that a watched string is not floating, records no string op, and gives
    # None for a string source and through a string op.
    _check(_tape_on_strings, errors="class")


def test_watching_a_string_tensor_logs_tfs_warning(caplog):
    with etf.GradientTape() as tape:
        tape.watch(etf.constant("a"))
    assert "must be floating" in caplog.text and "string" in caplog.text


def test_a_string_argument_of_a_tf_function_is_taken_and_refused_by_the_cores():
    # (tf.function's string arguments: tests/test_tf_function_edges.py)
    @etf.function
    def count_words(text):
        return etf.size(etf.strings.split(text))

    assert int(count_words(etf.constant("a b c"))) == 3
    import eagertape as et
    with pytest.raises(TypeError, match="argument `text` of tf.function 'count' is a "
                                        "string tensor.*before calling the function"):
        et.function(count_words.python_function, name="count")(etf.constant("a b c"))
    etf.config.run_functions_eagerly(True)
    try:
        assert int(count_words(etf.constant("a b c"))) == 3
    finally:
        etf.config.run_functions_eagerly(False)


def test_string_constants_inside_a_tf_function_run_when_traced():
    table = etf.lookup.StaticHashTable(
        etf.lookup.KeyValueTensorInitializer(["a", "b"], etf.constant([1.0, 2.0])), 0.0)

    @etf.function
    def f(x):
        words = etf.strings.split(etf.constant("b a b"))
        return x * etf.reduce_sum(table.lookup(words)), etf.strings.join([words[0], "!"])

    y, s = f(etf.constant(2.0))
    assert float(y) == 10.0 and s.numpy() == b"b!"
    assert f.experimental_get_tracing_count() == 1


def test_a_string_op_on_a_traced_value_says_to_run_it_outside():
    @etf.function
    def f(x):
        return etf.strings.as_string(x)

    with pytest.raises(TypeError, match="as_string of a value traced inside a tf.function "
                                        "makes text.*takes no string argument"):
        f(etf.constant(1.5))


def test_string_tensors_refuse_jax_and_numeric_ops_clearly():
    import jax.numpy as jnp
    s = etf.constant(["a"])
    for bad in (lambda: s.jax(), lambda: jnp.asarray(s), lambda: s < "b", lambda: -s):
        with pytest.raises(TypeError, match="string"):
            bad()
    assert np.asarray(s).tolist() == [b"a"] and s.numpy().dtype == object


def test_string_tensors_pickle_and_key_dicts_by_ref():
    import pickle
    s = etf.constant([["a", "é"]])
    back = pickle.loads(pickle.dumps(s))
    assert back.dtype == etf.string and back.numpy().tolist() == [[b"a", "é".encode()]]
    d = {s.ref(): 1}
    assert d[s.ref()] == 1


# -- tf.lookup -------------------------------------------------------------------------------

def _table(tf):
    init = tf.lookup.KeyValueTensorInitializer(tf.constant(["cat", "dog", "emu"]),
                                               tf.constant([3, 1, 4], tf.int64))
    return tf.lookup.StaticHashTable(init, default_value=-1)


LOOKUP = {
    "lookup": lambda tf: _table(tf).lookup(tf.constant(["dog", "fox", "cat"])),
    "lookup_2d": lambda tf: _table(tf).lookup(tf.constant([["dog"], ["x"]])),
    "size": lambda tf: _table(tf).size(),
    "dtypes": lambda tf: (_table(tf).key_dtype, _table(tf).value_dtype),
    "export": lambda tf: [sorted(x.numpy().tolist()) for x in _table(tf).export()],
    "getitem": lambda tf: _table(tf)[tf.constant("emu")],
    "lookup_ragged": lambda tf: _rag(_table(tf).lookup(tf.strings.split(tf.constant(["dog cat", "x"])))),
    "wrong_key_dtype": lambda tf: _table(tf).lookup(tf.constant([1])),
    "int_keys_string_values": lambda tf: tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant([1, 2], tf.int64), ["one", "two"]),
        "?").lookup(tf.constant([2, 5], tf.int64)),
    "float_values": lambda tf: tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["a", "b"], [0.5, 1.5]), -1.0).lookup(
            tf.constant(["b", "z"])),
    "initializer_dtypes": lambda tf: (lambda i: (i.key_dtype, i.value_dtype))(
        tf.lookup.KeyValueTensorInitializer(["a"], [1])),
    "vocabulary": lambda tf: tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(["the", "cat"], tf.constant([0, 1], tf.int64)),
        num_oov_buckets=5).lookup(tf.constant(["the", "dog", "cat", "bird", "", "emu", "fox"])),
    "vocabulary_size": lambda tf: tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(["the", "cat"], tf.constant([0, 1], tf.int64)),
        num_oov_buckets=5).size(),
    "vocabulary_int_keys": lambda tf: tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant([10, 20], tf.int64),
                                            tf.constant([0, 1], tf.int64)),
        num_oov_buckets=3).lookup(tf.constant([20, 7, 11, 10], tf.int64)),
    "vocabulary_no_initializer": lambda tf: tf.lookup.StaticVocabularyTable(
        None, num_oov_buckets=10, lookup_key_dtype=tf.string).lookup(tf.constant(["a", "b"])),
    "vocabulary_bad_values": lambda tf: tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(["a"], [0]), 1),
    "vocabulary_ragged": lambda tf: _rag(tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(["a"], tf.constant([0], tf.int64)), 2).lookup(
            tf.strings.split(tf.constant(["a b", "c a"])))),
}


@pytest.mark.parametrize("name", sorted(LOOKUP))
def test_lookup_tables_as_tensorflow(name):
    _check(LOOKUP[name], errors="class")


def _text_file_table(tf, path):
    init = tf.lookup.TextFileInitializer(path, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE,
                                         tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER)
    table = tf.lookup.StaticHashTable(init, -1)
    cols = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        path, tf.string, 0, tf.string, 1, delimiter=" "), "?")
    return table.lookup(tf.constant(["b x", "a y", "zz"])), table.size(), cols.lookup(
        tf.constant(["a", "b", "c"]))


def test_text_file_tables_as_tensorflow(tmp_path):
    path = str(tmp_path / "vocab.txt")
    with open(path, "w") as f:
        f.write("a y\nb x\n")
    # The path is part of the program's key: a fixed one, so TF's outcome is kept.
    fixed = os.path.join(tempfile.gettempdir(), "eagertape-test-vocab.txt")
    with open(fixed, "w") as f:
        f.write("a y\nb x\n")
    _check(_text_file_table, fixed)


# -- tf.data of strings ------------------------------------------------------------------------

def _data_facts(tf, make):
    ds = make(tf)
    # (element_spec's dtypes: eagertape reads a mapped dataset's shapes off its first
    # element, where TF's trace leaves sizes unknown; docs/differences.md)
    return ([_rag(e) if not isinstance(e, tuple) else tuple(_rag(x) for x in e) for e in ds],
            list(ds.as_numpy_iterator()),
            tf.nest.map_structure(lambda s: s.dtype, ds.element_spec))


WORDS = ["the cat", "sat on", "", "the mat ok", "é ü"]

DATA = {
    "slices": lambda tf: tf.data.Dataset.from_tensor_slices(WORDS),
    "slices_tensor_2d": lambda tf: tf.data.Dataset.from_tensor_slices(tf.constant([["a", "b"], ["c", "d"]])),
    "slices_tuple": lambda tf: tf.data.Dataset.from_tensor_slices((WORDS, list(range(5)))),
    "map_lower": lambda tf: tf.data.Dataset.from_tensor_slices(WORDS).map(tf.strings.upper),
    "map_length": lambda tf: tf.data.Dataset.from_tensor_slices(WORDS).map(
        lambda s: (s, tf.strings.length(s))),
    "map_split_dense": lambda tf: tf.data.Dataset.from_tensor_slices(WORDS).map(
        lambda s: tf.strings.split(s)),
    "map_from_numbers": lambda tf: tf.data.Dataset.range(3).map(tf.strings.as_string),
    "batch": lambda tf: tf.data.Dataset.from_tensor_slices(WORDS).batch(2),
    "batch_map_split_ragged_dense": lambda tf: tf.data.Dataset.from_tensor_slices(WORDS).batch(2).map(
        lambda b: tf.strings.split(b).to_tensor()),
    "padded_batch": lambda tf: tf.data.Dataset.from_tensor_slices(WORDS).map(
        lambda s: tf.strings.split(s)).padded_batch(2),
    "padded_batch_value": lambda tf: tf.data.Dataset.from_tensor_slices(WORDS).map(
        lambda s: tf.strings.split(s)).padded_batch(2, padded_shapes=[4], padding_values="<pad>"),
    "filter": lambda tf: tf.data.Dataset.from_tensor_slices(WORDS).filter(
        lambda s: tf.strings.length(s) > 3),
    "filter_regex": lambda tf: tf.data.Dataset.from_tensor_slices(WORDS).filter(
        lambda s: tf.strings.regex_full_match(s, "the.*")),
    "unbatch": lambda tf: tf.data.Dataset.from_tensor_slices(WORDS).batch(2).unbatch(),
    "shuffle_all": lambda tf: tf.data.Dataset.from_tensor_slices(WORDS).shuffle(1),
    "zip_enumerate": lambda tf: tf.data.Dataset.zip((
        tf.data.Dataset.from_tensor_slices(WORDS), tf.data.Dataset.range(5))).enumerate(),
    "generator": lambda tf: tf.data.Dataset.from_generator(
        lambda: iter(["a b", "c"]), output_signature=tf.TensorSpec((), tf.string)),
    "from_tensors": lambda tf: tf.data.Dataset.from_tensors(tf.constant(["x", "y"])),
    "map_py_function_text": lambda tf: tf.data.Dataset.from_tensor_slices(WORDS).map(
        lambda s: tf.py_function(lambda x: x.numpy().upper() + b"!", [s], Tout=tf.string)),
    "py_function_text_and_number": lambda tf: tf.data.Dataset.from_tensors(tuple(tf.py_function(
        lambda: ([b"a", b"bc"], 2.0), [], Tout=[tf.string, tf.float32]))),
    "lookup_map": lambda tf: tf.data.Dataset.from_tensor_slices(WORDS).map(
        lambda s: _table(tf).lookup(tf.strings.split(s))).padded_batch(5),
}


@pytest.mark.parametrize("name", sorted(DATA))
def test_string_datasets_as_tensorflow(name):
    _check(_data_facts, DATA[name], errors="class")


def test_shuffled_strings_keep_every_element():
    ds = etf.data.Dataset.from_tensor_slices(WORDS).shuffle(5, seed=1)
    got = sorted(x.numpy() for x in ds)
    assert got == sorted(w.encode() for w in WORDS)


_FILES = os.path.join(tempfile.gettempdir(), "eagertape-test-text-lines")


def _write_text_files():
    os.makedirs(_FILES, exist_ok=True)
    plain = os.path.join(_FILES, "a.txt")
    with open(plain, "wb") as f:
        f.write(b"first line\nsecond\r\n\nlast without newline")
    zipped = os.path.join(_FILES, "b.txt.gz")
    with gzip.open(zipped, "wb") as f:
        f.write("zipped é\nline 2\n".encode())
    return plain, zipped


def _text_lines(tf, plain, zipped):
    a = tf.data.TextLineDataset(plain)
    b = tf.data.TextLineDataset([zipped], compression_type="GZIP")
    both = a.concatenate(b).map(lambda s: (s, tf.strings.length(s)))
    return ([x.numpy() for x in a], [x.numpy() for x in b], [(s.numpy(), n.numpy()) for s, n in both],
            a.element_spec, int(a.cardinality()),
            [x.numpy() for x in tf.data.TextLineDataset(tf.constant([plain, plain])).skip(3)])


def test_text_line_datasets_as_tensorflow():
    _check(_text_lines, *_write_text_files(), errors="class")


def _listed_files(tf, plain, zipped):
    pattern = os.path.join(_FILES, "*")
    kept = [os.path.basename(p.numpy()) for p in tf.data.Dataset.list_files(pattern, shuffle=False)]
    mixed = [os.path.basename(p.numpy()) for p in tf.data.Dataset.list_files(
        [os.path.join(_FILES, "b*"), os.path.join(_FILES, "a*")], shuffle=False)]
    shuffled = sorted(os.path.basename(p.numpy()) for p in tf.data.Dataset.list_files(pattern))
    spec = tf.data.Dataset.list_files(pattern, shuffle=False).element_spec
    return kept, mixed, shuffled, spec


def test_list_files_as_tensorflow():
    _check(_listed_files, *_write_text_files(), errors="class")


def test_list_files_matching_nothing_raises_tfs_error():
    _check(lambda tf: tf.data.Dataset.list_files(os.path.join(_FILES, "*.none")), errors="class")


def test_a_missing_text_file_raises_tfs_error():
    _check(lambda tf: list(tf.data.TextLineDataset(os.path.join(_FILES, "missing.txt"))),
           errors="class")


# -- public programs that use strings (the string parts kept) ---------------------------------

def _guide_tensor_strings(tf):
    # TF's guide "Introduction to Tensors", section "String tensors"
    # (tensorflow/docs, site/en/guide/tensor.ipynb; tf.io.decode_raw left out).
    out = {}
    scalar_string_tensor = tf.constant("Gray wolf")
    out["scalar"] = scalar_string_tensor
    tensor_of_strings = tf.constant(["Gray wolf", "Quick brown fox", "Lazy dog"])
    out["vector"] = tensor_of_strings
    out["emoji"] = tf.constant("🥳👍")
    out["split_scalar"] = tf.strings.split(scalar_string_tensor, sep=" ")
    out["split_vector"] = _rag(tf.strings.split(tensor_of_strings))
    text = tf.constant("1 10 100")
    out["numbers"] = tf.strings.to_number(tf.strings.split(text, " "))
    out["bytes"] = tf.strings.bytes_split(tf.constant("Duck"))
    unicode_bytes = tf.constant("アヒル 🦆")
    out["chars"] = tf.strings.unicode_split(unicode_bytes, "UTF-8")
    out["values"] = tf.strings.unicode_decode(unicode_bytes, "UTF-8")
    return out


def _tutorial_unicode(tf):
    # TF's "Unicode strings" tutorial (tensorflow/docs,
    # site/en/r1/tutorials/representation/unicode.ipynb); its unicode_script and
    # to_sparse/from_sparse cells left out (not in eagertape).
    out = {}
    out["thanks"] = tf.constant(u"Thanks 😊")
    out["shape"] = tf.constant([u"You're", u"welcome!"]).shape
    text_utf8 = tf.constant(u"语言处理")
    text_utf16be = tf.constant(u"语言处理".encode("UTF-16-BE"))
    text_chars = tf.constant([ord(char) for char in u"语言处理"])
    out["utf16"] = text_utf16be
    out["decode"] = tf.strings.unicode_decode(text_utf8, input_encoding='UTF-8')
    out["encode"] = tf.strings.unicode_encode(text_chars, output_encoding='UTF-8')
    out["transcode"] = tf.strings.unicode_transcode(text_utf8, input_encoding='UTF8',
                                                    output_encoding='UTF-16-BE')
    batch_utf8 = [s.encode('UTF-8') for s in
                  [u'hÃllo', u'What is the weather tomorrow', u'Göödnight', u'😊']]
    batch_chars_ragged = tf.strings.unicode_decode(batch_utf8, input_encoding='UTF-8')
    out["ragged"] = [sentence_chars for sentence_chars in batch_chars_ragged.to_list()]
    batch_chars_padded = batch_chars_ragged.to_tensor(default_value=-1)
    out["padded"] = batch_chars_padded.numpy()
    out["encode_dense"] = tf.strings.unicode_encode([[99, 97, 116], [100, 111, 103], [99, 111, 119]],
                                                    output_encoding='UTF-8')
    out["encode_ragged"] = tf.strings.unicode_encode(batch_chars_ragged, output_encoding='UTF-8')
    out["encode_from_tensor"] = tf.strings.unicode_encode(
        tf.RaggedTensor.from_tensor(batch_chars_padded, padding=-1), output_encoding='UTF-8')
    thanks = u'Thanks 😊'.encode('UTF-8')
    num_bytes = tf.strings.length(thanks).numpy()
    num_chars = tf.strings.length(thanks, unit='UTF8_CHAR').numpy()
    out["lengths"] = '{} bytes; {} UTF-8 characters'.format(num_bytes, num_chars)
    out["substr_byte"] = tf.strings.substr(thanks, pos=7, len=1).numpy()
    out["substr_char"] = tf.strings.substr(thanks, pos=7, len=1, unit='UTF8_CHAR').numpy()
    out["split"] = tf.strings.unicode_split(thanks, 'UTF-8').numpy()
    codepoints, offsets = tf.strings.unicode_decode_with_offsets(u"🎈🎉🎊", 'UTF-8')
    out["offsets"] = ["At byte offset {}: codepoint {}".format(offset, codepoint)
                      for (codepoint, offset) in zip(codepoints.numpy(), offsets.numpy())]
    return out


_ILIAD = {
    "cowper.txt": "Achilles sing, O Goddess! Peleus' son;\nHis wrath pernicious, who ten "
                  "thousand woes\nCaused to Achaia's host, sent many a soul\n",
    "derby.txt": "Of Peleus' son, Achilles, sing, O Muse,\nThe vengeance, deep and deadly; "
                 "whence to Greece\n\nUnnumber'd ills arose;\n",
    "butler.txt": "Sing, O goddess, the anger of Achilles son of Peleus, that brought\n"
                  "countless ills upon the Achaeans.\n",
}


def _write_iliad():
    folder = os.path.join(tempfile.gettempdir(), "eagertape-test-iliad")
    os.makedirs(folder, exist_ok=True)
    for name, text in _ILIAD.items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
    return folder


def _tutorial_load_text(tf, parent_dir):
    # TF's "Load text" tutorial, its Iliad part (tensorflow/docs,
    # site/en/tutorials/load_data/text.ipynb): TextLineDataset per file, labeled and
    # concatenated, tokenized, a vocabulary counted, a StaticVocabularyTable of it in
    # a Keras layer, the dataset encoded and padded into batches. Three short files
    # stand in for the downloaded ones; tensorflow_text's tokenizer is replaced by
    # tf.strings (lower case, punctuation stripped, split) and the shuffle left out
    # (its order is not TF's), as is the training.
    import collections
    FILE_NAMES = ['cowper.txt', 'derby.txt', 'butler.txt']

    def labeler(example, index):
        return example, tf.cast(index, tf.int64)

    labeled_data_sets = []
    for i, file_name in enumerate(FILE_NAMES):
        lines_dataset = tf.data.TextLineDataset(os.path.join(parent_dir, file_name))
        labeled_dataset = lines_dataset.map(lambda ex: labeler(ex, i))
        labeled_data_sets.append(labeled_dataset)
    all_labeled_data = labeled_data_sets[0]
    for labeled_dataset in labeled_data_sets[1:]:
        all_labeled_data = all_labeled_data.concatenate(labeled_dataset)

    def tokenize(text):
        lower_case = tf.strings.lower(text)
        return tf.strings.split(tf.strings.regex_replace(lower_case, r"[[:punct:]]", ""))

    tokenized_ds = all_labeled_data.map(lambda text, label: (tokenize(text), label))
    vocab_count = collections.Counter()
    for toks, labels in tokenized_ds:
        for tok in toks.numpy():
            vocab_count[tok] += 1
    vocab = [tok for tok, count in vocab_count.most_common(30)]

    keys = [''] + vocab
    init = tf.lookup.KeyValueTensorInitializer(keys, range(len(keys)), key_dtype=tf.string,
                                               value_dtype=tf.int64)
    table = tf.lookup.StaticVocabularyTable(init, 1)
    example = tf.constant([''] + list('abcdefghi'))
    all_encoded_data = all_labeled_data.map(lambda text, labels: (table.lookup(tokenize(text)),
                                                                   labels))
    validation_data = all_encoded_data.take(5).padded_batch(4)
    sample_text, sample_labels = next(iter(validation_data))
    return (vocab, table.lookup(example), [(i.numpy(), label.numpy()) for i, label in all_encoded_data],
            sample_text.shape, sample_labels, [(t.numpy(), l.numpy()) for t, l in validation_data])


def _tutorial_text_classification(tf):
    # TF's "Basic text classification" tutorial (tensorflow/docs,
    # site/en/tutorials/keras/text_classification.ipynb): its custom_standardization,
    # verbatim, on a few reviews through tf.data (the TextVectorization layer and
    # training are Keras's: tested below in a process of their own).
    def custom_standardization(input_data):
        lowercase = tf.strings.lower(input_data)
        stripped_html = tf.strings.regex_replace(lowercase, '<br />', ' ')
        return tf.strings.regex_replace(stripped_html,
                                        '[%s]' % re.escape(string.punctuation),
                                        '')
    reviews = ["Great movie!<br /><br />Loved it.", "Worst. Film. Ever???",
               "It's \"fine\", I guess (6/10).", "<br />ÉPIC!"]
    raw_train_ds = tf.data.Dataset.from_tensor_slices((reviews, [1, 0, 1, 1])).batch(2)
    standardized = raw_train_ds.map(lambda x, y: (custom_standardization(x), y))
    words = standardized.map(lambda x, y: tf.strings.split(x).to_tensor())
    return [x.numpy() for x, _ in standardized], [w.numpy() for w in words]


PROGRAMS = {
    "guide_tensor_strings": (_guide_tensor_strings, ()),
    "tutorial_unicode": (_tutorial_unicode, ()),
    "tutorial_text_classification": (_tutorial_text_classification, ()),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_public_string_programs_give_tensorflows_answers(name):
    program, args = PROGRAMS[name]
    _check(program, *args)


def test_load_text_tutorial_gives_tensorflows_answers():
    _check(_tutorial_load_text, _write_iliad())


# -- Keras's StringLookup and TextVectorization -------------------------------------------------

_KERAS_TEXT = """
import numpy as np
def words(t):
    return [x.decode() if isinstance(x, bytes) else x for x in np.asarray(t).ravel().tolist()]
texts = ["the cat sat", "The dog, the CAT!", "a bird", ""]
lookup = tf.keras.layers.StringLookup(vocabulary=["cat", "dog", "the"])
emit("lookup", lookup(tf.constant(["dog", "fish", "the"])))
emit("lookup_2d", lookup(tf.constant([["cat", "x"], ["the", "dog"]])))
emit("vocab", words(lookup.get_vocabulary()))
inverse = tf.keras.layers.StringLookup(vocabulary=["cat", "dog"], invert=True)
emit("invert", words(inverse(tf.constant([1, 2, 0]))))
onehot = tf.keras.layers.StringLookup(vocabulary=["a", "b"], output_mode="one_hot")
emit("one_hot", onehot(tf.constant(["b", "z"])))
vec = tf.keras.layers.TextVectorization(max_tokens=10, output_sequence_length=5)
vec.adapt(tf.constant(texts))
emit("tv_vocab", words(vec.get_vocabulary()))
emit("tv", vec(tf.constant(texts)))
ds = tf.data.Dataset.from_tensor_slices(texts).batch(2)
vec2 = tf.keras.layers.TextVectorization(max_tokens=10, output_mode="multi_hot")
vec2.adapt(ds)
emit("tv_ds_multi_hot", [b for b in ds.map(vec2)])
emit("tv_in_map", [x for x in ds.map(lambda t: vec(t))])
model = tf.keras.Sequential([tf.keras.layers.Embedding(10, 2)])
model.build((None, 5))
model.set_weights(weights_like(model))
emit("model_on_ids", model(vec(tf.constant(texts))))
"""


@pytest.mark.subprocess
def test_keras_string_layers_on_string_tensors_and_datasets():
    pytest.importorskip("keras")
    import test_keras
    got = test_keras._run(_KERAS_TEXT, "eagertape")
    want = test_keras._tf_run(_KERAS_TEXT)
    assert want.keys() == got.keys()
    for k in want:
        g, w = got[k], want[k]
        assert _plain(g) == _plain(w), f"{k}: TF {w!r}, eagertape {g!r}"


def _plain(x):
    if isinstance(x, list):
        return [_plain(v) for v in x]
    if isinstance(x, float):
        return round(x, 5)
    return x
