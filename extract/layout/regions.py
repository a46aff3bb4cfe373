"""Rows, whitespace gaps, gutters and the text-column test: the geometry the cut measures.

Only text columns count, and columns set on their own. A vertical cut is
accepted between two groups of units that look like running text
(``is_text_column``: at least two rows, COLUMN_WIDTH body heights wide, or
NARROW_COLUMN where the lines wrap as a paragraph's do (``wraps``), rows that
fill the width and are single lines rather than several cells side by side,
enough glyphs per row, mostly letters; lines stacked in one row because a
tall bullet reaches into the line above are no cells), or between two wide
groups whose lines do not share baselines (``own_rows``). Table columns,
list numbers beside their items, labels beside values fail, and a region
without an accepted cut is one leaf.
"""

from __future__ import annotations

from typing import Any, overload

import numpy as np

from ragprep.extract.layout.params import (
    ALIGNED,
    CELL_PADDING,
    COLUMN_FILL,
    COLUMN_GLYPHS,
    COLUMN_LETTERS,
    COLUMN_SPLIT_ROWS,
    COLUMN_WIDTH,
    DESCENT,
    GRID_ROWS,
    LETTER_SAMPLE,
    GUTTER_SUPPORT,
    NARROW_COLUMN,
    PARAGRAPH_STEP,
    PROSE_LINES,
    PROSE_SHARE,
    ROW_OVERLAP,
    SAME_BASELINE,
    SECTION_GAP,
    WRAP_PAIRS,
    WRAP_SPACE,
    WRAP_WORDS,
    WRAPPED,
)
from ragprep.extract.layout.kernels import (
    ColumnLimits,
    GroupMeasures,
    baselines,
    block_firsts,
    blocks_wrap,
    column_verdicts,
    wrap_measures,
    group_measures,
    gutter_cells,
    rows_top_down,
    section_breaks,
    shared_baseline_counts,
    shared_pair,
    side_by_side_pairs,
)
from ragprep.extract.layout.units import Page


def lines_side_by_side(page: Page, ids: np.ndarray) -> bool:
    """Is the region of units `ids` wide enough for two text columns and a
    gutter, and are there among them at least two pairs of lines as long
    as a text column's next to each other across a gutter? Without them no
    cut can find two text columns, and the region is not cut at all.
    Neighbours in top-to-bottom order are enough to look at: lines of two
    columns alternate in that order (or tie, on aligned baselines, and then
    keep stream order next to each other). One kernel call measures both."""
    box = (page.x0, page.x1, page.y0, page.y1)
    width, long, pairs = side_by_side_pairs(page.lib, box, ids, COLUMN_FILL * NARROW_COLUMN * page.body, page.gutter)
    if width < 2 * NARROW_COLUMN * page.body + page.gutter:
        return False
    return long >= 4 and pairs >= 2


