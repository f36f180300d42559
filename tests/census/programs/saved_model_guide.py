# Using the SavedModel format: tensorflow/docs site/en/guide/saved_model.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/saved_model.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: saved_model
# expected: kept: a SavedModel signature of unknown rank (docs/differences.md, saved-model-save): cells 47, 50 and 53 save signatures of tf.TensorSpec(None) (unknown rank), which eagertape exports once a rank (0 to 4: a JAX shape has a rank), tracing the Python function for each: __call__'s print('Tracing with', x) runs again at each save (records 0023 on are prints where TF shows the signatures' keys). Every value before is TF's (eager mode); what cells 48, 51 and 54 show comes after the extra prints, which shift the records: tests/test_saved_model_dynamic.py checks those modules' signatures (keys, structured_outputs with shape=<unknown>, values of ranks 0 to 3) against TF
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   Keras's random initializers draw from NumPy;
# - data: the two downloads (tf.keras.utils.get_file) are generated files in their formats:
#   grace_hopper.jpg a 60 x 50 JPEG of random pixels with a block, ImageNetLabels.txt 1001 label
#   lines ("background" first); MobileNet's ImageNet weights are a download: weights=None (its
#   weights' stand-in, set after cell 13's MobileNet(), is _imagenet_like's, drawn from NumPy:
#   He-scaled normal kernels, small biases and batch norms' means, their variances 1 (Keras's
#   own initial weights shrink the image's signal to nothing through the 13 blocks: every class
#   would tie), so the labels it ranks first are not Grace Hopper's military uniform);
# - sizes: MobileNet() is MobileNet(weights=None, alpha=0.25) (the same layers and variables,
#   a quarter of the channels; the input stays 224 x 224);
# - shell lines: cells 24 and 28's `!ls` are show(sorted(os.listdir(...))); cell 26's
#   `!saved_model_cli show` (a command-line tool) is left out;
# - Keras 3: cell 21's output key pretrained_model.output_names[0] ('predictions') is not the
#   signature's under TF 2.21 (tf.saved_model.save of a Keras 3 model names its output 'output_0',
#   as cell 19 prints; TF raises KeyError): the key is 'output_0'; cells 42 and 43 are left out:
#   the object TF 2.21's tf.saved_model.load gives for a Keras 3 model has no trainable_variables
#   (TF raises AttributeError)
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

# [cell 8]
import os
import tempfile

from matplotlib import pyplot as plt
import numpy as np
import tensorflow as tf

tmpdir = tempfile.mkdtemp()

# [cell 9]
physical_devices = tf.config.list_physical_devices('GPU')
for device in physical_devices:
  tf.config.experimental.set_memory_growth(device, True)

# [cell 10]
def _get_file(fname, origin):
  # the downloads, generated in their formats (see the header)
  if fname.endswith('.jpg'):
    import PIL.Image
    rs = np.random.RandomState(3)
    img = rs.randint(0, 90, (60, 50, 3))
    img[12:48, 14:36, :2] += 150
    PIL.Image.fromarray(img.clip(0, 255).astype('uint8')).save(fname, format='JPEG')
  else:
    with open(fname, 'w') as f:
      f.write('background\n' + '\n'.join(f'class {i}' for i in range(1000)) + '\n')
  return os.path.abspath(fname)

file = _get_file(  # tf.keras.utils.get_file(
    "grace_hopper.jpg",
    "https://storage.googleapis.com/download.tensorflow.org/example_images/grace_hopper.jpg")
img = tf.keras.utils.load_img(file, target_size=[224, 224])
plt.imshow(img)
plt.axis('off')
x = tf.keras.utils.img_to_array(img)
x = tf.keras.applications.mobilenet.preprocess_input(
    x[tf.newaxis,...])

def _imagenet_like(model):
  # the ImageNet weights' stand-in: He-scaled normal kernels, batch norms' variance 1
  rs = np.random.RandomState(5)
  out = []
  for w in model.weights:
    shape, name = tuple(w.shape), w.path if hasattr(w, 'path') else w.name
    if 'variance' in name or 'gamma' in name:
      out.append(np.ones(shape, 'float32'))
    elif len(shape) == 1:
      out.append((rs.randn(*shape) * 0.1).astype('float32'))
    else:
      fan_in = np.prod(shape[:2]) * (1 if 'depthwise' in name else shape[2])
      out.append((rs.randn(*shape) * np.sqrt(2.0 / fan_in)).astype('float32'))
  return out

# [cell 12]
labels_path = _get_file(  # tf.keras.utils.get_file(
    'ImageNetLabels.txt',
    'https://storage.googleapis.com/download.tensorflow.org/data/ImageNetLabels.txt')
imagenet_labels = np.array(open(labels_path).read().splitlines())

# [cell 13]
pretrained_model = tf.keras.applications.MobileNet(weights=None, alpha=0.25)
pretrained_model.set_weights(_imagenet_like(pretrained_model))  # (see the header)
result_before_save = pretrained_model(x)

decoded = imagenet_labels[np.argsort(result_before_save)[0,::-1][:5]+1]

