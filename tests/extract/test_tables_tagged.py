"""Typed tables from the structure tree (§14.8.4.3.4, §14.8.5.7): grids, spans,
header labels, cell spans in the page text, tables across pages."""

from __future__ import annotations

import numpy as np
import pytest
from pdfbuilder import PdfBuilder
from pikepdf import Array, Dictionary, Name, String
from tabledocs import build_table, cell_line

from ragprep.extract import document as document_module
from ragprep.extract import extract_document, open_document
from ragprep.extract.tables import CellContents, GridSlot, grids_of_slots, structure_tables


def grid(table) -> dict[tuple[int, int], tuple[str, int, int, bool]]:
    return {(c.row, c.col): (c.text, c.row_span, c.col_span, c.is_header) for c in table.cells}


TH, TD = "TH", "TD"


def test_cells_read_row_by_row_with_header_labels_by_position():
    pdf = build_table([[(TH, "Station", None), (TH, "Flow", None)], [(TD, "North", None), (TD, "312", None)]])
    result = extract_document(pdf, mode="structure")
    (table,) = result.tables
    assert (table.n_rows, table.n_cols, table.header_rows, table.pages) == (2, 2, 1, (1,))
    assert [(c.row, c.col, c.text) for c in table.cells] == [
        (0, 0, "Station"), (0, 1, "Flow"), (1, 0, "North"), (1, 1, "312"),
    ]  # fmt: skip
    assert [c.header_labels for c in table.cells[2:]] == [("Station",), ("Flow",)]
    page = result.pages[0]
    for c in table.cells:
        # The cell's span is exact in its page text; its MCID is its own.
        assert page.text[c.char_start : c.char_end] == c.text
        assert c.mcids == (c.row * 10 + c.col,)
        x0, y0, x1, y1 = c.bbox
        assert x0 == pytest.approx(72 + 120 * c.col, abs=0.01) and x1 > x0 and y1 > y0


def test_row_and_column_spans_occupy_their_slots():
    rows = [
        [(TH, "Region", {"O": Name.Table, "RowSpan": 2}), (TH, "Rates", {"O": Name.Table, "ColSpan": 2})],
        [(TH, "Fixed", None), (TH, "Variable", None)],
        [(TD, "North", None), (TD, "5.1", None), (TD, "6.2", None)],
    ]
    (table,) = extract_document(build_table(rows), mode="structure").tables
    assert grid(table) == {
        (0, 0): ("Region", 2, 1, True),
        (0, 1): ("Rates", 1, 2, True),
        (1, 1): ("Fixed", 1, 1, True),
        (1, 2): ("Variable", 1, 1, True),
        (2, 0): ("North", 1, 1, False),
        (2, 1): ("5.1", 1, 1, False),
        (2, 2): ("6.2", 1, 1, False),
    }
    assert (table.n_rows, table.n_cols, table.header_rows) == (3, 3, 2)
    labels = {(c.row, c.col): c.header_labels for c in table.cells}
    assert labels[2, 1] == ("Rates", "Fixed")
    assert labels[2, 0] == ("Region",)
    # A head labels the cells after it along its span, never itself or a head before it.
    assert labels[1, 1] == labels[1, 2] == ("Rates",)
    assert labels[0, 0] == labels[0, 1] == ()


def test_scope_row_headers_label_their_row():
    row_scope = {"O": Name.Table, "Scope": Name.Row}
    col_scope = {"O": Name.Table, "Scope": Name.Column}
    rows = [
        [(TD, "", None), (TH, "Q1", col_scope), (TH, "Q2", col_scope)],
        [(TH, "Sales", row_scope), (TD, "10", None), (TD, "12", None)],
    ]
    (table,) = extract_document(build_table(rows), mode="structure").tables
    labels = {(c.row, c.col): c.header_labels for c in table.cells}
    assert labels[1, 1] == ("Q1", "Sales")
    assert labels[1, 2] == ("Q2", "Sales")


def test_headers_attribute_names_header_cells_by_id():
    rows = [
        [(TH, "Name", None), (TH, "Score", None)],
        [(TD, "Ada", None), (TD, "9", {"O": Name.Table, "Headers": Array([String("h-name")])})],
    ]
    pdf = build_table(rows, ids={(0, 0): "h-name", (0, 1): "h-score"})
    (table,) = extract_document(pdf, mode="structure").tables
    labels = {(c.row, c.col): c.header_labels for c in table.cells}
    assert labels[1, 1] == ("Name",)  # /Headers wins over the column position
    assert labels[1, 0] == ("Name",)


