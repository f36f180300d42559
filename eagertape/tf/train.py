"""``tf.train``: object-based checkpoints (``Checkpoint``, ``CheckpointManager``,
``latest_checkpoint``) for eagertape Variables, Modules, optimizers and Keras;
reading them (``list_variables``, ``load_variable``, ``load_checkpoint``,
``get_checkpoint_state``, ``checkpoints_iterator``), ``CheckpointOptions``,
``TrackableView`` and ``ExponentialMovingAverage``. TF's Example protos and
distributed runtime are left out (their AttributeErrors say why).

What is saved is TF's object graph: a Checkpoint depends on the objects given
to it by name (in name order, as TF's), a ``tf.Module`` on its attributes, a list,
tuple or dict on its items, a Keras layer or optimizer on the attributes TF's Keras
3 tracks (``net/l1/_kernel``, ``m/_functional/_operations/1/_kernel``,
``opt/_variables/2``: see ``_tf_tracks``), an eagertape optimizer on its step count
and slots. Each Variable is saved once, under the first path a breadth-first walk
finds, TF's key; the other paths to an object are kept too (the object graph's
other edges), and a value is restored into whatever object sits at any of them
now, so a freshly built model of the same structure takes the values.

Storage is orbax-checkpoint (``pip install eagertape[checkpoint]``; imported
when a Checkpoint is first made, never at ``import eagertape.tf``). A
checkpoint ``prefix-N`` is one orbax directory holding the arrays and a JSON
index (path, shape, dtype of every value). It is written synchronously under a
temporary name and renamed into place, and the directory's ``checkpoint`` file
(JSON with the fields of TF's CheckpointState) is replaced atomically only
after that, so a save that fails midway leaves the last good checkpoint and
``latest_checkpoint`` as they were (and ``save_counter`` as it was, where TF's
would have moved on). Numbering, ``latest_checkpoint`` and ``max_to_keep`` /
``keep_checkpoint_every_n_hours`` are TF's; the file layout is not: TF cannot
read these checkpoints, unless written with
``CheckpointOptions(eagertape_format="tensorflow")`` (TF's bundle, which TF
restores: Variables in Checkpoints, Modules, lists, dicts, Keras layers and
optimizers).

Checkpoints TensorFlow wrote (``prefix.index`` + ``prefix.data-*``, TF's tensor
bundle, read by ``_tf_bundle`` without TensorFlow) are read too: ``restore`` /
``read`` dispatch on what is at the path, and for TF's walk its object graph
alongside the live objects (``_TFRestore``), as TF matches them;
``load_checkpoint`` gives TF's keys, shapes, dtypes and values, and
``latest_checkpoint`` reads TF's text-format ``checkpoint`` file.

A ``tf.data`` iterator (``iter(dataset)``, ``dataset.as_numpy_iterator()``) is
saved as its position, as TF saves it (see ``_iterator_state``): restored into
it, or into a fresh iterator of the same pipeline, ``next`` gives the element
that came after the save. Its state is in the JSON index, its arrays (a shuffle
buffer's elements) one blob among the arrays. An iterator whose position cannot
be saved (``from_generator``; a stateful ``map``) raises before anything is
written; one that does not fit the pipeline it is restored into raises before
anything changes.

Restoring checks every matched value's shape and dtype before it assigns any,
and refuses the whole restore, naming each path, when one differs. Objects
the checkpoint lacks, and saved values no object takes, are left as TF leaves
them: the returned status's ``assert_consumed()`` /
``assert_existing_objects_matched()`` report them, as things stand when asked.
A saved value whose Variable does not exist yet waits for it, as in TF
(deferred restoration): it is assigned when the Variable appears at its path,
attached as an attribute of a Checkpoint or ``tf.Module``, or made as a Keras
layer's or optimizer's weight (once Keras gives it its initial value), so a
model built on its first call starts from the checkpoint. A waiting value of
the wrong shape or dtype raises there, once. Optimizer slots are made for the
variables the checkpoint has them for (a Keras optimizer is built for the
variables it was built for in the checkpoint once they all exist; from TF's
checkpoint, its slots wait for its build, as in TF). A list or dict given to a
Checkpoint is held as TF's tracked wrapper: a Variable put into it in place
(``ckpt.items.append(v)``) takes its waiting value then.
"""
import base64
import collections
import inspect
import json
import os
import re
import shutil
import time
import uuid
import weakref

import jax.numpy as jnp
import numpy as np

from . import _iterator_state, _keras, _tf_bundle
from .. import optimizers as _optimizers
from ..extend import standin as _standin
from ..extend import InvalidArgumentError
from ..extend import Variable
from ._module import Module
from ._util import _Unsupported, left_out as _left_out
from .data import Iterator as _Iterator, NumpyIterator as _NumpyIterator

# tf.data iterators: saved as their position (TF's ITERATOR_STATE), not as Variables
_ITERATORS = (_Iterator, _NumpyIterator)

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointOptions", "ExponentialMovingAverage",
           "TrackableView", "checkpoints_iterator", "get_checkpoint_state", "latest_checkpoint",
           "list_variables", "load_checkpoint", "load_variable"]

_FORMAT = "eagertape-checkpoint/1"
_STATE_FILE = "checkpoint"      # TF's name for a directory's checkpoint state


def _orbax():
    try:
        import orbax.checkpoint as ocp
    except ImportError as e:
        raise ImportError("tf.train.Checkpoint stores checkpoints with orbax-checkpoint, which "
                          "is not installed: pip install 'eagertape[checkpoint]'") from e
    return ocp


# -- the object graph ----------------------------------------------------------
def _keras_classes():
    k = _keras._keras         # None unless eagertape.tf.keras was used: no import here
    return None if k is None else (k.layers.Layer, k.optimizers.Optimizer, k.metrics.Metric)


def _canonical(obj):
    obj = _standin(obj)       # a Keras variable: the eagertape Variable sharing its storage
    return obj._of if isinstance(obj, Variable) else obj


def _trackable(obj):
    if type(obj).__module__ == _keras_tracking():
        return False      # Keras's TrackedList/Dict/Set: no TF trackables (TF does not wrap them)
    if isinstance(obj, (Variable, Module, Checkpoint, _optimizers.Optimizer, list, tuple, dict)
                  + _ITERATORS):
        return True
    k = _keras_classes()
    return (k is not None and isinstance(obj, k)) or hasattr(type(obj), "_eagertape_variable")


# -- Keras objects as TF's Keras (3, on TF) names them in checkpoints -----------------
# On TF a Keras layer or optimizer is TF's AutoTrackable: an attribute assignment
# makes the value a dependency under the attribute's name when the value is TF
# trackable once TF has wrapped it (a Variable, a layer, an optimizer, a tf.Module;
# a plain list, dict or tuple, which TF wraps), in assignment order: a Dense's kernel
# is ``_kernel``, a Sequential's weights are under ``_functional/_operations/<i>``,
# an optimizer's under ``_iterations``, ``_learning_rate``, ``_variables/<i>`` and
# ``_trainable_variables/<i>``. Not tracked: a list or dict Keras's own tracking
# wrapped first (its TrackedList/TrackedDict, which TF does not wrap: a subclassed
# model's list of layers), a Keras metric or seed generator (no TF trackables in
# Keras 3), and the collections Layer._initialize_tracker sets with TF's tracking
# off. The same Keras classes run here on JAX, and their attributes are set in the
# same order, so the attributes are read in that order with TF's rules.
# (Keras's tracking module: declared with the join's private names, tf/_keras.py)
_KERAS_TRACKING = None
_KERAS_LAYER_UNTRACKED = frozenset((
    "_trainable_variables", "_non_trainable_variables", "_layers", "_metrics",
    "_seed_generators"))


def _keras_tracking():
    global _KERAS_TRACKING
    if _KERAS_TRACKING is None:
        from ._keras import KERAS_PRIVATE
        _KERAS_TRACKING = KERAS_PRIVATE["tracking"]
    return _KERAS_TRACKING


def _tf_tracks(value):
    """Whether TF's Keras makes ``value``, assigned to an attribute (or held in a list,
    dict or tuple that is), a dependency."""
    if type(value) in (list, dict, collections.OrderedDict, _ListWrapper, _DictWrapper):
        return True
    if isinstance(value, tuple):          # TF wraps a tuple that holds trackables
        return any(_tf_tracks(x) for x in value)
    if not _trackable(value) or isinstance(value, (list, dict)):
        return False
    metric = (_keras_classes() or (None, None, ()))[2]
    return not isinstance(value, metric)


def _keras_object_children(obj):
    layer = _keras_classes()[0]
    skip = _KERAS_LAYER_UNTRACKED if isinstance(obj, layer) else ()
    for name, value in list(vars(obj).items()):
        if name in skip or name.startswith(("_self_", "_eagertape")):
            continue
        if _tf_tracks(value):
            yield name, value


def _children(obj):
    """An object's (name, dependency) pairs, as TF's object graph names them."""
    if isinstance(obj, Checkpoint):
        deps = list(obj._deps.items())
        return deps + ([("save_counter", obj._counter)] if obj._counter is not None else [])
    if isinstance(obj, Module):
        ignored = obj._TF_MODULE_IGNORED_PROPERTIES
        return [(n, x) for n, x in sorted(vars(obj).items()) if n not in ignored]
    if isinstance(obj, (list, tuple)):
        return [(str(i), x) for i, x in enumerate(obj)]
    if isinstance(obj, dict):
        return [(str(k), x) for k, x in obj.items()]
    if isinstance(obj, _optimizers.Optimizer):
        return [("iterations", obj.iterations)]     # slots: see _graph
    layer, optimizer, metric = _keras_classes() or (None, None, None)
    if layer is not None and isinstance(obj, (layer, optimizer)):
        return list(_keras_object_children(obj))
    if metric is not None and isinstance(obj, metric):
        return [(x.name, x) for x in obj.variables]
    return []


