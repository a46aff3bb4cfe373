"""tables.table_grids, compiled (_core.grid_layout) against its numpy
reference (tables._reference_grid_layout).

The grids of a tree's tagged tables: the tables that have a row, in the
order their first row comes; their rows (TR inside the table, in tree order,
whether in a row group or not) and cells (TH/TD inside a row); each cell in
the first column of its row no cell above spans into, its row span cut at
the last row; per element the cell at or above it; per cell whether it sits
in a THead. The trees drawn below nest tables in tables, cells outside rows
and rows outside tables, row groups inside rows, and spans that cross and
run past the table; and what the kernel hands back to the reference: a
parent numbered after its kid, and spans past what it adds safely.
"""

from __future__ import annotations

import csv
import gc

import numpy as np
import pytest
from codepath import on_path
from corpusdir import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract import _core, tables
from ragprep.extract.compiled import compiled_available
from ragprep.extract.document import open_document
from ragprep.extract.structure import StructTree
from ragprep.extract.structure_columns import ContentColumns, ElementColumns

pytestmark = pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built")

_TYPES = ("P", "Table", "TR", "TH", "TD", "THead", "TBody", "TFoot", "Div")
_HUGE = 2**70  # no int64 holds it: the reference's Python ints lay it out


def _tree(parents: list[int], types: list[int], cells: dict[int, tuple]) -> StructTree:
    """A tree of these parents (-1: a kid of the root), types (rows of _TYPES) and cell attributes."""
    parent, type_ = np.array(parents, dtype=np.int64), np.array(types, dtype=np.int64)
    zeros, none = np.zeros(len(parent), dtype=np.int64), np.full(len(parent), -1, dtype=np.int64)
    names = tuple((name, name) for name in _TYPES)
    columns = ElementColumns(
        parent, type_, zeros, none, zeros, zeros, none, zeros, [None] * len(parent), {}, {}, cells, names, (), (("P",),)
    )  # fmt: skip
    empty = np.zeros(0, dtype=np.int64)
    return StructTree(columns, ContentColumns(empty, empty, empty, empty), {}, ())


_SPANS = st.one_of(st.integers(1, 3), st.sampled_from([1, 1, 4, 2**41, _HUGE]))


@st.composite
def _trees(draw: st.DrawFn) -> StructTree:
    """Element i's parent is one of 0..i-1 or -1 (mostly a recent element, so
    tables nest in rows and cells), the elements renumbered at times."""
    n = draw(st.integers(0, 60))
    parents = [draw(st.integers(max(-1, i - 4), i - 1)) if draw(st.integers(0, 5)) else -1 for i in range(n)]
    types = [draw(st.integers(0, len(_TYPES) - 1)) for _ in range(n)]
    cells = {}
    for i in range(n):
        if _TYPES[types[i]] in ("TH", "TD") and draw(st.booleans()):
            scope = draw(st.sampled_from([None, "Row", "Column", "Both"]))
            headers = tuple(draw(st.lists(st.sampled_from(["h1", "h2"]), max_size=2)))
            down = draw(_SPANS)  # a wide cell spans no row down: the reference sets each slot it covers below
            across = draw(_SPANS if down == 1 else st.integers(1, 3))
            cells[i] = (down, across, scope, headers, draw(st.sampled_from([None, "h1", "h2"])))
    if n and not draw(st.integers(0, 9)):  # renumbered: a parent may come after its kid
        new_of = draw(st.permutations(range(n)))
        renumbered, retyped = [0] * n, [0] * n
        for old, parent in enumerate(parents):
            renumbered[new_of[old]] = -1 if parent < 0 else new_of[parent]
            retyped[new_of[old]] = types[old]
        parents, types, cells = renumbered, retyped, {new_of[old]: cell for old, cell in cells.items()}
    return _tree(parents, types, cells)


def _both(tree: StructTree) -> tuple[tables.TableGrids, tables.TableGrids]:
    mp = pytest.MonkeyPatch()
    try:
        with on_path(mp, pure=True):
            expected = tables.table_grids(tree)
        with on_path(mp, pure=False):
            got = tables.table_grids(tree)
    finally:
        mp.undo()
    return expected, got


