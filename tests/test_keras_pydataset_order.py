"""``fit``, ``evaluate`` and ``predict`` on a ``keras.utils.PyDataset`` read its
batches in TF's Keras's order (census kio_metric_learning).

TF's Keras makes the PyDataset's tf.data signature when its epoch iterator is
made, from batches 0 and 1 (read and dropped), and builds the model when the
step is first traced; Keras on JAX reads nothing there, and its fit's symbolic
build reads the first batch of a (shuffled) epoch. A ``__getitem__`` that draws
from Python's ``random`` (keras.io's metric learning draws its pairs so) then
gets other numbers, and fit other losses. Each program logs every
``__getitem__`` index and ``on_epoch_begin``/``on_epoch_end`` call, in TF's Keras
and through the facade (tests/test_keras.py's ``_same_as_tf``).
"""
import pytest

from test_keras import _same_as_tf

pytestmark = pytest.mark.subprocess

# A PyDataset whose batches are Python-random numbers, logged as tag*100 + index;
# on_epoch_begin is tag*100 + 90, on_epoch_end tag*100 + 99.
_PAIRS = """
import random
log = []
class Pairs(tf.keras.utils.PyDataset):
    def __init__(self, n, tag):
        super().__init__()
        self.n, self.tag = n, tag
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        log.append(self.tag * 100 + i)
        x = np.asarray([[random.random() for _ in range(3)] for _ in range(2)], "float32")
        return x, np.ones((2, 1), "float32")
    def on_epoch_begin(self):
        log.append(self.tag * 100 + 90)
    def on_epoch_end(self):
        log.append(self.tag * 100 + 99)
def new_model():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.set_weights(weights_like(model))
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    return model
"""


def test_fit_reads_a_pydataset_in_tfs_order():
    # 0, 1 (the signature's batches), then each epoch's; validation alike, once.
    got = _same_as_tf(_PAIRS + """
random.seed(0)
model = new_model()
history = model.fit(Pairs(4, 1), epochs=2, shuffle=False, verbose=0,
                    validation_data=Pairs(2, 2))
emit("order", log)
emit("loss", history.history["loss"])
emit("val_loss", history.history["val_loss"])
emit("weights", model.get_weights())
""")
    assert got["order"][:3] == [100, 101, 199]


def test_fit_with_shuffle_reads_a_pydataset_in_tfs_order():
    # A model not built yet, and fit's shuffling (Python's random.shuffle): TF's
    # Keras reads no batch for the build, so the first epoch's permutation is the
    # first draw after the signature's batches.
    _same_as_tf(_PAIRS + """
random.seed(3)
model = new_model()
history = model.fit(Pairs(5, 1), epochs=2, shuffle=True, verbose=0)
emit("order", log)
emit("loss", history.history["loss"])
""")


def test_evaluate_and_predict_read_a_pydataset_in_tfs_order():
    _same_as_tf(_PAIRS + """
random.seed(0)
model = new_model()
emit("evaluate", model.evaluate(Pairs(3, 3), verbose=0))
emit("predict", model.predict(Pairs(3, 4), verbose=0))
emit("order", log)
""")


def test_fit_on_a_generator_reads_it_once_in_order():
    # TF's and JAX's adapters both take a generator's first two batches for the
    # signature and chain them back: each batch is read once, in order.
    _same_as_tf("""
log = []
def batches():
    for i in range(3):
        log.append(i)
        yield np.full((2, 3), i, "float32"), np.ones((2, 1), "float32")
model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
model.set_weights(weights_like(model))
model.compile(tf.keras.optimizers.SGD(0.1), "mse")
history = model.fit(batches(), epochs=1, verbose=0)
emit("order", log)
emit("loss", history.history["loss"])
""")
