"""The census of public TF-2 programs (issues 37 and 38): the selection rule, and
TensorFlow's stored results.

    python tools/census.py scan GITDIR [GITDIR ...]   # the candidates, as a table
    python tools/census.py run [NAME ...]              # TF's results -> tests/census/results/

``scan`` reads the newest commit of each git directory given (a clone or a bare
snapshot of ``tensorflow/docs`` or ``keras-team/keras-io``), takes every notebook
and script under ``site/en/guide/``, ``site/en/tutorials/`` (tensorflow/docs) and
``examples/`` (keras-io), and prints each one whose code cells use a family of
issue 37, with the families it matched and the reasons it may be left out
(``needs``: a GPU/TPU, a TF-Hub model, a download, TF1, Colab) for a person to judge.
The rule is the regular expressions in ``FAMILIES``: rerun it on a newer commit to
see what changed. Markdown cells and comments are not searched (a guide that only
mentions ``tf.sparse`` does not use it).

``run`` runs each program of ``tests/census/programs/`` with real TensorFlow, in a
process of its own, and stores what it ``emit``-ted as
``tests/census/results/NAME.json`` (with TF's and Keras's versions). A program that
fails in TF stores the error instead, and the test reports it. tests/test_census.py
runs the same programs through ``eagertape.tf`` in both execution modes and compares.
"""
from __future__ import annotations

import argparse
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import tokenize

HERE = os.path.dirname(os.path.abspath(__file__))
CENSUS = os.path.join(os.path.dirname(HERE), "tests", "census")
PROGRAMS = os.path.join(CENSUS, "programs")
RESULTS = os.path.join(CENSUS, "results")

# Which files each source's census covers.
ROOTS = {"tensorflow/docs": ("site/en/guide/", "site/en/tutorials/"),
         "keras-team/keras-io": ("examples/",)}

# Issue 37's families, as what a program's code says when it uses one.
FAMILIES = {
    "strings": r"tf\.strings\.|tf\.lookup\.|\btf\.string\b|TextLineDataset|StringLookup\b"
               r"|TextVectorization\b|text_dataset_from_directory|make_csv_dataset|CsvDataset"
               r"|tf\.io\.decode_csv|tf\.as_string|tf\.unicode",
    "sparse": r"tf\.SparseTensor\b|tf\.sparse\.|tf\.IndexedSlices\b|sparse=True",
    "ragged": r"tf\.ragged\.|RaggedTensor\b|ragged=True",
    "io": r"tf\.io\.|TFRecord|tf\.train\.(Example|Features?|BytesList|FloatList|Int64List)\b"
          r"|tf\.image\.(decode|encode)_|tf\.data\.experimental\.(save|load)\b"
          r"|tf\.data\.Dataset\.(save|load)\b|\.save\(\s*['\"]?[^)]*(ds|dataset)",
    "audio": r"tf\.audio\.",
    "saved_model": r"tf\.saved_model\.|\.export\(\s*['\"\w]|ExportArchive",
    "iterator_checkpoint": r"Checkpoint\((?:[^()]|\([^()]*\))*\biter",
}

# Issue 38's selection: a TF-2 program that trains or differentiates eagerly (a
# GradientTape, a Keras train_step/test_step of its own, a loop applying gradients),
# or a Keras program that runs TensorFlow's own ops (it imports TensorFlow and calls
# tf.* other than tf.keras, or pins Keras's backend to TensorFlow: the keras-io
# examples that were kept TensorFlow-only).
SELECTION = {
    "tape": r"\bGradientTape\b",
    "train_step": r"\bdef\s+(train|test)_step\s*\(\s*self\b",
    "apply_gradients": r"\.apply_gradients\s*\(|\boptimizer\.apply\s*\(",
    "tf_ops": r"(?ms)^\s*(?:import tensorflow\b|from tensorflow\b).*\btf\.(?!keras\b)\w",
    "tf_backend": r"KERAS_BACKEND['\"]\s*\]\s*=\s*['\"]tensorflow",
}

# What may leave a candidate out, flagged for a person to judge (the census's
# exclusions are stated in docs/census.md, each with its reason).
NEEDS = {
    "gpu/tpu": r"TPUStrategy|tf\.distribute\.cluster_resolver\.TPU|MirroredStrategy"
               r"|MultiWorkerMirroredStrategy|ParameterServerStrategy|tf\.config\.experimental_connect",
    "hub": r"tensorflow_hub|hub\.KerasLayer|hub\.load|kagglehub|keras_hub\.models|keras_nlp\.models",
    "download": r"tfds\.load|get_file\(|tf\.keras\.datasets\.|keras\.datasets\.|urllib|wget|"
                r"!curl|gs://|kaggle",
    "tf1": r"tf\.compat\.v1\.(Session|placeholder|disable_v2|disable_eager)|tf\.Session\(",
    "colab": r"google\.colab",
    "other-library": r"tensorflow_(probability|text|recommenders|federated|decision_forests|io"
                     r"|model_optimization|transform|quantum|graphics|addons|ranking|agents)"
                     r"|import (tfx|gym|apache_beam)\b|import tf_agents",
}


