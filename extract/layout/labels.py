"""Blocks, labels and headings of the page in layout order.

Blocks follow ``blocks.block_break`` (paragraph gap, move back up,
font-size change, all at a line break), plus a first-line indent and every
leaf change. A block is labelled H, with level 1 for the largest heading size
of the page, when its glyphs are clearly larger than the body text (the most
common size by glyph count), it spans few lines, and its size is rare on the
page.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragprep.extract.blocks import BlockLabel, block_break
from ragprep.extract.config import ExtractConfig
from ragprep.extract.geometric import MAX_VALUE, SAME_DIRECTION, reading_direction
from ragprep.extract.glyphs import GlyphTable, rows_at
from ragprep.extract.layout.params import FLUSH, HEADING_LINES, HEADING_PAGE_SHARE, HEADING_SHARE, HEADING_SIZE, INDENT_MAX, INDENT_MIN, MAX_HEADING_LEVEL
from ragprep.extract.layout.units import Moves, line_moves, reads_rtl


_PARAGRAPH = BlockLabel(struct_type="P", struct_path=("P",))


@dataclass(frozen=True)
class Ordering:
    """A page's reading order and what labelling its blocks needs."""

    order: np.ndarray  # glyph indices in reading order
    block_start: np.ndarray  # per position: a new block starts here
    line_break: np.ndarray  # per position: a new line starts here (the join rule)
    font_size: np.ndarray  # per position
    along: np.ndarray | None  # the page's writing direction, when known


def with_blocks(
    table: GlyphTable,
    config: ExtractConfig,
    order: np.ndarray,
    forced: np.ndarray | None,
    moves: Moves | None,
    rtl: bool | None = None,
    along: np.ndarray | None = None,
) -> Ordering:
    """Block starts of `order` (`moves` are its line moves, `rtl` whether the
    page reads right to left, `along` its writing direction, when known): every
    forced start, and where geometry starts a block (blocks.block_break, the
    rule every mode applies: a paragraph gap, a move back up, a font-size
    change, all at a line break) or indents a paragraph's first line."""
    n = len(order)
    moves = moves or line_moves(table, order, config)
    block_start = np.zeros(n, dtype=bool)
    size = table.font_size[order]
    if n:
        block_start[0] = True
    if n > 1:
        block_start[1:] = block_break(moves.line_break[1:], moves.across, moves.height, size[:-1], size[1:])
        block_start |= _indented_lines(table, order, moves.line_break, rtl)
    if forced is not None:
        # A leaf change is a line break in every layout the cut accepts (the
        # next column starts higher up); forcing it costs nothing elsewhere.
        block_start |= forced
    return Ordering(order, block_start, moves.line_break, size, along)


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
    left = np.einsum("ij,ij->i", rows_at(table.origin, first), rows_at(table.direction, first))
    indent = left[1:-1] - left[:-2]
    flush = np.abs(left[2:] - left[:-2])
    h = table.height[first[1:-1]]
    first_line = (indent > INDENT_MIN * h) & (indent < INDENT_MAX * h) & (flush < FLUSH * h)
    if first_line.any() and not (reads_rtl(table, order) if rtl is None else rtl):
        result[line_starts[1:-1][first_line]] = True
    return result


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
    # Sizes in half points, clipped to the histogram's range.
    half = np.rint(ordering.font_size * 2).astype(np.int64)
    np.clip(half, 0, 2 * MAX_VALUE, out=half)
    glyphs_at = np.bincount(half)
    body = int(np.argmax(glyphs_at))
    starts = np.flatnonzero(block_start)
    length = np.diff(np.concatenate([starts, [n]]))
    large = half >= HEADING_SIZE * body
    share = np.add.reduceat(large, starts, dtype=np.int64) / length
    lines = np.add.reduceat(ordering.line_break, starts, dtype=np.int64) + ~ordering.line_break[starts]
    heading = (share >= HEADING_SHARE) & (lines <= HEADING_LINES) & (length >= 2) & (body > 0)
    if not heading.any():
        return paragraphs
    block_size = np.maximum.reduceat(half * large, starts)
    # Headings are rare: a size that sets a good part of the page is text
    # (the body of a page whose footnotes outweigh it, say), not a heading.
    heading &= glyphs_at[block_size] <= HEADING_PAGE_SHARE * n
    if heading.any():
        # Text across the page's direction (an arXiv stamp up the margin) is
        # no heading, however large.
        along = reading_direction(table, order) if ordering.along is None else ordering.along
        heading[heading] = rows_at(table.direction, order[starts[heading]]) @ along >= SAME_DIRECTION
    if not heading.any():
        return paragraphs
    sizes = np.unique(block_size[heading])[::-1]  # largest first
    levels = np.minimum(np.arange(1, len(sizes) + 1), MAX_HEADING_LEVEL)
    labels = [_PARAGRAPH] + [
        BlockLabel(struct_type="H", struct_path=("H",), heading_level=int(level)) for level in levels
    ]
    block_label = np.where(heading, np.searchsorted(-sizes, -block_size) + 1, 0)
    return np.repeat(block_label, length), labels
