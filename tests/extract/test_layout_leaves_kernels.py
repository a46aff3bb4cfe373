"""The leaf-ordering rules' kernels (extract/layout/kernels.py, leaves section;
extract/_layout.c, "leaves kernels") against their reference, and the closed
forms leaves.py computes in place of a general pass over an n x n relation.

Inputs tie on a coarse grid, touch the slack exactly, and hold NaN, infinite
and negative-zero edges (a run of blanks has infinite boxes); both paths of
each kernel give the same result, and the reference gives the rule's own
definition (np.ptp over the concatenated runs, kahn over _with_bands).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from ragprep.extract import native
from ragprep.extract.layout import kernels
from ragprep.extract.layout.leaves import _band_order, _with_bands
from test_layout_kernels import _boxes as unit_boxes

LIB = native._layout


def _edges(rng: np.random.Generator, n: int, special: bool) -> np.ndarray:
    """Edges on a grid of ROW_OVERLAP-like steps (ties and spans equal to
    the slack), some NaN, infinite or -0.0 where `special`."""
    edge = rng.integers(-4, 12, n).astype(np.float64) * 0.5
    if special and n > 2:
        picked = rng.choice(n, size=max(1, n // 6), replace=False)
        for k, value in zip(picked.tolist(), (np.nan, np.inf, -np.inf, -0.0, 0.0, np.nan), strict=False):
            edge[k] = value
    return edge


def _cases() -> Iterator[tuple[np.random.Generator, int, bool]]:
    for seed in range(80):
        rng = np.random.default_rng(seed)
        yield rng, int(rng.integers(1, 60)), seed % 3 == 0


def _runs(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    ids = rng.permutation(n).astype(np.int64)
    cuts = np.sort(rng.choice(np.arange(1, n), size=min(n - 1, int(rng.integers(0, n))), replace=False)) if n > 1 else []
    return [run for run in np.split(ids, cuts) if len(run)]


def _visits_by_definition(edge: np.ndarray, runs: list[np.ndarray], slack: float) -> list[int]:
    """leaves._flush_right_visits as first written: a run joins the group
    before it where np.ptp of the two's edges is at most the slack."""
    out: list[np.ndarray] = []
    ends: list[int] = []
    for r, run in enumerate(runs):
        with np.errstate(invalid="ignore"):
            joins = bool(out) and float(np.ptp(edge[np.concatenate([out[-1], run])])) <= slack
        if joins:
            out[-1] = np.concatenate([out[-1], run])
            ends[-1] = r + 1
        else:
            out.append(run)
            ends.append(r + 1)
    return ends


def test_flush_visits_is_the_ptp_rule_compiled_and_pure():
    seen_join = seen_apart = seen_special = False
    for rng, n, special in _cases():
        edge = _edges(rng, n, special)
        runs = _runs(rng, n)
        for slack in (0.0, 1.0, 2.5, np.nan):
            expected = _visits_by_definition(edge, runs, slack)
            with np.errstate(invalid="ignore"):
                reference = kernels.flush_visits(None, edge, runs, slack)
            assert reference.tolist() == expected
            if LIB is not None:
                assert kernels.flush_visits(LIB, edge, runs, slack).tolist() == expected
            seen_join |= len(expected) < len(runs)
            seen_apart |= len(expected) > 1
            seen_special |= special and len(expected) < len(runs)
    assert seen_join and seen_apart and seen_special


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
def test_flush_visits_is_bounds_checked():
    edge = np.zeros(3)
    with pytest.raises(IndexError):
        LIB.flush_visits(edge, np.array([0, 3], dtype=np.int64), np.array([2], dtype=np.int64), 1.0)
    with pytest.raises(ValueError, match="do not add up"):
        LIB.flush_visits(edge, np.array([0, 1], dtype=np.int64), np.array([1], dtype=np.int64), 1.0)
    with pytest.raises(ValueError, match="bad run lengths"):
        LIB.flush_visits(edge, np.array([0, 1], dtype=np.int64), np.array([0, 2], dtype=np.int64), 1.0)
    with pytest.raises(TypeError):
        LIB.flush_visits(edge, np.array([0, 1], dtype=np.int32), np.array([2], dtype=np.int64), 1.0)


