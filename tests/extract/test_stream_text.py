"""Stream-mode page text: the interpreter and the geometric rules, on fixture PDFs."""

from __future__ import annotations

import math

import numpy as np
import pikepdf
import pytest
from pdfbuilder import PdfBuilder, hexstr, text_width

from ragprep.extract import EncryptedPDFError, ExtractConfig, extract_document, open_document


def page_text(builder: PdfBuilder, page: int = 1, **kwargs) -> str:
    result = extract_document(builder.to_bytes(), pages=str(page), **kwargs)
    return result.pages[0].text


def test_words_separated_only_by_tj_numbers():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(
        f"BT /{f} 12 Tf 72 700 Td [(PDF)-278(Reference)-278(Manual)-278(November)-278(4,)-278(1998)] TJ ET"
    )
    assert page_text(b) == "PDF Reference Manual November 4, 1998"


def test_words_separated_only_by_td_moves():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    words = ["PDF", "Reference", "Manual", "November", "4,", "1998"]
    ops = [f"BT /{f} 12 Tf 72 700 Td"]
    for i, word in enumerate(words):
        if i:
            # Move by the previous word's width plus a 3.3 pt gap: > 0.15 x height.
            ops.append(f"{text_width(words[i - 1]) + 3.3:.3f} 0 Td")
        ops.append(f"({word}) Tj")
    ops.append("ET")
    b.add_page(" ".join(ops))
    assert page_text(b) == "PDF Reference Manual November 4, 1998"


def test_kerning_numbers_do_not_split_words():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td [(W)120(ave)-30(form)] TJ ET")
    assert page_text(b) == "Waveform"


def test_negative_tc_compensated_by_tj_numbers_keeps_cjk_word():
    b = PdfBuilder()
    cid, encode = b.add_cid_font("95后", widths=500)
    # Tc -3 pulls the pen back 3 pt after every glyph and each TJ number (-250
    # at 12 pt = 3 pt) pushes it forward again: the glyphs touch. Measuring from
    # the pen (with Tc) instead of the glyph's own end would see a 3 pt gap.
    b.add_page(
        f"BT /{cid} 12 Tf -3 Tc 72 700 Td "
        f"[{hexstr(encode('9'))} -250 {hexstr(encode('5'))} -250 {hexstr(encode('后'))}] TJ ET"
    )
    assert page_text(b) == "95后"


def test_unit_font_size_with_scaled_text_matrix_behaves_like_font_size():
    words = "[(Scaled)-278(text)-278(reads)] TJ"
    scaled, sized = PdfBuilder(), PdfBuilder()
    f1 = scaled.add_standard_font("Helvetica", widths=True)
    f2 = sized.add_standard_font("Helvetica", widths=True)
    scaled.add_page(f"BT /{f1} 1 Tf 10 0 0 10 72 700 Tm {words} 0 -1.4 Td (Next) Tj ET")
    sized.add_page(f"BT /{f2} 10 Tf 72 700 Td {words} 0 -14 Td (Next) Tj ET")
    assert page_text(scaled) == page_text(sized) == "Scaled text reads\nNext"
    with open_document(scaled.to_bytes()) as doc:
        heights = doc.page_glyphs(1).table.height
    with open_document(sized.to_bytes()) as doc:
        np.testing.assert_allclose(heights, doc.page_glyphs(1).table.height)


def test_superscript_with_rise_under_scaled_matrix_stays_on_its_line():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    # Rise 0.4 in unscaled text space is 4 pt under the 10x Tm: less than half
    # the 10 pt glyph height, so the "2" stays on the line.
    b.add_page(f"BT /{f} 1 Tf 10 0 0 10 72 700 Tm (E = mc) Tj 0.4 Ts (2) Tj 0 Ts ( holds) Tj ET")
    assert page_text(b) == "E = mc2 holds"


