# TF-NumPy Type Promotion: tensorflow/docs site/en/guide/tf_numpy_type_promotion.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/tf_numpy_type_promotion.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - the version printed is left out
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

# [cell 6]
# !pip install -q tf_nightly

# [cell 9]
import numpy as np
import tensorflow as tf
import tensorflow.experimental.numpy as tnp

# print("Using TensorFlow version %s" % tf.__version__)

# [cell 11]
show((tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")))

# [cell 15]
# i32 + f32 returns a f32 result in ALL mode.
tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
a = tf.constant(10, dtype = tf.int32)
b = tf.constant(5.0, dtype = tf.float32)
show((a + b))  # <tf.Tensor: shape=(), dtype=float32, numpy=15.0>

# [cell 16]
# This promotion is not allowed in SAFE mode.
tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="safe")
a = tf.constant(10, dtype = tf.int32)
b = tf.constant(5.0, dtype = tf.float32)
try:
  a + b
except TypeError as e:
   print(f'{type(e)}: {e}')  # TypeError: explicitly specify the dtype or switch to ALL mode.

# [cell 18]
# i8 + u32 returns an i64 result in ALL mode.
tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
a = tf.constant(10, dtype = tf.int8)
b = tf.constant(5, dtype = tf.uint32)
show((a + b))

# [cell 19]
# This promotion is not allowed in SAFE mode.
tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="safe")
a = tf.constant(10, dtype = tf.int8)
b = tf.constant(5, dtype = tf.uint32)
try:
  a + b
except TypeError as e:
   print(f'{type(e)}: {e}')  # TypeError: explicitly specify the dtype or switch to ALL mode.

# [cell 28]
# The first input is promoted to f16 in ALL mode.
tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
show((tf.constant(1, tf.int64) + tf.constant(3.2, tf.float16)))  # <tf.Tensor: shape=(), dtype=float16, numpy=4.2>

# [cell 33]
show((tf.constant(1.2) + tf.constant(3.1, tf.float16)))  # <tf.Tensor: shape=(), dtype=float16, numpy=4.3>

# [cell 36]
show((tf.constant(5)))  # <tf.Tensor: shape=(), dtype=int32, numpy=5, weak=True>

# [cell 37]
show((tf.constant([5.0, 10.0, 3])))  # <tf.Tensor: shape=(3,), dtype=float32, numpy=array([ 5., 10.,  3.], dtype=float32), weak=True>

# [cell 38]
# A normal Tensor is created when dtype arg is specified.
show((tf.constant(5, tf.int32)))  # <tf.Tensor: shape=(), dtype=int32, numpy=5>

# [cell 40]
show((tf.math.abs([100.0, 4.0])))  # <tf.Tensor: shape=(2,), dtype=float32, numpy=array([100., 4.], dtype=float32), weak=True>

# [cell 44]
# Setup
tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="legacy")
a = np.array(1, dtype=np.int8)
b = tf.constant(1)
c = np.array(1, dtype=np.float16)

# [cell 45]
# (a + b) + c throws an InvalidArgumentError.
try:
  tf.add(tf.add(a, b), c)
except tf.errors.InvalidArgumentError as e:
  print(f'{type(e)}: {e}')  # InvalidArgumentError

# [cell 46]
# (b + a) + c returns an i32 result.
show((tf.add(tf.add(b, a), c)))  # <tf.Tensor: shape=(), dtype=int32, numpy=3>

# [cell 48]
tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
a = np.array(1, dtype=np.int8)
b = tf.constant(1)
c = np.array(1, dtype=np.float16)

# [cell 49]
# (a + b) + c returns a f16 result.
show((tf.add(tf.add(a, b), c)))  # <tf.Tensor: shape=(), dtype=float16, numpy=3.0>

# [cell 50]
# (b + a) + c also returns a f16 result.
show((tf.add(tf.add(b, a), c)))  # <tf.Tensor: shape=(), dtype=float16, numpy=3.0>

# [cell 53]
show((tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="legacy")))

# [cell 54]
show((np.array(3.2, np.float16) + tf.constant(1, tf.int8) + tf.constant(50)))  # <tf.Tensor: shape=(), dtype=float64, numpy=54.19921875>

# [cell 56]
show((tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")))

# [cell 57]
show((np.array(3.2, np.float16) + tf.constant(1, tf.int8) + tf.constant(50)))  # <tf.Tensor: shape=(), dtype=float16, numpy=54.2>

# [cell 59]
show((-tf.constant(5)))  # <tf.Tensor: shape=(), dtype=int32, numpy=-5, weak=True>

# [cell 60]
show((tf.constant(5, tf.int16) - tf.constant(1, tf.float32)))  # <tf.Tensor: shape=(), dtype=float32, numpy=4.0>

# [cell 62]
tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
a = tf.Variable(10, tf.int32)
show((a.assign_add(tf.constant(5, tf.int16))))  # <tf.Variable shape=() dtype=int32, numpy=15>

# [cell 64]
tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
a = tf.constant(10, tf.int16)
show((tf.constant(a, tf.float32)))  # <tf.Tensor: shape=(), dtype=float32, numpy=10.0>

# [cell 66]
show((tnp.array(1)))  # <tf.Tensor: shape=(), dtype=int32, numpy=1, weak=True>

# [cell 67]
show((tnp.array(1.0)))  # <tf.Tensor: shape=(), dtype=int32, numpy=1, weak=True>
