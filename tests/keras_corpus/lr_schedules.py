# TF's optimizer guides: learning-rate schedules (ExponentialDecay,
# PiecewiseConstantDecay, CosineDecay, InverseTimeDecay) with SGD-momentum,
# Adam, Nadam, AdamW and Adamax updating tf.Variables and a Keras layer in a
# TF-eager loop; the learning rate read back each step.
rs = np.random.RandomState(101)
x = tf.constant(rs.randn(8, 3).astype("float32"))
target = tf.constant(rs.randn(8, 2).astype("float32"))
S = tf.keras.optimizers.schedules
setups = [
    ("sgd", tf.keras.optimizers.SGD(S.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5),
                                    momentum=0.9, nesterov=True)),
    ("adam", tf.keras.optimizers.Adam(S.PiecewiseConstantDecay([2, 4], [0.1, 0.05, 0.01]))),
    ("nadam", tf.keras.optimizers.Nadam(S.CosineDecay(0.05, decay_steps=5))),
    ("adamw", tf.keras.optimizers.AdamW(S.InverseTimeDecay(0.05, 1, 0.5), weight_decay=0.1)),
    ("adamax", tf.keras.optimizers.Adamax(0.05)),
]
for name, opt in setups:
    layer = tf.keras.layers.Dense(2)
    layer.build((None, 3))
    layer.set_weights(weights_like(layer, 102))
    w = tf.Variable(rs.randn(2, 2).astype("float32"))
    rates = []
    for step in range(6):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((tf.matmul(layer(x), w) - target) ** 2)
        variables = layer.trainable_variables + [w]
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        rates.append(float(opt.learning_rate))
    emit(name, [v.numpy() for v in variables])
    emit(name + " rates", rates)
    emit(name + " iterations", int(opt.iterations))
