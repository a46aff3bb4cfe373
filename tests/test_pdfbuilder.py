"""Tests of the fixture builder itself and of the bundled samples it makes.

The builder is the ground truth of every extraction test, so its PDFs are
checked here against pikepdf's view of them and, for text, against an
independent extractor (pdfminer.six, already a dependency).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import make_samples
import pikepdf
import pytest
from pdfbuilder import PdfBuilder, hexstr, literal, pdf_object, text_width, to_unicode_cmap
from pikepdf import Array, Dictionary, Name

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "pipeline" / "samples"


# --------------------------------------------------------------------------- helpers


def reopen(builder: PdfBuilder) -> pikepdf.Pdf:
    return pikepdf.open(io.BytesIO(builder.to_bytes()))


def pdfminer_text(data: bytes) -> str:
    from pdfminer.high_level import extract_text

    return extract_text(io.BytesIO(data))


def parse_to_unicode(stream: pikepdf.Object) -> dict[bytes, str]:
    """bfchar entries of a ToUnicode CMap: code bytes -> text."""
    text = stream.read_bytes().decode("ascii")
    pairs = re.findall(r"<([0-9A-F]+)> <([0-9A-F]+)>", text.split("endcodespacerange")[1])
    return {bytes.fromhex(src): bytes.fromhex(dst).decode("utf-16-be") for src, dst in pairs}


def kids_of(node: pikepdf.Object) -> list:
    kids = node.get("/K", Array())
    return list(kids) if isinstance(kids, Array) else [kids]


def is_elem(obj: object) -> bool:
    return isinstance(obj, Dictionary) and obj.get("/Type") == Name.StructElem


def check_struct_tree(pdf: pikepdf.Pdf) -> None:
    """Every element's /P is its parent, and /ParentTree inverts the tree's MCIDs.

    The owner of an MCID is the content stream it lives in: the MCR's /Stm, else
    its /Pg, else the nearest /Pg up the tree (§14.7.2, §14.7.4).
    """
    root = pdf.Root.StructTreeRoot
    assert pdf.Root.MarkInfo.Marked is True
    claimed: dict[tuple[int, int], dict[int, tuple[int, int]]] = {}

    def walk(node: pikepdf.Object, page: pikepdf.Object | None) -> None:
        for kid in kids_of(node):
            if is_elem(kid):
                assert kid.P.objgen == node.objgen
                walk(kid, kid.get("/Pg", page))
                continue
            if isinstance(kid, int):
                owner, mcid = page, kid
            else:
                owner = kid.get("/Stm", kid.get("/Pg", page))
                mcid = int(kid.MCID)
            claimed.setdefault(owner.objgen, {})[mcid] = node.objgen

    walk(root, None)
    nums = list(root.ParentTree.Nums)
    tree = {int(nums[i]): nums[i + 1] for i in range(0, len(nums), 2)}
    assert int(root.ParentTreeNextKey) > max(tree)
    for owner_objgen, mcids in claimed.items():
        owner = pdf.get_object(owner_objgen)
        entry = tree[int(owner.StructParents)]
        for mcid, elem_objgen in mcids.items():
            assert entry[mcid].objgen == elem_objgen


def font_names_used(content: bytes) -> set[str]:
    return {m.decode() for m in re.findall(rb"/(\w+) [\d.]+ Tf", content)}


def canonical(pdf: pikepdf.Pdf) -> list[str]:
    """Every object reachable from the catalog and /Info, streams decoded.

    Indirect objects are numbered in traversal order, so two files compare equal
    when they hold the same objects, whatever the compression or object numbers
    the writer chose (those depend on the qpdf and zlib versions).
    """
    ids: dict[tuple[int, int], int] = {}
    order: list[pikepdf.Object] = []

    def ref(obj: pikepdf.Object) -> str:
        if obj.objgen not in ids:
            ids[obj.objgen] = len(ids)
            order.append(obj)
        return f"@{ids[obj.objgen]}"

    def render(obj: object, top: bool = False) -> str:
        if isinstance(obj, pikepdf.Object) and obj.is_indirect and not top:
            return ref(obj)
        if isinstance(obj, pikepdf.Stream):
            skip = {"/Length", "/Filter", "/DecodeParms"}
            entries = " ".join(f"{k} {render(obj[k])}" for k in sorted(obj.keys()) if k not in skip)
            return f"<<{entries}>> stream {obj.read_bytes().hex()}"
        if isinstance(obj, Dictionary):
            return "<<" + " ".join(f"{k} {render(obj[k])}" for k in sorted(obj.keys())) + ">>"
        if isinstance(obj, Array):
            return "[" + " ".join(render(v) for v in obj) + "]"
        if isinstance(obj, pikepdf.Object):
            return obj.unparse().decode("latin-1")
        return repr(obj)

    ref(pdf.Root)
    if "/Info" in pdf.trailer:
        ref(pdf.trailer.Info)
    out = []
    i = 0
    while i < len(order):
        out.append(render(order[i], top=True))
        i += 1
    return out


# --------------------------------------------------------------------------- string helpers


def test_hexstr_groups_two_byte_codes() -> None:
    assert hexstr(b"\x00\x01\x00\x02") == "<0001 0002>"
    assert hexstr(b"A") == "<41>"
    assert hexstr(b"") == "<>"


def test_literal_maps_winansi_and_escapes() -> None:
    assert literal("It’s (a) b\\c – é") == "(It\\222s \\(a\\) b\\\\c \\226 \\351)"
    with pytest.raises(ValueError):
        literal("日本")


def test_text_width_uses_standard_metrics() -> None:
    # Helvetica AFM: H 722, e 556, l 222, o 556.
    assert text_width("Hello", "Helvetica", 12) == pytest.approx(27.336)
    assert text_width("Hello", "Helvetica-Bold", 10) == pytest.approx(
        (722 + 556 + 278 + 278 + 611) / 100
    )
    with pytest.raises(ValueError):
        text_width("日", "Helvetica")


def test_pdf_object_conversion() -> None:
    obj = pdf_object({"MCID": 3, "Type": "/Pagination", "ActualText": "x", "N": [1, 2.5]})
    assert obj.MCID == 3 and obj.Type == Name.Pagination
    assert str(obj.ActualText) == "x" and list(obj.N) == [1, 2.5]


def test_to_unicode_cmap_writes_surrogate_pairs_and_blocks_of_100() -> None:
    mapping = {i.to_bytes(2, "big"): chr(0x4E00 + i) for i in range(1, 151)}
    mapping[b"\x00\x97"] = "𠮷"
    data = to_unicode_cmap(mapping)
    assert b"<0097> <D842DFB7>" in data
    assert data.count(b"beginbfchar") == 2 and b"100 beginbfchar" in data


# --------------------------------------------------------------------------- fonts


def test_standard_font_without_widths_relies_on_standard_metrics() -> None:
    b = PdfBuilder()
    name = b.add_standard_font()
    b.add_page(f"BT /{name} 12 Tf 72 700 Td (Hi) Tj ET")
    pdf = reopen(b)
    font = pdf.pages[0].Resources.Font[f"/{name}"]
    assert font.Subtype == Name.Type1 and font.BaseFont == Name.Helvetica
    assert font.Encoding == Name.WinAnsiEncoding
    for key in ("/Widths", "/FirstChar", "/LastChar", "/FontDescriptor"):
        assert key not in font


def test_standard_font_widths_follow_the_encoding() -> None:
    b = PdfBuilder()
    name = b.add_standard_font("Helvetica", widths=True, differences={65: "bullet", 66: "B"})
    b.add_page(f"BT /{name} 12 Tf (AB) Tj ET")
    pdf = reopen(b)
    font = pdf.pages[0].Resources.Font[f"/{name}"]
    assert (int(font.FirstChar), int(font.LastChar), len(font.Widths)) == (32, 255, 224)
    widths = [int(w) for w in font.Widths]
    assert widths[ord("a") - 32] == 556
    assert widths[65 - 32] == 350  # /bullet replaces A (667) through /Differences
    assert widths[0x92 - 32] == 222  # WinAnsi 0x92 is quoteright
    assert widths[0x81 - 32] == 0  # unassigned in WinAnsiEncoding
    assert font.Encoding.BaseEncoding == Name.WinAnsiEncoding
    assert list(font.Encoding.Differences) == [65, Name.bullet, Name.B]
    assert font.FontDescriptor.FontName == Name.Helvetica


def test_standard_font_builtin_encoding_uses_standard_encoding_widths() -> None:
    b = PdfBuilder()
    name = b.add_standard_font("Times-Roman", encoding=None, widths=True)
    font = b.font(name)
    assert "/Encoding" not in font
    # StandardEncoding 0x27 is quoteright (333 in Times-Roman), not quotesingle (180).
    assert int(font.Widths[0x27 - 32]) == 333


def test_symbolic_standard_font_refuses_widths() -> None:
    with pytest.raises(ValueError):
        PdfBuilder().add_standard_font("Symbol", encoding=None, widths=True)


def test_cid_font_structure_and_encode() -> None:
    b = PdfBuilder()
    name, encode = b.add_cid_font("日本語日本𠮷", widths=900)
    assert encode("本𠮷") == b"\x00\x02\x00\x04"
    with pytest.raises(ValueError):
        encode("x")
    b.add_page(f"BT /{name} 12 Tf 72 700 Td {hexstr(encode('日本語𠮷'))} Tj ET")
    pdf = reopen(b)
    font = pdf.pages[0].Resources.Font[f"/{name}"]
    assert font.Subtype == Name.Type0 and font.Encoding == Name("/Identity-H")
    assert font.BaseFont == Name("/FixtureCID-Identity-H")
    (cid_font,) = font.DescendantFonts
    assert cid_font.Subtype == Name.CIDFontType2 and int(cid_font.DW) == 900
    info = cid_font.CIDSystemInfo
    assert (str(info.Registry), str(info.Ordering)) == ("Adobe", "Identity")
    assert int(info.Supplement) == 0
    descriptor = cid_font.FontDescriptor
    assert not any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3"))
    assert parse_to_unicode(font.ToUnicode) == {
        b"\x00\x01": "日",
        b"\x00\x02": "本",
        b"\x00\x03": "語",
        b"\x00\x04": "𠮷",
    }


def test_cid_font_text_reads_back_in_an_independent_extractor() -> None:
    b = PdfBuilder()
    name, encode = b.add_cid_font("文字抽出𠮷野家")
    b.add_page(f"BT /{name} 12 Tf 72 700 Td {hexstr(encode('文字抽出𠮷野家'))} Tj ET")
    assert pdfminer_text(b.to_bytes()).strip() == "文字抽出𠮷野家"


def test_cid_font_vertical_and_without_to_unicode() -> None:
    b = PdfBuilder()
    name, _ = b.add_cid_font("縦書き", vertical=True, to_unicode=False)
    font = b.font(name)
    assert font.Encoding == Name("/Identity-V") and "/ToUnicode" not in font


def test_type3_font() -> None:
    b = PdfBuilder()
    name = b.add_type3_font({"A": 65, "C": 67, "g7": 70}, width=500, to_unicode={70: "F"})
    b.add_page(f"BT /{name} 12 Tf 72 700 Td (ACF) Tj ET")
    pdf = reopen(b)
    font = pdf.pages[0].Resources.Font[f"/{name}"]
    assert font.Subtype == Name.Type3
    assert [float(v) for v in font.FontMatrix] == [0.001, 0, 0, 0.001, 0, 0]
    assert (int(font.FirstChar), int(font.LastChar)) == (65, 70)
    assert [float(w) for w in font.Widths] == [500, 0, 500, 0, 0, 500]
    assert list(font.Encoding.Differences) == [65, Name.A, 67, Name.C, 70, Name.g7]
    assert sorted(font.CharProcs.keys()) == ["/A", "/C", "/g7"]
    proc = font.CharProcs.A.read_bytes()
    assert b" d1 " in proc and proc.endswith(b" re f")
    assert parse_to_unicode(font.ToUnicode) == {b"F": "F"}


# --------------------------------------------------------------------------- pages and forms


def test_page_content_is_written_byte_for_byte() -> None:
    content = "BT /F1 12 Tf 72 700 Td (caf\xe9 \\(x\\)) Tj ET % comment\n"
    b = PdfBuilder()
    b.add_standard_font()
    b.add_page(content)
    pdf = reopen(b)
    assert pdf.pages[0].Contents.read_bytes() == content.encode("latin-1")


def test_content_list_becomes_contents_array() -> None:
    pieces = ["BT /F1 12 Tf 72 700 Td (Hel", b"lo) Tj ET"]
    b = PdfBuilder()
    b.add_page(pieces)
    pdf = reopen(b)
    contents = pdf.pages[0].obj.Contents
    assert isinstance(contents, Array)
    assert [s.read_bytes() for s in contents] == [b"BT /F1 12 Tf 72 700 Td (Hel", b"lo) Tj ET"]


def test_page_boxes_rotation_properties_struct_parents() -> None:
    b = PdfBuilder()
    b.add_page(
        "/Span /MC0 BDC EMC",
        mediabox=(0, 0, 300, 400),
        cropbox=(10, 10, 290, 390),
        rotate=90,
        properties={"MC0": {"MCID": 4, "ActualText": "fi"}},
        struct_parents=7,
    )
    pdf = reopen(b)
    page = pdf.pages[0].obj
    assert list(page.MediaBox) == [0, 0, 300, 400] and list(page.CropBox) == [10, 10, 290, 390]
    assert int(page.Rotate) == 90 and int(page.StructParents) == 7
    assert int(page.Resources.Properties.MC0.MCID) == 4
    assert str(page.Resources.Properties.MC0.ActualText) == "fi"


def test_fonts_added_later_reach_every_page_and_resourced_form() -> None:
    b = PdfBuilder()
    early = b.add_standard_font()
    form = b.add_form(f"BT /{early} 9 Tf (f) Tj ET")
    b.add_page(f"BT /{early} 12 Tf (a) Tj ET /Fm0 Do", xobjects={"Fm0": form})
    late = b.add_standard_font("Courier")
    b.add_page(f"BT /{late} 12 Tf (b) Tj ET")
    pdf = reopen(b)
    for page in pdf.pages:
        assert {f"/{early}", f"/{late}"} <= set(page.Resources.Font.keys())
        for name in font_names_used(page.Contents.read_bytes()):
            assert f"/{name}" in page.Resources.Font
    form = pdf.pages[0].Resources.XObject.Fm0
    assert form.Resources.Font.objgen == pdf.pages[1].Resources.Font.objgen


def test_form_xobject_fields_and_inheritance() -> None:
    b = PdfBuilder()
    inner = b.add_form("BT /F1 10 Tf (in) Tj ET", resources=False)
    outer = b.add_form(
        "/Inner Do", bbox=(0, 0, 100, 50), matrix=(2, 0, 0, 2, 10, 20), xobjects={"Inner": inner}
    )
    b.add_page("/Outer Do", xobjects={"Outer": outer})
    pdf = reopen(b)
    outer = pdf.pages[0].Resources.XObject.Outer
    assert outer.Subtype == Name.Form and list(outer.BBox) == [0, 0, 100, 50]
    assert list(outer.Matrix) == [2, 0, 0, 2, 10, 20]
    inner = outer.Resources.XObject.Inner
    assert "/Resources" not in inner and "/Matrix" not in inner
    with pytest.raises(ValueError):
        b.add_form("", resources=False, xobjects={"X": inner})


def test_set_form_xobject_builds_cycles() -> None:
    b = PdfBuilder()
    a = b.add_form("/A Do /B Do")
    c = b.add_form("/A Do", resources=False)
    b.set_form_xobject(a, "A", a)
    b.set_form_xobject(a, "B", c)
    b.set_form_xobject(c, "A", a)
    b.add_page("/A Do", xobjects={"A": a})
    pdf = reopen(b)
    form_a = pdf.pages[0].Resources.XObject.A
    assert form_a.Resources.XObject.A.objgen == form_a.objgen
    form_c = form_a.Resources.XObject.B
    assert form_c.Resources.XObject.A.objgen == form_a.objgen
    assert "/Font" not in form_c.Resources


# --------------------------------------------------------------------------- output


def test_output_is_deterministic_and_has_no_info() -> None:
    def build() -> bytes:
        b = PdfBuilder()
        name = b.add_standard_font(widths=True)
        b.add_page(f"BT /{name} 12 Tf 72 700 Td (Same) Tj ET")
        return b.to_bytes()

    first = build()
    assert first == build()
    pdf = pikepdf.open(io.BytesIO(first))
    assert "/Info" not in pdf.trailer and pdf.pdf_version == "1.7"


def test_save_writes_to_bytes(tmp_path: Path) -> None:
    b = PdfBuilder()
    b.add_page("")
    b.save(tmp_path / "x.pdf")
    assert (tmp_path / "x.pdf").read_bytes() == b.to_bytes()


def test_encrypted_bytes_need_the_user_password() -> None:
    b = PdfBuilder()
    b.add_standard_font()
    b.add_page("BT /F1 12 Tf (secret) Tj ET")
    data = b.encrypted_bytes(user_password="pw")
    with pytest.raises(pikepdf.PasswordError):
        pikepdf.open(io.BytesIO(data))
    pdf = pikepdf.open(io.BytesIO(data), password="pw")
    assert pdf.is_encrypted and pdf.encryption.R == 6
    assert pdf.encryption.stream_method.name == "aesv3"
    assert pdf.pages[0].Contents.read_bytes() == b"BT /F1 12 Tf (secret) Tj ET"


# --------------------------------------------------------------------------- structure tree


def test_struct_tree_wiring_and_parent_tree() -> None:
    b = PdfBuilder()
    b.add_standard_font()
    form = b.add_form("/P <</MCID 0>> BDC BT /F1 9 Tf (f) Tj ET EMC")
    p1 = b.add_page(
        "/P <</MCID 0>> BDC EMC /Span <</MCID 2>> BDC EMC /Fm0 Do", xobjects={"Fm0": form}
    )
    p2 = b.add_page("/P <</MCID 0>> BDC EMC", struct_parents=5)
    para = b.struct_element("P", [0, b.mcr(0, page=p1, stream=form)], page=p1)
    inherit = b.struct_element("Span", [2])  # page from the ancestor's /Pg
    sect = b.struct_element("Sect", [para, inherit], page=p1, lang="en", alt="a section")
    other = b.struct_element("Para", [b.mcr(0, page=p2)], actual_text="x", attrs={"O": "/Layout"})
    b.set_struct_tree([sect, other], role_map={"Para": "P"})
    pdf = reopen(b)
    check_struct_tree(pdf)
    root = pdf.Root.StructTreeRoot
    assert root.RoleMap.Para == Name.P
    assert int(pdf.pages[1].StructParents) == 5  # explicit key kept
    assert int(pdf.pages[0].StructParents) == 0
    assert "/StructParents" in pdf.pages[0].Resources.XObject.Fm0
    sect = root.K[0]
    assert str(sect.Lang) == "en" and str(sect.Alt) == "a section" and sect.P.objgen == root.objgen
    assert str(root.K[1].ActualText) == "x" and Name.Layout == root.K[1].A.O
    # The ParentTree array for page 1 has a null hole at the unreferenced MCID 1.
    nums = list(root.ParentTree.Nums)
    page1 = nums[nums.index(0) + 1]
    assert len(page1) == 3 and page1[1] is None


def test_set_struct_tree_without_parent_tree() -> None:
    b = PdfBuilder()
    page = b.add_page("/P <</MCID 0>> BDC EMC")
    b.set_struct_tree([b.struct_element("P", [0], page=page)], parent_tree=False)
    pdf = reopen(b)
    assert "/ParentTree" not in pdf.Root.StructTreeRoot
    assert "/StructParents" not in pdf.pages[0]


def test_mcid_without_page_is_an_error_only_with_a_parent_tree() -> None:
    b = PdfBuilder()
    b.add_page("")
    orphan = b.struct_element("P", [0])
    with pytest.raises(ValueError, match="no page"):
        b.set_struct_tree([orphan])
    b.set_struct_tree([orphan], parent_tree=False)


def test_set_struct_tree_twice_rebuilds_keys() -> None:
    b = PdfBuilder()
    p1 = b.add_page("/P <</MCID 0>> BDC EMC")
    p2 = b.add_page("/P <</MCID 0>> BDC EMC")
    e1 = b.struct_element("P", [0], page=p1)
    e2 = b.struct_element("P", [0], page=p2)
    b.set_struct_tree([e1, e2])
    b.set_struct_tree([e2])
    pdf = reopen(b)
    check_struct_tree(pdf)
    assert "/StructParents" not in pdf.pages[0] and int(pdf.pages[1].StructParents) == 0


# --------------------------------------------------------------------------- samples


@pytest.fixture(scope="module")
def samples() -> dict[str, bytes]:
    return make_samples.build_samples()


def test_samples_are_deterministic(samples: dict[str, bytes]) -> None:
    assert make_samples.build_samples() == samples


def test_samples_script_writes_every_sample(tmp_path: Path, samples: dict[str, bytes]) -> None:
    assert make_samples.main(["make_samples.py", str(tmp_path)]) == 0
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == samples


@pytest.mark.parametrize("name", sorted(make_samples.SAMPLES))
def test_committed_samples_equal_fresh_ones(name: str, samples: dict[str, bytes]) -> None:
    """Same objects and decoded streams; bytes may differ only by qpdf/zlib version."""
    committed = (SAMPLES_DIR / name).read_bytes()
    assert len(committed) < 16_000
    if committed != samples[name]:
        fresh = canonical(pikepdf.open(io.BytesIO(samples[name])))
        assert canonical(pikepdf.open(io.BytesIO(committed))) == fresh, (
            f"{name} is stale: run python tests/make_samples.py"
        )


def mcid_texts(page: pikepdf.Page) -> list[tuple[int, str]]:
    """(MCID, text) per marked-content sequence, in content-stream order (WinAnsi text)."""
    out: list[tuple[int, str]] = []
    current: int | None = None
    for operands, operator in pikepdf.parse_content_stream(page):
        op = str(operator)
        if op == "BDC" and isinstance(operands[1], Dictionary) and "/MCID" in operands[1]:
            current = int(operands[1].MCID)
            out.append((current, ""))
        elif op == "EMC":
            current = None
        elif op in ("Tj", "TJ") and current is not None:
            items = operands[0] if op == "TJ" else [operands[0]]
            words = [bytes(s).decode("cp1252") for s in items if isinstance(s, pikepdf.String)]
            out[-1] = (current, out[-1][1] + " ".join(words))
    return out


def structure_order(pdf: pikepdf.Pdf) -> list[tuple[tuple[int, int], int, str]]:
    """(page objgen, MCID, struct type) in the tree's depth-first order."""
    out = []

    def walk(node: pikepdf.Object, page: pikepdf.Object | None) -> None:
        for kid in kids_of(node):
            if is_elem(kid):
                walk(kid, kid.get("/Pg", page))
            elif isinstance(kid, int):
                out.append((page.objgen, kid, str(node.S)[1:]))

    walk(pdf.Root.StructTreeRoot, None)
    return out


