"""Opening a PDF and producing page results: the extract stage boundary.

Errors a user can act on (not a PDF, needs a password, bad page selection) are
raised here as typed exceptions from ``ragprep.extract.errors``; anything that
goes wrong inside one page becomes a warning on that page, never a lost document.

Pages are read one by one (``Document.extract_page``) or together
(``Document.extract_pages``, ``extract_document``). Only pages read together
can have their running headers and footers found (running.py): that rule
counts lines across the document. The pass over the pages keeps at most
``running_hold_glyphs`` (config) glyphs' worth of glyph tables while it waits
for the counts; pages beyond that are interpreted again at the end (see
``extract_pages``).
"""

from __future__ import annotations

import contextvars
import dataclasses
import io
import re
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import numpy as np
import pikepdf

from ragprep.extract.config import ExtractConfig
from ragprep.extract.diagnostics import capture, release, summarize
from ragprep.extract.errors import EncryptedPDFError, PageRangeError, PDFReadError, describe
from ragprep.extract.modes import Mode
from ragprep.extract.blocks import Block, TextLine
from ragprep.extract.fonts import FontLoader
from ragprep.extract.glyphs import GlyphTable, ImagePlacement
from ragprep.extract.gridfind import detect_tables
from ragprep.extract.interpreter import interpret_page
from ragprep.extract.pagebox import visible_box
from ragprep.extract.layout import read_layout
from ragprep.extract.recovery import adopt_pages, scan_pages, with_page_tree
from ragprep.extract.rows import frozen_replace, paused_collection
from ragprep.extract.paths import PathTable
from ragprep.extract.reading import PageReading, Unavailable, read_stream, read_structure, unmarked_glyphs
from ragprep.extract.running import BandLines, Box, KeyTally, band_lines, leaves_text, running_mask
from ragprep.extract.structure import StructTree, page_struct_parents, read_struct_tree
from ragprep.extract.tables import (
    STRUCTURE,
    PageTables,
    Table,
    TableGrids,
    join_continued,
    merge_tables,
    pieces_by_page,
    structure_tables,
    table_grids,
    whole_on_page,
)
from ragprep.extract.warning import PageWarning, WarningKind
from ragprep.extract.docinfo import DocumentInfo, document_info


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
    warnings: tuple[PageWarning, ...] = ()
    reason: str | None = None  # why the requested mode was unavailable
    # auto mode: why the page was read geometrically instead of by structure.
    fallback: str | None = None
    blocks: tuple[Block, ...] = ()
    lines: tuple[TextLine, ...] = ()  # emitted lines, in reading order
    # The tables this page shows: each the cells on this page, in whole-table
    # coordinates (extract/tables.py); a table over several pages has one
    # table_id on each.
    tables: tuple[Table, ...] = ()


@dataclass(frozen=True)
class DocumentResult:
    file: str
    page_count: int
    pages: tuple[PageResult, ...]
    # How the pages were read: the requested mode (auto stays auto; each page
    # says which mode produced it) and the settings. The chunker hashes both
    # into every chunk id, so they travel with the result instead of being
    # passed again (and possibly differently) beside it.
    mode: str
    extract_config: ExtractConfig

    @property
    def tables(self) -> tuple[Table, ...]:
        """The document's tables: the pages' pieces joined by table_id."""
        return merge_tables((t for page in self.pages for t in page.tables), relabel=False)


@dataclass(frozen=True)
class PageGlyphs:
    """A page's glyph table and the warnings met while interpreting it."""

    page: int
    table: GlyphTable
    warnings: tuple[PageWarning, ...]
    # Images painted inside marked content (for Figure /Alt text).
    images: tuple[ImagePlacement, ...] = ()
    # Straight painted path pieces: table rules (extract/paths.py).
    paths: PathTable = dataclasses.field(default_factory=PathTable.empty)
    # The visible box the interpreter took `visible` from; None when the page could not be read.
    visible_box: Box | None = None


@dataclass(frozen=True)
class _Geometric:
    """A page to be read by layout (its glyphs, with the warnings so far),
    and auto's reason for reading it so."""

    glyphs: PageGlyphs
    fallback: str | None = None


