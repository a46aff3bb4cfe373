"""regions' text-column and prose tests compiled (kernels.column_verdicts,
extract/_layout.c's "region verdicts") against their reference: the rules
themselves, regions._is_text_column and regions._holds_prose, which
RAGPREP_PURE=1 runs (a page without the kernels).

Groups of lines set as paragraphs, lists, tables and narrow columns (rows of
one line or of cells side by side, lines as long as the fill share of the
width, glyph counts and letter shares around the thresholds, paragraph gaps,
lines that wrap and lines that do not), at body heights that put the group's
width on, under and over the narrow and the text column's width; and groups
of random boxes with NaN and infinite edges. Each group judged both ways:
by the reference and by the kernel.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from ragprep.extract import native
from ragprep.extract.layout import kernels, regions
from ragprep.extract.layout.params import COLUMN_WIDTH, NARROW_COLUMN
from ragprep.extract.layout.units import Kept
from test_layout_kernels import _boxes as unit_boxes

LIB = native._layout

pytestmark = pytest.mark.skipif(LIB is None, reason="the layout kernels are not built (pip install compiles extract/_layout.c)")


class _Units:
    """What the two tests read of a page: its units' boxes, glyphs and
    words, its body height, and the groups' verdicts and measures kept."""

    def __init__(self, lib: Any, units: dict[str, Any], body: float) -> None:
        self.lib = lib
        self.x0, self.x1, self.y0, self.y1 = units["box"]
        self.inked, self.start, self.end = units["inked"], units["start"], units["end"]
        self.classes = units["classes"]
        self.words, self.first_word = units["words"]
        self.body = body
        self.kept = Kept()
        self.rows: dict[bytes, Any] = {}
        self.text_columns: dict[bytes, bool] = {}


