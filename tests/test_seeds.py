"""Every value stated by the TF tutorials this project was first checked against
(their code is examples/seed_programs.py), computed through eagertape."""
import numpy as np
import pytest

import eagertape as et
from eagertape import numpy as tnp
from eagertape.__main__ import f4


def _load_example(name):
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_grad_f4_by_hand = _load_example("hypersurface").grad_f4


def f4_lines(side_lengths):
    # Seed 000's line-by-line version: unpacking a tensor into four scalars.
    t_a, t_b, t_c, t_d = side_lengths
    t_ab = t_a * t_b
    t_cd = t_c * t_d
    t_abc = t_ab * t_c
    t_abd = t_ab * t_d
    t_acd = t_a * t_cd
    t_bcd = t_b * t_cd
    t_s = t_abc + t_abd + t_acd + t_bcd
    return 2.0 * t_s


@pytest.mark.parametrize("fn", [f4, f4_lines])
def test_seed000_f4_gradient_and_value(fn, replay):
    p0 = et.Variable([1.0, 2.0, 3.0, 4.0])
    with et.GradientTape() as tape:
        hypersurface = fn(p0)
    gradients_at_p0 = tape.gradient(hypersurface, [p0])
    assert isinstance(gradients_at_p0, list) and len(gradients_at_p0) == 1
    np.testing.assert_allclose(gradients_at_p0[0].numpy(), [52.0, 38.0, 28.0, 22.0])
    assert _grad_f4_by_hand([1.0, 2.0, 3.0, 4.0]) == [52.0, 38.0, 28.0, 22.0]
    assert float(fn(et.Variable([3.0, 4.0, 5.0, 6.0]))) == 684.0
    # The seed: "trying to execute the line above right here will fail".
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used"):
        tape.gradient(hypersurface, p0)


def test_seed000_f4_plain_values_and_finite_difference():
    assert f4([1.0, 2.0, 3.0, 4.0]) == 100.0
    assert f4(np.array([2.0, 3.0, 4.0, 5.0])) == 2.0 * (24 + 30 + 40 + 60)
    # f4([1.001, 2, 3, 4]) - f4([1, 2, 3, 4]) ~ 0.001 * 52
    np.testing.assert_allclose(f4([1.001, 2.0, 3.0, 4.0]) - f4([1.0, 2.0, 3.0, 4.0]), 0.052, rtol=1e-6)


def test_seed000_tape2_sum_of_two_boxes(replay):
    p0 = et.Variable([1.0, 2.0, 3.0, 4.0])
    tape2 = et.GradientTape()
    with tape2:
        hypersurface1 = f4(p0)
        hypersurface2 = f4(2 * p0)
        total_hypersurface = hypersurface1 + hypersurface2
    # f4 is homogeneous of degree 3: f4(2p) = 8 f4(p), so d/dp f4(2p) = 8 grad f4(p).
    assert float(total_hypersurface) == 100.0 + 800.0
    np.testing.assert_allclose(tape2.gradient(total_hypersurface, p0).numpy(),
                               9 * np.array([52.0, 38.0, 28.0, 22.0]))
    assert repr(2 * et.Variable([3.0, 4.0, 5.0, 6.0])).startswith(
        "<tf.Tensor: shape=(4,), dtype=float32, numpy=array([ 6.,  8., 10., 12.]")


def test_seed002_watch_reduce_sum_multiply(replay):
    x = tnp.ones((2, 2), dtype="float32")
    with et.GradientTape() as t:
        t.watch(x)
        y = tnp.sum(x)
        z = tnp.multiply(y, y)
    dz_dx = t.gradient(z, x)
    for i in [0, 1]:
        for j in [0, 1]:
            assert dz_dx[i][j].numpy() == 8.0


def test_seed002_gradient_wrt_intermediate(replay):
    x = tnp.ones((2, 2), dtype="float32")
    with et.GradientTape() as t:
        t.watch(x)
        y = tnp.sum(x)
        z = tnp.multiply(y, y)
    dz_dy = t.gradient(z, y)
    assert dz_dy.numpy() == 8.0


def test_seed002_and_003_persistent_tape(replay):
    x = et.constant(3.0)
    with et.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
        z = y * y
    assert float(t.gradient(z, x)) == 108.0
    assert float(t.gradient(y, x)) == 6.0
    del t

    x = tnp.ones((2, 2), dtype="float32")
    with et.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tnp.sum(x)
        z = tnp.multiply(y, y)
    assert t.gradient(z, y).numpy() == 8.0
    np.testing.assert_array_equal(t.gradient(z, x).numpy(), np.full((2, 2), 8.0))


def test_seed002_python_control_flow(replay):
    def f(x, y):
        output = 1.0
        for i in range(y):
            if i > 1 and i < 5:
                output = tnp.multiply(output, x)
        return output

    def grad(x, y):
        with et.GradientTape() as t:
            t.watch(x)
            out = f(x, y)
        return t.gradient(out, x)

    x = et.convert_to_tensor(2.0)
    assert grad(x, 6).numpy() == 12.0
    assert grad(x, 5).numpy() == 12.0
    assert grad(x, 4).numpy() == 4.0


def test_seed002_nested_tapes_on_variable(replay):
    x = et.Variable(1.0)
    with et.GradientTape() as t:
        with et.GradientTape() as t2:
            y = x * x * x
        dy_dx = t2.gradient(y, x)
    d2y_dx2 = t.gradient(dy_dx, x)
    assert dy_dx.numpy() == 3.0
    assert d2y_dx2.numpy() == 6.0


def test_seed003_higher_order_with_a_watched_constant(replay):
    # Seed 003 is a TF-1 program where watch() marked x on every tape; in TF 2 (and
    # here) each tape must watch it: with both watching, d2y/dx2 = 6.
    x = et.constant(1.0)
    with et.GradientTape() as t:
        t.watch(x)
        with et.GradientTape() as t2:
            t2.watch(x)
            y = x * x * x
        dy_dx = t2.gradient(y, x)
    d2y_dx2 = t.gradient(dy_dx, x)
    assert dy_dx.numpy() == 3.0 and d2y_dx2.numpy() == 6.0


def test_seed003_tf1_watch_only_inner_gives_none_in_tf2(replay):
    x = et.constant(1.0)
    with et.GradientTape() as t:
        with et.GradientTape() as t2:
            t2.watch(x)
            y = x * x * x
        dy_dx = t2.gradient(y, x)
    assert dy_dx.numpy() == 3.0
    assert t.gradient(dy_dx, x) is None
