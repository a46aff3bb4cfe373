"""Layout mode: column-aware reading order for untagged pages.

Fixture pages paint their columns in an order the eye does not read (lines
of two columns interleaved, the footer first, columns right to left) and
the tests assert the exact text layout mode reads. Pages whose stream order
is already right, and single-column pages of any shape, must read exactly
as in stream mode.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from pdfbuilder import PdfBuilder, hexstr, text_width, wrap

from ragprep.extract import ExtractConfig, GlyphTable, open_document
from ragprep.extract.geometric import text_glyphs
from ragprep.extract.layout import layout_order, read_layout
from ragprep.extract.reading import PageReading, read_stream
from ragprep.pipeline.compare.metrics import lcs_length, tokenize

CONFIG = ExtractConfig()
SIZE = 10
LEADING = 12


def prose(tag: str, count: int) -> list[str]:
    """`count` distinct words, so that every word's position is checkable."""
    stems = ["river", "stone", "maple", "cloud", "amber", "quiet", "lantern", "harbor", "meadow"]
    return [f"{stems[i % len(stems)]}{tag}{i}" for i in range(count)]


def show(font: str, x: float, y: float, text: str, size: float = SIZE) -> str:
    return f"BT /{font} {size} Tf {x:.2f} {y:.2f} Td ({text}) Tj ET"


def interleave(*columns: list[str]) -> list[tuple[int, int]]:
    """(column, line) pairs in row order: line 0 of every column, then line 1..."""
    rows = itertools.zip_longest(*[range(len(c)) for c in columns])
    return [(c, i) for row in rows for c, i in enumerate(row) if i is not None]


def one_after_another(*columns: list[str]) -> list[tuple[int, int]]:
    """(column, line) pairs column by column."""
    return [(c, i) for c, column in enumerate(columns) for i in range(len(column))]


def paint(
    font: str, columns: list[list[str]], x: tuple[float, ...], top: float, painted: list[tuple[int, int]]
) -> str:
    """Show line i of column c at (x[c], top - i x LEADING), in `painted` order."""
    return " ".join(show(font, x[c], top - LEADING * i, columns[c][i]) for c, i in painted)


def scrambled(font: str, pieces: list[tuple[float, float, str, float]], order: str) -> str:
    """Show each (x, y, text, size) of `pieces` painted as listed (top_down),
    reversed, interleaved (top to bottom, each row left to right) or shuffled
    (seeded)."""
    import random

    pieces = list(pieces)
    if order == "top_down":
        pass
    elif order == "reversed":
        pieces.reverse()
    elif order == "interleaved":
        pieces.sort(key=lambda p: (-p[1], p[0]))
    else:
        random.Random(19).shuffle(pieces)
    return " ".join(show(font, x, y, text, size) for x, y, text, size in pieces)


def column_of_paragraphs(paragraphs: list[list[str]]) -> list[tuple[float, float, str, float]]:
    """(x, y, text, size) of `paragraphs` set down a column from y 700 at x 72,
    LEADING apart, with 8 more between paragraphs."""
    pieces = []
    y = 700.0
    for paragraph in paragraphs:
        for line in paragraph:
            pieces.append((72.0, y, line, float(SIZE)))
            y -= LEADING
        y -= 8
    return pieces


def table_of(b: PdfBuilder, page: int = 1) -> GlyphTable:
    with open_document(b.to_bytes()) as doc:
        return doc.page_glyphs(page).table


def layout(b: PdfBuilder, page: int = 1) -> PageReading:
    return read_layout(table_of(b, page), CONFIG)


def stream_text(b: PdfBuilder, page: int = 1) -> str:
    return read_stream(table_of(b, page), CONFIG).joined.text


# --------------------------------------------------------------------------- fixtures


def two_columns(
    order: Callable[..., list[tuple[int, int]]] = interleave,
) -> tuple[PdfBuilder, list[str], list[str]]:
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 40), 220), wrap(prose("b", 40), 220)
    b.add_page(paint(f, [left, right], (72, 320), 700, order(left, right)))
    return b, left, right


def test_interleaved_two_columns_read_column_after_column():
    b, left, right = two_columns()
    reading = layout(b)
    assert reading.joined.text == "\n".join(left + right)
    # Stream mode reads across the gutter, one row at a time.
    assert stream_text(b).startswith(f"{left[0]} {right[0]}\n{left[1]} {right[1]}")
    assert [block.text for block in reading.blocks] == ["\n".join(left), "\n".join(right)]
    assert [block.struct_type for block in reading.blocks] == ["P", "P"]


def test_blocks_carry_boxes_and_spans_in_the_page_text():
    b, left, right = two_columns()
    reading = layout(b)
    text = reading.joined.text
    for block in reading.blocks:
        assert text[block.char_start : block.char_end] == block.text
    first, second = reading.blocks
    assert first.bbox[0] == pytest.approx(72, abs=0.01) and first.bbox[2] < 300
    assert second.bbox[0] == pytest.approx(320, abs=0.01)
    assert first.bbox[3] == pytest.approx(second.bbox[3])


def test_layout_order_is_a_permutation_of_the_text_glyphs_with_block_starts():
    b, left, right = two_columns()
    table = table_of(b)
    order, block_start = layout_order(table, CONFIG)
    assert sorted(order.tolist()) == text_glyphs(table).tolist()
    assert block_start.dtype == bool and block_start.shape == order.shape
    # Two blocks: one per column, the second starting at the right column's first glyph.
    starts = np.flatnonzero(block_start)
    assert len(starts) == 2 and starts[0] == 0
    assert table.origin[order[starts[1]]] == pytest.approx([320, 700])


def test_two_columns_with_full_width_title_and_footer_painted_first():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 36), 220), wrap(prose("b", 36), 220)
    title = "Reading Order Across Two Columns And A Footer"
    footer = "Proceedings of the fixture workshop, page one of one"
    columns = paint(f, [left, right], (72, 320), 680, interleave(left, right))
    b.add_page(" ".join([show(f, 150, 60, footer, 8), show(f, 100, 730, title, 16), columns]))
    assert layout(b).joined.text == "\n".join([title, *left, *right, footer])


def test_three_columns():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    columns = [wrap(prose(tag, 30), 150) for tag in "abc"]
    b.add_page(paint(f, columns, (50, 230, 410), 700, interleave(*columns)))
    assert layout(b).joined.text == "\n".join(columns[0] + columns[1] + columns[2])


def test_columns_painted_right_column_first_are_read_left_to_right():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 30), 220), wrap(prose("b", 30), 220)
    painted = [(1 - c, i) for c, i in one_after_another(right, left)]
    b.add_page(paint(f, [left, right], (72, 320), 700, painted))
    assert layout(b).joined.text == "\n".join(left + right)