def _git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True,
                          capture_output=True).stdout


def _code_of_notebook(raw):
    cells = json.loads(raw).get("cells", [])
    return "\n".join("".join(c.get("source", "")) for c in cells if c.get("cell_type") == "code")


def _without_comments_and_docstrings(code):
    """The code a program runs: comments and strings that are statements (docstrings,
    keras-io's markdown blocks) blanked out; shell lines (``!pip``) kept as they are."""
    lines = code.splitlines(keepends=True)
    text = "".join("\n" if ln.lstrip().startswith(("!", "%")) else ln for ln in lines)
    cut, prev = [], None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT or (
                    tok.type == tokenize.STRING
                    and prev in (None, tokenize.NEWLINE, tokenize.NL, tokenize.INDENT,
                                 tokenize.DEDENT)):
                cut.append((tok.start, tok.end))
            if tok.type not in (tokenize.NL, tokenize.COMMENT):
                prev = tok.type
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass                        # the rest (cell magics, a broken cell) searched as it is
    out = text.splitlines(keepends=True)
    for (r0, c0), (r1, c1) in reversed(cut):
        if r0 == r1:
            out[r0 - 1] = out[r0 - 1][:c0] + out[r0 - 1][c1:]
        else:
            out[r0 - 1] = out[r0 - 1][:c0] + "\n"
            for r in range(r0, r1 - 1):
                out[r] = "\n"
            out[r1 - 1] = out[r1 - 1][c1:]
    shell = [ln for ln in lines if ln.lstrip().startswith(("!", "%"))]
    return "".join(out) + "\n" + "".join(shell)


# Copies of a program that are not programs of their own: keras-io keeps each
# example's notebook and page (``ipynb/``, ``md/``) generated from its ``.py``.
SKIPPED = re.compile(r"(^|/)(ipynb|md|\.ipynb_checkpoints)/")

# A scratch repository that holds files read one by one (keras-io, read through the
# file index: each file at its own commit) names each file's commit in this file,
# one ``path<TAB>commit`` a line.
COMMITS_FILE = "CENSUS_COMMITS"


def scan(gitdir):
    """(commit, [(path, selected_by, families, needs, file_commit)]) for the newest
    commit of one source's git directory: every program that issue 38's rule
    (``SELECTION``) or an issue-37 family (``FAMILIES``) selects."""
    commit = _git(gitdir, "rev-parse", "HEAD").decode().strip()
    names = _git(gitdir, "ls-tree", "-r", "HEAD", "--name-only").decode().splitlines()
    per_file = {}
    if COMMITS_FILE in names:
        for line in _git(gitdir, "show", f"HEAD:{COMMITS_FILE}").decode().splitlines():
            if "\t" in line:
                path, c = line.split("\t", 1)
                per_file[path] = c.strip()
    roots = sum(ROOTS.values(), ())
    found = []
    for path in sorted(names):
        if (not path.startswith(roots) or not path.endswith((".ipynb", ".py"))
                or SKIPPED.search(path)):
            continue
        raw = _git(gitdir, "show", f"HEAD:{path}").decode("utf-8", "replace")
        try:
            code = _code_of_notebook(raw) if path.endswith(".ipynb") else raw
        except ValueError:
            continue
        code = _without_comments_and_docstrings(code)
        kinds = [k for k, rx in SELECTION.items() if re.search(rx, code)]
        fams = [f for f, rx in FAMILIES.items() if re.search(rx, code)]
        if kinds or fams:
            needs = [n for n, rx in NEEDS.items() if re.search(rx, code)]
            found.append((path, kinds, fams, needs, per_file.get(path, commit)))
    return commit, found


def _scan_main(gitdirs):
    for gitdir in gitdirs:
        commit, found = scan(gitdir)
        source = ("tensorflow/docs" if any(f[0].startswith("site/en/") for f in found)
                  else "keras-team/keras-io")
        per_file = any(f[4] != commit for f in found)
        print(f"## {source} @ {'each file at its own commit' if per_file else commit}: "
              f"{len(found)} candidates\n")
        print("| path | selected by (issue 38) | families (issue 37) | may need |"
              + (" commit |" if per_file else "")
              + "\n| --- | --- | --- | --- |" + (" --- |" if per_file else ""))
        for path, kinds, fams, needs, c in found:
            print(f"| {path} | {', '.join(kinds)} | {', '.join(fams)} | {', '.join(needs)} |"
                  + (f" {c} |" if per_file else ""))
        print()


