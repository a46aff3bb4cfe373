"""Tagged tables of the corpus (../shared/corpus): one test per kind of producer.
The grids asserted are those the files' tags declare (read with a PDF viewer's
tag panel): row and column counts, spans on their slots, header cells."""

from __future__ import annotations

from pathlib import Path

from ragprep.extract import extract_document


def tables(corpus: Path, name: str):
    return extract_document(corpus / name, mode="structure").tables


def cells(table) -> dict[tuple[int, int], tuple[str, int, int, bool]]:
    return {(c.row, c.col): (c.text, c.row_span, c.col_span, c.is_header) for c in table.cells}


def test_word_table_with_header_row_and_row_headers(corpus):
    (table,) = tables(corpus, "tagged/word365-styled-table.pdf")
    assert (table.n_rows, table.n_cols, table.header_rows) == (5, 3, 1)
    grid = cells(table)
    assert [grid[0, c][0] for c in range(3)] == ["Column 1", "Column 2", "Column 3"]
    assert grid[1, 0] == ("Zelle (0,0)", 1, 1, True)  # a row header (TH) in column 1
    assert grid[4, 1] == ("Bold-strikeout (3,1)", 1, 1, False)
    labels = {(c.row, c.col): c.header_labels for c in table.cells}
    assert labels[4, 1] == ("Column 2", "Zelle (3,0)")


def test_indesign_table_spans_sit_on_their_slots(corpus):
    first = tables(corpus, "tagged/indesign-home-loan-tables-owner-encrypted.pdf")[0]
    assert (first.n_rows, first.n_cols, first.header_rows) == (20, 12, 2)
    grid = cells(first)
    assert grid[0, 0] == ("Loan Type", 2, 1, True)
    assert grid[0, 2] == ("Principal and Interest rates p.a.", 1, 2, True)
    assert grid[1, 2] == ("Annual percentage rate", 1, 1, True)
    assert grid[1, 3] == ("Comparison rate", 1, 1, True)
    assert grid[0, 11] == ("Offset#", 2, 1, True)
    assert grid[3, 0][2] == 12  # a section row spanning all columns
    assert grid[4, 2] == ("5.37%", 1, 1, False)
    labels = {(c.row, c.col): c.header_labels for c in first.cells}
    assert labels[4, 3] == ("Principal and Interest rates p.a.", "Comparison rate")


def test_excel_table_over_sixteen_pages_is_one_table(corpus):
    (table,) = tables(corpus, "tagged/excel2013-ca-warn-report-16p.pdf")
    assert table.pages == tuple(range(1, 17))
    assert (table.n_rows, table.n_cols) == (651, 9)
    grid = cells(table)
    assert grid[0, 0][0] == "WARN Report*"
    assert [grid[648, c][0] for c in (2, 3, 4)] == ["Total", "632", "53,454"]
    assert {c.page for c in table.cells if c.row == 648} == {16}


def test_word_table_continued_over_four_pages(corpus):
    (table,) = tables(corpus, "tagged/pdfmaker23-word-nist-sp800-223-34p.pdf")
    assert table.pages == (28, 29, 30, 31) and table.n_rows == 60
    assert cells(table)[0, 0][0] == "[1]" and cells(table)[59, 0][0] == "[65]"


def test_chinese_excel_table(corpus):
    (table,) = tables(corpus, "cjk-rtl/zh-excel-tagged-product-codes.pdf")
    assert (table.n_rows, table.n_cols) == (44, 7)
    grid = cells(table)
    assert [grid[0, c][0] for c in range(4)] == ["商品编码", "数量", "商品名称", "商品基本条码"]
    assert [grid[1, c][0] for c in range(3)] == ["302000001", "10.12", "散称华联粉条"]


def test_persian_word_tables(corpus):
    first, second = tables(corpus, "cjk-rtl/fa-word-tagged-exchange-notice.pdf")
    assert (first.n_rows, first.n_cols, second.n_rows, second.n_cols) == (5, 2, 8, 2)
    assert cells(first)[1, 0][0] == "شماره استاندارد ملی"
    assert cells(first)[1, 1][0] == "20300"
    assert cells(second)[2, 1][0] == "436"


def test_libreoffice_table_with_header_labels(corpus):
    (table,) = tables(corpus, "tagged/libreoffice73-fr-structure.pdf")
    assert [(c.row, c.col, c.text, c.header_labels) for c in table.cells] == [
        (0, 0, "Chose", ()), (0, 1, "Truc", ()),
        (1, 0, "Chose 1", ("Chose",)), (1, 1, "Truc 1", ("Truc",)),
        (2, 0, "Chose 2", ("Chose",)), (2, 1, "Truc 2", ("Truc",)),
    ]  # fmt: skip
