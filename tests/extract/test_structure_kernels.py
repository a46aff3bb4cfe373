"""Structure mode's kernels after the tree is read, compiled (_core) against
their numpy references (RAGPREP_PURE=1).

StructTree.nearest: per element, the nearest marked element at or above it.
The compiled pass reads parents before kids (depth-first order, as the walk
numbers elements); trees are drawn in that order, and also numbered against
it (a parent after its kid), where the kernel must hand over to the
reference rather than read an answer not yet written.
"""

from __future__ import annotations

import numpy as np
import pytest
from codepath import on_path
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract import _core
from ragprep.extract.compiled import compiled_available
from ragprep.extract.structure import StructTree
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
