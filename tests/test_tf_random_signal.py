"""``tf.random`` and ``tf.signal``, differential against TensorFlow 2.21.

tf.random cannot give TF's numbers (another PRNG), so its samples are checked
for their distributions (large samples, moments within several standard
errors), ranges, determinism under seeds, and against TF for dtypes, shapes,
error classes and which gradients exist (and their values where a sample
determines them). tf.signal is compared with TF value for value, with the
gradients of real scalars of its outputs.
"""
import builtins

import numpy as np
import pytest

import eagertape.tf as etf
import tf_oracle

tf = tf_oracle.require()    # TensorFlow, imported where a test reads it


def _np(t):
    return None if t is None else np.asarray(t.numpy() if hasattr(t, "numpy") else t)


# -- tf.random: dtypes and shapes as TF's ---------------------------------------------
RANDOM_SHAPES = {
    "uniform_int": lambda tf: tf.random.uniform([2, 3], maxval=10, dtype=tf.int32),
    "uniform_int64": lambda tf: tf.random.uniform([4], minval=-3, maxval=3, dtype=tf.int64),
    "uniform_f64": lambda tf: tf.random.uniform([2], dtype=tf.float64),
    "normal_f16": lambda tf: tf.random.normal([3, 1], dtype=tf.float16),
    "truncated": lambda tf: tf.random.truncated_normal([5], dtype=tf.float64),
    "gamma_shape": lambda tf: tf.random.gamma([2], [1.0, 2.0], [[1.0], [2.0], [3.0]]),
    "poisson": lambda tf: tf.random.poisson([2], [1.0, 3.0]),
    "poisson_int": lambda tf: tf.random.poisson([2, 2], 3.0, dtype=tf.int32),
    "categorical": lambda tf: tf.random.categorical([[1.0, 2.0], [0.0, 0.0]], 4),
    "categorical_int32": lambda tf: tf.random.categorical([[1.0, 2.0]], 3, dtype=tf.int32),
    "shuffle": lambda tf: tf.random.shuffle(tf.reshape(tf.range(6), [3, 2])),
    "shuffle_scalar": lambda tf: tf.random.shuffle(5.0),
    "s_uniform_int": lambda tf: tf.random.stateless_uniform([2], [1, 2], maxval=7, dtype=tf.int32),
    "s_uniform_full": lambda tf: tf.random.stateless_uniform([3], [1, 2], minval=None, maxval=None,
                                                             dtype="uint32"),
    "s_normal_int64_seed": lambda tf: tf.random.stateless_normal([2, 2], tf.constant([1, 2], tf.int64)),
    "s_truncated": lambda tf: tf.random.stateless_truncated_normal([3], [4, 5], dtype=tf.float64),
    "s_binomial": lambda tf: tf.random.stateless_binomial([3], [1, 2], 10.0, 0.5),
    "s_binomial_f": lambda tf: tf.random.stateless_binomial([3], [1, 2], 10.0, 0.5,
                                                            output_dtype=tf.float32),
    "s_gamma": lambda tf: tf.random.stateless_gamma([2, 3], [1, 2], [1.0, 2.0, 3.0]),
    "s_poisson": lambda tf: tf.random.stateless_poisson([3], [1, 2], 2.0),
    "s_poisson_f": lambda tf: tf.random.stateless_poisson([3], [1, 2], 2.0, dtype=tf.float32),
    "s_categorical": lambda tf: tf.random.stateless_categorical([[1.0, 2.0]], 3, [1, 2]),
    "s_ptn": lambda tf: tf.random.stateless_parameterized_truncated_normal([2, 3], [1, 2]),
    "split": lambda tf: tf.random.split([1, 2], 3),
    "split_int64": lambda tf: tf.random.split(tf.constant([1, 2], tf.int64)),
    "fold_in": lambda tf: tf.random.fold_in([1, 2], 3),
    "stateless_shuffle": lambda tf: tf.random.experimental.stateless_shuffle([1, 2, 3], [1, 2]),
    "index_shuffle": lambda tf: tf.random.experimental.index_shuffle(tf.range(4), [5, 9], 3),
    "create_rng_state": lambda tf: tf.random.create_rng_state(5, "philox"),
    "gen_normal": lambda tf: tf.random.Generator.from_seed(1).normal([2, 3]),
    "gen_uniform_int": lambda tf: tf.random.Generator.from_seed(1).uniform([2], maxval=5,
                                                                            dtype=tf.int32),
    "gen_binomial": lambda tf: tf.random.Generator.from_seed(1).binomial([2], 10.0, 0.5),
    "gen_make_seeds": lambda tf: tf.random.Generator.from_seed(1).make_seeds(3),
    "gen_full_int": lambda tf: tf.random.Generator.from_seed(1).uniform_full_int([2]),
    "gen_state": lambda tf: tf.random.Generator.from_seed(1).state,
    "all_candidates": lambda tf: tf.random.all_candidate_sampler([[1, 2]], 2, 4, True),
    "uniform_candidates": lambda tf: tf.random.uniform_candidate_sampler([[1, 2]], 2, 3, True, 10),
    "log_uniform_candidates": lambda tf: tf.random.log_uniform_candidate_sampler(
        [[1], [4]], 1, 5, False, 20),
    "fixed_unigram": lambda tf: tf.random.fixed_unigram_candidate_sampler(
        [[1]], 1, 2, True, 4, unigrams=[1.0, 2.0, 3.0, 4.0]),
}


