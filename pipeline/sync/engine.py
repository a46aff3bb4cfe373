"""One sync: bring a vector store to a dataset version's filtered chunks.

The store records the dataset version it applied (``SyncState``). A sync pins
the dataset's current version C and reads the change log rows with
``V < version <= C``: every chunk id they name is upserted when the version-C
chunks hold it (and the ``[sync]`` filters keep it), deleted otherwise. A store
with no state, or one filled under other filters, is reconciled in full (all
kept chunks upserted, every other id deleted). Upserts go first, deletes
second, the new state last: killed at any instant, the store still says V and
the next sync redoes the same idempotent work, so it converges to the store an
uninterrupted sync leaves.

Vectors come, in this order, from the store itself (an ``update`` whose text is
unchanged keeps its vector), from the embedding cache (the same text elsewhere or
earlier), and only then from the embedder.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragprep.pipeline.config import SyncConfig
from ragprep.pipeline.dataset import Snapshot
from ragprep.pipeline.schema import CHUNKS
from ragprep.pipeline.sync.embed import Embedder, EmbeddingCache, text_hash
from ragprep.pipeline.sync.model import ID, TEXT_HASH, VECTOR, Store, StoreError, SyncState


class SyncProgress(Protocol):
    def start(self, total: int) -> None: ...
    def advance(self, rows: int) -> None: ...
    def finish(self) -> None: ...


class NoProgress:
    def start(self, total: int) -> None:
        pass

    def advance(self, rows: int) -> None:
        pass

    def finish(self) -> None:
        pass


@dataclass(frozen=True)
class SyncSummary:
    store: str
    dataset: str
    version: int  # dataset version the store now holds: the latest published one
    from_version: int | None  # what it held before (None: nothing, or reconciled in full)
    full: bool  # reconciled in full rather than from the change log
    added: int
    updated: int
    removed: int
    embedded: int  # texts sent to the embedder
    reused: int  # vectors taken from the store or the cache
    truncated: int  # embedded texts longer than the embedder's window
    seconds: float
    embed_seconds: float
    # Commits after `version` still in the dataset's journal (a run writing):
    # not synced, as readers see only published versions; the next sync takes them.
    unpublished: int = 0


def dataset_id(pinned: Snapshot) -> str:
    """The dataset's first run id: what a store records so it is never fed by two datasets.
    First by start time: run ids begin with the start second and end with a random
    suffix, so the smallest id of two runs started in one second may be the later one."""
    runs = pinned.table("runs").sort_by([("started", "ascending"), ("run_id", "ascending")])
    return str(runs.column("run_id")[0].as_py()) if runs.num_rows else ""


def kept(chunks: pa.Table, config: SyncConfig) -> pa.Table:
    """The chunks the ``[sync]`` filters let into the store."""
    mask = pa.array(np.ones(chunks.num_rows, dtype=bool))
    if config.skip_boilerplate:
        mask = pc.and_(mask, pc.invert(chunks.column("is_boilerplate")))
    if config.min_tokens:
        mask = pc.and_(mask, pc.greater_equal(chunks.column("n_tokens"), config.min_tokens))
    if config.modes:
        modes = chunks.column("modes").combine_chunks()
        flat = pc.struct_field(pc.list_flatten(modes), "mode")
        outside = pc.invert(pc.is_in(flat, value_set=pa.array(config.modes)))
        parents = pc.list_parent_indices(modes).to_numpy()
        bad = np.zeros(chunks.num_rows, dtype=bool)
        bad[parents[outside.to_numpy(zero_copy_only=False)]] = True
        mask = pc.and_(mask, pa.array(~bad))
    return chunks.filter(mask)


def sync(
    dataset: str | Path,
    store: Store,
    embedder: Embedder,
    config: SyncConfig,
    cache: EmbeddingCache,
    progress: SyncProgress | None = None,
) -> SyncSummary:
    started = time.monotonic()
    progress = progress or NoProgress()
    pinned = Snapshot.open(dataset)
    state = store.state()
    source_id = dataset_id(pinned)
    if state is not None and state.embedder != embedder.name:
        raise StoreError(
            f"{store.uri} holds vectors of {state.embedder}, not {embedder.name}: sync into another table or collection"
        )
    full = state is None or (state.dataset_id, state.filter_key) != (source_id, config.filter_key) or state.version > pinned.version
    if full:
        wanted = kept(pinned.table("chunks"), config)
        removes = sorted(store.ids() - set(wanted.column("chunk_id").to_pylist()))
    else:
        assert state is not None
        since = (pc.field("version") > state.version) & (pc.field("version") <= pinned.version)
        touched = set(pinned.table("changes", since).column("chunk_id").to_pylist())
        candidates = pinned.table("chunks", pc.field("chunk_id").isin(pa.array(sorted(touched), pa.string())))
        wanted = kept(candidates, config)
        removes = sorted(touched - set(wanted.column("chunk_id").to_pylist()))
    counts = _Counts()
    progress.start(wanted.num_rows + len(removes))
    # Source order: a killed sync has finished whole documents, and reruns read alike.
    wanted = wanted.sort_by([("source", "ascending"), ("index", "ascending")])
    for rows in _batches(wanted, config.write_batch):
        store.upsert(_with_vectors(rows, store, embedder, config, cache, counts))
        progress.advance(rows.num_rows)
    for start in range(0, len(removes), config.write_batch):
        part = removes[start : start + config.write_batch]
        counts.removed += len(store.stored(part))
        store.delete(part)
        progress.advance(len(part))
    store.save_state(SyncState(source_id, pinned.version, config.filter_key, embedder.name))
    progress.finish()
    return SyncSummary(
        store=store.uri,
        dataset=str(dataset),
        version=pinned.version,
        from_version=None if full else state.version if state else None,
        full=full,
        added=counts.added,
        updated=counts.updated,
        removed=counts.removed,
        embedded=counts.embedded,
        reused=counts.reused,
        truncated=counts.truncated,
        seconds=time.monotonic() - started,
        embed_seconds=counts.embed_seconds,
        unpublished=pinned.unpublished,
    )


@dataclass
class _Counts:
    added: int = 0
    updated: int = 0
    removed: int = 0
    embedded: int = 0
    reused: int = 0
    truncated: int = 0
    embed_seconds: float = 0.0


def _batches(table: pa.Table, size: int) -> Iterator[pa.Table]:
    for start in range(0, table.num_rows, size):
        yield table.slice(start, size)


def _with_vectors(
    rows: pa.Table, store: Store, embedder: Embedder, config: SyncConfig, cache: EmbeddingCache, counts: _Counts
) -> pa.Table:
    """`rows` as store rows: ``chunk_id`` renamed ``id``, with text hash and vector."""
    ids = rows.column("chunk_id").to_pylist()
    texts = rows.column("text").to_pylist()
    hashes = [text_hash(t) for t in texts]
    stored = store.stored(ids)
    counts.updated += len(stored)
    counts.added += len(ids) - len(stored)
    vectors: dict[str, np.ndarray] = {h: v for h, v in stored.values()}
    vectors.update(cache.get(embedder.name, (h for h in hashes if h not in vectors)))
    text_of = dict(zip(hashes, texts, strict=True))
    missing = [h for h in text_of if h not in vectors]
    fresh_hashes = set(missing)
    counts.reused += sum(1 for h in hashes if h not in fresh_hashes)
    for start in range(0, len(missing), config.batch_size):
        part = missing[start : start + config.batch_size]
        begun = time.monotonic()
        fresh = embedder.embed([text_of[h] for h in part])
        counts.truncated += embedder.over_window([text_of[h] for h in part])
        counts.embed_seconds += time.monotonic() - begun
        counts.embedded += len(part)
        batch = dict(zip(part, fresh, strict=True))
        cache.put(embedder.name, batch)
        vectors.update(batch)
    matrix = np.stack([vectors[h] for h in hashes]).astype(np.float32, copy=False)
    vector_column = pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1), pa.float32()), matrix.shape[1])
    out = rows.rename_columns([ID if n == "chunk_id" else n for n in rows.column_names])
    return out.append_column(TEXT_HASH, pa.array(hashes, pa.string())).append_column(VECTOR, vector_column)


def store_rows_schema(dim: int) -> pa.Schema:
    """The schema of the rows `upsert` gets, for a vector dimension."""
    fields = [pa.field(ID, pa.string(), nullable=False) if f.name == "chunk_id" else f for f in CHUNKS]
    return pa.schema(
        [*fields, pa.field(TEXT_HASH, pa.string(), nullable=False), pa.field(VECTOR, pa.list_(pa.float32(), dim), nullable=False)]
    )
