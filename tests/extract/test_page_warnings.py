"""Page warnings are typed values (kind, setting, message, count), counted while
reading and rendered to text only at the edges, with one counting format."""

from __future__ import annotations

from pdfbuilder import PdfBuilder

from ragprep.extract import ExtractConfig, PageWarning, WarningKind, extract_document, render_all
from ragprep.pipeline.records import page_batch


def _pdf(content: str) -> bytes:
    b = PdfBuilder()
    font = b.add_standard_font("Helvetica", widths=True)
    b.add_page(content.replace("/F", f"/{font}"))
    return b.to_bytes()


def test_a_repeated_problem_is_one_warning_with_its_count_and_renders_once_at_the_records():
    # Three Tf with one operand: one CONTENT warning counted 3.
    data = _pdf("BT /F 12 Tf 72 700 Td (a) Tj /F Tf (b) Tj /F Tf (c) Tj /F Tf (d) Tj ET")
    page = extract_document(data, mode="stream").pages[0]
    assert page.text == "abcd"
    message = "operator Tf skipped: it needs 2 operands, got 1"
    assert page.warnings == (PageWarning(WarningKind.CONTENT, message, None, 3),)
    # The pages table holds the text a person reads, with the one count format.
    row = page_batch("doc", "src", (page,)).to_pylist()[0]
    assert row["warnings"] == render_all(page.warnings)
    assert row["warnings"] == [f"{message} (x3)"]


def test_a_limit_warning_names_its_setting_and_renders_it():
    assert extract_document(_pdf("BT /F 12 Tf 72 700 Td (a) Tj (b) Tj (c) Tj ET"), mode="stream").pages[0].warnings == ()
    limited = extract_document(
        _pdf("BT /F 12 Tf 72 700 Td (a) Tj (b) Tj (c) Tj ET"), mode="stream", config=ExtractConfig(max_operators_per_page=3)
    ).pages[0]
    (limit,) = [w for w in limited.warnings if w.kind is WarningKind.LIMIT]
    assert limit.setting == "extract.max_operators_per_page" and limit.count == 1
    assert limit.render() == (
        "limit: more than 3 operators on this page; text after that is skipped (extract.max_operators_per_page)"
    )
