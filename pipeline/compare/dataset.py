"""Readings from an existing ``ragprep run`` dataset (``ragprep compare --dataset MODE=PATH``).

The dataset's ``pages`` and ``chunks`` tables (``ragprep.pipeline.schema``) hold everything a
``ModeDocument`` needs. A document is reused only when its ``documents`` row is ok and was
made with the same settings compare runs with (same ``config_hash``: extract and chunk
settings and the mode); any other document is extracted again, so every mode in a comparison
is chunked the same way.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.compute as pc

from ragprep.pipeline.dataset import read_table
from ragprep.pipeline.schema import CHUNKS, DOCUMENTS, PAGES
from ragprep.chunk import in_table
from ragprep.pipeline.compare.model import BlockSpan, LineSpan, ModeChunk, ModeDocument, ModePage
from ragprep.pipeline.errors import DatasetReadError  # defined with every public error

_CHUNK_COLUMNS = ["doc_id", "index", "char_start", "char_end", "n_tokens", "text", "is_boilerplate"]


@dataclass(frozen=True)
class DatasetReadings:
    mode: str
    path: Path
    readings: Mapping[str, ModeDocument]  # by doc_id
    stale: int  # ok documents made with other settings: extracted again, not reused


def _bbox(row: Mapping[str, Any]) -> tuple[float, float, float, float]:
    return (row["x0"], row["y0"], row["x1"], row["y1"])


def _page(row: Mapping[str, Any]) -> ModePage:
    return ModePage(
        page=row["page"],
        mode=row["mode"],
        text=row["text"],
        glyphs=row["glyphs"],
        untagged_glyphs=row["untagged_glyphs"],
        artifact_glyphs=row["artifact_glyphs"],
        undecodable_glyphs=row["undecodable_glyphs"],
        reason=row["reason"],
        blocks=tuple(
            BlockSpan(
                b["struct_type"], b["heading_level"], _bbox(b), b["char_start"], b["char_end"],
                # Schema version 1 has no struct_path: a P inside a TD is then not known as a cell.
                in_table=in_table(b["struct_type"], b.get("struct_path")),
            )
            for b in row["blocks"]
        ),
        lines=tuple(LineSpan(ln["char_start"], ln["char_end"], _bbox(ln)) for ln in row["lines"]),
    )


def load_dataset_readings(path: Path, mode: str, key_hash: str) -> DatasetReadings:
    """The documents of the dataset at ``path`` that were made in ``mode`` with the settings
    whose ``Settings.key_hash`` is ``key_hash``, as readings by doc_id."""
    if not (path / "pages").is_dir() or not (path / "documents").is_dir():
        raise DatasetReadError(f"--dataset {mode}={path}: not a ragprep dataset (no pages and documents tables)")
    documents = read_table(path / "documents", DOCUMENTS)
    documents = documents.filter(pc.equal(documents["status"], "ok"))
    made = {row["doc_id"]: (row["mode"], row["config_hash"]) for row in documents.select(["doc_id", "mode", "config_hash"]).to_pylist()}
    modes = {m for m, _ in made.values()}
    if made and mode not in modes:
        raise DatasetReadError(f"--dataset {mode}={path}: the dataset was made with --mode {', '.join(sorted(modes))}")
    wanted = {doc_id for doc_id, (m, h) in made.items() if m == mode and h == key_hash}
    pages: dict[str, list[ModePage]] = defaultdict(list)
    sources: dict[str, str] = {}
    for row in read_table(path / "pages", PAGES).to_pylist():
        if row["doc_id"] in wanted:
            pages[row["doc_id"]].append(_page(row))
            sources[row["doc_id"]] = row["source"]
    chunks: dict[str, list[tuple[int, ModeChunk]]] = defaultdict(list)
    for row in read_table(path / "chunks", CHUNKS).select(_CHUNK_COLUMNS).to_pylist():
        if row["doc_id"] in wanted:
            chunk = ModeChunk(row["char_start"], row["char_end"], row["n_tokens"], row["text"], row["is_boilerplate"])
            chunks[row["doc_id"]].append((row["index"], chunk))
    readings = {
        doc_id: ModeDocument(
            doc_id=doc_id,
            source=sources[doc_id],
            mode=mode,
            pages=tuple(sorted(pages[doc_id], key=lambda p: p.page)),
            chunks=tuple(c for _, c in sorted(chunks[doc_id], key=lambda ic: ic[0])),
        )
        for doc_id in wanted
        if doc_id in pages
    }
    return DatasetReadings(mode, path, readings, stale=sum(1 for m, _ in made.values() if m == mode) - len(readings))
