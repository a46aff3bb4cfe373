"""Pieces of one line, read along the line whatever order they were painted in.

Producers paint a line in one piece, word by word, or in pieces on separate
visits (a bold word, a footnote mark, a line of a table painted cell by cell
in any order). The units of the cut are lines: every placed unit joins the
units beside it on its baseline (``line_order``), so that what comes after
the lines (the cut, the order inside a leaf) never sees a line in pieces;
the spaces a producer paints on visits of their own go inside the lines they
sit on (``blanks_on_their_lines``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ragprep.extract.geometric import SAME_DIRECTION
from ragprep.extract.glyphs import rows_at
from ragprep.extract.layout.kernels import (
    JUSTIFIED_RULE,
    NUMBERED_RULE,
    along_measures,
    line_blanks,
    lines_along,
    marks_beside,
    placed_lines,
    stream_backward_units,
)
from ragprep.extract.layout.params import (
    BACK_STEP,
    DESCENT,
    DOUBLE_STRIKE,
    JUSTIFIED_EVEN,
    JUSTIFIED_SPACE,
    LINE_BASELINE,
    LINE_JOIN_GAP,
    MARK_SIZE,
    NUMBER_GAP,
    NUMBER_GLYPHS,
    PIECE_SHARE,
    ROW_OVERLAP,
)
from ragprep.extract.layout.units import Page

# A section's number: numbers joined by dots, perhaps ending in one (2, 2.1, 3.).
_SECTION_NUMBER = re.compile(r"\d+(\.\d+)*\.?")


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
    ids, mark, line_of_placed, blanks = _lines_of_placed(page, ids)
    if not len(blanks.units) and line_of_placed[-1] == len(ids) - 1:
        return None  # most pages: every line one unit already
    is_mark = np.zeros(len(page.start), dtype=bool)
    is_mark[ids[mark]] = True
    line = np.full(len(page.start), -1, dtype=np.int64)
    line[ids] = line_of_placed
    rank_along = np.zeros(len(page.start), dtype=np.float64)
    rank_along[ids] = np.arange(len(ids))
    line[blanks.units], rank_along[blanks.units] = blanks.line, blanks.rank
    # A blank, like a mark, does not give its line its place in the stream.
    is_mark[blanks.units] = True
    # Other unplaced units (another direction) are lines of their own.
    unplaced = np.flatnonzero(line < 0)
    line[unplaced] = line_of_placed[-1] + 1 + np.arange(len(unplaced))
    units = np.lexsort((rank_along, _first_units(line, is_mark)[line]))
    length = page.end[units] - page.start[units]
    offset = np.cumsum(length) - length
    positions = np.repeat(page.start[units] - offset, length) + np.arange(int(length.sum()))
    if (blanks.host >= 0).any():
        positions = _blanks_among_glyphs(page, positions, units, blanks)
    starts_line = np.concatenate([[True], line[units][1:] != line[units][:-1]])
    return positions, offset[starts_line]


def _lines_by_the_rules(page: Page, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, LineBlanks]:
    """Placed units `ids` (two at least) by row, then along it; per unit
    so ordered, is it a mark beside a line and its line; and the blanks
    placed on their lines: line_order's rules in sequence."""
    height = page.y1[ids] - page.y0[ids]
    base = page.y0[ids] + DESCENT * height
    by_base = np.argsort(-base, kind="stable")
    ids, base, height = ids[by_base], base[by_base], height[by_base]
    smaller = np.minimum(height[:-1], height[1:])
    row = np.concatenate([[0], np.cumsum(base[:-1] - base[1:] > LINE_BASELINE * smaller)])
    row, mark, height = _marks_on_their_lines(page, ids, row, height)
    # Running right edge within each row: offset every row past the last.
    span = float(page.x1[ids].max() - page.x0[ids].min()) + 1.0
    along, line = lines_along(page.lib, (page.x0, page.x1), ids, row, height, (span, LINE_JOIN_GAP))
    ids, offset = ids[along], row[along] * span
    line = _numbered_headings(page, ids, offset, _justified_lines(page, ids, offset, line))
    # Along the line, per unit: blanks go between the units they lie between,
    # and pieces inside a unit's extent among its glyphs.
    blanks = _pieces_inside(page, ids, offset, line, blanks_on_their_lines(page, ids, line, offset))
    return ids, mark[along], line, blanks


