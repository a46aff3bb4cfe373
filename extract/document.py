"""Opening a PDF and producing page results: the extract stage boundary.

Errors a user can act on (not a PDF, needs a password, bad page selection) are
raised here as typed exceptions from ``ragprep.extract.errors``; anything that
goes wrong inside one page becomes a warning on that page, never a lost document.
"""

from __future__ import annotations

import dataclasses
import io
import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from types import TracebackType

import pikepdf

from ragprep.extract.config import ExtractConfig
from ragprep.extract.errors import EncryptedPDFError, PageRangeError, PDFReadError
from ragprep.extract.blocks import Block, TextLine
from ragprep.extract.fonts import FontLoader
from ragprep.extract.glyphs import GlyphTable
from ragprep.extract.interpreter import ImagePlacement, interpret_page
from ragprep.extract.layout import read_layout
from ragprep.extract.reading import PageReading, Unavailable, read_stream, read_structure, unmarked_glyphs
from ragprep.extract.structure import StructTree, page_struct_parents, read_struct_tree


class Mode(str, Enum):
    STREAM = "stream"
    STRUCTURE = "structure"
    LAYOUT = "layout"
    AUTO = "auto"


UNAVAILABLE = "unavailable"


@dataclass(frozen=True)
class PageResult:
    """Text of one page and what went into it."""

    page: int  # 1-based
    mode: str  # the mode that produced the text, or "unavailable"
    text: str
    glyphs: int  # visible glyphs
    untagged_glyphs: int  # visible, not artifacts, outside any MCID
    artifact_glyphs: int  # visible glyphs inside /Artifact sequences
    undecodable_glyphs: int  # visible glyphs nothing mapped to Unicode
    warnings: tuple[str, ...] = ()
    reason: str | None = None  # why the requested mode was unavailable
    # auto mode: why the page was read geometrically instead of by structure.
    fallback: str | None = None
    blocks: tuple[Block, ...] = ()
    lines: tuple[TextLine, ...] = ()  # emitted lines, in reading order


@dataclass(frozen=True)
class DocumentResult:
    file: str
    page_count: int
    pages: tuple[PageResult, ...]


@dataclass(frozen=True)
class PageGlyphs:
    """A page's glyph table and the warnings met while interpreting it."""

    page: int
    table: GlyphTable
    warnings: tuple[str, ...]
    # Images painted inside marked content (for Figure /Alt text).
    images: tuple[ImagePlacement, ...] = ()


def _source_name(source: str | Path | bytes) -> str:
    return "<bytes>" if isinstance(source, bytes) else str(source)


def _open_pdf(source: str | Path | bytes, password: str | None) -> pikepdf.Pdf:
    name = _source_name(source)
    if not isinstance(source, bytes):
        path = Path(source)
        if not path.exists():
            raise PDFReadError(f"{name}: no such file")
        if path.is_dir():
            raise PDFReadError(f"{name}: is a folder, not a PDF file")
        if path.stat().st_size == 0:
            raise PDFReadError(f"{name}: empty file (0 bytes), not a PDF")
    stream = io.BytesIO(source) if isinstance(source, bytes) else source
    try:
        return pikepdf.open(stream, password=password or "")
    except pikepdf.PasswordError as exc:
        if password:
            raise EncryptedPDFError(f"{name}: wrong password") from exc
        raise EncryptedPDFError(f"{name} needs a password (give it with --password)") from exc
    except (pikepdf.PdfError, ValueError, RecursionError) as exc:
        raise PDFReadError(f"{name}: cannot be read as a PDF: {_first_line(exc)}") from exc
    except OSError as exc:
        raise PDFReadError(f"{name}: cannot be read: {exc.strerror or exc}") from exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d*)\s*)?$")


def parse_page_selection(selection: str | None, page_count: int) -> tuple[int, ...]:
    """Page numbers (1-based, in the order given) from text like ``1,3-5,9-``."""
    if selection is None or not selection.strip():
        return tuple(range(1, page_count + 1))
    pages: list[int] = []
    for part in selection.split(","):
        match = _RANGE.match(part)
        if not match:
            raise PageRangeError(f"bad page selection {part.strip()!r}: use numbers and ranges like 1,3-5")
        first = int(match.group(1))
        last = first if match.group(2) is None else int(match.group(2) or page_count)
        if first < 1 or last < first:
            raise PageRangeError(f"bad page range {part.strip()!r}")
        if last > page_count:
            raise PageRangeError(f"page {last} does not exist: the document has {page_count} pages")
        pages.extend(range(first, last + 1))
    return tuple(pages)