# ---- TF's results -----------------------------------------------------------------

PRELUDE = r"""
import builtins, json, os, sys, tempfile, types
import numpy as np
if sys.argv[1] == "tf":
    import tensorflow as tf
else:
    import eagertape.tf as tf
    # The program's own `import tensorflow as tf` (and `from tensorflow.keras import
    # layers`) gets the facade, as the user's import line changed would; a library's
    # imports (Keras's own `import tensorflow`) are left as they are.
    _real_import = builtins.__import__
    def _import(name, globals=None, locals=None, fromlist=(), level=0):
        if (level == 0 and globals is not None and globals.get("__name__") == "__main__"
                and (name == "tensorflow" or name.startswith("tensorflow."))):
            obj = tf
            for part in name.split(".")[1:]:
                obj = getattr(obj, part)
            return obj if fromlist else tf
        return _real_import(name, globals, locals, fromlist, level)
    builtins.__import__ = _import
_out = {}
_count = [0]
def _plain(v, depth=0):
    # What a printed or plotted value is, as JSON: arrays as lists of numbers, text as
    # text, TF's composite values by their parts; other objects by nothing (their
    # class names are TF's internals).
    if depth > 8:
        return {"object": None}
    if v is None or isinstance(v, (bool, int, float)):
        return v if not isinstance(v, float) or np.isfinite(v) else {"float": str(v)}
    if isinstance(v, _Drawn):
        return None
    if isinstance(v, _Plot) or type(v).__module__.split(".")[0] == "pandas":
        return {"object": None}     # (a frame answers any attribute with a column)
    if isinstance(v, (str, bytes)):     # the run's own folder named alike in every run
        v = v.decode("utf-8", "replace") if isinstance(v, bytes) else v
        return {"str": v.replace(_CWD, "<run folder>")}
    if isinstance(v, dict):
        return {"dict": {str(k): _plain(x, depth + 1) for k, x in v.items()}}
    if hasattr(v, "as_list") and hasattr(v, "rank"):    # a TensorShape (eagertape's is a tuple)
        return {"shape": None if v.rank is None else list(v.as_list())}
    if isinstance(v, (list, tuple, range)) or type(v).__name__ in ("dict_keys", "dict_values"):
        return [_plain(x, depth + 1) for x in v]
    if isinstance(getattr(v, "history", None), dict) and hasattr(v, "epoch"):
        return {"history": _plain(v.history, depth + 1)}     # what fit's log shows
    if hasattr(v, "to_list") and hasattr(v, "flat_values"):
        return {"ragged": _plain(v.to_list(), depth + 1)}
    if hasattr(v, "indices") and hasattr(v, "dense_shape") and hasattr(v, "values"):
        return {"sparse": [_plain(v.indices, depth + 1), _plain(v.values, depth + 1),
                           _plain(v.dense_shape, depth + 1)]}
    if hasattr(v, "is_floating") and hasattr(v, "name"):
        return {"dtype": v.name}
    if hasattr(v, "numpy"):
        try:
            v = v.numpy()
        except Exception:
            return {"object": None}
    elif not isinstance(v, (np.ndarray, np.generic)):
        return {"object": None}
    a = np.asarray(v)
    if a.dtype.kind in "SUO":
        return {"strs": np.vectorize(lambda s: s.decode("utf-8", "replace") if isinstance(s, bytes)
                                     else str(s), otypes=[object])(a).tolist() if a.size else []}
    if a.dtype.kind == "b":
        return {"bool": a.tolist()}
    if a.dtype.kind in "fc":
        a = a.real.astype(float)
        return {"float": np.where(np.isfinite(a), a, 0.0).tolist(), "shape": list(a.shape)} \
            if not np.isfinite(a).all() else a.tolist()
    return a.tolist()
def emit(name, value):
    assert name not in _out, f"emitted twice: {name}"
    _out[name] = _plain(value)
def _record(kind, *args):
    _count[0] += 1
    _out[f"{_count[0]:04d} {kind}"] = _plain(list(args))
def print(*args, **kwargs):          # what the original prints is what is compared
    caught = sys.exc_info()[1]
    if caught is not None:           # a message printed in an except: its class, not its
        _record("error", type(caught).__name__)   # words (TF's name graph nodes)
    else:
        _record("print", *args)
def show(value):                     # a notebook cell's last value, which Jupyter shows
    _record("show", value)
    return value
class _Plot:
    # matplotlib.pyplot as a recorder: what is plotted is compared, nothing is drawn.
    _KEPT = {"plot", "imshow", "scatter", "bar", "hist", "pcolormesh", "matshow", "stem", "step",
             "heatmap"}
    def __init__(self, n=1):
        self._n = n
    def __getattr__(self, name):
        if name in _Plot._KEPT:
            # recorded, and a stand-in for what matplotlib returns (cells read it: lines[0].get_color())
            return lambda *a, **k: (_record("plot." + name, *[x for x in a if not isinstance(x, str)]),
                                    _Drawn())[1]
        if name in ("xlim", "ylim", "get_xlim", "get_ylim"):
            return lambda *a, **k: (0.0, 1.0)
        if name == "subplots":
            def subplots(nrows=1, ncols=1, **k):
                n = nrows * ncols
                return _Plot(), (_Plot() if n == 1 else _Axes([_Plot() for _ in range(n)]))
            return subplots
        return _Plot()
    def __call__(self, *a, **k):
        return _Plot()
    def __iter__(self):
        return iter([_Plot(), _Plot()])
    def __getitem__(self, i):
        return _Plot()
    def __setitem__(self, i, v):
        pass
class _Drawn(_Plot):
    pass                             # (shown as nothing, as when these calls returned None)
class _Axes(list):
    flat = property(lambda self: iter(self))
    def flatten(self):
        return list(self)
    def __getitem__(self, i):
        return list.__getitem__(self, i[0] * 0 + i[-1] if isinstance(i, tuple) else i) \
            if not isinstance(i, slice) else _Axes(list.__getitem__(self, i))
_plt = types.ModuleType("matplotlib.pyplot")
_plt.__getattr__ = lambda name: getattr(_Plot(), name)
_mpl = types.ModuleType("matplotlib")
_mpl.pyplot = _plt
_mpl.__getattr__ = lambda name: _Plot()
_sns = types.ModuleType("seaborn")            # seaborn's plots: recorded as plt's
_sns.__getattr__ = lambda name: getattr(_Plot(), name)
sys.modules["seaborn"] = _sns
_ipd = types.ModuleType("IPython.display")    # Jupyter's display: nothing shown
_ipd.__getattr__ = lambda name: _Plot()
_ipy = types.ModuleType("IPython")
_ipy.display = _ipd
sys.modules.update({"matplotlib": _mpl, "matplotlib.pyplot": _plt, "IPython": _ipy,
                    "IPython.display": _ipd})
# A notebook's kernel: Keras's plot_model, without pydot, prints its message and returns
# there (where TF's import has loaded IPython) instead of raising.
sys.modules.setdefault("IPython.core.magics.namespace",
                       types.ModuleType("IPython.core.magics.namespace"))
# A stand-in for the (Fashion-)MNIST download many programs start with (their
# `keras.datasets.mnist.load_data()` replaced by `_mnist_like(n_train, n_test)`, as
# each program's header says), the same arrays in both runs.
def _mnist_like(n_train, n_test):
    # MNIST's load_data format: uint8 images (n, 28, 28) in 0..255 and uint8 labels;
    # each class a blob at its own place, with noise
    rs = np.random.RandomState(0)
    def part(n):
        y = rs.randint(0, 10, n).astype("uint8")
        x = rs.randint(0, 60, (n, 28, 28))
        for i, c in enumerate(y):
            r, q = 4 + 2 * (c % 5), 6 + 8 * (c // 5)
            x[i, r:r + 8, q:q + 8] += 180
        return x.clip(0, 255).astype("uint8"), y
    return part(n_train), part(n_test)

_rs = np.random.RandomState(1234)
def _np_shape(shape):
    return tuple(int(d) for d in (shape.numpy() if hasattr(shape, "numpy") else shape))
def _np_truncated(shape):
    x = _rs.normal(size=shape)
    bad = np.abs(x) > 2
    while bad.any():
        x[bad] = _rs.normal(size=int(bad.sum()))
        bad = np.abs(x) > 2
    return x
def _np_random():
    # Determinism: TF's random ops called by the program, and Keras's random
    # initializers, draw from one seeded NumPy generator in both runs (TF's own
    # values are its Philox generator's, which eagertape does not reproduce).
    f = lambda v: float(np.asarray(getattr(v, "numpy", lambda: v)()))
    def normal(shape, mean=0.0, stddev=1.0, dtype=tf.float32, seed=None, name=None):
        return tf.constant(_rs.normal(f(mean), f(stddev), _np_shape(shape)), dtype=dtype)
    def uniform(shape, minval=0, maxval=None, dtype=tf.float32, seed=None, name=None):
        dtype = tf.as_dtype(dtype)
        if dtype.is_integer:
            return tf.constant(_rs.randint(int(f(minval)), int(f(maxval)), _np_shape(shape)), dtype=dtype)
        return tf.constant(_rs.uniform(f(minval), 1.0 if maxval is None else f(maxval),
                                       _np_shape(shape)), dtype=dtype)
    def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=tf.float32, seed=None, name=None):
        return tf.constant(f(mean) + f(stddev) * _np_truncated(_np_shape(shape)), dtype=dtype)
    def shuffle(value, seed=None, name=None):
        value = tf.convert_to_tensor(value)
        return tf.gather(value, tf.constant(_rs.permutation(int(value.shape[0]))))
    tf.random.normal, tf.random.uniform, tf.random.truncated_normal = normal, uniform, truncated_normal
    tf.random.shuffle = shuffle
    tf.keras.layers                  # the facade sets Keras up (its backend) first
    import keras
    from keras.src.initializers import random_initializers as ri
    def out(x, dtype):
        return keras.ops.convert_to_tensor(np.asarray(x), dtype=dtype or keras.backend.floatx())
    def vs(self, shape, dtype=None):
        fan_in, fan_out = ri.compute_fans(shape)
        scale = self.scale / max(1.0, {"fan_in": fan_in, "fan_out": fan_out}.get(
            self.mode, (fan_in + fan_out) / 2.0))
        if self.distribution == "truncated_normal":
            return out(np.sqrt(scale) / 0.87962566103423978 * _np_truncated(shape), dtype)
        if self.distribution == "untruncated_normal":
            return out(_rs.normal(0.0, np.sqrt(scale), shape), dtype)
        lim = np.sqrt(3.0 * scale)
        return out(_rs.uniform(-lim, lim, shape), dtype)
    ri.VarianceScaling.__call__ = vs
    ri.RandomNormal.__call__ = lambda self, shape, dtype=None: out(
        _rs.normal(self.mean, self.stddev, shape), dtype)
    ri.RandomUniform.__call__ = lambda self, shape, dtype=None: out(
        _rs.uniform(self.minval, self.maxval, shape), dtype)
    ri.TruncatedNormal.__call__ = lambda self, shape, dtype=None: out(
        self.mean + self.stddev * _np_truncated(shape), dtype)
    def orthogonal(self, shape, dtype=None):
        rows = int(np.prod(shape[:-1])); cols = shape[-1]
        q, r = np.linalg.qr(_rs.normal(size=(max(rows, cols), min(rows, cols))))
        q = q * np.sign(np.diag(r))
        q = q.T if rows < cols else q
        return out(self.gain * q[:rows, :cols].reshape(shape), dtype)
    ri.Orthogonal.__call__ = orthogonal
_np_random()
def weights_like(model, seed=0):
    rs = np.random.RandomState(seed)
    return [(rs.randn(*w.shape) * 0.5).astype(w.dtype) for w in model.get_weights()]
os.chdir(tempfile.mkdtemp(prefix="census-"))
_CWD = os.getcwd()
np.random.seed(0)        # determinism: NumPy's and Python's global generators start alike
__import__("random").seed(0)
"""
# What an eagertape run imports first (tests/program_server.py's preload).
PRELOAD = ("import builtins, json, os, sys, tempfile, types, numpy, eagertape.tf as tf; "
           "tf.keras.layers")
