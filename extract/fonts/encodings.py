"""Simple-font encodings: the glyph name each one-byte code selects (ISO 32000-1 §9.6.6).

A simple font's /Encoding is a base encoding name, or a dictionary with an
optional /BaseEncoding and a /Differences array; codes the base leaves empty
and no difference names have no glyph name (and so no Unicode from here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragprep.extract.fonts import encoding_tables as tables
from ragprep.extract.fonts import pdfvalues as pv

# The four base encodings a font dictionary may name (§9.6.6.1, Table 114).
BASE_ENCODINGS: Mapping[str, Mapping[int, str]] = {
    "StandardEncoding": tables.STANDARD,
    "WinAnsiEncoding": tables.WIN_ANSI,
    "MacRomanEncoding": {**tables.MAC_ROMAN, **tables.MAC_OS_ROMAN_SYMBOLS},
    "MacExpertEncoding": tables.MAC_EXPERT,
}

# Built-in encodings of the two symbolic standard fonts (Annex D.5, D.6): the
# implicit base when the font dictionary names no base encoding.
BUILTIN_ENCODINGS: Mapping[str, Mapping[int, str]] = {
    "Symbol": tables.SYMBOL,
    "ZapfDingbats": tables.ZAPF_DINGBATS,
}

GlyphNames = list[str | None]


def parse_differences(value: Any) -> tuple[dict[int, str], list[str]]:
    """Code -> glyph name from a /Differences array (§9.6.6.1).

    The array is a code followed by the names of consecutive codes, repeated:
    ``[39 /quotesingle 96 /grave /a]``. Codes outside 0..255 are dropped.
    """
    items = pv.array(value)
    if items is None:
        return {}, ["/Differences is not an array; ignored"]
    differences: dict[int, str] = {}
    warnings: list[str] = []
    code: int | None = None
    for item in items:
        glyph = pv.name(item)
        if glyph is not None:
            if code is None:
                warnings.append("/Differences starts with a name instead of a code")
                continue
            if 0 <= code <= 255:
                differences[code] = glyph
            code += 1
        elif pv.is_number(item):
            code = pv.integer(item)
        else:
            warnings.append("/Differences holds a value that is neither a code nor a name; skipped")
    return differences, warnings


def glyph_names(base: Mapping[int, str] | None, differences: Mapping[int, str]) -> GlyphNames:
    """The 256 glyph names of an encoding: the base with the differences applied."""
    names: GlyphNames = [None] * 256
    if base is not None:
        for code, glyph in base.items():
            names[code] = glyph
    for code, glyph in differences.items():
        names[code] = glyph
    return names


def apply_names(names: GlyphNames, source: Mapping[int, str], codes: Sequence[int]) -> None:
    """Fill ``codes`` from ``source`` (used when a built-in encoding becomes known late)."""
    for code in codes:
        if names[code] is None and code in source:
            names[code] = source[code]
