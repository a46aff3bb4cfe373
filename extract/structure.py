"""The tagged-PDF structure tree (ISO 32000-1 §14.7, §14.8), read once per document.

``read_struct_tree(pdf)`` walks /StructTreeRoot /K a single time and returns
plain data: every structure element (standard type after the role map, struct
path, heading level, /ActualText, /Alt, /Lang) and, per page, the marked content
the tree assigns to it in author order. Structure-mode page text is built on
top of this (one dictionary lookup per page), so a 500-page document costs one
pass over its tree, not one per page.

The walk
--------
Depth first, in the order of /K (§14.7.2: the order of the kids is the logical
reading order), with an explicit stack instead of recursion so that a tree
thousands of levels deep cannot raise RecursionError. Each stack item is one of

* an element to visit (a dictionary with /S; /Type /StructElem is optional);
* a piece of marked content to record: an integer MCID kid (§14.7.4.2) or a
  marked-content reference dictionary (/Type /MCR, §14.7.4.3). Its page is the
  MCR's own /Pg, else the nearest /Pg on the element or its ancestors (Table
  323); its stream is the page (``PAGE_STREAM``) or, for an MCR with /Stm, the
  object number of that form XObject. /StmOwn (annotation appearances) is
  ignored: ragprep never paints appearance streams;
* an "exit" marker that takes an element off the current path once its kids
  are done, which is how cycles are told apart from shared subtrees.

Object references (/Type /OBJR, §14.7.4.3: annotations, form fields) carry no
page content; they are only counted per page. /K arrays nested in /K arrays are
not allowed by the spec but are flattened in place.

A kid dictionary with /S is an element; otherwise /Type /MCR or an /MCID key
makes an MCR and /Type /OBJR or an /Obj key an OBJR (producers omit /Type);
/Type /StructElem without /S is an element of no type, read as NonStruct.
An element's kids are classified and their types resolved when the element is
expanded, so the element already knows whether it has a heading kid; that is
what the nesting rule for plain H needs (see ``StructElement.heading_level``).
Content kids of an element without kid elements are recorded right away (in
depth-first order they follow the element itself), which keeps leaves cheap.

Defences (each becomes a warning on ``StructTree.warnings``, never an
exception):

* depth: an element deeper than ``max_depth`` (root kids are depth 1) is
  dropped with its subtree;
* cycles: a kid that is an indirect object already on the current path (an
  ancestor, or the root itself) ends that branch;
* shared subtrees: an indirect element, MCR or /K array reached a second time
  from another parent is skipped: each object is visited once, so the walk is
  O(size of the tree) and always terminates;
* content whose /Pg is missing everywhere is placed through the /ParentTree
  (§14.7.4.4: the page whose /StructParents array lists the element at index
  MCID) or, when the /ParentTree places nothing at all, on the only page of a
  one-page document; otherwise it is dropped, as is content on an object that
  is not a page of the document, or a (stream, MCID) already assigned on
  that page (the first assignment in author order wins);
* malformed kids (strings, names, reals, null, negative MCIDs, dictionaries
  with neither /S nor /MCID nor /Obj) are skipped.

Role map
--------
§14.7.3 and §14.8.4: /RoleMap maps non-standard structure types to standard
ones, possibly through a chain (A -> B -> P). Chains are followed until a
standard type; a cycle (A -> B -> A) or a chain that ends on a non-standard
type leaves the raw type. Choices, documented because the spec leaves room:

* In the default namespace an entry of /RoleMap is always followed, even for
  a standard type: ISO 32000-1 §14.7.3 says an element name "shall always be
  mapped to its corresponding name in the role map, if there is one, even if
  the original name is one of the standard types". PDF/UA-1 §7.1 forbids
  remapping the PDF 1.7 standard types, so doing it is a warning; an identity
  entry (/Document /Document, written by LibreOffice) is silent.
* A type without an entry is standard when it is a PDF 1.7 type or one of
  PDF 2.0's additions (Title, FENote, Sub, Em, Strong, Aside,
  DocumentFragment, Artifact). Writers map the 2.0 names for 1.7 readers
  (Word maps /Title to /H1, LibreOffice to /P) and that mapping wins, as
  above; unmapped, they keep their PDF 2.0 meaning.
* Namespaces (ISO 32000-2 §14.8.6): an element whose /NS is the PDF 2.0
  standard namespace keeps its 2.0 type (Title, Aside, H7...); one in another
  namespace follows that namespace's /RoleMapNS (a name value lands in the
  default namespace, an array [type namespace] in the given one), falling back
  to /RoleMap when /RoleMapNS has no entry. MathML types are kept as written.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise, repeat
from types import MappingProxyType
from typing import Any, NamedTuple, TypeGuard

import numpy as np
import pikepdf
from pikepdf import ObjectType

from ragprep.extract.errors import describe
from ragprep.extract.native import compiled_core
from ragprep.extract.glyphs import PAGE_STREAM
from ragprep.extract.rows import frozen_instance, paused_collection
from ragprep.extract.structure_columns import (
    NO_CELL,
    ContentColumns,
    ElementColumns,
    MarkedContentRef,
    PageContent,
    PageKey,
    StructElement,
    WholeColumns,
    content_columns,
    content_keys,
    element_columns,
    page_keys_of,
    page_rows,
    walked_columns,
)
from ragprep.extract.structure_objects import PlainObjects, Ref, Stream, kind_of, text_string
from ragprep.extract.warning import PageWarning, WarningCounter, WarningKind

__all__ = [
    "BLOCK_TYPES",
    "MarkedContentRef",
    "PDF17_STANDARD_TYPES",
    "PDF20_STANDARD_TYPES",
    "PageKey",
    "StructElement",
    "StructTree",
    "page_struct_parents",
    "read_struct_tree",
]


# §14.8.4, Tables 333-338 (grouping, block-level, list, table, inline-level,
# illustration elements): the PDF 1.7 standard structure types.
PDF17_STANDARD_TYPES = frozenset(
    {
        # grouping elements §14.8.4.2
        "Document", "Part", "Art", "Sect", "Div", "BlockQuote", "Caption",
        "TOC", "TOCI", "Index", "NonStruct", "Private",
        # paragraphlike elements §14.8.4.3.2
        "H", "H1", "H2", "H3", "H4", "H5", "H6", "P",
        # list elements §14.8.4.3.3
        "L", "LI", "Lbl", "LBody",
        # table elements §14.8.4.3.4
        "Table", "TR", "TH", "TD", "THead", "TBody", "TFoot",
        # inline-level elements §14.8.4.4
        "Span", "Quote", "Note", "Reference", "BibEntry", "Code", "Link",
        "Annot", "Ruby", "RB", "RT", "RP", "Warichu", "WT", "WP",
        # illustration elements §14.8.4.5
        "Figure", "Formula", "Form",
    }
)  # fmt: skip

# ISO 32000-2 §14.8.4: types added by the PDF 2.0 standard structure namespace.
PDF20_STANDARD_TYPES = frozenset(
    {"DocumentFragment", "Aside", "Title", "FENote", "Sub", "Em", "Strong", "Artifact"}
)

# Where a new block starts on a new line: grouping elements (§14.8.4.2) except
# the transparent NonStruct/Private, paragraphlike, list items, table parts
# (§14.8.4.3), Note (footnotes are set apart in practice although §14.8.4.4
# lists Note as inline), Figure and Formula (§14.8.4.5), and PDF 2.0's
# DocumentFragment, Aside, Title, FENote and Sub (a line of a poem or of code).
# Lbl and LBody are not blocks: LI already starts the line and "1. Text" stays
# one line; block elements inside LBody (P, L) still break.
BLOCK_TYPES = frozenset(
    {
        "Document", "Part", "Art", "Sect", "Div", "BlockQuote", "Caption",
        "TOC", "TOCI", "Index",
        "H", "H1", "H2", "H3", "H4", "H5", "H6", "P",
        "L", "LI",
        "Table", "TR", "TH", "TD", "THead", "TBody", "TFoot",
        "Note", "Figure", "Formula",
        "DocumentFragment", "Aside", "Title", "FENote", "Sub",
    }
)  # fmt: skip

# Elements whose heading kid (H, Hn) makes them a level of the outline, for the
# nesting rule of plain H (§14.8.4.3.2: "H ... should be the first child of the
# division that it heads").
_SECTIONING_TYPES = frozenset({"Part", "Art", "Sect", "Div"})

_NUMBERED_HEADING = re.compile(r"H([1-9][0-9]*)")
# A reference (§7.3.10) as qpdf unparses one: "N G R".
_KID_REFERENCE = re.compile(rb"(\d+) (\d+) R")

# ISO 32000-2 §14.8.6: namespace URIs with a fixed meaning.
_NS_PDF17 = "http://iso.org/pdf/ssn"
_NS_PDF20 = "http://iso.org/pdf2/ssn"
_NS_MATHML = "http://www.w3.org/1998/Math/MathML"

# --------------------------------------------------------------------------- public types


@dataclass(frozen=True, eq=False)
class StructTree:
    """The whole structure tree of a document, as plain data: its elements
    and its pages' marked content held as columns (structure_columns.py);
    StructElement and MarkedContentRef objects are made only where asked for."""

    columns: ElementColumns
    # Per page, the marked content assigned to it in author order (depth-first
    # order of /K, §14.7.2); each (stream, MCID) at most once.
    content: ContentColumns
    # Per page, the number of /OBJR kids (annotations, form fields) skipped.
    object_refs: Mapping[PageKey, int]
    # What was wrong with the tree, deduplicated, with counts.
    warnings: tuple[PageWarning, ...]
    # _whole_tree_columns' answer where the walk made it with the columns (the node walk), else None.
    whole_columns: WholeColumns | None = field(default=None, repr=False)

    def __eq__(self, other: object) -> bool:
        """Equal as plain data: the same elements, content, object references and warnings."""
        if not isinstance(other, StructTree):
            return NotImplemented
        mine = (self.elements, dict(self.page_content), dict(self.object_refs), self.warnings)
        return mine == (other.elements, dict(other.page_content), dict(other.object_refs), other.warnings)

    __hash__ = None  # type: ignore[assignment]

    @property
    def size(self) -> int:
        """The number of elements."""
        return len(self.columns.parent)

    @cached_property
    def elements(self) -> tuple[StructElement, ...]:
        """Every element, in document order (made at first use: tests, debugging)."""
        return tuple(map(self.element, range(self.size)))

    def element(self, index: int) -> StructElement:
        """The element at `index`, made from the columns."""
        c = self.columns
        raw, std = c.type_names[c.type[index]]
        number, page = int(c.ref_number[index]), int(c.page[index])
        row_span, col_span, scope, headers, element_id = c.cells.get(index, NO_CELL)
        return frozen_instance(  # all fields, the walk's values
            StructElement,
            {
                "index": index, "type": std, "raw_type": raw, "parent": int(c.parent[index]), "path": self.path(index),
                "heading_level": int(c.heading_level[index]) or None, "block": bool(self._type_table[c.type[index]]),
                "actual_text": c.actual_text.get(index), "alt": c.alt.get(index), "lang": c.lang[index],
                "header_cell": std == "TH", "ref": (number, int(c.ref_generation[index])) if number else None,
                "page": c.page_keys[page] if page >= 0 else None,
                "actual_text_owner": int(c.actual_text_owner[index]), "row_span": row_span, "col_span": col_span,
                "scope": scope, "headers": headers, "element_id": element_id,
            },
        )  # fmt: skip

    def path(self, index: int) -> tuple[str, ...]:
        """StructElement.path of element `index`: its parent's and its own standard type."""
        return self.columns.path_names[self.columns.path[index]]

    def values(self, attribute: str, indices: list[int] | np.ndarray) -> list[Any]:
        """StructElement.`attribute` of each element of `indices`, read from
        the columns (a block's label, a table's cells: no element made)."""
        rows = np.asarray(indices, dtype=np.int64)
        read = _COLUMN_READS.get(attribute)
        if read is None:
            return [getattr(self.element(i), attribute) for i in rows.tolist()]
        return read(self, rows)

    def labels(self, rows: np.ndarray) -> tuple[list[Any], ...]:
        """StructElement's type, path, heading_level, lang, header_cell and
        alt of each element of `rows` (a page's block labels): each column
        read once for all rows, the type row taken once for both its fields."""
        c, listed = self.columns, rows.tolist()
        type_row = c.type[rows]
        names, header_cell = self._type_fields
        return (
            names[type_row].tolist(),
            list(map(c.path_names.__getitem__, c.path[rows].tolist())),
            [level or None for level in c.heading_level[rows].tolist()],
            list(map(c.lang.__getitem__, listed)),
            header_cell[type_row].tolist(),
            list(map(c.alt.get, listed)),
        )

    @property
    def label_columns(self) -> tuple[Any, ...]:
        """What _core.run_labels reads labels from (the compiled labels):
        per element its type row, path row and heading level (int64), per
        type row its standard type and whether it is TH, the path names,
        /Lang per element and /Alt by element."""
        return self._tables.label_columns

    @cached_property
    def page_content(self) -> Mapping[PageKey, tuple[MarkedContentRef, ...]]:
        """Per page with content, its MarkedContentRefs (made at first use: tests, debugging)."""
        keys, offsets = self.columns.page_keys, self._tables.page_offsets
        return MappingProxyType(
            {keys[row]: self._refs(lo, hi) for row, (lo, hi) in enumerate(pairwise(offsets)) if lo < hi}
        )

    def page_refs(self, page: PageKey | pikepdf.Page | pikepdf.Object) -> tuple[MarkedContentRef, ...]:
        """The page's marked content in author order; () when the tree has none."""
        lo, hi = self._bounds(page)
        return self._refs(lo, hi)

    def page_content_rows(self, page: PageKey | pikepdf.Page | pikepdf.Object) -> PageContent:
        """The page's marked content in author order: its rows of the
        document's content columns (no copy; lo == hi when it has none)."""
        tables = self._tables
        lo, hi = self._bounds(page)
        return PageContent(tables.content_keys, tables.content_element, self.content.stream, self.content.mcid, lo, hi)

    def _refs(self, lo: int, hi: int) -> tuple[MarkedContentRef, ...]:
        c = self.content
        rows = zip(c.mcid[lo:hi].tolist(), c.stream[lo:hi].tolist(), c.element[lo:hi].tolist(), strict=True)
        return tuple(MarkedContentRef(mcid, stream, element) for mcid, stream, element in rows)

    def _bounds(self, page: PageKey | pikepdf.Page | pikepdf.Object) -> tuple[int, int]:
        """The page's rows of the content columns (grouped by page); (0, 0) for a page not in page_keys."""
        tables = self._tables
        row = tables.page_row.get(_page_key(page))
        if row is None:
            return 0, 0
        return tables.page_offsets[row], tables.page_offsets[row + 1]

    @cached_property
    def _tables(self) -> _TreeTables:
        """What a page reading looks things up in, made once per tree (a tree
        of a 5,000-page document has hundreds of thousands of elements)."""
        return _tree_tables(self.columns, self.content, self.whole_columns)

    @cached_property
    def _type_table(self) -> np.ndarray:
        """Per row of the type table: does it make a block (StructElement.block)."""
        return np.array([_type_info(std).block for _, std in self.columns.type_names], dtype=bool)

    @cached_property
    def _type_fields(self) -> tuple[np.ndarray, np.ndarray]:
        """Per row of the type table: (the standard type, an object array; is
        a header cell, TH). Made where asked for (the reference labels, a
        table's header cells, Figures): the compiled page reading reads the
        label columns."""
        stds = [std for _, std in self.columns.type_names]
        type_names = np.empty(len(stds), dtype=object)
        type_names[:] = stds
        return type_names, type_names == "TH"

    @property
    def block_owners(self) -> np.ndarray:
        """Per element, the nearest element at or above it that makes a block
        of its own (_owns_block); itself when none does."""
        return self._tables.block_owners

    @property
    def actual_text_owners(self) -> np.ndarray:
        """Per element, its ``actual_text_owner`` (-1 when none)."""
        return self.columns.actual_text_owner

    @cached_property
    def figure_of(self) -> np.ndarray:
        """Per element, the Figure with /Alt at or above it (-1 when none, §14.9.3)."""
        alt = self.columns.alt
        figures = (self._type_fields[0] == "Figure")[self.columns.type]
        figures[figures] = [bool(alt.get(i)) for i in np.flatnonzero(figures).tolist()]
        return self.nearest(figures)

    @cached_property
    def types(self) -> np.ndarray:
        """Per element, its standard type (an object array: compared to a name at once)."""
        types: np.ndarray = self._type_fields[0][self.columns.type]
        return types

    @property
    def _parents(self) -> np.ndarray:
        return self.columns.parent

    def nearest(self, marked: np.ndarray) -> np.ndarray:
        """Per element, the nearest element at or above it that is `marked`;
        -1 when none is (nearest_marked)."""
        return nearest_marked(self._parents, marked)


