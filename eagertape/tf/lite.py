"""``tf.lite``: TensorFlow Lite models from eagertape's models, and TF's interpreter.

``TFLiteConverter.convert()`` writes the model as a SavedModel with
``tf.saved_model.save``'s writer (TensorFlow in a process of its own, each function
jax2tf's ``XlaCallModule`` op holding its StableHLO), then runs TF's own
``tf.lite.TFLiteConverter.from_saved_model(...).convert()`` on it in another
TensorFlow process (``_lite_tf``), which legalizes the StableHLO to TFLite's builtin
ops; the flatbuffer's bytes come back. The program's process never imports
TensorFlow (its Keras runs on JAX). ``Interpreter`` is LiteRT's
(``ai_edge_litert``, TF's TFLite interpreter published without TF).
"""
import enum
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from .. import Function as _Function
from . import _keras, _lite_tf, saved_model as _saved_model
from ._util import _Unsupported

__all__ = ["TFLiteConverter", "Optimize", "OpsSet", "TargetSpec",  # and Interpreter (lazy)
           "RepresentativeDataset"]


class Optimize(enum.Enum):
    """The optimizations a converter applies (TF's ``tf.lite.Optimize``).

    >>> import eagertape.tf as tf
    >>> tf.lite.Optimize.DEFAULT.value
    'DEFAULT'
    """
    DEFAULT = "DEFAULT"
    OPTIMIZE_FOR_SIZE = "OPTIMIZE_FOR_SIZE"
    OPTIMIZE_FOR_LATENCY = "OPTIMIZE_FOR_LATENCY"
    EXPERIMENTAL_SPARSITY = "EXPERIMENTAL_SPARSITY"


class OpsSet(enum.Enum):
    """The op sets a converted model may use (TF's ``tf.lite.OpsSet``).

    >>> import eagertape.tf as tf
    >>> tf.lite.OpsSet.SELECT_TF_OPS.value
    'SELECT_TF_OPS'
    """
    TFLITE_BUILTINS = "TFLITE_BUILTINS"
    SELECT_TF_OPS = "SELECT_TF_OPS"
    TFLITE_BUILTINS_INT8 = "TFLITE_BUILTINS_INT8"
    EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8 = \
        "EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8"
    EXPERIMENTAL_STABLEHLO_OPS = "EXPERIMENTAL_STABLEHLO_OPS"


class TargetSpec:
    """The target of a conversion: ``supported_ops`` (a set of ``OpsSet``) and
    ``supported_types`` (a set of dtypes), as TF's ``tf.lite.TargetSpec``.

    >>> import eagertape.tf as tf
    >>> tf.lite.TargetSpec().supported_ops == {tf.lite.OpsSet.TFLITE_BUILTINS}
    True
    """

    def __init__(self, supported_ops=None, supported_types=None,
                 experimental_select_user_tf_ops=None, experimental_supported_backends=None):
        self.supported_ops = {OpsSet.TFLITE_BUILTINS} if supported_ops is None \
            else supported_ops
        self.supported_types = set() if supported_types is None else supported_types
        self.experimental_select_user_tf_ops = experimental_select_user_tf_ops or set()
        self.experimental_supported_backends = experimental_supported_backends


class RepresentativeDataset:
    """A generator function of calibration samples (TF's
    ``tf.lite.RepresentativeDataset``); a converter also takes the function itself.

    >>> import eagertape.tf as tf
    >>> def samples():
    ...     yield [tf.ones([1, 2])]
    >>> tf.lite.RepresentativeDataset(samples).input_gen is samples
    True
    """

    def __init__(self, input_gen):
        self.input_gen = input_gen


class ConverterError(Exception):
    """TF's converter refused the model; the message is TF's."""


# Boolean settings passed to TF's converter as they are.
_FLAGS = ("allow_custom_ops", "exclude_conversion_metadata", "experimental_new_converter",
          "experimental_new_quantizer", "experimental_enable_resource_variables",
          "serialize_debug_metadata")


def _tensorflow_missing():
    return ImportError(
        "tf.lite.TFLiteConverter converts with TensorFlow's own converter (in a separate "
        "process, from a SavedModel written through jax.experimental.jax2tf), and "
        "tensorflow is not installed: pip install 'eagertape[saved_model]' (or "
        "tensorflow-cpu). A .tflite file made elsewhere runs without TensorFlow in "
        "tf.lite.Interpreter (pip install 'eagertape[lite]')")


