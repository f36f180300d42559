"""The differential check the table-driven facade tests share (test_tf_image,
test_tf_nn_more): a program run in TensorFlow and in eagertape.tf, its outputs
(values, dtypes, shapes) and the gradients of a weighted sum of its float outputs
w.r.t. its float inputs (or the class of the gradient's error) compared. TF's side
comes from tests/tf_oracle.py: run once for every mode, and kept across runs."""
import numpy as np

import tf_oracle


def _dtype_of(t):
    d = t.dtype
    return np.dtype(getattr(d, "as_numpy_dtype", d))


def _floating(t):
    return np.issubdtype(_dtype_of(t), np.floating)


def weighted(lib, prog, inputs):
    """Outputs, and gradients of sum(w * out) over the float outputs w.r.t. the float
    inputs (or "LookupError" where the gradient raises it, as TF's unregistered do)."""
    xs = [lib.constant(x) for x in inputs]
    with lib.GradientTape(persistent=True) as tape:
        for x in xs:
            if _floating(x):
                tape.watch(x)
        out = prog(lib, *xs)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        loss = None
        for i, o in enumerate(o for o in outs if _floating(o)):
            # weights other than ones, so that no gradient sums to zero by symmetry
            w = np.cos(np.arange(int(np.prod(o.shape))) + i).reshape(tuple(o.shape))
            term = lib.reduce_sum(lib.cast(o, lib.float32) * w.astype(np.float32))
            loss = term if loss is None else loss + term
    grads = None
    fx = [x for x in xs if _floating(x)]
    if loss is not None and fx:
        try:
            grads = list(tape.gradient(loss, fx))      # IndexedSlices: dense, by the oracle
        except LookupError:
            grads = "LookupError"
    del tape
    return outs, grads


def compare(prog, inputs, atol=2e-5, int_atol=0, grad_atol=1e-4):
    """Assert that ``prog(lib, *inputs)`` agrees in TF and eagertape.tf: outputs'
    dtypes and shapes, float values within ``atol`` (absolute and relative), integer
    ones within ``int_atol``; the gradients (None-ness, dtypes, shapes, values
    within ``grad_atol``), or the same LookupError."""
    import eagertape.tf as etf
    want = tf_oracle.tf_outcome(weighted, prog, inputs)
    assert not want.raised, f"TF raised {want.error!r}: the table's program is broken"
    got = tf_oracle.run(etf, weighted, prog, inputs)
    if got.raised:
        raise got.exc
    (t_outs, t_grads), (e_outs, e_grads) = want.value[1], got.value[1]
    tf_oracle.assert_same(e_outs, t_outs, rtol=atol, atol=atol, int_atol=int_atol,
                          where="outputs")
    tf_oracle.assert_same(e_grads, t_grads, rtol=grad_atol, atol=grad_atol, where="gradients")
