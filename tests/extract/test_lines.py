"""PageResult.lines: the emitted lines with their spans and glyph boxes."""

from __future__ import annotations

import dataclasses

import pytest
from pdfbuilder import PdfBuilder, text_width

from ragprep.extract import extract_document


@pytest.mark.parametrize("mode", ["stream", "layout"])
def test_lines_cover_the_text_between_line_breaks_with_their_glyph_boxes(mode: str):
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    # Two lines, 14 pt apart; the second is indented 36 pt.
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (First line) Tj 36 -14 Td (Second) Tj ET")
    page = extract_document(b.to_bytes(), mode=mode).pages[0]
    assert page.text == "First line\nSecond"
    assert [(line.char_start, line.char_end) for line in page.lines] == [(0, 10), (11, 17)]
    first, second = (line.bbox for line in page.lines)
    assert first[0] == pytest.approx(72) and first[2] == pytest.approx(72 + text_width("First line"), abs=0.01)
    assert second[0] == pytest.approx(108) and second[2] == pytest.approx(108 + text_width("Second"), abs=0.01)
    # Baselines 700 and 686: each box sits on its own baseline (descenders aside).
    assert first[1] < 700 < first[3] and second[1] < 686 < second[3] < first[3]


def test_an_empty_page_has_no_lines():
    b = PdfBuilder()
    b.add_page("")
    assert extract_document(b.to_bytes(), mode="stream").pages[0].lines == ()


def test_lines_and_blocks_are_the_instances_their_constructors_give():
    """Lines and blocks are built without their dataclass __init__
    (extract/rows.py): each must hold every field and equal, hash and print
    as the constructor's instance."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (First line) Tj 0 -40 Td (Second block) Tj ET")
    page = extract_document(b.to_bytes(), mode="stream").pages[0]
    assert len(page.lines) == 2 and len(page.blocks) == 2
    for row in (*page.lines, *page.blocks):
        cls = type(row)
        built = cls(**{f.name: getattr(row, f.name) for f in dataclasses.fields(cls)})
        assert dataclasses.asdict(row) == dataclasses.asdict(built)
        assert row == built and hash(row) == hash(built) and repr(row) == repr(built)
