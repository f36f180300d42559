"""The half of ``tf.saved_model.save`` that runs in a TensorFlow process.

``eagertape.tf.saved_model`` traces and serializes each exported function with
``jax.export`` in the program's own process, writes what it found (the objects,
the Variables' values, the functions) to a folder, and runs this module's source
in a fresh interpreter (``python -P -c``) that imports TensorFlow: here each
function becomes a ``tf.function`` through JAX's own ``jax2tf.convert`` (an
``XlaCallModule`` op holding the StableHLO), the Variables ``tf.Variable``s at
the objects' attributes, and TensorFlow's ``tf.saved_model.save`` writes the
SavedModel. The program's process never imports TensorFlow: Keras has one
backend a process, and ``tf.keras`` there runs on JAX.

Nothing here runs when the module is imported (the tests import every module of
the package): ``_main`` runs only as ``__main__``.
"""
import inspect
import json
import os
import sys


def build_objects(spec, variables, functions, new_object, overloaded):
    """The object tree ``spec["objects"]`` describes, its root first: Variables and
    functions by index, lists, tuples and dicts as they are, every other object a
    ``new_object()`` with its attributes. A function given as a list of indices (a
    function exported with several signatures) is ``overloaded(name, indices)``.
    Both halves use it: the TensorFlow writer here, and ``saved_model.load`` with
    eagertape's Variables."""
    made = {}

    def build(k):
        if k in made:
            return made[k]
        node = spec["objects"][k]
        kind = node["kind"]
        if kind == "variable":
            obj = variables[node["variable"]]
        elif kind == "list":
            obj = [build(c) for _, c in node["children"]]
        elif kind == "tuple":
            obj = tuple(build(c) for _, c in node["children"])
        elif kind == "dict":
            obj = {name: build(c) for name, c in node["children"]}
        else:
            obj = made[k] = new_object()     # (before its children: a cycle finds it)
            for name, c in node["children"]:
                setattr(obj, name, build(c))
            for name, i in node["functions"]:
                setattr(obj, name, functions[i] if isinstance(i, int) else overloaded(name, i))
        made[k] = obj
        return obj

    return build(0)


def flatten_arguments(trees, values, split, n_inputs):
    """The Tensors of ``values`` (one per tree of ``trees``: an entry's
    ``signature``) in the exported function's order, and the RaggedTensor
    arguments by their ``rows`` number (whose rows a RaggedTensor result keeps).
    ``split(x, kind)``: ``(flat_values, ragged_rank)`` of a RaggedTensor
    (``kind="ragged"``), ``(type name or None, {field: value})`` of an
    ExtensionType (``"extension"``), else None. Raises TypeError for a value that
    is not of its tree's kind."""
    tensors, rows = [None] * n_inputs, {}

    def walk(tree, x):
        if not fill(tree, x, lambda i, t: tensors.__setitem__(i, t), rows, split, None):
            raise TypeError(f"expected {shown_tree(tree)}, got {x!r}")
    for tree, x in zip(trees, values):
        walk(tree, x)
    return tensors, rows


def shown_tree(tree):
    if "ragged" in tree:
        return f"a RaggedTensor of ragged rank {tree['ragged']['ragged_rank']}"
    if "extension" in tree:
        return f"an ExtensionType {tree['extension']['name']}"
    return "a Tensor" if "leaf" in tree else "a nest of Tensors"


