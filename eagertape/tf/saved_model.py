"""``tf.saved_model``: TensorFlow SavedModels of eagertape's ``tf.Module``\\ s,
``tf.function``\\ s and Keras models, written by TensorFlow itself.

``save(module, path)`` exports every ``tf.function`` of the module (and of the
modules it holds) that has an ``input_signature``, each one without that was
called before the save (once for each signature it was traced with, as TF saves
its traces: the loaded function takes those and raises TF's error for another),
and the functions given as ``signatures=``: each is traced as a pure function of
the Variables it reads (``eagertape.extend.pure_trace``) and serialized with
``jax.export`` (StableHLO, for this machine's backend and the CPU, with its
gradient where every output is floating); a ``None`` size in a signature is a
JAX symbolic size, so the SavedModel takes any size there (where the function
needs sizes to divide, a reshape to ``[-1, 784]``, the sizes that do, as TF's
graph); an unknown rank (``tf.TensorSpec(None)``) is exported once for each rank
from 0 to 4 and each rank it was called with (a JAX shape has a rank), and a
signature of one is a TF function of ``TensorSpec(None)`` that runs the export of
the call's rank. Text a function returns (``tf.gather`` of a string constant by
computed ids: a serving function's labels) is exported as its handles into the
trace's string constants, which the SavedModel's function looks up. Then a
separate Python process with TensorFlow (``pip install 'eagertape[saved_model]'``)
turns each into a ``tf.function`` with JAX's ``jax2tf`` and writes the SavedModel
with TF's ``tf.saved_model.save``: the Variables are the SavedModel's variables
(their values now), at the attributes where the module holds them; the functions
are its functions, and its signatures (``serving_default``) are TF's, so
TensorFlow Serving and ``tf.saved_model.load`` in TensorFlow take it. TensorFlow
is never imported into the program's own process (its ``tf.keras`` runs Keras on
JAX, and Keras has one backend a process).

``load(path)`` reads back, without TensorFlow, a SavedModel that eagertape wrote:
the same objects, their Variables as eagertape Variables, the functions and
``signatures`` callable (and differentiable: they are recorded ops). A SavedModel
TensorFlow wrote holds TF graphs, which eagertape cannot run: load it in
TensorFlow. What ``load`` reads (the serialized functions and a copy of the
Variables' values) is one zip archive in ``saved_model.pb``, the MetaGraphDef's
collection ``eagertape_saved_model``, which TensorFlow's loader ignores: the
folder holds what TF's holds (SavedModels of earlier versions, which kept it in
``assets.extra/eagertape/``, load too).

Differences from TF: an unknown rank
serves ranks 0 to 4 and those it was called with, and is no ``serving_default``;
``tf.saved_model.Asset`` and TF's resources (lookup tables) are left out.
"""
import importlib.util
import io as _io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
import warnings
import weakref

import jax
import numpy as np

from .. import extend as _extend
from ..extend import Variable
from .. import Function as _Function
from . import _keras, _keras_host, random as _random, train as _train
from ._module import Module
from . import _saved_model_tf
from ._util import _Unsupported

__all__ = ["save", "load", "contains_saved_model", "SaveOptions", "LoadOptions"]

ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
SAVED_MODEL_SCHEMA_VERSION = 1
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
CLASSIFY_INPUTS = "inputs"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
PREDICT_INPUTS = "inputs"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_OUTPUTS = "outputs"
REGRESS_INPUTS = "inputs"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_OUTPUTS = "outputs"
SERVING, TRAINING, GPU, TPU = "serve", "train", "gpu", "tpu"

_EAGERTAPE_DIR = os.path.join("assets.extra", "eagertape")
_FORMAT = "eagertape-saved-model/1"

__getattr__ = _Unsupported("tf.saved_model", {
    "Asset": "SavedModel assets (vocabulary files for TF's lookup tables) serve TF's "
             "string ops: keep such files beside the SavedModel and read them in Python",
    "experimental": "TF's SavedModel fingerprints, variable policies and resources: "
                    "eagertape's SavedModels are written by TF's own save, with its defaults",
})


class SaveOptions:
    """``tf.saved_model.SaveOptions``: accepted, stored. ``experimental_custom_gradients``
    (default True) exports each function's gradient, as TF saves custom gradients;
    the others tune TF's own writing and change nothing here.

    >>> import eagertape.tf as tf
    >>> tf.saved_model.SaveOptions(experimental_custom_gradients=False).experimental_custom_gradients
    False
    """

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None,
                 experimental_variable_policy=None, experimental_custom_gradients=True,
                 experimental_image_format=False, experimental_skip_saver=False,
                 experimental_sharding_callback=None, extra_tags=None):
        self.namespace_whitelist = namespace_whitelist
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases or {}
        self.experimental_debug_stripper = experimental_debug_stripper
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = experimental_custom_gradients
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = extra_tags


class LoadOptions:
    """``tf.saved_model.LoadOptions``: accepted, stored (they tune TF's reading).

    >>> import eagertape.tf as tf
    >>> tf.saved_model.LoadOptions(allow_partial_checkpoint=True).allow_partial_checkpoint
    True
    """

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None,
                 experimental_skip_checkpoint=False, experimental_variable_policy=None,
                 experimental_load_function_aliases=False):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_load_function_aliases = experimental_load_function_aliases


def contains_saved_model(export_dir):
    """Whether ``export_dir`` holds a SavedModel (its ``saved_model.pb``).

    >>> import eagertape.tf as tf, tempfile
    >>> tf.saved_model.contains_saved_model(tempfile.mkdtemp())
    False
    """
    d = os.fspath(export_dir)
    return any(os.path.isfile(os.path.join(d, n))
               for n in (SAVED_MODEL_FILENAME_PB, SAVED_MODEL_FILENAME_PBTXT))


# -- what is exported ------------------------------------------------------------

def _is_function(x):
    return isinstance(x, _Function) or type(x).__name__ == "ConcreteFunction" and hasattr(
        x, "_function")


def _module_like(obj):
    if isinstance(obj, Module):
        return True
    k = _keras._keras
    return k is not None and isinstance(obj, k.layers.Layer)


class _Export:
    """The objects reachable from the root (as tf.train.Checkpoint finds them), their
    Variables, and the functions to export, in the form the TF process reads."""

    def __init__(self, root, gradients):
        self.gradients = gradients
        self.objects, self.variables, self.functions = [], [], []
        self._ids, self._var_ids, self._fn_ids = {}, {}, {}
        if root is None:       # (model.export: an archive of its own, see export_keras)
            self.objects.append({"kind": "module", "children": [], "functions": []})
        else:
            self._node(root)

    def variable(self, v):
        v = _train._canonical(v)
        k = self._var_ids.get(id(v))
        if k is None:
            k = self._var_ids[id(v)] = len(self.variables)
            self.variables.append(v)
        return k

    def _node(self, obj):
        train = _train
        obj = train._canonical(obj)
        if id(obj) in self._ids:
            return self._ids[id(obj)]
        k = self._ids[id(obj)] = len(self.objects)
        node = {"kind": "module", "children": [], "functions": []}
        self.objects.append(node)
        if isinstance(obj, Variable):
            node.update(kind="variable", variable=self.variable(obj))
            return k
        if isinstance(obj, (list, tuple, dict)):
            node["kind"] = ("dict" if isinstance(obj, dict) else
                            "tuple" if isinstance(obj, tuple) else "list")
        for name, child in train._children(obj):
            if train._trackable(child) and not isinstance(child, train._ITERATORS):
                node["children"].append([name, self._node(child)])
        if _module_like(obj):
            # Every attribute that is a tf.function, as TF's AutoTrackable finds them
            # (a method decorated on the class included, ``__call__`` too).
            for name in sorted(dir(obj)):
                try:
                    fn = getattr(obj, name, None)
                except Exception:        # a property that cannot be read now: not a function
                    continue
                if not _is_function(fn):
                    continue
                signatures = _signatures_to_export(fn)
                if signatures is None:
                    node["functions"].append([name, self.function(fn, name)])
                elif signatures:
                    try:
                        node["functions"].append([name, self._overloads(fn, name, signatures)])
                    except (ValueError, TypeError) as e:
                        if signatures[0][1] != "traced":
                            raise
                        # TF saves the traces; eagertape can serialize only what JAX
                        # exports: the function is left out, and the save says why.
                        warnings.warn(f"tf.saved_model.save: the tf.function {name!r} is left "
                                      f"out of the SavedModel: {e}", stacklevel=4)
        return k

    def _overloads(self, fn, name, signatures):
        """A function exported as several concrete functions (TF's SavedFunction
        with its traces): each signature's own entry. A signature JAX cannot export
        among several made for an unknown rank is left out (that rank is not served);
        the others, and a traced signature, must export."""
        out, failures = [], []
        for signature, optional in signatures:
            try:
                i = self.function(fn, name, signature, key=len(out) + len(failures))
                if self.functions[i]["arguments"] is None:
                    raise ValueError(f"cannot export {name!r} traced with {signature}: a "
                                     "Python argument that is not a number, string or None")
                out.append(i)
            except ValueError as e:
                if optional is not True:
                    raise
                failures.append(e)
        if not out:
            raise failures[0]
        return out

    def function(self, fn, name, signature=None, key=None):
        key = id(getattr(fn, "_function", fn)), id(fn), key
        if key in self._fn_ids:
            return self._fn_ids[key]
        entry = _exported(fn, name, self, signature)
        self._fn_ids[key] = len(self.functions)
        self.functions.append(entry)
        return self._fn_ids[key]


