# Image Compression using Autoencoders: keras-team/keras-io examples/vision/image_compression.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/vision/image_compression.py
# commit: e1510e295dd8827a0c454028e2a7229661182ccf
# families: 
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the MNIST download is 256 + 64 generated images in its format (uint8 28x28, uint8 labels);
# - sizes: BATCH_SIZE 256 is 32; epochs: EPOCHS 50 are 2; fit's shuffling is off (shuffle=False),
#   its history shown (what the notebook's log prints);
# - np.reshape's newshape= keyword is shape= (NumPy 2.x removed newshape: the stored code
#   raises TypeError with the NumPy installed beside TF 2.21); the Inputs' shape=(INPUT_SHAPE)
#   and shape=(2) (an int, not a tuple) are (INPUT_SHAPE,) and (2,): TF 2.21's Keras 3
#   raises "Cannot convert '784' to a shape"
#

# [cell 1]
import numpy as np
import pandas as pd
import tensorflow as tf
import matplotlib.pyplot as plt

from tensorflow.keras import layers
from tensorflow.keras.datasets import mnist
from tensorflow.keras.models import Model
from tensorflow.keras.optimizers import Adam

np.random.seed(42)
tf.random.set_seed(42)

# [cell 2]
(x_train_orig, y_train), (x_test_orig, y_test) = _mnist_like(256, 64)

x_train_orig = x_train_orig.astype("float32") / 255.0
x_test_orig = x_test_orig.astype("float32") / 255.0

x_train = np.reshape(
    x_train_orig, shape=(x_train_orig.shape[0], np.prod(x_train_orig.shape[1:]))
)
x_test = np.reshape(
    x_test_orig, shape=(x_test_orig.shape[0], np.prod(x_test_orig.shape[1:]))
)

print(x_train.shape)
print(y_train.shape)
print(x_test.shape)
print(y_test.shape)

# [cell 3]
INPUT_SHAPE = 784
BATCH_SIZE = 32
EPOCHS = 2

# [cell 4]
def get_encoder_model():
    x = layers.Input(shape=(INPUT_SHAPE,), name="encoder_input")

    encoder_dense_layer1 = layers.Dense(units=300, name="encoder_dense_1")(x)
    encoder_activ_layer1 = layers.LeakyReLU(name="encoder_leakyrelu_1")(
        encoder_dense_layer1
    )

    encoder_dense_layer2 = layers.Dense(units=2, name="encoder_dense_2")(
        encoder_activ_layer1
    )
    encoder_output = layers.LeakyReLU(name="encoder_output")(encoder_dense_layer2)

    encoder = Model(x, encoder_output, name="encoder_model")
    return encoder


encoder = get_encoder_model()
encoder.summary()

# [cell 5]
def get_decoder_model():
    decoder_input = layers.Input(shape=(2,), name="decoder_input")

    decoder_dense_layer1 = layers.Dense(units=300, name="decoder_dense_1")(
        decoder_input
    )
    decoder_activ_layer1 = layers.LeakyReLU(name="decoder_leakyrelu_1")(
        decoder_dense_layer1
    )

    decoder_dense_layer2 = layers.Dense(units=INPUT_SHAPE, name="decoder_dense_2")(
        decoder_activ_layer1
    )
    decoder_output = layers.LeakyReLU(name="decoder_output")(decoder_dense_layer2)

    decoder = Model(decoder_input, decoder_output, name="decoder_model")
    return decoder


decoder = get_decoder_model()
decoder.summary()

# [cell 6]
def get_autoencoder_model():
    ae_input = layers.Input(shape=(INPUT_SHAPE,), name="autoencoder_input")
    ae_encoder_output = encoder(ae_input)
    ae_decoder_output = decoder(ae_encoder_output)

    ae_model = Model(ae_input, ae_decoder_output, name="autoencoder")
    return ae_model

# [cell 7]
autoencoder_model = get_autoencoder_model()
autoencoder_model.summary()

# [cell 8]
autoencoder_model.compile(loss="mse", optimizer=Adam(learning_rate=0.0005))

# [cell 9]
show(autoencoder_model.fit(
    x_train,
    x_train,
    epochs=EPOCHS,
    batch_size=BATCH_SIZE,
    shuffle=False,
    validation_data=(x_test, x_test),
))

# [cell 10]
encoded_images = encoder.predict(x_train)  # Representing the vectors of training images
decoded_images = decoder.predict(encoded_images)

decoded_images_orig = np.reshape(
    decoded_images, shape=(decoded_images.shape[0], 28, 28)
)  # The output of the decoder is reshaped as 28x28

# [cell 11]
num_images_to_show = 5  # Number of samples to be shown

# Let's preview five original image and compressed image
for im_ind in range(num_images_to_show):
    plt.figure(figsize=(10, 10))
    plot_ind = im_ind * 2 + 1
    rand_ind = np.random.randint(low=0, high=x_train.shape[0])
    plt.subplot(num_images_to_show, 2, plot_ind)
    plt.imshow(x_train_orig[rand_ind, :, :], cmap="gray")
    plt.subplot(num_images_to_show, 2, plot_ind + 1)
    plt.imshow(decoded_images_orig[rand_ind, :, :], cmap="gray")
