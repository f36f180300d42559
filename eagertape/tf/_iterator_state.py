"""Where a ``tf.data`` iterator is, as a value a checkpoint can hold.

A pass of a pipeline is a chain of ``Pass`` objects, one per transformation, each
holding the pass of the transformation before it (``up``). ``save(pass)`` gives the
chain's position as a nest of JSON values and NumPy arrays (a shuffle's buffer and
generator state, a batch's count, a repeat's epoch, ...), and ``restore(pass,
state)`` puts a fresh pass of the same pipeline there, as TF's iterator
checkpoints do. ``encode``/``decode`` turn such a nest into JSON and one byte blob
(a shuffle buffer of ten thousand elements is one array for orbax, not ten
thousand).

A pass that is a plain Python generator (``from_generator``, ``interleave``)
keeps its position in a suspended frame, which cannot be saved: ``save`` raises,
naming the transformation.

>>> from eagertape.tf import _iterator_state as state
>>> import numpy as np
>>> tree, blob = state.encode({"i": 3, "buffer": [(np.arange(2), np.float32(1.5))]})
>>> state.decode(tree, blob)["buffer"][0][0]
array([0, 1])
"""
import base64
import importlib
import re

import numpy as np

from .errors import FailedPreconditionError, UnimplementedError


class Pass:
    """One pass of one transformation: an iterator whose position ``save`` gives
    and ``restore`` puts back (on a fresh pass of the same pipeline)."""

    __slots__ = ()

    def __iter__(self):
        return self

    def save(self):
        raise NotImplementedError

    def restore(self, state):
        raise NotImplementedError


def save(it):
    """The state of pass ``it`` (None: a pass already ended and dropped)."""
    if it is None:
        return None
    if isinstance(it, Pass):
        return it.save()
    raise _unsavable(it)


def restore(it, state):
    """Put pass ``it`` (fresh) where ``state`` says."""
    if isinstance(it, Pass):
        it.restore(state)
    else:
        raise _unsavable(it)


def _unsavable(it):
    # A generator's qualified name is its function's: "Dataset.interleave.<locals>.make"
    # (a dataset class of its own: "TextLineDataset.__init__.<locals>.make").
    what = getattr(it, "__qualname__", "")
    m = re.match(r"(\w*Dataset)\.(\w+)\.", what)
    what = "a Python generator" if m is None else m.group(2) if m.group(1) == "Dataset" \
        else m.group(1)
    if what == "from_generator":
        return FailedPreconditionError(
            None, None,
            "Failed to checkpoint the iterator: its pipeline holds a "
            "Dataset.from_generator, whose Python generator's position cannot be saved (TF "
            "refuses too: the generator is external state). Make the dataset from arrays "
            "(Dataset.from_tensor_slices, Dataset.range(n).map(...)), or leave the iterator "
            "out of the Checkpoint and start a new one after restoring")
    through = f"Dataset.{what}" if what.islower() else what
    return UnimplementedError(
        None, None,
        f"eagertape cannot save the position of an iterator through {through} (TF can): "
        "leave the iterator out of the Checkpoint, or express the pipeline with map, "
        "flat_map, batch, shuffle, repeat and the other transformations that save it")


def stateful(what, name):
    """TF's refusal to save an iterator whose function has external state."""
    return FailedPreconditionError(
        None, None,
        f"Failed to serialize the input pipeline graph: the function {name!r} of "
        f"Dataset.{what} is stateful (it draws random numbers from a stateful generator, "
        "updates a Variable or calls Python), so the iterator's position does not say what "
        "it would give next; TF refuses it too. Use stateless ops "
        "(tf.random.stateless_uniform with a seed made from the element), or leave the "
        "iterator out of the Checkpoint")


# -- a state as JSON and one blob of bytes ------------------------------------------

# Elements that are not arrays (a ragged or sparse element, a window's dataset) say
# what they are with ``_state_encode() -> (kind, nest)``; ``DECODERS[kind](nest)``
# makes them again (data.py fills it).
DECODERS = {}

def encode(state):
    """``(tree, blob)``: ``state`` (nests of dicts, lists, tuples, namedtuples, Python
    scalars and NumPy arrays) as a JSON-able tree, its arrays' bytes in one uint8
    array."""
    chunks, offset = [], [0]

    def enc(x):
        if x is None or isinstance(x, (bool, int, float, str)):
            return x
        if isinstance(x, (np.ndarray, np.generic)):
            a = np.asarray(x)
            if a.dtype.kind == "O":
                return {"objects": [enc_object(v) for v in a.ravel().tolist()],
                        "shape": list(a.shape)}
            shape = list(a.shape)        # (ascontiguousarray makes a scalar 1-d)
            start = offset[0]
            chunks.append(np.ascontiguousarray(a).reshape(-1).view(np.uint8))
            offset[0] += a.nbytes
            dtype = a.dtype.name if a.dtype.kind == "V" else a.dtype.str
            return {"array": [dtype, shape, start, a.nbytes]}
        if isinstance(x, dict):
            return {"dict": [[enc(k), enc(v)] for k, v in x.items()]}
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            t = type(x)
            return {"namedtuple": [t.__module__, t.__qualname__, [enc(v) for v in x]]}
        if isinstance(x, tuple):
            return {"tuple": [enc(v) for v in x]}
        if isinstance(x, list):
            return [enc(v) for v in x]
        if hasattr(x, "_state_encode"):
            kind, payload = x._state_encode()
            return {"element": [kind, enc(payload)]}
        raise TypeError(f"cannot save {type(x).__name__} in an iterator's state")

    def enc_object(v):
        if isinstance(v, bytes):
            return {"bytes": base64.b64encode(v).decode("ascii")}
        if isinstance(v, str):
            return v
        raise TypeError(f"cannot save an object array holding {type(v).__name__}")

    tree = enc(state)
    blob = np.concatenate(chunks) if chunks else np.zeros(0, np.uint8)
    return tree, blob


def decode(tree, blob):
    """The state ``encode`` gave ``(tree, blob)`` for."""
    blob = np.asarray(blob, np.uint8)

    def dec(x):
        if isinstance(x, list):
            return [dec(v) for v in x]
        if not isinstance(x, dict):
            return x
        if "array" in x:
            dtype, shape, start, n = x["array"]
            dtype = np.dtype(dtype) if not dtype.isidentifier() else _named_dtype(dtype)
            return blob[start:start + n].copy().view(dtype).reshape(shape)
        if "objects" in x:
            values = [base64.b64decode(v["bytes"]) if isinstance(v, dict) else v
                      for v in x["objects"]]
            out = np.empty(len(values), object)
            out[:] = values
            return out.reshape(x["shape"])
        if "dict" in x:
            return {dec(k): dec(v) for k, v in x["dict"]}
        if "tuple" in x:
            return tuple(dec(v) for v in x["tuple"])
        if "element" in x:
            kind, payload = x["element"]
            return DECODERS[kind](dec(payload))
        if "namedtuple" in x:
            module, qualname, items = x["namedtuple"]
            return _namedtuple(module, qualname)(*(dec(v) for v in items))
        raise ValueError(f"not an iterator state: {x!r}")
    return dec(tree)


def _named_dtype(name):
    import jax.numpy as jnp          # NumPy knows bfloat16 and the like through JAX's types
    return np.dtype(jnp.dtype(name))


def _namedtuple(module, qualname):
    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
        return obj
    except (ImportError, AttributeError):
        raise ValueError(f"the iterator's saved elements are {module}.{qualname} namedtuples, "
                         "which cannot be found by that name (a class defined inside a "
                         "function): define it at the top level of a module") from None