def test_band_order_is_kahn_over_the_bands_alone():
    # Top and bottom runs chosen at random, overlapping (a run in both
    # bands), in run order as top_and_bottom lists them and out of it.
    seen = np.zeros(3, dtype=bool)
    for rng, n, _ in _cases():
        for _ in range(4):
            top = sorted(rng.choice(n, size=int(rng.integers(0, min(n, 4) + 1)), replace=False).tolist())
            bottom = sorted(rng.choice(n, size=int(rng.integers(0, min(n, 4) + 1)), replace=False).tolist())
            if rng.random() < 0.3:
                top, bottom = top[::-1], bottom[::-1]
            furniture = (top, bottom)
            other = ~np.eye(n, dtype=bool)
            expected = kernels.kahn(None, _with_bands(np.zeros((n, n), dtype=bool), furniture, other))
            assert expected is not None
            assert _band_order(n, furniture) == expected
            seen |= (len(top) > 1, len(set(top) & set(bottom)) > 0, len(bottom) > 1)
    assert seen.all()


def _boxes(rng: np.random.Generator, n: int, special: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The layout kernels' test boxes (coarse grid: edges tie, steps equal
    the thresholds; NaN and infinite edges where `special`: a run of blanks
    has infinite boxes), with a -0.0 left edge among them."""
    x0, x1, y0, y1 = unit_boxes(rng, n, special)
    if special and n > 3:
        x0[int(rng.integers(0, n))] = -0.0
    return x0, x1, y0, y1


def test_pass_cuts_agree():
    seen = np.zeros(2, dtype=bool)
    for rng, n, special in _cases():
        box = _boxes(rng, n, special)
        ids = rng.permutation(n).astype(np.int64)
        for rtl in (False, True):
            for thresholds in ((0.22, 1.5, 3.0, 6.0, 2.5), (0.22, 0.0, 0.0, 0.0, 0.0), (0.22, np.nan, 1.5, np.inf, 2.5)):
                reference = kernels.pass_cuts(None, box, ids, *thresholds, rtl)
                if LIB is not None:
                    assert np.array_equal(kernels.pass_cuts(LIB, box, ids, *thresholds, rtl), reference)
                seen |= (len(reference) > 0, len(reference) < n - 1)
    assert seen.all()


def test_components_agree():
    # Components of random edges (repeated, self-loops, none), each labelled
    # by its smallest node: the labels of a union-find by definition.
    for rng, n, _ in _cases():
        edges = int(rng.integers(0, 2 * n))
        src, dst = rng.integers(0, n, edges).astype(np.int64), rng.integers(0, n, edges).astype(np.int64)
        reference = kernels.components(None, n, src, dst)
        reach = np.eye(n, dtype=bool)
        reach[src, dst] = reach[dst, src] = True
        for _ in range(6):  # squaring: paths of up to 64 edges, n < 64
            reach = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
        assert reference.tolist() == [int(np.flatnonzero(row)[0]) for row in reach]
        if LIB is not None:
            assert np.array_equal(kernels.components(LIB, n, src, dst), reference)


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
def test_pass_cuts_and_components_are_bounds_checked():
    y = np.zeros(3)
    with pytest.raises(IndexError):
        LIB.pass_cuts(y, y, y, y, np.array([0, 3], dtype=np.int64), 0.2, 0.1, 0.1, 0.1, 0.1, False)
    with pytest.raises(ValueError, match="differ in length"):
        LIB.pass_cuts(y, y, y, np.zeros(2), np.array([0, 1], dtype=np.int64), 0.2, 0.1, 0.1, 0.1, 0.1, False)
    with pytest.raises(IndexError):
        LIB.components(3, np.array([0, 3], dtype=np.int64), np.array([1, 1], dtype=np.int64))
    with pytest.raises(IndexError):
        LIB.components(3, np.array([0], dtype=np.int64), np.array([-1], dtype=np.int64))
    with pytest.raises(ValueError, match="differ in length"):
        LIB.components(3, np.array([0, 1], dtype=np.int64), np.array([1], dtype=np.int64))
    with pytest.raises(ValueError, match="negative"):
        LIB.components(-1, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
