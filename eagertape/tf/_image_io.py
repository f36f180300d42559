"""Image files for ``tf.io`` and ``tf.image``: PNG, JPEG, GIF, BMP and WebP
decoding and PNG/JPEG encoding through Pillow, with TF's conventions.

TF's conventions kept: ``channels=0`` keeps the file's channels (grey 1, grey
and alpha 2, colour 3, colour and alpha 4; a palette is expanded), 1/3/4 convert
(colour to grey with libpng's integer weights for PNG, the JPEG decoder's own
luma for JPEG; grey to colour repeated; alpha added opaque or dropped); results
are ``[height, width, channels]`` uint8 (``uint16`` for PNG with
``dtype=tf.uint16``: 16-bit files as stored, 8-bit ones times 257; a 16-bit file
read as uint8 keeps the high byte, as libpng's ``strip_16``); ``decode_gif`` is
``[frames, height, width, 3]`` and ``decode_image`` gives 4-D for a GIF unless
``expand_animations=False``. The decode ops take any of the formats (as TF's,
which sniff the bytes), and bad bytes raise TF's ``InvalidArgumentError``.

PNG pixels are exact (lossless). JPEG decoding goes through simplejpeg, whose
libjpeg-turbo runs the IDCT TF asks for (its default "" and "INTEGER_FAST": the
fast integer IDCT; "INTEGER_ACCURATE": the accurate one), with or without fancy
upsampling and at 1/2, 1/4 or 1/8 scale, so the pixels are TF's (the tests compare
them exactly); CMYK files are converted to RGB with TF's own formula. Two corners are not TF's: ``decode_and_crop_jpeg`` decodes the whole image
and cuts the window, where TF's libjpeg skips rows and MCU columns, which changes
the window's edge pixels for chroma-subsampled files with fancy upsampling; and a
``ratio`` decode of a file of at most 5 pixels a side can take libjpeg-turbo's next
larger IDCT scale (simplejpeg picks the scale from the output size, the same for
both; a level or two apart).
Encoded bytes are valid files that TF reads to the same pixels (PNG) but are not
TF's bytes (another zlib or libjpeg build and settings).

>>> import eagertape.tf as tf
>>> img = tf.constant([[[255, 0, 0], [0, 255, 0]]], tf.uint8)
>>> png = tf.io.encode_png(img)
>>> tf.io.decode_png(png).numpy().tolist()
[[[255, 0, 0], [0, 255, 0]]]
>>> tf.io.decode_png(png, channels=1).numpy().tolist()
[[[76], [149]]]
"""
import io as _pyio
import struct
import zlib

import numpy as np

from ..extend import InvalidArgumentError, as_dtype as _as_dtype
from . import _text

__all__ = ["decode_png", "decode_jpeg", "decode_bmp", "decode_gif", "decode_webp",
           "decode_image", "decode_and_crop_jpeg", "encode_png", "encode_jpeg", "is_jpeg",
           "extract_jpeg_shape"]


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("tf.io's image decoding and encoding use Pillow: pip install "
                          "pillow (or 'eagertape[io]')") from None
    return Image


def _simplejpeg():
    try:
        import simplejpeg
    except ImportError:
        raise ImportError("tf.io's JPEG decoding uses simplejpeg (libjpeg-turbo with TF's "
                          "IDCT choices): pip install simplejpeg (or 'eagertape[io]')") from None
    return simplejpeg


_UNKNOWN = "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required."


def _format(data):
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:4] == b"GIF8":
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    raise InvalidArgumentError(_UNKNOWN)


def _contents(contents):
    a = _text.host(contents, "contents")
    if a.ndim != 0:
        raise InvalidArgumentError(f"contents must be scalar, got shape {list(a.shape)}")
    return a[()]


def _check_channels(channels, allowed=(0, 1, 3, 4)):
    channels = 0 if channels is None else int(channels)
    if channels not in allowed:
        raise InvalidArgumentError(
            f"`channels` must be {', '.join(map(str, allowed[:-1]))} or {allowed[-1]} but "
            f"got {channels}")
    return channels


