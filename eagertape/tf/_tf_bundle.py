"""Reading checkpoints that TensorFlow wrote (its "tensor bundle"), without TensorFlow.

A TF checkpoint ``prefix`` is ``prefix.index``, a LevelDB-format table (TF's
``core/lib/io/table``) mapping each tensor's key to a ``BundleEntryProto`` (dtype,
shape, which data shard, offset, size, CRC32C), with a ``BundleHeaderProto`` under
the empty key, and ``prefix.data-SSSSS-of-NNNNN`` shards holding the tensors' bytes
(little-endian as in memory; strings as varint lengths, a checksum of the lengths,
then the bytes). A TF-2 checkpoint adds the object graph, a serialized
``TrackableObjectGraph`` scalar string under ``_CHECKPOINTABLE_OBJECT_GRAPH``.

Every block of the table and every tensor is checked against its CRC32C, and a
mismatch raises TF's ``DataLossError``, as TF's reader does. TF writes its tables
uncompressed (``TableBuilderOptions``: "compressed writes are disabled"); a
snappy-compressed block, which only other writers make, needs ``cramjam`` or
``python-snappy``.
"""
import os
import struct

import numpy as np

__all__ = ["BundleReader", "crc32c", "is_bundle", "masked_crc32c"]

_MAGIC = 0xdb4775248b80fb57          # LevelDB's table magic, TF's too
_FOOTER = 48                         # two BlockHandles padded to 40 bytes, magic
_NO_COMPRESSION, _SNAPPY = 0, 1
_MASK_DELTA = 0xa282ead8             # LevelDB's / TF's crc32c::Mask

# -- CRC32C (Castagnoli) ---------------------------------------------------------
_POLY = 0x82f63b78


def _table():
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(_POLY), t >> 1).astype(np.uint32)
    return t


_T = _table()
_TL = _T.tolist()
_CHUNK = 1 << 10       # a chunk per lane: few NumPy steps, a Python fold per chunk


def _shift_tables(n):
    """The linear map "run the CRC register over ``n`` zero bytes", as four
    byte-indexed tables (the register's image is the XOR of its bytes' images),
    made from the images of the 32 one-bit registers, run side by side."""
    regs = np.left_shift(np.uint32(1), np.arange(32, dtype=np.uint32))
    for _ in range(n):
        regs = _T[regs & 0xff] ^ (regs >> 8)
    images = regs.tolist()
    out = []
    for byte in range(4):
        col = [0] * 256
        for b in range(1, 256):
            low = (b & -b).bit_length() - 1
            col[b] = col[b & (b - 1)] ^ images[8 * byte + low]
        out.append(col)
    return out


_SHIFT = None


def _raw(state, data):
    for b in data:
        state = _TL[(state ^ b) & 0xff] ^ (state >> 8)
    return state


def crc32c(data, value=0):
    """CRC32C of ``data`` (bytes), extending ``value`` (TF's ``crc32c::Extend``).

    Long inputs are cut into equal chunks whose registers NumPy runs side by side
    (the CRC is linear), then folded together, so no C extension is needed.

    >>> from eagertape.tf._tf_bundle import crc32c
    >>> hex(crc32c(b"123456789"))
    '0xe3069283'
    """
    global _SHIFT
    if _FAST is not None:
        return _FAST(data, value)
    data = memoryview(data).cast("B")
    state = value ^ 0xffffffff
    n = len(data) // _CHUNK
    if n >= 4:
        if _SHIFT is None:
            _SHIFT = _shift_tables(_CHUNK)
        # byte j of every chunk side by side in one row: each step reads one row
        rows = np.ascontiguousarray(
            np.frombuffer(data[:n * _CHUNK], np.uint8).reshape(n, _CHUNK).T)
        regs = np.zeros(n, np.uint32)
        idx = np.empty(n, np.uint32)
        for row in rows:              # one step of every chunk's register at once
            np.bitwise_xor(regs, row, out=idx)
            np.bitwise_and(idx, 0xff, out=idx)
            regs = _T[idx] ^ (regs >> 8)
        s0, s1, s2, s3 = _SHIFT
        for r in regs.tolist():       # crc(A + B) = zeros_shift(crc(A)) ^ crc0(B)
            state = (s0[state & 0xff] ^ s1[(state >> 8) & 0xff] ^ s2[(state >> 16) & 0xff]
                     ^ s3[state >> 24] ^ r)
        data = data[n * _CHUNK:]
    return _raw(state, data) ^ 0xffffffff


