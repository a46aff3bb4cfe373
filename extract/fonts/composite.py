"""Type0 composite fonts (ISO 32000-1 §9.7).

The encoding CMap splits a string into codes (codespace ranges, §9.7.6.2) and
maps each code to a CID; the descendant CIDFont gives the CID's advances (/W,
/DW; /W2, /DW2 in vertical mode). The text of a code comes from, in order
(§9.10.2):

1. the ToUnicode CMap (keyed by code);
2. the code itself, for the Unicode-based predefined CMaps (Uni*-UCS2, -UTF16 ...);
3. the CID through the Adobe-GB1/CNS1/Japan1/Korea1 collection tables and the
   embedded font program: for CIDFontType2 (TrueType) the program first,
   because its CIDs are usually glyph indices whatever the CIDSystemInfo
   claims; for CIDFontType0 the collection first, its CIDs being real ones.

Everything per code is resolved once and kept in a per-font table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ragprep.extract.fonts import pdfvalues as pv
from ragprep.extract.fonts.base import REPLACEMENT, DecodedString
from ragprep.extract.fonts.cmap import CMap, CodespaceRange
from ragprep.extract.fonts.codes import code_splitter
from ragprep.extract.fonts.embedded import FontProgram, load_program
from ragprep.extract.fonts.font import DEFAULT_DECODE_CACHE, Font, frozen
from ragprep.extract.fonts.metrics import CIDVerticalMetrics, CIDWidths, extent_candidates, vertical_extent
from ragprep.extract.fonts.predefined import COLLECTIONS, identity_cmap, unicode_codec
from ragprep.extract.fonts.resources import SharedResources

# Per-code results kept per font; past this many distinct codes the table is
# reset (only hostile strings with random four-byte codes get there).
_MAX_CODE_TABLE = 1 << 17

# (text, horizontal advance, vertical advance, undecodable)
_CodeInfo = tuple[str, float, float, bool]

# Two-byte codes (Identity-H/V style codespaces): every value of two bytes.
TWO_BYTE_CODES = 1 << 16


class TwoByteColumns:
    """What ``code_info`` says of two-byte codes, kept for the document as
    columns: the compiled core's w0, w1 and known flag per code (``core``,
    which the core fills as it asks the host), and text, w0, w1 and
    undecodable per code looked up for glyph tables (``columns``). Each code
    is looked up once per document instead of once per page. The per-code
    tables are zeroed allocations, so only the pages a font's codes touch
    take memory."""

    def __init__(self, code_info: Callable[[int], _CodeInfo]) -> None:
        self._code_info = code_info
        # 65,536 x (w0 double, w1 double, known byte): _core.c's TWO_BYTE_TABLES.
        self.core = np.zeros(TWO_BYTE_CODES * 17, dtype=np.uint8)
        self._rows = np.zeros(TWO_BYTE_CODES, dtype=np.int32)  # 0: not looked up, else row + 1
        self._count = 0
        self._text = np.empty(0, dtype=object)
        self._numbers = np.zeros((0, 2))
        self._bad = np.zeros(0, dtype=bool)

    def columns(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(text, w0, w1, undecodable) per code of `codes` (uint16)."""
        new = np.unique(codes[self._rows[codes] == 0]).tolist()
        if new:
            self._add(new)
        rows = self._rows[codes] - 1
        return self._text[rows], self._numbers[rows, 0], self._numbers[rows, 1], self._bad[rows]

    def _add(self, codes: list[int]) -> None:
        first, end = self._count, self._count + len(codes)
        if end > len(self._text):  # room doubles: appending stays linear over the document
            size = max(end, 2 * len(self._text), 64)
            self._text = np.concatenate([self._text[:first], np.empty(size - first, dtype=object)])
            self._numbers = np.concatenate([self._numbers[:first], np.zeros((size - first, 2))])
            self._bad = np.concatenate([self._bad[:first], np.zeros(size - first, dtype=bool)])
        infos = [self._code_info(code) for code in codes]
        text, w0, w1, bad = zip(*infos, strict=True)
        self._text[first:end] = text
        self._numbers[first:end, 0] = w0
        self._numbers[first:end, 1] = w1
        self._bad[first:end] = bad
        self._rows[codes] = np.arange(first + 1, end + 1, dtype=np.int32)
        self._count = end


