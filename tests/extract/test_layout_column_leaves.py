"""A region read by its columns compiled but for its recursion
(kernels.column_leaves, extract/_layout.c) against its reference, the rules
themselves: cut._column_leaves (_column_parts, _placed_apart and its rules,
merge_fragments), which RAGPREP_PURE=1 runs (a page without the kernels).

Regions of two to four groups side by side (test_layout_column_groups'),
lowered under a gap now and then and repainted band after band or left
column after column; some with a short label set apart under the first
column and painted last (a form number), over the last column and painted
first (a page number), or under the columns and painted between them; the
columns cut at their full-height gutters, else halved. Each column's own
cut answered by a stub: whole, or split into two leaves. Both paths must
give the same leaves, unit for unit.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from ragprep.extract import native
from ragprep.extract.layout import cut
from ragprep.extract.layout.params import COLUMN_WIDTH, NARROW_COLUMN
from test_layout_column_groups import _Region, _side_by_side, _with_gaps

LIB = native._layout

pytestmark = pytest.mark.skipif(LIB is None, reason="the layout kernels are not built (pip install compiles extract/_layout.c)")

PLACES = ("none", "under the first column, painted last", "over the last column, painted first", "under the columns, painted between")


def _with_label(rng: np.random.Generator, units: dict[str, Any], place: str) -> dict[str, Any]:
    """`units` with a label of three digits (a form or page number) set
    apart at `place`, numbered where the stream paints it."""
    x0, x1, y0, y1 = units["box"]
    finite = np.isfinite(x0) & np.isfinite(x1) & np.isfinite(y0) & np.isfinite(y1)
    if place == "none" or not finite.any():
        return units
    left, right = float(x0[finite].min()), float(x1[finite].max())
    gap = float(rng.choice([4.0, 20.0, 60.0]))
    if place.startswith("over"):
        box, at = (right - 40.0, right, float(y1[finite].max()) + gap, float(y1[finite].max()) + gap + 10.0), 0
    else:
        bottom = float(y0[finite].min()) - gap
        box, at = (left, left + 40.0, bottom - 10.0, bottom), len(x0) if place.endswith("last") else len(x0) // 2
    glyphs = len(units["classes"][0])
    start, end = units["start"], units["end"]
    first = int(start[at]) if at < len(start) else glyphs
    shifted = (start + 3 * (np.arange(len(start)) >= at), end + 3 * (np.arange(len(end)) >= at))
    classes = tuple(np.insert(flags, first, [False] * 3) for flags in units["classes"])
    return {
        "box": tuple(np.insert(column, at, value) for column, value in zip(units["box"], box, strict=True)),
        "inked": np.insert(units["inked"], at, 3),
        "start": np.insert(shifted[0], at, first), "end": np.insert(shifted[1], at, first + 3),
        "classes": classes,
        "words": (np.insert(units["words"][0], at, 1), np.insert(units["words"][1], at, 15.0)),
    }  # fmt: skip


def _read_by_stub(monkeypatch: pytest.MonkeyPatch) -> None:
    """read_region leaves a column whole, or splits it in two, by its units."""

    def read_region(page: Any, ids: np.ndarray, depth: int) -> tuple[list[np.ndarray], bool]:
        if int(ids.sum()) % 4 or len(ids) < 2:
            return [ids], False
        return [ids[: len(ids) // 2], ids[len(ids) // 2 :]], True

    monkeypatch.setattr(cut, "read_region", read_region)


def _counted(monkeypatch: pytest.MonkeyPatch, seen: Counter[str]) -> None:
    """Count the reference's parts set apart, by the rule that set them."""
    for name in ("_last_part_below", "_trailing_visit_below", "_first_part_ahead"):
        rule = getattr(cut, name)

        def counting(*args: Any, rule: Any = rule, name: str = name) -> Any:
            found = rule(*args)
            seen[name] += found is not None and found is not False
            return found

        monkeypatch.setattr(cut, name, counting)


def test_column_leaves_agree_with_the_rule(monkeypatch: pytest.MonkeyPatch):
    seen: Counter[str] = Counter()
    _read_by_stub(monkeypatch)
    _counted(monkeypatch, seen)
    for seed in range(600):
        rng = np.random.default_rng(seed)
        units = _with_label(rng, _with_gaps(rng, _side_by_side(rng)), PLACES[seed % 4])
        n = len(units["inked"])
        body = 200.0 / [COLUMN_WIDTH, NARROW_COLUMN, COLUMN_WIDTH * 1.3][seed % 3]
        rtl = seed % 11 == 0
        reference, compiled = _Region(None, units, body, rtl), _Region(LIB, units, body, rtl)
        ids = rng.permutation(n).astype(np.int64) if seed % 5 == 0 else np.arange(n, dtype=np.int64)
        columns = cut._text_columns(reference, ids, 0) or [ids[: n // 2], ids[n // 2 :]]
        if not all(len(column) for column in columns):
            continue
        reads = [cut.read_region(reference, column, 1) for column in columns]
        expected = [leaf.tolist() for leaf in cut._column_leaves(reference, ids, columns, reads)]
        assert [leaf.tolist() for leaf in cut._read_columns(compiled, ids, columns, 0)] == expected, seed
        seen["merged"] += len(expected) < sum(len(inner) if split else 1 for inner, split in reads)
        seen["regions"] += 1
    # Parts read after the columns (a last part, a trailing visit), before
    # them, and fragments merged, each by some regions.
    assert seen["regions"] >= 500 and seen["merged"] >= 30, seen
    assert seen["_last_part_below"] >= 20 and seen["_trailing_visit_below"] >= 3 and seen["_first_part_ahead"] >= 5, seen


def test_column_leaves_leave_empty_columns_to_the_rule():
    units = _side_by_side(np.random.default_rng(3))
    page = _Region(LIB, units, 10.0, False)
    n = len(units["inked"])
    ids = np.arange(n, dtype=np.int64)
    glyphs = (page.inked, page.start, page.end, page.classes)
    limits = (12.0, 6.0, *cut.verdict_limits(page), (2.5, 8.0, 0.6, 0.9, 4))
    box, words = (page.x0, page.x1, page.y0, page.y1), (page.words, page.first_word)
    assert cut.column_leaves(LIB, box, glyphs, words, (ids, [ids[:0], ids], [None, None]), limits) is None
    assert cut.column_leaves(LIB, box, glyphs, words, (ids, [ids[:2], ids[2:]], [[ids[:0]], None]), limits) is None
    with pytest.raises(IndexError):
        cut.column_leaves(LIB, box, glyphs, words, (ids, [ids[:2], np.array([n], dtype=np.int64)], [None, None]), limits)