def test_role_mapped_table_types_are_tables():
    rows = [[("MyHead", "A", None), ("MyHead", "B", None)], [("MyCell", "1", None), ("MyCell", "2", None)]]
    pdf = build_table(
        rows,
        role_map={"MyTable": "Table", "MyRow": "TR", "MyHead": "TH", "MyCell": "TD"},
        types={"Table": "MyTable", "TR": "MyRow"},
    )
    (table,) = extract_document(pdf, mode="structure").tables
    assert grid(table) == {
        (0, 0): ("A", 1, 1, True), (0, 1): ("B", 1, 1, True),
        (1, 0): ("1", 1, 1, False), (1, 1): ("2", 1, 1, False),
    }  # fmt: skip


def test_a_table_over_two_pages_is_one_table_labelled_from_its_first_page():
    rows = [[(TH, "Item", None), (TH, "Qty", None)]] + [[(TD, f"item {i}", None), (TD, str(i), None)] for i in range(4)]
    result = extract_document(build_table(rows, page_rows=[3, 2], thead=1), mode="structure")
    (table,) = result.tables
    assert table.pages == (1, 2) and table.n_rows == 5
    assert [c.text for c in table.cells] == ["Item", "Qty"] + [t for i in range(4) for t in (f"item {i}", str(i))]
    second = [c for c in table.cells if c.page == 2]
    assert [c.row for c in second] == [3, 3, 4, 4]
    # The header on page 1 labels the cells on page 2.
    assert [c.header_labels for c in second] == [("Item",), ("Qty",)] * 2
    # Each page result carries its piece of the one table, same id.
    assert [t.table_id for t in result.pages[1].tables] == [table.table_id]
    assert [c.row for c in result.pages[1].tables[0].cells] == [3, 3, 4, 4]
    assert result.pages[1].tables[0].cells[0].header_labels == ("Item",)


def test_a_page_read_alone_labels_its_piece_as_it_sees_it_and_pages_read_together_are_labelled_once(
    monkeypatch: pytest.MonkeyPatch,
):
    rows = [[(TH, "Item", None), (TH, "Qty", None)]] + [[(TD, f"item {i}", None), (TD, str(i), None)] for i in range(4)]
    pdf = build_table(rows, page_rows=[3, 2], thead=1)
    with open_document(pdf) as doc:
        first, second = doc.extract_page(1, "structure"), doc.extract_page(2, "structure")
    # Alone, page 2 sees no header row; page 1 labels its own rows.
    assert [c.header_labels for c in second.tables[0].cells] == [()] * 4
    assert [c.header_labels for c in first.tables[0].cells[2:]] == [("Item",), ("Qty",)] * 2

    # Read together, only merge_tables labels (the whole grid): the pieces come unlabelled.
    handed: list[tuple[str, ...]] = []
    merge = document_module.merge_tables

    def watched(pieces, grids=None, **options):
        pieces = list(pieces)
        handed.extend(c.header_labels for piece in pieces for c in piece.cells)
        return merge(pieces, grids, **options)

    monkeypatch.setattr(document_module, "merge_tables", watched)
    with open_document(pdf) as doc:
        together = doc.read("structure")
    assert handed == [()] * 10
    assert [c.header_labels for c in together.pages[1].tables[0].cells] == [("Item",), ("Qty",)] * 2


