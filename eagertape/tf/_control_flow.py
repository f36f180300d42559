"""TF's control flow: ``tf.cond``, ``tf.case``, ``tf.switch_case``,
``tf.while_loop``, ``tf.map_fn``, ``tf.scan``, ``tf.foldl``/``foldr``,
``tf.vectorized_map``, ``tf.numpy_function``/``tf.py_function``.

Eagerly, and wherever the predicate is a known value, they run as Python runs
them, as TF eager does: only the branch taken runs, a loop's body runs once per
iteration, and every op is recorded on the tapes like any other. Inside a
``tf.function`` whose trace makes the predicate a traced value, they become
``lax.cond``/``lax.switch``/``lax.while_loop``, so the function compiles
(today a Python ``if`` on such a value cannot be traced). The mapping ops
(``map_fn``, ``scan``, ``foldl``, ``foldr``) know their length when tracing, so
they run as ``lax.scan`` there, or unrolled while a tape inside the function
records.

>>> import eagertape.tf as tf
>>> x = tf.constant(3.0)
>>> with tf.GradientTape() as tape:
...     tape.watch(x)
...     y = tf.cond(x > 0, lambda: x * x, lambda: -x)
>>> float(tape.gradient(y, x))
6.0
"""
import functools

import jax
import numpy as np
from jax.tree_util import tree_flatten, tree_unflatten

from .. import numpy as _np
from .. import extend as _extend
from ..extend import TensorLike as _TensorLike, wrap as _wrap
from ._util import tensor as _t


def _is_tl(x):
    return isinstance(x, _TensorLike)


def _known(pred, what):
    """``pred`` as a Python bool, or None if it is a value being traced."""
    if isinstance(pred, _TensorLike):
        v = pred._value
        if isinstance(v, jax.core.Tracer):
            return None
        v = np.asarray(v)
    else:
        if isinstance(pred, jax.core.Tracer):
            return None
        v = np.asarray(pred)
    if v.size != 1:
        raise ValueError(f"argument `{what}` must be a scalar boolean, got shape {v.shape}")
    return bool(v.reshape(()))


def _traced_only(name):
    """The checks before a lax form runs inside a trace: nothing records (its ops
    would be lost to the tape) and no Variable is assigned inside."""
    if _extend.recording():
        raise NotImplementedError(
            f"tf.{name} on a value traced by tf.function, while a GradientTape or "
            "ForwardAccumulator entered inside that function records, is not supported yet: "
            "enter the tape outside the tf.function (the whole function is then one recorded "
            "op, differentiated through the compiled control flow), or make the predicate a "
            "Python value")


class _Pure:
    """A TF-style callable run as a function of raw arrays inside a lax form:
    arguments come in as Tensors, results go out as arrays (their structure kept)."""

    def __init__(self, fn, name):
        self.fn, self.name, self.treedef = fn, name, None
        self.writes_ok = False

    def __call__(self, *raw):
        cap = _extend.function_trace()
        written = dict(cap.written) if cap is not None else None
        with _extend.unrecorded():
            out = self.fn(*(_wrap_tree(r) for r in raw))
        if cap is not None and not self.writes_ok and cap.written.keys() != written.keys():
            raise NotImplementedError(
                f"a Variable assigned inside tf.{self.name} on a value traced by tf.function "
                "is not supported yet; assign it after the control flow, from its result")
        leaves, treedef = tree_flatten(out, is_leaf=_is_tl)
        if self.treedef is not None and treedef != self.treedef:
            raise ValueError(f"the branches (or iterations) of tf.{self.name} must return the "
                             f"same structure, got {self.treedef} and {treedef}")
        self.treedef = treedef
        return [x._value if _is_tl(x) else jax.numpy.asarray(x) for x in leaves]


def _wrap_tree(raw):
    return jax.tree_util.tree_map(_wrap, raw)


def _raw_tree(tree):
    return jax.tree_util.tree_map(lambda x: _t(x)._value, tree, is_leaf=_is_tl)


