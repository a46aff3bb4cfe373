"""Blocks, labels and headings of the page in layout order.

Blocks follow ``blocks.block_break`` (paragraph gap, move back up,
font-size change, all at a line break), plus a first-line indent and every
leaf change. A block is labelled H, with level 1 for the largest heading size
of the page, when its glyphs are clearly larger than the body text (the most
common size by glyph count), it spans few lines, and its size is rare on the
page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import ModuleType
from typing import NamedTuple

import numpy as np

from ragprep.extract.blocks import FONT_SIZE_CHANGE, PARAGRAPH_GAP, BlockLabel, run_starts
from ragprep.extract.config import ExtractConfig
from ragprep.extract.geometric import MAX_VALUE, SAME_DIRECTION, reading_direction
from ragprep.extract.glyphs import GlyphTable, rows_at
from ragprep.extract.layout.params import FLUSH, HEADING_LINES, HEADING_PAGE_SHARE, HEADING_SHARE, HEADING_SIZE, INDENT_MAX, INDENT_MIN, MAX_HEADING_LEVEL
from ragprep.extract.layout.kernels import block_starts, heading_blocks
from ragprep.extract.layout.units import Moves, line_moves, reads_rtl, reordered_moves
from ragprep.extract.native import compiled_layout


_PARAGRAPH = BlockLabel(struct_type="P", struct_path=("P",))
# The heading labels by level (1 to MAX_HEADING_LEVEL), made once.
_HEADINGS = tuple(BlockLabel(struct_type="H", struct_path=("H",), heading_level=level) for level in range(1, MAX_HEADING_LEVEL + 1))


class BlockLabels(NamedTuple):
    """The labels of a reading's blocks: per block (the run from each block
    start, blocks.run_starts) the index of its label in `labels`."""

    of_block: np.ndarray  # int64, one per block
    labels: list[BlockLabel]


@dataclass(frozen=True)
class Ordering:
    """A page's reading order and what labelling its blocks needs."""

    order: np.ndarray  # glyph indices in reading order
    block_start: np.ndarray  # per position: a new block starts here
    line_break: np.ndarray  # per position: a new line starts here (the join rule)
    along: np.ndarray | None  # the page's writing direction, when known


def labelled_reading(
    table: GlyphTable,
    config: ExtractConfig,
    order: np.ndarray,
    forced: np.ndarray | None,
    moves: Moves | None,
    rtl: bool | None = None,
    along: np.ndarray | None = None,
) -> tuple[Ordering, BlockLabels]:
    """with_blocks of `order` and its `forced` starts (`moves`, its line
    moves, measured where None), and the labels of the blocks it starts
    (block_labels, per block): reordered_reading of `order` as it is."""
    return reordered_reading(table, config, (order, moves or line_moves(table, order, config), None), forced, rtl, along)


def reordered_reading(
    table: GlyphTable,
    config: ExtractConfig,
    reading: tuple[np.ndarray, Moves, np.ndarray | None],
    forced: np.ndarray | None,
    rtl: bool | None = None,
    along: np.ndarray | None = None,
) -> tuple[Ordering, BlockLabels]:
    """labelled_reading of stream[positions] (`reading`: a stream, its line
    moves and the positions, None for the stream as it is), its moves those
    of the stream reordered (units.reordered_moves: only the pairs the
    positions bring together measured anew). One call of
    extract/_layout.c's block_reading where the kernels are built; the
    reference is those steps in turn (reordered_moves, with_blocks,
    block_labels)."""
    stream, moves, positions = reading
    lib = compiled_layout()
    if lib is None:
        if positions is not None:
            stream, moves = stream[positions], reordered_moves(table, stream, moves, positions, config)
        ordering = with_blocks(table, (stream, forced), moves, rtl, along)
    else:
        rtl = reads_rtl(lib, table, stream if positions is None else stream[positions]) if rtl is None else rtl
        ordering, labelled = _compiled_reading(lib, table, reading, (forced, rtl, along), config)
        if labelled is not None:
            return ordering, labelled
    # The reference, or headings the kernel leaves to it.
    index, labels = block_labels(table, ordering)
    return ordering, BlockLabels(index[run_starts(ordering.block_start)] if len(index) else index, labels)


def _compiled_reading(
    lib: ModuleType,
    table: GlyphTable,
    reading: tuple[np.ndarray, Moves, np.ndarray | None],
    page: tuple[np.ndarray | None, bool, np.ndarray | None],
    config: ExtractConfig,
) -> tuple[Ordering, BlockLabels | None]:
    """reordered_reading of `reading` (a stream, its moves, the positions)
    in one call of _layout.c's block_reading (`page`: the forced starts,
    whether the page reads right to left, its writing direction): the
    Ordering and its blocks' labels, None where the kernel leaves them to
    the reference."""
    stream, moves, positions = reading
    forced, rtl, along = page
    columns = (table.origin, table.own_end, table.direction, table.height, table.font_size)
    order, line_break, block_start, label, levels = lib.block_reading(
        *map(np.ascontiguousarray, columns), np.ascontiguousarray(stream, dtype=np.int64), np.ascontiguousarray(moves.line_break),
        *(np.ascontiguousarray(c, dtype=np.float64) for c in (moves.across, moves.gap, moves.height)),
        None if positions is None else np.ascontiguousarray(positions, dtype=np.int64),
        None if forced is None else np.ascontiguousarray(forced, dtype=bool),
        rtl, (PARAGRAPH_GAP, FONT_SIZE_CHANGE, INDENT_MIN, INDENT_MAX, FLUSH),
        (HEADING_SIZE, HEADING_SHARE, HEADING_LINES, HEADING_PAGE_SHARE, float(MAX_VALUE)),
        *((math.nan, math.nan) if along is None else (float(along[0]), float(along[1]))), SAME_DIRECTION, config.line_break_ratio,
    )  # fmt: skip
    starts = np.frombuffer(block_start, np.bool_)
    labelled = None
    if levels >= 0:
        index = np.zeros(np.count_nonzero(starts), dtype=np.int64) if label is None else np.frombuffer(label, np.int64)
        labelled = BlockLabels(index, _labels(levels))
    if order is None:
        return Ordering(stream, starts, moves.line_break, along), labelled
    return Ordering(np.frombuffer(order, np.int64), starts, np.frombuffer(line_break, np.bool_), along), labelled