def _escape(name):
    # TF's escaping (its _ESCAPED_SLASH is ".S"), so that a "/" inside a name
    # cannot fake a path and the names are TF's.
    return name.replace(".", "..").replace("/", ".S")


class _Graph:
    """The Variables (and tf.data iterators) reachable from a root, each under its
    first breadth-first path; ``aliases``: each other path an object was reached by
    (``<first path of its parent>/<name>``) -> its first path, TF's object graph's
    other edges. Walked with a checkpoint's ``aliases``, the live objects' paths are
    the checkpoint's: an object reached where the checkpoint had an alias is under
    the path its value was saved at (TF matches by walking its object graph)."""

    def __init__(self, root, prefix="", aliases=None):
        self.variables, self.paths, self.objects, self.iterators = {}, {}, [], {}
        self.optimizers, self.keras_optimizers = [], []
        self.aliases, taken = {}, set()
        k = _keras_classes()
        queue = collections.deque([(prefix, root)])
        while queue:
            path, obj = queue.popleft()
            obj = _canonical(obj)
            if id(obj) in self.paths:
                if path != self.paths[id(obj)]:
                    self.aliases[path] = self.paths[id(obj)]
                continue
            if aliases and aliases.get(path, path) not in taken:
                path = aliases[path] if path in aliases else path
            taken.add(path)
            self.paths[id(obj)] = path
            if isinstance(obj, Variable):
                self.variables.setdefault(path, obj)
                continue
            if isinstance(obj, _ITERATORS):
                self.iterators.setdefault(path, obj)
                continue
            if not isinstance(obj, (list, tuple, dict)):
                self.objects.append((path, obj))
            if isinstance(obj, _optimizers.Optimizer):
                self.optimizers.append((path, obj))
            elif k is not None and isinstance(obj, k[1]):
                self.keras_optimizers.append((path, obj))
            for name, child in _children(obj):
                if _trackable(child):
                    queue.append((f"{path}/{_escape(name)}" if path else _escape(name), child))
        # An eagertape optimizer's slots, under the path of the Variable they serve.
        self.slots = {}
        for path, opt in self.optimizers:
            served = self.slots[path] = []
            for v, _, slots in opt._states.values():
                vpath = self.paths.get(id(v))
                if vpath is not None and vpath in self.variables:
                    served.append(vpath)
                    self._add_slots(path, vpath, slots)

    def _add_slots(self, path, vpath, slots):
        for i, s in enumerate(slots):
            self.variables[f"{path}/.slots/{vpath}/{i}"] = s

    def keras_built_for(self, opt):
        return [self.paths.get(id(_canonical(x))) for x in opt._trainable_variables]


def _describe(v):
    return f"shape {tuple(v.shape)} dtype {np.dtype(v.dtype).name}"


def _iterator_states(graph, arrays):
    """Each tf.data iterator's position (``_iterator_state``): its JSON tree for the
    index, the bytes of its arrays (a shuffle buffer's elements) one blob among
    ``arrays``. Made before anything is written: an iterator that cannot be saved
    leaves no checkpoint behind."""
    out = {}
    for key, it in graph.iterators.items():
        tree, blob = _iterator_state.encode(it._save())
        name = f"iterator-{len(out)}" if blob.size else None
        if name:
            arrays[name] = blob
        out[key] = {"state": tree, "blob": name}
    return out


# -- lists and dicts a Checkpoint holds ---------------------------------------------
class _ListWrapper(list):
    """A list held by a Checkpoint, as TF's ``ListWrapper``: a list whose changes in
    place (``append``, ``extend``, ``insert``, item assignment) announce a Variable
    put into it, so that a value a restore keeps for it is assigned then.

    >>> import eagertape.tf as tf, tempfile, os
    >>> path = tf.train.Checkpoint(listed=[tf.Variable(1.0)]).write(
    ...     os.path.join(tempfile.mkdtemp(), "x"))
    >>> restore = tf.train.Checkpoint()
    >>> _ = restore.read(path)
    >>> restore.listed = []
    >>> restore.listed
    ListWrapper([])
    >>> v = tf.Variable(0.0)
    >>> restore.listed.append(v)
    >>> float(v.numpy())
    1.0
    """

    def __repr__(self):
        return f"ListWrapper({list.__repr__(self)})"


class _DictWrapper(dict):
    """A dict held by a Checkpoint, as TF's ``_DictWrapper``: a dict whose changes in
    place (item assignment, ``update``, ``setdefault``) announce a Variable put into
    it, so that a value a restore keeps for it is assigned then.

    >>> import eagertape.tf as tf
    >>> tf.train.Checkpoint(mapped={"a": tf.Variable(1.0)}).mapped.__class__.__name__
    '_DictWrapper'
    """

    def __repr__(self):
        return f"DictWrapper({dict.__repr__(self)})"


def _announcing(cls, name):
    method = getattr(cls.__mro__[1], name)

    def changed(self, *args, **kwargs):
        out = method(self, *args, **kwargs)
        if _PENDING:
            _new_dependency()
        return out
    changed.__name__, changed.__doc__ = name, method.__doc__
    setattr(cls, name, changed)


for _name in ("append", "extend", "insert", "__setitem__", "__iadd__"):
    _announcing(_ListWrapper, _name)
for _name in ("__setitem__", "update", "setdefault"):
    _announcing(_DictWrapper, _name)
del _name


# -- Checkpoint ----------------------------------------------------------------
class Checkpoint:
    """``tf.train.Checkpoint(root=None, **kwargs)``: saves and restores the
    Variables of the objects given (and of the objects they hold).

    >>> import eagertape.tf as tf, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> v = tf.Variable([1.0, 2.0])
    >>> ckpt = tf.train.Checkpoint(v=v)
    >>> path = ckpt.save(os.path.join(d, "ckpt"))
    >>> os.path.basename(path), int(ckpt.save_counter)
    ('ckpt-1', 1)
    >>> _ = v.assign([0.0, 0.0])
    >>> ckpt.restore(path).assert_consumed().__class__.__name__
    'LoadStatus'
    >>> v.numpy()
    array([1., 2.], dtype=float32)

    A ``tf.data`` iterator is saved as its position:

    >>> it = iter(tf.data.Dataset.range(5).shuffle(5, seed=1))
    >>> first = int(next(it))
    >>> path = tf.train.Checkpoint(it=it).save(os.path.join(d, "data"))
    >>> after = [int(x) for x in it]
    >>> fresh = iter(tf.data.Dataset.range(5).shuffle(5, seed=1))
    >>> _ = tf.train.Checkpoint(it=fresh).restore(path)
    >>> [int(x) for x in fresh] == after
    True
    """

    def __init__(self, root=None, **kwargs):
        _orbax()
        object.__setattr__(self, "_deps", {})
        object.__setattr__(self, "_counter", None)      # made on first use, as TF's
        object.__setattr__(self, "_root", root)         # TF's graph names its children
        if root is not None:
            if not _trackable(root):
                raise ValueError(f"`Checkpoint` was expecting root to be a trackable object, "
                                 f"got {root!r}")
            for name, child in _children(_canonical(root)):
                if _trackable(child):
                    self._deps[name] = child
        for name, value in sorted(kwargs.items()):      # TF's order: by name
            setattr(self, name, value)

    def __setattr__(self, name, value):
        if name.startswith("_"):
            return object.__setattr__(self, name, value)
        if not _trackable(value):
            raise ValueError(f"`Checkpoint` was expecting {name} to be a trackable object (a "
                             f"Variable, tf.Module, optimizer, Keras object, Checkpoint, or a "
                             f"list/tuple/dict of them), got {value!r}")
        if name == "save_counter":
            raise ValueError("`save_counter` is the Checkpoint's own; use another name")
        if type(value) in (list, dict, collections.OrderedDict):
            value = (_ListWrapper if isinstance(value, list) else _DictWrapper)(value)
        self._deps[name] = value
        _new_dependency(name)

    def __getattr__(self, name):
        try:
            return self.__dict__["_deps"][name]
        except KeyError:
            raise AttributeError(f"'Checkpoint' object has no attribute {name!r}") from None

    @property
    def save_counter(self):
        """The number of ``save`` calls (an int64 Variable, restored with the rest)."""
        if self._counter is None:
            object.__setattr__(self, "_counter",
                               Variable(np.int64(0), trainable=False, name="save_counter"))
        return self._counter

    def save(self, file_prefix, options=None):
        """Write ``f"{file_prefix}-{save_counter + 1}"``, count it, and make it the
        directory's ``latest_checkpoint``. Returns the path."""
        counter = self.save_counter
        number = int(counter.numpy()) + 1
        counter.assign(np.int64(number), read_value=False)
        try:
            path = self._write(f"{os.fspath(file_prefix)}-{number}", options)
        except BaseException:
            counter.assign(np.int64(number - 1), read_value=False)
            raise
        _write_state(os.path.dirname(path), path, [path], tf_format=_tf_format(options))
        _after_write(options, path)
        return path

    def write(self, file_prefix, options=None):
        """Write to ``file_prefix`` itself: no number, no ``save_counter`` change,
        not seen by ``latest_checkpoint``. Returns the path."""
        path = self._write(os.fspath(file_prefix), options)
        _after_write(options, path)
        return path

    def _write(self, path, options=None):
        if _tf_format(options):
            tensors = _tf_object_graph(self)       # refuses what TF's format cannot hold
            return _tf_bundle.write_bundle(path, tensors)
        graph = _Graph(self)
        index, arrays = [], {}
        for key, v in graph.variables.items():
            value = np.asarray(v.numpy())
            index.append([key, list(value.shape), np.dtype(value.dtype).name])
            if value.size:       # orbax refuses empty arrays; shape and dtype say it all
                arrays[str(len(index) - 1)] = value
        meta = {"format": _FORMAT, "values": index, "slots": graph.slots,
                "aliases": graph.aliases,
                "keras_optimizers": {p: graph.keras_built_for(o)
                                     for p, o in graph.keras_optimizers},
                "iterators": _iterator_states(graph, arrays)}
        try:        # TF's object graph, which load_checkpoint gives as TF does
            proto = _tf_object_graph(self, values=False)[_OBJECT_GRAPH].item()
            meta["tf_object_graph"] = base64.b64encode(proto).decode("ascii")
        except ValueError:      # an object TF's checkpoints lay out otherwise
            pass
        _atomic_orbax_save(path, arrays, meta)
        return path

    def restore(self, save_path, options=None):
        """Restore the values saved at ``save_path`` (as returned by ``save`` or
        ``latest_checkpoint``; None restores nothing). A value whose Variable is
        not made yet is assigned when it is (see the module's notes). Returns a
        status whose ``assert_consumed()`` raises if a saved value found no object
        (yet) or an object found no value.

        >>> import eagertape.tf as tf, tempfile, os
        >>> path = tf.train.Checkpoint(w=tf.Variable([3.0, 4.0])).save(
        ...     os.path.join(tempfile.mkdtemp(), "ckpt"))
        >>> later = tf.train.Checkpoint()
        >>> status = later.restore(path)
        >>> later.w = tf.Variable([0.0, 0.0])      # made after the restore: restored now
        >>> later.w.numpy(), status.assert_consumed() is status
        (array([3., 4.], dtype=float32), True)
        """
        if save_path is None:
            return _InitializationOnlyStatus()
        self.save_counter        # noqa: B018  (made now, as TF's restore does)
        return self.read(save_path, options)

    def read(self, save_path, options=None):
        """Restore what ``write`` wrote; like ``restore`` but without making
        ``save_counter`` first."""
        save_path = _path_argument(save_path, "save_path")
        if _tf_bundle.is_bundle(save_path):      # a checkpoint TensorFlow wrote
            bundle = _tf_bundle.BundleReader(save_path)
            if _OBJECT_GRAPH not in bundle.entries:     # TF 1's Saver: by variable name
                return _NameBasedStatus(self, save_path, bundle)
            record = _TFRestore(self, save_path, bundle)
            record.apply(strict=True)
            record.register()
            return LoadStatus(record, self)
        meta, arrays = _orbax_load(save_path)
        record = _Restore(self, save_path, meta, arrays)
        record.apply(strict=True)
        record.register()
        return LoadStatus(record, self)


