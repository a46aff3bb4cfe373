"""Running headers and footers: text that repeats in the top or bottom band of a document's pages.

Rule (issue 4): a line of text in the top or bottom band of a page whose key
(the text with whitespace collapsed, digits masked and case folded, so that
"Page 3" and "page 12" agree) recurs on at least ``running_min_share`` of the
pages read together (or of their odd or their even pages: heads set recto
and verso, see KeyTally), and on at least ``running_min_pages`` of them, is a
running header or footer. These are the pagination artifacts of ISO 32000-1
§14.8.2.2 ("running heads", "page numbers") that an untagged producer did not
mark: their glyphs are marked as artifacts, counted in ``artifact_glyphs``,
and left out of the geometric readings (layout mode, and auto when it falls
back to layout), as tagged artifacts are left out of structure mode.

How, and why so:
- Bands. A glyph is in the top (bottom) band when its box centre lies within
  ``running_band`` of the visible box's height (CropBox clipped to MediaBox,
  §14.11.2) from that edge. A line elsewhere that happens to repeat (a
  recurring "Continued on next page") is content: running heads live at the
  page edge. "Top" is across the page's dominant writing direction
  (``geometric.reading_direction``), so pages drawn at 90° find their heads where
  layout mode finds their first line; glyphs in another direction (a stamp up
  the margin) and vertical writing take no part.
- Lines and segments. The band glyphs, in content-stream order, are cut into
  lines by join()'s line rule (``geometric.line_break_rule``) and further at
  a gap along the line wider than a glyph height, as layout mode cuts its
  units (``geometric.unit_breaks``, the one definition): "3    Journal of
  Things" gives the keys "#" and "journal of things",
  so the page number runs even where the title beside it changes. Segments
  of a row that follow one another within that gap are then joined in their
  order along the line (``_pieces_joined``): a head painted in pieces, in
  whatever order, keys as the whole line (issue 19's scrambled twins). Spaces go
  where join() would put a word space, less its finer points (blanks, CJK,
  right-to-left lines): the key only needs to come out the same on every
  page, and a full join() of the band costs more than all the rest.
- What is content after all. Digit masking makes table cells alike ("#/#/#"
  in every row) and a table filling the page reaches into the bands. So a key
  met twice in one band of a page is no candidate there (cells of one column,
  footnote marks beside the page number), and a running key is marked only in
  a row (segments side by side) of at most three parts, a header's left,
  centre and right slots, or of more parts when at least half of them run (a
  printer's slug line): "Closure Permanent" in a row of dates, names and
  places stays. Checked on the corpus (bench numbers in the issue 4 notes).
  And a page whose only text is its running line keeps it (leaves_text):
  a deck of slides that all repeat one title, a plan sheet that carries
  nothing but its title block; removed, the page (or the whole document)
  would have no text to be found by.
- Per page, a set of keys. The decision needs the whole document, but the
  document is not to be held in memory as glyph tables: a page reduces to
  the keys of its band lines, counted across pages (KeyTally), and
  ``Document.extract_pages`` reads a page as soon as the counts decide all its
  keys, holding a bounded number of glyph tables for the others.

Per-glyph work is column-wise numpy over the page's text glyphs; Python loops
run over the band lines only (a handful per page).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ragprep.extract.config import ExtractConfig
from ragprep.extract.geometric import (
    SAME_DIRECTION,
    SEGMENT_BACK,
    SEGMENT_GAP,
    UPRIGHT,
    line_break_rule,
    reading_direction,
    unit_breaks,
)
from ragprep.extract.glyphs import GlyphTable, rows_at
from ragprep.extract.native import compiled_grids

Box = tuple[float, float, float, float]

# Segments of a row that is a running head whatever its other parts are: a
# chapter title beside the page number changes, the page number still runs.
_HEAD_PARTS = 3
_DIGITS = re.compile(r"\d+")


def masked_key(text: str) -> str:
    """Text compared across pages: digits masked (page numbers, dates),
    whitespace collapsed, case folded. ``chunk.normalise.boilerplate_key``
    is this key of the chunk-normalised text."""
    # str.split() splits at what the regex \s matches (str.isspace) and drops
    # both ends: the runs of white space collapsed and stripped, in one call.
    return " ".join(_DIGITS.sub("#", text).split()).casefold()


@dataclass(frozen=True, eq=False)
class BandLines:
    """The candidate lines of one page: line segments in the top or bottom band."""

    keys: tuple[str, ...]  # per line, its masked_key; a key appears once per band
    glyphs: np.ndarray  # glyph table indices of the lines' glyphs
    line: np.ndarray  # per entry of `glyphs`, the index of its line in `keys`
    row: np.ndarray  # per line, the index of its row (lines side by side)
    row_size: np.ndarray  # per row, its segments, candidates or not

    def mask(self, running: frozenset[str], size: int) -> np.ndarray:
        """Per glyph of a table of `size` rows: does it belong to a running
        line? A line is running when its key is, and its row is a running
        head's: at most _HEAD_PARTS segments (the left, centre and right slots
        of a header), or more of which at least half run (a printer's slug
        line). A table row whose status column happens to repeat ("Closure
        Permanent" beside dates, names and places) is none."""
        mask = np.zeros(size, dtype=bool)
        hit = np.fromiter((key in running for key in self.keys), dtype=bool, count=len(self.keys))
        if hit.any():
            running_in_row = np.bincount(self.row[hit], minlength=len(self.row_size))
            size_of_row = self.row_size[self.row]
            hit &= (size_of_row <= _HEAD_PARTS) | (2 * running_in_row[self.row] >= size_of_row)
            mask[self.glyphs[hit[self.line]]] = True
        return mask


_NONE = np.zeros(0, dtype=np.int64)
_NONE.flags.writeable = False  # shared by every page without candidates
NO_LINES = BandLines((), _NONE, _NONE, _NONE, _NONE)


def band_lines(table: GlyphTable, box: Box, config: ExtractConfig) -> BandLines:
    """The line segments of the page whose glyphs lie in its top or bottom
    band (``running_band`` of the visible box's height each), keyed: the
    band glyphs (_band_glyphs) cut into segments (_segments), the segments
    grouped into rows (_segment_rows), and the lines that are candidates on
    this page kept (_candidates). On most pages in one kernel call
    (_compiled_band_lines); the steps below where it declines."""
    whole = _compiled_band_lines(table, box, config)
    if whole is not None:
        return whole
    segments = _compiled_segments(table, box, config)
    if segments is None:
        segments = _reference_segments(table, box, config)
    if segments is None or not len(segments.glyphs):
        return NO_LINES
    segments = _pieces_joined(table, segments, config)
    keys = segments.keys
    keep = _candidates(keys, segments.in_top)
    if not keep.any():
        return NO_LINES
    # A row's size counts its inked segments, candidates or not.
    inked = np.array([bool(key) for key in keys])
    line = segments.line
    glyph_keep = keep[line]
    renumber = np.cumsum(keep) - 1
    return BandLines(
        keys=tuple(key for key, k in zip(keys, keep.tolist(), strict=True) if k),
        glyphs=segments.glyphs[glyph_keep],
        line=renumber[line[glyph_keep]],
        row=segments.row[keep],
        row_size=np.bincount(segments.row, weights=inked).astype(np.int64),
    )


def _compiled_band_lines(table: GlyphTable, box: Box, config: ExtractConfig) -> BandLines | None:
    """``band_lines`` in one call of extract/_grids.c's band_keys on a page
    written along (1, 0) where no two pieces of a row join (a head's left
    and right parts share a row on most pages, and join on almost none):
    its segments as band_lines' kernel cuts them, their masked keys, the
    candidates and their BandLines. None where the steps decide: another
    direction, pieces that join (_pieces_joined), or the kernel declines."""
    found = _band_kernel("band_keys", table, box, config)
    if found is None:
        return None
    answer, _ = found
    if not answer:
        return NO_LINES
    keys, data, glyphs = answer
    values = np.frombuffer(data, dtype=np.int64)
    lines = len(keys)
    return BandLines(
        keys, values[:glyphs], values[glyphs : 2 * glyphs], values[2 * glyphs : 2 * glyphs + lines], values[2 * glyphs + lines :]
    )


class _Segments(NamedTuple):
    """A page's band glyphs cut into segments, before candidates are chosen."""

    glyphs: np.ndarray  # the inked band glyphs, in stream order
    line: np.ndarray  # per glyph, its segment
    keys: list[str]  # per segment, its masked_key
    in_top: np.ndarray  # per segment, does it lie in the top band
    row: np.ndarray  # per segment, its row (segments side by side)


def _reference_segments(table: GlyphTable, box: Box, config: ExtractConfig) -> _Segments | None:
    """The band glyphs and their segments, step by step; None when there are none."""
    found = _band_glyphs(table, box, config)
    if found is None:
        return None
    glyphs, texts, up, middle = found
    start, keys = _segments(table, glyphs, texts, config)
    position, row = _segment_rows(table, glyphs[np.flatnonzero(start)], up)
    return _Segments(glyphs, np.cumsum(start) - 1, keys, position > middle, row)


def _compiled_segments(table: GlyphTable, box: Box, config: ExtractConfig) -> _Segments | None:
    """``_reference_segments`` in one call of extract/_grids.c's band_lines
    on a page written along (1, 0); None where the reference decides:
    another direction, or the kernel declines."""
    found = _band_kernel("band_lines", table, box, config)
    if found is None:
        return None
    (glyphs, line, position, row, texts), middle = found
    return _Segments(
        np.frombuffer(glyphs, dtype=np.int64),
        np.frombuffer(line, dtype=np.int64),
        [masked_key(text) for text in texts],
        np.frombuffer(position, dtype=np.float64) > middle,
        np.frombuffer(row, dtype=np.int64),
    )


def _band_kernel(name: str, table: GlyphTable, box: Box, config: ExtractConfig) -> tuple[Any, float] | None:
    """The answer of extract/_grids.c's band kernel `name` (band_lines or
    band_keys) on a page written along (1, 0) (across the lines is y, and
    the box's corners across them are its y edges), with the middle of the
    page across the lines; None where the kernel is not built, the box is
    not finite, the page is written another way, or the kernel declines."""
    grids = compiled_grids()
    low, high = min(float(box[1]), float(box[3])), max(float(box[1]), float(box[3]))
    if grids is None or not (math.isfinite(low) and math.isfinite(high)):
        return None
    top, bottom, middle = _bands(low, high, config)
    columns = (
        np.ascontiguousarray(table.visible), *(np.ascontiguousarray(c) for c in (table.quad, table.direction, table.wmode)),
        *(np.ascontiguousarray(c) for c in (table.origin, table.own_end, table.height)), table.text,
        top, bottom, SAME_DIRECTION,
    )  # fmt: skip
    ratios = (config.line_break_ratio, config.word_space_ratio, SEGMENT_GAP, SEGMENT_BACK)
    extra = (middle,) if name == "band_keys" else ()
    kernel = getattr(grids, name)
    # Every glyph upright: reading_direction's shortcut. Else (False) it is
    # the page's dominant direction, which is (1, 0) on most pages still.
    found = kernel(*columns, UPRIGHT, *ratios, *extra)
    if found is False and _along_x(table):
        found = kernel(*columns, -math.inf, *ratios, *extra)
    if found is None or found is False:
        return None
    return found, middle


def _pieces_joined(table: GlyphTable, segments: _Segments, config: ExtractConfig) -> _Segments:
    """`segments` with the pieces of one line joined: segments of a row that
    follow one another along it within a unit's gap (``unit_breaks``) are one
    segment, keyed in their order along the line. The stream cuts a line
    into segments wherever it paints its pieces apart ("NIST SP 800-" on one
    visit, "223" on another): a head painted so on some pages and whole on
    others would key differently from page to page and run on none (issue 19:
    the furniture of a page painted in another order is still its furniture).
    Python over the segments: a page has a handful."""
    rows = segments.row.tolist()
    if len(set(rows)) == len(rows) or _none_joined(table, segments):
        return segments  # no row holds two segments, or none of them join: nothing to join
    line = segments.line
    starts = np.searchsorted(line, np.arange(len(rows) + 1))  # line numbers its segments in stream order
    first, last = segments.glyphs[starts[:-1]], segments.glyphs[starts[1:] - 1]
    direction, origin = table.direction[first], table.origin[first]
    order = np.lexsort(((origin * direction).sum(axis=1), segments.row))
    prev, nxt = order[:-1], order[1:]
    gap = ((origin[nxt] - table.own_end[last[prev]]) * direction[prev]).sum(axis=1)
    height = table.height
    joined = (segments.row[prev] == segments.row[nxt]) & ~unit_breaks(
        np.zeros(len(gap), dtype=bool), gap, height[last[prev]], height[first[nxt]]
    )
    if not joined.any():
        return segments
    order = order.tolist()
    # A space between two pieces where the line has one: a word space's gap,
    # or a space glyph ending the piece before (its key lost it) or starting
    # the next.
    space = (gap > config.word_space_ratio * height[first[nxt]]) | [
        str(table.text[a]).isspace() or str(table.text[b]).isspace() for a, b in zip(last[prev], first[nxt], strict=True)
    ]
    group = np.empty(len(order), dtype=np.int64)
    group[order] = np.concatenate([[0], np.cumsum(~joined)])
    keys = [segments.keys[order[0]]]
    for k, segment in enumerate(order[1:]):
        key = segments.keys[segment]
        if not joined[k]:
            keys.append(key)
        elif space[k]:
            keys[-1] = masked_key(keys[-1] + " " + key)
        else:  # a digit run cut in two masks to one "#", as it would whole
            keys[-1] += key[1:] if keys[-1].endswith("#") and key.startswith("#") else key
    return _Segments(segments.glyphs, group[line], keys, _first_of(group, segments.in_top), _first_of(group, segments.row))


def _none_joined(table: GlyphTable, segments: _Segments) -> bool:
    """Does _pieces_joined's test join no two segments? Answered in one
    call of extract/_grids.c's band_joins where it is built (a head's left
    and right parts share a row on most pages, and join on almost none);
    False (the test runs) where it is not, or declines."""
    grids = compiled_grids()
    if grids is None:
        return False
    joins = grids.band_joins(
        *(np.ascontiguousarray(c) for c in (table.origin, table.own_end, table.direction, table.height)),
        *(np.ascontiguousarray(c, dtype=np.int64) for c in (segments.glyphs, segments.line, segments.row)),
        SEGMENT_GAP, SEGMENT_BACK,
    )  # fmt: skip
    return joins is False


def _first_of(group: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per group of `group` (numbered 0..n-1), the value of its first member in `values`."""
    out = np.empty(int(group.max()) + 1, dtype=values.dtype)
    out[group[::-1]] = values[::-1]
    return out


def _along_x(table: GlyphTable) -> bool:
    """Is the dominant writing direction of the page's visible glyphs (1, 0)?"""
    visible = np.flatnonzero(table.visible)
    if not len(visible):
        return False
    along = reading_direction(table, visible)
    return bool(along[0] == 1 and along[1] == 0)


def _band_glyphs(
    table: GlyphTable, box: Box, config: ExtractConfig
) -> tuple[np.ndarray, list[str], np.ndarray, float] | None:
    """The inked glyphs in the top or bottom band, in stream order, with
    their texts, the direction across the lines (``up``) and the middle of
    the page along it; None when there are none. Only glyphs in the page's
    writing direction, in horizontal writing, take part."""
    visible = np.flatnonzero(table.visible)
    if not len(visible):
        return None
    along = reading_direction(table, visible)
    up = np.array([-along[1], along[0]])
    corners = np.array([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]]) @ up
    top, bottom, middle = _bands(float(corners.min()), float(corners.max()), config)
    glyphs = _in_bands(table, visible, along, top, bottom)
    texts = table.text[glyphs].tolist()
    # Glyphs whose text an /ActualText replaced carry none (geometric.text_glyphs).
    inked_glyph = np.fromiter(map(bool, texts), dtype=bool, count=len(texts))
    if not inked_glyph.all():
        glyphs = glyphs[inked_glyph]
        texts = [t for t in texts if t]
    if not len(glyphs):
        return None
    return glyphs, texts, up, middle


def _bands(low: float, high: float, config: ExtractConfig) -> tuple[float, float, float]:
    """Across the lines of a page box from `low` to `high`: where the top
    band starts, where the bottom band ends (each running_band of the
    height), and the middle, which tells a segment of the top band from
    one of the bottom."""
    band = config.running_band * (high - low)
    return high - band, low + band, (low + high) / 2


def _in_bands(table: GlyphTable, visible: np.ndarray, along: np.ndarray, top: float, bottom: float) -> np.ndarray:
    """Of the glyphs `visible`, in order, those whose box centre across the
    lines is at least `top` or at most `bottom`, written in direction `along`
    in horizontal writing. On an upright page in one pass over them
    (extract/_grids.c band_glyphs: the same tests as below)."""
    grids = compiled_grids()
    if grids is not None and along[0] == 1 and along[1] == 0:
        out = np.empty(len(visible), dtype=np.int64)
        count = grids.band_glyphs(
            np.ascontiguousarray(table.quad), np.ascontiguousarray(table.direction), np.ascontiguousarray(table.wmode),
            np.ascontiguousarray(visible, dtype=np.int64), top, bottom, SAME_DIRECTION, out,
        )  # fmt: skip
        return out[:count]
    centre = _centres_across(table, visible, np.array([-along[1], along[0]]))
    glyphs = visible[(centre >= top) | (centre <= bottom)]
    kept: np.ndarray = glyphs[_along(table, glyphs, along) & (table.wmode[glyphs] == 0)]
    return kept


def _centres_across(table: GlyphTable, glyphs: np.ndarray, up: np.ndarray) -> np.ndarray:
    """Per glyph of `glyphs`, its box centre across the writing direction `up`: the
    middle of two opposite corners of its quad, projected,
    ``(quad[:, 0] + quad[:, 2]) @ (up / 2)``. Upright (`up` (0, 1)) that
    product is the corners' middle y exactly where their x sum is finite
    (x times 0 adds a zero, which leaves every comparison alone; an infinite
    or NaN x makes it NaN): so computed, on 1-D columns, since numpy loops
    over the (n, 2) corner rows two values at a time. Any other direction
    takes the product itself, over the glyphs' rows alone."""
    quad = table.quad
    if up[0] == 0 and up[1] == 1:
        with np.errstate(invalid="ignore", over="ignore"):  # the product's NaN and inf, silently as matmul
            x = quad[:, 0, 0] + quad[:, 2, 0]
            y = (quad[:, 0, 1] + quad[:, 2, 1]) * 0.5
        upright: np.ndarray = np.where(np.isfinite(x), y, np.nan)[glyphs]
        return upright
    centre: np.ndarray = (quad[glyphs, 0] + quad[glyphs, 2]) @ (up / 2)
    return centre


def _along(table: GlyphTable, glyphs: np.ndarray, along: np.ndarray) -> np.ndarray:
    """Per glyph of `glyphs`, is it written in direction `along` (cosine at
    least SAME_DIRECTION)? Along (1, 0) the cosine is the direction's x
    exactly where its y is finite (as in _centres_across)."""
    if along[0] == 1 and along[1] == 0:
        direction = table.direction
        level: np.ndarray = (np.take(direction[:, 0], glyphs) >= SAME_DIRECTION) & np.isfinite(np.take(direction[:, 1], glyphs))
        return level
    same: np.ndarray = rows_at(table.direction, glyphs) @ along >= SAME_DIRECTION
    return same


def _segments(
    table: GlyphTable, glyphs: np.ndarray, texts: list[str], config: ExtractConfig
) -> tuple[np.ndarray, list[str]]:
    """Per glyph (in stream order), does a segment start there, and per
    segment its masked_key. The geometric rules of join() in their simplest
    form: the line rule, and a space where the gap along the line is a
    word's. The text only needs to be the same on every page, not the page
    text."""
    start, space = _starts_and_spaces(table, glyphs, config)
    pieces = [" " + t if s else t for t, s in zip(texts, space.tolist(), strict=True)]
    bounds = [*np.flatnonzero(start).tolist(), len(glyphs)]
    return start, [masked_key("".join(pieces[a:b])) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def _starts_and_spaces(table: GlyphTable, glyphs: np.ndarray, config: ExtractConfig) -> tuple[np.ndarray, np.ndarray]:
    """Per glyph of `glyphs` (in stream order), does a segment start there,
    and does a space go before it? Compiled where every glyph is written
    along (1, 0) with finite measures (extract/_grids.c band_segments: there
    each product of the dot products below is exact, so it computes them)."""
    grids = compiled_grids()
    if grids is not None:
        start, space = np.empty(len(glyphs), dtype=bool), np.empty(len(glyphs), dtype=bool)
        done = grids.band_segments(
            np.ascontiguousarray(table.origin), np.ascontiguousarray(table.own_end),
            np.ascontiguousarray(table.height), np.ascontiguousarray(table.direction),
            np.ascontiguousarray(glyphs, dtype=np.int64), config.line_break_ratio, config.word_space_ratio,
            SEGMENT_GAP, SEGMENT_BACK, start, space,
        )  # fmt: skip
        if done is not None:
            return start, space
    direction, origin, height = rows_at(table.direction, glyphs), rows_at(table.origin, glyphs), table.height[glyphs]
    line_break, _, _ = line_break_rule(
        direction[:-1], direction[1:], origin[:-1], origin[1:], height[:-1], height[1:], config
    )
    gap = np.einsum("ij,ij->i", origin[1:] - rows_at(table.own_end, glyphs[:-1]), direction[:-1])
    # A line starts where layout mode starts a unit: at a line break, or at
    # a jump along the line wider than a glyph height or far back.
    start = np.ones(len(glyphs), dtype=bool)
    start[1:] = unit_breaks(line_break, gap, height[:-1], height[1:])
    space = np.zeros(len(glyphs), dtype=bool)
    space[1:] = gap > config.word_space_ratio * height[1:]
    return start, space


def _segment_rows(table: GlyphTable, first: np.ndarray, up: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per segment (its first glyph `first`), its position across the lines
    and its row. A row: segments whose first glyphs sit within half a glyph
    height of each other across the line, in the top band or the bottom one."""
    corners = rows_at(table.quad, first)  # gathered once, not per corner
    position = (corners[:, 0] + corners[:, 2]) @ (up / 2)
    by_position = np.argsort(position, kind="stable")
    new_row = np.diff(position[by_position]) > 0.5 * table.height[first][by_position][1:]
    row = np.empty(len(first), dtype=np.int64)
    row[by_position] = np.concatenate([[0], np.cumsum(new_row)])
    return position, row


def _candidates(keys: list[str], in_top: np.ndarray) -> np.ndarray:
    """Per segment, is it a candidate on this page? A key met twice in one
    band of the page is content, not a running head: table cells whose
    digits mask alike ("#/#/#" in every row), footnote marks beside the
    page number. Such lines, and blank segments (spaces between two parts
    of a line), are no candidates."""
    bands = list(zip(in_top.tolist(), keys, strict=True))
    seen = Counter(bands)
    return np.array([bool(key) and seen[band_key] == 1 for key, band_key in zip(keys, bands, strict=True)], dtype=bool)


def leaves_text(table: GlyphTable, running: np.ndarray) -> bool:
    """Would the page keep any text without the glyphs flagged `running`?
    A page whose whole text is the line it repeats (a slide deck's title on
    otherwise empty slides, a plan sheet's title block) keeps it: the rule
    removes furniture around content, and removing the only text would leave
    the document with nothing to find it by."""
    # The page's text glyphs (geometric.text_glyphs: visible, with text)
    # not flagged: the first inked one answers, and a page's text starts
    # with one almost always, so the texts are looked at one by one, not all
    # measured first; an empty text (an /ActualText's glyph) is no text.
    rest = np.flatnonzero(table.visible & ~running)
    texts = table.text
    # In growing slices: the first few answer almost always, and making a
    # Python int of every index of the page cost more than the question.
    start, step = 0, 16
    while start < len(rest):
        if any(texts[k] and not texts[k].isspace() for k in rest[start : start + step].tolist()):
            return True
        start, step = start + step, 4 * step
    return False


def running_mask(table: GlyphTable, lines: BandLines, running: frozenset[str]) -> np.ndarray:
    """The glyphs of `table` in its running lines (BandLines.mask, the keys
    `running` running), none when they would be all of the page's text
    (leaves_text: a page whose only text is its running line keeps it). In
    one call of extract/_grids.c's band_mask where it is built."""
    if not lines.keys:
        return np.zeros(len(table), dtype=bool)  # no candidate lines: nothing runs
    grids = compiled_grids()
    if grids is not None:
        mask = np.zeros(len(table), dtype=bool)
        columns = (lines.glyphs, lines.line, lines.row, lines.row_size)
        if grids.band_mask(lines.keys, running, *columns, _HEAD_PARTS, table.visible, table.text, mask) is not None:
            return mask
    mask = lines.mask(running, len(table))
    if mask.any() and not leaves_text(table, mask):
        mask[:] = False
    return mask


def _threshold(pages: int, config: ExtractConfig) -> int:
    """Pages a key must appear on, of `pages`, to be running."""
    return max(config.running_min_pages, math.ceil(config.running_min_share * pages - 1e-9))


class KeyTally:
    """Pages per key over the pages of one pass, counted as they come.

    A key is running when it appears on at least the threshold share of the
    pages, or of the odd pages, or of the even pages: books and journals set
    their heads recto and verso ("4 FREE CULTURE" on the left-hand pages,
    the chapter on the right-hand ones), and each side's head is on half the
    pages, or a page short of it. Knowing how many pages of each side are
    still to come, a key is decided before the end: running once a count
    reaches its threshold, not running once none can any more. A page whose
    keys are all decided can be read at once; only the others wait for the
    end of the pass. Local to one call of ``Document.extract_pages``.
    """

    def __init__(self, numbers: Sequence[int], config: ExtractConfig) -> None:
        # Groups: 0 the even pages, 1 the odd ones, 2 all of them.
        odd = sum(n % 2 for n in numbers)
        pages = (len(numbers) - odd, odd, len(numbers))
        self.threshold = tuple(_threshold(p, config) for p in pages)
        self.remaining = list(pages)
        self.counts: tuple[Counter[str], Counter[str], Counter[str]] = (Counter(), Counter(), Counter())

    def add(self, keys: Iterable[str], number: int) -> None:
        """Count the keys of page `number` (each once)."""
        keys = set(keys)
        for group in (number % 2, 2):
            self.counts[group].update(keys)
            self.remaining[group] -= 1

    # The three groups spelled out, and a missing key read as 0 by get():
    # asked for every band line of every page, where generators over the
    # groups and Counter.__missing__ (a Python call per unseen key) cost
    # more than the counting.
    def is_running(self, key: str) -> bool:
        (even, odd, every), (t_even, t_odd, t_every) = self.counts, self.threshold
        return even.get(key, 0) >= t_even or odd.get(key, 0) >= t_odd or every.get(key, 0) >= t_every

    def decided(self, keys: Iterable[str]) -> bool:
        """Is every key of `keys` running already, or unable to reach a
        threshold in any group on the pages left?"""
        (even, odd, every), (t_even, t_odd, t_every) = self.counts, self.threshold
        left_even, left_odd, left_every = self.remaining
        for key in keys:
            n_even, n_odd, n_every = even.get(key, 0), odd.get(key, 0), every.get(key, 0)
            if n_even >= t_even or n_odd >= t_odd or n_every >= t_every:
                continue
            if n_even + left_even < t_even and n_odd + left_odd < t_odd and n_every + left_every < t_every:
                continue
            return False
        return True

    def running(self, keys: Iterable[str]) -> frozenset[str]:
        return frozenset(k for k in keys if self.is_running(k))
