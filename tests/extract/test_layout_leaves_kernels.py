"""The leaf-ordering rules' kernels (extract/layout/kernels.py, leaves section;
extract/_layout.c, "leaves kernels") against their reference, and the closed
forms leaves.py computes in place of a general pass over an n x n relation.

Inputs tie on a coarse grid, touch the slack exactly, and hold NaN, infinite
and negative-zero edges (a run of blanks has infinite boxes); both paths of
each kernel give the same result, and the reference gives the rule's own
definition (np.ptp over the concatenated runs, kahn over _with_bands).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from ragprep.extract import native
from ragprep.extract.layout import kernels
from ragprep.extract.layout.leaves import _band_order, _with_bands
from corpusdir import corpus_paths
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
    # A node count whose bytes no size holds (n * 8 wrapped: room for none, n
    # written; found by fuzz/kernel_fuzz.py's hostile arguments under ASan).
    with pytest.raises(MemoryError):
        LIB.components(2**62, np.array([0], dtype=np.int64), np.array([1], dtype=np.int64))


def _bitwise(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal to the bit, NaN and the sign of zero included."""
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _pairs_by_definition(box: tuple[np.ndarray, ...], runs: list[np.ndarray], thresholds: tuple[float, ...]) -> list[tuple[int, int, int, int]]:
    """leaves._merge_grids' candidate pairs as first written, pair by pair:
    (i, j, shared, lines of the shorter run) for runs i < j both narrower
    than `narrow` and apart within `tol`, `shared` the shorter run's lines
    (run i's where they tie) within `same_row` of the baseline of a line of
    the other; they link where shared is more than half of its lines."""
    x0, x1, y0, y1 = box
    descent, same_row, narrow, tol = thresholds
    base = kernels.baselines(y0, y1, descent)
    pairs = []
    for i, j in zip(*np.triu_indices(len(runs), 1), strict=True):
        a, b = runs[i], runs[j]
        if not (x1[a].max() - x0[a].min() < narrow and x1[b].max() - x0[b].min() < narrow):
            continue
        if not (x1[a].max() <= x0[b].min() + tol or x1[b].max() <= x0[a].min() + tol):
            continue
        short, other = (a, b) if len(a) <= len(b) else (b, a)
        with np.errstate(invalid="ignore"):
            shared = sum(bool(np.any(np.abs(base[other] - base[k]) <= same_row) or (np.isnan(base[k]) and np.isnan(base[other]).any())) for k in short)
        pairs.append((int(i), int(j), shared, len(short)))
    return pairs


def test_grid_links_agree_and_are_the_pair_rule():
    seen = np.zeros(4, dtype=bool)  # a link; a pair at exactly half (no link); a NaN run box; a -0.0 edge linked
    for rng, n, special in _cases():
        box = _boxes(rng, max(n, 1), special)
        runs = _runs(rng, max(n, 1))
        for thresholds in ((0.22, 1.5, 20.0, 2.5), (0.22, 0.0, 0.0, 0.0), (0.22, np.nan, np.inf, np.nan), (0.22, 3.0, 40.0, -0.0)):
            with np.errstate(invalid="ignore"):
                reference = kernels.grid_links(None, box, runs, *thresholds)
                pairs = _pairs_by_definition(box, runs, thresholds) if np.isfinite(thresholds[1]) else None
            if pairs is not None:
                assert reference.links.tolist() == [[i, j, shared] for i, j, shared, lines in pairs if shared * 2 > lines]
                seen[1] |= any(shared * 2 == lines for _, _, shared, lines in pairs)
            if LIB is not None:
                compiled = kernels.grid_links(LIB, box, runs, *thresholds)
                # Equal but for the sign of a zero edge (np.minimum.reduceat of
                # -0.0 and 0.0 gives either; run_boxes' kernel the same).
                assert all(np.array_equal(c, r, equal_nan=True) for c, r in zip(compiled.box, reference.box, strict=True))
                assert _bitwise(compiled.links, reference.links)
            seen[0] |= len(reference.links) > 0
            seen[2] |= bool(np.isnan(reference.box[1]).any()) and len(runs) > 1
            seen[3] |= special and any(np.signbit(box[0][np.concatenate([runs[i], runs[j]])]).any() for i, j, _ in reference.links.tolist())
    assert seen.all()


def _groups_by_definition(box: tuple[np.ndarray, ...], member: np.ndarray, links: tuple[np.ndarray, np.ndarray], thresholds: tuple[float, ...], rtl: bool) -> list[int]:
    """leaves._merge_grids' groups as first written: a pair i < j of runs
    joins where it is linked, or one lies above the other and they are not
    apart, and both are members or one is and they are stacked at a cell's
    leading on the edge lines start from (the right one `rtl`); per run the
    smallest run it is joined to."""
    x0, y0, x1, y1 = box
    stacked, tol, leading, edge = thresholds
    start = -x1 if rtl else x0
    n = len(x0)
    joined = np.eye(n, dtype=bool)
    joined[links[0], links[1]] = joined[links[1], links[0]] = True
    with np.errstate(invalid="ignore"):
        for i in range(n):
            for j in range(i + 1, n):
                above = y0[i] >= y1[j] - stacked or y0[j] >= y1[i] - stacked
                apart = x1[i] <= x0[j] + tol or x1[j] <= x0[i] + tol
                tight = (abs(y0[i] - y1[j]) <= leading or abs(y0[j] - y1[i]) <= leading) and abs(start[i] - start[j]) <= edge
                if above and not apart and ((member[i] and member[j]) or (tight and (member[i] or member[j]))):
                    joined[i, j] = joined[j, i] = True
    for _ in range(7):  # squaring: paths of up to 128 runs
        joined = (joined.astype(np.int64) @ joined.astype(np.int64)) > 0
    return [int(np.flatnonzero(row)[0]) for row in joined]


def test_grid_groups_agree_and_are_the_column_rule():
    seen = np.zeros(4, dtype=bool)  # joined by stacking alone; by a tight pair; runs left apart; rtl edges decide
    for rng, n, special in _cases():
        x0, x1, y0, y1 = _boxes(rng, n, special)
        box = (x0, y0, x1, y1)
        member = rng.random(n) < 0.5
        count = int(rng.integers(0, n + 1)) if n else 0
        links = (rng.integers(0, max(n, 1), count).astype(np.int64), rng.integers(0, max(n, 1), count).astype(np.int64))
        none = (links[0][:0], links[1][:0])
        for thresholds in ((1.5, 2.5, 3.0, 2.5), (0.0, 0.0, 0.0, 0.0), (np.nan, np.inf, np.nan, np.inf), (-0.0, 2.5, 1.5, -0.0)):
            slack, cell = thresholds[:2], thresholds[2:]
            for rtl in (False, True):
                reference = kernels.grid_groups(None, box, member, links, slack, cell, rtl)
                assert reference.tolist() == _groups_by_definition(box, member, links, thresholds, rtl)
                if LIB is not None:
                    assert _bitwise(kernels.grid_groups(LIB, box, member, links, slack, cell, rtl), reference)
            bare = kernels.grid_groups(None, box, member, none, slack, cell, False)
            nobody = kernels.grid_groups(None, box, np.zeros(n, dtype=bool), none, slack, cell, False)
            alone = kernels.grid_groups(None, box, member & (np.arange(n) % 2 == 0), none, slack, cell, False)
            seen[0] |= len(set(bare.tolist())) < n
            seen[1] |= len(set(alone.tolist())) < n and len(set(nobody.tolist())) == n
            seen[2] |= len(set(reference.tolist())) > 1
            seen[3] |= alone.tolist() != kernels.grid_groups(None, box, member & (np.arange(n) % 2 == 0), none, slack, cell, True).tolist()
    assert seen.all()


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
def test_grid_links_and_groups_are_bounds_checked():
    y = np.zeros(3)
    with pytest.raises(IndexError):
        LIB.grid_links(y, y, y, y, np.array([0, 3], dtype=np.int64), np.array([2], dtype=np.int64), 0.2, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="do not add up"):
        LIB.grid_links(y, y, y, y, np.array([0, 1], dtype=np.int64), np.array([1], dtype=np.int64), 0.2, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="bad run lengths"):
        LIB.grid_links(y, y, y, y, np.array([0, 1], dtype=np.int64), np.array([0, 2], dtype=np.int64), 0.2, 1.0, 1.0, 1.0)
    member = np.zeros(3, dtype=bool)
    with pytest.raises(IndexError):
        LIB.grid_groups(y, y, y, y, member, np.array([0, 3], dtype=np.int64), np.array([1, 1], dtype=np.int64), 1.0, 1.0, 1.0, 1.0, False)
    with pytest.raises(IndexError):
        LIB.grid_groups(y, y, y, y, member, np.array([0], dtype=np.int64), np.array([-1], dtype=np.int64), 1.0, 1.0, 1.0, 1.0, False)
    with pytest.raises(ValueError, match="differ in length"):
        LIB.grid_groups(y, y, y, y, member[:2], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), 1.0, 1.0, 1.0, 1.0, False)
    with pytest.raises(TypeError):
        LIB.grid_groups(y, y, y, y, member.astype(np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), 1.0, 1.0, 1.0, 1.0, False)


