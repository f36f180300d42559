"""The join of Keras 3 (on its JAX backend) to eagertape's tapes: ``tf.keras``.

Keras is not re-implemented here. Its layers, losses, metrics and optimizers
run as they are; what this module adds is how they meet the tape:

- A Keras weight *is* an eagertape Variable: ``_KerasVariable`` reads and
  writes the Keras variable's own storage (no copy that could drift), and the
  core finds it through ``_eagertape_variable`` (see ``extend.standin``). So
  tapes watch ``layer.kernel`` when it is read, ``tape.gradient(loss,
  model.trainable_variables)`` takes Keras's list, and optimizers update it in
  place.
- A layer or model called on eagertape values is **one recorded op**
  (``_layer_call``): its function runs Keras's own ``__call__`` inside a
  ``StatelessScope`` over the weights' values, and returns the outputs, the
  new non-trainable state (BatchNormalization statistics, seed state) and the
  losses added in the call. Its pullback is ``jax.vjp`` of that function,
  compiled and cached like every other op. The new state is written back once
  the call has succeeded.
- A loss object, ``model.losses`` and the functions of ``keras.ops``,
  ``keras.activations``, ``keras.losses`` and ``keras.random`` are recorded
  ops too; Keras optimizers take eagertape gradients and eagertape Variables.
- What Keras computes reaches the program as the facade's Tensor where TF's
  Keras gives a tf.Tensor: an array a layer keeps as a public attribute
  (Normalization's ``mean`` after ``adapt``), the public functions of
  ``keras.ops``/``activations``/``losses`` called on NumPy values, and the
  NumPy arguments of a program's layer as its ``call`` sees them.
- Inside Keras's own stateless or symbolic calls (``fit``, ``predict``, the
  functional API's graph building, a layer called inside another), Keras
  runs untouched.

Keras is imported on first use of ``eagertape.tf.keras``, never at import.
"""
import contextlib
import functools
import inspect
import os
import sys
import threading
import types
import weakref

import jax
import numpy as np

from .. import extend
from ..extend import CacheTable as Table
from ..extend import Variable, call, init_scope, is_tensor_like, reading_inputs, standin
from ..extend import TensorLike as _TensorLike
from ..extend import foreign_variable_error as tf_variable_error
from ..extend import wrap as _wrap
from . import _keras_gather as _gather
from . import _keras_host
from . import _graph_gradients
from . import _keras_numerics
from ._keras_sparse import sparse_outputs

_keras = None          # the keras module once joined
_in_stateless_scope = None
_in_symbolic_scope = None


def load():
    """Import Keras on its JAX backend and join it to the tapes (once)."""
    global _keras
    if _keras is not None:
        return _keras
    backend = os.environ.get("KERAS_BACKEND")
    if "keras" in sys.modules:
        import keras
        if keras.backend.backend() != "jax":
            raise RuntimeError(
                f"Keras was imported already with the {keras.backend.backend()!r} backend "
                "(by `import tensorflow`, or by `import keras` before eagertape.tf.keras was "
                "first used); eagertape.tf.keras needs Keras on JAX: set KERAS_BACKEND=jax "
                "before anything imports keras (os.environ, or the shell), or use tf.keras "
                "before `import keras`, and do not import tensorflow in the same program")
    elif backend not in (None, "", "jax"):
        raise RuntimeError(
            f"KERAS_BACKEND is {backend!r}; eagertape.tf.keras runs Keras on its JAX backend: "
            "unset KERAS_BACKEND or set it to 'jax'")
    else:
        os.environ["KERAS_BACKEND"] = "jax"
        try:
            import keras
        except ImportError as e:
            raise ImportError(
                "eagertape.tf.keras is Keras 3 on JAX, which is not installed: "
                "pip install 'eagertape[keras]'") from e
    _join(keras)
    _keras = keras
    if _dataset is not None:
        join_data(_dataset)
    return keras


# -- Keras weights as eagertape Variables -----------------------------------
class _KerasVariable(Variable):
    """An eagertape Variable whose storage is a Keras variable's.

    Its value is the Keras variable's (inside a Keras ``StatelessScope``, the
    scope's value for it), and writing it assigns the Keras variable.
    """

    __slots__ = ("_kv",)

    def __init__(self, kv):
        self._kv = kv
        self._uid = extend.new_variable_id()

    @property
    def _val(self):
        kv = self._kv
        # Inside Keras's stateless call, the scope's value; else the storage.
        return kv.value if _in_stateless_scope() else kv._value

    @_val.setter
    def _val(self, new):
        self._kv.assign(new)

    _trainable = property(lambda self: self._kv.trainable)
    _name = property(lambda self: f"{self._kv.path}:0")


def _standin(kv):
    d = kv.__dict__
    v = d.get("_et")            # a _Shared: the eagertape Variable it serves
    if v is not None:
        return v
    v = d.get("_eagertape")
    if v is None:
        v = d["_eagertape"] = _KerasVariable(kv)
    return v


def _keras_variable(optimizer, v):
    """The Keras variable a Keras optimizer updates for an eagertape Variable:
    made once per optimizer (which keeps its slots for it anyway), sharing the
    Variable's storage."""
    if isinstance(v, _KerasVariable):
        return v._kv
    made = optimizer.__dict__.setdefault("_eagertape_variables", {})
    kv = made.get(v._uid)
    if kv is None:
        kv = made[v._uid] = _Shared(v)
    return kv


# -- one recorded op per layer call -----------------------------------------
def _raw(x):
    return x._value if is_tensor_like(x) else x


def _values_of(tree):
    return jax.tree_util.tree_map(_raw, tree, is_leaf=is_tensor_like)


@contextlib.contextmanager
def _quiet():
    # The op's function runs Keras on raw values (tracers when compiled or
    # differentiated): no tape records inside it, Variable reads are Keras's.
    # Keras's JAX backend is written for JAX's default 32-bit mode (with x64
    # on, its Python constants and int labels make float64 results, where
    # tf.keras gives float32).
    with extend.outside_recording(), jax.enable_x64(False):
        yield


def _op_of(obj, attr, make):
    """The op function of a Keras object, made once and kept on it. It holds the
    object strongly: a tape may replay the op after the program dropped it."""
    fn = obj.__dict__.get(attr)
    if fn is None:
        fn = obj.__dict__[attr] = make()
    return fn


def _weights_op(layer, attr, make, tv, ntv):
    """The op function of a Keras layer for one split of its weights into trainable
    ``tv`` and non-trainable ``ntv`` (as the call found them), ``make(tv, ntv)``, made
    once per split and kept on the layer. It maps the values it is given to those
    weights: a call that runs later (fused mode's pending graph, a tape's replay)
    after the program changed ``layer.trainable`` (transfer learning's fine-tuning,
    between two fits) maps them as at the call."""
    key = (attr, tuple(map(id, tv)), tuple(map(id, ntv)))
    fns = layer.__dict__.setdefault("_eagertape_ops", {})
    fn = fns.get(key)
    if fn is None:
        fn = fns[key] = make(list(tv), list(ntv))
    return fn


def _layer_fn(keras, layer, original, tv, ntv):
    return _weights_op(layer, "call", lambda t, n: _make_layer_fn(keras, layer, original, t, n),
                       tv, ntv)


def _make_layer_fn(keras, layer, original, tv, ntv):
    StatelessScope = keras.StatelessScope

    def fn(trainable, non_trainable, args, kwargs):
        mapping = list(zip(tv, trainable)) + list(zip(ntv, non_trainable))
        read = []
        with _quiet(), extend.watching_reads(read), \
                StatelessScope(state_mapping=mapping, collect_losses=True) as scope:
            given = [scope.get_current_value(v) for v in ntv]
            out = original(layer, *args, **kwargs)
            # None where the call assigned nothing (an inference call's
            # BatchNormalization): TF's Keras writes no Variable there, and
            # an assignment of the unchanged value would be a write inside a
            # traced tf.while_loop, which eagertape refuses.
            new = [None if value is old else value for value, old in zip(
                [scope.get_current_value(v) for v in ntv], given)]
            losses = list(scope.losses)
        # A tf.Variable read inside the op (by a program's layer that a Keras
        # wrapper, an RNN over a custom cell, runs) is a constant of it: noted,
        # so that a differentiated call says so instead of a silent None.
        foreign = sorted({v.name for v in read if not isinstance(v, _KerasVariable)
                          and v.trainable})
        if foreign:
            layer.__dict__["_eagertape_constant_reads"] = foreign
        return _values_of(out), new, losses

    fn.__name__ = f"{type(layer).__name__}_call"
    fn.own_errors = True      # Keras names the layer and the shapes it wanted
    return fn


# -- a functional model whose outputs feed one another -----------------------
# In TF every layer of a model call is recorded, so a gradient of one output
# w.r.t. another (Grad-CAM: the predictions w.r.t. the last conv layer's
# activations, both outputs of one model) has a value. A model call is one op
# here; such a model is called as two: one sub-model for the outputs that feed
# others, one for the rest taking those as inputs (Keras builds both from the
# model's own graph, so they share its layers and weights).
def _upstream(tensor):
    """The ids of the symbolic tensors ``tensor`` is computed from."""
    seen, stack = set(), [tensor]
    while stack:
        t = stack.pop()
        history = getattr(t, "_keras_history", None)
        if history is None:
            continue
        node = history.operation._inbound_nodes[history.node_index]
        for x in node.input_tensors:
            if id(x) not in seen:
                seen.add(id(x))
                stack.append(x)
    return seen


def _stages(keras, model):
    if "_eagertape_stages" in model.__dict__:
        return model.__dict__["_eagertape_stages"]
    plan = None
    Functional = _private("Functional")
    if isinstance(model, Functional) and len(model.outputs) > 1:
        outs = list(model.outputs)
        ups = [_upstream(o) for o in outs]
        feeding = [j for j, o in enumerate(outs)
                   if any(id(o) in ups[i] for i in range(len(outs)) if i != j)]
        if feeding:
            rest = [i for i in range(len(outs)) if i not in feeding]
            try:
                first = keras.Model(model.inputs, [outs[j] for j in feeding])
                second = keras.Model(list(model.inputs) + [outs[j] for j in feeding],
                                     [outs[i] for i in rest])
                plan = (first, second, feeding, rest, model._outputs_struct)
            except Exception:       # a graph Keras cannot cut there: one op, as before
                plan = None
    model.__dict__["_eagertape_stages"] = plan
    return plan


def _staged_call(keras, stages, x, kwargs):
    first, second, feeding, rest, struct = stages
    from ..extend import constant
    # Keras refuses a list that mixes its arrays with other tensors: all Tensors.
    inputs = [v if isinstance(v, _TensorLike) else constant(_as_input(v))
              for v in keras.tree.flatten(x)]
    fed = keras.tree.flatten(first(inputs, **kwargs))
    later = keras.tree.flatten(second(inputs + fed, **kwargs))
    flat = [None] * (len(feeding) + len(rest))
    for j, v in zip(feeding, fed):
        flat[j] = v
    for i, v in zip(rest, later):
        flat[i] = v
    return keras.tree.pack_sequence_as(struct, flat)


def _foreign_leaf(x):
    """Whether a call leaf is Keras's own (a symbolic KerasTensor, or a JAX
    tracer of Keras's trainer): then Keras runs as it is."""
    return isinstance(x, (jax.core.Tracer,)) or type(x).__name__ == "KerasTensor"


def _as_input(x):
    # Python lists of numbers are one tensor for TF (Keras would see a list of
    # scalars once flattened by the op).
    if isinstance(x, (list, tuple)) and x and all(
            isinstance(e, (int, float, list, tuple)) and not isinstance(e, bool) for e in x):
        try:
            arr = np.asarray(x)
        except ValueError:
            return x
        if arr.dtype != object:
            return arr.astype(np.float32) if arr.dtype == np.float64 else arr
    return x


# -- the join: everything patched in Keras, in one table -----------------------
# Each row is (owner, attribute, make): the owner is one of Keras's modules or
# classes, named "module" or "module:Class" (the private Keras names the join
# touches are these, and no others); ``make(original)`` gives what replaces the
# attribute (``original`` is None where Keras has none: an attribute added).
# ``join`` applies the rows with one loop after checking that every owner and
# every replaced attribute exists in the installed Keras; ``unjoin`` undoes them.
KERAS_TESTED = ((3, 15),)    # the Keras minor versions the table was written against

_joined = []                 # (owner object, attribute, original or _ABSENT), in order
_ABSENT = object()


