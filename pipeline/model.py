"""What crosses between the run's parent process and its workers."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import pyarrow as pa


@dataclass(frozen=True)
class DocumentTask:
    """One document to extract and chunk."""

    path: str  # the file to read
    doc_id: str  # SHA-256 the parent saw when planning
    duplicate_sources: tuple[str, ...] = ()  # source keys
    attempt: int = 1  # of these bytes under these settings (documents.attempts)
    # Source key (``ragprep.pipeline.sources``) the rows carry; "" = the path.
    source: str = ""

    @property
    def key(self) -> str:
        return self.source or self.path


@dataclass(frozen=True)
class DocumentRow:
    """A row of the documents table (``ragprep.pipeline.schema.DOCUMENTS``)."""

    doc_id: str | None
    source: str
    duplicate_sources: list[str]
    bytes: int | None
    pages: int | None
    producer: str | None
    tagged: bool | None
    status: str  # "ok" or "error"
    error_type: str | None
    error_message: str | None
    error_page: int | None
    attempts: int | None
    chunks: int
    seconds: float
    mode: str
    pipeline_version: str
    config_hash: str
    run_id: str
    processed_at: datetime

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class DocumentOutput:
    """A worker's answer: the document row and, when it succeeded, its
    chunk, page and table-cell rows as record batches of the dataset schemas."""

    row: DocumentRow
    chunks: pa.RecordBatch | None = None
    pages: pa.RecordBatch | None = None
    tables: pa.RecordBatch | None = None  # one row per table cell
    # The worker must be replaced after this answer (its heap is suspect).
    retire_worker: bool = field(default=False, compare=False)

    @property
    def page_count(self) -> int:
        return self.pages.num_rows if self.pages is not None else 0

    @property
    def chunk_count(self) -> int:
        return self.chunks.num_rows if self.chunks is not None else 0