def _column_by_its_edges(rng: np.random.Generator, n: int) -> tuple[tuple[np.ndarray, ...], list[np.ndarray]]:
    """Lines of a column (unit boxes x0, x1, y0, y1) whose stream paints the
    paragraphs at its left edge first, then the indented lines between them
    (holes filled later), in runs of one or two lines."""
    rows = max(n, 2)
    y1 = 1000.0 - np.arange(rows) * 12.0
    indented = rng.random(rows) < 0.4
    x0 = np.where(indented, 20.0, 0.0)
    x1 = np.full(rows, 300.0)
    order = np.concatenate([np.flatnonzero(~indented), np.flatnonzero(indented)]).astype(np.int64)
    cuts = np.flatnonzero(rng.random(rows - 1) < 0.6) + 1
    return (x0, x1, y1 - 10.0, y1), [run for run in np.split(order, cuts) if len(run)]


def _holes_by_definition(box: tuple[np.ndarray, ...], slack: tuple[float, float]) -> int:
    """Runs i painted after a run nested over them before the last run
    nested under them painted before i, pair by pair (the cheap test left out)."""
    x0, y0, x1, y1 = box
    stacked, tol = slack

    def nested(a: int, b: int) -> bool:
        apart = x1[a] <= x0[b] + tol or x1[b] <= x0[a] + tol
        inner = min(x1[a], x1[b]) - max(x0[a], x0[b])
        return bool(y0[a] >= y1[b] - stacked and not apart and inner >= min(x1[a] - x0[a], x1[b] - x0[b]) - tol)

    holes = 0
    for i in range(len(x0)):
        over = [j for j in range(i) if nested(j, i)]
        under = [j for j in range(i) if nested(i, j)]
        holes += bool(over and under and over[0] < under[-1])
    return holes


def _one_hole_over_a_rule() -> tuple[tuple[np.ndarray, ...], list[np.ndarray]]:
    """A wide line, a rule under the column (thinner than the stacking
    slack) and the narrow line between them painted last: one hole, and the
    cheap test must not count the rule as painted under itself."""
    x0, x1 = np.array([0.0, 0.0, 20.0]), np.array([300.0, 300.0, 200.0])
    y0, y1 = np.array([100.0, 69.0, 80.0]), np.array([110.0, 70.0, 90.0])
    return (x0, x1, y0, y1), [np.array([0]), np.array([1]), np.array([2])]


def test_leaf_stacking_agrees_and_counts_holes_by_definition():
    seen = np.zeros(4, dtype=bool)  # holes counted; the cheap test says none; top and bottom runs; a run over and under another
    for rng, n, special in _cases():
        leaves = [(_boxes(rng, max(n, 1), special), _runs(rng, max(n, 1))), _column_by_its_edges(rng, n), _one_hole_over_a_rule()]
        for box, runs in leaves:
            slacks = (((1.5, 2.5), False, 2), ((0.0, 0.0), True, 2), ((np.nan, np.inf), False, 1), ((1.5, -0.0), True, 0), ((25.0, 2.5), False, 1))
            for slack, rtl, filled in slacks:
                with np.errstate(invalid="ignore"):
                    reference = kernels.leaf_stacking(None, box, runs, slack, rtl, filled)
                    run_box = kernels.run_boxes(None, (box[0], box[2], box[1], box[3]), runs)
                    expected = _holes_by_definition(run_box, slack)
                    # The cheap test: runs painted after a run under them at all.
                    after_under = sum(bool(np.nanmin(run_box[3][:k]) <= run_box[1][k] + slack[0]) if not np.isnan(run_box[3][:k]).any() else False for k in range(1, len(runs)))
                cheap = after_under < filled and expected > 0
                assert reference.holes == (0 if after_under < filled else expected)
                if LIB is not None:
                    compiled = kernels.leaf_stacking(LIB, box, runs, slack, rtl, filled)
                    assert all(np.array_equal(c, r, equal_nan=True) for c, r in zip(compiled.box, reference.box, strict=True))
                    assert compiled.holes == reference.holes
                    for field in ("pairs", "upward", "runs_up", "top", "bottom"):
                        assert np.array_equal(getattr(compiled.stacking, field), getattr(reference.stacking, field))
                with np.errstate(invalid="ignore"):
                    mutual = kernels.nested_pairs(run_box, slack)
                seen |= (reference.holes >= 2, cheap, len(reference.stacking.top) > 0 and len(reference.stacking.bottom) > 0, (mutual & mutual.T).any())
    assert seen.all()


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
def test_leaf_stacking_is_bounds_checked():
    y = np.zeros(3)
    with pytest.raises(IndexError):
        LIB.leaf_stacking(y, y, y, y, np.array([0, 3], dtype=np.int64), np.array([2], dtype=np.int64), 1.0, 1.0, False, 2)
    with pytest.raises(ValueError, match="do not add up"):
        LIB.leaf_stacking(y, y, y, y, np.array([0, 1], dtype=np.int64), np.array([1], dtype=np.int64), 1.0, 1.0, False, 2)
    with pytest.raises(ValueError, match="bad run lengths"):
        LIB.leaf_stacking(y, y, y, y, np.array([0, 1], dtype=np.int64), np.array([0, 2], dtype=np.int64), 1.0, 1.0, False, 2)
    with pytest.raises(ValueError, match="differ in length"):
        LIB.leaf_stacking(y, y, y, np.zeros(2), np.array([0, 1], dtype=np.int64), np.array([2], dtype=np.int64), 1.0, 1.0, False, 2)


