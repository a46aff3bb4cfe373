"""Reading orders: which glyphs of a page become text, in which order, in which blocks.

- ``read_stream``: visible glyphs in content-stream order (vertical columns
  right to left), geometric blocks.
- ``read_structure``: the tagged-PDF reading (ISO 32000-1 §14.8.2.3): the
  page's glyphs bucketed by (stream, MCID) and emitted in the order the
  structure tree references them; one block per element that owns content; a
  new block element starts a new line. Glyphs the tree does not cover (no
  MCID, or an MCID it never references) follow as a geometric tail: their count
  is ``untagged_glyphs``. Artifacts (§14.8.2.2) are left out unless configured.

Both produce a ``PageReading``; ``document.py`` picks between them (auto mode).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np

from ragprep.extract.blocks import (
    Block,
    TextLine,
    blocks_and_lines,
    geometric_block_starts,
    geometric_blocks,
    run_boxes,
    run_mcids,
)
from ragprep.extract.config import ExtractConfig
from ragprep.extract.geometric import JoinedText, join, stream_order, text_glyphs
from ragprep.extract.glyphs import NO_MCID, GlyphTable, ImagePlacement
from ragprep.extract.native import compiled_core
from ragprep.extract.rows import frozen_instance
from ragprep.extract.structure import StructTree
from ragprep.extract.structure_columns import PageContent, PageRefs, content_keys
from ragprep.extract.tables import NO_CELLS, CellContents, TableGrids


@dataclass(frozen=True)
class PageReading:
    """Text of one page in one reading order."""

    joined: JoinedText
    blocks: tuple[Block, ...]
    # Visible, non-artifact glyphs the reading did not place by structure.
    untagged_glyphs: int
    lines: tuple[TextLine, ...]
    # Table cells (TH/TD) the page shows, with their spans in `joined.text`.
    cells: CellContents = NO_CELLS


@dataclass(frozen=True)
class Unavailable:
    """The reading does not apply to this page, and why."""

    reason: str


def unmarked_glyphs(table: GlyphTable) -> int:
    """Visible, non-artifact glyphs outside any marked-content MCID: the
    untagged count of every reading that does not consult the structure."""
    return int(np.count_nonzero(table.visible & ~table.artifact & (table.mcid == NO_MCID)))


def read_stream(table: GlyphTable, config: ExtractConfig) -> PageReading:
    joined = join(table, stream_order(table, config), config)
    blocks, lines = geometric_blocks(table, joined)
    return PageReading(joined, blocks, unmarked_glyphs(table), lines)


def read_structure(
    table: GlyphTable,
    tree: StructTree | None,
    page_key: tuple[int, int],
    has_struct_parents: Callable[[], bool],
    config: ExtractConfig,
    images: tuple[ImagePlacement, ...] = (),
    grids: TableGrids | None = None,
) -> PageReading | Unavailable:
    if tree is None:
        return Unavailable("the document has no structure tree (/StructTreeRoot)")
    candidates = text_glyphs(table)
    content = tree.page_content_rows(page_key)
    if content.lo == content.hi:
        reason = _unreferenced(table, candidates, has_struct_parents)
        if reason is not None:
            return Unavailable(reason)
    placed = _placement(table, tree, content, candidates, config, images)
    table = placed.table
    joined = join(table, placed.order, config, break_before=placed.starts)
    blocks, lines, runs = _owned_blocks(table, tree, joined, placed)
    cells = NO_CELLS
    if grids is not None and grids.shows_cells(page_key):  # a page whose content lies in no cell shows none
        cells = _cell_contents(table, joined, placed, _BlockRuns(*runs, blocks), grids)
    return PageReading(joined, blocks, placed.untagged, lines, cells)


def _unreferenced(table: GlyphTable, candidates: np.ndarray, has_struct_parents: Callable[[], bool]) -> str | None:
    """Why a page the tree references nothing on has no structure reading;
    None when it shows nothing but artifacts (an empty reading)."""
    if (table.mcid[candidates] != NO_MCID).any() and not has_struct_parents():
        return "the page's marked content has no /StructParents and the structure tree never references it"
    if (~table.artifact[candidates]).any():
        return "the structure tree references no content on this page"
    return None


class _Placement(NamedTuple):
    """Where the structure tree puts a page's text glyphs: read_structure's
    steps before the join."""

    table: GlyphTable  # the page's, with /ActualText applied and /Alt rows added
    order: np.ndarray  # the glyphs the tree places, in its order; then the tail, in stream order
    tagged: int  # how many of `order` the tree places
    starts: np.ndarray  # per position of `order`: a new block owner starts there, on a new line
    untagged: int  # non-artifact glyphs of the tail
    # The placed glyphs' runs of one block owner: where each begins in `order` (0, then
    # where `starts` says, before `tagged`) and its owner (int64 both).
    runs: tuple[np.ndarray, np.ndarray]
    # The runs' labels (_run_labels) where the compiled placement read them
    # with the runs: a page with no tail; else None.
    labels: dict[str, list[Any]] | None = None

    def placed_owners(self) -> np.ndarray:
        """Per placed glyph (order[:tagged]), its block owner (the nearest
        block element, StructTree.block_owners): its run's."""
        starts, owners = self.runs
        return np.repeat(owners, np.diff(starts, append=self.tagged))

    def owner_of_glyph(self) -> np.ndarray:
        """Per table row, its block owner; -1 off the tree. Made where asked
        for: a page join kept in the tree's order reads its blocks off `starts`."""
        owner = np.full(len(self.table), -1, dtype=np.int64)
        owner[self.order[: self.tagged]] = self.placed_owners()
        return owner


