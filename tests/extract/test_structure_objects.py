"""Plain values of PDF objects (extract/structure_objects.py): the compiled
parser of qpdf's unparsed objects against the pikepdf reference, and what
hostile bytes do to the parser.

The structure tree is read through these values on both paths; the tree
tests (test_structure_tree.py) run on each, and here the two conversions
are held equal object by object.
"""

from __future__ import annotations

import csv
import gc
import io
import re
import sys
import weakref
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pikepdf
import pytest
from pdfbuilder import PdfBuilder
from pikepdf import Array, Dictionary, Name, String

from ragprep.extract.native import PURE_ENV, compiled_available
from ragprep.extract.structure_objects import PlainObjects, Stream, kind_of, plain

needs_core = pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built")
PATHS = ("compiled", "pure") if compiled_available() else ("pure",)


def parse(data: bytes) -> Any:
    from ragprep.extract import _core

    return _core.parse_object(data)


def _objects_pdf() -> pikepdf.Pdf:
    """A tagged page plus one object of every kind the tree may hold."""
    b = PdfBuilder()
    font = b.add_standard_font("Helvetica")
    b.add_page(f"/P <</MCID 0>> BDC BT /{font} 12 Tf 72 700 Td (Hi) Tj ET EMC")
    page = b.pdf.pages[0]
    para = b.struct_element("P", [b.mcr(0, page=page)], page=page, lang="en-GB")
    b.set_struct_tree([para])
    pdf = b.pdf
    stream = pdf.make_stream(b"q Q")
    pdf.Root.Extra = pdf.make_indirect(
        Dictionary(
            Name=Name("/A B"),  # unparsed with an escape, /A#20B (§7.3.5)
            Text=String("r\u00e9sum\u00e9 (draft)\n"),
            Binary=String(b"\x00\xff\\"),
            Real=Decimal("-0.25"),
            Big=2**62,
            Negative=-3,
            Flag=True,
            Off=False,
            Nested=Array([Array([1, Array([2, Array([])])]), Dictionary(K=Dictionary())]),
            Stream=stream,
            Refs=Array([stream, pdf.Root.Pages, 4]),
        )
    )
    return pdf


def _resolved_scalars(value: Any, pdf: pikepdf.Pdf) -> Any:
    """`value` with references to scalars replaced by the scalar: pikepdf
    hands an indirect number over as the number itself."""
    if type(value) is tuple:
        target = pdf.get_object(value)
        return value if type(target) is pikepdf.Object else plain(target)
    if type(value) is list:
        return [_resolved_scalars(v, pdf) for v in value]
    if type(value) is dict:
        return {k: _resolved_scalars(v, pdf) for k, v in value.items()}
    return value


def _containers(pdf: pikepdf.Pdf) -> list[pikepdf.Object]:
    """The document's dictionaries and arrays (what the parser reads)."""
    kinds = (pikepdf.ObjectType.dictionary, pikepdf.ObjectType.array)
    return [obj for obj in pdf.objects if type(obj) is pikepdf.Object and obj._type_code in kinds]


def _assert_parse_matches_plain(pdf: pikepdf.Pdf, where: str) -> int:
    containers = _containers(pdf)
    for obj in containers:
        parsed = parse(obj.unparse(resolved=True))
        assert _resolved_scalars(parsed, pdf) == plain(obj), f"{where}: object {obj.objgen}"
    return len(containers)


@needs_core
def test_the_parser_gives_what_pikepdf_holds():
    pdf = _objects_pdf()
    assert _assert_parse_matches_plain(pdf, "fixture") > 5
    extra = PlainObjects(pdf).of(pdf.Root.Extra)
    assert extra["/Name"] == "/A B"
    assert extra["/Binary"] == b"\x00\xff\\"
    assert extra["/Real"] == -0.25 and type(extra["/Real"]) is float
    assert extra["/Big"] == 2**62 and extra["/Negative"] == -3
    assert extra["/Flag"] is True and extra["/Off"] is False
    assert extra["/Nested"] == [[1, [2, []]], {"/K": {}}]
    assert extra["/Stream"] == pdf.Root.Extra.Stream.objgen  # a reference until resolved


def _null_references_as_null(value: Any, pdf: pikepdf.Pdf) -> Any:
    """`value` with each reference to an object qpdf reads as null (§7.3.10:
    one written "null", or missing) replaced by None, as PlainObjects gives
    it where it reads the object from the file's bytes. qpdf's unparse keeps
    an array's reference to such an object (a dictionary's it drops), and
    resolves it to None when read: the same null."""
    if type(value) is tuple:
        return None if pdf.get_object(value) is None else value
    if type(value) is list:
        return [_null_references_as_null(v, pdf) for v in value]
    if type(value) is dict:
        return {k: _null_references_as_null(v, pdf) for k, v in value.items()}
    return value


def _assert_object_streams_read_as_qpdf_reads_them(pdf: pikepdf.Pdf, where: str) -> int:
    """Every dictionary and array, read by PlainObjects (from its object
    stream's bytes, or the file's, where the cross-reference table puts it
    there), equals qpdf's unparse of it parsed, a reference to a null object
    a null."""
    objects = PlainObjects(pdf)
    containers = _containers(pdf)
    for obj in containers:
        qpdfs = _null_references_as_null(parse(obj.unparse(resolved=True)), pdf)
        assert objects.resolve(obj.objgen) == qpdfs, f"{where}: object {obj.objgen}"
    return len(containers)


def _with_missing_references(pdf: pikepdf.Pdf) -> pikepdf.Pdf:
    """`pdf` saved with object streams, plus a dictionary and an array in one
    that refer to a missing object: a null (§7.3.10), so an absent key
    (§7.3.7) and a None item, as qpdf reads them. The streams are left
    uncompressed and the references' generations rewritten in place (same
    length, so every offset still holds)."""
    target = pdf.make_indirect(Dictionary(X=1))
    pdf.Root.Dangling = pdf.make_indirect(Dictionary(Gone=target, Kept=1))
    pdf.Root.DanglingItems = pdf.make_indirect(Array([target, 2]))
    out = io.BytesIO()
    pdf.save(out, object_stream_mode=pikepdf.ObjectStreamMode.generate, compress_streams=False)
    data = re.sub(rb"(/Gone \d+) 0 R", rb"\1 7 R", out.getvalue())
    data = re.sub(rb"(\[ *\d+) 0 R( 2 *\])", rb"\1 7 R\2", data)
    return pikepdf.open(io.BytesIO(data))


