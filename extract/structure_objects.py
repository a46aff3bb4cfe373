"""The objects of a structure tree as plain Python values, each read once.

Reading the tree through pikepdf costs a pikepdf object per key, value and
array item (about 20 µs per element); a tagged document has hundreds of
elements per page. Here each indirect object is unparsed once by qpdf and
parsed by the compiled core (``_core.parse_object``) into plain values:

* dict (keys are names, "/Key"; a null value is an absent key, §7.3.7),
  list, int, float, bool, None;
* str for a name, "/Name" as pikepdf spells it; bytes for a string;
* ``(number, generation)``, a tuple, for an indirect reference (§7.3.10):
  indirect objects stay references until ``resolve`` reads them, so a
  walker knows each object's identity (cycles, shared subtrees);
* ``Stream`` for a stream: only its identity is kept.

Objects stored in an object stream (§7.5.7; most of a modern tree) are not
asked of qpdf one by one: on the first reference into a stream every stream
is decoded once and parsed by the compiled core into nodes
(``_core.TreeObjects``), no Python object per key and value; an object
becomes plain values when asked for (``resolve``), parsed from its own bytes.
The structure tree walk reads the nodes themselves (structure.py); where it
leaves a tree to the walkers of plain values, ``fill_cache`` parses every
object at once, as before.
The cross-reference table (§7.5.8) says which objects a stream holds and
which objects exist: a reference to a missing one is null (an absent key,
an array item None), as in qpdf's unparse. Where the table was read from
the file's bytes (xref.XrefColumns) the core reads each stream's members
off its columns, and the spans of the objects written in the file (not in
a stream), when it reads the headers into its nodes: no Python object per
object; else it takes each stream's members grouped by
``_core.object_stream_members``. The header's spans as Python tuples, and
the members as sets, are built only where every object is parsed at once
(``fill_cache``). Objects qpdf changes in memory (the
page tree, whose inherited attributes it pushes down to the pages) and any
object that does not parse alone are read through qpdf as before.

Without the compiled core (``RAGPREP_PURE=1``, or not built) ``plain``
converts the pikepdf object to the same values: it is the reference of
tests/extract/test_structure_objects.py.
"""

from __future__ import annotations

import bisect
import functools
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np
import pikepdf
from pikepdf import ObjectType

from ragprep.extract.native import compiled_core
from ragprep.extract.xref import XrefColumns, file_bytes, opened_file, read_xref

__all__ = ["PlainObjects", "Ref", "Stream", "kind_of", "plain", "text_string"]

Ref = tuple[int, int]

# The cross-reference table: read from the file's bytes by the compiled
# core (xref.read_xref), else qpdf's (pikepdf's get_xref_table()).
Table = dict[Ref, Any] | XrefColumns

# {object stream number: the object numbers the table puts in it}.
Members = dict[int, set[int]]

# qpdf holds object numbers and generations as C ints (pikepdf's get_object
# takes no other: a TypeError). A reference past them, which the parser of
# the file's bytes reads as written, names no object qpdf can hold.
_QPDF_INT = range(-(2**31), 2**31)


def _qpdf_object(pdf: pikepdf.Pdf, ref: Ref) -> Any:
    """qpdf's object `ref`: None for a missing object (§7.3.10), as qpdf
    answers, and so for a number or generation qpdf cannot hold."""
    if ref[0] not in _QPDF_INT or ref[1] not in _QPDF_INT:
        return None
    return pdf.get_object(ref)


@dataclass(frozen=True)
class Stream:
    """A stream object (§7.3.8), by its object number and generation."""

    objgen: Ref


_DICT, _ARRAY, _STREAM = ObjectType.dictionary, ObjectType.array, ObjectType.stream
_NAME, _STRING = ObjectType.name_, ObjectType.string


