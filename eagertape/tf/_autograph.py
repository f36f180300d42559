"""AutoGraph for ``tf.function``: Python ``if``/``for``/``while``/``break``/
``continue``/``return`` on Tensors turned into ``tf.cond``/``tf.while_loop``.

The source transformation is TF's own AutoGraph, as maintained outside
TensorFlow by the ``diastatic-malt`` package (import name ``malt``; PennyLane's
Catalyst converts Python control flow to JAX's with it). Its converted code calls
the operators of an ``ag__`` module; here they dispatch as TF's do:

- a condition or iterable that is a Python value runs as Python;
- an eagertape Tensor goes to eagertape's ``tf.cond``/``tf.while_loop``, which run
  as Python while the predicate is a known value and become ``lax.cond``/
  ``lax.while_loop`` (or a masked ``lax.scan`` of known length, which reverse mode
  differentiates) once a ``tf.function`` trace makes it a traced value.

TF's checks on the variables a conditional or loop changes are kept, with TF's
messages: a variable set in only one branch of an ``if`` on a Tensor, a different
dtype in the two branches, a loop variable whose dtype or shape changes in an
iteration, a variable used after a loop but first set inside it.

User functions called from converted code are converted too, at their first call,
as TF does; library code (eagertape, JAX, NumPy, Keras, and what malt's own rules
name) runs as it is. :func:`convert` is what ``tf.function`` applies at its first
trace.

>>> import eagertape.tf as tf
>>> from eagertape.tf import _autograph
>>> def collatz(n):
...     steps = 0
...     while n != 1:
...         if n % 2 == 0:
...             n = n // 2
...         else:
...             n = 3 * n + 1
...         steps += 1
...     return steps
>>> int(tf.function(_autograph.convert(collatz))(tf.constant(27)))
111
"""
import functools
import importlib.metadata
import inspect
import logging
import os
import sys

import jax
import numpy as np

from .. import numpy as _tnp
from .. import extend as _extend
from ..extend import TensorLike as _TensorLike, wrap as _wrap
from . import _control_flow

# -- malt: every use of its internals is here, checked against its version -----------
# malt's public API (``malt.to_graph``, ``malt.convert``) converts with malt's own
# Python-only operators; dispatching to eagertape's needs its transformer class and
# the pieces its own ``converted_call`` is made of. These are TF AutoGraph's
# internals, stable across the malt releases tried (2.15.x).
_MALT_MIN = (2, 15, 3)


def _malt_version():
    try:
        text = importlib.metadata.version("diastatic-malt")
    except importlib.metadata.PackageNotFoundError:
        raise ImportError("tf.function's AutoGraph needs the package diastatic-malt "
                          "(pip install 'diastatic-malt>=2.15.3')") from None
    parts = tuple(int(p) for p in text.split(".")[:3] if p.isdigit())
    if parts < _MALT_MIN:
        raise ImportError(f"tf.function's AutoGraph needs diastatic-malt >= 2.15.3, found "
                          f"{text}: pip install -U diastatic-malt")
    return text


MALT_VERSION = _malt_version()

from malt.core import ag_ctx as _ag_ctx  # noqa: E402
from malt.core import converter as _converter  # noqa: E402
from malt.impl import api as _ag_api  # noqa: E402
from malt.impl import conversion as _conversion  # noqa: E402
from malt.lang import directives as _directives  # noqa: E402
from malt.operators import py_builtins as _py_builtins  # noqa: E402
from malt.operators import variables as _ag_vars  # noqa: E402
from malt.pyct import inspect_utils as _inspect_utils  # noqa: E402

_Undefined = _ag_vars.Undefined
_UndefinedReturnValue = _ag_vars.UndefinedReturnValue
#: ``tf.autograph.experimental.set_loop_options`` (malt recognises this very function).
set_loop_options = _directives.set_loop_options
# Options for the function tf.function was given, and for those it calls.
_TOPLEVEL = _converter.ConversionOptions(recursive=True, user_requested=True,
                                         internal_convert_user_code=True,
                                         optional_features=None)

