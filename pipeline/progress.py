"""How a run reports itself: a rich progress bar on a terminal, JSON lines otherwise.

JSON log lines go to standard error, one object per event (``run_started``,
``document``, ``commit``, ``run_finished``), each with ``ts`` and ``run_id``:
what a log shipper or ``jq`` wants at 2 a.m.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import PurePath
from typing import IO, Any

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TaskID, TextColumn
from rich.text import Text

from ragprep.pipeline.dataset import CommitResult, DatasetHealth
from ragprep.pipeline.eta import CostModel
from ragprep.pipeline.model import DocumentOutput, DocumentTask
from ragprep.pipeline.run import DocumentError, Plan, RunSummary


def without_path(message: str, source: str) -> str:
    """``message`` without the path it starts with when that path names ``source``
    (as the input spelled it, or as the source key does): error messages begin with
    the file they are about, and the line that shows one names the source already."""
    name = PurePath(source).name
    at = message.find(name) if name else -1
    if at < 0:
        return message
    head = message[: at + len(name)]
    if not (source.endswith(head) or head.endswith(source)):
        return message
    return message[len(head) :].lstrip(":").strip() or message


def failure_text(source: str, error_type: str | None, message: str | None) -> str:
    """One failed document on one line, its path named once: ``SOURCE: TYPE: what went wrong``."""
    return f"{source}: {error_type}: {without_path(message or '', source)}"


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class _Elapsed(ProgressColumn):
    def render(self, task: Task) -> Text:
        return Text(f"elapsed {_clock(task.elapsed or 0.0)}", style="progress.elapsed")


class _Remaining(ProgressColumn):
    """Remaining time by the run's cost model (``ragprep.pipeline.eta``),
    counted down between documents."""

    def render(self, task: Task) -> Text:
        if task.finished:
            return Text("remaining 0:00:00", style="progress.remaining")
        until = task.fields.get("until")
        left = None if until is None else max(0.0, until - time.monotonic())
        return Text(f"remaining {'–:––:––' if left is None else '~' + _clock(left)}", style="progress.remaining")


def _sizes(tasks: Sequence[DocumentTask]) -> dict[str, int]:
    """Bytes of each task's file by source key (0 when it cannot be read: the worker says why)."""
    sizes = {}
    for task in tasks:
        try:
            sizes[task.key] = os.stat(task.path).st_size
        except OSError:
            sizes[task.key] = 0
    return sizes


class JsonLogReporter:
    def __init__(self, stream: IO[str] | None = None, *, per_document: bool = True) -> None:
        self._stream = stream or sys.stderr
        self._run_id = ""
        self._per_document = per_document

    def _emit(self, event: str, **fields: Any) -> None:
        record = {"ts": datetime.now(timezone.utc).isoformat(timespec="milliseconds"), "event": event}
        record["run_id"] = self._run_id
        record.update(fields)
        self._stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._stream.flush()

    def start(self, run_id: str, plan: Plan, workers: int) -> None:
        self._run_id = run_id
        self._emit(
            "run_started",
            inputs=plan.inputs,
            to_process=len(plan.tasks),
            skipped=plan.skipped,
            moved=len(plan.moves),
            removed=len(plan.removed),
            unreadable=len(plan.unreadable),
            workers=workers,
        )
        for skipped in plan.not_read:
            self._emit("input_skipped", path=str(skipped.path), reason=skipped.reason)

    def document(self, output: DocumentOutput) -> None:
        if not self._per_document:
            return
        row = output.row
        fields: dict[str, Any] = {
            "source": row.source,
            "doc_id": row.doc_id,
            "status": row.status,
            "pages": output.page_count,
            "chunks": output.chunk_count,
            "seconds": round(row.seconds, 3),
        }
        if not row.ok:
            fields.update(error_type=row.error_type, error_message=row.error_message, error_page=row.error_page)
        self._emit("document", **fields)

    def commit(self, result: CommitResult) -> None:
        self._emit(
            "commit",
            version=result.version,
            published=result.published,  # what readers see now (deferred commits: an earlier version)
            added=result.added,
            removed=result.removed,
            updated=result.updated,
        )

    def finish(self, summary: RunSummary) -> None:
        self._emit("run_finished", **summary_fields(summary))


