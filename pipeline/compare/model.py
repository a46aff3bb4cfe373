"""What ``ragprep compare`` measures: one document as read by one mode, source-neutral.

The same view is built from a live extraction (``ModeDocument.from_result``) or, for
``--dataset MODE=PATH``, from the pages and chunks tables of a pipeline dataset, so the
measures never care where a reading came from. Only what the measures need is kept: page
texts with their counts, block and line spans with boxes, chunk spans with token counts.
Offsets follow the chunk stage: page spans are in the page text, chunk spans in the document
text (the page texts joined with ``"\\f"``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragprep.chunk import PAGE_SEPARATOR, in_table

if TYPE_CHECKING:  # types of the live constructors' arguments
    from ragprep.chunk import Chunk
    from ragprep.extract import DocumentResult, PageResult

BBox = tuple[float, float, float, float]  # x0, y0, x1, y1 in the page's user space

UNAVAILABLE = "unavailable"  # ModePage.mode of a page the requested mode could not read


@dataclass(frozen=True)
class BlockSpan:
    struct_type: str
    heading_level: int | None
    bbox: BBox
    char_start: int  # span in the page text
    char_end: int
    in_table: bool = False  # see in_table()


@dataclass(frozen=True)
class LineSpan:
    char_start: int  # span in the page text, line break excluded
    char_end: int
    bbox: BBox


@dataclass(frozen=True)
class ModePage:
    page: int  # 1-based
    mode: str  # the mode that produced the text (auto: structure or layout), or "unavailable"
    text: str
    glyphs: int
    untagged_glyphs: int
    artifact_glyphs: int
    undecodable_glyphs: int
    reason: str | None = None  # why the mode was unavailable
    blocks: tuple[BlockSpan, ...] = ()
    lines: tuple[LineSpan, ...] = ()

    @property
    def available(self) -> bool:
        return self.mode != UNAVAILABLE

    @classmethod
    def from_page_result(cls, page: PageResult) -> "ModePage":
        return cls(
            page=page.page,
            mode=page.mode,
            text=page.text,
            glyphs=page.glyphs,
            untagged_glyphs=page.untagged_glyphs,
            artifact_glyphs=page.artifact_glyphs,
            undecodable_glyphs=page.undecodable_glyphs,
            reason=page.reason,
            blocks=tuple(
                BlockSpan(
                    b.struct_type, b.heading_level, b.bbox, b.char_start, b.char_end,
                    in_table=in_table(b.struct_type, b.struct_path),
                )
                for b in page.blocks
            ),
            lines=tuple(LineSpan(ln.char_start, ln.char_end, ln.bbox) for ln in page.lines),
        )


@dataclass(frozen=True)
class ModeChunk:
    char_start: int  # span in the document text
    char_end: int
    n_tokens: int
    text: str
    is_boilerplate: bool

    @classmethod
    def from_chunk(cls, chunk: Chunk) -> "ModeChunk":
        return cls(chunk.char_start, chunk.char_end, chunk.n_tokens, chunk.text, chunk.is_boilerplate)


@dataclass(frozen=True)
class ModeDocument:
    """One document read by one requested mode, chunked."""

    doc_id: str  # SHA-256 of the file bytes: how readings of one document are matched
    source: str
    mode: str  # the requested mode (structure, layout, stream, auto)
    pages: tuple[ModePage, ...]
    chunks: tuple[ModeChunk, ...]

    @classmethod
    def from_result(
        cls, result: DocumentResult, chunks: Iterable[Chunk], *, mode: str, doc_id: str, source: str
    ) -> "ModeDocument":
        """The view of a live extraction and the chunks made from it."""
        return cls(
            doc_id=doc_id,
            source=source,
            mode=mode,
            pages=tuple(ModePage.from_page_result(p) for p in result.pages),
            chunks=tuple(ModeChunk.from_chunk(c) for c in chunks),
        )

    @property
    def page_bases(self) -> tuple[int, ...]:
        """Offset of each page's text in the document text."""
        bases, pos = [], 0
        for page in self.pages:
            bases.append(pos)
            pos += len(page.text) + len(PAGE_SEPARATOR)
        return tuple(bases)