def plain(obj: Any) -> Any:
    """A pikepdf object as plain values (see the module docstring); what an
    indirect object holds is a reference, not its value."""
    if type(obj) is not pikepdf.Object:
        return float(obj) if isinstance(obj, Decimal) else obj  # pikepdf gives int, bool, None, Decimal
    code = obj._type_code
    if code is _NAME:
        return str(obj)
    if code is _STRING:
        return bytes(obj)
    if code is _ARRAY:
        return [_held(item) for item in obj]
    if code is _DICT:
        return {key: _held(value) for key, value in obj.items() if value is not None}
    if code is _STREAM:
        return Stream(obj.objgen)
    return None  # null, and what pikepdf cannot hold (operators, inline images)


def _held(obj: Any) -> Any:
    """An item of a container: a reference when it is an indirect object."""
    if type(obj) is pikepdf.Object and obj.is_indirect:
        return obj.objgen
    return plain(obj)


def text_string(raw: bytes) -> str:
    """A PDF text string (§7.9.2.2) as pikepdf decodes it (PDFDocEncoding, UTF-16BE, UTF-8).

    Bytes below 0x80 but those PDFDocEncoding gives other characters than
    ASCII (Annex D.2: 0x18-0x1F, 0x7F) are the same in both, and no byte
    order mark starts them: decoded as ASCII, without the two pikepdf calls
    (most /Lang, /Alt and /ActualText values)."""
    if raw.isascii() and _PDFDOC_NOT_ASCII.search(raw) is None:
        return raw.decode("ascii")
    return str(pikepdf.String(raw))


# The bytes below 0x80 PDFDocEncoding does not read as ASCII (Annex D.2).
_PDFDOC_NOT_ASCII = re.compile(rb"[\x18-\x1f\x7f]")


# §7.3's names of the object types, for messages.
_KINDS = {
    bool: "boolean", int: "integer", float: "real", str: "name", bytes: "string",
    list: "array", dict: "dictionary", Stream: "stream", type(None): "null",
}  # fmt: skip


def kind_of(value: Any) -> str:
    """What kind of PDF object (§7.3) a plain value is, for messages."""
    return _KINDS.get(type(value), type(value).__name__)


