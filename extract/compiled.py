"""The compiled content-stream interpreter, and the choice between it and the reference.

``_core`` (extract/_core.c, built by ``pip install``) tokenizes a page's
decoded content bytes and runs the text state machine of interpreter.py
operator by operator; it calls back here only for what needs the document's
objects: selecting a font (Tf), decoding strings of fonts that are not
single-byte tables, painting XObjects (Do), named marked-content properties
and /ActualText strings. Its show frames, single-byte codes and TJ
adjustments fill the same accumulator as the reference, so both paths
compute every glyph's geometry with the same code.

``RAGPREP_PURE=1`` selects the pure-Python PageInterpreter, which is also
used when the extension is not built. tests/extract/test_compiled_core.py
holds the two equal on every fixture and corpus page.
"""

from __future__ import annotations

import re
from typing import Any, cast

import numpy as np
import pikepdf

from ragprep.extract.errors import describe
from ragprep.extract.fonts import Font, SingleByteFont
from ragprep.extract.fonts.composite import CompositeFont
from ragprep.extract.geometry import IDENTITY, Matrix
from ragprep.extract.interpreter import NativeFrames, PageInterpreter
from ragprep.extract.native import PURE_ENV, compiled_available, compiled_core
from ragprep.extract.paths import PathTable
from ragprep.extract.warning import WarningKind

__all__ = ["PURE_ENV", "CompiledPageInterpreter", "compiled_available", "interpreter_class"]


def interpreter_class() -> type[PageInterpreter]:
    """The compiled interpreter where it runs (native.compiled_core), else the reference."""
    return CompiledPageInterpreter if compiled_core() is not None else PageInterpreter


def _name(raw: bytes) -> str:
    """A name token's bytes as pikepdf spells the name (with its slash)."""
    return "/" + raw.decode("utf-8", "surrogateescape")


