"""Layout mode: a column-aware reading order for pages without usable tags.

Content-stream order is the reading order of most untagged pages, and the one
thing layout mode must not do is make such a page worse. So it starts from
stream order and changes it only where the page demonstrably has text columns
(DESIGN.md, "Modes"); a page without them reads exactly as in stream mode.

1. Units. Stream order (``geometric.stream_order``) is cut into line
   segments: a new unit starts wherever join()'s line rule starts a line, and
   inside a line at a jump along it wider than a glyph height (the smaller
   of the two glyphs: a bullet whose font has a deep box must not bridge a
   narrow gutter) or far back.
   A producer that paints "left column line, right column line" on one
   baseline thus gives two units. A unit keeps its glyphs in stream order;
   nothing below reorders glyphs inside a unit.
2. Reading frame. Coordinates are projected on the page's dominant writing
   direction (the most common glyph direction, to the degree) and its normal,
   so text drawn at 90° (a landscape page shown through /Rotate, which leaves
   user space as it is, or a rotated region) is cut in its own frame: "left"
   is where its lines start, "top" where its first line is. Units in another
   direction (an arXiv stamp up the margin, axis labels) and units of blanks
   take no part in the cut: they follow the unit painted before them. Pages
   with vertical writing (WMode 1) keep ``stream_order``, which already reads
   vertical columns right to left (§9.7.4.3).
3. Recursive XY-cut on whitespace. A region is cut vertically into columns at
   strips of whitespace at least a glyph height wide that cross it from top
   to bottom, or horizontally into bands at whitespace gaps across its whole
   width (_SECTION_GAP). When both cuts exist (columns whose paragraph gaps
   happen to line up, or sections laid out in columns), the full-height
   gutter wins: columns first, unless the stream reads the region band after
   band (each band column by column) with at most a few strays and the
   columns worse. The stream is the tie-breaker geometry cannot provide, but
   only where it is consistent: a stream that interleaves the columns line by
   line reads neither order and leaves the gutter to decide. When only the
   bands exist because something crosses the gutter (a centred page number,
   a float spanning both columns), the stream is asked the same question
   about the best gutter candidate: if it reads that candidate's sides one
   after the other rather than band after band, the gaps merely line up
   across the columns and the region keeps stream order. A band of running
   text that lies under one text column of the band above it (the last
   reference of a column that runs lower than its neighbour, whose gap only
   spans the page because the neighbour has ended) joins that band, whose
   own cut then reads it with its column (_ragged_ends). When only the
   gutter exists, a line of whitespace across the region through a wide
   gap of one column, next to its running text (an author grid above the
   columns: the right column's authors set apart from its text, the left
   one's only by the space between lines; the rows of a table of prose
   cells), is a band cut too, each such cut kept only where the stream
   reads its two bands one after the other (_column_gap_bands). When neither
   cut exists because full-width units cross the gutter (a title, a wide
   caption, a footer, a centred page number), the best supported gutter
   candidate is found and each run of rows crossing it becomes a band,
   leaving the column rows between them as bands of their own. Bands read
   top to bottom; columns left to right, or right to left when the page's
   text is predominantly RTL; the parts of a column that wide whitespace
   sets apart (footnotes, a title above it), or that the stream paints on
   separate visits to the column (a title block painted last), top to
   bottom.
4. Only text columns count. A vertical cut is accepted only between two
   groups of units that look like running text (_is_text_column: at least
   two rows, _COLUMN_WIDTH glyph heights wide, rows that fill the width and
   are single lines rather than several cells side by side, enough glyphs
   per row, mostly letters; lines stacked in one row because a tall bullet
   reaches into the line above are no cells). Table columns, list numbers
   beside their items, labels beside values fail. A group that fails but
   is itself a region of columns (its own cut accepted: two text columns
   over a worksheet spanning them) counts beside a text column that runs
   along its whole height (_COMPOUND_COVER): the gutter between them is
   proven by that running text. A region without an accepted cut stays in
   stream order:
   when in doubt, stream order wins. A page with no accepted cut anywhere is
   returned in stream order itself, so single-column pages, tables and odd
   layouts read exactly as in stream mode.
5. Leaves keep stream order. The cut yields leaves (columns, parts of
   columns, and the runs of column-free bands between them); glyphs are
   emitted leaf by leaf, in stream order inside a leaf. Where the stream
   already reads column after column nothing moves; where it interleaves the
   columns or paints the footer first, the leaves put it right.
6. Non-text keeps stream order. A part that fails the text-column test of
   step 4 (figure labels, a caption line, a form or page number) carries no
   text flow for geometry to follow, so consecutive such leaves merge into
   one, read in stream order (_merge_fragments): sorting a figure's labels
   top to bottom reads the picture, not the author's order. And such a part
   under a column's text that the stream paints after the other columns'
   text above it (a form number under the first of three footer columns,
   beside the last lines of the third; a footer's left piece, whatever is
   painted beside it on its row) is read after the columns rather than
   ahead of the next one: geometry leaves its place open, and the stream's
   choice is consistent with it. So is the stream's second and last visit
   to a column it otherwise paints in one visit, when it is such a part
   under every column, a paragraph gap below its own (a table's title
   centred under the columns, painted after them, too close for a band of
   its own). A footnote of running text, or one painted before the other
   columns, still follows its column. Mirrored, a non-text part over a
   column's text, above every other column and painted before all of them
   (a page number over the last column) is read before the columns. Non-text
   leaves on either side of a gap between bands merge only where the stream
   interleaves them (a figure whose labels the gap crosses); one painted
   wholly before the leaf above it (a page number painted first, under
   notes at the foot of the last column) keeps the bands' order
   (_append_band).

Why XY-cut rather than projection profiles or a topological sort of blocks:
the pages this mode is for (papers, reports, newsletters, forms) are
Manhattan layouts, where a recursive cut is exact, explains every reordering
by a gutter or a gap one can point at, keeps stream order inside its leaves
for free, and costs a few sorts per region on tens to hundreds of units. A
profile alone cannot tell a title crossing the gutter from text in it, and a
partial order over all pairs of blocks (Breuel 2003) is quadratic and must
be taught the same exceptions. The cut's known limit, non-Manhattan
regions (L shapes, text flowing around a figure), falls to stream order
through the acceptance test.

Blocks follow ``blocks.geometric_block_starts`` (paragraph gap, move back up,
font-size change, all at a line break), plus a first-line indent and every
leaf change. A block is labelled H, with level 1 for the largest heading size
of the page, when its glyphs are clearly larger than the body text (the most
common size by glyph count), it spans few lines, and its size is rare on
the page.

Per-glyph work is column-wise numpy, done once per page; the cut loops in
Python over regions and units (tens to hundreds per page), and regions too
narrow for two text columns, or without two long lines side by side, are not
cut at all.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from ragprep.extract.bidi import is_rtl
from ragprep.extract.blocks import FONT_SIZE_CHANGE, PARAGRAPH_GAP, BlockLabel, build_blocks, text_lines
from ragprep.extract.config import ExtractConfig

# _pair_moves applies join()'s own line rule (geometric.line_break_rule): a
# block start is a forced break, and one where join() sees no line break
# would change the text of a page stream mode reads.
from ragprep.extract.geometric import SAME_DIRECTION, join, line_break_rule, stream_order
from ragprep.extract.glyphs import GlyphTable
from ragprep.extract.reading import PageReading, unmarked_glyphs

# A jump along the line wider than this many glyph heights (the larger of
# the two glyphs) starts a new unit: wider than any word space, narrower than
# a column gutter.
SEGMENT_GAP = 1.0
# A jump backwards along the line longer than this many heights starts a new
# unit (the pen going back to another column); right-to-left text painted in
# logical order moves back about two glyph widths per glyph and stays whole.
SEGMENT_BACK = 4.0
# A gutter is a strip of whitespace at least this many body heights wide.
_GUTTER = 1.0
# Two rows of units may overlap by this many body heights (tall ascenders
# over deep descenders) and still be separate rows.
_ROW_OVERLAP = 0.2
# A horizontal whitespace gap of this many body heights across a whole region
# may separate bands (sections, a title block); wider than the space between
# lines and paragraphs.
_SECTION_GAP = 1.2
# A gutter candidate for banding has content on both sides in rows that make
# up at least this share of the region's height.
_GUTTER_SUPPORT = 0.2
# A text column is at least this many body heights wide ...
_COLUMN_WIDTH = 12.0
# ... and its rows fill, in the median, at least this share of its width.
_COLUMN_FILL = 0.6
# ... with at most this share of rows made of several units (cells) ...
_COLUMN_SPLIT_ROWS = 0.25
# ... with at least this many glyphs per row (median; a CJK line as wide as
# _COLUMN_WIDTH holds about that many), ...
_COLUMN_GLYPHS = 10
# ... of which at least this share are letters.
_COLUMN_LETTERS = 0.5
# A region of columns (not a text column itself) counts as a column beside
# a text column that runs along at least this share of its height.
_COMPOUND_COVER = 0.9
# When a region can be cut into columns and into bands, the stream decides
# for the bands only when at most this share of its units is out of their
# order (see _read).
_STRAYS = 0.1
# Deeper cuts than this keep stream order (a guard, not a layout limit).
_MAX_DEPTH = 24
# Share of a glyph's height below the baseline (Latin fonts: about 0.2).
_DESCENT = 0.22
# Directions within half a degree of the x axis: an upright page.
_UPRIGHT = float(np.cos(np.radians(0.5)))
# Font sizes and heights above this many points are not text (histogram bound).
_MAX_VALUE = 2000
# Sample of glyphs on which a column's share of letters is estimated.
_LETTER_SAMPLE = 100
# No code point below this one is right-to-left (U+0590, the Hebrew block).
_FIRST_RTL = 0x0590
# Sample of glyphs used to decide whether the page reads right to left.
_RTL_SAMPLE = 100
# First-line indent: the line starts this many heights right of the line
# before it, while the line after it is flush with the line before.
_INDENT_MIN, _INDENT_MAX, _FLUSH = 0.8, 6.0, 0.3
# A heading's glyphs are at least this much larger than the body text ...
_HEADING_SIZE = 1.2
# ... on most of its glyphs, and it spans at most this many lines.
_HEADING_SHARE = 0.75
_HEADING_LINES = 4
# ... and glyphs of its size make up at most this share of the page.
_HEADING_PAGE_SHARE = 0.2
_MAX_HEADING_LEVEL = 6
_PARAGRAPH = BlockLabel(struct_type="P", struct_path=("P",))


@dataclass(frozen=True)
class _Ordering:
    """A page's reading order and what labelling its blocks needs."""

    order: np.ndarray  # glyph indices in reading order
    block_start: np.ndarray  # per position: a new block starts here
    line_break: np.ndarray  # per position: a new line starts here (the join rule)
    font_size: np.ndarray  # per position
    along: np.ndarray | None  # the page's writing direction, when known


