"""reading._cell_contents, compiled (_core.block_cells, read off the page's
blocks) against its numpy reference (reading._reference_cell_contents, over
the placed glyphs).

Per TH/TD a page shows, by ascending cell: the least start and greatest end
of its glyphs' spans in the page text, the box of their quads (rounded to 3
decimals, NaN on an axis where a corner is NaN) and their distinct MCIDs in
emitted order. The compiled path takes a cell's glyphs as those of the blocks
its elements own (every TH, TD and Table is a block type, so a block lies in
one cell) and a cell of one block takes that block's box and MCIDs. The
inputs below reach what that can get wrong: cells emitted out of ascending
order and a cell of several blocks (two paragraphs, a block split, join
reordering right-to-left lines), blocks of the tail (owner -1) between them,
NaN and rotated quads, and pages where no block is in a cell.
"""

from __future__ import annotations

import csv
import dataclasses
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from codepath import on_path
from corpusdir import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract import _core, extract_document, reading
from ragprep.extract.blocks import Block, BlockLabel, label_fields, labelled_blocks
from ragprep.extract.compiled import compiled_available
from ragprep.extract.glyphs import GlyphTable
from ragprep.extract.reading import _cell_contents
from ragprep.extract.tables import NO_CELLS, CellContents

pytestmark = pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built")

_COORDINATES = st.sampled_from([0.0, 1.0, -2.5, 3.0004, 7.12349, 1e6, -0.0, math.nan])


def _table(mcid: list[int], quads: list[list[float]]) -> GlyphTable:
    rows = len(mcid)
    table = GlyphTable.empty().with_text_rows(["g"] * rows, [(0, 0, 1, 1)] * rows, mcid, [0] * rows)
    return dataclasses.replace(table, quad=np.array(quads, dtype=np.float64).reshape(rows, 4, 2))


