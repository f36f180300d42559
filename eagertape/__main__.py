"""``python -m eagertape``: a short tour of tapes on JAX.

``python -m eagertape port-check PATH...`` reads TensorFlow programs and reports
which of their names eagertape has, which are left out and why (``eagertape.port_check``).
``python -m eagertape bench`` and ``python -m eagertape coverage`` run the
repository's benchmark (``benchmarks/``) and TF-coverage report
(``tools/tf_coverage.py``) where an eagertape checkout is found: they are not
part of the installed package."""
import argparse
import pathlib
import sys

_REPOSITORY = "https://github.com/eagertape/eagertape"


def f4(abcd):
    """The hypersurface area of a 4-dimensional box with sides ``abcd``: twice the
    sum of the products of every three sides."""
    return 2.0 * sum(abcd[i] * abcd[j] * abcd[k]
                     for (i, j, k) in [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)])


def tour(out=print):
    """Print the tour: a gradient by tape beside finite differences, a persistent
    tape, a second derivative, a training loop and the JAX backend in use."""
    import jax
    import numpy as np

    import eagertape as et
    from eagertape import numpy as tnp

    out(f"eagertape {et.__version__} on JAX {jax.__version__}, backend "
        f"{jax.default_backend()!r}, devices {[str(d) for d in jax.devices()]}")

    out("\n1. f4, the hypersurface area of a 4-dimensional box with sides [1, 2, 3, 4]")
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


def _checkout(folder):
    """The root of the eagertape checkout that holds ``folder``, or None: the directory
    above this package (an editable install, or a run from the checkout), else the
    working directory. A checkout is a directory whose pyproject.toml names the
    project eagertape."""
    import tomllib
    for root in (pathlib.Path(__file__).resolve().parent.parent, pathlib.Path.cwd().resolve()):
        try:
            with open(root / "pyproject.toml", "rb") as f:
                name = tomllib.load(f).get("project", {}).get("name")
        except (OSError, tomllib.TOMLDecodeError):
            continue
        if name == "eagertape" and (root / folder).is_dir():
            return root
    return None


def _not_here(what, command):
    print(f"python -m eagertape: {what} is in the eagertape repository, not in the installed "
          f"package, and no checkout was found (above this package or in the working "
          f"directory). Clone {_REPOSITORY} and run `{command}` in it.", file=sys.stderr)
    return 2


def _bench(argv):
    """``python -m eagertape bench``: the checkout's ``python -m benchmarks``."""
    root = _checkout("benchmarks")
    if root is None:
        return _not_here("the benchmark (its benchmarks/ folder)", "python -m benchmarks")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    import benchmarks
    found = pathlib.Path(benchmarks.__file__).resolve().parent
    if found != root / "benchmarks":
        print(f"python -m eagertape bench: `import benchmarks` gives {found}, not the "
              f"checkout's {root / 'benchmarks'}; run `python -m benchmarks` in {root}",
              file=sys.stderr)
        return 2
    return benchmarks.main(argv, prog="python -m eagertape bench")


def _coverage(argv):
    """``python -m eagertape coverage``: the checkout's ``python tools/tf_coverage.py``."""
    import importlib.util
    root = _checkout("tools")
    if root is None:
        return _not_here("the TF-coverage report (tools/tf_coverage.py)",
                         "python tools/tf_coverage.py")
    spec = importlib.util.spec_from_file_location("tf_coverage", root / "tools" / "tf_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main(argv, prog="python -m eagertape coverage")


def main(argv=None):
    """``python -m eagertape [tour | port-check ... | bench ... | coverage ...]``; returns
    the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "port-check":
        from . import port_check
        return port_check.main(argv[1:])
    if argv and argv[0] == "bench":
        return _bench(argv[1:])
    if argv and argv[0] == "coverage":
        return _coverage(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m eagertape",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("command", nargs="?", default="tour",
                        choices=["tour", "port-check", "bench", "coverage"],
                        help="tour (default): a short tour of tapes; port-check PATH...: "
                             "which names of a TF program eagertape has (python -m "
                             "eagertape port-check --help); bench: the repository's "
                             "benchmark, from a checkout (python -m eagertape bench --help); "
                             "coverage: which of TensorFlow's names eagertape.tf resolves, "
                             "from a checkout")
    parser.parse_args(argv)
    tour()
    return 0


if __name__ == "__main__":
    sys.exit(main())
