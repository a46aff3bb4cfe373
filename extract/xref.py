"""The cross-reference table (§7.5.4, §7.5.8) read from the file's bytes,
as columns, without asking qpdf for it.

pikepdf's ``Pdf.get_xref_table`` copies qpdf's table into a Python
dictionary of one ``XrefEntry`` per object (tens of thousands in a tagged
document): a seventh of the structure tree's read. The tree read needs
three things of it (structure_objects.py): which objects each object
stream holds (entries of type 2), whether an object is listed and where
(type 1, its offset) and how many entries there are. Here the compiled core
(``_core.xref_table``) reads the sections itself, in one call: classic
tables and cross-reference streams (FlateDecode, PNG predictors), hybrid
files' /XRefStm, the /Prev chain newest first; the table comes back as one
column per field indexed by object number.

The rules are qpdf's (qpdf 12, QPDF_objects.cc: read_xref, read_xrefTable,
read_xrefEntry, processXRefStream, insertXrefEntry, insertFreeXrefEntry):
the first entry read for an object wins; a free entry hides the object from
older sections unless a newer one listed it under that generation; object
0, numbers above a third of the file's size, generations of 65,535 and up
and an object stream holding itself are skipped. Wherever qpdf would warn,
repair the file or read something this reader does not (a header not at
offset 0, white space where qpdf skips it with a warning, a /Length not
ending at "endstream", a filter other than FlateDecode, a short or long
stream, an object listed under two generations, a loop, ...), and wherever
an entry of type 1 does not hold "N G obj" of its own number at its offset
(qpdf rebuilds its whole table when it meets one), and wherever a
cross-reference stream qpdf holds as an object of its own (readObjectAtOffset's
skip_cache_if_in_xref) is listed under its number at another offset, the
reader answers None
and the caller asks qpdf. So does an encrypted file, one not opened from a
path, and any run without the compiled core (RAGPREP_PURE=1).

``_reference_table`` reads the same bytes by the same rules in Python (zlib
and a small tokenizer): the reference of the compiled reader.
tests/extract/test_xref.py holds the two equal on the corpus, the fixtures
and hand-made sections, and both equal to qpdf's table.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import zlib
from dataclasses import dataclass
from collections.abc import Iterable
from typing import Any, NamedTuple, cast

import numpy as np
import pikepdf

from ragprep.extract.native import compiled_core
from ragprep.extract.rows import frozen_instance

try:
    # Object streams inflate with zlib-ng: a fork of zlib's inflater that
    # refuses and reads damaged streams as zlib does (test_xref holds the two
    # alike), 1.5x as fast: inflating was two thirds of reading the streams.
    from zlib_ng import zlib_ng as _object_stream_zlib
except ImportError:  # not installed (a platform with no wheel of it): zlib reads them alike
    import zlib as _object_stream_zlib  # type: ignore[no-redef]

__all__ = ["XrefColumns", "XrefEntry", "file_bytes", "opened_file", "read_xref"]

Ref = tuple[int, int]


class XrefEntry(NamedTuple):
    """An entry as pikepdf's XrefEntry names its fields: type 1 has an
    offset, type 2 an object stream number and index (None otherwise)."""

    type: int
    offset: int | None
    obj_stream_number: int | None
    obj_stream_index: int | None


@dataclass(frozen=True)
class XrefColumns:
    """The table as _core.xref_table gives it: per object number its entry
    type (0 where none) and two fields (offset and generation for type 1,
    object stream number and index for type 2); the object streams the
    entries of type 2 name, in order of their first member (as qpdf's table
    orders them); the largest number listed; the entries' count. `data` is
    the file's bytes the table was read from (read_xref). `encrypted`: the
    file's strings and streams are encrypted in `data` (§7.6), its
    cross-reference sections are not (§7.5.8.2, §7.6.2): only the table is
    read from the bytes then; its objects and object streams are qpdf's."""

    kinds: bytes
    second: memoryview  # int64
    third: memoryview  # int64
    streams: tuple[int, ...]
    top: int | None
    count: int
    data: bytes
    encrypted: bool = False

    @functools.cached_property
    def members(self) -> dict[int, set[int]]:
        """The objects each object stream holds (the entries of type 2 naming
        it), streams in order: made only where a stream is read through qpdf
        or every object is parsed at once (the nodes read the columns)."""
        numbers = np.flatnonzero(np.frombuffer(self.kinds, dtype=np.uint8) == 2)
        streams = np.frombuffer(self.second, dtype=np.int64)[numbers]
        order = np.argsort(streams, kind="stable")
        held: dict[int, set[int]] = {number: set() for number in self.streams}
        for stream, number in zip(streams[order].tolist(), numbers[order].tolist(), strict=True):
            held[stream].add(number)
        return held

    def get(self, ref: Ref) -> XrefEntry | None:
        """The entry of object `ref`, None when the table has none."""
        number, generation = ref
        if not 0 <= number < len(self.kinds):
            return None
        kind = self.kinds[number]
        if kind == 1 and self.third[number] == generation:
            return XrefEntry(1, self.second[number], None, None)
        if kind == 2 and generation == 0:
            return XrefEntry(2, None, self.second[number], self.third[number])
        return None

    def __len__(self) -> int:
        return self.count

    def object_streams(self, numbers: Iterable[int]) -> list[ObjectStreamData | None]:
        """Each object stream of `numbers` read from `data` where the table
        puts it (_core.object_streams, else _reference_object_stream): its
        decoded data, /First and /N; None where qpdf must read it (each of an
        encrypted file's)."""
        if self.encrypted:
            return [None for _ in numbers]
        core = compiled_core()
        if core is not None:
            found: list[ObjectStreamData | None] = core.object_streams(
                self.data, self.kinds, self.second, self.third, numbers, _inflated_whole
            )
            return found
        return [self._reference_object_stream(number) for number in numbers]

    def _reference_object_stream(self, number: int) -> ObjectStreamData | None:
        entry = self.get((number, 0))
        if entry is None or entry.type != 1 or entry.offset is None:
            return None
        return _reference_object_stream(self.data, entry.offset, number)

    def written(self) -> list[tuple[int, int]]:
        """(offset, number) of each object of generation 0 in the file
        (type 1), by offset: what _WrittenObjects reads off qpdf's table."""
        kinds = np.frombuffer(self.kinds, dtype=np.uint8)
        offsets, generations = np.frombuffer(self.second, dtype=np.int64), np.frombuffer(self.third, dtype=np.int64)
        numbers = np.flatnonzero((kinds == 1) & (generations == 0))
        order = np.lexsort((numbers, offsets[numbers]))
        return list(zip(offsets[numbers[order]].tolist(), numbers[order].tolist(), strict=True))


