"""Tables as data: grids of typed cells, from the structure tree or from geometry.

A ``Table`` is a grid of ``TableCell``s (row, column, spans, header flag, the
labels of the header cells that label it, text, box, MCIDs, and the cell's
span in its page text). Two sources make them:

* tagged tables (``table_grids`` + ``structure_tables``): ISO 32000-1
  §14.8.4.3.4 (Table, THead, TBody, TFoot, TR, TH, TD) and §14.8.5.7
  (/RowSpan, /ColSpan, /Scope, /Headers). The grid is laid out once per
  document from the tree; each page's reading fills in the cells it shows;
* detected tables on untagged pages (``ragprep.extract.gridfind``).

A table whose cells sit on several pages is one table: each page result
carries its piece (the cells on that page, in whole-table coordinates), and
``merge_tables`` joins the pieces of a document by ``table_id``.

Grid rules (the HTML table model, which §14.8.5.7 follows): rows are the TR
elements of the table in tree order, whether inside THead/TBody/TFoot or not;
cells are the TH/TD elements of a row in tree order; each cell takes the
first free slot of its row and occupies ``row_span`` x ``col_span`` slots; a
row span reaching past the last row is cut there.

Header labels (§14.8.5.7): a cell's /Headers names header cells by /ID; else
header cells label by /Scope (Column: the cells below, Row: the cells to the
right, Both: both); a TH without /Scope labels its column when it sits in a
header row (THead, or a leading row of TH cells only), else its row.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from itertools import accumulate, chain, compress, count, pairwise, repeat
from operator import attrgetter, itemgetter, ne
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np

from ragprep.extract.native import compiled_core
from ragprep.extract.rows import frozen_replace, frozen_rows
from ragprep.extract.structure import StructTree, cell_columns
from ragprep.extract.structure_columns import NO_CELL

Box = tuple[float, float, float, float]

STRUCTURE, RULES, ALIGNMENT = "structure", "rules", "alignment"


# Slots, as Block's: built by the thousand with frozen_rows (rows.py).
@dataclass(frozen=True, slots=True, weakref_slot=True)
class TableCell:
    """One cell of a table grid (§14.8.4.3.4 TH/TD)."""

    row: int  # 0-based, whole-table coordinates
    col: int
    row_span: int  # slots it occupies downwards (§14.8.5.7 /RowSpan)
    col_span: int  # and to the right (/ColSpan)
    is_header: bool  # TH, or a detected header row
    header_labels: tuple[str, ...]  # texts of the header cells that label it, columns first
    text: str  # its page text, lines joined by one space
    page: int  # 1-based page its content is on (first page for a split cell)
    bbox: Box | None  # user space of `page`; None for an empty cell
    mcids: tuple[int, ...]
    char_start: int  # span in the page text of `page`; -1 for an empty cell
    char_end: int


@dataclass(frozen=True)
class Table:
    """A grid of cells; on a page result, only the cells of that page."""

    table_id: str  # "s<element>" for a tagged table, "d<page>.<k>" for a detected one
    source: str  # STRUCTURE, RULES or ALIGNMENT
    n_rows: int
    n_cols: int
    header_rows: int  # leading rows made of header cells only
    pages: tuple[int, ...]
    cells: tuple[TableCell, ...]  # row by row, left to right
    # A detected table's header row repeated at the top of a continuation
    # page: its cells (not part of the grid; their text is the header's).
    repeats: tuple[TableCell, ...] = ()

    def rows(self) -> tuple[tuple[TableCell, ...], ...]:
        """Cells grouped by the row they start in (rows with no cell here are skipped)."""
        grouped: dict[int, list[TableCell]] = defaultdict(list)
        for cell in self.cells:
            grouped[cell.row].append(cell)
        return tuple(tuple(grouped[r]) for r in sorted(grouped))


# --------------------------------------------------------------------------- the tagged grid


@dataclass(frozen=True, slots=True)
class GridSlot:
    """Where a TH/TD element sits in its table (computed from the tree alone).
    TableGrids holds its fields as columns (SlotColumns); one is made only
    where asked for (TableGrids.slot, grids made by hand: grids_of_slots)."""

    table: int  # element index of the Table
    row: int
    col: int
    row_span: int
    col_span: int
    header: bool  # TH
    in_thead: bool
    scope: str | None
    headers: tuple[str, ...]
    element_id: str | None


# GridSlot's fields but `table`: SlotColumns.fields' names, in _core.grid_layout's order.
_SLOT_COLUMNS = tuple(f.name for f in fields(GridSlot))[1:]


class SlotColumns(NamedTuple):
    """TableGrids' slots as columns, one row per slot, the slots of each
    table together (in `tables`' order), row by row: no object per slot
    (the compiled page cells, the labels and the lookups read them so)."""

    slot_of: np.ndarray  # per element, its slot (-1: not a TH/TD of a grid), int64
    table: np.ndarray  # per slot, its table's position in `tables`, int64
    tables: list[int]  # the element index of each Table with a row
    bounds: list[int]  # where each table's slots start, and the end
    cells: list[int]  # per slot, its TH/TD element
    fields: Mapping[str, list[Any]]  # GridSlot's fields but `table` (_SLOT_COLUMNS), one item per slot

    @property
    def places(self) -> tuple[list[Any], ...]:
        """Per slot: row, col, row_span, col_span, header (TableCell's order)."""
        return tuple(self.fields[name] for name in _PLACE_FIELDS)


@dataclass(frozen=True)
class TableGrids:
    """Every tagged table of a document, laid out once, as columns."""

    shapes: Mapping[int, tuple[int, int]]  # table element index -> (rows, cols)
    # Per element, the TH/TD at or above it (-1 when none): which cell owns
    # content. Empty for a tree with no table (nothing reads it then: no cells).
    cell_of: np.ndarray = field(compare=False)
    columns: SlotColumns = field(compare=False)
    # The tables whose cells only one page can show (_cell_placement): a page
    # reading labels them whole, merge_tables need not see them.
    on_one_page: frozenset[int] = frozenset()
    # The pages (keys) whose marked content the tree puts in a cell (_cell_placement):
    # no other page shows a cell. None: not known (grids made by hand), any page may.
    cell_pages: frozenset[tuple[int, int]] | None = None
    # Per table, what its labels read (heads_of, ids_of, named_of): built on first use, once per document.
    _cache: dict[tuple[str, int], Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def has_cells(self) -> bool:
        """Whether some table has a cell (a page reading looks for cells only then)."""
        return bool(self.columns.cells)

    def shows_cells(self, page: tuple[int, int]) -> bool:
        """Whether the page of key `page` can show a cell (a page reading looks for cells only then)."""
        return self.has_cells and (self.cell_pages is None or page in self.cell_pages)

    @cached_property
    def _ranges(self) -> dict[int, tuple[int, int]]:
        """Per table element, its slots' range in the columns."""
        bounds = self.columns.bounds
        return dict(zip(self.columns.tables, pairwise(bounds), strict=True))

    def has_slots(self, table: int) -> bool:
        """Whether `table` has a cell slot."""
        lo, hi = self._ranges.get(table, (0, 0))
        return hi > lo

    def _per_table(self, what: str, table: int, build: Callable[[range], Any]) -> Any:
        found = self._cache.get((what, table))
        if found is None:
            found = self._cache[what, table] = build(range(*self._ranges.get(table, (0, 0))))
        return found

    def heads_of(self, table: int) -> Mapping[tuple[int, int], tuple[str | None, bool]]:
        """The header (TH) slots of `table`: (row, col) -> (/Scope, in a THead).
        A slot's (row, col) is its own in its table: a row's cells take
        columns left to right, each past the one before (spans are >= 1)."""

        def build(slots: range) -> dict[tuple[int, int], tuple[str | None, bool]]:
            f = self.columns.fields
            heads = compress(slots, f["header"][slots.start : slots.stop])
            return {(f["row"][k], f["col"][k]): (f["scope"][k], f["in_thead"][k]) for k in heads}

        found: Mapping[tuple[int, int], tuple[str | None, bool]] = self._per_table("heads", table, build)
        return found

    def ids_of(self, table: int) -> Mapping[str, tuple[int, int]]:
        """The /ID of each cell of `table` (§14.7.2) and its slot."""

        def build(slots: range) -> dict[str, tuple[int, int]]:
            f = self.columns.fields
            ids = compress(slots, f["element_id"][slots.start : slots.stop])  # the cells with an /ID, not a step per cell
            return {f["element_id"][k]: (f["row"][k], f["col"][k]) for k in ids}

        found: Mapping[str, tuple[int, int]] = self._per_table("ids", table, build)
        return found

    def named_of(self, table: int) -> Mapping[tuple[int, int], tuple[str, ...]]:
        """The cells of `table` whose /Headers names their heads: (row, col) -> the /IDs named."""

        def build(slots: range) -> dict[tuple[int, int], tuple[str, ...]]:
            f = self.columns.fields
            named = compress(slots, f["headers"][slots.start : slots.stop])  # the cells with /Headers
            return {(f["row"][k], f["col"][k]): f["headers"][k] for k in named}

        found: Mapping[tuple[int, int], tuple[str, ...]] = self._per_table("named", table, build)
        return found

    @cached_property
    def page_tables(self) -> list[tuple[Any, ...] | None]:
        """Per table (the columns' order), what a page's piece of it reads
        (_core.page_tables), made once per document: its table_id, rows,
        columns, whether only one page shows it, and its heads, named and
        /ID maps (_head_maps); None for a table with no shape (the reference
        reads shapes, and raises, itself)."""
        out: list[tuple[Any, ...] | None] = []
        for table in self.columns.tables:
            shape = self.shapes.get(table)
            out.append(None if shape is None else (f"s{table}", *shape, table in self.on_one_page, *_head_maps(self, table)))
        return out

    def slot(self, element: int) -> GridSlot | None:
        """The slot of TH/TD `element`, None when it has none (tests, debugging)."""
        c = self.columns
        k = int(c.slot_of[element]) if 0 <= element < len(c.slot_of) else -1
        if k < 0:
            return None
        return GridSlot(c.tables[int(c.table[k])], *(c.fields[name][k] for name in _SLOT_COLUMNS))


def grids_of_slots(elements: int, slots: Mapping[int, GridSlot], shapes: Mapping[int, tuple[int, int]]) -> TableGrids:
    """TableGrids holding these slots (cell element -> slot) of a tree of
    `elements` elements, the tables in the order each first comes, a
    table's slots in their order: grids made by hand (tests)."""
    ordered = sorted(slots.items(), key=lambda item: item[1].table)  # stable: a table's slots keep their order
    tables = list(dict.fromkeys(slot.table for _, slot in ordered))
    sizes = Counter(slot.table for _, slot in ordered)
    bounds = [0, *accumulate(sizes[table] for table in tables)]
    fields = {name: [getattr(slot, name) for _, slot in ordered] for name in _SLOT_COLUMNS}
    cell_of = np.full(elements, -1, dtype=np.int64)
    return TableGrids(shapes, cell_of, slot_columns(elements, [cell for cell, _ in ordered], tables, bounds, fields), frozenset())


def slot_columns(elements: int, cells: list[int], tables: list[int], bounds: list[int], fields: Mapping[str, list[Any]]) -> SlotColumns:
    """The slots of a tree of `elements` elements as columns: `cells` holds
    each slot's TH/TD element, the cells of table `tables[k]` from
    `bounds[k]` to `bounds[k + 1]`; `fields` GridSlot's columns but `table`
    (one item per slot, in `cells`' order)."""
    slot_of = np.full(elements, -1, dtype=np.int64)
    slot_of[np.asarray(cells, dtype=np.int64)] = np.arange(len(cells))
    table = np.repeat(np.arange(len(tables), dtype=np.int64), [hi - lo for lo, hi in pairwise(bounds)])
    return SlotColumns(slot_of, table, tables, bounds, cells, {name: fields[name] for name in _SLOT_COLUMNS})


def table_grids(tree: StructTree) -> TableGrids:
    """Lay out all tables of the tree: one compiled call (_core.grid_layout)
    where the core is built; else the reference (_reference_grid_layout)."""
    parts = _table_parts(tree)
    if _TABLE_PARTS["Table"] not in parts:  # most trees: no Table, no pass over the tree, no array per element
        return TableGrids(_NO_SHAPES, _NO_ELEMENTS, _no_table_slots(), frozenset(), frozenset())
    layout = _compiled_grid_layout(tree, parts) or _reference_grid_layout(tree, parts)
    shapes = MappingProxyType(dict(zip(layout.slots.tables, zip(layout.n_rows, layout.n_cols, strict=True), strict=True)))
    placement = _cell_placement(tree, layout)
    keys = tree.columns.page_keys  # a row past them names no page a reading reads
    cell_pages = frozenset(keys[row] for row in placement.pages if 0 <= row < len(keys))
    return TableGrids(shapes, layout.cell_of, layout.slots, placement.on_one_page, cell_pages)


class CellPlacement(NamedTuple):
    """Where the tree puts its cells' marked content (_cell_placement)."""

    on_one_page: frozenset[int]  # the Tables all of whose cells' content lies on one page
    pages: frozenset[int]  # the pages (rows of the page keys) with content in a cell


def _cell_placement(tree: StructTree, layout: GridLayout) -> CellPlacement:
    """The tables all of whose cells' marked content the tree puts on one
    page (one row of its page keys): no other page's reading can show a
    cell of theirs (it places only the content the tree gives that page);
    and the pages some of whose content lies in a cell: no other page shows
    a cell (read_structure looks for none there). One compiled pass
    (_core.on_one_page) where the core is built."""
    slots = layout.slots
    if not slots.cells:
        return CellPlacement(frozenset(), frozenset())
    core = compiled_core()
    if core is None:
        return _reference_cell_placement(tree, layout)
    content = tree.content
    found, pages = core.on_one_page(layout.cell_of, slots.slot_of, slots.table, content.element, content.page, len(slots.tables))
    return CellPlacement(frozenset(map(slots.tables.__getitem__, found)), frozenset(pages))


def _reference_cell_placement(tree: StructTree, layout: GridLayout) -> CellPlacement:
    """_cell_placement in numpy steps."""
    slots = layout.slots
    content = tree.content
    cell = layout.cell_of[content.element]
    shown = cell >= 0  # content inside a cell: its cell starts a row's cell, so it has a slot
    table, page = slots.table[slots.slot_of[cell[shown]]], content.page[shown]
    # Each table's first page (of the last write to a place, numpy keeps the
    # last: written backwards, the first); a table with content elsewhere is mixed.
    first = np.full(len(slots.tables), -1, dtype=np.int64)
    first[table[::-1]] = page[::-1]
    mixed = np.zeros(len(slots.tables), dtype=bool)
    mixed[table[page != first[table]]] = True
    tables = np.asarray(slots.tables, dtype=np.int64)[(first >= 0) & ~mixed]
    return CellPlacement(frozenset(tables.tolist()), frozenset(page.tolist()))


class GridLayout(NamedTuple):
    """The tagged tables of a tree laid out (table_grids' columns): per
    table (SlotColumns.tables' order) its rows and columns; per element
    the TH/TD at or above it; the slots."""

    cell_of: np.ndarray
    n_rows: list[int]
    n_cols: list[int]
    slots: SlotColumns


def _no_slots(elements: int) -> SlotColumns:
    """The slots of a tree of `elements` elements with no table."""
    return slot_columns(elements, [], [], [0], {name: [] for name in _SLOT_COLUMNS})


# The shapes of a tree with no table (read-only: shared by every such tree).
_NO_SHAPES: Mapping[int, tuple[int, int]] = MappingProxyType({})


# An empty int64 array, read-only: shared by every tree with no table as its
# cell_of, slot_of and slot tables (nothing reads them there: it has no cells).
_NO_ELEMENTS = np.zeros(0, dtype=np.int64)
_NO_ELEMENTS.flags.writeable = False


def _no_table_slots() -> SlotColumns:
    """The slots of a tree with no table: no array per element (_NO_ELEMENTS)."""
    return SlotColumns(_NO_ELEMENTS, _NO_ELEMENTS, [], [0], [], {name: [] for name in _SLOT_COLUMNS})


def _table_parts(tree: StructTree) -> list[int]:
    """Per row of the tree's type table, its table part (0: none)."""
    return [_TABLE_PARTS.get(std, 0) for _, std in tree.columns.type_names]


def _compiled_grid_layout(tree: StructTree, parts: list[int]) -> GridLayout | None:
    """_core.grid_layout's layout; None without the core, or where the
    reference must lay out (a parent after its kid, a span past int64)."""
    core = compiled_core()
    if core is None:
        return None
    size, c = tree.size, tree.columns
    cell_of, slot_of, slot_table = (np.empty(size, dtype=np.int64) for _ in range(3))
    attributes = c.cells if type(c.cells) is dict else dict(c.cells)
    found = core.grid_layout(
        np.ascontiguousarray(c.parent, dtype=np.int64), np.ascontiguousarray(c.type, dtype=np.int64),
        bytes(parts), attributes, NO_CELL, cell_of, slot_of, slot_table,
    )  # fmt: skip
    if found is None:
        return None
    tables, n_rows, n_cols, bounds, cells, columns = found
    slots = SlotColumns(slot_of, slot_table[: len(cells)], tables, bounds, cells, dict(zip(_SLOT_COLUMNS, columns, strict=True)))
    return GridLayout(cell_of, n_rows, n_cols, slots)


def _reference_grid_layout(tree: StructTree, parts: list[int]) -> GridLayout:
    """table_grids' layout in numpy steps (whole-tree columns, then a pass
    over the table cells); `parts`: per type row its table part (0: none)."""
    # Each element's table part, one pass: numbers compare at once where an
    # object column compares name by name.
    part = np.array(parts, dtype=np.int8)[tree.columns.type]
    tables = part == _TABLE_PARTS["Table"]
    if not tables.any():  # a Table type no element has
        return GridLayout(np.full(len(part), -1, dtype=np.int64), [], [], _no_slots(len(part)))
    # Nearest Table at or above each element; a TR inside one starts a row,
    # a TH/TD inside a row a cell; a Table starts neither (it resets both).
    table_of = tree.nearest(tables)
    is_row = tables | ((part == _TABLE_PARTS["TR"]) & (table_of >= 0))
    row_of = _started_by(tree.nearest(is_row), tables)
    is_cell = tables | (((part == _TABLE_PARTS["TH"]) | (part == _TABLE_PARTS["TD"])) & (row_of >= 0))
    cell_of = _started_by(tree.nearest(is_cell), tables)
    # In a THead: the nearest Table, THead, TBody or TFoot at or above is a THead.
    group = tree.nearest(tables | (part >= _TABLE_PARTS["THead"]))
    in_thead = np.zeros(len(part), dtype=bool)
    in_thead[group >= 0] = part[group[group >= 0]] == _TABLE_PARTS["THead"]
    grids = _tables_by_rows(table_of, row_of, is_row & ~tables, is_cell & ~tables)
    placed = _place(tree, grids, in_thead)
    ends = list(map(int.__add__, placed["col"], placed["col_span"]))
    n_cols = [max(ends[lo:hi], default=0) for lo, hi in pairwise(grids.bounds)]
    slots = slot_columns(len(part), grids.cells, grids.tables, grids.bounds, placed)
    return GridLayout(cell_of, grids.n_rows, n_cols, slots)


class _Grids(NamedTuple):
    """The tagged tables that have a row, in the order their first row comes,
    and their cells, table after table, row by row."""

    tables: list[int]  # element index of each Table
    n_rows: list[int]
    bounds: list[int]  # where each table's cells start in `cells`, and the end
    cells: list[int]  # element index of each TH/TD
    cell_rows: np.ndarray  # each cell's row in its table (int64)


def _tables_by_rows(table_of: np.ndarray, row_of: np.ndarray, rows: np.ndarray, cells: np.ndarray) -> _Grids:
    """The tables that have a row and their cells: rows are the `rows`
    elements of a table depth first; a row's cells are the `cells` elements
    it starts, depth first. Grouped by sorting, not per element."""
    row_elements = np.flatnonzero(rows)  # depth first
    row_table = table_of[row_elements]
    keys, first = np.unique(row_table, return_index=True)
    rank = np.empty(len(keys), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(keys))
    by_table = np.argsort(rank[np.searchsorted(keys, row_table)], kind="stable")
    row_counts = np.bincount(rank[np.searchsorted(keys, row_table)], minlength=len(keys))
    # Each row's place among all rows grouped so; a cell's row is one of them.
    position = np.full(len(table_of), -1, dtype=np.int64)
    position[row_elements[by_table]] = np.arange(len(row_elements))
    cell_elements = np.flatnonzero(cells)
    cell_position = position[row_of[cell_elements]]
    by_row = np.argsort(cell_position, kind="stable")
    cell_elements, cell_position = cell_elements[by_row], cell_position[by_row]
    row_starts = np.concatenate([[0], np.cumsum(row_counts)])
    cell_rows = cell_position - row_starts[np.searchsorted(row_starts, cell_position, side="right") - 1]
    return _Grids(
        keys[np.argsort(first, kind="stable")].tolist(), row_counts.tolist(),
        np.searchsorted(cell_position, row_starts).tolist(), cell_elements.tolist(), cell_rows,
    )  # fmt: skip


# The table parts of §14.8.4.3.4 as numbers; the row groups last (THead first among them).
_TABLE_PARTS = {"Table": 1, "TR": 2, "TH": 3, "TD": 4, "THead": 5, "TBody": 6, "TFoot": 7}


def _started_by(nearest: np.ndarray, tables: np.ndarray) -> np.ndarray:
    """`nearest` (the nearest row or cell start at or above each element),
    -1 where that start is a Table: a table begins with no row or cell open."""
    started = nearest.copy()
    started[(nearest >= 0) & tables[np.maximum(nearest, 0)]] = -1
    return started


def _place(tree: StructTree, grids: _Grids, in_thead: np.ndarray) -> dict[str, list[Any]]:
    """The GridSlots' columns of the cells of every table of `grids`, the
    tables one after another: each cell takes the first free slot of its
    row; spans occupy theirs; a row span is cut at the last row."""
    elements = np.asarray(grids.cells, dtype=np.int64)  # once: each column read below takes it as it is
    row_spans, col_spans, scope, headers, element_id = cell_columns(tree, elements)
    cell_rows = grids.cell_rows.tolist()
    # Nothing spans down in most tables: a cell starts where the cell before it in its row ends.
    cols = _row_starts(grids.cell_rows, col_spans, grids.bounds)
    for n_rows, (lo, hi) in zip(grids.n_rows, pairwise(grids.bounds), strict=True):
        down = row_spans[lo:hi]
        if max(down, default=1) > 1:  # a cell looks past the slots rows above span into
            row_spans[lo:hi], cols[lo:hi] = _spanned_slots(cell_rows[lo:hi], n_rows, down, col_spans[lo:hi])
    columns = {
        "row": cell_rows, "col": cols, "row_span": row_spans, "col_span": col_spans,
        "header": tree.values("header_cell", elements), "in_thead": in_thead[elements].tolist(),
        "scope": scope, "headers": headers, "element_id": element_id,
    }  # fmt: skip
    return columns


def _row_starts(cell_rows: np.ndarray, col_spans: list[int], bounds: list[int]) -> list[int]:
    """Each cell's column when no cell spans down: the spans of its row's
    cells before it, summed; the cells of all tables at once (`bounds`:
    where each table's cells start). Sums of Python ints: a hostile span
    does not overflow."""
    if not len(cell_rows):
        return []
    count = len(cell_rows)
    opens = np.zeros(count + 1, dtype=bool)  # a cell that opens its row (one past the last: a table of no cells)
    opens[bounds] = True
    opens[1:count] |= cell_rows[1:] != cell_rows[:-1]
    opens[0] = True
    # Per cell, the position of the cell that opens its row.
    opener = np.maximum.accumulate(np.where(opens[:count], np.arange(count), 0)).tolist()
    before = list(accumulate(col_spans, initial=0))  # the spans of all cells before each
    return list(map(int.__sub__, before[:-1], map(before.__getitem__, opener)))


def _spanned_slots(
    cell_rows: list[int], n_rows: int, row_spans: list[int], col_spans: list[int]
) -> tuple[list[int], list[int]]:
    """(row spans cut at the last row, columns) of the cells, row by row: a
    cell looks past the slots that cells of rows above span into; its own
    row's cells lie behind it, so only what spans down is kept."""
    below: set[tuple[int, int]] = set()
    cut: list[int] = []
    cols: list[int] = []
    col, row = 0, -1
    for r, row_span, col_span in zip(cell_rows, row_spans, col_spans, strict=True):
        if r != row:
            col, row = 0, r
        while (r, col) in below:
            col += 1
        row_span = min(row_span, n_rows - r)
        below.update((r + dr, col + dc) for dr in range(1, row_span) for dc in range(col_span))
        cut.append(row_span)
        cols.append(col)
        col += col_span
    return cut, cols


# --------------------------------------------------------------------------- one page's cells


@dataclass(frozen=True)
class CellContents:
    """What a page shows of its tagged cells (TH/TD), one column per field and
    one row per cell, by element index: each cell's span in the page text and
    its glyphs' extent. Columns, not an object per cell: structure_tables
    reads them once, into the page's TableCells."""

    key: Sequence[int]  # the cell element
    char_start: Sequence[int]
    char_end: Sequence[int]
    bbox: Sequence[tuple[float, ...]]  # (x0, y0, x1, y1), as run_boxes gives them
    mcids: Sequence[tuple[int, ...]]
    # Per cell, a str already made that may be its span's slice of the page
    # text (a cell of one block: that block's text; None: none), or () for
    # no cell: where cell_text keeps the slice, a cell takes it rather than
    # a copy (_core.page_tables). What the compiled reading has at hand; the
    # reference makes none, and no result differs by it.
    texts: Sequence[str | None] = field(default=(), compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.key)


NO_CELLS = CellContents((), (), (), (), ())


def cell_text(page_text: str, start: int, end: int) -> str:
    """A cell's text: its page text with its lines joined by one space."""
    text = page_text[start:end]
    # Most cells are one line with single spaces: nothing to rewrite. Only
    # the space is both whitespace (what \s, split() and strip() take) and
    # printable, so a printable text with no double, leading or trailing space
    # is its own result (tests/extract/test_tables_tagged.py checks every code
    # point). Else its whitespace-free pieces joined by one space: what
    # re.sub(r"\s+", " ", text).strip() gives (the same whitespace), at a
    # quarter of the cost.
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join(text.split())


def structure_tables(
    grids: TableGrids, contents: CellContents, page: int, page_text: str, *, labels: bool = True
) -> tuple[Table, ...]:
    """The pieces of the tagged tables that page `page` shows, in the order
    their first text comes. Cells the page shows no content of are left to
    the pages that do; labels are those this page can see (``merge_tables``
    labels across pages), none without `labels` (for pages that
    ``merge_tables`` labels anyway) but on a table only this page can show
    (``TableGrids.on_one_page``): its piece is the whole table, labelled once,
    here (``whole_on_page`` tells merge_tables' callers to leave it). One
    compiled call (_core.page_tables) where the core is built: the cells
    built once, finished where the page labels them; else the reference."""
    core = compiled_core()
    if core is not None:
        c = grids.columns
        found = core.page_tables(
            TableCell, _CELL_FIELDS, Table, _TABLE_FIELDS, STRUCTURE,
            (contents.key, contents.char_start, contents.char_end, contents.bbox, contents.mcids, contents.texts),
            c.slot_of, c.table, grids.page_tables, c.places, page_text, page, labels,
        )  # fmt: skip
        if found is not None:
            return found  # type: ignore[no-any-return]
    return _reference_structure_tables(grids, contents, page, page_text, labels)


def _reference_structure_tables(
    grids: TableGrids, contents: CellContents, page: int, page_text: str, labels: bool
) -> tuple[Table, ...]:
    """structure_tables in steps: the page's cells (_page_cells), then each
    table's piece, finished (_finish) where the page labels it."""
    found = _page_cells(grids, contents, page, page_text)
    if found is None:
        return ()
    tables, firsts, bounds, cells = found
    placed = []
    for table, first, (lo, hi) in zip(tables, firsts, pairwise(bounds), strict=True):
        n_rows, n_cols = grids.shapes[table]
        piece = Table(f"s{table}", STRUCTURE, n_rows, n_cols, 0, (page,), cells[lo:hi])
        # Unlabelled pieces go to merge_tables, which sorts, counts and labels
        # the whole table: not done twice.
        whole = labels or table in grids.on_one_page
        placed.append((first, _finish(piece, grids, table) if whole else piece))
    placed.sort(key=itemgetter(0))  # stable: pieces starting at one offset keep their order
    return tuple(piece for _, piece in placed)


class PageCells(NamedTuple):
    """A page's tagged cells grouped by table, the tables in the order each
    first comes (a cell's order kept in its table)."""

    tables: list[int]  # each table's element
    firsts: list[int]  # the least char_start of its cells here
    bounds: list[int]  # where its cells start in `cells`, and the end
    cells: tuple[TableCell, ...]  # unlabelled


def _page_cells(grids: TableGrids, contents: CellContents, page: int, page_text: str) -> PageCells | None:
    """The cells of `contents` that have a grid slot, as TableCells grouped
    by table; None when none has. One compiled call (_core.page_cells) where
    the core is built; else the reference."""
    core = compiled_core()
    if core is None:
        return _reference_page_cells(grids, contents, page, page_text)
    columns = grids.columns
    found = core.page_cells(
        TableCell, _CELL_FIELDS, (contents.key, contents.char_start, contents.char_end, contents.bbox, contents.mcids),
        columns.slot_of, columns.table, columns.tables, columns.places, page_text, page,
    )  # fmt: skip
    return None if found is None else PageCells(*found)


def _reference_page_cells(grids: TableGrids, contents: CellContents, page: int, page_text: str) -> PageCells | None:
    """_page_cells in Python steps: each cell's slot looked up, the cells
    grouped by table, their texts cut, the rows built at once."""
    columns = grids.columns
    slot_of = columns.slot_of.tolist()
    slots = [slot_of[key] if 0 <= key < len(slot_of) else -1 for key in contents.key]
    shown = [slot for slot in slots if slot >= 0]
    if not shown:
        return None
    content = _content_columns(contents, None if len(shown) == len(slots) else _present(slots))
    place_columns = columns.places
    places = [tuple(column[slot] for column in place_columns) for slot in shown]
    tables = [columns.tables[columns.table[slot]] for slot in shown]
    order, bounds = _by_table(tables)
    if order is not None:
        places, tables = [places[k] for k in order], [tables[k] for k in order]
        content = {name: [values[k] for k in order] for name, values in content.items()}
    cells = _cell_rows(places, content, page, page_text)
    firsts = [min(content["char_start"][lo:hi]) for lo, hi in pairwise(bounds)]
    return PageCells([tables[lo] for lo in bounds[:-1]], firsts, bounds, cells)


def _present(slots: list[int]) -> list[int]:
    return [k for k, slot in enumerate(slots) if slot >= 0]


def _content_columns(contents: CellContents, rows: list[int] | None) -> dict[str, list[Any]]:
    """`contents`' columns a cell takes, at `rows` (None: all of them)."""
    names = ("char_start", "char_end", "bbox", "mcids")
    if rows is None:
        return {name: list(getattr(contents, name)) for name in names}
    return {name: [getattr(contents, name)[k] for k in rows] for name in names}


def _by_table(tables: list[int]) -> tuple[list[int] | None, list[int]]:
    """(positions of `tables`' cells grouped by table in the order each table
    first comes, a cell's order kept inside its table — None when they
    already are; where each group starts, and the end)."""
    firsts = dict.fromkeys(tables)
    if len(firsts) <= 1:
        return None, [0, len(tables)]
    rank = {table: k for k, table in enumerate(firsts)}
    order = sorted(range(len(tables)), key=lambda k: rank[tables[k]])
    sizes = Counter(tables)
    bounds = [0]
    for table in firsts:
        bounds.append(bounds[-1] + sizes[table])
    return order, bounds


def _cell_rows(
    places: list[tuple[int, int, int, int, bool]], columns: dict[str, list[Any]], page: int, page_text: str
) -> tuple[TableCell, ...]:
    """The cells page `page` shows, unlabelled: every cell of every tagged
    table, page by page, built as rows at once (`places`: each cell's
    row, column, spans and header flag)."""
    count = len(places)
    rows, cols, row_spans, col_spans, headers = map(list, zip(*places, strict=True))
    starts, ends = columns["char_start"], columns["char_end"]
    return frozen_rows(
        TableCell,
        {
            "row": rows, "col": cols, "row_span": row_spans, "col_span": col_spans,
            "is_header": headers, "header_labels": [()] * count,
            "text": list(map(cell_text, repeat(page_text, count), starts, ends)),
            "page": [page] * count, "bbox": columns["bbox"], "mcids": columns["mcids"],
            "char_start": starts, "char_end": ends,
        },
    )  # fmt: skip


# A slot's place in its grid (TableCell's order).
_PLACE_FIELDS = ("row", "col", "row_span", "col_span", "header")


def _finish(
    table: Table, grids: TableGrids | None = None, element: int = -1, relabel: bool = True, *, join: bool = False
) -> Table:
    """Cells sorted row by row (`join`: a slot's cells joined, _joined_cells),
    header rows counted, labels attached."""
    cells, header_rows, pages = _finished_cells(table.cells, grids, element, relabel, join)
    return frozen_replace(table, cells=cells, header_rows=header_rows, pages=pages)


class _Finished(NamedTuple):
    """A table's cells finished (_finish): sorted and labelled, its header rows and pages."""

    cells: tuple[TableCell, ...]
    header_rows: int
    pages: tuple[int, ...]


def _finished_cells(
    cells: Sequence[TableCell], grids: TableGrids | None, element: int, relabel: bool, join: bool
) -> _Finished:
    """_finish's cells: one compiled call (_core.table_finish) where the core
    is built and takes them; else the reference."""
    core = compiled_core()
    if core is not None:
        heads, named, ids = _head_maps(grids, element) if relabel else ({}, {}, {})
        has_slots = grids is not None and grids.has_slots(element)
        found = core.table_finish(TableCell, _CELL_FIELDS, cells, join, heads, named, ids, has_slots, relabel)
        if found is not None:
            return _Finished(*found)
    return _reference_finished_cells(cells, grids, element, relabel, join)


def _head_maps(grids: TableGrids | None, element: int) -> tuple[dict[Any, Any], dict[Any, Any], dict[Any, Any]]:
    """What labels the cells of table `element` read: its heads, the cells
    whose /Headers names them and the cells' /IDs, as dicts (none without grids)."""
    if grids is None:
        return {}, {}, {}
    # TableGrids builds them as dicts (read-only to their readers): no copy.
    # The /IDs are read only where some cell names its heads by them.
    named = grids.named_of(element)
    return _as_dict(grids.heads_of(element)), _as_dict(named), _as_dict(grids.ids_of(element)) if named else {}


def _as_dict(mapping: Mapping[Any, Any]) -> dict[Any, Any]:
    """`mapping` itself when it is a dict (what the compiled core reads), else a copy as one."""
    return mapping if type(mapping) is dict else dict(mapping)


def _reference_finished_cells(
    cells: Sequence[TableCell], grids: TableGrids | None, element: int, relabel: bool, join: bool
) -> _Finished:
    """_finished_cells in Python steps."""
    ordered = sorted(_joined_cells(cells) if join else cells, key=_SLOT)
    header_rows = _header_rows(ordered)
    labelled = _labels(ordered, header_rows, grids, element) if relabel else ordered
    return _Finished(tuple(labelled), header_rows, tuple(sorted(set(map(_PAGE, ordered)))))


_SLOT = attrgetter("row", "col")


def _header_rows(cells: Sequence[TableCell]) -> int:
    """Leading rows whose every cell present is a header cell; `cells`
    sorted by row (as _finish sorts them), so every row before the first
    cell that is not a header is made of header cells only."""
    heads = list(map(_IS_HEADER, cells))
    if True not in heads:
        return 0  # a detected table's cells, mostly
    rows = list(map(_ROW, cells))
    plain = heads.index(False) if False in heads else len(heads)
    present, limit = set(rows[:plain]), rows[plain] if plain < len(rows) else len(rows)
    leading = 0
    while leading < limit and leading in present:
        leading += 1
    return leading


_IS_HEADER = attrgetter("is_header")


def _labels(
    cells: Sequence[TableCell], header_rows: int, grids: TableGrids | None, element: int
) -> list[TableCell]:
    """Attach header labels (module docstring: /Headers, else /Scope, else position)."""
    heads = grids.heads_of(element) if grids is not None else {}
    column_heads: list[TableCell] = []
    row_heads: list[TableCell] = []
    for c in compress(cells, map(_IS_HEADER, cells)):  # the header cells, not a Python step per cell
        if not c.text:
            continue
        scope, in_thead = heads.get((c.row, c.col), (None, False))
        if scope is None:
            # No /Scope: a header row's cells (THead, leading TH rows, the
            # first row) label columns; other header cells label their row.
            in_head = c.row < header_rows or c.row == 0 or in_thead
            scope = "Column" if in_head and not (c.col == 0 and c.row >= header_rows) else "Row"
        if scope in ("Column", "Both"):
            column_heads.append(c)
        if scope in ("Row", "Both"):
            row_heads.append(c)
    if not column_heads and not row_heads and not (grids is not None and grids.has_slots(element)):
        return _relabelled(cells, [()] * len(cells))  # no head and no /Headers: no labels (a detected table)
    above = _HeadLabels(column_heads, _COLUMNS, _ROW).of_each(cells)
    before = _HeadLabels(row_heads, _ROWS, _COL).of_each(cells)
    labels = list(map(tuple.__add__, above, before))
    named = grids.named_of(element) if grids is not None else {}
    if named:  # /Headers names the heads of these cells, in place of their positions
        by_id = grids.ids_of(element) if grids is not None else {}
        text_at = {(c.row, c.col): c.text for c in cells}
        for k, at in enumerate(map(_SLOT, cells)):
            if at in named:
                texts = (text_at.get(by_id.get(h, (-1, -1)), "") for h in named[at])
                labels[k] = tuple(t for t in texts if t)
    return _relabelled(cells, labels)


_CELL_FIELDS = tuple(f.name for f in fields(TableCell))
_TABLE_FIELDS = tuple(f.name for f in fields(Table))
_ALL_FIELDS, _HEADER_LABELS = attrgetter(*_CELL_FIELDS), attrgetter("header_labels")


def _relabelled(cells: Sequence[TableCell], labels: list[tuple[str, ...]]) -> list[TableCell]:
    """`cells` with these header labels: the cells whose labels change
    rebuilt at once, as rows the cyclic collector leaves alone."""
    changed = list(compress(count(), map(ne, map(_HEADER_LABELS, cells), labels)))
    out = list(cells)
    if changed:
        columns = dict(zip(_CELL_FIELDS, map(list, zip(*(_ALL_FIELDS(cells[k]) for k in changed), strict=True)), strict=True))
        columns["header_labels"] = [labels[k] for k in changed]
        for k, cell in zip(changed, frozen_rows(TableCell, columns), strict=True):
            out[k] = cell
    return out


_COLUMNS, _ROWS = attrgetter("col", "col_span"), attrgetter("row", "row_span")
_ROW, _COL = attrgetter("row"), attrgetter("col")


class _HeadLabels:
    """The texts of the header cells that label a cell along one axis: the
    heads whose span there overlaps the cell's and that lie before it (a
    column head above the cell, a row head left of it), in the heads' order.
    The heads overlapping a span are found once per span, not once per cell:
    the cells of a long table share a few spans."""

    def __init__(self, heads: list[TableCell], span: attrgetter[tuple[int, int]], position: attrgetter[int]) -> None:
        self._span, self._position = span, position
        # Each head's span along the axis (start, extent), its position across it and its text, read once.
        self._heads = [(*span(h), position(h), h.text) for h in heads]

    def of_each(self, cells: Sequence[TableCell]) -> list[tuple[str, ...]]:
        """The labels of each of `cells`, in order."""
        if not self._heads:
            return [()] * len(cells)
        spans = list(map(self._span, cells))
        # span -> (the overlapping heads' positions and texts, the last position, all their texts)
        found = {span: self._overlapping(span) for span in dict.fromkeys(spans)}
        out = []
        for span, where in zip(spans, map(self._position, cells), strict=True):
            heads, last, every = found[span]
            # A head lies before the cell it labels, so a cell is never its own head.
            out.append(every if where > last else tuple(text for p, text in heads if p < where))
        return out

    def _overlapping(self, span: tuple[int, int]) -> tuple[list[tuple[int, str]], int, tuple[str, ...]]:
        at, extent = span
        # The head's span and the cell's overlap.
        heads = [(p, text) for a, a_span, p, text in self._heads if a < at + extent and at < a + a_span]
        return heads, max((p for p, _ in heads), default=-1), tuple(t for _, t in heads)


# --------------------------------------------------------------------------- across pages


def whole_on_page(piece: Table, grids: TableGrids | None) -> bool:
    """Whether `piece` is a whole tagged table labelled by its page
    (structure_tables, TableGrids.on_one_page): merging the document's pieces
    gives it back as it is."""
    return grids is not None and piece.source == STRUCTURE and int(piece.table_id[1:]) in grids.on_one_page


def merge_tables(
    pieces: Iterable[Table], grids: TableGrids | None = None, *, relabel: bool = True
) -> tuple[Table, ...]:
    """The document's tables from the page pieces: pieces with one table_id
    are one table; a cell shown on two pages keeps its first page and takes
    the text of both. `relabel` attaches header labels over the whole grid
    (pieces already labelled that way keep theirs without it)."""
    grouped: dict[str, list[Table]] = {}
    for piece in pieces:
        grouped.setdefault(piece.table_id, []).append(piece)
    merged = []
    for table_id, parts in grouped.items():
        first = parts[0]
        element = int(table_id[1:]) if first.source == STRUCTURE else -1
        # A single tagged piece holds each slot once (its cells are distinct
        # elements of one grid, _place): nothing to join.
        join = len(parts) > 1 or first.source != STRUCTURE
        table = frozen_replace(
            first,
            n_rows=max(p.n_rows for p in parts),
            n_cols=max(p.n_cols for p in parts),
            cells=first.cells if len(parts) == 1 else tuple(chain.from_iterable(map(_CELLS, parts))),
            repeats=tuple(c for p in parts for c in p.repeats),
        )
        merged.append(_finish(table, grids if first.source == STRUCTURE else None, element, relabel, join=join))
    return tuple(merged)


def _joined_cells(cells: Sequence[TableCell]) -> Sequence[TableCell]:
    """The cells of a table's pieces (one after another), one per slot: a
    cell shown on two pages keeps its first page and takes the text of both.
    Cells none of whose slots repeat are kept as they are (most tables over
    pages: a cell split by a page break is rare)."""
    if len(set(map(_SLOT, cells))) == len(cells):
        return cells
    joined: dict[tuple[int, int], TableCell] = {}
    for c in cells:
        seen = joined.get((c.row, c.col))
        joined[(c.row, c.col)] = c if seen is None else replace(seen, text=f"{seen.text} {c.text}".strip())
    return tuple(joined.values())


def pieces_by_page(tables: Sequence[Table]) -> dict[int, tuple[Table, ...]]:
    """Per page, the pieces of whole tables it shows (labels kept), in table
    order: each table's cells looked at once, not once per page."""
    out: dict[int, list[Table]] = defaultdict(list)
    core = compiled_core()
    for t in tables:
        by_page = core.cells_by_page(TableCell, t.cells) if core is not None else None
        for page, cells in (_reference_by_page(t.cells) if by_page is None else by_page).items():
            out[page].append(frozen_replace(t, cells=cells, repeats=tuple(c for c in t.repeats if c.page == page)))
    return {page: tuple(pieces) for page, pieces in out.items()}


def _reference_by_page(cells: tuple[TableCell, ...]) -> dict[int, tuple[TableCell, ...]]:
    """Per page, in the order each first comes, its cells in their order
    (_core.cells_by_page in Python steps)."""
    pages = list(map(_PAGE, cells))
    if pages and pages.count(pages[0]) == len(pages):  # most tables lie on one page
        return {pages[0]: cells}
    grouped: dict[int, list[TableCell]] = {}  # the cells of each page in one pass
    for cell, page in zip(cells, pages, strict=True):
        grouped.setdefault(page, []).append(cell)
    return {page: tuple(found) for page, found in grouped.items()}


_PAGE, _CELLS = attrgetter("page"), attrgetter("cells")


# --------------------------------------------------------------------------- detected tables over pages

# A continued table's columns start within this distance (points) of the first part's.
COLUMN_MATCH = 8.0
# Lines of text allowed between a table part and the page edge it runs into
# (a page number, a "(continued)" caption).
EDGE_LINES = 2


@dataclass(frozen=True)
class PageTables:
    """One page's table pieces and the boxes of its text lines."""

    page: int
    tables: tuple[Table, ...]
    lines: tuple[Box, ...]


def join_continued(pages: Sequence[PageTables]) -> list[tuple[Table, ...]]:
    """Detected tables that run on over a page break: the top table of a page
    continues the bottom table of the page before when it has the same number
    of columns starting at the same x, and no more than EDGE_LINES lines of
    text lie below the one and above the other. It takes the first part's id
    and row numbers after its rows; a first row that repeats the first part's
    first row is its header repeated (kept in ``repeats``, and that row of the
    first part becomes a header row)."""
    out: list[tuple[Table, ...]] = []
    previous: tuple[int, Table] | None = None  # (position in out, bottom detected table)
    for page in pages:
        pieces = list(page.tables)
        detected = [i for i, t in enumerate(pieces) if t.source != STRUCTURE]
        if previous is not None and detected:
            top = max(detected, key=lambda i: _extent(pieces[i])[3])
            head = _continuation(previous[1], pieces[top], page.lines)
            if head is not None:
                first, continued = head
                pieces[top] = continued
                earlier = list(out[previous[0]])
                earlier[earlier.index(previous[1])] = first
                out[previous[0]] = tuple(earlier)
        out.append(tuple(pieces))
        previous = None
        if detected:
            bottom = min(detected, key=lambda i: _extent(pieces[i])[1])
            if _lines_beyond(pieces[bottom], page.lines, below=True) <= EDGE_LINES:
                previous = (len(out) - 1, pieces[bottom])
    return out


def _extent(table: Table) -> Box:
    boxes = [c.bbox for c in table.cells if c.bbox is not None]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _lines_beyond(table: Table, lines: Sequence[Box], *, below: bool) -> int:
    x0, y0, x1, y1 = _extent(table)
    if below:
        return sum(1 for b in lines if b[3] < y0 - 1)
    return sum(1 for b in lines if b[1] > y1 + 1)


def _column_starts(table: Table) -> list[float | None]:
    starts: list[float | None] = [None] * table.n_cols
    for c in table.cells:
        if c.col_span == 1 and c.bbox is not None:
            seen = starts[c.col]
            starts[c.col] = c.bbox[0] if seen is None else min(seen, c.bbox[0])
    return starts


def _continuation(first: Table, second: Table, lines: Sequence[Box]) -> tuple[Table, Table] | None:
    """(first part, second part renumbered) when `second` continues `first`."""
    if first.n_cols != second.n_cols or _lines_beyond(second, lines, below=False) > EDGE_LINES:
        return None
    pairs = [(a, b) for a, b in zip(_column_starts(first), _column_starts(second), strict=True) if a is not None and b is not None]
    if len(pairs) < 2 or any(abs(a - b) > COLUMN_MATCH for a, b in pairs):
        return None
    first_row = min(c.row for c in first.cells)
    head = [c.text for c in first.cells if c.row == first_row]
    top = [c for c in second.cells if c.row == 0]
    repeated = [c.text for c in top] == head
    offset = max(c.row + c.row_span for c in first.cells)
    drop = 1 if repeated else 0
    cells = tuple(replace(c, row=c.row - drop + offset) for c in second.cells if not (repeated and c.row == 0))
    continued = replace(
        second,
        table_id=first.table_id,
        n_rows=offset + second.n_rows - drop,
        cells=cells,
        repeats=tuple(top) if repeated else (),
    )
    if repeated:
        first = replace(first, cells=tuple(replace(c, is_header=True) if c.row == first_row else c for c in first.cells))
    return first, continued
