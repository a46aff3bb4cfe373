"""From a DocumentResult to Chunk records with provenance."""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Sequence
from pathlib import Path

from ragprep.extract.config import ExtractConfig
from ragprep.extract.document import DocumentResult, Mode, extract_document

from ragprep.chunk.blocks import DocBlock, document_text, flatten, heading_paths
from ragprep.chunk.config import ChunkConfig, config_hash
from ragprep.chunk.model import Chunk, PageBox
from ragprep.chunk.packing import Packer
from ragprep.chunk.tokens import Tokenizer


def document_id(data: bytes) -> str:
    """SHA-256 of the file bytes."""
    return hashlib.sha256(data).hexdigest()


def chunk_id(doc_id: str, start: int, end: int, cfg_hash: str) -> str:
    return hashlib.sha256(f"{doc_id}:{start}:{end}:{cfg_hash}".encode()).hexdigest()


def chunk_document(
    result: DocumentResult,
    *,
    doc_id: str,
    source: str,
    config: ChunkConfig | None = None,
    extract_config: ExtractConfig | None = None,
    tokenizer: Tokenizer | None = None,
    mode: str | None = None,
) -> tuple[Chunk, ...]:
    """Chunks of one extracted document, in document order.

    ``extract_config`` and ``mode`` (the reading mode the result was requested
    in) only enter the config hash, and so the chunk ids; pass the ones the
    result was extracted with. ``tokenizer`` may be given to reuse a loaded
    encoding across documents; it must match ``config.encoding``.
    """
    config = config or ChunkConfig()
    tok = tokenizer or Tokenizer.load(config.encoding)
    if tok.name != config.encoding:
        raise ValueError(f"tokenizer {tok.name!r} does not match chunk.encoding {config.encoding!r}")
    cfg_hash = config_hash(config, extract_config, mode)
    pages = result.pages
    text, bases = document_text(pages)
    blocks = flatten(pages, bases, config.boilerplate_min_share)
    if not blocks:
        return ()
    packer = Packer(text, tok, config)
    atoms = packer.atoms(blocks)
    spans = packer.pack(atoms)
    paths = heading_paths(blocks)
    block_ends = [b.end for b in blocks]
    block_starts = [b.start for b in blocks]
    page_numbers = [p.page for p in pages]
    chunks = []
    for span in spans:
        body = packer.norm(span.start, span.end)
        if not body:
            continue  # only characters the normalisation removes (soft hyphens)
        chunk_text = span.prefix + body
        n = len(chunks)
        # Blocks touched by the span (overlap included): bisect on ends, blocks are ordered.
        lo = bisect.bisect_right(block_ends, span.start)
        hi = bisect.bisect_left(block_starts, span.end, lo)
        touched = [b for b in blocks[lo:hi] if b.end > span.start] or [blocks[atoms[span.first_atom].first_block]]
        core = blocks[atoms[span.first_atom].first_block : atoms[span.last_atom].last_block + 1]
        page_start = _page_at(bases, span.start, pages)
        page_end = _page_at(bases, max(span.start, span.end - 1), pages)
        spanned = pages[bisect.bisect_left(page_numbers, page_start) : bisect.bisect_right(page_numbers, page_end)]
        glyphs = sum(p.glyphs for p in spanned)
        chunks.append(
            Chunk(
                chunk_id=chunk_id(doc_id, span.start, span.end, cfg_hash),
                doc_id=doc_id,
                source=source,
                index=n,
                text=chunk_text,
                n_tokens=packer.count(span.prefix, span.start, span.end),  # == tokens of chunk_text
                tokenizer=config.encoding,
                page_start=page_start,
                page_end=page_end,
                char_start=span.start,
                char_end=span.end,
                core_char_start=span.core_start,
                header_prefix=span.prefix,
                bboxes=_boxes(touched),
                struct_types=tuple(dict.fromkeys(b.block.struct_type for b in touched)),
                heading_path=_heading_path(core, paths),
                mcids=_mcids(touched),
                modes=tuple((p.page, p.mode) for p in spanned),
                untagged_share=sum(p.untagged_glyphs for p in spanned) / glyphs if glyphs else 0.0,
                is_boilerplate=all(b.boilerplate for b in core),
                config_hash=cfg_hash,
            )
        )
    return tuple(chunks)


def chunk_file(
    path: str | Path,
    *,
    mode: Mode | str = Mode.AUTO,
    config: ChunkConfig | None = None,
    extract_config: ExtractConfig | None = None,
    tokenizer: Tokenizer | None = None,
) -> tuple[Chunk, ...]:
    """Extract and chunk one PDF file."""
    data = Path(path).read_bytes()
    result = extract_document(data, mode=mode, config=extract_config)
    return chunk_document(
        result,
        doc_id=document_id(data),
        source=str(path),
        config=config,
        extract_config=extract_config,
        tokenizer=tokenizer,
        mode=Mode(mode).value,
    )


def _page_at(bases: Sequence[int], offset: int, pages) -> int:
    return pages[bisect.bisect_right(bases, offset) - 1].page


def _heading_path(core: Sequence[DocBlock], paths: Sequence[tuple[str, ...]]) -> tuple[str, ...]:
    """Headings in effect at the chunk's first non-heading block: the headings
    the chunk opens with belong to its path."""
    for b in core:
        if b.heading_level is None:
            return paths[b.index]
    return paths[core[-1].index]


def _boxes(blocks: Sequence[DocBlock]) -> tuple[PageBox, ...]:
    per_page: dict[int, list[float]] = {}
    for b in blocks:
        x0, y0, x1, y1 = b.block.bbox
        box = per_page.get(b.page)
        per_page[b.page] = (
            [x0, y0, x1, y1] if box is None
            else [min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)]
        )
    return tuple(PageBox(p, *box) for p, box in per_page.items())


def _mcids(blocks: Sequence[DocBlock]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    per_page: dict[int, dict[int, None]] = {}
    for b in blocks:
        per_page.setdefault(b.page, {}).update(dict.fromkeys(b.block.mcids))
    return tuple((p, tuple(m)) for p, m in per_page.items())
