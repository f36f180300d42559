# Image Super-Resolution using an Efficient Sub-Pixel CNN: keras-team/keras-io examples/vision/super_resolution_sub_pixel.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/vision/super_resolution_sub_pixel.py
# commit: 0b85c58c7aa720d11d4e7b90c12185202ea4b03b
# families: 
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib and IPython.display are recorders; mpl_toolkits'
#   zoomed_inset_axes and mark_inset (matplotlib's toolkit, which the recorder does not load) are
#   stand-ins that draw nothing; the images displayed are also shown (the first batch, as arrays);
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the BSDS500 download (keras.utils.get_file, untar) is 14 generated 60x48 JPEGs (flat 8x8
#   blocks, no chroma subsampling) in its folders BSR/BSDS500/data/images/{train,val,test},
#   written by the program;
# - determinism: both image_dataset_from_directory calls take shuffle=False (TF's shuffle order is
#   TF's generator's);
# - sizes: crop_size 300 is 30; the Conv2D 64/64/32 are 8/8/8; epochs: 50 are 2 (fit's history
#   shown); the test images test_img_paths[50:60] are [2:4] (the averages still divide by 10);
# - TF 2.21 cannot run tf.nn.depth_to_space on a Keras symbolic tensor (Keras 3): it is wrapped in a
#   layers.Lambda; Keras 3 saves weights only to a name ending in .weights.h5:
#   the source's checkpoint file in the system's temporary folder is "checkpoint.weights.h5" (in the run's folder); Keras 3 checks a functional
#   model's input shape, and upscale_image predicts on whole images: the model's
#   keras.Input(shape=input_img_size + (channels,)) is keras.Input(shape=(None, None, channels))
#   (as in keras-io's later version)
#

# [cell 1]
import tensorflow as tf

import os
import math
import numpy as np

from tensorflow import keras
from tensorflow.keras import layers
from keras.preprocessing.image import load_img
from keras.preprocessing.image import array_to_img
from keras.preprocessing.image import img_to_array
from keras.preprocessing import image_dataset_from_directory

from IPython.display import display

# [cell 2]
def _bsds_like():
    # BSDS500's layout (BSR/BSDS500/data/images/{train,val,test}/*.jpg): 481x321 JPEGs, here
    # 60x48 ones of flat 8x8 blocks saved without chroma subsampling (any decoder gives the
    # same pixels)
    from PIL import Image
    rs = np.random.RandomState(0)
    root = os.path.abspath("BSR")
    for split, n in (("train", 8), ("val", 2), ("test", 4)):
        os.makedirs(os.path.join(root, "BSDS500/data/images", split))
        for i in range(n):
            blocks = rs.randint(0, 256, (6, 8, 3)).astype("uint8")
            img = np.kron(blocks, np.ones((8, 8, 1), "uint8"))[:48, :60]
            Image.fromarray(img).save(os.path.join(root, "BSDS500/data/images", split,
                                                   f"{1000 + i}.jpg"), quality=95, subsampling=0)
    return root
dataset_url = "http://www.eecs.berkeley.edu/Research/Projects/CS/vision/grouping/BSR/BSR_bsds500.tgz"
data_dir = _bsds_like()
root_dir = os.path.join(data_dir, "BSDS500/data")

# [cell 3]
crop_size = 30
upscale_factor = 3
batch_size = 4

train_ds = image_dataset_from_directory(
    root_dir,
    batch_size=batch_size,
    image_size=(crop_size, crop_size),
    validation_split=0.2,
    subset="training",
    seed=1337,
    label_mode=None,
    shuffle=False,
)

valid_ds = image_dataset_from_directory(
    root_dir,
    batch_size=batch_size,
    image_size=(crop_size, crop_size),
    validation_split=0.2,
    subset="validation",
    seed=1337,
    label_mode=None,
    shuffle=False,
)

# [cell 4]
def scaling(input_image):
    input_image = input_image / 255.0
    return input_image


# Scale from (0, 255) to (0, 1)
train_ds = train_ds.map(scaling)
valid_ds = valid_ds.map(scaling)

# [cell 5]
for batch in train_ds.take(1):
    for img in batch:
        display(array_to_img(img))
        show(img)

# [cell 6]
dataset = os.path.join(root_dir, "images")
test_path = os.path.join(dataset, "test")

test_img_paths = sorted(
    [
        os.path.join(test_path, fname)
        for fname in os.listdir(test_path)
        if fname.endswith(".jpg")
    ]
)

# [cell 7]
# Use TF Ops to process.
def process_input(input, crop_size, upscale_factor):
    input = tf.image.rgb_to_yuv(input)
    last_dimension_axis = len(input.shape) - 1
    y, u, v = tf.split(input, 3, axis=last_dimension_axis)
    crop_size = crop_size // upscale_factor
    return tf.image.resize(y, [crop_size, crop_size], method="area")


def process_target(input):
    input = tf.image.rgb_to_yuv(input)
    last_dimension_axis = len(input.shape) - 1
    y, u, v = tf.split(input, 3, axis=last_dimension_axis)
    return y


train_ds = train_ds.map(
    lambda x: (process_input(x, crop_size, upscale_factor), process_target(x))
)

valid_ds = valid_ds.map(
    lambda x: (process_input(x, crop_size, upscale_factor), process_target(x))
)

# [cell 8]
for batch in train_ds.take(1):
    for img in batch[0]:
        display(array_to_img(img))
    for img in batch[1]:
        display(array_to_img(img))
    show(batch[0])

# [cell 9]
input_img_size = (crop_size // upscale_factor, crop_size // upscale_factor)
target_img_size = (crop_size, crop_size)
channels = 1


def get_model(upscale_factor=3, channels=1):
    conv_args = {
        "activation": "relu",
        "kernel_initializer": "Orthogonal",
        "padding": "same",
    }
    inputs = keras.Input(shape=(None, None, channels))
    x = layers.Conv2D(8, 5, **conv_args)(inputs)
    x = layers.Conv2D(8, 3, **conv_args)(x)
    x = layers.Conv2D(8, 3, **conv_args)(x)
    x = layers.Conv2D(channels * (upscale_factor ** 2), 3, **conv_args)(x)
    outputs = layers.Lambda(lambda t: tf.nn.depth_to_space(t, upscale_factor))(x)

    return keras.Model(inputs, outputs)

# [cell 10]
import matplotlib.pyplot as plt
zoomed_inset_axes = lambda *a, **k: plt.axes()
mark_inset = lambda *a, **k: None
import PIL


def plot_results(img, prefix, title):
    """Plot the result with zoom-in area."""
    img_array = img_to_array(img)
    img_array = img_array.astype("float32") / 255.0

    # Create a new figure with a default 111 subplot.
    fig, ax = plt.subplots()
    im = ax.imshow(img_array[::-1], origin="lower")

    plt.title(title)
    # zoom-factor: 2.0, location: upper-left
    axins = zoomed_inset_axes(ax, 2, loc=2)
    axins.imshow(img_array[::-1], origin="lower")

    # Specify the limits.
    x1, x2, y1, y2 = 200, 300, 100, 200
    # Apply the x-limits.
    axins.set_xlim(x1, x2)
    # Apply the y-limits.
    axins.set_ylim(y1, y2)

    plt.yticks(visible=False)
    plt.xticks(visible=False)

    # Make the line.
    mark_inset(ax, axins, loc1=1, loc2=3, fc="none", ec="blue")
    plt.savefig(str(prefix) + "-" + title + ".png")
    plt.show()


def get_lowres_image(img, upscale_factor):
    """Return low-resolution image and will use it as input."""
    lowres_img = img.resize(
        (img.size[0] // upscale_factor, img.size[1] // upscale_factor),
        PIL.Image.BICUBIC,
    )
    return lowres_img


def upscale_image(model, img):
    """Predict the result based on input image and restore the image as RGB."""
    ycbcr = img.convert("YCbCr")
    y, cb, cr = ycbcr.split()
    y = img_to_array(y)
    y = y.astype("float32") / 255.0

    input = np.expand_dims(y, axis=0)
    out = model.predict(input)

    out_img_y = out[0]
    out_img_y *= 255.0

    # Restore the image in RGB color space.
    out_img_y = out_img_y.clip(0, 255)
    out_img_y = out_img_y.reshape((np.shape(out_img_y)[0], np.shape(out_img_y)[1]))
    out_img_y = PIL.Image.fromarray(np.uint8(out_img_y), mode="L")
    out_img_cb = cb.resize(out_img_y.size, PIL.Image.BICUBIC)
    out_img_cr = cr.resize(out_img_y.size, PIL.Image.BICUBIC)
    out_img = PIL.Image.merge("YCbCr", (out_img_y, out_img_cb, out_img_cr)).convert(
        "RGB"
    )
    return out_img

# [cell 11]
class ESPCNCallback(keras.callbacks.Callback):
    def __init__(self):
        super(ESPCNCallback, self).__init__()
        self.test_img = get_lowres_image(load_img(test_img_paths[0]), upscale_factor)

    # Store PSNR value in each epoch.
    def on_epoch_begin(self, epoch, logs=None):
        self.psnr = []

    def on_epoch_end(self, epoch, logs=None):
        print("Mean PSNR for epoch: %.2f" % (np.mean(self.psnr)))
        prediction = upscale_image(self.model, self.test_img)
        plot_results(prediction, "epoch-" + str(epoch), "prediction")

    def on_test_batch_end(self, batch, logs=None):
        self.psnr.append(10 * math.log10(1 / logs["loss"]))

# [cell 12]
early_stopping_callback = keras.callbacks.EarlyStopping(monitor="loss", patience=10)

checkpoint_filepath = "checkpoint.weights.h5"

model_checkpoint_callback = keras.callbacks.ModelCheckpoint(
    filepath=checkpoint_filepath,
    save_weights_only=True,
    monitor="loss",
    mode="min",
    save_best_only=True,
)

model = get_model(upscale_factor=upscale_factor, channels=channels)
model.summary()

callbacks = [ESPCNCallback(), early_stopping_callback, model_checkpoint_callback]
loss_fn = keras.losses.MeanSquaredError()
optimizer = keras.optimizers.Adam(learning_rate=0.001)

# [cell 13]
epochs = 2

model.compile(
    optimizer=optimizer, loss=loss_fn,
)

show(model.fit(
    train_ds, epochs=epochs, callbacks=callbacks, validation_data=valid_ds, verbose=2
))

# The model weights (that are considered the best) are loaded into the model.
model.load_weights(checkpoint_filepath)

# [cell 14]
total_bicubic_psnr = 0.0
total_test_psnr = 0.0

for index, test_img_path in enumerate(test_img_paths[2:4]):
    img = load_img(test_img_path)
    lowres_input = get_lowres_image(img, upscale_factor)
    w = lowres_input.size[0] * upscale_factor
    h = lowres_input.size[1] * upscale_factor
    highres_img = img.resize((w, h))
    prediction = upscale_image(model, lowres_input)
    lowres_img = lowres_input.resize((w, h))
    lowres_img_arr = img_to_array(lowres_img)
    highres_img_arr = img_to_array(highres_img)
    predict_img_arr = img_to_array(prediction)
    bicubic_psnr = tf.image.psnr(lowres_img_arr, highres_img_arr, max_val=255)
    test_psnr = tf.image.psnr(predict_img_arr, highres_img_arr, max_val=255)

    total_bicubic_psnr += bicubic_psnr
    total_test_psnr += test_psnr

    print(
        "PSNR of low resolution image and high resolution image is %.4f" % bicubic_psnr
    )
    print("PSNR of predict and high resolution is %.4f" % test_psnr)
    plot_results(lowres_img, index, "lowres")
    plot_results(highres_img, index, "highres")
    plot_results(prediction, index, "prediction")

print("Avg. PSNR of lowres images is %.4f" % (total_bicubic_psnr / 10))
print("Avg. PSNR of reconstructions is %.4f" % (total_test_psnr / 10))
