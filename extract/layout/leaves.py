"""The order inside a leaf: lines top to bottom, table rows, furniture, and paint order for ties.

A leaf is a column, a part of one, or a column-free region the cut did not
split (a page of one column, a table, a figure's labels). Its lines are cut
into the stream's runs down the leaf (``_paint_runs``), and geometry orders
them in this sequence:

1. Runs that interleave (boxes overlapping both across and along the line:
   lines painted reversed, shuffled, a heading painted after its paragraph)
   merge and read by rows (``_merge_interleaved``).
2. Runs side by side on one another's baselines that are not running text
   (a table painted column by column) merge and read row by row
   (``_merge_grids``).
3. Runs one above the other in one block read top to bottom; a run above
   every other reads first, one below every other last (a running head, a
   page number: the top and bottom bands); runs side by side that nothing
   else orders (a sidebar beside the text, a pull quote, columns a cut kept
   together) keep paint order (``_order_runs``). Where the stream paints
   the leaf in pieces of a line or two, it is no witness of its blocks:
   the runs are the leaf's paragraphs and its other lines one by one
   (``stacked_blocks``, ``_paragraphs_and_lines``), and what nothing else
   orders reads top first, then along the line (``_top_first``). A box
   beside a text column on a leading of its own (an infobox) is one run,
   read by its rows (``_sidebars``); where the stream is no witness, the
   whole box is a float that reads before the line it is set level with
   (``_sidebar_box``, ``_floats_first``).

A leaf whose stream runs down it in one run reads as painted: that is the
top-to-bottom order already. A stream that reads down the leaf keeps its
order but for two runs whose lines take turns down the page, which read by
rows (``_lines_in_turn``; runs or, where two of them take turns, the
stream's passes down the leaf: ``_passes_in_turn``), a table's cells set on two or three lines, and paragraphs it
paints out of order or in turn with a block beside them, which read as one
(``stacked_cells``, ``_painted_in_turn``) whatever it painted between their
lines, and blocks it paints into holes it left in a column, which read in
place (``_holes_filled_later``); where it goes back up from block to block
in no order (callouts round a figure, each painted down), the blocks read
top first (``_blocks_painted_back``); a block alone on its rows wholly above
and before another reads first whatever the paint order (``_ahead_first``).
``emit`` turns the leaves into glyph positions.
"""

from __future__ import annotations

import numpy as np

from ragprep.extract.blocks import FONT_SIZE_CHANGE, PARAGRAPH_GAP
from ragprep.extract.groups import median_of
from ragprep.extract.layout.params import (
    ALIGNED,
    BLOCKS_BACK,
    CELL_LEADING,
    CELL_PADDING,
    COHERENT,
    COLUMN_FILL,
    COLUMN_LETTERS,
    COLUMN_WIDTH,
    CONSISTENT,
    DESCENT,
    FACT_ROWS,
    FILLED_HOLES,
    FURNITURE_ROWS,
    GRID_ROWS,
    MAX_CELL_LEAF,
    MAX_CELL_LINES,
    MARGIN_NOTE_GAP,
    MAX_RUNS,
    NEXT_LINE,
    NOTE_INSET,
    NOTE_SIZE,
    PASS_EDGE,
    PROSE_LINES,
    ROW_OVERLAP,
    ROW_PIECE_GAP,
    ROW_RETURNS,
    RUN_GAP,
    SAME_BASELINE,
    SECTION_GAP,
    SHARED_ROW,
    STACKED,
    TITLE_LEADING,
    TURNS,
)
from ragprep.extract.layout.kernels import (
    RunStacking, back_up_moves, baseline_rows, block_chains, blocks_ahead, blocks_in_turn, cell_chains, column_visits, emit_leaves, flush_visits, grid_groups, grid_links, grid_rows, gutter_cuts, interleaved_merges, kahn, leaf_stacking,
    joined_runs, leaf_tail, margin_note, nested_pairs, note_over_the_text, paint_order, paint_run_cuts, paragraph_blocks, pass_cuts, row_groups, row_mates, row_returns, run_pairs, top_and_bottom, turning_pair,
)  # fmt: skip
from ragprep.extract.layout.kernels import ReadsDown
from ragprep.extract.layout.kernels import FRONT_ASK, FRONT_ONE_RUN, FRONT_WITNESS, WITNESS_WORDS, FrontLimits, WitnessLimits, leaf_cells, leaf_front, leaf_witness
from ragprep.extract.layout.kernels import run_boxes as kernel_run_boxes
from ragprep.extract.layout.regions import (
    WRAP_VERDICT, baseline, block_starts, block_wrap_limits, blocks_wrapping, is_text_column, rows_of, split_at, verdict_limits,
)  # fmt: skip
from ragprep.extract.layout.units import Page


def leaf_order(page: Page, ids: np.ndarray) -> np.ndarray:
    """The lines `ids` of one leaf in reading order. Where the stream reads
    the leaf coherently (reads_down: it goes down the page or along a
    row, but for a few jumps back up, as a producer that paints in reading
    order does) and paints no table column by column (_column_grid), its
    order stands: within a leaf the author's stream is the best witness of
    which block comes first. Otherwise geometry decides: the stream's runs
    down the leaf (_paint_runs) that interleave or share rows (a table's
    columns) merge and read by rows (_grid_rows); runs one above the other
    read top to bottom, text columns left to right, and only what geometry
    cannot order (a sidebar, a pull quote) keeps paint order (_order_runs).
    A leaf that is neither running text nor a grid (a figure's labels)
    keeps paint order: there is no text flow for geometry to follow; but
    one whose lines are a block flush on one edge (_flush_stack: a name
    over its affiliations) reads down.
    Fixtures: test_column_painted_bottom_up_reads_top_to_bottom,
    test_table_painted_column_by_column_reads_row_by_row,
    test_figure_labels_in_a_column_keep_their_stream_order."""
    ids = np.sort(ids)
    if len(ids) < 2:
        return ids
    front = _front(page, ids)
    if front is None:
        return ids
    runs, witness = front
    if witness:
        return _witnessed(page, ids, runs)
    if not is_text_column(page, ids) and not _has_prose(page, ids) and len(_merge_grids(page, runs)) == len(runs):
        # No text flow and no grid (a figure's labels): nothing for geometry
        # to follow, and the stream's order is the author's; but lines
        # stacked flush on one edge are a block, which reads down, and the
        # pieces of one row (a running head and its page number at the far
        # end of the line) read along it, as one line's pieces do, however
        # far apart (test_running_head_and_its_page_number_read_along_their_row).
        if _distinct_rows(page, ids) == 1:
            return _grid_rows(page, ids)
        stack = _flush_stack(page, ids)
        return ids if stack is None else stack
    if len(runs) > MAX_RUNS:
        return _grid_rows(page, ids)
    scattered = _scattered(runs)
    if scattered:
        # A stream that paints the leaf in pieces of a line or two is no
        # witness of its blocks either: its runs are chance neighbours.
        runs = _paragraphs_and_lines(page, stacked_blocks(page, ids))
    side = _sidebar_lines(page, ids)
    box = _sidebar_box(page, side)
    runs = _merge_grids(page, _merge_interleaved(page, _read_whole(runs, box or _sidebars(page, side))))
    if scattered:
        runs = _floats_first(page, _top_first(page, runs), box)
    ordered = _order_runs(page, _merge_interleaved(page, runs), box)
    return _grid_rows(page, ids) if ordered is None else np.concatenate(ordered)


def _front(page: Page, ids: np.ndarray) -> tuple[list[np.ndarray], bool] | None:
    """leaf_order's first steps on its lines `ids` (ascending, two or
    more): None where the stream paints the leaf in one run (it reads as
    painted), else its runs and whether the stream is the witness of their
    order (reads_down, and no table painted column by column nor rows left
    in pieces), the runs then those whose lines take turns merged
    (_passes_in_turn, _lines_in_turn). Compiled in one call
    (kernels.leaf_front), which leaves the rare grid and merge to the rules
    (_front_rules, the reference)."""
    if page.lib is not None:
        verdict, cuts = leaf_front(page.lib, (page.x0, page.x1, page.y0, page.y1), ids, (reads_down_limits(page), _front_limits(page)))
        if verdict == FRONT_ONE_RUN:
            return None
        if verdict != FRONT_ASK:
            return split_at(ids, cuts), verdict == FRONT_WITNESS
    return _front_rules(page, ids)


def _witnessed(page: Page, ids: np.ndarray, runs: list[np.ndarray]) -> np.ndarray:
    """leaf_order of the lines `ids` (ascending) whose stream is the
    witness of their order, cut into its `runs` (_front's): compiled in one
    call (kernels.leaf_witness) where the rules move nothing but by the
    bands and the edges, the common leaf; the rules (_witness_rules, the
    reference) read the others. The page's words are counted only where a
    test needs them (WITNESS_WORDS): most pages never count them."""
    if page.lib is not None:
        glyphs = (page.inked, page.start, page.end, page.classes, page.placed)
        limits = (verdict_limits(page), (SAME_BASELINE * page.body, CELL_PADDING * page.body, ALIGNED), _witness_limits(page, ids))
        box = (page.x0, page.x1, page.y0, page.y1)
        verdict, order = leaf_witness(page.lib, box, glyphs, page.counted_words(), (ids, runs), limits, page.rtl)
        if verdict == WITNESS_WORDS:
            verdict, order = leaf_witness(page.lib, box, glyphs, (page.words, page.first_word), (ids, runs), limits, page.rtl)
        if order is not None:
            return order
    return _witness_rules(page, ids, runs)


def _witness_limits(page: Page, ids: np.ndarray) -> WitnessLimits:
    """leaf_witness' measures on this page for the leaf `ids` (stacked_cells looks at some leaves only: _cell_leaf)."""
    body = page.body
    return WitnessLimits(
        page.gutter, NEXT_LINE * body, CELL_LEADING * body, PARAGRAPH_GAP, FONT_SIZE_CHANGE, STACKED * body, CONSISTENT, SECTION_GAP * body,
        MAX_CELL_LINES if _cell_leaf(ids) else -1, FILLED_HOLES, BLOCKS_BACK,
    )  # fmt: skip


def _witness_rules(page: Page, ids: np.ndarray, runs: list[np.ndarray]) -> np.ndarray:
    """_witnessed by the rules themselves."""
    # A box the stream paints in turn with the text beside it: the
    # stream is no witness of where the box goes, geometry places it.
    side = _sidebar_lines(page, ids)
    box = [b for b in _sidebar_box(page, side) if _painted_in_turn_with(ids, b)]
    runs = _cells_together(page, ids, runs, box or _sidebars(page, side))
    stacked = _stacked_in_place(page, _floats_first(page, runs, box))
    return _edges_and_stack(page, np.concatenate(_ahead_first(page, ids, stacked)))


def _front_limits(page: Page) -> FrontLimits:
    """leaf_front's measures on this page besides reads_down's (reads_down_limits): those of the rules _front_rules calls."""
    body = page.body
    return FrontLimits(
        ROW_OVERLAP * body, RUN_GAP * body, page.gutter, COLUMN_WIDTH * body, ROW_PIECE_GAP * body, PASS_EDGE * body, STACKED * body,
        GRID_ROWS, ROW_RETURNS, TURNS,
    )  # fmt: skip


