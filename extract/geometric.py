"""The geometric rules that turn an ordered run of glyphs into text.

Every extraction mode orders glyphs its own way and then joins them here, so
spaces and line breaks follow one set of rules (DESIGN.md, "Page text"):

- Word space: along the previous glyph's direction, measure from its
  ``own_end`` (its width without Tc/Tw, §9.4.4) to the current ``origin``; a
  space goes in when that gap exceeds ``word_space_ratio`` x the current glyph's
  height — never next to an existing blank, never between two CJK characters.
  A jump backwards along the line by more than a glyph height is a word break
  too: the text continues elsewhere, not in the same word.
- Line break: project the move from the previous origin to the current one on
  the normal of the previous direction; a new line starts when it exceeds
  ``line_break_ratio`` x the larger height of the two glyphs, or when the
  writing direction turns.
- Vertical writing (WMode 1, §9.7.4.3): the same rules make one line per
  column; ``stream_order`` reads the columns of a vertical run right to left.

All rules are evaluated column-wise over consecutive pairs with numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragprep.extract.bidi import RTL_FIRST, is_rtl, logical_order, mirror
from ragprep.extract.config import ExtractConfig
from ragprep.extract.glyphs import GlyphTable, core_texts, rows_at, text_lengths
from ragprep.extract.native import compiled_core

NO_BREAK, SPACE, LINE_BREAK = 0, 1, 2
_SEPARATORS = np.array(["", " ", "\n"], dtype=object)
# Writing directions closer than this cosine count as the same line direction.
SAME_DIRECTION = 0.95
# A backward jump along the line larger than this share of the glyph height
# is a word break (overlaid accents and kerning move back far less).
_BACKWARD_JUMP = 1.0

# Scripts written without spaces between words: Han, kana, CJK punctuation and
# fullwidth forms. Hangul is left out on purpose: Korean separates words.
_CJK_RANGES = np.array(
    [
        (0x2E80, 0x2FFF),  # radicals, Kangxi, ideographic description
        (0x3000, 0x303F),  # CJK symbols and punctuation
        (0x3040, 0x30FF),  # hiragana, katakana
        (0x3100, 0x312F),  # bopomofo
        (0x31A0, 0x31FF),  # bopomofo extended, CJK strokes, katakana ext.
        (0x3200, 0x33FF),  # enclosed CJK, compatibility
        (0x3400, 0x4DBF),  # extension A
        (0x4E00, 0x9FFF),  # unified ideographs
        (0xF900, 0xFAFF),  # compatibility ideographs
        (0xFE30, 0xFE4F),  # compatibility forms (vertical punctuation)
        (0xFF00, 0xFFEF),  # half- and fullwidth forms
        (0x20000, 0x3FFFF),  # extensions B and later
    ]
)


def is_cjk(codepoints: np.ndarray) -> np.ndarray:
    lo, hi = _CJK_RANGES[:, 0], _CJK_RANGES[:, 1]
    cp = codepoints[:, None]
    cjk: np.ndarray = np.any((cp >= lo) & (cp <= hi), axis=1)
    return cjk


# Code points for which str.isspace() is true.
_BLANKS = np.array([c for c in range(0x3001) if chr(c).isspace()], dtype=np.int64)


def _is_blank(codepoints: np.ndarray) -> np.ndarray:
    return np.isin(codepoints, _BLANKS)


def edge_codepoints(texts: np.ndarray | list[str]) -> tuple[np.ndarray, np.ndarray]:
    """First and last code point of every text, -1 for an empty one, without
    a Python loop per glyph: one UTF-32 buffer of all texts, indexed at the edges."""
    core = compiled_core()
    if core is not None:
        _, first, last = core.text_edges(core_texts(texts))
        return np.frombuffer(first, dtype=np.int64), np.frombuffer(last, dtype=np.int64)
    lengths = text_lengths(texts)
    codepoints = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
    # The -1 after the buffer keeps every edge index in range; an empty text
    # has no code point of its own and reads -1 as text_edges gives it.
    padded = np.append(codepoints, -1)
    ends = np.cumsum(lengths)
    written = lengths > 0
    return np.where(written, padded[ends - lengths], -1), np.where(written, padded[ends - 1], -1)


@dataclass(frozen=True, eq=False)
class JoinedText:
    """Text of an ordered glyph run, with the decision behind every separator.

    Arrays have one entry per emitted glyph, in emitted order; entry 0 has no
    predecessor (its gap and move are NaN, its separator NO_BREAK).
    """

    text: str
    order: np.ndarray  # glyph table indices, in emitted order
    separator: np.ndarray  # NO_BREAK, SPACE or LINE_BREAK before the glyph
    gap: np.ndarray  # previous own_end -> origin, along the previous direction
    space_threshold: np.ndarray  # word_space_ratio x height
    move_across: np.ndarray  # previous origin -> origin, across the previous direction
    line_threshold: np.ndarray  # line_break_ratio x larger height
    char_start: np.ndarray  # offset of the glyph's text in `text`
    char_end: np.ndarray


def line_break_rule(
    direction: np.ndarray,
    next_direction: np.ndarray,
    origin: np.ndarray,
    next_origin: np.ndarray,
    height: np.ndarray,
    next_height: np.ndarray,
    config: ExtractConfig,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The line rule for pairs of a glyph and the next: a new line starts when
    the move between their origins, across the first one's direction,
    exceeds line_break_ratio x the larger height, or when the direction turns.
    Returns (line break, move across, threshold). Layout mode cuts lines with
    this same function, so it never breaks a line join() would not."""
    normal = np.stack([-direction[:, 1], direction[:, 0]], axis=1)
    across = np.einsum("ij,ij->i", next_origin - origin, normal)
    line_limit = config.line_break_ratio * np.maximum(height, next_height)
    turned = np.einsum("ij,ij->i", direction, next_direction) < SAME_DIRECTION
    return (np.abs(across) > line_limit) | turned, across, line_limit