def _rows():
    L, T = "keras.src.layers.layer:Layer", "keras.src.trainers.trainer:Trainer"
    KV = "keras.src.backend.jax.core:Variable"      # keras.Variable on JAX
    rows = [
        (L, "__call__", _make_layer_call),
        (L, "losses", _make_losses),
        (L, "add_loss", _make_add_loss),
        (L, "__new__", _make_layer_new),
        ("keras.src.layers.layer", "is_backend_tensor_or_symbolic", _make_is_tensor_arg),
        # Keras's own hook of a layer's attribute assignment (a backend's values
        # there): an array a layer keeps (Normalization's mean after adapt) is TF's
        # tensor in TF's Keras, the facade's Tensor here.
        (L, "_setattr_hook", _make_setattr_hook),
        ("keras.src.layers.layer:CallSpec", "__init__", _make_call_spec_init),
        ("keras.src.dtype_policies.dtype_policy:DTypePolicy", "convert_input",
         _make_convert_input),
        ("keras.src.ops.operation:Operation", "__call__", _make_operation_call),
        ("keras.src.ops.core:Cond", "__call__", _make_cond_call),
        ("keras.src.ops.core", "is_tensor", _make_ops_is_tensor),
        ("keras.src.losses.loss:Loss", "__call__", _make_loss_call),
        (KV, "_eagertape_variable", lambda _: property(_standin)),
        (KV, "value", _make_value),
        (KV, "_direct_assign", _make_direct_assign),
        (KV, "_convert_to_tensor", _make_convert_assigned),
        (KV, "__init__", _make_variable_init),
        (KV, "_deferred_initialize", _make_deferred_initialize),
        # TF's Keras backend gives a variable's shape as a tf.TensorShape (.as_list(),
        # .rank); ours is a tuple subclass, so Keras's own code reads it as before.
        (KV, "shape", _make_variable_shape),
        ("keras.src.optimizers.base_optimizer:BaseOptimizer", "apply", _make_apply),
        ("keras.src.backend", "compute_output_spec", _make_compute_output_spec),
        ("keras.src.backend", "rnn", _make_rnn),
        ("keras.src.backend", "gru", _make_fused_rnn),
        (T, "compute_loss", _make_compute_loss),
        (T, "_symbolic_build", _make_symbolic_build),
        # The TF trainer's API that TF programs call (Keras's TF backend has it,
        # its JAX backend does not): as Keras's TensorFlowTrainer defines it.
        (T, "compiled_loss", lambda _: _compiled_loss),
        (T, "compiled_metrics", lambda _: property(_compiled_metrics)),
        (T, "_compiled_metrics_update_state", lambda _: _compiled_metrics_update_state),
        (T, "distribute_strategy", lambda _: property(lambda self: _DEFAULT_STRATEGY)),
        (T, "distribute_reduction_method", lambda _: property(lambda self: "auto")),
        ("keras.src.backend.jax.trainer:JAXTrainer", "_make_function", _make_step_function),
        ("keras.src.backend.jax.trainer", "jit", _make_step_jit),
        # tf.gradients in a Lambda layer of a functional model (tf/_graph_gradients.py).
        ("keras.src.ops.function:Function", "_run_through_graph",
         _graph_gradients._keras_run_through_graph),
        ("keras.src.ops.symbolic_arguments:SymbolicArguments", "fill_in",
         _graph_gradients._keras_fill_in),
        # fit's gradient of a weight gathered on axis 0 (an Embedding's table) is
        # TF's IndexedSlices (tf/_keras_gather.py): Keras's step, and its take.
        ("keras.src.backend.jax.trainer:JAXTrainer", "train_step", _make_train_step),
        ("keras.src.backend.jax.numpy", "take", _make_take),
        ("keras.src.backend.jax.trainer:JAXTrainer", "make_train_function",
         lambda original: _make_make_function(original, "train_step")),
        ("keras.src.backend.jax.trainer:JAXTrainer", "make_test_function",
         lambda original: _make_make_function(original, "test_step")),
        ("keras.src.backend.jax.trainer:JAXTrainer", "make_predict_function",
         lambda original: _make_make_function(original, "predict_step")),
        ("keras.src.callbacks.tensorboard:TensorBoard", "__init__", _make_tensorboard_init),
        ("keras.src.models.model:Model", "export", _make_export),
        # Keras's RandomCrop slices at its random start, traced in a tf.function,
        # fit's step or an export's serve (_make_random_crop).
        ("keras.src.layers.preprocessing.image_preprocessing.random_crop:RandomCrop",
         "transform_images", _make_random_crop),
        # TF's trainer builds the compile metrics at its first step, after fit's reset
        # (_make_compile_metrics_build): metrics passed to compile keep their state then.
        (T, "__init__", _make_trainer_init),
        (T, "compile", _make_trainer_compile),
        ("keras.src.trainers.compile_utils:CompileMetrics", "build",
         _make_compile_metrics_build),
        ("keras.src.trainers.compile_utils:CompileMetrics", "reset_state",
         _make_compile_metrics_reset),
    ]
    # Keras's *_dataset_from_directory and timeseries_dataset_from_array build
    # their tf.data pipelines with the module global ``tf`` (TensorFlow, imported
    # on first use): that is the facade here, so they give eagertape's datasets,
    # built by Keras's own code (its file listing, order, splits and errors).
    rows += [(f"keras.src.utils.{m}", "tf", lambda _: _facade())
             for m in _DATASET_MODULES]
    rows += [("keras.src.utils.dataset_utils", "labels_to_dataset_tf", _make_labels_to_dataset)]
    # keras.utils.FeatureSpace reads TensorFlow through its module global ``tf`` too
    # (adapt's isinstance check and maps, its call's tensors): the facade here, so it
    # adapts to the program's tf.data pipelines (eagertape's datasets), not only TF's.
    rows += [("keras.src.layers.preprocessing.feature_space", "tf", lambda _: _facade()),
             ("keras.src.layers.preprocessing.feature_space:FeatureSpace", "__call__",
              _make_feature_space_call)]
    # tf.keras.backend's functions (K.sum, K.softmax, ...) are Keras's legacy backend,
    # written in TensorFlow (its module global ``tf``): the facade here, so they run
    # on the program's tensors, traced or not, as TF's Keras runs them.
    rows += [("keras.src.legacy.backend", "tf", lambda _: _facade()),
             ("keras.src.legacy.backend", "softmax", _make_legacy_softmax),
             ("keras._tf_keras.keras.backend", "softmax", _make_legacy_softmax)]
    # A functional model with string inputs: its string layers run on the host
    # (tf/_keras_host.py), the rest on JAX.
    rows += [(owner, "call", _make_model_call) for owner in (
        "keras.src.models.functional:Functional", "keras.src.models.sequential:Sequential")]
    rows += [("keras.src.backend.jax.trainer:JAXTrainer", name, _make_hosting)
             for name in ("fit", "evaluate", "predict", "train_on_batch", "test_on_batch",
                          "predict_on_batch")]
    # TF's Keras numerics where Keras on JAX differs visibly: TF's gradient ops
    # of Relu, Relu6 and LeakyRelu read their input, so a second derivative
    # through them is connected (zeros, where JAX's derivative, which reads only
    # a comparison of it, would give None).
    rows += [("keras.src.backend.jax.nn", name, lambda original: reading_inputs(original))
             for name in ("relu", "relu6", "leaky_relu")]
    # TF's Keras crossentropy where Keras's JAX backend's formula gives other values
    # (tf/_keras_numerics.py): sparse_categorical_crossentropy of non-probabilities.
    # And TF's crossentropy of a softmax or sigmoid output: from the logits the
    # activation kept (TF's `_keras_logits`; tf/_keras_numerics.py).
    rows += [("keras.src.backend.jax.nn", name, _keras_numerics.make_activation)
             for name in ("softmax", "sigmoid")]
    rows += [("keras.src.backend.jax.nn", "sparse_categorical_crossentropy",
              lambda original: _keras_numerics.make_from_logits(
                  _keras_numerics.make_sparse_categorical_crossentropy(original), "Softmax")),
             ("keras.src.backend.jax.nn", "categorical_crossentropy",
              lambda original: _keras_numerics.make_from_logits(original, "Softmax")),
             ("keras.src.backend.jax.nn", "binary_crossentropy",
              lambda original: _keras_numerics.make_from_logits(original, "Sigmoid")),
             # (fit's metrics read the predictions out of its differentiated loss)
             ("keras.src.backend.jax.trainer:JAXTrainer", "compute_loss_and_updates",
              _keras_numerics.make_compute_loss_and_updates)]
    rows += [(KV, f"__{name}__", _make_operator) for name in _OPERATORS]
    rows += _metric_rows()
    rows += _schedule_rows()
    rows += _function_rows()
    return rows


# Keras's private names the join reads besides the table's owners (also
# checked before anything is patched).
KERAS_PRIVATE = {
    "Layer": "keras.src.layers.layer:Layer",
    "Embedding": "keras.src.layers.core.embedding:Embedding",
    "Lambda": "keras.src.layers.core.lambda_layer:Lambda",
    "Functional": "keras.src.models.functional:Functional",
    "Sequential": "keras.src.models.sequential:Sequential",
    "JAXTrainer": "keras.src.backend.jax.trainer:JAXTrainer",
    "in_stateless_scope": "keras.src.backend.common.stateless_scope:in_stateless_scope",
    "in_symbolic_scope": "keras.src.backend.common.symbolic_scope:in_symbolic_scope",
    "global_state": "keras.src.backend.common.global_state",
    "tracking": "keras.src.utils.tracking",
    "ALL_OBJECTS_DICT": "keras.src.activations:ALL_OBJECTS_DICT",
    "data_adapters": "keras.src.trainers.data_adapters",
    "data_adapter_utils": "keras.src.trainers.data_adapters.data_adapter_utils",
    "DataAdapter": "keras.src.trainers.data_adapters.data_adapter:DataAdapter",
    "PyDatasetAdapter": "keras.src.trainers.data_adapters.py_dataset_adapter:PyDatasetAdapter",
    "get_input_signature": "keras.src.export.export_utils:get_input_signature",
    "TFGraphScope": "keras.src.utils.backend_utils:TFGraphScope",
    "tensorflow": "keras.src.utils.module_utils:tensorflow",
    # Keras's optimizers read their ops as a module global `ops`, which
    # tf/_keras_sparse.py swaps while an IndexedSlices gradient is applied.
    "optimizer_ops": "keras.src.optimizers.base_optimizer:ops",
    # The lazily imported TensorFlow that Keras's dataset utilities import
    # inside their functions (dataset_utils.labels_to_dataset_tf).
    "module_utils": "keras.src.utils.module_utils",
    # How Keras's functional call runs a node's layer (training= and the other
    # call-context arguments): tf/_keras_host.py runs a model's graph so.
    "operation_fn": "keras.src.models.functional:operation_fn",
}
# Keras's modules of tf.data pipelines whose ``tf`` is the facade (rows above).
_DATASET_MODULES = ("text_dataset_utils", "image_dataset_utils", "audio_dataset_utils",
                    "timeseries_dataset_utils")
# Where Keras's functions of arrays are defined, and where the public API and
# Keras's own code find them by module attribute (the rows of _function_rows).
_FUNCTION_MODULES = ("keras.src.ops.numpy", "keras.src.ops.nn", "keras.src.ops.core",
                     "keras.src.ops.math", "keras.src.ops.linalg", "keras.src.ops.image",
                     "keras.src.activations.activations", "keras.src.losses.losses")
_INTERNAL_PREFIXES = ("keras.src.",)
_ALIAS_PREFIXES = ("keras.src.ops", "keras.src.activations", "keras.src.losses",
                   "keras.api", "keras._tf_keras", "keras.ops", "keras.activations",
                   "keras.losses")
# Keras's legacy backend (tf.keras.backend's K.sum, K.softmax, ...), written in TF:
# its functions get the facade as their ``tf`` (the table above) and Tensors.
LEGACY_BACKEND = "keras.src.legacy.backend"
# -- (the end of the declared Keras names)


@functools.lru_cache(maxsize=None)
def _private(name):
    return _resolve(KERAS_PRIVATE[name])


def _resolve(owner):
    import importlib
    module, _, cls = owner.partition(":")
    obj = importlib.import_module(module)
    for part in filter(None, cls.split(".")):
        obj = getattr(obj, part)
    return obj


def _join(keras):
    try:    # tf.keras's namespace: its aliases of Keras's functions are joined too
        import keras._tf_keras.keras  # noqa: F401
    except ImportError:
        pass
    version = tuple(int(p) for p in keras.__version__.split(".")[:2] if p.isdigit())
    rows = _rows()
    # Checked before anything is patched: a Keras whose private names moved is a
    # clear error at `tf.keras`, not a half-joined Keras.
    resolved = []
    for owner, attr, make in rows:
        try:
            obj = _resolve(owner)
        except (ImportError, AttributeError):
            obj = None
        if isinstance(obj, dict):
            own = obj.get(attr, _ABSENT)
            original = own
        elif obj is not None:
            own = obj.__dict__.get(attr, _ABSENT)       # restored by unjoin
            original = getattr(obj, attr, _ABSENT)      # what the replacement wraps
        if obj is None or (original is _ABSENT and attr not in _ADDS):
            raise ImportError(
                f"eagertape.tf.keras joins Keras by replacing {owner}.{attr}, which Keras "
                f"{keras.__version__} does not have; install a Keras it was written for: "
                f"pip install 'keras>={KERAS_TESTED[0][0]}.{KERAS_TESTED[0][1]},"
                f"<{KERAS_TESTED[-1][0]}.{KERAS_TESTED[-1][1] + 1}'")
        resolved.append((obj, attr, make, original, own))
    for name, path in KERAS_PRIVATE.items():
        try:
            _resolve(path)
        except (ImportError, AttributeError):
            raise ImportError(
                f"eagertape.tf.keras reads {path}, which Keras {keras.__version__} does not "
                f"have; install a Keras it was written for: pip install "
                f"'keras>={KERAS_TESTED[0][0]}.{KERAS_TESTED[0][1]},"
                f"<{KERAS_TESTED[-1][0]}.{KERAS_TESTED[-1][1] + 1}'") from None
    if version not in KERAS_TESTED:
        import warnings
        warnings.warn(f"eagertape.tf.keras was written for Keras "
                      f"{', '.join('%d.%d' % v for v in KERAS_TESTED)}; Keras "
                      f"{keras.__version__} has every name it joins, but is untested",
                      stacklevel=3)
    global _in_stateless_scope, _in_symbolic_scope, _Shared
    _in_stateless_scope = _private("in_stateless_scope")
    _in_symbolic_scope = _private("in_symbolic_scope")
    _graph_gradients.in_symbolic_scope = _in_symbolic_scope    # (it does not import us)
    _Shared = _make_shared(keras.Variable)
    _keras_host.bind(keras, _private)
    _register_tracked(keras)
    for obj, attr, make, original, own in resolved:
        _patch(obj, attr, make(None if original is _ABSENT else original), own)


