"""``tf.random``: TF's names, arguments, dtypes, shapes, errors and gradients.
The stateless ops (``stateless_uniform``, ``stateless_normal``,
``stateless_truncated_normal``, ``split``, ``fold_in``) and ``Generator`` give
TF's numbers: TF's CPU kernels' Philox4x32-10, in jnp (normal samples to a
float32 ulp: see ``_box_muller``). The stateful ops (``normal``, ``uniform``,
... after ``set_seed``) and the other stateless samplers draw from ``jax.random``
(threefry): reproducible, not TF's numbers.

Seeds, as TF's: after ``set_seed(s)`` the sequence of calls gives the same
numbers every run; an op-level ``seed=`` gives its own stream (reproducible even
without a global seed: TF then uses a default global seed). The stateless ops
(``stateless_*``) are functions of their ``seed`` (a shape-[2] integer tensor):
the same seed gives the same numbers, another seed other numbers.

Gradients are TF's: samples are differentiable in their location and scale
parameters (``normal``'s mean and stddev, ``uniform``'s bounds), ``gamma`` in
``alpha`` by implicit reparameterization (as TF's RandomGammaGrad) and in
``beta``; ``stateless_parameterized_truncated_normal`` in its four parameters;
integer samples, ``shuffle`` and the stateless Poisson/binomial give None, and a
gradient through ``poisson`` raises LookupError (TF registers none).

>>> import eagertape.tf as tf
>>> tf.random.set_seed(0); a = tf.random.normal([2])
>>> tf.random.set_seed(0); b = tf.random.normal([2])
>>> bool(tf.reduce_all(a == b))
True
>>> s = tf.random.stateless_uniform([3], seed=[1, 2])
>>> bool(tf.reduce_all(s == tf.random.stateless_uniform([3], seed=[1, 2])))
True
>>> g = tf.random.Generator.from_seed(7)
>>> g.normal([2, 3]).shape
TensorShape([2, 3])
>>> tf.random.set_seed(None)           # unset the global seed again
"""
import enum
import sys
import threading
import types

import jax
import jax.numpy as jnp

import numpy as np

from ..extend import InvalidArgumentError
from ..extend import call as _call
from .. import extend as _extend
from ..extend import as_dtype as _as_dtype, TensorLike as _TensorLike, wrap as _wrap
from ..extend import Variable
from ._util import _Unsupported, concrete as _concrete, tensor as _t
from . import config as _config
from ._module import Module as _Module

__getattr__ = _Unsupported("tf.random", {
    "learned_unigram_candidate_sampler":
        "its distribution is learned from every call's true classes by a stateful kernel "
        "that has no JAX counterpart; use fixed_unigram_candidate_sampler with counts you "
        "keep, or log_uniform_candidate_sampler",
})


_DEFAULT_GRAPH_SEED = 87654321        # TF's global seed when only an op seed is given
_FLOATS = tuple(np.dtype(d) for d in ("float16", "float32", "float64")) + (np.dtype(jnp.bfloat16),)


class _Streams(threading.local):
    """This thread's random streams: the global one (ops without a seed) and one
    per op seed. Each stream's key is a Variable, as a TF Generator's state is:
    a tf.function reads it and writes it back, so every call of a compiled
    function draws new numbers, as TF's stateful ops do."""

    def __init__(self):
        self.seed = None        # the global seed (None: not set)
        self.streams = {}       # None (global) or op seed -> key Variable


_gen = _Streams()


def _initial_key(stream):
    if stream is None:
        if _gen.seed is None:
            return jax.random.PRNGKey(np.random.SeedSequence().entropy % (2 ** 31))
        return jax.random.PRNGKey(_gen.seed % 2 ** 32)
    glob = _DEFAULT_GRAPH_SEED if _gen.seed is None else _gen.seed
    return jax.random.fold_in(jax.random.PRNGKey(glob % 2 ** 32), stream % 2 ** 32)


