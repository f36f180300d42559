# Intro to Autoencoders: tensorflow/docs site/en/tutorials/generative/autoencoder.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/generative/autoencoder.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the Fashion-MNIST download (fashion_mnist.load_data(), cells 9 and 19) is 256 training and 64 test
#   images generated in its format (_mnist_like); the ECG download (ecg.csv, cell 40) is a generated ecg.csv in its
#   format (no header, 140 floats a row and the label last, 1.0 normal, 0.0 anomalous), 300 rows, read by pd.read_csv;
# - epochs: the two image autoencoders' 10 are 2 (the anomaly detector's 20 are kept);
# - determinism: fit's shuffling is off (shuffle=False, the three fits);
# - Keras 3 (TF 2.21's) takes Dense's units as a Python int only (TF 2.21 raises on the NumPy int32): cell 11's
#   Dense(tf.math.reduce_prod(shape).numpy(), ...) is Dense(int(tf.math.reduce_prod(shape).numpy()), ...);
# - another library: pandas and scikit-learn, as the source imports them (the test is skipped where one is missing)
#

# [cell 2]
#@title Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
# https://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# [cell 7]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import tensorflow as tf

from sklearn.metrics import accuracy_score, precision_score, recall_score
from sklearn.model_selection import train_test_split
from tensorflow.keras import layers, losses
from tensorflow.keras.datasets import fashion_mnist
from tensorflow.keras.models import Model

# [cell 9]
(x_train, _), (x_test, _) = _mnist_like(256, 64)  # fashion_mnist.load_data()

x_train = x_train.astype('float32') / 255.
x_test = x_test.astype('float32') / 255.

print (x_train.shape)
print (x_test.shape)

# [cell 11]
class Autoencoder(Model):
  def __init__(self, latent_dim, shape):
    super(Autoencoder, self).__init__()
    self.latent_dim = latent_dim
    self.shape = shape
    self.encoder = tf.keras.Sequential([
      layers.Flatten(),
      layers.Dense(latent_dim, activation='relu'),
    ])
    self.decoder = tf.keras.Sequential([
      layers.Dense(int(tf.math.reduce_prod(shape).numpy()), activation='sigmoid'),
      layers.Reshape(shape)
    ])

  def call(self, x):
    encoded = self.encoder(x)
    decoded = self.decoder(encoded)
    return decoded


shape = x_test.shape[1:]
latent_dim = 64
autoencoder = Autoencoder(latent_dim, shape)

# [cell 12]
show((autoencoder.compile(optimizer='adam', loss=losses.MeanSquaredError())))

# [cell 14]
show((autoencoder.fit(x_train, x_train,
                epochs=2,
                shuffle=False,
                validation_data=(x_test, x_test))))

# [cell 16]
encoded_imgs = autoencoder.encoder(x_test).numpy()
decoded_imgs = autoencoder.decoder(encoded_imgs).numpy()

# [cell 17]
n = 10
plt.figure(figsize=(20, 4))
for i in range(n):
  # display original
  ax = plt.subplot(2, n, i + 1)
  plt.imshow(x_test[i])
  plt.title("original")
  plt.gray()
  ax.get_xaxis().set_visible(False)
  ax.get_yaxis().set_visible(False)

  # display reconstruction
  ax = plt.subplot(2, n, i + 1 + n)
  plt.imshow(decoded_imgs[i])
  plt.title("reconstructed")
  plt.gray()
  ax.get_xaxis().set_visible(False)
  ax.get_yaxis().set_visible(False)
show((plt.show()))

# [cell 19]
(x_train, _), (x_test, _) = _mnist_like(256, 64)  # fashion_mnist.load_data()

# [cell 20]
x_train = x_train.astype('float32') / 255.
x_test = x_test.astype('float32') / 255.

x_train = x_train[..., tf.newaxis]
x_test = x_test[..., tf.newaxis]

print(x_train.shape)

# [cell 22]
noise_factor = 0.2
x_train_noisy = x_train + noise_factor * tf.random.normal(shape=x_train.shape)
x_test_noisy = x_test + noise_factor * tf.random.normal(shape=x_test.shape)