def fill(tree, x, put, rows, split, describe):
    """Whether ``x`` fits ``tree`` (an argument's JSON tree); each Tensor found is
    ``put(leaf index, x)``, each RaggedTensor ``rows[its rows number] = x``. With
    ``describe`` (``(shape, dtype name)`` of a Tensor, None for a Python value)
    the Tensors' dtypes and shapes are checked and Python values must equal the
    traced ones (an overload's match); without, only the structure."""
    if "leaf" in tree:
        if describe is not None:
            d = describe(x)
            want = tree.get("_spec")
            if d is None or want is None or d[1] != want["dtype"] or len(d[0]) != len(
                    want["shape"]) or any(w is not None and w != n
                                         for w, n in zip(want["shape"], d[0])):
                return False
        put(tree["leaf"], x)
        return True
    if "const" in tree:
        if describe is None:
            return True
        return describe(x) is None and type(x) is type(tree["const"]) and x == tree["const"]
    if "ragged" in tree:
        r = tree["ragged"]
        parts = split(x, "ragged")
        if parts is None or parts[1] != r["ragged_rank"]:
            return False
        rows[r["rows"]] = x
        return fill(r["values"], parts[0], put, rows, split, describe)
    if "extension" in tree:
        e = tree["extension"]
        parts = split(x, "extension")
        if parts is None or parts[0] not in (None, e["name"]):
            return False
        fields = parts[1]
        tensor_fields = [(k, t) for k, t in e["fields"] if "const" not in t or parts[0]]
        if parts[0] is None and sorted(fields) != sorted(k for k, _ in tensor_fields):
            return False
        return all(k in fields and fill(t, fields[k], put, rows, split, describe)
                   for k, t in tensor_fields)
    for kind, types in (("tuple", (tuple,)), ("list", (list, tuple))):
        if kind in tree:
            return isinstance(x, types) and len(x) == len(tree[kind]) and all(
                fill(t, v, put, rows, split, describe) for t, v in zip(tree[kind], x))
    if "dict" in tree:
        keys = [k for k, _ in tree["dict"]]
        return isinstance(x, dict) and sorted(map(str, x)) == sorted(keys) and all(
            fill(t, x[k], put, rows, split, describe) for k, t in tree["dict"])
    return False


def _with_specs(tree, inputs):
    # The tree with each leaf's TensorSpec (JSON) beside its index, for ``fill``.
    if isinstance(tree, dict):
        out = {k: _with_specs(v, inputs) for k, v in tree.items()}
        if "leaf" in tree:
            out["_spec"] = inputs[tree["leaf"]]
        return out
    if isinstance(tree, list):
        return [_with_specs(v, inputs) for v in tree]
    return tree


def match_overload(entries, args, kwargs, describe, split=None):
    """The entry of ``entries`` (one function's exported signatures) that serves
    this call, its Tensor arguments in its order and its RaggedTensor arguments by
    rows number; None where none does (TF's loaded function raises then).
    ``describe(x)``: ``(shape, dtype name)`` of a Tensor, None for a Python value;
    ``split``: as ``flatten_arguments``'. A Python value must equal the one traced."""
    split = split or (lambda x, kind: None)
    for entry in entries:
        names = entry["all_params"]
        if len(args) > len(names) or set(kwargs) - set(names[len(args):]):
            continue
        bound = dict(entry.get("defaults", {}), **dict(zip(names, args)), **kwargs)
        if len(bound) != len(names):
            continue
        tensors, rows = [None] * len(entry["inputs"]), {}
        trees = [_with_specs(t, entry["inputs"]) for t in entry["arguments"]]
        if all(fill(tree, bound[n], lambda i, t: tensors.__setitem__(i, t), rows, split,
                    describe) for n, tree in zip(names, trees)):
            return entry, tensors, rows
    return None


def no_overload_error(entries, args, kwargs, show_spec):
    """TF's error for a loaded function called with a signature it was not saved with."""
    def shown(tree, entry):
        if "leaf" in tree:
            s = entry["inputs"][tree["leaf"]]
            return show_spec(s["shape"], s["dtype"], s["name"])
        if "const" in tree:
            return repr(tree["const"])
        if "ragged" in tree:
            r = tree["ragged"]
            shape = "Unknown" if r["shape"] is None else r["shape"]
            return (f"RaggedTensorSpec(TensorShape({shape}), tf.{r['dtype']}, "
                    f"{r['ragged_rank']}, tf.int64)")
        if "extension" in tree:
            e = tree["extension"]
            return f"{e['name'].rsplit('.', 1)[-1]}.Spec(" + ", ".join(
                f"{k}={shown(t, entry)}" for k, t in e["fields"]) + ")"
        for kind, (a, b) in (("tuple", "()"), ("list", "[]")):
            if kind in tree:
                return a + ", ".join(shown(t, entry) for t in tree[kind]) + b
        return "{" + ", ".join(f"{k!r}: {shown(t, entry)}" for k, t in tree["dict"]) + "}"

    def positional(items):
        return "Positional arguments ({} total):\n    * {}".format(
            len(items), "\n    * ".join(items))
    options = ["Option {}:\n  {}\n  Keyword arguments: {{}}".format(
        k + 1, positional([shown(t, e) for t in e["arguments"]]))
        for k, e in enumerate(entries)]
    return ValueError(
        "Could not find matching concrete function to call loaded from the SavedModel. "
        f"Got:\n  {positional([repr(a) for a in args])}\n  Keyword "
        f"arguments: {kwargs}\n\n Expected these arguments to match one of the following "
        f"{len(entries)} option(s):\n\n" + "\n\n".join(options))