@dataclass(frozen=True)
class _Waiting:
    """A page whose band lines wait for the document's counts (extract_pages)."""

    index: int  # position in the result
    page: _Geometric  # its table is empty when it was not kept
    lines: BandLines
    kept: bool




def _source_name(source: str | Path | bytes) -> str:
    return "<bytes>" if isinstance(source, bytes) else str(source)


def _open_pdf(
    source: str | Path | bytes, password: str | None, max_stream_bytes: int
) -> tuple[pikepdf.Pdf, tuple[PageWarning, ...]]:
    """The opened PDF and warnings about how it was opened: qpdf's repairs,
    and pages recovered by scanning (recovery.py) where qpdf's repair gives up."""
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
        pdf = pikepdf.open(stream, password=password or "")
    except pikepdf.PasswordError as exc:
        if password:
            raise EncryptedPDFError(f"{name}: wrong password") from exc
        raise EncryptedPDFError(f"{name} needs a password") from exc
    except (pikepdf.PdfError, ValueError, RecursionError) as exc:
        # qpdf starts its messages with the file name, which ours already gives.
        reason = _first_line(exc).removeprefix(f"{name}: ").removeprefix(f"{name} ")
        recovered = _recover(source, password, max_stream_bytes, reason)
        if recovered is None:
            raise PDFReadError(f"{name}: cannot be read as a PDF: {reason}") from exc
        return recovered
    except OSError as exc:
        raise PDFReadError(f"{name}: cannot be read: {exc.strerror or exc}") from exc
    warnings = summarize(pdf.get_warnings())
    try:
        len(pdf.pages)
    except (pikepdf.PdfError, RecursionError, ValueError) as exc:
        pdf.close()
        recovered = _recover(source, password, max_stream_bytes, _first_line(exc))
        if recovered is None:
            raise PDFReadError(f"{name}: the page tree cannot be read: {_first_line(exc)}") from exc
        return recovered
    return pdf, warnings