def _fast():
    # A C implementation where one is installed (none is required).
    try:
        import google_crc32c
        return lambda data, value: google_crc32c.extend(value, bytes(data))
    except ImportError:
        pass
    try:
        import crc32c as _c
        return lambda data, value: _c.crc32c(bytes(data), value)
    except ImportError:
        return None


_FAST = _fast()


def masked_crc32c(data):
    """TF's masked CRC32C (``crc32c::Mask``), as stored in its files."""
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + _MASK_DELTA) & 0xffffffff


def _unmask(m):
    rot = (m - _MASK_DELTA) & 0xffffffff
    return ((rot >> 17) | (rot << 15)) & 0xffffffff


# -- errors ------------------------------------------------------------------------
def _data_loss(message):
    from .errors import DataLossError
    return DataLossError(None, None, message)


def _not_found(message):
    from .errors import NotFoundError
    return NotFoundError(None, None, message)


# -- the table (LevelDB's format) ----------------------------------------------------
def _varint(buf, pos):
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise IndexError("varint past the end")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7f) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _block(data, handle, filename):
    """The contents of the block at ``handle`` (offset, size), its trailer (type,
    masked CRC of contents + type) checked, decompressed."""
    offset, size = handle
    if offset + size + 5 > len(data):
        raise _data_loss("truncated block read")
    contents = data[offset:offset + size]
    kind = data[offset + size]
    stored = struct.unpack_from("<I", data, offset + size + 1)[0]
    if _unmask(stored) != crc32c(data[offset:offset + size + 1]):
        raise _data_loss("block checksum mismatch")
    if kind == _NO_COMPRESSION:
        return contents
    if kind == _SNAPPY:
        return _snappy(contents)
    raise _data_loss(f"bad block type {kind}")


def _snappy(contents):
    try:
        import cramjam
        return bytes(cramjam.snappy.decompress_raw(bytes(contents)))
    except ImportError:
        pass
    try:
        import snappy
        return snappy.uncompress(bytes(contents))
    except ImportError:
        raise ImportError("this checkpoint's index has snappy-compressed blocks (TF writes "
                          "none; another writer did): pip install cramjam") from None


def _entries(block):
    """The (key, value) pairs of one block: prefix-compressed keys, the restart
    array (uint32 offsets) and its count at the end."""
    if len(block) < 4:
        raise IndexError("block too short")
    restarts = struct.unpack_from("<I", block, len(block) - 4)[0]
    end = len(block) - 4 * (restarts + 1)
    if end < 0:
        raise IndexError("bad restart count")
    pos, key = 0, b""
    while pos < end:
        shared, pos = _varint(block, pos)
        unshared, pos = _varint(block, pos)
        size, pos = _varint(block, pos)
        if shared > len(key) or pos + unshared + size > end:
            raise IndexError("entry past the block's end")
        key = key[:shared] + bytes(block[pos:pos + unshared])
        pos += unshared
        yield key, bytes(block[pos:pos + size])
        pos += size


def read_table(filename):
    """Every (key, value) of the LevelDB-format table file, in key order."""
    with open(filename, "rb") as f:
        data = memoryview(f.read())
    if len(data) < _FOOTER or struct.unpack_from("<Q", data, len(data) - 8)[0] != _MAGIC:
        raise _data_loss("not an sstable (bad magic number)")
    try:
        pos = len(data) - _FOOTER
        _, pos = _varint(data, pos)          # the metaindex block: TF writes it empty
        _, pos = _varint(data, pos)
        index_offset, pos = _varint(data, pos)
        index_size, pos = _varint(data, pos)
        out = []
        for _, handle in _entries(_block(data, (index_offset, index_size), filename)):
            offset, p = _varint(handle, 0)
            size, _ = _varint(handle, p)
            out.extend(_entries(_block(data, (offset, size), filename)))
        return out
    except IndexError:
        raise _data_loss("corrupted block contents") from None


# -- the bundle ----------------------------------------------------------------------
_DTYPES = {      # TF's DataType number -> NumPy dtype (little-endian, as TF writes)
    1: "<f4", 2: "<f8", 3: "<i4", 4: "u1", 5: "<i2", 6: "i1", 8: "<c8", 9: "<i8",
    10: "?", 14: "bfloat16", 17: "<u2", 18: "<c16", 19: "<f2", 22: "<u4", 23: "<u8",
}
_STRING = 7