def aligned_paragraphs(painted: Callable[..., list[tuple[int, int]]]) -> tuple[PdfBuilder, list[list[str]]]:
    """Two columns of two paragraphs each, the paragraph gaps at the same
    height in both columns (a gap wide enough to cut the page into bands);
    each paragraph's lines painted in `painted` order with its neighbour's."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    paragraphs = [[wrap(prose(f"{c}{p}", 24), 220) for p in range(2)] for c in "ab"]
    ops = []
    top = 700
    for p in range(2):
        left, right = paragraphs[0][p], paragraphs[1][p]
        ops.append(paint(f, [left, right], (72, 320), top, painted(left, right)))
        top -= LEADING * len(left) + 2 * LEADING
    b.add_page(" ".join(ops))
    return b, paragraphs


def test_columns_whose_paragraph_gaps_line_up_read_column_after_column():
    # The stream interleaves the columns line by line: a horizontal cut
    # through the aligned gaps would read the page band by band (left
    # paragraph 1, right paragraph 1, left paragraph 2...). The gutter runs
    # the full height of the page: column 1 entirely, then column 2.
    b, ((a0, a1), (b0, b1)) = aligned_paragraphs(interleave)
    reading = layout(b)
    assert reading.joined.text == "\n".join(a0 + a1 + b0 + b1)
    assert [block.text for block in reading.blocks] == ["\n".join(p) for p in (a0, a1, b0, b1)]
    assert stream_text(b).startswith(f"{a0[0]} {b0[0]}\n")


def test_sections_laid_out_in_columns_painted_section_by_section_keep_their_order():
    # The same geometry, painted section after section, each column by
    # column: the stream reads the bands, and layout keeps it.
    b, ((a0, a1), (b0, b1)) = aligned_paragraphs(one_after_another)
    assert layout(b).joined.text == "\n".join(a0 + b0 + a1 + b1) == stream_text(b)


@pytest.mark.parametrize("order", ["reversed", "interleaved", "shuffled"])
def test_sections_laid_out_in_columns_read_section_by_section(order: str):
    # cut._sections_in_columns: two sections, each set in two columns of
    # prose that end where their content ends (the left column of the
    # first section four lines lower than the right one), the second one
    # under its heading. A full-height gutter and a full-width gap both
    # cut the page; the columns over the gap end rows apart, which columns
    # of flowing text never leave, so the gap is a section break: section
    # after section, each column after column, whatever the paint order.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    first = [wrap(prose("a", 50), 220), wrap(prose("b", 30), 220)]
    second = [wrap(prose("c", 25), 220), wrap(prose("d", 40), 220)]
    pieces: list[tuple[float, float, str, float]] = []
    for c, column in enumerate(first):
        pieces += [((72, 320)[c], 700 - LEADING * i, line, SIZE) for i, line in enumerate(column)]
    top = 700 - LEADING * (max(len(column) for column in first) + 2)
    pieces.append((72, top, "Second section", 14))
    for c, column in enumerate(second):
        start = top - (LEADING + 8 if c == 0 else 0)
        pieces += [((72, 320)[c], start - LEADING * i, line, SIZE) for i, line in enumerate(column)]
    b.add_page(scrambled(f, pieces, order))
    expected = [*first[0], *first[1], "Second section", *second[0], *second[1]]
    assert len(first[0]) - len(first[1]) >= 3
    assert layout(b).joined.text == "\n".join(expected)


HEBREW_WORDS = ["שלום", "עולם", "ספר", "בית", "מים", "אור", "לחם", "ילד", "יום", "לילה", "שמש", "ירח"]


def test_right_to_left_two_columns_read_right_column_first():
    b = PdfBuilder()
    font, encode = b.add_cid_font(" " + "".join(HEBREW_WORDS), widths=500)
    # Logical lines of 7 words (about 150 pt at 10 pt and 0.5 em per glyph).
    words = [HEBREW_WORDS[(3 * i + 5 * j) % 12] for i in range(6) for j in range(7)]
    first = [" ".join(words[7 * i : 7 * i + 7]) for i in range(6)]  # the right column: read first
    words = [HEBREW_WORDS[(7 * i + j) % 12] for i in range(6) for j in range(7)]
    second = [" ".join(words[7 * i : 7 * i + 7]) for i in range(6)]
    ops = []
    for i in range(6):
        # Row by row, left column first, each line painted in visual order as
        # Word does (test_bidi.py).
        for x, line in ((72, second[i]), (330, first[i])):
            ops.append(f"BT /{font} {SIZE} Tf {x} {700 - LEADING * i} Td {hexstr(encode(line[::-1]))} Tj ET")
    b.add_page(" ".join(ops))
    assert layout(b).joined.text == "\n".join(first + second)
    # Stream mode reads each row as one right-to-left line across the gutter.
    assert stream_text(b).split("\n")[0] == f"{first[0]} {second[0]}"


def test_rotated_page_with_two_columns_of_text_drawn_at_90_degrees():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    first, second = wrap(prose("a", 36), 220), wrap(prose("b", 36), 220)
    # /Rotate 90 shows the page landscape; text runs up the page in user
    # space (Tm 0 1 -1 0), lines advance to the right, and the second column
    # starts higher up the page. The stream interleaves the two columns.
    ops = [
        f"BT /{f} {SIZE} Tf 0 1 -1 0 {100 + LEADING * i} {(72, 330)[c]} Tm ({(first, second)[c][i]}) Tj ET"
        for c, i in interleave(first, second)
    ]
    b.add_page(" ".join(ops), rotate=90)
    assert layout(b).joined.text == "\n".join(first + second)
    assert stream_text(b).startswith(f"{first[0]} {second[0]}\n")


def test_heading_larger_than_body_text_is_an_h_block_with_its_level():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    body = wrap(prose("a", 40), 400)
    more = wrap(prose("b", 20), 400)
    ops = [show(f, 72, 720, "A Document Title", 20), show(f, 72, 690, "First section", 14)]
    ops += [show(f, 72, 670 - LEADING * i, line) for i, line in enumerate(body)]
    y = 670 - LEADING * len(body) - 20
    ops.append(show(f, 72, y, "Second section", 14))
    ops += [show(f, 72, y - 20 - LEADING * i, line) for i, line in enumerate(more)]
    b.add_page(" ".join(ops))
    reading = layout(b)
    labels = [(block.text, block.struct_type, block.heading_level) for block in reading.blocks]
    assert labels == [
        ("A Document Title", "H", 1),
        ("First section", "H", 2),
        ("\n".join(body), "P", None),
        ("Second section", "H", 2),
        ("\n".join(more), "P", None),
    ]
    assert reading.joined.text == stream_text(b)


def test_footnotes_painted_first_follow_the_text_of_their_column():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 40), 220), wrap(prose("b", 40), 220)
    notes = [wrap(prose(f"n{c}", 10), 220) for c in range(2)]
    # Footnotes in small print under each column, painted before any text.
    ops = [show(f, x, 200 - 9 * i, line, 7) for x, note in zip((72, 320), notes, strict=True) for i, line in enumerate(note)]
    b.add_page(" ".join([*ops, paint(f, [left, right], (72, 320), 700, one_after_another(left, right))]))
    assert layout(b).joined.text == "\n".join(left + notes[0] + right + notes[1])


def test_figure_labels_in_a_column_keep_their_stream_order():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 80), 220), wrap(prose("b", 24), 220)
    # A figure under the right column's text, beside the left column: its
    # labels are set apart by whitespace wider than a paragraph gap, and
    # painted after the text in the author's order, not top to bottom.
    labels = [(560, "Keyway"), (620, "Nut case"), (590, "Locking shoulder")]
    label_ops = [show(f, 340, y, text, 8) for y, text in labels]
    b.add_page(" ".join([paint(f, [left, right], (72, 320), 700, interleave(left, right)), *label_ops]))
    assert layout(b).joined.text == "\n".join([*left, *right, *(text for _, text in labels)])


def test_title_block_painted_bottom_up_reads_down():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 80), 220), wrap(prose("b", 80), 220)
    # A title, its author and a date, each centred on the page and set a
    # line or so apart, above two columns: painted bottom up (the date
    # first), a leaf with no text flow, no edge in common, whose lines are
    # one block centred on one axis (leaves._flush_stack): it reads down.
    block = [(760, "A Fixture of Two Columns", 18), (734, "The Layout Team", 12), (714, "2026-12-05", 10)]
    title_ops = [show(f, 306 - text_width(text, size=size) / 2, y, text, size) for y, text, size in reversed(block)]
    b.add_page(" ".join([*title_ops, paint(f, [left, right], (72, 320), 680, interleave(left, right))]))
    assert layout(b).joined.text == "\n".join([*(text for _, text, _ in block), *left, *right])


def test_headings_over_their_lines_painted_bottom_up_read_down():
    # leaves._flush_stack: beside a column of text, a spec sheet's sections,
    # each a heading over its line or two, flush left, the heading a
    # paragraph gap (more than a cell's leading, a line or less) over its
    # lines, the sections a section gap apart: painted bottom up, each
    # section is a leaf with no text flow whose lines are one block flush
    # on one edge, and reads down, heading first.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    text = wrap(prose("a", 90), 220)
    sections = [
        ("WARRANTY", ["Base coverage: two years", "Full machine warranty"]),
        ("OPERATOR ENVIRONMENT", ["See page 1"]),
        ("OTHER", ["Swing boom", "Backfill blade"]),
    ]
    lines: list[tuple[float, str, float]] = []
    y = 700.0
    for heading, under in sections:
        lines.append((y, heading, 10))
        y -= 16
        for line in under:
            lines.append((y, line, 9))
            y -= 10
        y -= 24
    ops = [show(f, 72, 700 - LEADING * i, line) for i, line in enumerate(text)]
    ops += [show(f, 330, y, line, size) for y, line, size in reversed(lines)]
    b.add_page(" ".join(ops))
    assert layout(b).joined.text.split("\n") == [*text, *(line for _, line, _ in lines)]


def test_fragment_under_a_column_painted_after_the_columns_is_read_after_them():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 60), 220), wrap(prose("b", 90), 220)
    # A form number under the left column, beside the longer right column,
    # painted last: not running text, it keeps its place after the columns
    # rather than joining the left column ahead of the right one.
    bottom = 700 - LEADING * (len(left) - 1)
    form = [show(f, 72, bottom - 30, "Form No. 2021-08", 8), show(f, 72, bottom - 40, "Replaces 2018-06", 8)]
    b.add_page(" ".join([paint(f, [left, right], (72, 320), 700, interleave(left, right)), *form]))
    assert layout(b).joined.text == "\n".join([*left, *right, "Form No. 2021-08", "Replaces 2018-06"])


@pytest.mark.parametrize("order", ["interleaved", "reversed"])
def test_part_under_a_column_painted_row_by_row_with_the_text_beside_it_stays_in_its_column(order: str):
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 50), 220), wrap(prose("b", 110), 220)
    # A list of specifications under the left column's text, beside the
    # longer right column, painted after the right column's text above it:
    # interleaved, the page painted row by row across both columns, so is
    # every line, and the right column's lines beside the list are painted
    # after the list begins; reversed, the whole left column is painted
    # after the right one, the list before the text above it. No evidence
    # it reads after the columns: it reads in its column (cut._last_part_below).
    bottom = 700 - LEADING * (len(left) - 1)
    specs = [("Voltage", "12 volts"), ("Alternator", "60 amp"), ("Battery", "850 cca"), ("Starter", "2.3 kW")]
    # In reading order: the left column, its list, the right column.
    pieces = [(72.0, 700.0 - LEADING * i, line, SIZE) for i, line in enumerate(left)]
    for i, (label, value) in enumerate(specs):
        pieces += [(72, bottom - 30 - LEADING * i, label, 9), (200, bottom - 30 - LEADING * i, value, 9)]
    pieces += [(320, 700 - LEADING * i, line, SIZE) for i, line in enumerate(right)]
    b.add_page(scrambled(f, pieces, order))
    assert layout(b).joined.text == "\n".join([*left, *(f"{label} {value}" for label, value in specs), *right])


def test_part_under_the_longer_column_painted_row_by_row_stays_in_its_column():
    # cut._walked_into: a code listing under its heading and a line of
    # prose, under the left column's text, a paragraph gap below it; the
    # right column ends far above. Painted row by row across both columns,
    # the listing is painted after every line above it, the right column's
    # too, as a part placed after the columns would be; but the stream
    # walks down the left column into it (lualatex-tagpdf p2's interleaved
    # twin: "2.5 Verbatim" read after the right column). It reads in its
    # column.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 110), 220), wrap(prose("b", 50), 220)
    bottom = 700 - LEADING * (len(left) - 1)
    listing = ["Verbatim", "Some documents require code.", "main( ) {", '    printf("hello");', "}"]
    ops = []
    for c, i in interleave(left + listing, right):
        if c == 0 and i >= len(left):  # the listing, its code indented
            j = i - len(left)
            ops.append(show(f, 72 if j < 2 else 80, bottom - 30 - LEADING * j, listing[j]))
        else:
            ops.append(show(f, (72, 320)[c], 700 - LEADING * i, (left, right)[c][i]))
    b.add_page(" ".join(ops))
    assert layout(b).joined.text == "\n".join([*left, *listing, *right])


def test_list_under_a_column_painted_on_from_its_last_row_stays_in_its_column():
    # cut._walked_into: the left column's text in two blocks, a paragraph
    # gap apart, the second ending in a row of a label and its value, and a
    # list under it; the right column, shorter, is painted between the two
    # blocks, the list right after the last row, value after label
    # (excavator-manual p1's "ELECTRICAL" under the left column). Painted
    # after all the text above it, the list was read after the right
    # column; the stream goes on from its column's last row into it.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, more, right = wrap(prose("a", 40), 220), wrap(prose("c", 30), 220), wrap(prose("b", 50), 220)
    listing = [("ELECTRICAL", ""), ("Voltage", "12 Volts"), ("Alternator", "60 amp")]
    y_more = 700 - LEADING * len(left) - 20
    y_last = y_more - LEADING * len(more)
    y_list = y_last - 20 - LEADING
    ops = [show(f, 72, 700 - LEADING * i, line) for i, line in enumerate(left)]
    ops += [show(f, 320, 700 - LEADING * i, line) for i, line in enumerate(right)]
    ops += [show(f, 72, y_more - LEADING * i, line) for i, line in enumerate(more)]
    ops += [show(f, 72, y_last, "Battery"), show(f, 250, y_last, "850 CCA")]
    for i, (label, value) in enumerate(listing):
        ops += [show(f, 72, y_list - LEADING * i, label)] + ([show(f, 250, y_list - LEADING * i, value)] if value else [])
    b.add_page(" ".join(ops))
    rows = [f"{label} {value}".strip() for label, value in listing]
    assert layout(b).joined.text == "\n".join([*left, *more, "Battery 850 CCA", *rows, *right])


@pytest.mark.parametrize("order", ["top_down", "interleaved", "reversed", "shuffled"])
def test_margin_note_reads_after_the_paragraph_beside_it(order: str):
    # leaves.margin_note_after_its_block: a note of a word or two a line in
    # the left margin, on the text's baselines, a narrow gutter from it
    # (LaTeX's \\marginparsep), beside a
    # paragraph's last lines and the heading after it (LaTeX's \\marginpar,
    # lualatex-tagpdf p2). Too narrow for a column of its own, it shared
    # the text's leaf and read between its lines, by rows or as painted; it
    # reads after the paragraph its first line stands beside.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    first, second = wrap(prose("a", 45), 300), wrap(prose("c", 30), 300)
    note = ["Marginal", "notes are", "usually", "placed in", "the outer", "margin."]
    pieces = [(110.0, 700.0 - LEADING * i, line, float(SIZE)) for i, line in enumerate(first)]
    heading_y = 700.0 - LEADING * len(first) - 10
    pieces.append((110.0, heading_y, "Theorems", float(SIZE)))
    pieces += [(110.0, heading_y - 20 - LEADING * i, line, float(SIZE)) for i, line in enumerate(second)]
    top = 700.0 - LEADING * (len(first) - 3)
    # Flush left, its longest line 8 points (under a body height) from the text.
    left = 110.0 - 8.0 - max(text_width(line, "Helvetica", SIZE) for line in note)
    pieces += [(left, top - LEADING * i, line, float(SIZE)) for i, line in enumerate(note)]
    b.add_page(scrambled(f, pieces, order))
    assert layout(b).joined.text == "\n".join([*first, *note, "Theorems", *second])


@pytest.mark.parametrize("order", ["top_down", "reversed"])
def test_words_of_a_wide_line_past_the_text_edge_are_no_margin_note(order: str):
    # leaves._is_margin_note: a footnote's first line set with wide word
    # spaces, each word a line of its own, its last words past the edge of
    # the shorter lines under it (revtex-physics p1: "(IAC) collaboration").
    # Clear of the text's edge, a gutter off, they passed for a margin note
    # and read after the block; on one row, they are the line's tail.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    words = ["Part", "of", "the", "Instituto", "Avanzado", "de", "Cosmologia", "(IAC)", "collaboration"]
    starts = np.cumsum([110.0] + [text_width(word, "Helvetica", SIZE) + 8.5 for word in words[:-1]])
    pieces = [(float(x), 700.0, word, float(SIZE)) for x, word in zip(starts, words, strict=True)]
    rest = wrap(prose("a", 24), 200)
    pieces += [(110.0, 700.0 - LEADING * (i + 1), line, float(SIZE)) for i, line in enumerate(rest)]
    b.add_page(scrambled(f, pieces, order))
    assert layout(b).joined.text == "\n".join([" ".join(words), *rest])


def test_block_under_two_columns_painted_by_x_position_reads_after_them():
    # tiebreaks._foot_across: a block of text spanning both columns under
    # them (references under a glossary set in two columns), flush left with
    # the left column, so that no gutter runs the full height; the stream
    # paints by x position, each x top to bottom: the left column and the
    # block's lines, then the right column. That is no column-by-column
    # reading (the block lies under the right column's text, and follows
    # it): the gap over the block makes it a band under the columns.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right, block = wrap(prose("a", 60), 220), wrap(prose("b", 60), 220), wrap(prose("r", 40), 460)
    bottom = 700 - LEADING * max(len(left), len(right))
    pieces = [(x, 700 - LEADING * i, line, SIZE) for x, column in ((72, left), (320, right)) for i, line in enumerate(column)]
    pieces += [(72, bottom - 30 - LEADING * i, line, SIZE) for i, line in enumerate(block)]
    b.add_page(" ".join(show(f, x, y, text, size) for x, y, text, size in sorted(pieces, key=lambda p: (p[0], -p[1]))))
    assert layout(b).joined.text == "\n".join([*left, *right, *block])


def test_small_print_under_the_text_painted_first_reads_last():
    # tiebreaks._bands_painted_up: paragraphs and a section in two columns,
    # set apart by gaps (bands), with two blocks of small print at the foot
    # that the stream paints first (a master page's imprint before the
    # page's text). Every band of text is painted after the bands under it:
    # the stream paints up the page, no witness of the bands' order, which
    # is top to bottom.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    paragraphs = [wrap(prose(f"p{k}", 30), 400) for k in range(3)]
    columns = [wrap(prose(f"c{k}", 40), 190) for k in range(2)]
    notes = [wrap(prose(f"n{k}", 24), 400, 7) for k in range(2)]
    text, y = [], 700.0
    for paragraph in paragraphs:
        text += [show(f, 72, y - LEADING * i, line) for i, line in enumerate(paragraph)]
        y -= LEADING * len(paragraph) + 24
    text += [show(f, 72 + 210 * c, y - LEADING * i, line) for c, column in enumerate(columns) for i, line in enumerate(column)]
    y -= LEADING * max(len(column) for column in columns) + 24
    small = []
    for note in notes:
        small += [show(f, 72, y - 9 * i, line, 7) for i, line in enumerate(note)]
        y -= 9 * len(note) + 24
    b.add_page(" ".join([*small, *text]))
    expected = [line for block in [*paragraphs, *columns, *notes] for line in block]
    assert layout(b).joined.text == "\n".join(expected)


def test_footnotes_across_the_page_painted_first_read_after_the_columns():
    # tiebreaks._small_print_at_foot: two columns under a running head, and
    # footnotes in 7 pt across the page's width under both, which the
    # stream paints first (each band in one visit, read down: a witness
    # stream_band_order would follow, as for a callout). Small print at the
    # foot keeps its place under the text.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    columns = [wrap(prose(f"c{k}", 60), 190) for k in range(2)]
    notes = wrap(["1", *prose("n", 40)], 400, 7)
    text = [show(f, 72 + 210 * c, 700 - LEADING * i, line) for c, column in enumerate(columns) for i, line in enumerate(column)]
    small = [show(f, 72, 200 - 8 * i, line, 7) for i, line in enumerate(notes)]
    b.add_page(" ".join([show(f, 72, 760, "Journal", 8), *small, *text, show(f, 300, 40, "5", 8)]))
    expected = ["Journal", *columns[0], *columns[1], *notes, "5"]
    assert layout(b).joined.text == "\n".join(expected)


def test_footnotes_across_the_page_painted_by_x_read_after_the_columns():
    # tiebreaks.foot_apart: two columns, two footnotes in 7 pt across the
    # page under both (each wrapping to a short line flush left) and a page
    # number. A stream painting by x position paints the left column and
    # the notes, then the right column: it passes for a column-by-column
    # reading (stream_reads_columns counts the notes after both sides) and
    # the region stays whole, but the notes, a band at its foot, read
    # after the columns, not between them.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    columns = [wrap(prose(f"c{k}", 60), 190) for k in range(2)]
    notes = [wrap([f"{k + 1}", *prose(f"n{k}", 16)], 440, 7) for k in range(2)]
    assert [len(note) for note in notes] == [2, 2]
    small, y = [], 300.0
    for note in notes:
        small += [show(f, 72, y - 8 * i, line, 7) for i, line in enumerate(note)]
        y -= 8 * len(note) + 2
    left = [show(f, 72, 700 - LEADING * i, line) for i, line in enumerate(columns[0])]
    right = [show(f, 282, 700 - LEADING * i, line) for i, line in enumerate(columns[1])]
    b.add_page(" ".join([*left, *small, *right, show(f, 300, 40, "5", 8)]))
    expected = [*columns[0], *columns[1], *(line for note in notes for line in note), "5"]
    assert layout(b).joined.text == "\n".join(expected)


def test_aligned_gaps_without_a_full_height_gutter_keep_a_column_by_column_stream():
    # A centred page number crosses the gutter, so no gutter runs the full
    # height; the paragraph gaps line up across the columns and would cut
    # the page into bands (left 1, right 1, left 2, right 2). The stream
    # reads column after column: that order stands.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    (a0, a1), (b0, b1) = [[wrap(prose(f"{c}{p}", 24), 220) for p in range(2)] for c in "ab"]
    ops, top = [[], []], 700
    for left, right in ((a0, b0), (a1, b1)):
        ops[0].append(paint(f, [left], (72,), top, one_after_another(left)))
        ops[1].append(paint(f, [right], (320,), top, one_after_another(right)))
        top -= LEADING * len(left) + 2 * LEADING
    b.add_page(" ".join([*ops[0], *ops[1], show(f, 280, top - 20, "Page 7 of 9")]))
    assert layout(b).joined.text == "\n".join([*a0, *a1, *b0, *b1, "Page 7 of 9"]) == stream_text(b)


def test_title_above_a_column_painted_after_it_is_read_first():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 60), 220), wrap(prose("b", 60), 220)
    # A title block over the left column only, as close above it as a
    # paragraph gap (no whitespace band sets it apart), painted last.
    title = ["Threats Highlight the Importance", "of Leadership in Fixtures"]
    title_ops = [show(f, 72, 700 + 2 * LEADING - LEADING * i, line, 11) for i, line in enumerate(title)]
    b.add_page(" ".join([paint(f, [left, right], (72, 320), 700, interleave(left, right)), *title_ops]))
    assert layout(b).joined.text == "\n".join([*title, *left, *right])


def test_footer_row_under_both_columns_painted_last_is_read_after_them():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 60), 220), wrap(prose("b", 60), 220)
    # The footer row's two pieces fall one under each column; the page
    # number beside the left piece is painted after it, which must not make
    # the left piece "text of the left column".
    bottom = 700 - LEADING * (len(left) - 1)
    footer = [show(f, 72, bottom - 40, "www.fixture.org/reports", 8), show(f, 500, bottom - 40, "2", 8)]
    b.add_page(" ".join([paint(f, [left, right], (72, 320), 700, interleave(left, right)), *footer]))
    assert layout(b).joined.text == "\n".join([*left, *right, "www.fixture.org/reports 2"])


def test_column_running_lower_than_its_neighbour_keeps_its_last_paragraph():
    # The left column runs below the end of the right one, and its last
    # paragraph starts after a gap that, with the right column ended, spans
    # the page. A full-width title crosses the gutter, so only the gaps cut
    # the page: without the rule the last paragraph becomes a band of its
    # own and is read after the right column.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 80), 220), wrap(prose("b", 60), 220)
    last = wrap(prose("c", 16), 220)
    title = "Reading Order Across Two Columns Of Unequal Length"
    bottom = 680 - LEADING * len(left) - LEADING
    ops = [
        show(f, 100, 730, title, 16),
        paint(f, [left, right], (72, 320), 680, interleave(left, right)),
        paint(f, [last], (72,), bottom, interleave(last)),
    ]
    assert 680 - LEADING * len(right) > bottom + LEADING  # the right column ends above the gap
    b.add_page(" ".join(ops))
    assert layout(b).joined.text == "\n".join([title, *left, *last, *right])


def test_author_grid_over_two_columns_is_read_row_by_row_before_them():
    # Four author blocks in two rows above two columns, each block under
    # the gutter's side of its column. The right column's text starts after
    # a wide gap, the left one's right under its authors: no gap crosses
    # the page, and the gutter runs from the authors to the bottom. The
    # stream paints the grid row by row, then column by column: the cut
    # under the grid is a band the stream reads first, not the top of each
    # column.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    authors = [
        ["Ada Lovelace", "ada@example.org", "Analytical Society"],
        ["Charles Babbage", "charles@example.org", "Difference Works"],
        ["Mary Somerville", "mary@example.org", "Royal Institution"],
        ["John Herschel", "john@example.org", "Cape Observatory"],
    ]
    left, right = wrap(prose("a", 60), 220), wrap(prose("b", 50), 220)
    # Two rows of two blocks, each row painted block by block.
    grid = " ".join(
        paint(f, authors[r : r + 2], (120, 370), top, one_after_another(*authors[r : r + 2]))
        for r, top in ((0, 700), (2, 656))
    )
    text = paint(f, [left], (72,), 620, one_after_another(left)) + " "
    text += paint(f, [right], (320,), 596, one_after_another(right))
    b.add_page(grid + " " + text)
    reading = layout(b)
    assert reading.joined.text == "\n".join([*(line for block in authors for line in block), *left, *right])
    assert reading.joined.text == stream_text(b)


def test_page_number_painted_first_stays_after_notes_at_the_foot_of_the_last_column():
    # Notes at the foot of the right column (marker and address apart on
    # each row: not running text) and a centred page number under both
    # columns, across a full-width gap, painted first. Both are non-text,
    # but the gap orders them: the stream paints the page number wholly
    # before the notes, so they are two things, not one figure's labels.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 60), 220), wrap(prose("b", 50), 220)
    notes_top = 700 - LEADING * len(right) - 20
    notes = [(f"{i + 1}", f"https://example.org/note/{i + 1}") for i in range(3)]
    note_ops = [
        f"{show(f, 320, notes_top - 9 * i, marker, 7)} {show(f, 340, notes_top - 9 * i, url, 7)}"
        for i, (marker, url) in enumerate(notes)
    ]
    page_number = show(f, 280, 700 - LEADING * len(left) - 30, "Page 7 of 9")
    body = paint(f, [left, right], (72, 320), 700, interleave(left, right))
    b.add_page(" ".join([page_number, body, *note_ops]))
    note_lines = [f"{marker} {url}" for marker, url in notes]
    assert layout(b).joined.text == "\n".join([*left, *right, *note_lines, "Page 7 of 9"])


def test_page_number_over_the_right_column_painted_first_is_read_first():
    # A page number at the top right, over the right column only and above
    # both, painted before them: it falls into the right column, but is
    # read before the columns, not between them.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 60), 220), wrap(prose("b", 60), 220)
    page_number = show(f, 530, 740, "7")
    b.add_page(" ".join([page_number, paint(f, [left, right], (72, 320), 700, interleave(left, right))]))
    assert layout(b).joined.text == "\n".join(["7", *left, *right])


def test_title_under_the_middle_column_painted_last_is_read_after_the_columns():
    # A table's title centred under three columns of equal length, within
    # the middle column's width, closer to it than a band's gap but further
    # than a paragraph's, painted after every column: it is the stream's
    # last visit to the middle column, and read after the last column.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    columns = [wrap(prose(tag, 40), 150)[:8] for tag in "abc"]
    title_y = 700 - LEADING * 7 - 18
    text = paint(f, columns, (50, 230, 410), 700, one_after_another(*columns))
    b.add_page(f"{text} {show(f, 250, title_y, 'ESTIMATED COSTS')}")
    assert layout(b).joined.text == "\n".join([*columns[0], *columns[1], *columns[2], "ESTIMATED COSTS"])


def test_table_of_passages_painted_row_by_row_is_read_row_by_row():
    # A table whose cells are running text (a question beside two
    # passages), painted row by row: each cell column passes for a text
    # column. The rows are no farther apart than lines, but the question
    # column has a wide gap between its cells, and the stream reads the
    # rows one after the other: row after row, not column after column.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    x = (40, 200, 390)
    header = ["Question", "Passage one", "Passage two"]
    rows = [
        [wrap(prose(f"q{r}", 10), 140), *(wrap(prose(f"p{r}{c}", 40), 180) for c in "ab")] for r in range(2)
    ]
    ops, top = [paint(f, [[h] for h in header], x, 700, interleave([0], [0], [0]))], 684
    for cells in rows:
        ops.append(paint(f, cells, x, top, one_after_another(*cells)))
        top -= LEADING * max(map(len, cells)) + 4
    b.add_page(" ".join(ops))
    (q0, a0, b0), (q1, a1, b1) = rows
    expected = ["Question", *q0, "Passage one", *a0, "Passage two", *b0, *q1, *a1, *b1]
    assert layout(b).joined.text == "\n".join(expected)


def test_last_line_of_an_interleaved_column_after_a_paragraph_gap_stays_in_its_column():
    # The left column ends one line below the right one, after a paragraph
    # gap, painted last: a stream that interleaves the columns line by line
    # visits the left column once per line, so that last visit is no piece
    # painted apart from its column (unlike the table title above).
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 60), 220)[:12], wrap(prose("b", 60), 220)[:11]
    body = paint(f, [left[:11], right], (72, 320), 700, interleave(left[:11], right))
    b.add_page(f"{body} {show(f, 72, 700 - LEADING * 11 - 8, left[11])}")
    assert layout(b).joined.text == "\n".join(left + right)


@pytest.mark.parametrize("at", [0, 11, 40])
def test_rotated_stamp_up_the_left_margin_reads_first_whatever_its_paint_order(at: int):
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 40), 220), wrap(prose("b", 40), 220)
    stamp = "arXiv:0000.00000v1 [cs.CL] 1 Jan 2024"
    # Drawn up the left margin, as tall as the columns: in the page's frame it
    # would cross every row. Painted first, among the lines or last, it reads
    # before the page (units.margin_text), never between two lines.
    stamp_op = f"BT /{f} 20 Tf 0 1 -1 0 40 300 Tm ({stamp}) Tj ET"
    shows = [show(f, (72, 320)[c], 700 - LEADING * i, [left, right][c][i]) for c, i in interleave(left, right)]
    shows.insert(at, stamp_op)
    b.add_page(" ".join(shows))
    reading = layout(b)
    assert reading.joined.text == "\n".join([stamp, *left, *right])
    assert {block.struct_type for block in reading.blocks} == {"P"}


@pytest.mark.parametrize("at", [0, 3, 9])
def test_spine_title_down_the_right_margin_reads_after_the_page(at: int):
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    heading = "Visit your local office"
    cards = [[f"Office {name}", f"{name.lower()}.example.org"] for name in ("North", "East", "South", "West")]
    # A heading over a 2x2 grid of cards, a spine title (two pieces) turned
    # down the right margin: painted anywhere it reads last, line by line in
    # its own direction, not after the line painted before it.
    pieces = [(72, 700, heading)] + [
        ((72, 300)[k % 2], 670 - 40 * (k // 2) - LEADING * i, line) for k, card in enumerate(cards) for i, line in enumerate(card)
    ]
    shows = [show(f, x, y, text) for x, y, text in pieces]
    spine = [f"BT /{f} 8 Tf 0 -1 1 0 560 760 Tm (GUIDE TO OFFICES) Tj ET", f"BT /{f} 8 Tf 0 -1 1 0 560 560 Tm (JUL 2016) Tj ET"]
    shows[at:at] = spine[::-1] if at % 2 else spine
    b.add_page(" ".join(shows))
    text = layout(b).joined.text.split("\n")
    assert text[0] == heading
    assert text[-1].split() == ["GUIDE", "TO", "OFFICES", "JUL", "2016"]
    assert sorted(text[1:-1]) == sorted(line for card in cards for line in card)


def test_first_line_indent_starts_a_new_block():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    first, second = wrap(prose("a", 24), 300), wrap(prose("b", 24), 300)
    lines = [(72, first[0]), *((72, line) for line in first[1:])]
    lines += [(84, second[0]), *((72, line) for line in second[1:])]
    b.add_page(" ".join(show(f, x, 700 - LEADING * i, text) for i, (x, text) in enumerate(lines)))
    reading = layout(b)
    assert [block.text for block in reading.blocks] == ["\n".join(first), "\n".join(second)]
    assert reading.joined.text == stream_text(b)


# --------------------------------------------------------------------------- stream order kept


def columns_already_in_order() -> PdfBuilder:
    b, _, _ = two_columns(one_after_another)
    return b


def single_column_page() -> PdfBuilder:
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    lines = wrap(prose("a", 80), 460)
    b.add_page(" ".join(show(f, 72, 700 - LEADING * i, line) for i, line in enumerate(lines)))
    return b


def table_painted_row_by_row() -> PdfBuilder:
    # Reading a table column by column would be wrong; stream order is right.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    rows = [("Name", "Quantity", "Remarks")] + [
        (f"Item number {i}", f"{i * 7} units", f"stored in warehouse {i % 3}") for i in range(12)
    ]
    intro = wrap(prose("t", 30), 460)
    ops = [show(f, 72, 720 - LEADING * i, line) for i, line in enumerate(intro)]
    top = 720 - LEADING * len(intro) - 20
    columns = [list(column) for column in zip(*rows, strict=True)]
    ops.append(paint(f, columns, (72, 230, 330), top, interleave(*columns)))
    b.add_page(" ".join(ops))
    return b


def table_of_prose_cells() -> PdfBuilder:
    # Two wide columns of text cells: a definition list painted row by row.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    ops = []
    for r in range(8):
        ops.append(show(f, 72, 700 - 30 * r, f"Term {r}"))
        for i, line in enumerate(wrap(prose(f"d{r}", 12), 300)):
            ops.append(show(f, 200, 700 - 30 * r - LEADING * i, line))
    b.add_page(" ".join(ops))
    return b


def footer_painted_first() -> PdfBuilder:
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    lines = wrap(prose("a", 60), 460)
    b.add_page(" ".join([show(f, 280, 40, "Page 7", 8), paint(f, [lines], (72,), 700, interleave(lines))]))
    return b


def numbered_list() -> PdfBuilder:
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    ops = []
    for i in range(10):
        ops.append(show(f, 72, 700 - 2 * LEADING * i, f"{i + 1}."))
        for j, line in enumerate(wrap(prose(f"n{i}", 10), 380)):
            ops.append(show(f, 100, 700 - 2 * LEADING * i - LEADING * j, line))
    b.add_page(" ".join(ops))
    return b


def vertical_cjk_columns() -> PdfBuilder:
    b = PdfBuilder()
    cid, encode = b.add_cid_font("縦書きの右列左", vertical=True)
    b.add_page(
        f"BT /{cid} 12 Tf 1 0 0 1 300 700 Tm {hexstr(encode('左列'))} Tj "
        f"1 0 0 1 320 700 Tm {hexstr(encode('縦書きの右列'))} Tj ET"
    )
    return b


@pytest.mark.parametrize(
    "build",
    [
        columns_already_in_order,
        single_column_page,
        table_painted_row_by_row,
        table_of_prose_cells,
        numbered_list,
        vertical_cjk_columns,
    ],
)
def test_page_whose_stream_order_stands_reads_exactly_as_stream_mode(build):
    b = build()
    assert layout(b).joined.text == stream_text(b)


def test_footer_painted_first_reads_at_the_foot_of_the_page():
    # A page number painted before the text it lies under: the bottom band
    # is geometry's, and the page number reads last.
    b = footer_painted_first()
    lines = wrap(prose("a", 60), 460)
    assert layout(b).joined.text == "\n".join([*lines, "Page 7"])


def test_empty_page_and_single_glyph():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page("")
    b.add_page(show(f, 72, 700, "x"))
    assert layout(b, 1).joined.text == "" and layout(b, 1).blocks == ()
    assert layout(b, 2).joined.text == "x"


# --------------------------------------------------------------------------- corpus

# Single-column pages of the real-world corpus (../shared/corpus), painted in
# reading order: layout mode must not change a character of their stream text.
SINGLE_COLUMN = [
    "tagged/libreoffice64-lorem-2p.pdf",
    "misc/word-processor-history-5p.pdf",
    "misc/latex-code-and-formula-2p.pdf",
]
# Single-column pages whose producer paints a footer or a table's header cells
# out of reading order: layout mode reads the same words, moving only whole
# pieces (the footer to the foot of the page, the header cells by rows).
SINGLE_COLUMN_FURNITURE_FIRST = [
    "tagged/word365-fr-municipal-bylaw-11p.pdf",
    "misc/lncs-table-page.pdf",
    "tagged/pdfmaker11-word-grobid-guidelines-11p.pdf",
]


@pytest.mark.parametrize("relpath", SINGLE_COLUMN)
def test_single_column_corpus_file_reads_exactly_as_stream_mode(corpus: Path, relpath: str):
    with open_document(corpus / relpath) as doc:
        for page in range(1, doc.page_count + 1):
            table = doc.page_glyphs(page).table
            assert read_layout(table, CONFIG).joined.text == read_stream(table, CONFIG).joined.text, page


@pytest.mark.parametrize("relpath", SINGLE_COLUMN_FURNITURE_FIRST)
def test_single_column_corpus_file_reads_the_stream_words_moving_whole_pieces(corpus: Path, relpath: str):
    with open_document(corpus / relpath) as doc:
        for page in range(1, doc.page_count + 1):
            table = doc.page_glyphs(page).table
            ours = tokenize(read_layout(table, CONFIG).joined.text)
            stream = tokenize(read_stream(table, CONFIG).joined.text)
            assert sorted(ours) == sorted(stream), page
            assert lcs_length(ours, stream) >= 0.7 * len(stream), page


def test_bullets_whose_deep_boxes_overlap_the_line_above_leave_a_text_column():
    # Every other line of the left column starts with a bullet set larger
    # than the text: its box reaches into the line above, so the two lines
    # make one row of two units. Stacked, not side by side, they are no
    # table cells, and the column is still running text.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 40), 200), wrap(prose("b", 40), 220)

    def line(c: int, i: int) -> str:
        y = 700 - LEADING * i
        if c == 1:
            return show(f, 320, y, right[i])
        if i % 2:
            return show(f, 72, y, left[i])
        return f"{show(f, 72, y, '*', 20)} {show(f, 84, y, left[i])}"

    b.add_page(" ".join(line(c, i) for c, i in interleave(left, right)))
    bulleted = [f"* {text}" if i % 2 == 0 else text for i, text in enumerate(left)]
    assert layout(b).joined.text == "\n".join([*bulleted, *right])


def test_large_bullet_after_a_narrow_gutter_starts_a_unit_of_its_own():
    # The right column's bullet is painted right after the left column's
    # longest line, on its baseline, 13 points on: less than the bullet's
    # height, more than the text's. Measured against the smaller glyph the
    # jump starts a new unit, and the gutter runs the full height.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 40), 220), wrap(prose("b", 40), 220)
    widest = max(range(len(left)), key=lambda i: text_width(left[i], size=SIZE))
    x = 72 + text_width(left[widest], size=SIZE) + 13

    def line(c: int, i: int) -> str:
        y = 700 - LEADING * i
        if c == 0:
            return show(f, 72, y, left[i])
        if i == widest:
            return f"{show(f, x, y, '*', 20)} {show(f, x + 12, y, right[i])}"
        return show(f, x, y, right[i])

    b.add_page(" ".join(line(c, i) for c, i in interleave(left, right)))
    marked = [f"* {text}" if i == widest else text for i, text in enumerate(right)]
    assert layout(b).joined.text == "\n".join([*left, *marked])


def test_two_columns_over_a_worksheet_beside_a_full_height_column():
    # Three columns at the top; under the first two, a worksheet spanning
    # both; the third runs the full height beside it (a tax form's
    # instructions). The first two and the worksheet are no text column
    # (rows of two lines side by side), but the gutter beside the third
    # column runs the whole height: they are read as a region of columns
    # of their own, then the third column, whatever the stream's order.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    first, second = wrap(prose("a", 40), 150), wrap(prose("b", 40), 150)
    worksheet = wrap(prose("w", 30), 320)
    below = len(first) + 2  # the worksheet's first line, in lines from the top
    third = wrap(prose("c", 8 * (below + len(worksheet))), 150)[: below + len(worksheet)]
    rows = []
    for i in range(len(third)):
        y = 700 - LEADING * i
        if i < len(first):
            rows += [show(f, 50, y, first[i]), show(f, 230, y, second[i])]
        elif i >= below:
            rows.append(show(f, 50, y, worksheet[i - below]))
        rows.append(show(f, 410, y, third[i]))
    b.add_page(" ".join(rows))
    assert layout(b).joined.text == "\n".join([*first, *second, *worksheet, *third])


# --------------------------------------------------------------------------- paint order
# Each rule that makes the reading order independent of the paint order
# (extract/layout/lines.py, leaves.py, cut.py's ragged ends), on a page that
# paints against it.


def test_line_painted_right_half_first_reads_along_the_line():
    # lines.line_order: the pieces of one line join along the line.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    first, second = "Rivers run", "to the sea"
    x = 72 + text_width(first + " ", "Helvetica", SIZE)
    b.add_page(" ".join([show(f, x, 700, second), show(f, 72, 700, first), show(f, 72, 688, "and back again")]))
    assert layout(b).joined.text == "Rivers run to the sea\nand back again"


def test_two_columns_that_share_their_baselines_are_no_table():
    # leaves._merge_grids: running text side by side on one leading, which
    # no cut separated (too narrow a gutter for one), keeps paint order
    # column by column rather than reading rows across both.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 40), 220), wrap(prose("b", 40), 220)
    columns = paint(f, [left, right], (72, 299), 700, one_after_another(left, right))
    b.add_page(columns)
    assert layout(b).joined.text == "\n".join([*left, *right])


def test_table_painted_column_by_column_reads_row_by_row():
    # leaves._merge_grids: narrow runs on one another's baselines are a
    # table's columns.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    rows = [["Name", "Depth", "Flow"], ["Avon", "3 m", "40"], ["Tees", "5 m", "52"], ["Wear", "4 m", "47"], ["Tyne", "6 m", "61"]]
    cells = [show(f, 72 + 120 * c, 700 - 16 * r, rows[r][c]) for c in range(3) for r in range(len(rows))]
    b.add_page(" ".join(cells))
    assert layout(b).joined.text == "\n".join(" ".join(row) for row in rows)


@pytest.mark.parametrize("order", ["columns", "interleaved", "shuffled"])
def test_narrow_prose_columns_in_a_box_read_column_after_column(order: str):
    # regions.wraps: two columns of prose 110 pt wide (under COLUMN_WIDTH
    # body heights) in a box under a paragraph, on one leading: their lines
    # wrap like a paragraph's, so they are text columns and the gutter
    # between them a cut, whatever the paint order, never a table's
    # columns read row by row.
    import random

    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    intro = wrap(prose("p", 24), 240)
    # Words of five or six letters, three or four to a line.
    left, right = (wrap([f"{w}{tag}{i}" for i, w in enumerate(["sun", "sea", "oak", "elm", "ash", "bay"] * 7)], 110) for tag in "ab")
    top = 700 - LEADING * len(intro) - 24
    pieces = [(c, i) for c, column in enumerate([left, right]) for i in range(len(column))]
    if order == "interleaved":
        pieces = interleave(left, right)
    elif order == "shuffled":
        random.Random(19).shuffle(pieces)
    b.add_page(" ".join([paint(f, [intro], (72,), 700, one_after_another(intro)), paint(f, [left, right], (72, 200), top, pieces)]))
    assert layout(b).joined.text == "\n".join([*intro, *left, *right])


@pytest.mark.parametrize("order", ["interleaved", "reversed"])
def test_narrow_columns_of_short_paragraphs_in_a_box_read_column_after_column(order: str):
    # regions.wraps (PARAGRAPH_STEP): two narrow columns in a box, each of
    # paragraphs two lines long set apart by a paragraph gap of 0.6 lines
    # (under a section gap). Half their lines end a paragraph and do not
    # wrap; followed by a paragraph gap they say nothing of wrapping, so
    # both columns still wrap like prose and read column after column, not
    # row by row.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    intro = wrap(prose("p", 24), 240)
    stems = ["sun", "sea", "oak", "elm", "ash"]
    top = 700 - LEADING * len(intro) - 24
    columns: list[list[tuple[float, str]]] = []  # per column, (y, line) top to bottom
    for tag in "ab":
        column: list[tuple[float, str]] = []
        for k in range(4):
            lines = wrap([f"{w}{tag}{k}{i}" for i, w in enumerate(stems)], 110)
            assert len(lines) == 2
            column += [(top - k * 2.6 * LEADING - i * LEADING, line) for i, line in enumerate(lines)]
        columns.append(column)
    pieces = [show(f, x, y, line) for pair in zip(*columns, strict=True) for x, (y, line) in zip((72, 200), pair, strict=True)]
    if order == "reversed":
        pieces = pieces[::-1]
    b.add_page(" ".join([paint(f, [intro], (72,), 700, one_after_another(intro)), *pieces]))
    assert layout(b).joined.text == "\n".join([*intro, *(line for column in columns for _, line in column)])


Placed = tuple[float, float, str]  # a line's x, baseline y and text


@dataclass(frozen=True)
class _BoxPage:
    intro: list[Placed]
    left: list[Placed]
    right: list[Placed]
    after: list[Placed]
    box_top: float


def _box_between_paragraphs() -> _BoxPage:
    """The page of the stream_band_order tests: a paragraph, a box of two
    narrow columns 40 pt under it, a paragraph 30 pt under the box, each
    line LEADING under the one before."""
    intro, after = wrap(prose("p", 30), 300), wrap(prose("q", 30), 300)
    left, right = (wrap([f"{w}{tag}{i}" for i, w in enumerate(["sun", "sea", "oak", "elm", "ash", "bay"] * 5)], 110) for tag in "ab")
    box_top = 700 - LEADING * len(intro) - 40
    after_top = box_top - LEADING * max(len(left), len(right)) - 30

    def placed(x: float, top: float, part: list[str]) -> list[Placed]:
        return [(x, top - LEADING * i, line) for i, line in enumerate(part)]

    return _BoxPage(placed(72, 700, intro), placed(80, box_top, left), placed(208, box_top, right), placed(72, after_top, after), box_top)


def _texts(part: list[Placed]) -> list[str]:
    return [text for _, _, text in part]


@pytest.mark.parametrize("painted", ["box_last", "reversed", "heading_late"])
def test_box_between_bands_painted_after_them_keeps_its_place_in_the_stream(painted: str):
    # tiebreaks.stream_band_order: a box of two narrow columns under its
    # heading, between two paragraphs, which the stream paints after both of
    # them (each band in one visit, read down the page), reads where the
    # stream put it: geometry cannot tell a callout from the text's next
    # band. The page number, painted first, keeps the bottom band. A stream
    # painted bottom-up, or one that paints the heading after the box under
    # it, is no witness: the bands read top to bottom.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    page = _box_between_paragraphs()
    intro, after, left, right = (_texts(part) for part in (page.intro, page.after, page.left, page.right))
    heading = (80, page.box_top + 22, "Key facts")
    lines = [(72, 60, "7"), *page.intro, *page.after, heading, *page.left, *page.right]
    if painted == "reversed":
        lines = sorted(lines, key=lambda line: line[1])
    elif painted == "heading_late":
        lines = [line for line in lines if line != heading] + [heading]
    b.add_page(" ".join(show(f, x, y, text) for x, y, text in lines))
    if painted == "box_last":
        expected = [*intro, *after, heading[2], *left, *right, "7"]
    else:
        expected = [*intro, heading[2], *left, *right, *after, "7"]
    assert layout(b).joined.text == "\n".join(expected)


def test_box_between_bands_keeps_its_place_when_the_foot_is_painted_first():
    # tiebreaks._foot_painted_first: a box of two narrow columns between two
    # paragraphs, painted after the paragraph under it, whose last line, at
    # the foot of the page, is painted before everything else (a producer
    # painting the page's foot first). The bottom band is painted in two
    # visits, but the rest of the stream still paints band after band, each
    # down the page: the box keeps its place after the paragraph under it.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    page = _box_between_paragraphs()
    lines = [page.after[-1], *page.intro, *page.after[:-1], *page.left, *page.right]
    b.add_page(" ".join(show(f, x, y, text) for x, y, text in lines))
    parts = (page.intro, page.after, page.left, page.right)
    assert layout(b).joined.text == "\n".join(line for part in parts for line in _texts(part))


def test_table_of_sentences_painted_column_by_column_reads_row_by_row():
    # regions.wraps: a table's columns of text cells, each a row's one
    # line, end where their content ends, short of the next row's first
    # word: no wrapped lines, no text column, and the grid reads by rows.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    rows = [
        ["Avon", "slow and wide water"],
        ["Tees at Yarm", "a tidal reach with weirs"],
        ["Wear", "deep gorge and bends"],
        ["Tyne at Hexham bridge", "broad gravel riffles"],
        ["Eden", "clear upland stream"],
    ]
    cells = [show(f, 72 + 110 * c, 700 - LEADING * r, rows[r][c]) for c in range(2) for r in range(len(rows))]
    b.add_page(" ".join(cells))
    assert layout(b).joined.text == "\n".join(" ".join(row) for row in rows)


def label_value_columns() -> tuple[list[list[tuple[float, float, str]]], list[str]]:
    """Two columns of a spec sheet, 200 pt wide, each a table of labels and
    values on its own leading (12 pt and 9.5 pt): per column its pieces
    (x, y, text) in reading order, and the page's lines read column after
    column, each row along the line."""
    columns, lines = [], []
    for c, (x, leading, rows) in enumerate(((72, 12.0, 14), (320, 9.5, 18))):
        pieces = []
        for r in range(rows):
            y = 700 - leading * r
            label, value = f"label{c}x{r}", f"{r * 7 + c} kg"
            pieces += [(x, y, label), (x + 150, y, value)]
            lines.append(f"{label} {value}")
        columns.append(pieces)
    return columns, lines


@pytest.mark.parametrize("order", ["columns", "interleaved", "shuffled"])
def test_columns_of_label_value_tables_read_column_after_column(order: str):
    # cut.own_rows: two columns of label-value tables, no running text, on
    # leadings of their own (few of the right column's rows meet a baseline
    # of the left one): the gutter between them is a column cut, whatever
    # the paint order, and each column reads row by row.
    import random

    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    columns, lines = label_value_columns()
    pieces = [*columns[0], *columns[1]]
    if order == "interleaved":
        pieces = sorted(pieces, key=lambda p: (-p[1], p[0]))
    elif order == "shuffled":
        random.Random(19).shuffle(pieces)
    b.add_page(" ".join(show(f, x, y, text, 8) for x, y, text in pieces))
    assert layout(b).joined.text == "\n".join(lines)


def test_infobox_beside_a_text_column_keeps_its_place_in_the_stream():
    # cut.text_columns' beside_table: a label-value table on a leading of
    # its own beside a column of running text is a sidebar (an infobox),
    # not a column of a spec sheet: no cut, and the stream, which paints
    # it first, breaks the tie.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    text = wrap(prose("a", 80), 250)
    infobox = [(340 + 110 * (k % 2), 700 - 9.5 * (k // 2), f"length of run{k // 2}" if k % 2 == 0 else f"{k} m") for k in range(24)]
    body = paint(f, [text], (72,), 700, one_after_another(text))
    b.add_page(" ".join([" ".join(show(f, x, y, t, 8) for x, y, t in infobox), body]))
    rows = [f"length of run{r} {2 * r + 1} m" for r in range(12)]
    assert layout(b).joined.text == "\n".join([*rows, *text])


@pytest.mark.parametrize("order", ["reversed", "interleaved", "shuffled"])
def test_infobox_beside_text_painted_in_turn_with_it_reads_whole(order: str):
    # leaves._sidebars: an infobox of labels and values (no text column:
    # its lines are short and no greedy breaker wrapped them) beside a
    # column of short paragraphs, a gutter apart and on a leading of its
    # own. Painted in turn with the text row by row, or shuffled, its lines
    # share rows with the text's, and a label-value row on a text line's
    # baseline would read along that line; it reads whole, by its rows,
    # set higher than the text, first.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    paragraphs = [wrap(prose(f"p{k}x", 16), 250) for k in range(7)]
    pieces = column_of_paragraphs(paragraphs)
    for r in range(12):
        pieces += [(340, 712 - 16 * r, f"label{r}", 8), (400, 712 - 16 * r, f"value{r} unit", 8)]
    b.add_page(scrambled(f, pieces, order))
    rows = [f"label{r} value{r} unit" for r in range(12)]
    assert layout(b).joined.text == "\n".join([*rows, *(line for paragraph in paragraphs for line in paragraph)])


@pytest.mark.parametrize("order", ["reversed", "interleaved", "shuffled"])
def test_infobox_level_with_the_lead_reads_before_it_whatever_the_paint_order(order: str):
    # leaves._floats_first: an infobox (a title over a picture's space, then
    # labels and values on a leading of their own) beside a column of short
    # paragraphs under the page's title, its top edge level with the lead
    # paragraph's first line, a little lower. Painted in no order, or row
    # by row in turn with the text (a stream that reads down the page, its
    # box's place no witness either), the
    # stream is no witness of where the box goes; a box set level with a
    # line of the text is a float set where that line starts, and reads
    # whole before the lead, not after the column as a column of its own.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    paragraphs = [wrap(prose(f"p{k}x", 16), 250) for k in range(7)]
    pieces = [(72.0, 740.0, "Title of the article", 20.0), *column_of_paragraphs(paragraphs)]
    pieces.append((380, 698, "Infobox", 10))
    for r in range(10):
        pieces += [(340, 600 - 16 * r, f"label{r}", 8), (400, 600 - 16 * r, f"value{r} unit", 8)]
    b.add_page(scrambled(f, pieces, order))
    rows = [f"label{r} value{r} unit" for r in range(10)]
    body = [line for paragraph in paragraphs for line in paragraph]
    assert layout(b).joined.text == "\n".join(["Title of the article", "Infobox", *rows, *body])


def test_captions_beside_the_text_are_no_infobox_and_read_where_the_stream_starts_them():
    # leaves._sidebar_box's FACT_ROWS: a figure's captions beside the text
    # (one short line a row, no label beside a value), level with the
    # second line, painted row by row in turn with the text: no box of
    # facts, so no float put before that line; its block reads whole where
    # the stream paints its first line, after the line level with it.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    paragraphs = [wrap(prose(f"p{k}x", 16), 250) for k in range(7)]
    words = ["Elbow stretch", "a", "Bend your elbow", "and touch", "your shoulder", "b", "Hand squeeze", "Make a fist", "c", "Relax"]
    captions = [(340.0, 682.0 - 16 * r, text, 8.0) for r, text in enumerate(words)]
    b.add_page(scrambled(f, [*column_of_paragraphs(paragraphs), *captions], "interleaved"))
    body = [line for paragraph in paragraphs for line in paragraph]
    assert layout(b).joined.text == "\n".join([*body[:2], *words, *body[2:]])


def test_list_indented_between_paragraphs_painted_after_them_reads_in_place():
    # leaves._holes_filled_later: a list of two items set apart, indented
    # between two paragraphs at the column's edge, painted edge by edge
    # (the paragraphs first, down the page, then the items): the stream
    # fills two holes it left, each item after the paragraph over it and
    # the one under it, and the items read where they stand, not after the
    # last paragraph.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    blocks = [(72, wrap(prose("a", 30), 400)), (108, wrap(prose("l", 24), 320)), (108, wrap(prose("m", 24), 320)),
              (72, wrap(prose("b", 30), 400))]  # fmt: skip
    placed, y = [], 700.0
    for x, lines in blocks:
        for line in lines:
            placed.append((x, y, line))
            y -= LEADING
        y -= 30
    edge_first = sorted(placed, key=lambda p: p[0])  # stable: down the page at each edge
    b.add_page(" ".join(show(f, x, y, text) for x, y, text in edge_first))
    assert layout(b).joined.text == "\n".join(line for _, lines in blocks for line in lines)


def test_wide_table_painted_column_by_column_reads_row_by_row():
    # cut.own_rows: a table whose middle gap is a gutter wide, and whose two
    # halves are each as wide as a text column, shares its rows across the
    # gap: no column cut, and the table reads row by row.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    rows = [[f"site{r}", f"river{r}", f"{r * 3} m", f"{r * 11} l/s"] for r in range(8)]
    x = (72, 170, 330, 430)
    b.add_page(" ".join(show(f, x[c], 700 - 14 * r, rows[r][c]) for c in range(4) for r in range(len(rows))))
    assert layout(b).joined.text == "\n".join(" ".join(row) for row in rows)


def test_column_painted_bottom_up_reads_top_to_bottom():
    # leaves._merge_interleaved, then _order_runs: runs that are single
    # lines going up the page, one above the other, read down.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    lines = wrap(prose("a", 50), 400)
    b.add_page(" ".join(show(f, 72, 700 - LEADING * i, line) for i, line in reversed(list(enumerate(lines)))))
    assert layout(b).joined.text == "\n".join(lines)


def test_running_head_painted_last_reads_first():
    # leaves._order_runs: a run above every other reads first.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    lines = wrap(prose("a", 50), 400)
    b.add_page(" ".join([paint(f, [lines], (72,), 700, one_after_another(lines)), show(f, 400, 760, "Journal 7", 8)]))
    assert layout(b).joined.text == "\n".join(["Journal 7", *lines])


@pytest.mark.parametrize("footer", [False, True])
def test_page_number_on_the_running_heads_row_painted_last_reads_with_it(footer: bool):
    # leaves._edge_rows: one column between a running head (its page number
    # at the far end of the row) and a footer of two pieces. The stream
    # paints the head's title, the text, then the page number (or the
    # footer's right piece first, then the text, then its left piece): it
    # reads down the leaf but for one jump, so the witness test lets it
    # stand; geometry puts each piece on its row in the top or bottom band.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    lines = wrap(prose("a", 60), 400)
    body = paint(f, [lines], (72,), 700, one_after_another(lines))
    if footer:
        b.add_page(" ".join([show(f, 72, 760, "Journal 7", 8), show(f, 480, 40, "Page 7 of 9", 8), body, show(f, 72, 40, "Printed 2026", 8)]))
        expected = ["Journal 7", *lines, "Printed 2026 Page 7 of 9"]
    else:
        b.add_page(" ".join([show(f, 72, 760, "Journal of Pages", 8), body, show(f, 520, 760, "7", 8)]))
        expected = ["Journal of Pages 7", *lines]
    assert layout(b).joined.text == "\n".join(expected)


def test_short_column_painted_in_no_order_reads_top_to_bottom():
    # leaves._stack_down: a running head and its page number, a title, a
    # paragraph of four lines and a page number under them. The stream
    # paints the paragraph's lines out of their order and goes back up
    # only once: the witness test lets the leaf's order stand, but lines
    # one a row have one order, and a paragraph painted out of its order
    # is no witness of it.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    text = wrap(prose("a", 36), 460)
    assert len(text) == 4
    lines = [(72, 760, "Journal 4"), (530, 760, "5"), (72, 720, "A Short Title"),
             *((72, 690 - LEADING * i, line) for i, line in enumerate(text)), (300, 40, "6")]
    painted = [lines[k] for k in (2, 5, 1, 3, 0, 4, 6, 7)]
    b.add_page(" ".join(show(f, x, y, line) for x, y, line in painted))
    assert layout(b).joined.text == "\n".join(["Journal 4 5", "A Short Title", *text, "6"])


@pytest.mark.parametrize("sidebar_first", [False, True])
def test_sidebar_beside_the_text_keeps_its_place_in_the_stream(sidebar_first: bool):
    # leaves._order_runs: a narrow box beside the text (no text column, so
    # no cut) that lies along it: geometry leaves the tie, the stream breaks it.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    text = wrap(prose("a", 90), 330)
    sidebar = ["Key facts", "founded 1902", "members 40", "rivers 12"]
    body = paint(f, [text], (72,), 700, one_after_another(text))
    box = " ".join(show(f, 440, 690 - 14 * i, line, 8) for i, line in enumerate(sidebar))
    b.add_page(" ".join([box, body] if sidebar_first else [body, box]))
    expected = [*sidebar, *text] if sidebar_first else [*text, *sidebar]
    assert layout(b).joined.text == "\n".join(expected)


def test_callout_painted_after_the_text_under_it_keeps_its_place_in_the_stream():
    # leaves._with_bands: only furniture goes to the top or bottom band. The
    # paragraph under a boxed callout lies below every other run, but it is
    # running text: where the callout reads is a tie the stream breaks (the
    # author painted it after the text), not a footer to move last.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    above, under = wrap(prose("a", 40), 400), wrap(prose("c", 40), 400)
    callout = wrap(prose("q", 24), 260, size=8)
    under_top = 700 - LEADING * len(above) - 40 - 10 * len(callout) - 30
    b.add_page(
        " ".join(
            [
                paint(f, [above], (72,), 700, one_after_another(above)),
                paint(f, [under], (72,), under_top, one_after_another(under)),
                " ".join(show(f, 100, 700 - LEADING * len(above) - 40 - 10 * i, line, 8) for i, line in enumerate(callout)),
            ]
        )
    )
    assert layout(b).joined.text == "\n".join([*above, *under, *callout])


# Callouts round a figure: (x, top) of each, listed top first; staggered along
# the line so that no gutter parts them and no gap crosses them all.
CALLOUTS = [(60, 702), (265, 644), (154, 601), (265, 554), (30, 540), (29, 466), (219, 419)]


@pytest.mark.parametrize("painted", [[6, 3, 1, 0, 5, 2, 4], [4, 1, 6, 3, 2, 5, 0], [6, 1, 5, 2, 4, 0, 3]])
def test_callouts_round_a_figure_painted_in_no_order_read_top_first(painted: list[int]):
    # leaves._blocks_painted_back: seven callouts (a heading over three
    # lines each) each painted down in one visit, the callouts in no order.
    # Line by line the stream reads down the leaf (the witness test lets it
    # stand), but from callout to callout it goes back up to one above
    # twice in six moves: no witness of their order, and they read top
    # first (breast-cancer guide p39's callouts round a figure).
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    callouts = [[f"Callout {k}", *wrap(prose(f"c{k}x", 14), 110, size=9)[:3]] for k in range(len(CALLOUTS))]
    b.add_page(
        " ".join(show(f, CALLOUTS[k][0], CALLOUTS[k][1] - LEADING * i, line, 9) for k in painted for i, line in enumerate(callouts[k]))
    )
    assert layout(b).joined.text == "\n".join(line for callout in callouts for line in callout)


@pytest.mark.parametrize("foot_first", [True, False])
def test_callout_above_and_before_another_reads_first_whatever_the_paint_order(foot_first: bool):
    # leaves._blocks_ahead: two callouts round a figure (breast-cancer guide
    # p38), one wholly above the other and before it along the line, neither
    # level with any other line. By rows the upper one comes first, by
    # columns the left one: geometry orders them, whatever the stream paints
    # first (here the lower one, going back up once: a tie the stream would
    # break).
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    upper = ["Rest up", *wrap(prose("r", 24), 130, size=9)[:5]]
    lower = ["Resuming activities", *wrap(prose("s", 36), 170, size=9)[:7]]
    parts = [" ".join(show(f, 53, 663 - 12 * i, line, 9) for i, line in enumerate(upper)),
             " ".join(show(f, 269, 568 - 12 * i, line, 9) for i, line in enumerate(lower))]  # fmt: skip
    b.add_page(" ".join(reversed(parts) if foot_first else parts))
    assert layout(b).joined.text == "\n".join([*upper, *lower])


def test_floats_round_a_text_column_painted_after_it_keep_their_places_in_the_stream():
    # leaves._blocks_painted_back: a text column, then a note over it, a
    # footnote and a margin note beside it, painted in that order (a
    # journal's first page). From block to block the stream goes back up
    # twice in three moves, but in a text column the stream is the witness
    # of where its floats go: the blocks keep paint order.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    text, note = wrap(prose("a", 160), 396), wrap(prose("n", 16), 300, size=8)
    foot, margin = wrap(prose("f", 20), 396, size=7), wrap(prose("m", 12), 80, size=7)
    parts = [show(f, 144, 650 - LEADING * i, line) for i, line in enumerate(text)]
    parts += [show(f, 160, 720 - 10 * i, line, 8) for i, line in enumerate(note)]
    parts += [show(f, 144, 80 - 8 * i, line, 7) for i, line in enumerate(foot)]
    parts += [show(f, 36, 600 - 8 * i, line, 7) for i, line in enumerate(margin)]
    b.add_page(" ".join(parts))
    assert layout(b).joined.text == "\n".join([*text, *note, *foot, *margin])


@pytest.mark.parametrize("order", ["top_down", "reversed", "interleaved", "shuffled"])
def test_note_boxed_at_the_head_of_the_page_reads_after_the_text(order: str):
    # leaves.head_note_last: a note in 8 pt set in from the column's edge by
    # a frame's padding at the head of the page, the running text in 10 pt
    # under it, a page number at the foot. The text runs on from the page
    # before; the note is outside its flow and reads after it, before the
    # page number, whatever order the stream paints them in.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    note, text = wrap(prose("n", 30), 380, size=8), wrap(prose("t", 90), 420)
    assert len(note) >= 2 and len(text) >= 6
    pieces = [(82.0, 720.0 - 10 * i, line, 8.0) for i, line in enumerate(note)]
    top = 720 - 10 * len(note) - 30
    pieces += [(72.0, top - LEADING * i, line, float(SIZE)) for i, line in enumerate(text)]
    pieces.append((300.0, 40.0, "7", float(SIZE)))
    b.add_page(scrambled(f, pieces, order))
    assert layout(b).joined.text == "\n".join([*text, *note, "7"])


@pytest.mark.parametrize("order", ["top_down", "reversed", "shuffled"])
def test_note_in_columns_boxed_at_the_head_of_the_page_reads_after_the_text(order: str):
    # leaves.head_note_last across leaves: the boxed note at the head of the
    # page is a heading over two columns of its own in 8 pt, which the cut
    # reads as leaves; they move after the running text under them whole.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("l", 36), 170, size=8), wrap(prose("r", 36), 170, size=8)
    text = wrap(prose("t", 90), 420)
    pieces = [(82.0, 730.0, "Boxed heading", float(SIZE))]
    pieces += [(x, 714.0 - 10 * i, line, 8.0) for x, column in ((82.0, left), (272.0, right)) for i, line in enumerate(column)]
    top = 714 - 10 * max(len(left), len(right)) - 30
    pieces += [(72.0, top - LEADING * i, line, float(SIZE)) for i, line in enumerate(text)]
    pieces.append((300.0, 40.0, "7", float(SIZE)))
    b.add_page(scrambled(f, pieces, order))
    assert layout(b).joined.text == "\n".join([*text, "Boxed heading", *left, *right, "7"])


def test_footnote_painted_last_reads_at_the_foot_of_its_column():
    # cut._ragged_ends: a band of running text under one column joins it,
    # and that region reads by its columns whatever was painted last.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 70), 220), wrap(prose("b", 50), 220)
    note = wrap(prose("n", 14), 220, size=7)
    note_top = 700 - LEADING * len(left) - 30
    columns = paint(f, [left, right], (72, 320), 700, one_after_another(left, right))
    notes = " ".join(show(f, 72, note_top - 8 * i, line, 7) for i, line in enumerate(note))
    b.add_page(columns + " " + notes)
    assert layout(b).joined.text == "\n".join([*left, *note, *right])


# --------------------------------------------------------------------------- narrow gutters, mixed columns


def test_lines_painted_across_a_narrow_gutter_with_trailing_spaces_read_column_after_column():
    # units.unit_starts: each left line ends in a space and the right line on
    # its baseline follows in the stream, 7 pt further (LaTeX's gutter is one
    # em): the jump is measured from where the space starts, so the two
    # lines are two units, and the gutter between them stays whitespace.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 60), 220), wrap(prose("b", 60), 220)
    spaced = [[line + " " for line in left], [line + " " for line in right]]
    b.add_page(paint(f, spaced, (72, 299), 700, interleave(left, right)))
    assert layout(b).joined.text == "\n".join([*spaced[0], *spaced[1]])


def contents_and_equations_page(painted: Callable[[int], list[int]]) -> tuple[PdfBuilder, list[str]]:
    """Two columns 7 pt apart, as a LaTeX article sets them: on the left
    prose, then a table of contents (number, title with leaders, page: three
    pieces a row); on the right prose around displayed equations (two
    pieces and a number a row); a page number centred under the gutter, too
    close to the columns for a band of its own. The pieces are painted in
    the order `painted` gives (a permutation of their indices); returns
    the page and its text in reading order."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    x_left, x_right = 72, 299
    pieces: list[tuple[float, float, str]] = []  # x, y, text
    y = 700
    for line in wrap(prose("a", 45), 220):
        pieces.append((x_left, y, line))
        y -= LEADING
    for k in range(1, 8):
        pieces += [(x_left, y, f"{k}."), (x_left + 20, y, f"Section{k} " + "." * 20), (x_left + 210, y, str(k + 1))]
        y -= LEADING
    for line in wrap(prose("c", 30), 220):
        pieces.append((x_left, y, line))
        y -= LEADING
    bottom = y
    y = 700
    for part in range(3):
        for line in wrap(prose(f"b{part}x", 20), 220):
            pieces.append((x_right, y, line))
            y -= LEADING
        pieces += [(x_right + 10, y, f"f{part}(x) = sin x"), (x_right + 110, y, f"g{part}(x) = cos x"), (x_right + 200, y, f"({part + 1})")]
        y -= LEADING
    bottom = min(bottom, y)
    pieces.append((292, bottom - 4, "7"))
    b.add_page(" ".join(show(f, *pieces[k][:2], pieces[k][2]) for k in painted(len(pieces))))
    # Reading order: the left column top to bottom (a row's pieces along it),
    # then the right one, then the page number.
    left = [p for p in pieces[:-1] if p[0] < x_right]
    right = [p for p in pieces[:-1] if p[0] >= x_right]
    rows = [" ".join(t for _, _, t in group) for column in (left, right) for _, group in itertools.groupby(column, key=lambda p: p[1])]
    return b, [*rows, "7"]


