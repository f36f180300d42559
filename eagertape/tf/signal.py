"""``tf.signal`` on eagertape: FFTs, framing, windows, STFT, DCT/MDCT and mel
filters under TF's names, arguments and dtypes, each one recorded op (or made of
recorded ops), so their gradients are TF's.

As in TF: ``fft``/``ifft`` and their 2-D/3-D/n-D forms take complex tensors and
transform the innermost axes; ``rfft*`` take float32/float64 and give
complex64/complex128; ``fft_length`` is a list with one length per transformed
axis (the input is cropped or zero-padded to it); ``irfft*``'s default length
of the innermost axis is ``2 * (n - 1)``. Windows and the mel matrix are
constants computed as TF computes them.

>>> import eagertape.tf as tf
>>> tf.signal.rfft(tf.constant([1.0, 2.0, 3.0, 4.0])).numpy()
array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
>>> tf.signal.frame(tf.range(1, 6), 2, 2, pad_end=True).numpy()
array([[1, 2],
       [3, 4],
       [5, 0]], dtype=int32)
>>> tf.signal.stft(tf.zeros([2, 100]), frame_length=16, frame_step=8).shape
TensorShape([2, 11, 9])
>>> tf.signal.hann_window(5).numpy()
array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
"""
import jax
import jax.numpy as jnp
import numpy as np

from .. import numpy as _np
from ..extend import InvalidArgumentError
from ..extend import call as _call
from ..extend import x64
from ..extend import as_dtype as _as_dtype, TensorLike as _TensorLike, wrap as _wrap
from ._util import _Unsupported, concrete as _concrete, tensor as _t

__getattr__ = _Unsupported("tf.signal")

_REAL = (np.dtype("float32"), np.dtype("float64"))
_COMPLEX = (np.dtype("complex64"), np.dtype("complex128"))


def _int(value, what):
    if isinstance(value, _TensorLike):
        value = _concrete(value, what)
    v = np.asarray(value)
    if v.ndim != 0:
        raise ValueError(f"argument `{what}` must be a scalar, got shape {list(v.shape)}")
    return int(v)


# -- FFTs ---------------------------------------------------------------------------
def _fftn(x, kind, lengths, axes, norm):
    f = {"fft": jnp.fft.fftn, "ifft": jnp.fft.ifftn, "rfft": jnp.fft.rfftn,
         "irfft": jnp.fft.irfftn}[kind]
    return f(x, s=lengths, axes=axes, norm=norm)


def _no_gradient(op):
    """``_fftn`` whose gradient raises LookupError: TF registers none for ``op``."""
    fn = jax.custom_vjp(_fftn, nondiff_argnums=(1, 2, 3, 4))

    def fwd(x, kind, lengths, axes, norm):
        return _fftn(x, kind, lengths, axes, norm), None

    def bwd(kind, lengths, axes, norm, res, g):
        raise LookupError(f"gradient registry has no entry for: {op} (TensorFlow registers "
                          f"no gradient for tf.signal.{op.lower()})")
    fn.defvjp(fwd, bwd)

    def no_gradient(x, kind, lengths, axes, norm):
        return fn(x, kind, lengths, axes, norm)
    no_gradient.__name__ = op.lower()
    return no_gradient


_NO_GRADIENT = {op: _no_gradient(op) for op in ("RFFT3D", "IRFFT3D")}


def _lengths(fft_length, rank, op):
    if fft_length is None:
        return None
    if isinstance(fft_length, _TensorLike):
        fft_length = _concrete(fft_length, "fft_length")
    if np.ndim(fft_length) != 1:
        raise TypeError(f"argument `fft_length` of {op} must be a list of {rank} lengths, "
                        f"got {fft_length!r}")
    lengths = tuple(int(n) for n in np.asarray(fft_length))
    if len(lengths) != rank:
        raise InvalidArgumentError(f"{op}: fft_length must have shape [{rank}], "
                                   f"got {list(lengths)}")
    return lengths


