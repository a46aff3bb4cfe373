"""The stream's witness of a region's cut compiled whole (kernels.band_order,
kernels.reads_columns: extract/_layout.c) against its reference, the rules
themselves: tiebreaks._stream_band_order and tiebreaks._stream_reads_columns,
which RAGPREP_PURE=1 runs (a page without the kernels).

Regions of two or three columns cut into bands (small print at the foot now
and then), painted band after band, column after column, row by row,
reversed, shuffled, with a band moved out of its place (a callout painted
last), or with the foot painted first; furniture flags at random; some
regions with NaN or infinite edges, and bands given in random partitions.
Each region asked both ways: by the rule and by the kernel.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from ragprep.extract import native
from ragprep.extract.layout import kernels, tiebreaks
from ragprep.extract.layout.params import ROW_OVERLAP

LIB = native._layout

pytestmark = pytest.mark.skipif(LIB is None, reason="the layout kernels are not built (pip install compiles extract/_layout.c)")

ORDERS = ("bands", "columns", "rows", "reversed", "shuffled", "callout", "foot first")


class _Region:
    """What the two rules read of a page: its units' boxes, its unit count,
    body height, gutter and direction, and the kernels' path."""

    def __init__(self, lib: Any, box: tuple[np.ndarray, ...], body: float, rtl: bool) -> None:
        self.lib = lib
        self.x0, self.x1, self.y0, self.y1 = box
        self.start = np.zeros(len(self.x0), dtype=np.int64)
        self.body = body
        self.gutter = body
        self.rtl = rtl


def _cells(rng: np.random.Generator) -> list[tuple[int, int, int]]:
    """(band, column, row) of each line of a region of 2 or 3 columns and
    1 to 5 bands, each band's columns a few rows deep (some ragged)."""
    columns, bands = int(rng.integers(2, 4)), int(rng.integers(1, 6))
    depth = [int(rng.integers(1, 6)) for _ in range(bands)]
    return [(b, c, r) for b in range(bands) for c in range(columns) for r in range(depth[b] - int(rng.random() < 0.2 and depth[b] > 1))]


def _painted(rng: np.random.Generator, cells: list[tuple[int, int, int]], order: str) -> list[tuple[int, int, int]]:
    """The cells in the stream's `order`."""
    bands = max(b for b, _, _ in cells) + 1
    if order == "columns":
        return sorted(cells, key=lambda cell: (cell[1], cell[0], cell[2]))
    if order == "rows":
        return sorted(cells, key=lambda cell: (cell[0], cell[2], cell[1]))
    if order == "reversed":
        return cells[::-1]
    if order == "shuffled":
        return [cells[k] for k in rng.permutation(len(cells))]
    if order == "callout" and bands > 2:
        moved = int(rng.integers(max(1, bands - 3), bands - 1))
        return [cell for cell in cells if cell[0] != moved] + [cell for cell in cells if cell[0] == moved]
    if order == "foot first":
        return [cell for cell in cells if cell[0] == bands - 1 and cell[2] > 0] + [cell for cell in cells if cell[0] != bands - 1 or cell[2] == 0]
    return cells


