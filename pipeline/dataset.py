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

A commit builds the next version beside the current one (hard links for the
Parquet files it keeps, new files for what changed), renames it into place,
then swaps the ``current`` symlink with ``rename(2)``, which is atomic. A
process killed at any instant therefore leaves ``current`` pointing at a
complete version: either the previous one or the new one, never a mix. What a
killed commit left half-built is removed by the next commit. A new dataset
appears whole: its first version (every table empty) is built in a sibling
folder renamed onto the dataset's path, so there is never a dataset folder
pyarrow cannot open.

Readers pin a version: ``os.path.realpath("DATASET/current")`` is a version
folder whose files never change (``snapshot``). A version stays on disk until
``version_grace_seconds`` have passed since a commit replaced it, so a reader
that pinned it (or listed files through the links just before a swap) can
finish reading. Paths through ``DATASET/chunks`` re-resolve the link at every
open, so a long read through them can mix two versions.

Parts are immutable. Replacing or deleting a document rewrites only the parts
that hold its rows (``ragprep.pipeline.parts``); the runs table is small and
rewritten whole at every commit; the changes table only grows. Each version
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

    @classmethod
    def open(cls, root: str | Path) -> "Snapshot":
        root = Path(root)
        if not (root / STATE_DIR).is_dir() or not (root / CURRENT).is_symlink():
            raise DatasetError(f"{root}: not a ragprep dataset (run `ragprep run ... --out {root}` first)")
        folder = snapshot(root)
        return cls(root, folder, version_number(folder))

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

    def __init__(self, root: Path, *, version_grace_seconds: float = 900.0, documents_per_part: int = 16) -> None:
        self.root = root
        self.state = root / STATE_DIR
        self.versions = self.state / "versions"
        self.version_grace_seconds = version_grace_seconds
        self.documents_per_part = documents_per_part
        self._lock_fd: int | None = None
        # (version, index of its document parts), kept across this process's commits.
        self._index: tuple[int, PartIndex] | None = None

    @classmethod
    def open(
        cls, root: str | Path, *, version_grace_seconds: float = 900.0, documents_per_part: int = 16
    ) -> "Dataset":
        root = Path(root)
        if root.exists() and not root.is_dir():
            raise DatasetError(f"{root}: the output must be a folder")
        if root.is_dir() and any(root.iterdir()) and not (root / STATE_DIR).is_dir():
            raise DatasetError(f"{root}: the folder is not empty and is not a ragprep dataset; choose another --out")
        if not (root / STATE_DIR).is_dir():
            cls._create(root)
        dataset = cls(root, version_grace_seconds=version_grace_seconds, documents_per_part=documents_per_part)
        try:
            dataset.versions.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DatasetError(f"{root}: cannot create the dataset folder: {exc.strerror}") from exc
        dataset._lock()
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
        version = self.version
        schema = TABLES[name]
        if columns is not None:
            schema = pa.schema([schema.field(c) for c in columns])
        if not version:
            return schema.empty_table()
        return read_table(self._version_dir(version) / name, schema)

    def documents(self, columns: list[str]) -> pa.Table:
        """The current version's documents rows (`columns`), read part by part
        so that the part index comes with them: the run's first commit then
        finds what to rewrite without reading every part again."""
        version = self.version
        if not version:
            return self.table("documents", columns)
        index, table = PartIndex.read(self._version_dir(version), columns)
        self._index = (version, index)
        return table

    def health(self) -> DatasetHealth:
        """The current version's counts: kept by each commit in its version
        folder (``HEALTH_FILE``), so a run's summary reads no table."""
        version = self.version
        return _version_health(self._version_dir(version)) if version else DatasetHealth()

    # -- committing -------------------------------------------------------

    def commit(self, change: ChangeSet) -> CommitResult:
        try:
            return self._commit(change)
        except BaseException:
            self._index = None  # maybe half updated: the next commit scans the version again
            raise

    def _commit(self, change: ChangeSet) -> CommitResult:
        current = self.version
        new = max([current, *self._existing_versions()]) + 1
        building = self.versions / f"v{new:06d}.building"
        if building.exists():
            shutil.rmtree(building)
        building.mkdir()
        old = self._version_dir(current) if current else None
        tag = f"{change.run_id}-{change.commit:04d}"

        replaced = {o.row.doc_id for o in change.outputs if o.row.doc_id is not None}
        # A document reprocessed in this commit gets fresh rows; it is not also moved.
        moves = {d: where for d, where in change.moves.items() if d not in replaced and d not in change.removed_doc_ids}
        unreadable = {o.row.source for o in change.outputs if o.row.doc_id is None} | change.dropped_unreadable
        documents = pa.Table.from_batches([document_batch([o.row for o in change.outputs])], DOCUMENTS)
        edit = Edit(
            drop=frozenset(replaced | change.removed_doc_ids | {unreadable_key(s) for s in unreadable}),
            moves=moves,
            rows={
                name: documents if name == "documents" else _rows(change.outputs, name, schema)
                for name, schema in PART_TABLES.items()
            },
        )
        index = self._part_index(current, old, edit)
        parts = rewrite_parts(old, building, edit, index or PartIndex(), tag, self.documents_per_part)
        written = parts.bytes_written
        # The counts follow the parts rewritten: their rows before, and after.
        before = _version_health(old) if old else DatasetHealth()
        health = before.changed(DatasetHealth.of(*parts.replaced), DatasetHealth.of(*parts.packed))
        _write_health(building, health)
        for name, schema in PART_TABLES.items():
            _ensure_schema_part(building / name, schema, tag)

        changes, counts = _changes(change, new, parts.old_chunk_ids, parts.moved_chunk_ids)
        written += self._append(old, building, "changes", CHANGES, changes, tag)
        written += self._append(old, building, SOURCES_TABLE, SOURCES, change.sources, tag)

        (building / "runs").mkdir()
        if change.runs is not None:
            runs = change.runs(*counts)
        else:
            runs = read_table(old / "runs", RUNS) if old else RUNS.empty_table()
        written += write_parquet(runs, building / "runs" / f"part-{tag}.parquet")

        for sub in building.iterdir():
            fsync(sub)
        fsync(building)
        final = self._version_dir(new)
        os.rename(building, final)
        os.utime(final)  # its mtime is when it replaced the previous version (see _collect_garbage)
        self._point_current_at(final)
        # Without a scan (nothing to find) the new index is unknown: the next commit that needs it scans.
        self._index = (new, parts.index) if index is not None else None
        self._collect_garbage(new)
        return CommitResult(new, *counts, bytes_written=written)

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

    def _append(
        self, old: Path | None, building: Path, name: str, schema: pa.Schema, rows: pa.Table | None, tag: str
    ) -> int:
        """An append-only table: the old parts linked, the new rows one more part."""
        (building / name).mkdir()
        if old is not None:
            link_parts(old / name, building / name, part_names(old / name))
        written = 0
        if rows is not None and rows.num_rows:
            written = write_parquet(rows, building / name / f"part-{tag}.parquet")
        written += _compact(building / name, schema, tag)
        _ensure_schema_part(building / name, schema, tag)
        return written

    def sources(self) -> dict[str, dict[FileStat, str]]:
        """What the runs saw of each input, by source key: each stat it was seen
        with and the SHA-256 read at that stat, for skipping the hashing of
        unchanged files. Part names do not give commit order once compaction
        has merged parts of several commits, so no entry is taken as the
        latest: a stat seen with two different hashes is left out (the file
        is read again)."""
        version = self.version
        if not version:
            return {}
        folder = self._version_dir(version) / SOURCES_TABLE
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


def _compact(folder: Path, schema: pa.Schema, tag: str) -> int:
    """Merge the smallest parts of an append-only table into one when it has
    more than MAX_PARTS: every commit adds a part, and a year of nightly runs
    must not leave readers opening thousands of small files. Merging down to
    half the limit makes compaction rare rather than every commit. Returns
    the bytes written."""
    parts = sorted(data_parts(folder), key=lambda p: p.stat().st_size)
    if len(parts) <= MAX_PARTS:
        return 0
    merge = sorted(parts[: len(parts) - MAX_PARTS // 2 + 1])  # in name (commit) order: later entries last
    merged = pa.concat_tables([read_part(p, schema) for p in merge])
    written = write_parquet(merged, folder / f"part-{tag}-compacted.parquet")
    for part in merge:
        part.unlink()  # a link or a file of this version only: older versions keep theirs
    return written


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
    for table in (*TABLES, SOURCES_TABLE):
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
