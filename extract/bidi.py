"""Right-to-left lines: from the order glyphs were painted to the order they are read.

Most producers (Word, iLovePDF, Chrome) paint Hebrew and Arabic lines left to
right in *visual* order, so content-stream order spells every RTL word
backwards. This module turns such a line back into logical order with the
reduced form of the Unicode bidirectional algorithm (UAX #9) that text
extractors use (poppler, pdf.js): one embedding level per run.

- A line's base direction is RTL when it holds more strong RTL glyphs than
  strong LTR ones.
- RTL base: the whole line is reversed, then every run of LTR glyphs (Latin
  letters and digits, with the neutrals between them) is reversed back so it
  reads left to right. LTR base: only the runs of RTL glyphs are reversed.
- Separators (spaces, line breaks) stay between the same two glyphs, so a
  boundary between runs keeps its space.
- Brackets in reversed RTL context are mirrored ("(" painted on the left of an
  RTL word is its closing bracket, UAX #9 rule L4).

The caller hands lines in visual order: producers also paint RTL lines in
logical order (the pen moving right to left) or in chunks of either, so
geometric.join sorts a line that holds RTL text along its direction first.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np

_RTL_RANGES = np.array(
    [
        (0x0590, 0x08FF),  # Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic, Arabic ext.
        (0xFB1D, 0xFDFF),  # Hebrew and Arabic presentation forms A
        (0xFE70, 0xFEFF),  # Arabic presentation forms B
        (0x10800, 0x10FFF),  # historic RTL scripts
        (0x1E800, 0x1EFFF),  # Mende Kikakui, Adlam, Arabic mathematical symbols
    ]
)
# The lowest code point any RTL range starts at.
RTL_FIRST = int(_RTL_RANGES[:, 0].min())
_MIRROR = str.maketrans("()[]{}<>«»", ")(][}{><»«")
_STRONG_LTR_CLASSES = frozenset({"L", "EN", "AN"})  # digits read left to right too
_STRONG_RTL_CLASSES = frozenset({"R", "AL"})


# The ranges' edges in one sorted array (the ranges are sorted and disjoint):
# a code point is RTL where it falls after an odd number of edges.
RTL_EDGES = np.stack([_RTL_RANGES[:, 0], _RTL_RANGES[:, 1] + 1], axis=1).ravel()


def is_rtl(codepoints: np.ndarray) -> np.ndarray:
    """Per code point: does it lie in an RTL range? One binary search each,
    not a comparison with every range."""
    rtl: np.ndarray = np.searchsorted(RTL_EDGES, codepoints, side="right") % 2 == 1
    return rtl


@dataclass(frozen=True)
class Reordering:
    permutation: np.ndarray  # new position -> old position
    separator: np.ndarray  # separators in the new order
    mirrored: np.ndarray  # new positions whose text gets brackets mirrored


def _direction(codepoint: int) -> int:
    """+1 strong LTR, -1 strong RTL, 0 neutral (spaces, punctuation, marks)."""
    klass = unicodedata.bidirectional(chr(codepoint))
    if klass in _STRONG_RTL_CLASSES:
        return -1
    if klass in _STRONG_LTR_CLASSES:
        return 1
    return 0


def _runs(directions: list[int], wanted: int) -> list[tuple[int, int]]:
    """Maximal [first, last] spans of glyphs of direction `wanted`, neutrals
    between two such glyphs included, neutrals at the edges left out."""
    runs: list[tuple[int, int]] = []
    first = last = -1
    for i, d in enumerate(directions):
        if d == wanted:
            if first < 0:
                first = i
            last = i
        elif d != 0 and first >= 0:
            runs.append((first, last))
            first = -1
    if first >= 0:
        runs.append((first, last))
    return runs


def _reverse(items: list[tuple[bool, int]], first: int, last: int) -> None:
    """Reverse glyphs first..last (glyph positions) with the separators between them."""
    a, b = 2 * first, 2 * last + 1
    items[a:b] = items[a:b][::-1]


def logical_order(
    first_codepoints: np.ndarray,
    separator: np.ndarray,
    line_start: np.ndarray,
) -> Reordering | None:
    """Reorder lines given in visual order that hold RTL text; None when none do.

    `separator` holds the separator before each glyph (it moves with the pair
    of glyphs it separates) and `line_start` marks glyphs that begin a line.
    """
    rtl = is_rtl(first_codepoints)
    if not rtl.any():
        return None
    n = len(first_codepoints)
    permutation = np.arange(n)
    new_separator = separator.copy()
    mirrored: list[int] = []
    starts = np.flatnonzero(line_start)
    bounds = np.concatenate([[0], starts[starts > 0], [n]])
    changed = False
    for start, end in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        if not rtl[start:end].any() or end - start < 2:
            continue
        directions = [_direction(int(cp)) for cp in first_codepoints[start:end]]
        base_rtl = directions.count(-1) > directions.count(1)
        # Items alternate glyph, separator, glyph...: (is_glyph, value).
        items: list[tuple[bool, int]] = []
        for k in range(start, end):
            if k > start:
                items.append((False, int(separator[k])))
            items.append((True, k))
        count = end - start
        if base_rtl:
            _reverse(items, 0, count - 1)
            flipped = [d for d in reversed(directions)]
            ltr_runs = _runs(flipped, 1)
            for first, last in ltr_runs:
                _reverse(items, first, last)
            in_ltr = np.zeros(count, dtype=bool)
            for first, last in ltr_runs:
                in_ltr[first : last + 1] = True
            mirror_here = ~in_ltr
        else:
            rtl_runs = _runs(directions, -1)
            mirror_here = np.zeros(count, dtype=bool)
            for first, last in rtl_runs:
                _reverse(items, first, last)
                mirror_here[first : last + 1] = True
        glyph_positions = [value for is_glyph, value in items if is_glyph]
        permutation[start:end] = glyph_positions
        new_separator[start] = separator[start]
        for i in range(1, len(items), 2):
            new_separator[start + (i + 1) // 2] = items[i][1]
        mirrored.extend(start + i for i in np.flatnonzero(mirror_here).tolist())
        changed = True
    if not changed:
        return None
    return Reordering(permutation, new_separator, np.array(mirrored, dtype=np.int64))


def mirror(text: str) -> str:
    return text.translate(_MIRROR)