def test_a_table_only_one_page_shows_is_labelled_whole_by_that_page_and_not_merged_again(
    monkeypatch: pytest.MonkeyPatch,
):
    # Two tables: the first on pages 1 and 2, the second all on page 2. Read
    # together, the second is labelled by page 2 (the tree puts all its cells
    # there: TableGrids.on_one_page) and merge_tables sees only the first.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    first = [["Item", "Qty"], ["item 0", "0"], ["item 1", "1"], ["item 2", "2"]]
    second = [["Name", "Age"], ["Ann", "41"]]
    # (page, table, row) of each row; MCIDs r * 10 + c on the page, second table's rows from 50.
    placed = [(0, first, 0), (0, first, 1), (1, first, 2), (1, first, 3), (1, second, 0), (1, second, 1)]
    lines: list[list[str]] = [[], []]
    for k, (page, rows, r) in enumerate(placed):
        mcid = (50 if rows is second else 0) + r * 10
        lines[page] += [cell_line(f, 72 + 120 * c, 700 - 20 * k, rows[r][c], mcid + c) for c in range(2)]
    pages = [b.add_page(" ".join(page_lines)) for page_lines in lines]

    def row(page: int, mcid: int, kind: str):
        return b.struct_element("TR", [b.struct_element(kind, [mcid + c], page=pages[page]) for c in range(2)], page=pages[page])

    head = b.struct_element("THead", [row(0, 0, TH)], page=pages[0])
    body = b.struct_element("TBody", [row(0, 10, TD), row(1, 20, TD), row(1, 30, TD)], page=pages[0])
    tables = [
        b.struct_element("Table", [head, body], page=pages[0]),
        b.struct_element("Table", [row(1, 50, TH), row(1, 60, TD)], page=pages[1]),
    ]
    b.set_struct_tree([b.struct_element("Document", tables, page=pages[0])])
    pdf = b.to_bytes()
    handed: list[str] = []
    merge = document_module.merge_tables

    def watched(pieces, grids=None, **options):
        pieces = list(pieces)
        handed.extend(piece.table_id for piece in pieces)
        return merge(pieces, grids, **options)

    monkeypatch.setattr(document_module, "merge_tables", watched)
    with open_document(pdf) as doc:
        result = doc.read("structure")
        assert len(doc.table_grids.on_one_page) == 1
    whole, split = result.pages[1].tables[1], result.pages[1].tables[0]
    assert [int(whole.table_id[1:])] == list(doc.table_grids.on_one_page)
    assert handed == [split.table_id] * 2  # the first table's two pieces, no piece of the second
    assert [c.header_labels for c in whole.cells] == [(), (), ("Name",), ("Age",)]
    assert (whole.n_rows, whole.header_rows, whole.pages) == (2, 1, (2,))
    assert [c.header_labels for c in split.cells] == [("Item",), ("Qty",)] * 2  # labelled by page 1's head


def test_a_row_span_past_the_last_row_is_cut_there():
    rows = [[(TD, "a", {"O": Name.Table, "RowSpan": 5}), (TD, "b", None)], [(TD, "c", None)]]
    (table,) = extract_document(build_table(rows), mode="structure").tables
    assert grid(table) == {(0, 0): ("a", 2, 1, False), (0, 1): ("b", 1, 1, False), (1, 1): ("c", 1, 1, False)}
    assert (table.n_rows, table.n_cols) == (2, 2)


def test_invalid_span_is_one_and_warned():
    rows = [[(TD, "a", {"O": Name.Table, "ColSpan": 0}), (TD, "b", None)]]
    result = extract_document(build_table(rows), mode="structure")
    assert grid(result.tables[0]) == {(0, 0): ("a", 1, 1, False), (0, 1): ("b", 1, 1, False)}
    assert any("/ColSpan is not a positive integer" in w.message for w in result.pages[0].warnings)


def test_class_map_attributes_apply():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    page = b.add_page(cell_line(f, 72, 700, "Wide", 0) + " " + cell_line(f, 72, 680, "x", 1) + " " + cell_line(f, 192, 680, "y", 2))
    wide = b.struct_element("TD", [0], page=page)
    wide.C = Name("/wide")
    rows = [b.struct_element("TR", [wide], page=page),
            b.struct_element("TR", [b.struct_element("TD", [1], page=page), b.struct_element("TD", [2], page=page)], page=page)]  # fmt: skip
    b.set_struct_tree([b.struct_element("Table", rows, page=page)])
    b.pdf.Root.StructTreeRoot.ClassMap = Dictionary(wide=Dictionary(O=Name.Table, ColSpan=2))
    (table,) = extract_document(b.to_bytes(), mode="structure").tables
    assert grid(table)[0, 0] == ("Wide", 1, 2, False)
    assert table.n_cols == 2


