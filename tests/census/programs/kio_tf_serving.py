# Serving TensorFlow models with TFServing: keras-team/keras-io examples/keras_recipes/tf_serving.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/keras_recipes/tf_serving.py
# commit: 1a97b85c4f4b0918659a59fca77be672acdb3ea3
# families: strings, saved_model
# changes (everything else is the source's code, its prose blocks left out, and with them the
#   REST/gRPC requests to a TensorFlow Serving server, which the source shows in prose blocks; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the two downloads (requests.get of ImageNetLabels.txt and of the banana JPEG) are a
#   `requests` stand-in, after the imports, giving 1001 generated label lines ("background" first)
#   and a generated 48 x 40 JPEG; MobileNet's ImageNet weights are a download: weights=None;
# - matplotlib is the prelude's recorder, whose imread reads nothing: plt.imread("./banana.jpeg")
#   is PIL's reading of the file (what matplotlib's imread does for a JPEG);
# - sizes: MobileNet() is MobileNet(weights=None, alpha=0.25, input_shape=(32, 32, 3)), and
#   preprocess's shape (224, 224) is (32, 32)
#

# [cell 1]
import os

os.environ["KERAS_BACKEND"] = "tensorflow"

import json
import shutil
import requests
import numpy as np
import tensorflow as tf
import keras
import matplotlib.pyplot as plt
import io as _io
import PIL.Image
class requests:
    # the downloads, generated: ImageNetLabels.txt's format (one label a line, "background"
    # first) and a JPEG
    class _Response:
        def __init__(self, text=None, raw=None):
            self.text, self.raw = text, raw
    @staticmethod
    def get(url, stream=False):
        if url.endswith(".txt"):
            return requests._Response(text="background\n" + "\n".join(
                f"class {i}" for i in range(1000)) + "\n")
        rs = np.random.RandomState(3)
        img = rs.randint(0, 90, (48, 40, 3))
        img[10:38, 12:30, :2] += 150
        buf = _io.BytesIO()
        PIL.Image.fromarray(img.clip(0, 255).astype("uint8")).save(buf, format="JPEG")
        buf.seek(0)
        return requests._Response(raw=buf)

# [cell 2]
model = keras.applications.MobileNet(weights=None, alpha=0.25, input_shape=(32, 32, 3))

# [cell 3]
def preprocess(image, mean=0.5, std=0.5, shape=(32, 32)):
    """Scale, normalize and resizes images."""
    image = image / 255.0  # Scale
    image = (image - mean) / std  # Normalize
    image = tf.image.resize(image, shape)  # Resize
    return image

# [cell 4]
# Download human-readable labels for ImageNet.
imagenet_labels_url = (
    "https://storage.googleapis.com/download.tensorflow.org/data/ImageNetLabels.txt"
)
response = requests.get(imagenet_labels_url)
# Skipping background class
labels = [x for x in response.text.split("\n") if x != ""][1:]
# Convert the labels to the TensorFlow data format
tf_labels = tf.constant(labels, dtype=tf.string)


def postprocess(prediction, labels=tf_labels):
    """Convert from probs to labels."""
    indices = tf.argmax(prediction, axis=-1)  # Index with highest prediction
    label = tf.gather(params=labels, indices=indices)  # Class name
    return label

# [cell 5]
response = requests.get("https://i.imgur.com/j9xCCzn.jpeg", stream=True)

with open("banana.jpeg", "wb") as f:
    shutil.copyfileobj(response.raw, f)

sample_img = np.asarray(PIL.Image.open("./banana.jpeg"))
print(f"Original image shape: {sample_img.shape}")
print(f"Original image pixel range: ({sample_img.min()}, {sample_img.max()})")
plt.imshow(sample_img)
plt.show()

preprocess_img = preprocess(sample_img)
print(f"Preprocessed image shape: {preprocess_img.shape}")
print(
    f"Preprocessed image pixel range: ({preprocess_img.numpy().min()},",
    f"{preprocess_img.numpy().max()})",
)

batched_img = tf.expand_dims(preprocess_img, axis=0)
batched_img = tf.cast(batched_img, tf.float32)
print(f"Batched image shape: {batched_img.shape}")

model_outputs = model(batched_img)
print(f"Model output shape: {model_outputs.shape}")
print(f"Predicted class: {postprocess(model_outputs)}")

# [cell 6]
model_dir = "./model"
model_version = 1
model_export_path = f"{model_dir}/{model_version}"

tf.saved_model.save(
    model,
    export_dir=model_export_path,
)

print(f"SavedModel files: {os.listdir(model_export_path)}")

# [cell 7]
# Environment variable with the path to the model
os.environ["MODEL_DIR"] = f"{model_dir}"

# [cell 8]
data = json.dumps(
    {
        "signature_name": "serving_default",
        "instances": batched_img.numpy().tolist(),
    }
)
url = "http://localhost:8501/v1/models/model:predict"


def predict_rest(json_data, url):
    json_response = requests.post(url, data=json_data)
    response = json.loads(json_response.text)
    rest_outputs = np.array(response["predictions"])
    return rest_outputs

# [cell 9]
import grpc

# Create a channel that will be connected to the gRPC port of the container
channel = grpc.insecure_channel("localhost:8500")

# [cell 10]
# Get the serving_input key
loaded_model = tf.saved_model.load(model_export_path)
input_name = list(
    loaded_model.signatures["serving_default"].structured_input_signature[1].keys()
)[0]

# [cell 11]
def export_model(model, labels):
    @tf.function(input_signature=[tf.TensorSpec([None, None, None, 3], tf.float32)])
    def serving_fn(image):
        processed_img = preprocess(image)
        probs = model(processed_img)
        label = postprocess(probs)
        return {"label": label}

    return serving_fn


model_sig_version = 2
model_sig_export_path = f"{model_dir}/{model_sig_version}"

tf.saved_model.save(
    model,
    export_dir=model_sig_export_path,
    signatures={"serving_default": export_model(model, labels)},
)

# [cell 12]
batched_raw_img = tf.expand_dims(sample_img, axis=0)
batched_raw_img = tf.cast(batched_raw_img, tf.float32)

loaded_model = tf.saved_model.load(model_sig_export_path)
show(loaded_model.signatures["serving_default"](**{"image": batched_raw_img}))

# [cell 13]
data = json.dumps(
    {
        "signature_name": "serving_default",
        "instances": batched_raw_img.numpy().tolist(),
    }
)
url_sig = "http://localhost:8501/v1/models/model/versions/2:predict"

# [cell 14]
input_name = list(
    loaded_model.signatures["serving_default"].structured_input_signature[1].keys()
)[0]
show(input_name)
