# Trainer pattern: keras-team/keras-io examples/keras_recipes/trainer_pattern.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/keras_recipes/trainer_pattern.py
# commit: 3aca0563e5cebb3e442bee3f7c30adc53cfe3102
# families: 
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the MNIST download is 256 + 64 generated images in its format (uint8 28x28, uint8 labels);
# - sizes: Dense(256) and Dense(512) are Dense(32); epochs: 5 are 2;
# - determinism: Dropout(0.2)/(0.4) are Dropout(0.0) (TF's random masks are TF's generator's);
#   fit's shuffling is off (shuffle=False); each fit's history is shown
#

# [cell 1]
import tensorflow as tf
from tensorflow import keras

# Load MNIST dataset and standardize the data
class mnist:
    load_data = staticmethod(lambda: _mnist_like(256, 64))
(x_train, y_train), (x_test, y_test) = mnist.load_data()
x_train, x_test = x_train / 255.0, x_test / 255.0

# [cell 2]
class MyTrainer(keras.Model):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self.model(x, training=True)  # Forward pass
            # Compute loss value
            loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)

        # Compute gradients
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)

        # Update weights
        self.optimizer.apply_gradients(zip(gradients, trainable_vars))

        # Update metrics configured in `compile()`
        self.compiled_metrics.update_state(y, y_pred)

        # Return a dict mapping metric names to current value.
        return {m.name: m.result() for m in self.metrics}

    def call(self, x):
        # Equivalent to `call()` of the wrapped keras.Model
        x = self.model(x)
        return x

# [cell 3]
# A model defined using Sequential API
model_a = keras.models.Sequential(
    [
        keras.layers.Flatten(input_shape=(28, 28)),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dropout(0.0),
        keras.layers.Dense(10, activation="softmax"),
    ]
)

# A model defined using Functional API
func_input = keras.Input(shape=(28, 28, 1))
x = keras.layers.Flatten(input_shape=(28, 28))(func_input)
x = keras.layers.Dense(32, activation="relu")(x)
x = keras.layers.Dropout(0.0)(x)
func_output = keras.layers.Dense(10, activation="softmax")(x)

model_b = keras.Model(func_input, func_output)

# [cell 4]
trainer_1 = MyTrainer(model_a)
trainer_2 = MyTrainer(model_b)

# [cell 5]
trainer_1.compile(
    keras.optimizers.SGD(), loss="sparse_categorical_crossentropy", metrics=["accuracy"]
)
show(trainer_1.fit(
    x_train, y_train, epochs=2, batch_size=64, validation_data=(x_test, y_test), shuffle=False
))

trainer_2.compile(
    keras.optimizers.Adam(),
    loss="sparse_categorical_crossentropy",
    metrics=["accuracy"],
)
show(trainer_2.fit(
    x_train, y_train, epochs=2, batch_size=64, validation_data=(x_test, y_test), shuffle=False
))
