"""Keras functional models with ``tf.string`` inputs, on Keras's JAX backend.

TF's Keras runs a model whose ``Input`` is a string (a ``StringLookup``,
``TextVectorization`` or ``Hashing`` at the input, as TF's structured-data and
text tutorials build them) in ``fit``, ``evaluate`` and ``predict``. Keras 3 on
JAX cannot: strings are no JAX arrays (``Invalid dtype: object``). Here such a
model is cut in two where its strings end:

- the *host part*: the layers from the model's inputs to the first tensors that
  are not strings (the lookups' ids), run by Keras on the host on each batch,
  as a tf.data pipeline would run them (Keras's text layers run TensorFlow's
  kernels on NumPy strings), outside the tape: no gradient passes strings;
- the *inner model*: the rest of the graph, from those tensors and the model's
  other inputs to its outputs, sharing the model's layers and weights, run by
  Keras's trainer on JAX as any model.

``fit``/``evaluate``/``predict`` (and the ``*_on_batch`` ones) of such a model
give Keras the batches with the host part applied, keyed by ``_MARK`` names, and
the model's ``call`` hands those to the inner model. A layer with weights in
the host part (its weights would get no gradient) is a clear error.
"""
import contextlib
import contextvars
import functools

import numpy as np

_MARK = "_eagertape_host_"
_active = contextvars.ContextVar("eagertape_keras_host", default=None)


class _Split:
    """The host part of one functional model (its nodes up to the ``boundary``
    tensors) and the rest (the inner part), both run over the model's own graph:
    no other model is made of its layers (which would add nodes to them, and
    change what the model saves)."""

    def __init__(self, model, original_call):
        self.model, self.original_call = model, original_call
        self.texts = any(map(_is_text, model.inputs))
        boundary, numeric, seen, inner = [], [], set(), set()
        stack = list(model.outputs)
        while stack:
            t = stack.pop()
            if id(t) in seen:
                continue
            seen.add(id(t))
            node = _node(t)
            if node.is_input:
                numeric.append(t)
            elif _on_host(node):
                boundary.append(t)
            else:
                inner.add(id(node))
                stack.extend(node.input_tensors)
        host, stack = set(), list(boundary)
        while stack:
            node = _node(stack.pop())
            if id(node) not in host and not node.is_input:
                host.add(id(node))
                stack.extend(node.input_tensors)
        depths = sorted(model._nodes_by_depth, reverse=True)
        self.host_nodes = [n for d in depths for n in model._nodes_by_depth[d] if id(n) in host]
        # What the outputs need past the boundary: a numeric node that also feeds a
        # host node (FeatureSpace's discretized age, crossed with a string feature and
        # concatenated as it is) runs in both parts.
        self.inner_nodes = [n for d in depths for n in model._nodes_by_depth[d]
                            if id(n) in inner and n.operation and not n.is_input]
        weighted = [n.operation.name for n in self.host_nodes if n.operation.trainable_weights]
        if weighted:
            raise NotImplementedError(
                f"model {model.name!r} takes strings, and layer {weighted[0]!r}, which has "
                "trainable weights, runs on them: on Keras's JAX backend the layers of a "
                "model's strings run on the host, outside the gradient. Apply the string "
                "layers first (in the tf.data pipeline) and give the model their results")
        order = {id(t): i for i, t in enumerate(model.inputs)}
        numeric.sort(key=lambda t: order[id(t)])
        self.boundary = boundary
        self.inner_inputs = numeric + boundary
        self.numeric_at = [order[id(t)] for t in numeric]

    def apply(self, x):
        """The model's input ``x`` (its structure: a dict by input name, a list)
        with the host part applied: a dict of the inner part's inputs."""
        from .. import extend
        flat = _flat_inputs(self.model, x)
        known = {id(t): _ranked(np.asarray(v), t) for t, v in zip(self.model.inputs, flat)}
        # Keras's own layer calls, on the NumPy values (Keras's text layers take
        # strings so on its JAX backend).
        with extend.outside_recording():
            _run(self.host_nodes, known, lambda op: functools.partial(
                _host_call, op, self.original_call))
        values = [_ranked(flat[i], self.model.inputs[i]) for i in self.numeric_at]
        values += [np.asarray(known[id(t)]) for t in self.boundary]
        return {f"{_MARK}{i:04d}": v for i, v in enumerate(values)}

    def run(self, inputs, keras, operation_fn, **call_args):
        """The model's outputs from the inner part's inputs (``apply``'s dict), as
        Keras's functional call runs its graph."""
        known = {id(t): v for t, v in zip(self.inner_inputs, inner_inputs(inputs))}
        _run(self.inner_nodes, known, lambda op: operation_fn(op, **call_args))
        outputs = [known[id(t)] for t in self.model.outputs]
        outputs = keras.tree.pack_sequence_as(self.model._outputs_struct, outputs)
        return outputs[0] if isinstance(outputs, list) and len(outputs) == 1 else outputs