_log = logging.getLogger("eagertape.autograph")

# Never converted, even when asked: their control flow is already TF's (or JAX's), and
# converting them would trace both sides of every internal branch.
_LIBRARIES = ("eagertape", "jax", "jaxlib", "numpy", "keras", "optax", "malt", "scipy",
              "tensorflow", "orbax", "flax", "ml_dtypes", "functools", "builtins")


class _Transformer(_ag_api.PyToPy):
    """malt's AutoGraph transformer, its converted code calling this module's
    operators instead of malt's Python-only ones."""

    def get_transformed_name(self, node):
        # TF's name for the converted function (tf.autograph.to_code shows it).
        return "tf__" + super(_ag_api.PyToPy, self).get_transformed_name(node)

    def get_extra_locals(self):
        if self._extra_locals is None:
            extra = super().get_extra_locals()
            extra["ag__"].__dict__.update(_OPERATORS)
            self._extra_locals = extra
        return self._extra_locals


def _convert_entity(entity, options):
    transformed, module, source_map = _TRANSFORMER.transform(
        entity, _converter.ProgramContext(options=options))
    transformed.ag_module, transformed.ag_source_map = module, source_map
    return transformed


def _is_artifact(f):
    return _ag_api.is_autograph_artifact(f)


def _disabled():
    return _ag_ctx.control_status_ctx().status == _ag_ctx.Status.DISABLED
# -- end of malt internals --------------------------------------------------------------


def _is_tensor(x):
    return isinstance(x, _TensorLike)


def _library_dirs():
    dirs = []
    for lib in _LIBRARIES:
        m = sys.modules.get(lib)
        path = getattr(m, "__file__", None)
        if path:    # a package's folder, a single module's file
            path = os.path.abspath(path)
            dirs.append(os.path.dirname(path) + os.sep if hasattr(m, "__path__") else path)
    return tuple(dirs)


def _library(f):
    """Whether ``f`` belongs to a library that is never converted: by where its code
    is written where it has Python code (a doctest's function runs in a library's
    globals, yet is the user's), else by its module's name."""
    code = getattr(getattr(f, "__func__", f), "__code__", None)
    if code is not None:
        name = code.co_filename
        if name.startswith("<"):
            return False
        return os.path.abspath(name).startswith(_library_dirs())
    names = []
    m = inspect.getmodule(f)
    if m is not None:
        names.append(m.__name__)
    mod = getattr(f, "__module__", None)
    if isinstance(mod, str):
        names.append(mod)
    func = getattr(f, "__func__", None)
    if func is not None:
        names.append(getattr(func, "__module__", "") or "")
    return any(n == lib or n.startswith(lib + ".") for n in names for lib in _LIBRARIES)


def _call(f, args, kwargs):
    return f(*args, **kwargs) if kwargs else f(*args)