class TFLiteConverter:
    """Converts a Keras model, a SavedModel or concrete functions to a TensorFlow Lite
    flatbuffer with TensorFlow's own converter (see the module's docstring); made by
    ``from_keras_model``, ``from_saved_model`` or ``from_concrete_functions``. Set
    ``optimizations``, ``target_spec``, ``representative_dataset`` (drawn to its end
    here and replayed to TF), ``inference_input_type``/``inference_output_type``
    and TF's boolean flags before ``convert()``. Needs TensorFlow installed.

    >>> import eagertape.tf as tf
    >>> model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    >>> flatbuffer = tf.lite.TFLiteConverter.from_keras_model(model).convert()
    >>> flatbuffer[4:8]
    b'TFL3'
    """

    def __init__(self, source, what):
        self._source, self._what = source, what
        self.optimizations = set()
        self.representative_dataset = None
        self.target_spec = TargetSpec()
        self.inference_input_type = np.dtype("float32")
        self.inference_output_type = np.dtype("float32")
        self.allow_custom_ops = False
        self.exclude_conversion_metadata = False
        self.experimental_new_converter = True
        self.experimental_new_quantizer = True
        self.experimental_enable_resource_variables = True
        self.serialize_debug_metadata = False

    @classmethod
    def from_keras_model(cls, model):
        """A converter of ``model`` called in inference (``training=False``) on its
        inputs, TF's signature ``serving_default``."""
        keras = _keras._keras
        if keras is None or not isinstance(model, keras.layers.Layer):
            raise ValueError("argument `model` must be a Keras model, got a "
                             f"{type(model).__name__}")
        return cls(model, "keras")

    @classmethod
    def from_saved_model(cls, saved_model_dir, signature_keys=None, tags=None):
        """A converter of the SavedModel in ``saved_model_dir`` (eagertape's or
        TF's), its signatures ``signature_keys`` (by default all)."""
        saved_model_dir = os.fspath(saved_model_dir)
        if not _saved_model.contains_saved_model(saved_model_dir):
            raise OSError(f"SavedModel file does not exist at: {saved_model_dir}")
        if signature_keys is not None and (isinstance(signature_keys, str) or not all(
                isinstance(k, str) for k in signature_keys)):
            raise ValueError("argument `signature_keys` must be a list of signature keys, "
                             f"got {signature_keys!r}")
        return cls((saved_model_dir, signature_keys, tags), "saved_model")

    @classmethod
    def from_concrete_functions(cls, funcs, trackable_obj=None):
        """A converter of concrete functions (``f.get_concrete_function(...)``): one
        is the signature ``serving_default``, several are each by its name."""
        funcs = list(funcs)
        for f in funcs:
            concrete = _saved_model._is_function(f) and not isinstance(f, _Function)
            if not concrete or _saved_model._signature_of(f) is None:
                message = "This function takes in a list of ConcreteFunction."
                if isinstance(f, _Function):
                    message += (" To get the ConcreteFunction from a Function, call "
                                "get_concrete_function.")
                raise ValueError(f"argument `funcs`: {message} Got {f!r}")
        if not funcs:
            raise ValueError("argument `funcs`: No ConcreteFunction is specified.")
        return cls((funcs, trackable_obj), "concrete")

    def convert(self):
        """The TensorFlow Lite model: its flatbuffer's bytes."""
        if importlib.util.find_spec("tensorflow") is None:
            raise _tensorflow_missing()
        work = tempfile.mkdtemp(prefix="eagertape-lite-")
        try:
            settings = self._settings(work)
            if self._what == "saved_model":
                folder, settings["signature_keys"], tags = self._source
                settings["tags"] = None if tags is None else sorted(tags)
            else:
                folder = os.path.join(work, "saved_model")
                settings["signature_keys"] = self._write(folder)
            with open(os.path.join(work, "settings.json"), "w") as f:
                json.dump(settings, f)
            out = os.path.join(work, "model.tflite")
            _run(folder, os.path.join(work, "settings.json"), out)
            with open(out, "rb") as f:
                return f.read()
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _write(self, folder):
        if self._what == "keras":
            return _write_keras(self._source, folder)
        funcs, root = self._source
        export = _saved_model._Export(root, gradients=False)
        if len(funcs) == 1:
            keys = {_saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY: export.function(
                funcs[0], getattr(funcs[0], "__name__", "serving_default"))}
        else:
            names = [getattr(f, "__name__", f"function_{i}") for i, f in enumerate(funcs)]
            keys = {n: export.function(f, n) for n, f in zip(names, funcs)}
        lists = None
        if root is None:
            # TF converts concrete functions without their object from a frozen
            # graph; here the Variables they read are held by the SavedModel's root.
            lists = {"variables": list(range(len(export.variables)))}
        _saved_model._write(export, folder, keys, lists)
        return sorted(keys)

    def _settings(self, work):
        def names(values, enum_type, argument):
            out = []
            for v in values or ():
                v = getattr(v, "value", v)
                if v not in enum_type.__members__:
                    raise ValueError(f"argument `{argument}`: {v!r} is not one of "
                                     f"{sorted(enum_type.__members__)}")
                out.append(v)
            return sorted(set(out))

        def dtype(x, argument):
            if x is None:
                return None
            try:
                return np.dtype(getattr(x, "as_numpy_dtype", x)).name
            except TypeError:
                raise ValueError(f"argument `{argument}` must be a dtype, got {x!r}") from None
        spec = self.target_spec
        settings = {
            "optimizations": names(self.optimizations, Optimize, "optimizations"),
            "supported_ops": names(spec.supported_ops, OpsSet, "target_spec.supported_ops"),
            "supported_types": [dtype(t, "target_spec.supported_types")
                                for t in spec.supported_types or ()],
            "inference_input_type": dtype(self.inference_input_type, "inference_input_type"),
            "inference_output_type": dtype(self.inference_output_type,
                                           "inference_output_type"),
            "flags": {n: bool(getattr(self, n)) for n in _FLAGS},
        }
        if self.representative_dataset is not None:
            settings["representative_dataset"] = _samples(self.representative_dataset, work)
        return settings


