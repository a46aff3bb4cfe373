"""How the per-document tables of a version are cut into parts, so a commit
costs what it touches.

``documents``, ``chunks``, ``pages`` and ``tables`` are cut the same way: a
part holds the rows of at most ``per_part`` documents, and a document's rows
in every one of them are in the files of the same name (``part-<tag>-<n>.parquet``). The
documents table is therefore the index: a replaced, removed or moved
document is found by its key (``PartIndex``) and only its part is read and
rewritten, in each table; every other part is carried to the next
version as a hard link. New documents go into new parts. A commit repacks
the survivors of the parts it rewrites together with its new rows, and
takes in a bounded number of small untouched parts as it does (parts shrink
when their documents are replaced), so parts stay near ``per_part``
documents without a compaction pass over the whole table.

Rewritten bytes are then about ``documents touched x per_part`` rows: 100
documents replaced across a dataset of 50,000 rewrite about 1,600 documents'
rows at 16 per part, not the dataset.

A dataset written before this layout (parts not shared by name across the
tables) is rewritten whole by its first commit that touches a
document, once.
"""

from __future__ import annotations

import math
import os
import shutil
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ragprep.chunk import chunk_ids
from ragprep.pipeline.schema import CHUNKS, DOCUMENTS, PAGES, TABLE_CELLS

# Zero-row parts that only carry a table's schema; never carried to the next version.
EMPTY_PART_PREFIX = "part-empty-"
# The tables cut by document, the documents table (the index) first.
PART_TABLES: dict[str, pa.Schema] = {"documents": DOCUMENTS, "chunks": CHUNKS, "pages": PAGES, "tables": TABLE_CELLS}
# Key of a documents row that has no doc_id (a source that could not be read):
# "!" is not a hex digit, so it never equals a SHA-256.
UNREADABLE_MARK = "!"


def unreadable_key(source: str) -> str:
    return UNREADABLE_MARK + source


def row_keys(documents: pa.Table) -> pa.ChunkedArray | pa.Array:
    """Each documents row's key: its doc_id, or for an unreadable source its marked path."""
    marked = pc.binary_join_element_wise(UNREADABLE_MARK, documents.column("source"), "")
    return pc.if_else(pc.is_null(documents.column("doc_id")), marked, documents.column("doc_id"))


def is_placeholder(part: Path) -> bool:
    return part.name.startswith(EMPTY_PART_PREFIX)


def part_names(folder: Path) -> list[str]:
    """The names of a table folder's data parts, sorted ([] when there is no
    folder). Names, not Paths: a commit lists every part of every table, and
    at corpus scale building and sorting Path objects cost more than the listing."""
    try:
        with os.scandir(folder) as listing:
            names = [e.name for e in listing if e.name.endswith(".parquet") and not e.name.startswith(EMPTY_PART_PREFIX)]
    except FileNotFoundError:
        return []
    return sorted(names)


def data_parts(folder: Path) -> list[Path]:
    return [folder / name for name in part_names(folder)]


def read_part(path: Path, schema: pa.Schema, columns: Sequence[str] | None = None) -> pa.Table:
    """One part as `schema` (or those of its `columns`); a column the file
    lacks (written before the column existed) reads as nulls. The file is read
    directly: a dataset scan per file costs twice as much CPU, and a version
    of 50,000 documents has thousands of parts per table."""
    names = list(columns) if columns is not None else schema.names
    target = pa.schema([schema.field(name) for name in names])
    part = pq.ParquetFile(path)
    present = set(part.schema_arrow.names)
    table = part.read(columns=[n for n in names if n in present], use_threads=False)
    arrays = [table.column(n) if n in present else pa.nulls(table.num_rows, target.field(n).type) for n in names]
    return pa.Table.from_arrays(arrays, schema=target)


def read_parts(folder: Path, schema: pa.Schema, columns: Sequence[str] | None = None) -> tuple[list[str], list[pa.Table]]:
    """Every data part of a table folder, by name (``read_part``)."""
    names = part_names(folder)
    return names, [read_part(folder / name, schema, columns) for name in names]


