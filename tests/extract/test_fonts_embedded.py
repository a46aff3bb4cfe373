"""Embedded font programs as the last source of Unicode (§9.6.6.4, §9.7.4.2, §9.10.2).

The fonts are built in the test with fontTools' FontBuilder, so what each
glyph means is known: a glyph reached from U+2605 in the font's Unicode cmap
is a star, a glyph named "bullet" is a bullet (AGL), a glyph named "gA" with
no cmap entry carries no Unicode at all.
"""

from __future__ import annotations

import io

import numpy as np
import pikepdf
import pytest
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.t2CharStringPen import T2CharStringPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib.tables._c_m_a_p import cmap_format_4
from pikepdf import Array, Dictionary, Name, String

from ragprep.extract import open_document
from ragprep.extract.fonts import REPLACEMENT, FontLoader
from ragprep.extract.fonts.embedded import reverse_unicode_cmap

GLYPHS = [".notdef", "star", "bullet", "gA"]


def truetype_program(symbol_cmap: dict[int, str]) -> bytes:
    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder(GLYPHS)
    builder.setupCharacterMap({0x2605: "star"})  # (0,3) and (3,1) Unicode subtables
    empty = TTGlyphPen(None).glyph()
    builder.setupGlyf({name: empty for name in GLYPHS})
    builder.setupHorizontalMetrics({name: (500, 0) for name in GLYPHS})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": "Test", "styleName": "Regular"})
    builder.setupOS2()
    builder.setupPost()  # format 2: glyph names are kept
    symbol = cmap_format_4(4)
    symbol.platformID, symbol.platEncID, symbol.language = 3, 0, 0
    symbol.cmap = symbol_cmap
    builder.font["cmap"].tables.append(symbol)
    out = io.BytesIO()
    builder.save(out)
    return out.getvalue()


def cff_program(encoding: dict[int, str]) -> bytes:
    names = [".notdef", "eacute", "B", "gX"]
    builder = FontBuilder(1000, isTTF=False)
    builder.setupGlyphOrder(names)
    pen = T2CharStringPen(500, None)
    charstring = pen.getCharString()
    builder.setupCFF("Test", {}, {name: charstring for name in names}, {})
    cff = builder.font["CFF "].cff
    top = cff.topDictIndex[0]
    top.Encoding = [encoding.get(code, ".notdef") for code in range(256)]
    out = io.BytesIO()
    cff.compile(out, builder.font)
    return out.getvalue()


@pytest.fixture()
def pdf() -> pikepdf.Pdf:
    return pikepdf.new()


def simple_font(pdf, subtype, program_key, program, flags=4, **entries):
    descriptor = Dictionary(Type=Name.FontDescriptor, FontName=Name.Test, Flags=flags,
                            FontBBox=Array([0, -200, 1000, 800]), Ascent=800, Descent=-200)
    descriptor[program_key] = program
    return pdf.make_indirect(Dictionary(Type=Name.Font, Subtype=subtype, BaseFont=Name.Test, FirstChar=0,
                                        Widths=Array([500] * 256), FontDescriptor=descriptor, **entries))


def test_symbolic_truetype_maps_codes_through_the_symbol_cmap(pdf):
    program = pikepdf.Stream(pdf, truetype_program({0xF021: "star", 0xF022: "bullet", 0xF023: "gA"}))
    f = FontLoader().get(simple_font(pdf, Name.TrueType, "/FontFile2", program))
    d = f.decode(b"!\"#$")
    # 21 -> F021 -> star -> U+2605 (reversed Unicode cmap); 22 -> bullet (glyph
    # name, AGL); 23 -> gA (no Unicode anywhere); 24 -> no glyph.
    assert d.texts == ("\u2605", "\u2022", REPLACEMENT, REPLACEMENT)
    assert d.undecodable.tolist() == [False, False, True, True]
    assert f.warnings == ()