# An object stream (§7.5.7) as read from the file: its decoded data, /First and /N.
ObjectStreamData = tuple[bytes, int, int]

# Files larger than this are left to qpdf's table: the bytes are read whole,
# and what the tree read saves is not worth that much memory.
_MAX_FILE_BYTES = 64 * 1024 * 1024


def opened_file(pdf: pikepdf.Pdf) -> tuple[int, int] | None:
    """The descriptor and size of the file qpdf reads, where pikepdf opened
    a regular file from a path (encrypted or not): pikepdf.open keeps the file it
    opened as `_input_stream`, and its path as `_original_filename` (None
    for a stream handed to it). The file qpdf holds open, not its path
    opened again: no second open and stat per document, and the bytes are
    those qpdf reads even where the path now names another file. None for
    any other file, and where pikepdf keeps no such attributes (qpdf is
    asked then). Read it with os.pread: the descriptor's offset, which
    qpdf's reads go through, is left alone. OSError or ValueError where the
    file is closed."""
    stream = getattr(pdf, "_input_stream", None)
    if stream is None or getattr(pdf, "_original_filename", None) is None:
        return None
    fd = stream.fileno()
    status = os.fstat(fd)
    return (fd, status.st_size) if stat.S_ISREG(status.st_mode) else None


def file_bytes(pdf: pikepdf.Pdf) -> bytes | None:
    """The bytes of an unencrypted file qpdf opened from a path, read once
    (_whole_file); None for another file, an empty one or one over
    _MAX_FILE_BYTES."""
    try:
        return None if pdf.is_encrypted else _whole_file(pdf)
    except (pikepdf.PdfError, RuntimeError):
        return None


