"""Differential fuzzing against TensorFlow: random small TF-eager programs run in
real TensorFlow and through ``eagertape.tf``, compared on structure, None-ness,
dtypes, shapes, values and error families.

A program is Python source text, ``def program(tf, np): ... return nest``, made
deterministically from an int seed by ``program(seed)``; one statement per line,
so ``minimise`` can drop lines. Each backend runs in its own long-lived worker
process ("tf": TensorFlow; "et": eagertape.tf in the execution mode the request
names), so a crash or a hang costs one program (class ``crash``/``timeout``).

    python tests/tf_fuzz.py --n 300 --modes eager,fused --minimize
    python tests/tf_fuzz.py --n 10000 --jobs 1 --report fuzz-report.md
    python tests/tf_fuzz.py --show 17          # print the program of seed 17
    python tests/tf_fuzz.py --seed 17 --modes eager   # run one, print both outcomes
    python tests/tf_fuzz.py --file prog.py           # a program of your own, likewise

Deliberate differences (README, "Where eagertape differs from TensorFlow on
purpose") are in ``KNOWN`` and counted as ``known:<name>``, not as failures.
``tests/test_tf_fuzz.py`` runs a fixed few hundred seeds in CI.
"""
import argparse
import ast
import json
import math
import os
import random
import re
import select
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
import tf_oracle  # noqa: E402

# ---------------------------------------------------------------------------------
# Generator
# ---------------------------------------------------------------------------------
SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1)]
FLOATS = ("float32", "float64")


class _V:
    """What the generator knows of a value in the program: enough to keep ops valid
    (dtype, shape) and values in safe domains (positive for log/sqrt, bounded for exp).
    ``noisy``: computed from a gradient, whose last bits depend on how each framework
    composes its derivative (TF -0.0 or +1e-17 where the math is 0), so step functions
    (floor, round, sign, a cast to int, a comparison with 0) of it are not compared."""

    def __init__(self, name, dtype, shape, pos=False, bound=2.0, var=False, leaf=False,
                 noisy=False):
        self.name, self.dtype, self.shape = name, dtype, tuple(shape)
        self.pos, self.bound, self.var, self.leaf = pos, bound, var, leaf
        self.noisy = noisy

    @property
    def float(self):
        return self.dtype in FLOATS


def _bshape(*shapes):
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