def _listed(tf, program):
    out = program(tf)
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("name", sorted(RANDOM_SHAPES))
def test_random_dtypes_and_shapes_are_tfs(name):
    # dtypes and shapes only (another PRNG's numbers); TF's from tests/tf_oracle.py
    tf_oracle.check(_listed, RANDOM_SHAPES[name], tf_raises=False, values=False)


def test_random_names_are_tfs():
    public = [n for n in dir(tf.random) if not n.startswith("_")]
    missing = []
    for n in public:
        try:
            getattr(etf.random, n)
        except AttributeError as e:
            missing.append((n, str(e)))
    assert [n for n, _ in missing] == ["learned_unigram_candidate_sampler"], missing
    assert "stateful kernel" in missing[0][1]
    for n in (n for n in dir(tf.random.experimental) if not n.startswith("_")):
        assert getattr(etf.random.experimental, n) is not None


@pytest.mark.parametrize("program", [
    lambda tf: tf.random.uniform([2], dtype=tf.int32),                        # no maxval
    lambda tf: tf.random.uniform([2], dtype=tf.uint8, maxval=3),
    lambda tf: tf.random.stateless_uniform([2], [1, 2], maxval=None, dtype=tf.int32),
    lambda tf: tf.random.create_rng_state(1, "mersenne"),
    lambda tf: tf.signal.dct([1.0, 2.0], type=1, norm="ortho"),
    lambda tf: tf.signal.dct([1.0, 2.0], type=5),
    lambda tf: tf.signal.mdct(tf.ones([10]), 6),
    lambda tf: tf.signal.hann_window(5, dtype=tf.int32),
    lambda tf: tf.signal.rfft(tf.constant([1, 2])),
    lambda tf: tf.signal.rfft(tf.ones([])),
    lambda tf: tf.signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.0),
])
def test_same_value_errors_as_tensorflow(program):
    theirs = tf_oracle.tf_outcome(program)
    assert theirs.raised and theirs.error.is_a(ValueError), theirs
    with pytest.raises(ValueError):
        program(etf)


@pytest.mark.parametrize("program", [
    lambda tf: tf.random.uniform([2], minval=3, maxval=3, dtype=tf.int32),
    lambda tf: tf.random.normal([-1]),
    lambda tf: tf.random.categorical([1.0, 2.0], 4),
    lambda tf: tf.random.stateless_normal([2], [1, 2, 3]),
    lambda tf: tf.random.stateless_normal([2], [1.0, 2.0]),
    lambda tf: tf.random.experimental.index_shuffle(3, [1, 2, 3], 9),
    lambda tf: tf.signal.fft(tf.constant([1.0, 2.0])),
    lambda tf: tf.signal.fft2d(tf.ones([2], tf.complex64)),
    lambda tf: tf.signal.rfft(tf.ones([4]), [2, 3]),
])
def test_same_invalid_argument_errors_as_tensorflow(program):
    theirs = tf_oracle.tf_outcome(program)
    assert theirs.raised and theirs.error.is_a("InvalidArgumentError"), theirs
    with pytest.raises(etf.errors.InvalidArgumentError):
        program(etf)


@pytest.mark.parametrize("program", [
    lambda tf: tf.random.normal([2], dtype=tf.int32),
    lambda tf: tf.signal.dct(tf.constant([1, 2])),
    lambda tf: tf.signal.rfft([1.0, 2.0, 3.0], fft_length=6),
])
def test_same_type_or_value_errors_as_tensorflow(program):
    # TF raises TypeError here from converting an argument; eagertape's message
    # is its own but the class is caught by the same except clause.
    theirs = tf_oracle.tf_outcome(program)
    assert theirs.raised and theirs.error.is_a((TypeError, ValueError)), theirs
    with pytest.raises(getattr(builtins, theirs.error.name)):
        program(etf)


# -- tf.random: distributions ---------------------------------------------------------
N = 20000


def _moments(x):
    x = np.asarray(x.numpy(), np.float64)
    return x.mean(), x.var()


def _close_mean(x, mean, var, n=N):
    m, v = _moments(x)
    assert abs(m - mean) < 6 * np.sqrt(var / n) + 1e-9, (m, mean)
    assert abs(v - var) < 0.1 * var + 1e-9, (v, var)


