"""``tf.strings``: TF's string ops, run on the host on string tensors (NumPy
object arrays of ``bytes``, see ``eagertape.tf._text``), with TF's results:
dtypes, shapes, broadcasting, errors.

Ops that split a string into pieces return what TF returns: for a scalar input a
1-D string tensor, for an input of rank 1 or more a ``tf.RaggedTensor`` (rows of
different lengths; ``to_tensor()`` pads them). Element-by-element ops also take a
RaggedTensor and keep its rows.

Regular expressions are TF's RE2 syntax run by Python's ``re`` on the text
decoded as UTF-8 (so ``.`` is one character, as in RE2), with RE2's ASCII
classes (``\\w``, ``\\d``, ``\\s``, ``\\b``) and its POSIX classes
(``[[:punct:]]``); RE2's ``\\p{...}`` Unicode classes are refused with an error.

>>> import eagertape.tf as tf
>>> line = tf.constant("The Quick  brown fox")
>>> tf.strings.split(tf.strings.lower(line)).numpy()
array([b'the', b'quick', b'brown', b'fox'], dtype=object)
>>> tf.strings.regex_replace(line, "[aeiou]", "_").numpy()
b'Th_ Q__ck  br_wn f_x'
>>> tf.strings.length(tf.constant(["héllo", ""]), unit="UTF8_CHAR").numpy()
array([5, 0], dtype=int32)

Left out, with why: ``to_hash_bucket`` (TF's legacy Hash64) and
``to_hash_bucket_strong`` (SipHash with a key): use ``to_hash_bucket_fast``;
``unicode_script`` (ICU's script data, which Python's ``unicodedata`` lacks).
"""
import builtins
import codecs
import re
import threading

import numpy as np

from .. import extend as _extend
from ..extend import InvalidArgumentError, TensorLike as _TensorLike
from . import _text
from ._ragged import RaggedTensor, from_rows, nest_rows
from ._util import _Unsupported, left_out

__getattr__ = _Unsupported("tf.strings", {
    **left_out("TF's legacy Hash64 and keyed SipHash are not reproduced; "
               "tf.strings.to_hash_bucket_fast gives TF's Fingerprint64 buckets",
               "to_hash_bucket to_hash_bucket_strong"),
    **left_out("it needs ICU's Unicode script data, which Python's unicodedata does not "
               "have", "unicode_script"),
})


# -- helpers ------------------------------------------------------------------------

def _each(fn, x, argname="input", dtype=object):
    """``fn`` on every element of text ``x`` (a RaggedTensor: of its flat values)."""
    if isinstance(x, RaggedTensor):
        return x.with_flat_values(_each(fn, x.flat_values, argname, dtype))
    arr = _text.host(x, argname)
    out = np.empty(arr.shape, object)
    for i, s in np.ndenumerate(arr):
        out[i] = fn(s)
    return _text.text_result(out if dtype is object else out.astype(dtype))


def _scalar_text(x, argname):
    arr = _text.host(x, argname)
    if arr.ndim:
        raise InvalidArgumentError(f"argument `{argname}` must be a scalar string, got shape "
                                   f"{list(arr.shape)}")
    return arr[()]


def _pieces(x, argname, split_one, dtype=object):
    """A splitting op: ``split_one(bytes)`` -> list of pieces, for every element;
    scalar in -> 1-D Tensor, rank >= 1 in -> RaggedTensor."""
    if isinstance(x, RaggedTensor):
        inner = _pieces(x.flat_values, argname, split_one, dtype)
        return x.with_flat_values(inner)
    arr = _text.host(x, argname)
    if arr.ndim == 0:
        return _text.text_result(np.asarray(split_one(arr[()]), dtype=dtype).reshape(-1))
    rows = [np.asarray(split_one(s), dtype=dtype).reshape(-1) for s in arr.reshape(-1)]
    return nest_rows(from_rows(rows, dtype), arr.shape)


# -- splitting and joining ------------------------------------------------------------

