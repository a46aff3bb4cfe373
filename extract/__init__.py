"""Stage 1: PDF bytes -> glyph table -> page text.

Entry points::

    from ragprep.extract import extract_document, open_document

    result = extract_document("paper.pdf", mode="stream", pages="1-3")
    for page in result.pages:
        print(page.page, page.mode, page.text)

    for table in result.tables:                   # typed tables (extract/tables.py)
        print(table.table_id, table.n_rows, table.n_cols, render_table(table))

    with open_document("paper.pdf") as doc:      # page by page, glyph tables too
        glyphs = doc.page_glyphs(1)               # GlyphTable + the joins behind the text

Errors are importable from ``ragprep.extract.errors``.
"""

from typing import TYPE_CHECKING, Any

from ragprep.extract.lazy import lazy_exports

# Names resolve on first use (PEP 562), so importing a light part of this
# stage (errors, config, Mode) costs no numpy, pikepdf or fontTools: the CLI's
# `--help` and a small extract start fast. A test keeps it so.
_EXPORTS = {
    "ragprep.extract.blocks": ("Block", "TextLine"),
    "ragprep.extract.config": ("ExtractConfig",),
    "ragprep.extract.docinfo": ("DocumentInfo",),
    "ragprep.extract.document": (
        "Document", "DocumentResult", "PageGlyphs", "PageResult", "extract_document", "open_document",
        "parse_page_selection",
    ),
    "ragprep.extract.errors": ("ConfigError", "EncryptedPDFError", "PageRangeError", "PDFReadError", "RagprepError"),
    "ragprep.extract.geometric": ("LINE_BREAK", "SPACE", "JoinedText"),
    "ragprep.extract.glyphs": ("GlyphTable",),
    "ragprep.extract.layout": ("LayoutPicture", "layout_picture"),
    "ragprep.extract.modes": ("Mode",),
    "ragprep.extract.reading": ("read_stream",),
    "ragprep.extract.running": ("masked_key",),
    "ragprep.extract.tables": ("Table", "TableCell"),
    "ragprep.extract.tabletext": ("TABLE_FORMATS", "grid_texts", "header_row_count", "render_rows", "render_table"),
    "ragprep.extract.warning": ("PageWarning", "WarningKind", "render_all"),
}  # fmt: skip

if TYPE_CHECKING:
    from ragprep.extract.blocks import Block, TextLine
    from ragprep.extract.config import ExtractConfig
    from ragprep.extract.docinfo import DocumentInfo
    from ragprep.extract.document import (
        Document,
        DocumentResult,
        PageGlyphs,
        PageResult,
        extract_document,
        open_document,
        parse_page_selection,
    )
    from ragprep.extract.errors import (
        ConfigError,
        EncryptedPDFError,
        PageRangeError,
        PDFReadError,
        RagprepError,
    )
    from ragprep.extract.geometric import LINE_BREAK, SPACE, JoinedText
    from ragprep.extract.glyphs import GlyphTable
    from ragprep.extract.layout import LayoutPicture, layout_picture
    from ragprep.extract.modes import Mode
    from ragprep.extract.reading import read_stream
    from ragprep.extract.running import masked_key
    from ragprep.extract.tables import Table, TableCell
    from ragprep.extract.tabletext import TABLE_FORMATS, grid_texts, header_row_count, render_rows, render_table
    from ragprep.extract.warning import PageWarning, WarningKind, render_all

__all__ = [
    "Block",
    "ConfigError",
    "Document",
    "DocumentInfo",
    "DocumentResult",
    "EncryptedPDFError",
    "ExtractConfig",
    "GlyphTable",
    "JoinedText",
    "LINE_BREAK",
    "LayoutPicture",
    "Mode",
    "PDFReadError",
    "PageGlyphs",
    "PageRangeError",
    "PageResult",
    "PageWarning",
    "RagprepError",
    "SPACE",
    "TABLE_FORMATS",
    "Table",
    "TableCell",
    "TextLine",
    "WarningKind",
    "extract_document",
    "grid_texts",
    "header_row_count",
    "layout_picture",
    "masked_key",
    "open_document",
    "parse_page_selection",
    "read_stream",
    "render_rows",
    "render_all",
    "render_table",
]

_resolve = lazy_exports(__name__, _EXPORTS)


def __getattr__(name: str) -> Any:
    # A def, not `__getattr__ = _resolve`: type checkers read a module's
    # __getattr__ only when it is a function.
    return _resolve(name)