def test_cell_text_joins_lines_and_blank_runs_as_the_rule_says():
    import re

    from ragprep.extract.tables import cell_text

    def rule(text: str) -> str:  # the rule as written: blank runs to one space, ends stripped
        return re.sub(r"\s+", " ", text).strip()

    # The fast path keeps a printable text without double or edge spaces as
    # it is: only the space is both whitespace and printable, on every code point.
    spaces = [c for c in map(chr, range(0x110000)) if re.fullmatch(r"\s", c)]
    assert [c for c in spaces if c.isprintable()] == [" "]
    samples = ["North Gate 312", " a", "a ", "a  b", "", " ", "a\nb", "a\u00a0b", "a\u2028b", "x\u3000y", "é ü"]
    samples += [f"a{c}b" for c in spaces] + [f"{c}a" for c in spaces]
    for text in samples:
        page = f"<<{text}>>"
        assert cell_text(page, 2, 2 + len(text)) == rule(text), repr(text)


def test_a_page_showing_two_tables_gives_one_piece_each_in_the_order_their_text_comes():
    # Table 10's cells are elements 11 and 12, table 20's 21 and 22; the page shows
    # them interleaved by element, table 20's text first, and element 30, no cell.
    slot = {
        key: GridSlot(table, row, 0, 1, 1, row == 0, False, None, (), None)
        for key, table, row in ((11, 10, 0), (12, 10, 1), (21, 20, 0), (22, 20, 1))
    }
    grids = grids_of_slots(40, slot, {10: (2, 1), 20: (2, 1)})
    text = "B0 B1 A0 A1 X"
    spans = {21: (0, 2), 22: (3, 5), 11: (6, 8), 12: (9, 11), 30: (12, 13)}
    keys = [11, 21, 12, 30, 22]
    box = (0.0, 0.0, 1.0, 1.0)
    contents = CellContents(
        keys, [spans[k][0] for k in keys], [spans[k][1] for k in keys], [box] * 5, [(k,) for k in keys]
    )
    pieces = structure_tables(grids, contents, 3, text, labels=False)
    assert [p.table_id for p in pieces] == ["s20", "s10"]
    assert [[(c.row, c.text, c.mcids, c.page) for c in p.cells] for p in pieces] == [
        [(0, "B0", (21,), 3), (1, "B1", (22,), 3)],
        [(0, "A0", (11,), 3), (1, "A1", (12,), 3)],
    ]
    assert structure_tables(grids, CellContents([30], [12], [13], [box], [(30,)]), 3, text) == ()


def test_each_table_of_a_document_starts_its_columns_at_zero():
    # Grids are placed for all tables of a tree at once: a table's first row
    # starts at column 0 even where the table before it ends on a row of the
    # same number (two one-row tables), and a table with a row but no cell
    # (last in the tree) holds no slot. The first table spans a row down.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    texts = ["a", "b", "c", "d", "e", "f", "g"]
    page = b.add_page(" ".join(cell_line(f, 72 + 60 * k, 700, t, k) for k, t in enumerate(texts)))

    def row(*mcids: int, span: int = 1):
        attrs = {"O": Name.Table, "RowSpan": span} if span > 1 else None
        cells = [b.struct_element("TD", [mcids[0]], page=page, attrs=attrs)]
        return b.struct_element("TR", cells + [b.struct_element("TD", [m], page=page) for m in mcids[1:]], page=page)

    tables = [
        b.struct_element("Table", [row(0, 1, span=2), row(2)], page=page),
        b.struct_element("Table", [row(3, 4)], page=page),
        b.struct_element("Table", [row(5, 6)], page=page),
        b.struct_element("Table", [b.struct_element("TR", [], page=page)], page=page),
    ]
    b.set_struct_tree([b.struct_element("Document", tables, page=page)])
    found = extract_document(b.to_bytes(), mode="structure").tables
    assert [grid(t) for t in found] == [
        {(0, 0): ("a", 2, 1, False), (0, 1): ("b", 1, 1, False), (1, 1): ("c", 1, 1, False)},
        {(0, 0): ("d", 1, 1, False), (0, 1): ("e", 1, 1, False)},
        {(0, 0): ("f", 1, 1, False), (0, 1): ("g", 1, 1, False)},
    ]
    assert [(t.n_rows, t.n_cols) for t in found] == [(2, 2), (1, 2), (1, 2)]