def _lines_of_placed(page: Page, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, LineBlanks]:
    """_lines_by_the_rules, its rows, marks and lines measured in one
    compiled pass (kernels.placed_lines) where the kernels are built: of
    the rules after them, only those the pass finds may join lines run (on
    most pages none), and each one that runs has those after it run too."""
    box = (page.x0, page.x1, page.y0, page.y1)
    thresholds = (DESCENT, LINE_BASELINE, MARK_SIZE * page.body, LINE_JOIN_GAP, JUSTIFIED_SPACE * page.body, NUMBER_GAP)
    found = placed_lines(
        page.lib, box, ids, (page.classes[1], page.end, page.inked),
        (*thresholds, PIECE_SHARE, ROW_OVERLAP * page.body), NUMBER_GLYPHS,
    )  # fmt: skip
    if found is None:
        return _lines_by_the_rules(page, ids)
    ids, line, rules = found.ids, found.line, found.rules
    offset = found.row * found.span
    if rules & JUSTIFIED_RULE:
        line = _justified_lines(page, ids, offset, line)
    if rules & (JUSTIFIED_RULE | NUMBERED_RULE):
        line = _numbered_headings(page, ids, offset, line)
    blanks = blanks_on_their_lines(page, ids, line, offset)
    if rules:
        blanks = _pieces_inside(page, ids, offset, line, blanks)
    return ids, found.mark, line, blanks


def _justified_lines(page: Page, ids: np.ndarray, offset: np.ndarray, line: np.ndarray) -> np.ndarray:
    """`line` (per unit `ids`, sorted by row, then along it; `offset`: per
    unit, what sets its row apart along the line) with the lines of a row
    painted a word at a time and justified made one: three or more lines
    of one word each, every one but the last ending in a blank the stream
    painted (the word space: the line goes on), apart by gaps equal to
    within JUSTIFIED_EVEN body heights and no wider than JUSTIFIED_SPACE.
    A browser paints each word of a justified line as a piece of its own,
    placed across a word space stretched wider than LINE_JOIN_GAP allows
    (pdfjs_wikipedia: 0.85 of the text's height), the same across the
    line; read as lines of one word each, a stream painting in another
    order moves words between them. Columns' lines hold many words each,
    a gutter equals a line's word space only by chance, and a table's
    cells of a word each lie further apart.
    Fixture: test_justified_line_painted_a_word_at_a_time_reads_as_one_line."""
    first, gap = _gaps_before_lines(page, ids, offset, line)
    if len(first) < 2:
        return line
    # Per gap between a line and the next one on its row: word, blank, gap, word.
    spaced = (offset[first] == offset[first - 1]) & page.trails_blank(ids[first - 1])
    spaced &= gap <= JUSTIFIED_SPACE * page.body
    joined = np.zeros(len(first), dtype=bool)
    if not (spaced[1:] & spaced[:-1]).any():
        # No two such gaps in a row: nothing to join, and the page's word
        # counts (Page.words, a pass over every glyph) are not needed.
        return _joined(line, first, joined)
    words = np.add.reduceat(page.words[ids], np.concatenate([[0], first]))
    spaced &= (words[:-1] == 1) & (words[1:] == 1)
    even = spaced[1:] & spaced[:-1] & (np.abs(gap[1:] - gap[:-1]) <= JUSTIFIED_EVEN * page.body)
    joined[1:] |= even
    joined[:-1] |= even
    return _joined(line, first, joined)


