"""Stream-order tie-breaks: the decisions geometry leaves open, and where the stream breaks them.

Geometry cannot tell a page of columns whose paragraph gaps happen to line up
from sections laid out in columns, nor where a part with no text flow of its
own (a form number under the first of three footer columns, a table's title
centred under the columns) belongs among columns. There the stream is asked,
and only its consistent answers count: a stream that reads band after band
but for a few strays (STRAYS), or one visit of a column after all the
others. A stream painted out of order (interleaved, reversed, shuffled) is
consistent with neither reading, and geometry's default stands: the
full-height gutter, columns first.
"""

from __future__ import annotations

import numpy as np

from ragprep.extract.blocks import PARAGRAPH_GAP
from ragprep.extract.groups import median_of
from ragprep.extract.layout.kernels import band_order, cell_disorder, gap_cuts, reads_columns, stream_visit_cuts
from ragprep.extract.layout.leaves import reads_down, reads_down_limits
from ragprep.extract.layout.params import CONSISTENT, FURNITURE_ROWS, GUTTER_SUPPORT, ROW_OVERLAP, SECTION_GAP, SMALL_PRINT, STRAYS
from ragprep.extract.layout.regions import gap_bands, gutter_core, is_text_column, judge, rows_of, split_at, verdict_limits
from ragprep.extract.layout.units import Page


def stream_reads_bands(
    page: Page, ids: np.ndarray, bands: list[np.ndarray], columns: list[np.ndarray]
) -> bool:
    """Does the stream read the region `ids` band after band (each band
    column by column) but for STRAYS of its units, and the columns worse?"""
    band_first = cell_disorder(page.lib, len(page.start), bands, columns, band_first=True)
    return band_first <= STRAYS * len(ids) and band_first < cell_disorder(
        page.lib, len(page.start), bands, columns, band_first=False
    )


def column_gap_bands(
    page: Page, ids: np.ndarray, rows: tuple[np.ndarray, np.ndarray], columns: list[np.ndarray]
) -> list[np.ndarray] | None:
    """The region cut into bands at the whitespace lines across it that pass
    through a gap of one of its `columns` (a gap_bands cut of the column
    next to running text: a gap between two form labels says nothing about
    sections), the widest such line per gap; each cut is kept only where
    the stream reads the two bands it makes one after the other
    (stream_reads_bands). None when no cut is kept. Compiled whole
    (kernels.gap_cuts); _column_gap_bands is its reference."""
    ordered, starts = rows
    if len(starts) < 2:
        return None
    if page.lib is not None:
        glyphs = (page.inked, page.start, page.end, page.classes)
        limits = (len(page.start), SECTION_GAP * page.body, STRAYS, *verdict_limits(page))
        kept = gap_cuts(page.lib, (page.x0, page.x1, page.y0, page.y1), glyphs, (page.words, page.first_word), (ids, rows, columns), limits)
        if kept is not None:
            return split_at(ordered, starts[1:][kept]) if len(kept) else None
    return _column_gap_bands(page, ids, rows, columns)


def _column_gap_bands(
    page: Page, ids: np.ndarray, rows: tuple[np.ndarray, np.ndarray], columns: list[np.ndarray]
) -> list[np.ndarray] | None:
    """column_gap_bands by the rule (RAGPREP_PURE=1, or a column empty)."""
    ordered, starts = rows
    breaks = starts[1:]
    floor = np.minimum.accumulate(page.y0[ordered])
    # The whitespace between each row and the rows above it.
    low, high = page.y1[ordered][breaks], floor[breaks - 1]
    candidates: set[int] = set()
    for column in columns:
        parts = gap_bands(page, *rows_of(page, column))
        if parts is not None:
            candidates.update(_widest_lines_through(page, parts, low, high))
    kept = [
        cut
        for cut in sorted(candidates)
        if stream_reads_bands(page, ids, split_at(ordered, breaks[cut : cut + 1]), columns)
    ]
    return split_at(ordered, breaks[kept]) if kept else None


def _widest_lines_through(page: Page, parts: list[np.ndarray], low: np.ndarray, high: np.ndarray) -> list[int]:
    """column_gap_bands' candidates of one column cut into `parts` (top to
    bottom): per gap between two parts, one of them running text, the
    widest whitespace line across the region (between `low` and `high`,
    one per row break) that passes through the gap, if any. All gaps are
    measured in one (gaps x lines) array, not one pass over the lines per
    gap, nor a min over all the parts above per gap: a form's column has
    hundreds of parts."""
    judge(page, parts)
    text = [is_text_column(page, part) for part in parts]
    gaps = np.array([k for k in range(1, len(parts)) if text[k - 1] or text[k]], dtype=np.int64)
    if not len(gaps):
        return []
    # The lowest edge of the parts above each gap, the top of the part under it.
    top = np.minimum.accumulate([page.y0[part].min() for part in parts])[gaps - 1]
    bottom = np.array([page.y1[parts[k]].max() for k in gaps.tolist()])
    through = (low[None, :] < top[:, None]) & (high[None, :] > bottom[:, None]) & (high > low)[None, :]
    # The first widest line through each gap (argmax keeps the first of equals).
    widest = np.argmax(np.where(through, (high - low)[None, :], -np.inf), axis=1)
    found: list[int] = widest[through.any(axis=1)].tolist()
    return found