# -- deferred restoration ----------------------------------------------------------
# TF queues the values of a restore that found no Variable yet and assigns each when
# its Variable appears at the path (an attribute set on a Checkpoint or Module, a
# Keras layer's or optimizer's new weight): a model built lazily takes the
# checkpoint's values before its first use. A _Restore is that queue. It is kept
# alive by the objects of the graph it was restored into (weakly keyed on each, as
# TF keeps its restore coordinator on the objects), not by the Checkpoint, which a
# program often drops at once (``tf.train.Checkpoint(model=m).restore(path)``).
_RESTORES_OF = weakref.WeakKeyDictionary()    # trackable object -> [_Restore, ...]
_PENDING = weakref.WeakSet()                   # _Restores with values still unclaimed
_RESOLVING = []                                # re-entry guard: building makes weights


class _Restore:
    """One restore: the saved values, which are still waiting for their Variable,
    and which Variables took one."""

    def __init__(self, root, save_path, meta, arrays):
        self.save_path, self.meta, self.arrays = save_path, meta, arrays
        self.saved = {key: (tuple(shape), jnp.dtype(dtype), str(i))
                      for i, (key, shape, dtype) in enumerate(meta["values"])}
        self.iterators = meta.get("iterators", {})     # path -> a tf.data iterator's state
        self.pending = set(self.saved) | set(self.iterators)
        self.restored = {}                 # id -> Variable given a value by this restore
        self.restored_keys = set()
        self.anchors = [("", weakref.ref(root))]
        self._held = set()                 # ids of the objects that keep this restore
        # the path components a new dependency's name is looked up in; a repeated
        # Keras weight name's "_<i>" suffix dropped too (a weight knows its bare name)
        self.components = set()
        for key in list(self.saved) + list(self.iterators):
            for part in key.split("/"):
                self.components.update((part, re.sub(r"_\d+$", "", part)))

    def _graphs(self):
        """The graphs of the anchors still alive, each walked from the highest one
        (the root while it lives; else the objects it held, under their paths)."""
        alive = [(p, o) for p, ref in self.anchors if (o := ref()) is not None]
        alive.sort(key=lambda po: po[0].count("/") + (po[0] != ""))
        graphs, covered = [], []
        for path, obj in alive:
            if any(path == c or c == "" or path.startswith(c + "/") for c in covered):
                continue
            covered.append(path)
            graphs.append(_Graph(obj, path, self.meta.get("aliases")))
        return graphs

    def live_variables(self):
        """The Variables and tf.data iterators reachable now, by path."""
        out = {}
        for g in self._graphs():
            for key, v in list(g.variables.items()) + list(g.iterators.items()):
                out.setdefault(key, v)
        return out

    def _prepare_iterators(self, graphs, errors):
        """The waiting iterator positions whose iterators exist now, each restored
        into a fresh pass of its pipeline (the iterator itself is changed only by
        the commit, after every check), and the paths of those that do not fit."""
        ready, failed = [], set()
        for graph in graphs:
            for key in sorted(self.pending & graph.iterators.keys()):
                it = graph.iterators[key]
                if id(it) in self.restored or any(k == key for k, _, _ in ready):
                    continue
                saved = self.iterators[key]
                blob = self.arrays.get(saved["blob"]) if saved["blob"] else None
                try:
                    state = _iterator_state.decode(saved["state"], np.zeros(0, np.uint8)
                                                   if blob is None else np.asarray(blob))
                    ready.append((key, it, it._restored(state)))
                except (KeyError, IndexError, TypeError, ValueError) as e:
                    failed.add(key)
                    errors.append(f"{key}: the checkpoint's iterator position does not fit "
                                  f"this iterator's dataset (was it saved from another "
                                  f"pipeline?): {type(e).__name__}: {e}")
        return ready, failed

    def apply(self, strict):
        """Assign the waiting values whose Variables exist now. ``strict`` (the
        restore call itself): a shape or dtype that differs raises before any
        Variable changes; later (a Variable made after the restore), it raises too,
        as TF's does, and that value keeps waiting."""
        graphs = self._graphs()
        todo, commits = {}, []
        pending = {k: self.saved[k] for k in self.pending if k in self.saved}
        for graph in graphs:
            commit, fresh = _prepare_slots(graph, self.meta, pending, strict)
            commits += commit
            for key in sorted(self.pending & graph.variables.keys()):
                v = graph.variables[key]
                if key not in todo and id(v) not in self.restored and not _unset(v):
                    todo[key] = (v, key in fresh)
        errors, shapes_differ = [], False
        for key, (v, fresh) in list(todo.items()):
            shape, dtype, _ = self.saved[key]
            shapes_differ |= tuple(v.shape) != shape
            if tuple(v.shape) != shape or (np.dtype(v.dtype) != np.dtype(dtype) and not fresh):
                errors.append(f"{key}: the checkpoint has shape {shape} dtype "
                              f"{np.dtype(dtype).name}, the object's Variable has {_describe(v)}")
                if not strict:      # said once, where that Variable was attached (TF alike)
                    del todo[key]
                    self.pending.discard(key)
        iterators, failed = self._prepare_iterators(graphs, errors)
        if not strict:
            self.pending -= failed
        # TF's restore op refuses a dtype with InvalidArgumentError (a ValueError),
        # an iterator of another pipeline with NotFoundError
        from .errors import NotFoundError
        error = ValueError if shapes_differ else NotFoundError if failed and len(
            failed) == len(errors) else InvalidArgumentError
        if errors and strict:
            raise error(f"cannot restore {self.save_path!r} (no Variable was changed):\n  "
                             + "\n  ".join(errors))
        for fn in commits:
            fn()
        for key, (v, fresh) in todo.items():
            shape, dtype, i = self.saved[key]
            value = self.arrays.pop(i) if i in self.arrays else np.zeros(shape, dtype)
            # A jax array: eagertape takes NumPy's bfloat16 (kind "V") only so.
            value = jnp.asarray(value, dtype)
            if fresh:      # a slot's dtype after a step may not be its initial one
                v._value = value
            else:
                v.assign(value, read_value=False)
            self.pending.discard(key)
            self.restored[id(v)] = v
            self.restored_keys.add(key)
        for key, it, restored in iterators:
            it._commit(restored)
            self.pending.discard(key)
            self.restored[id(it)] = it
            self.restored_keys.add(key)
            if self.iterators[key]["blob"]:
                self.arrays.pop(self.iterators[key]["blob"], None)
        if self.pending:
            for graph in graphs:
                self._anchor(graph)
        else:
            self.release()
        if errors:
            raise error(f"cannot restore {errors[0].split(':')[0]!r} from "
                             f"{self.save_path!r} into the Variable just attached (it keeps its "
                             f"value):\n  " + "\n  ".join(errors))

    def release(self):
        """Nothing waits any more: the objects stop holding this restore (a status
        the program kept still reads it)."""
        _PENDING.discard(self)
        self.arrays = {}
        for _, ref in self.anchors:
            held = _RESTORES_OF.get(ref()) if ref() is not None else None
            if held is not None and self in held:
                held.remove(self)
        self._held.clear()

    def _anchor(self, graph):
        for path, obj in graph.objects:
            if id(obj) in self._held:
                continue
            try:
                _RESTORES_OF.setdefault(obj, []).append(self)
            except TypeError:        # not weakly referable or not hashable: its parent holds
                continue
            self._held.add(id(obj))
            if path:
                self.anchors.append((path, weakref.ref(obj)))

    def register(self):
        """Wait for the values not restored yet; an older restore into these objects
        gives up the paths this one has (the newest restore wins, as in TF)."""
        if not self.pending:
            return
        mine = {id(ref()) for _, ref in self.anchors if ref() is not None}
        for old in list(_PENDING):
            if any(id(ref()) in mine for _, ref in old.anchors if ref() is not None):
                old.pending -= self.saved.keys() | self.iterators.keys()
                if not old.pending:
                    old.release()
        _PENDING.add(self)
        _install_hooks()