def _gray(rgb):
    """libpng's rgb_to_gray as TF sets it up (weights 0.299, 0.587 in 1/32768ths, the
    rest to blue), at the file's depth: truncated at 8 bits, rounded at 16 (libpng's
    two code paths; both checked against TF's decoder)."""
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    half = 16384 if rgb.dtype == np.uint16 else 0
    return ((9797 * r + 19234 * g + 3737 * b + half) >> 15).astype(rgb.dtype)


def _channels(a, channels, luma=_gray):
    """``a`` ([h, w, c]) with ``channels`` channels, as TF converts them."""
    c = a.shape[-1]
    if channels == 0 or channels == c:
        return a
    full = np.iinfo(a.dtype).max
    color = a[..., :3] if c >= 3 else np.repeat(a[..., :1], 3, -1)
    alpha = a[..., c - 1:] if c in (2, 4) else np.full(a.shape[:-1] + (1,), full, a.dtype)
    if channels == 1:
        return a[..., :1] if c <= 2 else luma(color)[..., None]
    if channels == 3:
        return color
    return np.concatenate([color, alpha], -1)


def _open(data):
    Image = _pil()
    try:
        im = Image.open(_pyio.BytesIO(data))
        im.load()
    except Exception as e:
        raise InvalidArgumentError(f"Invalid image data ({_format(data).upper()}): "
                                   f"{e}") from None
    return im


def _array(im):
    """The pixels of a Pillow image as [h, w, c], with the file's channels."""
    mode = im.mode
    if mode == "P":
        im = im.convert("RGBA" if "transparency" in im.info else "RGB")
    elif mode == "PA":
        im = im.convert("RGBA")
    elif mode == "1":
        im = im.convert("L")
    elif mode == "CMYK":
        im = im.convert("RGB")
    elif mode in ("I", "F"):
        im = im.convert("I;16")
    a = np.asarray(im)
    if a.dtype.kind == "i":
        a = a.astype(np.uint16)
    elif a.dtype != np.uint8 and a.dtype != np.uint16:
        a = a.astype(np.uint16 if a.dtype.itemsize > 1 else np.uint8)
    if a.dtype.byteorder == ">":
        a = a.astype(np.uint16)
    return a[..., None] if a.ndim == 2 else a


# -- PNG at 16 bits: Pillow reads 16-bit colour as 8-bit, so those files are read here

def _png_chunks(data):
    pos = 8
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + n]
        pos += 12 + n


def _png16(data):
    """The pixels of a 16-bit, non-interlaced grey/colour(+alpha) PNG, else None."""
    chunks = list(_png_chunks(data))
    if not chunks or chunks[0][0] != b"IHDR":
        return None
    w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if depth != 16 or ctype not in (0, 2, 4, 6) or interlace:
        return None
    c = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    try:
        raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    except zlib.error as e:
        raise InvalidArgumentError(f"Invalid PNG data: {e}") from None
    stride, bpp = w * c * 2, c * 2
    if len(raw) < h * (stride + 1):
        raise InvalidArgumentError("Invalid PNG data: image data too short")
    rows = np.frombuffer(raw[:h * (stride + 1)], np.uint8).reshape(h, stride + 1)
    out = np.zeros((h, stride), np.int32)
    prev = np.zeros(stride, np.int32)
    for y in range(h):
        f, line = rows[y, 0], rows[y, 1:].astype(np.int32)
        if f == 0:
            cur = line
        elif f == 1:
            cur = line.copy()
            for x in range(bpp, stride):
                cur[x] = (cur[x] + cur[x - bpp]) & 255
        elif f == 2:
            cur = (line + prev) & 255
        elif f == 3:
            cur = line.copy()
            for x in range(stride):
                left = cur[x - bpp] if x >= bpp else 0
                cur[x] = (cur[x] + ((left + prev[x]) >> 1)) & 255
        elif f == 4:
            cur = line.copy()
            for x in range(stride):
                a = cur[x - bpp] if x >= bpp else 0
                b = prev[x]
                cc = prev[x - bpp] if x >= bpp else 0
                p = a + b - cc
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - cc)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else cc
                cur[x] = (cur[x] + pred) & 255
        else:
            raise InvalidArgumentError(f"Invalid PNG data: unknown filter {f}")
        out[y] = cur
        prev = cur
    return out.astype(np.uint8).reshape(h, w * c * 2).view(">u2").astype(np.uint16).reshape(
        h, w, c)


