# Simple audio recognition: Recognizing keywords: tensorflow/docs site/en/tutorials/audio/simple_audio.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/audio/simple_audio.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: strings, io, audio, saved_model
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the mini Speech Commands download is 64 generated WAV files (8 a command, tones and noise, <= 4000 samples)
# - sizes: batch 64 is 10; 16000 samples are 4000 (output_sequence_length, desired_samples, the signature); Conv2D 32/64 and Dense 128 are 4/8/16; EPOCHS 10 is 2
# - determinism: cell 11's tf.io.gfile.listdir is sorted (TF lists a folder in the file system's order,
#   which is the machine's: TF's stored run and CI's would differ);
#   audio_dataset_from_directory does not shuffle, nor does the training pipeline (TF's shuffle order is TF's generator's); Dropouts are 0.0
#

# [cell 1]
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

# [cell 6]
# !pip install -U -q tensorflow tensorflow_datasets

# [cell 7]
import os
import pathlib

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
import tensorflow as tf

from tensorflow.keras import layers
from tensorflow.keras import models
from IPython import display

# Set the seed value for experiment reproducibility.
seed = 42
tf.random.set_seed(seed)
show(np.random.seed(seed))

# [cell 9]
DATASET_PATH = 'data/mini_speech_commands'

data_dir = pathlib.Path(DATASET_PATH)
def _speech_commands_like(root):
  # 8 WAV files (16-bit PCM, 16 kHz, 0.25 s or shorter) a command: tones and noise
  import wave
  rs = np.random.RandomState(0)
  for k, cmd in enumerate(['down', 'go', 'left', 'no', 'right', 'stop', 'up', 'yes']):
    os.makedirs(os.path.join(root, cmd))
    for i in range(8):
      name = '01bb6a2a_nohash_0.wav' if (cmd, i) == ('no', 0) else f'{k:02d}{i:06d}_nohash_0.wav'
      n = rs.randint(3000, 4001)
      t = np.arange(n) / 4000.0
      x = 0.5 * np.sin(2 * np.pi * (200 + 100 * k) * t) + 0.1 * rs.randn(n)
      with wave.open(os.path.join(root, cmd, name), 'wb') as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(4000)
        w.writeframes((np.clip(x, -1, 1) * 32767).astype('<i2').tobytes())
  with open(os.path.join(root, 'README.md'), 'w') as f:
    f.write('mini speech commands, generated')
if not data_dir.exists():
  _speech_commands_like(DATASET_PATH)

# [cell 11]
commands = np.array(sorted(tf.io.gfile.listdir(str(data_dir))))
commands = commands[(commands != 'README.md') & (commands != '.DS_Store')]
print('Commands:', commands)

# [cell 13]
train_ds, val_ds = tf.keras.utils.audio_dataset_from_directory(
    directory=data_dir,
    batch_size=10,
    validation_split=0.2,
    seed=0, shuffle=False,
    output_sequence_length=4000,
    subset='both')

label_names = np.array(train_ds.class_names)
print()
print("label names:", label_names)

# [cell 15]
show(train_ds.element_spec)

# [cell 17]
def squeeze(audio, labels):
  audio = tf.squeeze(audio, axis=-1)
  return audio, labels

train_ds = train_ds.map(squeeze, tf.data.AUTOTUNE)
val_ds = val_ds.map(squeeze, tf.data.AUTOTUNE)

# [cell 19]
test_ds = val_ds.shard(num_shards=2, index=0)
val_ds = val_ds.shard(num_shards=2, index=1)

# [cell 20]
for example_audio, example_labels in train_ds.take(1):  
  print(example_audio.shape)
  print(example_labels.shape)

# [cell 22]
show(label_names[[1,1,3,0]])

# [cell 23]
plt.figure(figsize=(16, 10))
rows = 3
cols = 3
n = rows * cols
for i in range(n):
  plt.subplot(rows, cols, i+1)
  audio_signal = example_audio[i]
  plt.plot(audio_signal)
  plt.title(label_names[example_labels[i]])
  plt.yticks(np.arange(-1.2, 1.2, 0.2))
  plt.ylim([-1.1, 1.1])