x_train_noisy = tf.clip_by_value(x_train_noisy, clip_value_min=0., clip_value_max=1.)
x_test_noisy = tf.clip_by_value(x_test_noisy, clip_value_min=0., clip_value_max=1.)

# [cell 24]
n = 10
plt.figure(figsize=(20, 2))
for i in range(n):
    ax = plt.subplot(1, n, i + 1)
    plt.title("original + noise")
    plt.imshow(tf.squeeze(x_test_noisy[i]))
    plt.gray()
show((plt.show()))

# [cell 27]
class Denoise(Model):
  def __init__(self):
    super(Denoise, self).__init__()
    self.encoder = tf.keras.Sequential([
      layers.Input(shape=(28, 28, 1)),
      layers.Conv2D(16, (3, 3), activation='relu', padding='same', strides=2),
      layers.Conv2D(8, (3, 3), activation='relu', padding='same', strides=2)])

    self.decoder = tf.keras.Sequential([
      layers.Conv2DTranspose(8, kernel_size=3, strides=2, activation='relu', padding='same'),
      layers.Conv2DTranspose(16, kernel_size=3, strides=2, activation='relu', padding='same'),
      layers.Conv2D(1, kernel_size=(3, 3), activation='sigmoid', padding='same')])

  def call(self, x):
    encoded = self.encoder(x)
    decoded = self.decoder(encoded)
    return decoded

autoencoder = Denoise()

# [cell 28]
show((autoencoder.compile(optimizer='adam', loss=losses.MeanSquaredError())))

# [cell 29]
show((autoencoder.fit(x_train_noisy, x_train,
                epochs=2,
                shuffle=False,
                validation_data=(x_test_noisy, x_test))))

# [cell 31]
show((autoencoder.encoder.summary()))

# [cell 33]
show((autoencoder.decoder.summary()))

# [cell 35]
encoded_imgs = autoencoder.encoder(x_test_noisy).numpy()
decoded_imgs = autoencoder.decoder(encoded_imgs).numpy()

# [cell 36]
n = 10
plt.figure(figsize=(20, 4))
for i in range(n):

    # display original + noise
    ax = plt.subplot(2, n, i + 1)
    plt.title("original + noise")
    plt.imshow(tf.squeeze(x_test_noisy[i]))
    plt.gray()
    ax.get_xaxis().set_visible(False)
    ax.get_yaxis().set_visible(False)

    # display reconstruction
    bx = plt.subplot(2, n, i + n + 1)
    plt.title("reconstructed")
    plt.imshow(tf.squeeze(decoded_imgs[i]))
    plt.gray()
    bx.get_xaxis().set_visible(False)
    bx.get_yaxis().set_visible(False)
show((plt.show()))

# [cell 40]
# Download the dataset
def _ecg_like(path, n=300):
  # ecg.csv's format: no header, 140 floats a row (one heartbeat) and the label
  # (1.0 normal, 0.0 anomalous) last, written as 7-digit exponents
  rs = np.random.RandomState(3)
  t = np.linspace(0, 1, 140)
  rows = []
  for i in range(n):
    normal = rs.rand() < 0.6
    beat = (-2.5 * np.exp(-((t - 0.1) / 0.04) ** 2) + 1.5 * np.sin(2 * np.pi * t)
            if normal else -3.0 + 4.0 * t + np.cos(6 * np.pi * t))
    rows.append(np.append(beat + rs.normal(0, 0.3, 140), 1.0 if normal else 0.0))
  np.savetxt(path, np.array(rows), fmt='%.7e', delimiter=',')
  return path
dataframe = pd.read_csv(_ecg_like('ecg.csv'), header=None)  # the download
raw_data = dataframe.values
show((dataframe.head()))

# [cell 41]
# The last element contains the labels
labels = raw_data[:, -1]

# The other data points are the electrocadriogram data
data = raw_data[:, 0:-1]

train_data, test_data, train_labels, test_labels = train_test_split(
    data, labels, test_size=0.2, random_state=21
)

# [cell 43]
min_val = tf.reduce_min(train_data)
max_val = tf.reduce_max(train_data)