def _signature_of(fn):
    """``(args, kwargs)`` with a TensorSpec for each Tensor argument, or None (a
    Function without input_signature: nothing to export)."""
    if isinstance(fn, _Function):
        sig = fn.input_signature
        return None if sig is None else _composites_expanded((tuple(sig), {}))
    if fn._template is None:       # (a trace listed by the function: no signature kept)
        return None
    return _composites_expanded(fn._args(dict(fn._specs)))


# -- composite arguments and results (RaggedTensor, ExtensionType) ---------------
#
# TF flattens a composite to its Tensors in a SavedModel's function: a RaggedTensor
# to its flat values and row splits, an ExtensionType to its fields. Here an
# ExtensionType's Spec is its value with a TensorSpec in each Tensor field (a JAX
# pytree, which the export flattens as it flattens the value); a RaggedTensorSpec is
# a ``_RaggedArg`` whose one TensorSpec is the flat values'. eagertape's row splits
# are host arrays fixed when traced (one trace per row structure), so the exported
# function takes the flat values alone, traced with stand-in rows, and a
# RaggedTensor result must keep the rows of a RaggedTensor argument (what
# elementwise ops give): the SavedModel's function (TF's, and ``load``'s) gives it
# the rows of that argument. A function whose result depends on the rows (a
# reduction along a ragged axis, ``row_lengths()``) is refused, found by tracing
# it with two different stand-ins and comparing the exported programs.


class _RowsError(ValueError):
    """A function of a RaggedTensor that a SavedModel cannot hold (said as is)."""


class _RaggedArg:
    """A RaggedTensorSpec argument in a signature: its flat values' spec the child.
    ``rows``: its number among the function's RaggedTensor arguments."""

    def __init__(self, spec, values, rows=None):
        self.spec, self.values, self.rows = spec, values, rows

    def __repr__(self):
        return f"{self.spec!r}[{self.values!r}]"


class _RaggedOut:
    """A RaggedTensor result: its flat values, the rows of argument ``rows``."""

    def __init__(self, values, rows):
        self.values, self.rows = values, rows


jax.tree_util.register_pytree_node(
    _RaggedArg, lambda a: ((a.values,), (a.spec, a.rows)),
    lambda aux, children: _RaggedArg(aux[0], children[0], aux[1]))
jax.tree_util.register_pytree_node(
    _RaggedOut, lambda r: ((r.values,), r.rows), lambda rows, children: _RaggedOut(
        children[0], rows))


def _composite_spec(x):
    from ._extension_type import ExtensionTypeSpec
    from ._ragged import RaggedTensorSpec
    return isinstance(x, (ExtensionTypeSpec, RaggedTensorSpec))


def _composites_expanded(signature):
    """The signature with each composite spec as the export takes it (above)."""
    from ._extension_type import ExtensionTypeSpec
    from ._ragged import RaggedTensorSpec
    from ._spec import TensorSpec

    def expand(x):
        if isinstance(x, RaggedTensorSpec):
            if np.dtype(x.dtype).kind == "O":
                raise ValueError("cannot export a function of a tf.string RaggedTensor: its "
                                 "text ops run on the host, which JAX's export does not hold")
            flat = x._flat_tensor_specs[0]
            return _RaggedArg(x, TensorSpec(flat.shape, flat.dtype))
        if isinstance(x, ExtensionTypeSpec):
            return x._from_compatible_tensor_list(
                [expand(s) for s in x._flat_tensor_specs])
        return x
    return jax.tree_util.tree_map(expand, signature, is_leaf=_composite_spec)


def _ragged_args(tree):
    return [a for a in jax.tree_util.tree_leaves(tree, is_leaf=_is_ragged_arg)
            if _is_ragged_arg(a)]


def _replace_ragged_args(tree, new):
    return jax.tree_util.tree_map(lambda x: next(new) if _is_ragged_arg(x) else x, tree,
                                  is_leaf=_is_ragged_arg)


def _is_ragged_arg(x):
    return isinstance(x, _RaggedArg)


def _stand_in_rows(arg, values, variant):
    """A RaggedTensor of ``values`` (the traced flat values) with stand-in rows of
    ``arg``'s ragged rank: ``variant`` 0 or 1, two different row structures (a
    known number of rows or uniform row length kept)."""
    from ._ragged import RaggedTensor
    shape = arg.spec.shape
    dims = [None] * (arg.spec.ragged_rank + 1) if shape.rank is None else \
        shape.as_list()[:arg.spec.ragged_rank + 1]
    counts = [dims[0] if dims[0] is not None else 2 + variant]
    for k, d in enumerate(dims[1:]):
        counts.append(counts[-1] * d if d is not None else counts[-1] + 2 + variant + k)
    levels = []
    for k, d in enumerate(dims[1:]):
        n, m = counts[k], counts[k + 1]
        lengths = [m // n + (1 if i < m % n else 0) for i in range(n)] if n else []
        splits = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64)
        if variant:
            lengths = lengths[::-1]
            splits = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(
                np.int64)
        levels.append((splits, d))
    v = values
    for splits, d in reversed(levels):
        v = RaggedTensor(v, splits, _internal=True, uniform=d)
    return v


def _with_stand_in_rows(function, variant):
    """A function of ``function``'s arguments with each RaggedTensor argument as its
    flat values (a ``_RaggedArg``): the RaggedTensor is remade inside, with
    stand-in rows; a RaggedTensor result becomes a ``_RaggedOut``."""
    from ._ragged import RaggedTensor
    inner = function._python()

    def with_rows(*args, **kwargs):
        made = []

        def remade(x):
            if not _is_ragged_arg(x):
                return x
            rt = _stand_in_rows(x, x.values, variant)
            made.append(rt)
            return rt
        args, kwargs = jax.tree_util.tree_map(remade, (args, kwargs), is_leaf=_is_ragged_arg)

        def result(x):
            if not isinstance(x, RaggedTensor):
                return x
            for j, rt in enumerate(made):
                if x.ragged_rank == rt.ragged_rank and all(
                        np.shares_memory(a, b) for a, b in zip(x._nested(), rt._nested())):
                    return _RaggedOut(x.flat_values, j)
            raise _RowsError(
                "it returns a RaggedTensor whose rows it computes (a SavedModel's function "
                "may return a RaggedTensor with the rows of a RaggedTensor argument, as "
                "elementwise ops give: eagertape's row splits are host values, fixed when "
                "traced, and JAX's export takes none); return rt.to_tensor(), or the "
                "flat values and the row splits as Tensors")
        out = inner(*args, **kwargs)
        return jax.tree_util.tree_map(result, out,
                                      is_leaf=lambda x: isinstance(x, RaggedTensor))
    with_rows.__name__ = getattr(function, "__name__", "function")
    wrapped = _function_of(with_rows)
    wrapped._tensor_outputs = function._tensor_outputs
    return wrapped


# An unknown rank (tf.TensorSpec(None)) is exported for each rank up to this (and
# the ranks the function was called with): jax.export's shapes have a rank.
_MAX_UNKNOWN_RANK = 4


def _signatures_to_export(fn):
    """None where ``fn`` is exported as one function (its input_signature, or a
    concrete function's), else the list of ``(signature, optional)`` it is exported
    with, each a concrete function of the SavedModel: a Function without
    input_signature, with each signature traced before the save (TF saves its
    traces; none: nothing); a signature with an unknown rank, once a rank."""
    signature = _signature_of(fn)
    if signature is None:
        if not isinstance(fn, _Function):
            return []
        out = [(s, True if _of_strings(s) else "traced") for s in _traced_signatures(fn)]
        # and the concrete functions get_concrete_function made (TF saves them too,
        # traced or not: one with None sizes is traced only when it is called)
        for cf in getattr(fn, "_made", ()):
            sub = _signatures_to_export(cf)
            made = [(_signature_of(cf), "traced")] if sub is None else sub
            # One of strings is left out (its host ops are callbacks, which JAX's
            # export does not hold), the others kept.
            made = [(sig, True if _of_strings(sig) else opt) for sig, opt in made]
            out += [m for m in made if not any(_same_signature(m[0], o[0]) for o in out)]
        return out
    leaves, tree = jax.tree_util.tree_flatten(signature, is_leaf=_leaf_spec)
    unknown = [i for i, x in enumerate(leaves) if _leaf_spec(x) and x.shape is None]
    if not unknown:
        return None
    from ._spec import TensorSpec
    function = fn if isinstance(fn, _Function) else fn._function
    ranks = {tuple(r for _ in unknown) for r in range(_MAX_UNKNOWN_RANK + 1)}
    traced = []
    for args, kwargs in _traced_signatures(function):
        flat = jax.tree_util.tree_leaves((args, kwargs), is_leaf=_leaf_spec)
        if len(flat) == len(leaves):
            traced.append(tuple(len(flat[i].shape) if _leaf_spec(flat[i]) else -1
                                for i in unknown))
    ranks = sorted(ranks | {r for r in traced if min(r) >= 0})
    out = []
    for rank in ranks:
        filled = list(leaves)
        for i, r in zip(unknown, rank):
            filled[i] = TensorSpec([None] * r, leaves[i].dtype, getattr(leaves[i], "name", None))
        out.append((jax.tree_util.tree_unflatten(tree, filled), rank not in traced))
    return out