@pytest.mark.parametrize("order", ["reversed", "shuffled"])
def test_prose_columns_with_contents_and_equations_read_column_after_column(order: str):
    # regions.holds_prose: neither column passes is_text_column (too many
    # rows of several pieces), but both hold prose lines, so the 7 pt gutter
    # between them is a column cut (params.GUTTER), and merge_fragments
    # keeps them two leaves; regions._core: the page number reaching into
    # the gutter crosses it, and reads as a band under the columns.
    # leaves.reads_down: the shuffled stream jumps up and back to the left
    # column as often as up to the right one: no witness of the order.
    import random

    def painted(n: int) -> list[int]:
        ids = list(range(n))
        if order == "reversed":
            return ids[::-1]
        random.Random(19).shuffle(ids)
        return ids

    b, expected = contents_and_equations_page(painted)
    got = layout(b).joined.text.split("\n")
    assert [" ".join(line.split()) for line in got] == [" ".join(line.split()) for line in expected]


def test_table_row_of_centred_cells_painted_by_baseline_reads_along_the_row():
    # leaves._cells_along_rows: a lift table whose cells are centred on their
    # row, so that baselines on one row differ by a point or less (the last
    # column's one-line reach raised, a one-line row label lowered between
    # the two lines of its row's cells), painted line by line down the
    # page by baseline: each row still reads along the row, cell by cell.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    cells: list[tuple[float, float, str]] = []  # x, y, text in reading order
    for r, height in enumerate(["+13 ft", "+10 ft", "Groundline", "-3 ft"]):
        top = 700 - 24 * r
        if height == "Groundline":
            cells.append((72, top - 3.5, height))
        else:
            cells += [(72, top, height), (72, top - 7, f"({r + 1}.0 m)")]
        for c in range(5):
            cells += [(130 + 60 * c, top - 0.5, f"{r}{c}70 lb"), (130 + 60 * c, top - 7.5, f"({r}{c}90 kg)")]
        cells += [(440, top + 0.8, f"{r}4 ft"), (440, top - 6.2, f"({r}.4 m)")]
    order = sorted(range(len(cells)), key=lambda k: (-cells[k][1], cells[k][0]))
    b.add_page(" ".join(show(f, cells[k][0], cells[k][1], cells[k][2], 8) for k in order))
    # Words, not lines: the lowered label and the amount beside it lie
    # within a line break of each other (join's rule), one line of text.
    assert layout(b).joined.text.split() == " ".join(text for _, _, text in cells).split()


