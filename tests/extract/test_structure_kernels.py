"""Structure mode's kernels after the tree is read, compiled (_core) against
their numpy references (RAGPREP_PURE=1).

StructTree.nearest: per element, the nearest marked element at or above it.
The compiled pass reads parents before kids (depth-first order, as the walk
numbers elements); trees are drawn in that order, and also numbered against
it (a parent after its kid), where the kernel must hand over to the
reference rather than read an answer not yet written.

structure._whole_tree_columns (_core.tree_tables): per element its block
owner, per piece of content its key, per page row where its content starts;
on input out of order or range the kernel hands over to the reference.
"""

from __future__ import annotations

import numpy as np
import pytest
from codepath import on_path
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract import _core
from ragprep.extract.compiled import compiled_available
from ragprep.extract.structure import StructTree, _whole_tree_columns
from ragprep.extract.structure_columns import ContentColumns, ElementColumns

pytestmark = pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built")


def _tree(parents: np.ndarray) -> StructTree:
    """A tree of these parents (-1: a kid of the root), all P; nearest reads no more."""
    parent = np.asarray(parents, dtype=np.int64)
    zeros, none = np.zeros(len(parent), dtype=np.int64), np.full(len(parent), -1, dtype=np.int64)
    columns = ElementColumns(
        parent, zeros, zeros, none, zeros, zeros, none, zeros, [None] * len(parent), {}, {}, {}, (("P", "P"),), (), (("P",),)
    )  # fmt: skip
    empty = np.zeros(0, dtype=np.int64)
    return StructTree(columns, ContentColumns(empty, empty, empty, empty), {}, ())