def _numbered_headings(page: Page, ids: np.ndarray, offset: np.ndarray, line: np.ndarray) -> np.ndarray:
    """`line` (see _justified_lines) with every section number joined to
    the words after it on its row: a line of one unit that is a number
    ("2", "2.1", "3.") and ends in a space the stream painted, followed on
    its row, no further than NUMBER_GAP heights (the smaller), by a line
    that is no number. LaTeX sets a heading's number a quad before its
    title (lualatex-tagpdf: 0.70 and 0.84 of the heading's height, over
    LINE_JOIN_GAP), about as far as the gutter beside it: read apart,
    the numbers of a column's headings make a column of their own.
    Fixture: test_section_number_a_quad_before_its_heading_reads_with_it."""
    first, gap = _gaps_before_lines(page, ids, offset, line)
    height = page.y1[ids] - page.y0[ids]
    smaller = np.minimum(height[first], height[first - 1])
    # The line before the gap is one unit (its first is first - 1, or the page's first).
    alone = np.diff(np.concatenate([[0], first])) == 1
    near = alone & (offset[first] == offset[first - 1]) & (gap <= NUMBER_GAP * smaller)
    near &= page.trails_blank(ids[first - 1]) & (page.inked[ids[first - 1]] <= NUMBER_GLYPHS)
    joined = np.zeros(len(first), dtype=bool)
    for k in np.flatnonzero(near).tolist():
        number, title = (_unit_text(page, int(ids[at])) for at in (first[k] - 1, first[k]))
        # A space, not a tab: a tab stop after a number is a contents
        # list's, whose numbers stand in a column of their own.
        spaced = number.endswith(" ") and _SECTION_NUMBER.fullmatch(number.strip()) is not None
        joined[k] = spaced and _SECTION_NUMBER.fullmatch(title.strip()) is None
    return _joined(line, first, joined) if joined.any() else line


