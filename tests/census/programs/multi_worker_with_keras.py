# Multi-worker training with Keras: tensorflow/docs site/en/tutorials/distribute/multi_worker_with_keras.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/distribute/multi_worker_with_keras.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: distribute
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   Keras's random initializers draw from NumPy;
# - what runs in one process only: the tutorial's cluster (cells 51 and 60 run `python main.py`
#   as two workers, in the background and in the foreground, on localhost ports; cells 55 and 62
#   show the first worker's log) is left out, with the other shell and IPython lines (cell 15's
#   !pip, cells 33 and 46's %%bash, cells 50 and 64's %killbgscripts); cell 53's time.sleep(10),
#   which waits for that worker, sleeps 0 s. Cells 24, 26, 48 and 58 (TF_CONFIG written to the
#   environment) run; cell 64 removes it again before cell 37's MultiWorkerMirroredStrategy(),
#   which is then one worker, as in the source (cells 37 to 95 run in the notebook's process);
# - cells 20 and 43's %%writefile mnist_setup.py / main.py write the files with open(); cell 22's
#   `import mnist_setup` is the module made from that file's code (_import_as_user), run with the
#   census prelude's import, so that its `import tensorflow as tf` is the facade in eagertape's
#   run, as a user's changed import line in mnist_setup.py would be;
# - data: MNIST's download (tf.keras.datasets.mnist.load_data, in mnist_setup.py) is the census
#   prelude's _mnist_like(128, 0) (given to the module); determinism: its .shuffle(60000) is left
#   out (TF's order is TF's generator's);
# - sizes: Conv2D(32) is Conv2D(4), Dense(128) is Dense(16); steps_per_epoch 70 and 20 are 4 and 2;
#   BackupAndRestore's save_freq=30 is save_freq=2;
# - paths: the source's keras-model, ckpt and backup folders in the system's temporary
#   folder are folders of the run's own folder; Keras 3 saves a model to a '.keras' file
#   only (TF 2.21 raises ValueError for the source's keras-model): model_path is
#   'keras-model.keras'
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

# [cell 7]
import json
import os
import sys

# [cell 9]
os.environ["CUDA_VISIBLE_DEVICES"] = "-1"

# [cell 11]
os.environ.pop('TF_CONFIG', None)

# [cell 13]
if '.' not in sys.path:
  sys.path.insert(0, '.')

# [cell 15]  (left out: see the header)
# !pip install tf-nightly

# [cell 17]
import tensorflow as tf

# [cell 20]
# %%writefile mnist_setup.py
with open('mnist_setup.py', 'w') as f:
  f.write('''
import os
import tensorflow as tf
import numpy as np

def mnist_dataset(batch_size):
  (x_train, y_train), _ = _mnist_like(128, 0)  # tf.keras.datasets.mnist.load_data()
  # The `x` arrays are in uint8 and have values in the [0, 255] range.
  # You need to convert them to float32 with values in the [0, 1] range.
  x_train = x_train / np.float32(255)
  y_train = y_train.astype(np.int64)
  train_dataset = tf.data.Dataset.from_tensor_slices(
      (x_train, y_train)).repeat().batch(batch_size)  # .shuffle(60000): see the header
  return train_dataset

def build_and_compile_cnn_model():
  model = tf.keras.Sequential([
      tf.keras.layers.InputLayer(input_shape=(28, 28)),
      tf.keras.layers.Reshape(target_shape=(28, 28, 1)),
      tf.keras.layers.Conv2D(4, 3, activation='relu'),
      tf.keras.layers.Flatten(),
      tf.keras.layers.Dense(16, activation='relu'),
      tf.keras.layers.Dense(10)
  ])
  model.compile(
      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
      optimizer=tf.keras.optimizers.SGD(learning_rate=0.001),
      metrics=['accuracy'])
  return model
''')

def _import_as_user(name):
  # `import name` of the file written above, its own `import tensorflow` the program's
  # (see the header)
  mod = types.ModuleType(name)
  mod.__dict__.update(__name__='__main__', __file__=os.path.abspath(name + '.py'),
                      _mnist_like=_mnist_like)
  sys.modules[name] = mod
  exec(compile(open(name + '.py').read(), mod.__file__, 'exec'), mod.__dict__)
  mod.__name__ = name
  return mod

# [cell 22]
mnist_setup = _import_as_user('mnist_setup')  # import mnist_setup

batch_size = 64
single_worker_dataset = mnist_setup.mnist_dataset(batch_size)
single_worker_model = mnist_setup.build_and_compile_cnn_model()
show(single_worker_model.fit(single_worker_dataset, epochs=3, steps_per_epoch=4))

# [cell 24]
tf_config = {
    'cluster': {
        'worker': ['localhost:12345', 'localhost:23456']
    },
    'task': {'type': 'worker', 'index': 0}
}

# [cell 26]
show(json.dumps(tf_config))

# [cell 31]
os.environ['GREETINGS'] = 'Hello TensorFlow!'

# [cell 33]  (left out: see the header)
# %%bash
# echo ${GREETINGS}

# [cell 37]
strategy = tf.distribute.MultiWorkerMirroredStrategy()

# [cell 40]
with strategy.scope():
  # Model building/compiling need to be within `strategy.scope()`.
  multi_worker_model = mnist_setup.build_and_compile_cnn_model()

# [cell 43]
# %%writefile main.py
with open('main.py', 'w') as f:
  f.write('''
import os
import json

import tensorflow as tf
import mnist_setup

per_worker_batch_size = 64
tf_config = json.loads(os.environ['TF_CONFIG'])
num_workers = len(tf_config['cluster']['worker'])

strategy = tf.distribute.MultiWorkerMirroredStrategy()

global_batch_size = per_worker_batch_size * num_workers
multi_worker_dataset = mnist_setup.mnist_dataset(global_batch_size)

with strategy.scope():
  # Model building/compiling need to be within `strategy.scope()`.
  multi_worker_model = mnist_setup.build_and_compile_cnn_model()


multi_worker_model.fit(multi_worker_dataset, epochs=3, steps_per_epoch=70)
''')

