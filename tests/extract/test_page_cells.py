"""tables._page_cells, compiled (_core.page_cells) against its Python
reference (tables._reference_page_cells).

A page's cells (CellContents: cell element, span, box, MCIDs) that have a
grid slot become TableCells, grouped by table in the order each table first
comes, a cell's order kept inside its table; each group knows its table and
the least start of its cells. A cell's text is its span of the page text,
lines and blank runs joined by one space. The inputs below reach what the
compiled path can get wrong: keys with no slot (outside the tree, negative,
an element that is no cell), tables interleaved on the page, spans cut past
the text or backwards (Python's slice bounds), texts of every string width
with whitespace and unprintable code points, and places no int64 holds (a
hostile span's column).
"""

from __future__ import annotations

import csv
from dataclasses import replace
from itertools import accumulate, repeat
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from codepath import on_both_paths, on_path
from corpusdir import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract import _core, document, extract_document, open_document, tables
from ragprep.extract.compiled import compiled_available
from ragprep.extract.tables import (
    CellContents,
    GridSlot,
    PageCells,
    TableCell,
    TableGrids,
    grids_of_slots,
    structure_tables,
)

pytestmark = pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built")

# Whitespace of each kind str.split knows, unprintable code points, and one
# of each string width (Latin-1, UCS-2, UCS-4).
_CHARACTERS = st.sampled_from(list("ab é\n\t\x00\u00a0\u2028\u3000\u0301😀 "))
_ELEMENTS = 24
_HUGE = 2**70  # a column past int64: the places are passed as they are


@st.composite
def _grids(draw: st.DrawFn) -> TableGrids:
    cells = draw(st.lists(st.integers(0, _ELEMENTS - 1), unique=True, max_size=_ELEMENTS))
    slots = {}
    for cell in cells:
        table = draw(st.sampled_from([3, 7, 11]))
        row, col = draw(st.integers(0, 4)), draw(st.sampled_from([0, 1, 2, _HUGE]))
        spans = draw(st.tuples(st.integers(1, 3), st.integers(1, 3)))
        slots[cell] = GridSlot(table, row, col, *spans, draw(st.booleans()), False, None, (), None)
    return grids_of_slots(_ELEMENTS, slots, {table: (5, 3) for table in (3, 7, 11)})


@st.composite
def _pages(draw: st.DrawFn) -> tuple[TableGrids, CellContents, str]:
    grids = draw(_grids())
    text = "".join(draw(st.lists(_CHARACTERS, max_size=40)))
    keys = draw(st.lists(st.integers(-2, _ELEMENTS + 3), max_size=12))
    spans = [draw(st.tuples(st.integers(-3, len(text) + 3), st.integers(-3, len(text) + 3))) for _ in keys]
    boxes = [(float(k), 0.0, 1.0, 2.0) for k in range(len(keys))]
    contents = CellContents(keys, [s for s, _ in spans], [e for _, e in spans], boxes, [(k,) for k in keys])
    return grids, contents, text


def _both(grids: TableGrids, contents: CellContents, text: str) -> tuple[PageCells | None, PageCells | None]:
    return tables._reference_page_cells(grids, contents, 4, text), tables._page_cells(grids, contents, 4, text)


@settings(max_examples=500, deadline=None)
@given(_pages())
def test_the_compiled_page_cells_are_the_reference(page: tuple[TableGrids, CellContents, str]) -> None:
    expected, got = _both(*page)
    assert repr(got) == repr(expected)
    if got is not None:
        assert all(type(cell) is TableCell for cell in got.cells)


def test_interleaved_tables_group_in_the_order_they_first_come() -> None:
    # Elements 5, 6 are table 3's cells, 8, 9 table 7's; element 2 is no cell.
    # The page shows 8 first: table 7's group comes first, each keeping its order.
    slots = {e: GridSlot(t, r, 0, 1, 1, r == 0, False, None, (), None) for e, t, r in ((5, 3, 0), (6, 3, 1), (8, 7, 0), (9, 7, 1))}
    grids = grids_of_slots(10, slots, {})
    text = "b0 a0  a1\nb1 x"
    keys, spans = [8, 5, 2, 9, 6], [(0, 2), (3, 5), (13, 14), (10, 12), (5, 9)]
    contents = CellContents(keys, [s for s, _ in spans], [e for _, e in spans], [(0.0,) * 4] * 5, [(k,) for k in keys])
    expected, got = _both(grids, contents, text)
    assert repr(got) == repr(expected)
    assert got is not None
    assert (got.tables, got.firsts, got.bounds) == ([7, 3], [0, 3], [0, 2, 4])
    assert [(c.row, c.text) for c in got.cells] == [(0, "b0"), (1, "b1"), (0, "a0"), (1, "a1")]


