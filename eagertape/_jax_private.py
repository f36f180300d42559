"""The names eagertape takes from JAX's private modules (``jax._src``), in one place.

JAX does not promise these across versions. Each is imported and checked here,
at eagertape's import, so that when one moves the error says which name, which
JAX version, and what to do; nothing else in eagertape imports ``jax._src``
(``tests/test_structure.py`` checks that).

``TESTED_JAX`` is the range of JAX versions the test suite ran on; outside it
eagertape still runs, and these checks are what fails first if JAX moved a name.

============== =========================== ========================================
name           JAX's private name          why eagertape needs it
============== =========================== ========================================
x64_flag       ``jax._src.config           JAX's 64-bit setting for this thread,
               .enable_x64``               switched around eagertape's own calls
                                           (``_state.x64``): the public
                                           ``jax.enable_x64`` context costs 3x as
                                           much per call, and eagertape switches it
                                           once per recorded op
ArrayImpl      ``jax._src.array            the concrete array class, named without
               .ArrayImpl``                making an array (an array made at import
                                           would start XLA's backend, after which
                                           ``jax.distributed.initialize()`` fails);
                                           ``type(v) is ArrayImpl`` is the fast test
                                           of a computed value on the hot path
trace_ctx,     ``jax._src.core.trace_ctx   whether a JAX trace is running (any:
EvalTrace      .trace``, ``EvalTrace``     jax.jit, eval_shape, Keras's compiled
                                           step): arithmetic on static shapes stays
                                           concrete there (``_primitive._run_now``);
                                           JAX has no public test of it, and the
                                           check runs on every eager call
compiler,      ``jax._src.compiler         where JAX asks XLA for an executable:
cache_key      .compile_or_get_cached``,   eagertape wraps it once so that a program
               ``jax._src.cache_key.get``  identical to one compiled before in the
                                           process (same module, options, devices)
                                           gets that executable instead of a new
                                           compile (``_cache.share_identical_programs``),
                                           keyed as JAX's persistent cache keys it;
                                           JAX's in-memory caches are keyed by the
                                           traced function, so two call kinds, replays
                                           or x64 contexts of one computation compile
                                           it twice
eval_context   ``jax._src.core             JAX's eager evaluation, whatever trace is
               .eval_context``             running: a fused graph's pending values
                                           are computed as arrays even when first
                                           read inside a trace (``Graph.materialize``).
                                           ``jax.ensure_compile_time_eval`` is not
                                           that: it folds constants in every trace
                                           started inside it as well, and a trace of
                                           symbolic sizes (an exported function's
                                           VJP) cannot fold its broadcasts
shape_poly     ``jax._src.export           the one entry of JAX's decision procedure
               .shape_poly``               for symbolic sizes (``_bounds_decision``)
                                           and the expressions' class (``_DimExpr``):
                                           eagertape bounds the sizes of its own
                                           traces of ``None`` dimensions by interval
                                           arithmetic where they nest ``max``/``min``
                                           twice or more, on which JAX's procedure
                                           takes time exponential in the nesting
                                           (``_function._bounded_decision``)
convolution,   ``jax._src.lax.convolution  the transposes of a convolution
ad             ._conv_general_dilated_      (``conv_general_dilated_p``) and where
               transpose_lhs/_rhs``,       JAX registers them: a gradient through a
               ``jax._src.interpreters.ad  strided or valid convolution of a
               .defbilinear``              symbolic size asks JAX's rules for a
                                           padding that is a symbolic size, which a
                                           convolution cannot take; eagertape puts
                                           in front of them, at its first trace of
                                           ``None`` sizes, rules that pad the
                                           operand instead (``lax.pad`` takes a
                                           symbolic padding) and call JAX's with
                                           constant padding
                                           (``_function._symbolic_conv_transposes``)
primal_of      ``JVPTracer.primal``,       a value of an autodiff trace nested in
               ``LinearizeTracer.primal``  eagertape's own (Keras's value_and_grad
                                           inside its jitted step) as a value of
                                           the outer trace: what a tf.Variable
                                           holds after an assignment there (TF
                                           assigns no gradient;
                                           ``_function._Threaded``)
============== =========================== ========================================
"""
import importlib

import jax

TESTED_JAX = ("0.8.1", "0.10.2")     # the lowest and the highest version the suite ran on


def _private(module, name, attrs=()):
    try:
        obj = getattr(importlib.import_module(module), name)
        for a in attrs:
            getattr(obj, a)
    except (ImportError, AttributeError) as e:
        raise ImportError(
            f"eagertape needs {module}.{name}{' with ' + ', '.join(attrs) if attrs else ''}, "
            f"which JAX {jax.__version__} does not have ({e}); eagertape was tested with JAX "
            f"{TESTED_JAX[0]} to {TESTED_JAX[1]}: install a JAX in that range "
            f"(pip install 'jax>={TESTED_JAX[0]},<={TESTED_JAX[1]}'), or report this with "
            "your JAX version") from None
    return obj


x64_flag = _private("jax._src.config", "enable_x64", attrs=("value", "swap_local", "set_local"))
ArrayImpl = _private("jax._src.array", "ArrayImpl")
trace_ctx = _private("jax._src.core", "trace_ctx", attrs=("trace",))
EvalTrace = _private("jax._src.core", "EvalTrace")
compiler = _private("jax._src", "compiler", attrs=("compile_or_get_cached",))
cache_key = _private("jax._src", "cache_key", attrs=("get",))
eval_context = _private("jax._src.core", "eval_context")
shape_poly = _private("jax._src.export", "shape_poly",
                      attrs=("_bounds_decision", "_DimExpr", "_DimFactor"))
convolution = _private("jax._src.lax", "convolution",
                       attrs=("conv_general_dilated_p", "_conv_general_dilated_transpose_lhs",
                              "_conv_general_dilated_transpose_rhs"))
ad = _private("jax._src.interpreters", "ad", attrs=("defbilinear",))


def primal_of(x):
    """``x`` without its autodiff traces: the primal of a JVP or linearize tracer,
    unwrapped until it is no such tracer (``x`` itself if it is none).

    >>> import jax
    >>> from eagertape._jax_private import primal_of
    >>> kept = []
    >>> _ = jax.jit(lambda x: jax.grad(lambda y: kept.append(primal_of(y * 2)) or y)(x))(1.0)
    >>> type(kept[0]).__name__
    'DynamicJaxprTracer'
    """
    while isinstance(x, jax.core.Tracer):
        p = getattr(x, "primal", None)
        if p is None:
            break
        x = p
    return x


def tracing():
    """Whether a JAX trace (of any kind) is running in this thread.

    >>> import jax
    >>> from eagertape._jax_private import tracing
    >>> tracing()
    False
    >>> _ = jax.eval_shape(lambda x: print(tracing()) or x, 1.0)
    True
    """
    return type(trace_ctx.trace) is not EvalTrace