def _same_signature(a, b):
    # (not by repr: an ExtensionType's own __repr__ may not take TensorSpec fields)
    la, ta = jax.tree_util.tree_flatten(a, is_leaf=_leaf_spec)
    lb, tb = jax.tree_util.tree_flatten(b, is_leaf=_leaf_spec)
    return ta == tb and [repr(x) for x in la] == [repr(x) for x in lb]


def _of_strings(signature):
    return any(_leaf_spec(x) and x.dtype is not None and np.dtype(x.dtype).kind == "O"
               for x in jax.tree_util.tree_leaves(signature, is_leaf=_leaf_spec))


def _traced_signatures(function):
    """``(args, kwargs)`` of each trace a Function made (as its
    ``pretty_printed_concrete_signatures``), a TensorSpec for each Tensor (None
    where the trace takes any size), the Python values as given; Tensors given by
    keyword moved to their places, as TF's canonical signatures."""
    import inspect
    from ._spec import TensorSpec
    params = function._parameters()
    out, seen = [], set()
    for key, trace in list(function._traces.items()):
        if key and key[0] == "inline":
            # A call inside another function's trace, which ran the Python function
            # inline (TF traces a concrete function there, and saves it): its key's
            # shapes and dtypes, and its Python values.
            leaves = _inline_leaves(key[2:])
            if leaves is None:
                continue
            treedef = key[1]
        else:
            # A trace (what a call traced: its inputs, values and shapes); the table
            # also holds markers (a variable made on a later trace), which have none.
            if not hasattr(trace, "inputs") or id(trace) in seen or not isinstance(
                    key[0], jax.tree_util.PyTreeDef):
                continue
            seen.add(id(trace))
            leaves = [v for _, v in trace.inputs]
            for i, value in trace.values.items():
                shape = trace.shapes.get(i) or value.shape
                leaves[i] = TensorSpec([d if isinstance(d, int) else None for d in shape],
                                       np.dtype(value.dtype))
            treedef = key[0]
        try:
            args, kwargs = jax.tree_util.tree_unflatten(treedef, leaves)
        except ValueError:
            # A RaggedTensor argument (its rows were this trace's: a trace for one
            # row structure, which the SavedModel's functions do not take): left
            # out, as are the calls on other values.
            continue
        if params is not None:
            try:
                bound = inspect.Signature(params).bind(*args, **kwargs)
                bound.apply_defaults()
                args, kwargs = bound.args, bound.kwargs
            except TypeError:
                pass
        if not any(_same_signature((tuple(args), dict(kwargs)), o) for o in out):
            out.append((tuple(args), dict(kwargs)))
    return out


def _inline_leaves(entries):
    """The arguments of an inline call's key (eagertape/_function.py's
    ``_count_inline``): a TensorSpec for a Tensor's ``(shape, dtype)``, a Python
    number, string or None as it was; None where another value was passed."""
    from ._spec import TensorSpec
    leaves = []
    for e in entries:
        if isinstance(e, tuple) and len(e) == 2 and isinstance(e[1], np.dtype):
            leaves.append(TensorSpec(list(e[0]), e[1]))
        elif isinstance(e, (bool, int, float)):
            leaves.append(e)
        elif isinstance(e, tuple) and len(e) == 2 and e[0] is str:
            leaves.append(e[1])
        else:
            return None
    return leaves


def _leaf_spec(x):
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(
        x, (_extend.TensorLike, np.ndarray, jax.Array, _RaggedArg)) and not (
            _composite_spec(x) or _is_extension(x))


def _is_extension(x):
    from ._extension_type import ExtensionType
    return isinstance(x, ExtensionType)


def _exported(fn, name, export, signature=None):
    """One function, traced and serialized: the TF process's entry for it."""
    args, kwargs = _signature_of(fn) if signature is None else signature
    function = fn if isinstance(fn, _Function) else fn._function
    if any(_leaf_spec(x) for x in jax.tree_util.tree_leaves(kwargs, is_leaf=_leaf_spec)):
        raise ValueError(f"cannot export {name!r}: a Tensor argument given by keyword "
                         "(keyword-only parameter); make it positional")
    ragged = _ragged_args(args)
    for k, a in enumerate(ragged):
        # (numbered in the order the exported function's wrapper meets them)
        ragged[k] = _RaggedArg(a.spec, a.values, k)
    args = _replace_ragged_args(args, iter(ragged))
    leaves, tree = jax.tree_util.tree_flatten(args, is_leaf=_leaf_spec)
    positions = [i for i, leaf in enumerate(leaves) if _leaf_spec(leaf)]
    specs = [leaves[i] for i in positions]
    for s in specs:
        if s.shape is None:
            raise ValueError(f"cannot export {name!r} as a signature: its input_signature has "
                             "a TensorSpec of unknown rank (shape=None), and a signature is one "
                             "function of one rank; give each dimension (None for any size)")
    failures = []
    for shared in (False, True):
        constraints = []
        while len(constraints) < 8:
            try:
                return _trace_and_serialize(function, name, tree, leaves, positions, specs,
                                            shared, export, constraints, kwargs)
            except _RowsError as e:
                raise ValueError(f"cannot export tf.function {name!r} for its input_signature "
                                 f"{list(specs)}: {e}") from None
            except Exception as e:     # noqa: BLE001  (JAX's reasons vary: retried, then said)
                failures.append(e)
                found = _constraint(e)
                if found is None or found in constraints:
                    break
                constraints.append(found)
    raise ValueError(
        f"cannot export tf.function {name!r} for its input_signature {list(specs)}: JAX could "
        f"not trace it for every size of the None dimensions ({failures[-1]}). Give those "
        "dimensions fixed sizes in the input_signature") from failures[0]


def _params(function, n_args, name):
    try:
        import inspect
        params = list(inspect.signature(function.python_function).parameters)
    except (TypeError, ValueError):
        params = []
    if getattr(function, "_method_of", None) is not None and params:
        params = params[1:]
    params = [p for p in params][:n_args]
    return params + [f"args_{i}" for i in range(len(params), n_args)]


def _defaults(function, names):
    """The parameters' default values that JSON holds (a call may leave them out)."""
    out = {}
    for p in function._parameters() or ():
        if p.name in names and p.default is not p.empty and (
                p.default is None or type(p.default) in (bool, int, float, str)):
            out[p.name] = p.default
    return out


_DIM = re.compile(r"^d\d+$")


def _constraint(error):
    """``"d0 == 7"`` where JAX could not compare a symbolic size with a fixed one
    (``(batch, d0 + 2) - (9,)``: the function takes only d0 = 7 there, as TF's graph
    would fail at run time for any other), or None. Read from JAX's message: the
    shapes it names, compared place by place from the right, as broadcasting and
    contractions compare them. Or ``"mod(d0*d1, -784) == 0"`` where JAX could not
    divide sizes evenly (a reshape to ``[-1, 784]``): the function takes the shapes
    whose sizes divide, as TF's graph does, each checked when it is called."""
    remainder = re.search(r"The remainder (.+) should be 0\.", str(error))
    if remainder:
        return f"{remainder.group(1)} == 0"
    shapes = [[d.strip() for d in t.split(",") if d.strip()]
              for t in re.findall(r"\(([^()]*(?:\([^()]*\)[^()]*)*)\)", str(error))]
    for i, a in enumerate(shapes):
        for b in shapes[i + 1:]:
            for x, y in zip(reversed(a), reversed(b)):
                for expr, size in ((x, y), (y, x)):
                    solved = _solve(expr, size)
                    if solved is not None:
                        return solved
    return None


def _solve(expr, size):
    if not size.isdigit() or int(size) == 1:
        return None
    names = set(re.findall(r"[A-Za-z_]\w*", expr))
    if len(names) != 1 or not _DIM.match(next(iter(names))):
        return None             # (mod, max, two sizes, batch: not solved here)
    name = names.pop()
    try:
        at0, at1 = (eval(expr, {"__builtins__": {}}, {name: v}) for v in (0, 1))  # noqa: S307
    except Exception:           # noqa: BLE001  (not an affine expression)
        return None
    slope, target = at1 - at0, int(size) - at0
    if slope <= 0 or target % slope or target // slope < 1:
        return None
    return f"{name} == {target // slope}"


