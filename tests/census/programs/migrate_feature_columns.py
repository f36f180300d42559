# Migrate tf.feature_column to Keras preprocessing layers: tensorflow/docs site/en/guide/migrate/migrating_feature_columns.ipynb, ported for the census (tools/census.py).
# source: tensorflow/docs site/en/guide/migrate/migrating_feature_columns.ipynb
# commit: 7c3650212740204359d4ceae481abc79345541be
# families: strings, sparse
# changes (everything else is the source's code cells, in order):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - shell and IPython lines (!pip, %matplotlib) are left out;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - cells TF 2.21 cannot run are left out (commented): the feature-column cells 11, 15, 20, 25, 29, 34, 38, 42
#   (tf1.keras.layers.DenseFeatures is Keras 2's; Keras 3 has none) and the Estimator cells 50, 52 (removed from TF 2.16);
#   Keras 3 takes no dict_values as a layer's input: cell 13's Concatenate()(inputs.values()) is (list(inputs.values()));
#   and no TF op on a symbolic input: cell 58's tf.expand_dims(inputs['weight'], -1) is tf.keras.ops.expand_dims
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

# [cell 5]
import tensorflow as tf
import tensorflow.compat.v1 as tf1
import math

# [cell 7]
def call_feature_columns(feature_columns, inputs):
  # This is a convenient way to call a `feature_column` outside of an estimator
  # to display its output.
  feature_layer = tf1.keras.layers.DenseFeatures(feature_columns)
  return feature_layer(inputs)

# [cell 9]
input_dict = {
  'foo': tf.constant([1]),
  'bar': tf.constant([0]),
  'baz': tf.constant([-1])
}

# [cell 11]
# columns = [
#   tf1.feature_column.numeric_column('foo'),
#   tf1.feature_column.numeric_column('bar'),
#   tf1.feature_column.numeric_column('baz'),
# ]
# show((call_feature_columns(columns, input_dict)))

# [cell 13]
inputs = {
  'foo': tf.keras.Input(shape=()),
  'bar': tf.keras.Input(shape=()),
  'baz': tf.keras.Input(shape=()),
}
# Inputs are typically transformed by preprocessing layers before concatenation.
outputs = tf.keras.layers.Concatenate()(list(inputs.values()))
model = tf.keras.Model(inputs=inputs, outputs=outputs)
show((model(input_dict)))

# [cell 15]
# categorical_col = tf1.feature_column.categorical_column_with_identity(
#     'type', num_buckets=3)
# indicator_col = tf1.feature_column.indicator_column(categorical_col)
# show((call_feature_columns(indicator_col, {'type': [0, 1, 2]})))

# [cell 17]
one_hot_layer = tf.keras.layers.CategoryEncoding(
    num_tokens=3, output_mode='one_hot')
show((one_hot_layer([0, 1, 2])))

# [cell 20]
# def normalize(x):
#   mean, variance = (2.0, 1.0)
#   return (x - mean) / math.sqrt(variance)
# numeric_col = tf1.feature_column.numeric_column('col', normalizer_fn=normalize)
# show((call_feature_columns(numeric_col, {'col': tf.constant([[0.], [1.], [2.]])})))

# [cell 22]
normalization_layer = tf.keras.layers.Normalization(mean=2.0, variance=1.0)
show((normalization_layer(tf.constant([[0.], [1.], [2.]]))))

# [cell 25]
# numeric_col = tf1.feature_column.numeric_column('col')
# bucketized_col = tf1.feature_column.bucketized_column(numeric_col, [1, 4, 5])
# show((call_feature_columns(bucketized_col, {'col': tf.constant([1., 2., 3., 4., 5.])})))

# [cell 27]
discretization_layer = tf.keras.layers.Discretization(bin_boundaries=[1, 4, 5])
one_hot_layer = tf.keras.layers.CategoryEncoding(
    num_tokens=4, output_mode='one_hot')
show((one_hot_layer(discretization_layer([1., 2., 3., 4., 5.]))))