class _Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.lines = []
        self.pool = []
        self.n = 0
        self.cg = []      # custom_gradient functions defined: (name, nargs)
        self.fn = []      # tf.function functions defined: (name, arg specs, result _V)
        self.feat = {f: self.r.random() < p for f, p in [
            ("lists", 0.3), ("numpy", 0.25), ("custom", 0.3), ("function", 0.15),
            ("cflow", 0.2), ("assign", 0.25), ("int", 0.15), ("bool", 0.1),
            ("f64", 0.15), ("clash", 0.03), ("shape_ops", 0.4), ("stop", 0.1),
            ("pyargs", 0.35), ("bf16", 0.06)]}
        if self.feat["pyargs"] and self.r.random() < 0.5:
            # Python numbers as op arguments are where TF's conversions differ by
            # op (a float attribute is float32, a constant its code casts is
            # rounded to float32 first, an operand takes the tensor's dtype):
            # float64 programs show each, to the last bits.
            self.feat["f64"] = True

    # -- small helpers ------------------------------------------------------------
    def name(self, p):
        self.n += 1
        return f"{p}{self.n}"

    def emit(self, ind, text):
        self.lines.append("    " * ind + text)

    def num(self, pos=False):
        x = round(self.r.uniform(0.1, 2.0), 2)
        return x if pos or self.r.random() < 0.5 else -x

    def literal(self, shape, dtype, pos=False):
        if dtype == "bool":
            item = lambda: self.r.choice(["True", "False"])  # noqa: E731
        elif dtype == "int32":
            item = lambda: str(self.r.choice([-3, -2, -1, 1, 2, 3]))  # noqa: E731
        else:
            item = lambda: repr(self.num(pos))  # noqa: E731

        def build(s):
            if not s:
                return item()
            return "[" + ", ".join(build(s[1:]) for _ in range(s[0])) + "]"
        return build(shape)

    def pick(self, pred=lambda v: True, recent=True):
        cands = [v for v in self.pool if pred(v)]
        if not cands:
            return None
        w = [(i + 1) ** 2 if recent else 1 for i in range(len(cands))]
        return self.r.choices(cands, w)[0]

    def add(self, ind, expr, dtype, shape, pos=False, bound=2.0, prefix="a"):
        nm = self.name(prefix)
        self.emit(ind, f"{nm} = {expr}")
        used = set(re.findall(r"\b[a-z]+\d+\b", expr))
        v = _V(nm, dtype, shape, pos, min(bound, 1e6),
               noisy=any(u.noisy for u in self.pool if u.name in used))
        self.pool.append(v)
        return v

    # -- leaves ---------------------------------------------------------------------
    def leaf(self, ind, dtype=None, shape=None, var=None, pos=None):
        r = self.r
        if dtype is None:
            dtype = "float32"
            if self.feat["f64"] and r.random() < 0.4:
                dtype = "float64"
            elif self.feat["int"] and r.random() < 0.2:
                dtype = "int32"
            elif self.feat["bool"] and r.random() < 0.2:
                dtype = "bool"
        shape = r.choice(SHAPES) if shape is None else shape
        pos = r.random() < 0.3 if pos is None else pos
        lit = self.literal(shape, dtype, pos)
        if var is None:
            var = dtype in FLOATS and r.random() < 0.35
        dt = "" if dtype in ("float32", "int32", "bool") else f", dtype=tf.{dtype}"
        if var:
            extra = ", trainable=False" if r.random() < 0.05 else ""
            expr = f"tf.Variable({lit}{dt}{extra})"
            nm = self.name("v")
        else:
            expr = f"tf.constant({lit}{dt})"
            nm = self.name("x")
        self.emit(ind, f"{nm} = {expr}")
        v = _V(nm, dtype, shape, pos, 2.0, var=var, leaf=True)
        self.pool.append(v)
        return v

    # -- expressions ----------------------------------------------------------------
    def positive(self, v):
        """An expression for a positive value made from ``v``."""
        if v.pos:
            return v.name
        return self.r.choice([f"tf.abs({v.name}) + 0.5", f"tf.square({v.name}) + 1.0",
                              f"tf.exp(tf.tanh({v.name}))", f"tf.sigmoid({v.name}) + 0.1"])

    def plist(self, shape):
        """A Python list (or number) broadcastable against ``shape``."""
        last = shape[-1] if shape else 3
        if shape and len(shape) == 2 and shape[1] == 1 and self.r.random() < 0.5:
            return "[" + ", ".join(f"[{self.num()}]" for _ in range(shape[0])) + "]", (shape[0], 1)
        n = last if last > 1 else self.r.choice([1, 3])
        return "[" + ", ".join(repr(self.num()) for _ in range(n)) + "]", (n,)

    def npa(self, shape):
        lit, s = self.plist(shape)
        dt = self.r.choice(["np.float32", "np.float64", None])
        return (f"np.array({lit}, dtype={dt})" if dt else f"np.array({lit})"), s

    def op(self, ind):
        """Append one op line on values of the pool."""
        r = self.r
        kinds = [("unary", 30), ("binary", 22), ("pyscalar", 8), ("reduce", 10),
                 ("where", 3), ("cast", 3)]
        if self.feat["lists"]:
            kinds.append(("list", 25))
        if self.feat["numpy"]:
            kinds.append(("numpy", 20))
        if self.feat["shape_ops"]:
            kinds.append(("shape", 12))
        if self.feat["custom"]:
            kinds.append(("custom", 20))
        if self.feat["clash"]:
            kinds.append(("clash", 4))
        if any(v.dtype in ("int32", "bool") for v in self.pool):
            kinds.append(("intbool", 8))
        if self.feat["pyargs"]:
            kinds.append(("pyarg", 30))
        if self.feat["bf16"]:
            kinds.append(("bf16", 14))
        for _ in range(10):
            k = r.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
            v = getattr(self, "op_" + k)(ind)
            if v is not None:
                return v
        return self.op_unary(ind)

    def op_unary(self, ind):
        a = self.pick(lambda v: v.float)
        if a is None:
            return None
        r, n, s, b = self.r, a.name, a.shape, a.bound
        opts = [
            (f"tf.sin({n})", False, 1), (f"tf.cos({n})", False, 1), (f"tf.tanh({n})", False, 1),
            (f"tf.sigmoid({n})", True, 1), (f"tf.nn.relu({n})", False, b),
            (f"tf.square({n})", False, b * b), (f"tf.abs({n})", False, b), (f"-{n}", False, b),
            (f"tf.math.log({self.positive(a)})", False, 10),
            (f"tf.sqrt({self.positive(a)})", True, 10),
            (f"tf.math.log1p({self.positive(a)})", True, 10),
            (f"tf.clip_by_value({n}, -1.0, 1.0)", False, 1),
            (f"tf.identity({n})", a.pos, b), (f"tf.stop_gradient({n})", a.pos, b),
        ] + ([] if a.noisy else [
            (f"tf.floor({n})", False, b + 1), (f"tf.round({n})", False, b + 1),
            (f"tf.sign({n})", False, 1)]) + [
            (f"tf.negative({n})", False, b),
            (f"tf.ones_like({n})", True, 1), (f"tf.zeros_like({n})", False, 1),
            (f"tf.math.tan(tf.tanh({n}))", False, 2),
            (f"tf.pow({self.positive(a)}, {r.choice([2.0, 0.5, 3.0, 1.5])})", True, 1e3),
            (f"{n} ** 2", False, b * b), (f"{n} ** 3", False, b ** 3),
        ]
        if b <= 3:
            opts += [(f"tf.exp({n})", True, math.exp(b)), (f"tf.math.expm1({n})", False, math.exp(b))]
        if s:
            opts += [(f"tf.nn.softmax({n})", True, 1), (f"tf.math.softmax({n})", True, 1)]
        expr, pos, bound = r.choice(opts)
        return self.add(ind, expr, a.dtype, s, pos, bound)

    def partner(self, a):
        """Another pool value of a's dtype whose shape broadcasts with a's."""
        return self.pick(lambda v: v.dtype == a.dtype and _bshape(v.shape, a.shape) is not None)

    def op_binary(self, ind):
        a = self.pick(lambda v: v.float)
        if a is None:
            return None
        b = self.partner(a)
        r = self.r
        if r.random() < 0.5:
            a, b = b, a
        s = _bshape(a.shape, b.shape)
        x, y = a.name, b.name
        mb = a.bound * b.bound
        opts = [(f"{x} + {y}", False, a.bound + b.bound), (f"{x} - {y}", False, a.bound + b.bound),
                (f"tf.add({x}, {y})", False, a.bound + b.bound),
                (f"tf.subtract({x}, {y})", False, a.bound + b.bound),
                (f"tf.maximum({x}, {y})", a.pos and b.pos, max(a.bound, b.bound)),
                (f"tf.minimum({x}, {y})", a.pos and b.pos, max(a.bound, b.bound))]
        if mb < 1e4:
            opts += [(f"{x} * {y}", a.pos and b.pos, mb), (f"tf.multiply({x}, {y})", False, mb)]
        if a.bound * 10 < 1e4:
            py = self.positive(b)
            opts += [(f"{x} / ({py})", False, a.bound * 10), (f"tf.divide({x}, {py})", False, a.bound * 10),
                     (f"tf.truediv({x}, {py})", False, a.bound * 10)]
        if b.bound <= 2:
            opts.append((f"tf.pow({self.positive(a)}, {y})", True, 1e3))
        # matmul on matrices with a matching inner dimension
        if len(a.shape) == 2 and mb < 1e3:
            m = self.pick(lambda v: v.dtype == a.dtype and len(v.shape) == 2 and v.shape[0] == a.shape[1])
            if m is not None:
                for _ in range(3):
                    opts.append((r.choice([f"{x} @ {m.name}", f"tf.matmul({x}, {m.name})"]),
                                 False, mb * 3, (a.shape[0], m.shape[1])))
            opts.append((f"tf.matmul({x}, {x}, transpose_b=True)", False, a.bound ** 2 * 3,
                         (a.shape[0], a.shape[0])))
        o = r.choice(opts)
        return self.add(ind, o[0], a.dtype, o[3] if len(o) > 3 else s, o[1], o[2])

    def op_pyscalar(self, ind):
        a = self.pick(lambda v: v.float)
        if a is None:
            return None
        r, n, c = self.r, a.name, abs(self.num())
        opts = [(f"{n} * {c}", a.pos, a.bound * c), (f"{c} * {n}", a.pos, a.bound * c),
                (f"{n} + {c}", a.pos, a.bound + c), (f"{c} - {n}", False, a.bound + c),
                (f"{n} - {c}", False, a.bound + c), (f"{n} / {c}", a.pos, a.bound / c),
                (f"{n} * 2", a.pos, a.bound * 2), (f"1 + {n}", a.pos, a.bound + 1),
                (f"1.0 / ({self.positive(a)})", True, 10)]
        e, pos, b = r.choice(opts)
        return self.add(ind, e, a.dtype, a.shape, pos, b)

    def op_pyarg(self, ind):
        """An op given Python numbers as arguments (an activation's ``alpha``, a
        clip value, an epsilon, batch statistics, a list element)."""
        a = self.pick(lambda v: v.float)
        if a is None:
            return None
        r, n, s, b = self.r, a.name, a.shape, a.bound
        c, c2 = abs(self.num(pos=True)), abs(self.num(pos=True))
        lo, hi = -min(c, c2), max(c, c2)
        opts = [
            (f"tf.nn.leaky_relu({n}, alpha={c / 4:.3g})", False, b),
            (f"tf.nn.leaky_relu({n})", False, b),
            (f"tf.nn.gelu({n})", False, b), (f"tf.nn.gelu({n}, approximate=True)", False, b),
            (f"tf.nn.silu({n})", False, b), (f"tf.nn.silu({n}, beta={c})", False, b),
            (f"tf.nn.elu({n})", False, b), (f"tf.nn.selu({n})", False, 2 * b),
            (f"tf.nn.softplus({n})", True, b + 1), (f"tf.math.log_sigmoid({n})", False, b + 1),
            (f"tf.clip_by_value({n}, {lo}, {hi})", False, hi),
            (f"tf.clip_by_norm({n}, {c})", False, c),
            (f"tf.math.scalar_mul({c}, {n})", a.pos, b * c),
            (f"tf.pow({self.positive(a)}, {c})", True, 1e3),
            (f"tf.math.squared_difference({n}, {c})", True, (b + c) ** 2),
            (f"tf.maximum({n}, {c})", True, max(b, c)), (f"tf.minimum({c}, {n})", False, max(b, c)),
            (f"tf.math.multiply_no_nan({n}, {c})", a.pos, b * c),
            (f"tf.math.divide_no_nan({n}, {c})", a.pos, b / c),
            (f"tf.where({n} > {lo}, {n}, {c})", False, max(b, c)),
            (f"tf.nn.weighted_cross_entropy_with_logits(tf.sigmoid({n}), {n}, {c})", False, 3 * b + 3),
            (f"tf.nn.batch_normalization({n}, {self.num()}, {c}, {self.num()}, {c2}, 0.001)",
             False, 3 * (b + 2) * c2 / math.sqrt(c)),
        ]
        if b < 100:
            opts.append((f"tf.math.l2_normalize({n}, epsilon={c / 10:.3g})", False, 1 / math.sqrt(c / 10)))
        if len(s) == 1:
            opts.append((f"tf.concat([{n}, [{c}, {lo}]], 0)", False, max(b, c), (s[0] + 2,)))
        if not s:
            opts += [(f"tf.stack([{n}, {c}])", False, max(b, c), (2,)),
                     (f"tf.stack([{lo}, {n}], axis=0)", False, max(b, c), (2,))]
        o = r.choice(opts)
        return self.add(ind, o[0], a.dtype, o[3] if len(o) > 3 else s, o[1], o[2])

    def op_bf16(self, ind):
        """bfloat16 values with Python and NumPy numbers as operands (NumPy's
        bfloat16 scalars and arrays too, as ``tf.bfloat16.as_numpy_dtype``)."""
        r = self.r
        a = self.pick(lambda v: v.dtype == "bfloat16")
        if a is None:
            f = self.pick(lambda v: v.float and v.bound < 100)
            if f is None or r.random() < 0.5:
                sh = r.choice(SHAPES)
                nm = self.name("x")
                self.emit(ind, f"{nm} = tf.constant({self.literal(sh, 'float32')}, dtype=tf.bfloat16)")
                a = _V(nm, "bfloat16", sh, leaf=True)
                self.pool.append(a)
            else:
                return self.add(ind, f"tf.cast({f.name}, tf.bfloat16)", "bfloat16", f.shape, f.pos, f.bound)
        n, c = a.name, abs(self.num(pos=True))
        bf = "tf.bfloat16.as_numpy_dtype"
        lit, ls = self.plist(a.shape)
        num = r.choice([repr(c), f"np.float32({c})", f"np.float64({c})", f"{bf}({c})",
                        f"np.array({c}, dtype={bf})", f"np.array({lit}, dtype={bf})",
                        f"np.array({lit}, dtype=np.float32)"])
        s = _bshape(a.shape, ls) if lit in num else a.shape
        if s is None:
            return None
        scalar = lit not in num
        opts = [(f"{n} * {num}", s), (f"{num} + {n}", s), (f"{n} - {num}", s),
                (f"tf.add({n}, {num})", s), (f"tf.multiply({n}, {num})", s),
                (f"tf.maximum({n}, {num})", s), (f"tf.where({n} > 0.5, {n}, {num})", s),
                (f"tf.nn.relu({n})", a.shape), (f"tf.square({n})", a.shape),
                (f"tf.nn.leaky_relu({n}, alpha={c / 4:.3g})", a.shape)]
        if scalar:
            opts.append((f"tf.clip_by_value({n}, -{c}, {num})", a.shape))
        if a.bound < 30:
            opts.append((f"tf.cast({n}, tf.float32) * {c}", a.shape))
        e, sh = r.choice(opts)
        if e.startswith("tf.cast("):
            return self.add(ind, e, "float32", sh, False, a.bound * c)
        return self.add(ind, e, "bfloat16", sh, False, a.bound * (c + 1) + c)

    def op_list(self, ind):
        a = self.pick(lambda v: v.float)
        if a is None:
            return None
        r, n = self.r, a.name
        lit, ls = self.plist(a.shape)
        s = _bshape(a.shape, ls)
        if s is None:
            return None
        opts = [f"{n} * {lit}", f"{lit} * {n}", f"{n} + {lit}", f"{lit} - {n}",
                f"tf.multiply({n}, {lit})", f"tf.subtract({n}, {lit})", f"tf.add({lit}, {n})",
                f"tf.maximum({n}, {lit})"]
        if len(a.shape) == 2 and a.bound < 100:
            k = a.shape[1]
            mat = "[" + ", ".join("[" + ", ".join(repr(self.num()) for _ in range(2)) + "]"
                                  for _ in range(k)) + "]"
            e = r.choice([f"{n} @ {mat}", f"tf.matmul({n}, {mat})"])
            return self.add(ind, e, a.dtype, (a.shape[0], 2), False, a.bound * 4)
        if len(a.shape) == 2 and r.random() < 0.3:
            row = "[[" + ", ".join(repr(self.num()) for _ in range(a.shape[0])) + "]]"
            return self.add(ind, f"{row} @ {n}", a.dtype, (1, a.shape[1]), False, a.bound * 4)
        return self.add(ind, r.choice(opts), a.dtype, s, False, a.bound * 2 + 2)

    def op_numpy(self, ind):
        a = self.pick(lambda v: v.float)
        if a is None:
            return None
        arr, ls = self.npa(a.shape)
        s = _bshape(a.shape, ls)
        if s is None:
            return None
        n = a.name
        e = self.r.choice([f"{n} * {arr}", f"{arr} * {n}", f"{n} + {arr}", f"{arr} - {n}",
                           f"tf.multiply({n}, {arr})", f"tf.add({arr}, {n})"])
        return self.add(ind, e, a.dtype, s, False, a.bound * 2 + 2)

    def op_reduce(self, ind):
        a = self.pick(lambda v: v.float)
        if a is None:
            return None
        r, n, rank = self.r, a.name, len(a.shape)
        f = r.choice(["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_sum",
                      "reduce_prod", "math.reduce_logsumexp", "norm"])
        axis = r.choice([None] + list(range(rank)) + ([-1] if rank else []))
        keep = r.random() < 0.3
        args = n
        if axis is not None:
            args += f", axis={axis}"
        if keep:
            args += ", keepdims=True"
        out = np.zeros(a.shape).sum(axis=axis, keepdims=keep).shape
        size = max(1, int(np.prod(a.shape)))
        bound = {"reduce_sum": a.bound * size, "reduce_prod": a.bound ** size,
                 "norm": a.bound * size}.get(f, a.bound + 2)
        if bound > 1e4:
            f, bound = "reduce_mean", a.bound
        pos = f in ("norm",) or (a.pos and f != "math.reduce_logsumexp")
        return self.add(ind, f"tf.{f}({args})", a.dtype, out, pos, bound)

    def op_shape(self, ind):
        a = self.pick(lambda v: v.float)
        if a is None:
            return None
        r, n, s = self.r, a.name, a.shape
        size = int(np.prod(s))
        opts = [(f"tf.reshape({n}, [-1])", (size,)), (f"tf.expand_dims({n}, 0)", (1,) + s)]
        same = [sh for sh in SHAPES if int(np.prod(sh)) == size and sh != s]
        for sh in same:
            opts.append((f"tf.reshape({n}, {list(sh)})", sh))
        if len(s) == 2:
            opts.append((f"tf.transpose({n})", s[::-1]))
            opts.append((f"tf.tile({n}, [2, 1])", (2 * s[0], s[1])))
        if len(s) == 1:
            opts += [(f"tf.tile({n}, [2])", (2 * s[0],)), (f"tf.expand_dims({n}, -1)", s + (1,)),
                     (f"tf.stack([{n}, {n}])", (2,) + s)]
            b = self.pick(lambda v: v.dtype == a.dtype and v.shape == s)
            opts.append((f"tf.stack([{n}, {b.name}], axis=1)", s + (2,)))
        if 1 in s:
            opts.append((f"tf.squeeze({n})", tuple(d for d in s if d != 1)))
        if s:
            b = self.pick(lambda v: v.dtype == a.dtype and len(v.shape) == len(s) and v.shape[1:] == s[1:])
            opts.append((f"tf.concat([{n}, {b.name}], axis=0)", (s[0] + b.shape[0],) + s[1:]))
            idx = [r.randrange(s[0]) for _ in range(r.choice([2, 3]))]
            opts.append((f"tf.gather({n}, {idx})", (len(idx),) + s[1:]))
        if not s:
            opts.append((f"tf.stack([{n}, {n} * 2.0, 1.0 - {n}])", (3,)))
        if r.random() < 0.2:
            opts.append((r.choice(["tf.linspace(-2, 2, 3)", "tf.linspace(-1.0, 1.0, 3)"]), (3,)))
        e, sh = r.choice(opts)
        dt = "float64" if e == "tf.linspace(-2, 2, 3)" else a.dtype
        if e.startswith("tf.linspace"):
            return self.add(ind, e, dt, sh, False, 2)
        return self.add(ind, e, dt, sh, False, a.bound * 2)

    def op_where(self, ind):
        a = self.pick(lambda v: v.float)
        if a is None:
            return None
        b = self.partner(a)
        r = self.r
        conds = [f"{a.name} > {b.name}", f"tf.greater({a.name}, 0.0)", f"tf.equal(tf.sign({a.name}), 1.0)",
                 f"{a.name} < 0.5"]
        if a.noisy or b.noisy:
            conds = [f"{a.name} < 0.5"]
        cs = [a.shape]
        bl = self.pick(lambda v: v.dtype == "bool" and _bshape(v.shape, a.shape, b.shape) is not None)
        if bl is not None:
            conds = [bl.name]
            cs = [bl.shape]
        s = _bshape(a.shape, b.shape, *cs)
        if s is None:
            return None
        other = r.choice([b.name, f"tf.sin({b.name})", f"{b.name} * {b.name}"])
        return self.add(ind, f"tf.where({r.choice(conds)}, {a.name}, {other})", a.dtype, s, False,
                        max(a.bound, b.bound ** 2))

    def op_cast(self, ind):
        a = self.pick()
        if a is None:
            return None
        to = self.r.choice(["float32", "float64", "int32"] if a.float and not a.noisy
                           else ["float32", "float64"] if a.float else ["float32"])
        if a.dtype == "bool" or a.dtype == "int32":
            to = "float32"
        return self.add(ind, f"tf.cast({a.name}, tf.{to})", to, a.shape, a.pos, a.bound + 1)

    def op_intbool(self, ind):
        a = self.pick(lambda v: v.dtype in ("int32", "bool"))
        if a is None:
            return None
        if a.dtype == "int32":
            e = self.r.choice([f"{a.name} * 2", f"{a.name} + {a.name}", f"tf.reduce_sum({a.name})",
                               f"tf.cast({a.name}, tf.float32) * 0.5"])
            dt = "float32" if "cast" in e else "int32"
            sh = () if "reduce" in e else a.shape
            return self.add(ind, e, dt, sh, False, 10)
        f = self.pick(lambda v: v.float and _bshape(v.shape, a.shape) is not None)
        if f is None:
            return None
        e = self.r.choice([f"tf.where({a.name}, {f.name}, -{f.name})",
                           f"tf.cast({a.name}, tf.{f.dtype}) * {f.name}"])
        return self.add(ind, e, f.dtype, _bshape(f.shape, a.shape), False, f.bound)

    def op_clash(self, ind):
        # Two tensors of different float dtypes: TF raises InvalidArgumentError.
        a = self.pick(lambda v: v.dtype == "float32")
        b = self.pick(lambda v: v.dtype == "float64")
        if a is None or b is None:
            return None
        return self.add(ind, f"{a.name} * {b.name}", "float32", _bshape(a.shape, b.shape) or a.shape)

    def op_custom(self, ind):
        """Define a tf.custom_gradient function here (or reuse one) and call it."""
        r = self.r
        a = self.pick(lambda v: v.float)
        if a is None:
            return None
        if self.cg and r.random() < 0.4:
            nm, nargs, b_ok = r.choice(self.cg)
            if nargs == 1 and (b_ok or a.bound <= 3):
                return self.add(ind, f"{nm}({a.name})", a.dtype, a.shape, False, 20)
        nm = self.name("cg")
        kind = r.choice(["exp_y", "sq_x", "sin_x", "log1pexp", "clip", "fake", "tanh_y", "two"])
        if kind in ("exp_y", "log1pexp") and a.bound > 3:
            kind = "sq_x"
        self.emit(ind, "@tf.custom_gradient")
        if kind == "two":
            b = self.pick(lambda v: v.dtype == a.dtype and v.shape == a.shape)
            self.emit(ind, f"def {nm}(p, q):")
            self.emit(ind + 1, "return p * q, lambda dy: (dy * q, dy * p * 2.0)")
            self.cg.append((nm, 2, True))
            return self.add(ind, f"{nm}({a.name}, {b.name})", a.dtype, a.shape, False, a.bound * b.bound)
        self.emit(ind, f"def {nm}(p):")
        body = {
            "exp_y": ["y = tf.exp(p)", "return y, lambda dy: dy * y"],
            "sq_x": ["return p * p, lambda dy: dy * 2.0 * p"],
            "sin_x": ["return tf.sin(p), lambda dy: dy * tf.cos(p)"],
            "log1pexp": ["e = tf.exp(p)", "return tf.math.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))"],
            "clip": ["return tf.identity(p), lambda dy: tf.clip_by_value(dy, -0.5, 0.5)"],
            "fake": ["return p * p, lambda dy: dy * 3.0"],
            "tanh_y": ["y = tf.tanh(p)", "return y, lambda dy: dy * (1 - y * y)"],
        }[kind]
        for line in body:
            self.emit(ind + 1, line)
        self.cg.append((nm, 1, kind not in ("exp_y", "log1pexp")))
        return self.add(ind, f"{nm}({a.name})", a.dtype, a.shape, False,
                        a.bound ** 2 + 1 if kind in ("sq_x", "fake") else 20)

    def function_call(self, ind):
        """Define a tf.function over one or two pool values (and Variables) and call it."""
        r = self.r
        args = [self.pick(lambda v: v.float)]
        if args[0] is None:
            return None
        if r.random() < 0.5:
            args.append(self.partner(args[0]))
        if r.random() < 0.2:
            # An argument computed by an eager Python branch on a Tensor's value.
            a, b = args[0], self.name("b")
            self.emit(ind, f"if tf.reduce_sum({a.name}) > 0:")
            self.emit(ind + 1, f"{b} = {a.name} * 1.5")
            self.emit(ind, "else:")
            self.emit(ind + 1, f"{b} = {a.name} - 0.5")
            args[0] = _V(b, a.dtype, a.shape, False, min(a.bound * 1.5 + 0.5, 1e6),
                         noisy=a.noisy)
            self.pool.append(args[0])
        nm = self.name("f")
        params = ["p", "q"][:len(args)]
        self.emit(ind, "@tf.function")
        self.emit(ind, f"def {nm}({', '.join(params)}):")
        saved, feat, cg = self.pool, dict(self.feat), list(self.cg)   # the body is its own scope
        self.pool = [_V(p, a.dtype, a.shape, a.pos, a.bound, noisy=a.noisy)
                     for p, a in zip(params, args)]
        self.pool += [v for v in saved if v.var and v.dtype == args[0].dtype
                      and _bshape(v.shape, args[0].shape) is not None and r.random() < 0.5]
        self.feat["clash"] = False
        for _ in range(r.randint(1, 3)):
            last = self.op(ind + 1)
        self.emit(ind + 1, f"return {last.name}")
        self.pool, self.feat, self.cg = saved, feat, cg
        return self.add(ind, f"{nm}({', '.join(a.name for a in args)})", last.dtype, last.shape,
                        last.pos, last.bound)

    # -- statements inside a tape -----------------------------------------------------
    def body(self, ind, n, tapes):
        """n op lines at indentation ``ind`` with ``tapes`` recording (innermost last);
        sometimes a control-flow branch, a stop_recording block, an assign, a reset."""
        r = self.r
        last = None
        for _ in range(n):
            x = r.random()
            if self.feat["cflow"] and x < 0.12:
                last = self.branch(ind) or last
            elif self.feat["stop"] and tapes and x < 0.2:
                self.emit(ind, f"with {r.choice(tapes)}.stop_recording():")
                self.op(ind + 1)
            elif self.feat["assign"] and x < 0.3:
                last = self.assign(ind) or last
            elif self.feat["function"] and x < 0.38:
                last = self.function_call(ind) or last
            else:
                last = self.op(ind)
        if tapes and r.random() < 0.05:
            self.emit(ind, f"{tapes[-1]}.reset()")
            last = self.op(ind)
        return last if last is not None else self.op(ind)

    def branch(self, ind):
        a = self.pick(lambda v: v.float)
        c = self.pick(lambda v: v.float)
        if a is None:
            return None
        nm = self.name("b")
        ops = [f"{a.name} * 2.0", f"tf.sin({a.name})", f"{a.name} * {a.name}", f"tf.tanh({a.name})",
               f"{a.name} - 1.0"]
        t, e = self.r.sample(ops, 2)
        self.emit(ind, f"if tf.reduce_sum({c.name}) > {self.num()}:")
        self.emit(ind + 1, f"{nm} = {t}")
        self.emit(ind, "else:")
        self.emit(ind + 1, f"{nm} = {e}")
        v = _V(nm, a.dtype, a.shape, False, a.bound ** 2 + 2, noisy=a.noisy)
        self.pool.append(v)
        return v

    def assign(self, ind):
        r = self.r
        v = self.pick(lambda u: u.var)
        if v is None:
            return None
        meth = r.choice(["assign", "assign_add", "assign_sub"])
        opts = [f"{v.name} * 0.5"]
        if not v.shape:
            opts.append(repr(self.num()))
        same = self.pick(lambda u: u.dtype == v.dtype and u.shape == v.shape and u is not v)
        if same is not None:
            opts.append(f"tf.tanh({same.name})")
        val = r.choice(opts)
        if r.random() < 0.5:
            return self.add(ind, f"{v.name}.{meth}({val})", v.dtype, v.shape, False, v.bound + 2, "r")
        self.emit(ind, f"{v.name}.{meth}({val})")
        v.bound += 2
        return None

    # -- structures -------------------------------------------------------------------
    def nest(self, vals, kinds=("list", "tuple", "dict", "nt", "mixed")):
        r = self.r
        if len(vals) == 1 and r.random() < 0.6:
            return vals[0].name
        k = r.choice(kinds)
        names = [v.name for v in vals]
        if k == "list":
            return "[" + ", ".join(names) + "]"
        if k == "tuple":
            return "(" + ", ".join(names) + ",)"
        if k == "dict":
            return "{" + ", ".join(f"'k{i}': n" .replace("n", n) for i, n in enumerate(names)) + "}"
        if k == "nt":
            if "Pair" not in "\n".join(self.lines):
                self.lines.insert(0, "    Pair = namedtuple('Pair', ['a', 'b'])")
                self.lines.insert(0, "    from collections import namedtuple")
            if len(names) == 1:
                return f"Pair({names[0]}, [{names[0]}])"
            return f"Pair({names[0]}, {{'k': [{', '.join(names[1:])}]}})"
        # mixed: lists, dicts and tuples at several depths
        if len(names) == 1:
            return f"[{{'k': ({names[0]},)}}]"
        return f"[{names[0]}, {{'k': ({', '.join(names[1:])},), 'j': []}}]"

    def sources(self, n=None):
        r = self.r
        n = n or r.choice([1, 1, 2, 3])
        leaves = [v for v in self.pool if v.leaf]
        cands = [v for v in self.pool]
        out = []
        for _ in range(n):
            pool = leaves if leaves and r.random() < 0.7 else cands
            out.append(r.choice(pool))
        return out

    def gradient_call(self, ind, tape, targets, persistent, out, allow=("gradient", "jacobian")):
        r = self.r
        kind = r.choices(["gradient", "jacobian", "batch_jacobian"], [8, 2, 1])[0]
        if kind not in allow:
            kind = "gradient"
        y = r.choice(targets)
        nm = self.name("g")
        kw = ""
        if r.random() < 0.2:
            kw += ", unconnected_gradients=" + r.choice(["'zero'", "tf.UnconnectedGradients.ZERO",
                                                          "'none'"])
        if kind == "batch_jacobian":
            x = self.pick(lambda v: v.float and len(v.shape) == 2)
            ys = [t for t in targets if len(t.shape) >= 2]
            if x is not None and ys:
                self.emit(ind, f"{nm} = {tape}.batch_jacobian({r.choice(ys).name}, {x.name}{kw})")
                out.append(nm)
                return
            kind = "jacobian"
        if kind == "jacobian":
            self.emit(ind, f"{nm} = {tape}.jacobian({y.name}, {self.nest(self.sources())}{kw})")
            out.append(nm)
            return
        tg = self.nest([y] + r.sample(targets, min(len(targets), r.choice([0, 0, 1]))),
                       kinds=("list", "dict", "tuple")) if r.random() < 0.3 else y.name
        if tg == y.name and r.random() < 0.15 and y.float:
            if r.random() < 0.5:
                og = f"tf.constant({self.literal(y.shape, y.dtype)}{'' if y.dtype == 'float32' else ', dtype=tf.float64'})"
            else:
                og = r.choice(["2.0", "0.5", "3"])
            kw += f", output_gradients={og}"
        self.emit(ind, f"{nm} = {tape}.gradient({tg}, {self.nest(self.sources())}{kw})")
        out.append(nm)

    # -- whole programs -----------------------------------------------------------------
    def setup(self):
        for _ in range(self.r.randint(1, 3)):
            self.leaf(1)
        if not any(v.float for v in self.pool):
            self.leaf(1, dtype="float32")

    def scenario_basic(self):
        r = self.r
        self.setup()
        pers = r.random() < 0.4
        wav = r.random() < 0.1
        t = self.name("t")
        args = []
        if pers:
            args.append("persistent=True")
        if wav:
            args.append("watch_accessed_variables=False")
        self.emit(1, f"with tf.GradientTape({', '.join(args)}) as {t}:")
        self.watch(2, t, wav)
        start = len(self.pool)
        last = self.body(2, r.randint(2, 6), [t])
        targets = [v for v in self.pool[start:] if v.float] or [last]
        out = [last.name]
        inside = r.random() < 0.1
        for _ in range(r.randint(1, 3) if pers else (2 if r.random() < 0.05 else 1)):
            self.gradient_call(2 if inside else 1, t, targets, pers, out,
                               allow=("gradient", "jacobian", "batch_jacobian"))
        if r.random() < 0.2:
            # Which Variables the tape watched (read inside a tf.function too).
            w = self.name("w")
            self.emit(1, f"{w} = sorted(v.name for v in {t}.watched_variables())")
            out.append(w)
        return out

    def watch(self, ind, t, wav=False):
        r = self.r
        ws = [v for v in self.pool if (not v.var or wav) and r.random() < 0.75]
        if not ws:
            return
        if len(ws) > 1 and r.random() < 0.3:
            self.emit(ind, f"{t}.watch({self.nest(ws, kinds=('list', 'dict', 'mixed'))})")
        else:
            for v in ws:
                self.emit(ind, f"{t}.watch({v.name})")

    def scenario_nested(self):
        r = self.r
        self.pool = []
        x = self.leaf(1, dtype=r.choice(["float32"] * 4 + ["float64"]), var=r.random() < 0.3)
        if r.random() < 0.2:   # mostly x alone, so the inner gradients depend on it
            self.leaf(1)
        levels = r.choice([2, 2, 3])
        tapes = [self.name("t") for _ in range(levels)]
        pers = [r.random() < 0.2 for _ in tapes]
        for i, t in enumerate(tapes):
            self.emit(1 + i, f"with tf.GradientTape({'persistent=True' if pers[i] else ''}) as {t}:")
            if not x.var:
                self.emit(2 + i, f"{t}.watch({x.name})")
        ind = 1 + levels
        last = self.body(ind, r.randint(1, 5), tapes)
        out = [last.name]
        cur = last
        for i in reversed(range(levels)):
            ind -= 1
            g = self.name("g")
            src = x.name if r.random() < 0.8 else self.nest(self.sources())
            kw = ", unconnected_gradients='zero'" if r.random() < 0.1 else ""
            if i == 0 and r.random() < 0.15:
                self.emit(ind, f"{g} = {tapes[i]}.jacobian({cur.name}, {src}{kw})")
            else:
                self.emit(ind, f"{g} = {tapes[i]}.gradient({cur.name}, {src}{kw})")
            out.append(g)
            cur = _V(g, x.dtype, x.shape, False, 100, noisy=True)
            if i and src == x.name and r.random() < 0.3:
                self.pool.append(cur)
                cur = self.op(ind) if r.random() < 0.5 else cur
                if cur.name != g:
                    out.append(cur.name)
        return out

    def scenario_forward(self):
        r = self.r
        self.setup()
        x = self.pick(lambda v: v.float)
        prim = [x] + ([self.pick(lambda v: v.float and v is not x)] if r.random() < 0.3 else [])
        prim = [p for p in prim if p is not None]
        tang = [f"tf.constant({self.literal(p.shape, p.dtype)}"
                f"{', dtype=tf.float64' if p.dtype == 'float64' else ''})" for p in prim]
        if len(prim) == 1:
            acc_args = f"{prim[0].name}, {tang[0]}"
        else:
            acc_args = f"[{', '.join(p.name for p in prim)}], [{', '.join(tang)}]"
        acc = self.name("acc")
        how = r.choice(["plain", "acc_tape", "tape_acc"])
        kw = ", unconnected_gradients='zero'" if r.random() < 0.15 else ""
        if how == "plain":
            self.emit(1, f"with tf.autodiff.ForwardAccumulator({acc_args}) as {acc}:")
            start = len(self.pool)
            last = self.body(2, r.randint(1, 5), [])
            ys = self.pool[start:] or [last]
            j = self.name("j")
            self.emit(1, f"{j} = {acc}.jvp({self.nest(r.sample(ys, min(len(ys), r.choice([1, 1, 2]))))}{kw})")
            return [last.name, j]
        t = self.name("t")
        if how == "acc_tape":
            # forward over backward: a Hessian-vector product
            self.emit(1, f"with tf.autodiff.ForwardAccumulator({acc_args}) as {acc}:")
            self.emit(2, f"with tf.GradientTape() as {t}:")
            self.watch(3, t)
            last = self.body(3, r.randint(1, 5), [t])
            g = self.name("g")
            self.emit(2, f"{g} = {t}.gradient({last.name}, {x.name})")
            j = self.name("j")
            self.emit(1, f"{j} = {acc}.jvp({g}{kw})")
            return [last.name, g, j]
        # backward over forward
        self.emit(1, f"with tf.GradientTape() as {t}:")
        self.watch(2, t)
        self.emit(2, f"with tf.autodiff.ForwardAccumulator({acc_args}) as {acc}:")
        last = self.body(3, r.randint(1, 5), [t])
        j = self.name("j")
        self.emit(2, f"{j} = {acc}.jvp({last.name}{kw})")
        g = self.name("g")
        self.emit(1, f"{g} = {t}.gradient({j}, {self.nest(self.sources())})")
        return [last.name, j, g]

    def generate(self):
        r = self.r
        kind = r.choices(["basic", "nested", "forward"], [6, 2.5, 1.5])[0]
        out = getattr(self, "scenario_" + kind)()
        out = list(dict.fromkeys(out))
        if r.random() < 0.1:
            vs = [v for v in self.pool if v.var]
            if vs:
                out.append(vs[-1].name)
        shape = r.random()
        if shape < 0.7:
            ret = "[" + ", ".join(out) + "]"
        elif shape < 0.85:
            ret = "(" + ", ".join(out) + ",)"
        else:
            ret = "{" + ", ".join(f"'{o}': {o}" for o in out) + "}"
        self.emit(1, f"return {ret}")
        return "def program(tf, np):\n" + "\n".join(self.lines) + "\n"