@pytest.mark.parametrize("degrees", [30, 90])
def test_rotated_text_matrix_gives_one_line_per_line_with_spaced_words(degrees):
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    b.add_page(
        f"BT /{f} 12 Tf {c:.6f} {s:.6f} {-s:.6f} {c:.6f} 200 200 Tm "
        f"[(Rotated)-278(first)-278(line)] TJ 0 -14 Td [(and)-278(the)-278(second)] TJ ET"
    )
    assert page_text(b) == "Rotated first line\nand the second"


def test_big_word_and_small_caption_on_one_baseline_are_one_line():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    big = text_width("BIG", size=30)
    b.add_page(f"BT /{f} 30 Tf 72 700 Td (BIG) Tj /{f} 6 Tf {big + 4:.3f} 0 Td (small caption) Tj ET")
    assert page_text(b) == "BIG small caption"


def test_justified_cjk_gets_no_spaces_between_ideographs():
    b = PdfBuilder()
    cid, encode = b.add_cid_font("文字間隔を調整した行")
    pieces = " -300 ".join(hexstr(encode(ch)) for ch in "文字間隔を調整")
    b.add_page(f"BT /{cid} 12 Tf 2 Tc 72 700 Td [{pieces}] TJ {hexstr(encode('した行'))} Tj ET")
    assert page_text(b) == "文字間隔を調整した行"


def test_vertical_identity_v_two_columns_read_right_column_first():
    b = PdfBuilder()
    cid, encode = b.add_cid_font("縦書きの右列左", vertical=True)
    # The stream paints the left column first; vertical text reads right to left.
    b.add_page(
        f"BT /{cid} 12 Tf 1 0 0 1 300 700 Tm {hexstr(encode('左列'))} Tj "
        f"1 0 0 1 320 700 Tm {hexstr(encode('縦書きの右列'))} Tj ET"
    )
    assert page_text(b) == "縦書きの右列\n左列"


def test_vertical_glyphs_advance_downwards():
    b = PdfBuilder()
    cid, encode = b.add_cid_font("縦書", vertical=True)
    b.add_page(f"BT /{cid} 10 Tf 1 0 0 1 300 700 Tm {hexstr(encode('縦書'))} Tj ET")
    with open_document(b.to_bytes()) as doc:
        table = doc.page_glyphs(1).table
    np.testing.assert_allclose(table.origin, [[300, 700], [300, 690]])
    np.testing.assert_allclose(table.direction, [[0, -1], [0, -1]])


def test_printer_line_outside_cropbox_is_not_text_but_is_a_glyph():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(
        f"BT /{f} 12 Tf 72 700 Td (Inside the page) Tj ET BT /{f} 6 Tf 20 5 Td (printer slug 2024) Tj ET",
        cropbox=(36, 36, 576, 756),
    )
    assert page_text(b) == "Inside the page"
    with open_document(b.to_bytes()) as doc:
        glyphs = doc.page_glyphs(1)
    assert "".join(glyphs.table.text) == "Inside the pageprinter slug 2024"
    assert glyphs.table.visible.sum() == len("Inside the page")


def test_form_xobject_text_appears_at_the_do_position():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    form = b.add_form(f"BT /{f} 12 Tf 0 0 Td (from the form) Tj ET", matrix=(1, 0, 0, 1, 72, 686))
    b.add_page(
        f"BT /{f} 12 Tf 72 700 Td (Before) Tj ET /Fm1 Do BT /{f} 12 Tf 72 672 Td (After) Tj ET",
        xobjects={"Fm1": form},
    )
    assert page_text(b) == "Before\nfrom the form\nAfter"
    with open_document(b.to_bytes()) as doc:
        table = doc.page_glyphs(1).table
    form_glyphs = table.stream != 0
    assert set(table.stream[form_glyphs]) == {form.objgen[0]}
    assert (table.token_index[form_glyphs] == -1).all()
    np.testing.assert_allclose(table.origin[np.argmax(form_glyphs)], [72, 686])


