"""Worker processes: one task at a time, under a time and memory limit.

All multiprocessing of ragprep lives here, and nothing of ragprep's documents:
``WorkerPool`` runs any ``Job``:
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
import multiprocessing
import multiprocessing.connection
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.context import ForkServerContext, SpawnContext
from typing import Generic, Protocol, TypeVar

from ragprep.pipeline.config import PipelineConfig
# The answers the pool itself makes a job produce, and the error of a pool that cannot start.
from ragprep.pipeline.errors import MemoryLimitError, PoolFailure, TimeoutError, WorkerDiedError, WorkerStartError

MIB = 1024 * 1024

# A worker says this once it is ready for tasks.
READY = "ready"
# How long a worker may take to start (imports, tokenizer) before the run gives up.
STARTUP_SECONDS = 120.0


@dataclass(frozen=True)
class IdleTick:
    """A call the consumer of ``imap`` wants made at least every `seconds`
    while the workers are busy and no answer comes: a run commits and
    publishes what finished on time even while one long document holds the
    stream of answers up. Made in the consumer's thread, between answers."""

    seconds: float
    call: Callable[[], None]


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

    def imap(self, tasks: Iterable[TaskT], idle: IdleTick | None = None) -> Iterator[AnswerT]:
        """Run every task; yield each answer as soon as it is ready (calling
        `idle` while none comes)."""
        for _, answer in self._answers(tasks, idle):
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

    def _answers(self, tasks: Iterable[TaskT], idle: IdleTick | None = None) -> Iterator[tuple[int, AnswerT]]:
        """(position of the task, its answer) for every task, in completion order."""
        pending = deque(enumerate(tasks))
        self.start(len(pending))
        tick = time.monotonic() + idle.seconds if idle else float("inf")
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
            wait_for = max(0.0, min(min(s.deadline for s in busy), tick) - time.monotonic())
            handles = [s.connection for s in busy] + [s.process.sentinel for s in busy]
            ready = set(multiprocessing.connection.wait(handles, timeout=wait_for))
            now = time.monotonic()
            if idle and not ready and now >= tick:
                idle.call()
                tick = time.monotonic() + idle.seconds
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