def _complex_fft(kind, rank, input, name):
    x = _t(input)
    op = f"{kind.upper()}{'' if rank == 1 else f'{rank}D'}"
    if x.dtype not in _COMPLEX:
        raise InvalidArgumentError(f"{op}: input must be complex64 or complex128, got {x.dtype}")
    if x.ndim < rank:
        raise InvalidArgumentError(f"{op}: input must have rank of at least {rank} but got: "
                                   f"{list(x.shape)}")
    return _call(_fftn, (x, kind, None, tuple(range(-rank, 0)), None))


def _real_fft(rank, input_tensor, fft_length):
    x = _t(input_tensor)
    op = "RFFT" if rank == 1 else f"RFFT{rank}D"
    if x.dtype not in _REAL:
        raise ValueError(f"{op} requires tf.float32 or tf.float64 inputs, got: {x.dtype}")
    if x.ndim < rank:
        raise ValueError(f"Shape {tuple(x.shape)} must have rank at least {rank}")
    lengths = _lengths(fft_length, rank, op)
    if lengths is None:
        lengths = tuple(x.shape[-rank:])
    return _call(_NO_GRADIENT.get(op, _fftn), (x, "rfft", lengths, tuple(range(-rank, 0)), None))


def _inverse_real_fft(rank, input_tensor, fft_length):
    x = _t(input_tensor)
    op = "IRFFT" if rank == 1 else f"IRFFT{rank}D"
    if x.dtype not in _COMPLEX:
        raise ValueError(f"{op} requires tf.complex64 or tf.complex128 inputs, got: {x.dtype}")
    if x.ndim < rank:
        raise ValueError(f"Shape {tuple(x.shape)} must have rank at least {rank}")
    lengths = _lengths(fft_length, rank, op)
    if lengths is None:
        lengths = tuple(x.shape[-rank:-1]) + (2 * (x.shape[-1] - 1),)
    return _call(_NO_GRADIENT.get(op, _fftn), (x, "irfft", lengths, tuple(range(-rank, 0)), None))


def fft(input, name=None):
    """The DFT of the innermost axis of a complex tensor."""
    return _complex_fft("fft", 1, input, name)


def ifft(input, name=None):
    return _complex_fft("ifft", 1, input, name)


def fft2d(input, name=None):
    return _complex_fft("fft", 2, input, name)


def ifft2d(input, name=None):
    return _complex_fft("ifft", 2, input, name)


def fft3d(input, name=None):
    return _complex_fft("fft", 3, input, name)


def ifft3d(input, name=None):
    return _complex_fft("ifft", 3, input, name)


def rfft(input_tensor, fft_length=None, name=None):
    """The DFT of the innermost axis of a real tensor, its ``n // 2 + 1`` non-negative
    frequencies (``fft_length``: ``[n]``, cropping or zero-padding the input)."""
    return _real_fft(1, input_tensor, fft_length)


def irfft(input_tensor, fft_length=None, name=None):
    """The inverse of ``rfft``: ``fft_length[0]`` real values (default ``2 * (n - 1)``)."""
    return _inverse_real_fft(1, input_tensor, fft_length)


def rfft2d(input_tensor, fft_length=None, name=None):
    return _real_fft(2, input_tensor, fft_length)


def irfft2d(input_tensor, fft_length=None, name=None):
    return _inverse_real_fft(2, input_tensor, fft_length)


def rfft3d(input_tensor, fft_length=None, name=None):
    """The 3-D ``rfft``; a gradient through it raises LookupError, as in TF."""
    return _real_fft(3, input_tensor, fft_length)


def irfft3d(input_tensor, fft_length=None, name=None):
    """The 3-D ``irfft``; a gradient through it raises LookupError, as in TF."""
    return _inverse_real_fft(3, input_tensor, fft_length)


