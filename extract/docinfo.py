"""What a document says about itself: its producer and whether it is tagged.

Read from the document information dictionary (§14.3.3) and the catalog's
/MarkInfo (§14.7.1), for the documents table; damaged entries read as absent.
"""

from __future__ import annotations

from dataclasses import dataclass

import pikepdf


@dataclass(frozen=True)
class DocumentInfo:
    # /Producer of the information dictionary, when it is readable text.
    producer: str | None
    # /MarkInfo /Marked is true, or the catalog at least carries a /StructTreeRoot.
    tagged: bool


def document_info(pdf: pikepdf.Pdf) -> DocumentInfo:
    return DocumentInfo(_producer(pdf), _tagged(pdf))


def _producer(pdf: pikepdf.Pdf) -> str | None:
    try:
        value = pdf.docinfo.get("/Producer")
    except (pikepdf.PdfError, ValueError, TypeError, UnicodeDecodeError):
        return None
    try:
        return str(value) if value is not None else None
    except (pikepdf.PdfError, ValueError, TypeError, UnicodeDecodeError):
        return None


def _tagged(pdf: pikepdf.Pdf) -> bool:
    try:
        root = pdf.Root
        mark_info = root.get("/MarkInfo")
        marked = bool(mark_info.get("/Marked", False)) if isinstance(mark_info, pikepdf.Dictionary) else False
        return marked or "/StructTreeRoot" in root
    except (pikepdf.PdfError, ValueError, TypeError):
        return False
