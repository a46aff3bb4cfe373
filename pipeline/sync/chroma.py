"""Chroma: ``chroma:http://HOST:PORT/COLLECTION`` (a server, ``chroma run``) or
``chroma:PATH[#COLLECTION]`` (embedded, collection ``chunks`` by default).

Chroma metadata holds scalars only: lists and structs (``bboxes``,
``heading_path``, ``mcids``, ``modes``, ``struct_types``) are JSON-encoded
strings; numbers, strings and booleans stay as they are, nulls are left out. The sync state lives
in the collection's own metadata (``ragprep:*`` keys), written last.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlparse

import numpy as np
import pyarrow as pa

from ragprep.pipeline.export import flat_metadata
from ragprep.pipeline.sync.model import ID, TEXT, TEXT_HASH, VECTOR, StoreError, StoreUnreachableError, SyncState

STATE_PREFIX = "ragprep:"
PAGE = 1000  # ids per get() when listing a collection


def chroma_metadata(rows: pa.Table) -> list[Mapping[str, Any]]:
    """Store rows' metadata as Chroma takes it: scalars, nested values as JSON."""
    columns = [n for n in rows.column_names if n not in (ID, TEXT, VECTOR)]
    meta = rows.select(columns)
    return [flat_metadata(row, meta.schema) for row in meta.to_pylist()]


class ChromaStore:
    def __init__(self, target: str) -> None:
        try:
            import chromadb
        except ImportError as exc:
            raise StoreError("chroma: stores need the chromadb package: pip install 'ragprep[chroma]'") from exc
        self.uri = f"chroma:{target}"
        if target.startswith(("http://", "https://")):
            url = urlparse(target)
            name = url.path.strip("/")
            if not name or "/" in name or not url.hostname:
                raise StoreError(f"{self.uri}: want chroma:http://HOST:PORT/COLLECTION")
            try:
                self.client = chromadb.HttpClient(
                    host=url.hostname, port=url.port or 8000, ssl=url.scheme == "https",
                    settings=chromadb.Settings(anonymized_telemetry=False),
                )  # fmt: skip
                self.client.heartbeat()
            except Exception as exc:  # noqa: BLE001 - connection errors come in many types
                raise StoreUnreachableError(f"{self.uri}: cannot reach the Chroma server: {exc}") from exc
        else:
            path, _, name = target.partition("#")
            name = name or "chunks"
            self.client = chromadb.PersistentClient(path=path, settings=chromadb.Settings(anonymized_telemetry=False))
        self.collection = self.client.get_or_create_collection(name, embedding_function=None)

    def state(self) -> SyncState | None:
        meta = self.collection.metadata or {}
        if STATE_PREFIX + "version" not in meta:
            return None
        return SyncState(
            dataset_id=str(meta[STATE_PREFIX + "dataset_id"]),
            version=int(meta[STATE_PREFIX + "version"]),
            filter_key=str(meta[STATE_PREFIX + "filter_key"]),
            embedder=str(meta[STATE_PREFIX + "embedder"]),
        )

    def save_state(self, state: SyncState) -> None:
        meta = {k: v for k, v in (self.collection.metadata or {}).items() if not k.startswith(STATE_PREFIX)}
        meta.update({STATE_PREFIX + k: v for k, v in vars(state).items()})
        self.collection.modify(metadata=meta)

    def ids(self) -> set[str]:
        found: set[str] = set()
        offset = 0
        while True:
            page = self.collection.get(include=[], limit=PAGE, offset=offset)["ids"]
            found.update(page)
            if len(page) < PAGE:
                return found
            offset += PAGE

    def stored(self, ids: Sequence[str]) -> dict[str, tuple[str, np.ndarray]]:
        if not ids:
            return {}
        got = self.collection.get(ids=list(ids), include=["embeddings", "metadatas"])
        vectors, metadatas = got["embeddings"], got["metadatas"]
        if vectors is None or metadatas is None:
            return {}
        return {
            i: (str(m[TEXT_HASH]), np.asarray(v, dtype=np.float32)) for i, m, v in zip(got["ids"], metadatas, vectors, strict=True)
        }

    def upsert(self, rows: pa.Table) -> None:
        vectors = rows.column(VECTOR).combine_chunks()
        matrix = vectors.flatten().to_numpy(zero_copy_only=False).reshape(len(rows), -1)
        self.collection.upsert(
            ids=rows.column(ID).to_pylist(),
            embeddings=matrix,
            metadatas=chroma_metadata(rows),
            documents=rows.column(TEXT).to_pylist(),
        )

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self.collection.delete(ids=list(ids))

    def close(self) -> None:
        pass
