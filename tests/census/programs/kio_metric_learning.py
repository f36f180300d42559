# Metric learning for image similarity search: keras-team/keras-io examples/vision/metric_learning.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/vision/metric_learning.py
# commit: 07b7917af1240dcebad7d0198330f32e6acc4439
# families: 
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - another library: scikit-learn is not installed with the tests: `from sklearn.metrics import
#   ConfusionMatrixDisplay` is a stand-in written in the program, whose plot shows the matrix;
# - data: the CIFAR-10 download is 500 + 100 generated images in its format (uint8 32x32x3,
#   uint8 labels of shape (n, 1)); the collage's sample_idxs randint(0, 50000) is randint(0, 500);
#   the collages (PIL images) are shown as arrays;
# - sizes: the Conv2D filters 32/64/128 are 8/8/8; num_batchs=1000 is 20; epochs: 20 are 2;
#   fit's shuffling is off (shuffle=False); fit's history is shown;
# - TF 2.21 cannot run tf.nn.l2_normalize on a Keras symbolic tensor (Keras 3 refuses TF ops on a
#   functional model's KerasTensors): the call is wrapped in a layers.Lambda
#

# [cell 1]
import random
import matplotlib.pyplot as plt
import numpy as np
import tensorflow as tf
from collections import defaultdict
from PIL import Image
class ConfusionMatrixDisplay:
    # scikit-learn's ConfusionMatrixDisplay (not installed with the tests): its plot draws the matrix
    def __init__(self, confusion_matrix, display_labels=None):
        self.confusion_matrix = confusion_matrix
    def plot(self, **kwargs):
        plt.imshow(self.confusion_matrix)
        return self
from tensorflow import keras
from tensorflow.keras import layers

# [cell 2]
class cifar10:
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
        return part(500), part(100)

(x_train, y_train), (x_test, y_test) = cifar10.load_data()

x_train = x_train.astype("float32") / 255.0
y_train = np.squeeze(y_train)
x_test = x_test.astype("float32") / 255.0
y_test = np.squeeze(y_test)

# [cell 3]
height_width = 32


def show_collage(examples):
    box_size = height_width + 2
    num_rows, num_cols = examples.shape[:2]

    collage = Image.new(
        mode="RGB",
        size=(num_cols * box_size, num_rows * box_size),
        color=(250, 250, 250),
    )
    for row_idx in range(num_rows):
        for col_idx in range(num_cols):
            array = (np.array(examples[row_idx, col_idx]) * 255).astype(np.uint8)
            collage.paste(
                Image.fromarray(array), (col_idx * box_size, row_idx * box_size)
            )

    # Double size for visualisation.
    collage = collage.resize((2 * num_cols * box_size, 2 * num_rows * box_size))
    return collage


# Show a collage of 5x5 random images.
sample_idxs = np.random.randint(0, 500, size=(5, 5))
examples = x_train[sample_idxs]
show(np.asarray(show_collage(examples)))

# [cell 4]
class_idx_to_train_idxs = defaultdict(list)
for y_train_idx, y in enumerate(y_train):
    class_idx_to_train_idxs[y].append(y_train_idx)

class_idx_to_test_idxs = defaultdict(list)
for y_test_idx, y in enumerate(y_test):
    class_idx_to_test_idxs[y].append(y_test_idx)

# [cell 5]
num_classes = 10


class AnchorPositivePairs(keras.utils.Sequence):
    def __init__(self, num_batchs):
        self.num_batchs = num_batchs

    def __len__(self):
        return self.num_batchs

    def __getitem__(self, _idx):
        x = np.empty((2, num_classes, height_width, height_width, 3), dtype=np.float32)
        for class_idx in range(num_classes):
            examples_for_class = class_idx_to_train_idxs[class_idx]
            anchor_idx = random.choice(examples_for_class)
            positive_idx = random.choice(examples_for_class)
            while positive_idx == anchor_idx:
                positive_idx = random.choice(examples_for_class)
            x[0, class_idx] = x_train[anchor_idx]
            x[1, class_idx] = x_train[positive_idx]
        return x

# [cell 6]
examples = next(iter(AnchorPositivePairs(num_batchs=1)))

