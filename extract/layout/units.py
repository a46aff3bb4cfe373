"""Units and the reading frame: what the cut works on.

Units. Stream order (``geometric.stream_order``) is cut into line segments: a
new unit starts wherever join()'s line rule starts a line, and inside a line
at a jump along it wider than a glyph height (the smaller of the two glyphs:
a bullet whose font has a deep box must not bridge a narrow gutter) or far
back (``unit_breaks``, which running.py's band lines use too). A producer
that paints "left column line, right column line" on one baseline thus gives
two units. A unit keeps its glyphs in stream order.

Reading frame. Coordinates are projected on the page's dominant writing
direction (the most common glyph direction, to the degree, each glyph
counted by its height: a thumbnail of a tilted poster in small type may hold
more glyphs than the text around it) and its normal,
so text drawn at 90° (a landscape page shown through /Rotate, which leaves
user space as it is, or a rotated region) is cut in its own frame: "left" is
where its lines start, "top" where its first line is. Units in another
direction (an arXiv stamp up the margin, axis labels) and units of blanks take
no part in the cut: they follow the unit painted before them, but for blanks
that sit on a line (``lines.blanks_on_their_lines``), which read inside it,
and for text across the page in a side margin, which reads before or after
the page (``margin_text``).

Per-glyph work is column-wise numpy, done once per page.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from ragprep.extract.config import ExtractConfig
from ragprep.extract.geometric import SEGMENT_BACK, SEGMENT_GAP, UPRIGHT, reading_direction
from ragprep.extract.glyphs import GlyphTable, rows_at
from ragprep.extract.layout.kernels import (
    GroupMeasures,
    UnitFrame,
    first_words,
    nearest_under,
    pair_moves,
    stream_unit_starts,
    stream_units,
    text_classes,
    unit_frame,
)
from ragprep.extract.layout.kernels import reads_rtl as kernels_reads_rtl
from ragprep.extract.layout.kernels import reordered_moves as kernels_reordered_moves
from ragprep.extract.native import compiled_layout
from ragprep.extract.layout.params import (
    BACK_STEP,
    BLANK_GAP,
    DESCENT,
    FIRST_RTL,
    GUTTER,
    JUSTIFIED_SPACE,
    LINE_BASELINE,
    LINE_JOIN_GAP,
    MARGIN_CLEAR,
    MARK_SIZE,
    NEXT_LINE,
    NUMBER_GAP,
    NUMBER_GLYPHS,
    PIECE_SHARE,
    ROW_OVERLAP,
    RTL_SAMPLE,
    SKEWED,
    WORD_GAP,
)


def unit_starts(table: GlyphTable, stream: np.ndarray, moves: Moves, space: np.ndarray) -> np.ndarray:
    """Positions in stream order where a unit starts (see unit_breaks;
    `space`: per position, is its glyph a blank). A blank has no ink: the
    jump after it is measured from where it starts, so a line's trailing
    space does not narrow the gutter the pen jumps next (lines of two
    columns painted one after the other on one baseline, LaTeX's gutter of
    one em). kernels.stream_unit_starts measures it."""
    thresholds = (SEGMENT_GAP, SEGMENT_BACK, BLANK_GAP)
    return stream_unit_starts(compiled_layout(), table, stream, (moves.line_break, moves.gap), space, thresholds)


def pieces_painted_back(
    table: GlyphTable, stream: np.ndarray, moves: Moves, starts: np.ndarray, classes: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """`starts` (unit_starts) with a unit of its own for every letter a
    visit paints back into a gap of the line it has painted (`classes`:
    per position, is its glyph a letter, a blank; kernels.text_classes),
    so that lines._pieces_inside reads it in that gap. LaTeX's logo lowers its E between the T and the X; a
    stream that paints the E after the rest of its line (lualatex-tagpdf
    p2's twins: "bibTX" then the E, at the line's end) steps back by about
    a glyph height, less than SEGMENT_BACK, and the unit, which keeps its
    glyphs in paint order, read "bibTX E". Such a letter steps back BACK_STEP
    heights or more after a step that did not (a line painted backwards a
    glyph at a time steps back at every glyph: glyphs_along reads it), on
    the line it steps back on (within LINE_BASELINE), to the right of the
    unit's first glyph (painted_back_candidates), into a gap between glyphs
    of the unit no centre of which lies inside the letter (a glyph painted
    twice, fake bold, lies on itself; an accent is no letter) and no wider
    than the letter and a word space (LINE_JOIN_GAP): where a word set into
    a wider gap, or a text painted twice over itself, stays as painted.
    Fixture: test_logo_letter_painted_back_at_the_line_end_reads_in_its_gap."""
    candidate = painted_back_candidates(moves, starts, classes[0])
    return painted_back(table, stream, starts, classes[1], candidate) if len(candidate) else starts


def painted_back_candidates(moves: Moves, starts: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """The positions pieces_painted_back tests (`alpha`: per position, is
    its glyph a letter): letters whose pair steps back BACK_STEP heights or
    more after a pair that did not, two glyphs or more into their unit
    (`starts` is sorted), within LINE_BASELINE heights across."""
    back = moves.gap < moves.height * -BACK_STEP
    # Positions stepping back (few: the full passes end here), after a step that did not, letters only.
    step = np.flatnonzero(back[1:])
    candidate: np.ndarray = step[~back[step]] + 2
    candidate = candidate[alpha[candidate]]
    if not len(candidate):
        return candidate  # most pages
    candidate = candidate[candidate - starts[np.searchsorted(starts, candidate, side="right") - 1] >= 2]
    found: np.ndarray = candidate[np.abs(moves.across[candidate - 1]) <= LINE_BASELINE * moves.height[candidate - 1]]
    return found


def painted_back(table: GlyphTable, stream: np.ndarray, starts: np.ndarray, space: np.ndarray, candidate: np.ndarray) -> np.ndarray:
    """`starts` with a unit of its own for each letter at a position of
    `candidate` that fills a gap of its unit (_fills_its_gap; `space`: per
    position, is its glyph a blank), and for the glyph after it."""
    extra = [k for k in candidate.tolist() if _fills_its_gap(table, stream, (starts, space), k)]
    if not extra:
        return starts
    after = [k + 1 for k in extra if k + 1 < len(stream)]
    return np.union1d(starts, np.array(extra + after, dtype=starts.dtype))


def _fills_its_gap(table: GlyphTable, stream: np.ndarray, units: tuple[np.ndarray, np.ndarray], at: int) -> bool:
    """Does the letter at stream position `at` lie in a gap of the glyphs
    its unit painted before it (pieces_painted_back; `units`: where units
    start, and per position, is its glyph a blank)?"""
    starts, space = units
    first = int(starts[np.searchsorted(starts, at, side="right") - 1])
    glyph = int(stream[at])
    along = table.direction[glyph]
    earlier = stream[first:at]
    low = table.origin[earlier] @ along
    high = table.own_end[earlier] @ along
    x0, x1 = float(table.origin[glyph] @ along), float(table.own_end[glyph] @ along)
    if x0 <= low[0]:
        return False
    centre = (low + high) / 2
    inked = ~space[first:at]
    if ((centre > x0) & (centre < x1) & inked).any():
        return False
    middle = (x0 + x1) / 2
    before, after = high[inked & (centre < middle)], low[inked & (centre > middle)]
    if not len(before) or not len(after):
        return False
    return float(after.min() - before.max()) <= x1 - x0 + LINE_JOIN_GAP * float(table.height[glyph])


@dataclass(frozen=True)
class Moves:
    """Measurements between consecutive glyphs of an order (n - 1 pairs)."""

    line_break: np.ndarray  # per position (n): a new line starts here
    across: np.ndarray  # previous origin -> origin, across the previous direction
    gap: np.ndarray  # previous own end -> origin, along the previous direction
    height: np.ndarray  # the larger height of the two glyphs


def line_moves(table: GlyphTable, order: np.ndarray, config: ExtractConfig) -> Moves:
    """The moves between consecutive glyphs of `order` (kernels.pair_moves)."""
    line_break = np.zeros(len(order), dtype=bool)
    line_break[1:], across, gap, height_max = pair_moves(compiled_layout(), table, order[:-1], order[1:], config)
    return Moves(line_break, across, gap, height_max)


def reordered_moves(
    table: GlyphTable, stream: np.ndarray, moves: Moves, positions: np.ndarray, config: ExtractConfig
) -> Moves:
    """The moves of stream[positions], reusing those of the stream: pairs
    that were neighbours in the stream keep their measurements, only the
    pairs at unit boundaries are measured anew (kernels.reordered_moves)."""
    columns = (moves.line_break, moves.across, moves.gap, moves.height)
    return Moves(*kernels_reordered_moves(compiled_layout(), table, stream, columns, positions, config))


class PageUnits(NamedTuple):
    """What page_units gives."""

    moves: Moves  # between the stream's glyphs (line_moves)
    page: Page  # its units (unit_starts, pieces_painted_back) in the reading frame
    backwards: np.ndarray | None  # per unit, does the stream paint it backwards (lines.glyphs_along); None: not measured
    lines_apart: bool  # measured: no unit painted backwards, and lines.line_order leaves the units as they are


def page_units(table: GlyphTable, stream: np.ndarray, config: ExtractConfig) -> PageUnits:
    """The moves between the glyphs of `stream`, its units, the page of
    them in its reading frame, and what was measured of the steps after
    them on the way (PageUnits). One compiled pass (kernels.stream_units)
    where the kernels are built; the steps below are its reference."""
    lib = compiled_layout()
    found = stream_units(
        lib, table, stream, (config.line_break_ratio, UPRIGHT),
        (SEGMENT_GAP, SEGMENT_BACK, BLANK_GAP, BACK_STEP, LINE_BASELINE, DESCENT, SKEWED),
        (MARK_SIZE, LINE_JOIN_GAP, JUSTIFIED_SPACE, NUMBER_GAP, PIECE_SHARE, ROW_OVERLAP, NUMBER_GLYPHS),
    )  # fmt: skip
    if found is None:
        moves = line_moves(table, stream, config)
        classes = text_classes(lib, table.text, stream)
        starts = pieces_painted_back(table, stream, moves, unit_starts(table, stream, moves, classes[1]), classes)
        return PageUnits(moves, Page(table, stream, starts, classes=classes), None, False)
    moves, starts = Moves(*found.moves), found.starts
    if len(found.painted_back):
        starts = painted_back(table, stream, starts, found.classes[1], found.painted_back)
    page = Page(table, stream, starts, classes=found.classes, frame=found.frame)
    return PageUnits(moves, page, found.backwards, found.lines_apart)


class Kept:
    """What regions.py measures of a group, kept per page as Page.rows and
    Page.text_columns are: the cut, the leaves and the tie-breaks ask it
    of the same groups. Slots set in __init__: made with every page, it
    costs six empty dicts (a frozen dataclass's default factories cost
    several times that)."""

    __slots__ = ("prose", "gaps", "block_tops", "measures", "shared", "limits")

    def __init__(self) -> None:
        self.prose: dict[bytes, bool] = {}  # see regions.holds_prose
        self.gaps: dict[tuple[bytes, bytes], list[np.ndarray] | None] = {}  # regions.gap_bands
        self.block_tops: dict[bytes, np.ndarray] = {}  # see regions.block_starts
        self.measures: dict[bytes, GroupMeasures] = {}  # see regions._measures
        self.shared: dict[tuple[bytes, bytes], int] = {}  # see regions.shared_rows
        self.limits: dict[str, Any] = {}  # see regions.verdict_limits: the page's thresholds, built once


@dataclass(frozen=True)
class Carried:
    """What a Page passes on to the page of its glyphs in another order (Page.carried)."""

    classes: tuple[np.ndarray, np.ndarray]  # per glyph, in the new order: str.isalpha, str.isspace
    body: float
    along: np.ndarray  # the page's writing direction (a count per direction, the same in any order)


class Page:
    """The units of one page in its reading frame; built per call, never shared."""

    def __init__(
        self,
        table: GlyphTable,
        stream: np.ndarray,
        unit_start: np.ndarray,
        carried: Carried | None = None,
        classes: tuple[np.ndarray, np.ndarray] | None = None,
        frame: UnitFrame | None = None,
    ) -> None:
        """`carried`: what the page of these glyphs in another order knew
        (Page.carried); `classes`: their text classes, where known;
        `frame`: their frame, where known (kernels.stream_units: a page
        whose glyphs are all upright, read along (1, 0))."""
        self.table = table
        self.stream = stream
        self.start = unit_start
        # The frame is the direction most of the page's text runs in, each
        # glyph counted by its height: a thumbnail of a tilted poster may
        # hold more glyphs than the page's text beside it, at a tenth of
        # its size.
        if frame is not None:
            along = np.array([1.0, 0.0])
        else:
            along = carried.along if carried else reading_direction(table, stream, None, table.height[stream])
        self.along = along
        self.lib = compiled_layout()  # the kernels' path, asked once per page
        # Per glyph in stream order, str.isalpha and str.isspace of its text.
        classes = carried.classes if carried else classes
        self._classes = classes if classes is not None else text_classes(self.lib, table.text, stream)
        # Glyph boxes in the frame: along the line from the origin to the own
        # end, across it the glyph height, split at the baseline in a typical
        # descent-to-ascent proportion (the quads would say exactly, at the
        # price of gathering them; rows and gutters do not need it). Blanks
        # have no ink: a run of trailing spaces must not make a table cell
        # as wide as a line of text, nor a lone tab span a gutter.
        if frame is None:
            frame = unit_frame(self.lib, table, stream, along, unit_start, self._classes[1], (DESCENT, SKEWED))
        self._glyph_x = (frame.low_x, frame.high_x, frame.height)
        self._first_word: tuple[np.ndarray, np.ndarray] | None = None
        self.end = frame.end
        self.x0, self.x1, self.y0, self.y1 = frame.x0, frame.x1, frame.y0, frame.y1
        # Glyphs per unit, leading and trailing blanks not counted.
        self.inked = frame.inked
        # Units that take part in the cut (frame.placed: set in the page's
        # direction, some glyph inked). A unit written in another direction
        # than the page (a rotated stamp, axis labels) would span rows and
        # gutters in this frame; a unit of blanks has no place at all. Both
        # follow the unit painted before them instead (see emit).
        self._aligned = frame.aligned
        self.placed = frame.placed
        self.body = carried.body if carried else frame.body or 1.0
        self.gutter = GUTTER * self.body
        self._rtl: bool | None = None
        self.rows: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}  # see rows_of
        self.text_columns: dict[bytes, bool] = {}  # see is_text_column
        self.reads: dict[bytes, tuple[list[np.ndarray], bool]] = {}  # see read_region
        self.continued: set[bytes] = set()  # regions a ragged column end joined (_ragged_ends)
        self.kept = Kept()  # more of regions.py's measures, per group
        self._nearest: dict[bytes, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}

    def carried(self, positions: np.ndarray) -> Carried:
        """What the page of its glyphs in the order stream[positions] keeps
        of this one: each glyph's text classes, the body height and the
        writing direction (counts per height and per direction, the same in
        any order)."""
        alpha, space = self._classes
        return Carried((alpha[positions], space[positions]), self.body, self.along)

    @property
    def classes(self) -> tuple[np.ndarray, np.ndarray]:
        """Per glyph in stream order, str.isalpha and str.isspace of its text."""
        return self._classes

    def nearest_under(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """kernels.nearest_under of lines `ids`, kept per group: the stacked
        cells and the stacked blocks of a leaf both ask it."""
        key = ids.tobytes()
        found = self._nearest.get(key)
        if found is None:
            box = (self.x0, self.x1, self.y0, self.y1)
            found = self._nearest[key] = nearest_under(self.lib, box, ids, DESCENT, NEXT_LINE * self.body)
        return found

    def blank_units(self) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """The units made only of blanks, set in the page's direction, and
        per such unit the box its glyphs would have (x0, x1 along the line,
        its mean baseline across it, its tallest height) and the sum of its
        glyphs' own widths: a unit of blanks has no ink, so the page's boxes
        leave it out (infinite), but where it lies still says which line it
        belongs to (lines.blanks_on_their_lines)."""
        table, stream = self.table, self.stream
        blanks = np.flatnonzero((self.inked == 0) & self._aligned)
        if not len(blanks):
            return blanks, tuple(np.zeros(0) for _ in range(5))
        count = self.end[blanks] - self.start[blanks]
        first = np.cumsum(count) - count
        glyphs = stream[np.repeat(self.start[blanks] - first, count) + np.arange(int(count.sum()))]
        origin = rows_at(table.origin, glyphs)
        start, end = origin @ self.along, rows_at(table.own_end, glyphs) @ self.along
        low = np.minimum.reduceat(np.minimum(start, end), first)
        high = np.maximum.reduceat(np.maximum(start, end), first)
        base = np.add.reduceat(origin[:, 1] * self.along[0] - origin[:, 0] * self.along[1], first) / count
        width = np.add.reduceat(np.abs(end - start), first)
        return blanks, (low, high, base, np.maximum.reduceat(table.height[glyphs], first), width)

    @property
    def aligned(self) -> np.ndarray:
        """Per unit, is it set in the page's direction (kernels.unit_frame)."""
        return self._aligned

    def trails_blank(self, ids: np.ndarray) -> np.ndarray:
        """Per unit `ids`, whether its last glyph is a blank: a word space
        the stream painted at its end, where the line goes on."""
        found: np.ndarray = self._classes[1][self.end[ids] - 1]
        return found

    def along_centres(self, positions: np.ndarray) -> np.ndarray:
        """Per stream position, its glyph's centre along the line (NaN for
        a unit's leading and trailing blanks, which have no box here)."""
        low, high = self.along_extents(positions)
        centre: np.ndarray = np.where(np.isfinite(low), (low + np.where(np.isfinite(high), high, 0.0)) / 2, np.nan)
        return centre

    def along_extents(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per stream position, its glyph's extent along the line (low, high;
        NaN for a unit's leading and trailing blanks, which have no box here)."""
        low, high, _ = self._glyph_x
        return low[positions], high[positions]

    @property
    def first_word(self) -> np.ndarray:
        """Per unit, the extent along the line of its first word (its
        first glyphs in logical order up to a blank or a gap wider than a
        word space, WORD_GAP heights; the right end of a right-to-left
        line). Measured once per page, column-wise, for the wrap test
        (regions.wraps)."""
        return self._words()[0]

    @property
    def words(self) -> np.ndarray:
        """Per unit, how many words it holds (see first_word)."""
        return self._words()[1]

    def counted_words(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(words, first_word) where the page has counted them already, else
        None: a kernel that needs them only now and then asks for them then
        (kernels.leaf_witness), sparing the count on pages that never do."""
        return None if self._first_word is None else (self._first_word[1], self._first_word[0])

    def _words(self) -> tuple[np.ndarray, np.ndarray]:
        if self._first_word is None:
            self._first_word = first_words(self.lib, self._classes[1], (self.start, self.end), self._glyph_x, WORD_GAP)
        return self._first_word

    @property
    def rtl(self) -> bool:
        if self._rtl is None:
            self._rtl = reads_rtl(self.lib, self.table, self.stream)
        return self._rtl

    def line_start(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        """Where boxes (`x0`, `x1` along the line) start in reading order, as
        a coordinate that grows along the line: their left edge, their right
        edge negated on a right-to-left page. A line's first word, a cell's
        lines set flush with it and the next cell along the row all grow so."""
        start: np.ndarray = -x1 if self.rtl else x0
        return start

    def line_end(self, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
        """Where boxes (`x0`, `x1` along the line) end in reading order, in
        line_start's coordinate: their right edge, their left edge negated
        on a right-to-left page."""
        end: np.ndarray = -x0 if self.rtl else x1
        return end


def reads_rtl(lib: ModuleType | None, table: GlyphTable, order: np.ndarray) -> bool:
    """Does the text of the glyphs `order` read predominantly right to left?
    Decided on an even sample of RTL_SAMPLE glyphs (kernels.reads_rtl)."""
    return kernels_reads_rtl(lib, table.text, order, RTL_SAMPLE, FIRST_RTL)


def margin_text(page: Page) -> tuple[np.ndarray, np.ndarray]:
    """Units written across the page's direction that stand in a side margin,
    clear of every placed line by more than their own height (an arXiv stamp
    up the left margin, a back cover's spine title down the right one): the
    ones on the side lines start from read before the page, the others after
    it, each side line by line in the text's own direction. Such a unit
    otherwise follows the unit painted before it (emit), which put a spine
    title between a heading and the grid under it, and moves with the paint
    order. Units across the page inside its text (axis labels, a turned table
    head) keep following their neighbours."""
    none = np.zeros(0, dtype=np.int64)
    if page._aligned.all():  # most pages: no unit across the page's direction
        return none, none
    across = np.flatnonzero(~page._aligned & (page.inked > 0))
    placed = np.flatnonzero(page.placed)
    if not len(across) or not len(placed):
        return none, none
    first = page.stream[page.start[across]]
    x = rows_at(page.table.origin, first) @ page.along
    clear = MARGIN_CLEAR * page.table.height[first]
    left = x < page.x0[placed].min() - clear
    right = x > page.x1[placed].max() + clear
    if not (left | right).any():
        return none, none
    # Line by line in the text's own direction: lines across it first, then
    # along the line (its direction's normal, turned so that lines go down).
    direction = rows_at(page.table.direction, first)
    origin = rows_at(page.table.origin, first)
    along = (origin * direction).sum(axis=1)
    down = origin[:, 0] * direction[:, 1] - origin[:, 1] * direction[:, 0]
    order = np.lexsort((along, _line_numbers(down, page.table.height[first])))
    start_side = right if page.rtl else left
    end_side = left if page.rtl else right
    return across[order][start_side[order]], across[order][end_side[order]]


def _line_numbers(down: np.ndarray, height: np.ndarray) -> np.ndarray:
    """Per unit, the number of its line counted down the lines (`down`: its
    first origin across its direction, growing down its lines): a new line
    where the next origin lies NEXT_LINE of its height or more further down."""
    order = np.argsort(down, kind="stable")
    steps = np.diff(down[order]) >= NEXT_LINE * height[order][1:]
    line = np.zeros(len(down), dtype=np.int64)
    line[order] = np.concatenate([[0], np.cumsum(steps)])
    return line
