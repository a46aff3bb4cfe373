"""Type0 composite fonts (ISO 32000-1 §9.7): code splitting, CIDs, /W, /W2, Unicode.

Expected CJK texts are checked against Python's own codecs (cp932 for
Shift-JIS, UTF-16BE for the UCS2 CMaps), independent of this code.
"""

from __future__ import annotations

import numpy as np
import pikepdf
import pytest
from pikepdf import Array, Dictionary, Name, String

from ragprep.extract.fonts import REPLACEMENT, FontLoader


@pytest.fixture()
def pdf() -> pikepdf.Pdf:
    return pikepdf.new()


def type0(pdf: pikepdf.Pdf, encoding: object, cid_font: dict | None = None, **entries: object) -> pikepdf.Object:
    descendant_entries = {
        "Subtype": Name.CIDFontType2,
        "CIDSystemInfo": Dictionary(Registry=String("Adobe"), Ordering=String("Identity"), Supplement=0),
        **(cid_font or {}),
    }
    descendant = Dictionary(Type=Name.Font, BaseFont=Name.Test, **descendant_entries)
    return pdf.make_indirect(Dictionary(Type=Name.Font, Subtype=Name.Type0, BaseFont=Name.Test,
                                        Encoding=encoding, DescendantFonts=Array([descendant]), **entries))


def japan1(subtype: Name = Name.CIDFontType0) -> dict:
    return {"Subtype": subtype,
            "CIDSystemInfo": Dictionary(Registry=String("Adobe"), Ordering=String("Japan1"), Supplement=6)}


def test_identity_h_widths_in_both_w_forms(pdf):
    tu = pikepdf.Stream(pdf, b"1 begincodespacerange <0000> <FFFF> endcodespacerange\n"
                             b"1 beginbfrange <0001> <0003> <0041> endbfrange\n")
    f = FontLoader().get(type0(pdf, Name("/Identity-H"),
                               {"W": Array([1, Array([500, 600]), 10, 20, 700]), "DW": 900}, ToUnicode=tu))
    d = f.decode(b"\x00\x01\x00\x02\x00\x0f\x00\x03\x00\x20")
    assert f.subtype == "Type0" and f.wmode == 0
    assert d.codes.tolist() == [1, 2, 15, 3, 32]
    assert d.texts == ("A", "B", REPLACEMENT, "C", REPLACEMENT)
    # c [w1 w2] gives CIDs 1, 2; cfirst clast w gives 10..20; the rest /DW.
    np.testing.assert_allclose(d.widths, [0.5, 0.6, 0.7, 0.9, 0.9])
    # §9.3.3: the two-byte code 0020 is not a word space.
    assert not d.word_space.any()
    np.testing.assert_array_equal(d.vertical_widths, np.zeros(5))


def test_identity_h_default_width_and_dangling_byte(pdf):
    f = FontLoader().get(type0(pdf, Name("/Identity-H")))
    d = f.decode(b"\x00\x05\x07")
    np.testing.assert_allclose(d.widths, [1.0, 1.0])  # /DW defaults to 1000
    assert d.codes.tolist() == [5, 7]
    assert d.undecodable.tolist() == [True, True]  # no ToUnicode, no font program: nothing maps


def test_identity_v_vertical_advances(pdf):
    f = FontLoader().get(type0(pdf, Name("/Identity-V"),
                               {"W2": Array([5, Array([-800, 500, 880, -700, 500, 880]), 10, 12, -900, 500, 880])}))
    d = f.decode(b"\x00\x01\x00\x05\x00\x06\x00\x0b")
    assert f.wmode == 1
    # /DW2 absent: [880 -1000], so w1y = -1000 -> -1.0 per unit size.
    np.testing.assert_allclose(d.vertical_widths, [-1.0, -0.8, -0.7, -0.9])
    np.testing.assert_allclose(d.widths, [1.0, 1.0, 1.0, 1.0])


def test_explicit_dw2(pdf):
    f = FontLoader().get(type0(pdf, Name("/Identity-V"), {"DW2": Array([900, -1200])}))
    np.testing.assert_allclose(f.decode(b"\x00\x01").vertical_widths, [-1.2])