class _Everything:
    # Any new dependency may lie on a TF object-graph path: a TF restore re-walks.
    def __contains__(self, name):
        return True


def _tf_child(obj, name):
    """The live object at ``obj``'s dependency ``name`` in TF's object graph: the
    name eagertape's own graph gives it (Checkpoint, Module, list, dict), else the
    attribute or item of that name, as TF's AutoTrackable tracks attributes (a
    Keras 3 object is the same Python object on TF and on JAX, so its
    attributes, ``_functional/_operations/1/_kernel``, are TF's names)."""
    if isinstance(obj, Checkpoint):
        if name == "save_counter":
            return obj._counter
        found = obj._deps.get(name)
        root = obj.__dict__.get("_root")
        return found if found is not None or root is None else _tf_child(_canonical(root), name)
    if isinstance(obj, (list, tuple)):
        return obj[int(name)] if name.isdigit() and int(name) < len(obj) else None
    if isinstance(obj, dict):
        if name in obj:
            return obj[name]
        return next((x for k, x in obj.items() if str(k) == name), None)
    if isinstance(obj, Variable):
        return None
    found = dict(_children(obj)).get(name)
    if found is None and not name.startswith("__"):
        try:
            found = inspect.getattr_static(obj, name)
        except AttributeError:
            return None
        if isinstance(found, (property, staticmethod, classmethod)) or callable(found) and \
                not _trackable(found):
            return None
    return found


def _fits(value_dtype, v):
    """Whether a saved dtype may go into Variable ``v``: the same, or both
    integers (a Keras optimizer's iteration count is int64 on TF, int32 on JAX)."""
    target = np.dtype(v.dtype)
    return value_dtype == target or (value_dtype.kind in "iu" and target.kind in "iu")


class _TFRestore(_Restore):
    """A restore of a checkpoint TensorFlow wrote: TF's object graph (its
    ``TrackableObjectGraph``) walked from the root alongside the live objects,
    each node's child found by name, each Variable node's value assigned to the
    live Variable at that node (TF's matching, not by checkpoint key: a Keras
    weight is saved under the first path TF's walk found, often the optimizer's,
    and is matched wherever it is reached)."""

    def __init__(self, root, save_path, bundle):
        from ._proto.checkpoint import TrackableObjectGraph
        self.save_path, self.bundle = save_path, bundle
        self.nodes = TrackableObjectGraph.FromString(bundle.get(_OBJECT_GRAPH).item()).nodes
        self.keys = {}             # node id -> the checkpoint key of its VARIABLE_VALUE
        other = set()
        for i, node in enumerate(self.nodes):
            for attr in node.attributes:
                if attr.name == "VARIABLE_VALUE" and attr.checkpoint_key in bundle.entries:
                    self.keys[i] = attr.checkpoint_key
                else:       # an iterator's state, a TF-1 optimizer's slot: nothing takes them
                    other.add(attr.checkpoint_key)
        self.saved = {key: (tuple(bundle.shape(key)), bundle.dtype(key), key)
                      for key in self.keys.values()}
        self.meta, self.arrays, self.iterators = {}, {}, {}
        self.pending = set(self.saved) | other
        self.restored, self.restored_keys = {}, set()
        self.anchors = [("", weakref.ref(root))]
        self.node_anchors = [(0, weakref.ref(root))]
        self._held = set()
        self.components = _Everything()
        self.matched_nodes = set()

    def walk(self):
        """``{node id: live object}`` for the nodes reachable now, breadth first from
        the live anchors (the first object found for a node keeps it)."""
        found = {}
        queue = collections.deque((n, o) for n, ref in self.node_anchors
                                  if (o := ref()) is not None)
        while queue:
            node, obj = queue.popleft()
            obj = _canonical(obj)
            if node in found or node >= len(self.nodes):
                continue
            found[node] = obj
            for child in self.nodes[node].children:
                if child.node_id not in found:
                    value = _tf_child(obj, child.local_name)
                    if value is not None:
                        queue.append((child.node_id, value))
        return found

    def apply(self, strict):
        found = self.walk()
        self.matched_nodes.update(found)
        todo, errors, shapes_differ = [], [], False
        for node, obj in found.items():
            key = self.keys.get(node)
            if key is None or key not in self.pending or not isinstance(obj, Variable) or \
                    id(obj) in self.restored or _unset(obj):
                continue
            shape, dtype, _ = self.saved[key]
            if tuple(obj.shape) != shape or not _fits(dtype, obj):
                shapes_differ |= tuple(obj.shape) != shape
                errors.append(f"{key}: the checkpoint has shape {shape} dtype "
                              f"{dtype.name}, the object's Variable has {_describe(obj)}")
                if not strict:
                    self.pending.discard(key)
                continue
            todo.append((key, obj))
        error = ValueError if shapes_differ else InvalidArgumentError
        if errors and strict:
            raise error(f"cannot restore {self.save_path!r} (no Variable was changed):\n  "
                        + "\n  ".join(errors))
        values = [(key, v, self.bundle.get(key)) for key, v in todo]   # all read, then assign
        for key, v, value in values:
            if value.dtype != np.dtype(v.dtype) and value.dtype.kind in "iu":
                info = np.iinfo(np.dtype(v.dtype))
                if value.size and (value.min() < info.min or value.max() > info.max):
                    errors.append(f"{key}: the saved integers do not fit the Variable's "
                                  f"{np.dtype(v.dtype).name}")
                    continue
            v.assign(jnp.asarray(value.astype(np.dtype(v.dtype))), read_value=False)
            self.pending.discard(key)
            self.restored[id(v)] = v
            self.restored_keys.add(key)
        if not self.pending & set(self.saved):
            self.release()
        else:
            self._anchor_nodes(found)
        if errors:
            raise error(f"cannot restore {errors[0].split(':')[0]!r} from "
                        f"{self.save_path!r} into the Variable just attached (it keeps its "
                        f"value):\n  " + "\n  ".join(errors))

    def _anchor_nodes(self, found):
        for node, obj in found.items():
            if isinstance(obj, Variable) or id(obj) in self._held:
                continue
            try:
                _RESTORES_OF.setdefault(obj, []).append(self)
            except TypeError:
                continue
            self._held.add(id(obj))
            self.node_anchors.append((node, weakref.ref(obj)))

    def release(self):
        _PENDING.discard(self)
        for _, ref in self.node_anchors:
            held = _RESTORES_OF.get(ref()) if ref() is not None else None
            if held is not None and self in held:
                held.remove(self)
        self._held.clear()

    def register(self):
        if self.pending & set(self.saved):
            _PENDING.add(self)
            _install_hooks()

    def nontrivial(self):
        # TF's rule: some object besides the root (and its save_counter) matched
        counter = {c.node_id for c in self.nodes[0].children if c.local_name == "save_counter"}
        return bool(self.matched_nodes - {0} - counter)


def _unset(v):
    # A Keras weight made in Keras's symbolic build: no value until Keras gives it
    # its initial one, which would overwrite a restored value.
    kv = getattr(v, "_kv", None)
    return kv is not None and getattr(kv, "_value", 0) is None


def _new_dependency(name=None):
    """A trackable was attached (under ``name``, where known): give the waiting
    values whose Variables exist now."""
    if not _PENDING or _RESOLVING or (_keras._keras is not None and _keras._in_stateless_scope()):
        return
    _RESOLVING.append(True)
    failed = None
    try:
        for record in list(_PENDING):
            if name is None or _escape(str(name)) in record.components:
                try:
                    record.apply(strict=False)
                except ValueError as e:       # the other restores still take theirs
                    failed = failed or e
    finally:
        _RESOLVING.pop()
    if failed is not None:
        raise failed


_HOOKED = []


def _install_hooks():
    # Installed at the first deferred restore only: no program that never defers
    # pays for a hook on every attribute set.
    if Module not in _HOOKED:
        _HOOKED.append(Module)
        base = Module.__setattr__

        def __setattr__(self, name, value):
            base(self, name, value)
            if _PENDING and _trackable(value):
                _new_dependency(name)
        Module.__setattr__ = __setattr__
    k = _keras_classes()
    if k is None:
        return
    for cls in k[:2]:
        if cls in _HOOKED:
            continue
        _HOOKED.append(cls)
        track, setattr_ = cls._track_variable, cls.__setattr__

        # A Keras object's dependencies are its attributes (a layer's weight is
        # reachable once assigned: ``self._kernel = self.add_weight(...)``); an
        # optimizer's slots are items of its ``_variables`` list, made by
        # _track_variable.
        def __setattr__(self, name, value, _set=setattr_):
            _set(self, name, value)
            if _PENDING and _trackable(value):
                _new_dependency(name)

        def _track_variable(self, variable, _track=track):
            _track(self, variable)
            if _PENDING:
                _new_dependency()
        cls.__setattr__, cls._track_variable = __setattr__, _track_variable
    var_cls = _keras._keras.Variable
    if var_cls not in _HOOKED:
        _HOOKED.append(var_cls)
        initialize = var_cls._deferred_initialize

        # A weight made in Keras's symbolic build has no value until Keras
        # initializes it on leaving that scope: restored then.
        def _deferred_initialize(self):
            initialize(self)
            if _PENDING:
                _new_dependency()
        var_cls._deferred_initialize = _deferred_initialize