# -- conditionals ------------------------------------------------------------------
def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``; only that branch runs.

    >>> import eagertape.tf as tf
    >>> int(tf.cond(tf.constant(False), lambda: tf.constant(1), lambda: tf.constant(2)))
    2
    """
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("arguments `true_fn` and `false_fn` of tf.cond must be callables")
    p = _known(pred, "pred")
    if p is not None:
        return true_fn() if p else false_fn()
    _traced_only("cond")
    if _extend.function_trace() is not None:
        return _cond_writing(_t(pred)._value.reshape(()), true_fn, false_fn)
    t, f = _Pure(lambda _: true_fn(), "cond"), _Pure(lambda _: false_fn(), "cond")
    out = jax.lax.cond(_t(pred)._value.reshape(()), t, f, None)
    return tree_unflatten(t.treedef, [_wrap(o) for o in out])


def _branch(fn, cap):
    """One branch of a cond traced on its own: its jaxpr, its output structure, and
    the Variables it assigns (the trace's record of them left as it was)."""
    before = dict(cap.current)
    written = dict(cap.written)
    pure = _Pure(lambda: fn(), "cond")
    box = {}

    def run():
        with _writes_allowed(pure):
            out = pure()
        ids = [k for k in cap.written if cap.current[k] is not before.get(k)]
        box["ids"] = ids
        return out, [cap.current[k] for k in ids]
    try:
        closed = jax.make_jaxpr(run)()
        vs = {k: cap.written[k] for k in box["ids"]}
    finally:
        # Variables first read in the branch keep their stand-ins (constants of its
        # jaxpr that the function makes inputs); what it assigned is undone.
        read = {k: val for k, (v, val) in cap.reads.items() if k not in before}
        cap.current.clear()
        cap.current.update(before)
        cap.current.update(read)
        cap.written.clear()
        cap.written.update(written)
    return closed, pure.treedef, box["ids"], vs


class _writes_allowed:
    def __init__(self, pure):
        self.pure = pure

    def __enter__(self):
        self.pure.writes_ok = True

    def __exit__(self, *exc):
        self.pure.writes_ok = False


def _cond_writing(pred, true_fn, false_fn):
    """A cond inside a tf.function whose branches may assign Variables (a training
    step's optimizer update, say): each Variable either branch assigns is an output
    of the cond, its value from the branch taken (TF's stateful cond)."""
    cap = _extend.function_trace()
    (tj, tt, tids, tvs), (fj, ft, fids, fvs) = _branch(true_fn, cap), _branch(false_fn, cap)
    if tt != ft:
        raise ValueError(f"the branches of tf.cond must return the same structure, got {tt} "
                         f"and {ft}")
    variables = {**tvs, **fvs}
    order = list(dict.fromkeys(tids + fids))
    pre = {k: cap.current[k] if k in cap.current else cap.read(variables[k]) for k in order}
    n = tt.num_leaves

    def as_branch(closed, ids):
        def go(_):
            flat = jax.core.eval_jaxpr(closed.jaxpr, closed.consts)
            outs, got = flat[:n], dict(zip(ids, flat[n:]))
            return outs, [got.get(k, pre[k]) for k in order]
        return go
    outs, news = jax.lax.cond(pred, as_branch(tj, tids), as_branch(fj, fids), None)
    for k, new in zip(order, news):
        cap.write(variables[k], new)
    return tree_unflatten(tt, [_wrap(o) for o in outs])


def switch_case(branch_index, branch_fns, default=None, name=None):
    """``branch_fns[branch_index]()`` (or ``default()`` when out of range; the last
    branch without one), as TF. ``branch_fns`` may be a list, or a dict or list of
    ``(int, callable)`` pairs."""
    if isinstance(branch_fns, dict):
        pairs = sorted(branch_fns.items())
    elif branch_fns and isinstance(branch_fns[0], (tuple, list)):
        pairs = sorted(branch_fns)
    else:
        pairs = list(enumerate(branch_fns))
    if [k for k, _ in pairs] != list(range(len(pairs))):
        raise ValueError("argument `branch_fns` must have the keys 0, 1, ..., n-1")
    fns = [f for _, f in pairs]
    default = default or fns[-1]
    if not _is_tl(branch_index) and not isinstance(branch_index, (np.ndarray, jax.Array)):
        raise TypeError(f"argument `branch_index` must be a Tensor, got "
                        f"{type(branch_index).__name__} (TF's rule: tf.constant(i))")
    idx = branch_index._value if _is_tl(branch_index) else branch_index
    if not isinstance(idx, jax.core.Tracer):
        i = int(np.asarray(idx))
        return (fns[i] if 0 <= i < len(fns) else default)()
    _traced_only("switch_case")
    fs = [_Pure(lambda _, f=f: f(), "switch_case") for f in fns + [default]]
    n = len(fns)
    i = jax.numpy.where((idx >= 0) & (idx < n), idx, n)
    out = jax.lax.switch(i, fs, None)
    return tree_unflatten(next(f.treedef for f in fs if f.treedef is not None),
                          [_wrap(o) for o in out])


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name=None):
    """The function of the first pair whose predicate is True (else ``default``)."""
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    preds = [_known(p, "pred_fn_pairs") for p, _ in pairs]
    if all(p is not None for p in preds):
        hits = [i for i, p in enumerate(preds) if p]
        if exclusive and len(hits) > 1:
            from .errors import InvalidArgumentError
            raise InvalidArgumentError(f"tf.case: more than one predicate is True ({hits}) "
                                       "with exclusive=True")
        if hits:
            return pairs[hits[0]][1]()
        if default is None:
            return pairs[-1][1]()
        return default()
    _traced_only("case")
    # The first True predicate's index, or n for the default.
    flags = jax.numpy.stack([jax.numpy.asarray(_t(p)._value).reshape(()) for p, _ in pairs])
    first = jax.numpy.argmax(jax.numpy.concatenate([flags, jax.numpy.array([True])]))
    fns = [f for _, f in pairs] + [default or pairs[-1][1]]
    return switch_case(_wrap(first), fns)


