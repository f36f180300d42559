# Migrate the SavedModel workflow: tensorflow/docs site/en/guide/migrate/saved_model.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/migrate/saved_model.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: saved_model
# expected: gap: cell 33's tf.Variable made in a TF 1 graph is an eager Variable in eagertape (tf1.Variable and tf1.get_variable make the graph's), which has no `initializer`: sess.run(v.initializer) raises AttributeError; after it, kept: cells 33-37's Saver.export_meta_graph, import_meta_graph and tf1.wrap_function (TF 1 MetaGraphs: eagertape's TF 1 graphs, tf/_v1_graph.py, are graphs of JAX calls, not TF GraphDefs); cells 8-29 (TF 1 SavedModels: Builder, simple_save, tf1.saved_model.load and tf.saved_model.load of them) run
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show;
# - shell lines: cells 9, 12, 15, 19 and 22's `!saved_model_cli run` (a command-line tool) are
#   left out;
# - cells TF 2.21 cannot run are left out (commented): cell 14, the Estimator's export
#   (tf.estimator was removed from TensorFlow 2.16); cell 21, Keras's
#   model.save('keras-model', save_format='tf', signatures=...) (Keras 3 saves '.keras' and
#   '.h5' files only: TF 2.21 raises ValueError), and with it cell 31's
#   tf.keras.models.load_model('keras-model'); the calls of cells 25 and 27 that load
#   'estimator-model' and 'keras-model', which those cells would have written
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

# [cell 5]
import tensorflow as tf
import tensorflow.compat.v1 as tf1
import shutil

def remove_dir(path):
  try:
    shutil.rmtree(path)
  except:
    pass

def add_two(input):
  return input + 2

# [cell 8]
remove_dir("saved-model-builder")

with tf.Graph().as_default() as g:
  with tf1.Session() as sess:
    input = tf1.placeholder(tf.float32, shape=[])
    output = add_two(input)
    print("add two output: ", sess.run(output, {input: 3.}))

    # Save with SavedModelBuilder
    builder = tf1.saved_model.Builder('saved-model-builder')
    sig_def = tf1.saved_model.predict_signature_def(
        inputs={'input': input},
        outputs={'output': output})
    builder.add_meta_graph_and_variables(
        sess, tags=["serve"], signature_def_map={
            tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY: sig_def
    })
    builder.save()

# [cell 9]  (left out: see the header)
# !saved_model_cli run --dir saved-model-builder --tag_set serve \
#  --signature_def serving_default --input_exprs input=10

# [cell 11]
remove_dir("simple-save")

with tf.Graph().as_default() as g:
  with tf1.Session() as sess:
    input = tf1.placeholder(tf.float32, shape=[])
    output = add_two(input)
    print("add_two output: ", sess.run(output, {input: 3.}))

    tf1.saved_model.simple_save(
        sess, 'simple-save',
        inputs={'input': input},
        outputs={'output': output})

# [cell 12]  (left out: see the header)
# !saved_model_cli run --dir simple-save --tag_set serve \
#  --signature_def serving_default --input_exprs input=10

# [cell 14]  (left out: tf.estimator, removed from TensorFlow 2.16; see the header)
# def model_fn(features, labels, mode):
#   output = add_two(features['input'])
#   step = tf1.train.get_global_step()
#   return tf.estimator.EstimatorSpec(
#       mode,
#       predictions=output,
#       train_op=step.assign_add(1),
#       loss=tf.constant(0.),
#       export_outputs={
#           tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY: \
#           tf.estimator.export.PredictOutput({'output': output})})
# est = tf.estimator.Estimator(model_fn, 'estimator-checkpoints')
#
# # Train for one step to create a checkpoint.
# def train_fn():
#   return tf.data.Dataset.from_tensors({'input': 3.})
# est.train(train_fn, steps=1)
#
# # This utility function `build_raw_serving_input_receiver_fn` takes in raw
# # tensor features and builds an "input serving receiver function", which
# # creates placeholder inputs to the model.
# serving_input_fn = tf.estimator.export.build_raw_serving_input_receiver_fn(
#     {'input': tf.constant(3.)})  # Pass in a dummy input batch.
# estimator_path = est.export_saved_model('exported-estimator', serving_input_fn)
#
# # Estimator's export_saved_model creates a time stamped directory. Move this
# # to a set path so it can be inspected with `saved_model_cli` in the cell below.
# !rm -rf estimator-model
# import shutil
# shutil.move(estimator_path, 'estimator-model')

# [cell 15]  (left out: see the header)
# !saved_model_cli run --dir estimator-model --tag_set serve \
#  --signature_def serving_default --input_exprs input=[10]

