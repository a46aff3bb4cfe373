"""Simple fonts and the loader (ISO 32000-1 §9.6, §9.10).

Font dictionaries are built with pikepdf; expected texts and widths come from
the specification's tables (Annex D), the Adobe core-font metrics and the
rules of §9.6.6 and §9.10.2, not from this code's output.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pikepdf
import pytest
from pikepdf import Array, Dictionary, Name, String

from ragprep.extract.fonts import REPLACEMENT, DecodedString, Font, FontLoader, SingleByteFont

TOUNICODE_HEADER = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
TOUNICODE_FOOTER = b"endcmap CMapName currentdict /CMap defineresource pop end end\n"


@pytest.fixture()
def pdf() -> pikepdf.Pdf:
    return pikepdf.new()


def font(pdf: pikepdf.Pdf, **entries: object) -> pikepdf.Object:
    return pdf.make_indirect(Dictionary(Type=Name.Font, **entries))


def tounicode(pdf: pikepdf.Pdf, body: bytes) -> pikepdf.Object:
    return pikepdf.Stream(pdf, TOUNICODE_HEADER + body + TOUNICODE_FOOTER)


def decode(font_obj: pikepdf.Object, data: bytes) -> tuple[Font, DecodedString]:
    loaded = FontLoader().get(font_obj)
    return loaded, loaded.decode(data)


# -- encodings -----------------------------------------------------------------


def test_win_ansi_with_differences(pdf):
    f = font(
        pdf,
        Subtype=Name.Type1,
        BaseFont=Name.Helvetica,
        Encoding=Dictionary(
            Type=Name.Encoding,
            BaseEncoding=Name.WinAnsiEncoding,
            Differences=Array([0x41, Name.B, 0xE9, Name.ccedilla, Name.oslash]),
        ),
    )
    _, d = decode(f, b"A\x92\x80\xe9\xea\xeb\x7f\xad")
    # 41 -> B and E9, EA -> ccedilla, oslash by /Differences; 92 quoteright,
    # 80 Euro, EB edieresis, 7F bullet, AD hyphen by WinAnsiEncoding (Table D.2).
    assert d.texts == ("B", "\u2019", "\u20ac", "\u00e7", "\u00f8", "\u00eb", "\u2022", "-")
    assert not d.undecodable.any()


def test_standard_encoding_is_the_default_for_a_nonsymbolic_font(pdf):
    f = font(pdf, Subtype=Name.Type1, BaseFont=Name.Helvetica)
    _, d = decode(f, b"it's\xae")
    # StandardEncoding: 047 is quoteright, 256 is fi (Table D.2), which the AGL
    # maps to U+FB01 LATIN SMALL LIGATURE FI.
    assert d.texts == ("i", "t", "\u2019", "s", "\ufb01")


def test_mac_roman_encoding(pdf):
    f = font(pdf, Subtype=Name.TrueType, BaseFont=Name.Georgia, Encoding=Name.MacRomanEncoding,
             FirstChar=32, Widths=Array([500] * 224))
    _, d = decode(f, b"caf\x8e \xd2\xd3")
    assert "".join(d.texts) == "caf\u00e9 \u201c\u201d"  # Mac OS Roman: 8E é, D2 “, D3 ”


def test_glyph_names_through_the_adobe_glyph_list(pdf):
    f = font(
        pdf,
        Subtype=Name.Type1,
        BaseFont=Name.Foo,
        FirstChar=1,
        Widths=Array([500] * 8),
        Encoding=Dictionary(
            Differences=Array(
                [1, Name.uni0041, Name.u1F600, Name.f_i, Name.uni00410042, Name.g123, Name.cid17,
                 Name("/.notdef"), Name("/A.sc")]
            )
        ),
    )
    _, d = decode(f, bytes(range(1, 9)))
    assert d.texts == ("A", "\U0001f600", "fi", "AB", REPLACEMENT, REPLACEMENT, REPLACEMENT, "A")
    assert d.undecodable.tolist() == [False, False, False, False, True, True, True, False]


def test_symbol_font_uses_its_built_in_encoding_and_metrics(pdf):
    f = font(pdf, Subtype=Name.Type1, BaseFont=Name.Symbol)
    _, d = decode(f, b"abD \xa5")
    # Table D.5: 141 alpha, 142 beta, 104 Delta (the Greek letter), 245 infinity.
    assert d.texts == ("\u03b1", "\u03b2", "\u0394", " ", "\u221e")
    # Symbol.afm: alpha 631, beta 549, Delta 612, space 250, infinity 713.
    np.testing.assert_allclose(d.widths, [0.631, 0.549, 0.612, 0.25, 0.713])


def test_zapf_dingbats_built_in_encoding(pdf):
    f = font(pdf, Subtype=Name.Type1, BaseFont=Name.ZapfDingbats)
    _, d = decode(f, b"!l")
    assert d.texts == ("\u2701", "\u25cf")  # a1 and a71 (Table D.6, ITC Zapf Dingbats glyph list)
    np.testing.assert_allclose(d.widths, [0.974, 0.791])


# -- widths ----------------------------------------------------------------------


def test_standard_font_without_widths_uses_the_core_metrics(pdf):
    f = font(pdf, Subtype=Name.Type1, BaseFont=Name.Helvetica)
    loaded, d = decode(f, b"a b")
    np.testing.assert_allclose(d.widths, [0.556, 0.278, 0.556])  # Helvetica.afm
    assert d.word_space.tolist() == [False, True, False]
    assert loaded.warnings == ()
    # Helvetica.afm: Ascender 718, Descender -207.
    assert (loaded.ascent, loaded.descent) == pytest.approx((0.718, -0.207))


@pytest.mark.parametrize(
    ("base_font", "width_of_a"),
    [("Times-Roman", 0.444), ("Arial,Bold", 0.556), ("TimesNewRomanPS-BoldMT", 0.5), ("CourierNew", 0.6)],
)
def test_standard_font_aliases_get_standard_metrics(pdf, base_font, width_of_a):
    f = font(pdf, Subtype=Name.TrueType, BaseFont=Name("/" + base_font), Encoding=Name.WinAnsiEncoding)
    _, d = decode(f, b"a")
    assert d.widths[0] == pytest.approx(width_of_a)


def test_widths_first_char_and_missing_width(pdf):
    descriptor = Dictionary(Type=Name.FontDescriptor, FontName=Name.Foo, MissingWidth=250, Flags=32)
    f = font(pdf, Subtype=Name.Type1, BaseFont=Name.Foo, FirstChar=65, LastChar=66,
             Widths=Array([600, 700]), FontDescriptor=descriptor)
    _, d = decode(f, b"ABC")
    np.testing.assert_allclose(d.widths, [0.6, 0.7, 0.25])


def test_codes_outside_widths_default_to_zero_without_missing_width(pdf):
    f = font(pdf, Subtype=Name.TrueType, BaseFont=Name.Foo, FirstChar=65, Widths=Array([600]))
    _, d = decode(f, b"AB")
    np.testing.assert_allclose(d.widths, [0.6, 0.0])  # MissingWidth defaults to 0 (Table 122)


@pytest.mark.parametrize(("first", "count"), [(0, 256), (32, 224), (250, 10), (-3, 5), (-300, 600), (255, 1), (256, 4), (-5, 3)])
def test_widths_land_on_their_codes_wherever_first_char_puts_them(pdf, first, count):
    # Code FirstChar + i takes /Widths[i] where it lies in 0..255 (§9.6.2.1);
    # the other codes take MissingWidth (250 here).
    descriptor = Dictionary(Type=Name.FontDescriptor, FontName=Name.Foo, MissingWidth=250, Flags=32)
    widths = [100 + i for i in range(count)]
    f = font(pdf, Subtype=Name.TrueType, BaseFont=Name.Foo, FirstChar=first, Widths=Array(widths),
             FontDescriptor=descriptor)
    _, d = decode(f, bytes(range(256)))
    # Glyph space to text space: x 0.001, the default FontMatrix (§9.2.4).
    expected = [(widths[code - first] if 0 <= code - first < count else 250) * 0.001 for code in range(256)]
    assert d.widths.tolist() == expected


def test_font_without_any_widths_gets_half_an_em_and_a_warning(pdf):
    f = font(pdf, Subtype=Name.Type1, BaseFont=Name.Unknown)
    loaded, d = decode(f, b"AB")
    np.testing.assert_allclose(d.widths, [0.5, 0.5])
    assert any("/Widths" in w for w in loaded.warnings)


# -- ToUnicode -------------------------------------------------------------------


def test_tounicode_wins_over_the_encoding_and_falls_back_per_code(pdf):
    cmap = tounicode(
        pdf,
        b"1 begincodespacerange <00> <FF> endcodespacerange\n"
        b"3 beginbfchar <41> <005A> <01> <00660069> <02> <FFFD> endbfchar\n"
        b"1 beginbfrange <10> <12> [<0061> <D835DC00> /uni00E9] endbfrange\n",
    )
    f = font(pdf, Subtype=Name.Type1, BaseFont=Name.Helvetica, Encoding=Name.WinAnsiEncoding, ToUnicode=cmap)
    _, d = decode(f, b"AB\x01\x02\x10\x11\x12")
    assert d.texts == ("Z", "B", "fi", REPLACEMENT, "a", "\U0001d400", "\u00e9")
    # A ToUnicode entry that says U+FFFD is as undecodable as no entry at all.
    assert d.undecodable.tolist() == [False, False, False, True, False, False, False]


def test_two_byte_tounicode_sources_still_map_one_byte_codes(pdf):
    # Real files often write <0041> for the one-byte code 41.
    cmap = tounicode(pdf, b"1 beginbfchar <0041> <0391> endbfchar\n")
    f = font(pdf, Subtype=Name.TrueType, BaseFont=Name.Foo, ToUnicode=cmap, FirstChar=65, Widths=Array([500]))
    _, d = decode(f, b"A")
    assert d.texts == ("\u0391",)


def test_garbage_tounicode_warns_and_the_encoding_decides(pdf):
    f = font(pdf, Subtype=Name.Type1, BaseFont=Name.Helvetica, Encoding=Name.WinAnsiEncoding,
             ToUnicode=pikepdf.Stream(pdf, b"\x00\x01 this is not a CMap ] ) >>"))
    loaded, d = decode(f, b"Hi")
    assert d.texts == ("H", "i")
    assert any("ToUnicode" in w for w in loaded.warnings)


def test_tounicode_that_is_a_name_is_ignored_with_a_warning(pdf):
    f = font(pdf, Subtype=Name.Type1, BaseFont=Name.Helvetica, ToUnicode=Name("/Identity-H"))
    loaded, d = decode(f, b"a")
    assert d.texts == ("a",)
    assert loaded.warnings


# -- Type3 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("matrix", "widths", "bbox"),
    [([0.001, 0, 0, 0.001, 0, 0], [500, 250], [0, -200, 1000, 800]),
     ([0.01, 0, 0, 0.01, 0, 0], [50, 25], [0, -20, 100, 80])],
)
def test_type3_widths_and_extent_use_the_font_matrix(pdf, matrix, widths, bbox):
    f = font(
        pdf,
        Subtype=Name.Type3,
        Name=Name.T3,
        FontMatrix=Array(matrix),
        FontBBox=Array(bbox),
        FirstChar=65,
        LastChar=66,
        Widths=Array(widths),
        Encoding=Dictionary(Differences=Array([65, Name.A, Name.uni2713])),
        CharProcs=Dictionary(),
        Resources=Dictionary(),
    )
    loaded, d = decode(f, b"AB")
    assert loaded.name == "T3" and loaded.subtype == "Type3"
    assert d.texts == ("A", "\u2713")
    np.testing.assert_allclose(d.widths, [0.5, 0.25])  # width x FontMatrix[0] (§9.6.5)
    assert (loaded.ascent, loaded.descent) == pytest.approx((0.8, -0.2))  # FontBBox x FontMatrix[3]


def test_type3_without_encoding_names_is_undecodable(pdf):
    f = font(pdf, Subtype=Name.Type3, FontMatrix=Array([0.001, 0, 0, 0.001, 0, 0]),
             FontBBox=Array([0, 0, 0, 0]), FirstChar=65, Widths=Array([500]),
             Encoding=Dictionary(Differences=Array([65, Name.g7])))
    loaded, d = decode(f, b"A")
    assert d.texts == (REPLACEMENT,) and d.undecodable.tolist() == [True]
    assert (loaded.ascent, loaded.descent) == (0.8, -0.2)  # all-zero FontBBox: defaults


# -- ascent and descent -----------------------------------------------------------


@pytest.mark.parametrize(
    ("descriptor", "expected"),
    [
        ({"Ascent": 900, "Descent": -300}, (0.9, -0.3)),
        ({"Ascent": 900, "Descent": 300}, (0.9, -0.3)),  # sign error
        ({"Ascent": 750, "Descent": 0, "FontBBox": [0, -250, 1000, 750]}, (0.75, -0.25)),
        ({"Ascent": 750, "Descent": 0}, (0.75, -0.2)),
        ({"Ascent": 0, "Descent": 0, "FontBBox": [-100, -220, 1000, 880]}, (0.88, -0.22)),
        ({"Ascent": 0.8, "Descent": -0.2}, (0.8, -0.2)),  # wrong units: defaults
        ({"Ascent": 5000, "Descent": -1000}, (0.8, -0.2)),  # 6 em tall: defaults
        ({}, (0.8, -0.2)),
    ],
)
def test_ascent_and_descent_rule(pdf, descriptor, expected):
    entries = {k: Array(v) if isinstance(v, list) else v for k, v in descriptor.items()}
    f = font(pdf, Subtype=Name.TrueType, BaseFont=Name.Custom, FirstChar=32, Widths=Array([500]),
             FontDescriptor=Dictionary(Type=Name.FontDescriptor, Flags=32, **entries))
    loaded = FontLoader().get(f)
    assert (loaded.ascent, loaded.descent) == pytest.approx(expected)


# -- broken input and the loader ---------------------------------------------------


def test_missing_font_gives_replacement_characters():
    loaded = FontLoader().get(None)
    d = loaded.decode(b"ab")
    assert d.texts == (REPLACEMENT, REPLACEMENT)
    assert d.undecodable.all()
    np.testing.assert_allclose(d.widths, [0.5, 0.5])


def test_font_dictionary_missing_everything(pdf):
    loaded, d = decode(pdf.make_indirect(Dictionary()), b"a b")
    assert d.texts == (REPLACEMENT,) * 3
    assert d.word_space.tolist() == [False, True, False]
    assert loaded.warnings


@pytest.mark.parametrize(
    "entries",
    [
        {"Subtype": Name.Type1, "Widths": Name.Oops, "FirstChar": String("x"), "Encoding": 7},
        {"Subtype": Name.TrueType, "FontDescriptor": Name.Bad, "Encoding": Dictionary(Differences=Name.X)},
        {"Subtype": Name.Type1, "Encoding": Dictionary(Differences=Array([Name.a, 65, String("b"), Name.B]))},
        {"Subtype": Name.Type0, "DescendantFonts": Name.Nothing, "Encoding": Name.NoSuchCMap},
        {"Subtype": Name.Type0, "Encoding": pikepdf.Stream(pikepdf.new(), b"garbage")},
        {"Subtype": Name.Type3, "FontMatrix": Array([0, 0]), "Widths": Array([None, Name.x])},
        {"Subtype": Name.CIDFontType2},
    ],
)
def test_broken_dictionaries_never_raise(pdf, entries):
    f = font(pdf, **entries)
    loaded = FontLoader().get(f)
    d = loaded.decode(b"\x00A\x01B")
    assert len(d.texts) == len(d.widths) == len(d.codes) >= 1
    assert np.isfinite(d.widths).all()
    assert loaded.ascent > 0 > loaded.descent


def test_loader_caches_fonts_by_object_and_strings_by_bytes(pdf):
    f = font(pdf, Subtype=Name.Type1, BaseFont=Name.Helvetica)
    loader = FontLoader()
    resources = Dictionary(Font=Dictionary(F1=f))
    first = loader.get(resources.Font.F1)
    assert loader.get(resources.Font.F1) is first  # new pikepdf wrapper, same object
    d1 = first.decode(b"word")
    assert first.decode(b"word") is d1
    with pytest.raises(ValueError):
        d1.widths[0] = 1.0  # cached arrays are shared, so they are read-only


def test_direct_font_dictionaries_are_cached_by_content(pdf):
    loader = FontLoader()
    resources = Dictionary(Font=Dictionary(F1=Dictionary(Type=Name.Font, Subtype=Name.Type1, BaseFont=Name.Courier)))
    assert loader.get(resources.Font.F1) is loader.get(resources.Font.F1)


def test_decoded_string_shapes_and_types(pdf):
    f = font(pdf, Subtype=Name.Type1, BaseFont=Name.Helvetica)
    _, d = decode(f, b"ab")
    assert len(d) == 2
    assert d.codes.tolist() == [97, 98] and d.codes.dtype == np.int64
    assert d.word_space.dtype == bool and d.undecodable.dtype == bool
    assert d.vertical_widths.tolist() == [0.0, 0.0]
    _, empty = decode(f, b"")
    assert len(empty) == 0 and empty.widths.shape == (0,)


def test_single_byte_fast_path_agrees_with_decode(pdf):
    # The interpreter positions simple-font strings from advance() and decodes
    # them from code_tables(); both must give exactly what decode() gives, to
    # the last bit of the advance (the text matrix moves by it).
    widths = Array([(code * 37) % 997 + 0.123 for code in range(256)])
    f = font(pdf, Subtype=Name.Type1, BaseFont=Name.Helvetica, Encoding=Name.WinAnsiEncoding,
             FirstChar=0, Widths=widths)
    loaded = FontLoader().get(f)
    assert isinstance(loaded, SingleByteFont)
    width_table, text_table, undecodable_table = loaded.code_tables()
    for data in (b"Hello, world", bytes(range(256)), b"\x00 \x81 ", b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"):
        d = loaded.decode(data)
        codes = np.frombuffer(data, dtype=np.uint8)
        assert loaded.advance(data) == d.advance_sums[0]
        assert width_table[codes].tolist() == d.widths.tolist()
        assert tuple(text_table[codes]) == d.texts
        assert undecodable_table[codes].tolist() == d.undecodable.tolist()
    with pytest.raises(ValueError):
        width_table[0] = 1.0  # shared with the font: read-only


def test_heavy_font_libraries_load_only_when_a_document_needs_them():
    code = (
        "import sys, ragprep.extract.fonts\n"
        "heavy = [m for m in sys.modules if m.startswith(('pdfminer', 'fontTools.ttLib', 'fontTools.cffLib'))]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