def test_values_set_flush_right_painted_by_x_position_read_by_rows():
    # leaves._flush_right_visits: a list of labels and their values under a
    # heading, the values set flush right, painted by x position (the
    # labels top to bottom, then the values by where each starts: up and
    # down the column, no run of GRID_ROWS lines). The values are one visit
    # to their column: the table is painted column by column, and reads by
    # rows, not the labels, then the values.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    rows = [("Arm", "5 ft 3 in"), ("Track rollers", "1 upper/5 lower each"), ("Swing", "80 left"),
            ("Boom length", "9 ft 10 in (3.0 m)"), ("Speed", "9 RPM"), ("Long arm", "6 ft 3 in (1.9 m)")]
    pieces = [(72.0, 700 + 1.5 * LEADING, "SPECS")]
    for i, (label, value) in enumerate(rows):
        pieces += [(72.0, 700 - LEADING * i, label), (300 - text_width(value, "Helvetica", SIZE), 700 - LEADING * i, value)]
    pieces.sort(key=lambda p: (round(p[0]), -p[1]))
    b.add_page(" ".join(show(f, x, y, text) for x, y, text in pieces))
    assert layout(b).joined.text.split("\n") == ["SPECS", *(f"{label} {value}" for label, value in rows)]


def test_values_painted_by_x_position_beside_wide_labels_read_by_rows():
    # leaves._values_up_and_down: a spec list whose long labels run across
    # the values' column, their values set flush right on the row under
    # them; painted by x position (the labels top to bottom, then the
    # values by where each starts). The labels' run is no narrow column,
    # so no two visits make a grid, and the stream goes down from most of
    # its lines; but the values' visit goes back up the page: a column
    # painted on its own, and the list reads by rows.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    rows = [("Model", "Yanmar 4TNV98C"), ("Emissions", "Tier 4 Final"), ("Fuel", "Diesel"), ("Cylinders", "4"),
            ("Displacement", "203 in3 (3 319 cc)"), ("Injection", "Electronic common rail"),
            ("Gross horsepower at 2400 RPM:", None), (None, "66.9 hp (49.9 kW)"),
            ("Net horsepower at 2400 RPM:", None), (None, "65.1 hp (48.5 kW)"), ("Cooling", "Water-cooled")]
    pieces = [(72.0, 700 + 1.5 * LEADING, "ENGINE")]
    for i, (label, value) in enumerate(rows):
        if label:
            pieces.append((72.0, 700 - LEADING * i, label))
        if value:
            pieces.append((300 - text_width(value, "Helvetica", SIZE), 700 - LEADING * i, value))
    pieces.sort(key=lambda p: (round(p[0]), -p[1]))
    b.add_page(" ".join(show(f, x, y, text) for x, y, text in pieces))
    expected = ["ENGINE", *(" ".join(part for part in row if part) for row in rows)]
    assert layout(b).joined.text.split("\n") == expected