@_extend.x64
def _trace_and_serialize(function, name, tree, leaves, positions, specs, shared, export,
                         constraints, kwargs):
    # Each None size a JAX symbolic size of its own; retried (``shared``) with every
    # leading None size one ("batch"), which a function that adds two inputs needs,
    # and with the ``constraints`` that JAX's errors called for (``_constraint``).
    scope = jax.export.SymbolicScope(constraints)
    polys, structs, k = [], [], 0
    for s in specs:
        dims = []
        for i, d in enumerate(s.shape):
            if d is not None:
                dims.append(str(int(d)))
            elif shared and i == 0:
                dims.append("batch")
            else:
                dims.append(f"d{k}")
                k += 1
        poly = "(" + ", ".join(dims) + ")"
        polys.append(poly)
        shape = jax.export.symbolic_shape(poly, scope=scope) if dims else ()
        structs.append(jax.ShapeDtypeStruct(shape, np.dtype(s.dtype)))
    filled = list(leaves)
    for p, st in zip(positions, structs):
        filled[p] = st
    args = jax.tree_util.tree_unflatten(tree, filled)
    if _ragged_args(args):
        # Traced with two stand-in row structures: the same program, or the function
        # depends on the rows (which the SavedModel's function does not fix).
        try:
            variants = [_export_traced(_with_stand_in_rows(function, v), args, kwargs,
                                       structs) for v in (0, 1)]
        except _RowsError:
            raise
        except Exception as e:     # noqa: BLE001  (JAX's reasons vary: said)
            raise _RowsError(
                "JAX could not trace it with stand-in rows for its RaggedTensor argument: "
                "a function that uses the rows (a reduction along a ragged axis, "
                "row_lengths(), to_tensor()) cannot be a SavedModel's function here, as "
                f"eagertape's row splits are host values fixed when traced ({e})") from e
        if _program_text(variants[0][0]) != _program_text(variants[1][0]):
            raise _RowsError(
                "its result depends on the rows of its RaggedTensor argument (eagertape's "
                "row splits are host values fixed when traced, where TF's graph reads "
                "them): export a function of the flat values and the row splits as "
                "Tensors, or of rt.to_tensor()")
        exported, reads, writes, outputs, table = variants[0]
    else:
        exported, reads, writes, outputs, table = _export_traced(function, args, kwargs,
                                                                 structs)
    # The gradient is exported where every output is floating: jax2tf cannot yet take
    # a serialized function's gradient through an integer output (TF hands it an
    # int64 cotangent where JAX's VJP takes float0).
    gradient = export.gradients and all(
        jax.numpy.issubdtype(a.dtype, jax.numpy.inexact) for a in exported.out_avals)
    blob = None
    if gradient:
        try:
            blob = exported.serialize(vjp_order=1)
        except Exception:      # noqa: BLE001  (no gradient to export: the function without)
            gradient = False
    if blob is None:
        blob = exported.serialize()
    n_out = len(exported.out_avals) - len(writes)
    structure = outputs([_Leaf(i) for i in range(n_out)])
    text = sorted(x.i for x in jax.tree_util.tree_leaves(structure, is_leaf=_is_leaf)
                  if isinstance(x, _TextLeaf))
    # The arguments that hold Tensors are the TF function's; the others (Python
    # values of a concrete function) are part of the trace, as in TF.
    marks = list(leaves)
    for j, p in enumerate(positions):
        marks[p] = _Leaf(j)
    marked = jax.tree_util.tree_unflatten(tree, marks)
    all_params = _params(function, len(marked), name)
    tensor_args = [i for i, a in enumerate(marked) if any(
        isinstance(x, _Leaf) for x in jax.tree_util.tree_leaves(a, is_leaf=_is_leaf))]
    params = [all_params[i] for i in tensor_args]
    inputs = []
    for i in tensor_args:
        arg = jax.tree_util.tree_leaves(marked[i], is_leaf=_is_leaf)
        for k, leaf in enumerate(arg):
            s = specs[leaf.i]
            inputs.append({"shape": [None if d is None else int(d) for d in s.shape],
                           "dtype": np.dtype(s.dtype).name,
                           "name": getattr(s, "name", None) or (
                               all_params[i] if len(arg) == 1 else f"{all_params[i]}_{k}")})
    signature = [_describe(marked[i]) for i in tensor_args]
    try:
        # Every argument, Python values included: what a call must match to be served
        # by this function where it is one of several (TF's traces of a function).
        arguments = [_describe(a) for a in marked]
    except TypeError:
        arguments = None
    # For jax2tf in TF's process, a size a constraint fixed is written as that number
    # (JAX's parser refuses a constant where TF's shape says None), and the TF
    # function checks it (tf.ensure_shape: TF's own error for another size).
    fixed = dict(c.replace(" ", "").split("==") for c in constraints
                 if _DIM.match(c.split("==")[0].strip()))
    tf_polys, ensure = [], []
    for poly in polys:
        dims = [d.strip() for d in poly.strip("()").split(",") if d.strip()]
        dims = [fixed.get(d, d) for d in dims]
        tf_polys.append("(" + ", ".join(dims) + ")")
        ensure.append([int(d) if d.isdigit() else None for d in dims])
    return {"name": name, "blob": bytes(blob), "gradient": gradient, "polymorphic": tf_polys,
            "ensure": ensure, "constraints": [c for c in constraints
                                              if not _DIM.match(c.split("==")[0].strip())],
            "reads": [export.variable(v) for v in reads],
            "writes": [export.variable(v) for v in writes],
            "inputs": inputs, "signature": signature, "params": params,
            "all_params": all_params, "arguments": arguments,
            "defaults": _defaults(function, all_params),
            "outputs": _describe(structure), "platforms": list(exported.platforms),
            "text": {"outputs": text, "base": table[0],
                     # (bytes as JSON strings: latin-1 keeps every byte)
                     "table": [b.decode("latin-1") for b in table[1]]} if text else None}


def _program_text(exported):
    """The exported StableHLO without its source locations (which name the Python
    lines that traced it, which differ between a first trace and a later one)."""
    lines = [ln for ln in exported.mlir_module().splitlines() if not ln.startswith("#loc")]
    return re.sub(r"\s*loc\((?:[^()]|\([^()]*\))*\)", "", "\n".join(lines))


def _export_traced(function, args, kwargs, structs):
    # Text a function returns is int32 handles in the trace (tf/_traced_text): those
    # of the string constants it met, which this trace puts in the codec's table of
    # constants; the SavedModel's function (and load) looks them up in that part.
    from ._traced_text import CODEC
    base = len(CODEC._consts)
    run, reads, writes, outputs = _extend.pure_trace(function, args, kwargs)
    table = (base, [_text_bytes(b) for b in CODEC._consts[base:]])
    var_specs = [jax.ShapeDtypeStruct(np.shape(v._value), v._value.dtype) for v in reads]
    run, reads, writes, var_specs = _idle_state_dropped(run, reads, writes, var_specs, structs)
    platforms = _platforms()
    for ps in (platforms, platforms[:1]):
        try:
            exported = jax.export.export(jax.jit(run), platforms=ps)(var_specs, structs)
            break
        except Exception:      # noqa: BLE001  (a backend that cannot lower an op: this one only)
            if len(ps) == 1:
                raise
    return exported, reads, writes, outputs, table


def _idle_state_dropped(run, reads, writes, var_specs, structs):
    """``run`` without the Variables it writes back unchanged, and then reads for
    nothing. A Keras layer called on JAX gives back every state it holds: a
    Dropout's seed generator in inference is read and written as it was, which TF's
    Keras graph never touches; TFLite's converter refuses that uint32 Variable."""
    if not writes:
        return run, reads, writes, var_specs
    try:
        closed = jax.make_jaxpr(run)(var_specs, structs)
    except Exception:       # noqa: BLE001  (the export that follows says why)
        return run, reads, writes, var_specs
    jaxpr, n_new = closed.jaxpr, len(writes)
    n_out = len(jaxpr.outvars) - n_new
    same = _forwarded(jaxpr)[n_out:]
    keep_w = [j for j, w in enumerate(writes)
              if same[j] is None or same[j] >= len(reads) or reads[same[j]] is not w]
    if len(keep_w) == n_new:
        return run, reads, writes, var_specs
    used = _used_inputs(jaxpr, [True] * n_out + [j in keep_w for j in range(n_new)])
    keep_r = [i for i in range(len(reads)) if used[i]]

    def pruned(var_values, arg_values):
        full = list(var_specs)          # (a read dropped is never used: any value)
        for i, v in zip(keep_r, var_values):
            full[i] = v
        full = [jax.numpy.zeros(x.shape, x.dtype) if isinstance(x, jax.ShapeDtypeStruct)
                else x for x in full]
        arrays, new = run(full, arg_values)
        return arrays, [new[j] for j in keep_w]
    return (pruned, [reads[i] for i in keep_r], [writes[j] for j in keep_w],
            [var_specs[i] for i in keep_r])


def _inner(eqn):
    inner = eqn.params.get("jaxpr")
    return getattr(inner, "jaxpr", inner) if eqn.primitive.name in ("jit", "pjit") else None


def _forwarded(jaxpr):
    """For each output of ``jaxpr``, the index of the input it is (through nested
    jit calls), else None."""
    alias = {v: i for i, v in enumerate(jaxpr.invars)}
    for eqn in jaxpr.eqns:
        inner = _inner(eqn)
        if inner is None:
            continue
        for out, k in zip(eqn.outvars, _forwarded(inner)):
            if k is not None and not hasattr(eqn.invars[k], "val") and eqn.invars[k] in alias:
                alias[out] = alias[eqn.invars[k]]
    return [None if hasattr(v, "val") else alias.get(v) for v in jaxpr.outvars]


def _used_inputs(jaxpr, used_outputs):
    """Which inputs of ``jaxpr`` the outputs marked used need (an op with effects
    keeps its inputs)."""
    live = {v for v, u in zip(jaxpr.outvars, used_outputs) if u and not hasattr(v, "val")}
    for eqn in reversed(jaxpr.eqns):
        wanted = [o in live for o in eqn.outvars]
        inner = _inner(eqn)
        if inner is not None and not eqn.effects:
            needs = _used_inputs(inner, wanted)
        else:
            needs = [any(wanted) or bool(eqn.effects)] * len(eqn.invars)
        live.update(v for v, n in zip(eqn.invars, needs) if n and not hasattr(v, "val"))
    return [v in live for v in jaxpr.invars]


