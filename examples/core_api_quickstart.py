"""TF's "Quickstart for the Core APIs", through ``import eagertape.tf as tf``.

The program of TensorFlow's guide (tensorflow/docs, site/en/guide/core/
quickstart_core.ipynb, TF 2.21): a linear regression of a car's fuel efficiency
written with ``tf.Module``, a ``tf.function`` that makes its Variables on the
first call, a ``tf.data`` pipeline and a ``GradientTape`` loop; it ends by
exporting the model with its pre- and post-processing as a SavedModel
(``tf.saved_model.save`` of a module whose ``__call__`` has an input signature
of shape ``[None, None]``) and loading it back. Run as the guide is, but for
four things: the import line; the Auto MPG table, made here (392 cars, the
guide's columns) instead of downloaded with pandas; no plot; no print of
``tf.__version__`` (the facade has none: it is not TensorFlow). The SavedModel
is written by TensorFlow (installed beside eagertape, run in a process of its
own); ``tf.saved_model.load`` here is eagertape's, which needs no TensorFlow.
The tests load the same SavedModel in TensorFlow and compare its predictions.

    python examples/core_api_quickstart.py
"""
import numpy as np

import eagertape.tf as tf

# Set a random seed for reproducible results
tf.random.set_seed(22)

# The Auto MPG table's columns (the guide reads them from the UCI archive).
column_names = ['MPG', 'Cylinders', 'Displacement', 'Horsepower', 'Weight',
                'Acceleration', 'Model Year', 'Origin']
rng = np.random.RandomState(0)
n = 392
cylinders = rng.choice([4, 6, 8], n, p=[0.5, 0.25, 0.25]).astype("float64")
displacement = cylinders * 40 + rng.normal(0, 20, n)
horsepower = displacement * 0.45 + rng.normal(20, 10, n)
weight = displacement * 7 + rng.normal(1500, 200, n)
acceleration = 25 - horsepower * 0.05 + rng.normal(0, 1.5, n)
model_year = rng.randint(70, 83, n).astype("float64")
origin = rng.choice([1, 2, 3], n, p=[0.6, 0.2, 0.2]).astype("float64")
mpg = (46 - weight * 0.006 + (model_year - 70) * 0.75 + (origin - 1) * 1.2
       + rng.normal(0, 2.5, n))
dataset = np.stack([mpg, cylinders, displacement, horsepower, weight, acceleration,
                    model_year, origin], axis=1)
dataset_tf = tf.convert_to_tensor(dataset, dtype=tf.float32)

dataset_shuffled = tf.random.shuffle(dataset_tf, seed=22)
train_data, test_data = dataset_shuffled[100:], dataset_shuffled[:100]
x_train, y_train = train_data[:, 1:], train_data[:, 0]
x_test, y_test = test_data[:, 1:], test_data[:, 0]


def onehot_origin(x):
  origin = tf.cast(x[:, -1], tf.int32)
  # Use `origin - 1` to account for 1-indexed feature
  origin_oh = tf.one_hot(origin - 1, 3)
  x_ohe = tf.concat([x[:, :-1], origin_oh], axis = 1)
  return x_ohe

x_train_ohe, x_test_ohe = onehot_origin(x_train), onehot_origin(x_test)
x_train_ohe.numpy()


class Normalize(tf.Module):
  def __init__(self, x):
    # Initialize the mean and standard deviation for normalization
    self.mean = tf.math.reduce_mean(x, axis=0)
    self.std = tf.math.reduce_std(x, axis=0)

  def norm(self, x):
    # Normalize the input
    return (x - self.mean)/self.std

  def unnorm(self, x):
    # Unnormalize the input
    return (x * self.std) + self.mean

norm_x = Normalize(x_train_ohe)
norm_y = Normalize(y_train)
x_train_norm, y_train_norm = norm_x.norm(x_train_ohe), norm_y.norm(y_train)
x_test_norm, y_test_norm = norm_x.norm(x_test_ohe), norm_y.norm(y_test)


