"""Running the chosen modes over the same documents and measuring them.

Each document is opened once; every mode that no dataset supplies is extracted from that one
open document (fonts and the structure tree are read once) and chunked with the same chunk
settings, so the modes differ in reading order only. A document that cannot be read becomes a
``DocumentError`` and the others go on.

Documents run in worker processes (``ragprep.pipeline.pool``) under the ``[pipeline]``
limits ``ragprep run`` uses: a document past ``timeout_seconds`` or ``max_memory_mb``, or one
that kills its worker, is a ``DocumentError`` saying so, and a fresh worker takes the next.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ragprep.chunk import ChunkConfig, Tokenizer, document_id, normaliser, read_and_chunk
from ragprep.extract import ExtractConfig, Mode, RagprepError, open_document
from ragprep.pipeline.compare.gold import GoldSet, GoldText
from ragprep.pipeline.compare.measure import (
    BlockBudget,
    CompareResult,
    DocumentComparison,
    DocumentError,
    measure_document,
)
from ragprep.pipeline.compare.model import ModeDocument
from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.errors import PoolFailure, WorkerDiedError
from ragprep.pipeline.pool import WorkerPool

MODES = tuple(m.value for m in Mode)  # what --modes accepts

# Readings taken from existing datasets: mode -> doc_id -> reading.
ReusedReadings = Mapping[str, Mapping[str, ModeDocument]]


# compare_documents(workers=IN_PROCESS) reads every document in the calling process, so a
# debugger can step in; nothing limits time or memory there.
IN_PROCESS = 0


@dataclass(frozen=True)
class CompareSettings:
    """The modes to compare, and the run settings they are read with (one
    ``Settings``, as ``ragprep run`` has; its own mode is unused, each reading
    names its mode, and of [pipeline] only the worker limits apply)."""

    modes: tuple[str, ...]
    run: Settings = Settings()
    # Tried in turn on documents that need a password; shown nowhere.
    passwords: tuple[str, ...] = field(default=(), repr=False)

    @property
    def extract(self) -> ExtractConfig:
        return self.run.extract

    @property
    def chunk(self) -> ChunkConfig:
        return self.run.chunk

    @property
    def pipeline(self) -> PipelineConfig:
        return self.run.pipeline


@dataclass(frozen=True)
class CompareTask:
    """One document to read in every mode and measure."""

    path: Path
    reused: tuple[ModeDocument, ...]  # readings some datasets already hold
    gold: GoldText | None


DocumentOutcome = DocumentComparison | DocumentError


def read_modes(
    path: Path, modes: Sequence[str], settings: CompareSettings, tokenizer: Tokenizer
) -> tuple[ModeDocument, ...]:
    """Extract and chunk one document in each of ``modes`` (RagprepError when unreadable)."""
    source = str(path)
    doc_id = document_id(path.read_bytes())
    readings = []
    # Opened by path, not from the bytes, so that errors name the file.
    with open_document(path, passwords=settings.passwords, config=settings.extract) as document:
        for mode in modes:
            # As `ragprep run` reads a document (the one stage function).
            result, chunks = read_and_chunk(
                document, mode, doc_id=doc_id, source=source, config=settings.chunk, tokenizer=tokenizer
            )
            readings.append(ModeDocument.from_result(result, chunks, mode=mode, doc_id=doc_id, source=source))
    return tuple(readings)


def compare_one(task: CompareTask, settings: CompareSettings, tokenizer: Tokenizer) -> DocumentOutcome:
    """Read one document in every mode and measure it; any failure but running out of
    memory becomes a ``DocumentError`` (the worker reports that one, and retires)."""
    source = str(task.path)
    try:
        reused = {d.mode: dataclasses.replace(d, source=source) for d in task.reused}
        live = [m for m in settings.modes if m not in reused]
        fresh = {d.mode: d for d in read_modes(task.path, live, settings, tokenizer)} if live else {}
        readings = [reused.get(m) or fresh[m] for m in settings.modes]
        budget = BlockBudget(
            count_tokens=lambda text: tokenizer.count(normaliser(settings.chunk)(text)),
            max_tokens=settings.chunk.max_tokens,
        )
        return measure_document(readings, budget, task.gold)
    except RagprepError as exc:
        return DocumentError(source, str(exc))
    except OSError as exc:
        return DocumentError(source, f"{source}: cannot be read: {exc.strerror or exc}")
    except MemoryError:
        raise  # past pipeline.max_memory_mb: the worker says so and retires (its heap is suspect)
    except Exception as exc:  # noqa: BLE001 - one document's failure is one error row, never a lost run
        return DocumentError(source, f"{source}: {type(exc).__name__}: {exc}")


# What a worker does with one document; replaceable so tests can make a worker hang or die.
CompareHandler = Callable[[CompareTask, CompareSettings, Tokenizer], DocumentOutcome]


@dataclass(frozen=True)
class CompareJob:
    """``ragprep compare``'s job for ``WorkerPool``: one document in, its measures out."""

    settings: CompareSettings
    handler: CompareHandler = compare_one

    @property
    def limits(self) -> PipelineConfig:
        return self.settings.pipeline

    def prepare(self) -> Callable[[CompareTask], DocumentOutcome]:
        tokenizer = Tokenizer.load(self.settings.chunk.tokenizer_name)

        def handle(task: CompareTask) -> DocumentOutcome:
            return self.handler(task, self.settings, tokenizer)

        return handle

    def failure(self, task: CompareTask, failure: PoolFailure, seconds: float) -> DocumentOutcome:
        # The pool's message names the setting for a timeout and a memory limit; a
        # dead worker is a crash in a C library or the system's out-of-memory killer.
        hint = (
            "; if the system ran out of memory, lower pipeline.max_memory_mb or --workers"
            if isinstance(failure, WorkerDiedError)
            else ""
        )
        return DocumentError(str(task.path), f"{task.path}: {failure.error_type()}: {failure}{hint}")

    def retires_worker(self, answer: DocumentOutcome) -> bool:
        return False  # a MemoryError reaches the pool, which retires the worker itself


