"""Tables in chunks: a table's rows become chunks of their own, rendered row by row.

The typed tables of the extract stage (``DocumentResult.tables``, tagged and
detected) replace the blocks their cells cover: where the first of those
blocks stood, the table's chunks come, made of whole rows; prose packing goes
on after the table's last block. Rules:

* a row is never split; a chunk holds consecutive rows of one table and no
  prose, and stays within ``max_tokens`` unless one row (with the header
  repeated, or the header rows with the first row) is larger; the header rows
  never make a chunk of their own;
* a chunk that starts after the table's header rows (its TH rows, else its
  first row) repeats them in ``header_prefix`` (``repeat_table_header``), so
  in Markdown every chunk of a table is a valid table with its header (a
  header of more than half the budget is not repeated);
* rows are rendered in ``chunk.table_format`` (``extract.tabletext``);
* the text is exact: ``chunk.text == header_prefix + render_rows(cell texts
  of rows table_row_start..table_row_end)``, a cell's text being its
  ``TableCell.text`` (the ``tables`` table's ``text``) normalised
  (``normalise``) with its blanks collapsed to single spaces;
  ``char_start``/``char_end`` run from the first to the last character of those
  rows' cells in the document text. A tagged cell's text is its span of the
  page text with its blanks collapsed; a detected cell's, its own glyphs joined.
* a block belongs to a table when at least half of its characters lie in the
  table's cells (a line of a detected table may run over several cells).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ragprep.extract import Table, header_row_count, render_rows
from ragprep.extract import PageResult

from ragprep.chunk.blocks import DocBlock
from ragprep.chunk.config import ChunkConfig
from ragprep.chunk.normalise import normaliser
from ragprep.chunk.tokens import Tokenizer


@dataclass(frozen=True)
class CellSpan:
    col: int
    text: str  # TableCell.text
    start: int  # span in the document text
    end: int
    page: int
    bbox: tuple[float, float, float, float] | None
    mcids: tuple[int, ...]


@dataclass(frozen=True)
class TableRow:
    row: int  # row index in its table
    cells: tuple[CellSpan, ...]  # cells that start in this row and have content


@dataclass(frozen=True)
class DocTable:
    table_id: str
    n_cols: int
    header_count: int  # rows repeated as the header (tabletext.header_row_count)
    rows: tuple[TableRow, ...]  # rows with content, in order
    blocks: tuple[int, ...]  # DocBlock indices its cells cover


@dataclass(frozen=True)
class TableChunk:
    """One chunk's worth of a table: rows first..last (positions in DocTable.rows)."""

    table: DocTable
    first: int
    last: int
    prefix: str
    text: str  # prefix + rendered rows
    tokens: int


def document_tables(pages: Sequence[PageResult], bases: Sequence[int], tables: Sequence[Table], blocks: Sequence[DocBlock]) -> list[DocTable]:
    """The tables with their cells' spans on the document text and the blocks
    they cover (a block covered by a cell: its span lies inside the cell's)."""
    base_of = {p.page: base for p, base in zip(pages, bases, strict=True)}
    out = []
    # Cell spans per page, sorted, for the block lookup.
    spans: list[tuple[int, int, int]] = []  # (start, end, table position)
    for position, table in enumerate(tables):
        rows: dict[int, list[CellSpan]] = defaultdict(list)
        for cell in table.cells:
            if cell.char_start < 0 or cell.page not in base_of:
                continue
            start, end = base_of[cell.page] + cell.char_start, base_of[cell.page] + cell.char_end
            rows[cell.row].append(CellSpan(cell.col, cell.text, start, end, cell.page, cell.bbox, cell.mcids))
            spans.append((start, end, position))
        for cell in table.repeats:  # a header repeated on a continuation page: covered, not rendered again
            if cell.char_start >= 0 and cell.page in base_of:
                base = base_of[cell.page]
                spans.append((base + cell.char_start, base + cell.char_end, position))
        doc_rows = tuple(TableRow(r, tuple(sorted(rows[r], key=lambda c: c.col))) for r in sorted(rows))
        out.append(DocTable(table.table_id, table.n_cols, header_row_count(table), doc_rows, ()))
    spans.sort()
    starts = [s[0] for s in spans]
    longest = max((e - s for s, e, _ in spans), default=0)
    covered: dict[int, list[int]] = defaultdict(list)
    for b in blocks:
        inside: dict[int, int] = defaultdict(int)
        k = bisect.bisect_left(starts, b.start - longest)
        while k < len(spans) and spans[k][0] < b.end:
            start, end, position = spans[k]
            inside[position] += max(0, min(end, b.end) - max(start, b.start))
            k += 1
        if inside:
            position, share = max(inside.items(), key=lambda item: item[1])
            if 2 * share >= b.end - b.start:
                covered[position].append(b.index)
    return [
        DocTable(t.table_id, t.n_cols, t.header_count, t.rows, tuple(covered[i]))
        for i, t in enumerate(out)
        if covered[i] and t.rows
    ]


