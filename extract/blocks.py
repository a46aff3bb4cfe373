"""Blocks: the units of page text that the chunker keeps whole.

Every mode hands blocks to the chunker. Structure mode makes one block per
element that owns content directly (a P, an H2, a TD); stream mode, which knows
no elements, makes one per run of lines that geometry holds together (no
paragraph-sized vertical gap, no change of font size, no jump back up the page).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np

from ragprep.extract.geometric import LINE_BREAK, JoinedText
from ragprep.extract.glyphs import NO_MCID, GlyphTable, rows_at
from ragprep.extract.native import compiled_core
from ragprep.extract.rows import frozen_rows

# A gap between lines larger than this many glyph heights separates paragraphs
# (single-spaced lines sit about 1.2 heights apart).
PARAGRAPH_GAP = 1.6
# Lines whose font sizes differ by more than this factor belong to different
# blocks (a heading above its paragraph).
FONT_SIZE_CHANGE = 1.15


@dataclass(frozen=True)
class BlockLabel:
    """What a block is, independent of where its text landed."""

    struct_type: str = "P"  # standard structure type: P, H1..H6, LI, TD, TH, Caption...
    struct_path: tuple[str, ...] = ("P",)  # standard types from the top: Document/Sect/P
    heading_level: int | None = None
    lang: str | None = None  # /Lang (§14.9.2)
    header_cell: bool = False  # a table header cell (TH)
    alt: str | None = None  # /Alt of a Figure (§14.9.3)


# Slots: frozen_rows stores each field of a page's thousands of blocks straight
# into its slot (rows.py); weakref_slot keeps blocks weakly referable.
@dataclass(frozen=True, slots=True, weakref_slot=True)
class Block:
    text: str
    struct_type: str
    struct_path: tuple[str, ...]
    heading_level: int | None
    mcids: tuple[int, ...]
    bbox: tuple[float, float, float, float]  # x0, y0, x1, y1 in the page's user space
    char_start: int  # span in the page text: text == page_text[char_start:char_end]
    char_end: int
    lang: str | None = None
    header_cell: bool = False
    alt: str | None = None


def build_blocks(
    table: GlyphTable,
    joined: JoinedText,
    new_block: np.ndarray,
    block_label: np.ndarray,
    labels: Sequence[BlockLabel],
) -> tuple[tuple[Block, ...], tuple[TextLine, ...]]:
    """One block per run of emitted glyphs; `new_block` marks the glyphs that
    start a run, `block_label` says (per run) which of `labels` it carries.
    And the lines (blocks_and_lines)."""
    if len(joined.order) == 0:
        return (), ()
    return blocks_and_lines(table, joined, run_starts(new_block), label_fields(block_label, labels))


def label_fields(block_label: np.ndarray, labels: Sequence[BlockLabel]) -> dict[str, list[Any]]:
    """Per field of BlockLabel, its value for each run, run k labelled
    labels[block_label[k]]: each field read once per label, not per run."""
    if len(labels) == 1:
        count = len(block_label)
        return {name: [field(labels[0])] * count for name, field in _LABEL_FIELDS}
    at = block_label.tolist()
    return {name: list(map([field(label) for label in labels].__getitem__, at)) for name, field in _LABEL_FIELDS}


def run_starts(new_block: np.ndarray) -> np.ndarray:
    """The positions where runs start: those `new_block` marks, and the first."""
    new_block = new_block.copy()
    new_block[0] = True
    return np.flatnonzero(new_block)


# BlockLabel's fields, each read by name.
_LABEL_FIELDS = tuple((field.name, attrgetter(field.name)) for field in dataclasses.fields(BlockLabel))


def labelled_blocks(
    table: GlyphTable,
    joined: JoinedText,
    starts: np.ndarray,
    labels: Mapping[str, list[Any]],
    boxes: list[tuple[float, ...]] | None = None,
    spans: RunSpans | None = None,
) -> tuple[Block, ...]:
    """One block per run of emitted glyphs beginning at `starts` (run_starts);
    `labels` holds, per field of BlockLabel, the value of each run; `boxes`
    and `spans` the runs' boxes and spans when already taken (blocks_and_lines)."""
    if boxes is None:
        boxes = run_boxes(table, joined.order, starts)
    if spans is None:
        spans = run_spans_two(joined, starts, starts[:0])
    mcid_runs = run_mcids(table.mcid[joined.order], starts)
    return frozen_rows(
        Block,
        {
            "text": spans.texts,
            "struct_type": labels["struct_type"], "struct_path": labels["struct_path"],
            "heading_level": labels["heading_level"],
            "mcids": mcid_runs, "bbox": boxes, "char_start": spans.firsts, "char_end": spans.lasts,
            "lang": labels["lang"], "header_cell": labels["header_cell"], "alt": labels["alt"],
        },
    )  # fmt: skip