def _recover(
    source: str | Path | bytes, password: str | None, max_stream_bytes: int, reason: str
) -> tuple[pikepdf.Pdf, tuple[PageWarning, ...]] | None:
    """The PDF with the pages a scan of its objects finds hung under a new
    page tree, or None when there are none (recovery.py)."""
    try:
        data = source if isinstance(source, bytes) else Path(source).read_bytes()
    except OSError:
        return None
    # Offsets count from the header (§7.5.2); junk before it is dropped.
    header = data.find(b"%PDF-")
    data = data[header:] if header > 0 else data
    found = scan_pages(data, max_stream_bytes)
    if not found.pages:
        return None
    try:
        pdf = pikepdf.open(io.BytesIO(with_page_tree(data, found)), password=password or "")
        adopt_pages(pdf, found)
        count = len(pdf.pages)
    except (pikepdf.PdfError, ValueError, RecursionError, TypeError):
        return None
    if not count:
        pdf.close()
        return None
    message = f"recovered {count} pages by scanning the file's objects, the page tree was unreadable ({reason})"
    return pdf, (PageWarning(WarningKind.DOCUMENT, message),)


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

    def __init__(
        self,
        pdf: pikepdf.Pdf,
        name: str,
        config: ExtractConfig,
        warnings: Sequence[PageWarning] = (),
        qpdf_messages: tuple[list[str], contextvars.Token[list[str] | None]] | None = None,
    ) -> None:
        self._pdf = pdf
        # How the file was opened (repairs, recovered pages): on the first page read.
        self.warnings = tuple(warnings)
        self._open_warnings = self.warnings
        # qpdf's messages while the document is open (diagnostics.py): on the page being read.
        self._qpdf_messages, token = qpdf_messages or capture()
        self._qpdf_token: contextvars.Token[list[str] | None] | None = token
        self.name = name
        self.config = config
        self._fonts = FontLoader(max_stream_bytes=config.max_stream_bytes)
        self._pages: list[pikepdf.Page] | None = None  # read on first use (_listed_pages)
        # The pages' (object number, generation) when the tree is read (_listed_page_keys).
        self._page_keys: tuple[tuple[int, int], ...] | None = None
        self._struct_tree: StructTree | None = None
        self._struct_tree_read = False
        self._table_grids: TableGrids | None = None
        # Tree-level warnings go on the first page read by structure.
        self._struct_warnings: tuple[PageWarning, ...] = ()
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
        if self._qpdf_token is not None:
            release(self._qpdf_token)
            self._qpdf_token = None

    @property
    def pdf(self) -> pikepdf.Pdf:
        return self._pdf

    @property
    def info(self) -> DocumentInfo:
        """Its producer and whether it is tagged (docinfo.py)."""
        return document_info(self._pdf)

    def _page(self, number: int) -> pikepdf.Page:
        if not 1 <= number <= self.page_count:
            raise PageRangeError(f"page {number} does not exist: the document has {self.page_count} pages")
        pages = self._listed_pages()
        if len(pages) != self.page_count:
            return self._pdf.pages[number - 1]
        return pages[number - 1]

    def _listed_pages(self) -> list[pikepdf.Page]:
        """The pages, listed once: pikepdf's pages[i] copies qpdf's whole
        page vector on every access (O(pages) each, 90 µs at 400 pages).
        [] when they cannot be listed (a page then fails alone, in _page)."""
        if self._pages is None:
            try:
                self._pages = list(self._pdf.pages)
            except (pikepdf.PdfError, RecursionError, ValueError, TypeError):
                self._pages = []
        return self._pages

    def _listed_page_keys(self) -> tuple[tuple[int, int], ...] | None:
        """Each page's (object number, generation), pages in order, off the
        listed pages (what read_struct_tree would list again); None when
        they are not all listed."""
        pages = self._listed_pages()
        if len(pages) != self.page_count:
            return None
        try:
            return tuple(page.obj.objgen for page in pages)
        except (pikepdf.PdfError, RecursionError, ValueError, TypeError):
            return None

    # A page's reading allocates its lines, blocks and font tables by the
    # thousand and leaves no cycles worth collecting mid-page: the cyclic
    # collector, which walked every young object each 700 allocations (7 % of
    # stream mode), runs between pages instead (rows.paused_collection).
    @paused_collection()
    def page_glyphs(self, number: int) -> PageGlyphs:
        """The glyph table of page `number` (1-based)."""
        try:
            interpreted = interpret_page(self._pdf, self._page(number), self._fonts, self.config)
        except PageRangeError:
            raise
        except (pikepdf.PdfError, RecursionError, ValueError, TypeError, KeyError) as exc:
            # A page whose objects are damaged beyond the interpreter's own
            # recovery: report it on the page, keep the document going.
            warning = PageWarning(WarningKind.DOCUMENT, f"page could not be read: {describe(exc)}")
            return PageGlyphs(number, GlyphTable.empty(), self._document_warnings() + (warning,))
        warnings = self._document_warnings() + interpreted.warnings
        return PageGlyphs(
            number, interpreted.glyphs, warnings, interpreted.images, interpreted.paths, interpreted.visible_box
        )

    def _document_warnings(self) -> tuple[PageWarning, ...]:
        """Warnings that arose outside any page's own reading: how the file
        was opened (once, on the first page read) and qpdf's messages since."""
        warnings = self._open_warnings + summarize(self._qpdf_messages)
        self._open_warnings = ()
        self._qpdf_messages.clear()
        return warnings

    @property
    def struct_tree(self) -> StructTree | None:
        """The structure tree, read once per document on first use (None when untagged)."""
        if not self._struct_tree_read:
            self._struct_tree_read = True
            try:
                self._page_keys = self._listed_page_keys()
                self._struct_tree = read_struct_tree(
                    self._pdf, max_depth=self.config.max_struct_depth, pages=self._page_keys
                )
            except (pikepdf.PdfError, RecursionError, ValueError, TypeError) as exc:
                self._struct_warnings = (PageWarning(WarningKind.STRUCTURE, f"unreadable: {_first_line(exc)}"),)
            else:
                self._struct_warnings = self._struct_tree.warnings if self._struct_tree else ()
        return self._struct_tree

    @property
    def table_grids(self) -> TableGrids | None:
        """The grids of the tagged tables (extract/tables.py), laid out once per document."""
        tree = self.struct_tree
        if tree is None:
            return None
        if self._table_grids is None:
            self._table_grids = table_grids(tree)
        return self._table_grids

    def extract_page(self, number: int, mode: Mode | str = Mode.AUTO) -> PageResult:
        """Text, counts and blocks of page `number` (1-based) in `mode`, the
        page read alone. Running headers and footers are a property of the
        document, not of one page: this never looks for them (extract_pages
        and extract_document do)."""
        return self._read_page(number, Mode(mode), alone=True)

    @paused_collection()  # as page_glyphs: between pages, not between a page's interpretation and its reading
    def _read_page(self, number: int, mode: Mode, alone: bool) -> PageResult:
        """The page read; `alone`: its tagged tables labelled as this page
        sees them (pages read together are labelled whole, _with_whole_tables)."""
        read = self._classify(self.page_glyphs(number), mode, alone)
        return read if isinstance(read, PageResult) else self._layout_result(read, None)

    def running_glyphs(self, numbers: Sequence[int]) -> dict[int, np.ndarray]:
        """Per page of `numbers`, one flag per row of its glyph table: is the
        glyph part of a running header or footer (running.py) when these
        pages are read together? These are the glyphs ``extract_pages``
        leaves out in layout mode. The masks are what is held, not the glyph
        tables, so memory stays bounded: only a page whose text lies all in
        its band lines is interpreted again, to see whether it keeps any."""
        tally = KeyTally(numbers, self.config)
        found: dict[int, tuple[BandLines, int, bool]] = {}
        for number in numbers:
            glyphs = self.page_glyphs(number)
            table = glyphs.table
            lines = self._count_bands(glyphs, tally)
            in_bands = np.zeros(len(table), dtype=bool)
            in_bands[lines.glyphs] = True
            # Text outside every band line is left whatever runs (leaves_text).
            found[number] = (lines, len(table), leaves_text(table, in_bands))
        masks = {}
        for number, (lines, size, text_elsewhere) in found.items():
            mask = lines.mask(tally.running(lines.keys), size)
            if mask.any() and not text_elsewhere:
                # Only a page whose text is all in band lines needs its table again.
                mask = _running_mask(self.page_glyphs(number).table, lines, tally)
            masks[number] = mask
        return masks

    def read(self, mode: Mode | str = Mode.AUTO, numbers: Sequence[int] | None = None) -> DocumentResult:
        """Pages `numbers` (all by default) read together in `mode`
        (``extract_pages``), as a result that records how it was read."""
        numbers = range(1, self.page_count + 1) if numbers is None else numbers
        mode = Mode(mode)
        return DocumentResult(self.name, self.page_count, self.extract_pages(numbers, mode), mode.value, self.config)

    def extract_pages(self, numbers: Sequence[int], mode: Mode | str = Mode.AUTO) -> tuple[PageResult, ...]:
        """Pages `numbers` (1-based) in `mode`, read together: in layout mode,
        and where auto falls back to layout, lines repeated in the top or
        bottom band of these pages (running headers and footers, running.py;
        config ``running_artifacts``) are marked as artifacts, counted in
        ``artifact_glyphs`` and left out of the text. Stream mode (raw
        content-stream order) and structure mode (which leaves out tagged
        artifacts itself) read every page as ``extract_page`` does.

        One pass interprets each page once and counts its band lines. A page
        is read at once when the counts already decide every one of its lines
        (running, or unable to reach the threshold on the pages left);
        otherwise it waits for the end of the pass, holding its glyph table
        while the waiting tables total at most ``running_hold_glyphs`` glyphs, and is
        interpreted again at the end when over it. So memory stays bounded on
        long documents, and a page is interpreted twice only past that bound.
        """
        mode = Mode(mode)
        config = self.config
        if mode in (Mode.STREAM, Mode.STRUCTURE) or not config.running_artifacts:
            return self._with_whole_tables(tuple(self._read_page(n, mode, alone=False) for n in numbers))
        tally = KeyTally(numbers, config)
        results: list[PageResult | None] = []
        waiting: deque[_Waiting] = deque()
        held = 0
        for number in numbers:
            glyphs = self.page_glyphs(number)
            read = self._classify(glyphs, mode, alone=False)
            table = glyphs.table
            # Every page counts, also those structure reads (their heads are
            # usually tagged artifacts already): the share is of the document.
            lines = self._count_bands(glyphs, tally)
            if isinstance(read, PageResult):
                results.append(read)
            elif tally.decided(lines.keys):
                results.append(self._layout_result(read, _running_mask(table, lines, tally)))
            else:
                kept = held + len(table) <= config.running_hold_glyphs
                if kept:
                    held += len(table)
                else:
                    # Not held: only the warnings and the fallback reason stay.
                    empty = dataclasses.replace(read.glyphs, table=GlyphTable.empty(), paths=PathTable.empty())
                    read = _Geometric(empty, read.fallback)
                waiting.append(_Waiting(len(results), read, lines, kept))
                results.append(None)
        while waiting:
            # Popped, so that each held table goes once its page is read.
            wait = waiting.popleft()
            read, lines = wait.page, wait.lines
            if not wait.kept:
                # Interpretation is deterministic: the same table as before,
                # and the same lines; warnings are those of the first time.
                again = self.page_glyphs(read.glyphs.page)
                table = again.table
                read = _Geometric(dataclasses.replace(read.glyphs, table=table, paths=again.paths), read.fallback)
                lines = self._count_bands(again, None)
            results[wait.index] = self._layout_result(read, _running_mask(read.glyphs.table, lines, tally))
        return self._with_whole_tables(tuple(r for r in results if r is not None))

    @paused_collection()  # every cell of every table rebuilt as a frozen row: none of it garbage
    def _with_whole_tables(self, results: tuple[PageResult, ...]) -> tuple[PageResult, ...]:
        """Pages read together see whole tables: a table's pieces are joined
        across pages and labelled as one grid (a header row on one page labels
        the cells on the next), then handed back page by page. A tagged table
        only one page shows was labelled whole there (structure_tables): it
        stays as it is."""
        if not any(len(r.tables) for r in results):
            return results
        # Only tagged tables are labelled from the tree's grids: pages read by
        # layout alone (a tagged file in layout mode) need not read the tree.
        tagged = any(t.source == STRUCTURE for r in results for t in r.tables)
        grids = self.table_grids if tagged else None
        kept = _whole_pieces(results, grids)
        if len(kept) == sum(len(r.tables) for r in results):
            return results  # every table whole on its page
        # Line boxes only where there are detected tables: join_continued looks at no other page's lines.
        joined = join_continued([PageTables(r.page, r.tables, _line_boxes(r)) for r in results])
        pieces = [t for tables in joined for t in tables]
        rank = {table_id: k for k, table_id in enumerate(dict.fromkeys(t.table_id for t in pieces))}
        whole = pieces_by_page(merge_tables([t for t in pieces if t.table_id not in kept], grids))
        out = []
        for r, tables in zip(results, joined, strict=True):
            if all(t.table_id in kept for t in tables):
                out.append(r)
                continue
            # In the order each table first comes in the document, as merge_tables orders them.
            page_tables = [t for t in tables if t.table_id in kept] + list(whole.get(r.page, ()))
            out.append(frozen_replace(r, tables=tuple(sorted(page_tables, key=lambda t: rank[t.table_id]))))
        return tuple(out)

    @paused_collection()
    def _classify(self, glyphs: PageGlyphs, mode: Mode, alone: bool) -> PageResult | _Geometric:
        """The page's result, or the page to be read by layout (layout mode,
        or auto's fallback with its reason); `alone` as in _read_page."""
        table = glyphs.table
        if mode is Mode.STREAM:
            return _page_result(glyphs, Mode.STREAM.value, read_stream(table, self.config))
        if mode is Mode.LAYOUT:
            return _Geometric(glyphs)
        structure = self._structure(glyphs)
        if self._struct_warnings:
            glyphs = dataclasses.replace(glyphs, warnings=glyphs.warnings + self._struct_warnings)
            self._struct_warnings = ()
        if mode is Mode.STRUCTURE:
            if isinstance(structure, Unavailable):
                return _unavailable(glyphs, structure.reason)
            return self._structure_result(glyphs, structure, alone)
        # auto: structure when it covers enough of the page, else the
        # column-aware geometric reading (DESIGN.md, Modes).
        if isinstance(structure, Unavailable):
            fallback = structure.reason
        else:
            visible = int(np.count_nonzero(table.visible))
            share = self.config.auto_max_untagged_share
            if structure.untagged_glyphs <= share * visible:
                return self._structure_result(glyphs, structure, alone)
            fallback = f"untagged {structure.untagged_glyphs / visible:.0%} > {share:.0%}"
        return _Geometric(glyphs, fallback)

    def _structure(self, glyphs: PageGlyphs) -> PageReading | Unavailable:
        """read_structure of the page. An untagged document's answer needs
        nothing of the page: its dictionary is not read (no /StructParents
        lookup per page)."""
        tree = self.struct_tree
        if tree is None:
            return read_structure(glyphs.table, None, (0, 0), lambda: False, self.config)
        number, keys = glyphs.page, self._page_keys
        return read_structure(
            glyphs.table,
            tree,
            keys[number - 1] if keys is not None else self._page(number).obj.objgen,
            lambda: page_struct_parents(self._page(number)) is not None,  # asked only of a page the tree references nothing on
            self.config,
            glyphs.images,
            grids=self.table_grids,
        )

    def _structure_result(self, glyphs: PageGlyphs, structure: PageReading, alone: bool) -> PageResult:
        grids = self.table_grids
        tables: tuple[Table, ...] = ()
        if grids is not None and structure.cells:  # the page's tables go in as it is made: no copy of its result
            tables = structure_tables(grids, structure.cells, glyphs.page, structure.joined.text, labels=alone)
        return _page_result(glyphs, Mode.STRUCTURE.value, structure, tables=tables)

    @paused_collection()
    def _layout_result(self, read: _Geometric, running: np.ndarray | None) -> PageResult:
        """The page read by layout; glyphs flagged in `running` (running
        headers and footers) become artifacts: counted, not read."""
        glyphs, table = read.glyphs, read.glyphs.table
        if running is not None and running.any():
            table = dataclasses.replace(table, artifact=table.artifact | running)
        else:
            running = None
        reading = read_layout(table, self.config, running)
        tables = detect_tables(table, glyphs.paths, reading.joined, self.config, glyphs.page) if self.config.detect_tables else ()
        # One PageResult, built once: a page costs no copies of it or of its glyphs.
        return _page_result(glyphs, Mode.LAYOUT.value, reading, table, tables=tables, fallback=read.fallback or None)

    def _visible_box(self, number: int) -> Box:
        """The box glyph visibility used on this page too (pagebox.py)."""
        return visible_box(self._page(number).obj)

    def _count_bands(self, glyphs: PageGlyphs, tally: KeyTally | None) -> BandLines:
        """The page's band lines (running.py), counted in `tally` when given
        (every page read together counts once; a page read again does not);
        its bands are those of the box the interpreter took visibility from."""
        box = glyphs.visible_box if glyphs.visible_box is not None else self._visible_box(glyphs.page)
        lines = band_lines(glyphs.table, box, self.config)
        if tally is not None:
            tally.add(lines.keys, glyphs.page)
        return lines