def test_embedded_cmap_with_mixed_one_and_two_byte_codes(pdf):
    cmap = pikepdf.Stream(
        pdf,
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
        b"/CMapName /Test-Mixed def /WMode 0 def\n"
        b"2 begincodespacerange <00> <80> <8140> <9FFC> endcodespacerange\n"
        b"2 begincidrange <20> <7E> 1 <8140> <817E> 633 endcidrange\n"
        b"endcmap CMapName currentdict /CMap defineresource pop end end\n",
    )
    cmap.Type = Name.CMap
    tu = pikepdf.Stream(pdf, b"2 begincodespacerange <00> <80> <8140> <9FFC> endcodespacerange\n"
                             b"2 beginbfrange <20> <7E> <0020> <8140> <8142> <3000> endbfrange\n")
    f = FontLoader().get(type0(pdf, cmap, {"W": Array([1, 95, 500, 633, 700, 1000])}, ToUnicode=tu))
    d = f.decode(b"A\x81\x40 \x81\x42\xa0")
    assert d.codes.tolist() == [0x41, 0x8140, 0x20, 0x8142, 0xA0]
    assert d.texts == ("A", "\u3000", " ", "\u3002", REPLACEMENT)
    # CIDs: 41 -> 34, 8140 -> 633, 20 -> 1, 8142 -> 635; A0 matches no range: CID 0 (notdef).
    np.testing.assert_allclose(d.widths, [0.5, 1.0, 0.5, 1.0, 1.0])
    assert d.word_space.tolist() == [False, False, True, False, False]  # one-byte code 32 only
    assert d.undecodable.tolist() == [False, False, False, False, True]


def test_predefined_unicode_cmap_without_tounicode(pdf):
    f = FontLoader().get(type0(pdf, Name("/UniJIS-UCS2-H"), japan1()))
    text = "日本語のテキスト, abc"
    d = f.decode(text.encode("utf-16-be"))
    assert "".join(d.texts) == text  # the code is the Unicode (§9.10.2)
    assert not d.undecodable.any()
    assert f.wmode == 0


def test_predefined_vertical_cmap_sets_wmode(pdf):
    f = FontLoader().get(type0(pdf, Name("/UniJIS-UCS2-V"), japan1()))
    assert f.wmode == 1
    assert f.decode("縦".encode("utf-16-be")).texts == ("縦",)


def test_shift_jis_cmap_through_the_japan1_collection(pdf):
    f = FontLoader().get(type0(pdf, Name("/90ms-RKSJ-H"), japan1()))
    text = "日本語テキスト abc"
    d = f.decode(text.encode("cp932"))
    assert "".join(d.texts) == text  # code -> CID by the CMap, CID -> Unicode by Adobe-Japan1
    assert [len(t) for t in d.texts] == [1] * len(text)
    assert d.word_space.tolist() == [c == " " for c in text]


def test_identity_h_with_a_registered_ordering_uses_the_collection(pdf):
    # CID 843 is HIRAGANA LETTER A in Adobe-Japan1.
    f = FontLoader().get(type0(pdf, Name("/Identity-H"), japan1()))
    assert f.decode(b"\x03\x4b").texts == ("\u3042",)


def test_unknown_predefined_cmap_warns_and_assumes_identity(pdf):
    f = FontLoader().get(type0(pdf, Name("/No-Such-CMap-H")))
    d = f.decode(b"\x00\x01\x00\x02")
    assert d.codes.tolist() == [1, 2]
    assert any("No-Such-CMap-H" in w for w in f.warnings)


def test_embedded_cmap_using_a_predefined_parent(pdf):
    cmap = pikepdf.Stream(pdf, b"/CMapName /Test-Child def\n1 begincidchar <0041> 99 endcidchar\n")
    cmap.UseCMap = Name("/Identity-H")
    f = FontLoader().get(type0(pdf, cmap, {"W": Array([99, Array([250])])}))
    d = f.decode(b"\x00\x41\x00\x42")
    # 0041 -> CID 99 from the child; 0042 -> CID 66 through Identity-H.
    np.testing.assert_allclose(d.widths, [0.25, 1.0])


def test_missing_descendant_font_still_decodes(pdf):
    f = FontLoader().get(pdf.make_indirect(Dictionary(Type=Name.Font, Subtype=Name.Type0, BaseFont=Name.X,
                                                      Encoding=Name("/Identity-H"))))
    d = f.decode(b"\x00\x01")
    assert d.texts == (REPLACEMENT,)
    assert f.warnings
