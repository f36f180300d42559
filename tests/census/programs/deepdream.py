# DeepDream: tensorflow/docs site/en/tutorials/generative/deepdream.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/generative/deepdream.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: 
# expected: gap: a tf.range of traced bounds, sliced: TiledGradients' tf.function (cell 31) makes xs = tf.range(0, img_size[1], tile_size)[:-1] of its tensor arguments img_size and tile_size; eagertape's tf.range of traced bounds is only a for loop's iterable (tf/_autograph.py's _TracedRange, a length JAX's static shapes cannot hold), so the slice raises TypeError ''_TracedRange' object is not subscriptable' (then len(xs), a tf.cond that replaces xs by tf.constant([0]), and for loops over xs and ys would need it too), in eager and fused mode, where TF makes a tensor of dynamic length; cells before it give TF's values (cell 34's tf.roll by a drawn shift and the gradient of InceptionV3's strided valid convolutions of None sizes, traced once, are no longer causes)
# changes (everything else is the source's code cells, in order):
# - printed values are recorded by the census prelude's print; cell 10 defines a show(img) of its own
#   (display.display of a PIL image, which the prelude's IPython.display recorder would not record):
#   display.display records what it shows, a PIL image, as its shape and the mean pixel of each row and
#   of each column, through the prelude's show (kept as _show), added after cell 6 (a uint8 pixel's
#   truncation may differ by 1 where float32 sums round differently; a mean of a row's or column's
#   hundreds of pixels does not, and a roll or a dream's change still shows);
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - determinism: random_roll's tf.random.uniform(minval=-maxroll, maxval=maxroll) inside TiledGradients'
#   tf.function has tensor bounds (its tile_size), whose values the prelude's NumPy draw cannot read
#   (TF raises NotImplementedError there): a tf.random.uniform added after cell 6 draws NumPy's [0, 1)
#   when a bound is a tensor and scales it to the bounds with TF ops (minval + floor(u * (maxval - minval)));
#   drawn when TF traces the function (once, as its input_signature gives), so every call's shift is one;
# - data: InceptionV3's ImageNet weights are a download: weights='imagenet' is weights=None (its initial
#   weights are Keras's initializers', drawn from NumPy by the prelude), so the dream is an untrained
#   network's; the YellowLabradorLooking_new.jpg download (get_file in cell 10's download) is a generated
#   88x80 JPEG of flat 8x8 blocks saved without chroma subsampling, written by the program (`import os`
#   added for it);
# - sizes: cell 24's steps 100 are 4; cell 26's 50 steps an octave are 2; cell 35's 100 steps an octave
#   are 3; TiledGradients' tile_size 512 is 64 (so the larger octaves have several tiles). The octaves
#   are the source's (range(-2, 3)): the smallest, 47x52, is above the 43 pixels mixed5 needs;
# - the time cell 26 shows (end-start) is left out: the machine's, not the program's
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

# [cell 6]
import numpy as np

import matplotlib as mpl

import IPython.display as display
import PIL.Image

import os
_show = show   # the census prelude's show: cell 10 defines a show of its own
def _display(obj, *args, **kwargs):
  # what Jupyter shows: an image, recorded as its shape and its rows' and columns' mean pixels
  if isinstance(obj, PIL.Image.Image):
    pixels = np.asarray(obj, dtype='float64')
    _show((list(pixels.shape), pixels.mean(axis=(1, 2)), pixels.mean(axis=(0, 2))))
display.display = _display

_np_uniform = tf.random.uniform   # the census prelude's (a draw from NumPy)
def _uniform(shape, minval=0, maxval=None, dtype=tf.float32, seed=None, name=None):
  # The prelude's draw needs its bounds' values; in TiledGradients' traced function they are
  # tensors (its tile_size): there the draw is NumPy's [0, 1), scaled to them by TF ops.
  if tf.is_tensor(minval) or tf.is_tensor(maxval):
    u = tf.constant(_rs.uniform(size=[int(d) for d in shape]), tf.float32)
    return tf.cast(minval, dtype) + tf.cast(tf.floor(u * tf.cast(maxval - minval, tf.float32)), dtype)
  return _np_uniform(shape, minval, maxval, dtype, seed, name)
tf.random.uniform = _uniform

