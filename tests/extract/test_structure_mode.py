"""Structure mode and auto mode: page text in the order the tags declare."""

from __future__ import annotations

import pikepdf
import pytest
from pdfbuilder import PdfBuilder

from ragprep.extract import extract_document
from ragprep.extract.structure import page_struct_parents


def line(font: str, x: float, y: float, text: str, mcid: int | None = None, tag: str = "P") -> str:
    body = f"BT /{font} 10 Tf {x} {y} Td ({text}) Tj ET"
    return f"/{tag} <</MCID {mcid}>> BDC {body} EMC" if mcid is not None else body


def read(b: PdfBuilder, mode: str = "structure", page: int = 1, **kwargs):
    return extract_document(b.to_bytes(), mode=mode, pages=str(page), **kwargs).pages[0]


def two_column_interleaved() -> tuple[PdfBuilder, pikepdf.Page]:
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    # The stream paints left line 1, right line 1, left line 2, right line 2.
    content = " ".join(
        [
            line(f, 72, 700, "Left one", 0),
            line(f, 320, 700, "Right one", 2),
            line(f, 72, 686, "left two.", 1),
            line(f, 320, 686, "right two.", 3),
        ]
    )
    page = b.add_page(content)
    left = b.struct_element("P", [0, 1], page=page)
    right = b.struct_element("P", [2, 3], page=page)
    b.set_struct_tree([b.struct_element("Document", [left, right], page=page)])
    return b, page


def test_two_columns_painted_interleaved_read_column_by_column():
    b, _ = two_column_interleaved()
    result = read(b)
    assert result.mode == "structure"
    assert result.text == "Left one\nleft two.\nRight one\nright two."
    assert [blk.text for blk in result.blocks] == ["Left one\nleft two.", "Right one\nright two."]
    assert [blk.struct_path for blk in result.blocks] == [("Document", "P")] * 2
    assert result.blocks[1].mcids == (2, 3)
    # The same page in stream mode interleaves the columns.
    assert read(b, mode="stream").text == "Left one Right one\nleft two. right two."


def test_table_painted_column_by_column_reads_row_by_row():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    cells = {(0, 0): "Name", (0, 1): "Qty", (1, 0): "Apples", (1, 1): "3"}
    # Painted column by column; MCID = row * 2 + column.
    content = " ".join(
        line(f, 72 + 100 * c, 700 - 14 * r, cells[r, c], r * 2 + c, tag="TD") for c in (0, 1) for r in (0, 1)
    )
    page = b.add_page(content)
    rows = [
        b.struct_element("TR", [b.struct_element("TH", [0]), b.struct_element("TH", [1])], page=page),
        b.struct_element("TR", [b.struct_element("TD", [2]), b.struct_element("TD", [3])], page=page),
    ]
    b.set_struct_tree([b.struct_element("Table", rows, page=page)])
    result = read(b)
    assert result.text == "Name\nQty\nApples\n3"
    assert [(blk.struct_type, blk.header_cell) for blk in result.blocks] == [
        ("TH", True), ("TH", True), ("TD", False), ("TD", False)
    ]
    assert result.blocks[2].struct_path == ("Table", "TR", "TD")


def test_partially_tagged_page_has_a_tail_and_an_exact_untagged_count():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    page = b.add_page(line(f, 300, 40, "17") + " " + line(f, 72, 700, "Tagged body", 0))
    b.set_struct_tree([b.struct_element("P", [0], page=page)])
    result = read(b)
    assert result.text == "Tagged body\n17"
    assert (result.glyphs, result.untagged_glyphs) == (13, 2)
    assert [blk.struct_path for blk in result.blocks] == [("P",), ()]


def test_marked_content_without_struct_parents_or_tree_is_unavailable():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    page = b.add_page(line(f, 72, 700, "Marked only", 0))
    # A tree exists but never references this page's MCIDs; no /StructParents.
    other = b.add_page(line(f, 72, 700, "Other page", 0))
    b.set_struct_tree([b.struct_element("P", [0], page=other)])
    assert "/StructParents" not in page.obj
    result = read(b)
    assert (result.mode, result.text) == ("unavailable", "")
    assert "/StructParents" in result.reason
    assert read(b, page=2).text == "Other page"