def test_mac_cmap_is_used_when_there_is_no_symbol_subtable(pdf):
    builder_bytes = truetype_program({})
    from fontTools.ttLib import TTFont
    from fontTools.ttLib.tables._c_m_a_p import cmap_format_0

    font = TTFont(io.BytesIO(builder_bytes))
    font["cmap"].tables = [t for t in font["cmap"].tables if (t.platformID, t.platEncID) != (3, 0)]
    mac = cmap_format_0(0)
    mac.platformID, mac.platEncID, mac.language = 1, 0, 0
    mac.cmap = {0x41: "bullet"}
    font["cmap"].tables.append(mac)
    out = io.BytesIO()
    font.save(out)
    f = FontLoader().get(simple_font(pdf, Name.TrueType, "/FontFile2", pikepdf.Stream(pdf, out.getvalue())))
    assert f.decode(b"A").texts == ("\u2022",)


def test_cid_truetype_through_cid_to_gid_map(pdf):
    program = pikepdf.Stream(pdf, truetype_program({}))
    descriptor = Dictionary(Type=Name.FontDescriptor, FontName=Name.Test, Flags=4, FontFile2=program,
                            Ascent=800, Descent=-200, FontBBox=Array([0, -200, 1000, 800]))

    def type0(cid_to_gid):
        cid_font = Dictionary(Type=Name.Font, Subtype=Name.CIDFontType2, BaseFont=Name.Test,
                              CIDSystemInfo=Dictionary(Registry=String("Adobe"), Ordering=String("Identity"),
                                                       Supplement=0),
                              FontDescriptor=descriptor, CIDToGIDMap=cid_to_gid)
        return pdf.make_indirect(Dictionary(Type=Name.Font, Subtype=Name.Type0, BaseFont=Name.Test,
                                            Encoding=Name("/Identity-H"), DescendantFonts=Array([cid_font])))

    # CIDs 0..3 -> glyphs 0, 3 (gA), 1 (star), 2 (bullet).
    mapped = FontLoader().get(type0(pikepdf.Stream(pdf, b"\x00\x00\x00\x03\x00\x01\x00\x02")))
    assert mapped.decode(b"\x00\x01\x00\x02\x00\x03\x00\x09").texts == (
        REPLACEMENT, "\u2605", "\u2022", REPLACEMENT
    )
    identity = FontLoader().get(type0(Name.Identity))
    assert identity.decode(b"\x00\x01\x00\x02").texts == ("\u2605", "\u2022")


def test_type1c_built_in_encoding_when_the_font_names_no_base_encoding(pdf):
    program = pikepdf.Stream(pdf, cff_program({0x41: "eacute", 0x42: "B", 0x43: "gX"}))
    program.Subtype = Name.Type1C
    f = FontLoader().get(simple_font(pdf, Name.Type1, "/FontFile3", program,
                                     Encoding=Dictionary(Differences=Array([0x44, Name.Euro]))))
    d = f.decode(b"ABCD")
    # The built-in encoding for 41..43, /Differences over it for 44 (§9.6.6.1).
    assert d.texts == ("\u00e9", "B", REPLACEMENT, "\u20ac")


def test_type1_built_in_encoding_from_the_cleartext_part(pdf):
    clear = (b"%!PS-AdobeFont-1.0: Test 001.000\n/FontName /Test def\n/Encoding 256 array\n"
             b"0 1 255 {1 index exch /.notdef put} for\ndup 65 /Euro put\ndup 66 /germandbls put\n"
             b"readonly def\ncurrentfile eexec\n")
    program = pikepdf.Stream(pdf, clear + b"\x8f\x00garbage-encrypted-part")
    program.Length1, program.Length2, program.Length3 = len(clear), 20, 0
    f = FontLoader().get(simple_font(pdf, Name.Type1, "/FontFile", program))
    assert f.decode(b"AB").texts == ("\u20ac", "\u00df")


