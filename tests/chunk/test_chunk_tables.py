"""Tables in chunks (chunk/tables.py): rows rendered, never split, the header
repeated, exact spans; the 3-page table scenario."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from pdfbuilder import PdfBuilder
from tabledocs import build_table, ruled_table, text_at

from ragprep.chunk import ChunkConfig, Tokenizer, chunk_document, document_text, normalise
from ragprep.extract import extract_document

HEADER = "| Station | River | Flow |\n| --- | --- | --- |"


def station_rows(n: int) -> list[list[tuple[str, str, None]]]:
    head = [("TH", "Station", None), ("TH", "River", None), ("TH", "Flow", None)]
    return [head] + [[("TD", f"Gate {i}", None), ("TD", f"River {i % 7}", None), ("TD", str(300 + i), None)] for i in range(n)]


def chunks_of(pdf: bytes, **config):
    result = extract_document(pdf, mode="structure")
    cfg = ChunkConfig().replace(**config)
    return result, chunk_document(result, doc_id="d", source="t.pdf", config=cfg)


def expected_row(i: int) -> str:
    return f"| Gate {i} | River {i % 7} | {300 + i} |"


def markdown_rows(c, max_tokens: int) -> list[str]:
    """The body rows of a table chunk, checked: within the budget, a valid
    Markdown table (the header line, its separator, pipe rows of three cells),
    the header repeated only after the first chunk, rows table_row_start..end
    whole and in order (row 0 being the header)."""
    assert c.n_tokens <= max_tokens
    lines = c.text.split("\n")
    assert "\n".join(lines[:2]) == HEADER
    body = lines[2:]
    assert all(re.fullmatch(r"\| Gate \d+ \| River \d \| \d+ \|", line) for line in body)
    assert c.header_prefix == ("" if c.table_row_start == 0 else HEADER + "\n")
    first = max(c.table_row_start, 1)
    assert body == [expected_row(r - 1) for r in range(first, c.table_row_end + 1)]
    return body


def test_three_page_table_every_chunk_a_markdown_table_with_its_header():
    pdf = build_table(station_rows(90), page_rows=[31, 30, 30], thead=1, prose=("Flows measured in May.", "End of report."))
    result, chunks = chunks_of(pdf, max_tokens=120, overlap_tokens=0)
    text, _ = document_text(result.pages)
    # The short paragraphs above and below the table are its title and its note: they
    # open its first chunk and close its last, each parted from the rows by a blank line.
    title, note = "Flows measured in May.\n\n", "\n\nEnd of report."
    assert all(c.table_id == result.tables[0].table_id for c in chunks)
    assert chunks[0].text.startswith(title + HEADER) and chunks[-1].text.endswith(note)
    assert chunks[0].char_start == text.index("Flows") and chunks[-1].char_end == text.index("report.") + len("report.")
    assert "P" in chunks[0].struct_types and chunks[0].struct_types[0] == "Table"
    seen: list[str] = []
    for c in chunks:
        # The rows alone (title and note taken off) are checked as every table chunk's.
        rows = replace(c, text=c.text.removeprefix(title).removesuffix(note))
        body = markdown_rows(rows, 120)
        lines = rows.text.split("\n")
        span = text[c.char_start : c.char_end]
        span = span.removeprefix("Flows measured in May.").removesuffix("End of report.")
        span_words = normalise(span).split()
        cell_words = " ".join(line.strip("| ").replace(" | ", " ") for line in lines[2 if c.table_row_start else 0 :]).split()
        if c.table_row_start == 0:
            cell_words = [w for w in cell_words if w != "---"]
        assert span_words == cell_words
        seen += body
    assert seen == [expected_row(i) for i in range(90)]  # no row lost, none twice


@pytest.mark.parametrize(
    "table_format, first_chunk",
    [
        ("tsv", "Station\tRiver\tFlow\nGate 0\tRiver 0\t300"),
        ("lines", "Station\nRiver\nFlow\n\nGate 0\nRiver 0\n300"),
    ],
)
def test_table_format_tsv_and_lines(table_format, first_chunk):
    _, chunks = chunks_of(build_table(station_rows(2)), table_format=table_format)
    (chunk,) = chunks
    assert chunk.text.startswith(first_chunk)


def test_a_row_over_the_budget_is_one_chunk_not_split():
    long = " ".join(["ab"] * 24)
    rows = [[("TH", "K", None), ("TH", "V", None)], [("TD", "a", None), ("TD", long, None)], [("TD", "b", None), ("TD", "short", None)]]
    _, chunks = chunks_of(build_table(rows), max_tokens=20, overlap_tokens=0)
    # The header joins the first row although together they are over the budget.
    assert [c.text for c in chunks] == [
        f"| K | V |\n| --- | --- |\n| a | {long} |",
        "| K | V |\n| --- | --- |\n| b | short |",
    ]
    assert [(c.table_row_start, c.table_row_end) for c in chunks] == [(0, 1), (2, 2)]
    assert chunks[0].n_tokens > 20 and chunks[1].n_tokens <= 20


def test_table_without_header_cells_repeats_its_first_row():
    rows = [[("TD", "Name", None), ("TD", "Qty", None)]] + [[("TD", f"n{i}", None), ("TD", str(i), None)] for i in range(40)]
    _, chunks = chunks_of(build_table(rows), max_tokens=60, overlap_tokens=0)
    assert len(chunks) > 1
    assert all(c.text.startswith("| Name | Qty |\n| --- | --- |\n") for c in chunks)


def test_detected_table_over_three_pages_chunks_as_markdown_tables_with_its_header():
    """An untagged ruled table continued over three pages (its header repeated
    on page 2, not on page 3) is one detected table, chunked like a tagged one."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    xs = [72.0, 200.0, 330.0, 420.0]
    head = ["Station", "River", "Flow"]
    rows = [[f"Gate {i}", f"River {i % 7}", str(300 + i)] for i in range(85)]
    b.add_page(text_at(f, 72, 760, "Flows measured in May.") + " " + ruled_table(f, [head, *rows[:34]], 740, xs))
    b.add_page(ruled_table(f, [head, *rows[34:68]], 760, xs))
    b.add_page(ruled_table(f, rows[68:], 760, xs) + " " + text_at(f, 72, 380, "End of report."))
    result = extract_document(b.to_bytes(), mode="layout")
    (table,) = result.tables
    assert table.pages == (1, 2, 3) and table.n_rows == 86 and table.header_rows == 1
    # min_tokens=0: the title and the note stay chunks of their own (tested on a tagged table above).
    config = ChunkConfig().replace(max_tokens=120, overlap_tokens=0, min_tokens=0)
    chunks = chunk_document(result, doc_id="d", source="t.pdf", config=config)
    text, bases = document_text(result.pages)
    page_index = {p.page: k for k, p in enumerate(result.pages)}
    assert [c.text for c in chunks if c.table_id is None] == ["Flows measured in May.", "End of report."]
    table_chunks = [c for c in chunks if c.table_id is not None]
    assert len(table_chunks) > 3 and {c.page_start for c in table_chunks} == {1, 2, 3}
    seen: list[str] = []
    for c in table_chunks:
        body = markdown_rows(c, 120)
        # The documented table equivalent of the offset rule: each cell of the
        # rows is its own span of the document text, and the chunk runs from the
        # first to the last character of those spans.
        spans = [
            (bases[page_index[cell.page]] + cell.char_start, bases[page_index[cell.page]] + cell.char_end, cell.text)
            for cell in table.cells
            if c.table_row_start <= cell.row <= c.table_row_end
        ]
        assert all(" ".join(normalise(text[s:e]).split()) == t for s, e, t in spans)
        assert (c.char_start, c.char_end) == (min(s for s, _, _ in spans), max(e for _, e, _ in spans))
        seen += body
    assert seen == [expected_row(i) for i in range(85)]  # no row lost, none twice, the repeat not a row


