"""tables._finished_cells, compiled (_core.table_finish) against its Python
reference (tables._reference_finished_cells).

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

import pytest
from corpusdir import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract import _core, extract_document, open_document, tables
from ragprep.extract.compiled import compiled_available
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
    for row in rows:
        if row["tagged"] == "yes":
            extract_document(corpus / row["path"], mode="structure")
            with open_document(corpus / row["path"]) as document:
                for number in range(1, min(document.page_count, 4) + 1):
                    document.extract_page(number, "structure")
        extract_document(corpus / row["path"], mode="layout")
    assert len(seen) > 200 and sum(seen) > 20_000  # the tables finished, and their cells