def test_nested_forms_compose_their_matrices():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    inner = b.add_form(f"BT /{f} 12 Tf 0 0 Td (inner) Tj ET", matrix=(1, 0, 0, 1, 0, -20))
    outer = b.add_form(f"BT /{f} 12 Tf 0 0 Td (outer) Tj ET /Inner Do", matrix=(1, 0, 0, 1, 72, 700),
                       bbox=(0, -100, 500, 100), xobjects={"Inner": inner})
    b.add_page("/Outer Do", xobjects={"Outer": outer})
    assert page_text(b) == "outer\ninner"
    with open_document(b.to_bytes()) as doc:
        table = doc.page_glyphs(1).table
    np.testing.assert_allclose(table.origin[5], [72, 680])


def test_form_without_resources_uses_the_painters_resources():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    form = b.add_form(f"BT /{f} 12 Tf 72 700 Td (inherited font) Tj ET", resources=False)
    b.add_page("/Fm1 Do", xobjects={"Fm1": form})
    assert page_text(b) == "inherited font"


def test_self_painting_form_contributes_once_and_warns():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    form = b.add_form(f"BT /{f} 12 Tf 72 700 Td (Once) Tj ET /Self Do")
    b.set_form_xobject(form, "Self", form)
    b.add_page("/Fm1 Do", xobjects={"Fm1": form})
    result = extract_document(b.to_bytes()).pages[0]
    assert result.text == "Once"
    assert any("paints itself" in w.message for w in result.warnings)


def test_form_text_outside_its_bbox_is_clipped():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    form = b.add_form(
        f"BT /{f} 12 Tf 10 10 Td (shown) Tj 0 200 Td (clipped) Tj ET", bbox=(0, 0, 200, 100),
        matrix=(1, 0, 0, 1, 72, 600),
    )
    b.add_page("/Fm1 Do", xobjects={"Fm1": form})
    assert page_text(b) == "shown"


def test_q_restores_font_after_two_byte_font_inside():
    b = PdfBuilder()
    latin = b.add_standard_font("Helvetica", widths=True)
    cid, encode = b.add_cid_font("中文")
    b.add_page(
        f"BT /{latin} 12 Tf 72 700 Td (Start) Tj ET "
        f"q BT /{cid} 12 Tf 72 680 Td {hexstr(encode('中文'))} Tj ET Q "
        f"BT 72 660 Td (After Q) Tj ET"
    )
    assert page_text(b) == "Start\n中文\nAfter Q"


def test_q_restores_text_state_spacing_and_rise():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td q 30 Tc 8 Ts Q (tight) Tj ET")
    assert page_text(b) == "tight"


def test_helvetica_without_widths_is_spaced_from_standard_metrics():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=False)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td [(Standard)-278(fourteen)] TJ ( metrics) Tj ET")
    assert page_text(b) == "Standard fourteen metrics"
    with open_document(b.to_bytes()) as doc:
        table = doc.page_glyphs(1).table
    # Helvetica "S" is 667/1000 em wide.
    assert table.own_end[0][0] - table.origin[0][0] == pytest.approx(0.667 * 12)


def test_type3_text_is_decoded_from_glyph_names():
    b = PdfBuilder()
    t3 = b.add_type3_font({"T": 84, "y": 121, "p": 112, "e": 101, "three": 51, "space": 32})
    b.add_page(f"BT /{t3} 12 Tf 72 700 Td (Type 3) Tj ET")
    assert page_text(b) == "Type 3"


def test_type3_font_matrix_scales_advances():
    b = PdfBuilder()
    t3 = b.add_type3_font({"A": 65, "B": 66}, font_matrix=(0.01, 0, 0, 0.01, 0, 0), width=60)
    b.add_page(f"BT /{t3} 10 Tf 72 700 Td (AB) Tj ET")
    with open_document(b.to_bytes()) as doc:
        table = doc.page_glyphs(1).table
    # 60 glyph units x 0.01 = 0.6 em; at 10 pt the second glyph starts 6 pt later.
    assert table.origin[1][0] - table.origin[0][0] == pytest.approx(6.0)


