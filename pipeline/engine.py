"""Where a run's per-document stage executes: the seam between the run driver and its engines.

The driver (``ragprep.pipeline.run``) plans, commits, logs changes and reports
progress the same way whatever the engine; an engine only answers the driver's
tasks with a ``Job`` (``DocumentJob``: the stage function, its limits, its
failure rows) and streams the answers back as they come:

- ``LocalEngine``: this machine's ``WorkerPool`` (the default);
- ``RayEngine`` (``ragprep.pipeline.ray_engine``, the ``ragprep[ray]`` extra):
  the same ``WorkerPool``, one process per Ray actor, on a cluster's nodes.

Both run the job under the limits of its ``PipelineConfig``: the time and
memory limits and the error rows they produce are the pool's, defined once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol, TypeVar

from ragprep.pipeline.config import PipelineConfig
from ragprep.pipeline.pool import IdleTick, Job, WorkerPool

TaskT = TypeVar("TaskT")
AnswerT = TypeVar("AnswerT")
_AnswerOut = TypeVar("_AnswerOut", covariant=True)
_TaskIn = TypeVar("_TaskIn", contravariant=True)


class Pool(Protocol[_TaskIn, _AnswerOut]):
    """Workers answering one job's tasks; closed on leaving the ``with`` block."""

    def __enter__(self) -> "Pool[_TaskIn, _AnswerOut]": ...
    def __exit__(self, *exc_info: object) -> None: ...
    def imap(self, tasks: Iterable[_TaskIn], idle: IdleTick | None = None) -> Iterator[_AnswerOut]:
        """Every task's answer, each as soon as it is ready (completion order);
        `idle` is called at least every `idle.seconds` while no answer comes."""
        ...


class Engine(Protocol):
    def workers(self, pipeline: PipelineConfig) -> int:
        """How many tasks run at once: ``pipeline.workers``, or the engine's count when 0."""
        ...

    def pool(self, job: Job[TaskT, AnswerT], workers: int) -> Pool[TaskT, AnswerT]:
        """`workers` workers for `job`; raises ``WorkerStartError`` when none can start."""
        ...


@dataclass(frozen=True)
class LocalEngine:
    """Worker processes on this machine (``ragprep.pipeline.pool``)."""

    def workers(self, pipeline: PipelineConfig) -> int:
        return pipeline.worker_count

    def pool(self, job: Job[TaskT, AnswerT], workers: int) -> WorkerPool[TaskT, AnswerT]:
        return WorkerPool(job, workers)
