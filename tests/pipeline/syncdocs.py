"""Helpers for sync tests: a deterministic `module:callable` embedder (the plug-in
path users take for their own models), and reading a store back as rows."""

from __future__ import annotations

import hashlib
import os
import time

import numpy as np

DIM = 16


def trigram_embedder(texts: list[str]) -> list[list[float]]:
    """Character-trigram counts hashed into DIM buckets, L2-normalised: the same
    text always gives the same vector. SYNC_TEST_DELAY seconds per call slow
    it down so a test can kill a sync in the middle; SYNC_TEST_CALLS names a file
    that grows a byte per call, so the test knows how far the sync got."""
    delay = float(os.environ.get("SYNC_TEST_DELAY", "0"))
    if delay:
        time.sleep(delay)
    calls = os.environ.get("SYNC_TEST_CALLS")
    if calls:  # one byte per call: a test can kill the sync after a chosen number of batches
        with open(calls, "ab") as fh:
            fh.write(b".")
    out = np.zeros((len(texts), DIM), dtype=np.float32)
    for row, text in enumerate(texts):
        for k in range(max(1, len(text) - 2)):
            bucket = hashlib.blake2b(text[k : k + 3].encode(), digest_size=2).digest()
            out[row, int.from_bytes(bucket, "little") % DIM] += 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return (out / np.where(norms == 0, 1, norms)).tolist()


def _rounded(meta: dict) -> dict:
    # Chroma keeps floats to about 15 digits: compare metadata numbers to 9.
    return {k: round(v, 9) if isinstance(v, float) else v for k, v in meta.items()}


def store_contents(store) -> dict[str, tuple[str, dict, tuple[float, ...]]]:
    """id -> (text, metadata, vector) of every row a LanceStore or ChromaStore holds,
    read back through the store's own client."""
    from ragprep.pipeline.sync.chroma import ChromaStore

    out = {}
    if isinstance(store, ChromaStore):
        got = store.collection.get(include=["documents", "metadatas", "embeddings"])
        for i, text, meta, vector in zip(got["ids"], got["documents"], got["metadatas"], got["embeddings"], strict=True):
            out[i] = (text, _rounded(dict(meta)), tuple(round(float(x), 5) for x in vector))
        return out
    for row in store.rows().to_pylist():
        chunk_id, text, vector = row.pop("id"), row.pop("text"), row.pop("vector")
        out[chunk_id] = (text, _rounded(row), tuple(round(float(x), 5) for x in vector))
    return out


def store_rows(store) -> int:
    """How many rows the store holds (an id held twice counts twice)."""
    from ragprep.pipeline.sync.chroma import ChromaStore

    return store.collection.count() if isinstance(store, ChromaStore) else store.rows().num_rows


def expected_contents(dataset, config, embed, *, flat: bool) -> dict[str, tuple[str, dict, tuple[float, ...]]]:
    """What a store synced from `dataset` under `config` must hold: the kept
    chunks, their metadata as that store maps it, and the embedder's vectors."""
    from ragprep.pipeline.export import chunk_table, flat_metadata
    from ragprep.pipeline.schema import CHUNKS
    from ragprep.pipeline.sync import kept
    from ragprep.pipeline.sync.embed import text_hash

    rows = kept(chunk_table(dataset), config).to_pylist()
    vectors = embed([r["text"] for r in rows]) if rows else []
    out = {}
    for row, vector in zip(rows, vectors, strict=True):
        chunk_id, text = row.pop("chunk_id"), row.pop("text")
        meta = flat_metadata(row, CHUNKS) if flat else row
        meta["text_hash"] = text_hash(text)
        out[chunk_id] = (text, _rounded(meta), tuple(round(float(x), 5) for x in vector))
    return out