EPILOGUE = "\nbuiltins.print('@@' + json.dumps(_out))\n"


def programs():
    return sorted(f[:-3] for f in os.listdir(PROGRAMS) if f.endswith(".py"))


def source_of(name):
    with open(os.path.join(PROGRAMS, name + ".py")) as f:
        return f.read()


def code_digest(text):
    """A digest of a program's code: its tokens without comments and blank lines, so a
    header's ``expected:`` line or a comment changes nothing, and any change to what
    runs changes it (tests/test_census.py refuses TF's results of other code)."""
    import hashlib
    toks = [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.COMMENT, tokenize.NL)]
    return hashlib.sha256("\x00".join(toks).encode()).hexdigest()[:16]


def header(name):
    """The program's header fields (``# source: ...``, ``# commit: ...``, ``# families: ...``,
    ``# timings: ...``, ``# unrepeatable: NNNN ...: WHY``, and ``# expected: CAUSE`` for a
    program that does not pass yet)."""
    fields = {}
    for line in source_of(name).splitlines():
        m = re.match(r"#\s*(source|commit|families|timings|unrepeatable|expected):\s*(.*)",
                     line)
        if m:
            fields[m.group(1)] = m.group(2).strip()
        elif not line.startswith("#"):
            break
    return fields


# Libraries some programs import, as their sources do, that the tests do not install.
OPTIONAL_LIBRARIES = ("pandas", "sklearn")