@pytest.mark.parametrize("painted", ["columns", "reversed", "lines"])
def test_table_of_two_line_cells_reads_cell_by_cell_row_by_row(painted: str):
    # leaves._grid_rows: a lift table whose cells hold an amount over its
    # metric amount, set tighter than the padding between rows (the two
    # lines' boxes overlap), reads row by row and, in a row, cell by cell,
    # each cell top to bottom: never the amounts of a row then its metric
    # amounts, whatever order the table was painted in.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    heights = ["+13 ft", "+10 ft", "+7 ft", "+3 ft", "0 ft"]
    cells: list[tuple[float, float, str]] = []  # x, y, text in reading order
    for r, height in enumerate(heights):
        top = 700 - 24 * r
        cells += [(72, top, height), (72, top - 7, f"({r + 1}.0 m)")]
        for c in range(4):
            cells += [(150 + 70 * c, top, f"{r}{c}70 lb"), (150 + 70 * c, top - 7, f"({r}{c}90 kg)")]
    order = sorted(range(len(cells)), key=lambda k: (cells[k][0], -cells[k][1]))
    if painted == "reversed":
        order = list(range(len(cells)))[::-1]
    if painted == "lines":
        # leaves._cells_together: line by line down the page, each line
        # across the row's cells, a stream that reads down the table.
        order = sorted(range(len(cells)), key=lambda k: (-cells[k][1], cells[k][0]))
    b.add_page(" ".join(show(f, cells[k][0], cells[k][1], cells[k][2], 8) for k in order))
    assert layout(b).joined.text.split("\n") == [text for _, _, text in cells]