def stream_reads_columns(
    page: Page, ids: np.ndarray, rows: tuple[np.ndarray, np.ndarray], bands: list[np.ndarray]
) -> bool:
    """Does the stream read the two sides of the region's best gutter
    candidate (see gutter_core) one after the other, across `bands`, closer
    than band after band, and with at most CONSISTENT of its units out of
    that order, reading each side down the page (leaves.reads_down)? Units
    crossing the gutter count with its left side. A stream painted out of
    order (shuffled, lines interleaved) reads neither order, and the bands
    stand: each is cut on its own geometry. So do they where the stream
    paints one side after the other but neither side down the page (a
    producer painting by the lines' left edges, an author grid's lines set
    flush right): the region kept whole would be read by geometry inside
    its leaf, where the bands' own cuts (the author grid's columns) are
    not seen. Fixtures:
    test_aligned_gaps_without_a_full_height_gutter_keep_a_column_by_column_stream,
    test_author_grid_under_a_title_painted_side_by_side_in_no_order_reads_by_its_bands.
    Compiled whole (kernels.reads_columns); this is its reference."""
    if page.lib is not None:
        box = (page.x0, page.x1, page.y0, page.y1)
        limits = (len(page.start), GUTTER_SUPPORT, page.gutter, ROW_OVERLAP * page.body, CONSISTENT)
        found = reads_columns(page.lib, box, ids, rows, bands, limits, reads_down_limits(page))
        if found is not None:
            return found
    return _stream_reads_columns(page, ids, rows, bands)


def _stream_reads_columns(
    page: Page, ids: np.ndarray, rows: tuple[np.ndarray, np.ndarray], bands: list[np.ndarray]
) -> bool:
    """stream_reads_columns, by the rule (RAGPREP_PURE=1, or a band empty)."""
    core = gutter_core(page, *rows)
    if core is None:
        return False
    middle = (core[0] + core[1]) / 2
    right = page.x0[ids] >= middle
    if right.all() or not right.any():
        return False
    sides = [ids[~right], ids[right]]
    if page.rtl:
        sides.reverse()
    sides = _foot_across(page, sides, middle)
    column_first = cell_disorder(page.lib, len(page.start), bands, sides, band_first=False)
    if column_first > CONSISTENT * len(ids):
        return False
    if not all(reads_down(page, np.sort(side)) for side in sides):
        return False
    return column_first < cell_disorder(page.lib, len(page.start), bands, sides, band_first=True)


def foot_apart(page: Page, ids: np.ndarray, rows: tuple[np.ndarray, np.ndarray]) -> list[np.ndarray] | None:
    """Where stream_reads_columns keeps the region of units `ids` whole, its
    parts above, at and below the text crossing the gutter under both sides
    (_foot_across) in reading order, where that text is a band at the foot:
    set SECTION_GAP body heights or more under all the text above it, with
    nothing on the second side within its rows (footnotes wrap flush with
    the first side; a section's columns fill both), and at most
    FURNITURE_ROWS rows under it (a page number); None otherwise. The
    stream's column-by-column reading counted that text after both sides,
    but the region kept whole reads in stream order, and a stream painting
    by x position paints footnotes across the page with the first column.
    Fixture: test_footnotes_across_the_page_painted_by_x_read_after_the_columns."""
    core = gutter_core(page, *rows)
    if core is None:
        return None
    middle = (core[0] + core[1]) / 2
    right = page.x0[ids] >= middle
    sides = [ids[right], ids[~right]] if page.rtl else [ids[~right], ids[right]]
    sides = _foot_across(page, sides, middle)
    if len(sides) < 3:
        return None
    top, bottom = float(page.y1[sides[2]].max()), float(page.y0[sides[2]].min())
    slack = ROW_OVERLAP * page.body
    at = (page.y1[ids] <= top + slack) & (page.y0[ids] >= bottom - slack)
    above, below = ids[~at & (page.y0[ids] >= top - slack)], ids[~at & (page.y1[ids] <= bottom + slack)]
    second = page.x1[ids] <= middle if page.rtl else right
    if (at & second).any() or len(above) + len(below) + int(np.count_nonzero(at)) != len(ids) or not len(above):
        return None
    if page.y0[above].min() - top < SECTION_GAP * page.body:
        return None
    if len(below) and len(rows_of(page, np.sort(below))[1]) > FURNITURE_ROWS:
        return None
    return [part for part in (np.sort(above), ids[at], np.sort(below)) if len(part)]