def split(input, sep=None, maxsplit=-1, name=None):
    """Split each string at ``sep`` (None or "": at runs of whitespace, dropping
    empty pieces), at most ``maxsplit`` times (-1: no limit). A scalar gives a 1-D
    string tensor, a tensor of rank N a RaggedTensor of rank N+1.

    >>> import eagertape.tf as tf
    >>> tf.strings.split(tf.constant(["a,b,,c", "d"]), sep=",").to_list()
    [[b'a', b'b', b'', b'c'], [b'd']]
    """
    sep_b = None if sep is None else _scalar_text(sep, "sep")
    if sep_b == b"":
        sep_b = None
    n = -1 if maxsplit is None else int(maxsplit)

    def one(s):
        if sep_b is None:
            return s.split(None, n)
        return s.split(sep_b, n)
    return _pieces(input, "input", one)


def bytes_split(input, name=None):
    """Each string as its single bytes (scalar in: 1-D; rank N: RaggedTensor).

    >>> import eagertape.tf as tf
    >>> tf.strings.bytes_split(tf.constant("abc")).numpy()
    array([b'a', b'b', b'c'], dtype=object)
    """
    return _pieces(input, "input", lambda s: [s[i:i + 1] for i in range(len(s))])


def join(inputs, separator="", name=None):
    """Element by element, the strings of ``inputs`` (a list of tensors of one
    shape, or scalars, which are broadcast) joined with ``separator``.

    >>> import eagertape.tf as tf
    >>> tf.strings.join([tf.constant(["a", "b"]), "-", tf.constant(["x", "y"])]).numpy()
    array([b'a-x', b'b-y'], dtype=object)
    """
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    sep = _scalar_text(separator, "separator")
    parts = [_text.host(x, f"inputs[{i}]") for i, x in enumerate(inputs)]
    shapes = {p.shape for p in parts if p.ndim}
    if len(shapes) > 1:
        raise InvalidArgumentError(f"Input shapes do not match: {[list(s) for s in shapes]} "
                                   "(tf.strings.join broadcasts scalars only)")
    shape = shapes.pop() if shapes else ()
    out = np.empty(shape, object)
    full = [np.broadcast_to(p, shape) for p in parts]
    for i in np.ndindex(*shape):
        out[i] = sep.join(p[i] for p in full)
    return _text.wrap(out)


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """The strings along ``axis`` (None: all) joined with ``separator``, in order.

    >>> import eagertape.tf as tf
    >>> tf.strings.reduce_join(tf.constant([["a", "b"], ["c", "d"]]), axis=1).numpy()
    array([b'ab', b'cd'], dtype=object)
    """
    x = _text.host(inputs, "inputs")
    sep = _scalar_text(separator, "separator")
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        raw = axis.numpy() if isinstance(axis, _TensorLike) else axis
        axes = tuple(sorted({_axis(a, x.ndim) for a in np.reshape(np.asarray(raw), -1)}))
    keep = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, keep + list(axes)).reshape([x.shape[d] for d in keep] + [-1])
    out = np.empty(moved.shape[:-1], object)
    for i in np.ndindex(*out.shape):
        out[i] = sep.join(moved[i])
    if keepdims:
        out = out.reshape([1 if d in axes else x.shape[d] for d in range(x.ndim)])
    return _text.wrap(out)


def _axis(a, ndim):
    a = int(a)
    if not -ndim <= a < ndim:
        raise InvalidArgumentError(f"Invalid reduction dimension {a} for input with {ndim} "
                                   "dimension(s)")
    return a % ndim


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """The strings of each segment (``segment_ids`` along the first axes) joined in
    order; empty segments give "".

    >>> import eagertape.tf as tf
    >>> tf.strings.unsorted_segment_join(["a", "b", "c"], [1, 0, 1], 2).numpy()
    array([b'b', b'ac'], dtype=object)
    """
    x = _text.host(inputs, "inputs")
    ids = _text.numeric(segment_ids, "segment_ids", "tf.strings.unsorted_segment_join")
    n = int(_text.numeric(num_segments, "num_segments", "tf.strings.unsorted_segment_join"))
    sep = _scalar_text(separator, "separator")
    k = ids.ndim
    if x.shape[:k] != ids.shape:
        raise InvalidArgumentError(f"segment_ids shape {list(ids.shape)} is not a prefix of "
                                   f"the inputs' shape {list(x.shape)}")
    rest = x.shape[k:]
    pieces = [[[] for _ in range(int(np.prod(rest, dtype=int)))] for _ in range(n)]
    flat = x.reshape((-1,) + rest)
    for row, s in zip(flat, ids.reshape(-1)):
        if not 0 <= s < n:
            if s < 0:
                continue
            raise InvalidArgumentError(f"segment_ids[{s}] is out of range [0, {n})")
        for j, v in enumerate(np.reshape(row, -1)):
            pieces[s][j].append(v)
    out = np.empty((n,) + rest, object)
    out.reshape(n, -1)[:] = [[sep.join(p) for p in seg] for seg in pieces]
    return _text.wrap(out)