def missing_libraries(name):
    """The libraries of ``OPTIONAL_LIBRARIES`` the program imports that are not
    installed (the test skips it, naming them, before it runs)."""
    import importlib.util
    src = source_of(name)
    return [lib for lib in OPTIONAL_LIBRARIES
            if re.search(rf"^\s*(?:import|from)\s+{lib}\b", src, re.M)
            and importlib.util.find_spec(lib) is None]


def program_file(name, folder):
    """The program as the census runs it (prelude, program, epilogue), written to a file
    in ``folder``: TF's AutoGraph (and eagertape's) reads a tf.function's source from
    its file, which a ``python -c`` program has not."""
    path = os.path.join(folder, f"census_{name}.py")
    with open(path, "w") as f:
        f.write(PRELUDE + source_of(name) + EPILOGUE)
    return path


def run_program(name, which, env=None, timeout=900):
    """(result dict or None, error text, seconds): one program run in a fresh process,
    with TensorFlow (``which='tf'``) or eagertape."""
    # PYTHONHASHSEED: a serialized proto's map (tf.train.Example's features) is written
    # in an order that follows Python's string hashes.
    env = dict(os.environ if env is None else env, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="",
               PYTHONHASHSEED="0")
    env.pop("KERAS_BACKEND", None)
    # This checkout's eagertape, as `python -c` from its root would import it.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.dirname(HERE),
                                                      env.get("PYTHONPATH")]))
    t = time.time()
    with tempfile.TemporaryDirectory() as folder:
        r = subprocess.run([sys.executable, program_file(name, folder), which],
                           capture_output=True, text=True, env=env, timeout=timeout)
    took = time.time() - t
    if r.returncode != 0:
        return None, r.stderr[-3000:], took
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1]
    return json.loads(line[2:]), "", took