def run_mcids(mcids: np.ndarray, starts: np.ndarray) -> list[tuple[int, ...]]:
    """Per run of emitted glyphs beginning at `starts`: its distinct MCIDs in
    the order they first occur, all runs at once (no numpy call per run).
    `starts` begin at 0 and increase strictly (as run_starts gives them)."""
    core = compiled_core()
    if core is not None:  # one pass, no sort of the page's marked glyphs
        runs: list[tuple[int, ...]] = core.run_mcids(
            np.ascontiguousarray(mcids, dtype=np.int64), np.ascontiguousarray(starts, dtype=np.int64)
        )
        return runs
    marked = np.flatnonzero(mcids != NO_MCID)
    if not len(marked):
        return [()] * len(starts)
    run = np.searchsorted(starts, marked, side="right") - 1
    values = mcids[marked]
    # The first position of each (run, mcid) pair: sorted by run, mcid and
    # position, a pair's first row is where the pair changes.
    by_pair = np.lexsort((np.arange(len(marked)), values, run))
    pair_run, pair_value = run[by_pair], values[by_pair]
    new_pair = np.ones(len(by_pair), dtype=bool)
    new_pair[1:] = (pair_run[1:] != pair_run[:-1]) | (pair_value[1:] != pair_value[:-1])
    first = np.sort(by_pair[new_pair])
    kept_run, kept = run[first], values[first].tolist()
    bounds = np.searchsorted(kept_run, np.arange(len(starts) + 1)).tolist()
    return [tuple(kept[bounds[i] : bounds[i + 1]]) for i in range(len(starts))]


def run_boxes(table: GlyphTable, order: np.ndarray, starts: np.ndarray) -> list[tuple[float, ...]]:
    """Bounding box (x0, y0, x1, y1), rounded to 3 decimals, of each run of
    the glyphs at `order` (table rows) beginning at positions `starts`, all
    runs at once: min/max of the glyph quads per run."""
    core = compiled_core()
    if core is not None:  # one pass over the quads, no (n, 4, 2) copies
        order = np.ascontiguousarray(order, dtype=np.int64)
        boxes: list[tuple[float, ...]] = core.run_boxes(
            np.ascontiguousarray(table.quad), order, np.ascontiguousarray(starts, dtype=np.int64)
        )
        return boxes
    corners = rows_at(table.quad, order)  # (n, 4, 2)
    x0 = np.minimum.reduceat(corners[:, :, 0].min(axis=1), starts)
    y0 = np.minimum.reduceat(corners[:, :, 1].min(axis=1), starts)
    x1 = np.maximum.reduceat(corners[:, :, 0].max(axis=1), starts)
    y1 = np.maximum.reduceat(corners[:, :, 1].max(axis=1), starts)
    rounded: list[list[float]] = np.round(np.stack([x0, y0, x1, y1], axis=1), 3).tolist()
    return list(map(tuple, rounded))


def run_boxes_two(
    table: GlyphTable, order: np.ndarray, starts: np.ndarray, other: np.ndarray
) -> tuple[list[tuple[float, ...]], list[tuple[float, ...]]]:
    """run_boxes of two sets of runs of the same glyphs (a page's blocks and
    its lines; both begin at 0), each glyph read once where the core is
    built (_core.run_boxes_two: the boxes of the pieces between the starts of
    either set, then each run's from its pieces)."""
    core = compiled_core()
    if core is None:
        return run_boxes(table, order, starts), run_boxes(table, order, other)
    boxes: tuple[list[tuple[float, ...]], list[tuple[float, ...]]] = core.run_boxes_two(
        np.ascontiguousarray(table.quad), *(np.ascontiguousarray(c, dtype=np.int64) for c in (order, starts, other))
    )
    return boxes


# Slots, as Block's (rows.py).
@dataclass(frozen=True, slots=True, weakref_slot=True)
class TextLine:
    """One line of the page text as emitted: its span in the page text (line
    break excluded) and the box of its glyphs. Downstream checks of reading
    order (column jumps) need line geometry, not just block geometry."""

    char_start: int
    char_end: int
    bbox: tuple[float, float, float, float]


def line_starts(joined: JoinedText) -> np.ndarray:
    """The positions where the emitted lines start: 0 and each line-break separator."""
    starts = np.flatnonzero(joined.separator == LINE_BREAK)
    if len(starts) == 0 or starts[0] != 0:
        starts = np.concatenate([[0], starts])
    return starts