def _samples(dataset, work):
    gen = getattr(dataset, "input_gen", dataset)
    if not callable(gen):
        raise ValueError("argument `representative_dataset` must be a generator function, "
                         f"got {dataset!r}")
    arrays, samples = {}, []
    for sample in gen():
        if isinstance(sample, dict):
            keys, values = list(sample), list(sample.values())
        else:
            keys, values = "list", list(sample)
        entry = []
        for v in values:
            name = f"a{len(arrays)}"
            arrays[name] = np.asarray(v)
            entry.append(name)
        samples.append([keys, entry])
    path = os.path.join(work, "representative.npz")
    np.savez(path, **arrays)
    return {"file": path, "samples": samples}


def _write_keras(model, folder):
    # As TF's converter on Keras 3 (its ExportArchive): the model called with
    # training=False on TensorSpecs named after a functional model's inputs, else on
    # the shapes it was built on.
    from ._spec import TensorSpec
    keras = _keras._keras
    functional = (_keras._private("Functional"), _keras._private("Sequential"))
    if isinstance(model, functional):
        inputs = model.inputs
    else:
        inputs = _keras._private("get_input_signature")(model)
        if not inputs:
            raise ValueError("The model provided has never been called. It must be "
                             "called at least once before export.")

    def spec(x):
        return TensorSpec([None if d is None else int(d) for d in x.shape],
                          np.dtype(getattr(x, "dtype", None) or "float32"),
                          getattr(x, "name", None))
    signature = keras.tree.map_structure(spec, list(inputs))
    if isinstance(model, functional) and len(signature) > 1:
        signature = [signature]

    def serve(*args):
        return model(*args, training=False)
    export = _saved_model._Export(None, gradients=False)
    fn = export.function(_saved_model._function_of(serve), "serve", (tuple(signature), {}))
    export.objects[0]["functions"].append(["serve", fn])
    tv = [export.variable(v) for v in model.trainable_variables]
    nv = [export.variable(v) for v in model.non_trainable_variables]
    lists = {"variables": tv + nv, "trainable_variables": tv, "non_trainable_variables": nv}
    _saved_model._write(export, folder, {"serve": fn, "serving_default": fn}, lists)
    return [_saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY]


def _run(folder, settings, out):
    with open(_lite_tf.__file__) as f:
        source = f.read()
    env = dict(os.environ)
    env.pop("KERAS_BACKEND", None)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    p = subprocess.run([sys.executable, "-P", "-c", source, folder, settings, out],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        lines = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
        if any("No module named 'tensorflow'" in ln for ln in lines[-3:]):
            raise _tensorflow_missing()
        # TF's own error (its converter's, or its argument checks'), last lines first
        # as TF raises them.
        raise ConverterError("TensorFlow's TFLite converter failed:\n" + "\n".join(lines[-25:]))


_unsupported = _Unsupported("tf.lite")


def __getattr__(name):
    if name == "Interpreter":
        try:
            from ai_edge_litert.interpreter import Interpreter
        except ImportError:
            raise ImportError(
                "tf.lite.Interpreter is LiteRT's interpreter (TF's TFLite interpreter "
                "published without TensorFlow), and ai-edge-litert is not installed: pip "
                "install 'eagertape[lite]' (or ai-edge-litert)") from None
        return Interpreter
    return _unsupported(name)