def _program_server():
    """tests/program_server.py, or None where it cannot be had (an install without
    the tests)."""
    try:
        sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
        import program_server
    except ImportError:
        return None
    finally:
        sys.path.pop(0)
    return program_server if program_server.enabled() else None


def run_forked(name, env, timeout=900):
    """(result dict or None, error text): one program through eagertape, in a child of
    a server that has imported the facade and Keras (tests/program_server.py), its
    SavedModels written by children of a server that has imported TensorFlow
    (``program_server.saved_model_writer``: `import tensorflow` is paid once a run,
    not once a SavedModel); in a fresh process (``run_program``) where the program
    server is not to be had."""
    ps = _program_server()
    if ps is None:
        got, err, _ = run_program(name, "eagertape", env=env, timeout=timeout)
        return got, err
    env = dict(env, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="", PYTHONHASHSEED="0")
    env.pop("KERAS_BACKEND", None)
    # One writer for both modes: what it imports reads no execution mode.
    env["EAGERTAPE_TEST_SAVED_MODEL_WRITER"] = ps.saved_model_writer(env)
    preload = ps.with_saved_model_writer(PRELOAD, "EAGERTAPE_TEST_SAVED_MODEL_WRITER")
    with tempfile.TemporaryDirectory() as folder:
        path = program_file(name, folder)
        r = ps.run(f"exec(compile(open({path!r}).read(), {path!r}, 'exec'))",
                   ["eagertape"], preload=preload, env=env, timeout=timeout)
    if r.returncode != 0:
        return None, r.stderr[-3000:]
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("@@")][-1]
    return json.loads(line[2:]), ""


def versions():
    from importlib import metadata
    return {d: metadata.version(d) for d in ("tensorflow-cpu", "keras")
            if _installed(d)} or {"tensorflow": metadata.version("tensorflow")}


def _installed(dist):
    from importlib import metadata
    try:
        metadata.version(dist)
        return True
    except metadata.PackageNotFoundError:
        return False


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_SPACES = re.compile(r" +")


def unrepeatable(name):
    """The records whose values TF itself gives anew at each run (a generator made from
    the operating system's entropy), by the header's ``# unrepeatable: 0003 0005: why``:
    their place and kind are compared, not their values."""
    field = header(name).get("unrepeatable", "")
    return set(re.findall(r"\b\d{4}\b", field.split(":")[0]))


