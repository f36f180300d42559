"""TFRecord files: ``tf.io.TFRecordWriter``, ``tf.io.TFRecordOptions``,
``tf.data.TFRecordDataset`` and ``tf.data.FixedLengthRecordDataset``.

A TFRecord file is TF's: each record is its length (uint64, little-endian), the
length's masked CRC-32C, the bytes, and their masked CRC-32C; optionally the
whole file GZIP- or ZLIB-compressed. Files TF writes read here and files written
here read in TF (``tests/test_tf_io.py`` checks both, byte for byte). Reading
checks both checksums, as TF does, and a bad one (or a file cut short) raises
``tf.errors.DataLossError`` naming the file and offset.

The datasets are ``tf.data.Dataset``s defined in tf/data.py on this module's
record passes (``map``, ``batch``, ``shuffle``, ... and iterator checkpoints: a
pass saves which files it has open and the byte offset in each). ``num_parallel_reads=n`` reads ``n`` files at once, one record from
each in turn, as TF's (deterministic) interleave does.

>>> import os, tempfile
>>> import eagertape.tf as tf
>>> path = os.path.join(tempfile.mkdtemp(), "data.tfrecord")
>>> with tf.io.TFRecordWriter(path) as w:
...     for r in (b"a", b"bc"):
...         w.write(r)
>>> [r.numpy() for r in tf.data.TFRecordDataset(path)]
[b'a', b'bc']
"""
import gzip
import io as _pyio
import struct
import zlib

import numpy as np

from ..extend import InvalidArgumentError
from . import _iterator_state as _state
from . import _text
from .errors import DataLossError, NotFoundError

__all__ = ["TFRecordWriter", "TFRecordOptions", "masked_crc32c", "crc32c"]

# -- CRC-32C (Castagnoli), vectorised with NumPy ----------------------------------
# The CRC is linear over GF(2): the state after a message is the initial state
# pushed through n zero bytes, XOR the state the message alone leaves from zero.
# The latter is a sum of per-(position, byte) table entries (chunks of _L bytes,
# left-padded with zeros, which change nothing from a zero state), the former
# and the chunk joins are 32x32 bit-matrices applied as four byte tables.

_L = 256
_tables = {}


def _crc_tables():
    if not _tables:
        poly = np.uint32(0x82F63B78)
        tab = np.arange(256, dtype=np.uint32)
        for _ in range(8):
            tab = np.where(tab & 1, (tab >> 1) ^ poly, tab >> 1).astype(np.uint32)

        def step(c):                       # one zero byte
            return tab[c & 0xFF] ^ (c >> 8)
        t = np.empty((_L, 256), np.uint32)
        t[0] = tab
        for k in range(1, _L):
            t[k] = step(t[k - 1])
        shifts = [np.stack([step(np.arange(256, dtype=np.uint32) << (8 * i))
                            for i in range(4)])]
        for _ in range(1, 64):
            z = shifts[-1]
            shifts.append(np.stack([_apply(z, z[i]) for i in range(4)]))
        _tables.update(rev=t[::-1].copy(), shifts=shifts, tab=tab, list=tab.tolist())
    return _tables


def _apply(z, c):
    c = np.asarray(c, np.uint32)
    return z[0][c & 0xFF] ^ z[1][(c >> 8) & 0xFF] ^ z[2][(c >> 16) & 0xFF] ^ z[3][c >> 24]


def _shift(c, n):
    shifts = _crc_tables()["shifts"]
    k = 0
    c = np.uint32(c)
    while n:
        if n & 1:
            c = _apply(shifts[k], c)
        n >>= 1
        k += 1
    return c


def crc32c(data):
    """The CRC-32C of ``data`` (bytes), as an int.

    >>> from eagertape.tf._tfrecord import crc32c
    >>> hex(crc32c(b"123456789"))
    '0xe3069283'
    """
    tables = _crc_tables()
    n = len(data)
    if n < 2048:                # NumPy's per-call costs exceed a plain loop's here
        tab, c = tables["list"], 0xFFFFFFFF
        for b in bytes(data):
            c = tab[(c ^ b) & 0xFF] ^ (c >> 8)
        return c ^ 0xFFFFFFFF
    state = np.uint32(0)
    if n:
        pad = (-n) % _L
        a = np.frombuffer(b"\0" * pad + bytes(data), np.uint8).reshape(-1, _L)
        cols = np.arange(_L)
        rev, shifts = tables["rev"], tables["shifts"]
        rs = np.concatenate([np.bitwise_xor.reduce(rev[cols, a[i:i + 1024]], axis=1)
                             for i in range(0, a.shape[0], 1024)])
        # join the chunks pairwise: (A, B) -> A pushed through B's length, XOR B
        m = 1 << max(0, (len(rs) - 1).bit_length())
        rs = np.concatenate([np.zeros(m - len(rs), np.uint32), rs])
        level = 8                                            # 2**8 == _L bytes
        while len(rs) > 1:
            rs = _apply(shifts[level], rs[0::2]) ^ rs[1::2]
            level += 1
        state = rs[0]
    return int(_shift(0xFFFFFFFF, n) ^ state ^ np.uint32(0xFFFFFFFF))


