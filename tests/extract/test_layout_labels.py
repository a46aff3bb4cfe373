"""Layout mode's block labels (extract/layout/labels.py): block_labels in one
call of extract/_layout.c's block_labels against the numpy reference
(RAGPREP_PURE=1), on readings whose blocks are headings of many sizes or none,
some written across the page, on pages read along (1, 0), up the page, or in
a direction not known yet (the kernel leaves those with headings to the
reference)."""

from __future__ import annotations

import numpy as np
import pytest
from codepath import on_path

from ragprep.extract import native
from ragprep.extract.config import ExtractConfig
from ragprep.extract.glyphs import GlyphTable
from ragprep.extract.layout import labels
from ragprep.extract.layout.kernels import block_starts
from ragprep.extract.layout.labels import Ordering, block_labels
from ragprep.extract.layout.units import Moves, line_moves

# The kernels whether or not this run's path (conftest) is the reference:
# each test takes both paths itself.
LIB = native._layout
CONFIG = ExtractConfig()
pytestmark = pytest.mark.skipif(LIB is None, reason="the layout kernels are not built")

# Body text at 10 pt; headings from 12 to 36 pt (more sizes than heading
# levels); sizes that round to the same half point; sizes not finite.
_SIZES = (10.0, 10.0, 10.0, 10.0, 10.1, 12.0, 14.0, 16.0, 18.0, 20.0, 24.0, 28.0, 30.0, 36.0, 13.99, 0.0, np.nan, np.inf)


def _reading(rng: np.random.Generator) -> tuple[GlyphTable, Ordering]:
    """A page of 1-300 glyphs in blocks of 1-12 glyphs, each block at one
    size now and then (a heading) and otherwise at the body size, lines
    broken at random; a share of the glyphs written up the page or at a
    slant, and the page's direction (1, 0), (0, 1) or not known."""
    n = int(rng.integers(1, 300))
    table = GlyphTable.empty().with_text_rows(["a"] * n, [(0.0, 0.0, 5.0, 10.0)] * n, [-1] * n, [0] * n)
    block_start = np.zeros(n, dtype=bool)
    block_start[0] = True
    block_start[1:] = rng.random(n - 1) < 0.15
    block = np.cumsum(block_start) - 1
    block_size = np.where(rng.random(block[-1] + 1) < 0.4, rng.choice(_SIZES, block[-1] + 1), 10.0)
    size = np.where(rng.random(n) < 0.9, block_size[block], 10.0)
    direction = np.tile([1.0, 0.0], (n, 1))
    turned = rng.random(n)
    direction[turned < 0.1] = (0.0, 1.0)
    direction[(turned >= 0.1) & (turned < 0.15)] = (np.cos(0.4), np.sin(0.4))
    direction[(turned >= 0.15) & (turned < 0.17)] = (0.96, np.nan)
    order = rng.permutation(n).astype(np.int64)
    table = GlyphTable(**{**table.__dict__, "font_size": size[np.argsort(order)], "direction": direction})
    line_break = rng.random(n) < 0.2
    along = [np.array([1.0, 0.0]), np.array([0.0, 1.0]), None][int(rng.integers(0, 3))]
    return table, Ordering(order, block_start, line_break, along)


def test_block_labels_in_one_call_equal_the_reference(monkeypatch):
    """Label indices and labels equal on both paths; the kernel answers most
    pages (headings of up to 9 sizes, more than the levels; headings written
    across the page left P; pages without one), and declines pages with
    headings read another way or in a direction not known, which the
    reference labels."""
    rng = np.random.default_rng(19)
    answers: set[str] = set()
    for _ in range(600):
        table, ordering = _reading(rng)
        found = labels._compiled_block_labels(LIB, table, ordering, (1.2, 0.75, 4, 0.2))
        with on_path(monkeypatch, pure=False):
            compiled = block_labels(table, ordering)
        with on_path(monkeypatch, pure=True), np.errstate(invalid="ignore"):  # NaN and inf sizes cast to int64
            pure = block_labels(table, ordering)
        assert compiled[0].dtype == pure[0].dtype == np.int64
        assert np.array_equal(compiled[0], pure[0]) and compiled[1] == pure[1]
        levels = len(pure[1]) - 1
        answers.add("declined" if found is None else "none" if found == 0 else "many" if levels > 6 else "headings")
        if found is not None and ordering.along is not None:
            across = table.direction[ordering.order, 0] < 0.95
            answers.add("across left P" if (across & (pure[0] == 0) & (table.font_size[ordering.order] >= 20)).any() else "")
    assert {"declined", "none", "many", "headings", "across left P"} <= answers


