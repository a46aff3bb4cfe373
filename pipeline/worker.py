"""Worker processes: one task at a time, under a time and memory limit.

All multiprocessing of ragprep lives here. ``WorkerPool`` runs any ``Job``:
``ragprep run``'s ``DocumentJob`` (extract and chunk a document into dataset
rows) and ``ragprep compare``'s job (read a document in several modes and
measure it). Each worker is a process with a pipe; the parent hands it one
task and waits for its answer. A worker that overruns ``timeout_seconds`` is
killed; one that dies (a crash in a C library, the kernel's OOM killer) is
noticed through its sentinel. In both cases the job turns the task into a
failure answer (an error row) and a fresh worker takes the slot, so one bad
PDF never costs the run more than its own time.

The memory limit is the worker's address space (``RLIMIT_AS``): allocations
beyond it fail inside the worker as ``MemoryError``, which becomes a
``MemoryLimitError`` answer; the worker then retires, since a heap that ran
out mid-allocation is not worth trusting for the next task.

``concurrent.futures.ProcessPoolExecutor`` cannot kill one hung task and
treats a dead worker as a broken pool, which is why this is a small pool of
its own rather than an executor.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import multiprocessing.connection
import os
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from multiprocessing.context import ForkServerContext, SpawnContext
from typing import Generic, Protocol, TypeVar

from ragprep.chunk import chunk_document
from ragprep.chunk import Tokenizer
from ragprep.extract import DocumentInfo
from ragprep.extract import open_document
from ragprep.pipeline.config import PipelineConfig, Settings
# The answers the pool itself makes a job produce, and the error of a pool that cannot start.
from ragprep.pipeline.errors import (
    MemoryLimitError,
    PoolFailure,
    RagprepError,
    TimeoutError,
    WorkerDiedError,
    WorkerStartError,
)
from ragprep.pipeline.model import DocumentOutput, DocumentRow, DocumentTask
from ragprep.pipeline.records import chunk_batch, page_batch, table_batch

MIB = 1024 * 1024

# A worker says this once it is ready for tasks.
READY = "ready"
# How long a worker may take to start (imports, tokenizer) before the run gives up.
STARTUP_SECONDS = 120.0


def memory_limit_failure(max_memory_mb: int) -> MemoryLimitError:
    return MemoryLimitError(f"needed more than the worker's {max_memory_mb} MiB (pipeline.max_memory_mb)")


TaskT = TypeVar("TaskT")
AnswerT = TypeVar("AnswerT")
_TaskIn = TypeVar("_TaskIn", contravariant=True)


class Job(Protocol[_TaskIn, AnswerT]):
    """What a pool's workers do, and under which limits.

    A job is pickled into every worker it starts: make it a frozen dataclass
    whose callables are module-level functions (a worker imports them by name).
    """

    @property
    def limits(self) -> PipelineConfig:
        """Its ``timeout_seconds`` (wall-clock seconds one task may take before its
        worker is killed) and ``max_memory_mb`` (a worker's address space; 0: none)."""
        ...

    def prepare(self) -> Callable[[_TaskIn], AnswerT]:
        """Runs once in each new worker, before its memory limit applies: load what
        every task needs (the tokenizer) and return what answers one task."""
        ...

    def failure(self, task: _TaskIn, failure: PoolFailure, seconds: float) -> AnswerT:
        """The answer for a task its worker could not answer: ``failure`` is a
        TimeoutError, MemoryLimitError or WorkerDiedError whose message says what
        happened and which setting to change, ``seconds`` how long the task ran."""
        ...

    def retires_worker(self, answer: AnswerT) -> bool:
        """Whether the worker must stop after giving ``answer`` (its heap is suspect)."""
        ...


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
            # All pages together: running headers and footers are a document-level finding.
            result = document.read(settings.mode)
        chunks = chunk_document(result, doc_id=doc_id, source=task.key, config=settings.chunk, tokenizer=tokenizer)
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


# --------------------------------------------------------------------------- the pool


def _limit_memory(max_memory_mb: int) -> None:
    if max_memory_mb <= 0:
        return
    try:
        import resource
    except ImportError:  # not on POSIX: no address-space limit to set
        return
    limit = max_memory_mb * MIB
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@dataclass(frozen=True)
class _Reply(Generic[AnswerT]):
    """A worker's answer, and whether the worker stops after it."""

    answer: AnswerT
    retired: bool


def _worker_main(connection: multiprocessing.connection.Connection, job: Job[TaskT, AnswerT]) -> None:
    handle = job.prepare()
    _limit_memory(job.limits.max_memory_mb)
    connection.send(READY)
    while True:
        try:
            task = connection.recv()
        except EOFError:
            return
        if task is None:
            return
        started = time.perf_counter()
        try:
            answer = handle(task)
            retired = job.retires_worker(answer)
        except MemoryError:
            failure = memory_limit_failure(job.limits.max_memory_mb)
            answer, retired = job.failure(task, failure, time.perf_counter() - started), True
        connection.send(_Reply(answer, retired))
        if retired:
            return


def _context(job_module: str) -> ForkServerContext | SpawnContext:
    # forkserver: fast respawns without forking a parent that runs threads
    # (the progress display); spawn where forkserver does not exist.
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    # The server imports the stages and the job's module once; each worker
    # forked from it starts warm. (Only the first pool of a process starts the server.)
    context.set_forkserver_preload(list(dict.fromkeys([__name__, job_module])))
    return context


@dataclass
class _Slot(Generic[TaskT]):
    process: multiprocessing.process.BaseProcess
    connection: multiprocessing.connection.Connection
    task: TaskT | None = None
    index: int = 0  # of the task, in the order tasks were given
    deadline: float = 0.0
    started: float = 0.0
    ready: bool = False  # it said READY (it says so once)


class WorkerPool(Generic[TaskT, AnswerT]):
    """``workers`` processes answering ``job``'s tasks, each under the job's limits."""

    def __init__(self, job: Job[TaskT, AnswerT], workers: int) -> None:
        self._job = job
        self._mp = _context(type(job).__module__)
        self._workers = max(1, workers)
        self._timeout = job.limits.timeout_seconds
        self._slots: list[_Slot[TaskT]] = []

    def __enter__(self) -> "WorkerPool[TaskT, AnswerT]":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _spawn(self) -> _Slot[TaskT]:
        parent, child = self._mp.Pipe()
        process = self._mp.Process(target=_worker_main, args=(child, self._job), daemon=True)
        process.start()
        child.close()
        return _Slot(process, parent)

    def _await_ready(self, slot: _Slot[TaskT]) -> None:
        """A worker that dies before it is ready cannot read any document:
        stop the run with why, rather than turn every document into an error row."""
        if slot.ready:
            return
        ready = slot.connection.poll(STARTUP_SECONDS)
        try:
            message = slot.connection.recv() if ready else None
        except (EOFError, OSError):
            message = None
        if message != READY:
            slot.process.kill()
            slot.process.join(timeout=5)
            raise WorkerStartError(
                f"a worker process could not start (exit code {slot.process.exitcode}); "
                "run `ragprep` from the installed command, or see the messages above"
            )
        slot.ready = True

    def _start(self) -> _Slot[TaskT]:
        slot = self._spawn()
        self._await_ready(slot)
        return slot

    def _replace(self, slot: _Slot[TaskT]) -> None:
        if slot.process.is_alive():
            slot.process.kill()
        slot.process.join(timeout=5)
        slot.connection.close()
        self._slots[self._slots.index(slot)] = self._start()

    def imap(self, tasks: Iterable[TaskT]) -> Iterator[AnswerT]:
        """Run every task; yield each answer as soon as it is ready."""
        for _, answer in self._answers(tasks):
            yield answer

    def map(self, tasks: Iterable[TaskT]) -> list[AnswerT]:
        """Run every task; the answers in the order of the tasks."""
        numbered = sorted(self._answers(tasks), key=lambda pair: pair[0])
        return [answer for _, answer in numbered]

    def start(self, tasks: int | None = None) -> None:
        """Have the workers ready (as many as `tasks` needs, all by default);
        raises WorkerStartError when they cannot start. The workers stay for
        later calls of ``imap`` and ``map``: a pool answers many batches warm."""
        # Start them all, then wait: they load the tokenizer side by side.
        while len(self._slots) < min(self._workers, max(1, self._workers if tasks is None else tasks)):
            self._slots.append(self._spawn())
        for slot in self._slots:
            self._await_ready(slot)

    def _answers(self, tasks: Iterable[TaskT]) -> Iterator[tuple[int, AnswerT]]:
        """(position of the task, its answer) for every task, in completion order."""
        pending = deque(enumerate(tasks))
        self.start(len(pending))
        while True:
            for slot in self._slots:
                if slot.task is None and pending:
                    slot.index, slot.task = pending.popleft()
                    slot.started = time.monotonic()
                    slot.deadline = slot.started + self._timeout
                    slot.connection.send(slot.task)
            busy = [s for s in self._slots if s.task is not None]
            if not busy:
                return
            wait_for = max(0.0, min(s.deadline for s in busy) - time.monotonic())
            handles = [s.connection for s in busy] + [s.process.sentinel for s in busy]
            ready = set(multiprocessing.connection.wait(handles, timeout=wait_for))
            now = time.monotonic()
            for slot in busy:
                task, index = slot.task, slot.index
                assert task is not None
                if slot.connection in ready:
                    try:
                        reply: _Reply[AnswerT] = slot.connection.recv()
                        answer, retired = reply.answer, reply.retired
                    except (EOFError, OSError):
                        # The pipe closed before an answer: the worker died.
                        answer, retired = self._died(slot, task, now), True
                    slot.task = None
                    if retired:
                        self._replace(slot)
                    yield index, answer
                elif slot.process.sentinel in ready:
                    slot.task = None
                    answer = self._died(slot, task, now)
                    self._replace(slot)
                    yield index, answer
                elif now >= slot.deadline:
                    slot.task = None
                    self._replace(slot)
                    message = f"took longer than {self._timeout:g} s (pipeline.timeout_seconds); the worker was stopped"
                    yield index, self._job.failure(task, TimeoutError(message), now - slot.started)

    def _died(self, slot: _Slot[TaskT], task: TaskT, now: float) -> AnswerT:
        slot.process.join(timeout=5)
        code = slot.process.exitcode
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exited with status {code}"
        hint = " (out of memory?)" if code == -9 else ""
        message = f"the worker process {how}{hint} while reading this document"
        return self._job.failure(task, WorkerDiedError(message), now - slot.started)

    def close(self) -> None:
        for slot in self._slots:
            with contextlib.suppress(OSError, ValueError):  # its pipe is already closed
                slot.connection.send(None)
        deadline = time.monotonic() + 5
        for slot in self._slots:
            slot.process.join(timeout=max(0.0, deadline - time.monotonic()))
            if slot.process.is_alive():
                slot.process.kill()
                slot.process.join()
            slot.connection.close()
        self._slots.clear()