def program(seed):
    """The source text of the program of ``seed`` (deterministic)."""
    return _Gen(seed).generate()


# ---------------------------------------------------------------------------------
# Outcomes (run inside a worker)
# ---------------------------------------------------------------------------------
# The family an error is compared by: the TF oracle's rule, the suite's one
# (TF's op errors derive from no builtin class and eagertape's derive from one, so
# every OpError subclass is named by its own class).
family = tf_oracle.family


def _num(x):
    if isinstance(x, float) and not math.isfinite(x):
        return repr(x)   # 'nan', 'inf', '-inf'
    return x


def normalise(x, dense=lambda x: x, depth=0):
    """A JSON-able form of a result nest that keeps its structure exactly."""
    if depth > 20:
        return {"obj": "too deep"}
    if x is None:
        return None
    if isinstance(x, (bool, int, float, str)):
        return {"py": type(x).__name__, "v": _num(x)}
    rec = lambda y: normalise(y, dense, depth + 1)  # noqa: E731
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return {"nt": type(x).__name__, "fields": list(x._fields), "items": [rec(y) for y in x]}
    if isinstance(x, tuple):
        return {"tuple": [rec(y) for y in x]}
    if isinstance(x, list):
        return {"list": [rec(y) for y in x]}
    if isinstance(x, dict):
        return {"dict": sorted([repr(k), rec(v)] for k, v in x.items())}
    x = dense(x)
    if hasattr(x, "numpy") and hasattr(x, "dtype"):
        a = np.asarray(x.numpy())
    elif isinstance(x, (np.ndarray, np.generic)):
        a = np.asarray(x)
    else:
        return {"obj": type(x).__name__}
    if a.dtype.kind == "c":
        vals = [str(v) for v in a.ravel().tolist()]
    else:
        vals = [_num(v) for v in a.ravel().tolist()]
    kind = "t" if not isinstance(x, (np.ndarray, np.generic)) else "np"
    return {kind: str(a.dtype), "shape": list(a.shape), "v": vals}