def _patch(obj, attr, new, own=_ABSENT):
    if isinstance(obj, dict):
        obj[attr] = new
    else:
        setattr(obj, attr, new)
    _joined.append((obj, attr, own))


def unjoin():
    """Undo the join (for tests): Keras's patched attributes get their own back;
    ``tf.keras`` joins again on its next use."""
    global _keras, _data_joined
    # (Keras's tracked containers stay registered as JAX pytrees: JAX cannot
    # unregister a node type, and a list is a list either way.)
    while _joined:
        obj, attr, own = _joined.pop()
        if isinstance(obj, dict):
            obj[attr] = own
        elif own is _ABSENT:
            delattr(obj, attr)
        else:
            setattr(obj, attr, own)
    _pure_classes.clear()
    _keras, _data_joined = None, False
    for ns in list(_namespaces):        # what tf.keras handed out joins again when asked
        for name in ns._cached:
            ns.__dict__.pop(name, None)
        ns._cached.clear()


# The attributes the join adds (Keras has none of these names).
_ADDS = frozenset({"_eagertape_variable", "compiled_loss", "compiled_metrics",
                   "_compiled_metrics_update_state", "distribute_strategy",
                   "distribute_reduction_method"})


def _keras_runs(args, kwargs):
    """Whether Keras runs as it is: inside its own stateless or symbolic calls, or
    on its own values (symbolic KerasTensors, tracers of its trainer)."""
    if _in_stateless_scope() or _in_symbolic_scope():
        return True
    leaves = jax.tree_util.tree_leaves((args, kwargs), is_leaf=is_tensor_like)
    return any(_foreign_leaf(x) for x in leaves)


def _records(args, kwargs):
    """Whether a Keras function called on these arguments is a recorded op: an
    eagertape Tensor among them, or a Keras weight while a tape records."""
    if _in_stateless_scope() or _in_symbolic_scope():
        return False
    taping = extend.recording()
    found = False
    for x in jax.tree_util.tree_leaves((args, kwargs), is_leaf=_leaf):
        if _foreign_leaf(x):
            return False
        if isinstance(x, _TensorLike) or (taping and hasattr(type(x), "_eagertape_variable")):
            found = True
    return found


def _leaf(x):
    return is_tensor_like(x) or hasattr(type(x), "_eagertape_variable")


# -- the logits of a softmax or sigmoid output, across recorded ops -------------
# TF's Keras keeps the input of a softmax or sigmoid on its output tensor
# (``_keras_logits``), and its crossentropies compute from it (tf/_keras_numerics.py
# keeps it for Keras's arrays). A Keras call that is a recorded op takes the logits
# kept on its Tensor arguments as inputs too, and gives those of its outputs as
# outputs, kept on the output Tensors: the loss's gradient reaches the weights
# through the logits, as in TF.
def _logits_call(fn, args, kwargs=None, makes=True, **kw):
    """``call(fn, args, kwargs, **kw)``, the logits kept on the Tensors among the
    arguments kept on their values inside, and those kept on the outputs' values
    kept on the output Tensors. ``makes=False``: ``fn`` keeps none on its outputs
    (a plain ``call``, its quicker kind, where no argument has logits either)."""
    given = {}
    for i, x in enumerate(jax.tree_util.tree_leaves((args, kwargs), is_leaf=is_tensor_like)):
        if isinstance(x, extend.Tensor):
            logits = _keras_numerics.logits_of(x)
            if logits is None:      # a Keras array's, wrapped as it is (_tensors_of)
                logits = _keras_numerics.logits_of(x._v)
            if logits is not None:
                given[i] = logits
    if not given and not makes:
        return call(fn, args, kwargs, **kw)
    out, made = call(_keeping_logits(fn), (given, args, kwargs or {}), **kw)
    if made:
        leaves = jax.tree_util.tree_leaves(out, is_leaf=is_tensor_like)
        for j, logits in made.items():
            _keras_numerics.keep_logits(leaves[j], logits)
    return out


# The functions of keras.ops and keras.activations whose output keeps its logits.
_MAKING_LOGITS = frozenset({"softmax", "sigmoid"})


def _keeping_logits(fn):
    """``fn`` as the op function of ``_logits_call`` (made once per ``fn``: the op's
    kind is the function's identity)."""
    hit = getattr(fn, "_eagertape_keeping_logits", None)
    if hit is not None:
        return hit

    def keeping(given, args, kwargs):
        if given:
            leaves = jax.tree_util.tree_leaves((args, kwargs))
            for i, logits in given.items():
                _keras_numerics.keep_logits(leaves[i], logits)
        out = fn(*args, **kwargs)
        made = {}
        for j, y in enumerate(jax.tree_util.tree_leaves(out)):
            logits = _keras_numerics.logits_of(y)
            if logits is not None:
                made[j] = logits
        return out, made

    keeping.__name__ = getattr(fn, "__name__", "keras_call")
    if getattr(fn, "own_errors", False):
        keeping.own_errors = True
    fn._eagertape_keeping_logits = keeping
    return keeping


# -- layer calls: one recorded op, or op by op as TF runs them ----------------
_pure_classes = {}


def _keras_class(cls):
    """Whether a layer class is Keras's own (its call, build and everything else
    defined in Keras), so a call of it is a pure function of its weights."""
    r = _pure_classes.get(cls)
    if r is None:
        r = _pure_classes[cls] = not issubclass(cls, _private("Lambda")) and all(
            c.__module__.split(".")[0] in ("keras", "builtins", "abc") for c in cls.__mro__)
    return r


def _one_op(layer):
    """Whether a call of ``layer`` is one recorded op. A layer of Keras's own
    class is; a Sequential or Functional model is when all its layers are. A
    layer whose class is the program's (its ``call`` may hold tf.Variables,
    custom gradients, tapes, Python control flow on values) runs op by op, as
    TF runs it."""
    if not _keras_class(type(layer)):
        return False
    if isinstance(layer, (_private("Functional"), _private("Sequential"))):
        # Kept per list of layers (a Sequential may grow): a model call asks.
        subs = layer._layers
        key = tuple(map(id, subs))
        hit = layer.__dict__.get("_eagertape_one_op")
        if hit is None or hit[0] != key:
            hit = layer.__dict__["_eagertape_one_op"] = (key, all(_one_op(s) for s in subs))
        return hit[1]
    return True


_layer_call_original = None     # Keras's own Layer.__call__, once joined


def _make_layer_call(layer_call):
    global _layer_call_original
    _layer_call_original = layer_call

    def __call__(self, *args, **kwargs):
        if args and _keras_host.marked(args[0]):
            # A batch of fit/evaluate/predict with the model's string layers
            # applied (tf/_keras_host.py): the rest of the model takes it.
            split = _keras_host.split_of(self, layer_call)
            return split.run(args[0], _keras, _private("operation_fn"), **kwargs)
        if _keras_runs(args, kwargs):
            return layer_call(self, *args, **kwargs)
        split = _keras_host.split_of(self, layer_call) if args else None
        if split is not None and split.texts:
            # The string layers on the host, the rest layer by layer, each
            # a recorded op (the weights after the lookups get their
            # gradients, as in TF).
            from ..extend import constant
            from . import _traced_text      # (traced text: at each call, on its values)
            inner = {k: v if is_tensor_like(v) else constant(v) for k, v in
                     _traced_text.on_host(split.apply, args[:1], {}, self.name).items()}
            return split.run(inner, _keras, _private("operation_fn"), **kwargs)
        if _holds_text(args, kwargs) or _gives_text(self):
            from . import _traced_text
            return _traced_text.on_host(lambda *a, **k: _text_call(self, layer_call, a, k),
                                        args, kwargs, self.name)
        args = tuple(_as_input(a) for a in args)
        if not _one_op(self):
            return _op_by_op(self, layer_call, args, kwargs)
        kwargs = _with_context_training(kwargs)
        keras = _keras
        if not self.built or any(not sub.built for sub in self._flatten_layers()):
            # Build (create the weights) on the values, inside a scope that
            # drops the call's state updates: the recorded call below is the
            # one that counts.
            _building.depth = getattr(_building, "depth", 0) + 1
            try:
                with _quiet(), keras.StatelessScope():
                    layer_call(self, *_values_of(args), **_values_of(kwargs))
            finally:
                _building.depth -= 1
        if extend.recording() and len(args) == 1:
            stages = _stages(keras, self)
            if stages is not None:
                return _staged_call(keras, stages, args[0], kwargs)
        tv, ntv = self.trainable_variables, self.non_trainable_variables
        trainable = [_standin(v) for v in tv]
        non_trainable = [v.value for v in ntv]
        emb = _input_embedding(self, args)
        if emb is not None:
            out, new, losses = _call_with_rows(keras, self, layer_call, emb, tv, ntv, trainable,
                                               non_trainable, args, kwargs)
        else:
            fn = _layer_fn(keras, self, layer_call, tv, ntv)
            out, new, losses = _logits_call(fn, (trainable, non_trainable, args, kwargs),
                                            name=fn.__name__)
        reads = self.__dict__.get("_eagertape_constant_reads")
        if reads and extend.recording():
            raise NotImplementedError(
                f"layer {self.name!r} ({type(self).__name__}) is one recorded op, and a layer "
                f"of the program inside it reads tf.Variable {reads[0]!r}: its gradient "
                "would be None. Make that weight with the layer's add_weight (Keras tracks "
                "it), or pass the Variable's value as an input of the call")
        for v, value in zip(self.non_trainable_variables, new):
            if value is not None:
                v.assign(_raw(value))
        # As Keras clears its sublayers' losses when an outer layer is called.
        for sub in self._flatten_layers(include_self=False):
            sub.__dict__.pop("_eagertape_losses", None)
        self.__dict__["_eagertape_losses"] = losses
        # A sparse output (JAX's BCOO) is TF's SparseTensor (tf/_keras_sparse.py).
        return out if isinstance(out, _TensorLike) else sparse_outputs(out)

    __call__.__doc__ = layer_call.__doc__
    return __call__


# -- an Embedding on the call's input: TF's IndexedSlices gradient --------------
# TF's gradient of an Embedding's table is an IndexedSlices (the looked-up rows'
# gradients at their ids), which Keras's optimizers apply row by row. A one-op
# call whose first layer is an Embedding of the call's input takes the looked-up
# rows as an input instead of the table: the rows are tf.gather's (whose
# gradient is the IndexedSlices), the rest of the call is one op as before.
def _input_embedding(layer, args):
    """The Embedding that looks up ``args[0]`` first in ``layer``'s call (the
    layer itself, or a Sequential's first layer), where a tape records it
    eagerly; else None."""
    if len(args) != 1 or not extend.recording() or extend.function_trace() is not None:
        return None
    Embedding = _private("Embedding")
    emb = layer
    if isinstance(layer, _private("Sequential")):
        subs = layer.layers
        emb = subs[0] if subs else None
    if (type(emb) is not Embedding or not emb.trainable or getattr(emb, "lora_enabled", False)
            or getattr(emb, "quantization_mode", None) is not None
            or not hasattr(args[0], "dtype")):
        return None
    table = emb._embeddings if hasattr(emb, "_embeddings") else None
    if table is None or sum(w is table for w in layer.weights) != 1:
        return None
    return emb


def _call_with_rows(keras, layer, layer_call, emb, tv, ntv, trainable, non_trainable, args,
                    kwargs):
    from ._array import _take_rows
    from ._indexed_slices import gather_rows
    ids = args[0] if is_tensor_like(args[0]) else extend.constant(np.asarray(args[0]))
    if ids.dtype.name not in ("int32", "int64"):
        ids = ids.astype("int32")
    table = emb._embeddings
    k = [i for i, v in enumerate(tv) if v is table][0]
    rows = gather_rows(trainable[k].read_value(), ids, _take_rows)
    trainable = list(trainable)
    trainable[k] = trainable[k]._value      # not read here: the rows carry its gradient
    fn = _weights_op(layer, "rows_call",
                     lambda t, n: _make_rows_fn(keras, layer, layer_call, emb, t, n), tv, ntv)
    return _logits_call(fn, (trainable, non_trainable, rows, args, kwargs), name=fn.__name__)


def _make_rows_fn(keras, layer, layer_call, emb, tv, ntv):
    inner = _make_layer_fn(keras, layer, layer_call, tv, ntv)
    ops = keras.ops

    def fn(trainable, non_trainable, rows, args, kwargs):
        emb.__dict__["call"] = lambda inputs, *a, **k: ops.cast(rows, emb.compute_dtype)
        try:
            return inner(trainable, non_trainable, args, kwargs)
        finally:
            del emb.__dict__["call"]
    fn.__name__ = inner.__name__
    fn.own_errors = True
    return fn


def _holds_text(args, kwargs):
    # (Python strings and NumPy arrays of them too: `lookup([["a", "b"]])` is text
    # to TF's Keras, and a deferred JAX call cannot take it)
    leaves = jax.tree_util.tree_leaves((args, kwargs), is_leaf=is_tensor_like)
    return any(getattr(x, "_host_only", False) or isinstance(x, (str, bytes))
               or (isinstance(x, np.ndarray) and x.dtype.kind in "SU") for x in leaves)