class CompiledPageInterpreter(PageInterpreter):
    """PageInterpreter whose operators run in the compiled core.

    Resource lookups, fonts, forms and warnings are the reference's own
    methods; this class is the host the core calls back (``font``,
    ``fallback_font``, ``decode``, ``refresh_font``, ``do``, ``properties``,
    ``text``, ``warn``, ``operator_failed``)."""

    def _interpret_page(self, data: bytes) -> None:
        self._registered: set[int] = set()
        core_module = compiled_core()
        assert core_module is not None  # interpreter_class() picks this class only then
        self._core = core = core_module.Core(
            self, self._config.max_operators_per_page, self._config.max_path_pieces_per_page
        )
        try:
            core.run(data)
            self._path_columns = core.paths()
            _, codes, codes2, adj_index, adj_offset, spans, count, operators, _, kinds, fonts = core.results()
        finally:
            self._core = None  # the core holds this host until results(): no cycle stays
        glyphs = self._glyphs
        glyphs.native = NativeFrames(
            np.frombuffer(kinds, dtype=np.uint8), np.frombuffer(fonts, dtype=np.int32), core.geometry
        )
        glyphs.byte_strings = [codes] if codes else []
        glyphs.two_byte_codes = codes2
        glyphs.adjustment_columns = (
            np.frombuffer(adj_index, dtype=np.int64),
            np.frombuffer(adj_offset, dtype=np.float64),
        )
        glyphs.actual_text_spans = spans
        glyphs.count = count
        self._operators = operators

    # -- host callbacks --------------------------------------------------------

    def _register(self, index: int, font: Font, again: bool = False) -> int:
        """Hand font `index` to the core (once per page, and again after a
        decode that may have read the font's program)."""
        if index in self._registered and not again:
            return index
        self._registered.add(index)
        if isinstance(font, SingleByteFont):
            widths = font.width_bytes()
            waiting = font.waiting_codes()
            self._core.set_font(index, True, False, font.ascent, font.descent, widths, waiting)
        else:
            two_byte = isinstance(font, CompositeFont) and font.two_byte_codes
            tables = cast(CompositeFont, font).two_byte_columns.core if two_byte else None
            self._core.set_font(index, False, font.wmode == 1, font.ascent, font.descent, None, None, two_byte, tables)
        return index

    def font(self, raw: bytes) -> int:
        font, index = self._font_by_name(_name(raw))
        return self._register(index, font)

    def fallback_font(self) -> int:
        self._warn("text shown before any font was selected (Tf); decoded with a fallback font", WarningKind.FONT)
        font = self._select_font(None)
        return self._register(self._font_index[id(font)], font)

    def refresh_font(self, index: int) -> None:
        self._register(index, self._fonts_used[index], again=True)

    def decode(self, index: int, data: bytes) -> tuple[int, float, float, int]:
        decoded = self._fonts_used[index].decode(data)
        count = len(decoded.texts)
        if not count:
            return 0, 0.0, 0.0, 0
        self._glyphs.strings.append(decoded)
        widths, vertical_widths, word_spaces = decoded.advance_sums
        return count, widths, vertical_widths, word_spaces

    def code_widths(self, index: int, code: int) -> tuple[float, float]:
        """(w0, w1) of a two-byte code of composite font `index` (§9.7.4.3)."""
        # The core asks only for the fonts set_font gave it as two-byte: composite ones.
        _, w0, w1, _ = cast(CompositeFont, self._fonts_used[index]).code_info(code)
        return w0, w1

    def do(self, raw: bytes) -> None:
        form = self._form_to_paint(_name(raw))
        if form is None:
            return
        saved_context = self._context
        # The core computes the clip; the context here carries the resources.
        self._context = self._form_context(form, saved_context.clip, 0)
        self._forms_open.append(form.key)
        try:
            self._core.run_form(form.data, form.matrix, form.bbox, form.key[0])
        finally:
            self._forms_open.pop()
            self._context = saved_context

    def properties(self, raw: bytes) -> tuple[int | None, str | None]:
        properties = self._named_properties(_name(raw))
        return self._marked_properties(properties if isinstance(properties, pikepdf.Dictionary) else None)

    def text(self, raw: bytes) -> str:
        """An /ActualText string as pikepdf reads it (PDFDocEncoding or UTF-16BE, §7.9.2.2)."""
        return str(pikepdf.String(raw))

    def warn(self, message: str) -> None:
        self._warn(*_core_warning(message))

    def operator_failed(self, operator: str, exc: BaseException) -> None:
        self._warn(f"operator {operator} skipped: {describe(exc)}")

    def skipped(self, raw: bytes) -> None:
        """An operator whose operands hold a keyword inside an array or a
        dictionary (a reference's R, an operator): the reference path's
        warning for what pikepdf cannot tokenize (_interpret_damaged)."""
        shown = raw.strip()[:40].decode("latin-1")
        self._warn(
            f"content stream: skipped {shown!r}, which cannot be tokenized "
            "(an operator or reference inside an array or dictionary, §7.8.2)"
        )

    def _finish_paths(self) -> tuple[PathTable, bool]:
        """The path pieces the core recorded (paths.py's contract, in the
        same columns PathRecorder.finish gives)."""
        if self._path_columns is None:
            return super()._finish_paths()
        rows, kinds, paints, overflow = self._path_columns
        if not kinds:
            return PathTable.empty(), bool(overflow)
        xy = np.frombuffer(rows, dtype=np.float64).reshape(-1, 4).T.copy()
        kind = np.frombuffer(kinds, dtype=np.uint8).copy()
        paint = np.frombuffer(paints, dtype=np.uint8).copy()
        return PathTable(xy[0], xy[1], xy[2], xy[3], kind, paint), bool(overflow)

    def _current_ctm(self) -> Matrix:
        return self._core.ctm() if self._core is not None else IDENTITY

    def _current_marked(self) -> tuple[int, int] | None:
        marked: tuple[int, int] | None = self._core.marked()
        return marked

    # The core of the page being read (a C type without stubs); None between pages.
    _core: Any = None
    _path_columns: tuple[bytes, bytes, bytes, int] | None = None


# The core words its own warnings (it formats text in C); its limit warnings
# read "limit: ... (extract.KEY)", as the reference's render, and become
# LIMIT warnings naming KEY here, so both paths give equal PageWarnings.
_CORE_LIMIT = re.compile(r"^limit: (?P<message>.*) \((?P<setting>extract\.\w+)\)$")


def _core_warning(message: str) -> tuple[str, WarningKind, str | None]:
    match = _CORE_LIMIT.match(message)
    if match is None:
        return message, WarningKind.CONTENT, None
    return match["message"], WarningKind.LIMIT, match["setting"]