# [cell 29]
# vocab_col = tf1.feature_column.categorical_column_with_vocabulary_list(
#     'sizes',
#     vocabulary_list=['small', 'medium', 'large'],
#     num_oov_buckets=0)
# indicator_col = tf1.feature_column.indicator_column(vocab_col)
# show((call_feature_columns(indicator_col, {'sizes': ['small', 'medium', 'large']})))

# [cell 31]
string_lookup_layer = tf.keras.layers.StringLookup(
    vocabulary=['small', 'medium', 'large'],
    num_oov_indices=0,
    output_mode='one_hot')
show((string_lookup_layer(['small', 'medium', 'large'])))

# [cell 34]
# vocab_col = tf1.feature_column.categorical_column_with_vocabulary_list(
#     'col',
#     vocabulary_list=['small', 'medium', 'large'],
#     num_oov_buckets=0)
# embedding_col = tf1.feature_column.embedding_column(vocab_col, 4)
# show((call_feature_columns(embedding_col, {'col': ['small', 'medium', 'large']})))

# [cell 36]
string_lookup_layer = tf.keras.layers.StringLookup(
    vocabulary=['small', 'medium', 'large'], num_oov_indices=0)
embedding = tf.keras.layers.Embedding(3, 4)
show((embedding(string_lookup_layer(['small', 'medium', 'large']))))

# [cell 38]
# ids = tf.constant([[5, 11, 5, 17, 17]])
# weights = tf.constant([[0.5, 1.5, 0.7, 1.8, 0.2]])
# 
# categorical_col = tf1.feature_column.categorical_column_with_identity(
#     'ids', num_buckets=20)
# weighted_categorical_col = tf1.feature_column.weighted_categorical_column(
#     categorical_col, 'weights')
# indicator_col = tf1.feature_column.indicator_column(weighted_categorical_col)
# show((call_feature_columns(indicator_col, {'ids': ids, 'weights': weights})))

# [cell 40]
ids = tf.constant([[5, 11, 5, 17, 17]])
weights = tf.constant([[0.5, 1.5, 0.7, 1.8, 0.2]])

# Using sparse output is more efficient when `num_tokens` is large.
count_layer = tf.keras.layers.CategoryEncoding(
    num_tokens=20, output_mode='count', sparse=True)
show((tf.sparse.to_dense(count_layer(ids, count_weights=weights))))

# [cell 42]
# ids = tf.constant([[5, 11, 5, 17, 17]])
# weights = tf.constant([[0.5, 1.5, 0.7, 1.8, 0.2]])
# 
# categorical_col = tf1.feature_column.categorical_column_with_identity(
#     'ids', num_buckets=20)
# weighted_categorical_col = tf1.feature_column.weighted_categorical_column(
#     categorical_col, 'weights')
# embedding_col = tf1.feature_column.embedding_column(
#     weighted_categorical_col, 4, combiner='mean')
# show((call_feature_columns(embedding_col, {'ids': ids, 'weights': weights})))

# [cell 44]
ids = tf.constant([[5, 11, 5, 17, 17]])
weights = tf.constant([[0.5, 1.5, 0.7, 1.8, 0.2]])

# For `combiner='mean'`, normalize your weights to sum to 1. Removing this line
# would be equivalent to an `embedding_column` with `combiner='sum'`.
weights = weights / tf.reduce_sum(weights, axis=-1, keepdims=True)

count_layer = tf.keras.layers.CategoryEncoding(
    num_tokens=20, output_mode='count', sparse=True)
embedding_layer = tf.keras.layers.Dense(4, use_bias=False)
show((embedding_layer(count_layer(ids, count_weights=weights))))

# [cell 46]
features = {
    'type': [0, 1, 1],
    'size': ['small', 'small', 'medium'],
    'weight': [2.7, 1.8, 1.6],
}
labels = [1, 1, 0]
predict_features = {'type': [0], 'size': ['foo'], 'weight': [-0.7]}

# [cell 48]
vocab = ['small', 'medium', 'large']
one_hot_dims = 3
embedding_dims = 4
weight_mean = 2.0
weight_variance = 1.0