def _placement(
    table: GlyphTable,
    tree: StructTree,
    content: PageContent,
    candidates: np.ndarray,
    config: ExtractConfig,
    images: tuple[ImagePlacement, ...],
) -> _Placement:
    """The compiled placement where the core is built and no Figure adds
    /Alt rows: one call (_core.structure_order) looks the page's glyphs up
    among its content rows, places them, cuts the placed ones into block runs
    and, on a page with no tail, labels the runs. Else the reference."""
    core = compiled_core()
    if core is None or (config.figure_alt_in_text and images):
        return _reference_placement(table, tree, content.refs(), candidates, config, images)
    rows = len(candidates)
    order, starts = np.empty(rows, dtype=np.int64), np.empty(rows, dtype=bool)
    # The placed glyphs' block runs: a ref's glyphs are one stretch of one element, so at most one run a ref.
    runs = np.empty((2, content.hi - content.lo), dtype=np.int64)
    columns = [np.ascontiguousarray(c, dtype=np.int64) for c in (candidates, table.mcid_stream, table.mcid)]
    kept, tagged, untagged, replaced, count, labels = core.structure_order(
        *columns, np.ascontiguousarray(table.artifact, dtype=bool), config.include_artifacts, NO_MCID,
        content.key, content.element, content.lo, content.hi, tree.block_owners, tree.actual_text_owners,
        tree.columns.actual_text, order, starts, runs[0], runs[1], (*tree.label_columns, _TAIL_VALUES),
    )  # fmt: skip
    if replaced is not None:  # an /ActualText replaced its elements' text (rare): its carriers' rows get it
        table = _with_texts(table, *replaced)
    run_labels = None if labels is None else dict(zip(_LABEL_NAMES, labels, strict=True))
    return _Placement(table, order[:kept], tagged, starts[:kept], untagged, (runs[0, :count], runs[1, :count]), run_labels)