def _front_rules(page: Page, ids: np.ndarray) -> tuple[list[np.ndarray], bool] | None:
    """_front by the rules themselves."""
    runs = _paint_runs(page, ids)
    if len(runs) == 1:
        return None
    if reads_down(page, ids) and not _column_grid(page, runs) and not _rows_in_pieces(page, ids):
        return _lines_in_turn(page, _passes_in_turn(page, ids, runs)), True
    return runs, False


def head_note_last(page: Page, leaves: list[np.ndarray]) -> list[np.ndarray]:
    """`leaves` (the page's, each in reading order) with a note boxed at the
    head of the page read after the running text under it, before the
    furniture at the foot (_head_note). Page-layout tools float such a box
    to the head of the page while the story runs on under it from the page
    before; the note is outside that flow, which reads on first, whatever
    order the stream paints the two in (a booklet's boxed asides, read
    after the page's text by its tags). Lines that move keep their leaves:
    a leaf split by the move reads as two. Fixture:
    test_note_boxed_at_the_head_of_the_page_reads_after_the_text."""
    order = np.concatenate(leaves)
    found = _head_note(page, order)
    if found is None:
        return leaves
    note, text = found
    leaf = np.repeat(np.arange(len(leaves)), [len(part) for part in leaves])
    moved = np.isin(order, note)
    last = int(np.flatnonzero(np.isin(order, _in_the_measure(page, text)))[-1])
    cut = int(np.count_nonzero(~moved[: last + 1]))
    position = np.concatenate([np.flatnonzero(~moved)[:cut], np.flatnonzero(moved), np.flatnonzero(~moved)[cut:]])
    order, leaf = order[position], leaf[position]
    return split_at(order, np.flatnonzero(leaf[1:] != leaf[:-1]) + 1)


def margin_note_after_its_block(page: Page, order: np.ndarray) -> np.ndarray:
    """The lines `order` of one leaf (in reading order) with a note set in
    the margin beside its text read after the block of text its first line
    stands beside. LaTeX's \\marginpar sets a note of a word or two a line
    in the outer margin, a gutter from the text, on the text's baselines;
    its author reads it after the paragraph it is anchored in
    (lualatex-tagpdf p2: "Marginal notes are usually placed in the outer
    margin." beside "Larger figures ... page breaking."). No cut parts it
    from the text (too narrow for a column), and read by rows, or as
    painted, its lines land between the paragraph's. A margin note is two
    lines or more, every one clear of the text's edge (the outer edge of its
    long lines, a gutter away), mostly letters, one block, no further from
    the text than MARGIN_NOTE_GAP; the text beside it is prose
    (_has_prose) and crosses no gutter toward the note. A list's
    numbers or a table's labels beside their items share that geometry but
    are no letters, or the text beside them no prose.
    Fixture: test_margin_note_reads_after_the_paragraph_beside_it."""
    note = _margin_note(page, order)
    return order if note is None else _after_its_block(page, order, note)


def _margin_note(page: Page, order: np.ndarray) -> np.ndarray | None:
    """Per line of `order` (a leaf's lines), is it a line of the leaf's
    margin note (margin_note_after_its_block), None where it has none: the
    lines clear of the edge of its long lines by a gutter, on the left or
    else on the right, two or more, that _is_margin_note holds a note.
    Compiled in one call (kernels.margin_note); the rule below is the reference."""
    long_width = COLUMN_FILL * COLUMN_WIDTH * page.body
    if page.lib is not None:
        glyphs = (page.start, page.end, page.classes[0])
        measures = (DESCENT, long_width, page.gutter, CELL_PADDING * page.body, SAME_BASELINE * page.body, MARGIN_NOTE_GAP * page.body, COLUMN_LETTERS)
        return margin_note(page.lib, (page.x0, page.x1, page.y0, page.y1), glyphs, order, (measures, PROSE_LINES))
    if len(order) < PROSE_LINES + 2:
        return None
    x0, x1 = page.x0[order], page.x1[order]
    long = x1 - x0 >= long_width
    if int(np.count_nonzero(long)) < PROSE_LINES:
        return None
    left, right = float(x0[long].min()), float(x1[long].max())
    note: np.ndarray = x1 <= left - page.gutter
    if int(np.count_nonzero(note)) < 2:
        note = x0 >= right + page.gutter
        if int(np.count_nonzero(note)) < 2:
            return None
    return note if _is_margin_note(page, order[note], order[~note]) else None


def _is_margin_note(page: Page, note: np.ndarray, text: np.ndarray) -> bool:
    """Are the lines `note`, clear of the text's edge, a margin note beside
    the lines `text` (margin_note_after_its_block): one block on two rows
    or more, mostly letters, beside prose, a gutter from its nearest line and no further
    than MARGIN_NOTE_GAP (a sidebar set in the margin as a column of its
    own stands further off, and reads before the text beside it)?"""
    if len(block_starts(page, note)) != 1 or not _has_prose(page, text):
        return False
    # A note is lines stacked down the margin; words on one row past the
    # text's edge are the tail of a wide line (revtex p1's footnote line
    # set with wide word spaces, its last words beyond the lines under it).
    if _distinct_rows(page, note) < 2:
        return False
    near, far = (page.x1, page.x0) if page.x1[note].max() < page.x0[text].min() else (page.x0, page.x1)
    gap = np.abs(near[note][:, None] - far[text][None, :]).min()
    if not page.gutter <= gap <= MARGIN_NOTE_GAP * page.body:
        return False
    glyphs = [np.arange(page.start[u], page.end[u]) for u in note.tolist()]
    inked = np.concatenate(glyphs)
    return bool(np.count_nonzero(page.classes[0][inked]) >= COLUMN_LETTERS * len(inked))


def _after_its_block(page: Page, order: np.ndarray, note: np.ndarray) -> np.ndarray:
    """`order` with its lines `note` (a mask) read top to bottom after the
    last line, in `order`, of the block of the other lines (block_starts)
    that the note's first line stands beside, or the block under it."""
    text = order[~note]
    down = text[np.argsort(-page.y1[text], kind="stable")]
    notes = order[note][np.argsort(-page.y1[order[note]], kind="stable")]
    top = float(page.y1[notes[0]])
    # The text line level with the note's first line, else the first under it.
    level = np.flatnonzero(page.y0[down] < top - ROW_OVERLAP * page.body)
    if not len(level):
        return order
    starts = np.flatnonzero(np.isin(down, block_starts(page, down)))
    block = np.searchsorted(starts, level[0], side="right")
    end = starts[block] if block < len(starts) else len(down)
    first = int(starts[block - 1]) if block > 0 else 0
    last = int(np.flatnonzero(np.isin(text, down[first:end]))[-1])
    return np.concatenate([text[: last + 1], notes, text[last + 1 :]])