def _prepare_slots(graph, meta, saved, strict=True):
    """Make the optimizer slots the checkpoint has values for (TF restores them
    when they are made); returns what to commit once everything is checked, and
    the keys of the slots made (they take the saved dtype). Not ``strict`` (a
    deferred restore, perhaps inside the optimizer's own build): an optimizer
    built for other variables is left alone."""
    commit, fresh = [], set()
    for path, opt in graph.optimizers:
        have = set(graph.slots.get(path, ()))
        for vpath in meta["slots"].get(path, ()):
            v = graph.variables.get(vpath)
            if v is None or vpath in have:
                continue
            entry = opt._slots(v, v.jax())
            graph._add_slots(path, vpath, entry[2])
            fresh.update(f"{path}/.slots/{vpath}/{i}" for i in range(len(entry[2])))
            commit.append(lambda opt=opt, v=v, entry=entry: opt._states.__setitem__(id(v), entry))
    for path, opt in graph.keras_optimizers:
        want = meta["keras_optimizers"].get(path)
        if not want:
            # Saved before it was built (compiled, not yet trained): no slots to
            # restore; it builds at its first step, as TF's Keras does.
            continue
        if not opt.built:
            live = [graph.variables.get(p) for p in want]
            if any(v is None for v in live):
                continue       # its slot values stay unmatched: assert_consumed says so
            # Building changes no Variable; it makes the slots the checkpoint fills,
            # under the optimizer's paths (``_variables/<i>``).
            opt.build([_keras._keras_variable(opt, v) for v in live])
            for key, v in _Graph(opt, path).variables.items():
                if id(v) not in graph.paths:
                    graph.paths[id(v)] = key
                    graph.variables[key] = v
        elif graph.keras_built_for(opt) != want and strict:
            raise ValueError(f"cannot restore: the Keras optimizer {path!r} was built for the "
                             f"variables {graph.keras_built_for(opt)}, the checkpoint's for {want}")
    return commit, fresh


class LoadStatus:
    """What ``Checkpoint.restore`` returns: assertions about what was matched, as
    things stand when asked (a value still waiting for its Variable, which a
    later-built model makes, counts as unresolved until then, as in TF)."""

    def __init__(self, record, root=None):
        self._record = record
        self._root = root        # the status keeps the Checkpoint alive, as TF's does

    def assert_consumed(self):
        """Raise AssertionError unless every saved value was restored into an
        object and every object's Variable got a value. Returns self."""
        r = self._record
        if r is not None and r.pending:
            raise AssertionError(
                f"values in checkpoint {r.save_path!r} found no object to restore into (TF "
                f"gives each when its Variable is made, and these were not made): "
                f"{sorted(r.pending)}")
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self):
        """Raise AssertionError if a Variable reachable from the Checkpoint now got
        no value from the checkpoint. Returns self."""
        r = self._record
        live = r.live_variables()
        unmatched = sorted(k for k, v in live.items() if id(v) not in r.restored)
        if unmatched:
            hidden = [k for k in unmatched if k in r.pending]
            hint = (f" ({hidden} have values waiting: they were put where no attribute set "
                    "announced them, such as a list or dict changed in place; attach them "
                    "with an attribute set or restore again)") if hidden else ""
            raise AssertionError(f"{len(unmatched)} Variables were not found in checkpoint "
                                 f"{r.save_path!r}: {unmatched}{hint}")
        return self

    def assert_nontrivial_match(self):
        """Raise AssertionError if nothing but ``save_counter`` was restored.
        Returns self."""
        r = self._record
        if isinstance(r, _TFRestore):
            if not r.nontrivial():
                raise AssertionError(f"nothing was restored from checkpoint {r.save_path!r} "
                                     "but (perhaps) save_counter: is it a checkpoint of "
                                     "these objects?")
            return self
        # TF counts any object matched, a node on the way to a value included.
        inner = {key.rsplit("/", i)[0] for key in r.saved for i in range(1, key.count("/") + 1)}
        reached = any(path in inner for g in r._graphs() for path, _ in g.objects)
        if not (r.restored_keys - {"save_counter"} or reached):
            raise AssertionError(f"nothing was restored from checkpoint "
                                 f"{self._record.save_path!r} but (perhaps) save_counter: is "
                                 "it a checkpoint of these objects?")
        return self

    def expect_partial(self):
        """Say that a partial restore is intended (eagertape prints no warnings
        about unused values anyway). Returns self."""
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run: eager restores assign at once."""


class _NameBasedStatus:
    """What ``Checkpoint.restore`` of a TF-1 ``Saver`` checkpoint (no object graph)
    returns, as TF's ``NameBasedSaverStatus``: TF falls back to the Saver's rule,
    each Variable reachable from the Checkpoint takes the value saved under its
    name (``v.name`` without ``:0``; two Variables of one name take the same value),
    and a Variable whose name the checkpoint lacks keeps its value. Unlike TF, a
    Variable attached after the restore is not given its value then."""

    def __init__(self, root, save_path, bundle):
        self._root, self.save_path = root, save_path
        todo, errors, shapes_differ = [], [], False
        self._unrestored = []
        names = set(bundle.keys())
        for path, v in _Graph(root).variables.items():
            name = _base_name(v)
            if name not in names:
                self._unrestored.append(path)
                continue
            shape, dtype = tuple(bundle.shape(name)), bundle.dtype(name)
            if tuple(v.shape) != shape or not _fits(dtype, v):
                shapes_differ |= tuple(v.shape) != shape
                errors.append(f"{name} (at {path}): the checkpoint has shape {shape} dtype "
                              f"{dtype.name}, the Variable has {_describe(v)}")
                continue
            todo.append((v, name))
        if errors:
            raise (ValueError if shapes_differ else InvalidArgumentError)(
                f"cannot restore {save_path!r} by name (no Variable was changed):\n  "
                + "\n  ".join(errors))
        values = [(v, bundle.get(name)) for v, name in todo]      # all read, then assign
        for v, value in values:
            v.assign(jnp.asarray(value.astype(np.dtype(v.dtype))), read_value=False)

    def assert_consumed(self):
        """Raise AssertionError if a Variable reachable from the Checkpoint found no
        value under its name. Returns self."""
        if self._unrestored:
            raise AssertionError(f"Some objects had attributes which were not restored "
                                 f"from the name-based checkpoint {self.save_path!r}: "
                                 f"{self._unrestored}")
        return self

    assert_existing_objects_matched = assert_nontrivial_match = assert_consumed

    def expect_partial(self):
        """Say that a partial restore is intended. Returns self."""
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run: eager restores assign at once."""


class _InitializationOnlyStatus(LoadStatus):
    # restore(None): nothing restored, as TF's InitializationOnlyStatus.
    def __init__(self):
        super().__init__(None)

    def assert_existing_objects_matched(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                             "restored.")

    assert_consumed = assert_nontrivial_match = assert_existing_objects_matched


# -- storage -------------------------------------------------------------------
def _checkpointer():
    ocp = _orbax()
    return ocp, ocp.Checkpointer(ocp.CompositeCheckpointHandler())


def _atomic_orbax_save(path, arrays, meta):
    ocp, ckptr = _checkpointer()
    path = os.path.abspath(path)
    parent, name = os.path.split(path)
    os.makedirs(parent, exist_ok=True)
    tmp = os.path.join(parent, f".{name}.tmp-{uuid.uuid4().hex}")
    items = {"index": ocp.args.JsonSave(meta)}
    if arrays:
        items["arrays"] = ocp.args.PyTreeSave(arrays)
    try:
        ckptr.save(tmp, args=ocp.args.Composite(**items))
        if os.path.exists(path):      # write() over an old one: swap, then drop the old
            old = f"{tmp}-old"
            os.replace(path, old)
            os.replace(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, path)
    finally:
        for leftover in os.listdir(parent):
            if leftover.startswith(os.path.basename(tmp)):
                shutil.rmtree(os.path.join(parent, leftover), ignore_errors=True)


def _orbax_load(path):
    if not os.path.isdir(path):
        raise FileNotFoundError(f"no eagertape checkpoint at {path!r} (a directory), nor "
                                f"TensorFlow's ({os.path.basename(path)}.index and its data "
                                "files)")
    ocp, ckptr = _checkpointer()
    path = os.path.abspath(path)      # orbax takes absolute paths only
    meta = ckptr.restore(path, args=ocp.args.Composite(index=ocp.args.JsonRestore()))["index"]
    if not isinstance(meta, dict) or meta.get("format") != _FORMAT:
        raise ValueError(f"{path!r} is not an eagertape checkpoint")
    arrays = {}
    if any(np.prod(shape) for _, shape, _ in meta["values"]) or any(
            s["blob"] for s in meta.get("iterators", {}).values()):
        arrays = ckptr.restore(path, args=ocp.args.Composite(
            arrays=ocp.args.PyTreeRestore()))["arrays"]
    return meta, arrays


def _state_path(directory):
    return os.path.join(directory or ".", _STATE_FILE)


def _read_state(directory):
    try:
        with open(_state_path(directory)) as f:
            text = f.read()
    except OSError:
        return None
    try:
        state = json.loads(text)
        state["model_checkpoint_path"]         # noqa: B018  (TF ignores a state without it)
    except (ValueError, KeyError, TypeError):
        state = _read_tf_state(text)           # TF's own: a text-format CheckpointState
        if state is None:
            return None
    join = lambda p: p if os.path.isabs(p) else os.path.join(directory, p)  # noqa: E731
    state["model_checkpoint_path"] = join(state["model_checkpoint_path"])
    state["all_model_checkpoint_paths"] = [join(p) for p in state["all_model_checkpoint_paths"]]
    return state


def _read_tf_state(text):
    try:
        from google.protobuf import text_format
        from ._proto.checkpoint import CheckpointState as Proto
        proto = text_format.Parse(text, Proto())
    except Exception:          # not protobuf's text format, or protobuf missing: no state
        return None
    if not proto.model_checkpoint_path:
        return None
    return {"model_checkpoint_path": proto.model_checkpoint_path,
            "all_model_checkpoint_paths": list(proto.all_model_checkpoint_paths),
            "all_model_checkpoint_timestamps": list(proto.all_model_checkpoint_timestamps),
            "last_preserved_timestamp": proto.last_preserved_timestamp}


def _is_checkpoint(path):
    """An eagertape checkpoint (an orbax directory) or one TF wrote (``.index``)."""
    return os.path.isdir(path) or _tf_bundle.is_bundle(path)


