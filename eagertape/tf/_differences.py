"""The documented differences from TensorFlow that attach to names, machine-readable
for ``python -m eagertape port-check``.

Each row: the name patterns (``fnmatch``, matched against the full chain as a program
spells it, ``tf.random.normal``), one line saying what differs, and the anchor of its
entry in docs/differences.md (tests/test_port_check.py checks that every anchor is
there). A difference that no name carries (a pattern of use, such as
``tf.function(jit_compile=...)``) is found by the checker's own patterns and points to
its anchor here by ``ANCHORS``.
"""

DOCS = "docs/differences.md"

DIFFERENCES = (
    (("tf.random.*", "tf.image.random_*", "tf.image.stateless_random_*",
      "tf.keras.random.*"),
     "random", "reproducible under a seed, but not TF's numbers for the stateful ops "
     "(tf.random.normal, uniform, ...), Keras's initializers and tf.data's shuffle order "
     "(JAX's threefry); the stateless ops (uniform, normal, truncated_normal, split, "
     "fold_in), tf.image.stateless_random_* and tf.random.Generator give TF's Philox "
     "numbers (normal ones to a float32 ulp); stateless categorical, binomial, gamma, "
     "poisson and shuffle are still JAX's"),
    (("tf.data.*",),
     "data", "tf.data runs in the caller's thread, element by element; a mapped "
     "dataset's element_spec is read from its first element"),
    (("tf.io.*", "tf.audio.*", "tf.image.decode_*", "tf.image.encode_*"),
     "io", "local paths only (gs:// and hdfs:// raise); decode_and_crop_jpeg's window edges "
     "differ for subsampled JPEGs; encoded bytes are not TF's"),
    (("tf.Tensor", "tf.Variable"),
     "class-names", "type(t).__name__ is 'Tensor' for an eager tensor (TF: 'EagerTensor') "
     "and 'Variable' for a tf.Variable (TF: 'ResourceVariable')"),
    (("tf.strings.*", "tf.string", "tf.as_string"),
     "strings", "string tensors are NumPy arrays of bytes on the host: numeric ops, "
     "jax.jit and JAX conversions refuse them"),
    (("tf.strings.regex_*",),
     "regex", "TF's RE2 syntax run by Python's re: \\p{...} classes raise, and patterns "
     "RE2 refuses (look-arounds) run"),
    (("tf.RaggedTensor", "tf.ragged.*", "tf.strings.split", "tf.strings.unicode_split",
      "tf.strings.ngrams"),
     "ragged", "row splits on the host (int64); a tf.function traces once per row "
     "structure; Keras on JAX takes none: call to_tensor() before a layer"),
    (("tf.keras.layers.StringLookup", "tf.keras.layers.TextVectorization"),
     "string-layers", "Keras's own layers, which need TensorFlow installed on every Keras "
     "backend"),
    (("tf.train.Checkpoint", "tf.train.CheckpointManager"),
     "checkpoints", "eagertape's checkpoints are orbax-checkpoint directories, which TF "
     "cannot read; TF's are read and restored without TF (string Variables and "
     "partitioned ones left out)"),
    (("tf.SparseTensor", "tf.sparse.*"),
     "sparse", "the dense shape is static, and ops whose number of entries depends on "
     "the values raise inside a traced tf.function"),
    (("tf.saved_model.save", "tf.keras.Model.export"),
     "saved-model-save", "a real SavedModel written by TensorFlow in a process of its "
     "own (TensorFlow must be installed); each function is one XlaCallModule op"),
    (("tf.saved_model.load",),
     "saved-model-load", "loads the SavedModels eagertape wrote; one TensorFlow wrote "
     "holds TF graphs, which eagertape cannot run"),
    (("tf.Graph", "tf.compat.v1.Graph", "tf.compat.v1.placeholder", "tf.compat.v1.Session",
      "tf.compat.v1.get_variable", "tf.compat.v1.train.Saver", "tf.compat.v1.saved_model.*"),
     "tf1-graph", "a TF 1 graph is a graph of JAX calls: placeholders need their full shape, "
     "independent ops run in the order made, a tf.Variable made in it is eager, and no "
     "GraphDef or MetaGraph is written or read; a TF 1 SavedModel is eagertape's TF 2 "
     "SavedModel of the signatures' Session.run (one MetaGraph, no init ops or assets)"),
    (("tf.lite.*", "tf.compat.v1.lite.*"),
     "tflite", "converted by TensorFlow's own converter (TensorFlow must be installed) "
     "from a jax2tf SavedModel: TF's values, but other ops and tensor indices in the file"),
    (("tf.image.non_max_suppression*", "tf.image.combined_non_max_suppression"),
     "nms", "runs on concrete values only, not inside a traced tf.function"),
    (("tf.debugging.assert_*", "tf.assert_*", "tf.debugging.Assert", "tf.Assert"),
     "asserts", "inside a tf.function, checked when the compiled function runs; a failure "
     "is JAX's runtime error carrying TF's message"),
    (("tf.cast", "tf.dtypes.cast"),
     "cast", "NaN, inf and out-of-range floats cast to small integer types give TF's "
     "scalar rule, not its vectorised one"),
    (("tf.enable_eager_execution", "tf.contrib.eager*"),
     "tf1-eager", "TF 1 eager code: accepted, and the program gets TF 1's watch rule"),
    (("tf.autodiff.ForwardAccumulator",),
     "forward-accumulator", "eagertape's ForwardAccumulator, with TF's nesting rules"),
    (("tf.keras.ops.*", "tf.keras.activations.*", "tf.keras.losses.*"),
     "keras-float64", "Keras's functions on float64 tensors give float32 (Keras's JAX "
     "backend runs in 32-bit mode)"),
    (("tf.keras.layers.RNN", "tf.keras.layers.TimeDistributed",
      "tf.keras.layers.Bidirectional"),
     "keras-wrappers", "a program's layer inside the wrapper is one recorded op: a "
     "tf.Variable it reads must be made with add_weight to be differentiated"),
    (("tf.keras.callbacks.Callback", "tf.keras.layers.Layer"),
     "keras-step-variables", "a tf.Variable a layer reads or assigns in fit's step is the "
     "compiled step's input and output; a step meeting one first is traced once more"),
    (("tf.while_loop",),
     "while-loop", "on a traced condition, differentiated, it needs maximum_iterations "
     "(reverse mode cannot differentiate an unbounded lax.while_loop)"),
    (("tf.while_loop", "tf.switch_case"),
     "control-flow-tape", "a GradientTape entered inside the same tf.function, or a "
     "Variable assigned in the body or branch, is not supported yet"),
    (("tf.function", "tf.autograph.*"),
     "autograph", "AutoGraph is TF's transformer; a TensorArray sized by a computed break "
     "cannot compile, and a Keras layer's call is not converted"),
    (("tf.TensorSpec",),
     "input-signature", "None dimensions are JAX's symbolic sizes: x.shape shows _d0 "
     "where TF shows None"),
    (("tf.py_function",),
     "py-function", "inside a tf.function its Python runs when traced, not at every call"),
    (("tf.numpy_function",),
     "numpy-function", "inside a tf.function it is called once on zeros when traced, to "
     "learn its output shapes"),
    (("tf.optimizers*", "tf.losses*", "tf.metrics*", "tf.initializers*"),
     "keras-aliases", "these are tf.keras's modules (Keras is imported on first use); "
     "without Keras, tf.optimizers is eagertape's own"),
    (("tf.keras.callbacks.TensorBoard",),
     "tensorboard", "Keras's own callback, which writes with TensorFlow's tf.summary (not "
     "eagertape's): it needs tensorflow and tensorboard installed; use "
     "tf.keras.callbacks.CSVLogger without them"),
    (("tf.summary.*",),
     "summary", "TF's event files, but image PNG bytes are not TF's, a trace holds no "
     "graphs (JAX's profiler with profiler=True), and summaries in a tf.function are "
     "computed on the host when it runs"),
    (("tf.keras.layers.StringLookup", "tf.keras.layers.TextVectorization",
      "tf.keras.layers.Hashing"),
     "keras-string-inputs", "in a model with tf.string inputs, the string layers run on "
     "the host and the rest on JAX (a trainable string layer is refused: apply it in the "
     "tf.data pipeline)"),
    (("tf.profiler.*",),
     "profiler", "JAX's profiler writes the trace (TF's file layout): it holds XLA's "
     "programs and the host's activity, not TF's ops"),
    (("tf.gather", "tf.gather_nd", "tf.nn.embedding_lookup", "tf.keras.layers.Embedding"),
     "indexed-slices", "a table's gradient is an IndexedSlices as in TF, but dense inside "
     "a tf.function, after tf.identity/tf.cast, and for an Embedding not first in its call"),
    (("tf.distribute.*",),
     "distribute", "replicas run one after another on the calling thread; all_reduce and "
     "merge_call inside a multi-replica step raise; fit under a strategy trains as on one "
     "device (BatchNormalization's statistics are not per replica)"),
    (("tf.keras.mixed_precision.*", "tf.float16"),
     "float16", "float16 arithmetic is XLA's CPU rounding, not TF's kernels: values "
     "differ in the last bits of float16"),
    (("tf.keras.layers.BatchNormalization", "tf.nn.moments"),
     "batch-statistics", "a gradient that is exactly 0 through the batch statistics (a "
     "bias just before a training-mode normalization) is smaller rounding noise than "
     "TF's, which Adam's normalized step can amplify"),
    (("tf.keras.losses.*crossentropy*", "tf.keras.metrics.*crossentropy*",
      "tf.keras.losses.*Crossentropy", "tf.keras.metrics.*Crossentropy"),
     "keras-softmax-logits", "of a softmax or sigmoid output, the loss is computed from "
     "the clipped probabilities (TF's Keras uses the logits it keeps): a saturated "
     "prediction's loss is capped at -log(epsilon)"),
    (("tf.shape",),
     "keras-symbolic-sizes", "in Keras's symbolic call of a functional model, a size "
     "carrying JAX's symbolic batch; static shapes can be more precise than TF's"),
    (("tf.data.Iterator", "tf.data.Iterator.get_next"),
     "iterator-in-function", "next() of an iterator inside a tf.function takes each "
     "call's element at the shapes it was traced with: a smaller last batch raises "
     "(batch with drop_remainder=True)"),
    (("tf.data.Dataset.snapshot", "tf.data.experimental.snapshot"),
     "snapshot", "the snapshot's files are eagertape's own format (TF cannot read them, "
     "nor eagertape TF's); AUTO and SNAPPY compression write them uncompressed"),
)

# The differences found by a pattern of use rather than by a name: key -> (line, anchor).
ANCHORS = {
    "jit_compile": ("jit_compile is ignored: every tf.function is compiled by XLA; "
                    "tf.config.run_functions_eagerly(True) runs functions as Python",
                    "jit-compile"),
}

# Imported on first use, after the facade scoped its modules: its public functions
# run with TF's 64-bit types on as the others do (tf/_x64.py).
from . import _x64  # noqa: E402

_x64.scope([__name__])
