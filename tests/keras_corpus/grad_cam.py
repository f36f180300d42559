# keras.io "Grad-CAM class activation visualization", shrunk: a small CNN, a model
# mapping the input to the last conv layer's activations and the predictions, the
# gradient of the top class w.r.t. those activations, the heatmap.
inputs = tf.keras.Input((10, 10, 3))
h = tf.keras.layers.Conv2D(4, 3, activation="relu", name="conv1")(inputs)
h = tf.keras.layers.Conv2D(6, 3, activation="relu", name="last_conv")(h)
h = tf.keras.layers.GlobalAveragePooling2D()(h)
outputs = tf.keras.layers.Dense(3)(h)
model = tf.keras.Model(inputs, outputs)
model.set_weights([w + 0.3 for w in weights_like(model, 17)])
img_array = np.random.RandomState(18).uniform(0, 1, (1, 10, 10, 3)).astype("float32")


def make_gradcam_heatmap(img_array, model, last_conv_layer_name, pred_index=None):
    grad_model = tf.keras.models.Model(
        model.inputs, [model.get_layer(last_conv_layer_name).output, model.output])
    with tf.GradientTape() as tape:
        last_conv_layer_output, preds = grad_model(img_array)
        if pred_index is None:
            pred_index = tf.argmax(preds[0])
        class_channel = preds[:, pred_index]
    grads = tape.gradient(class_channel, last_conv_layer_output)
    pooled_grads = tf.reduce_mean(grads, axis=(0, 1, 2))
    last_conv_layer_output = last_conv_layer_output[0]
    heatmap = last_conv_layer_output @ pooled_grads[..., tf.newaxis]
    heatmap = tf.squeeze(heatmap)
    heatmap = tf.maximum(heatmap, 0) / tf.math.reduce_max(heatmap)
    return pooled_grads, heatmap


pooled, heatmap = make_gradcam_heatmap(img_array, model, "last_conv")
emit("pooled", pooled)
emit("heatmap", heatmap)
