"""CMap streams: ToUnicode maps (§9.10.3) and CID-keyed encodings (§9.7.5.4).

Both kinds share one PostScript-like syntax: ``begincodespacerange``,
``beginbfchar``/``beginbfrange`` (code -> Unicode), ``begincidchar``/
``begincidrange`` (code -> CID), ``beginnotdefchar``/``beginnotdefrange``,
``/WMode n def`` and ``/Name usecmap``. Section bodies made only of hex
strings and integers (nearly all) are read with one regex ``findall`` each;
anything else goes through a general tokenizer and a small state machine. A
CMap with 50,000 entries parses in a fraction of a second. Broken or garbage CMaps never
raise: whatever parsed before the damage is kept, and a warning says so.

Codes are keyed by their integer value, not by (length, value): real files map
one-byte source codes inside a two-byte codespace, or the reverse, and keying by
value reads them the way other readers do. Ranges are integer intervals (a
range whose bounds differ in more than the last byte, which the specification
discourages but files contain, covers every value in between).
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass, field
from typing import Any

from ragprep.extract.errors import describe
from ragprep.extract.fonts.names import glyph_name_to_unicode
from ragprep.extract.native import compiled_core

# Ranges up to this many codes are expanded into dictionaries for fast lookups.
# The specification keeps a range within its last byte (at most 256 codes);
# the larger ones real files hold are few per CMap (Identity-style <0000>
# <FFFF>, or hostile <00000000> <FFFFFFFF>), so they stay ranges and are
# scanned, instead of costing 65,536 dictionary entries each.
_EXPAND_RANGE = 256
# Across one CMap, at most this many expanded entries (about 100 MB of dicts).
_EXPAND_TOTAL = 1 << 21
_MAX_WARNINGS = 8

_TOKENS = re.compile(
    rb"""
    [\s{}]*                                               # consumed by the next token's match: cheaper
                                                          # than failing every alternative at each blank
    (?:
      (<[0-9A-Fa-f\s]*>)                                   # hex string
    | (\((?:[^()\\]|\\.|\((?:[^()\\]|\\.)*\))*\))          # literal string, one nesting level
    | (/[^\s/<>\[\]()%{}]*)                                # name
    | ([+-]?(?:\d++(?:\.\d*+)?|\.\d++))(?![^\s/<>\[\]()%{}])  # number (possessive: no backtracking)
    | [+\-0-9.]++(?=[^\s/<>\[\]()%{}])                     # digits glued to a keyword: no token starts
                                                          # inside them, so they go in one step, not
                                                          # retried at every byte (quadratic)
    | (\[)
    | (\])
    | ([A-Za-z_'"][^\s/<>\[\]()%{}]*)                      # keyword
    | (%[^\r\n]*)                                          # comment
    )
    """,
    re.X | re.S,
)

_WHITESPACE = re.compile(rb"\s+")
_LITERAL_ESCAPES = {
    ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b", ord("f"): b"\f",
    ord("("): b"(", ord(")"): b")", ord("\\"): b"\\",
}


@dataclass(frozen=True)
class CodespaceRange:
    """Codes of ``len(low)`` bytes whose every byte lies between the bounds' bytes (§9.7.6.2)."""

    low: bytes
    high: bytes

    @property
    def nbytes(self) -> int:
        return len(self.low)

    def matches(self, data: bytes, start: int) -> bool:
        n = len(self.low)
        if start + n > len(data):
            return False
        low, high = self.low, self.high
        for k in range(n):  # noqa: SIM110 - a plain loop: no generator per code on this hot path
            if not low[k] <= data[start + k] <= high[k]:
                return False
        return True


@dataclass
class CMap:
    """A parsed CMap: codespace, code -> Unicode and code -> CID mappings."""

    name: str = ""
    wmode: int = 0
    usecmap: str | None = None
    codespace: list[CodespaceRange] = field(default_factory=list)
    # bfchar/bfrange results; None values are codes explicitly mapped to
    # nothing usable (U+0000), so lookups fall through to other sources.
    unicode: dict[int, str | None] = field(default_factory=dict)
    # Ranges too large to expand: (first code, last code, first destination, destination bytes).
    unicode_ranges: list[tuple[int, int, int, int]] = field(default_factory=list)
    cids: dict[int, int] = field(default_factory=dict)
    # (first code, last code, first CID), too large to expand.
    cid_ranges: list[tuple[int, int, int]] = field(default_factory=list)
    notdef_ranges: list[tuple[int, int, int]] = field(default_factory=list)
    # Byte lengths of the source codes seen in mappings (a fallback codespace).
    code_lengths: set[int] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)
    # A predefined CMap's code -> CID trie as pdfminer.six ships it (one dict
    # level per code byte, CIDs at the leaves), read in place of ``cids``.
    trie: dict[int, Any] | None = None

    def lookup_unicode(self, code: int) -> str | None:
        text = self.unicode.get(code)
        if text is not None or not self.unicode_ranges:
            return text
        for first, last, dst, nbytes in self.unicode_ranges:
            if first <= code <= last:
                return _destination_text(_int_bytes(dst + code - first, nbytes))
        return None

    def unicode_table(self, size: int) -> list[str | None]:
        """``lookup_unicode`` of the codes 0 .. size - 1 (a simple font's 256)."""
        if not self.unicode_ranges:
            return list(map(self.unicode.get, range(size)))
        return [self.lookup_unicode(code) for code in range(size)]

    def has_unicode(self) -> bool:
        return bool(self.unicode) or bool(self.unicode_ranges)

    def lookup_cid(self, code: int, nbytes: int = 0) -> int | None:
        """CID of a code; ``nbytes`` (the code's length) is needed for predefined CMaps."""
        cid = self.cids.get(code)
        if cid is not None:
            return cid
        if self.trie is not None and 0 < nbytes <= 4:
            node: Any = self.trie
            for byte in code.to_bytes(nbytes, "big"):
                node = node.get(byte) if isinstance(node, dict) else None
            if isinstance(node, int):
                return node
        for first, last, start in self.cid_ranges:
            if first <= code <= last:
                return start + code - first
        return None

    def notdef_cid(self, code: int) -> int | None:
        """CID of the notdef glyph for an unmapped code (§9.7.6.3)."""
        for first, last, cid in self.notdef_ranges:
            if first <= code <= last:
                return cid
        return None

    def over(self, parent: CMap) -> CMap:
        """This CMap's mappings on top of ``parent``'s (usecmap; §9.7.5.4 UseCMap).

        Returns a new CMap: parsed CMaps are shared between fonts and stay unchanged.
        """
        return CMap(
            name=self.name,
            wmode=self.wmode,
            usecmap=None,
            codespace=self.codespace + [r for r in parent.codespace if r not in self.codespace],
            unicode={**parent.unicode, **self.unicode},
            unicode_ranges=self.unicode_ranges + parent.unicode_ranges,
            cids={**parent.cids, **self.cids},
            cid_ranges=self.cid_ranges + parent.cid_ranges,
            notdef_ranges=self.notdef_ranges + parent.notdef_ranges,
            code_lengths=self.code_lengths | parent.code_lengths,
            warnings=self.warnings + parent.warnings,
            trie=self.trie if self.trie is not None else parent.trie,
        )


class _Builder:
    """Applies the operand groups of one CMap to a ``CMap``."""

    def __init__(self) -> None:
        self.cmap = CMap()
        self.expanded = 0

    def warn(self, message: str) -> None:
        warnings = self.cmap.warnings
        if message not in warnings and len(warnings) < _MAX_WARNINGS:
            warnings.append(message)

    # -- sections ---------------------------------------------------------

    def codespace(self, operands: list[object]) -> None:
        for low, high in _groups(operands, 2, self, "codespacerange"):
            if not isinstance(low, bytes) or not isinstance(high, bytes):
                self.warn("codespace range bounds are not strings; skipped")
            elif len(low) != len(high) or not 1 <= len(low) <= 4:
                self.warn("codespace range bounds of different or unusable lengths; skipped")
            else:
                self.cmap.codespace.append(CodespaceRange(low, high))

    def bfchar(self, operands: list[object]) -> None:
        unicode = self.cmap.unicode
        for src, dst in _groups(operands, 2, self, "bfchar"):
            if not isinstance(src, bytes) or not src:
                self.warn("bfchar source is not a string; skipped")
                continue
            self.cmap.code_lengths.add(len(src))
            unicode[int.from_bytes(src, "big")] = self.text(dst)

    def bfrange(self, operands: list[object]) -> None:
        for low, high, dst in _groups(operands, 3, self, "bfrange"):
            bounds = self.bounds(low, high, "bfrange")
            if bounds is None:
                continue
            first, last = bounds
            if isinstance(dst, list):
                # Array form: one destination per code (§9.10.3).
                for offset, item in enumerate(dst[: last - first + 1]):
                    self.cmap.unicode[first + offset] = self.text(item)
            elif isinstance(dst, bytes) and dst:
                self.destination_range(first, last, dst)
            else:
                self.warn("bfrange destination is neither a string nor an array; skipped")

    def destination_range(self, first: int, last: int, dst: bytes) -> None:
        # The destination increments with the code. The specification keeps
        # the increment inside the last byte; files that overflow it get the
        # carry into the byte before, as the integer value would (pdf.js does
        # the same), and a destination overflowing its length stops the range.
        start = int.from_bytes(dst, "big")
        nbytes = len(dst)
        count = min(last - first + 1, (1 << (8 * nbytes)) - start)
        if count < last - first + 1:
            self.warn("bfrange destination overflows its byte length; range cut short")
        if count > _EXPAND_RANGE or self.expanded + count > _EXPAND_TOTAL:
            self.cmap.unicode_ranges.append((first, first + count - 1, start, nbytes))
            return
        self.expanded += count
        unicode = self.cmap.unicode
        if nbytes == 2 and not (start <= 0xDFFF and start + count > 0xD800):
            # One BMP character per code, no surrogates in reach: the fast path
            # for the ranges that make up most large ToUnicode maps.
            for offset in range(count):
                value = start + offset
                unicode[first + offset] = chr(value) if value else None
            return
        for offset in range(count):
            unicode[first + offset] = _destination_text(_int_bytes(start + offset, nbytes))

    def cidchar(self, operands: list[object], notdef: bool) -> None:
        for src, cid in _groups(operands, 2, self, "cidchar"):
            if not isinstance(src, bytes) or not src or not isinstance(cid, int):
                self.warn("cidchar entry is not <code> CID; skipped")
                continue
            self.cmap.code_lengths.add(len(src))
            code = int.from_bytes(src, "big")
            if notdef:
                self.cmap.notdef_ranges.append((code, code, cid))
            else:
                self.cmap.cids[code] = cid

    def cidrange(self, operands: list[object], notdef: bool) -> None:
        for low, high, cid in _groups(operands, 3, self, "cidrange"):
            bounds = self.bounds(low, high, "cidrange")
            if bounds is None:
                continue
            if not isinstance(cid, int):
                self.warn("cidrange start is not an integer CID; skipped")
                continue
            first, last = bounds
            if notdef:
                self.cmap.notdef_ranges.append((first, last, cid))
                continue
            count = last - first + 1
            if count > _EXPAND_RANGE or self.expanded + count > _EXPAND_TOTAL:
                self.cmap.cid_ranges.append((first, last, cid))
                continue
            self.expanded += count
            self.cmap.cids.update(zip(range(first, last + 1), range(cid, cid + count), strict=True))

    # -- operands ---------------------------------------------------------

    def bounds(self, low: object, high: object, what: str) -> tuple[int, int] | None:
        if not isinstance(low, bytes) or not isinstance(high, bytes) or not low or not high:
            self.warn(f"{what} bounds are not strings; skipped")
            return None
        first, last = int.from_bytes(low, "big"), int.from_bytes(high, "big")
        if first > last:
            self.warn(f"{what} with its first code after its last; skipped")
            return None
        self.cmap.code_lengths.add(len(low))
        return first, last

    def text(self, dst: object) -> str | None:
        if isinstance(dst, bytes):
            return _destination_text(dst)
        if isinstance(dst, str):  # a glyph name, as some producers write
            return glyph_name_to_unicode(dst)
        self.warn("ToUnicode destination is neither a string nor a name; skipped")
        return None


def _groups(operands: list[object], size: int, builder: _Builder, what: str) -> list[tuple[object, ...]]:
    if len(operands) % size:
        builder.warn(f"{what} section with a dangling operand; last entry dropped")
    count = len(operands) // size
    return [tuple(operands[i * size : i * size + size]) for i in range(count)]


def _int_bytes(value: int, nbytes: int) -> bytes:
    return value.to_bytes(nbytes, "big")


def _destination_text(dst: bytes) -> str | None:
    """UTF-16BE destination string -> text (§9.10.3); None for U+0000.

    A one-byte destination (a common producer mistake) is read as that byte's
    Latin-1 character. Lone surrogates become U+FFFD instead of leaking into
    text that later has to be encoded as UTF-8. U+0000 is never real text: a
    code mapped to it falls through to the encoding instead.
    """
    if len(dst) == 2:
        value = (dst[0] << 8) | dst[1]
        if value == 0:
            return None
        return "\ufffd" if 0xD800 <= value <= 0xDFFF else chr(value)
    if len(dst) == 1:
        return chr(dst[0]) if dst[0] else None
    if not dst:
        return ""  # <>: the code shows no text at all
    if len(dst) % 2:
        dst = dst[:-1]
    text = dst.decode("utf-16-be", "replace").replace("\x00", "")
    return text or None


def _hex_bytes(token: bytes) -> bytes:
    try:
        return binascii.unhexlify(token[1:-1])
    except (binascii.Error, ValueError):
        digits = _WHITESPACE.sub(b"", token[1:-1])
        if len(digits) % 2:
            digits += b"0"  # §7.3.4.3: a missing final digit is 0
        return binascii.unhexlify(digits)


def _literal_bytes(token: bytes) -> bytes:
    body = token[1:-1]
    if b"\\" not in body:
        return body
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != 0x5C or i + 1 == n:
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _LITERAL_ESCAPES:
            out += _LITERAL_ESCAPES[nxt]
            i += 2
        elif 0x30 <= nxt <= 0x37:
            j = i + 1
            while j < min(i + 4, n) and 0x30 <= body[j] <= 0x37:
                j += 1
            out.append(int(body[i + 1 : j], 8) & 0xFF)
            i = j
        elif nxt in (0x0A, 0x0D):  # line continuation
            i += 2
            if nxt == 0x0D and i < n and body[i] == 0x0A:
                i += 1
        else:
            out.append(nxt)
            i += 2
    return bytes(out)


_SECTIONS = {
    b"begincodespacerange": b"endcodespacerange",
    b"beginbfchar": b"endbfchar",
    b"beginbfrange": b"endbfrange",
    b"begincidchar": b"endcidchar",
    b"begincidrange": b"endcidrange",
    b"beginnotdefchar": b"endnotdefchar",
    b"beginnotdefrange": b"endnotdefrange",
}
# A section's kind as the compiled core numbers it (_core.c's CS_ enum follows this order).
_SECTION_KINDS = {keyword: kind for kind, keyword in enumerate(_SECTIONS)}


def parse_cmap(data: bytes) -> CMap:
    """Parse a CMap stream's decoded bytes. Never raises."""
    builder = _Builder()
    try:
        _run(data, builder)
    except MemoryError:
        raise  # the document fails (MemoryLimitError), never a warning
    except Exception as exc:  # anything unforeseen: keep what parsed so far
        builder.warn(f"CMap parsing stopped early ({describe(exc)})")
    cmap = builder.cmap
    if not (cmap.codespace or cmap.unicode or cmap.unicode_ranges or cmap.cids or cmap.cid_ranges):
        builder.warn("CMap defines no codespace and no mappings")
    return cmap


# A section keyword not inside a longer word. The test of the byte before it
# follows the keyword's first letter, so that the pattern starts with one of
# two literals ("b", "e"), which re scans for directly instead of trying
# every position of the stream (the split takes less than half the time).
_SECTION_KEYWORD = re.compile(
    rb"((?:b(?<![A-Za-z]b)egin|e(?<![A-Za-z]e)nd)"
    rb"(?:codespacerange|bfchar|bfrange|cidchar|cidrange|notdefchar|notdefrange))(?![A-Za-z])"
)
# A section body made only of hex strings and integers (nearly all of them).
# Possessive: with backtracking, a body that does not match retried every way
# of splitting its digit runs (a mutant CMap of 10 kB took hours).
_SIMPLE_BODY = re.compile(rb"(?:\s*+(?:<[0-9A-Fa-f]*+>|\d++))*+\s*+")
_SIMPLE_TOKEN = re.compile(rb"<([0-9A-Fa-f]*)>|(\d+)")


def _run(data: bytes, builder: _Builder) -> None:
    # Split at section keywords, so each complete section body can take the
    # fast path: one findall, no per-token dispatch.
    machine = _Machine(builder)
    core = compiled_core()
    parts = _SECTION_KEYWORD.split(data)
    for index in range(0, len(parts), 2):
        text = parts[index]
        keyword = parts[index + 1] if index + 1 < len(parts) else None
        section = machine.section
        if section is not None and keyword == _SECTIONS[section] and not machine.pending():
            if core is not None and _compiled_section(core, builder, section, text):
                machine.section = None
                continue
            operands = _simple_operands(text)
            if operands is not None:
                _apply(builder, section, operands)
                machine.section = None
                continue
        machine.feed(text)
        if keyword is not None:
            machine.keyword(keyword)
    machine.finish()


def _compiled_section(core: Any, builder: _Builder, section: bytes, body: bytes) -> bool:
    """A whole section body applied by the compiled core, as _apply would
    apply it; False (nothing changed) for a body it leaves to the reference:
    anything the builder would warn about, or tokens other than hex strings,
    integers and (in bfrange) arrays of hex strings."""
    expanded = core.cmap_section(
        _SECTION_KINDS[section], body, builder.cmap, builder.expanded, _EXPAND_RANGE, _EXPAND_TOTAL, CodespaceRange
    )
    if expanded is None:
        return False
    builder.expanded = expanded
    return True


def _simple_operands(body: bytes) -> list[object] | None:
    if _SIMPLE_BODY.fullmatch(body) is None:
        return None
    operands: list[object] = []
    for hex_digits, number in _SIMPLE_TOKEN.findall(body):
        if number:
            operands.append(int(number))
        elif len(hex_digits) % 2:
            return None  # odd digit count: the general path pads it
        else:
            operands.append(binascii.unhexlify(hex_digits))
    return operands


class _Machine:
    """Operand stack and section state over the CMap's tokens."""

    def __init__(self, builder: _Builder) -> None:
        self.builder = builder
        self.operands: list[object] = []
        self.arrays: list[list[object]] = []
        self.section: bytes | None = None

    def pending(self) -> bool:
        return bool(self.operands) or bool(self.arrays)

    def feed(self, text: bytes) -> None:
        for hex_, literal, name, num, open_, close, keyword, _comment in _TOKENS.findall(text):
            if hex_:
                value: object = _hex_bytes(hex_)
            elif literal:
                value = _literal_bytes(literal)
            elif name:
                value = name[1:].decode("latin-1")
            elif num:
                value = int(num) if num.isdigit() or num[1:].isdigit() else float(num)
            elif open_:
                self.arrays.append([])
                continue
            elif close:
                if not self.arrays:
                    self.builder.warn("unbalanced ']' in CMap")
                    continue
                value = self.arrays.pop()
            elif keyword:
                self.keyword(keyword)
                continue
            else:
                continue  # comment
            if self.arrays:
                self.arrays[-1].append(value)
            else:
                self.operands.append(value)

    def keyword(self, keyword: bytes) -> None:
        builder, cmap = self.builder, self.builder.cmap
        if self.arrays:  # a keyword inside an array: garbage, close the arrays
            builder.warn("keyword inside an array in CMap")
            self.arrays.clear()
        operands, self.operands = self.operands, []
        if self.section is not None:
            section, self.section = self.section, None
            if keyword != _SECTIONS[section]:
                # Any other keyword: the section never ended. Keep its entries.
                builder.warn(f"{section.decode()} without {_SECTIONS[section].decode()}")
            _apply(builder, section, operands)
            if keyword == _SECTIONS[section]:
                return
            operands = []
        if keyword in _SECTIONS:
            self.section = keyword
        elif keyword == b"def" and len(operands) >= 2 and isinstance(operands[-2], str):
            key, value = operands[-2], operands[-1]
            if key == "WMode" and isinstance(value, int):
                cmap.wmode = 1 if value == 1 else 0
            elif key == "CMapName" and isinstance(value, str):
                cmap.name = value
        elif keyword == b"usecmap" and operands and isinstance(operands[-1], str):
            cmap.usecmap = operands[-1]

    def finish(self) -> None:
        if self.section is not None:
            self.builder.warn(f"CMap ends inside {self.section.decode()}")
            _apply(self.builder, self.section, self.operands)
            self.section = None


def _apply(builder: _Builder, section: bytes, operands: list[object]) -> None:
    if section == b"begincodespacerange":
        builder.codespace(operands)
    elif section == b"beginbfchar":
        builder.bfchar(operands)
    elif section == b"beginbfrange":
        builder.bfrange(operands)
    elif section == b"begincidchar":
        builder.cidchar(operands, notdef=False)
    elif section == b"begincidrange":
        builder.cidrange(operands, notdef=False)
    elif section == b"beginnotdefchar":
        builder.cidchar(operands, notdef=True)
    elif section == b"beginnotdefrange":
        builder.cidrange(operands, notdef=True)