def _whole_file(pdf: pikepdf.Pdf) -> bytes | None:
    """The bytes of the file qpdf opened from a path (opened_file), encrypted
    or not; None for another file, an empty one or one over _MAX_FILE_BYTES.
    Read, not mapped: a file truncated while mapped kills the process with
    SIGBUS at the first page past its new end, where a read just comes back
    short."""
    try:
        opened = opened_file(pdf)
        if opened is None or not 0 < opened[1] <= _MAX_FILE_BYTES:
            return None
        fd, size = opened
        # One byte past the size, not the limit: read(n) allocates n bytes
        # before it reads (a 64 MiB buffer per file was 80 % of this call);
        # the extra byte tells a file that grew since fstat from one that did not.
        data = os.pread(fd, size + 1, 0)
    except (OSError, ValueError, pikepdf.PdfError, RuntimeError):
        return None
    return data if len(data) == size else None


def read_xref(pdf: pikepdf.Pdf) -> XrefColumns | None:
    """The table of a file qpdf opened from a path, read by the compiled
    core; None where it cannot be sure to read it as qpdf did, or runs
    without the core. An encrypted file's too: its sections are written in
    the clear, and qpdf's table (a Python object per entry) cost such a
    document more than the rest of its tree's objects."""
    core = compiled_core()
    if core is None:
        return None
    data = _whole_file(pdf)
    if data is None:
        return None
    found = core.xref_table(data)
    if found is None:
        return None
    kinds, second, third, streams, top, count = found
    # Built as its __init__ would (rows.frozen_instance): a frozen dataclass's
    # sets each of its eight fields through object.__setattr__, per document.
    return frozen_instance(
        XrefColumns,
        {
            "kinds": kinds, "second": memoryview(second).cast("q"), "third": memoryview(third).cast("q"),
            "streams": streams, "top": top, "count": count, "data": data, "encrypted": pdf.is_encrypted,
        },
    )  # fmt: skip


# ---- the reference: the same reading in Python --------------------------

_INT_MAX = (1 << 31) - 1
_TAIL = 1054  # qpdf looks for "startxref" in the file's last 1,054 bytes
_SECTIONS = 64  # longer /Prev chains are left to qpdf
_WS = b" \t\n\r\f"  # white space both qpdf and §7.2.2 call so
_END = rb"(?=[ \t\n\r\f()<>\[\]{}/%]|\Z)"  # a token's end
_OBJECT_HEADER = re.compile(rb"(\d{1,18})[ \t\n\r\f]+(\d{1,18})[ \t\n\r\f]+obj" + _END)
_STARTXREF_VALUE = re.compile(rb"[ \t\n\r\f]+(\d{1,18})" + _END)
_CLASSIC_ENTRY = re.compile(rb"(\d{10}) (\d{5}) ([fn])[ \r\n][\r\n]")
_SUBSECTION = re.compile(rb"(\d{1,18})[ \t\n\r\f]+(\d{1,18})[ \t\n\r\f]*")
# One token of a dictionary (a literal string is read by _literal_end):
# white space and comments (group 1 None), or the token.
_TOKEN = re.compile(
    rb"[\0\t\n\f\r ]+|%[^\r\n]*|(<<|>>|\[|\]|/[^\0\t\n\f\r ()<>\[\]{}/%]*|<[0-9A-Fa-f\0\t\n\f\r ]*>"
    rb"|[^\0\t\n\f\r ()<>\[\]{}/%]+)"
)


class _Declined(Exception):
    """qpdf's reading may differ here: the caller asks qpdf."""