def _head_note(page: Page, order: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The note boxed at the head of the page whose lines in reading order
    are `order`, and the running text under it (less the furniture at the
    foot), or None: the lines above the page's first whitespace gap of
    SECTION_GAP body heights or more, two or more, set smaller than the
    text under them and inside its measure, in from its start edge by a
    frame's padding (_boxed_note), over running text (is_text_column)."""
    found = _note_over_the_text(page, order)
    if found is None:
        return None
    note, rest = found
    text = _above_the_foot(page, rest)
    if len(text) < 2 or not is_text_column(page, np.sort(text)) or not _boxed_note(page, note, text):
        return None
    return note, text


def _note_over_the_text(page: Page, order: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """_head_note's first measures of the page's lines `order`: the lines
    above its first whitespace gap of SECTION_GAP body heights or more, two
    or more, and the lines under it, each top to bottom, where the lines
    above lie inside the measure of those under them (_inset_in: asked
    first, it spares most pages the foot and the text tests); None
    otherwise. Compiled in one call (kernels.note_over_the_text); the rule
    below is the reference."""
    if page.lib is not None:
        box = (page.x0, page.x1, page.y0, page.y1)
        return note_over_the_text(page.lib, box, order, (SECTION_GAP * page.body, NOTE_INSET * page.body), page.rtl)
    if len(order) < 4:
        return None
    down = order[np.argsort(-page.y1[order], kind="stable")]
    floor = np.minimum.accumulate(page.y0[down])
    gaps = np.flatnonzero(floor[:-1] - page.y1[down[1:]] >= SECTION_GAP * page.body)
    if not len(gaps) or gaps[0] < 1:
        return None
    note, rest = down[: gaps[0] + 1], down[gaps[0] + 1 :]
    # Inside the measure of all the lines under it, or inside that of none of them.
    return (note, rest) if _inset_in(page, note, rest) else None


def _full_lines(page: Page, lines: np.ndarray) -> np.ndarray:
    """Per line of `lines`, is it a full line of their running text: as
    large as the text (NOTE_SIZE of the lines' median height) and filling
    COLUMN_FILL of their width (a page number set in the text's size, a
    footnote's mark, a margin note are none)."""
    height, width = page.y1[lines] - page.y0[lines], page.x1[lines] - page.x0[lines]
    measure = float(page.x1[lines].max() - page.x0[lines].min())
    full: np.ndarray = (height >= NOTE_SIZE * median_of(height)) & (width >= COLUMN_FILL * measure)
    return full


def _in_the_measure(page: Page, text: np.ndarray) -> np.ndarray:
    """The lines of `text` that lie along the line within the measure of
    its full lines (_full_lines): the text and what is set in it (a
    footnote's mark), not a margin note beside it, after which the note
    would read."""
    full = text[_full_lines(page, text)]
    if not len(full):
        return text
    inside: np.ndarray = text[(page.x1[text] > page.x0[full].min()) & (page.x0[text] < page.x1[full].max())]
    return inside


def _above_the_foot(page: Page, down: np.ndarray) -> np.ndarray:
    """Lines `down` (top to bottom) less the furniture at their foot: the
    lines wholly SECTION_GAP body heights or more under the text's lowest
    full line (_full_lines), where they are FURNITURE_ROWS rows or fewer (a
    running footer and its page number)."""
    full = _full_lines(page, down)
    if not full.any():
        return down
    foot = page.y1[down] <= float(page.y0[down][full].min()) - SECTION_GAP * page.body
    if foot.any() and len(rows_of(page, np.sort(down[foot]))[1]) <= FURNITURE_ROWS:
        above: np.ndarray = down[~foot]
        return above
    return down


def _boxed_note(page: Page, note: np.ndarray, text: np.ndarray) -> bool:
    """Are lines `note` set smaller than running text `text` (NOTE_SIZE of
    its median line height) and inside its measure, in from its start edge
    (the left one, the right one on a right-to-left page) by NOTE_INSET
    body heights or more?"""
    size = median_of(page.y1[note] - page.y0[note])
    if size > NOTE_SIZE * median_of(page.y1[text] - page.y0[text]):
        return False
    return _inset_in(page, note, text)


def _inset_in(page: Page, note: np.ndarray, text: np.ndarray) -> bool:
    """Do lines `note` lie inside the measure of lines `text`, in from its
    start edge (the left one, the right one on a right-to-left page) by
    NOTE_INSET body heights or more? Inside no measure narrower than that
    of `text` where not inside that one."""
    left, right = float(page.x0[text].min()), float(page.x1[text].max())
    low, high = float(page.x0[note].min()), float(page.x1[note].max())
    inset = NOTE_INSET * page.body
    if page.rtl:
        return low >= left and high <= right - inset
    return low >= left + inset and high <= right


def _edges_and_stack(page: Page, order: np.ndarray) -> np.ndarray:
    """_stack_down of _edge_rows of `order` (a leaf's lines in reading
    order, the stream its witness): the measures of both compiled in one
    call (kernels.leaf_tail), the stacked_blocks test of the stack in
    Python (_stacked_down); the rules themselves are the reference."""
    found = None if page.lib is None else leaf_tail(page.lib, (page.x0, page.x1, page.y0, page.y1), page.placed, order, _tail_limits(page), page.rtl)
    if found is None:
        return _stack_down(page, _edge_rows(page, order))
    return found.order if found.down is None else _stacked_down(page, found.order, found.lo, found.hi, found.down)


def _tail_limits(page: Page) -> tuple[float, float, float]:
    """leaf_tail's DESCENT and gaps: _edge_rows' and _stack_down's."""
    return DESCENT, SAME_BASELINE * page.body, SECTION_GAP * page.body


def _edge_rows(page: Page, order: np.ndarray) -> np.ndarray:
    """`order` (a leaf's lines in reading order) with the pieces of the
    page's top row first and those of its bottom row last, each row along
    the line, where the row holds two lines or more, crosses no other line
    of the page and lies across whitespace of SECTION_GAP body heights or
    more from the rest of the leaf: a running head and its page number at
    the far end of the line, a footer's pieces. On a page of one column
    the cut sets no band apart (no columns to read between them), and a
    stream that paints the head, the text, then the page number over its
    right edge reads down the leaf but for that one jump back up: the
    witness test lets it stand, though geometry puts the number on the
    head's row, in the top band, before the text. Fixture:
    test_page_number_on_the_running_heads_row_painted_last_reads_with_it."""
    if len(order) < 3:
        return order
    base = baseline(page, order)
    keep = np.ones(len(order), dtype=bool)
    parts: list[np.ndarray] = [np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)]
    for side, edge in enumerate((base.max(), base.min())):
        on_row = np.abs(base - edge) <= SAME_BASELINE * page.body
        count = int(np.count_nonzero(on_row))
        if count < 2 or count == len(order):
            continue
        row, rest = order[on_row], order[~on_row]
        gap = page.y0[row].min() - page.y1[rest].max() if side == 0 else page.y0[rest].min() - page.y1[row].max()
        if gap < SECTION_GAP * page.body:
            continue
        row = row[np.argsort(page.line_start(page.x0[row], page.x1[row]), kind="stable")]
        if (order[:count] if side == 0 else order[-count:]).tolist() == row.tolist():
            continue  # read so already
        # The page's edge: no line of another leaf lies beyond the row.
        placed = np.flatnonzero(page.placed)
        beyond = baseline(page, placed) - edge
        if (beyond if side == 0 else -beyond).max() > SAME_BASELINE * page.body:
            continue
        keep &= ~on_row
        parts[side] = row
    if keep.all():
        return order
    return np.concatenate([parts[0], order[keep], parts[1]])


def _stack_down(page: Page, order: np.ndarray) -> np.ndarray:
    """`order` (a leaf's lines in reading order, its top and bottom rows
    of several lines already first and last: _edge_rows) with the lines
    between those rows top to bottom, where they are one stack
    (_one_stack) and the stream paints some block of them (stacked_blocks)
    other than top to bottom. A short column (a title over a paragraph of
    three lines, a page number under it) painted in no order goes back up
    few enough times to pass the witness test, yet paints a paragraph's
    lines out of their order: no witness of anything, and a stack of lines
    has one order. A stream that paints every block top to bottom keeps
    its order of the blocks (a callout box at the top painted after the
    text under it: a tie the stream breaks). Fixture:
    test_short_column_painted_in_no_order_reads_top_to_bottom."""
    stack = _stack_candidate(page, order)
    return order if stack is None else _stacked_down(page, order, *stack)


def _stack_candidate(page: Page, order: np.ndarray) -> tuple[int, int, np.ndarray] | None:
    """_stack_down's stack of `order`: lo, hi and the lines order[lo:hi]
    (between the top and bottom rows of several lines) top to bottom, where
    they are one stack (_one_stack) painted in another order; else None."""
    if len(order) < 3:
        return None
    base = baseline(page, order)
    edge = [np.abs(base - base.max()) <= SAME_BASELINE * page.body, np.abs(base - base.min()) <= SAME_BASELINE * page.body]
    counts = [int(np.count_nonzero(row)) for row in edge]
    lo = counts[0] if counts[0] > 1 and edge[0][: counts[0]].all() else 0
    hi = len(order) - counts[1] if counts[1] > 1 and edge[1][len(order) - counts[1] :].all() else len(order)
    if hi - lo < 3:
        return None
    middle = order[lo:hi]
    down = middle[np.argsort(-base[lo:hi], kind="stable")]
    if (down == middle).all() or not _one_stack(page, down):
        return None
    return lo, hi, down


def _stacked_down(page: Page, order: np.ndarray, lo: int, hi: int, down: np.ndarray) -> np.ndarray:
    """`order` with its lines order[lo:hi] read `down` (_stack_candidate's
    stack), where the stream paints some block of them (stacked_blocks)
    other than top to bottom."""
    if not any((np.diff(block) < 0).any() for block in stacked_blocks(page, np.sort(order[lo:hi])) if len(block) > 1):
        return order  # every block painted top to bottom: the stream may be a witness
    return np.concatenate([order[:lo], down, order[hi:]])


def _one_stack(page: Page, down: np.ndarray) -> bool:
    """Are lines `down` (top to bottom) one stack: one line a row (no two
    baselines within SAME_BASELINE body heights), each overlapping the
    line under it along the line or parted from it by SECTION_GAP body
    heights or more (a title, a page number under the text)? Columns side
    by side on leadings of their own alternate down the page, and their
    lines overlap neither across nor along the line."""
    base = baseline(page, down)
    if (-np.diff(base) <= SAME_BASELINE * page.body).any():
        return False
    x0, x1 = page.x0[down], page.x1[down]
    along = np.minimum(x1[1:], x1[:-1]) > np.maximum(x0[1:], x0[:-1])
    apart = page.y0[down][:-1] - page.y1[down][1:] >= SECTION_GAP * page.body
    return bool((along | apart).all())


def _cells_together(page: Page, ids: np.ndarray, runs: list[np.ndarray], sidebars: list[np.ndarray]) -> list[np.ndarray]:
    """`runs` (the stream's runs down the leaf of lines `ids`) with the lines
    of every cell (stacked_cells) and of every paragraph the stream paints
    out of order or in turn with a block beside it (_painted_in_turn) taken
    out of their runs and read together, top to bottom, and so are the
    blocks of a sidebar beside the text (`sidebars`, see _sidebars) that
    the stream paints in turn with the text. A table whose cells
    hold two lines (an amount over its metric amount), painted line by line
    across the rows, reads down the page to the stream's witness test, and
    so does a paragraph painted line by line in turn with an infobox beside
    it; but a cell, and a paragraph, is one thing on the page: its lines
    read together whatever the stream painted between them. A cell reads
    where the stream paints the middle one of its lines, a sidebar's block
    where it paints the block's first line; a paragraph right
    after the line over it, else right before the line under it
    (_after_the_line_above), else (beside all else: a sidebar) top first,
    then along the line (_top_first). Fixtures:
    test_table_of_two_line_cells_reads_cell_by_cell_row_by_row[lines],
    test_sidebar_beside_a_scrambled_column_reads_as_a_block[interleaved]."""
    # A sidebar's block the stream paints in one visit reads whole already.
    sidebars = [block for block in sidebars if _painted_in_turn_with(ids, block)]
    in_sidebar = {line for block in sidebars for line in block.tolist()}
    stacked, turned = _cells_and_turns(page, ids)
    cells = [cell for cell in stacked if in_sidebar.isdisjoint(cell.tolist())]
    taken = in_sidebar | {line for cell in cells for line in cell.tolist()}
    paragraphs = [p for p in turned if taken.isdisjoint(p.tolist())]
    if not cells and not paragraphs and not sidebars:
        return runs
    cells = [*cells, *sidebars]
    group_of = {line: k for k, group in enumerate([*cells, *paragraphs]) for line in group.tolist()}
    # Unit numbers follow stream order: the middle one painted of a cell's
    # lines, the first one of a sidebar's block.
    middle = {int(np.sort(cell)[(len(cell) - 1) // 2]): k for k, cell in enumerate(cells[: len(cells) - len(sidebars)])}
    middle.update({int(block.min()): len(cells) - len(sidebars) + k for k, block in enumerate(sidebars)})
    out: list[np.ndarray] = []
    for run in runs:
        rest: list[int] = []  # the run's lines since the last one taken out
        for line in run.tolist():
            if line not in group_of:
                rest.append(line)
                continue
            if rest:
                out.append(np.array(rest, dtype=np.int64))
                rest = []
            if line in middle:
                out.append(cells[middle[line]])
        if rest:
            out.append(np.array(rest, dtype=np.int64))
    out = _cells_along_rows(page, out, cells[: len(cells) - len(sidebars)])
    # Paragraphs that follow a line go in top first; those beside all else
    # (a sidebar) go in last, when every run they might read before is in.
    apart = [p for p in sorted(paragraphs, key=lambda p: -float(page.y1[p[0]])) if not _after_the_line_above(page, out, p)]
    for paragraph in apart:
        key = _top_first_keys(page, [paragraph, *out])
        later = np.flatnonzero((key[1:, 0] > key[0, 0]) | ((key[1:, 0] == key[0, 0]) & (key[1:, 1] > key[0, 1])))
        out.insert(int(later[0]) if len(later) else len(out), paragraph)
    return out


def _cells_and_turns(page: Page, ids: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """stacked_cells and _painted_in_turn of the leaf of lines `ids`,
    measured in one call (kernels.leaf_cells: nearest_under once,
    cell_chains and blocks_in_turn on it), where each measured it apart;
    the two rules are the reference."""
    if page.lib is None:
        return stacked_cells(page, ids), _painted_in_turn(page, ids)
    body = page.body
    limits = (DESCENT, NEXT_LINE * body, CELL_LEADING * body, CELL_PADDING * body, PARAGRAPH_GAP, FONT_SIZE_CHANGE)
    found = leaf_cells(page.lib, (page.x0, page.x1, page.y0, page.y1), ids, limits, MAX_CELL_LINES if _cell_leaf(ids) else -1)
    return _cells_of(page, ids, found.cells, found.cell_length), _turned_paragraphs(page, found.blocks, found.block_length, found.flagged)


def _cells_along_rows(page: Page, out: list[np.ndarray], cells: list[np.ndarray]) -> list[np.ndarray]:
    """`out` with the cells, and single lines, that it reads one after
    another on one row of a table (their boxes overlapping across the line
    by SHARED_ROW of the shorter or more; a cell among them) read along the
    row. A stream painting down the page by baseline paints a row's cells
    in the order of their baselines, which vertical centring sets apart by
    a point or so (a two-line cell's first line above a one-line label's
    baseline beside it): no reading order. Fixture:
    test_table_row_of_centred_cells_painted_by_baseline_reads_along_the_row."""
    if not cells or not out:
        return out
    is_cell = {cell.tobytes() for cell in cells}
    out = _beside_their_cells(page, out, [item.tobytes() in is_cell for item in out])
    cell_item = [item.tobytes() in is_cell for item in out]
    one_row = np.array([cell or len(item) == 1 for cell, item in zip(cell_item, out, strict=True)], dtype=bool)
    x0, y0, x1, y1 = run_boxes(page, out)
    along = page.line_start(x0, x1)
    done: list[np.ndarray] = []
    k = 0
    for end in row_groups(page.lib, y1, y0, one_row, SHARED_ROW).tolist():
        group = out[k:end]
        if len(group) > 1 and any(cell_item[k:end]):
            group = [group[i] for i in np.argsort(along[k:end], kind="stable").tolist()]
        done.extend(group)
        k = end
    return done


def _beside_their_cells(page: Page, out: list[np.ndarray], cell_item: list[bool]) -> list[np.ndarray]:
    """`out` (items in reading order, `cell_item` those that are cells)
    with every single line that lies beside a cell on its row (boxes apart
    along the line, overlapping across it by SHARED_ROW of the shorter or
    more) moved right after the first such cell, where _cells_along_rows
    reads them along the row, where the leaf is such cells and lines alone:
    a table of cells. A stream that paints the table's lines in no order
    may still pass the witness test (reads_down: a table of two rows
    painted shuffled goes back up once in seven moves), and then paints a
    row's amounts apart from its label and from one another. Where other
    lines lie beside no cell (a figure's labels around a few stacked ones),
    the rows are no table's and the stream's order stands. Fixture:
    test_side_captions_right_of_their_tables_read_after_them[shuffled]."""
    if not any(cell_item) or any(len(item) != 1 and not cell for item, cell in zip(out, cell_item, strict=True)):
        # No cell, or a block of lines that is no cell: some line is beside
        # no cell (it takes single lines alone), so no table of cells alone;
        # said before the n x n measures below, which cost IRS's leaves most.
        return out
    single = np.array([len(item) == 1 and not cell for item, cell in zip(out, cell_item, strict=True)], dtype=bool)
    if not single.any():
        return out
    box = run_boxes(page, out)
    x0, y0, x1, y1 = box
    _, apart, _ = _boxes(page, box)
    overlap = np.minimum(y1[:, None], y1[None, :]) - np.maximum(y0[:, None], y0[None, :])
    shorter = np.minimum((y1 - y0)[:, None], (y1 - y0)[None, :])
    # [i, j]: item j is a single line beside cell i on its row.
    beside = (overlap >= SHARED_ROW * shorter) & apart & np.array(cell_item)[:, None] & single[None, :]
    owner = np.where(beside.any(axis=0), np.argmax(beside, axis=0), -1)
    if not all(cell or owner[k] >= 0 for k, cell in enumerate(cell_item)):
        # Lines of the leaf beside no cell (a figure's labels around a few
        # stacked ones, the text over a table): no table of cells alone.
        return out
    moved: list[np.ndarray] = []
    for k, item in enumerate(out):
        if owner[k] < 0:
            moved.append(item)
        if cell_item[k]:
            moved.extend(out[j] for j in np.flatnonzero(owner == k).tolist())
    return moved


def _sidebars(page: Page, side: np.ndarray | None) -> list[np.ndarray]:
    """The blocks of the sidebar `side` (_sidebar_lines, None where the
    leaf has none), each its lines in reading order. The box is one thing
    on the page and reads whole, each block of it (lines no further apart
    than RUN_GAP: a title over a picture is one, the facts under it
    another) by its rows (_grid_rows): a stream that paints the box in
    turn with the text is no witness of the order inside it. Fixture:
    test_infobox_beside_text_painted_in_turn_with_it_reads_whole."""
    return [] if side is None else [_grid_rows(page, block) for block in _blocks_down(page, side) if len(block) > 1]


def _sidebar_lines(page: Page, ids: np.ndarray) -> np.ndarray | None:
    """The lines of a sidebar beside a text column in the leaf of lines
    `ids`, None where it has none: the lines on one side of a
    gutter that runs the leaf's whole height (no line crosses it), where
    the lines on the other side are a text column (is_text_column) as wide
    as COLUMN_WIDTH (no table's column of sentences, which wraps as narrow
    prose does beside the table's other columns) and these are none, and
    at most ALIGNED of them lie on the text's
    baselines (set on a leading of their own: an infobox, a box of facts;
    a table's labels or line numbers share the text's rows). The cut keeps
    such a box in the leaf of the text beside it (cut.text_columns), and
    where the stream paints it in turn with the text, row by row or in no
    order at all, its lines share rows with the text's: a label on a text
    line's baseline would read along that line (_sidebars, _sidebar_box
    read it)."""
    if len(ids) < 4:
        return None
    ids, cuts = gutter_cuts(page.lib, page.x0, page.x1, ids, page.gutter)
    if not len(cuts):
        return None
    # The width of the lines on each side of every cut, from running extremes
    # (min and max of a side whatever its order; NaN propagates as in .min()).
    x0, x1 = page.x0[ids], page.x1[ids]
    with np.errstate(invalid="ignore"):  # a blank's infinite box: inf - inf
        before = np.maximum.accumulate(x1) - np.minimum.accumulate(x0)
        after = (np.maximum.accumulate(x1[::-1]) - np.minimum.accumulate(x0[::-1]))[::-1]
    for cut in cuts.tolist():
        for text, side, width in ((ids[:cut], ids[cut:], before[cut - 1]), (ids[cut:], ids[:cut], after[cut])):
            wide = width >= COLUMN_WIDTH * page.body  # False where NaN
            if len(side) < 2 or not wide or not is_text_column(page, text) or is_text_column(page, side):
                continue
            if np.count_nonzero(_on_baselines(page, text, side)) <= ALIGNED * len(side):
                return side
    return None


def _sidebar_box(page: Page, side: np.ndarray | None) -> list[np.ndarray]:
    """The sidebar `side` (_sidebar_lines) as one run (none where the leaf
    has none): its blocks top to bottom, each by its rows, a block
    of one line (a box's title over its picture) too. Where the stream is
    no witness of the leaf's order, the box is one thing on the page, a
    float: it reads whole and stands where _floats_first puts it. Only a
    box of facts is such a float: FACT_ROWS of its rows or more hold a
    label and its value side by side; captions stacked beside captions (a
    figure's panels in small type) are no infobox, and keep their blocks."""
    if side is None or len(side) - _distinct_rows(page, side) < FACT_ROWS:
        return []
    return [np.concatenate([_grid_rows(page, block) for block in _blocks_down(page, side)])]


def _painted_in_turn_with(ids: np.ndarray, block: np.ndarray) -> bool:
    """Does the stream paint, between the first and the last painted of
    lines `block`, a line of `ids` (the leaf's lines) not in it? (Unit
    numbers follow stream order.)"""
    inside = (ids > block.min()) & (ids < block.max())
    return int(np.count_nonzero(inside)) > len(block) - 2


def _blocks_down(page: Page, ids: np.ndarray) -> list[np.ndarray]:
    """Lines `ids` top to bottom, cut where whitespace wider than RUN_GAP
    body heights lies between a line and all the lines above it."""
    ids = ids[np.argsort(-page.y1[ids], kind="stable")]
    floor = np.minimum.accumulate(page.y0[ids])
    return split_at(ids, np.flatnonzero(floor[:-1] - page.y1[ids][1:] > RUN_GAP * page.body) + 1)


def _read_whole(runs: list[np.ndarray], blocks: list[np.ndarray]) -> list[np.ndarray]:
    """`runs` with the lines of each of `blocks` taken out of them and
    read as one run, in the place of the first run that held one of them."""
    if not blocks:
        return runs
    block_of = {line: k for k, block in enumerate(blocks) for line in block.tolist()}
    out: list[np.ndarray] = []
    placed: set[int] = set()
    for run in runs:
        lines = run.tolist()
        for k in dict.fromkeys(block_of[line] for line in lines if line in block_of):
            if k not in placed:
                placed.add(k)
                out.append(blocks[k])
        rest = [line for line in lines if line not in block_of]
        if rest:
            out.append(np.array(rest, dtype=np.int64))
    return out


def _after_the_line_above(page: Page, out: list[np.ndarray], paragraph: np.ndarray) -> bool:
    """Insert `paragraph` (lines of one leaf, top to bottom) into the
    runs `out` right after the run of the nearest line over its first line
    along the line (what it follows on the page: a heading, the paragraph
    before), else right before the run of the nearest line under its last
    line, else last."""
    rest = np.concatenate(out) if out else np.zeros(0, dtype=np.int64)
    for line, sign in ((int(paragraph[0]), 1.0), (int(paragraph[-1]), -1.0)):
        along = np.minimum(page.x1[rest], page.x1[line]) > np.maximum(page.x0[rest], page.x0[line])
        step = (baseline(page, rest) - baseline(page, np.array([line]))[0]) * sign
        near = rest[along & (step >= NEXT_LINE * page.body)]
        if not len(near):
            continue
        nearest = int(near[np.argmin(np.abs(baseline(page, near) - baseline(page, np.array([line]))[0]))])
        at = next(k for k, run in enumerate(out) if nearest in run.tolist())
        out.insert(at + 1 if sign > 0 else at, paragraph)
        return True
    return False


def stacked_cells(page: Page, ids: np.ndarray) -> list[np.ndarray]:
    """The cells of lines `ids` set on two to MAX_CELL_LINES lines, each its
    lines top to bottom (kernels.cell_chains: lines stacked tight, padded
    from the lines above and below them), in a row of cells: beside them on
    their row lies another line, and every line beside them is a cell too, or a
    line padded on its own (a table's row), and the nearest line above or
    below them is one too (a table's column: a matrix in a displayed
    equation has the text's lines over and under it). A value over the next label's
    value in a list of labels and values is no cell: the labels beside it,
    one under another at the list's leading, are not padded. At most
    MAX_CELL_LEAF lines are looked at (a bound on the pairwise work, not a
    layout limit)."""
    if not _cell_leaf(ids):
        return []
    box = (page.x0, page.x1, page.y0, page.y1)
    nearest = page.nearest_under(ids)
    lines, length = cell_chains(page.lib, box, ids, nearest, CELL_LEADING * page.body, CELL_PADDING * page.body, MAX_CELL_LINES)
    return _cells_of(page, ids, lines, length)


def _cell_leaf(ids: np.ndarray) -> bool:
    """Does stacked_cells look at the leaf of lines `ids` (three to MAX_CELL_LEAF)?"""
    return 3 <= len(ids) <= MAX_CELL_LEAF


def _cells_of(page: Page, ids: np.ndarray, lines: np.ndarray, length: np.ndarray) -> list[np.ndarray]:
    """stacked_cells' cells of lines `ids` from cell_chains' chains (`lines`,
    `length` lines a chain): those _wrapped_cells keeps."""
    if not len(length):
        return []
    cells = split_at(lines, np.cumsum(length)[:-1])
    return [cell for cell, keep in zip(cells, _wrapped_cells(page, ids, lines, length).tolist(), strict=True) if keep]


def _wrapped_cells(page: Page, ids: np.ndarray, lines: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Per cell of cell_chains (`lines` chained, `length` lines a cell) of
    lines `ids`: is it a cell wrapped on several lines, rather than two
    one-line rows of a table whose rows are set in padded pairs. A cell on
    two lines that do not touch, the second on a row as full as the first's
    (rows of one-line cells), is such a pair (kernels.grid_rows reads such
    rows as rows too: its cells' lines under the first lie on rows of fewer
    lines). But where a cell's first row lies under a row of fewer lines or
    none (a table's first row: a header of two-line cells, "lb" over "(kg)"),
    the table's cells are on two lines, and every cell stays (and
    kernels.grid_rows reads them as cells too: _cells_on_two_lines).
    Fixtures: test_one_line_rows_in_padded_pairs_read_as_rows,
    test_table_whose_first_row_is_two_line_cells_keeps_its_cells."""
    by, row_by = baseline_rows(baseline(page, ids), SAME_BASELINE * page.body)
    row = np.empty(len(ids), dtype=np.int64)
    row[by] = row_by
    count = np.bincount(row)
    at = np.argsort(ids)
    line_row = row[at[np.searchsorted(ids, lines, sorter=at)]]
    starts = np.cumsum(length) - length
    first = line_row[starts]
    if np.any(np.concatenate([[0], count[:-1]])[first] < count[first]):
        return np.ones(len(length), dtype=bool)
    pair = np.flatnonzero(length == 2)
    top, under = starts[pair], starts[pair] + 1
    rows = (page.y0[lines[top]] > page.y1[lines[under]]) & (count[line_row[under]] == count[line_row[top]])
    keep = np.ones(len(length), dtype=bool)
    keep[pair[rows]] = False
    return keep


def stacked_blocks(page: Page, ids: np.ndarray) -> list[np.ndarray]:
    """The lines `ids` of a leaf as blocks, each its lines top to bottom: a
    line goes on the block of the line right above it, the nearest one
    over it along the line, when it is that line's nearest one under it
    along the line too and no paragraph gap or change of size parts them
    (blocks.block_break's rule): a block is a paragraph, and a title over
    two blocks side by side is a block of its own. Where the stream is no witness, this is what a producer painting
    a block at a time would have painted: a sidebar beside the text is a
    block of its own rather than lines that share rows with the text's.
    Fixture: test_sidebar_beside_a_scrambled_column_reads_as_a_block."""
    box = (page.x0, page.x1, page.y0, page.y1)
    lines, length = block_chains(page.lib, box, ids, page.nearest_under(ids), DESCENT, PARAGRAPH_GAP, FONT_SIZE_CHANGE)
    return split_at(lines, np.cumsum(length)[:-1]) if len(length) else []


def _paragraphs(page: Page, blocks: list[np.ndarray]) -> list[np.ndarray]:
    """The `blocks` (stacked_blocks, the lines of one leaf) whose lines wrap
    as a paragraph's do (regions.wraps), but for those whose lines mostly
    lie on the baselines of other lines beside them (SAME_BASELINE) that
    are no such block: a table's column of labels that happen to fill its
    width, beside its column of values. A sidebar's lines may share their
    rows with the paragraph beside it. Compiled in one call
    (kernels.paragraph_blocks); the rule below is the reference."""
    if page.lib is not None and blocks:
        box = (page.x0, page.x1, page.y0, page.y1)
        limits = (block_wrap_limits(page), WRAP_VERDICT, SAME_BASELINE * page.body)
        keep = paragraph_blocks(page.lib, box, (page.words, page.first_word), joined_runs(page.lib, blocks), limits)
        return [block for block, kept in zip(blocks, keep.tolist(), strict=True) if kept]
    several = [block for block in blocks if len(block) > 1]
    wrapping = [block for block, wrap in zip(several, blocks_wrapping(page, several), strict=True) if wrap]
    if not wrapping:
        return []
    # The lines of the other blocks (setdiff1d's sorted result, by a mask:
    # blocks partition the leaf's lines).
    lines = np.concatenate(blocks)
    other = np.zeros(int(lines.max()) + 1, dtype=bool)
    other[lines] = True
    other[np.concatenate(wrapping)] = False
    rest = np.flatnonzero(other)
    kept = []
    for block in wrapping:
        x0, x1 = page.x0[block].min(), page.x1[block].max()
        beside = rest[(page.x1[rest] <= x0) | (page.x0[rest] >= x1)]
        if len(beside) and np.count_nonzero(_on_baselines(page, beside, block)) * 2 > len(block):
            continue
        kept.append(block)
    return kept


def _on_baselines(page: Page, lines: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Per line of `ids`, does it lie on the baseline of one of `lines`
    (within SAME_BASELINE body heights)?"""
    base = np.sort(baseline(page, lines))
    own = baseline(page, ids)
    at = np.searchsorted(base, own)
    below = np.abs(own - base[np.maximum(at - 1, 0)])
    above = np.abs(base[np.minimum(at, len(base) - 1)] - own)
    on: np.ndarray = np.minimum(below, above) <= SAME_BASELINE * page.body
    return on


def _painted_in_turn(page: Page, ids: np.ndarray) -> list[np.ndarray]:
    """The paragraphs among the blocks of lines `ids` (stacked_blocks,
    _paragraphs) that the stream paints out
    of their order, or in turn with another block beside them: it paints
    their lines other than top to bottom (a paragraph's last lines painted
    with the furniture of the bottom band), or between two of their lines a
    line of a block of two lines or more that lies beside the paragraph
    along the line (an infobox's lines, a sidebar's). A bullet or a mark
    painted between a list's lines is no block, and a paragraph painted
    down the page keeps the stream's order."""
    # The blocks and which of them the stream paints so (kernels.out_of_turn,
    # with stacked_blocks' measure in one call: kernels.blocks_in_turn)
    # first: on most leaves none, and no block then needs the paragraph test.
    box = (page.x0, page.x1, page.y0, page.y1)
    lines, length, flagged = blocks_in_turn(page.lib, box, ids, page.nearest_under(ids), DESCENT, PARAGRAPH_GAP, FONT_SIZE_CHANGE)
    return _turned_paragraphs(page, lines, length, flagged)


def _turned_paragraphs(page: Page, lines: np.ndarray, length: np.ndarray, flagged: np.ndarray) -> list[np.ndarray]:
    """_painted_in_turn's paragraphs from blocks_in_turn's blocks (`lines`,
    `length` lines a block) and their flags `flagged`: the flagged blocks
    that are paragraphs (_paragraphs)."""
    if not flagged.any():
        return []
    blocks = split_at(lines, np.cumsum(length)[:-1])
    firsts = {int(block[0]) for block, flag in zip(blocks, flagged.tolist(), strict=True) if flag}
    return [paragraph for paragraph in _paragraphs(page, blocks) if int(paragraph[0]) in firsts]


def _paragraphs_and_lines(page: Page, blocks: list[np.ndarray]) -> list[np.ndarray]:
    """`blocks` (stacked_blocks) with every block that is no paragraph
    (_paragraphs) cut into its lines, each a run of its own: a table's rows
    are read across its columns, a paragraph's lines down the paragraph."""
    kept = {block.tobytes() for block in _paragraphs(page, blocks)}
    runs: list[np.ndarray] = []
    for block in blocks:
        if block.tobytes() in kept:
            runs.append(block)
        else:
            runs.extend(block[k : k + 1] for k in range(len(block)))
    return runs


def _top_first(page: Page, runs: list[np.ndarray]) -> list[np.ndarray]:
    """`runs` top first (by their top edge), then along the line: the order
    in which what no constraint orders reads where the stream is no witness
    (a sidebar beside the text, an infobox beside the lead paragraph: the
    one set higher first, on the same height the one further left, right
    on a right-to-left page)."""
    key = _top_first_keys(page, runs)
    return [runs[k] for k in np.lexsort((key[:, 1], key[:, 0])).tolist()]


def _floats_first(page: Page, runs: list[np.ndarray], floats: list[np.ndarray]) -> list[np.ndarray]:
    """`runs` with each run that is one of `floats` (a sidebar's box,
    _sidebar_box) moved right before the highest line of the other runs
    whose box its top edge lies within, where there is one (its run cut
    there): a box set level with a line of the text beside it is a float
    set where that line starts, and reads before it (CSS 2.1 §9.5.1 rule 6:
    a float's top is never above the line box holding content that
    precedes it; an infobox level with the lead paragraph's first line
    comes before the lead). Fixtures:
    test_infobox_level_with_the_lead_reads_before_it_whatever_the_paint_order."""
    for block in floats:
        key = block.tobytes()
        at = next((k for k, run in enumerate(runs) if run.tobytes() == key), None)
        if at is None:
            continue
        runs = runs[:at] + runs[at + 1 :]
        top = float(page.y1[block].max())
        lines = np.concatenate(runs)
        level = lines[(page.y0[lines] <= top) & (page.y1[lines] >= top)]
        if not len(level):
            runs.insert(at, block)
            continue
        line = int(level[np.argmax(page.y1[level])])
        k = next(k for k, run in enumerate(runs) if line in run.tolist())
        cut = int(np.flatnonzero(runs[k] == line)[0])
        runs[k : k + 1] = [part for part in (runs[k][:cut], block, runs[k][cut:]) if len(part)]
    return runs


def _top_first_keys(page: Page, runs: list[np.ndarray]) -> np.ndarray:
    """Per run, (how far down its top lies, in steps of ROW_OVERLAP body
    heights; where it starts along the line): _top_first's order."""
    x0, _, x1, y1 = run_boxes(page, runs)
    along = page.line_start(x0, x1)
    return np.column_stack([-np.round(y1 / (ROW_OVERLAP * page.body)), along])


def _scattered(runs: list[np.ndarray]) -> bool:
    """Are the stream's runs down the leaf mostly single lines (a median
    run of one line)? A producer painting blocks paints runs of several."""
    return sorted(len(r) for r in runs)[len(runs) // 2] == 1


def _flush_stack(page: Page, ids: np.ndarray) -> np.ndarray | None:
    """Lines `ids` top to bottom where they are one block: one under the
    other (boxes overlapping by less than STACKED body heights) at most
    TITLE_LEADING body heights of whitespace apart (a line or so), all
    flush left or all flush right (edges within ROW_OVERLAP body heights),
    or centred on one axis (centres as close); None otherwise. A name over
    its affiliations, an address, a spec sheet's heading over its line or
    two a paragraph gap under it, a title block (a title, its authors, a
    date), reads down whatever the stream painted first; a figure's
    labels, scattered over the picture or set further apart, are no such
    block and keep paint order.
    Fixtures: test_scrambled_twin_reads_as_its_original[author_grid-reversed],
    test_title_block_painted_bottom_up_reads_down,
    test_headings_over_their_lines_painted_bottom_up_read_down."""
    ids = ids[np.argsort(-page.y1[ids], kind="stable")]
    gaps = page.y0[ids][:-1] - page.y1[ids][1:]
    if np.any(gaps < -STACKED * page.body):
        return None
    if np.any(gaps > TITLE_LEADING * page.body):
        return None
    edge = ROW_OVERLAP * page.body
    x0, x1 = page.x0[ids], page.x1[ids]
    return ids if np.ptp(x0) <= edge or np.ptp(x1) <= edge or np.ptp(x0 + x1) <= 2 * edge else None


def _has_prose(page: Page, ids: np.ndarray) -> bool:
    """Are PROSE_LINES or more of the lines `ids` as long as a text
    column's lines? A leaf of such lines that fails is_text_column (columns
    no gutter wide enough parted, prose with a table of contents or
    equations among it) is text all the same, no figure's labels: where
    its stream is no witness, geometry orders it."""
    long = page.x1[ids] - page.x0[ids] >= COLUMN_FILL * COLUMN_WIDTH * page.body
    return int(np.count_nonzero(long)) >= PROSE_LINES


def _stacked_in_place(page: Page, runs: list[np.ndarray]) -> list[np.ndarray]:
    """`runs` in paint order, but for what geometry orders itself: a run
    above every other first and one below every other last (see
    _with_bands: a running head painted last, a page number painted
    first), and, where the stream paints runs flush with one another up
    the page (_stream_paints_runs_up), a run above another that it overlaps
    along the line first, and so where it fills holes it left in a column
    (_holes_filled_later); where it goes back up from block to block in no
    order (_blocks_painted_back), every run top first. Fixtures:
    test_footer_painted_first_reads_at_the_foot_of_the_page,
    test_running_head_painted_last_reads_first,
    test_title_above_a_column_painted_after_it_is_read_first."""
    n = len(runs)
    slack = (STACKED * page.body, ROW_OVERLAP * page.body)
    box, stacking, hole_count = leaf_stacking(page.lib, (page.x0, page.x1, page.y0, page.y1), runs, slack, page.rtl, FILLED_HOLES)
    if _blocks_painted_back(page, runs, box):
        return _top_first(page, runs)
    runs_up = _stream_paints_runs_up(stacking)
    holes = None if runs_up else _holes_filled_later(page, runs, box, hole_count)
    furniture = _band_furniture(page, runs, (stacking.top, stacking.bottom))
    if holes is None and not runs_up and not any(furniture):
        # No furniture in a band (_with_bands): no constraint at all, and
        # Kahn's order over none is paint order.
        return runs
    if runs_up:
        other = ~np.eye(n, dtype=bool)
        above, apart, flush = _boxes(page, box, flush=True)
        assert flush is not None  # asked for
        order = kahn(page.lib, _with_bands(above & ~apart & flush & other, furniture, other))
        if order is not None:
            return [runs[k] for k in order]
    if holes is not None:
        order = kahn(page.lib, _with_bands(holes, furniture, ~np.eye(n, dtype=bool)))
        if order is not None:
            return [runs[k] for k in order]
    return [runs[k] for k in _band_order(n, furniture)]


def _blocks_painted_back(page: Page, runs: list[np.ndarray], box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]) -> bool:
    """Is the stream no witness of the order of the leaf's blocks (its runs
    of two lines or more, in paint order, boxes x0, y0, x1, y1 of `box`):
    does it go back up from one block to a block whose top lies above the
    last one's and that overlaps it along the line or lies before it
    (kernels.back_up_moves over the blocks' tops) BLOCKS_BACK times or more,
    and in more than CONSISTENT of its moves from block to block? reads_down
    judges the stream line by line, and callouts round a figure (a heading
    over a few lines each) that a producer paints one by one, each down,
    in no order, pass it; a producer painting in reading order goes back up
    from a block only for a float it placed (a callout painted after the
    text under it, once) or to the next column's top, further along the
    line. Such a leaf's runs read top first, then along the line
    (_top_first); a text column's stream places its floats (margin notes
    painted after the text). Fixture:
    test_callouts_round_a_figure_painted_in_no_order_read_top_first."""
    blocks = np.flatnonzero([len(run) > 1 for run in runs])
    if len(blocks) <= BLOCKS_BACK:
        return False
    x0, _, x1, y1 = (side[blocks] for side in box)
    # The tops stand for the blocks' baselines (descent 0 of a box of no height).
    back = back_up_moves(page.lib, (x0, x1, y1, y1), np.arange(len(blocks)), 0.0, NEXT_LINE * page.body, SAME_BASELINE * page.body, page.rtl)
    if back < BLOCKS_BACK or back <= CONSISTENT * (len(blocks) - 1):
        return False
    # A text column's stream is the witness of where its floats go (a margin
    # note, the journal's note over the title, painted after the text).
    return not is_text_column(page, np.sort(np.concatenate(runs)))


def _ahead_first(page: Page, ids: np.ndarray, runs: list[np.ndarray]) -> list[np.ndarray]:
    """`runs` (the leaf `ids`' runs in reading order so far) with every
    block that geometry sets ahead of another (_blocks_ahead) read before
    it, in a leaf that is no text column (a text column's stream places its
    floats). Fixture:
    test_callout_above_and_before_another_reads_first_whatever_the_paint_order."""
    # The text column test first: kept per leaf (the cut asked most leaves
    # already), it spares most leaves _blocks_ahead's measures.
    if len(runs) < 2 or is_text_column(page, ids):
        return runs
    ahead = _blocks_ahead(page, runs)
    if ahead is None:
        return runs
    order = kahn(page.lib, ahead)
    return runs if order is None else [runs[k] for k in order]


def _blocks_ahead(page: Page, runs: list[np.ndarray]) -> np.ndarray | None:
    """Of `runs` in reading order so far, the blocks (runs of two lines or
    more) with no other run level with them, each wholly above another such
    block and wholly before it along the line (ahead[i, j]: run i first, for
    kahn); None where every such pair already reads so. Every reading
    order agrees on such a pair (by rows the one is higher, by columns
    further back), so the stream breaks no tie there: breast-cancer guide
    p38's callouts round a figure, "Resuming activities" at the foot
    painted before "Rest up" above it and to its left. A block level with
    another run (a list's numbers beside its items, a table's cells) takes
    no such constraint: the row it shares is the order's."""
    found = _alone_ahead(page, runs)
    if found is None:
        return None
    alone, among = found
    ahead = np.zeros((len(runs), len(runs)), dtype=bool)
    ahead[np.ix_(alone, alone)] = among
    return ahead


def _alone_ahead(page: Page, runs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
    """_blocks_ahead's blocks with no other run level with them (run
    numbers, ascending) and among them [i, j]: is block i wholly above and
    wholly before block j; None where fewer than two runs are blocks, or
    every such pair already reads so. Compiled in one call
    (kernels.blocks_ahead); the rule below is the reference."""
    if page.lib is not None:
        return blocks_ahead(page.lib, (page.x0, page.x1, page.y0, page.y1), runs, page.rtl)
    # Only blocks can be alone: the measures run over the blocks (against
    # every run for `level`), not over all pairs of runs; a leaf of a table's
    # single lines has hundreds of runs and few blocks or none.
    blocks = np.flatnonzero([len(run) > 1 for run in runs])
    if len(blocks) < 2:
        return None
    x0, y0, x1, y1 = run_boxes(page, runs)
    level = np.minimum(y1[blocks, None], y1[None, :]) > np.maximum(y0[blocks, None], y0[None, :])
    level[np.arange(len(blocks)), blocks] = False  # a run is not level with itself
    alone = blocks[~level.any(axis=1)]
    x0, y0, x1, y1 = x0[alone], y0[alone], x1[alone], y1[alone]
    before = x0[:, None] >= x1[None, :] if page.rtl else x1[:, None] <= x0[None, :]
    among: np.ndarray = (y0[:, None] >= y1[None, :]) & before
    # Read against it: a later run ahead of an earlier one (`alone` ascends,
    # so below the diagonal of `among` is below it in run order too).
    return (alone, among) if np.tril(among, -1).any() else None


def _holes_filled_later(
    page: Page, runs: list[np.ndarray], box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], holes: int
) -> np.ndarray | None:
    """Where the stream fills FILLED_HOLES holes or more that it left in a
    column (`holes`, kernels.hole_count), the order of the leaf's runs (in
    paint order, their boxes `box`) that geometry gives (constraints for
    kahn: blocks of two lines or more one above the other, the narrower
    within the wider along the line, read top to bottom); None otherwise. A
    hole is a run painted after a run over it and then a run under it, each
    within the other's extent along the line (nested): the stream went down
    past it and came back up (a column painted by its edges, the paragraphs
    at its left edge first, then the bullets and the list indented between
    them; _stream_paints_runs_up sees no flush run painted up). One hole
    filled is a float the stream placed (a callout between paragraphs), and
    a box at the top painted after the text under it fills none (nothing
    over it was painted before that text): ties the stream breaks. Fixture:
    test_list_indented_between_paragraphs_painted_after_them_reads_in_place."""
    if holes < FILLED_HOLES:
        return None
    nested = nested_pairs(box, (STACKED * page.body, ROW_OVERLAP * page.body))
    # Single lines (a bullet, a table's row) take no constraint: kahn puts
    # them in paint order among the blocks.
    block = np.array([len(run) > 1 for run in runs])
    constraints: np.ndarray = nested & block[:, None] & block[None, :]
    return constraints


def _stream_paints_runs_up(stacking: RunStacking) -> bool:
    """Is the stream no witness of the order of a leaf's runs (in paint
    order) one above the other, flush on one edge (`stacking`, of the
    pairs so stacked): are two runs or more painted after a run under them,
    in more than CONSISTENT of the pairs? A producer painting in reading
    order paints a run over one it painted already only for a float it
    placed there (a callout painted after the text under it: one run, its
    tie the stream's to break); one that paints the bottom band first, or
    the page column by column, paints several so, and the runs read top to
    bottom. Fixture:
    test_paragraphs_of_a_column_painted_up_the_page_read_top_to_bottom."""
    return stacking.runs_up > 1 and stacking.upward > CONSISTENT * stacking.pairs


def reads_down(page: Page, ids: np.ndarray) -> bool:
    """Does the stream (lines `ids` in paint order) read the leaf down the
    page: from at most 1 - COHERENT of its lines back up to a line above
    that overlaps it along the line (the same column, or the same cell) or
    lies before it along the line (up and back: an earlier column), or
    back along its row?
    A producer painting in reading order goes back up so only where a
    block starts above the last or beside it further along the line (a
    column's top, a table row's next cell); a reversed stream goes back
    up from every line, a shuffled one from about half of them, to lines
    before as often as after."""
    box = (page.x0, page.x1, page.y0, page.y1)
    down = reads_down_limits(page)
    back = back_up_moves(page.lib, box, ids, down.descent, down.line_step, down.same_row, down.rtl)
    return back <= down.back_share * (len(ids) - 1)


def reads_down_limits(page: Page) -> ReadsDown:
    """reads_down's measure on this page and the share of moves back up it
    lets go (the witness kernels, kernels.band_order and reads_columns, ask
    it of each band and side)."""
    return ReadsDown(DESCENT, NEXT_LINE * page.body, SAME_BASELINE * page.body, 1 - COHERENT, page.rtl)


def _rows_in_pieces(page: Page, ids: np.ndarray) -> bool:
    """Does the stream (lines `ids` in paint order) leave rows in pieces:
    ROW_RETURNS times or more, and for more than 1 - COHERENT of the leaf's
    rows (the share of its lines reads_down lets go back up), two lines on
    one baseline (within SAME_BASELINE body heights), next to each other
    along it at most ROW_PIECE_GAP body heights apart, that it does not
    paint one right after the other? Lines that close on one row are one
    row's pieces a wider space apart than a line's words (a display
    equation's sides and its number, "mod p", a matrix's entries), which a
    producer painting in reading order paints in turn. One that paints the
    leaf by where each piece starts (lualatex-tagpdf p1's twin painted
    columns first) goes down the prose's left edge, then down and up the
    pieces: back up rarely enough for reads_down, yet no witness of the
    rows it paints in pieces. A diagram whose boxes' labels lie close by
    chance (word2010-geobase p18's UML connectors: 3 of its 70 rows) keeps
    paint order. Fixture: test_display_mathematics_painted_by_x_reads_by_rows."""
    if len(ids) < 2 * ROW_RETURNS:
        return False
    box = (page.x0, page.x1, page.y0, page.y1)
    returns, rows = row_returns(page.lib, box, ids, DESCENT, (SAME_BASELINE * page.body, ROW_PIECE_GAP * page.body))
    return returns >= ROW_RETURNS and returns >= (1 - COHERENT) * rows


def _passes_in_turn(page: Page, ids: np.ndarray, runs: list[np.ndarray]) -> list[np.ndarray]:
    """The stream's `runs` down the leaf (lines `ids` in paint order), but
    where two of its passes down the leaf take turns (kernels.turning_pair),
    with the lines of each of the two as one run. A pass
    runs down the page whatever whitespace it crosses, unlike RUN_GAP's
    runs: a stream that paints a column's hanging labels, then its lines,
    then its lead-ins (an x-first stream) paints the column in passes, each
    crossing whole paragraphs between two of its lines, so no two of its
    runs hold two lines of each in turn, but its passes do, and
    _lines_in_turn reads them by rows. The two passes replace only the
    runs whose lines they take (_read_whole); the others stay the stream's
    runs: a pass crossing whitespace is evidence only of lines taking turns,
    and a text painted after the figure labels under it (two passes) is, run
    by run, the evidence that the stream paints up the page
    (_stream_paints_runs_up), which one pass of the whole text would hide.
    Fixtures: test_column_painted_in_passes_by_x_reads_by_rows,
    test_figure_labels_painted_in_passes_before_the_text_above_them_read_after_it."""
    box = (page.x0, page.x1, page.y0, page.y1)
    # A pass ends where the stream goes back up, or across to a line beside
    # the last off its row (the next column, a table's next row); a piece
    # further along the row (a word painted on its own) goes on with it.
    # It goes on across whitespace wider than RUN_GAP only on the same edge
    # (a column's next paragraph, a hanging label's next one); a jump down
    # to a line set elsewhere along the line (the text under a box of two
    # narrow columns, a page's footer) ends it.
    body = page.body
    cuts = pass_cuts(page.lib, box, ids, DESCENT, SAME_BASELINE * body, NEXT_LINE * body, RUN_GAP * body, PASS_EDGE * body, page.rtl)
    if len(cuts) < 1 or len(cuts) + 1 >= len(runs):  # one pass, or no fewer passes than runs
        return runs
    passes = split_at(ids, cuts)
    if turning_pair(page.lib, box, passes, DESCENT, STACKED * page.body, ROW_OVERLAP * page.body, TURNS) is None:
        return runs
    # The passes that take turns, merged (a pass merged with none is one of `passes`).
    merged = [group for group in _lines_in_turn(page, passes) if not any(group is p for p in passes)]
    return _read_whole(runs, merged)


def _column_grid(page: Page, runs: list[np.ndarray]) -> bool:
    """Does the stream paint a table column by column: two of its visits to
    a column (runs, or runs set flush right painted one after another:
    _flush_right_visits) side by side, narrow, not running text, sharing
    GRID_ROWS rows or more, or one visit to a column of values up and down
    (_values_up_and_down)?"""
    if sum(map(len, runs)) < GRID_ROWS:  # too few lines for a visit of GRID_ROWS
        return False
    up, big = _big_visits(page, runs)
    return up or (len(big) >= 2 and len(_merge_grids(page, big)) < len(big))


def _big_visits(page: Page, runs: list[np.ndarray]) -> tuple[bool, list[np.ndarray]]:
    """_column_grid's visits to a column (_flush_right_visits) of GRID_ROWS
    lines or more, and does the stream paint one of them up and down
    (_values_up_and_down)? Where it does, the visits are not asked for (none
    listed). Compiled in one call (kernels.column_visits); the rules are the reference."""
    if page.lib is not None:
        limits = (ROW_OVERLAP * page.body, GRID_ROWS, COLUMN_WIDTH * page.body, NEXT_LINE * page.body)
        up, bounds = column_visits(page.lib, (page.x0, page.x1, page.y0, page.y1), runs, limits, page.rtl)
        return up, [] if up else [runs[a] if b - a == 1 else np.concatenate(runs[a:b]) for a, b in bounds]
    big = [r for r in _flush_right_visits(page, runs) if len(r) >= GRID_ROWS]
    if big:  # (the leaf's lines joined once, not once a visit)
        ids = np.concatenate(runs)
        if any(_values_up_and_down(page, ids, visit) for visit in big):
            return True, []
    return False, big


def _values_up_and_down(page: Page, ids: np.ndarray, visit: np.ndarray) -> bool:
    """Does the stream paint the values of one visit (_flush_right_visits:
    GRID_ROWS lines or more of the leaf's lines `ids`, set flush right)
    by where each value starts: each starting no further back along the
    line than the one before (ROW_OVERLAP), some a line or more above it?
    Such a column is a table's column painted on a visit of its own,
    whatever the labels beside it are: a label wider than its column, its
    value on the row under it (a spec sheet's "Gross horsepower - SAE
    J1995 @ 2400 RPM:"), keeps the labels' run from being a narrow column,
    and the stream, down the labels and then up and down the values, goes
    down from most of its lines. Only values: a narrow visit, flush with
    the leaf's end of the line (labels set flush right stand before what
    they label); a column painted down the page is one run, never up.
    Fixture: test_values_painted_by_x_position_beside_wide_labels_read_by_rows."""
    edge = page.line_end(page.x0, page.x1)
    if float(page.x1[visit].max() - page.x0[visit].min()) >= COLUMN_WIDTH * page.body:
        return False  # a text column's lines end flush right when justified
    if float(edge[ids].max() - edge[visit].max()) > ROW_OVERLAP * page.body:
        return False  # labels set flush right before what they label
    # By where each value starts: never back along the line, up at least once.
    start = page.line_start(page.x0[visit], page.x1[visit])
    along = np.diff(start) >= -ROW_OVERLAP * page.body
    return bool(along.all() and (np.diff(page.y0[visit]) >= NEXT_LINE * page.body).any())


def _flush_right_visits(page: Page, runs: list[np.ndarray]) -> list[np.ndarray]:
    """`runs` with those painted one after another whose lines all end
    within ROW_OVERLAP of one edge joined: one visit to a column of values
    set flush right (flush left on a right-to-left page) that the stream
    paints by where each value starts, up and down the column, a run a
    line. Fixture: test_values_set_flush_right_painted_by_x_position_read_by_rows."""
    edge = page.line_end(page.x0, page.x1)
    ends = flush_visits(page.lib, edge, runs, ROW_OVERLAP * page.body).tolist()
    return [runs[a] if b - a == 1 else np.concatenate(runs[a:b]) for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def _paint_runs(page: Page, ids: np.ndarray) -> list[np.ndarray]:
    """The lines `ids` (in stream order) cut where the stream leaves a
    block: each run goes down one block, a line below the one before (no
    further than RUN_GAP) and overlapping the run so far along the line,
    or beside the line before on its row, further along by less than a
    gutter. A jump up, across a gutter, or down to another block, starts a
    run: a table painted row by row gives a run per cell, which
    _merge_grids reads by rows again."""
    box = (page.x0, page.x1, page.y0, page.y1)
    # Further along its row, by less than a gutter: the next piece of a line
    # (a gutter's width away is the next column, or the next cell).
    cuts = paint_run_cuts(page.lib, box, ids, DESCENT, ROW_OVERLAP * page.body, NEXT_LINE * page.body, RUN_GAP * page.body, page.gutter, page.rtl)
    return split_at(ids, cuts)


def _boxes(
    page: Page, box: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], flush: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Per pair of runs (their boxes `box`, run_boxes): does run i lie above
    run j, are they apart along the line (no overlap in x, within
    ROW_OVERLAP), and, where `flush` asks (else None), do they start within
    ROW_OVERLAP of each other along the line (flush; their right edges on a
    right-to-left page)?"""
    # Stacked: the boxes overlap by less than STACKED body heights (tall
    # glyph boxes of consecutive lines overlap that much).
    return run_pairs(page.lib, box, STACKED * page.body, ROW_OVERLAP * page.body, page.rtl, flush)


def run_boxes(page: Page, runs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The box (x0, y0, x1, y1) of each run (none empty), one reduction over all of them."""
    return kernel_run_boxes(page.lib, (page.x0, page.y0, page.x1, page.y1), runs)


def _lines_in_turn(page: Page, runs: list[np.ndarray]) -> list[np.ndarray]:
    """`runs` (the stream's runs down a leaf it reads down) with every two
    runs whose lines take turns down the page (kernels.turning_pair) merged into
    one read by rows, in the place of the first painted one, until none
    do. A stream that paints a block's lines in two passes, each down the
    page (a list's first lines, set out with their numbers, then its
    hanging lines; a paragraph's indented first lines after the others),
    reads down the page twice: the witness test passes it, but the lines
    of the block alternate between the two runs. A float the stream
    paints after the column around it lies between two lines of that
    column's run, never the column's lines between its own. Fixture:
    test_list_painted_first_lines_first_reads_item_by_item."""
    runs = list(runs)
    box = (page.x0, page.x1, page.y0, page.y1)
    while len(runs) > 1:
        # Runs whose boxes overlap both across and along the line
        # (_merge_interleaved's tangle), whose lines take turns (TURNS).
        pair = turning_pair(page.lib, box, runs, DESCENT, STACKED * page.body, ROW_OVERLAP * page.body, TURNS)
        if pair is None:
            break
        i, j = pair
        runs[i] = _grid_rows(page, np.concatenate([runs[i], runs[j]]))
        del runs[j]
    return runs


def _merge_interleaved(page: Page, runs: list[np.ndarray]) -> list[np.ndarray]:
    """`runs` with every two runs that interleave (their boxes overlap both
    across and along the line) merged into one read by rows, until none
    do. The merged run takes the place of the first painted one."""
    runs = list(runs)
    if len(runs) < 2:
        return runs
    # Which runs merge depends on their boxes alone (a merged run's box is
    # the union of its two): kernels.interleaved_merges finds every merge.
    for i, j in interleaved_merges(page.lib, run_boxes(page, runs), STACKED * page.body, ROW_OVERLAP * page.body):
        runs[i] = _grid_rows(page, np.concatenate([runs[i], runs[j]]))
        del runs[j]
    return runs


def _merge_grids(page: Page, runs: list[np.ndarray]) -> list[np.ndarray]:
    """`runs` with the columns of a grid merged into one run read by rows:
    runs side by side, not running text, on one another's baselines (most
    lines of the shorter run on the baseline of a line of the other),
    three or more of them linked so, or two sharing GRID_ROWS rows or more.
    A table painted column by column is such a grid; blocks side by side on
    a common leading (an author grid of two names a row, a sidebar) are
    not, and keep paint order."""
    if len(runs) < 2:
        return runs
    # Pairs apart along the line where most lines of the shorter run lie on
    # the other's baselines (kernels.grid_links). A table's columns are
    # narrower than a text column, and not both running text: a table's
    # column of sentences wraps like prose beside its column of labels, two
    # narrow columns of prose both do. (Only pairs of narrow runs are
    # measured at all: only two narrow runs can link.)
    body = page.body
    units = (page.x0, page.x1, page.y0, page.y1)
    box, links = grid_links(page.lib, units, runs, DESCENT, SAME_BASELINE * body, COLUMN_WIDTH * body, ROW_OVERLAP * body)
    linked: list[tuple[int, int]] = []  # runs sharing rows, joined into groups
    strong: set[int] = set()
    in_row: set[int] = set()  # runs that share rows with another
    for i, j, shared in links.tolist():
        if is_text_column(page, runs[i]) and is_text_column(page, runs[j]):
            continue
        linked.append((i, j))
        if shared >= GRID_ROWS:
            strong.add(i)
        in_row.update((i, j))
    if not in_row:  # no grid: every run stands where it was painted
        return _in_paint_order(page, runs)
    member = np.zeros(len(runs), dtype=bool)
    member[list(in_row)] = True
    shared_i, shared_j = np.array(linked, dtype=np.int64).reshape(-1, 2).T
    # Cells of one grid column, one above the other (a table painted
    # backwards, a cell at a time), belong to its grid too. The groups are
    # the connected runs (kernels.grid_groups), each its runs in paint
    # order, the groups in the order of their first run.
    cell = (CELL_LEADING * body, PASS_EDGE * body)
    label = grid_groups(page.lib, box, member, (shared_i, shared_j), (STACKED * body, ROW_OVERLAP * body), cell, page.rtl).tolist()
    groups: dict[int, list[int]] = {}
    for k, first in enumerate(label):
        groups.setdefault(first, []).append(k)
    merged: list[np.ndarray] = []
    for members in groups.values():
        # (Rows are counted only for groups of three runs or more.)
        rows = len(members) >= 3 and _distinct_rows(page, np.concatenate([runs[k] for k in members])) >= 3
        if rows or (len(members) == 2 and strong & set(members)):
            merged.append(_grid_rows(page, np.concatenate([runs[k] for k in members])))
        else:
            merged.extend(runs[k] for k in members)
    return _in_paint_order(page, merged)


def _in_paint_order(page: Page, runs: list[np.ndarray]) -> list[np.ndarray]:
    """`runs` (none empty) each where its first line was painted (unit
    numbers follow stream order): sorted by their smallest line, stably,
    as sorted(runs, key=min) sorts them (kernels.paint_order)."""
    return [runs[k] for k in paint_order(page.lib, runs)]


def _order_runs(page: Page, runs: list[np.ndarray], floats: tuple[np.ndarray, ...] | list[np.ndarray] = ()) -> list[np.ndarray] | None:
    """Runs in reading order, under these constraints, ties broken by paint
    order (Kahn's algorithm, the first painted of the runs free to go):
    - runs one above the other in one block (they overlap along the line)
      read top to bottom;
    - runs apart along the line that are both as wide as a text column's
      lines (columns that no cut separated, a gutter too narrow or crossed
      by a page number) read left to right, right to left on an RTL page;
    - runs of one row each on the same row (the pieces of an equation and
      its number, a contents line's title and page) read along the line,
      and stand where their row stands among the stacked runs;
    - a run above every other reads first, one below every other last.
    Runs apart that are not both so wide (a sidebar beside the text, a pull
    quote, labels), and a run that is one of `floats` (a sidebar's box,
    _sidebar_box, however wide: a box of facts, no text column), have no
    constraint between them: the stream breaks the tie. None when the constraints contradict one another. Fixtures:
    test_sidebar_beside_the_text_keeps_its_place_in_the_stream,
    test_running_head_painted_last_reads_first,
    test_scrambled_twin_reads_as_its_original."""
    n = len(runs)
    if n < 2:
        return runs
    box = run_boxes(page, runs)
    above, apart, _ = _boxes(page, box)
    other = ~np.eye(n, dtype=bool)
    x0, _, x1, _ = box
    boxes = {block.tobytes() for block in floats}
    wide = (x1 - x0 >= COLUMN_WIDTH * page.body) & np.array([run.tobytes() not in boxes for run in runs])
    leftward = (x1[None, :] <= x0[:, None] + ROW_OVERLAP * page.body) if page.rtl else (x1[:, None] <= x0[None, :] + ROW_OVERLAP * page.body)
    stacked = above & ~apart & other
    columns = apart & leftward & wide[:, None] & wide[None, :]
    # The constraints in order of trust; where together they contradict one
    # another (a run crossing columns, stacked under one and beside another),
    # the weakest goes first.
    mates = _row_mates(page, runs)
    # A row's pieces stand where the row stands: under what is stacked over
    # any of them, over what is stacked under any (an equation's number, a
    # contents line's page, beside no line of the text themselves).
    # (Boolean products: a path through mates, as a count > 0 of the integer
    # products was, at a tenth of their cost on leaves of hundreds of runs.)
    rows = (mates @ stacked @ mates) & other
    along = mates & apart & leftward
    furniture = _band_furniture(page, runs, top_and_bottom(above, other))
    for before in (rows | columns | along, stacked | columns, stacked):
        order = kahn(page.lib, _with_bands(before, furniture, other))
        if order is not None:
            return [runs[k] for k in order]
    return None


def _row_mates(page: Page, runs: list[np.ndarray]) -> np.ndarray:
    """Per pair of runs: are both one row each, on the same baseline (each
    run is its own mate)? (kernels.row_mates: a run is one row where no
    step between its sorted baselines is a row's, SAME_BASELINE body
    heights; its baseline is its lines' mean.)"""
    box = (page.x0, page.x1, page.y0, page.y1)
    return row_mates(page.lib, box, runs, DESCENT, SAME_BASELINE * page.body)


def _band_furniture(page: Page, runs: list[np.ndarray], bands: tuple[np.ndarray, np.ndarray]) -> tuple[list[int], list[int]]:
    """Of `bands` (the runs above every other and those below,
    kernels.top_and_bottom, in run order) the furniture: runs that are no
    running text (is_text_column). The last paragraphs of a column under a
    boxed callout the stream paints after them are text, and where they go
    is the callout's question (a tie the stream breaks), not the bottom
    band's (_with_bands)."""
    top, bottom = bands[0].tolist(), bands[1].tolist()
    # Only a run in a band can be furniture: the test runs for those alone, once.
    text = {k: is_text_column(page, runs[k]) for k in {*top, *bottom}}
    return [k for k in top if not text[k]], [k for k in bottom if not text[k]]


def _with_bands(before: np.ndarray, furniture: tuple[list[int], list[int]], other: np.ndarray) -> np.ndarray:
    """`before` with a run above every other one (a running head, a title)
    first and one below every other (a page number, a footer) last
    (`furniture`: those of the top and of the bottom band that are no
    running text, _band_furniture): the top and bottom bands are geometry's,
    wherever they lie along the line. Fixtures:
    test_footer_painted_first_reads_at_the_foot_of_the_page,
    test_callout_painted_after_the_text_under_it_keeps_its_place_in_the_stream."""
    before = before.copy()
    top, bottom = furniture
    for k in top:
        before[k, :], before[:, k] = other[k], False
    for k in bottom:
        before[:, k], before[k, :] = other[:, k], False
    return before


def _band_order(n: int, furniture: tuple[list[int], list[int]]) -> list[int]:
    """kahn's order of `n` runs under _with_bands' constraints alone (no
    other: a leaf whose stream is its witness), without its n x n matrix (a
    leaf of a thousand single-line runs asks it). _with_bands gives each
    top run (`furniture`'s first list) every other run after it, then takes
    the runs before it away, so of two top runs the later listed reads
    first; each bottom run gets every other run before it and loses those
    after it, so bottom runs read in their listed order, last; a run in
    both bands is a bottom run. Nothing orders the other runs among
    themselves: paint order. (tests/extract/test_layout_leaves_kernels.py
    holds this equal to kahn over _with_bands.)"""
    top, bottom = furniture
    at_bottom = set(bottom)
    first = [k for k in reversed(top) if k not in at_bottom]
    banded = at_bottom.union(first)
    return [*first, *(k for k in range(n) if k not in banded), *bottom]


def _distinct_rows(page: Page, ids: np.ndarray) -> int:
    """How many rows (baselines SAME_BASELINE apart or more) lines `ids` are on."""
    base = np.sort(baseline(page, ids))
    return 1 + int(np.count_nonzero(np.diff(base) > SAME_BASELINE * page.body))


def _grid_rows(page: Page, ids: np.ndarray) -> np.ndarray:
    """Lines `ids` of a grid (a table) by its rows: top to bottom, each row
    cell by cell along the line, each cell's lines top to bottom. A row is
    a run of lines whose baselines lie within SAME_BASELINE body heights of
    the one before, top down: a cell centred across two rows is a row
    between them, rather than the two rows chained into one; a row reads
    along the line (left to right, right to left on a right-to-left page).
    A table row of cells set on two or three lines (an amount over its
    metric amount) shows as lines whose boxes touch or overlap, parted from
    the rows above and below by padding of CELL_PADDING body heights or
    more; every other line (a table of one-line rows, however tight; a run
    of more than MAX_CELL_LINES chained tight) is a row of its own
    (kernels.grid_rows measures and sorts)."""
    box = (page.x0, page.x1, page.y0, page.y1)
    return grid_rows(
        page.lib, box, ids, DESCENT, SAME_BASELINE * page.body, CELL_PADDING * page.body, CELL_LEADING * page.body, MAX_CELL_LINES, page.rtl
    )


def emit(page: Page, leaves: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Reading order from leaves (each its units in reading order), as
    positions in the stream order, and the positions where a new leaf starts."""
    # Units left out of the cut go right after the unit painted before them
    # (before the first placed unit when none was).
    return emit_leaves(page.lib, leaves, page.start, page.end)
