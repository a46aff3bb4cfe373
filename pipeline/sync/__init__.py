"""``ragprep sync``: keep a vector store equal to a dataset's filtered chunks.

Entry points::

    from ragprep.pipeline.sync import EmbeddingCache, load_embedder, open_store, sync

    store = open_store("lancedb:vectors#chunks")        # or chroma:http://127.0.0.1:8000/chunks
    summary = sync("dataset", store, load_embedder("sentence-transformers:all-MiniLM-L6-v2"),
                   settings.sync, EmbeddingCache("dataset/.ragprep/embeddings.sqlite"))

How a sync stays idempotent and crash-safe: ``ragprep.pipeline.sync.engine``.
"""

from __future__ import annotations

import importlib
from typing import Any

# Public name -> module, imported on first use: `ragprep --help` must not pay
# for pyarrow and the stores (the CLI imports ragprep.pipeline.sync.cli).
_EXPORTS = {
    "DEFAULT_EMBEDDER": "embed",
    "Embedder": "embed",
    "EmbedderError": "embed",
    "EmbeddingCache": "embed",
    "load_embedder": "embed",
    "SyncSummary": "engine",
    "kept": "engine",
    "sync": "engine",
    "Store": "model",
    "StoreError": "model",
    "SyncState": "model",
    "open_store": "stores",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