def _nd(kind, input_tensor, fft_length, axes, norm):
    x = _t(input_tensor)
    if norm not in (None, "backward"):
        raise NotImplementedError(f"{kind}nd: norm={norm!r} is not supported here (TF has no "
                                  "CPU kernel to check it against); scale the result instead")
    want = _COMPLEX if kind in ("fft", "ifft", "irfft") else _REAL
    if x.dtype not in want:
        raise ValueError(f"{kind}nd: input must be {' or '.join(map(str, want))}, got {x.dtype}")
    if isinstance(fft_length, _TensorLike):
        fft_length = _concrete(fft_length, "fft_length")
    if isinstance(axes, _TensorLike):
        axes = _concrete(axes, "axes")
    lengths = None if fft_length is None else tuple(int(n) for n in np.reshape(fft_length, -1))
    if axes is None:
        axes = tuple(range(-len(lengths), 0)) if lengths is not None else tuple(range(x.ndim))
    axes = tuple(int(a) for a in np.reshape(axes, -1))
    if lengths is None:
        lengths = tuple(x.shape[a] for a in axes)
        if kind == "irfft":
            lengths = lengths[:-1] + (2 * (lengths[-1] - 1),)
    return _call(_fftn, (x, kind, lengths, axes, norm))


def fftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The n-D DFT over ``axes`` (default: the last ``len(fft_length)`` axes, or all).
    TF 2.21 has no CPU kernel for it; eagertape's runs anywhere, and equals the
    1-D/2-D/3-D transforms over the same axes."""
    return _nd("fft", input_tensor, fft_length, axes, norm)


def ifftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    return _nd("ifft", input_tensor, fft_length, axes, norm)


def rfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    return _nd("rfft", input_tensor, fft_length, axes, norm)


def irfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    return _nd("irfft", input_tensor, fft_length, axes, norm)


def _shift(x, axes, inverse):
    return (jnp.fft.ifftshift if inverse else jnp.fft.fftshift)(x, axes=axes)


def _axes(axes):
    if axes is None:
        return None
    if isinstance(axes, _TensorLike):
        axes = _concrete(axes, "axes")
    return tuple(int(a) for a in np.reshape(axes, -1))


def fftshift(x, axes=None, name=None):
    """The zero frequency moved to the middle of ``axes`` (default all)."""
    return _call(_shift, (_t(x), _axes(axes), False))


def ifftshift(x, axes=None, name=None):
    return _call(_shift, (_t(x), _axes(axes), True))


# -- framing --------------------------------------------------------------------------
def _frame(x, frame_length, frame_step, pad_end, pad_value, axis):
    n = x.shape[axis]
    if pad_end:
        frames = -(-n // frame_step)
        need = max(0, (frames - 1) * frame_step + frame_length - n)
        if need:
            pad = [(0, 0)] * x.ndim
            pad[axis] = (0, need)
            x = jnp.pad(x, pad, constant_values=pad_value)
    else:
        frames = max(0, 1 + (n - frame_length) // frame_step)
    idx = frame_step * np.arange(frames)[:, None] + np.arange(frame_length)[None, :]
    return jnp.take(x, idx.astype(np.int32), axis=axis)


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Frames of ``frame_length`` samples every ``frame_step`` along ``axis``, which
    becomes two axes (frames, samples); ``pad_end`` pads the last frames with
    ``pad_value`` instead of dropping them."""
    x = _t(signal)
    if x.ndim < 1:
        raise ValueError(f"Shape {tuple(x.shape)} must have rank at least 1")
    axis = _int(axis, "axis")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"argument `axis` {axis} is out of range for rank {x.ndim}")
    length, step = _int(frame_length, "frame_length"), _int(frame_step, "frame_step")
    pad = _t(pad_value, x.dtype)
    return _call(_frame, (x, length, step, bool(pad_end), pad, axis % x.ndim))


def _overlap_and_add(x, frame_step):
    frames, length = x.shape[-2], x.shape[-1]
    size = (frames - 1) * frame_step + length if frames else 0
    idx = (frame_step * np.arange(frames)[:, None] + np.arange(length)[None, :]).reshape(-1)
    out = jnp.zeros(x.shape[:-2] + (size,), x.dtype)
    return out.at[..., idx.astype(np.int32)].add(x.reshape(x.shape[:-2] + (-1,)))