def _gaps_before_lines(page: Page, ids: np.ndarray, offset: np.ndarray, line: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per line of units `ids` but the first (`line`: per unit, its line;
    `offset`: per unit, what sets its row apart along the line), its first
    unit (a position into `ids`) and the gap along the line from the units
    before it on its row (negative across rows)."""
    first = np.flatnonzero(np.diff(line) != 0) + 1
    x0, x1 = page.x0[ids] + offset, page.x1[ids] + offset
    return first, x0[first] - np.maximum.accumulate(x1)[first - 1]


def _joined(line: np.ndarray, first: np.ndarray, joined: np.ndarray) -> np.ndarray:
    """`line` with each line whose first unit `first` (_gaps_before_lines) is `joined` part of the line before it."""
    new_line = np.zeros(len(line), dtype=bool)
    new_line[first[~joined]] = True
    merged: np.ndarray = np.cumsum(new_line)
    return merged


def _pieces_inside(page: Page, ids: np.ndarray, offset: np.ndarray, line: np.ndarray, blanks: LineBlanks) -> LineBlanks:
    """`blanks` (blanks_on_their_lines) with every unit of a line (`ids`
    sorted by row, then along it; `offset`: per unit, what sets its row
    apart along the line; `line`: per unit, its line) whose centre lies
    inside the extent of a unit before it on its line, at most PIECE_SHARE
    as wide, placed as a blank inside that unit is: among its glyphs, where
    its centre lies. LaTeX's logo is an L, a raised small A, a T, a lowered
    E and an X, kerned into one another: painted on visits of their own
    (lualatex-tagpdf p1's twins: the E after the line, the L before it),
    they lie in the gaps of the line's own unit, and read after it ("ATEX
    ... L", "LAT X ... E"), where the line's units only go along the line
    one after another. Only a full-size piece on the unit's baseline, no
    taller than it, is such a piece (the L and the E; the small A is a
    mark, and stays where it is read); a unit painted twice over itself
    (fake bold) is as wide as itself: no piece.
    Fixture: test_logo_piece_painted_apart_reads_inside_its_line."""
    x0, x1 = page.x0[ids] + offset, page.x1[ids] + offset
    reach = np.maximum.accumulate(x1)
    # Per unit, the unit before it that reaches furthest along its row.
    host = np.maximum.accumulate(np.where(x1 == reach, np.arange(len(ids)), 0))
    before, host = reach[:-1], host[:-1]
    centre = (x0[1:] + x1[1:]) / 2
    width = x1 - x0
    inside = (line[1:] == line[host]) & (centre < before) & (width[1:] <= PIECE_SHARE * width[host])
    # Full-size letters on the host's baseline (within LINE_BASELINE of the
    # smaller height), no taller than it: not a raised or lowered mark (an
    # index under an exponent, stacked where the exponent stands), not a
    # fraction's numerator over its denominator, not a big operator.
    height = page.y1[ids] - page.y0[ids]
    base = page.y0[ids] + DESCENT * height
    inside &= height[1:] > MARK_SIZE * page.body
    inside &= height[1:] <= height[host] + ROW_OVERLAP * page.body
    inside &= np.abs(base[1:] - base[host]) <= LINE_BASELINE * np.minimum(height[1:], height[host])
    if not inside.any():
        return blanks
    at = np.array([k for k in (np.flatnonzero(inside) + 1).tolist() if _fills_a_gap(page, int(ids[k]), int(ids[host[k - 1]]))], dtype=np.int64)
    if not len(at):
        return blanks
    return LineBlanks(
        np.concatenate([blanks.units, ids[at]]),
        np.concatenate([blanks.line, line[at]]),
        np.concatenate([blanks.rank, host[at - 1] + 0.25]),
        np.concatenate([blanks.host, ids[host[at - 1]]]),
        np.concatenate([blanks.centre, centre[at - 1] - offset[at]]),
    )


def _fills_a_gap(page: Page, piece: int, host: int) -> bool:
    """Is unit `piece` letters that fill a gap of unit `host`'s glyphs: no
    centre of a full-size glyph of the host (taller than MARK_SIZE of its
    tallest) inside its extent along the line, and the host's glyphs on
    either side of it no further apart than its width and a word space
    (LINE_JOIN_GAP of its height)? A logo's letters are letters; a symbol
    set over a word's letters (naacl06-dvipdfm p7's sum over "patterns")
    covers them, a formula's pieces are no letters alone, and a word set
    in a wider gap (pdfmaker23-word-nist p31's twin: a URL's "the" where
    its "-" and "is" leave room for "the-cloud-") fills part of it; a
    letter kerned into its neighbours (the logo's A under the L's arm is
    small) covers nothing."""
    alpha = page.classes[0]
    if not alpha[page.start[piece] : page.end[piece]].all():
        return False
    positions = np.arange(page.start[host], page.end[host])
    centre = page.along_centres(positions)
    height = page.table.height[page.stream[positions]]
    x0, x1 = float(page.x0[piece]), float(page.x1[piece])
    if ((height > MARK_SIZE * height.max()) & (centre > x0) & (centre < x1)).any():
        return False
    low, high = page.along_extents(positions)
    middle = (x0 + x1) / 2
    inked = np.isfinite(low) & np.isfinite(high)
    before, after = high[inked & (centre < middle)], low[inked & (centre > middle)]
    if not len(before) or not len(after):
        return False
    room = float(after.min() - before.max())
    return room <= x1 - x0 + LINE_JOIN_GAP * float(page.y1[piece] - page.y0[piece])


def _unit_text(page: Page, unit: int) -> str:
    """The text of unit `unit`, its glyphs in stream order."""
    return "".join(page.table.text[page.stream[page.start[unit] : page.end[unit]]].tolist())


@dataclass(frozen=True)
class LineBlanks:
    """Units of blanks placed on their lines (blanks_on_their_lines)."""

    units: np.ndarray  # the units of blanks that sit on a line
    line: np.ndarray  # per such unit, its line
    rank: np.ndarray  # its rank along the line, between those of the line's units
    host: np.ndarray  # the unit whose extent it lies inside of, -1 where none
    centre: np.ndarray  # its centre along the line


def blanks_on_their_lines(page: Page, ids: np.ndarray, line: np.ndarray, offset: np.ndarray) -> LineBlanks:
    """The units made only of blanks that sit on a line of the placed units
    `ids` (sorted by row, then along it, their ranks their positions;
    `line`: per unit, its line; `offset`: per unit, what sets its row apart
    along the line). A producer that paints every space on a visit of its
    own (a piece per Td) leaves units of blanks: no ink, no place in the
    cut, yet the space reads inside the line it sits on: on its baseline
    (within LINE_BASELINE of the smaller height) and touching a unit of the
    line along it (within LINE_JOIN_GAP), never after whatever the stream
    painted before it (another column's line). It goes between the units
    it lies between; one inside a unit's extent (two pieces of a line the
    stream painted one after the other, the space between them painted
    apart) among that unit's glyphs (_blanks_among_glyphs), never between
    the unit and the next. Blanks only go in: the lines are made of inked
    units, so a row of trailing spaces across a narrow gutter joins no two
    columns' lines. A unit of blanks set apart from one another (the
    spaces of a heading painted a glyph at a time, on one visit) lies
    nowhere in particular: it follows the unit painted before it.
    On a page read along (1, 0) one compiled pass (kernels.line_blanks)
    does all of it; the steps below are its reference."""
    frame = (page.along, page.stream, page.start, page.inked, page.aligned)
    box = (page.x0, page.x1, page.y0, page.y1)
    found = line_blanks(page.lib, page.table, frame, box, (ids, line, offset), (DESCENT, LINE_BASELINE, LINE_JOIN_GAP))
    if found is not None:
        return LineBlanks(*found)
    blanks, (x0, x1, base, height, width) = page.blank_units()
    if len(blanks):
        together = x1 - x0 <= width + LINE_JOIN_GAP * height
        blanks, x0, x1, base, height = blanks[together], x0[together], x1[together], base[together], height[together]
    if not len(blanks):  # the usual page: no unit of blanks to place
        none = np.zeros(0, dtype=np.int64)
        return LineBlanks(none, none, np.zeros(0), none, np.zeros(0))
    blank, unit = _nearest_units(page, ids, (x0, x1, base, height))
    centre = (x0[blank] + x1[blank]) / 2
    inside = (page.x0[ids][unit] < centre) & (centre < page.x1[ids][unit])
    # Otherwise after the last unit of its line that starts before it.
    before = np.searchsorted(page.x0[ids] + offset, centre + offset[unit], side="right") - 1
    last_of_line = np.searchsorted(line, line[unit], side="right") - 1
    # Those inside a unit right after it, before the blanks after it.
    rank = np.where(inside, unit + 0.25, np.minimum(before, last_of_line) + 0.5)
    return LineBlanks(blanks[blank], line[unit], rank, np.where(inside, ids[unit], -1), centre)


def _nearest_units(
    page: Page, ids: np.ndarray, box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Per blank unit (`box`: x0, x1 along the line, baseline, height) that
    lies on the baseline of one of units `ids` and within LINE_JOIN_GAP of
    it along the line (both of the smaller height), its number and the
    nearest such unit's (a position into `ids`): the least gap along the
    line, then the nearest baseline."""
    x0, x1, base, height = box
    if not len(base) or not len(ids):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    unit_height = page.y1[ids] - page.y0[ids]
    unit_base = page.y0[ids] + DESCENT * unit_height
    by_base = np.argsort(unit_base, kind="stable")
    lo = np.searchsorted(unit_base[by_base], base - LINE_BASELINE * height, side="left")
    count = np.searchsorted(unit_base[by_base], base + LINE_BASELINE * height, side="right") - lo
    blank = np.repeat(np.arange(len(base)), count)
    unit = by_base[np.repeat(lo - np.cumsum(count) + count, count) + np.arange(int(count.sum()))]
    smaller = np.minimum(unit_height[unit], height[blank])
    gap = np.maximum(np.maximum(page.x0[ids][unit] - x1[blank], x0[blank] - page.x1[ids][unit]), 0.0)
    step = np.abs(unit_base[unit] - base[blank])
    near = (step <= LINE_BASELINE * smaller) & (gap <= LINE_JOIN_GAP * smaller)
    blank, unit = blank[near], unit[near]
    nearest = np.lexsort((step[near], gap[near], blank))
    blank, unit = blank[nearest], unit[nearest]
    first = np.concatenate([[True], blank[1:] != blank[:-1]]) if len(blank) else np.zeros(0, dtype=bool)
    return blank[first], unit[first]


