"""The differential check the table-driven facade tests share: a program run in
TensorFlow and in eagertape.tf, its outputs (values, dtypes, shapes) and the
gradients of a weighted sum of its float outputs w.r.t. its float inputs (or the
class of the gradient's error) compared."""
import numpy as np


def as_numpy(t):
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)


def dtype_of(t):
    d = t.dtype
    return np.dtype(getattr(d, "as_numpy_dtype", d))


def floating(t):
    return np.issubdtype(dtype_of(t), np.floating)


def run(lib, prog, inputs):
    """Outputs, and gradients of sum(w * out) over the float outputs w.r.t. the float
    inputs (or "LookupError" where the gradient raises it, as TF's unregistered do)."""
    xs = [lib.constant(x) for x in inputs]
    with lib.GradientTape(persistent=True) as tape:
        for x in xs:
            if floating(x):
                tape.watch(x)
        out = prog(lib, *xs)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        loss = None
        for i, o in enumerate(o for o in outs if floating(o)):
            # weights other than ones, so that no gradient sums to zero by symmetry
            w = np.cos(np.arange(int(np.prod(o.shape))) + i).reshape(tuple(o.shape))
            term = lib.reduce_sum(lib.cast(o, lib.float32) * w.astype(np.float32))
            loss = term if loss is None else loss + term
    grads = None
    fx = [x for x in xs if floating(x)]
    if loss is not None and fx:
        try:
            grads = [None if g is None else as_numpy(lib.convert_to_tensor(g))  # IndexedSlices
                     for g in tape.gradient(loss, fx)]
        except LookupError:
            grads = "LookupError"
    del tape
    return outs, grads


def compare(tf, etf, prog, inputs, atol=2e-5, int_atol=0, grad_atol=1e-4):
    """Assert that ``prog(lib, *inputs)`` agrees in TF and eagertape.tf."""
    t_outs, t_grads = run(tf, prog, inputs)
    e_outs, e_grads = run(etf, prog, inputs)
    assert len(t_outs) == len(e_outs)
    for t, e in zip(t_outs, e_outs):
        assert dtype_of(e) == dtype_of(t)
        assert tuple(e.shape) == tuple(t.shape)
        tv, ev = as_numpy(t), as_numpy(e)
        if np.issubdtype(tv.dtype, np.floating):
            np.testing.assert_allclose(ev.astype(np.float64), tv.astype(np.float64),
                                       atol=atol, rtol=atol)
        else:
            np.testing.assert_allclose(ev.astype(np.int64), tv.astype(np.int64), atol=int_atol)
    if isinstance(t_grads, str) or isinstance(e_grads, str):
        assert e_grads == t_grads
    else:
        assert (t_grads is None) == (e_grads is None)
        for tg, eg in zip(t_grads or [], e_grads or []):
            assert (tg is None) == (eg is None)
            if tg is not None:
                np.testing.assert_allclose(eg, tg, atol=grad_atol, rtol=grad_atol)