def _foot_across(page: Page, sides: list[np.ndarray], middle: float) -> list[np.ndarray]:
    """`sides` (of a gutter at x `middle`, in reading order) with the units
    that cross the gutter under text of the second side taken out of the
    first side, as a side of their own read after both: text spanning the
    gutter under the columns (a block of references under two columns of a
    glossary) follows the columns' text above it; read with the first
    side, a stream painting by x position (the first side's lines and the
    block's, flush left, then the second side) would pass for one reading
    the columns. Fixture:
    test_block_under_two_columns_painted_by_x_position_reads_after_them."""
    first, second = sides
    under = float(page.y0[second].max()) + ROW_OVERLAP * page.body
    foot = (page.x0[first] < middle) & (page.x1[first] > middle) & (page.y1[first] <= under)
    if not foot.any() or foot.all():
        return sides
    return [first[~foot], second, first[foot]]


def trailing_visit(
    page: Page, region: np.ndarray, columns: list[np.ndarray], k: int
) -> np.ndarray | None:
    """The stream's second and last visit to column k of `region`, when it
    paints the rest of the column in one visit, and the piece it comes back
    for after every other column is not running text and lies under the
    rest of the column by a paragraph gap or more and under every other
    column (a table's title centred under the columns, too close to them
    for a band of its own); None otherwise. A stream that interleaves the
    columns visits each of them line by line, and says nothing of the kind."""
    visits = _stream_visits(page, region, columns[k])
    if len(visits) != 2:
        return None
    rest, visit = visits
    if is_text_column(page, visit):
        return None
    top = float(page.y1[visit].max())
    if page.y0[rest].min() - top < (PARAGRAPH_GAP - 1.0) * page.body:
        return None
    others = [c for j, c in enumerate(columns) if j != k]
    if not all(page.y0[c].min() >= top - ROW_OVERLAP * page.body and c.max() < visit.min() for c in others):
        return None
    return visit


def stream_band_order(
    page: Page, ids: np.ndarray, bands: list[np.ndarray], furniture: list[bool]
) -> list[np.ndarray]:
    """`bands` of the region `ids` (top to bottom) in the order the stream
    paints them, where it is a witness: it paints each band in one visit
    and reads each down the page (leaves.reads_down), as a producer that
    paints in reading order does. Only the bands between the first and
    the last move, and those two when they are no `furniture` (neither
    running text nor a region of columns: a running head, a footer; the
    top and bottom bands are theirs, whatever the stream painted first): a callout box that the author placed
    between two bands of text, or under the columns, and painted after (or
    before) them is no place geometry can tell, and the stream's order is
    the author's. A stream painted out of order (reversed, interleaved,
    shuffled) fails the test, and the bands read top to bottom. Fixture:
    test_box_between_bands_painted_after_them_keeps_its_place_in_the_stream.
    Compiled whole (kernels.band_order); this is its reference."""
    if len(bands) < 2:
        return bands
    if page.lib is not None:
        box = (page.x0, page.x1, page.y0, page.y1)
        limits = (ROW_OVERLAP * page.body, SMALL_PRINT, CONSISTENT)
        order = band_order(page.lib, box, ids, bands, furniture, limits, reads_down_limits(page))
        if order is not None:
            return [bands[k] for k in order]
    return _stream_band_order(page, ids, bands, furniture)


def _stream_band_order(page: Page, ids: np.ndarray, bands: list[np.ndarray], furniture: list[bool]) -> list[np.ndarray]:
    """stream_band_order, by the rule (RAGPREP_PURE=1, or a band empty)."""
    region = np.sort(ids)
    # The bands as the stream's witness: the last one less a foot painted first.
    painted = [*bands[:-1], _foot_painted_first(page, region, bands[-1])]
    if not all(_one_visit(page, region, band) and reads_down(page, np.sort(band)) for band in painted):
        return bands
    first = 1 if furniture[0] else 0
    last = _small_print_at_foot(page, bands, first, len(bands) - 1 if furniture[-1] else len(bands))
    if last - first < 2 or _bands_painted_up(painted[first:last]):
        return bands
    # A heading (furniture between the first and the last band) leads the
    # band under it: a stream that paints it anywhere but right before that
    # band paints out of reading order, and is no witness.
    at = [int(band.min()) for band in painted]
    rank = np.argsort(np.argsort(at))
    if any(furniture[k] and rank[k + 1] != rank[k] + 1 for k in range(first, last - 1)):
        return bands
    middle = sorted(range(first, last), key=lambda k: at[k])
    return [*bands[:first], *(bands[k] for k in middle), *bands[last:]]