@st.composite
def _forest(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """(parents, marked): element i's parent is one of 0..i-1 or -1, then the
    elements renumbered by a drawn permutation (identity most often)."""
    n = draw(st.integers(0, 80))
    parents = [draw(st.integers(-1, i - 1)) for i in range(n)]
    marked = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if n and draw(st.booleans()):
        new_of = draw(st.permutations(range(n)))
        renumbered = [0] * n
        for old, parent in enumerate(parents):
            renumbered[new_of[old]] = -1 if parent < 0 else new_of[parent]
        parents = renumbered
        marked = [marked[old] for old in sorted(range(n), key=new_of.__getitem__)]
    return np.array(parents, dtype=np.int64), np.array(marked, dtype=bool)


def _both(parents: np.ndarray, marked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mp = pytest.MonkeyPatch()
    try:
        with on_path(mp, pure=True):
            expected = _tree(parents).nearest(marked)
        with on_path(mp, pure=False):
            got = _tree(parents).nearest(marked)
    finally:
        mp.undo()
    return expected, got


@settings(max_examples=400, deadline=None)
@given(_forest())
def test_the_compiled_nearest_is_the_reference(forest: tuple[np.ndarray, np.ndarray]) -> None:
    expected, got = _both(*forest)
    assert got.dtype == np.int64
    assert got.tolist() == expected.tolist()


def test_a_deep_chain_reads_its_marked_ancestor() -> None:
    # One path 50,000 deep (the reference's log2 passes, the kernel's one),
    # marked every 1,000 elements: each element answers the mark above it.
    n = 50_000
    parents = np.arange(-1, n - 1, dtype=np.int64)
    marked = np.zeros(n, dtype=bool)
    marked[1000::1000] = True
    expected, got = _both(parents, marked)
    assert got.tolist() == expected.tolist()
    assert got[999] == -1 and got[1000] == 1000 and got[1999] == 1000 and got[n - 1] == 49_000


def test_a_parent_out_of_order_or_range_hands_over() -> None:
    up = np.empty(3, dtype=np.int64)
    unmarked = np.zeros(3, dtype=bool)
    for parents in ([-1, 2, 0], [-1, 0, 3], [-1, 0, -2], [0, -1, -1]):
        assert _core.nearest_marked(np.array(parents, dtype=np.int64), unmarked, up) is False
    # A marked element's own parent is never read.
    marked = np.array([False, True, False])
    assert _core.nearest_marked(np.array([-1, 7, 1], dtype=np.int64), marked, up) is True
    assert up.tolist() == [-1, 1, 1]
    with pytest.raises(ValueError, match="different lengths"):
        _core.nearest_marked(np.array([-1, 0], dtype=np.int64), marked, up)


# -- StructTree's whole-tree columns (structure._whole_tree_columns) --


@st.composite
def _whole_tree(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, ContentColumns, int]:
    """(parents, type rows, owns per type row, content, page rows): a forest
    as _forest draws it, type rows mostly in range, content mostly grouped by
    page row ascending (sometimes not, or on a page row out of range: the
    kernel hands over), MCIDs and streams whose keys' bits overlap."""
    parents, _ = draw(_forest())
    types = draw(st.integers(0, 4))
    type_row = st.integers(0, max(types - 1, 0)) if types else st.just(0)
    if types and draw(st.integers(0, 9)) == 0:
        type_row = st.integers(-1, types)
    type_rows = [draw(type_row) for _ in range(len(parents))]
    owns = draw(st.lists(st.booleans(), min_size=types, max_size=types))
    pages = draw(st.integers(0, 5))
    rows = draw(st.integers(0, 30)) if pages else 0
    page = sorted(draw(st.lists(st.integers(0, max(pages - 1, 0)), min_size=rows, max_size=rows)))
    if rows and draw(st.integers(0, 5)) == 0:
        page = draw(st.permutations(page)) if draw(st.booleans()) else [*page[:-1], draw(st.sampled_from([-1, pages]))]
    values = st.sampled_from([-1, 0, 1, 7, 2**32 - 1, 2**32, 2**40])
    stream = draw(st.lists(values, min_size=rows, max_size=rows))
    mcid = draw(st.lists(values, min_size=rows, max_size=rows))
    i64 = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    content = ContentColumns(i64(page), i64(stream), i64(mcid), i64([0] * rows))
    return parents, i64(type_rows), np.array(owns, dtype=bool), content, pages


def _outcome(case: tuple) -> tuple[str, list[list[int]] | str]:
    """_whole_tree_columns' answer (or the error it raises) on the path in effect."""
    try:
        columns = _whole_tree_columns(*case)
    except IndexError as exc:  # a type row out of range: numpy's indexing refuses it
        return "raised", type(exc).__name__
    assert all(column.dtype == np.int64 for column in columns)
    return "answered", [column.tolist() for column in columns]


@settings(max_examples=400, deadline=None)
@given(_whole_tree())
def test_the_compiled_whole_tree_columns_are_the_reference(case) -> None:
    mp = pytest.MonkeyPatch()
    try:
        with on_path(mp, pure=True):
            expected = _outcome(case)
        with on_path(mp, pure=False):
            got = _outcome(case)
    finally:
        mp.undo()
    assert got == expected


def test_whole_tree_columns_read_owners_keys_and_page_offsets() -> None:
    """Document(0) > [Sect(1) > [P(2) > Span(3)], Span(4)], and a Span at the
    root (5): a Span's owner is the nearest block above it; the root Span
    owns itself. Content on page rows 1 and 3 of four."""
    i64 = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    parents, types = i64([-1, 0, 1, 2, 0, -1]), i64([0, 1, 2, 3, 3, 3])
    owns = np.array([True, True, True, False])  # Document, Sect, P own a block; Span does not
    content = ContentColumns(i64([1, 1, 3]), i64([0, 0, 12]), i64([0, 5, 2]), i64([3, 2, 4]))
    for case_path in (True, False):
        mp = pytest.MonkeyPatch()
        try:
            with on_path(mp, pure=case_path):
                owners, keys, offsets = _whole_tree_columns(parents, types, owns, content, 4)
        finally:
            mp.undo()
        assert owners.tolist() == [0, 1, 2, 2, 0, 5]
        assert keys.tolist() == [0, 5, (12 << 32) + 2]
        assert offsets.tolist() == [0, 0, 2, 2, 3]  # page row r's content: offsets[r]:offsets[r + 1]


def test_tree_tables_hands_over_on_input_out_of_order_or_range() -> None:
    i64 = lambda values: np.array(values, dtype=np.int64)  # noqa: E731

    def call(parents: list[int], types: list[int], page: list[int], pages: int = 2) -> bool:
        n, rows = len(parents), len(page)
        out = (np.empty(n, dtype=np.int64), np.empty(rows, dtype=np.int64), np.empty(pages + 1, dtype=np.int64))
        zeros = i64([0] * rows)
        result: bool = _core.tree_tables(i64(parents), i64(types), np.array([True, False]), i64(page), zeros, zeros, *out)
        return result

    assert call([-1, 0], [1, 0], [0, 1]) is True
    assert call([-1, 1], [1, 1], []) is False  # a parent after its kid
    assert call([-1, 0], [1, 2], []) is False  # a type row out of range
    assert call([-1], [-1], []) is False
    assert call([-1], [0], [1, 0]) is False  # pages not ascending
    assert call([-1], [0], [2]) is False  # a page row out of range
    assert call([-1], [0], [-1]) is False
    with pytest.raises(ValueError, match="different lengths"):
        _core.tree_tables(i64([-1]), i64([]), np.array([True]), i64([]), i64([]), i64([]), i64([0]), i64([]), i64([0]))
