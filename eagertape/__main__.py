"""``python -m eagertape``: a short tour of tapes on JAX."""
import argparse
import sys


def f4(abcd):
    """Hyperbox hypersurface area (the seed's f4)."""
    return 2.0 * sum(abcd[i] * abcd[j] * abcd[k]
                     for (i, j, k) in [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)])


def tour(out=print):
    import jax
    import numpy as np

    import eagertape as et
    from eagertape import numpy as tnp

    out(f"eagertape {et.__version__} on JAX {jax.__version__}, backend "
        f"{jax.default_backend()!r}, devices {[str(d) for d in jax.devices()]}")

    out("\n1. The seed's 4-box hypersurface f4 at [1, 2, 3, 4]")
    p0 = et.Variable([1.0, 2.0, 3.0, 4.0])
    with et.GradientTape() as tape:
        area = f4(p0)
    (grad,) = tape.gradient(area, [p0])
    out(f"   f4 = {float(area):g}")
    fd = [(f4(p + h) - f4(p - h)) / 2e-6 for p, h in
          [(np.array([1.0, 2.0, 3.0, 4.0]), 1e-6 * e) for e in np.eye(4)]]
    out(f"   tape.gradient:        {grad.numpy().tolist()}")
    out(f"   finite differences:   {[round(float(g), 6) for g in fd]}  "
        "(reverse mode by hand: examples/hypersurface.py)")
    out(f"   f4([3, 4, 5, 6]) = {float(f4(et.Variable([3.0, 4.0, 5.0, 6.0]))):g}")

    out("\n2. A persistent tape answers several questions")
    x = et.constant(3.0)
    with et.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    out(f"   y = x*x, z = y*y at x = 3: dz/dx = {float(tape.gradient(z, x)):g}, "
        f"dy/dx = {float(tape.gradient(y, x)):g}, dz/dy = {float(tape.gradient(z, y)):g}")
    del tape

    out("\n3. Second derivative by nested tapes")
    x = et.Variable(1.0)
    with et.GradientTape() as outer:
        with et.GradientTape() as inner:
            y = x * x * x
        dy_dx = inner.gradient(y, x)
    d2y_dx2 = outer.gradient(dy_dx, x)
    out(f"   y = x**3 at x = 1: dy/dx = {float(dy_dx):g}, d2y/dx2 = {float(d2y_dx2):g}")

    out("\n4. A training loop reuses one compiled replay")
    et.clear_replay_cache()
    w = et.Variable([0.0, 0.0])
    xs = et.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    ys = et.constant([5.0, 11.0, 17.0])
    for step in range(50):
        with et.GradientTape() as tape:
            loss = tnp.mean((xs @ w - ys) ** 2)
        w.assign_sub(0.01 * tape.gradient(loss, w))
    info = et.replay_cache_info()
    out(f"   50 steps: loss {float(loss):.4f}, w = {[round(float(v), 3) for v in w.numpy()]}; "
        f"replay cache: {info.misses} compile, {info.hits} hits")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "bench":
        from . import benchmark
        return benchmark.main(argv[1:])
    if argv and argv[0] == "coverage":
        from . import _coverage
        return _coverage.main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m eagertape", description=__doc__)
    parser.add_argument("command", nargs="?", default="tour", choices=["tour", "bench", "coverage"],
                        help="tour (default): a short tour of tapes; bench: the benchmark "
                             "(python -m eagertape bench --help); coverage: TensorFlow's "
                             "names eagertape.tf resolves")
    parser.parse_args(argv)
    tour()
    return 0


if __name__ == "__main__":
    sys.exit(main())