@dataclass
class PartIndex:
    """Which part holds each document of one version, and which documents each part holds.
    A commit updates it in place (``drop``, ``add``): its cost is the parts
    the commit touches, not the documents stored."""

    part_of: dict[str, str] = field(default_factory=dict)  # row key -> part file name
    members: dict[str, list[str]] = field(default_factory=dict)  # part file name -> its row keys
    # Parts not shared by name across the tables (a dataset from before this layout).
    legacy: bool = False

    def size(self, part: str) -> int:
        return len(self.members.get(part, ()))

    def add(self, key: str, part: str) -> None:
        self.part_of[key] = part
        self.members.setdefault(part, []).append(key)

    def drop(self, parts: Iterable[str]) -> None:
        """Forget the given parts and the documents they held."""
        for part in parts:
            for key in self.members.pop(part, ()):
                if self.part_of.get(key) == part:
                    del self.part_of[key]

    @classmethod
    def scan(cls, version: Path | None) -> "PartIndex":
        """Read the index off a version's documents table (two columns, every part)."""
        return cls.read(version, [])[0] if version is not None else cls()

    @classmethod
    def read(cls, version: Path, columns: Sequence[str]) -> tuple["PartIndex", pa.Table]:
        """The index of a version, and its documents rows' `columns`, from one
        read of every documents part: a run's plan reads the rows it needs
        and its first commit finds the parts to rewrite with no second pass."""
        wanted = list(dict.fromkeys([*columns, "doc_id", "source"]))
        names, tables = read_parts(version / "documents", DOCUMENTS, wanted)
        table = pa.concat_tables([pa.schema([DOCUMENTS.field(c) for c in wanted]).empty_table(), *tables])
        keys = row_keys(table).to_pylist()
        index = cls()
        start = 0
        for name, part in zip(names, tables, strict=True):
            index.members[name] = members = keys[start : start + part.num_rows]
            index.part_of.update(dict.fromkeys(members, name))
            start += part.num_rows
        others = [t for t in PART_TABLES if t != "documents"]
        index.legacy = any(p not in index.members for t in others for p in part_names(version / t))
        return index, table.select(list(columns))


@dataclass(frozen=True)
class Edit:
    """What a commit does to the per-document tables."""

    drop: frozenset[str]  # row keys whose rows go (replaced, removed, unreadable re-examined)
    moves: Mapping[str, tuple[str, tuple[str, ...]]]  # doc_id -> (source, duplicate sources)
    rows: Mapping[str, pa.Table]  # new rows of each of PART_TABLES


@dataclass(frozen=True)
class PartsResult:
    old_chunk_ids: dict[str, set[str]]  # dropped or moved document -> its chunk ids before the commit
    moved_chunk_ids: dict[str, set[str]]  # moved document -> its chunk ids under its new source
    index: PartIndex  # the new version's index
    bytes_written: int
    # (documents, pages) rows of the rewritten parts before the commit, and as packed after it.
    replaced: tuple[pa.Table, pa.Table] = (DOCUMENTS.empty_table(), PAGES.empty_table())
    packed: tuple[pa.Table, pa.Table] = (DOCUMENTS.empty_table(), PAGES.empty_table())
    # Names of the parts of `old` the commit replaced (the same names in each table).
    rewritten: frozenset[str] = frozenset()


def rewrite_parts(
    old: Path | None, building: Path, edit: Edit, index: PartIndex, tag: str, per_part: int, *, carry: bool = True
) -> PartsResult:
    """Write the documents, chunks, pages and tables parts the commit changes
    into `building`: touched parts of `old` repacked with the new rows, and,
    with `carry`, every untouched part linked from `old` (a whole version;
    without it `building` holds only what changed, for the journal, and
    ``PartsResult.rewritten`` says which parts of `old` it replaces). `index`
    (of `old`) becomes the new state's, in place; when this raises it is
    neither (the caller drops it)."""
    touched = _touched_parts(old, edit, index)
    pulled = _small_parts(index, touched, per_part) if touched or edit.rows["documents"].num_rows else set()
    rewrite = touched | pulled
    for name in PART_TABLES:
        (building / name).mkdir()
        if old is not None and carry:
            link_parts(old / name, building / name, [p for p in part_names(old / name) if p not in rewrite])
    read = {name: _read_parts(old, name, schema, rewrite) for name, schema in PART_TABLES.items()}
    # The change log needs the chunk ids of dropped and of moved documents (their ids are updated).
    old_ids = _chunk_ids_of(read["chunks"], edit.drop | set(edit.moves))
    moved_ids: dict[str, set[str]] = defaultdict(set)
    kept = {name: _apply(table, edit, name, moved_ids) for name, table in read.items()}
    merged = {name: pa.concat_tables([kept[name], edit.rows[name]]) for name in PART_TABLES}
    index.drop(rewrite)
    index.legacy = False  # a legacy dataset's parts were all rewritten just now
    written = _pack(merged, building, tag, per_part, index)
    replaced = (read["documents"], read["pages"])
    packed = (merged["documents"], merged["pages"])
    return PartsResult(old_ids, dict(moved_ids), index, written, replaced, packed, frozenset(rewrite))


def _touched_parts(old: Path | None, edit: Edit, index: PartIndex) -> set[str]:
    if old is None:
        return set()
    if index.legacy:
        return {p.name for name in PART_TABLES for p in data_parts(old / name)}
    keys = edit.drop | set(edit.moves)
    return {index.part_of[k] for k in keys if k in index.part_of}


def _small_parts(index: PartIndex, touched: set[str], per_part: int) -> set[str]:
    """Untouched parts under half full, smallest first, up to about one part's
    worth of documents: merged into this commit's repacking, so replacements
    cannot leave a trail of near-empty files, at a bounded cost per commit."""
    small = sorted((len(keys), name) for name, keys in index.members.items() if name not in touched and len(keys) < per_part / 2)
    if len(small) < 2 and not touched:
        return set()
    pulled, total = set(), 0
    for size, name in small:
        if total >= per_part:
            break
        pulled.add(name)
        total += size
    return pulled