def _numpy_dtype(code):
    name = _DTYPES.get(code)
    if name == "bfloat16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return None if name is None else np.dtype(name)


def is_bundle(prefix):
    """Whether ``prefix`` names a checkpoint TF wrote (its ``.index`` file exists)."""
    return os.path.isfile(os.fspath(prefix) + ".index")


class BundleReader:
    """The tensors of the TF checkpoint ``prefix`` (its ``.index`` read at once,
    data shards when a tensor is asked for).

    ``entries`` maps each key to its ``BundleEntryProto``.
    """

    def __init__(self, prefix):
        from ._proto.checkpoint import BundleEntryProto, BundleHeaderProto
        self.prefix = os.fspath(prefix)
        index = self.prefix + ".index"
        if not os.path.isfile(index):
            raise _not_found(f"Unsuccessful TensorSliceReader constructor: Failed to find "
                             f"any matching files for {self.prefix}")
        corrupt = (f"Unable to read file ({index}). Perhaps the file is corrupt or was "
                   f"produced by a newer version of TensorFlow with format changes (failed "
                   f"to seek to header entry)")
        from .errors import DataLossError
        try:
            table = read_table(index)
        except DataLossError as e:
            raise _data_loss(f"{corrupt}: {e.message}") from None
        if not table or table[0][0] != b"":
            raise _data_loss(corrupt)
        try:
            header = BundleHeaderProto.FromString(table[0][1])
            self.entries = {k.decode("utf-8", "surrogateescape"): BundleEntryProto.FromString(v)
                            for k, v in table[1:]}
        except Exception as e:     # protobuf's DecodeError
            raise _data_loss(f"an entry of {index} is not parseable: {e}") from None
        if header.endianness != 0:
            from .errors import UnimplementedError
            raise UnimplementedError(None, None, f"{self.prefix} was written big-endian; "
                                     "eagertape reads little-endian checkpoints only")
        self.num_shards = header.num_shards
        self._shards = {}

    def keys(self):
        """The keys of the full tensors (a partitioned tensor's slice entries,
        whose keys start with a NUL byte, left out, as TF's reader leaves them)."""
        return [k for k in self.entries if not k.startswith("\x00")]

    def shape(self, key):
        """The tensor's shape, a list."""
        return [d.size for d in self.entries[key].shape.dim]

    def dtype(self, key):
        """The tensor's NumPy dtype (``object`` for TF's strings)."""
        code = self.entries[key].dtype
        if code == _STRING:
            return np.dtype(object)
        dtype = _numpy_dtype(code)
        if dtype is None:
            from .errors import UnimplementedError
            raise UnimplementedError(None, None, f"the checkpoint's tensor {key!r} has TF's "
                                     f"DataType {code}, which eagertape cannot read")
        return dtype

    def _shard(self, shard_id):
        data = self._shards.get(shard_id)
        if data is None:
            name = f"{self.prefix}.data-{shard_id:05d}-of-{self.num_shards:05d}"
            try:
                with open(name, "rb") as f:
                    data = self._shards[shard_id] = f.read()
            except FileNotFoundError:
                raise _not_found(f"{name}; No such file or directory") from None
        return data

    def get(self, key):
        """The tensor ``key`` as a NumPy array (strings: an object array of bytes,
        as TF's ``get_tensor`` gives them)."""
        entry = self.entries.get(key)
        if entry is None:
            raise _not_found(f"Key {key} not found in checkpoint")
        if len(entry.slices):
            from .errors import UnimplementedError
            raise UnimplementedError(None, None, f"{key!r} is saved in slices (a partitioned "
                                     f"variable); eagertape reads whole tensors only")
        shape, dtype = self.shape(key), self.dtype(key)
        count = int(np.prod(shape, dtype=np.int64))
        if entry.size == 0:
            return np.zeros(shape, dtype) if dtype != object else np.full(shape, b"", object)
        data = self._shard(entry.shard_id)
        raw = data[entry.offset:entry.offset + entry.size]
        if len(raw) != entry.size:
            raise _data_loss(f"{self.prefix}: the data of {key!r} is truncated")
        if dtype == object:
            value, actual = self._strings(key, raw, count)
        else:
            if entry.size != count * dtype.itemsize:
                raise _data_loss(f"Invalid size in bundle entry: key {key}; stored size "
                                 f"{entry.size}; expected size {count * dtype.itemsize}")
            actual = crc32c(raw)
            value = np.frombuffer(raw, dtype).reshape(shape).copy()
        if actual != _unmask(entry.crc32c):
            raise _data_loss(f"TensorBundle at {self.prefix} shard {entry.shard_id} "
                             f"({entry.size} bytes): Checksum does not match: stored "
                             f"{_unmask(entry.crc32c):08d} vs. calculated on the restored "
                             f"bytes {actual}")
        return value

    def _strings(self, key, raw, count):
        # [varint64 len]*N [masked crc of the lengths (as uint32, or uint64 when
        # longer)] [bytes]*N; the tensor's crc covers lengths, that checksum, bytes.
        try:
            pos, lengths, crc = 0, [], 0
            for _ in range(count):
                n, pos = _varint(raw, pos)
                lengths.append(n)
                crc = crc32c(struct.pack("<I" if n <= 0xffffffff else "<Q", n), crc)
            stored = raw[pos:pos + 4]
            if len(stored) != 4 or _unmask(struct.unpack("<I", stored)[0]) != crc:
                raise _data_loss(f"{self.prefix}: the length checksum of {key!r} does "
                                 f"not match")
            crc = crc32c(stored, crc)
            pos += 4
            out = []
            for n in lengths:
                out.append(bytes(raw[pos:pos + n]))
                pos += n
            if pos > len(raw):
                raise IndexError
        except IndexError:
            raise _data_loss(f"{self.prefix}: the strings of {key!r} are truncated") from None
        crc = crc32c(raw[pos - sum(lengths):pos], crc)
        value = np.empty(count, object)
        value[:] = out
        return value.reshape(self.shape(key)), crc