# [cell 25]
def get_spectrogram(waveform):
  # Convert the waveform to a spectrogram via a STFT.
  spectrogram = tf.signal.stft(
      waveform, frame_length=255, frame_step=128)
  # Obtain the magnitude of the STFT.
  spectrogram = tf.abs(spectrogram)
  # Add a `channels` dimension, so that the spectrogram can be used
  # as image-like input data with convolution layers (which expect
  # shape (`batch_size`, `height`, `width`, `channels`).
  spectrogram = spectrogram[..., tf.newaxis]
  return spectrogram

# [cell 27]
for i in range(3):
  label = label_names[example_labels[i]]
  waveform = example_audio[i]
  spectrogram = get_spectrogram(waveform)

  print('Label:', label)
  print('Waveform shape:', waveform.shape)
  print('Spectrogram shape:', spectrogram.shape)
  print('Audio playback')
  display.show(display.Audio(waveform, rate=4000))

# [cell 29]
def plot_spectrogram(spectrogram, ax):
  if len(spectrogram.shape) > 2:
    assert len(spectrogram.shape) == 3
    spectrogram = np.squeeze(spectrogram, axis=-1)
  # Convert the frequencies to log scale and transpose, so that the time is
  # represented on the x-axis (columns).
  # Add an epsilon to avoid taking a log of zero.
  log_spec = np.log(spectrogram.T + np.finfo(float).eps)
  height = log_spec.shape[0]
  width = log_spec.shape[1]
  X = np.linspace(0, np.size(spectrogram), num=width, dtype=int)
  Y = range(height)
  ax.pcolormesh(X, Y, log_spec)

# [cell 31]
fig, axes = plt.subplots(2, figsize=(12, 8))
timescale = np.arange(waveform.shape[0])
axes[0].plot(timescale, waveform.numpy())
axes[0].set_title('Waveform')
axes[0].set_xlim([0, 4000])

plot_spectrogram(spectrogram.numpy(), axes[1])
axes[1].set_title('Spectrogram')
plt.suptitle(label.title())
plt.show()

# [cell 33]
def make_spec_ds(ds):
  return ds.map(
      map_func=lambda audio,label: (get_spectrogram(audio), label),
      num_parallel_calls=tf.data.AUTOTUNE)

# [cell 34]
train_spectrogram_ds = make_spec_ds(train_ds)
val_spectrogram_ds = make_spec_ds(val_ds)
test_spectrogram_ds = make_spec_ds(test_ds)

# [cell 36]
for example_spectrograms, example_spect_labels in train_spectrogram_ds.take(1):
  break

# [cell 37]
rows = 3
cols = 3
n = rows*cols
fig, axes = plt.subplots(rows, cols, figsize=(16, 9))

for i in range(n):
    r = i // cols
    c = i % cols
    ax = axes[r][c]
    plot_spectrogram(example_spectrograms[i].numpy(), ax)
    ax.set_title(label_names[example_spect_labels[i].numpy()])

plt.show()

# [cell 40]
train_spectrogram_ds = train_spectrogram_ds.cache().prefetch(tf.data.AUTOTUNE)
val_spectrogram_ds = val_spectrogram_ds.cache().prefetch(tf.data.AUTOTUNE)
test_spectrogram_ds = test_spectrogram_ds.cache().prefetch(tf.data.AUTOTUNE)

# [cell 42]
input_shape = example_spectrograms.shape[1:]
print('Input shape:', input_shape)
num_labels = len(label_names)

# Instantiate the `tf.keras.layers.Normalization` layer.
norm_layer = layers.Normalization()
# Fit the state of the layer to the spectrograms
# with `Normalization.adapt`.
norm_layer.adapt(data=train_spectrogram_ds.map(map_func=lambda spec, label: spec))

model = models.Sequential([
    layers.Input(shape=input_shape),
    # Downsample the input.
    layers.Resizing(32, 32),
    # Normalize.
    norm_layer,
    layers.Conv2D(4, 3, activation='relu'),
    layers.Conv2D(8, 3, activation='relu'),
    layers.MaxPooling2D(),
    layers.Dropout(0.0),
    layers.Flatten(),
    layers.Dense(16, activation='relu'),
    layers.Dropout(0.0),
    layers.Dense(num_labels),
])