def _reference_placement(
    table: GlyphTable,
    tree: StructTree,
    refs: PageRefs,
    candidates: np.ndarray,
    config: ExtractConfig,
    images: tuple[ImagePlacement, ...],
) -> _Placement:
    """_placement in numpy steps: artifacts left out, the tree's order, each
    placed glyph's element, Figure /Alt rows, /ActualText, block owners."""
    marked = table.mcid[candidates] != NO_MCID
    if not config.include_artifacts:
        keep = ~table.artifact[candidates]
        candidates, marked = candidates[keep], marked[keep]
    tagged_glyphs, tagged_rank, tail = _tree_order(table, candidates, marked, refs)
    untagged = int((~table.artifact[tail]).sum())
    element = refs.element[tagged_rank] if len(tagged_rank) else np.zeros(0, dtype=np.int64)
    if config.figure_alt_in_text and images:
        table, tagged_glyphs, tagged_rank, element = _add_figure_alt_rows(
            table, tree, refs, images, tagged_glyphs, tagged_rank, element
        )
    table, tagged_glyphs, element = _apply_actual_text(table, tree, tagged_glyphs, element)
    return _owners(table, tree, tagged_glyphs, element, tail, untagged)


def _owners(
    table: GlyphTable, tree: StructTree, glyphs: np.ndarray, element: np.ndarray, tail: np.ndarray, untagged: int
) -> _Placement:
    """The placement of `glyphs` (owned by `element`) then `tail`: each placed
    glyph's owner is the nearest block-level element; the tail's is -1."""
    order = np.concatenate([glyphs, tail])
    placed_owner = tree.block_owners[element]
    owner = np.concatenate([placed_owner, np.full(len(tail), -1, dtype=np.int64)])
    starts = _owner_changes(owner)
    starts[:1] = False  # the first glyph starts the page, not a new line
    run_at = np.flatnonzero(_owner_changes(placed_owner))
    return _Placement(table, order, len(glyphs), starts, untagged, (run_at, placed_owner[run_at]))


