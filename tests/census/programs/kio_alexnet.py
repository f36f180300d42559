# Image Classification with AlexNet: keras-team/keras-io examples/vision/alexnet.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/vision/alexnet.py
# commit: 681f7168dcdede35240e5ad2b65f5c01f3799de0
# families: 
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the CIFAR-10 download is 128 + 64 generated images in its format (uint8 32x32x3,
#   uint8 labels of shape (n, 1)), written by the program (_cifar10.load_data);
# - sizes: IMAGE_SIZE 227 is 67; the Conv2D 96/256/384/384/256 are 8/16/16/16/16 and the
#   Dense(4096) are Dense(32); epochs: EPOCHS 50 are 2; fit's history is shown (added);
# - determinism: the Dropout(0.5) are Dropout(0.0) (their masks are the backend's generator's)
#

# [cell 1]
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt

import tensorflow as tf
from tensorflow import keras

SEEDS = 42

np.random.seed(SEEDS)
tf.random.set_seed(SEEDS)

# [cell 2]
class _cifar10:
    @staticmethod
    def load_data():
        # CIFAR-10's load_data format: uint8 images (n, 32, 32, 3), uint8 labels (n, 1);
        # each class a colour and a bright square at its own place, with noise
        rs = np.random.RandomState(0)
        def part(n):
            y = rs.randint(0, 10, (n, 1)).astype("uint8")
            x = rs.randint(0, 80, (n, 32, 32, 3))
            for i, c in enumerate(y[:, 0]):
                x[i, :, :, c % 3] += 40 + 10 * c
                r, q = 2 + 5 * (c % 5), 4 + 14 * (c // 5)
                x[i, r:r + 10, q:q + 10] += 120
            return x.clip(0, 255).astype("uint8"), y
        return part(128), part(64)

(x_train, y_train), (x_test, y_test) = _cifar10.load_data()

print(x_train.shape)
print(y_train.shape)
print(x_test.shape)
print(y_test.shape)

# Class name
class_names = [
    "Airplane",
    "Automobile",
    "Bird",
    "Cat",
    "Deer",
    "Dog",
    "Frog",
    "Horse",
    "Ship",
    "Truck",
]

# [cell 3]
AUTO = tf.data.AUTOTUNE
BATCH_SIZE = 64
IMAGE_SIZE = 67  # image size expected by alexnet model
NUM_CLASSES = 10
EPOCHS = 2
LEARNING_RATE = 0.001

# [cell 4]
def preprocess_image(image, label):
    image = tf.image.resize(image, (IMAGE_SIZE, IMAGE_SIZE))
    image = tf.image.convert_image_dtype(image, tf.float32) / 255.0
    return image, label

# [cell 5]
train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train))
validation_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test))

# [cell 6]
# Training pipeline
pipeline_train = (
    train_ds.map(preprocess_image, num_parallel_calls=AUTO)
    .batch(BATCH_SIZE)
    .prefetch(AUTO)
)

# Validation pipeline
pipeline_validation = (
    validation_ds.map(preprocess_image, num_parallel_calls=AUTO)
    .batch(BATCH_SIZE)
    .prefetch(AUTO)
)

# [cell 7]
# Let's preview 9 samples from the dataset
image_batch, label_batch = next(iter(pipeline_train))

plt.figure(figsize=(10, 10))
for i in range(9):
    ax = plt.subplot(3, 3, i + 1)
    plt.imshow(image_batch[i])
    plt.axis("off")

# [cell 8]
def get_training_model():
    model = keras.Sequential(
        [
            keras.layers.Conv2D(
                filters=8,
                kernel_size=(11, 11),
                strides=(4, 4),
                activation="relu",
                input_shape=(IMAGE_SIZE, IMAGE_SIZE, 3),
            ),
            keras.layers.BatchNormalization(),
            keras.layers.MaxPool2D(pool_size=(3, 3), strides=(2, 2)),
            keras.layers.Conv2D(
                filters=16,
                kernel_size=(5, 5),
                strides=(1, 1),
                activation="relu",
                padding="same",
            ),
            keras.layers.BatchNormalization(),
            keras.layers.MaxPool2D(pool_size=(3, 3), strides=(2, 2)),
            keras.layers.Conv2D(
                filters=16,
                kernel_size=(3, 3),
                strides=(1, 1),
                activation="relu",
                padding="same",
            ),
            keras.layers.BatchNormalization(),
            keras.layers.Conv2D(
                filters=16,
                kernel_size=(3, 3),
                strides=(1, 1),
                activation="relu",
                padding="same",
            ),
            keras.layers.BatchNormalization(),
            keras.layers.Conv2D(
                filters=16,
                kernel_size=(3, 3),
                strides=(1, 1),
                activation="relu",
                padding="same",
            ),
            keras.layers.BatchNormalization(),
            keras.layers.MaxPool2D(pool_size=(3, 3), strides=(2, 2)),
            keras.layers.Flatten(),
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dropout(0.0),
            keras.layers.Dense(32, activation="relu"),
            keras.layers.Dropout(0.0),
            keras.layers.Dense(NUM_CLASSES, activation="softmax"),
        ]
    )
    return model


model = get_training_model()
model.summary()

# [cell 9]
optimizer = keras.optimizers.SGD(learning_rate=LEARNING_RATE)
loss_fn = keras.losses.SparseCategoricalCrossentropy()

model.compile(loss=loss_fn, optimizer=optimizer, metrics=["accuracy"])

# [cell 10]
history = model.fit(
    pipeline_train,
    epochs=EPOCHS,
    batch_size=BATCH_SIZE,
    validation_data=pipeline_validation,
)
show(history)

# [cell 11]
def plot_hist(hist):
    plt.plot(hist.history["accuracy"])
    plt.plot(hist.history["val_accuracy"])
    plt.title("Training Progress")
    plt.ylabel("Accuracy")
    plt.xlabel("Epochs")
    plt.legend(["train_acc", "val_acc"], loc="lower right")
    plt.show()


plot_hist(history)

# [cell 12]
accuracy = model.evaluate(pipeline_validation)[1] * 100
print("Accuracy: {:.2f}%".format(accuracy))
