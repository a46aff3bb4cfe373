"""The compiled core against the pure-Python reference interpreter.

Both paths read the same PDF (RAGPREP_PURE selects the reference); every
column of every page's glyph table, the image placements, and the page text
in all four modes must be identical. Inputs: PDFs built here to exercise each
operator family, the bundled samples, and (slow) every page of the corpus.
"""

from __future__ import annotations

import gc
import io
import struct
from pathlib import Path

import numpy as np
import pikepdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from codepath import on_path
from corpusdir import corpus_paths, tagged_paths
from pdfbuilder import PdfBuilder

from ragprep.extract import ExtractConfig, GlyphTable, PDFReadError, extract_document, open_document
from ragprep.extract.compiled import compiled_available
from ragprep.extract.paths import PathTable
from ragprep.extract.structure import read_struct_tree

MODES = ("stream", "structure", "layout", "auto")
SAMPLES = sorted((Path(__file__).resolve().parents[2] / "pipeline" / "samples").glob("*.pdf"))

pytestmark = pytest.mark.skipif(
    not compiled_available(), reason="the compiled core is not built (pip install compiles extract/_core.c)"
)


def assert_same_table(pure: GlyphTable, compiled: GlyphTable, where: str) -> None:
    assert pure.fonts == compiled.fonts, where
    for name, value in pure.__dict__.items():
        if name == "fonts":
            continue
        other = getattr(compiled, name)
        assert value.dtype == other.dtype and value.shape == other.shape, f"{where}: column {name}"
        if value.dtype == object:
            assert value.tolist() == other.tolist(), f"{where}: column {name}"
        else:
            assert np.array_equal(value, other, equal_nan=value.dtype.kind == "f"), f"{where}: column {name}"


def assert_same_paths(pure: PathTable, compiled: PathTable, where: str) -> None:
    for name, value in pure.__dict__.items():
        other = getattr(compiled, name)
        assert value.dtype == other.dtype and value.shape == other.shape, f"{where}: path column {name}"
        assert np.array_equal(value, other, equal_nan=value.dtype.kind == "f"), f"{where}: path column {name}"


def read_all(source: Path | bytes, config: ExtractConfig | None = None) -> tuple[list, dict[str, list[str]]]:
    """Per page (glyph table, images, warnings, paths), and the page texts per
    mode as extract_document reads them (all pages together).

    Each page is interpreted once: the four modes read the document's own
    interpretations (Document.page_glyphs is deterministic, so this is the
    text extract_document gives, which a test below checks), which keeps the
    corpus-wide comparison of every page within CI's time."""
    with open_document(source, config=config) as doc:
        interpreted = {number: doc.page_glyphs(number) for number in range(1, doc.page_count + 1)}
        pages = [(g.table, g.images, g.warnings, g.paths) for g in interpreted.values()]
        doc.page_glyphs = interpreted.__getitem__  # type: ignore[method-assign]
        texts = {mode: [p.text for p in doc.extract_pages(tuple(interpreted), mode)] for mode in MODES}
    return pages, texts


def assert_paths_agree(
    monkeypatch: pytest.MonkeyPatch, source: Path | bytes, name: str, config: ExtractConfig | None = None
) -> None:
    with on_path(monkeypatch, pure=True):
        pure_pages, pure_texts = read_all(source, config)
    with on_path(monkeypatch, pure=False):
        compiled_pages, compiled_texts = read_all(source, config)
    assert len(pure_pages) == len(compiled_pages)
    for number, (pure, compiled) in enumerate(zip(pure_pages, compiled_pages, strict=True), start=1):
        assert_same_table(pure[0], compiled[0], f"{name} page {number}")
        assert pure[1] == compiled[1], f"{name} page {number}: images"
        assert_same_paths(pure[3], compiled[3], f"{name} page {number}")
    for mode in MODES:
        assert pure_texts[mode] == compiled_texts[mode], f"{name}: {mode} text"


