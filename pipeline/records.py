"""The codecs of the dataset's tables: stage results <-> Arrow, beside the schemas.

One function per direction and table, next to nothing else: ``chunk_batch``
(``Chunk`` -> ``CHUNKS``), ``page_batch`` (``PageResult`` -> ``PAGES``),
``table_batch`` (``Table`` cells -> ``TABLE_CELLS``), ``document_batch`` and
``document_rows`` (``DocumentRow`` <-> ``DOCUMENTS``). tests/pipeline/
test_codecs.py holds each dataclass's fields and its schema's columns equal,
so a field added on one side only fails a test instead of a run.

Runs in the worker process, so the parent receives column data (cheap to
pickle, ready to write) rather than thousands of small Python objects.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pyarrow as pa

from ragprep.chunk import document_text
from ragprep.chunk import Chunk
from ragprep.extract import render_all
from ragprep.extract import PageResult
from ragprep.pipeline.model import DocumentRow
from ragprep.pipeline.schema import CHUNKS, DOCUMENTS, PAGES, TABLE_CELLS


def chunk_batch(chunks: Sequence[Chunk]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pydict(
        {
            "chunk_id": [c.chunk_id for c in chunks],
            "doc_id": [c.doc_id for c in chunks],
            "source": [c.source for c in chunks],
            "index": [c.index for c in chunks],
            "text": [c.text for c in chunks],
            "n_tokens": [c.n_tokens for c in chunks],
            "tokenizer": [c.tokenizer for c in chunks],
            "page_start": [c.page_start for c in chunks],
            "page_end": [c.page_end for c in chunks],
            "char_start": [c.char_start for c in chunks],
            "char_end": [c.char_end for c in chunks],
            "core_char_start": [c.core_char_start for c in chunks],
            "header_prefix": [c.header_prefix for c in chunks],
            "bboxes": [
                [{"page": b.page, "x0": b.x0, "y0": b.y0, "x1": b.x1, "y1": b.y1} for b in c.bboxes] for c in chunks
            ],
            "struct_types": [list(c.struct_types) for c in chunks],
            "heading_path": [list(c.heading_path) for c in chunks],
            "mcids": [[{"page": p, "mcids": list(m)} for p, m in c.mcids] for c in chunks],
            "modes": [[{"page": p, "mode": m} for p, m in c.modes] for c in chunks],
            "untagged_share": [c.untagged_share for c in chunks],
            "is_boilerplate": [c.is_boilerplate for c in chunks],
            "undecodable": [c.undecodable for c in chunks],
            "config_hash": [c.config_hash for c in chunks],
            "table_id": [c.table_id for c in chunks],
            "table_row_start": [c.table_row_start for c in chunks],
            "table_row_end": [c.table_row_end for c in chunks],
        },
        schema=CHUNKS,
    )


def page_batch(doc_id: str, source: str, pages: Sequence[PageResult]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pydict(
        {
            "doc_id": [doc_id] * len(pages),
            "source": [source] * len(pages),
            "page": [p.page for p in pages],
            "mode": [p.mode for p in pages],
            "fallback": [p.fallback for p in pages],
            "reason": [p.reason for p in pages],
            "glyphs": [p.glyphs for p in pages],
            "untagged_glyphs": [p.untagged_glyphs for p in pages],
            "artifact_glyphs": [p.artifact_glyphs for p in pages],
            "undecodable_glyphs": [p.undecodable_glyphs for p in pages],
            "warnings": [render_all(p.warnings) for p in pages],
            "text": [p.text for p in pages],
            "blocks": [
                [
                    {
                        "struct_type": b.struct_type,
                        "struct_path": list(b.struct_path),
                        "heading_level": b.heading_level,
                        "x0": b.bbox[0],
                        "y0": b.bbox[1],
                        "x1": b.bbox[2],
                        "y1": b.bbox[3],
                        "char_start": b.char_start,
                        "char_end": b.char_end,
                    }
                    for b in p.blocks
                ]
                for p in pages
            ],
            "lines": [
                [
                    {
                        "char_start": line.char_start,
                        "char_end": line.char_end,
                        "x0": line.bbox[0],
                        "y0": line.bbox[1],
                        "x1": line.bbox[2],
                        "y1": line.bbox[3],
                    }
                    for line in p.lines
                ]
                for p in pages
            ],
        },
        schema=PAGES,
    )


def table_batch(doc_id: str, source: str, pages: Sequence[PageResult]) -> pa.RecordBatch:
    """One row per table cell; spans moved from the page text to the document text."""
    _, bases = document_text(pages)
    base_of = {p.page: base for p, base in zip(pages, bases, strict=True)}
    rows: list[dict[str, object]] = []
    for page in pages:
        for table in page.tables:
            for c in table.cells:
                empty = c.char_start < 0
                box = c.bbox if c.bbox is not None else (None, None, None, None)
                rows.append(
                    {
                        "doc_id": doc_id,
                        "source": source,
                        "table_id": table.table_id,
                        "method": table.source,
                        "page": c.page,
                        "row": c.row,
                        "col": c.col,
                        "row_span": c.row_span,
                        "col_span": c.col_span,
                        "is_header": c.is_header,
                        "header_labels": list(c.header_labels),
                        "text": c.text,
                        "x0": box[0],
                        "y0": box[1],
                        "x1": box[2],
                        "y1": box[3],
                        "mcids": list(c.mcids),
                        "char_start": None if empty else base_of[c.page] + c.char_start,
                        "char_end": None if empty else base_of[c.page] + c.char_end,
                    }
                )
    return pa.RecordBatch.from_pylist(rows, schema=TABLE_CELLS)


_DOCUMENT_FIELDS = tuple(f.name for f in dataclasses.fields(DocumentRow))


def document_batch(rows: Sequence[DocumentRow]) -> pa.RecordBatch:
    columns = {name: [getattr(row, name) for row in rows] for name in _DOCUMENT_FIELDS}
    return pa.RecordBatch.from_pydict(columns, schema=DOCUMENTS)


def document_rows(table: pa.Table) -> list[DocumentRow]:
    """The rows of a documents table (its columns in DocumentRow's field order)."""
    columns = [table.column(name).to_pylist() for name in _DOCUMENT_FIELDS]
    return [DocumentRow(*values) for values in zip(*columns, strict=True)]