# [cell 46]  (left out: see the header)
# %%bash
# ls *.py

# [cell 48]
os.environ['TF_CONFIG'] = json.dumps(tf_config)

# [cell 50]  (left out: see the header)
# # first kill any previous runs
# %killbgscripts

# [cell 51]  (left out: see the header)
# %%bash --bg
# python main.py &> job_0.log

# [cell 53]
import time
time.sleep(0)  # time.sleep(10): see the header

# [cell 55]  (left out: see the header)
# %%bash
# cat job_0.log

# [cell 58]
tf_config['task']['index'] = 1
os.environ['TF_CONFIG'] = json.dumps(tf_config)

# [cell 60]  (left out: see the header)
# %%bash
# python main.py

# [cell 62]  (left out: see the header)
# %%bash
# cat job_0.log

# [cell 64]
# Delete the `TF_CONFIG`, and kill any background tasks so they don't affect the next section.
os.environ.pop('TF_CONFIG', None)
# %killbgscripts  (left out: see the header)

# [cell 68]
options = tf.data.Options()
options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF

global_batch_size = 64
multi_worker_dataset = mnist_setup.mnist_dataset(batch_size=64)
dataset_no_auto_shard = multi_worker_dataset.with_options(options)

# [cell 76]
model_path = 'keras-model.keras'  # the source's keras-model folder: see the header

def _is_chief(task_type, task_id):
  # Note: there are two possible `TF_CONFIG` configurations.
  #   1) In addition to `worker` tasks, a `chief` task type is use;
  #      in this case, this function should be modified to
  #      `return task_type == 'chief'`.
  #   2) Only `worker` task type is used; in this case, worker 0 is
  #      regarded as the chief. The implementation demonstrated here
  #      is for this case.
  # For the purpose of this Colab section, the `task_type` is `None` case
  # is added because it is effectively run with only a single worker.
  return (task_type == 'worker' and task_id == 0) or task_type is None

def _get_temp_dir(dirpath, task_id):
  base_dirpath = 'workertemp_' + str(task_id)
  temp_dir = os.path.join(dirpath, base_dirpath)
  tf.io.gfile.makedirs(temp_dir)
  return temp_dir

def write_filepath(filepath, task_type, task_id):
  dirpath = os.path.dirname(filepath)
  base = os.path.basename(filepath)
  if not _is_chief(task_type, task_id):
    dirpath = _get_temp_dir(dirpath, task_id)
  return os.path.join(dirpath, base)

task_type, task_id = (strategy.cluster_resolver.task_type,
                      strategy.cluster_resolver.task_id)
write_model_path = write_filepath(model_path, task_type, task_id)

# [cell 79]
multi_worker_model.save(write_model_path)

# [cell 81]
if not _is_chief(task_type, task_id):
  tf.io.gfile.rmtree(os.path.dirname(write_model_path))

# [cell 83]
loaded_model = tf.keras.models.load_model(model_path)

# Now that the model is restored, and can continue with the training.
show(loaded_model.fit(single_worker_dataset, epochs=2, steps_per_epoch=2))

# [cell 85]
checkpoint_dir = 'ckpt'  # the source's ckpt folder: see the header

checkpoint = tf.train.Checkpoint(model=multi_worker_model)
write_checkpoint_dir = write_filepath(checkpoint_dir, task_type, task_id)
checkpoint_manager = tf.train.CheckpointManager(
    checkpoint, directory=write_checkpoint_dir, max_to_keep=1)

# [cell 87]
checkpoint_manager.save()
if not _is_chief(task_type, task_id):
  tf.io.gfile.rmtree(write_checkpoint_dir)

# [cell 89]
latest_checkpoint = tf.train.latest_checkpoint(checkpoint_dir)
checkpoint.restore(latest_checkpoint)
show(multi_worker_model.fit(multi_worker_dataset, epochs=2, steps_per_epoch=2))

# [cell 91]
# Multi-worker training with `MultiWorkerMirroredStrategy`
# and the `BackupAndRestore` callback. The training state 
# is backed up at epoch boundaries by default.

callbacks = [tf.keras.callbacks.BackupAndRestore(backup_dir='backup')]  # the source's backup folder
with strategy.scope():
  multi_worker_model = mnist_setup.build_and_compile_cnn_model()
show(multi_worker_model.fit(multi_worker_dataset,
                       epochs=3,
                       steps_per_epoch=4,
                       callbacks=callbacks))

# [cell 93]
# The training state is backed up at epoch boundaries because `save_freq` is
# set to `epoch`.

callbacks = [tf.keras.callbacks.BackupAndRestore(backup_dir='backup')]  # the source's backup folder
with strategy.scope():
  multi_worker_model = mnist_setup.build_and_compile_cnn_model()
show(multi_worker_model.fit(multi_worker_dataset,
                       epochs=3,
                       steps_per_epoch=4,
                       callbacks=callbacks))


# [cell 95]
# The training state is backed up at every 30 steps because `save_freq` is set
# to an integer value of `30`.

callbacks = [tf.keras.callbacks.BackupAndRestore(backup_dir='backup', save_freq=2)]  # the source's backup folder, 30
with strategy.scope():
  multi_worker_model = mnist_setup.build_and_compile_cnn_model()
show(multi_worker_model.fit(multi_worker_dataset,
                       epochs=3,
                       steps_per_epoch=4,
                       callbacks=callbacks))
