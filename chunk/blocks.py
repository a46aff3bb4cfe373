"""Blocks of all pages on one axis: the document text.

The document text is the page texts joined with ``"\\f"`` (one form feed between
pages, none after the last), so page ``i`` starts at
``sum(len(text_j) + 1 for j < i)``. Every block gets its span on that axis,
plus what packing needs to know about it: heading level, table and row,
boilerplate.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ragprep.extract import Block
from ragprep.extract import PageResult

from ragprep.chunk.normalise import boilerplate_key, normalise

PAGE_SEPARATOR = "\f"
_HEADING_TYPE = re.compile(r"^H([1-6])$")


@dataclass(frozen=True)
class DocBlock:
    index: int  # position among all blocks of the document
    page: int  # 1-based page number
    page_index: int  # position in DocumentResult.pages
    block: Block
    start: int  # span in the document text
    end: int
    heading_level: int | None
    table: int | None  # id of the table run the block belongs to
    row: int | None  # id of its row (document-wide)
    header_row: bool  # the block is a cell of its table's header row
    boilerplate: bool


def document_text(pages: Sequence[PageResult]) -> tuple[str, tuple[int, ...]]:
    """The document text and the offset of each page in it."""
    bases, pos = [], 0
    for page in pages:
        bases.append(pos)
        pos += len(page.text) + len(PAGE_SEPARATOR)
    return PAGE_SEPARATOR.join(p.text for p in pages), tuple(bases)


def heading_level(block: Block) -> int | None:
    if block.heading_level is not None:
        return block.heading_level
    match = _HEADING_TYPE.match(block.struct_type)
    return int(match.group(1)) if match else None


def in_table(struct_type: str, struct_path: Sequence[str] | None) -> bool:
    """A block of a table: a row or cell, or anything whose path runs through
    a Table (a cell's content is often a P inside TD)."""
    return struct_type in ("TD", "TH", "TR") or "Table" in (struct_path or ())


def _in_table(block: Block) -> bool:
    return in_table(block.struct_type, block.struct_path)


def _new_row(prev: Block, cur: Block) -> bool:
    """Cells carry no row identity, only geometry: a cell starts a row when it
    lies wholly below the previous cell or back to its left."""
    px0, py0, _, _ = prev.bbox
    cx0, _, _, cy1 = cur.bbox
    return cy1 <= py0 + 0.5 or cx0 < px0 - 0.5


def flatten(pages: Sequence[PageResult], bases: Sequence[int], boilerplate_min_share: float) -> list[DocBlock]:
    # Blocks of whitespace alone carry nothing to chunk.
    raw: list[tuple[int, Block]] = [(i, b) for i, page in enumerate(pages) for b in page.blocks if b.text.strip()]
    # Boilerplate: the same digit-masked block text on enough distinct pages.
    # Table cells ("Permanent", dates) and headings repeat by nature and must
    # stay with their table / section, so they are never boilerplate.
    keys = [
        "" if _in_table(b) or heading_level(b) is not None else boilerplate_key(b.text) for _, b in raw
    ]
    pages_of: dict[str, set[int]] = defaultdict(set)
    for (i, _), key in zip(raw, keys, strict=True):
        if key:
            pages_of[key].add(i)
    needed = max(2, boilerplate_min_share * len(pages))

    out: list[DocBlock] = []
    table_id = row_id = -1
    prev: tuple[int, Block] | None = None
    header_open = False  # still inside the first row of the current table
    for n, ((i, block), key) in enumerate(zip(raw, keys, strict=True)):
        table = row = None
        header = False
        if _in_table(block):
            if prev is None or not _in_table(prev[1]):
                table_id += 1
                row_id += 1
                header_open = True
            elif prev[0] != i or _new_row(prev[1], block):
                row_id += 1
                header_open = False
            table, row = table_id, row_id
            header = header_open and (block.header_cell or "THead" in block.struct_path)
            if header_open and not header:
                header_open = False
        out.append(
            DocBlock(
                index=n,
                page=pages[i].page,
                page_index=i,
                block=block,
                start=bases[i] + block.char_start,
                end=bases[i] + block.char_end,
                heading_level=heading_level(block),
                table=table,
                row=row,
                header_row=header,
                boilerplate=bool(key) and len(pages_of[key]) >= needed,
            )
        )
        prev = (i, block)
    _demote_partial_headers(out)
    return out


def _demote_partial_headers(blocks: list[DocBlock]) -> None:
    """A header row is one whose every cell is a header cell."""
    by_row: dict[int, list[int]] = defaultdict(list)
    for k, b in enumerate(blocks):
        if b.row is not None:
            by_row[b.row].append(k)
    for members in by_row.values():
        if not all(blocks[k].header_row for k in members):
            for k in members:
                if blocks[k].header_row:
                    blocks[k] = replace(blocks[k], header_row=False)


def heading_paths(blocks: Sequence[DocBlock], norm: Callable[[str], str] = normalise) -> list[tuple[str, ...]]:
    """Per block: the headings in effect there, outermost first (a heading is
    in its own path)."""
    stack: list[tuple[int, str]] = []
    paths = []
    for b in blocks:
        if b.heading_level is not None:
            while stack and stack[-1][0] >= b.heading_level:
                stack.pop()
            stack.append((b.heading_level, " ".join(norm(b.block.text).split())))
        paths.append(tuple(t for _, t in stack))
    return paths
