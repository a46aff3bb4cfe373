"""Fixture PDFs with tables, shared by the extract, chunk and pipeline tests."""

from __future__ import annotations

from pdfbuilder import PdfBuilder
from pikepdf import String


def cell_line(font: str, x: float, y: float, text: str, mcid: int) -> str:
    return f"/TD <</MCID {mcid}>> BDC BT /{font} 10 Tf {x} {y} Td ({text}) Tj ET EMC"


def build_table(
    rows: list[list[tuple[str, str, dict | None]]],
    *,
    page_rows: list[int] | None = None,
    thead: int = 0,
    role_map: dict[str, str] | None = None,
    ids: dict[tuple[int, int], str] | None = None,
    types: dict[str, str] | None = None,
    prose: tuple[str, str] | None = None,
) -> bytes:
    """A tagged table: rows of (type, text, attributes) painted column by column
    (the stream order is not the reading order); ``page_rows`` rows per page
    (one page by default); the first ``thead`` rows under THead, the rest under
    TBody; ``prose``: a paragraph above the table and one below it."""
    types = types or {}
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    page_rows = page_rows or [len(rows)]
    pages, row_page = [], []
    first = 0
    for count in page_rows:
        pieces = []
        for c in range(max(len(r) for r in rows)):
            for r in range(first, first + count):
                if c < len(rows[r]):
                    pieces.append(cell_line(f, 72 + 120 * c, 700 - 20 * (r - first), rows[r][c][1], r * 10 + c))
        if prose and not pages:
            pieces.append(f"/P <</MCID 9000>> BDC BT /{f} 10 Tf 72 740 Td ({prose[0]}) Tj ET EMC")
        if prose and first + count == len(rows):
            pieces.append(f"/P <</MCID 9001>> BDC BT /{f} 10 Tf 72 {670 - 20 * count} Td ({prose[1]}) Tj ET EMC")
        pages.append(b.add_page(" ".join(pieces)))
        row_page += [pages[-1]] * count
        first += count
    tr_elements = []
    for r, row in enumerate(rows):
        cells = []
        for c, (kind, _, attrs) in enumerate(row):
            elem = b.struct_element(types.get(kind, kind), [r * 10 + c], page=row_page[r], attrs=attrs)
            if ids and (r, c) in ids:
                elem.ID = String(ids[r, c])
            cells.append(elem)
        tr_elements.append(b.struct_element(types.get("TR", "TR"), cells, page=row_page[r]))
    groups = tr_elements
    if thead:
        groups = [
            b.struct_element("THead", tr_elements[:thead], page=pages[0]),
            b.struct_element("TBody", tr_elements[thead:], page=pages[0]),
        ]
    table = b.struct_element(types.get("Table", "Table"), groups, page=pages[0])
    kids = [table]
    if prose:
        kids = [b.struct_element("P", [9000], page=pages[0]), table, b.struct_element("P", [9001], page=pages[-1])]
    b.set_struct_tree([b.struct_element("Document", kids, page=pages[0])], role_map=role_map)
    return b.to_bytes()


def text_at(font: str, x: float, y: float, text: str, size: float = 10) -> str:
    return f"BT /{font} {size} Tf {x} {y} Td ({text}) Tj ET"


def ruled_grid(xs: list[float], ys: list[float]) -> str:
    """Stroked rules: a horizontal line at every y across xs, a vertical one at every x across ys."""
    lines = [f"{xs[0]} {y} m {xs[-1]} {y} l S" for y in ys] + [f"{x} {ys[0]} m {x} {ys[-1]} l S" for x in xs]
    return "0.5 w " + " ".join(lines)


def cells_by_column(font: str, rows: list[list[str]], xs: list[float], top: float, pitch: float = 20) -> str:
    """Cell texts painted column by column (the stream is not in reading order):
    row r on the baseline top - 14 - r * pitch, column c at xs[c] + 4."""
    return " ".join(
        text_at(font, xs[c] + 4, top - 14 - r * pitch, rows[r][c])
        for c in range(len(rows[0]))
        for r in range(len(rows))
        if rows[r][c]
    )


def ruled_table(font: str, rows: list[list[str]], top: float, xs: list[float], pitch: float = 20) -> str:
    """A ruled table painted column by column: rules around every cell, row r's
    texts on the baseline top - 14 - r * pitch."""
    ys = [top - pitch * r for r in range(len(rows) + 1)]
    return ruled_grid(xs, ys) + " " + cells_by_column(font, rows, xs, top, pitch)