def test_a_page_with_no_cell_of_a_grid_has_none() -> None:
    slots = {5: GridSlot(3, 0, 0, 1, 1, False, False, None, (), None)}
    grids = grids_of_slots(10, slots, {3: (1, 1)})
    contents = CellContents([2, 12, -1], [0, 0, 0], [1, 1, 1], [(0.0,) * 4] * 3, [(), (), ()])
    assert _both(grids, contents, "xy") == (None, None)


def test_bad_slots_and_columns_are_refused() -> None:
    slots = {1: GridSlot(3, 0, 0, 1, 1, False, False, None, (), None)}
    columns = grids_of_slots(2, slots, {}).columns
    fields = tuple(TableCell.__dataclass_fields__)

    def call(slot_of: list[int], slot_table: list[int], contents: tuple = ([1], [0], [1], [(0.0,) * 4], [()])) -> None:
        i64 = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
        _core.page_cells(TableCell, fields, contents, i64(slot_of), i64(slot_table), columns.tables, columns.places, "x", 1)

    call([-1, 0], [0])  # in range: accepted
    for slot_of, slot_table in (([-1, 1], [0]), ([-1, 0], [1]), ([-1, 0], [-1])):
        with pytest.raises(IndexError):
            call(slot_of, slot_table)
    with pytest.raises(ValueError):  # a column per field of CellContents, of one length
        call([-1, 0], [0], ([1], [0, 0], [1], [(0.0,) * 4], [()]))
    with pytest.raises(ValueError):  # a place per slot
        call([-1, 0, 1], [0, 0])


def test_structure_tables_read_the_same_pieces_on_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    slots = {e: GridSlot(t, r, 0, 1, 1, r == 0, False, None, (), None) for e, t, r in ((5, 3, 0), (6, 3, 1), (8, 7, 0))}
    grids = grids_of_slots(10, slots, {3: (2, 1), 7: (1, 1)})
    contents = CellContents([5, 6, 8], [4, 7, 0], [6, 9, 3], [(0.0,) * 4] * 3, [(5,), (6,), (8,)])
    pieces = []
    for pure in (True, False):
        with on_path(monkeypatch, pure=pure):
            pieces.append(structure_tables(grids, contents, 2, "c 0 h1 v1", labels=True))
    assert pieces[0] == pieces[1]
    assert [p.table_id for p in pieces[1]] == ["s7", "s3"]  # table 7's text comes first on the page
    assert [c.header_labels for c in pieces[1][1].cells] == [(), ("h1",)]


@st.composite
def _labelled_pages(draw: st.DrawFn) -> tuple[TableGrids, CellContents, str]:
    """_pages whose slots carry every /Scope, THead flag, /Headers and /ID
    (the labels a page finishing a table attaches), some tables only one
    page shows."""
    grids, contents, text = draw(_pages())
    fields = grids.columns.fields
    for k in range(len(grids.columns.cells)):
        fields["scope"][k] = draw(st.sampled_from([None, "Row", "Column", "Both", "Bogus"]))
        fields["in_thead"][k] = draw(st.booleans())
        fields["element_id"][k] = draw(st.sampled_from([None, "a", "b"]))
        fields["headers"][k] = tuple(draw(st.lists(st.sampled_from(["a", "b", "c"]), max_size=2)))
    return replace(grids, on_one_page=frozenset(draw(st.sets(st.sampled_from([3, 7, 11]))))), contents, text


@settings(max_examples=300, deadline=None)
@given(_labelled_pages(), st.booleans())
def test_the_compiled_page_tables_are_the_reference(page: tuple[TableGrids, CellContents, str], labels: bool) -> None:
    grids, contents, text = page
    expected, got = on_both_paths(lambda: structure_tables(grids, contents, 4, text, labels=labels))
    assert repr(got) == repr(expected) and got == expected


def test_a_page_finishes_the_tables_only_it_shows_and_leaves_the_others() -> None:
    # Table 3: a head (row 0) and a cell below it, shown in reverse order; table 7 a lone cell.
    slots = {e: GridSlot(t, r, 0, 1, 1, r == 0, False, None, (), None) for e, t, r in ((5, 3, 0), (6, 3, 1), (8, 7, 0))}
    grids = replace(grids_of_slots(10, slots, {3: (2, 1), 7: (1, 1)}), on_one_page=frozenset({3}))
    contents = CellContents([6, 5, 8], [5, 0, 8], [7, 4, 9], [(0.0,) * 4] * 3, [(6,), (5,), (8,)])
    pieces = _core.page_tables(
        TableCell, tables._CELL_FIELDS, tables.Table, tables._TABLE_FIELDS, tables.STRUCTURE,
        (contents.key, contents.char_start, contents.char_end, contents.bbox, contents.mcids),
        grids.columns.slot_of, grids.columns.table, grids.page_tables, grids.columns.places, "head v1 x", 2, False,
    )  # fmt: skip
    assert [p.table_id for p in pieces] == ["s3", "s7"]
    whole, alone = pieces
    assert [(c.row, c.text, c.header_labels) for c in whole.cells] == [(0, "head", ()), (1, "v1", ("head",))]
    assert (whole.header_rows, whole.pages, whole.n_rows) == (1, (2,), 2)
    assert [(c.row, c.text, c.header_labels) for c in alone.cells] == [(0, "x", ())] and alone.header_rows == 0


