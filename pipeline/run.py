"""A corpus run: plan what changed, process it in workers, commit as it goes.

A document is keyed by its SHA-256 (``doc_id``) plus the key hash of the
settings (extract and chunk settings, reading mode) and the pipeline version.
Against the dataset's documents table, each input is:

- new, or stored under another key        -> processed; its old rows replaced
- stored with the same key                -> skipped
- stored with the same key at another path -> moved: rows keep their chunks,
  get the new path, no extraction
- stored with an error                    -> retried when the error type is
  transient (``pipeline.retry_error_types``) or with ``retry_errors``

and every stored document no input holds any more is removed (unless
``keep_missing``). Identical bytes at several paths are one document: the
first path (in input order) is its source, the others ``duplicate_sources``.

Work is committed every ``commit_every_documents`` documents or
``commit_every_seconds``; a killed run keeps what it committed and the next
run skips it, so every run makes progress. A commit is durable when it
returns (the dataset's journal); readers see the run's commits in published
versions at most ``publish_every_seconds`` apart, and all of them at its end.
"""

from __future__ import annotations

import dataclasses
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.compute as pc

from ragprep.extract.errors import EncryptedPDFError
from ragprep.pipeline.config import PipelineConfig, Settings
from ragprep.pipeline.dataset import ChangeSet, CommitResult, Dataset, DatasetHealth
from ragprep.pipeline.engine import Engine, LocalEngine
from ragprep.pipeline.hashing import Fingerprint, NotRegularFileError, ReadTimeoutError, fingerprint_files
from ragprep.pipeline.inputs import Inputs, SkippedInput, resolve_inputs
from ragprep.pipeline.model import DocumentOutput, DocumentTask
from ragprep.pipeline.pool import IdleTick
from ragprep.pipeline.schema import RUNS, SOURCES
from ragprep.pipeline.sources import source_keys
from ragprep.pipeline.version import pipeline_version
from ragprep.pipeline.worker import DocumentJob, Handler, RunContext, process_document
from ragprep.pipeline.errors import MassRemovalError  # defined with every public error
from ragprep.pipeline.exits import EXIT_FAILURES, EXIT_OK


def new_run_id(now: datetime) -> str:
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


@dataclass(frozen=True)
class Plan:
    inputs: int
    tasks: tuple[DocumentTask, ...]
    skipped: int
    moves: dict[str, tuple[str, tuple[str, ...]]]
    removed: frozenset[str]  # documents whose source is gone
    superseded: frozenset[str]  # documents whose source now holds other bytes
    unreadable: tuple[DocumentOutput, ...]
    dropped_unreadable: frozenset[str]
    # Superseded documents whose source is reprocessed in this run, by that
    # source key: they leave in the commit that brings their replacement, so
    # the change log matches unchanged chunk texts as updates, not remove + add.
    replaced_at: Mapping[str, frozenset[str]] = field(default_factory=dict)
    stored: int = 0  # documents (with bytes) the dataset held before the run
    not_read: tuple[SkippedInput, ...] = ()  # folder/glob matches that are not regular files

    def removed_in(self, commit: int, outputs: Sequence[DocumentOutput], final: bool) -> frozenset[str]:
        """Documents the given commit (1-based) removes: the vanished and the
        superseded ones not waiting for a replacement in the first, each
        replaced one with its replacement (the rest, if any, in the last)."""
        waiting = frozenset().union(*self.replaced_at.values()) if self.replaced_at else frozenset()
        gone = (self.removed | (self.superseded - waiting)) if commit == 1 else frozenset()
        if final:
            return gone | waiting
        return gone.union(*(self.replaced_at.get(o.row.source, frozenset()) for o in outputs))


def hashed_sources(keys: Sequence[str], fingerprints: Sequence[Fingerprint | OSError]) -> pa.Table:
    """The files this run read anew, by source key, as rows of schema.SOURCES
    for the next run's stat check."""
    rows = [(k, f) for k, f in zip(keys, fingerprints, strict=True) if isinstance(f, Fingerprint) and f.hashed and f.reusable]
    return pa.table(
        {
            "source": [p for p, _ in rows],
            "size": [f.stat.size for _, f in rows],
            "mtime_ns": [f.stat.mtime_ns for _, f in rows],
            "inode": [f.stat.inode for _, f in rows],
            "sha256": [f.sha256 for _, f in rows],
        },
        schema=SOURCES,
    )


