"""cut.text_columns compiled but for its recursion (kernels.column_groups,
extract/_layout.c) against its reference, the rule itself: cut._text_columns,
which RAGPREP_PURE=1 runs (a page without the kernels); and
tiebreaks.column_gap_bands compiled whole (kernels.gap_cuts) against
tiebreaks._column_gap_bands, on the same regions with gaps cut into their
columns and repainted band after band.

Regions of two to four groups side by side, a gutter or less apart (some a
few points, some none): paragraphs, narrow columns whose lines wrap or do
not, tables of cells side by side, lists; some groups shorter, set lower or
staggered, some units random boxes with NaN and infinite edges; body
heights that put the groups around the narrow and the text column's width.
Both paths ask a region's own cut (beside_text) of the same stub, which
answers by the group, and must ask it of the same groups in the same turn.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from ragprep.extract import native
from ragprep.extract.layout import cut, kernels, tiebreaks
from ragprep.extract.layout.params import COLUMN_WIDTH, NARROW_COLUMN, ROW_OVERLAP
from test_layout_region_verdicts import _lines, _scattered, _Units

LIB = native._layout

pytestmark = pytest.mark.skipif(LIB is None, reason="the layout kernels are not built (pip install compiles extract/_layout.c)")


class _Region(_Units):
    """_Units with the gutter and the direction the cut reads."""

    def __init__(self, lib: Any, units: dict[str, Any], body: float, rtl: bool) -> None:
        super().__init__(lib, units, body)
        self.gutter = body
        self.rtl = rtl


def _side_by_side(rng: np.random.Generator) -> dict[str, Any]:
    """Two to four groups of lines (or random boxes) set side by side, each
    moved right of the last by its width and a gap, some set lower."""
    parts = [_scattered(rng, int(rng.integers(2, 12))) if rng.random() < 0.15 else _lines(rng, int(rng.integers(1, 14))) for _ in range(int(rng.integers(2, 5)))]
    boxes: list[list[np.ndarray]] = [[], [], [], []]
    inked, start, end, alpha, space, words, first = [], [], [], [], [], [], []
    shift, glyphs = 0.0, 0
    for part in parts:
        x0, x1, y0, y1 = part["box"]
        drop = float(rng.integers(0, 4)) * 14.0 if rng.random() < 0.3 else 0.0
        for column, values in zip(boxes, (x0 + shift, x1 + shift, y0 - drop, y1 - drop), strict=True):
            column.append(values)
        shift += float(np.nanmax(np.where(np.isfinite(x1), x1, 0.0))) + float(rng.choice([0.0, 4.0, 12.0, 30.0, 45.0, 60.0]))
        inked.append(part["inked"])
        start.append(part["start"] + glyphs)
        end.append(part["end"] + glyphs)
        alpha.append(part["classes"][0])
        space.append(part["classes"][1])
        words.append(part["words"][0])
        first.append(part["words"][1])
        glyphs += len(part["classes"][0])
    joined = [np.concatenate(column) for column in boxes]
    return {
        "box": tuple(joined), "inked": np.concatenate(inked), "start": np.concatenate(start), "end": np.concatenate(end),
        "classes": (np.concatenate(alpha), np.concatenate(space)), "words": (np.concatenate(words), np.concatenate(first)),
    }  # fmt: skip


def _read_by_stub(monkeypatch: pytest.MonkeyPatch, asked: list[list[int]]) -> None:
    """read_region answers whether a group is cut by its units, and notes it."""

    def read_region(page: Any, ids: np.ndarray, depth: int) -> tuple[list[np.ndarray], bool]:
        asked.append(ids.tolist())
        return [ids], bool(int(ids.sum()) % 3)

    monkeypatch.setattr(cut, "read_region", read_region)


def _outcome(found: list[np.ndarray] | None) -> list[list[int]] | None:
    return None if found is None else [column.tolist() for column in found]


def test_column_groups_agree_with_the_rule(monkeypatch: pytest.MonkeyPatch):
    seen: Counter[str] = Counter()
    for seed in range(400):
        rng = np.random.default_rng(seed)
        units = _side_by_side(rng)
        n = len(units["inked"])
        ids = rng.permutation(n).astype(np.int64) if seed % 2 else np.arange(n, dtype=np.int64)
        scale = [COLUMN_WIDTH, NARROW_COLUMN, COLUMN_WIDTH * 1.3, NARROW_COLUMN * 0.8, (COLUMN_WIDTH + NARROW_COLUMN) / 2][seed % 5]
        body = 200.0 / scale
        rtl = seed % 7 == 0
        asked: list[list[int]] = []
        _read_by_stub(monkeypatch, asked)
        expected = _outcome(cut._text_columns(_Region(None, units, body, rtl), ids, 0))
        reference_asks = list(asked)
        asked.clear()
        assert _outcome(cut.text_columns(_Region(LIB, units, body, rtl), ids, 0)) == expected, seed
        assert asked == reference_asks, seed
        seen["none" if expected is None else f"{len(expected)} columns"] += 1
        seen["asked"] += bool(reference_asks)
    # Regions without a gutter, with one or more kept, and regions whose
    # own cut is asked.
    assert seen["none"] >= 50 and seen["2 columns"] >= 50 and seen["3 columns"] >= 10 and seen["asked"] >= 20, seen


def test_column_groups_are_bounds_checked():
    units = _lines(np.random.default_rng(5), 6)
    page = _Region(LIB, units, 10.0, False)
    glyphs = (page.inked, page.start, page.end, page.classes)
    limits = (*cut.verdict_limits(page), (2.5, 8.0, 0.6, 0.9, 4))
    ids = np.arange(len(page.inked) + 1, dtype=np.int64)
    with pytest.raises(IndexError):
        cut.column_groups(LIB, (page.x0, page.x1, page.y0, page.y1), glyphs, (page.words, page.first_word), ids, 10.0, limits)


def _with_gaps(rng: np.random.Generator, units: dict[str, Any]) -> dict[str, Any]:
    """`units` with the lines under a random height lowered by a gap (none,
    a paragraph's or a section's), and repainted band after band, each
    column by column, or left as drawn (column after column)."""
    x0, x1, y0, y1 = units["box"]
    finite = y1[np.isfinite(y1)]
    cut_at = float(np.median(finite)) if len(finite) else 0.0
    drop = np.where(y1 < cut_at, float(rng.choice([0.0, 12.0, 40.0, 80.0])), 0.0)
    below, left = (y1 < cut_at).astype(int), np.nan_to_num(x0, nan=0.0, posinf=0.0, neginf=0.0) // 100.0
    order = np.lexsort((-np.nan_to_num(y1, nan=0.0), left, below)) if rng.random() < 0.7 else np.arange(len(x0))
    per_unit = {"inked": units["inked"][order], "start": units["start"][order], "end": units["end"][order]}
    words = (units["words"][0][order], units["words"][1][order])
    box = (x0[order], x1[order], (y0 - drop)[order], (y1 - drop)[order])
    return {**units, **per_unit, "box": box, "words": words}


def test_gap_cuts_agree_with_the_rule(monkeypatch: pytest.MonkeyPatch):
    seen: Counter[str] = Counter()
    monkeypatch.setattr(cut, "read_region", lambda page, ids, depth: ([ids], bool(int(ids.sum()) % 2)))
    for seed in range(500):
        rng = np.random.default_rng(seed)
        units = _with_gaps(rng, _side_by_side(rng))
        n = len(units["inked"])
        body = 200.0 / [COLUMN_WIDTH, NARROW_COLUMN, COLUMN_WIDTH * 1.3][seed % 3]
        reference, compiled = _Region(None, units, body, False), _Region(LIB, units, body, False)
        ids = np.arange(n, dtype=np.int64)
        columns = cut._text_columns(reference, ids, 0) or [ids[: n // 2], ids[n // 2 :]]
        if not all(len(column) for column in columns):
            continue
        rows = kernels.rows_top_down(None, reference.y0, reference.y1, ids, ROW_OVERLAP * body)
        expected = _outcome(tiebreaks._column_gap_bands(reference, ids, rows, columns) if len(rows[1]) > 1 else None)
        assert _outcome(tiebreaks.column_gap_bands(compiled, ids, rows, columns)) == expected, seed
        seen["none" if expected is None else "cut"] += 1
    # Regions cut at a gap the stream reads apart, and regions left whole.
    assert seen["none"] >= 50 and seen["cut"] >= 15, seen