def set_seed(seed):
    """Set the global seed of this thread: the streams restart, so the same
    sequence of calls gives the same numbers again (``None`` unsets it)."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise TypeError(f"argument `seed` must be an int, got {seed!r}")
    _gen.seed = None if seed is None else int(seed)
    for stream, var in _gen.streams.items():
        # The same Variables (traced functions hold them), restarted.
        var._val = _initial_key(stream)


def _next_key(seed=None):
    if seed is None and _gen.seed is None and _config._op_determinism_enabled():
        raise RuntimeError("Random ops require a seed to be set when determinism is enabled. "
                           "Please set a seed before running the op, e.g. by calling "
                           "tf.random.set_seed(1).")
    stream = None if seed is None else int(seed)
    var = _gen.streams.get(stream)
    if var is None:
        # (made on first use, perhaps while a tf.function traces: a concrete key)
        with _extend.init_scope():
            var = _gen.streams[stream] = Variable(np.asarray(_initial_key(stream)),
                                                  trainable=False, name="random_stream")
    if _extend.function_trace() is None:
        key, sub = jax.random.split(var._val)
        var._val = key
        return sub
    # Traced by tf.function: the key is read and written as the function runs.
    with _extend.unrecorded(watch_reads=False):
        key, sub = jax.random.split(var.read_value()._value)
        var.assign(_wrap(key))
    return sub


def _shape(shape):
    if isinstance(shape, _TensorLike):
        shape = _concrete(shape, "shape")
    out = tuple(int(s) for s in np.reshape(np.asarray(shape, dtype=np.int64), -1))
    if any(s < 0 for s in out):
        raise InvalidArgumentError(f"argument `shape`: dimensions must be >= 0, got {list(out)}")
    return out


def _param(value, dtype, what):
    """``value`` converted to ``dtype`` as TF's random ops convert their parameters:
    Python numbers and arrays to it; a tensor of another dtype is a ValueError."""
    if isinstance(value, _TensorLike) and value.dtype != dtype:
        raise ValueError(f"argument `{what}`: tensor conversion requested dtype {dtype} for "
                         f"a tensor of dtype {value.dtype}")
    if isinstance(value, _TensorLike):
        return value
    return _t(np.asarray(value).astype(dtype) if isinstance(value, np.ndarray) else value, dtype)


def _float_dtype(dtype, what="dtype"):
    dtype = _as_dtype(dtype)
    if dtype not in _FLOATS:
        # TF fails converting the default mean 0.0 to the dtype: a TypeError.
        raise TypeError(f"argument `{what}` must be a floating dtype, got {dtype}")
    return dtype


def _key_data(key):
    return jax.random.key_data(key) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else key


# -- the samplers: each one recorded op of (key, parameters) ------------------------
def _affine_normal(key, shape, dtype, mean, stddev):
    return jax.random.normal(key, shape, dtype) * stddev + mean


def _affine_truncated(key, shape, dtype, mean, stddev):
    return jax.random.truncated_normal(key, -2.0, 2.0, shape, dtype) * stddev + mean


def _affine_uniform(key, shape, dtype, minval, maxval):
    return jax.random.uniform(key, shape, dtype) * (maxval - minval) + minval


def _randint(key, shape, dtype, minval, maxval):
    return jax.random.randint(key, shape, minval, maxval, dtype)


def _full_int(key, shape, dtype):
    bits = jax.random.bits(key, shape, jnp.uint64 if jnp.dtype(dtype).itemsize == 8 else jnp.uint32)
    return bits.astype(dtype)


def _gamma(key, shape, alpha, beta):
    # jax.random.gamma differentiates in alpha by implicit reparameterization,
    # the derivative TF's RandomGammaGrad computes.
    a = jnp.broadcast_to(alpha, shape)
    return jax.random.gamma(key, a, shape, a.dtype) / beta


def _poisson_samples_fn(key, lam, shape, dtype):
    # The zero term joins the samples to ``lam`` (the draw itself is integer
    # arithmetic, which cuts the chain), so a gradient reaches the backward
    # below and raises, as TF's, instead of being None.
    tie = 0 * jnp.minimum(jnp.abs(lam), 1)
    return (jax.random.poisson(key, lam, shape) + tie).astype(dtype)


_poisson_samples = jax.custom_vjp(_poisson_samples_fn, nondiff_argnums=(2, 3))


def _poisson_fwd(key, lam, shape, dtype):
    return _poisson_samples_fn(key, lam, shape, dtype), None


def _poisson_bwd(shape, dtype, res, g):
    raise LookupError("gradient registry has no entry for: RandomPoissonV2 (TensorFlow "
                      "registers no gradient for tf.random.poisson)")


_poisson_samples.defvjp(_poisson_fwd, _poisson_bwd)


def _poisson_fn(key, lam, shape, dtype):
    return _poisson_samples(key, jnp.broadcast_to(lam, shape).astype(jnp.float32), shape, dtype)


def _categorical(key, logits, num_samples, dtype):
    out = jax.random.categorical(key, logits[:, None, :], axis=-1,
                                 shape=(logits.shape[0], num_samples))
    return out.astype(dtype)


def _binomial(key, shape, counts, probs, dtype):
    c = jnp.broadcast_to(counts, shape).astype(jnp.float32)
    p = jnp.broadcast_to(probs, shape).astype(jnp.float32)
    return jax.random.binomial(key, c, p, shape).astype(dtype)


def _parameterized_truncated(key, shape, dtype, mean, stddev, minval, maxval):
    # Standardized bounds from the parameters' values only: TF's gradient
    # (implicit reparameterization) gives d/dmean = 1 and d/dstddev = the
    # standardized sample, and the bounds' gradients through the inverse CDF.
    m, s = jax.lax.stop_gradient(mean), jax.lax.stop_gradient(stddev)
    lo = jnp.broadcast_to((minval - m) / s, shape)
    hi = jnp.broadcast_to((maxval - m) / s, shape)
    z = jax.random.truncated_normal(key, lo, hi, shape, dtype)
    return z * stddev + mean


def _permute(key, x):
    return jax.random.permutation(key, x, axis=0)


def _sample(fn, key, *args, constant=False):
    return _call(fn, (_key_data(key),) + args, constant_output=constant)


def _with_key(fn):
    def f(key, *a):
        return fn(jax.random.wrap_key_data(key) if key.dtype == jnp.uint32 else key, *a)
    f.__name__ = fn.__name__
    return f


_SAMPLERS = {f.__name__: _with_key(f) for f in (
    _affine_normal, _affine_truncated, _affine_uniform, _randint, _full_int, _gamma,
    _poisson_fn, _categorical, _binomial, _parameterized_truncated, _permute)}


def _s(name):
    return _SAMPLERS[name]


# -- the stateful ops ---------------------------------------------------------------
def normal(shape, mean=0.0, stddev=1.0, dtype="float32", seed=None, name=None):
    """Normal samples of ``shape`` (differentiable in ``mean`` and ``stddev``)."""
    dtype = _float_dtype(dtype)
    return _normal(_next_key(seed), shape, mean, stddev, dtype)


def _normal(key, shape, mean, stddev, dtype):
    return _sample(_s("_affine_normal"), key, _shape(shape), dtype.name,
                   _param(mean, dtype, "mean"), _param(stddev, dtype, "stddev"))


def uniform(shape, minval=0, maxval=None, dtype="float32", seed=None, name=None):
    """Uniform samples in ``[minval, maxval)``; an integer ``dtype`` needs ``maxval``."""
    return _uniform(_next_key(seed), shape, minval, maxval, dtype)


_UNIFORM_DTYPES = _FLOATS + (np.dtype("int32"), np.dtype("int64"))


def _uniform(key, shape, minval, maxval, dtype, stateless=False):
    dtype = _as_dtype(dtype)
    if dtype not in _UNIFORM_DTYPES and not (stateless and dtype in (np.dtype("uint32"),
                                                                     np.dtype("uint64"))):
        raise ValueError(f"argument `dtype` got invalid value {dtype}; accepted dtypes are "
                         "float16, bfloat16, float32, float64, int32, int64")
    shape = _shape(shape)
    if np.issubdtype(dtype, np.integer):
        if stateless and minval is None and maxval is None:
            return _sample(_s("_full_int"), key, shape, dtype.name, constant=True)
        if maxval is None or minval is None:
            raise ValueError(f"for an integer dtype {dtype}, `minval` and `maxval` must be both "
                             f"None or both not None (Must specify maxval for integer dtype); "
                             f"got minval={minval} and maxval={maxval}")
        lo, hi = _param(minval, dtype, "minval"), _param(maxval, dtype, "maxval")
        vlo, vhi = _concrete(lo), _concrete(hi)
        if vlo is not None and vhi is not None and np.any(vlo >= vhi) and np.prod(shape) > 0:
            raise InvalidArgumentError(f"Need minval < maxval, got {vlo} >= {vhi}")
        return _sample(_s("_randint"), key, shape, dtype.name, lo, hi, constant=True)
    return _sample(_s("_affine_uniform"), key, shape, dtype.name,
                   _param(minval, dtype, "minval"), _param(1.0 if maxval is None else maxval,
                                                           dtype, "maxval"))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype="float32", seed=None, name=None):
    """Normal samples redrawn beyond two standard deviations (TF's rule)."""
    dtype = _float_dtype(dtype)
    return _truncated(_next_key(seed), shape, mean, stddev, dtype)


def _truncated(key, shape, mean, stddev, dtype):
    return _sample(_s("_affine_truncated"), key, _shape(shape), dtype.name,
                   _param(mean, dtype, "mean"), _param(stddev, dtype, "stddev"))


def shuffle(value, seed=None, name=None):
    """A permutation of ``value`` along its first axis (no gradient, as TF)."""
    v = _t(value)
    if v.ndim == 0:
        return v
    return _sample(_s("_permute"), _next_key(seed), v, constant=True)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """``num_samples`` class indices per row of ``logits`` ([batch, classes]),
    drawn with probabilities ``softmax(logits)``: int64 [batch, num_samples]."""
    return _categorical_from(_next_key(seed), logits, num_samples, dtype)


def _categorical_from(key, logits, num_samples, dtype):
    logits = _t(logits)
    if logits.ndim != 2:
        raise InvalidArgumentError(f"logits should be a matrix, got shape {list(logits.shape)}")
    dtype = np.dtype("int64") if dtype is None else _as_dtype(dtype)
    if dtype not in (np.dtype("int32"), np.dtype("int64")):
        raise TypeError(f"argument `dtype` must be int32 or int64, got {dtype}")
    if isinstance(num_samples, _TensorLike):
        num_samples = _concrete(num_samples, "num_samples")
    return _sample(_s("_categorical"), key, logits, int(num_samples), dtype.name, constant=True)


def gamma(shape, alpha, beta=None, dtype="float32", seed=None, name=None):
    """Gamma(alpha, beta) samples of shape ``shape + broadcast(alpha, beta).shape``
    (``beta`` is the rate: the samples are Gamma(alpha, 1) / beta); the gradient
    in ``alpha`` is TF's implicit reparameterization."""
    dtype = _float_dtype(dtype)
    return _gamma_from(_next_key(seed), shape, alpha, beta, dtype, prepend=True)


def _gamma_from(key, shape, alpha, beta, dtype, prepend):
    a = _param(alpha, dtype, "alpha")
    b = _param(1.0 if beta is None else beta, dtype, "beta")
    shape = _shape(shape)
    if prepend:
        shape = shape + tuple(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))
    return _sample(_s("_gamma"), key, shape, a, b)