def _delete_checkpoint(path):
    # A manager taking over a directory TF wrote deletes TF's files as TF's would.
    if _tf_bundle.is_bundle(path):
        import glob
        for name in glob.glob(glob.escape(path) + ".data-?????-of-?????") + [path + ".index"]:
            try:
                os.remove(name)
            except OSError:
                pass
    shutil.rmtree(path, ignore_errors=True)


def _write_state(directory, latest, paths, timestamps=(), last_preserved=0.0,
                 tf_format=False):
    base = os.path.abspath(directory or ".")
    rel = lambda p: os.path.relpath(os.path.abspath(p), base)  # noqa: E731
    state = {"model_checkpoint_path": rel(latest),
             "all_model_checkpoint_paths": [rel(p) for p in paths],
             "all_model_checkpoint_timestamps": list(timestamps),
             "last_preserved_timestamp": last_preserved}
    target = _state_path(directory)
    tmp = f"{target}.tmp-{uuid.uuid4().hex}"
    with open(tmp, "w") as f:
        if tf_format:       # TF's text-format CheckpointState, which TF's latest_checkpoint reads
            from google.protobuf import text_format
            from ._proto.checkpoint import CheckpointState as Proto
            f.write(text_format.MessageToString(Proto(**state)))
        else:
            json.dump(state, f, indent=1)
    os.replace(tmp, target)


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The path of the newest checkpoint ``save`` or a CheckpointManager wrote in
    ``checkpoint_dir``, or None (no checkpoint, or it was deleted).

    >>> import eagertape.tf as tf, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> print(tf.train.latest_checkpoint(d))
    None
    >>> ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    >>> _ = ckpt.save(os.path.join(d, "ckpt")); _ = ckpt.save(os.path.join(d, "ckpt"))
    >>> os.path.basename(tf.train.latest_checkpoint(d))
    'ckpt-2'
    """
    state = _read_state(os.fspath(checkpoint_dir))
    if state is None or not _is_checkpoint(state["model_checkpoint_path"]):
        return None
    return state["model_checkpoint_path"]


def _integer(x):
    return int(x.numpy()) if hasattr(x, "numpy") else int(x)


class CheckpointManager:
    """``tf.train.CheckpointManager``: numbered saves of a Checkpoint into one
    directory, keeping the newest ``max_to_keep`` (None: all) and, with
    ``keep_checkpoint_every_n_hours``, one per that many hours besides.

    >>> import eagertape.tf as tf, tempfile, os
    >>> ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    >>> manager = tf.train.CheckpointManager(ckpt, tempfile.mkdtemp(), max_to_keep=2)
    >>> [os.path.basename(manager.save()) for _ in range(4)]
    ['ckpt-1', 'ckpt-2', 'ckpt-3', 'ckpt-4']
    >>> [os.path.basename(p) for p in manager.checkpoints]
    ['ckpt-3', 'ckpt-4']
    >>> ckpt.restore(manager.latest_checkpoint).assert_consumed() is not None
    True
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None, last_checkpoint_step=None):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not "
                             "None.")
        self._checkpoint, self._max_to_keep = checkpoint, max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter, self._checkpoint_interval = step_counter, checkpoint_interval
        self._last_step, self._init_fn = last_checkpoint_step, init_fn
        # A manager used this directory before: take over its list, as TF does.
        state, now = _read_state(self._directory), time.time()
        self._maybe_delete = collections.OrderedDict()
        if state is None:
            self._latest, self._last_preserved = None, now - 1.0
            return
        self._latest = state["model_checkpoint_path"]
        self._last_preserved = min(state.get("last_preserved_timestamp", 0.0), now)
        paths = state["all_model_checkpoint_paths"]
        stamps = state.get("all_model_checkpoint_timestamps") or [self._last_preserved] * len(paths)
        for path, stamp in zip(paths, stamps):
            if min(stamp, now) > self._last_preserved:
                self._maybe_delete[path] = min(stamp, now)

    directory = property(lambda self: self._directory)
    checkpoint = property(lambda self: self._checkpoint)
    checkpoint_interval = property(lambda self: self._checkpoint_interval)
    latest_checkpoint = property(lambda self: self._latest,
                                 doc="The newest checkpoint's path, or None.")
    checkpoints = property(lambda self: list(self._maybe_delete),
                           doc="The paths of the kept checkpoints that may yet be deleted, "
                               "oldest first.")

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Save ``<directory>/<checkpoint_name>-<n>`` (n: ``checkpoint_number``, else
        the Checkpoint's ``save_counter`` after counting this save), then delete
        the ones beyond ``max_to_keep``. Returns the path, or None where
        ``checkpoint_interval`` says it is too early."""
        if self._checkpoint_interval is not None:
            step = _integer(self._step_counter)
            if self._last_step is not None and (step == self._last_step or (
                    check_interval and step < self._last_step + self._checkpoint_interval)):
                return None
            self._last_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(np.int64(1), read_value=False)
        number = _integer(counter if checkpoint_number is None else checkpoint_number)
        try:
            path = self._checkpoint._write(f"{self._prefix}-{number}", options)
        except BaseException:
            counter.assign_sub(np.int64(1), read_value=False)
            raise
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._latest = path
        self._tf_state = _tf_format(options)
        self._record()      # before deleting, as TF: the state never names only deleted ones
        self._sweep()
        self._record()
        _after_write(options, path)
        return path

    def _record(self):
        paths, stamps = zip(*self._maybe_delete.items())
        _write_state(self._directory, self._latest, paths, stamps, self._last_preserved,
                     tf_format=getattr(self, "_tf_state", False))

    def _sweep(self):
        while self._max_to_keep and len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            if self._keep_hours and stamp - self._keep_hours * 3600.0 >= self._last_preserved:
                self._last_preserved = stamp      # kept for good, no longer managed
                continue
            _delete_checkpoint(path)

    def restore_or_initialize(self):
        """Restore the latest checkpoint and return its path; else call ``init_fn``
        (if given) and return None."""
        if self._latest is not None:
            self._checkpoint.restore(self._latest)
            if self._checkpoint_interval is not None:
                self._last_step = _integer(self._step_counter)
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self):
        """Saves are synchronous: nothing to wait for."""


# -- options -------------------------------------------------------------------
class CheckpointOptions:
    """``tf.train.CheckpointOptions``: options for ``Checkpoint.save/write/
    restore/read`` and ``CheckpointManager.save``. The fields are stored as TF
    stores them; ``experimental_write_callbacks`` are called (with the path,
    if they take an argument) after each save or write, as TF calls them. The
    others tune TF's own I/O (the device that writes, asynchronous writing,
    sharding, skipping TPU-embedding slots) and change nothing here: eagertape
    writes synchronously with orbax.

    ``eagertape_format`` is eagertape's own: ``"orbax"`` (the default) or
    ``"tensorflow"``, which writes TF's tensor bundle (``prefix.index`` +
    ``prefix.data-00000-of-00001``, its object graph, and with ``save`` TF's
    text-format ``checkpoint`` file) for TF to restore: Variables held by
    Checkpoints, ``tf.Module`` attributes, lists, dicts, Keras layers and
    optimizers, under TF's keys; eagertape's optimizers, Keras metrics given to
    the Checkpoint and tf.data iterators are refused before anything is written
    (their layout in TF's checkpoints is not eagertape's).

    >>> import eagertape.tf as tf, tempfile, os
    >>> tf.train.CheckpointOptions(enable_async=True).enable_async
    True
    >>> options = tf.train.CheckpointOptions(eagertape_format="tensorflow")
    >>> path = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).write(
    ...     os.path.join(tempfile.mkdtemp(), "for_tf"), options=options)
    >>> sorted(os.listdir(os.path.dirname(path)))
    ['for_tf.data-00000-of-00001', 'for_tf.index']
    >>> tf.train.load_variable(path, "v/.ATTRIBUTES/VARIABLE_VALUE")
    array([1., 2.], dtype=float32)
    """

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False,
                 experimental_skip_slot_variables=False, experimental_sharding_callback=None,
                 eagertape_format="orbax"):
        if eagertape_format not in ("orbax", "tensorflow"):
            raise ValueError(f"argument `eagertape_format`: 'orbax' (eagertape's own "
                             f"checkpoints) or 'tensorflow' (TF's bundle, which TF "
                             f"restores), got {eagertape_format!r}")
        self.eagertape_format = eagertape_format
        self.experimental_io_device = experimental_io_device
        self.enable_async = bool(experimental_enable_async_checkpoint or enable_async)
        self.experimental_enable_async_checkpoint = self.enable_async
        for callback in experimental_write_callbacks or ():
            if len(inspect.signature(callback).parameters) > 1:
                raise ValueError("a write callback takes no argument or one (the path), got "
                                 f"{callback!r}")
        self.experimental_write_callbacks = experimental_write_callbacks
        self.experimental_sharding_callback = experimental_sharding_callback
        self.experimental_skip_slot_variables = experimental_skip_slot_variables


def _tf_format(options):
    return getattr(options, "eagertape_format", "orbax") == "tensorflow"


def _tf_object_graph(root, values=True):
    """The values of ``root``'s Variables by TF's checkpoint keys, with TF's object
    graph (a ``TrackableObjectGraph``: each object a node, its dependencies by name,
    each Variable's value under its first breadth-first path) under
    ``_CHECKPOINTABLE_OBJECT_GRAPH``, as TF's ``Checkpoint.write`` saves them. Keras
    layers and optimizers are under TF's Keras's names (see ``_tf_tracks``), a Keras
    optimizer's step count as TF's int64. Objects whose TF layout is not eagertape's
    (a metric given to the Checkpoint itself, eagertape's optimizers, tf.data
    iterators) are refused before anything is written. With ``values=False`` only
    the object graph is made (no Variable is read)."""
    from ._proto.checkpoint import TrackableObjectGraph
    graph, tensors, ids = TrackableObjectGraph(), {}, {}
    queue = collections.deque()

    def node_of(obj, path):
        obj = _canonical(obj)
        if id(obj) not in ids:
            ids[id(obj)] = len(graph.nodes)
            graph.nodes.add()
            queue.append((obj, path))
        return ids[id(obj)]

    node_of(root, "")
    keras = _keras_classes() or ()
    # TF's Keras counts an optimizer's steps in int64 (JAX's Keras: int32 without x64)
    steps = {id(_canonical(o.iterations)) for _, o in _Graph(root).keras_optimizers}
    while queue:
        obj, path = queue.popleft()
        node = graph.nodes[ids[id(obj)]]
        if isinstance(obj, Variable):
            key = path + _VALUE_SUFFIX
            node.attributes.add(name="VARIABLE_VALUE", full_name=_base_name(obj),
                                checkpoint_key=key)
            if values:
                tensors[key] = np.asarray(obj.numpy())
                if id(obj) in steps:
                    tensors[key] = tensors[key].astype(np.int64)
            continue
        if isinstance(obj, (_optimizers.Optimizer,) + _ITERATORS + tuple(keras[2:])):
            raise ValueError(f"cannot write {path or 'the root'!r} (a {type(obj).__name__}) in "
                             f"TensorFlow's format: its layout in TF's checkpoints is not "
                             f"eagertape's (TF's Keras 3 saves no metric; a tf.data "
                             f"iterator's state is TF's own serialization): use "
                             f"eagertape_format='orbax'")
        for name, child in _children(obj):
            if _trackable(child):
                child_path = f"{path}/{_escape(str(name))}" if path else _escape(str(name))
                node.children.add(node_id=node_of(child, child_path), local_name=str(name))
    # has_checkpoint_values: a node with a value, or one above such a node
    has = [bool(n.attributes) for n in graph.nodes]
    changed = True
    while changed:
        changed = False
        for i, n in enumerate(graph.nodes):
            if not has[i] and any(has[c.node_id] for c in n.children):
                has[i] = changed = True
    for i, n in enumerate(graph.nodes):
        n.has_checkpoint_values.value = has[i]
    tensors[_OBJECT_GRAPH] = np.array(graph.SerializeToString(), object)
    return tensors


def _after_write(options, path):
    for callback in getattr(options, "experimental_write_callbacks", None) or ():
        if inspect.signature(callback).parameters:
            callback(path)
        else:
            callback()


# -- moving averages -----------------------------------------------------------
# TF adds every averaged Variable to one process-wide graph collection, which
# variables_to_restore() reads by default.
_MOVING_AVERAGE_VARIABLES = weakref.WeakValueDictionary()
_AVERAGEABLE = ("bfloat16", "float16", "float32", "float64")


def _raw(x):
    x = _standin(x)
    return x._value if hasattr(x, "_aval") else jnp.asarray(x)


class ExponentialMovingAverage:
    """``tf.train.ExponentialMovingAverage(decay, num_updates=None,
    zero_debias=False, name="ExponentialMovingAverage")``: shadow Variables that
    follow Variables by ``shadow -= (1 - decay) * (shadow - var)`` on every
    ``apply``; with ``num_updates`` the decay is
    ``min(decay, (1 + num_updates) / (10 + num_updates))``, computed in float32
    as TF computes it. ``decay`` and ``num_updates`` may be Variables (read at
    each ``apply``, also inside a tf.function).

    The shadows are non-trainable Variables named ``<var>/<name>``, made by the
    first ``apply`` with the variable's value then. As in TF, the EMA object is
    not itself trackable: checkpoint the shadows by handing them to the
    Checkpoint (``averages=[ema.average(v) for v in variables]``).
    ``zero_debias`` only concerns averages of non-Variable tensors, which eager
    TF refuses; it is stored.

    >>> import eagertape.tf as tf
    >>> w = tf.Variable(0.0)
    >>> ema = tf.train.ExponentialMovingAverage(decay=0.5)
    >>> ema.apply([w])
    >>> _ = w.assign(4.0); ema.apply([w])
    >>> float(ema.average(w).numpy()), ema.average_name(w)
    (2.0, 'Variable/ExponentialMovingAverage')
    >>> ckpt = tf.train.Checkpoint(w=w, averages=[ema.average(w)])
    """

    def __init__(self, decay, num_updates=None, zero_debias=False,
                 name="ExponentialMovingAverage"):
        self._decay, self._num_updates = decay, num_updates
        self._zero_debias, self._name = zero_debias, name
        self._averages = {}       # id(Variable) -> (Variable, shadow)

    @property
    def name(self):
        """The name of this ExponentialMovingAverage object."""
        return self._name

    def apply(self, var_list=None):
        """Make the shadows of ``var_list``'s Variables not averaged yet, then move
        every shadow once toward its variable's value. ``None`` averages TF1's
        collection of trainable variables, which eager TF leaves empty: nothing.
        Returns None (TF's eager ``group``)."""
        if var_list is None:
            return None
        var_list = [_canonical(v) for v in var_list]
        for v in var_list:
            if not isinstance(v, Variable):
                raise TypeError("tf.train.ExponentialMovingAverage does not support "
                                "non-Variable tensors when eager execution is enabled.")
        for v in var_list:
            if np.dtype(v.dtype).name not in _AVERAGEABLE:
                raise TypeError(f"The variables must be half, float, or double: {v.name}")
            if id(v) not in self._averages:
                # The Variable's stored value, not a traced one: a tf.function's
                # first apply makes its shadows outside the trace (TF's init_scope).
                shadow = Variable(v._val, trainable=False)
                shadow._name = f"{_base_name(v)}/{self._name}:0"
                self._averages[id(v)] = (v, shadow)
                _MOVING_AVERAGE_VARIABLES[id(v)] = v
        decay = jnp.asarray(_raw(self._decay), jnp.float32)
        if self._num_updates is not None:
            n = jnp.asarray(_raw(self._num_updates)).astype(jnp.float32)
            decay = jnp.minimum(decay, (1.0 + n) / (10.0 + n))
        rate = jnp.float32(1.0) - decay       # TF's 1 - decay in float32, then cast
        for v in var_list:
            shadow = self._averages[id(v)][1]
            old = shadow._value
            shadow.assign(old - (old - v._value) * rate.astype(old.dtype), read_value=False)
        return None

    def average(self, var):
        """The shadow Variable of ``var``, or None if ``apply`` has not seen it."""
        entry = self._averages.get(id(_canonical(var)))
        return None if entry is None else entry[1]

    def average_name(self, var):
        """The name of ``var``'s shadow (without ``:0``), whether or not it is made
        yet: ``<var's name>/<this EMA's name>``."""
        shadow = self.average(var)
        return _base_name(shadow) if shadow is not None else \
            f"{_base_name(_canonical(var))}/{self._name}"

    def variables_to_restore(self, moving_avg_variables=None):
        """``{average_name(v): v}`` for ``moving_avg_variables`` (by default every
        Variable any ExponentialMovingAverage averages, TF's collection): the
        names under which TF1's Saver would restore averages into them."""
        if moving_avg_variables is None:
            moving_avg_variables = list(_MOVING_AVERAGE_VARIABLES.values())
        return {self.average_name(v): v for v in moving_avg_variables}


def _base_name(v):
    name = v.name
    return name[:-2] if name.endswith(":0") else name


# -- reading checkpoints -------------------------------------------------------
_VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"      # TF's name for a Variable's value
_ITERATOR_SUFFIX = "/.ATTRIBUTES/ITERATOR_STATE"   # and for a tf.data iterator's position
_OBJECT_GRAPH = "_CHECKPOINTABLE_OBJECT_GRAPH"


def _path_argument(value, name):
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"argument `{name}`: expected a checkpoint's path (a str or "
                        f"os.PathLike), got a {type(value).__name__}")
    return os.fsdecode(value)


def _resolve(ckpt_dir_or_file):
    path = _path_argument(ckpt_dir_or_file, "ckpt_dir_or_file")
    if os.path.isfile(_state_path(path)):      # a directory of checkpoints
        found = latest_checkpoint(path)
        if found is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {path}")
        return found
    if not os.path.exists(path) and not _tf_bundle.is_bundle(path):
        from .errors import NotFoundError
        raise NotFoundError(None, None, f"Unsuccessful TensorSliceReader constructor: Failed "
                                        f"to find any matching files for {path}")
    if _tf_bundle.is_bundle(path):
        return path
    if not os.path.isdir(os.path.join(path, "index")):      # not a checkpoint itself
        raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                         f"directory {path}")
    return path


