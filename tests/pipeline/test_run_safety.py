"""Nothing lost, nobody surprised (issue 12): inputs that name nothing, mass
removals, FIFOs among the inputs, readers during commits, the first commit,
and a summary that tells what the dataset holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as pads
import pytest
from pdfbuilder import PdfBuilder
from pipelinedocs import BROKEN_PDF, report_pdf, write_corpus
from typer.testing import CliRunner

from ragprep.pipeline.cli import app
from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.dataset import Dataset, snapshot
from ragprep.pipeline.hashing import NotRegularFileError, fingerprint_files
from ragprep.pipeline.inputs import InputError, resolve_inputs
from ragprep.pipeline.progress import QuietReporter, summary_text
from ragprep.pipeline.run import MassRemovalError, run
from ragprep.pipeline.schema import TABLES

runner = CliRunner()
FAST = Settings(pipeline=PipelineConfig(workers=2))
CLI = "from ragprep.pipeline.cli import main; main()"


def do_run(inputs, out: Path, settings: Settings = FAST, **kwargs):
    return run([str(i) for i in inputs], out, settings, QuietReporter(), **kwargs)


def read(root: Path, name: str) -> pa.Table:
    return pads.dataset(root / name, format="parquet").to_table()


def state(out: Path) -> tuple[int, list[str], list[str]]:
    """Version and stored ids: what must not move when a run stops early."""
    docs = sorted(read(out, "documents").column("doc_id").to_pylist())
    return Dataset(out).version, docs, sorted(read(out, "chunks").column("chunk_id").to_pylist())


# -- 1. an input that names no PDF, and mass removals ----------------------------


@pytest.mark.parametrize("leftover", [None, "README.txt"])
def test_a_folder_that_holds_no_pdf_stops_the_run_before_anything_is_removed(tmp_path, leftover):
    corpus = tmp_path / "share"
    paths = write_corpus(corpus, 2)
    out = tmp_path / "ds"
    do_run([corpus], out)
    before = state(out)
    for path in paths:
        path.unlink()  # the share came back empty
    if leftover:
        (corpus / leftover).write_text("not a pdf")
    result = runner.invoke(app, ["run", str(corpus), "--out", str(out), "--log-format", "json"])
    assert result.exit_code == 2
    assert "holds no PDF" in result.output
    assert state(out) == before


def test_a_glob_or_list_that_yields_no_pdf_names_nothing(tmp_path):
    (tmp_path / "docs").mkdir()
    with pytest.raises(InputError, match="matches no PDF"):
        resolve_inputs([str(tmp_path / "docs" / "*.pdf")])
    listing = tmp_path / "list.txt"
    listing.write_text("# nothing here yet\n\n")
    with pytest.raises(InputError, match="names no PDF"):
        resolve_inputs([f"@{listing}"])
    listing.write_text("docs\n")  # a listed folder with no PDF in it
    with pytest.raises(InputError, match="holds no PDF"):
        resolve_inputs([f"@{listing}"])


def test_inputs_that_lost_most_stored_documents_stop_unless_mass_removal_is_allowed(tmp_path):
    corpus = tmp_path / "in"
    paths = write_corpus(corpus, 4)
    out = tmp_path / "ds"
    do_run([corpus], out)
    before = state(out)
    for path in paths[1:]:
        path.unlink()  # 3 of 4 gone: 75% > 50%
    with pytest.raises(MassRemovalError, match="3 of the 4 stored documents"):
        do_run([corpus], out)
    assert state(out) == before
    result = runner.invoke(app, ["run", str(corpus), "--out", str(out), "--log-format", "json"])
    assert result.exit_code == 2 and "--allow-mass-removal" in result.output
    assert state(out) == before
    summary = do_run([corpus], out, allow_mass_removal=True)
    assert summary.removed == 3
    assert read(out, "documents").column("source").to_pylist() == [str(paths[0])]


def test_the_mass_removal_share_is_a_setting_and_half_is_allowed_by_default(tmp_path):
    corpus = tmp_path / "in"
    paths = write_corpus(corpus, 4)
    out = tmp_path / "ds"
    do_run([corpus], out)
    paths[3].unlink()
    strict = Settings(pipeline=PipelineConfig(workers=2, max_removal_share=0.2))
    with pytest.raises(MassRemovalError):
        do_run([corpus], out, strict)  # 1 of 4 = 25% > 20%
    paths[2].unlink()
    assert do_run([corpus], out).removed == 2  # 2 of 4 = 50%: not more than the default share


# -- 5. FIFOs and other non-regular files ------------------------------------------


def test_a_fifo_in_an_input_folder_is_skipped_with_a_warning_and_the_run_finishes(tmp_path):
    corpus = tmp_path / "in"
    write_corpus(corpus, 2)
    os.mkfifo(corpus / "pipe.pdf")  # opening it for reading would wait for a writer forever
    out = tmp_path / "ds"
    proc = subprocess.run(
        [sys.executable, "-c", CLI, "run", str(corpus), "--out", str(out), "--format", "json", "--log-format", "json"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["processed"] == 2
    assert summary["not_read"] == [{"path": str(corpus / "pipe.pdf"), "reason": "a FIFO, not a regular file"}]
    events = [json.loads(line) for line in proc.stderr.splitlines()]
    assert {"event": "input_skipped", "path": str(corpus / "pipe.pdf")}.items() <= next(
        e for e in events if e["event"] == "input_skipped"
    ).items()
    assert len(read(out, "documents")) == 2


def test_a_fifo_named_as_an_input_is_a_usage_error_and_one_met_while_hashing_an_error(tmp_path):
    fifo = tmp_path / "pipe.pdf"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="a FIFO, not a regular file"):
        resolve_inputs([str(fifo)])
    # A file that became a FIFO after the inputs were listed: read without blocking.
    [answer] = fingerprint_files([fifo], timeout_seconds=30)
    assert isinstance(answer, NotRegularFileError)


# -- 2. readers during commits --------------------------------------------------


@pytest.mark.slow
def test_readers_of_a_pinned_snapshot_never_fail_while_a_run_commits(tmp_path):
    corpus = tmp_path / "in"
    paths = write_corpus(corpus, 24)
    out = tmp_path / "ds"
    do_run([corpus], out)
    for i, path in enumerate(paths):  # every document changes: every commit rewrites parts
        path.write_bytes(report_pdf(f"Rewritten {i}"))
    config = tmp_path / "c.toml"
    config.write_text("[pipeline]\nworkers = 2\ncommit_every_documents = 1\n")
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "run", str(corpus), "--out", str(out), "--config", str(config),
         "--log-format", "json"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    reads: list[int] = []
    failures: list[str] = []
    versions: set[Path] = set()

    def reader() -> None:
        while proc.poll() is None:
            root = snapshot(out)
            try:
                chunks = read(root, "chunks")
                docs = read(root, "documents")
            except Exception as exc:  # noqa: BLE001 - any failure of a reader is what this counts
                failures.append(f"{type(exc).__name__}: {exc}")
                continue
            # One whole version: every chunk's document is there and counts it.
            counts: dict[str, int] = {}
            for doc_id in chunks.column("doc_id").to_pylist():
                counts[doc_id] = counts.get(doc_id, 0) + 1
            stored = dict(zip(docs.column("doc_id").to_pylist(), docs.column("chunks").to_pylist(), strict=True))
            if any(stored.get(d) != n for d, n in counts.items()):
                failures.append(f"mixed versions in {root}")
            versions.add(root)
            reads.append(1)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    proc.wait(timeout=600)
    for thread in threads:
        thread.join()
    assert proc.returncode == 0
    assert failures == []
    assert len(reads) >= 500, f"only {len(reads)} reads during the run: the run ended too soon to tell"
    assert len(versions) > 5  # the readers did meet many commits


def test_a_replaced_version_stays_for_the_grace_period_only(tmp_path):
    corpus = tmp_path / "in"
    [path] = write_corpus(corpus, 1)
    out = tmp_path / "ds"
    do_run([corpus], out)
    pinned = snapshot(out)
    path.write_bytes(report_pdf("Changed"))
    do_run([corpus], out)
    assert snapshot(out) != pinned and read(pinned, "chunks").num_rows > 0  # still readable
    path.write_bytes(report_pdf("Changed again"))
    no_grace = Settings(pipeline=PipelineConfig(workers=2, version_grace_seconds=0))
    do_run([corpus], out, no_grace)
    assert not pinned.exists()
    assert [p.name for p in (out / ".ragprep" / "versions").iterdir()] == [snapshot(out).name]


# -- 10. the first commit, and what the summary says ------------------------------


def test_a_new_dataset_is_readable_before_its_first_run_commits(tmp_path):
    out = tmp_path / "ds"
    with Dataset.open(out):
        pass  # a run killed right after opening its dataset, before planning ended
    for name, schema in TABLES.items():
        table = read(out, name)
        assert table.num_rows == 0 and table.schema.remove_metadata().equals(schema.remove_metadata()), name
    assert [p.name for p in tmp_path.iterdir()] == ["ds"]  # no staging folder left behind


def test_the_summary_reports_standing_errors_empty_documents_and_warned_pages(tmp_path):
    corpus = tmp_path / "in"
    write_corpus(corpus, 1)
    (corpus / "broken.pdf").write_bytes(BROKEN_PDF)
    b = PdfBuilder()
    font = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{font} 12 Tf 72 700 Td (Hello) Tj /NoSuchFont 12 Tf (x) Tj ET")  # a page with warnings
    (corpus / "warned.pdf").write_bytes(b.to_bytes())
    blank = PdfBuilder()
    blank.add_page("")
    (corpus / "blank.pdf").write_bytes(blank.to_bytes())
    out = tmp_path / "ds"
    first = do_run([corpus], out)
    assert first.exit_code == 3
    rerun = do_run([corpus], out)
    assert (rerun.processed, rerun.failed, rerun.exit_code) == (0, 0, 0)
    assert rerun.standing is not None
    assert (rerun.standing.documents, rerun.standing.errors) == (4, 1)
    assert (rerun.standing.empty_documents, rerun.standing.warned_pages) == (1, 1)
    text = summary_text(rerun)
    assert "1 with errors" in text and "1 read with no chunk" in text and "1 pages with warnings" in text
    strict = runner.invoke(app, ["run", str(corpus), "--out", str(out), "--strict", "--format", "json", "--log-format", "json"])
    assert strict.exit_code == 3
    relaxed = runner.invoke(app, ["run", str(corpus), "--out", str(out), "--format", "json", "--log-format", "json"])
    assert relaxed.exit_code == 0
    fields = json.loads(relaxed.stdout.splitlines()[-1])
    assert fields["standing"] == {"documents": 4, "errors": 1, "empty_documents": 1, "warned_pages": 1}