class PlainObjects:
    """The document's indirect objects as plain values, read on first use."""

    def __init__(self, pdf: pikepdf.Pdf) -> None:
        self._pdf = pdf
        core = compiled_core()
        self._parse = core.parse_object if core is not None else None
        self._parse_objects = core.parse_objects if core is not None else None
        self._cache: dict[Ref, Any] = {}
        self._streams_read = self._parse is None  # the object streams, read on the first miss
        self._table: Table | None = None  # the cross-reference table, read once
        self._catalog: Any = None  # the catalog as the file writes it, read once (catalog_entry)
        self._catalog_encrypted = False  # ... from an encrypted file's bytes: its strings are not the document's
        # The object streams parsed into the compiled core's nodes
        # (_core.TreeObjects): their objects become plain values one by one,
        # as asked, and the tree walk reads the nodes themselves.
        self._nodes: Any = None
        self._unparsed: list[Callable[[], None]] = []  # the streams' parse into the cache, left for fill_cache

    def resolve(self, ref: Ref) -> Any:
        """The value of indirect object `ref`; None for a missing object (§7.3.10)."""
        cache = self._cache
        if ref in cache:
            return cache[ref]
        if not self._streams_read:
            self._streams_read = True
            self._read_object_streams()
            if ref in cache:
                return cache[ref]
        nodes = self._nodes
        if nodes is not None and ref[1] == 0:
            value = nodes.value(ref[0])
            if value is not NotImplemented:
                cache[ref] = value
                return value
        value = cache[ref] = self._read(_qpdf_object(self._pdf, ref))
        return value

    @property
    def nodes(self) -> Any:
        """The object streams as the compiled core's nodes (_core.TreeObjects),
        once read; None without the core or when they are in the cache instead."""
        return self._nodes

    def fill_cache(self) -> None:
        """Every object of the object streams into the cache at once (what
        the walkers of plain values read), as parse_objects puts them there."""
        unparsed, self._unparsed, self._nodes = self._unparsed, [], None
        for parse in unparsed:
            parse()

    @property
    def cache(self) -> dict[Ref, Any]:
        """The objects read so far (the compiled walker looks there before calling resolve)."""
        return self._cache

    def value(self, value: Any) -> Any:
        """`value` with a reference replaced by what it refers to."""
        return self.resolve(value) if type(value) is tuple else value

    def of(self, obj: Any) -> Any:
        """A pikepdf object (direct or indirect) as a plain value."""
        if type(obj) is pikepdf.Object and obj.is_indirect:
            return self.resolve(obj.objgen)
        return self._read(obj)

    def _read(self, obj: Any) -> Any:
        parse = self._parse
        if parse is not None and type(obj) is pikepdf.Object and obj._type_code in (_DICT, _ARRAY):
            return parse(obj.unparse(resolved=True))
        return plain(obj)

    def catalog_entry(self, key: str) -> Any:
        """The catalog's (§7.7.2) entry `key` as the file writes it, a
        reference left unresolved; None when the catalog has no such key.
        NotImplemented when the file cannot say: then ask qpdf.

        qpdf cannot hand over an entry without resolving it (a null value is
        an absent key, §7.3.7), and resolving /StructTreeRoot makes it parse
        the whole object stream that holds it (hundreds of elements, which
        _read_object_streams parses again). Read from the file's own bytes
        where the catalog is written: an unencrypted file qpdf opened from
        a path, its catalog at the offset qpdf's cross-reference table gives
        (repaired or not), "N G obj" there naming it; or from its object
        stream, parsed as the tree's objects are. As
        _read_object_streams, this reads the document as the file holds it.
        The catalog is read once (the tree's reader asks for /StructTreeRoot
        and /Lang). An encrypted file encrypts its strings (§7.6.2), not its
        references and names: from its bytes, a reference and an absent key
        are answered, any other entry is qpdf's to read (qpdf would parse the
        whole object stream holding /StructTreeRoot, and keep it, to hand it
        over)."""
        catalog = self._catalog
        if catalog is None:
            catalog = self._catalog = self._written_catalog()
        if type(catalog) is not dict:
            return NotImplemented
        value = catalog.get(key)
        if self._catalog_encrypted and value is not None and type(value) is not tuple:
            return NotImplemented
        return value

    def _written_catalog(self) -> Any:
        """The catalog as catalog_entry reads it: a dict, or NotImplemented
        (or any other value: what is no dictionary) where qpdf must say."""
        pdf = self._pdf
        if self._parse is None:
            return NotImplemented
        try:
            ref = pdf.Root.objgen
            entry = self._xref_table().get(ref)
            if entry is not None and entry.type == 2:
                return self.resolve(ref)  # parsed with its object stream
            if entry is not None and entry.type == 1 and entry.offset is not None:
                written = self._written_at(entry.offset, _CATALOG_BYTES)
                if written is None:
                    return NotImplemented
                self._catalog_encrypted = written[3]
                return _indirect_object(written[0], ref, self._parse, written[1], written[2])
        except (pikepdf.PdfError, RuntimeError, ValueError, TypeError, OSError):
            pass
        return NotImplemented

    def _written_at(self, offset: int, count: int) -> tuple[bytes, int, int, bool] | None:
        """Up to `count` of the file's bytes from `offset`, as (data, start,
        end, encrypted): those the table was read from (xref.read_xref holds
        them, an encrypted file's too; not copied), else those read from an
        unencrypted file qpdf opened from a path; None for another file.
        `encrypted`: the file's strings are encrypted in these bytes."""
        table = self._table
        if isinstance(table, XrefColumns):
            size = len(table.data)
            return table.data, min(offset, size), min(offset + count, size), table.encrypted
        opened = opened_file(self._pdf)
        if opened is None or self._pdf.is_encrypted:
            return None
        data = os.pread(opened[0], count, offset)
        return data, 0, len(data), False

    def _xref_table(self) -> Table:
        """The cross-reference table (§7.5.4, §7.5.8), read once: from the
        file's bytes where the compiled core is sure to read it as qpdf
        did (xref.read_xref), else qpdf's."""
        if self._table is None:
            self._table = read_xref(self._pdf) or self._pdf.get_xref_table()
        return self._table

    def _read_object_streams(self) -> None:
        """Every object of every object stream, parsed from its bytes, where
        the cross-reference table puts it there. An object the table lists in
        a stream whose header does not hold it, or holds null there, is
        missing: references to it are null, as qpdf unparses them."""
        try:
            table = self._xref_table()
        except (pikepdf.PdfError, RuntimeError, ValueError):
            return
        parse_objects = self._parse_objects
        if parse_objects is None:
            return
        numbers, top, members = _stream_members(table)
        streams = _object_streams(self._pdf, table, numbers, members)
        held = functools.partial(_members_in, table, members)
        exists = _exists_check(self._pdf, table)
        written = _written_stream(self._pdf, table, bool(numbers))
        refs = _reference_slots(top, len(table)) if streams or written is not None else []
        # Objects that do not parse alone, and page tree nodes, are left to
        # qpdf; the others go into the cache as cache.setdefault((n, 0),
        # value) would put them: one by one from the nodes (their headers
        # read by the core), or all at once (fill_cache).
        self._unparsed = [functools.partial(_parse_streams, streams, held, exists, refs, parse_objects, self._cache)]
        # A stream's members for the core: its number where the table's
        # columns say them (the core reads them there: the streams are the
        # headers as they are), else their set.
        headers: list[tuple[Any, ...]] = (
            list(streams) if members is None else [(*stream[:3], members[stream.number]) for stream in streams]
        )
        present, known = b"", set()
        if written is not None:
            headers.append(written[0])
            present, known = _bitmap(written[1]), _unmapped(written[1])
        columns = (table.kinds, table.second, table.third) if isinstance(table, XrefColumns) else None
        nodes = _core_nodes(headers, present, known, exists, refs, columns)
        if nodes is not None:
            self._nodes = nodes
        else:
            self.fill_cache()