def _labrador_like(path):
  # a JPEG of flat 8x8 blocks saved without chroma subsampling (every decoder gives its pixels)
  blocks = np.random.RandomState(0).randint(0, 256, (10, 11, 3)).astype('uint8')
  PIL.Image.fromarray(np.kron(blocks, np.ones((8, 8, 1), 'uint8'))).save(
      path, format='JPEG', quality=95, subsampling=0)
  return path

# [cell 9]
url = 'https://storage.googleapis.com/download.tensorflow.org/example_images/YellowLabradorLooking_new.jpg'

# [cell 10]
# Download an image and read it into a NumPy array.
def download(url, max_dim=None):
  name = url.split('/')[-1]
  image_path = _labrador_like(os.path.abspath(name))  # tf.keras.utils.get_file(name, origin=url)
  img = PIL.Image.open(image_path)
  if max_dim:
    img.thumbnail((max_dim, max_dim))
  return np.array(img)

# Normalize an image
def deprocess(img):
  img = 255*(img + 1.0)/2.0
  return tf.cast(img, tf.uint8)

# Display an image
def show(img):
  display.display(PIL.Image.fromarray(np.array(img)))


# Downsizing the image makes it easier to work with.
original_img = download(url, max_dim=500)
show(original_img)
display.display(display.HTML('Image cc-by: <a "href=https://commons.wikimedia.org/wiki/File:Felis_catus-cat_on_snow.jpg">Von.grzanka</a>'))

# [cell 13]
base_model = tf.keras.applications.InceptionV3(include_top=False, weights=None)

# [cell 16]
# Maximize the activations of these layers
names = ['mixed3', 'mixed5']
layers = [base_model.get_layer(name).output for name in names]

# Create the feature extraction model
dream_model = tf.keras.Model(inputs=base_model.input, outputs=layers)

# [cell 18]
def calc_loss(img, model):
  # Pass forward the image through the model to retrieve the activations.
  # Converts the image into a batch of size 1.
  img_batch = tf.expand_dims(img, axis=0)
  layer_activations = model(img_batch)
  if len(layer_activations) == 1:
    layer_activations = [layer_activations]

  losses = []
  for act in layer_activations:
    loss = tf.math.reduce_mean(act)
    losses.append(loss)

  return  tf.reduce_sum(losses)

# [cell 20]
class DeepDream(tf.Module):
  def __init__(self, model):
    self.model = model

  @tf.function(
      input_signature=(
        tf.TensorSpec(shape=[None,None,3], dtype=tf.float32),
        tf.TensorSpec(shape=[], dtype=tf.int32),
        tf.TensorSpec(shape=[], dtype=tf.float32),)
  )
  def __call__(self, img, steps, step_size):
      print("Tracing")
      loss = tf.constant(0.0)
      for n in tf.range(steps):
        with tf.GradientTape() as tape:
          # This needs gradients relative to `img`
          # `GradientTape` only watches `tf.Variable`s by default
          tape.watch(img)
          loss = calc_loss(img, self.model)

        # Calculate the gradient of the loss with respect to the pixels of the input image.
        gradients = tape.gradient(loss, img)

        # Normalize the gradients.
        gradients /= tf.math.reduce_std(gradients) + 1e-8 
        
        # In gradient ascent, the "loss" is maximized so that the input image increasingly "excites" the layers.
        # You can update the image by directly adding the gradients (because they're the same shape!)
        img = img + gradients*step_size
        img = tf.clip_by_value(img, -1, 1)

      return loss, img

# [cell 21]
deepdream = DeepDream(dream_model)

# [cell 23]
def run_deep_dream_simple(img, steps=100, step_size=0.01):
  # Convert from uint8 to the range expected by the model.
  img = tf.keras.applications.inception_v3.preprocess_input(img)
  img = tf.convert_to_tensor(img)
  step_size = tf.convert_to_tensor(step_size)
  steps_remaining = steps
  step = 0
  while steps_remaining:
    if steps_remaining>100:
      run_steps = tf.constant(100)
    else:
      run_steps = tf.constant(steps_remaining)
    steps_remaining -= run_steps
    step += run_steps

    loss, img = deepdream(img, run_steps, tf.constant(step_size))
    
    display.clear_output(wait=True)
    show(deprocess(img))
    print ("Step {}, loss {}".format(step, loss))


  result = deprocess(img)
  display.clear_output(wait=True)
  show(result)

  return result

# [cell 24]
dream_img = run_deep_dream_simple(img=original_img, 
                                  steps=4, step_size=0.01)

