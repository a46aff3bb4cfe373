"""The Parquet dataset on disk, and how it changes atomically.

Layout of a dataset folder ``DATASET``::

    DATASET/chunks     -> current/chunks       one folder per table, each a
    DATASET/pages      -> current/pages        plain folder of Parquet files
    DATASET/documents  -> current/documents    (readable by pyarrow.dataset,
    DATASET/runs       -> current/runs         pandas, DuckDB, Polars)
    DATASET/changes    -> current/changes
    DATASET/current    -> .ragprep/versions/v000012
    DATASET/.ragprep/versions/v000012/<table>/part-*.parquet
    DATASET/.ragprep/lock

A commit writes only what it changes: its new parts, and a manifest naming
the parts they replace, as one journal entry (``.ragprep/journal/j000013``,
built beside and renamed into place, so it is there whole or not at all).
The writer keeps its own view of the tables, ``.ragprep/work`` (a hard link
per part: the published version plus every journal entry after it, rebuilt
when a dataset is opened). Publishing builds the next version from that view
(a hard link per part), renames it into place, then swaps the ``current``
symlink with ``rename(2)``, which is atomic, and drops the journal entries it
holds. A process killed at any instant therefore leaves ``current`` pointing
at a complete version, and every committed entry is either in it or still in
the journal for the next run to publish: nothing committed is lost. What a
killed commit or publish left half-built is removed by the next one. A new
dataset appears whole: its first version (every table empty) is built in a
sibling folder renamed onto the dataset's path, so there is never a dataset
folder pyarrow cannot open.

Why a journal: the per-document tables are cut into thousands of parts (a
100-document change may rewrite at most 5% of the bytes), and a whole version
is one flat folder per table (what DuckDB and Polars globs read), so building
one costs a link per part. A plain ``commit`` publishes at once; a run's
commits are deferred (``commit(..., defer=True)``): each pays DEFERRED_LINKS
links toward the next publish, so a version is published every
``parts / DEFERRED_LINKS`` commits, at least every ``publish_every_seconds``
(``pipeline.publish_every_seconds``, default 60), and at the run's last commit. A commit then costs what it changes plus a bounded
share of a publish, whatever the dataset holds; readers see a run's commits
a few at a time, and all of them when it ends.

Readers pin a version: ``os.path.realpath("DATASET/current")`` is a version
folder whose files never change (``snapshot``). A version stays on disk until
``version_grace_seconds`` have passed since a commit replaced it, so a reader
that pinned it (or listed files through the links just before a swap) can
finish reading. Paths through ``DATASET/chunks`` re-resolve the link at every
open, so a long read through them can mix two versions.

Parts are immutable. Replacing or deleting a document rewrites only the parts
that hold its rows (``ragprep.pipeline.parts``); the runs table is small and
rewritten whole at every commit; the changes table only grows (its smallest
parts merged past MAX_PARTS). Each version
also records its ``DatasetHealth`` (``health.json``), carried forward by each
commit from the parts it rewrites, so a run's summary reads no table.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from itertools import pairwise
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads

from ragprep.pipeline.hashing import FileStat
from ragprep.pipeline.model import DocumentOutput
from ragprep.pipeline.parts import (
    EMPTY_PART_PREFIX,
    PART_TABLES,
    Edit,
    PartIndex,
    fsync,
    data_parts,
    link_parts,
    part_names,
    read_part,
    read_parts,
    rewrite_parts,
    unreadable_key,
    write_parquet,
)
from ragprep.pipeline.records import document_batch
from ragprep.pipeline.schema import CHANGES, DOCUMENTS, PAGES, RUNS, SOURCES, TABLES
from ragprep.pipeline.errors import DatasetBusyError, DatasetError  # defined with every public error

STATE_DIR = ".ragprep"
CURRENT = "current"
_VERSION = re.compile(r"^v(\d{6,})$")
# Parts of an append-only table beyond which the smallest are merged (see _compact).
MAX_PARTS = 64
# Files of expired versions one commit removes at most, beyond the first
# such version (see _collect_garbage): about two versions of 50,000 documents.
GC_FILES_PER_COMMIT = 20_000
# The current version's DatasetHealth, beside its tables (not a table: no link at the top).
HEALTH_FILE = "health.json"
# The inputs' stat and hash, for the next run (not a public table: no link at the top).
SOURCES_TABLE = "sources"
# The folders of a version (and of the work view and of a journal entry).
FOLDERS: dict[str, pa.Schema] = {**TABLES, SOURCES_TABLE: SOURCES}
JOURNAL = "journal"
WORK = "work"
MANIFEST = "manifest.json"
# In the work view: the version it holds and its parts per folder (see _load_work).
VIEW_FILE = "view.json"
_ENTRY = re.compile(r"^j(\d{6,})$")
# What a deferred commit pays toward publishing, in part links: a version is
# published once its commits have paid for the links it takes (one per part).
DEFERRED_LINKS = 1_000
# A deferred commit is published within this time, whatever it has paid
# (the default of ``pipeline.publish_every_seconds``).
PUBLISH_EVERY_SECONDS = 60.0


@dataclass(frozen=True)
class ChangeSet:
    """One commit's worth of changes to the dataset."""

    run_id: str
    commit: int  # 1-based within the run
    # Documents (re)processed in this commit; they replace any rows of the same doc_id.
    outputs: tuple[DocumentOutput, ...] = ()
    # Documents whose source is gone: every row of theirs goes.
    removed_doc_ids: frozenset[str] = frozenset()
    # Same bytes at a new path: doc_id -> (source, duplicate sources).
    moves: Mapping[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    # Error rows without a doc_id (unreadable sources) to drop, by source.
    dropped_unreadable: frozenset[str] = frozenset()
    # The runs table after this commit, given the commit's chunk counts
    # (added, removed, updated), so this run's row carries them.
    runs: Callable[[int, int, int], pa.Table] | None = None
    # Input paths hashed anew, with their stat (schema.SOURCES): the next run
    # skips hashing a file whose stat still matches.
    sources: pa.Table | None = None


@dataclass(frozen=True)
class CommitResult:
    version: int
    added: int
    removed: int
    updated: int
    bytes_written: int = 0  # Parquet bytes the commit wrote (hard links cost none)
    # The version readers see once the commit returns: `version` when it was
    # published, an earlier one while deferred commits wait (Dataset.commit).
    published: int = 0


def read_table(folder: Path, schema: pa.Schema, filter: pc.Expression | None = None) -> pa.Table:
    """All Parquet files of one table folder, optionally filtered (empty table when there are none)."""
    if filter is None:
        return pa.concat_tables([schema.empty_table(), *read_parts(folder, schema, schema.names)[1]])
    if not _has_parquet(folder):
        return schema.empty_table()
    return pads.dataset(folder, format="parquet", schema=schema).to_table(filter=filter)


def snapshot(root: str | Path) -> Path:
    """The version folder ``DATASET/current`` points at now: its tables
    (``<snapshot>/chunks`` ...) are one whole version for as long as a reader
    needs them (``pipeline.version_grace_seconds`` after a commit replaces it)."""
    return Path(os.path.realpath(Path(root) / CURRENT))


def unpublished_commits(root: str | Path, version: int) -> int:
    """Journal entries after published version `version` (readers never see them)."""
    try:
        names = os.listdir(Path(root) / STATE_DIR / JOURNAL)
    except OSError:
        return 0
    return sum(1 for name in names if (match := _ENTRY.match(name)) and int(match.group(1)) > version)


def version_number(folder: Path) -> int:
    """The version a version folder holds (``v000012`` -> 12; 0 for any other name)."""
    match = _VERSION.match(folder.name)
    return int(match.group(1)) if match else 0


@dataclass(frozen=True)
class Snapshot:
    """One version of a dataset opened for reading (``snapshot``, resolved
    once): every table read through it is of that version, whatever commits
    meanwhile. Sync, export and the loaders read through it."""

    root: Path
    folder: Path
    version: int
    # Commits after `version` that are durable in the journal but not yet
    # published: a run is writing (or was killed; its next writer publishes them).
    unpublished: int = 0

    @classmethod
    def open(cls, root: str | Path) -> "Snapshot":
        root = Path(root)
        if not (root / STATE_DIR).is_dir() or not (root / CURRENT).is_symlink():
            raise DatasetError(f"{root}: not a ragprep dataset (run `ragprep run ... --out {root}` first)")
        folder = snapshot(root)
        version = version_number(folder)
        return cls(root, folder, version, unpublished_commits(root, version))

    def unpublished_note(self) -> str:
        """What a reader should hear when commits wait to be published ("" when none do)."""
        if not self.unpublished:
            return ""
        return (
            f"{self.root}: read version {self.version}; {self.unpublished} later commit(s) of a run are "
            "not published yet (a run writing publishes them within pipeline.publish_every_seconds and at its end; "
            "a killed run's, the next run on the dataset)"
        )

    def table(self, name: str, filter: pc.Expression | None = None) -> pa.Table:
        return read_table(self.folder / name, TABLES[name], filter)


@dataclass(frozen=True)
class DatasetHealth:
    """What the dataset holds that a user should hear about after a run."""

    documents: int = 0
    errors: int = 0  # error rows, whichever run wrote them
    empty_documents: int = 0  # read fine, yet no chunk (scans without text, blank pages)
    warned_pages: int = 0  # pages with at least one warning

    @classmethod
    def of(cls, documents: pa.Table, pages: pa.Table) -> "DatasetHealth":
        """The counts over some documents rows and pages rows (columns status, chunks; warnings)."""
        ok = pc.equal(documents.column("status"), "ok")
        empty = pc.and_(ok, pc.equal(documents.column("chunks"), 0))
        warned = pc.greater(pc.fill_null(pc.list_value_length(pages.column("warnings")), 0), 0)
        return cls(documents.num_rows, documents.num_rows - _count(ok), _count(empty), _count(warned))

    def changed(self, removed: "DatasetHealth", added: "DatasetHealth") -> "DatasetHealth":
        """These counts once the `removed` rows are replaced by the `added` ones."""
        values = [getattr(self, f) - getattr(removed, f) + getattr(added, f) for f in _HEALTH_FIELDS]
        return DatasetHealth(*values)


_HEALTH_FIELDS = ("documents", "errors", "empty_documents", "warned_pages")


class Dataset:
    """A dataset folder opened for one run: holds its lock until ``close``."""

    def __init__(
        self,
        root: Path,
        *,
        version_grace_seconds: float = 900.0,
        documents_per_part: int = 16,
        publish_every_seconds: float = PUBLISH_EVERY_SECONDS,
    ) -> None:
        self.root = root
        self.publish_every_seconds = publish_every_seconds
        self.state = root / STATE_DIR
        self.versions = self.state / "versions"
        self.version_grace_seconds = version_grace_seconds
        self.documents_per_part = documents_per_part
        self.journal = self.state / JOURNAL
        self.work = self.state / WORK
        self._lock_fd: int | None = None
        # (version, index of its document parts), kept across this process's commits.
        self._index: tuple[int, PartIndex] | None = None
        # The latest committed version (published or journaled) and what the
        # work view holds: rebuilt by _load_work, kept by each commit.
        self._head = 0
        self._view_parts: dict[str, int] = dict.fromkeys(FOLDERS, 0)
        self._work_ok = False
        # Links paid toward the next publish by deferred commits, and since when one waits.
        self._paid = 0
        self._waiting_since: float | None = None

    @classmethod
    def open(
        cls,
        root: str | Path,
        *,
        version_grace_seconds: float = 900.0,
        documents_per_part: int = 16,
        publish_every_seconds: float = PUBLISH_EVERY_SECONDS,
    ) -> "Dataset":
        root = Path(root)
        if root.exists() and not root.is_dir():
            raise DatasetError(f"{root}: the output must be a folder")
        if root.is_dir() and any(root.iterdir()) and not (root / STATE_DIR).is_dir():
            raise DatasetError(f"{root}: the folder is not empty and is not a ragprep dataset; choose another --out")
        if not (root / STATE_DIR).is_dir():
            cls._create(root)
        dataset = cls(
            root,
            version_grace_seconds=version_grace_seconds,
            documents_per_part=documents_per_part,
            publish_every_seconds=publish_every_seconds,
        )
        try:
            dataset.versions.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DatasetError(f"{root}: cannot create the dataset folder: {exc.strerror}") from exc
        dataset._lock()
        try:
            dataset._load_work()
        except BaseException:
            dataset.close()
            raise
        return dataset

    @classmethod
    def _create(cls, root: Path) -> None:
        """Build version 1 (every table, no rows) in a sibling folder and rename
        it onto `root` (absent or an empty folder): killed at any instant, this
        leaves no dataset or one every reader opens."""
        try:
            root.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{root.name}.ragprep-new-", dir=root.parent))
        except OSError as exc:
            raise DatasetError(f"{root}: cannot create the dataset folder: {exc.strerror}") from exc
        try:
            fresh = cls(staging)
            fresh.versions.mkdir(parents=True)
            fresh._load_work()
            fresh.commit(ChangeSet(run_id="new", commit=0))
            try:
                os.rename(staging, root)
            except OSError:
                if not (root / STATE_DIR).is_dir():  # else another run created it first: use that one
                    raise
        except OSError as exc:
            raise DatasetError(f"{root}: cannot create the dataset: {exc.strerror}") from exc
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # not POSIX: no advisory locks; one run at a time is on the user
            return
        fd = os.open(self.state / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise DatasetBusyError(f"{self.root}: another ragprep run is writing this dataset") from None
        self._lock_fd = fd

    def close(self) -> None:
        """Publish what the journal holds (when the work view is whole), then release the lock."""
        try:
            if self._lock_fd is not None and self._work_ok and self._head > self.version:
                self.publish()
        finally:
            if self._lock_fd is not None:
                os.close(self._lock_fd)  # releases the flock
                self._lock_fd = None

    def __enter__(self) -> "Dataset":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- reading the current version -------------------------------------

    @property
    def version(self) -> int:
        link = self.root / CURRENT
        return version_number(Path(os.readlink(link))) if link.is_symlink() else 0

    def _version_dir(self, version: int) -> Path:
        return self.versions / f"v{version:06d}"

    def table(self, name: str, columns: list[str] | None = None) -> pa.Table:
        """A table as this writer's commits left it (published or journaled)."""
        schema = TABLES[name]
        if columns is not None:
            schema = pa.schema([schema.field(c) for c in columns])
        if not self._head:
            return schema.empty_table()
        return read_table(self.work / name, schema)

    def documents(self, columns: list[str]) -> pa.Table:
        """The documents rows (`columns`) as this writer's commits left them,
        read part by part so that the part index comes with them: the run's
        first commit then finds what to rewrite without reading every part again."""
        if not self._head:
            return self.table("documents", columns)
        index, table = PartIndex.read(self.work, columns)
        self._index = (self._head, index)
        return table

    def health(self) -> DatasetHealth:
        """The counts as this writer's commits left them: each commit records
        them (``HEALTH_FILE``), so a run's summary reads no table."""
        return _version_health(self.work) if self._head else DatasetHealth()

    # -- committing -------------------------------------------------------

    def commit(self, change: ChangeSet, *, defer: bool = False) -> CommitResult:
        """Commit `change` as a journal entry: durable when this returns.
        Published at once, unless `defer`: then when deferred commits have
        paid for a publish, or one has waited ``publish_every_seconds``
        (checked here and by ``publish_if_due``), or at ``publish``/``close``.
        The result says which version readers see now (``published``)."""
        if not self._work_ok:
            self._load_work()  # a commit failed half-way: the work view may be half updated
        try:
            self._work_ok = False
            result = self._commit(change)
            self._work_ok = True
        except BaseException:
            self._index = None  # maybe half updated: the next commit scans the view again
            raise
        if defer:
            self._paid += DEFERRED_LINKS
            if self._waiting_since is None:
                self._waiting_since = time.monotonic()
        if not defer or self._paid >= self._work_parts:
            self.publish()
        else:
            self.publish_if_due()
        return dataclasses.replace(result, published=self.version)

    def publish_if_due(self) -> bool:
        """Publish when a deferred commit has waited ``publish_every_seconds``
        (a run calls this as its documents finish, so readers are never
        further behind than that while it works). Whether it published."""
        if self._waiting_since is None or not self._work_ok:
            return False
        if time.monotonic() - self._waiting_since < self.publish_every_seconds:
            return False
        self.publish()
        return True

    def _commit(self, change: ChangeSet) -> CommitResult:
        current = self._head
        new = max([current, *self._existing_versions()]) + 1
        building = self.journal / f"j{new:06d}.building"
        if building.exists():
            shutil.rmtree(building)
        building.mkdir(parents=True)
        old = self.work if current else None
        tag = f"{change.run_id}-{change.commit:04d}"

        reprocessed = {o.row.doc_id for o in change.outputs if o.row.doc_id is not None}
        # A document reprocessed in this commit gets fresh rows; it is not also moved.
        moves = {d: w for d, w in change.moves.items() if d not in reprocessed and d not in change.removed_doc_ids}
        unreadable = {o.row.source for o in change.outputs if o.row.doc_id is None} | change.dropped_unreadable
        documents = pa.Table.from_batches([document_batch([o.row for o in change.outputs])], DOCUMENTS)
        edit = Edit(
            drop=frozenset(reprocessed | change.removed_doc_ids | {unreadable_key(s) for s in unreadable}),
            moves=moves,
            rows={
                name: documents if name == "documents" else _rows(change.outputs, name, schema)
                for name, schema in PART_TABLES.items()
            },
        )
        index = self._part_index(current, old, edit)
        parts = rewrite_parts(old, building, edit, index or PartIndex(), tag, self.documents_per_part, carry=False)
        written = parts.bytes_written
        replaced: dict[str, list[str]] = {name: sorted(parts.rewritten) for name in PART_TABLES}
        # The counts follow the parts rewritten: their rows before, and after.
        before = _version_health(old) if old else DatasetHealth()
        health = before.changed(DatasetHealth.of(*parts.replaced), DatasetHealth.of(*parts.packed))
        _write_health(building, health)

        changes, counts = _changes(change, new, parts.old_chunk_ids, parts.moved_chunk_ids)
        for name, rows in (("changes", changes), (SOURCES_TABLE, change.sources)):
            more, replaced[name] = _append(old, building, name, FOLDERS[name], rows, tag)
            written += more

        (building / "runs").mkdir()
        if change.runs is not None:
            runs = change.runs(*counts)
        else:
            runs = read_table(old / "runs", RUNS) if old else RUNS.empty_table()
        written += write_parquet(runs, building / "runs" / f"part-{tag}.parquet")
        replaced["runs"] = part_names(old / "runs") if old else []

        manifest = building / MANIFEST
        manifest.write_text(json.dumps({"version": new, "replaced": replaced}), encoding="utf-8")
        for sub in building.iterdir():
            fsync(sub)
        fsync(building)
        final = self.journal / f"j{new:06d}"
        os.rename(building, final)
        fsync(self.journal)
        # Committed: from here the entry is the truth, and the work view follows it.
        self._apply(new, final)
        # Without a scan (nothing to find) the new index is unknown: the next commit that needs it scans.
        self._index = (new, parts.index) if index is not None else None
        return CommitResult(new, *counts, bytes_written=written)

    def publish(self) -> None:
        """Make every journaled commit visible: the latest committed version,
        built from the work view (a link per part), renamed into place and
        pointed at by ``current``; then the journal entries it holds go."""
        head = self._head
        if not head or head == self.version:
            return
        building = self.versions / f"v{head:06d}.building"
        if building.exists():
            shutil.rmtree(building)
        building.mkdir()
        for name, schema in FOLDERS.items():
            (building / name).mkdir()
            link_parts(self.work / name, building / name, part_names(self.work / name))
            _ensure_schema_part(building / name, schema, f"v{head:06d}")
        os.link(self.work / HEALTH_FILE, building / HEALTH_FILE)
        for sub in building.iterdir():
            fsync(sub)
        fsync(building)
        final = self._version_dir(head)
        if final.exists():
            # A publish killed between this rename and the swap below: `current`
            # never pointed at that folder, so no reader can be reading it.
            shutil.rmtree(final)
        os.rename(building, final)
        os.utime(final)  # its mtime is when it replaced the previous version (see _collect_garbage)
        self._point_current_at(final)
        self._paid, self._waiting_since = 0, None
        for number, entry in self._journal_entries():
            if number is None or number <= head:
                shutil.rmtree(entry, ignore_errors=True)
        self._collect_garbage(head)

    # -- the work view and the journal -------------------------------------

    def _load_work(self) -> None:
        """Bring the work view up to the journal: the view a previous writer
        left is kept when its marker (``VIEW_FILE``) says which version it
        holds and its folders hold the parts the marker counts, so an open
        with nothing pending links nothing; otherwise it is rebuilt from the
        published version (a link per part). Then every journal entry after
        what it holds is applied, in order. Entries the published version
        holds, and half-built ones, go."""
        self.journal.mkdir(exist_ok=True)
        published = self.version
        pending = []
        for number, entry in self._journal_entries():
            if number is None or number <= published:
                shutil.rmtree(entry, ignore_errors=True)
            else:
                pending.append((number, entry))
        for stale in self.work.glob(f".{VIEW_FILE}.*"):
            stale.unlink(missing_ok=True)  # a marker a killed writer did not rename into place
        held = self._view_held(published, {number for number, _ in pending})
        if held is None:
            self._rebuild_work(published)
            held = published
        self._head = held
        self._index = None
        for number, entry in pending:
            if number > held:
                self._apply(number, entry)
        # Entries a killed run left: published by this writer's next commit or close.
        self._paid = 0
        self._waiting_since = time.monotonic() - self.publish_every_seconds if self._head > published else None
        self._work_ok = True

    def _view_held(self, published: int, pending: set[int]) -> int | None:
        """The version the work view holds, if its marker is whole and true:
        the published one or a pending journal entry (a view behind the
        published version, or ahead of the journal, was not built from them),
        with as many parts in each folder as the marker counts. None: rebuild."""
        try:
            marker = json.loads((self.work / VIEW_FILE).read_text(encoding="utf-8"))
            held, counts = int(marker["head"]), {name: int(marker["parts"][name]) for name in FOLDERS}
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if held != published and held not in pending:
            return None
        if held and not (self.work / HEALTH_FILE).exists():
            return None
        found = {name: len(part_names(self.work / name)) for name in FOLDERS}
        if found != counts:
            return None
        self._view_parts = found
        return held

    def _rebuild_work(self, published: int) -> None:
        """The work view as the published version: a link per part."""
        (self.work / VIEW_FILE).unlink(missing_ok=True)  # first: a half-rebuilt view has no marker
        shutil.rmtree(self.work, ignore_errors=True)
        for name in FOLDERS:
            (self.work / name).mkdir(parents=True)
        if published:
            folder = self._version_dir(published)
            for name in FOLDERS:
                if (folder / name).is_dir():
                    link_parts(folder / name, self.work / name, part_names(folder / name))
            if (folder / HEALTH_FILE).exists():
                os.link(folder / HEALTH_FILE, self.work / HEALTH_FILE)
        self._view_parts = {name: len(part_names(self.work / name)) for name in FOLDERS}
        self._mark_view(published)

    def _mark_view(self, head: int) -> None:
        """Record that the work view holds version `head` with its parts per folder."""
        staging = self.work / f".{VIEW_FILE}.{uuid.uuid4().hex}"
        staging.write_text(json.dumps({"head": head, "parts": self._view_parts}), encoding="utf-8")
        os.replace(staging, self.work / VIEW_FILE)

    @property
    def _work_parts(self) -> int:
        """Parts the work view holds: what publishing it links."""
        return sum(self._view_parts.values())

    def _journal_entries(self) -> list[tuple[int | None, Path]]:
        """The journal's entries by version (None: a half-built one)."""
        found = []
        for entry in self.journal.iterdir():
            match = _ENTRY.match(entry.name)
            found.append((int(match.group(1)) if match else None, entry))
        return sorted(found, key=lambda item: (item[0] is not None, item[0] or 0))

    def _apply(self, number: int, entry: Path) -> None:
        """The work view after journal entry `number`: the parts it replaces
        unlinked, its own linked in, its counts. The marker goes first and
        comes back with the new head, so a view killed half-way is rebuilt."""
        (self.work / VIEW_FILE).unlink(missing_ok=True)
        replaced = json.loads((entry / MANIFEST).read_text(encoding="utf-8"))["replaced"]
        for name in FOLDERS:
            for part in replaced.get(name, ()):
                try:
                    os.unlink(self.work / name / part)
                    self._view_parts[name] -= 1
                except FileNotFoundError:
                    continue
            if (entry / name).is_dir():
                added = part_names(entry / name)
                link_parts(entry / name, self.work / name, added)
                self._view_parts[name] += len(added)
        (self.work / HEALTH_FILE).unlink(missing_ok=True)
        os.link(entry / HEALTH_FILE, self.work / HEALTH_FILE)
        self._head = number
        self._mark_view(number)

    def _part_index(self, current: int, old: Path | None, edit: Edit) -> PartIndex | None:
        """The current version's part index: scanned once per open dataset (the
        lock makes this process the only writer), then kept by each commit.
        None when the commit has nothing to find or repack (no scan then)."""
        if self._index is not None and self._index[0] == current:
            return self._index[1]
        if not edit.drop and not edit.moves and not edit.rows["documents"].num_rows:
            return None
        index = PartIndex.scan(old)
        self._index = (current, index)
        return index

    def sources(self) -> dict[str, dict[FileStat, str]]:
        """What the runs saw of each input, by source key: each stat it was seen
        with and the SHA-256 read at that stat, for skipping the hashing of
        unchanged files. Part names do not give commit order once compaction
        has merged parts of several commits, so no entry is taken as the
        latest: a stat seen with two different hashes is left out (the file
        is read again)."""
        if not self._head:
            return {}
        folder = self.work / SOURCES_TABLE
        known: dict[str, dict[FileStat, str]] = {}
        ambiguous: set[tuple[str, FileStat]] = set()
        for part in data_parts(folder) if folder.is_dir() else []:
            table = read_part(part, SOURCES)
            columns = [table.column(c).to_pylist() for c in ("source", "size", "mtime_ns", "inode", "sha256")]
            for source, size, mtime_ns, inode, sha256 in zip(*columns, strict=True):
                stat = FileStat(size, mtime_ns, inode)
                if known.setdefault(source, {}).setdefault(stat, sha256) != sha256:
                    ambiguous.add((source, stat))
        for source, stat in ambiguous:
            del known[source][stat]
        return known

    def _existing_versions(self) -> list[int]:
        found = []
        for entry in self.versions.iterdir():
            match = _VERSION.match(entry.name.split(".")[0])
            if match:
                found.append(int(match.group(1)))
        return found

    def _point_current_at(self, version_dir: Path) -> None:
        target = os.path.relpath(version_dir, self.root)
        staging = self.root / f".{CURRENT}.{uuid.uuid4().hex}"
        os.symlink(target, staging)
        os.replace(staging, self.root / CURRENT)  # rename(2): atomic
        for name in TABLES:
            link = self.root / name
            if not link.is_symlink():
                staging = self.root / f".{name}.{uuid.uuid4().hex}"
                os.symlink(os.path.join(CURRENT, name), staging)
                os.replace(staging, link)
        fsync(self.root)

    def _collect_garbage(self, current: int) -> None:
        """Remove half-built folders, and versions that a commit replaced
        more than ``version_grace_seconds`` ago (readers may have pinned them),
        oldest first, about GC_FILES_PER_COMMIT files of them per commit.
        A version was replaced when the next one was committed: that one's mtime."""
        committed: dict[int, float] = {}
        for entry in self.versions.iterdir():
            match = _VERSION.match(entry.name)
            if match is None:
                shutil.rmtree(entry, ignore_errors=True)  # a killed commit's .building folder
                continue
            try:
                committed[int(match.group(1))] = entry.stat().st_mtime
            except FileNotFoundError:
                continue
        order = sorted(committed)
        now = time.time()
        expired = [
            older for older, newer in pairwise(order)
            if older != current and now - committed[newer] >= self.version_grace_seconds
        ]  # fmt: skip
        # Oldest first, within a budget of files: removing a version costs an
        # unlink per part, so the first commit after a long run must not pay
        # for all its versions at once. At least one goes per commit, and a
        # commit adds one, so the backlog never grows.
        budget = GC_FILES_PER_COMMIT
        for number, older in enumerate(expired):
            folder = self._version_dir(older)
            files = _file_count(folder)
            if number and files > budget:
                break
            budget -= files
            shutil.rmtree(folder, ignore_errors=True)
        for stale in self.root.glob(f".{CURRENT}.*"):
            stale.unlink(missing_ok=True)


def _append(
    old: Path | None, building: Path, name: str, schema: pa.Schema, rows: pa.Table | None, tag: str
) -> tuple[int, list[str]]:
    """An append-only table's share of a journal entry: the new rows as one
    part, and the merge of the smallest parts when the table would have more
    than MAX_PARTS. Returns the bytes written and the parts of `old` replaced."""
    folder = building / name
    folder.mkdir()
    written = 0
    parts = data_parts(old / name) if old is not None else []
    if rows is not None and rows.num_rows:
        parts.append(folder / f"part-{tag}.parquet")
        written = write_parquet(rows, parts[-1])
    more, merged = _compact(parts, folder, schema, tag)
    return written + more, sorted(p.name for p in merged if p.parent != folder)


def _compact(parts: list[Path], folder: Path, schema: pa.Schema, tag: str) -> tuple[int, list[Path]]:
    """Merge the smallest of an append-only table's `parts` into one part in
    `folder` when there are more than MAX_PARTS: every commit adds a part, and
    a year of nightly runs must not leave readers opening thousands of small
    files. Merging down to half the limit makes compaction rare rather than
    every commit. Returns the bytes written and the parts merged."""
    if len(parts) <= MAX_PARTS:
        return 0, []
    by_size = sorted(parts, key=lambda p: p.stat().st_size)
    merge = sorted(by_size[: len(parts) - MAX_PARTS // 2 + 1], key=lambda p: p.name)  # commit order: later last
    merged = pa.concat_tables([read_part(p, schema) for p in merge])
    written = write_parquet(merged, folder / f"part-{tag}-compacted.parquet")
    for part in merge:
        if part.parent == folder:
            part.unlink()  # this commit's own new part, merged already
    return written, merge


def _version_health(version: Path) -> DatasetHealth:
    """The counts a commit recorded in `version`; counted over its tables
    when it has none (a version written before commits recorded them)."""
    try:
        return DatasetHealth(**json.loads((version / HEALTH_FILE).read_text(encoding="utf-8")))
    except FileNotFoundError:
        documents = read_table(version / "documents", pa.schema([DOCUMENTS.field(c) for c in ("status", "chunks")]))
        pages = read_table(version / "pages", pa.schema([PAGES.field("warnings")]))
        return DatasetHealth.of(documents, pages)


def _write_health(building: Path, health: DatasetHealth) -> None:
    path = building / HEALTH_FILE
    path.write_text(json.dumps(dataclasses.asdict(health)), encoding="utf-8")
    fsync(path)


def _file_count(version: Path) -> int:
    """Files in a version folder's tables (what removing it unlinks)."""
    count = 0
    for table in FOLDERS:
        try:
            count += len(os.listdir(version / table))
        except OSError:
            continue
    return count


def _has_parquet(folder: Path) -> bool:
    """Whether a folder holds a Parquet file (a placeholder counts: it gives the schema)."""
    try:
        with os.scandir(folder) as listing:
            return any(entry.name.endswith(".parquet") for entry in listing)
    except (FileNotFoundError, NotADirectoryError):
        return False


def _rows(outputs: Iterable[DocumentOutput], name: str, schema: pa.Schema) -> pa.Table:
    batches = [getattr(o, name) for o in outputs if getattr(o, name) is not None]
    return pa.Table.from_batches(batches, schema) if batches else schema.empty_table()


def _count(mask: pa.ChunkedArray) -> int:
    return int(pc.sum(pc.cast(mask, pa.int64())).as_py() or 0)


def _ensure_schema_part(folder: Path, schema: pa.Schema, tag: str) -> None:
    """A table with no rows still gets one zero-row file, so readers see its
    columns (a folder with no Parquet file has no schema for pandas or DuckDB)."""
    if not _has_parquet(folder):
        write_parquet(schema.empty_table(), folder / f"{EMPTY_PART_PREFIX}{tag}.parquet")


def _changes(
    change: ChangeSet, version: int, old_ids: Mapping[str, set[str]], moved_ids: Mapping[str, set[str]]
) -> tuple[pa.Table, tuple[int, int, int]]:
    """The commit's change log. Ids are matched across the commit's documents,
    not per doc_id: an edited file is a new doc_id at the same source, and its
    unchanged chunk texts keep their ids (``ragprep.chunk.chunk_id``), so they
    are updates (metadata only), not a remove and an add."""
    new_ids: dict[str, set[str]] = {d: set(ids) for d, ids in moved_ids.items()}
    for output in change.outputs:
        doc_id = output.row.doc_id
        if doc_id is not None and output.chunks is not None:
            new_ids.setdefault(doc_id, set()).update(output.chunks.column("chunk_id").to_pylist())
    all_old = set().union(*old_ids.values()) if old_ids else set()
    all_new = set().union(*new_ids.values()) if new_ids else set()
    rows: list[tuple[str, str, str]] = []  # (op, chunk_id, doc_id)
    for doc_id in sorted(new_ids):
        rows.extend(("add", c, doc_id) for c in sorted(new_ids[doc_id] - all_old))
        rows.extend(("update", c, doc_id) for c in sorted(new_ids[doc_id] & all_old))
    for doc_id in sorted(old_ids):
        rows.extend(("remove", c, doc_id) for c in sorted(old_ids[doc_id] - all_new))
    n = len(rows)
    table = pa.table(
        {
            "run_id": [change.run_id] * n,
            "commit": [change.commit] * n,
            "version": [version] * n,
            "op": [r[0] for r in rows],
            "chunk_id": [r[1] for r in rows],
            "doc_id": [r[2] for r in rows],
        },
        schema=CHANGES,
    )
    ops = [r[0] for r in rows]
    return table, (ops.count("add"), ops.count("remove"), ops.count("update"))