class CompositeFont(Font):
    """A Type0 font dictionary with its descendant CIDFont."""

    def __init__(self, font: Any, shared: SharedResources, cache_size: int = DEFAULT_DECODE_CACHE) -> None:
        warnings: list[str] = []
        self._shared = shared
        name = pv.name(pv.get(font, "/BaseFont")) or ""

        encoding = pv.get(font, "/Encoding")
        cmap = shared.encoding_cmap(encoding, warnings) if encoding is not None else None
        if cmap is None:
            warnings.append("no usable /Encoding CMap; Identity-H assumed")
            cmap = identity_cmap("Identity-H")
        self._cmap = cmap
        self._codec = _codec_of(encoding)
        self._splitter = code_splitter(tuple(_codespace(cmap, warnings)))

        descendants = pv.array(pv.get(font, "/DescendantFonts"))
        cid_font = pv.dictionary(descendants[0]) if descendants else None
        if cid_font is None:
            warnings.append("no descendant CIDFont; default widths are used")
        self._cid_subtype = pv.name(pv.get(cid_font, "/Subtype")) or ""
        info = pv.get(cid_font, "/CIDSystemInfo")
        registry = _text(pv.get(info, "/Registry"))
        ordering = _text(pv.get(info, "/Ordering"))
        self._ordering = ordering if registry == "Adobe" and ordering in COLLECTIONS else None
        self._descriptor = pv.dictionary(pv.get(cid_font, "/FontDescriptor"))
        self._widths = CIDWidths(pv.get(cid_font, "/W"), pv.get(cid_font, "/DW"), warnings)
        self._vertical = (
            CIDVerticalMetrics(pv.get(cid_font, "/W2"), pv.get(cid_font, "/DW2"), warnings)
            if cmap.wmode == 1
            else None
        )
        self._cid_to_gid_ref = pv.get(cid_font, "/CIDToGIDMap")
        self._tounicode = shared.tounicode(font, warnings)

        self._program: FontProgram | None = None
        self._program_loaded = False
        self._cid_to_gid: bytes | None = None
        self._collection: dict[int, str] | None = None
        self._collection_loaded = False
        self._codes: dict[int, _CodeInfo] = {}
        self._two_byte_columns: TwoByteColumns | None = None

        ascent, descent = vertical_extent(extent_candidates(self._descriptor, 0.001, self._descriptor))
        super().__init__(
            name=name, subtype="Type0", wmode=cmap.wmode, ascent=ascent, descent=descent,
            warnings=warnings, cache_size=cache_size,
        )

    # -- per code -------------------------------------------------------------

    def _info(self, code: int, nbytes: int, valid: bool) -> _CodeInfo:
        cmap = self._cmap
        cid: int | None = cmap.lookup_cid(code, nbytes) if valid else None
        if cid is None:
            cid = cmap.notdef_cid(code)  # §9.7.6.3: unmapped codes show a notdef glyph
            if cid is None:
                cid = 0
        text = self._text(code, nbytes, cid) if valid else None
        width = self._widths.width(cid) / 1000.0
        vertical = self._vertical.advance(cid) / 1000.0 if self._vertical is not None else 0.0
        if text is None:
            return REPLACEMENT, width, vertical, True
        return text, width, vertical, text == REPLACEMENT

    def _text(self, code: int, nbytes: int, cid: int) -> str | None:
        if self._tounicode is not None:
            text = self._tounicode.lookup_unicode(code)
            if text is not None:
                return text
        if self._codec is not None:
            text = _decode_code(code, nbytes, self._codec)
            if text is not None:
                return text
        if self._cid_subtype == "CIDFontType2":
            return self._program_text(cid) or self._collection_text(cid)
        return self._collection_text(cid) or self._program_text(cid)

    def _collection_text(self, cid: int) -> str | None:
        if self._ordering is None:
            return None
        if not self._collection_loaded:
            self._collection_loaded = True
            self._collection = self._shared.collection_unicode(self._ordering, self.wmode == 1)
            if self._collection is None:
                self._warn(f"no CID -> Unicode table for Adobe-{self._ordering}")
        if self._collection is None or cid == 0:
            return None
        return self._collection.get(cid)

    def _program_text(self, cid: int) -> str | None:
        if not self._program_loaded:
            self._load_program()
        if self._program is None:
            return None
        return self._program.text_for_glyph(self._program.glyph_for_cid(cid, self._cid_to_gid))

    def _load_program(self) -> None:
        self._program_loaded = True
        if self._descriptor is None:
            return
        self._program, problems = load_program(self._descriptor, self._shared.max_stream_bytes)
        for problem in problems:
            self._warn(problem)
        if self._program is not None and pv.is_stream(self._cid_to_gid_ref):
            # §9.7.4.2: a stream of two-byte glyph indices, one per CID.
            data, trouble = pv.read_stream(self._cid_to_gid_ref, self._shared.max_stream_bytes)
            if data is None:
                self._warn(f"/CIDToGIDMap unreadable ({trouble}); Identity assumed")
            self._cid_to_gid = data

    # -- decoding -------------------------------------------------------------

    @property
    def two_byte_codes(self) -> bool:
        """Every code is two bytes (an Identity-H/V style codespace): the
        compiled core splits strings itself and asks ``code_info`` per code."""
        return self._splitter.identity_two_bytes

    @property
    def two_byte_columns(self) -> TwoByteColumns:
        """This font's two-byte codes as columns (only for ``two_byte_codes`` fonts)."""
        if self._two_byte_columns is None:
            self._two_byte_columns = TwoByteColumns(self.code_info)
        return self._two_byte_columns

    def code_info(self, code: int, nbytes: int = 2, valid: bool = True) -> _CodeInfo:
        """(text, w0, w1, undecodable) of one character code, as ``decode`` gives it."""
        table = self._codes
        key = ((code << 3) | nbytes) if valid else -1 - ((code << 3) | nbytes)
        info = table.get(key)
        if info is None:
            if len(table) > _MAX_CODE_TABLE:
                table.clear()
            info = table[key] = self._info(code, nbytes, valid)
        return info

    def _decode(self, data: bytes) -> DecodedString:
        codes, lengths, valid = self._splitter.split(data)
        table = self._codes
        if len(table) > _MAX_CODE_TABLE:
            table.clear()
        infos: list[_CodeInfo] = []
        for code, nbytes, ok in zip(codes, lengths, valid, strict=True):
            key = ((code << 3) | nbytes) if ok else -1 - ((code << 3) | nbytes)
            info = table.get(key)
            if info is None:
                info = table[key] = self._info(code, nbytes, ok)
            infos.append(info)
        texts, widths, verticals, undecodable = zip(*infos, strict=True) if infos else ((), (), (), ())
        return DecodedString(
            texts=tuple(texts),
            widths=frozen(np.array(widths, dtype=np.float64)),
            vertical_widths=frozen(np.array(verticals, dtype=np.float64)),
            # §9.3.3: word spacing applies to the single-byte code 32 only.
            word_space=frozen(np.array([c == 32 and b == 1 for c, b in zip(codes, lengths, strict=True)], dtype=bool)),
            undecodable=frozen(np.array(undecodable, dtype=bool)),
            codes=frozen(np.array(codes, dtype=np.int64)),
        )