def rows_of(page: Page, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Units `ids` sorted top to bottom, and the positions where a new row
    starts: a row ends where a horizontal line crosses none of its units.
    Kept per region: a column is looked at by its parent and by itself."""
    key = ids.tobytes()
    rows = page.rows.get(key)
    if rows is None:
        rows = page.rows[key] = rows_top_down(page.lib, page.y0, page.y1, ids, ROW_OVERLAP * page.body)
    return rows


def is_text_column(page: Page, ids: np.ndarray) -> bool:
    """Running text: two rows or more, wide enough, rows filling the width,
    rows that are single lines rather than several cells, enough glyphs per
    row, mostly letters. Table columns of dates, amounts or short labels, and
    groups of table columns, fail at least one of these. Kept per group (in
    its order, which the letter sample follows): the cut, the leaves and
    the tie-breaks ask it of the same groups."""
    key = ids.tobytes()
    found = page.text_columns.get(key)
    if found is None:
        if page.lib is None:
            found = page.text_columns[key] = _is_text_column(page, ids)
        else:
            judge(page, [ids])
            found = page.text_columns[key]
    return found


# Fewer units than this, and neither test holds, unmeasured: a text column
# has two rows or more, prose PROSE_LINES lines.
_MEASURED = min(2, PROSE_LINES)


def judge(page: Page, groups: list[np.ndarray]) -> None:
    """is_text_column and holds_prose of each group of `groups` (int64
    arrays) not judged yet, kept: one kernel call for them all
    (kernels.column_verdicts: the rules of _is_text_column and _holds_prose,
    compiled, on _measures' measures). The cut asks both tests of every
    group between a region's gutters, every band of it and every part of a
    column: judged together, where each group took a call of its own. A
    page without the kernels judges each group as it is asked (the rules)."""
    lib = page.lib
    if lib is None:
        return
    fresh = {key: group for group in groups if (key := group.tobytes()) not in page.text_columns}
    if not fresh:
        return
    measured = [group for group in fresh.values() if len(group) >= _MEASURED]
    codes = iter(column_verdicts(lib, *_column_tests(page), measured, *_column_limits(page)) if measured else b"")
    for key, group in fresh.items():
        _keep_verdicts(page, key, group, next(codes) if len(group) >= _MEASURED else 0)


def _column_tests(
    page: Page,
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray, tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]]:
    """What column_verdicts measures of a page's units: their boxes, inked
    glyphs and glyphs with their text classes (as _measures passes them)."""
    return (page.x0, page.x1, page.y0, page.y1), page.inked, (page.start, page.end, page.classes)


def _column_limits(page: Page) -> tuple[tuple[float, float, int], ColumnLimits]:
    """The measures' parameters and the tests' thresholds of column_verdicts
    on this page: _measures' and _is_text_column's and _holds_prose's."""
    measure, limits, _ = verdict_limits(page)
    return measure, limits


def verdict_limits(
    page: Page,
) -> tuple[tuple[float, float, int], ColumnLimits, tuple[float, float, float, int, float, int, float]]:
    """What the text-column and prose tests (judge's) measure and decide
    by on this page, and wraps' measure and verdict (WRAP_VERDICT): what
    kernels.column_groups asks of each group it judges. Built once per
    page (Kept.limits): the cut and the leaves ask them of hundreds of
    groups, and a ColumnLimits costs more to build than a kernel's answer."""
    found: tuple[tuple[float, float, int], ColumnLimits, tuple[float, float, float, int, float, int, float]] | None
    found = page.kept.limits.get("verdicts")
    if found is None:
        body = page.body
        measure = (ROW_OVERLAP * body, COLUMN_FILL, LETTER_SAMPLE)
        limits = ColumnLimits(NARROW_COLUMN * body, COLUMN_WIDTH * body, COLUMN_SPLIT_ROWS, COLUMN_GLYPHS, COLUMN_LETTERS, PROSE_LINES, PROSE_SHARE)
        found = page.kept.limits["verdicts"] = (measure, limits, (DESCENT, PARAGRAPH_STEP, WRAP_SPACE * body, *WRAP_VERDICT))
    return found


def _keep_verdicts(page: Page, key: bytes, ids: np.ndarray, code: int) -> None:
    """Keep column_verdicts' `code` of the group `ids` (its bytes `key`):
    bits 0-1 the text column test, 2 where it holds if the lines wrap (asked
    here, wraps, on the rows _is_text_column measures), bit 2 the prose test."""
    text = code & 3
    page.text_columns[key] = text == 1 or (text == 2 and wraps(page, *rows_of(page, ids)))
    page.kept.prose[key] = bool(code & 4)


def _is_text_column(page: Page, ids: np.ndarray) -> bool:
    """is_text_column, uncached."""
    if len(ids) < 2:
        return False
    measured = _measures(page, ids)
    width = measured.width
    if width < NARROW_COLUMN * page.body:
        return False
    ids, starts = measured.rows
    if len(starts) < 2:
        return False
    if width < COLUMN_WIDTH * page.body and not wraps(page, ids, starts):
        return False
    if measured.extent < COLUMN_FILL * width:
        return False
    # A line of running text is one unit; a table row is several cells side
    # by side. Units stacked in one row are lines that a tall glyph (a
    # bullet whose font has a deep box) makes overlap: no cells.
    # (side_by_side: rows of several units with whitespace between two.)
    if measured.side_by_side > COLUMN_SPLIT_ROWS * len(starts):
        return False
    if measured.glyphs < COLUMN_GLYPHS:
        return False
    return _letter_share(measured) >= COLUMN_LETTERS


def _measures(page: Page, ids: np.ndarray) -> GroupMeasures:
    """What the text-column and prose tests measure of the group `ids`
    (kernels.group_measures: its width, its rows, their extents, the
    letters of a sample of its glyphs, its long lines), in one pass.
    Kept per group: holds_prose is mostly asked of is_text_column's groups;
    its rows are rows_of's."""
    key = ids.tobytes()
    found = page.kept.measures.get(key)
    if found is None:
        box = (page.x0, page.x1, page.y0, page.y1)
        measure = (ROW_OVERLAP * page.body, COLUMN_FILL, LETTER_SAMPLE)
        found = page.kept.measures[key] = group_measures(page.lib, box, page.inked, (page.start, page.end, page.classes), ids, measure)
        page.rows.setdefault(key, found.rows)
    return found


def _letter_share(measured: GroupMeasures) -> float:
    """Share of letters (any script, str.isalpha) among the glyphs of a
    group, estimated on an even sample of them (kernels.letter_counts)."""
    return measured.letters / measured.inked if measured.inked else 0.0


def wraps(page: Page, ids: np.ndarray, starts: np.ndarray) -> bool:
    """Do the lines of the group (units `ids` in rows starting at `starts`,
    see rows_of) wrap like a paragraph's: of the rows that are one line
    followed by a row of one line, at least WRAPPED (and two) end where the
    next line's first word, after a word space, would not have fitted in
    the group's width? A greedy line breaker fills every line but a
    paragraph's last (a line a paragraph gap follows is not counted); a table's cells end where their content ends, short
    of the next row's first word. The test that tells a box of two narrow
    columns of prose (narrower than COLUMN_WIDTH) from a table's columns.
    Fixture: test_narrow_prose_columns_in_a_box_read_column_after_column."""
    # Measured (kernels.wrap_measures): the pairs of single-line rows; a
    # paragraph's last line does not wrap, so a line a paragraph gap (a step
    # down wider than PARAGRAPH_STEP leadings) follows says nothing, nor
    # does a line of one word (an address, a name), which fits nowhere but
    # alone; of the lines left, those the next line's first word would not
    # have fitted beside.
    box = (page.x0, page.x1, page.y0, page.y1)
    words = (page.words, page.first_word)
    measures = wrap_measures(page.lib, box, words, (ids, starts), DESCENT, PARAGRAPH_STEP, WRAP_SPACE * page.body)
    return bool(_wrapped(*measures))


def blocks_wrapping(page: Page, blocks: list[np.ndarray]) -> list[bool]:
    """Per block of lines (two or more each), do its lines wrap like a
    paragraph's (wraps, of the block in its rows)? Every block measured in
    one kernel call (kernels.blocks_wrap): leaves._paragraphs asks it of
    every block of a leaf."""
    if not blocks:
        return []
    box = (page.x0, page.x1, page.y0, page.y1)
    words = (page.words, page.first_word)
    measures = blocks_wrap(page.lib, box, words, blocks, *block_wrap_limits(page))
    flags: list[bool] = _wrapped(*measures).tolist()
    return flags


def block_wrap_limits(page: Page) -> tuple[float, float, float, float]:
    """blocks_wrapping's measure (kernels.blocks_wrap): the row tolerance,
    DESCENT, the paragraph step and the word space."""
    return ROW_OVERLAP * page.body, DESCENT, PARAGRAPH_STEP, WRAP_SPACE * page.body


# wraps' verdict (_wrapped): pairs, median words, lines judged, share wrapped.
WRAP_VERDICT = (2, WRAP_WORDS, WRAP_PAIRS, WRAPPED)


def _wrapped(pairs: Any, median_words: Any, lines: Any, wrapped: Any) -> Any:
    """wraps' verdict from wrap_measures' counts (scalars, or arrays of
    them per group): two pairs at least; a median line of WRAP_WORDS words
    or more (not short lines of a word or two: an address, a list of
    names); WRAP_PAIRS lines or more to judge; and WRAPPED of them wrapped
    (WRAP_VERDICT, which kernels.paragraph_blocks applies too)."""
    min_pairs, min_words, min_lines, share = WRAP_VERDICT
    return (pairs >= min_pairs) & (median_words >= min_words) & (lines >= min_lines) & (wrapped >= share * lines)


def holds_prose(page: Page, ids: np.ndarray) -> bool:
    """Is the group `ids` a column of prose among other things: as wide as a
    text column, with PROSE_SHARE of its rows (and PROSE_LINES at least)
    holding a line that fills COLUMN_FILL of its width? A LaTeX column with
    a table of contents, displayed equations and lists fails is_text_column
    (too many rows of several pieces) but is read as a column all the same;
    a table's columns of labels, numbers or short cells have no such lines.
    Kept per group, as is_text_column, which is mostly asked beside it."""
    key = ids.tobytes()
    found = page.kept.prose.get(key)
    if found is None:
        if page.lib is None:
            found = page.kept.prose[key] = _holds_prose(page, ids)
        else:
            judge(page, [ids])
            found = page.kept.prose[key]
    return found


def _holds_prose(page: Page, ids: np.ndarray) -> bool:
    """holds_prose, uncached."""
    if len(ids) < PROSE_LINES:
        return False
    measured = _measures(page, ids)
    if measured.width < COLUMN_WIDTH * page.body:
        return False
    rows = measured.long_rows
    return rows >= PROSE_LINES and rows >= PROSE_SHARE * len(measured.rows[1]) and _letter_share(measured) >= COLUMN_LETTERS


def own_rows(page: Page, left: np.ndarray, right: np.ndarray) -> bool:
    """Are two groups beside one another across a gutter columns set on
    their own, whatever they hold (a spec sheet's columns of label-value
    tables and lists): each as wide as a text column, of GRID_ROWS lines or
    more, whose lines mostly do not share baselines (at most ALIGNED of
    the smaller group's lie on one of the other's)? A table's columns share
    their rows, whatever their gaps; columns composed on their own lie on
    their own leading. Groups that share rows by a common leading are set
    on their own all the same where their blocks start at their own pace
    (staggered: an author grid), and then as narrow as NARROW_COLUMN: a
    column of names is narrower than one of text. Fixtures:
    test_columns_of_label_value_tables_read_column_after_column
    (merge_fragments keeps such columns apart too),
    test_author_grid_of_staggered_blocks_reads_column_after_column."""
    widths = [page.x1[group].max() - page.x0[group].min() for group in (left, right)]
    if min(len(left), len(right)) < GRID_ROWS or min(widths) < NARROW_COLUMN * page.body:
        return False
    if shared_rows(page, left, right) <= ALIGNED * min(len(left), len(right)):
        return bool(min(widths) >= COLUMN_WIDTH * page.body)
    return staggered(page, left, right)


def staggered(page: Page, a: np.ndarray, b: np.ndarray) -> bool:
    """Are groups `a` and `b`, beside one another, blocks set each at its
    own pace though on one leading: at most ALIGNED of the first lines of
    the smaller group's blocks (block_starts) lie on the baseline of a
    block's first line of the other? A table's cells of one row start on
    the row, whatever lines they take; an author grid's blocks (a name over
    an affiliation or two) meet the other column's lines on many rows by
    the shared leading, but start where the column before them ended.
    A row's cells may instead end on the row (a form's amounts set on the
    last line of a label that wraps): where one group's blocks start on the
    other's rows (_on_rows_of) and the blocks' last lines (_block_ends)
    share rows, the groups are a table all the same; a side caption beside
    a table meets its rows by chance and starts on none of them.
    Fixtures: test_author_grid_of_staggered_blocks_reads_column_after_column,
    test_table_rows_set_on_the_last_line_of_their_labels_read_by_rows,
    test_side_caption_ending_on_a_table_row_stays_beside_the_table."""
    starts = block_starts(page, a), block_starts(page, b)
    if not _unaligned(page, *starts):
        return False
    if not (_on_rows_of(page, starts[0], b) or _on_rows_of(page, starts[1], a)):
        return True  # no cell of one starts on the other's rows: beside it, not in its rows
    return _unaligned(page, _block_ends(page, a), _block_ends(page, b))


def _on_rows_of(page: Page, starts: np.ndarray, other: np.ndarray) -> bool:
    """Do more than ALIGNED of the block starts `starts` lie on the baseline
    of a line of group `other` (a row's cells set on the rows of the labels
    beside them, not beside them at their own pace)?"""
    near = np.abs(baseline(page, starts)[:, None] - baseline(page, other)[None, :]).min(axis=1)
    return bool(np.count_nonzero(near <= SAME_BASELINE * page.body) > ALIGNED * len(starts))


def _unaligned(page: Page, a: np.ndarray, b: np.ndarray) -> bool:
    """Do at most ALIGNED of the smaller set of lines `a`, `b` (two or more)
    lie on the baseline of one of the other's?"""
    return min(len(a), len(b)) >= 2 and shared_rows(page, a, b) <= ALIGNED * min(len(a), len(b))


def _block_ends(page: Page, ids: np.ndarray) -> np.ndarray:
    """The lines of group `ids` that end a block: the bottom one, and each
    one CELL_PADDING body heights or more above every line below it
    (_block_starts read from the foot up, kernels.block_firsts)."""
    return block_firsts(page.lib, page.y0, page.y1, ids, CELL_PADDING * page.body, True)


def block_starts(page: Page, ids: np.ndarray) -> np.ndarray:
    """The lines of group `ids` that start a block: the top one, and each
    one CELL_PADDING body heights or more below every line above it.
    Kept per group (callers only read it): own_rows and the table test of
    the cut ask it of the same groups."""
    key = ids.tobytes()
    found = page.kept.block_tops.get(key)
    if found is None:
        found = page.kept.block_tops[key] = _block_starts(page, ids)
    return found


def _block_starts(page: Page, ids: np.ndarray) -> np.ndarray:
    """block_starts, uncached (kernels.block_firsts)."""
    return block_firsts(page.lib, page.y0, page.y1, ids, CELL_PADDING * page.body, False)


@overload
def merge_fragments(page: Page, parts: list[np.ndarray]) -> list[np.ndarray]: ...
@overload
def merge_fragments(page: Page, parts: None) -> None: ...
def merge_fragments(page: Page, parts: list[np.ndarray] | None) -> list[np.ndarray] | None:
    """`parts` (leaves in reading order) with every run of consecutive parts
    that are not running text (is_text_column and holds_prose fail: figure
    labels, a caption line, a form number, a page number) merged into one part, which
    reads in stream order. Between two pieces of non-text there is no text
    flow for geometry to follow: sorting the labels of a figure top to bottom
    reads the picture, not the text, and the stream's order is the author's."""
    if parts is None:
        return None
    judge(page, parts)
    merged: list[np.ndarray] = []
    run = False  # is merged[-1] a run of non-text parts?
    for part in parts:
        fragment = not (is_text_column(page, part) or holds_prose(page, part))
        if fragment and run and not own_rows(page, merged[-1], part):
            merged[-1] = np.concatenate([merged[-1], part])
        else:
            merged.append(part)
        run = fragment
    return merged


def baseline(page: Page, ids: np.ndarray) -> np.ndarray:
    """The baseline of lines `ids` across the frame (their boxes put it
    DESCENT of the height above the bottom)."""
    return baselines(page.y0[ids], page.y1[ids], DESCENT)


def shared_rows(page: Page, a: np.ndarray, b: np.ndarray) -> int:
    """How many lines of the group with fewer lines (`a` or `b`) lie on the
    baseline of a line of the other, within SAME_BASELINE body heights: a
    table's columns share their rows, columns set on their own do not.
    Kept per pair of groups: the cut's table test, own_rows and staggered
    ask it of the same pairs."""
    key = (a.tobytes(), b.tobytes())
    found = page.kept.shared.get(key)
    if found is None:
        # SharedBaselines(page, [a, b]).shared(0, 1) in one kernel call:
        # its lookup is made for many pairs at once.
        found = page.kept.shared[key] = shared_pair(page.lib, page.y0, page.y1, a, b, DESCENT, SAME_BASELINE * page.body)
    return found


def split_at(ids: np.ndarray, cuts: np.ndarray) -> list[np.ndarray]:
    """`ids` cut before each position of `cuts` (np.split, without its overhead)."""
    bounds = [0, *cuts.tolist(), len(ids)]
    return [ids[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def median(values: np.ndarray) -> float:
    """The upper median; np.median costs more than the sort on short arrays."""
    return float(np.sort(values)[len(values) // 2])


def gap_bands(page: Page, ids: np.ndarray, starts: np.ndarray) -> list[np.ndarray] | None:
    """The region (units `ids` in rows starting at `starts`, see rows_of) cut
    into horizontal bands at full-width whitespace gaps of at least
    SECTION_GAP body heights, top to bottom; None when it has none. Kept
    per region (a fresh list each call: callers edit theirs), as rows_of:
    a column is cut by its parent and by itself."""
    key = (ids.tobytes(), starts.tobytes())
    if key not in page.kept.gaps:
        page.kept.gaps[key] = _gap_bands(page, ids, starts)
    found = page.kept.gaps[key]
    return None if found is None else list(found)


def _gap_bands(page: Page, ids: np.ndarray, starts: np.ndarray) -> list[np.ndarray] | None:
    """gap_bands, uncached."""
    if len(starts) < 2:
        return None
    breaks = section_breaks(page.lib, page.y0, page.y1, (ids, starts), SECTION_GAP * page.body)
    if not len(breaks):
        return None
    return split_at(ids, breaks)


def spanning_bands(page: Page, ids: np.ndarray, starts: np.ndarray) -> list[np.ndarray] | None:
    """The region cut into horizontal bands at the rows that cross its best
    supported gutter candidate, top to bottom; None when there is none."""
    found = _gutter_cells(page, ids, starts)
    if found is None:
        return None
    crossing = found[2]
    if not crossing.any():
        return None
    # Runs of rows with the same crossing flag form the bands.
    change = np.flatnonzero(crossing[1:] != crossing[:-1]) + 1
    if not len(change):
        return None
    band_starts = starts[np.concatenate([[0], change])]
    return split_at(ids, band_starts[1:])


def gutter_core(page: Page, ids: np.ndarray, starts: np.ndarray) -> tuple[float, float] | None:
    """Left and right edge of the core of the region's best supported gutter
    candidate (see _gutter_cells); None when there is none."""
    found = _gutter_cells(page, ids, starts)
    if found is None:
        return None
    return found[0], found[1]


def _gutter_cells(page: Page, ids: np.ndarray, starts: np.ndarray) -> tuple[float, float, np.ndarray] | None:
    """The region (units `ids` in rows starting at `starts`) on a grid of
    rows by cells between the units' left and right edges: the left and
    right edge of the core of its best supported gutter candidate (a run of
    cells, at least a gutter wide, with content on both sides in rows
    making up GUTTER_SUPPORT of the height; see kernels.gutter_cells),
    and per row whether it crosses the core. None when there is no
    candidate."""
    if len(starts) < 2:
        return None
    box = (page.x0, page.x1, page.y0, page.y1)
    return gutter_cells(page.lib, box, ids, starts, GUTTER_SUPPORT, page.gutter)