def _blanks_among_glyphs(page: Page, positions: np.ndarray, units: np.ndarray, blanks: LineBlanks) -> np.ndarray:
    """`positions` (the glyphs of `units` in that order) with the glyphs of
    every unit of `blanks` that lies inside its host unit's extent (it
    comes right after its host, or after another blank of that host) moved
    before the host's first inked glyph whose centre lies past its own."""
    positions = positions.copy()
    length = page.end[units] - page.start[units]
    offset = np.cumsum(length) - length
    host_of = dict(zip(blanks.units.tolist(), blanks.host.tolist(), strict=True))
    centre_of = dict(zip(blanks.units.tolist(), blanks.centre.tolist(), strict=True))
    for first in np.flatnonzero(np.isin(units, blanks.host[blanks.host >= 0])).tolist():
        host, last = int(units[first]), first + 1
        while last < len(units) and host_of.get(int(units[last]), -1) == host:
            last += 1
        segment = positions[offset[first] : offset[last - 1] + length[last - 1]]
        centre = page.along_centres(segment[: length[first]])
        key = np.arange(len(segment), dtype=np.float64)
        for k in range(first + 1, last):
            past = np.flatnonzero(np.isfinite(centre) & (centre > centre_of[int(units[k])]))
            if len(past):
                # Just before that glyph, the blank's glyphs in their order.
                at = int(offset[k] - offset[first])
                key[at : at + length[k]] = past[0] - 0.5 + np.arange(length[k]) / (length[k] + 1)
        segment[:] = segment[np.argsort(key, kind="stable")]
    return positions


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