@needs_core
def test_objects_in_object_streams_are_read_from_their_bytes_as_qpdf_reads_them():
    pdf = _with_missing_references(_objects_pdf())
    xref = pdf.get_xref_table()
    in_streams = [ref for ref, entry in xref.items() if entry.type == 2]
    assert len(in_streams) > 5
    assert _assert_object_streams_read_as_qpdf_reads_them(pdf, "fixture") > 5
    objects = PlainObjects(pdf)
    assert objects.of(pdf.Root.Dangling) == {"/Kept": 1}
    assert objects.of(pdf.Root.DanglingItems) == [None, 2]
    assert objects.of(pdf.Root.Extra)["/Name"] == "/A B"
    # The page tree is qpdf's to read: it pushes inherited attributes down in memory.
    page = pdf.pages[0].obj
    assert objects.resolve(page.objgen)["/MediaBox"] == plain(page.MediaBox)


@needs_core
def test_an_encrypted_files_objects_are_qpdfs_its_table_read_from_its_bytes(tmp_path: Path):
    # The table from the file's bytes (its sections are in the clear), every
    # object stream and object through qpdf (their strings are encrypted).
    from ragprep.extract.xref import XrefColumns

    path = tmp_path / "secret.pdf"
    encryption = pikepdf.Encryption(owner="o", user="", R=6, aes=True)
    _objects_pdf().save(path, encryption=encryption, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    with pikepdf.open(path) as pdf:
        assert sum(entry.type == 2 for entry in pdf.get_xref_table().values()) > 5
        objects = PlainObjects(pdf)
        assert _assert_object_streams_read_as_qpdf_reads_them(pdf, "encrypted") > 5
        assert isinstance(objects._xref_table(), XrefColumns) and objects._xref_table().encrypted
        # The catalog's strings are not in the clear, its references are (§7.6.2).
        assert objects.catalog_entry("/Extra") == pdf.Root.Extra.objgen
        assert objects.of(pdf.Root.Extra)["/Name"] == "/A B"


@needs_core
def test_the_objects_are_freed_when_dropped_not_left_to_the_cyclic_collector():
    # The object streams' parse and nodes keep the `exists` callback: had it
    # held the PlainObjects, every parsed object, the cross-reference table
    # and the streams would live on after the tree read until a collection
    # of the oldest generation walked them (structure mode's full collections).
    pdf = _with_missing_references(_objects_pdf())
    objects = PlainObjects(pdf)
    assert objects.of(pdf.Root.Extra)["/Name"] == "/A B"  # read from an object stream
    assert objects.nodes is not None or objects.cache
    dropped = weakref.ref(objects)
    enabled = gc.isenabled()
    gc.disable()  # no collection may free it here: reference counting must
    try:
        del objects
        assert dropped() is None
    finally:
        if enabled:
            gc.enable()


@needs_core
def test_parse_objects_leaves_out_what_qpdf_must_read():
    from ragprep.extract import _core

    pieces = [b"<< /S /P /K 0 /Pg 9 0 R >> ", b"[1 2", b"<< /Type /Page /Parent 3 0 R >>", b"<< /A >>", b" 7 0 R"]
    data = b"".join(pieces)
    ends = [sum(map(len, pieces[: k + 1])) for k in range(len(pieces))]
    spans = [(k + 1, end - len(piece), end) for k, (piece, end) in enumerate(zip(pieces, ends, strict=True))]
    asked: list[tuple[int, int]] = []

    def exists(ref: tuple[int, int]) -> bool:
        asked.append(ref)
        return ref == (7, 0)

    # 2 is cut, 3 is a page, 4 is malformed: qpdf reads those; 9 0 R is missing.
    assert _core.parse_objects(data, spans, set(), exists) == [(1, {"/S": "/P", "/K": 0}), (5, (7, 0))]
    assert (3, 0) not in asked  # a page's references are never checked
    with pytest.raises(ValueError, match="outside"):
        _core.parse_objects(data, [(1, 0, 999)], set(), exists)


@needs_core
def test_parse_objects_finds_references_in_the_present_bitmap_without_asking():
    from ragprep.extract import _core
    from ragprep.extract.structure_objects import _bitmap

    data = b"<< /P 3 0 R /Pg 12 0 R /K [9 0 R 3 1 R] >>"
    asked: list[tuple[int, int]] = []

    def exists(ref: tuple[int, int]) -> bool:
        asked.append(ref)
        return False

    # 3 and 9 are in the bitmap (generation 0 only); 12 and 3 1 R are asked, and missing.
    known = {(3, 0), (9, 0)}
    got = _core.parse_objects(data, [(1, 0, len(data))], known, exists, _bitmap([3, 9]))
    assert got == [(1, {"/P": (3, 0), "/K": [(9, 0), None]})]
    assert sorted(asked) == [(3, 1), (12, 0)]
    # Without the bitmap, the set gives the same objects.
    asked.clear()
    assert _core.parse_objects(data, [(1, 0, len(data))], known, exists) == got
    assert sorted(asked) == [(3, 1), (12, 0)]


@needs_core
def test_parse_objects_shares_one_tuple_per_referenced_object_through_the_refs_list():
    from ragprep.extract import _core

    first, second = b"<< /P 3 0 R /K [4 0 R 3 0 R] >>", b"[3 0 R 4 1 R 70 0 R]"
    data = first + second
    spans = [(1, 0, len(first)), (2, len(first), len(data))]
    plain = _core.parse_objects(data, spans, set(), lambda ref: True)
    refs: list[object] = [None] * 8  # numbers 0 to 7: 70 0 R is a tuple of its own
    shared = _core.parse_objects(data, spans, set(), lambda ref: True, b"", refs)
    assert shared == plain == [(1, {"/P": (3, 0), "/K": [(4, 0), (3, 0)]}), (2, [(3, 0), (4, 1), (70, 0)])]
    one, two = shared[0][1], shared[1][1]
    assert one["/P"] is one["/K"][1] is two[0] is refs[3]  # across objects of a stream
    assert one["/K"][0] is refs[4] and two[1] is not refs[4]  # generation 0 only
    assert refs[:3] == [None] * 3 and refs[5:] == [None] * 3
    # A later stream (a later call with the same list) gets the same tuples.
    again = _core.parse_objects(second, [(2, 0, len(second))], set(), lambda ref: True, b"", refs)
    assert again == [(2, [(3, 0), (4, 1), (70, 0)])] and again[0][1][0] is refs[3]


def test_reference_slots_follow_the_tables_numbers_and_stay_small_on_a_damaged_one(monkeypatch: pytest.MonkeyPatch):
    from ragprep.extract import structure_objects
    from ragprep.extract.structure_objects import _reference_slots

    assert _reference_slots(49, 49) == [None] * 50
    assert len(_reference_slots(10**9, 3)) == 2 * 3 + 1024  # a damaged table's one huge number
    monkeypatch.setattr(structure_objects, "_REF_NUMBERS", 40)
    assert len(_reference_slots(49, 49)) == 40
    assert _reference_slots(None, 0) == []


def test_the_present_bitmap_marks_each_number_and_leaves_out_huge_ones():
    from ragprep.extract.structure_objects import _BITMAP_NUMBERS, _bitmap

    bits = _bitmap([0, 9, 17, _BITMAP_NUMBERS])
    assert bits == bytes([0b00000001, 0b00000010, 0b00000010])
    assert _bitmap([]) == b"" and _bitmap([_BITMAP_NUMBERS + 5]) == b""


def _corpus_pdfs(corpus: Path) -> Iterator[tuple[Path, pikepdf.Pdf]]:
    """Every corpus file that opens; encrypted or damaged past opening, its tree is never read."""
    for path in sorted(corpus.rglob("*.pdf")):
        try:
            yield path, pikepdf.open(path)
        except (pikepdf.PdfError, pikepdf.PasswordError):
            continue


@needs_core
@pytest.mark.slow
def test_object_streams_of_the_corpus_read_as_qpdf_reads_them(corpus):
    compared = 0
    for path, pdf in _corpus_pdfs(corpus):
        with pdf:
            if any(entry.type == 2 for entry in pdf.get_xref_table().values()):
                compared += _assert_object_streams_read_as_qpdf_reads_them(pdf, str(path.relative_to(corpus)))
    assert compared > 10_000


@needs_core
@pytest.mark.slow
def test_the_parser_gives_what_pikepdf_holds_on_the_tagged_corpus(corpus):
    with open(corpus / "MANIFEST.tsv", encoding="utf-8") as handle:
        tagged = [row["path"] for row in csv.DictReader(handle, delimiter="\t") if row["tagged"] == "yes"]
    compared = 0
    for relpath in tagged:
        try:
            pdf = pikepdf.open(corpus / relpath)
        except pikepdf.PdfError:
            continue  # encrypted or damaged past opening: the tree is never read
        with pdf:
            compared += _assert_parse_matches_plain(pdf, relpath)
    assert compared > 10_000


@pytest.mark.parametrize("interpreter", PATHS)
def test_references_resolve_once_to_plain_values(monkeypatch: pytest.MonkeyPatch, interpreter: str):
    if interpreter == "pure":
        monkeypatch.setenv(PURE_ENV, "1")  # pikepdf's objects converted by plain()
    pdf = _objects_pdf()
    objects = PlainObjects(pdf)
    extra = objects.of(pdf.Root.Extra)
    stream, pages, number = extra["/Refs"]
    assert stream == pdf.Root.Extra.Stream.objgen and pages == pdf.Root.Pages.objgen and number == 4
    assert objects.value(stream) == Stream(stream)
    assert objects.value(pages)["/Type"] == "/Pages"
    assert objects.resolve(pages) is objects.resolve(pages)  # read once
    assert objects.value(number) == 4
    assert objects.resolve((999, 0)) is None  # a missing object is null (§7.3.10)
    assert [kind_of(v) for v in (1, 1.5, True, None, "/N", b"s", [], {}, Stream((1, 0)))] == [
        "integer", "real", "boolean", "null", "name", "string", "array", "dictionary", "stream",
    ]  # fmt: skip


@pytest.mark.parametrize("interpreter", PATHS)
def test_references_past_qpdfs_object_numbers_are_missing_objects(monkeypatch: pytest.MonkeyPatch, interpreter: str):
    # The parser of the file's bytes reads "1099511627799 0 R" as written;
    # qpdf numbers objects with C ints, and pikepdf's get_object raised a
    # TypeError at such a reference (out of the tree's reading: node fuzz,
    # seed 37). It names no object qpdf can hold: a missing object, null.
    from ragprep.extract.structure_objects import _exists_check

    if interpreter == "pure":
        monkeypatch.setenv(PURE_ENV, "1")
    pdf = _objects_pdf()
    objects = PlainObjects(pdf)
    for ref in ((2**40 + 23, 0), (2**31, 0), (5, 2**31), (-(2**31) - 1, 0), (2**31 - 1, 0)):
        assert objects.resolve(ref) is None, ref
    # A table listing such an object (a damaged cross-reference stream): it does not exist.
    listed = {(2**31, 0): SimpleNamespace(type=1), (2**40, 0): SimpleNamespace(type=1), pdf.Root.Pages.objgen: SimpleNamespace(type=1)}
    exists = _exists_check(pdf, listed)
    assert [exists(ref) for ref in listed] == [False, False, True]


@needs_core
@pytest.mark.parametrize(
    "data",
    [
        b"", b"<<", b"[1 2", b"1 2", b"<< 1 2 >>", b"[ (cut", b"]", b">>", b"<< /A >>", b"[ ]]", b"<< ]",
        b"R", b"[1 0 R 2 R]", b"[ 1 0 obj ]", b"<< /A 1 0 R /B >>", b"<FFZ>", b"(\\",
    ],
)  # fmt: skip
def test_malformed_objects_raise_value_error(data: bytes):
    with pytest.raises(ValueError, match="not one well-formed PDF object"):
        parse(data)


@needs_core
def test_deep_nesting_is_read_without_recursion():
    depth = 200_000
    parsed = parse(b"[" * depth + b"]" * depth)
    for _ in range(depth - 1):
        parsed = parsed[0]
    assert parsed == []
    with pytest.raises(ValueError):
        parse(b"<<" * depth)


@needs_core
def test_numbers_and_references_follow_qpdf():
    # Integers past 64 bits are null in qpdf; "N G R" is a reference only
    # with a generation of 0-65535 after a non-negative object number.
    assert parse(b"[ +5 -0 007 1.5 -.5 99999999999999999999 3 65535 R 4 0 R 5 65536 6 ]") == [
        5, 0, 7, 1.5, -0.5, None, (3, 65535), (4, 0), 5, 65536, 6,
    ]  # fmt: skip
    for data in (b"[ -1 0 R ]", b"[ 1 65536 R ]", b"[ 1 -0.5 R ]"):
        with pytest.raises(ValueError):
            parse(data)



# Object stream headers (§7.5.7): the compiled reading against _header_spans.
# (data, /First, /N, the stream's members per the xref table, read by the core
# rather than left to the reference)
_HEADERS = [
    (b"1 0 2 3\n[] null", 8, 2, {1, 2}, True),  # the null object is not present
    (b"1 0 2 3\n[] null", 8, 2, {2}, True),  # only the stream's members
    (b"10 0 11 6\n<<>>[]", 10, 5, {10, 11}, True),  # /N larger than the header
    (b"10 0 11 6 12\n<<>>[]", 12, 3, {10, 11}, True),  # an odd number of integers: damaged
    (b"10 0 10 2\n<<>>[]", 10, 2, {10}, True),  # a number listed twice: damaged
    (b"12 0 10 2 11 4 10 6\n[][][][]", 20, 4, {10, 11, 12}, True),  # twice, out of order
    (b"5 0 -5 2 5 4\n[][][]", 13, 3, {5}, True),  # twice, after a negative number
    (b"5 0 900000000 2 5 4\n[][][]", 20, 3, {5}, True),  # twice, the numbers far apart (sorted, not marked)
    (b"900000000 0 5 2 -7 4\n[][][]", 21, 3, {5}, True),  # far apart, none twice
    (b"10 0 11 x\n<<>>[]", 10, 2, {10}, False),  # a token that is no integer
    (b"10 0 11 1_0\n<<>>[]", 12, 2, {10, 11}, False),  # int() reads 1_0
    (b"10 0 11 99999999999999999999\n<<>>", 30, 2, {10, 11}, False),  # past 18 digits
    (b"10 0 11 6 12 9\n<<>>[]", 15, -1, {10}, False),  # a negative /N drops the last pairs (a slice)
    (b"10 0 11 6\n<<>>[]", 10, 0, {10}, True),
    (b"10 -5 11 +3 12 99 13 -0\n<<>>[]", 24, 4, {10, 11, 12, 13}, True),  # starts before /First or past the end
    (b"10\x0b0\x0c11\t2\r\n[]\x00null", 10, 2, {10, 11}, True),  # Python's blanks, not PDF's: \0 is none
    (b"10\x000 11 2\n[][]", 10, 2, {10, 11}, False),
    (b"5 0 6 0 7 3\n[1][2]", 12, 3, {5, 6, 7}, True),  # two objects at one offset
    (b"\xff 0\n[]", 5, 1, {1}, False),
    (b"", 0, 4, {1}, True),
    # Tokens the core reads a word (8 bytes) at a time: 1 to 7 digits, 8 and
    # more (digit by digit), a token ending at /First or the data's end, the
    # byte after the digits any byte (0xfa and up carry out of their byte).
    (b"1 0 22 3 333 6 4444 9 55555 12 666666 15 7777777 18\n" + b"[] " * 7, 53, 7, {1, 22, 333, 4444, 55555, 666666, 7777777}, True),
    (b"12345678 0 123456789 3 1234567890123 6 123456789012345678 9\n" + b"[] " * 4, 61, 4, {12345678, 123456789}, True),
    (b"1234567 0 7654321 3", 19, 2, {1234567, 7654321}, True),
    (b"+1234567 0\t-0000007 3\r\n0000001 6 1 9", 36, 4, {1234567, 7, 1}, True),
    (b"1 0 7 3 1234567\xfa 9 2 12\n" + b"[] " * 4, 24, 4, {1, 7}, False),
    (b"1 0 7 3 12345\xff\xff 9 2 12\n" + b"[] " * 4, 24, 4, {1, 7}, False),
    (b"1 0 7 3 12345/6 9 2 12\n" + b"[] " * 4, 23, 4, {1, 7}, False),
    (b"1 0 7 3 123456789012345678901 9 2 12\n" + b"[] " * 4, 37, 4, {1, 7}, False),
    # Members the core looks up in bits, and those it leaves to the set: a
    # bool or a float equals an int there; members far apart; a negative one.
    (b"3 0 1 2 2 4\n[][][]", 12, 3, {1, 2, 3, 9}, True),  # a header out of order
    (b"1 0 2 2 3 4\n[][][]", 12, 3, {True, 2.0, 7}, True),
    (b"1 0 2 2 3 4\n[][][]", 12, 3, {1, 3, 10**9}, True),
    (b"1 0 2 2 3 4\n[][][]", 12, 3, {-1, 1, 2**70, 3}, True),
    (b"1 0 2 2 3 4\n[][][]", 12, 3, set(), True),
]


@needs_core
@pytest.mark.parametrize(("data", "first", "count", "members", "compiled_reads"), _HEADERS)
def test_object_stream_headers_are_read_as_the_reference_reads_them(
    data: bytes, first: int, count: int, members: set[int], compiled_reads: bool
):
    from ragprep.extract import _core
    from ragprep.extract.structure_objects import _header_spans

    compiled = _core.object_stream_spans(data, first, count, members)
    assert (compiled is not NotImplemented) == compiled_reads
    if compiled_reads:
        assert compiled == _header_spans(data, first, count, members)


def test_an_object_stream_header_gives_each_members_span():
    from ragprep.extract.structure_objects import _header_spans

    assert _header_spans(b"1 0 2 3\n[] null", 8, 2, {1, 2}) == [(1, 8, 11, True), (2, 11, 15, False)]
    assert _header_spans(b"1 0 2 3\n[] null", 8, 2, {2}) == [(2, 11, 15, False)]
    # Offsets from /First, each object to the next start; ones outside the data left out.
    assert _header_spans(b"10 -5 11 +3 12 99 13 -0\n<<>>[]", 24, 4, {10, 11, 12, 13}) == [
        (11, 27, 30, True), (13, 24, 27, True),
    ]  # fmt: skip
    assert _header_spans(b"10 0 11 6 12\n<<>>[]", 12, 3, {10}) is None  # odd
    assert _header_spans(b"10 0 10 2\n<<>>[]", 10, 2, {10}) is None  # a number twice
    assert _header_spans(b"10 0 11 x\n<<>>[]", 10, 2, {10}) is None  # no integer
    assert _header_spans(b"10 0 11 6 12 9\n<<>>[]", 15, -1, {10}) == [(10, 15, 21, True)]


@needs_core
@pytest.mark.slow
def test_object_stream_headers_of_the_corpus_read_as_the_reference_reads_them(corpus):
    from ragprep.extract import _core
    from ragprep.extract.structure_objects import _header_spans

    compared = 0
    for path, pdf in _corpus_pdfs(corpus):
        with pdf:
            for header in _stream_headers(pdf):
                compiled = _core.object_stream_spans(*header)
                assert compiled is not NotImplemented, f"{path.name}: a plain header left to the reference"
                assert compiled == _header_spans(*header), f"{path.name}"
                compared += 1
    assert compared > 300


def _nodes_by_header_and_by_spans(data: bytes, first: int, count: int, members: set[int]) -> tuple[Any, Any]:
    """_core.TreeObjects of one stream twice: its header read by the core
    (data, first, count, members), and from the spans the reference reads
    (_header_spans) with the present bitmap and known set PlainObjects'
    fallback (_parse_streams) builds from them. None for the second where
    the reference finds the header damaged."""
    from ragprep.extract import _core
    from ragprep.extract.structure_objects import _BITMAP_NUMBERS, _bitmap, _header_spans

    def exists(ref: tuple[int, int]) -> bool:
        return ref[0] % 3 != 0

    by_header = _core.TreeObjects([(data, first, count, members)], b"", set(), exists, [None] * 64)
    spans = _header_spans(data, first, count, members) or []
    numbers = [number for number, _, _, present in spans if present]
    known = {(n, 0) for n in numbers if not 0 <= n < _BITMAP_NUMBERS}
    by_spans = _core.TreeObjects([(data, spans)], _bitmap(numbers), known, exists, [None] * 64)
    return by_header, by_spans


def _assert_nodes_alike(by_header: Any, by_spans: Any, numbers: set[int]) -> None:
    assert by_header.complete == by_spans.complete
    for number in numbers:
        one, two = by_header.value(number), by_spans.value(number)
        assert one == two or one is two is NotImplemented, number


# Objects that refer to each other (present, null, missing, huge numbers) behind headers of every kind.
_NODE_HEADERS = [
    (b"1 0 2 14 3 25\n<< /K 2 0 R >> [3 0 R 9 0 R] null", 30, 3, {1, 2, 3}),  # 3 is null: no reference to it stands
    (b"1 0 2 14 3 25\n<< /K 2 0 R >> [3 0 R 9 0 R] null", 30, 3, {1, 2}),  # 3 not a member
    (b"1 0 20000000 14\n<< /K 20000000 0 R >> [1 0 R 6 0 R]", 16, 2, {1, 20000000}),  # past the bitmap
    (b"1 0 2 14\n<< /K 2 0 R >> [1 0 R]", 9, 2, {1, 2}),
    (b"1 0 1 14\n<< /K 2 0 R >> [1 0 R]", 9, 2, {1}),  # a number twice: damaged, the stream holds nothing
    (b"1 0 2 x\n<< /K 2 0 R >>", 8, 2, {1, 2}),  # only the reference reads it: not complete
    (b"1 0 2 14 3\n<< /K 2 0 R >> [1 0 R]", 11, 3, {1, 2}),  # odd: damaged
    (b"4 0\n<< /Type /Page /Parent 5 0 R >>", 4, 1, {4}),  # a page tree node: not held
]


@needs_core
@pytest.mark.parametrize("header", _NODE_HEADERS + [h[:4] for h in _HEADERS])
def test_nodes_read_their_headers_as_the_spans_of_the_reference_give_them(header: tuple[bytes, int, int, set[int]]):
    data, first, count, members = header
    by_header, by_spans = _nodes_by_header_and_by_spans(data, first, count, members)
    numbers = {int(token) for token in re.findall(rb"\d+", data) if len(token) < 12}
    numbers |= {n for n in members if type(n) is int and 0 <= n < 2**62}  # value() takes object numbers
    if _core_reads_header(header):
        _assert_nodes_alike(by_header, by_spans, numbers)
    else:
        assert not by_header.complete  # PlainObjects then reads every stream through _read_header


def _core_reads_header(header: tuple[bytes, int, int, set[int]]) -> bool:
    from ragprep.extract import _core

    return _core.object_stream_spans(*header) is not NotImplemented


@needs_core
def test_nodes_of_two_streams_mark_each_ones_objects_present_for_the_other():
    from ragprep.extract import _core

    first = (b"1 0\n<< /K 2 0 R /P 3 0 R >>", 4, 1, {1})
    second = (b"2 0 3 8\n[1 0 R] null", 8, 2, {2, 3})
    # Nothing exists but what the headers mark present (not null).
    nodes = _core.TreeObjects([first, second], b"", set(), lambda ref: False, [None] * 8)
    assert nodes.complete
    assert nodes.value(1) == {"/K": (2, 0)}  # 3 is null in the second stream: its key is absent
    assert nodes.value(2) == [(1, 0)]


@needs_core
def test_the_members_of_each_object_stream_are_read_as_the_reference_reads_them():
    from ragprep.extract import _core
    from ragprep.extract.structure_objects import _members_of

    class Entry:
        def __init__(self, number: int | None) -> None:
            self.obj_stream_number = number

    table = {(5, 0): Entry(9), (1, 0): Entry(None), (7, 0): Entry(3), (6, 0): Entry(9), (12, 2): Entry(None)}
    members, top = _core.object_stream_members(table)
    assert (members, top) == _members_of(table) == ({9: {5, 6}, 3: {7}}, 12)
    assert list(members) == [9, 3]  # the table's order
    assert _core.object_stream_members({}) == _members_of({}) == ({}, None)
    with _with_missing_references(_objects_pdf()) as pdf:
        table = pdf.get_xref_table()
        assert _core.object_stream_members(table) == _members_of(table)
        assert _core.object_stream_members(table)[0]  # the fixture has object streams
    with pytest.raises(TypeError):
        _core.object_stream_members([])


@needs_core
@pytest.mark.slow
def test_the_corpus_object_streams_read_by_the_core_as_by_the_reference(corpus):
    from ragprep.extract import _core
    from ragprep.extract.structure_objects import _members_of

    compared = 0
    for path, pdf in _corpus_pdfs(corpus):
        with pdf:
            table = pdf.get_xref_table()
            members, top = _core.object_stream_members(table)
            assert (members, top) == _members_of(table) and list(members) == list(_members_of(table)[0]), path.name
            for data, first, count, held in _stream_headers(pdf):
                by_header, by_spans = _nodes_by_header_and_by_spans(data, first, count, held)
                _assert_nodes_alike(by_header, by_spans, held)
                # is_dict answers True only where value() is a dictionary (structure.py's /ParentTree check).
                assert all(type(by_header.value(n)) is dict for n in held if by_header.is_dict(n) is True), path.name
                compared += len(held)
    assert compared > 10_000


def _stream_headers(pdf: pikepdf.Pdf) -> list[tuple[bytes, int, int, set[int]]]:
    """(data, /First, /N, members) of each readable object stream of `pdf`."""
    members: dict[int, set[int]] = {}
    for ref, entry in pdf.get_xref_table().items():
        if entry.type == 2 and entry.obj_stream_number is not None:
            members.setdefault(entry.obj_stream_number, set()).add(ref[0])
    out = []
    for number, held in members.items():
        try:
            stream = pdf.get_object((number, 0))
            data = stream.read_bytes()
        except (pikepdf.PdfError, RuntimeError, AttributeError):
            continue
        first, count = stream.stream_dict.get("/First"), stream.stream_dict.get("/N")
        if type(first) is int and type(count) is int and 0 <= first <= len(data):
            out.append((data, first, count, held))
    return out


@needs_core
def test_names_are_decoded_once_and_shared():
    # A tree spells a few dozen names many times over: each is one interned str.
    first = parse(b"<< /S /P /K [ /P /Span ] >>")
    again = parse(b"<</S/P>>")
    (key,) = again
    assert key is next(iter(first)) is sys.intern("/S")
    assert again["/S"] is first["/S"] is first["/K"][0]
    # Names that share a cache slot, long names and escaped ones stay exact.
    names = [f"/N{i}" for i in range(5000)] + ["/" + "x" * 40, "/A#20B"]
    parsed = parse(("[" + " ".join(names) + "]").encode())
    assert parsed == [f"/N{i}" for i in range(5000)] + ["/" + "x" * 40, "/A B"]
    assert parse(("[" + " ".join(reversed(names)) + "]").encode()) == parsed[::-1]


# --------------------------------------------------------------------------- the catalog from the file


def _saved(b: PdfBuilder, path: Path, **save: Any) -> pikepdf.Pdf:
    b.pdf.save(path, **save)
    return pikepdf.open(path)


@needs_core
def test_the_catalog_entry_is_read_from_the_file_unresolved(tmp_path: Path):
    from ragprep.extract.structure import read_struct_tree

    b = PdfBuilder()
    page = b.add_page("/P <</MCID 0>> BDC EMC")
    b.set_struct_tree([b.struct_element("P", [b.mcr(0, page=page)], page=page)])
    b.pdf.Root.Extra = b.pdf.make_indirect(Dictionary(A=1))
    path = tmp_path / "tagged.pdf"
    with _saved(b, path, object_stream_mode=pikepdf.ObjectStreamMode.generate) as pdf:
        table = pdf.get_xref_table()
        assert table[pdf.Root.objgen].type == 2  # the catalog in an object stream
        objects = PlainObjects(pdf)
        assert objects.catalog_entry("/Nothing") is None
        in_stream = read_struct_tree(pdf)
    # Saved without object streams: the catalog's reference read from the file.
    with _saved(b, path, object_stream_mode=pikepdf.ObjectStreamMode.preserve) as pdf:
        assert pdf.get_xref_table()[pdf.Root.objgen].type == 1
        written = PlainObjects(pdf).catalog_entry("/StructTreeRoot")
        assert written == pdf.Root.StructTreeRoot.objgen
        assert written is not NotImplemented and type(written) is tuple
        assert PlainObjects(pdf).catalog_entry("/Extra") == pdf.Root.Extra.objgen
        from_file = read_struct_tree(pdf)
    # The same bytes opened from memory: the catalog cannot be read from a
    # file, qpdf hands the root over, and the tree is the same.
    with pikepdf.open(io.BytesIO(path.read_bytes())) as pdf:
        assert PlainObjects(pdf).catalog_entry("/StructTreeRoot") is NotImplemented
        assert read_struct_tree(pdf) == from_file == in_stream
    assert from_file is not None and [e.type for e in from_file.elements] == ["P"]


@needs_core
def test_a_catalog_the_file_cannot_give_is_left_to_qpdf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    b = PdfBuilder()
    b.add_page("")
    b.pdf.Root.Lang = String("en-GB")
    path = tmp_path / "encrypted.pdf"
    path.write_bytes(b.encrypted_bytes(user_password=""))
    with pikepdf.open(path) as pdf:
        # Its strings are encrypted in the file, its references are not (§7.6.2).
        assert PlainObjects(pdf).catalog_entry("/Lang") is NotImplemented
        assert PlainObjects(pdf).catalog_entry("/Pages") == pdf.Root.Pages.objgen
        assert PlainObjects(pdf).catalog_entry("/Nothing") is None
    monkeypatch.setenv(PURE_ENV, "1")
    with _saved(b, tmp_path / "plain.pdf") as pdf:
        assert PlainObjects(pdf).catalog_entry("/Pages") is NotImplemented  # no parser but qpdf's


@needs_core
@pytest.mark.parametrize(
    ("written", "value"),
    [
        (b"4 0 obj\n<< /Type /Catalog /S 5 0 R >>\nendobj", {"/Type": "/Catalog", "/S": (5, 0)}),
        (b"4 0 obj<</A 1>>endobj", {"/A": 1}),
        (b"4\x000 obj [1] endobj 5 0 obj", [1]),
        (b"4 1 obj << >> endobj", NotImplemented),  # another generation
        (b"40 0 obj << >> endobj", NotImplemented),  # another object
        (b" 4 0 obj << >> endobj", NotImplemented),  # not at the offset
        (b"4 0 objx << >> endobj", NotImplemented),
        (b"4 0 obj << /A (endobj) >> endobj", NotImplemented),  # an endobj in a string cuts it
        (b"4 0 obj << /Length 2 >> stream\nab\nendstream endobj", NotImplemented),  # a stream
        (b"4 0 obj << /A 1 >>", NotImplemented),  # cut before endobj
    ],
)  # fmt: skip
def test_an_indirect_object_is_read_from_its_offset_or_not_at_all(written: bytes, value: Any):
    from ragprep.extract.structure_objects import _indirect_object

    assert _indirect_object(written, (4, 0), parse) == value
    # read in place out of the file's bytes: the same answer from `start` to `end`, nothing read past them
    around = b"3 0 obj << /B 2 >> endobj\n" + written + b" endobj 9 0 obj"
    assert _indirect_object(around, (4, 0), parse, 26, 26 + len(written)) == value


# --------------------------------------------------------------------------- references to null objects


def _tree_with_null_references(mode: pikepdf.ObjectStreamMode) -> tuple[bytes, int]:
    """A tagged two-page document whose tree refers to objects that exist
    (the cross-reference table lists them) but are null (§7.3.9): a /K array
    item (an element's and the root's), a whole /K, /Pg, /A and an item of
    an /A array, /C and a /ClassMap entry, an OBJR's /Obj, a /Nums value and
    an item of a page's /ParentTree array. Page 2's first element has no /Pg:
    its page comes from the /ParentTree. Saved in `mode`, each null written
    over a placeholder of its length (so every offset holds) in the saved
    bytes: the object streams stay uncompressed, as qpdf drops a dictionary
    entry that refers to a null object when it writes the file again.

    Returns the bytes and the number of null objects."""
    b = PdfBuilder()
    f = b.add_standard_font("Helvetica")
    shown = [(0, 700, "Hello"), (1, 680, "World"), (2, 660, "Again")]
    one = b.add_page(" ".join(f"/P <</MCID {m}>> BDC BT /{f} 12 Tf 72 {y} Td ({t}) Tj ET EMC" for m, y, t in shown))
    two = b.add_page(" ".join(f"/P <</MCID {m}>> BDC BT /{f} 12 Tf 72 {y} Td ({t}) Tj ET EMC" for m, y, t in shown[:2]))
    pdf = b.pdf
    null = iter([pdf.make_indirect(Dictionary(Placeholder=k)) for k in range(12)])
    first = b.struct_element("P", [b.mcr(0, page=one), next(null)], page=one)
    second = b.struct_element("P", [b.mcr(1, page=one), Dictionary(Type=Name.OBJR, Obj=next(null), Pg=one.obj)])
    second.Pg, second.A = next(null), Array([next(null), Dictionary(O=Name.Layout)])
    third = b.struct_element("Span", [2, next(null)], page=one)
    third.ActualText = next(null)
    empty = b.struct_element("P", [], page=one)
    empty.K = next(null)  # a /K that is one reference, to null
    orphan = b.struct_element("P", [0], page=two)
    last = b.struct_element("P", [1], page=two)
    b.set_struct_tree([b.struct_element("Document", [first, second, third, empty, orphan, last]), next(null)])
    root = pdf.Root.StructTreeRoot
    root.ClassMap = Dictionary(Cls=next(null))
    second.C = Array([next(null), Name.Cls])
    del orphan["/Pg"]
    nums = root.ParentTree.Nums
    nums[3].append(next(null))  # MCID 2 of page 2, not shown, owned by a null
    nums.extend([7, next(null)])
    out = io.BytesIO()
    pdf.save(out, object_stream_mode=mode, compress_streams=False)
    return re.sub(rb"<< /Placeholder \d+ >>", lambda m: b"null".ljust(len(m[0])), out.getvalue()), 12


def _read_on(path: str, data: bytes | Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """The tree as read on `path`, its warnings rendered, and each page's
    structure-mode text; `data` the file's bytes, or the file."""
    from ragprep.extract import extract_document
    from ragprep.extract.structure import read_struct_tree
    from ragprep.extract.warning import render_all

    if path == "pure":
        monkeypatch.setenv(PURE_ENV, "1")
    else:
        monkeypatch.delenv(PURE_ENV, raising=False)
    with pikepdf.open(data if isinstance(data, Path) else io.BytesIO(data)) as pdf:
        tree = read_struct_tree(pdf)
        assert tree is not None
        read = (tree.elements, dict(tree.page_content), dict(tree.object_refs), tuple(render_all(tree.warnings)))
    pages = extract_document(data, mode="structure").pages
    return read, [(page.mode, page.text) for page in pages]


@needs_core
@pytest.mark.parametrize("mode", [pikepdf.ObjectStreamMode.generate, pikepdf.ObjectStreamMode.disable])
def test_references_to_null_objects_read_alike_on_both_paths(monkeypatch: pytest.MonkeyPatch, mode):
    # qpdf's unparse keeps an array's reference to a null object and drops a
    # dictionary's; the object streams' parser makes the array item None. On
    # either, the walk must see a null: no element, a warning, the text whole.
    data, nulls = _tree_with_null_references(mode)
    with pikepdf.open(io.BytesIO(data)) as pdf:
        table = pdf.get_xref_table()
        null_refs = [ref for ref in table if pdf.get_object(ref) is None]
        assert len(null_refs) == nulls  # each exists, and is null
        in_streams = {ref for ref, entry in table.items() if entry.type == 2}
        assert (set(null_refs) <= in_streams) == (mode == pikepdf.ObjectStreamMode.generate)
        assert len(in_streams) > (20 if mode == pikepdf.ObjectStreamMode.generate else -1)
        # The plain values differ where qpdf unparses the root (outside the
        # object streams): its reference to a null kid stays; pikepdf's is None.
        kids = PlainObjects(pdf).of(pdf.Root.StructTreeRoot)["/K"]
        assert (kids[1] is None) == (mode == pikepdf.ObjectStreamMode.generate)
    compiled, pure = _read_on("compiled", data, monkeypatch), _read_on("pure", data, monkeypatch)
    assert compiled == pure
    (elements, content, object_refs, warnings), texts = compiled
    assert [e.type for e in elements] == ["Document"] + ["P", "P", "Span", "P", "P", "P"]
    assert [len(refs) for refs in content.values()] == [3, 2]
    assert texts == [("structure", "Hello\nWorld\nAgain"), ("structure", "Hello\nWorld")]
    assert warnings == (  # a /K that refers to null is an absent /K (§7.3.7): no warning
        "structure tree: null kid in /K; ignored (x3)",
        "structure tree: marked content with no /Pg; page found through /ParentTree",
    )
    assert list(object_refs.values()) == [1]


@needs_core
def test_references_to_null_objects_read_alike_from_a_file_without_object_streams(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    # Opened from a path, such a file's objects are the nodes, read from its
    # bytes (_WrittenObjects): the null objects are written "null", so not
    # known present, and asked of qpdf, as from memory.
    from ragprep.extract.structure_objects import _WrittenObjects

    data, _ = _tree_with_null_references(pikepdf.ObjectStreamMode.disable)
    path = tmp_path / "nulls.pdf"
    path.write_bytes(data)
    with pikepdf.open(path) as pdf:
        written = _WrittenObjects.read(pdf, pdf.get_xref_table())
        streams = {ref[0] for ref in pdf.get_xref_table() if isinstance(pdf.get_object(ref), pikepdf.Stream)}
        assert written is not None and streams  # the pages' contents: no span, qpdf reads them
        assert sorted(n for n, *_ in written.spans) == sorted(ref[0] for ref in pdf.get_xref_table() if ref[0] not in streams)
        nulls = {n for n, start, end, _ in written.spans if written.data[start:end].strip() == b"null"}
        assert len(nulls) == 12 and not nulls & set(written.present)
        objects = PlainObjects(pdf)
        objects.resolve(pdf.Root.objgen)
        assert objects.nodes is not None  # the file's objects as the nodes
    assert _read_on("compiled", path, monkeypatch) == _read_on("compiled", data, monkeypatch)


def _written_file(bodies: dict[int, bytes], moved: dict[int, int]) -> bytes:
    """A file of objects "N 0 obj <body> endobj" and a cross-reference
    table (§7.5.4) giving each its offset, but object n of `moved` the
    offset of object moved[n]."""
    out, offsets = bytearray(b"%PDF-1.7\n"), {}
    for number, body in bodies.items():
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    table = len(out)
    top = max(bodies)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (top + 1)
    for number in range(1, top + 1):
        offset = offsets[moved.get(number, number)] if number in bodies else 0
        out += b"%010d 00000 %s \n" % (offset, b"n" if number in bodies else b"f")
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (top + 1, table)
    return bytes(out)


@needs_core
def test_the_files_objects_are_held_where_qpdf_reads_them(tmp_path: Path):
    from ragprep.extract.structure_objects import _WrittenObjects

    bodies = {
        1: b"<< /Type /Catalog /Pages 2 0 R /StructTreeRoot 5 0 R >>",
        2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        4: b"<< /A (x endobj y) /B [1 2 3] >>",  # "endobj" in a string cuts its span: qpdf reads it
        5: b"<< /Type /StructTreeRoot /K [] >>",
        6: b"null",
        7: b"<< /Length 3 >>\nstream\nabc\nendstream",
        8: b"<< /Never 1 >>",  # the table puts object 8 where object 4 is written
        9: b"[ 4 0 R 6 0 R 8 0 R ]",
    }
    path = tmp_path / "written.pdf"
    path.write_bytes(_written_file(bodies, {8: 4}))
    with pikepdf.open(path) as pdf:
        written = _WrittenObjects.read(pdf, pdf.get_xref_table())
        assert written is not None
        # Not 8: "4 0 obj" at its offset; not 7: a stream (the keyword before "endobj"), left to qpdf.
        assert sorted(n for n, *_ in written.spans) == [1, 2, 3, 4, 5, 6, 9]
        # Known present: the dictionaries written whole; the others are asked of qpdf.
        assert sorted(written.present) == [1, 2, 3, 5]
        objects = PlainObjects(pdf)
        objects.resolve((1, 0))
        nodes = objects.nodes
        assert nodes is not None
        assert nodes.value(5) == {"/Type": "/StructTreeRoot", "/K": []}
        # Cut, a page, a stream, not held: resolve asks qpdf.
        assert all(nodes.value(n) is NotImplemented for n in (4, 3, 7, 8))
        assert objects.resolve((4, 0)) == {"/A": b"x endobj y", "/B": [1, 2, 3]}
        assert nodes.value(9) == [(4, 0), None, (8, 0)]  # object 6 is null (qpdf says), 4 and 8 exist
        assert objects.resolve((9, 0)) == [(4, 0), None, (8, 0)]


@needs_core
def test_the_object_streams_are_read_from_the_files_bytes_not_through_qpdf(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    # A tagged file whose tree lies in deflated object streams, opened from a
    # path: each stream is decoded from the file's bytes in one compiled call
    # (XrefColumns.object_streams), none through qpdf (_ObjectStream.read);
    # the tree and text are those read with every stream through qpdf.
    from ragprep.extract import structure_objects
    from ragprep.extract.xref import XrefColumns

    b = PdfBuilder()
    f = b.add_standard_font("Helvetica")
    page = b.add_page(" ".join(f"/P <</MCID {m}>> BDC BT /{f} 12 Tf 72 {700 - 20 * m} Td (Line {m}) Tj ET EMC" for m in range(4)))
    b.set_struct_tree([b.struct_element("Document", [b.struct_element("P", [b.mcr(m, page=page)], page=page) for m in range(4)])])
    path = tmp_path / "tagged.pdf"
    b.pdf.save(path, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    with pikepdf.open(path) as pdf:
        table = structure_objects.read_xref(pdf)
        assert table is not None and table.members
        for number in table.members:
            assert pdf.get_object((number, 0)).stream_dict.get("/Filter") == Name.FlateDecode

    def through_qpdf(*args: Any) -> None:
        raise AssertionError("an object stream read through qpdf")

    monkeypatch.setattr(structure_objects._ObjectStream, "read", staticmethod(through_qpdf))
    from_bytes = _read_on("compiled", path, monkeypatch)
    monkeypatch.undo()
    monkeypatch.setattr(XrefColumns, "object_streams", lambda self, numbers: [None] * len(numbers))
    assert from_bytes == _read_on("compiled", path, monkeypatch)
    (elements, content, _, _), texts = from_bytes
    assert [e.type for e in elements] == ["Document", "P", "P", "P", "P"] and texts == [("structure", "Line 0\nLine 1\nLine 2\nLine 3")]


def _with_page_rewritten(data: bytes) -> tuple[bytes, int]:
    """`data` (a file of object streams and a cross-reference stream) with an
    update (§7.5.6) that writes its first page again in the file, a
    dictionary outside the streams: a classic section listing it, its
    /Prev the stream. Returns the bytes and the page's number."""
    with pikepdf.open(io.BytesIO(data)) as pdf:
        page = pdf.pages[0].obj
        number, body, size = page.objgen[0], page.unparse(resolved=True), int(pdf.trailer.Size)
        root = pdf.Root.objgen[0]
        last = int(re.findall(rb"startxref\s+(\d+)", data)[-1])
    offset = len(data) + 1
    update = b"\n%d 0 obj\n%s\nendobj\n" % (number, body)
    section = len(data) + len(update)
    update += b"xref\n%d 1\n%010d 00000 n\r\ntrailer\n<< /Size %d /Root %d 0 R /Prev %d >>\n" % (number, offset, size, root, last)
    return data + update + b"startxref\n%d\n%%%%EOF\n" % section, number


@needs_core
def test_the_files_dictionaries_outside_the_object_streams_stand_without_asking_qpdf(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    # A tree in object streams whose page is written in the file (type 1):
    # the objects written in the file become nodes beside the streams'
    # (_written_stream: their spans read by the core off the table's
    # columns), and the page, a dictionary, is known present, so
    # no reference to it is asked of qpdf (`exists`); the tree and text are
    # those read with only the streams as nodes (every /Pg asked of qpdf).
    from ragprep.extract import structure_objects
    from ragprep.extract.xref import XrefColumns

    b = PdfBuilder()
    f = b.add_standard_font("Helvetica")
    page = b.add_page(" ".join(f"/P <</MCID {m}>> BDC BT /{f} 12 Tf 72 {700 - 20 * m} Td (Line {m}) Tj ET EMC" for m in range(3)))
    b.set_struct_tree([b.struct_element("Document", [b.struct_element("P", [b.mcr(m, page=page)], page=page) for m in range(3)])])
    saved = io.BytesIO()
    b.pdf.save(saved, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    data, number = _with_page_rewritten(saved.getvalue())
    path = tmp_path / "updated.pdf"
    path.write_bytes(data)
    with pikepdf.open(path) as pdf:
        assert not pdf.get_warnings()
        table = structure_objects.read_xref(pdf)
        assert isinstance(table, XrefColumns) and table.members and table.get((number, 0)).type == 1

    asked: list[tuple[int, int]] = []
    checked = structure_objects._exists_check

    def exists_check(pdf: pikepdf.Pdf, table: Any) -> Any:
        exists = checked(pdf, table)

        def counted(ref: tuple[int, int]) -> bool:
            asked.append(ref)
            return exists(ref)

        return counted

    monkeypatch.setattr(structure_objects, "_exists_check", exists_check)
    with_written = _read_on("compiled", path, monkeypatch)
    assert (number, 0) not in asked
    written = structure_objects._written_stream
    monkeypatch.setattr(structure_objects, "_written_stream", lambda pdf, table, streams: None)
    assert _read_on("compiled", path, monkeypatch) == with_written
    assert (number, 0) in asked  # the page, asked of qpdf without the written objects
    monkeypatch.setattr(structure_objects, "_written_stream", written)
    (elements, content, _, _), texts = with_written
    assert [e.type for e in elements] == ["Document", "P", "P", "P"] and texts == [("structure", "Line 0\nLine 1\nLine 2")]
