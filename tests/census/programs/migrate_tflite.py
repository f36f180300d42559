# Migrating your TFLite code to TF2: tensorflow/docs site/en/guide/migrate/tflite.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/migrate/tflite.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# expected: kept: TF 1 GraphDefs are left out (cell 9's graph.as_graph_def() of the generated frozen graph raises NotImplementedError; cells 12 and 22's tf1.lite.TFLiteConverter of TF 1 graphs (from_saved_model with input_arrays, from_frozen_graph) and cell 24's import_graph_def): eagertape's TF 1 graphs (tf/_v1_graph.py) are graphs of JAX calls, not TF GraphDefs; cell 9's tf1.saved_model.simple_save runs (a TF 1 SavedModel in eagertape's format), so cell 14's TF 2 converter of it is not reached
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
# - data: the MobileNet frozen-graph download (mobilenet_v1_0.25_128_frozen.tgz, cell 9's get_file) is a
#   generated frozen_graph.pb in its format (a frozen TF 1 GraphDef from an 'input' placeholder [1, 128, 128, 3]
#   to 'MobilenetV1/Predictions/Softmax': a conv, relu6, mean, matmul and softmax of constants), written by the
#   program with TF 1 graph code in its folder mobilenet_v1_0.25_128/
# - cells TF 2.21 cannot run are left out (commented): cell 17, tf1.lite.TFLiteConverter.from_keras_model_file
#   (TF 2.21's TF 1 converter loads the file with tf_keras, which is not installed: TypeError 'NoneType' object
#   is not callable); cell 19, Keras's model.save(filepath='saved_model_2/') (Keras 3 saves '.keras' and '.h5'
#   files only: ValueError) and the conversion of the SavedModel it would have written
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
import tensorflow as tf
import tensorflow.compat.v1 as tf1
import numpy as np

import logging
logger = tf.get_logger()
logger.setLevel(logging.ERROR)

import shutil
def remove_dir(path):
  try:
    shutil.rmtree(path)
  except:
    pass

# [cell 9]
# Create a TF1 SavedModel
SAVED_MODEL_DIR = "tf_saved_model/"
remove_dir(SAVED_MODEL_DIR)
with tf1.Graph().as_default() as g:
  with tf1.Session() as sess:
    input = tf1.placeholder(tf.float32, shape=(3,), name='input')
    output = input + 2
    # print("result: ", sess.run(output, {input: [0., 2., 4.]}))
    tf1.saved_model.simple_save(
        sess, SAVED_MODEL_DIR,
        inputs={'input': input}, 
        outputs={'output': output})
print("TF1 SavedModel path: ", SAVED_MODEL_DIR)

# Create a TF1 Keras model
KERAS_MODEL_PATH = 'tf_keras_model.h5'
model = tf1.keras.models.Sequential([
    tf1.keras.layers.InputLayer(input_shape=(128, 128, 3,), name='input'),
    tf1.keras.layers.Dense(units=16, input_shape=(128, 128, 3,), activation='relu'),
    tf1.keras.layers.Dense(units=1, name='output')
])
model.save(KERAS_MODEL_PATH, save_format='h5')
print("TF1 Keras Model path: ", KERAS_MODEL_PATH)

# Create a TF1 frozen GraphDef model
def _frozen_graph_like(folder):
  # the download's frozen_graph.pb: a frozen TF 1 GraphDef (constants, no variables)
  # from an 'input' placeholder [1, 128, 128, 3] to 'MobilenetV1/Predictions/Softmax'
  import os
  os.makedirs(folder, exist_ok=True)
  rs = np.random.RandomState(7)
  with tf1.Graph().as_default() as graph:
    x = tf1.placeholder(tf.float32, shape=(1, 128, 128, 3), name='input')
    h = tf1.nn.conv2d(x, tf1.constant(rs.normal(0, 0.1, (3, 3, 3, 8)).astype('float32')),
                      strides=[1, 4, 4, 1], padding='SAME')
    h = tf1.nn.relu6(h)
    h = tf1.reduce_mean(h, axis=[1, 2])
    logits = tf1.matmul(h, tf1.constant(rs.normal(0, 0.1, (8, 5)).astype('float32')))
    tf1.nn.softmax(logits, name='MobilenetV1/Predictions/Softmax')
  with open(folder + '/frozen_graph.pb', 'wb') as f:
    f.write(graph.as_graph_def().SerializeToString())
  return folder
