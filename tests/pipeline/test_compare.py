"""`ragprep compare` end to end, on generated documents whose metrics are known by hand.

The tagged two-column page: four lines per column, five distinct words per line (40 words),
tagged one P per column (structure order: left column, then right), painted in the stream
as L1 L2 R1 R2 L3 L4 R3 R4. So, counted by hand:

- structure and layout read L1..L4 R1..R4: order score 40/40, no column jump;
- stream's LCS with structure keeps the left lines before the right ones: at best L1 L2 then
  R1..R4, or L1..L4 then R3 R4, six lines = 30 words: order score 30/40 = 0.75;
- stream's lines go A A B B A A B B: back to A at L3, back to B at R3: 2 column jumps, and
  the one chunk (default 512-token budget) holding the page is interleaved;
- stream blocks: a new geometric block at each move up the page (L2->R1, L4->R3), none at
  R2->L3 (a 14 pt step down is less than 1.6 line heights): 3 blocks, all whole in the chunk.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import typer
from pdfbuilder import PdfBuilder
from typer.testing import CliRunner

from ragprep.pipeline.compare.cli import compare
from ragprep.pipeline.compare.gold import load_gold
from ragprep.pipeline.compare.report import REPORT_FILES, agreement_schema, metrics_schema
from ragprep.pipeline.compare.run import CompareSettings, compare_documents
from ragprep.pipeline.inputs import collect_inputs

LEFT = [" ".join(f"{stem}{i}" for stem in ("river", "stone", "maple", "cloud", "amber")) for i in range(4)]
RIGHT = [" ".join(f"{stem}{i}" for stem in ("lantern", "harbor", "meadow", "willow", "copper")) for i in range(4)]
RIGHT[-1] += "."
STREAM_ORDER = [("L", 0), ("L", 1), ("R", 0), ("R", 1), ("L", 2), ("L", 3), ("R", 2), ("R", 3)]
MODES = ("structure", "layout", "stream")


def tagged_two_column(path: Path) -> Path:
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    ops = []
    for side, i in STREAM_ORDER:
        x, text, mcid = (72, LEFT[i], i) if side == "L" else (320, RIGHT[i], 4 + i)
        ops.append(f"/P <</MCID {mcid}>> BDC BT /{f} 10 Tf {x} {700 - 14 * i} Td ({text}) Tj ET EMC")
    page = b.add_page(" ".join(ops))
    left = b.struct_element("P", [0, 1, 2, 3], page=page)
    right = b.struct_element("P", [4, 5, 6, 7], page=page)
    b.set_struct_tree([b.struct_element("Document", [left, right], page=page)])
    b.save(path)
    return path


def untagged(path: Path) -> Path:
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 10 Tf 72 700 Td (First page has words.) Tj ET")
    b.add_page(f"BT /{f} 10 Tf 72 700 Td (Second page too.) Tj ET")
    b.save(path)
    return path


GLYPHS = sum(len(line) for line in LEFT + RIGHT)  # every character is one painted glyph


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("docs")
    tagged_two_column(folder / "columns.pdf")
    untagged(folder / "plain.pdf")
    return folder


@pytest.fixture(scope="module")
def result(corpus_dir):
    return compare_documents(collect_inputs([str(corpus_dir)]), CompareSettings(modes=MODES))


def by_mode(comparison):
    return {m.mode: m for m in comparison.metrics}


def test_tagged_two_column_page_metrics(result):
    columns = next(d for d in result.documents if d.source.endswith("columns.pdf"))
    m = by_mode(columns)
    for mode in MODES:
        assert (m[mode].pages, m[mode].pages_unavailable, m[mode].glyphs) == (1, 0, GLYPHS)
        assert (m[mode].untagged_glyphs, m[mode].artifact_glyphs, m[mode].undecodable_glyphs) == (0, 0, 0)
        assert (m[mode].words, m[mode].order_pages, m[mode].order_reference_words) == (40, 1, 40)
        assert len(m[mode].chunk_tokens) == 1 and m[mode].blocks == m[mode].blocks_whole
        assert (m[mode].body_chunks, m[mode].mid_sentence_chunks, m[mode].boilerplate_chunks) == (1, 0, 0)
    assert (m["structure"].order_score, m["structure"].column_jumps, m["structure"].interleaved_chunks) == (1.0, 0, 0)
    assert (m["layout"].order_score, m["layout"].column_jumps, m["layout"].interleaved_chunks) == (1.0, 0, 0)
    assert (m["stream"].order_common_words, m["stream"].order_score) == (30, 0.75)
    assert (m["stream"].column_jumps, m["stream"].interleaved_chunks) == (2, 1)
    assert (m["structure"].blocks, m["stream"].blocks) == (2, 3)
    agreement = {(a.mode_a, a.mode_b): (a.word_f1, a.sequence_agreement) for a in columns.agreements}
    assert agreement == {
        ("structure", "layout"): (1.0, 1.0),
        ("structure", "stream"): (1.0, 0.75),
        ("layout", "stream"): (1.0, 0.75),
    }
    worst = columns.worst
    assert (worst.page, worst.mode_a, worst.mode_b, worst.sequence_agreement) == (1, "structure", "stream", 0.75)
    # The excerpts start four words before the readings part (after L1 L2 = 10 words).
    excerpts = dict(worst.excerpts)
    assert excerpts["structure"].startswith("… stone1 maple1 cloud1 amber1 river2")
    assert excerpts["stream"].startswith("… stone1 maple1 cloud1 amber1 lantern0")


def test_untagged_document_has_no_structure_on_any_page(result):
    plain = next(d for d in result.documents if d.source.endswith("plain.pdf"))
    m = by_mode(plain)
    assert (m["structure"].pages, m["structure"].pages_unavailable, m["structure"].words) == (2, 2, 0)
    assert len(m["structure"].chunk_tokens) == 0
    for mode in ("layout", "stream"):
        assert (m[mode].pages_unavailable, m[mode].words) == (0, 7)
    for mode in MODES:
        # No page to score order on; every glyph is outside marked content.
        assert (m[mode].order_pages, m[mode].order_score) == (0, None)
        assert m[mode].untagged_share == 1.0
    agreement = {(a.mode_a, a.mode_b): (a.pages, a.word_f1) for a in plain.agreements}
    assert agreement[("structure", "layout")] == (0, None)
    assert agreement[("layout", "stream")] == (2, 1.0)


def test_corpus_totals_are_sums(result):
    totals = {m.mode: m for m in result.totals}
    assert (totals["structure"].documents, totals["structure"].pages, totals["structure"].pages_unavailable) == (2, 3, 2)
    # Order is scored on the tagged page only: 30 of its 40 words for stream.
    assert (totals["stream"].order_reference_words, totals["stream"].order_score) == (40, 0.75)
    assert [d.source for d in result.disagreements()] == [str(Path(result.documents[0].source))]


# --------------------------------------------------------------------------- CLI

app = typer.Typer()
app.command()(compare)
runner = CliRunner()


def invoke(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_report_files_are_written_and_readable(corpus_dir, tmp_path):
    out = tmp_path / "report"
    result = invoke(corpus_dir, "--out", out, "--workers", 1)
    assert result.exit_code == 0, result.output
    assert "order score vs structure" in result.stdout and "0.750" in result.stdout
    assert sorted(p.name for p in out.iterdir()) == sorted(REPORT_FILES)
    metrics = pq.read_table(out / "metrics.parquet")
    assert metrics.schema.equals(metrics_schema())
    rows = metrics.to_pylist()
    assert len(rows) == 2 * 3 + 3  # (document, mode) rows, then one corpus row per mode
    stream = next(r for r in rows if r["mode"] == "stream" and (r["source"] or "").endswith("columns.pdf"))
    assert (stream["order_score"], stream["column_jumps"], stream["interleaved_chunks"]) == (0.75, 2, 1)
    corpus = [r for r in rows if r["scope"] == "corpus"]
    assert [r["mode"] for r in corpus] == list(MODES) and all(r["doc_id"] is None for r in corpus)
    agreement = pq.read_table(out / "agreement.parquet")
    assert agreement.schema.equals(agreement_schema()) and agreement.num_rows == 2 * 3 + 3
    for png in ("tokens.png", "order_score.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "## Per mode, over all documents" in md and "| order score vs structure | 1.000 | 1.000 | 0.750 |" in md
    assert "## Where modes disagree most" in md and "columns.pdf, page 1" in md


def test_json_format(corpus_dir):
    result = invoke(corpus_dir, "--format", "json", "--modes", "stream,structure", "--workers", 1)
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["modes"] == ["stream", "structure"] and payload["documents"] == 2
    corpus = {r["mode"]: r for r in payload["corpus"]}
    assert (corpus["stream"]["order_score"], corpus["stream"]["column_jumps"]) == (0.75, 2)
    assert corpus["structure"]["pages_unavailable"] == 2


def test_gold_text_scores_order_and_words(corpus_dir, tmp_path):
    gold = tmp_path / "gold"
    gold.mkdir()
    # Whole-document gold for columns.pdf, without the last right-column line: 35 words.
    (gold / "columns.txt").write_text("\n".join(LEFT + RIGHT[:3]), encoding="utf-8")
    # Per-page gold for plain.pdf: page 2 only.
    (gold / "plain").mkdir()
    (gold / "plain" / "2.txt").write_text("Second page too.", encoding="utf-8")
    assert [stem for stem, _ in load_gold(gold).texts] == ["columns", "plain"]
    result = invoke(corpus_dir, "--gold", gold, "--format", "json", "--workers", 1)
    assert result.exit_code == 0, result.output
    rows = {(Path(r["source"]).stem, r["mode"]): r for r in json.loads(result.stdout)["per_document"]}
    # Structure reads all 35 gold words in order, plus 5 more: F1 = 2*35 / (40+35).
    assert (rows["columns", "structure"]["gold_order_score"], rows["columns", "structure"]["gold_f1"]) == (
        1.0, pytest.approx(70 / 75)
    )
    # Stream keeps at best five of the seven gold lines in order (L1 L2 R1 R2 R3 or L1..L4 R3).
    assert rows["columns", "stream"]["gold_order_score"] == pytest.approx(25 / 35)
    assert rows["columns", "stream"]["gold_f1"] == pytest.approx(70 / 75)
    # Page 2 of plain.pdf: structure reads nothing there, layout reads it exactly.
    assert (rows["plain", "structure"]["gold_order_score"], rows["plain", "structure"]["gold_f1"]) == (0.0, 0.0)
    assert (rows["plain", "layout"]["gold_order_score"], rows["plain", "layout"]["gold_f1"]) == (1.0, 1.0)


def test_dataset_readings_are_reused(corpus_dir, tmp_path):
    from ragprep.pipeline.cli import app as ragprep_app

    dataset = tmp_path / "stream-ds"
    made = runner.invoke(
        ragprep_app, ["run", str(corpus_dir), "--out", str(dataset), "--mode", "stream", "--workers", "1", "--log-format", "json"]
    )
    assert made.exit_code == 0, made.output
    live = json.loads(invoke(corpus_dir, "--format", "json", "--workers", 1).stdout)
    result = invoke(corpus_dir, "--dataset", f"stream={dataset}", "--format", "json", "--workers", 1)
    assert result.exit_code == 0 and result.stderr == ""
    reused = json.loads(result.stdout)
    assert reused["per_document"] == live["per_document"] and reused["corpus"] == live["corpus"]
    # The dataset holds stream readings only.
    wrong = invoke(corpus_dir, "--dataset", f"layout={dataset}")
    assert wrong.exit_code == 2 and "made with --mode stream" in wrong.stderr
    # Other chunk settings: nothing is reused, both documents are extracted again.
    config = tmp_path / "small.toml"
    config.write_text("[chunk]\nmax_tokens = 64\noverlap_tokens = 0\n", encoding="utf-8")
    again = invoke(corpus_dir, "--dataset", f"stream={dataset}", "--config", config, "--format", "json", "--workers", 1)
    assert again.exit_code == 0 and "2 documents were made with other settings" in again.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--modes", "structure,fancy"], "--modes"),
        (["--dataset", "structure"], "MODE=PATH"),
        (["--dataset", "auto=somewhere"], "not among --modes"),
        (["--gold", "no-such-folder"], "no such folder"),
        (["--dataset", "stream=no-such-dataset"], "not a ragprep dataset"),
    ],
)
def test_bad_usage_exits_2_with_one_line(corpus_dir, args, message):
    result = invoke(corpus_dir, *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("ragprep: ") and message in result.stderr
    assert result.stderr.count("\n") == 1


def test_bad_config_exits_2(corpus_dir, tmp_path):
    config = tmp_path / "bad.toml"
    config.write_text("[chunk]\nmax_tokenz = 3\n", encoding="utf-8")
    result = invoke(corpus_dir, "--config", config)
    assert result.exit_code == 2 and "chunk.max_tokenz" in result.stderr


def test_inputs_that_name_nothing_exit_2_as_in_run_and_unreadable_documents_exit_1(corpus_dir, tmp_path):
    assert invoke(tmp_path / "missing.pdf").exit_code == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = invoke(empty)
    assert nothing.exit_code == 2 and "no PDF files" in nothing.stderr
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "junk.pdf").write_bytes(b"not a pdf at all")
    tagged_two_column(broken / "fine.pdf")
    result = invoke(broken, "--format", "json", "--workers", 1)
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["documents"] == 1
    (error,) = payload["errors"]
    assert error["source"].endswith("junk.pdf") and "junk.pdf" in error["message"]


def test_password_file_opens_encrypted_documents(tmp_path):
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 10 Tf 72 700 Td (Locked words here.) Tj ET")
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "locked.pdf").write_bytes(b.encrypted_bytes(user_password="open sesame"))
    locked = invoke(folder, "--modes", "stream", "--format", "json", "--workers", 1)
    assert locked.exit_code == 1 and "locked.pdf needs a password" in locked.stdout
    passwords = tmp_path / "passwords.txt"
    passwords.write_text("# team passwords\nwrong\nopen sesame\n")
    opened = invoke(folder, "--modes", "stream", "--format", "json", "--workers", 1, "--password-file", passwords)
    assert opened.exit_code == 0, opened.output
    assert json.loads(opened.stdout)["documents"] == 1 and "open sesame" not in opened.stdout


# --------------------------------------------------------------------------- report and plots


def test_order_plot_has_a_row_per_tagged_document_named_in_full_without_structure(result):
    from ragprep.pipeline.compare.plots import order_figure

    fig = order_figure(result)
    tagged, untagged = fig.axes
    # columns.pdf is tagged: a row named in full; structure (1.0 by definition) is not drawn.
    assert [t.get_text() for t in tagged.get_yticklabels()] == ["columns.pdf"]
    assert [t.get_text() for t in tagged.get_legend().get_texts()] == ["layout", "stream"]
    # The axis spans the data (0.75 and 1.0), not 0 to 1.
    low, high = tagged.get_xlim()
    assert 0.65 <= low <= 0.75 and 1.0 <= high < 1.05
    assert tagged.get_title(loc="left") == "Order score against structure, per document (1 document)"
    # plain.pdf has no structure: it is compared layout against stream, in a panel of its own.
    assert [t.get_text() for t in untagged.get_yticklabels()] == ["plain.pdf"]
    assert untagged.get_title(loc="left") == "Untagged documents: layout against stream (1 document)"


def test_order_rows_sort_by_the_gap_between_modes():
    from ragprep.pipeline.compare.plots import Row, _by_gap, short_names

    rows = [Row("same", (0.8, 0.8)), Row("apart", (0.7, 1.0)), Row("close", (0.95, 1.0)), Row("perfect", (1.0, 1.0))]
    assert [r.name for r in _by_gap(rows)] == ["apart", "close", "same", "perfect"]
    assert short_names(["/c/tagged/a.pdf", "/c/multicolumn/b.pdf"]) == {
        "/c/tagged/a.pdf": "tagged/a.pdf", "/c/multicolumn/b.pdf": "multicolumn/b.pdf"
    }
    assert short_names(["/c/tagged/a-very-long-file-name-kept-whole.pdf"]) == {
        "/c/tagged/a-very-long-file-name-kept-whole.pdf": "a-very-long-file-name-kept-whole.pdf"
    }


def test_tokens_plot_draws_the_chunk_budget(result):
    from ragprep.pipeline.compare.plots import tokens_figure

    assert result.max_tokens == 512
    fig = tokens_figure(result)
    assert len(fig.axes) == len(MODES)
    for ax in fig.axes:
        budget = [ln for ln in ax.get_lines() if list(ln.get_xdata()) == [512, 512]]
        assert budget, "no line at max_tokens"
        assert any("max_tokens = 512" in t.get_text() for t in ax.texts)


def test_report_tables_are_narrow_and_untagged_documents_compare_layout_with_stream(corpus_dir, tmp_path):
    from ragprep.pipeline.compare.report import report_markdown

    md = report_markdown(compare_documents(collect_inputs([str(corpus_dir)]), CompareSettings(modes=MODES)))
    header_rows = [ln for ln in md.splitlines() if ln.startswith("| ") and not ln.startswith("| ---")]
    assert max(ln.count(" | ") + 1 for ln in header_rows) <= 6
    assert "## Order score per document (tagged pages)" in md
    assert "| columns.pdf | 1 | 1.000 | 0.750 |" in md
    untagged = md[md.index("## Untagged documents: layout against stream") :]
    # Layout and stream read the untagged file the same: its row says so, and no excerpt follows.
    assert "| plain.pdf | 2 | 1.000 | 1.000 | 0 | 0 |" in untagged
    assert "read 1 of the 1 compared the same" in untagged
    jumps = md[md.index("## Column jumps and interleaved chunks per document") :]
    assert "| columns.pdf | stream | 2 | 1 | 1 |" in jumps
    # Without layout or stream among the modes, the section says how to get the comparison.
    only_structure = report_markdown(
        compare_documents(collect_inputs([str(corpus_dir)]), CompareSettings(modes=("structure", "stream")))
    )
    assert "add layout and stream to --modes" in only_structure
