# TF tutorial "Neural style transfer", shrunk: a small frozen conv "feature
# extractor" (a functional model with two outputs), Gram matrices by
# tf.linalg.einsum, style and content losses, total variation, the image a
# tf.Variable optimised by Adam and clipped to [0, 1] by assign.
inputs = tf.keras.Input((8, 8, 3))
c1 = tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu", name="block1")(inputs)
c2 = tf.keras.layers.Conv2D(5, 3, padding="same", activation="relu", name="block2")(c1)
extractor = tf.keras.Model(inputs, [c1, c2])
extractor.set_weights(weights_like(extractor, 36))
extractor.trainable = False


def gram_matrix(input_tensor):
    result = tf.linalg.einsum("bijc,bijd->bcd", input_tensor, input_tensor)
    input_shape = tf.shape(input_tensor)
    num_locations = tf.cast(input_shape[1] * input_shape[2], tf.float32)
    return result / num_locations


rs = np.random.RandomState(37)
style_image = tf.constant(rs.uniform(0, 1, (1, 8, 8, 3)).astype("float32"))
content_image = tf.constant(rs.uniform(0, 1, (1, 8, 8, 3)).astype("float32"))
style_targets = gram_matrix(extractor(style_image)[0])
content_targets = extractor(content_image)[1]
image = tf.Variable(content_image)
opt = tf.keras.optimizers.Adam(learning_rate=0.02, beta_1=0.99, epsilon=1e-1)


def clip_0_1(image):
    return tf.clip_by_value(image, clip_value_min=0.0, clip_value_max=1.0)


def style_content_loss(outputs):
    style_loss = tf.reduce_mean((gram_matrix(outputs[0]) - style_targets) ** 2)
    content_loss = tf.reduce_mean((outputs[1] - content_targets) ** 2)
    return 1e-2 * style_loss + 1e4 * content_loss * 1e-4


losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        outputs = extractor(image)
        loss = style_content_loss(outputs)
        loss += 0.1 * tf.image.total_variation(image)[0]
    grad = tape.gradient(loss, image)
    opt.apply_gradients([(grad, image)])
    image.assign(clip_0_1(image))
    losses.append(float(loss))
emit("losses", losses)
emit("image", image[0, :2, :2, :])
emit("trainable", len(extractor.trainable_variables))