def run_one(tf, src, dense=lambda x: x):
    try:
        ns = {}
        exec(compile(src, "<program>", "exec"), ns)
        result = ns["program"](tf, np)
        return {"returns": normalise(result, dense)}
    except Exception as e:  # the outcome of the program, whatever it is
        return {"raises": family(e), "msg": f"{type(e).__name__}: {str(e)[:300]}"}


def _worker(backend):
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)   # a program's prints must not reach the protocol channel
    if backend == "tf":
        import tensorflow as tf
        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        tf.get_logger().setLevel("ERROR")

        def dense(x):   # gather gradients are IndexedSlices (in both): compared dense
            return tf.convert_to_tensor(x) if isinstance(x, tf.IndexedSlices) else x
        thread_state = None
    else:
        import eagertape
        import eagertape.tf as tf
        from eagertape.introspect import thread_state
        def dense(x):
            return tf.convert_to_tensor(x) if isinstance(x, tf.IndexedSlices) else x
    proto.write(json.dumps({"ready": backend}) + "\n")
    proto.flush()
    for line in sys.stdin:
        req = json.loads(line)
        t0 = time.perf_counter()
        if thread_state is not None:
            eagertape.set_execution_mode(req.get("mode", "eager"))
        out = run_one(tf, req["src"], dense)
        out["time"] = time.perf_counter() - t0
        # A program that left a tape or accumulator behind would leak into the next.
        state = thread_state() if thread_state is not None else None
        dirty = state is not None and bool(state.tapes or state.accumulators or state.var_watchers
                                           or state.capture is not None)
        proto.write(json.dumps(out) + "\n")
        proto.flush()
        if dirty:
            return