# What ``render_rows`` puts between two rows, by table format (a test holds it to that).
_ROW_SEPARATOR = {"markdown": "\n", "tsv": "\n", "lines": "\n\n"}


class TableRenderer:
    """Rows of one document's tables as chunk text."""

    def __init__(self, text: str, tokenizer: Tokenizer, config: ChunkConfig) -> None:
        self.text = text
        self.tok = tokenizer
        self.cfg = config
        self.normalise = normaliser(config)
        # Packing renders a chunk's rows again for every row it tries to add:
        # each row's texts are normalised once (by the row's identity; the row
        # is held here, so its id is not reused), and the count of the text a
        # chunk ends with is kept for the chunk.
        self._rows: dict[int, tuple[TableRow, list[str]]] = {}
        self._counts: dict[str, int] = {}

    def cell_text(self, cell: CellSpan) -> str:
        return " ".join(self.normalise(cell.text).split())

    def row_texts(self, table: DocTable, row: TableRow) -> list[str]:
        known = self._rows.get(id(row))
        if known is None:
            slots = [""] * table.n_cols
            for cell in row.cells:
                if cell.col < len(slots):
                    slots[cell.col] = self.cell_text(cell)
            known = self._rows[id(row)] = (row, slots)
        return list(known[1])

    def render(self, table: DocTable, first: int, last: int) -> str:
        rows = [self.row_texts(table, r) for r in table.rows[first : last + 1]]
        return render_rows(rows, self.cfg.table_format, opens_header=table.rows[first].row == 0)

    def header_prefix(self, table: DocTable, first: int) -> str:
        """The header rows for a chunk starting at row position `first` ("" at or inside the header)."""
        header = [k for k, r in enumerate(table.rows) if r.row < table.header_count]
        if not self.cfg.repeat_table_header or not header or table.rows[first].row < table.header_count:
            return ""
        return self.render(table, header[0], header[-1]) + "\n"

    def chunks(self, table: DocTable) -> list[TableChunk]:
        """Whole rows packed greedily under the budget, header repeated."""
        budget = self.cfg.max_tokens
        out: list[TableChunk] = []
        first, n = 0, len(table.rows)
        header_end = sum(1 for r in table.rows if r.row < table.header_count)  # rows positions of the header
        while first < n:
            prefix = self.header_prefix(table, first)
            if prefix and self._count(prefix) > budget // 2:
                prefix = ""  # a header too large to repeat is left out, not the budget broken
            last, tokens = first, self._opening_count(table, prefix, first)
            # The header rows never make a chunk of their own: the first body row joins them.
            while last + 1 < n:
                grown = self._grown_count(table, last, tokens)
                if last + 1 > header_end:
                    if grown is None:
                        grown = self._count_if_fits(table, prefix, first, last + 1)
                    if grown is None or grown > budget:
                        break
                last, tokens = last + 1, grown
            text = prefix + self.render(table, first, last)
            out.append(TableChunk(table, first, last, prefix, text, self._count(text) if tokens is None else tokens))
            first = last + 1
        self._counts.clear()
        return out

    def _count(self, text: str) -> int:
        counted = self._counts.get(text)
        if counted is None:
            counted = self._counts[text] = self.tok.count(text)
        return counted

    def _line(self, table: DocTable, position: int) -> str:
        """Row `position` rendered alone, as it follows the row before it."""
        return render_rows([self.row_texts(table, table.rows[position])], self.cfg.table_format, opens_header=False)

    def _opening_count(self, table: DocTable, prefix: str, first: int) -> int | None:
        """Tokens of ``prefix + render(table, first, first)``, the prefix's and
        the row's counts joined (``Tokenizer.joins``); None where the rule
        claims nothing."""
        opening = self.render(table, first, first)
        if not prefix:
            return self._count(opening)
        return self.tok.joins.after_break(prefix, self._count(prefix), opening, self._count(opening))

    def _grown_count(self, table: DocTable, last: int, tokens: int | None) -> int | None:
        """Tokens of a chunk's text with row ``last + 1`` added, from `tokens`,
        those of its text up to row `last`: ``render_rows`` puts
        ``_ROW_SEPARATOR`` between rows, and the rows' counts join
        (``Tokenizer.joins``). None where that is not known."""
        sep = _ROW_SEPARATOR.get(self.cfg.table_format)
        if tokens is None or sep is None:
            return None
        # How the text up to row `last` ends: that row, or (a rendering that
        # opens with the header) the Markdown separator line after it.
        before, line = self.render(table, last, last), self._line(table, last + 1)
        return self.tok.joins.joined(before, tokens, sep, line, self._count(line))

    def _count_if_fits(self, table: DocTable, prefix: str, first: int, last: int) -> int | None:
        """Tokens of the chunk of rows first..last, or None when over the budget
        by its word count alone (Tokenizer.at_least)."""
        text = prefix + self.render(table, first, last)
        return self._count(text) if self.tok.at_least(text) <= self.cfg.max_tokens else None