def test_block_labels_kernel_checks_its_columns():
    table, ordering = _reading(np.random.default_rng(3))
    lib = LIB
    args = (table.font_size[ordering.order], ordering.block_start, ordering.line_break, 1.2, 0.75, 4, 0.2, 2000.0, table.direction)
    with pytest.raises(IndexError):
        lib.block_labels(*args, ordering.order + len(table), 1.0, 0.0, 0.95)
    with pytest.raises(ValueError, match="differ in length"):
        lib.block_labels(*args, ordering.order[:-1], 1.0, 0.0, 0.95)


def _moves_of(rng: np.random.Generator, table: GlyphTable, ordering: Ordering) -> tuple[GlyphTable, Moves]:
    """`table` with line starts on a few left edges (flush, indented by 0.8
    to 6 heights or past them), and moves between the reading's glyphs at
    random: gaps across of up to three heights, now and then a move back up,
    heights exactly on the paragraph gap's threshold."""
    n = len(table)
    origin = np.column_stack([rng.choice([0.0, 0.0, 0.0, 8.0, 12.0, 30.0, 70.0, np.nan], n), rng.random(n) * 500])
    table = GlyphTable(**{**table.__dict__, "origin": origin, "height": rng.choice([10.0, 10.0, 9.0, 0.0], n)})
    pairs = max(n - 1, 0)
    across = -rng.choice([12.0, 12.0, 16.0, 30.0, -5.0, 0.0], pairs)
    height = rng.choice([10.0, 10.0, 7.5, 0.0], pairs)
    return table, Moves(ordering.line_break, across, rng.random(pairs), height)


def test_labelled_reading_in_one_call_equals_the_reference(monkeypatch):
    """labelled_reading's block starts and per-block labels equal on both
    paths (the kernel's block_reading against with_blocks then block_labels),
    on readings with forced starts or none, read left to right or right to
    left (indented first lines start blocks on the first only), along (1, 0),
    up the page or in a direction not known (headings there: the reference
    labels them); and the labels per block are those of block_labels per
    position at each block's start."""
    rng = np.random.default_rng(22)
    seen: set[str] = set()
    for case in range(500):
        table, ordering = _reading(rng)
        table, moves = _moves_of(rng, table, ordering)
        forced = rng.random(len(table)) < 0.05 if case % 3 else None
        rtl = bool(case % 4 == 1)
        args = (table, ExtractConfig(), ordering.order, forced, moves, rtl, ordering.along)
        with on_path(monkeypatch, pure=False):
            ordered, labelled = labels.labelled_reading(*args)
        with on_path(monkeypatch, pure=True), np.errstate(invalid="ignore"):  # NaN and inf sizes cast to int64
            pure_ordered, pure_labelled = labels.labelled_reading(*args)
            starts, indented = block_starts_reference(table, ordering.order, moves)
            per_position, _ = block_labels(table, pure_ordered)
        assert np.array_equal(ordered.block_start, pure_ordered.block_start)
        assert ordered.block_start.dtype == bool and labelled.of_block.dtype == np.int64
        assert np.array_equal(labelled.of_block, pure_labelled.of_block) and labelled.labels == pure_labelled.labels
        assert np.array_equal(labelled.of_block, per_position[np.flatnonzero(pure_ordered.block_start)])
        assert len(labelled.of_block) == np.count_nonzero(ordered.block_start)
        if indented is not None:
            seen.add("indent kept" if not rtl and not starts[indented].all() else "indent off" if rtl else "")
        seen.add("headings" if len(labelled.labels) > 1 else "paragraphs")
        seen.add("forced" if forced is not None and (forced & ~starts).any() else "")
    assert {"indent kept", "indent off", "headings", "paragraphs", "forced"} <= seen


def block_starts_reference(table: GlyphTable, order: np.ndarray, moves: Moves) -> tuple[np.ndarray, np.ndarray | None]:
    """kernels.block_starts' reference with labels.with_blocks' thresholds."""
    thresholds = (labels.PARAGRAPH_GAP, labels.FONT_SIZE_CHANGE, labels.INDENT_MIN, labels.INDENT_MAX, labels.FLUSH)
    return block_starts(None, table, order, (moves.line_break, moves.across, moves.height), thresholds)


