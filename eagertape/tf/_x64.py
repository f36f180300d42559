"""Which of the facade's callables run with JAX's 64-bit types on, and why.

TF has int64 and float64 tensors whatever JAX's setting; JAX keeps them only while
``jax_enable_x64`` is on. Switching it on for the process would make the user's
other JAX code 64-bit behind their back, so each public function and method of the
facade switches it on for its own call, on its own thread (``extend.x64``), and puts
the user's value back. The facade's functions compute values at the Python level
(an int64 random state, a float64 constant, ``jnp.asarray`` of a NumPy value)
before or instead of a recorded call; those keep TF's dtypes only inside the scope.

Rather than a decorator on each of the ~900 definitions, the facade scopes them in
one place, here, once every facade module is loaded: every public function of the
modules of ``eagertape.tf`` and every method and property of their public classes
(``extend.x64_modules`` says exactly what). Left out, and why:

- ``tf.keras`` and its join (``eagertape.tf._keras``): Keras's JAX backend is
  written for JAX's default 32-bit mode, as ``tf.keras`` computes in float32;
- generator functions: their bodies run after the call has returned;
- names starting with ``_``: helpers called by scoped functions; this module.

``SCOPED`` lists what was scoped ("module.function", "module.Class.method");
``python -m eagertape.tf._x64`` prints it; ``tests/test_x64.py`` checks that every
public function of the facade is in it and nothing of Keras is.
"""
import sys

from ..extend import x64_modules

#: The facade's modules whose names are never scoped (see above).
# tf.compat's own spellings only call the facade's (scoped) functions, and its v1
# namespace resolves names lazily, after the scoping.
UNSCOPED_MODULES = ("eagertape.tf.keras", "eagertape.tf._keras", "eagertape.tf._x64",
                    "eagertape.tf.compat")

#: What ``scope`` wrapped, sorted; empty until ``eagertape.tf`` is imported.
SCOPED = []


def facade_modules():
    """The facade's loaded modules that ``scope`` covers."""
    return sorted(n for n in sys.modules if (n == "eagertape.tf" or n.startswith("eagertape.tf."))
                  and not n.startswith(UNSCOPED_MODULES))


def scope(names=None):
    """Scope the public callables of the modules ``names`` (default: every facade
    module loaded) and add them to ``SCOPED``. Called by ``eagertape.tf`` once its
    modules are loaded, and by a facade module imported later (``tf.autograph``)."""
    SCOPED.extend(x64_modules(facade_modules() if names is None else list(names)))
    SCOPED.sort()


if __name__ == "__main__":
    from eagertape.tf import _x64     # the facade's copy (this one runs as __main__)
    print("\n".join(_x64.SCOPED))
    print(f"{len(_x64.SCOPED)} callables of {len(_x64.facade_modules())} facade modules run "
          "with JAX's 64-bit types on", file=sys.stderr)
