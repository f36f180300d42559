# TF tutorial "Adversarial example using FGSM", shrunk: a small CNN instead of
# MobileNetV2, the loss gradient w.r.t. the image, its sign, the perturbed
# predictions for several epsilons.
model = tf.keras.Sequential([
    tf.keras.Input((8, 8, 3)),
    tf.keras.layers.Conv2D(4, 3, activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(5, activation="softmax"),
])
model.set_weights(weights_like(model, 13))
loss_object = tf.keras.losses.CategoricalCrossentropy()
image = tf.constant(np.random.RandomState(14).uniform(-1, 1, (1, 8, 8, 3)).astype("float32"))
label = tf.one_hot(2, 5)
label = tf.reshape(label, (1, 5))


def create_adversarial_pattern(input_image, input_label):
    with tf.GradientTape() as tape:
        tape.watch(input_image)
        prediction = model(input_image)
        loss = loss_object(input_label, prediction)
    gradient = tape.gradient(loss, input_image)
    signed_grad = tf.sign(gradient)
    return gradient, signed_grad


gradient, perturbations = create_adversarial_pattern(image, label)
emit("gradient", gradient)
emit("perturbations", perturbations)
for eps in (0.01, 0.1, 0.15):
    adv_x = tf.clip_by_value(image + eps * perturbations, -1, 1)
    emit(f"pred {eps}", model(adv_x))
