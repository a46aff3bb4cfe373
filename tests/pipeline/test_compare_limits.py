"""`ragprep compare` under the worker limits of `ragprep run`: a hung, crashed or
memory-hungry document is one ``DocumentError`` naming what to change, and the other
documents are measured as usual.

The misbehaving handlers live at module level: the forkserver workers import them by
module name (this module is on their ``sys.path`` because pytest put it there before
the first worker started).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest
import typer
from pipelinedocs import report_pdf
from typer.testing import CliRunner

from ragprep.chunk import Tokenizer
from ragprep.pipeline.compare import run as compare_run
from ragprep.pipeline.compare.cli import compare
from ragprep.pipeline.compare.measure import CompareResult, DocumentError
from ragprep.pipeline.compare.run import (
    CompareSettings,
    CompareTask,
    DocumentOutcome,
    compare_documents,
    compare_one,
)
from ragprep.pipeline.config import PipelineConfig, Settings

MODES = ("structure", "layout", "stream")


def hang_on_slow(task: CompareTask, settings: CompareSettings, tokenizer: Tokenizer) -> DocumentOutcome:
    if "slow" in task.path.name:
        time.sleep(3600)
    return compare_one(task, settings, tokenizer)


def exit_on_crash(task: CompareTask, settings: CompareSettings, tokenizer: Tokenizer) -> DocumentOutcome:
    """Ends its own worker on files named *crash*, as a segfault in a C library would."""
    if "crash" in task.path.name:
        os._exit(70)
    return compare_one(task, settings, tokenizer)


def kill_on_crash(task: CompareTask, settings: CompareSettings, tokenizer: Tokenizer) -> DocumentOutcome:
    """SIGKILLs its own worker on files named *crash*, as the kernel's OOM killer would."""
    if "crash" in task.path.name:
        os.kill(os.getpid(), signal.SIGKILL)
    return compare_one(task, settings, tokenizer)


BIG_ALLOCATION = 1536 * 1024 * 1024


def allocate_on_big(task: CompareTask, settings: CompareSettings, tokenizer: Tokenizer) -> DocumentOutcome:
    """Allocates 1.5 GiB on files named *big*: fine without a memory limit, a
    MemoryError under a 1 GiB address-space limit."""
    if "big" in task.path.name:
        hog = bytearray(BIG_ALLOCATION)
        hog[-1] = 1
        del hog
    return compare_one(task, settings, tokenizer)


def late_on_first(task: CompareTask, settings: CompareSettings, tokenizer: Tokenizer) -> DocumentOutcome:
    """Finishes files named *first* after the others (well within the time limit)."""
    if "first" in task.path.name:
        time.sleep(1.0)
    return compare_one(task, settings, tokenizer)