# ---------------------------------------------------------------------------------
# Runner (in the parent)
# ---------------------------------------------------------------------------------
class Worker:
    """One long-lived worker process for a backend, restarted after a crash or a timeout."""

    def __init__(self, backend, timeout=60.0, start_timeout=180.0):
        self.backend, self.timeout, self.start_timeout = backend, timeout, start_timeout
        self.proc = None

    def _start(self):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", OMP_NUM_THREADS="1",
                   XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
                   JAX_PLATFORMS="cpu", PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", self.backend],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
        msg = self._read(self.start_timeout)
        if not msg or "ready" not in msg:
            self.close()
            raise RuntimeError(f"the {self.backend} worker did not start: {msg}")

    def _read(self, timeout):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        return json.loads(line) if line else {"crash": f"worker exited ({self.proc.poll()})"}

    def run(self, src, mode="eager"):
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        try:
            self.proc.stdin.write((json.dumps({"src": src, "mode": mode}) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.close()
            return {"crash": "worker pipe closed"}
        out = self._read(self.timeout)
        if out is None:
            self.close()
            return {"timeout": self.timeout}
        if "crash" in out or self.proc.poll() is not None:
            self.close()
        return out

    def close(self):
        if self.proc is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


# What TF's outcome of a source text depends on besides the text and TF's version:
# the code that runs and normalises it in the worker.
_TF_SIDE = (run_one, normalise, family, _num, _worker)


class Fuzzer:
    """A TF worker and an eagertape worker; TF's outcomes are kept by the TF oracle
    (tests/tf_oracle.py) by source text (they do not depend on eagertape's execution
    mode), in this process and on disk: a second run starts no TF worker for the
    programs it has seen."""

    def __init__(self, timeout=60.0):
        self.tf, self.et = Worker("tf", timeout), Worker("et", timeout)
        self.times = {"tf": [], "et": []}

    def tf_outcome(self, src):
        def compute():
            out = self.tf.run(src)
            self.times["tf"].append(out.get("time"))
            return out
        return tf_oracle.cached("tf_fuzz", (src, _TF_SIDE), compute,
                                keep=lambda o: "crash" not in o and "timeout" not in o)

    def outcomes(self, src, mode):
        tfo = self.tf_outcome(src)
        et = self.et.run(src, mode)
        self.times["et"].append(et.get("time"))
        return tfo, et

    def check(self, src, mode):
        """(class or None, description, tf outcome, et outcome); class is
        ``known:<name>`` for a deliberate difference."""
        tfo, eto = self.outcomes(src, mode)
        # float64 values cast from float32 ones (written as such, or Python numbers'
        # default) carry the two runtimes' float32 rounding; a program all float64
        # stays compared at float64's precision
        d = compare(tfo, eto, loose="float64" in src and (
            "float32" in src or re.search(r"tf\.cast\([^\n]*, tf\.float64\)", src) is not None))
        if d is None:
            return None, "", tfo, eto
        for name, pred in KNOWN.items():
            try:
                if pred(src, tfo, eto):
                    return "known:" + name, d[1], tfo, eto
            except Exception:   # a predicate that does not apply
                pass
        if d[0] == "value" and self._agree_in_float64(src, mode):
            return "known:float32_rounding", d[1], tfo, eto
        return d[0], d[1], tfo, eto

    def _agree_in_float64(self, src, mode):
        """README "float32 rounding": the same program in float64 gives the same
        values in both (so the float32 difference is the two runtimes' rounding of a
        cancellation: tanh near +-1, a softmax over one element, a third derivative)."""
        src64 = _as_float64(src)
        if src64 is None:
            return False
        t64, e64 = self.tf_outcome(src64), self.et.run(src64, mode)
        return "returns" in t64 and "returns" in e64 and compare(t64, e64) is None

    def close(self):
        self.tf.close()
        self.et.close()


# ---------------------------------------------------------------------------------
# Comparator
# ---------------------------------------------------------------------------------
def _arr(vals):
    return np.array([float(v) if isinstance(v, str) else v for v in vals], dtype=float)


def _leaf_kind(x):
    if x is None:
        return "None"
    return next(iter(k for k in ("py", "nt", "tuple", "list", "dict", "t", "np", "obj") if k in x))


def _cmp(a, b, path, loose=False):
    ka, kb = _leaf_kind(a), _leaf_kind(b)
    if ka != kb:
        if "None" in (ka, kb) and {ka, kb} & {"t", "np"}:
            return "none_vs_value", f"{path}: TF {_short(a)}, eagertape {_short(b)}"
        if {ka, kb} <= {"t", "np"}:
            pass   # a Tensor and an ndarray with the same contents: compare contents
        else:
            return "structure", f"{path}: TF {_short(a)}, eagertape {_short(b)}"
    if ka == "None":
        return None
    if ka in ("list", "tuple"):
        if len(a[ka]) != len(b[kb]):
            return "structure", f"{path}: {ka} of {len(a[ka])} vs {len(b[kb])}"
        for i, (x, y) in enumerate(zip(a[ka], b[kb])):
            d = _cmp(x, y, f"{path}[{i}]", loose)
            if d:
                return d
        return None
    if ka == "nt":
        if (a["nt"], a["fields"]) != (b["nt"], b["fields"]) or len(a["items"]) != len(b["items"]):
            return "structure", f"{path}: namedtuple {a['nt']}{a['fields']} vs {b['nt']}{b['fields']}"
        for f, x, y in zip(a["fields"], a["items"], b["items"]):
            d = _cmp(x, y, f"{path}.{f}", loose)
            if d:
                return d
        return None
    if ka == "dict":
        if [k for k, _ in a["dict"]] != [k for k, _ in b["dict"]]:
            return "structure", f"{path}: dict keys differ"
        for (k, x), (_, y) in zip(a["dict"], b["dict"]):
            d = _cmp(x, y, f"{path}[{k}]", loose)
            if d:
                return d
        return None
    if ka == "py":
        if a["py"] != b["py"]:
            return "dtype", f"{path}: Python {a['py']} vs {b['py']}"
        if a["v"] != b["v"] and not (isinstance(a["v"], float) and _close([a["v"]], [b["v"]], "float64")):
            return "value", f"{path}: {a['v']} vs {b['v']}"
        return None
    if ka == "obj":
        return None if a == b else ("structure", f"{path}: {a} vs {b}")
    da, db = a[ka], b[kb]
    if da != db:
        return "dtype", f"{path}: TF {da}, eagertape {db}"
    if a["shape"] != b["shape"]:
        return "shape", f"{path}: TF {tuple(a['shape'])}, eagertape {tuple(b['shape'])}"
    if not _close(a["v"], b["v"], "float32" if loose and da == "float64" else da):
        return "value", f"{path}: TF {_vals(a)}, eagertape {_vals(b)}"
    return None


def _close(x, y, dtype):
    if dtype in ("bool", "str") or dtype.startswith(("int", "uint")) or dtype.startswith("complex"):
        return x == y
    x, y = _arr(x), _arr(y)
    if dtype == "float64":
        # Tight: a constant rounded to float32 on one side only (TF's float
        # attributes, constants its code casts) is off by ~1e-8 relative.
        rtol, atol = 1e-9, 1e-12
    elif dtype == "bfloat16":
        # 8 bits of mantissa: one rounding of an op's float32 result either way
        rtol, atol = 2e-2, 2e-2
    else:
        # Cancellation (1 - tanh(x)**2 near saturation, second derivatives of a
        # saturated softmax) costs float32 several digits in both frameworks,
        # rounded differently.
        rtol, atol = 1e-4, 5e-4
    # absolute errors of float32 sums and products scale with the largest entry
    scale = max(1.0, float(np.nanmax(np.abs(x[np.isfinite(x)]), initial=0.0)))
    return bool(np.allclose(x, y, rtol=rtol, atol=atol * scale, equal_nan=True))


def _vals(a):
    v = a["v"]
    s = ", ".join(str(round(x, 6) if isinstance(x, float) else x) for x in v[:6])
    return f"{a.get('t') or a.get('np')}{tuple(a['shape'])} [{s}{', ...' if len(v) > 6 else ''}]"


def _short(x):
    k = _leaf_kind(x)
    if k in ("t", "np"):
        return _vals(x)
    if k == "py":
        return f"{x['py']} {x['v']}"
    return k if k != "None" else "None"


def compare(tfo, eto, loose=False):
    """None when the outcomes agree, else (class, description). ``loose``: float64
    results compared as float32 (a program that computes some of them in float32
    and casts: its rounding differs between the frameworks)."""
    for k in ("crash", "timeout"):
        if k in eto:
            return k, f"eagertape: {eto[k]}"
        if k in tfo:
            return k, f"TF: {tfo[k]}"
    if "raises" in tfo and "raises" in eto:
        if tfo["raises"] != eto["raises"]:
            return "error_class", f"TF {tfo['msg'][:150]} | eagertape {eto['msg'][:150]}"
        return None
    if "raises" in tfo or "raises" in eto:
        who = "TF" if "raises" in tfo else "eagertape"
        return "raises_vs_returns", f"{who} raises {(tfo if who == 'TF' else eto)['msg'][:200]}"
    return _cmp(tfo["returns"], eto["returns"], "result", loose)


def show(o):
    """An outcome in one line for reports."""
    if "returns" in o:
        return "returns " + _show(o["returns"])
    if "raises" in o:
        return "raises " + o["msg"][:240]
    return json.dumps(o)


def _show(x):
    k = _leaf_kind(x)
    if k == "None":
        return "None"
    if k in ("t", "np"):
        return _vals(x)
    if k == "py":
        return repr(x["v"])
    if k == "list":
        return "[" + ", ".join(_show(y) for y in x["list"]) + "]"
    if k == "tuple":
        return "(" + ", ".join(_show(y) for y in x["tuple"]) + ",)"
    if k == "dict":
        return "{" + ", ".join(f"{kk}: {_show(y)}" for kk, y in x["dict"]) + "}"
    if k == "nt":
        return x["nt"] + "(" + ", ".join(_show(y) for y in x["items"]) + ")"
    return str(x)


# ---------------------------------------------------------------------------------
# Known, deliberate differences (README, "Where eagertape differs from TensorFlow on
# purpose"). Each predicate gets (source, TF outcome, eagertape outcome).
# ---------------------------------------------------------------------------------
def _tf_raises(o, fam=None, text=""):
    return "raises" in o and (fam is None or o["raises"] == fam) and text in o["msg"]


def _leaves_differ(t, e, ok, paths=None):
    """True when the two result nests have the same structure and every leaf that
    differs satisfies ``ok(TF leaf, eagertape leaf)`` (and at least one differs).
    ``paths``: a list that gets each differing leaf's path (keys from the top)."""
    found = []

    def walk(a, b, path):
        ka, kb = _leaf_kind(a), _leaf_kind(b)
        if ka == kb and ka in ("list", "tuple"):
            return len(a[ka]) == len(b[kb]) and all(
                walk(x, y, path + [i]) for i, (x, y) in enumerate(zip(a[ka], b[kb])))
        if ka == kb == "dict":
            return ([k for k, _ in a["dict"]] == [k for k, _ in b["dict"]]
                    and all(walk(x, y, path + [k]) for (k, x), (_, y) in zip(a["dict"], b["dict"])))
        if ka == kb == "nt":
            return all(walk(x, y, path + [i]) for i, (x, y) in enumerate(zip(a["items"], b["items"])))
        if _cmp(a, b, "") is None:
            return True
        if paths is not None:
            paths.append(path)
        found.append(bool(ok(a, b)))
        return found[-1]
    return "returns" in t and "returns" in e and walk(t["returns"], e["returns"], []) and \
        bool(found) and all(found)


def _source_at(src, path, calls=None):
    """The name of the source whose gradient is at ``path`` of the program's result
    (the result of a ``.gradient``/``.jacobian`` call, indexed like its sources), or
    None where the path leads elsewhere. ``calls``: a list that gets that call."""
    try:
        body = ast.parse(src).body[0].body
    except (SyntaxError, IndexError, AttributeError):
        return None
    assigned = {}
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name):
            assigned[node.targets[0].id] = node.value
    node, path = body[-1].value if isinstance(body[-1], ast.Return) else None, list(path)
    in_sources = False
    while node is not None:
        if isinstance(node, ast.Name):
            if in_sources and not path:
                return node.id
            call = assigned.get(node.id)
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr in ("gradient", "jacobian", "batch_jacobian")
                    and len(call.args) >= 2) or in_sources:
                return None
            node, in_sources = call.args[1], True
            if calls is not None:
                calls.append(call)
            continue
        if not path:
            return None
        k, path = path[0], path[1:]
        if isinstance(node, (ast.List, ast.Tuple)) and isinstance(k, int) and k < len(node.elts):
            node = node.elts[k]
        elif isinstance(node, ast.Dict):
            keys = [repr(getattr(x, "value", None)) for x in node.keys]   # as results keep them
            node = node.values[keys.index(k)] if k in keys else None
        elif isinstance(node, ast.Call) and isinstance(k, int) and k < len(node.args):
            node = node.args[k]         # a namedtuple Pair(a, b)
        else:
            return None
    return None


