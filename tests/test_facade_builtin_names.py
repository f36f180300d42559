"""The facade's modules bind TF's names, some of which are Python's builtins
(``tf.tuple``, ``tf.bool``, ``tf.slice``, ``tf.range``): code in such a module that
means the builtin must say ``builtins.X``. A function reading a shadowed builtin
name reads TF's op instead (``isinstance(v, (list, tuple))`` with ``tuple`` being
``tf.tuple`` raised TypeError for every tuple: ``tf.concat((a, b), 0)``)."""
import ast
import builtins
import importlib
import pkgutil

import pytest

import eagertape.tf as etf

# Reads of a shadowing name that mean the facade's own function, deliberately.
MEANT = {("eagertape.tf.math", "abs")}


def _modules():
    names = ["eagertape.tf"] + [m.name for m in pkgutil.walk_packages(etf.__path__,
                                                                      "eagertape.tf.")]
    out = []
    for name in names:
        try:
            out.append(importlib.import_module(name))
        except ImportError:       # an optional extra (Keras) not installed
            continue
    return out


def _shadowed_reads(module):
    shadow = {k for k, v in vars(module).items() if not k.startswith("__")
              and hasattr(builtins, k) and v is not getattr(builtins, k)}
    tree = ast.parse(open(module.__file__).read())
    hits = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            local = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
            for n in ast.walk(node):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and \
                        n.id in shadow and n.id not in local and \
                        (module.__name__, n.id) not in MEANT:
                    hits.add(f"{module.__name__}:{n.lineno} reads {n.id!r} "
                             f"(here {type(vars(module)[n.id]).__name__})")
    return hits


def test_no_function_reads_a_builtin_its_module_shadows():
    hits = sorted(h for m in _modules() for h in _shadowed_reads(m))
    assert not hits, "use builtins.X for these:\n" + "\n".join(hits)


def test_the_calls_that_read_them_take_tuples():
    assert etf.concat((etf.constant([1.0]), etf.constant([2.0])), 0).numpy().tolist() == [1, 2]
    x = etf.constant(1.0)
    with etf.control_dependencies((x,)):
        pass
    with pytest.raises(TypeError, match="control_inputs"):
        with etf.control_dependencies(x):
            pass
    sp = etf.sparse.SparseTensor([[0]], [1.0], [2])
    with etf.GradientTape() as tape:
        pass
    with pytest.raises(ValueError, match="SparseTensor is not supported"):
        tape.gradient(x, (sp,))
