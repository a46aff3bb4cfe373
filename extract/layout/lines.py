"""Pieces of one line, read along the line whatever order they were painted in.

Producers paint a line in one piece, word by word, or in pieces on separate
visits (a bold word, a footnote mark, a line of a table painted cell by cell
in any order). The units of the cut are lines: every placed unit joins the
units beside it on its baseline (``line_order``), so that what comes after
the lines (the cut, the order inside a leaf) never sees a line in pieces.
"""

from __future__ import annotations

import numpy as np

from ragprep.extract.geometric import SAME_DIRECTION
from ragprep.extract.layout.kernels import backward_units, marks_beside
from ragprep.extract.layout.params import BACK_STEP, DESCENT, DOUBLE_STRIKE, LINE_BASELINE, LINE_JOIN_GAP, MARK_SIZE
from ragprep.extract.layout.units import Page


def line_order(page: Page) -> tuple[np.ndarray, np.ndarray] | None:
    """Stream positions with the units of each line together, along the line,
    and where each line starts; None when every line is one unit already.

    A line is a run of placed units side by side on one baseline: baselines
    within LINE_BASELINE of the smaller height of each other and, along the
    line, no gap wider than LINE_JOIN_GAP x the smaller height. That is a
    word space, even a justified one, and narrower than the unit cut's
    SEGMENT_GAP: two units the stream painted apart join only where nothing
    but a word space could part them, never across a gutter as narrow as a
    glyph height, nor with a heading of the next column on a baseline near
    a line's. Lines keep the place of their first painted unit; their units
    go along the line (left to right in the frame: join() puts right-to-left
    lines in logical order itself). A producer that paints a line word by
    word, in any order, or a line's pieces on separate visits, gives one
    line."""
    ids = np.flatnonzero(page.placed)
    if len(ids) < 2:
        return None
    height = page.y1[ids] - page.y0[ids]
    base = page.y0[ids] + DESCENT * height
    by_base = np.argsort(-base, kind="stable")
    ids, base, height = ids[by_base], base[by_base], height[by_base]
    smaller = np.minimum(height[:-1], height[1:])
    row = np.concatenate([[0], np.cumsum(base[:-1] - base[1:] > LINE_BASELINE * smaller)])
    row, mark = _marks_on_their_lines(page, ids, row)
    along = np.lexsort((page.x0[ids], row))
    ids, row = ids[along], row[along]
    is_mark = np.zeros(len(page.start), dtype=bool)
    is_mark[ids[mark[along]]] = True
    # Running right edge within each row: offset every row past the last.
    span = float(page.x1[ids].max() - page.x0[ids].min()) + 1.0
    x0, x1 = page.x0[ids] + row * span, page.x1[ids] + row * span
    reach = np.maximum.accumulate(x1)
    height = page.y1[ids] - page.y0[ids]
    smaller = np.minimum(height[:-1], height[1:])
    new_line = (row[1:] != row[:-1]) | (x0[1:] - reach[:-1] > LINE_JOIN_GAP * smaller)
    if new_line.all():
        return None
    line = np.empty(len(page.start), dtype=np.int64)
    line[:] = -1
    line_of_placed = np.concatenate([[0], np.cumsum(new_line)])
    line[ids] = line_of_placed
    # Unplaced units are lines of their own.
    unplaced = np.flatnonzero(line < 0)
    line[unplaced] = line_of_placed[-1] + 1 + np.arange(len(unplaced))
    rank_along = np.empty(len(page.start), dtype=np.int64)
    rank_along[ids] = np.arange(len(ids))
    rank_along[unplaced] = 0
    units = np.lexsort((rank_along, _first_units(line, is_mark)[line]))
    length = page.end[units] - page.start[units]
    offset = np.cumsum(length) - length
    positions = np.repeat(page.start[units] - offset, length) + np.arange(int(length.sum()))
    starts_line = np.concatenate([[True], line[units][1:] != line[units][:-1]])
    return positions, offset[starts_line]


