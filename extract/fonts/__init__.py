"""Fonts for the content-stream interpreter (ISO 32000-1 §9.6–§9.10).

The interpreter calls fonts only through this interface::

    loader = FontLoader()                  # one per document
    font = loader.get(resources.Font.F1)   # cached; never raises
    decoded = font.decode(b"Hello")        # DecodedString: texts, advances, flags per glyph

``Font`` attributes: ``name``, ``subtype``, ``wmode``, ``ascent``,
``descent`` (per unit font size) and ``warnings``.

Simple fonts are also ``SingleByteFont``: one glyph per byte, so the
interpreter skips ``decode`` for them and uses ``advance(bytes)`` per string
and ``code_tables()`` once per page (see ``SingleByteFont``).
"""

from ragprep.extract.fonts.base import REPLACEMENT, DecodedString
from ragprep.extract.fonts.font import Font, SingleByteFont
from ragprep.extract.fonts.loader import FontLoader

__all__ = ["REPLACEMENT", "DecodedString", "Font", "FontLoader", "SingleByteFont"]