def test_render_mode_3_invisible_text_is_page_text():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT 3 Tr /{f} 12 Tf 72 700 Td (OCR layer) Tj ET")
    assert page_text(b) == "OCR layer"
    with open_document(b.to_bytes()) as doc:
        assert set(doc.page_glyphs(1).table.render_mode) == {3}


def test_page_without_contents_is_empty():
    b = PdfBuilder()
    page = b.add_page("")
    del page.obj["/Contents"]
    result = extract_document(b.to_bytes()).pages[0]
    assert (result.text, result.glyphs, result.warnings) == ("", 0, ())


def test_contents_array_split_mid_operator():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page([f"BT /{f} 12 Tf 72 700 Td (Split across) ", "Tj ( streams) Tj ET"])
    assert page_text(b) == "Split across streams"


def test_unknown_operator_is_ignored():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (Known) Tj 1 2 3 zz ( text) Tj ET")
    assert page_text(b) == "Known text"


def test_encrypted_with_empty_user_password_opens():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (Owner protected) Tj ET")
    data = b.encrypted_bytes(user_password="")
    assert extract_document(data).pages[0].text == "Owner protected"


def test_encrypted_with_user_password_needs_it():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (Secret) Tj ET")
    data = b.encrypted_bytes(user_password="pw")
    with pytest.raises(EncryptedPDFError, match="needs a password"):
        extract_document(data)
    with pytest.raises(EncryptedPDFError, match="wrong password"):
        extract_document(data, password="nope")
    assert extract_document(data, password="pw").pages[0].text == "Secret"


def test_candidate_passwords_are_tried_in_turn():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (Secret) Tj ET")
    data = b.encrypted_bytes(user_password="pw")
    with open_document(data, passwords=("a", "pw", "b")) as doc:
        assert doc.extract_page(1).text == "Secret"
    with pytest.raises(EncryptedPDFError, match="needs a password: none of the 2 passwords tried open it"):
        open_document(data, passwords=("a", "b"))
    with pytest.raises(EncryptedPDFError, match="needs a password: the password tried does not open it"):
        open_document(data, passwords=("a",))
    # A document that opens without one never tries them.
    plain = PdfBuilder()
    plain.add_page(f"BT /{plain.add_standard_font('Helvetica', widths=True)} 12 Tf 72 700 Td (Open) Tj ET")
    with open_document(plain.to_bytes(), passwords=("a",)) as doc:
        assert doc.extract_page(1).text == "Open"


def test_marked_content_mcid_and_artifact_columns():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(
        f"/Artifact BMC BT /{f} 12 Tf 72 760 Td (Header) Tj ET EMC "
        f"/P <</MCID 3>> BDC BT /{f} 12 Tf 72 700 Td (Body) Tj ET EMC "
        f"BT /{f} 12 Tf 72 40 Td (7) Tj ET"
    )
    result = extract_document(b.to_bytes()).pages[0]
    assert (result.glyphs, result.artifact_glyphs, result.untagged_glyphs) == (11, 6, 1)
    with open_document(b.to_bytes()) as doc:
        table = doc.page_glyphs(1).table
    assert table.mcid.tolist() == [-1] * 6 + [3] * 4 + [-1]
    assert table.artifact.tolist() == [True] * 6 + [False] * 5


def test_mcid_given_by_named_properties_resource():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"/Span /MC0 BDC BT /{f} 12 Tf 72 700 Td (Named) Tj ET EMC", properties={"MC0": {"MCID": 5}})
    with open_document(b.to_bytes()) as doc:
        assert set(doc.page_glyphs(1).table.mcid) == {5}


def test_actual_text_replaces_the_glyphs_it_spans():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(
        f"BT /{f} 12 Tf 72 700 Td (A ) Tj /Span <</ActualText (ffi)>> BDC (\\203) Tj EMC (ce) Tj ET"
    )
    assert page_text(b) == "A ffice"