def converted_call(f, args, kwargs, caller_fn_scope=None, options=None):
    """How converted code calls a function: user functions are converted first (once;
    malt caches them), library functions and builtins run as they are (a few
    builtins on Tensors as TF's AutoGraph runs them)."""
    if options is None:
        if caller_fn_scope is None:
            raise ValueError("converted_call needs `caller_fn_scope` or `options`")
        options = caller_fn_scope.callopts
    if _disabled() or _is_artifact(f):
        return _call(f, args, kwargs)
    if isinstance(f, functools.partial):
        kw = dict(f.keywords or {})
        kw.update(kwargs or {})
        return converted_call(f.func, f.args + tuple(args), kw, caller_fn_scope, options)
    if _inspect_utils.isbuiltin(f):
        if f in (eval, super, globals, locals):
            # These need the caller's frame, which malt recovers from the scope.
            special = {eval: lambda: _py_builtins.eval_in_original_context(
                           f, args, caller_fn_scope),
                       super: lambda: _py_builtins.super_in_original_context(
                           f, args, caller_fn_scope),
                       globals: lambda: _py_builtins.globals_in_original_context(
                           caller_fn_scope),
                       locals: lambda: _py_builtins.locals_in_original_context(
                           caller_fn_scope)}
            return special[f]()
        return _call(_BUILTINS.get(f, f), args, kwargs)
    facade = sys.modules.get("eagertape.tf")
    if f is getattr(facade, "print", None):
        return _print(args, kwargs)
    if f is getattr(facade, "range", None):
        return _tf_range(f, args, kwargs)
    if _library(f) or _conversion.is_unsupported(f) or (
            not options.user_requested and _conversion.is_allowlisted(f)):
        return _call(f, args, kwargs)
    if inspect.ismethod(f) or inspect.isfunction(f):
        target, eff = f, tuple(args)
        if getattr(f, "__self__", None) is not None:
            target, eff = f.__func__, (f.__self__,) + eff
    elif callable(f) and not inspect.isclass(f):
        target, eff = type(f).__call__, (f,) + tuple(args)
        if _library(target):
            return _call(f, args, kwargs)
    else:
        return _call(f, args, kwargs)
    code = getattr(target, "__code__", None)
    if code is None or code.co_filename == "<string>":
        return _call(f, args, kwargs)
    try:
        conv = _convert_entity(target, options)
    except Exception as e:  # noqa: BLE001 -- TF's rule: warn, then run it unconverted
        _warn_unconverted(f, e)
        return _call(f, args, kwargs)
    return _call(conv, eff, kwargs)


def _warn_unconverted(f, e):
    import warnings
    warnings.warn(f"AutoGraph could not transform {f!r} and will run it as-is (Python "
                  f"control flow on Tensors inside it will not be converted). Cause: "
                  f"{type(e).__name__}: {e}. To silence this warning, decorate the function "
                  "with @tf.autograph.experimental.do_not_convert", stacklevel=3)


def convert(fn):
    """``fn`` converted by AutoGraph: Python ``if``/``for``/``while`` (with
    ``break``, ``continue``, ``return``) on Tensors become ``tf.cond``/
    ``tf.while_loop``; on Python values they stay Python. User functions that
    ``fn`` calls are converted when first called. ``tf.function`` applies it at
    its first trace; a function, bound method, ``functools.partial``, lambda or
    callable object is accepted. Conversion itself happens at the first call; a
    function that cannot be converted (no source, say) warns then and runs as it
    is, as in TF.

    >>> import eagertape.tf as tf
    >>> from eagertape.tf import _autograph
    >>> def relu_sum(x):
    ...     total = tf.constant(0.0)
    ...     for v in x:
    ...         if v > 0:
    ...             total += v
    ...     return total
    >>> f = tf.function(_autograph.convert(relu_sum))
    >>> float(f(tf.constant([1.0, -2.0, 3.0])))
    4.0
    """
    if not callable(fn):
        raise TypeError(f"argument `fn` of autograph convert must be callable, got "
                        f"{type(fn).__name__}")
    if _is_artifact(fn):
        return fn

    def converted(*args, **kwargs):
        with _ag_ctx.ControlStatusCtx(status=_ag_ctx.Status.ENABLED):
            return converted_call(fn, args, kwargs, options=_TOPLEVEL)
    if inspect.isfunction(fn) or inspect.ismethod(fn):
        functools.update_wrapper(converted, fn)
    converted.ag_unconverted = fn
    return _ag_api.autograph_artifact(converted)


def convert_if_enabled(fn):
    """``fn`` converted when the code calling this is converted (TF's
    ``autograph.tf_convert`` with the caller's status): how ``Strategy.run``
    treats its step inside a ``tf.function``, and leaves it alone outside.

    >>> from eagertape.tf import _autograph
    >>> f = lambda x: x
    >>> _autograph.convert_if_enabled(f) is f
    True
    """
    if _ag_ctx.control_status_ctx().status == _ag_ctx.Status.ENABLED and not _is_artifact(fn):
        return convert(fn)
    return fn


def do_not_convert(func=None):
    """``tf.autograph.experimental.do_not_convert``: ``func`` runs as Python even
    when called from converted code (nor are the functions it calls converted).

    >>> from eagertape.tf import _autograph
    >>> @_autograph.do_not_convert
    ... def plain(x):
    ...     return x + 1
    >>> plain(1)
    2
    """
    if func is None:
        return do_not_convert
    return _ag_api.do_not_convert(func)