def _text_bytes(x):
    return x if isinstance(x, bytes) else str(x).encode()


def _is_leaf(x):
    return isinstance(x, _Leaf)


class _Leaf:
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i

    def as_text(self):
        # (what tf/_traced_text's codec gives for an output that is text)
        return _TextLeaf(self.i)


class _TextLeaf(_Leaf):
    """An output that is text: its array holds handles into the entry's table."""


def _describe(x):
    """A nest as JSON: its structure, with ``{"leaf": i}`` for the i-th array."""
    if isinstance(x, _Leaf):
        return {"leaf": x.i}
    if isinstance(x, _RaggedArg):
        shape = x.spec.shape
        return {"ragged": {"values": _describe(x.values), "rows": x.rows,
                           "ragged_rank": x.spec.ragged_rank,
                           "shape": None if shape.rank is None else shape.as_list(),
                           "dtype": np.dtype(x.spec.dtype).name}}
    if isinstance(x, _RaggedOut):
        return {"ragged": {"values": _describe(x.values), "rows": x.rows}}
    if _is_extension(x):
        from ._extension_type import _field_values
        name = _extension_name(type(x))
        _SAVED_EXTENSIONS[name] = type(x)
        return {"extension": {"name": name, "fields": [
            [k, _describe(v)] for k, v in _field_values(x).items()]}}
    if isinstance(x, dict):
        return {"dict": [[str(k), _describe(v)] for k, v in x.items()]}
    if isinstance(x, tuple):
        return {"tuple": [_describe(v) for v in x]}
    if isinstance(x, list):
        return {"list": [_describe(v) for v in x]}
    if x is None or isinstance(x, (bool, int, float, str)):
        return {"const": x}
    raise TypeError(f"cannot export a function returning {type(x).__name__}")


def _extension_name(cls):
    """The name an ExtensionType is saved under: TF's (the class's own ``__name__``
    attribute where it sets one, else its module and qualified name)."""
    own = cls.__dict__.get("__name__")
    return own if isinstance(own, str) else f"{cls.__module__}.{cls.__qualname__}"


# The ExtensionType classes this process saved, by name: a load here rebuilds their
# values with the very class (a program may define several of one name).
_SAVED_EXTENSIONS = weakref.WeakValueDictionary()


def _extension_class(name):
    """The ExtensionType class saved as ``name``: the one this process saved, else
    the last defined of that name, or None."""
    from ._extension_type import ExtensionType
    if name in _SAVED_EXTENSIONS:
        return _SAVED_EXTENSIONS[name]
    found, todo = None, list(ExtensionType.__subclasses__())
    while todo:
        cls = todo.pop(0)
        todo.extend(cls.__subclasses__())
        if not cls.__dict__.get("_tf_extension_type_do_not_transform_this_class") and \
                _extension_name(cls) == name:
            found = cls
    return found


def _platforms():
    here = jax.export.default_export_platform()
    return (here,) if here == "cpu" else (here, "cpu")


# -- save --------------------------------------------------------------------------

def _tensorflow_missing():
    return ImportError(
        "tf.saved_model.save writes the SavedModel with TensorFlow itself (in a separate "
        "process, through jax.experimental.jax2tf), and tensorflow is not installed: "
        "pip install 'eagertape[saved_model]' (or tensorflow-cpu). Without TensorFlow, "
        "save weights with tf.train.Checkpoint and a compiled function with jax.export")


def save(obj, export_dir, signatures=None, options=None):
    """Write ``obj`` (a ``tf.Module``, Keras model or layer) as a TensorFlow SavedModel
    in ``export_dir``: its Variables (current values), its ``tf.function``\\ s that
    have an ``input_signature``, those without, once for each signature they were
    traced with before the save, and ``signatures`` (a function with an
    input_signature or a concrete function, or a dict of them by signature key; by
    default, as TF, the root's one function with an input_signature is
    ``serving_default``). Needs TensorFlow installed (it runs in a separate
    process). The directory appears whole or not at all.

    >>> import eagertape.tf as tf, tempfile, os
    >>> class Scale(tf.Module):
    ...     def __init__(self):
    ...         self.w = tf.Variable(3.0)
    ...     @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    ...     def __call__(self, x):
    ...         return x * self.w
    >>> path = os.path.join(tempfile.mkdtemp(), "scale")
    >>> tf.saved_model.save(Scale(), path)
    >>> sorted(os.listdir(path))
    ['assets', 'fingerprint.pb', 'saved_model.pb', 'variables']
    >>> tf.saved_model.load(path)(tf.constant([1.0, 2.0])).numpy()
    array([3., 6.], dtype=float32)
    """
    _save(obj, export_dir, signatures, options)


def _save(obj, export_dir, signatures=None, options=None, extra=None):
    # ``extra``: what a facade keeps beside the payload's spec (TF 1's names and tags
    # of a tf.compat.v1.saved_model.Builder's SavedModel), which ``load`` gives back
    # as the loaded root's ``_eagertape_extra``.
    export_dir = os.fspath(export_dir)
    if importlib.util.find_spec("tensorflow") is None:
        raise _tensorflow_missing()
    gradients = True if options is None else bool(
        getattr(options, "experimental_custom_gradients", True))
    export = _Export(obj, gradients)
    keys = None
    if signatures is not None:
        given = signatures if isinstance(signatures, dict) else {
            DEFAULT_SERVING_SIGNATURE_DEF_KEY: signatures}
        keys = {}
        for key, fn in given.items():
            if not _is_function(fn) or _signature_of(fn) is None:
                raise ValueError(
                    f"argument `signatures`[{key!r}] must be a tf.function with an "
                    f"input_signature, or a concrete function (f.get_concrete_function("
                    f"tf.TensorSpec(...))), got {fn!r}")
            name = getattr(fn, "__name__", key)
            ranked = _signatures_to_export(fn)
            # An input of unknown rank: one function a rank, which the SavedModel's
            # signature (TF's, and load's) picks by the rank of each call's input.
            keys[key] = export.function(fn, name) if ranked is None else \
                export._overloads(fn, name, ranked)
    elif _keras._keras is not None and isinstance(obj, _keras._keras.Model):
        # TF's Keras gives a model built on known inputs this default signature
        # (Keras's `_default_save_signature`): the model called on its inputs.
        keys = _keras_default_signature(obj, export)
    _write(export, export_dir, keys, extra=extra)


def _keras_default_signature(model, export):
    from ._spec import TensorSpec
    try:
        inputs = model.input
    except (AttributeError, ValueError):
        # A Sequential (TF's Keras reads its inner functional model's inputs); a
        # subclassed model has none: no default signature.
        inputs = getattr(model, "inputs", None)
        if not inputs:
            return None
        inputs = inputs[0] if len(inputs) == 1 else list(inputs)
    signature = (_keras._keras.tree.map_structure(
        lambda x: TensorSpec(list(x.shape), np.dtype(x.dtype)), inputs),)

    def serving_default(inputs):
        return model(inputs)
    fn = export.function(_function_of(serving_default), "serving_default", (signature, {}))
    return {DEFAULT_SERVING_SIGNATURE_DEF_KEY: fn}


def _write(export, export_dir, keys, keras_lists=None, endpoints=None, extra=None):
    tracked = {n["variable"] for n in export.objects if n["kind"] == "variable"}
    tracked.update(i for indices in (keras_lists or {}).values() for i in indices)
    captured = sorted(set(range(len(export.variables))) - tracked)
    # tf.random's streams are eagertape's own state (TF's stateful random ops hold
    # none) and a Keras weight belongs to its Keras object (a Dropout's seed state):
    # kept beside the objects. Any other Variable a function reads must be held by
    # the objects, as TF requires.
    streams = {id(v) for v in _random._gen.streams.values()}
    untracked = [export.variables[i] for i in captured if id(export.variables[i]) not in streams
                 and not hasattr(export.variables[i], "_kv")]
    if untracked:
        raise AssertionError(
            "Tried to export a function which references an 'untracked' resource. TensorFlow "
            "objects (e.g. tf.Variable) captured by functions must be 'tracked' by assigning "
            "them to an attribute of a tracked object or assigned to an attribute of the main "
            f"object directly. Untracked: {[v.name for v in untracked]} (nothing was written)")
    spec = {"format": _FORMAT, "objects": export.objects,
            "variables": [{"name": _base_name(v), "trainable": bool(v.trainable),
                           "dtype": np.dtype(v.dtype).name, "shape": list(np.shape(v._value))}
                          for v in export.variables],
            "functions": [], "signatures": keys, "captured": captured,
            "keras_lists": keras_lists, "endpoints": endpoints}
    if extra:
        spec["extra"] = extra
    parent = os.path.dirname(os.path.abspath(export_dir))
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix="eagertape-saved-model-")
    tmp = os.path.join(parent, f".{os.path.basename(export_dir)}.tmp-{uuid.uuid4().hex}")
    try:
        for i, entry in enumerate(export.functions):
            entry = dict(entry)
            with open(os.path.join(work, f"function-{i}.bin"), "wb") as f:
                f.write(entry.pop("blob"))
            entry["file"] = f"function-{i}.bin"
            spec["functions"].append(entry)
        values = {}
        for i, v in enumerate(export.variables):
            a = np.asarray(v._value)
            values[f"v{i}"] = a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind == "V" \
                else a
        np.savez(os.path.join(work, "values.npz"), **values)
        with open(os.path.join(work, "spec.json"), "w") as f:
            json.dump(spec, f)
        _run_tensorflow(work, tmp)
        printed = os.path.join(work, "endpoints.txt")
        printed = open(printed).read() if os.path.exists(printed) else None
        if os.path.exists(export_dir):
            # TF's save writes into an existing directory; here it is replaced whole.
            old = f"{tmp}-old"
            os.replace(export_dir, old)
            os.replace(tmp, export_dir)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, export_dir)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return printed