def test_operator_limit_keeps_text_read_so_far():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (first) Tj 0 -14 Td (second) Tj ET")
    config = ExtractConfig(max_operators_per_page=4)
    result = extract_document(b.to_bytes(), config=config).pages[0]
    assert result.text == "first"
    assert any(w.setting == "extract.max_operators_per_page" for w in result.warnings)


def test_stream_byte_limit_is_a_warning_not_a_crash():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    # A small flate stream that inflates to 2 MB of spaces, over a 1 MB cap.
    page = b.add_page("")
    import zlib

    payload = f"BT /{f} 12 Tf 72 700 Td (never read) Tj ET".encode() + b" " * 2_000_000
    page.obj.Contents = b.pdf.make_stream(zlib.compress(payload, 9))
    page.obj.Contents.Filter = "/FlateDecode"
    result = extract_document(b.to_bytes(), config=ExtractConfig(max_stream_bytes=1_000_000)).pages[0]
    assert result.text == ""
    assert any(w.setting == "extract.max_stream_bytes" for w in result.warnings)


def test_form_depth_limit():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    deepest = b.add_form(f"BT /{f} 12 Tf 72 680 Td (deep) Tj ET")
    middle = b.add_form(f"BT /{f} 12 Tf 72 700 Td (middle) Tj ET /D Do", xobjects={"D": deepest})
    b.add_page("/M Do", xobjects={"M": middle})
    config = ExtractConfig(max_form_depth=1)
    result = extract_document(b.to_bytes(), config=config).pages[0]
    assert result.text == "middle"
    assert any(w.setting == "extract.max_form_depth" for w in result.warnings)


def test_type3_glyphs_named_after_their_code_are_read_as_that_code():
    # dvips bitmap fonts: /a65 at code 65 is "A"; /a12 at 12 is TeX's fi ligature.
    b = PdfBuilder()
    t3 = b.add_type3_font({"a84": 84, "a101": 101, "a88": 88, "a12": 12, "g50": 51})
    b.add_page(f"BT /{t3} 12 Tf 72 700 Td (TeX\\014\\063) Tj ET")
    # "g50" sits at code 51: the number is not the code, so nothing maps it.
    assert page_text(b) == "TeXfi\ufffd"


def test_tj_with_only_a_number_moves_the_pen():
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    # [-2000] moves 24 pt right at 12 pt: "far" is a separate word.
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (near) Tj [-2000] TJ (far) Tj ET")
    assert page_text(b) == "near far"
    with open_document(b.to_bytes()) as doc:
        table = doc.page_glyphs(1).table
    assert table.origin[4][0] == pytest.approx(72 + text_width("near") + 24)


@pytest.mark.parametrize(
    "operands",
    [
        "0.1 0 0 0.1 72.5 700.25",
        "-.5 0 0 .5 10. -0",
        "12345678901234567890 0 0 1 0 0",  # an integer past float precision
        "1 0 0 1 5 6 7",  # extra operands: the first six count
        "1 0 0 1 5",  # too few
        "1 0 0 1 /X 0",  # a name
        "1 0 0 1 (5) 0",
        "[1 0 0 1 0 0]",
        "",
    ],
)
def test_cm_and_tm_numbers_read_from_the_instruction_text_equal_the_operands(operands):
    # cm and Tm read their six numbers from the unparsed instruction (cheaper
    # than pikepdf's Decimal operands); the result, or the error, must be the
    # one the operands give.
    from ragprep.extract.interpreter import _instruction_matrix, _matrix

    pdf = pikepdf.new()
    for operator in ("cm", "Tm"):
        (instruction,) = pikepdf.parse_content_stream(pikepdf.Stream(pdf, f"{operands} {operator}".encode()))
        try:
            expected: object = _matrix(instruction.operands)
        except Exception as exc:
            expected = (type(exc), str(exc))
        try:
            got: object = _instruction_matrix(instruction)
        except Exception as exc:
            got = (type(exc), str(exc))
        assert got == expected
