"""What a person watching a terminal run sees: a progress bar that advances by
bytes, its remaining time by the run's cost model, elapsed and remaining labelled, each failure printed once
with its path named once, and `glyphs --why` readable in a 140-column terminal."""

from __future__ import annotations

import io
import re
from pathlib import Path

from pipelinedocs import BROKEN_PDF, report_pdf, synthetic_output
from rich.console import Console
from typer.testing import CliRunner

from ragprep.pipeline.cli import app
from ragprep.pipeline.model import DocumentTask
from ragprep.pipeline.progress import RichReporter, failure_text
from ragprep.pipeline.run import Plan

runner = CliRunner()


def _plan(tasks: tuple[DocumentTask, ...]) -> Plan:
    return Plan(inputs=len(tasks), tasks=tasks, skipped=0, moves={}, removed=frozenset(), superseded=frozenset(),
                unreadable=(), dropped_unreadable=frozenset())  # fmt: skip


def test_the_bar_advances_by_the_bytes_of_each_finished_document(tmp_path):
    big, small = tmp_path / "big.pdf", tmp_path / "small.pdf"
    big.write_bytes(b"x" * 90_000)
    small.write_bytes(b"x" * 10_000)
    first = synthetic_output(1, source=str(big))
    tasks = (DocumentTask(str(big), first.row.doc_id or "", source=str(big)), DocumentTask(str(small), "s", source=str(small)))
    console = Console(file=io.StringIO(), width=200, force_terminal=True)
    reporter = RichReporter(console)
    reporter.start("run", _plan(tasks), workers=1)
    reporter.document(first)
    [task] = reporter._progress.tasks
    # The largest file first: half the documents, nine tenths of the work.
    assert (task.completed, task.total) == (90_000, 100_000)
    assert task.fields["docs"] == "1/2"
    # The remaining time comes from the cost model (tests/pipeline/test_eta.py), as a deadline counted down.
    assert task.fields["until"] is not None
    assert reporter._progress.columns[-1].render(task).plain.startswith("remaining ~0:")
    reporter._progress.stop()


def test_a_terminal_run_labels_elapsed_and_remaining_and_prints_each_failure_once(tmp_path):
    corpus = tmp_path / "in"
    corpus.mkdir()
    (corpus / "good.pdf").write_bytes(report_pdf("Good"))
    (corpus / "broken.pdf").write_bytes(BROKEN_PDF)
    result = runner.invoke(
        app, ["run", str(corpus), "--out", str(tmp_path / "ds"), "--log-format", "rich", "--workers", "1"],
        env={"COLUMNS": "300"},
    )
    assert result.exit_code == 3, result.output
    output = result.stderr + result.stdout
    assert "elapsed 0:" in output and "remaining " in output
    broken = str((corpus / "broken.pdf").resolve())
    # Once, during the run; the summary points back to it instead of listing it again.
    assert output.count(broken) == 1, output
    [line] = [ln for ln in output.splitlines() if broken in ln]
    assert line.startswith(f"error {broken}: PDFReadError: ") and "1 failed: listed above" in output


def test_a_failure_line_names_the_path_once_however_the_input_spelled_it():
    source = "/data/corpus/a/report.pdf"
    assert failure_text(source, "EncryptedPDFError", f"{source} needs a password") == (
        f"{source}: EncryptedPDFError: needs a password"
    )
    # The input was given relative to the working directory; the key is resolved.
    assert failure_text(source, "PDFReadError", "a/report.pdf: cannot be read as a PDF: no trailer") == (
        f"{source}: PDFReadError: cannot be read as a PDF: no trailer"
    )
    # Relative to pipeline.source_root, the message names the absolute path.
    assert failure_text("a/report.pdf", "PDFReadError", f"{source}: empty file (0 bytes), not a PDF") == (
        "a/report.pdf: PDFReadError: empty file (0 bytes), not a PDF"
    )
    # A message about another file, or not starting with a path, is kept whole.
    assert failure_text(source, "TimeoutError", "took longer than pipeline.timeout_seconds (120)").endswith(
        ": TimeoutError: took longer than pipeline.timeout_seconds (120)"
    )
    assert failure_text(source, "PDFReadError", "/other/report.pdf: broken") == f"{source}: PDFReadError: /other/report.pdf: broken"


def test_the_bundled_samples_have_short_stable_sources(tmp_path):
    result = runner.invoke(app, ["run", "--out", str(tmp_path / "ds"), "--format", "json", "--log-format", "json"])
    assert result.exit_code == 0, result.output
    import pyarrow.parquet as pq

    from ragprep.pipeline.dataset import snapshot

    sources = pq.read_table(Path(snapshot(str(tmp_path / "ds"))) / "documents").column("source").to_pylist()
    assert sorted(sources) == [
        "ragprep:samples/cjk-page.pdf",
        "ragprep:samples/tagged-two-column-article.pdf",
        "ragprep:samples/untagged-report.pdf",
    ]


def _glyph_table(path: Path, columns: int) -> str:
    result = runner.invoke(app, ["glyphs", str(path), "--why"], env={"COLUMNS": str(columns), "TTY_COMPATIBLE": "1",
                                                                     "NO_COLOR": "1"})  # fmt: skip
    assert result.exit_code == 0, result.output
    return re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)  # bold headers: styles take no columns


def test_glyphs_why_keeps_whole_columns_in_a_140_column_terminal(tmp_path):
    path = tmp_path / "report.pdf"
    path.write_bytes(report_pdf("Glyph table", pages=1))
    text = _glyph_table(path, 140)
    lines = text.splitlines()
    assert max(len(ln) for ln in lines) <= 140
    assert "…" not in text  # no value or header cut short
    header = next(ln for ln in lines if ln.split()[:2] == ["#", "text"])
    for name in ("origin", "gap", "space at", "across", "line at", "decision"):
        assert name in header
    assert any(ln.startswith("not shown at 140 columns: ") for ln in lines)
    # A row shows the first glyph's decision in full.
    assert any("'G'" in ln and "first" in ln for ln in lines)
    wide = _glyph_table(path, 260)
    assert "own_end" in wide and "pen_end" in wide and "not shown" not in wide
