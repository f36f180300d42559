# Creating TFRecords: keras-team/keras-io examples/keras_recipes/creating_tfrecords.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/keras_recipes/creating_tfrecords.py
# commit: 078fe3679040492491d4f24124cc272ad5ad7242
# families: sparse, io
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - data: the COCO2017 downloads (tf.keras.utils.get_file of the images' and annotations' zips) are
#   8 generated flat-colour 48x40 JPEGs in datasets/val2017 and 64 annotations in its JSON format,
#   written by the program (pprint's output, which the census does not capture, is also shown);
# - sizes: n_samples 4096 is 16 (4 TFRecord files); the images are resized to 32x32 (not 224x224),
#   batch_size 64 is 8, epochs 5 are 1, steps_per_epoch 50 are 2; fit's history is shown;
# - determinism: get_dataset's .shuffle(batch_size * 10) is left out (TF's generator), and the
#   glob's file list is sorted (tf.io.gfile.glob's order is the file system's);
#   get_dataset's num_parallel_reads=AUTOTUNE is 2 (TF then reads ceil(cores / 3) files at a
#   time, interleaved: the records' order would be the machine's); EfficientNetB0's ten
#   Dropout layers (rates 0.025 to 0.2, masks drawn from TF's generator in fit) have rate 0.0
#

# [cell 1]
import os
import json
import pprint
import tensorflow as tf
import matplotlib.pyplot as plt

# [cell 2]
root_dir = "datasets"
tfrecords_dir = "tfrecords"
images_dir = os.path.join(root_dir, "val2017")
annotations_dir = os.path.join(root_dir, "annotations")
annotation_file = os.path.join(annotations_dir, "instances_val2017.json")
images_url = "http://images.cocodataset.org/zips/val2017.zip"
annotations_url = (
    "http://images.cocodataset.org/annotations/annotations_trainval2017.zip"
)

def _coco_like():
    # COCO val2017's layout: JPEG images named by their 12-digit id, and the
    # annotations' JSON (id, image_id, category_id, bbox, area, iscrowd, segmentation)
    import numpy as np
    from PIL import Image
    rs = np.random.RandomState(0)
    os.makedirs(images_dir)
    os.makedirs(annotations_dir)
    ids = [int(i) for i in rs.randint(1, 600000, 8)]
    for k, i in enumerate(ids):
        # one flat colour per image: its JPEG decodes to the same pixels in any decoder
        colour = tuple(int(c) for c in rs.randint(0, 256, 3))
        Image.new("RGB", (48, 40), colour).save(f"{images_dir}/{i:012d}.jpg", quality=95)
    annotations = []
    for a in range(64):
        x, y, w, h = (round(float(v), 2) for v in rs.uniform(0, 30, 4))
        annotations.append({"segmentation": [[x, y, x + w, y, x + w, y + h]],
                            "area": round(w * h, 4), "iscrowd": 0,
                            "image_id": ids[a % 8], "bbox": [x, y, w, h],
                            "category_id": int(rs.randint(1, 91)), "id": 100000 + a})
    with open(annotation_file, "w") as f:
        json.dump({"annotations": annotations}, f)
_coco_like()

print("The COCO dataset has been downloaded and extracted successfully.")

with open(annotation_file, "r") as f:
    annotations = json.load(f)["annotations"]

print(f"Number of images: {len(annotations)}")

# [cell 3]
pprint.pprint(annotations[60])
show(annotations[60])

# [cell 4]
n_samples = 16
n_tfrecods = len(annotations) // n_samples
if len(annotations) % n_samples:
    n_tfrecods += 1  # add one record if there are any remaining samples

if not os.path.exists(tfrecords_dir):
    os.makedirs(tfrecords_dir)  # creating TFRecords output folder

# [cell 5]
def image_feature(value):
    """Returns a bytes_list from a string / byte."""
    return tf.train.Feature(
        bytes_list=tf.train.BytesList(value=[tf.io.encode_jpeg(value).numpy()])
    )


def bytes_feature(value):
    """Returns a bytes_list from a string / byte."""
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value.encode()]))


def float_feature(value):
    """Returns a float_list from a float / double."""
    return tf.train.Feature(float_list=tf.train.FloatList(value=[value]))