def layout_order(
    table: GlyphTable, config: ExtractConfig, exclude: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Glyph indices in column-aware reading order (a permutation of
    ``text_glyphs(table)``, less the glyphs `exclude` flags) and, per
    position, whether a new block starts there."""
    ordering = _layout(table, config, exclude)
    return ordering.order, ordering.block_start


def read_layout(table: GlyphTable, config: ExtractConfig, exclude: np.ndarray | None = None) -> PageReading:
    """The page in layout order: text joined by the geometric rules, a forced
    line break at every block start, blocks labelled P or H. Glyphs flagged
    in `exclude` (one flag per table row: the running headers and footers
    the document pass marked, see running.py) take no part at all, as if the
    page had not painted them."""
    ordering = _layout(table, config, exclude)
    joined = join(table, ordering.order, config, break_before=ordering.block_start)
    # join() sorts glyphs only inside right-to-left lines and every block
    # starts a line, so block starts and labels keep their positions.
    label_index, labels = _block_labels(table, ordering)
    blocks = build_blocks(table, joined, ordering.block_start, label_index, labels)
    return PageReading(joined, blocks, unmarked_glyphs(table), text_lines(table, joined))


# --------------------------------------------------------------------------- order


def _layout(table: GlyphTable, config: ExtractConfig, exclude: np.ndarray | None = None) -> _Ordering:
    """Stream order cut into units, the units cut into leaves, the leaves
    emitted in reading order; stream order itself when nothing was cut."""
    stream = stream_order(table, config)
    if exclude is not None and exclude.any():
        stream = stream[~exclude[stream]]
    if len(stream) < 2 or (table.wmode.any() and (table.wmode[stream] == 1).any()):
        # Vertical writing: stream_order already reads its columns (§9.7.4.3).
        return _with_blocks(table, config, stream, None, None)
    glyphs = _Gathered.of(table, stream)
    moves = _line_moves(table, stream, config, glyphs)
    page = _Page(table, stream, glyphs, _unit_starts(moves, glyphs))
    leaves, split = _read(page, np.flatnonzero(page.placed), 0)
    if not split:
        return _with_blocks(table, config, stream, None, moves, along=page.along)
    positions, new_leaf = _emit(page, leaves)
    moves = _reordered_moves(table, stream, moves, positions, config)
    return _with_blocks(table, config, stream[positions], new_leaf, moves, page.rtl, page.along)


def _unit_starts(moves: _Moves, glyphs: _Gathered) -> np.ndarray:
    """Positions in stream order where a unit starts: a line break, a jump
    forward along the line wider than SEGMENT_GAP heights, or back by more
    than SEGMENT_BACK. The jump forward is measured against the smaller of
    the two glyphs: a bullet whose font has a deep box (half again the
    text's height) starting the next column's line must not bridge a
    gutter narrower than itself."""
    smaller = np.minimum(glyphs.height[:-1], glyphs.height[1:])
    cut = (
        moves.line_break[1:]
        | (moves.gap > SEGMENT_GAP * smaller)
        | (moves.gap < -SEGMENT_BACK * moves.height)
    )
    return np.concatenate([[0], np.flatnonzero(cut) + 1])


@dataclass(frozen=True)
class _Moves:
    """Measurements between consecutive glyphs of an order (n - 1 pairs)."""

    line_break: np.ndarray  # per position (n): a new line starts here
    across: np.ndarray  # previous origin -> origin, across the previous direction
    gap: np.ndarray  # previous own end -> origin, along the previous direction
    height: np.ndarray  # the larger height of the two glyphs


@dataclass(frozen=True)
class _Gathered:
    """Per-glyph columns of the glyph table in one order, gathered once."""

    direction: np.ndarray
    origin: np.ndarray
    own_end: np.ndarray
    height: np.ndarray

    @classmethod
    def of(cls, table: GlyphTable, order: np.ndarray) -> "_Gathered":
        return cls(table.direction[order], table.origin[order], table.own_end[order], table.height[order])


def _line_moves(
    table: GlyphTable, order: np.ndarray, config: ExtractConfig, glyphs: _Gathered | None = None
) -> _Moves:
    line_break = np.zeros(len(order), dtype=bool)
    # Gathered once, paired as views: the gathers are most of the cost.
    glyphs = glyphs or _Gathered.of(table, order)
    direction, origin, height = glyphs.direction, glyphs.origin, glyphs.height
    line_break[1:], across, gap, height_max = _pair_moves(
        direction[:-1], direction[1:], origin[:-1], origin[1:], glyphs.own_end[:-1],
        height[:-1], height[1:], config,
    )  # fmt: skip
    return _Moves(line_break, across, gap, height_max)


def _pair_moves(
    direction: np.ndarray,
    next_direction: np.ndarray,
    origin: np.ndarray,
    next_origin: np.ndarray,
    own_end: np.ndarray,
    height: np.ndarray,
    next_height: np.ndarray,
    config: ExtractConfig,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """geometric.line_break_rule for pairs of a glyph and the next one, with
    the gap along the line (from the glyph's own end) and the larger height."""
    line_break, across, _ = line_break_rule(
        direction, next_direction, origin, next_origin, height, next_height, config
    )
    gap = np.einsum("ij,ij->i", next_origin - own_end, direction)
    return line_break, across, gap, np.maximum(height, next_height)


def _reordered_moves(
    table: GlyphTable, stream: np.ndarray, moves: _Moves, positions: np.ndarray, config: ExtractConfig
) -> _Moves:
    """The moves of stream[positions], reusing those of the stream: pairs
    that were neighbours in the stream keep their measurements, only the
    pairs at unit boundaries are measured anew."""
    n = len(positions)
    line_break = np.zeros(n, dtype=bool)
    if n < 2:
        return _Moves(line_break, np.zeros(0), np.zeros(0), np.zeros(0))
    pair = positions[1:] - 1  # index of the stream pair ending at each position
    fresh = np.flatnonzero(positions[1:] != positions[:-1] + 1)
    pair = np.maximum(pair, 0)
    breaks, across, gap, height = (
        moves.line_break[1:][pair],
        moves.across[pair],
        moves.gap[pair],
        moves.height[pair],
    )
    if len(fresh):
        prev, cur = stream[positions[fresh]], stream[positions[fresh + 1]]
        measured = _pair_moves(
            table.direction[prev], table.direction[cur], table.origin[prev], table.origin[cur],
            table.own_end[prev], table.height[prev], table.height[cur], config,
        )  # fmt: skip
        for column, values in zip((breaks, across, gap, height), measured):
            column[fresh] = values
    line_break[1:] = breaks
    return _Moves(line_break, across, gap, height)


class _Page:
    """The units of one page in its reading frame; built per call, never shared."""

    def __init__(
        self, table: GlyphTable, stream: np.ndarray, glyphs: _Gathered, unit_start: np.ndarray
    ) -> None:
        self.table = table
        self.stream = stream
        self.start = unit_start
        self.end = np.concatenate([unit_start[1:], [len(stream)]])
        self.along = along = reading_direction(table, stream, glyphs.direction)
        # Glyph boxes in the frame: along the line from the origin to the own
        # end, across it the glyph height, split at the baseline in a typical
        # descent-to-ascent proportion (the quads would say exactly, at the
        # price of gathering them; rows and gutters do not need it).
        if along[0] == 1.0:
            ax, bx, base = glyphs.origin[:, 0], glyphs.own_end[:, 0], glyphs.origin[:, 1]
        else:
            ax, bx = glyphs.origin @ along, glyphs.own_end @ along
            base = glyphs.origin[:, 1] * along[0] - glyphs.origin[:, 0] * along[1]
        low_x, high_x = np.minimum(ax, bx), np.maximum(ax, bx)
        low_y = base - _DESCENT * glyphs.height
        high_y = low_y + glyphs.height
        # Blanks have no ink: a run of trailing spaces must not make a table
        # cell as wide as a line of text, nor a lone tab span a gutter.
        blank = _blank_edges(table.text[stream], unit_start, self.end)
        if len(blank):
            low_x[blank], low_y[blank] = np.inf, np.inf
            high_x[blank], high_y[blank] = -np.inf, -np.inf
        self.x0 = np.minimum.reduceat(low_x, unit_start)
        self.x1 = np.maximum.reduceat(high_x, unit_start)
        self.y0 = np.minimum.reduceat(low_y, unit_start)
        self.y1 = np.maximum.reduceat(high_y, unit_start)
        # Glyphs per unit, leading and trailing blanks not counted.
        is_blank = np.zeros(len(stream), dtype=bool)
        is_blank[blank] = True
        self.inked = self.end - unit_start - np.add.reduceat(is_blank, unit_start)
        # Units that take part in the cut. A unit written in another direction
        # than the page (a rotated stamp, axis labels) would span rows and
        # gutters in this frame; a unit of blanks has no place at all. Both
        # follow the unit painted before them instead (see _emit).
        self.placed = (glyphs.direction[unit_start] @ along >= SAME_DIRECTION) & (self.inked > 0)
        self.body = _most_common(glyphs.height, 10) or 1.0
        self.gutter = _GUTTER * self.body
        self._rtl: bool | None = None
        self.rows: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}  # see _rows
        self.reads: dict[bytes, tuple[list[np.ndarray], bool]] = {}  # see _read

    def letter_share(self, ids: np.ndarray) -> float:
        """Share of letters (any script, str.isalpha) among the glyphs of
        units `ids`, estimated on an even sample of them."""
        length = self.end[ids] - self.start[ids]
        offset = np.cumsum(length) - length
        total = int(length.sum())
        picked = np.arange(0, total, max(1, total // _LETTER_SAMPLE))
        unit = np.searchsorted(offset, picked, side="right") - 1
        texts = self.table.text[self.stream[self.start[ids][unit] + picked - offset[unit]]].tolist()
        inked = len(texts) - sum(map(str.isspace, texts))
        return sum(map(str.isalpha, texts)) / inked if inked else 0.0

    @property
    def rtl(self) -> bool:
        if self._rtl is None:
            self._rtl = _reads_rtl(self.table, self.stream)
        return self._rtl


def _blank_edges(texts: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Positions of the blank glyphs (str.isspace) that lead or trail each
    unit start[i]:end[i] of `texts`. Only unit edges are looked at, one glyph
    per unit and step, so the cost follows the units, not the glyphs."""
    found: list[np.ndarray] = []
    for edge, step, stop in ((start, 1, end), (end - 1, -1, start - 1)):
        position, limit = edge.copy(), stop
        active = np.arange(len(start))
        while len(active):
            at = position[active]
            blank = np.fromiter(map(str.isspace, texts[at]), dtype=bool, count=len(active))
            found.append(at[blank])
            active = active[blank]
            position[active] += step
            active = active[position[active] != limit[active]]
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def _reads_rtl(table: GlyphTable, order: np.ndarray) -> bool:
    """Does the text read predominantly right to left? Decided on an even
    sample of the glyphs: only the proportion matters."""
    sample = order[:: max(1, len(order) // _RTL_SAMPLE)]
    first = np.array([ord(t[0]) for t in table.text[sample].tolist()], dtype=np.int64)
    if not len(first) or first.max() < _FIRST_RTL:
        return False
    rtl = is_rtl(first)
    latin = ((first | 0x20) >= ord("a")) & ((first | 0x20) <= ord("z"))
    # Letters of other left-to-right scripts; punctuation, symbols and CJK
    # marks (U+2000-U+303F) have no direction of their own.
    other = (first >= 0xC0) & ~rtl & ~((first >= 0x2000) & (first <= 0x303F))
    return int(rtl.sum()) > int((latin | other).sum())


def reading_direction(
    table: GlyphTable, order: np.ndarray, direction: np.ndarray | None = None
) -> np.ndarray:
    """Unit vector of the dominant writing direction of the glyphs `order`
    (their directions when already gathered): the most common glyph
    direction, to the degree."""
    if (table.direction[:, 0] > _UPRIGHT).all():
        return np.array([1.0, 0.0])  # every glyph of the page is upright
    direction = table.direction[order] if direction is None else direction
    degrees = np.rint(np.degrees(np.arctan2(direction[:, 1], direction[:, 0]))) % 360
    angle = np.radians(_most_common(degrees, 1))
    # Rounded so that right angles give exact 0 and 1.
    return np.array([round(float(np.cos(angle)), 12), round(float(np.sin(angle)), 12)])


def _most_common(values: np.ndarray, steps_per_unit: int) -> float:
    """The most common value, rounded to 1/steps_per_unit (0.0 when there is
    none): a histogram, not a sort. Values outside [0, _MAX_VALUE] are ignored."""
    steps = np.rint(values * steps_per_unit)
    steps = steps[(steps >= 0) & (steps <= _MAX_VALUE * steps_per_unit)].astype(np.int64)
    if not len(steps):
        return 0.0
    return float(np.argmax(np.bincount(steps))) / steps_per_unit


def _lines_side_by_side(page: _Page, ids: np.ndarray) -> bool:
    """Are there, among units `ids`, at least two pairs of lines as long as a
    text column's next to each other across a gutter? Without them no cut
    can find two text columns, and the region is not cut at all. Neighbours
    in top-to-bottom order are enough to look at: lines of two columns
    alternate in that order (or tie, on aligned baselines, and then keep
    stream order next to each other)."""
    long = ids[page.x1[ids] - page.x0[ids] >= _COLUMN_FILL * _COLUMN_WIDTH * page.body]
    if len(long) < 4:
        return False
    long = long[np.argsort(page.y0[long] + page.y1[long], kind="stable")]
    x0, x1, y0, y1 = page.x0[long], page.x1[long], page.y0[long], page.y1[long]
    overlap = np.minimum(y1[:-1], y1[1:]) > np.maximum(y0[:-1], y0[1:])
    apart = (x0[1:] - x1[:-1] >= page.gutter) | (x0[:-1] - x1[1:] >= page.gutter)
    return int(np.count_nonzero(overlap & apart)) >= 2


def _read(page: _Page, ids: np.ndarray, depth: int) -> tuple[list[np.ndarray], bool]:
    """Leaves of the region made of units `ids`, in reading order, and whether
    any text-column cut was accepted inside it (else: one leaf, `ids`).
    Kept per region: _columns reads a region of columns beside a text
    column to accept the gutter, then _read reads it again as a column."""
    key = ids.tobytes()
    found = page.reads.get(key)
    if found is None:
        found = page.reads[key] = _cut(page, ids, depth)
    leaves, split = found
    return list(leaves), split  # callers edit their list of leaves


def _cut(page: _Page, ids: np.ndarray, depth: int) -> tuple[list[np.ndarray], bool]:
    """_read, uncached."""
    if len(ids) < 4 or depth > _MAX_DEPTH:
        return [ids], False
    if page.x1[ids].max() - page.x0[ids].min() < 2 * _COLUMN_WIDTH * page.body + page.gutter:
        return [ids], False  # too narrow for two text columns
    if not _lines_side_by_side(page, ids):
        return [ids], False
    columns = _columns(page, ids, depth)
    rows = _rows(page, ids)
    bands = _gap_bands(page, *rows)
    if columns is not None and bands is not None:
        # Both cuts are possible: columns whose paragraph gaps line up, or
        # sections laid out in columns. They cut the region into the same
        # cells (a column's part within a band) and differ only in the order
        # of the cells. The gutter runs the whole height of the region, so
        # the columns come first, unless the stream reads band after band,
        # but for a few strays (a page number painted last), and reads the
        # columns worse. A stream that interleaves the columns line by line
        # is far from both orders and leaves the columns; one that paints
        # section after section, each column by column, reads the bands.
        if _stream_reads_bands(page, ids, bands, columns):
            columns = None
    elif columns is not None:
        # No gap crosses the region, but one column may be set apart by a
        # wide one where its neighbour has only the space between lines (an
        # author grid above the columns, its right column set apart from its
        # column's text, the left one not): the same question is put to the
        # stream about each such cut on its own.
        bands = _column_gap_bands(page, ids, rows, columns)
        if bands is not None:
            columns = None
    elif bands is not None and _stream_reads_columns(page, ids, rows, bands):
        # Whitespace gaps cut the region, but something crosses the gutter
        # (a centred page number, a float spanning both columns), so no
        # full-height gutter exists to weigh against them. Gaps that happen
        # to line up across the columns are no section break: where the
        # stream reads the gutter's sides one after the other rather than
        # band after band, it keeps its order.
        return [ids], False
    if columns is not None:
        region = np.sort(ids)
        leaves: list[np.ndarray] = []
        ahead: list[np.ndarray] = []  # parts read before every column
        below: list[np.ndarray] = []  # parts read after every column
        for k, column in enumerate(columns):
            inner, inner_split = _read(page, column, depth + 1)
            if not inner_split:
                # A column reads top to bottom: its parts set apart by wide
                # whitespace (footnotes under a rule, a title above), or
                # painted on separate visits of the stream to the column (a
                # title block painted last), follow their place rather than
                # the order they were painted in ...
                parts = _gap_bands(page, *_rows(page, column)) or [column]
                visited = [visit for part in parts for visit in _visits_top_down(page, region, part)]
                if len(visited) > 1:
                    inner = _merge_fragments(page, visited) or inner
                # ... but a part under its text that is not running text and
                # that the stream paints after the other columns' text above
                # it (a form number under the first of three footer columns;
                # what sits beside it on its own row does not count) is read
                # after the columns: geometry has no order for it, the
                # stream's is consistent with it.
                if len(inner) > 1 and not _is_text_column(page, inner[-1]):
                    top = page.y1[inner[-1]].max() - _ROW_OVERLAP * page.body
                    above = [c[page.y0[c] >= top] for j, c in enumerate(columns) if j != k]
                    others = max((int(a.max()) for a in above if len(a)), default=-1)
                    if inner[-1].min() > others:
                        below.append(inner.pop())
                else:
                    # The same holds for the stream's last visit to the
                    # column when no gap wide enough for a part of its own
                    # sets it apart (a table's title centred under the
                    # columns, painted after them).
                    trailing = _trailing_visit(page, region, columns, k)
                    if trailing is not None:
                        # Under the rest of its column, it lies in the last part.
                        kept = ~np.isin(inner[-1], trailing)
                        if kept.any() and len(kept) - np.count_nonzero(kept) == len(trailing):
                            inner[-1] = inner[-1][kept]
                            below.append(trailing)
                # Likewise, a part over its text that is not running text,
                # above every other column and painted before all of them (a
                # page number over the last column) is read before the
                # columns rather than between them.
                if len(inner) > 1 and not _is_text_column(page, inner[0]):
                    bottom = page.y0[inner[0]].min() + _ROW_OVERLAP * page.body
                    beside = [c for j, c in enumerate(columns) if j != k]
                    if all(page.y1[c].max() <= bottom and inner[0].max() < c.min() for c in beside):
                        ahead.append(inner.pop(0))
            leaves.extend(inner)
        # Unit numbers follow stream order: several such parts keep it.
        leaves[:0] = sorted(ahead, key=lambda part: int(part.min()))
        leaves.extend(sorted(below, key=lambda part: int(part.min())))
        # Non-text leaves merge here, inside the region; across the bands
        # of a parent region, see _append_band.
        return _merge_fragments(page, leaves), True
    if bands is None:
        bands = _spanning_bands(page, *rows)
    if bands is None:
        return [ids], False
    leaves, pending, split = [], [], False
    for band in _ragged_ends(page, bands):
        inner, inner_split = _read(page, band, depth + 1)
        if not inner_split:
            # Column-free bands next to each other form one leaf, read in
            # stream order: top-to-bottom sorting is no safer there.
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


def _append_band(page: _Page, leaves: list[np.ndarray], inner: list[np.ndarray]) -> None:
    """Append the leaves `inner` of a band to `leaves`, those of the bands
    above it. A non-text leaf on each side of the gap between them merge
    (see _merge_fragments) where the stream interleaves them: a figure
    whose labels the gap happens to cross. Where the stream paints the
    lower one wholly before the upper one (a page number painted first,
    under a heading and footnotes at the foot of the last column), they are
    two things, and the gap orders them as it orders text."""
    if (
        leaves
        and inner
        and int(inner[0].max()) > int(leaves[-1].min())
        and not _is_text_column(page, leaves[-1])
        and not _is_text_column(page, inner[0])
    ):
        leaves[-1] = np.concatenate([leaves[-1], inner[0]])
        inner = inner[1:]
    leaves.extend(inner)


def _ragged_ends(page: _Page, bands: list[np.ndarray]) -> list[np.ndarray]:
    """`bands` (top to bottom) with every band of running text that lies
    under a single text column of the band above it merged into that band.
    A column that runs lower than its neighbour (the last reference of a
    paper's last page) may be parted from its own text by a gap that only
    looks full-width because the neighbour has ended; merged back, the
    region's own cut (its gutter against its gaps, the stream deciding)
    reads it with its column, as it would if the neighbour went on."""
    merged = [bands[0]]
    for band in bands[1:]:
        if _is_text_column(page, band) and _continues_a_column(page, merged[-1], band):
            merged[-1] = np.concatenate([merged[-1], band])
        else:
            merged.append(band)
    # Merged into one, the bands are the region itself, which has chosen
    # them over its columns already.
    return bands if len(merged) == 1 else merged


def _continues_a_column(page: _Page, above: np.ndarray, band: np.ndarray) -> bool:
    """Does `band` lie between the gutters of one text column of the region
    `above`, crossing none of them, and leave that column running text?"""
    columns = _columns(page, above) if len(above) >= 4 else None
    if columns is None:
        return False
    left, right = float(page.x0[band].min()), float(page.x1[band].max())
    # Column edges left to right (_columns reverses them on RTL pages).
    edges = sorted((float(page.x0[c].min()), float(page.x1[c].max())) for c in columns)
    ends = [-np.inf] + [x1 for _, x1 in edges[:-1]]
    starts = [x0 for x0, _ in edges[1:]] + [np.inf]
    if not any(end <= left and right <= start for end, start in zip(ends, starts)):
        return False
    together = _columns(page, np.concatenate([above, band]))
    return together is not None and len(together) == len(columns)


def _stream_reads_bands(
    page: _Page, ids: np.ndarray, bands: list[np.ndarray], columns: list[np.ndarray]
) -> bool:
    """Does the stream read the region `ids` band after band (each band
    column by column) but for _STRAYS of its units, and the columns worse?"""
    band_first = _stream_disorder(_cells(page, bands, columns, band_first=True))
    return band_first <= _STRAYS * len(ids) and band_first < _stream_disorder(
        _cells(page, bands, columns, band_first=False)
    )


def _column_gap_bands(
    page: _Page, ids: np.ndarray, rows: tuple[np.ndarray, np.ndarray], columns: list[np.ndarray]
) -> list[np.ndarray] | None:
    """The region cut into bands at the whitespace lines across it that pass
    through a gap of one of its `columns` (a _gap_bands cut of the column
    next to running text: a gap between two form labels says nothing about
    sections), the widest such line per gap; each cut is kept only where
    the stream reads the two bands it makes one after the other
    (_stream_reads_bands). None when no cut is kept."""
    ordered, starts = rows
    if len(starts) < 2:
        return None
    breaks = starts[1:]
    floor = np.minimum.accumulate(page.y0[ordered])
    # The whitespace between each row and the rows above it.
    low, high = page.y1[ordered][breaks], floor[breaks - 1]
    candidates: set[int] = set()
    for column in columns:
        parts = _gap_bands(page, *_rows(page, column))
        if parts is None:
            continue
        text = [_is_text_column(page, part) for part in parts]
        for k in range(1, len(parts)):
            if not (text[k - 1] or text[k]):
                continue
            top = min(float(page.y0[part].min()) for part in parts[:k])
            bottom = float(page.y1[parts[k]].max())
            through = np.flatnonzero((low < top) & (high > bottom) & (high > low))
            if len(through):
                candidates.add(int(through[np.argmax((high - low)[through])]))
    kept = [
        cut
        for cut in sorted(candidates)
        if _stream_reads_bands(page, ids, _split(ordered, breaks[cut : cut + 1]), columns)
    ]
    return _split(ordered, breaks[kept]) if kept else None


def _stream_reads_columns(
    page: _Page, ids: np.ndarray, rows: tuple[np.ndarray, np.ndarray], bands: list[np.ndarray]
) -> bool:
    """Does the stream read the two sides of the region's best gutter
    candidate (see _gutter_core) one after the other, across `bands`, closer
    than band after band? Units crossing the gutter count with its left side."""
    core = _gutter_core(page, *rows)
    if core is None:
        return False
    middle = (core[0] + core[1]) / 2
    right = page.x0[ids] >= middle
    if right.all() or not right.any():
        return False
    sides = [ids[~right], ids[right]]
    if page.rtl:
        sides.reverse()
    column_first = _stream_disorder(_cells(page, bands, sides, band_first=False))
    return column_first < _stream_disorder(_cells(page, bands, sides, band_first=True))


def _trailing_visit(
    page: _Page, region: np.ndarray, columns: list[np.ndarray], k: int
) -> np.ndarray | None:
    """The stream's second and last visit to column k of `region`, when it
    paints the rest of the column in one visit, and the piece it comes back
    for after every other column is not running text and lies under the
    rest of the column by a paragraph gap or more and under every other
    column (a table's title centred under the columns, too close to them
    for a band of its own); None otherwise. A stream that interleaves the
    columns visits each of them line by line, and says nothing of the kind."""
    visits = _stream_visits(region, columns[k])
    if len(visits) != 2:
        return None
    rest, visit = visits
    if _is_text_column(page, visit):
        return None
    top = float(page.y1[visit].max())
    if page.y0[rest].min() - top < (PARAGRAPH_GAP - 1.0) * page.body:
        return None
    others = [c for j, c in enumerate(columns) if j != k]
    if not all(page.y0[c].min() >= top - _ROW_OVERLAP * page.body and c.max() < visit.min() for c in others):
        return None
    return visit


def _stream_visits(region: np.ndarray, part: np.ndarray) -> list[np.ndarray]:
    """`part` (units of `region`, which is sorted) in stream order, cut into
    the stream's visits to it: the runs of its units that no other unit of
    the region interrupts."""
    part = np.sort(part)
    position = np.searchsorted(region, part)
    return _split(part, np.flatnonzero(np.diff(position) > 1) + 1)


def _visits_top_down(page: _Page, region: np.ndarray, part: np.ndarray) -> list[np.ndarray]:
    """`part` (units of one column of `region`, sorted in stream order) as
    the stream's visits to it: the runs of its units that no other unit of
    the region interrupts. When the visits lie one above the other but the
    stream painted them in another order (a title block painted after its
    column), they come back top to bottom; otherwise `part` is one piece."""
    visits = _stream_visits(region, part)
    part = np.concatenate(visits)
    if len(visits) == 1:
        return [part]
    top = np.array([page.y1[v].max() for v in visits])
    bottom = np.array([page.y0[v].min() for v in visits])
    order = np.argsort(-top, kind="stable")
    if (order == np.arange(len(visits))).all():
        return [part]
    if not (bottom[order[:-1]] >= top[order[1:]] - _ROW_OVERLAP * page.body).all():
        return [part]  # visits side by side or overlapping: no top-to-bottom order to restore
    return [visits[k] for k in order.tolist()]


def _stream_disorder(parts: list[np.ndarray]) -> int:
    """How many units the stream paints out of the reading order of `parts`:
    all units minus the longest run of them, in stream order, whose parts
    never go back (0 when the stream reads the parts one after the other)."""
    label = np.concatenate([np.full(len(part), k) for k, part in enumerate(parts)])
    # Unit numbers follow stream order.
    in_stream = label[np.argsort(np.concatenate(parts), kind="stable")].tolist()
    tails: list[int] = []  # patience sorting: longest non-decreasing subsequence
    for value in in_stream:
        i = bisect.bisect_right(tails, value)
        if i == len(tails):
            tails.append(value)
        else:
            tails[i] = value
    return len(in_stream) - len(tails)


def _cells(
    page: _Page, bands: list[np.ndarray], columns: list[np.ndarray], band_first: bool
) -> list[np.ndarray]:
    """The units of a region cut both into `bands` and into `columns` (two
    partitions of the same units, each in reading order), grouped by cell:
    band by band, each left to right (`band_first`), or column by column,
    each top to bottom. Empty cells are left out."""
    band_of = np.empty(len(page.start), dtype=np.int64)
    column_of = np.empty(len(page.start), dtype=np.int64)
    for k, band in enumerate(bands):
        band_of[band] = k
    for k, column in enumerate(columns):
        column_of[column] = k
    ids = np.concatenate(columns)
    if band_first:
        cell = band_of[ids] * len(columns) + column_of[ids]
    else:
        cell = column_of[ids] * len(bands) + band_of[ids]
    ids = ids[np.argsort(cell, kind="stable")]
    cell = np.sort(cell)
    return _split(ids, np.flatnonzero(np.diff(cell)) + 1)


def _columns(page: _Page, ids: np.ndarray, depth: int = 0) -> list[np.ndarray] | None:
    """The region cut at its full-height gutters into text columns (or a
    region of columns beside one, see beside_text), in reading order; None
    when it has no gutter between two text columns."""
    sorter = np.argsort(page.x0[ids], kind="stable")
    ids = ids[sorter]
    x0 = page.x0[ids]
    reach = np.maximum.accumulate(page.x1[ids])
    cuts = np.flatnonzero(x0[1:] - reach[:-1] >= page.gutter) + 1
    if not len(cuts):
        return None
    groups = _split(ids, cuts)
    text = [_is_text_column(page, group) for group in groups]
    compound: dict[int, bool] = {}

    def beside_text(k: int, j: int) -> bool:
        """Is group k, not a text column, a region of columns of its own
        (its own cut accepted: two text columns over a float that spans
        them) running beside the text column j along its whole height?"""
        if text[k] or not text[j]:
            return False
        top, bottom = page.y1[groups[k]].max(), page.y0[groups[k]].min()
        beside = min(top, page.y1[groups[j]].max()) - max(bottom, page.y0[groups[j]].min())
        if beside < _COMPOUND_COVER * (top - bottom):
            return False
        if k not in compound:
            compound[k] = _read(page, groups[k], depth + 1)[1]
        return compound[k]

    # Keep a gutter only between two text columns, or between a text column
    # and a region of columns beside it (see beside_text); merge across the
    # others (a table's inner gaps, a margin note beside its column).
    columns = [groups[0]]
    for i in range(1, len(groups)):
        if (text[i - 1] and text[i]) or beside_text(i - 1, i) or beside_text(i, i - 1):
            columns.append(groups[i])
        else:
            columns[-1] = np.concatenate([columns[-1], groups[i]])
    if len(columns) < 2:
        return None
    return columns[::-1] if page.rtl else columns


def _rows(page: _Page, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Units `ids` sorted top to bottom, and the positions where a new row
    starts: a row ends where a horizontal line crosses none of its units.
    Kept per region: a column is looked at by its parent and by itself."""
    key = ids.tobytes()
    rows = page.rows.get(key)
    if rows is None:
        ids = ids[np.argsort(-page.y1[ids], kind="stable")]
        floor = np.minimum.accumulate(page.y0[ids])
        breaks = np.flatnonzero(floor[:-1] >= page.y1[ids][1:] - _ROW_OVERLAP * page.body) + 1
        rows = page.rows[key] = (ids, np.concatenate([[0], breaks]))
    return rows


def _is_text_column(page: _Page, ids: np.ndarray) -> bool:
    """Running text: two rows or more, wide enough, rows filling the width,
    rows that are single lines rather than several cells, enough glyphs per
    row, mostly letters. Table columns of dates, amounts or short labels, and
    groups of table columns, fail at least one of these."""
    if len(ids) < 2:
        return False
    width = page.x1[ids].max() - page.x0[ids].min()
    if width < _COLUMN_WIDTH * page.body:
        return False
    ids, starts = _rows(page, ids)
    if len(starts) < 2:
        return False
    extent = np.maximum.reduceat(page.x1[ids], starts) - np.minimum.reduceat(page.x0[ids], starts)
    if _median(extent) < _COLUMN_FILL * width:
        return False
    # A line of running text is one unit; a table row is several cells side
    # by side. Units stacked in one row are lines that a tall glyph (a
    # bullet whose font has a deep box) makes overlap: no cells.
    if _side_by_side_rows(page, ids, starts) > _COLUMN_SPLIT_ROWS * len(starts):
        return False
    if _median(np.add.reduceat(page.inked[ids], starts)) < _COLUMN_GLYPHS:
        return False
    return page.letter_share(ids) >= _COLUMN_LETTERS


def _side_by_side_rows(page: _Page, ids: np.ndarray, starts: np.ndarray) -> int:
    """How many rows (units `ids` in rows starting at `starts`, see _rows)
    hold units side by side: two of them with no horizontal overlap."""
    several = np.flatnonzero(np.diff(np.concatenate([starts, [len(ids)]])) > 1)
    if not len(several):
        return 0
    count = 0
    ends = np.concatenate([starts[1:], [len(ids)]])
    for row in several.tolist():
        units = ids[starts[row] : ends[row]]
        # Some unit starts right of another's end: whitespace between them.
        if page.x0[units].max() >= page.x1[units].min():
            count += 1
    return count


def _merge_fragments(page: _Page, parts: list[np.ndarray] | None) -> list[np.ndarray] | None:
    """`parts` (leaves in reading order) with every run of consecutive parts
    that are not running text (_is_text_column fails: figure labels, a
    caption line, a form number, a page number) merged into one part, which
    reads in stream order. Between two pieces of non-text there is no text
    flow for geometry to follow: sorting the labels of a figure top to bottom
    reads the picture, not the text, and the stream's order is the author's."""
    if parts is None:
        return None
    merged: list[np.ndarray] = []
    run = False  # is merged[-1] a run of non-text parts?
    for part in parts:
        fragment = not _is_text_column(page, part)
        if fragment and run:
            merged[-1] = np.concatenate([merged[-1], part])
        else:
            merged.append(part)
        run = fragment
    return merged


def _split(ids: np.ndarray, cuts: np.ndarray) -> list[np.ndarray]:
    """`ids` cut before each position of `cuts` (np.split, without its overhead)."""
    bounds = [0, *cuts.tolist(), len(ids)]
    return [ids[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _median(values: np.ndarray) -> float:
    """The upper median; np.median costs more than the sort on short arrays."""
    return float(np.sort(values)[len(values) // 2])


def _gap_bands(page: _Page, ids: np.ndarray, starts: np.ndarray) -> list[np.ndarray] | None:
    """The region (units `ids` in rows starting at `starts`, see _rows) cut
    into horizontal bands at full-width whitespace gaps of at least
    _SECTION_GAP body heights, top to bottom; None when it has none."""
    if len(starts) < 2:
        return None
    floor = np.minimum.accumulate(page.y0[ids])
    breaks = starts[1:]
    wide = floor[breaks - 1] - page.y1[ids][breaks] >= _SECTION_GAP * page.body
    if not wide.any():
        return None
    return _split(ids, breaks[wide])


def _spanning_bands(page: _Page, ids: np.ndarray, starts: np.ndarray) -> list[np.ndarray] | None:
    """The region cut into horizontal bands at the rows that cross its best
    supported gutter candidate, top to bottom; None when there is none."""
    found = _gutter_cells(page, ids, starts)
    if found is None:
        return None
    covered, core, _ = found
    crossing = covered[:, core]
    if not crossing.any():
        return None
    # Runs of rows with the same crossing flag form the bands.
    change = np.flatnonzero(crossing[1:] != crossing[:-1]) + 1
    if not len(change):
        return None
    band_starts = starts[np.concatenate([[0], change])]
    return _split(ids, band_starts[1:])


def _gutter_core(page: _Page, ids: np.ndarray, starts: np.ndarray) -> tuple[float, float] | None:
    """Left and right edge of the core of the region's best supported gutter
    candidate (see _gutter_cells); None when there is none."""
    found = _gutter_cells(page, ids, starts)
    if found is None:
        return None
    _, core, edges = found
    return float(edges[core]), float(edges[core + 1])


def _gutter_cells(
    page: _Page, ids: np.ndarray, starts: np.ndarray
) -> tuple[np.ndarray, int, np.ndarray] | None:
    """The region (units `ids` in rows starting at `starts`) on a grid of
    rows by cells between the units' left and right edges: which cells each
    row's units cover, and the core of the best supported gutter candidate
    (a run of cells, at least a gutter wide, with content on both sides in
    rows making up _GUTTER_SUPPORT of the height): its cell that the fewest
    rows cross, and the cells' edges. None when there is no candidate."""
    n_rows = len(starts)
    if n_rows < 2:
        return None
    row_height = np.maximum.reduceat(page.y1[ids], starts) - np.minimum.reduceat(page.y0[ids], starts)
    # Only rows of several units have whitespace between content; when they
    # are too few for any support, stop before building the row x cell grid.
    several = np.diff(np.concatenate([starts, [len(ids)]])) > 1
    if row_height[several].sum() < _GUTTER_SUPPORT * row_height.sum():
        return None
    x0, x1 = page.x0[ids], page.x1[ids]
    edges = np.unique(np.concatenate([x0, x1]))
    n_cells = len(edges) - 1
    if n_cells < 1:
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
    support = row_height @ inside
    candidate = support >= _GUTTER_SUPPORT * row_height.sum()
    if not candidate.any():
        return None
    # Runs of candidate cells at least a gutter wide; the best is the one
    # with the strongest support.
    width = np.diff(edges)
    bounds = np.flatnonzero(np.diff(np.concatenate([[0], candidate.astype(np.int8), [0]])))
    best, best_support = None, 0.0
    for first, last in zip(bounds[::2].tolist(), bounds[1::2].tolist()):
        if width[first:last].sum() >= page.gutter and support[first:last].max() > best_support:
            best, best_support = (first, last), float(support[first:last].max())
    if best is None:
        return None
    # Its core: the cell the fewest rows cross (the widest such cell).
    first, last = best
    blocked = row_height @ covered[:, first:last]
    least = np.flatnonzero(blocked == blocked.min())
    return covered, first + int(least[np.argmax(width[first + least])]), edges


def _emit(page: _Page, leaves: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Reading order from leaves (units in stream order inside each leaf), as
    positions in the stream order, and the positions where a new leaf starts."""
    n_units = len(page.start)
    leaf = np.full(n_units, -1, dtype=np.int64)
    for k, ids in enumerate(leaves):
        leaf[ids] = k
    # Units left out of the cut go with the unit painted before them (the
    # first leaf when none was).
    placed = np.flatnonzero(leaf >= 0)
    if len(placed) < n_units:
        before = np.maximum(np.searchsorted(placed, np.arange(n_units), side="right") - 1, 0)
        leaf = np.where(leaf >= 0, leaf, leaf[placed[before]])
    units = np.lexsort((np.arange(n_units), leaf))
    length = page.end[units] - page.start[units]
    offset = np.cumsum(length) - length
    positions = np.repeat(page.start[units] - offset, length) + np.arange(int(length.sum()))
    new_leaf = np.zeros(len(positions), dtype=bool)
    new_leaf[offset[1:][leaf[units][1:] != leaf[units][:-1]]] = True
    return positions, new_leaf


# --------------------------------------------------------------------------- blocks


def _with_blocks(
    table: GlyphTable,
    config: ExtractConfig,
    order: np.ndarray,
    forced: np.ndarray | None,
    moves: _Moves | None,
    rtl: bool | None = None,
    along: np.ndarray | None = None,
) -> _Ordering:
    """Block starts of `order` (`moves` are its line moves, `rtl` whether the
    page reads right to left, `along` its writing direction, when known): every
    forced start, and where geometry starts a block (as
    blocks.geometric_block_starts: a paragraph gap, a move back up, a
    font-size change, all at a line break) or indents a paragraph's first line."""
    n = len(order)
    moves = moves or _line_moves(table, order, config)
    block_start = np.zeros(n, dtype=bool)
    size = table.font_size[order]
    if n:
        block_start[0] = True
    if n > 1:
        small = np.maximum(np.minimum(size[:-1], size[1:]), 1e-9)
        size_ratio = np.maximum(size[:-1], size[1:]) / small
        across = moves.across
        block_start[1:] = moves.line_break[1:] & (
            (-across > PARAGRAPH_GAP * moves.height) | (across > 0) | (size_ratio > FONT_SIZE_CHANGE)
        )
        block_start |= _indented_lines(table, order, moves.line_break, rtl)
    if forced is not None:
        # A leaf change is a line break in every layout the cut accepts (the
        # next column starts higher up); forcing it costs nothing elsewhere.
        block_start |= forced
    return _Ordering(order, block_start, moves.line_break, size, along)


def _indented_lines(
    table: GlyphTable, order: np.ndarray, line_break: np.ndarray, rtl: bool | None
) -> np.ndarray:
    """Line starts indented against both neighbouring lines, which are flush
    with each other: the first line of a paragraph in left-to-right text
    (right-to-left pages are ragged on the left; the rule stays off there).
    A line's left edge is its first glyph's origin along its direction."""
    result = np.zeros(len(order), dtype=bool)
    line_starts = np.flatnonzero(line_break)
    if len(line_starts) < 2:
        return result
    line_starts = np.concatenate([[0], line_starts])
    first = order[line_starts]
    left = np.einsum("ij,ij->i", table.origin[first], table.direction[first])
    indent = left[1:-1] - left[:-2]
    flush = np.abs(left[2:] - left[:-2])
    h = table.height[first[1:-1]]
    first_line = (indent > _INDENT_MIN * h) & (indent < _INDENT_MAX * h) & (flush < _FLUSH * h)
    if first_line.any() and not (_reads_rtl(table, order) if rtl is None else rtl):
        result[line_starts[1:-1][first_line]] = True
    return result


def _block_labels(table: GlyphTable, ordering: _Ordering) -> tuple[np.ndarray, list[BlockLabel]]:
    """Per position the index of its block's label: P, or H with a level when
    the block's glyphs are clearly larger than the body text (the page's most
    common font size by glyph count, to the half point); level 1 is the
    largest heading size."""
    order, block_start = ordering.order, ordering.block_start
    n = len(order)
    paragraphs = np.zeros(n, dtype=np.int64), [_PARAGRAPH]
    if n == 0:
        return paragraphs
    # Sizes in half points, clipped to the histogram's range.
    half = np.rint(ordering.font_size * 2).astype(np.int64)
    np.clip(half, 0, 2 * _MAX_VALUE, out=half)
    glyphs_at = np.bincount(half)
    body = int(np.argmax(glyphs_at))
    starts = np.flatnonzero(block_start)
    length = np.diff(np.concatenate([starts, [n]]))
    large = half >= _HEADING_SIZE * body
    share = np.add.reduceat(large, starts, dtype=np.int64) / length
    lines = np.add.reduceat(ordering.line_break, starts, dtype=np.int64) + ~ordering.line_break[starts]
    heading = (share >= _HEADING_SHARE) & (lines <= _HEADING_LINES) & (length >= 2) & (body > 0)
    if not heading.any():
        return paragraphs
    block_size = np.maximum.reduceat(half * large, starts)
    # Headings are rare: a size that sets a good part of the page is text
    # (the body of a page whose footnotes outweigh it, say), not a heading.
    heading &= glyphs_at[block_size] <= _HEADING_PAGE_SHARE * n
    if heading.any():
        # Text across the page's direction (an arXiv stamp up the margin) is
        # no heading, however large.
        along = reading_direction(table, order) if ordering.along is None else ordering.along
        heading[heading] = table.direction[order[starts[heading]]] @ along >= SAME_DIRECTION
    if not heading.any():
        return paragraphs
    sizes = np.unique(block_size[heading])[::-1]  # largest first
    levels = np.minimum(np.arange(1, len(sizes) + 1), _MAX_HEADING_LEVEL)
    labels = [_PARAGRAPH] + [
        BlockLabel(struct_type="H", struct_path=("H",), heading_level=int(level)) for level in levels
    ]
    block_label = np.where(heading, np.searchsorted(-sizes, -block_size) + 1, 0)
    return np.repeat(block_label, length), labels