def poisson(shape, lam, dtype="float32", seed=None, name=None):
    """Poisson(lam) samples of shape ``shape + lam.shape``; a gradient through
    them raises LookupError, as in TF."""
    dtype = _as_dtype(dtype)
    lam = _t(lam)
    if not np.issubdtype(lam.dtype, np.floating):
        lam = lam.astype("float32")
    return _sample(_s("_poisson_fn"), _next_key(seed), lam,
                   _shape(shape) + tuple(lam.shape), dtype.name)


# -- TF's Philox: the stateless ops' and Generator's numbers --------------------------
# TF's CPU kernels (core/lib/random/philox_random.h, random_distributions.h,
# core/kernels/stateless_random_ops_v2.h) draw Philox4x32-10 blocks of four uint32
# words from a 64-bit key and a 128-bit counter; each distribution takes the words in
# order. Here a "kc" is uint32[6]: the key's two words, then the counter's four
# (low word first), so that no 64-bit JAX type is needed for the bits.
_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_SEED_SCRAMBLE_KEY = (0x3EC8F720, 0x02461E29)    # StatelessRandomGetKeyCounter's
_U32 = jnp.uint32


def _mulhilo(m, x):
    """The low and high words of the 64-bit product ``m * x`` (``m`` a constant):
    a uint64 product where JAX has 64-bit types (the facade's calls), else from
    16-bit halves in uint32 arithmetic (20 times slower on XLA's CPU)."""
    if jax.dtypes.canonicalize_dtype(jnp.uint64) == jnp.uint64:
        p = x.astype(jnp.uint64) * jnp.uint64(m)
        return p.astype(_U32), (p >> jnp.uint64(32)).astype(_U32)
    m_lo, m_hi = _U32(m & 0xFFFF), _U32(m >> 16)
    x_lo, x_hi = x & _U32(0xFFFF), x >> _U32(16)
    ll, lh, hl, hh = m_lo * x_lo, m_lo * x_hi, m_hi * x_lo, m_hi * x_hi
    mid = (ll >> _U32(16)) + (lh & _U32(0xFFFF)) + (hl & _U32(0xFFFF))
    return _U32(m) * x, hh + (lh >> _U32(16)) + (hl >> _U32(16)) + (mid >> _U32(16))


def _philox_blocks(kc, lo, hi=None):
    """Philox4x32-10 at the counters ``kc``'s counter + (``hi`` * 2**32 + ``lo``)
    (uint32 arrays of one shape): uint32 of that shape + [4]."""
    c0 = kc[2] + lo
    carry = (c0 < lo).astype(_U32)
    c1 = kc[3] + carry
    carry = c1 < carry
    if hi is not None:
        c1 = c1 + hi
        carry = carry | (c1 < hi)
    c2 = kc[4] + carry.astype(_U32)
    c3 = kc[5] + (carry & (c2 == 0)).astype(_U32)
    k0, k1 = kc[0], kc[1]
    for r in range(10):
        lo0, hi0 = _mulhilo(_PHILOX_M[0], c0)
        lo1, hi1 = _mulhilo(_PHILOX_M[1], c2)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        if r < 9:
            k0, k1 = k0 + _U32(_PHILOX_W[0]), k1 + _U32(_PHILOX_W[1])
    return jnp.stack([c0, c1, c2, c3], axis=-1)


