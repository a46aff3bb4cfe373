"""The dataset's tables, as explicit Arrow schemas (README: "Dataset schema").

Six tables, each a folder of Parquet files under the dataset folder:

- ``chunks``    one row per chunk: the text and its provenance (``ragprep.chunk.Chunk``).
- ``pages``     one row per page of every readable document: mode, counts, text, blocks, lines.
- ``tables``    one row per table cell (``ragprep.extract.TableCell``): grid slot, spans,
                header labels, text, box, MCIDs, span in the document text.
- ``documents`` one row per document: bytes, status, error, timing, config.
- ``runs``      one row per run: when, what it saw, what it changed.
- ``changes``   one row per chunk id a run added, removed or updated, for
                syncing a vector store with upserts and deletes.

Schemas are fixed here rather than inferred, so that an empty batch, a null
column or a new pyarrow version cannot change a column's type between runs.
``SCHEMA_VERSION`` goes into the Parquet metadata; bump it when a column changes.
"""

from __future__ import annotations

import pyarrow as pa

SCHEMA_VERSION = "6"  # 2: documents.attempts; 3: the tables table; 4: changes.version, content-stable chunk ids; 5: chunks.undecodable; 6: chunks.table_*

_BBOX_FIELDS = [pa.field(n, pa.float64(), nullable=False) for n in ("x0", "y0", "x1", "y1")]

CHUNKS = pa.schema(
    [
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("index", pa.int32(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("n_tokens", pa.int32(), nullable=False),
        pa.field("tokenizer", pa.string(), nullable=False),
        pa.field("page_start", pa.int32(), nullable=False),
        pa.field("page_end", pa.int32(), nullable=False),
        pa.field("char_start", pa.int64(), nullable=False),
        pa.field("char_end", pa.int64(), nullable=False),
        pa.field("core_char_start", pa.int64(), nullable=False),
        pa.field("header_prefix", pa.string(), nullable=False),
        pa.field(
            "bboxes",
            pa.list_(pa.struct([pa.field("page", pa.int32(), nullable=False), *_BBOX_FIELDS])),
            nullable=False,
        ),
        pa.field("struct_types", pa.list_(pa.string()), nullable=False),
        pa.field("heading_path", pa.list_(pa.string()), nullable=False),
        pa.field(
            "mcids",
            pa.list_(
                pa.struct(
                    [pa.field("page", pa.int32(), nullable=False), pa.field("mcids", pa.list_(pa.int32()), nullable=False)]
                )
            ),
            nullable=False,
        ),
        pa.field(
            "modes",
            pa.list_(
                pa.struct([pa.field("page", pa.int32(), nullable=False), pa.field("mode", pa.string(), nullable=False)])
            ),
            nullable=False,
        ),
        pa.field("untagged_share", pa.float64(), nullable=False),
        pa.field("is_boilerplate", pa.bool_(), nullable=False),
        pa.field("undecodable", pa.int32(), nullable=False),
        pa.field("config_hash", pa.string(), nullable=False),
        # Table rows: the table (tables.table_id) and its rows; null for prose.
        pa.field("table_id", pa.string()),
        pa.field("table_row_start", pa.int32()),
        pa.field("table_row_end", pa.int32()),
    ],
    metadata={"ragprep.table": "chunks", "ragprep.schema_version": SCHEMA_VERSION},
)

BLOCK = pa.struct(
    [
        pa.field("struct_type", pa.string(), nullable=False),
        # Structure types from the root down to the block (["Document", "Table", "TR", "TD"]).
        pa.field("struct_path", pa.list_(pa.string()), nullable=False),
        pa.field("heading_level", pa.int32()),
        *_BBOX_FIELDS,
        pa.field("char_start", pa.int64(), nullable=False),
        pa.field("char_end", pa.int64(), nullable=False),
    ]
)
LINE = pa.struct(
    [
        pa.field("char_start", pa.int64(), nullable=False),
        pa.field("char_end", pa.int64(), nullable=False),
        *_BBOX_FIELDS,
    ]
)

PAGES = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("page", pa.int32(), nullable=False),
        pa.field("mode", pa.string(), nullable=False),
        pa.field("fallback", pa.string()),
        pa.field("reason", pa.string()),
        pa.field("glyphs", pa.int64(), nullable=False),
        pa.field("untagged_glyphs", pa.int64(), nullable=False),
        pa.field("artifact_glyphs", pa.int64(), nullable=False),
        pa.field("undecodable_glyphs", pa.int64(), nullable=False),
        pa.field("warnings", pa.list_(pa.string()), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("blocks", pa.list_(BLOCK), nullable=False),
        pa.field("lines", pa.list_(LINE), nullable=False),
    ],
    metadata={"ragprep.table": "pages", "ragprep.schema_version": SCHEMA_VERSION},
)

TABLE_CELLS = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        # "s<element>" (tagged) or "d<page>.<k>" (detected); one id over all pages of a table.
        pa.field("table_id", pa.string(), nullable=False),
        pa.field("method", pa.string(), nullable=False),  # structure, rules or alignment
        pa.field("page", pa.int32(), nullable=False),
        pa.field("row", pa.int32(), nullable=False),
        pa.field("col", pa.int32(), nullable=False),
        pa.field("row_span", pa.int32(), nullable=False),
        pa.field("col_span", pa.int32(), nullable=False),
        pa.field("is_header", pa.bool_(), nullable=False),
        pa.field("header_labels", pa.list_(pa.string()), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        # Null for a cell with no content.
        *[pa.field(n, pa.float64()) for n in ("x0", "y0", "x1", "y1")],
        pa.field("mcids", pa.list_(pa.int32()), nullable=False),
        # Span in the document text (the page texts joined with "\f"); null when empty.
        pa.field("char_start", pa.int64()),
        pa.field("char_end", pa.int64()),
    ],
    metadata={"ragprep.table": "tables", "ragprep.schema_version": SCHEMA_VERSION},
)