# -- case, whitespace, regular expressions --------------------------------------------

def _case(input, encoding, how):
    enc = str(encoding or "")
    if enc == "":
        return _each(getattr(bytes, how), input)
    if enc.lower().replace("-", "") != "utf8":
        raise InvalidArgumentError(f"argument `encoding` must be '' or 'utf-8', got {encoding!r}")
    return _each(lambda s: getattr(s.decode("utf-8", "surrogateescape"), how)().encode(
        "utf-8", "surrogateescape"), input)


def lower(input, encoding="", name=None):
    """Each string in lower case: ASCII letters only, or with ``encoding="utf-8"``
    every letter.

    >>> import eagertape.tf as tf
    >>> tf.strings.lower(tf.constant(["ÀB", "Ok"]), encoding="utf-8").numpy()[0].decode()
    'àb'
    """
    return _case(input, encoding, "lower")


def upper(input, encoding="", name=None):
    """Each string in upper case (ASCII, or every letter with ``encoding="utf-8"``).

    >>> import eagertape.tf as tf
    >>> tf.strings.upper("abc").numpy()
    b'ABC'
    """
    return _case(input, encoding, "upper")


def strip(input, name=None):
    """Each string without its leading and trailing ASCII whitespace.

    >>> import eagertape.tf as tf
    >>> tf.strings.strip(tf.constant(["  a b \\n"])).numpy()
    array([b'a b'], dtype=object)
    """
    return _each(bytes.strip, input)


_POSIX = {"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
          "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z",
          "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ",
          "upper": "A-Z", "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f"}
_POSIX_RE = re.compile(r"\[:(\^?)(" + "|".join(_POSIX) + r"):\]")
_cache = _extend.CacheTable("tf.strings: compiled patterns", 256)


def _compile(pattern, argname="pattern"):
    text = _scalar_text(pattern, argname).decode("utf-8", "surrogateescape")
    hit = _cache.get(text)
    if hit is not None:
        return hit
    if re.search(r"(?<!\\)(\\\\)*\\[pP]", text):
        raise InvalidArgumentError(
            f"argument `{argname}`: RE2's Unicode classes (\\p{{...}}, \\P{{...}}) are not "
            "supported by eagertape's regular expressions (Python's re); spell the "
            "characters out, or prepare the text in Python")

    def posix(m):
        if m.group(1):
            raise InvalidArgumentError(f"argument `{argname}`: negated POSIX classes "
                                       f"([:^{m.group(2)}:]) are not supported")
        return _POSIX[m.group(2)]
    try:
        compiled = re.compile(_POSIX_RE.sub(posix, text), re.ASCII)
    except re.error as e:
        raise InvalidArgumentError(f"Invalid pattern: {text}, error: {e}") from None
    return _cache.put(text, compiled)


def _rewrite(rewrite):
    # RE2's rewrite strings: \0-\9 are groups, \\ a backslash, nothing else special.
    text = _scalar_text(rewrite, "rewrite").decode("utf-8", "surrogateescape")
    parts, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and (text[i + 1].isdigit() or text[i + 1] == "\\"):
            nxt = text[i + 1]
            parts.append(int(nxt) if nxt.isdigit() else "\\")
            i += 2
        elif c == "\\":
            raise InvalidArgumentError(f"argument `rewrite`: invalid rewrite pattern {text!r} "
                                       "(a backslash must be followed by a digit or a "
                                       "backslash)")
        else:
            parts.append(c)
            i += 1
    return parts


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):
    """Each string with the matches of ``pattern`` (RE2 syntax) replaced by
    ``rewrite`` (``\\1`` for a group, ``\\0`` the whole match); only the first
    match with ``replace_global=False``.

    >>> import eagertape.tf as tf
    >>> tf.strings.regex_replace("<br />Great movie!", "<[^>]+>", " ").numpy()
    b' Great movie!'
    >>> tf.strings.regex_replace("ab12", r"([a-z]+)(\\d+)", r"\\2\\1").numpy()
    b'12ab'
    """
    rx = _compile(pattern)
    parts = _rewrite(rewrite)
    groups = [p for p in parts if isinstance(p, int)]
    if groups and builtins.max(groups) > rx.groups:
        raise InvalidArgumentError(f"Invalid rewrite pattern: \\{builtins.max(groups)} "
                                   f"refers to a group the pattern does not have")

    def repl(m):
        return "".join(m.group(p) or "" if isinstance(p, int) else p for p in parts)

    count = 0 if replace_global else 1

    def one(s):
        text = s.decode("utf-8", "surrogateescape")
        return rx.sub(repl, text, count=count).encode("utf-8", "surrogateescape")
    return _each(one, input)