class Document:
    """An open PDF. Use as a context manager, or call ``close``."""

    def __init__(self, pdf: pikepdf.Pdf, name: str, config: ExtractConfig) -> None:
        self._pdf = pdf
        self.name = name
        self.config = config
        self._fonts = FontLoader(max_stream_bytes=config.max_stream_bytes)
        self._struct_tree: StructTree | None = None
        self._struct_tree_read = False
        # Tree-level warnings go on the first page read by structure.
        self._struct_warnings: tuple[str, ...] = ()
        try:
            self.page_count = len(pdf.pages)
        except (pikepdf.PdfError, RecursionError) as exc:
            pdf.close()
            raise PDFReadError(f"{name}: the page tree cannot be read: {_first_line(exc)}") from exc

    def __enter__(self) -> "Document":
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._pdf.close()

    @property
    def pdf(self) -> pikepdf.Pdf:
        return self._pdf

    def _page(self, number: int) -> pikepdf.Page:
        if not 1 <= number <= self.page_count:
            raise PageRangeError(f"page {number} does not exist: the document has {self.page_count} pages")
        return self._pdf.pages[number - 1]

    def page_glyphs(self, number: int) -> PageGlyphs:
        """The glyph table of page `number` (1-based)."""
        try:
            interpreted = interpret_page(self._pdf, self._page(number), self._fonts, self.config)
        except PageRangeError:
            raise
        except (pikepdf.PdfError, RecursionError, ValueError, TypeError, KeyError) as exc:
            # A page whose objects are damaged beyond the interpreter's own
            # recovery: report it on the page, keep the document going.
            warning = f"page could not be read: {type(exc).__name__}: {_first_line(exc)}"
            return PageGlyphs(number, GlyphTable.empty(), (warning,))
        return PageGlyphs(number, interpreted.glyphs, interpreted.warnings, interpreted.images)

    @property
    def struct_tree(self) -> StructTree | None:
        """The structure tree, read once per document on first use (None when untagged)."""
        if not self._struct_tree_read:
            self._struct_tree_read = True
            try:
                self._struct_tree = read_struct_tree(self._pdf, max_depth=self.config.max_struct_depth)
            except (pikepdf.PdfError, RecursionError, ValueError, TypeError) as exc:
                self._struct_warnings = (f"structure tree unreadable: {_first_line(exc)}",)
            else:
                self._struct_warnings = self._struct_tree.warnings if self._struct_tree else ()
        return self._struct_tree

    def extract_page(self, number: int, mode: Mode | str = Mode.AUTO) -> PageResult:
        """Text, counts and blocks of page `number` (1-based) in `mode`."""
        mode = Mode(mode)
        glyphs = self.page_glyphs(number)
        table = glyphs.table
        if mode is Mode.STREAM:
            return _page_result(glyphs, Mode.STREAM.value, read_stream(table, self.config))
        if mode is Mode.LAYOUT:
            return _page_result(glyphs, Mode.LAYOUT.value, read_layout(table, self.config))
        page = self._page(number)
        tree = self.struct_tree
        structure = read_structure(
            table, tree, page.obj.objgen, page_struct_parents(page) is not None, self.config, glyphs.images
        )
        if self._struct_warnings:
            glyphs = dataclasses.replace(glyphs, warnings=glyphs.warnings + self._struct_warnings)
            self._struct_warnings = ()
        if mode is Mode.STRUCTURE:
            if isinstance(structure, Unavailable):
                return _unavailable(glyphs, structure.reason)
            return _page_result(glyphs, Mode.STRUCTURE.value, structure)
        # auto: structure when it covers enough of the page, else the
        # column-aware geometric reading (DESIGN.md, Modes).
        if isinstance(structure, Unavailable):
            fallback = structure.reason
        else:
            visible = int(table.visible.sum())
            share = self.config.auto_max_untagged_share
            if structure.untagged_glyphs <= share * visible:
                return _page_result(glyphs, Mode.STRUCTURE.value, structure)
            fallback = f"untagged {structure.untagged_glyphs / visible:.0%} > {share:.0%}"
        result = _page_result(glyphs, Mode.LAYOUT.value, read_layout(table, self.config))
        return dataclasses.replace(result, fallback=fallback)


def _counts(table: GlyphTable) -> dict[str, int]:
    visible = table.visible
    return {
        "glyphs": int(visible.sum()),
        "artifact_glyphs": int((visible & table.artifact).sum()),
        "undecodable_glyphs": int((visible & table.undecodable).sum()),
    }


def _page_result(glyphs: PageGlyphs, mode: str, reading: PageReading) -> PageResult:
    return PageResult(
        page=glyphs.page,
        mode=mode,
        text=reading.joined.text,
        untagged_glyphs=reading.untagged_glyphs,
        warnings=glyphs.warnings,
        blocks=reading.blocks,
        lines=reading.lines,
        **_counts(glyphs.table),
    )


def _unavailable(glyphs: PageGlyphs, reason: str) -> PageResult:
    return PageResult(
        page=glyphs.page,
        mode=UNAVAILABLE,
        text="",
        untagged_glyphs=unmarked_glyphs(glyphs.table),
        warnings=glyphs.warnings,
        reason=reason,
        **_counts(glyphs.table),
    )


def open_document(
    source: str | Path | bytes, *, password: str | None = None, config: ExtractConfig | None = None
) -> Document:
    """Open a PDF file (or its bytes) for extraction.

    Raises PDFReadError when the file cannot be parsed, EncryptedPDFError when
    it needs a password that was not given or is wrong.
    """
    pdf = _open_pdf(source, password)
    return Document(pdf, _source_name(source), config or ExtractConfig())


def extract_document(
    source: str | Path | bytes,
    *,
    mode: Mode | str = Mode.AUTO,
    pages: str | None = None,
    password: str | None = None,
    config: ExtractConfig | None = None,
) -> DocumentResult:
    """Text of the selected pages (all by default) in the given mode."""
    with open_document(source, password=password, config=config) as document:
        numbers = parse_page_selection(pages, document.page_count)
        results = tuple(document.extract_page(n, mode) for n in numbers)
        return DocumentResult(document.name, document.page_count, results)