def test_struct_parents_is_looked_up_only_on_a_page_the_tree_references_nothing_on(monkeypatch: pytest.MonkeyPatch):
    from ragprep.extract import document

    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(line(f, 72, 700, "Marked only", 0))
    other = b.add_page(line(f, 72, 700, "Other page", 0))
    b.set_struct_tree([b.struct_element("P", [0], page=other)])
    looked_up: list[object] = []

    def counted(page: object) -> int | None:
        looked_up.append(page)
        return page_struct_parents(page)  # type: ignore[arg-type]

    monkeypatch.setattr(document, "page_struct_parents", counted)
    assert read(b, page=2).text == "Other page"
    assert looked_up == []  # the tree references the page: whether it has /StructParents does not matter
    assert read(b, page=1).mode == "unavailable"
    assert len(looked_up) == 1


def test_untagged_document_is_unavailable_in_structure_mode():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(line(f, 72, 700, "Plain"))
    result = read(b)
    assert (result.mode, result.text, result.reason) == (
        "unavailable", "", "the document has no structure tree (/StructTreeRoot)"
    )


def test_tree_referencing_nothing_on_a_page_with_text_is_unavailable():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    first = b.add_page(line(f, 72, 700, "Tagged", 0))
    b.add_page(line(f, 72, 700, "No tags here"))
    b.set_struct_tree([b.struct_element("P", [0], page=first)])
    result = read(b, page=2)
    assert result.mode == "unavailable"
    assert "references no content on this page" in result.reason


def test_tree_spanning_two_pages_with_pg_only_on_the_parent():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    one = b.add_page(line(f, 72, 700, "First half", 0))
    two = b.add_page(line(f, 72, 700, "second half", 0))
    # The Sect has /Pg one; its first P inherits it, the second names page two.
    section = b.struct_element(
        "Sect", [b.struct_element("P", [0]), b.struct_element("P", [0], page=two)], page=one
    )
    b.set_struct_tree([section])
    assert read(b, page=1).text == "First half"
    assert read(b, page=2).text == "second half"


def test_mcr_with_its_own_page():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    one = b.add_page(line(f, 72, 700, "On one", 0))
    two = b.add_page(line(f, 72, 700, "On two", 0) + " " + line(f, 72, 650, "Also two", 1))
    para = b.struct_element("P", [b.mcr(1, page=two), b.mcr(0, page=two), 0], page=one)
    b.set_struct_tree([para])
    assert read(b, page=2).text == "Also two\nOn two"
    assert read(b, page=1).text == "On one"


def test_mcr_with_stm_reads_marked_content_inside_a_form():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    form = b.add_form(line(f, 72, 650, "In the form", 0))
    page = b.add_page(line(f, 72, 700, "On the page", 0) + " /Fm1 Do", xobjects={"Fm1": form})
    # The form's MCID 0 comes first, then the page's MCID 0.
    b.set_struct_tree([b.struct_element("P", [b.mcr(0, page=page, stream=form), 0], page=page)])
    result = read(b)
    assert result.text == "In the form\nOn the page"
    assert result.untagged_glyphs == 0


def test_deep_tree_warns_and_does_not_crash():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    page = b.add_page(line(f, 72, 700, "Deep", 0) + " " + line(f, 72, 680, "Shallow", 1))
    node = b.struct_element("P", [0], page=page)
    for _ in range(200):
        node = b.struct_element("Div", [node], page=page)
    b.set_struct_tree([node, b.struct_element("P", [1], page=page)])
    result = read(b)
    assert result.text == "Shallow\nDeep"  # the cut-off branch's glyphs join the tail
    assert any("deeper than 128 levels" in w.message for w in result.warnings)


def test_cyclic_tree_terminates():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    page = b.add_page(line(f, 72, 700, "Loop", 0))
    para = b.struct_element("P", [0], page=page)
    section = b.struct_element("Sect", [para], page=page)
    para.K.append(section)  # P -> Sect -> P ...
    b.set_struct_tree([section], parent_tree=False)
    result = read(b)
    assert result.text == "Loop"
    assert any("cycle" in w.message for w in result.warnings)


def test_actual_text_on_an_element_replaces_its_content():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    page = b.add_page(line(f, 72, 700, "Before", 0) + " " + line(f, 72, 680, "0CR err0r", 1))
    fixed = b.struct_element("Span", [1], page=page, actual_text="OCR error")
    b.set_struct_tree([b.struct_element("P", [0], page=page), b.struct_element("P", [fixed], page=page)])
    assert read(b).text == "Before\nOCR error"