def test_modes_read_from_one_interpretation_give_extract_documents_text():
    """read_all's shortcut (each page interpreted once, every mode reading
    those tables) gives the texts a fresh extract_document gives per mode,
    on pages where the modes differ: two columns, a rule, marked content,
    and a running header (a rule over all the pages read together)."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    for number in range(1, 4):
        b.add_page(
            f"BT /{f} 9 Tf 72 760 Td (Annual report) Tj ET "
            f"/P <</MCID 0>> BDC BT /{f} 11 Tf 72 700 Td (Left column page {number}) Tj 0 -14 Td (goes on) Tj ET EMC "
            f"BT /{f} 11 Tf 320 700 Td (Right column) Tj 0 -14 Td (ends here) Tj ET "
            "72 600 m 540 600 l S"
        )
    source = b.to_bytes()
    _, texts = read_all(source)
    for mode in MODES:
        assert texts[mode] == [p.text for p in extract_document(source, mode=mode).pages], mode
    # The running header is a rule over the pages read together: it held.
    assert all("Annual report" in t for t in texts["stream"])
    assert not any("Annual report" in t for t in texts["layout"] + texts["auto"])


def test_paths_are_selectable(monkeypatch: pytest.MonkeyPatch):
    from ragprep.extract.compiled import CompiledPageInterpreter, interpreter_class
    from ragprep.extract.interpreter import PageInterpreter

    with on_path(monkeypatch, pure=True):
        assert interpreter_class() is PageInterpreter
    with on_path(monkeypatch, pure=False):
        assert interpreter_class() is CompiledPageInterpreter


# -- built PDFs, one per operator family --------------------------------------


def _text_state_pdf() -> bytes:
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    g = b.add_standard_font("Times-Roman", widths=True)
    b.add_page(
        f"q 1 0 0 1 10 20 cm BT /{f} 12 Tf 72 700 Td 1.5 Tc 2 Tw 90 Tz 14 TL 3 Ts (Hello world) Tj T* "
        f"(next line) ' 1 0.5 (quoted) \" 0 Ts 100 Tz 0 Tc 0 Tw ET Q "
        f"BT /{g} 10 Tf 0.9 0.1 -0.1 0.9 50 600 Tm [(Kern)-120(ed)250( words) 30] TJ "
        f"0 -20 TD (after TD) Tj 3 Tr (hidden) Tj 0 Tr [(a)] TJ [] TJ () Tj ET "
        f"q 0.5 0 0 0.5 0 0 cm BT /{f} 20 Tf 100 100 Td (scaled) Tj ET Q "
        f"BT /{f} 9 Tf 300 300 Td .5 -.25 Td (dots) Tj +3 -2. Td (signs) Tj ET"
    )
    return b.to_bytes()


def test_text_state_and_positioning_agree(monkeypatch: pytest.MonkeyPatch):
    assert_paths_agree(monkeypatch, _text_state_pdf(), "text state")


def test_forms_marked_content_and_actual_text_agree(monkeypatch: pytest.MonkeyPatch):
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    inner = b.add_form(f"BT /{f} 10 Tf 0 0 Td (inner form) Tj ET Q Q", bbox=(0, 0, 200, 50))
    outer = b.add_form(
        f"/P <</MCID 7>> BDC BT /{f} 11 Tf 5 30 Td (outer form) Tj ET EMC /Span <</MCID 8>> BDC /Inner Do",
        xobjects={"Inner": inner}, matrix=(1, 0, 0, 1, 30, 40), bbox=(0, 0, 100, 60),
    )  # fmt: skip
    looping = b.add_form(f"BT /{f} 9 Tf 0 0 Td (loop) Tj ET /Self Do", resources=False)
    b.set_form_xobject(looping, "Self", looping)
    b.add_page(
        f"/Artifact BMC BT /{f} 8 Tf 72 760 Td (running head) Tj ET EMC "
        f"/P <</MCID 0>> BDC BT /{f} 12 Tf 72 700 Td (tagged) Tj ET EMC "
        f"/Span <</ActualText (ffi)>> BDC BT /{f} 12 Tf 72 680 Td (\\203x) Tj ET EMC "
        f"/Span <</MCID 1 /ActualText <FEFF00410042>>> BDC BT /{f} 12 Tf 72 660 Td (zz) Tj ET EMC "
        f"/Span /Named BDC BT /{f} 12 Tf 72 640 Td (named) Tj ET EMC "
        f"/Span <</MCID (bad)>> BDC BT /{f} 12 Tf 72 620 Td (bad mcid) Tj ET EMC "
        f"q q 2 0 0 2 0 0 cm /Outer Do Q /Outer Do /Loop Do EMC EMC Q Q "
        f"BT /{f} 12 Tf 72 500 Td (after forms) Tj ET",
        xobjects={"Outer": outer, "Loop": looping},
        properties={"Named": {"MCID": 4, "ActualText": "named text"}},
    )
    assert_paths_agree(monkeypatch, b.to_bytes(), "forms")
    assert_paths_agree(monkeypatch, b.to_bytes(), "form depth", ExtractConfig(max_form_depth=1))


def test_composite_vertical_and_type3_fonts_agree(monkeypatch: pytest.MonkeyPatch):
    b = PdfBuilder()
    horizontal, encode = b.add_cid_font("漢字かな交じり文ABC")
    vertical, encode_v = b.add_cid_font("縦書きの文章です", vertical=True, base_font="FixtureCIDV")
    t3 = b.add_type3_font({"a": 97, "b": 98, "space": 32})
    b.add_page(
        f"BT /{horizontal} 12 Tf 72 700 Td <{encode('漢字かな').hex()}> Tj "
        f"[<{encode('交じり').hex()}> -500 <{encode('文ABC').hex()}>] TJ ET "
        f"BT /{vertical} 14 Tf 400 700 Td 1 Tc <{encode_v('縦書きの').hex()}> Tj "
        f"[<{encode_v('文章').hex()}> 200 <{encode_v('です').hex()}>] TJ 0 -100 Td 30 TL T* "
        f"<{encode_v('縦書き').hex()}> Tj ET "
        f"BT /{t3} 20 Tf 72 400 Td 3 Tw (ab ba) Tj [(a) -1000 (b)] TJ ET "
        # Strings the core cannot split itself (an odd byte) and a fallback
        # font's, between two-byte strings: every decoding kind on one page.
        f"BT /{horizontal} 12 Tf 72 300 Td <{encode('漢字').hex()}41> Tj /Missing 10 Tf (xy) Tj "
        f"/{horizontal} 12 Tf <{encode('かな').hex()}> Tj ET"
    )
    assert_paths_agree(monkeypatch, b.to_bytes(), "composite fonts")


def test_inline_images_comments_and_unknown_operators_agree(monkeypatch: pytest.MonkeyPatch):
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(
        f"BT /{f} 12 Tf 72 700 Td (before) Tj ET % a comment (not text) Tj\n"
        "q 10 0 0 10 100 100 cm BI /W 2 /H 1 /BPC 8 /CS /G ID \x00\xff EI Q "
        "0 0 m 100 100 l S 1 0 0 RG 10 10 50 50 re f "
        f"BT /{f} 12 Tf 72 680 Td (after) Tj (esc\\(aped\\) \\101\\n) Tj <48 65 6C 6C 6F> Tj <4> Tj ET"
    )
    assert_paths_agree(monkeypatch, b.to_bytes(), "inline image")


def test_damaged_operands_agree(monkeypatch: pytest.MonkeyPatch):
    # Each damage the reference recovers from (interpreter._recover,
    # _interpret_damaged), one per line, between lines of good text.
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    damages = [
        "5 Tj", "/N Tj", "true Tj", "[(a) /N 3] TJ", "[(a) [(b)] (c)] TJ", "[(a) true] TJ", "(x) TJ",
        "(kept) ) (also) Tj", ") (after paren) Tj", "{ } Tj", "null [(retried)] TJ", "1 2 3 Td", "1 Td",
        "5 12 Tf", "12 Tf", f"/{f} /{f} 11 Tf", "[1 0 R] TJ", "1 0 R Tj", "[ (inside) Tj ] TJ",
        "/P << /A 1 0 R >> BDC (marked) Tj EMC", "/P <</MCID 3 /X [1 2 foo]>> BDC (m) Tj EMC",
        "<4142zz43> Tj", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 (many) Tj",
        "(a) (b) (c) (d) (e) (f) (g) (h) (i) (j) null \" 1 2 (dq) \"", "BI /W 1 /H 1 ID x EI(img) Tj",
    ]  # fmt: skip
    lines = " ".join(f"0 -14 Td (line{i}) Tj {damage}" for i, damage in enumerate(damages))
    b.add_page(f"BT /{f} 12 Tf 72 760 Td {lines} (last) Tj ET (unterminated")
    assert_paths_agree(monkeypatch, b.to_bytes(), "damaged operands")


@settings(max_examples=2000, deadline=None)
@given(sign=st.sampled_from(["", "-", "+"]), whole=st.text("0123456789", max_size=12), fraction=st.text("0123456789", max_size=24))
def test_the_core_reads_reals_as_python_floats(sign: str, whole: str, fraction: str):
    # The core's shortcut for reals of few digits (one exact division) and its
    # strtod for the rest must both give float()'s double, bit for bit.
    from ragprep.extract import _core  # type: ignore[attr-defined]

    text = f"{sign}{whole}.{fraction}"
    if not whole and not fraction:
        return  # "." and "-." are not numbers
    (value,) = _core.parse_object(f"[{text}]".encode())
    assert struct.pack("<d", value) == struct.pack("<d", float(text)), text


def test_the_core_counts_operators_as_the_reference_counts_them():
    from ragprep.extract import _core  # type: ignore[attr-defined]
    from ragprep.extract.operators import count_operators

    streams = [
        b"q 1 0 0 1 5 5 cm 0 0 m 10 10 l S % Tj in a comment\n/Name true false null 1.5 -.5 +3 re f* Q",
        b"BI /W 2 /H 1 /BPC 8 /CS /G ID \x00EI\xff EI q BI /W 1 ID \nEI Q 12x -1- 1.2.3 . +. EMC",
        b"(a (nested) string) [(a) -5 (b) [1 [2]]] << /A << /B [3] >> >> 0 0 m <48656c6c6f> n {x} }",
        b"[1 0 R] S << /A 1 0 R >> f [ (x) Tj ] n",
    ]
    class Host:  # the callbacks these streams reach: no font, form or marked content
        def __init__(self) -> None:
            self.said: list[object] = []

        def warn(self, message: str) -> None:
            self.said.append(message)

        def skipped(self, raw: bytes) -> None:
            self.said.append(raw)

    for data in streams:
        host = Host()
        core = _core.Core(host, 10**9)
        core.run(data)
        assert core.results()[7] == count_operators(data), (data, host.said)


def _paths_pdf() -> bytes:
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    form = b.add_form("0 0 m 50 0 l S 5 5 20 10 re f", matrix=(1, 0, 0, 1, 300, 300), bbox=(0, 0, 100, 100))
    b.add_page(
        # Every construction and painting operator, upright, scaled and rotated CTMs.
        "10 10 m 100 10 l 100 50 l h S 20 20 m 80 80 l s 10 10 200 100 re f 0 0 m 5 5 l 5 0 l f* "
        "q 2 0 0 -1 50 700 cm 0 0 40 20 re B 0 0 m 10 0 10 10 20 10 c 30 30 l b Q "
        "q 0 1 -1 0 400 100 cm 0 0 60 30 re S 0 0 m 10 10 20 20 v 40 0 l B* 5 5 m 1 1 9 9 y h b* Q "
        "0 0 m 100 100 l n 50 50 m 60 60 l W n 1 1 m 2 2 l F "
        # Damaged operands: too few, too many, not numbers, a lone line, h with no path.
        "1 m 1 2 3 m 4 5 l S (x) 1 2 m 3 4 l S 5 6 l S h S 1 2 3 re 1 2 3 4 5 re f "
        "1 2 3 4 5 c 1 2 3 4 5 6 c 7 8 l S /N 1 2 3 4 re f true 0 m 9 9 l S "
        f"/Fm Do BT /{f} 12 Tf 72 600 Td (text between paths) Tj ET 0 0 m 612 792 l S",
        xobjects={"Fm": form},
    )
    return b.to_bytes()


def test_path_pieces_agree(monkeypatch: pytest.MonkeyPatch):
    assert_paths_agree(monkeypatch, _paths_pdf(), "paths")
    with on_path(monkeypatch, pure=False), open_document(_paths_pdf()) as doc:
        assert len(doc.page_glyphs(1).paths) > 20  # the page's pieces are recorded, not lost


def test_path_piece_limit_agrees(monkeypatch: pytest.MonkeyPatch):
    config = ExtractConfig(max_path_pieces_per_page=7)
    assert_paths_agree(monkeypatch, _paths_pdf(), "path limit", config)
    with on_path(monkeypatch, pure=False), open_document(_paths_pdf(), config=config) as doc:
        glyphs = doc.page_glyphs(1)
        assert len(glyphs.paths) == 7
        assert any(w.setting == "extract.max_path_pieces_per_page" for w in glyphs.warnings)


def test_operator_limit_agrees(monkeypatch: pytest.MonkeyPatch):
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT /{f} 12 Tf 72 700 Td (first) Tj 0 -14 Td (second) Tj ET")
    assert_paths_agree(monkeypatch, b.to_bytes(), "limit", ExtractConfig(max_operators_per_page=4))


def test_text_before_any_font_and_missing_font_agree(monkeypatch: pytest.MonkeyPatch):
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica", widths=True)
    b.add_page(f"BT 72 700 Td (no font) Tj /Missing 12 Tf (missing) Tj /{f} 12 Tf (found) Tj ET")
    assert_paths_agree(monkeypatch, b.to_bytes(), "fallback fonts")


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_bundled_samples_agree(monkeypatch: pytest.MonkeyPatch, sample: Path):
    assert_paths_agree(monkeypatch, sample, sample.name)


# -- the corpus -----------------------------------------------------------------


@pytest.mark.slow
# Every manifest file, broken/ too: damaged files are where the two paths' recovery rules meet.
@pytest.mark.parametrize("relpath", corpus_paths() or ["<corpus absent>"])
def test_corpus_file_agrees(monkeypatch: pytest.MonkeyPatch, corpus: Path, relpath: str):
    assert_paths_agree_or_fail_alike(monkeypatch, corpus / relpath, relpath)


def assert_paths_agree_or_fail_alike(monkeypatch: pytest.MonkeyPatch, source: Path, name: str) -> None:
    """A file either path cannot open, both must refuse with the same typed
    error and message (damaged trailers, passwords, empty files)."""
    try:
        assert_paths_agree(monkeypatch, source, name)
    except PDFReadError:
        pure_error, compiled_error = (_refusal(monkeypatch, source, pure) for pure in (True, False))
        assert pure_error is not None and compiled_error is not None, f"{name}: one path opens it"
        assert (type(pure_error), str(pure_error)) == (type(compiled_error), str(compiled_error)), name


def _refusal(monkeypatch: pytest.MonkeyPatch, source: Path, pure: bool) -> PDFReadError | None:
    with on_path(monkeypatch, pure=pure):
        try:
            read_all(source, None)
        except PDFReadError as exc:
            return exc
    return None


@pytest.mark.slow
def test_compiled_tree_walk_equals_the_python_walk_on_the_tagged_corpus(monkeypatch: pytest.MonkeyPatch, corpus: Path):
    """_core.walk_struct against _Walker's own steps over the same plain
    values: every element, page's content, OBJR count and warning equal."""
    import pikepdf

    from ragprep.extract import structure

    compared = 0
    for relpath in tagged_paths():
        try:
            with pikepdf.open(corpus / relpath) as pdf:
                compiled = structure.read_struct_tree(pdf)
        except (pikepdf.PdfError, pikepdf.PasswordError):
            continue  # encrypted or damaged past opening: the tree is never read
        with monkeypatch.context() as m, pikepdf.open(corpus / relpath) as pdf:
            m.setattr(structure._Walker, "_compiled_walk", lambda self: None)
            m.setattr(structure._Walker, "_node_walk", False)
            reference = structure.read_struct_tree(pdf)
        assert compiled == reference, relpath
        compared += len(compiled.elements) if compiled else 0
    assert compared > 10_000