def test_program_loads_only_when_a_code_is_unmapped(pdf):
    broken = pikepdf.Stream(pdf, b"definitely not a TrueType font")
    tu = pikepdf.Stream(pdf, b"1 beginbfchar <41> <0041> endbfchar")
    f = FontLoader().get(simple_font(pdf, Name.TrueType, "/FontFile2", broken, ToUnicode=tu))
    assert f.decode(b"AAA").texts == ("A", "A", "A")
    assert f.warnings == ()  # nothing unmapped yet: the program was not read
    d = f.decode(b"AB")
    assert d.texts == ("A", REPLACEMENT)
    assert any("embedded font program" in w for w in f.warnings)


def test_string_with_a_code_waiting_for_the_program_has_no_advance_until_decoded(pdf):
    # advance() is the interpreter's shortcut past decode(); a code only the
    # program can map must go through decode(), which reads the program.
    program = pikepdf.Stream(pdf, truetype_program({0xF021: "star"}))
    tu = pikepdf.Stream(pdf, b"1 beginbfchar <41> <0041> endbfchar")
    f = FontLoader().get(simple_font(pdf, Name.TrueType, "/FontFile2", program, ToUnicode=tu))
    assert f.advance(b"AA") == 1.0
    assert f.advance(b"A!") is None
    assert f.code_tables()[1][0x21] == REPLACEMENT  # not read yet
    assert f.decode(b"A!").texts == ("A", "\u2605")
    assert f.advance(b"A!") == 1.0
    assert f.code_tables()[1][0x21] == "\u2605"


def test_tj_piece_waiting_for_the_program_is_placed_like_the_fast_path(pdf):
    # Page 1 meets code 21 in the second piece of a TJ: the show is undone and
    # redone through decode(), which reads the program. Page 2 repeats it with
    # the program read (the font is cached per document): same glyphs.
    program = pikepdf.Stream(pdf, truetype_program({0xF021: "star"}))
    tu = pikepdf.Stream(pdf, b"1 beginbfchar <41> <0041> endbfchar")
    font = simple_font(pdf, Name.TrueType, "/FontFile2", program, ToUnicode=tu)
    content = b"BT /F1 10 Tf 72 700 Td 0.5 Tc [(AA) -700 (A!) 120 (A)] TJ (A) Tj ET"
    for _ in range(2):
        page = Dictionary(Type=Name.Page, MediaBox=Array([0, 0, 612, 792]),
                          Resources=Dictionary(Font=Dictionary(F1=font)), Contents=pikepdf.Stream(pdf, content))
        pdf.pages.append(pikepdf.Page(pdf.make_indirect(page)))
    out = io.BytesIO()
    pdf.save(out)
    with open_document(out.getvalue()) as doc:
        first, second = doc.page_glyphs(1).table, doc.page_glyphs(2).table
    assert "".join(first.text) == "AAA\u2605AA"
    for name in ("text", "origin", "own_end", "pen_end", "quad", "undecodable", "visible"):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name))
    # AA (2 x (5 + 0.5)) + 7 from -700, then A!: the third glyph starts at 72 + 18.
    assert first.origin[2].tolist() == [90.0, 700.0]


def test_damaged_font_programs_never_raise(pdf):
    for key, subtype in (("/FontFile2", None), ("/FontFile3", Name.Type1C), ("/FontFile3", Name.OpenType)):
        program = pikepdf.Stream(pdf, b"\x00\x01\x00\x00" + b"\xff" * 64)
        if subtype is not None:
            program.Subtype = subtype
        f = FontLoader().get(simple_font(pdf, Name.TrueType, key, program))
        d = f.decode(b"\x01\x02")
        assert d.undecodable.all()
        np.testing.assert_allclose(d.widths, [0.5, 0.5])


def test_reversed_cmap_prefers_the_lowest_code_point_outside_private_use():
    table = {0xF041: "a", 0x41: "a", 0x61: "a", 0x2605: "star", 0xE000: "logo"}
    assert reverse_unicode_cmap(table) == {"a": "A", "star": "\u2605", "logo": "\ue000"}