@pytest.mark.parametrize("painted", ["columns", "reversed", "shuffled"])
def test_head_of_staggered_labels_reads_cell_by_cell(painted: str):
    # kernels._staggered_labels: a lift table's head stacks its labels two
    # to a cell ("Load/Lift" over "Point Height", "7 ft" over "(2.0 m)"),
    # each column's labels dropped a little from the one before, a "REACH"
    # between: five staggered rows chained tight, more rows than any cell
    # has lines, padded from nothing under them. Each label reads with the
    # one under it, cell by cell along the head, whatever the paint order;
    # never the head's rows across the cells ("7 ft 10 ft ... Point Height
    # REACH (2.0 m) ..."). The body's two-line cells read as before.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    cells: list[tuple[float, float, str]] = [(72, 712.0, "Load/Lift"), (72, 704.6, "Point Height")]
    for c in range(4):
        cells += [(170 + 70 * c, 707.1, f"{7 + 3 * c} ft"), (170 + 70 * c, 699.7, f"({2 + c}.0 m)")]
    cells.append((460, 703.4, "REACH"))
    for r, height in enumerate(["+13 ft", "+10 ft", "+7 ft"]):
        top = 680 - 24 * r
        cells += [(72, top, height), (72, top - 7, f"({r + 1}.0 m)")]
        for c in range(4):
            cells += [(170 + 70 * c, top, f"{r}{c}70 lb"), (170 + 70 * c, top - 7, f"({r}{c}90 kg)")]
        cells += [(460, top, f"{r}5 ft"), (460, top - 7, f"({r}.5 m)")]
    order = sorted(range(len(cells)), key=lambda k: (cells[k][0], -cells[k][1]))
    if painted == "reversed":
        order = list(range(len(cells)))[::-1]
    if painted == "shuffled":
        random.Random(3).shuffle(order)
    b.add_page(" ".join(show(f, cells[k][0], cells[k][1], cells[k][2], 8) for k in order))
    assert layout(b).joined.text.split() == " ".join(text for _, _, text in cells).split()


def test_values_stacked_beside_their_labels_keep_their_rows():
    # leaves.stacked_cells: in a spec sheet's list, each circuit's two
    # values lie one over the other as tight as a two-line cell and padded
    # from the next circuit's values, but the labels beside them run on at
    # the list's leading under their heading: a list's rows, no row of
    # cells, and each label reads with its value.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    rows: list[tuple[float, str, str]] = [(72, "Auxiliary flow:", "")]
    for circuit in ("Hammer circuit:", "First circuit:", "Second circuit:"):
        rows += [(80, circuit, ""), (88, "Flow", "15.3 gpm"), (88, "Pressure", "3,133 psi")]
    ops = []
    for k, (x, label, value) in enumerate(rows):
        y = 700 - 9 * k
        ops.append(show(f, x, y, label, 8))
        if value:
            ops.append(show(f, 260 - text_width(value, "Helvetica", 8), y, value, 8))
    b.add_page(" ".join(ops))
    assert layout(b).joined.text.split("\n") == [f"{label} {value}".strip() for _, label, value in rows]


def test_matrix_between_lines_of_text_reads_row_by_row():
    # leaves.stacked_cells: a displayed 2 x 2 matrix's columns lie tight,
    # one entry over the other, padded from the text around them, but no
    # cell lies over or under them: the lines of the text do. No table's
    # column, and the matrix reads by its rows, as painted.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    before, after = wrap(prose("a", 24), 300), wrap(prose("b", 24), 300)
    ops = [show(f, 72, 700 - LEADING * i, line) for i, line in enumerate(before)]
    top = 700 - LEADING * len(before) - 10
    for r, row in enumerate([("11", "12"), ("21", "22")]):
        ops += [show(f, 150 + 30 * c, top - 11 * r, entry) for c, entry in enumerate(row)]
    below = top - 11 - 10 - LEADING
    ops += [show(f, 72, below - LEADING * i, line) for i, line in enumerate(after)]
    b.add_page(" ".join(ops))
    assert layout(b).joined.text.split("\n") == [*before, "11 12", "21 22", *after]


@pytest.mark.parametrize("order", ["reversed", "shuffled", "interleaved"])
def test_sidebar_beside_a_scrambled_column_reads_as_a_block(order: str):
    # leaves.stacked_blocks: a sidebar too narrow for a text column shares
    # its baselines with the paragraph beside it. Painted out of order, the
    # stream is no witness of either block; read line by line, rows would
    # join the sidebar's lines to the text's. Its lines wrap as a
    # paragraph's do (_paragraphs_and_lines), so it reads as one block, and
    # ahead of the text, beside which it starts (_top_first). Painted top
    # to bottom across the page, the stream reads down the page, but paints
    # the sidebar in turn with the text: each is a paragraph, read whole
    # (_cells_together, _painted_in_turn).
    import random

    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    note = "the side note has the main idea of the two short texts to its right in a few words"
    sidebar = wrap(note.split(), 56)
    paragraphs = [wrap(prose(tag, 36), 300) for tag in "ab"]
    lines = [(198.0, 756.0, "Title of the page", 20.0)]
    lines += [(72.0, 728.0 - 14 * i, line, SIZE) for i, line in enumerate(sidebar)]
    top = 728.0
    for paragraph in paragraphs:
        lines += [(198.0, top - 14 * i, line, SIZE) for i, line in enumerate(paragraph)]
        top -= 14 * len(paragraph) + 8
    painted = list(range(len(lines)))[::-1]
    if order == "shuffled":
        random.Random(4).shuffle(painted)
    if order == "interleaved":
        painted = sorted(range(len(lines)), key=lambda k: (-lines[k][1], lines[k][0]))
    b.add_page(" ".join(show(f, lines[k][0], lines[k][1], lines[k][2], lines[k][3]) for k in painted))
    assert layout(b).joined.text.split("\n") == [text for _, _, text, _ in lines]


def test_last_lines_of_a_paragraph_painted_first_read_with_it():
    # leaves._painted_in_turn: a producer that paints the page's bottom band
    # first paints the last lines of the paragraph that runs into it before
    # everything else. The stream still reads down the page, but paints the
    # paragraph's lines other than top to bottom: the paragraph reads whole,
    # after the heading over it (_after_the_line_above).
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    first, second = wrap(prose("a", 40), 300), wrap(prose("b", 60), 300)
    lines = [(72.0, 700.0, "Heading of the page")]
    lines += [(72.0, 680.0 - LEADING * i, line) for i, line in enumerate(first)]
    top = 680.0 - LEADING * len(first) - 14
    lines += [(72.0, top, "Second heading")]
    lines += [(72.0, top - 18 - LEADING * i, line) for i, line in enumerate(second)]
    painted = list(range(len(lines) - 2, len(lines))) + list(range(len(lines) - 2))
    b.add_page(" ".join(show(f, *lines[k]) for k in painted))
    assert layout(b).joined.text.split("\n") == [text for _, _, text in lines]


def test_paragraphs_of_a_column_painted_up_the_page_read_top_to_bottom():
    # leaves._stacked_in_place, _stream_paints_runs_up: each paragraph is
    # painted down the page, so the stream reads down the leaf, but two of
    # them are painted after the paragraph under them, flush with it: no
    # float placed in the text (one run painted after the text under it),
    # and the paragraphs of the column read top to bottom.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    paragraphs = [wrap(prose(tag, 30), 300) for tag in "abc"]
    lines: list[list[tuple[float, float, str]]] = []
    top = 700.0
    for paragraph in paragraphs:
        lines.append([(72.0, top - LEADING * i, line) for i, line in enumerate(paragraph)])
        top -= LEADING * len(paragraph) + 3 * LEADING
    painted = [*lines[2], *lines[0], *lines[1]]
    b.add_page(" ".join(show(f, *line) for line in painted))
    assert layout(b).joined.text.split("\n") == [text for paragraph in paragraphs for text in paragraph]


def test_columns_painted_across_the_gutter_top_to_bottom_read_column_after_column():
    # cut._cut: a float (a placeholder letter and its caption) heads the
    # left column beside the right column's short text, and a wide gap
    # under them crosses the page: bands and a full-height gutter both cut
    # it. Painted top to bottom across the gutter, the stream reads band
    # after band (tiebreaks.stream_reads_bands), but neither band is cut
    # into columns (the float is no text column), and read as bands the
    # first would join the float to the right column's lines: the gutter
    # stands, and the columns read one after the other.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    left, right = wrap(prose("a", 60), 220), wrap(prose("b", 25), 220)
    lines = [(72.0, 678.0, "3 CITATIONS", SIZE), (120.0, 600.0, "A", 80.0)]
    lines += [(90.0, 570.0, "Figure 1: a larger image set as a float", SIZE)]
    lines += [(72.0, 520.0 - LEADING * i, line, SIZE) for i, line in enumerate(left)]
    lines += [(320.0, 660.0, "Citations", 14.0)]
    lines += [(320.0, 644.0 - LEADING * i, line, SIZE) for i, line in enumerate(right)]
    order = sorted(range(len(lines)), key=lambda k: (-lines[k][1], lines[k][0]))
    b.add_page(" ".join(show(f, *lines[k]) for k in order))
    expected = ["3 CITATIONS", "A Figure 1: a larger image set as a float", *left, "Citations", *right]
    assert layout(b).joined.text.split("\n") == expected


@pytest.mark.parametrize("piece", ["word", "glyph"])
def test_lines_painted_last_piece_first_read_along_the_line(piece: str):
    # lines.glyphs_along: each line of a paragraph painted backwards, a word
    # (or a glyph) at a time from its end to its start, as one visit of the
    # stream: its glyphs still read along the line, and the lines top to
    # bottom.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    lines = wrap(prose("a", 30), 300)
    ops = []
    for i, line in enumerate(lines):
        y = 700 - LEADING * i
        if piece == "word":
            words = line.split(" ")
            starts = [72 + text_width(" ".join(words[:k]) + (" " if k else ""), "Helvetica", SIZE) for k in range(len(words))]
            ops += [show(f, x, y, word) for x, word in reversed(list(zip(starts, words, strict=True)))]
        else:
            starts = [72 + text_width(line[:k], "Helvetica", SIZE) for k in range(len(line))]
            ops += [show(f, x, y, ch) for x, ch in reversed(list(zip(starts, line, strict=True))) if ch != " "]
    b.add_page(" ".join(ops))
    assert layout(b).joined.text == "\n".join(lines)


def test_moves_of_the_reading_order_are_those_measured_on_it():
    # page._leaves keeps the stream's moves as first measured and the
    # positions its reorderings (glyphs_along, then line_order) took, and
    # the emitted order's moves are taken from them once (Measured.reading,
    # units.reordered_moves; labels.reordered_reading in one call): every
    # pair is measured by its two glyphs alone, so the moves are those
    # line_moves measures on that order afresh. Lines painted a word at a
    # time from their end, in two columns painted line by line in turn:
    # both reorderings and the cut move glyphs.
    from ragprep.extract.layout.labels import reordered_reading
    from ragprep.extract.layout.leaves import emit
    from ragprep.extract.layout.page import _leaves
    from ragprep.extract.layout.units import line_moves, reordered_moves

    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    ops = []
    for i, (left, right) in enumerate(zip(wrap(prose("a", 30), 200), wrap(prose("b", 30), 200), strict=False)):
        for x0, line in ((72, left), (320, right)):
            words = line.split(" ")
            starts = [x0 + text_width(" ".join(words[:k]) + (" " if k else ""), "Helvetica", SIZE) for k in range(len(words))]
            ops += [show(f, x, 700 - LEADING * i, word) for x, word in reversed(list(zip(starts, words, strict=True)))]
    b.add_page(" ".join(ops))
    table = table_of(b)
    found = _leaves(table, CONFIG, None)
    assert found is not None
    stream, measured, page, leaves, split = found
    assert split and measured.positions is not None
    assert (measured.stream[measured.positions] == stream).all()
    positions, _ = emit(page, leaves)
    for order, at in ((stream, np.arange(len(stream))), (stream[positions], positions)):
        first, first_moves, composed = measured.reading(at)
        assert (first[composed] == order).all()
        moves = reordered_moves(table, first, first_moves, composed, CONFIG)
        fresh = line_moves(table, order, CONFIG)
        for name in ("line_break", "across", "gap", "height"):
            assert np.array_equal(getattr(moves, name), getattr(fresh, name)), name
        ordering, _ = reordered_reading(table, CONFIG, (first, first_moves, composed), None)
        assert (ordering.order == order).all() and np.array_equal(ordering.line_break, fresh.line_break)


def test_word_painted_twice_in_place_keeps_its_paint_order():
    # lines.glyphs_along: fake bold paints a word, steps back and paints it
    # again 0.3 pt further; sorted along the line, its glyphs would land
    # on themselves ("wwoorrdd"): such a visit keeps paint order.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(" ".join([show(f, 72, 700, "Bold"), show(f, 72.3, 700, "Bold")]))
    assert layout(b).joined.text == stream_text(b)


def test_blocks_start_where_stream_mode_starts_them_on_a_page_painted_in_reading_order():
    # One block-start rule (blocks.block_break) for every mode: a heading set
    # larger, and a paragraph gap, start blocks in layout as in stream mode.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    first, second = wrap(prose("p", 30), 460), wrap(prose("q", 30), 460)
    ops = [show(f, 72, 730, "Blocks Of One Rule", 16)]
    ops += [show(f, 72, 700 - LEADING * i, line) for i, line in enumerate(first)]
    top = 700 - LEADING * len(first) - 2 * LEADING
    ops += [show(f, 72, top - LEADING * i, line) for i, line in enumerate(second)]
    b.add_page(" ".join(ops))
    table = table_of(b)
    ours, stream = read_layout(table, CONFIG), read_stream(table, CONFIG)
    assert [block.text for block in ours.blocks] == ["Blocks Of One Rule", "\n".join(first), "\n".join(second)]
    assert [(k.char_start, k.char_end) for k in ours.blocks] == [(k.char_start, k.char_end) for k in stream.blocks]


def test_heading_painted_last_letter_first_reads_along_the_line():
    # lines.glyphs_along (BACK_STEP): a heading set large, painted a glyph at
    # a time from its last letter to its first. Each step back is narrower
    # than the heading's glyph height, so it is one visit of the stream that
    # steps back more often than forward: its glyphs read along the line.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    heading, size = "Reading", 28
    starts = [72 + text_width(heading[:k], "Helvetica", size) for k in range(len(heading))]
    lines = wrap(prose("a", 30), 300)
    ops = [show(f, x, 720, ch, size) for x, ch in reversed(list(zip(starts, heading, strict=True)))]
    ops += [show(f, 72, 690 - LEADING * i, line) for i, line in enumerate(lines)]
    b.add_page(" ".join(ops))
    assert layout(b).joined.text == "\n".join([heading, *lines])