def nearest_marked(parents: np.ndarray, marked: np.ndarray) -> np.ndarray:
    """Per element of a tree (`parents`: -1 for a root, a parent before its
    kids), the nearest element at or above it that is `marked`; -1 when none
    is. Compiled: one pass down the elements. The reference, pointer
    jumping: each pass doubles how far up every element has looked, so a
    tree of depth d takes log2(d) passes."""
    core = compiled_core()
    if core is not None:
        up = np.empty(len(marked), dtype=np.int64)
        if core.nearest_marked(parents, np.ascontiguousarray(marked, dtype=bool), up):
            return up
    up = np.where(marked, np.arange(len(marked), dtype=np.int64), parents)
    while True:
        open_ = up >= 0
        open_[open_] = ~marked[up[open_]]
        if not open_.any():
            return up
        up[open_] = up[up[open_]]


class _TreeTables(NamedTuple):
    """StructTree's per-document tables (_tree_tables)."""

    page_row: dict[PageKey, int]  # per page key, its row of page_keys (page_rows)
    page_offsets: list[int]  # page row r's content rows: page_offsets[r]:page_offsets[r + 1]
    content_keys: np.ndarray  # int64 per content row: content_keys(stream, mcid)
    content_element: np.ndarray  # int64 per content row, contiguous: its element (ContentColumns.element)
    block_owners: np.ndarray  # int64 per element: StructTree.block_owners
    label_columns: tuple[Any, ...]  # StructTree.label_columns


