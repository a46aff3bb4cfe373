"""Simple fonts: Type1, MMType1, TrueType and Type3 (ISO 32000-1 §9.6).

One byte is one code. Everything per code is resolved into 256-entry tables
when the font loads, so decoding a string is a few numpy fancy-indexing
operations. The text of a code comes from, in order (§9.10.2):

1. the ToUnicode CMap;
2. the encoding's glyph name through the Adobe Glyph List;
3. the embedded font program (read lazily, the first time a decoded string
   holds a code still unmapped): its built-in encoding where the dictionary
   names no base encoding, its cmap, its glyph names.

Codes nothing maps are U+FFFD and marked undecodable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ragprep.extract.fonts import encodings
from ragprep.extract.fonts import pdfvalues as pv
from ragprep.extract.fonts.base import REPLACEMENT, DecodedString
from ragprep.extract.fonts.embedded import FontProgram, load_program
from ragprep.extract.fonts.encoding_tables import STANDARD
from ragprep.extract.fonts.font import DEFAULT_DECODE_CACHE, SingleByteFont, frozen
from ragprep.extract.fonts.names import encoding_texts
from ragprep.extract.fonts.metrics import FALLBACK_WIDTH, extent_candidates, simple_widths, vertical_extent
from ragprep.extract.fonts.resources import SharedResources
from ragprep.extract.fonts.standard14 import standard_font_name, standard_metrics, standard_widths

_FONT_FILES = ("/FontFile", "/FontFile2", "/FontFile3")
_SYMBOLIC = 1 << 2  # Flags bit 3 (§9.8.2, Table 123)
_DEFAULT_FONT_MATRIX = (0.001, 0.0, 0.0, 0.001, 0.0, 0.0)


class SimpleFont(SingleByteFont):
    """A Type1, MMType1, TrueType or Type3 font dictionary."""

    def __init__(
        self,
        font: Any,
        subtype: str,
        shared: SharedResources,
        cache_size: int = DEFAULT_DECODE_CACHE,
        notes: tuple[str, ...] = (),
    ) -> None:
        warnings: list[str] = list(notes)  # what the loader already found wrong
        type3 = subtype == "Type3"
        name = pv.name(pv.get(font, "/BaseFont")) or (pv.name(pv.get(font, "/Name")) if type3 else None) or ""
        descriptor = pv.dictionary(pv.get(font, "/FontDescriptor"))
        flags = pv.integer(pv.get(descriptor, "/Flags"), 0) or 0
        self._symbolic = bool(flags & _SYMBOLIC)
        self._embedded = any(pv.get(descriptor, key) is not None for key in _FONT_FILES)
        self._descriptor = descriptor
        self._shared = shared
        self._truetype = subtype == "TrueType"
        standard = None if type3 else standard_font_name(name)
        self._zapf = standard == "ZapfDingbats"
        self._symbol_font = standard == "Symbol"

        # Glyph names per code (§9.6.6). When the base encoding is the font
        # program's built-in one, codes outside /Differences wait for it.
        self._differences: dict[int, str] = {}
        base, self._builtin_pending = self._base_encoding(font, standard, type3, warnings)
        self._names = encodings.glyph_names(base, self._differences)

        # Text per code, None while unmapped: ToUnicode first, then glyph names.
        self._mapped: list[str | None] = [None] * 256
        self._tounicode = shared.tounicode(font, warnings)
        if self._tounicode is not None:
            self._mapped = self._tounicode.unicode_table(256)
        self._fill_from_names(range(256))

        # Advances and vertical extent; Type3 glyph space is FontMatrix's (§9.6.5).
        matrix = _font_matrix(font, warnings) if type3 else _DEFAULT_FONT_MATRIX
        metrics = standard_metrics(standard) if standard else None
        fallback = 0.6 if metrics is not None and metrics.fixed_pitch else FALLBACK_WIDTH
        standard_width = standard_widths(standard, tuple(self._names)).__getitem__ if standard else None
        self._widths = frozen(simple_widths(font, descriptor, matrix[0], standard_width, fallback, warnings))
        candidates = extent_candidates(descriptor, matrix[3], font if type3 else descriptor)
        if metrics is not None:
            candidates.append((metrics.ascent / 1000.0, metrics.descent / 1000.0))
        ascent, descent = vertical_extent(candidates)

        self._texts: list[str] = []
        self._text_table = np.empty(256, dtype=object)
        self._undecodable = np.zeros(256, dtype=bool)
        self._pending: np.ndarray | None = None
        # The codes that wait for nothing, as bytes: deleting them from a
        # string (bytes.translate) leaves the codes that wait for the program.
        self._settled_codes = bytes(range(256))
        # waiting_codes() of the current _settled_codes (which it is cached for).
        self._waiting: tuple[bytes, bytes] | None = None
        self._finish_tables()
        super().__init__(
            widths=self._widths, name=name, subtype=subtype, wmode=0, ascent=ascent, descent=descent,
            warnings=warnings, cache_size=cache_size,
        )

    # -- encoding -------------------------------------------------------------

    def _base_encoding(
        self, font: Any, standard: str | None, type3: bool, warnings: list[str]
    ) -> tuple[Mapping[int, str] | None, bool]:
        """The base encoding, and whether it is the (not yet read) font program's own."""
        value = pv.get(font, "/Encoding")
        base_name: str | None = None
        if pv.name(value) is not None:
            base_name = pv.name(value)
        elif pv.dictionary(value) is not None:
            base_name = pv.name(pv.get(value, "/BaseEncoding"))
            differences = pv.get(value, "/Differences")
            if differences is not None:
                self._differences, problems = encodings.parse_differences(differences)
                warnings.extend(problems)
        elif value is not None:
            warnings.append("/Encoding is neither a name nor a dictionary; ignored")
        if base_name is not None:
            base = encodings.BASE_ENCODINGS.get(base_name)
            if base is not None:
                return base, False
            warnings.append(f"unknown encoding /{base_name}; the font's built-in encoding is used")
        # No usable base encoding: the implicit one (§9.6.6.1, §9.6.6.2).
        if type3:
            return None, False  # a Type3 font has no built-in encoding
        if standard is not None and standard in encodings.BUILTIN_ENCODINGS:
            return encodings.BUILTIN_ENCODINGS[standard], False
        if self._embedded and not self._truetype:
            return None, True  # the embedded Type 1 / CFF program's built-in encoding
        if self._symbolic:
            # A symbolic font's built-in encoding is unknown without its
            # program; a TrueType program is consulted by code (§9.6.6.4).
            return None, False
        return STANDARD, False

    def _fill_from_names(self, codes: Any) -> None:
        mapped = self._mapped
        texts = encoding_texts(tuple(self._names), self._zapf, self._symbol_font)
        for code in codes:
            if mapped[code] is None:
                mapped[code] = texts[code]

    def _finish_tables(self) -> None:
        # New arrays, not updates in place: tables handed out stay as they were.
        mapped = np.empty(256, dtype=object)
        mapped[:] = self._mapped
        missing = mapped == None  # noqa: E711 - elementwise: which codes nothing maps yet
        text_table = mapped
        text_table[missing] = REPLACEMENT
        self._texts = text_table.tolist()
        self._text_table = frozen(text_table)
        self._undecodable = frozen(text_table == REPLACEMENT)
        if self._embedded:
            self._pending = missing if missing.any() else None
            self._settled_codes = bytes(np.flatnonzero(~missing).tolist())

    # -- lazy font program ----------------------------------------------------

    def _resolve_with_program(self) -> None:
        """Map the still-unmapped codes through the embedded font program (once)."""
        self._pending = None
        program, problems = load_program(self._descriptor, self._shared.max_stream_bytes)
        for problem in problems:
            self._warn(problem)
        mapped = self._mapped
        unmapped = [code for code in range(256) if mapped[code] is None]
        if self._builtin_pending:
            builtin = program.builtin_encoding if program is not None and program.builtin_encoding else None
            if builtin is None and not self._symbolic:
                builtin = STANDARD  # the program said nothing: nonsymbolic fonts use StandardEncoding
            if builtin is not None:
                encodings.apply_names(self._names, builtin, [c for c in unmapped if c not in self._differences])
                self._fill_from_names(unmapped)
        if program is not None:
            for code in unmapped:
                if mapped[code] is None:
                    mapped[code] = _program_text(program, self._names[code], code, self._truetype)
        self._finish_tables()
        self._pending = None

    # -- decoding -------------------------------------------------------------

    def _waits_for_program(self, data: bytes) -> bool:
        return self._pending is not None and bool(data.translate(None, self._settled_codes))

    def waiting_codes(self) -> bytes | None:
        if self._pending is None:
            return None
        if self._waiting is None or self._waiting[0] is not self._settled_codes:
            settled = np.zeros(256, dtype=np.uint8)
            settled[np.frombuffer(self._settled_codes, dtype=np.uint8)] = 1
            self._waiting = (self._settled_codes, (1 - settled).tobytes())
        return self._waiting[1]

    def code_tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self._widths, self._text_table, self._undecodable

    def _decode(self, data: bytes) -> DecodedString:
        codes = np.frombuffer(data, dtype=np.uint8)
        if self._pending is not None and self._pending[codes].any():
            self._resolve_with_program()
        # The hot path of simple fonts: fancy indexing into 256-entry tables.
        # The arrays are shared through the cache, so they are made read-only
        # (the _ZEROS slice already is).
        n = len(codes)
        return DecodedString(
            texts=tuple(map(self._texts.__getitem__, data)),
            widths=frozen(self._widths[codes]),
            vertical_widths=_ZEROS[:n] if n <= len(_ZEROS) else frozen(np.zeros(n)),
            word_space=frozen(codes == 32),
            undecodable=frozen(self._undecodable[codes]),
            codes=frozen(codes.astype(np.int64)),
        )


# Vertical advances of horizontal glyphs, shared read-only (sliced per string).
_ZEROS = np.zeros(4096)
_ZEROS.flags.writeable = False


def _font_matrix(font: Any, warnings: list[str]) -> tuple[float, ...]:
    matrix = pv.numbers(pv.get(font, "/FontMatrix"))
    if matrix is not None and len(matrix) == 6 and matrix[0] != 0 and matrix[3] != 0:
        return tuple(matrix)
    warnings.append("/FontMatrix missing or degenerate; [0.001 0 0 0.001 0 0] used")
    return _DEFAULT_FONT_MATRIX


def _program_text(program: FontProgram, glyph: str | None, code: int, truetype: bool) -> str | None:
    if glyph is not None and program.has_glyph(glyph):
        text = program.text_for_glyph(glyph)
        if text is not None:
            return text
    if truetype or program.cmaps:
        return program.text_for_glyph(program.glyph_for_simple_code(code))
    return None
