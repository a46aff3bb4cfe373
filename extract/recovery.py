"""Recovering the pages of a file whose page tree cannot be found (§7.7.3).

qpdf repairs a damaged cross-reference table by scanning the file for objects,
but it gives up when the trailer, the catalog or the page tree is gone or
loops ("unable to find trailer dictionary", "Loop detected in /Pages", "root
of pages tree has no /Kids array"). The page objects themselves are often
intact. This module finds them by scanning the bytes for objects whose
dictionary says ``/Type /Page`` — top-level objects and those packed in
object streams (§7.5.7) — and appends a new page tree, catalog and trailer
that list them, so qpdf's own repair can then open the file. Inherited page
attributes (§7.7.3.4) are copied from each page's old ancestors before the
page is hung under the new tree.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

import pikepdf

from ragprep.extract.streams import StreamLimitError, inflate

_OBJECT = re.compile(rb"(?<![0-9])(\d{1,10})[\x00\t\n\x0c\r ]+(\d{1,5})[\x00\t\n\x0c\r ]+obj\b")
_PAGE = re.compile(rb"/Type[\x00\t\n\x0c\r ]*/Page(?![A-Za-z0-9#])")
_OBJECT_STREAM = re.compile(rb"/Type[\x00\t\n\x0c\r ]*/ObjStm\b")
_FIRST = re.compile(rb"/First[\x00\t\n\x0c\r ]+(\d+)")
_STREAM_DATA = re.compile(rb"stream\r?\n")
# How far past an object's header its dictionary is looked for.
_DICT_WINDOW = 4096
_INHERITABLE = ("/Resources", "/MediaBox", "/CropBox", "/Rotate")


@dataclass(frozen=True)
class FoundPages:
    """What a scan of the bytes found: the page objects in file order, where
    every object lives, and the first free object number."""

    pages: tuple[tuple[int, int], ...]
    # number -> (generation, byte offset of its header): top-level objects.
    offsets: dict[int, tuple[int, int]]
    # number -> (object stream number, index in it): packed objects (§7.5.7).
    packed: dict[int, tuple[int, int]]
    next_number: int

    def free_numbers(self, count: int) -> list[int]:
        """The `count` lowest object numbers no object uses (0 is never one, §7.5.4)."""
        free: list[int] = []
        number = 1
        while len(free) < count:
            if number not in self.offsets and number not in self.packed:
                free.append(number)
            number += 1
        return free


def scan_pages(data: bytes, max_stream_bytes: int) -> FoundPages:
    """Every object of `data` (a later definition wins, as in an update,
    §7.5.6) and the (number, generation) of those whose dictionary is a page."""
    headers = list(_OBJECT.finditer(data))
    pages: list[tuple[int, int]] = []
    offsets: dict[int, tuple[int, int]] = {}
    packed: dict[int, tuple[int, int]] = {}
    for i, header in enumerate(headers):
        number, generation = int(header.group(1)), int(header.group(2))
        offsets[number] = (generation, header.start())
        end = headers[i + 1].start() if i + 1 < len(headers) else len(data)
        body = data[header.end() : end]
        head = body[:_DICT_WINDOW]
        stream_at = head.find(b"stream")
        dictionary = head if stream_at < 0 else head[:stream_at]
        if _OBJECT_STREAM.search(dictionary):
            for index, (member, is_page) in enumerate(_object_stream_members(body, dictionary, max_stream_bytes)):
                packed.setdefault(member, (number, index))
                if is_page:
                    pages.append((member, 0))
        elif _PAGE.search(dictionary.split(b"endobj", 1)[0]):
            pages.append((number, generation))
    for number in offsets:
        packed.pop(number, None)
    known = [*offsets, *packed]
    return FoundPages(tuple(dict.fromkeys(pages)), offsets, packed, max(known, default=0) + 1)


def _object_stream_members(body: bytes, dictionary: bytes, max_stream_bytes: int) -> list[tuple[int, bool]]:
    """(number, is it a page) of each object packed in one object stream: its
    header lists (number, offset) pairs, offsets counted from /First (§7.5.7).
    Its /Length may be the damage, so the data runs to ``endstream``."""
    first = _FIRST.search(dictionary)
    start = _STREAM_DATA.search(body, len(dictionary))
    if first is None or start is None:
        return []
    raw = body[start.end() :].split(b"endstream", 1)[0]
    try:
        data, _ = inflate(raw, max_stream_bytes) if b"/FlateDecode" in dictionary else (raw, None)
    except StreamLimitError:
        return []
    offset = int(first.group(1))
    numbers = data[:offset].split()
    # (object number, offset) pairs; a damaged header's odd last number pairs with nothing.
    pairs = [(int(n), int(o)) for n, o in zip(numbers[::2], numbers[1::2], strict=False) if n.isdigit() and o.isdigit()]
    members = []
    for i, (number, at) in enumerate(pairs):
        end = pairs[i + 1][1] if i + 1 < len(pairs) else len(data) - offset
        members.append((number, bool(_PAGE.search(data[offset + at : offset + end][:_DICT_WINDOW]))))
    return members


def with_page_tree(data: bytes, found: FoundPages) -> bytes:
    """`data` with a new page tree listing the found pages, a catalog, and a
    cross-reference stream (§7.5.8) that gives every found object's place:
    qpdf then opens the file as it is, without a repair of its own (which
    cannot see inside object streams). `data` must start at its %PDF header,
    the origin of the offsets."""
    # The lowest free numbers: qpdf distrusts object numbers far beyond the file's size.
    pages_number, catalog_number, xref_number = found.free_numbers(3)
    kids = b" ".join(b"%d %d R" % page for page in found.pages)
    appendix = bytearray(b"\n")
    offsets = dict(found.offsets)
    offsets[pages_number] = (0, len(data) + len(appendix))
    appendix += b"%d 0 obj\n<< /Type /Pages /Kids [%s] /Count %d >>\nendobj\n" % (pages_number, kids, len(found.pages))
    offsets[catalog_number] = (0, len(data) + len(appendix))
    appendix += b"%d 0 obj\n<< /Type /Catalog /Pages %d 0 R >>\nendobj\n" % (catalog_number, pages_number)
    xref_at = len(data) + len(appendix)
    offsets[xref_number] = (0, xref_at)
    rows = bytearray()
    size = max(found.next_number, xref_number + 1)
    for number in range(size):
        if number in offsets:
            generation, at = offsets[number]
            rows += bytes([1]) + at.to_bytes(5, "big") + min(generation, 0xFFFF).to_bytes(2, "big")
        elif number in found.packed:
            stream, index = found.packed[number]
            rows += bytes([2]) + stream.to_bytes(5, "big") + index.to_bytes(2, "big")
        else:
            rows += bytes(8)
    table = zlib.compress(bytes(rows))
    appendix += b"%d 0 obj\n<< /Type /XRef /Size %d /W [1 5 2] /Root %d 0 R /Filter /FlateDecode /Length %d >>\nstream\n" % (
        xref_number, size, catalog_number, len(table)
    )
    appendix += table + b"\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n" % xref_at
    return data + bytes(appendix)


def adopt_pages(pdf: pikepdf.Pdf, found: FoundPages) -> None:
    """Give each found page the attributes it inherited from its old
    ancestors (§7.7.3.4), then hang it under the new tree."""
    tree = pdf.Root.Pages
    for objgen in found.pages:
        page = pdf.get_object(objgen)
        if not isinstance(page, pikepdf.Dictionary):
            continue
        for key in _INHERITABLE:
            # qpdf's own repair may have given the page an empty /Resources
            # already: that is not what the page inherited.
            own = page.get(key)
            if own is None or (key == "/Resources" and isinstance(own, pikepdf.Dictionary) and not own.keys()):
                value = _inherited(page, key)
                if value is not None:
                    page[key] = value
        page.Parent = tree


def _inherited(page: pikepdf.Dictionary, key: str) -> pikepdf.Object | None:
    node = page.get("/Parent")
    seen: set[tuple[int, int]] = set()
    while isinstance(node, pikepdf.Dictionary) and len(seen) < 64:
        if node.is_indirect:
            if node.objgen in seen:
                return None
            seen.add(node.objgen)
        value = node.get(key)
        if value is not None:
            return value
        node = node.get("/Parent")
    return None