def _encode_png16(a, level):
    h, w, c = a.shape
    ctype = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    rows = a.astype(">u2").reshape(h, w * c).view(np.uint8)
    raw = np.concatenate([np.zeros((h, 1), np.uint8), rows], 1).tobytes()

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, ctype, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, level)) + chunk(b"IEND", b""))


# -- decoding -----------------------------------------------------------------------

def _decode_still(data, channels, dtype=np.uint8, jpeg=None):
    """One image of any format as [h, w, c] of ``dtype`` (uint8 or uint16)."""
    fmt = _format(data)
    if fmt == "bmp" and channels == 1:
        raise InvalidArgumentError(f"`channels` must be 0, 3 or 4 for BMP, but got {channels}")
    a = _png16(data) if fmt == "png" else None
    luma = _gray
    if fmt == "jpeg":
        a = _decode_jpeg(data, channels, **(jpeg or {}))
    if a is None:
        im = _open_lazy(data)
        try:
            im.load()
        except Exception as e:
            raise InvalidArgumentError(f"Invalid {fmt.upper()} data: {e}") from None
        if fmt == "gif":
            im.seek(0)
        a = _array(im)
    # libpng converts the channels before the depth
    a = _channels(a, channels, luma)
    if a.dtype == np.uint16 and dtype == np.uint8:
        a = (a >> 8).astype(np.uint8)
    elif a.dtype == np.uint8 and dtype == np.uint16:
        a = a.astype(np.uint16) * 257
    return a


def _adobe(data):
    """Whether the header has libjpeg's Adobe APP14 marker (which says CMYK is stored
    inverted); the markers before the first scan are read as libjpeg reads them."""
    i = 2
    while i + 4 <= len(data) and data[i] == 0xFF:
        kind = data[i + 1]
        if kind == 0xFF:
            i += 1
            continue
        if kind == 0xDA:
            break
        size = int.from_bytes(data[i + 2:i + 4], "big")
        if kind == 0xEE and size >= 14 and data[i + 4:i + 9] == b"Adobe":
            return True
        i += 2 + size
    return False


