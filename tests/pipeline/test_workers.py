"""Workers under limits: a hung, crashed or memory-hungry document is one error
row, its worker is replaced, and the rest of the run is unaffected."""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow.dataset as pads
import pytest
from pipelinedocs import allocate_on_big, die_on_crash, hang_on_slow, write_corpus
from heldrun import run_holding_one

from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.progress import QuietReporter
from ragprep.pipeline.run import run


def documents(dataset: Path) -> dict[str, dict]:
    rows = pads.dataset(dataset / "documents", format="parquet").to_table().to_pylist()
    return {Path(r["source"]).name: r for r in rows}


def corpus_with(tmp_path: Path, odd_name: str) -> Path:
    folder = tmp_path / "in"
    write_corpus(folder, 3)
    (folder / odd_name).write_bytes((folder / "doc-00.pdf").read_bytes() + b"\n% a different document\n")
    return folder


@pytest.mark.slow
def test_a_hung_document_times_out_and_the_others_finish(tmp_path):
    folder = corpus_with(tmp_path, "slow.pdf")
    settings = Settings(pipeline=PipelineConfig(workers=2, timeout_seconds=4))
    summary = run([str(folder)], tmp_path / "ds", settings, QuietReporter(), handler=hang_on_slow)
    assert (summary.processed, summary.failed, summary.exit_code) == (4, 1, 3)
    docs = documents(tmp_path / "ds")
    assert docs["slow.pdf"]["error_type"] == "TimeoutError"
    assert "pipeline.timeout_seconds" in docs["slow.pdf"]["error_message"]
    assert all(docs[f"doc-0{i}.pdf"]["status"] == "ok" for i in range(3))


def test_a_worker_that_dies_is_replaced_and_the_document_is_an_error_row(tmp_path):
    folder = corpus_with(tmp_path, "crash.pdf")
    settings = Settings(pipeline=PipelineConfig(workers=1))
    summary = run([str(folder)], tmp_path / "ds", settings, QuietReporter(), handler=die_on_crash)
    assert (summary.processed, summary.failed) == (4, 1)
    docs = documents(tmp_path / "ds")
    assert docs["crash.pdf"]["error_type"] == "WorkerDiedError"
    assert "exited with status 70" in docs["crash.pdf"]["error_message"]
    # One worker: the documents after the crash ran in its replacement.
    assert all(docs[f"doc-0{i}.pdf"]["status"] == "ok" for i in range(3))
    # A dead worker is transient: the next run retries that document only.
    assert run([str(folder)], tmp_path / "ds", settings, QuietReporter(), handler=die_on_crash).processed == 1


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced this way on Linux only")
def test_a_document_past_the_memory_limit_is_an_error_row(tmp_path):
    folder = corpus_with(tmp_path, "big.pdf")
    # A worker starts at about 0.4 GiB of address space; 1.5 GiB more only fits without the limit.
    unlimited = Settings(pipeline=PipelineConfig(workers=1, max_memory_mb=0))
    summary = run([str(folder)], tmp_path / "free", unlimited, QuietReporter(), handler=allocate_on_big)
    assert summary.failed == 0
    limited = Settings(pipeline=PipelineConfig(workers=1, max_memory_mb=1024))
    summary = run([str(folder)], tmp_path / "ds", limited, QuietReporter(), handler=allocate_on_big)
    assert (summary.processed, summary.failed) == (4, 1)
    docs = documents(tmp_path / "ds")
    assert docs["big.pdf"]["error_type"] == "MemoryLimitError"
    assert "pipeline.max_memory_mb" in docs["big.pdf"]["error_message"]
    assert all(docs[f"doc-0{i}.pdf"]["status"] == "ok" for i in range(3))


def test_workers_that_cannot_start_stop_the_run_instead_of_failing_every_document(tmp_path, monkeypatch):
    from ragprep.chunk import ChunkConfig
    from ragprep.pipeline.errors import WorkerStartError

    folder = tmp_path / "in"
    write_corpus(folder, 2)
    # The worker loads the tokenizer before it says it is ready; this one cannot.
    # The configuration check at load would stop it first: here the parent
    # accepts the encoding (as with a tokenizer cache only the parent sees).
    monkeypatch.setattr("ragprep.chunk.tokens.encoding_problem", lambda name: None)
    broken = Settings(chunk=ChunkConfig(encoding="no_such_encoding"), pipeline=PipelineConfig(workers=2))
    with pytest.raises(WorkerStartError, match="could not start"):
        run([str(folder)], tmp_path / "ds", broken, QuietReporter())
    # Nothing was written as if those documents had failed.
    rows = pads.dataset(tmp_path / "ds" / "documents", format="parquet").to_table()
    assert rows.num_rows == 0


def test_one_long_document_does_not_hold_back_the_commits_and_publishes_of_the_others(tmp_path):
    held = run_holding_one(tmp_path)
    assert held.published_while_held == {"doc-00.pdf", "doc-01.pdf", "doc-02.pdf"}
    assert (held.summary.processed, held.summary.failed) == (4, 0)
