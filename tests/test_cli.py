"""The `ragprep extract` and `ragprep glyphs` command-line contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pdfbuilder import PdfBuilder, text_width
from typer.testing import CliRunner

from ragprep.pipeline.cli import app

runner = CliRunner()


def two_page_pdf(tmp_path: Path) -> Path:
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (First page) Tj ET")
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (Second page) Tj ET BT /{f} 12 Tf 72 686 Td (caf\\351) Tj ET")
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (Third page) Tj ET")
    path = tmp_path / "doc.pdf"
    b.save(path)
    return path


def invoke(*args: str):
    result = runner.invoke(app, [str(a) for a in args])
    # Exit codes are the contract; an uncaught exception would be a traceback.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_extract_text_separates_pages_with_form_feed(tmp_path):
    result = invoke("extract", two_page_pdf(tmp_path))
    assert result.exit_code == 0
    assert result.stdout == "First page\fSecond page\ncafé\fThird page"


def test_extract_page_selection_and_separator(tmp_path):
    result = invoke("extract", two_page_pdf(tmp_path), "--pages", "3,1", "--separator", "\n---\n")
    assert result.stdout == "Third page\n---\nFirst page"


def test_extract_json_shape(tmp_path):
    result = invoke("extract", two_page_pdf(tmp_path), "--pages", "2-", "--format", "json")
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    assert payload["file"].endswith("doc.pdf")
    assert [p["page"] for p in payload["pages"]] == [2, 3]
    second = payload["pages"][0]
    assert second == {
        "page": 2,
        "mode": "layout",
        "fallback": "the document has no structure tree (/StructTreeRoot)",
        "text": "Second page\ncafé",
        "glyphs": 15,
        "untagged_glyphs": 15,
        "artifact_glyphs": 0,
        "undecodable_glyphs": 0,
        "warnings": [],
        "blocks": [
            {
                "type": "P",
                "path": "P",
                "heading_level": None,
                "text": "Second page\ncafé",
                "char_start": 0,
                "char_end": 16,
                "bbox": second["blocks"][0]["bbox"],
                "mcids": [],
            }
        ],
    }
    # Glyph boxes run from the Helvetica descent (-207) to ascent (718) at 12 pt.
    assert second["blocks"][0]["bbox"] == pytest.approx(
        [72, 686 - 0.207 * 12, 72 + text_width("Second page"), 700 + 0.718 * 12]
    )


def test_extract_output_file_with_bom(tmp_path):
    out = tmp_path / "out.txt"
    result = invoke("extract", two_page_pdf(tmp_path), "--pages", "2", "--output", out, "--bom")
    assert result.exit_code == 0 and result.stdout == ""
    assert out.read_bytes() == "\ufeffSecond page\ncafé".encode("utf-8")


def test_unknown_mode_exits_2(tmp_path):
    result = invoke("extract", two_page_pdf(tmp_path), "--mode", "magic")
    assert result.exit_code == 2
    assert "magic" in result.stderr


def test_structure_mode_on_untagged_file_is_unavailable_with_reason(tmp_path):
    result = invoke("extract", two_page_pdf(tmp_path), "--mode", "structure", "--format", "json", "--pages", "1")
    assert result.exit_code == 0
    (page,) = json.loads(result.stdout)["pages"]
    assert (page["mode"], page["text"]) == ("unavailable", "")
    assert "no structure tree" in page["reason"]


def test_auto_mode_falls_back_and_says_why(tmp_path):
    result = invoke("extract", two_page_pdf(tmp_path), "--mode", "auto", "--format", "json", "--pages", "1")
    (page,) = json.loads(result.stdout)["pages"]
    assert (page["mode"], page["text"]) == ("layout", "First page")
    assert "no structure tree" in page["fallback"]


def test_bad_page_selection_exits_2(tmp_path):
    result = invoke("extract", two_page_pdf(tmp_path), "--pages", "2-x")
    assert result.exit_code == 2
    assert "bad page selection" in result.stderr
    result = invoke("extract", two_page_pdf(tmp_path), "--pages", "9")
    assert result.exit_code == 2
    assert "has 3 pages" in result.stderr


def test_encrypted_without_password_exits_1(tmp_path):
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (Secret) Tj ET")
    path = tmp_path / "locked.pdf"
    path.write_bytes(b.encrypted_bytes(user_password="pw"))
    result = invoke("extract", path)
    assert result.exit_code == 1
    assert "needs a password" in result.stderr
    result = invoke("extract", path, "--password", "pw")
    assert (result.exit_code, result.stdout) == (0, "Secret")


@pytest.mark.parametrize(
    "content",
    [b"", b"%PDF-1.7\n%%EOF\n", b"this is not a pdf at all", b"%PDF-1.4\n1 0 obj << /Type /Catalog"],
)
def test_unparseable_file_exits_1_with_reason(tmp_path, content):
    path = tmp_path / "bad.pdf"
    path.write_bytes(content)
    result = invoke("extract", path)
    assert result.exit_code == 1
    assert result.stderr.startswith("ragprep: ") and str(path) in result.stderr


def test_missing_file_exits_1(tmp_path):
    result = invoke("extract", tmp_path / "nope.pdf")
    assert result.exit_code == 1
    assert "no such file" in result.stderr


def test_bad_config_key_exits_2(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("[extract]\nword_spcae_ratio = 0.2\n")
    result = invoke("extract", two_page_pdf(tmp_path), "--config", config)
    assert result.exit_code == 2
    assert "extract.word_spcae_ratio" in result.stderr


def test_config_changes_the_word_space_threshold(tmp_path):
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    # A 2.4 pt gap: a space at the default 0.15 x 12 pt = 1.8 pt, none at 0.25.
    b.add_page(f"BT /{f} 12 Tf 72 700 Td [(gap)-200(here)] TJ ET")
    path = tmp_path / "gap.pdf"
    b.save(path)
    config = tmp_path / "c.toml"
    config.write_text("[extract]\nword_space_ratio = 0.25\n")
    assert invoke("extract", path).stdout == "gap here"
    assert invoke("extract", path, "--config", config).stdout == "gaphere"


def test_glyphs_json_with_why(tmp_path):
    result = invoke("glyphs", two_page_pdf(tmp_path), "--page", "2", "--why", "--format", "json")
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    rows = payload["glyphs"]
    assert "".join(r["text"] for r in rows) == "Second pagecafé"
    assert rows[0]["decision"] == "first"
    assert rows[6]["text"] == " " and rows[6]["decision"] == "-"
    assert rows[11]["text"] == "c" and rows[11]["decision"] == "line"
    assert rows[11]["move_across"] == pytest.approx(-14.0)
    assert rows[11]["line_threshold"] > 0
    for key in ("origin", "own_end", "pen_end", "height", "mcid", "token_index", "stream", "gap", "space_threshold"):
        assert key in rows[1]


def test_glyphs_table_is_tab_separated_when_piped(tmp_path):
    result = invoke("glyphs", two_page_pdf(tmp_path), "--page", "1", "--why")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    header = lines[0].split("\t")
    assert header[:4] == ["index", "text", "origin", "own_end"] and header[-2:] == ["decision", "running"]
    first = dict(zip(header, lines[1].split("\t"), strict=True))
    assert (first["text"], first["origin"], first["decision"]) == ("'F'", "72,700", "first")
    assert (first["artifact"], first["running"]) == ("False", "False")
    assert len(lines) == 1 + len("First page")


def test_glyphs_page_out_of_range_exits_2(tmp_path):
    result = invoke("glyphs", two_page_pdf(tmp_path), "--page", "7")
    assert result.exit_code == 2


def test_help_explains_commands():
    result = invoke("--help")
    assert result.exit_code == 0
    assert "extract" in result.stdout and "glyphs" in result.stdout


def test_default_mode_reads_the_bundled_tagged_sample_in_author_order():
    # The README's demo command: the sample paints its two columns interleaved.
    from make_samples import ARTICLE_PAGES, ARTICLE_TITLE, DEFAULT_OUTDIR

    result = invoke("extract", DEFAULT_OUTDIR / "tagged-two-column-article.pdf", "--format", "json")
    assert result.exit_code == 0
    pages = json.loads(result.stdout)["pages"]
    assert [p["mode"] for p in pages] == ["structure", "structure"]
    for page, (left, right) in zip(pages, ARTICLE_PAGES, strict=True):
        # Blocks carry the authored elements, left column then right column.
        expected = [(kind, text) for kind, text in left + right]
        got = [(b["type"], " ".join(b["text"].split())) for b in page["blocks"] if b["type"] in ("H2", "P")]
        assert got[-len(expected):] == expected
        assert page["untagged_glyphs"] == 0 and page["artifact_glyphs"] > 0
    assert pages[0]["blocks"][0] == {**pages[0]["blocks"][0], "type": "H1", "text": ARTICLE_TITLE}


def test_glyphs_why_says_which_glyphs_are_running_heads(tmp_path):
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    for n in range(1, 4):
        b.add_page(f"BT /{f} 10 Tf 72 700 Td (Body {n}) Tj ET BT /{f} 10 Tf 280 40 Td (Page {n}) Tj ET")
    path = tmp_path / "heads.pdf"
    b.save(path)
    rows = json.loads(invoke("glyphs", path, "--page", "2", "--why", "--format", "json").stdout)["glyphs"]
    assert "".join(r["text"] for r in rows if r["running"]) == "Page 2"
    assert "".join(r["text"] for r in rows if not r["running"]) == "Body 2"
    # Without --why the document is not read beyond the page: no running column.
    rows = json.loads(invoke("glyphs", path, "--page", "2", "--format", "json").stdout)["glyphs"]
    assert "running" not in rows[0] and rows[0]["artifact"] is False


def _table_pdf(tmp_path: Path) -> Path:
    from tabledocs import build_table

    rows = [[("TH", "Station", None), ("TH", "Flow", None)], [("TD", "North | Gate", None), ("TD", "312", None)]]
    path = tmp_path / "table.pdf"
    path.write_bytes(build_table(rows))
    return path


def test_extract_tables_markdown_json_and_csv(tmp_path):
    path = _table_pdf(tmp_path)
    markdown = invoke("extract", str(path), "--tables")
    assert markdown.exit_code == 0
    assert markdown.stdout.endswith("| Station | Flow |\n| --- | --- |\n| North \\| Gate | 312 |\n")
    as_json = json.loads(invoke("extract", str(path), "--tables", "--format", "json").stdout)
    (table,) = as_json["tables"]
    assert (table["rows"], table["cols"], table["header_rows"], table["method"]) == (2, 2, 1, "structure")
    assert [(c["row"], c["col"], c["text"], c["header_labels"]) for c in table["cells"]][2:] == [
        (1, 0, "North | Gate", ["Station"]),
        (1, 1, "312", ["Flow"]),
    ]
    csv_lines = invoke("extract", str(path), "--tables", "--format", "csv").stdout.splitlines()
    assert csv_lines[0].startswith("table_id,method,page,row,col,row_span,col_span,is_header,header_labels,text")
    assert len(csv_lines) == 5 and ",False,Station,North | Gate,72.0," in csv_lines[3]


def test_extract_csv_without_tables_is_a_usage_error(tmp_path):
    result = invoke("extract", str(_table_pdf(tmp_path)), "--format", "csv")
    assert result.exit_code == 2