def _running_mask(table: GlyphTable, lines: BandLines, tally: KeyTally) -> np.ndarray:
    """The glyphs of `table` in its running lines when these pages are read
    together (running.running_mask), the one rule both ``running_glyphs``
    and ``extract_pages`` apply."""
    return running_mask(table, lines, tally.running(lines.keys))


@dataclass(frozen=True)
class _Counts:
    """A page's visible glyphs, and among them artifacts and undecodable ones."""

    glyphs: int
    artifact_glyphs: int
    undecodable_glyphs: int

    @classmethod
    def of(cls, table: GlyphTable) -> "_Counts":
        # count_nonzero: a bool array's sum() casts every flag to an integer first.
        visible = table.visible
        return cls(
            glyphs=int(np.count_nonzero(visible)),
            artifact_glyphs=int(np.count_nonzero(visible & table.artifact)),
            undecodable_glyphs=int(np.count_nonzero(visible & table.undecodable)),
        )


def _whole_pieces(results: Sequence[PageResult], grids: TableGrids | None) -> set[str]:
    """The table_ids of the pieces that are whole tables labelled by their
    page (tables.whole_on_page) and shown once in `results`."""
    shown = Counter(t.table_id for r in results for t in r.tables)
    return {t.table_id for r in results for t in r.tables if shown[t.table_id] == 1 and whole_on_page(t, grids)}


