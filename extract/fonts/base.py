"""What a font hands the interpreter: per-glyph text and advances for one string.

The interpreter never looks inside a font dictionary; it calls ``Font.decode`` on
the bytes of a show-text operand and positions the glyphs column-wise from the
arrays returned here (ISO 32000-1 §9.4.4).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

REPLACEMENT = "\ufffd"


@dataclass(frozen=True, eq=False)
class DecodedString:
    """One show-text string split into glyphs (one entry per character code).

    All arrays have one element per glyph. Fonts cache decoded strings and
    hand the same arrays to every caller: treat them as read-only.
    """

    # Unicode per glyph: ToUnicode, else encoding + glyph name, else the
    # embedded font's cmap; U+FFFD where nothing maps. May hold several
    # characters (ligatures) or be empty (a code mapped to nothing).
    texts: tuple[str, ...]
    # Horizontal advance w0 in text space per unit font size: glyph width / 1000
    # for most fonts, width x FontMatrix[0] for Type3 (§9.2.4, §9.6.5).
    widths: np.ndarray
    # Vertical advance w1 per unit font size for writing mode 1 (negative = down,
    # /W2 + /DW2, default -1.0, §9.7.4.3); zeros for horizontal fonts.
    vertical_widths: np.ndarray
    # True where the code is the single byte 32: word spacing Tw applies (§9.3.3).
    word_space: np.ndarray
    # True where the text is U+FFFD because nothing mapped the code.
    undecodable: np.ndarray
    # Character codes as integers (for --why and debugging).
    codes: np.ndarray

    def __len__(self) -> int:
        return len(self.texts)

    @cached_property
    def advance_sums(self) -> tuple[float, float, int]:
        """(sum of widths, sum of vertical widths, number of word-space codes):
        enough to move the text matrix past the whole string without per-glyph
        work (§9.4.4). Cached with the string, which fonts cache per bytes."""
        # Python sums over lists beat numpy reductions on strings this short.
        return sum(self.widths.tolist()), sum(self.vertical_widths.tolist()), sum(self.word_space.tolist())
