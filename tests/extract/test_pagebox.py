"""One visible box per page (§14.11.2), used by glyph visibility and by the
running-header bands alike."""

from __future__ import annotations

import io

import pikepdf
from pdfbuilder import PdfBuilder

from ragprep.extract import extract_document
from ragprep.extract.pagebox import LETTER, visible_box


def _page(content: str = "", **boxes) -> bytes:
    b = PdfBuilder()
    font = b.add_standard_font("Helvetica", widths=True)
    b.add_page(content.replace("/F", f"/{font}"), **boxes)
    return b.to_bytes()


def test_the_crop_box_clips_the_text_to_what_a_viewer_shows():
    data = _page("BT /F 12 Tf 72 700 Td (top) Tj ET BT /F 12 Tf 72 100 Td (bottom) Tj ET", cropbox=(0, 0, 612, 400))
    assert extract_document(data, mode="stream").pages[0].text == "bottom"


def test_a_crop_box_that_misses_the_media_box_falls_back_to_the_media_box_for_the_text_too():
    # Damage: the CropBox lies wholly outside the page. Text and bands use the MediaBox.
    data = _page("BT /F 12 Tf 72 700 Td (Hello) Tj ET", cropbox=(1000, 1000, 1100, 1100))
    assert extract_document(data, mode="stream").pages[0].text == "Hello"
    with pikepdf.open(io.BytesIO(data)) as pdf:
        assert visible_box(pdf.pages[0].obj) == (0.0, 0.0, 612.0, 792.0)


def test_boxes_are_inherited_from_the_page_tree_and_letter_when_none_is_usable():
    b = PdfBuilder()
    b.add_page("")
    b.add_page("")
    pdf = b.pdf
    pdf.Root.Pages.CropBox = pikepdf.Array([10, 20, 300, 400])
    first = pdf.pages[0].obj
    assert visible_box(first) == (10.0, 20.0, 300.0, 400.0)
    second = pdf.pages[1].obj
    second.MediaBox = pikepdf.Array([0, 0, "x", 5])  # unreadable, and no CropBox: letter
    del pdf.Root.Pages["/CropBox"]
    assert visible_box(second) == LETTER
