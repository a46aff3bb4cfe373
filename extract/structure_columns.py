"""The structure tree's elements and marked content as columns.

``structure.StructTree`` holds its elements and its pages' marked content
as the columns below, one row per element and one per piece of content:
numbers in int64 arrays, the few texts an element carries by its row. The
walk over the object streams' nodes (``_core.TreeObjects.walk``) writes these
columns directly, with no Python object per element. The walks of plain
values (the compiled ``_core.walk_struct`` and ``structure._Walker``'s own
steps, the reference) build ``StructElement`` and ``MarkedContentRef``
objects, which ``element_columns`` and ``content_columns`` turn into the
same columns: whichever walk read a tree, the columns are equal
(tests/extract/test_structure_nodes.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple, cast

import numpy as np

__all__ = [
    "CellTuple", "ContentColumns", "ElementColumns", "MarkedContentRef", "PageContent", "PageKey", "PageRefs",
    "StructElement", "WholeColumns",
    "content_keys", "page_rows",
]

# A page is identified by its object's (object number, generation).
PageKey = tuple[int, int]

# A TH/TD's (row_span, col_span, scope, headers, element_id), StructElement's fields of that name.
CellTuple = tuple[int, int, "str | None", tuple[str, ...], "str | None"]
NO_CELL: CellTuple = (1, 1, None, (), None)

# The walk's columns' dtype (_int64_columns), made once: np.frombuffer given
# the type np.int64 makes a dtype of it on every call (half of the call's cost).
_INT64 = np.dtype(np.int64)


@dataclass(frozen=True, slots=True)
class StructElement:
    """One structure element (§14.7.2, Table 323), in document order."""

    # Position in StructTree.elements: depth-first order of first visit.
    index: int
    # Standard structure type after the role map (§14.7.3, §14.8.4); the raw
    # type when it maps to nothing standard; "NonStruct" for an element whose
    # /S is missing or not a name (a grouping with no meaning of its own, §14.8.4.2).
    type: str
    # /S as written, without the slash ("" when /S is missing).
    raw_type: str
    # Index of the parent element; -1 for kids of /StructTreeRoot.
    parent: int
    # Standard types from the top down to this element: ("Document", "Sect", "P").
    path: tuple[str, ...]
    # H1-H6 (and PDF 2.0's Hn): n. Plain H: 1 + the number of its ancestors,
    # other than its own parent, that are Part/Art/Sect/Div elements with a
    # heading kid (H or Hn). So Sect/H is 1, Sect(H)/Sect/H is 2, Sect(H)/P/H
    # is 2. None for anything else.
    heading_level: int | None
    # Text of a new block element starts on a new line (BLOCK_TYPES).
    block: bool
    # /ActualText (§14.9.4): replaces the text of all content of this element.
    actual_text: str | None
    # /Alt (§14.9.3): alternate description, typically of a Figure.
    alt: str | None
    # /Lang (§14.9.2), inherited from the nearest ancestor that has one, else
    # the catalog's /Lang; None when none applies or the tag is "" (unknown).
    lang: str | None
    # A header cell: type "TH" (§14.8.4.3.4).
    header_cell: bool
    # --- additions to the contract ---
    # (object number, generation) of the element; None for a direct object.
    ref: tuple[int, int] | None
    # The page in effect for this element: its /Pg, else the nearest ancestor's.
    page: PageKey | None
    # Index of the outermost element, this one or an ancestor, with /ActualText:
    # its text replaces all content beneath it (§14.9.4). -1 when none.
    actual_text_owner: int
    # Table attributes of a TH/TD (§14.8.5.7, Table 349), from /A or /C
    # (§14.7.5.2): spans of at least 1, /Scope (Row, Column, Both) and the
    # /ID strings of the header cells /Headers names. Defaults elsewhere.
    row_span: int = 1
    col_span: int = 1
    scope: str | None = None
    headers: tuple[str, ...] = ()
    # /ID (§14.7.2, Table 323) of a TH/TD, what another cell's /Headers names.
    element_id: str | None = None


@dataclass(frozen=True, slots=True)
class MarkedContentRef:
    """A marked-content sequence the tree assigns to a page (§14.7.4.2-3)."""

    mcid: int
    # PAGE_STREAM, or the object number of the form XObject named by the MCR's /Stm.
    stream: int
    # Index of the StructElement that owns this content directly.
    element: int


class ElementColumns(NamedTuple):
    """Per element (StructTree.elements' order), the fields of its StructElement
    that are not derived from others: ``index`` is the row, ``path`` follows
    from the parents' types, ``block`` and ``header_cell`` from the type."""

    parent: np.ndarray  # int64
    type: np.ndarray  # int64: the row of type_names
    heading_level: np.ndarray  # int64: 0 for None
    actual_text_owner: np.ndarray  # int64
    ref_number: np.ndarray  # int64: 0 for a direct object (ref None)
    ref_generation: np.ndarray  # int64
    page: np.ndarray  # int64: the row of page_keys; -1 for None
    path: np.ndarray  # int64: the row of path_names
    lang: Sequence[str | None]
    # Only the elements that have one, by row.
    actual_text: Mapping[int, str]
    alt: Mapping[int, str]
    cells: Mapping[int, CellTuple]  # a TH/TD whose attributes are not all defaults
    # (raw type, standard type) in the order elements first use them.
    type_names: tuple[tuple[str, str], ...]
    # The document's pages, then any other page key an element names, in first use.
    page_keys: tuple[PageKey, ...]
    # StructElement.path of the elements, each once, in the order elements first have it.
    path_names: tuple[tuple[str, ...], ...]


class ContentColumns(NamedTuple):
    """One row per piece of marked content the tree assigns, grouped by page
    (rows of page_keys ascending), in author order within a page."""

    page: np.ndarray  # int64: the row of ElementColumns.page_keys
    stream: np.ndarray  # int64: MarkedContentRef.stream
    mcid: np.ndarray  # int64
    element: np.ndarray  # int64


def content_keys(stream: np.ndarray, mcid: np.ndarray) -> np.ndarray:
    """The key a piece of marked content is matched on: its stream and MCID in one int64."""
    keys: np.ndarray = stream << 32 | mcid
    return keys


class PageRefs(NamedTuple):
    """One page's marked content in author order, as columns of its own (PageContent.refs)."""

    key: np.ndarray  # int64: content_keys(stream, mcid), what a glyph's (mcid_stream, mcid) is matched on
    element: np.ndarray  # int64: the owning element
    stream: np.ndarray  # int64
    mcid: np.ndarray  # int64


class PageContent(NamedTuple):
    """One page's marked content as rows lo:hi of the document's content
    columns (StructTree.page_content_rows): what the compiled placement reads
    (_core.structure_order), with no per-page copy; `refs` slices them."""

    key: np.ndarray  # int64 per content row of the document: content_keys(stream, mcid)
    element: np.ndarray  # int64 per content row: the owning element
    stream: np.ndarray  # int64 per content row
    mcid: np.ndarray  # int64 per content row
    lo: int
    hi: int

    def refs(self) -> PageRefs:
        """The page's rows, as columns of their own."""
        lo, hi = self.lo, self.hi
        return PageRefs(self.key[lo:hi], self.element[lo:hi], self.stream[lo:hi], self.mcid[lo:hi])


def page_rows(pages: Sequence[PageKey]) -> dict[PageKey, int]:
    """Each page's row in page_keys: its first, for a page listed twice."""
    # Last to first: a page listed twice is left at its first row.
    return dict(zip(reversed(pages), range(len(pages) - 1, -1, -1), strict=True))


def page_keys_of(
    pages: Sequence[PageKey], elements: Sequence[StructElement], content: Mapping[PageKey, Sequence[MarkedContentRef]]
) -> tuple[PageKey, ...]:
    """ElementColumns.page_keys of a walk of plain values: the document's
    pages (() when unreadable), then the other pages its elements and content name."""
    keys, known = list(pages), set(pages)  # a page listed twice stays so: rows are the page list's
    for key in [e.page for e in elements if e.page is not None] + list(content):
        if key not in known:
            known.add(key)
            keys.append(key)
    return tuple(keys)


def element_columns(elements: Sequence[StructElement], page_keys: tuple[PageKey, ...]) -> ElementColumns:
    """The columns of a walk of plain values' elements (page_keys_of gives `page_keys`)."""
    rows = page_rows(page_keys)
    types: dict[tuple[str, str], int] = {}
    count = len(elements)

    def column(values: Iterable[int]) -> np.ndarray:
        return np.fromiter(values, dtype=np.int64, count=count)

    cells = {e.index: cell for e in elements if (cell := (e.row_span, e.col_span, e.scope, e.headers, e.element_id)) != NO_CELL}
    paths: dict[tuple[str, ...], int] = {}
    return ElementColumns(
        parent=column(e.parent for e in elements),
        type=column(types.setdefault((e.raw_type, e.type), len(types)) for e in elements),
        heading_level=column(e.heading_level or 0 for e in elements),
        actual_text_owner=column(e.actual_text_owner for e in elements),
        ref_number=column(e.ref[0] if e.ref else 0 for e in elements),
        ref_generation=column(e.ref[1] if e.ref else 0 for e in elements),
        page=column(rows[e.page] if e.page is not None else -1 for e in elements),
        path=column(paths.setdefault(e.path, len(paths)) for e in elements),
        lang=[e.lang for e in elements],
        actual_text={e.index: e.actual_text for e in elements if e.actual_text is not None},
        alt={e.index: e.alt for e in elements if e.alt is not None},
        cells=cells,
        type_names=tuple(types),
        page_keys=page_keys,
        path_names=tuple(paths),
    )


def content_columns(content: Mapping[PageKey, Sequence[MarkedContentRef]], page_keys: Sequence[PageKey]) -> ContentColumns:
    """The columns of a walk of plain values' content per page (every page among `page_keys`)."""
    rows = page_rows(page_keys)
    ordered = sorted(content.items(), key=lambda item: rows[item[0]])
    refs = [ref for _, page_refs in ordered for ref in page_refs]
    count = len(refs)
    page = [rows[key] for key, page_refs in ordered for _ in page_refs]
    return ContentColumns(
        np.array(page, dtype=np.int64),
        np.fromiter((r.stream for r in refs), np.int64, count),
        np.fromiter((r.mcid for r in refs), np.int64, count),
        np.fromiter((r.element for r in refs), np.int64, count),
    )


# A tree's block owner per element, content key per content row and first
# content row per page row (then their count): structure._whole_tree_columns'.
WholeColumns = tuple[np.ndarray, np.ndarray, list[int]]


def walked_columns(
    walked: tuple[object, ...], pages: tuple[PageKey, ...]
) -> tuple[ElementColumns, ContentColumns, WholeColumns]:
    """The columns _core.TreeObjects.walk hands back (its tw_columns), as
    arrays: the paths made, the content grouped by page and the whole-tree
    columns made in C already."""
    element, content, lang, actual_text, alt, cells, type_names, path_names, whole = walked
    parent, type_, level, owner, number, generation, page, path = _int64_columns(element)
    elements = ElementColumns(
        parent, type_, level, owner, number, generation, page, path,
        lang, actual_text, alt, cells, type_names, pages, path_names,  # type: ignore[arg-type]
    )  # fmt: skip
    owners, keys, offsets = cast("tuple[bytes, bytes, list[int]]", whole)
    whole_columns = np.frombuffer(owners, _INT64), np.frombuffer(keys, _INT64), offsets
    return elements, ContentColumns(*_int64_columns(content)), whole_columns


def _int64_columns(columns: object) -> list[np.ndarray]:
    """Bytes of int64 (the walk's columns) as arrays, without a copy."""
    return [np.frombuffer(b, _INT64) for b in columns]  # type: ignore[attr-defined]