def test_distributions_of_the_stateful_ops():
    etf.random.set_seed(11)
    _close_mean(etf.random.normal([N], 1.0, 2.0), 1.0, 4.0)
    u = etf.random.uniform([N], -1.0, 3.0)
    assert u.numpy().min() >= -1.0 and u.numpy().max() < 3.0
    _close_mean(u, 1.0, 16.0 / 12)
    t = etf.random.truncated_normal([N], 0.5, 2.0)
    assert np.abs(t.numpy() - 0.5).max() <= 4.0
    _close_mean(t, 0.5, 4.0 * 0.7737413)       # the variance of N(0, 1) cut at +-2
    i = etf.random.uniform([N], minval=-2, maxval=5, dtype=etf.int32).numpy()
    assert set(np.unique(i)) == set(range(-2, 5))
    g = etf.random.gamma([N], 3.0, 2.0)
    _close_mean(g, 1.5, 3.0 / 4.0)
    _close_mean(etf.random.poisson([N], 4.0), 4.0, 4.0)
    c = etf.random.categorical(etf.math.log([[0.2, 0.8]]), N).numpy()
    assert abs(c.mean() - 0.8) < 6 * np.sqrt(0.16 / N)
    s = etf.random.shuffle(etf.range(100)).numpy()
    assert sorted(s.tolist()) == list(range(100)) and s.tolist() != list(range(100))


def test_distributions_of_the_stateless_ops_and_generator():
    seed = [3, 4]
    _close_mean(etf.random.stateless_normal([N], seed, -1.0, 0.5), -1.0, 0.25)
    _close_mean(etf.random.stateless_uniform([N], seed, 2.0, 4.0), 3.0, 4.0 / 12)
    _close_mean(etf.random.stateless_truncated_normal([N], seed), 0.0, 0.7737413)
    _close_mean(etf.random.stateless_gamma([N], seed, 0.5, 2.0), 0.25, 0.125)
    _close_mean(etf.random.stateless_poisson([N], seed, 2.5), 2.5, 2.5)
    _close_mean(etf.random.stateless_binomial([N], seed, 20.0, 0.3), 6.0, 4.2)
    p = etf.random.stateless_parameterized_truncated_normal([N], seed, 1.0, 2.0, 0.0, 10.0)
    assert p.numpy().min() >= 0.0 and p.numpy().max() <= 10.0
    # N(1, 2) cut at [0, 10]: mean 1 + 2 * phi(-0.5) / (1 - Phi(-0.5))
    assert abs(p.numpy().mean() - 2.0098) < 0.05
    full = etf.random.stateless_uniform([N], seed, minval=None, maxval=None, dtype=etf.int32)
    assert full.numpy().min() < -2 ** 30 and full.numpy().max() > 2 ** 30
    g = etf.random.Generator.from_seed(5)
    _close_mean(g.normal([N], 2.0, 3.0), 2.0, 9.0)
    _close_mean(g.uniform([N]), 0.5, 1.0 / 12)
    _close_mean(g.truncated_normal([N]), 0.0, 0.7737413)
    _close_mean(g.binomial([N], 10.0, 0.5), 5.0, 2.5)


def test_seeds_make_the_streams_reproducible():
    def draws():
        return [etf.random.normal([3]).numpy(), etf.random.uniform([2], seed=7).numpy(),
                etf.random.normal([3]).numpy(), etf.random.uniform([2], seed=7).numpy()]
    etf.random.set_seed(1)
    a = draws()
    etf.random.set_seed(1)
    b = draws()
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], a[2]) and not np.array_equal(a[1], a[3])
    etf.random.set_seed(2)
    assert not np.array_equal(draws()[0], a[0])
    # An op seed alone gives a reproducible stream (TF uses a default global seed).
    etf.random.set_seed(None)
    x = etf.random.normal([3], seed=4).numpy()
    etf.random.set_seed(None)
    np.testing.assert_array_equal(x, etf.random.normal([3], seed=4).numpy())
    with pytest.raises(TypeError):
        etf.random.set_seed(1.5)