def overlap_and_add(signal, frame_step, name=None):
    """The sum of the frames ``signal[..., frames, frame_length]`` placed every
    ``frame_step`` samples: ``[..., (frames - 1) * frame_step + frame_length]``."""
    x = _t(signal)
    if x.ndim < 2:
        raise ValueError(f"Shape {tuple(x.shape)} must have rank at least 2")
    step = _int(frame_step, "frame_step")
    if step > x.shape[-1]:
        raise ValueError(f"frame_step ({step}) must be at most frame_length ({x.shape[-1]})")
    return _call(_overlap_and_add, (x, step))


# -- windows: constants, computed in float64 and rounded to ``dtype`` -----------------
def _window_dtype(dtype):
    dtype = _as_dtype(dtype)
    if dtype not in _REAL + (np.dtype("float16"), np.dtype(jnp.bfloat16)):
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    return dtype


@x64     # also called from the window functions inverse_stft_window_fn returns
def _const(values, dtype):
    return _wrap(jnp.asarray(np.asarray(values, np.float64).astype(dtype)))


def _raised_cosine(window_length, periodic, dtype, a, b):
    dtype = _window_dtype(dtype)
    n = _int(window_length, "window_length")
    if n == 1:
        return _const([1.0], dtype)
    # TF's rule: a periodic window of odd length is the symmetric one.
    periodic = bool(_concrete(_t(periodic), "periodic")) if isinstance(periodic, _TensorLike) \
        else bool(periodic)
    denom = n + int(periodic) * (1 - n % 2) - 1
    return _const(a - b * np.cos(2 * np.pi * np.arange(n) / denom), dtype)


def hann_window(window_length, periodic=True, dtype="float32", name=None):
    """``0.5 - 0.5 cos(2 pi n / N)``; N is the length (periodic, even lengths) or the
    length - 1."""
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(window_length, periodic=True, dtype="float32", name=None):
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46)


def _kaiser(n, beta):
    from scipy.special import i0e
    if n == 1:
        return np.ones(1)
    half = (n - 1) / 2.0
    arg = np.arange(-half, half + 0.1)
    num = beta * np.sqrt(np.maximum(0.0, 1.0 - (arg / half) ** 2))
    return np.exp(num - beta) * (i0e(num) / i0e(beta))


def _beta(beta, dtype):
    # TF casts beta to the window's dtype (a Python float: float32 first).
    from .dtypes import _python_constant
    return float(_python_constant(beta, dtype))