# -- loops -------------------------------------------------------------------------
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``, at most
    ``maximum_iterations`` times; returns the final ``loop_vars``.

    On a condition traced by tf.function it is ``lax.while_loop``, which reverse
    mode cannot differentiate; give ``maximum_iterations`` (a Python int) to
    differentiate it (it is then a ``lax.scan`` of that length).

    >>> import eagertape.tf as tf
    >>> i, s = tf.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (0, 0))
    >>> int(i), int(s)                 # Tensors, as TF's
    (4, 6)
    """
    if not callable(cond) or not callable(body):
        raise TypeError("arguments `cond` and `body` of tf.while_loop must be callables")
    if not isinstance(loop_vars, (list, tuple)):
        raise TypeError("argument `loop_vars` of tf.while_loop must be a list or tuple of the "
                        "loop variables (cond and body take them as positional arguments)")
    n = None if maximum_iterations is None else maximum_iterations
    if _is_tl(n):
        n = n._value
    # TF converts the loop variables to tensors first (a Python 0 comes back a Tensor).
    vars_ = type(loop_vars)(jax.tree_util.tree_map(
        lambda x: x if _is_tl(x) else _t(x), list(loop_vars), is_leaf=_is_tl))
    i = 0
    while True:
        if n is not None and not isinstance(n, jax.core.Tracer) and i >= int(np.asarray(n)):
            return vars_
        c = cond(*vars_)
        p = _known(c, "cond's result")
        if p is None:
            return _lax_while(cond, body, vars_, n, i)
        if not p:
            return vars_
        new = body(*vars_)
        if not isinstance(new, (list, tuple)):
            new = (new,)
        if len(new) != len(vars_):
            raise ValueError(f"tf.while_loop's body returned {len(new)} values for "
                             f"{len(vars_)} loop variables")
        vars_ = new
        i += 1


def _lax_while(cond, body, loop_vars, n, done):
    _traced_only("while_loop")
    leaves, treedef = tree_flatten(list(loop_vars), is_leaf=_is_tl)
    dtypes = [_t(x).dtype for x in leaves]
    c, b = _Pure(cond, "while_loop"), _Pure(body, "while_loop")

    def cond_fun(carry):
        k, raw = carry
        ok = jax.numpy.asarray(c(*tree_unflatten(treedef, raw))[0]).reshape(())
        return ok if n is None else ok & (k < n)

    def body_fun(carry):
        k, raw = carry
        out = b(*tree_unflatten(treedef, raw))
        return k + 1, [o.astype(d) for o, d in zip(out, dtypes)]

    init = [_t(x)._value for x in leaves]
    if n is not None and not isinstance(n, jax.core.Tracer):
        # A known bound: a scan that stops changing the variables once the
        # condition fails, which reverse mode can differentiate (lax.while_loop
        # cannot). The body still runs on the final values up to the bound.
        def step(carry, _):
            running, raw = carry
            ok = running & jax.numpy.asarray(c(*tree_unflatten(treedef, raw))[0]).reshape(())
            new = b(*tree_unflatten(treedef, raw))
            return (ok, [jax.numpy.where(ok, nw.astype(d), old)
                         for nw, old, d in zip(new, raw, dtypes)]), None
        (_, out), _ = jax.lax.scan(step, (jax.numpy.asarray(True), init), None,
                                   length=max(int(np.asarray(n)) - done, 0))
    else:
        _, out = jax.lax.while_loop(cond_fun, body_fun, (jax.numpy.asarray(done), init))
    out = tree_unflatten(treedef, [_wrap(r) for r in out])
    return tuple(out) if isinstance(loop_vars, tuple) else out


def _first_axis(elems):
    leaves, treedef = tree_flatten(elems, is_leaf=_is_tl)
    leaves = [_t(x) for x in leaves]
    if not leaves:
        raise ValueError("argument `elems` must hold at least one tensor")
    n = leaves[0].shape[0] if leaves[0].ndim else None
    if n is None or any(x.ndim == 0 or x.shape[0] != n for x in leaves):
        raise ValueError("the tensors of `elems` must all have the same first dimension")
    return leaves, treedef, n


def _stack(outs):
    leaves = [tree_flatten(o, is_leaf=_is_tl) for o in outs]
    treedef = leaves[0][1]
    cols = list(zip(*(lv for lv, _ in leaves)))
    return tree_unflatten(treedef, [_np.stack([_t(v) for v in col]) for col in cols])


def _unrolled():
    """Whether the per-element form must run (eagerly, or a tape records in a trace)."""
    return _extend.function_trace() is None or _extend.recording()


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """``fn`` applied to each slice of ``elems`` along its first axis, the results
    stacked (``elems`` may be a nest of tensors, sliced together).

    >>> import eagertape.tf as tf
    >>> tf.map_fn(lambda r: tf.reduce_sum(r), tf.constant([[1.0, 2.0], [3.0, 4.0]])).numpy()
    array([3., 7.], dtype=float32)
    """
    leaves, treedef, n = _first_axis(elems)
    if _unrolled():
        return _stack([fn(tree_unflatten(treedef, [x[i] for x in leaves])) for i in range(n)])
    f = _Pure(lambda *xs: fn(tree_unflatten(treedef, list(xs))), "map_fn")
    out = jax.lax.map(lambda xs: f(*xs), [x._value for x in leaves])
    return tree_unflatten(f.treedef, [_wrap(o) for o in out])


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """Every accumulator of ``acc = fn(acc, x)`` over the slices of ``elems``
    (the first slice is the initial accumulator when no ``initializer``).

    >>> import eagertape.tf as tf
    >>> tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3, 4])).numpy()
    array([ 1,  3,  6, 10], dtype=int32)
    """
    return _accumulate(fn, elems, initializer, reverse, "scan", every=True)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """The last accumulator of ``acc = fn(acc, x)`` over ``elems``, first to last."""
    return _accumulate(fn, elems, initializer, False, "foldl", every=False)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """The last accumulator of ``acc = fn(acc, x)`` over ``elems``, last to first."""
    return _accumulate(fn, elems, initializer, True, "foldr", every=False)


def _accumulate(fn, elems, initializer, reverse, name, every):
    leaves, treedef, n = _first_axis(elems)
    order = list(range(n))[::-1] if reverse else list(range(n))

    def elem(i):
        return tree_unflatten(treedef, [x[i] for x in leaves])
    if initializer is None:
        if n == 0:
            raise ValueError(f"tf.{name} of empty `elems` needs an `initializer`")
        acc, order = elem(order[0]), order[1:]
        first = [acc]
    else:
        acc, first = initializer, []
    if _unrolled():
        accs = first
        for i in order:
            acc = fn(acc, elem(i))
            accs.append(acc)
        if not every:
            return acc
        accs = _stack(accs)      # in the order computed; TF's output is in elems' order
        return jax.tree_util.tree_map(lambda a: _np.flip(a, 0), accs, is_leaf=_is_tl) \
            if reverse else accs
    acc_leaves, acc_tree = tree_flatten(acc, is_leaf=_is_tl)
    acc_leaves = [_t(a) for a in acc_leaves]
    dtypes = [a.dtype for a in acc_leaves]
    f = _Pure(lambda a, x: fn(tree_unflatten(acc_tree, list(a)),
                              tree_unflatten(treedef, list(x))), name)

    def step(carry, xs):
        new = [o.astype(d) for o, d in zip(f(carry, xs), dtypes)]
        return new, new
    idx = np.asarray(order, dtype=np.int32)
    xs = [x._value[idx] for x in leaves]
    last, stacked = jax.lax.scan(step, [a._value for a in acc_leaves], xs)
    if not every:
        return tree_unflatten(acc_tree, [_wrap(v) for v in last])
    stacked = [jax.numpy.concatenate([a._value[None], s]) if first else s
               for a, s in zip(acc_leaves, stacked)]
    if reverse:
        stacked = [s[::-1] for s in stacked]
    return tree_unflatten(acc_tree, [_wrap(s) for s in stacked])


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``map_fn`` computed as one vectorised call (``jax.vmap``) when nothing
    records; per element, as TF's fallback, while a tape or accumulator records
    (so every op reaches it)."""
    if _extend.recording():
        return map_fn(fn, elems)
    leaves, treedef, n = _first_axis(elems)
    f = _Pure(lambda *xs: fn(tree_unflatten(treedef, list(xs))), "vectorized_map")
    out = jax.vmap(lambda *xs: f(*xs))(*[x._value for x in leaves])
    return tree_unflatten(f.treedef, [_wrap(o) for o in out])