def _decode_jpeg(data, channels, ratio=1, fancy_upscaling=True, dct_method="",
                 try_recover_truncated=False):
    """A JPEG as [h, w, c] uint8 the way TF's jpeg_mem.cc has libjpeg decode it."""
    if ratio not in (1, 2, 4, 8):
        raise InvalidArgumentError(f"ratio must be 1, 2, 4, or 8, got {ratio}")
    dct = dct_method.decode() if isinstance(dct_method, bytes) else str(dct_method)
    if dct not in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
        raise InvalidArgumentError("dct_method must be one of {'', 'INTEGER_FAST', "
                                   f"'INTEGER_ACCURATE'}}, got {dct!r}")
    sj = _simplejpeg()
    bad = f"Invalid JPEG data or crop window, data size {len(data)}"
    try:
        h, w, space, _ = sj.decode_jpeg_header(data)
    except ValueError:
        raise InvalidArgumentError(bad) from None
    cmyk = space in ("CMYK", "YCCK")
    comps = channels or (1 if space == "Gray" else 3)
    if cmyk and comps == 1:
        # libjpeg has no CMYK-to-grey conversion, so TF fails here
        raise InvalidArgumentError(bad)
    # simplejpeg picks libjpeg-turbo's scale from the wanted size: ceil(side / ratio),
    # libjpeg's own rounding for a 1/ratio scale
    size = {} if ratio == 1 else {"min_height": -(-h // ratio), "min_width": -(-w // ratio)}
    try:
        a = sj.decode_jpeg(data, colorspace="CMYK" if cmyk else ("GRAY" if comps == 1 else "RGB"),
                           fastdct=dct != "INTEGER_ACCURATE", fastupsample=not fancy_upscaling,
                           strict=not try_recover_truncated, **size)
    except ValueError:
        raise InvalidArgumentError(bad) from None
    if cmyk:
        # TF converts libjpeg's CMYK output itself, with integer division
        c = a.astype(np.int32)
        k = c[..., 3:]
        rgb = k * c[..., :3] // 255 if _adobe(data) else (255 - k) * (255 - c[..., :3]) // 255
        a = rgb.astype(np.uint8)
    return a


def _open_lazy(data):
    Image = _pil()
    try:
        return Image.open(_pyio.BytesIO(data))
    except Exception as e:
        raise InvalidArgumentError(f"Invalid image data ({_format(data).upper()}): "
                                   f"{e}") from None


def _gif_frames(data):
    im = _open_lazy(data)
    from PIL import ImageSequence
    frames = []
    try:
        for frame in ImageSequence.Iterator(im):
            frames.append(np.asarray(frame.convert("RGB")))
    except Exception as e:
        raise InvalidArgumentError(f"Invalid GIF data: {e}") from None
    return np.stack(frames)


def _result(a):
    a = np.asarray(a)
    return _text.text_result(a if a.flags.c_contiguous else a.copy())


def _out_dtype(dtype, allowed=("uint8", "uint16")):
    d = np.dtype(_as_dtype(dtype))
    if d.name not in allowed:
        raise TypeError(f"argument `dtype`: {d.name} is not one of {', '.join(allowed)}")
    return d


def decode_png(contents, channels=0, dtype="uint8", name=None):
    """``tf.io.decode_png``: a PNG (or any image TF sniffs) as ``[h, w, c]`` uint8, or
    uint16 with ``dtype=tf.uint16``.

    >>> import eagertape.tf as tf
    >>> png = tf.io.encode_png(tf.constant([[[1000]]], tf.uint16))
    >>> tf.io.decode_png(png, dtype=tf.uint16).numpy().tolist()
    [[[1000]]]
    """
    data = _contents(contents)
    return _result(_decode_still(data, _check_channels(channels), _out_dtype(dtype)))


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                name=None):
    """``tf.io.decode_jpeg``: a JPEG (or a PNG, BMP, still GIF) as ``[h, w, c]`` uint8;
    ``ratio`` 2, 4 or 8 downscales while decoding (libjpeg's scaled IDCT).

    >>> import eagertape.tf as tf
    >>> jpg = tf.io.encode_jpeg(tf.fill([8, 8, 3], tf.constant(200, tf.uint8)))
    >>> tf.io.decode_jpeg(jpg).shape
    TensorShape([8, 8, 3])
    """
    data = _contents(contents)
    return _result(_decode_still(data, _check_channels(channels), np.uint8, {
        "ratio": int(ratio), "fancy_upscaling": bool(fancy_upscaling),
        "dct_method": dct_method, "try_recover_truncated": bool(try_recover_truncated)}))


def decode_bmp(contents, channels=0, name=None):
    """``tf.io.decode_bmp``: a BMP as ``[h, w, c]`` uint8.

    >>> import io
    >>> import numpy as np
    >>> from PIL import Image
    >>> import eagertape.tf as tf
    >>> buf = io.BytesIO(); Image.fromarray(np.full((2, 3, 3), 9, np.uint8)).save(buf, "BMP")
    >>> tf.io.decode_bmp(buf.getvalue()).shape
    TensorShape([2, 3, 3])
    """
    data = _contents(contents)
    return _result(_decode_still(data, _check_channels(channels)))


def decode_gif(contents, name=None):
    """``tf.io.decode_gif``: every frame of a GIF, ``[frames, h, w, 3]`` uint8.

    >>> import io
    >>> import numpy as np
    >>> from PIL import Image
    >>> import eagertape.tf as tf
    >>> frames = [Image.fromarray(np.full((2, 2, 3), v, np.uint8)) for v in (0, 255)]
    >>> buf = io.BytesIO(); frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:])
    >>> tf.io.decode_gif(buf.getvalue()).numpy()[:, 0, 0, 0].tolist()
    [0, 255]
    """
    data = _contents(contents)
    if _format(data) != "gif":
        raise InvalidArgumentError(_UNKNOWN)
    return _result(_gif_frames(data))


def decode_webp(contents, channels=0, dtype="uint8", name=None):
    """``tf.io.decode_webp``: a WebP as ``[h, w, c]`` uint8 (its first frame).

    >>> import io
    >>> import numpy as np
    >>> from PIL import Image
    >>> import eagertape.tf as tf
    >>> buf = io.BytesIO()
    >>> Image.fromarray(np.full((2, 2, 3), 9, np.uint8)).save(buf, "WEBP", lossless=True)
    >>> tf.io.decode_webp(buf.getvalue()).numpy()[0, 0].tolist()
    [9, 9, 9]
    """
    data = _contents(contents)
    return _result(_decode_still(data, _check_channels(channels, (0, 3, 4)),
                                 _out_dtype(dtype, ("uint8",))))


def decode_image(contents, channels=None, dtype="uint8", name=None, expand_animations=True):
    """``tf.io.decode_image``: whatever the format, ``[h, w, c]`` (a GIF:
    ``[frames, h, w, 3]``, or its first frame with ``expand_animations=False``);
    ``dtype`` uint8, uint16 or a float (scaled to [0, 1] as
    ``tf.image.convert_image_dtype``).

    >>> import eagertape.tf as tf
    >>> png = tf.io.encode_png(tf.constant([[[0], [255]]], tf.uint8))
    >>> tf.io.decode_image(png, dtype=tf.float32).numpy().ravel().tolist()
    [0.0, 1.0]
    """
    data = _contents(contents)
    channels = _check_channels(channels)
    want = np.dtype(_as_dtype(dtype))
    if want.name not in ("uint8", "uint16", "float16", "float32", "float64", "bfloat16"):
        raise TypeError(f"argument `dtype`: {want.name} is not one of uint8, uint16, "
                        "float16, float32, float64")
    fmt = _format(data)
    if fmt == "gif":
        if channels not in (0, 3):
            raise InvalidArgumentError(f"channels must be 0 or 3 for GIF, got {channels}")
        a = _gif_frames(data)
        if not expand_animations:
            a = a[0]
    else:
        # TF reads a PNG at 16 bits for uint16 and float results (no 8-bit rounding)
        a = _decode_still(data, channels, np.uint16 if (
            want != np.uint8 and fmt == "png") else np.uint8)
    if want == np.uint16 and a.dtype == np.uint8:
        a = a.astype(np.uint16) * 257
    elif want != a.dtype:
        # tf.image.convert_image_dtype's integer-to-float rule: cast, then times
        # 1 / max in the float type
        a = a.astype(want) * np.asarray(1.0 / np.iinfo(a.dtype).max, want)
    return _result(a)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                         name=None):
    """``decode_jpeg`` then the window ``[y, x, height, width]`` of it.

    >>> import eagertape.tf as tf
    >>> jpg = tf.io.encode_jpeg(tf.zeros([8, 8, 3], tf.uint8))
    >>> tf.io.decode_and_crop_jpeg(jpg, [2, 1, 3, 4]).shape
    TensorShape([3, 4, 3])
    """
    a = decode_jpeg(contents, channels, ratio, fancy_upscaling, try_recover_truncated,
                    acceptable_fraction, dct_method).numpy()
    y, x, h, w = (int(v) for v in np.asarray(_text.numeric(crop_window, "crop_window",
                                                             "decode_and_crop_jpeg")))
    if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > a.shape[0] or x + w > a.shape[1]:
        raise InvalidArgumentError(f"Invalid JPEG data or crop window, data size "
                                   f"{len(_contents(contents))}")
    return _result(a[y:y + h, x:x + w])