class CheckpointReader:
    """What ``load_checkpoint`` returns: the values of one checkpoint by name."""

    def __init__(self, path):
        self._path, self._keys = path, None
        self._bundle = _tf_bundle.BundleReader(path) if _tf_bundle.is_bundle(path) else None
        if self._bundle is not None:        # TF's: its keys, shapes and dtypes as they are
            return
        meta, self._arrays = _orbax_load(path)
        self._entries = {key + _VALUE_SUFFIX: (tuple(shape), jnp.dtype(dtype), str(i))
                         for i, (key, shape, dtype) in enumerate(meta["values"])}
        # TF's scalar string entry holding the object graph, TF's proto as TF would
        # write it; where the objects have no TF layout (an eagertape optimizer, a
        # tf.data iterator), eagertape's index (JSON: each value's path, shape, dtype).
        graph = meta.get("tf_object_graph")
        self._graph = base64.b64decode(graph) if graph is not None else \
            json.dumps({"values": meta["values"]}).encode()
        self._entries[_OBJECT_GRAPH] = ((), np.dtype(object), None)
        # A tf.data iterator's position, under TF's key; its value is eagertape's
        # state (JSON, one string), not TF's serialized iterator.
        self._iterators = meta.get("iterators", {})
        for key in self._iterators:
            self._entries[key + _ITERATOR_SUFFIX] = ((1,), np.dtype(object), None)

    def _key(self, name):
        # The bare object path is taken too: eagertape's index holds no other kind.
        return name if name in self._entries else name + _VALUE_SUFFIX

    def has_tensor(self, name):
        """Whether the checkpoint holds a value named ``name``."""
        if self._bundle is not None:
            return name in self._bundle.entries and not name.startswith("\x00")
        return self._key(name) in self._entries

    def get_tensor(self, name):
        """The value named ``name``, a NumPy array (a scalar: a NumPy scalar, or
        ``bytes`` for a string, as TF gives them)."""
        if self._bundle is not None:
            value = self._bundle.get(name)
            return value[()] if value.ndim == 0 else value
        key = self._key(name)
        if key not in self._entries:
            from .errors import NotFoundError
            raise NotFoundError(None, None, f"Key {name} not found in checkpoint")
        if key == _OBJECT_GRAPH:
            return self._graph
        if key.endswith(_ITERATOR_SUFFIX) and key[:-len(_ITERATOR_SUFFIX)] in self._iterators:
            state = self._iterators[key[:-len(_ITERATOR_SUFFIX)]]["state"]
            return np.array([json.dumps(state).encode()], object)
        shape, dtype, i = self._entries[key]
        return np.asarray(self._arrays[i]) if i in self._arrays else np.zeros(shape, dtype)

    def _order(self):
        # TF's order: its reader's C++ hash map of the keys, inserted in key order
        if self._keys is None:
            keys = self._bundle.keys() if self._bundle is not None else self._entries
            self._keys = _tf_bundle.unordered_map_order(sorted(keys, key=str.encode))
        return self._keys

    def get_variable_to_shape_map(self):
        """``{name: shape as a list}`` for every value, in TF's order."""
        if self._bundle is not None:
            return {k: self._bundle.shape(k) for k in self._order()}
        return {k: list(self._entries[k][0]) for k in self._order()}

    def get_variable_to_dtype_map(self):
        """``{name: tf.DType}`` for every value, in TF's order."""
        from .dtypes import as_dtype
        if self._bundle is not None:
            return {k: as_dtype(self._bundle.dtype(k)) for k in self._order()}
        return {k: as_dtype(self._entries[k][1]) for k in self._order()}


