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
that hold its rows; the documents and runs tables are small and rewritten
whole at every commit; the changes table only grows.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq

from ragprep.chunk import chunk_ids
from ragprep.extract.errors import RagprepError
from ragprep.pipeline.model import DocumentOutput, DocumentRow
from ragprep.pipeline.records import document_batch
from ragprep.pipeline.schema import CHANGES, CHUNKS, DOCUMENTS, PAGES, RUNS, TABLE_CELLS, TABLES

STATE_DIR = ".ragprep"
CURRENT = "current"
# Zero-row parts that only carry a table's schema; never carried to the next version.
EMPTY_PART_PREFIX = "part-empty-"
_VERSION = re.compile(r"^v(\d{6,})$")
# Parts per table beyond which the smallest are merged (see _compact).
MAX_PARTS = 64
# Tables whose rows belong to a document and are rewritten part by part.
DOCUMENT_TABLES = {"chunks": CHUNKS, "pages": PAGES, "tables": TABLE_CELLS}


class DatasetError(RagprepError):
    """The output folder is not a ragprep dataset, or cannot be written."""


class DatasetBusyError(DatasetError):
    """Another run holds the dataset's lock."""


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


@dataclass(frozen=True)
class CommitResult:
    version: int
    added: int
    removed: int
    updated: int


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_parquet(table: pa.Table, path: Path) -> None:
    """zstd Parquet, fsynced: a committed version must survive a power cut too."""
    pq.write_table(table, path, compression="zstd")
    _fsync(path)


def read_table(folder: Path, schema: pa.Schema) -> pa.Table:
    """All Parquet files of one table folder (empty table when there are none)."""
    if not folder.is_dir() or not any(folder.glob("*.parquet")):
        return schema.empty_table()
    return pads.dataset(folder, format="parquet", schema=schema).to_table()


def snapshot(root: str | Path) -> Path:
    """The version folder ``DATASET/current`` points at now: its tables
    (``<snapshot>/chunks`` ...) are one whole version for as long as a reader
    needs them (``pipeline.version_grace_seconds`` after a commit replaces it)."""
    return Path(os.path.realpath(Path(root) / CURRENT))


@dataclass(frozen=True)
class DatasetHealth:
    """What the dataset holds that a user should hear about after a run."""

    documents: int
    errors: int  # error rows, whichever run wrote them
    empty_documents: int  # read fine, yet no chunk (scans without text, blank pages)
    warned_pages: int  # pages with at least one warning