@pytest.mark.parametrize("object_streams", [False, True])
def test_a_trees_elements_are_columns_the_collector_does_not_walk(monkeypatch, object_streams):
    """A tree (tens of thousands of elements on a long document) holds them
    as columns (structure_columns.py), read by the compiled walks over plain
    values and over the nodes alike: the objects the cyclic collector tracks
    do not grow with the elements, so the first collection after a page does
    not walk the tree."""

    def tracked(count: int) -> int:
        b = PdfBuilder()
        page = b.add_page("")
        kids = [b.struct_element("P", [i, b.mcr(count + i, page=page)], lang="en", alt=f"a{i}") for i in range(count)]
        b.set_struct_tree([b.struct_element("Document", kids, page=page)])
        out = io.BytesIO()
        b.pdf.save(out, object_stream_mode=pikepdf.ObjectStreamMode.generate if object_streams else pikepdf.ObjectStreamMode.disable)
        with on_path(monkeypatch, pure=False), pikepdf.open(io.BytesIO(out.getvalue())) as pdf:
            tree = read_struct_tree(pdf)
        assert tree is not None and tree.size == count + 1 and len(tree.content.mcid) == 2 * count
        seen, stack, found = set(), [tree.columns, tree.content, tree.object_refs, tree.warnings], 0
        while stack:
            obj = stack.pop()
            if id(obj) not in seen and not isinstance(obj, type):  # a class leads to its module, and everything
                seen.add(id(obj))
                found += gc.is_tracked(obj)
                stack.extend(gc.get_referents(obj))
        return found

    # a few containers (the columns, /Lang's list, the page keys), not one per element or content row
    assert tracked(3) <= 12 and tracked(300) <= 12