def test_stateless_ops_are_functions_of_their_seed():
    for op in (lambda s: etf.random.stateless_normal([4], s),
               lambda s: etf.random.stateless_uniform([4], s),
               lambda s: etf.random.stateless_uniform([4], s, maxval=1000, dtype=etf.int64),
               lambda s: etf.random.stateless_gamma([4], s, 2.0),
               lambda s: etf.random.stateless_poisson([4], s, 100.0),
               lambda s: etf.random.stateless_categorical(etf.zeros([1, 100]), 4, s),
               lambda s: etf.random.experimental.stateless_shuffle(etf.range(50), s)):
        a, b = op([1, 2]).numpy(), op(etf.constant([1, 2])).numpy()
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, op([1, 3]).numpy())
        assert not np.array_equal(a, op(etf.constant([1, 2 + 2 ** 32], etf.int64)).numpy())
    assert etf.random.split([1, 2], 3).numpy().tolist() == etf.random.split([1, 2], 3).numpy().tolist()
    assert len({tuple(r) for r in etf.random.split([1, 2], 3).numpy().tolist()}) == 3
    perm = [int(etf.random.experimental.index_shuffle(i, [1, 2], 9)) for i in range(10)]
    assert sorted(perm) == list(range(10)) and perm != list(range(10))
    np.testing.assert_array_equal(etf.random.experimental.index_shuffle(etf.range(10), [1, 2], 9),
                                  perm)

    @etf.function
    def traced(seed):
        return etf.random.stateless_normal([3], seed)
    np.testing.assert_array_equal(traced(etf.constant([1, 2])).numpy(),
                                  etf.random.stateless_normal([3], [1, 2]).numpy())
    assert not np.array_equal(traced(etf.constant([1, 3])).numpy(),
                              traced(etf.constant([1, 2])).numpy())


def test_generator_state_seeds_and_splits():
    assert etf.random.create_rng_state(1234, "philox").numpy().tolist() == \
        tf.random.create_rng_state(1234, "philox").numpy().tolist()
    for seed, alg in ((2 ** 70 + 3, "philox"), ([12, 34], "threefry"), (-5, 1), ([7], 3)):
        assert etf.random.create_rng_state(seed, alg).numpy().tolist() == \
            tf.random.create_rng_state(seed, alg).numpy().tolist()
    assert list(etf.random.Algorithm.__members__) == list(tf.random.Algorithm.__members__)
    g = etf.random.Generator.from_seed(3)
    assert g.state.numpy().tolist() == tf.random.Generator.from_seed(3).state.numpy().tolist()
    a = g.normal([3]).numpy()
    g.reset_from_seed(3)
    np.testing.assert_array_equal(a, g.normal([3]).numpy())
    clone = etf.random.Generator.from_state(g.state, g.algorithm)
    np.testing.assert_array_equal(clone.uniform([4]).numpy(), g.uniform([4]).numpy())
    assert not np.array_equal(a, g.normal([3]).numpy())
    s1, s2 = g.split(2)
    assert not np.array_equal(s1.normal([3]).numpy(), s2.normal([3]).numpy())
    seeds = g.make_seeds(4)
    assert seeds.dtype == np.int64 and tuple(seeds.shape) == (2, 4)
    x = etf.random.stateless_normal([2], seeds[:, 0])
    assert np.isfinite(x.numpy()).all()
    other = etf.random.Generator.from_non_deterministic_state()
    assert not np.array_equal(other.normal([4]).numpy(),
                              etf.random.Generator.from_non_deterministic_state().normal([4]).numpy())
    etf.random.set_global_generator(etf.random.Generator.from_seed(9))
    b = etf.random.get_global_generator().normal([2]).numpy()
    etf.random.set_global_generator(etf.random.Generator.from_seed(9))
    np.testing.assert_array_equal(b, etf.random.get_global_generator().normal([2]).numpy())


def test_candidate_samplers():
    etf.random.set_seed(0)
    s, t, e = etf.random.uniform_candidate_sampler([[1, 2]], 2, 5, True, 10)
    assert len(set(s.numpy().tolist())) == 5 and s.numpy().max() < 10
    assert np.all(t.numpy() >= 0.5 - 1e-6) and np.all(t.numpy() <= 1.0)  # >= 5 draws
    s, t, e = etf.random.log_uniform_candidate_sampler([[0]], 1, 4, False, 20)
    np.testing.assert_allclose(t.numpy(), [[4 * np.log(2) / np.log(21)]], rtol=1e-6)
    s, t, e = tf.random.all_candidate_sampler([[1, 2]], 2, 4, True)
    g = etf.random.all_candidate_sampler([[1, 2]], 2, 4, True)
    for u, v in zip(g, (s, t, e)):
        np.testing.assert_array_equal(u.numpy(), v.numpy())


# -- tf.random: gradients, None where TF gives None -----------------------------------
def _grads(tf, f, *xs):
    xs = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(tf, *xs)
    return y, [_np(g) for g in tape.gradient(y, xs)]