def test_tagged_article_stream_order_is_interleaved_structure_order_is_not(
    samples: dict[str, bytes],
) -> None:
    pdf = pikepdf.open(io.BytesIO(samples["tagged-two-column-article.pdf"]))
    check_struct_tree(pdf)
    assert len(pdf.pages) == 2 and str(pdf.Root.Lang) == "en-US"
    texts = {(page.obj.objgen, mcid): text for page in pdf.pages for mcid, text in mcid_texts(page)}
    order = structure_order(pdf)
    assert sorted((og, m) for og, m, _ in order) == sorted(texts)  # every MCID in the tree once

    by_tree = " ".join(texts[(og, m)] for og, m, _ in order)
    expected_parts = [make_samples.ARTICLE_TITLE, make_samples.ARTICLE_SUBTITLE]
    for left, right in make_samples.ARTICLE_PAGES:
        expected_parts += [text for _, text in left] + [text for _, text in right]
    assert by_tree == " ".join(expected_parts)

    page1 = mcid_texts(pdf.pages[0])
    # After title and subtitle the stream paints the two column headings back to back.
    assert [t for _, t in page1[2:4]] == [
        make_samples.ARTICLE_PAGES[0][0][0][1],
        make_samples.ARTICLE_PAGES[0][1][0][1],
    ]
    types = [t for _, _, t in order]
    assert types[:2] == ["H1", "P"] and types.count("H1") == 1 and types.count("H2") == 4
    for page_no, page in enumerate(pdf.pages, start=1):
        content = page.Contents.read_bytes()
        assert b"/Artifact <</Type /Pagination /Subtype /Footer>> BDC" in content
        assert f"(Page {page_no} of 2)".encode() in content
    words = sum(len(t.split()) for t in expected_parts)
    assert 300 <= words <= 500


def test_untagged_report(samples: dict[str, bytes]) -> None:
    data = samples["untagged-report.pdf"]
    pdf = pikepdf.open(io.BytesIO(data))
    assert "/StructTreeRoot" not in pdf.Root and 2 <= len(pdf.pages) <= 3
    for page in pdf.pages:
        for name, font in page.Resources.Font.items():
            assert len(font.Widths) == 224, name
    text = pdfminer_text(data)
    assert make_samples.REPORT_TITLE in text and "pdfminer.six" in text
    assert f"Page {len(pdf.pages)} of {len(pdf.pages)}" in text


def test_cjk_page(samples: dict[str, bytes]) -> None:
    data = samples["cjk-page.pdf"]
    pdf = pikepdf.open(io.BytesIO(data))
    assert len(pdf.pages) == 1
    encodings = {str(f.Encoding) for f in pdf.pages[0].Resources.Font.values()}
    assert encodings == {"/Identity-H", "/Identity-V"}
    text = pdfminer_text(data).replace("\n", "")
    assert make_samples.CJK_TITLE in text
    assert make_samples.CJK_PARAGRAPH in text
