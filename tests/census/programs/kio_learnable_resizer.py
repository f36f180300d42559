# Learning to Resize in Computer Vision: keras-team/keras-io examples/vision/learnable_resizer.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/vision/learnable_resizer.py
# commit: 05bb46b409a14ad675e7b2556d56a56f2bcca4c8
# families: 
# expected: gap: float rounding amplified by a chaotic training (cause found, not eagertape's): cell 7's fit of DenseNet121 (training-mode BatchNormalization over batches of 8, 1x1 maps in its last block) with SGD turns any rounding difference into another history: TF itself, its initial weights scaled by 1 + 1e-6 noise, gives loss [1.2078, 1.2060] (stored run [1.0311, 1.4398]); eagertape's values before fit (both resizer plots) are TF's, and at the first batch its training-mode predictions (max difference 8e-6), loss (6e-8) and gradients (median 5e-5 relative, at most 1e-2 on conv1_bn/gamma) are TF's, but fit's history differs from its first epoch (loss 1.0463, TF 1.0311), in eager and fused mode; at TARGET_SIZE 64 TF's own perturbed run differs as much (second epoch loss 0.495 vs 0.640)
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data and another library: tensorflow_datasets is not installed with the tests and cats_vs_dogs is
#   a download: `import tensorflow_datasets as tfds` is a stand-in whose load('cats_vs_dogs', ...)
#   gives 16 + 8 generated images in its as_supervised format (uint8 RGB images of 40-56 x 44-60
#   pixels, int64 labels 0/1), one dataset per split string;
# - sizes: INP_SIZE (300, 300) is (64, 64), TARGET_SIZE (150, 150) is (32, 32) (DenseNet121's
#   smallest input); BATCH_SIZE 64 is 8; EPOCHS 5 are 2; fit's history is shown (added);
# - determinism: the training dataset's shuffle(BATCH_SIZE * 100) is left out (TF's shuffle
#   order is TF's generator's)
#

# [cell 1]
from tensorflow.keras import layers
from tensorflow import keras
import tensorflow as tf

