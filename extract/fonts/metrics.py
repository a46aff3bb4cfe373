"""Glyph widths and the font's vertical extent, per unit font size.

Simple fonts: /Widths from /FirstChar (§9.6.2.1), /MissingWidth outside
(§9.8.1), standard-14 metrics when /Widths is absent (§9.6.2.2). CIDFonts: /W
and /DW for horizontal advances, /W2 and /DW2 for vertical ones (§9.7.4.3).
Ascent and descent: the rule in ``vertical_extent``.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

import numpy as np

from ragprep.extract.fonts import pdfvalues as pv

DEFAULT_ASCENT = 0.8
DEFAULT_DESCENT = -0.2
# Advance used when a font gives no width at all (broken or width-less
# dictionaries): half an em is the middle of real Latin text widths.
FALLBACK_WIDTH = 0.5
# §9.7.4.3: /DW default 1000; /DW2 default [880 -1000] (position vy, advance w1y).
DEFAULT_DW = 1000.0
DEFAULT_DW2 = (880.0, -1000.0)


def simple_widths(
    font: Any,
    descriptor: Any,
    scale: float,
    standard_width: Callable[[int], float | None] | None,
    fallback: float,
    warnings: list[str],
) -> np.ndarray:
    """256 advance widths (text space per unit size) of a simple font.

    ``scale`` turns glyph-space widths into text space (1/1000, or
    FontMatrix[0] for Type3). ``standard_width`` gives a standard-14 width by
    code when the font is one of those; ``fallback`` is the width for codes
    nothing else covers.
    """
    missing = pv.number(pv.get(descriptor, "/MissingWidth"))
    missing_width = missing * scale if missing is not None else None
    table = np.full(256, missing_width if missing_width is not None else fallback, dtype=np.float64)
    raw = pv.get(font, "/Widths")
    # The numbers read from the array's text (pv.numbers), before a list of
    # pikepdf objects is made: from such a list they are read one by one.
    numeric = pv.finite_numbers(raw)
    widths = pv.array(raw) if numeric is None else numeric
    if widths is not None:
        # Codes outside FirstChar..FirstChar+len(Widths)-1 take MissingWidth,
        # whose default is 0 (§9.8.1, Table 122).
        table[:] = missing_width if missing_width is not None else 0.0
        first = pv.integer(pv.get(font, "/FirstChar"), 0) or 0
        if numeric is not None:  # nearly always: one step, no loop per entry
            codes = np.arange(first, first + len(numeric))
            inside = (codes >= 0) & (codes <= 255)
            table[codes[inside]] = np.array(numeric)[inside] * scale
            return table
        bad = 0
        for offset, value in enumerate(widths):
            code = first + offset
            if not 0 <= code <= 255:
                continue
            width = pv.number(value)
            if width is None:
                bad += 1
                table[code] = missing_width if missing_width is not None else fallback
            else:
                table[code] = width * scale
        if bad:
            warnings.append(f"{bad} /Widths entries are not numbers")
        return table
    if standard_width is not None:
        for code in range(256):
            width = standard_width(code)
            if width is not None:
                table[code] = width * scale
        return table
    warnings.append("no /Widths: glyph advances are guessed")
    return table


class CIDWidths:
    """Per-CID horizontal advances of a CIDFont from /W and /DW (§9.7.4.3)."""

    def __init__(self, w: Any, dw: Any, warnings: list[str]) -> None:
        self.default = pv.number(dw, DEFAULT_DW) or 0.0
        self._singles: dict[int, float] = {}
        self._ranges = _Ranges()
        groups = pv.number_groups(w)
        if groups is not None:
            self._read_groups(groups, warnings)
            return
        items = pv.array(w) or []
        i, n = 0, len(items)
        while i < n:
            first = pv.integer(items[i])
            follow = pv.array(items[i + 1]) if i + 1 < n else None
            if first is not None and follow is not None:
                # c [w1 w2 ...]: consecutive CIDs from c
                numeric = pv.finite_numbers(follow)
                if numeric is not None:  # nearly always: no call per width
                    self._singles.update(zip(range(first, first + len(numeric)), numeric, strict=True))
                else:
                    for offset, value in enumerate(follow):
                        width = pv.number(value)
                        if width is not None:
                            self._singles[first + offset] = width
                i += 2
            elif first is not None and i + 2 < n and pv.is_number(items[i + 1]) and pv.is_number(items[i + 2]):
                # cfirst clast w: one width for a CID range
                self._ranges.add(first, pv.integer(items[i + 1]) or 0, pv.number(items[i + 2]) or 0.0)
                i += 3
            else:
                warnings.append("malformed /W array; widths after the damage use /DW")
                break
        self._ranges.freeze()

    def _read_groups(self, items: list[Any], warnings: list[str]) -> None:
        """The loop of __init__ over /W read as finite floats and lists of
        them (pv.number_groups): the same entries, without the value checks
        each element needed as a pikepdf object."""
        i, n = 0, len(items)
        while i < n:
            first = items[i]
            follow = items[i + 1] if i + 1 < n else None
            if type(first) is float and type(follow) is list:
                start = int(first)  # pv.integer
                self._singles.update(zip(range(start, start + len(follow)), follow, strict=True))
                i += 2
            elif type(first) is float and i + 2 < n and type(follow) is float and type(items[i + 2]) is float:
                self._ranges.add(int(first), int(follow), items[i + 2] or 0.0)  # -0.0 -> 0.0, as pv.number(...) or 0.0
                i += 3
            else:
                warnings.append("malformed /W array; widths after the damage use /DW")
                break
        self._ranges.freeze()

    def width(self, cid: int) -> float:
        """Advance in glyph space (1/1000 em)."""
        found = self._singles.get(cid)
        if found is not None:
            return found
        ranged = self._ranges.find(cid)
        return self.default if ranged is None else ranged


class CIDVerticalMetrics:
    """Per-CID vertical advance w1y from /W2 and /DW2 (§9.7.4.3)."""

    def __init__(self, w2: Any, dw2: Any, warnings: list[str]) -> None:
        pair = pv.numbers(dw2)
        self.default = pair[1] if pair is not None and len(pair) == 2 else DEFAULT_DW2[1]
        self._singles: dict[int, float] = {}
        self._ranges = _Ranges()
        items = _number_groups(w2)
        i, n = 0, len(items)
        while i < n:
            first = pv.integer(items[i])
            follow = pv.numbers(items[i + 1]) if i + 1 < n else None
            if first is not None and follow is not None:
                # c [w1y vx vy  w1y vx vy ...]: triples for consecutive CIDs
                for offset in range(len(follow) // 3):
                    self._singles[first + offset] = follow[3 * offset]
                i += 2
            elif first is not None and i + 4 < n and all(pv.is_number(items[i + k]) for k in range(1, 5)):
                # cfirst clast w1y vx vy
                self._ranges.add(first, pv.integer(items[i + 1]) or 0, pv.number(items[i + 2]) or 0.0)
                i += 5
            else:
                warnings.append("malformed /W2 array; vertical advances after the damage use /DW2")
                break
        self._ranges.freeze()

    def advance(self, cid: int) -> float:
        """w1y in glyph space (1/1000 em; negative moves down)."""
        found = self._singles.get(cid)
        if found is not None:
            return found
        ranged = self._ranges.find(cid)
        return self.default if ranged is None else ranged


def _number_groups(value: Any) -> list[Any]:
    """/W or /W2 as plain numbers and lists where it holds nothing else (one
    read of its text, not a pikepdf object per width), else its elements."""
    groups = pv.number_groups(value)
    return groups if groups is not None else pv.array(value) or []


class _Ranges:
    """CID ranges with one value each, found by bisection (ranges are disjoint in valid fonts)."""

    def __init__(self) -> None:
        self._items: list[tuple[int, int, float]] = []
        self._firsts: list[int] = []

    def add(self, first: int, last: int, value: float) -> None:
        if first <= last:
            self._items.append((first, last, value))

    def freeze(self) -> None:
        self._items.sort(key=lambda item: item[0])
        self._firsts = [item[0] for item in self._items]

    def find(self, cid: int) -> float | None:
        index = bisect.bisect_right(self._firsts, cid) - 1
        if index >= 0:
            _, last, value = self._items[index]
            if cid <= last:
                return value
        return None


def extent_candidates(descriptor: Any, scale: float, bbox_holder: Any) -> list[tuple[float | None, float | None]]:
    """(top, bottom) pairs for ``vertical_extent`` from /Ascent, /Descent and
    /FontBBox, scaled from glyph space to text space per unit size."""
    candidates: list[tuple[float | None, float | None]] = []
    ascent = pv.number(pv.get(descriptor, "/Ascent"))
    descent = pv.number(pv.get(descriptor, "/Descent"))
    if ascent is not None and descent is not None:
        candidates.append((ascent * scale, descent * scale))
    bbox = pv.numbers(pv.get(bbox_holder, "/FontBBox"))
    if bbox is not None and len(bbox) == 4:
        candidates.append((max(bbox[1], bbox[3]) * scale, min(bbox[1], bbox[3]) * scale))
    return candidates


def vertical_extent(
    candidates: list[tuple[float | None, float | None]],
) -> tuple[float, float]:
    """Ascent (> 0) and descent (< 0) per unit font size.

    ``candidates`` are (top, bottom) pairs already in text space, best source
    first: FontDescriptor /Ascent and /Descent, then /FontBBox, then the
    standard-14 metrics. The rule:

    - a bottom above the baseline is a sign error (some producers write
      Descent positive) and is negated;
    - a source is usable when its top is above the baseline and the total
      height is between 0.5 and 3 em (the range real fonts span; outside it
      the numbers are in the wrong units or garbage);
    - a usable source whose bottom is 0 (common: Descent 0) keeps its top and
      takes the bottom from the next source with a negative one, else -0.2;
    - nothing usable: 0.8 / -0.2.
    """
    for index, (top, bottom) in enumerate(candidates):
        if top is None or bottom is None:
            continue
        if top < bottom:
            top, bottom = bottom, top
        bottom = -abs(bottom)
        if top <= 0 or not 0.5 <= top - bottom <= 3.0:
            continue
        if bottom == 0:
            bottom = next(
                (
                    -abs(b)
                    for t, b in candidates[index + 1 :]
                    if b is not None and b < 0 and t is not None and 0.5 <= t - b <= 3.0
                ),
                DEFAULT_DESCENT,
            )
        return top, bottom
    return DEFAULT_ASCENT, DEFAULT_DESCENT
