"""From a DocumentResult to Chunk records with provenance."""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ragprep.extract import ExtractConfig
from ragprep.extract import Document, DocumentResult, Mode, PageResult, open_document

from ragprep.chunk.blocks import DocBlock, document_text, flatten, heading_paths
from ragprep.chunk.config import ChunkConfig, config_hash
from ragprep.chunk.model import Chunk, PageBox
from ragprep.chunk.normalise import count_undecodable, normaliser
from ragprep.chunk.packing import Packer
from ragprep.chunk.tables import DocTable, TableChunk, TableRenderer, document_tables
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
    tokenizer: Tokenizer | None = None,
) -> tuple[Chunk, ...]:
    """Chunks of one extracted document, in document order.

    The result's reading mode and extract settings enter the config hash, and
    so the chunk ids, with ``config``. ``tokenizer`` may be given to reuse a
    loaded encoding across documents; it must match ``config.tokenizer_name``.
    """
    config = config or ChunkConfig()
    tok = tokenizer or Tokenizer.load(config.tokenizer_name)
    if tok.name != config.tokenizer_name:
        raise ValueError(f"tokenizer {tok.name!r} does not match the chunk settings' {config.tokenizer_name!r}")
    cfg_hash = config_hash(config, result.extract_config, result.mode)
    pages = result.pages
    text, bases = document_text(pages)
    blocks = flatten(pages, bases, config.boilerplate_min_share)
    if not blocks:
        return ()
    packer = Packer(text, tok, config)
    renderer = TableRenderer(text, tok, config)
    paths = heading_paths(blocks, normaliser(config))
    context = _Context(doc_id, source, config, cfg_hash, pages, bases, paths, [p.page for p in pages])
    chunks: list[Chunk] = []
    for segment in _segments(blocks, document_tables(pages, bases, result.tables, blocks)):
        if isinstance(segment, DocTable):
            parts = renderer.chunks(segment)
            for part in parts:
                chunk = _table_chunk(part, blocks, context, len(chunks))
                titled = None
                if part is parts[0] and chunks and _small_prose(chunks[-1], packer, config):
                    titled = _with_title(chunks[-1], chunk, tok, context)
                if titled is not None:
                    chunks[-1] = titled
                else:
                    chunks.append(chunk)
        else:
            prose = _prose_chunks(segment, packer, context, len(chunks))
            if prose and chunks and chunks[-1].table_id is not None and _small_prose(prose[0], packer, config):
                note = _with_note(chunks[-1], prose[0], tok, context)
                if note is not None:
                    chunks[-1] = note
                    prose = [dataclasses.replace(c, index=len(chunks) + k) for k, c in enumerate(prose[1:])]
            chunks.extend(prose)
    ids = chunk_ids(source, cfg_hash, [c.text for c in chunks])
    return tuple(dataclasses.replace(c, chunk_id=i) for c, i in zip(chunks, ids, strict=True))


@dataclass(frozen=True)
class _Context:
    """What every chunk of one document is made with."""

    doc_id: str
    source: str
    config: ChunkConfig
    cfg_hash: str
    pages: Sequence[PageResult]
    bases: Sequence[int]
    paths: Sequence[tuple[str, ...]]  # heading path per DocBlock.index
    page_numbers: Sequence[int]  # of `pages`, in order: listed once, not per chunk (O(pages) each)


def _segments(blocks: Sequence[DocBlock], tables: Sequence[DocTable]) -> list[list[DocBlock] | DocTable]:
    """Runs of prose blocks and the tables between them: a table stands where
    its first block stood, and its blocks leave the prose."""
    first_of = {t.blocks[0]: t for t in tables}
    covered = {k for t in tables for k in t.blocks}
    out: list[list[DocBlock] | DocTable] = []
    prose: list[DocBlock] = []
    for b in blocks:
        table = first_of.get(b.index)
        if table is not None:
            if prose:
                out.append(prose)
                prose = []
            out.append(table)
        elif b.index not in covered:
            prose.append(b)
    if prose:
        out.append(prose)
    return out


