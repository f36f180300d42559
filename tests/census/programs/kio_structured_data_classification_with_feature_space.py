# Structured data classification with FeatureSpace: keras-team/keras-io examples/structured_data/structured_data_classification_with_feature_space.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/structured_data/structured_data_classification_with_feature_space.py
# commit: f54746f7633a6e4eedb38f273ab4c71944f01df6
# families: 
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the heart.csv download (pd.read_csv of its URL) is 100 generated patients with its columns
#   (thal as text), written by the program to a local file that file_url names;
# - sizes: training_model.fit's epochs 20 are 2;
# - determinism: dataframe_to_dataset's ds.shuffle(buffer_size=len(dataframe)) is left out (TF's
#   order is TF's generator's); Dropout(0.5) is Dropout(0.0) (its masks are TF's generator's)
#

# [cell 1]
import os

os.environ["KERAS_BACKEND"] = "tensorflow"

import tensorflow as tf
import pandas as pd
import keras
from keras.utils import FeatureSpace

# [cell 2]
def _heart_like(path):
    # heart.csv's format: its 14 columns, thal as text, target 0/1
    import numpy as np
    rs = np.random.RandomState(0)
    cols = "age,sex,cp,trestbps,chol,fbs,restecg,thalach,exang,oldpeak,slope,ca,thal,target"
    with open(path, "w") as f:
        f.write(cols + "\n")
        for i in range(100):
            age = rs.randint(35, 75); chol = rs.randint(150, 350); thalach = rs.randint(100, 190)
            oldpeak = round(rs.uniform(0, 4), 1); trestbps = rs.randint(100, 180)
            row = [age, rs.randint(0, 2), rs.randint(0, 4), trestbps, chol, rs.randint(0, 2),
                   rs.randint(0, 3), thalach, rs.randint(0, 2), oldpeak, rs.randint(1, 4),
                   rs.randint(0, 4), ["fixed", "normal", "reversible"][rs.randint(0, 3)],
                   int(oldpeak + (age - 55) / 10 - (thalach - 150) / 30 + rs.normal(0, .5) > 1)]
            f.write(",".join(str(v) for v in row) + "\n")
    return path


file_url = _heart_like("heart.csv")
dataframe = pd.read_csv(file_url)

# [cell 3]
print(dataframe.shape)

# [cell 4]
show(dataframe.head())

# [cell 5]
val_dataframe = dataframe.sample(frac=0.2, random_state=1337)
train_dataframe = dataframe.drop(val_dataframe.index)

print(
    "Using %d samples for training and %d for validation"
    % (len(train_dataframe), len(val_dataframe))
)

# [cell 6]
def dataframe_to_dataset(dataframe):
    dataframe = dataframe.copy()
    labels = dataframe.pop("target")
    ds = tf.data.Dataset.from_tensor_slices((dict(dataframe), labels))
    return ds


train_ds = dataframe_to_dataset(train_dataframe)
val_ds = dataframe_to_dataset(val_dataframe)

# [cell 7]
for x, y in train_ds.take(1):
    print("Input:", x)
    print("Target:", y)

# [cell 8]
train_ds = train_ds.batch(32)
val_ds = val_ds.batch(32)

# [cell 9]
feature_space = FeatureSpace(
    features={
        # Categorical features encoded as integers
        "sex": "integer_categorical",
        "cp": "integer_categorical",
        "fbs": "integer_categorical",
        "restecg": "integer_categorical",
        "exang": "integer_categorical",
        "ca": "integer_categorical",
        # Categorical feature encoded as string
        "thal": "string_categorical",
        # Numerical features to discretize
        "age": "float_discretized",
        # Numerical features to normalize
        "trestbps": "float_normalized",
        "chol": "float_normalized",
        "thalach": "float_normalized",
        "oldpeak": "float_normalized",
        "slope": "float_normalized",
    },
    # We create additional features by hashing
    # value co-occurrences for the
    # following groups of categorical features.
    crosses=[("sex", "age"), ("thal", "ca")],
    # The hashing space for these co-occurrences
    # wil be 32-dimensional.
    crossing_dim=32,
    # Our utility will one-hot encode all categorical
    # features and concat all features into a single
    # vector (one vector per sample).
    output_mode="concat",
)

