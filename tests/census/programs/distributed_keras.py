# Distributed training with Keras: tensorflow/docs site/en/tutorials/distribute/keras.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/distribute/keras.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: distribute
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show;
# - shell and IPython lines (%load_ext tensorboard, %tensorboard, !ls -sh ./logs) are left out;
#   cell 36's `!ls {checkpoint_dir}` is show(sorted(os.listdir(checkpoint_dir)));
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: tensorflow_datasets' MNIST (tfds.load, cell 10; the library, not installed, left out with its
#   import) is the census prelude's _mnist_like(128, 64) in tfds's as_supervised format (uint8 images
#   (28, 28, 1), int64 labels) as tf.data datasets, numpy imported for it; info gives the splits' sizes;
# - determinism: the training data's .shuffle(BUFFER_SIZE) (cell 21) is left out (TF's order is TF's
#   generator's);
# - sizes: Conv2D(32) is Conv2D(4), Dense(64) is Dense(16) (EPOCHS stay 12: 2 steps an epoch);
# - the TensorBoard callback (cell 31) is left out: tensorboard is not installed here, and TF's
#   fit with it raises TBNotInstalledError (tf.summary.scalar needs tensorboard);
# - the version printed is left out
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
# import tensorflow_datasets as tfds  (left out: see the header)
import tensorflow as tf
import numpy as np

import os

# [cell 10]
class _Split:
  def __init__(self, n):
    self.num_examples = n
class _Info:
  splits = {'train': _Split(128), 'test': _Split(64)}
def _tfds_mnist_like():
  (x, y), (xt, yt) = _mnist_like(128, 64)
  as_ds = lambda x, y: tf.data.Dataset.from_tensor_slices((x[..., None], y.astype(np.int64)))
  return {'train': as_ds(x, y), 'test': as_ds(xt, yt)}, _Info()
datasets, info = _tfds_mnist_like()  # tfds.load(name='mnist', with_info=True, as_supervised=True)

mnist_train, mnist_test = datasets['train'], datasets['test']

# [cell 13]
strategy = tf.distribute.MirroredStrategy()

# [cell 14]
print('Number of devices: {}'.format(strategy.num_replicas_in_sync))

# [cell 17]
# You can also do info.splits.total_num_examples to get the total
# number of examples in the dataset.

num_train_examples = info.splits['train'].num_examples
num_test_examples = info.splits['test'].num_examples

BUFFER_SIZE = 10000

BATCH_SIZE_PER_REPLICA = 64
BATCH_SIZE = BATCH_SIZE_PER_REPLICA * strategy.num_replicas_in_sync

# [cell 19]
def scale(image, label):
  image = tf.cast(image, tf.float32)
  image /= 255

  return image, label

# [cell 21]
train_dataset = mnist_train.map(scale).cache().batch(BATCH_SIZE)
eval_dataset = mnist_test.map(scale).batch(BATCH_SIZE)

# [cell 24]
with strategy.scope():
  model = tf.keras.Sequential([
      tf.keras.layers.Conv2D(4, 3, activation='relu', input_shape=(28, 28, 1)),
      tf.keras.layers.MaxPooling2D(),
      tf.keras.layers.Flatten(),
      tf.keras.layers.Dense(16, activation='relu'),
      tf.keras.layers.Dense(10)
  ])

  model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                optimizer=tf.keras.optimizers.Adam(learning_rate=0.001),
                metrics=['accuracy'])

# [cell 28]
# Define the checkpoint directory to store the checkpoints.
checkpoint_dir = './training_checkpoints'
# Define the name of the checkpoint files.
checkpoint_prefix = os.path.join(checkpoint_dir, "ckpt_{epoch:04d}.weights.h5")

# [cell 29]
# Define a function for decaying the learning rate.
# You can define any decay function you need.
def decay(epoch):
  if epoch < 3:
    return 1e-3
  elif epoch >= 3 and epoch < 7:
    return 1e-4
  else:
    return 1e-5

# [cell 30]
# Define a callback for printing the learning rate at the end of each epoch.
class PrintLR(tf.keras.callbacks.Callback):
  def on_epoch_end(self, epoch, logs=None):
    print('\nLearning rate for epoch {} is {}'.format(epoch + 1, model.optimizer.learning_rate.numpy()))

# [cell 31]
# Put all the callbacks together.
callbacks = [
    # tf.keras.callbacks.TensorBoard(log_dir='./logs'),  (left out: see the header)
    tf.keras.callbacks.ModelCheckpoint(filepath=checkpoint_prefix,
                                       save_weights_only=True),
    tf.keras.callbacks.LearningRateScheduler(decay),
    PrintLR()
]

# [cell 34]
EPOCHS = 12

model.fit(train_dataset, epochs=EPOCHS, callbacks=callbacks)

# [cell 36]
# Check the checkpoint directory.
show(sorted(os.listdir(checkpoint_dir)))  # !ls {checkpoint_dir}

# [cell 38]
import pathlib
latest_checkpoint = sorted(pathlib.Path(checkpoint_dir).glob('*'))[-1]

model.load_weights(latest_checkpoint)

eval_loss, eval_acc = model.evaluate(eval_dataset)

print('Eval loss: {}, Eval accuracy: {}'.format(eval_loss, eval_acc))

# [cell 45]
path = 'my_model.keras'

# [cell 46]
model.save(path)

# [cell 48]
unreplicated_model = tf.keras.models.load_model(path)

unreplicated_model.compile(
    loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    optimizer=tf.keras.optimizers.Adam(),
    metrics=['accuracy'])

eval_loss, eval_acc = unreplicated_model.evaluate(eval_dataset)

print('Eval loss: {}, Eval Accuracy: {}'.format(eval_loss, eval_acc))

# [cell 50]
with strategy.scope():
  replicated_model = tf.keras.models.load_model(path)
  replicated_model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                           optimizer=tf.keras.optimizers.Adam(),
                           metrics=['accuracy'])

  eval_loss, eval_acc = replicated_model.evaluate(eval_dataset)
  print ('Eval loss: {}, Eval Accuracy: {}'.format(eval_loss, eval_acc))