def int64_feature(value):
    """Returns an int64_list from a bool / enum / int / uint."""
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))


def float_feature_list(value):
    """Returns a list of float_list from a float / double."""
    return tf.train.Feature(float_list=tf.train.FloatList(value=value))


def create_example(image, path, example):
    feature = {
        "image": image_feature(image),
        "path": bytes_feature(path),
        "area": float_feature(example["area"]),
        "bbox": float_feature_list(example["bbox"]),
        "category_id": int64_feature(example["category_id"]),
        "id": int64_feature(example["id"]),
        "image_id": int64_feature(example["image_id"]),
    }
    return tf.train.Example(features=tf.train.Features(feature=feature))


def parse_tfrecord_fn(example):
    feature_description = {
        "image": tf.io.FixedLenFeature([], tf.string),
        "path": tf.io.FixedLenFeature([], tf.string),
        "area": tf.io.FixedLenFeature([], tf.float32),
        "bbox": tf.io.VarLenFeature(tf.float32),
        "category_id": tf.io.FixedLenFeature([], tf.int64),
        "id": tf.io.FixedLenFeature([], tf.int64),
        "image_id": tf.io.FixedLenFeature([], tf.int64),
    }
    example = tf.io.parse_single_example(example, feature_description)
    example["image"] = tf.io.decode_jpeg(example["image"], channels=3)
    example["bbox"] = tf.sparse.to_dense(example["bbox"])
    return example

# [cell 6]
for tfrec_num in range(n_tfrecods):
    samples = annotations[(tfrec_num * n_samples) : ((tfrec_num + 1) * n_samples)]

    with tf.io.TFRecordWriter(
        tfrecords_dir + "/file_%.2i-%i.tfrec" % (tfrec_num, len(samples))
    ) as writer:
        for sample in samples:
            image_path = f"{images_dir}/{sample['image_id']:012d}.jpg"
            image = tf.io.decode_jpeg(tf.io.read_file(image_path))
            example = create_example(image, image_path, sample)
            writer.write(example.SerializeToString())

# [cell 7]
raw_dataset = tf.data.TFRecordDataset(f"{tfrecords_dir}/file_00-{n_samples}.tfrec")
parsed_dataset = raw_dataset.map(parse_tfrecord_fn)

for features in parsed_dataset.take(1):
    for key in features.keys():
        if key != "image":
            print(f"{key}: {features[key]}")

    print(f"Image shape: {features['image'].shape}")
    plt.figure(figsize=(7, 7))
    plt.imshow(features["image"].numpy())
    plt.show()

# [cell 8]
def prepare_sample(features):
    image = tf.image.resize(features["image"], size=(32, 32))
    return image, features["category_id"]


def get_dataset(filenames, batch_size):
    """Return a Tensorflow dataset ready for training or inference."""
    dataset = (
        tf.data.TFRecordDataset(
            filenames, num_parallel_reads=2
        )
        .map(parse_tfrecord_fn, num_parallel_calls=tf.data.experimental.AUTOTUNE)
        .map(prepare_sample, num_parallel_calls=tf.data.experimental.AUTOTUNE)
        .batch(batch_size)
        .prefetch(tf.data.experimental.AUTOTUNE)
    )
    return dataset


train_filenames = sorted(tf.io.gfile.glob(tfrecords_dir + "/*.tfrec"))
batch_size = 8
epochs = 1
steps_per_epoch = 2


input_tensor = tf.keras.layers.Input(shape=(32, 32, 3), name="image")
model = tf.keras.applications.EfficientNetB0(
    input_tensor=input_tensor, weights=None, classes=91
)
for layer in model.layers:
    if isinstance(layer, tf.keras.layers.Dropout):
        layer.rate = 0.0


model.compile(
    optimizer=tf.keras.optimizers.Adam(),
    loss=tf.keras.losses.SparseCategoricalCrossentropy(),
    metrics=["sparse_categorical_accuracy"],
)


show(model.fit(
    x=get_dataset(train_filenames, batch_size),
    epochs=epochs,
    steps_per_epoch=steps_per_epoch,
    verbose=1,
))