def _reference_table(data: bytes) -> tuple[bytes, bytes, bytes, tuple[int, ...], int | None, int] | None:
    """What _core.xref_table(data) answers, read in Python."""
    table = _Table(min(_INT_MAX - 1, len(data) // 3))
    try:
        if not re.match(rb"%PDF-\d+\.\d", data):
            raise _Declined
        _read_sections(data, table)
        if not table.entries or not _in_place(data, table) or not table.streams_in_place():
            return None
    except _Declined:
        return None
    return table.result()


class _Table:
    """The table as the sections fill it, newest first: number -> (type, second, third)."""

    def __init__(self, max_id: int) -> None:
        self.max_id = max_id
        self.entries: dict[int, tuple[int, int, int]] = {}
        self.deleted: set[int] = set()
        self.trailer: dict[str, Any] | None = None
        # The cross-reference streams qpdf holds as objects: (number, generation) -> offset.
        self.held_streams: dict[tuple[int, int], int] = {}

    def insert(self, number: int, kind: int, second: int, third: int) -> None:
        """qpdf's insertXrefEntry."""
        generation = 0 if kind == 2 else third
        if kind not in (1, 2) or not (0 < number <= self.max_id and third >= 0 and generation < 65535):
            return
        if number in self.deleted or (kind == 2 and (second == number or second > self.max_id)):
            return
        held = self.entries.get(number)
        if held is None:
            self.entries[number] = (kind, second, third)
        elif (0 if held[0] == 2 else held[2]) != generation:
            raise _Declined  # listed under two generations

    def free(self, number: int, generation: int) -> None:
        """qpdf's insertFreeXrefEntry."""
        held = self.entries.get(number)
        if number <= self.max_id and not (held is not None and (0 if held[0] == 2 else held[2]) == generation):
            self.deleted.add(number)

    def stream_held(self, number: int, generation: int, at: int) -> None:
        """qpdf's readObjectAtOffset(skip_cache_if_in_xref) for the
        cross-reference stream "number generation obj" at `at`: qpdf holds it
        as that object unless a newer section listed it or a newer stream was it."""
        held = self.entries.get(number)
        if (held is not None and (0 if held[0] == 2 else held[2]) == generation) or (number, generation) in self.held_streams:
            return
        if len(self.held_streams) == 2 * _SECTIONS:
            raise _Declined
        self.held_streams[number, generation] = at

    def streams_in_place(self) -> bool:
        """No stream qpdf holds is listed under its number and generation in
        the file at another offset but 0 (qpdf would answer the stream there)."""
        for (number, generation), at in self.held_streams.items():
            held = self.entries.get(number)
            if held is not None and held[0] == 1 and held[2] == generation and held[1] not in (0, at):
                return False
        return True

    def result(self) -> tuple[bytes, bytes, bytes, tuple[int, ...], int | None, int]:
        size = max(self.entries) + 1
        kinds, second, third = bytearray(size), np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
        streams: dict[int, None] = {}  # in order of their first member
        for number in sorted(self.entries):
            kinds[number], second[number], third[number] = self.entries[number]
            if kinds[number] == 2:
                streams.setdefault(int(second[number]))
        return bytes(kinds), second.tobytes(), third.tobytes(), tuple(streams), size - 1, len(self.entries)


def _read_sections(data: bytes, table: _Table) -> None:
    """Every section along /Prev from the last "startxref" (read_xref)."""
    at = data.rfind(b"startxref", max(0, len(data) - _TAIL))
    value = _STARTXREF_VALUE.match(data, at + 9) if at >= 0 else None
    offset = int(value[1]) if value else 0
    if not 0 < offset < len(data):
        raise _Declined
    visited: list[int] = []
    while offset:
        if offset in visited or len(visited) == _SECTIONS:
            raise _Declined
        visited.append(offset)
        if re.match(rb"xref" + _END, data[offset : offset + 5]):
            offset = _classic_section(data, offset + 4, table)
        else:
            offset = _stream_section(data, offset, table)
    if table.trailer is None:
        raise _Declined


def _skip_ws(data: bytes, at: int) -> int:
    return len(data) - len(data[at:].lstrip(_WS)) if at < len(data) else at


def _classic_section(data: bytes, at: int, table: _Table) -> int:
    """A classic section (read_xrefTable): its subsections, "trailer", its
    dictionary, a hybrid file's /XRefStm; its /Prev."""
    at = _skip_ws(data, at)
    while True:
        head = _SUBSECTION.match(data, at)
        if head is None or head.end() - at > 40:
            raise _Declined
        first, count = int(head[1]), int(head[2])
        if first > _INT_MAX or count > _INT_MAX or first + count > _INT_MAX:
            raise _Declined
        at = head.end()
        for number in range(first, first + count):
            entry = _CLASSIC_ENTRY.match(data, at)
            if entry is None:
                raise _Declined
            if entry[3] == b"f":
                table.free(number, int(entry[2]))
            else:
                table.insert(number, 1, int(entry[1]), int(entry[2]))
            at += 20
        at = _skip_ws(data, at)
        if re.match(rb"trailer" + _END, data[at : at + 8]):
            break
        if not data[at : at + 1].isdigit():
            raise _Declined
    trailer, _ = _dictionary(data, _skip_ws(data, at + 7))
    if table.trailer is None:
        if type(trailer.get("/Size")) is not int:
            raise _Declined
        table.trailer = trailer
    return _classic_prev(data, trailer, table)


def _classic_prev(data: bytes, trailer: dict[str, Any], table: _Table) -> int:
    """A classic trailer's /Prev, after its /XRefStm's entries (hybrid files)."""
    stream_at = trailer.get("/XRefStm")
    if stream_at is not None and type(stream_at) is not int:
        raise _Declined
    previous = _prev(data, trailer)
    if stream_at is not None:
        if not 0 <= stream_at < len(data):
            raise _Declined
        _stream_section(data, stream_at, table)
    return previous


def _prev(data: bytes, section: dict[str, Any]) -> int:
    previous = section.get("/Prev", 0)
    if type(previous) is not int or not 0 <= previous < len(data):
        raise _Declined
    return previous


def _stream_section(data: bytes, at: int, table: _Table) -> int:
    """A cross-reference stream (read_xrefStream, processXRefStream); its /Prev."""
    header = _OBJECT_HEADER.match(data, at)
    if header is None or int(header[1]) == 0:
        raise _Declined
    table.stream_held(int(header[1]), int(header[2]), at)
    info, after = _dictionary(data, _skip_ws(data, header.end()))
    widths = info.get("/W")
    if info.get("/Type") != "/XRef" or type(widths) is not list or len(widths) < 3:
        raise _Declined
    widths = widths[:3]
    if any(type(w) is not int or not 0 <= w <= 8 for w in widths) or not sum(widths):
        raise _Declined
    raw = _stream_data(data, info, after)
    previous = _prev(data, info)
    pairs = _index(info, sum(widths))
    want = sum(widths) * sum(count for _, count in pairs)
    decoded = _decoded(info, raw, want)
    if decoded is None or len(decoded) != want:
        raise _Declined
    _stream_entries(decoded, widths, pairs, table)
    if table.trailer is None:
        table.trailer = info
    return previous


def _stream_entries(decoded: bytes, widths: list[int], pairs: list[tuple[int, int]], table: _Table) -> None:
    rows = iter(range(0, len(decoded), sum(widths)))
    for first, count in pairs:
        for number in range(first, first + count):
            row = next(rows)
            cuts = [row, row + widths[0], row + widths[0] + widths[1], row + sum(widths)]
            fields = [int.from_bytes(decoded[a:b], "big") for a, b in zip(cuts, cuts[1:], strict=False)]
            if widths[0] == 0:
                fields[0] = 1
            if number == 0:
                continue
            if fields[0] == 0:
                table.free(number, 0)
                continue
            if fields[0] > _INT_MAX or fields[2] > _INT_MAX or fields[1] >= 1 << 63:
                raise _Declined
            table.insert(number, *fields)


def _index(info: dict[str, Any], entry_size: int) -> list[tuple[int, int]]:
    """/Index's (first, count) pairs, [(0, /Size)] when absent (processXRefSize, processXRefIndex)."""
    size, index = info.get("/Size"), info.get("/Index")
    limit = min(_INT_MAX, ((1 << 63) - 1) // entry_size)
    if type(size) is not int or not 0 <= size < limit:
        raise _Declined
    if index is None:
        return [(0, size)]
    if type(index) is not list or len(index) < 2 or len(index) % 2 or any(type(v) is not int for v in index):
        raise _Declined
    pairs, total = list(zip(index[0::2], index[1::2], strict=True)), 0
    for first, count in pairs:
        if first < 0 or first > limit or count <= 0 or first > limit - count or count > limit - total:
            raise _Declined
        total += count
    return pairs


def _stream_data(data: bytes, info: dict[str, Any], after: int) -> bytes:
    """ "stream", an end of line, /Length bytes, "endstream", "endobj" (readStream and readObject without a warning)."""
    at = _skip_ws(data, after)
    length = info.get("/Length")
    if not re.match(rb"stream" + _END, data[at : at + 7]) or type(length) is not int or length < 0:
        raise _Declined
    at += 6 + (data[at + 6 : at + 7] == b"\r")
    if data[at : at + 1] != b"\n" or length > len(data) - at - 1:
        raise _Declined
    at += 1
    end = _skip_ws(data, at + length)
    if not re.match(rb"endstream" + _END, data[end : end + 10]):
        raise _Declined
    close = _skip_ws(data, end + 9)  # qpdf gives up on a cross-reference stream not followed by "endobj"
    if not re.match(rb"endobj" + _END, data[close : close + 7]):
        raise _Declined
    return data[at : at + length]


def _decoded(info: dict[str, Any], raw: bytes, want: int) -> bytes | None:
    """The stream's data decoded: no filter, or FlateDecode with no
    predictor or a PNG one over rows of one 8-bit colour; None where not."""
    filters, parms = info.get("/Filter"), info.get("/DecodeParms")
    filters = filters[0] if type(filters) is list and len(filters) == 1 else filters
    parms = parms[0] if type(parms) is list and len(parms) == 1 else parms
    if filters is None:
        return raw if parms is None else None
    if filters != "/FlateDecode" or (parms is not None and type(parms) is not dict):
        return None
    parms = parms or {}
    values = [
        parms.get(key, default)
        for key, default in (("/Predictor", 1), ("/Columns", 0), ("/Colors", 1), ("/BitsPerComponent", 8))
    ]
    if any(type(v) is not int for v in values):
        return None
    predictor, columns, colors, bits = values
    if predictor == 1:
        return _inflated(raw, want)
    if not 10 <= predictor <= 15 or colors != 1 or bits != 8 or columns < 1 or want % columns:
        return None
    rows = _inflated(raw, want // columns * (columns + 1))
    return None if rows is None else _unpredicted(rows, columns)


def _inflated(raw: bytes, want: int) -> bytes | None:
    """Exactly `want` bytes and the zlib stream's end, else None."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(raw, want + 1)
    except zlib.error:
        return None
    return out if len(out) == want and inflater.eof else None


def _unpredicted(rows: bytes, columns: int) -> bytes:
    """PNG row filters undone as qpdf's Pl_PNGFilter does (one byte per pixel; an unknown filter: the row as written)."""
    above, out = bytes(columns), bytearray()
    for start in range(0, len(rows), columns + 1):
        kind, row = rows[start], bytearray(rows[start + 1 : start + 1 + columns])
        for i in range(columns):
            left, up, corner = (row[i - 1] if i else 0), above[i], (above[i - 1] if i else 0)
            if kind == 1:
                row[i] = (row[i] + left) & 255
            elif kind == 2:
                row[i] = (row[i] + up) & 255
            elif kind == 3:
                row[i] = (row[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                row[i] = (row[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        out += row
        above = bytes(row)
    return bytes(out)


# Object streams decoded to more than this are left to qpdf.
_MAX_DECODED = 1 << 28


def _reference_object_stream(data: bytes, offset: int, number: int) -> ObjectStreamData | None:
    """What _core.object_streams answers for object stream `number` at
    `offset`: "N 0 obj", a dictionary of direct objects (/Type /ObjStm,
    integers /N, /First, /Length), its data by _stream_data, as written or
    inflated whole (FlateDecode alone, no /DecodeParms); None where qpdf's
    reading may differ."""
    try:
        header = _OBJECT_HEADER.match(data, offset) if 0 < offset < len(data) else None
        if header is None or (int(header[1]), int(header[2])) != (number, 0):
            return None
        info, after = _dictionary(data, _skip_ws(data, header.end()))
        count, first = info.get("/N"), info.get("/First")
        if info.get("/Type") != "/ObjStm" or type(count) is not int or type(first) is not int:
            return None
        raw = _stream_data(data, info, after)
    except _Declined:
        return None
    filters = info.get("/Filter")
    filters = filters[0] if type(filters) is list and len(filters) == 1 else filters
    if "/DecodeParms" in info or filters not in (None, "/FlateDecode"):
        return None
    decoded = raw if filters is None else _inflated_whole(raw)
    return None if decoded is None else (decoded, first, count)


def _inflated_whole(raw: bytes | memoryview) -> bytes | None:
    """`raw` inflated: one complete zlib stream (RFC 1950) ending with the
    bytes, at most _MAX_DECODED; else None. Its check value (the last four
    bytes, Adler-32 of the data) is not compared: qpdf reads a stream whose
    check value is wrong as its data. The header is checked as zlib checks
    it (method 8, a window of at most 32 KiB, no preset dictionary, a
    multiple of 31); the deflate data is inflated raw, by zlib-ng where it
    is installed, at most one byte past the limit (counted while inflating:
    a flate bomb stops there). _core.object_streams inflates with this too."""
    if len(raw) < 2 or raw[0] & 0x0F != 8 or raw[0] >> 4 > 7 or raw[1] & 0x20 or (raw[0] << 8 | raw[1]) % 31:
        return None
    inflater = _object_stream_zlib.decompressobj(-15)
    try:
        out = inflater.decompress(raw[2:], _MAX_DECODED + 1)
    except cast("type[Exception]", _object_stream_zlib.error):  # a class: zlib-ng's stubs say an instance
        return None
    whole = inflater.eof and len(inflater.unused_data) == 4 and not inflater.unconsumed_tail
    return out if whole and len(out) <= _MAX_DECODED else None


def _in_place(data: bytes, table: _Table) -> bool:
    """Every entry of type 1 (but offset 0, which qpdf reads as null) holds "N G obj" of its own number."""
    for number, (kind, offset, generation) in table.entries.items():
        if kind != 1 or offset == 0:
            continue
        header = _OBJECT_HEADER.match(data, offset) if offset < len(data) else None
        if header is None or (int(header[1]), int(header[2])) != (number, generation):
            return False
    return True


def _dictionary(data: bytes, at: int) -> tuple[dict[str, Any], int]:
    """The dictionary at `at` ("<<" there) as plain values (names "/Name",
    integers, reals, references as (number, generation), arrays as lists,
    strings as bytes; null values left out), and the offset after it."""
    if data[at : at + 2] != b"<<":
        raise _Declined
    stack: list[tuple[bytes, list[Any]]] = []
    pos = at
    while True:
        if data[pos : pos + 1] == b"(":
            pos, token = _literal_end(data, pos), b"()"
        else:
            found = _TOKEN.match(data, pos)
            if found is None:
                raise _Declined
            pos, token = found.end(), found[1]
            if token is None:
                continue  # white space or a comment
        done = _place(stack, token)
        if done is not None:
            return done, pos


def _literal_end(data: bytes, at: int) -> int:
    """Where the literal string at `at` ends (§7.3.4.2: balanced parentheses, backslash escapes)."""
    depth, pos = 0, at
    while pos < len(data):
        byte = data[pos]
        pos += 1
        if byte == 0x5C:  # backslash
            pos += 1
        elif byte == 0x28:
            depth += 1
        elif byte == 0x29:
            depth -= 1
            if depth == 0:
                return pos
    raise _Declined


def _place(stack: list[tuple[bytes, list[Any]]], token: bytes) -> dict[str, Any] | None:
    """Push `token`'s value into the open containers; the outer dictionary once closed."""
    if token in (b"<<", b"["):
        stack.append((token, []))
        return None
    if token in (b">>", b"]"):
        if not stack or stack[-1][0] != (b"<<" if token == b">>" else b"["):
            raise _Declined
        value = _closed(*stack.pop())
        if not stack:
            if not isinstance(value, dict):
                raise _Declined
            return value
        stack[-1][1].append(value)
        return None
    if not stack:
        raise _Declined
    items = stack[-1][1]
    if token == b"R":
        if len(items) < 2 or type(items[-1]) is not int or type(items[-2]) is not int:
            raise _Declined
        items[-2:] = [(items[-2], items[-1])]
    else:
        items.append(_token_value(token))
    return None


def _token_value(token: bytes) -> Any:
    if token.startswith(b"/"):
        if b"#" in token:
            raise _Declined  # escapes: keys are compared as written
        return "/" + re.sub(rb"#([0-9A-Fa-f]{2})", lambda m: bytes([int(m[1], 16)]), token[1:]).decode("latin-1")
    if token[:1] in (b"(", b"<"):
        return token
    if re.fullmatch(rb"[+-]?\d+", token):
        return int(token)
    if re.fullmatch(rb"[+-]?(\d+\.?\d*|\.\d+)", token):
        return float(token)
    if token in (b"true", b"false", b"null"):
        return {b"true": True, b"false": False, b"null": None}[token]
    raise _Declined  # a keyword where an object belongs


def _closed(kind: bytes, items: list[Any]) -> Any:
    """A closed container: a list, or a dictionary (null values left out, §7.3.7)."""
    if kind == b"[":
        return items
    keys = items[0::2]
    if len(items) % 2 or not all(type(key) is str for key in keys) or len(set(keys)) != len(keys):
        raise _Declined  # qpdf warns of a key given twice (and gives up on a cross-reference stream)
    return {key: value for key, value in zip(items[0::2], items[1::2], strict=True) if value is not None}