show(np.asarray(show_collage(examples)))

# [cell 7]
class EmbeddingModel(keras.Model):
    def train_step(self, data):
        # Note: Workaround for open issue, to be removed.
        if isinstance(data, tuple):
            data = data[0]
        anchors, positives = data[0], data[1]

        with tf.GradientTape() as tape:
            # Run both anchors and positives through model.
            anchor_embeddings = self(anchors, training=True)
            positive_embeddings = self(positives, training=True)

            # Calculate cosine similarity between anchors and positives. As they have
            # been normalised this is just the pair wise dot products.
            similarities = tf.einsum(
                "ae,pe->ap", anchor_embeddings, positive_embeddings
            )

            # Since we intend to use these as logits we scale them by a temperature.
            # This value would normally be chosen as a hyper parameter.
            temperature = 0.2
            similarities /= temperature

            # We use these similarities as logits for a softmax. The labels for
            # this call are just the sequence [0, 1, 2, ..., num_classes] since we
            # want the main diagonal values, which correspond to the anchor/positive
            # pairs, to be high. This loss will move embeddings for the
            # anchor/positive pairs together and move all other pairs apart.
            sparse_labels = tf.range(num_classes)
            loss = self.compiled_loss(sparse_labels, similarities)

        # Calculate gradients and apply via optimizer.
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))

        # Update and return metrics (specifically the one for the loss value).
        self.compiled_metrics.update_state(sparse_labels, similarities)
        return {m.name: m.result() for m in self.metrics}

# [cell 8]
inputs = layers.Input(shape=(height_width, height_width, 3))
x = layers.Conv2D(filters=8, kernel_size=3, strides=2, activation="relu")(inputs)
x = layers.Conv2D(filters=8, kernel_size=3, strides=2, activation="relu")(x)
x = layers.Conv2D(filters=8, kernel_size=3, strides=2, activation="relu")(x)
x = layers.GlobalAveragePooling2D()(x)
embeddings = layers.Dense(units=8, activation=None)(x)
embeddings = layers.Lambda(lambda e: tf.nn.l2_normalize(e, axis=-1))(embeddings)

model = EmbeddingModel(inputs, embeddings)

# [cell 9]
model.compile(
    optimizer=keras.optimizers.Adam(learning_rate=1e-3),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
)

history = show(model.fit(AnchorPositivePairs(num_batchs=20), epochs=2, shuffle=False))

plt.plot(history.history["loss"])
plt.show()

# [cell 10]
near_neighbours_per_example = 10

embeddings = model.predict(x_test)
gram_matrix = np.einsum("ae,be->ab", embeddings, embeddings)
near_neighbours = np.argsort(gram_matrix.T)[:, -(near_neighbours_per_example + 1) :]

# [cell 11]
num_collage_examples = 5

examples = np.empty(
    (
        num_collage_examples,
        near_neighbours_per_example + 1,
        height_width,
        height_width,
        3,
    ),
    dtype=np.float32,
)
for row_idx in range(num_collage_examples):
    examples[row_idx, 0] = x_test[row_idx]
    anchor_near_neighbours = reversed(near_neighbours[row_idx][:-1])
    for col_idx, nn_idx in enumerate(anchor_near_neighbours):
        examples[row_idx, col_idx + 1] = x_test[nn_idx]

show(np.asarray(show_collage(examples)))

# [cell 12]
confusion_matrix = np.zeros((num_classes, num_classes))

# For each class.
for class_idx in range(num_classes):
    # Consider 10 examples.
    example_idxs = class_idx_to_test_idxs[class_idx][:10]
    for y_test_idx in example_idxs:
        # And count the classes of its near neighbours.
        for nn_idx in near_neighbours[y_test_idx][:-1]:
            nn_class_idx = y_test[nn_idx]
            confusion_matrix[class_idx, nn_class_idx] += 1

# Display a confusion matrix.
labels = [
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
disp = ConfusionMatrixDisplay(confusion_matrix=confusion_matrix, display_labels=labels)
disp.plot(include_values=True, cmap="viridis", ax=None, xticks_rotation="vertical")
plt.show()