def test_line_turned_half_a_turn_keeps_its_glyph_order():
    # lines.glyphs_along counts steps along the page's writing direction
    # only for glyphs set in it: a line turned by 180° (a box label upside
    # down under upright text) steps back in the page's frame as it goes
    # forward in its own, and keeps its paint order.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    lines = wrap(prose("a", 30), 300)
    ops = [show(f, 72, 700 - LEADING * i, line) for i, line in enumerate(lines)]
    ops.append(f"BT /{f} {SIZE} Tf -1 0 0 -1 300 500 Tm (upside down) Tj ET")
    b.add_page(" ".join(ops))
    assert layout(b).joined.text.split("\n")[-1] == "upside down"


def test_upright_paragraph_over_a_tilted_block_reads_line_by_line():
    # units._flattened (SKEWED): a block tilted by 8° (a poster's text, more
    # glyphs than the rest: the page's frame) under an upright paragraph,
    # painted last line first. Across the tilted frame an upright line of
    # 300 pt rises by 40 pt and would cross the rows of its neighbours; laid
    # flat at its mean baseline it is one row, and the paragraph reads top
    # to bottom, then the block.
    import math

    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    upright = wrap(prose("u", 40), 300)
    tilted = wrap(prose("t", 120), 300)
    c, s = math.cos(math.radians(8)), math.sin(math.radians(8))
    ops = [show(f, 72, 720 - 2 * LEADING * i, line) for i, line in enumerate(upright)]
    top = 720 - 2 * LEADING * len(upright) - 60
    for i, line in enumerate(tilted):
        x, y = 100 + s * LEADING * i, top - c * LEADING * i
        ops.append(f"BT /{f} {SIZE} Tf {c:.5f} {s:.5f} {-s:.5f} {c:.5f} {x:.2f} {y:.2f} Tm ({line}) Tj ET")
    b.add_page(" ".join(ops[::-1]))
    assert layout(b).joined.text == "\n".join([*upright, *tilted])


@pytest.mark.parametrize("mark_size", [7.0, 8.2])
def test_reference_mark_painted_first_reads_inside_its_line(mark_size: float):
    # lines._marks_on_their_lines (MARK_SIZE): a raised reference mark in
    # smaller print, painted before the paragraph, sits on no baseline of
    # the paragraph's; beside its line, within the line's box, it reads
    # inside that line, and the line keeps its place under the one before.
    # A browser sets Wikipedia's marks at 80% of the text's size: 8.2 pt
    # over 10 pt text is such a mark too.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    lines = wrap(prose("a", 30), 300)
    head, tail = lines[1].split(" ", 1)
    mark_x = 72 + text_width(head, "Helvetica", SIZE)
    tail_x = mark_x + text_width("[7] ", "Helvetica", mark_size)
    y = 700 - LEADING
    ops = [show(f, mark_x, y + 3.5, "[7]", mark_size)]
    ops += [show(f, 72, 700 - LEADING * i, line) for i, line in enumerate(lines) if i != 1]
    ops += [show(f, 72, y, head), show(f, tail_x, y, tail)]
    b.add_page(" ".join(ops))
    expected = [*lines]
    expected[1] = f"{head}[7] {tail}"
    assert layout(b).joined.text == "\n".join(expected)


def test_spaces_painted_apart_from_their_lines_read_inside_them():
    # lines.blanks_on_their_lines: a producer that paints every word and
    # every space on a visit of its own (a piece per Td), here in shuffled
    # order, leaves units made only of a blank, which have no ink and take
    # no part in the cut; each still reads inside the line it sits on, where
    # it sits along the line, never after whatever the stream painted before
    # it. The left lines' trailing spaces lie in a gutter as narrow as a
    # glyph height: they read inside their lines without joining the left
    # line to the right one.
    import random

    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    columns = [wrap(prose("a", 40), 220), wrap(prose("b", 40), 220)]
    pieces = []
    for x0, lines, trailing in ((72.0, columns[0], True), (299.0, columns[1], False)):
        for i, line in enumerate(lines):
            x, y = x0, 700 - LEADING * i
            for k, word in enumerate(line.split(" ")):
                if k:
                    pieces.append(show(f, x, y, " "))
                    x += text_width(" ", "Helvetica", SIZE)
                pieces.append(show(f, x, y, word))
                x += text_width(word, "Helvetica", SIZE)
            if trailing:
                pieces.append(show(f, x, y, " "))
    random.Random(19).shuffle(pieces)
    b.add_page(" ".join(pieces))
    expected = [*(line + " " for line in columns[0]), *columns[1]]
    assert layout(b).joined.text == "\n".join(expected)


def test_space_painted_apart_inside_a_piece_of_its_line_reads_where_it_lies():
    # lines.blanks_on_their_lines, _blanks_among_glyphs: the stream paints
    # a line's first word and the next piece (up to the middle of a word)
    # one after the other, one unit with a word space inside it, then the
    # space between them, then the rest of the word. The space reads where
    # it lies, inside that unit, not after it: after it, it would part the
    # word's two pieces.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    first, rest = "stonea1", "maplea2 cl"
    tail_x = 72 + text_width(f"{first} {rest}", "Helvetica", SIZE)
    ops = [show(f, 72, 700, first), show(f, 72 + text_width(first + " ", "Helvetica", SIZE), 700, rest)]
    ops += [show(f, 72 + text_width(first, "Helvetica", SIZE), 700, " "), show(f, tail_x, 700, "ouda3")]
    ops += [show(f, 72, 700 - LEADING, "riverb4 ambera5")]
    b.add_page(" ".join(ops))
    assert layout(b).joined.text == "stonea1 maplea2 clouda3\nriverb4 ambera5"


def test_list_painted_first_lines_first_reads_item_by_item():
    # leaves._lines_in_turn: a list set with hanging lines, painted x
    # position first (every item's first line with its number, top to
    # bottom, then every hanging line, top to bottom), reads down the page
    # twice and so passes the stream's witness test; but its two runs take
    # turns down the page, line for line: they read by rows, item by item.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    items = [wrap(prose(f"r{k}x", 12), 380) for k in range(8)]
    first, hanging, expected = [], [], []
    y = 700.0
    for k, lines in enumerate(items):
        first.append(show(f, 72, y, f"[{k + 1}] {lines[0]}"))
        expected.append(f"[{k + 1}] {lines[0]}")
        for line in lines[1:]:
            y -= LEADING
            hanging.append(show(f, 94, y, line))
            expected.append(line)
        y -= LEADING + 3
    b.add_page(" ".join(first + hanging))
    assert layout(b).joined.text == "\n".join(expected)


def test_column_painted_in_passes_by_x_reads_by_rows():
    # leaves._passes_take_turns: a column of questions, each a hanging
    # label line over its answer, blocks three lines apart, painted x
    # position first (every question top to bottom, then every answer line
    # top to bottom). The stream reads down the page twice, so it passes the
    # back-up count; the blank rows cut its runs block by block, so no two
    # runs take turns (one question each); but its two passes do, and the
    # stream is no witness of the column's order: it reads by rows.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    questions, answers, expected = [], [], []
    y = 700.0
    for k in range(6):
        question = " ".join([f"Q{k}:", *prose(f"q{k}x", 4)])
        questions.append(show(f, 72, y, question))
        expected.append(question)
        for line in wrap(prose(f"a{k}x", 20), 380)[:3]:
            y -= LEADING
            answers.append(show(f, 94, y, line))
            expected.append(line)
        y -= 3 * LEADING
    b.add_page(" ".join(questions + answers))
    assert layout(b).joined.text == "\n".join(expected)


def test_figure_labels_painted_in_passes_before_the_text_above_them_read_after_it():
    # leaves._passes_in_turn: a figure's labels at the foot of a column, on
    # its left edge, painted first in two passes that take turns (every
    # other label, then the rest), then a page number, then the column's
    # paragraphs above the figure. The passes replace only the runs they
    # hold: the paragraphs stay runs of their own, each painted after the
    # labels under it, so the stream paints up the page and the column reads
    # top to bottom, the labels (by rows) after the text; as one pass the
    # text was one run over the labels, too little to show a stream painting
    # up, and the labels read first.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    text, paragraphs, y = [], [], 700.0
    for k in range(3):
        for line in wrap(prose(f"p{k}x", 24), 300)[:4]:
            paragraphs.append(show(f, 72, y, line))
            text.append(line)
            y -= LEADING
        y -= 2 * LEADING
    labels = [f"Label{k} stage" for k in range(6)]
    passes: list[list[str]] = [[], []]
    for k, label in enumerate(labels):
        passes[k % 2].append(show(f, 72, y, label))
        y -= 2 * LEADING
    footer = show(f, 300, 60, "Page 7")
    b.add_page(" ".join([*passes[0], *passes[1], footer, *paragraphs]))
    assert layout(b).joined.text == "\n".join([*text, *labels, "Page 7"])


def author_grid() -> tuple[list[tuple[float, float, str, float]], list[str]]:
    """Two columns of author blocks (a name over one or two affiliations,
    blocks a blank line apart) on one 12 pt leading, each column's blocks at
    its own pace: most lines of the right column lie on a baseline of the
    left one's, few of its blocks start on a row a left block starts on,
    and no blank row crosses both. The pieces (x, y, text, size) and the
    lines read column after column."""
    pieces: list[tuple[float, float, str, float]] = []
    lines: list[str] = []
    for c, (x, sizes) in enumerate(((72.0, (2, 2, 1, 1, 2)), (330.0, (1, 1, 1, 1, 1, 1)))):
        y = 700.0
        for k, affiliations in enumerate(sizes):
            block = [f"Author{c}x{k} Name", *(f"Laboratory{c}x{k}x{a} Inc" for a in range(affiliations))]
            for line in block:
                pieces.append((x, y, line, SIZE))
                lines.append(line)
                y -= LEADING
            y -= LEADING
    return pieces, lines


@pytest.mark.parametrize("order", ["interleaved", "shuffled"])
def test_author_grid_of_staggered_blocks_reads_column_after_column(order: str):
    # regions.staggered: the two columns of an author grid share most of
    # their rows by their common leading, as a table's columns do, but a
    # table's cells of one row start on the row and these blocks do not:
    # the gutter between them is a column cut (cut._tables_joined,
    # regions.own_rows), whatever the paint order.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    pieces, lines = author_grid()
    b.add_page(scrambled(f, pieces, order))
    assert layout(b).joined.text == "\n".join(lines)


def test_author_grid_under_a_title_painted_side_by_side_in_no_order_reads_by_its_bands():
    # tiebreaks.stream_reads_columns: a title crosses the gutter, so only
    # the gaps under the page's head and over its foot cut the page, and a
    # stream that paints the left side, then the right one, would keep its
    # order; but this one paints each side's lines in no order down the
    # page (shuffled): it reads no side down, so it is no witness, and the
    # bands stand: the head, the author grid column after column, the foot.
    import random

    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    pieces, lines = author_grid()
    title = "Security Architecture of High Performance Computing Systems and Their Threats"
    series, notes = "SP 800-223", ["Public Release 4", "February 2024"]
    left = [piece for piece in pieces if piece[0] < 300]
    right = [piece for piece in pieces if piece[0] >= 300]
    random.Random(19).shuffle(left)
    random.Random(19).shuffle(right)
    painted = [(72.0, 760.0, title, SIZE), *left, (330.0, 780.0, series, SIZE), *right]
    painted += [(330.0, 440.0 - LEADING * k, note, SIZE) for k, note in enumerate(notes)]
    b.add_page(" ".join(show(f, x, y, text, size) for x, y, text, size in painted))
    assert layout(b).joined.text == "\n".join([series, title, *lines, *notes])


def test_page_frame_follows_the_text_not_a_tilted_thumbnail_of_more_glyphs():
    # units.Page (geometric.reading_direction by glyph height): a thumbnail
    # of a poster set 10 degrees off, in 2 pt type, holds more glyphs than
    # the page's text beside it. Counted by glyphs, its direction was the
    # frame, the text's lines were skewed in it, and the two pieces of
    # each line (a run-in head painted after the rest of its line) lay on
    # different baselines: each line read rest first. Counted by height,
    # the text's direction is the frame and each line reads along.
    import math

    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    body = [(f"Head{i} -", " ".join(prose(f"b{i}x", 6))) for i in range(8)]
    ops = []
    for i, (head, rest) in enumerate(body):
        y = 700 - LEADING * i
        ops += [show(f, 72 + text_width(head + " ", size=SIZE), y, rest), show(f, 72, y, head)]
    c, s = math.cos(math.radians(10)), math.sin(math.radians(10))
    for k in range(60):
        x, y = 380 + 2.4 * k * s, 590 - 2.4 * k * c
        ops.append(f"BT /{f} 2 Tf {c:.5f} {s:.5f} {-s:.5f} {c:.5f} {x:.2f} {y:.2f} Tm (poster line {k} of the exercises) Tj ET")
    b.add_page(" ".join(ops))
    lines = layout(b).joined.text.split("\n")
    assert lines[: len(body)] == [f"{head} {rest}" for head, rest in body]


def test_raised_reference_painted_in_pieces_reads_inside_its_line():
    # lines._marks_beside_marks: a browser sets a reference raised, in 80%
    # type, and paints its opening "[9" with the line but its "]" on a
    # visit of its own; painted by x position, each line's pieces come
    # apart. The "]" touches the "[9", a mark of the line, not the line
    # itself: it is a mark of that line too, and reads after the "[9".
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    pieces: list[tuple[float, float, str, float]] = []
    lines = []
    for i in range(6):
        y = 700 - 16 * i
        head, rest = " ".join(prose(f"h{i}x", 4)) + ".", " ".join(prose(f"r{i}x", 3))
        x = 72 + text_width(head, size=SIZE)
        mark_width = text_width(f"[{i}", size=8)
        pieces += [(72, y, head, SIZE), (x, y + 3, f"[{i}", 8), (x + mark_width, y + 3, "]", 8)]
        # A justified line: a word space wider than the "]" can reach.
        pieces.append((x + mark_width + text_width("]", size=8) + 5, y, rest, SIZE))
        lines.append(f"{head}[{i}] {rest}")
    pieces.sort(key=lambda p: (round(p[0]), -p[1]))
    b.add_page(" ".join(show(f, x, y, text, size) for x, y, text, size in pieces))
    assert layout(b).joined.text == "\n".join(lines)


def test_justified_line_painted_a_word_at_a_time_reads_as_one_line():
    # lines._justified_lines: a browser paints each word of a justified
    # line as a piece of its own, the word and its space, then moves across
    # the stretched word space (here 0.87 body heights, wider than
    # LINE_JOIN_GAP) to the next word; every gap of a line is the same.
    # Painted with the last words of one line first (as a stream painting
    # what lies low on the page first did to pdfjs_wikipedia), those words
    # read apart from the line's first words unless the row is one line.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    pieces: list[tuple[float, float, str]] = []
    lines = []
    for i in range(5):
        y = 700 - LEADING * i
        words = prose(f"j{i}x", 5)
        inked = sum(text_width(w, size=SIZE) for w in words)
        # The paragraph's last line is set with plain word spaces.
        gap = 2.8 if i == 4 else (250 - inked) / (len(words) - 1)
        x = 72.0
        for k, word in enumerate(words):
            pieces.append((x, y, word if k == len(words) - 1 else word + " "))
            x += text_width(word, size=SIZE) + gap
        lines.append(" ".join(words))
    first = [p for p in pieces if p[1] == 700 - LEADING * 3 and p[0] > 150]
    pieces = first + [p for p in pieces if p not in first]
    b.add_page(" ".join(show(f, x, y, text) for x, y, text in pieces))
    assert layout(b).joined.text == "\n".join(lines)


def test_section_number_a_quad_before_its_heading_reads_with_it():
    # lines._numbered_headings: LaTeX sets a heading's number and a space,
    # then its title a quad further on, wider apart than LINE_JOIN_GAP.
    # Painted by x position (each column top to bottom, the numbers before
    # the titles), the right column's numbers read apart from their titles
    # unless a number ending in a space joins the title after it.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    pieces: list[tuple[float, float, str, float]] = []
    expected = [" ".join(prose(f"l{i}x", 5)) for i in range(14)]
    pieces += [(72.0, 700 - LEADING * i, line, SIZE) for i, line in enumerate(expected)]
    y = 700.0
    for number, title, count in (("2", "Document structures", 4), ("2.1", "Mathematics", 4), ("2.2", "Lists", 3)):
        pieces.append((340.0, y, number + " ", 12))
        pieces.append((340.0 + text_width(number + " ", size=12) + 8, y, title, 12))
        expected.append(f"{number} {title}")
        y -= 16
        for i in range(count):
            line = " ".join(prose(f"r{number}{i}x", 4))
            pieces.append((340.0, y, line, SIZE))
            expected.append(line)
            y -= LEADING
        y -= 6
    pieces.sort(key=lambda p: (round(p[0]), -p[1]))
    b.add_page(" ".join(show(f, x, y, text, size) for x, y, text, size in pieces))
    assert layout(b).joined.text.split("\n") == expected