def _object_streams(pdf: pikepdf.Pdf, table: Table, numbers: Sequence[int], members: Members | None) -> list[_ObjectStream]:
    """The object streams `numbers` that can be read, in order: from the
    file's bytes where the table was read from them and qpdf would read them
    alike (XrefColumns.object_streams: one compiled call, no pikepdf object
    and qpdf pipeline per stream), else through qpdf."""
    written = table.object_streams(numbers) if isinstance(table, XrefColumns) else [None] * len(numbers)
    streams = []
    for number, found in zip(numbers, written, strict=True):
        stream = _ObjectStream.read(pdf, number) if found is None else _ObjectStream.checked(*found, number)
        if stream is not None:
            streams.append(stream)
    return streams


def _members_in(table: Table, members: Members | None, number: int) -> set[int]:
    """The objects the table puts in object stream `number`: from `members`
    (_stream_members), else off the table's columns (XrefColumns.members,
    made on first use: only where every object is parsed at once)."""
    if members is not None:
        return members[number]
    return table.members[number] if isinstance(table, XrefColumns) else set()


def _written_stream(pdf: pikepdf.Pdf, table: Table, streams: bool) -> tuple[tuple[Any, ...], list[int]] | None:
    """The objects written in the file (not in a stream) as one more stream
    of the nodes, for the node walk (fill_cache leaves them to qpdf, as
    before), and those known present: a reference to one (a dictionary:
    pages, annotations, class map entries) stands without asking qpdf
    (`exists`), and its value is read from its bytes. Where the table was
    read from the file's bytes, (data,): the core reads their spans off the
    table's columns and marks the dictionaries present itself; where the
    file has no object streams, (data, spans) as _WrittenObjects reads them;
    else None (an encrypted file: qpdf reads its objects)."""
    if isinstance(table, XrefColumns):
        return None if table.encrypted else ((table.data,), [])
    written = None if streams else _WrittenObjects.read(pdf, table)
    return None if written is None else ((written.data, written.spans), written.present)


