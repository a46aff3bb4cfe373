"""Tables as text, row by row: the one rendering of table rows that chunks and
``ragprep extract --tables`` share.

Formats (``TABLE_FORMATS``):

* ``markdown``: pipe rows, ``| North Gate | Alder | 312 |``; the first row of
  a rendering that opens with the header gets the ``| --- |`` line after it,
  so a rendering that starts with the header is a valid Markdown table. Pipes
  in a cell are escaped (``\\|``);
* ``tsv``: the cells of a row joined by a tab (tabs in a cell become spaces);
* ``lines``: one cell per line, a blank line between rows.

A cell that spans several slots shows its text in its first slot; the slots
it covers are empty. Cell texts are single lines (``tables.cell_text``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ragprep.extract.tables import Table

MARKDOWN, TSV, LINES = "markdown", "tsv", "lines"
TABLE_FORMATS = (MARKDOWN, TSV, LINES)


def grid_texts(table: Table, first_row: int = 0, last_row: int | None = None) -> list[list[str]]:
    """Rows `first_row`..`last_row` (inclusive; default: to the end) of the
    table's grid as texts, ``n_cols`` slots each."""
    last = table.n_rows - 1 if last_row is None else last_row
    rows = [[""] * table.n_cols for _ in range(first_row, last + 1)]
    for cell in table.cells:
        if first_row <= cell.row <= last and cell.col < table.n_cols:
            rows[cell.row - first_row][cell.col] = cell.text
    return rows


def render_rows(rows: Sequence[Sequence[str]], table_format: str, *, opens_header: bool) -> str:
    """Rows of cell texts in `table_format`, one line per row (``lines``: one
    per cell); `opens_header`: the first row is the table's header line (in
    Markdown the separator follows it)."""
    if table_format == TSV:
        return "\n".join("\t".join(text.replace("\t", " ") for text in row) for row in rows)
    if table_format == LINES:
        return "\n\n".join("\n".join(text for text in row if text) for row in rows)
    if table_format != MARKDOWN:
        raise ValueError(f"unknown table format {table_format!r}; known: {', '.join(TABLE_FORMATS)}")
    lines = ["| " + " | ".join(text.replace("|", "\\|") for text in row) + " |" for row in rows]
    if opens_header and lines:
        lines.insert(1, "|" + " --- |" * len(rows[0]))
    return "\n".join(lines)


def header_row_count(table: Table) -> int:
    """Rows repeated as the header: the table's header rows, else its first
    row (a Markdown table needs a header line)."""
    return max(table.header_rows, 1) if table.n_rows else 0


def render_table(table: Table, table_format: str = MARKDOWN) -> str:
    """The whole table, header first."""
    return render_rows(grid_texts(table), table_format, opens_header=True)