def _first_units(line: np.ndarray, is_mark: np.ndarray) -> np.ndarray:
    """Per line (`line`: per unit, its line), the place it keeps: its first
    painted unit's, a mark's (`is_mark`) only where the line is nothing else."""
    number = np.arange(len(line))
    first_unit = np.full(int(line.max()) + 1, len(line), dtype=np.int64)
    np.minimum.at(first_unit, line, number)
    first_main = np.full(len(first_unit), len(line), dtype=np.int64)
    np.minimum.at(first_main, line[~is_mark], number[~is_mark])
    found: np.ndarray = np.where(first_main < len(line), first_main, first_unit)
    return found


def _marks_on_their_lines(page: Page, ids: np.ndarray, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`row` (per unit `ids`, its row by baseline) with every mark set in
    smaller print beside a line (a footnote mark or a reference raised
    above the baseline, an index below it: MARK_SIZE of the body height or
    less, its box's middle within the line's box, touching it along the
    line within LINE_JOIN_GAP of its height) on that line's row, and per
    unit whether it is such a mark: painted on a visit of its own, it
    still reads inside its line."""
    height = page.y1[ids] - page.y0[ids]
    small = np.flatnonzero(height <= MARK_SIZE * page.body)
    mark = np.zeros(len(ids), dtype=bool)
    if not len(small) or len(small) == len(ids):
        return row, mark
    box = (page.x0, page.x1, page.y0, page.y1)
    beside = marks_beside(page.lib, box, ids, MARK_SIZE * page.body, LINE_JOIN_GAP)
    mark = beside >= 0
    row = row.copy()
    row[mark] = row[beside[mark]]
    return row, mark


def glyphs_along(page: Page) -> np.ndarray | None:
    """Stream positions with the glyphs of every unit that the stream paints
    backwards along the line sorted along the line by their centres; None
    when no unit does. A unit is one visit of the stream to a line; where
    it steps back by more than a glyph height (the pieces of a line painted
    last to first, a glyph or a word at a time), its glyphs still read along
    the line. Steps back by less (an accent over its letter, a kern) and
    units that paint the same glyphs twice in one place (fake bold) keep
    their order; right-to-left pages paint their lines backwards in logical
    order, which join() reads itself."""
    if page.rtl or len(page.stream) < 2:
        return None
    table, stream = page.table, page.stream
    centre = (table.origin[stream] + table.own_end[stream]) / 2
    x = centre @ page.along
    height = table.height[stream]
    # Only glyphs set in the page's writing direction: along its own
    # direction, a line turned the other way (a box of text rotated by 180°
    # among upright ones) steps back as it goes forward. A glyph at a time,
    # backwards: each step back narrower than a glyph height (a title's
    # letters painted last to first), BACK_STEP heights or more.
    aligned = table.direction[stream] @ page.along >= SAME_DIRECTION
    backwards = backward_units(page.lib, x, height, aligned, (page.start, page.end), BACK_STEP)
    if not backwards.any():
        return None
    unit = np.repeat(np.arange(len(page.start)), page.end - page.start)
    key = np.where(backwards[unit], x, np.arange(len(stream), dtype=np.float64))
    order = np.lexsort((key, unit))
    # Sorted, a glyph painted twice lands on itself: such units keep paint order.
    texts = table.text[stream[order]]
    on_itself = (np.abs(np.diff(x[order])) < DOUBLE_STRIKE * height[order][1:]) & (texts[1:] == texts[:-1])
    doubled = np.zeros(len(page.start), dtype=bool)
    doubled[unit[order][1:][on_itself & (unit[order][1:] == unit[order][:-1])]] = True
    if doubled.any():
        key = np.where((backwards & ~doubled)[unit], x, np.arange(len(stream), dtype=np.float64))
        order = np.lexsort((key, unit))
    return order if (backwards & ~doubled).any() else None