def regex_full_match(input, pattern, name=None):
    """Whether each whole string matches ``pattern`` (RE2 syntax), as bools.

    >>> import eagertape.tf as tf
    >>> tf.strings.regex_full_match(tf.constant(["abc", "ab1"]), "[a-z]+").numpy()
    array([ True, False])
    """
    rx = _compile(pattern)
    return _each(lambda s: rx.fullmatch(s.decode("utf-8", "surrogateescape")) is not None,
                 input, dtype=bool)


# -- numbers and lengths ---------------------------------------------------------------

_INT_RE = re.compile(rb"\s*[+-]?\d+\s*\Z")
_FLOAT_RE = re.compile(rb"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|"
                       rb"infinity|nan)\s*\Z", re.IGNORECASE)
_HEX_RE = re.compile(rb"\s*[+-]?0[xX][0-9a-fA-F]+\s*\Z")


def to_number(input, out_type="float32", name=None):
    """Each string parsed as a number of ``out_type`` (float32, float64, int32 or
    int64); a string that is not one raises InvalidArgumentError, as in TF.

    >>> import eagertape.tf as tf
    >>> tf.strings.to_number(tf.constant(["1.5", "-2e3"])).numpy().tolist()
    [1.5, -2000.0]
    >>> tf.strings.to_number("42", out_type=tf.int64).numpy()
    np.int64(42)
    """
    dt = np.dtype(_extend.as_dtype(out_type))
    if dt.name not in ("float32", "float64", "int32", "int64"):
        raise TypeError(f"argument `out_type`: Value for attr 'out_type' of {dt.name} is not "
                        "in the list of allowed values: float, double, int32, int64")
    integer = dt.kind == "i"

    def one(s):
        if not integer and _HEX_RE.match(s):      # TF's float parser takes hex integers
            return float(int(s.strip(), 16))
        if not (_INT_RE.match(s) if integer else _FLOAT_RE.match(s)):
            raise InvalidArgumentError(f"StringToNumberOp could not correctly convert "
                                       f"string: {s.decode('utf-8', 'backslashreplace')}")
        if integer:
            v = int(s)
            info = np.iinfo(dt)
            if not info.min <= v <= info.max:
                raise InvalidArgumentError(f"StringToNumberOp could not correctly convert "
                                           f"string: {s.decode('utf-8', 'backslashreplace')}")
            return v
        v = float(s)
        if dt == np.float32 and np.isfinite(v) and abs(v) > float(np.finfo(np.float32).max):
            raise InvalidArgumentError(f"StringToNumberOp could not correctly convert "
                                       f"string: {s.decode('utf-8', 'backslashreplace')}")
        return v
    return _each(one, input, dtype=dt)


def _utf8_chars(s):
    return len(s) - builtins.sum(1 for b in s if 0x80 <= b < 0xC0)


def _unit(unit):
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise InvalidArgumentError(f"Value for attr 'unit' of \"{unit}\" is not in the list "
                                   "of allowed values: \"BYTE\", \"UTF8_CHAR\"")
    return unit == "UTF8_CHAR"


def length(input, unit="BYTE", name=None):
    """Each string's length (int32): in bytes, or with ``unit="UTF8_CHAR"`` in
    UTF-8 characters.

    >>> import eagertape.tf as tf
    >>> tf.strings.length(tf.constant(["abc", "éé"])).numpy()
    array([3, 4], dtype=int32)
    """
    chars = _unit(unit)
    return _each(_utf8_chars if chars else len, input, dtype=np.int32)


