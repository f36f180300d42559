"""The walk-through of the "TensorFlow Eager Mode" tutorial: the 4-box hypersurface f4
and its gradient, by reverse mode written out by hand, by a tape, and by finite differences.

    python examples/hypersurface.py
"""
import numpy

import eagertape.tf as tf


def f4(abcd):
    """Hyperbox-hypersurface-area."""
    return 2.0 * sum(abcd[i] * abcd[j] * abcd[k]
                     for (i, j, k) in [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)])


def grad_f4(abcd):
    """Reverse mode by hand: one sensitivity per intermediate, worked backwards."""
    t_a, t_b, t_c, t_d = abcd
    # forward: the intermediates f4 needs
    t_ab, t_cd = t_a * t_b, t_c * t_d
    # backward: s_X = d(area)/d(X), starting from s_area = 1, area = 2 * (sum of 4 products)
    s_sum = 2.0
    s_abc = s_abd = s_acd = s_bcd = s_sum
    s_a = t_cd * s_acd
    s_b = t_cd * s_bcd
    s_cd = t_b * s_bcd + t_a * s_acd
    s_ab = t_d * s_abd + t_c * s_abc
    s_c = t_ab * s_abc + t_d * s_cd
    s_d = t_ab * s_abd + t_c * s_cd
    s_a += t_b * s_ab
    s_b += t_a * s_ab
    return [s_a, s_b, s_c, s_d]


def finite_differences(f, x, eps=1e-6):
    x = numpy.asarray(x, dtype=numpy.float64)
    return [(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in numpy.eye(len(x))]


def main():
    p0 = tf.Variable([1.0, 2.0, 3.0, 4.0])
    with tf.GradientTape() as tape:
        area = f4(p0)
    (by_tape,) = tape.gradient(area, [p0])
    print("f4([1, 2, 3, 4]) =", float(area))
    print("f4([3, 4, 5, 6]) =", float(f4(tf.Variable([3.0, 4.0, 5.0, 6.0]))))
    print("reverse mode by hand:  ", grad_f4([1.0, 2.0, 3.0, 4.0]))
    print("tape.gradient:         ", by_tape.numpy().tolist())
    print("finite differences:    ", [round(float(g), 6) for g in finite_differences(f4, [1, 2, 3, 4])])
    assert by_tape.numpy().tolist() == grad_f4([1.0, 2.0, 3.0, 4.0]) == [52.0, 38.0, 28.0, 22.0]


if __name__ == "__main__":
    main()
