# Migrate the fault tolerance mechanism: tensorflow/docs site/en/guide/migrate/fault_tolerance.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/migrate/fault_tolerance.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - cells 12, 14 and 16 (TF 1's tf.estimator: a DNNClassifier trained, interrupted by cell 10's hook,
#   and trained again) are left out: TF 2.21 has no tf.estimator (removed in TF 2.16; it raises
#   AttributeError), and with them cell 10, the estimator's tf1.train.SessionRunHook (eagertape leaves
#   TF 1's SessionRunHook out, as the migrate_sessionrunhook_callback port does with its hook);
# - data: the MNIST download (mnist.load_data(), cell 8) is the census prelude's _mnist_like(160, 64);
# - sizes: steps_per_epoch=100 is 5 (cells 22, 24, 28, 30; 160 images are 5 batches of 32), and with it
#   InterruptAtStep's default step 140 is 14 (cell 26) and BackupAndRestore's save_freq 30 is 3
#   (cell 28), so the interruption falls in the third epoch after a backup, as the guide's does;
# - determinism: fit's shuffling is off (shuffle=False: cells 22, 24, 28, 30); Dropout(0.2) is Dropout(0.0) (cell 20: TF's dropout masks are TF's generator's);
# - cell 32's log_dir (tempfile.mkdtemp(), a new name at each run) is 'custom_loop_ckpts' in the run's
#   folder: cell 34 prints the checkpoints' paths
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
# !pip install tf-nightly

# [cell 7]
import tensorflow.compat.v1 as tf1
import tensorflow as tf
import numpy as np
import tempfile
import time

# [cell 8]
mnist = tf.keras.datasets.mnist

(x_train, y_train),(x_test, y_test) = _mnist_like(160, 64)  # mnist.load_data()
x_train, x_test = x_train / 255.0, x_test / 255.0

# [cell 10] left out: the estimator's SessionRunHook (see the header)

# [cell 12] left out: tf.estimator (see the header)

# [cell 14] left out: tf.estimator (see the header)

# [cell 16] left out: tf.estimator (see the header)

# [cell 18]
class InterruptAtEpoch(tf.keras.callbacks.Callback):
  # A callback for artificially interrupting training.
  def __init__(self, interrupting_epoch=3):
    self.interrupting_epoch = interrupting_epoch

  def on_epoch_end(self, epoch, log=None):
    if epoch == self.interrupting_epoch:
      raise RuntimeError('Interruption')

# [cell 20]
def create_model():
  return tf.keras.models.Sequential([
    tf.keras.layers.Flatten(input_shape=(28, 28)),
    tf.keras.layers.Dense(512, activation='relu'),
    tf.keras.layers.Dropout(0.0),
    tf.keras.layers.Dense(10)
  ])
loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
model = create_model()
model.compile(optimizer='adam',
              loss=loss,
              metrics=['accuracy'])
log_dir = tempfile.mkdtemp()
backup_restore_callback = tf.keras.callbacks.BackupAndRestore(
    backup_dir = log_dir)

# [cell 22]
try:
  model.fit(x=x_train,
            y=y_train,
            epochs=10,
            steps_per_epoch=5, shuffle=False,
            validation_data=(x_test, y_test),
            callbacks=[backup_restore_callback, InterruptAtEpoch()])
except Exception as e:
  print(f'{type(e).__name__}:{e}')

# [cell 24]
model = create_model()
model.compile(optimizer='adam',
              loss=loss,
              metrics=['accuracy'],
              steps_per_execution=10)
show((model.fit(x=x_train,
            y=y_train,
            epochs=10,
            steps_per_epoch=5, shuffle=False,
            validation_data=(x_test, y_test),
            callbacks=[backup_restore_callback])))

# [cell 26]
class InterruptAtStep(tf.keras.callbacks.Callback):
  # A callback for artificially interrupting training.
  def __init__(self, interrupting_step=14):
    self.total_step_count = 0
    self.interrupting_step = interrupting_step

  def on_batch_begin(self, batch, logs=None):
    self.total_step_count += 1

  def on_batch_end(self, batch, logs=None):
    if self.total_step_count == self.interrupting_step:
      print("\nInterrupting at step count", self.total_step_count)
      raise RuntimeError('Interruption')

# [cell 28]
log_dir_2 = tempfile.mkdtemp()

backup_restore_callback = tf.keras.callbacks.BackupAndRestore(
    backup_dir = log_dir_2, save_freq=3
)
model = create_model()
model.compile(optimizer='adam',
              loss=loss,
              metrics=['accuracy'])
try:
  model.fit(x=x_train,
            y=y_train,
            epochs=10,
            steps_per_epoch=5, shuffle=False,
            validation_data=(x_test, y_test),
            callbacks=[backup_restore_callback, InterruptAtStep()])
except Exception as e:
  print(f'{type(e).__name__}:{e}')

# [cell 30]
model = create_model()
model.compile(optimizer='adam',
              loss=loss,
              metrics=['accuracy'],
              steps_per_execution=10)
show((model.fit(x=x_train,
            y=y_train,
            epochs=10,
            steps_per_epoch=5, shuffle=False,
            validation_data=(x_test, y_test),
            callbacks=[backup_restore_callback])))

# [cell 32]
model = create_model()
optimizer = tf.keras.optimizers.SGD(learning_rate=0.001)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
log_dir = 'custom_loop_ckpts'  # tempfile.mkdtemp()
epochs = 5
steps_per_epoch = 5

checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
checkpoint_manager = tf.train.CheckpointManager(
            checkpoint, log_dir, max_to_keep=2)

# [cell 34]
for epoch in range(epochs):
  if epoch > 0:
      tf.train.load_checkpoint(save_path)
  print(f"\nStart of epoch {epoch}")

  for step in range(steps_per_epoch):
    with tf.GradientTape() as tape:

      logits = model(x_train, training=True)
      loss_value = loss_fn(y_train, logits)

      grads = tape.gradient(loss_value, model.trainable_weights)
      optimizer.apply_gradients(zip(grads, model.trainable_weights))

    save_path = checkpoint_manager.save()
    print(f"Checkpoint saved to {save_path}")
    print(f"Training loss at step {step}: {loss_value}")