def to_code(fn):
    """The Python source AutoGraph makes of ``fn`` (``tf.autograph.to_code``).

    >>> from eagertape.tf import _autograph
    >>> def f(x):
    ...     if x > 0:
    ...         x = -x
    ...     return x
    >>> "ag__.if_stmt" in _autograph.to_code(f)
    True
    """
    import textwrap
    target = fn.__func__ if inspect.ismethod(fn) else fn
    return textwrap.dedent(inspect.getsource(_convert_entity(target, _TOPLEVEL)))


# -- checks on the variables of staged control flow (TF's rules and messages) ----------
def _condition(cond, tag):
    """A Tensor condition as a scalar bool Tensor, or TF's error."""
    from ..extend import convert_to_tensor
    from .. import numpy as _np
    c = convert_to_tensor(cond)
    if c.dtype.name != "bool":
        raise ValueError(f"condition of {tag} expected to be `tf.bool` scalar, got "
                         f"{_describe(c)}; to use as boolean Tensor, use `tf.cast`; to check "
                         "for None, use `is not None`")
    if c.ndim:
        if int(np.prod(c.shape)) > 1:
            raise ValueError(f"condition of {tag} expected to be `tf.bool` scalar, got "
                             f"{_describe(c)}; to check for None, use `is not None`")
        c = _np.reshape(c, ())
    return c


def _describe(t):
    return f"a Tensor of shape {_shape_text(t.shape)} and dtype {_dtype_name(t)}"


class _Refusal(NotImplementedError):
    """TF's own refusal of a program (not a limit of eagertape's compiled loops)."""


def _as_tensor_like(v):
    if isinstance(v, (bool, int, float, np.ndarray, np.generic)):
        from ..extend import convert_to_tensor
        return convert_to_tensor(v)
    return v


def _dtype_name(v):
    return v.dtype.name if hasattr(v.dtype, "name") else str(v.dtype)


def _branch_vars(values, names, branch):
    for name, v in zip(names, values):
        if isinstance(v, _UndefinedReturnValue):
            raise ValueError(f"the {branch} branch must also have a return statement.")
        if isinstance(v, _Undefined):
            raise ValueError(f"'{name}' must also be initialized in the {branch} branch")


def _leaves(v):
    return jax.tree_util.tree_flatten(v, is_leaf=_is_tensor)


def _cond_vars(body_vals, else_vals, names):
    for name, b, e in zip(names, body_vals, else_vals):
        (bl, bt), (el, et) = _leaves(b), _leaves(e)
        if bt != et:
            raise TypeError(f"'{name}' must have the same nested structure in the main and "
                            f"else branches:\n\n{bt} and {et}")
        for x, y in zip(bl, el):
            if x is None:
                raise ValueError(f"'{name}' is None at the end of the main branch.")
            if y is None:
                raise ValueError(f"'{name}' is None at the end of the else branch.")
            x, y = _as_tensor_like(x), _as_tensor_like(y)
            if _is_tensor(x) and _is_tensor(y) and x.dtype != y.dtype:
                raise TypeError(f"'{name}' has dtype {_dtype_name(x)} in the main branch, but "
                                f"dtype {_dtype_name(y)} in the else branch")


def _shape_text(shape):
    return str(tuple(int(d) for d in shape))


