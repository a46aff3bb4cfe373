"""Right-to-left lines come out in logical (reading) order however they were painted."""

from __future__ import annotations

from pdfbuilder import PdfBuilder, hexstr

from ragprep.extract import extract_document

HEBREW = "שלום עולם"  # "hello world": שלום is read first, from the right


def _text(b: PdfBuilder) -> str:
    return extract_document(b.to_bytes()).pages[0].text


def test_rtl_line_painted_in_visual_order_reads_logically():
    b = PdfBuilder()
    font, encode = b.add_cid_font(HEBREW + " ABC", widths=500)
    visual = HEBREW[::-1]  # what Word paints: left to right on the page
    b.add_page(f"BT /{font} 12 Tf 72 700 Td {hexstr(encode(visual))} Tj ET")
    assert _text(b) == HEBREW


def test_rtl_line_painted_right_to_left_reads_logically():
    b = PdfBuilder()
    font, encode = b.add_cid_font(HEBREW, widths=500)
    # Each glyph placed 6 pt left of the previous one, in logical order.
    ops = [f"BT /{font} 12 Tf"]
    for i, ch in enumerate(HEBREW):
        ops.append(f"1 0 0 1 {300 - 6 * (i + 1)} 700 Tm {hexstr(encode(ch))} Tj")
    b.add_page(" ".join(ops + ["ET"]))
    assert _text(b) == HEBREW


def test_latin_word_inside_rtl_line_keeps_its_own_direction():
    b = PdfBuilder()
    logical = "שלום ABC עולם"
    font, encode = b.add_cid_font(logical, widths=500)
    visual = "םלוע ABC םולש"
    b.add_page(f"BT /{font} 12 Tf 72 700 Td {hexstr(encode(visual))} Tj ET")
    assert _text(b) == logical


def test_rtl_line_painted_in_chunks_is_sorted_before_reordering():
    b = PdfBuilder()
    font, encode = b.add_cid_font(HEBREW, widths=500)
    # The right-hand word (read first) is painted first, each word visually.
    b.add_page(
        f"BT /{font} 12 Tf 1 0 0 1 132 700 Tm {hexstr(encode('םולש'))} Tj "
        f"1 0 0 1 102 700 Tm {hexstr(encode('םלוע '))} Tj ET"
    )
    assert _text(b) == HEBREW


def test_left_to_right_text_is_untouched():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (Plain (left) to right) Tj ET")
    assert _text(b) == "Plain (left) to right"
