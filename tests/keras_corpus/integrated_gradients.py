# TF tutorial "Integrated gradients", shrunk: a small CNN, a black baseline,
# interpolated images, gradients of the target class probability w.r.t. the
# batch of interpolations, the Riemann trapezoidal integral, the attribution mask.
model = tf.keras.Sequential([
    tf.keras.Input((6, 6, 1)),
    tf.keras.layers.Conv2D(3, 3, activation="tanh"),
    tf.keras.layers.GlobalAveragePooling2D(),
    tf.keras.layers.Dense(4),
    tf.keras.layers.Softmax(),
])
model.set_weights(weights_like(model, 15))
image = tf.constant(np.random.RandomState(16).uniform(0, 1, (6, 6, 1)).astype("float32"))
baseline = tf.zeros(shape=(6, 6, 1))
m_steps = 8
alphas = tf.linspace(start=0.0, stop=1.0, num=m_steps + 1)


def interpolate_images(baseline, image, alphas):
    alphas_x = alphas[:, tf.newaxis, tf.newaxis, tf.newaxis]
    baseline_x = tf.expand_dims(baseline, axis=0)
    input_x = tf.expand_dims(image, axis=0)
    delta = input_x - baseline_x
    return baseline_x + alphas_x * delta


def compute_gradients(images, target_class_idx):
    with tf.GradientTape() as tape:
        tape.watch(images)
        probs = model(images)[:, target_class_idx]
    return tape.gradient(probs, images)


def integral_approximation(gradients):
    grads = (gradients[:-1] + gradients[1:]) / tf.constant(2.0)
    return tf.math.reduce_mean(grads, axis=0)


interpolated = interpolate_images(baseline, image, alphas)
path_gradients = compute_gradients(interpolated, target_class_idx=1)
ig = integral_approximation(path_gradients)
integrated_gradients = (image - baseline) * ig
attribution_mask = tf.reduce_sum(tf.math.abs(integrated_gradients), axis=-1)
emit("path_gradients", path_gradients)
emit("integrated_gradients", integrated_gradients)
emit("mask", attribution_mask)
