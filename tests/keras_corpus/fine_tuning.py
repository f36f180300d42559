# keras.io "Transfer learning & fine-tuning", shrunk: a base model with
# BatchNormalization frozen (trainable=False: no gradient, statistics kept,
# inference mode inside), a new head trained by a TF-eager loop, then the base
# unfrozen and the whole model trained at a low learning rate.
base = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(8, activation="relu"),
                            tf.keras.layers.BatchNormalization(), tf.keras.layers.Dense(4)],
                           name="base")
weights = weights_like(base, 91)
weights[5] = np.abs(weights[5]) + 0.5          # moving variance
base.set_weights(weights)
base.trainable = False
inputs = tf.keras.Input((6,))
features = base(inputs, training=False)
outputs = tf.keras.layers.Dense(1)(tf.keras.layers.Dropout(0.0)(features))
model = tf.keras.Model(inputs, outputs)
model.layers[-1].set_weights(weights_like(model.layers[-1], 92))
rs = np.random.RandomState(93)
x, y = rs.randn(20, 6).astype("float32"), rs.randn(20, 1).astype("float32")
loss_fn = tf.keras.losses.MeanAbsoluteError()
emit("trainable before", [len(model.trainable_variables), len(model.non_trainable_variables)])


def train(optimizer, steps):
    out = []
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        out.append(float(loss))
    return out


emit("head losses", train(tf.keras.optimizers.Adam(0.05), 3))
emit("frozen base unchanged", base.get_weights())
base.trainable = True
emit("trainable after", [len(model.trainable_variables), len(model.non_trainable_variables)])
emit("fine-tune losses", train(tf.keras.optimizers.Adam(1e-3), 3))
emit("weights", model.get_weights())