def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002  (TF's name)
    """The ``len`` bytes (or UTF-8 characters) of each string from ``pos``
    (negative: from the end); ``pos`` and ``len`` are scalars or of the input's
    shape. A ``pos`` past the end raises InvalidArgumentError, as in TF.

    >>> import eagertape.tf as tf
    >>> tf.strings.substr(tf.constant(["hello", "world"]), 1, 3).numpy()
    array([b'ell', b'orl'], dtype=object)
    """
    chars = _unit(unit)
    x = _text.host(input, "input")
    p = _text.numeric(pos, "pos", "tf.strings.substr")
    n = _text.numeric(len, "len", "tf.strings.substr")
    try:
        pb, nb = np.broadcast_to(p, x.shape), np.broadcast_to(n, x.shape)
    except ValueError:
        raise InvalidArgumentError(f"pos and len must be scalars or have the input's shape "
                                   f"{list(x.shape)}, got {list(p.shape)} and "
                                   f"{list(n.shape)}") from None
    out = np.empty(x.shape, object)
    for k, (i, s) in enumerate(np.ndenumerate(x)):
        seq = s.decode("utf-8", "surrogateescape") if chars else s
        size = builtins.len(seq)
        start, count = int(pb[i]), int(nb[i])
        if start < 0:
            start += size
        if not 0 <= start <= size:
            raise InvalidArgumentError(f"pos {int(pb[i])} out of range for string "
                                       f"b'{s.decode('utf-8', 'backslashreplace')}' at index {k}")
        piece = seq[start:start + builtins.max(count, 0)]
        out[i] = piece.encode("utf-8", "surrogateescape") if chars else piece
    return _text.wrap(out)


# -- numbers to strings ------------------------------------------------------------------

def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="",
              name=None):
    """Each number as a string, as C's printf formats it: floats ``%f`` (six
    decimals), or ``%e`` (``scientific``), ``%g`` (``shortest``), with ``precision``
    decimals; integers ``%d``; bools "true"/"false"; ``width`` and ``fill`` (a
    printf flag: "0", " ", "+", "-" or "#") pad it.

    >>> import eagertape.tf as tf
    >>> tf.strings.as_string(tf.constant([1.5, 2.0])).numpy()
    array([b'1.500000', b'2.000000'], dtype=object)
    >>> tf.strings.as_string(tf.constant([7, 42]), width=4, fill="0").numpy()
    array([b'0007', b'0042'], dtype=object)
    """
    if isinstance(input, _text.StringTensor) or _text.is_text(input):
        return _text.wrap(_text.host(input).copy())        # (TF: strings as they are)
    arr = _text.numeric(input, "input", "tf.strings.as_string")
    kind = "b" if arr.dtype == np.bool_ else arr.dtype.kind
    if scientific and shortest:
        raise InvalidArgumentError("Cannot select both scientific and shortest notation")
    if kind in "iub" and (precision > -1 or scientific or shortest):
        raise InvalidArgumentError(f"precision, scientific and shortest are not supported for "
                                   f"datatype {arr.dtype.name}")
    fill = str(fill)
    if builtins.len(fill) > 1 or (fill and fill not in " +-0#"):
        raise InvalidArgumentError(f"Fill argument not supported: \"{fill}\"")
    spec = "%" + fill + (str(int(width)) if width > -1 else "")
    if kind in "fc":
        spec += (f".{int(precision)}" if precision > -1 else "") + (
            "g" if shortest else "e" if scientific else "f")
    else:
        spec += "d" if kind in "iu" else "s"

    def fmt(v):
        if kind == "b":
            return (spec % ("true" if v else "false")).encode()
        if kind == "c":
            return ("(" + spec % v.real + "," + spec % v.imag + ")").encode()
        if kind == "f":
            return (spec % float(v)).encode()
        return (spec % int(v)).encode()
    out = np.empty(arr.shape, object)
    for i, v in np.ndenumerate(arr):
        out[i] = fmt(v)
    return _text.wrap(out)


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001
    """``template`` with each ``placeholder`` replaced by the next of ``inputs``
    printed as ``tf.print`` prints it (at most ``summarize`` entries at each end
    of an axis; -1: all).

    >>> import eagertape.tf as tf
    >>> tf.strings.format("x = {}, n = {}", (tf.constant([1.5, 2.0]), 3)).numpy()
    b'x = [1.5 2], n = 3'
    """
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    tmpl = str(template)
    pieces = tmpl.split(placeholder)
    if builtins.len(pieces) - 1 != builtins.len(inputs):
        raise InvalidArgumentError(f"{builtins.len(pieces) - 1} placeholder(s) in template "
                                   f"does not match {builtins.len(inputs)} tensor(s) provided "
                                   "as input")
    n = int(summarize)
    texts = []
    for x in inputs:
        if isinstance(x, _text.StringTensor) or _text.is_text(x):
            arr = _text.host(x, "inputs")
        else:
            arr = _text.numeric(x, "inputs", "tf.strings.format")
            if not isinstance(x, (_TensorLike, np.ndarray)):
                arr = np.asarray(_extend.convert_to_tensor(x).numpy())
        texts.append(_text.summarize(arr, n))
    out = pieces[0] + "".join(t + p for t, p in zip(texts, pieces[1:]))
    return _text.wrap(np.asarray(out.encode("utf-8"), dtype=object))