GRADIENT_PROGRAMS = {
    "normal": (lambda tf, m, s: tf.random.normal([4], m, s), 1.0, 2.0),
    "uniform": (lambda tf, a, b: tf.random.uniform([4], a, b), 1.0, 3.0),
    "truncated": (lambda tf, m, s: tf.random.truncated_normal([4], m, s), 1.0, 2.0),
    "s_normal": (lambda tf, m, s: tf.random.stateless_normal([4], [1, 2], m, s), 1.0, 2.0),
    "s_uniform": (lambda tf, a, b: tf.random.stateless_uniform([4], [1, 2], a, b), 1.0, 3.0),
    "s_truncated": (lambda tf, m, s: tf.random.stateless_truncated_normal([4], [1, 2], m, s),
                    1.0, 2.0),
    "gen_normal": (lambda tf, m, s: tf.random.Generator.from_seed(1).normal([4], m, s), 1.0, 2.0),
    "gamma": (lambda tf, a, b: tf.random.gamma([4], a, b), 1.5, 2.0),
    "s_gamma": (lambda tf, a, b: tf.random.stateless_gamma([4], [1, 2], a, b), 1.5, 2.0),
    "s_ptn": (lambda tf, m, s, lo, hi: tf.random.stateless_parameterized_truncated_normal(
        [4], [1, 2], m, s, lo, hi), 1.0, 2.0, -1.0, 2.0),
    "categorical": (lambda tf, x: tf.cast(tf.random.categorical([[0.0, 0.0]] + x, 3),
                                          tf.float32), [[1.0, 2.0]]),
    "shuffle": (lambda tf, x: tf.random.shuffle(x), [1.0, 2.0, 3.0]),
    "s_poisson": (lambda tf, x: tf.cast(tf.random.stateless_poisson([3], [1, 2], x), tf.float32),
                  2.0),
    "s_binomial": (lambda tf, x: tf.random.stateless_binomial([3], [1, 2], 10.0, x,
                                                              output_dtype=tf.float32), 0.5),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_PROGRAMS))
def test_random_gradients_exist_where_tfs_do(name):
    f, *xs = GRADIENT_PROGRAMS[name]
    _, want = tf_oracle.tf_outcome(_grads, f, *xs).plain()     # None where TF's is None
    y, got = _grads(etf, f, *xs)
    assert [g is None for g in got] == [w is None for w in want]
    y, x = np.asarray(y.numpy(), np.float64), [np.float64(v) if np.ndim(v) == 0 else v for v in xs]
    if name in ("normal", "truncated", "s_normal", "s_truncated", "gen_normal"):
        # d/dmean = 1 per sample, d/dstddev = the standard sample, as TF's.
        np.testing.assert_allclose(got, [y.size, ((y - x[0]) / x[1]).sum()], rtol=1e-4)
    elif name in ("uniform", "s_uniform"):
        r = (y - x[0]) / (x[1] - x[0])
        np.testing.assert_allclose(got, [(1 - r).sum(), r.sum()], rtol=1e-4)
    elif name in ("gamma", "s_gamma"):
        # TF's gradient of the sample in alpha is RandomGammaGrad of the Gamma(alpha, 1)
        # sample (implicit reparameterization), divided by beta.
        alpha, beta = x
        unit = (y * beta).astype(np.float32)
        da = tf.raw_ops.RandomGammaGrad(alpha=tf.fill(unit.shape, np.float32(alpha)),
                                        sample=unit).numpy()
        np.testing.assert_allclose(got, [da.sum() / beta, -(y / beta).sum()], rtol=2e-3)
    elif name == "s_ptn":
        from scipy.special import ndtr
        m, s, lo, hi = x
        z, a, b = (y - m) / s, (lo - m) / s, (hi - m) / s
        cdf = np.clip((ndtr(z) - ndtr(a)) / (ndtr(b) - ndtr(a)), 1e-30, 1 - 1e-7)
        want = [y.size, z.sum(), np.exp(0.5 * (z ** 2 - a ** 2) + np.log1p(-cdf)).sum(),
                np.exp(0.5 * (z ** 2 - b ** 2) + np.log(cdf)).sum()]
        np.testing.assert_allclose(got, want, rtol=2e-3)


def test_a_gradient_through_poisson_raises_lookup_error_as_in_tensorflow():
    for lib in (tf, etf):
        lam = lib.constant([1.0, 2.0])
        with lib.GradientTape() as tape:
            tape.watch(lam)
            y = lib.random.poisson([3], lam)
        with pytest.raises(LookupError):
            tape.gradient(y, lam)


# -- tf.signal: values and gradients as TF's -------------------------------------------
X = np.random.RandomState(0).randn(3, 16).astype(np.float32)
W = np.random.RandomState(1).randn(2, 4).astype(np.float32)


def _c(tf, a, b):
    return tf.complex(a, b)