def _philox_words(kc, n):
    """The first ``n`` words of the stream at ``kc``."""
    blocks = _philox_blocks(kc, jnp.arange(-(-n // 4), dtype=_U32))
    return blocks.reshape(-1)[:n]


def _seed_kc(seed):
    """TF's StatelessRandomGetKeyCounter: the seed's two int64 words (an int32 seed
    sign-extended) are a counter, hashed under a fixed key into the key and the
    counter's high half."""
    s = seed.astype(jnp.int32) if seed.dtype == jnp.int32 else seed
    if s.dtype == jnp.int32:
        words = jnp.stack([s.astype(_U32), jnp.where(s < 0, _U32(0xFFFFFFFF), _U32(0))], -1)
    else:
        words = jax.lax.bitcast_convert_type(s, _U32)
    kc = jnp.concatenate([jnp.asarray(_SEED_SCRAMBLE_KEY, _U32), words.reshape(-1)])
    mix = _philox_blocks(kc, _U32(0))
    return jnp.stack([mix[0], mix[1], _U32(0), _U32(0), mix[2], mix[3]])


_seed_kc_jit = jax.jit(_seed_kc)


def _state_kc(state, replica=None):
    """The kc of a Generator's int64 state [counter low, counter high, key]; in a
    strategy's replica ``replica`` (TF's Generator._preprocess_key) the key is
    hashed with the replica id as the counter."""
    words = jax.lax.bitcast_convert_type(state, _U32)       # [3, 2], low word first
    kc = jnp.concatenate([words[2], words[0], words[1]])
    if replica is not None:
        key = _philox_blocks(jnp.concatenate([kc[:2], jnp.asarray([replica, 0, 0, 0], _U32)]),
                             _U32(0))
        kc = jnp.concatenate([key[:2], kc[2:]])
    return kc


def _words_to_float(bits, dtype):
    """TF's uint32 -> [0, 1) conversions: the low 23 (float32), 10 (float16) or 7
    (bfloat16) bits as the mantissa of a number in [1, 2), less 1."""
    if dtype == np.dtype("float32"):
        f = jax.lax.bitcast_convert_type((bits & _U32(0x7FFFFF)) | _U32(0x3F800000), jnp.float32)
        return f - jnp.float32(1)
    if dtype == np.dtype("float16"):
        h = ((bits & _U32(0x3FF)) | _U32(15 << 10)).astype(jnp.uint16)
        return jax.lax.bitcast_convert_type(h, jnp.float16) - jnp.float16(1)
    if dtype == np.dtype(jnp.bfloat16):
        h = ((bits & _U32(0x7F)) | _U32(127 << 7)).astype(jnp.uint16)
        return jax.lax.bitcast_convert_type(h, jnp.bfloat16) - jnp.bfloat16(1)
    raise TypeError(f"no uint32 conversion to {dtype}")


def _pairs_to_double(x0, x1):
    """TF's Uint64ToDouble: 20 bits of ``x0`` and 32 of ``x1`` as the mantissa."""
    hi = (x0 & _U32(0xFFFFF)) | _U32(1023 << 20)
    return jax.lax.bitcast_convert_type(jnp.stack([x1, hi], -1), jnp.float64) - 1.0


def _box_muller(x0, x1):
    """TF's BoxMullerFloat: (sin, cos) * sqrt(-2 log u1). TF's kernel calls the C
    library's logf and sincosf, whose last bit is the library's (glibc 2.36's are not
    correctly rounded); their correctly rounded values are computed here (in float64
    where JAX has it), so a sample is TF's or one float32 ulp from it (about 1.5 %
    of them against TF on glibc 2.36)."""
    wide = jnp.float64 if jax.dtypes.canonicalize_dtype(jnp.float64) == jnp.float64 \
        else jnp.float32
    u1 = jnp.maximum(_words_to_float(x0, np.dtype("float32")), jnp.float32(1e-7))
    v1 = (2 * np.pi * _words_to_float(x1, np.dtype("float32")).astype(wide)).astype(jnp.float32)
    u2 = jnp.sqrt(jnp.float32(-2) * jnp.log(u1.astype(wide)).astype(jnp.float32))
    v1 = v1.astype(wide)
    return jnp.sin(v1).astype(jnp.float32) * u2, jnp.cos(v1).astype(jnp.float32) * u2


def _box_muller_double(x0, x1, x2, x3):
    u1 = jnp.maximum(_pairs_to_double(x0, x1), 1e-7)
    v1 = 2 * np.pi * _pairs_to_double(x2, x3)
    u2 = jnp.sqrt(-2.0 * jnp.log(u1))
    return jnp.sin(v1) * u2, jnp.cos(v1) * u2


def _px_uniform01(kc, n, dtype):
    if dtype == np.dtype("float64"):
        w = _philox_words(kc, 2 * n).reshape(n, 2)
        return _pairs_to_double(w[:, 0], w[:, 1])
    return _words_to_float(_philox_words(kc, n), dtype)


def _px_normal01(kc, n, dtype):
    if dtype == np.dtype("float64"):
        w = _philox_words(kc, 4 * (-(-n // 2))).reshape(-1, 4)
        d0, d1 = _box_muller_double(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
        return jnp.stack([d0, d1], -1).reshape(-1)[:n]
    w = _philox_words(kc, 2 * (-(-n // 2))).reshape(-1, 2)
    f0, f1 = _box_muller(w[:, 0], w[:, 1])
    return jnp.stack([f0, f1], -1).reshape(-1)[:n].astype(dtype)


# TF's truncated normal takes a variable number of words: each group of outputs
# (4, or 2 for float64) starts at its own counter, the group's index * 256 blocks
# (FillPhiloxRandomTask's kReservedSamplesPerOutput), and keeps the first samples
# within 2 of 0 (about 95.4 % are). 16 candidates a group are drawn here (4 blocks;
# 8 for float64): fewer than the group's need among them has a chance of about
# 2e-15 a group (float64: 1e-19).
def _px_truncated01(kc, n, dtype):
    double = dtype == np.dtype("float64")
    group = 2 if double else 4
    groups = -(-n // group)
    g = jnp.arange(groups, dtype=_U32)[:, None]
    blocks_per_group = 256 * group // 4
    shift = int(np.log2(blocks_per_group))
    lo = (g << _U32(shift)) + jnp.arange(8 if double else 4, dtype=_U32)[None, :]
    hi = g >> _U32(32 - shift)
    w = _philox_blocks(kc, lo, hi).reshape(groups, -1)
    if double:
        w = w.reshape(groups, -1, 4)
        a, b = _box_muller_double(w[..., 0], w[..., 1], w[..., 2], w[..., 3])
    else:
        w = w.reshape(groups, -1, 2)
        a, b = _box_muller(w[..., 0], w[..., 1])
    cand = jnp.stack([a, b], -1).reshape(groups, -1)
    ok = jnp.abs(cand) < 2
    rank = jnp.cumsum(ok, axis=1) - 1
    picks = [jnp.sum(jnp.where(ok & (rank == k), cand, 0), axis=1) for k in range(group)]
    return jnp.stack(picks, -1).reshape(-1)[:n].astype(dtype)


def _px_int(kc, n, dtype, lo, hi):
    """TF's UniformDistribution for integers: lo + bits % (hi - lo), the bits one
    word (int32) or two (int64, low word first)."""
    if np.dtype(dtype).itemsize == 8:
        w = _philox_words(kc, 2 * n).reshape(n, 2)
        bits = jax.lax.bitcast_convert_type(w, jnp.uint64)
        span = hi.astype(jnp.uint64) - lo.astype(jnp.uint64)
        return (lo.astype(jnp.uint64) + bits % span).astype(dtype)
    bits = _philox_words(kc, n)
    span = hi.astype(_U32) - lo.astype(_U32)
    return (lo.astype(_U32) + bits % span).astype(dtype)


def _px_full_int(kc, n, dtype):
    if np.dtype(dtype).itemsize == 8:
        w = _philox_words(kc, 2 * n).reshape(n, 2)
        return jax.lax.bitcast_convert_type(w, jnp.dtype(dtype))
    return jax.lax.bitcast_convert_type(_philox_words(kc, n), jnp.dtype(dtype))


def _px_sample(kind, kc, shape, dtype, *params):
    """One recorded op: TF's ``kind`` of sample of ``shape`` from ``kc``, scaled as
    TF's Python wrappers do (``rnd * (maxval - minval) + minval``, ``rnd * stddev +
    mean``)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    # Computed in the same XLA program (a traced seed), the key and counter would be
    # fused into, and recomputed for, every block (3x the time).
    kc = jax.lax.optimization_barrier(kc)
    if kind == "uniform":
        lo, hi = params
        return (_px_uniform01(kc, n, dtype).reshape(shape) * (hi - lo) + lo).astype(dtype)
    if kind == "int":
        return _px_int(kc, n, dtype, *params).reshape(shape)
    if kind == "full_int":
        return _px_full_int(kc, n, dtype).reshape(shape)
    mean, stddev = params
    rnd = (_px_normal01 if kind == "normal" else _px_truncated01)(kc, n, dtype)
    return (rnd.reshape(shape) * stddev + mean).astype(dtype)


# -- the stateless ops --------------------------------------------------------------
def _checked_seed(seed):
    """``seed`` as a Tensor, checked as TF's stateless ops check it, and its value
    (None where a tf.function traces it)."""
    s = _t(seed)
    if s.dtype not in (np.dtype("int32"), np.dtype("int64")):
        raise InvalidArgumentError(f"argument `seed` must be an int32 or int64 tensor, "
                                   f"got {s.dtype}")
    if tuple(s.shape) != (2,):
        raise InvalidArgumentError(f"seed must have shape [2], not {list(s.shape)}")
    return s, _concrete(s)


def _seed_key(seed):
    s, v = _checked_seed(seed)
    if v is None:       # traced by tf.function: the key is computed in the op
        return _call(_key_from_seed, (s,), constant_output=True)._value
    return _key_from_seed(jnp.asarray(v))


def _key_from_seed(s):
    # Both 32-bit halves of an int64 seed count: (1, 2) and (1 + 2**32, 2) differ.
    words = jax.lax.bitcast_convert_type(s, jnp.uint32)
    if s.dtype != jnp.int64:
        return words
    lo, hi = words[:, 0], words[:, 1]
    folded = jax.random.fold_in(jax.random.fold_in(lo, hi[0]), hi[1])
    return jnp.where(jnp.any(hi != 0), folded, lo)


def _stateless_alg(alg):
    if _alg(alg) is Algorithm.THREEFRY:
        # TF's CPU kernels have Philox only (its ThreeFry key and counter are one
        # word each, which they refuse).
        raise InvalidArgumentError("counter must be a vector with length at least 2; got "
                                   "shape: [1] (alg='threefry': TF's CPU kernels run Philox "
                                   "only; use 'philox' or 'auto_select')")


def _kc_of_seed(seed):
    """The Philox key and counter (uint32[6]) TF's stateless ops derive from ``seed``."""
    s, v = _checked_seed(seed)
    if v is None:       # traced by tf.function: the key is computed in the op
        return _call(_seed_kc, (s,), constant_output=True)._value
    return _seed_kc_jit(jnp.asarray(v))


def _px_normal(kc, shape, mean, stddev, dtype, kind="normal"):
    return _call(_px_sample, (kind, kc, _shape(shape), dtype.name,
                              _param(mean, dtype, "mean"), _param(stddev, dtype, "stddev")))


def _px_uniform(kc, shape, minval, maxval, dtype, stateless=True):
    """TF's uniform samples from ``kc``: floats ``rnd * (maxval - minval) + minval``,
    integers ``minval + bits % (maxval - minval)``, or full-range integers."""
    dtype = _as_dtype(dtype)
    if dtype not in _UNIFORM_DTYPES and not (stateless and dtype in (np.dtype("uint32"),
                                                                     np.dtype("uint64"))):
        raise ValueError(f"argument `dtype` got invalid value {dtype}; accepted dtypes are "
                         "float16, bfloat16, float32, float64, int32, int64")
    shape = _shape(shape)
    if np.issubdtype(dtype, np.integer):
        if minval is None and maxval is None:
            return _call(_px_sample, ("full_int", kc, shape, dtype.name), constant_output=True)
        if maxval is None or minval is None:
            raise ValueError(f"for an integer dtype {dtype}, `minval` and `maxval` must be both "
                             f"None or both not None (Must specify maxval for integer dtype); "
                             f"got minval={minval} and maxval={maxval}")
        if dtype in (np.dtype("uint32"), np.dtype("uint64")):
            raise ValueError(f"argument `dtype` got invalid value {dtype} when argument "
                             "`minval` is not None; only int32 and int64 are supported")
        lo, hi = _param(minval, dtype, "minval"), _param(maxval, dtype, "maxval")
        vlo, vhi = _concrete(lo), _concrete(hi)
        if vlo is not None and vhi is not None and np.any(vlo >= vhi) and np.prod(shape) > 0:
            raise InvalidArgumentError(f"Need minval < maxval, got {vlo} >= {vhi}")
        return _call(_px_sample, ("int", kc, shape, dtype.name, lo, hi), constant_output=True)
    return _call(_px_sample, ("uniform", kc, shape, dtype.name, _param(minval, dtype, "minval"),
                              _param(1.0 if maxval is None else maxval, dtype, "maxval")))


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype="float32", name=None,
                     alg="auto_select"):
    """TF's normal samples for ``seed`` (shape [2], int32 or int64): Philox as TF's
    CPU kernel, Box-Muller on pairs of words.

    >>> import eagertape.tf as tf
    >>> tf.random.stateless_normal([3], seed=[1, 2]).numpy()
    array([0.5441101 , 0.20738031, 0.07356432], dtype=float32)
    """
    _stateless_alg(alg)
    return _px_normal(_kc_of_seed(seed), shape, mean, stddev, _float_dtype(dtype))


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype="float32", name=None,
                               alg="auto_select"):
    """TF's truncated normal samples for ``seed``: normal ones within two standard
    deviations, redrawn beyond (TF's rejection, group by group)."""
    _stateless_alg(alg)
    return _px_normal(_kc_of_seed(seed), shape, mean, stddev, _float_dtype(dtype), "truncated")


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype="float32", name=None,
                      alg="auto_select"):
    """TF's uniform samples for ``seed``; an integer dtype with ``minval`` and
    ``maxval`` both None gives integers over the dtype's full range.

    >>> import eagertape.tf as tf
    >>> tf.random.stateless_uniform([2], seed=[1, 2], minval=0, maxval=10,
    ...                             dtype=tf.int32).numpy()
    array([0, 9], dtype=int32)
    """
    _stateless_alg(alg)
    return _px_uniform(_kc_of_seed(seed), shape, minval, maxval, dtype)


def stateless_categorical(logits, num_samples, seed, dtype="int64", name=None):
    return _categorical_from(_seed_key(seed), logits, num_samples, dtype)


def stateless_binomial(shape, seed, counts, probs, output_dtype="int32", name=None):
    """Binomial(counts, probs) samples of ``shape`` (the parameters broadcast to it)."""
    dtype = _as_dtype(output_dtype)
    return _sample(_s("_binomial"), _seed_key(seed), _shape(shape), _t(counts), _t(probs),
                   dtype.name, constant=True)


def stateless_gamma(shape, seed, alpha, beta=None, dtype="float32", name=None):
    """Gamma samples of ``shape`` (``alpha`` and ``beta`` broadcast to it)."""
    return _gamma_from(_seed_key(seed), shape, alpha, beta, _float_dtype(dtype), prepend=False)


def stateless_poisson(shape, seed, lam, dtype="int32", name=None):
    """Poisson samples of ``shape`` (``lam`` broadcast to it); no gradient, as TF."""
    lam = _t(lam)
    key = _key_data(_seed_key(seed))
    return _call(_stateless_poisson, (key, lam, _shape(shape), _as_dtype(dtype).name),
                 constant_output=True)


def _stateless_poisson(key, lam, shape, dtype):
    key = jax.random.wrap_key_data(key)
    return jax.random.poisson(key, jnp.broadcast_to(lam, shape).astype(jnp.float32),
                              shape).astype(dtype)


def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0, minvals=-2.0,
                                             maxvals=2.0, name=None):
    """Normal(means, stddevs) samples truncated to ``[minvals, maxvals]``, of
    ``shape``; differentiable in all four parameters as TF's implicit gradient."""
    m = _t(means)
    dtype = m.dtype
    params = [m] + [_param(p, dtype, n) for p, n in
                    ((stddevs, "stddevs"), (minvals, "minvals"), (maxvals, "maxvals"))]
    return _sample(_s("_parameterized_truncated"), _seed_key(seed), _shape(shape), dtype.name,
                   *params)


def split(seed, num=2, alg="auto_select"):
    """``num`` new seeds ([num, 2], ``seed``'s dtype) from ``seed``: TF's, full-range
    integers drawn with ``seed``.

    >>> import eagertape.tf as tf
    >>> tf.random.split([1, 2], num=2).numpy()
    array([[1105988140, 1738052849],
           [-335576002,  370444179]], dtype=int32)
    """
    s = _t(seed)
    return stateless_uniform([int(_concrete(_t(num), "num")), 2], s, minval=None,
                             maxval=None, dtype=s.dtype, alg=alg)


def fold_in(seed, data, alg="auto_select"):
    """A new seed from ``seed`` and the integer ``data``: TF's [a full-range integer
    drawn with ``seed``, ``data``], of ``data``'s dtype."""
    d = _t(data)
    if d.dtype not in (np.dtype("int32"), np.dtype("int64")):
        raise InvalidArgumentError(f"argument `data` must be an int32 or int64 scalar, "
                                   f"got {d.dtype}")
    first = stateless_uniform([], seed, minval=None, maxval=None, dtype=d.dtype, alg=alg)
    return _call(_stack2, (first, d), constant_output=True)


def _stack2(a, b):
    return jnp.stack([a, b])


def stateless_shuffle(value, seed, alg="auto_select", name=None):
    v = _t(value)
    if v.ndim == 0:
        raise InvalidArgumentError("value must have at least one dimension")
    return _sample(_s("_permute"), _seed_key(seed), v, constant=True)


def index_shuffle(index, seed, max_index):
    """Where each of ``index`` goes under a permutation of ``[0, max_index]`` fixed
    by ``seed`` (shape [2]); ``max_index`` below 2**24 (the permutation is drawn
    whole here, where TF computes it per index)."""
    n = int(_concrete(_t(max_index), "max_index")) + 1
    if n > 2 ** 24:
        raise ValueError("eagertape's index_shuffle draws the permutation whole: "
                         "max_index must be below 2**24")
    key = jax.random.wrap_key_data(_key_data(_seed_key(seed)))
    perm = jax.random.permutation(key, n)
    i = _t(index)
    return _wrap(perm[jnp.asarray(_concrete(i, "index"))].astype(i.dtype))


# -- Generator ------------------------------------------------------------------------
class Algorithm(enum.Enum):
    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _alg(alg):
    if alg is None:
        return Algorithm.PHILOX
    if isinstance(alg, Algorithm):
        return alg
    if isinstance(alg, str):
        names = {"philox": Algorithm.PHILOX, "threefry": Algorithm.THREEFRY,
                 "auto_select": Algorithm.AUTO_SELECT}
        if alg.lower() in names:
            return names[alg.lower()]
    elif isinstance(alg, (int, np.integer)) and int(alg) in (1, 2, 3):
        return Algorithm(int(alg))
    raise ValueError(f"Argument `alg` got unsupported value {alg!r}. Supported values are "
                     "'philox', 'threefry' and 'auto_select'")


def _state_size(alg):
    return 2 if _alg(alg) is Algorithm.THREEFRY else 3


def create_rng_state(seed, alg):
    """The int64 state TF's Generator starts from for ``seed``: an int cut into
    64-bit words, or a 1-D array, zero-padded on the left to the algorithm's size.

    >>> import eagertape.tf as tf
    >>> tf.random.create_rng_state(1234, "philox").numpy()
    array([1234,    0,    0])
    """
    return _wrap(jnp.asarray(_state_words(seed, alg)))


def _state_words(seed, alg):
    size = _state_size(alg)
    if isinstance(seed, _TensorLike):
        seed = _concrete(seed, "seed")
    if isinstance(seed, (int, np.integer)):
        seed, words = int(seed), []
        for _ in range(size):
            words.append(seed & (2 ** 64 - 1))
            seed >>= 64
    else:
        words = [int(w) for w in np.reshape(np.asarray(seed), -1)]
    words = [w - 2 ** 64 if w >= 2 ** 63 else w for w in words][:size]
    words = [0] * (size - len(words)) + words if len(words) < size else words
    return np.asarray(words, dtype=np.int64)


def _advance(state, delta):
    """A Generator's state after a draw of ``delta`` samples: TF's RngReadAndSkip adds
    ``delta * 256`` to the 128-bit counter (the state's first two words)."""
    u = state.astype(jnp.uint64)
    d = jnp.uint64(delta) * jnp.uint64(256)
    c0 = u[0] + d
    c1 = u[1] + (c0 < d).astype(jnp.uint64)
    return jnp.stack([c0, c1, u[2]]).astype(jnp.int64)


def _retreat(state, delta):
    u = state.astype(jnp.uint64)
    d = jnp.uint64(delta) * jnp.uint64(256)
    c0 = u[0] - d
    c1 = u[1] - (u[0] < d).astype(jnp.uint64)
    return jnp.stack([c0, c1, u[2]]).astype(jnp.int64)


class Generator(_Module):
    """A random number generator with its own state (TF's ``tf.random.Generator``),
    drawing TF's numbers.

    Its state is a Variable (int64 [3]: the Philox counter's two words, then the
    key), as TF's: a draw of n samples takes the key and counter TF's kernels take
    and adds ``n * 256`` to the counter, in eager code and in a ``tf.function``; a
    ``tf.train.Checkpoint`` or SavedModel keeps it.

    >>> import eagertape.tf as tf
    >>> g = tf.random.Generator.from_seed(1)
    >>> g.normal([2]).numpy()
    array([ 0.43842274, -0.53439844], dtype=float32)
    >>> g.state.numpy()
    array([513,   0,   0])
    """

    _TF_MODULE_IGNORED_PROPERTIES = _Module._TF_MODULE_IGNORED_PROPERTIES | frozenset((
        "_alg", "_strategy", "_name", "_name_scope"))

    def __init__(self, copy_from=None, state=None, alg=None):
        super().__init__(name="generator")
        if copy_from is not None:
            state, alg = copy_from.state.read_value(), copy_from.algorithm
        if state is None:
            raise ValueError("argument `state` must be given (or use Generator.from_seed / "
                             "from_non_deterministic_state)")
        self._alg = _alg(alg)
        # TF hashes the key with the replica id in a replica of the strategy the
        # Generator was made in (Generator._preprocess_key). (tf.distribute is looked
        # up, not imported: it imports tf.data, which imports this module; before it
        # is imported no strategy can be in force.)
        _distribute = _distribute_module()
        self._strategy = _distribute.get_strategy() \
            if _distribute is not None and _distribute.has_strategy() else None
        with _extend.init_scope():
            self._state_var = Variable(self._checked(state), trainable=False, dtype="int64")

    def _checked(self, state):
        if isinstance(state, _TensorLike):
            state = _concrete(state, "state")
        s = np.reshape(np.asarray(state), -1)
        if s.size != _state_size(self._alg):
            raise ValueError(f"state must have shape [{_state_size(self._alg)}] for "
                             f"{self._alg.name}, got {list(s.shape)}")
        words = [int(w) for w in s]
        return np.asarray([w - 2 ** 64 if w >= 2 ** 63 else w for w in words], np.int64)

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A Generator whose state is ``create_rng_state(seed, alg)``."""
        return cls(state=_state_words(seed, _alg(alg)), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        if _config._op_determinism_enabled():
            raise RuntimeError('"from_non_deterministic_state" cannot be called when '
                               "determinism is enabled.")
        words = np.random.SeedSequence().generate_state(_state_size(alg), np.uint64)
        return cls(state=words.view(np.int64), alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        counter = np.reshape(np.asarray(counter, dtype=np.int64), -1)
        key = np.reshape(np.asarray(key, dtype=np.int64), -1)
        return cls(state=np.concatenate([counter, key]), alg=alg)

    @property
    def state(self):
        """The state Variable (int64 [3] for Philox)."""
        return self._state_var

    @property
    def algorithm(self):
        return self._alg.value

    @property
    def key(self):
        return self._state_var[-1]

    def reset(self, state):
        self._state_var.assign(self._checked(state))

    def reset_from_seed(self, seed):
        self.reset(_state_words(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        counter = np.reshape(np.asarray(counter, dtype=np.int64), -1)
        key = np.reshape(np.asarray(key, dtype=np.int64), -1)
        self.reset(np.concatenate([counter, key]))

    def _replica(self):
        if self._strategy is None:
            return None
        _distribute = _distribute_module()
        ctx = _distribute.get_replica_context()
        if ctx is None or _distribute.get_strategy() is not self._strategy:
            return None
        rid = getattr(ctx, "_id", None)     # a Python int, also while a function traces
        return int(_concrete(_t(ctx.replica_id_in_sync_group), "replica id")) if rid is None \
            else int(rid)

    def _read_and_skip(self, delta):
        """The state before a draw of ``delta`` samples (the counter advanced)."""
        var = self._state_var
        replica = self._replica()
        # TF's replicas each advance their own copy of the state, alike; here the
        # replicas run one after another on one Variable, so replica 0 advances
        # it and the others take the state it started from.
        move = _advance if not replica else _retreat
        if _extend.function_trace() is None:
            old = var.read_value()._value
            if move is _advance:
                var.assign(_wrap(_advance(old, delta)))
                return old
            return _retreat(old, delta)
        with _extend.unrecorded(watch_reads=False):
            old = var.read_value()._value
            if move is _advance:
                var.assign(_wrap(_advance(old, delta)))
                return old
            return _retreat(old, delta)

    def _kc(self, shape):
        if self._alg is Algorithm.THREEFRY:
            from .errors import UnimplementedError
            raise UnimplementedError(None, None, "Non-XLA devices don't support the ThreeFry "
                                     "algorithm.")
        delta = int(np.prod(_shape(shape), dtype=np.int64))
        old = self._read_and_skip(delta)
        replica = self._replica()
        return _state_kc(old, replica)

    def skip(self, delta):
        """Advance the counter as a draw of ``delta`` samples would; the state before."""
        return _wrap(self._read_and_skip(int(_concrete(_t(delta), "delta"))))

    def normal(self, shape, mean=0.0, stddev=1.0, dtype="float32", name=None):
        """TF's normal samples from this generator's key and counter."""
        dtype = _float_dtype(dtype)
        return _px_normal(self._kc(shape), shape, mean, stddev, dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype="float32", name=None):
        dtype = _float_dtype(dtype)
        return _px_normal(self._kc(shape), shape, mean, stddev, dtype, "truncated")

    def uniform(self, shape, minval=0, maxval=None, dtype="float32", name=None):
        """TF's uniform samples (an integer dtype: ``minval`` and ``maxval`` both
        given, or both None for the full range)."""
        dtype = _as_dtype(dtype)
        if np.issubdtype(dtype, np.integer) and (minval is None) != (maxval is None):
            raise ValueError(f"For integer dtype {dtype}, minval and maxval must be both "
                             f"`None` or both non-`None`; got minval={minval} and "
                             f"maxval={maxval}")
        return _px_uniform(self._kc(shape), shape, minval, maxval, dtype)

    def uniform_full_int(self, shape, dtype="uint64", name=None):
        return _px_uniform(self._kc(shape), shape, None, None, _as_dtype(dtype))

    def binomial(self, shape, counts, probs, dtype="int32", name=None):
        """Binomial samples (JAX's algorithm, keyed by this generator's Philox draw:
        not TF's numbers)."""
        kc = self._kc(shape)
        key = _call(_key_from_kc, (kc,), constant_output=True)._value
        return _sample(_s("_binomial"), key, _shape(shape), _t(counts), _t(probs),
                       _as_dtype(dtype).name, constant=True)

    def make_seeds(self, count=1):
        """``count`` seeds for the stateless ops: int64 [2, count], TF's (full-range
        int64 keys over zeros)."""
        keys = self.uniform_full_int([int(count)], "int64")
        return _call(_keys_over_zeros, (keys,), constant_output=True)

    def split(self, count=1):
        """``count`` new generators, each with state [0, 0, key] for a key drawn here
        (TF's)."""
        keys = np.asarray(_concrete(self.uniform_full_int([int(count)], "int64"), "keys"))
        return [Generator(state=np.asarray([0] * (_state_size(self._alg) - 1) + [int(k)],
                                           np.int64), alg=self._alg) for k in keys]


def _keys_over_zeros(keys):
    return jnp.stack([keys, jnp.zeros_like(keys)])


def _key_from_kc(kc):
    return jax.random.key_data(jax.random.fold_in(jax.random.wrap_key_data(kc[:2]), kc[4]))


class _GlobalGenerator(threading.local):
    generator = None


_global = _GlobalGenerator()


def get_global_generator():
    """The global Generator (one per thread here; from a non-deterministic state,
    as TF's: ``set_seed`` does not seed it, ``set_global_generator`` replaces it)."""
    if _global.generator is None:
        if _config._op_determinism_enabled():
            raise RuntimeError('"get_global_generator" cannot be called if determinism is '
                               'enabled, unless "set_global_generator" has already been '
                               'called. Please call "set_global_generator" first.')
        with _extend.init_scope():
            _global.generator = Generator.from_non_deterministic_state()
    return _global.generator


def set_global_generator(generator):
    """Make ``generator`` the global Generator (a seeded one makes
    ``get_global_generator``'s draws TF's).

    >>> import eagertape.tf as tf
    >>> tf.random.set_global_generator(tf.random.Generator.from_seed(1))
    >>> float(tf.random.get_global_generator().normal([]))
    0.4384227395057678
    """
    if not isinstance(generator, Generator):
        raise TypeError(f"argument `generator` must be a tf.random.Generator, got "
                        f"{type(generator).__name__}")
    _global.generator = generator


# -- candidate samplers (word2vec-style sampled losses) --------------------------------
def _candidates(true_classes, num_true, num_sampled, unique, range_max, seed, probs):
    """Draw ``num_sampled`` classes with probabilities ``probs`` (distinct ones if
    ``unique``) and the expected counts TF reports: ``n * p`` drawing with
    replacement, ``1 - (1 - p)**tries`` drawing distinct ones in ``tries`` draws."""
    if unique and num_sampled > range_max:
        raise InvalidArgumentError(f"Sampler's range ({range_max}) is too small to sample "
                                   f"{num_sampled} unique candidates")
    key = _next_key(seed)
    rng = np.random.default_rng(np.asarray(jax.random.key_data(key)
                                           if jnp.issubdtype(key.dtype, jax.dtypes.prng_key)
                                           else key).astype(np.uint32))
    if unique:
        picked, seen, tries = [], set(), 0
        while len(picked) < num_sampled:
            batch = rng.choice(range_max, size=max(num_sampled, 16), p=probs)
            for c in batch:
                tries += 1
                if int(c) not in seen:
                    seen.add(int(c))
                    picked.append(int(c))
                    if len(picked) == num_sampled:
                        break
        sampled = np.asarray(picked, dtype=np.int64)

        def expected(p):
            return -np.expm1(tries * np.log1p(-np.minimum(p, 1.0 - 1e-12)))
    else:
        sampled = rng.choice(range_max, size=num_sampled, p=probs).astype(np.int64)

        def expected(p):
            return num_sampled * p
    t = _t(true_classes)
    tv = np.asarray(_concrete(t, "true_classes"), dtype=np.int64)
    if tv.ndim != 2 or tv.shape[1] != num_true:
        raise InvalidArgumentError(f"true_classes must be a matrix with num_true={num_true} "
                                   f"columns, got shape {list(tv.shape)}")
    true_exp = expected(probs[tv]).astype(np.float32)
    samp_exp = expected(probs[sampled]).astype(np.float32)
    return _wrap(jnp.asarray(sampled)), _wrap(jnp.asarray(true_exp)), _wrap(jnp.asarray(samp_exp))


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                              seed=None, name=None):
    """Classes drawn uniformly from ``[0, range_max)``: (sampled_candidates int64
    [num_sampled], true_expected_count, sampled_expected_count) as TF's."""
    probs = np.full(range_max, 1.0 / range_max)
    return _candidates(true_classes, num_true, num_sampled, unique, range_max, seed, probs)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):
    """Classes drawn by Zipf's law, P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)."""
    c = np.arange(range_max, dtype=np.float64)
    probs = (np.log(c + 2) - np.log(c + 1)) / np.log(range_max + 1)
    return _candidates(true_classes, num_true, num_sampled, unique, range_max, seed, probs)


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None, name=None):
    """Classes drawn with probabilities ``unigrams ** distortion`` (normalized),
    after ``num_reserved_ids`` classes of probability 0. ``vocab_file`` and
    sharding are not supported here (a ValueError)."""
    if vocab_file or num_shards != 1:
        raise ValueError("eagertape's fixed_unigram_candidate_sampler takes `unigrams` only "
                         "(no vocab_file, no sharding)")
    w = np.concatenate([np.zeros(int(num_reserved_ids)),
                        np.asarray(list(unigrams), dtype=np.float64) ** distortion])
    if w.size != range_max:
        raise InvalidArgumentError(f"range_max ({range_max}) must equal num_reserved_ids + "
                                   f"len(unigrams) ({w.size})")
    return _candidates(true_classes, num_true, num_sampled, unique, range_max, seed, w / w.sum())


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Every class ``0 .. num_sampled - 1``, each with expected count 1."""
    t = _t(true_classes)
    shape = tuple(t.shape)
    return (_wrap(jnp.arange(num_sampled, dtype=jnp.int64)),
            _wrap(jnp.ones(shape, jnp.float32)), _wrap(jnp.ones((num_sampled,), jnp.float32)))


experimental = types.SimpleNamespace(
    Algorithm=Algorithm, Generator=Generator, create_rng_state=create_rng_state,
    get_global_generator=get_global_generator, set_global_generator=set_global_generator,
    index_shuffle=index_shuffle, stateless_fold_in=fold_in, stateless_shuffle=stateless_shuffle,
    stateless_split=split)


def _distribute_module():
    return sys.modules.get(__name__.rsplit(".", 1)[0] + ".distribute")
