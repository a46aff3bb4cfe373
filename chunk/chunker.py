"""From a DocumentResult to Chunk records with provenance."""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
from collections.abc import Sequence
from pathlib import Path

from ragprep.extract.config import ExtractConfig
from ragprep.extract.document import DocumentResult, Mode, extract_document

from ragprep.chunk.blocks import DocBlock, document_text, flatten, heading_paths
from ragprep.chunk.config import ChunkConfig, config_hash
from ragprep.chunk.model import Chunk, PageBox
from ragprep.chunk.normalise import count_undecodable, normaliser
from ragprep.chunk.packing import Packer
from ragprep.chunk.tokens import Tokenizer


def document_id(data: bytes) -> str:
    """SHA-256 of the file bytes."""
    return hashlib.sha256(data).hexdigest()


# Bumped when the rule below changes, so ids of two rules never collide.
CHUNK_ID_RULE = "ragprep-chunk-id/2"


def chunk_id(source: str, cfg_hash: str, text: str, occurrence: int = 0) -> str:
    """Content-stable id: SHA-256 of the source key, the settings hash, the
    chunk's text (header prefix included) and its occurrence (how many earlier
    chunks of the document have the same text). Offsets, pages and boxes are
    left out, so a chunk whose text is unchanged keeps its id when other parts
    of its document change; the occurrence keeps duplicates distinct."""
    payload = "\x00".join((CHUNK_ID_RULE, source, cfg_hash, str(occurrence), text))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def chunk_ids(source: str, cfg_hash: str, texts: Sequence[str]) -> list[str]:
    """The ids of one document's chunk texts, in document order (see ``chunk_id``)."""
    seen: dict[str, int] = {}
    ids = []
    for text in texts:
        occurrence = seen.get(text, 0)
        seen[text] = occurrence + 1
        ids.append(chunk_id(source, cfg_hash, text, occurrence))
    return ids


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
    encoding across documents; it must match ``config.tokenizer_name``.
    """
    config = config or ChunkConfig()
    tok = tokenizer or Tokenizer.load(config.tokenizer_name)
    if tok.name != config.tokenizer_name:
        raise ValueError(f"tokenizer {tok.name!r} does not match the chunk settings' {config.tokenizer_name!r}")
    cfg_hash = config_hash(config, extract_config, mode)
    pages = result.pages
    text, bases = document_text(pages)
    blocks = flatten(pages, bases, config.boilerplate_min_share)
    if not blocks:
        return ()
    packer = Packer(text, tok, config)
    atoms = packer.atoms(blocks)
    spans = packer.pack(atoms)
    paths = heading_paths(blocks, normaliser(config))
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
                chunk_id="",  # set below, from the final texts
                doc_id=doc_id,
                source=source,
                index=n,
                text=chunk_text,
                n_tokens=packer.count(span.prefix, span.start, span.end),  # == tokens of chunk_text
                tokenizer=config.tokenizer_name,
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
                undecodable=count_undecodable(chunk_text),
                config_hash=cfg_hash,
            )
        )
    ids = chunk_ids(source, cfg_hash, [c.text for c in chunks])
    return tuple(dataclasses.replace(c, chunk_id=i) for c, i in zip(chunks, ids))


def chunk_file(
    path: str | Path,
    *,
    mode: Mode | str = Mode.AUTO,
    config: ChunkConfig | None = None,
    extract_config: ExtractConfig | None = None,
    tokenizer: Tokenizer | None = None,
    source: str | None = None,
) -> tuple[Chunk, ...]:
    """Extract and chunk one PDF file. `source` is the key its chunks (and
    their ids) carry; default: the path as given."""
    data = Path(path).read_bytes()
    result = extract_document(data, mode=mode, config=extract_config)
    return chunk_document(
        result,
        doc_id=document_id(data),
        source=str(path) if source is None else source,
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