def _gives_text(layer):
    # StringLookup(invert=True): ids to strings, which Keras cannot make JAX arrays of.
    return getattr(layer, "invert", False) is True and getattr(
        layer, "vocabulary_dtype", None) == "string"


def _make_feature_space_call(call):
    # FeatureSpace has a __call__ of its own (not Layer's: it runs its preprocessing
    # layers in TensorFlow on any backend, and on Keras's JAX backend gives JAX
    # arrays): called as a text layer is, on its values (a traced call at each call of
    # the function), its results the facade's Tensors, as TF's Keras gives TF's.
    @functools.wraps(call)
    def __call__(self, data):
        from . import _traced_text
        return _traced_text.on_host(lambda *a, **k: _text_call(self, call, a, k),
                                    (data,), {}, self.name)
    return __call__


def _text_call(layer, layer_call, args, kwargs):
    # A layer called on string tensors (StringLookup, TextVectorization, a model
    # starting with one), or giving strings: Keras's own call on the strings' NumPy
    # values, as Keras takes text on its JAX backend (its text layers run TensorFlow's
    # kernels); nothing to record, as no gradient passes through strings. The results
    # come back as Tensors; strings stay TF's (TFGraphScope: Keras does not make JAX
    # arrays of them).
    if extend.recording() and layer.trainable_weights:
        raise NotImplementedError(
            f"{type(layer).__name__} {layer.name!r} holds a text layer and was called on "
            "strings while a GradientTape records: its weights would get no gradient, as "
            "text runs on the host outside the tape. Apply the text layer first (ids = "
            "text_layer(texts), or in the tf.data pipeline) and call the layers after it "
            "on the ids")

    from ._ragged import RaggedTensor

    def host(x):
        if isinstance(x, RaggedTensor):
            return _tf_ragged(x)
        return np.asarray(x) if getattr(x, "_host_only", False) else x

    def back(x):
        if isinstance(x, jax.Array):
            return _wrap(x)
        if type(x).__name__ == "RaggedTensor" and not isinstance(x, RaggedTensor):
            return RaggedTensor.from_nested_row_splits(
                back(x.flat_values), [s.numpy() for s in x.nested_row_splits])
        if isinstance(x, np.ndarray) or hasattr(x, "numpy"):
            from . import _text
            value = np.asarray(x.numpy() if hasattr(x, "numpy") else x)
            return _text.constant_text(value) if value.dtype.kind in "SUO" \
                else _text.text_result(value)
        return x
    args, kwargs = jax.tree_util.tree_map(
        host, (args, kwargs), is_leaf=lambda x: is_tensor_like(x) or isinstance(x, RaggedTensor))
    scope = _private("TFGraphScope")() if _gives_text(layer) else contextlib.nullcontext()
    with extend.outside_recording(), scope:
        out = layer_call(layer, *args, **kwargs)
    result = jax.tree_util.tree_map(back, out)
    # (a dict in its own order, as TF's Keras gives it: JAX's tree_map sorts its keys)
    return {k: result[k] for k in out} if isinstance(out, dict) else result


def _tf_ragged(rt):
    # Keras's text layers take TensorFlow's RaggedTensor (their kernels are TF's, on
    # any backend), as TF's Keras takes a ragged batch of strings: the same rows.
    tf = _private("tensorflow")
    flat = rt.flat_values
    flat = np.asarray(flat) if getattr(flat, "_host_only", False) else np.asarray(
        flat.numpy() if hasattr(flat, "numpy") else flat)
    return tf.RaggedTensor.from_nested_row_splits(
        flat, [np.asarray(s.numpy() if hasattr(s, "numpy") else s)
               for s in rt.nested_row_splits])


def _with_context_training(kwargs):
    """``kwargs`` with the ``training`` of the Keras call context an outer layer's call
    set, where this call gives none, as Keras's ``__call__`` resolves it: a one-op
    call's trace, cached by its arguments, and its replay for a tape's gradient run
    outside that context (a BatchNormalization in a subclassed block of a model called
    with training=True ran in inference mode there)."""
    if "training" in kwargs:
        return kwargs
    ctx = _private("global_state").get_global_attribute("current_call_ctx")
    if ctx is None:
        return kwargs
    value = ctx.get_value("training") if hasattr(ctx, "get_value") else getattr(
        ctx, "training", None)
    return kwargs if value is None else dict(kwargs, training=value)


def _entry_call():
    return _private("global_state").get_global_attribute("current_call_ctx") is None


def _op_by_op(layer, layer_call, args, kwargs):
    # Keras's own __call__ (build, training=, masks, name scopes) with the
    # eagertape values as they are: each op of the layer's call records itself,
    # sublayers included (each one op or op by op in turn).
    if _entry_call():
        for sub in layer._flatten_layers():
            sub.__dict__.pop("_eagertape_losses", None)
    # NumPy arrays among the arguments are the facade's Tensors in the layer's call,
    # as TF's Keras converts them to TF's tensors (Keras would make its arrays).
    if not all(isinstance(a, _TensorLike) for a in args) or any(
            isinstance(v, _CONTAINERS) for v in kwargs.values()):
        args, kwargs = jax.tree_util.tree_map(_tensor_of_numpy, (args, kwargs),
                                              is_leaf=is_tensor_like)
    out = layer_call(layer, *args, **kwargs)
    if layer.activity_regularizer is not None:
        # As Keras's __call__ does for its own arrays (it passes over Tensors):
        # the regularizer of each output, per example, a recorded op.
        fn = _op_of(layer, "_eagertape_activity", lambda: _activity_loss_fn(layer))
        for y in jax.tree_util.tree_leaves(out, is_leaf=is_tensor_like):
            if isinstance(y, _TensorLike):
                layer.add_loss(call(fn, (y,), name=fn.__name__))
    return out


_CONTAINERS = (np.ndarray, list, tuple, dict)


def _tensor_of_numpy(x):
    if type(x) is np.ndarray and x.dtype.kind in "biufc":
        return extend.constant(x)
    return x


def _activity_loss_fn(layer):
    def fn(y):
        ops = _keras.ops
        with _quiet():
            loss = layer.activity_regularizer(y)
            if y.ndim > 0:
                loss = ops.divide_no_nan(loss, ops.cast(ops.shape(y)[0], dtype=loss.dtype))
        return loss
    fn.__name__ = f"{type(layer).__name__}_activity_regularizer"
    return fn


def _make_is_tensor_arg(original):
    # An eagertape Tensor is a tensor argument of a layer (Keras's JAX backend
    # knows only its own arrays).
    def is_backend_tensor_or_symbolic(x, allow_none=False):
        return isinstance(x, _TensorLike) or original(x, allow_none=allow_none)
    return is_backend_tensor_or_symbolic


def _make_call_spec_init(original):
    # A call on eagertape Tensors is eager, as on TF's EagerTensors: a model's symbolic
    # build that fails is left to the eager call, silently, the model not built by it.
    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.eager = self.eager or all(isinstance(x, _TensorLike) or _keras.ops.is_tensor(x)
                                       for x in self.tensor_arguments_dict.values())
    return __init__


def _make_convert_input(original):
    def convert_input(self, x, autocast, dtype):
        if isinstance(x, _TensorLike):
            if self._should_cast(x, autocast, _keras.backend.standardize_dtype(dtype)):
                from .dtypes import cast
                return cast(x, dtype)
            return x
        return original(self, x, autocast, dtype)
    return convert_input


def _make_operation_call(original):
    # An operation of a functional model's graph (x + 1, ops.concatenate on
    # KerasTensors) run on eagertape values: one recorded op.
    def __call__(self, *args, **kwargs):
        if isinstance(self, _private("Layer")) or not _records(args, kwargs):
            return original(self, *args, **kwargs)
        fn = _op_of(self, "_eagertape_op", lambda: _quiet_fn(functools.partial(original, self)))
        return _logits_call(fn, args, kwargs, jit=False)
    return __call__


def _make_cond_call(original):
    # keras.ops.cond outside Keras's own traces (a LossScaleOptimizer's
    # apply_gradients called eagerly or in a tf.function) is tf.cond, as in TF's
    # Keras: one branch runs eagerly, and traced, the Variables its branches assign
    # are written. (Keras's JAX cond is lax.cond, whose branches' assignments leak.)
    def __call__(self, pred, true_fn, false_fn):
        if (_in_stateless_scope() or _in_symbolic_scope()
                or type(pred).__name__ == "KerasTensor"
                or (isinstance(pred, jax.core.Tracer) and extend.function_trace() is None)):
            return original(self, pred, true_fn, false_fn)
        from ._control_flow import cond
        return cond(pred, true_fn, false_fn)
    return __call__


def _make_ops_is_tensor(original):
    @functools.wraps(original)
    def is_tensor(x):
        return isinstance(x, _TensorLike) or original(x)
    return is_tensor


def _make_layer_new(original):
    # A layer's build creates its weights as TF's init_scope does: with values,
    # outside any function being traced and any tape (a tf.Variable made with
    # tf.random.normal in build, while Keras builds the model symbolically).
    def __new__(cls, *args, **kwargs):
        obj = original(cls, *args, **kwargs)
        build = obj.build

        @functools.wraps(build)
        def build_in_init_scope(*a, **k):
            if _symbolic[0] and _symbolic[1]:   # TF's scratch graph of an eager call:
                return build(*a, **k)     # tf.Variable(a tensor made there) raises
            with init_scope():
                return build(*a, **k)
        obj.build = build_in_init_scope
        return obj
    return __new__


# model.losses: the losses added in the last call, and weight regularization
# computed now from the current weights (a recorded op).
def _make_losses(losses_prop):
    def losses(self):
        if _in_stateless_scope() or _in_symbolic_scope():
            return losses_prop.fget(self)
        out = _call_losses(self)
        if any(getattr(v, "regularizer", None) is not None for v in self.trainable_weights):
            tv, ntv = self.trainable_variables, self.non_trainable_variables
            fn = _weights_op(self, "regularization",
                             lambda t, n: _make_regularization_fn(_keras, self, t, n), tv, ntv)
            out += call(fn, ([_standin(v) for v in tv], [v.value for v in ntv]),
                        name=fn.__name__)
        return out
    return property(losses, doc=losses_prop.__doc__)


def _make_add_loss(add_loss):
    # In a layer's one-op call (raw values) Keras's scope collects the loss; in
    # an op-by-op call the loss is an eagertape Tensor, kept as it is.
    def add_loss_(self, loss):
        if not _in_stateless_scope() and any(
                isinstance(x, _TensorLike) for x in jax.tree_util.tree_leaves(
                    loss, is_leaf=is_tensor_like)):
            self.__dict__.setdefault("_eagertape_losses", []).extend(
                jax.tree_util.tree_leaves(loss, is_leaf=is_tensor_like))
            return
        return add_loss(self, _values_of(loss))
    add_loss_.__doc__ = add_loss.__doc__
    return add_loss_


def _make_loss_call(loss_call):
    # Loss objects: one recorded op over Keras's __call__.
    def loss__call__(self, y_true, y_pred, sample_weight=None):
        if _keras_runs((y_true, y_pred, sample_weight), {}):
            return loss_call(self, y_true, y_pred, sample_weight)
        fn = _loss_fn(self, loss_call)
        return _logits_call(fn, (_as_input(y_true), _as_input(y_pred),
                                 _as_input(sample_weight)), name=fn.__name__)
    return loss__call__


# -- Keras weights read and written as the eagertape Variables they are -------
def _make_value(value):
    # While a tf.function is traced, a Keras variable (a weight, an optimizer's
    # slot or step count) is read as the eagertape Variable it is, so the
    # compiled function takes its value as an input; while a tape records, a
    # trainable one's value is the Variable's read, as TF's `.value()` is.
    def value_(self):
        if not _in_stateless_scope():
            trace = extend.function_trace()
            if trace is not None:
                return trace.read(_standin(self))
            if self.trainable and extend.recording():
                return _standin(self).read_value()
        return value.fget(self)
    return property(value_, doc=value.__doc__)


def _make_train_step(train_step):
    unpack = _private("data_adapter_utils").unpack_x_y_sample_weight

    def train_step_(self, state, data):
        with _keras_numerics.carrying_logits_out():
            return _gather.train_step(self, state, data, train_step, unpack, _sparse_rows())
    train_step_.__doc__ = train_step.__doc__
    return train_step_


def _make_take(take):
    # A variable whose initializer Keras deferred (made in a StatelessScope) is drawn
    # at each read there. TF's Keras's take keeps a variable as it is (a TF tensor
    # type) and reads it twice on an axis (tf.shape for its negative-index fix, then
    # the gather), JAX's once: the extra read draws as TF's does, so a program
    # drawing its initializers from one generator of its own sees TF's later draws.
    def take_(x, indices, axis=None):
        if (axis is not None and _in_stateless_scope()
                and isinstance(x, _keras.Variable) and x._value is None):
            x.value
        return _gather.take(take, x, indices, axis=axis)
    take_.__doc__ = take.__doc__
    return take_


def _make_direct_assign(direct_assign):
    def _direct_assign(self, new):
        c = extend.function_trace()
        if c is not None and not _in_stateless_scope():
            return c.write(_standin(self), new)
        return direct_assign(self, new)
    return _direct_assign


def _make_convert_assigned(convert):
    # What is assigned is a value (TF records no gradient through an
    # assignment): an eagertape Tensor, even one a tape tracks (Keras's
    # `assign_sub` computes `self - value` with the weight read as a Variable
    # while a tape records), gives its array.
    def _convert_to_tensor(self, value, dtype=None):
        return convert(self, _raw(value), dtype=dtype)
    return _convert_to_tensor