# -- Unicode -----------------------------------------------------------------------------

_ENCODINGS = {"UTF8": "utf-8", "UTF16BE": "utf-16-be", "UTF32BE": "utf-32-be"}


def _encoding(name, argname):
    key = str(name).upper().replace("-", "")      # TF (ICU) takes UTF8 and UTF-8
    if key not in _ENCODINGS:
        raise InvalidArgumentError(f"argument `{argname}`: {name!r} is not a supported "
                                   f"encoding; give one of 'UTF-8', 'UTF-16-BE', 'UTF-32-BE'")
    return _ENCODINGS[key]


_bad = threading.local()


def _mark_bad(e):
    # Python's decoders report each ill-formed sequence (its maximal part, as ICU
    # and so TF take it) as one error: one character here, its span kept.
    _bad.spans.append((e.start, e.end))
    return "\ufffd", e.end


codecs.register_error("eagertape.tf.strings", _mark_bad)


def _chars(s, encoding, errors, replacement_char, replace_control=False):
    """(code points, byte offsets) of string ``s``; an ill-formed sequence is one
    character: ``replacement_char`` ("replace"), none ("ignore"), or an
    InvalidArgumentError ("strict")."""
    if errors not in ("strict", "replace", "ignore"):
        raise ValueError(f"argument `errors` must be 'strict', 'replace' or 'ignore', got "
                         f"{errors!r}")
    _bad.spans = []
    text = s.decode(encoding, "eagertape.tf.strings")
    bad, _bad.spans = _bad.spans, []
    if bad and errors == "strict":
        raise InvalidArgumentError(f"Invalid formatting on input string: "
                                   f"{s.decode(encoding, 'backslashreplace')}")
    cps, offs = [], []
    pos, k = 0, 0
    for ch in text:
        if k < builtins.len(bad) and pos == bad[k][0] and ch == "\ufffd":
            n = bad[k][1] - bad[k][0]
            k += 1
            if errors == "replace":
                cps.append(int(replacement_char))
                offs.append(pos)
            pos += n
            continue
        c = ord(ch)
        if replace_control and (c < 0x20 or 0x7F <= c < 0xA0):
            c = int(replacement_char)
        cps.append(c)
        offs.append(pos)
        pos += builtins.len(ch.encode(encoding, "surrogatepass"))
    return cps, offs


def _pieces_of(cps, encoding):
    # TF's unicode_split: each character encoded again in the input's encoding (an
    # ill-formed sequence: its replacement character).
    return [chr(c).encode(encoding, "surrogatepass") for c in cps]


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,
                   replace_control_characters=False, name=None):
    """Each string's Unicode code points (int32): scalar in, a 1-D tensor; rank N
    in, a RaggedTensor of rank N+1.

    >>> import eagertape.tf as tf
    >>> tf.strings.unicode_decode(tf.constant("héllo"), "UTF-8").numpy()
    array([104, 233, 108, 108, 111], dtype=int32)
    """
    enc = _encoding(input_encoding, "input_encoding")
    return _pieces(input, "input", lambda s: _chars(
        s, enc, errors, replacement_char, replace_control_characters)[0], dtype=np.int32)


