"""TF 1's SavedModels of a graph (``tf.compat.v1.saved_model``): ``Builder``,
``simple_save``, the signature helpers and ``load`` into a Session.

A TF 1 SavedModel is written as eagertape's TF 2 SavedModel (``tf.saved_model.save``,
eagertape/tf/saved_model.py): each signature's function is the ``Session.run`` of
its outputs fed by its inputs (the graph's part they need, one JAX program),
exported as a concrete function of the signature's inputs, the graph's variables
(their values in the session when ``add_meta_graph_and_variables`` ran) the
SavedModel's variables. So TensorFlow loads it as a TF 2 SavedModel (its
signatures are TF's), and ``tf.saved_model.load`` in eagertape gives the
signatures. The TF 1 names of the signature's tensors (``Placeholder:0``) and the
tags are kept beside eagertape's payload (its spec's ``"v1"`` entry), which TF's
loader ignores.

``load(sess, tags, export_dir)`` adds to the session's graph, for each signature,
placeholders named as the signature's inputs and the signature's call, whose
outputs carry the outputs' names, so ``sess.run(output_name, {input_name: x})``
runs it; a SavedModel of TF 2 code (``tf.saved_model.save``) loads too, with the
names TF gives its signatures (``serving_default_x:0``, ``StatefulPartitionedCall:0``).
A TF 1 SavedModel's variables become the graph's (``global_variables()``), holding
the saved values in the session (a TF 2 SavedModel's do not, as in TF).
Differences from TF: one MetaGraph a SavedModel (``Builder.add_meta_graph``
raises); ``legacy_init_op``, ``main_op`` and assets are neither run nor saved; a
signature's input keys must be Python identifiers (its function's arguments).
"""
import os

import jax
import numpy as np

from .. import extend

__all__ = ["Builder", "SavedModelBuilder", "simple_save", "load", "loader",
           "predict_signature_def", "build_signature_def", "build_tensor_info",
           "signature_def_utils", "utils", "TensorInfo", "SignatureDef", "MetaGraphDef"]

PREDICT_METHOD_NAME = "tensorflow/serving/predict"
SERVING = "serve"


# -- the protos' stand-ins ----------------------------------------------------------
_ENUM_NAMES = {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}


class TensorInfo:
    """TF's ``TensorInfo`` proto: a tensor of a signature by ``name``
    (``"op:index"``), its ``dtype`` (TF's DataType enum) and ``tensor_shape``."""

    def __init__(self, name, dtype, shape):
        self.name = name
        from .dtypes import as_dtype
        self._dtype = as_dtype(dtype)
        self._shape = tuple(shape)

    @property
    def dtype(self):
        return self._dtype.as_datatype_enum

    @property
    def tensor_shape(self):
        from . import TensorShape
        return TensorShape(list(self._shape))

    def _text(self, indent):
        pad = " " * indent
        lines = [f'{pad}name: "{self.name}"', f"{pad}dtype: DT_{_ENUM_NAMES.get(self._dtype.name, self._dtype.name.upper())}",
                 f"{pad}tensor_shape {{"]
        lines += [f"{pad}  dim {{\n{pad}    size: {d}\n{pad}  }}" for d in self._shape]
        return "\n".join(lines + [f"{pad}}}"])

    def __str__(self):
        return self._text(0) + "\n"

    __repr__ = __str__


class SignatureDef:
    """TF's ``SignatureDef`` proto: ``inputs`` and ``outputs`` (dicts of
    ``TensorInfo`` by key) and ``method_name``."""

    def __init__(self, inputs=None, outputs=None, method_name=""):
        self.inputs = dict(inputs or {})
        self.outputs = dict(outputs or {})
        self.method_name = method_name

    def __str__(self):
        parts = []
        for field, infos in (("inputs", self.inputs), ("outputs", self.outputs)):
            for key in sorted(infos):
                parts.append(f'{field} {{\n  key: "{key}"\n  value {{\n'
                             f"{infos[key]._text(4)}\n  }}\n}}")
        if self.method_name:
            parts.append(f'method_name: "{self.method_name}"')
        return "\n".join(parts) + "\n"

    __repr__ = __str__


class MetaGraphDef:
    """What TF 1's ``load`` returns (TF's ``MetaGraphDef`` proto): its
    ``signature_def`` (a dict of ``SignatureDef`` by key) and its tags
    (``meta_info_def.tags``)."""

    class _Info:
        def __init__(self, tags):
            self.tags = list(tags)

    def __init__(self, signature_def, tags):
        self.signature_def = signature_def
        self.meta_info_def = self._Info(tags)


