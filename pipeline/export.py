"""Chunks out of a dataset as JSON lines, in the shape document loaders take.

Each line is ``{"page_content": text, "metadata": {...every other chunk
column...}}``: LangChain's ``Document`` and LlamaIndex's ``TextNode`` both
build from that. Streamed batch by batch, so a million-chunk dataset never
sits in memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pyarrow.dataset as pads

from ragprep.pipeline.dataset import CURRENT, STATE_DIR, DatasetError
from ragprep.pipeline.schema import CHUNKS


def chunk_records(dataset: str | Path, batch_size: int = 4096) -> Iterator[dict[str, object]]:
    root = Path(dataset)
    folder = root / "chunks"
    if not (root / STATE_DIR).is_dir() or not (root / CURRENT).exists():
        raise DatasetError(f"{root}: not a ragprep dataset (run `ragprep run ... --out {root}` first)")
    if not any(folder.glob("*.parquet")):
        return
    # Resolve `current` once so a commit during the export cannot mix versions.
    source = pads.dataset(folder.resolve(), format="parquet", schema=CHUNKS)
    for batch in source.to_batches(batch_size=batch_size):
        for row in batch.to_pylist():
            text = row.pop("text")
            yield {"page_content": text, "metadata": row}


def write_jsonl(dataset: str | Path, out: IO[str]) -> int:
    count = 0
    for record in chunk_records(dataset):
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        count += 1
    return count