def differences(want, got, where="", rtol=1e-3, atol=1e-4, timings=None, unrepeatable=()):
    """Where ``got`` is not ``want`` (two trees of tools/census.py's prelude), as a
    list of lines: numbers within rtol/atol (atol scaled by the largest entry of the
    value), texts equal but for their numbers, which are compared as numbers; the
    values of the records numbered in ``unrepeatable`` are not compared."""
    out = []

    def largest(x):
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            return abs(x)
        if isinstance(x, list):
            return max((largest(v) for v in x), default=0.0)
        return 0.0

    def walk(w, g, where, scale):
        if len(out) > 5:
            return
        if isinstance(w, dict) and isinstance(g, dict):
            if "object" in w and "object" in g:
                return
            if "str" in w and "str" in g:
                return text(w["str"], g["str"], where)
            if w.keys() != g.keys():
                out.append(f"{where}: TF {_short(w)}, eagertape {_short(g)}")
                return
            for k in w:
                walk(w[k], g[k], f"{where}.{k}", scale)
            return
        if isinstance(w, list) and isinstance(g, list):
            if len(w) != len(g):
                out.append(f"{where}: length {len(w)} in TF, {len(g)} in eagertape: "
                           f"TF {_short(w)}, eagertape {_short(g)}")
                return
            for i, (a, b) in enumerate(zip(w, g)):
                walk(a, b, f"{where}[{i}]", scale)
            return
        if isinstance(w, bool) or isinstance(g, bool) or isinstance(w, str):
            if w != g:
                out.append(f"{where}: TF {w!r}, eagertape {g!r}")
            return
        if isinstance(w, (int, float)) and isinstance(g, (int, float)):
            if not math.isclose(w, g, rel_tol=rtol, abs_tol=atol * scale):
                out.append(f"{where}: TF {w!r}, eagertape {g!r}")
            return
        if w != g:
            out.append(f"{where}: TF {_short(w)}, eagertape {_short(g)}")

    def text(w, g, where):
        # (a run of spaces as one: NumPy pads an array's printed numbers to one width,
        # which a last digit's difference changes)
        if _SPACES.sub(" ", _NUMBER.sub("#", w)) != _SPACES.sub(" ", _NUMBER.sub("#", g)):
            out.append(f"{where}: TF printed {w[:200]!r}, eagertape {g[:200]!r}")
            return
        for a, b in zip(_NUMBER.findall(w), _NUMBER.findall(g)):
            if not math.isclose(float(a), float(b), rel_tol=rtol, abs_tol=atol * max(1, abs(float(a)))):
                out.append(f"{where}: TF printed {w[:200]!r}, eagertape {g[:200]!r}")
                return

    wk, gk = list(want), list(got)
    if wk != gk:
        first = next((i for i, (a, b) in enumerate(zip(wk, gk)) if a != b), min(len(wk), len(gk)))
        out.append(f"what was recorded differs from #{first}: TF {wk[first:first + 3]}, "
                   f"eagertape {gk[first:first + 3]}")
        wk = gk = [k for k in wk if k in got]
    for k in wk:
        if timings and k.endswith(" print") and _is_timing(want[k], timings):
            continue            # a printed time: the machine's, not the program's
        if k.split()[0] in unrepeatable:
            continue            # a value TF's own runs do not repeat
        walk(want[k], got[k], k, max(1.0, largest(want[k])))
    return out


def _is_timing(record, timings):
    first = record[0] if isinstance(record, list) and record else None
    return isinstance(first, dict) and re.search(timings, first.get("str", "")) is not None


def _short(x):
    s = json.dumps(x)
    return s if len(s) < 160 else s[:160] + "..."


def compact(x):
    """A stored result with its floats to 7 significant digits (what float32 holds; the
    comparison's tolerance is far wider)."""
    if isinstance(x, float):
        return float(f"{x:.7g}")
    if isinstance(x, list):
        return [compact(v) for v in x]
    if isinstance(x, dict):
        return {k: compact(v) for k, v in x.items()}
    return x


def _run_main(names):
    os.makedirs(RESULTS, exist_ok=True)
    for name in names or programs():
        got, err, took = run_program(name, "tf")
        record = {"program": name, "versions": versions(), "seconds": round(took, 1),
                  "code": code_digest(source_of(name))}
        if got is None:
            record["error"] = "\n".join(err.strip().splitlines()[-12:]) or "failed"
        else:
            record["results"] = got
        with open(os.path.join(RESULTS, name + ".json"), "w") as f:
            json.dump(compact(record), f, sort_keys=True, separators=(",", ":"))
            f.write("\n")
        print(f"{name}: {'ok' if got is not None else 'TF FAILED: ' + record['error']} "
              f"({took:.1f} s)", flush=True)