def test_blocks_in_turn_are_block_chains_and_out_of_turn():
    # Paragraphs in two columns, numbered (painted) in random order, and
    # random boxes with NaN and infinite edges: blocks flagged and not, and
    # leaves with one block of lines only (no flag asked).
    seen = np.zeros(3, dtype=bool)
    for rng, n, special in _cases():
        column = rng.integers(0, 2, n) * 100.0
        height = rng.choice([1.0, 1.1, 1.5, 3.0], n)
        bottom = -np.cumsum(rng.choice([1.2, 1.5, 2.0, 5.0], n)) * 2.0
        ids = np.sort(rng.permutation(n)[: max(1, n - 1)]).astype(np.int64) if n else np.zeros(0, dtype=np.int64)
        for box in ((column, column + 60.0, bottom, bottom + height), _boxes(rng, n, special)):
            with np.errstate(invalid="ignore"):
                nearest = kernels.nearest_under(None, box, ids, 0.22, 0.5)
            for gap, change in ((1.6, 1.15), (0.0, 1.0), (np.inf, np.inf), (np.nan, np.nan)):
                lines, length, flags = kernels.blocks_in_turn(None, box, ids, nearest, 0.22, gap, change)
                chains = kernels.block_chains(None, box, ids, nearest, 0.22, gap, change)
                assert np.array_equal(lines, chains[0]) and np.array_equal(length, chains[1])
                several = [block for block in np.split(lines, np.cumsum(length)[:-1]) if len(block) > 1] if len(length) else []
                expected = kernels.out_of_turn(None, box, several, 0.22).tolist() if len(several) >= 2 else [False] * len(several)
                assert flags[length > 1].tolist() == expected and not flags[length < 2].any()
                if LIB is not None:
                    compiled = kernels.blocks_in_turn(LIB, box, ids, nearest, 0.22, gap, change)
                    assert all(_bitwise(c, r) for c, r in zip(compiled, (lines, length, flags), strict=True))
                seen |= (flags.any(), len(several) >= 2 and not all(expected), len(several) == 1)
    assert seen.all()


def _run_lists(rng: np.random.Generator) -> Iterator[list[np.ndarray]]:
    """Lists of runs as the leaves pass them (a partition of a leaf's lines
    in paint order), and as they may be: strided views, overlapping runs
    whose smallest lines tie, negative and huge unit numbers."""
    for _ in range(60):
        n = int(rng.integers(1, 40))
        runs = _runs(rng, n)
        yield runs
        yield [run[::-1] for run in runs]  # negative strides
        yield [np.repeat(run, 2)[::2] for run in runs]  # views with a stride of two
        yield [rng.integers(-3, 4, int(rng.integers(1, 4))).astype(np.int64) for _ in range(n)]  # ties
    yield [np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min])]


def _paint_order_by_definition(runs: list[np.ndarray]) -> list[int]:
    return sorted(range(len(runs)), key=lambda k: int(runs[k].min()))


def test_joined_runs_and_paint_order_agree_and_are_their_definitions():
    seen_tie = False
    for runs in _run_lists(np.random.default_rng(7)):
        lines = np.concatenate(runs)
        lengths = [len(run) for run in runs]
        expected = _paint_order_by_definition(runs)
        firsts = [int(run.min()) for run in runs]
        seen_tie |= len(set(firsts)) < len(firsts)
        for lib in (None, LIB) if LIB is not None else (None,):
            ids, found = kernels.joined_runs(lib, runs)
            assert ids.dtype == np.int64 and ids.tolist() == lines.tolist()
            assert found.dtype == np.int64 and found.tolist() == lengths
            assert kernels.paint_order(lib, runs) == expected
    assert seen_tie


def _outcome(kernel: Callable[..., object], lib: object, runs: list[np.ndarray]) -> object:
    """What `kernel` returns (arrays as lists), or the type of what it raises."""
    try:
        found = kernel(lib, runs)
    except (ValueError, TypeError) as error:
        return type(error)
    return [v.tolist() for v in found] if isinstance(found, tuple) else found


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
def test_run_lists_the_kernels_cannot_take_go_to_the_reference():
    """An empty run, a run of another type or shape, no run at all: the
    compiled path declines (None) and the numpy expressions decide, raising
    where they raise."""
    odd = [
        [np.array([4, 2], dtype=np.int32), np.array([1], dtype=np.int64)],
        [np.array([3, 1]), [0, 5]],
        [np.array([[2, 1]]), np.array([0])],
        [np.array([2.0, 1.0])],
    ]
    for runs in odd:
        assert LIB.joined_runs(runs) is None and LIB.paint_order(runs) is None
        assert _outcome(kernels.joined_runs, LIB, runs) == _outcome(kernels.joined_runs, None, runs)
        assert _outcome(kernels.paint_order, LIB, runs) == _outcome(kernels.paint_order, None, runs)
    assert LIB.joined_runs([np.array([1]), np.zeros(0, dtype=np.int64)]) is None
    assert LIB.paint_order([np.array([1]), np.zeros(0, dtype=np.int64)]) is None
    for lib in (None, LIB):
        with pytest.raises(ValueError):
            kernels.joined_runs(lib, [])
        with pytest.raises(ValueError):
            kernels.paint_order(lib, [])