@pytest.mark.parametrize("pure", [True, False])
def test_edge_codepoints_read_an_empty_text_as_minus_one_on_both_paths(monkeypatch: pytest.MonkeyPatch, pure: bool) -> None:
    # An empty text has no edge of its own: it must not borrow its neighbour's
    # first code point (nor index past the buffer when it comes last).
    from ragprep.extract.geometric import edge_codepoints
    texts = np.empty(6, dtype=object)
    texts[:] = ["", "ab", "", "\U0001f600x", "", ""]
    with on_path(monkeypatch, pure):
        first, last = edge_codepoints(texts)
        only_empty = edge_codepoints(np.array(["", ""], dtype=object))
    assert first.tolist() == [-1, 0x61, -1, 0x1F600, -1, -1]
    assert last.tolist() == [-1, 0x62, -1, 0x78, -1, -1]
    assert [column.tolist() for column in only_empty] == [[-1, -1], [-1, -1]]


def test_text_edges_reads_an_object_array_as_it_reads_its_list():
    # The glyph table's text column goes to the core as it is (no list made
    # of it per call); every kind of text reads as from the list.
    from ragprep.extract import _core as core
    texts = np.empty(6, dtype=object)
    texts[:] = ["a", "", "\U0001f600x", "\ud800", "ff", "\u00e9"]
    from_array = [np.frombuffer(column, dtype=np.int64).tolist() for column in core.text_edges(texts)]
    from_list = [np.frombuffer(column, dtype=np.int64).tolist() for column in core.text_edges(texts.tolist())]
    assert from_array == from_list == [
        [1, 0, 2, 1, 2, 1],
        [0x61, -1, 0x1F600, 0xD800, 0x66, 0xE9],
        [0x61, -1, 0x78, 0xD800, 0x66, 0xE9],
    ]
    assert [len(column) for column in core.text_edges(np.empty(0, dtype=object))] == [0, 0, 0]
    with pytest.raises(TypeError):
        core.text_edges(np.array([None, "a"], dtype=object))
    with pytest.raises(TypeError):
        core.text_edges(np.arange(3))
    with pytest.raises(ValueError):
        core.text_edges(texts[::2])  # a strided view: the caller makes it contiguous