def _prose_chunks(blocks: Sequence[DocBlock], packer: Packer, ctx: _Context, first_index: int) -> list[Chunk]:
    atoms = packer.atoms(blocks)
    spans = packer.pack(atoms)
    block_ends = [b.end for b in blocks]
    block_starts = [b.start for b in blocks]
    chunks: list[Chunk] = []
    for span in spans:
        body = packer.norm(span.start, span.end)
        if not body:
            continue  # only characters the normalisation removes (soft hyphens)
        # Blocks touched by the span (overlap included): bisect on ends, blocks are ordered.
        lo = bisect.bisect_right(block_ends, span.start)
        hi = bisect.bisect_left(block_starts, span.end, lo)
        touched = [b for b in blocks[lo:hi] if b.end > span.start] or [blocks[atoms[span.first_atom].first_block]]
        core = blocks[atoms[span.first_atom].first_block : atoms[span.last_atom].last_block + 1]
        chunks.append(
            _chunk(
                ctx,
                first_index + len(chunks),
                text=span.prefix + body,
                n_tokens=packer.count(span.prefix, span.start, span.end),  # == tokens of the text
                start=span.start,
                end=span.end,
                core_start=span.core_start,
                prefix=span.prefix,
                bboxes=_boxes((b.page, b.block.bbox) for b in touched),
                struct_types=tuple(dict.fromkeys(b.block.struct_type for b in touched)),
                heading_path=_heading_path(core, ctx.paths),
                mcids=_mcids((b.page, b.block.mcids) for b in touched),
                is_boilerplate=all(b.boilerplate for b in core),
            )
        )
    return chunks


def _small_prose(chunk: Chunk, packer: Packer, config: ChunkConfig) -> bool:
    """A prose chunk whose new text is under ``chunk.min_tokens`` (not boilerplate):
    a table's title or heading above it, a note below it."""
    if chunk.table_id is not None or chunk.is_boilerplate or config.min_tokens <= 0:
        return False
    return packer.count("", chunk.core_char_start, chunk.char_end) < config.min_tokens


def _with_title(title: Chunk, table: Chunk, tok: Tokenizer, ctx: _Context) -> Chunk | None:
    """Rule "a table's title opens its first chunk": a small prose chunk right
    before a table (its title, a caption, the heading over it) and the table's
    first chunk as one, when the two fit the budget; None otherwise. A title
    alone is a chunk no query finds the table by."""
    if table.header_prefix:
        return None
    return _joined_with_table(title, table, table, tok, ctx)


def _with_note(table: Chunk, note: Chunk, tok: Tokenizer, ctx: _Context) -> Chunk | None:
    """A small prose chunk right after a table's last chunk (a note, a source
    line under it) and that chunk as one, when they fit; None otherwise."""
    return _joined_with_table(table, note, table, tok, ctx)


def _joined_with_table(head: Chunk, tail: Chunk, table: Chunk, tok: Tokenizer, ctx: _Context) -> Chunk | None:
    text = f"{head.text}\n\n{tail.text}"  # a blank line: the title a paragraph of its own, the table valid Markdown
    tokens = tok.count(text)
    if tokens > ctx.config.max_tokens:
        return None
    struct_types = (*table.struct_types, *(t for t in (head.struct_types + tail.struct_types) if t not in table.struct_types))
    return _chunk(
        ctx,
        head.index,
        text=text,
        n_tokens=tokens,
        start=head.char_start,
        end=tail.char_end,
        core_start=head.core_char_start,
        prefix=head.header_prefix,
        bboxes=_boxes((b.page, (b.x0, b.y0, b.x1, b.y1)) for b in head.bboxes + tail.bboxes),
        struct_types=struct_types,
        heading_path=table.heading_path,
        mcids=_mcids(head.mcids + tail.mcids),
        is_boilerplate=False,
        table_id=table.table_id,
        table_row_start=table.table_row_start,
        table_row_end=table.table_row_end,
    )


def _table_chunk(part: TableChunk, blocks: Sequence[DocBlock], ctx: _Context, index: int) -> Chunk:
    rows = part.table.rows[part.first : part.last + 1]
    cells = [c for r in rows for c in r.cells]
    start, end = min(c.start for c in cells), max(c.end for c in cells)
    covered = [blocks[k] for k in part.table.blocks if start <= blocks[k].start and blocks[k].end <= end]
    return _chunk(
        ctx,
        index,
        text=part.text,
        n_tokens=part.tokens,
        start=start,
        end=end,
        core_start=start,
        prefix=part.prefix,
        bboxes=_boxes((c.page, c.bbox) for c in cells if c.bbox is not None),
        struct_types=tuple(dict.fromkeys(["Table", *(b.block.struct_type for b in covered)])),
        heading_path=ctx.paths[blocks[part.table.blocks[0]].index],
        mcids=_mcids((c.page, c.mcids) for c in cells),
        is_boilerplate=False,
        table_id=part.table.table_id,
        table_row_start=rows[0].row,
        table_row_end=rows[-1].row,
    )


