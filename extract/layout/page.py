"""The sequence of layout mode's rules for one page (see the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ragprep.extract.blocks import build_blocks
from ragprep.extract.config import ExtractConfig
from ragprep.extract.geometric import join, stream_order
from ragprep.extract.glyphs import GlyphTable
from ragprep.extract.reading import PageReading, unmarked_glyphs
from ragprep.extract.layout.cut import read_region
from ragprep.extract.layout.labels import BlockLabels, Ordering, labelled_reading, reordered_reading
from ragprep.extract.layout.leaves import emit, head_note_last, leaf_order, margin_note_after_its_block
from ragprep.extract.layout.lines import glyphs_along, line_order
from ragprep.extract.layout.units import Moves, Page, margin_text, page_units


def layout_order(
    table: GlyphTable, config: ExtractConfig, exclude: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Glyph indices in column-aware reading order (a permutation of
    ``text_glyphs(table)``, less the glyphs `exclude` flags) and, per
    position, whether a new block starts there."""
    ordering, _ = _layout(table, config, exclude)
    return ordering.order, ordering.block_start


def read_layout(table: GlyphTable, config: ExtractConfig, exclude: np.ndarray | None = None) -> PageReading:
    """The page in layout order: text joined by the geometric rules, a forced
    line break at every block start, blocks labelled P or H. Glyphs flagged
    in `exclude` (one flag per table row: the running headers and footers
    the document pass marked, see running.py) take no part at all, as if the
    page had not painted them."""
    ordering, labelled = _layout(table, config, exclude)
    joined = join(table, ordering.order, config, break_before=ordering.block_start)
    # join() sorts glyphs only inside right-to-left lines and every block
    # starts a line, so block starts and labels keep their positions.
    blocks, lines = build_blocks(table, joined, ordering.block_start, *labelled)
    return PageReading(joined, blocks, unmarked_glyphs(table), lines)


@dataclass(frozen=True)
class LayoutPicture:
    """What layout mode saw on a page, for drawing it (``ragprep layout --draw``).

    Boxes are in the page's reading frame (``along`` and its normal, which is
    user space on an upright page): x0, y0, x1, y1 per row."""

    along: np.ndarray  # the page's writing direction
    line_box: np.ndarray  # per line, in reading order
    line_leaf: np.ndarray  # per line, the index of its leaf
    line_text: tuple[str, ...]  # per line, its glyphs' text along the line
    split: bool  # was a cut accepted (else the page is one leaf)

    def to_page(self, box: np.ndarray) -> np.ndarray:
        """Corners (n, 4, 2) in user space of frame boxes (n, 4)."""
        x0, y0, x1, y1 = box.T
        corners = np.stack([np.stack([x, y], axis=1) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))], axis=1)
        normal = np.array([-self.along[1], self.along[0]])
        on_page: np.ndarray = corners[..., :1] * self.along + corners[..., 1:] * normal
        return on_page


def layout_picture(table: GlyphTable, config: ExtractConfig, exclude: np.ndarray | None = None) -> LayoutPicture | None:
    """The lines and leaves of the page in reading order; None on pages the
    rules do not read (fewer than two glyphs, vertical writing)."""
    found = _leaves(table, config, exclude)
    if found is None:
        return None
    _, _, page, leaves, split = found
    order = np.concatenate(leaves) if leaves else np.zeros(0, dtype=np.int64)
    leaf = np.repeat(np.arange(len(leaves)), [len(part) for part in leaves])
    box = np.column_stack([page.x0[order], page.y0[order], page.x1[order], page.y1[order]])
    texts = table.text[page.stream].tolist()
    line_text = tuple("".join(texts[page.start[u] : page.end[u]]) for u in order.tolist())
    return LayoutPicture(page.along, box, leaf, line_text, split)


class Measured(NamedTuple):
    """The moves of the stream as first read, and the positions of that
    stream the page's stream holds now (None: the same): the moves of
    any later order are taken from these once (labels.reordered_reading),
    not reordered at every step, since each pair's measurement is that of
    its two glyphs whatever order brought them together."""

    stream: np.ndarray
    moves: Moves
    positions: np.ndarray | None

    def reading(self, positions: np.ndarray) -> tuple[np.ndarray, Moves, np.ndarray]:
        """The page's stream at `positions` as labels.reordered_reading
        takes it: the stream as first read, its moves, and the positions
        of that stream."""
        return self.stream, self.moves, positions if self.positions is None else self.positions[positions]


def _leaves(
    table: GlyphTable, config: ExtractConfig, exclude: np.ndarray | None
) -> tuple[np.ndarray, Measured, Page, list[np.ndarray], bool] | None:
    """Rules 1 to 5 of the package docstring: the stream in line order, the
    moves measured on the way to it (Measured), the page of lines, its
    leaves each in reading order, and whether a cut was accepted. None where layout keeps stream order outright:
    fewer than two glyphs, or vertical writing (stream_order already reads
    its columns, §9.7.4.3)."""
    stream = stream_order(table, config)
    if exclude is not None and exclude.any():
        stream = stream[~exclude[stream]]
    if len(stream) < 2 or (table.wmode.any() and (table.wmode[stream] == 1).any()):
        return None
    moves, page, backwards, lines_apart = page_units(table, stream, config)
    first, moved = stream, None
    # A visit of the stream painted backwards along its line reads forwards.
    along = glyphs_along(page, backwards)
    if along is not None:
        moved, stream = along, stream[along]
        page = Page(table, stream, page.start, page.carried(along))
    # Pieces of one line, wherever the stream painted them, become one unit
    # read along the line; the page's units are its lines from here on
    # (measured already where no unit was painted backwards: page_units).
    lines = None if lines_apart else line_order(page)
    if lines is not None:
        canonical, line_start = lines
        moved, stream = (canonical if moved is None else moved[canonical]), stream[canonical]
        page = Page(table, stream, line_start, page.carried(canonical))
    leaves, split = read_region(page, np.flatnonzero(page.placed), 0)
    if not split:
        leaves = [np.flatnonzero(page.placed)]
    ordered = head_note_last(page, [margin_note_after_its_block(page, leaf_order(page, leaf)) for leaf in leaves])
    before, after = margin_text(page)
    if len(before) or len(after):
        ordered = [leaf for leaf in (before, *ordered, after) if len(leaf)]
        split = True
    return stream, Measured(first, moves, moved), page, ordered, split


def _layout(table: GlyphTable, config: ExtractConfig, exclude: np.ndarray | None = None) -> tuple[Ordering, BlockLabels]:
    """The page's leaves emitted in reading order, with its blocks and their
    labels; stream order itself where nothing moved."""
    found = _leaves(table, config, exclude)
    if found is None:
        stream = stream_order(table, config)
        if exclude is not None and exclude.any():
            stream = stream[~exclude[stream]]
        return labelled_reading(table, config, stream, None, None)
    _, measured, page, leaves, split = found
    # The emitted order and its moves, taken from the stream's as first
    # read in the call that finds its blocks (stream order itself where
    # nothing moved: every pair is the stream's own).
    positions, new_leaf = emit(page, leaves)
    return reordered_reading(table, config, measured.reading(positions), new_leaf if split else None, page.rtl, page.along)