def with_blocks(
    table: GlyphTable, reading: tuple[np.ndarray, np.ndarray | None], moves: Moves, rtl: bool | None, along: np.ndarray | None
) -> Ordering:
    """Block starts of `reading`'s order (`moves` are its line moves, `rtl`
    whether the page reads right to left, `along` its writing direction,
    when known): every start `reading` forces, and where geometry starts a
    block (blocks.block_break, the rule every mode applies: a paragraph gap,
    a move back up, a font-size change, all at a line break) or indents a
    paragraph's first line."""
    order, forced = reading
    lib = compiled_layout()
    thresholds = (PARAGRAPH_GAP, FONT_SIZE_CHANGE, INDENT_MIN, INDENT_MAX, FLUSH)
    block_start, indented = block_starts(lib, table, order, (moves.line_break, moves.across, moves.height), thresholds)
    # A first line's indent: in left-to-right text (right-to-left pages are
    # ragged on the left; the rule stays off there).
    if indented is not None and not (reads_rtl(lib, table, order) if rtl is None else rtl):
        block_start = block_start | indented
    if forced is not None:
        # A leaf change is a line break in every layout the cut accepts (the
        # next column starts higher up); forcing it costs nothing elsewhere.
        block_start = block_start | forced
    return Ordering(order, block_start, moves.line_break, along)


def block_labels(table: GlyphTable, ordering: Ordering) -> tuple[np.ndarray, list[BlockLabel]]:
    """Per position the index of its block's label: P, or H with a level when
    the block's glyphs are clearly larger than the body text (the page's most
    common font size by glyph count, to the half point); level 1 is the
    largest heading size."""
    order, block_start = ordering.order, ordering.block_start
    n = len(order)
    paragraphs = np.zeros(n, dtype=np.int64), [_PARAGRAPH]
    if n == 0:
        return paragraphs
    thresholds = (HEADING_SIZE, HEADING_SHARE, HEADING_LINES, HEADING_PAGE_SHARE)
    lib = compiled_layout()
    if lib is not None:
        found = _compiled_block_labels(lib, table, ordering, thresholds)
        if isinstance(found, tuple):
            index, levels = found
            return np.frombuffer(index, dtype=np.int64), _labels(levels)
        if found == 0:
            return paragraphs
    starts, length, heading, block_size = heading_blocks(lib, table.font_size[order], block_start, ordering.line_break, thresholds)
    if heading.any():
        # Text across the page's direction (an arXiv stamp up the margin) is
        # no heading, however large.
        along = reading_direction(table, order) if ordering.along is None else ordering.along
        heading = heading.copy()
        heading[heading] = rows_at(table.direction, order[starts[heading]]) @ along >= SAME_DIRECTION
    if not heading.any():
        return paragraphs
    sizes = np.unique(block_size[heading])[::-1]  # largest first
    block_label = np.where(heading, np.searchsorted(-sizes, -block_size) + 1, 0)
    return np.repeat(block_label, length), _labels(len(sizes))


def _labels(sizes: int) -> list[BlockLabel]:
    """The labels of a page with `sizes` heading sizes: P, then per size,
    largest first, H of its level (1 to MAX_HEADING_LEVEL, the smaller
    sizes past it all at the last level)."""
    return [_PARAGRAPH] + [_HEADINGS[min(level, MAX_HEADING_LEVEL) - 1] for level in range(1, sizes + 1)]


def _compiled_block_labels(
    lib: ModuleType, table: GlyphTable, ordering: Ordering, thresholds: tuple[float, float, int, float]
) -> tuple[bytes, int] | int | None:
    """block_labels in one call of extract/_layout.c's block_labels on a
    page read along (1, 0) (heading_blocks' rule, the headings' direction,
    their sizes' ranks, per position its label's index): (label indices as
    int64 bytes, heading sizes), 0 where no block is a heading; None where
    the reference decides (headings on a page read another way, or whose
    direction is not known yet)."""
    along = (math.nan, math.nan) if ordering.along is None else (float(ordering.along[0]), float(ordering.along[1]))
    found: tuple[bytes, int] | int | None = lib.block_labels(
        np.ascontiguousarray(table.font_size[ordering.order], dtype=np.float64), np.ascontiguousarray(ordering.block_start),
        np.ascontiguousarray(ordering.line_break), *thresholds, float(MAX_VALUE),
        np.ascontiguousarray(table.direction), np.ascontiguousarray(ordering.order, dtype=np.int64), *along, SAME_DIRECTION,
    )  # fmt: skip
    return found
