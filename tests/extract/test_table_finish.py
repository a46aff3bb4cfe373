"""tables._finished_cells, compiled (_core.table_finish) against its Python
reference (tables._reference_finished_cells); with it the other compiled
steps of a document's tables: pieces_by_page's grouping (_core.cells_by_page)
and the tables only one page shows (_core.on_one_page).

A table's cells are sorted row by row (stable), a slot shown on two pages
joined (`join`: the first cell kept, the texts of both), its leading header
rows counted, and each cell labelled by the heads above and before it
(§14.8.5.7: /Scope, else position; /Headers by /ID in their place). The
inputs below reach what the compiled path can get wrong: places repeated,
out of order or with no slot, heads with every /Scope (and none, and one no
rule knows), empty head texts, /Headers naming missing and present /IDs,
cells already labelled (kept when their labels stay), and places no int64
holds (left to the reference).
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from corpusdir import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract import _core, extract_document, open_document, tables
from ragprep.extract.compiled import compiled_available
from ragprep.extract.structure_columns import ContentColumns
from ragprep.extract.tables import GridSlot, TableCell, TableGrids, grids_of_slots

pytestmark = pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built")

_TABLE = 3
_IDS = ("h0", "h1", "h2", "x")
_SCOPES = (None, "Column", "Row", "Both", "Neither")
_TEXTS = ("", "A", "B c", " padded ", "é", "😀")


def _cell(row: int, col: int, spans: tuple[int, int], header: bool, text: str, page: int, labels: tuple[str, ...]) -> TableCell:
    return TableCell(row, col, *spans, header, labels, text, page, (0.0, 1.0, 2.0, 3.0), (page,), 0, len(text))


@st.composite
def _tables(draw: st.DrawFn) -> tuple[TableGrids, list[TableCell]]:
    places = draw(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 4)), unique=True, max_size=14))
    slots = {}
    for element, (row, col) in enumerate(places):
        named = tuple(draw(st.lists(st.sampled_from(_IDS), max_size=2))) if draw(st.integers(0, 5)) == 0 else ()
        slots[element] = GridSlot(
            _TABLE, row, col, draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.booleans()),
            draw(st.booleans()), draw(st.sampled_from(_SCOPES)), named, draw(st.sampled_from((None, *_IDS))),
        )  # fmt: skip
    grids = grids_of_slots(len(places) + 1, slots, {_TABLE: (6, 5)})
    cells = []
    for slot in slots.values():  # each slot shown on none, one or two pages
        for page in range(draw(st.integers(0, 2))):
            text, labels = draw(st.sampled_from(_TEXTS)), draw(st.sampled_from(((), ("old",))))
            cells.append(_cell(slot.row, slot.col, (slot.row_span, slot.col_span), slot.header, text, page + 1, labels))
    stray = draw(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.booleans()), max_size=3))  # no slot there
    cells += [_cell(r, c, (1, 1), head, "s", 1, ()) for r, c, head in stray]
    return grids, draw(st.permutations(cells))


def _both(cells: list[TableCell], grids: TableGrids | None, relabel: bool, join: bool) -> tuple[str, str]:
    got = tables._finished_cells(cells, grids, _TABLE, relabel, join)
    return repr(got), repr(tables._reference_finished_cells(cells, grids, _TABLE, relabel, join))


@settings(max_examples=500, deadline=None)
@given(_tables(), st.booleans(), st.booleans(), st.booleans())
def test_the_compiled_finish_is_the_reference(table: tuple[TableGrids, list[TableCell]], relabel: bool, join: bool, with_grids: bool) -> None:
    grids, cells = table
    got, expected = _both(cells, grids if with_grids else None, relabel, join)
    assert got == expected


def test_heads_scoped_both_label_their_columns_and_rows() -> None:
    # A head scoped Both is a column head and a row head: the compiled finish
    # lists it twice, so a table of such heads holds twice as many heads as
    # cells (it wrote past its list where every cell was one).
    places = [(row, col) for row in range(6) for col in range(5)]
    slots = {e: GridSlot(_TABLE, row, col, 1, 1, True, False, "Both", (), None) for e, (row, col) in enumerate(places)}
    grids = grids_of_slots(len(places) + 1, slots, {_TABLE: (6, 5)})
    cells = [_cell(row, col, (1, 1), True, f"H{row}{col}", 1, ()) for row, col in places]
    got, expected = _both(cells, grids, True, False)
    assert got == expected
    finished = {(c.row, c.col): c.header_labels for c in tables._finished_cells(cells, grids, _TABLE, True, False)[0]}
    assert finished[(2, 3)] == ("H03", "H13", "H20", "H21", "H22")


def test_a_slot_on_two_pages_keeps_its_first_page_and_takes_both_texts() -> None:
    slots = {0: GridSlot(_TABLE, 0, 0, 1, 1, True, True, None, (), None), 1: GridSlot(_TABLE, 1, 0, 1, 1, False, False, None, (), None)}
    grids = grids_of_slots(2, slots, {_TABLE: (2, 1)})
    cells = [_cell(1, 0, (1, 1), False, "end", 2, ()), _cell(0, 0, (1, 1), True, "Head", 1, ()), _cell(1, 0, (1, 1), False, "start", 1, ())]
    found = tables._finished_cells(cells, grids, _TABLE, True, True)
    assert repr(found) == repr(tables._reference_finished_cells(cells, grids, _TABLE, True, True))
    assert [(c.row, c.text, c.page, c.header_labels) for c in found.cells] == [(0, "Head", 1, ()), (1, "end start", 2, ("Head",))]
    assert (found.header_rows, found.pages) == (1, (1, 2))


def test_headers_name_heads_by_id_in_place_of_their_positions() -> None:
    slots = {
        0: GridSlot(_TABLE, 0, 0, 1, 1, True, False, "Column", (), "a"),
        1: GridSlot(_TABLE, 0, 1, 1, 1, True, False, "Column", (), "b"),
        2: GridSlot(_TABLE, 1, 1, 1, 1, False, False, None, ("a", "missing", "b"), None),
    }
    grids = grids_of_slots(3, slots, {_TABLE: (2, 2)})
    cells = [_cell(0, 0, (1, 1), True, "A", 1, ()), _cell(0, 1, (1, 1), True, "B", 1, ()), _cell(1, 1, (1, 1), False, "x", 1, ())]
    found = tables._finished_cells(cells, grids, _TABLE, True, False)
    assert repr(found) == repr(tables._reference_finished_cells(cells, grids, _TABLE, True, False))
    assert found.cells[2].header_labels == ("A", "B")  # not ("B",), which the column alone gives


def test_a_cell_whose_labels_stay_is_kept_and_places_past_int64_go_to_the_reference() -> None:
    cells = [_cell(0, 0, (1, 1), False, "a", 1, ()), _cell(0, 1, (1, 1), False, "b", 1, ())]
    fields = tuple(TableCell.__dataclass_fields__)
    found = _core.table_finish(TableCell, fields, cells, False, {}, {}, {}, False, True)
    assert found is not None and all(a is b for a, b in zip(found[0], cells, strict=True))
    huge = [_cell(0, 2**70, (1, 1), False, "a", 1, ())]
    assert _core.table_finish(TableCell, fields, huge, False, {}, {}, {}, False, True) is None
    assert tables._finished_cells(huge, None, -1, True, False).cells == tuple(huge)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 4), max_size=12), st.booleans())
def test_cells_group_by_page_in_the_order_each_page_first_comes(pages: list[int], as_list: bool) -> None:
    cells = tuple(_cell(k, 0, (1, 1), False, str(k), page, ()) for k, page in enumerate(pages))
    given_cells = list(cells) if as_list else cells
    got, expected = _core.cells_by_page(TableCell, given_cells), tables._reference_by_page(cells)
    assert got == expected and list(got) == list(expected)  # the same pages, in the same order
    assert all(type(group) is tuple for group in got.values())
    if len(set(pages)) == 1 and not as_list:
        assert got[pages[0]] is cells  # all on one page: the table's own cells


def test_pieces_by_page_split_a_table_as_its_cells_lie() -> None:
    cells = tuple(_cell(k, 0, (1, 1), False, str(k), page, ()) for k, page in enumerate([2, 2, 3, 2, 5]))
    table = tables.Table("s3", tables.STRUCTURE, 5, 1, 0, (2, 3, 5), cells)
    found = tables.pieces_by_page([table])
    assert {page: [c.text for c in pieces[0].cells] for page, pieces in found.items()} == {2: ["0", "1", "3"], 3: ["2"], 5: ["4"]}
    assert list(found) == [2, 3, 5]


class _Tree(NamedTuple):
    content: ContentColumns


@st.composite
def _layouts(draw: st.DrawFn) -> tuple[_Tree, tables.GridLayout]:
    elements, n_tables = draw(st.integers(1, 12)), draw(st.integers(1, 4))
    cells = draw(st.lists(st.integers(0, elements - 1), unique=True, max_size=elements))
    table_of = [draw(st.integers(0, n_tables - 1)) for _ in cells]
    order = sorted(range(len(cells)), key=table_of.__getitem__)  # a table's slots together
    bounds = [sum(1 for t in table_of if t < k) for k in range(n_tables + 1)]
    fields = {name: [0] * len(cells) for name in tables._SLOT_COLUMNS}
    slots = tables.slot_columns(elements, [cells[k] for k in order], [100 + t for t in range(n_tables)], bounds, fields)
    cell_of = np.array([draw(st.sampled_from([-1, *cells])) if cells else -1 for _ in range(elements)], dtype=np.int64)
    pieces = draw(st.lists(st.tuples(st.integers(-elements, elements - 1), st.integers(0, 2)), max_size=10))
    i64 = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    content = ContentColumns(i64([p for _, p in pieces]), i64([0] * len(pieces)), i64([0] * len(pieces)), i64([e for e, _ in pieces]))
    return _Tree(content), tables.GridLayout(cell_of, [1] * n_tables, [1] * n_tables, slots)


@settings(max_examples=300, deadline=None)
@given(_layouts())
def test_the_compiled_cell_placement_is_the_reference(layout: tuple[_Tree, tables.GridLayout]) -> None:
    tree, grid = layout
    expected = tables._reference_cell_placement(tree, grid)  # type: ignore[arg-type]
    assert tables._cell_placement(tree, grid) == expected  # type: ignore[arg-type]


def test_a_table_with_content_on_two_pages_is_not_on_one_page() -> None:
    # Elements 1, 2 are table 100's cells, 4 table 101's; element 3 lies in cell 2, element 0 in none.
    slots = tables.slot_columns(5, [1, 2, 4], [100, 101], [0, 2, 3], {name: [0] * 3 for name in tables._SLOT_COLUMNS})
    grid = tables.GridLayout(np.array([-1, 1, 2, 2, 4], dtype=np.int64), [1, 1], [1, 1], slots)
    i64 = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    tree = _Tree(ContentColumns(i64([0, 0, 1, 1]), i64([0] * 4), i64([0] * 4), i64([1, 4, 3, 0])))
    expected = tables.CellPlacement(frozenset({101}), frozenset({0, 1}))
    assert tables._cell_placement(tree, grid) == expected == tables._reference_cell_placement(tree, grid)  # type: ignore[arg-type]
    far = _Tree(ContentColumns(i64([0]), i64([0]), i64([0]), i64([5])))
    with pytest.raises(IndexError):
        tables._cell_placement(far, grid)  # type: ignore[arg-type]


def test_a_page_whose_content_lies_in_no_cell_is_not_a_cell_page() -> None:
    # Elements 1, 2 are table 100's cells; pages 0 and 2 hold content in no cell (elements 0, 3), page 1 in cell 2.
    slots = tables.slot_columns(4, [1, 2], [100], [0, 2], {name: [0] * 2 for name in tables._SLOT_COLUMNS})
    grid = tables.GridLayout(np.array([-1, 1, 2, -1], dtype=np.int64), [1], [2], slots)
    i64 = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    tree = _Tree(ContentColumns(i64([0, 1, 1, 2]), i64([0] * 4), i64([0] * 4), i64([0, 2, 3, 3])))
    for placement in (tables._cell_placement(tree, grid), tables._reference_cell_placement(tree, grid)):  # type: ignore[arg-type]
        assert placement.pages == {1} and placement.on_one_page == {100}



def test_a_table_count_no_buffer_holds_is_refused() -> None:
    # n_tables + 1 overflowed at 2**63 - 1, and from 2**61 its bytes wrapped to
    # a few (UBSan's report under fuzz/kernel_fuzz.py's regression huge_table_count).
    empty = np.zeros(0, dtype=np.int64)
    for count in (2**63 - 1, 2**61):
        with pytest.raises(MemoryError):
            _core.on_one_page(empty, empty, empty, empty, empty, count)
    assert _core.on_one_page(empty, empty, empty, empty, empty, 3) == ([], [])  # no table, no page with a cell


@pytest.mark.slow
def test_the_compiled_finish_is_the_reference_on_the_corpus(monkeypatch: pytest.MonkeyPatch, corpus: Path) -> None:
    """Every table the corpus's tagged files give (structure mode, pages read
    together and alone) and its files' detected tables (layout mode): the
    compiled finish equals the reference's on the table's own inputs."""
    with open(CORPUS / "MANIFEST.tsv", encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle, delimiter="\t") if not row["path"].startswith("broken/")]
    compiled, seen = tables._finished_cells, []

    def both(*table: object) -> tables._Finished:
        got, expected = compiled(*table), tables._reference_finished_cells(*table)  # type: ignore[arg-type]
        assert repr(got) == repr(expected)
        seen.append(len(got.cells))
        return got

    monkeypatch.setattr(tables, "_finished_cells", both)
    placement, trees = tables._cell_placement, []

    def placement_both(tree: object, layout: tables.GridLayout) -> tables.CellPlacement:
        got = placement(tree, layout)  # type: ignore[arg-type]
        assert got == tables._reference_cell_placement(tree, layout)  # type: ignore[arg-type]
        trees.append(len(got.on_one_page))
        return got

    monkeypatch.setattr(tables, "_cell_placement", placement_both)
    for row in rows:
        if row["tagged"] == "yes":
            extract_document(corpus / row["path"], mode="structure")
            with open_document(corpus / row["path"]) as document:
                for number in range(1, min(document.page_count, 4) + 1):
                    document.extract_page(number, "structure")
        extract_document(corpus / row["path"], mode="layout")
    assert len(seen) > 200 and sum(seen) > 20_000  # the tables finished, and their cells
    assert len(trees) > 20 and sum(trees) > 50  # the trees with a table, and the tables on one page


def test_a_page_reading_looks_for_cells_only_on_the_cell_pages() -> None:
    slots = tables.slot_columns(3, [1], [0], [0, 1], {name: [0] for name in tables._SLOT_COLUMNS})
    cell_of = np.array([-1, 1, 1], dtype=np.int64)
    known = tables.TableGrids({0: (1, 1)}, cell_of, slots, frozenset(), frozenset({(7, 0)}))
    assert known.shows_cells((7, 0)) and not known.shows_cells((8, 0))
    by_hand = tables.TableGrids({0: (1, 1)}, cell_of, slots)  # pages not known: any page may show a cell
    assert by_hand.shows_cells((8, 0))
    none = tables.TableGrids({}, cell_of, tables.slot_columns(3, [], [], [0], {name: [] for name in tables._SLOT_COLUMNS}))
    assert not none.shows_cells((7, 0))