# -- host Python -------------------------------------------------------------------
def _decorator_form(op, func, inp, Tout, **kw):
    """TF's decorator forms: ``op(Tout=...)`` and ``op(func, Tout=...)`` make a
    function of the Tensors (``@tf.numpy_function(Tout=tf.float32)``)."""
    if Tout is None:
        raise TypeError(f"argument `Tout` of tf.{op.__name__} must be given (the dtype, or "
                        "a list of dtypes, of what `func` returns)")

    def decorate(f):
        @functools.wraps(f)
        def wrapped(*args):
            return op(f, list(args), Tout, **kw)
        return wrapped
    return decorate if func is None else decorate(func)


def py_function(func=None, inp=None, Tout=None, name=None):
    """``func(*inp)`` run as Python on Tensors: eagerly its ops are recorded, so
    gradients flow through it, as TF's. Without ``inp``, a decorator (TF's form).

    >>> import eagertape.tf as tf
    >>> @tf.py_function(Tout=tf.float32)
    ... def plus(x, y):
    ...     return x + y
    >>> float(plus(tf.constant(1.0), tf.constant(2.0)))
    3.0
    """
    if inp is None:
        return _decorator_form(py_function, func, inp, Tout, name=name)
    out = func(*inp)
    return _cast_out(out, Tout)


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """``func`` on NumPy arrays, its results converted to ``Tout`` (no gradient, as
    TF). Inside a tf.function it runs on the host when the compiled function runs
    (``jax.pure_callback``); its output shapes are found by one call on zeros of
    the inputs' shapes when the function is traced. Without ``inp``, a decorator.

    >>> import eagertape.tf as tf
    >>> import numpy as np
    >>> @tf.numpy_function(Tout=tf.float32)
    ... def twice(x):
    ...     return (2 * x).astype(np.float32)
    >>> twice(tf.constant([1.0, 2.0])).numpy()
    array([2., 4.], dtype=float32)
    """
    if inp is None:
        return _decorator_form(numpy_function, func, inp, Tout, stateful=stateful, name=name)
    args = [_t(x) for x in inp]
    raws = [a._value for a in args]
    if not any(isinstance(r, jax.core.Tracer) for r in raws):
        out = func(*(np.asarray(r) for r in raws))
        return _cast_out(out, Tout, constant=True)
    probe = func(*(np.zeros(r.shape, r.dtype) for r in raws))
    single = not isinstance(Tout, (list, tuple))
    touts = [Tout] if single else list(Tout)
    probes = [probe] if single else list(probe)
    from ..extend import as_dtype as _as_dtype
    shapes = [jax.ShapeDtypeStruct(np.shape(p), _as_dtype(d)) for p, d in zip(probes, touts)]

    def host(*xs):
        r = func(*(np.asarray(x) for x in xs))
        r = [r] if single else list(r)
        return [np.asarray(v, dtype=s.dtype) for v, s in zip(r, shapes)]
    out = jax.pure_callback(host, shapes, *(jax.lax.stop_gradient(r) for r in raws))
    out = [_wrap(o) for o in out]
    return out[0] if single else out


def _cast_out(out, Tout, constant=False):
    from ..extend import stop_gradient
    from ..extend import convert_to_tensor
    from .dtypes import cast
    if isinstance(Tout, (list, tuple)):
        if not Tout and out is None:      # no results: TF gives an empty list
            return []
        if not isinstance(out, (list, tuple)) or len(out) != len(Tout):
            raise ValueError(f"the function returned {out!r:.60}, which does not match "
                             f"Tout={Tout!r}")
        return [_cast_out(o, t, constant) for o, t in zip(out, Tout)]
    if Tout is None:
        return None
    from . import _text
    if _text.is_string_dtype(Tout):
        # Text stays on the host, as TF's string tensors do; nothing to differentiate.
        return _text.h_convert_to_tensor(out, dtype=Tout)
    t = cast(convert_to_tensor(out) if not _is_tl(out) else out, Tout)
    return stop_gradient(t) if constant else t