@functools.lru_cache(maxsize=256)  # a few dozen types, met in every document
def _owns_block(std: str) -> bool:
    """Whether an element of standard type `std` makes a block of its own: a
    block type does; so does a type no role map resolved: it means nothing
    standard, so its text is kept apart rather than melted into whatever
    encloses it."""
    return _type_info(std).block or std not in _STANDARD_TYPES


def _tree_tables(c: ElementColumns, content: ContentColumns, whole: WholeColumns | None) -> _TreeTables:
    """StructTree's tables, made in one pass over the type rows and one
    compiled call over the elements and the content (_whole_tree_columns),
    unless the walk made that call's answer (`whole`) already."""
    stds = tuple(std for _, std in c.type_names)
    header = tuple(std == "TH" for std in stds)
    if whole is None:  # which types own a block: asked only here (the node walk made `whole` with them)
        owns = np.array(list(map(_owns_block, stds)), dtype=bool)
        block_owners, keys, offset_column = _whole_tree_columns(c.parent, c.type, owns, content, len(c.page_keys))
        whole = block_owners, keys, offset_column.tolist()
    block_owners, keys, offsets = whole
    labels = (
        np.ascontiguousarray(c.type, dtype=np.int64), stds, header,
        np.ascontiguousarray(c.path, dtype=np.int64), tuple(c.path_names),
        np.ascontiguousarray(c.heading_level, dtype=np.int64),
        c.lang if type(c.lang) is list else list(c.lang), c.alt if type(c.alt) is dict else dict(c.alt),
    )  # fmt: skip
    element = np.ascontiguousarray(content.element, dtype=np.int64)
    return _TreeTables(page_rows(c.page_keys), offsets, keys, element, block_owners, labels)