def test_artifact_header_and_footer_are_excluded_and_counted():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    page = b.add_page(
        f"/Artifact BMC {line(f, 72, 760, 'Running head')} EMC "
        + line(f, 72, 700, "Body", 0)
        + f" /Artifact <</Type /Pagination>> BDC {line(f, 300, 40, '12')} EMC"
    )
    b.set_struct_tree([b.struct_element("P", [0], page=page)])
    result = read(b)
    assert result.text == "Body"
    assert (result.glyphs, result.artifact_glyphs, result.untagged_glyphs) == (18, 14, 0)
    from ragprep.extract import ExtractConfig

    with_artifacts = read(b, config=ExtractConfig(include_artifacts=True))
    assert with_artifacts.text == "Body\nRunning head\n12"


def test_role_mapped_custom_types_become_standard_blocks():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    page = b.add_page(line(f, 72, 700, "Title", 0) + " " + line(f, 72, 680, "Text", 1))
    b.set_struct_tree(
        [b.struct_element("Heading1", [0], page=page), b.struct_element("Para", [1], page=page)],
        role_map={"Heading1": "MyHeading", "MyHeading": "H1", "Para": "P"},
    )
    blocks = read(b).blocks
    assert [(blk.struct_type, blk.heading_level, blk.text) for blk in blocks] == [("H1", 1, "Title"), ("P", None, "Text")]


def _page_with_untagged_share(tagged: int, untagged: int) -> PdfBuilder:
    b = PdfBuilder()
    f = b.add_standard_font("Courier", widths=True)
    page = b.add_page(line(f, 72, 700, "T" * tagged, 0) + " " + line(f, 72, 600, "u" * untagged))
    b.set_struct_tree([b.struct_element("P", [0], page=page)])
    return b


def test_auto_uses_structure_at_exactly_a_quarter_untagged():
    result = read(_page_with_untagged_share(30, 10), mode="auto")
    assert (result.mode, result.untagged_glyphs, result.glyphs, result.fallback) == ("structure", 10, 40, None)


def test_auto_falls_back_to_geometry_above_a_quarter_untagged():
    result = read(_page_with_untagged_share(29, 11), mode="auto")
    assert result.mode == "layout"
    assert result.fallback == "untagged 28% > 25%"


def test_tagged_page_whose_only_text_is_artifacts_reads_as_empty():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"/Artifact BMC {line(f, 72, 760, 'Running head')} EMC")
    other = b.add_page(line(f, 72, 700, "Body", 0))
    b.set_struct_tree([b.struct_element("P", [0], page=other)])
    result = read(b)
    assert (result.mode, result.text, result.blocks) == ("structure", "", ())
    assert (result.glyphs, result.artifact_glyphs) == (12, 12)


def _page_with_figure() -> PdfBuilder:
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    image = b.pdf.make_stream(b"\x80")
    image.Type, image.Subtype = pikepdf.Name.XObject, pikepdf.Name.Image
    image.Width = image.Height = image.BitsPerComponent = 1
    image.ColorSpace = pikepdf.Name.DeviceGray
    image.BitsPerComponent = 8
    page = b.add_page(
        line(f, 72, 700, "Before the chart", 0)
        + " /Figure <</MCID 1>> BDC q 200 0 0 100 72 550 cm /Im1 Do Q EMC "
        + line(f, 72, 500, "After the chart", 2),
        xobjects={"Im1": image},
    )
    figure = b.struct_element("Figure", [1], page=page, alt="Bar chart of sales by year")
    b.set_struct_tree([b.struct_element("P", [0], page=page), figure, b.struct_element("P", [2], page=page)])
    return b


def test_figure_alt_text_enters_the_text_where_the_image_is_when_configured():
    from ragprep.extract import ExtractConfig

    result = read(_page_with_figure(), config=ExtractConfig(figure_alt_in_text=True))
    assert result.text == "Before the chart\nBar chart of sales by year\nAfter the chart"
    figure = result.blocks[1]
    assert (figure.struct_type, figure.alt, figure.text) == ("Figure", "Bar chart of sales by year", figure.alt)
    assert figure.bbox == (72.0, 550.0, 272.0, 650.0)


def test_figure_alt_text_stays_out_of_the_text_by_default():
    result = read(_page_with_figure())
    assert result.text == "Before the chart\nAfter the chart"
