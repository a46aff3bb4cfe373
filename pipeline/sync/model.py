"""What crosses between the sync engine and the stores it writes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pyarrow as pa

from ragprep.pipeline.errors import StoreError, StoreUnreachableError  # noqa: F401 - defined with every public error, importable here too

# Columns every store row has besides the chunk's metadata.
ID, TEXT, VECTOR, TEXT_HASH = "id", "text", "vector", "text_hash"


@dataclass(frozen=True)
class SyncState:
    """What a store records of the dataset it holds: written last, after
    every upsert and delete of a sync, so a killed sync leaves the previous
    state and the next one redoes the same (idempotent) work."""

    dataset_id: str  # the dataset's first run id: a store is not fed by two datasets
    version: int  # dataset version applied
    filter_key: str  # SyncConfig.filter_key it was filtered with
    embedder: str  # Embedder.name its vectors come from


class Store(Protocol):
    """A vector store ``ragprep sync`` keeps equal to a dataset's filtered chunks.

    ``rows`` given to ``upsert`` are an Arrow table of the chunks schema with
    ``chunk_id`` renamed ``id``, plus ``text_hash`` and ``vector``
    (fixed-size list of float32); each store maps the metadata to what it accepts.
    """

    uri: str

    def state(self) -> SyncState | None: ...
    def save_state(self, state: SyncState) -> None: ...
    def ids(self) -> set[str]: ...
    def stored(self, ids: Sequence[str]) -> dict[str, tuple[str, np.ndarray]]: ...  # id -> (text_hash, vector)
    def upsert(self, rows: pa.Table) -> None: ...
    def delete(self, ids: Sequence[str]) -> None: ...
    def close(self) -> None: ...