def _i64(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def _page(table: GlyphTable, placed: list[tuple[int, int]], order: list[int], lengths: list[int],
          owner_of: list[int], cell_of: list[int], splits: set[int] = frozenset()) -> tuple:  # fmt: skip
    """_cell_contents' arguments: `placed` (row, element) the tree places, in
    its order; `order` the emitted rows (placed or the tail's); `lengths`
    their texts' (spans increase, as join_text makes them); `owner_of` each
    element's block owner; `cell_of` each element's cell; blocks start where
    the owner changes and at `splits`, and are built as read_structure builds them."""
    owner_of_row = dict.fromkeys(order, -1) | {row: owner_of[element] for row, element in placed}
    ends = np.cumsum(np.array(lengths, dtype=np.int64) + 1)
    joined = SimpleNamespace(order=_i64(order), char_start=ends - _i64(lengths), char_end=ends, text="x" * int(ends[-1:].sum()))
    owners = [owner_of_row[row] for row in order]
    starts = _i64([p for p in range(len(order)) if not p or p in splits or owners[p] != owners[p - 1]])
    labels = label_fields(np.zeros(len(starts), dtype=np.int64), (BlockLabel(),))
    blocks = labelled_blocks(table, joined, starts, labels) if len(order) else ()
    rows = [row for row, _ in placed]
    placed_owners = [owner_of[e] for _, e in placed]  # the placed glyphs' runs of one block owner
    run_at = [p for p in range(len(placed_owners)) if not p or placed_owners[p] != placed_owners[p - 1]]
    placement = reading._Placement(
        table, _i64(rows + [r for r in order if r not in rows]), len(rows), np.zeros(0, dtype=bool), 0,
        (_i64(run_at), _i64([placed_owners[p] for p in run_at])),
    )  # fmt: skip
    runs = reading._BlockRuns(starts, _i64([owners[p] for p in starts.tolist()]), blocks)
    return table, joined, placement, runs, SimpleNamespace(cell_of=_i64(cell_of))


@st.composite
def _pages(draw: st.DrawFn) -> tuple:
    rows = draw(st.integers(0, 30))
    mcid = draw(st.lists(st.sampled_from([-1, 0, 1, 2, 5]), min_size=rows, max_size=rows))
    quads = draw(st.lists(st.lists(_COORDINATES, min_size=8, max_size=8), min_size=rows, max_size=rows))
    elements = draw(st.integers(1, 8))
    # Block owners own themselves; a cell is its element's owner's (as TH/TD are blocks).
    block = draw(st.lists(st.booleans(), min_size=elements, max_size=elements))
    owning = [e for e in range(elements) if block[e]] or [0]
    owner_of = [e if e in owning else draw(st.sampled_from(owning)) for e in range(elements)]
    cells = [draw(st.integers(-1, elements - 1)) for _ in range(elements)]
    cell_of = [cells[owner_of[e]] for e in range(elements)]
    emitted = draw(st.permutations(range(rows)))[: draw(st.integers(0, rows))]
    placed_rows = draw(st.permutations(emitted))[: draw(st.integers(0, len(emitted)))]
    placed = [(row, draw(st.integers(0, elements - 1))) for row in placed_rows]
    lengths = draw(st.lists(st.integers(0, 3), min_size=len(emitted), max_size=len(emitted)))
    splits = set(draw(st.lists(st.integers(1, max(rows, 1)), max_size=3)))
    return _page(_table(mcid, quads), placed, list(emitted), lengths, owner_of, cell_of, splits)


def _both(page: tuple) -> tuple[CellContents, CellContents]:
    mp = pytest.MonkeyPatch()
    try:
        with on_path(mp, pure=True):
            expected = _cell_contents(*page)
        with on_path(mp, pure=False):
            got = _cell_contents(*page)
    finally:
        mp.undo()
    return expected, got


def _same(expected: CellContents, got: CellContents) -> None:
    # repr: a NaN bound equals itself there, and a list or tuple column reads alike.
    for name in ("key", "char_start", "char_end", "mcids"):
        assert repr(list(getattr(got, name))) == repr(list(getattr(expected, name))), name
    # The sign of a zero bound is the min's tie-break between 0.0 and -0.0 (the
    # C kernel keeps the first, numpy's SIMD min either): adding 0.0 makes both 0.0.
    boxes = [repr([tuple(v + 0.0 for v in box) for box in c.bbox]) for c in (got, expected)]
    assert boxes[0] == boxes[1]


@settings(max_examples=500, deadline=None)
@given(_pages())
def test_the_compiled_cell_contents_are_the_reference(page: tuple) -> None:
    _same(*_both(page))


def test_cells_out_of_order_and_of_several_blocks_read_as_one_each() -> None:
    # Rows 0-5 at x = 0, 10, ... 50. Elements: 0 and 1 (two paragraphs, their
    # own blocks) in cell 7; 2 (cell 3, its own block); 3 (no cell). Emitted
    # 4, 0, 5, 2, 1, 3 with row 5 the tail's: cell 3 (row 4) comes first, cell
    # 7's paragraph 0 (rows 0 and 1) is split by the tail and paragraph 1 (row 2).
    quads = [[x, 0, x + 1, 0, x + 1, 2, x, 2] for x in (0.0, 10.0, 20.0, 30.0, 40.0, 50.0)]
    table = _table([4, 5, 6, 9, 6, 8], quads)
    placed = [(4, 2), (0, 0), (2, 1), (1, 0), (3, 3)]
    page = _page(table, placed, [4, 0, 5, 2, 1, 3], [1, 1, 1, 2, 1, 1], [0, 1, 2, 3], [7, 7, 3, -1])
    expected, got = _both(page)
    _same(expected, got)
    assert list(got.key) == [3, 7] and list(got.char_start) == [1, 3] and list(got.char_end) == [2, 11]
    assert list(got.bbox) == [(40.0, 0.0, 41.0, 2.0), (0.0, 0.0, 21.0, 2.0)]
    assert list(got.mcids) == [(6,), (4, 6, 5)]
    # Cell 3 is one block: its box and MCIDs are that block's own objects, not copies.
    runs = page[3]
    assert got.bbox[0] is runs.blocks[0].bbox and got.mcids[0] is runs.blocks[0].mcids


def test_a_cell_of_one_block_holds_its_blocks_span_ints() -> None:
    # Block 0 (rows 0 and 1, spans 1000-1001 and 1001-1002) is cell 0: the
    # cell's span ints are the block's own objects where they hold its span,
    # not copies; a block whose start says otherwise is not believed.
    starts, ends = _i64([1000, 1001]), _i64([1001, 1002])
    for block_start, shared in ((int("1000"), True), (int("999"), False)):
        block = Block("ab", "TD", (), None, (), (0.0, 0.0, 1.0, 1.0), block_start, int("1002"))
        keys, cell_starts, cell_ends, _, _, texts = _core.block_cells(
            _i64([0]), _i64([0]), _i64([0]), _i64([0, 1]), starts, ends, np.zeros((2, 4, 2)), _i64([-1, -1]),
            [block], ("bbox", "mcids", "char_start", "char_end", "text"),
        )  # fmt: skip
        assert (keys, cell_starts, cell_ends) == ([0], [1000], [1002])
        assert (cell_starts[0] is block.char_start) == shared and cell_ends[0] is block.char_end
        assert texts == [block.text] and texts[0] is block.text  # its text, for page_tables to take


def test_a_page_without_blocks_in_cells_has_no_cells() -> None:
    table = _table([0, 1], [[0.0] * 8, [1.0] * 8])
    for cell_of, placed in (([-1, -1], [(0, 0), (1, 1)]), ([5, -1], [])):
        page = _page(table, placed, [1, 0], [1, 1], [0, 1], cell_of)
        assert _both(page) == (NO_CELLS, NO_CELLS)


def test_bad_indices_are_refused() -> None:
    def call(cell_of: list[int], owners: list[int], starts: list[int], order: list[int], rows: int = 3) -> None:
        blocks = [Block("", "P", (), None, (), (0.0, 0.0, 1.0, 1.0), 0, 0) for _ in owners]
        _core.block_cells(
            _i64(cell_of), _i64(owners), _i64(starts), _i64(order), _i64([0] * len(order)), _i64([1] * len(order)),
            np.zeros((rows, 4, 2)), _i64([0] * rows), blocks, ("bbox", "mcids", "char_start", "char_end", "text"),
        )  # fmt: skip

    call([0], [0, 0], [0, 1], [2, 0])  # in range: accepted (a cell of two blocks reads rows 2 and 0)
    call([0, -1], [1, -1], [0, 1], [2, 3])  # a row out of range in no cell's block is not read
    for bad in (([0], [1], [0], [2]), ([0], [0, 0], [0, 1], [2, 3])):
        with pytest.raises(IndexError):
            call(*bad)
    for bad in (([0], [0, 0], [0, 0], [2, 1]), ([0], [0], [2], [2]), ([0], [0, 0], [0], [2])):
        with pytest.raises(ValueError):
            call(*bad)
    zero = np.zeros(1, dtype=np.int64)
    with pytest.raises(ValueError):  # a quad per row
        _core.block_cells(zero, zero, zero, zero, zero, zero, np.zeros((2, 4, 2)), np.zeros(3, dtype=np.int64), [None], ("bbox", "mcids", "char_start", "char_end", "text"))


@pytest.mark.slow
def test_the_compiled_cell_contents_are_the_reference_on_the_tagged_corpus(monkeypatch: pytest.MonkeyPatch, corpus: Path):
    """Every page of every tagged corpus file read in structure mode: the
    compiled cells equal the reference's on the page's own inputs."""
    with open(CORPUS / "MANIFEST.tsv", encoding="utf-8") as handle:
        tagged = [row["path"] for row in csv.DictReader(handle, delimiter="\t") if row["tagged"] == "yes"]
    compiled, seen = reading._cell_contents, []

    def both(table: GlyphTable, joined: object, placed: Any, runs: object, grids: object) -> CellContents:
        got = compiled(table, joined, placed, runs, grids)  # type: ignore[arg-type]
        expected = reading._reference_cell_contents(table, joined, placed.order[: placed.tagged], placed.placed_owners(), grids)  # type: ignore[arg-type]
        _same(expected, got)
        seen.append(len(got))
        return got

    monkeypatch.setattr(reading, "_cell_contents", both)
    for relpath in tagged:
        if not relpath.startswith("broken/"):
            extract_document(corpus / relpath, mode="structure")
    # Every page of a document with a tagged cell is read (~200 of them), ~50 show cells.
    assert len([n for n in seen if n]) > 40 and sum(seen) > 5_000
