"""The measuring kernels layout mode's rules call: compiled, with their numpy reference.

The rules (cut, regions, leaves, tiebreaks) decide in Python; the kernels
here measure for them: rows top to bottom, baselines shared between runs of
lines, the stream's runs down a leaf, a topological order, the stream's
disorder against a reading. A page asks them hundreds of times over small
index arrays, where a chain of numpy calls costs more in call overhead than
in arithmetic, so each kernel runs in ``_layout`` (extract/_layout.c, built
by pip, optional) where it is built. The numpy/Python bodies below are the
reference and the fallback: ``RAGPREP_PURE=1`` selects them (as it selects
the interpreter's, native.py), and tests/extract/test_layout_kernels.py
holds both paths to the same results, kernel by kernel and page by page.
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass
from types import ModuleType
from typing import NamedTuple

import numpy as np

from ragprep.extract.bidi import RTL_EDGES, is_rtl
from ragprep.extract.blocks import block_break
from ragprep.extract.config import ExtractConfig
from ragprep.extract.geometric import MAX_VALUE, SAME_DIRECTION, edge_codepoints, line_break_rule, most_common, unit_breaks
from ragprep.extract.glyphs import GlyphTable, rows_at

# The dtypes the kernels' bytes are read as, made once: np.frombuffer given a
# dtype keyword, or a type to convert, costs two to five times its call
# with a dtype object passed as it is.
_INT64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)


def _ids(ids: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(ids, dtype=np.int64)


def joined_runs(lib: ModuleType | None, runs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The lines of `runs` (arrays of unit numbers, none empty) concatenated,
    as int64, and each run's length: what every kernel over a leaf's runs
    takes. Compiled, one pass over the list: a scattered leaf's runs are
    single lines by the hundred, each a Python len() and an element of a
    list numpy converts (the compiled path returns None, and the numpy
    expressions decide, where a run is empty or no 1-d int64 array)."""
    if lib is not None:
        found = lib.joined_runs(runs)
        if found is not None:
            return np.frombuffer(found[0], _INT64), np.frombuffer(found[1], _INT64)
    return _ids(np.concatenate(runs)), np.array([len(r) for r in runs], dtype=np.int64)


def paint_order(lib: ModuleType | None, runs: list[np.ndarray]) -> list[int]:
    """The runs (arrays of unit numbers, none empty) by their smallest unit,
    ties in list order: as sorted(range(n), key=lambda k: runs[k].min())
    sorts them, from one reduction over all (leaves._in_paint_order).
    Compiled, one pass over the list, with joined_runs' None."""
    if lib is not None:
        found = lib.paint_order(runs)
        if found is not None:
            order: list[int] = np.frombuffer(found, dtype=np.int64).tolist()
            return order
    lines = np.concatenate(runs)
    starts = np.cumsum([0, *map(len, runs[:-1])])
    reference: list[int] = np.argsort(np.minimum.reduceat(lines, starts), kind="stable").tolist()
    return reference


def baselines(y0: np.ndarray, y1: np.ndarray, descent: float) -> np.ndarray:
    """The baselines of boxes from `y0` (bottom) to `y1` (top): `descent` of
    the height above the bottom. The one definition of a line's baseline
    (regions.baseline applies it with DESCENT); the C kernels compute the
    same expression in the same order."""
    line: np.ndarray = y0 + descent * (y1 - y0)
    return line


def baseline_rows(base: np.ndarray, same_baseline: float) -> tuple[np.ndarray, np.ndarray]:
    """Lines into rows by their baselines `base`: the lines top down
    (stable) and, in that order, each one's row, a new row where the
    baseline steps down more than `same_baseline`. The one definition of
    rows by baseline (row_returns' reference, leaves._wrapped_cells); the C
    kernels step the same way."""
    by = np.argsort(-base, kind="stable")
    row: np.ndarray = np.concatenate([[0], np.cumsum(-np.diff(base[by]) > same_baseline)])
    return by, row


