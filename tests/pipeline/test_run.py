"""`ragprep run`: the dataset, incremental reruns, error rows, export."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest
from pdfbuilder import PdfBuilder
from pipelinedocs import BROKEN_PDF, report_pdf, time_out_on_stuck, write_corpus
from typer.testing import CliRunner

from ragprep.chunk import ChunkConfig, chunk_file
from ragprep.pipeline.cli import app
from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.progress import QuietReporter
from ragprep.pipeline.run import run
from ragprep.pipeline.schema import TABLES

runner = CliRunner()
FAST = Settings(pipeline=PipelineConfig(workers=2))


def table(dataset: Path, name: str) -> pa.Table:
    """A table read with plain pyarrow, as a user with no ragprep would."""
    return pads.dataset(dataset / name, format="parquet").to_table()


def chunk_ids(dataset: Path) -> set[str]:
    return set(table(dataset, "chunks").column("chunk_id").to_pylist())


def changes(dataset: Path, run_id: str) -> dict[str, set[str]]:
    rows = table(dataset, "changes").to_pylist()
    out: dict[str, set[str]] = {"add": set(), "remove": set(), "update": set()}
    for row in rows:
        if row["run_id"] == run_id:
            out[row["op"]].add(row["chunk_id"])
    return out


def do_run(inputs: list[Path | str], out: Path, settings: Settings = FAST, **kwargs):
    return run([str(i) for i in inputs], out, settings, QuietReporter(), **kwargs)


def test_first_run_writes_every_table_with_its_schema_and_the_chunks_chunk_file_gives(tmp_path):
    corpus = tmp_path / "in"
    paths = write_corpus(corpus, 3)
    out = tmp_path / "ds"
    summary = do_run([corpus], out)
    assert (summary.processed, summary.failed, summary.exit_code) == (3, 0, 0)
    for name, schema in TABLES.items():
        read = pq.read_table(out / name)
        assert read.schema.remove_metadata().equals(schema.remove_metadata()), name
    # The dataset's chunks are exactly what the library gives, file by file.
    stored = table(out, "chunks")
    for path in paths:
        expected = chunk_file(path, mode="auto", config=ChunkConfig())
        rows = sorted((r for r in stored.to_pylist() if r["source"] == str(path)), key=lambda r: r["index"])
        assert [r["chunk_id"] for r in rows] == [c.chunk_id for c in expected]
        assert [r["text"] for r in rows] == [c.text for c in expected]
    docs = table(out, "documents").to_pylist()
    assert {d["source"] for d in docs} == {str(p) for p in paths}
    assert all(d["status"] == "ok" and d["pages"] == 2 and d["tagged"] is False for d in docs)
    assert all(d["producer"] == "pipelinedocs" for d in docs)
    pages = table(out, "pages")
    assert pages.num_rows == 6 and set(pages.column("mode").to_pylist()) == {"layout"}
    assert changes(out, summary.run_id)["add"] == chunk_ids(out)
    [record] = table(out, "runs").to_pylist()
    assert (record["status"], record["processed"], record["chunks_added"]) == ("complete", 3, len(chunk_ids(out)))


def test_rerun_skips_unchanged_documents_and_changes_nothing(tmp_path):
    corpus = tmp_path / "in"
    write_corpus(corpus, 3)
    out = tmp_path / "ds"
    do_run([corpus], out)
    before = table(out, "chunks").sort_by("chunk_id")
    again = do_run([corpus], out)
    assert (again.processed, again.skipped) == (0, 3)
    assert table(out, "chunks").sort_by("chunk_id").equals(before)
    assert changes(out, again.run_id) == {"add": set(), "remove": set(), "update": set()}
    assert [r["status"] for r in table(out, "runs").to_pylist()] == ["complete", "complete"]


def test_added_modified_removed_and_moved_documents(tmp_path):
    corpus = tmp_path / "in"
    a, b, c = write_corpus(corpus, 3)
    out = tmp_path / "ds"
    do_run([corpus], out)
    by_source = lambda: {  # noqa: E731
        s: {r["chunk_id"] for r in table(out, "chunks").to_pylist() if r["source"] == s}
        for s in {r["source"] for r in table(out, "chunks").to_pylist()}
    }
    old = by_source()

    b.write_bytes(report_pdf("Brand new text for b"))  # modified
    c.unlink()  # removed
    moved = corpus / "sub" / "a-renamed.pdf"
    moved.parent.mkdir()
    os.rename(a, moved)  # same bytes, new path
    d = corpus / "d.pdf"
    d.write_bytes(report_pdf("A fourth document"))  # added

    summary = do_run([corpus], out)
    assert (summary.processed, summary.moved, summary.removed, summary.skipped) == (2, 1, 1, 0)
    new = by_source()
    assert set(new) == {str(moved), str(b), str(d)}
    # Moved: same chunks under the ids of the new source (ids hash the source key).
    assert len(new[str(moved)]) == len(old[str(a)]) and new[str(moved)].isdisjoint(old[str(a)])
    docs = {r["source"]: r for r in table(out, "documents").to_pylist()}
    assert set(docs) == {str(moved), str(b), str(d)}
    log = changes(out, summary.run_id)
    assert log["add"] == new[str(b)] | new[str(d)] | new[str(moved)]
    assert log["remove"] == old[str(b)] | old[str(c)] | old[str(a)]
    assert log["update"] == set()
    # Replaying the log over the previous ids gives the current ids.
    assert (set().union(*old.values()) - log["remove"]) | log["add"] == chunk_ids(out)


def test_keep_missing_keeps_the_chunks_of_a_vanished_source(tmp_path):
    corpus = tmp_path / "in"
    a, b = write_corpus(corpus, 2)
    out = tmp_path / "ds"
    do_run([corpus], out)
    before = chunk_ids(out)
    b.unlink()
    summary = do_run([corpus], out, keep_missing=True)
    assert summary.removed == 0 and chunk_ids(out) == before


def test_identical_bytes_at_two_paths_are_one_document(tmp_path):
    corpus = tmp_path / "in"
    [a] = write_corpus(corpus, 1)
    copy = corpus / "z-copy.pdf"  # folders are read in name order: doc-00 comes first
    shutil.copy(a, copy)
    out = tmp_path / "ds"
    summary = do_run([corpus], out)
    assert summary.processed == 1
    [doc] = table(out, "documents").to_pylist()
    assert (doc["source"], doc["duplicate_sources"]) == (str(a), [str(copy)])
    ids = table(out, "chunks").column("chunk_id").to_pylist()
    assert len(ids) == len(set(ids))


def test_a_new_chunk_setting_or_mode_reprocesses_every_document(tmp_path):
    corpus = tmp_path / "in"
    write_corpus(corpus, 2)
    out = tmp_path / "ds"
    do_run([corpus], out)
    first = chunk_ids(out)
    smaller = Settings(chunk=ChunkConfig(max_tokens=64, overlap_tokens=8), pipeline=FAST.pipeline)
    summary = do_run([corpus], out, smaller)
    assert summary.processed == 2 and chunk_ids(out).isdisjoint(first)
    stream = Settings(chunk=smaller.chunk, pipeline=FAST.pipeline, mode="stream")
    summary = do_run([corpus], out, stream)
    assert summary.processed == 2
    assert set(table(out, "pages").column("mode").to_pylist()) == {"stream"}


def test_broken_and_unreadable_files_become_error_rows_and_the_run_goes_on(tmp_path):
    corpus = tmp_path / "in"
    write_corpus(corpus, 2)
    (corpus / "broken.pdf").write_bytes(BROKEN_PDF)
    (corpus / "empty.pdf").write_bytes(b"")
    out = tmp_path / "ds"
    summary = do_run([corpus], out)
    assert (summary.processed, summary.failed, summary.exit_code) == (4, 2, 3)
    docs = {Path(r["source"]).name: r for r in table(out, "documents").to_pylist()}
    for name in ("broken.pdf", "empty.pdf"):
        assert docs[name]["status"] == "error"
        assert docs[name]["error_type"] == "PDFReadError" and docs[name]["error_message"]
    assert {Path(s).name for s in table(out, "chunks").column("source").to_pylist()} == {"doc-00.pdf", "doc-01.pdf"}
    # A deterministic failure is not retried on the next run; --retry-errors does.
    assert do_run([corpus], out).processed == 0
    assert do_run([corpus], out, retry_errors=True).processed == 2


@pytest.mark.slow
def test_transient_failures_are_retried_up_to_max_attempts(tmp_path):
    corpus = tmp_path / "in"
    write_corpus(corpus, 1)
    (corpus / "stuck.pdf").write_bytes(report_pdf("Stuck"))
    out = tmp_path / "ds"

    def attempts_after_run(**kwargs) -> tuple[int, dict[str, tuple[str, int]]]:
        summary = do_run([corpus], out, handler=time_out_on_stuck, **kwargs)
        rows = table(out, "documents").to_pylist()
        return summary.processed, {Path(r["source"]).name: (r["status"], r["attempts"]) for r in rows}

    assert attempts_after_run() == (2, {"doc-00.pdf": ("ok", 1), "stuck.pdf": ("error", 1)})
    # The next runs try it again (pipeline.max_attempts = 3 in all), then leave it.
    assert attempts_after_run() == (1, {"doc-00.pdf": ("ok", 1), "stuck.pdf": ("error", 2)})
    assert attempts_after_run() == (1, {"doc-00.pdf": ("ok", 1), "stuck.pdf": ("error", 3)})
    assert attempts_after_run()[0] == 0
    # Asked for, it is tried again; read fine at last, it keeps its count.
    summary = do_run([corpus], out, retry_errors=True)
    assert summary.processed == 1
    stuck = [r for r in table(out, "documents").to_pylist() if r["source"].endswith("stuck.pdf")]
    assert [(r["status"], r["attempts"]) for r in stuck] == [("ok", 4)]
    # New bytes at the path are a new document: a first attempt.
    (corpus / "stuck.pdf").write_bytes(report_pdf("Stuck again"))
    assert attempts_after_run() == (1, {"doc-00.pdf": ("ok", 1), "stuck.pdf": ("error", 1)})


def test_cli_run_json_summary_exit_codes_and_export_round_trip(tmp_path):
    corpus = tmp_path / "in"
    write_corpus(corpus, 2)
    out = tmp_path / "ds"
    result = runner.invoke(app, ["run", str(corpus), "--out", str(out), "--format", "json", "--log-format", "json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["processed"] == 2 and summary["exit_code"] == 0

    exported = runner.invoke(app, ["export", str(out), "--format", "jsonl"])
    assert exported.exit_code == 0
    records = [json.loads(line) for line in exported.stdout.splitlines()]
    stored = {r["chunk_id"]: r for r in table(out, "chunks").to_pylist()}
    assert len(records) == len(stored)
    for record in records:
        row = stored[record["id"]]
        assert record["page_content"] == row["text"]
        assert record["metadata"] == {k: v for k, v in row.items() if k not in ("text", "chunk_id")}
    order = [(r["metadata"]["source"], r["metadata"]["index"]) for r in records]
    assert order == sorted(order)
    flat = runner.invoke(app, ["export", str(out), "--flat-metadata"])
    assert flat.exit_code == 0
    for record in map(json.loads, flat.stdout.splitlines()):
        assert all(isinstance(v, (str, int, float, bool)) for v in record["metadata"].values())
        assert json.loads(record["metadata"]["bboxes"]) == stored[record["id"]]["bboxes"]

    (corpus / "broken.pdf").write_bytes(BROKEN_PDF)
    result = runner.invoke(app, ["run", str(corpus), "--out", str(out), "--log-format", "json"])
    assert result.exit_code == 3
    assert "broken.pdf: PDFReadError" in result.stdout


def test_cli_usage_errors_exit_2_with_one_line(tmp_path):
    out = tmp_path / "ds"
    missing = runner.invoke(app, ["run", str(tmp_path / "nowhere"), "--out", str(out)])
    assert missing.exit_code == 2 and "no such file or folder" in missing.output
    assert not out.exists() or not (out / "chunks").exists()
    bad = tmp_path / "bad.toml"
    bad.write_text("[pipeline]\nworkerz = 2\n")
    result = runner.invoke(app, ["run", "--out", str(out), "--config", str(bad)])
    assert result.exit_code == 2 and "unknown setting pipeline.workerz" in result.output
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    result = runner.invoke(app, ["run", "--out", str(foreign)])
    assert result.exit_code == 2 and "not a ragprep dataset" in result.output
    assert runner.invoke(app, ["export", str(foreign)]).exit_code == 2


def test_config_show_prints_the_effective_configuration_it_can_read_back(tmp_path):
    custom = tmp_path / "custom.toml"
    custom.write_text("[chunk]\nmax_tokens = 300\n[pipeline]\nworkers = 3\n")
    result = runner.invoke(app, ["config", "show", "--config", str(custom)])
    assert result.exit_code == 0
    assert "max_tokens = 300" in result.stdout and "workers = 3" in result.stdout
    echoed = tmp_path / "echoed.toml"
    echoed.write_text(result.stdout)
    assert Settings.load(echoed) == Settings.load(custom)
    as_json = json.loads(runner.invoke(app, ["config", "show", "--format", "json"]).stdout)
    assert as_json["chunk"]["max_tokens"] == 512 and as_json["mode"] == "auto"
    bad = tmp_path / "bad.toml"
    bad.write_text("[pipelin]\nworkers = 3\n")
    result = runner.invoke(app, ["config", "show", "--config", str(bad)])
    assert result.exit_code == 2 and "unknown table [pipelin]" in result.output
    bad.write_text("[pipeline]\ntimeout_seconds = -1\n")
    result = runner.invoke(app, ["config", "show", "--config", str(bad)])
    assert result.exit_code == 2 and "pipeline.timeout_seconds must be positive" in result.output


def test_no_input_runs_the_bundled_samples(tmp_path):
    summary = do_run([], tmp_path / "ds")
    assert summary.processed == 3 and summary.failed == 0
    assert {Path(s).name for s in table(tmp_path / "ds", "documents").column("source").to_pylist()} == {
        "cjk-page.pdf",
        "tagged-two-column-article.pdf",
        "untagged-report.pdf",
    }


def test_json_log_lines_and_the_rich_progress_display(tmp_path):
    corpus = tmp_path / "in"
    write_corpus(corpus, 2)
    (corpus / "broken.pdf").write_bytes(BROKEN_PDF)
    result = runner.invoke(app, ["run", str(corpus), "--out", str(tmp_path / "a"), "--log-format", "json"])
    events = [json.loads(line) for line in result.stderr.splitlines()]
    assert [e["event"] for e in events][0] == "run_started" and events[-1]["event"] == "run_finished"
    documents = [e for e in events if e["event"] == "document"]
    assert len(documents) == 3 and len({e["run_id"] for e in events}) == 1
    [failed] = [e for e in documents if e["status"] == "error"]
    assert failed["error_type"] == "PDFReadError" and failed["source"].endswith("broken.pdf")
    rich = runner.invoke(app, ["run", str(corpus), "--out", str(tmp_path / "b"), "--log-format", "rich"])
    assert rich.exit_code == 3
    assert "extracting" in rich.stderr and "3/3" in rich.stderr and "1 error" in rich.stderr


def test_many_commits_are_compacted_and_no_row_is_lost(tmp_path, monkeypatch):
    import ragprep.pipeline.dataset as dataset_module

    monkeypatch.setattr(dataset_module, "MAX_PARTS", 4)
    corpus = tmp_path / "in"
    write_corpus(corpus, 9)
    every_document = Settings(pipeline=PipelineConfig(workers=1, commit_every_documents=1))
    summary = do_run([corpus], tmp_path / "ds", every_document)
    assert summary.processed == 9
    current = (tmp_path / "ds" / "chunks").resolve()
    assert len(list(current.glob("*.parquet"))) <= 4
    docs = table(tmp_path / "ds", "documents").to_pylist()
    assert sum(d["chunks"] for d in docs) == table(tmp_path / "ds", "chunks").num_rows
    assert len(chunk_ids(tmp_path / "ds")) == table(tmp_path / "ds", "chunks").num_rows


def test_a_new_ragprep_version_reprocesses_every_document(tmp_path, monkeypatch):
    import ragprep.pipeline.run as run_module

    corpus = tmp_path / "in"
    write_corpus(corpus, 2)
    do_run([corpus], tmp_path / "ds")
    monkeypatch.setattr(run_module, "pipeline_version", lambda: "99.0")
    summary = do_run([corpus], tmp_path / "ds")
    assert summary.processed == 2
    assert {d["pipeline_version"] for d in table(tmp_path / "ds", "documents").to_pylist()} == {"99.0"}
    assert do_run([corpus], tmp_path / "ds").processed == 0


def encrypted_report(title: str, password: str) -> bytes:
    b = PdfBuilder()
    font = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{font} 12 Tf 72 700 Td ({title} behind a password) Tj ET")
    return b.encrypted_bytes(user_password=password)


def test_password_file_opens_encrypted_documents_and_is_stored_nowhere(tmp_path):
    corpus = tmp_path / "in"
    write_corpus(corpus, 1)
    (corpus / "locked.pdf").write_bytes(encrypted_report("Quarterly numbers", "s3cret-Pa55"))
    (corpus / "other.pdf").write_bytes(encrypted_report("Other numbers", "not-in-the-file"))
    out = tmp_path / "ds"
    first = do_run([corpus], out)
    docs = {Path(r["source"]).name: r for r in table(out, "documents").to_pylist()}
    assert docs["locked.pdf"]["error_type"] == "EncryptedPDFError"
    assert docs["locked.pdf"]["error_message"].endswith("locked.pdf needs a password")
    assert (first.processed, first.failed) == (3, 2)

    # A rerun with passwords retries exactly the documents that needed one.
    summary = do_run([corpus], out, passwords=("wrong", "s3cret-Pa55"))
    assert (summary.processed, summary.failed) == (2, 1)
    docs = {Path(r["source"]).name: r for r in table(out, "documents").to_pylist()}
    assert docs["locked.pdf"]["status"] == "ok"
    assert docs["other.pdf"]["error_message"].endswith(
        "other.pdf needs a password: none of the 2 passwords tried open it"
    )
    texts = [r["text"] for r in table(out, "chunks").to_pylist() if r["source"].endswith("locked.pdf")]
    assert texts == ["Quarterly numbers behind a password"]
    for path in out.rglob("*"):
        if path.is_file():
            assert b"s3cret-Pa55" not in path.read_bytes(), path


def test_cli_password_file(tmp_path):
    corpus = tmp_path / "in"
    corpus.mkdir()
    (corpus / "locked.pdf").write_bytes(encrypted_report("Minutes", "pa ss"))
    passwords = tmp_path / "passwords.txt"
    passwords.write_text("# known passwords\n\nnope\npa ss\n")
    out = tmp_path / "ds"
    result = runner.invoke(
        app, ["run", str(corpus), "--out", str(out), "--password-file", str(passwords), "--log-format", "json"]
    )
    assert result.exit_code == 0, result.output
    assert "pa ss" not in result.output and "nope" not in result.output
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing yet\n")
    for path, message in ((empty, "holds no password"), (tmp_path / "absent.txt", "cannot read --password-file")):
        result = runner.invoke(app, ["run", str(corpus), "--out", str(out), "--password-file", str(path)])
        assert result.exit_code == 2 and message in result.output
