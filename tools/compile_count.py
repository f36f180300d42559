"""Count the XLA compiles of a program, and the repeats among them (issue 39).

    python tools/compile_count.py census NAME [--mode eager|fused]
    python tools/compile_count.py file PATH [--mode eager|fused]
    python tools/compile_count.py bench -- --quick --systems eagertape,fused

A compile is one call of XLA's compiler (JAX's ``backend_compile_and_load``);
a repeat is a compile of a module whose text (its name left out) was compiled
before in the process: the same computation compiled again. Each compile is
attributed to where eagertape asked for it (the first eagertape frame under
JAX's) and to the module's name (``jit_apply``: a call kind; ``jit_replay``: a
compiled replay; ...). Prints one summary line per origin and one JSON line
(``@@{...}``) with the totals.
"""
import argparse
import collections
import hashlib
import json
import os
import re
import runpy
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)         # this checkout's eagertape


class Counter:
    def __init__(self):
        self.seen = {}         # fingerprint -> where it was compiled first
        self.repeats = collections.Counter()   # (first, again, module) -> count
        self.compiles = []     # (fingerprint, module name, origin, seconds, repeat)

    def install(self):
        from jax._src import compiler
        original = compiler.backend_compile_and_load

        def counted(backend, module, *args, **kwargs):
            text = str(module)
            name = re.search(r"module @(\S+)", text)
            name = name.group(1) if name else "?"
            fp = hashlib.sha1(re.sub(r"module @\S+", "module", text, count=1).encode()).hexdigest()
            t = time.perf_counter()
            out = original(backend, module, *args, **kwargs)
            took = time.perf_counter() - t
            repeat = fp in self.seen
            origin = _origin()
            import jax
            x64 = "x64" if jax.config.jax_enable_x64 else "x32"
            if repeat:
                self.repeats[(self.seen[fp], f"{origin} {x64}", name)] += 1
            else:
                self.seen[fp] = f"{origin} {x64}"
            self.compiles.append((fp, name, origin, took, repeat))
            return out
        compiler.backend_compile_and_load = counted

    def summary(self, out=sys.stdout):
        by = collections.defaultdict(lambda: [0, 0, 0.0, 0.0])
        for _, name, origin, took, repeat in self.compiles:
            row = by[(origin, re.sub(r"\d+$", "", name))]
            row[0] += 1
            row[2] += took
            if repeat:
                row[1] += 1
                row[3] += took
        print(f"{'origin':60} {'module':28} {'compiles':>8} {'repeats':>8} {'s':>7} "
              f"{'repeat s':>8}", file=out)
        for (origin, name), (n, r, s, rs) in sorted(by.items(), key=lambda kv: -kv[1][0]):
            print(f"{origin[:60]:60} {name[:28]:28} {n:8} {r:8} {s:7.2f} {rs:8.2f}", file=out)
        if self.repeats:
            print("\nrepeats: first compiled at -> compiled again at (module): count", file=out)
            for (first, again, name), n in self.repeats.most_common():
                print(f"  {first} -> {again} ({name}): {n}", file=out)
        total = {"compiles": len(self.compiles),
                 "repeats": sum(1 for c in self.compiles if c[4]),
                 "compile_s": round(sum(c[3] for c in self.compiles), 3),
                 "repeat_s": round(sum(c[3] for c in self.compiles if c[4]), 3)}
        print("@@" + json.dumps(total), file=out)
        return total


def _origin():
    """The innermost eagertape frame that led to the compile, as file:function, and
    the name of the call kind it compiles, where there is one (``[name]``)."""
    frame = sys._getframe(2)
    while frame is not None:
        f = frame.f_code.co_filename.replace(os.sep, "/")
        if "/eagertape/" in f and "/jax/" not in f and not f.endswith("/_cache.py"):
            where = f"{f.split('/eagertape/', 1)[1]}:{frame.f_code.co_name}"
            kind = frame.f_locals.get("kind")
            name = getattr(kind, "name", None)
            return f"{where} [{name}]" if isinstance(name, str) and VERBOSE else where
        frame = frame.f_back
    return "(outside eagertape)"


VERBOSE = "--kinds" in sys.argv


def _bench(argv):
    from eagertape import __main__ as bench_main
    bench_main.main(["bench", *argv])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["census", "file", "bench"])
    p.add_argument("name", nargs="?")
    p.add_argument("--mode", default=None, choices=["eager", "fused"])
    p.add_argument("--kinds", action="store_true", help="name each call kind compiled")
    p.add_argument("rest", nargs=argparse.REMAINDER, help="bench: its arguments, after --")
    a = p.parse_args(argv)
    if a.mode:
        os.environ["EAGERTAPE_EXECUTION_MODE"] = a.mode
    counter = Counter()
    counter.install()
    out = sys.stdout
    t = time.perf_counter()
    if a.what == "census":
        sys.path.insert(0, HERE)
        import census
        folder = tempfile.mkdtemp()
        path = census.program_file(a.name, folder)
        sys.argv = [path, "eagertape"]
        try:
            with open(os.devnull, "w") as quiet:
                sys.stdout = quiet
                try:
                    runpy.run_path(path, run_name="__main__")
                finally:
                    sys.stdout = out
        except SystemExit:
            pass
    elif a.what == "file":
        sys.argv = [a.name]
        runpy.run_path(a.name, run_name="__main__")
    else:
        _bench([x for x in a.rest if x != "--"])
    print(f"wall {time.perf_counter() - t:.1f} s", file=out)
    counter.summary(out)


if __name__ == "__main__":
    main()
