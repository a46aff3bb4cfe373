"""How a run reports itself: a rich progress bar on a terminal, JSON lines otherwise.

JSON log lines go to standard error, one object per event (``run_started``,
``document``, ``commit``, ``run_finished``), each with ``ts`` and ``run_id``:
what a log shipper or ``jq`` wants at 2 a.m.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from datetime import datetime, timezone
from typing import IO, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ragprep.pipeline.dataset import CommitResult, DatasetHealth
from ragprep.pipeline.model import DocumentOutput
from ragprep.pipeline.run import Plan, RunSummary


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
            "commit", version=result.version, added=result.added, removed=result.removed, updated=result.updated
        )

    def finish(self, summary: RunSummary) -> None:
        self._emit("run_finished", **summary_fields(summary))


class RichReporter:
    """Progress bar: documents, pages, chunks per second, errors."""

    def __init__(self, console: Console | None = None) -> None:
        self._console = console or Console(stderr=True)
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("docs · {task.fields[pages]} pages · {task.fields[rate]} chunks/s · {task.fields[errors]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=self._console,
            transient=False,
        )
        self._task = None
        self._pages = self._chunks = self._errors = 0
        self._started = time.monotonic()

    def start(self, run_id: str, plan: Plan, workers: int) -> None:
        self._started = time.monotonic()
        self._console.print(
            f"run {run_id}: {plan.inputs} files; {len(plan.tasks)} to process, {plan.skipped} unchanged, "
            f"{len(plan.moves)} moved, {len(plan.removed)} removed; {workers} workers"
        )
        for skipped in plan.not_read:
            self._console.print(f"warning: not read: {skipped.path}: {skipped.reason}", style="yellow", markup=False)
        self._progress.start()
        self._task = self._progress.add_task("extracting", total=len(plan.tasks), pages=0, rate="0.0", errors="no errors")

    def document(self, output: DocumentOutput) -> None:
        self._pages += output.page_count
        self._chunks += output.chunk_count
        if not output.row.ok:
            self._errors += 1
            self._progress.console.print(
                f"[red]error[/red] {output.row.source}: {output.row.error_type}: {output.row.error_message}",
                markup=True,
                highlight=False,
            )
        if self._task is not None and output.row.doc_id is not None:
            elapsed = max(time.monotonic() - self._started, 1e-9)
            self._progress.update(
                self._task,
                advance=1,
                pages=self._pages,
                rate=f"{self._chunks / elapsed:.1f}",
                errors={0: "no errors", 1: "1 error"}.get(self._errors, f"{self._errors} errors"),
            )

    def commit(self, result: CommitResult) -> None:
        pass

    def finish(self, summary: RunSummary) -> None:
        self._progress.stop()
        self._console.print(summary_text(summary))


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


def summary_text(summary: RunSummary) -> str:
    lines = [
        f"{summary.dataset}: version {summary.version} — {summary.processed} processed, {summary.skipped} unchanged, "
        f"{summary.moved} moved, {summary.removed} removed, {summary.failed} failed; "
        f"{summary.pages} pages, {summary.chunks} chunks in {summary.seconds:.1f} s",
        f"chunk ids: +{summary.chunks_added} added, -{summary.chunks_removed} removed, "
        f"~{summary.chunks_updated} updated (table 'changes', run {summary.run_id})",
    ]
    lines.extend(f"  failed: {e.source}: {e.error_type}: {e.message}" for e in summary.errors)
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