def check_removals(plan: Plan, pipeline: PipelineConfig) -> None:
    """Stop before anything is removed when the inputs lost more than
    `max_removal_share` of the stored documents: a share half mounted or a
    glob gone wrong must not empty a vector store overnight."""
    if plan.stored and len(plan.removed) / plan.stored > pipeline.max_removal_share:
        raise MassRemovalError(
            f"the inputs no longer hold {len(plan.removed)} of the {plan.stored} stored documents "
            f"(more than pipeline.max_removal_share = {pipeline.max_removal_share:.0%}); nothing was removed. "
            "Check that every input is there (an unmounted share?), or pass --allow-mass-removal"
        )


# The documents columns a plan reads (a rerun of a big corpus reads no others).
PLAN_COLUMNS = [
    "doc_id", "source", "duplicate_sources", "status", "error_type", "attempts", "pipeline_version", "config_hash",
]  # fmt: skip


def plan_run(
    paths: Sequence[Path],
    keys: Sequence[str],
    hashes: Sequence[Fingerprint | OSError],
    documents: pa.Table,
    context: RunContext,
    *,
    keep_missing: bool = False,
    retry_errors: bool = False,
) -> Plan:
    """What the run does with each input (`keys`: their source keys, in order)
    given the stored `documents` (see the module docstring)."""
    settings = context.settings
    path_of = dict(zip(keys, map(str, paths), strict=True))
    sources_by_doc: dict[str, list[str]] = {}
    sizes: dict[str, int] = {}
    unreadable = []
    for path, key, hashed in zip(paths, keys, hashes, strict=True):
        if isinstance(hashed, OSError):
            message = f"{path}: cannot read: {hashed.strerror}"
            kind = type(hashed).__name__ if isinstance(hashed, (NotRegularFileError, ReadTimeoutError)) else "OSError"
            unreadable.append(context.error(DocumentTask(str(path), "", source=key), kind, message))
            continue
        sizes[key] = hashed.size
        sources_by_doc.setdefault(hashed.sha256, []).append(key)

    rows = documents.select(PLAN_COLUMNS).to_pylist()
    stored = {row["doc_id"]: row for row in rows if row["doc_id"] is not None}
    tasks, moves, skipped = [], {}, 0
    key_hash = settings.key_hash  # hashes every setting: once, not once per document
    for doc_id, sources in sources_by_doc.items():
        source, duplicates = sources[0], tuple(sources[1:])
        row = stored.get(doc_id)
        if row is None or row["config_hash"] != key_hash or row["pipeline_version"] != context.pipeline_version:
            tasks.append(DocumentTask(path_of[source], doc_id, duplicates, source=source))
        elif row["status"] != "ok" and _retry(row, settings.pipeline, retry_errors, bool(context.passwords)):
            attempt = (row["attempts"] or 1) + 1
            tasks.append(DocumentTask(path_of[source], doc_id, duplicates, attempt=attempt, source=source))
        elif (row["source"], tuple(row["duplicate_sources"])) != (source, duplicates):
            moves[doc_id] = (source, duplicates)
        else:
            skipped += 1
    gone = set(stored) - set(sources_by_doc)
    # Old bytes of a path that now holds new bytes: replaced, whatever keep_missing says.
    input_keys = set(keys)
    superseded = frozenset(d for d in gone if stored[d]["source"] in input_keys)
    removed = frozenset() if keep_missing else frozenset(gone - superseded)
    # Unreadable sources are re-examined every run: last run's rows go, this run's come back.
    dropped = frozenset(row["source"] for row in rows if row["doc_id"] is None)
    # Largest first: a big file started last would leave one worker busy while the others idle.
    tasks.sort(key=lambda t: -sizes[t.key])
    replaced_at: dict[str, set[str]] = {}
    task_keys = {t.key for t in tasks}
    for doc_id in superseded:
        if stored[doc_id]["source"] in task_keys:
            replaced_at.setdefault(stored[doc_id]["source"], set()).add(doc_id)
    frozen = {key: frozenset(ids) for key, ids in replaced_at.items()}
    return Plan(
        len(paths), tuple(tasks), skipped, moves, removed, superseded, tuple(unreadable), dropped, frozen, len(stored)
    )