def _main(work, out):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import jax
    import numpy as np
    import tensorflow as tf
    from jax.experimental import jax2tf

    # The functions were exported with 64-bit types where TF's dtypes are 64-bit:
    # jax2tf must read TF's int64 and float64 inputs as such.
    jax.config.update("jax_enable_x64", True)
    with open(os.path.join(work, "spec.json")) as f:
        spec = json.load(f)
    values = np.load(os.path.join(work, "values.npz"))
    variables = []
    for i, v in enumerate(spec["variables"]):
        value = values[f"v{i}"]
        if v["dtype"] != value.dtype.name:      # bfloat16 and the like: stored as bits
            value = value.view(jax.numpy.dtype(v["dtype"]))
        variables.append(tf.Variable(value, name=v["name"], trainable=v["trainable"]))

    def tf_spec(s):
        return tf.TensorSpec(s["shape"], tf.as_dtype(s["dtype"]), name=s.get("name"))

    def nest(tree, leaf, rows=None):
        # A JSON tree as TF values: ``leaf(i)`` for each array; a RaggedTensor
        # argument's spec (TF's RaggedTensorSpec) or, given ``rows``, a RaggedTensor
        # result with the rows of the argument it keeps; an ExtensionType as the dict
        # of its fields (the class is the program's: TF flattens it to them).
        if isinstance(tree, dict) and "leaf" in tree:
            return leaf(tree["leaf"])
        if isinstance(tree, dict) and "ragged" in tree:
            r = tree["ragged"]
            values = nest(r["values"], leaf, rows)
            if rows is not None:
                return rows[r["rows"]].with_flat_values(values)
            return tf.RaggedTensorSpec(r["shape"], tf.as_dtype(r["dtype"]), r["ragged_rank"],
                                       tf.int64, flat_values_spec=values)
        if isinstance(tree, dict) and "extension" in tree:
            return {k: nest(v, leaf, rows) for k, v in tree["extension"]["fields"]
                    if rows is not None or "const" not in v}
        if isinstance(tree, dict) and "dict" in tree:
            return {k: nest(v, leaf, rows) for k, v in tree["dict"]}
        if isinstance(tree, dict) and "tuple" in tree:
            return tuple(nest(v, leaf, rows) for v in tree["tuple"])
        if isinstance(tree, dict) and "list" in tree:
            return [nest(v, leaf, rows) for v in tree["list"]]
        if isinstance(tree, dict) and "const" in tree:
            return tree["const"]
        return tree

    def split(x, kind):
        if kind == "ragged" and isinstance(x, tf.RaggedTensor):
            return x.flat_values, x.ragged_rank
        if kind == "extension" and isinstance(x, dict):
            return None, x
        return None

    def text_layers(prelude):
        # A Keras model's string layers (saved_model._text_prelude): TF's Keras
        # rebuilds them from their configs, and they run in the function's graph
        # (their lookup tables are the SavedModel's), as TF's export of the model.
        os.environ["KERAS_BACKEND"] = "tensorflow"
        import keras
        return [keras.layers.deserialize(c) for c in prelude["layers"]]

    functions, raw, held = [], [], []
    for entry in spec["functions"]:
        with open(os.path.join(work, entry["file"]), "rb") as f:
            exported = jax.export.deserialize(bytearray(f.read()))
        converted = jax2tf.convert(
            exported.call, polymorphic_shapes=[None, entry["polymorphic"]],
            polymorphic_constraints=entry.get("constraints", ()),
            with_gradient=entry["gradient"],
            native_serialization_platforms=list(exported.platforms))
        reads = [variables[i] for i in entry["reads"]]
        writes = [variables[i] for i in entry["writes"]]
        specs = [tf_spec(s) for s in entry["inputs"]]
        prelude = text_layers(entry["prelude"]) if entry.get("prelude") else None
        held.extend(prelude or ())

        def core(tensors, rows, _converted=converted, _reads=reads, _writes=writes,
                 _entry=entry, _prelude=prelude):
            if _prelude is not None:
                x = tensors[0]
                for layer in _prelude:
                    x = layer(x)
                tensors = [tf.cast(x, tf.as_dtype(_entry["prelude"]["inputs"][0]["dtype"]))]
            flat = [tf.ensure_shape(a, shape) for a, shape in zip(tensors, _entry["ensure"])]
            arrays, new = _converted(list(_reads), list(flat))
            for v, value in zip(_writes, new):
                v.assign(tf.cast(value, v.dtype))
            text = _entry.get("text")
            if text:
                # Text outputs: handles into the trace's string constants, looked up
                # in them as TF's graph gathers from its string constant.
                arrays = list(arrays)
                table = tf.constant([t.encode("latin-1") for t in text["table"]] or [b""],
                                    tf.string)
                for i in text["outputs"]:
                    arrays[i] = tf.gather(table, -1 - text["base"] - tf.cast(arrays[i],
                                                                             tf.int32))
            return nest(_entry["outputs"], lambda i: arrays[i], rows)

        def fn(*args, _core=core, _entry=entry):
            return _core(*flatten_arguments(_entry["signature"], args, split,
                                            len(_entry["inputs"])))

        params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                  for n in entry["params"]]
        fn.__signature__ = inspect.Signature(params)
        fn.__name__ = entry["name"]
        signature = [nest(tree, lambda i: specs[i]) for tree in entry["signature"]]
        functions.append(tf.function(fn, input_signature=signature, autograph=False))
        core._eagertape_specs = specs
        raw.append(core)

    # The objects, each an AutoTrackable holding what the eagertape object held, by
    # name (as Keras's ExportArchive: no properties, tf.Module's `variables` or
    # `name`, in the way of the attributes' names).
    def describe(x):
        if isinstance(x, (tf.Tensor, tf.Variable, np.ndarray)):
            return list(x.shape), tf.as_dtype(x.dtype).name
        return None

    def overloaded(name, indices):
        # One tf.function, traced once for each signature the function was exported
        # with (TF's SavedFunction with its concrete functions): each trace calls the
        # exported function that signature's call matches.
        entries = [spec["functions"][i] for i in indices]
        names = max((e["all_params"] for e in entries), key=len)

        def dispatch(*args, **kwargs):
            found = match_overload(entries, args, kwargs, describe, split)
            if found is None:
                raise no_overload_error(entries, args, kwargs, repr)
            entry, tensors, rows = found
            return raw[indices[entries.index(entry)]](tensors, rows)
        defaults = entries[0].get("defaults", {})
        dispatch.__signature__ = inspect.Signature(
            [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                               default=defaults.get(n, inspect.Parameter.empty))
             for n in names])
        dispatch.__name__ = name
        f = tf.function(dispatch, autograph=False)
        for i, entry in zip(indices, entries):
            f.get_concrete_function(*[nest(tree, lambda k, _s=raw[i]._eagertape_specs: _s[k])
                                      for tree in entry["arguments"]])
        return f

    root = build_objects(spec, variables, functions, tf.__internal__.tracking.AutoTrackable,
                         overloaded)
    if spec.get("captured"):
        # Variables a function reads that no attribute holds (a random stream's
        # state): tracked here, so the SavedModel has them.
        root._eagertape_captured = [variables[i] for i in spec["captured"]]
    if held:
        root._eagertape_text_layers = held
    if spec.get("keras_lists"):
        # model.export: the lists Keras's ExportArchive gives the reloaded artifact.
        for name, indices in spec["keras_lists"].items():
            setattr(root, name, [variables[i] for i in indices])

    def ranked(indices):
        # A signature with inputs of unknown rank, exported once a rank: one TF
        # function of TensorSpec(None) that runs, in its graph, the exported function
        # of the ranks of the call's inputs (a Case op on tf.rank), where TF's
        # graph takes any rank; a rank not exported is TF's InvalidArgumentError.
        entries = [spec["functions"][i] for i in indices]
        first = entries[0]
        unknown = [j for j in range(len(first["inputs"]))
                   if len({len(e["inputs"][j]["shape"]) for e in entries}) > 1]
        specs = [tf.TensorSpec(None if j in unknown else s["shape"], tf.as_dtype(s["dtype"]),
                               name=s.get("name")) for j, s in enumerate(first["inputs"])]
        served = ", ".join(str(tuple(len(e["inputs"][j]["shape"]) for j in unknown))
                           for e in entries)

        def fn(*args):
            tensors, rows = flatten_arguments(first["signature"], args, split,
                                              len(first["inputs"]))
            ranks = [tf.rank(tensors[j]) for j in unknown]
            matches = tf.stack([tf.reduce_all(tf.stack(
                [tf.equal(r, len(e["inputs"][j]["shape"])) for r, j in zip(ranks, unknown)]))
                for e in entries])
            index = tf.where(tf.reduce_any(matches),
                             tf.argmax(tf.cast(matches, tf.int32), output_type=tf.int32),
                             len(entries))

            def other():
                check = tf.debugging.Assert(False, [
                    "this SavedModel's function (saved by eagertape) serves the ranks "
                    f"{served} of its inputs of unknown rank; got", tf.stack(ranks)])
                with tf.control_dependencies([check]):
                    held = [tf.identity(t) for t in tensors]
                return raw[indices[0]](held, rows)
            # Not lowered to Switch/Merge (tf.switch_case's): there TF's runtime shape
            # inference meets every branch's tf.ensure_shape with the call's shape,
            # and one of another rank fails the call; a Case op runs one branch.
            from tensorflow.python.ops import cond_v2
            return cond_v2.indexed_case(index, [
                lambda _i=i: raw[_i](tensors, rows) for i in indices] + [other],
                lower_using_switch_merge=False)
        params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                  for n in first["params"]]
        fn.__signature__ = inspect.Signature(params)
        fn.__name__ = first["name"]
        signature = [nest(tree, lambda i: specs[i]) for tree in first["signature"]]
        return tf.function(fn, input_signature=signature, autograph=False)

    signatures = None
    if spec["signatures"] is not None:
        signatures = {key: (functions[i] if isinstance(i, int) else ranked(i))
                      .get_concrete_function() for key, i in spec["signatures"].items()}
    tf.saved_model.save(root, out, signatures=signatures)
    if spec.get("endpoints"):
        # What Keras's ExportArchive prints of each endpoint: TF's own signature text.
        texts = []
        for name in spec["endpoints"]:
            concrete = getattr(root, name)._list_all_concrete_functions()[0]
            lines = concrete.pretty_printed_signature(verbose=True).split("\n")
            texts.append("\n".join([f"* Endpoint '{name}'"] + lines[1:]))
        with open(os.path.join(work, "endpoints.txt"), "w") as f:
            f.write("\n\n".join(texts))

    # What eagertape's own tf.saved_model.load needs to know of TF's signatures.
    loaded = tf.saved_model.load(out)
    described = {}
    for key, fn in loaded.signatures.items():
        _, kwargs = fn.structured_input_signature
        described[key] = {"inputs": sorted(kwargs),
                          "outputs": sorted(fn.structured_outputs)}
    with open(os.path.join(work, "signatures.json"), "w") as f:
        json.dump(described, f)
    _embed(work, out)


