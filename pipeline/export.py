"""Chunks out of a dataset, in the shape document loaders and vector stores take.

Each record is ``{"id": chunk_id, "page_content": text, "metadata": {...every
other chunk column...}}``, in document order: by ``(source, index)``. LangChain's
``Document(id=..., page_content=..., metadata=...)`` takes it as is; LlamaIndex
nodes come from ``ragprep.integrations.llamaindex``. With ``flat`` the metadata
holds scalars only (lists and structs JSON-encoded, nulls left out: a prose
chunk has no ``table_id`` key), as Chroma, Pinecone and other scalar-only
stores require.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

import pyarrow as pa

from ragprep.pipeline.dataset import Snapshot
from ragprep.pipeline.schema import CHUNKS

ORDER = [("source", "ascending"), ("index", "ascending")]


def flat_metadata(row: Mapping[str, Any], schema: pa.Schema) -> dict[str, Any]:
    """`row` with every list or struct value JSON-encoded and every null left
    out: scalar-only metadata."""
    return {
        k: json.dumps(v, ensure_ascii=False) if pa.types.is_nested(schema.field(k).type) else v
        for k, v in row.items()
        if v is not None
    }


def chunk_table(dataset: str | Path | Snapshot) -> pa.Table:
    """The chunks of the latest published version (one pinned version,
    whatever commits meanwhile; a running run's commits not yet published
    are not in it: ``Snapshot.unpublished``), ordered by (source, index)."""
    pinned = dataset if isinstance(dataset, Snapshot) else Snapshot.open(dataset)
    return pinned.table("chunks").sort_by(ORDER)


def chunk_records(
    dataset: str | Path | Snapshot, *, flat: bool = False, batch_size: int = 4096
) -> Iterator[dict[str, Any]]:
    table = chunk_table(dataset)
    for batch in table.to_batches(max_chunksize=batch_size):
        for row in batch.to_pylist():
            chunk_id, text = row.pop("chunk_id"), row.pop("text")
            yield {"id": chunk_id, "page_content": text, "metadata": flat_metadata(row, CHUNKS) if flat else row}


def write_jsonl(dataset: str | Path | Snapshot, out: IO[str], *, flat: bool = False) -> int:
    count = 0
    for record in chunk_records(dataset, flat=flat):
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        count += 1
    return count