def _codec_of(encoding: Any) -> str | None:
    """Codec for Unicode-based predefined CMaps, named directly or as an embedded CMap's parent."""
    cmap_name = pv.name(encoding)
    if cmap_name is None and pv.is_stream(encoding):
        cmap_name = pv.name(pv.get(encoding, "/UseCMap"))
    return unicode_codec(cmap_name) if cmap_name else None


def _decode_code(code: int, nbytes: int, codec: str) -> str | None:
    try:
        text = code.to_bytes(nbytes, "big").decode(codec)
    except (UnicodeDecodeError, OverflowError):
        return None
    return text if text and text != "\x00" else None


def _codespace(cmap: CMap, warnings: list[str]) -> list[CodespaceRange]:
    if cmap.codespace:
        return cmap.codespace
    # No codespace ranges: assume full ranges of the code lengths the mappings
    # use (two bytes when they say nothing either).
    lengths = sorted(n for n in cmap.code_lengths if 1 <= n <= 4) or [2]
    warnings.append("encoding CMap has no codespace ranges; derived from its mappings")
    return [CodespaceRange(b"\x00" * n, b"\xff" * n) for n in lengths]


def _text(value: Any) -> str | None:
    raw = pv.string_bytes(value)
    if raw is None:
        return pv.name(value)
    return raw.decode("latin-1")
