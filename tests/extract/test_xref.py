"""The cross-reference table read from the file's bytes (extract/xref.py,
_core.xref_table): the compiled reader against its Python reference
(_reference_table), and both against qpdf's own table (pikepdf's
get_xref_table) on built files, hand-made sections (classic, incremental
updates, hybrid files, cross-reference streams with each PNG row filter)
and every corpus file; and what qpdf repairs or warns about is left to it.
"""

from __future__ import annotations

import array
import io
import os
import random
import re
import stat
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pikepdf
import pytest
from pikepdf import Array, Dictionary
from pdfbuilder import PdfBuilder

from ragprep.extract.native import PURE_ENV, compiled_available
from ragprep.extract.structure_objects import _members_of
from ragprep.extract import xref
from ragprep.extract.xref import XrefColumns, _reference_table, file_bytes, read_xref

needs_core = pytest.mark.skipif(not compiled_available(), reason="the compiled core is not built")


def _core_table(data: bytes) -> Any:
    from ragprep.extract import _core

    return _core.xref_table(data)


def _entries(found: Any) -> tuple[dict[tuple[int, int], tuple[int, ...]], dict[int, set[int]], int | None, int]:
    """A reader's answer as qpdf's table: {(number, generation): entry}, the
    members (XrefColumns.members, off the columns, streams in the answer's
    order), top, count."""
    kinds, second, third, streams, top, count = found
    members = XrefColumns(kinds, memoryview(second).cast("q"), memoryview(third).cast("q"), streams, top, count, b"").members
    offsets, thirds = array.array("q", second), array.array("q", third)
    entries = {}
    for number, kind in enumerate(kinds):
        if kind == 1:
            entries[(number, thirds[number])] = (1, offsets[number])
        elif kind == 2:
            entries[(number, 0)] = (2, offsets[number], thirds[number])
    return entries, members, top, count


def _qpdf_entries(
    pdf: pikepdf.Pdf,
) -> tuple[dict[tuple[int, int], tuple[int, ...]], dict[int, set[int]], int | None, int]:
    table = pdf.get_xref_table()
    entries = {
        ref: (1, entry.offset) if entry.type == 1 else (2, entry.obj_stream_number, entry.obj_stream_index)
        for ref, entry in table.items()
    }
    members, top = _members_of(table)
    return entries, members, top, len(table)


def _assert_read_as_qpdf_reads(path: Path) -> bool:
    """The compiled reader answers as its reference; where it reads the table,
    as qpdf does (the members' streams in qpdf's order too). Whether it read it."""
    data = path.read_bytes()
    found = _core_table(data)
    assert found == _reference_table(data), path
    if found is None:
        return False
    with pikepdf.open(path) as pdf:
        ours, theirs = _entries(found), _qpdf_entries(pdf)
        assert ours == theirs and list(ours[1]) == list(theirs[1]), path
    return True


# ---- hand-made files ----------------------------------------------------------------


def _object(number: int, body: bytes, generation: int = 0) -> bytes:
    return b"%d %d obj\n%s\nendobj\n" % (number, generation, body)