class LinearRegression(tf.Module):

  def __init__(self):
    self.built = False

  @tf.function
  def __call__(self, x):
    # Initialize the model parameters on the first call
    if not self.built:
      # Randomly generate the weight vector and bias term
      rand_w = tf.random.uniform(shape=[x.shape[-1], 1])
      rand_b = tf.random.uniform(shape=[])
      self.w = tf.Variable(rand_w)
      self.b = tf.Variable(rand_b)
      self.built = True
    y = tf.add(tf.matmul(x, self.w), self.b)
    return tf.squeeze(y, axis=1)

lin_reg = LinearRegression()
prediction = lin_reg(x_train_norm[:1])
prediction_unnorm = norm_y.unnorm(prediction)
prediction_unnorm.numpy()


def mse_loss(y_pred, y):
  return tf.reduce_mean(tf.square(y_pred - y))

batch_size = 64
train_dataset = tf.data.Dataset.from_tensor_slices((x_train_norm, y_train_norm))
train_dataset = train_dataset.shuffle(buffer_size=x_train.shape[0]).batch(batch_size)
test_dataset = tf.data.Dataset.from_tensor_slices((x_test_norm, y_test_norm))
test_dataset = test_dataset.shuffle(buffer_size=x_test.shape[0]).batch(batch_size)

# Set training parameters
epochs = 100
learning_rate = 0.01
train_losses, test_losses = [], []

# Format training loop
for epoch in range(epochs):
  batch_losses_train, batch_losses_test = [], []

  # Iterate through the training data
  for x_batch, y_batch in train_dataset:
    with tf.GradientTape() as tape:
      y_pred_batch = lin_reg(x_batch)
      batch_loss = mse_loss(y_pred_batch, y_batch)
    # Update parameters with respect to the gradient calculations
    grads = tape.gradient(batch_loss, lin_reg.variables)
    for g,v in zip(grads, lin_reg.variables):
      v.assign_sub(learning_rate * g)
    # Keep track of batch-level training performance
    batch_losses_train.append(batch_loss)

  # Iterate through the testing data
  for x_batch, y_batch in test_dataset:
    y_pred_batch = lin_reg(x_batch)
    batch_loss = mse_loss(y_pred_batch, y_batch)
    # Keep track of batch-level testing performance
    batch_losses_test.append(batch_loss)

  # Keep track of epoch-level model performance
  train_loss = tf.reduce_mean(batch_losses_train)
  test_loss = tf.reduce_mean(batch_losses_test)
  train_losses.append(train_loss)
  test_losses.append(test_loss)
  if epoch % 10 == 0:
    print(f'Mean squared error for step {epoch}: {train_loss.numpy():0.3f}')

# Output final losses
print(f"\nFinal train loss: {train_loss:0.3f}")
print(f"Final test loss: {test_loss:0.3f}")


class ExportModule(tf.Module):
  def __init__(self, model, extract_features, norm_x, norm_y):
    # Initialize pre and postprocessing functions
    self.model = model
    self.extract_features = extract_features
    self.norm_x = norm_x
    self.norm_y = norm_y

  @tf.function(input_signature=[tf.TensorSpec(shape=[None, None], dtype=tf.float32)])
  def __call__(self, x):
    # Run the ExportModule for new data points
    x = self.extract_features(x)
    x = self.norm_x.norm(x)
    y = self.model(x)
    y = self.norm_y.unnorm(y)
    return y

lin_reg_export = ExportModule(model=lin_reg,
                              extract_features=onehot_origin,
                              norm_x=norm_x,
                              norm_y=norm_y)

import tempfile
import os

models = tempfile.mkdtemp()
save_path = os.path.join(models, 'lin_reg_export')
tf.saved_model.save(lin_reg_export, save_path)

lin_reg_loaded = tf.saved_model.load(save_path)
test_preds = lin_reg_loaded(x_test)
print(test_preds[:10].numpy())

# -- the check (not in the guide): the loaded model predicts what the trained one does
direct = norm_y.unnorm(lin_reg(norm_x.norm(onehot_origin(x_test))))
print("largest difference from the trained model:",
      float(np.max(np.abs(test_preds.numpy() - direct.numpy()))))
np.save(os.path.join(models, "x_test.npy"), x_test.numpy())
np.save(os.path.join(models, "test_preds.npy"), test_preds.numpy())
print("saved model:", save_path)
