"""reading._tree_order, compiled (_core.tree_order) against its numpy body.

The page's glyphs that the structure tree references, in the tree's order,
with the rank of their (stream, MCID) among the page's refs; the rest in
stream order. The inputs below reach what the keys' arithmetic and the
ordering can get wrong: two refs with one key (the first ref wins), MCIDs of
2**32 and more (their bits overlap the stream's, as numpy's shift and or
make them), negative marked MCIDs, many glyphs of one sequence (kept in
their order), unmarked glyphs whose MCID a ref holds (never placed).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from codepath import on_path
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract.compiled import compiled_available
from ragprep.extract.reading import _tree_order
from ragprep.extract.structure import MarkedContentRef

pytestmark = pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built")

# Few distinct values, so that keys meet: 2**32 + k collides with stream + 1, MCID k.
_MCIDS = st.sampled_from([-1, -2, 0, 1, 2, 3, 2**32, 2**32 + 1, 2**40])
_STREAMS = st.sampled_from([0, 1, 7, -1])


@st.composite
def _pages(draw: st.DrawFn) -> tuple[SimpleNamespace, np.ndarray, np.ndarray, tuple[MarkedContentRef, ...]]:
    rows = draw(st.integers(0, 40))
    mcid = np.array(draw(st.lists(_MCIDS, min_size=rows, max_size=rows)), dtype=np.int64)
    stream = np.array(draw(st.lists(_STREAMS, min_size=rows, max_size=rows)), dtype=np.int64)
    picked = draw(st.lists(st.integers(0, max(rows - 1, 0)), max_size=rows, unique=True)) if rows else []
    if draw(st.booleans()):
        picked.sort()  # as read_structure hands them over; any order is read alike
    candidates = np.array(picked, dtype=np.int64)
    marked = np.array(draw(st.lists(st.booleans(), min_size=len(picked), max_size=len(picked))), dtype=bool)
    refs = tuple(
        MarkedContentRef(mcid=m, stream=s, element=e)
        for e, (m, s) in enumerate(draw(st.lists(st.tuples(_MCIDS, _STREAMS), max_size=12)))
    )
    return SimpleNamespace(mcid=mcid, mcid_stream=stream), candidates, marked, refs


@settings(max_examples=400, deadline=None)
@given(_pages())
def test_the_compiled_tree_order_is_the_reference(page) -> None:
    table, candidates, marked, refs = page
    mp = pytest.MonkeyPatch()
    try:
        with on_path(mp, pure=True):
            expected = _tree_order(table, candidates, marked, refs)
        with on_path(mp, pure=False):
            got = _tree_order(table, candidates, marked, refs)
    finally:
        mp.undo()
    for want, have in zip(expected, got, strict=True):
        assert have.dtype == want.dtype == np.int64
        assert have.tolist() == want.tolist()


def test_the_first_of_two_refs_with_one_key_ranks_and_one_sequence_keeps_its_order() -> None:
    table = SimpleNamespace(
        mcid=np.array([5, 2**32, 5, 9, 5], dtype=np.int64), mcid_stream=np.array([0, 0, 0, 0, 0], dtype=np.int64)
    )
    refs = (
        MarkedContentRef(mcid=0, stream=1, element=0),  # key 1 << 32: glyph 1's, whose MCID is 2**32
        MarkedContentRef(mcid=5, stream=0, element=1),
        MarkedContentRef(mcid=5, stream=0, element=2),  # the same key again: rank 1 wins
    )
    candidates = np.arange(5, dtype=np.int64)
    marked = np.array([True, True, True, True, False])
    glyphs, rank, tail = _tree_order(table, candidates, marked, refs)
    assert glyphs.tolist() == [1, 0, 2] and rank.tolist() == [0, 1, 1] and tail.tolist() == [3, 4]