class tfds:
    # tensorflow_datasets (not installed with the tests; cats_vs_dogs a download):
    # cats_vs_dogs' as_supervised format, generated: uint8 RGB images of varying sizes,
    # int64 labels (0 cat, 1 dog), one dataset per split string
    @staticmethod
    def disable_progress_bar():
        pass
    @staticmethod
    def load(name, split, as_supervised=True):
        rs = np.random.RandomState(7)
        def part(n):
            images, labels = [], []
            for i in range(n):
                c = rs.randint(0, 2)
                h, w = rs.randint(40, 57), rs.randint(44, 61)
                img = rs.randint(0, 90, (h, w, 3))
                img[:, :, 2 * c] += 100
                img[h // 3: h // 3 + 10 + 8 * c, w // 4: w // 2] += 60
                images.append(img.clip(0, 255).astype("uint8"))
                labels.append(c)
            return tf.data.Dataset.from_generator(
                lambda: iter(zip(images, np.array(labels, "int64"))),
                output_signature=(tf.TensorSpec((None, None, 3), tf.uint8),
                                  tf.TensorSpec((), tf.int64)))
        return [part(n) for n in (16, 8)[:len(split)]]

tfds.disable_progress_bar()

import matplotlib.pyplot as plt
import numpy as np

# [cell 2]
INP_SIZE = (64, 64)
TARGET_SIZE = (32, 32)
INTERPOLATION = "bilinear"

AUTO = tf.data.AUTOTUNE
BATCH_SIZE = 8
EPOCHS = 2

# [cell 3]
train_ds, validation_ds = tfds.load(
    "cats_vs_dogs",
    # Reserve 10% for validation
    split=["train[:40%]", "train[40%:50%]"],
    as_supervised=True,
)


def preprocess_dataset(image, label):
    image = tf.image.resize(image, (INP_SIZE[0], INP_SIZE[1]))
    label = tf.one_hot(label, depth=2)
    return (image, label)


train_ds = (
    train_ds
    .map(preprocess_dataset, num_parallel_calls=AUTO)
    .batch(BATCH_SIZE)
    .prefetch(AUTO)
)
validation_ds = (
    validation_ds.map(preprocess_dataset, num_parallel_calls=AUTO)
    .batch(BATCH_SIZE)
    .prefetch(AUTO)
)

# [cell 4]
def conv_block(x, filters, kernel_size, strides, activation=layers.LeakyReLU(0.2)):
    x = layers.Conv2D(filters, kernel_size, strides, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    if activation:
        x = activation(x)
    return x


def res_block(x):
    inputs = x
    x = conv_block(x, 16, 3, 1)
    x = conv_block(x, 16, 3, 1, activation=None)
    return layers.Add()([inputs, x])


# Note: User can change num_res_blocks to >1 also if needed
def get_learnable_resizer(filters=16, num_res_blocks=1, interpolation=INTERPOLATION):
    inputs = layers.Input(shape=[None, None, 3])

    # First, perform naive resizing.
    naive_resize = layers.Resizing(*TARGET_SIZE, interpolation=interpolation)(inputs)

    # First convolution block without batch normalization.
    x = layers.Conv2D(filters=filters, kernel_size=7, strides=1, padding="same")(inputs)
    x = layers.LeakyReLU(0.2)(x)

    # Second convolution block with batch normalization.
    x = layers.Conv2D(filters=filters, kernel_size=1, strides=1, padding="same")(x)
    x = layers.LeakyReLU(0.2)(x)
    x = layers.BatchNormalization()(x)

    # Intermediate resizing as a bottleneck.
    bottleneck = layers.Resizing(*TARGET_SIZE, interpolation=interpolation)(x)

    # Residual passes.
    # First res_block will get bottleneck output as input
    x = res_block(bottleneck)
    # Remaining res_blocks will get previous res_block output as input
    for _ in range(num_res_blocks - 1):
        x = res_block(x)

    # Projection.
    x = layers.Conv2D(
        filters=filters, kernel_size=3, strides=1, padding="same", use_bias=False
    )(x)
    x = layers.BatchNormalization()(x)

    # Skip connection.
    x = layers.Add()([bottleneck, x])

    # Final resized image.
    x = layers.Conv2D(filters=3, kernel_size=7, strides=1, padding="same")(x)
    final_resize = layers.Add()([naive_resize, x])

    return tf.keras.Model(inputs, final_resize, name="learnable_resizer")


learnable_resizer = get_learnable_resizer()

# [cell 5]
sample_images, _ = next(iter(train_ds))


plt.figure(figsize=(16, 10))
for i, image in enumerate(sample_images[:6]):
    image = image / 255

    ax = plt.subplot(3, 4, 2 * i + 1)
    plt.title("Input Image")
    plt.imshow(image.numpy().squeeze())
    plt.axis("off")

    ax = plt.subplot(3, 4, 2 * i + 2)
    resized_image = learnable_resizer(image[None, ...])
    plt.title("Resized Image")
    plt.imshow(resized_image.numpy().squeeze())
    plt.axis("off")

# [cell 6]
def get_model():
    backbone = tf.keras.applications.DenseNet121(
        weights=None,
        include_top=True,
        classes=2,
        input_shape=((TARGET_SIZE[0], TARGET_SIZE[1], 3)),
    )
    backbone.trainable = True

    inputs = layers.Input((INP_SIZE[0], INP_SIZE[1], 3))
    x = layers.Rescaling(scale=1.0 / 255)(inputs)
    x = learnable_resizer(x)
    outputs = backbone(x)

    return tf.keras.Model(inputs, outputs)

# [cell 7]
model = get_model()
model.compile(
    loss=keras.losses.CategoricalCrossentropy(label_smoothing=0.1),
    optimizer="sgd",
    metrics=["accuracy"],
)
show(model.fit(train_ds, validation_data=validation_ds, epochs=EPOCHS))

# [cell 8]
plt.figure(figsize=(16, 10))
for i, image in enumerate(sample_images[:6]):
    image = image / 255

    ax = plt.subplot(3, 4, 2 * i + 1)
    plt.title("Input Image")
    plt.imshow(image.numpy().squeeze())
    plt.axis("off")

    ax = plt.subplot(3, 4, 2 * i + 2)
    resized_image = learnable_resizer(image[None, ...])
    plt.title("Resized Image")
    plt.imshow(resized_image.numpy().squeeze() / 10)
    plt.axis("off")