def _chunk(
    ctx: _Context, index: int, *, text: str, n_tokens: int, start: int, end: int, core_start: int, prefix: str,
    bboxes: tuple[PageBox, ...], struct_types: tuple[str, ...], heading_path: tuple[str, ...],
    mcids: tuple[tuple[int, tuple[int, ...]], ...], is_boilerplate: bool,
    table_id: str | None = None, table_row_start: int | None = None, table_row_end: int | None = None,
) -> Chunk:
    """A chunk with the fields every chunk computes the same way: pages, modes,
    untagged share, undecodable count (the id is set once all texts are known)."""
    pages = ctx.pages
    page_numbers = ctx.page_numbers
    page_start = _page_at(ctx.bases, start, pages)
    page_end = _page_at(ctx.bases, max(start, end - 1), pages)
    spanned = pages[bisect.bisect_left(page_numbers, page_start) : bisect.bisect_right(page_numbers, page_end)]
    glyphs = sum(p.glyphs for p in spanned)
    return Chunk(
        chunk_id="",  # set by chunk_document, from the final texts
        doc_id=ctx.doc_id,
        source=ctx.source,
        index=index,
        text=text,
        n_tokens=n_tokens,
        tokenizer=ctx.config.tokenizer_name,
        page_start=page_start,
        page_end=page_end,
        char_start=start,
        char_end=end,
        core_char_start=core_start,
        header_prefix=prefix,
        modes=tuple((p.page, p.mode) for p in spanned),
        untagged_share=sum(p.untagged_glyphs for p in spanned) / glyphs if glyphs else 0.0,
        undecodable=count_undecodable(text),
        config_hash=ctx.cfg_hash,
        bboxes=bboxes,
        struct_types=struct_types,
        heading_path=heading_path,
        mcids=mcids,
        is_boilerplate=is_boilerplate,
        table_id=table_id,
        table_row_start=table_row_start,
        table_row_end=table_row_end,
    )


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
    key = str(path) if source is None else source
    with open_document(data, config=extract_config) as document:
        _, chunks = read_and_chunk(document, mode, doc_id=document_id(data), source=key, config=config, tokenizer=tokenizer)
    return chunks


def read_and_chunk(
    document: Document,
    mode: Mode | str,
    *,
    doc_id: str,
    source: str,
    config: ChunkConfig | None = None,
    tokenizer: Tokenizer | None = None,
) -> tuple[DocumentResult, tuple[Chunk, ...]]:
    """The one stage function: every page of an open document read together in
    `mode` (running headers are a document-level finding), then chunked.
    ``chunk_file``, ``ragprep run``'s workers (and so the external-engine entry
    point) and ``ragprep compare`` all read a document through it."""
    result = document.read(mode)
    return result, chunk_document(result, doc_id=doc_id, source=source, config=config, tokenizer=tokenizer)


def _page_at(bases: Sequence[int], offset: int, pages) -> int:
    return pages[bisect.bisect_right(bases, offset) - 1].page


def _heading_path(core: Sequence[DocBlock], paths: Sequence[tuple[str, ...]]) -> tuple[str, ...]:
    """Headings in effect at the chunk's first non-heading block: the headings
    the chunk opens with belong to its path."""
    for b in core:
        if b.heading_level is None:
            return paths[b.index]
    return paths[core[-1].index]


def _boxes(boxes: Iterable[tuple[int, tuple[float, float, float, float]]]) -> tuple[PageBox, ...]:
    """Per page, the union of the (page, box) pairs."""
    per_page: dict[int, list[float]] = {}
    for page, (x0, y0, x1, y1) in boxes:
        box = per_page.get(page)
        per_page[page] = (
            [x0, y0, x1, y1] if box is None
            else [min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)]
        )
    return tuple(PageBox(p, *box) for p, box in per_page.items())


def _mcids(found: Iterable[tuple[int, tuple[int, ...]]]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    per_page: dict[int, dict[int, None]] = {}
    for page, mcids in found:
        per_page.setdefault(page, {}).update(dict.fromkeys(mcids))
    return tuple((p, tuple(m)) for p, m in per_page.items())
