# TensorFlow basics: tensorflow/docs site/en/guide/basics.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/basics.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: saved_model
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - determinism: the data's noise, the Model's initial values and the Dense kernel's initializer come from NumPy (tf.random's values are TF's generator's); the dataset is not shuffled
# - epochs: 100 are 10 (twice)
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
import tensorflow as tf

x = tf.constant([[1., 2., 3.],
                 [4., 5., 6.]])

print(x)
print(x.shape)
print(x.dtype)

# [cell 9]
show(x + x)

# [cell 10]
show(5 * x)

# [cell 11]
show(x @ tf.transpose(x))

# [cell 12]
show(tf.concat([x, x, x], axis=0))

# [cell 13]
show(tf.nn.softmax(x, axis=-1))

# [cell 14]
show(tf.reduce_sum(x))

# [cell 16]
show(tf.convert_to_tensor([1,2,3]))

# [cell 17]
show(tf.reduce_sum([1,2,3]))

# [cell 19]
if tf.config.list_physical_devices('GPU'):
  print("TensorFlow **IS** using the GPU")
else:
  print("TensorFlow **IS NOT** using the GPU")

# [cell 22]
var = tf.Variable([0.0, 0.0, 0.0])

# [cell 23]
show(var.assign([1, 2, 3]))

# [cell 24]
show(var.assign_add([1, 1, 1]))

# [cell 27]
x = tf.Variable(1.0)

def f(x):
  y = x**2 + 2*x - 5
  return y

# [cell 28]
show(f(x))

# [cell 30]
with tf.GradientTape() as tape:
  y = f(x)

g_x = tape.gradient(y, x)  # g(x) = dy/dx

show(g_x)

# [cell 34]
@tf.function
def my_func(x):
  print('Tracing.\n')
  return tf.reduce_sum(x)

# [cell 36]
x = tf.constant([1, 2, 3])
show(my_func(x))

# [cell 38]
x = tf.constant([10, 9, 8])
show(my_func(x))

# [cell 40]
x = tf.constant([10.0, 9.1, 8.2], dtype=tf.float32)
show(my_func(x))

# [cell 45]
class MyModule(tf.Module):
  def __init__(self, value):
    self.weight = tf.Variable(value)

  @tf.function
  def multiply(self, x):
    return x * self.weight

# [cell 46]
mod = MyModule(3)
show(mod.multiply(tf.constant([1, 2, 3])))

# [cell 48]
save_path = './saved'
show(tf.saved_model.save(mod, save_path))

# [cell 50]
reloaded = tf.saved_model.load(save_path)
show(reloaded.multiply(tf.constant([1, 2, 3])))

# [cell 54]
import matplotlib
from matplotlib import pyplot as plt

matplotlib.rcParams['figure.figsize'] = [9, 6]

# [cell 55]
x = tf.linspace(-2, 2, 201)
x = tf.cast(x, tf.float32)

def f(x):
  y = x**2 + 2*x - 5
  return y

y = f(x) + tf.constant(np.random.RandomState(0).randn(201).astype('float32'))

plt.plot(x.numpy(), y.numpy(), '.', label='Data')
plt.plot(x, f(x), label='Ground truth')
plt.legend();

# [cell 57]
class Model(tf.Module):

  def __init__(self):
    # Randomly generate weight and bias terms
    rand_init = tf.constant(np.random.RandomState(22).uniform(0., 5., [3]).astype('float32'))
    # Initialize model parameters
    self.w_q = tf.Variable(rand_init[0])
    self.w_l = tf.Variable(rand_init[1])
    self.b = tf.Variable(rand_init[2])
  
  @tf.function
  def __call__(self, x):
    # Quadratic Model : quadratic_weight * x^2 + linear_weight * x + bias
    return self.w_q * (x**2) + self.w_l * x + self.b

# [cell 59]
quad_model = Model()

# [cell 60]
def plot_preds(x, y, f, model, title):
  plt.figure()
  plt.plot(x, y, '.', label='Data')
  plt.plot(x, f(x), label='Ground truth')
  plt.plot(x, model(x), label='Predictions')
  plt.title(title)
  plt.legend()

# [cell 61]
show(plot_preds(x, y, f, quad_model, 'Before training'))

# [cell 63]
def mse_loss(y_pred, y):
  return tf.reduce_mean(tf.square(y_pred - y))

# [cell 65]
batch_size = 32
dataset = tf.data.Dataset.from_tensor_slices((x, y))
dataset = dataset.batch(batch_size)

# [cell 66]
# Set training parameters
epochs = 10
learning_rate = 0.01
losses = []

# Format training loop
for epoch in range(epochs):
  for x_batch, y_batch in dataset:
    with tf.GradientTape() as tape:
      batch_loss = mse_loss(quad_model(x_batch), y_batch)
    # Update parameters with respect to the gradient calculations
    grads = tape.gradient(batch_loss, quad_model.variables)
    for g,v in zip(grads, quad_model.variables):
        v.assign_sub(learning_rate*g)
  # Keep track of model loss per epoch
  loss = mse_loss(quad_model(x), y)
  losses.append(loss)
  if epoch % 10 == 0:
    print(f'Mean squared error for step {epoch}: {loss.numpy():0.3f}')

# Plot model results
print("\n")
plt.plot(range(epochs), losses)
plt.xlabel("Epoch")
plt.ylabel("Mean Squared Error (MSE)")
plt.title('MSE loss vs training iterations');

# [cell 68]
show(plot_preds(x, y, f, quad_model, 'After training'))

# [cell 71]
new_model = tf.keras.Sequential([
    tf.keras.layers.Lambda(lambda x: tf.stack([x, x**2], axis=1)),
    tf.keras.layers.Dense(units=1, kernel_initializer=tf.keras.initializers.Constant(np.random.RandomState(1).randn(2, 1).astype('float32')))])

# [cell 72]
new_model.compile(
    loss=tf.keras.losses.MSE,
    optimizer=tf.keras.optimizers.SGD(learning_rate=0.01))

history = new_model.fit(x, y,
                        epochs=10, shuffle=False,
                        batch_size=32,
                        verbose=0)

show(new_model.save('./my_new_model.keras'))

# [cell 74]
plt.plot(history.history['loss'])
plt.xlabel('Epoch')
plt.ylim([0, max(plt.ylim())])
plt.ylabel('Loss [Mean Squared Error]')
plt.title('Keras training progress');

# [cell 75]
show(plot_preds(x, y, f, new_model, 'After Training: Keras'))
