"""reading._cell_contents, compiled (_core.cell_contents) against its numpy
reference (reading._reference_cell_contents).

Per TH/TD a page shows, by ascending cell: the least start and greatest end
of its glyphs' spans in the page text, the box of their quads (rounded to 3
decimals, NaN on an axis where a corner is NaN) and their distinct MCIDs in
emitted order. The inputs below reach what the grouping can get wrong: cells
emitted out of ascending order and a cell's glyphs in two separate runs (join
reorders right-to-left lines), glyphs placed twice (the last placement's
cell counts, as numpy's assignment keeps it), emitted rows no cell owns (the
tail), NaN and rotated quads, and pages where no emitted glyph is in a cell.
"""

from __future__ import annotations

import csv
import dataclasses
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from codepath import on_path
from corpusdir import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract import _core, extract_document, reading
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


def _joined(order: list[int], spans: list[tuple[int, int]]) -> SimpleNamespace:
    start, end = (np.array([s[i] for s in spans], dtype=np.int64) for i in (0, 1))
    return SimpleNamespace(order=np.array(order, dtype=np.int64), char_start=start, char_end=end)


def _page(table: GlyphTable, joined: SimpleNamespace, glyphs: list[int], element: list[int], cell_of: list[int]) -> tuple:
    i64 = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    return table, joined, i64(glyphs), i64(element), SimpleNamespace(cell_of=i64(cell_of))


@st.composite
def _pages(draw: st.DrawFn) -> tuple:
    rows = draw(st.integers(0, 30))
    mcid = draw(st.lists(st.sampled_from([-1, 0, 1, 2, 5]), min_size=rows, max_size=rows))
    quads = draw(st.lists(st.lists(_COORDINATES, min_size=8, max_size=8), min_size=rows, max_size=rows))
    elements = draw(st.integers(1, 8))
    cell_of = draw(st.lists(st.integers(-1, elements - 1), min_size=elements, max_size=elements))
    glyphs = draw(st.lists(st.integers(0, rows - 1), max_size=rows + 3)) if rows else []
    element = [draw(st.integers(0, elements - 1)) for _ in glyphs]
    order = draw(st.permutations(range(rows)))[: draw(st.integers(0, rows))]
    spans = [draw(st.tuples(st.integers(0, 60), st.integers(0, 60))) for _ in order]
    return _page(_table(mcid, quads), _joined(order, spans), glyphs, element, cell_of)


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


def test_cells_out_of_order_and_split_read_as_one_each() -> None:
    # Rows 0-4; elements 0 (cell 7), 1 (cell 3), 2 (no cell). Emitted 4, 0, 2, 1, 3:
    # cell 7 (rows 0, 1) is emitted before cell 3 (rows 2, 4) and in two runs.
    quads = [[x, 0, x + 1, 0, x + 1, 2, x, 2] for x in (0.0, 10.0, 20.0, 30.0, 40.0)]
    table = _table([4, 5, 6, 9, 6], quads)
    joined = _joined([4, 0, 2, 1, 3], [(0, 1), (2, 3), (4, 5), (6, 8), (9, 10)])
    page = _page(table, joined, [0, 1, 2, 3, 4], [0, 0, 1, 2, 1], [7, 3, -1])
    expected, got = _both(page)
    _same(expected, got)
    assert list(got.key) == [3, 7] and list(got.char_start) == [0, 2] and list(got.char_end) == [5, 8]
    assert list(got.bbox) == [(20.0, 0.0, 41.0, 2.0), (0.0, 0.0, 11.0, 2.0)]
    assert list(got.mcids) == [(6,), (4, 5)]


def test_a_page_without_emitted_cell_glyphs_has_no_cells() -> None:
    table = _table([0, 1], [[0.0] * 8, [1.0] * 8])
    joined = _joined([1, 0], [(0, 1), (2, 3)])
    for cell_of, glyphs in (([-1, -1], [0, 1]), ([5, -1], [])):
        page = _page(table, joined, glyphs, [0, 1][: len(glyphs)], cell_of)
        assert _both(page) == (NO_CELLS, NO_CELLS)


def test_bad_indices_are_refused() -> None:
    def call(cell_of: list[int], element: list[int], glyphs: list[int], order: list[int]) -> None:
        rows = 3
        i64 = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
        _core.cell_contents(
            i64(cell_of), i64(element), i64(glyphs), i64(order), i64([0] * len(order)), i64([1] * len(order)),
            np.zeros((rows, 4, 2)), i64([0] * rows),
        )  # fmt: skip

    call([0], [0], [2], [2, 0])  # in range: accepted
    for bad in (([0], [1], [2], [2]), ([0], [-1], [2], [2]), ([0], [0], [3], [2]), ([0], [0], [2], [3]), ([0], [0], [2], [-1])):
        with pytest.raises(IndexError):
            call(*bad)
    with pytest.raises(ValueError):
        call([0], [0, 0], [2], [2])  # an element per placed glyph
    zero = np.zeros(1, dtype=np.int64)
    with pytest.raises(ValueError):  # a quad per row
        _core.cell_contents(zero, zero, zero, zero, zero, zero, np.zeros((2, 4, 2)), np.zeros(3, dtype=np.int64))


@pytest.mark.slow
def test_the_compiled_cell_contents_are_the_reference_on_the_tagged_corpus(monkeypatch: pytest.MonkeyPatch, corpus: Path):
    """Every page of every tagged corpus file read in structure mode: the
    compiled cells equal the reference's on the page's own inputs."""
    with open(CORPUS / "MANIFEST.tsv", encoding="utf-8") as handle:
        tagged = [row["path"] for row in csv.DictReader(handle, delimiter="\t") if row["tagged"] == "yes"]
    compiled, seen = reading._cell_contents, []

    def both(*page: object) -> CellContents:
        got, expected = compiled(*page), reading._reference_cell_contents(*page)  # type: ignore[arg-type]
        _same(expected, got)
        seen.append(len(got))
        return got

    monkeypatch.setattr(reading, "_cell_contents", both)
    for relpath in tagged:
        if not relpath.startswith("broken/"):
            extract_document(corpus / relpath, mode="structure")
    # Only pages whose marked content lies in a cell are read (TableGrids.any_in_cell): ~50 of them.
    assert len(seen) > 40 and sum(seen) > 5_000
