"""The encoding and standard-font tables against independent references.

WinAnsiEncoding is Windows code page 1252 and MacRomanEncoding is Mac OS
Roman, both defined in Annex D by glyph names; Python's own codecs are an
independent check, with the differences Annex D itself states.
"""

from __future__ import annotations

import unicodedata

import pytest
from fontTools.encodings.StandardEncoding import StandardEncoding as FONTTOOLS_STANDARD

from ragprep.extract.fonts.encoding_tables import MAC_EXPERT, STANDARD, SYMBOL, WIN_ANSI, ZAPF_DINGBATS
from ragprep.extract.fonts.encodings import BASE_ENCODINGS
from ragprep.extract.fonts.names import TEX_GLYPH_NAMES, glyph_name_to_unicode
from ragprep.extract.fonts.standard14 import standard_font_name, standard_metrics


def text_of(table: dict[int, str], code: int) -> str | None:
    return glyph_name_to_unicode(table[code]) if code in table else None


def test_win_ansi_is_cp1252_except_where_annex_d_says_otherwise():
    for code in range(0x20, 0x100):
        try:
            expected = bytes([code]).decode("cp1252") if code != 0x7F else ""
        except UnicodeDecodeError:
            expected = ""
        if not expected:
            # Annex D.2 note: unused codes above 40 (octal), DEL included, show the bullet.
            expected = "\u2022"
        if code == 0xA0:
            expected = " "  # note: space is also encoded as 240 (octal)
        if code == 0xAD:
            expected = "-"  # note: hyphen is also encoded as 255 (octal)
        assert text_of(WIN_ANSI, code) == expected, hex(code)


def test_mac_roman_is_mac_os_roman_except_where_annex_d_differs():
    table = BASE_ENCODINGS["MacRomanEncoding"]
    differences = {
        0xCA: " ",  # Annex D: space is also encoded as 312 (octal), not no-break space
        0xDB: "\u00a4",  # Annex D keeps currency here; Mac OS Roman later put the euro sign there
        0xBD: "\u2126",  # glyph "Omega": the AGL maps it to OHM SIGN
        0xF0: None,  # "apple" is not in the PDF table
    }
    for code in range(0x20, 0x100):
        if code == 0x7F:
            continue
        expected = differences.get(code, bytes([code]).decode("mac_roman"))
        assert text_of(table, code) == expected, hex(code)


def test_standard_encoding_matches_fonttools():
    assert {code: name for code, name in enumerate(FONTTOOLS_STANDARD) if name != ".notdef"} == STANDARD


def test_symbol_zapf_dingbats_and_mac_expert_spot_checks():
    # Table D.5: 141 alpha, 104 Delta, 245 infinity; D.6: 041 a1 (U+2701), 154 a71 (U+25CF);
    # D.4: 141 Asmall, 373 Ringsmall.
    assert (SYMBOL[0o141], SYMBOL[0o104], SYMBOL[0o245]) == ("alpha", "Delta", "infinity")
    assert (MAC_EXPERT[0o141], MAC_EXPERT[0o373]) == ("Asmall", "Ringsmall")
    assert ZAPF_DINGBATS[0o041] == "a1"
    assert glyph_name_to_unicode("a1", zapf_dingbats=True) == "\u2701"
    assert glyph_name_to_unicode(ZAPF_DINGBATS[0o154], zapf_dingbats=True) == "\u25cf"


@pytest.mark.parametrize(
    ("glyph", "expected"),
    [
        ("A", "A"),
        ("uni0041", "A"),
        ("uni00410042", "AB"),
        ("u1F600", "\U0001f600"),
        ("f_i", "fi"),
        ("T.swash", "T"),
        ("uni00e9", "\u00e9"),  # lowercase digits: tolerated
        ("g123", None),
        ("cid123", None),
        ("glyph12", None),
        (".notdef", None),
        ("uniD800", None),  # surrogates are not characters
    ],
)
def test_glyph_names(glyph, expected):
    assert glyph_name_to_unicode(glyph) == expected


def test_tex_glyph_names_point_at_the_intended_characters():
    expected_names = {
        "mapsto": "RIGHTWARDS ARROW FROM BAR",
        "owner": "CONTAINS AS MEMBER",
        "angbracketleft": "MATHEMATICAL LEFT ANGLE BRACKET",
        "bardbl": "PARALLEL TO",
        "rho1": "GREEK RHO SYMBOL",
        "lscript": "SCRIPT SMALL L",
        "prime": "PRIME",
        "summationdisplay": "N-ARY SUMMATION",
        "parenleftBig": "LEFT PARENTHESIS",
    }
    for glyph, name in expected_names.items():
        assert unicodedata.name(TEX_GLYPH_NAMES[glyph]) == name
        assert glyph_name_to_unicode(glyph) == TEX_GLYPH_NAMES[glyph]
    # An AGL name keeps its AGL meaning even where TeX disagrees.
    assert glyph_name_to_unicode("diamond") == "\u2666"


def test_symbol_font_reads_greek_where_the_agl_prefers_math_symbols():
    assert glyph_name_to_unicode("Delta") == "\u2206"
    assert glyph_name_to_unicode("Delta", symbol_font=True) == "\u0394"
    assert glyph_name_to_unicode("mu", symbol_font=True) == "\u03bc"


@pytest.mark.parametrize(
    ("base_font", "standard"),
    [
        ("Helvetica", "Helvetica"),
        ("ABCDEF+Helvetica-Bold", "Helvetica-Bold"),
        ("Arial", "Helvetica"),
        ("ArialMT", "Helvetica"),
        ("Arial,Bold", "Helvetica-Bold"),
        ("Arial,BoldItalic", "Helvetica-BoldOblique"),
        ("Arial-ItalicMT", "Helvetica-Oblique"),
        ("TimesNewRoman", "Times-Roman"),
        ("TimesNewRomanPS-BoldMT", "Times-Bold"),
        ("TimesNewRoman,Italic", "Times-Italic"),
        ("CourierNew", "Courier"),
        ("CourierNewPS-BoldItalicMT", "Courier-BoldOblique"),
        ("Symbol", "Symbol"),
        ("ZapfDingbats", "ZapfDingbats"),
        ("Helvetica-Narrow", None),  # different metrics
        ("Arial-Black", None),
        ("Calibri", None),
    ],
)
def test_standard_font_names(base_font, standard):
    assert standard_font_name(base_font) == standard


def test_standard_metrics_from_the_adobe_afm_files():
    helvetica = standard_metrics("Helvetica")
    assert helvetica is not None
    assert (helvetica.width("a"), helvetica.width("space"), helvetica.width("quoteright")) == (556, 278, 222)
    assert helvetica.width("no-such-glyph") is None
    assert standard_metrics("Times-Roman").width("a") == 444
    assert standard_metrics("Courier-Bold").width("W") == 600
    symbol = standard_metrics("Symbol")
    assert (symbol.width("alpha"), symbol.width("space")) == (631, 250)
    assert standard_metrics("ZapfDingbats").width("a1") == 974