def _tree_order(
    table: GlyphTable, candidates: np.ndarray, marked: np.ndarray, refs: PageRefs
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(glyphs the tree places, in its order; their ref's rank; the rest in
    stream order). The rank of a glyph is that of its (stream, MCID) among
    the page's refs; -1 when the tree does not reference it on this page."""
    ref_keys = refs.key
    glyph_keys = content_keys(table.mcid_stream[candidates], np.where(marked, table.mcid[candidates], 0))
    rank = np.full(len(candidates), -1, dtype=np.int64)
    if len(ref_keys):
        sorter = np.argsort(ref_keys, kind="stable")
        position = np.searchsorted(ref_keys, glyph_keys, sorter=sorter)
        position = np.minimum(position, len(ref_keys) - 1)
        found = marked & (ref_keys[sorter[position]] == glyph_keys)
        rank[found] = sorter[position[found]]
    tagged = rank >= 0
    # Stable sort: glyphs of one marked-content sequence keep stream order.
    by_rank = np.argsort(rank[tagged], kind="stable")
    return candidates[tagged][by_rank], rank[tagged][by_rank], candidates[~tagged]


def _owned_blocks(
    table: GlyphTable, tree: StructTree, joined: JoinedText, placed: _Placement
) -> tuple[tuple[Block, ...], tuple[TextLine, ...], tuple[np.ndarray, np.ndarray]]:
    """One block per run of glyphs of one owning element (the tail's split
    by geometry), labelled by its element; the lines (blocks_and_lines); and
    the runs: each block's first position and owner (-1: the tail)."""
    if not len(joined.order):
        return (), (), (_NO_ROWS, _NO_ROWS)
    # join() may reorder glyphs inside right-to-left lines (a new order): then read owners again.
    owner_of_glyph = None
    if joined.order is placed.order:
        runs = _placed_runs(placed)
        labels = placed.labels
    else:
        owner_of_glyph = placed.owner_of_glyph()
        runs = _owner_runs(owner_of_glyph, joined.order)
        labels = None
    if runs is not None:  # a page the tree covers whole needs no geometric block starts
        starts, owners = runs
        if labels is None:
            labels = _run_labels(tree, owners)
        return (*blocks_and_lines(table, joined, starts, labels), runs)
    if owner_of_glyph is None:  # the placement's own order, with a tail
        owner_of_glyph = placed.owner_of_glyph()
    owner = owner_of_glyph[joined.order]
    tail = owner == -1  # geometry splits only the tail's runs
    new_block = _owner_changes(owner) | (tail & geometric_block_starts(table, joined))
    # A run's label is its owner's, read at the run's first glyph (the first glyph starts a run).
    starts = np.flatnonzero(new_block)
    owners = owner[starts]
    return (*blocks_and_lines(table, joined, starts, _run_labels(tree, owners)), (starts, owners))


_NO_ROWS = np.zeros(0, dtype=np.int64)


def _placed_runs(placed: _Placement) -> tuple[np.ndarray, np.ndarray] | None:
    """_owner_runs of the placement's own order: its placed glyphs' runs
    (made with the placement); None where the tail's glyphs follow them."""
    return None if placed.tagged < len(placed.order) else placed.runs


def _owner_runs(owner_of_glyph: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The runs of one block owner over the emitted glyphs at `order`: their
    first positions and owners; None when some glyph is the tail's (owner -1).
    One compiled call (_core.owner_runs) where the core is built; else the reference."""
    core = compiled_core()
    if core is None:
        return _reference_owner_runs(owner_of_glyph, order)
    starts, owners = np.empty(len(order), dtype=np.int64), np.empty(len(order), dtype=np.int64)
    runs, tail = core.owner_runs(
        np.ascontiguousarray(owner_of_glyph, dtype=np.int64), np.ascontiguousarray(order, dtype=np.int64), starts, owners
    )
    return None if tail else (starts[:runs], owners[:runs])


def _reference_owner_runs(owner_of_glyph: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """_owner_runs in numpy steps: the owners in order, where they change."""
    owner = owner_of_glyph[order]
    if (owner == -1).any():
        return None
    starts = np.flatnonzero(_owner_changes(owner))
    return starts, owner[starts]


def _owner_changes(owner: np.ndarray) -> np.ndarray:
    """Per emitted glyph: is its owner not the previous glyph's (the first glyph's is not)?"""
    changes = np.ones(len(owner), dtype=bool)
    changes[1:] = owner[1:] != owner[:-1]
    return changes


class _BlockRuns(NamedTuple):
    """A page's blocks and their runs over the emitted glyphs (_owned_blocks)."""

    starts: np.ndarray  # each block's first position in the joined order
    owners: np.ndarray  # each block's owning element (-1: the tail)
    blocks: tuple[Block, ...]


# The Block fields a cell of one block takes as they are (_core.block_cells):
# its box and MCIDs, its span's ints (the cell's span is the block's) and
# its text (the cell's text where cell_text keeps the slice).
_BLOCK_MEMBERS = ("bbox", "mcids", "char_start", "char_end", "text")


def _cell_contents(table: GlyphTable, joined: JoinedText, placed: _Placement, runs: _BlockRuns, grids: TableGrids) -> CellContents:
    """Per TH/TD the page shows: the span of its glyphs in the page text,
    their box and MCIDs, as columns (cells by element index). A cell's content
    is one run of the structure order (depth first), so its span holds its
    text and nothing else. Where the core is built, one compiled call reads
    them off the page's blocks (_core.block_cells): TH, TD and Table are block
    types, so a block lies in one cell, its owner's, and most cells are one
    block, whose box and MCIDs the cell takes. Else the reference, over the
    placed glyphs."""
    core = compiled_core()
    if core is None:
        return _reference_cell_contents(table, joined, placed.order[: placed.tagged], placed.placed_owners(), grids)
    columns = core.block_cells(
        grids.cell_of, *(np.ascontiguousarray(c, dtype=np.int64) for c in (runs.owners, runs.starts, joined.order)),
        *(np.ascontiguousarray(c, dtype=np.int64) for c in (joined.char_start, joined.char_end)),
        np.ascontiguousarray(table.quad, dtype=np.float64), np.ascontiguousarray(table.mcid, dtype=np.int64),
        runs.blocks, _BLOCK_MEMBERS,
    )  # fmt: skip
    return NO_CELLS if columns is None else CellContents(*columns)


def _reference_cell_contents(
    table: GlyphTable, joined: JoinedText, glyphs: np.ndarray, owners: np.ndarray, grids: TableGrids
) -> CellContents:
    """_cell_contents in numpy steps: each emitted glyph's cell (its block
    owner's, `owners` per placed glyph of `glyphs`: TH, TD and Table are
    block types, so an element's cell is its block owner's), its positions
    sorted by cell (stably), then per cell its extremes, box and MCIDs."""
    cell_of_placed = grids.cell_of[owners]
    if not len(cell_of_placed) or cell_of_placed.max() < 0:
        return NO_CELLS  # no glyph of the page in a cell: no per-glyph column to fill
    cell_of_glyph = np.full(len(table), -1, dtype=np.int64)
    cell_of_glyph[glyphs] = cell_of_placed
    cell = cell_of_glyph[joined.order]
    positions = np.flatnonzero(cell >= 0)
    if not len(positions):
        return NO_CELLS
    positions = positions[np.argsort(cell[positions], kind="stable")]
    # Sorted by cell: a cell's first position is where the cell changes (np.unique's keys, no second sort).
    sorted_cells = cell[positions]
    new_cell = np.ones(len(positions), dtype=bool)
    new_cell[1:] = sorted_cells[1:] != sorted_cells[:-1]
    firsts = np.flatnonzero(new_cell)
    starts = np.minimum.reduceat(joined.char_start[positions], firsts).tolist()
    ends = np.maximum.reduceat(joined.char_end[positions], firsts).tolist()
    emitted = joined.order[positions]
    boxes = run_boxes(table, emitted, firsts)
    return CellContents(sorted_cells[firsts].tolist(), starts, ends, boxes, run_mcids(table.mcid[emitted], firsts))


def _add_figure_alt_rows(
    table: GlyphTable,
    tree: StructTree,
    refs: PageRefs,
    images: tuple[ImagePlacement, ...],
    glyphs: np.ndarray,
    rank: np.ndarray,
    element: np.ndarray,
) -> tuple[GlyphTable, np.ndarray, np.ndarray, np.ndarray]:
    """A row carrying the /Alt text of every Figure on the page that shows no
    text of its own, placed where its image was painted, in tree order."""
    figure_of = tree.figure_of
    has_text = {int(f) for f in figure_of[element]} if len(element) else set()
    placed = {(image.mcid_stream, image.mcid): image.bbox for image in images}
    texts, boxes, mcids, streams, ranks, elements = [], [], [], [], [], []
    alt = tree.columns.alt
    page_refs = zip(refs.stream.tolist(), refs.mcid.tolist(), refs.element.tolist(), strict=True)
    for position, (stream, mcid, owner) in enumerate(page_refs):
        figure = int(figure_of[owner])
        box = placed.get((stream, mcid))
        if figure < 0 or figure in has_text or box is None:
            continue
        has_text.add(figure)  # one row per figure
        texts.append(alt.get(figure) or "")
        boxes.append(box)
        mcids.append(mcid)
        streams.append(stream)
        ranks.append(position)
        elements.append(owner)
    if not texts:
        return table, glyphs, rank, element
    first_new = len(table)
    table = table.with_text_rows(texts, boxes, mcids, streams)
    glyphs = np.concatenate([glyphs, np.arange(first_new, first_new + len(texts))])
    rank = np.concatenate([rank, ranks])
    element = np.concatenate([element, elements])
    by_rank = np.argsort(rank, kind="stable")
    return table, glyphs[by_rank], rank[by_rank], element[by_rank]


def _run_labels(tree: StructTree, owners: np.ndarray) -> dict[str, list[Any]]:
    """Per field of BlockLabel, the value of each run: its owning element's,
    or the tail's (owner -1) for content outside the structure. One compiled
    call (_core.run_labels) where the core is built; else the reference."""
    core = compiled_core()
    if core is None:
        return _reference_run_labels(tree, owners)
    rows = np.ascontiguousarray(owners, dtype=np.int64)
    values = core.run_labels(rows, *tree.label_columns, _TAIL_VALUES)
    return dict(zip(_LABEL_NAMES, values, strict=True))


def _reference_run_labels(tree: StructTree, owners: np.ndarray) -> dict[str, list[Any]]:
    """_run_labels in numpy steps: the columns read once for the owned runs
    (StructTree.labels), the tail's value picked for the others."""
    rows = owners.astype(np.int64)
    owned = np.flatnonzero(rows >= 0)
    names = _LABEL_NAMES
    if len(owned) == len(rows):
        return dict(zip(names, tree.labels(rows), strict=True))
    if not len(owned):
        return {name: [getattr(_TAIL, attribute)] * len(rows) for name, attribute in _LABEL_FIELDS}
    # Owned and tail runs both (so two runs or more): each run picks its
    # element's value or, past the owned runs' values, the tail's (no Python step per run).
    source = np.full(len(rows), len(owned), dtype=np.int64)
    source[owned] = np.arange(len(owned))
    pick = itemgetter(*source.tolist())
    values = tree.labels(rows[owned])
    return {
        name: list(pick([*owned_values, getattr(_TAIL, attribute)]))
        for (name, attribute), owned_values in zip(_LABEL_FIELDS, values, strict=True)
    }


class _Tail(NamedTuple):
    """The label of the tail's runs (content outside the structure), under
    the names of StructElement's attributes."""

    type: str = "P"
    path: tuple[str, ...] = ()
    heading_level: int | None = None
    lang: str | None = None
    header_cell: bool = False
    alt: str | None = None


_TAIL = _Tail()

# BlockLabel's fields and the StructElement attribute each is read from, in StructTree.labels' order.
_LABEL_FIELDS = (
    ("struct_type", "type"), ("struct_path", "path"), ("heading_level", "heading_level"),
    ("lang", "lang"), ("header_cell", "header_cell"), ("alt", "alt"),
)  # fmt: skip
_LABEL_NAMES = tuple(name for name, _ in _LABEL_FIELDS)
# The tail's label, field by field in _LABEL_FIELDS' order (_core.run_labels' `tail`).
_TAIL_VALUES = tuple(getattr(_TAIL, attribute) for _, attribute in _LABEL_FIELDS)


def _apply_actual_text(
    table: GlyphTable, tree: StructTree, glyphs: np.ndarray, element: np.ndarray
) -> tuple[GlyphTable, np.ndarray, np.ndarray]:
    """/ActualText on an element replaces the text of all its content (§14.9.4):
    its first glyph carries the replacement, the others drop out."""
    if not len(glyphs):
        return table, glyphs, element
    owners = tree.actual_text_owners[element]
    replaced = np.flatnonzero(owners >= 0)
    if not len(replaced):
        return table, glyphs, element
    # The first glyph of each owner in reading order carries its text; the
    # owner's other glyphs, and a first glyph whose replacement is empty, go.
    owner_ids, first = np.unique(owners[replaced], return_index=True)
    carriers = replaced[first]
    actual_text = tree.columns.actual_text
    replacements = [actual_text.get(owner) or "" for owner in owner_ids.tolist()]
    keep = owners < 0
    keep[carriers] = [bool(r) for r in replacements]
    return _with_texts(table, glyphs[carriers], replacements), glyphs[keep], element[keep]


def _with_texts(table: GlyphTable, rows: Sequence[int] | np.ndarray, texts: list[str]) -> GlyphTable:
    """The table with the text of each of `rows` replaced by its `texts`
    entry: its other columns the same arrays, set at once (frozen_instance:
    dataclasses.replace reads and sets them one by one); nothing the old
    table found from its text (text_rows) carried over."""
    text = table.text.copy()
    text[rows] = np.array(texts, dtype=object)
    return frozen_instance(GlyphTable, {**{name: getattr(table, name) for name in _TABLE_FIELDS}, "text": text})


_TABLE_FIELDS = tuple(field.name for field in dataclasses.fields(GlyphTable))