SIGNAL_PROGRAMS = {
    "fft": lambda tf, x, w: tf.signal.fft(_c(tf, x, x * x)),
    "ifft": lambda tf, x, w: tf.signal.ifft(_c(tf, x, 2.0 * x)),
    "fft2d": lambda tf, x, w: tf.signal.fft2d(_c(tf, x, -x)),
    "ifft2d": lambda tf, x, w: tf.signal.ifft2d(_c(tf, x, x * x)),
    "fft3d": lambda tf, x, w: tf.signal.fft3d(_c(tf, tf.reshape(x, [3, 4, 4]), tf.reshape(x, [3, 4, 4]) * w[0, 0])),
    "ifft3d": lambda tf, x, w: tf.signal.ifft3d(_c(tf, tf.reshape(x, [3, 2, 8]), tf.reshape(x, [3, 2, 8]))),
    "rfft": lambda tf, x, w: tf.signal.rfft(x),
    "rfft_odd_length": lambda tf, x, w: tf.signal.rfft(x[:, :11], fft_length=[11]),
    "rfft_padded": lambda tf, x, w: tf.signal.rfft(w, fft_length=[7]),
    "irfft": lambda tf, x, w: tf.signal.irfft(_c(tf, x, x * w[0, 0])),
    "irfft_len": lambda tf, x, w: tf.signal.irfft(_c(tf, x, -x), fft_length=[31]),
    "rfft2d": lambda tf, x, w: tf.signal.rfft2d(x),
    "rfft2d_len": lambda tf, x, w: tf.signal.rfft2d(x, fft_length=[5, 16]),
    "irfft2d": lambda tf, x, w: tf.signal.irfft2d(_c(tf, x, x * x)),
    "fftshift": lambda tf, x, w: tf.signal.fftshift(x),
    "fftshift_axes": lambda tf, x, w: tf.signal.fftshift(x, axes=1),
    "ifftshift": lambda tf, x, w: tf.signal.ifftshift(w, axes=[0, 1]),
    "frame": lambda tf, x, w: tf.signal.frame(x, 5, 3),
    "frame_pad_end": lambda tf, x, w: tf.signal.frame(x, 5, 3, pad_end=True, pad_value=0.5),
    "frame_axis0": lambda tf, x, w: tf.signal.frame(x, 2, 1, axis=0),
    "frame_axis_pad": lambda tf, x, w: tf.signal.frame(tf.reshape(x, [3, 4, 4]), 3, 2, axis=-2, pad_end=True),
    "overlap_and_add": lambda tf, x, w: tf.signal.overlap_and_add(tf.reshape(x, [3, 4, 4]), 3),
    "overlap_and_add_step1": lambda tf, x, w: tf.signal.overlap_and_add(w, 1),
    "stft": lambda tf, x, w: tf.signal.stft(x, 8, 4),
    "stft_pad": lambda tf, x, w: tf.signal.stft(x, 6, 3, fft_length=10, pad_end=True),
    "stft_hamming": lambda tf, x, w: tf.signal.stft(x, 5, 2, window_fn=tf.signal.hamming_window),
    "stft_no_window": lambda tf, x, w: tf.signal.stft(x, 4, 4, window_fn=None),
    "inverse_stft": lambda tf, x, w: tf.signal.inverse_stft(tf.signal.stft(x, 8, 2), 8, 2),
    "inverse_stft_windowed": lambda tf, x, w: tf.signal.inverse_stft(
        tf.signal.stft(x, 8, 2), 8, 2, window_fn=tf.signal.inverse_stft_window_fn(2)),
    "dct2": lambda tf, x, w: tf.signal.dct(x),
    "dct2_ortho": lambda tf, x, w: tf.signal.dct(x, norm="ortho"),
    "dct1": lambda tf, x, w: tf.signal.dct(x, type=1),
    "dct3": lambda tf, x, w: tf.signal.dct(x, type=3),
    "dct3_ortho": lambda tf, x, w: tf.signal.dct(x, type=3, norm="ortho"),
    "dct4": lambda tf, x, w: tf.signal.dct(w, type=4),
    "dct4_ortho": lambda tf, x, w: tf.signal.dct(x, type=4, norm="ortho"),
    "dct_n_short": lambda tf, x, w: tf.signal.dct(x, n=10),
    "dct_n_long": lambda tf, x, w: tf.signal.dct(w, n=6, norm="ortho"),
    "idct2": lambda tf, x, w: tf.signal.idct(x),
    "idct3_ortho": lambda tf, x, w: tf.signal.idct(x, type=3, norm="ortho"),
    "idct1": lambda tf, x, w: tf.signal.idct(w, type=1),
    "mfccs": lambda tf, x, w: tf.signal.mfccs_from_log_mel_spectrograms(x),
    "mdct": lambda tf, x, w: tf.signal.mdct(x, 8),
    "mdct_ortho_pad": lambda tf, x, w: tf.signal.mdct(x, 12, pad_end=True, norm="ortho"),
    "mdct_kbd": lambda tf, x, w: tf.signal.mdct(x, 4, window_fn=tf.signal.kaiser_bessel_derived_window),
    "mdct_no_window": lambda tf, x, w: tf.signal.mdct(x, 8, window_fn=None),
    "inverse_mdct": lambda tf, x, w: tf.signal.inverse_mdct(tf.reshape(x, [3, 4, 4])),
    "inverse_mdct_ortho": lambda tf, x, w: tf.signal.inverse_mdct(tf.signal.mdct(x, 8, norm="ortho"), norm="ortho"),
    "mel_spectrogram": lambda tf, x, w: tf.matmul(
        tf.abs(tf.signal.stft(x, 8, 4)), tf.signal.linear_to_mel_weight_matrix(4, 5, 1000, 20.0, 450.0)),
}


