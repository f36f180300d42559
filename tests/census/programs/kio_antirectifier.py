# Simple custom layer example: Antirectifier: keras-team/keras-io examples/keras_recipes/antirectifier.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/keras_recipes/antirectifier.py
# commit: 2dd71c68bd2a1ebbe588f3571571abcb16d96c27
# families: 
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the MNIST download is 256 + 64 generated images in its format (uint8 28x28, uint8 labels);
# - sizes: Dense(256) are Dense(16); epochs: 20 are 2; fit's shuffling is off (shuffle=False);
#   fit's history and evaluate's result are shown;
# - determinism: Dropout(0.5) is Dropout(0.0) (TF's random masks are TF's generator's)
#

# [cell 1]
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

# [cell 2]
class Antirectifier(layers.Layer):
    def __init__(self, initializer="he_normal", **kwargs):
        super(Antirectifier, self).__init__(**kwargs)
        self.initializer = keras.initializers.get(initializer)

    def build(self, input_shape):
        output_dim = input_shape[-1]
        self.kernel = self.add_weight(
            shape=(output_dim * 2, output_dim),
            initializer=self.initializer,
            name="kernel",
            trainable=True,
        )

    def call(self, inputs):
        inputs -= tf.reduce_mean(inputs, axis=-1, keepdims=True)
        pos = tf.nn.relu(inputs)
        neg = tf.nn.relu(-inputs)
        concatenated = tf.concat([pos, neg], axis=-1)
        mixed = tf.matmul(concatenated, self.kernel)
        return mixed

    def get_config(self):
        # Implement get_config to enable serialization. This is optional.
        base_config = super(Antirectifier, self).get_config()
        config = {"initializer": keras.initializers.serialize(self.initializer)}
        return dict(list(base_config.items()) + list(config.items()))

# [cell 3]
# Training parameters
batch_size = 128
num_classes = 10
epochs = 2

# The data, split between train and test sets
(x_train, y_train), (x_test, y_test) = _mnist_like(256, 64)

x_train = x_train.reshape(-1, 784)
x_test = x_test.reshape(-1, 784)
x_train = x_train.astype("float32")
x_test = x_test.astype("float32")
x_train /= 255
x_test /= 255
print(x_train.shape[0], "train samples")
print(x_test.shape[0], "test samples")

# Build the model
model = keras.Sequential(
    [
        keras.Input(shape=(784,)),
        layers.Dense(16),
        Antirectifier(),
        layers.Dense(16),
        Antirectifier(),
        layers.Dropout(0.0),
        layers.Dense(10),
    ]
)

# Compile the model
model.compile(
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    optimizer=keras.optimizers.RMSprop(),
    metrics=[keras.metrics.SparseCategoricalAccuracy()],
)

# Train the model
show(model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs, validation_split=0.15, shuffle=False))

# Test the model
show(model.evaluate(x_test, y_test))
