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
from ragprep.extract.glyphs import GlyphTable
from ragprep.extract.layout import labels
from ragprep.extract.layout.labels import Ordering, block_labels

# The kernels whether or not this run's path (conftest) is the reference:
# each test takes both paths itself.
LIB = native._layout
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
    return table, Ordering(order, block_start, line_break, table.font_size[order], along)


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
            answers.add("across left P" if (across & (pure[0] == 0) & (ordering.font_size >= 20)).any() else "")
    assert {"declined", "none", "many", "headings", "across left P"} <= answers


def test_block_labels_kernel_checks_its_columns():
    table, ordering = _reading(np.random.default_rng(3))
    lib = LIB
    args = (ordering.font_size, ordering.block_start, ordering.line_break, 1.2, 0.75, 4, 0.2, 2000.0, table.direction)
    with pytest.raises(IndexError):
        lib.block_labels(*args, ordering.order + len(table), 1.0, 0.0, 0.95)
    with pytest.raises(ValueError, match="differ in length"):
        lib.block_labels(*args, ordering.order[:-1], 1.0, 0.0, 0.95)