def _signal_run(tf, program):
    x, w = tf.constant(X), tf.constant(W)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        tape.watch(w)
        out = program(tf, x, w)
        if out.dtype in (tf.complex64, tf.complex128):
            loss = tf.reduce_sum(tf.abs(out)) + tf.reduce_sum(tf.math.real(out) * 0.3)
        else:
            loss = tf.reduce_sum(out * out)
    return out, [_np(g) for g in tape.gradient(loss, [x, w])]


@pytest.mark.parametrize("name", sorted(SIGNAL_PROGRAMS))
def test_signal_same_as_tensorflow(name):
    # TF's side from tests/tf_oracle.py; absolute tolerances scale with the
    # largest of TF's entries (max(1, |x|) of each output or gradient)
    want = tf_oracle.tf_outcome(_signal_run, SIGNAL_PROGRAMS[name])
    assert not want.raised, f"TF raised {want.error!r}"
    got = tf_oracle.run(etf, _signal_run, SIGNAL_PROGRAMS[name])
    if got.raised:
        raise got.exc
    (w_out, w_grads), (g_out, g_grads) = want.value[1], got.value[1]
    tf_oracle.assert_same(g_out, w_out, rtol=2e-5, atol=2e-5, scale_atol=True, where="output")
    tf_oracle.assert_same(g_grads, w_grads, rtol=2e-4, atol=5e-5, scale_atol=True,
                          where="gradients")


@pytest.mark.parametrize("program", [
    lambda tf: tf.signal.hann_window(5),
    lambda tf: tf.signal.hann_window(6),
    lambda tf: tf.signal.hann_window(6, periodic=False),
    lambda tf: tf.signal.hann_window(1),
    lambda tf: tf.signal.hann_window(0),
    lambda tf: tf.signal.hamming_window(7, dtype=tf.float64),
    lambda tf: tf.signal.hamming_window(8, periodic=False),
    lambda tf: tf.signal.kaiser_window(7),
    lambda tf: tf.signal.kaiser_window(8, beta=3.0, dtype=tf.float64),
    lambda tf: tf.signal.kaiser_window(1),
    lambda tf: tf.signal.kaiser_bessel_derived_window(8),
    lambda tf: tf.signal.kaiser_bessel_derived_window(10, beta=5.0),
    lambda tf: tf.signal.vorbis_window(9),
    lambda tf: tf.signal.inverse_stft_window_fn(3)(8, tf.float32),
    lambda tf: tf.signal.inverse_stft_window_fn(4, tf.signal.vorbis_window)(6, tf.float64),
    lambda tf: tf.signal.linear_to_mel_weight_matrix(),
    lambda tf: tf.signal.linear_to_mel_weight_matrix(8, 33, 16000, 0.0, 8000.0, tf.float64),
    lambda tf: tf.signal.fftshift(tf.range(7)),
    lambda tf: tf.signal.ifftshift(tf.reshape(tf.range(12), [3, 4]), axes=0),
    lambda tf: tf.signal.frame(tf.range(1, 6), 2, 2, pad_end=True),
    lambda tf: tf.signal.frame(tf.range(5), 6, 2),
    lambda tf: tf.signal.rfft(tf.constant([1.0, 2.0], tf.float64)),
    lambda tf: tf.signal.dct(tf.constant([[1.0, 2.0, 5.0]], tf.float64), type=4),
    lambda tf: tf.signal.irfft(tf.constant([1.0, 2.0, 3.0], tf.complex64)),
    lambda tf: tf.signal.fft(tf.constant([[1.0 + 1j, 2.0]], tf.complex128)),
    # Cropping: values only (TF's RFFT/IRFFT gradients fail on a cropped input).
    lambda tf: tf.signal.rfft(tf.constant(X), fft_length=[11]),
    lambda tf: tf.signal.rfft2d(tf.constant(X), fft_length=[4, 6]),
    lambda tf: tf.signal.irfft(tf.complex(tf.constant(X), tf.constant(W[:1, :1])), fft_length=[9]),
    lambda tf: tf.signal.rfft3d(tf.reshape(tf.constant(X), [3, 2, 8]), fft_length=[2, 2, 5]),
    lambda tf: tf.signal.irfft3d(tf.complex(tf.reshape(tf.constant(X), [3, 2, 8]), 0.5)),
])
def test_signal_constants_and_dtypes_are_tfs(program):
    # TF computes the mel matrix in float32, eagertape in float64 then rounds.
    tf_oracle.check(program, tf_raises=False, rtol=1e-5, atol=5e-6)