def _make_variable_shape(shape):
    def variable_shape(self):
        return extend.TensorShape(shape.__get__(self))
    return property(variable_shape)


# A layer's first call builds it inside a StatelessScope (its state updates
# dropped), where Keras defers a new variable's initializer: each read in the scope
# draws it again, and the scope's exit draws it once more for the stored value.
# TF's Keras draws each initializer once, when the variable is made (the order
# seeded programs see): so here the variable's value is drawn when it is made, and
# every later read and the exit take that one draw.
_building = threading.local()


def _draw_once(variable):
    # A facade initializer (tf.random_normal_initializer) gives a facade Tensor, which
    # Keras's JAX ops (lax.conv_general_dilated) do not take as an array: kept raw.
    value = _values_of(variable._initializer(variable._shape, dtype=variable._dtype))
    variable._initializer = lambda shape, dtype=None: value


def _deferred(variable):
    """A variable Keras made in a StatelessScope (its initializer deferred), in the
    facade's eager build of a layer (``_building``) or in the JAX trainer's build of
    a model in fit/evaluate/predict (its symbolic build, or a call in a
    StatelessScope, which TF's trainer does not run: TF's Keras makes such a model's
    weights in its first step, each drawn once when made): drawn once, now, as a
    value, and that draw kept for every read and the scope's exit. Elsewhere (a
    model's own symbolic build in its first call, which TF's Keras runs too, a read
    in the scope and the exit each drawing) Keras's draws stand, as TF's do."""
    if (variable._value is None and getattr(variable, "_initializer", None) is not None
            and (getattr(_building, "depth", 0) or getattr(_building, "fit_build", 0))):
        made = getattr(_building, "spec_made", None)
        if made is not None:        # kept at the spec's end: _spec_of_call
            made.append(variable)
            return
        with init_scope():
            _draw_once(variable)


def _spec_of_call(fn):
    """In a fit/evaluate/predict build, Keras's compute_output_spec of a layer's own
    ``call`` (Layer._maybe_build of a layer without a build method: a subclassed
    model) is TF's build in its train step, in a StatelessScope of its own: the
    variables made there are drawn at each read inside it (Keras's deferred
    initializers), and once more, kept, at its end (the scope's exit). A context
    (None when it is not such a call, or is inside one) whose exit keeps that draw."""
    owner = getattr(fn, "__self__", None)
    if (not getattr(_building, "fit_build", 0) or getattr(_building, "depth", 0)
            or getattr(_building, "spec_made", None) is not None
            or getattr(fn, "__name__", None) != "call"
            or not isinstance(owner, _keras.layers.Layer)):
        return None
    return _keeping_draws()


@contextlib.contextmanager
def _keeping_draws():
    _building.spec_made = made = []
    try:
        yield
    finally:
        _building.spec_made = None
        with init_scope():
            for variable in made:
                if (variable._value is None
                        and getattr(variable, "_initializer", None) is not None):
                    _draw_once(variable)


def _make_variable_init(init):
    # A variable made while a function is traced (an optimizer's slots, built
    # on its first step) gets a real initial value, not one of the trace.
    # As TF's: made on a function's first trace only (that trace is then made
    # again), refused on a later one.
    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        trace = extend.function_trace()
        if trace is None:
            init(self, *args, **kwargs)
            _deferred(self)
            return
        trace.may_create()
        with extend.init_scope():
            init(self, *args, **kwargs)
            _deferred(self)
        trace.admit(self)
    return __init__


def _make_deferred_initialize(deferred_initialize):
    # A variable made inside a StatelessScope (a layer built by Keras's symbolic run
    # of a model's call, or by its first call) gets its value when the outermost
    # scope exits: while a tf.function is traced, that is the variable's creation as
    # TF sees it, its initializer run in init_scope (a value, stored at once, not
    # an assignment of the trace) and the first trace made again.
    @functools.wraps(deferred_initialize)
    def _deferred_initialize(self):
        trace = extend.function_trace()
        if trace is None:
            return deferred_initialize(self)
        trace.may_create()
        with extend.init_scope():
            deferred_initialize(self)
        trace.admit(self)
    return _deferred_initialize


_OPERATORS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
              "radd", "rsub", "rmul", "rtruediv", "rfloordiv", "rmod", "rpow", "rmatmul",
              "lt", "le", "gt", "ge", "neg", "pos", "abs", "getitem")


# Modules whose expressions on a Keras weight keep Keras's own result (a JAX
# array): Keras's code, and the libraries under it.
_LIBRARY_PREFIXES = ("keras.", "eagertape.", "jax.", "jaxlib.", "optax.", "numpy.")
_LIBRARIES = ("keras", "eagertape", "jax", "numpy")


def _from_program(frame):
    # Whether an operator was written in the user's program (TF's Keras weight
    # gives a tf.Tensor there: ``layer.kernel[:, 0].numpy()``), not in a library.
    name = frame.f_globals.get("__name__", "")
    return not (name in _LIBRARIES or name.startswith(_LIBRARY_PREFIXES))


def _make_operator(original):
    # A Keras weight in an expression with eagertape values, while a tape records,
    # or in the user's own code, is read as the Variable it is: the result is a
    # tf.Tensor, as TF's Keras gives, and the tape sees the read.
    dunder = original.__name__

    def op(self, *other):
        if not _in_stateless_scope() and (
                (other and isinstance(other[0], _TensorLike)) or extend.recording()
                or _from_program(sys._getframe(1))):
            return getattr(_standin(self), dunder)(*other)
        return original(self, *other)
    op.__name__ = dunder
    return op


def _make_shared(KVar):
    class _Shared(KVar):
        """The Keras variable of an eagertape Variable (for Keras optimizers): its
        storage is the eagertape Variable's."""

        def __init__(self, var):
            self.__dict__["_et"] = var
            super().__init__(initializer=var._val, dtype=var.dtype, trainable=var.trainable,
                             name=var.name.split(":")[0])

        @property
        def _value(self):
            return self.__dict__["_et"]._value

        @_value.setter
        def _value(self, new):
            if "_et" in self.__dict__:
                self.__dict__["_et"]._value = new

        _eagertape_variable = property(lambda self: self.__dict__["_et"])
    return _Shared


_tracked_registered = []


def _register_tracked(keras):
    # Keras wraps a list or dict kept on a layer (``self.params = [...]``) in its
    # tracked containers; TF's nests take them as lists and dicts, so do the
    # tapes' (JAX's pytrees).
    tracking = _private("tracking")
    for cls, flat, unflat in (
            (tracking.TrackedList, lambda x: (list(x), None), lambda _, c: list(c)),
            (tracking.TrackedDict, lambda x: (list(x.values()), list(x.keys())),
             lambda keys, c: dict(zip(keys, c)))):
        try:
            jax.tree_util.register_pytree_node(cls, flat, unflat)
            _tracked_registered.append(cls)
        except ValueError:      # registered already (joined before)
            pass


def _make_apply(apply):
    # BaseOptimizer.apply: apply_gradients and minimize come through it.
    def apply_(self, grads, trainable_variables=None):
        grads = list(grads)
        dist = sys.modules.get("eagertape.tf.distribute")
        if dist is not None and dist.defer_apply(
                self, grads, trainable_variables, lambda g, v: apply_(self, g, v)):
            return None     # a replica's step: applied once, summed, after every replica's
        grads = [None if g is None else _grad_value(g) for g in grads]
        if trainable_variables is not None:
            trainable_variables = list(trainable_variables)
            _check_pairs(grads, trainable_variables)
            trainable_variables = [
                _keras_variable(self, v) if isinstance(v, Variable) else v
                for v in trainable_variables]
            _settle_provisional_build(self, trainable_variables)
        if any(type(g) is _sparse_rows() for g in grads):
            from ._keras_sparse import applying
            with applying(self):
                return apply(self, grads, trainable_variables)
        return apply(self, grads, trainable_variables)
    apply_.__doc__ = apply.__doc__
    return apply_


def _settle_provisional_build(optimizer, variables):
    # An optimizer fit's symbolic build made (_make_symbolic_build) is built again,
    # by Keras's apply, where its first variables are not what it was built with,
    # as TF's would be built then: the variables it had before (its iterations and
    # learning rate) stay, its slots are made anew.
    kept = getattr(optimizer, "_eagertape_provisional", None)
    if kept is None:
        return
    object.__setattr__(optimizer, "_eagertape_provisional", None)
    if [id(v) for v in variables] == [id(v) for v in optimizer._trainable_variables]:
        return
    # In place, past Keras's tracking: its tracker adds to this very list.
    optimizer._variables[:] = kept
    optimizer._trainable_variables_indices.clear()
    optimizer.built = False


def _metric_rows():
    # Metric results as eagertape Tensors (TF programs call .numpy() on them).
    import keras
    Metric = keras.metrics.Metric
    rows, seen = [], set()
    for name in dir(keras.metrics):
        cls = getattr(keras.metrics, name)
        if not (isinstance(cls, type) and issubclass(cls, Metric)):
            continue
        for c in cls.__mro__:
            if "result" in c.__dict__ and c not in seen:
                seen.add(c)
                rows.append((f"{c.__module__}:{c.__qualname__}", "result", _tensor_result))
    return rows


def _schedule_rows():
    # A built-in learning-rate schedule called by the program on NumPy or Python
    # steps (to plot it, as TF's overfit_and_underfit tutorial does) gives a
    # tf.Tensor in TF's Keras: the facade's Tensor here. The optimizer's own call
    # (its iterations, a Keras variable) and Keras's traced steps keep Keras's array.
    from keras.optimizers import schedules as m
    return [(f"{cls.__module__}:{cls.__qualname__}", "__call__", _make_schedule_call)
            for name, cls in sorted(vars(m).items())
            if isinstance(cls, type) and issubclass(cls, m.LearningRateSchedule)
            and "__call__" in cls.__dict__]


def _make_schedule_call(schedule_call):
    import keras

    @functools.wraps(schedule_call)
    def __call__(self, step):
        out = schedule_call(self, step)
        if (_in_stateless_scope() or _in_symbolic_scope()
                or isinstance(step, keras.Variable)):
            return out
        return _tensors_of(out)
    return __call__


def _tensor_result(result):
    @functools.wraps(result)
    def wrapped(self, *a, **k):
        out = result(self, *a, **k)
        if _in_stateless_scope():
            return out
        return jax.tree_util.tree_map(lambda x: _wrap(x) if isinstance(x, jax.Array) else x, out,
                                      is_leaf=is_tensor_like)   # Tensors stay whole (pytree nodes)
    return wrapped


# Keras's functions of arrays, wherever a program finds them (keras.ops,
# keras.activations, keras.losses, a layer's `activation`): on eagertape values
# each is one recorded op, as in TF each is a TF op. Internally Keras calls
# them on its own arrays, which they take as before.
_NOT_RECORDED = frozenset({
    # not functions of arrays, or functions of functions (their arguments are
    # Python callables a recorded op cannot take)
    "is_tensor", "shape", "dtype", "convert_to_numpy", "cond", "while_loop", "scan",
    "fori_loop", "map", "switch", "vectorized_map", "associative_scan", "custom_gradient",
    "rematerialized_call", "remat", "unstack", "serialize", "deserialize", "get",
    "stop_gradient", "is_float_dtype", "is_int_dtype", "result_type", "standardize_dtype"})


def _function_rows():
    import importlib
    rows, made = [], {}
    for name in _FUNCTION_MODULES:
        mod = importlib.import_module(name)
        for attr, fn in list(vars(mod).items()):
            if (isinstance(fn, types.FunctionType) and fn.__module__ == name
                    and not attr.startswith("_") and attr not in _NOT_RECORDED):
                made[id(fn)] = (fn, _recorded(fn))
    public = {}
    for name in sorted(sys.modules):
        mod = sys.modules[name]
        if mod is None or not name.startswith(_ALIAS_PREFIXES):
            continue
        for attr, fn in list(vars(mod).items()):
            hit = made.get(id(fn))
            if hit is not None and hit[0] is fn:
                w = hit[1]
                if not name.startswith(_INTERNAL_PREFIXES):    # what programs call
                    w = public.get(id(fn))
                    if w is None:
                        w = public[id(fn)] = _giving_tensors(fn)
                rows.append((name, attr, lambda _, w=w: w))
    for key, fn in list(_private("ALL_OBJECTS_DICT").items()):
        hit = made.get(id(fn))
        if hit is not None and hit[0] is fn:
            rows.append((KERAS_PRIVATE["ALL_OBJECTS_DICT"], key, lambda _, w=hit[1]: w))
    return rows


def _giving_tensors(fn):
    """A public Keras function (keras.ops, keras.activations, keras.losses, as a
    program finds them) that gives the facade's Tensors where TF's Keras gives
    tf.Tensors: called on NumPy or Python values outside Keras's own scopes. Keras's
    code calls the functions of its modules (its private ones), which give its arrays."""
    quiet = _quiet_fn(fn)

    @functools.wraps(fn)
    def public(*args, **kwargs):
        if _records(args, kwargs):
            return _logits_call(quiet, tuple(_as_input(a) for a in args), kwargs,
                                makes=fn.__name__ in _MAKING_LOGITS, jit=False)
        if fn.__name__ == "convert_to_tensor" and _is_text_value(
                args[0] if args else kwargs.get("x")):
            # keras.ops.convert_to_tensor(["a"]): TF's Keras gives a tf.string
            # Tensor (JAX has no string arrays)
            from . import _text
            return _text.constant_text(args[0] if args else kwargs["x"])
        out = fn(*args, **kwargs)
        if _in_stateless_scope() or _in_symbolic_scope():
            return out
        return _tensors_of(out)
    public._eagertape_op = True
    return public