def _line_boxes(result: PageResult) -> tuple[Box, ...]:
    """The boxes of the page's text lines where it has a detected table
    (what join_continued measures); () where its tables are all tagged."""
    if all(t.source == STRUCTURE for t in result.tables):
        return ()
    return tuple(line.bbox for line in result.lines)


def _page_result(
    glyphs: PageGlyphs,
    mode: str,
    reading: PageReading,
    table: GlyphTable | None = None,
    *,
    tables: tuple[Table, ...] = (),
    fallback: str | None = None,
) -> PageResult:
    """The page's result from `reading`; its glyphs are counted in `table`
    (the page's own, or a copy with its running lines marked as artifacts)."""
    counts = _Counts.of(glyphs.table if table is None else table)
    return PageResult(
        page=glyphs.page,
        mode=mode,
        text=reading.joined.text,
        glyphs=counts.glyphs,
        untagged_glyphs=reading.untagged_glyphs,
        artifact_glyphs=counts.artifact_glyphs,
        undecodable_glyphs=counts.undecodable_glyphs,
        warnings=glyphs.warnings,
        blocks=reading.blocks,
        lines=reading.lines,
        fallback=fallback,
        tables=tables,
    )


def _unavailable(glyphs: PageGlyphs, reason: str) -> PageResult:
    counts = _Counts.of(glyphs.table)
    return PageResult(
        page=glyphs.page,
        mode=UNAVAILABLE,
        text="",
        glyphs=counts.glyphs,
        untagged_glyphs=unmarked_glyphs(glyphs.table),
        artifact_glyphs=counts.artifact_glyphs,
        undecodable_glyphs=counts.undecodable_glyphs,
        warnings=glyphs.warnings,
        reason=reason,
    )


