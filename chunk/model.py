"""The chunk record: text plus the provenance that leads back to the PDF."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PageBox:
    """Union of the boxes of the chunk's blocks on one page (PDF user space of
    that page). A block split across chunks contributes its whole box."""

    page: int
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True)
class Chunk:
    chunk_id: str  # sha256(source, config_hash, occurrence, text): chunker.chunk_id
    doc_id: str  # sha256 of the file bytes
    source: str  # source key: resolved path, or relative to pipeline.source_root
    index: int  # position in the document's chunk sequence
    # header_prefix + normalise(document_text[char_start:char_end]); for table
    # rows, header_prefix + the rows rendered (chunk/tables.py), after the
    # table's title and before its note when those joined it (chunker.py).
    text: str
    n_tokens: int  # tokens of `text`
    tokenizer: str  # encoding name as configured
    page_start: int  # 1-based
    page_end: int
    # Span in the document text: the page texts joined with "\f".
    char_start: int
    char_end: int
    # [char_start, core_char_start) repeats the end of the previous chunk (overlap).
    core_char_start: int
    header_prefix: str  # repeated table header row ("" unless this chunk continues a table)
    bboxes: tuple[PageBox, ...]
    struct_types: tuple[str, ...]  # of the blocks in the span, first appearance order
    heading_path: tuple[str, ...]  # outermost first
    mcids: tuple[tuple[int, tuple[int, ...]], ...]  # (page, mcids) per page spanned
    modes: tuple[tuple[int, str], ...]  # (page, extraction mode) per page spanned
    untagged_share: float  # untagged glyphs / glyphs over the pages spanned
    is_boilerplate: bool
    undecodable: int  # U+FFFD in `text`: characters no font information mapped to Unicode
    config_hash: str
    # A chunk of table rows (chunk/tables.py): the table (the `tables` table's
    # table_id) and its rows table_row_start..table_row_end; None for prose.
    table_id: str | None = None
    table_row_start: int | None = None
    table_row_end: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values (tuples as lists)."""
        return dataclasses.asdict(self)
