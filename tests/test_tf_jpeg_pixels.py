"""tf.io.decode_jpeg gives TF's pixels exactly: the IDCT TF's dct_method picks (its
default is libjpeg-turbo's fast one), fancy upsampling on or off, 1/2, 1/4 and 1/8
scale, grey and colour outputs, CMYK converted by TF's formula; over random and
smooth pictures, 4:4:4, 4:2:2, 4:2:0 and grey files, baseline and progressive.
Pillow's accurate-only IDCT (eagertape's decoder before simplejpeg) was up to 81
levels from TF's default on these pictures.
"""
import io

import numpy as np
import pytest

import tf_oracle

pytest.importorskip("simplejpeg")
Image = pytest.importorskip("PIL.Image")


def _picture(h, w, c, smooth, seed):
    rng = np.random.default_rng(seed)
    if not smooth:
        return rng.integers(0, 256, (h, w, c), dtype=np.uint8)
    y, x = np.mgrid[0:h, 0:w].astype(float)
    chans = [128 + 60 * np.sin(0.11 * (k + 1) * x + k) * np.cos(0.07 * y + 2 * k)
             + 40 * (x / w - y / h) + rng.normal(0, 4, (h, w)) for k in range(c)]
    return np.clip(np.stack(chans, -1), 0, 255).astype(np.uint8)


def _jpeg(h, w, kind, smooth, quality, progressive=False, seed=0):
    c = {"gray": 1, "cmyk": 4}.get(kind, 3)
    a = _picture(h, w, c, smooth, seed)
    im = Image.fromarray(a[..., 0] if c == 1 else a, {1: "L", 3: "RGB", 4: "CMYK"}[c])
    kw = {"subsampling": {"444": 0, "422": 1, "420": 2}[kind]} if c == 3 else {}
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=quality, progressive=progressive, **kw)
    return buf.getvalue()


# (height, width, kind, smooth, quality, progressive): odd sizes (not whole MCUs)
_FILES = [(37, 53, "420", False, 75, False), (37, 53, "420", True, 95, True),
          (29, 18, "422", False, 90, False), (29, 18, "422", True, 50, True),
          (16, 24, "444", False, 100, False), (21, 35, "444", True, 75, True),
          (19, 23, "gray", False, 85, False), (40, 17, "gray", True, 60, True)]
_DCTS = ("", "INTEGER_FAST", "INTEGER_ACCURATE")


def _decodes(tf, files):
    return [[tf.io.decode_jpeg(data, channels=ch, ratio=ratio, fancy_upscaling=fancy,
                               dct_method=dct)
             for dct in _DCTS for fancy in (True, False) for ch in (0, 1, 3)
             for ratio in (1, 2, 4, 8)] for data in files]


@pytest.mark.parametrize("spec", _FILES, ids=lambda s: "-".join(map(str, s)))
def test_decode_jpeg_pixels(spec):
    tf_oracle.check(_decodes, [_jpeg(*spec)], rtol=0, atol=0)


def _cmyk_decodes(tf, data):
    return [tf.io.decode_jpeg(data, channels=ch, ratio=ratio, fancy_upscaling=fancy,
                              dct_method=dct)
            for dct in _DCTS for fancy in (True, False) for ch in (0, 3)
            for ratio in (1, 2, 8)]


def test_decode_jpeg_cmyk_is_converted_with_tfs_formula():
    tf_oracle.check(_cmyk_decodes, _jpeg(23, 30, "cmyk", False, 90), rtol=0, atol=0)


def test_decode_jpeg_cmyk_to_grey_fails_as_tfs():
    tf_oracle.check(lambda tf, data: tf.io.decode_jpeg(data, channels=1),
                    _jpeg(8, 8, "cmyk", True, 90), tf_raises=True)


def _other_ops(tf, files):
    # decode_and_crop_jpeg is TF's exactly where its row and column skipping cannot
    # change pixels: 4:4:4 and grey files, or no fancy upsampling (tf/_image_io.py)
    out = []
    for data in files:
        out.append([tf.io.decode_image(data), tf.io.decode_image(data, channels=1),
                    tf.io.decode_image(data, dtype=tf.float32),
                    tf.image.decode_jpeg(data, ratio=2),
                    tf.io.decode_and_crop_jpeg(data, [3, 5, 9, 11]),
                    tf.io.decode_and_crop_jpeg(data, [1, 2, 6, 4], ratio=2),
                    tf.io.decode_and_crop_jpeg(data, [2, 7, 10, 3], fancy_upscaling=False,
                                               dct_method="INTEGER_ACCURATE")])
    return out


def test_decode_image_and_crop_pixels():
    files = [_jpeg(21, 35, "444", False, 80), _jpeg(19, 23, "gray", True, 90)]
    tf_oracle.check(_other_ops, files, rtol=0, atol=0)


def test_decode_jpeg_unknown_dct_method_fails_as_tfs():
    tf_oracle.check(lambda tf, data: tf.io.decode_jpeg(data, dct_method="FLOAT"),
                    _jpeg(8, 8, "444", True, 90), tf_raises=True)


def test_decode_jpeg_bad_arguments():
    import eagertape.tf as tf
    data = _jpeg(8, 8, "444", True, 90)
    with pytest.raises(tf.errors.InvalidArgumentError, match="dct_method must be one of"):
        tf.io.decode_jpeg(data, dct_method="bogus")
    with pytest.raises(tf.errors.InvalidArgumentError, match="ratio"):
        tf.io.decode_jpeg(data, ratio=3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid JPEG data"):
        tf.io.decode_jpeg(data[:40])