def three_documents(folder: Path, odd: str) -> list[Path]:
    """doc-a.pdf, `odd`, doc-c.pdf: three small distinct reports, in this order."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / "doc-a.pdf", folder / odd, folder / "doc-c.pdf"]
    for path in paths:
        path.write_bytes(report_pdf(path.stem.title()))
    return paths


def limited(**limits: object) -> CompareSettings:
    return CompareSettings(modes=MODES, run=Settings(pipeline=PipelineConfig(**limits)))  # type: ignore[arg-type]


def assert_measured(result: CompareResult, paths: list[Path]) -> None:
    assert [d.source for d in result.documents] == [str(p) for p in paths]
    for document in result.documents:
        # Untagged reports: structure reads no page, layout and stream read every word.
        words = {m.mode: m.words for m in document.metrics}
        assert words["structure"] == 0 and words["layout"] == words["stream"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_a_hung_document_times_out_and_the_others_are_measured(tmp_path, workers):
    a, slow, c = three_documents(tmp_path, "slow.pdf")
    started = time.monotonic()
    result = compare_documents([a, slow, c], limited(timeout_seconds=2), workers=workers, handler=hang_on_slow)
    assert time.monotonic() - started < 60  # the hour-long sleep was cut short
    assert_measured(result, [a, c])
    (error,) = result.errors
    assert error.source == str(slow)
    assert error.message == (
        f"{slow}: TimeoutError: took longer than 2 s (pipeline.timeout_seconds); the worker was stopped"
    )


@pytest.mark.parametrize(
    "handler, how",
    [(exit_on_crash, "exited with status 70"), (kill_on_crash, "killed by signal 9 (out of memory?)")],
)
def test_a_document_that_kills_its_worker_is_an_error_and_the_others_are_measured(tmp_path, handler, how):
    a, crash, c = three_documents(tmp_path, "crash.pdf")
    # One worker: the document after the crash runs in its replacement.
    result = compare_documents([a, crash, c], limited(), workers=1, handler=handler)
    assert_measured(result, [a, c])
    (error,) = result.errors
    assert error == DocumentError(
        str(crash),
        f"{crash}: WorkerDiedError: the worker process {how} while reading this document; "
        "if the system ran out of memory, lower pipeline.max_memory_mb or --workers",
    )


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced this way on Linux only")
def test_a_document_past_the_memory_limit_is_an_error_and_the_others_are_measured(tmp_path):
    a, big, c = three_documents(tmp_path, "big.pdf")
    # The allocation itself is fine without a limit...
    free = compare_documents([a, big, c], limited(max_memory_mb=0), workers=1, handler=allocate_on_big)
    assert (len(free.documents), free.errors) == (3, ())
    # ...and past a 1 GiB one (a worker starts at about 0.4 GiB of address space).
    result = compare_documents([a, big, c], limited(max_memory_mb=1024), workers=1, handler=allocate_on_big)
    assert_measured(result, [a, c])
    (error,) = result.errors
    assert error == DocumentError(
        str(big), f"{big}: MemoryLimitError: needed more than the worker's 1024 MiB (pipeline.max_memory_mb)"
    )


def test_a_memory_error_is_left_to_the_worker_not_reported_as_a_read_error(tmp_path, monkeypatch):
    path = three_documents(tmp_path, "doc-b.pdf")[0]

    def out_of_memory(*args: object) -> None:
        raise MemoryError

    monkeypatch.setattr(compare_run, "read_modes", out_of_memory)
    with pytest.raises(MemoryError):
        compare_one(CompareTask(path, (), None), limited(), Tokenizer.load("cl100k_base"))


def test_results_keep_the_order_of_the_inputs(tmp_path):
    paths = three_documents(tmp_path, "first.pdf")
    first = paths.pop(1)
    paths.insert(0, first)
    # Two workers: the first document finishes last.
    result = compare_documents(paths, limited(), workers=2, handler=late_on_first)
    assert (result.errors, [d.source for d in result.documents]) == ((), [str(p) for p in paths])


def test_in_process_reads_the_documents_without_workers(tmp_path):
    paths = three_documents(tmp_path, "doc-b.pdf")
    result = compare_documents(paths, limited(), workers=compare_run.IN_PROCESS)
    assert_measured(result, paths)


# --------------------------------------------------------------------------- CLI

app = typer.Typer()
app.command()(compare)
runner = CliRunner()


def test_the_cli_takes_the_limits_from_the_pipeline_table(tmp_path, monkeypatch):
    paths = three_documents(tmp_path / "in", "doc-b.pdf")
    config = tmp_path / "limits.toml"
    config.write_text("[pipeline]\nworkers = 3\ntimeout_seconds = 7.5\nmax_memory_mb = 512\n", encoding="utf-8")
    calls = []

    def record(paths, settings, *, datasets, gold, workers):
        calls.append((len(paths), settings.pipeline, workers))
        return CompareResult(modes=settings.modes, documents=())

    monkeypatch.setattr(compare_run, "compare_documents", record)
    assert runner.invoke(app, [str(tmp_path / "in"), "--config", str(config)]).exit_code == 0
    assert runner.invoke(app, [str(tmp_path / "in"), "--config", str(config), "-j", "2"]).exit_code == 0
    limits = PipelineConfig(workers=3, timeout_seconds=7.5, max_memory_mb=512)
    assert calls == [(len(paths), limits, 3), (len(paths), limits, 2)]


def test_workers_that_cannot_start_exit_1_with_why(tmp_path, monkeypatch):
    three_documents(tmp_path / "in", "doc-b.pdf")
    config = tmp_path / "broken.toml"
    # A worker loads the tokenizer before it says it is ready; this one cannot.
    # The configuration check at load would stop it first: here the parent
    # accepts the encoding (as with a tokenizer cache only the parent sees).
    monkeypatch.setattr("ragprep.chunk.tokens.encoding_problem", lambda name: None)
    config.write_text('[chunk]\nencoding = "no_such_encoding"\n', encoding="utf-8")
    result = runner.invoke(app, [str(tmp_path / "in"), "--config", str(config), "--workers", "1"])
    assert result.exit_code == 1
    assert result.stderr.startswith("ragprep: a worker process could not start")
