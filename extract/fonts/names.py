"""Glyph names to Unicode (ISO 32000-1 §9.10.2, Adobe Glyph List specification).

fontTools implements the AGL specification's algorithm: ligature components
joined by "_" (``f_i`` -> "fi"), ``uniXXXX[XXXX...]`` and ``uXXXX[XX]`` forms,
suffixes after "." dropped (``a.sc`` -> "a"), surrogate code points refused,
and the ZapfDingbats list (``a1`` -> U+2701) when asked for. Names that carry
no Unicode (``g123``, ``cid123``, ``glyph12``, ``.notdef``) give None.

Two lenient additions, both only for names the AGL does not know: the glyph
names of the TeX math fonts, and uniXXXX/uXXXX names with lowercase digits.
"""

from __future__ import annotations

import functools

import re
from collections.abc import Mapping

from fontTools import agl

# The AGL maps these names to mathematical symbols first (Delta -> U+2206
# INCREMENT, Omega -> U+2126 OHM SIGN, mu -> U+00B5 MICRO SIGN). In the
# standard Symbol font the glyphs are the Greek letters of a Greek alphabet
# (Table D.5 sits them between Gamma and Epsilon), so that font maps them to the
# Greek block, as Adobe's own Symbol-to-Unicode table does.
SYMBOL_FONT_GREEK: Mapping[str, str] = {"Delta": "\u0394", "Omega": "\u03a9", "mu": "\u03bc"}


def _tex_glyph_names() -> dict[str, str]:
    """Glyph names of the TeX math fonts (Computer Modern cmsy/cmmi/cmex, AMS
    msam/msbm) that the AGL lacks. pdfTeX documents without ToUnicode maps
    show their mathematics through these names."""
    table = {
        "owner": "\u220b", "triangle": "\u25b3", "triangleinv": "\u25bd", "negationslash": "\u0338",
        "mapsto": "\u21a6", "Rfractur": "\u211c", "Ifractur": "\u2111",
        "angbracketleft": "\u27e8", "angbracketright": "\u27e9", "bardbl": "\u2225",
        "rho1": "\u03f1", "epsilon1": "\u03b5", "subsetnoteql": "\u228a", "supsetnoteql": "\u228b",
        "notexistential": "\u2204", "similarequal": "\u2243",
        "arrownortheast": "\u2197", "arrowsoutheast": "\u2198", "arrownorthwest": "\u2196",
        "arrowsouthwest": "\u2199", "arrowhookleft": "\u21a9", "arrowhookright": "\u21aa",
        "circleminus": "\u2296", "circledivide": "\u2298", "circledot": "\u2299",
        "equivasymptotic": "\u224d", "follows": "\u227b", "lessmuch": "\u226a", "greatermuch": "\u226b",
        "unionmulti": "\u228e", "intersectionsq": "\u2293", "unionsq": "\u2294",
        "subsetsqequal": "\u2291", "supersetsqequal": "\u2292",
        "turnstileleft": "\u22a2", "turnstileright": "\u22a3", "latticetop": "\u22a4",
        "floorleft": "\u230a", "floorright": "\u230b", "ceilingleft": "\u2308", "ceilingright": "\u2309",
        "wreathproduct": "\u2240", "coproduct": "\u2210", "visiblespace": "\u2423", "prime": "\u2032",
        "diamondmath": "\u22c4", "lscript": "\u2113", "star": "\u22c6",
        "slurbelow": "\u2323", "slurabove": "\u2322", "triangleright": "\u25b7", "triangleleft": "\u25c1",
        "square": "\u25a1", "squaresolid": "\u25a0",
    }
    # cmex delimiters come in four sizes (parenleftbig ... parenleftBigg).
    delimiters = {
        "parenleft": "(", "parenright": ")", "bracketleft": "[", "bracketright": "]",
        "braceleft": "{", "braceright": "}", "floorleft": "\u230a", "floorright": "\u230b",
        "ceilingleft": "\u2308", "ceilingright": "\u2309", "angbracketleft": "\u27e8",
        "angbracketright": "\u27e9", "slash": "/", "backslash": "\\", "radical": "\u221a",
    }
    for base, text in delimiters.items():
        for size in ("big", "Big", "bigg", "Bigg"):
            table[base + size] = text
    # cmex operators in text and display sizes (summationtext, summationdisplay ...).
    operators = {
        "summation": "\u2211", "product": "\u220f", "coproduct": "\u2210", "integral": "\u222b",
        "contintegral": "\u222e", "union": "\u22c3", "intersection": "\u22c2",
        "unionmulti": "\u228e", "unionsq": "\u2294", "logicaland": "\u22c0", "logicalor": "\u22c1",
        "circleplus": "\u2a01", "circlemultiply": "\u2a02", "circledot": "\u2a00",
    }
    for base, text in operators.items():
        table[base + "text"] = text
        table[base + "display"] = text
    return table


