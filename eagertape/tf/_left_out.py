"""TensorFlow's top-level namespaces that ``eagertape.tf`` leaves out, each with its own
reason: why it has no place on JAX (or not yet), and what to use instead.

(``tf.io``, ``tf.audio``, ``tf.ragged``, ``tf.summary`` and ``tf.distribute`` are in now, and
``tf.compat``: its helpers, ``tf.compat.v2`` (the facade) and the names of
``tf.compat.v1`` that run eagerly as TF 2's; TF 1's graph-mode API in it is left out
name by name, each with TF 2's way: eagertape/tf/compat.py.) ``tf.tpu`` and its like would otherwise get the hint meant for a single op not
written yet (use ``eagertape.numpy``), which sends a user to the wrong place: nobody
runs a TPU or shards a model with ``jax.numpy``. The facade's module
``__getattr__`` adds ``NAMESPACES`` to its table of left-out names, so each raises
``AttributeError("tf.<name> is left out of eagertape's TensorFlow facade: <reason>")``.
"""

# Brought in by a later release; until then each reason says what works today.
PLANNED = "not in eagertape yet (planned for a later release)"

NAMESPACES = {
    "estimator": (
        "it was removed from TensorFlow itself (2.16); write the model with "
        "tf.keras (compile and fit) or a tf.GradientTape training loop"),
    "tpu": (
        "TF's TPU runtime API; JAX runs on TPUs itself: install jax[tpu] and eagertape's "
        "ops run there (jax.devices() lists the cores)"),
    "feature_column": (
        "it is deprecated in TensorFlow itself, in favour of Keras preprocessing "
        "layers; use tf.keras.layers.Normalization, Discretization and "
        "CategoryEncoding (they run on Keras's JAX backend), or NumPy before the data "
        "reaches the model"),
    "queue": (
        "TF 1's graph-mode input queues; feed data with tf.data.Dataset, or pass it "
        "between threads with Python's queue module"),
    "xla": (
        "it builds XLA ops inside TF graphs; eagertape already compiles through XLA "
        "(every tf.function is one jax.jit program): write the op with jax.lax and make "
        "it a recorded op with eagertape.primitive(fn)"),
    "mlir": (
        "TF's MLIR converters work on TF graphs, which eagertape does not make; to see "
        "what XLA compiles, lower the JAX function: jax.jit(f).lower(*args).as_text()"),
    "raw_ops": (
        "TF's kernels by their op names; call the eagertape.tf function of the same op "
        "(tf.math, tf.nn, ...) or record a JAX function with eagertape.primitive(fn)"),
    "sets": (
        "its set operations (which return SparseTensors) are not in eagertape yet; for "
        "1-D tensors use eagertape.numpy's intersect1d, union1d and setdiff1d"),
    "quantization": (
        "TF's quantized kernels and dtypes (qint8, ...) have no JAX counterpart; write "
        "fake quantization with tf.round and tf.clip_by_value under a straight-through "
        "tf.custom_gradient, or quantize with a JAX library such as AQT"),
    "graph_util": (
        "TF 1's graph utilities (freezing and pruning GraphDefs) have no meaning in "
        "eager TF 2: eagertape makes no TF graphs"),
}