def masked_crc32c(data):
    """TFRecord's masked CRC-32C of ``data``: the CRC rotated right by 15 bits plus
    0xa282ead8 (mod 2**32)."""
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def _frame(record):
    head = struct.pack("<Q", len(record))
    return (head + struct.pack("<I", masked_crc32c(head)) + record
            + struct.pack("<I", masked_crc32c(record)))


# -- writing ----------------------------------------------------------------------

_KINDS = {"": "", "NONE": "", "GZIP": "GZIP", "ZLIB": "ZLIB"}


def _kind(compression_type, argname="compression_type"):
    if compression_type is None:
        return ""
    if isinstance(compression_type, bytes):
        compression_type = compression_type.decode()
    if isinstance(compression_type, int) and not isinstance(compression_type, bool):
        compression_type = {0: "", 1: "ZLIB", 2: "GZIP"}.get(compression_type, "?")
    kind = _KINDS.get(str(compression_type).upper()) if isinstance(
        compression_type, str) else None
    if kind is None:
        raise InvalidArgumentError(f"argument `{argname}`: {compression_type!r} is not one of "
                                   "'', 'ZLIB', 'GZIP'")
    return kind


class TFRecordOptions:
    """``tf.io.TFRecordOptions``: how a TFRecord file is compressed
    (``compression_type`` "", "ZLIB" or "GZIP"; ``compression_level`` 0-9 and
    ``window_bits`` as zlib's; the buffer and flush settings are accepted).

    >>> import eagertape.tf as tf
    >>> tf.io.TFRecordOptions("GZIP", compression_level=9).compression_type
    'GZIP'
    """

    compression_type_map = {"ZLIB": 1, "GZIP": 2, "": 0}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        self.compression_type = _kind(compression_type)
        self.flush_mode, self.input_buffer_size = flush_mode, input_buffer_size
        self.output_buffer_size, self.window_bits = output_buffer_size, window_bits
        self.compression_level, self.compression_method = compression_level, compression_method
        self.mem_level, self.compression_strategy = mem_level, compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """The compression type ("", "ZLIB", "GZIP") of ``options`` (options or a
        string)."""
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return _kind(options, "options")


class TFRecordWriter:
    """``tf.io.TFRecordWriter(path, options=None)``: writes records (bytes or scalar
    string tensors) to a TFRecord file; ``options`` a compression type or
    ``TFRecordOptions``. Close it (or use ``with``) to finish the file.

    >>> import os, tempfile
    >>> import eagertape.tf as tf
    >>> path = os.path.join(tempfile.mkdtemp(), "z.tfrecord.gz")
    >>> with tf.io.TFRecordWriter(path, "GZIP") as w:
    ...     w.write(b"x")
    >>> [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type="GZIP")]
    [b'x']
    """

    def __init__(self, path, options=None):
        from ._gfile import _os_error, _path
        if options is not None and not isinstance(options, (TFRecordOptions, str, bytes)):
            raise TypeError(f"argument `options` of TFRecordWriter must be a compression "
                            f"type or tf.io.TFRecordOptions, got {type(options).__name__}")
        opts = options if isinstance(options, TFRecordOptions) else TFRecordOptions(options)
        self._path = _path(path)
        try:
            self._f = open(self._path, "wb")
        except OSError as e:
            raise _os_error(e, self._path) from None
        self._z = None
        if opts.compression_type:
            level = -1 if opts.compression_level is None else int(opts.compression_level)
            bits = 15 if opts.window_bits is None else int(opts.window_bits)
            self._z = zlib.compressobj(level, zlib.DEFLATED,
                                       bits + 16 if opts.compression_type == "GZIP" else bits)

    def _check_open(self):
        if self._f is None:
            from .errors import FailedPreconditionError
            raise FailedPreconditionError(None, None, "Writer is closed.")

    def write(self, record):
        """Appends one record (bytes, str or a scalar string tensor)."""
        self._check_open()
        data = _text.host(record, "record")
        if data.ndim != 0:
            raise InvalidArgumentError(f"argument `record` must be a scalar string, got shape "
                                       f"{list(data.shape)}")
        framed = _frame(data[()])
        self._f.write(self._z.compress(framed) if self._z else framed)

    def flush(self):
        """Pushes what was written to the file."""
        self._check_open()
        if self._z:
            self._f.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._f.flush()

    def close(self):
        """Finishes the file (the compressed stream's end) and closes it."""
        if self._f is None:
            return
        if self._z:
            self._f.write(self._z.flush())
        self._f.close()
        self._f = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# -- reading ---------------------------------------------------------------------

