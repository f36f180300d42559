"""``tf.audio``: WAV bytes to float32 samples and back, as TF's ``DecodeWav`` and
``EncodeWav`` (16-bit PCM; samples in [-1, 1), ``sample / 32768``).

>>> import eagertape.tf as tf
>>> wav = tf.audio.encode_wav(tf.constant([[0.0], [0.5], [-1.0]]), 16000)
>>> audio, rate = tf.audio.decode_wav(wav)
>>> audio.numpy().ravel().tolist(), int(rate)
([0.0, 0.5, -1.0], 16000)
"""
import struct

import numpy as np

from ..extend import InvalidArgumentError
from . import _text

__all__ = ["decode_wav", "encode_wav"]


def _bad(msg):
    return InvalidArgumentError(msg)


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """``(audio, sample_rate)``: the 16-bit PCM WAV ``contents`` as float32
    ``[samples, channels]`` in [-1, 1) and its rate (int32). ``desired_channels``
    keeps the first channels or repeats the last (TF's rule); ``desired_samples``
    cuts or pads with zeros.

    >>> import eagertape.tf as tf
    >>> wav = tf.audio.encode_wav(tf.constant([[0.25, -0.25]]), 8000)
    >>> tf.audio.decode_wav(wav, desired_channels=1, desired_samples=3).audio.numpy().tolist()
    [[0.25], [0.0], [0.0]]
    """
    data = _text.host(contents, "contents")
    if data.ndim != 0:
        raise InvalidArgumentError(f"contents must be scalar, got shape {list(data.shape)}")
    data = data[()]
    pos = [0]

    def take(n, what="string"):
        if pos[0] + n > len(data):
            raise _bad(f"Data too short when trying to read {what}")
        out = data[pos[0]:pos[0] + n]
        pos[0] += n
        return out

    if take(4) != b"RIFF":
        raise _bad("Header mismatch: Expected RIFF but found " + repr(data[:4]))
    struct.unpack("<I", take(4, "uint32"))
    if take(4) != b"WAVE":
        raise _bad("Header mismatch: Expected WAVE but found " + repr(data[8:12]))
    channels = rate = None
    samples = None
    while pos[0] < len(data):
        cid = take(4)
        size = struct.unpack("<I", take(4, "uint32"))[0]
        body = take(size, "string") if cid != b"data" else data[pos[0]:pos[0] + size]
        if cid == b"data":
            pos[0] += size
        if size % 2 and pos[0] < len(data):
            pos[0] += 1
        if cid == b"fmt ":
            if size < 16:
                raise _bad("Bad fmt chunk size")
            fmt, channels, rate, _, _, bits = struct.unpack("<HHIIHH", body[:16])
            if fmt not in (1, 0xFFFE):
                raise _bad(f"Can only read 16-bit PCM WAV files, but found format {fmt}")
            if bits != 16:
                raise _bad(f"Can only read 16-bit WAV files, but received {bits}")
            if channels == 0:
                raise _bad("Bad number of channels: 0")
        elif cid == b"data":
            if channels is None:
                raise _bad("The fmt chunk must come before the data chunk")
            if len(body) != size:
                raise _bad("Data too short when trying to read string")
            n = size // (2 * channels)
            samples = np.frombuffer(body[:n * 2 * channels], "<i2").reshape(n, channels)
    if samples is None:
        raise _bad("No data chunk found")
    audio = samples.astype(np.float32) / 32768.0
    if desired_samples is not None and desired_samples != -1:
        ds = int(desired_samples)
        audio = audio[:ds] if audio.shape[0] >= ds else np.concatenate(
            [audio, np.zeros((ds - audio.shape[0], audio.shape[1]), np.float32)])
    if desired_channels is not None and desired_channels != -1:
        dc = int(desired_channels)
        idx = np.minimum(np.arange(dc), audio.shape[1] - 1)
        audio = audio[:, idx]
    import collections
    out = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])
    return out(_text.text_result(np.ascontiguousarray(audio)),
               _text.text_result(np.asarray(rate, np.int32)))


def encode_wav(audio, sample_rate, name=None):
    """16-bit PCM WAV bytes of float32 ``audio`` ``[samples, channels]`` (clipped to
    [-1, 1): times 32768, rounded and saturated, as TF's EncodeWav).

    >>> import eagertape.tf as tf
    >>> tf.audio.encode_wav(tf.zeros([2, 1]), 44100).numpy()[:4]
    b'RIFF'
    """
    a = _text.numeric(audio, "audio", "encode_wav")
    if a.dtype != np.float32:
        raise InvalidArgumentError(f"argument `audio` of encode_wav must be float32, got "
                                   f"{a.dtype.name}")
    if a.ndim != 2:
        raise InvalidArgumentError(f"audio must be 2-dimensional {list(a.shape)}".replace(
            " [", "[").replace(", ", ","))
    rate = int(_text.numeric(sample_rate, "sample_rate", "encode_wav"))
    n, c = a.shape
    pcm = np.clip(np.rint(a.astype(np.float64) * 32768.0), -32768, 32767).astype("<i2")
    body = pcm.tobytes()
    head = (b"RIFF" + struct.pack("<I", 36 + len(body)) + b"WAVE" + b"fmt "
            + struct.pack("<IHHIIHH", 16, 1, c, rate, rate * c * 2, c * 2, 16)
            + b"data" + struct.pack("<I", len(body)))
    out = np.empty((), object)
    out[()] = head + body
    return _text.wrap(out)
