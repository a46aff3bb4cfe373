"""Affine matrices and boxes: the small geometry every reader of a page shares.

One definition of each, imported by the interpreter, the path recorder, the
page boxes and the benchmarks, so a matrix means the same thing everywhere.
Imports nothing: any module of extract can use it without a cycle.
"""

from __future__ import annotations

# (a, b, c, d, e, f): row-vector affine matrices, [x y 1] x M (§8.3.3).
Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
# (x0, y0, x1, y1) in user space, x0 <= x1 and y0 <= y1 when normalised.
Box = tuple[float, float, float, float]


def multiply(m: Matrix, n: Matrix) -> Matrix:
    """m x n: apply m first, then n (§8.3.4)."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (
        a * A + b * C,
        a * B + b * D,
        c * A + d * C,
        c * B + d * D,
        e * A + f * C + E,
        e * B + f * D + F,
    )


def intersect(p: Box, q: Box) -> Box:
    """The overlap of two boxes; empty (x0 > x1 or y0 > y1) when they do not meet."""
    return max(p[0], q[0]), max(p[1], q[1]), min(p[2], q[2]), min(p[3], q[3])


def is_empty(box: Box) -> bool:
    return not (box[0] < box[2] and box[1] < box[3])