def unicode_decode_with_offsets(input, input_encoding, errors="replace",
                                replacement_char=65533, replace_control_characters=False,
                                name=None):
    """``unicode_decode`` and each character's starting byte offset (int64).

    >>> import eagertape.tf as tf
    >>> cps, offsets = tf.strings.unicode_decode_with_offsets("né", "UTF-8")
    >>> offsets.numpy()
    array([0, 1])
    """
    enc = _encoding(input_encoding, "input_encoding")
    f = lambda s: _chars(s, enc, errors, replacement_char, replace_control_characters)  # noqa: E731
    return (_pieces(input, "input", lambda s: f(s)[0], dtype=np.int32),
            _pieces(input, "input", lambda s: f(s)[1], dtype=np.int64))


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533,
                  name=None):
    """Each string split into its characters (each a string of its bytes): scalar
    in, a 1-D string tensor; rank N in, a RaggedTensor of rank N+1.

    >>> import eagertape.tf as tf
    >>> [c.decode() for c in tf.strings.unicode_split("añb", "UTF-8").numpy()]
    ['a', 'ñ', 'b']
    """
    enc = _encoding(input_encoding, "input_encoding")

    return _pieces(input, "input", lambda s: _pieces_of(
        _chars(s, enc, errors, replacement_char)[0], enc))


def unicode_split_with_offsets(input, input_encoding, errors="replace",
                               replacement_char=65533, name=None):
    """``unicode_split`` and each character's starting byte offset (int64).

    >>> import eagertape.tf as tf
    >>> chars, offsets = tf.strings.unicode_split_with_offsets("añb", "UTF-8")
    >>> offsets.numpy()
    array([0, 1, 3])
    """
    enc = _encoding(input_encoding, "input_encoding")

    def one(s):
        cps, offs = _chars(s, enc, errors, replacement_char)
        return _pieces_of(cps, enc), offs
    return (_pieces(input, "input", lambda s: one(s)[0]),
            _pieces(input, "input", lambda s: one(s)[1], dtype=np.int64))


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533,
                   name=None):
    """Code points (int32; the last axis, or a RaggedTensor's rows, one string
    each) encoded as strings: rank N+1 in, rank N out.

    >>> import eagertape.tf as tf
    >>> tf.strings.unicode_encode(tf.constant([[104, 105], [233, 33]]), "UTF-8").numpy()
    array([b'hi', b'\\xc3\\xa9!'], dtype=object)
    """
    enc = _encoding(output_encoding, "output_encoding")

    def one(cps):
        chars = []
        for c in np.asarray(cps).reshape(-1).tolist():
            if not (0 <= c <= 0x10FFFF) or 0xD800 <= c <= 0xDFFF:
                if errors == "strict":
                    raise InvalidArgumentError(f"Invalid code point: {c}")
                if errors == "ignore":
                    continue
                c = int(replacement_char)
            chars.append(chr(c))
        return "".join(chars).encode(enc)

    if isinstance(input, RaggedTensor):
        if input.ragged_rank > 1:
            return RaggedTensor(unicode_encode(input.values, output_encoding, errors,
                                               replacement_char),
                                input._splits, _internal=True, uniform=input._uniform)
        out = np.empty(input.nrows_int(), object)
        out[:] = [one(r.numpy()) for r in input]
        return _text.wrap(out)
    arr = _text.numeric(input, "input", "tf.strings.unicode_encode")
    if arr.ndim == 0:
        raise ValueError("argument `input` must have rank at least 1 (the code points of "
                         "one string along the last axis)")
    out = np.empty(arr.shape[:-1], object)
    for i in np.ndindex(*out.shape):
        out[i] = one(arr[i])
    return _text.wrap(out)


def unicode_transcode(input, input_encoding, output_encoding, errors="replace",
                      replacement_char=65533, replace_control_characters=False, name=None):
    """Each string re-encoded from ``input_encoding`` to ``output_encoding``.

    >>> import eagertape.tf as tf
    >>> tf.strings.unicode_transcode("hé", "UTF-8", "UTF-16-BE").numpy()
    b'\\x00h\\x00\\xe9'
    """
    enc_in = _encoding(input_encoding, "input_encoding")
    enc_out = _encoding(output_encoding, "output_encoding")
    return _each(lambda s: "".join(map(chr, _chars(
        s, enc_in, errors, replacement_char, replace_control_characters)[0])).encode(
            enc_out, "surrogatepass"), input)


# -- n-grams -----------------------------------------------------------------------------

