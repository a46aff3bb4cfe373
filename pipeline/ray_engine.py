"""Ray as the run's engine (``ragprep run --engine ray``): the per-document stage on a cluster.

The driver stays one process on one machine: it plans, commits and logs
changes exactly as with the local pool (``ragprep.pipeline.run``). Ray only
answers its tasks. Each Ray actor holds a ``WorkerPool`` of one process, so a
task runs under the very limits of a local run: the pool kills a task past
``pipeline.timeout_seconds``, sets ``pipeline.max_memory_mb`` as the
process's address space, and turns a crash into a ``WorkerDiedError`` row.
Why not run the stage in the Ray worker itself: Ray can stop a task only by
killing its worker, and an address-space limit cannot be put on a Ray worker
(its own threads and the object store's mappings live in that space). An
actor that dies itself (its node is lost) makes the same ``WorkerDiedError``
row, and a new actor takes its place.

The driver gives each actor one task at a time, as the local pool gives each
process, and takes the answers in completion order, so results stream back
and commits keep the local cadence. Inputs and the dataset must be at the
same paths on every node (a shared filesystem): tasks carry paths, not bytes.

Ray is the ``ragprep[ray]`` extra, imported only when this engine is used.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Generic, TypeVar

from ragprep.pipeline.config import PipelineConfig
from ragprep.pipeline.errors import WorkerDiedError, WorkerStartError
from ragprep.pipeline.pool import STARTUP_SECONDS, IdleTick, Job, WorkerPool

TaskT = TypeVar("TaskT")
AnswerT = TypeVar("AnswerT")

INSTALL_HINT = "--engine ray needs Ray: pip install 'ragprep[ray]'"


def ray_available() -> bool:
    """Whether Ray is installed (without importing it: that takes seconds)."""
    from importlib.util import find_spec

    return find_spec("ray") is not None


def _import_ray() -> ModuleType:
    # No network at run time: Ray would otherwise try to report usage statistics.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError:
        raise WorkerStartError(INSTALL_HINT) from None
    return ray


class _Host(Generic[TaskT, AnswerT]):
    """A Ray actor: one warm ``WorkerPool`` process answering tasks one at a time."""

    def __init__(self, job: Job[TaskT, AnswerT]) -> None:
        self._pool = WorkerPool(job, 1)

    def start(self) -> None:
        self._pool.start()

    def answer(self, task: TaskT) -> AnswerT:
        return self._pool.map([task])[0]

    def close(self) -> None:
        self._pool.close()


@dataclass
class _Call(Generic[TaskT]):
    host: Any  # the actor handle
    task: TaskT
    started: float


class RayPool(Generic[TaskT, AnswerT]):
    """`workers` Ray actors answering `job`'s tasks (see the module docstring)."""

    def __init__(self, ray: ModuleType, job: Job[TaskT, AnswerT], workers: int) -> None:
        self._ray = ray
        self._job = job
        self._workers = max(1, workers)
        # One CPU each, spread over the nodes; never restarted by Ray: the pool
        # replaces a dead actor itself, after recording the task it held.
        self._actor_class = ray.remote(num_cpus=1, max_restarts=0)(_Host).options(scheduling_strategy="SPREAD")
        self._hosts: list[Any] = []

    def __enter__(self) -> "RayPool[TaskT, AnswerT]":
        try:
            self._start(self._workers)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _start(self, count: int) -> list[Any]:
        """`count` new actors, in the pool and with their process ready, or WorkerStartError."""
        hosts = [self._actor_class.remote(self._job) for _ in range(count)]
        self._hosts.extend(hosts)  # closed with the pool even if they never get ready
        ray = self._ray
        try:
            # Placing an actor starts a Ray worker first, then the pool's process.
            ray.get([host.start.remote() for host in hosts], timeout=2 * STARTUP_SECONDS)
        except ray.exceptions.GetTimeoutError:
            raise WorkerStartError(
                f"Ray did not start {count} worker(s) in {2 * STARTUP_SECONDS:g} s: does the cluster have "
                f"{count} free CPUs (ray status)? Fewer --workers may fit"
            ) from None
        except ray.exceptions.RayError as exc:
            raise WorkerStartError(f"a Ray worker could not start: {_cause(exc)}") from None
        return hosts

    def imap(self, tasks: Iterable[TaskT], idle: IdleTick | None = None) -> Iterator[AnswerT]:
        """Run every task; yield each answer as soon as it is ready (calling
        `idle` while none comes)."""
        ray = self._ray
        pending = list(tasks)
        pending.reverse()  # pop() from the end takes them in the order given
        calls: dict[Any, _Call[TaskT]] = {}
        free = list(self._hosts)
        while True:
            while free and pending:
                host, task = free.pop(), pending.pop()
                calls[host.answer.remote(task)] = _Call(host, task, time.monotonic())
            if not calls:
                return
            done_now, _ = ray.wait(list(calls), num_returns=1, timeout=idle.seconds if idle else None)
            if not done_now:
                assert idle is not None  # no timeout otherwise
                idle.call()
                continue
            done = done_now[0]
            call = calls.pop(done)
            try:
                answer = ray.get(done)
                free.append(call.host)
            except ray.exceptions.RayActorError as exc:
                answer = self._lost(call, exc)
                free.append(self._replace(call.host))
            except ray.exceptions.RayTaskError as exc:
                # The actor's own pool could not start a process again: as in a local run, stop.
                raise WorkerStartError(f"a Ray worker could not go on: {_cause(exc)}") from None
            yield answer

    def _lost(self, call: _Call[TaskT], exc: Exception) -> AnswerT:
        message = f"the Ray actor running this document died ({type(exc).__name__}: its node or process was lost)"
        return self._job.failure(call.task, WorkerDiedError(message), time.monotonic() - call.started)

    def _replace(self, host: Any) -> Any:
        self._kill(host)
        self._hosts.remove(host)
        return self._start(1)[0]

    def _kill(self, host: Any) -> None:
        with contextlib.suppress(Exception):  # already gone is as good as killed
            self._ray.kill(host, no_restart=True)

    def close(self) -> None:
        """Stop each actor's process, then the actors."""
        ray = self._ray
        if not self._hosts:
            return
        with contextlib.suppress(ray.exceptions.RayError):
            ray.wait([host.close.remote() for host in self._hosts], num_returns=len(self._hosts), timeout=10)
        for host in self._hosts:
            self._kill(host)
        self._hosts.clear()


