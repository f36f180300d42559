# DANN gradient reversal, from m2dsupsdlclass/lectures-labs,
# labs/10_unsupervised_generative_models/solutions/grl.py, da_model.py and
# grl_training.py (the "Domain Adaptation" lab, https://github.com/m2dsupsdlclass/lectures-labs),
# with the lambda-scaled reversal (`-hp_lambda * dy`) as in
# takumi0shibata/Adversarial-AES custom_layers/gradient_reversal.py and the DANN
# schedule lambda = 2 / (1 + exp(-10 p)) - 1. A tf.custom_gradient function
# called in a Keras layer's `call`: identity forward, reversed and scaled gradient
# back; a functional two-headed model (digits and domain); the lab's two tape
# steps per batch with SGD(momentum, nesterov), the second on every variable but
# the digits classifier's. Shrunk: 8x8x1 images, 4 and 6 filters, 16 units, 4
# classes, random NumPy data, 2 epochs of 3 batches of 8, then one fit epoch with the
# compiled losses (the reversal under fit's tf.function). Adapted for Keras 3:
# learning_rate= for lr=; the lab's filter on `"digits" not in x.name` uses
# `x.path` (a Keras 3 variable's name no longer holds its layer's name); the
# scheduled lambda is kept a Python float (a NumPy float64 captured by fit's
# tf.function makes TF's custom gradient fail: float64 * float32 Mul).


@tf.custom_gradient
def grad_reverse(x, hp_lambda):
    y = tf.identity(x)

    def custom_grad(dy):
        return -hp_lambda * dy, None

    return y, custom_grad


class GradReverse(tf.keras.layers.Layer):
    def __init__(self, hp_lambda=1.0):
        super().__init__(name="grl")
        self.hp_lambda = hp_lambda

    def call(self, x):
        return grad_reverse(x, self.hp_lambda)


Conv2D, MaxPool2D, Dense = tf.keras.layers.Conv2D, tf.keras.layers.MaxPool2D, tf.keras.layers.Dense


def get_adaptable_network(input_shape=(8, 8, 1)):
    inputs = tf.keras.Input(shape=input_shape)
    x = Conv2D(4, 3, padding="same", activation="relu", name="conv2d_1")(inputs)
    x = MaxPool2D(pool_size=2, strides=2, name="max_pooling2d_1")(x)
    x = Conv2D(6, 3, padding="same", activation="relu", name="conv2d_2")(x)
    x = MaxPool2D(pool_size=2, strides=2, name="max_pooling2d_2")(x)
    features = tf.keras.layers.Flatten(name="flatten_1")(x)
    x = Dense(16, activation="relu", name="dense_digits_1")(features)
    digits_classifier = Dense(4, activation="softmax", name="digits_classifier")(x)
    grl = GradReverse()
    domain_branch = Dense(16, activation="relu", name="dense_domain")(grl(features))
    domain_classifier = Dense(1, activation="sigmoid", name="domain_classifier")(domain_branch)
    return tf.keras.Model(inputs=inputs, outputs=[digits_classifier, domain_classifier]), grl


model, grl = get_adaptable_network()
model.set_weights([w * 0.5 for w in weights_like(model, 71)])
optimizer = tf.keras.optimizers.SGD(learning_rate=0.01, momentum=0.9, nesterov=True)
cce = tf.keras.losses.SparseCategoricalCrossentropy()
bce = tf.keras.losses.BinaryCrossentropy()
model.compile(optimizer=optimizer, loss=[cce, bce], metrics=["accuracy", "accuracy"])

# The reversal alone: identity forward, -lambda * dy back.
probe = tf.constant([[1.0, -2.0, 3.0]])
grl.hp_lambda = 0.5
with tf.GradientTape() as tape:
    tape.watch(probe)
    out = grl(probe)
    s = tf.reduce_sum(out * tf.constant([[1.0, 2.0, 3.0]]))
emit("grl forward", out)
emit("grl gradient", tape.gradient(s, probe))

rs = np.random.RandomState(72)
x_source = rs.rand(24, 8, 8, 1).astype("float32")
y_source = rs.randint(0, 4, 24)
x_target = (rs.rand(24, 8, 8, 1) * 0.5 + 0.25).astype("float32")
epochs, batches, bs = 2, 3, 8
variables_but_classifier = [v for v in model.trainable_variables if "digits" not in v.path]
emit("variables but classifier", len(variables_but_classifier))

records, global_step = [], 0
for epoch in range(epochs):
    epoch_source_digits = tf.keras.metrics.Mean()
    epoch_source_domains = tf.keras.metrics.Mean()
    epoch_target_domains = tf.keras.metrics.Mean()
    epoch_accuracy = tf.keras.metrics.SparseCategoricalAccuracy()
    for i in range(batches):
        p = global_step / (epochs * batches)
        grl.hp_lambda = float(2.0 / (1.0 + np.exp(-10.0 * p)) - 1.0)
        global_step += 1
        sl = slice(i * bs, (i + 1) * bs)
        xs, ys, ds = x_source[sl], y_source[sl], np.zeros((bs, 1), "float32")
        with tf.GradientTape() as tape:
            digits_prob, domains_probs = model(xs)
            digits_loss = cce(ys, digits_prob)
            domains_loss = bce(ds, domains_probs)
            source_loss = digits_loss + 0.2 * domains_loss
        gradients = tape.gradient(source_loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        epoch_source_digits(digits_loss)
        epoch_source_domains(domains_loss)
        epoch_accuracy(ys, digits_prob)

        xt, dt = x_target[sl], np.ones((bs, 1), "float32")
        with tf.GradientTape() as tape:
            _, domains_probs = model(xt)
            target_loss = 0.2 * bce(dt, domains_probs)
        tgrads = tape.gradient(target_loss, variables_but_classifier)
        optimizer.apply_gradients(zip(tgrads, variables_but_classifier))
        epoch_target_domains(target_loss)
        records.append([float(source_loss), float(target_loss)])
    emit(f"epoch {epoch}", [epoch_source_digits.result(), epoch_accuracy.result(),
                            epoch_source_domains.result(), epoch_target_domains.result()])
emit("step losses", records)
emit("source gradients", gradients)
emit("target gradients", tgrads)
emit("weights", model.get_weights())
emit("iterations", int(optimizer.iterations))

# The compiled model (the lab compiles it with both losses): one fit epoch on
# the source, the reversal inside fit's tf.function.
hist = model.fit(x_source, [y_source, np.zeros((24, 1), "float32")], batch_size=8, epochs=1,
                 shuffle=False, verbose=0)
emit("fit history", [hist.history[k] for k in sorted(hist.history)])
emit("fit weights", model.get_weights()[:2])