show(model.summary())

# [cell 44]
show(model.compile(
    optimizer=tf.keras.optimizers.Adam(),
    loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=['accuracy'],
))

# [cell 46]
EPOCHS = 2
history = model.fit(
    train_spectrogram_ds,
    validation_data=val_spectrogram_ds,
    epochs=EPOCHS,
    callbacks=tf.keras.callbacks.EarlyStopping(verbose=1, patience=2),
)

# [cell 48]
metrics = history.history
plt.figure(figsize=(16,6))
plt.subplot(1,2,1)
plt.plot(history.epoch, metrics['loss'], metrics['val_loss'])
plt.legend(['loss', 'val_loss'])
plt.ylim([0, max(plt.ylim())])
plt.xlabel('Epoch')
plt.ylabel('Loss [CrossEntropy]')

plt.subplot(1,2,2)
plt.plot(history.epoch, 100*np.array(metrics['accuracy']), 100*np.array(metrics['val_accuracy']))
plt.legend(['accuracy', 'val_accuracy'])
plt.ylim([0, 100])
plt.xlabel('Epoch')
plt.ylabel('Accuracy [%]')

# [cell 50]
show(model.evaluate(test_spectrogram_ds, return_dict=True))

# [cell 52]
y_pred = model.predict(test_spectrogram_ds)

# [cell 53]
y_pred = tf.argmax(y_pred, axis=1)

# [cell 54]
y_true = tf.concat(list(test_spectrogram_ds.map(lambda s,lab: lab)), axis=0)

# [cell 55]
confusion_mtx = tf.math.confusion_matrix(y_true, y_pred)
plt.figure(figsize=(10, 8))
sns.heatmap(confusion_mtx,
            xticklabels=label_names,
            yticklabels=label_names,
            annot=True, fmt='g')
plt.xlabel('Prediction')
plt.ylabel('Label')
plt.show()

# [cell 57]
x = data_dir/'no/01bb6a2a_nohash_0.wav'
x = tf.io.read_file(str(x))
x, sample_rate = tf.audio.decode_wav(x, desired_channels=1, desired_samples=4000,)
x = tf.squeeze(x, axis=-1)
waveform = x
x = get_spectrogram(x)
x = x[tf.newaxis,...]

prediction = model(x)
x_labels = ['no', 'yes', 'down', 'go', 'left', 'up', 'right', 'stop']
plt.bar(x_labels, tf.nn.softmax(prediction[0]))
plt.title('No')
plt.show()

show(display.show(display.Audio(waveform, rate=4000)))

# [cell 61]
class ExportModel(tf.Module):
  def __init__(self, model):
    self.model = model

    # Accept either a string-filename or a batch of waveforms.
    # You could add additional signatures for a single wave, or a ragged-batch. 
    self.__call__.get_concrete_function(
        x=tf.TensorSpec(shape=(), dtype=tf.string))
    self.__call__.get_concrete_function(
       x=tf.TensorSpec(shape=[None, 4000], dtype=tf.float32))


  @tf.function
  def __call__(self, x):
    # If they pass a string, load the file and decode it. 
    if x.dtype == tf.string:
      x = tf.io.read_file(x)
      x, _ = tf.audio.decode_wav(x, desired_channels=1, desired_samples=4000,)
      x = tf.squeeze(x, axis=-1)
      x = x[tf.newaxis, :]
    
    x = get_spectrogram(x)  
    result = self.model(x, training=False)
    
    class_ids = tf.argmax(result, axis=-1)
    class_names = tf.gather(label_names, class_ids)
    return {'predictions':result,
            'class_ids': class_ids,
            'class_names': class_names}

# [cell 63]
export = ExportModel(model)
show(export(tf.constant(str(data_dir/'no/01bb6a2a_nohash_0.wav'))))

# [cell 65]
tf.saved_model.save(export, "saved")
imported = tf.saved_model.load("saved")
show(imported(waveform[tf.newaxis, :]))