def _whole_tree_columns(
    parents: np.ndarray, types: np.ndarray, owns: np.ndarray, content: ContentColumns, pages: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(block owners per element, content keys, page offsets: _TreeTables')
    in one compiled call (_core.tree_tables) where the core is built and the
    columns are as the walks make them; else the reference."""
    core = compiled_core()
    if core is not None:
        out = np.empty(len(parents), dtype=np.int64), np.empty(len(content.page), dtype=np.int64)
        offsets = np.empty(pages + 1, dtype=np.int64)
        columns = (parents, types, content.page, content.stream, content.mcid)
        parents, types, page, stream, mcid = (np.ascontiguousarray(column, dtype=np.int64) for column in columns)
        if core.tree_tables(parents, types, owns, page, stream, mcid, *out, offsets):
            return out[0], out[1], offsets
    return _reference_whole_tree_columns(parents, types, owns, content, pages)


def _reference_whole_tree_columns(
    parents: np.ndarray, types: np.ndarray, owns: np.ndarray, content: ContentColumns, pages: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """_whole_tree_columns in numpy steps: nearest_marked over the owning
    elements (itself where none is), the keys, and per page row the first
    of its content rows (content grouped by page row, ascending)."""
    block_owners = np.zeros(0, dtype=np.int64)
    if len(parents):
        nearest = nearest_marked(parents, owns[types])
        block_owners = np.where(nearest >= 0, nearest, np.arange(len(parents), dtype=np.int64))
    offsets = np.searchsorted(content.page, np.arange(pages + 1, dtype=np.int64))
    return block_owners, content_keys(content.stream, content.mcid), offsets


_STANDARD_TYPES = PDF17_STANDARD_TYPES | PDF20_STANDARD_TYPES


def cell_columns(tree: StructTree, rows: np.ndarray) -> tuple[list[Any], ...]:
    """The /RowSpan, /ColSpan, /Scope, /Headers and /ID (StructElement's
    row_span, col_span, scope, headers, element_id) of each element of
    `rows`, all five read in one pass over the rows (a table's cells)."""
    if not len(rows):
        return ([], [], [], [], [])
    looked_up = map(tree.columns.cells.get, rows.tolist(), repeat(NO_CELL))
    return tuple(map(list, zip(*looked_up, strict=True)))


def _cell_field(position: int) -> Callable[[StructTree, np.ndarray], list[Any]]:
    def read(tree: StructTree, rows: np.ndarray) -> list[Any]:
        return cell_columns(tree, rows)[position]

    return read


def _levels(tree: StructTree, rows: np.ndarray) -> list[int | None]:
    return [level or None for level in tree.columns.heading_level[rows].tolist()]


def _by_type(table: int) -> Callable[[StructTree, np.ndarray], list[Any]]:
    """A field that follows from the type: the type's row of StructTree._type_fields."""

    def read(tree: StructTree, rows: np.ndarray) -> list[Any]:
        values: list[Any] = tree._type_fields[table][tree.columns.type[rows]].tolist()
        return values

    return read


def _sparse(column: str) -> Callable[[StructTree, np.ndarray], list[Any]]:
    def read(tree: StructTree, rows: np.ndarray) -> list[Any]:
        return list(map(getattr(tree.columns, column).get, rows.tolist()))

    return read


# StructTree.values: the attributes read straight from the columns.
_COLUMN_READS: dict[str, Callable[[StructTree, np.ndarray], list[Any]]] = {
    "type": _by_type(0),
    "header_cell": _by_type(1),
    "path": lambda tree, rows: list(map(tree.columns.path_names.__getitem__, tree.columns.path[rows].tolist())),
    "heading_level": _levels,
    "lang": lambda tree, rows: list(map(tree.columns.lang.__getitem__, rows.tolist())),
    "alt": _sparse("alt"),
    "actual_text": _sparse("actual_text"),
    **{name: _cell_field(k) for k, name in enumerate(("row_span", "col_span", "scope", "headers", "element_id"))},
}


def page_struct_parents(page: pikepdf.Page | pikepdf.Object) -> int | None:
    """The page's /StructParents key into the /ParentTree (§14.7.4.4), if valid.

    /StructParents is required on a page with structural content items (Table
    30): a page whose content has MCIDs but no /StructParents has marked
    content that the structure tree cannot own.
    """
    obj = page.obj if isinstance(page, pikepdf.Page) else page
    try:
        value: object = obj.get("/StructParents")  # pikepdf hands integers over as int
    except (pikepdf.PdfError, AttributeError, TypeError, ValueError):
        return None
    if type(value) is int and value >= 0:
        return value
    return None


def read_struct_tree(
    pdf: pikepdf.Pdf, *, max_depth: int = 128, pages: tuple[PageKey, ...] | None = None
) -> StructTree | None:
    """Read the document's structure tree in one pass.

    None when the catalog has no /StructTreeRoot, or it is not a dictionary.
    Broken objects inside the tree become warnings, never exceptions.
    `pages`: the document's pages' keys in order, where the caller has
    listed them already (else they are listed here).
    """
    # Tens of thousands of objects and elements, none of them garbage.
    with paused_collection():
        return _read_tree(pdf, max_depth, pages)


def _read_tree(pdf: pikepdf.Pdf, max_depth: int, pages: tuple[PageKey, ...] | None) -> StructTree | None:
    """read_struct_tree inside its pause. The parsed objects (and the
    walker's tables) are freed as this returns, inside the pause too: once
    collection is back on, its first pass would walk every one of them."""
    objects = PlainObjects(pdf)
    root = _tree_root(pdf, objects)
    if root is None:
        return None
    if pages is None:
        pages = _page_list(pdf)
    tree = _Walker(pdf, objects, root, max_depth, pages).run_over_nodes()
    if tree is None:
        # Left to the walkers of plain values: every object parsed, and a
        # fresh walker (the node walk's elements and warnings are dropped).
        objects.fill_cache()
        tree = _Walker(pdf, objects, root, max_depth, pages).run()
    return tree


def _tree_root(pdf: pikepdf.Pdf, objects: PlainObjects) -> tuple[Ref, dict[str, Any]] | None:
    """The /StructTreeRoot's objgen (_NO_OBJGEN when direct) and dictionary;
    None when the catalog has none or it is no dictionary. The catalog's
    reference is read from the file where it can be (PlainObjects.catalog_entry:
    qpdf would parse the object stream holding the root to hand it over)."""
    written = objects.catalog_entry("/StructTreeRoot")
    if written is None:
        return None
    if type(written) is tuple:
        try:
            value = objects.resolve(written)
        except (pikepdf.PdfError, TypeError, ValueError):
            return None  # as when qpdf cannot resolve it for Root.get
        return (written, value) if type(value) is dict else None
    try:
        root = pdf.Root.get("/StructTreeRoot")
    except (pikepdf.PdfError, AttributeError, TypeError, ValueError):
        return None
    if not _is(root, ObjectType.dictionary):
        return None
    return root.objgen, objects.of(root)


# --------------------------------------------------------------------------- helpers


def _page_key(page: PageKey | pikepdf.Page | pikepdf.Object) -> PageKey:
    if isinstance(page, tuple):
        return page
    obj = page.obj if isinstance(page, pikepdf.Page) else page
    return obj.objgen


def _is(obj: Any, code: ObjectType) -> TypeGuard[pikepdf.Object]:
    """``obj`` is a pikepdf object of this type (cheaper than isinstance checks)."""
    return type(obj) is pikepdf.Object and obj._type_code is code


def _name(value: Any) -> str | None:
    """A name (a plain value, structure_objects.py) without its slash, or None."""
    return value[1:] if type(value) is str else None


# Reads a plain value through its reference (PlainObjects.value).
_Value = Callable[[Any], Any]


class _Warnings:
    """The tree's warnings, counted by message (all of kind STRUCTURE)."""

    def __init__(self) -> None:
        self._counter = WarningCounter()

    def add(self, message: str, count: int = 1) -> None:
        """`message`, `count` times (the compiled walk hands repeats over at once)."""
        self._counter.add(WarningKind.STRUCTURE, message, count=count)

    def warnings(self) -> tuple[PageWarning, ...]:
        return self._counter.warnings()


# --------------------------------------------------------------------------- role map


class _Namespace(NamedTuple):
    key: object  # identifies the namespace in caches (see _Roles.namespace)
    uri: str | None
    # RoleMapNS: type -> (target type, target namespace as a plain value, or None = default)
    role_map: Mapping[str, tuple[str, Any]]


class _Roles:
    """Resolves raw structure types to standard ones (§14.7.3, ISO 32000-2 §14.8.6)."""

    def __init__(self, root: dict[str, Any], objects: PlainObjects, warnings: _Warnings) -> None:
        self._warnings = warnings
        self._value = value = objects.value
        self._role_map: dict[str, str] = {}
        role_map = value(root.get("/RoleMap"))
        if type(role_map) is dict:
            for key, target in role_map.items():
                name = _name(value(target))
                if name is None:
                    warnings.add(f"/RoleMap entry {key} is not a name; ignored")
                else:
                    self._role_map[key[1:]] = name
        self._namespaces: dict[object, _Namespace] = {}

    def namespace(self, obj: Any) -> _Namespace | None:
        """The parsed namespace dictionary (ISO 32000-2 §14.8.6.2), or None;
        `obj` is a plain value (a reference, or a direct dictionary)."""
        value = self._value
        objgen = obj if type(obj) is tuple else _NO_OBJGEN
        ns_dict = value(obj)
        if type(ns_dict) is not dict:
            return None
        cached = self._namespaces.get(objgen) if objgen != _NO_OBJGEN else None
        if cached is not None:
            return cached
        uri_obj = value(ns_dict.get("/NS"))
        uri = text_string(uri_obj) if type(uri_obj) is bytes else None
        role_map: dict[str, tuple[str, Any]] = {}
        rmns = value(ns_dict.get("/RoleMapNS"))
        if type(rmns) is dict:
            for key, target in rmns.items():
                target = value(target)
                name = _name(target)
                first = _name(value(target[0])) if type(target) is list and len(target) >= 2 else None
                if name is not None:
                    role_map[key[1:]] = (name, None)  # a name: the default namespace
                elif first is not None:
                    role_map[key[1:]] = (first, target[1])
                else:
                    self._warnings.add(f"/RoleMapNS entry {key} is malformed; ignored")
        # The cache key of the namespace: its object, or for a direct dictionary
        # (the spec wants an indirect one) its URI, unless it has its own role map.
        ns_key: object = objgen if objgen != _NO_OBJGEN else (uri if not role_map else object())
        ns = _Namespace(ns_key, uri, MappingProxyType(role_map))
        if objgen != _NO_OBJGEN:
            self._namespaces[objgen] = ns
        return ns

    def unmapped_standard(self, s: str) -> tuple[str, str, _TypeInfo, None] | None:
        """The entry of /S name `s` (slash and all) in no namespace when it
        is a standard type no /RoleMap entry names (resolve keeps it as it
        is); None for any other."""
        return None if s[1:] in self._role_map else _UNMAPPED_STANDARD.get(s)

    def resolve(self, raw: str, ns: _Namespace | None) -> tuple[str, str | None]:
        """(standard type, warning or None) for ``raw`` in namespace ``ns``.

        The walker caches the answer per (type, namespace).
        """
        current, cur_ns = raw, ns
        chain = [raw]
        visited: set[tuple[str, object]] = set()
        problem: str | None = None
        while True:
            step = (current, cur_ns.key if cur_ns is not None else None)
            if step in visited:
                # §14.7.3: "circular chains of association shall not be permitted".
                return raw, f"/RoleMap cycle {' -> '.join(chain)}; raw type /{raw} kept"
            visited.add(step)
            uri = cur_ns.uri if cur_ns is not None else None
            target: tuple[str, Any] | None = None
            if uri is None or uri == _NS_PDF17:
                # The default namespace is PDF 1.7's (ISO 32000-2 §14.8.6.1).
                if cur_ns is not None:
                    target = cur_ns.role_map.get(current)
                mapped = self._role_map.get(current)
                if target is None and mapped is not None and mapped != current:
                    # §14.7.3: mapped "even if the original name is one of the standard types".
                    if current in PDF17_STANDARD_TYPES:
                        problem = (
                            f"/RoleMap remaps standard type /{current} to /{mapped}; followed (§14.7.3)"
                        )
                    target = (mapped, None)
                if target is None:
                    standard = current in PDF17_STANDARD_TYPES or current in PDF20_STANDARD_TYPES
                    return (current if standard else raw), problem
            elif uri == _NS_PDF20:
                if (
                    current in PDF17_STANDARD_TYPES
                    or current in PDF20_STANDARD_TYPES
                    or _NUMBERED_HEADING.fullmatch(current)
                ):
                    return current, problem
                target = cur_ns.role_map.get(current) if cur_ns is not None else None
                if target is None:
                    return raw, problem
            elif uri == _NS_MATHML:
                return current, problem  # MathML's own vocabulary (ISO 32000-2 §14.8.6.3)
            else:
                if cur_ns is not None:
                    target = cur_ns.role_map.get(current)
                if target is None and current in self._role_map:
                    target = (self._role_map[current], None)  # lenient: the 1.7 role map
                if target is None:
                    return raw, problem
            current = target[0]
            cur_ns = self.namespace(target[1]) if target[1] is not None else None
            chain.append(current)


# --------------------------------------------------------------------------- the walk


class _Ctx(NamedTuple):
    """What an element hands down to its kid elements."""

    # the element whose kids these are; -1 for the root (the field shadows
    # tuple.index, which nothing calls on a _Ctx)
    index: int  # type: ignore[assignment]
    page: PageKey | None  # /Pg in effect (Table 323: inherited from ancestors)
    lang: str | None  # /Lang in effect (§14.9.2.1)
    path: tuple[str, ...]
    depth: int  # depth of that element: 0 for the root, 1 for the root's kids
    headed_incl: int  # headed sectioning elements among that element and its ancestors
    headed_excl: int  # the same among its ancestors only
    actual_text_owner: int


class _TypeInfo(NamedTuple):
    """What a standard type implies, computed once per type."""

    block: bool
    heading: bool  # H or Hn: makes a sectioning parent "headed"
    numbered_level: int | None  # n for Hn
    sectioning: bool


@functools.lru_cache(maxsize=256)  # a few dozen types, met in every document
def _type_info(std: str) -> _TypeInfo:
    numbered = _NUMBERED_HEADING.fullmatch(std)
    level = int(numbered.group(1)) if numbered else None
    heading = std == "H" or level is not None
    return _TypeInfo(std in BLOCK_TYPES or heading, heading, level, std in _SECTIONING_TYPES)


# _Walker._plain_type's entry (raw, standard, info, no warning) of each
# standard type's /S name where no namespace is given and no /RoleMap entry
# names it: _Roles.resolve's first step keeps it as it is. Made once, not
# per document (the walk asks each /S name of each document).
_UNMAPPED_STANDARD: Mapping[str, tuple[str, str, _TypeInfo, None]] = MappingProxyType(
    {f"/{std}": (std, std, _type_info(std), None) for std in sorted(_STANDARD_TYPES)}
)


# Stack items: (_ELEMENT, objgen, dictionary, raw type, standard type, _TypeInfo, ctx),
# (_CONTENT, mcid, stream, page, element index), (_EXIT, objgen). The walk
# reads plain values (structure_objects.py): a dictionary is a dict, an
# indirect object a (number, generation) reference until it is resolved.
_ELEMENT, _CONTENT, _EXIT = 0, 1, 2

_NO_OBJGEN = (0, 0)  # objgen of a direct object
_DICT, _ARRAY = ObjectType.dictionary, ObjectType.array



def _not_text(key: str) -> str:
    return f"{key} is not a text string; ignored"


class _Messages(NamedTuple):
    """The walk's warnings, one definition for both walkers (the compiled
    one, _core.walk_struct, reads them in this order)."""

    cycle: str = "cycle: a /K points back to an ancestor; that branch ends there"
    twice: str = "element reached a second time (two parents, or listed twice); visited once"
    deep: str = ""  # "tree deeper than N levels ...", formatted per walk (_deep)
    pg_element: str = "element /Pg is not a page dictionary; inherited page used"
    pg_mcr: str = "MCR /Pg is not a page dictionary; inherited page used"
    lang: str = _not_text("/Lang")
    actual_text: str = _not_text("/ActualText")
    alt: str = _not_text("/Alt")
    under_root: str = "marked content directly under /StructTreeRoot; dropped"
    negative: str = "negative MCID; dropped"
    no_s: str = "element without a /S name; treated as NonStruct"
    neither: str = "/K kid dictionary is neither an element, an MCR nor an OBJR; ignored"
    null_kid: str = "null kid in /K; ignored"
    array_twice: str = "/K array reached a second time; visited once"
    mcr_twice: str = "MCR reached a second time; visited once"
    mcr_mcid: str = "MCR without a valid /MCID; dropped"
    not_page: str = "marked content on an object that is not a page of the document; dropped"
    assigned_twice: str = "marked content assigned twice on a page; first assignment kept"
    orphan_parent_tree: str = "marked content with no /Pg; page found through /ParentTree"
    orphan_one_page: str = "marked content with no /Pg; the document's only page assumed"
    orphan_dropped: str = "marked content with no /Pg on its MCR, element or ancestors, nor in /ParentTree; dropped"


def _deep(max_depth: int) -> str:
    return f"tree deeper than {max_depth} levels; deeper elements and their content dropped"


@functools.lru_cache(maxsize=4)  # one depth in practice (read_struct_tree's default)
def _walk_messages(max_depth: int) -> _Messages:
    """The walk's messages for `max_depth`: the defaults but `deep`, made once
    per depth and shared by every walker (a NamedTuple of strings: immutable)."""
    return _Messages(deep=_deep(max_depth))


_M = _Messages()


class _Walker:
    def __init__(
        self, pdf: pikepdf.Pdf, objects: PlainObjects, root: tuple[Ref, dict[str, Any]], max_depth: int,
        pages: tuple[PageKey, ...] | None = None,
    ) -> None:  # fmt: skip
        """`pages`: the document's pages in order (_page_list), listed here when not given."""
        self._pdf = pdf
        self._objects = objects
        self._resolve = objects.resolve
        self._value = objects.value
        self._root_objgen, self._root_dict = root
        root_objgen = self._root_objgen
        self._max_depth = max_depth
        self._messages = _walk_messages(max_depth)
        self._warnings = _Warnings()
        self._roles = _Roles(self._root_dict, objects, self._warnings)
        self._texts: dict[bytes, str] = {}  # text strings decoded (§7.9.2.2)
        # (/S as written, namespace key) -> (raw, standard, info, role-map warning)
        self._resolved: dict[tuple[str, object], tuple[str, str, _TypeInfo, str | None]] = {}
        self._elements: list[StructElement] = []
        self._content: dict[PageKey, list[MarkedContentRef]] = {}
        self._claimed: dict[PageKey, set[tuple[int, int]]] = {}
        self._object_refs: Counter[PageKey] = Counter()
        # Indirect objects visited (elements, MCRs, OBJRs, /K arrays) and those
        # on the current path (the root and the open elements).
        self._seen: set[tuple[int, int]] = set()
        self._on_path: set[tuple[int, int]] = {root_objgen}
        self._stack: list[tuple[Any, ...]] = []
        # None when the page tree cannot be read.
        self._pages = pages if pages is not None else _page_list(pdf)
        self._page_set = frozenset(self._pages) if self._pages is not None else frozenset()
        # (element objgen, MCID) -> page, from /ParentTree; built only when
        # some content has no /Pg (see _page_of_orphan).
        self._parent_tree_pages: dict[tuple[tuple[int, int], int], PageKey] | None = None
        # The role map's /ClassMap as the root writes it: read where a cell's /C asks (_class_map, the node walk).
        self._class_map_entry: Any = self._root_dict.get("/ClassMap")

    @functools.cached_property
    def _class_map(self) -> dict[str, Any] | None:
        """The role map's /ClassMap (§14.7.5.2), None when it is no dictionary:
        read at first use (most trees name no class)."""
        class_map = self._value(self._class_map_entry)
        return class_map if type(class_map) is dict else None

    # ---------------------------------------------------------------- driver

    def _document_lang(self) -> str | None:
        """The catalog's /Lang, the document default (§14.9.2.1): read from
        the catalog as the file writes it where _tree_root read it so
        (PlainObjects.catalog_entry), else through qpdf."""
        written = self._objects.catalog_entry("/Lang")
        if written is not NotImplemented:
            try:
                lang = self._value(written)
            except (pikepdf.PdfError, ValueError, TypeError):
                pass  # qpdf says (below)
            else:
                return text_string(lang) if type(lang) is bytes else None
        try:
            lang_obj = self._pdf.Root.get("/Lang")
            return str(lang_obj) if _is(lang_obj, ObjectType.string) else None
        except (pikepdf.PdfError, ValueError, TypeError):
            return None

    def run(self) -> StructTree:
        warn = self._warnings.add
        root_ctx = _Ctx(-1, None, self._document_lang(), (), 0, 0, 0, -1)
        try:
            if "/K" in self._root_dict:
                self._expand(self._root_dict["/K"], root_ctx, sectioning=False)
        except (pikepdf.PdfError, RecursionError, ValueError, TypeError, KeyError) as exc:
            warn(f"/StructTreeRoot /K unreadable ({describe(exc)})")

        stack = self._stack
        step = self._compiled_walk() or self._step
        while stack:
            try:
                step()
            except (pikepdf.PdfError, RecursionError, ValueError, TypeError, KeyError) as exc:
                warn(f"unreadable structure object skipped ({describe(exc)})")
        return self._tree()

    def _tree(self) -> StructTree:
        """The tree of a walk of plain values: its elements and content made columns."""
        page_keys = page_keys_of(self._pages or (), self._elements, self._content)
        columns = element_columns(self._elements, page_keys)
        return self._tree_of(columns, content_columns(self._content, page_keys))

    def _tree_of(
        self, columns: ElementColumns, content: ContentColumns, whole: WholeColumns | None = None
    ) -> StructTree:
        return StructTree(
            columns=columns,
            content=content,
            object_refs=MappingProxyType(dict(self._object_refs)),
            warnings=self._warnings.warnings(),
            whole_columns=whole,
        )

    def run_over_nodes(self) -> StructTree | None:
        """The walk over the object streams' nodes (_core.TreeObjects.walk):
        no plain value per object, only where Python decides (a role map
        entry, a cell's attributes, content with no page). None when the
        nodes are not there or it leaves the tree to run()."""
        nodes = self._objects.nodes
        if nodes is None or self._pages is None or not self._node_walk:
            return None
        root_k = (self._root_dict["/K"],) if "/K" in self._root_dict else ()
        env = (
            self._object_refs, self._pages, self._root_objgen, root_k, self._document_lang(), self._plain_type,
            ("", "NonStruct", _type_info("NonStruct"), None), self._texts, text_string, self._cell_attributes, _NO_CELL,
            self._resolve, self._parent_tree, self._warnings.add, self._messages, self._max_depth,
            self._type_in, Stream, self._class_map_entry, _SPAN_COMPLAINTS, self._cell_nodes,
            self._root_dict.get("/ParentTree"), self._struct_parents, self._page_tree_numbers, _STANDARD_TYPES,
        )  # fmt: skip
        walked = nodes.walk(env)
        if walked is NotImplemented:
            return None
        return self._tree_of(*walked_columns(walked, self._pages))

    # The node walk where the compiled core has one (tests set it off to
    # compare the walkers of plain values with each other).
    _node_walk = True
    # The node walk reads a cell's attributes over the nodes too (off: by
    # _table_cell_attributes, as the walks of plain values do; tests compare).
    _cell_nodes = True

    def _step(self) -> None:
        """One item off the stack: the reference walk, item by item."""
        item = self._stack.pop()
        tag = item[0]
        if tag == _ELEMENT:
            self._visit(item)
        elif tag == _CONTENT:
            self._record(item)
        else:
            self._on_path.discard(item[1])

    def _compiled_walk(self) -> Callable[[], None] | None:
        """The compiled core's walk (_core.walk_struct): the whole stack in
        one call, the same steps as _step; it calls back for what is rare."""
        core = compiled_core()
        if core is None:
            return None
        env = (
            self._elements, self._content, self._claimed, self._seen, self._on_path, self._page_set,
            self._pages is not None, self._objects.cache, self._resolve, self._warnings.add, self._resolved,
            self._element_type, self._texts, text_string, self._cell_attributes, _NO_CELL, self._mcr, self._objr,
            self._parent_tree, self._unexpected_kid, _Ctx, StructElement, MarkedContentRef,
            _type_info("NonStruct"), PAGE_STREAM, _NO_OBJGEN, self._messages, self._max_depth, self._pages,
        )  # fmt: skip
        return functools.partial(core.walk_struct, self._stack, env)

    # ---------------------------------------------------------------- elements

    def _visit(self, item: tuple[Any, ...]) -> None:
        _, objgen, obj, raw, std, info, ctx = item
        warn = self._warnings.add
        indirect = objgen != _NO_OBJGEN
        if indirect:
            # A direct object cannot close a cycle or have two parents on its
            # own: a loop or a shared subtree always goes through an indirect one.
            if objgen in self._on_path:
                warn(_M.cycle)
                return
            if objgen in self._seen:
                warn(_M.twice)
                return
            self._seen.add(objgen)
        depth = ctx.depth + 1
        if depth > self._max_depth:
            warn(self._messages.deep)
            return

        page = ctx.page
        if "/Pg" in obj:
            page = self._page_of(obj["/Pg"], page, _M.pg_element)
        lang = self._text(obj["/Lang"], "/Lang", ctx.lang) if "/Lang" in obj else ctx.lang
        actual_text = alt = None
        if "/ActualText" in obj:
            actual_text = self._text(obj["/ActualText"], "/ActualText", None)
        if "/Alt" in obj:
            alt = self._text(obj["/Alt"], "/Alt", None)

        cell = self._cell_attributes(obj) if std in _CELL_TYPES else _NO_CELL
        index = len(self._elements)
        owner = ctx.actual_text_owner
        if owner < 0 and actual_text is not None:
            owner = index
        path = ctx.path + (std,)
        self._new_element(item, page, path, (lang, actual_text, alt), owner, cell)
        if "/K" not in obj:
            return
        if indirect:
            self._on_path.add(objgen)
            self._stack.append((_EXIT, objgen))
        # headed_incl is completed in _expand, once the kids are known.
        kid_ctx = _Ctx(index, page, lang, path, depth, ctx.headed_incl, ctx.headed_incl, owner)
        self._expand(obj["/K"], kid_ctx, sectioning=info.sectioning)

    def _new_element(
        self, item: tuple[Any, ...], page: PageKey | None, path: tuple[str, ...],
        texts: tuple[str | None, str | None, str | None], owner: int, cell: _CellAttributes,
    ) -> None:  # fmt: skip
        """Append the StructElement of a visited element; `texts` are its
        /Lang in effect, /ActualText and /Alt."""
        _, objgen, _, raw, std, info, ctx = item
        lang, actual_text, alt = texts
        # Plain H: its level is its nesting depth among headed sections (see
        # StructElement.heading_level); Hn says its level itself.
        heading_level = 1 + ctx.headed_excl if std == "H" else info.numbered_level
        self._elements.append(
            frozen_instance(  # thousands per tree: StructElement(**...) without its per-field setattr
                StructElement,
                {
                    "index": len(self._elements),
                    "type": std,
                    "raw_type": raw,
                    "parent": ctx.index,
                    "path": path,
                    "heading_level": heading_level,
                    "block": info.block,
                    "actual_text": actual_text,
                    "alt": alt,
                    "lang": lang or None,
                    "header_cell": std == "TH",
                    "ref": objgen if objgen != _NO_OBJGEN else None,
                    "page": page,
                    "actual_text_owner": owner,
                    "row_span": cell.row_span,
                    "col_span": cell.col_span,
                    "scope": cell.scope,
                    "headers": cell.headers,
                    "element_id": cell.element_id,
                },
            )
        )

    def _cell_attributes(self, obj: dict[str, Any]) -> _CellAttributes:
        # The class map is read for a cell that names a class, the only one that reads it (_attribute_objects).
        class_map = self._class_map if "/C" in obj else None
        return _table_cell_attributes(obj, class_map, self._value, self._warnings)

    def _text(self, value: Any, key: str, default: str | None) -> str | None:
        """A PDF text string (§7.9.2.2) decoded by pikepdf (PDFDocEncoding, UTF-16BE, UTF-8)."""
        value = self._value(value)
        if type(value) is bytes:
            # Producers repeat the same /Lang on every element: decode each string once.
            text = self._texts.get(value)
            if text is None:
                text = self._texts[value] = text_string(value)
            return text
        if value is not None:
            self._warnings.add(_not_text(key))
        return default

    def _page_of(self, pg: Any, inherited: PageKey | None, complaint: str | None) -> PageKey | None:
        """The page a /Pg value names (an indirect page dictionary, Table 323),
        else `inherited`, with `complaint` unless the value is null."""
        if type(pg) is tuple:
            if pg in self._page_set:
                return pg
            target = self._resolve(pg)
            if type(target) is dict:
                return pg
            if target is None:  # a reference to a missing object is null (§7.3.10)
                return inherited
        elif type(pg) is dict:
            return _NO_OBJGEN  # a direct dictionary is no page of the document
        if complaint is not None:
            self._warnings.add(complaint)
        return inherited

    # ---------------------------------------------------------------- kids

    def _expand(self, k: Any, ctx: _Ctx, *, sectioning: bool) -> None:
        """Classify the kids of /K (§14.7.2 Table 323) and schedule them in order.

        Content kids of an element with no kid elements are recorded at once:
        in depth-first order they come right after the element itself. Otherwise
        every kid is pushed, the first one on top of the stack.
        """
        resolve = self._resolve
        value = resolve(k) if type(k) is tuple else k
        # /K: an array of kids, or one kid (Table 323).
        kids: list[Any] = [k]
        if type(value) is list:
            kids = self._array_items(value, k if type(k) is tuple else _NO_OBJGEN)
        items: list[tuple[Any, ...]] = []
        elements = headed = False
        i = 0
        while i < len(kids):
            kid = kids[i]
            i += 1
            objgen = _NO_OBJGEN
            if type(kid) is tuple:
                objgen = kid
                kid = resolve(kid)
            if type(kid) is list:
                # Arrays inside /K are not in the spec but occur: inline them.
                kids[i:i] = self._array_items(kid, objgen)
                continue
            element = self._kid(kid, objgen, ctx, items)
            elements = elements or element is not None
            headed = headed or (element is not None and element.heading)

        if not elements:
            for content in items:
                self._record(content)
            return
        if sectioning and headed:
            # This element heads a level of the outline: its kids and their
            # descendants see one more headed ancestor.
            ctx = ctx._replace(headed_incl=ctx.headed_incl + 1)
            items = [(*it[:6], ctx) if it[0] == _ELEMENT else it for it in items]
        items.reverse()
        self._stack.extend(items)

    def _kid(self, kid: Any, objgen: Ref, ctx: _Ctx, items: list[tuple[Any, ...]]) -> _TypeInfo | None:
        """One kid of /K (resolved, not an array) appended to `items` as a
        stack item when it is one; the type info when it is an element."""
        warn = self._warnings.add
        kind = type(kid)
        if kind is int:  # an MCID on the page in effect (§14.7.4.2); bool is not int here
            if ctx.index < 0:
                warn(_M.under_root)
            elif kid < 0:
                warn(_M.negative)
            else:
                items.append((_CONTENT, kid, PAGE_STREAM, ctx.page, ctx.index))
        elif kind is dict:
            if "/S" in kid:  # an element; /Type /StructElem is optional
                raw, std, info = self._element_type(kid)
                items.append((_ELEMENT, objgen, kid, raw, std, info, ctx))
                return info
            return self._kid_dict(kid, objgen, ctx, items)
        elif kid is None:
            warn(_M.null_kid)
        else:
            self._unexpected_kid(kid)
        return None

    def _kid_dict(self, kid: dict[str, Any], objgen: Ref, ctx: _Ctx, items: list[tuple[Any, ...]]) -> _TypeInfo | None:
        """A kid dictionary without /S: an MCR, an OBJR, an element of no type, or junk."""
        warn = self._warnings.add
        kid_type = _name(self._value(kid["/Type"])) if "/Type" in kid else None
        if kid_type == "MCR" or (kid_type is None and "/MCID" in kid):
            content = self._mcr(objgen, kid, ctx)
            if content is not None:
                items.append(content)
        elif kid_type == "OBJR" or (kid_type is None and "/Obj" in kid):
            self._objr(objgen, kid, ctx)
        elif kid_type == "StructElem":
            warn(_M.no_s)
            info = _type_info("NonStruct")
            items.append((_ELEMENT, objgen, kid, "", "NonStruct", info, ctx))
            return info
        elif objgen in self._on_path:  # e.g. the /StructTreeRoot itself
            warn(_M.cycle)
        else:
            warn(_M.neither)
        return None

    def _unexpected_kid(self, kid: Any) -> None:
        self._warnings.add(f"/K kid of unexpected kind ({kind_of(kid)}); ignored")

    def _array_items(self, array: list[Any], objgen: Ref) -> list[Any]:
        """The items of a /K array (a copy: kids are spliced into it); [] for
        an indirect array met before."""
        if objgen != _NO_OBJGEN:
            if objgen in self._seen:
                self._warnings.add(_M.array_twice)
                return []
            self._seen.add(objgen)
        return list(array)

    def _element_type(self, kid: dict[str, Any]) -> tuple[str, str, _TypeInfo]:
        """(raw type, standard type, what it implies) of a kid element, via the role map."""
        s = self._value(kid["/S"])
        if type(s) is not str:
            self._warnings.add("element /S is not a name; treated as NonStruct")
            return "", "NonStruct", _type_info("NonStruct")
        ns = self._roles.namespace(kid["/NS"]) if "/NS" in kid else None
        resolved = self._plain_type(s, ns)
        if resolved[3] is not None:
            self._warnings.add(resolved[3])
        return resolved[0], resolved[1], resolved[2]

    def _plain_type(self, s: str, ns: _Namespace | None = None) -> tuple[str, str, _TypeInfo, str | None]:
        """(raw type, standard type, what it implies, role-map warning or None)
        of /S name `s` in namespace `ns`, resolved once per walk; the caller warns."""
        key = (s, ns.key if ns is not None else None)
        resolved = self._resolved.get(key)
        if resolved is None:
            resolved = self._roles.unmapped_standard(s) if ns is None else None
            if resolved is None:
                raw = s[1:]
                std, problem = self._roles.resolve(raw, ns)
                resolved = (raw, std, _type_info(std), problem)
            self._resolved[key] = resolved
        return resolved

    def _type_in(self, s: str, ns: Ref) -> tuple[str, str, _TypeInfo, str | None]:
        """_plain_type of `s` in the namespace of /NS reference `ns` (the node walk's)."""
        return self._plain_type(s, self._roles.namespace(ns))

    def _first_visit(self, objgen: Ref) -> bool:
        """Marks an indirect object visited; False when it was before."""
        if objgen == _NO_OBJGEN:
            return True
        if objgen in self._seen:
            return False
        self._seen.add(objgen)
        return True

    def _mcr(self, objgen: Ref, kid: dict[str, Any], ctx: _Ctx) -> tuple[Any, ...] | None:
        """A marked-content reference (§14.7.4.3, Table 324) as a content item, or None."""
        warn = self._warnings.add
        if not self._first_visit(objgen):
            warn(_M.mcr_twice)
            return None
        if ctx.index < 0:
            warn(_M.under_root)
            return None
        mcid = self._value(kid["/MCID"]) if "/MCID" in kid else None
        if type(mcid) is not int or mcid < 0:
            warn(_M.mcr_mcid)
            return None
        page = ctx.page
        if "/Pg" in kid:
            # overrides the element's /Pg (Table 324)
            page = self._page_of(kid["/Pg"], page, _M.pg_mcr)
        stream = PAGE_STREAM
        if "/Stm" in kid:
            stm = self._value(kid["/Stm"])
            if type(stm) is Stream and stm.objgen[0] > 0:
                stream = stm.objgen[0]
            elif stm is not None:  # null is the same as absent (§7.3.9)
                warn("MCR /Stm is not a content stream; dropped")
                return None
        return (_CONTENT, mcid, stream, page, ctx.index)

    def _objr(self, objgen: Ref, kid: dict[str, Any], ctx: _Ctx) -> None:
        """An object reference (§14.7.4.3, Table 325): no page content, only counted."""
        if not self._first_visit(objgen):
            return
        page = ctx.page
        if "/Pg" in kid:
            page = self._page_of(kid["/Pg"], page, None)
        if page is None and self._pages is not None and len(self._pages) == 1:
            page = self._pages[0]
        if page is None:
            self._warnings.add("object reference (OBJR) with no page; not counted")
        else:
            self._object_refs[page] += 1

    # ---------------------------------------------------------------- content

    def _record(self, item: tuple[Any, ...]) -> None:
        _, mcid, stream, page, element = item
        if page is None:
            page = self._page_of_orphan(mcid, stream, element)
            if page is None:
                return
        elif self._pages is not None and page not in self._page_set:
            self._warnings.add(_M.not_page)
            return
        claimed = self._claimed.get(page)
        if claimed is None:
            claimed = self._claimed[page] = set()
            self._content[page] = []
        if (stream, mcid) in claimed:
            self._warnings.add(_M.assigned_twice)
            return
        claimed.add((stream, mcid))
        # As many as the document has marked-content sequences: no per-field setattr.
        self._content[page].append(
            frozen_instance(MarkedContentRef, {"mcid": mcid, "stream": stream, "element": element})
        )

    def _page_of_orphan(self, mcid: int, stream: int, element: int) -> PageKey | None:
        """The page of content with no /Pg on its MCR, element or ancestors.

        Table 323 makes /Pg optional only when the content's page is given some
        other way, yet Word and Distiller leave it out. Lenient recovery, with
        a warning: the page whose /StructParents array in /ParentTree
        (§14.7.4.4) lists this element at index MCID; when the /ParentTree
        places no element at all, the only page of a one-page document.
        A /ParentTree that places other elements but not this one wins over the
        one-page guess: a page extracted from a longer document keeps the whole
        tree, and the other pages' content must not land on the survivor.
        """
        return self._orphan_page_of_ref(mcid, stream, self._elements[element].ref)

    def _orphan_page_of_ref(self, mcid: int, stream: int, ref: Ref | None) -> PageKey | None:
        """_page_of_orphan of content whose element is object `ref` (None: a
        direct one). The node walk does the same in C (_core's tw_orphan_page,
        over the dict _parent_tree gives it)."""
        warn = self._warnings.add
        parent_tree_pages = self._parent_tree()
        if parent_tree_pages:
            page = parent_tree_pages.get((ref, mcid)) if stream == PAGE_STREAM and ref is not None else None
            if page is not None:
                warn(_M.orphan_parent_tree)
                return page
        elif self._pages is not None and len(self._pages) == 1:
            warn(_M.orphan_one_page)
            return self._pages[0]
        warn(_M.orphan_dropped)
        return None

    def _parent_tree(self) -> dict[tuple[tuple[int, int], int], PageKey]:
        """(element objgen, MCID) -> page from /ParentTree, read on first use
        (the compiled walks ask for it at the first content with no /Pg; the
        node walk reads /ParentTree itself, _core's tw_read_parent_tree, and
        asks only where that reading declines)."""
        if self._parent_tree_pages is None:
            self._parent_tree_pages = self._read_parent_tree_pages()
        return self._parent_tree_pages

    def _page_tree_numbers(self) -> frozenset[int] | None:
        """The object numbers of the page tree's nodes (§7.7.3), the pages
        and every node /Kids reach from the catalog's /Pages down to them,
        as qpdf holds the tree; None when it cannot be read. qpdf may change
        these in memory: the node walk reads any other object with /Kids (a
        number tree's node, §7.9.7) from its own bytes (_core's tw_kids_node).
        A /Kids array is read as written (unparse), no pikepdf object per page."""
        pdf = self._pdf
        numbers = {number for number, _ in self._pages or ()}  # the pages: qpdf reads no deeper
        try:
            nodes = [pdf.Root.get("/Pages")]
            while nodes:
                node = nodes.pop()
                if not _is(node, ObjectType.dictionary):
                    continue
                if node.is_indirect:
                    if node.objgen[0] in numbers:
                        continue
                    numbers.add(node.objgen[0])
                kids = node.get("/Kids")
                if not _is(kids, ObjectType.array):
                    continue
                written = kids.unparse()
                if b"<<" in written:  # a direct kid: read item by item
                    nodes.extend(kids)
                    continue
                for number, generation in _KID_REFERENCE.findall(written):
                    if int(number) not in numbers:
                        nodes.append(pdf.get_object(int(number), int(generation)))
        except (pikepdf.PdfError, RecursionError, ValueError, TypeError):
            return None
        return frozenset(numbers)

    def _struct_parents(self) -> tuple[int | None, ...]:
        """Each page's /StructParents key (page_struct_parents), pages in
        order: what the node walk finds the pages' entries of /ParentTree by."""
        return tuple(map(page_struct_parents, self._pdf.pages))

    def _read_parent_tree_pages(self) -> dict[tuple[tuple[int, int], int], PageKey]:
        """(element objgen, MCID) -> page for the page content listed in /ParentTree."""
        out: dict[tuple[tuple[int, int], int], PageKey] = {}
        value = self._value
        is_dict = _dictionary_check(self._objects)
        nodes = self._objects.nodes
        place = nodes.place_owners if nodes is not None else None
        try:
            numbers = _number_tree(self._root_dict.get("/ParentTree"), value, self._max_depth, self._warnings)
            if not numbers:
                return out
            for page in self._pdf.pages:
                key = page_struct_parents(page)
                entry = numbers.get(key) if key is not None else None
                # An array the nodes hold, placed there (_core.TreeObjects.place_owners).
                if place is not None and type(entry) is tuple and entry[1] == 0 and place(entry[0], page.obj.objgen, out) is None:
                    continue
                owners = value(entry)
                if type(owners) is not list:
                    continue
                page_key = page.obj.objgen
                # §14.7.4.4: for a page, the value is an array indexed by MCID
                # of the elements owning that marked content.
                for mcid, owner in enumerate(owners):
                    if type(owner) is tuple and is_dict(owner):
                        out.setdefault((owner, mcid), page_key)
        except (pikepdf.PdfError, RecursionError, ValueError, TypeError) as exc:
            self._warnings.add(f"/ParentTree unreadable ({describe(exc)})")
        return out


# --------------------------------------------------------------------------- table attributes

_CELL_TYPES = frozenset({"TH", "TD"})
_SCOPES = frozenset({"Row", "Column", "Both"})


class _CellAttributes(NamedTuple):
    row_span: int = 1
    col_span: int = 1
    scope: str | None = None
    headers: tuple[str, ...] = ()
    element_id: str | None = None


_NO_CELL = _CellAttributes()


def _dictionary_check(objects: PlainObjects) -> Callable[[Ref], bool]:
    """Whether a reference resolves to a dictionary: the object streams'
    nodes answer for the objects they hold without a plain value built
    (_core.TreeObjects.is_dict; a /ParentTree lists thousands of elements),
    resolving answers for the rest."""
    nodes = objects.nodes
    resolve = objects.resolve
    held = nodes.is_dict if nodes is not None else None

    def is_dict(ref: Ref) -> bool:
        if held is not None and ref[1] == 0 and held(ref[0]) is True:
            return True
        return type(resolve(ref)) is dict

    return is_dict


def _string_key(value: Any) -> str | None:
    """A byte string (/ID, an entry of /Headers) as a comparable key."""
    if type(value) is bytes:
        return value.decode("latin-1")
    return None


def _attribute_objects(obj: dict[str, Any], class_map: dict[str, Any] | None, value: _Value) -> list[dict[str, Any]]:
    """The element's attribute objects, lowest precedence first: those of its
    classes (/C through /ClassMap), then /A (§14.7.5.2). Revision numbers
    between the objects of an array are skipped."""
    found: list[Any] = []
    if "/C" in obj and class_map is not None:
        classes = value(obj["/C"])
        for name in classes if type(classes) is list else [classes]:
            name = value(name)
            entry = value(class_map.get(name)) if type(name) is str else None
            found.extend(entry if type(entry) is list else [entry])
    if "/A" in obj:
        a = value(obj["/A"])
        found.extend(a if type(a) is list else [a])
    return [o for o in map(value, found) if type(o) is dict]


def _span_complaint(key: str) -> str:
    return f"table cell {key} is not a positive integer; 1 used"


# The node walk's (_core.TreeObjects.walk) complaints about /RowSpan and /ColSpan, in that order.
_SPAN_COMPLAINTS = (_span_complaint("/RowSpan"), _span_complaint("/ColSpan"))


def _span(value: Any, key: str, warnings: "_Warnings") -> int | None:
    if type(value) is int and value >= 1:
        return value
    warnings.add(_span_complaint(key))
    return None


def _table_cell_attributes(
    obj: dict[str, Any], class_map: dict[str, Any] | None, value: _Value, warnings: "_Warnings"
) -> _CellAttributes:
    """/RowSpan, /ColSpan, /Scope, /Headers of a TH/TD (§14.8.5.7: attribute
    objects owned by /Table) and its /ID; later objects override earlier ones."""
    row_span = col_span = 1
    scope: str | None = None
    headers: tuple[str, ...] = ()
    for attrs in _attribute_objects(obj, class_map, value):
        if _name(value(attrs.get("/O"))) != "Table":
            continue
        if "/RowSpan" in attrs:
            row_span = _span(value(attrs["/RowSpan"]), "/RowSpan", warnings) or row_span
        if "/ColSpan" in attrs:
            col_span = _span(value(attrs["/ColSpan"]), "/ColSpan", warnings) or col_span
        named = _name(value(attrs.get("/Scope")))
        if named in _SCOPES:
            scope = named
        listed = value(attrs.get("/Headers"))
        if type(listed) is list:
            headers = tuple(k for k in (_string_key(value(v)) for v in listed) if k is not None)
    element_id = _string_key(value(obj["/ID"])) if "/ID" in obj else None
    return _CellAttributes(row_span, col_span, scope, headers, element_id)


def _page_list(pdf: pikepdf.Pdf) -> tuple[PageKey, ...] | None:
    """The document's pages in order; None when the page tree cannot be read."""
    try:
        return tuple(page.obj.objgen for page in pdf.pages)
    except (pikepdf.PdfError, RecursionError, ValueError, TypeError):
        return None


def _number_tree(node: Any, value: _Value, max_depth: int, warnings: _Warnings) -> dict[int, Any]:
    """All entries of a number tree (§7.9.7: /Nums pairs, /Kids subtrees) of
    plain values, iteratively.

    /Limits are not trusted (they only speed up lookups); a node met twice or
    nested deeper than ``max_depth`` is skipped.
    """
    out: dict[int, Any] = {}
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[Any, int]] = [(node, 0)]
    while stack:
        node, depth = stack.pop()
        objgen = node if type(node) is tuple else _NO_OBJGEN
        node = value(node)
        if type(node) is not dict:
            continue
        if objgen != _NO_OBJGEN:
            if objgen in seen:
                warnings.add("/ParentTree node reached twice; visited once")
                continue
            seen.add(objgen)
        if depth > max_depth:
            warnings.add("/ParentTree nested too deep; deeper nodes ignored")
            continue
        nums = value(node.get("/Nums"))
        if type(nums) is list:
            # Key, value pairs; a damaged array's odd last item pairs with nothing.
            for key, entry in zip(nums[0::2], nums[1::2], strict=False):
                key = value(key)
                if type(key) is int:
                    out.setdefault(key, entry)
        kids = value(node.get("/Kids"))
        if type(kids) is list:
            stack.extend((kid, depth + 1) for kid in reversed(kids))
    return out