def test_stft_round_trips_and_signal_ops_trace():
    x = etf.constant(X)
    y = etf.signal.inverse_stft(etf.signal.stft(x, 8, 2), 8, 2,
                                window_fn=etf.signal.inverse_stft_window_fn(2))
    np.testing.assert_allclose(y.numpy()[:, 6:-6], X[:, 6:-6], atol=1e-5)

    @etf.function
    def spectrum(v):
        return etf.reduce_sum(etf.abs(etf.signal.rfft(etf.signal.frame(v, 4, 2))))
    want = tf.reduce_sum(tf.abs(tf.signal.rfft(tf.signal.frame(X, 4, 2)))).numpy()
    np.testing.assert_allclose(spectrum(x).numpy(), want, rtol=1e-5)


def test_unsupported_signal_names_say_so():
    with pytest.raises(AttributeError, match="not supported by eagertape's TensorFlow facade"):
        etf.signal.spectrogram_magic
    names = [n for n in dir(tf.signal) if not n.startswith("_")]
    assert all(callable(getattr(etf.signal, n)) for n in names)


def test_3d_real_ffts_have_no_gradient_as_in_tensorflow():
    for lib in (tf, etf):
        x = lib.constant(X.reshape(3, 2, 8))
        with lib.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = lib.reduce_sum(lib.abs(lib.signal.rfft3d(x)))
            z = lib.reduce_sum(lib.signal.irfft3d(lib.complex(x, x)))
        for out in (y, z):
            with pytest.raises(LookupError):
                tape.gradient(out, x)


def test_nd_ffts_equal_tensorflows_fixed_rank_ffts():
    # TF 2.21 has no CPU kernel for FFTND; eagertape's n-D FFTs are checked
    # against TF's 1-D/2-D/3-D ones over the same axes (and NumPy's for others).
    x = X.reshape(3, 4, 4)
    c = (x + 1j * x[::-1]).astype(np.complex64)
    pairs = [
        (etf.signal.fftnd(c, axes=[-2, -1]), tf.signal.fft2d(c)),
        (etf.signal.fftnd(c), tf.signal.fft3d(c)),
        (etf.signal.ifftnd(c, axes=[-1]), tf.signal.ifft(c)),
        (etf.signal.rfftnd(x, fft_length=[4, 6], axes=[-2, -1]), tf.signal.rfft2d(x, [4, 6])),
        (etf.signal.irfftnd(c, fft_length=[4, 6], axes=[1, 2]), tf.signal.irfft2d(c, [4, 6])),
        (etf.signal.fftnd(c, fft_length=[2, 5], axes=[0, 1]),
         np.fft.fftn(c, s=[2, 5], axes=[0, 1])),
    ]
    for got, want in pairs:
        want = want.numpy() if hasattr(want, "numpy") else want
        assert tuple(got.shape) == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)
    xt = etf.constant(X)
    with etf.GradientTape() as tape:
        tape.watch(xt)
        y = etf.reduce_sum(etf.abs(etf.signal.rfftnd(xt, axes=[-2, -1])))
    with tf.GradientTape() as ttape:
        xw = tf.constant(X)
        ttape.watch(xw)
        yw = tf.reduce_sum(tf.abs(tf.signal.rfft2d(xw)))
    np.testing.assert_allclose(tape.gradient(y, xt).numpy(), ttape.gradient(yw, xw).numpy(),
                               rtol=2e-4, atol=1e-5)


def test_stateful_samplers_draw_new_numbers_on_every_call_of_a_tf_function():
    # TF's stateful random ops advance their state each time a graph runs (the
    # CVAE tutorial's reparameterization inside a tf.function train step).
    tf = etf
    f = tf.function(lambda: (tf.random.normal([3]), tf.random.uniform([2], seed=4)))
    first, second = f(), f()
    assert f.experimental_get_tracing_count() == 1
    assert not np.allclose(first[0].numpy(), second[0].numpy())
    assert not np.allclose(first[1].numpy(), second[1].numpy())
    tf.random.set_seed(11)
    a = [f()[0].numpy(), tf.random.normal([2]).numpy(), f()[0].numpy()]
    tf.random.set_seed(11)
    b = [f()[0].numpy(), tf.random.normal([2]).numpy(), f()[0].numpy()]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)      # one stream, eager and compiled alike
    w = tf.Variable(2.0)

    @tf.function
    def noisy_grad():
        with tf.GradientTape() as tape:
            eps = tf.random.normal([])
            y = w * eps
        return tape.gradient(y, w), eps
    (g1, e1), (g2, e2) = noisy_grad(), noisy_grad()
    assert float(g1) == float(e1) and float(g2) == float(e2) and float(e1) != float(e2)
