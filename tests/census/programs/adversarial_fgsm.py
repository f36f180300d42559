# Adversarial example using FGSM: tensorflow/docs site/en/tutorials/generative/adversarial_fgsm.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/tutorials/generative/adversarial_fgsm.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: io
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: MobileNetV2's ImageNet weights are a download: weights='imagenet' is weights=None (the
#   initializers draw from NumPy, the prelude's), so the model is not a trained classifier and the
#   attack's labels are an untrained model's; decode_predictions' class index (imagenet_class_index.json)
#   is a download: Keras's imagenet_utils.CLASS_INDEX is set to 1000 generated names ('class_208', ...)
# - data: the YellowLabradorLooking_new.jpg download is a generated 56x48 JPEG of flat 8x8 blocks saved
#   without chroma subsampling (any decoder gives the same pixels), written by the program (`import os`
#   and `import numpy as np, PIL.Image` added for it)
# - sizes: the image and the model's input 224x224 are 32x32 (input_shape=(32, 32, 3), which weights=None
#   allows); MobileNetV2's alpha 1.0 is 0.35
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

# [cell 4]
import os
import tensorflow as tf
import matplotlib as mpl
import matplotlib.pyplot as plt

mpl.rcParams['figure.figsize'] = (8, 8)
mpl.rcParams['axes.grid'] = False

# [cell 6]
pretrained_model = tf.keras.applications.MobileNetV2(include_top=True,
                                                     weights=None, input_shape=(32, 32, 3), alpha=0.35)
pretrained_model.trainable = False

# ImageNet labels
decode_predictions = tf.keras.applications.mobilenet_v2.decode_predictions
from keras.src.applications import imagenet_utils
imagenet_utils.CLASS_INDEX = {str(i): ['n%08d' % i, 'class_%d' % i] for i in range(1000)}

# [cell 7]
# Helper function to preprocess the image so that it can be inputted in MobileNetV2
def preprocess(image):
  image = tf.cast(image, tf.float32)
  image = tf.image.resize(image, (32, 32))
  image = tf.keras.applications.mobilenet_v2.preprocess_input(image)
  image = image[None, ...]
  return image

# Helper function to extract labels from probability vector
def get_imagenet_label(probs):
  return decode_predictions(probs, top=1)[0][0]

# [cell 9]
import numpy as np, PIL.Image
def _labrador_like(path):
  # a JPEG of flat 8x8 blocks saved without chroma subsampling (every decoder gives its pixels)
  blocks = np.random.RandomState(0).randint(0, 256, (6, 7, 3)).astype('uint8')
  PIL.Image.fromarray(np.kron(blocks, np.ones((8, 8, 1), 'uint8'))).save(
      path, format='JPEG', quality=95, subsampling=0)
  return path
image_path = _labrador_like(os.path.abspath('YellowLabradorLooking_new.jpg'))
image_raw = tf.io.read_file(image_path)
image = tf.image.decode_image(image_raw)

image = preprocess(image)
image_probs = pretrained_model.predict(image)

# [cell 11]
plt.figure()
plt.imshow(image[0] * 0.5 + 0.5)  # To change [-1, 1] to [0,1]
_, image_class, class_confidence = get_imagenet_label(image_probs)
plt.title('{} : {:.2f}% Confidence'.format(image_class, class_confidence*100))
plt.show()

# [cell 13]
loss_object = tf.keras.losses.CategoricalCrossentropy()

def create_adversarial_pattern(input_image, input_label):
  with tf.GradientTape() as tape:
    tape.watch(input_image)
    prediction = pretrained_model(input_image)
    loss = loss_object(input_label, prediction)

  # Get the gradients of the loss w.r.t to the input image.
  gradient = tape.gradient(loss, input_image)
  # Get the sign of the gradients to create the perturbation
  signed_grad = tf.sign(gradient)
  return signed_grad

# [cell 15]
# Get the input label of the image.
labrador_retriever_index = 208
label = tf.one_hot(labrador_retriever_index, image_probs.shape[-1])
label = tf.reshape(label, (1, image_probs.shape[-1]))

perturbations = create_adversarial_pattern(image, label)
plt.imshow(perturbations[0] * 0.5 + 0.5);  # To change [-1, 1] to [0,1]

# [cell 17]
def display_images(image, description):
  _, label, confidence = get_imagenet_label(pretrained_model.predict(image))
  plt.figure()
  plt.imshow(image[0]*0.5+0.5)
  plt.title('{} \n {} : {:.2f}% Confidence'.format(description,
                                                   label, confidence*100))
  plt.show()

# [cell 18]
epsilons = [0, 0.01, 0.1, 0.15]
descriptions = [('Epsilon = {:0.3f}'.format(eps) if eps else 'Input')
                for eps in epsilons]

for i, eps in enumerate(epsilons):
  adv_x = image + eps*perturbations
  adv_x = tf.clip_by_value(adv_x, -1, 1)
  display_images(adv_x, descriptions[i])

