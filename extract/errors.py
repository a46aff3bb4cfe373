"""Every public ragprep error, importable from one place.

Each error is raised at the extract stage boundary with a message a user can act
on; the pipeline catches them per document, so one bad file is one error row.
"""

from __future__ import annotations


class RagprepError(Exception):
    """Base class of every error ragprep raises on purpose."""


class ConfigError(RagprepError, ValueError):
    """A configuration file or override names an unknown key or a bad value."""


class PDFReadError(RagprepError):
    """The file cannot be parsed as a PDF (not a PDF, damaged beyond repair)."""


class EncryptedPDFError(PDFReadError):
    """The file is encrypted with a user password that was not given or is wrong."""


class PageRangeError(RagprepError, ValueError):
    """A page selection such as ``1,3-5`` is malformed or outside the document."""



def describe(exc: BaseException) -> str:
    """An exception as a warning or message part: its type and the first line
    of its message, or what it is when it carries none (``IndexError`` alone
    tells a user nothing)."""
    lines = str(exc).strip().splitlines()
    kind = type(exc).__name__
    return f"{kind}: {lines[0]}" if lines else f"{kind} without a message"