class RichReporter:
    """Progress bar: documents, pages, chunks per second, errors; the bar goes
    by bytes read, the remaining time by the run's cost model. Each failure is
    printed once, as it happens."""

    def __init__(self, console: Console | None = None) -> None:
        self._console = console or Console(stderr=True)
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn(
                "{task.fields[docs]} docs · {task.fields[pages]} pages · {task.fields[rate]} chunks/s · "
                "{task.fields[errors]}"
            ),
            _Elapsed(),
            _Remaining(),
            console=self._console,
            transient=False,
        )
        self._task: TaskID | None = None
        self._pages = self._chunks = self._errors = self._documents = 0
        self._sizes: dict[str, int] = {}
        self._total_docs = 0
        self._started = time.monotonic()
        self._cost = CostModel(())

    def start(self, run_id: str, plan: Plan, workers: int) -> None:
        self._started = time.monotonic()
        self._console.print(
            f"run {run_id}: {plan.inputs} files; {len(plan.tasks)} to process, {plan.skipped} unchanged, "
            f"{len(plan.moves)} moved, {len(plan.removed)} removed; {workers} workers"
        )
        for skipped in plan.not_read:
            self._console.print(f"warning: not read: {skipped.path}: {skipped.reason}", style="yellow", markup=False)
        sizes = _sizes(plan.tasks)
        # By bytes; by documents only when no file has any (every size unknown).
        self._sizes = sizes if sum(sizes.values()) else dict.fromkeys(sizes, 1)
        self._total_docs = len(plan.tasks)
        self._cost = CostModel(sizes.values())
        self._progress.start()
        self._task = self._progress.add_task(
            "extracting", total=sum(self._sizes.values()), docs=f"0/{self._total_docs}",
            pages=0, rate="0.0", errors="no errors", until=None,
        )

    def document(self, output: DocumentOutput) -> None:
        self._pages += output.page_count
        self._chunks += output.chunk_count
        row = output.row
        if not row.ok:
            self._errors += 1
            self._progress.console.print(
                f"[red]error[/red] {failure_text(row.source, row.error_type, row.error_message)}",
                markup=True,
                highlight=False,
            )
        if self._task is not None and row.doc_id is not None:
            self._documents += 1
            now = time.monotonic()
            elapsed = max(now - self._started, 1e-9)
            size = self._sizes.pop(row.source, None)
            if size is not None:
                self._cost.done(size, row.seconds)
            left = self._cost.remaining(elapsed)
            self._progress.update(
                self._task,
                advance=size or 0,
                until=None if left is None else now + left,
                docs=f"{self._documents}/{self._total_docs}",
                pages=self._pages,
                rate=f"{self._chunks / elapsed:.1f}",
                errors={0: "no errors", 1: "1 error"}.get(self._errors, f"{self._errors} errors"),
            )

    def commit(self, result: CommitResult) -> None:
        pass

    def finish(self, summary: RunSummary) -> None:
        if self._task is not None:
            self._progress.update(self._task, completed=self._progress.tasks[0].total)
        self._progress.stop()
        self._console.print(summary_text(summary, failures_shown=True))


class QuietReporter:
    def start(self, run_id: str, plan: Plan, workers: int) -> None:
        pass

    def document(self, output: DocumentOutput) -> None:
        pass

    def commit(self, result: CommitResult) -> None:
        pass

    def finish(self, summary: RunSummary) -> None:
        pass


def summary_fields(summary: RunSummary) -> dict[str, Any]:
    """The summary as JSON-ready fields (errors as objects, the exit code included)."""
    fields = dataclasses.asdict(summary)
    fields["seconds"] = round(summary.seconds, 3)
    fields["not_read"] = [{"path": str(s.path), "reason": s.reason} for s in summary.not_read]
    fields["exit_code"] = summary.exit_code
    return fields


def _failure_lines(errors: Sequence[DocumentError], shown: bool) -> list[str]:
    if not errors:
        return []
    if shown:  # printed as they happened: say where to find them again
        return [f"  {len(errors)} failed: listed above, and in table 'documents' (status = 'error')"]
    return [f"  failed: {failure_text(e.source, e.error_type, e.message)}" for e in errors]


def summary_text(summary: RunSummary, *, failures_shown: bool = False) -> str:
    """The run's summary; ``failures_shown``: each failure was printed during the run."""
    lines = [
        f"{summary.dataset}: version {summary.version} — {summary.processed} processed, {summary.skipped} unchanged, "
        f"{summary.moved} moved, {summary.removed} removed, {summary.failed} failed; "
        f"{summary.pages} pages, {summary.chunks} chunks in {summary.seconds:.1f} s",
        f"chunk ids: +{summary.chunks_added} added, -{summary.chunks_removed} removed, "
        f"~{summary.chunks_updated} updated (table 'changes', run {summary.run_id})",
    ]
    lines.extend(_failure_lines(summary.errors, failures_shown))
    lines.extend(f"  not read: {s.path}: {s.reason}" for s in summary.not_read)
    if summary.standing is not None:
        lines.append(standing_text(summary.standing))
    return "\n".join(lines)


def standing_text(health: DatasetHealth) -> str:
    """What the dataset holds now, earlier runs' failures included: a rerun
    that processed nothing must not read as if every document were fine."""
    return (
        f"dataset: {health.documents} documents, {health.errors} with errors "
        f"(status = 'error' in table 'documents'{'; retry with --retry-errors' if health.errors else ''}), "
        f"{health.empty_documents} read with no chunk, {health.warned_pages} pages with warnings"
    )