def _graph_tensor(t, what):
    from . import _v1_graph
    p = extend.symbolic_value(t)
    if p is None or not isinstance(getattr(p.graph, "facade", None), _v1_graph.Graph):
        raise TypeError(f"{what} must be a Tensor of a TF 1 graph (tf.Graph().as_default()), "
                        f"got {type(t).__name__}")
    return p


def build_tensor_info(tensor):
    """The ``TensorInfo`` of a graph's Tensor (its name, dtype and shape)."""
    p = _graph_tensor(tensor, "build_tensor_info: argument `tensor`")
    return TensorInfo(tensor.name, p.dtype, p.shape)


def build_signature_def(inputs=None, outputs=None, method_name=None, defaults=None):
    """A ``SignatureDef`` of ``inputs`` and ``outputs`` (dicts of ``TensorInfo``)."""
    for arg, infos in (("inputs", inputs), ("outputs", outputs)):
        for key, info in (infos or {}).items():
            if not isinstance(info, TensorInfo):
                raise TypeError(f"build_signature_def: argument `{arg}`[{key!r}] must be a "
                                f"TensorInfo (build_tensor_info(tensor)), got "
                                f"{type(info).__name__}")
    return SignatureDef(inputs, outputs, method_name or "")


def predict_signature_def(inputs, outputs):
    """A prediction ``SignatureDef`` of ``inputs`` and ``outputs`` (dicts of the
    graph's Tensors by key)."""
    if inputs is None or not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")
    if outputs is None or not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    return build_signature_def({k: build_tensor_info(t) for k, t in inputs.items()},
                               {k: build_tensor_info(t) for k, t in outputs.items()},
                               PREDICT_METHOD_NAME)


# -- saving -------------------------------------------------------------------------
def _session_variables(sess):
    """The graph's variables that hold a value in ``sess``, in the order made."""
    from . import _v1_graph
    g = sess.graph
    out, seen = [], set()
    for key in (_v1_graph.GraphKeys.GLOBAL_VARIABLES, _v1_graph.GraphKeys.LOCAL_VARIABLES):
        for v in g.get_collection(key):
            if isinstance(v, _v1_graph.GraphVariable) and id(v) not in seen \
                    and v._key in sess._values:
                seen.add(id(v))
                out.append(v)
    return out


def _signature_function(sess, key, sig, graph_vars, copies):
    """A tf.function of the signature's inputs (keyword arguments by key) that
    gives its outputs as the session would: the graph's program from the fed
    inputs to the fetched outputs, on the variables ``copies`` (TF 2 Variables)."""
    import inspect
    from . import function
    from ._spec import TensorSpec
    g = sess.graph
    in_keys, out_keys = sorted(sig.inputs), sorted(sig.outputs)
    for k in in_keys:
        if not k.isidentifier():
            raise ValueError(f"signature {key!r}: an input key must be a Python identifier "
                             f"in eagertape's SavedModels (its function's argument), got {k!r}")
    feeds = [extend.symbolic_value(g.get_tensor_by_name(sig.inputs[k].name)).index
             for k in in_keys]
    fetches = [extend.symbolic_value(g.get_tensor_by_name(sig.outputs[k].name)).index
               for k in out_keys]
    state_keys = [v._key for v in graph_vars]
    graph = g._g

    def run(var_values, inputs):
        outs, _ = extend.evaluate_graph(graph, fetches, dict(zip(feeds, inputs)),
                                        dict(zip(state_keys, var_values)))
        return tuple(outs)
    run.__name__ = key

    def body(*args):
        reads = [v.read_value() for v in copies]
        outs = extend.call(run, (reads, list(args)), jit=False, name=key)
        return dict(zip(out_keys, outs))
    body.__name__ = key
    body.__signature__ = inspect.Signature(
        [inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD) for k in in_keys])
    specs = [TensorSpec(list(sig.inputs[k]._shape), sig.inputs[k]._dtype, name=k)
             for k in in_keys]
    return function(body, input_signature=specs)