def _retry(row: dict[str, Any], pipeline: PipelineConfig, retry_errors: bool, passwords: bool) -> bool:
    """Is a failed document, same bytes and settings, to be tried again?
    Transient failures (pipeline.retry_error_types) up to max_attempts in
    all; one that needed a password when passwords are given; any with
    --retry-errors."""
    if retry_errors or (passwords and row["error_type"] == EncryptedPDFError.__name__):
        return True
    return row["error_type"] in pipeline.retry_error_types and (row["attempts"] or 1) < pipeline.max_attempts


class Reporter(Protocol):
    """Where a run tells what it is doing (progress bar, JSON log lines, nothing)."""

    def start(self, run_id: str, plan: Plan, workers: int) -> None: ...
    def document(self, output: DocumentOutput) -> None: ...
    def commit(self, result: CommitResult) -> None: ...
    def finish(self, summary: "RunSummary") -> None: ...


@dataclass(frozen=True)
class DocumentError:
    source: str
    error_type: str
    message: str
    page: int | None


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    dataset: str
    version: int
    inputs: int
    processed: int
    skipped: int
    moved: int
    removed: int
    failed: int
    pages: int
    chunks: int
    chunks_added: int
    chunks_removed: int
    chunks_updated: int
    seconds: float
    errors: tuple[DocumentError, ...] = field(default=())
    # What the dataset holds after the run, whichever run wrote it.
    standing: "DatasetHealth | None" = None
    # Folder and glob matches that were not read (FIFOs, sockets, devices).
    not_read: tuple[SkippedInput, ...] = ()

    # --strict: error rows standing from earlier runs fail the run too.
    strict: bool = False

    @property
    def exit_code(self) -> int:
        standing = self.standing.errors if self.standing is not None and self.strict else 0
        return EXIT_FAILURES if self.failed or standing else EXIT_OK


@dataclass
class _Tally:
    processed: int = 0
    failed: int = 0
    pages: int = 0
    chunks: int = 0
    added: int = 0
    removed: int = 0
    updated: int = 0
    commits: int = 0
    errors: list[DocumentError] = field(default_factory=list)

    def count(self, output: DocumentOutput) -> None:
        row = output.row
        if row.doc_id is not None:
            self.processed += 1
        if not row.ok:
            self.failed += 1
            self.errors.append(DocumentError(row.source, row.error_type or "", row.error_message or "", row.error_page))
        self.pages += output.page_count
        self.chunks += output.chunk_count


def _runs_table(previous: pa.Table, run_id: str, record: dict[str, object]) -> pa.Table:
    """The runs table with this run's row in place, and any earlier run that
    never finished marked interrupted (it was killed; its commits stand)."""
    status = previous.column("status")
    unfinished = pc.and_(pc.equal(status, "running"), pc.not_equal(previous.column("run_id"), run_id))
    previous = previous.set_column(
        previous.schema.get_field_index("status"), RUNS.field("status"), pc.if_else(unfinished, "interrupted", status)
    )
    others = previous.filter(pc.not_equal(previous.column("run_id"), run_id))
    return pa.concat_tables([others, pa.Table.from_pylist([record], schema=RUNS)])


def open_dataset(out: str | Path, pipeline: PipelineConfig) -> Dataset:
    """The run's output dataset, opened for writing with the [pipeline] settings it takes."""
    return Dataset.open(
        out,
        version_grace_seconds=pipeline.version_grace_seconds,
        documents_per_part=pipeline.documents_per_part,
        publish_every_seconds=pipeline.publish_every_seconds,
    )