def open_document(
    source: str | Path | bytes,
    *,
    password: str | None = None,
    passwords: Sequence[str] = (),
    config: ExtractConfig | None = None,
) -> Document:
    """Open a PDF file (or its bytes) for extraction.

    `password` is the document's password; `passwords` are candidates (a
    corpus's password file) tried in turn when the document needs one.
    Raises PDFReadError when the file cannot be parsed, EncryptedPDFError when
    it needs a password that was not given or is wrong.
    """
    config = config or ExtractConfig()
    messages = capture()
    try:
        try:
            pdf, warnings = _open_pdf(source, password, config.max_stream_bytes)
        except EncryptedPDFError:
            if password or not passwords:
                raise
            pdf, warnings = _open_with_candidates(source, passwords, config.max_stream_bytes)
        return Document(pdf, _source_name(source), config, warnings, messages)
    except BaseException:
        release(messages[1])
        raise


def _open_with_candidates(
    source: str | Path | bytes, passwords: Sequence[str], max_stream_bytes: int
) -> tuple[pikepdf.Pdf, tuple[PageWarning, ...]]:
    """The PDF opened with the first of `passwords` that opens it (a wrong
    user password is rejected on open, §7.6.4.3, so trying is cheap)."""
    for candidate in passwords:
        try:
            return _open_pdf(source, candidate, max_stream_bytes)
        except EncryptedPDFError:
            continue
    tried = "the password tried does not" if len(passwords) == 1 else f"none of the {len(passwords)} passwords tried"
    raise EncryptedPDFError(f"{_source_name(source)} needs a password: {tried} open it")


def extract_document(
    source: str | Path | bytes,
    *,
    mode: Mode | str = Mode.AUTO,
    pages: str | None = None,
    password: str | None = None,
    config: ExtractConfig | None = None,
) -> DocumentResult:
    """Text of the selected pages (all by default) in the given mode, read
    together (``Document.extract_pages``): running headers and footers are
    found across the selected pages."""
    with open_document(source, password=password, config=config) as document:
        return document.read(mode, parse_page_selection(pages, document.page_count))
