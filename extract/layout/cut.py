"""Columns and the cut: a recursive XY-cut of a page's lines into leaves.

A region is cut vertically into columns at strips of whitespace at least a
gutter wide that cross it from top to bottom, between text columns (or a
region of columns beside one, COMPOUND_COVER), or horizontally into bands at
whitespace gaps across its whole width (SECTION_GAP). When both cuts exist
the full-height gutter wins unless the stream reads the region band after
band (``tiebreaks.stream_reads_bands``) and some band is cut into columns of
its own; when only the bands exist because
something crosses the gutter, the stream is asked about the best gutter
candidate (``tiebreaks.stream_reads_columns``). A band of running text under
one text column of the band above it (a footnote at the foot of its column,
the last reference of a column that runs lower than its neighbour) joins
that band, which then reads by its columns (``_ragged_ends``). When neither
cut exists because full-width units cross the gutter (a title, a wide
caption, a footer), each run of rows crossing the best supported gutter
candidate becomes a band. Bands read top to bottom; columns left to right,
or right to left when the page's text is predominantly RTL.

Why XY-cut rather than projection profiles or a topological sort of blocks:
the pages this mode is for (papers, reports, newsletters, forms) are
Manhattan layouts, where a recursive cut is exact, explains every reordering
by a gutter or a gap one can point at, and costs a few sorts per region on
tens to hundreds of lines. A profile alone cannot tell a title crossing the
gutter from text in it, and a partial order over all pairs of blocks (Breuel
2003) is quadratic and must be taught the same exceptions. The cut's known
limit, non-Manhattan regions (L shapes, text flowing around a figure), falls
to the order inside one leaf (leaves.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ragprep.extract.blocks import PARAGRAPH_GAP
from ragprep.extract.layout.params import (
    ALIGNED,
    CELL_PADDING,
    COMPOUND_COVER,
    FURNITURE_ROWS,
    GRID_ROWS,
    MAX_DEPTH,
    NEXT_LINE,
    ROW_OVERLAP,
    SAME_BASELINE,
    SECTION_GAP,
    SECTION_RAGGED,
    SIDE_CAPTION_LEADING,
)
from ragprep.extract.layout.regions import (
    gap_bands,
    holds_prose,
    is_text_column,
    judge,
    lines_side_by_side,
    merge_fragments,
    own_rows,
    rows_of,
    shared_rows,
    spanning_bands,
    split_at,
    staggered,
    verdict_limits,
)
from ragprep.extract.layout.kernels import column_groups, column_leaves, gutter_cuts
from ragprep.extract.layout.tiebreaks import column_gap_bands, foot_apart, stream_band_order, stream_reads_bands, stream_reads_columns, trailing_visit, visits_top_down
from ragprep.extract.layout.units import Page


def read_region(page: Page, ids: np.ndarray, depth: int) -> tuple[list[np.ndarray], bool]:
    """Leaves of the region made of units `ids`, in reading order, and whether
    any text-column cut was accepted inside it (else: one leaf, `ids`).
    Kept per region: text_columns reads a region of columns beside a text
    column to accept the gutter, then read_region reads it again as a column."""
    key = ids.tobytes()
    found = page.reads.get(key)
    if found is None:
        found = page.reads[key] = _cut(page, ids, depth)
    leaves, split = found
    return list(leaves), split  # callers edit their list of leaves


def _cut(page: Page, ids: np.ndarray, depth: int) -> tuple[list[np.ndarray], bool]:
    """read_region, uncached: furniture across a gap at its top or bottom
    set apart (_read_edges), else the region's cut chosen (_choose_cut),
    then read by its columns (_read_columns) or by its bands (_read_bands)."""
    if not _may_hold_columns(page, ids, depth):
        return [ids], False
    rows = rows_of(page, ids)
    gutter = text_columns(page, ids, depth)
    gaps = gap_bands(page, *rows)
    edged = None if gaps is None else _read_edges(page, gaps, depth)
    if edged is not None:
        return edged, True
    # A region that a ragged column end joined reads by its columns (_gutter_or_gaps).
    if gutter is not None and gaps is not None and ids.tobytes() not in page.continued:
        sections = _sections_in_columns(page, gutter, gaps)
        if sections is not None:
            return _read_sections(page, gutter, sections, depth), True
    chosen = _choose_cut(page, ids, rows, gutter, gaps)
    if chosen is None:
        # The stream reads the gutter's sides one after the other: the
        # region stays whole, but for a band across the gutter at its foot.
        parts = foot_apart(page, ids, rows)
        return ([ids], False) if parts is None else (parts, True)
    columns, bands = chosen
    if columns is not None:
        return _read_columns(page, ids, columns, depth), True
    if bands is None:
        bands = spanning_bands(page, *rows)
    if bands is None:
        return [ids], False
    leaves, split = _read_bands(page, ids, _ragged_ends(page, bands), depth)
    if not split and gutter is not None:
        # Bands the stream chose over a full-height gutter, none of them
        # cut into columns: each would read the lines of both columns on
        # its rows as one leaf. The stream read band after band because it
        # paints the page top to bottom across the gutter, and the gutter
        # stands (test_columns_painted_across_the_gutter_top_to_bottom_read_column_after_column).
        return _read_columns(page, ids, gutter, depth), True
    return leaves, split


def _read_edges(page: Page, bands: list[np.ndarray], depth: int) -> list[np.ndarray] | None:
    """The leaves of a region cut into `bands` whose first or last bands are
    furniture (_edge_bands): those bands, each a leaf, around the leaves of
    the rest, where the rest is cut; None otherwise (the region is read as
    it would be without the rule)."""
    edged = _edge_bands(page, bands, depth)
    if edged is None:
        return None
    top, middle, bottom = edged
    inner, split = read_region(page, middle, depth + 1)
    return [*top, *inner, *bottom] if split else None


def _edge_bands(
    page: Page, bands: list[np.ndarray], depth: int
) -> tuple[list[np.ndarray], np.ndarray, list[np.ndarray]] | None:
    """The furniture bands at the top of `bands`, the bands between them
    joined into one, and the furniture bands at the bottom, where its first
    or last band is furniture (_furniture_band: a running head, a title, a
    page number); else None. Each furniture band is a leaf of its own, read
    top to bottom.
    A full-height gutter that furniture happens to leave clear (a title
    that ends short of the gutter, a page number inside the wider column's
    width, a running head's number over the last column) is no reason to
    read the furniture with one column: geometry sets it above or below
    every column, across a full-width gap, and it reads before or after
    them whatever order the stream paints in. Fixture:
    test_furniture_clear_of_the_gutter_reads_before_and_after_the_columns."""
    first = 0
    while first < len(bands) - 1 and _furniture_band(page, bands[first], depth):
        first += 1
    last = len(bands)
    while last > first + 1 and _furniture_band(page, bands[last - 1], depth):
        last -= 1
    if first == 0 and last == len(bands):
        return None
    return bands[:first], np.concatenate(bands[first:last]), bands[last:]


def _furniture_band(page: Page, band: np.ndarray, depth: int) -> bool:
    """Is `band` FURNITURE_ROWS rows or fewer, no running text and cut into
    no columns of its own? More rows are text, whatever its cut finds: the
    ends of two narrow columns under a gap their paragraph gaps share."""
    if len(rows_of(page, band)[1]) > FURNITURE_ROWS or is_text_column(page, band) or holds_prose(page, band):
        return False
    return not read_region(page, band, depth + 1)[1]


def _may_hold_columns(page: Page, ids: np.ndarray, depth: int) -> bool:
    """Is the region worth a cut: four lines or more, within MAX_DEPTH, wide
    enough for two text columns and a gutter, with lines side by side?"""
    if len(ids) < 4 or depth > MAX_DEPTH:
        return False
    return lines_side_by_side(page, ids)


Cut = tuple[list[np.ndarray] | None, list[np.ndarray] | None]


def _choose_cut(
    page: Page,
    ids: np.ndarray,
    rows: tuple[np.ndarray, np.ndarray],
    columns: list[np.ndarray] | None,
    bands: list[np.ndarray] | None,
) -> Cut | None:
    """The region's columns or its bands, whichever geometry (or, where
    geometry leaves the tie open, the stream) reads it by; None where the
    region stays one leaf."""
    if columns is not None and bands is not None:
        return _gutter_or_gaps(page, ids, columns, bands)
    if columns is not None:
        # No gap crosses the region, but one column may be set apart by a
        # wide one where its neighbour has only the space between lines (an
        # author grid above the columns, its right column set apart from its
        # column's text, the left one not): the same question is put to the
        # stream about each such cut on its own.
        apart = column_gap_bands(page, ids, rows, columns)
        return (columns, None) if apart is None else (None, apart)
    if bands is not None and stream_reads_columns(page, ids, rows, bands):
        # Whitespace gaps cut the region, but something crosses the gutter
        # (a centred page number, a float spanning both columns), so no
        # full-height gutter exists to weigh against them. Gaps that happen
        # to line up across the columns are no section break: where the
        # stream reads the gutter's sides one after the other rather than
        # band after band, it keeps its order.
        return None
    return None, bands


def _gutter_or_gaps(page: Page, ids: np.ndarray, columns: list[np.ndarray], bands: list[np.ndarray]) -> Cut:
    """Both cuts are possible: columns whose paragraph gaps line up, or
    sections laid out in columns. They cut the region into the same cells
    (a column's part within a band) and differ only in the order of the
    cells. The gutter runs the whole height of the region, so the columns
    come first, unless the stream reads band after band, but for a few
    strays (a page number painted last), and reads the columns worse. A
    stream that interleaves the columns line by line is far from both
    orders and leaves the columns; one that paints section after section,
    each column by column, reads the bands. A region that a ragged column
    end joined reads by its columns: geometry put that end under its column
    (a footnote at the foot of its column), whatever the stream painted last."""
    continued = ids.tobytes() in page.continued or len(_ragged_merge(page, bands)) == 1
    if not continued and stream_reads_bands(page, ids, bands, columns):
        return None, bands
    return columns, bands


def _sections_in_columns(page: Page, columns: list[np.ndarray], bands: list[np.ndarray]) -> list[np.ndarray] | None:
    """`bands` where every gap between them is a section break, else None.
    A gap is a section break where every column has lines on both sides of
    it and the columns over it end on rows SECTION_RAGGED body heights
    apart or more: each column of the section above ended where its
    content ended (a spec sheet's sections of lists, each set in columns).
    Columns of running text that flow on leave no such hole: where their
    paragraph gaps happen to line up, the columns over the gap end on one
    row too, and the full-height gutter stands; so does it where some gap
    is no break (a grid of pictures and their captions, whose rows the
    stream breaks the tie of). Geometry decides this whatever the order
    the stream paints in. Fixture:
    test_sections_laid_out_in_columns_read_section_by_section."""
    below = _parts_within(page, columns, bands[0])
    for lower in bands[1:]:
        above, below = below, _parts_within(page, columns, lower)
        if not _section_break(page, above, below):
            return None
    return bands


def _parts_within(page: Page, columns: list[np.ndarray], band: np.ndarray) -> list[np.ndarray]:
    """Per column, its units that lie in `band`, sorted: np.intersect1d of
    each column with the band (a column's units are distinct), by one mask
    of the band rather than two sorts per column."""
    inside = np.zeros(len(page.x0), dtype=bool)
    inside[band] = True
    return [np.sort(column[inside[column]]) for column in columns]


def _read_sections(page: Page, columns: list[np.ndarray], sections: list[np.ndarray], depth: int) -> list[np.ndarray]:
    """The leaves of a region of `columns` cut into `sections`
    (_sections_in_columns): section after section, each by the region's
    columns (a section's own columns may be too narrow or too short for
    a gutter of their own: a list of four items under its heading)."""
    leaves: list[np.ndarray] = []
    for section in sections:
        parts = [part for part in _parts_within(page, columns, section) if len(part)]
        caption = _side_caption(page, parts)
        if caption is not None:
            # The caption and the table beside it, in the columns' order,
            # the table one leaf of its rows: no row reads ahead of a caption
            # before it (_placed_apart's page number over a column), and a
            # caption in the column read second reads after its table,
            # whatever order they are painted in.
            for side, part in enumerate(parts):
                leaves.extend([part] if side == caption else merge_fragments(page, read_region(page, part, depth + 1)[0]))
        elif len(parts) > 1:
            leaves.extend(_read_columns(page, section, parts, depth))
        else:
            leaves.extend(read_region(page, section, depth + 1)[0])
    return leaves


def _side_caption(page: Page, parts: list[np.ndarray]) -> int | None:
    """Which of a section's two column parts is a side caption beside the
    other (_caption_beside), if one is."""
    if len(parts) != 2:
        return None
    return next((side for side in (0, 1) if _caption_beside(page, parts[side], parts[1 - side])), None)


def _section_break(page: Page, above: list[np.ndarray], below: list[np.ndarray]) -> bool:
    """Do the columns' parts `below` a gap start on one row and their parts
    `above` it end SECTION_RAGGED body heights apart or more (see
    _sections_in_columns)?"""
    if any(len(part) == 0 for part in (*above, *below)):
        return False
    ends = [float(page.y0[part].min()) for part in above]
    return max(ends) - min(ends) >= SECTION_RAGGED * page.body or _side_captions(page, above, below)


def _side_captions(page: Page, above: list[np.ndarray], below: list[np.ndarray]) -> bool:
    """Is one of two columns, on both sides of the gap, one block of lines
    set at a caption's leading that starts under the other column's top
    row and ends on or over its last row? Side captions in a margin, each
    beside its table (test_side_captioned_tables_read_caption_then_table):
    a caption may end on its table's last row, so the columns' ends leave
    no SECTION_RAGGED hole, yet each caption belongs to the table beside
    it, not to the next caption down the margin. Columns of running text
    whose paragraph gaps line up start on one row under the gap: neither
    column starts under the other's top."""
    side = _side_caption(page, above)
    return side is not None and side == _side_caption(page, below)


def _caption_beside(page: Page, caption: np.ndarray, other: np.ndarray) -> bool:
    """Does `caption` step down at SIDE_CAPTION_LEADING or less, start
    NEXT_LINE under `other`'s top and end SAME_BASELINE over its end or
    higher (see _side_captions)?"""
    tops = np.sort(page.y1[caption])[::-1]
    block = bool(np.all(tops[:-1] - tops[1:] <= SIDE_CAPTION_LEADING * page.body))
    under_top = float(page.y1[other].max() - tops[0]) >= NEXT_LINE * page.body
    over_end = float(page.y0[caption].min() - page.y0[other].min()) >= -SAME_BASELINE * page.body
    return block and under_top and over_end


def _read_columns(page: Page, ids: np.ndarray, columns: list[np.ndarray], depth: int) -> list[np.ndarray]:
    """The leaves of a region cut into `columns`: each column's leaves in
    turn (its own cut's, else its parts, _column_parts), less the parts
    with no text flow that the stream places before or after every column
    (_placed_apart). Compiled but for the columns' own cuts
    (kernels.column_leaves, asked once the columns are read: the rest asks
    nothing of read_region); _column_leaves is its reference."""
    reads = [read_region(page, column, depth + 1) for column in columns]
    if page.lib is not None:
        glyphs = (page.inked, page.start, page.end, page.classes)
        limits = (SECTION_GAP * page.body, (PARAGRAPH_GAP - 1.0) * page.body, *_group_limits(page))
        split = [inner if inner_split else None for inner, inner_split in reads]
        found = column_leaves(page.lib, (page.x0, page.x1, page.y0, page.y1), glyphs, (page.words, page.first_word), (ids, columns, split), limits)
        if found is not None:
            return found
    return _column_leaves(page, ids, columns, reads)


def _column_leaves(page: Page, ids: np.ndarray, columns: list[np.ndarray], reads: list[tuple[list[np.ndarray], bool]]) -> list[np.ndarray]:
    """_read_columns by the rules (RAGPREP_PURE=1, or a column empty), each
    column read (`reads`: read_region's answer)."""
    region = np.sort(ids)
    leaves: list[np.ndarray] = []
    ahead: list[np.ndarray] = []  # parts read before every column
    below: list[np.ndarray] = []  # parts read after every column
    for k, column in enumerate(columns):
        inner, inner_split = reads[k]
        if not inner_split:
            inner = _placed_apart(page, region, columns, k, _column_parts(page, region, column, inner), ahead, below)
        leaves.extend(inner)
    # Unit numbers follow stream order: several such parts keep it.
    leaves[:0] = sorted(ahead, key=lambda part: int(part.min()))
    leaves.extend(sorted(below, key=lambda part: int(part.min())))
    # Non-text leaves merge here, inside the region; across the bands of a
    # parent region, see _append_band.
    return merge_fragments(page, leaves)


def _column_parts(page: Page, region: np.ndarray, column: np.ndarray, inner: list[np.ndarray]) -> list[np.ndarray]:
    """The parts of a column no cut split (its leaves `inner`), top to
    bottom. A column reads top to bottom: its parts set apart by wide
    whitespace (footnotes under a rule, a title above), or painted on
    separate visits of the stream to the column (a title block painted
    last), follow their place rather than the order they were painted in."""
    parts = gap_bands(page, *rows_of(page, column)) or [column]
    visited = [visit for part in parts for visit in visits_top_down(page, region, part)]
    if len(visited) > 1:
        inner = merge_fragments(page, visited) or inner
    return inner


def _placed_apart(
    page: Page,
    region: np.ndarray,
    columns: list[np.ndarray],
    k: int,
    inner: list[np.ndarray],
    ahead: list[np.ndarray],
    below: list[np.ndarray],
) -> list[np.ndarray]:
    """The leaves `inner` of column k less its last part, moved to `below`,
    where it reads after the columns (_last_part_below, else
    _trailing_visit_below), and its first part, moved to `ahead`, where it
    reads before them (_first_part_ahead)."""
    moved = _last_part_below(page, region, columns, k, inner)
    if moved is None:
        moved = _trailing_visit_below(page, region, columns, k, inner)
    else:
        inner = inner[:-1]
    if moved is not None:
        below.append(moved)
    if _first_part_ahead(page, columns, k, inner):
        ahead.append(inner.pop(0))
    return inner


def _last_part_below(
    page: Page, region: np.ndarray, columns: list[np.ndarray], k: int, inner: list[np.ndarray]
) -> np.ndarray | None:
    """The last part of column k where it is no running text and the stream
    paints it after all the text above it (its column's and the other
    columns') and beside its upper rows (a form number under the first of
    three footer columns; what sits beside its last row, a page number,
    does not count): geometry has no order for it, the stream's is
    consistent with reading it after the columns. None otherwise: a stream
    painting the page row by row paints every part after the text above
    it, and the lines beside the part after it begins, or walks down the
    column into the part (_walked_into) where no line stands beside it (no
    evidence; it reads in its column). Fixture:
    test_part_under_a_column_painted_row_by_row_with_the_text_beside_it_stays_in_its_column."""
    if len(inner) < 2 or is_text_column(page, inner[-1]):
        return None
    # A part at the column's leading under the line over it (a paragraph's
    # short last line painted on a visit of its own) is the column going on:
    # a part set under a column lies a paragraph gap or more under it, as
    # trailing_visit's piece does (test_short_last_line_painted_last_stays_in_its_column).
    if page.y0[np.concatenate(inner[:-1])].min() - page.y1[inner[-1]].max() < (PARAGRAPH_GAP - 1.0) * page.body:
        return None
    top = _last_row_top(page, inner[-1]) - ROW_OVERLAP * page.body
    above = [c[page.y0[c] >= top] for j, c in enumerate(columns) if j != k]
    # Its own column's text above it too: a stream painting up the column
    # (reversed) paints the part after the other columns only because it
    # paints that whole column after them.
    others = max((int(a.max()) for a in [*above, *inner[:-1]] if len(a)), default=-1)
    return inner[-1] if inner[-1].min() > others and not _walked_into(page, region, inner) else None


def _walked_into(page: Page, region: np.ndarray, inner: list[np.ndarray]) -> bool:
    """Does the stream paint the last of a column's parts `inner` (two or
    more) straight on from the part above it: is the unit of the region
    (`region`, sorted) painted just before the part's first one on the
    last row of the part above? Then it walked down the column into the part,
    and painting the part after the other columns says nothing
    (_last_part_below): a stream that interleaves two columns line by line
    paints the longer column's last lines, and a part under them, after
    the shorter one has ended (lualatex-tagpdf p2's interleaved twin: "2.5
    Verbatim" under the left column read after the right column); a stream
    that paints its columns one after the other paints a part under a
    column right after the column's last row (excavator-manual p1's
    "ELECTRICAL" specifications under the left column). A part
    placed after the columns is painted after another column's text, or
    after something else of its own column (excavator-manual p4's form
    number, painted after the columns and the logo at the column's head).
    Fixture: test_part_under_the_longer_column_painted_row_by_row_stays_in_its_column."""
    first = int(inner[-1].min())
    at = int(np.searchsorted(region, first))
    if at == 0:
        return False
    before, above = int(region[at - 1]), inner[-2]
    return before in above and float(page.y1[before]) <= _last_row_top(page, above) + ROW_OVERLAP * page.body


def _last_row_top(page: Page, part: np.ndarray) -> float:
    """The top of the last row of `part` (rows_of: a row ends where a
    horizontal line crosses none of its units)."""
    ordered, starts = rows_of(page, part)
    return float(page.y1[ordered[starts[-1] :]].max())


def _trailing_visit_below(
    page: Page, region: np.ndarray, columns: list[np.ndarray], k: int, inner: list[np.ndarray]
) -> np.ndarray | None:
    """The stream's last visit to column k, taken out of its last part, when
    it is painted after the other columns and no gap wide enough for a part
    of its own sets it apart (a table's title centred under the columns,
    painted after them); None otherwise. A last part that is no running
    text is _last_part_below's question alone."""
    if len(inner) > 1 and not is_text_column(page, inner[-1]):
        return None
    trailing = trailing_visit(page, region, columns, k)
    if trailing is None:
        return None
    # Under the rest of its column, it lies in the last part.
    kept = ~np.isin(inner[-1], trailing)
    if not kept.any() or len(kept) - np.count_nonzero(kept) != len(trailing):
        return None
    inner[-1] = inner[-1][kept]
    return trailing


def _first_part_ahead(page: Page, columns: list[np.ndarray], k: int, inner: list[np.ndarray]) -> bool:
    """Is the first part of column k no running text, above every other
    column and painted before all of them (a page number over the last
    column)? Then it reads before the columns rather than between them."""
    if len(inner) < 2 or is_text_column(page, inner[0]):
        return False
    bottom = page.y0[inner[0]].min() + ROW_OVERLAP * page.body
    beside = [c for j, c in enumerate(columns) if j != k]
    return all(page.y1[c].max() <= bottom and inner[0].max() < c.min() for c in beside)


def _read_bands(page: Page, ids: np.ndarray, bands: list[np.ndarray], depth: int) -> tuple[list[np.ndarray], bool]:
    """The leaves of a region cut into `bands`, in the order the stream
    reads the bands between the furniture (stream_band_order); the region
    whole where no band holds a column cut. Column-free bands next to each
    other form one leaf, read in stream order: top-to-bottom sorting is no
    safer there."""
    reads = {band.tobytes(): read_region(page, band, depth + 1) for band in bands}
    furniture = [not (reads[b.tobytes()][1] or is_text_column(page, b) or holds_prose(page, b)) for b in bands]
    leaves: list[np.ndarray] = []
    pending: list[np.ndarray] = []
    split = False
    for band in stream_band_order(page, ids, bands, furniture):
        inner, inner_split = reads[band.tobytes()]
        if not inner_split:
            pending.append(band)
            continue
        if pending:
            _append_band(page, leaves, [np.concatenate(pending)])
            pending = []
        _append_band(page, leaves, inner)
        split = True
    if not split:
        return [ids], False
    if pending:
        _append_band(page, leaves, [np.concatenate(pending)])
    return leaves, True


def _append_band(page: Page, leaves: list[np.ndarray], inner: list[np.ndarray]) -> None:
    """Append the leaves `inner` of a band to `leaves`, those of the bands
    above it. A non-text leaf on each side of the gap between them merge
    (see merge_fragments) where the stream interleaves them: a figure
    whose labels the gap happens to cross. Where the stream paints the
    lower one wholly before the upper one (a page number painted first,
    under a heading and footnotes at the foot of the last column), they are
    two things, and the gap orders them as it orders text."""
    if (
        leaves
        and inner
        and int(inner[0].max()) > int(leaves[-1].min())
        and not is_text_column(page, leaves[-1])
        and not is_text_column(page, inner[0])
    ):
        leaves[-1] = np.concatenate([leaves[-1], inner[0]])
        inner = inner[1:]
    leaves.extend(inner)


def _ragged_ends(page: Page, bands: list[np.ndarray]) -> list[np.ndarray]:
    """`bands` (top to bottom) with every band of running text that lies
    under a single text column of the band above it merged into that band
    (_ragged_merge). Merged into one, the bands are the region itself,
    which has weighed them against its columns already."""
    merged = _ragged_merge(page, bands)
    return bands if len(merged) == 1 else merged


def _ragged_merge(page: Page, bands: list[np.ndarray]) -> list[np.ndarray]:
    """A column that runs lower than its neighbour (the last reference of a
    paper's last page, a footnote at the foot of its column) may be parted
    from its own text by a gap that only looks full-width because the
    neighbour has ended; merged back, the region reads it with its column,
    whatever the stream painted last (see _cut). Fixture:
    test_footnote_painted_last_reads_at_the_foot_of_its_column."""
    judge(page, bands)
    merged = [bands[0]]
    for band in bands[1:]:
        if is_text_column(page, band) and _continues_a_column(page, merged[-1], band):
            merged[-1] = np.concatenate([merged[-1], band])
            page.continued.add(merged[-1].tobytes())
        else:
            merged.append(band)
    return merged


def _continues_a_column(page: Page, above: np.ndarray, band: np.ndarray) -> bool:
    """Does `band` lie between the gutters of one text column of the region
    `above`, crossing none of them, and leave that column running text?"""
    columns = text_columns(page, above) if len(above) >= 4 else None
    if columns is None:
        return False
    left, right = float(page.x0[band].min()), float(page.x1[band].max())
    # Column edges left to right (text_columns reverses them on RTL pages).
    edges = sorted((float(page.x0[c].min()), float(page.x1[c].max())) for c in columns)
    ends = [-np.inf] + [x1 for _, x1 in edges[:-1]]
    starts = [x0 for x0, _ in edges[1:]] + [np.inf]
    if not any(end <= left and right <= start for end, start in zip(ends, starts, strict=True)):
        return False
    together = text_columns(page, np.concatenate([above, band]))
    return together is not None and len(together) == len(columns)


def _running_text(page: Page, group: np.ndarray) -> bool:
    return is_text_column(page, group) or holds_prose(page, group)


def _tables_joined(page: Page, groups: list[np.ndarray]) -> list[np.ndarray]:
    """`groups` (left to right, parted by gaps a gutter wide) with the
    groups next to one another that share their rows (more than ALIGNED of
    the smaller one's lines on the other's baselines: a table's labels and
    values, its columns) joined, unless their blocks start at their own
    pace (regions.staggered: an author grid's columns share a leading, not
    rows) or one is running text (columns of
    prose on one leading, a text column beside a form): a table's inner
    gaps are no gutters, and own_rows weighs the table as a whole against
    its neighbours."""
    joined = [groups[0]]
    for group in groups[1:]:
        last = joined[-1]
        # Running text is asked first: kept per group, it spares most pairs
        # the measure of their shared rows (the same answer, in another order).
        prose = _running_text(page, last) or _running_text(page, group)
        table = not prose and shared_rows(page, last, group) > ALIGNED * min(len(last), len(group))
        if table and not staggered(page, last, group):
            joined[-1] = np.concatenate([last, group])
        else:
            joined.append(group)
    return joined


def text_columns(page: Page, ids: np.ndarray, depth: int = 0) -> list[np.ndarray] | None:
    """The region cut at its full-height gutters into text columns (or a
    region of columns beside one, see beside_text), in reading order; None
    when it has no gutter between two text columns. Compiled but for
    beside_text's question to read_region (kernels.column_groups: the
    gutters, the groups judged, the tables joined, beside_table), which is
    asked here in the same turn; _text_columns is its reference."""
    if page.lib is None:
        return _text_columns(page, ids, depth)
    glyphs = (page.inked, page.start, page.end, page.classes)
    found = column_groups(page.lib, (page.x0, page.x1, page.y0, page.y1), glyphs, (page.words, page.first_word), ids, page.gutter, _group_limits(page))
    if found is None:
        return None
    groups, codes, asks = found
    compound: dict[int, bool] = {}

    def beside_text(k: int) -> bool:
        """Is group k, beside a text column (column_groups measured that),
        a region of columns of its own?"""
        if k not in compound:
            compound[k] = read_region(page, groups[k], depth + 1)[1]
        return compound[k]

    columns = [groups[0]]
    for i in range(1, len(groups)):
        if codes[i - 1] & 1 or (asks[i - 1] >= 0 and beside_text(asks[i - 1])) or codes[i - 1] & 2:
            columns.append(groups[i])
        else:
            columns[-1] = np.concatenate([columns[-1], groups[i]])
    return _in_reading_order(page, columns)


def _group_limits(page: Page) -> tuple[Any, ...]:
    """What kernels.column_groups and kernels.column_leaves judge a group
    and weigh two groups by on this page: judge's and wraps' measures and
    verdicts (regions.verdict_limits), and SAME_BASELINE and CELL_PADDING
    body heights, ALIGNED, COMPOUND_COVER and GRID_ROWS (own_rows, the
    tables joined, beside_text). Built once per page, as verdict_limits."""
    found: tuple[Any, ...] | None = page.kept.limits.get("groups")
    if found is None:
        shared = (SAME_BASELINE * page.body, CELL_PADDING * page.body, ALIGNED, COMPOUND_COVER, GRID_ROWS)
        found = page.kept.limits["groups"] = (*verdict_limits(page), shared)
    return found


def _in_reading_order(page: Page, columns: list[np.ndarray]) -> list[np.ndarray] | None:
    """`columns` (left to right) in reading order; None where there is one."""
    if len(columns) < 2:
        return None
    return columns[::-1] if page.rtl else columns


def _text_columns(page: Page, ids: np.ndarray, depth: int = 0) -> list[np.ndarray] | None:
    """text_columns by the rules (RAGPREP_PURE=1)."""
    ids, cuts = gutter_cuts(page.lib, page.x0, page.x1, ids, page.gutter)
    if not len(cuts):
        return None
    groups = split_at(ids, cuts)
    judge(page, groups)
    groups = _tables_joined(page, groups)
    judge(page, groups)
    text = [_running_text(page, group) for group in groups]
    compound: dict[int, bool] = {}

    def beside_text(k: int, j: int) -> bool:
        """Is group k, not a text column, a region of columns of its own
        (its own cut accepted: two text columns over a float that spans
        them) running beside the text column j along its whole height?"""
        if text[k] or not text[j]:
            return False
        top, bottom = page.y1[groups[k]].max(), page.y0[groups[k]].min()
        beside = min(top, page.y1[groups[j]].max()) - max(bottom, page.y0[groups[j]].min())
        if beside < COMPOUND_COVER * (top - bottom):
            return False
        if k not in compound:
            compound[k] = read_region(page, groups[k], depth + 1)[1]
        return compound[k]

    def beside_table(k: int, j: int) -> bool:
        """Are groups k and j, neither a text column (a column of lists
        among tables holding prose lines may be one of them), columns set
        on their own (own_rows: a spec sheet's columns of tables)? Beside
        a text column, a table or an infobox is a sidebar: no cut, and the
        stream breaks the tie."""
        if is_text_column(page, groups[k]) or is_text_column(page, groups[j]):
            return False
        return own_rows(page, groups[k], groups[j])

    # Keep a gutter only between two text columns, between a text column
    # and a region of columns beside it (see beside_text), or between two
    # columns set on their own (see beside_table); merge across the others
    # (a table's inner gaps, a margin note beside its column).
    columns = [groups[0]]
    for i in range(1, len(groups)):
        if (text[i - 1] and text[i]) or beside_text(i - 1, i) or beside_text(i, i - 1) or beside_table(i - 1, i):
            columns.append(groups[i])
        else:
            columns[-1] = np.concatenate([columns[-1], groups[i]])
    return _in_reading_order(page, columns)