# [cell 10]
feature_space = FeatureSpace(
    features={
        # Categorical features encoded as integers
        "sex": FeatureSpace.integer_categorical(num_oov_indices=0),
        "cp": FeatureSpace.integer_categorical(num_oov_indices=0),
        "fbs": FeatureSpace.integer_categorical(num_oov_indices=0),
        "restecg": FeatureSpace.integer_categorical(num_oov_indices=0),
        "exang": FeatureSpace.integer_categorical(num_oov_indices=0),
        "ca": FeatureSpace.integer_categorical(num_oov_indices=0),
        # Categorical feature encoded as string
        "thal": FeatureSpace.string_categorical(num_oov_indices=0),
        # Numerical features to discretize
        "age": FeatureSpace.float_discretized(num_bins=30),
        # Numerical features to normalize
        "trestbps": FeatureSpace.float_normalized(),
        "chol": FeatureSpace.float_normalized(),
        "thalach": FeatureSpace.float_normalized(),
        "oldpeak": FeatureSpace.float_normalized(),
        "slope": FeatureSpace.float_normalized(),
    },
    # Specify feature cross with a custom crossing dim.
    crosses=[
        FeatureSpace.cross(feature_names=("sex", "age"), crossing_dim=64),
        FeatureSpace.cross(
            feature_names=("thal", "ca"),
            crossing_dim=16,
        ),
    ],
    output_mode="concat",
)

# [cell 11]
train_ds_with_no_labels = train_ds.map(lambda x, _: x)
feature_space.adapt(train_ds_with_no_labels)

# [cell 12]
for x, _ in train_ds.take(1):
    preprocessed_x = feature_space(x)
    print("preprocessed_x.shape:", preprocessed_x.shape)
    print("preprocessed_x.dtype:", preprocessed_x.dtype)

# [cell 13]
preprocessed_train_ds = train_ds.map(
    lambda x, y: (feature_space(x), y), num_parallel_calls=tf.data.AUTOTUNE
)
preprocessed_train_ds = preprocessed_train_ds.prefetch(tf.data.AUTOTUNE)

preprocessed_val_ds = val_ds.map(
    lambda x, y: (feature_space(x), y), num_parallel_calls=tf.data.AUTOTUNE
)
preprocessed_val_ds = preprocessed_val_ds.prefetch(tf.data.AUTOTUNE)

# [cell 14]
dict_inputs = feature_space.get_inputs()
encoded_features = feature_space.get_encoded_features()

x = keras.layers.Dense(32, activation="relu")(encoded_features)
x = keras.layers.Dropout(0.0)(x)
predictions = keras.layers.Dense(1, activation="sigmoid")(x)

training_model = keras.Model(inputs=encoded_features, outputs=predictions)
training_model.compile(
    optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"]
)

inference_model = keras.Model(inputs=dict_inputs, outputs=predictions)

# [cell 15]
show(training_model.fit(
    preprocessed_train_ds,
    epochs=2,
    validation_data=preprocessed_val_ds,
    verbose=2,
))

# [cell 16]
sample = {
    "age": 60,
    "sex": 1,
    "cp": 1,
    "trestbps": 145,
    "chol": 233,
    "fbs": 1,
    "restecg": 2,
    "thalach": 150,
    "exang": 0,
    "oldpeak": 2.3,
    "slope": 3,
    "ca": 0,
    "thal": "fixed",
}

input_dict = {name: tf.convert_to_tensor([value]) for name, value in sample.items()}
predictions = inference_model.predict(input_dict)

print(
    f"This particular patient had a {100 * predictions[0][0]:.2f}% probability "
    "of having a heart disease, as evaluated by our model."
)