def _parse_streams(
    streams: list[_ObjectStream], members: Callable[[int], set[int]], exists: Callable[[Ref], bool], refs: list[Any],
    parse_objects: Callable[..., None], cache: dict[Ref, Any],
) -> None:
    """Every object of the streams into `cache` by parse_objects, their
    headers read by _read_header (a damaged one leaves its stream out)."""
    spanned = [(stream.data, spans) for stream in streams if (spans := stream.spans(members(stream.number))) is not None]
    numbers = [span[0] for _, spans in spanned for span in spans if span[3]]
    present = _bitmap(numbers)
    known = _unmapped(numbers)
    for data, spans in spanned:
        parse_objects(data, spans, known, exists, present, refs, cache)


def _exists_check(pdf: pikepdf.Pdf, table: Table) -> Callable[[Ref], bool]:
    """parse_objects' `exists`: whether an object outside the streams (an
    entry of type 1) exists, which it does unless qpdf reads it as null.
    parse_objects puts what exists into `known`; what does not is asked
    again at each reference (a tree pointing at one missing object
    thousands of times), answered here from the first answer. A function of
    its own, holding no PlainObjects: the streams' parse and the core's
    nodes keep it, and a reference back would make a cycle that leaves every
    parsed object, the cross-reference table and the streams alive after
    the tree is read, until the cyclic collector walks and frees them."""
    missing: set[Ref] = set()

    def exists(ref: Ref) -> bool:
        if ref in missing:
            return False
        entry = table.get(ref)
        try:
            found = entry is not None and entry.type == 1 and _qpdf_object(pdf, ref) is not None
        except (pikepdf.PdfError, RuntimeError, ValueError):
            return True  # unreadable: resolving it decides, as without the streams
        if not found:
            missing.add(ref)
        return found

    return exists


def _core_nodes(
    streams: list[tuple[Any, ...]], present: bytes, known: set[Ref], exists: Callable[[Ref], bool], refs: list[Any],
    columns: tuple[bytes, memoryview, memoryview] | None = None,
) -> Any:
    """The streams as _core.TreeObjects (each (data, spans), or (data,
    first, count, members) for the core to read its header, or with the
    table's `columns` (data, first, count, stream number) and the file's
    (data,)); None where the core has none, where there are none, or where
    they number an object it does not hold or hold a header only the
    reference reads (value() must answer for each)."""
    core = compiled_core()
    make = getattr(core, "TreeObjects", None)
    if make is None or not streams:  # no streams: every object is qpdf's, the walkers of plain values read them
        return None
    nodes = make(streams, present, known, exists, refs, columns)
    return nodes if nodes.complete else None


# The catalog is read from at most this many bytes of the file (a few
# hundred usually); a longer one is read through qpdf.
_CATALOG_BYTES = 1 << 16

# "N G obj" and the white space after it (§7.3.10).
_OBJECT_HEADER = re.compile(rb"(\d+)[\0\t\n\f\r ]+(\d+)[\0\t\n\f\r ]+obj(?![^\0\t\n\f\r ()<>\[\]{}/%])")