def _region(seed: int) -> tuple[_Region, _Region, np.ndarray, list[np.ndarray], list[bool]]:
    """A region (its page with and without the kernels), its units, its
    bands (top to bottom, each in row order, or a random partition) and
    their furniture flags."""
    rng = np.random.default_rng(seed)
    cells = _painted(rng, _cells(rng), ORDERS[seed % len(ORDERS)])
    bands = max(b for b, _, _ in cells) + 1
    small = rng.random() < 0.4
    x0, x1, y0, y1 = (np.empty(len(cells)) for _ in range(4))
    for unit, (b, c, r) in enumerate(cells):
        height = 6.0 if small and b == bands - 1 else 10.0 + float(rng.integers(0, 2))
        x0[unit] = c * 220.0 + float(rng.integers(0, 3)) * 5.0
        x1[unit] = x0[unit] + 200.0 - float(rng.integers(0, 6)) * 20.0 + (300.0 if rng.random() < 0.05 else 0.0)
        y1[unit] = 800.0 - b * 120.0 - r * 14.0
        y0[unit] = y1[unit] - height
    if seed % 9 == 0:
        picked = rng.choice(len(cells), size=max(1, len(cells) // 8), replace=False)
        for column, value in zip((x0, x1, y0, y1), (np.nan, np.inf, np.nan, -np.inf), strict=True):
            column[picked[: len(picked) // 2 + 1]] = value
    ids = np.arange(len(cells), dtype=np.int64)
    if seed % 4 == 3:
        cuts = np.sort(rng.choice(np.arange(1, len(ids)), size=min(len(ids) - 1, int(rng.integers(1, 5))), replace=False))
        parts = np.split(rng.permutation(ids), cuts)
    else:
        band = np.array([b for b, _, _ in cells])
        parts = [ids[band == b][np.argsort(-y1[band == b], kind="stable")] for b in range(bands)]
    furniture = [bool(rng.random() < 0.2) for _ in parts]
    rtl = seed % 11 == 0
    box = (x0, x1, y0, y1)
    return _Region(LIB, box, 10.0, rtl), _Region(None, box, 10.0, rtl), rng.permutation(ids), parts, furniture


def _regions() -> Iterator[tuple[_Region, _Region, np.ndarray, list[np.ndarray], list[bool]]]:
    for seed in range(1400):
        yield _region(seed)


def _outcome(rule: Any, *args: Any) -> Any:
    try:
        found = rule(*args)
    except (ValueError, IndexError) as error:
        return type(error).__name__
    if isinstance(found, list):
        return [part.tolist() for part in found]
    return found


def test_band_order_agrees_with_the_rule():
    seen: Counter[str] = Counter()
    for compiled, reference, ids, bands, furniture in _regions():
        if len(bands) < 2:
            continue
        expected = _outcome(tiebreaks._stream_band_order, reference, ids, bands, furniture)
        assert _outcome(tiebreaks.stream_band_order, compiled, ids, bands, furniture) == expected
        seen["moved" if expected != [band.tolist() for band in bands] else "kept"] += 1
    # The regions take both ways out: bands the stream reorders, and bands kept.
    assert seen["moved"] >= 20 and seen["kept"] >= 100, seen


def test_reads_columns_agrees_with_the_rule():
    seen: Counter[str] = Counter()
    for compiled, reference, ids, bands, _ in _regions():
        rows = kernels.rows_top_down(None, reference.y0, reference.y1, np.sort(ids), ROW_OVERLAP * reference.body)
        expected = _outcome(tiebreaks._stream_reads_columns, reference, ids, rows, bands)
        assert _outcome(tiebreaks.stream_reads_columns, compiled, ids, rows, bands) == expected
        seen[str(expected)] += 1
    assert seen["True"] >= 20 and seen["False"] >= 100, seen


def test_empty_bands_are_left_to_the_rule():
    compiled, reference, ids, bands, furniture = _region(1)
    bands = [*bands, ids[:0]]
    assert kernels.band_order(LIB, (compiled.x0, compiled.x1, compiled.y0, compiled.y1), ids, bands, [*furniture, False], (2.0, 0.8, 0.25), kernels.ReadsDown(0.22, 5.0, 2.5, 0.2, False)) is None
    assert _outcome(tiebreaks.stream_band_order, compiled, ids, bands, [*furniture, False]) == _outcome(
        tiebreaks._stream_band_order, reference, ids, bands, [*furniture, False]
    )


def test_witness_kernels_are_bounds_checked():
    compiled, _, ids, bands, furniture = _region(2)
    box = (compiled.x0, compiled.x1, compiled.y0, compiled.y1)
    down = kernels.ReadsDown(0.22, 5.0, 2.5, 0.2, False)
    outside = np.array([len(ids)], dtype=np.int64)
    with pytest.raises(IndexError):
        kernels.band_order(LIB, box, ids, [*bands, outside], [*furniture, False], (2.0, 0.8, 0.25), down)
    with pytest.raises(IndexError):
        kernels.band_order(LIB, box, np.concatenate([ids, outside]), bands, furniture, (2.0, 0.8, 0.25), down)
    rows = (np.concatenate([np.sort(ids), outside]), np.array([0], dtype=np.int64))
    with pytest.raises(IndexError):
        kernels.reads_columns(LIB, box, ids, rows, bands, (len(ids), 0.2, 10.0, 2.0, 0.25), down)
    with pytest.raises(ValueError):
        kernels.reads_columns(LIB, box, ids, (np.sort(ids), np.array([1], dtype=np.int64)), bands, (len(ids), 0.2, 10.0, 2.0, 0.25), down)
