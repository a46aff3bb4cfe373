"""CMap section bodies parsed by the compiled core (_core.cmap_section)
against cmap.py's own builder, the reference (RAGPREP_PURE=1).

The compiled path takes a section body only when the builder would apply
every entry of it without a warning; everything else is left to the builder
untouched. Both paths must give equal CMaps (every field, the code order of
the unicode table included) on the bodies built here, on generated ones and
(slow) on every ToUnicode and embedded encoding CMap of the corpus.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract.compiled import compiled_available
from ragprep.extract.fonts import cmap as cmap_module
from ragprep.extract.fonts.cmap import CMap, CodespaceRange

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fuzz"))
from cmap_fuzz import corpus_cmaps, parse_both, same_cmap  # noqa: E402  (fuzz/ is no package)

pytestmark = pytest.mark.skipif(
    not compiled_available(), reason="the compiled core is not built (pip install compiles extract/_core.c)"
)

HEADER = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n/CMapName /Test-UCS def\n"
FOOTER = b"endcmap CMapName currentdict /CMap defineresource pop end end\n"


def assert_same_cmap(reference: CMap, compiled: CMap, where: str = "") -> None:
    assert dataclasses.asdict(compiled) == dataclasses.asdict(reference), where
    assert same_cmap(reference, compiled), where  # the tables' code order too


def section(kind: bytes, body: bytes) -> tuple[CMap, object]:
    """One body through _core.cmap_section alone: the CMap and its answer."""
    from ragprep.extract import _core

    cmap = CMap()
    taken = _core.cmap_section(
        cmap_module._SECTION_KINDS[b"begin" + kind], body, cmap, 0,
        cmap_module._EXPAND_RANGE, cmap_module._EXPAND_TOTAL, CodespaceRange,
    )  # fmt: skip
    return cmap, taken


def test_bfchar_bodies_go_straight_into_the_unicode_table():
    cmap, taken = section(b"bfchar", b"<01> <0041>\n<0002><00660069>\n<03> <D835DC00> <04> <0000> <05> <>")
    assert taken == 0  # nothing expanded from ranges
    assert cmap.unicode == {1: "A", 2: "fi", 3: "\U0001d400", 4: None, 5: ""}
    assert cmap.code_lengths == {1, 2}


def test_bfrange_bodies_expand_ranges_and_arrays_and_count_what_they_expand():
    cmap, taken = section(b"bfrange", b"<20> <22> <0041>\n<0100> <0101> [<0061> <00660066>]\n<00> <FFFF> <0000>")
    assert taken == 3  # the array form is not counted; the 65,536-code range stays a range
    assert cmap.unicode == {0x20: "A", 0x21: "B", 0x22: "C", 0x100: "a", 0x101: "ff"}
    assert cmap.unicode_ranges == [(0, 0xFFFF, 0, 2)]


def test_hex_with_blanks_inside_and_a_missing_final_digit_read_as_the_builder_reads_them():
    cmap, taken = section(b"bfchar", b"<02> <091c 093e>\n<3> <004>")
    assert taken == 0
    assert cmap.unicode == {2: "\u091c\u093e", 0x30: "@"}  # <3> is <30>, <004> is <0040>


def test_cid_sections_and_codespace_ranges():
    cmap, _ = section(b"cidrange", b"<0000> <0002> 10 <0100> <FFFF> 1")
    assert cmap.cids == {0: 10, 1: 11, 2: 12} and cmap.cid_ranges == [(0x100, 0xFFFF, 1)]
    cmap, _ = section(b"notdefrange", b"<00> <1f> 1")
    assert cmap.notdef_ranges == [(0, 0x1F, 1)]
    cmap, _ = section(b"codespacerange", b"<00> <80> <8140> <9ffc>")
    assert cmap.codespace == [CodespaceRange(b"\x00", b"\x80"), CodespaceRange(b"\x81\x40", b"\x9f\xfc")]


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        (b"bfchar", b"<01> <0041> <02>"),  # a dangling operand
        (b"bfrange", b"<22> <20> <0041>"),  # first code after the last
        (b"bfrange", b"<00> <FF> <FFFE>"),  # the destination overflows its two bytes
        (b"bfchar", b"<01> /A"),  # a glyph name: the builder reads names
        (b"bfchar", b"<01> <0041> % a comment"),
        (b"bfchar", b"(a) <0041>"),  # a literal string
        (b"cidrange", b"<00> <10> <0041>"),  # a CID that is not an integer
        (b"codespacerange", b"<00> <FFFF>"),  # bounds of different lengths
        (b"bfrange", b"<00> <01> [<0041> [<0042>]]"),  # a nested array
        (b"bfchar", b"<0102030405060708090A> <0041>"),  # a code longer than the core's integers
    ],
)
def test_bodies_the_builder_would_warn_about_are_left_to_it_untouched(kind: bytes, body: bytes):
    cmap, taken = section(kind, body)
    assert taken is None
    assert cmap == CMap()


def test_left_bodies_give_the_builders_warnings_on_the_compiled_path():
    data = HEADER + b"2 beginbfchar <01> <0041> <02> endbfchar 1 beginbfrange <10> <0f> <0041> endbfrange\n" + FOOTER
    reference, compiled = parse_both(data)
    assert_same_cmap(reference, compiled)
    assert compiled.unicode == {1: "A"} and len(compiled.warnings) == 2


_TOKENS = st.sampled_from(
    [b"<01>", b"<0041>", b"<00660069>", b"<D800>", b"<0000>", b"<>", b"<1>", b"<0 1>", b"<FFFF>", b"<FEFF0041>",
     b"<0102030405060708>", b"0", b"12", b"65535", b"[", b"]", b"/A", b"(x)", b"%c\n", b" ", b"\n", b"{", b"<zz>"]
)  # fmt: skip
_KINDS = st.sampled_from(list(cmap_module._SECTIONS))


@settings(max_examples=300, deadline=None)
@given(kind=_KINDS, tokens=st.lists(_TOKENS, max_size=14))
def test_generated_sections_parse_alike_on_both_paths(kind: bytes, tokens: list[bytes]):
    body = b" ".join(tokens)
    data = HEADER + b"1 " + kind + b"\n" + body + b"\n" + cmap_module._SECTIONS[kind] + b"\n" + FOOTER
    assert_same_cmap(*parse_both(data), repr(data))


@pytest.mark.slow
def test_every_corpus_cmap_parses_alike_on_both_paths(monkeypatch: pytest.MonkeyPatch, corpus: Path):
    taken = left = 0
    original = cmap_module._compiled_section

    def counting(*args: object) -> bool:
        nonlocal taken, left
        done = original(*args)  # type: ignore[arg-type]
        taken, left = taken + done, left + (not done)
        return done

    monkeypatch.setattr(cmap_module, "_compiled_section", counting)
    compared = 0
    for where, data in corpus_cmaps(corpus):
        assert_same_cmap(*parse_both(data), where)
        compared += 1
    assert compared > 500
    assert taken > 20 * max(left, 1), (taken, left)  # the compiled path reads nearly every section