# -- writing -------------------------------------------------------------------------
_BLOCK_SIZE = 262144          # TF's table::Options block_size
_RESTART_INTERVAL = 16        # LevelDB's / TF's block_restart_interval


def _put_varint(out, n):
    while n >= 0x80:
        out.append((n & 0x7f) | 0x80)
        n >>= 7
    out.append(n)


def _build_block(entries, restart_interval):
    out, restarts, last = bytearray(), [], b""
    for i, (key, value) in enumerate(entries):
        shared = 0
        if i % restart_interval:
            limit = min(len(last), len(key))
            while shared < limit and last[shared] == key[shared]:
                shared += 1
        else:
            restarts.append(len(out))
        _put_varint(out, shared)
        _put_varint(out, len(key) - shared)
        _put_varint(out, len(value))
        out += key[shared:] + value
        last = key
    restarts = restarts or [0]
    out += struct.pack(f"<{len(restarts)}I", *restarts) + struct.pack("<I", len(restarts))
    return bytes(out)


def _write_table(f, entries):
    """A LevelDB-format table of the sorted ``entries`` (bytes, bytes), uncompressed,
    as TF's TableBuilder writes it."""
    pos = 0

    def block(contents):
        nonlocal pos
        trailer = bytes([_NO_COMPRESSION])
        f.write(contents + trailer + struct.pack("<I", masked_crc32c(contents + trailer)))
        handle = (pos, len(contents))
        pos += len(contents) + 5
        return handle

    index, current, size = [], [], 0
    for key, value in entries:
        current.append((key, value))
        size += len(key) + len(value) + 8
        if size >= _BLOCK_SIZE:
            index.append((current[-1][0], block(_build_block(current, _RESTART_INTERVAL))))
            current, size = [], 0
    if current:
        index.append((current[-1][0], block(_build_block(current, _RESTART_INTERVAL))))
    meta = block(_build_block([], 1))
    handles = []
    for key, (offset, length) in index:
        h = bytearray()
        _put_varint(h, offset)
        _put_varint(h, length)
        handles.append((key, bytes(h)))
    index_handle = block(_build_block(handles, 1))
    footer = bytearray()
    for offset, length in (meta, index_handle):
        _put_varint(footer, offset)
        _put_varint(footer, length)
    footer += bytes(40 - len(footer)) + struct.pack("<Q", _MAGIC)
    f.write(bytes(footer))


_CODES = {np.dtype(v).str if v != "bfloat16" else "bfloat16": k
          for k, v in _DTYPES.items() if v not in ("?",)}


def _code(dtype):
    dtype = np.dtype(dtype)
    if dtype == object:
        return _STRING
    if dtype == np.bool_:
        return 10
    if dtype.name == "bfloat16":
        return 14
    code = _CODES.get(dtype.newbyteorder("<").str if dtype.itemsize > 1 else dtype.str)
    if code is None:
        raise TypeError(f"a {dtype.name} value cannot be written in TensorFlow's format")
    return code


