"""blocks.run_boxes, blocks.run_boxes_two and blocks.run_spans_two, compiled
(_core.run_boxes, _core.run_boxes_two, _core.run_spans_two) against the
numpy reference.

run_boxes_two takes the boxes of a page's blocks and of its lines in one pass:
the boxes of the pieces between the starts of either set, then each run's from
its pieces. The inputs below reach what that can get wrong: runs of one set
that begin inside a run of the other, starts shared by both, a single run,
glyphs emitted twice and out of table order, NaN corners (a NaN on an axis
makes both bounds on it NaN), and ties between -0.0 and 0.0, which decide a
rounded bound's sign: the compiled run_boxes keeps the earlier glyph's value,
and run_boxes_two must give exactly its boxes, sign included (the page output
before it). The numpy reference may pick either zero of a tie (its maximum of
a glyph's corners): against it, boxes are equal as numbers.

A run of the second set that is a run of the first (a one-line block's line)
takes the first's box tuple, and run_spans_two its span's ints where a run of
either set begins (ends) where one of the first does: the same values, one
object (fewer to make and free on a structure page, whose blocks are mostly
one line each).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pytest
from codepath import on_path
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract.blocks import run_boxes, run_boxes_two, run_spans_two
from ragprep.extract.compiled import compiled_available

pytestmark = pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built")

# Corner values: ties of -0.0 and 0.0, values that round to -0.0 and to 0.0, NaN, and plain ones.
_VALUES = st.sampled_from([-0.0, 0.0, -0.0004, 0.0004, 1.0, -1.0, 2.5, 1.0005, float("nan")])


@dataclass(frozen=True)
class _Quads:
    """What run_boxes reads of a glyph table."""

    quad: np.ndarray


@st.composite
def _starts(draw: st.DrawFn, n: int) -> np.ndarray:
    """Strictly increasing positions of `n` emitted glyphs, beginning at 0."""
    cuts = draw(st.sets(st.integers(1, max(n - 1, 1)), max_size=n - 1)) if n > 1 else set()
    return np.array([0, *sorted(cuts)], dtype=np.int64)


@st.composite
def _runs(draw: st.DrawFn) -> tuple[_Quads, np.ndarray, np.ndarray, np.ndarray]:
    rows = draw(st.integers(1, 12))
    quad = np.array(draw(st.lists(_VALUES, min_size=8 * rows, max_size=8 * rows)), dtype=np.float64).reshape(rows, 4, 2)
    order = np.array(draw(st.lists(st.integers(0, rows - 1), min_size=1, max_size=30)), dtype=np.int64)
    return _Quads(quad), order, draw(_starts(len(order))), draw(_starts(len(order)))


def _numbers(boxes: object) -> str:
    """repr with -0.0 read as 0.0 (NaN stays NaN, unequal to nothing)."""
    return repr(boxes).replace("-0.0,", "0.0,").replace("-0.0)", "0.0)")


def _on(pure: bool, call, *args):  # type: ignore[no-untyped-def]
    mp = pytest.MonkeyPatch()
    try:
        with on_path(mp, pure=pure):
            return call(*args)
    finally:
        mp.undo()


@settings(max_examples=600, deadline=None)
@given(_runs())
def test_the_compiled_boxes_of_two_sets_of_runs_are_the_reference(runs) -> None:  # type: ignore[no-untyped-def]
    table, order, starts, other = runs
    compiled = (_on(False, run_boxes, table, order, starts), _on(False, run_boxes, table, order, other))
    reference = (_on(True, run_boxes, table, order, starts), _on(True, run_boxes, table, order, other))
    got = _on(False, run_boxes_two, table, order, starts, other)
    # repr: -0.0 and 0.0 differ, NaN equals NaN.
    assert repr(got) == repr(compiled)
    assert _numbers(got) == _numbers(reference)
    assert repr(_on(True, run_boxes_two, table, order, starts, other)) == repr(reference)
    assert len(got[0]) == len(starts) and len(got[1]) == len(other)


def test_a_tie_of_zeros_keeps_the_earlier_glyph_across_pieces() -> None:
    """Line 1 holds glyph 0 (x from 0.0) and glyph 1 (x from -0.0); the block
    starts at glyph 1, so the line's x0 is glyph 0's 0.0 and the block's (one
    piece: glyph 1 alone) is -0.0; a block spanning both lines keeps 0.0.
    The compiled path's own tie rule (the reference may pick either zero)."""
    quad = np.zeros((3, 4, 2))
    quad[:, :, 0] = [[0.0, 1.0, 1.0, 0.0], [-0.0, 1.0, 1.0, -0.0], [-0.0, 2.0, 2.0, -0.0]]
    quad[:, :, 1] = [[0.0, 0.0, 1.0, 1.0]] * 3
    table, order = _Quads(quad), np.array([0, 1, 2], dtype=np.int64)
    blocks, lines = _on(False, run_boxes_two, table, order, np.array([0, 1]), np.array([0, 2]))
    assert repr(blocks) == repr([(0.0, 0.0, 1.0, 1.0), (-0.0, 0.0, 2.0, 1.0)])
    assert repr(lines) == repr([(0.0, 0.0, 1.0, 1.0), (-0.0, 0.0, 2.0, 1.0)])
    whole, _ = _on(False, run_boxes_two, table, order, np.array([0]), np.array([0, 1, 2]))
    assert repr(whole) == repr([(0.0, 0.0, 2.0, 1.0)])