def _open(path, kind):
    """The file's (decompressed) bytes as a seekable binary stream."""
    try:
        if kind == "GZIP":
            f = gzip.open(path, "rb")
            f.peek(1)
            return f
        f = open(path, "rb")
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{path}; No such file or directory") from None
    except OSError as e:
        raise DataLossError(None, None, f"{path}: {e}") from None
    if kind == "ZLIB":
        with f:
            try:
                return _pyio.BytesIO(zlib.decompress(f.read()))
            except zlib.error as e:
                raise DataLossError(None, None, f"{path}: {e}") from None
    return f


def _tfrecords(f, path):
    """One TFRecord after another from stream ``f`` (CRCs checked); yields
    ``(record, offset after it)``."""
    while True:
        offset = f.tell()
        try:
            head = f.read(12)
        except (OSError, EOFError, zlib.error) as e:
            raise DataLossError(None, None, f"{path}: {e}") from None
        if not head:
            return
        if len(head) < 12:
            raise DataLossError(None, None, f"truncated record at {offset}' failed with "
                                f"Read less bytes than requested (file {path})")
        n, crc = struct.unpack("<QI", head)
        if masked_crc32c(head[:8]) != crc:
            raise DataLossError(None, None, f"corrupted record at {offset} (file {path}: "
                                "its length's checksum does not match)")
        body = f.read(n + 4)
        if len(body) < n + 4:
            raise DataLossError(None, None, f"truncated record at {offset}' failed with "
                                f"Read less bytes than requested (file {path})")
        record = body[:n]
        if masked_crc32c(record) != struct.unpack("<I", body[n:])[0]:
            raise DataLossError(None, None, f"corrupted record at {offset} (file {path}: "
                                "its data's checksum does not match)")
        yield record, f.tell()


class _Reader:
    """One open file of a record pass: its records from a byte offset."""
    __slots__ = ("index", "path", "f", "records", "offset")

    def __init__(self, index, path, kind, offset, read):
        self.index, self.path, self.offset = index, path, offset
        self.f = _open(path, kind)
        if offset:
            self.f.seek(offset)
        self.records = read(self.f, path)

    def next(self):
        try:
            record, self.offset = next(self.records)
            return record
        except StopIteration:
            self.f.close()
            return None


class _Records(_state.Pass):
    """The records of several files, ``cycle`` files open at once, one record from
    each in turn (TF's deterministic interleave of per-file datasets)."""
    __slots__ = ("paths", "kind", "cycle", "read", "next_file", "open", "turn")

    def __init__(self, paths, kind, cycle, read):
        self.paths, self.kind, self.cycle, self.read = paths, kind, max(1, cycle), read
        self.next_file, self.open, self.turn = 0, [], 0

    def _fill(self):
        while len(self.open) < self.cycle and self.next_file < len(self.paths):
            i = self.next_file
            self.next_file += 1
            self.open.append(_Reader(i, self.paths[i], self.kind, 0, self.read))

    def __next__(self):
        if self.cycle == 1 or len(self.paths) <= 1:
            while True:
                self._fill()
                if not self.open:
                    raise StopIteration
                record = self.open[0].next()
                if record is not None:
                    return _string(record)
                self.open.pop(0)
        # interleave: a slot whose file ends takes the next file in the same turn
        while True:
            self._fill()
            if not self.open:
                raise StopIteration
            self.turn %= len(self.open)
            r = self.open[self.turn]
            record = r.next()
            if record is None:
                # TF's interleave: the slot takes the next file, read from on the
                # slot's next turn; with no file left the slot goes
                if self.next_file < len(self.paths):
                    i = self.next_file
                    self.next_file += 1
                    self.open[self.turn] = _Reader(i, self.paths[i], self.kind, 0, self.read)
                    self.turn += 1
                else:
                    self.open.pop(self.turn)
                continue
            self.turn += 1
            return _string(record)

    def save(self):
        return {"next_file": self.next_file, "turn": self.turn,
                "open": [[r.index, r.offset] for r in self.open]}

    def restore(self, state):
        for r in self.open:
            r.f.close()
        self.next_file, self.turn = int(state["next_file"]), int(state["turn"])
        self.open = [_Reader(int(i), self.paths[int(i)], self.kind, int(off), self.read)
                     for i, off in state["open"]]


def _string(b):
    out = np.empty((), object)
    out[()] = b
    return out


def _positive(value, argname, allow_zero=True):
    if value is None:
        return None
    v = int(value.numpy() if hasattr(value, "numpy") else value)
    if v < 0 or (v == 0 and not allow_zero):
        raise InvalidArgumentError(f"argument `{argname}` must be "
                                   f"{'non-negative' if allow_zero else 'positive'}, got {v}")
    return v


def _dataset_kind(compression_type):
    try:
        return _kind(compression_type)
    except InvalidArgumentError:
        # TF's record reader logs the unknown type and reads the files uncompressed
        import warnings
        warnings.warn(f"Unsupported compression_type: {compression_type!r}. No compression "
                      "will be used (as in TF); use '', 'ZLIB' or 'GZIP'", stacklevel=3)
        return ""