class Builder:
    """TF 1's ``saved_model.Builder`` (``SavedModelBuilder``):
    ``add_meta_graph_and_variables(sess, tags, signature_def_map)`` takes the
    graph's signatures and its variables' values in ``sess``; ``save()`` writes
    them at ``export_dir`` (eagertape's SavedModel: see this module's notes)."""

    def __init__(self, export_dir):
        export_dir = os.fspath(export_dir)
        if os.path.exists(export_dir) and (not os.path.isdir(export_dir)
                                           or os.listdir(export_dir)):
            raise AssertionError(
                f"Export directory {export_dir} already exists, and isn't empty. Please choose "
                "a different export directory, or delete all the contents of the specified "
                "directory.")
        self._export_dir = export_dir
        self._saved = None

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None,
                                     assets_collection=None, legacy_init_op=None,
                                     clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None, init_op=None,
                                     train_op=None):
        from . import _v1_graph
        if self._saved is not None:
            raise AssertionError("Graph state including variables and assets has already been "
                                 "saved. Please invoke `add_meta_graph()` instead.")
        if not isinstance(sess, _v1_graph.Session):
            raise TypeError(f"add_meta_graph_and_variables: argument `sess` must be a "
                            f"tf.compat.v1.Session, got {type(sess).__name__}")
        if isinstance(tags, str) or not all(isinstance(t, str) for t in tags or ()):
            raise TypeError(f"add_meta_graph_and_variables: argument `tags` must be a list of "
                            f"strings, got {tags!r}")
        signature_def_map = dict(signature_def_map or {})
        for key, sig in signature_def_map.items():
            if not isinstance(sig, SignatureDef):
                raise TypeError(f"add_meta_graph_and_variables: argument "
                                f"`signature_def_map`[{key!r}] must be a SignatureDef "
                                f"(predict_signature_def), got {type(sig).__name__}")
        graph_vars = _session_variables(sess)
        from . import Module, Variable
        with extend.outside_recording(), _no_graph():
            root = Module()
            copies = [Variable(np.asarray(sess._values[v._key]), trainable=v.trainable,
                               name=v.name[:-2]) for v in graph_vars]
            root.graph_variables = copies
            functions = {key: _signature_function(sess, key, sig, graph_vars, copies)
                         for key, sig in signature_def_map.items()}
        names = {key: {"inputs": {k: i.name for k, i in sig.inputs.items()},
                       "outputs": {k: i.name for k, i in sig.outputs.items()},
                       "method_name": sig.method_name}
                 for key, sig in signature_def_map.items()}
        self._saved = (root, functions, {"tags": list(tags), "signatures": names})

    def add_meta_graph(self, tags, signature_def_map=None, **kwargs):
        if self._saved is None:
            raise AssertionError("Graph state including variables and assets has not been "
                                 "saved yet. Please invoke `add_meta_graph_and_variables()` "
                                 "first.")
        raise NotImplementedError("Builder.add_meta_graph: eagertape's SavedModels hold one "
                                  "MetaGraph; give every signature to "
                                  "add_meta_graph_and_variables")

    def save(self, as_text=False):
        """Write the SavedModel; returns the path of its ``saved_model.pb`` (bytes)."""
        from . import saved_model
        if self._saved is None:
            raise AssertionError("add_meta_graph_and_variables() must be called before save()")
        root, functions, v1 = self._saved
        with _no_graph():
            saved_model._save(root, self._export_dir, signatures=functions or None,
                              extra={"v1": v1})
        return os.path.join(self._export_dir, saved_model.SAVED_MODEL_FILENAME_PB).encode()


SavedModelBuilder = Builder


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """Save ``session``'s graph as a SavedModel of one prediction signature,
    ``serving_default``, from ``inputs`` to ``outputs`` (dicts of Tensors), tagged
    ``serve``."""
    from . import saved_model
    sig = predict_signature_def(inputs, outputs)
    b = Builder(export_dir)
    b.add_meta_graph_and_variables(
        session, tags=[SERVING],
        signature_def_map={saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY: sig},
        main_op=legacy_init_op, clear_devices=True)
    b.save()


class _no_graph:
    """Outside any TF 1 graph being built (a tf.function traced at once)."""

    def __enter__(self):
        self._ctx = extend.building_graph(None)
        from . import _v1_graph
        self._stack = _v1_graph._stack("graphs")
        self._saved = list(self._stack)
        self._stack[:] = []
        self._ctx.__enter__()

    def __exit__(self, *exc):
        self._ctx.__exit__(*exc)
        self._stack[:] = self._saved
        return False