def _read_parts(old: Path | None, name: str, schema: pa.Schema, parts: set[str]) -> pa.Table:
    if old is None:
        return schema.empty_table()
    tables = [read_part(old / name / p, schema) for p in sorted(parts) if (old / name / p).exists()]
    return pa.concat_tables([schema.empty_table(), *tables])


def _chunk_ids_of(chunks: pa.Table, doc_ids: Iterable[str]) -> dict[str, set[str]]:
    gone = chunks.filter(pc.is_in(chunks.column("doc_id"), value_set=pa.array(sorted(doc_ids), pa.string())))
    old_ids: dict[str, set[str]] = {}
    for doc_id, chunk_id in zip(gone.column("doc_id").to_pylist(), gone.column("chunk_id").to_pylist(), strict=True):
        old_ids.setdefault(doc_id, set()).add(chunk_id)
    return old_ids


def _apply(table: pa.Table, edit: Edit, name: str, moved_ids: dict[str, set[str]]) -> pa.Table:
    """`table` without the dropped rows, with the moved documents' new paths
    (and, in chunks, the ids those give; collected in `moved_ids`)."""
    keys = row_keys(table) if name == "documents" else table.column("doc_id")
    table = table.filter(pc.invert(pc.is_in(keys, value_set=pa.array(sorted(edit.drop), pa.string()))))
    if not edit.moves or not table.num_rows:
        return table
    moved = pc.is_in(table.column("doc_id"), value_set=pa.array(sorted(edit.moves), pa.string()))
    rows = table.filter(moved)
    if not rows.num_rows:
        return table
    doc_ids = rows.column("doc_id").to_pylist()  # only the moved documents' rows
    rows = _set(rows, "source", pa.array([edit.moves[d][0] for d in doc_ids], pa.string()))
    if name == "documents":
        duplicates = pa.array([list(edit.moves[d][1]) for d in doc_ids], pa.list_(pa.string()))
        rows = _set(rows, "duplicate_sources", duplicates)
    if name == "chunks":
        rows = _rekeyed(rows, moved_ids)
    return pa.concat_tables([table.filter(pc.invert(moved)), rows])


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


def _set(table: pa.Table, column: str, values: pa.Array) -> pa.Table:
    index = table.schema.get_field_index(column)
    return table.set_column(index, table.schema.field(column), values)


def _pack(tables: Mapping[str, pa.Table], building: Path, tag: str, per_part: int, index: PartIndex) -> int:
    """Cut the documents into parts of `per_part` (documents in source order,
    each document's chunks and pages in the part of the same name); record
    them in `index`. Returns the bytes written."""
    documents = tables["documents"].sort_by([("source", "ascending")])
    count = math.ceil(documents.num_rows / per_part)
    if not count:
        return 0
    # Part number of each document, then of each chunk and page row by its doc_id.
    group = {}
    keys = row_keys(documents).to_pylist()
    for position, key in enumerate(keys):
        group[key] = position // per_part
    written = 0
    for name in PART_TABLES:
        table = documents if name == "documents" else tables[name]
        if name == "documents":
            numbers = np.arange(documents.num_rows, dtype=np.int64) // per_part
        else:
            # Rows of no stored document (none should exist) would have no part: they go.
            table = table.filter(pc.is_in(table.column("doc_id"), value_set=pa.array(list(group), pa.string())))
            numbers = np.fromiter((group[d] for d in table.column("doc_id").to_pylist()), np.int64, table.num_rows)
        # A stable sort by part number keeps each document's rows in their order.
        order = np.argsort(numbers, kind="stable")
        ordered = table.take(pa.array(order))
        bounds = np.searchsorted(numbers[order], np.arange(count + 1))
        for number in range(count):
            start, stop = int(bounds[number]), int(bounds[number + 1])
            if stop > start:
                path = building / name / f"part-{tag}-{number:04d}.parquet"
                written += write_parquet(ordered.slice(start, stop - start), path)
    for position, key in enumerate(keys):
        index.add(key, f"part-{tag}-{position // per_part:04d}.parquet")
    return written


def fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_parquet(table: pa.Table, path: Path) -> int:
    """zstd Parquet, fsynced (a committed version must survive a power cut
    too); returns the file's size."""
    pq.write_table(table, path, compression="zstd")
    fsync(path)
    return path.stat().st_size


def link_parts(source: Path, target: Path, names: Iterable[str]) -> None:
    """Hard-link the parts `names` of folder `source` into folder `target`
    (a new version carries its untouched parts so). By name against open
    folders (linkat(2)): at 50,000 documents a commit carries about 12,000
    parts, and resolving two full paths per link cost a third of the step."""
    src, dst = os.open(source, os.O_RDONLY | os.O_DIRECTORY), os.open(target, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in names:
            try:
                os.link(name, name, src_dir_fd=src, dst_dir_fd=dst)
            except OSError:
                # A filesystem without hard links: a copy is slower but just as safe.
                shutil.copy2(source / name, target / name)
    finally:
        os.close(src)
        os.close(dst)