def test_a_cell_takes_a_known_text_of_its_span_and_no_other() -> None:
    # Cells 5, 6, 7 of one row: "alpha" known as an equal str (taken, not
    # copied); "beta" known as "BETA" (not its slice: not taken); "  gamma",
    # whose cell text "gamma" is no slice (the known slice is not it).
    slots = {e: GridSlot(3, 0, col, 1, 1, False, False, None, (), None) for col, e in enumerate((5, 6, 7))}
    grids = replace(grids_of_slots(10, slots, {3: (1, 3)}), on_one_page=frozenset({3}))
    known = ["".join(["alp", "ha"]), "BETA", "  gamma"]
    contents = CellContents([5, 6, 7], [0, 6, 10], [5, 10, 17], [(0.0,) * 4] * 3, [(5,), (6,), (7,)], known)
    expected, got = on_both_paths(lambda: structure_tables(grids, contents, 1, "alpha beta  gamma"))
    assert repr(got) == repr(expected) and [c.text for c in got[0].cells] == ["alpha", "beta", "gamma"]
    assert got[0].cells[0].text is known[0] and got[0].cells[1].text is not known[1]


@pytest.mark.slow
def test_the_compiled_page_tables_are_the_reference_on_the_tagged_corpus(
    monkeypatch: pytest.MonkeyPatch, corpus: Path
) -> None:
    """Every page of every tagged corpus file read in structure mode, pages
    read together and alone: the compiled page tables, and the page cells of
    the steps, equal the reference's on the page's own inputs."""
    with open(CORPUS / "MANIFEST.tsv", encoding="utf-8") as handle:
        tagged = [row["path"] for row in csv.DictReader(handle, delimiter="\t") if row["tagged"] == "yes"]
    compiled, seen = document.structure_tables, []

    def both(*page: Any, **options: Any) -> tuple[tables.Table, ...]:
        expected, got = on_both_paths(lambda: compiled(*page, **options))
        steps = tables._page_cells(*page[:4]), tables._reference_page_cells(*page[:4])
        assert repr(got) == repr(expected) and repr(steps[0]) == repr(steps[1])
        seen.append(sum(len(t.cells) for t in got))
        return got

    monkeypatch.setattr(document, "structure_tables", both)
    for relpath in tagged:
        if not relpath.startswith("broken/"):
            extract_document(corpus / relpath, mode="structure")
            with open_document(corpus / relpath) as doc:
                for number in range(1, min(doc.page_count, 3) + 1):
                    doc.extract_page(number, "structure")
    assert len(seen) > 50 and sum(seen) > 5_000  # the pages that show cells, and their cells


def test_the_compiled_cell_text_is_cell_text_on_every_kind_of_code_point() -> None:
    # Every whitespace code point, every one below U+3000 and a stride past it
    # (each string width): alone, between spaces, doubled inside and before a space.
    points = sorted({*range(0x3000), *range(0x3000, 0x110000, 97), *(p for p in range(0x110000) if chr(p).isspace())})
    cells = 4 * 1024
    slots = {e: GridSlot(1, e, 0, 1, 1, False, False, None, (), None) for e in range(cells)}
    columns = grids_of_slots(cells, slots, {1: (cells, 1)}).columns
    for lo in range(0, len(points), 1024):
        windows = [w for p in points[lo : lo + 1024] for w in (chr(p), f" {chr(p)} ", f"x{chr(p) * 2}y", f"x{chr(p)} y")]
        text, ends = "".join(windows), list(accumulate(map(len, windows)))
        starts = [0, *ends[:-1]]
        contents = (list(range(len(windows))), starts, ends, [(0.0,) * 4] * len(windows), [()] * len(windows))
        found = _core.page_cells(TableCell, tables._CELL_FIELDS, contents, columns.slot_of, columns.table, columns.tables, columns.places, text, 1)
        assert [c.text for c in found[3]] == list(map(tables.cell_text, repeat(text), starts, ends))
