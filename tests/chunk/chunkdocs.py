"""Building DocumentResults from blocks directly, without PDFs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hypothesis import strategies as st

from ragprep.extract.blocks import Block
from ragprep.extract.config import ExtractConfig
from ragprep.extract.document import DocumentResult, PageResult

from ragprep.chunk import Chunk, document_text, normalise


@dataclass
class B:
    """One block to place: text, type, and optional geometry / path."""

    text: str
    struct_type: str = "P"
    heading_level: int | None = None
    struct_path: tuple[str, ...] | None = None
    bbox: tuple[float, float, float, float] | None = None
    header_cell: bool = False
    mcids: tuple[int, ...] = field(default_factory=tuple)


def h(level: int, text: str) -> B:
    return B(text, f"H{level}", heading_level=level)


def page(number: int, blocks: list[B], *, mode: str = "structure", glyphs: int = 100, untagged: int = 0) -> PageResult:
    text, out, y = "", [], 750.0
    for k, b in enumerate(blocks):
        if k:
            text += "\n"  # the extractor's separator between blocks
        start = len(text)
        text += b.text
        bbox = b.bbox or (72.0, y - 12.0, 300.0, y)
        y -= 14.0
        out.append(
            Block(
                text=b.text,
                struct_type=b.struct_type,
                struct_path=b.struct_path or ("Document", b.struct_type),
                heading_level=b.heading_level,
                mcids=b.mcids,
                bbox=bbox,
                char_start=start,
                char_end=len(text),
                header_cell=b.header_cell,
            )
        )
    return PageResult(
        page=number, mode=mode, text=text, glyphs=glyphs, untagged_glyphs=untagged,
        artifact_glyphs=0, undecodable_glyphs=0, blocks=tuple(out),
    )


def doc(*pages: list[B], mode: str = "structure") -> DocumentResult:
    built = tuple(page(i + 1, blocks, mode=mode) for i, blocks in enumerate(pages))
    return DocumentResult(file="<test>", page_count=len(built), pages=built, mode=mode, extract_config=ExtractConfig())


def check_slices(result: DocumentResult, chunks: tuple[Chunk, ...], *, dehyphenate: bool = True) -> None:
    """The documented relation between chunk text and document text."""
    text, _ = document_text(result.pages)
    for c in chunks:
        assert c.text == c.header_prefix + normalise(text[c.char_start : c.char_end], dehyphenate=dehyphenate)
        assert c.char_start <= c.core_char_start < c.char_end


def table(header: list[str], rows: list[list[str]], x0: float = 72.0, top: float = 700.0) -> list[B]:
    """Cells of a tagged table, laid out row by row (TH header row first)."""
    out = []
    for r, cells in enumerate([header, *rows]):
        y = top - 14.0 * r
        for c, cell in enumerate(cells):
            kind = "TH" if r == 0 else "TD"
            out.append(
                B(cell, kind, struct_path=("Document", "Table", "TR", kind),
                  bbox=(x0 + 100.0 * c, y - 10.0, x0 + 100.0 * c + 90.0, y), header_cell=r == 0)
            )
    return out


@st.composite
def random_documents(draw, words: Sequence[str], *, pages: int = 4, blocks: int = 8, ends: Sequence[str] = ("",)):
    """Up to `pages` pages of up to `blocks` blocks: paragraphs of 1-120 of
    `words` (each ending in one of `ends`), headings, and tables (a header row
    and rows of cells of the first four words)."""
    built = []
    for _ in range(draw(st.integers(1, pages))):
        placed: list[B] = []
        for _ in range(draw(st.integers(0, blocks))):
            n = draw(st.integers(1, 120))
            text = " ".join(draw(st.lists(st.sampled_from(words), min_size=n, max_size=n))).strip()
            if not text:
                continue
            kind = draw(st.integers(0, 19))
            if kind == 0:
                width = draw(st.integers(1, 4))
                cells = st.lists(st.sampled_from(words[:4]), min_size=1, max_size=6).map(" ".join)
                head = draw(st.lists(cells, min_size=width, max_size=width))
                rows = draw(st.lists(st.lists(cells, min_size=width, max_size=width), min_size=1, max_size=12))
                placed.extend(table(head, rows, top=700.0 - 14.0 * len(placed)))
            elif kind in (1, 2):
                placed.append(h(draw(st.integers(1, 3)), text[:40].strip() or "H"))
            else:
                placed.append(B(text + draw(st.sampled_from(ends))))
        built.append(placed)
    return doc(*built)
