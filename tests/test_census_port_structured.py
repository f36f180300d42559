"""Gaps found porting TF's structured-data and CSV tutorials to the census (issue 38),
each against TF's Keras in a process of its own (tests/test_keras.py's ``_same_as_tf``):

1. a built-in learning-rate schedule called by the program on NumPy or Python steps
   gives a tensor, as TF's Keras gives a tf.Tensor (census: overfit_and_underfit's
   cell 35 plots ``lr_schedule(np.linspace(...))``); the optimizer's own calls keep
   Keras's arrays.
"""
import pytest

from test_keras import _same_as_tf

pytest.importorskip("keras")


# -- 1. a schedule called by the program ----------------------------------------------
def test_a_builtin_schedule_called_on_numpy_steps_gives_a_tensor_as_in_tf():
    got = _same_as_tf("""
    schedules = {
        "inverse_time": tf.keras.optimizers.schedules.InverseTimeDecay(
            0.001, decay_steps=20, decay_rate=1, staircase=False),
        "exponential": tf.keras.optimizers.schedules.ExponentialDecay(
            0.1, decay_steps=10, decay_rate=0.5),
        "piecewise": tf.keras.optimizers.schedules.PiecewiseConstantDecay([5, 50], [1.0, 0.5, 0.1]),
        "cosine": tf.keras.optimizers.schedules.CosineDecay(0.2, decay_steps=100),
    }
    for name, s in schedules.items():
        for i, step in enumerate([np.linspace(0, 100, 5), 7]):
            lr = s(step)
            emit(f"{name}_{i}_is_tensor", float(tf.is_tensor(lr)))
            emit(f"{name}_{i}_dtype", float(lr.dtype == tf.float32))
            emit(f"{name}_{i}", lr.numpy())
            emit(f"{name}_{i}_plus_one", (lr + 1.0).numpy())
    # The optimizer's own use of the schedule, in a step of its own and in fit.
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.set_weights(weights_like(model))
    opt = tf.keras.optimizers.Adam(schedules["inverse_time"])
    x = np.random.RandomState(0).rand(8, 3).astype("float32")
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(x) ** 2)
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                            model.trainable_variables))
    emit("after_step", model.get_weights()[0])
    model.compile(optimizer=opt, loss="mse")
    h = model.fit(x, x[:, :1], epochs=2, batch_size=4, shuffle=False, verbose=0)
    emit("fit_loss", h.history["loss"])
    """)
    assert got["inverse_time_0_is_tensor"] == got["piecewise_1_is_tensor"] == 1.0
    assert got["inverse_time_0"] == pytest.approx([0.001, 0.001 / 2.25, 0.001 / 3.5,
                                                   0.001 / 4.75, 0.001 / 6.0], rel=1e-5)