def encode_png(image, compression=-1, name=None):
    """``tf.io.encode_png``: a uint8 or uint16 ``[h, w, c]`` image (c from 1 to 4) as
    PNG bytes; ``compression`` 0-9 (-1: zlib's default).

    >>> import eagertape.tf as tf
    >>> tf.io.encode_png(tf.zeros([1, 1, 3], tf.uint8)).numpy()[:4]
    b'\\x89PNG'
    """
    a = _text.numeric(image, "image", "encode_png")
    if a.dtype not in (np.uint8, np.uint16):
        raise InvalidArgumentError(f"Value for attr 'T' of {a.dtype.name} is not in the list "
                                   "of allowed values: uint8, uint16")
    if a.ndim != 3:
        raise InvalidArgumentError(f"images must be at least rank 3{list(a.shape)}".replace(
            " ", ""))
    if not 1 <= a.shape[-1] <= 4:
        raise InvalidArgumentError(f"image must have 1, 2, 3, or 4 channels, got "
                                   f"{a.shape[-1]}")
    level = int(compression)
    level = 6 if level < 0 else min(level, 9)
    if a.dtype == np.uint16:
        return _result(np.asarray(_encode_png16(a, level), object))
    Image = _pil()
    mode = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[a.shape[-1]]
    im = Image.fromarray(a[..., 0] if mode == "L" else a, mode)
    buf = _pyio.BytesIO()
    im.save(buf, "PNG", compress_level=level)
    return _result(np.asarray(buf.getvalue(), object))


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,  # noqa: A002
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
                xmp_metadata="", name=None):
    """``tf.io.encode_jpeg``: a uint8 ``[h, w, 1 or 3]`` image as JPEG bytes
    (``quality`` 0-100, 4:2:0 chroma unless ``chroma_downsampling=False``).

    >>> import eagertape.tf as tf
    >>> tf.io.encode_jpeg(tf.zeros([2, 2, 3], tf.uint8)).numpy()[:3]
    b'\\xff\\xd8\\xff'
    """
    a = _text.numeric(image, "image", "encode_jpeg")
    if a.dtype != np.uint8:
        raise InvalidArgumentError(f"Value for attr 'T' of {a.dtype.name} is not in the list "
                                   "of allowed values: uint8")
    if a.ndim != 3 or a.shape[-1] not in (1, 3):
        raise InvalidArgumentError(f"image must have 1 or 3 channels, got "
                                   f"{list(a.shape)}".replace(" ", ""))
    fmt = format.decode() if isinstance(format, bytes) else format
    want = {"": a.shape[-1], "grayscale": 1, "rgb": 3}.get(fmt)
    if want is None:
        raise InvalidArgumentError(f"argument `format` of encode_jpeg: {format!r} is not one "
                                   "of '', 'grayscale', 'rgb'")
    if want != a.shape[-1]:
        raise InvalidArgumentError(f"format {fmt!r} needs {want} channels, got "
                                   f"{a.shape[-1]}")
    if density_unit not in ("in", "cm"):
        raise InvalidArgumentError(f"argument `density_unit`: {density_unit!r} is not 'in' "
                                   "or 'cm'")
    Image = _pil()
    im = Image.fromarray(a[..., 0] if a.shape[-1] == 1 else a, "L" if a.shape[-1] == 1
                         else "RGB")
    scale = 2.54 if density_unit == "cm" else 1
    kw = dict(quality=int(quality), progressive=bool(progressive),
              optimize=bool(optimize_size), subsampling=2 if chroma_downsampling else 0,
              dpi=(x_density * scale, y_density * scale))
    if xmp_metadata:
        kw["xmp"] = xmp_metadata.encode() if isinstance(xmp_metadata, str) else xmp_metadata
    buf = _pyio.BytesIO()
    im.save(buf, "JPEG", **kw)
    return _result(np.asarray(buf.getvalue(), object))


