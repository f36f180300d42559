"""A metric object passed to compile keeps its state into a model's first epoch, as in
TF's Keras (census imbalanced_data: the METRICS list is every make_model()'s default
argument, so the baseline fit's first epoch of train 'prc' counts the last validation
of the model before: TF 0.2629, eagertape 0.2167 before this).

TF's trainer (a model made outside a distribution strategy's scope) builds the
compile metrics at the first step's trace, after fit's (evaluate's, train_on_batch's)
reset_metrics, which finds them unbuilt and resets nothing; Keras's JAX trainer builds
them ahead, so its reset cleared them. A model made in a strategy's scope is built
ahead in TF too: there the reset clears them in both. TF's Keras runs in a subprocess.
"""
import textwrap

import pytest

import tf_oracle

tf_oracle.require("tensorflow")

import eagertape.tf as tf  # noqa: E402

_PROGRAM = textwrap.dedent("""
    import numpy as np

    def _data():
        rs = np.random.RandomState(0)
        return (rs.normal(size=(32, 3)).astype("float32"),
                (rs.rand(32, 1) < 0.3).astype("float32"),
                rs.normal(size=(16, 3)).astype("float32"),
                (rs.rand(16, 1) < 0.5).astype("float32"))

    def _model(keras, metrics):
        m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(
            1, activation="sigmoid", kernel_initializer="ones", bias_initializer="zeros")])
        m.compile(optimizer=keras.optimizers.SGD(0.0), loss="binary_crossentropy",
                  metrics=metrics)
        return m

    def _plain(d):
        return {k: [round(float(v), 5) for v in np.ravel(x)] for k, x in sorted(d.items())}

    def shared_metrics(tf):
        keras = tf.keras
        x, y, xv, yv = _data()
        shared = [keras.metrics.TruePositives(name="tp"), keras.metrics.BinaryAccuracy(name="acc"),
                  keras.metrics.AUC(name="prc", curve="PR")]
        out = [_plain(_model(keras, shared).evaluate(x, y, verbose=0, return_dict=True))]
        b = _model(keras, shared)
        out.append(_plain(b.evaluate(xv, yv, verbose=0, return_dict=True)))   # a's state too
        out.append(_plain(b.evaluate(xv, yv, verbose=0, return_dict=True)))   # reset
        c = _model(keras, shared)
        c.predict(x, verbose=0)             # (builds no metrics in TF)
        out.append(_plain(c.fit(x, y, batch_size=16, epochs=2, validation_data=(xv, yv),
                                verbose=0).history))
        d = _model(keras, shared)
        out.append(_plain(d.train_on_batch(x, y, return_dict=True)))
        out.append(_plain(d.test_on_batch(x, y, return_dict=True)))
        fresh = _model(keras, [keras.metrics.TruePositives(name="tp")])
        out.append(_plain(fresh.evaluate(xv, yv, verbose=0, return_dict=True)))
        return out

    def in_strategy_scope(tf):
        keras = tf.keras
        x, y, xv, yv = _data()
        shared = [keras.metrics.TruePositives(name="tp")]
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            a = _model(keras, shared)
        out = [_plain(a.evaluate(x, y, verbose=0, return_dict=True))]
        with strategy.scope():
            b = _model(keras, shared)
        out.append(_plain(b.evaluate(xv, yv, verbose=0, return_dict=True)))
        c = _model(keras, shared)          # outside the scope: built at the step
        out.append(_plain(c.evaluate(x, y, verbose=0, return_dict=True)))
        return out
""")


def _tf(name):
    return tf_oracle.tf_keras_text("keras-compile-metrics-state", _PROGRAM, name)


def _eagertape(name):
    scope = {}
    exec(_PROGRAM, scope)
    return scope[name](tf)


def _close(got, want):
    assert got.keys() == want.keys()
    for k in want:
        assert got[k] == pytest.approx(want[k], rel=1e-4, abs=1e-5), k


def test_shared_metrics_keep_their_state_into_the_first_epoch():
    want, got = _tf("shared_metrics"), _eagertape("shared_metrics")
    # TF's: the second model's first evaluate counts the first's 3 true positives
    assert want[1]["tp"] == [4.0] and want[2]["tp"] == [1.0]
    assert want[3]["tp"] == [4.0, 3.0] and want[3]["val_tp"] == [1.0, 1.0]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _close(g, w)


def test_a_model_made_in_a_strategy_scope_resets_them():
    want, got = _tf("in_strategy_scope"), _eagertape("in_strategy_scope")
    assert [w["tp"] for w in want] == [[3.0], [1.0], [4.0]]
    for g, w in zip(got, want):
        _close(g, w)