def load_checkpoint(ckpt_dir_or_file):
    """A reader of the checkpoint at ``ckpt_dir_or_file`` (a directory: its latest
    checkpoint), with ``get_tensor``, ``has_tensor``,
    ``get_variable_to_shape_map`` and ``get_variable_to_dtype_map``.

    Names are object-graph paths as TF names them,
    ``<path>/.ATTRIBUTES/VARIABLE_VALUE`` (``net/layers/0/kernel/...``). A
    checkpoint TensorFlow wrote is read as TF reads it: its keys, shapes, dtypes
    and values (a scalar as a NumPy scalar, strings as ``bytes``), its
    ``_CHECKPOINTABLE_OBJECT_GRAPH`` the serialized proto. In eagertape's own
    checkpoints names are TF's, Keras objects' too (``net/l1/_kernel``); an
    eagertape optimizer's slots (``<optimizer>/.slots/<variable path>/<i>``), which
    TF has not, are under eagertape's own paths. The
    ``_CHECKPOINTABLE_OBJECT_GRAPH`` entry is there, as in TF (a scalar
    ``tf.string``): the object graph TF writes for the same objects (where they
    have no TF layout, an eagertape optimizer or a tf.data iterator, eagertape's
    JSON index), and a tf.data iterator's ``<path>/.ATTRIBUTES/ITERATOR_STATE`` is
    eagertape's state (one JSON string). The maps list the keys in TF's order
    (its reader's C++ hash map), which programs that print them show.

    >>> import eagertape.tf as tf, tempfile
    >>> d = tempfile.mkdtemp()
    >>> _ = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])), d,
    ...                                max_to_keep=1).save()
    >>> reader = tf.train.load_checkpoint(d)
    >>> reader.get_variable_to_shape_map()["v/.ATTRIBUTES/VARIABLE_VALUE"]
    [2]
    >>> reader.get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE")
    array([1., 2.], dtype=float32)
    """
    return CheckpointReader(_resolve(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file):
    """``[(name, shape), ...]`` of the checkpoint's values, sorted by name (names
    as ``load_checkpoint`` gives them).

    >>> import eagertape.tf as tf, tempfile, os
    >>> path = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).write(
    ...     os.path.join(tempfile.mkdtemp(), "x"))
    >>> tf.train.list_variables(path)
    [('_CHECKPOINTABLE_OBJECT_GRAPH', []), ('v/.ATTRIBUTES/VARIABLE_VALUE', [2])]
    """
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


def load_variable(ckpt_dir_or_file, name):
    """The value named ``name`` in the checkpoint, a NumPy array (a trailing
    ``:0`` is dropped, as TF drops it).

    >>> import eagertape.tf as tf, tempfile, os
    >>> path = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).write(
    ...     os.path.join(tempfile.mkdtemp(), "x"))
    >>> tf.train.load_variable(path, "v/.ATTRIBUTES/VARIABLE_VALUE")
    array([1., 2.], dtype=float32)
    """
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


class CheckpointState:
    """TF's CheckpointState proto's fields: ``model_checkpoint_path``,
    ``all_model_checkpoint_paths``, ``all_model_checkpoint_timestamps``,
    ``last_preserved_timestamp``."""

    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=(),
                 all_model_checkpoint_timestamps=(), last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def __eq__(self, other):
        return isinstance(other, CheckpointState) and vars(self) == vars(other)

    def __repr__(self):
        lines = [f"model_checkpoint_path: {self.model_checkpoint_path!r}"]
        lines += [f"all_model_checkpoint_paths: {p!r}" for p in self.all_model_checkpoint_paths]
        return "\n".join(lines)


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The directory's checkpoint state (the paths joined to ``checkpoint_dir``
    where relative, as TF joins them), or None where there is none. Unlike
    ``latest_checkpoint`` it does not check that the files exist.

    >>> import eagertape.tf as tf, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), d, 2)
    >>> _ = [manager.save() for _ in range(3)]
    >>> state = tf.train.get_checkpoint_state(d)
    >>> [os.path.basename(p) for p in state.all_model_checkpoint_paths]
    ['ckpt-2', 'ckpt-3']
    >>> state.model_checkpoint_path == manager.latest_checkpoint
    True
    """
    state = _read_state(os.fspath(checkpoint_dir))
    if state is None:
        return None
    return CheckpointState(state["model_checkpoint_path"], state["all_model_checkpoint_paths"],
                           state.get("all_model_checkpoint_timestamps", ()),
                           state.get("last_preserved_timestamp", 0.0))


def _wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1,
                             timeout=None):
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is None or path == last_checkpoint:
            if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
                return None
            time.sleep(seconds_to_sleep)
        else:
            return path


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yield the directory's latest checkpoint each time it changes (looking once
    a second; checkpoints saved in between are skipped), at most one per
    ``min_interval_secs``. After ``timeout`` seconds without a new one, stop,
    or, with ``timeout_fn``, stop if it returns true and wait again if not.

    >>> import eagertape.tf as tf, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    >>> _ = ckpt.save(os.path.join(d, "ckpt")); _ = ckpt.save(os.path.join(d, "ckpt"))
    >>> [os.path.basename(p) for p in tf.train.checkpoints_iterator(d, timeout=0.5)]
    ['ckpt-2']
    """
    checkpoint_path = None
    while True:
        new = _wait_for_new_checkpoint(checkpoint_dir, checkpoint_path, timeout=timeout)
        if new:
            start = time.time()
            checkpoint_path = new
            yield checkpoint_path
            wait = start + min_interval_secs - time.time()
            if wait > 0:
                time.sleep(wait)
        elif timeout_fn is None:
            return
        if timeout_fn is not None and timeout_fn():
            return


# -- views ---------------------------------------------------------------------
class TrackableView:
    """``tf.train.TrackableView(root)``: the objects a Checkpoint of ``root``
    saves, as the Checkpoint finds them (names as checkpoint paths use them).

    >>> import eagertape.tf as tf
    >>> root = tf.Module()
    >>> root.w, root.leaf = tf.Variable(1.0), tf.Module()
    >>> sorted(tf.train.TrackableView.children(root))
    ['leaf', 'w']
    >>> len(tf.train.TrackableView(root).descendants())
    3
    """

    def __init__(self, root):
        self._root = root

    @classmethod
    def children(cls, obj, save_type="checkpoint", **kwargs):
        """``{name: object}`` of the objects ``obj`` depends on directly."""
        return {name: child for name, child in _children(_canonical(obj)) if _trackable(child)}

    @property
    def root(self):
        return self._root

    def descendants(self):
        """Every object reachable from the root, breadth first, each once."""
        seen, order = {id(_canonical(self._root))}, [self._root]
        queue = collections.deque([self._root])
        while queue:
            for child in self.children(queue.popleft()).values():
                if id(_canonical(child)) not in seen:
                    seen.add(id(_canonical(child)))
                    order.append(child)
                    queue.append(child)
        return order


_DISTRIBUTED = ("TF's distributed runtime (cluster specs, servers, thread coordination): "
                "use jax.distributed.initialize and Python threading")
_unsupported = _Unsupported("tf.train", {
    **_left_out(_DISTRIBUTED, "ClusterDef ClusterSpec Coordinator JobDef ServerDef"),
    "CheckpointView": ("it walks TF's object-graph proto by node id, which eagertape's "
                       "checkpoints do not store: use tf.train.list_variables / "
                       "load_checkpoint, or TrackableView for live objects"),
})

_EXAMPLE_PROTOS = frozenset("BytesList Example Feature FeatureList FeatureLists Features "
                            "FloatList Int64List SequenceExample".split())


def __getattr__(name):
    # TF's Example protos (the TFRecord format's records) live with tf.io's parsing
    # (tf/_example.py), imported on first use: protobuf is needed only by programs
    # that use them.
    if name in _EXAMPLE_PROTOS:
        from . import _example
        return getattr(_example, name)
    return _unsupported(name)