def _base_name(v):
    name = v.name
    return name[:-2] if name.endswith(":0") else name


def _run_tensorflow(work, out):
    with open(_saved_model_tf.__file__) as f:
        source = f.read()
    env = dict(os.environ)
    env.pop("KERAS_BACKEND", None)       # TF's process: TF's own Keras, never imported
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    # -P: the working directory is not put first on sys.path (a local tensorflow.py
    # or jax.py must not shadow the packages).
    p = subprocess.run([sys.executable, "-P", "-c", source, work, out], capture_output=True,
                       text=True, env=env)
    if p.returncode != 0:
        lines = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
        if any("No module named 'tensorflow'" in ln for ln in lines[-3:]):
            raise _tensorflow_missing()
        raise RuntimeError("TensorFlow could not write the SavedModel (nothing was written): "
                           + "\n".join(lines[-25:]))


def _export_keras(model, filepath, verbose=None, input_signature=None, **kwargs):
    """Keras's ``model.export(filepath)`` (``format="tf_saved_model"``) for
    ``tf.keras``: the SavedModel Keras's own exporter writes (an endpoint ``serve``,
    also ``serving_default``, calling the model in inference; ``variables``,
    ``trainable_variables`` and ``non_trainable_variables`` on the reloaded
    object), written as ``save`` writes, TensorFlow in a separate process. Keras's
    exporter on JAX would import TensorFlow into this process, where ``tf.keras``
    runs Keras on JAX (and TF would take a GPU's memory beside JAX's).
    ``is_static`` and ``jax2tf_kwargs`` (options of Keras's JAX exporter) are
    accepted; the functions are always exported with the Variables as inputs. A
    Sequential whose first layers take its string input (a ``TextVectorization``
    before ``Dense`` layers) takes strings of any batch size: those layers are
    rebuilt from their configs where the SavedModel runs (``_text_prelude``)."""
    from ._spec import TensorSpec
    keras = _keras._keras
    filepath = os.fspath(filepath)
    if importlib.util.find_spec("tensorflow") is None:
        raise _tensorflow_missing()
    unknown = set(kwargs) - {"is_static", "jax2tf_kwargs"}
    if unknown:
        raise TypeError(f"model.export() got unexpected keyword arguments {sorted(unknown)}")
    if input_signature is None:
        input_signature = _keras._private("get_input_signature")(model)
    if not isinstance(input_signature, (list, tuple)):
        input_signature = [input_signature]

    def spec(x):
        shape = getattr(x, "shape", None)
        if shape is None:
            raise ValueError(f"argument `input_signature`: {x!r} has no shape")
        return TensorSpec([None if d is None else int(d) for d in shape],
                          getattr(x, "dtype", None) or "float32",   # ("string": TF's name)
                          getattr(x, "name", None))

    signature = keras.tree.map_structure(spec, list(input_signature))
    import inspect
    try:
        params = list(inspect.signature(model.call).parameters.values())
    except (TypeError, ValueError):
        params = []
    params = params[:len(signature)] or [
        inspect.Parameter(f"args_{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD)
        for i in range(len(signature))]

    def serve(*args):
        return model(*args)
    serve.__signature__ = inspect.Signature(params)
    export = _Export(None, gradients=True)
    prelude = _text_prelude(model, signature)
    if prelude is None:
        fn = export.function(_function_of(serve), "serve", (tuple(signature), {}))
    else:
        # The string layers are the prelude (rebuilt from their configs where the
        # SavedModel runs: TF's Keras in TF's graph, eagertape's on the host), the
        # exported JAX function the rest of the model on their results.
        layers, inner = prelude
        mark = f"{_keras_host._MARK}0000"       # (the inner part's one input)

        def serve_inner(*args):
            return model({mark: args[0]})
        serve_inner.__signature__ = serve.__signature__
        fn = export.function(_function_of(serve_inner), "serve", ((inner,), {}))
        entry = export.functions[fn]
        entry["prelude"] = {"layers": layers, "inputs": entry["inputs"]}
        s = signature[0]
        entry["inputs"] = [{"shape": [None if d is None else int(d) for d in s.shape],
                            "dtype": "string",
                            "name": s.name or entry["inputs"][0]["name"]}]
    export.objects[0]["functions"].append(["serve", fn])
    tv = [export.variable(v) for v in model.trainable_variables]
    nv = [export.variable(v) for v in model.non_trainable_variables]
    lists = {"variables": tv + nv, "trainable_variables": tv, "non_trainable_variables": nv}
    printed = _write(export, filepath, {"serve": fn, "serving_default": fn}, lists,
                     endpoints=["serve"])
    if verbose is None or verbose:
        print(f"Saved artifact at '{filepath}'. The following endpoints are available:\n\n"
              f"{printed}")


def _text_prelude(model, signature):
    """``(layer configs, TensorSpec of their result)`` for a Sequential model whose
    first layers take its one string input (a TextVectorization before Dense layers,
    as TF's text tutorial exports it), else None. Those layers run on the host
    (tf/_keras_host.py), which JAX's export cannot hold: the SavedModel rebuilds
    them from their configs, their vocabularies put in (Keras's config leaves out
    an adapted one), as TF's SavedModel holds their string ops."""
    from ._spec import TensorSpec
    keras = _keras._keras
    if len(signature) != 1 or not _of_strings(signature):
        return None
    split = _keras_host.split_of(model, _keras._layer_call_original)
    if not isinstance(split, _keras_host._SequentialSplit):
        return None
    x = keras.KerasTensor(tuple(signature[0].shape), "string")
    configs = []
    for layer in split.host_layers:
        config = keras.layers.serialize(layer)
        if config["config"].get("output_mode") == "tf_idf":
            raise ValueError(f"cannot export model {model.name!r}: its layer {layer.name!r} "
                             "has output_mode='tf_idf', whose adapted weights eagertape's "
                             "SavedModel does not carry; export a model of its results")
        if hasattr(layer, "get_vocabulary"):
            config["config"]["vocabulary"] = [
                v.item() if isinstance(v, np.generic) else v
                for v in layer.get_vocabulary(include_special_tokens=True)]
            config["config"].pop("vocabulary_size", None)
        try:
            config = json.loads(json.dumps(config))
        except TypeError:
            config = None
        if config is None or _holds_code(config):
            raise ValueError(f"cannot export model {model.name!r}: its string layer "
                             f"{layer.name!r} has a setting that is no Keras config value "
                             "(a Python function as standardize or split, say), which the "
                             "SavedModel cannot rebuild; export a model of its results")
        configs.append(config)
        x = layer.compute_output_spec(x)
    return configs, TensorSpec([None if d is None else int(d) for d in x.shape],
                               np.dtype(x.dtype).name)


def _holds_code(config):
    # Keras's config of a Python function (a lambda's bytecode, a function's name):
    # another process rebuilds neither, as Keras's safe mode refuses the first.
    if isinstance(config, dict):
        return config.get("class_name") in ("__lambda__", "function") or any(
            _holds_code(v) for v in config.values())
    return isinstance(config, list) and any(_holds_code(v) for v in config)


def _function_of(python_function):
    from .. import function
    return function(python_function)


# -- load --------------------------------------------------------------------------

class _Loaded:
    """A loaded object: the attributes the saved object had (Variables, objects,
    functions), as TF's loaded objects."""

    def __call__(self, *args, **kwargs):
        fn = self.__dict__.get("__call__")
        if fn is None:
            raise TypeError("this loaded object was saved without a __call__ tf.function")
        return fn(*args, **kwargs)

    def __repr__(self):
        return f"<eagertape loaded object with {sorted(vars(self))}>"


def load(export_dir, tags=None, options=None):
    """Load a SavedModel that eagertape's ``save`` (or ``model.export``) wrote: its
    objects with their Variables (eagertape Variables holding the saved values),
    its functions and ``.signatures`` (``loaded.signatures["serving_default"](x=...)``
    returns a dict, as TF's). Runs without TensorFlow. A SavedModel written by
    TensorFlow holds TF graphs, which eagertape cannot run: it raises, saying so.
    See ``save`` for an example."""
    export_dir = os.fspath(export_dir)
    payload = _payload(export_dir)
    if payload is None:
        if contains_saved_model(export_dir):
            raise ValueError(
                f"{export_dir!r} is a SavedModel that eagertape did not write: it holds "
                "TensorFlow graphs, which eagertape cannot run. Load it with TensorFlow "
                "(in a separate process from eagertape's tf.keras), or rebuild the model in "
                "eagertape and restore its weights from a tf.train.Checkpoint")
        from .errors import NotFoundError
        raise NotFoundError(None, None, f"Could not find SavedModel .pb or .pbtxt at supplied "
                                        f"export directory path: {export_dir}")
    spec = json.loads(payload("spec.json"))
    if spec.get("format") != _FORMAT:
        raise ValueError(f"{export_dir!r} was written by another version of eagertape's "
                         f"SavedModel export ({spec.get('format')!r})")
    values = np.load(_io.BytesIO(payload("values.npz")))
    variables = []
    for i, v in enumerate(spec["variables"]):
        value = values[f"v{i}"]
        if v["dtype"] != value.dtype.name:
            value = value.view(jax.numpy.dtype(v["dtype"]))
        variables.append(Variable(value, trainable=v["trainable"], name=v["name"]))
    functions = [_LoadedFunction(entry, variables, payload) for entry in spec["functions"]]
    root = _saved_model_tf.build_objects(
        spec, variables, functions, _Loaded,
        lambda name, indices: _Overloaded(name, [functions[i] for i in indices]))
    for name, indices in (spec.get("keras_lists") or {}).items():
        setattr(root, name, [variables[i] for i in indices])
    root.signatures = _signatures(spec, functions)
    root._eagertape_extra = spec.get("extra") or {}
    return root


def _payload(export_dir):
    """``read(name)`` -> the bytes of a file eagertape's save wrote for ``load``, or
    None where ``export_dir`` holds none: the zip archive in saved_model.pb's
    collection, or (SavedModels eagertape wrote before it carried them there) the
    files of ``assets.extra/eagertape/``."""
    old = os.path.join(export_dir, _EAGERTAPE_DIR)
    if os.path.isfile(os.path.join(old, "spec.json")):
        def read_old(name):
            with open(os.path.join(old, name), "rb") as f:
                return f.read()
        return read_old
    path = os.path.join(export_dir, SAVED_MODEL_FILENAME_PB)
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        saved = memoryview(f.read())
    archive = _collection_bytes(saved, _saved_model_tf.PAYLOAD_COLLECTION)
    if archive is None:
        return None
    import zipfile
    z = zipfile.ZipFile(_io.BytesIO(archive))
    return z.read


def _fields(buf):
    """The fields of a serialized protocol buffer: (number, wire type, value), a
    length-delimited value as a slice of ``buf``. (Read by hand: eagertape's load
    needs neither TensorFlow nor protobuf.)"""
    from ._tf_bundle import _varint
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 2:
            n, pos = _varint(buf, pos)
            value, pos = buf[pos:pos + n], pos + n
        elif wire in (1, 5):
            n = 8 if wire == 1 else 4
            value, pos = buf[pos:pos + n], pos + n
        else:
            raise ValueError(f"not a serialized SavedModel (wire type {wire})")
        yield number, wire, value


def _collection_bytes(saved, key):
    """The first bytes of the collection ``key`` of a serialized SavedModel's first
    MetaGraphDef (SavedModel.meta_graphs = 2; MetaGraphDef.collection_def = 4, a map
    entry's key = 1 and value = 2; CollectionDef.bytes_list = 2; BytesList.value = 1),
    or None."""
    want = key.encode()
    for number, wire, meta in _fields(saved):
        if (number, wire) != (2, 2):
            continue
        for n, w, entry in _fields(meta):
            if (n, w) != (4, 2):
                continue
            entry = {k: v for k, wt, v in _fields(entry) if wt == 2}
            if bytes(entry.get(1, b"")) != want:
                continue
            kinds = {k: v for k, wt, v in _fields(entry.get(2, b"")) if wt == 2}
            values = [v for k, wt, v in _fields(kinds.get(2, b"")) if (k, wt) == (1, 2)]
            return values[0] if values else None
        return None
    return None


class _LoadedFunction:
    """A loaded function: the serialized JAX function called on the Variables'
    values, one recorded op (differentiable where its gradient was exported)."""

    def __init__(self, entry, variables, payload):
        self._exported = jax.export.deserialize(bytearray(payload(entry["file"])))
        self._entry = entry
        self._reads = [variables[i] for i in entry["reads"]]
        self._writes = [variables[i] for i in entry["writes"]]
        self.__name__ = entry["name"]
        self._text_layers = None        # (the prelude's layers, made at the first call)

    def __repr__(self):
        return f"<loaded function {self.__name__}>"

    @_extend.x64
    def __call__(self, *args, **kwargs):
        entry = self._entry
        params = entry["params"]
        if len(args) > len(params):
            raise TypeError(f"{self.__name__}() takes {len(params)} arguments, given "
                            f"{len(args)}")
        bound = dict(zip(params, args))
        for k, v in kwargs.items():
            if k not in params or k in bound:
                raise TypeError(f"{self.__name__}() got an unexpected keyword argument {k!r}")
            bound[k] = v
        missing = [p for p in params if p not in bound]
        if missing:
            raise TypeError(f"{self.__name__}() is missing the arguments {missing}")
        try:
            flat, rows = _saved_model_tf.flatten_arguments(
                entry["signature"], [bound[p] for p in params], _split_argument,
                len(entry["inputs"]))
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        return self._call_flat(flat, rows)

    def _call_flat(self, flat, rows=None):
        entry = self._entry
        if len(flat) != len(entry["inputs"]):
            raise TypeError(f"{self.__name__}() takes {len(entry['inputs'])} tensors, given "
                            f"{len(flat)}")
        prelude = entry.get("prelude")
        if prelude is not None:
            flat = self._prelude(flat)
        tensors = []
        for x, s in zip(flat, entry["inputs"] if prelude is None else prelude["inputs"]):
            t = _extend.convert_to_tensor(x, dtype=s["dtype"])
            if len(t.shape) != len(s["shape"]) or any(
                    d is not None and d != n for d, n in zip(s["shape"], t.shape)):
                raise ValueError(f"argument {s['name']!r} of {self.__name__}() must have "
                                 f"shape {s['shape']} (None: any size), got {list(t.shape)}")
            tensors.append(t)
        reads = [v.read_value() for v in self._reads]
        n = len(self._exported.out_avals) - len(self._writes)
        run = self._exported.call

        def called(var_values, values):
            arrays, written = run(list(var_values), list(values))
            return tuple(arrays) + tuple(written)
        called.__name__ = self.__name__
        outs = _extend.call(called, (reads, tensors), jit=False, name=self.__name__)
        for v, new in zip(self._writes, outs[n:]):
            v.assign(new, read_value=False)
        arrays = list(outs[:n])
        text = entry.get("text")
        if text:
            from ._text import wrap
            table = np.empty(len(text["table"]), object)
            table[:] = [t.encode("latin-1") for t in text["table"]]
            for i in text["outputs"]:
                handles = np.asarray(arrays[i].numpy(), np.int64)
                arrays[i] = wrap(table[-1 - text["base"] - handles])
        return _rebuild(entry["outputs"], arrays, rows or {})


    def _prelude(self, flat):
        """The string layers of a Keras model's export (``_text_prelude``), rebuilt
        from their configs, on the string argument: the exported function's input."""
        from .dtypes import cast
        convert_to_tensor = _extend.convert_to_tensor
        entry = self._entry
        (s,) = entry["inputs"]
        x = convert_to_tensor(flat[0])
        if x.dtype.name != "string":
            raise TypeError(f"argument {s['name']!r} of {self.__name__}() must be a "
                            f"string Tensor, got {x.dtype.name}")
        if len(x.shape) != len(s["shape"]) or any(
                d is not None and d != n for d, n in zip(s["shape"], x.shape)):
            raise ValueError(f"argument {s['name']!r} of {self.__name__}() must have "
                             f"shape {s['shape']} (None: any size), got {list(x.shape)}")
        if self._text_layers is None:
            layers = _keras._keras.layers
            self._text_layers = [layers.deserialize(c) for c in entry["prelude"]["layers"]]
        for layer in self._text_layers:
            x = layer(x)
        return [cast(x, entry["prelude"]["inputs"][0]["dtype"])]


def _split_argument(x, kind):
    """A composite argument's parts, for ``_saved_model_tf.flatten_arguments``."""
    from ._ragged import RaggedTensor
    if kind == "ragged" and isinstance(x, RaggedTensor):
        return x.flat_values, x.ragged_rank
    if kind == "extension" and _is_extension(x):
        from ._extension_type import _field_values
        return _extension_name(type(x)), _field_values(x)
    return None


def _describe_argument(x):
    if isinstance(x, (_extend.TensorLike, np.ndarray, jax.Array)):
        return list(x.shape), np.dtype(x.dtype).name
    return None


def _show_spec(shape, dtype, name):
    return f"TensorSpec(shape={tuple(shape)}, dtype=tf.{dtype}, name={name!r})"


class _Overloaded:
    """A loaded function that was exported with several signatures (the traces of
    a ``tf.function`` without input_signature, or an unknown rank once a rank): a
    call runs the one its arguments match, as TF's loaded function picks among its
    concrete functions (first as given, then with Python values made Tensors)."""

    def __init__(self, name, functions):
        self.__name__ = name
        self._functions = functions

    def __repr__(self):
        return f"<loaded function {self.__name__} ({len(self._functions)} signatures)>"

    def __call__(self, *args, **kwargs):
        entries = [f._entry for f in self._functions]
        match = _saved_model_tf.match_overload
        found = match(entries, args, kwargs, _describe_argument, _split_argument)
        if found is None:
            def converted(x):
                if isinstance(x, (list, tuple, int, float, bool)) and not any(
                        isinstance(v, (str, type(None))) for v in jax.tree_util.tree_leaves(x)):
                    return _extend.convert_to_tensor(x)
                return x
            found = match(entries, tuple(converted(a) for a in args),
                          {k: converted(v) for k, v in kwargs.items()}, _describe_argument,
                          _split_argument)
        for entry in entries if found is None else ():
            # TF converts a Python value with each signature's dtype as the hint
            # (loaded(5) of a float32 TensorSpec).
            names = entry["all_params"]
            trees = dict(zip(names, (_saved_model_tf._with_specs(t, entry["inputs"])
                                     for t in entry["arguments"])))

            def hinted(x, tree):
                spec = (tree or {}).get("_spec")
                if spec is not None and isinstance(x, (int, float, bool, list, tuple)):
                    try:
                        return _extend.convert_to_tensor(x, dtype=spec["dtype"])
                    except (TypeError, ValueError):
                        pass
                return converted(x)
            found = match([entry], tuple(hinted(a, trees.get(n)) for n, a in zip(names, args)),
                          {k: hinted(v, trees.get(k)) for k, v in kwargs.items()},
                          _describe_argument, _split_argument)
            if found is not None:
                break
        if found is None:
            raise _saved_model_tf.no_overload_error(entries, args, kwargs, _show_spec)
        entry, tensors, rows = found
        return self._functions[entries.index(entry)]._call_flat(tensors, rows)


def _rebuild(tree, arrays, rows):
    """A result as the function gave it: a RaggedTensor with the rows of the
    argument it keeps, an ExtensionType of its class (where this process has it)."""
    if "leaf" in tree:
        return arrays[tree["leaf"]]
    if "ragged" in tree:
        r = tree["ragged"]
        return rows[r["rows"]].with_flat_values(_rebuild(r["values"], arrays, rows))
    if "extension" in tree:
        e = tree["extension"]
        fields = {k: _rebuild(v, arrays, rows) for k, v in e["fields"]}
        cls = _extension_class(e["name"])
        if cls is None:
            # TF's AnonymousExtensionType, here a plain object of the fields.
            warnings.warn(f"The type {e['name']!r} is not defined in this program: its "
                          "values are loaded as objects of their fields", stacklevel=3)
            import types
            return types.SimpleNamespace(**fields)
        from ._extension_type import _make
        return _make(cls, fields)
    if "dict" in tree:
        return {k: _rebuild(v, arrays, rows) for k, v in tree["dict"]}
    if "tuple" in tree:
        return tuple(_rebuild(v, arrays, rows) for v in tree["tuple"])
    if "list" in tree:
        return [_rebuild(v, arrays, rows) for v in tree["list"]]
    return tree["const"]


class _Signature:
    """A loaded signature: keyword arguments by input name, a dict of outputs (TF's
    names: a dict's keys, else ``output_0``, ``output_1``, ...)."""

    def __init__(self, function):
        self._function = function
        self.__name__ = function.__name__

    @property
    def structured_input_signature(self):
        """TF's: ``((), {name: TensorSpec})``: a signature takes keyword arguments (one
        input may also be passed positionally).

        >>> import tempfile, eagertape.tf as tf
        >>> class M(tf.Module):
        ...     @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
        ...     def f(self, x):
        ...         return {"y": tf.reduce_sum(x, axis=1)}
        >>> path = tempfile.mkdtemp()
        >>> m = M(); tf.saved_model.save(m, path, signatures=m.f)
        >>> sig = tf.saved_model.load(path).signatures["serving_default"]
        >>> sig.structured_input_signature
        ((), {'x': TensorSpec(shape=(None, 3), dtype=tf.float32, name='x')})
        >>> sig.structured_outputs
        {'y': TensorSpec(shape=(None,), dtype=tf.float32, name='y')}
        """
        from ._spec import TensorSpec
        return ((), {s["name"]: TensorSpec(s["shape"], s["dtype"], name=s["name"])
                     for s in self._function._entry["inputs"]})

    @property
    def structured_outputs(self):
        """TF's: ``{name: TensorSpec}`` of what a call returns (the names a call's
        dict has: a dict's keys, else ``output_0``, ``output_1``, ...), a size that
        depends on an input's ``None`` size None."""
        from ._spec import TensorSpec
        avals = self._function._exported.out_avals

        text = (self._function._entry.get("text") or {}).get("outputs", ())
        if isinstance(self._function, _Ranked):
            shapes = self._function._output_specs()
        else:
            shapes = [([d if isinstance(d, int) else None for d in a.shape], a.dtype)
                      for a in avals]

        def spec(i, name):
            shape, dtype = shapes[i]
            if i in text:
                from ._traced_text import CODEC
                dtype = CODEC.dtype
            else:
                dtype = np.dtype(dtype).name
            return TensorSpec(shape, dtype, name=name)
        tree = self._function._entry["outputs"]
        if "dict" in tree and all("leaf" in v for _, v in tree["dict"]):
            return {k: spec(v["leaf"], k) for k, v in tree["dict"]}
        n = len(avals) - len(self._function._writes)
        return {f"output_{i}": spec(i, f"output_{i}") for i in range(n)}

    def __call__(self, *args, **kwargs):
        """Calls the signature: its inputs by name, or, for a signature of one input,
        that input as the one positional argument (a Tensor), as TF's loaded
        signatures take them (a SignatureDef's inputs are an unordered map, so
        several inputs are keyword-only).

        >>> import tempfile, eagertape.tf as tf
        >>> class M(tf.Module):
        ...     @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="x")])
        ...     def f(self, x):
        ...         return {"y": x * 2.0}
        >>> path = tempfile.mkdtemp()
        >>> m = M(); tf.saved_model.save(m, path, signatures=m.f)
        >>> sig = tf.saved_model.load(path).signatures["serving_default"]
        >>> sig(tf.constant([1.0, 2.0]))["y"].numpy()
        array([2., 4.], dtype=float32)
        """
        names = [s["name"] for s in self._function._entry["inputs"]]
        if args:
            if len(names) != 1 or len(args) > 1:
                raise TypeError(f"signature takes {1 if len(names) == 1 else 0} positional "
                                f"arguments, got {len(args)}: pass {names} by keyword")
            if not isinstance(args[0], (_extend.TensorLike, Variable)):
                raise TypeError(f"signature expects its argument {names[0]!r} to be a Tensor; "
                                f"got {type(args[0]).__name__}")
            if names[0] in kwargs:
                raise TypeError(f"signature got two values for {names[0]!r}")
            kwargs = {names[0]: args[0], **kwargs}
        unknown = sorted(set(kwargs) - set(names))
        missing = [n for n in names if n not in kwargs]
        if unknown or missing:
            raise TypeError(f"signature takes the keyword arguments {names}"
                            + (f"; unexpected {unknown}" if unknown else "")
                            + (f"; missing {missing}" if missing else ""))
        out = self._function._call_flat([kwargs[n] for n in names])
        if isinstance(out, dict):
            return out
        leaves = out if isinstance(out, (tuple, list)) else [out]
        return {f"output_{i}": x for i, x in enumerate(leaves)}


def _signatures(spec, functions):
    keys = spec["signatures"]
    if keys is None:
        # TF's rule without signatures=: the root's one function with an input_signature
        root = spec["objects"][0].get("functions", [])
        keys = ({DEFAULT_SERVING_SIGNATURE_DEF_KEY: root[0][1]}
                if len(root) == 1 and isinstance(root[0][1], int) else {})
    return {key: _Signature(functions[i] if isinstance(i, int) else
                            _Ranked(f"signature {key!r}", [functions[k] for k in i]))
            for key, i in keys.items()}


class _Ranked(_Overloaded):
    """A signature with inputs of unknown rank, exported once a rank: a call runs
    the function of its inputs' ranks (TF's signature takes any rank: one not
    exported raises InvalidArgumentError, as the TF function eagertape wrote)."""

    def __init__(self, name, functions):
        super().__init__(name, functions)
        entries = [f._entry for f in functions]
        self._unknown = [j for j in range(len(entries[0]["inputs"]))
                         if len({len(e["inputs"][j]["shape"]) for e in entries}) > 1]
        inputs = [dict(s, shape=None) if j in self._unknown else s
                  for j, s in enumerate(entries[0]["inputs"])]
        self._entry = dict(entries[0], inputs=inputs)
        self._writes, self._exported = functions[0]._writes, functions[0]._exported

    def _call_flat(self, flat, rows=None):
        ranks = tuple(np.ndim(flat[j]) if not isinstance(flat[j], _extend.TensorLike)
                      else len(flat[j].shape) for j in self._unknown)
        for f in self._functions:
            if tuple(len(f._entry["inputs"][j]["shape"]) for j in self._unknown) == ranks:
                return f._call_flat(flat, rows)
        served = [tuple(len(f._entry["inputs"][j]["shape"]) for j in self._unknown)
                  for f in self._functions]
        raise _extend.InvalidArgumentError(
            f"this SavedModel's {self.__name__} (saved by eagertape) serves the "
            f"ranks {served} of its inputs of unknown rank; got {ranks}")

    def _output_specs(self):
        """Each output's shape over the ranks (None where they differ: TF's shape of
        a graph that takes any rank) and dtype."""
        out = []
        for avals in zip(*[f._exported.out_avals for f in self._functions]):
            shapes = [tuple(d if isinstance(d, int) else None for d in a.shape) for a in avals]
            if len({len(x) for x in shapes}) > 1:
                shape = None
            else:
                shape = [x[0] if len(set(x)) == 1 else None for x in zip(*shapes)]
            out.append((shape, avals[0].dtype))
        return out


_keras._saved_model_export = _export_keras      # Keras's model.export, in the join