def _same(expected: tables.TableGrids, got: tables.TableGrids) -> None:
    assert dict(got.shapes) == dict(expected.shapes)
    assert np.array_equal(got.cell_of, expected.cell_of)
    e, g = expected.columns, got.columns
    assert (g.tables, g.bounds, g.cells) == (e.tables, e.bounds, e.cells)
    assert np.array_equal(g.slot_of, e.slot_of) and np.array_equal(g.table, e.table)
    assert dict(g.fields) == dict(e.fields)
    assert [type(v) for v in g.fields["header"]] == [type(v) for v in e.fields["header"]]


@settings(max_examples=400, deadline=None)
@given(_trees())
def test_the_compiled_grids_are_the_reference(tree: StructTree) -> None:
    _same(*_both(tree))


def test_a_cell_spanning_down_pushes_the_cells_below_right_and_is_cut_at_the_last_row() -> None:
    # Table 0: row 1 (a TH spanning 3 rows down and 2 across, a TD), row 4 (two TDs).
    parents = [-1, 0, 1, 1, 0, 4, 4]
    types = [1, 2, 3, 4, 2, 4, 4]
    cells = {2: (3, 2, "Column", (), "x")}
    expected, got = _both(_tree(parents, types, cells))
    _same(expected, got)
    fields = got.columns.fields
    assert (fields["row"], fields["col"], fields["row_span"]) == ([0, 0, 1, 1], [0, 2, 2, 3], [2, 1, 1, 1])
    assert dict(got.shapes) == {0: (2, 4)}
    assert got.slot(2) is not None and got.slot(2).scope == "Column" and got.slot(1) is None


def test_the_compiled_grids_lists_are_left_alone_by_the_cyclic_collector() -> None:
    # A document's grids live while its pages are read: the kernel's lists
    # (of ints, bools, None, str) are untracked, so no collection walks them.
    tree = _tree([-1, 0, 1, 1, 0, 4], [1, 2, 3, 4, 2, 4], {2: (1, 1, "Row", ("h",), "x")})
    expected, got = _both(tree)
    _same(expected, got)
    columns = got.columns
    made = [columns.tables, columns.bounds, columns.cells, *columns.fields.values()]
    assert all(isinstance(values, list) for values in made) and not any(map(gc.is_tracked, made))
    assert all(map(gc.is_tracked, [expected.columns.cells, *expected.columns.fields.values()]))  # the reference's are


def test_spans_past_int64_are_laid_out_by_the_reference() -> None:
    # The kernel declines (None); the grids are the reference's Python ints.
    tree = _tree([-1, 0, 1, 1], [1, 2, 4, 4], {2: (1, _HUGE, None, (), None)})
    parts = bytes(tables._table_parts(tree))  # a Table: the kernel is asked
    out = [np.empty(4, dtype=np.int64) for _ in range(3)]
    assert _core.grid_layout(tree.columns.parent, tree.columns.type, parts, dict(tree.columns.cells), (1, 1, None, (), None), *out) is None
    expected, got = _both(tree)
    _same(expected, got)
    assert got.columns.fields["col"] == [0, _HUGE] and dict(got.shapes) == {0: (1, _HUGE + 1)}


@pytest.mark.slow
def test_the_compiled_grids_are_the_reference_on_the_tagged_corpus() -> None:
    with open(CORPUS / "MANIFEST.tsv", encoding="utf-8") as handle:
        tagged = [row["path"] for row in csv.DictReader(handle, delimiter="\t") if row["tagged"] == "yes"]
    slots = 0
    for relpath in tagged:
        if relpath.startswith("broken/"):
            continue
        with open_document(CORPUS / relpath) as document:
            tree = document.struct_tree
        if tree is not None:
            expected, got = _both(tree)
            _same(expected, got)
            slots += len(got.columns.cells)
    assert slots > 5_000