def _is_text_value(x):
    """Whether ``x`` is Python or NumPy text (a str, bytes, or a list or array of them)."""
    if isinstance(x, (str, bytes)):
        return True
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "SU" or (x.dtype.kind == "O" and x.size > 0
                                        and isinstance(x.flat[0], (str, bytes)))
    if isinstance(x, (list, tuple)) and x:
        first = x[0]
        while isinstance(first, (list, tuple)) and first:
            first = first[0]
        return isinstance(first, (str, bytes))
    return False


def _computed(x):
    """Whether ``x`` is a computed JAX array (not a tracer)."""
    return isinstance(x, jax.Array) and not isinstance(x, jax.core.Tracer)


def _tensors_of(tree):
    """``tree`` with its computed JAX arrays as the facade's Tensors."""
    if _computed(tree):
        return _wrap(tree)
    if isinstance(tree, (list, tuple, dict)):
        return jax.tree_util.tree_map(lambda x: _wrap(x) if _computed(x) else x,
                                      tree, is_leaf=is_tensor_like)
    return tree


def _make_setattr_hook(setattr_hook):
    # (Public attributes only: what Keras keeps under a private name is its own.)
    def _setattr_hook(self, name, value):
        name, value = setattr_hook(self, name, value)
        if name[:1] != "_" and _computed(value):
            value = _wrap(value)
        return name, value
    return _setattr_hook


def _recorded(fn):
    quiet = _quiet_fn(fn)

    @functools.wraps(fn)
    def recorded(*args, **kwargs):
        if not _records(args, kwargs):
            return fn(*args, **kwargs)
        return _logits_call(quiet, tuple(_as_input(a) for a in args), kwargs,
                            makes=fn.__name__ in _MAKING_LOGITS, jit=False)
    recorded._eagertape_op = True
    return recorded


def _make_tensorboard_init(init):
    # Keras writes TensorBoard's logs with TensorFlow's tf.summary on every
    # backend: without it, fit fails at its first epoch with "No module named
    # 'tensorflow'", which does not say which callback needs it. Said here, when
    # the callback is made (the packages are looked for, not imported).
    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        import importlib.util
        missing = [m for m in ("tensorflow", "tensorboard") if importlib.util.find_spec(m) is None]
        if missing:
            raise ImportError(
                f"tf.keras.callbacks.TensorBoard writes its logs with TensorFlow's tf.summary "
                f"(Keras does so on every backend), and {' and '.join(missing)} "
                f"{'is' if len(missing) == 1 else 'are'} not installed: pip install "
                "tensorflow-cpu tensorboard (Keras keeps running on JAX), or log with "
                "tf.keras.callbacks.CSVLogger instead")
        return init(self, *args, **kwargs)
    return __init__


# eagertape.tf.saved_model's writer of Keras's SavedModel artifact, set by that
# module (no import from here: it imports this one).
_saved_model_export = None


def _make_model_call(model_call):
    @functools.wraps(model_call)
    def call(self, inputs, *args, **kwargs):
        if _keras_host.marked(inputs):
            split = _keras_host.split_of(self, _layer_call_original)
            kwargs.pop("mask", None)
            if args:
                kwargs["training"] = args[0]
            return split.run(inputs, _keras, _private("operation_fn"), **kwargs)
        return model_call(self, inputs, *args, **kwargs)
    return call


def _make_hosting(method):
    # fit/evaluate/predict of a model with string inputs: the data adapter
    # (join_data) applies the host part to each batch while it runs.

    @functools.wraps(method)
    def hosting(self, *args, **kwargs):
        # (A model these build first, in a StatelessScope, draws each initializer
        # once: _deferred.)
        # The model's own symbolic build there is TF's in the trace of its
        # train/test/predict function (compute_output_spec_: _building.models).
        _building.fit_build = getattr(_building, "fit_build", 0) + 1
        _building.models = getattr(_building, "models", ()) + (self,)
        try:
            return _hosting(self, *args, **kwargs)
        finally:
            _building.fit_build -= 1
            _building.models = _building.models[:-1]

    def _hosting(self, *args, **kwargs):
        split = _keras_host.split_of(self, _layer_call_original)
        if split is None:
            return method(self, *args, **kwargs)
        if method.__name__.endswith("_on_batch"):
            x = kwargs.pop("x") if "x" in kwargs else args[0]
            args = (split.apply(x),) + tuple(args[1:])
            return method(self, *args, **kwargs)
        if hasattr(split, "build_for"):     # (a Sequential: built as TF's trainer builds it)
            split.build_for(method.__name__, args, kwargs)
        with _keras_host.hosting(split):
            return method(self, *args, **kwargs)
    return hosting


def _facade():
    # The facade module (this join is made by its tf.keras, so it is imported):
    # read from sys.modules rather than imported back from here.
    return sys.modules[__name__.rpartition(".")[0]]


def _make_legacy_softmax(original):
    """Keras's legacy ``K.softmax`` (TF's Keras backend function) without its last line,
    which caches the logits on the output (``output._keras_logits``): eagertape's
    Tensor holds no such attribute, and TF's own ops do not read it (only the legacy
    crossentropy's logits path, docs/differences.md)."""
    def softmax(x, axis=-1):
        tf = _facade()
        if x.shape.rank <= 1:
            raise ValueError(
                f"Cannot apply softmax to a tensor that is 1D. Received input: {x}")
        if isinstance(axis, int):
            return tf.nn.softmax(x, axis=axis)
        numerator = tf.exp(x - tf.reduce_max(x, axis=axis, keepdims=True))
        return numerator / tf.reduce_sum(numerator, axis=axis, keepdims=True)
    softmax.__doc__ = original.__doc__
    softmax.__module__ = original.__module__
    softmax.__wrapped__ = original
    return softmax


def _make_labels_to_dataset(labels_to_dataset):
    # Keras imports TensorFlow inside this function (and its maps close over
    # that name): the facade, for the call.
    @functools.wraps(labels_to_dataset)
    def labels_to_dataset_(labels, label_mode, num_classes):
        module_utils = _private("module_utils")
        lazy = module_utils.tensorflow
        module_utils.tensorflow = _facade()
        try:
            return labels_to_dataset(labels, label_mode, num_classes)
        finally:
            module_utils.tensorflow = lazy
    return labels_to_dataset_


def _make_export(export):
    # Keras's SavedModel exporter on JAX imports TensorFlow into this process (for
    # jax2tf), where tf.keras runs Keras on JAX and a GPU's memory is JAX's:
    # eagertape's tf.saved_model writes the same artifact with TensorFlow in a
    # process of its own. The other formats are Keras's.
    @functools.wraps(export)
    def export_(self, filepath, format="tf_saved_model", verbose=None, input_signature=None,
                **kwargs):
        if format != "tf_saved_model" or _saved_model_export is None:
            return export(self, filepath, format=format, verbose=verbose,
                          input_signature=input_signature, **kwargs)
        return _saved_model_export(self, filepath, verbose=verbose,
                                   input_signature=input_signature, **kwargs)
    return export_


def _make_random_crop(transform_images):
    # Keras's RandomCrop crops in training by slicing at its random start
    # (images[:, h:h + height, w:w + width]); traced (a tf.function, fit's step, an
    # export's serve) the start is a tracer, which JAX's slicing refuses ("Slice
    # entries must be static integers") where TF's strided slice takes it: there the
    # crop is a dynamic_slice of the crop's size.
    def transform_images_(self, images, transformation, training=True):
        starts = transformation if isinstance(transformation, (tuple, list)) else ()
        if not (training and len(starts) == 2
                and any(isinstance(t, jax.core.Tracer) for t in starts)):
            return transform_images(self, images, transformation, training=training)
        images = self.backend.cast(images, self.compute_dtype)
        rank = len(images.shape)
        h_axis, w_axis = (rank - 3, rank - 2) if self.data_format == "channels_last" \
            else (rank - 2, rank - 1)
        begin = [jax.numpy.int32(0)] * rank
        begin[h_axis], begin[w_axis] = (jax.numpy.asarray(t, "int32") for t in starts)
        sizes = list(images.shape)
        sizes[h_axis], sizes[w_axis] = self.height, self.width
        return jax.lax.dynamic_slice(images, begin, sizes)
    transform_images_.__doc__ = transform_images.__doc__
    return transform_images_


# Inside Keras's compute_output_spec (TF: a scratch FuncGraph): [depth, refuses]. Its
# outermost entry decides whether a tf.Variable made in a build there from a tensor
# computed there is refused, as TF's ResourceVariable refuses a graph tensor when
# init_scope is eager ('could not be lifted out of a tf.function': a model first
# called eagerly, Keras then builds in the eager call), or made from its value, as a
# tf.function's variable creator lifts the initializer: a model first called in a
# tf.function, or first built by fit/evaluate/predict (Keras's _symbolic_build, or
# predict's call in a StatelessScope, here: _building.models; TF's Keras builds it in
# the trace of its train/test/predict function).
_symbolic = [0, False]


def _make_compute_output_spec(compute_output_spec):
    # Keras infers a layer's output spec by running its call under
    # jax.eval_shape (the functional API, a model's first build): eagertape
    # values among the arguments are given as their shapes, facade ops in a
    # custom call give eagertape Tensors there, which JAX cannot take back as
    # outputs: they are unwrapped, the call runs quietly, and what it writes to
    # Variables is dropped (TF runs it in a scratch graph).
    def compute_output_spec_(fn, *args, **kwargs):
        @functools.wraps(fn)
        def unwrapped(*a, **k):
            depth, refuses = _symbolic
            if not depth:
                owner = getattr(fn, "__self__", fn)
                _symbolic[1] = not (any(owner is m for m in getattr(_building, "models", ()))
                                    or extend.function_trace() is not None)
            _symbolic[0] += 1
            try:
                with _quiet(), extend.scratch_trace():
                    return _values_of(fn(*a, **k))
            finally:
                _symbolic[:] = depth, refuses
        args, kwargs = jax.tree_util.tree_map(_as_spec, (args, kwargs), is_leaf=_leaf)
        keeping = _spec_of_call(fn)
        if keeping is not None:
            with keeping:
                return _spec(unwrapped, args, kwargs)
        return _spec(unwrapped, args, kwargs)

    def _spec(unwrapped, args, kwargs):
        if _symbolic[0]:          # inside another's call: the outermost one retries
            return compute_output_spec(unwrapped, *args, **kwargs)
        try:
            return compute_output_spec(unwrapped, *args, **kwargs)
        except Exception as e:
            if _SYMBOLIC_DIM not in str(e) or not _has_none((args, kwargs)):
                raise
            # JAX's symbolic size met one it cannot prove equal (t[:tf.shape(x)[0]]
            # of a static axis has JAX's size min(n, batch), which JAX does not
            # broadcast with the batch); TF's None sizes meet any size: its shapes
            # are found with sizes, two of them, a size that follows them None.
            try:
                specs = [compute_output_spec(unwrapped, *a, **k) for a, k in
                         (_with_sizes((args, kwargs), n) for n in _SIZES)]
            except Exception:
                raise e from None
            return jax.tree_util.tree_map(_same_or_none, *specs, is_leaf=_is_keras_tensor)

    compute_output_spec_.__doc__ = compute_output_spec.__doc__
    return compute_output_spec_


_SYMBOLIC_DIM = "dynamic_dimension"     # the name Keras's JAX backend gives None sizes


_SIZES = (2, 3)                         # (Keras's symbolic size is >= 2)


def _is_keras_tensor(x):
    return isinstance(x, _keras.KerasTensor)


def _has_none(tree):
    return any(_is_keras_tensor(x) and None in x.shape
               for x in jax.tree_util.tree_leaves(tree, is_leaf=_is_keras_tensor))


def _with_sizes(tree, n):
    def sized(x):
        if _is_keras_tensor(x) and None in x.shape:
            return _keras.KerasTensor(tuple(n if d is None else d for d in x.shape),
                                      dtype=x.dtype, sparse=x.sparse)
        return x
    return jax.tree_util.tree_map(sized, tree, is_leaf=_is_keras_tensor)


def _same_or_none(a, *others):
    if not _is_keras_tensor(a):
        return a
    shape = tuple(d if all(o.shape[i] == d for o in others) else None
                  for i, d in enumerate(a.shape))
    return _keras.KerasTensor(shape, dtype=a.dtype, sparse=a.sparse)


def _make_rnn(rnn):
    # A program's RNN cell computes with facade ops: its step gives eagertape
    # Tensors, which Keras's lax.scan carries as the arrays they hold.
    signature = inspect.signature(rnn)

    @functools.wraps(rnn)
    def rnn_(step_function, *args, **kwargs):
        def step(*a, **k):
            return _values_of(step_function(*a, **k))
        bound = signature.bind(step, *args, **kwargs).arguments
        # TF's backend's rnn (not unrolled) calls the step once on time 0 for its
        # output's shape before its while_loop calls it again; JAX's scan calls it
        # once. That is seen where the cell's weights are deferred (a layer built
        # in a StatelessScope: a subclassed model's first call wrapping an LSTM),
        # whose every read draws their initializer: TF draws each weight once
        # more, so a program's later draws (census time_series's residual LSTM)
        # are TF's.
        if (not bound.get("unroll", False) and _in_stateless_scope()
                and _private("global_state").get_global_attribute("uninitialized_variables")):
            zero = (lambda x: x[0]) if bound.get("time_major", False) else (lambda x: x[:, 0])
            step(_keras.tree.map_structure(zero, bound["inputs"]),
                 tuple(bound["initial_states"]) + tuple(bound.get("constants") or ()))
        return rnn(step, *args, **kwargs)
    return rnn_