def _zeros_vs_none(t, e, any_value=False):
    """True when every difference between the two result nests is a leaf that is
    zeros in TF and None in eagertape (and there is at least one); with
    ``any_value``, any value in TF."""
    return _leaves_differ(t, e, lambda a, b: (
        _leaf_kind(a) in ("t", "np") and _leaf_kind(b) == "None"
        and (any_value or all(v == 0 for v in a["v"]))))


def _nan_in_tf(t, e):
    """Every difference is a tensor where TF has NaN and eagertape a finite value
    (equal elsewhere)."""
    def ok(a, b):
        if not (_leaf_kind(a) in ("t", "np") and _leaf_kind(b) in ("t", "np")
                and a["shape"] == b["shape"]):
            return False
        x, y = _arr(a["v"]), _arr(b["v"])
        nan = np.isnan(x)
        return nan.any() and np.isfinite(y[nan]).all() and \
            np.allclose(x[~nan], y[~nan], rtol=1e-4, atol=1e-3)
    return _leaves_differ(t, e, ok)


def _zeros_in_tf(t, e):
    """Every difference is a tensor of zeros in TF and another value (same shape) in
    eagertape."""
    return _leaves_differ(t, e, lambda a, b: (
        _leaf_kind(a) in ("t", "np") and _leaf_kind(b) in ("t", "np")
        and a["shape"] == b["shape"] and all(v == 0 for v in a["v"])))


def _none_vs_value(t, e):
    """True when every difference between the two result nests is a leaf that is
    None in TF and a value in eagertape (and there is at least one)."""
    return _zeros_vs_none(e, t, any_value=True)


def _wrt_outputs(src, t, e):
    """Every difference is the gradient w.r.t. an op's output (not a constant or a
    Variable) of a nested gradient or JVP: None (or zeros) in eagertape, a value in TF."""
    if _nesting(src) < 2:
        return False
    paths = []
    def ok(a, b):
        kb = _leaf_kind(b)
        return _leaf_kind(a) in ("t", "np") and (kb == "None" or (
            ("ForwardAccumulator(" in src or "unconnected_gradients='zero'" in src)
            and kb in ("t", "np") and all(v == 0 for v in b["v"])))
    if not _leaves_differ(t, e, ok, paths):
        return False
    names = [_source_at(src, p) for p in paths]
    return all(n is not None and n[0] in "abgj" for n in names)


def _jvp_wrt_outputs(src, t, e):
    """Every difference is a value of the gradient of a JVP (a target named j...)
    w.r.t. an op's output computed inside the accumulator."""
    if "ForwardAccumulator(" not in src or _nesting(src) < 2:
        return False
    paths = []
    if not _leaves_differ(t, e, lambda a, b: _leaf_kind(a) in ("t", "np") and
                          _leaf_kind(b) in ("t", "np") and a["shape"] == b["shape"], paths):
        return False
    for p in paths:
        calls = []
        name = _source_at(src, p, calls)
        if name is None or name[0] not in "ab" or not any(
                isinstance(n, ast.Name) and n.id.startswith("j") for n in ast.walk(calls[-1].args[0])):
            return False
    return True


# Ops whose TF gradient function reads the op's output.
_READS_OUTPUT = ("tanh", "sigmoid", "exp", "sqrt", "rsqrt", "softmax", "log_softmax", "pow",
                 "relu", "elu", "selu")