def test_table_rows_set_on_the_last_line_of_their_labels_read_by_rows():
    # regions.staggered (_block_ends): a tax table whose first label wraps
    # ("At least ... but not" over "over ..."), its amounts set on the
    # label's last line, as a form sets an entry on the line it is filled
    # on. The rows' first lines do not meet across the gap before the
    # multiplier column, as an author grid's blocks do not, but the rows'
    # last lines do: the gap is a table's inner gap, no gutter, and the
    # table reads row by row, not its label side and then its value side.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    head = [
        [(70.6, 326.0, "Taxable income"), (204.0, 326.0, "(a)"), (299.3, 326.0, "(b)"), (377.7, 326.0, "(c)"), (452.9, 326.0, "(d)"), (526.4, 326.0, "Tax.")],
        [(81.0, 316.5, "If line 40 is:"), (138.0, 316.5, "Enter the amount from"), (280.1, 316.5, "Multiplication"), (368.5, 316.5, "Multiply"), (436.8, 316.5, "Subtraction"), (495.7, 316.5, "Subtract (d) from (c).")],
        [(196.7, 307.0, "line 40"), (290.5, 307.0, "amount"), (365.7, 307.0, "(a) by (b)"), (444.1, 307.0, "amount"), (496.4, 307.0, "Enter the result here")],
        [(521.9, 297.5, "and on")],
        [(493.3, 288.0, "Form 1040NR, line 41")],
    ]
    rows = [
        [(46.0, 272.5, "At least $100,000 but not")],
        [(46.0, 263.0, "over $174,850"), (164.4, 263.0, "$"), (273.7, 263.0, "x 33% (.33)"), (343.4, 263.0, "$"), (430.2, 263.0, "$ 10,400.00"), (494.2, 263.0, "$")],
        [(46.0, 250.0, "Over $174,850"), (164.4, 250.0, "$"), (273.7, 250.0, "x 35% (.35)"), (343.4, 250.0, "$"), (430.2, 250.0, "$ 13,897.00"), (494.2, 250.0, "$")],
    ]
    b.add_page(" ".join(show(f, x, y, text, 8) for row in head + rows for x, y, text in row))
    assert layout(b).joined.text.splitlines()[-3:] == [" ".join(text for _, _, text in row) for row in rows]


def side_captioned_tables(
    paint: Callable[[list[tuple[float, float, str]]], list[tuple[float, float, str]]] = list,
    captions_x: float = 20.0,
    table_x: tuple[float, float, float] = (120.0, 260.0, 330.0),
) -> PdfBuilder:
    """A page of two side captions in a margin and the two tables beside
    them (8 pt, 10 pt leading), painted captions first (or in the order
    `paint` makes of the lines, captions first): each table's rows
    a label that wraps over two lines, its amounts on the label's last
    line, 20 pt between rows. Each caption starts in the padding between
    rows (680, 600: no table line lies there) and ends on a row's last line
    (660, 580), as journal-3b2-17p p11's side captions of Tables III and IV
    end on their tables' last rows. `captions_x` and `table_x` (labels,
    first and second amounts) place the margin and the table's columns."""
    captions = [(captions_x, y, text) for y, text in [(680.0, "Table 1."), (670.0, "Comments before"), (660.0, "and after")]]
    captions += [(captions_x, y, text) for y, text in [(600.0, "Table 2."), (590.0, "Hours before"), (580.0, "and after")]]
    labels = [("Tired and grouchy", "at home"), ("Out of step", "with family"), ("Night shifts", "in a row"), ("Days off", "with family")]
    tops = [700.0, 670.0, 620.0, 590.0]
    amounts = [("81/76", "90/65"), ("80/75", "89/64"), ("79/74", "88/63"), ("78/73", "87/62")]
    rows = [
        piece
        for (first, last), top, (before, after) in zip(labels, tops, amounts, strict=True)
        for piece in [(table_x[0], top, first), (table_x[0], top - 10, last), (table_x[1], top - 10, before), (table_x[2], top - 10, after)]
    ]
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(" ".join(show(f, x, y, text, 8) for x, y, text in paint(captions + rows)))
    return b


def test_side_caption_ending_on_a_table_row_stays_beside_the_table():
    # regions.staggered's _on_rows_of guard, asked of the two groups the
    # gutter between margin and table leaves (cut._tables_joined): the
    # captions lie on the table's leading (4 of their 6 lines on its rows),
    # their blocks do not start on its rows' first lines (an author grid's
    # pace), and by chance their last lines (660, 580) are rows' last lines,
    # as a table's cells that end on their row are. But no caption starts on
    # a line of the table (680, 600 fall in its padding), nor do most of the
    # table's rows start on a caption's line (670 and 590 of 700, 670, 620,
    # 590): the captions are set beside the rows, not in them. Without the
    # guard the block ends made the two one table.
    from ragprep.extract.layout.cut import _tables_joined
    from ragprep.extract.layout.page import _leaves
    from ragprep.extract.layout.regions import staggered

    b = side_captioned_tables()
    found = _leaves(table_of(b), CONFIG, None)
    assert found is not None
    page = found[2]
    lines = np.flatnonzero(page.placed)
    margin, table = lines[page.x0[lines] < 100], lines[page.x0[lines] >= 100]
    assert (len(margin), len(table)) == (6, 16)
    assert staggered(page, margin, table)
    assert len(_tables_joined(page, [margin, table])) == 2


def test_wrapped_label_of_a_right_to_left_table_links_to_its_row_on_its_start_edge():
    # leaves._merge_grids' grid column (kernels.grid_groups) on a
    # right-to-left page: a table's label wraps over two lines set flush
    # right (where a Hebrew line starts), its amounts beside the last line.
    # The first line is three words wide, the last one word: their left
    # edges lie 60 pt apart, their right edges on one edge, and the first
    # line is of the grid column of the row under it. Tested on the left
    # edge, as on a left-to-right page, the wrapped line joined no grid.
    from ragprep.extract.layout.kernels import grid_groups
    from ragprep.extract.layout.leaves import run_boxes
    from ragprep.extract.layout.page import _leaves
    from ragprep.extract.layout.params import CELL_LEADING, PASS_EDGE, ROW_OVERLAP, STACKED

    b = PdfBuilder()
    font, encode = b.add_cid_font(" " + "".join(HEBREW_WORDS), widths=500)
    # x of each line's right edge, y, logical text; 0.5 em a glyph at 8 pt.
    lines = [(460.0, 700.0, " ".join(HEBREW_WORDS[:3])), (460.0, 690.0, HEBREW_WORDS[3]), (320.0, 690.0, HEBREW_WORDS[4])]
    b.add_page(" ".join(f"BT /{font} 8 Tf {x - 4 * len(t)} {y} Td {hexstr(encode(t[::-1]))} Tj ET" for x, y, t in lines))
    found = _leaves(table_of(b), CONFIG, None)
    assert found is not None
    page = found[2]
    assert page.rtl
    runs = [np.array([k]) for k in np.flatnonzero(page.placed)]
    assert len(runs) == 3 and float(page.x1[0] - page.x0[0]) > 3 * float(page.x1[1] - page.x0[1])
    box, member, none = run_boxes(page, runs), np.array([False, True, True]), (np.zeros(0, dtype=np.int64),) * 2
    slack, cell = (STACKED * page.body, ROW_OVERLAP * page.body), (CELL_LEADING * page.body, PASS_EDGE * page.body)
    # The wrapped first line joins the amounts' row under it; the row's
    # other amount, beside it, joins nothing by stacking.
    assert grid_groups(page.lib, box, member, none, slack, cell, page.rtl).tolist() == [0, 0, 2]
    assert grid_groups(page.lib, box, member, none, slack, cell, False).tolist() == [0, 1, 2]


def test_side_captions_read_each_beside_its_table():
    # The page of test_side_caption_ending_on_a_table_row_stays_beside_the_table,
    # read whole: the gutter beside the margin cuts it from the tables
    # (cut._read_columns), and each caption reads before the table beside
    # it, whose rows read label, then the label's last line with its
    # amounts. Were the margin a table column of the tables
    # (the guard reverted), the page read in stream order: both captions,
    # then both tables.
    b = side_captioned_tables()
    assert layout(b).joined.text.splitlines() == [
        "Table 1.",
        "Comments before",
        "and after",
        "Tired and grouchy",
        "at home 81/76 90/65",
        "Out of step",
        "with family 80/75 89/64",
        "Table 2.",
        "Hours before",
        "and after",
        "Night shifts",
        "in a row 79/74 88/63",
        "Days off",
        "with family 78/73 87/62",
    ]


def _shuffled(pieces: list[tuple[float, float, str]]) -> list[tuple[float, float, str]]:
    random.Random(3).shuffle(pieces)
    return pieces


@pytest.mark.parametrize(
    "paint",
    [lambda pieces: pieces[::-1], lambda pieces: pieces[6:] + pieces[:6], _shuffled],
    ids=["reversed", "tables first", "shuffled"],
)
def test_side_captioned_tables_read_caption_then_table(paint):
    # Issue #19: the page of test_side_captions_read_each_beside_its_table
    # reads the same whatever order the stream paints it in. Each caption
    # starts under its table's top row and ends on its last row, one block:
    # the gap between the tables is a section break (cut._side_captions),
    # though the columns over it end on one row; each section reads its
    # caption, then the table beside it as one leaf (cut._read_sections),
    # whose wrapped labels link to the rows they sit on (leaves._merge_grids).
    # Without the section break a leaf mixed both captions with the first
    # table's rows, read in paint order; without the one leaf, a table row
    # painted before its caption read ahead of it (cut._first_part_ahead).
    assert layout(side_captioned_tables(paint)).joined.text == (
        "Table 1.\nComments before\nand after\nTired and grouchy\nat home 81/76 90/65\nOut of step\nwith family 80/75 89/64\n"
        "Table 2.\nHours before\nand after\nNight shifts\nin a row 79/74 88/63\nDays off\nwith family 78/73 87/62"
    )


@pytest.mark.parametrize(
    "paint",
    [list, lambda pieces: pieces[::-1], lambda pieces: pieces[6:] + pieces[:6], lambda pieces: _shuffled(pieces[6:] + pieces[:6])],
    ids=["natural", "reversed", "tables first", "shuffled"],
)
def test_side_captions_right_of_their_tables_read_after_them(paint):
    # The page of test_side_captioned_tables_read_caption_then_table
    # mirrored: the captions stand in a column to the right of their tables.
    # Each section still reads its caption and its table apart, in the
    # columns' order (cut._read_sections): the table, then the caption
    # beside it. A block in the column read second never reads before the
    # column ahead of it, whatever order the stream paints them in.
    # Shuffled, the first table's stream goes back up once in seven moves
    # and passes the witness test (leaves.reads_down); its rows' amounts,
    # painted apart from their labels, still read along their rows
    # (leaves._beside_their_cells), not "with family 80/75 / 90/65 81/76".
    page = side_captioned_tables(paint, captions_x=330.0, table_x=(20.0, 160.0, 230.0))
    assert layout(page).joined.text == (
        "Tired and grouchy\nat home 81/76 90/65\nOut of step\nwith family 80/75 89/64\nTable 1.\nComments before\nand after\n"
        "Night shifts\nin a row 79/74 88/63\nDays off\nwith family 78/73 87/62\nTable 2.\nHours before\nand after"
    )


def latex_logo_line(piece_first: bool) -> PdfBuilder:
    """A line naming LaTeX as its logo is set: an L, a small A raised into
    the L's arm, a T, an E lowered by half an x-height, an X, kerned into
    one another. The line is painted on one visit that leaves the E's
    place empty (TJ moves past it), the E on a visit of its own, after the
    line or (`piece_first`) before it, as lualatex-tagpdf p1's scrambled
    twins paint the pieces of their logos."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    before = "of typical structures found in a L"
    a_x = 72 + text_width(before, "Helvetica", SIZE) - 2.6
    t_x = a_x + text_width("A", "Helvetica", 7) - 1.0
    e_x = t_x + text_width("T", "Helvetica", SIZE) - 1.2
    x_x = e_x + text_width("E", "Helvetica", SIZE) - 0.8
    # TJ numbers move the pen back (positive) or on (negative), in
    # thousandths of the font size; Ts raises the A.
    line = (
        f"BT /{f} {SIZE} Tf 72 700 Td ({before}) Tj [260] TJ /{f} 7 Tf 2.2 Ts (A) Tj /{f} {SIZE} Tf 0 Ts [100] TJ (T) Tj "
        f"[{-(x_x - t_x - text_width('T', 'Helvetica', SIZE)) * 100:.0f}] TJ (X document, in a line.) Tj ET"
    )
    piece = show(f, e_x, 697.8, "E")
    b.add_page(f"{piece} {line}" if piece_first else f"{line} {piece}")
    return b


@pytest.mark.parametrize("piece_first", [False, True], ids=["piece after the line", "piece before the line"])
def test_logo_piece_painted_apart_reads_inside_its_line(piece_first: bool):
    # lines._pieces_inside: the E lies in a gap of the line's own unit, on
    # its baseline; without the rule it reads after the unit (as
    # lualatex-tagpdf p1's scrambled twins read their logos' pieces: "LT X
    # document ... E").
    assert layout(latex_logo_line(piece_first)).joined.text == "of typical structures found in a LATEX document, in a line."


def logo_at_the_line_end() -> PdfBuilder:
    """A line ending in BibTeX's logo: a T, an E lowered by half an
    x-height, an X, kerned into one another. The line is painted on one
    visit that leaves the E's place empty, paints the X, then steps back
    into the gap and paints the E, as lualatex-tagpdf p2's scrambled twins
    paint "bibTEX" at a line's end: a step back of less than a glyph
    height, far less than a unit break's."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    before = "sample file distributed with bibT"
    t_end = 72 + text_width(before, "Helvetica", SIZE)
    e_x = t_end - 1.2
    x_x = e_x + text_width("E", "Helvetica", SIZE) - 0.8
    end = x_x + text_width("X", "Helvetica", SIZE)
    # TJ numbers move the pen back (positive) or on (negative), in
    # thousandths of the font size; Ts lowers the E.
    b.add_page(
        f"BT /{f} {SIZE} Tf 72 700 Td ({before}) Tj [{-(x_x - t_end) * 100:.0f}] TJ (X) Tj "
        f"[{(end - e_x) * 100:.0f}] TJ -2.2 Ts (E) Tj 0 Ts ET"
    )
    return b


def test_logo_letter_painted_back_at_the_line_end_reads_in_its_gap():
    # units.pieces_painted_back: the E steps back less than a unit break
    # (SEGMENT_BACK) into the gap between the T and the X; without the rule
    # the unit keeps paint order and reads "bibTXE" (lualatex-tagpdf p2's
    # interleaved twin: "bibTX E").
    assert layout(logo_at_the_line_end()).joined.text == "sample file distributed with bibTEX"



def display_mathematics_painted_by_x() -> tuple[PdfBuilder, list[str]]:
    """A column of prose with displayed mathematics set between its lines
    (an equation and its "mod p", an aligned pair of equations with their
    numbers, a matrix), each row's pieces a quad or less apart, painted by
    where each line starts (the twin of lualatex-tagpdf p1 painted columns
    first): the prose's lines top to bottom, then the indented lines and
    the pieces, left to right. The page's lines, in reading order."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    text = wrap(prose("a", 50), 300)
    rows: list[tuple[float, list[str]]] = [
        (72, text[:4]), (72, ["Let p be a prime, then"]), (150, ["n = n", "mod p"]), (82, ["An aligned set of equations:"]),
        (80, ["f(x) = a + b", "f'(x) = c + d", "(2.1)"]), (80, ["g(x) = a - b", "g'(x) = c - d", "(2.2)"]), (82, ["Matrices."]),
        (110, ["1", "2", "5", "6"]), (110, ["3", "4", "7", "8"]), (72, text[4:]),
    ]
    pieces: list[tuple[float, float, str]] = []
    lines: list[str] = []
    y = 700.0
    for x, row in rows:
        if x == 72:  # prose, a line a row
            for line in row:
                pieces.append((x, y, line))
                lines.append(line)
                y -= LEADING
            continue
        for piece in row:
            pieces.append((x, y, piece))
            x += text_width(piece, "Helvetica", SIZE) + 0.8 * SIZE
        lines.append(" ".join(row))
        y -= LEADING
    pieces.sort(key=lambda p: (round(p[0]), -p[1]))
    b.add_page(" ".join(show(f, x, y, text) for x, y, text in pieces))
    return b, lines


def test_display_mathematics_painted_by_x_reads_by_rows():
    # leaves._rows_in_pieces: the stream goes down the prose, then down
    # and up the indented lines and the pieces by where each starts; it goes
    # back up rarely enough to pass as reading the column down
    # (reads_down), but paints 5 of its 16 rows in pieces on separate visits.
    b, lines = display_mathematics_painted_by_x()
    assert layout(b).joined.text.split() == " ".join(lines).split()
