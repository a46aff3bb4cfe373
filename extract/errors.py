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