def _doc_id(path: Path) -> str | None:
    try:
        return document_id(path.read_bytes())
    except OSError:
        return None  # reported by the worker, with the reason


def compare_documents(
    paths: Sequence[Path],
    settings: CompareSettings,
    *,
    datasets: ReusedReadings | None = None,
    gold: GoldSet | None = None,
    workers: int = 1,
    handler: CompareHandler = compare_one,
) -> CompareResult:
    """Run ``settings.modes`` over ``paths`` and measure every document.

    ``datasets`` supplies readings already made (``--dataset MODE=PATH``), matched by
    doc_id (the SHA-256 of the file's bytes); modes and documents it lacks are extracted.
    Documents run in up to ``workers`` worker processes, each under ``settings.pipeline``'s
    ``timeout_seconds`` and ``max_memory_mb`` (``WorkerStartError`` when none can start);
    ``workers=IN_PROCESS`` reads them here instead, without limits, for a debugger.
    ``handler`` is what is done with one document (tests replace it). Results keep the
    order of ``paths``.
    """
    datasets = datasets or {}
    tasks = []
    for path in paths:
        doc_id = _doc_id(path) if datasets else None
        reused = tuple(
            datasets[m][doc_id] for m in settings.modes if doc_id and m in datasets and doc_id in datasets[m]
        )
        tasks.append(CompareTask(path, reused, gold.for_source(str(path)) if gold else None))
    job = CompareJob(settings, handler)
    outcomes: list[DocumentOutcome] = []
    if tasks and workers == IN_PROCESS:
        handle = job.prepare()
        outcomes = [handle(task) for task in tasks]
    elif tasks:
        with WorkerPool(job, min(workers, len(tasks))) as pool:
            outcomes = pool.map(tasks)
    return CompareResult(
        modes=settings.modes,
        documents=tuple(o for o in outcomes if isinstance(o, DocumentComparison)),
        errors=tuple(o for o in outcomes if isinstance(o, DocumentError)),
        gold=gold is not None,
        max_tokens=settings.chunk.max_tokens,
    )