def _loop_vars(entry, exit_, names, opts):
    invariants = dict((id(v), s) for v, s in opts.get("shape_invariants", ()))
    for name, a, b in zip(names, entry, exit_):
        if isinstance(b, _Undefined):
            continue
        (al, at), (bl, bt) = _leaves(a), _leaves(b)
        if at != bt:
            raise TypeError(f"'{name}' does not have the same nested structure after one "
                            f"iteration.\n\n{at} and {bt}")
        for x, y in zip(al, bl):
            if y is None:
                raise ValueError(f"'{name}' is None at the end of the iteration.")
            x, y = _as_tensor_like(x), _as_tensor_like(y)
            if not (_is_tensor(x) and _is_tensor(y)):
                continue
            if x.dtype != y.dtype:
                raise TypeError(f"'{name}' has dtype {_dtype_name(x)} before the loop, but "
                                f"dtype {_dtype_name(y)} after one iteration")
            if tuple(x.shape) != tuple(y.shape) and id(a) not in invariants:
                raise ValueError(
                    f"'{name}' has shape {_shape_text(x.shape)} before the loop, but shape "
                    f"{_shape_text(y.shape)} after one iteration. Use "
                    "tf.autograph.experimental.set_loop_options to set shape invariants.")


def _init_vars(values, names, extra=None):
    for name, v in zip(names, values):
        if isinstance(v, _UndefinedReturnValue):
            raise _Refusal(
                "a return statement cannot be placed inside this TensorFlow loop; this may "
                "happen if a return statement depends on a static Python condition such as a "
                "hyperparameter")
        if v is None:
            raise ValueError(f"'{name}' is not allowed to be None before the loop")
        if isinstance(v, _Undefined):
            raise ValueError(f"'{name}' must be defined before the loop"
                             + (f"\n{extra}" if extra else ""))


def _fresh(state):
    # New containers (TensorArrays are rebuilt) so a branch or iteration traced by
    # JAX writes into its own copy, not into the objects outside it.
    return jax.tree_util.tree_map(lambda x: x, state, is_leaf=_is_tensor)


def _tensorize(state):
    """Python scalars in a staged statement's variables become Tensors, as TF's."""
    return tuple(jax.tree_util.tree_map(_as_tensor_like, v, is_leaf=_is_tensor)
                 if not isinstance(v, _Undefined) else v for v in state)


# -- if -----------------------------------------------------------------------------------
def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    """``if`` (AutoGraph's operator): Python's on a Python condition, ``tf.cond``
    on a Tensor, with TF's checks of the variables the branches set."""
    if not _is_tensor(cond):
        return body() if cond else orelse()
    cond = _condition(cond, "if statement")
    if not nouts:
        get0, set0 = get_state, set_state
        get_state = lambda: (0,) + get0()          # noqa: E731
        set_state = lambda v: set0(v[1:])          # noqa: E731
        symbol_names = symbol_names + ("<unused dummy>",)
        nouts = 1
    init = get_state()
    known = _control_flow._known(cond, "cond") is not None
    seen = {}

    def branch(fn, name, other):
        def run():
            set_state(init if known else _fresh(init))
            fn()
            out = tuple(get_state()[:nouts])
            _branch_vars(out, symbol_names, name)
            if other in seen:
                pair = (out, seen[other]) if name == "main" else (seen[other], out)
                _cond_vars(*pair, symbol_names)
            seen[name] = out
            return _tensorize(out)
        return run
    out = _control_flow.cond(cond, branch(body, "main", "else"), branch(orelse, "else", "main"))
    set_state(tuple(out) + tuple(init[nouts:]))


def if_exp(cond, if_true, if_false, expr_repr):
    """``a if cond else b``: ``tf.cond`` on a Tensor condition."""
    if _is_tensor(cond):
        c = _condition(cond, f"if expression {expr_repr}")
        return _control_flow.cond(c, if_true, if_false)
    return if_true() if cond else if_false()


# -- and, or, not -------------------------------------------------------------------------
def and_(a, b):
    """``a and b``; ``b`` evaluated only when needed, as ``tf.cond`` on Tensors."""
    a_val = a()
    if _is_tensor(a_val):
        return _control_flow.cond(a_val, b, lambda: a_val)
    return a_val and b()


def or_(a, b):
    """``a or b``; ``b`` evaluated only when needed, as ``tf.cond`` on Tensors."""
    a_val = a()
    if _is_tensor(a_val):
        return _control_flow.cond(a_val, lambda: a_val, b)
    return a_val or b()


def not_(a):
    """``not a``: ``tf.logical_not`` on a Tensor."""
    if _is_tensor(a):
        from .. import numpy as _np
        return _np.logical_not(a)
    return not a