def test_a_small_title_opens_its_table_and_a_note_closes_it_within_the_budget():
    rows = [[("TH", "K", None), ("TH", "V", None)]] + [[("TD", f"k{i}", None), ("TD", f"v{i}", None)] for i in range(3)]
    pdf = build_table(rows, thead=1, prose=("Table 2: Gate keys.", "Source: the gate log."))
    result, chunks = chunks_of(pdf, overlap_tokens=0)
    text, _ = document_text(result.pages)
    rendered = "| K | V |\n| --- | --- |\n" + "\n".join(f"| k{i} | v{i} |" for i in range(3))
    [chunk] = chunks
    assert chunk.text == f"Table 2: Gate keys.\n\n{rendered}\n\nSource: the gate log."
    assert (chunk.table_row_start, chunk.table_row_end) == (0, 3) and not chunk.is_boilerplate
    assert (chunk.char_start, chunk.char_end) == (text.index("Table 2"), len(text.rstrip()))
    assert chunk.n_tokens == Tokenizer.load(ChunkConfig().tokenizer_name).count(chunk.text)
    # A title that does not fit with the first rows stays a chunk of its own; so does a
    # paragraph of chunk.min_tokens or more (it is text, not a title).
    budget = Tokenizer.load(ChunkConfig().tokenizer_name).count(rendered)
    tight = chunks_of(pdf, overlap_tokens=0, max_tokens=budget + 2)[1]
    assert [c.text for c in tight][0] == "Table 2: Gate keys." and tight[1].text.startswith("| K | V |")
    long_title = " ".join(["A long paragraph of text that is no title."] * 3)
    texts = [c.text for c in chunks_of(build_table(rows, thead=1, prose=(long_title, "End.")), overlap_tokens=0)[1]]
    assert texts[0] == long_title and texts[1].startswith("| K | V |") and texts[1].endswith("\n\nEnd.")