def _indirect_object(written: bytes, ref: Ref, parse: Callable[[bytes], Any], start: int = 0, end: int | None = None) -> Any:
    """The value of indirect object `ref` (§7.3.10) from the bytes at its
    offset (written[start:end], read in place): "N G obj", one object,
    "endobj". NotImplemented when those bytes are anything else (another
    object, a stream, a damaged or cut object)."""
    bound = len(written) if end is None else end
    header = _OBJECT_HEADER.match(written, start, bound)
    if header is None or (int(header[1]), int(header[2])) != ref:
        return NotImplemented
    close = written.find(b"endobj", header.end(), bound)
    if close < 0:
        return NotImplemented
    try:
        # References stand unchecked: only the catalog's own entries are read.
        return parse(written[header.end() : close])
    except ValueError:
        return NotImplemented  # an "endobj" inside a string cuts the object: not one object


# The object stream that holds an entry of the cross-reference table
# (pikepdf.XrefEntry), None unless the entry is of type 2 (§7.5.8.3; qpdf
# defines the number for type 2 only): one attribute read per object, not
# the type too (pybind11 properties, tens of thousands per document).
_OBJ_STREAM_NUMBER = attrgetter("obj_stream_number")

# Object numbers the bitmap covers (2 MiB at most); a larger number is
# looked up in the set as before.
_BITMAP_NUMBERS = 1 << 24

# Object numbers whose references parse_objects shares (8 MiB of list at
# most); a reference to a larger one is a tuple of its own, as before.
_REF_NUMBERS = 1 << 20


def _reference_slots(top: int | None, count: int) -> list[Any]:
    """parse_objects' list of shared references, one slot per object number:
    a tree refers to each parent and page hundreds of times, and one tuple
    serves them all. Numbered as the table numbers its objects (`top`, its
    largest number, None when empty; `count` entries: a damaged table's one
    huge number does not make it huge), and _REF_NUMBERS at most."""
    last = -1 if top is None else top
    return [None] * max(0, min(last + 1, 2 * count + 1024, _REF_NUMBERS))


def _stream_members(table: Table) -> tuple[Sequence[int], int | None, Members | None]:
    """The object streams the cross-reference table names (entries of type
    2), in its order, its largest object number, and the objects each
    stream holds: None for those with the columns (xref.XrefColumns: the
    core reads a stream's members there), else by the compiled core
    (_core.object_stream_members) where it runs, else by _members_of."""
    if isinstance(table, XrefColumns):
        return table.streams, table.top, None
    core = compiled_core()
    found: tuple[Members, int | None] = core.object_stream_members(table) if core is not None else _members_of(table)
    return list(found[0]), found[1], found[0]


def _members_of(table: dict[Ref, Any]) -> tuple[dict[int, set[int]], int | None]:
    """{stream number: object numbers} for the entries of type 2, streams in
    the table's order, and the largest key's object number (None when the
    table is empty). The reference of _core.object_stream_members."""
    members: dict[int, set[int]] = {}
    for ref, number in zip(table, map(_OBJ_STREAM_NUMBER, table.values()), strict=True):
        if number is not None:  # an entry of type 2
            held = members.get(number)
            if held is None:
                held = members[number] = set()
            held.add(ref[0])
    return members, (max(table)[0] if table else None)


def _unmapped(numbers: list[int]) -> set[Ref]:
    """The objects found present that _bitmap does not mark, as references:
    the set parse_objects and the nodes look in after the bitmap (which
    saves a tuple per object of the tree); it also gathers what `exists`
    confirms."""
    return {(n, 0) for n in numbers if not 0 <= n < _BITMAP_NUMBERS}


def _bitmap(numbers: list[int]) -> bytes:
    """Bit n set (byte n // 8, least significant bit first) for each number
    below _BITMAP_NUMBERS: the objects parse_objects finds present without
    hashing a reference."""
    numbers = [n for n in numbers if 0 <= n < _BITMAP_NUMBERS]
    if not numbers:
        return b""
    marked = np.zeros(max(numbers) + 1, dtype=bool)
    marked[numbers] = True
    return np.packbits(marked, bitorder="little").tobytes()