def _pair_rules(
    table: GlyphTable, order: np.ndarray, config: ExtractConfig, texts: list[str] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Separator before each glyph of `order`, and the measurements behind it
    (`texts`: the glyphs' texts in that order, when the caller has them)."""
    core = compiled_core()
    if core is not None:  # the same rules, per pair in C
        columns = core.pair_rules(
            np.ascontiguousarray(table.origin), np.ascontiguousarray(table.own_end),
            np.ascontiguousarray(table.direction), np.ascontiguousarray(table.height),
            np.ascontiguousarray(order, dtype=np.int64), table.text[order].tolist() if texts is None else texts,
            config.word_space_ratio, config.line_break_ratio, SAME_DIRECTION, _BACKWARD_JUMP,
        )  # fmt: skip
        separator = np.frombuffer(columns[0], dtype=np.int8)
        gap, space_threshold, move_across, line_threshold = (np.frombuffer(c) for c in columns[1:])
        return separator, gap, space_threshold, move_across, line_threshold
    n = len(order)
    separator = np.zeros(n, dtype=np.int8)
    gap = np.full(n, np.nan)
    space_threshold = np.full(n, np.nan)
    move_across = np.full(n, np.nan)
    line_threshold = np.full(n, np.nan)
    if n < 2:
        return separator, gap, space_threshold, move_across, line_threshold
    prev, cur = order[:-1], order[1:]
    direction = rows_at(table.direction, prev)
    height_cur = table.height[cur]
    origin_cur = rows_at(table.origin, cur)
    line_break, across, line_limit = line_break_rule(
        direction, rows_at(table.direction, cur), rows_at(table.origin, prev), origin_cur,
        table.height[prev], height_cur, config,
    )  # fmt: skip

    along_gap = np.einsum("ij,ij->i", origin_cur - rows_at(table.own_end, prev), direction)
    space_limit = config.word_space_ratio * height_cur
    first_cp, last_cp = edge_codepoints(table.text[order])
    first_blank, last_blank = _is_blank(first_cp), _is_blank(last_cp)
    cjk_pair = is_cjk(last_cp[:-1]) & is_cjk(first_cp[1:])
    blank_next_to = last_blank[:-1] | first_blank[1:]
    word_break = (along_gap > space_limit) | (along_gap < -_BACKWARD_JUMP * height_cur)
    space = word_break & ~blank_next_to & ~cjk_pair & ~line_break

    separator[1:] = np.where(line_break, LINE_BREAK, np.where(space, SPACE, NO_BREAK))
    gap[1:] = along_gap
    space_threshold[1:] = space_limit
    move_across[1:] = across
    line_threshold[1:] = line_limit
    return separator, gap, space_threshold, move_across, line_threshold


def join(
    table: GlyphTable, order: np.ndarray, config: ExtractConfig, break_before: np.ndarray | None = None
) -> JoinedText:
    """Join the glyphs at `order` (each with non-empty text) into text.

    `break_before` (one flag per position of `order`) forces a line break
    before a glyph whatever the geometry says: structure mode starts every
    block element on a new line.
    """
    order = np.asarray(order, dtype=np.int64)
    forced = np.flatnonzero(break_before[1:]) + 1 if break_before is not None else None

    def rules(order: np.ndarray, texts: list[str]) -> tuple[np.ndarray, ...]:
        measured = _pair_rules(table, order, config, texts)
        if forced is not None:
            measured[0][forced] = LINE_BREAK
        return measured

    # The texts in order, made once for the rules, the RTL test and the join.
    texts = table.text[order]
    text_list = texts.tolist()
    separator, gap, space_threshold, move_across, line_threshold = rules(order, text_list)
    visual = _visual_order_of_rtl_lines(table, order, separator, text_list)
    if visual is not None:
        # Sorting stays within lines, so forced breaks keep their positions.
        order = visual
        texts = table.text[order]
        text_list = texts.tolist()
        separator, gap, space_threshold, move_across, line_threshold = rules(order, text_list)
    if visual is not None:
        reordering = logical_order(edge_codepoints(texts)[0], separator, separator == LINE_BREAK)
        if reordering is not None:
            p = reordering.permutation
            order, texts = order[p], texts[p].copy()
            gap, space_threshold = gap[p], space_threshold[p]
            move_across, line_threshold = move_across[p], line_threshold[p]
            separator = reordering.separator
            for position in reordering.mirrored.tolist():
                texts[position] = mirror(texts[position])
            text_list = texts.tolist()
    text, char_start, char_end = _interleave(texts, separator, text_list)
    return JoinedText(
        text=text,
        order=order,
        separator=separator,
        gap=gap,
        space_threshold=space_threshold,
        move_across=move_across,
        line_threshold=line_threshold,
        char_start=char_start,
        char_end=char_end,
    )


def _interleave(texts: np.ndarray, separator: np.ndarray, text_list: list[str]) -> tuple[str, np.ndarray, np.ndarray]:
    """Separator strings and glyph texts joined once, with each text's span
    (`text_list`: `texts` as a list)."""
    core = compiled_core()
    if core is not None:
        text, starts, ends = core.join_text(text_list, np.ascontiguousarray(separator, dtype=np.int8))
        return text, np.frombuffer(starts, dtype=np.int64), np.frombuffer(ends, dtype=np.int64)
    pieces = np.empty(2 * len(texts), dtype=object)
    pieces[0::2] = _SEPARATORS[separator]
    pieces[1::2] = texts
    lengths = text_lengths(texts)
    ends = np.cumsum(lengths + (separator != NO_BREAK))
    return "".join(pieces.tolist()), ends - lengths, ends


def _visual_order_of_rtl_lines(
    table: GlyphTable, order: np.ndarray, separator: np.ndarray, texts: list[str]
) -> np.ndarray | None:
    """`order` with the glyphs of every line that holds RTL text sorted along
    the writing direction (visual order), or None when no line does.

    Producers paint RTL lines in visual order, in logical order (pen moving
    backwards), or in chunks of either; sorting first gives bidi.logical_order
    one well-defined input. `texts`: the glyphs' texts in `order`."""
    if len(order) < 2:
        return None
    first = edge_codepoints(texts)[0]
    # Only code points from RTL_FIRST up can be RTL: the range tests run on those
    # alone (most pages have a few, quotes and dashes, and no RTL).
    high = np.flatnonzero(first >= RTL_FIRST)
    rtl = high[is_rtl(first[high])]
    if len(rtl) == 0:
        return None
    line = np.cumsum(separator == LINE_BREAK)
    in_rtl_line = np.isin(line, np.unique(line[rtl]))
    # Glyph centres, not origins: a trailing space is often painted over the
    # edge of the line's last (leftmost) letter.
    centre = (rows_at(table.origin, order) + rows_at(table.own_end, order)) / 2
    along = np.einsum("ij,ij->i", centre, rows_at(table.direction, order))
    key = np.where(in_rtl_line, along, np.arange(len(order), dtype=np.float64))
    return order[np.lexsort((key, line))]


def text_glyphs(table: GlyphTable) -> np.ndarray:
    """Indices, in content-stream order, of the glyphs that can be page text:
    visible, and with text (glyphs an /ActualText replaced carry none)."""
    return table.text_rows


def stream_order(table: GlyphTable, config: ExtractConfig) -> np.ndarray:
    """Content-stream order, except that the columns of each run of vertical
    glyphs are read right to left (top to bottom within a column)."""
    order = text_glyphs(table)
    vertical = table.wmode[order] == 1
    if not vertical.any():
        return order
    separator = _pair_rules(table, order, config)[0]
    # Runs of consecutive vertical glyphs; within each, columns start at a line break.
    edges = np.flatnonzero(np.diff(np.concatenate([[False], vertical, [False]]).astype(np.int8)))
    result = order.copy()
    for start, end in zip(edges[::2], edges[1::2], strict=True):
        run = order[start:end]
        column = np.cumsum(separator[start:end] == LINE_BREAK)
        column -= column[0]
        # Rightward position of each column: its first glyph's origin projected
        # on the normal of the writing direction (x for upright vertical text).
        firsts = np.flatnonzero(np.diff(np.concatenate([[-1], column])) != 0)
        direction = rows_at(table.direction, run[firsts])
        normal = np.stack([-direction[:, 1], direction[:, 0]], axis=1)
        position = np.einsum("ij,ij->i", rows_at(table.origin, run[firsts]), normal)
        # Stable: columns right to left, glyphs inside a column in stream order.
        rank = np.argsort(-position, kind="stable")
        column_rank = np.empty_like(rank)
        column_rank[rank] = np.arange(len(rank))
        result[start:end] = run[np.argsort(column_rank[column], kind="stable")]
    return result


# -- units and reading direction: layout mode and running.py's band lines ----

# A jump along the line wider than this many glyph heights (the larger of
# the two glyphs) starts a new unit: wider than any word space, narrower than
# a column gutter.
SEGMENT_GAP = 0.65
# A jump backwards along the line longer than this many heights starts a new
# unit (the pen going back to another column); right-to-left text painted in
# logical order moves back about two glyph widths per glyph and stays whole.
SEGMENT_BACK = 4.0
# Directions within half a degree of the x axis: an upright page.
UPRIGHT = float(np.cos(np.radians(0.5)))
# Font sizes and heights above this many points are not text (histogram bound).
MAX_VALUE = 2000


def unit_breaks(line_break: np.ndarray, gap: np.ndarray, height: np.ndarray, next_height: np.ndarray) -> np.ndarray:
    """Per pair of consecutive glyphs (join()'s line rule `line_break`, the
    `gap` along the line from the first's own end to the second's origin,
    and their heights): does a new unit start at the second? At a line
    break, a jump forward wider than SEGMENT_GAP heights, or back by more
    than SEGMENT_BACK. The jump forward is measured against the smaller of
    the two glyphs: a bullet whose font has a deep box (half again the
    text's height) starting the next column's line must not bridge a
    gutter narrower than itself; the jump back against the larger. The one
    definition of a unit: layout cuts its units with it, running.py its
    band lines."""
    smaller, larger = np.minimum(height, next_height), np.maximum(height, next_height)
    cut: np.ndarray = line_break | (gap > SEGMENT_GAP * smaller) | (gap < -SEGMENT_BACK * larger)
    return cut


def reading_direction(
    table: GlyphTable, order: np.ndarray, direction: np.ndarray | None = None, weights: np.ndarray | None = None
) -> np.ndarray:
    """Unit vector of the dominant writing direction of the glyphs `order`
    (their directions when already gathered): the most common glyph
    direction, to the degree, each glyph counted by its `weights` where
    given (layout mode's frame: by its height, see units.Page)."""
    if (table.direction[:, 0] > UPRIGHT).all():
        return np.array([1.0, 0.0])  # every glyph of the page is upright
    direction = rows_at(table.direction, order) if direction is None else direction
    degrees = np.rint(np.degrees(np.arctan2(direction[:, 1], direction[:, 0]))) % 360
    angle = np.radians(most_common(degrees, 1, weights))
    # Rounded so that right angles give exact 0 and 1.
    return np.array([round(float(np.cos(angle)), 12), round(float(np.sin(angle)), 12)])


def most_common(values: np.ndarray, steps_per_unit: int, weights: np.ndarray | None = None) -> float:
    """The most common value, rounded to 1/steps_per_unit (0.0 when there is
    none), each value counted by its `weights` where given: a histogram, not
    a sort. Values outside [0, MAX_VALUE] are ignored."""
    steps = np.rint(values * steps_per_unit)
    keep = (steps >= 0) & (steps <= MAX_VALUE * steps_per_unit)
    steps = steps[keep].astype(np.int64)
    if not len(steps):
        return 0.0
    return float(np.argmax(np.bincount(steps, None if weights is None else weights[keep]))) / steps_per_unit