def _cause(exc: BaseException) -> str:
    cause = getattr(exc, "cause", None)
    return f"{type(cause).__name__}: {cause}" if cause is not None else str(exc).strip().splitlines()[-1]


@dataclass
class RayEngine:
    """Run the tasks on Ray: the cluster at `address`, or with None a Ray of
    this machine started for the run (a Ray already initialised in this
    process is used as it is). A context manager: leaving it stops the Ray
    it started."""

    address: str | None = None
    _started: bool = field(default=False, init=False, repr=False)

    def __enter__(self) -> "RayEngine":
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._started:
            _import_ray().shutdown()
            self._started = False

    def _ray(self, workers: int) -> ModuleType:
        ray = _import_ray()
        if ray.is_initialized():
            return ray
        # Workers' output and Ray's notices stay in Ray's session logs
        # (/tmp/ray/session_latest/logs): standard error carries the run's log lines.
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
        if self.address is None:
            # "local": a new Ray for this run, never one another program started.
            options.update(address="local", num_cpus=max(workers, os.cpu_count() or 1))
        else:
            options.update(address=self.address)
        try:
            ray.init(**options)
        except Exception as exc:  # noqa: BLE001 - any failure to connect is "no workers"
            where = f"the Ray cluster at {self.address}" if self.address else "a local Ray"
            raise WorkerStartError(f"cannot start {where}: {type(exc).__name__}: {exc}") from None
        self._started = True
        return ray

    def workers(self, pipeline: PipelineConfig) -> int:
        """``pipeline.workers`` actors, or one per CPU of the cluster when 0,
        at most the cluster's CPUs (an actor takes one)."""
        ray = self._ray(pipeline.workers)
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if cpus < 1:
            raise WorkerStartError("the Ray cluster has no CPU to run a worker on")
        return min(pipeline.workers or cpus, cpus)

    def pool(self, job: Job[TaskT, AnswerT], workers: int) -> RayPool[TaskT, AnswerT]:
        return RayPool(self._ray(workers), job, workers)