def _foot_painted_first(page: Page, region: np.ndarray, band: np.ndarray) -> np.ndarray:
    """`band` (the region's last, units of the sorted `region`) less its
    foot, where the stream paints the band in two visits, the first of them
    the region's first units and under the rest of the band: a producer that
    paints the page's foot first (the bottom band of the page, a footer's
    neighbours) and then the page in reading order is a witness of the rest
    all the same; `band` itself otherwise. Fixture:
    test_box_between_bands_keeps_its_place_when_the_foot_is_painted_first."""
    visits = _stream_visits(page, region, band)
    if len(visits) != 2:
        return band
    foot, rest = visits
    if not np.array_equal(foot, region[: len(foot)]):
        return band
    if page.y1[foot].max() > page.y0[rest].min() + ROW_OVERLAP * page.body:
        return band
    return rest


def _small_print_at_foot(page: Page, bands: list[np.ndarray], first: int, last: int) -> int:
    """Where the bands the stream may order (`bands[first:last]`, top to
    bottom) end: before the bands at their foot set in small print (their
    lines' median height at most SMALL_PRINT of the other bands'), which
    keep their place under the text. Footnotes across the page under its
    columns are geometry's: a stream that paints them first (a producer
    that sets the notes when it breaks the page, before the text) places
    no callout there. Fixture:
    test_footnotes_across_the_page_painted_first_read_after_the_columns."""
    height = page.y1 - page.y0
    while last - first >= 2:
        others = np.concatenate(bands[first : last - 1])
        if median_of(height[bands[last - 1]]) > SMALL_PRINT * median_of(height[others]):
            break
        last -= 1
    return last


def _bands_painted_up(bands: list[np.ndarray]) -> bool:
    """Does the stream paint two bands or more (of `bands`, top to bottom)
    before a band over them, in more than CONSISTENT of the pairs of bands?
    A producer painting in reading order paints a band before one over it
    only where it placed the band over it later (a callout box painted after
    the text under it, a band or its heading and box, puts one band of text
    before it); one that paints the page's foot first (the small print at the
    bottom before the text above it) paints each of the foot's bands before
    all of that text: no witness, the bands read top to bottom (leaves'
    _stream_paints_runs_up asks the like of a leaf's runs). Fixture:
    test_small_print_under_the_text_painted_first_reads_last."""
    painted = np.array([int(band.min()) for band in bands])
    upward = np.triu(painted[:, None] > painted[None, :], 1)  # [i, j]: i over j, painted after it
    pairs = len(bands) * (len(bands) - 1) // 2
    return int(np.count_nonzero(upward.any(axis=0))) > 1 and int(np.count_nonzero(upward)) > CONSISTENT * pairs


def _stream_visits(page: Page, region: np.ndarray, part: np.ndarray) -> list[np.ndarray]:
    """`part` (units of `region`, which is sorted) in stream order, cut into
    the stream's visits to it: the runs of its units that no other unit of
    the region interrupts."""
    return split_at(*stream_visit_cuts(page.lib, region, part))


def _one_visit(page: Page, region: np.ndarray, part: np.ndarray) -> bool:
    """Does the stream paint `part` (units of the sorted `region`) in one
    visit: no unit of the region outside it between two of its units?"""
    return not len(stream_visit_cuts(page.lib, region, part)[1])


def visits_top_down(page: Page, region: np.ndarray, part: np.ndarray) -> list[np.ndarray]:
    """`part` (units of one column of `region`, sorted in stream order) as
    the stream's visits to it: the runs of its units that no other unit of
    the region interrupts. When the visits lie one above the other but the
    stream painted them in another order (a title block painted after its
    column), they come back top to bottom; otherwise `part` is one piece."""
    part, cuts = stream_visit_cuts(page.lib, region, part)
    if not len(cuts):
        return [part]
    # Each visit's top and bottom: one reduction over the visits' starts.
    starts = np.concatenate([[0], cuts])
    top = np.maximum.reduceat(page.y1[part], starts)
    bottom = np.minimum.reduceat(page.y0[part], starts)
    order = np.argsort(-top, kind="stable")
    if (order == np.arange(len(starts))).all():
        return [part]
    if not (bottom[order[:-1]] >= top[order[1:]] - ROW_OVERLAP * page.body).all():
        return [part]  # visits side by side or overlapping: no top-to-bottom order to restore
    visits = split_at(part, cuts)
    return [visits[k] for k in order.tolist()]