class _SequentialSplit:
    """The same for a Sequential model whose first layers run on strings (a
    TextVectorization before the model, as TF's text tutorial exports it)."""

    texts = True

    def __init__(self, model, original_call, k):
        self.model, self.original_call = model, original_call
        self.host_layers, self.inner_layers = model.layers[:k], model.layers[k:]

    def apply(self, x):
        from .. import extend
        x = _host_values(x)
        if not self.model.built and np.ndim(x):
            self.input_shape = tuple(np.shape(x))     # (a call's: TF's Keras builds from it)
        with extend.outside_recording():
            for layer in self.host_layers:
                x = _host_call(layer, self.original_call, x)
        return {f"{_MARK}0000": np.asarray(x)}

    def run(self, inputs, keras, operation_fn, **call_args):
        (x,) = inner_inputs(inputs)
        for layer in self.inner_layers:
            x = operation_fn(layer, **call_args)(x)
        if not self.model.built and all(layer.built for layer in self.model.layers):
            # The model called on strings before fit/evaluate/predict built it
            # (build_for): its layers are built by this call, and the model, as
            # TF's Keras builds it, from the strings' shape.
            self.build(getattr(self, "input_shape", None))
            self.model.built = True
        return x

    def build(self, shape):
        """The model built as TF's Keras builds a Sequential from its input's shape:
        a functional graph from a string Input (its ``inputs``, which ``export``
        reads), its layers built in order. Keras on JAX never does so here: its
        trainer sees the host part's ids, not the strings."""
        if shape is not None and not self.model.built:
            self.model.build(tuple(shape))

    def build_for(self, method, args, kwargs):
        """``build`` before ``fit``/``evaluate``/``predict`` of an unbuilt model, with
        the shape TF's trainer builds it from: a dataset's element spec, else the
        data's with no batch size (fit, evaluate) or its first batch's (predict)."""
        if self.model.built:
            return
        x = kwargs["x"] if "x" in kwargs else (args[0] if args else None)
        spec = getattr(x, "element_spec", None)
        if spec is not None:
            while isinstance(spec, (tuple, list)) and spec:
                spec = spec[0]
            shape = getattr(spec, "shape", None)
            shape = None if shape is None or getattr(shape, "rank", 0) is None else \
                tuple(shape.as_list() if hasattr(shape, "as_list") else shape)
        elif x is not None and hasattr(x, "shape") and len(x.shape):
            shape = tuple(x.shape)
            if method == "predict":
                batch = kwargs.get("batch_size") or (args[1] if len(args) > 1 else None) or 32
                shape = (min(int(shape[0]), int(batch)),) + shape[1:]
            else:
                shape = (None,) + shape[1:]
        else:
            shape = None
        self.build(shape)



# The Keras module and the join's lookup of Keras's private names
# (tf/_keras.py's KERAS_PRIVATE), given by the join when it is made (bind):
# this module does not import the join, which imports it.
_keras = None
_private = None


def bind(keras, private):
    """Called by the Keras join (tf/_keras.py) when it joins ``keras``."""
    global _keras, _private
    _keras, _private = keras, private

def _sequential_split(model, original_call):
    k = 0
    for layer in model.layers:
        if getattr(layer, "supports_jit", True) is not False:
            break
        k += 1
    if not k or k == len(model.layers):
        return None
    weighted = [layer.name for layer in model.layers[:k] if layer.trainable_weights]
    if weighted:
        return None
    return _SequentialSplit(model, original_call, k)


def _host_call(layer, original_call, *args, **kwargs):
    # Keras's own call of a layer on the host's values; a model taking strings
    # (one nested in another: TF's pandas tutorial's preprocessor) by its parts.
    split = split_of(layer, original_call)
    if split is None or not split.texts:
        return original_call(layer, *args, **kwargs)
    kwargs.pop("mask", None)
    return split.run(split.apply(args[0]), _keras,
                     lambda op, **call_args: functools.partial(_host_call, op, original_call),
                     **kwargs)