@dataclass(frozen=True)
class _WrittenObjects:
    """The objects of a file as it writes them (§7.3.10: "N 0 obj", the
    object, "endobj"), for _core.TreeObjects as one more stream: the file's
    bytes (mapped, not read) and each object's span in them. Only where
    those bytes are what qpdf reads: an unencrypted file opened from a
    path, each object of generation 0 at the offset the cross-reference
    table gives (repaired or not, as qpdf has it), "N 0 obj" there naming
    it; its span ends at the first "endobj" after it, before the next
    object's offset (the next greater one: two entries may give one
    offset). A stream (the keyword "stream" before any "endobj") has no
    span: it never parsed alone, and its data is not scanned. An object
    that does not parse alone (one with "endobj" inside a string) is read
    through qpdf, as the core leaves any object it cannot parse to it.

    `present`: the objects known to exist without asking qpdf (references
    to them stand): those written as a dictionary, "<<" to ">>", which qpdf
    does not read as null. The others are asked of qpdf when a reference to
    them is read (_exists_check), as before."""

    data: bytes  # the file's bytes (xref.file_bytes)
    spans: list[tuple[int, int, int, bool]]
    present: list[int]

    @staticmethod
    def read(pdf: pikepdf.Pdf, table: Table) -> _WrittenObjects | None:
        """None for an encrypted file, one not opened from a path, or an empty one."""
        if isinstance(table, XrefColumns):  # the table read from these bytes, by the core that read it
            if table.encrypted:
                return None
            core = compiled_core()
            if core is None:
                return _WrittenObjects._spans(table.data, table.written())
            spans, present = core.written_spans(table.data, table.kinds, table.second, table.third)
            return _WrittenObjects(table.data, spans, present)
        data = file_bytes(pdf)
        if data is None:
            return None
        placed = sorted((entry.offset, ref[0]) for ref, entry in table.items() if ref[1] == 0 and entry.type == 1)
        core = compiled_core()
        top = max((number for _, number in placed), default=-1)
        if core is None or top < 0 or top >= 2 * len(placed) + 1024:  # no core, none, or numbers too sparse for columns
            return _WrittenObjects._spans(data, placed)
        # qpdf's table (a repaired file's) as the columns the core reads spans
        # off (its regular expressions per object were a repaired file's tree read).
        numbers = np.array([number for _, number in placed], dtype=np.int64)
        kinds, offsets = np.zeros(top + 1, dtype=np.uint8), np.zeros(top + 1, dtype=np.int64)
        kinds[numbers] = 1
        offsets[numbers] = [offset for offset, _ in placed]
        spans, present = core.written_spans(data, kinds, offsets, np.zeros(top + 1, dtype=np.int64))
        return _WrittenObjects(data, spans, present)

    @staticmethod
    def _spans(data: Any, placed: list[tuple[int, int]]) -> _WrittenObjects:
        """The objects at their offsets (`placed`: (offset, number) by
        offset): the reference of _core.written_spans, which reads them off
        the columns of xref.read_xref's table."""
        spans, present = [], []
        starts = sorted({offset for offset, _ in placed if 0 <= offset < len(data)}) + [len(data)]
        for offset, number in placed:
            bound = starts[bisect.bisect_right(starts, offset)] if offset < len(data) else offset
            header = _OBJECT_HEADER.match(data, offset, bound)
            if header is None or int(header[1]) != number or int(header[2]) != 0:
                continue
            start = header.end()
            found = _OBJECT_END.search(data, start, bound)
            if found is None or found[0] != b"endobj":
                continue  # no "endobj", or a stream (its keyword first): qpdf reads it
            end = found.start()
            spans.append((number, start, end, True))
            written_end = data[max(start, end - _TAIL) : end].rstrip()
            if _DICTIONARY_START.match(data, start, end) and written_end.endswith(b">>"):
                present.append(number)
        return _WrittenObjects(data, spans, present)