def run(
    inputs: Sequence[str],
    out: str | Path,
    settings: Settings,
    reporter: Reporter,
    *,
    keep_missing: bool = False,
    retry_errors: bool = False,
    passwords: Sequence[str] = (),
    allow_mass_removal: bool = False,
    strict: bool = False,
    rehash: bool = False,
    handler: Handler = process_document,
    engine: Engine = LocalEngine(),  # noqa: B008 - a frozen value with no state: one default is safe
) -> RunSummary:
    """Bring the dataset at `out` up to date with `inputs` (see the module docstring).
    `passwords` are tried in turn on documents that need one (and documents
    that failed for want of one are retried); they are stored nowhere.
    A run that would remove more than ``pipeline.max_removal_share`` of the
    stored documents raises ``MassRemovalError`` first, unless
    `allow_mass_removal`. `strict`: the exit code counts standing error rows too.
    An input whose (size, mtime_ns, inode) match the last run's is not read
    again; `rehash` reads every input.
    `handler` is what a worker does with one document (tests replace it);
    `engine` is where the workers run (this machine's pool, or Ray)."""
    started_at = datetime.now(timezone.utc)
    started = time.monotonic()
    found = resolve_inputs(inputs)
    context = RunContext(new_run_id(started_at), pipeline_version(), settings, tuple(passwords))
    # The stat cache is kept by source key, as the documents are; keyed before the
    # dataset is opened, so an input outside the source root touches nothing.
    # Documents are keyed by source key, not by the path as spelled (sources.py).
    keys = source_keys(found.paths, settings.pipeline.source_root, found.resolved)
    with open_dataset(out, settings.pipeline) as dataset:
        planned = _plan(dataset, found, keys, context, keep_missing=keep_missing, retry_errors=retry_errors, rehash=rehash)
        plan = planned.plan
        if not allow_mass_removal:
            check_removals(plan, settings.pipeline)
        commits = _Commits(dataset, context, planned, started_at, reporter)
        # Only a run with work asks the engine (a cluster engine connects to ask).
        workers = engine.workers(settings.pipeline) if plan.tasks else 0
        reporter.start(context.run_id, plan, workers)
        if plan.tasks:
            # Record the run and apply what needs no work (removals, moves)
            # before the first document: a run killed later is still on record.
            commits.commit(final=False)
            with engine.pool(DocumentJob(context, handler), min(workers, len(plan.tasks))) as pool:
                for output in pool.imap(plan.tasks, commits.idle_tick()):
                    commits.add(output)
        commits.commit(final=True)
        standing = dataset.health()
    summary = _summary(context, str(out), plan, commits, time.monotonic() - started, standing, strict=strict)
    reporter.finish(summary)
    return summary


@dataclass(frozen=True)
class _Planned:
    """What a run plans, with what it read to plan it."""

    plan: Plan
    keys: Sequence[str]
    fingerprints: Sequence[Fingerprint | OSError]


def _plan(
    dataset: Dataset,
    found: Inputs,
    keys: Sequence[str],
    context: RunContext,
    *,
    keep_missing: bool,
    retry_errors: bool,
    rehash: bool,
) -> _Planned:
    """The inputs hashed (those whose stat matches the last run's taken as
    known, unless `rehash`) and planned against the stored documents."""
    pipeline = context.settings.pipeline
    seen = {} if rehash else dataset.sources()
    known = {str(path): seen[key] for path, key in zip(found.paths, keys, strict=True) if key in seen}
    fingerprints = fingerprint_files(found.paths, timeout_seconds=pipeline.read_timeout_seconds, known=known)
    plan = plan_run(
        found.paths,
        keys,
        fingerprints,
        dataset.documents(PLAN_COLUMNS),
        context,
        keep_missing=keep_missing,
        retry_errors=retry_errors,
    )
    return _Planned(dataclasses.replace(plan, not_read=found.skipped), keys, fingerprints)