def _wrt_output_reading_op(src, t, e):
    """Every difference is a value of a nested gradient w.r.t. the output of an op
    whose TF gradient reads that output (tanh, sigmoid, exp, ...): TF's has a term
    more than eagertape's, whose pullbacks read the op's inputs."""
    if _nesting(src) < 2:
        return False
    paths = []
    if not _leaves_differ(t, e, lambda a, b: _leaf_kind(a) in ("t", "np") and
                          _leaf_kind(b) in ("t", "np") and a["shape"] == b["shape"], paths):
        return False
    def reads_output(name):
        m = name and re.search(rf"\b{re.escape(name)} = tf\.(?:math\.|nn\.)?(\w+)\(", src)
        return bool(m) and m.group(1) in _READS_OUTPUT

    def wrt_reading(target, depth=3):
        # a gradient w.r.t. such an output, or a gradient of one (its difference
        # carried on)
        # (the sources: a name, or a tuple or list of names)
        m = re.search(rf"\b{re.escape(target)} = \w+\.gradient\((\w+), ([^\n]+)", src)
        return bool(m) and depth > 0 and (
            any(reads_output(n) for n in re.findall(r"\b(a\d+)\b", m.group(2)))
            or wrt_reading(m.group(1), depth - 1))
    for p in paths:
        calls = []
        name = _source_at(src, p, calls)
        if reads_output(name):
            continue
        target = calls[-1].args[0] if calls else None
        if not (isinstance(target, ast.Name) and wrt_reading(target.id)):
            return False
    return True


def _paused_reads_output(src):
    """An op whose TF gradient reads its output runs while an outer tape is paused."""
    for block in re.findall(r"\.stop_recording\(\):\n((?:\s{8,}.*\n)+)", src):
        if any(re.search(rf"tf\.(?:math\.|nn\.)?{n}\(", block)
               for n in _READS_OUTPUT + ("silu", "swish")):
            return True
    return False


def _raises_on_none(e):
    """eagertape raised on a None it was given (a target, an operand)."""
    return "raises" in e and e["raises"] in ("TypeError", "ValueError", "AttributeError") \
        and "None" in e["msg"]


def _wrt_intermediate(src):
    """A gradient or jacobian in ``src`` is taken with respect to an op's output."""
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("gradient", "jacobian", "batch_jacobian") and len(node.args) >= 2:
            if any(isinstance(n, ast.Name) and n.id[0] in "ab" for n in ast.walk(node.args[1])):
                return True
    return False


def _nesting(src):
    return src.count("GradientTape(") + src.count("ForwardAccumulator(")


_PIECEWISE = ("relu", "tf.abs(", "maximum(", "minimum(", "clip_by_value", "tf.where(",
              "reduce_max", "reduce_min")

def _as_float64(src):
    """``src`` with every float32 value made float64 (None where it has none)."""
    out = src.replace("tf.float32", "tf.float64").replace("np.float32", "np.float64")
    lines = []
    for line in out.split("\n"):
        m = re.match(r"^(\s*\w+ = tf\.(?:Variable|constant)\()(.*)\)$", line)
        if m and "dtype" not in m.group(2) and "." in m.group(2):
            line = f"{m.group(1)}{m.group(2)}, dtype=tf.float64)"
        lines.append(line)
    out = "\n".join(lines)
    return None if out == src else out


def _variable_argument_to_custom(src):
    """A custom_gradient function called on a Variable, or on a cast of a float32
    Variable to float32 (TF returns the Variable itself)."""
    if re.search(r"\bcg\d+\(v\d+\)", src):
        return True
    float32_vars = {m.group(1) for m in re.finditer(r"\b(v\d+) = tf\.Variable\(([^\n]*)\)\n", src)
                    if "dtype" not in m.group(2)}
    aliases = {m.group(1) for m in re.finditer(r"\b(a\d+) = tf\.cast\((v\d+), tf\.float32\)", src)
               if m.group(2) in float32_vars}
    return any(re.search(rf"\bcg\d+\({a}\)", src) for a in aliases)


KNOWN = {
    # README "output_gradients" (facts 106-107): a scalar cotangent broadcasts to the
    # target's shape, and one of another dtype than its target's raises
    # InvalidArgumentError. TF checks neither: whether it raises depends on the op's
    # gradient function (Mul refuses an int cotangent, Maximum takes it).
    "output_gradients_checked": lambda src, t, e: (
        "output_gradients=" in src
        and ((_tf_raises(t, "InvalidArgumentError") and (
            "returns" in e or _tf_raises(e, "RuntimeError", "non-persistent")))
             or _tf_raises(e, "InvalidArgumentError", "output_gradients")
             or ("returns" in t and "returns" in e and compare(t, e)[0] == "shape"))),
    # README "TF's own failures": forward mode through a tf.function fails inside TF
    # (a tape around it: "returned too few gradients"; a Variable argument: "a
    # variable without handle data"); eagertape computes the JVP.
    # With a tape around the accumulator and no failure, TF's JVP of a function call
    # is not recorded on the tape: the gradient of the JVP is None (d/dx of the JVP
    # of x * x is 2 * tangent; eagertape gives it).
    "tf_function_forward_mode_bug": lambda src, t, e: (
        "tf.function" in src and "ForwardAccumulator" in src
        and (("returns" in e and (
            _tf_raises(t, "InternalError", "returned too few gradients")
            # TF's own error constructing that InternalError fails
            or _tf_raises(t, "TypeError", "InternalError.__init__() missing")
            # a Variable captured by the function, under a tape and an accumulator
            or _tf_raises(t, "TypeError", "is out of scope and cannot be used here")))
             or _tf_raises(t, text="variable without handle data")
             or ("GradientTape(" in src and (_none_vs_value(t, e) or _zeros_in_tf(t, e)))
             # that None JVP given to a tape as its target
             or ("GradientTape(" in src and "returns" in e
                 and _tf_raises(t, "TypeError", "received None"))
             # the gradient of a JVP missing the terms through the function call
             or ("returns" in t and "returns" in e and re.search(r"\.gradient\(j\d+", src)
                 and compare(t, e)[0] == "value"))),
    # README "TF's own failures": the alias TF's assign returns (_UnreadVariable) is
    # refused by TF ops inside a custom_gradient's grad_fn; eagertape computes.
    # Passed to a tf.function, the alias fails TF's gradient through the function
    # ("Can not convert a NoneType").
    "tf_unread_variable_bug": lambda src, t, e: (
        ".assign" in src and (_tf_raises(t, text="_UnreadVariable") or (
            # nor does it fix an op's dtype after a Python number (TF's C++ fast
            # path does not take it for a Variable): tf.minimum(1.7, alias)
            _tf_raises(t, "ValueError", "Incompatible type conversion requested")
            and "UnreadVariable" in t["msg"]) or (
            "tf.function" in src
            and _tf_raises(t, "TypeError", "Can not convert a NoneType into a Tensor")))),
    # README "Clearer errors where TF's are accidents": batch_jacobian of a target
    # whose first dimension is not the source's: eagertape raises TF's own ValueError
    # ("Need first dimension of target shape ... to match") where TF's check passes
    # and a reshape inside fails (InvalidArgumentError).
    "batch_jacobian_batch_mismatch": lambda src, t, e: (
        "batch_jacobian(" in src and _tf_raises(t, "InvalidArgumentError", "Input to reshape")
        and _tf_raises(e, "ValueError", "Need first dimension")),
    # README "Variable.assign* on a non-trainable Variable": TF's alias is trainable,
    # so passed to a tf.function it makes a tape watch the Variable; eagertape's alias
    # is as trainable as its Variable.
    "assign_alias_of_non_trainable": lambda src, t, e: (
        "trainable=False" in src and ".assign" in src and "returns" in t
        and (_tf_raises(e, "TypeError", "received None")
             or ("returns" in e and _none_vs_value(t, e)))),
    # README "Errors inside tf.function": TF's graph mode raises TypeError for operands
    # of two dtypes where its eager mode raises InvalidArgumentError; eagertape raises
    # InvalidArgumentError in both, which is also a TypeError.
    "graph_mode_dtype_error": lambda src, t, e: (
        "tf.function" in src and _tf_raises(t, "TypeError", "does not match type")
        and _tf_raises(e, "InvalidArgumentError")),
    # README "Forward mode through custom_gradient inside tf.function": JAX cannot
    # forward-differentiate the jax.custom_vjp that stands for it there.
    "forward_mode_custom_gradient_in_function": lambda src, t, e: (
        "tf.function" in src and "custom_gradient" in src and "ForwardAccumulator" in src
        and (_tf_raises(e, text="custom_vjp") or _tf_raises(e, text="'custom_lin'"))),
    # README "Gradients that read an op's output", a paused tape: TF's gradient functions of
    # sigmoid, tanh, exp, sqrt, ... read the op's outputs, which the paused outer tape
    # did not record, so its higher-order gradient is None; eagertape's pullbacks read
    # the op's inputs, which it did record.
    # Also when a later step of the program uses that None and raises in TF.
    "paused_outer_tape": lambda src, t, e: (
        ".stop_recording()" in src and src.count("GradientTape(") >= 2 and "returns" in e
        and (("returns" in t and _none_vs_value(t, e))
             # or a value short of the terms through such an output (silu: a sigmoid)
             or ("returns" in t and compare(t, e)[0] == "value" and _paused_reads_output(src))
             or _tf_raises(t, "TypeError", "received None")
             # TF's jacobian of that None
             or _tf_raises(t, "AttributeError", "'NoneType' object has no attribute 'shape'"))),
    # README "Gradients that read an op's output": TF's
    # gradient functions of sigmoid, tanh, exp, sqrt, softmax, pow, ... read the op's
    # output, so an outer gradient (or a gradient of a JVP) with respect to that
    # output has a value in TF; eagertape's pullbacks read the op's inputs, and the
    # same gradient is None (zeros through a JVP). Every other value agrees.
    # Also when a later step of the program uses that None and raises.
    # And TF's JVP of such an op is built from its backward function, so it reads
    # the op's output too: the gradient of a JVP w.r.t. that output has a term
    # more in TF (d/da of log(a)'s JVP is twice eagertape's for a = norm(x)).
    "backward_reads_outputs": lambda src, t, e: _wrt_outputs(src, t, e) or _jvp_wrt_outputs(
        src, t, e) or _wrt_output_reading_op(src, t, e) or (
        "returns" in t and _raises_on_none(e) and _nesting(src) >= 2
        and _wrt_intermediate(src)),
    # README "TF's own failures": TF's second derivative of reduce_prod where a factor
    # is exactly zero is half the derivative (its gradient's cumprod form);
    # eagertape's is jax.grad's.
    "tf_reduce_prod_at_zero": lambda src, t, e: (
        "tf.reduce_prod(" in src and _nesting(src) >= 2 and "returns" in t and "returns" in e
        and compare(t, e)[0] == "value"),
    # README "TF's own failures": TF's Pow gradient at x = 0 computes 0 * 0 ** -1 at
    # third order, NaN; eagertape gives the derivative's value.
    "tf_pow_nan_at_zero": lambda src, t, e: (
        ("**" in src or "tf.pow(" in src) and _nan_in_tf(t, e)),
    # README "TF's own failures": a Variable passed straight to a custom_gradient
    # function, under a tape around a ForwardAccumulator: TF's gradient of the JVP
    # drops the term through the custom op's output (a Tensor argument gives the
    # full derivative in TF too, and eagertape's answer for both).
    # (TF's tf.cast to a Variable's own dtype returns the Variable itself: the same.)
    "tf_custom_gradient_variable_argument": lambda src, t, e: (
        "ForwardAccumulator(" in src and _variable_argument_to_custom(src)
        and "returns" in t and "returns" in e and compare(t, e)[0] == "value"),
    # README "None or zeros beyond first order", through a tf.function: TF's backward
    # of a function is itself a function, whose connectivity to what the function
    # captured (a Variable read inside) is TF's graph's; eagertape's is the jaxpr's.
    # Also when a later step of the program uses that None and raises.
    # The same for the JVP of a gradient through a tf.function (TF's backward
    # function reads the forward values its op gradients read, which carry the
    # function call's zero tangents: p * 2.0, matmul; not p + 1.0, reduce_mean).
    "function_higher_order": lambda src, t, e: (
        "tf.function" in src and _nesting(src) >= 2 and "GradientTape(" in src
        and "returns" in t and (("returns" in e and _zeros_vs_none(t, e)) or _raises_on_none(e))),
    # README "None or zeros beyond first order": where TF's gradient function reads a
    # forward value the JAX derivative does not depend on, TF's outer gradient is
    # zeros and eagertape's None; every other value agrees.
    "piecewise_linear_second_derivative": lambda src, t, e: (
        "returns" in t and "returns" in e and any(p in src for p in _PIECEWISE)
        and (src.count("GradientTape(") + src.count("ForwardAccumulator(")) >= 2
        and _zeros_vs_none(t, e)),
    # README "Clearer errors where TF's are accidents [X]" (facts 18, 19, 40, 41): a
    # None or non-tensor where a Tensor is wanted is a TypeError naming the argument;
    # TF fails on an attribute lookup. The same accident in ``acc.jvp(None)``.
    "non_tensor_argument": lambda src, t, e: (
        _tf_raises(e, "TypeError") and "raises" in t
        and any(m in t["msg"] for m in ("has no attribute '_id'", "has no attribute 'dtype'",
                                        "Cannot convert the argument `type_value`"))),
    # README "Not yet: IndexedSlices (gradients are always dense)": TF's gradient through
    # gather is an IndexedSlices, which TF's operators refuse where eagertape's dense
    # gradient computes (reference fact 112).
    "indexed_slices": lambda src, t, e: (
        "tf.gather(" in src and _tf_raises(t, text="IndexedSlices") and "returns" in e),
}