# The MetaGraphDef's collection that carries what eagertape's load reads. TF 2's
# loader reads the object graph and signatures and never a collection; TF 1's
# loader adds its bytes to the graph's collection of that name, unused.
PAYLOAD_COLLECTION = "eagertape_saved_model"


def _embed(work, out):
    """Put the files of ``work`` (the serialized functions, the Variables' values,
    the objects) into ``out``'s saved_model.pb, one zip archive in a collection,
    and write fingerprint.pb again for the new file: the folder holds only what
    TF's save writes, as a program listing it sees with TF."""
    import io
    import zipfile
    from tensorflow.core.protobuf import saved_model_pb2
    from tensorflow.python.saved_model import fingerprinting_utils

    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
        for name in sorted(os.listdir(work)):
            z.write(os.path.join(work, name), name)
    path = os.path.join(out, "saved_model.pb")
    saved = saved_model_pb2.SavedModel()
    with open(path, "rb") as f:
        saved.ParseFromString(f.read())
    size = saved.ByteSize() + archive.tell()
    if size >= 2 ** 31 - 2 ** 20:
        raise ValueError(
            f"the SavedModel's saved_model.pb would hold {size} bytes, more than a protocol "
            "buffer's 2 GB: eagertape carries its functions and a copy of the Variables' "
            "values in it. Save the weights with tf.train.Checkpoint instead")
    saved.meta_graphs[0].collection_def[PAYLOAD_COLLECTION].bytes_list.value.append(
        archive.getvalue())
    with open(path, "wb") as f:
        f.write(saved.SerializeToString())
    # fingerprint.pb hashes saved_model.pb (and the variables): TF's own writer, so a
    # loader's check of it (TF Serving's, tf.saved_model.experimental.read_fingerprint)
    # finds this file's.
    fingerprinting_utils.write_fingerprint(out)


if __name__ == "__main__":
    _main(sys.argv[1], sys.argv[2])
