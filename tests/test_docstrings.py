"""Every docstring example in the package runs, in both execution modes.

Each module under ``eagertape/`` (``eagertape.tf``, ``eagertape.numpy`` and the
private modules included) is searched with ``doctest.DocTestFinder``; each
docstring with examples is one test, named by its qualified name
(``eagertape._tape.GradientTape.gradient``). A name re-exported elsewhere
(``et.GradientTape`` is ``eagertape._tape.GradientTape``) is run once, under the
module that defines it.

The examples are complete: each docstring imports what it uses
(``import eagertape as et``, ``import eagertape.tf as tf``, ...) and starts from
an empty namespace. Neither the module's globals nor predefined names such as
``et``/``tf``/``np`` are given, so an example that runs here also runs when
pasted into a fresh interpreter.

Options: ``ELLIPSIS`` and ``NORMALIZE_WHITESPACE``, with NumPy's default print
options set for each example (a test elsewhere that changes them cannot change
an array's repr here). Like every test, each runs in eager and in fused mode
(the autouse fixture in conftest.py switches the mode before the test and back
after it); the examples' outputs are the same in both.

``test_core_names_have_examples`` holds the core to the project's standard
(public names have a docstring with a short, complete example): every name in
``eagertape.__all__``, and the public methods of its classes other than
NumPy's array methods, which the Tensor and Variable docstrings show together.

Examples that need an optional package (orbax-checkpoint for tf.train's
checkpoints) are skipped, with the reason, when it is not installed. """
import doctest
import importlib
import importlib.util
import inspect
import pkgutil

import numpy as np
import pytest

import eagertape
from eagertape import debug, introspect

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# Qualified-name prefix -> (module it needs, the reason shown when it is missing).
NEEDS = {
    "eagertape.tf.train": ("orbax.checkpoint", "tf.train's checkpoint examples need "
                           "orbax-checkpoint: pip install 'eagertape[checkpoint]'"),
    "eagertape.tf._keras": ("keras", "needs Keras: pip install 'eagertape[keras]'"),
    "eagertape.tf.saved_model.save": ("tensorflow", "tf.saved_model.save writes with "
                                      "TensorFlow: pip install 'eagertape[saved_model]'"),
    "eagertape.tf.saved_model._Signature.structured_input_signature": (
        "tensorflow", "it writes a SavedModel, with TensorFlow: pip install "
        "'eagertape[saved_model]'"),
    "eagertape.tf.lite.TFLiteConverter": ("tensorflow", "it converts with TensorFlow's "
                                          "converter: pip install 'eagertape[saved_model]'"),
    # Keras's StringLookup runs TF's kernels on the strings (Keras says so without TF).
    "eagertape.tf._traced_text.on_host": ("tensorflow", "Keras's text layers need "
                                          "TensorFlow installed"),
    # TF's out-of-vocabulary buckets are farmhash's Fingerprint64.
    "eagertape.tf.lookup$": ("farmhash", "needs pyfarmhash: pip install 'eagertape[strings]'"),
    "eagertape.tf.lookup.StaticVocabularyTable": (
        "farmhash", "needs pyfarmhash: pip install 'eagertape[strings]'"),
    "eagertape.tf.strings.to_hash_bucket_fast": (
        "farmhash", "needs pyfarmhash: pip install 'eagertape[strings]'"),
}
# (A key ending in "$" is that name alone, not the names under it.)


def _under(name, key):
    if key.endswith("$"):
        return name == key[:-1]
    return name == key or name.startswith(key + ".")

# Qualified-name prefix -> marks (see conftest.py).
MARKS: dict = {
    # (it starts a TensorFlow interpreter, which writes the SavedModel)
    "eagertape.tf.saved_model.save": [pytest.mark.subprocess],
    "eagertape.tf.saved_model._Signature.structured_input_signature": [pytest.mark.subprocess],
    "eagertape.tf.lite.TFLiteConverter": [pytest.mark.subprocess],
}


def _modules():
    return ["eagertape"] + sorted(
        m.name for m in pkgutil.walk_packages(eagertape.__path__, "eagertape."))


def _installed(module):
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:          # its parent package is missing
        return False


def _cases():
    finder = doctest.DocTestFinder(exclude_empty=True)
    cases = []
    for name in _modules():
        needs = [v for k, v in NEEDS.items() if _under(name, k)]
        try:
            module = importlib.import_module(name)
        except ImportError:
            if not needs or _installed(needs[0][0]):
                raise                    # not an optional package missing: a real error
            cases.append(pytest.param(None, id=name, marks=pytest.mark.skip(reason=needs[0][1])))
            continue
        for test in sorted(finder.find(module), key=lambda t: t.name):
            if not test.examples:
                continue
            marks = [m for k, ms in MARKS.items() if _under(test.name, k) for m in ms]
            for k, (dep, reason) in NEEDS.items():
                if _under(test.name, k) and not _installed(dep):
                    marks.append(pytest.mark.skip(reason=reason))
            cases.append(pytest.param(test, id=test.name, marks=marks))
    return cases


CASES = _cases()


def test_every_module_is_searched():
    found = {p.id for p in CASES}
    for name in ("eagertape", "eagertape._tape.GradientTape.gradient",
                 "eagertape.tf.nest.flatten", "eagertape.numpy"):
        assert name in found


@pytest.mark.parametrize("test", CASES)
def test_docstring_examples(test):
    test.globs = {"__name__": "__main__"}     # an empty namespace, as in a fresh interpreter
    out = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    # Some examples switch thread settings on and off again; one that fails
    # half-way must not leave them switched for the tests after it.
    numerics = introspect.thread_state().check_numerics
    cache_size = eagertape.replay_cache_info().maxsize
    try:
        with np.printoptions(precision=8, threshold=1000, edgeitems=3, linewidth=75,
                             suppress=False, nanstr="nan", infstr="inf", sign="-",
                             floatmode="maxprec", legacy=False):
            result = runner.run(test, out=out.append)
    finally:
        (debug.enable_check_numerics if numerics else debug.disable_check_numerics)()
        eagertape.set_replay_cache_size(cache_size)
    if result.failed:
        pytest.fail("".join(out), pytrace=False)


# NumPy's array methods and attributes on Tensor and Variable (shown together in
# their class docstrings), and the attributes that have no docstring of their own.
_ARRAY_METHODS = frozenset(
    "T mT real imag all any argmax argmin argsort astype clip conj conjugate cumprod cumsum "
    "diagonal dot dtype flatten max mean min ndim nonzero prod ravel repeat reshape round "
    "shape size sort squeeze std sum swapaxes take trace transpose var device name "
    "trainable".split())


def _core_names():
    for name in eagertape.__all__:
        obj = getattr(eagertape, name)
        yield f"eagertape.{name}", obj            # a module's docstring too
        if inspect.isclass(obj):
            for attr in dir(obj):
                if attr.startswith("_") or attr in _ARRAY_METHODS:
                    continue
                member = inspect.getattr_static(obj, attr)
                member = getattr(member, "fget", None) or getattr(member, "__func__", member)
                if inspect.isfunction(member) and member.__module__.startswith("eagertape"):
                    yield f"eagertape.{name}.{attr}", member


def test_core_names_have_examples():
    missing = [name for name, obj in _core_names() if ">>>" not in (inspect.getdoc(obj) or "")]
    assert not missing, f"public names without a docstring example: {missing}"
