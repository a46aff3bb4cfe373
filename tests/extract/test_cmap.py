"""CMap stream parsing: ToUnicode (ISO 32000-1 §9.10.3) and CID CMaps (§9.7.5.4).

Expected texts are worked out from the specification's rules by hand: bfchar
destinations are UTF-16BE, bfrange destinations increment with the code, the
array form lists one destination per code.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ragprep.extract.fonts import cmap as cmap_module
from ragprep.extract.fonts.cmap import CodespaceRange, parse_cmap

HEADER = b"""/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Adobe-Identity-UCS def
/CMapType 2 def
"""
FOOTER = b"""endcmap
CMapName currentdict /CMap defineresource pop
end
end
"""


def cmap_of(body: bytes):
    return parse_cmap(HEADER + body + FOOTER)


def test_bfchar_single_ligature_and_surrogate_pair():
    cmap = cmap_of(
        b"1 begincodespacerange <00> <FF> endcodespacerange\n"
        b"3 beginbfchar\n<41> <0041>\n<02> <00660069>\n<03> <D835DC00>\nendbfchar\n"
    )
    assert cmap.lookup_unicode(0x41) == "A"
    assert cmap.lookup_unicode(0x02) == "fi"  # one code, two characters
    assert cmap.lookup_unicode(0x03) == "\U0001d400"  # MATHEMATICAL BOLD CAPITAL A
    assert cmap.lookup_unicode(0x04) is None
    assert cmap.codespace == [CodespaceRange(b"\x00", b"\xff")]
    assert cmap.warnings == []


def test_bfrange_destination_increments_with_the_code():
    cmap = cmap_of(b"1 beginbfrange\n<20> <22> <0041>\nendbfrange\n")
    assert [cmap.lookup_unicode(c) for c in (0x20, 0x21, 0x22, 0x23)] == ["A", "B", "C", None]


def test_bfrange_increments_the_last_character_of_a_ligature_and_a_low_surrogate():
    cmap = cmap_of(b"2 beginbfrange\n<10> <11> <00660066>\n<30> <31> <D835DC00>\nendbfrange\n")
    assert cmap.lookup_unicode(0x10) == "ff"
    assert cmap.lookup_unicode(0x11) == "fg"
    assert cmap.lookup_unicode(0x30) == "\U0001d400"
    assert cmap.lookup_unicode(0x31) == "\U0001d401"


def test_bfrange_destination_overflowing_its_last_byte_carries():
    # Not allowed by §9.10.3, but written by real producers: U+00FF, U+0100, U+0101.
    cmap = cmap_of(b"1 beginbfrange\n<00> <02> <00FF>\nendbfrange\n")
    assert [cmap.lookup_unicode(c) for c in (0, 1, 2)] == ["\u00ff", "\u0100", "\u0101"]


def test_bfrange_array_form_with_strings_and_glyph_names():
    cmap = cmap_of(b"1 beginbfrange\n<05> <08> [<0066> <00660069> /uni00E9 <D83DDE00>]\nendbfrange\n")
    assert [cmap.lookup_unicode(c) for c in range(5, 9)] == ["f", "fi", "\u00e9", "\U0001f600"]


def test_bfrange_array_shorter_than_the_range_maps_what_it_lists():
    cmap = cmap_of(b"1 beginbfrange\n<05> <08> [<0061> <0062>]\nendbfrange\n")
    assert [cmap.lookup_unicode(c) for c in range(5, 9)] == ["a", "b", None, None]


def test_two_byte_codes_and_mixed_codespace():
    cmap = cmap_of(
        b"2 begincodespacerange\n<00> <80>\n<8140> <9FFC>\nendcodespacerange\n"
        b"2 beginbfchar\n<41> <0041>\n<8140> <3000>\nendbfchar\n"
        b"1 beginbfrange\n<8141> <8142> <3001>\nendbfrange\n"
    )
    assert [r.nbytes for r in cmap.codespace] == [1, 2]
    assert cmap.lookup_unicode(0x41) == "A"
    assert cmap.lookup_unicode(0x8140) == "\u3000"
    assert cmap.lookup_unicode(0x8142) == "\u3002"


def test_literal_strings_as_codes_and_destinations():
    cmap = cmap_of(b"2 beginbfchar\n(a) <0062>\n(\\101) (\\000C)\nendbfchar\n")
    assert cmap.lookup_unicode(ord("a")) == "b"
    assert cmap.lookup_unicode(0o101) == "C"  # octal escape: code 65; destination U+0043


def test_hex_strings_with_whitespace_and_odd_length():
    # §7.3.4.3: white space inside hex strings is ignored; a missing last digit is 0.
    cmap = cmap_of(b"2 beginbfchar\n<0 1> <00 4A>\n<7> <004B>\nendbfchar\n")
    assert cmap.lookup_unicode(0x01) == "J"
    assert cmap.lookup_unicode(0x70) == "K"


def test_destination_u0000_counts_as_unmapped_and_u_fffd_is_kept():
    cmap = cmap_of(b"2 beginbfchar\n<01> <0000>\n<02> <FFFD>\nendbfchar\n")
    assert cmap.lookup_unicode(0x01) is None
    assert cmap.lookup_unicode(0x02) == "\ufffd"


def test_lone_surrogate_destination_becomes_replacement_not_a_broken_string():
    cmap = cmap_of(b"1 beginbfchar\n<01> <D800>\nendbfchar\n")
    text = cmap.lookup_unicode(0x01)
    assert text == "\ufffd"
    text.encode("utf-8")


def test_one_byte_destination_is_read_as_latin1():
    cmap = cmap_of(b"1 beginbfchar\n<01> <41>\nendbfchar\n")
    assert cmap.lookup_unicode(0x01) == "A"


def test_usecmap_is_recorded_and_ignored_gracefully():
    cmap = cmap_of(b"/Adobe-Japan1-UCS2 usecmap\n1 beginbfchar\n<01> <0041>\nendbfchar\n")
    assert cmap.usecmap == "Adobe-Japan1-UCS2"
    assert cmap.lookup_unicode(0x01) == "A"


def test_cid_cmap_sections_and_wmode():
    cmap = parse_cmap(
        b"/CMapName /Test-V def /WMode 1 def\n"
        b"1 begincodespacerange <0000> <FFFF> endcodespacerange\n"
        b"1 begincidchar <0041> 500 endcidchar\n"
        b"1 begincidrange <0100> <0102> 10 endcidrange\n"
        b"1 beginnotdefrange <0000> <001F> 1 endnotdefrange\n"
    )
    assert cmap.name == "Test-V"
    assert cmap.wmode == 1
    assert cmap.lookup_cid(0x41) == 500
    assert [cmap.lookup_cid(c) for c in (0x100, 0x101, 0x102, 0x103)] == [10, 11, 12, None]
    assert cmap.notdef_cid(0x05) == 1
    assert cmap.notdef_cid(0x20) is None


def test_huge_ranges_are_looked_up_without_being_expanded():
    cmap = cmap_of(
        b"1 begincidrange <00000000> <00FFFFFF> 0 endcidrange\n"
        b"1 beginbfrange <000000> <0FFFFF> <D835DC00> endbfrange\n"
    )
    assert cmap.cids == {} and cmap.unicode == {}
    assert cmap.lookup_cid(0x123456) == 0x123456
    assert cmap.lookup_unicode(1) == "\U0001d401"


def test_many_entries_all_parse():
    entries = b"".join(b"<%04X> <%04X>\n" % (code, 0x4E00 + code) for code in range(40000))
    body = b"".join(
        b"100 beginbfchar\n" + b"".join(entries.splitlines(keepends=True)[i : i + 100]) + b"endbfchar\n"
        for i in range(0, 40000, 100)
    )
    cmap = cmap_of(b"1 begincodespacerange <0000> <FFFF> endcodespacerange\n" + body)
    assert len(cmap.unicode) == 40000
    assert cmap.lookup_unicode(39999) == chr(0x4E00 + 39999)
    assert cmap.warnings == []


def test_truncated_cmap_keeps_the_entries_before_the_damage():
    cmap = parse_cmap(b"2 beginbfchar\n<01> <0041>\n<02> <0042>\n<03>")
    assert cmap.lookup_unicode(0x01) == "A"
    assert cmap.lookup_unicode(0x02) == "B"
    assert cmap.warnings


def test_section_without_end_keyword_is_closed_by_the_next_keyword():
    cmap = parse_cmap(b"1 beginbfchar <01> <0041>\nendcmap\n1 beginbfchar <02> <0042> endbfchar")
    assert cmap.lookup_unicode(0x01) == "A"
    assert cmap.lookup_unicode(0x02) == "B"
    assert any("without endbfchar" in w for w in cmap.warnings)


def test_garbage_gives_warnings_not_exceptions():
    cmap = parse_cmap(b"\x00\xff garbage ] [ ( <zz> beginbfrange <05> <01> <0041> endbfrange")
    assert cmap.unicode == {}
    assert cmap.warnings


def test_a_damaged_section_of_many_numbers_is_read_in_one_pass_not_every_way_of_splitting_them():
    # Found by fuzz/cmap_fuzz.py: the simple-body check backtracked through
    # every split of the digit runs of a body it refused (about 2^50 here) and hung.
    ranges = b"".join(b"<%02x00> <%02xff> %d\n" % (i, i, 256 * i) for i in range(1, 21))
    cmap = cmap_of(b"20 begincidrange\n" + ranges + b"<" * 60 + b"\nendcidrange\n")
    assert cmap.lookup_cid(0x0105) == 261 and cmap.lookup_cid(0x14FF) == 20 * 256 + 255


def test_digits_glued_to_a_keyword_are_skipped_in_one_step():
    # Found by fuzz/cmap_fuzz.py: the tokenizer retried the number rule at
    # every byte of a run of digits followed by a letter (cubic in its length).
    cmap = cmap_of(b"1" * 5000 + b"x def\n1 beginbfchar <01> <0041> endbfchar\n")
    assert cmap.unicode == {1: "A"}


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_raise(data):
    parse_cmap(data)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=200), st.binary(min_size=1, max_size=8))
def test_damaged_real_cmaps_never_raise(position, junk):
    good = HEADER + b"2 beginbfrange\n<00> <05> <0041>\n<10> <12> [<0061> /b (c)]\nendbfrange\n" + FOOTER
    cut = min(position, len(good))
    parse_cmap(good[:cut] + junk + good[cut:])


# The section keywords as plainly stated: a keyword with no letter right
# before or after it. cmap._SECTION_KEYWORD states the same faster.
_PLAIN_SECTION_KEYWORD = re.compile(
    rb"(?<![A-Za-z])((?:begin|end)(?:codespacerange|bfchar|bfrange|cidchar|cidrange|notdefchar|notdefrange))(?![A-Za-z])"
)
_KEYWORD_PIECES = [b"begin", b"end", b"bfchar", b"bfrange", b"cidrange", b"notdefchar", b"x", b"b", b"e", b" ", b"<01>", b"1", b"\n"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_KEYWORD_PIECES), max_size=12))
def test_section_keywords_split_a_stream_where_the_plain_pattern_does(pieces):
    data = b"".join(pieces)
    assert cmap_module._SECTION_KEYWORD.split(data) == _PLAIN_SECTION_KEYWORD.split(data)


def test_section_keywords_need_no_letter_around_them():
    data = b"beginbfchar xbeginbfchar endbfcharx 1endbfchar>endbfrange"
    assert cmap_module._SECTION_KEYWORD.findall(data) == [b"beginbfchar", b"endbfchar", b"endbfrange"]