TEX_GLYPH_NAMES: Mapping[str, str] = _tex_glyph_names()


def glyph_name_to_unicode(
    glyph: str,
    *,
    zapf_dingbats: bool = False,
    symbol_font: bool = False,
) -> str | None:
    """The Unicode text of a glyph name, or None when the name carries none."""
    if not glyph or glyph == ".notdef":
        return None
    if symbol_font and glyph in SYMBOL_FONT_GREEK:
        return SYMBOL_FONT_GREEK[glyph]
    try:
        text = str(agl.toUnicode(glyph, isZapfDingbats=zapf_dingbats))
    except MemoryError:
        raise  # the document fails (MemoryLimitError), never a warning
    except Exception:  # fontTools rejects odd input with assorted exceptions
        return None
    if text:
        return text
    base = glyph.split(".", 1)[0]
    return TEX_GLYPH_NAMES.get(base) or _lowercase_hex_name(base)


# The AGL specification wants uppercase digits in uniXXXX/uXXXX names, but
# producers write "uni00e9" often enough that readers (pdf.js, pdfminer.six)
# accept lowercase; so does ragprep, for names without "_" components.
_LOWER_UNI = re.compile(r"uni((?:[0-9a-fA-F]{4})+)|u([0-9a-fA-F]{4,6})")


def _lowercase_hex_name(glyph: str) -> str | None:
    match = _LOWER_UNI.fullmatch(glyph)
    if match is None:
        return None
    if match.group(1):
        digits = match.group(1)
        values = [int(digits[i : i + 4], 16) for i in range(0, len(digits), 4)]
    else:
        values = [int(match.group(2), 16)]
    if any(0xD800 <= v <= 0xDFFF or v > 0x10FFFF for v in values):
        return None
    return "".join(map(chr, values))


# Bitmap Type3 fonts from dvips and some PDF libraries name glyphs after their
# own code ("/a65" at code 65). pdf.js and poppler read such names as the code
# itself; we do so only when the number equals the code it is mapped at, which
# rules out glyph-index names like "g123" in subset TrueType fonts.
_NUMBERED_NAME = re.compile(r"[A-Za-z]{1,2}(\d{1,3})")
# Codes 11-15 of TeX's text fonts (OT1, T1 share them) are the f-ligatures.
_TEX_LIGATURES = {11: "ff", 12: "fi", 13: "fl", 14: "ffi", 15: "ffl"}


def numbered_glyph_text(glyph: str, code: int) -> str | None:
    """Text of a glyph named after its own code, or None."""
    match = _NUMBERED_NAME.fullmatch(glyph)
    if match is None or int(match.group(1)) != code:
        return None
    if 32 <= code < 127:
        return chr(code)
    return _TEX_LIGATURES.get(code)


@functools.lru_cache(maxsize=512)
def encoding_texts(names: tuple[str | None, ...], zapf_dingbats: bool, symbol_font: bool) -> tuple[str | None, ...]:
    """Per code, the text of the glyph an encoding names there (None where it
    names none or the name carries no text): ``glyph_name_to_unicode``, else
    ``numbered_glyph_text``.

    Memoized, bounded: simple fonts of most documents use a handful of
    encodings (a base encoding with the same few /Differences), and each
    font would otherwise look its 256 names up one by one. This is no
    mutable global state: the function is pure (its result depends only on
    its arguments and on the bundled, immutable glyph lists), so a cached
    answer is the answer, whatever document asked first."""
    texts: list[str | None] = []
    for code, glyph in enumerate(names):
        text = None
        if glyph is not None:
            text = glyph_name_to_unicode(glyph, zapf_dingbats=zapf_dingbats, symbol_font=symbol_font)
            text = text or numbered_glyph_text(glyph, code)
        texts.append(text)
    return tuple(texts)