print("Result before saving:\n", decoded)

# [cell 15]
mobilenet_save_path = os.path.join(tmpdir, "mobilenet/1/")
tf.saved_model.save(pretrained_model, mobilenet_save_path)

# [cell 17]
loaded = tf.saved_model.load(mobilenet_save_path)
print(list(loaded.signatures.keys()))  # ["serving_default"]

# [cell 19]
infer = loaded.signatures["serving_default"]
print(infer.structured_outputs)

# [cell 21]
labeling = infer(tf.constant(x))['output_0']  # [pretrained_model.output_names[0]]: see the header

decoded = imagenet_labels[np.argsort(labeling)[0,::-1][:5]+1]

print("Result after saving and loading:\n", decoded)

# [cell 24]
show(sorted(os.listdir(mobilenet_save_path)))  # !ls {mobilenet_save_path}

# [cell 26]  (left out: a command-line tool; see the header)
# !saved_model_cli show --dir {mobilenet_save_path} --tag_set serve

# [cell 28]
show(sorted(os.listdir(os.path.join(mobilenet_save_path, 'variables'))))  # !ls {mobilenet_save_path}/variables

# [cell 31]
class CustomModule(tf.Module):

  def __init__(self):
    super(CustomModule, self).__init__()
    self.v = tf.Variable(1.)

  @tf.function
  def __call__(self, x):
    print('Tracing with', x)
    return x * self.v

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def mutate(self, new_v):
    self.v.assign(new_v)

module = CustomModule()

# [cell 33]
module_no_signatures_path = os.path.join(tmpdir, 'module_no_signatures')
module(tf.constant(0.))
print('Saving model...')
tf.saved_model.save(module, module_no_signatures_path)

# [cell 36]
imported = tf.saved_model.load(module_no_signatures_path)
assert imported(tf.constant(3.)).numpy() == 3
imported.mutate(tf.constant(2.))
assert imported(tf.constant(3.)).numpy() == 6

# [cell 39]
optimizer = tf.keras.optimizers.SGD(0.05)

def train_step():
  with tf.GradientTape() as tape:
    loss = (10. - imported(tf.constant(2.))) ** 2
  variables = tape.watched_variables()
  grads = tape.gradient(loss, variables)
  optimizer.apply_gradients(zip(grads, variables))
  return loss

# [cell 40]
for _ in range(10):
  # "v" approaches 5, "loss" approaches 0
  print("loss={:.2f} v={:.2f}".format(train_step(), imported.v.numpy()))

# [cell 42]  (left out: TF 2.21 cannot run it; see the header)
# loaded = tf.saved_model.load(mobilenet_save_path)
# print("MobileNet has {} trainable variables: {}, ...".format(
#           len(loaded.trainable_variables),
#           ", ".join([v.name for v in loaded.trainable_variables[:5]])))
#
# [cell 43]  (left out: TF 2.21 cannot run it; see the header)
# trainable_variable_ids = {id(v) for v in loaded.trainable_variables}
# non_trainable_variables = [v for v in loaded.variables
#                            if id(v) not in trainable_variable_ids]
# print("MobileNet also has {} non-trainable variables: {}, ...".format(
#           len(non_trainable_variables),
#           ", ".join([v.name for v in non_trainable_variables[:3]])))

# [cell 45]
assert len(imported.signatures) == 0

# [cell 47]
module_with_signature_path = os.path.join(tmpdir, 'module_with_signature')
call = module.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32))
tf.saved_model.save(module, module_with_signature_path, signatures=call)

# [cell 48]
imported_with_signatures = tf.saved_model.load(module_with_signature_path)
show(list(imported_with_signatures.signatures.keys()))  # ["serving_default"]

# [cell 50]
module_multiple_signatures_path = os.path.join(tmpdir, 'module_with_multiple_signatures')
signatures = {"serving_default": call,
              "array_input": module.__call__.get_concrete_function(tf.TensorSpec([None], tf.float32))}

tf.saved_model.save(module, module_multiple_signatures_path, signatures=signatures)

# [cell 51]
imported_with_multiple_signatures = tf.saved_model.load(
    module_multiple_signatures_path
)
show(list(
    imported_with_multiple_signatures.signatures.keys()
))  # ["serving_default", "array_input"]

# [cell 53]
class CustomModuleWithOutputName(tf.Module):
  def __init__(self):
    super(CustomModuleWithOutputName, self).__init__()
    self.v = tf.Variable(1.)

  @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
  def __call__(self, x):
    return {'custom_output_name': x * self.v}

module_output = CustomModuleWithOutputName()
call_output = module_output.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32))
module_output_path = os.path.join(tmpdir, 'module_with_output_name')
tf.saved_model.save(module_output, module_output_path,
                    signatures={'serving_default': call_output})

# [cell 54]
imported_with_output_name = tf.saved_model.load(module_output_path)
show(imported_with_output_name.signatures[
    'serving_default'
].structured_outputs)  # {'custom_output_name': TensorSpec(shape=<unknown>, dtype=tf.float32, name='custom_output_name')}