def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None):
    """The n-grams of each row of ``data`` (the last axis, or a RaggedTensor's
    rows): consecutive ``ngram_width`` strings (or each width of a list) joined
    with ``separator``, after ``padding_width`` ``pad_values`` (a string, or a
    (left, right) pair) at each end.

    >>> import eagertape.tf as tf
    >>> tf.strings.ngrams(tf.constant(["a", "b", "c"]), 2).numpy()
    array([b'a b', b'b c'], dtype=object)
    """
    widths = [int(w) for w in (ngram_width if isinstance(ngram_width, (list, tuple))
                               else [ngram_width])]
    if any(w < 1 for w in widths):
        raise InvalidArgumentError("Requested ngram width must be greater than 0")
    sep = _scalar_text(separator, "separator")
    if pad_values is None:
        left = right = None
    elif isinstance(pad_values, (list, tuple)):
        if builtins.len(pad_values) != 2:
            raise ValueError("pad_values must be a string, tuple or list of 2 strings")
        left, right = (_scalar_text(p, "pad_values") for p in pad_values)
    else:
        left = right = _scalar_text(pad_values, "pad_values")
    if padding_width is not None and int(padding_width) < 1:
        raise ValueError("padding_width must be greater than 0")

    def row(items):
        items = list(items)
        out = []
        for w in widths:
            pw = 0 if left is None else (w - 1 if padding_width is None
                                         else builtins.min(int(padding_width), w - 1))
            seq = [left] * pw + items + [right] * pw
            grams = [sep.join(seq[i:i + w]) for i in range(builtins.len(seq) - w + 1)]
            out.extend(grams)
        if preserve_short_sequences and not out and items:
            pw = 0 if left is None else (builtins.max(widths) - 1 if padding_width is None
                                         else int(padding_width))
            out = [sep.join([left] * pw + items + [right] * pw)]
        return out

    if isinstance(data, RaggedTensor):
        if data.ragged_rank > 1:
            return RaggedTensor(ngrams(data.values, ngram_width, separator, pad_values,
                                       padding_width, preserve_short_sequences),
                                data._splits, _internal=True, uniform=data._uniform)
        return from_rows([np.asarray(row(r.numpy()), object) for r in data])
    x = _text.host(data, "data")
    if x.ndim == 0:
        raise ValueError("argument `data` must have rank at least 1")
    flat = x.reshape(-1, x.shape[-1])
    rows = [row(r) for r in flat]
    lengths = {builtins.len(r) for r in rows}
    if builtins.len(lengths) == 1:
        out = np.empty((flat.shape[0], lengths.pop()), object)
        for i, r in enumerate(rows):
            out[i, :] = r
        return _text.wrap(out.reshape(x.shape[:-1] + (out.shape[1],)))
    return nest_rows(from_rows([np.asarray(r, object) for r in rows]), x.shape[:-1])


# -- hashing -------------------------------------------------------------------------------

def fingerprint64(values):
    """TF's ``Fingerprint64`` (farmhash's) of each bytes of an object array, as uint64."""
    try:
        import farmhash
    except ImportError:
        raise ImportError(
            "TF's string hash buckets (tf.strings.to_hash_bucket_fast, "
            "tf.lookup.StaticVocabularyTable's out-of-vocabulary buckets) are farmhash's "
            "Fingerprint64: pip install pyfarmhash (or 'eagertape[strings]')") from None
    out = np.empty(values.shape, np.uint64)
    for i, s in np.ndenumerate(values):
        out[i] = farmhash.fingerprint64(s)
    return out


def to_hash_bucket_fast(input, num_buckets, name=None):
    """Each string's bucket in ``[0, num_buckets)`` (int64): TF's Fingerprint64 of
    its bytes modulo ``num_buckets``, so the buckets are TF's (needs pyfarmhash).

    >>> import eagertape.tf as tf
    >>> tf.strings.to_hash_bucket_fast(tf.constant(["Hello", "TensorFlow", "2.x"]), 3).numpy()
    array([0, 2, 2])
    """
    n = int(num_buckets)
    if n < 1:
        raise InvalidArgumentError("argument `num_buckets` must be at least 1")
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(to_hash_bucket_fast(input.flat_values, n))
    arr = _text.host(input, "input")
    return _text.text_result((fingerprint64(arr) % np.uint64(n)).astype(np.int64))


__all__ = ["as_string", "bytes_split", "format", "join", "length", "lower", "ngrams",
           "reduce_join", "regex_full_match", "regex_replace", "split", "strip", "substr",
           "to_hash_bucket_fast", "to_number", "unicode_decode", "unicode_decode_with_offsets",
           "unicode_encode", "unicode_split", "unicode_split_with_offsets", "unicode_transcode",
           "unsorted_segment_join", "upper"]
