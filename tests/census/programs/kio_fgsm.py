# Adversarial examples generation from scratch: keras-team/keras-io examples/vision/fgsm.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/vision/fgsm.py
# commit: 9fc68971aff89ad922299debfb5d1440e2e6240b
# families: 
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the MNIST download is 512 + 256 generated images in its format (_mnist_like);
# - sizes: the Conv2D 32/64 are 8/16 and the Dense(128) is Dense(32); epochs: 10 are 2;
# - determinism: the Dropout(0.25) and Dropout(0.5) are Dropout(0.0) (their masks are TF's
#   generator's); fit's shuffling is off (shuffle=False), its history shown; added: the
#   gradient's sum of absolute values and the first predictions are shown
#

# [cell 1]
import tensorflow as tf
from tensorflow import keras
import numpy as np
from keras import layers
import matplotlib.pyplot as plt

# [cell 2]
epsilon = [0, 0.1, 0.15, 0.2, 0.25, 0.30, 0.35]

# [cell 3]
(train_images, train_labels), (
    test_images,
    test_labels,
) = _mnist_like(512, 256)

train_images = train_images.astype("float32") / 255
test_images = test_images.astype("float32") / 255
train_images = train_images.reshape((*train_images.shape, 1))
test_images = test_images.reshape((*test_images.shape, 1))

# [cell 4]
input = keras.Input((28, 28, 1))
x = layers.Conv2D(8, 3, strides=1, activation="relu")(input)
x = layers.Conv2D(16, 3, strides=1, activation="relu")(x)
x = layers.MaxPooling2D(2)(x)
x = layers.Dropout(0.0)(x)
x = layers.Flatten()(x)
x = layers.Dense(32, activation="relu")(x)
x = layers.Dropout(0.0)(x)
output = layers.Dense(10, activation="softmax")(x)

model = keras.Model(inputs=input, outputs=output)

model.compile(
    optimizer="rmsprop", loss="sparse_categorical_crossentropy", metrics=["accuracy"]
)

show(model.fit(train_images, train_labels, epochs=2, batch_size=128, validation_split=0.2,
               shuffle=False))

# [cell 5]
datas = tf.constant(test_images[:256])
targets = tf.constant(test_labels[:256].astype("float16"))

# [cell 6]
with tf.GradientTape() as tape:
    tape.watch(datas)
    tape.watch(targets)
    outs = model(datas)
    sparse_crossentropy_loss = tf.losses.SparseCategoricalCrossentropy()
    loss = sparse_crossentropy_loss(targets, outs)

datas_grad = tape.gradient(loss, datas)
perturbed_datas = datas + epsilon[1] * tf.sign(datas_grad)
show(tf.reduce_sum(tf.abs(datas_grad)))

# [cell 7]
prediction = model(datas).numpy().argmax(axis=1)
adv_prediction = model(perturbed_datas).numpy().argmax(axis=1)
result = prediction == adv_prediction
inconsistent_result = np.argwhere(result == False).squeeze()
print(f"Attck Success Rate: {len(inconsistent_result) / len(result): .4f}")
show(prediction[:16])
show(adv_prediction[:16])

index = inconsistent_result[0]

ex = tf.squeeze(datas[index]).numpy()
pre = prediction[index]
adv = tf.squeeze(perturbed_datas[index]).numpy()
adv_pre = adv_prediction[index]

plt.figure(figsize=(8, 10))

plt.subplot(1, 2, 1)
plt.title(f"Predict: {pre}")
plt.xticks([], [])
plt.yticks([], [])
plt.imshow(ex, cmap="gray")

plt.subplot(1, 2, 2)
plt.title(f"Attack: {adv_pre}")
plt.xticks([], [])
plt.yticks([], [])
plt.imshow(adv, cmap="gray")
plt.show()
