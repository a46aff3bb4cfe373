"""The PDF Association's PDF/UA technique examples (../shared/corpus/tagged/pdfua-*):
structure mode reads each in the order its tags declare, right or wrong.

Each "correct"/"failure" pair paints the same page; the failure file's tags
declare a wrong order on purpose, and structure mode must follow the tags
(that is what makes the failure visible to a checker reading our output).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragprep.extract import extract_document


def in_order(text: str, snippets: list[str]) -> None:
    position = -1
    for snippet in snippets:
        found = text.find(snippet, position + 1)
        assert found > position, f"{snippet!r} not found after offset {position} in {text!r}"
        position = found


def structure(corpus: Path, name: str):
    (page,) = extract_document(corpus / "tagged" / name, mode="structure").pages
    assert page.mode == "structure", page.reason
    return page


PARAGRAPHS = ["This is the first paragraph.", "This is the second paragraph.", "This is the third paragraph."]


def test_g1_01_custom_tag_resolved_through_rolemap(corpus):
    page = structure(corpus, "pdfua-G1_01-custom-tag-rolemap.pdf")
    in_order(page.text, ["This is an H1", *PARAGRAPHS])
    assert page.blocks[0].struct_type == "H1" and page.blocks[0].text.startswith("This is an H1")


def test_g1_f01_custom_tag_without_rolemap_keeps_its_raw_type(corpus):
    page = structure(corpus, "pdfua-G1_F01-rolemap-missing.pdf")
    in_order(page.text, ["FAIL", "This is an H1", *PARAGRAPHS])
    # Without a /RoleMap entry the custom type stays as written.
    assert "FirstParagraph" in {b.struct_type for b in page.blocks}


def test_g2_06_actual_text_replaces_ocr_errors(corpus):
    page = structure(corpus, "pdfua-G2_06-actualtext-fixes-ocr.pdf")
    assert page.text == "Available 24/7, you can book an appointment online."


def test_g3_02_decorative_content_is_not_text(corpus):
    page = structure(corpus, "pdfua-G3_02-artifacts-correct.pdf")
    assert page.text.startswith("This paragraph is real content")
    assert page.untagged_glyphs == 0


@pytest.mark.parametrize(
    ("name", "order"),
    [
        ("pdfua-G4_02-mcid-order-correct.pdf",
         ["This is the first paragraph.", "Fifth line of first paragraph.", "This is the second paragraph."]),
        # The tags list each paragraph's MCIDs last line first.
        ("pdfua-G4_F02-mcid-order-wrong.pdf",
         ["Fifth line of first paragraph.", "This is the first paragraph.", "Fifth line of second paragraph."]),
        ("pdfua-G4_03-columns-correct-order.pdf",
         ["This is an H1", "This is the first paragraph.", "Fifth line of first paragraph.",
          "This is the second paragraph.", "Fifth line of second paragraph.", "This is the third paragraph."]),
        # Tagged across the columns line by line: the declared order interleaves them.
        ("pdfua-G4_F03-columns-wrong-order.pdf",
         ["This is the first paragraph.", "Fourth line of second paragraph.", "Second line of first paragraph."]),
        ("pdfua-G4_04-sidebar-correct.pdf",
         ["This is an H1", "This is sidebar", "This is the first paragraph.", "This is the second paragraph."]),
        # The sidebar is tagged after the second paragraph.
        ("pdfua-G4_F04-sidebar-wrong.pdf",
         ["This is an H1", "This is the first paragraph.", "This is the second paragraph.", "This is sidebar",
          "This is the third paragraph."]),
    ],
)  # fmt: skip
def test_g4_reading_order_follows_the_tags(corpus, name, order):
    page = structure(corpus, name)
    in_order(page.text, order)
    assert page.untagged_glyphs == 0


def test_l_05_nested_list(corpus):
    page = structure(corpus, "pdfua-L_05-multilevel-list.pdf")
    assert page.text.split() == ["1.", "Vegetables", "a.", "Potato", "b.", "Onion", "2.", "Fruits", "a.", "Apple", "b.", "Orange", "c.", "Lemon"]
    # A label is inline content of its LI; each LBody paragraph is a block.
    assert [(b.struct_type, b.text.strip()) for b in page.blocks[:3]] == [
        ("LI", "1."), ("P", "Vegetables"), ("LI", "a.")
    ]
    assert page.blocks[2].struct_path == ("Document", "L", "LI", "LBody", "L", "LI")