def _marks_on_their_lines(
    page: Page, ids: np.ndarray, row: np.ndarray, height: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`row` (per unit `ids`, its row by baseline) with every mark set in
    smaller print beside a line (a footnote mark or a reference raised
    above the baseline, an index below it: MARK_SIZE of the body height or
    less, its box's middle within the line's box, touching it along the
    line within LINE_JOIN_GAP of its height) on that line's row, per unit
    whether it is such a mark (painted on a visit of its own, it still
    reads inside its line), and `height` (per unit, its box's) with each
    mark's its line's: a mark is spaced as its line is, and the word space
    after a raised reference is the line's, wider than the mark's own
    height allows."""
    small = np.flatnonzero(height <= MARK_SIZE * page.body)
    mark = np.zeros(len(ids), dtype=bool)
    if not len(small) or len(small) == len(ids):
        return row, mark, height
    box = (page.x0, page.x1, page.y0, page.y1)
    beside = marks_beside(page.lib, box, ids, MARK_SIZE * page.body, LINE_JOIN_GAP)
    mark = beside >= 0
    if mark.any() and not mark[small].all():
        beside, mark = _marks_beside_marks(page, ids, beside, mark)
    row = row.copy()
    row[mark] = row[beside[mark]]
    return row, mark, np.where(mark, height[np.maximum(beside, 0)], height)


def _marks_beside_marks(page: Page, ids: np.ndarray, beside: np.ndarray, mark: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`beside` and `mark` (see _marks_on_their_lines) with the marks that
    touch a mark of a line, rather than the line, on that line too: a raised
    reference painted in pieces on visits of its own (a browser's "[9" and
    its "]") reads inside its line, all of it. Each line's extent along the
    line grows by its marks, and the marks not yet placed are looked for
    again, until no more are found (a chain of pieces, one at a time).
    Fixture: test_raised_reference_painted_in_pieces_reads_inside_its_line."""
    x0, x1 = page.x0.copy(), page.x1.copy()
    while True:
        hosts, marks = ids[beside[mark]], ids[mark]
        np.minimum.at(x0, hosts, page.x0[marks])
        np.maximum.at(x1, hosts, page.x1[marks])
        again = marks_beside(page.lib, (x0, x1, page.y0, page.y1), ids, MARK_SIZE * page.body, LINE_JOIN_GAP)
        found = (again >= 0) & ~mark
        if not found.any():
            return beside, mark
        beside = np.where(found, again, beside)
        mark = mark | found


def glyphs_along(page: Page, backwards: np.ndarray | None = None) -> np.ndarray | None:
    """Stream positions with the glyphs of every unit that the stream paints
    backwards along the line sorted along the line by their centres; None
    when no unit does (`backwards`: per unit, is it painted backwards,
    where already measured: units.page_units). A unit is one visit of the stream to a line; where
    it steps back by more than a glyph height (the pieces of a line painted
    last to first, a glyph or a word at a time), its glyphs still read along
    the line. Steps back by less (an accent over its letter, a kern) and
    units that paint the same glyphs twice in one place (fake bold) keep
    their order; right-to-left pages paint their lines backwards in logical
    order, which join() reads itself."""
    if page.rtl or len(page.stream) < 2:
        return None
    table, stream = page.table, page.stream
    # Only glyphs set in the page's writing direction: along its own
    # direction, a line turned the other way (a box of text rotated by 180°
    # among upright ones) steps back as it goes forward. A glyph at a time,
    # backwards: each step back narrower than a glyph height (a title's
    # letters painted last to first), BACK_STEP heights or more.
    if backwards is None:
        backwards = stream_backward_units(page.lib, table, stream, page.along, (page.start, page.end), BACK_STEP)
    if not backwards.any():
        return None
    x, height, _ = along_measures(table, stream, page.along)
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