_CATALOG = {1: b"<< /Type /Catalog /Pages 2 0 R >>", 2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << >> >>"}  # fmt: skip


def _classic_section(entries: dict[int, tuple[int, int, bytes]], trailer: bytes) -> bytes:
    """ "xref", one subsection per run of numbers (entries: number -> (offset, generation, b"n" or b"f")), the trailer."""
    out, numbers = b"xref\n", sorted(entries)
    runs: list[list[int]] = []
    for number in numbers:
        if runs and runs[-1][-1] == number - 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    for run in runs:
        out += b"%d %d\n" % (run[0], len(run))
        for number in run:
            offset, generation, kind = entries[number]
            out += b"%010d %05d %s\r\n" % (offset, generation, kind)
    return out + b"trailer\n" + trailer + b"\n"


def _classic_file(objects: dict[int, bytes]) -> tuple[bytearray, dict[int, tuple[int, int, bytes]]]:
    data = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    entries = {0: (0, 65535, b"f")}
    for number, body in sorted(objects.items()):
        entries[number] = (len(data), 0, b"n")
        data += _object(number, body)
    return data, entries


def _finish(data: bytearray, section_at: int, section: bytes) -> bytes:
    return bytes(data + section + b"startxref\n%d\n%%%%EOF\n" % section_at)


def classic() -> bytes:
    data, entries = _classic_file({**_CATALOG, 4: b"(four)"})
    return _finish(data, len(data), _classic_section(entries, b"<< /Size 5 /Root 1 0 R >>"))


def incremental_update() -> bytes:
    """A second section (/Prev) that rewrites object 4, frees object 5 and adds object 6."""
    data, entries = _classic_file({**_CATALOG, 4: b"(four)", 5: b"(five)"})
    first = len(data)
    data += _classic_section(entries, b"<< /Size 6 /Root 1 0 R >>") + b"startxref\n%d\n%%%%EOF\n" % first
    update = {4: (len(data), 0, b"n")}
    data += _object(4, b"(four, again)")
    update[6] = (len(data), 0, b"n")
    data += _object(6, b"(six)")
    update[5] = (0, 1, b"f")
    return _finish(data, len(data), _classic_section(update, b"<< /Size 7 /Root 1 0 R /Prev %d >>" % first))


def _png_rows(rows: list[bytes], up_only: bool = False) -> bytes:
    """PNG-filtered rows (§7.4.4.4), each row's filter its index mod 5 (None,
    Sub, Up, Average, Paeth), or Up for every row (the first with none above)."""
    out, above = b"", bytes(len(rows[0]))
    for index, row in enumerate(rows):
        kind, encoded = 2 if up_only else index % 5, bytearray()
        for i, byte in enumerate(row):
            left, up, corner = (row[i - 1] if i else 0), above[i], (above[i - 1] if i else 0)
            p = left + up - corner
            paeth = (
                left
                if abs(p - left) <= abs(p - up) and abs(p - left) <= abs(p - corner)
                else up
                if abs(p - up) <= abs(p - corner)
                else corner
            )
            predicted = (0, left, up, (left + up) // 2, paeth)[kind]
            encoded.append((byte - predicted) & 255)
        out += bytes([kind]) + bytes(encoded)
        above = row
    return out


def _xref_stream(
    number: int, rows: dict[int, tuple[int, int, int]], extra: bytes, predictor: bool = True, up_only: bool = False
) -> bytes:
    """Cross-reference stream `number` (§7.5.8): /W [1 3 2], an /Index run per
    run of numbers, its rows PNG-filtered (_png_rows) and deflated (or written raw)."""
    numbers = sorted(rows)
    index = b" ".join(b"%d 1" % n for n in numbers)
    raw = [
        rows[n][0].to_bytes(1, "big") + rows[n][1].to_bytes(3, "big") + rows[n][2].to_bytes(2, "big") for n in numbers
    ]
    if predictor:
        data = zlib.compress(_png_rows(raw, up_only))
        filters = b"/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 6 >>"
    else:
        data, filters = b"".join(raw), b""
    head = b"<< /Type /XRef /W [1 3 2] /Index [%s] /Size %d /Length %d %s %s >>" % (
        index,
        max(numbers) + 1,
        len(data),
        filters,
        extra,
    )
    return b"%d 0 obj\n%s\nstream\r\n%s\r\nendstream\nendobj\n" % (number, head, data)


def _object_stream(number: int, held: dict[int, bytes]) -> bytes:
    header = b""
    body = b""
    for n, value in held.items():
        header += b"%d %d " % (n, len(body))
        body += value + b" "
    data = zlib.compress(header + body)
    return _object(number, b"<< /Type /ObjStm /N %d /First %d /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream" % (
        len(held), len(header), len(data), data))  # fmt: skip


def xref_stream(predictor: bool = True, up_only: bool = False) -> bytes:
    """Objects 1-3 in the file, 5 and 6 in object stream 4, the table a cross-reference stream (7)."""
    data, _ = _classic_file(_CATALOG)
    offsets = {n: data.find(b"\n%d 0 obj" % n) + 1 for n in _CATALOG}
    offsets[4] = len(data)
    data += _object_stream(4, {5: b"(five)", 6: b"<< /A 1 >>"})
    rows = {n: (1, offsets[n], 0) for n in offsets} | {
        5: (2, 4, 0),
        6: (2, 4, 1),
        0: (0, 0, 65535),
        7: (1, len(data), 0),
    }
    at = len(data)
    return bytes(data + _xref_stream(7, rows, b"/Root 1 0 R", predictor, up_only) + b"startxref\n%d\n%%%%EOF\n" % at)


def hybrid(freed: bool) -> bytes:
    """A classic table whose trailer's /XRefStm lists objects 5 and 6 in
    object stream 4 (§7.5.8.4); with `freed` the classic table also lists 5
    as free, which hides it from the stream's entries in qpdf's reading."""
    data, entries = _classic_file(_CATALOG)
    entries[4] = (len(data), 0, b"n")
    data += _object_stream(4, {5: b"(five)", 6: b"<< /A 1 >>"})
    stream_at = len(data)
    data += _xref_stream(7, {5: (2, 4, 0), 6: (2, 4, 1)}, b"")
    entries[7] = (stream_at, 0, b"n")
    if freed:
        entries[5] = (0, 0, b"f")
    trailer = b"<< /Size 8 /Root 1 0 R /XRefStm %d >>" % stream_at
    return _finish(data, len(data), _classic_section(entries, trailer))


BUILT: dict[str, Callable[[], bytes]] = {
    "classic": classic,
    "incremental update": incremental_update,
    "xref stream, each PNG filter": xref_stream,
    "xref stream, unfiltered": lambda: xref_stream(predictor=False),
    "xref stream, every row Up": lambda: xref_stream(up_only=True),
    "hybrid": lambda: hybrid(freed=False),
    "hybrid, freed in the classic table": lambda: hybrid(freed=True),
}


@needs_core
@pytest.mark.parametrize("name", sorted(BUILT))
def test_hand_made_sections_read_as_qpdf_reads_them(tmp_path: Path, name: str):
    path = tmp_path / "made.pdf"
    path.write_bytes(BUILT[name]())
    with pikepdf.open(path) as pdf:
        assert not pdf.get_warnings(), "the hand-made file reads without a repair"
    assert _assert_read_as_qpdf_reads(path), "read, not left to qpdf"


@needs_core
def test_a_hybrid_files_free_entry_hides_the_streams_entry(tmp_path: Path):
    # qpdf reads the classic entries first: the free entry for 5 wins over the /XRefStm's.
    listed = {}
    for freed in (False, True):
        path = tmp_path / f"hybrid-{freed}.pdf"
        path.write_bytes(hybrid(freed))
        entries = _entries(_core_table(path.read_bytes()))[0]
        listed[freed] = (5, 0) in entries
    assert listed == {False: True, True: False}


@needs_core
@pytest.mark.parametrize("at", range(20))
@pytest.mark.parametrize("byte", [b"/", b":", b" ", b"\xb0", b"\x00", b"9"])
def test_a_classic_entry_with_any_byte_changed_reads_as_the_reference_reads_it(at: int, byte: bytes):
    # The core reads an entry's offset eight digits at once: a non-digit in
    # any place of it (or of the rest of the entry) declines as the reference does.
    data = classic()
    entry = data.index(b" 00000 n", data.index(b"\nxref\n")) - 10
    changed = data[: entry + at] + byte + data[entry + at + 1 :]
    assert _core_table(changed) == _reference_table(changed)


def _builder_document() -> PdfBuilder:
    b = PdfBuilder()
    font = b.add_standard_font("Helvetica")
    pages = [b.add_page(f"/P <</MCID 0>> BDC BT /{font} 12 Tf 72 700 Td (Page {n}) Tj ET EMC") for n in range(3)]
    b.set_struct_tree([b.struct_element("P", [b.mcr(0, page=page)], page=page) for page in pages])
    return b


@needs_core
@pytest.mark.parametrize(
    "save",
    [
        {"object_stream_mode": pikepdf.ObjectStreamMode.generate},
        {"object_stream_mode": pikepdf.ObjectStreamMode.disable},
        {"object_stream_mode": pikepdf.ObjectStreamMode.generate, "linearize": True},
        {"object_stream_mode": pikepdf.ObjectStreamMode.disable, "linearize": True},
    ],
    ids=["object streams", "classic", "linearized, object streams", "linearized, classic"],
)
def test_files_qpdf_writes_read_as_qpdf_reads_them(tmp_path: Path, save: dict[str, Any]):
    path = tmp_path / "saved.pdf"
    _builder_document().pdf.save(path, **save)
    assert _assert_read_as_qpdf_reads(path)


# ---- what is left to qpdf -----------------------------------------------------------


def _moved_object() -> bytes:
    # Object 4's entry points one byte late: qpdf rebuilds its table when it resolves 4.
    data = classic()
    at = data.find(b"4 0 obj")
    return data.replace(b"%010d 00000 n" % at, b"%010d 00000 n" % (at + 1))


def _wrong_length() -> bytes:
    data = xref_stream(predictor=False)
    at = data.rfind(b"/Length ")
    end = data.index(b" ", at + 8)
    return data[: at + 8] + b"%d" % (int(data[at + 8 : end]) - 1) + data[end:]


def _prev_loop() -> bytes:
    data = incremental_update()
    first = data.find(b"\nxref\n") + 1
    return data.replace(b"/Prev %d" % first, b"/Prev %d" % (data.rfind(b"\nxref\n") + 1))


def _two_generations() -> bytes:
    # An update lists object 4 under generation 1: qpdf keeps the higher by rules not read here.
    data, entries = _classic_file({**_CATALOG, 4: b"(four)"})
    first = len(data)
    data += _classic_section(entries, b"<< /Size 5 /Root 1 0 R >>") + b"startxref\n%d\n%%%%EOF\n" % first
    update = {4: (len(data), 1, b"n")}
    data += _object(4, b"(four, again)", generation=1)
    return _finish(data, len(data), _classic_section(update, b"<< /Size 5 /Root 1 0 R /Prev %d >>" % first))


DAMAGED: dict[str, Callable[[], bytes]] = {
    "junk before the header": lambda: b"junk\n" + classic(),
    "an entry off its object": _moved_object,
    "a stream's /Length short of endstream": _wrong_length,
    "a /Prev loop": _prev_loop,
    "startxref at white space": lambda: classic().replace(b"\nxref\n", b"\n xref\n"),
    "an entry of a bad form": lambda: classic().replace(b" 00000 n\r\n", b" 0000 n \r\n", 1),
    "a cut table": lambda: classic()[: classic().find(b"trailer")],
    "a stream's data short of its entries": lambda: xref_stream().replace(b"/Index [", b"/Index [9 1 "),
    "an object under two generations": _two_generations,
    "a cross-reference stream without endobj": lambda: xref_stream().replace(
        b"endstream\nendobj\nstartxref", b"endstream\nstartxref"
    ),
    # qpdf warns and reads null where the core's tokenizer would read on past them
    "a bad hexadecimal string in the trailer": lambda: classic().replace(b"/Size 5", b"/Size 5 /ID [<AB/P> <CD>]"),
    "a key given twice in a cross-reference stream": lambda: xref_stream().replace(
        b"/Type /XRef", b"/Type /XRef /Size 8"
    ),
    "a name with an escape in a trailer": lambda: classic().replace(b"/Size 5", b"/Size 5 /I#44 1"),
    "a stray delimiter in the trailer": lambda: classic().replace(b"/Size 5", b"/Size 5 /Odd }"),
}


@needs_core
@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_what_qpdf_repairs_or_warns_about_is_left_to_it(tmp_path: Path, name: str):
    data = DAMAGED[name]()
    assert _core_table(data) is None and _reference_table(data) is None
    path = tmp_path / "damaged.pdf"
    path.write_bytes(data)
    with pikepdf.open(path) as pdf:
        assert read_xref(pdf) is None


@needs_core
@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_written_objects_off_qpdfs_table_read_as_the_reference_reads_them(tmp_path: Path, name: str):
    # A file left to qpdf's table: the core reads its objects' spans off
    # columns made of that table, as _WrittenObjects._spans reads them.
    from ragprep.extract.structure_objects import _WrittenObjects

    path = tmp_path / "damaged.pdf"
    path.write_bytes(DAMAGED[name]())
    with pikepdf.open(path) as pdf:
        table = pdf.get_xref_table()
        placed = sorted((entry.offset, ref[0]) for ref, entry in table.items() if ref[1] == 0 and entry.type == 1)
        data = file_bytes(pdf)
        assert data is not None and placed
        assert _WrittenObjects.read(pdf, table) == _WrittenObjects._spans(data, placed)


@needs_core
def test_the_table_is_read_only_from_an_unencrypted_file_opened_from_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = tmp_path / "plain.pdf"
    path.write_bytes(classic())
    with pikepdf.open(path) as pdf:
        assert isinstance(read_xref(pdf), XrefColumns)
        monkeypatch.setenv(PURE_ENV, "1")
        assert read_xref(pdf) is None  # the reference path asks qpdf
    monkeypatch.delenv(PURE_ENV)
    with pikepdf.open(io.BytesIO(path.read_bytes())) as pdf:
        assert read_xref(pdf) is None


@needs_core
@pytest.mark.parametrize("streams", [False, True], ids=["classic", "object streams"])
def test_an_encrypted_files_table_is_read_from_its_bytes_but_not_its_objects(tmp_path: Path, streams: bool):
    # Its sections are written in the clear (§7.6.2), its strings and
    # streams are not: the table is qpdf's, every object stream is left to it.
    secret = tmp_path / "secret.pdf"
    mode = pikepdf.ObjectStreamMode.generate if streams else pikepdf.ObjectStreamMode.disable
    _builder_document().pdf.save(secret, encryption=pikepdf.Encryption(owner="o", user=""), object_stream_mode=mode)
    with pikepdf.open(secret) as pdf:
        columns = read_xref(pdf)
        assert pdf.is_encrypted and columns is not None and columns.encrypted and file_bytes(pdf) is None
        found = bytes(columns.kinds), bytes(columns.second), bytes(columns.third), columns.streams, columns.top, len(columns)
        assert _entries(found) == _qpdf_entries(pdf)
        assert bool(columns.streams) == streams
        assert columns.object_streams(columns.streams) == [None] * len(columns.streams)


@needs_core
def test_a_file_object_handed_to_pikepdf_is_left_to_qpdf(tmp_path: Path):
    # A file with a descriptor, but handed over as a stream: qpdf's reading
    # of it (a position not at 0, a wrapper) is not known to be the file's.
    path = tmp_path / "plain.pdf"
    path.write_bytes(classic())
    with path.open("rb") as handle, pikepdf.open(handle) as pdf:
        assert file_bytes(pdf) is None and read_xref(pdf) is None


@needs_core
def test_the_bytes_are_those_of_the_file_qpdf_opened_not_of_its_path_now(tmp_path: Path):
    # Read from the file qpdf holds open: a file moved over the path since
    # (a sync replacing it) is not the one whose table qpdf read.
    path, other = tmp_path / "plain.pdf", tmp_path / "other.pdf"
    data = classic()
    path.write_bytes(data)
    other.write_bytes(xref_stream())
    with pikepdf.open(path) as pdf:
        os.replace(other, path)
        assert file_bytes(pdf) == data
        columns = read_xref(pdf)
        assert columns is not None and bytes(columns.data) == data


_READ_AFTER_A_CUT = """
import os, sys
import pikepdf
from ragprep.extract.xref import read_xref
path = sys.argv[1]
with open(path, "rb") as handle:
    written = handle.read()
with pikepdf.open(path) as pdf:
    columns = read_xref(pdf)
    os.truncate(path, 16)
    assert columns is not None and bytes(columns.data) == written
"""


@needs_core
def test_the_tables_bytes_stay_readable_when_the_file_is_cut_short(tmp_path: Path):
    # A file rewritten in place while a run reads it: mapped, the bytes past its
    # new end would kill the worker (SIGBUS) at the first read; read, they stay
    # the file the table was read from. In a child, so that a crash fails only this test.
    path = tmp_path / "cut.pdf"
    path.write_bytes(classic())
    done = subprocess.run([sys.executable, "-c", _READ_AFTER_A_CUT, str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@needs_core
def test_a_file_over_the_size_read_whole_is_left_to_qpdf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "plain.pdf"
    data = classic()
    path.write_bytes(data)
    monkeypatch.setattr(xref, "_MAX_FILE_BYTES", len(data) - 1)
    with pikepdf.open(path) as pdf:
        assert file_bytes(pdf) is None and read_xref(pdf) is None
    monkeypatch.setattr(xref, "_MAX_FILE_BYTES", len(data))
    with pikepdf.open(path) as pdf:
        assert file_bytes(pdf) == data and isinstance(read_xref(pdf), XrefColumns)


@needs_core
@pytest.mark.parametrize("change", [-1, 1], ids=["grew", "shrank"])
def test_a_file_whose_size_changes_while_read_is_left_to_qpdf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: int
):
    # The size fstat gives is the size read: a file rewritten between the
    # two (a nightly run beside a sync) is not the file qpdf opened.
    path = tmp_path / "plain.pdf"
    data = classic()
    path.write_bytes(data)
    with pikepdf.open(path) as pdf:
        assert file_bytes(pdf) == data
        fake = os.stat_result((stat.S_IFREG | 0o644,) + (0,) * 5 + (len(data) + change,) + (0,) * 3)
        monkeypatch.setattr(xref.os, "fstat", lambda fd: fake)
        assert file_bytes(pdf) is None and read_xref(pdf) is None


@needs_core
def test_the_columns_answer_as_qpdfs_entries(tmp_path: Path):
    path = tmp_path / "made.pdf"
    path.write_bytes(xref_stream())
    with pikepdf.open(path) as pdf:
        columns = read_xref(pdf)
        table = pdf.get_xref_table()
        assert columns is not None and len(columns) == len(table)
        for ref, entry in table.items():
            assert tuple(columns.get(ref)) == (
                entry.type,
                entry.offset,
                entry.obj_stream_number,
                entry.obj_stream_index,
            )
        assert columns.get((5, 1)) is None and columns.get((99, 0)) is None and columns.get((1, 3)) is None
        assert columns.written() == sorted(
            (e.offset, ref[0]) for ref, e in table.items() if e.type == 1 and ref[1] == 0
        )


def _corpus_pdfs(corpus: Path) -> Iterator[tuple[Path, pikepdf.Pdf | None]]:
    """Every corpus file, opened by qpdf (closed after the step), or None where qpdf cannot open it."""
    for path in sorted(corpus.rglob("*.pdf")):
        try:
            pdf = pikepdf.open(path)
        except (pikepdf.PdfError, pikepdf.PasswordError):
            yield path, None
            continue
        with pdf:
            yield path, pdf


def _corpus_tables(corpus: Path) -> Iterator[tuple[Path, pikepdf.Pdf, XrefColumns]]:
    """Every corpus file whose table the compiled reader reads, opened by qpdf, with that table."""
    for path, pdf in _corpus_pdfs(corpus):
        table = None if pdf is None else read_xref(pdf)
        if pdf is not None and table is not None:
            yield path, pdf, table


@needs_core
@pytest.mark.slow
def test_every_corpus_file_reads_as_qpdf_reads_it(corpus: Path):
    read = 0
    for path, pdf in _corpus_pdfs(corpus):
        if pdf is None:
            data = path.read_bytes()
            assert _core_table(data) == _reference_table(data), path
            continue
        read += _assert_read_as_qpdf_reads(path)
    assert read > 150


# ---- the objects written in the file (_core.written_spans) ---------------------------


def _columns(entries: dict[int, tuple[int, int]]) -> tuple[bytes, bytes, bytes]:
    """Columns as xref_table gives them, every entry of type 1: number -> (offset, generation)."""
    size = max(entries) + 1
    kinds, offsets, generations = bytearray(size), array.array("q", [0] * size), array.array("q", [0] * size)
    for number, (offset, generation) in entries.items():
        kinds[number], offsets[number], generations[number] = 1, offset, generation
    return bytes(kinds), offsets.tobytes(), generations.tobytes()


def _written_both_ways(data: bytes, entries: dict[int, tuple[int, int]]) -> tuple[Any, Any]:
    from ragprep.extract import _core
    from ragprep.extract.structure_objects import _WrittenObjects

    kinds, second, third = _columns(entries)
    placed = sorted((offset, number) for number, (offset, generation) in entries.items() if generation == 0)
    reference = _WrittenObjects._spans(data, placed)
    return _core.written_spans(data, kinds, second, third), (reference.spans, reference.present)


WRITTEN = [
    # (bytes, number -> (offset, generation)): each a case _spans reads its own way
    (b"1 0 obj\n<< /A 1 >>\nendobj\n2 0 obj [1] endobj", {1: (0, 0), 2: (27, 0)}),
    (b"0001 0 obj<</A 1>>endobj", {1: (0, 0)}),  # leading zeros name object 1
    (b"1 0 obj\x00<< /A 1 >>\x0b\x0cendobj", {1: (0, 0)}),  # NUL white space; VT and FF stripped before endobj
    (b"1 0 objx << >> endobj", {1: (0, 0)}),  # "objx" is no keyword
    (b"1 0 obj << >> endob", {1: (0, 0)}),  # no endobj
    (b"1 0 obj << >> 2 0 obj [] endobj", {1: (0, 0), 2: (14, 0)}),  # 1's endobj lies past 2's offset
    (b"1 0 obj << >> endobj", {1: (0, 0), 2: (0, 0)}),  # two entries at one offset: only 1 is there
    (b"1 1 obj << >> endobj 2 0 obj [] endobj", {1: (0, 1), 2: (21, 0)}),  # generation 1 is left out
    (b"1 0 obj << >> endobj", {1: (0, 0), 3: (500, 0)}),  # an offset past the end
    (b"3 0 obj (a >>) endobj", {3: (0, 0)}),  # ends with ">>" but does not start with "<<"
    (b"99999999999999999999999 0 obj [] endobj", {5: (0, 0)}),  # a number too large for any object
]


@needs_core
@pytest.mark.parametrize("case", range(len(WRITTEN)))
def test_written_objects_read_as_the_reference_reads_them(case: int):
    data, entries = WRITTEN[case]
    compiled, reference = _written_both_ways(data, entries)
    assert compiled == reference


@needs_core
def test_written_objects_of_random_bytes_read_as_the_reference_reads_them():
    import random

    rng = random.Random(13)
    pieces = [b"1", b"2", b"0", b" ", b"\n", b"\x00", b"obj", b"endobj", b"<<", b">>", b"[", b"]", b"\x0b", b"x"]
    for _ in range(2000):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        entries = {
            n: (rng.randint(0, len(data) + 2), rng.choice([0, 0, 1]))
            for n in rng.sample(range(1, 4), rng.randint(1, 3))
        }
        compiled, reference = _written_both_ways(data, entries)
        assert compiled == reference, (data, entries)


# Binary data with decoys of both ends: 'e' and 'j' five bytes apart, "endob" without its "j", "ndobj"
# without its "e"; "stream" after a regular byte ("endstream", "xstream"), or not before an end of line,
# 's' and 'm' five bytes apart.
_DECOYS = b"eabcdj endob\x00j xndobj ee\xffej\xe5ndobj endstream\nxstream\r stream  sabcdm"


@needs_core
@pytest.mark.parametrize("at", range(40))
def test_a_written_objects_end_is_the_first_endobj_over_binary_data(at: int):
    # An object's span runs to the first "endobj": found 16 starts at a time ('e' and 'j' five bytes
    # on, or 's' and 'm'), the last starts one by one, decoys before it at every alignment.
    head = b"1 0 obj\n<< /Length 9 >>\n"
    data = head + (_DECOYS * 3)[:at] + b"endobj" + _DECOYS + b"endobj"
    compiled, reference = _written_both_ways(data, {1: (0, 0)})
    assert compiled == reference
    assert compiled[0] == [(1, 7, len(head) + at, True)]
    short = data[: len(head) + at + 6]  # the first "endobj" ends where the data (the bound) ends
    assert _written_both_ways(short, {1: (0, 0)})[0][0] == [(1, 7, len(head) + at, True)]
    assert _written_both_ways(short[:-1], {1: (0, 0)})[0][0] == []  # cut by one byte: no endobj


@needs_core
@pytest.mark.parametrize("at", range(40))
@pytest.mark.parametrize("keyword", [b">stream\n", b" stream\r\n", b"\x00stream\r"])
def test_a_stream_written_in_the_file_is_left_out_its_data_not_scanned(at: int, keyword: bytes):
    # The keyword "stream" (after white space or a delimiter, before an end of line) before any
    # "endobj": a stream, whose span never parsed alone; no span (qpdf reads it), at every alignment.
    head = b"1 0 obj\n<< /Length 9 >"
    data = head + (_DECOYS * 3)[:at] + keyword + b"endobj" + _DECOYS + b"endstream\nendobj 2 0 obj [1] endobj"
    compiled, reference = _written_both_ways(data, {1: (0, 0), 2: (data.index(b"2 0 obj"), 0)})
    assert compiled == reference
    assert [span[0] for span in compiled[0]] == [2]
    # Cut before the end of line: no keyword, and no "endobj" in the bound either.
    short = data[: len(head) + at + len(keyword) - 1]
    assert _written_both_ways(short, {1: (0, 0)}) == (([], []), ([], []))
    # An "endobj" before the keyword ends the object there, as before.
    ended = head + (_DECOYS * 3)[:at] + b"endobj" + keyword + b"endstream endobj"
    assert _written_both_ways(ended, {1: (0, 0)}) == (([(1, 7, len(head) + at, True)], []),) * 2


@needs_core
@pytest.mark.slow
def test_written_objects_of_the_corpus_read_as_the_reference_reads_them(corpus: Path):
    from ragprep.extract import _core
    from ragprep.extract.structure_objects import _WrittenObjects

    spans = 0
    for path, _, table in _corpus_tables(corpus):
        reference = _WrittenObjects._spans(table.data, table.written())
        assert _core.written_spans(table.data, table.kinds, table.second, table.third) == (
            reference.spans,
            reference.present,
        ), path
        spans += len(reference.spans)
    assert spans > 20_000


# ---- object streams read from the file's bytes (_core.object_streams) ---------------------


def _object_stream_file(dictionary: bytes, data: bytes, tail: bytes = b"\nendstream") -> bytes:
    """Objects 1-3 and object stream 4 (`dictionary`, its stream data `data`, then `tail`) holding object 5, a
    classic table listing 5 in the stream through a cross-reference stream (a hybrid file)."""
    body, entries = _classic_file(_CATALOG)
    entries[4] = (len(body), 0, b"n")
    body += _object(4, dictionary + b"\nstream\n" + data + tail)
    stream_at = len(body)
    body += _xref_stream(7, {5: (2, 4, 0)}, b"")
    entries[7] = (stream_at, 0, b"n")
    return _finish(body, len(body), _classic_section(entries, b"<< /Size 8 /Root 1 0 R /XRefStm %d >>" % stream_at))


_HELD = b"5 0 << /A 1 >>"  # object 5 in an object stream: header "5 0", /First 4
_DEFLATED = zlib.compress(_HELD)

OBJECT_STREAMS: dict[str, tuple[bytes, bool]] = {
    # name: (the file, whether it is read from the bytes)
    "deflated": (_object_stream_file(b"<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length %d >>" % len(_DEFLATED), _DEFLATED), True),
    "deflated, filter array": (_object_stream_file(b"<< /Type /ObjStm /N 1 /First 4 /Filter [/FlateDecode] /Length %d >>" % len(_DEFLATED), _DEFLATED), True),
    "as written": (_object_stream_file(b"<< /Type /ObjStm /N 1 /First 4 /Length %d >>" % len(_HELD), _HELD), True),
    "indirect /Length": (_object_stream_file(b"<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length 3 0 R >>", _DEFLATED), False),
    "/DecodeParms": (_object_stream_file(b"<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /DecodeParms << /Predictor 1 >> /Length %d >>" % len(_DEFLATED), _DEFLATED), False),
    "another filter": (_object_stream_file(b"<< /Type /ObjStm /N 1 /First 4 /Filter /ASCIIHexDecode /Length %d >>" % (2 * len(_HELD) + 1), _HELD.hex().encode() + b">"), False),
    "bytes after the zlib stream": (_object_stream_file(b"<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length %d >>" % (len(_DEFLATED) + 2), _DEFLATED + b"\r\n"), False),
    # qpdf reads a zlib stream whose check value (its last four bytes) is wrong as its data, without a warning
    "deflated, check value wrong": (_object_stream_file(b"<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length %d >>" % len(_DEFLATED), _DEFLATED[:-4] + bytes(b ^ 0x5A for b in _DEFLATED[-4:])), True),
    "zlib header check wrong": (_object_stream_file(b"<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length %d >>" % len(_DEFLATED), _DEFLATED[:1] + bytes([_DEFLATED[1] ^ 1]) + _DEFLATED[2:]), False),
    "zlib stream cut short": (_object_stream_file(b"<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length %d >>" % (len(_DEFLATED) - 3), _DEFLATED[:-3]), False),
    "no /Type": (_object_stream_file(b"<< /N 1 /First 4 /Filter /FlateDecode /Length %d >>" % len(_DEFLATED), _DEFLATED), False),
    "/Length short of endstream": (_object_stream_file(b"<< /Type /ObjStm /N 1 /First 4 /Length %d >>" % (len(_HELD) - 2), _HELD), False),
    # Dictionaries the core reads plainly (names, unsigned integers: os_plain_dict) and those it leaves to
    # its dictionary reader (xr_dict): both read as the reference reads them.
    "plain, no white space": (_object_stream_file(b"<</Type/ObjStm/N 1/First 004/Filter/FlateDecode/Length %d>>" % len(_DEFLATED), _DEFLATED), True),
    "plain, tabs and ends of line": (_object_stream_file(b"<<\t/Type\r\n/ObjStm\n/N\t1 /First 4/Extends 9/Filter /FlateDecode /Length %d\n>>" % len(_DEFLATED), _DEFLATED), True),
    "a key twice": (_object_stream_file(b"<< /Type /ObjStm /N 1 /N 1 /First 4 /Filter /FlateDecode /Length %d >>" % len(_DEFLATED), _DEFLATED), False),
    "/N a name": (_object_stream_file(b"<< /Type /ObjStm /N /One /First 4 /Filter /FlateDecode /Length %d >>" % len(_DEFLATED), _DEFLATED), False),
    "/N a real": (_object_stream_file(b"<< /Type /ObjStm /N 1.0 /First 4 /Filter /FlateDecode /Length %d >>" % len(_DEFLATED), _DEFLATED), False),
    "/N signed": (_object_stream_file(b"<< /Type /ObjStm /N +1 /First 4 /Filter /FlateDecode /Length %d >>" % len(_DEFLATED), _DEFLATED), True),
    "/Filter an integer": (_object_stream_file(b"<< /Type /ObjStm /N 1 /First 4 /Filter 7 /Length %d >>" % len(_DEFLATED), _DEFLATED), False),
    "/DecodeParms null": (_object_stream_file(b"<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /DecodeParms null /Length %d >>" % len(_DEFLATED), _DEFLATED), True),
    "/Type /ObjStm2": (_object_stream_file(b"<< /Type /ObjStm2 /N 1 /First 4 /Filter /FlateDecode /Length %d >>" % len(_DEFLATED), _DEFLATED), False),
    "a name escaped": (_object_stream_file(b"<< /Type /Obj#53tm /N 1 /First 4 /Filter /FlateDecode /Length %d >>" % len(_DEFLATED), _DEFLATED), False),
    "a comment": (_object_stream_file(b"<< /Type /ObjStm %% a note\n/N 1 /First 4 /Filter /FlateDecode /Length %d >>" % len(_DEFLATED), _DEFLATED), True),
    "a form feed": (_object_stream_file(b"<< /Type /ObjStm\f/N 1 /First 4 /Filter /FlateDecode /Length %d >>" % len(_DEFLATED), _DEFLATED), True),
    "19 digits": (_object_stream_file(b"<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length 0000000000000000%03d >>" % len(_DEFLATED), _DEFLATED), True),
}  # fmt: skip


def _object_streams_both_ways(table: XrefColumns, numbers: list[int]) -> list[Any]:
    """The compiled reader's answer, asserted equal to its reference's."""
    from ragprep.extract import _core

    compiled = _core.object_streams(table.data, table.kinds, table.second, table.third, numbers, xref._inflated_whole)
    assert compiled == [table._reference_object_stream(number) for number in numbers]
    return compiled


@needs_core
@pytest.mark.parametrize("name", sorted(OBJECT_STREAMS))
def test_object_streams_are_read_from_the_bytes_as_qpdf_reads_them_or_left_to_it(tmp_path: Path, name: str):
    data, read = OBJECT_STREAMS[name]
    path = tmp_path / "made.pdf"
    path.write_bytes(data)
    with pikepdf.open(path) as pdf:
        table = read_xref(pdf)
        assert table is not None and table.members == {4: {5}}
        # the stream, a number listed in the file but not a stream, one of no entry, one past the columns
        found = _object_streams_both_ways(table, [4, 1, 6, 10**6])
        assert found[1:] == [None, None, None]
        if not read:
            assert found[0] is None
            return
        stream = pdf.get_object((4, 0))
        assert found[0] == (stream.read_bytes(), 4, 1) == (_HELD, 4, 1)
        assert not pdf.get_warnings()


@needs_core
def test_an_object_stream_past_the_decoded_limit_is_left_to_qpdf(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    # The limit moved down to the data's size: read at it, left to qpdf one byte past it (both readers alike).
    data, _ = OBJECT_STREAMS["deflated"]
    with pikepdf.open(io.BytesIO(data)) as pdf:
        offset = next(e.offset for ref, e in pdf.get_xref_table().items() if ref == (4, 0))
    assert xref._reference_object_stream(data, offset, 4) == (_HELD, 4, 1)
    monkeypatch.setattr(xref, "_MAX_DECODED", len(_HELD) - 1)
    assert xref._reference_object_stream(data, offset, 4) is None
    assert xref._reference_object_stream(data, offset, 3) is None  # another number's offset
    # The compiled reader inflates with the same function (_inflated_whole), under the same limit.
    path = tmp_path / "made.pdf"
    path.write_bytes(data)
    with pikepdf.open(path) as pdf:
        table = read_xref(pdf)
        assert table is not None and _object_streams_both_ways(table, [4]) == [None]


def _deflated_streams() -> list[bytes]:
    """zlib streams of every kind of deflate block (§7.4.4, RFC 1951): stored, fixed and dynamic codes, several blocks."""
    text = b"".join(b"%d 0 obj << /S /P /K [%d 0 R] /Pg 3 0 R >> " % (n, n + 1) for n in range(400))
    streams = [zlib.compress(text, level) for level in (0, 1, 6, 9)]
    for strategy in (zlib.Z_FIXED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE):
        packer = zlib.compressobj(6, zlib.DEFLATED, 15, 8, strategy)
        streams.append(packer.compress(text) + packer.flush())
    packer = zlib.compressobj(6)
    head = packer.compress(text[:5000]) + packer.flush(zlib.Z_FULL_FLUSH)
    streams.append(head + packer.compress(text[5000:]) + packer.flush())
    return streams


def test_object_streams_inflate_as_zlib_inflates_them_damaged_or_not(monkeypatch: pytest.MonkeyPatch):
    # _inflated_whole inflates with zlib-ng (a fork of zlib's inflater, faster), where installed: it must take and
    # refuse what zlib does, as qpdf (which inflates with zlib) reads it. Bits flipped, bytes changed, inserted,
    # cut, in the block headers and codes and anywhere.
    assert xref._object_stream_zlib is pytest.importorskip("zlib_ng.zlib_ng")
    rng = random.Random(13)
    damaged: list[bytes] = []
    for stream in _deflated_streams():
        damaged += [stream, stream[:-1], stream + b"\n", stream[:-4] + b"\0\0\0\0"]
        for _ in range(300):
            raw = bytearray(stream)
            at = rng.randrange(2, min(len(raw), 80)) if rng.random() < 0.5 else rng.randrange(2, len(raw))
            kind = rng.randrange(4)
            if kind == 0:
                raw[at] ^= 1 << rng.randrange(8)
            elif kind == 1:
                raw[at] = rng.randrange(256)
            elif kind == 2:
                raw[at:at] = bytes([rng.randrange(256)])
            else:
                del raw[at:]
            damaged.append(bytes(raw))
    installed = [xref._inflated_whole(raw) for raw in damaged]
    monkeypatch.setattr(xref, "_object_stream_zlib", zlib)
    assert installed == [xref._inflated_whole(raw) for raw in damaged]
    refused = sum(found is None for found in installed)
    assert 300 < refused < len(damaged) - 300  # damage both refused and read through


@needs_core
@pytest.mark.slow
def test_the_corpus_object_streams_are_read_from_the_bytes_as_qpdf_reads_them(corpus: Path):
    read = 0
    for path, pdf, table in _corpus_tables(corpus):
        numbers = list(table.members)
        for number, found in zip(numbers, _object_streams_both_ways(table, numbers), strict=True):
            if found is not None:
                stream = pdf.get_object((number, 0))
                assert found == (stream.read_bytes(), stream.stream_dict.get("/First"), stream.stream_dict.get("/N")), path
                read += 1
    assert read > 900


@needs_core
@pytest.mark.parametrize("name", ["written_spans", "object_streams"])
def test_columns_shorter_than_their_kinds_are_refused(name: str):
    # Each column holds an int64 per entry of `kinds`: shorter ones would be read past their end.
    from ragprep.extract import _core

    kinds, whole, short = b"\x01\x01", bytes(16), bytes(8)
    call = getattr(_core, name)
    extra = ([1], xref._inflated_whole) if name == "object_streams" else ()
    for second, third in ((short, whole), (whole, short)):
        with pytest.raises(ValueError, match="short columns"):
            call(b"%PDF-1.7", kinds, second, third, *extra)
    assert call(b"%PDF-1.7", kinds, whole, whole, *extra) is not None


# ---- the nodes read off the columns (TreeObjects' `columns`) ------------------------------


def _nodes_both_ways(table: XrefColumns) -> tuple[Any, Any, int]:
    """_core.TreeObjects of the table's object streams and written objects
    twice: off the columns (each stream's members by its number, the
    written objects as (data,), as PlainObjects builds them), and as before
    them: each stream's members as a set (XrefColumns.members) and the
    written objects' spans and dictionaries by _WrittenObjects._spans (the
    reference of _core.written_spans) in the present bitmap. And the numbers
    to ask value() of."""
    from ragprep.extract import _core
    from ragprep.extract.structure_objects import _WrittenObjects, _bitmap, _unmapped

    def exists(ref: tuple[int, int]) -> bool:  # what is not known present: some numbers, never another generation
        return ref[1] == 0 and ref[0] % 3 != 0

    read = [(number, found) for number, found in zip(table.streams, table.object_streams(table.streams), strict=True) if found]
    written = _WrittenObjects._spans(table.data, table.written())
    refs = [None] * (len(table.kinds) + 8)
    by_columns = _core.TreeObjects(
        [(*found, number) for number, found in read] + [(table.data,)], b"", set(), exists, refs,
        (table.kinds, table.second, table.third),
    )  # fmt: skip
    by_sets = _core.TreeObjects(
        [(*found, table.members[number]) for number, found in read] + [(table.data, written.spans)],
        _bitmap(written.present), _unmapped(written.present), exists, list(refs),
    )  # fmt: skip
    return by_columns, by_sets, len(table.kinds) + 2


def _assert_nodes_alike(table: XrefColumns) -> int:
    by_columns, by_sets, numbers = _nodes_both_ways(table)
    assert by_columns.complete == by_sets.complete
    for number in range(numbers):
        one, two = by_columns.value(number), by_sets.value(number)
        assert one == two or one is two is NotImplemented, number
    return numbers


@needs_core
def test_the_nodes_read_off_the_columns_as_off_the_members_and_spans(tmp_path: Path):
    # A file of object streams whose objects refer to a missing one and to
    # the pages written in the file; the same without object streams. (The
    # corpus test meets objects written "null".)
    document = _builder_document().pdf
    target = document.make_indirect(Dictionary(X=1))
    document.Root.Dangling = document.make_indirect(Dictionary(Gone=target, Kept=1))
    document.Root.Items = document.make_indirect(Array([target, document.Root.Pages, 2]))
    for mode in (pikepdf.ObjectStreamMode.generate, pikepdf.ObjectStreamMode.disable):
        path = tmp_path / f"{mode}.pdf"
        document.save(path, object_stream_mode=mode, compress_streams=False)
        data = re.sub(rb"(/Gone \d+) 0 R", rb"\1 7 R", path.read_bytes())  # a reference to no object
        path.write_bytes(data)
        with pikepdf.open(path) as pdf:
            table = read_xref(pdf)
            assert table is not None and bool(table.streams) == (mode == pikepdf.ObjectStreamMode.generate)
            _assert_nodes_alike(table)
            by_columns, _, _ = _nodes_both_ways(table)
            dangling = by_columns.value(pdf.Root.Dangling.objgen[0])
            assert dangling == {"/Kept": 1}  # a reference to no object: an absent key


@needs_core
@pytest.mark.slow
def test_the_corpus_nodes_read_off_the_columns_as_off_the_members_and_spans(corpus: Path):
    compared = 0
    for _, _, table in _corpus_tables(corpus):
        compared += _assert_nodes_alike(table)
    assert compared > 50_000


def _xref_stream_numbered(number: int, listed_at: int | None) -> bytes:
    """xref_stream()'s file with its cross-reference stream numbered `number`
    and listing `number` at offset `listed_at` (its own offset where None):
    objects 1-3, 5 and 6 in object stream 4."""
    data, _ = _classic_file(_CATALOG)
    offsets = {n: data.find(b"\n%d 0 obj" % n) + 1 for n in _CATALOG}
    offsets[4] = len(data)
    data += _object_stream(4, {5: b"(five)", 6: b"<< /A 1 >>"})
    at = len(data)
    rows = {n: (1, offsets[n], 0) for n in offsets} | {5: (2, 4, 0), 6: (2, 4, 1), 0: (0, 0, 65535)}
    rows[number] = (1, at if listed_at is None else listed_at, 0)
    return bytes(data + _xref_stream(number, rows, b"/Root 1 0 R") + b"startxref\n%d\n%%%%EOF\n" % at)


@needs_core
def test_a_cross_reference_stream_numbered_as_an_object_listed_elsewhere_is_left_to_qpdf():
    # fuzz/xref_fuzz.py --seed 2711 found it: a cross-reference stream whose "N 0 obj" names an object its own
    # table lists at another offset (here object stream 4's). qpdf holds the stream as object N from reading the
    # table (readObjectAtOffset's skip_cache_if_in_xref: N was not listed yet), so get_object(N) is the stream,
    # where the reader would read the object stream at the listed offset: both readers leave the table to qpdf.
    from ragprep.extract import _core

    data, _ = _classic_file(_CATALOG)
    stream_at = len(data)  # where _xref_stream_numbered writes object stream 4
    clash = _xref_stream_numbered(4, stream_at)
    with pikepdf.open(io.BytesIO(clash)) as pdf:
        assert pdf.get_object((4, 0)).stream_dict.get("/Type") == "/XRef"  # qpdf's object 4: the table's stream
        assert {ref: entry.offset for ref, entry in pdf.get_xref_table().items()}[(4, 0)] == stream_at
    assert _core.xref_table(clash) is None and _reference_table(clash) is None
    # Listed at its own offset, at offset 0 (read as null, as qpdf does), or another number: read.
    for number, listed_at in ((8, None), (8, 0)):
        data = _xref_stream_numbered(number, listed_at)
        found = _core.xref_table(data)
        assert found is not None and found == _reference_table(data)
        with pikepdf.open(io.BytesIO(data)) as pdf:
            assert _entries(found) == _qpdf_entries(pdf)