# ---------------------------------------------------------------------------------
# Minimiser
# ---------------------------------------------------------------------------------
def _block_end(lines, i):
    """Index after the block whose header is line i."""
    ind = len(lines[i]) - len(lines[i].lstrip())
    j = i + 1
    while j < len(lines) and (len(lines[j]) - len(lines[j].lstrip()) > ind
                              or lines[j].lstrip().startswith(("else:", "elif"))):
        j += 1
    return j


def _candidates(src):
    lines = src.rstrip("\n").split("\n")
    head, body = lines[:1], lines[1:]
    # whole blocks first (big steps), then single lines, then dedented block bodies
    for i in range(len(body)):
        if body[i].rstrip().endswith(":"):
            j = _block_end(body, i)
            yield "\n".join(head + body[:i] + body[j:]) + "\n"
    for i in range(len(body)):
        if not body[i].lstrip().startswith("return "):
            yield "\n".join(head + body[:i] + body[i + 1:]) + "\n"
    for i in range(len(body)):
        line = body[i]
        if line.rstrip().endswith(":") and line.lstrip().startswith(("with ", "if ")):
            j = _block_end(body, i)
            inner = [b[4:] for b in body[i + 1:j] if not b.lstrip().startswith("else:")]
            if any(b.lstrip().startswith("else:") for b in body[i + 1:j]):
                k = next(k for k in range(i + 1, j) if body[k].lstrip().startswith("else:"))
                inner = [b[4:] for b in body[i + 1:k]]
            yield "\n".join(head + body[:i] + inner + body[j:]) + "\n"
    # the return nest replaced by each of its elements, or by None
    for i, line in enumerate(body):
        s = line.lstrip()
        if line.startswith("    return ") and s != "return None":   # the program's own return
            yield "\n".join(head + body[:i] + [line[:len(line) - len(s)] + "return None"]
                            + body[i + 1:]) + "\n"
            try:
                node = ast.parse(s[len("return "):], mode="eval").body
            except SyntaxError:
                continue
            elts = []
            if isinstance(node, (ast.List, ast.Tuple)):
                elts = node.elts
            elif isinstance(node, ast.Dict):
                elts = node.values
            for e in elts:
                yield "\n".join(head + body[:i] + [line[:len(line) - len(s)] + "return " + ast.unparse(e)]
                                + body[i + 1:]) + "\n"


_BROKEN = ("NameError", "UnboundLocalError", "SyntaxError")


def minimise(source, mode, fuzzer=None, budget_s=120.0):
    """The smallest program (by lines, then by length) found that still mismatches
    with the same class, deleting lines and blocks and simplifying the return."""
    own = fuzzer is None
    fuzzer = fuzzer or Fuzzer()
    try:
        cls = fuzzer.check(source, mode)[0]
        if cls is None:
            return source
        best, deadline = source, time.time() + budget_s
        improved = True
        while improved and time.time() < deadline:
            improved = False
            for cand in _candidates(best):
                if time.time() > deadline:
                    break
                try:
                    compile(cand, "<program>", "exec")
                except SyntaxError:
                    continue
                c, _, tfo, eto = fuzzer.check(cand, mode)
                # A program that no longer runs (a name deleted with its line)
                # mismatches for another reason than the original.
                if c == cls and not any(o.get("raises") in _BROKEN for o in (tfo, eto)):
                    best, improved = cand, True
                    break
        # indentation left uneven by deleted block headers, made regular
        tidy = ast.unparse(ast.parse(best)) + "\n"
        if tidy != best and fuzzer.check(tidy, mode)[0] == cls:
            best = tidy
        return best
    finally:
        if own:
            fuzzer.close()


# ---------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------
def run(seeds, modes, fuzzer, progress=None):
    """{mode: {class: [seed, ...]}} over the seeds."""
    res = {m: {} for m in modes}
    for k, s in enumerate(seeds):
        src = program(s)
        for m in modes:
            cls = fuzzer.check(src, m)[0]
            if cls is not None:
                res[m].setdefault(cls, []).append(s)
        if progress and (k + 1) % progress == 0:
            print(f"  {k + 1}/{len(seeds)} programs", file=sys.stderr, flush=True)
    return res


def _median(xs):
    xs = sorted(x for x in xs if x is not None)
    return xs[len(xs) // 2] if xs else float("nan")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--modes", default="eager,fused")
    p.add_argument("--jobs", type=int, default=1, help="worker pairs run in parallel")
    p.add_argument("--minimize", "--minimise", action="store_true")
    p.add_argument("--examples", type=int, default=3, help="minimised examples per class")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--report", help="write the report (markdown) to this file")
    p.add_argument("--show", type=int, help="print the program of this seed and exit")
    p.add_argument("--seed", type=int, help="run the program of this seed and print both outcomes")
    p.add_argument("--file", help="run the program in this file (def program(tf, np)) likewise")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        return _worker(a.worker)
    if a.show is not None:
        print(program(a.show))
        return
    modes = [m for m in a.modes.split(",") if m]
    if a.seed is not None or a.file:
        f = Fuzzer(a.timeout)
        src = open(a.file).read() if a.file else program(a.seed)
        print(src)
        for m in modes:
            cls, d, t, e = f.check(src, m)
            print(f"[{m}] {cls or 'agree'} {d}\n  TF:        {show(t)}\n  eagertape: {show(e)}")
        f.close()
        return
    seeds = list(range(a.start, a.start + a.n))
    t0 = time.time()
    fuzzers = [Fuzzer(a.timeout) for _ in range(max(1, a.jobs))]
    if len(fuzzers) == 1:
        res = run(seeds, modes, fuzzers[0], progress=50)
    else:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(len(fuzzers)) as ex:
            parts = list(ex.map(lambda i: run(seeds[i::len(fuzzers)], modes, fuzzers[i], 50),
                                range(len(fuzzers))))
        res = {m: {} for m in modes}
        for part in parts:
            for m in modes:
                for c, ss in part[m].items():
                    res[m].setdefault(c, []).extend(sorted(ss))
    elapsed = time.time() - t0
    times = {k: [x for f in fuzzers for x in f.times[k]] for k in ("tf", "et")}
    out = [f"# TF-differential fuzz: seeds {a.start}..{a.start + a.n - 1}, modes {', '.join(modes)}",
           "", f"{elapsed:.0f} s in all; per program (median / mean): TF "
           f"{_median(times['tf']):.3f} / {np.nanmean([x for x in times['tf'] if x] or [np.nan]):.3f} s, "
           f"eagertape {_median(times['et']):.3f} / {np.nanmean([x for x in times['et'] if x] or [np.nan]):.3f} s", "",
           "| class | " + " | ".join(modes) + " |", "|---|" + "---|" * len(modes)]
    classes = sorted({c for m in modes for c in res[m]}, key=lambda c: (c.startswith("known:"), c))
    for c in classes:
        out.append(f"| {c} | " + " | ".join(str(len(res[m].get(c, []))) for m in modes) + " |")
    fails = sum(len(v) for m in modes for c, v in res[m].items() if not c.startswith("known:"))
    out.append(f"| **failures** | " + " | ".join(
        str(sum(len(v) for c, v in res[m].items() if not c.startswith("known:"))) for m in modes) + " |")
    out.append("")
    for c in classes:
        if c.startswith("known:"):
            continue
        out.append(f"## {c}")
        for m in modes:      # every seed, to run again with --seed
            out.append(f"{m}: seeds " + ", ".join(str(x) for x in sorted(res[m].get(c, []))))
        done = set()
        for m in modes:
            for s in res[m].get(c, [])[:a.examples]:
                if s in done:
                    continue
                done.add(s)
                src = program(s)
                if a.minimize:
                    src = minimise(src, m, fuzzers[0])
                cls, d, t, e = fuzzers[0].check(src, m)
                out += ["", f"seed {s}, {m} mode: {d}", "```python", src.rstrip(), "```",
                        f"- TF: {show(t)}", f"- eagertape: {show(e)}"]
        out.append("")
    for f in fuzzers:
        f.close()
    text = "\n".join(out)
    print(text)
    if a.report:
        with open(a.report, "w") as fh:
            fh.write(text + "\n")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
