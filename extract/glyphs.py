"""The glyph table: one row per shown glyph, stored column-wise.

Every glyph the page and its form XObjects paint is a row, visible or not;
page text is computed from the table, never from Python objects per glyph.
Coordinates are PDF user space of the page (before /Rotate).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ragprep.extract.native import compiled_core

# `stream` value of glyphs painted by the page's own content stream; form
# XObjects are identified by their object number (always > 0).
PAGE_STREAM = 0
# `mcid` value of glyphs outside any marked-content sequence with an /MCID.
NO_MCID = -1


def core_texts(texts: np.ndarray | list[str]) -> np.ndarray | list[str]:
    """`texts` as the compiled core's text_edges reads them: a list, or an
    object array it reads in place (no list of the glyphs made per call)."""
    return texts if isinstance(texts, list) else np.ascontiguousarray(texts, dtype=object)


def text_lengths(texts: np.ndarray | list[str]) -> np.ndarray:
    """The length of every text."""
    core = compiled_core()
    if core is not None:
        return np.frombuffer(core.text_edges(core_texts(texts))[0], dtype=np.int64)
    return np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))


def rows_at(column: np.ndarray, index: np.ndarray) -> np.ndarray:
    """column[index] for an integer `index` (never a mask): the rows of a
    2-D column (origin, direction, own_end, quad) gathered by np.take,
    which copies them about ten times faster than fancy indexing, whose
    loop copies each row of two doubles by a call of its own."""
    return np.take(column, index, axis=0)


@dataclass(frozen=True, eq=False)
class GlyphTable:
    # Unicode per glyph (object array of str); "" for glyphs whose text an
    # enclosing /ActualText replaced (the span's first glyph carries it).
    text: np.ndarray
    # Baseline start of the glyph (n, 2).
    origin: np.ndarray
    # origin + font advance x size x Tz along the writing direction: the end of
    # the glyph's own width, without Tc/Tw (n, 2).
    own_end: np.ndarray
    # Where the pen goes after the glyph: advance plus Tc, Tw, all x Tz
    # (§9.4.4) (n, 2).
    pen_end: np.ndarray
    # Unit vector of the writing direction after Tm x CTM (n, 2).
    direction: np.ndarray
    # Corners of the glyph box (n, 4, 2): origin-descent, end-descent,
    # end-ascent, origin-ascent.
    quad: np.ndarray
    # Length of the box's ascent-descent side (n,).
    height: np.ndarray
    # Innermost open marked-content MCID, NO_MCID when none (§14.7.4.2).
    mcid: np.ndarray
    # Stream whose BDC opened that MCID (PAGE_STREAM or the form's object number):
    # MCIDs are scoped to the stream that carries them (§14.7.4.3, /Stm).
    mcid_stream: np.ndarray
    # Stream that painted the glyph: PAGE_STREAM or the form XObject's object number.
    stream: np.ndarray
    # Index of the show operator among the page stream's interpreted operators
    # (stream order); -1 for glyphs painted by forms.
    token_index: np.ndarray
    # Text rendering mode Tr at show time (§9.3.6); 3 is invisible (OCR layers).
    render_mode: np.ndarray
    # 0 horizontal, 1 vertical writing mode of the font (§9.7.4.3).
    wmode: np.ndarray
    # Inside an /Artifact marked-content sequence (§14.8.2.2).
    artifact: np.ndarray
    # True where nothing mapped the character code to Unicode (text is U+FFFD).
    undecodable: np.ndarray
    # Box centre inside the visible box (CropBox clipped to MediaBox, §14.11.2)
    # and inside the /BBox of every form that painted it (§8.10.1).
    visible: np.ndarray
    # Index into `fonts` of the font that showed the glyph.
    font: np.ndarray
    # Font names (/BaseFont) referenced by `font`.
    fonts: tuple[str, ...]
    # Font size in user space (Tfs scaled by Tm x CTM, across the writing direction).
    font_size: np.ndarray

    def __len__(self) -> int:
        return len(self.text)

    @cached_property
    def text_rows(self) -> np.ndarray:
        """Indices, in content-stream order, of the glyphs that can be page
        text: visible, and with text (glyphs an /ActualText replaced carry
        none). Found once per table (its columns are never written in place,
        a table with other ones is another table): a layout page asks in its
        reading and again in table detection, an auto page in structure and
        again in layout. Read-only, as it is shared."""
        rows = np.flatnonzero(self.visible & (text_lengths(self.text) > 0))
        rows.flags.writeable = False
        return rows

    def select(self, index: np.ndarray) -> "GlyphTable":
        """Rows at `index` (a boolean mask or integer indices), same fonts."""
        return self._columnwise(self, lambda mine, _: mine[index])

    def _columnwise(self, other: "GlyphTable", join: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> "GlyphTable":
        """The table whose every column is ``join`` of this table's column and
        `other`'s, with this table's fonts."""
        return GlyphTable(
            text=join(self.text, other.text),
            origin=join(self.origin, other.origin),
            own_end=join(self.own_end, other.own_end),
            pen_end=join(self.pen_end, other.pen_end),
            direction=join(self.direction, other.direction),
            quad=join(self.quad, other.quad),
            height=join(self.height, other.height),
            mcid=join(self.mcid, other.mcid),
            mcid_stream=join(self.mcid_stream, other.mcid_stream),
            stream=join(self.stream, other.stream),
            token_index=join(self.token_index, other.token_index),
            render_mode=join(self.render_mode, other.render_mode),
            wmode=join(self.wmode, other.wmode),
            artifact=join(self.artifact, other.artifact),
            undecodable=join(self.undecodable, other.undecodable),
            visible=join(self.visible, other.visible),
            font=join(self.font, other.font),
            fonts=self.fonts,
            font_size=join(self.font_size, other.font_size),
        )

    @classmethod
    def empty(cls, fonts: tuple[str, ...] = ()) -> "GlyphTable":
        def column(dtype: type, *shape: int) -> np.ndarray:
            return np.zeros((0, *shape), dtype=dtype)

        return cls(
            text=column(object),
            origin=column(np.float64, 2),
            own_end=column(np.float64, 2),
            pen_end=column(np.float64, 2),
            direction=column(np.float64, 2),
            quad=column(np.float64, 4, 2),
            height=column(np.float64),
            mcid=column(np.int64),
            mcid_stream=column(np.int64),
            stream=column(np.int64),
            token_index=column(np.int64),
            render_mode=column(np.int8),
            wmode=column(np.int8),
            artifact=column(bool),
            undecodable=column(bool),
            visible=column(bool),
            font=column(np.int32),
            fonts=fonts,
            font_size=column(np.float64),
        )

    def with_text_rows(
        self,
        texts: list[str],
        boxes: list[tuple[float, float, float, float]],
        mcids: list[int],
        mcid_streams: list[int],
    ) -> "GlyphTable":
        """The table plus one row per text that no glyph carries (a Figure's
        /Alt, §14.9.3): the row spans its box left to right along its bottom
        edge, is visible, and belongs to no font."""
        n = len(texts)
        box = np.array(boxes, dtype=np.float64).reshape(n, 4)
        x0, y0, x1, y1 = box.T
        origin = np.stack([x0, y0], axis=1)
        end = np.stack([x1, y0], axis=1)
        quad = np.stack([origin, end, np.stack([x1, y1], axis=1), np.stack([x0, y1], axis=1)], axis=1)
        text = np.empty(n, dtype=object)
        text[:] = texts
        added = GlyphTable(
            text=text,
            origin=origin,
            own_end=end,
            pen_end=end,
            direction=np.tile([1.0, 0.0], (n, 1)),
            quad=quad,
            height=y1 - y0,
            mcid=np.array(mcids, dtype=np.int64),
            mcid_stream=np.array(mcid_streams, dtype=np.int64),
            stream=np.array(mcid_streams, dtype=np.int64),
            token_index=np.full(n, -1, dtype=np.int64),
            render_mode=np.zeros(n, dtype=np.int8),
            wmode=np.zeros(n, dtype=np.int8),
            artifact=np.zeros(n, dtype=bool),
            undecodable=np.zeros(n, dtype=bool),
            visible=np.ones(n, dtype=bool),
            font=np.full(n, -1, dtype=np.int32),
            fonts=self.fonts,
            font_size=np.zeros(n),
        )
        return self._columnwise(added, lambda mine, more: np.concatenate([mine, more]))


@dataclass(frozen=True)
class ImagePlacement:
    """Where an image XObject was painted (its unit square under the CTM,
    §8.9.4) and the marked content around it: a tagged Figure's /Alt text
    has no glyphs, so this is where its text belongs."""

    bbox: tuple[float, float, float, float]
    mcid: int
    mcid_stream: int