# Where a written object ends: the first "endobj", or the keyword "stream"
# (§7.3.8.1: after white space or a delimiter, before an end of line) where
# it comes first. A stream's span never parsed alone (the parsers stop at
# the keyword): it is left out, its data not scanned (most of a file's bytes).
_OBJECT_END = re.compile(rb"endobj|(?<=[\0\t\n\f\r ()<>\[\]{}/%])stream[\r\n]")

# White space, then "<<": an object written as a dictionary (§7.3.7).
_DICTIONARY_START = re.compile(rb"[\0\t\n\f\r ]*<<")

# The bytes before "endobj" looked at for a dictionary's ">>".
_TAIL = 64


class _ObjectStream(NamedTuple):
    """An object stream's decoded bytes (§7.5.7), its header's place and
    size, and its object number (the cross-reference table says its
    members): a tuple, as _core.TreeObjects takes a stream whose members
    its columns say (one object per stream, not a dataclass and a tuple)."""

    data: bytes
    first: int  # /First: where the first object starts, after the header
    pairs: int  # /N: the header's pairs (not `count`: a tuple's count method)
    number: int

    @staticmethod
    def read(pdf: pikepdf.Pdf, number: int) -> _ObjectStream | None:
        """None when the stream is unreadable (qpdf's reading decides) or its header lies outside its data."""
        try:
            stream = pdf.get_object((number, 0))
            if type(stream) is not pikepdf.Object or stream._type_code is not _STREAM:
                return None
            # pikepdf hands integers over as int (its stubs say Object)
            count: object = stream.stream_dict.get("/N")
            first: object = stream.stream_dict.get("/First")
            data = stream.read_bytes()
        except (pikepdf.PdfError, RuntimeError, ValueError, TypeError):
            return None
        if type(count) is not int or type(first) is not int:
            return None
        return _ObjectStream.checked(data, first, count, number)

    @staticmethod
    def checked(data: bytes, first: int, count: int, number: int) -> _ObjectStream | None:
        """None when the header (/First) lies outside the data."""
        return _ObjectStream(data, first, count, number) if 0 <= first <= len(data) else None

    def spans(self, members: set[int]) -> list[tuple[int, int, int, bool]] | None:
        """(number, start, end, present) of each object of `members` (the
        table's for this stream) its header holds (_read_header); None when
        the header is damaged."""
        try:
            return _read_header(self.data, self.first, self.pairs, members)
        except (ValueError, TypeError):
            return None


def _read_header(data: bytes, first: int, count: int, members: set[int]) -> list[tuple[int, int, int, bool]] | None:
    """The header's spans, by the compiled core where it runs (_core.object_stream_spans,
    NotImplemented where it leaves the header to the reference), else by _header_spans."""
    core = compiled_core()
    if core is not None:
        spans: list[tuple[int, int, int, bool]] | None = core.object_stream_spans(data, first, count, members)
        if spans is not NotImplemented:
            return spans
    return _header_spans(data, first, count, members)


def _header_spans(data: bytes, first: int, count: int, members: set[int]) -> list[tuple[int, int, int, bool]] | None:
    """(number, start, end, present) of each object of `members` the header
    of an object stream (§7.5.7: `count` pairs of object number and offset
    from `first`, before `first`) puts inside the data, in header order:
    each object runs to the next start or the end of the data; present is
    False for the null object. None when the header is damaged. The
    reference of _core.object_stream_spans."""
    try:
        header = [int(token) for token in data[:first].split()[: 2 * count]]
    except ValueError:
        return None
    numbers, starts = header[0::2], [first + offset for offset in header[1::2]]
    if len(numbers) != len(starts) or len(set(numbers)) != len(numbers):
        return None
    bounds = sorted(set(starts) | {len(data)})
    spans = []
    for n, start in zip(numbers, starts, strict=True):
        if n in members and first <= start < len(data):
            end = bounds[bisect.bisect_right(bounds, start)]
            spans.append((n, start, end, data[start:end].strip() != b"null"))
    return spans