class Dataset:
    """A dataset folder opened for one run: holds its lock until ``close``."""

    def __init__(self, root: Path, *, version_grace_seconds: float = 3600.0) -> None:
        self.root = root
        self.state = root / STATE_DIR
        self.versions = self.state / "versions"
        self.version_grace_seconds = version_grace_seconds
        self._lock_fd: int | None = None

    @classmethod
    def open(cls, root: str | Path, *, version_grace_seconds: float = 3600.0) -> "Dataset":
        root = Path(root)
        if root.exists() and not root.is_dir():
            raise DatasetError(f"{root}: the output must be a folder")
        if root.is_dir() and any(root.iterdir()) and not (root / STATE_DIR).is_dir():
            raise DatasetError(f"{root}: the folder is not empty and is not a ragprep dataset; choose another --out")
        if not (root / STATE_DIR).is_dir():
            cls._create(root)
        dataset = cls(root, version_grace_seconds=version_grace_seconds)
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
        if not link.is_symlink():
            return 0
        match = _VERSION.match(Path(os.readlink(link)).name)
        return int(match.group(1)) if match else 0

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

    def health(self) -> DatasetHealth:
        documents = self.table("documents", ["status", "chunks"])
        ok = pc.equal(documents.column("status"), "ok")
        empty = pc.and_(ok, pc.equal(documents.column("chunks"), 0))
        warnings = self.table("pages", ["warnings"]).column("warnings")
        warned = pc.greater(pc.fill_null(pc.list_value_length(warnings), 0), 0)
        return DatasetHealth(
            documents=documents.num_rows,
            errors=documents.num_rows - _count(ok),
            empty_documents=_count(empty),
            warned_pages=_count(warned),
        )

    # -- committing -------------------------------------------------------

    def commit(self, change: ChangeSet) -> CommitResult:
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
        touched = replaced | set(change.removed_doc_ids) | set(moves)
        previous = read_table(old / "documents", DOCUMENTS) if old else DOCUMENTS.empty_table()
        # Chunk and page rows exist only for documents the documents table
        # holds (they are committed together): a batch of new documents
        # touches no part, and no part needs reading.
        stored = set(pc.drop_null(previous.column("doc_id")).to_pylist())
        old_ids: dict[str, set[str]] = defaultdict(set)
        new_ids: dict[str, set[str]] = defaultdict(set)  # of moved documents (new source, new ids)
        for name, schema in DOCUMENT_TABLES.items():
            (building / name).mkdir()
            self._carry_parts(old, building, name, schema, touched & stored, moves, tag, old_ids, new_ids)
            batches = [getattr(o, name) for o in change.outputs if getattr(o, name) is not None]
            if any(b.num_rows for b in batches):
                write_parquet(pa.Table.from_batches(batches, schema), building / name / f"part-{tag}.parquet")
            _compact(building / name, schema, tag)
            _ensure_schema_part(building / name, schema, tag)

        documents = self._documents_after(previous, change, touched, moves)
        (building / "documents").mkdir()
        write_parquet(documents, building / "documents" / f"part-{tag}.parquet")

        (building / "changes").mkdir()
        if old is not None:
            for part in sorted((old / "changes").glob("*.parquet")):
                if not _is_placeholder(part):
                    _link(part, building / "changes" / part.name)
        changes, counts = _changes(change, new, old_ids, new_ids)
        if changes.num_rows:
            write_parquet(changes, building / "changes" / f"part-{tag}.parquet")
        _compact(building / "changes", CHANGES, tag)
        _ensure_schema_part(building / "changes", CHANGES, tag)

        (building / "runs").mkdir()
        if change.runs is not None:
            runs = change.runs(*counts)
        else:
            runs = read_table(old / "runs", RUNS) if old else RUNS.empty_table()
        write_parquet(runs, building / "runs" / f"part-{tag}.parquet")

        for sub in building.iterdir():
            _fsync(sub)
        _fsync(building)
        final = self._version_dir(new)
        os.rename(building, final)
        os.utime(final)  # its mtime is when it replaced the previous version (see _collect_garbage)
        self._point_current_at(final)
        self._collect_garbage(new)
        return CommitResult(new, *counts)

    def _existing_versions(self) -> list[int]:
        found = []
        for entry in self.versions.iterdir():
            match = _VERSION.match(entry.name.split(".")[0])
            if match:
                found.append(int(match.group(1)))
        return found

    def _carry_parts(
        self,
        old: Path | None,
        building: Path,
        name: str,
        schema: pa.Schema,
        touched: set[str],
        moves: Mapping[str, tuple[str, tuple[str, ...]]],
        tag: str,
        old_ids: dict[str, set[str]],
        new_ids: dict[str, set[str]],
    ) -> None:
        """Link the parts that hold no touched document; rewrite the others
        without the replaced and removed documents' rows (and with the moved
        documents' new source)."""
        if old is None:
            return
        touched_array = pa.array(sorted(touched), pa.string())
        for index, part in enumerate(sorted((old / name).glob("*.parquet"))):
            if _is_placeholder(part):
                continue
            if not touched or not _holds_any(part, touched_array):
                _link(part, building / name / part.name)
                continue
            rows = pq.read_table(part, schema=schema)
            hit = pc.is_in(rows.column("doc_id"), value_set=touched_array)
            if name == "chunks":
                gone = rows.filter(hit)
                for doc_id, chunk_id in zip(gone.column("doc_id").to_pylist(), gone.column("chunk_id").to_pylist()):
                    old_ids[doc_id].add(chunk_id)
            kept = rows.filter(pc.invert(hit))
            if moves:
                moved = rows.filter(pc.is_in(rows.column("doc_id"), value_set=pa.array(sorted(moves), pa.string())))
                if moved.num_rows:
                    sources = [moves[d][0] for d in moved.column("doc_id").to_pylist()]
                    moved = moved.set_column(
                        moved.schema.get_field_index("source"), schema.field("source"), pa.array(sources, pa.string())
                    )
                    if name == "chunks":
                        moved = _rekeyed(moved, new_ids)
                    kept = pa.concat_tables([kept, moved])
            if kept.num_rows:
                write_parquet(kept, building / name / f"part-{tag}-r{index:04d}.parquet")

    def _documents_after(
        self, previous: pa.Table, change: ChangeSet, touched: set[str], moves: Mapping[str, tuple[str, tuple[str, ...]]]
    ) -> pa.Table:
        rows: list[dict[str, object]] = []
        new_sources = {o.row.source for o in change.outputs if o.row.doc_id is None}
        for row in previous.to_pylist():
            doc_id = row["doc_id"]
            if doc_id is None:
                if row["source"] in change.dropped_unreadable or row["source"] in new_sources:
                    continue
            elif doc_id in moves:
                source, duplicates = moves[doc_id]
                row = {**row, "source": source, "duplicate_sources": list(duplicates)}
            elif doc_id in touched:
                continue
            rows.append(row)
        kept = pa.Table.from_pylist(rows, schema=DOCUMENTS)
        added = pa.Table.from_batches([document_batch([o.row for o in change.outputs])], DOCUMENTS)
        return pa.concat_tables([kept, added]).sort_by([("source", "ascending")])

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
        _fsync(self.root)

    def _collect_garbage(self, current: int) -> None:
        """Remove half-built folders, and each version that a commit replaced
        more than ``version_grace_seconds`` ago (readers may have pinned it).
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
        for older, newer in zip(order, order[1:]):
            if older != current and now - committed[newer] >= self.version_grace_seconds:
                shutil.rmtree(self._version_dir(older), ignore_errors=True)
        for stale in self.root.glob(f".{CURRENT}.*"):
            stale.unlink(missing_ok=True)


def _compact(folder: Path, schema: pa.Schema, tag: str) -> None:
    """Merge the smallest parts into one when a table has more than
    `max_parts`: every commit adds a part, and a year of nightly runs must not
    leave readers opening thousands of small files."""
    max_parts = MAX_PARTS
    parts = sorted(folder.glob("*.parquet"), key=lambda p: p.stat().st_size)
    if len(parts) <= max_parts:
        return
    # Merge down to half the limit, so compaction is rare rather than every commit.
    merge = parts[: len(parts) - max_parts // 2 + 1]
    merged = pa.concat_tables([pq.read_table(p, schema=schema) for p in merge])
    write_parquet(merged, folder / f"part-{tag}-compacted.parquet")
    for part in merge:
        part.unlink()  # a link or a file of this version only: older versions keep theirs


def _count(mask: pa.ChunkedArray) -> int:
    return int(pc.sum(pc.cast(mask, pa.int64())).as_py() or 0)


def _holds_any(part: Path, doc_ids: pa.Array) -> bool:
    """Does the part hold a row of one of `doc_ids`? (Reads one column.)"""
    column = pq.read_table(part, columns=["doc_id"]).column("doc_id")
    return bool(pc.any(pc.is_in(column, value_set=doc_ids)).as_py())


def _is_placeholder(part: Path) -> bool:
    return part.name.startswith(EMPTY_PART_PREFIX)


def _ensure_schema_part(folder: Path, schema: pa.Schema, tag: str) -> None:
    """A table with no rows still gets one zero-row file, so readers see its
    columns (a folder with no Parquet file has no schema for pandas or DuckDB)."""
    if not any(folder.glob("*.parquet")):
        write_parquet(schema.empty_table(), folder / f"{EMPTY_PART_PREFIX}{tag}.parquet")


def _link(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        # A filesystem without hard links: a copy is slower but just as safe.
        shutil.copy2(source, target)


def _rekeyed(moved: pa.Table, new_ids: dict[str, set[str]]) -> pa.Table:
    """Moved documents' chunks under the ids of their new source: the id rule
    hashes the source key (``ragprep.chunk.chunk_id``), and the same text
    keeps its embedding in a store's cache whatever its id."""
    moved = moved.sort_by([("doc_id", "ascending"), ("index", "ascending")])
    ids: list[str] = []
    columns = moved.select(["doc_id", "source", "config_hash", "text"]).to_pydict()
    start = 0
    doc_ids = columns["doc_id"]
    for end in range(1, len(doc_ids) + 1):
        if end == len(doc_ids) or doc_ids[end] != doc_ids[start]:
            fresh = chunk_ids(columns["source"][start], columns["config_hash"][start], columns["text"][start:end])
            new_ids[doc_ids[start]].update(fresh)
            ids.extend(fresh)
            start = end
    index = moved.schema.get_field_index("chunk_id")
    return moved.set_column(index, moved.schema.field("chunk_id"), pa.array(ids, pa.string()))


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


def document_rows(table: pa.Table) -> list[DocumentRow]:
    return [DocumentRow(**row) for row in table.to_pylist()]