# -- loading ------------------------------------------------------------------------
def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Load the SavedModel at ``export_dir`` (of ``tags``) into ``sess``'s graph: for
    each signature, placeholders named as its inputs and its outputs, which
    ``sess.run`` runs; returns its ``MetaGraphDef`` (``signature_def``)."""
    from . import _v1_graph, saved_model, identity
    if not isinstance(sess, _v1_graph.Session):
        raise TypeError(f"load: argument `sess` must be a tf.compat.v1.Session, got "
                        f"{type(sess).__name__}")
    if isinstance(tags, str):
        tags = [tags]
    export_dir = os.fspath(export_dir)
    with _no_graph():
        loaded = saved_model.load(export_dir)
    v1 = getattr(loaded, "_eagertape_extra", {}).get("v1") or {}
    saved_tags = v1.get("tags", [SERVING])
    if set(tags) != set(saved_tags):
        shown = ", ".join(sorted(tags))
        raise RuntimeError(
            f"MetaGraphDef associated with tags {shown!r} could not be found in SavedModel, "
            f"with available tags '[{set(saved_tags)}]'. To inspect available tag-sets in "
            "the SavedModel, please use the SavedModel CLI: `saved_model_cli`.")
    g = sess.graph
    prefix = f"{import_scope}/" if import_scope else ""
    signature_def = {}
    graph_vars = {}       # the SavedModel's Variables as the graph's, by id
    with g.as_default():
        for key in sorted(loaded.signatures):
            fn = loaded.signatures[key]
            if v1:      # (a TF 2 SavedModel's variables stay out of the graph's
                        # collections, as in TF: its signature's call captures them)
                _graph_reads(fn, graph_vars, sess, prefix)
            names = v1.get("signatures", {}).get(key)
            _, in_specs = fn.structured_input_signature
            out_specs = fn.structured_outputs
            args, inputs = {}, {}
            for k in sorted(in_specs):
                s = in_specs[k]
                name = names["inputs"][k] if names else f"{key}_{k}:0"
                x = _v1_graph.placeholder(s.dtype, list(s.shape),
                                          name=prefix + name.rpartition(":")[0])
                args[k] = x
                inputs[k] = build_tensor_info(x)
            # (the graph names a call by the `name` of the outermost eagertape frame:
            # this one's, TF's name of a signature's call)
            name = prefix + "StatefulPartitionedCall"
            outs = fn(**args)
            outputs = {}
            for k in sorted(out_specs):
                t = outs[k]
                if names:
                    op_name, _, index = names["outputs"][k].rpartition(":")
                    if index == "0":
                        name = prefix + op_name
                        t = identity(t, name=name)
                outputs[k] = build_tensor_info(t)
            signature_def[key] = SignatureDef(
                inputs, outputs, names["method_name"] if names else PREDICT_METHOD_NAME)
    return MetaGraphDef(signature_def, saved_tags)


def _graph_reads(signature, graph_vars, sess, prefix):
    """The signature's function reads the graph's variables: one made (its name
    and restored value in ``sess``) for each SavedModel Variable it reads, as TF's
    load restores the MetaGraph's variables into the session."""
    from . import _v1_graph
    function = getattr(signature, "_function", None)
    reads = getattr(function, "_reads", None)
    if reads is None or getattr(function, "_writes", None):
        return         # (a function that assigns: its reads stay the SavedModel's)
    made = []
    for v in reads:
        gv = graph_vars.get(id(v))
        if gv is None:
            value = np.asarray(v.numpy())
            name = prefix + (v.name[:-2] if v.name.endswith(":0") else v.name)
            gv = graph_vars[id(v)] = _v1_graph.make_graph_variable(
                value, name=name, trainable=v.trainable)
            sess._values[gv._key] = jax.numpy.asarray(value)
        made.append(gv)
    function._reads = made


class _Namespace:
    def __init__(self, **names):
        self.__dict__.update(names)



# Imported on first use, after the facade scoped its modules: scoped now (tf/_x64.py).
from . import _x64  # noqa: E402

_x64.scope([__name__])

# (after the scoping: the namespaces hold the scoped functions)
loader = _Namespace(load=load)
signature_def_utils = _Namespace(predict_signature_def=predict_signature_def,
                                 build_signature_def=build_signature_def)
utils = _Namespace(build_tensor_info=build_tensor_info)