def is_jpeg(contents, name=None):
    """Whether ``contents`` starts as a JPEG does (a bool scalar).

    >>> import eagertape.tf as tf
    >>> bool(tf.io.is_jpeg(tf.io.encode_jpeg(tf.zeros([1, 1, 1], tf.uint8))))
    True
    """
    return _result(np.asarray(_contents(contents)[:3] == b"\xff\xd8\xff"))


def extract_jpeg_shape(contents, output_type="int32", name=None):
    """``[height, width, channels]`` of a JPEG, read from its header.

    >>> import eagertape.tf as tf
    >>> tf.io.extract_jpeg_shape(tf.io.encode_jpeg(tf.zeros([5, 7, 3], tf.uint8))).numpy()
    array([5, 7, 3], dtype=int32)
    """
    data = _contents(contents)
    if _format(data) != "jpeg":
        raise InvalidArgumentError("Invalid JPEG data, size " + str(len(data)))
    im = _open_lazy(data)
    c = {"L": 1, "RGB": 3, "CMYK": 4}.get(im.mode, 3)
    return _result(np.asarray([im.size[1], im.size[0], c], np.dtype(_as_dtype(output_type))))

# Imported on first use, after the facade scoped its modules: its public functions
# run with TF's 64-bit types on as the others do (tf/_x64.py).
from . import _x64  # noqa: E402

_x64.scope([__name__])