TIMESTAMP = pa.timestamp("us", tz="UTC")

DOCUMENTS = pa.schema(
    [
        # Null only for a source that could not be read at all (no bytes, no hash).
        pa.field("doc_id", pa.string()),
        pa.field("source", pa.string(), nullable=False),
        # Other paths holding the same bytes; their chunks are not repeated.
        pa.field("duplicate_sources", pa.list_(pa.string()), nullable=False),
        pa.field("bytes", pa.int64()),
        pa.field("pages", pa.int32()),
        pa.field("producer", pa.string()),
        pa.field("tagged", pa.bool_()),
        pa.field("status", pa.string(), nullable=False),  # "ok" or "error"
        pa.field("error_type", pa.string()),
        pa.field("error_message", pa.string()),
        pa.field("error_page", pa.int32()),
        # Runs that have read these bytes under these settings, this one
        # included (retries of transient failures count up). Null in rows
        # written before the column existed: read as 1.
        pa.field("attempts", pa.int32()),
        pa.field("chunks", pa.int32(), nullable=False),
        pa.field("seconds", pa.float64(), nullable=False),
        pa.field("mode", pa.string(), nullable=False),
        pa.field("pipeline_version", pa.string(), nullable=False),
        pa.field("config_hash", pa.string(), nullable=False),
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("processed_at", TIMESTAMP, nullable=False),
    ],
    metadata={"ragprep.table": "documents", "ragprep.schema_version": SCHEMA_VERSION},
)

RUNS = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("started", TIMESTAMP, nullable=False),
        # Null while the run is going on, or when it was killed before its last commit.
        pa.field("finished", TIMESTAMP),
        pa.field("status", pa.string(), nullable=False),  # running, complete, interrupted
        pa.field("commits", pa.int32(), nullable=False),
        pa.field("inputs", pa.int64(), nullable=False),  # files the inputs named
        pa.field("processed", pa.int64(), nullable=False),  # documents extracted and chunked
        pa.field("skipped", pa.int64(), nullable=False),  # unchanged
        pa.field("moved", pa.int64(), nullable=False),  # same bytes, new path
        pa.field("removed", pa.int64(), nullable=False),  # source gone
        pa.field("failed", pa.int64(), nullable=False),  # error rows written
        pa.field("chunks_added", pa.int64(), nullable=False),
        pa.field("chunks_removed", pa.int64(), nullable=False),
        pa.field("chunks_updated", pa.int64(), nullable=False),
        pa.field("mode", pa.string(), nullable=False),
        pa.field("pipeline_version", pa.string(), nullable=False),
        pa.field("config_hash", pa.string(), nullable=False),
    ],
    metadata={"ragprep.table": "runs", "ragprep.schema_version": SCHEMA_VERSION},
)

# What a vector store does with the chunk id: add/update -> upsert, remove -> delete.
CHANGE_OPS = ("add", "remove", "update")

CHANGES = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("commit", pa.int32(), nullable=False),
        # Dataset version the commit created (null in datasets of schema < 4):
        # a store that applied version V applies the rows with version > V.
        pa.field("version", pa.int64()),
        pa.field("op", pa.string(), nullable=False),
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
    ],
    metadata={"ragprep.table": "changes", "ragprep.schema_version": SCHEMA_VERSION},
)

# Not a public table: what the runs saw of each input path, so a rerun need
# not hash a file whose (size, mtime_ns, inode) are unchanged. Append-only;
# the latest entry of a path wins.
SOURCES = pa.schema(
    [
        pa.field("source", pa.string(), nullable=False),
        pa.field("size", pa.int64(), nullable=False),
        pa.field("mtime_ns", pa.int64(), nullable=False),
        pa.field("inode", pa.uint64(), nullable=False),
        pa.field("sha256", pa.string(), nullable=False),
    ],
    metadata={"ragprep.table": "sources", "ragprep.schema_version": SCHEMA_VERSION},
)

TABLES: dict[str, pa.Schema] = {
    "chunks": CHUNKS,
    "pages": PAGES,
    "tables": TABLE_CELLS,
    "documents": DOCUMENTS,
    "runs": RUNS,
    "changes": CHANGES,
}