def kaiser_window(window_length, beta=12.0, dtype="float32", name=None):
    dtype = _window_dtype(dtype)
    return _const(_kaiser(_int(window_length, "window_length"), _beta(beta, dtype)), dtype)


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype="float32", name=None):
    dtype = _window_dtype(dtype)
    k = _kaiser(_int(window_length, "window_length") // 2 + 1, _beta(beta, dtype))
    c = np.cumsum(k)
    half = np.sqrt(c[:-1] / c[-1])
    return _const(np.concatenate([half, half[::-1]]), dtype)


def vorbis_window(window_length, dtype="float32", name=None):
    dtype = _window_dtype(dtype)
    n = _int(window_length, "window_length")
    return _const(np.sin(np.pi / 2 * np.sin(np.pi / n * (np.arange(n) + 0.5)) ** 2), dtype)


# -- STFT -----------------------------------------------------------------------------
def _enclosing_power_of_two(n):
    return int(2 ** np.ceil(np.log(n) / np.log(2.0)))


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None):
    """``rfft`` of the windowed frames of ``signals`` (innermost axis):
    ``[..., frames, fft_length // 2 + 1]``; ``fft_length`` defaults to the
    smallest power of two that holds a frame."""
    x = _t(signals)
    length = _int(frame_length, "frame_length")
    n = _enclosing_power_of_two(length) if fft_length is None else _int(fft_length, "fft_length")
    frames = frame(x, length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        frames = frames * window_fn(length, dtype=frames.dtype)
    return rfft(frames, [n])


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window function for ``inverse_stft`` that undoes ``forward_window_fn``'s
    windows overlapping every ``frame_step`` samples."""
    step = _int(frame_step, "frame_step")

    def inverse_stft_window_fn_inner(frame_length, dtype):
        length = _int(frame_length, "frame_length")
        forward = np.asarray(forward_window_fn(length, dtype=dtype).numpy(), np.float64)
        overlaps = -(-length // step)
        denom = np.pad(forward ** 2, (0, overlaps * step - length)).reshape(overlaps, step)
        denom = np.tile(denom.sum(0, keepdims=True), (overlaps, 1)).reshape(-1)[:length]
        safe = np.where(denom == 0, 1.0, denom)
        return _const(np.where(denom == 0, 0.0, forward / safe), _as_dtype(dtype))
    return inverse_stft_window_fn_inner


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window,
                 name=None):
    """Frames by ``irfft``, cut or zero-padded to ``frame_length``, windowed, and
    overlapped-and-added (with ``inverse_stft_window_fn``'s window, the inverse
    of ``stft``)."""
    x = _t(stfts)
    if x.ndim < 2:
        raise ValueError(f"Shape {tuple(x.shape)} must have rank at least 2")
    length = _int(frame_length, "frame_length")
    n = _enclosing_power_of_two(length) if fft_length is None else _int(fft_length, "fft_length")
    frames = irfft(x, [n])
    if frames.shape[-1] > length:
        frames = frames[..., :length]
    elif frames.shape[-1] < length:
        frames = _np.pad(frames, [(0, 0)] * (frames.ndim - 1) + [(0, length - frames.shape[-1])])
    if window_fn is not None:
        frames = frames * window_fn(length, dtype=frames.dtype)
    return overlap_and_add(frames, frame_step)


# -- DCT and MDCT: products with the transform's matrix (TF's definitions, SciPy's
#    conventions), so any length and type is one recorded matmul ---------------------
def _dct_matrix(n, kind, norm, dtype):
    from scipy.fft import dct as scipy_dct
    return np.asarray(scipy_dct(np.eye(n), type=kind, norm=norm, axis=-1)).astype(dtype)


def _dct(x, n, matrix):
    if n is not None:
        if n <= x.shape[-1]:
            x = x[..., :n]
        else:
            x = jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, n - x.shape[-1])])
    return x @ matrix


def _checked_dct(input, type, n, axis, norm):
    x = _t(input)
    if x.dtype not in _REAL:
        raise TypeError(f"dct takes float32 or float64 inputs, got {x.dtype}")
    if type not in (1, 2, 3, 4):
        raise ValueError(f"Types I, II, III and IV (I)DCT are supported, got type {type}")
    if n is not None and n < 1:
        raise ValueError(f"Invalid value for n {n}, must be positive")
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    if type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        if (x.shape[-1] if n is None else n) < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    return x


def _dct_of(x, kind, n, norm):
    size = x.shape[-1] if n is None else int(n)
    matrix = _dct_matrix(size, kind, norm, x.dtype)
    return _call(_dct, (x, None if n is None else int(n), matrix))


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):
    """The type-I..IV DCT of the innermost axis (``n``: cropped or zero-padded to
    ``n``; ``norm``: None or ``"ortho"``), as SciPy's ``dct``."""
    x = _checked_dct(input, type, n, axis, norm)
    return _dct_of(x, type, n, norm)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):
    """The inverse DCT: the DCT of the inverse type (2 and 3 swap), unscaled
    unless ``norm="ortho"``."""
    x = _checked_dct(input, type, n, axis, norm)
    return _dct_of(x, {1: 1, 2: 3, 3: 2, 4: 4}[type], n, norm)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """MFCCs: the orthonormal-like DCT-II of log-mel spectrograms, as TF scales it
    (``dct(x) / sqrt(2 * num_mel_bins)``)."""
    x = _t(log_mel_spectrograms)
    if x.ndim < 1 or x.shape[-1] < 1:
        raise ValueError("num_mel_bins must be positive")
    return dct(x, type=2) * np.asarray(1.0 / np.sqrt(2.0 * x.shape[-1]), x.dtype)


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """The MDCT of frames of ``frame_length`` (a multiple of 4) every half frame:
    ``[..., frames, frame_length // 2]``."""
    x = _t(signals)
    length = _int(frame_length, "frame_length")
    if length % 4 != 0:
        raise ValueError("The frame length must be a multiple of 4.")
    frames = frame(x, length, length // 2, pad_end=pad_end)
    if window_fn is not None:
        frames = frames * window_fn(length, dtype=frames.dtype)
    else:
        frames = frames * np.asarray(1.0 / np.sqrt(2), frames.dtype)
    q = length // 4
    a, b, c, d = (frames[..., i * q:(i + 1) * q] for i in range(4))
    folded = _np.concatenate([-_np.flip(c, -1) - d, a - _np.flip(b, -1)], axis=-1)
    return dct(folded, type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """The inverse of ``mdct``: ``[..., (frames + 1) * frame_length // 2]``."""
    x = _t(mdcts)
    if x.ndim < 2:
        raise ValueError(f"Shape {tuple(x.shape)} must have rank at least 2")
    half = x.shape[-1]
    if norm is None:
        y = dct(x, type=4) * np.asarray(0.5 / half, x.dtype)
    elif norm == "ortho":
        y = dct(x, type=4, norm="ortho")
    else:
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    h = half // 2
    first, second = y[..., :h], y[..., h:]
    frames = _np.concatenate([second, -_np.flip(second, -1), -_np.flip(first, -1), -first],
                             axis=-1)
    if window_fn is not None:
        frames = frames * window_fn(2 * half, dtype=x.dtype)
    else:
        frames = frames * np.asarray(1.0 / np.sqrt(2), x.dtype)
    return overlap_and_add(frames, half)


# -- mel filters ------------------------------------------------------------------------
_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(f):
    return _MEL_HIGH_FREQUENCY_Q * np.log(1.0 + f / _MEL_BREAK_FREQUENCY_HERTZ)


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype="float32", name=None):
    """The ``[num_spectrogram_bins, num_mel_bins]`` matrix of triangular mel
    filters (HTK's mel scale) that maps a linear spectrogram to a mel one."""
    dtype = _as_dtype(dtype)
    num_mel_bins = _int(num_mel_bins, "num_mel_bins")
    bins = _int(num_spectrogram_bins, "num_spectrogram_bins")
    rate = float(_concrete(sample_rate, "sample_rate")) if isinstance(sample_rate, _TensorLike) \
        else float(sample_rate)
    lo, hi = float(lower_edge_hertz), float(upper_edge_hertz)
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lo < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lo}")
    if lo >= hi:
        raise ValueError(f"lower_edge_hertz {lo:.1f} >= upper_edge_hertz {hi:.1f}")
    if rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {rate}")
    if hi > rate / 2:
        raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency "
                         f"(sample_rate / 2). Got {hi} for sample_rate: {rate}")
    if not np.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype must be a floating point type. Got: {dtype}")
    spectrogram_mel = _hertz_to_mel(np.linspace(0.0, rate / 2.0, bins)[1:])[:, None]
    edges = np.linspace(_hertz_to_mel(lo), _hertz_to_mel(hi), num_mel_bins + 2)
    lower, center, upper = edges[:-2][None], edges[1:-1][None], edges[2:][None]
    lower_slopes = (spectrogram_mel - lower) / (center - lower)
    upper_slopes = (upper - spectrogram_mel) / (upper - center)
    weights = np.maximum(0.0, np.minimum(lower_slopes, upper_slopes))
    return _const(np.pad(weights, [(1, 0), (0, 0)]), dtype)