# [cell 50]
# categorical_col = tf1.feature_column.categorical_column_with_identity(
#     'type', num_buckets=one_hot_dims)
# # Convert index to one-hot; e.g., [2] -> [0,0,1].
# indicator_col = tf1.feature_column.indicator_column(categorical_col)
# 
# # Convert strings to indices; e.g., ['small'] -> [1].
# vocab_col = tf1.feature_column.categorical_column_with_vocabulary_list(
#     'size', vocabulary_list=vocab, num_oov_buckets=1)
# # Embed the indices.
# embedding_col = tf1.feature_column.embedding_column(vocab_col, embedding_dims)
# 
# normalizer_fn = lambda x: (x - weight_mean) / math.sqrt(weight_variance)
# # Normalize the numeric inputs; e.g., [2.0] -> [0.0].
# numeric_col = tf1.feature_column.numeric_column(
#     'weight', normalizer_fn=normalizer_fn)
# 
# estimator = tf1.estimator.DNNClassifier(
#     feature_columns=[indicator_col, embedding_col, numeric_col],
#     hidden_units=[1])
# 
# def _input_fn():
#   return tf1.data.Dataset.from_tensor_slices((features, labels)).batch(1)
# 
# show((estimator.train(_input_fn)))

# [cell 52]
# def _predict_fn():
#   return tf1.data.Dataset.from_tensor_slices(predict_features).batch(1)
# 
# show((next(estimator.predict(_predict_fn))))

# [cell 54]
inputs = {
  'type': tf.keras.Input(shape=(), dtype='int64'),
  'size': tf.keras.Input(shape=(), dtype='string'),
  'weight': tf.keras.Input(shape=(), dtype='float32'),
}
# Convert index to one-hot; e.g., [2] -> [0,0,1].
type_output = tf.keras.layers.CategoryEncoding(
      one_hot_dims, output_mode='one_hot')(inputs['type'])
# Convert size strings to indices; e.g., ['small'] -> [1].
size_output = tf.keras.layers.StringLookup(vocabulary=vocab)(inputs['size'])
# Normalize the numeric inputs; e.g., [2.0] -> [0.0].
weight_output = tf.keras.layers.Normalization(
      axis=None, mean=weight_mean, variance=weight_variance)(inputs['weight'])
outputs = {
  'type': type_output,
  'size': size_output,
  'weight': weight_output,
}
preprocessing_model = tf.keras.Model(inputs, outputs)

# [cell 56]
# Apply the preprocessing in tf.data.Dataset.map.
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(1)
dataset = dataset.map(lambda x, y: (preprocessing_model(x), y),
                      num_parallel_calls=tf.data.AUTOTUNE)
# Display a preprocessed input sample.
show((next(dataset.take(1).as_numpy_iterator())))

# [cell 58]
inputs = {
  'type': tf.keras.Input(shape=(one_hot_dims,), dtype='float32'),
  'size': tf.keras.Input(shape=(), dtype='int64'),
  'weight': tf.keras.Input(shape=(), dtype='float32'),
}
# Since the embedding is trainable, it needs to be part of the training model.
embedding = tf.keras.layers.Embedding(len(vocab), embedding_dims)
outputs = tf.keras.layers.Concatenate()([
  inputs['type'],
  embedding(inputs['size']),
  tf.keras.ops.expand_dims(inputs['weight'], -1),
])
outputs = tf.keras.layers.Dense(1)(outputs)
training_model = tf.keras.Model(inputs, outputs)

# [cell 60]
# Train on the preprocessed data.
training_model.compile(
    loss=tf.keras.losses.BinaryCrossentropy(from_logits=True))
show((training_model.fit(dataset)))

# [cell 62]
inputs = preprocessing_model.input
outputs = training_model(preprocessing_model(inputs))
inference_model = tf.keras.Model(inputs, outputs)

predict_dataset = tf.data.Dataset.from_tensor_slices(predict_features).batch(1)
show((inference_model.predict(predict_dataset)))

# [cell 64]
inference_model.save('model.keras')
restored_model = tf.keras.models.load_model('model.keras')
show((restored_model.predict(predict_dataset)))