def _lines(char_starts: list[int], char_ends: list[int], boxes: list[tuple[float, ...]]) -> tuple[TextLine, ...]:
    """The TextLines of these spans (run_spans_two's) and boxes."""
    return frozen_rows(TextLine, {"char_start": char_starts, "char_end": char_ends, "bbox": boxes})


class RunSpans(NamedTuple):
    """run_spans_two's answer: per run of its first set (a page's blocks) its
    text and span in the joined text, per run of the other (its lines) its span."""

    texts: list[str]
    firsts: list[int]  # char_start
    lasts: list[int]  # char_end
    other_firsts: list[int]
    other_lasts: list[int]


def run_spans_two(joined: JoinedText, starts: np.ndarray, other: np.ndarray) -> RunSpans:
    """The spans of two sets of runs of the emitted glyphs (each run from its
    start to the next; strictly increasing positions): a run's span is the
    char_start of its first glyph to the char_end of its last, its text that
    slice of the joined text (the first set's only). One compiled call where
    the core is built (_core.run_spans_two), whose runs of `other` that begin
    (end) where one of `starts` does hold that run's int, not an equal one:
    a page's one-line blocks and their lines share them."""
    core = compiled_core()
    char_start, char_end = (np.ascontiguousarray(c, dtype=np.int64) for c in (joined.char_start, joined.char_end))
    if core is not None:
        positions = (np.ascontiguousarray(s, dtype=np.int64) for s in (starts, other))
        return RunSpans(*core.run_spans_two(joined.text, char_start, char_end, *positions))
    spans: list[list[int]] = []
    for runs in (starts, other):
        ends = np.concatenate([runs[1:], [len(char_start)]]).astype(np.int64)
        spans += [char_start[runs].tolist(), char_end[ends - 1].tolist()]
    text = joined.text
    return RunSpans([text[start:end] for start, end in zip(spans[0], spans[1], strict=True)], *spans)


def blocks_and_lines(
    table: GlyphTable, joined: JoinedText, starts: np.ndarray, labels: Mapping[str, list[Any]]
) -> tuple[tuple[Block, ...], tuple[TextLine, ...]]:
    """labelled_blocks and the TextLines of one joined text, the boxes of both
    runs from one pass over the glyphs (run_boxes_two), their spans from one
    more (run_spans_two)."""
    if len(joined.order) == 0:
        return (), ()
    lines = line_starts(joined)
    block_boxes, line_boxes = run_boxes_two(table, joined.order, starts, lines)
    spans = run_spans_two(joined, starts, lines)
    blocks = labelled_blocks(table, joined, starts, labels, block_boxes, spans)
    return blocks, _lines(spans.other_firsts, spans.other_lasts, line_boxes)


def block_break(
    line_break: np.ndarray, across: np.ndarray, height: np.ndarray, size: np.ndarray, next_size: np.ndarray
) -> np.ndarray:
    """The block-start rule, per pair of a glyph and the next: at a line break
    (`line_break`), a gap across the line (`across`, negative when the next
    line lies below: y grows upwards) larger than PARAGRAPH_GAP x the larger
    glyph `height` of the two, a move back up, or font sizes (`size`,
    `next_size`) differing by more than FONT_SIZE_CHANGE. The one definition:
    stream and structure mode apply it to the joined text, layout mode to its
    reading order's line moves (layout.labels.with_blocks)."""
    small = np.maximum(np.minimum(size, next_size), 1e-9)
    size_ratio = np.maximum(size, next_size) / small
    starts: np.ndarray = line_break & ((-across > PARAGRAPH_GAP * height) | (across > 0) | (size_ratio > FONT_SIZE_CHANGE))
    return starts


def geometric_block_starts(table: GlyphTable, joined: JoinedText) -> np.ndarray:
    """Per emitted glyph: does a new geometric block start here (block_break)?"""
    n = len(joined.order)
    new_block = np.zeros(n, dtype=bool)
    if n > 1:
        prev, cur = joined.order[:-1], joined.order[1:]
        new_block[1:] = block_break(
            joined.separator[1:] == LINE_BREAK, joined.move_across[1:],
            np.maximum(table.height[prev], table.height[cur]), table.font_size[prev], table.font_size[cur],
        )  # fmt: skip
    return new_block


def geometric_blocks(table: GlyphTable, joined: JoinedText) -> tuple[tuple[Block, ...], tuple[TextLine, ...]]:
    """Blocks from geometry alone, every one a P (layout mode will tell
    headings apart), and the lines (blocks_and_lines)."""
    if len(joined.order) == 0:
        return (), ()
    starts = run_starts(geometric_block_starts(table, joined))
    return blocks_and_lines(table, joined, starts, label_fields(np.zeros(len(starts), dtype=np.int64), (_PARAGRAPH,)))


_PARAGRAPH = BlockLabel()
