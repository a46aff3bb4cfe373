"""``ragprep run``'s per-document stage, as a job of the worker pool (pool.py).

``process_document`` extracts and chunks one document into its dataset rows
(any failure an error row); ``DocumentJob`` hands it to ``WorkerPool``'s
workers under the run's limits; ``RunContext`` is what every row of a run
shares. The pool itself (processes, limits, failures) knows nothing of this.
"""

from __future__ import annotations

import hashlib
import os
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ragprep.chunk import Tokenizer, read_and_chunk
from ragprep.extract import DocumentInfo, open_document
from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.errors import PoolFailure, RagprepError
from ragprep.pipeline.model import DocumentOutput, DocumentRow, DocumentTask
from ragprep.pipeline.pool import memory_limit_failure
from ragprep.pipeline.records import chunk_batch, page_batch, table_batch


# --------------------------------------------------------------------------- ragprep run's job


@dataclass(frozen=True)
class RunContext:
    """What every document row of a run shares."""

    run_id: str
    pipeline_version: str
    settings: Settings
    # Tried in turn on documents that need a password (--password-file). Kept
    # in memory only: no table, log line or repr ever shows them.
    passwords: tuple[str, ...] = field(default=(), repr=False)

    def row(
        self,
        task: DocumentTask,
        *,
        status: str = "ok",
        error_type: str | None = None,
        error_message: str | None = None,
        error_page: int | None = None,
        size: int | None = None,
        pages: int | None = None,
        info: DocumentInfo | None = None,
        chunks: int = 0,
        seconds: float = 0.0,
    ) -> DocumentRow:
        """The document's row; ``size`` is its bytes. A task with no doc_id
        (a source that could not be read to hash) gets a null one."""
        return DocumentRow(
            doc_id=task.doc_id or None,
            source=task.key,
            duplicate_sources=list(task.duplicate_sources),
            bytes=size,
            pages=pages,
            producer=info.producer if info is not None else None,
            tagged=info.tagged if info is not None else None,
            status=status,
            error_type=error_type,
            error_message=error_message,
            error_page=error_page,
            attempts=task.attempt,
            chunks=chunks,
            seconds=seconds,
            mode=self.settings.mode.value,
            pipeline_version=self.pipeline_version,
            config_hash=self.settings.key_hash,
            run_id=self.run_id,
            processed_at=datetime.now(timezone.utc),
        )

    def error(
        self,
        task: DocumentTask,
        error_type: str,
        message: str,
        *,
        error_page: int | None = None,
        size: int | None = None,
        seconds: float = 0.0,
    ) -> DocumentOutput:
        row = self.row(
            task, status="error", error_type=error_type, error_message=message, error_page=error_page,
            size=size, seconds=seconds,
        )  # fmt: skip
        return DocumentOutput(row)

    def failure(
        self, task: DocumentTask, failure: PoolFailure, *, size: int | None = None, seconds: float = 0.0
    ) -> DocumentOutput:
        """The error row of a document its worker could not answer for."""
        return self.error(task, failure.error_type(), str(failure), size=size, seconds=seconds)


def process_document(task: DocumentTask, context: RunContext, tokenizer: Tokenizer) -> DocumentOutput:
    """Extract and chunk one document; any failure becomes an error row."""
    settings = context.settings
    started = time.perf_counter()
    try:
        with open(task.path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return context.error(task, "OSError", f"{task.path}: cannot read: {exc.strerror}")
    # The bytes read now are the document, even if the file changed since planning.
    doc_id = hashlib.sha256(data).hexdigest()
    if doc_id != task.doc_id:
        # Other bytes than planned: a new document, at its first attempt.
        task = DocumentTask(task.path, doc_id, task.duplicate_sources, source=task.source)
    try:
        # Opened by path so that errors name the file; `data` gave the doc_id.
        with open_document(task.path, passwords=context.passwords, config=settings.extract) as document:
            info = document.info
            result, chunks = read_and_chunk(
                document, settings.mode, doc_id=doc_id, source=task.key, config=settings.chunk, tokenizer=tokenizer
            )
        chunk_rows = chunk_batch(chunks)
        page_rows = page_batch(doc_id, task.key, result.pages)
        table_rows = table_batch(doc_id, task.key, result.pages)
    except MemoryError:
        return memory_limit_output(task, context, size=len(data), seconds=time.perf_counter() - started)
    except Exception as exc:  # noqa: BLE001 - a bug on one document must not stop the run
        return _error_output(task, context, exc, size=len(data), seconds=time.perf_counter() - started)
    row = context.row(
        task, size=len(data), pages=result.page_count, info=info, chunks=len(chunks),
        seconds=time.perf_counter() - started,
    )  # fmt: skip
    return DocumentOutput(row, chunk_rows, page_rows, table_rows)


def _error_output(task: DocumentTask, context: RunContext, exc: Exception, *, size: int, seconds: float) -> DocumentOutput:
    """A typed error row. Our own errors (RagprepError) carry a message a user
    can act on; anything else is a bug met on this file, reported with where."""
    message = str(exc)
    if not isinstance(exc, RagprepError):
        where = traceback.extract_tb(exc.__traceback__)[-1]
        message = f"{exc} (at {os.path.basename(where.filename)}:{where.lineno}; please report this file)"
    # An exception that knows the page it met may say so in a `page` attribute.
    page = getattr(exc, "page", None)
    return context.error(task, type(exc).__name__, message, error_page=page, size=size, seconds=seconds)


def memory_limit_output(
    task: DocumentTask, context: RunContext, *, size: int | None = None, seconds: float = 0.0
) -> DocumentOutput:
    failure = memory_limit_failure(context.settings.pipeline.max_memory_mb)
    row = context.failure(task, failure, size=size, seconds=seconds).row
    return DocumentOutput(row, retire_worker=True)


# What a worker of `ragprep run` does with a task; replaceable so tests can make a worker hang or die.
Handler = Callable[[DocumentTask, RunContext, Tokenizer], DocumentOutput]


@dataclass(frozen=True)
class DocumentJob:
    """``ragprep run``'s job: extract and chunk one document into its dataset rows."""

    context: RunContext
    handler: Handler = process_document

    @property
    def limits(self) -> PipelineConfig:
        return self.context.settings.pipeline

    def prepare(self) -> Callable[[DocumentTask], DocumentOutput]:
        tokenizer = Tokenizer.load(self.context.settings.chunk.tokenizer_name)

        def handle(task: DocumentTask) -> DocumentOutput:
            return self.handler(task, self.context, tokenizer)

        return handle

    def failure(self, task: DocumentTask, failure: PoolFailure, seconds: float) -> DocumentOutput:
        return self.context.failure(task, failure, seconds=seconds)

    def retires_worker(self, answer: DocumentOutput) -> bool:
        return answer.retire_worker