# -- loops --------------------------------------------------------------------------------
def _py_extra_test(extra_test, unrolled_because=None):
    if extra_test is None:
        return lambda: True

    def test():
        r = extra_test()
        if _is_tensor(r) and _control_flow._known(r, "loop condition") is None:
            if unrolled_because is not None:
                raise NotImplementedError(
                    "this loop over a Tensor runs unrolled, because a compiled loop cannot "
                    f"carry it ({unrolled_because}); its break or return depends on a value "
                    "traced by tf.function, so the number of iterations is not known when "
                    "tracing. Make the break condition a Python value, or write into a "
                    "TensorArray of fixed size (and keep a count of the elements written), "
                    "or run the function eagerly") from unrolled_because
            raise _Refusal(
                "break and return statements which depend on a TF condition are not "
                "supported in Python for loops. Did you intend to make it a TF loop?\nSee "
                "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/"
                "autograph/g3doc/reference/limitations.md#consistency-of-control-flow-types "
                "for more info.")
        return bool(r)
    return test


def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """``for`` (AutoGraph's operator): over a Tensor (``tf.range`` included) it is
    a ``tf.while_loop`` over the first axis; over anything else (a list, a range,
    a ``tf.data.Dataset``) a Python loop."""
    if _is_tensor(iter_):
        return _tensor_for(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
    if isinstance(iter_, _TracedRange):
        return _range_for(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
    test = _py_extra_test(extra_test)
    if not test():
        return
    for target in iter_:
        body(target)
        if not test():
            break


def _indexed(i0, more, element, step, extra_test, body, get_state, set_state):
    """The state functions of a loop over an index ``i`` (from ``i0``, while
    ``more(i)``, the body given ``element(i)``): the loop's variables, ``i`` first."""
    box = [i0]

    def aug_get():
        return (box[0],) + tuple(get_state())

    def aug_set(vals):
        box[0] = vals[0]
        set_state(tuple(vals[1:]))

    def aug_body():
        body(element(box[0]))
        box[0] = step(box[0])

    def aug_test():
        main = more(box[0])
        if extra_test is None:
            return main
        return and_(lambda: main, extra_test)
    return aug_test, aug_body, aug_get, aug_set


def _range_for(r, extra_test, body, get_state, set_state, symbol_names, opts):
    """``for i in tf.range(n)`` with ``n`` traced: a ``tf.while_loop`` over ``i``."""
    fns = _indexed(r.start, lambda i: _tnp.where(r.delta > 0, i < r.limit, i > r.limit),
                   lambda i: i, lambda i: i + r.delta, extra_test, body, get_state, set_state)
    _tf_while(*fns, ("<internal iterate>",) + tuple(symbol_names), dict(opts))


def _tensor_for(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    if iter_.ndim == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    n = int(iter_.shape[0])
    aug_test, aug_body, aug_get, aug_set = _indexed(
        0, lambda i: i < n, lambda i: iter_[i], lambda i: i + 1, extra_test, body,
        get_state, set_state)
    opts = dict(opts)
    opts.setdefault("maximum_iterations", n)
    init = tuple(get_state())
    cap = _extend.function_trace()
    saved = None if cap is None else cap.snapshot()
    try:
        _tf_while(aug_test, aug_body, aug_get, aug_set,
                  ("<internal iterate>",) + tuple(symbol_names), opts)
        return
    except _Refusal:
        raise
    except NotImplementedError as e:
        # What a compiled loop cannot carry (a TensorArray growing with dynamic_size,
        # a tape recording inside the function, a Variable assigned in the body): the
        # length is known, so the loop runs unrolled, as eagertape runs tf.while_loop
        # on known conditions; a break on a traced value then cannot be decided.
        why = e
    set_state(init)
    if saved is not None:
        cap.restore(saved)
    test = _py_extra_test(extra_test, why)
    known = _RANGES.get(id(iter_))
    for k in range(n):
        if not test():
            break
        if known is not None and known[0] is iter_:
            # tf.range's values are known: the iterate stays a known index (a
            # TensorArray with dynamic_size is written at it).
            body(_wrap(np.asarray(known[1][k])))
        else:
            body(iter_[k])
    set_state(_tensorize(get_state()))


def while_stmt(test, body, get_state, set_state, symbol_names, opts):
    """``while`` (AutoGraph's operator): ``tf.while_loop`` when the condition is a
    Tensor, else a Python loop."""
    first = test()
    if _is_tensor(first):
        _tf_while(test, body, get_state, set_state, tuple(symbol_names), dict(opts))
        return
    if not first:
        return
    body()
    while True:
        r = test()
        if _is_tensor(r):
            if _control_flow._known(r, "loop condition") is None:
                raise NotImplementedError(
                    "a while loop whose condition was a Python value became a Tensor "
                    "condition depending on a traced value; make it a Tensor before the "
                    "loop (TF's rule: the type of a loop's condition may not change)")
        if not r:
            return
        body()


def _tf_while(test, body, get_state, set_state, names, opts):
    """A loop on a Tensor condition, as ``tf.while_loop`` over the variables the
    loop changes (TF's ``_tf_while_stmt``)."""
    init = tuple(get_state())
    nulls = [isinstance(v, _Undefined) or v is None for v in init]
    if any(nulls):
        # A variable first set inside the loop: TF stages one iteration to learn its
        # type. Run one iteration here while the condition is a known value; when it
        # is traced, a zero stand-in of the type the body gives it.
        c = _condition(test(), "while loop")
        if _control_flow._known(c, "loop condition") is not None:
            if not _control_flow._known(c, "loop condition"):
                return
            body()
            new = tuple(get_state())
            _loop_vars(init, new, names, opts)
            init = new
            if "maximum_iterations" in opts and opts["maximum_iterations"] is not None:
                opts["maximum_iterations"] = opts["maximum_iterations"] - 1
        else:
            init = _stand_ins(body, get_state, set_state, init, nulls, names)
    _init_vars(init, names)
    init = _tensorize(init)

    def cond_fn(*vals):
        set_state(vals)
        return _condition(test(), "while loop")

    def body_fn(*vals):
        set_state(_fresh(vals))
        body()
        new = tuple(get_state())
        _loop_vars(vals, new, names, opts)
        return _tensorize(new)
    n = opts.get("maximum_iterations")
    set_state(tuple(_control_flow.while_loop(cond_fn, body_fn, tuple(init),
                                             maximum_iterations=n)))


def _stand_ins(body, get_state, set_state, init, nulls, names):
    """Zeros of the types one traced iteration gives the variables undefined before
    the loop (TF's ``_try_handling_undefineds``)."""
    from ..extend import wrap as _wrap
    cap = _extend.function_trace()
    saved = None if cap is None else cap.snapshot()
    defined = [None if n else v for v, n in zip(init, nulls)]
    failure = None
    try:
        raw, tree = jax.tree_util.tree_flatten(_tensorize(defined), is_leaf=_is_tensor)
        raw = [x._value if _is_tensor(x) else x for x in raw]

        def probe(vals):
            state = jax.tree_util.tree_unflatten(tree, [_wrap(v) for v in vals])
            set_state(tuple(s if not n else u for s, n, u in zip(state, nulls, init)))
            with _extend.unrecorded():
                body()
            out = _tensorize(tuple(get_state()))
            return [out[k]._value if _is_tensor(out[k]) else None
                    for k, n in enumerate(nulls) if n]
        shapes = jax.eval_shape(probe, raw)
    except (UnboundLocalError, TypeError, ValueError, KeyError) as e:
        shapes, failure = None, (f"Note: AutoGraph tried to define it automatically, but ran "
                                 f"into a {type(e).__name__}: {e}")
    finally:
        set_state(init)
        if saved is not None:
            cap.restore(saved)
    if shapes is None:
        _init_vars(init, names, failure)
    from .. import numpy as _np
    it = iter(shapes)
    out = []
    for v, n in zip(init, nulls):
        if n:
            s = next(it)
            v = v if s is None else _np.zeros(s.shape, dtype=s.dtype)
        out.append(v)
    return tuple(out)


# The values of the tf.range Tensors converted code made, while they live: eagertape's
# trace makes every Tensor a traced value, but an unrolled loop over a range can
# still hand out known indices.
_RANGES = {}


class _TracedRange:
    """``tf.range`` with bounds traced (a Tensor argument of the function): no array
    of it can have a static length, so it exists only as the iterable of a ``for``,
    a ``tf.while_loop`` over its index (TF's ``_tf_range_for_stmt``)."""

    def __init__(self, start, limit, delta, dtype, error):
        self.start, self.limit, self.delta, self.dtype = start, limit, delta, dtype
        self.error = error

    def __array__(self, *a, **k):
        raise self.error

    def __iter__(self):
        raise self.error


def _range_bounds(args, kwargs):
    names = ("start", "limit", "delta")
    bound = dict(zip(names, args))
    bound.update({k: v for k, v in (kwargs or {}).items() if k in names})
    if "limit" not in bound:
        bound["start"], bound["limit"] = 0, bound.get("start", 0)
    return bound.get("start", 0), bound["limit"], bound.get("delta", 1)


def _tf_range(f, args, kwargs):
    import weakref
    try:
        out = _call(f, args, kwargs)
    except TypeError as e:
        if not any(_is_tensor(a) for a in list(args) + list((kwargs or {}).values())):
            raise
        start, limit, delta = _range_bounds(args, kwargs)
        from .dtypes import cast
        dtype = (kwargs or {}).get("dtype") or next(
            a.dtype for a in (start, limit, delta) if _is_tensor(a))
        start, limit, delta = (cast(a, dtype) if _is_tensor(a) else _wrap(np.asarray(
            a, np.dtype(getattr(dtype, "as_numpy_dtype", dtype)))) for a in (start, limit, delta))
        return _TracedRange(start, limit, delta, dtype, e)
    try:
        vals = np.arange(*[np.asarray(a._value) if _is_tensor(a) else a for a in
                           (list(args) + [kwargs[k] for k in ("start", "limit", "delta")
                                          if k in (kwargs or {})])]).astype(out.dtype.name)
    except Exception:  # noqa: BLE001 -- traced bounds: no known values
        return out
    key = id(out)
    _RANGES[key] = (out, vals)
    weakref.finalize(out, _RANGES.pop, key, None)
    return out


# -- builtins on Tensors (TF's AutoGraph overloads) ---------------------------------------
def _range(*args):
    if any(_is_tensor(a) for a in args):
        return sys.modules["eagertape.tf"].range(*args)   # (the facade, loaded: no import)
    return range(*args)


def _int(x=0, base=None):
    if _is_tensor(x):
        from .dtypes import cast
        return cast(x, "int32")
    return int(x) if base is None else int(x, base)


def _float(x=0):
    if _is_tensor(x):
        from .dtypes import cast
        return cast(x, "float32")
    return float(x)


_BUILTINS = {range: _range, int: _int, float: _float}


def _tf_print():
    return sys.modules["eagertape.tf"].print


def _print(args, kwargs):
    """``tf.print`` inside converted code (it prints when the function runs)."""
    return _tf_print()(*args, **(kwargs or {}))


_OPERATORS = {
    "converted_call": converted_call, "if_stmt": if_stmt, "if_exp": if_exp,
    "for_stmt": for_stmt, "while_stmt": while_stmt,
    "and_": and_, "or_": or_, "not_": not_,
}
_TRANSFORMER = _Transformer()

experimental = type(sys)("tf.autograph.experimental")
experimental.do_not_convert = do_not_convert
experimental.set_loop_options = set_loop_options
#: What the facade names ``tf.autograph``.
namespace = type(sys)("tf.autograph")
namespace.experimental = experimental
namespace.to_code = to_code
namespace.to_graph = convert

# Imported on first use, after the facade scoped its modules: its public functions
# run with TF's 64-bit types on as theirs do.
from . import _x64  # noqa: E402

_x64.scope([__name__])