def test_bad_run_starts_are_refused() -> None:
    from ragprep.extract import _core

    quad, order = np.zeros((3, 8)), np.array([0, 1, 2], dtype=np.int64)
    for starts, other in (([0, 3], [0]), ([0, 1, 1], [0]), ([1], [0]), ([0], [])):
        with pytest.raises(ValueError, match="bad run starts"):
            _core.run_boxes_two(quad, order, np.array(starts, dtype=np.int64), np.array(other, dtype=np.int64))
    with pytest.raises(IndexError, match="order index out of range"):
        _core.run_boxes_two(quad, np.array([0, 3], dtype=np.int64), np.array([0]), np.array([0]))


def test_a_line_that_is_a_block_takes_its_box() -> None:
    """Blocks [0, 2) and [2, 3); lines [0, 2) and [2, 3) too but cut at 1:
    the line [2, 3) is the second block, the lines [0, 1) and [1, 2) are no block."""
    quad = np.arange(24, dtype=np.float64).reshape(3, 4, 2)
    table, order = _Quads(quad), np.array([0, 1, 2], dtype=np.int64)
    blocks, lines = _on(False, run_boxes_two, table, order, np.array([0, 2]), np.array([0, 1, 2]))
    assert lines[2] is blocks[1]
    assert all(line is not block for line in lines[:2] for block in blocks)
    assert repr((blocks, lines)) == repr(_on(True, run_boxes_two, table, order, np.array([0, 2]), np.array([0, 1, 2])))


# Offsets in and out of a text (negative, past its end): run_spans_two slices as Python does.
_OFFSETS = st.integers(-3, 9) | st.sampled_from([2**40, -(2**40)])


@st.composite
def _spans(draw: st.DrawFn) -> tuple[SimpleNamespace, np.ndarray, np.ndarray]:
    n = draw(st.integers(1, 20))
    text = draw(st.text(st.sampled_from("ab é😀\n"), max_size=8))
    char_start, char_end = (np.array(draw(st.lists(_OFFSETS, min_size=n, max_size=n)), dtype=np.int64) for _ in range(2))
    joined = SimpleNamespace(text=text, char_start=char_start, char_end=char_end)
    return joined, draw(_starts(n)), draw(_starts(n))


@settings(max_examples=600, deadline=None)
@given(_spans())
def test_the_compiled_spans_of_two_sets_of_runs_are_the_reference(spans) -> None:  # type: ignore[no-untyped-def]
    joined, starts, other = spans
    got = _on(False, run_spans_two, joined, starts, other)
    assert got == _on(True, run_spans_two, joined, starts, other)
    assert len(got.texts) == len(got.firsts) == len(got.lasts) == len(starts)
    assert len(got.other_firsts) == len(got.other_lasts) == len(other)
    # The other set's ints are the first set's where a run begins (ends) at the same position.
    n, firsts = len(joined.char_start), dict(zip(starts.tolist(), got.firsts, strict=True))
    lasts = dict(zip([*starts[1:].tolist(), n], got.lasts, strict=True))
    for start, end, first, last in zip(other.tolist(), [*other[1:].tolist(), n], got.other_firsts, got.other_lasts, strict=True):
        assert start not in firsts or first is firsts[start]
        assert end not in lasts or last is lasts[end]


def test_bad_span_runs_are_refused() -> None:
    from ragprep.extract import _core

    char = np.array([0, 1, 2], dtype=np.int64)
    for starts, other in (([0, 3], [0]), ([0, 1, 1], [0]), ([0], [-1])):
        with pytest.raises(ValueError, match="bad run starts"):
            _core.run_spans_two("abc", char, char, np.array(starts, dtype=np.int64), np.array(other, dtype=np.int64))
    with pytest.raises(ValueError, match="different lengths"):
        _core.run_spans_two("abc", char, char[:2], np.array([0]), np.array([0]))