def _glyphs(rng: np.random.Generator, inked: np.ndarray, letters: float) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Per unit its glyph run (its inked glyphs and a blank or two, some
    units empty) and per glyph its text classes: letters at share
    `letters`, the rest digits and blanks."""
    count = inked + rng.integers(0, 3, len(inked))
    count[rng.random(len(inked)) < 0.05] = 0
    end = np.cumsum(count).astype(np.int64)
    start = (end - count).astype(np.int64)
    glyphs = int(end[-1]) if len(end) else 0
    alpha = rng.random(glyphs) < letters
    space = ~alpha & (rng.random(glyphs) < 0.3)
    return start, end, (alpha, space)


def _lines(rng: np.random.Generator, rows: int) -> dict[str, Any]:
    """A group of `rows` rows down a column 300 wide: a line each, or two
    cells side by side (a table's row, a list number beside its item),
    lines ending short of the width or filling it, a paragraph gap now and
    then, glyphs and words per line around the tests' thresholds."""
    top = 14.0 * np.arange(rows, 0, -1) - np.cumsum(rng.random(rows) < 0.15) * 10.0
    x0s, x1s, y0s, y1s = [], [], [], []
    split = rng.random()
    for k in range(rows):
        left, right = float(rng.integers(0, 3)) * 5.0, 300.0 - float(rng.integers(0, 14)) * 15.0
        if rng.random() < split * 0.5:
            middle = float(rng.integers(8, 24)) * 10.0
            x0s += [left, middle + 10.0]
            x1s += [middle - 10.0, right]
            y0s += [top[k] - 10.0] * 2
            y1s += [top[k]] * 2
        else:
            x0s.append(left)
            x1s.append(right)
            y0s.append(top[k] - 10.0)
            y1s.append(top[k])
    n = len(x0s)
    inked = rng.integers(2, 4 + int(rng.integers(4, 30)), n).astype(np.int64)
    start, end, classes = _glyphs(rng, inked, float(rng.random()))
    words = (rng.integers(1, 12, n).astype(np.int64), rng.integers(1, 40, n) * 5.0)
    box = tuple(np.array(column) for column in (x0s, x1s, y0s, y1s))
    return {"box": box, "inked": inked, "start": start, "end": end, "classes": classes, "words": words}


def _scattered(rng: np.random.Generator, n: int) -> dict[str, Any]:
    """Random unit boxes on a grid (ties, NaN and infinite edges)."""
    box = unit_boxes(rng, n, True)
    inked = rng.integers(0, 30, n).astype(np.int64)
    start, end, classes = _glyphs(rng, inked, float(rng.random()))
    words = (rng.integers(0, 9, n).astype(np.int64), rng.integers(0, 30, n) * 2.5)
    return {"box": box, "inked": inked, "start": start, "end": end, "classes": classes, "words": words}


def _cases() -> Iterator[tuple[dict[str, Any], list[np.ndarray], float]]:
    """Per seed a page of units, its groups (the whole and runs of it,
    one unit alone, none) and a body height: the group's width on the
    narrow or the text column's width exactly, or either side of them."""
    for seed in range(160):
        rng = np.random.default_rng(seed)
        units = _lines(rng, int(rng.integers(1, 16))) if seed % 4 else _scattered(rng, int(rng.integers(1, 40)))
        n = len(units["inked"])
        ids = rng.permutation(n).astype(np.int64) if seed % 3 else np.arange(n, dtype=np.int64)
        groups = [ids, ids[: max(1, n // 2)], ids[n // 2 :], ids[:1], ids[:0]]
        width = float(np.nanmax(units["box"][1]) - np.nanmin(units["box"][0]))
        scale = [COLUMN_WIDTH, NARROW_COLUMN, COLUMN_WIDTH * 1.1, NARROW_COLUMN * 0.9, (COLUMN_WIDTH + NARROW_COLUMN) / 2][seed % 5]
        body = width / scale if np.isfinite(width) and width > 0 else 1.0
        yield units, groups, body


def _column(rows: list[list[tuple[float, float]]], inked: list[int]) -> dict[str, Any]:
    """Units of letters, `rows` of (x0, x1) each down a 14-point leading,
    `inked` glyphs per unit; five words a line, a first word 10 long (so
    full lines wrap)."""
    boxes = [(x0, x1, -14.0 * k - 10.0, -14.0 * k) for k, row in enumerate(rows) for x0, x1 in row]
    n = len(boxes)
    box = tuple(np.array(column) for column in zip(*boxes, strict=True))
    end = np.cumsum(inked).astype(np.int64)
    classes = (np.ones(int(end[-1]), dtype=bool), np.zeros(int(end[-1]), dtype=bool))
    words = (np.full(n, 5, dtype=np.int64), np.full(n, 10.0))
    return {"box": box, "inked": np.array(inked, dtype=np.int64), "start": end - inked, "end": end, "classes": classes, "words": words}


def _tied() -> Iterator[tuple[dict[str, Any], list[np.ndarray], float]]:
    """Groups on a threshold exactly, each another (and either side of it):
    the width on the narrow column's, rows filled to the fill share, a
    median of COLUMN_GLYPHS glyphs a row, the prose share of long rows,
    lines stacked in one row."""
    full = [[(0.0, 300.0)]] * 5
    for glyphs in (9, 10, 11):  # the median row's glyphs
        yield _column(full, [glyphs] * 5), [np.arange(5, dtype=np.int64)], 20.0
    for extent in (175.0, 180.0, 185.0):  # the median row's extent against 0.6 x 300
        yield _column([[(0.0, 300.0)], [(0.0, extent)], [(0.0, extent)], [(0.0, extent)], [(0.0, 300.0)]], [20] * 5), [np.arange(5, dtype=np.int64)], 20.0
    for body in (59.0 / NARROW_COLUMN, 60.0 / NARROW_COLUMN, 61.0 / NARROW_COLUMN):  # a width of 60 on the narrow column's
        yield _column([[(0.0, 60.0)]] * 6, [20] * 6), [np.arange(6, dtype=np.int64)], body
    for long in (2, 3, 4):  # long rows of 10 against PROSE_SHARE
        rows = [[(0.0, 300.0)] if k < long else [(0.0, 100.0), (150.0, 200.0)] for k in range(10)]
        units = _column(rows, [20] * sum(len(row) for row in rows))
        yield units, [np.arange(len(units["inked"]), dtype=np.int64)], 20.0
    # Two lines in one row (a deep bullet's box reaches the line above).
    units = _column([[(0.0, 300.0)], [(0.0, 300.0)]], [20, 20])
    units["box"][3][1] = -5.0
    yield units, [np.arange(2, dtype=np.int64)], 20.0


def _reference(units: dict[str, Any], groups: list[np.ndarray], body: float) -> list[tuple[bool, bool]]:
    page: Any = _Units(None, units, body)
    return [(regions.is_text_column(page, group), regions.holds_prose(page, group)) for group in groups]


def test_column_verdicts_give_the_rules_verdicts():
    seen = set()
    for units, groups, body in itertools.chain(_tied(), _cases()):
        expected = _reference(units, groups, body)
        page: Any = _Units(LIB, units, body)
        assert [(regions.is_text_column(page, g), regions.holds_prose(page, g)) for g in groups] == expected
        # The groups judged together (regions.judge: one kernel call), in
        # either order, a group listed twice: each keeps its own verdicts.
        for listed in (groups, [*groups[::-1], groups[0]]):
            together: Any = _Units(LIB, units, body)
            regions.judge(together, listed)
            assert [(together.text_columns[g.tobytes()], together.kept.prose[g.tobytes()]) for g in groups] == expected
        tests, limits = regions._column_tests(page), regions._column_limits(page)
        judged = [g for g in groups if len(g)]
        codes = kernels.column_verdicts(LIB, *tests, judged, *limits)
        assert len(codes) == len(judged)
        seen.update((code & 3, verdict) for code, verdict in zip(codes, [v for g, v in zip(groups, expected, strict=True) if len(g)], strict=True))
    # Every verdict met: text columns (wide, and narrow whose lines wrap),
    # narrow groups whose lines do not wrap, prose that is no text column.
    assert {(1, (True, True)), (1, (True, False)), (2, (True, False)), (2, (False, False)), (0, (False, True)), (0, (False, False))} <= seen


def test_column_verdicts_read_groups_of_any_stride():
    units = _lines(np.random.default_rng(3), 12)
    page: Any = _Units(LIB, units, 10.0)
    tests, limits = regions._column_tests(page), regions._column_limits(page)
    ids = np.arange(len(units["inked"]), dtype=np.int64)
    strided = [ids[::2], ids[::-1], ids[1::3]]
    assert not any(g.flags.c_contiguous for g in strided[:1] + strided[2:])
    assert kernels.column_verdicts(LIB, *tests, strided, *limits) == kernels.column_verdicts(LIB, *tests, [g.copy() for g in strided], *limits)
    assert kernels.column_verdicts(LIB, *tests, [], *limits) == bytearray()


def test_column_verdicts_are_bounds_checked():
    units = _scattered(np.random.default_rng(0), 6)
    page: Any = _Units(LIB, units, 10.0)
    tests, limits = regions._column_tests(page), regions._column_limits(page)
    ids = np.arange(6, dtype=np.int64)
    with pytest.raises(IndexError):
        kernels.column_verdicts(LIB, *tests, [ids, ids + 1], *limits)
    with pytest.raises(ValueError, match="no units"):
        kernels.column_verdicts(LIB, *tests, [ids, ids[:0]], *limits)
    with pytest.raises(TypeError, match="int64"):
        kernels.column_verdicts(LIB, *tests, [ids.astype(np.int32)], *limits)
    with pytest.raises(TypeError, match="int64"):
        kernels.column_verdicts(LIB, *tests, [[0, 1]], *limits)
    start, end, classes = tests[2]
    with pytest.raises(IndexError, match="unit out of range"):
        kernels.column_verdicts(LIB, tests[0], tests[1], (start, end + 1000, classes), [ids], *limits)
    with pytest.raises(ValueError, match="differ in length"):
        kernels.column_verdicts(LIB, tests[0], tests[1][:3], tests[2], [ids[:2]], *limits)