class _TailPage:
    """What _edge_rows and _stack_candidate read of a page."""

    def __init__(self, box: tuple[np.ndarray, ...], placed: np.ndarray, rtl: bool) -> None:
        self.x0, self.x1, self.y0, self.y1 = box
        self.placed, self.rtl, self.body, self.lib = placed, rtl, 1.0, LIB

    def line_start(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        start: np.ndarray = -x1 if self.rtl else x0
        return start


def _tail_leaf(rng: np.random.Generator, special: bool, dyadic: bool) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """A leaf's lines on rows (a running head's pieces, a column's lines, a
    footer's pieces) whose baselines tie within and across SAME_BASELINE
    and whose gaps straddle SECTION_GAP, with a few lines of another leaf;
    some edges NaN or infinite where `special`. The leaf's lines in
    reading order, or reversed, shuffled, or its top row painted last."""
    rows = int(rng.integers(1, 8))
    level = np.cumsum(rng.integers(1, 9, rows) * (0.5 if dyadic else 0.4))[::-1]
    per_row = rng.integers(1, 4, rows)
    if rng.random() < 0.5:  # a column between the head's and the footer's rows: one line a row
        per_row[1:-1] = 1
    base = np.repeat(level, per_row) + rng.integers(-1, 2, int(per_row.sum())) * 0.125
    n = len(base) + int(rng.integers(0, 3))
    # Other leaves' lines, near the head's row where `dyadic` (at its edge's tie).
    other = level[0] + rng.integers(-40, 6, n - len(base)) * 0.125 if dyadic else rng.integers(-4, 30, n - len(base)) * 0.4
    base = np.concatenate([base, other])
    height = rng.integers(2, 5, n) * 0.5
    y0 = base - (0.25 if dyadic else 0.22) * height
    y1 = y0 + height
    x0 = rng.integers(0, 30, n).astype(np.float64)
    x1 = x0 + rng.integers(1, 25, n)
    if special:
        for column, value in zip((x0, x1, y0, y1), (np.nan, np.inf, np.nan, np.inf), strict=True):
            column[rng.choice(n, size=1)] = value if rng.random() < 0.7 else -value
    leaf = np.arange(len(level.repeat(per_row)), dtype=np.int64)
    kind = int(rng.integers(0, 4))
    order = leaf if kind == 0 else leaf[::-1].copy() if kind == 1 else rng.permutation(leaf) if kind == 2 else np.roll(leaf, -int(per_row[0]))
    return (x0, x1, y0, y1), order


@pytest.mark.parametrize("dyadic", [False, True])
def test_leaf_tail_is_edge_rows_then_the_stack_candidate(monkeypatch: pytest.MonkeyPatch, dyadic: bool):
    """Where `dyadic`, the rules' constants are set to powers of two and the
    boxes lie on their grid: gaps and baseline steps equal the limits
    exactly, and every comparison meets its tie."""
    from ragprep.extract.layout import leaves, regions
    from ragprep.extract.layout.leaves import _edge_rows, _stack_candidate, _tail_limits

    if dyadic:  # (regions.baseline reads its own DESCENT)
        for module, name, value in ((leaves, "DESCENT", 0.25), (regions, "DESCENT", 0.25), (leaves, "SAME_BASELINE", 0.25), (leaves, "SECTION_GAP", 1.0)):
            monkeypatch.setattr(module, name, value)
    seen = {"edge_row": 0, "stack": 0, "declined": 0}
    for seed in range(600):
        rng = np.random.default_rng(seed)
        box, order = _tail_leaf(rng, seed % 3 == 0, dyadic)
        placed = rng.random(len(box[0])) < (0.0 if seed % 11 == 0 else 0.9)
        for rtl in (False, True):
            page = _TailPage(box, placed, rtl)
            with np.errstate(invalid="ignore"):
                try:
                    edged = _edge_rows(page, order)  # type: ignore[arg-type]
                except ValueError:  # np.max of no placed unit
                    assert kernels.leaf_tail(LIB, box, placed, order, _tail_limits(page), rtl) is None  # type: ignore[arg-type]
                    seen["declined"] += 1
                    continue
                stack = _stack_candidate(page, edged)  # type: ignore[arg-type]
                found = kernels.leaf_tail(LIB, box, placed, order, _tail_limits(page), rtl)  # type: ignore[arg-type]
            assert found is not None and found.order.tolist() == edged.tolist()
            if stack is None:
                assert found.down is None
            else:
                assert found.down is not None and (found.lo, found.hi, found.down.tolist()) == (stack[0], stack[1], stack[2].tolist())
            seen["edge_row"] += edged.tolist() != order.tolist()
            seen["stack"] += stack is not None
    assert seen["edge_row"] > 10 and seen["stack"] > 10 and (dyadic or seen["declined"]), seen
    if dyadic:  # a head painted last, another leaf's line SAME_BASELINE over it (it stays the page's edge) or more
        for over, moves in ((0.25, True), (0.375, False)):
            base = np.array([10.0, 10.0, 7.0, 6.0, 5.0, 10.0 + over])
            box = (np.array([0.0, 20, 0, 0, 0, 40]), np.array([5.0, 25, 25, 25, 25, 45]), base - 0.25, base + 0.75)
            order = np.array([2, 3, 4, 0, 1])
            found = kernels.leaf_tail(LIB, box, np.ones(6, dtype=bool), order, _tail_limits(_TailPage(box, np.ones(6, dtype=bool), False)), False)  # type: ignore[arg-type]
            assert found is not None and found.order.tolist() == ([0, 1, 2, 3, 4] if moves else order.tolist())


class _ParagraphPage:
    """What leaves._paragraphs reads of a page: unit boxes, word counts and
    first words, the body height, and which path (`lib`) measures."""

    def __init__(self, box: tuple[np.ndarray, ...], words: tuple[np.ndarray, np.ndarray], lib: object) -> None:
        self.x0, self.x1, self.y0, self.y1 = box
        self.words, self.first_word = words
        self.body, self.lib = 1.0, lib


def _paragraph_leaf(rng: np.random.Generator, special: bool) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, np.ndarray], list[np.ndarray]]:
    """A leaf's blocks: ragged columns of lines a leading apart (paragraphs,
    or not: short lines, one-word lines, a paragraph gap), a column of labels
    beside some of them on their baselines or SAME_BASELINE (dyadic: at the
    tie) off them, single lines, and random boxes, some edges NaN or
    infinite where `special`. Unit numbers are shuffled among the blocks."""
    x0: list[float] = []
    x1: list[float] = []
    base: list[float] = []
    words: list[int] = []
    first: list[float] = []
    blocks: list[list[int]] = []
    for _ in range(int(rng.integers(1, 6))):
        left, width, top = float(rng.integers(0, 8)) * 16.0, float(rng.integers(4, 16)) * 4.0, float(rng.integers(20, 60)) * 2.0
        lines = int(rng.integers(1, 11))
        steps = np.full(lines, 1.25)
        steps[rng.random(lines) < 0.15] = 2.5  # a paragraph gap
        level = top - np.cumsum(steps)
        if rng.random() < 0.3:  # labels beside: on the column's baselines, or a quarter (SAME_BASELINE) or more off
            offset = float(rng.choice([0.0, 0.25, 0.375, -0.25]))
            # Left of the column, touching it or not, or right of its widest line's end.
            start, end = [(left - 20.0, left - 4.0), (left - 16.0, left), (left + width, left + width + 12.0)][int(rng.integers(0, 3))]
            block = []
            for b in level[rng.random(lines) < 0.8]:
                block.append(len(x0))
                x0.append(start); x1.append(end); base.append(float(b) + offset)
                words.append(int(rng.integers(1, 3))); first.append(4.0)
            if block:
                blocks.append(block)
        block = []
        for b in level:
            block.append(len(x0))
            x0.append(left); x1.append(left + width - float(rng.integers(0, 8)) * (0.25 if rng.random() < 0.8 else 4.0)); base.append(float(b))
            words.append(int(rng.integers(1, 12))); first.append(float(rng.integers(2, 14)) * 0.5)
        blocks.append(block)
    for _ in range(int(rng.integers(0, 4))):  # stray lines and random boxes
        blocks.append([len(x0)])
        x0.append(float(rng.integers(0, 140))); x1.append(x0[-1] + float(rng.integers(1, 40))); base.append(float(rng.integers(0, 120)))
        words.append(int(rng.integers(0, 6))); first.append(float(rng.integers(0, 8)))
    n = len(x0)
    height = np.where(rng.random(n) < 0.9, 1.0, 2.0)  # (a tall line shares a row with the next)
    y0 = np.array(base) - 0.25 * height
    box = (np.array(x0), np.array(x1), y0, y0 + height)
    if special:
        for column, value in zip(box, (np.nan, np.inf, np.nan, -np.inf), strict=True):
            column[rng.choice(n, size=max(1, n // 8), replace=False)] = value if rng.random() < 0.7 else -value
    # Unit u becomes unit shuffle[u].
    shuffle = rng.permutation(n)
    back = np.argsort(shuffle)
    moved = (np.array(words, dtype=np.int64)[back], np.array(first)[back])
    return tuple(column[back] for column in box), moved, [shuffle[block].astype(np.int64) for block in blocks]


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
@pytest.mark.parametrize("verdict", [None, (2, 3, 1, 0.5)])
def test_paragraph_blocks_are_the_paragraph_rule(monkeypatch: pytest.MonkeyPatch, verdict: tuple[int, int, int, float] | None):
    """kernels.paragraph_blocks against leaves._paragraphs' rule, with DESCENT
    and SAME_BASELINE set to powers of two (boxes on their grid meet the
    tolerance exactly): paragraphs kept, paragraphs dropped for the labels
    on their baselines, blocks that do not wrap; with the wrap verdict's
    limits, or with one that lets two pairs decide."""
    from ragprep.extract.layout import leaves, regions

    for module, name, value in ((leaves, "DESCENT", 0.25), (regions, "DESCENT", 0.25), (leaves, "SAME_BASELINE", 0.25)):
        monkeypatch.setattr(module, name, value)
    if verdict is not None:
        monkeypatch.setattr(leaves, "WRAP_VERDICT", verdict)
        monkeypatch.setattr(regions, "WRAP_VERDICT", verdict)
    seen = {"kept": 0, "beside": 0, "no_wrap": 0}
    for seed in range(500):
        rng = np.random.default_rng(seed)
        box, words, blocks = _paragraph_leaf(rng, seed % 4 == 0)
        with np.errstate(invalid="ignore"):
            reference = leaves._paragraphs(_ParagraphPage(box, words, None), blocks)  # type: ignore[arg-type]
            compiled = leaves._paragraphs(_ParagraphPage(box, words, LIB), blocks)  # type: ignore[arg-type]
            several = [block for block in blocks if len(block) > 1]
            wrapping = sum(regions.blocks_wrapping(_ParagraphPage(box, words, None), several))  # type: ignore[arg-type]
        assert [b.tolist() for b in compiled] == [b.tolist() for b in reference]
        seen["kept"] += len(reference)
        seen["beside"] += wrapping - len(reference)
        seen["no_wrap"] += len(several) - wrapping
    assert min(seen.values()) > 20, seen
    assert leaves._paragraphs(_ParagraphPage(box, words, LIB), []) == []  # type: ignore[arg-type]


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
def test_paragraph_blocks_are_bounds_checked():
    box = tuple(np.zeros(3) for _ in range(4))
    words = (np.zeros(3, dtype=np.int64), np.zeros(3))
    limits = ((0.2, 0.22, 1.5, 0.25), (2, 3, 3, 0.75), 0.25)
    for ids, lengths in ((np.array([0, 3]), np.array([2])), (np.array([0, 1]), np.array([3])), (np.array([0, -1]), np.array([2]))):
        with pytest.raises((IndexError, ValueError)):
            kernels.paragraph_blocks(LIB, box, words, (ids.astype(np.int64), lengths.astype(np.int64)), limits)
    with pytest.raises(ValueError):
        kernels.paragraph_blocks(LIB, box, (words[0][:2], words[1]), (np.array([0, 1], dtype=np.int64), np.array([2], dtype=np.int64)), limits)


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
def test_paragraph_beside_a_label_of_no_baseline_is_measured_as_numpy_does(monkeypatch: pytest.MonkeyPatch):
    """A paragraph of four lines that wrap, labels beside it: one on its
    second line's baseline, one on its third's, one SAME_BASELINE under its
    first line's, one with no baseline (NaN). The first line lies above
    every label's baseline, so its nearest one above is the NaN, and
    np.minimum of the two distances is NaN: not on it. Two of four lines on
    the labels' baselines is no majority: the paragraph stands."""
    from ragprep.extract.layout import leaves, regions

    for module, name, value in ((leaves, "DESCENT", 0.25), (regions, "DESCENT", 0.25), (leaves, "SAME_BASELINE", 0.25)):
        monkeypatch.setattr(module, name, value)
    line = np.array([20.0, 18.75, 17.5, 16.25])
    label = np.array([20.0 - 0.25, 18.75, 17.5, np.nan])
    base = np.concatenate([line, label])
    x0 = np.array([0.0] * 4 + [-20.0] * 4)
    box = (x0, x0 + np.array([40.0] * 4 + [16.0] * 4), base - 0.25, base + 0.75)
    words = (np.array([8] * 4 + [1] * 4, dtype=np.int64), np.array([5.0] * 4 + [4.0] * 4))
    blocks = [np.arange(4, dtype=np.int64), np.arange(4, 8, dtype=np.int64)]
    for lib in (None, LIB):
        kept = leaves._paragraphs(_ParagraphPage(box, words, lib), blocks)  # type: ignore[arg-type]
        assert [b.tolist() for b in kept] == [[0, 1, 2, 3]]


class _NotePage:
    """What leaves._margin_note and leaves._note_over_the_text read of a
    page: unit boxes, glyph spans and classes, the body height, the gutter,
    the reading direction, the kept block tops, and which path (`lib`) measures."""

    def __init__(self, box: tuple[np.ndarray, ...], glyphs: tuple[np.ndarray, np.ndarray, np.ndarray], lib: object, rtl: bool = False) -> None:
        from types import SimpleNamespace

        self.x0, self.x1, self.y0, self.y1 = box
        self.start, self.end, alpha = glyphs
        self.classes = (alpha, ~alpha)
        self.body, self.gutter, self.lib, self.rtl = 1.0, 0.5, lib, rtl
        self.kept = SimpleNamespace(block_tops={})


def _special(rng: np.random.Generator, box: tuple[np.ndarray, ...]) -> None:
    """One edge of one unit set NaN or infinite (either sign), in place."""
    column = box[int(rng.integers(0, 4))]
    column[int(rng.integers(0, len(column)))] = float(rng.choice([np.nan, np.inf, -np.inf]))


def _both_paths(rule: Callable[..., object], page_of: Callable[[object], object], *args: object) -> tuple[object, object]:
    """rule(page, *args) on the page measured by the reference (page_of(None))
    and on the one measured by the compiled kernels (page_of(LIB))."""
    with np.errstate(invalid="ignore"):
        reference = rule(page_of(None), *args)
    return reference, rule(page_of(LIB), *args)


def _margin_leaf(rng: np.random.Generator, special: bool) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    """A text column of lines long and short against the long width (6 with
    COLUMN_FILL 0.5), and beside it, left or right, lines of a note: their
    gap from the text straddling the gutter (0.5) and MARGIN_NOTE_GAP (1),
    their steps down the column straddling SAME_BASELINE (0.25) and
    CELL_PADDING (1), some on the text's rows; each unit a few glyphs,
    about half letters. The leaf's lines in a random order or top down."""
    x0: list[float] = []
    x1: list[float] = []
    base: list[float] = []
    rows = int(rng.integers(2, 9))
    level = 30.0 - np.cumsum(rng.choice([1.0, 1.25, 2.5], rows))
    for b in level:
        x0.append(float(rng.choice([0.0, 0.0, 0.5, 2.0])))
        x1.append(x0[-1] + float(rng.choice([4.0, 5.5, 6.0, 6.5, 10.0, 12.0])))
        base.append(float(b))
    side = int(rng.integers(0, 2))
    edge = 12.0 if side else 0.0
    if side:
        edge = max(x1)
    gap = float(rng.choice([0.25, 0.5, 0.75, 1.0, 1.25]))
    top = float(rng.choice(level))
    for k in range(int(rng.integers(1, 5))):
        width = float(rng.integers(2, 6))
        start = edge + gap + float(rng.choice([0.0, 0.0, 0.5])) if side else edge - gap - width - float(rng.choice([0.0, 0.0, 0.5]))
        x0.append(start)
        x1.append(start + width)
        top -= 0.0 if k == 0 else float(rng.choice([0.125, 0.25, 0.375, 1.0, 1.25, 2.0, 2.5]))
        base.append(top)
    n = len(x0)
    height = rng.choice([1.0, 1.0, 2.0], n)
    y0 = np.array(base) - 0.25 * height
    box = (np.array(x0), np.array(x1), y0, y0 + height)
    if special:
        _special(rng, box)
    count = rng.integers(0, 7, n)
    end = np.cumsum(count).astype(np.int64)
    glyphs = (end - count, end, rng.random(int(end[-1])) < float(rng.choice([0.3, 0.5, 0.9])))
    order = rng.permutation(n).astype(np.int64) if rng.random() < 0.5 else np.arange(n, dtype=np.int64)
    return box, glyphs, order


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
@pytest.mark.parametrize("dyadic", [False, True])
def test_margin_note_is_the_margin_note_rule(monkeypatch: pytest.MonkeyPatch, dyadic: bool):
    """kernels.margin_note against leaves._margin_note's reference (its
    rules: the note's lines clear of the long lines' edge, _is_margin_note's
    block, prose, rows, gap and letter tests). Where `dyadic`, the rules'
    constants are powers of two and the boxes lie on their grid: gaps, steps
    and letter shares meet every limit exactly."""
    from ragprep.extract.layout import leaves, regions

    monkeypatch.setattr(leaves, "COLUMN_FILL", 0.5)
    if dyadic:  # (regions.baseline and regions.block_starts read their own)
        for module, name, value in ((leaves, "DESCENT", 0.25), (regions, "DESCENT", 0.25), (leaves, "CELL_PADDING", 1.0), (regions, "CELL_PADDING", 1.0)):
            monkeypatch.setattr(module, name, value)
    found = 0
    for seed in range(800):
        rng = np.random.default_rng(seed)
        box, glyphs, order = _margin_leaf(rng, seed % 4 == 0)
        reference, compiled = _both_paths(leaves._margin_note, partial(_NotePage, box, glyphs), order)
        assert (reference is None) == (compiled is None), seed
        if isinstance(reference, np.ndarray) and isinstance(compiled, np.ndarray):
            assert compiled.tolist() == reference.tolist(), seed
            found += 1
    assert 40 < found < 700, found


def test_margin_note_is_bounds_checked():
    # Five lines of text, a note of two lines a gutter (MARGIN_NOTE_GAP) left of them.
    x0 = np.array([0.0] * 5 + [-3.0] * 2)
    box = (x0, x0 + np.array([8.0] * 5 + [2.0] * 2), np.array([10.0, 9, 8, 7, 6, 10, 9]), np.array([11.0, 10, 9, 8, 7, 11, 10]))
    start, end = np.zeros(7, dtype=np.int64), np.full(7, 3, dtype=np.int64)
    limits = ((0.25, 6.0, 0.5, 1.0, 0.25, 1.0, 0.5), 3)
    order = np.arange(7, dtype=np.int64)
    found = kernels.margin_note(LIB, box, (start, end, np.ones(3, dtype=bool)), order, limits)  # type: ignore[arg-type]
    assert found is not None and found.tolist() == [False] * 5 + [True] * 2
    with pytest.raises(IndexError):  # a glyph past the classes
        kernels.margin_note(LIB, box, (start, end + 1, np.ones(3, dtype=bool)), order, limits)  # type: ignore[arg-type]
    with pytest.raises(IndexError):
        kernels.margin_note(LIB, box, (start, end, np.ones(3, dtype=bool)), np.array([0, 1, 2, 3, 4, 5, 7]), limits)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        kernels.margin_note(LIB, box, (start[:6], end, np.ones(3, dtype=bool)), order, limits)  # type: ignore[arg-type]


def _head_page(rng: np.random.Generator, special: bool) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """A page's lines: a note of one to four lines over the text, a gap
    under it straddling SECTION_GAP (1 with the constants dyadic), the text
    under it, the note's edges inset in the text's measure by amounts
    straddling NOTE_INSET (0.5), on either side; a few stray lines. The
    lines in a random order."""
    x0: list[float] = []
    x1: list[float] = []
    base: list[float] = []
    top = 40.0
    left, right = float(rng.choice([0.0, 1.0])), float(rng.choice([20.0, 24.0]))
    for _ in range(int(rng.integers(1, 5))):
        x0.append(left + float(rng.choice([-0.25, 0.0, 0.25, 0.5, 0.75, 2.0])))
        x1.append(right - float(rng.choice([-0.25, 0.0, 0.25, 0.5, 0.75, 2.0])))
        base.append(top)
        top -= float(rng.choice([1.0, 1.25]))
    top -= float(rng.choice([0.0, 0.5, 1.0, 1.25, 2.0]))
    for _ in range(int(rng.integers(0, 7))):
        x0.append(left + float(rng.choice([0.0, 0.0, 1.0])))
        x1.append(right - float(rng.choice([0.0, 0.0, 3.0])))
        base.append(top)
        top -= float(rng.choice([1.0, 1.25, 2.5]))
    for _ in range(int(rng.integers(0, 3))):
        x0.append(float(rng.integers(-4, 20)))
        x1.append(x0[-1] + float(rng.integers(1, 10)))
        base.append(float(rng.integers(10, 44)))
    n = len(x0)
    y0 = np.array(base) - 0.25
    box = (np.array(x0), np.array(x1), y0, y0 + 1.0)
    if special:
        _special(rng, box)
    return box, rng.permutation(n).astype(np.int64)


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
def test_note_over_the_text_is_the_head_note_rule(monkeypatch: pytest.MonkeyPatch):
    """kernels.note_over_the_text against leaves._note_over_the_text's
    reference (the first gap of SECTION_GAP under every line above it, two
    lines over it or more, inset in the measure of the lines under it:
    _inset_in), on pages in both directions, with SECTION_GAP a power of
    two so that gaps meet it exactly."""
    from ragprep.extract.layout import leaves

    monkeypatch.setattr(leaves, "SECTION_GAP", 1.0)
    found = 0
    for seed in range(800):
        rng = np.random.default_rng(seed)
        box, order = _head_page(rng, seed % 4 == 0)
        glyphs = (np.zeros(len(order), dtype=np.int64),) * 2 + (np.zeros(0, dtype=bool),)
        for rtl in (False, True):
            reference, compiled = _both_paths(leaves._note_over_the_text, partial(_NotePage, box, glyphs, rtl=rtl), order)
            assert (reference is None) == (compiled is None), (seed, rtl)
            if isinstance(reference, tuple) and isinstance(compiled, tuple):
                assert [part.tolist() for part in compiled] == [part.tolist() for part in reference], (seed, rtl)
                found += 1
    assert 60 < found < 1400, found
    with pytest.raises(IndexError):
        kernels.note_over_the_text(LIB, box, np.array([0, 1, 2, 99]), (1.0, 0.5), False)  # type: ignore[arg-type]


class _VisitPage(_TailPage):
    """What leaves._big_visits reads of a page, measured on the path `lib`."""

    def __init__(self, box: tuple[np.ndarray, ...], rtl: bool, lib: object) -> None:
        super().__init__(box, np.ones(len(box[0]), dtype=bool), rtl)
        self.lib = lib

    def line_end(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        end: np.ndarray = -x0 if self.rtl else x1
        return end


def _value_leaf(rng: np.random.Generator, special: bool) -> tuple[tuple[np.ndarray, ...], list[np.ndarray]]:
    """A leaf of labels and values: lines on rows half a body height apart
    (NEXT_LINE), their ends at one edge or a slack (ROW_OVERLAP, 0.25 with
    the constants dyadic) or more off it, narrower or wider than COLUMN_WIDTH
    (12), painted top down, by where each starts (up and down the column), or
    shuffled, in runs of a line or a few."""
    n = int(rng.integers(2, 30))
    base = rng.integers(0, 40, n) * 0.5
    x1 = 30.0 + rng.choice([0.0, 0.0, 0.0, 0.125, 0.25, -0.25, 0.375, -3.0], n)
    x0 = x1 - rng.choice([2.0, 4.0, 11.75, 12.0, 20.0], n)
    box = (x0, x1, base - 0.25, base + 0.75)
    if special:
        _special(rng, box)
    kind = int(rng.integers(0, 3))
    order = np.argsort(-base, kind="stable") if kind == 0 else np.lexsort((rng.random(n), x0)) if kind == 1 else rng.permutation(n)
    if rng.random() < 0.5:  # right to left: the same lines mirrored
        box = (-box[1], -box[0], box[2], box[3])
    cuts = np.flatnonzero(rng.random(n - 1) < 0.8) + 1
    return box, np.split(order.astype(np.int64), cuts)


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
def test_column_visits_are_the_visit_rules(monkeypatch: pytest.MonkeyPatch):
    """kernels.column_visits against leaves._big_visits' reference
    (_flush_right_visits, then _values_up_and_down of each visit of
    GRID_ROWS lines or more), in both directions, with ROW_OVERLAP a power
    of two so that line ends meet the slack exactly."""
    from ragprep.extract.layout import leaves

    monkeypatch.setattr(leaves, "ROW_OVERLAP", 0.25)
    seen = {"up": 0, "visits": 0}
    for seed in range(1500):
        rng = np.random.default_rng(seed)
        box, runs = _value_leaf(rng, seed % 4 == 0)
        for rtl in (False, True):
            (up, big), found = _both_paths(leaves._big_visits, partial(_VisitPage, box, rtl), runs)  # type: ignore[misc]
            assert (found[0], [v.tolist() for v in found[1]]) == (up, [v.tolist() for v in big]), (seed, rtl)  # type: ignore[index]
            seen["up"] += up
            seen["visits"] += len(big) >= 2
    assert seen["up"] > 100 and seen["visits"] > 100, seen
    with pytest.raises(ValueError):
        LIB.column_visits(*box, np.arange(3, dtype=np.int64), np.array([2], dtype=np.int64), 0.25, 4, 12.0, 0.5, False)


def _callout_leaf(rng: np.random.Generator, special: bool) -> tuple[tuple[np.ndarray, ...], list[np.ndarray]]:
    """A leaf's runs: blocks of two to four lines and single lines, boxes on
    a grid of whole units (one block's bottom at another's top, its right
    edge at another's left: every comparison meets its tie), in a random order."""
    x0: list[float] = []
    x1: list[float] = []
    y0: list[float] = []
    runs: list[np.ndarray] = []
    for _ in range(int(rng.integers(1, 9))):
        size = int(rng.choice([1, 1, 2, 3, 4]))
        left, width, top = float(rng.integers(0, 12)), float(rng.integers(1, 6)), float(rng.integers(4, 30))
        runs.append(np.arange(len(x0), len(x0) + size, dtype=np.int64))
        for k in range(size):
            x0.append(left)
            x1.append(left + width - float(rng.integers(0, 2)))
            y0.append(top - k - 1.0)
    box = (np.array(x0), np.array(x1), np.array(y0), np.array(y0) + 1.0)
    if special:
        _special(rng, box)
    return box, [runs[k] for k in rng.permutation(len(runs)).tolist()]


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
def test_blocks_ahead_are_the_block_rule():
    """kernels.blocks_ahead against leaves._alone_ahead's reference (blocks
    level with no other run; among them, wholly above and wholly before),
    in both directions."""
    from ragprep.extract.layout import leaves

    seen = 0
    for seed in range(1500):
        rng = np.random.default_rng(seed)
        box, runs = _callout_leaf(rng, seed % 4 == 0)
        for rtl in (False, True):
            reference, found = _both_paths(leaves._alone_ahead, partial(_VisitPage, box, rtl), runs)
            assert (found is None) == (reference is None), (seed, rtl)
            if isinstance(found, tuple) and isinstance(reference, tuple):
                assert [found[0].tolist(), found[1].tolist()] == [reference[0].tolist(), reference[1].tolist()], (seed, rtl)
                seen += 1
    assert 100 < seen < 2500, seen
    with pytest.raises(ValueError):
        LIB.blocks_ahead(*box, np.arange(3, dtype=np.int64), np.array([2], dtype=np.int64), False)


class _FrontPage(_VisitPage):
    """What leaves._front reads of a page (a gutter too), measured on the path `lib`."""

    def __init__(self, box: tuple[np.ndarray, ...], rtl: bool, lib: object) -> None:
        super().__init__(box, rtl, lib)
        self.gutter = 0.75


def _front_leaf(rng: np.random.Generator, special: bool) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """A leaf's lines numbered in paint order (unit numbers follow stream
    order), and a few lines of other leaves among them: rows half a body
    height apart (NEXT_LINE) on two or three edges, some a gutter or a
    column's width apart, painted top down, by where each line starts (a
    table painted column by column, a list's labels then its lines), up
    and down by its edges, or shuffled; _value_leaf's labels and values
    for a third of them (visits to a column, their values painted up and down)."""
    if rng.random() < 1 / 3:
        box, runs = _value_leaf(rng, special)
        order = np.concatenate(runs)
    else:
        n = int(rng.integers(2, 40))
        base = rng.integers(0, 30, n) * 0.5 + rng.choice([0.0, 0.0, 0.125], n)
        x0 = rng.choice([0.0, 0.0, 1.0, 6.0, 14.0], n) + rng.choice([0.0, 0.25], n)
        x1 = x0 + rng.choice([0.5, 2.0, 5.0, 12.0, 13.0], n)
        box = (x0, x1, base - 0.25, base + 0.75)
        if special:
            _special(rng, box)
        kind = int(rng.integers(0, 4))
        keys = (-base, x0, rng.random(n), x0 * 40 - base)
        order = np.lexsort((rng.random(n), keys[kind])) if kind else np.argsort(-base, kind="stable")
    box = tuple(side[order] for side in box)
    ids = np.flatnonzero(rng.random(len(order)) < 0.9).astype(np.int64)
    return box, ids if len(ids) >= 2 else np.arange(len(order), dtype=np.int64)


def _runs_equal(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return [run.tolist() for run in a] == [run.tolist() for run in b]


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
def test_leaf_front_is_the_front_rules(monkeypatch: pytest.MonkeyPatch):
    """kernels.leaf_front (leaves._front compiled) against _front_rules'
    reference (_paint_runs, reads_down, _column_grid, _rows_in_pieces,
    _passes_in_turn, _lines_in_turn), in both directions: its paint runs
    are the reference's, and so is its verdict where it gives one (one run;
    no witness; a witness whose runs stand), every verdict met; where it
    asks the rules, leaves._front is _front_rules on the compiled kernels
    (a grid's visits judged by a stand-in text column test, the same on
    both paths)."""
    from ragprep.extract.layout import leaves

    monkeypatch.setattr(leaves, "is_text_column", lambda page, ids: len(ids) % 3 == 0)
    seen = {verdict: 0 for verdict in range(4)}
    for seed in range(2000):
        rng = np.random.default_rng(seed)
        box, ids = _front_leaf(rng, seed % 4 == 0)
        for rtl in (False, True):
            page = _FrontPage(box, rtl, LIB)
            limits = (leaves.reads_down_limits(page), leaves._front_limits(page))  # type: ignore[arg-type]
            verdict, cuts = kernels.leaf_front(LIB, box, ids, limits)
            seen[verdict] += 1
            with np.errstate(invalid="ignore"):
                pure = _FrontPage(box, rtl, None)
                reference, paint_runs = leaves._front_rules(pure, ids), leaves._paint_runs(pure, ids)  # type: ignore[arg-type]
            assert _runs_equal(np.split(ids, cuts), paint_runs), (seed, rtl)
            if verdict == kernels.FRONT_ONE_RUN:
                assert reference is None, (seed, rtl)
            elif verdict != kernels.FRONT_ASK:
                assert reference is not None and reference[1] == (verdict == kernels.FRONT_WITNESS), (seed, rtl)
                assert _runs_equal(reference[0], paint_runs), (seed, rtl)
            else:
                found, rules = leaves._front(page, ids), leaves._front_rules(page, ids)  # type: ignore[arg-type]
                assert found is not None and rules is not None and found[1] == rules[1] and _runs_equal(found[0], rules[0])
    assert min(seen.values()) >= 10, seen
    down, front = (tuple(part) for part in limits)
    with pytest.raises(ValueError):
        LIB.leaf_front(*box, np.arange(1, dtype=np.int64), down, front[:7], front[7:])
    with pytest.raises(IndexError):
        LIB.leaf_front(*box, np.array([0, len(box[0])], dtype=np.int64), down, front[:7], front[7:])


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
def test_leaf_cells_are_cell_chains_and_blocks_in_turn_over_nearest_under():
    """kernels.leaf_cells against the kernels it joins, numpy's path:
    nearest_under of the leaf, then cell_chains (none where max_lines is
    negative) and blocks_in_turn on it, to the bit; on tables of cells of
    one to three lines, on paragraphs in two columns painted in random
    order, and with NaN and infinite edges: cells found, blocks flagged."""
    empty = np.zeros(0, dtype=np.int64)
    seen = {"cells": 0, "flagged": 0}
    for seed in range(1500):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, 40))
        k = np.arange(n)
        if seed % 2:  # a table: cells of one to three lines, rows 30 apart
            columns, rows = int(rng.integers(1, 4)), int(rng.integers(1, 6))
            bottom = (k // columns % rows) * 30.0 - (k // (columns * rows)) % 3 * rng.choice([2.0, 3.0, 9.0], n)
            left = (k % columns) * 80.0 + rng.integers(0, 3, n) * 5.0
            box = (left, left + 50.0 + rng.integers(0, 3, n) * 10.0, bottom, bottom + 1.5 * rng.integers(1, 4, n) + 1.0)
        else:  # paragraphs in two columns
            column = rng.integers(0, 2, n) * 100.0
            bottom = -np.cumsum(rng.choice([1.2, 1.5, 2.0, 5.0], n)) * 2.0
            box = (column, column + 60.0, bottom, bottom + rng.choice([1.0, 1.1, 1.5, 3.0], n))
        box = tuple(np.array(side, dtype=np.float64) for side in box)
        if seed % 5 == 0:
            _special(rng, box)
        ids = np.sort(rng.permutation(n)[: max(1, n - 1)]).astype(np.int64)
        max_lines = int(rng.choice([-1, 0, 1, 3, 3]))
        found = kernels.leaf_cells(LIB, box, ids, (0.22, 1.0, 2.0, 4.0, 1.6, 1.15), max_lines)  # type: ignore[arg-type]
        with np.errstate(invalid="ignore"):
            nearest = kernels.nearest_under(None, box, ids, 0.22, 1.0)
            cells = kernels.cell_chains(None, box, ids, nearest, 2.0, 4.0, max_lines) if max_lines >= 0 else (empty, empty)
            blocks = kernels.blocks_in_turn(None, box, ids, nearest, 0.22, 1.6, 1.15)
        assert all(_bitwise(c, r) for c, r in zip(found, (*cells, *blocks), strict=True)), seed
        seen["cells"] += len(found.cell_length) > 0
        seen["flagged"] += bool(found.flagged.any())
    assert min(seen.values()) > 20, seen
    with pytest.raises(IndexError):
        LIB.leaf_cells(*box, np.array([0, len(box[0])], dtype=np.int64), (0.22, 1.0, 2.0, 4.0, 1.6, 1.15), 3)


# Corpus files whose witnessed leaves meet leaf_witness' reading (bands and
# edge rows moved, stacks read down among them) and most of its reasons to
# ask the rules: sidebars, cells, blocks painted back; and runs painted up
# and holes filled later, read in kahn's order under their constraints.
_WITNESS_FILES = (
    "pdfmaker11-word-fr-agenda-watermark-5p.pdf", "chemistry-paper-5p.pdf", "reliance-annual-report-3p.pdf",
    "journal-feline-medicine-front-matter-7p-cropbox.pdf", "revtex-physics-4p.pdf", "ibm-redbook-sampled-18p.pdf",
)  # fmt: skip


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
def test_leaf_witness_is_the_witness_rules(monkeypatch: pytest.MonkeyPatch, corpus: Path):
    """kernels.leaf_witness (leaves._witnessed compiled) against
    _witness_rules, the reference, on every witnessed leaf of real pages:
    where it reads a leaf its order is the rules' (runs moved by the bands
    and by runs painted up or holes filled later, edge rows and stacks read
    down among them), and it asks the rules for each reason these pages give
    (a sidebar, cells, blocks painted back); without the page's words it
    reads alike, or asks for them (WITNESS_WORDS)."""
    from ragprep.extract import extract_document
    from ragprep.extract.layout import leaves

    seen: dict[object, int] = {}

    def both(page, ids: np.ndarray, runs: list[np.ndarray]) -> np.ndarray:  # type: ignore[no-untyped-def]
        glyphs = (page.inked, page.start, page.end, page.classes, page.placed)
        limits = (leaves.verdict_limits(page), (leaves.SAME_BASELINE * page.body, leaves.CELL_PADDING * page.body, leaves.ALIGNED), leaves._witness_limits(page, ids))
        box = (page.x0, page.x1, page.y0, page.y1)
        # Without the page's words: the same verdict, or a call for them.
        lazy, lazy_order = kernels.leaf_witness(LIB, box, glyphs, None, (ids, runs), limits, page.rtl)
        verdict, order = kernels.leaf_witness(LIB, box, glyphs, (page.words, page.first_word), (ids, runs), limits, page.rtl)
        assert lazy == kernels.WITNESS_WORDS or (lazy, lazy_order is None or lazy_order.tolist()) == (verdict, order is None or order.tolist())
        seen["words"] = seen.get("words", 0) + (lazy == kernels.WITNESS_WORDS)
        rules = leaves._witness_rules(page, ids, runs)
        seen[verdict] = seen.get(verdict, 0) + 1
        if verdict == kernels.WITNESS_READ:
            assert order is not None and order.tolist() == rules.tolist()
            moved = order.tolist() != np.concatenate(runs).tolist()
            seen["moved"] = seen.get("moved", 0) + moved
            slack = (leaves.STACKED * page.body, leaves.ROW_OVERLAP * page.body)
            stacking = kernels.leaf_stacking(LIB, box, runs, slack, page.rtl, leaves.FILLED_HOLES)
            seen["holes"] = seen.get("holes", 0) + (stacking.holes >= leaves.FILLED_HOLES)
            seen["up"] = seen.get("up", 0) + leaves._stream_paints_runs_up(stacking.stacking)
        else:
            assert order is None
        return rules

    monkeypatch.setattr(leaves, "_witnessed", both)
    paths = {Path(path).name: path for path in corpus_paths()}
    for name in _WITNESS_FILES:
        extract_document(corpus / paths[name], mode="layout")
    assert seen.get(kernels.WITNESS_READ, 0) > 30 and seen.get("moved", 0) >= 5 and seen["words"] > 0, seen
    assert seen.get("holes", 0) > 0 and seen.get("up", 0) > 0, seen
    for reason in (kernels.WITNESS_SIDEBAR, kernels.WITNESS_CELLS, kernels.WITNESS_BACK):
        assert seen.get(reason, 0) > 0, (reason, seen)


@pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")
def test_leaf_witness_is_bounds_checked():
    box = tuple(np.zeros(3) for _ in range(4))
    glyphs = (np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64), (np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)), np.ones(3, dtype=bool))
    words = (np.zeros(3, dtype=np.int64), np.zeros(3))
    column = ((0.3, 0.6, 8), kernels.ColumnLimits(5.0, 10.0, 0.3, 3.0, 0.5, 3, 0.5), (0.22, 1.6, 1.5, 2, 3.0, 3, 0.75))
    limits = (column, (0.25, 0.75, 0.25), kernels.WitnessLimits(0.75, 0.5, 0.5, 1.6, 1.15, 0.4, 0.75, 2.0, -1, 2, 2))
    for ids, runs in (
        (np.array([0, 3]), [np.array([0, 3])]),  # a line out of range
        (np.array([1, 0]), [np.array([1]), np.array([0])]),  # not ascending
        (np.array([0, 1]), [np.array([0])]),  # runs short of the leaf
    ):
        with pytest.raises((IndexError, ValueError)):
            kernels.leaf_witness(LIB, box, glyphs, words, (ids.astype(np.int64), [run.astype(np.int64) for run in runs]), limits, False)  # type: ignore[arg-type]
    # A run no int64 array: the rules read the leaf.
    found = kernels.leaf_witness(LIB, box, glyphs, words, (np.arange(2, dtype=np.int64), [np.arange(2, dtype=np.int32)]), limits, False)  # type: ignore[arg-type]
    assert found == (kernels.WITNESS_RUNS, None)