def test_reordered_reading_in_one_call_equals_the_reference(monkeypatch):
    """reordered_reading of a stream at positions (a permutation of the
    stream, runs of it kept in turn, the stream's own order 0..n-1, or
    none: the stream as it is) equals
    the reference's steps: the order, its line breaks (the reordered moves'),
    block starts and labels; and those equal labelled_reading's on the order
    with its moves measured afresh (line_moves): a pair's moves are those of
    its two glyphs whatever order brought them together."""
    rng = np.random.default_rng(23)
    seen: set[str] = set()
    for case in range(300):
        table, ordering = _reading(rng)
        table, _ = _moves_of(rng, table, ordering)
        stream, n = ordering.order, len(ordering.order)
        moves = line_moves(table, stream, CONFIG)
        if case % 4 == 0:
            positions = None
        else:  # runs of the stream, shuffled: most pairs the stream's own, some brought together
            cuts = np.sort(rng.choice(np.arange(1, n), size=min(n - 1, int(rng.integers(0, 6))), replace=False)) if n > 1 else []
            runs = np.split(np.arange(n), cuts)
            positions = np.concatenate([runs[k] for k in rng.permutation(len(runs))]).astype(np.int64)
        forced = rng.random(n) < 0.05 if case % 3 else None
        args = (table, CONFIG, (stream, moves, positions), forced, bool(case % 5 == 1), ordering.along)
        with on_path(monkeypatch, pure=False):
            ordered, labelled = labels.reordered_reading(*args)
        with on_path(monkeypatch, pure=True), np.errstate(invalid="ignore"):  # NaN and inf sizes cast to int64
            pure_ordered, pure_labelled = labels.reordered_reading(*args)
            order = stream if positions is None else stream[positions]
            fresh = labels.labelled_reading(table, CONFIG, order, forced, None, bool(case % 5 == 1), ordering.along)
        for other, other_labelled in ((pure_ordered, pure_labelled), fresh):
            assert np.array_equal(ordered.order, other.order) and ordered.order.dtype == np.int64
            assert np.array_equal(ordered.line_break, other.line_break) and ordered.line_break.dtype == bool
            assert np.array_equal(ordered.block_start, other.block_start)
            assert np.array_equal(labelled.of_block, other_labelled.of_block) and labelled.labels == other_labelled.labels
        brought = 0 if positions is None else int(np.count_nonzero(np.diff(positions) != 1))
        seen.add("as it is" if positions is None else "reordered" if brought else "in its own order")
        seen.add("headings" if len(labelled.labels) > 1 else "paragraphs")
    assert {"as it is", "reordered", "in its own order", "headings", "paragraphs"} <= seen


def test_block_reading_kernel_checks_its_columns():
    table, ordering = _reading(np.random.default_rng(5))
    n = len(table)
    columns = (table.origin, table.own_end, table.direction, table.height, table.font_size)
    moves = (ordering.line_break, np.zeros(max(n - 1, 0)), np.zeros(max(n - 1, 0)), np.ones(max(n - 1, 0)))
    rules = ((1.6, 1.15, 0.8, 6.0, 0.3), (1.2, 0.75, 4, 0.2, 2000.0), 1.0, 0.0, 0.95, 0.5)
    with pytest.raises(IndexError):
        LIB.block_reading(*columns, ordering.order + n, *moves, None, None, False, *rules)
    with pytest.raises(IndexError):
        LIB.block_reading(*columns, ordering.order, *moves, np.array([0, n], dtype=np.int64), None, False, *rules)
    with pytest.raises(ValueError, match="differ in length"):
        LIB.block_reading(*columns, ordering.order, *moves, None, np.zeros(n + 1, dtype=bool), False, *rules)
    with pytest.raises(ValueError, match="differ in length"):
        LIB.block_reading(*columns, ordering.order, *moves, np.arange(n - 1, dtype=np.int64), np.zeros(n, dtype=bool), False, *rules)
    with pytest.raises(ValueError, match="differ in length"):
        LIB.block_reading(*columns, ordering.order[:-1], *moves, None, None, False, *rules)