def _make_fused_rnn(fused):
    # JAX's fused GRU (Keras's backend.gru, which TF's backend has on cuDNN only)
    # reads each weight once where TF's rnn steps read it twice (_make_rnn): where
    # it ran on deferred weights, they are read once more, so their draws are TF's.
    @functools.wraps(fused)
    def fused_(*args, **kwargs):
        out = fused(*args, **kwargs)
        if _in_stateless_scope():
            bound = inspect.signature(fused).bind(*args, **kwargs).arguments
            for name in ("kernel", "recurrent_kernel", "bias"):
                w = bound.get(name)
                if isinstance(w, _keras.Variable) and w._value is None:
                    w.value
        return out
    return fused_


def _as_spec(x):
    if isinstance(x, _TensorLike) or hasattr(type(x), "_eagertape_variable"):
        x = standin(x)
        return _keras.KerasTensor(tuple(x.shape), dtype=np.dtype(x.dtype).name)
    return x


def _make_compute_loss(compute_loss):
    # compute_loss on eagertape values (a TF-style train_step under a tape): one
    # recorded op over the weights, as a layer call is.
    def compute_loss_(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        args = (x, y, y_pred, sample_weight)
        if _keras_runs(args, {}):
            return compute_loss(self, x, y, y_pred, sample_weight, training=training)
        fn = _op_of(self, "_eagertape_compute_loss",
                    lambda: _make_compute_loss_fn(_keras, self, compute_loss))
        return _logits_call(fn, ([_standin(v) for v in self.trainable_variables],
                                 [v.value for v in self.non_trainable_variables],
                                 _call_losses(self), *(_as_input(a) for a in args),
                                 bool(training)), name=fn.__name__)
    compute_loss_.__doc__ = compute_loss.__doc__
    return compute_loss_


def _make_symbolic_build(symbolic_build):
    # Keras's JAX trainer builds the model symbolically before fit's first step;
    # TF's builds a model with TF-style steps when the step first runs (a GAN
    # whose Model has no call() of its own). Where the symbolic build fails for
    # such a model, it is left to the step, as in TF.
    def _symbolic_build(self, iterator=None, data_batch=None):
        JAXTrainer = _private("JAXTrainer")
        # A PyDataset's first batch was read already, where TF's Keras reads it
        # (join_data's _read_signature_batches): the build takes it rather than
        # reading the epoch's first batch, which TF's Keras does not read here.
        adapter = getattr(iterator, "data_adapter", None)
        first = getattr(adapter, "_eagertape_first_batch", None)
        if data_batch is None and first is not None:
            iterator, data_batch = None, first
            adapter._eagertape_first_batch = None
        # Its KerasTensors are temporaries TF's trainer never makes: the names Keras
        # numbers after them (keras_tensor_N, a later model's input name, which a
        # TFLite signature's runner takes as its argument) stay TF's.
        uids = _private("global_state").get_global_attribute("object_name_uids")
        made = None if uids is None else uids.get("keras_tensor")
        optimizer = getattr(self, "optimizer", None)
        early = (optimizer is not None and not optimizer.built
                 and _tf_style(self, "train_step", JAXTrainer))
        before = list(optimizer.variables) if early else None
        unbuilt = [(layer, layer._tracker.locked) for layer in self._flatten_layers()
                   if not layer.built]
        try:
            built = symbolic_build(self, iterator=iterator, data_batch=data_batch)
            if early and optimizer.built:
                # TF's optimizer is built at its first apply_gradients, with the
                # variables the step gives it (the step may make more than the
                # build did, or apply to some only): until then this build is
                # provisional (_make_apply).
                object.__setattr__(optimizer, "_eagertape_provisional", before)
            return built
        except Exception:
            if any(_tf_style(self, n, JAXTrainer) for n in ("train_step", "test_step")):
                # Nor is the optimizer built here: the step makes the variables the
                # build could not, and TF's optimizer is built at its first
                # apply_gradients, with the variables it is given then (built now,
                # it would know only those made so far: "Unknown variable").
                # The layers the failed build marked built with no state of their
                # own (Keras's default build, the model's first) are unbuilt again:
                # TF's step builds the model whole, symbolically, at its first call,
                # drawing the initial values in that build's order.
                for layer, locked in unbuilt:
                    if layer.built and not layer._trainable_variables + \
                            layer._non_trainable_variables:
                        layer.built, layer._build_shapes_dict = False, None
                        layer._tracker.locked = locked
                return None
            raise
        finally:
            uids = _private("global_state").get_global_attribute("object_name_uids")
            if uids is not None:
                if made is None:
                    uids.pop("keras_tensor", None)
                else:
                    uids["keras_tensor"] = made
    return _symbolic_build


def _make_step_function(make_function):
    # Keras's jitted fit/evaluate/predict steps donate the state they are given:
    # the variables' arrays are deleted by the call. A pending value of fused mode
    # may read them (a model called before `predict`, its output not read yet),
    # so the pending graph runs first.
    def _make_function(self, step_function, concatenate_outputs=False):
        step = make_function(self, step_function, concatenate_outputs=concatenate_outputs)

        def iterator_step(state, iterator):
            extend.run_pending()
            return step(state, iterator)
        return iterator_step
    _make_function.__doc__ = make_function.__doc__
    return _make_function


def _make_compile_metrics_build(build):
    # Keras's JAX trainer builds a model's compile metrics in its symbolic build, before
    # the reset_metrics of fit (evaluate, train_on_batch, test_on_batch); TF's trainer
    # (a model made outside a distribution strategy's scope: _maybe_symbolic_build)
    # builds them at the step's trace, after that reset, which finds them unbuilt and
    # resets nothing. So in TF a metric object passed to compile keeps the state of its
    # last use (another model's fit or evaluate: census imbalanced_data's METRICS list,
    # every make_model()'s default argument) through the first epoch: the reset that
    # follows this symbolic build is skipped (_make_compile_metrics_reset).
    @functools.wraps(build)
    def build_(self, y_true, y_pred):
        built = build(self, y_true, y_pred)
        if _private("in_symbolic_scope")() and getattr(self, "_eagertape_built_at_step", False):
            object.__setattr__(self, "_eagertape_skip_reset", True)
        return built
    return build_


def _make_trainer_init(init):
    # TF's trainer keeps the strategy whose scope the model is made in (None outside
    # any): with one, its fit builds the model and metrics ahead, as Keras's JAX
    # trainer does.
    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        dist = sys.modules.get("eagertape.tf.distribute")
        object.__setattr__(self, "_eagertape_made_in_strategy",
                           dist is not None and dist.has_strategy())
    return __init__


def _make_trainer_compile(compile_):
    @functools.wraps(compile_)
    def compile(self, *args, **kwargs):
        out = compile_(self, *args, **kwargs)
        metrics = self._compile_metrics
        if metrics is not None:
            object.__setattr__(metrics, "_eagertape_built_at_step",
                               not getattr(self, "_eagertape_made_in_strategy", False))
        return out
    return compile


def _make_compile_metrics_reset(reset_state):
    @functools.wraps(reset_state)
    def reset_state_(self):
        if getattr(self, "_eagertape_skip_reset", False):
            object.__setattr__(self, "_eagertape_skip_reset", False)
            return None
        return reset_state(self)
    return reset_state_


def _make_step_jit(jit):
    # Keras jits its fit/evaluate/predict steps where JAX's 64-bit types are off
    # (the user's setting), but a program's layer calling the facade there traces
    # TF's 64-bit values (tf.argmin's int64), which JAX cannot lower with them off
    # (argmin's index iota is made at lowering, truncated to int32: "type of
    # return operand 0 ('tensor<490xi32>') doesn't match"). As a recorded layer
    # call is run (``_quiet`` inside ``call``'s 64-bit scope), the step's Keras
    # code is traced with them off and the step is lowered and run with them on;
    # its NumPy inputs are made arrays first, with them off, as Keras's jit makes
    # them (int64 labels are int32).
    # The tf.Variables a program's layers read or assign in ``call`` are the
    # step's inputs and outputs (``extend.variables_threaded``), as in TF's
    # traced train_function: read at each step (a callback's assign is seen),
    # written back after it (a counter counts).
    @functools.wraps(jit)
    def jit_(fun, *args, **kwargs):
        @functools.wraps(fun)
        def traced(*a, **k):
            with jax.enable_x64(False):
                return fun(*a, **k)
        run = extend.x64(extend.variables_threaded(
            traced, lambda f: jit(f, *args, **kwargs)))

        @functools.wraps(fun)
        def step(*a, **k):
            with jax.enable_x64(False):
                a, k = jax.tree_util.tree_map(_device_array, (a, k))
            return run(*a, **k)
        return step
    return jit_


def _device_array(x):
    return jax.numpy.asarray(x) if isinstance(x, (np.ndarray, np.generic, int, float)) else x


def _make_make_function(original, name):
    JAXTrainer = _private("JAXTrainer")
    attr = f"{name[:-len('_step')]}_function"

    def make_function(self, force=False):
        if not _tf_style(self, name, JAXTrainer):
            return original(self, force)
        if getattr(self, attr) is not None and not force:
            return getattr(self, attr)
        setattr(self, attr, _tf_style_function(self, name))
        return getattr(self, attr)
    make_function.__doc__ = original.__doc__
    return make_function


def _compiled_loss(self, y, y_pred, sample_weight=None, regularization_losses=None):
    """TF's Keras: deprecated for ``compute_loss``, which adds ``model.losses``
    itself (``regularization_losses`` is not used, as in TF's Keras)."""
    import warnings
    warnings.warn("`model.compiled_loss()` is deprecated. Instead, use "
                  "`model.compute_loss(x, y, y_pred, sample_weight, training)`.", stacklevel=2)
    return self.compute_loss(x=None, y=y, y_pred=y_pred, sample_weight=sample_weight)


def _compiled_metrics(self):
    model = self

    class DeprecatedCompiledMetric:
        def update_state(_, y, y_pred, sample_weight=None):
            return model._compiled_metrics_update_state(y, y_pred, sample_weight=sample_weight)
    return DeprecatedCompiledMetric()


def _compiled_metrics_update_state(self, y, y_pred, sample_weight=None):
    import warnings
    warnings.warn("`model.compiled_metrics()` is deprecated. Instead, use e.g.:\n```\n"
                  "for metric in self.metrics:\n    metric.update_state(y, y_pred)\n```\n",
                  stacklevel=2)
    for metric in self.metrics:
        if isinstance(metric, _keras.metrics.Mean):
            metric.update_state(y_pred, sample_weight=sample_weight)
        else:
            metric.update_state(y, y_pred, sample_weight=sample_weight)


class _DefaultDistributionStrategy:
    """``model.distribute_strategy`` of a program that made no strategy: TF's
    default strategy (one replica, everything run as it is)."""

    num_replicas_in_sync = 1
    extended = None

    def scope(self):
        return contextlib.nullcontext()

    def run(self, fn, args=(), kwargs=None):
        return fn(*args, **(kwargs or {}))

    def reduce(self, reduce_op, value, axis=None):
        if axis is None:
            return value
        from .. import numpy as enp
        return (enp.sum if str(reduce_op).upper().endswith("SUM") else enp.mean)(value, axis=axis)

    def experimental_distribute_dataset(self, dataset, options=None):
        return dataset


_DEFAULT_STRATEGY = _DefaultDistributionStrategy()


def _call_losses(layer):
    """The losses added (add_loss, activity regularizers) in the last recorded
    calls of a layer and its sublayers."""
    out = []
    for sub in layer._flatten_layers():
        out += sub.__dict__.get("_eagertape_losses", ())
    return out


_Shared = None
_loss_fns = Table("keras losses", 1024)     # (class, config) -> op function


def _loss_fn(loss, loss_call):
    # A loss object is its class and config (Keras losses keep no state): one
    # op function for all equal ones, so `MeanSquaredError()(y, p)` written
    # inline in a training step compiles once, not once per step.
    try:
        key = (type(loss), repr(sorted(loss.get_config().items())))
    except Exception:       # no config (a custom loss): the object itself
        key = None
    fn = _loss_fns.get(key) if key is not None else loss.__dict__.get("_eagertape_call")
    if fn is None:
        def fn(y_true, y_pred, sample_weight):
            with _quiet():
                return loss_call(loss, y_true, y_pred, sample_weight)
        fn.__name__ = type(loss).__name__
        if key is not None:
            _loss_fns.put(key, fn)
        else:
            loss.__dict__["_eagertape_call"] = fn
    return fn


def _make_regularization_fn(keras, layer, tv, ntv):
    def fn(trainable, non_trainable):
        mapping = list(zip(tv, trainable)) + list(zip(ntv, non_trainable))
        with _quiet(), keras.StatelessScope(state_mapping=mapping):
            # Of every weight under the layer (trainable_weights is recursive).
            return layer._get_regularization_losses()
    fn.__name__ = f"{type(layer).__name__}_regularization"
    return fn


def _sparse_rows():
    from ._keras_sparse import Rows
    return Rows


def _grad_value(g):
    # A tf.IndexedSlices gradient is applied row by row, as TF's Keras applies it.
    from ._indexed_slices import IndexedSlices
    if isinstance(g, IndexedSlices):
        return _sparse_rows()(g.values._value, g.indices._value, g._static_shape())
    return _raw(g)


def _check_pairs(grads, variables):
    # Checked before any variable is updated: Keras updates them one by one, and
    # a bad pair found on the way would leave the others half-stepped.
    for i, (g, v) in enumerate(zip(grads, variables)):
        e = tf_variable_error(v, f"argument `grads_and_vars`, pair {i}")
        if e is not None:
            raise e
        if g is not None and tuple(np.shape(g)) != tuple(v.shape):
            name = getattr(v, "path", None) or getattr(v, "name", "")
            raise ValueError(
                f"argument `grads_and_vars`, pair {i}: the gradient has shape "
                f"{tuple(np.shape(g))} but its variable {name!r} has shape {tuple(v.shape)}; "
                "pair each gradient with its own variable, in the order they were given to "
                "tape.gradient (zip(grads, model.trainable_variables)). No variable was "
                "updated.")


# -- TF-style train_step(self, data) under fit -------------------------------
# Keras's JAX trainer calls ``train_step(state, data)``, a pure function of the
# state. TF's guide "Customizing what happens in fit()" overrides
# ``train_step(self, data)`` with a GradientTape that updates the variables in
# place. Such a step runs as TF runs it: in a ``tf.function`` (eagertape's), or
# eagerly with ``run_eagerly=True``; fit's state goes into the variables before
# it and is read back after it, so fit's loop, callbacks and sync see it.
_STATE = {"train_step": ("trainable_variables", "non_trainable_variables",
                         "optimizer_variables", "metrics_variables"),
          "test_step": ("trainable_variables", "non_trainable_variables", "metrics_variables"),
          "predict_step": ("trainable_variables", "non_trainable_variables")}


def _class_weighted(class_weight, batch):
    # fit(dataset, class_weight=...): each batch's (x, y) with y's class weights as its
    # sample weights, as TF's Keras maps a tf.data pipeline (make_class_weight_map_fn)
    x, y, sw = _private("data_adapter_utils").unpack_x_y_sample_weight(batch)
    if sw is not None:
        raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
    if isinstance(y, (dict, list, tuple)):
        raise ValueError("`class_weight` is only supported for Models with a single output.")
    table = np.asarray([class_weight.get(int(c), 1.0)
                        for c in range(max(class_weight.keys()) + 1)], dtype="float32")
    labels = np.asarray(y)
    if labels.ndim >= 2:
        classes = np.argmax(labels, axis=-1) if labels.shape[-1] > 1 else \
            np.round(np.squeeze(labels, axis=-1))
    else:
        classes = np.round(labels)
    return x, y, table[classes.astype("int32")]


_dataset = None         # the Dataset class join_data joins (kept across unjoin)
_data_joined = False


def join_data(Dataset):
    """``fit``/``evaluate``/``predict`` take a ``Dataset`` (eagertape.tf's
    ``tf.data.Dataset``, which ``eagertape.tf`` passes when it builds ``tf.keras``)
    as TF's Keras takes TF's: batches in the dataset's order, a new pass (a new
    shuffle) every epoch. Once, after ``load()`` (and again by ``load()`` after
    ``unjoin``)."""
    global _dataset, _data_joined
    _dataset = Dataset
    if _data_joined:
        return
    _data_joined = True
    data_adapters = _private("data_adapters")
    data_adapter_utils = _private("data_adapter_utils")
    DataAdapter = _private("DataAdapter")

    class DatasetAdapter(DataAdapter):
        def __init__(self, dataset, split=None, class_weight=None):
            self.dataset, self.split, self.class_weight = dataset, split, class_weight

        def get_numpy_iterator(self):
            return data_adapter_utils.get_numpy_iterator(self._batches())

        def get_jax_iterator(self):
            return data_adapter_utils.get_jax_iterator(self._batches())

        def _batches(self):
            # (SparseTensor batches as JAX's BCOO: tf/data.py's _keras_inputs)
            from .data import _keras_inputs
            batches = self.dataset.as_numpy_iterator()
            if self.split is not None:      # a model's string layers, on the host
                from ._keras_host import apply_to_element
                batches = (apply_to_element(self.split, b) for b in batches)
            if self.class_weight is not None:
                batches = map(functools.partial(_class_weighted, self.class_weight), batches)
            return map(_keras_inputs, batches)

        def get_tf_dataset(self):
            raise NotImplementedError("eagertape's tf.data runs on NumPy, not TensorFlow")

        def get_torch_dataloader(self):
            raise NotImplementedError("eagertape's tf.data runs on NumPy, not torch")

        @property
        def num_batches(self):
            n = self.dataset._cardinality
            return n if n >= 0 else None

        @property
        def batch_size(self):
            return None

        @property
        def has_partial_batch(self):
            return None

        @property
        def partial_batch_size(self):
            return None

    get_data_adapter = data_adapters.get_data_adapter
    own = data_adapters.__dict__.get("get_data_adapter", _ABSENT)

    def get_data_adapter_(x, y=None, sample_weight=None, *args, **kwargs):
        if isinstance(x, Dataset):
            for arg, what in ((y, "y"), (sample_weight, "sample_weight")):
                if arg is not None:
                    raise ValueError(f"argument `{what}` is not accepted with a tf.data."
                                     "Dataset as `x`: the dataset yields (x, y[, weights])")
            class_weight = kwargs.get("class_weight", args[3] if len(args) > 3 else None)
            return DatasetAdapter(x, _keras_host.active(), class_weight)
        from .data import _keras_inputs
        split = _keras_host.active()
        if split is not None and x is not None:
            x = split.apply(x)
        adapter = get_data_adapter(_keras_inputs(x), y, sample_weight, *args, **kwargs)
        if isinstance(adapter, PyDatasetAdapter):
            _read_signature_batches(adapter)
        return adapter

    PyDatasetAdapter = _private("PyDatasetAdapter")

    def _read_signature_batches(adapter):
        # TF's Keras makes a PyDataset's tf.data signature when fit/evaluate/
        # predict starts, from its batches 0 and 1 (read and dropped), then reads
        # every batch; on JAX nothing reads them, and fit's symbolic build reads
        # the first batch of a (shuffled) epoch instead. A __getitem__ that draws
        # random numbers, or counts its calls, sees TF's order only if these reads
        # are TF's: made here, and the first is what the symbolic build builds on
        # (see _make_symbolic_build).
        count = data_adapter_utils.NUM_BATCHES_FOR_TENSOR_SPEC
        if adapter.num_batches is not None:
            count = min(count, adapter.num_batches)
        batches = [adapter._standardize_batch(adapter.py_dataset[i]) for i in range(count)]
        if not batches:
            raise ValueError("The PyDataset has length 0")
        adapter._eagertape_first_batch = next(iter(
            data_adapter_utils.get_jax_iterator(iter(batches[:1]))))

    _patch(data_adapters, "get_data_adapter", get_data_adapter_, own)


def _tf_style(model, name, jax_trainer):
    """Whether ``model.<name>`` is a TF-style override taking ``(self, data)``."""
    import inspect
    fn = getattr(type(model), name)
    if fn is getattr(jax_trainer, name):
        return False
    positional = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) == 2