# [cell 26]
import time
start = time.time()

OCTAVE_SCALE = 1.30

img = tf.constant(np.array(original_img))
base_shape = tf.shape(img)[:-1]
float_base_shape = tf.cast(base_shape, tf.float32)

for n in range(-2, 3):
  new_shape = tf.cast(float_base_shape*(OCTAVE_SCALE**n), tf.int32)

  img = tf.image.resize(img, new_shape).numpy()

  img = run_deep_dream_simple(img=img, steps=2, step_size=0.01)

display.clear_output(wait=True)
img = tf.image.resize(img, base_shape)
img = tf.image.convert_image_dtype(img/255.0, dtype=tf.uint8)
show(img)

end = time.time()
# end-start

# [cell 28]
def random_roll(img, maxroll):
  # Randomly shift the image to avoid tiled boundaries.
  shift = tf.random.uniform(shape=[2], minval=-maxroll, maxval=maxroll, dtype=tf.int32)
  img_rolled = tf.roll(img, shift=shift, axis=[0,1])
  return shift, img_rolled

# [cell 29]
shift, img_rolled = random_roll(np.array(original_img), 512)
show(img_rolled)

# [cell 31]
class TiledGradients(tf.Module):
  def __init__(self, model):
    self.model = model

  @tf.function(
      input_signature=(
        tf.TensorSpec(shape=[None,None,3], dtype=tf.float32),
        tf.TensorSpec(shape=[2], dtype=tf.int32),
        tf.TensorSpec(shape=[], dtype=tf.int32),)
  )
  def __call__(self, img, img_size, tile_size=64):
    shift, img_rolled = random_roll(img, tile_size)

    # Initialize the image gradients to zero.
    gradients = tf.zeros_like(img_rolled)
    
    # Skip the last tile, unless there's only one tile.
    xs = tf.range(0, img_size[1], tile_size)[:-1]
    if not tf.cast(len(xs), bool):
      xs = tf.constant([0])
    ys = tf.range(0, img_size[0], tile_size)[:-1]
    if not tf.cast(len(ys), bool):
      ys = tf.constant([0])

    for x in xs:
      for y in ys:
        # Calculate the gradients for this tile.
        with tf.GradientTape() as tape:
          # This needs gradients relative to `img_rolled`.
          # `GradientTape` only watches `tf.Variable`s by default.
          tape.watch(img_rolled)

          # Extract a tile out of the image.
          img_tile = img_rolled[y:y+tile_size, x:x+tile_size]
          loss = calc_loss(img_tile, self.model)

        # Update the image gradients for this tile.
        gradients = gradients + tape.gradient(loss, img_rolled)

    # Undo the random shift applied to the image and its gradients.
    gradients = tf.roll(gradients, shift=-shift, axis=[0,1])

    # Normalize the gradients.
    gradients /= tf.math.reduce_std(gradients) + 1e-8 

    return gradients 

# [cell 32]
get_tiled_gradients = TiledGradients(dream_model)

# [cell 34]
def run_deep_dream_with_octaves(img, steps_per_octave=3, step_size=0.01, 
                                octaves=range(-2,3), octave_scale=1.3):
  base_shape = tf.shape(img)
  img = tf.keras.utils.img_to_array(img)
  img = tf.keras.applications.inception_v3.preprocess_input(img)

  initial_shape = img.shape[:-1]
  img = tf.image.resize(img, initial_shape)
  for octave in octaves:
    # Scale the image based on the octave
    new_size = tf.cast(tf.convert_to_tensor(base_shape[:-1]), tf.float32)*(octave_scale**octave)
    new_size = tf.cast(new_size, tf.int32)
    img = tf.image.resize(img, new_size)

    for step in range(steps_per_octave):
      gradients = get_tiled_gradients(img, new_size)
      img = img + gradients*step_size
      img = tf.clip_by_value(img, -1, 1)

      if step % 10 == 0:
        display.clear_output(wait=True)
        show(deprocess(img))
        print ("Octave {}, Step {}".format(octave, step))
    
  result = deprocess(img)
  return result

# [cell 35]
img = run_deep_dream_with_octaves(img=original_img, step_size=0.01)

display.clear_output(wait=True)
img = tf.image.resize(img, base_shape)
img = tf.image.convert_image_dtype(img/255.0, dtype=tf.uint8)
show(img)