def outcome(name, mode, runner=None):
    """(status, first line, detail) of one program through eagertape in one execution
    mode against TF's stored results: 'pass', 'error' (eagertape raised), 'differs'
    (an answer is not TF's), 'tf-error' (TF failed: nothing to compare)."""
    with open(os.path.join(RESULTS, name + ".json")) as f:
        stored = json.load(f)
    if "results" not in stored:
        return "tf-error", stored["error"], ""
    env = dict(os.environ, EAGERTAPE_EXECUTION_MODE=mode)
    if runner is None:
        got, err, _ = run_program(name, "eagertape", env=env)
    else:
        got, err = runner(name, env)
    if got is None:
        lines = [ln for ln in err.strip().splitlines() if ln.strip()]
        errors = [ln for ln in lines if re.match(r"[\w.]+(Error|Exception|Exit)\b", ln)]
        first = (errors or lines or ["failed"])[-1]
        at = re.findall(rf'census_{name}\.py", line (\d+)', err)
        if at:          # where in the program (the file is the prelude, then the program)
            k = int(at[-1]) - PRELUDE.count("\n")
            src = source_of(name).splitlines()
            if 0 < k <= len(src):
                first += f" [program line {k}: {src[k - 1].strip()[:120]}]"
        return "error", first, err
    diff = differences(stored["results"], got, timings=header(name).get("timings"),
                       unrepeatable=unrepeatable(name))
    return ("pass", "", "") if not diff else ("differs", diff[0], "\n".join(diff))


def _status_main(names):
    """Each program's row of docs/census.md's table (the cause column is a person's)."""
    rows = {}
    for name in names or programs():
        h = header(name)
        res, took = {}, {}
        for m in ("eager", "fused"):
            t0 = time.time()
            res[m] = outcome(name, m, run_forked)
            took[m] = time.time() - t0
        rows[name] = {"source": h.get("source", ""), "families": h.get("families", ""),
                      **{m: res[m][0] for m in res}, "first": res["eager"][1] or res["fused"][1]}
        print(f"| {name} | {h.get('source', '').split(' ', 1)[-1]} | {h.get('families', '')} | "
              f"{res['eager'][0]} | {res['fused'][0]} | {(res['eager'][1] or res['fused'][1])[:400]} | "
              f"{took['eager']:.0f}/{took['fused']:.0f} s |",
              flush=True)
    return rows


def _table_main():
    """docs/census.md's table, from the programs' headers: each program's source and
    commit, its families, and its status (pass, or the cause in its ``expected``
    line). The tests check each row: a program without ``expected`` passes, one with
    it fails (tests/test_census.py); `status` runs them and shows which way."""
    rows, fams, kinds = [], {}, {"pass": 0, "gap": 0, "kept": 0}
    for name in programs():
        h = header(name)
        repo, _, path = h.get("source", "").partition(" ")
        cause = h.get("expected", "")
        kind = "pass" if not cause else cause.split(":", 1)[0].split(" ", 1)[0]
        kinds[kind] = kinds.get(kind, 0) + 1
        for fam in [f.strip() for f in h.get("families", "").split(",") if f.strip()]:
            n, ok = fams.get(fam, (0, 0))
            fams[fam] = (n + 1, ok + (kind == "pass"))
        rows.append((repo, path, name, h.get("commit", "")[:7], h.get("families", ""),
                     "pass" if kind == "pass" else "fails", cause))
    print("| program | source | commit | families (issue 37) | status (both modes) | cause |")
    print("| --- | --- | --- | --- | --- | --- |")
    for repo, path, name, commit, families, status, cause in sorted(rows):
        print(f"| `{name}` | {repo} `{path}` | {commit} | {families} | {status} | {cause} |")
    n = len(rows)
    print(f"\n**{n} programs: {kinds['pass']} pass in both modes ({100 * kinds['pass'] / n:.0f} %), "
          f"{kinds['gap']} fail on a gap, {kinds['kept']} on a documented difference (kept).**\n")
    print("| family (issue 37) | programs | pass (both modes) |\n| --- | --- | --- |")
    for fam, (k, ok) in sorted(fams.items()):
        print(f"| {fam} | {k} | {ok} |")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scan", help="print the candidate programs of sources' git directories")
    s.add_argument("gitdirs", nargs="+")
    r = sub.add_parser("run", help="run the census programs with TF and store the results")
    r.add_argument("names", nargs="*")
    t = sub.add_parser("status", help="run the census programs through eagertape (both modes) "
                                      "and print docs/census.md's rows")
    t.add_argument("names", nargs="*")
    sub.add_parser("table", help="print docs/census.md's table from the programs' headers")
    a = p.parse_args(argv)
    if a.cmd == "scan":
        _scan_main(a.gitdirs)
    elif a.cmd == "run":
        _run_main(a.names)
    elif a.cmd == "table":
        _table_main()
    else:
        _status_main(a.names)


if __name__ == "__main__":
    main()