class _Commits:
    """A run's commits into its dataset: the outputs pending, when the next
    one is due (pipeline.commit_every_documents or commit_every_seconds), and
    the runs row each one writes."""

    def __init__(
        self, dataset: Dataset, context: RunContext, planned: _Planned, started_at: datetime, reporter: Reporter
    ) -> None:
        self.dataset = dataset
        self.context = context
        self.planned = planned
        self.plan = planned.plan
        self.started_at = started_at
        self.reporter = reporter
        self.runs_before = dataset.table("runs")
        self.tally = _Tally()
        for output in self.plan.unreadable:
            self.tally.count(output)
        self.pending: list[DocumentOutput] = list(self.plan.unreadable)
        self.last_commit = time.monotonic()
        self.version = dataset.version

    def add(self, output: DocumentOutput) -> None:
        """A document done: counted, reported, and committed with the others when due."""
        pipeline = self.context.settings.pipeline
        self.tally.count(output)
        self.pending.append(output)
        self.reporter.document(output)
        if len(self.pending) >= pipeline.commit_every_documents:
            self.commit(final=False)
        else:
            self.on_time()

    def on_time(self) -> None:
        """What is due by the clock: the finished documents committed every
        pipeline.commit_every_seconds, and readers no more than
        pipeline.publish_every_seconds behind."""
        if self.pending and time.monotonic() - self.last_commit >= self.context.settings.pipeline.commit_every_seconds:
            self.commit(final=False)
        else:
            self.dataset.publish_if_due()

    def idle_tick(self) -> IdleTick:
        """``on_time`` while no document finishes (one long document would
        otherwise hold back the commits and publishes of those around it); a
        tick a quarter of the shorter period keeps either at most that late."""
        pipeline = self.context.settings.pipeline
        return IdleTick(min(pipeline.commit_every_seconds, pipeline.publish_every_seconds) / 4, self.on_time)

    def commit(self, final: bool) -> None:
        tally, plan = self.tally, self.plan
        first = tally.commits == 0
        tally.commits += 1
        change = ChangeSet(
            run_id=self.context.run_id,
            commit=tally.commits,
            outputs=tuple(self.pending),
            # Removals and moves go in with the first commit; replaced documents with their replacement.
            removed_doc_ids=plan.removed_in(tally.commits, self.pending, final),
            moves=plan.moves if first else {},
            dropped_unreadable=plan.dropped_unreadable if first else frozenset(),
            runs=lambda added, removed, updated: self._runs_table(final, added, removed, updated),
            sources=hashed_sources(self.planned.keys, self.planned.fingerprints) if first else None,
        )
        result = self.dataset.commit(change, defer=not final)
        tally.added += result.added
        tally.removed += result.removed
        tally.updated += result.updated
        self.version = result.version
        self.pending = []
        self.last_commit = time.monotonic()
        self.reporter.commit(result)

    def _runs_table(self, final: bool, added: int, removed: int, updated: int) -> pa.Table:
        """The runs table with this run's row as of this commit (`added`...: the commit's own changes)."""
        tally, plan, settings = self.tally, self.plan, self.context.settings
        record = {
            "run_id": self.context.run_id,
            "started": self.started_at,
            "finished": datetime.now(timezone.utc) if final else None,
            "status": "complete" if final else "running",
            "commits": tally.commits,
            "inputs": plan.inputs,
            "processed": tally.processed,
            "skipped": plan.skipped,
            "moved": len(plan.moves),
            "removed": len(plan.removed),
            "failed": tally.failed,
            "chunks_added": tally.added + added,
            "chunks_removed": tally.removed + removed,
            "chunks_updated": tally.updated + updated,
            "mode": settings.mode.value,
            "pipeline_version": self.context.pipeline_version,
            "config_hash": settings.key_hash,
        }
        return _runs_table(self.runs_before, self.context.run_id, record)


def _summary(
    context: RunContext,
    dataset: str,
    plan: Plan,
    commits: _Commits,
    seconds: float,
    standing: DatasetHealth,
    *,
    strict: bool,
) -> RunSummary:
    tally = commits.tally
    return RunSummary(
        run_id=context.run_id,
        dataset=dataset,
        version=commits.version,
        inputs=plan.inputs,
        processed=tally.processed,
        skipped=plan.skipped,
        moved=len(plan.moves),
        removed=len(plan.removed),
        failed=tally.failed,
        pages=tally.pages,
        chunks=tally.chunks,
        chunks_added=tally.added,
        chunks_removed=tally.removed,
        chunks_updated=tally.updated,
        seconds=seconds,
        errors=tuple(tally.errors),
        standing=standing,
        not_read=plan.not_read,
        strict=strict,
    )