def _state_variables(model, name):
    lists = {"trainable_variables": lambda: model.trainable_variables,
             "non_trainable_variables": lambda: model.non_trainable_variables,
             "optimizer_variables": lambda: model.optimizer.variables,
             "metrics_variables": lambda: model.metrics_variables}
    return [lists[k]() for k in _STATE[name]]


def _tf_style_function(model, name):
    from .. import function
    from ..extend import constant
    step = getattr(model, name)
    if not model.run_eagerly:
        step = function(step)

    def tensor(x):
        return constant(x) if isinstance(x, (np.ndarray, jax.Array)) else x

    def one_step(state, data):
        for variables, values in zip(_state_variables(model, name), state):
            for v, value in zip(variables, values):
                v._value = value      # fit took them out of the variables
        # TF's Keras makes a tf.data pipeline of fit's data, its lists tuples
        # (fit([a, b]) gives the step ((a, b),)).
        data = _keras.tree.lists_to_tuples(data)
        out = step(jax.tree_util.tree_map(tensor, data, is_leaf=is_tensor_like))
        out = _values_of(out)
        return out, tuple([v.value for v in vs] for vs in _state_variables(model, name))
    return model._make_function(one_step, concatenate_outputs=name == "predict_step")


def _make_compute_loss_fn(keras, model, original):
    def fn(trainable, non_trainable, extra_losses, x, y, y_pred, sample_weight, training):
        mapping = list(zip(model.trainable_variables, trainable)) + list(
            zip(model.non_trainable_variables, non_trainable))
        with _quiet(), keras.StatelessScope(state_mapping=mapping):
            # model.losses inside: the losses of the last call, and weight
            # regularization of these weight values.
            saved = model._losses_override
            model._losses_override = list(extra_losses) + model._get_regularization_losses()
            try:
                return original(model, x, y, y_pred, sample_weight, training=training)
            finally:
                model._losses_override = saved
    fn.__name__ = f"{type(model).__name__}_compute_loss"
    return fn



# -- the tf.keras namespace -------------------------------------------------
# Modules of functions on arrays: their functions become recorded ops.
_FUNCTIONAL = ("ops", "activations", "losses", "random", "metrics", "backend", "ops.nn",
               "ops.numpy", "ops.linalg", "ops.image")


_namespaces = weakref.WeakSet()


class _Namespace(types.ModuleType):
    """A Keras module seen from the facade: classes and submodules as they are,
    functions of arrays as recorded ops."""

    def __init__(self, module, path):
        super().__init__(f"tf.keras{'.' + path if path else ''}")
        self._module, self._path, self._cached = module, path, set()
        self.__doc__ = module.__doc__
        _namespaces.add(self)

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_module", "_path", "_cached"):
            raise AttributeError(name)
        load()          # joined (again, after unjoin)
        obj = getattr(self._module, name)
        path = f"{self._path}.{name}" if self._path else name
        if isinstance(obj, types.ModuleType):
            obj = _Namespace(obj, path)
        elif path.startswith("applications.") and callable(obj) and name[:1].isupper():
            obj = _downloading(obj)
        elif (self._path in _FUNCTIONAL and callable(obj) and not isinstance(obj, type)
              and not name.startswith("get") and name not in _NOT_OPS
              and not getattr(obj, "_eagertape_op", False)):
            obj = (_legacy_backend_fn(obj) if obj.__module__ == LEGACY_BACKEND
                   else _op(obj))
        setattr(self, name, obj)
        self._cached.add(name)
        return obj

    def __dir__(self):
        return dir(self._module)


def _downloading(build):
    """An application constructor whose failed download of pretrained weights
    (Keras raises a bare Exception) is a ConnectionError that says what to do."""
    @functools.wraps(build)
    def constructor(*args, **kwargs):
        try:
            return build(*args, **kwargs)
        except Exception as e:
            msg = str(e)
            if not msg.startswith("URL fetch failure on "):
                raise
            url = msg[len("URL fetch failure on "):].split(": ", 1)[0]
            raise ConnectionError(
                f"argument `weights`: {build.__name__}'s pretrained weights are downloaded "
                f"from {url}, and that failed ({msg.split(': ', 1)[-1]}). On a machine "
                "without a network, download the file elsewhere and pass its path as "
                "`weights=`, or pass `weights=None` for random weights.") from e
    return constructor


# Functions of these modules that are not functions of arrays.
_NOT_OPS = frozenset({"serialize", "deserialize", "floatx", "set_floatx", "epsilon",
                      "set_epsilon", "image_data_format", "set_image_data_format",
                      "clear_session", "backend", "is_keras_tensor", "standardize_dtype",
                      "result_type", "is_float_dtype", "is_int_dtype", "name_scope",
                      "device", "SeedGenerator", "shape", "dtype", "is_tensor",
                      "cond"})     # (tf.cond, as TF's Keras's: _make_cond_call)


def _op(fn):
    @functools.wraps(fn)
    def recorded(*args, **kwargs):
        leaves = jax.tree_util.tree_leaves((args, kwargs), is_leaf=is_tensor_like)
        if any(_foreign_leaf(x) for x in leaves):
            return fn(*args, **kwargs)
        return call(_quiet_fn(fn), tuple(_as_input(a) for a in args), kwargs, jit=False)
    return recorded


def _legacy_backend_fn(fn):
    """A function of Keras's legacy backend (``tf.keras.backend.sum`` ...), written in
    TensorFlow (its ``tf`` is the facade: the join table): it reads TF's tensor API
    (``x.shape.rank``, ``x.dtype.base_dtype``), so the JAX values a layer's call gets
    inside Keras's traces are given to it as the facade's Tensors, as the facade's own
    ops make of them."""
    @functools.wraps(fn)
    def legacy(*args, **kwargs):
        tensor = _facade().convert_to_tensor
        args, kwargs = jax.tree_util.tree_map(
            lambda x: tensor(x) if isinstance(x, jax.Array) else x, (args, kwargs),
            is_leaf=is_tensor_like)
        return fn(*args, **kwargs)
    return legacy


@functools.lru_cache(maxsize=None)
def _quiet_fn(fn):
    @functools.wraps(fn)
    def quiet(*args, **kwargs):
        with _quiet():
            return fn(*args, **kwargs)
    return quiet


def namespace():
    """``tf.keras``: Keras on JAX, joined to the tapes. TensorFlow's ``tf.keras`` is
    Keras's TF-compatible namespace (``keras._tf_keras.keras``: the same objects,
    plus the names ``tf.keras`` always had, such as ``losses.mse``); so is this."""
    keras = load()
    try:
        from keras._tf_keras import keras as tf_keras
    except ImportError:      # a Keras without it: its own namespace
        tf_keras = keras
    return _Namespace(tf_keras, "")