def pair_moves(
    lib: ModuleType | None, table: GlyphTable, prev: np.ndarray, cur: np.ndarray, config: ExtractConfig
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per pair of glyph-table rows prev[k] -> cur[k]: geometric.line_break_rule's
    line break and move across (the one line rule, join()'s too), the gap
    along the line from the first glyph's own end to the second's origin,
    and the larger height of the two (units.Moves). Every page measures
    its stream's pairs, and the pairs a reordering brings together."""
    if lib is not None:
        columns = (table.origin, table.own_end, table.direction, table.height)
        found = lib.pair_moves(*map(np.ascontiguousarray, columns), _ids(prev), _ids(cur), config.line_break_ratio, SAME_DIRECTION)
        return np.frombuffer(found[0], dtype=bool), *(np.frombuffer(v) for v in found[1:])  # type: ignore[return-value]
    direction, next_origin = rows_at(table.direction, prev), rows_at(table.origin, cur)
    height, next_height = table.height[prev], table.height[cur]
    line_break, across, _ = line_break_rule(
        direction, rows_at(table.direction, cur), rows_at(table.origin, prev), next_origin, height, next_height, config
    )
    gap = np.einsum("ij,ij->i", next_origin - rows_at(table.own_end, prev), direction)
    return line_break, across, gap, np.maximum(height, next_height)


def reordered_moves(
    lib: ModuleType | None,
    table: GlyphTable,
    stream: np.ndarray,
    moves: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    positions: np.ndarray,
    config: ExtractConfig,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The moves (units.Moves' columns: line break per position, across,
    gap and larger height per pair) of stream[positions] from `moves`, the
    stream's own: a pair that were neighbours in the stream keeps its
    measurements, a pair the reordering brings together is measured anew
    (pair_moves). Compiled, one pass over the positions."""
    line_break, across, gap, height = moves
    if lib is not None:
        columns = (table.origin, table.own_end, table.direction, table.height)
        found = lib.reordered_moves(
            *map(np.ascontiguousarray, columns), _ids(stream), np.ascontiguousarray(line_break, dtype=bool),
            *(np.ascontiguousarray(v, dtype=np.float64) for v in (across, gap, height)), _ids(positions),
            config.line_break_ratio, SAME_DIRECTION,
        )  # fmt: skip
        return np.frombuffer(found[0], dtype=bool), *(np.frombuffer(v) for v in found[1:])  # type: ignore[return-value]
    n = len(positions)
    new_break = np.zeros(n, dtype=bool)
    if n < 2:
        return new_break, np.zeros(0), np.zeros(0), np.zeros(0)
    pair = positions[1:] - 1  # index of the stream pair ending at each position
    fresh = np.flatnonzero(positions[1:] != positions[:-1] + 1)
    pair = np.maximum(pair, 0)
    breaks, across, gap, height = line_break[1:][pair], across[pair], gap[pair], height[pair]
    if len(fresh):
        prev, cur = stream[positions[fresh]], stream[positions[fresh + 1]]
        measured = pair_moves(lib, table, prev, cur, config)
        for column, values in zip((breaks, across, gap, height), measured, strict=True):
            column[fresh] = values
    new_break[1:] = breaks
    return new_break, across, gap, height


def rows_top_down(
    lib: ModuleType | None, y0: np.ndarray, y1: np.ndarray, ids: np.ndarray, tol: float
) -> tuple[np.ndarray, np.ndarray]:
    """Units `ids` sorted top to bottom (by top edge `y1`, stable), and the
    positions where a new row starts: where the lowest bottom (`y0`) so far
    lies at or above the next unit's top less `tol`."""
    if lib is not None:
        ordered, starts = lib.rows(y0, y1, _ids(ids), tol)
        return np.frombuffer(ordered, _INT64), np.frombuffer(starts, _INT64)
    ids = ids[np.argsort(-y1[ids], kind="stable")]
    floor = np.minimum.accumulate(y0[ids])
    breaks = np.flatnonzero(floor[:-1] >= y1[ids][1:] - tol) + 1
    return ids, np.concatenate([[0], breaks])


def shared_baseline_counts(
    lib: ModuleType | None,
    y0: np.ndarray, y1: np.ndarray, runs: list[np.ndarray], descent: float, tol: float
) -> tuple[np.ndarray, np.ndarray]:
    """Per pair of runs of lines (key i * len(runs) + j, sorted): how many
    lines of run i have a line of run j within `tol` of their baseline
    (DESCENT `descent` of the height above the bottom), each line counting
    once per run it meets (its own run included). One sort of all baselines
    and a window per line, not a distance matrix per pair."""
    if lib is not None:
        pairs, counts = lib.shared_baselines(y0, y1, *joined_runs(lib, runs), descent, tol)
        return np.frombuffer(pairs, dtype=np.int64), np.frombuffer(counts, dtype=np.int64)
    ids = np.concatenate(runs)
    lengths = np.array([len(r) for r in runs], dtype=np.int64)
    n_runs = len(runs)
    base = baselines(y0[ids], y1[ids], descent)
    owner = np.repeat(np.arange(n_runs, dtype=np.int64), lengths)
    order = np.argsort(base, kind="stable")
    base, owner = base[order], owner[order]
    # Line k's window: the lines whose baselines lie within tol of its own.
    low = np.searchsorted(base, base - tol, "left")
    width = np.searchsorted(base, base + tol, "right") - low
    line = np.repeat(np.arange(len(base), dtype=np.int64), width)
    within = np.arange(int(width.sum()), dtype=np.int64) - np.repeat(np.cumsum(width) - width, width)
    # Each line counts once per run it meets, then lines are summed per pair.
    met = np.unique(line * n_runs + owner[np.repeat(low, width) + within])
    pairs, counts = np.unique(owner[met // n_runs] * n_runs + met % n_runs, return_counts=True)
    return pairs, counts.astype(np.int64)


def shared_pair(lib: ModuleType | None, y0: np.ndarray, y1: np.ndarray, a: np.ndarray, b: np.ndarray, descent: float, tol: float) -> int:
    """shared_baseline_counts of the two runs `a` and `b`, read for the
    shorter one (`a` on a tie) against the other: how many of its lines
    have a line of the other within `tol` of their baseline (0 where they
    meet nowhere). One kernel call, no pairs handed back."""
    if lib is not None:
        count: int = lib.pair_shared(y0, y1, _ids(a), _ids(b), descent, tol)
        return count
    pairs, counts = shared_baseline_counts(None, y0, y1, [a, b], descent, tol)
    short = 0 if len(a) <= len(b) else 1
    found: int = dict(zip(pairs.tolist(), counts.tolist(), strict=True)).get(short * 2 + 1 - short, 0)
    return found


def paint_run_cuts(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    descent: float,
    tol: float,
    line_step: float,
    run_gap: float,
    gutter: float,
    rtl: bool,
) -> np.ndarray:
    """Positions in `ids` (lines in stream order, boxes x0, x1, y0, y1 of
    `box`) where the stream leaves the block it goes down: a line that is
    neither the next line down (its baseline under the one before by
    `line_step` or more, no further than `run_gap` below it, overlapping
    the run so far along the line) nor beside the line before on its row
    (rows overlapping by more than `tol`, further along by less than a
    `gutter`). See leaves._paint_runs."""
    x0_all, x1_all, y0_all, y1_all = box
    if lib is not None:
        cuts = lib.paint_run_cuts(x0_all, x1_all, y0_all, y1_all, _ids(ids), descent, tol, line_step, run_gap, gutter, rtl)
        return np.frombuffer(cuts, dtype=np.int64)
    x0: list[float]
    x1: list[float]
    x0, x1, y0, y1 = (v[ids].tolist() for v in box)
    base = baselines(y0_all[ids], y1_all[ids], descent).tolist()
    cuts_found = []
    left, right = x0[0], x1[0]
    for k in range(1, len(ids)):
        below = base[k] <= base[k - 1] - line_step and y0[k - 1] - y1[k] <= run_gap
        below = below and min(right, x1[k]) > max(left, x0[k])
        step = x0[k - 1] - x1[k] if rtl else x0[k] - x1[k - 1]
        same_row = min(y1[k], y1[k - 1]) - max(y0[k], y0[k - 1]) > tol and -tol <= step < gutter
        if below or same_row:
            left, right = min(left, x0[k]), max(right, x1[k])
        else:
            cuts_found.append(k)
            left, right = x0[k], x1[k]
    return np.array(cuts_found, dtype=np.int64)


def kahn(lib: ModuleType | None, before: np.ndarray) -> list[int] | None:
    """A topological order of the relation `before` (before[i, j]: i reads
    before j), the first painted (smallest) of the free nodes first; None
    on a cycle."""
    if lib is not None:
        order = lib.kahn(np.ascontiguousarray(before, dtype=bool))
        return None if order is None else np.frombuffer(order, dtype=np.int64).tolist()
    # The free nodes in a heap, each edge taken once: a numpy pass over all
    # nodes per step made leaves of hundreds of runs quadratic.
    indegree = before.sum(axis=0).tolist()
    sources, targets = np.nonzero(before)
    successors: list[list[int]] = [[] for _ in range(len(before))]
    for i, j in zip(sources.tolist(), targets.tolist(), strict=True):
        successors[i].append(j)
    ready = [k for k, d in enumerate(indegree) if d == 0]
    result = []
    while ready:
        k = heapq.heappop(ready)
        result.append(k)
        for j in successors[k]:
            indegree[j] -= 1
            if indegree[j] == 0:
                heapq.heappush(ready, j)
    return result if len(result) == len(before) else None


def stream_disorder(lib: ModuleType | None, parts: list[np.ndarray]) -> int:
    """How many units the stream paints out of the reading order of `parts`
    (unit numbers follow stream order): all units minus the longest run of
    them, in stream order, whose parts never go back."""
    ids = np.concatenate(parts)
    if lib is not None:
        disorder: int = lib.disorder(_ids(ids), np.array([len(p) for p in parts], dtype=np.int64))
        return disorder
    label = np.concatenate([np.full(len(part), k) for k, part in enumerate(parts)])
    in_stream = label[np.argsort(ids, kind="stable")].tolist()
    tails: list[int] = []  # patience sorting: longest non-decreasing subsequence
    for value in in_stream:
        i = bisect.bisect_right(tails, value)
        if i == len(tails):
            tails.append(value)
        else:
            tails[i] = value
    return len(in_stream) - len(tails)


def text_classes(lib: ModuleType | None, texts: np.ndarray, order: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per glyph text (of those at `order`, where given), str.isalpha()
    and str.isspace(). Compiled, the text column is read in place: no copy
    of the stream's texts is gathered and listed first."""
    if lib is not None:
        column = texts if isinstance(texts, list) else np.ascontiguousarray(texts, dtype=object)
        alpha, space = lib.text_classes(column, None if order is None else _ids(order))
        return np.frombuffer(alpha, dtype=bool), np.frombuffer(space, dtype=bool)
    listed = (texts if order is None else texts[order]).tolist()
    count = len(listed)
    return (
        np.fromiter(map(str.isalpha, listed), dtype=bool, count=count),
        np.fromiter(map(str.isspace, listed), dtype=bool, count=count),
    )


def letter_counts(
    lib: ModuleType | None,
    start: np.ndarray,
    end: np.ndarray,
    ids: np.ndarray,
    classes: tuple[np.ndarray, np.ndarray],
    sample: int,
) -> tuple[int, int]:
    """Of an even sample of the glyphs of units `ids` (glyphs start[u]:end[u],
    in turn; every max(1, total // `sample`)-th), how many are letters and
    how many are no blanks (`classes`: per glyph, text_classes)."""
    alpha, space = classes
    if lib is not None:
        found: tuple[int, int] = lib.letter_counts(start, end, _ids(ids), alpha, space, sample)
        return found
    length = end[ids] - start[ids]
    offset = np.cumsum(length) - length
    total = int(length.sum())
    picked = np.arange(0, total, max(1, total // sample))
    unit = np.searchsorted(offset, picked, side="right") - 1
    glyph = start[ids][unit] + picked - offset[unit]
    return int(np.count_nonzero(alpha[glyph])), len(glyph) - int(np.count_nonzero(space[glyph]))


def stream_visit_cuts(lib: ModuleType | None, region: np.ndarray, part: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`part` (units of the sorted `region`) sorted, and the positions in it
    where a unit of the region outside it comes between two of its units."""
    if lib is not None:
        ordered, cuts = lib.stream_visits(_ids(region), _ids(part))
        return np.frombuffer(ordered, dtype=np.int64), np.frombuffer(cuts, dtype=np.int64)
    part = np.sort(part)
    position = np.searchsorted(region, part)
    return part, np.flatnonzero(np.diff(position) > 1) + 1


def run_boxes(
    lib: ModuleType | None, box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], runs: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The box (x0, y0, x1, y1) of each run of units (none empty), from the
    units' boxes `box` (x0, y0, x1, y1)."""
    if lib is not None:
        out = np.frombuffer(lib.run_boxes(*box, *joined_runs(lib, runs)), dtype=np.float64).reshape(4, len(runs))
        return out[0], out[1], out[2], out[3]
    ids = np.concatenate(runs)
    x0, y0, x1, y1 = box
    starts = np.cumsum([0, *map(len, runs[:-1])])
    return (
        np.minimum.reduceat(x0[ids], starts),
        np.minimum.reduceat(y0[ids], starts),
        np.maximum.reduceat(x1[ids], starts),
        np.maximum.reduceat(y1[ids], starts),
    )


def run_pairs(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    stacked: float,
    tol: float,
    rtl: bool,
    flush: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Per pair (i, j) of runs (their boxes x0, y0, x1, y1 of `box`, one
    per run): does run i lie above run j (its bottom at most `stacked` under
    j's top), are they apart along the line (no overlap, within `tol`), and,
    where `flush` asks (else None), do they start within `tol` of each other
    along the line (flush: their right edges on an `rtl` page)? A leaf of
    hundreds of runs asks for n x n of each: one pass, not a chain of
    broadcasts, and no flush matrix for the callers that do not read it."""
    x0, y0, x1, y1 = box
    if lib is not None:
        n = len(x0)
        found = lib.run_pairs(*(np.ascontiguousarray(v, dtype=np.float64) for v in box), stacked, tol, rtl, flush)
        above_c, apart_c, *flush_c = (np.frombuffer(v, dtype=bool).reshape(n, n) for v in found)
        return above_c, apart_c, flush_c[0] if flush_c else None
    above = y0[:, None] >= y1[None, :] - stacked
    apart = (x1[:, None] <= x0[None, :] + tol) | (x1[None, :] <= x0[:, None] + tol)
    if not flush:
        return above, apart, None
    edge = -x1 if rtl else x0
    # A run of blanks has infinite edges: inf - inf is NaN, flush with none
    # (as in C), and not worth a warning.
    with np.errstate(invalid="ignore"):
        return above, apart, np.abs(edge[:, None] - edge[None, :]) <= tol


@dataclass(frozen=True, eq=False)
class RunStacking:
    """What leaves._stacked_in_place reads of a leaf's runs (run_stacking)."""

    pairs: int  # pairs (i, j), i != j, stacked: i above j, not apart, flush
    upward: int  # of those, the pairs where i is painted after j (j < i)
    runs_up: int  # the runs i painted after a run j they are stacked over
    top: np.ndarray  # the runs above every other run
    bottom: np.ndarray  # the runs below every other run


def run_stacking(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    stacked: float,
    tol: float,
    rtl: bool,
) -> RunStacking:
    """Of run_pairs' relations of the runs (boxes x0, y0, x1, y1 of `box`):
    the counts and the top and bottom runs leaves._stacked_in_place decides
    from, without handing it three n x n matrices (a leaf that reads down
    the page needs none of them unless its stream paints runs up)."""
    if lib is not None:
        pairs, upward, runs_up, top, bottom = lib.run_stacking(
            *(np.ascontiguousarray(v, dtype=np.float64) for v in box), stacked, tol, rtl
        )
        return RunStacking(pairs, upward, runs_up, np.frombuffer(top, dtype=np.int64), np.frombuffer(bottom, dtype=np.int64))
    above, apart, flush = run_pairs(None, box, stacked, tol, rtl, True)
    assert flush is not None  # asked for
    other = ~np.eye(len(above), dtype=bool)
    stacked_pairs = above & ~apart & flush & other
    upward = np.tril(stacked_pairs, -1)  # [i, j]: i painted after j, over it
    return RunStacking(
        int(np.count_nonzero(stacked_pairs)),
        int(np.count_nonzero(upward)),
        int(np.count_nonzero(upward.any(axis=1))),
        *top_and_bottom(above, other),
    )


def top_and_bottom(above: np.ndarray, other: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs above every other run and those below every other (`above`:
    per pair, does run i lie above run j; `other`: i != j), in run order:
    the numpy body of run_stacking's top and bottom, for callers that hold
    the matrix."""
    over = above | ~other
    return np.flatnonzero(over.all(axis=1)), np.flatnonzero(over.all(axis=0))


def side_by_side_pairs(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    long_width: float,
    gutter: float,
) -> tuple[float, int, int]:
    """Of the units `ids` (one at least; boxes x0, x1, y0, y1 of `box`):
    their width (the largest x1 less the least x0), and of those at least
    `long_width` wide, how many, and how many neighbours among them, in the
    order of their middles across the line, overlap across the line and lie
    at least a `gutter` apart along it."""
    x0, x1, y0, y1 = box
    if lib is not None:
        found: tuple[float, int, int] = lib.side_by_side_pairs(x0, x1, y0, y1, _ids(ids), long_width, gutter)
        return found
    width = float(x1[ids].max() - x0[ids].min())
    long = ids[x1[ids] - x0[ids] >= long_width]
    if len(long) < 4:
        return width, len(long), 0
    long = long[np.argsort(y0[long] + y1[long], kind="stable")]
    a0, a1, b0, b1 = x0[long], x1[long], y0[long], y1[long]
    overlap = np.minimum(b1[:-1], b1[1:]) > np.maximum(b0[:-1], b0[1:])
    apart = (a0[1:] - a1[:-1] >= gutter) | (a0[:-1] - a1[1:] >= gutter)
    return width, len(long), int(np.count_nonzero(overlap & apart))


def gutter_cuts(lib: ModuleType | None, x0: np.ndarray, x1: np.ndarray, ids: np.ndarray, gutter: float) -> tuple[np.ndarray, np.ndarray]:
    """Units `ids` sorted by their left edge `x0` (stable), and the
    positions in that order where a unit starts at least `gutter` right of
    the rightmost `x1` of those before it: the full-height gutters of the
    region (cut.text_columns)."""
    if lib is not None:
        ordered, cuts = lib.gutter_cuts(x0, x1, _ids(ids), gutter)
        return np.frombuffer(ordered, dtype=np.int64), np.frombuffer(cuts, dtype=np.int64)
    ids = ids[np.argsort(x0[ids], kind="stable")]
    reach = np.maximum.accumulate(x1[ids])
    return ids, np.flatnonzero(x0[ids][1:] - reach[:-1] >= gutter) + 1


def section_breaks(
    lib: ModuleType | None, y0: np.ndarray, y1: np.ndarray, rows: tuple[np.ndarray, np.ndarray], gap: float
) -> np.ndarray:
    """Of the rows of a region (`rows`: units top to bottom and where each
    row starts, rows_top_down), the row starts whose top lies `gap` or more
    under the lowest bottom (`y0`) of every unit above (regions.gap_bands)."""
    ids, starts = rows
    if lib is not None:
        return np.frombuffer(lib.section_breaks(y0, y1, _ids(ids), _ids(starts), gap), _INT64)
    floor = np.minimum.accumulate(y0[ids])
    breaks = starts[1:]
    found: np.ndarray = breaks[floor[breaks - 1] - y1[ids][breaks] >= gap]
    return found


def row_measures(
    lib: ModuleType | None, x0: np.ndarray, x1: np.ndarray, inked: np.ndarray, ids: np.ndarray, starts: np.ndarray
) -> tuple[float, int, float]:
    """Of the rows (units `ids` in rows starting at `starts`, one at least):
    the median extent along the line (a row's rightmost end less its
    leftmost start), how many rows hold units side by side (several units,
    the rightmost start at or right of the leftmost end: whitespace between
    two of them), and the median of the rows' `inked` glyphs. Medians are
    the upper ones (regions.median)."""
    if lib is not None:
        found: tuple[float, int, float] = lib.row_measures(x0, x1, inked, _ids(ids), _ids(starts))
        return found
    extent = np.maximum.reduceat(x1[ids], starts) - np.minimum.reduceat(x0[ids], starts)
    several = np.diff(np.append(starts, len(ids))) > 1
    apart = np.maximum.reduceat(x0[ids], starts) >= np.minimum.reduceat(x1[ids], starts)
    glyphs = np.add.reduceat(inked[ids], starts)
    middle = len(starts) // 2
    return float(np.sort(extent)[middle]), int(np.count_nonzero(several & apart)), float(np.sort(glyphs)[middle])

class GroupMeasures(NamedTuple):
    """What regions' text-column and prose tests measure of a group of units
    (group_measures); a tuple, made for thousands of groups a page."""

    width: float  # the largest right edge less the least left edge
    rows: tuple[np.ndarray, np.ndarray]  # rows_top_down of the group
    extent: float  # row_measures of those rows: the median extent,
    side_by_side: int  # the rows of units side by side,
    glyphs: float  # the median inked glyphs
    letters: int  # letter_counts of the units in row order: letters
    inked: int  # and glyphs that are no blanks, in the sample
    long_rows: int  # rows holding a unit as long as `fill` x the width


def group_measures(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    inked: np.ndarray,
    glyphs: tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]],
    ids: np.ndarray,
    measure: tuple[float, float, int],
) -> GroupMeasures:
    """Of units `ids` (one at least; boxes x0, x1, y0, y1 of `box`, `inked`
    glyphs each, their glyphs start:end of `glyphs` with text classes):
    the measures regions.is_text_column and regions.holds_prose take, in
    one pass (`measure`: the rows' tolerance, the long line's share of the
    width, the letter sample). The reference is the kernels each measure
    had: rows_top_down, row_measures and letter_counts."""
    x0, x1, y0, y1 = box
    start, end, classes = glyphs
    tol, fill, sample = measure
    if lib is not None:
        found = lib.group_measures(x0, x1, y0, y1, inked, start, end, *classes, _ids(ids), tol, fill, sample)
        rows = (np.frombuffer(found[1], dtype=np.int64), np.frombuffer(found[2], dtype=np.int64))
        return GroupMeasures(found[0], rows, *found[3:])
    width = x1[ids].max() - x0[ids].min()
    ordered, starts = rows_top_down(None, y0, y1, ids, tol)
    extent, side_by_side, count = row_measures(None, x0, x1, inked, ordered, starts)
    letters, inked_sample = letter_counts(None, start, end, ordered, classes, sample)
    long = x1[ordered] - x0[ordered] >= fill * width
    long_rows = int(np.count_nonzero(np.add.reduceat(long.astype(np.int64), starts)))
    return GroupMeasures(float(width), (ordered, starts), extent, side_by_side, count, letters, inked_sample, long_rows)


class ColumnLimits(NamedTuple):
    """The thresholds of regions' text-column and prose tests on a page
    (column_verdicts), widths in the page's units."""

    narrow: float  # NARROW_COLUMN body heights
    column_width: float  # COLUMN_WIDTH body heights
    split_rows: float  # COLUMN_SPLIT_ROWS
    glyphs: float  # COLUMN_GLYPHS
    letters: float  # COLUMN_LETTERS
    prose_lines: int  # PROSE_LINES
    prose_share: float  # PROSE_SHARE


def column_verdicts(
    lib: ModuleType,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    inked: np.ndarray,
    glyphs: tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]],
    groups: list[np.ndarray],
    measure: tuple[float, float, int],
    limits: ColumnLimits,
) -> bytearray:
    """Of each group of `groups` (int64 arrays of one unit at least; the
    other arguments as group_measures'), the verdicts of
    regions.is_text_column and regions.holds_prose on group_measures'
    measures, one byte each: bits 0-1 the text-column test (0 no, 1 yes, 2
    yes where the group's lines wrap, regions.wraps, which measures words
    the page counts only when asked), bit 2 the prose test. One call for a
    list: the cut judges a region's bands, a gutter's groups and a column's
    parts together (regions.judge). Compiled only: its reference is the
    rules themselves, regions._is_text_column and regions._holds_prose (on
    group_measures' reference), which the kernel transliterates and
    tests/extract/test_layout_region_verdicts.py holds it to, group by group."""
    x0, x1, y0, y1 = box
    start, end, (alpha, space) = glyphs
    codes: bytearray = lib.column_verdicts(x0, x1, y0, y1, inked, start, end, alpha, space, groups, measure, limits)
    return codes


def column_groups(
    lib: ModuleType,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    glyphs: tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]],
    words: tuple[np.ndarray, np.ndarray],
    ids: np.ndarray,
    gutter: float,
    limits: tuple[tuple[float, float, int], ColumnLimits, tuple[float, ...], tuple[float, float, float, float, int]],
) -> tuple[list[np.ndarray], bytearray, list[int]] | None:
    """cut.text_columns compiled but for beside_text's question to
    read_region (its reference is the rule itself, cut._text_columns): None
    where no full-height gutter parts the region `ids`; else its groups
    (tables joined, cut._tables_joined), and per gutter between two of them
    its code (bit 0: between running text; bit 1: between columns set on
    their own, beside_table) and the group whose own cut decides it
    (beside_text), or -1. `glyphs`: inked, start, end and the text classes;
    `words`: the words and first word per unit; `limits`: judge's measure
    and thresholds, wraps' (regions.verdict_limits), and SAME_BASELINE and
    CELL_PADDING body heights, ALIGNED, COMPOUND_COVER and GRID_ROWS."""
    inked, start, end, (alpha, space) = glyphs
    found = lib.column_groups(*box, inked, start, end, alpha, space, *words, _ids(ids), gutter, *limits)
    if found is None:
        return None
    ordered, cuts, codes, asks = found
    bounds = [0, *np.frombuffer(cuts, dtype=np.int64).tolist(), len(ordered) // 8]
    ids = np.frombuffer(ordered, dtype=np.int64)
    groups = [ids[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    return groups, codes, np.frombuffer(asks, dtype=np.int64).tolist()


def gap_cuts(
    lib: ModuleType,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    glyphs: tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]],
    words: tuple[np.ndarray, np.ndarray],
    region: tuple[np.ndarray, tuple[np.ndarray, np.ndarray], list[np.ndarray]],
    limits: tuple[int, float, float, tuple[float, float, int], ColumnLimits, tuple[float, ...]],
) -> np.ndarray | None:
    """tiebreaks.column_gap_bands compiled whole (its reference is the rule
    itself, tiebreaks._column_gap_bands): of the region (its units, its rows,
    two or more, and its columns), the numbers of the row breaks
    (rows_of's starts[1:]) it is cut at. `limits`: the page's unit count,
    SECTION_GAP body heights, STRAYS and judge's and wraps' measure
    (regions.verdict_limits). None where a column is empty (the rule then
    decides)."""
    inked, start, end, (alpha, space) = glyphs
    ids, (ordered, starts), columns = region
    found = lib.gap_cuts(*box, inked, start, end, alpha, space, *words, _ids(ids), _ids(ordered), _ids(starts), columns, *limits)
    return None if found is None else np.frombuffer(found, dtype=np.int64)


def column_leaves(
    lib: ModuleType,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    glyphs: tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]],
    words: tuple[np.ndarray, np.ndarray],
    region: tuple[np.ndarray, list[np.ndarray], list[list[np.ndarray] | None]],
    limits: tuple[float, float, tuple[float, float, int], ColumnLimits, tuple[float, ...], tuple[float, float, float, float, int]],
) -> list[np.ndarray] | None:
    """cut._read_columns compiled but for its recursion (its reference is
    the rule itself, cut._column_leaves): of the region (its units, its
    columns in reading order and per column its own cut's leaves, None where
    that left it whole), the region's leaves in reading order. `limits`:
    SECTION_GAP and PARAGRAPH_GAP - 1 body heights and column_groups'
    limits. None where a column or a leaf is empty (the rule then decides)."""
    inked, start, end, (alpha, space) = glyphs
    ids, columns, reads = region
    found = lib.column_leaves(*box, inked, start, end, alpha, space, *words, _ids(ids), columns, reads, *limits)
    if found is None:
        return None
    units, cuts = found
    bounds = [0, *np.frombuffer(cuts, dtype=np.int64).tolist()]
    ordered = np.frombuffer(units, dtype=np.int64)
    return [ordered[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def back_up_moves(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    descent: float,
    line_step: float,
    same_row: float,
    rtl: bool,
) -> int:
    """Of the stream's moves from line to line of `ids` (boxes x0, x1, y0,
    y1 of `box`, baselines `descent` of the height above the bottom), how
    many go back up (by `line_step` or more) to a line that
    overlaps the last along the line or lies before it, or back along the
    row (baselines within `same_row`); before is rightward on an `rtl` page."""
    x0, x1, y0, y1 = box
    if lib is not None:
        count: int = lib.back_up_moves(x0, x1, y0, y1, _ids(ids), descent, line_step, same_row, rtl)
        return count
    base = baselines(y0[ids], y1[ids], descent)
    a, b = ids[:-1], ids[1:]
    up = base[1:] >= base[:-1] + line_step
    over = np.minimum(x1[a], x1[b]) > np.maximum(x0[a], x0[b])
    row = np.abs(base[1:] - base[:-1]) <= same_row
    back = x0[b] >= x1[a] if rtl else x1[b] <= x0[a]
    return int(np.count_nonzero((up & (over | back)) | (row & back)))


def cell_disorder(
    lib: ModuleType | None, units: int, bands: list[np.ndarray], columns: list[np.ndarray], band_first: bool
) -> int:
    """stream_disorder of the cells of a region cut both into `bands` and
    into `columns` (two partitions of the same units, each in reading order,
    of `units` on the page), read band by band, each left to right
    (`band_first`), or column by column, each top to bottom."""
    if lib is not None:
        # Each partition joined in one compiled pass (a form's column has
        # hundreds of bands, column_gap_bands asks once per candidate cut).
        disorder: int = lib.cell_disorder(*joined_runs(lib, bands), *joined_runs(lib, columns), units, band_first)
        return disorder
    return stream_disorder(None, _cells(units, bands, columns, band_first))


class ReadsDown(NamedTuple):
    """leaves.reads_down's measure (back_up_moves' DESCENT, NEXT_LINE and
    SAME_BASELINE body heights, the page's direction) and its share of
    moves back up, 1 - COHERENT: what the witness kernels ask of each side
    or band."""

    descent: float
    line_step: float
    same_row: float
    back_share: float
    rtl: bool


def band_order(
    lib: ModuleType,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    bands: list[np.ndarray],
    furniture: list[bool],
    limits: tuple[float, float, float],
    down: ReadsDown,
) -> list[int] | None:
    """tiebreaks.stream_band_order compiled whole (the rule is its own
    reference, RAGPREP_PURE=1 runs it): the numbers of the region's `bands`
    (two or more) in the order it reads them; `limits` are ROW_OVERLAP body
    heights, SMALL_PRINT and CONSISTENT. None where a band is empty (the
    rule then decides)."""
    found = lib.band_order(*box, _ids(ids), bands, bytes(furniture), *limits, *down)
    if found is None:
        return None
    order: list[int] = np.frombuffer(found, dtype=np.int64).tolist()
    return order


def reads_columns(
    lib: ModuleType,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    rows: tuple[np.ndarray, np.ndarray],
    bands: list[np.ndarray],
    limits: tuple[int, float, float, float, float],
    down: ReadsDown,
) -> bool | None:
    """tiebreaks.stream_reads_columns compiled whole (the rule is its own
    reference): `rows` the region's (rows_of), `limits` the page's unit
    count, GUTTER_SUPPORT, the gutter, ROW_OVERLAP body heights and
    CONSISTENT. None where a band is empty (the rule then decides)."""
    found: bool | None = lib.reads_columns(*box, _ids(ids), _ids(rows[0]), _ids(rows[1]), bands, *limits, *down)
    return found


def _cells(units: int, bands: list[np.ndarray], columns: list[np.ndarray], band_first: bool) -> list[np.ndarray]:
    """The units of a region cut both into `bands` and into `columns`,
    grouped by cell in reading order (see cell_disorder); empty cells are
    left out."""
    band_of = np.empty(units, dtype=np.int64)
    column_of = np.empty(units, dtype=np.int64)
    for k, band in enumerate(bands):
        band_of[band] = k
    for k, column in enumerate(columns):
        column_of[column] = k
    ids = np.concatenate(columns)
    # The cell's number in the order read: bands then columns, or columns then bands.
    major, minor, n_minor = (band_of, column_of, len(columns)) if band_first else (column_of, band_of, len(bands))
    cell = major[ids] * n_minor + minor[ids]
    ids = ids[np.argsort(cell, kind="stable")]
    cell = np.sort(cell)
    return np.split(ids, np.flatnonzero(np.diff(cell)) + 1)


def block_firsts(
    lib: ModuleType | None, y0: np.ndarray, y1: np.ndarray, ids: np.ndarray, padding: float, from_foot: bool
) -> np.ndarray:
    """The lines `ids` (bottoms `y0`, tops `y1`; one at least) that begin a
    block read from the top down: the top one, and each one `padding` or
    more below every line above it. `from_foot`: the same rule from the
    foot up (the page turned over by negating its y edges, exact in
    floating point), the lines that end a block."""
    if lib is not None:
        return np.frombuffer(lib.block_firsts(y0, y1, _ids(ids), padding, from_foot), dtype=np.int64)
    bottom, top = (-y1[ids], -y0[ids]) if from_foot else (y0[ids], y1[ids])
    order = np.argsort(-top, kind="stable")
    floor = np.minimum.accumulate(bottom[order])
    firsts = np.concatenate([[True], floor[:-1] - top[order][1:] >= padding])
    found: np.ndarray = ids[order][firsts]
    return found


def gutter_cells(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    starts: np.ndarray,
    share: float,
    gutter: float,
) -> tuple[float, float, np.ndarray] | None:
    """The region (units `ids` in rows starting at `starts`; boxes x0, x1,
    y0, y1 of `box`) on a grid of rows by cells between the units' distinct
    left and right edges; its best supported gutter candidate (a run of
    cells, at least `gutter` wide, with content on both sides and none on
    them in rows making up `share` of the rows' height; the one supported
    most) and that candidate's core (see _gutter_core). Returns the core's
    left and right edge and, per row, whether the row crosses the core;
    None when there is no candidate. A row's height is its units' extent
    across the line; heights are added down the rows in row order
    (np.cumsum), the totals as ndarray.sum() adds them, which the kernel
    repeats exactly, in one call with the rows' heights."""
    x0, x1, y0, y1 = box
    if lib is not None:
        found = lib.gutter_cells(x0, x1, y0, y1, _ids(ids), _ids(starts), share, gutter)
        if found is None:
            return None
        left, right, crossing = found
        return left, right, np.frombuffer(crossing, dtype=bool)
    row_height = np.maximum.reduceat(y1[ids], starts) - np.minimum.reduceat(y0[ids], starts)
    # Only rows of several units have whitespace between content; when they
    # are too few for any support, stop before building the row x cell grid.
    several = np.diff(np.concatenate([starts, [len(ids)]])) > 1
    need = share * row_height.sum()
    if row_height[several].sum() < need:
        return None
    return _gutter_crossing(x0, x1, ids, starts, row_height, float(need), gutter)


def _gutter_crossing(
    x0: np.ndarray, x1: np.ndarray, ids: np.ndarray, starts: np.ndarray, row_height: np.ndarray, need: float, gutter: float
) -> tuple[float, float, np.ndarray] | None:
    """gutter_cells' grid, candidates and core, the rows' heights
    `row_height` and the support `need`ed given."""
    grid = _gutter_grid(x0, x1, ids, starts)
    if grid is None:
        return None
    edges, covered, inside = grid
    support = np.cumsum(row_height[:, None] * inside, axis=0)[-1]
    candidate = support >= need
    if not candidate.any():
        return None
    # Runs of candidate cells at least a gutter wide; the best is the one
    # with the strongest support.
    width = np.diff(edges)
    bounds = np.flatnonzero(np.diff(np.concatenate([[0], candidate.astype(np.int8), [0]])))
    best, best_support = None, 0.0
    for first, last in zip(bounds[::2].tolist(), bounds[1::2].tolist(), strict=True):
        if width[first:last].sum() >= gutter and support[first:last].max() > best_support:
            best, best_support = (first, last), float(support[first:last].max())
    if best is None:
        return None
    blocked = np.cumsum(row_height[:, None] * covered, axis=0)[-1]
    lo, hi = _gutter_core(blocked, width, best, gutter)
    return float(edges[lo]), float(edges[hi]), np.any(covered[:, lo:hi], axis=1)


def _gutter_grid(
    x0: np.ndarray, x1: np.ndarray, ids: np.ndarray, starts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The region (units `ids` in rows starting at `starts`) on a grid of
    rows by cells between the units' distinct left and right edges: the
    edges, whether a unit of each row covers each cell, and whether a cell
    is whitespace between a row's leftmost and rightmost content (inside).
    None with fewer than two edges."""
    x0, x1 = x0[ids], x1[ids]
    edges = np.unique(np.concatenate([x0, x1]))
    n_rows, n_cells = len(starts), len(edges) - 1
    if n_cells < 1 or n_rows < 1:
        return None
    # covered[r, e]: does a unit of row r cover the cell edges[e]..edges[e+1]?
    row = np.repeat(np.arange(n_rows), np.diff(np.concatenate([starts, [len(ids)]])))
    first_cell, end_cell = np.searchsorted(edges, x0), np.searchsorted(edges, x1)
    stride = n_cells + 1
    cover = np.bincount(row * stride + first_cell, minlength=n_rows * stride) - np.bincount(
        row * stride + end_cell, minlength=n_rows * stride
    )
    covered = np.cumsum(cover.reshape(n_rows, stride), axis=1)[:, :n_cells] > 0
    # Whitespace with content on both sides in the same row.
    cell = np.arange(n_cells)
    inside = (
        ~covered
        & (cell >= np.minimum.reduceat(first_cell, starts)[:, None])
        & (cell < np.maximum.reduceat(end_cell, starts)[:, None])
    )
    return edges, covered, inside


def _gutter_core(blocked: np.ndarray, width: np.ndarray, run: tuple[int, int], gutter: float) -> tuple[int, int]:
    """The core of the gutter candidate `run` (cells first..last): the cell
    the fewest rows cross (`blocked`: the height of the rows covering each
    cell; the widest such cell), grown a cell at a time towards the less
    blocked neighbour until it is a gutter wide. What crosses the core
    crosses the gutter. Grown, the core catches a centred page number that
    reaches into a narrow gutter (LaTeX's 10 pt \\columnsep) without
    covering the sliver of whitespace beside it; it stays within the
    gutter, clear of a ragged column's longer lines."""
    first, last = run
    least = np.flatnonzero(blocked[first:last] == blocked[first:last].min())
    lo = first + int(least[np.argmax(width[first + least])])
    hi = lo + 1
    while width[lo:hi].sum() < gutter and (lo > first or hi < last):
        grow_left = hi >= last or (lo > first and blocked[lo - 1] <= blocked[hi])
        if grow_left:
            lo -= 1
        else:
            hi += 1
    return lo, hi


def nearest_under(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    descent: float,
    line_step: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per line of `ids` (positions into it; boxes x0, x1, y0, y1 of `box`),
    the nearest line under it along the line (their boxes overlap along it,
    its baseline `line_step` lower or more), by the whitespace from
    the line's bottom to its top, and that whitespace (infinite where no
    line is under, the position then 0); per line, the nearest line above
    it so, and its whitespace. Ties go to the first line."""
    x0, x1, y0, y1 = box
    if lib is not None:
        found = lib.nearest_under(x0, x1, y0, y1, _ids(ids), descent, line_step)
        below, above = (np.frombuffer(v, dtype=np.int64) for v in found[:2])
        gap_below, gap_above = (np.frombuffer(v, dtype=np.float64) for v in found[2:])
        return below, above, gap_below, gap_above
    n = len(ids)
    x0, y0, x1, y1 = x0[ids], y0[ids], x1[ids], y1[ids]
    base = baselines(y0, y1, descent)
    along = np.minimum(x1[:, None], x1[None, :]) > np.maximum(x0[:, None], x0[None, :])
    # gap[i, j]: whitespace from line i's bottom down to line j's top, for j
    # on a lower line under i along the line.
    under = along & (base[None, :] <= base[:, None] - line_step)
    gap = np.where(under, y0[:, None] - y1[None, :], np.inf)
    below, above = np.argmin(gap, axis=1), np.argmin(gap, axis=0)
    return below, above, gap[np.arange(n), below], gap[above, np.arange(n)]


def backward_units(
    lib: ModuleType | None,
    x: np.ndarray,
    height: np.ndarray,
    aligned: np.ndarray,
    bounds: tuple[np.ndarray, np.ndarray],
    back_step: float,
) -> np.ndarray:
    """Per unit (glyphs start[u]:end[u] of `bounds` in the stream; `x` their
    centres along the line, `aligned` whether each is set in the page's
    direction): does the stream paint it backwards? A step back between two
    aligned glyphs of the unit wider than the larger of their heights, or
    two steps back or more of `back_step` x the smaller height, more than
    such steps ahead (a glyph at a time, last to first)."""
    start, end = bounds
    if lib is not None:
        flags = lib.backward_units(x, height, np.ascontiguousarray(aligned), _ids(start), _ids(end), back_step)
        return np.frombuffer(flags, dtype=bool)
    unit = np.repeat(np.arange(len(start)), end - start)
    same = (unit[1:] == unit[:-1]) & aligned[1:] & aligned[:-1]
    step = np.diff(x)
    jump = same & (step < -np.maximum(height[1:], height[:-1]))
    backwards = np.zeros(len(start), dtype=bool)
    backwards[unit[1:][jump]] = True
    smaller = np.minimum(height[1:], height[:-1])
    back = np.bincount(unit[1:][same & (step <= -back_step * smaller)], minlength=len(start))
    ahead = np.bincount(unit[1:][same & (step >= back_step * smaller)], minlength=len(start))
    flagged: np.ndarray = backwards | ((back >= 2) & (back > ahead))
    return flagged


def marks_beside(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    mark_height: float,
    join_gap: float,
) -> np.ndarray:
    """Per unit of `ids` (boxes x0, x1, y0, y1 of `box`) at most
    `mark_height` tall: the position in `ids` of the first unit taller than
    that whose box holds its middle across the line, and which it touches
    along the line within `join_gap` x its height; -1 for every other unit."""
    x0_all, x1_all, y0_all, y1_all = box
    if lib is not None:
        found = lib.marks_beside(x0_all, x1_all, y0_all, y1_all, _ids(ids), mark_height, join_gap)
        return np.frombuffer(found, dtype=np.int64)
    x0, x1, y0, y1 = x0_all[ids], x1_all[ids], y0_all[ids], y1_all[ids]
    height = y1 - y0
    large = height > mark_height
    beside_of = np.full(len(ids), -1, dtype=np.int64)
    for k in np.flatnonzero(height <= mark_height).tolist():
        middle, reach = (y0[k] + y1[k]) / 2, join_gap * height[k]
        beside = large & (y0 <= middle) & (middle <= y1) & (x0 - x1[k] <= reach) & (x0[k] - x1 <= reach)
        found = np.flatnonzero(beside)
        if len(found):
            beside_of[k] = found[0]
    return beside_of


def lines_along(
    lib: ModuleType | None,
    along: tuple[np.ndarray, np.ndarray],
    ids: np.ndarray,
    row: np.ndarray,
    height: np.ndarray,
    gaps: tuple[float, float],
) -> tuple[np.ndarray, np.ndarray]:
    """Units `ids` (extents x0, x1 of `along`; per unit its `row` and
    height) ordered by row, then along it by x0 (stable): positions into
    `ids`, and per unit so ordered its line, a new one at each new row or
    gap along the row wider than join_gap x the smaller height of the units
    either side (from the row's running right edge). `gaps`: span, the
    offset that sets each row past the last (one running right edge for
    all rows, at least their extent), and join_gap."""
    x0_all, x1_all = along
    span, join_gap = gaps
    if lib is not None:
        order, line = lib.lines_along(x0_all, x1_all, _ids(ids), _ids(row), np.ascontiguousarray(height, dtype=np.float64), span, join_gap)
        return np.frombuffer(order, dtype=np.int64), np.frombuffer(line, dtype=np.int64)
    order = np.lexsort((x0_all[ids], row))
    row, height, ids = row[order], height[order], ids[order]
    x0, x1 = x0_all[ids] + row * span, x1_all[ids] + row * span
    reach = np.maximum.accumulate(x1)
    smaller = np.minimum(height[:-1], height[1:])
    new_line = (row[1:] != row[:-1]) | (x0[1:] - reach[:-1] > join_gap * smaller)
    line = np.zeros(len(ids), dtype=np.int64)
    np.cumsum(new_line, out=line[1:])
    return order, line


def row_returns(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    descent: float,
    gaps: tuple[float, float],
) -> tuple[int, int]:
    """Of lines `ids` (in paint order; boxes x0, x1, y0, y1 of `box`) by
    baseline top down (stable; a new row where it steps down more than
    same_baseline), then by row and along it by x0 (stable): how many lines
    lie next to the one before them on their row, at most piece_gap after
    its end, that the stream does not paint right after or before it, and
    how many rows (`gaps`: same_baseline, piece_gap)."""
    same_baseline, piece_gap = gaps
    x0, x1, y0, y1 = box
    if lib is not None:
        found: tuple[int, int] = lib.row_returns(x0, x1, y0, y1, _ids(ids), descent, same_baseline, piece_gap)
        return found
    if not len(ids):
        return 0, 0
    by_base, row = baseline_rows(baselines(y0[ids], y1[ids], descent), same_baseline)
    by_row = np.lexsort((x0[ids][by_base], row))
    along, row = by_base[by_row], row[by_row]
    same_row = row[1:] == row[:-1]
    gap = x0[ids][along][1:] - x1[ids][along][:-1]
    apart = np.abs(np.diff(along)) > 1  # positions in paint order, not one after the other
    return int(np.count_nonzero(same_row & (gap <= piece_gap) & apart)), int(row[-1]) + 1


class PlacedLines(NamedTuple):
    """What placed_lines gives: the placed units by row and along it, and the rules still to apply."""

    ids: np.ndarray  # the units, by row, then along it
    row: np.ndarray  # per unit, its row (a mark its line's)
    mark: np.ndarray  # per unit, is it a mark beside a line
    line: np.ndarray  # per unit, its line
    span: float  # what sets each row apart along the line
    rules: int  # which later rules may join lines: bits JUSTIFIED_RULE, NUMBERED_RULE, PIECES_RULE


JUSTIFIED_RULE, NUMBERED_RULE, PIECES_RULE = 1, 2, 4


def placed_lines(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    units: tuple[np.ndarray, np.ndarray, np.ndarray],
    thresholds: tuple[float, ...],
    number_glyphs: int,
) -> PlacedLines | None:
    """lines.line_order's first rules on placed units `ids` (ascending;
    boxes x0, x1, y0, y1 of `box`) in one compiled pass: rows by baseline,
    marks on their lines' rows (marks beside marks too), then by row and
    along it with their lines; and which of the rules after them
    (_justified_lines, _numbered_headings, _pieces_inside) may change those
    lines, each bit clear exactly where the rule's own first test leaves
    them as they are. `units`: per stream position, is it a blank; per
    unit, where it ends and its inked glyphs (Page.trails_blank,
    Page.inked). `thresholds`: DESCENT, LINE_BASELINE, MARK_SIZE x body,
    LINE_JOIN_GAP, JUSTIFIED_SPACE x body, NUMBER_GAP, PIECE_SHARE,
    ROW_OVERLAP x body. None without the compiled kernels: the reference
    is the rules themselves, lines._lines_by_the_rules, which the tests
    hold this to."""
    if lib is None:
        return None
    space, end, inked = units
    descent, baseline, mark_height, join_gap, justified, number_gap, piece_share, overlap = thresholds
    found = lib.placed_lines(
        *box, _ids(ids), np.ascontiguousarray(space), _ids(end), _ids(inked),
        descent, baseline, mark_height, join_gap, justified, number_gap, number_glyphs, piece_share, overlap,
    )  # fmt: skip
    order, row, mark, line, span, rules = found
    return PlacedLines(
        np.frombuffer(order, _INT64), np.frombuffer(row, _INT64),
        np.frombuffer(mark, _BOOL), np.frombuffer(line, _INT64), span, rules,
    )  # fmt: skip


def line_blanks(
    lib: ModuleType | None,
    table: GlyphTable,
    frame: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    placed: tuple[np.ndarray, np.ndarray, np.ndarray],
    thresholds: tuple[float, float, float],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """lines.blanks_on_their_lines in one compiled pass on a page read along
    (1, 0) (`frame`: along, the stream, its unit starts, per unit its inked
    glyphs and whether it is set in the page's direction; `box`: unit boxes
    x0, x1, y0, y1; `placed`: the placed units by row and along it, per unit
    its line and its offset along the line; `thresholds`: DESCENT,
    LINE_BASELINE, LINE_JOIN_GAP): the units of blanks that sit on a line,
    and per such unit its line, rank, host and centre. None without the
    compiled kernels, on another frame, or where the kernel declines (a
    value not finite): the reference is blanks_on_their_lines itself, which
    tests/extract/test_layout_kernels.py holds this to."""
    along, stream, start, inked, aligned = frame
    if lib is None or not _upright(along):
        return None
    ids, line, offset = placed
    found = lib.line_blanks(
        *_glyph_columns(table), _ids(stream), _ids(start), _ids(inked), np.ascontiguousarray(aligned, _BOOL),
        *box, _ids(ids), _ids(line), np.ascontiguousarray(offset, dtype=np.float64), *thresholds,
    )  # fmt: skip
    if found is None:
        return None
    units, on_line, rank, host, centre = found
    return (
        np.frombuffer(units, _INT64), np.frombuffer(on_line, _INT64), np.frombuffer(rank),
        np.frombuffer(host, _INT64), np.frombuffer(centre),
    )  # fmt: skip


def blank_edges(lib: ModuleType | None, space: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Per glyph (`space`: is it a blank), does it lead or trail its unit
    start[u]:end[u]: a blank with only blanks between it and the unit's edge."""
    if lib is not None:
        return np.frombuffer(lib.blank_edges(np.ascontiguousarray(space), _ids(start), _ids(end)), dtype=bool)
    found = np.zeros(len(space), dtype=bool)
    # Only unit edges are looked at, one glyph per unit and step, so the cost
    # follows the units, not the glyphs.
    for edge, step, stop in ((start, 1, end), (end - 1, -1, start - 1)):
        position, active = edge.copy(), np.flatnonzero(edge != stop)
        while len(active):
            at = position[active]
            blank = space[at]
            found[at[blank]] = True
            active = active[blank]
            position[active] += step
            active = active[position[active] != stop[active]]
    return found


def emit_leaves(
    lib: ModuleType | None, leaves: list[np.ndarray], start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Reading order from `leaves` (each its units in reading order; unit u
    is the glyphs start[u]:end[u] of the stream) as stream positions, and
    per position whether a new leaf starts there. A unit in no leaf goes
    right after the placed unit before it (before the first placed unit
    when none is), in that unit's leaf."""
    if lib is not None:
        ids = np.concatenate(leaves) if leaves else np.zeros(0, dtype=np.int64)
        lengths = np.array([len(leaf) for leaf in leaves], dtype=np.int64)
        positions, new_leaf = lib.emit(_ids(ids), lengths, _ids(start), _ids(end))
        return np.frombuffer(positions, dtype=np.int64), np.frombuffer(new_leaf, dtype=bool)
    n_units = len(start)
    leaf = np.full(n_units, -1, dtype=np.int64)
    rank = np.zeros(n_units, dtype=np.float64)
    done = 0
    for k, ids in enumerate(leaves):
        leaf[ids] = k
        rank[ids] = done + np.arange(len(ids))
        done += len(ids)
    placed = np.flatnonzero(leaf >= 0)
    if not len(placed):
        glyphs = int((end - start).sum())
        return np.arange(glyphs), np.zeros(glyphs, dtype=bool)
    if len(placed) < n_units:
        out = np.flatnonzero(leaf < 0)
        before = np.searchsorted(placed, out, side="right") - 1
        anchor = placed[np.maximum(before, 0)]
        leaf[out] = leaf[anchor]
        rank[out] = rank[anchor] + np.where(before >= 0, 0.5, -0.5)
    units = np.lexsort((np.arange(n_units), rank))
    length = end[units] - start[units]
    offset = np.cumsum(length) - length
    positions = np.repeat(start[units] - offset, length) + np.arange(int(length.sum()))
    new_leaf = np.zeros(len(positions), dtype=bool)
    new_leaf[offset[1:][leaf[units][1:] != leaf[units][:-1]]] = True
    return positions, new_leaf


def wrap_measures(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    words: tuple[np.ndarray, np.ndarray],
    rows: tuple[np.ndarray, np.ndarray],
    descent: float,
    paragraph_step: float,
    space: float,
) -> tuple[int, float, int, int]:
    """What regions.wraps counts of a group (units `ids` in rows starting at
    `starts`, `rows`; boxes x0, x1, y0, y1 of `box`; per unit its word count
    and its first word's extent, `words`): the rows of one line that a row of
    one line follows (pairs); the median word count of the units; of those
    pairs, the lines not followed by a paragraph gap (a step down of at most
    `paragraph_step` x the pairs' median step) whose next line holds several
    words (its first word ends `space` short of its end); and how many of
    those the next line's first word, after `space`, would not fit beside in
    the group's width. With fewer than two pairs, only the pairs count."""
    x0, x1, y0, y1 = box
    count, first_word = words
    ids, starts = rows
    if lib is not None:
        found: tuple[int, float, int, int] = lib.wrap_measures(
            x0, x1, y0, y1, count, first_word, _ids(ids), _ids(starts), descent, paragraph_step, space
        )
        return found
    single = np.flatnonzero(np.diff(np.concatenate([starts, [len(ids)]])) == 1)
    pairs = single[:-1][np.diff(single) == 1]  # row r and row r + 1 are single lines
    if len(pairs) < 2:
        return len(pairs), 0.0, 0, 0
    median_words = float(np.sort(count[ids])[len(ids) // 2])
    line, following = ids[starts[pairs]], ids[starts[pairs + 1]]
    step = baselines(y0[line], y1[line], descent) - baselines(y0[following], y1[following], descent)
    close = step <= paragraph_step * float(np.sort(step)[len(step) // 2])
    line, following = line[close], following[close]
    word = first_word[following]
    several = word < x1[following] - x0[following] - space
    line, word = line[several], word[several]
    width = x1[ids].max() - x0[ids].min()
    wrapped = x1[line] - x0[line] + space + word > width
    return len(pairs), median_words, len(line), int(np.count_nonzero(wrapped))


def turning_pair(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    runs: list[np.ndarray],
    descent: float,
    stacked: float,
    tol: float,
    turns: int,
) -> tuple[int, int] | None:
    """Of `runs` (lines, boxes x0, x1, y0, y1 of `box`), the first pair
    (i, j), i < j in row-major order, whose run boxes are tangled (neither
    above the other by run_pairs' `stacked`, nor apart along the line within
    `tol`) and whose lines take turns down the page: of the lines of each
    that overlap the other run's box along the line, two or more of each,
    read top to bottom (by baseline, `descent` of the height above the
    bottom; stable, i's lines first), the run changes `turns` times or more.
    None where no pair does. One pass over the pairs, not a numpy chain per
    pair: a leaf that reads down the page asks it of every tangled pair."""
    x0, x1, y0, y1 = box
    if lib is not None:
        found: tuple[int, int] | None = lib.turning_pair(x0, x1, y0, y1, *joined_runs(lib, runs), descent, stacked, tol, turns)
        return found
    bx0, by0, bx1, by1 = run_boxes(None, (x0, y0, x1, y1), runs)
    above, apart, _ = run_pairs(None, (bx0, by0, bx1, by1), stacked, tol, False)
    tangled = np.triu(~(above | above.T | apart), 1)
    for i, j in np.argwhere(tangled).tolist():
        a, b = runs[i], runs[j]
        a, b = a[(x1[a] > bx0[j]) & (x0[a] < bx1[j])], b[(x1[b] > bx0[i]) & (x0[b] < bx1[i])]
        if len(a) < 2 or len(b) < 2:
            continue
        group = np.concatenate([np.zeros(len(a), dtype=np.int8), np.ones(len(b), dtype=np.int8)])
        lines = np.concatenate([a, b])
        down = np.argsort(-baselines(y0[lines], y1[lines], descent), kind="stable")
        if int(np.count_nonzero(np.diff(group[down]))) >= turns:
            return i, j
    return None


def out_of_turn(
    lib: ModuleType | None, box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], blocks: list[np.ndarray], descent: float
) -> np.ndarray:
    """Per block of lines (each top to bottom, boxes x0, x1, y0, y1 of
    `box`; unit numbers follow stream order): does the stream paint its
    lines other than top to bottom (a baseline, `descent` of the height
    above the bottom, rising from one painted line to the next), or, between
    the first and the last painted of them, a line of another of `blocks`
    that lies beside it along the line?"""
    x0, x1, y0, y1 = box
    if lib is not None:
        lengths = np.array([len(b) for b in blocks], dtype=np.int64)
        return np.frombuffer(lib.out_of_turn(x0, x1, y0, y1, _ids(np.concatenate(blocks)), lengths, descent), dtype=bool)
    owner = np.full(len(x0), -1, dtype=np.int64)
    for k, block in enumerate(blocks):
        owner[block] = k
    flags = np.zeros(len(blocks), dtype=bool)
    for k, block in enumerate(blocks):
        left, right = x0[block].min(), x1[block].max()
        between = np.arange(int(block.min()) + 1, int(block.max()))
        between = between[(owner[between] >= 0) & (owner[between] != k)]
        painted = np.sort(block)
        painted_base = baselines(y0[painted], y1[painted], descent)
        flags[k] = np.any(np.diff(painted_base) > 0) or np.any((x1[between] <= left) | (x0[between] >= right))
    return flags


def follow_chains(
    lib: ModuleType | None, below: np.ndarray, linked: np.ndarray, tops: np.ndarray, limit: int
) -> tuple[np.ndarray, np.ndarray]:
    """From each position of `tops` in turn, the chain that goes on from a
    position to below[position] while that one is `linked`, limit + 1
    positions at the most (and never more than len(below) + 1: a chain
    through a cycle stops): the chains' positions one after another, and
    their lengths."""
    if lib is not None:
        chains, lengths = lib.follow_chains(_ids(below), np.ascontiguousarray(linked, dtype=bool), _ids(tops), limit)
        return np.frombuffer(chains, dtype=np.int64), np.frombuffer(lengths, dtype=np.int64)
    bound = min(limit, len(below))
    linked_list, below_list = linked.tolist(), below.tolist()
    found: list[int] = []
    lengths_found: list[int] = []
    for top in tops.tolist():
        chain = [top]
        while linked_list[chain[-1]] and len(chain) <= bound:
            chain.append(below_list[chain[-1]])
        found.extend(chain)
        lengths_found.append(len(chain))
    return np.array(found, dtype=np.int64), np.array(lengths_found, dtype=np.int64)


def cell_chains(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    nearest: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    leading: float,
    padding: float,
    max_lines: int,
) -> tuple[np.ndarray, np.ndarray]:
    """leaves.stacked_cells' measure of lines `ids` (boxes x0, x1, y0, y1 of
    `box`; `nearest`: their nearest_under, positions into `ids`): the lines
    of its cells one cell after another, each top to bottom, and how many
    lines each cell holds. A chain of two to `max_lines` lines, each at most
    `leading` of whitespace above the next (the line's nearest one under it,
    whose nearest one above it is that line), padded by `padding` or more
    from the nearest lines above and below it, is a cell where another line
    lies beside it on its row, every line beside it is in a chain or padded
    on its own, and so is the nearest line above or below it. One walk of
    the chains, not a numpy chain per chain: every leaf that reads down the
    page asks it."""
    x0, x1, y0, y1 = box
    below, above, gap_below, gap_above = nearest
    if lib is not None:
        found, lengths = lib.cell_chains(
            x0, x1, y0, y1, _ids(ids), _ids(below), _ids(above),
            np.ascontiguousarray(gap_below, dtype=np.float64), np.ascontiguousarray(gap_above, dtype=np.float64),
            leading, padding, max_lines,
        )  # fmt: skip
        return np.frombuffer(found, dtype=np.int64), np.frombuffer(lengths, dtype=np.int64)
    chains = _tight_chains(nearest, leading, padding, max_lines)
    empty = np.zeros(0, dtype=np.int64)
    if not chains:
        return empty, empty
    x0, y0, x1, y1 = x0[ids], y0[ids], x1[ids], y1[ids]
    in_cell = (gap_above >= padding) & (gap_below >= padding)
    for chain in chains:
        in_cell[chain] = True
    cells: list[np.ndarray] = []
    for chain in chains:
        c0, c1 = x0[chain].min(), x1[chain].max()
        r0, r1 = y0[chain].min(), y1[chain].max()
        beside = (np.minimum(y1, r1) > np.maximum(y0, r0)) & ((x1 <= c0) | (x0 >= c1))
        column = [k for k, gap in ((above[chain[0]], gap_above[chain[0]]), (below[chain[-1]], gap_below[chain[-1]])) if np.isfinite(gap)]
        if beside.any() and in_cell[beside].all() and in_cell[column].any():
            cells.append(ids[chain])
    if not cells:
        return empty, empty
    return np.concatenate(cells).astype(np.int64), np.array([len(cell) for cell in cells], dtype=np.int64)


def _tight_chains(
    nearest: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], leading: float, padding: float, max_lines: int
) -> list[np.ndarray]:
    """cell_chains' chains (positions, top to bottom) of two to `max_lines`
    lines stacked at most `leading` apart, padded by `padding` from the
    lines above and below the chain."""
    below, above, gap_below, gap_above = nearest
    n = len(below)
    linked = (gap_below <= leading) & (above[below] == np.arange(n))
    tops = np.flatnonzero(linked & ~(linked[above] & (below[above] == np.arange(n))))
    if not len(tops):
        return []
    found, length = follow_chains(None, below, linked, tops, max_lines)
    ends = np.cumsum(length)
    kept = (length <= max_lines) & (gap_above[tops] >= padding) & (gap_below[found[ends - 1]] >= padding)
    return [found[end - size : end] for end, size, keep in zip(ends.tolist(), length.tolist(), kept.tolist(), strict=True) if keep]


def block_chains(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    nearest: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    descent: float,
    paragraph_gap: float,
    size_change: float,
) -> tuple[np.ndarray, np.ndarray]:
    """leaves.stacked_blocks' measure of lines `ids` (boxes x0, x1, y0, y1
    of `box`; `nearest`: their nearest_under, positions into `ids`): the
    lines of its blocks one block after another, each top to bottom, and
    how many lines each block holds. A line goes on the block of the line
    right above it (the nearest over it, whose nearest line under it it is)
    where the step between their baselines (`descent` of the height above
    the bottom) is at most `paragraph_gap` times the taller height and the
    heights differ by at most `size_change`; a block starts at every line
    no other goes on. One C call instead of a dozen numpy ones: every leaf
    that reads down the page asks it."""
    if lib is not None:
        found, lengths = _compiled_block_chains(lib, box, ids, nearest, (descent, paragraph_gap, size_change), turns=False)
        return np.frombuffer(found, dtype=np.int64), np.frombuffer(lengths, dtype=np.int64)
    _, _, y0, y1 = box
    below, above, gap_below, _ = nearest
    n = len(ids)
    base = baselines(y0[ids], y1[ids], descent)
    height = y1[ids] - y0[ids]
    taller = np.maximum(height, height[below])
    step = base - base[below]
    same_size = taller <= size_change * np.maximum(np.minimum(height, height[below]), 1e-9)
    linked = np.isfinite(gap_below) & (step <= paragraph_gap * taller) & same_size
    linked &= above[below] == np.arange(n)
    has_above = np.zeros(n, dtype=bool)
    has_above[below[linked]] = True
    tops = np.flatnonzero(~has_above)
    if not len(tops):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    chains, length = follow_chains(None, below, linked, tops, n)
    return ids[chains].astype(np.int64), length


def _compiled_block_chains(
    lib: ModuleType,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    nearest: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    rule: tuple[float, float, float],
    turns: bool,
) -> tuple[bytes, ...]:
    """The C block_chains of block_chains and blocks_in_turn (`rule`: their
    descent, paragraph_gap and size_change), out_of_turn's flags as well
    where `turns`."""
    x0, x1, y0, y1 = box
    below, above, gap_below, _ = nearest
    return tuple(lib.block_chains(
        x0, x1, y0, y1, _ids(ids), _ids(below), _ids(above), np.ascontiguousarray(gap_below, dtype=np.float64),
        *rule, turns,
    ))  # fmt: skip


def blocks_in_turn(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    nearest: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    descent: float,
    paragraph_gap: float,
    size_change: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """block_chains' blocks of lines `ids` (their lines, one block after
    another, and how many lines each holds) and, per block, out_of_turn's
    flag of the blocks of two lines or more (False for a block of one line,
    and for every block where fewer than two hold two lines or more:
    leaves._painted_in_turn asks nothing then), in one compiled call: most
    leaves flag none, and need no block as an array of its own."""
    if lib is not None:
        found, lengths, turned = _compiled_block_chains(lib, box, ids, nearest, (descent, paragraph_gap, size_change), turns=True)
        return np.frombuffer(found, dtype=np.int64), np.frombuffer(lengths, dtype=np.int64), np.frombuffer(turned, dtype=bool)
    lines, length = block_chains(None, box, ids, nearest, descent, paragraph_gap, size_change)
    flags = np.zeros(len(length), dtype=bool)
    several = length > 1
    if np.count_nonzero(several) >= 2:
        blocks = np.split(lines, np.cumsum(length)[:-1])
        flags[several] = out_of_turn(None, box, [block for block, many in zip(blocks, several.tolist(), strict=True) if many], descent)
    return lines, length, flags


# -- the fixed per-page pipeline: units.Page's frame, lines.glyphs_along ------
# These read the glyph table's columns through a page's stream themselves
# (compiled: table rows, no gathered copy per column); the C answers only for
# an upright frame, where a projection on `along` is a coordinate exactly,
# and declines (None) where a value is not finite: the reference runs then.


def first_words(
    lib: ModuleType | None,
    blank: np.ndarray,
    units: tuple[np.ndarray, np.ndarray],
    glyph_x: tuple[np.ndarray, np.ndarray, np.ndarray],
    word_gap: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Page.first_word and Page.words: per unit start[i]:end[i] (`units`;
    `blank`: per glyph, is it a blank; `glyph_x`: per glyph its extent along
    the line, low and high, and its height), the extent of its glyphs from
    the first inked one (edge blanks have infinite boxes, see blank_edges)
    to the last before a word break, and how many words it holds. A word
    ends where the next glyph is blank or lies more than `word_gap` heights
    away. Compiled, one pass over the page's glyphs (the numpy decides
    where a unit is empty or out of the glyphs: None)."""
    start, end = units
    low_x, high_x, height = glyph_x
    if lib is not None:
        columns = (np.ascontiguousarray(v, dtype=np.float64) for v in glyph_x)
        found = lib.first_words(np.ascontiguousarray(blank, _BOOL), _ids(start), _ids(end), *columns, word_gap)
        if found is not None:
            return np.frombuffer(found[0]), np.frombuffer(found[1], _INT64)
    inked = np.isfinite(low_x)
    # A word ends at glyph k where the next is blank or lies a word space away.
    gap = np.maximum(low_x[1:] - high_x[:-1], low_x[:-1] - high_x[1:])
    ends = np.zeros(len(blank), _BOOL)
    ends[:-1] = blank[1:] | (gap > word_gap * height[:-1])
    ends[end - 1] = True
    ink = np.flatnonzero(inked & ~blank)
    first = ink[np.minimum(np.searchsorted(ink, start), len(ink) - 1)] if len(ink) else start
    first = np.where((first >= start) & (first < end), first, start)
    stops = np.flatnonzero(ends & inked & ~blank)
    last = stops[np.minimum(np.searchsorted(stops, first), len(stops) - 1)] if len(stops) else first
    last = np.where((last >= first) & (last < end), last, first)
    extent = np.maximum(high_x[first], high_x[last]) - np.minimum(low_x[first], low_x[last])
    words = np.add.reduceat((ends & inked & ~blank).astype(np.int64), start)
    return np.where(np.isfinite(extent), extent, 0.0), words


def _upright(along: np.ndarray) -> bool:
    return bool(along[0] == 1.0 and along[1] == 0.0)


def _glyph_columns(table: GlyphTable) -> tuple[np.ndarray, ...]:
    return tuple(np.ascontiguousarray(c) for c in (table.origin, table.own_end, table.direction, table.height))


class UnitFrame(NamedTuple):
    """A page's glyphs and units in its reading frame (units.Page): what
    the page keeps as it is, made once per page (a tuple: no field set one
    at a time)."""

    low_x: np.ndarray  # per glyph, its extent along the line (infinite for a unit's edge blanks)
    high_x: np.ndarray
    height: np.ndarray  # per glyph, its height
    x0: np.ndarray  # per unit, its box in the frame
    x1: np.ndarray
    y0: np.ndarray
    y1: np.ndarray
    inked: np.ndarray  # per unit, its glyphs less the blanks at its edges
    aligned: np.ndarray  # per unit, its first glyph runs in the page's direction
    end: np.ndarray  # per unit, where it ends: the next one's start, the stream's length for the last
    placed: np.ndarray  # per unit, does it take part in the cut: aligned, and some glyph inked (units.Page.placed)
    body: float  # the most common glyph height, to a tenth of a point (0.0: none)


def unit_frame(
    lib: ModuleType | None,
    table: GlyphTable,
    stream: np.ndarray,
    along: np.ndarray,
    start: np.ndarray,
    space: np.ndarray,
    thresholds: tuple[float, float],
) -> UnitFrame:
    """The glyphs of `stream` (units start[u]:start[u + 1]; `space`: per
    position, is its glyph a blank) in the frame of `along` (units.Page):
    along the line each glyph runs from its origin to its own end; across
    it, from its baseline less `descent` of its height, as tall as its
    height, a unit set `skewed` (its first glyph's direction against the
    page's below that cosine) laid flat at its mean baseline
    (`thresholds`: descent, skewed). Blanks that lead or trail a unit have
    no extent (infinite; kernels.blank_edges)."""
    descent, skewed = thresholds
    if lib is not None and _upright(along):
        found = lib.upright_frame(
            *_glyph_columns(table), _ids(stream), _ids(start), np.ascontiguousarray(space),
            descent, skewed, SAME_DIRECTION, float(MAX_VALUE),
        )  # fmt: skip
        if found is not None:
            return _upright_frame(found)
    return _unit_frame(lib, table, stream, along, start, space, thresholds)


def _upright_frame(found: tuple[bytearray, ...]) -> UnitFrame:
    """The UnitFrame of what lib.upright_frame gives."""
    low_x, high_x, height, x0, x1, y0, y1, inked, aligned, end, placed, body = found
    fb = np.frombuffer
    return UnitFrame(
        fb(low_x), fb(high_x), fb(height), fb(x0), fb(x1), fb(y0), fb(y1), fb(inked, _INT64), fb(aligned, _BOOL),
        fb(end, _INT64), fb(placed, _BOOL), float(body),
    )  # fmt: skip


def _unit_frame(
    lib: ModuleType | None,
    table: GlyphTable,
    stream: np.ndarray,
    along: np.ndarray,
    start: np.ndarray,
    space: np.ndarray,
    thresholds: tuple[float, float],
) -> UnitFrame:
    """unit_frame's reference."""
    descent, skewed = thresholds
    direction, origin, own_end = rows_at(table.direction, stream), rows_at(table.origin, stream), rows_at(table.own_end, stream)
    height = table.height[stream]
    if along[0] == 1.0:
        ax, bx, base = origin[:, 0], own_end[:, 0], origin[:, 1]
    else:
        ax, bx = origin @ along, own_end @ along
        base = origin[:, 1] * along[0] - origin[:, 0] * along[1]
    low_x, high_x = np.minimum(ax, bx), np.maximum(ax, bx)
    first = rows_at(direction, start) @ along
    base = flattened(base, first < skewed, start)
    low_y = base - descent * height
    high_y = low_y + height
    end = np.concatenate([start[1:], [len(stream)]])
    blank = np.flatnonzero(blank_edges(lib, space, start, end))
    if len(blank):
        low_x[blank], low_y[blank] = np.inf, np.inf
        high_x[blank], high_y[blank] = -np.inf, -np.inf
    is_blank = np.zeros(len(stream), dtype=bool)
    is_blank[blank] = True
    inked, aligned = end - start - np.add.reduceat(is_blank, start), first >= SAME_DIRECTION
    return UnitFrame(
        low_x, high_x, height,
        np.minimum.reduceat(low_x, start), np.maximum.reduceat(high_x, start),
        np.minimum.reduceat(low_y, start), np.maximum.reduceat(high_y, start),
        inked, aligned, end, aligned & (inked > 0), most_common(height, 10),
    )  # fmt: skip


def flattened(base: np.ndarray, skewed: np.ndarray, unit_start: np.ndarray) -> np.ndarray:
    """`base` (per glyph, its baseline across the frame) with every unit set a
    few degrees off the page's direction (`skewed`, per unit: a page of a
    tilted poster among upright text, both within SAME_DIRECTION of each
    other) laid flat at its mean baseline: across the frame a skewed line
    would rise along its length and, as tall as that rise, cross the rows of
    the lines around it."""
    if not skewed.any():
        return base
    count = np.diff(np.concatenate([unit_start, [len(base)]]))
    mean = np.repeat(np.add.reduceat(base, unit_start) / count, count)
    flat: np.ndarray = np.where(np.repeat(skewed, count), mean, base)
    return flat


def stream_backward_units(
    lib: ModuleType | None,
    table: GlyphTable,
    stream: np.ndarray,
    along: np.ndarray,
    bounds: tuple[np.ndarray, np.ndarray],
    back_step: float,
) -> np.ndarray:
    """backward_units of the glyphs of `stream` (units start[u]:end[u] of
    `bounds`): their centres along `along`, their heights, and whether each
    runs in that direction (lines.glyphs_along)."""
    start, end = bounds
    if lib is not None and _upright(along):
        flags = lib.upright_backward_units(*_glyph_columns(table), _ids(stream), _ids(start), _ids(end), back_step, SAME_DIRECTION)
        if flags is not None:
            return np.frombuffer(flags, dtype=bool)
    x, height, aligned = along_measures(table, stream, along)
    return backward_units(lib, x, height, aligned, bounds, back_step)


def along_measures(table: GlyphTable, stream: np.ndarray, along: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per glyph of `stream`: its centre along `along`, its height, and
    whether it runs in that direction (within SAME_DIRECTION)."""
    centre = (rows_at(table.origin, stream) + rows_at(table.own_end, stream)) / 2
    aligned: np.ndarray = rows_at(table.direction, stream) @ along >= SAME_DIRECTION
    return centre @ along, table.height[stream], aligned


def block_starts(
    lib: ModuleType | None,
    table: GlyphTable,
    order: np.ndarray,
    moves: tuple[np.ndarray, np.ndarray, np.ndarray],
    thresholds: tuple[float, float, float, float, float],
) -> tuple[np.ndarray, np.ndarray | None]:
    """Per position of `order` (glyph rows; `moves`: units.Moves' line_break,
    across, height), does a block start there by blocks.block_break (the
    first position always), and the line starts indented against both
    neighbouring lines, which are flush with each other (None when none
    is). A line's left edge is its first glyph's origin along its
    direction. `thresholds`: block_break's (paragraph gap, font-size
    change), then the indent's least and greatest and the flush limit, in
    glyph heights."""
    line_break, across, height = moves
    if lib is not None:
        columns = (table.origin, table.direction, table.height, table.font_size)
        starts, indented = lib.block_starts(
            *map(np.ascontiguousarray, columns), _ids(order), np.ascontiguousarray(line_break),
            np.ascontiguousarray(across, dtype=np.float64), np.ascontiguousarray(height, dtype=np.float64), *thresholds,
        )  # fmt: skip
        return np.frombuffer(starts, dtype=bool), None if indented is None else np.frombuffer(indented, dtype=bool)
    n = len(order)
    block_start = np.zeros(n, dtype=bool)
    size = table.font_size[order]
    block_start[:1] = True
    if n > 1:
        block_start[1:] = block_break(line_break[1:], across, height, size[:-1], size[1:])
    return block_start, _indented_lines(table, order, line_break, thresholds[2:])


def _indented_lines(
    table: GlyphTable, order: np.ndarray, line_break: np.ndarray, thresholds: tuple[float, float, float]
) -> np.ndarray | None:
    """block_starts' indented line starts."""
    indent_min, indent_max, flush_max = thresholds
    line_starts = np.flatnonzero(line_break)
    if len(line_starts) < 2:
        return None
    line_starts = np.concatenate([[0], line_starts])
    first = order[line_starts]
    left = np.einsum("ij,ij->i", rows_at(table.origin, first), rows_at(table.direction, first))
    indent = left[1:-1] - left[:-2]
    flush = np.abs(left[2:] - left[:-2])
    h = table.height[first[1:-1]]
    first_line = (indent > indent_min * h) & (indent < indent_max * h) & (flush < flush_max * h)
    if not first_line.any():
        return None
    result = np.zeros(len(order), dtype=bool)
    result[line_starts[1:-1][first_line]] = True
    return result


def heading_blocks(
    lib: ModuleType | None,
    size: np.ndarray,
    block_start: np.ndarray,
    line_break: np.ndarray,
    thresholds: tuple[float, float, int, float],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Of a reading's positions (`size`: font size, `block_start`, the
    first set, and `line_break` per position), with sizes in half points
    clipped to [0, 2 x MAX_VALUE] and the body size the page's most common
    (the smallest of equals): per block its start, its length, its largest
    size of those at least HEADING_SIZE x the body (0 where none), and
    whether it reads as a heading: at least HEADING_SHARE of its glyphs that
    large, at most HEADING_LINES lines, two glyphs or more, a body above 0,
    and its size setting at most HEADING_PAGE_SHARE of the page's glyphs
    (`thresholds`: those four, labels.block_labels)."""
    heading_size, heading_share, heading_lines, page_share = thresholds
    if lib is not None:
        found = lib.heading_blocks(
            np.ascontiguousarray(size, dtype=np.float64), np.ascontiguousarray(block_start),
            np.ascontiguousarray(line_break), heading_size, heading_share, heading_lines, page_share, float(MAX_VALUE),
        )  # fmt: skip
        starts, length, heading, block_size = found
        return (
            np.frombuffer(starts, dtype=np.int64), np.frombuffer(length, dtype=np.int64),
            np.frombuffer(heading, dtype=bool), np.frombuffer(block_size, dtype=np.int64),
        )  # fmt: skip
    n = len(size)
    half = np.rint(size * 2).astype(np.int64)
    np.clip(half, 0, 2 * MAX_VALUE, out=half)
    glyphs_at = np.bincount(half)
    body = int(np.argmax(glyphs_at))
    starts = np.flatnonzero(block_start)
    length = np.diff(np.concatenate([starts, [n]]))
    large = half >= heading_size * body
    share = np.add.reduceat(large, starts, dtype=np.int64) / length
    lines = np.add.reduceat(line_break, starts, dtype=np.int64) + ~line_break[starts]
    heading = (share >= heading_share) & (lines <= heading_lines) & (length >= 2) & (body > 0)
    block_size = np.maximum.reduceat(half * large, starts)
    # Headings are rare: a size that sets a good part of the page is text.
    heading &= glyphs_at[block_size] <= page_share * n
    return starts, length, heading, block_size
# ---- lrules: kernels of the rule engine's decisions (leaves.py, cut.py) ----
# Where a rule loops in Python over a leaf's runs, redoing n x n work after
# every step, the loop's geometry runs as one kernel that hands the rule the
# steps it takes.


def interleaved_merges(
    lib: ModuleType | None, box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], stacked: float, tol: float
) -> list[tuple[int, int]]:
    """The merges leaves._merge_interleaved makes of runs (boxes x0, y0, x1,
    y1 of `box`, one per run), in order: while two runs interleave (neither
    lies above the other, run_pairs' `above` within `stacked`, and they are
    not apart along the line within `tol`), the first such pair (i, j),
    i < j, in row-major order merges into run i, whose box becomes the
    union of both, and run j goes. A merge moves no box but the merged one,
    so the compiled loop resumes its search there instead of rebuilding the
    n x n relations after every merge."""
    if lib is not None:
        found = lib.interleaved_merges(*(np.ascontiguousarray(v, dtype=np.float64) for v in box), stacked, tol)
        flat = np.frombuffer(found, dtype=np.int64).tolist()
        return list(zip(flat[0::2], flat[1::2], strict=True))
    x0, y0, x1, y1 = (np.array(v, dtype=np.float64) for v in box)
    merges: list[tuple[int, int]] = []
    while len(x0) > 1:
        above, apart, _ = run_pairs(None, (x0, y0, x1, y1), stacked, tol, False)
        tangled = ~(above | above.T | apart)
        np.fill_diagonal(tangled, False)
        if not tangled.any():
            break
        i, j = (int(v) for v in np.argwhere(tangled)[0])
        merges.append((i, j))
        x0[i], y0[i] = np.minimum(x0[i], x0[j]), np.minimum(y0[i], y0[j])
        x1[i], y1[i] = np.maximum(x1[i], x1[j]), np.maximum(y1[i], y1[j])
        x0, y0, x1, y1 = (np.delete(v, j) for v in (x0, y0, x1, y1))
    return merges


def grid_rows(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    descent: float,
    same_row: float,
    padding: float,
    leading: float,
    max_cell_lines: int,
    rtl: bool,
) -> np.ndarray:
    """leaves._grid_rows of lines `ids` (boxes x0, x1, y0, y1 of `box`):
    by rows top to bottom (baselines, `descent` of the height above the
    bottom, within `same_row` of the one before), each row along the line
    (right to left where `rtl`); where four rows or more are parted by
    whitespace and runs of two to `max_cell_lines` rows touch, or lie
    `leading` or less apart where the rows under the first hold fewer lines
    (_cell_lines_below: a cell's wrapped lines), or as many where its cells
    are on two lines (_cells_on_two_lines), padded by `padding` from
    the rows around them, those rows are cells along the line, each cell's
    lines top to bottom; so is a longer run padded on one side whose cells
    hold at most `max_cell_lines` lines (a head of staggered labels:
    _staggered_labels). Every merge of a leaf's runs
    reads its lines so. None from the kernel where an x edge or a baseline is NaN (-inf + inf too):
    numpy's sorts place NaN apart (np.sort(base)[::-1] first, argsort(-base) last); the reference runs."""
    if lib is not None:
        found = lib.grid_rows(*box, _ids(ids), descent, same_row, padding, leading, max_cell_lines, rtl)
        if found is not None:
            return np.frombuffer(found, dtype=np.int64)
    x0, x1, y0, y1 = box
    ordered = _row_major(box, ids, descent, same_row, rtl)
    base = baselines(y0[ordered], y1[ordered], descent)
    # A new row wherever the baseline steps (the row numbers' steps).
    cuts = np.flatnonzero(np.abs(np.diff(base)) > same_row) + 1
    if len(cuts) < 3:  # fewer than four rows
        return ordered
    first_lines = np.concatenate([[0], cuts])
    top = np.maximum.reduceat(y1[ordered], first_lines)
    bottom = np.minimum.reduceat(y0[ordered], first_lines)
    gap = bottom[:-1] - top[1:]  # whitespace under each row, over the next
    counts = np.diff([*first_lines.tolist(), len(ordered)])
    tight = _cell_lines_below(gap, counts, leading, _cells_on_two_lines(gap, counts, leading, padding))
    if not tight.any():
        return ordered
    bounds = [0, *cuts.tolist(), len(ordered)]
    rows = [ordered[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    padded = np.concatenate([[True], gap >= padding, [True]])
    starts = np.concatenate([[0], np.flatnonzero(~tight) + 1]).tolist()
    out: list[np.ndarray] = []
    for first, last in zip(starts, [*starts[1:], len(rows)], strict=True):
        lines = np.concatenate(rows[first:last])
        staggered = _staggered_labels(box, lines, last - first, (padded[first], padded[last]), max_cell_lines, rtl)
        if staggered is not None:
            out.extend(staggered)
        elif 1 < last - first <= max_cell_lines and padded[first] and padded[last]:
            out.extend(_cells_along(box, lines, rtl))
        else:
            # One line, or lines no padding sets apart: rows.
            out.extend(rows[first:last])
    return np.concatenate(out)


def _staggered_labels(
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    lines: np.ndarray,
    rows: int,
    padded: tuple[bool, bool],
    max_cell_lines: int,
    rtl: bool,
) -> list[np.ndarray] | None:
    """grid_rows' reading of a run of touching rows (`lines` on `rows`
    rows, `padded` above and below) chained over more rows than a cell has
    lines: a table's head of labels stacked two or three to a cell, their
    baselines staggered ("Load/Lift" over "Point Height" beside "7 ft" over
    "(2.0 m)", a "REACH" between), whose rows cut across the cells. Where
    the run is padded on one side at least and its lines overlapping along
    the line form cells of at most `max_cell_lines` lines each, they are
    those cells, along the line (kernels._cells_along); None otherwise. A
    table's rows of single lines, however tight, fill a column's cell with
    as many lines as rows, and stay rows.
    Fixture: test_head_of_staggered_labels_reads_cell_by_cell."""
    if rows <= max_cell_lines or not (padded[0] or padded[1]):
        return None
    cells = _cells_along(box, lines, rtl)
    return cells if max(len(cell) for cell in cells) <= max_cell_lines else None


def _cell_lines_below(gap: np.ndarray, counts: np.ndarray, leading: float, two_line_cells: bool) -> np.ndarray:
    """grid_rows' runs: per row after the first (`gap` of whitespace over
    it, `counts` lines per row), does it go on the cells of the row above:
    its boxes touch those above, or it lies `leading` or less under them
    with fewer lines than the run's first row (a cell wrapped at the text's
    leading under a row whose other cells took one line; rows of single
    lines set as tight are a table's rows, each as full as the one above),
    or as many where the table's cells are on two lines (`two_line_cells`,
    _cells_on_two_lines)."""
    tight = np.zeros(len(gap), dtype=bool)
    first = 0
    for r in range(1, len(counts)):
        fewer = counts[r] < counts[first] or (two_line_cells and counts[r] == counts[first])
        tight[r - 1] = gap[r - 1] <= 0 or (gap[r - 1] <= leading and fewer)
        if not tight[r - 1]:
            first = r
    return tight


def _cells_on_two_lines(gap: np.ndarray, counts: np.ndarray, leading: float, padding: float) -> bool:
    """Are a table's cells set on two lines `leading` or less apart (an
    amount over its metric amount, "lb" over "(kg)"), though its rows are
    as full as one another, as padded pairs of one-line rows are: some row
    of two lines or more, padded by `padding` from the row over it, with a
    row as full `leading` or less under it, lies under a row of fewer
    lines or none (a table's first row of two-line cells under its title
    row; the padded pairs of one-line rows lie under a header row as full
    as they are). leaves._wrapped_cells' rule, for a table geometry reads
    (grid_rows: a stream painted out of order is no witness).
    Fixture: test_table_whose_first_row_is_two_line_cells_keeps_its_cells."""
    over = np.concatenate([[0], counts[:-1]])
    padded = np.concatenate([[True], gap >= padding])
    pair = np.concatenate([(gap > 0) & (gap <= leading) & (counts[1:] == counts[:-1]), [False]])
    return bool(np.any(pair & padded & (counts >= 2) & (over < counts)))


def _row_major(box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], ids: np.ndarray, descent: float, same_row: float, rtl: bool) -> np.ndarray:
    """grid_rows' rows: lines `ids` top to bottom by baseline, a new row
    where the baseline steps down by more than `same_row`, each row along
    the line."""
    x0, x1, y0, y1 = box
    base = baselines(y0[ids], y1[ids], descent)
    ids, base = ids[np.argsort(-base, kind="stable")], np.sort(base)[::-1]
    row = np.concatenate([[0], np.cumsum(base[:-1] - base[1:] > same_row)])
    along = -x1[ids] if rtl else x0[ids]
    found: np.ndarray = ids[np.lexsort((along, row))]
    return found


def _cells_along(box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], lines: np.ndarray, rtl: bool) -> list[np.ndarray]:
    """Lines of one table row grouped into cells (lines overlapping along the
    line), the cells along the line, each cell's lines top to bottom."""
    x0, x1, _, y1 = box
    key = -x1[lines] if rtl else x0[lines]
    lines = lines[np.argsort(key, kind="stable")]
    cells: list[list[int]] = []
    reach = -np.inf
    for unit in lines.tolist():
        start, end = (-x1[unit], -x0[unit]) if rtl else (x0[unit], x1[unit])
        if cells and start < reach:
            cells[-1].append(unit)
            reach = max(reach, end)
        else:
            cells.append([unit])
            reach = end
    return [np.array(sorted(c, key=lambda u: -y1[u]), dtype=np.int64) for c in cells]


def row_mates(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    runs: list[np.ndarray],
    descent: float,
    same_row: float,
) -> np.ndarray:
    """Per pair of runs of lines (boxes x0, x1, y0, y1 of `box`; none
    empty): are both one row each (no step wider than `same_row` between
    their sorted baselines, `descent` of the height above the bottom) on
    one baseline (their mean baselines within `same_row`)? Each run is its
    own mate. leaves._row_mates asks it of every leaf the stream is no
    witness of, whose runs are often single lines by the hundred."""
    x0, x1, y0, y1 = box
    if lib is not None:
        found = lib.row_mates(x0, x1, y0, y1, *joined_runs(lib, runs), descent, same_row)
        return np.frombuffer(found, dtype=bool).reshape(len(runs), len(runs))
    lengths = np.array([len(r) for r in runs], dtype=np.int64)
    ids = np.concatenate(runs)
    # All runs' baselines at once: sorted within each run, a run is one row
    # where no step between its sorted baselines is a row's.
    owner = np.repeat(np.arange(len(runs), dtype=np.int64), lengths)
    lines = baselines(y0[ids], y1[ids], descent)
    by_run = np.lexsort((lines, owner))
    steps = (np.diff(lines[by_run]) > same_row) & (np.diff(owner[by_run]) == 0)
    single = np.bincount(owner[by_run][1:][steps], minlength=len(runs)) == 0
    # Each run's mean baseline; a run of one line's is its line's.
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    base = lines[bounds[:-1]]
    for k in np.flatnonzero(lengths > 1).tolist():
        base[k] = lines[bounds[k] : bounds[k + 1]].mean()
    same = np.abs(base[:, None] - base[None, :]) <= same_row
    mates: np.ndarray = (same & single[:, None] & single[None, :]) | np.eye(len(runs), dtype=bool)
    return mates


def blocks_wrap(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    words: tuple[np.ndarray, np.ndarray],
    blocks: list[np.ndarray],
    row_tol: float,
    descent: float,
    paragraph_step: float,
    space: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """wrap_measures of each of `blocks` (lines, none empty) in its rows
    (rows_top_down within `row_tol`), as four arrays, one entry per block:
    pairs, median words, lines, wrapped. One call for every block of a leaf
    (leaves._paragraphs), rather than two kernel calls per block."""
    x0, x1, y0, y1 = box
    count, first_word = words
    if lib is not None:
        lengths = np.array([len(b) for b in blocks], dtype=np.int64)
        ids = np.concatenate(blocks) if blocks else np.zeros(0, dtype=np.int64)
        found = lib.blocks_wrap(x0, x1, y0, y1, count, first_word, _ids(ids), lengths, row_tol, descent, paragraph_step, space)
        pairs, median, lines, wrapped = (np.frombuffer(v, dtype=t) for v, t in zip(found, (np.int64, np.float64, np.int64, np.int64), strict=True))
        return pairs, median, lines, wrapped
    measures = [wrap_measures(None, box, words, rows_top_down(None, y0, y1, b, row_tol), descent, paragraph_step, space) for b in blocks]
    columns = list(zip(*measures, strict=True)) if measures else [(), (), (), ()]
    return tuple(np.array(v, dtype=t) for v, t in zip(columns, (np.int64, np.float64, np.int64, np.int64), strict=True))  # type: ignore[return-value]


def stream_unit_starts(
    lib: ModuleType | None,
    table: GlyphTable,
    stream: np.ndarray,
    moves: tuple[np.ndarray, np.ndarray],
    space: np.ndarray,
    thresholds: tuple[float, float, float],
) -> np.ndarray:
    """Positions in `stream` where a unit starts, 0 first (units.unit_starts):
    per pair of consecutive glyphs, geometric.unit_breaks of the pair's
    line break and gap along the line (`moves`: per position and per pair);
    after a blank (`space`, per position) whose gap lies past `blank_gap` x
    the smaller height, the gap from where the blank starts (its own width
    added). `thresholds`: unit_breaks' (SEGMENT_GAP, SEGMENT_BACK), then
    blank_gap."""
    line_break, gap = moves
    if lib is not None:
        found = lib.stream_unit_starts(
            *_glyph_columns(table), _ids(stream), np.ascontiguousarray(line_break),
            np.ascontiguousarray(gap, dtype=np.float64), np.ascontiguousarray(space), *thresholds,
        )  # fmt: skip
        return np.frombuffer(found, dtype=np.int64)
    height = table.height[stream]
    height, next_height = height[:-1], height[1:]
    cut = unit_breaks(line_break[1:], gap, height, next_height)
    # Only jumps the blank's width could take past the bound need a look.
    near = np.flatnonzero(~cut & (gap > thresholds[2] * np.minimum(height, next_height)))
    near = near[space[near]]
    if len(near):
        glyphs = stream[near]
        width = np.einsum(
            "ij,ij->i", rows_at(table.own_end, glyphs) - rows_at(table.origin, glyphs), rows_at(table.direction, glyphs)
        )
        cut[near] = unit_breaks(line_break[1:][near], gap[near] + width, height[near], next_height[near])
    return np.concatenate([[0], np.flatnonzero(cut) + 1])
class StreamUnits(NamedTuple):
    """What stream_units gives: a page's stream measured and cut into units."""

    moves: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # units.Moves' columns (pair_moves)
    classes: tuple[np.ndarray, np.ndarray]  # per position, str.isalpha and str.isspace (text_classes)
    starts: np.ndarray  # where units start (stream_unit_starts)
    painted_back: np.ndarray  # the positions units.pieces_painted_back tests (units.painted_back_candidates)
    frame: UnitFrame | None  # the units' frame, (1, 0), where every glyph is upright and no position is tested
    backwards: np.ndarray | None  # there, per unit, stream_backward_units' flag (None: not measured)
    lines_apart: bool  # there, with no unit painted backwards: does lines.line_order leave the units as they are


def stream_units(
    lib: ModuleType | None,
    table: GlyphTable,
    stream: np.ndarray,
    ratios: tuple[float, float],
    thresholds: tuple[float, ...],
    line_rules: tuple[float, float, float, float, float, float, int],
) -> StreamUnits | None:
    """units.page_units' measures of `stream` in one compiled pass: the
    moves between its glyphs (pair_moves; `ratios`: the line break ratio and
    UPRIGHT), their text classes (text_classes), the unit starts
    (stream_unit_starts), the positions pieces painted back may start a
    unit at (units.painted_back_candidates); and where every glyph of the
    table is upright (geometric.reading_direction's (1, 0)) and no position
    is to be tested, the units' frame (unit_frame) and backward flags
    (stream_backward_units); and where neither declines and no unit is
    painted backwards (lines.glyphs_along leaves the page as it is),
    whether lines.line_order leaves its units as they are: fewer than two
    placed units, or placed_lines' lines one unit each, no later rule to
    apply and no unit of blanks on a line (line_blanks); False where not
    measured. `thresholds`: SEGMENT_GAP, SEGMENT_BACK, BLANK_GAP,
    BACK_STEP, LINE_BASELINE, DESCENT, SKEWED; `line_rules`: placed_lines'
    MARK_SIZE, LINE_JOIN_GAP, JUSTIFIED_SPACE (in body heights),
    NUMBER_GAP, PIECE_SHARE, ROW_OVERLAP (in body heights), NUMBER_GLYPHS.
    None without the compiled kernels: the reference is the steps
    themselves, in units.page_units and lines.line_order, which
    tests/extract/test_layout_kernels.py holds this to."""
    if lib is None:
        return None
    ratio, upright = ratios
    segment_gap, segment_back, blank_gap, back_step, line_baseline, descent, skewed = thresholds
    found = lib.stream_units(
        *_glyph_columns(table), _ids(stream), np.ascontiguousarray(table.text, dtype=object),
        (ratio, SAME_DIRECTION, segment_gap, segment_back, blank_gap, back_step, line_baseline, upright, descent, skewed, float(MAX_VALUE)),
        line_rules,
    )  # fmt: skip
    line_break, across, gap, height, alpha, space, starts, painted_back, frame, backwards, lines_apart = found
    return StreamUnits(
        (np.frombuffer(line_break, _BOOL), np.frombuffer(across), np.frombuffer(gap), np.frombuffer(height)),
        (np.frombuffer(alpha, _BOOL), np.frombuffer(space, _BOOL)),
        np.frombuffer(starts, _INT64), np.frombuffer(painted_back, _INT64),
        None if frame is None else _upright_frame(frame), None if backwards is None else np.frombuffer(backwards, _BOOL),
        lines_apart,
    )  # fmt: skip


def row_groups(lib: ModuleType | None, top: np.ndarray, bottom: np.ndarray, one_row: np.ndarray, shared: float) -> np.ndarray:
    """Items in reading order (their boxes from `bottom` to `top` across the
    line) cut into groups, as the end of each group: an item joins the
    group before it where both it and the group's first item are one row
    (`one_row`) and its box overlaps every box of the group across the line
    by `shared` of the shorter of the two or more (leaves._cells_along_rows:
    a table row's cells and single lines, painted by baseline)."""
    if lib is not None:
        found = lib.row_groups(np.ascontiguousarray(top, dtype=np.float64), np.ascontiguousarray(bottom, dtype=np.float64), np.ascontiguousarray(one_row, dtype=bool), shared)
        return np.frombuffer(found, dtype=np.int64)
    ends: list[int] = []
    k = 0
    while k < len(top):
        end = k + 1
        while end < len(top) and one_row[k] and one_row[end]:
            overlap = np.minimum(top[k:end], top[end]) - np.maximum(bottom[k:end], bottom[end])
            shorter = np.minimum(top[k:end] - bottom[k:end], top[end] - bottom[end])
            if not np.all(overlap >= shared * shorter):
                break
            end += 1
        ends.append(end)
        k = end
    return np.array(ends, dtype=np.int64)


# -- leaves kernels (leaves.py's rule families) --------------------------------


def flush_visits(lib: ModuleType | None, edge: np.ndarray, runs: list[np.ndarray], slack: float) -> np.ndarray:
    """`runs` (units, none empty) joined in order while the edges `edge` of
    the group so far and of the next run span at most `slack` (np.ptp of
    their concatenation), as the end of each group, in runs
    (leaves._flush_right_visits). A NaN edge joins no group and no run
    joins its group (NaN spans compare false)."""
    if lib is not None:
        return np.frombuffer(lib.flush_visits(np.ascontiguousarray(edge, dtype=np.float64), *joined_runs(lib, runs), slack), dtype=np.int64)
    ids = np.concatenate(runs)
    lengths = np.array([len(r) for r in runs], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    low = np.minimum.reduceat(edge[ids], starts).tolist()
    high = np.maximum.reduceat(edge[ids], starts).tolist()
    ends: list[int] = []
    group = (0.0, 0.0)
    for r, (a, b) in enumerate(zip(low, high, strict=True)):
        if r:
            # np.minimum / np.maximum of two floats: NaN propagates; a
            # group of blanks spans inf - inf, NaN, joined by none.
            lo, hi = np.minimum(group[0], a), np.maximum(group[1], b)
            with np.errstate(invalid="ignore"):
                span = hi - lo
            if span <= slack:
                group, ends[-1] = (float(lo), float(hi)), r + 1
                continue
        group = (a, b)
        ends.append(r + 1)
    return np.array(ends, dtype=np.int64)


def pass_cuts(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    descent: float,
    same_row: float,
    line_step: float,
    run_gap: float,
    pass_edge: float,
    rtl: bool,
) -> np.ndarray:
    """The positions k in `ids` (lines in stream order, boxes x0, x1, y0, y1
    of `box`) where the stream's pass down the leaf ends before line k
    (leaves._passes_in_turn): it goes back up (the baseline, `descent` of
    the height above the bottom, at or above the last one's plus
    `line_step`), across to a line beside the last one off its row
    (baselines more than `same_row` apart, no overlap along the line), or
    down across more than `run_gap` of whitespace to a line whose edge (x0;
    x1 on an `rtl` page) lies more than `pass_edge` from the last one's."""
    x0, x1, y0, y1 = box
    if lib is not None:
        return np.frombuffer(lib.pass_cuts(x0, x1, y0, y1, _ids(ids), descent, same_row, line_step, run_gap, pass_edge, rtl), dtype=np.int64)
    base = baselines(y0[ids], y1[ids], descent)
    a, b = ids[:-1], ids[1:]
    off_row = np.abs(base[1:] - base[:-1]) > same_row
    beside = (np.minimum(x1[a], x1[b]) <= np.maximum(x0[a], x0[b])) & off_row
    edge = x1 if rtl else x0
    with np.errstate(invalid="ignore"):  # blanks' infinite boxes: inf - inf is NaN, no jump
        jump = (y0[a] - y1[b] > run_gap) & (np.abs(edge[a] - edge[b]) > pass_edge)
    return np.flatnonzero((base[1:] >= base[:-1] + line_step) | beside | jump) + 1


def components(lib: ModuleType | None, n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Nodes 0 .. n-1 joined along every edge src[k] - dst[k]: per node, the
    smallest node of its connected component (leaves._merge_grids' groups
    of runs, a union-find over pairs that may number n squared)."""
    if lib is not None:
        return np.frombuffer(lib.components(n, _ids(src), _ids(dst)), dtype=np.int64)
    parent = list(range(n))

    def root(k: int) -> int:
        while parent[k] != k:
            k = parent[k]
        return k

    for a, b in zip(src.tolist(), dst.tolist(), strict=True):
        parent[root(b)] = root(a)
    least: dict[int, int] = {}
    return np.array([least.setdefault(root(k), k) for k in range(n)], dtype=np.int64)


class GridLinks(NamedTuple):
    """What grid_links measures of a leaf's runs."""

    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # per run: x0, y0, x1, y1 (run_boxes)
    links: np.ndarray  # (pairs, 3) int64: runs i < j on one another's baselines, and how many lines they share


def grid_links(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    runs: list[np.ndarray],
    descent: float,
    same_row: float,
    narrow: float,
    tol: float,
) -> GridLinks:
    """leaves._merge_grids' first pass over a leaf's runs of lines (units
    boxes x0, x1, y0, y1 of `box`; none empty): the box of each run, and
    the pairs i < j, in row-major order, of runs both narrower than
    `narrow`, apart along the line (run_pairs' apart within `tol`), where
    more than half of the shorter run's lines (run i where they tie) lie on
    the baseline of a line of the other (within `same_row`,
    shared_baseline_counts), with that count. One compiled pass: no n x n
    matrix, and baselines counted only where two narrow runs lie apart."""
    x0, x1, y0, y1 = box
    if lib is not None:
        found, links = lib.grid_links(x0, x1, y0, y1, *joined_runs(lib, runs), descent, same_row, narrow, tol)
        out = np.frombuffer(found, dtype=np.float64).reshape(4, len(runs))
        return GridLinks((out[0], out[1], out[2], out[3]), np.frombuffer(links, dtype=np.int64).reshape(-1, 3))
    lengths = np.array([len(r) for r in runs], dtype=np.int64)
    run_box = run_boxes(None, (x0, y0, x1, y1), runs)
    narrow_runs = run_box[2] - run_box[0] < narrow
    none = np.zeros((0, 3), dtype=np.int64)
    if np.count_nonzero(narrow_runs) < 2:  # only two narrow runs can link
        return GridLinks(run_box, none)
    _, apart, _ = run_pairs(None, run_box, 0.0, tol, False)
    i, j = np.nonzero(np.triu(apart & narrow_runs[:, None] & narrow_runs[None, :], 1))
    if not len(i):
        return GridLinks(run_box, none)
    pairs, counts = shared_baseline_counts(None, y0, y1, runs, descent, same_row)
    i_short = lengths[i] <= lengths[j]
    short, other = np.where(i_short, i, j), np.where(i_short, j, i)
    keys = short * len(runs) + other
    at = np.minimum(np.searchsorted(pairs, keys), len(pairs) - 1)
    shared = np.where(pairs[at] == keys, counts[at], 0)
    keep = shared * 2 > lengths[short]
    return GridLinks(run_box, np.column_stack([i[keep], j[keep], shared[keep]]).astype(np.int64))


def grid_groups(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    member: np.ndarray,
    links: tuple[np.ndarray, np.ndarray],
    slack: tuple[float, float],
    cell: tuple[float, float],
    rtl: bool,
) -> np.ndarray:
    """leaves._merge_grids' groups of runs (boxes x0, y0, x1, y1 of `box`,
    one per run): the runs joined along `links` (pairs sharing rows) and
    along the pairs of one grid column, one above the other (run_pairs'
    above either way, within `slack`'s stacked) and not apart (within its
    tol): two `member`s of rows, or a member and a cell's wrapped line over
    or under it (a label's first line over its last, which holds the row's
    amounts), stacked at a cell's leading (`cell`: at most leading of
    whitespace between them) and starting on one edge (where lines start:
    left edges, right ones on an `rtl` page, within edge), as a cell's
    lines do (left-set labels). The edge test keeps the link to such cells:
    a figure's caption set tight under its plot's row of tick labels starts
    at no tick's edge (without it, acl2004-dvips p2's caption and y-axis
    ticks joined the x-axis ticks' grid). Per run, the smallest run of its
    group (components)."""
    stacked, tol = slack
    leading, edge = cell
    src, dst = (_ids(v) for v in links)
    if lib is not None:
        member = np.ascontiguousarray(member, dtype=bool)
        columns = (np.ascontiguousarray(v, dtype=np.float64) for v in box)
        return np.frombuffer(lib.grid_groups(*columns, member, src, dst, stacked, tol, leading, edge, rtl), dtype=np.int64)
    x0, y0, x1, y1 = box
    above, apart, _ = run_pairs(None, box, stacked, tol, False)
    start = -x1 if rtl else x0
    with np.errstate(invalid="ignore"):  # infinite edges of a run of blanks: inf - inf
        tight = np.abs(y0[:, None] - y1[None, :]) <= leading
        tight = (tight | tight.T) & (np.abs(start[:, None] - start[None, :]) <= edge)
    column = (member[:, None] & member[None, :]) | (tight & (member[:, None] | member[None, :]))
    above_i, under_j = np.nonzero(np.triu((above | above.T) & ~apart, 1) & column)
    return components(None, len(x0), np.concatenate([src, above_i]), np.concatenate([dst, under_j]))


class LeafStacking(NamedTuple):
    """What leaf_stacking measures of a leaf's runs."""

    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # per run: x0, y0, x1, y1 (run_boxes)
    stacking: RunStacking
    holes: int  # hole_count


def leaf_stacking(
    lib: ModuleType | None,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    runs: list[np.ndarray],
    slack: tuple[float, float],
    rtl: bool,
    filled_holes: int,
) -> LeafStacking:
    """leaves._stacked_in_place's measures of a leaf's runs of lines (unit
    boxes x0, x1, y0, y1 of `box`; none empty), in one compiled pass: the
    box of each run, their run_stacking and their hole_count (`slack`:
    stacked and tol of both)."""
    x0, x1, y0, y1 = box
    stacked, tol = slack
    if lib is not None:
        found = lib.leaf_stacking(x0, x1, y0, y1, *joined_runs(lib, runs), stacked, tol, rtl, filled_holes)
        out = np.frombuffer(found[0], dtype=np.float64).reshape(4, len(runs))
        pairs, upward, runs_up, top, bottom, holes = found[1:]
        stacking = RunStacking(pairs, upward, runs_up, np.frombuffer(top, dtype=np.int64), np.frombuffer(bottom, dtype=np.int64))
        return LeafStacking((out[0], out[1], out[2], out[3]), stacking, holes)
    run_box = run_boxes(None, (x0, y0, x1, y1), runs)
    return LeafStacking(run_box, run_stacking(None, run_box, stacked, tol, rtl), hole_count(run_box, slack, filled_holes))


class LeafTail(NamedTuple):
    """What leaf_tail finds of a leaf's lines in reading order."""

    order: np.ndarray  # leaves._edge_rows' order
    lo: int  # _stack_down's stack: the lines order[lo:hi] ...
    hi: int
    down: np.ndarray | None  # ... top to bottom, where they are one stack painted otherwise; else None


def leaf_tail(
    lib: ModuleType,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    placed: np.ndarray,
    order: np.ndarray,
    limits: tuple[float, float, float],
    rtl: bool,
) -> LeafTail | None:
    """leaves._edges_and_stack's measures, compiled only (its reference is
    leaves._edge_rows and leaves._stack_candidate, which hold the rules): of
    a leaf's lines `order` (unit boxes x0, x1, y0, y1 of `box`, `placed` per
    unit; `limits`: DESCENT, the rows' and the sections' gaps), _edge_rows'
    order, and of that _stack_down's stack. None where no unit is placed
    and a row asks for the page's edge: the reference decides."""
    descent, same_row, section_gap = limits
    columns = (np.ascontiguousarray(v, dtype=np.float64) for v in box)
    found = lib.leaf_tail(*columns, np.ascontiguousarray(placed, dtype=bool), _ids(order), descent, same_row, section_gap, rtl)
    if found is None:
        return None
    edged, lo, hi, down = found
    return LeafTail(np.frombuffer(edged, dtype=np.int64), lo, hi, None if down is None else np.frombuffer(down, dtype=np.int64))


def nested_pairs(box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], slack: tuple[float, float]) -> np.ndarray:
    """Per pair (i, j) of runs (boxes x0, y0, x1, y1 of `box`), i != j: does
    run i lie above run j (run_pairs' above, within `slack`'s stacked), not
    apart (within its tol), the narrower within the wider along the line
    (their overlap at least the narrower's width less tol)?"""
    x0, _, x1, _ = box
    stacked, tol = slack
    above, apart, _ = run_pairs(None, box, stacked, tol, False)
    inner = np.minimum(x1[:, None], x1[None, :]) - np.maximum(x0[:, None], x0[None, :])
    narrower = np.minimum((x1 - x0)[:, None], (x1 - x0)[None, :])
    nested: np.ndarray = above & ~apart & (inner >= narrower - tol) & ~np.eye(len(x0), dtype=bool)
    return nested


def hole_count(box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], slack: tuple[float, float], filled_holes: int) -> int:
    """How many holes the stream fills in a leaf's runs (in paint order,
    boxes x0, y0, x1, y1 of `box`; leaves._holes_filled_later): runs
    painted after a run nested over them (nested_pairs) and then a run
    nested under them. 0 without counting where fewer than `filled_holes`
    runs are painted after a run under them at all (the lowest top so far
    within `slack`'s stacked of their bottom): most leaves."""
    _, y0, _, y1 = box
    lowest = np.minimum.accumulate(y1)
    if np.count_nonzero(lowest[:-1] <= y0[1:] + slack[0]) < filled_holes:
        return 0
    nested = nested_pairs(box, slack)
    n = len(y0)
    earlier = np.tril(np.ones((n, n), dtype=bool), -1)  # [i, j]: j painted before i
    index = np.arange(n)
    first_over = np.where(nested.T & earlier, index[None, :], n).min(axis=1)
    last_under = np.where(nested & earlier, index[None, :], -1).max(axis=1)
    return int(np.count_nonzero(first_over < last_under))


def reads_rtl(lib: ModuleType | None, texts: np.ndarray, order: np.ndarray, sample: int, first_rtl: int) -> bool:
    """Does the text of the glyphs `order` (`texts`: the glyph table's)
    read predominantly right to left? Decided on an even sample of about
    `sample` of them (only the proportion matters), by each one's first
    code point: more in an RTL range (bidi.is_rtl) than Latin letters or
    letters of other left-to-right scripts, and none at all where no code
    point reaches `first_rtl`. Every page (units.Page.rtl) asks it once:
    compiled, one pass over the sample, no glyph texts gathered."""
    step = max(1, len(order) // sample)
    if lib is not None:
        found: bool = lib.reads_rtl(np.ascontiguousarray(texts, dtype=object), _ids(order), step, first_rtl, RTL_EDGES)
        return found
    first = edge_codepoints(texts[order[::step]])[0]
    if not len(first) or first.max() < first_rtl:
        return False
    rtl = is_rtl(first)
    latin = ((first | 0x20) >= ord("a")) & ((first | 0x20) <= ord("z"))
    # Letters of other left-to-right scripts; punctuation, symbols and CJK
    # marks (U+2000-U+303F) have no direction of their own.
    other = (first >= 0xC0) & ~rtl & ~((first >= 0x2000) & (first <= 0x303F))
    return int(rtl.sum()) > int((latin | other).sum())


def paragraph_blocks(
    lib: ModuleType,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    words: tuple[np.ndarray, np.ndarray],
    runs: tuple[np.ndarray, np.ndarray],
    limits: tuple[tuple[float, float, float, float], tuple[int, float, int, float], float],
) -> np.ndarray:
    """leaves._paragraphs compiled, as one flag per block: of the blocks
    (`runs`: their lines joined and their lengths, joined_runs) those whose
    lines wrap as a paragraph's (blocks_wrap's measures, `limits[0]`: row
    tolerance, descent, paragraph step, word space; regions._wrapped's
    verdict, `limits[1]`), but for those with lines of the other blocks
    beside them along the line on whose baselines (within `limits[2]`) more
    than half their lines lie. The rule in leaves.py is the reference."""
    x0, x1, y0, y1 = box
    count, first_word = words
    ids, lengths = runs
    measure, verdict, same_baseline = limits
    found = lib.paragraph_blocks(x0, x1, y0, y1, count, first_word, _ids(ids), lengths, *measure, *verdict, same_baseline)
    return np.frombuffer(found, dtype=bool)


def margin_note(
    lib: ModuleType,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    glyphs: tuple[np.ndarray, np.ndarray, np.ndarray],
    order: np.ndarray,
    limits: tuple[tuple[float, float, float, float, float, float, float], int],
) -> np.ndarray | None:
    """leaves._margin_note compiled: of a leaf's lines `order` (unit boxes
    x0, x1, y0, y1 of `box`; `glyphs`: each unit's first and end glyph and
    per glyph str.isalpha), one flag per line, the lines of its margin note,
    or None where it has none. `limits`: DESCENT, the long line's width, the
    gutter, CELL_PADDING, SAME_BASELINE and MARGIN_NOTE_GAP in points,
    COLUMN_LETTERS; PROSE_LINES. The rule in leaves.py is the reference."""
    measures, prose_lines = limits
    found = lib.margin_note(*box, *glyphs, _ids(order), *measures, prose_lines)
    return None if found is None else np.frombuffer(found, dtype=bool)


def note_over_the_text(
    lib: ModuleType, box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], order: np.ndarray, limits: tuple[float, float], rtl: bool
) -> tuple[np.ndarray, np.ndarray] | None:
    """leaves._note_over_the_text compiled: a page's lines `order` (unit
    boxes x0, x1, y0, y1 of `box`) top to bottom, cut at the first gap of
    `limits[0]` (SECTION_GAP in points) under every line above it into the
    note over it and the lines under it, where the note is two lines or more
    inset in their measure by `limits[1]` (NOTE_INSET in points; leaves._inset_in);
    None otherwise. The rule in leaves.py is the reference."""
    found = lib.note_over_the_text(*box, _ids(order), *limits, rtl)
    if found is None:
        return None
    down, cut = found
    lines = np.frombuffer(down, dtype=np.int64)
    return lines[:cut], lines[cut:]


def column_visits(
    lib: ModuleType,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    runs: list[np.ndarray],
    limits: tuple[float, int, float, float],
    rtl: bool,
) -> tuple[bool, list[tuple[int, int]]]:
    """leaves._column_grid's visits compiled: a leaf's runs (unit boxes x0,
    x1, y0, y1 of `box`; none empty) joined into visits to a column set
    flush with the line's end (flush_visits of the line ends, within
    `limits[0]`), and of those of `limits[1]` lines or more (GRID_ROWS) the
    first and end run of each, and whether the stream paints one of them up
    and down (leaves._values_up_and_down: narrower than `limits[2]`,
    COLUMN_WIDTH in points, some value `limits[3]` or more, NEXT_LINE in
    points, above the one before). The rules in leaves.py are the reference."""
    slack, grid_rows, column_width, next_line = limits
    up, bounds = lib.column_visits(*box, *joined_runs(lib, runs), slack, grid_rows, column_width, next_line, rtl)
    pairs = np.frombuffer(bounds, dtype=np.int64).tolist()
    return up, list(zip(pairs[::2], pairs[1::2], strict=True))


def blocks_ahead(
    lib: ModuleType, box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], runs: list[np.ndarray], rtl: bool
) -> tuple[np.ndarray, np.ndarray] | None:
    """leaves._blocks_ahead compiled: of a leaf's runs in reading order so
    far (unit boxes x0, x1, y0, y1 of `box`; none empty), the blocks level
    with no other run, ascending, and among them [i, j]: is block i wholly
    above and wholly before block j; None where fewer than two runs are
    blocks or every such pair reads so already. The rule in leaves.py is the reference."""
    found = lib.blocks_ahead(*box, *joined_runs(lib, runs), rtl)
    if found is None:
        return None
    alone = np.frombuffer(found[0], dtype=np.int64)
    return alone, np.frombuffer(found[1], dtype=bool).reshape(len(alone), len(alone))


class LeafCells(NamedTuple):
    """leaf_cells' measures of a leaf: its cells' lines (cell_chains) and
    lines per cell, its blocks' lines (block_chains) and lines per block,
    and per block blocks_in_turn's flag."""

    cells: np.ndarray
    cell_length: np.ndarray
    blocks: np.ndarray
    block_length: np.ndarray
    flagged: np.ndarray


def leaf_cells(
    lib: ModuleType,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    limits: tuple[float, float, float, float, float, float],
    max_lines: int,
) -> LeafCells:
    """leaves._cells_and_turns' measures compiled, one call per leaf: the
    nearest_under of lines `ids` once (`limits`: descent, line step), on it
    cell_chains' cells (leading, padding, `max_lines`; none where it is
    negative) and blocks_in_turn's blocks and flags (descent, paragraph
    gap, size change). Those three kernels over nearest_under are the
    reference (leaves.stacked_cells, leaves._painted_in_turn)."""
    found = lib.leaf_cells(*box, _ids(ids), limits, max_lines)
    cells, cell_length, blocks, block_length = (np.frombuffer(v, dtype=np.int64) for v in found[:4])
    return LeafCells(cells, cell_length, blocks, block_length, np.frombuffer(found[4], dtype=bool))


# leaf_front's verdicts (extract/_layout.c FRONT_*): the leaf is one paint
# run; the stream is no witness of its order; it is, and its runs stand;
# the rules decide (a grid or a merge of runs taking turns the kernel leaves to them).
FRONT_ONE_RUN, FRONT_OTHER, FRONT_WITNESS, FRONT_ASK = range(4)


class FrontLimits(NamedTuple):
    """leaf_front's measures besides reads_down's (ReadsDown), in points
    (body heights scaled), and its counts."""

    tol: float
    run_gap: float
    gutter: float
    column_width: float
    piece_gap: float
    pass_edge: float
    stacked: float
    grid_rows: int
    row_returns: int
    turns: int


def leaf_front(
    lib: ModuleType,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ids: np.ndarray,
    limits: tuple[ReadsDown, FrontLimits],
) -> tuple[int, np.ndarray]:
    """leaves._front compiled, one call per leaf: the leaf's paint runs
    (cut positions in `ids`, ascending lines, two or more: paint_run_cuts)
    and the verdict (FRONT_*) of leaf_order's first tests on them,
    reads_down, _column_grid, _rows_in_pieces, _passes_in_turn and
    _lines_in_turn, each the body of its own kernel. The rules in leaves.py
    are the reference (leaves._front_rules)."""
    down, front = limits
    verdict, cuts = lib.leaf_front(*box, _ids(ids), tuple(down), tuple(front[:7]), tuple(front[7:]))
    return verdict, np.frombuffer(cuts, dtype=np.int64)


# leaf_witness' verdicts (extract/_layout.c WITNESS_*): its order stands;
# else the reason the rules decide, the first met (a box not finite, a
# sidebar, cells, a paragraph painted in turn, blocks painted back, runs
# painted up and holes filled later (WITNESS_UP, WITNESS_HOLES: no longer
# asked, both read in kahn's order), a block ahead of another, a tail the
# reference raises on, a run empty or no int64 array).
WITNESS_READ, WITNESS_NOT_FINITE, WITNESS_SIDEBAR, WITNESS_CELLS, WITNESS_TURNED, WITNESS_BACK = range(6)
WITNESS_UP, WITNESS_HOLES, WITNESS_AHEAD, WITNESS_TAIL, WITNESS_RUNS = range(6, 11)
# ... or the page's words are needed and were not given (None): count them and ask again.
WITNESS_WORDS = 11


class WitnessLimits(NamedTuple):
    """leaf_witness' measures besides the text-column test's
    (regions.verdict_limits) and SAME_BASELINE, CELL_PADDING and ALIGNED,
    in points (body heights scaled) but for the shares and counts."""

    gutter: float
    line_step: float  # NEXT_LINE
    leading: float  # CELL_LEADING
    paragraph_gap: float  # blocks.PARAGRAPH_GAP (of the taller line)
    size_change: float  # blocks.FONT_SIZE_CHANGE
    stacked: float
    consistent: float
    section_gap: float
    max_cell_lines: int  # -1: a leaf stacked_cells does not look at
    filled_holes: int
    blocks_back: int


def leaf_witness(
    lib: ModuleType,
    box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    glyphs: tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray], np.ndarray],
    words: tuple[np.ndarray, np.ndarray] | None,
    leaf: tuple[np.ndarray, list[np.ndarray]],
    limits: tuple[tuple[tuple[float, float, int], ColumnLimits, tuple[float, ...]], tuple[float, float, float], WitnessLimits],
    rtl: bool,
) -> tuple[int, np.ndarray | None]:
    """leaves._witnessed compiled, one call per leaf: of a leaf's lines
    (`leaf`: ascending, and its runs, together those lines) whose stream
    is the witness of their order, the verdict (WITNESS_*) and, where the
    rules move nothing but by the bands and the edges (WITNESS_READ), its
    order: the runs in _band_order, through _edge_rows and _stack_down.
    `glyphs`: inked, start, end, the text classes and placed per unit;
    `words`: the words and first word per unit, None where the page has not
    counted them (WITNESS_WORDS where a test needs them); `limits`: the text-column
    test's (regions.verdict_limits), SAME_BASELINE and CELL_PADDING body
    heights and ALIGNED, and WitnessLimits. The rules in leaves.py are the
    reference (leaves._witness_rules)."""
    inked, start, end, (alpha, space), placed = glyphs
    ids, runs = leaf
    column, shared, own = limits
    verdict, order = lib.leaf_witness(
        *box, inked, start, end, alpha, space, *(words or (None, None)), placed, _ids(ids), runs, *column, shared, tuple(own[:8]), tuple(own[8:]), rtl
    )
    return verdict, None if order is None else np.frombuffer(order, dtype=np.int64)