def _node(t):
    history = t._keras_history
    return history.operation._inbound_nodes[history.node_index]


def _run(nodes, known, operation_fn):
    for node in nodes:
        if all(id(x) in known for x in node.outputs):
            continue
        args, kwargs = node.arguments.fill_in(known)
        outputs = operation_fn(node.operation)(*args, **kwargs)
        for x, y in zip(node.outputs, _keras.tree.flatten(outputs)):
            known[id(x)] = y


def _ranked(v, t):
    # As Keras's functional call matches a value's rank to its Input's: a
    # trailing axis of 1 added or dropped.
    rank = len(t.shape)
    if not hasattr(v, "ndim"):
        v = np.asarray(v)
    if v.ndim == rank + 1 and v.shape[-1] == 1:
        return v[..., 0]
    if v.ndim == rank - 1 and t.shape[-1] == 1:
        return v[..., None]
    return v


def _on_host(node):
    # A layer on strings, or one Keras cannot run on JAX's traced values (its
    # lookups and hashing run TensorFlow's kernels: supports_jit is False).
    return any(_is_text(x) for x in node.input_tensors) or \
        getattr(node.operation, "supports_jit", True) is False


def _is_text(t):
    return getattr(t, "dtype", None) == "string"


def _host_values(x):
    def value(v):
        if hasattr(v, "numpy") and not isinstance(v, np.ndarray):
            return v.numpy() if getattr(v, "_host_only", False) else v
        if hasattr(v, "to_numpy"):      # a pandas Series
            v = v.to_numpy()
        return v
    if isinstance(x, dict):
        return {k: value(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(value(v) for v in x)
    return value(x)


def _flat_inputs(model, x):
    """``x``'s values in the order of ``model.inputs`` (as Keras's functional
    call matches them: a dict by input name)."""
    x = _host_values(x)
    if isinstance(x, dict):
        # A model made with a dict of inputs matches by the dict's keys, another by
        # the inputs' names (Keras's Functional._standardize_inputs).
        struct = getattr(model, "_inputs_struct", None)
        keys = {id(t): k for k, t in struct.items()} if isinstance(struct, dict) else {}
        names = [keys.get(id(t), t.name) for t in model.inputs]
        missing = [n for n in names if n not in x]
        if missing:
            raise ValueError(f"argument `x`: model {model.name!r} has an input named "
                             f"{missing[0]!r}, which the dict of inputs lacks (its keys: "
                             f"{sorted(x)})")
        return [x[n] for n in names]
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def split_of(model, original_call):
    """The split of ``model`` (made once), or None: a model that is not
    functional, takes no strings, or gives strings."""
    d = model.__dict__
    if "_eagertape_host_split" in d:
        return d["_eagertape_host_split"]
    split = None
    if isinstance(model, _private("Sequential")):
        split = _sequential_split(model, original_call)
    elif isinstance(model, _private("Functional")) and not any(map(_is_text, model.outputs)):
        texts = any(map(_is_text, model.inputs))
        if texts or any(getattr(layer, "supports_jit", True) is False for layer in model.layers):
            try:
                split = _Split(model, original_call)
            except NotImplementedError:
                if texts:
                    raise
                # (a lookup after trained layers: Keras's own error, as without
                # the split)
    d["_eagertape_host_split"] = split
    return split


def marked(inputs):
    """Whether a model call's ``inputs`` are the host part's results."""
    return isinstance(inputs, dict) and bool(inputs) and all(
        isinstance(k, str) and k.startswith(_MARK) for k in inputs)


def inner_inputs(inputs):
    return [inputs[k] for k in sorted(inputs)]


@contextlib.contextmanager
def hosting(split):
    token = _active.set(split)
    try:
        yield
    finally:
        _active.reset(token)


def active():
    """The split whose ``fit``/``evaluate``/``predict`` runs now, or None."""
    return _active.get()


def apply_to_element(split, element):
    """A dataset element ``x`` or ``(x, y[, sample_weight])`` with the host part
    applied to ``x``."""
    if isinstance(element, tuple):
        return (split.apply(element[0]),) + element[1:]
    return split.apply(element)