# [cell 18]
class MyModel(tf.Module):
  @tf.function
  def __call__(self, input):
    return add_two(input)

model = MyModel()

@tf.function
def serving_default(input):
  return {'output': model(input)}

signature_function = serving_default.get_concrete_function(
    tf.TensorSpec(shape=[], dtype=tf.float32))
tf.saved_model.save(
    model, 'tf2-save', signatures={
        tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY: signature_function})

# [cell 19]  (left out: see the header)
# !saved_model_cli run --dir tf2-save --tag_set serve \
#  --signature_def serving_default --input_exprs input=10

# [cell 21]  (left out: Keras 3 has no save_format='tf'; see the header)
# inp = tf.keras.Input(3)
# out = add_two(inp)
# model = tf.keras.Model(inputs=inp, outputs=out)
#
# @tf.function(input_signature=[tf.TensorSpec(shape=[], dtype=tf.float32)])
# def serving_default(input):
#   return {'output': model(input)}
#
# model.save('keras-model', save_format='tf', signatures={
#         tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY: serving_default})

# [cell 22]  (left out: see the header)
# !saved_model_cli run --dir keras-model --tag_set serve \
#  --signature_def serving_default --input_exprs input=10

# [cell 25]
def load_tf1(path, input):
  print('Loading from', path)
  with tf.Graph().as_default() as g:
    with tf1.Session() as sess:
      meta_graph = tf1.saved_model.load(sess, ["serve"], path)
      sig_def = meta_graph.signature_def[tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
      input_name = sig_def.inputs['input'].name
      output_name = sig_def.outputs['output'].name
      print('  Output with input', input, ': ', 
            sess.run(output_name, feed_dict={input_name: input}))

load_tf1('saved-model-builder', 5.)
load_tf1('simple-save', 5.)
# load_tf1('estimator-model', [5.])  # Estimator's input must be batched.  (left out: see the header)
load_tf1('tf2-save', 5.)
# load_tf1('keras-model', 5.)  (left out: see the header)

# [cell 27]
def load_tf2(path, input):
  print('Loading from', path)
  loaded = tf.saved_model.load(path)
  out = loaded.signatures[tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY](
      tf.constant(input))['output']
  print('  Output with input', input, ': ', out)

load_tf2('saved-model-builder', 5.)
load_tf2('simple-save', 5.)
# load_tf2('estimator-model', [5.])  # Estimator's input must be batched.  (left out: see the header)
load_tf2('tf2-save', 5.)
# load_tf2('keras-model', 5.)  (left out: see the header)

# [cell 29]
loaded = tf.saved_model.load('tf2-save')
print('restored __call__:', loaded.__call__)
print('output with input 5.', loaded(5))

# [cell 31]  (left out: it loads cell 21's 'keras-model'; see the header)
# loaded_model = tf.keras.models.load_model('keras-model')
# loaded_model.predict_on_batch(tf.constant([1, 3, 4]))

# [cell 33]
# Save a simple multiplication computation:
with tf.Graph().as_default() as g:
  x = tf1.placeholder(tf.float32, shape=[], name='x')
  v = tf.Variable(3.0, name='v')
  y = tf.multiply(x, v, name='y')
  with tf1.Session() as sess:
    sess.run(v.initializer)
    print(sess.run(y, feed_dict={x: 5}))
    s = tf1.train.Saver()
    s.export_meta_graph('multiply.pb', as_text=True)
    s.save(sess, 'multiply_values.ckpt')

# [cell 35]
with tf.Graph().as_default() as g:
  meta = tf1.train.import_meta_graph('multiply.pb')
  x = g.get_tensor_by_name('x:0')
  y = g.get_tensor_by_name('y:0')
  with tf1.Session() as sess:
    meta.restore(sess, 'multiply_values.ckpt')
    print(sess.run(y, feed_dict={x: 5}))

# [cell 37]
def import_multiply():
  # Any graph-building code is allowed here.
  tf1.train.import_meta_graph('multiply.pb')

# Creates a tf.function with all the imported elements in the function graph.
wrapped_import = tf1.wrap_function(import_multiply, [])
import_graph = wrapped_import.graph
x = import_graph.get_tensor_by_name('x:0')
y = import_graph.get_tensor_by_name('y:0')

# Restore the variable values.
tf1.train.Saver(wrapped_import.variables).restore(
    sess=None, save_path='multiply_values.ckpt')

# Create a concrete function by pruning the wrap_function (similar to sess.run).
multiply_fn = wrapped_import.prune(feeds=x, fetches=y)

# Run this function
show(multiply_fn(tf.constant(5.)))  # inputs to concrete functions must be Tensors.