def _string_bytes(value):
    lengths, crc = bytearray(), 0
    items = [bytes(x) for x in np.asarray(value, object).ravel()]
    for x in items:
        _put_varint(lengths, len(x))
        crc = crc32c(struct.pack("<I" if len(x) <= 0xffffffff else "<Q", len(x)), crc)
    masked = struct.pack("<I", (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xffffffff)
    crc = crc32c(masked, crc)
    body = b"".join(items)
    return bytes(lengths) + masked + body, crc32c(body, crc)


def write_bundle(prefix, tensors):
    """Write ``tensors`` (``{key: NumPy array}``; strings as object arrays of bytes)
    as TF's tensor bundle ``prefix.index`` + ``prefix.data-00000-of-00001``, one
    shard, as TF's BundleWriter lays it out, each file written under a temporary
    name and renamed into place."""
    from ._proto.checkpoint import BundleEntryProto, BundleHeaderProto
    prefix = os.fspath(prefix)
    os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)
    data_name, index_name = f"{prefix}.data-00000-of-00001", f"{prefix}.index"
    tmp = f".tmp-{os.getpid()}-{id(tensors)}"
    entries, offset = [], 0
    try:
        with open(data_name + tmp, "wb") as f:
            for key in sorted(tensors, key=lambda k: k.encode()):
                value = np.asarray(tensors[key])
                if value.dtype == object:
                    raw, crc = _string_bytes(value)
                else:
                    raw = np.ascontiguousarray(value).astype(
                        value.dtype.newbyteorder("<")).tobytes()
                    crc = crc32c(raw)
                entry = BundleEntryProto(dtype=_code(value.dtype), shard_id=0, offset=offset,
                                         size=len(raw), crc32c=_mask(crc))
                for n in value.shape:
                    entry.shape.dim.add(size=n)
                f.write(raw)
                offset += len(raw)
                entries.append((key.encode(), entry.SerializeToString()))
        header = BundleHeaderProto(num_shards=1, endianness=0)
        header.version.producer = 1
        with open(index_name + tmp, "wb") as f:
            _write_table(f, [(b"", header.SerializeToString())] + entries)
        os.replace(data_name + tmp, data_name)
        os.replace(index_name + tmp, index_name)
    finally:
        for name in (data_name + tmp, index_name + tmp):
            if os.path.exists(name):
                os.remove(name)
    return prefix


def _mask(c):
    return (((c >> 15) | (c << 17)) + _MASK_DELTA) & 0xffffffff


# -- the order of TF's maps ------------------------------------------------------------
# TF's CheckpointReader collects a bundle's keys into a C++ std::unordered_map<string, ...>
# (inserted in key order) and its Python dicts are made by iterating that map, so
# get_variable_to_shape_map / get_variable_to_dtype_map list the keys in libstdc++'s
# hash-table order. Programs print them in that order; it is reproduced here:
# std::hash<std::string> (libstdc++'s _Hash_bytes, a 64-bit Murmur2 variant), the
# prime bucket counts of _Prime_rehash_policy (max load factor 1, growth factor 2)
# and its singly linked list, each new node put at its bucket's start.
_PRIMES = (  # libstdc++'s __prime_list, up to 2**32 buckets
    2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79,
    83, 89, 97, 103, 109, 113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227,
    241, 257, 277, 293, 313, 337, 359, 383, 409, 439, 467, 503, 541, 577, 619, 661, 709,
    761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741, 1879, 2029,
    2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087, 5503, 5953,
    6427, 6949, 7517, 8123, 8783, 9497, 10273, 11113, 12011, 12983, 14033, 15173, 16411,
    17749, 19183, 20753, 22447, 24281, 26267, 28411, 30727, 33223, 35933, 38873, 42043,
    45481, 49201, 53201, 57557, 62233, 67307, 72817, 78779, 85229, 92203, 99733, 107897,
    116731, 126271, 136607, 147793, 159871, 172933, 187091, 202409, 218971, 236897,
    256279, 277261, 299951, 324503, 351061, 379787, 410857, 444487, 480881, 520241,
    562841, 608903, 658753, 712697, 771049, 834181, 902483, 976369, 1056323, 1142821,
    1236397, 1337629, 1447153, 1565659, 1693859, 1832561, 1982627, 2144977, 2320627,
    2510653, 2716249, 2938679, 3179303, 3439651, 3721303, 4026031, 4355707, 4712381,
    5098259, 5515729, 5967347, 6456007, 6984629, 7556579, 8175383, 8844859, 9569143,
    10352717, 11200489, 12117689, 13109983, 14183539, 15345007, 16601593, 17961079,
    19431899, 21023161, 22744717, 24607243, 26622317, 28802401, 31160981, 33712729,
    36473443, 39460231, 42691603, 46187573, 49969847, 54061849, 58488943, 63278561,
    68460391, 74066549, 80131819, 86693767, 93793069, 101473717, 109783337, 118773397,
    128499677, 139022417, 150406843, 162723577, 176048909, 190465427, 206062531,
    222936881, 241193053, 260944219, 282312799, 305431229, 330442829, 357502601,
    386778277, 418451333, 452718089, 489790921, 529899637, 573292817, 620239453,
    671030513, 725980837, 785430967, 849749479, 919334987, 994618837, 1076067617,
    1164186217, 1259520799, 1362662261, 1474249943, 1594975441, 1725587117, 1866894511,
    2019773507, 2185171673, 2364114217, 2557710269, 2767159799, 2993761039, 3238918481,
    3504151727, 3791104843, 4101556399, 4294967291)