train_data = (train_data - min_val) / (max_val - min_val)
test_data = (test_data - min_val) / (max_val - min_val)

train_data = tf.cast(train_data, tf.float32)
test_data = tf.cast(test_data, tf.float32)

# [cell 45]
train_labels = train_labels.astype(bool)
test_labels = test_labels.astype(bool)

normal_train_data = train_data[train_labels]
normal_test_data = test_data[test_labels]

anomalous_train_data = train_data[~train_labels]
anomalous_test_data = test_data[~test_labels]

# [cell 47]
plt.grid()
plt.plot(np.arange(140), normal_train_data[0])
plt.title("A Normal ECG")
show((plt.show()))

# [cell 49]
plt.grid()
plt.plot(np.arange(140), anomalous_train_data[0])
plt.title("An Anomalous ECG")
show((plt.show()))

# [cell 51]
class AnomalyDetector(Model):
  def __init__(self):
    super(AnomalyDetector, self).__init__()
    self.encoder = tf.keras.Sequential([
      layers.Dense(32, activation="relu"),
      layers.Dense(16, activation="relu"),
      layers.Dense(8, activation="relu")])

    self.decoder = tf.keras.Sequential([
      layers.Dense(16, activation="relu"),
      layers.Dense(32, activation="relu"),
      layers.Dense(140, activation="sigmoid")])

  def call(self, x):
    encoded = self.encoder(x)
    decoded = self.decoder(encoded)
    return decoded

autoencoder = AnomalyDetector()

# [cell 52]
show((autoencoder.compile(optimizer='adam', loss='mae')))

# [cell 54]
history = autoencoder.fit(normal_train_data, normal_train_data,
          epochs=20,
          batch_size=512,
          validation_data=(test_data, test_data),
          shuffle=False)

# [cell 55]
plt.plot(history.history["loss"], label="Training Loss")
plt.plot(history.history["val_loss"], label="Validation Loss")
show((plt.legend()))

# [cell 57]
encoded_data = autoencoder.encoder(normal_test_data).numpy()
decoded_data = autoencoder.decoder(encoded_data).numpy()

plt.plot(normal_test_data[0], 'b')
plt.plot(decoded_data[0], 'r')
plt.fill_between(np.arange(140), decoded_data[0], normal_test_data[0], color='lightcoral')
plt.legend(labels=["Input", "Reconstruction", "Error"])
show((plt.show()))

# [cell 59]
encoded_data = autoencoder.encoder(anomalous_test_data).numpy()
decoded_data = autoencoder.decoder(encoded_data).numpy()

plt.plot(anomalous_test_data[0], 'b')
plt.plot(decoded_data[0], 'r')
plt.fill_between(np.arange(140), decoded_data[0], anomalous_test_data[0], color='lightcoral')
plt.legend(labels=["Input", "Reconstruction", "Error"])
show((plt.show()))

# [cell 63]
reconstructions = autoencoder.predict(normal_train_data)
train_loss = tf.keras.losses.mae(reconstructions, normal_train_data)

plt.hist(train_loss[None,:], bins=50)
plt.xlabel("Train loss")
plt.ylabel("No of examples")
show((plt.show()))

# [cell 65]
threshold = np.mean(train_loss) + np.std(train_loss)
print("Threshold: ", threshold)

# [cell 68]
reconstructions = autoencoder.predict(anomalous_test_data)
test_loss = tf.keras.losses.mae(reconstructions, anomalous_test_data)

plt.hist(test_loss[None, :], bins=50)
plt.xlabel("Test loss")
plt.ylabel("No of examples")
show((plt.show()))

# [cell 70]
def predict(model, data, threshold):
  reconstructions = model(data)
  loss = tf.keras.losses.mae(reconstructions, data)
  return tf.math.less(loss, threshold)

def print_stats(predictions, labels):
  print("Accuracy = {}".format(accuracy_score(labels, predictions)))
  print("Precision = {}".format(precision_score(labels, predictions)))
  print("Recall = {}".format(recall_score(labels, predictions)))

# [cell 71]
preds = predict(autoencoder, test_data, threshold)
show((print_stats(preds, test_labels)))