GRAPH_DEF_MODEL_PATH = _frozen_graph_like('mobilenet_v1_0.25_128') + '/frozen_graph.pb'  # the download

print("TF1 frozen GraphDef path: ", GRAPH_DEF_MODEL_PATH)

# [cell 12]
converter = tf1.lite.TFLiteConverter.from_saved_model(
    saved_model_dir=SAVED_MODEL_DIR,
    input_arrays=['input'],
    input_shapes={'input' : [3]}
)
converter.optimizations = {tf.lite.Optimize.DEFAULT}
converter.change_concat_input_ranges = True
tflite_model = converter.convert()
# Ignore warning: "Use '@tf.function' or '@defun' to decorate the function."

# [cell 14]
# Convert TF1 SavedModel to a TFLite model.
converter = tf.lite.TFLiteConverter.from_saved_model(saved_model_dir=SAVED_MODEL_DIR)
converter.optimizations = {tf.lite.Optimize.DEFAULT}
tflite_model = converter.convert()

# [cell 17]  (left out: see the header)
# converter = tf1.lite.TFLiteConverter.from_keras_model_file(model_file=KERAS_MODEL_PATH)
# converter.optimizations = {tf.lite.Optimize.DEFAULT}
# converter.change_concat_input_ranges = True
# tflite_model = converter.convert()

# [cell 19]  (left out: see the header)
# # Convert TF1 Keras model file to TF2 SavedModel.
# model = tf.keras.models.load_model(KERAS_MODEL_PATH)
# model.save(filepath='saved_model_2/')
#
# # Convert TF2 SavedModel to a TFLite model.
# converter = tf.lite.TFLiteConverter.from_saved_model(saved_model_dir='saved_model_2/')
# tflite_model = converter.convert()

# [cell 22]
converter = tf1.lite.TFLiteConverter.from_frozen_graph(
    graph_def_file=GRAPH_DEF_MODEL_PATH,
    input_arrays=['input'],
    input_shapes={'input' : [1, 128, 128, 3]},
    output_arrays=['MobilenetV1/Predictions/Softmax'],
)
converter.optimizations = {tf.lite.Optimize.DEFAULT}
converter.change_concat_input_ranges = True
tflite_model = converter.convert()

# [cell 24]
## Convert TF1 frozen Graph to TF1 SavedModel.

# Load the graph as a v1.GraphDef
import pathlib
gdef = tf.compat.v1.GraphDef()
gdef.ParseFromString(pathlib.Path(GRAPH_DEF_MODEL_PATH).read_bytes())

# Convert the GraphDef to a tf.Graph
with tf.Graph().as_default() as g:
  tf.graph_util.import_graph_def(gdef, name="")

# Look up the input and output tensors.
input_tensor = g.get_tensor_by_name('input:0') 
output_tensor = g.get_tensor_by_name('MobilenetV1/Predictions/Softmax:0')

# Save the graph as a TF1 Savedmodel
remove_dir('saved_model_3/')
with tf.compat.v1.Session(graph=g) as s:
  tf.compat.v1.saved_model.simple_save(
      session=s,
      export_dir='saved_model_3/',
      inputs={'input':input_tensor},
      outputs={'output':output_tensor})

# Convert TF1 SavedModel to a TFLite model.
converter = tf.lite.TFLiteConverter.from_saved_model(saved_model_dir='saved_model_3/')
converter.optimizations = {tf.lite.Optimize.DEFAULT}
tflite_model = converter.convert()