_FAST_BUCKETS = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)
_M64 = (1 << 64) - 1
_MUL = (0xc6a4a793 << 32) + 0x5bd1e995
_SEED = 0xc70f6907


def _std_hash(data):
    """libstdc++'s ``std::hash<std::string>`` of ``data`` (bytes), on a 64-bit machine."""
    def mix(v):
        return v ^ (v >> 47)
    n = len(data)
    h = (_SEED ^ (n * _MUL)) & _M64
    aligned = n & ~7
    for i in range(0, aligned, 8):
        word = int.from_bytes(data[i:i + 8], "little")
        h = ((h ^ ((mix((word * _MUL) & _M64) * _MUL) & _M64)) * _MUL) & _M64
    if n & 7:
        h = ((h ^ int.from_bytes(data[aligned:], "little")) * _MUL) & _M64
    return mix((mix(h) * _MUL) & _M64)


def _next_buckets(n):
    """``_Prime_rehash_policy::_M_next_bkt``: (bucket count, next resize)."""
    if n < len(_FAST_BUCKETS):
        return _FAST_BUCKETS[n], _FAST_BUCKETS[n]
    import bisect
    i = bisect.bisect_left(_PRIMES, n, 6)
    if i >= len(_PRIMES):
        raise ValueError("more keys than TF's map order is reproduced for")
    return _PRIMES[i], _PRIMES[i]


def unordered_map_order(keys):
    """The keys (str, distinct) in the order a libstdc++ ``std::unordered_map`` they
    were inserted into, in this order, iterates them: TF's order for the maps of a
    checkpoint's reader.

    >>> from eagertape.tf._tf_bundle import unordered_map_order
    >>> unordered_map_order(["a", "b", "scoped/c"])     # as TF lists a TF 1 checkpoint
    ['scoped/c', 'b', 'a']
    """
    codes = [_std_hash(k.encode("utf-8", "surrogateescape")) for k in keys]
    head, nxt = None, [None] * len(keys)     # the list; -1 stands for its "before begin"
    buckets, count, next_resize = [None], 1, 0

    def link_after(prev, node):
        nonlocal head
        if prev == -1:
            nxt[node], head = head, node
        else:
            nxt[node], nxt[prev] = nxt[prev], node

    for node, code in enumerate(codes):
        if node + 1 > next_resize:           # _M_need_rehash
            least = max(node + 1, 11 if next_resize == 0 else 0)
            if least >= count:
                count, next_resize = _next_buckets(max(least + 1, count * 2))
                new, p, head, first_bucket = [None] * count, head, None, 0
                while p is not None:         # _M_rehash_aux
                    after, b = nxt[p], codes[p] % count
                    if new[b] is None:
                        nxt[p], head, new[b] = head, p, -1
                        if nxt[p] is not None:
                            new[first_bucket] = p
                        first_bucket = b
                    else:
                        link_after(new[b], p)
                    p = after
                buckets = new
            else:
                next_resize = count
        b = code % count
        if buckets[b] is not None:           # _M_insert_bucket_begin
            link_after(buckets[b], node)
        else:
            nxt[node], head = head, node
            if nxt[node] is not None:
                buckets[codes[nxt[node]] % count] = node
            buckets[b] = -1
    out, p = [], head
    while p is not None:
        out.append(keys[p])
        p = nxt[p]
    return out
